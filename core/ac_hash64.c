/* ac_hash64(): wyhash-style multiply folding, four lanes at a time. */
#include "ac_hash64.h"

#include <string.h>

/* The full 128-bit product of a and b folded to 64 bits (wyhash's
 * "mum"): one multiply mixes 16 bytes of input. */
static inline uint64_t fold_mul(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
	__extension__ unsigned __int128 r = (unsigned __int128)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
	uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);

	return ((ll & 0xffffffffu) | mid << 32) ^ (hh + (lh >> 32) + (hl >> 32) + (mid >> 32));
#endif
}

static inline uint64_t load_word(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

/* The n bytes at p (n <= 8) as memcpy() into a zeroed word puts them.
 * On a little-endian host the same value comes from loads that overlap,
 * without the copy: a load after a short copy stalls (the function's
 * hottest instruction over the short keys an index hashes). */
static inline uint64_t load_partial(const unsigned char *p, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t head, tail;

	if (n == 8)
		return load_word(p);
	if (n >= 4) {
		memcpy(&head, p, 4);
		memcpy(&tail, p + n - 4, 4);
		return head | (uint64_t)tail << (8 * (n - 4));
	}
	if (n == 0)
		return 0;
	return (uint64_t)p[0] | (uint64_t)p[n / 2] << (8 * (n / 2)) |
	       (uint64_t)p[n - 1] << (8 * (n - 1));
#else
	uint64_t w = 0;

	memcpy(&w, p, n);
	return w;
#endif
}

static const uint64_t hash_keys[8] = {
	0xa0761d6478bd642fULL, 0xe7037ed1a0b428dbULL, 0x8ebc6af09c88c6e3ULL,
	0x589965cc75374cc3ULL, 0x1d8e4e27c47d124fULL, 0x9e3779b97f4a7c15ULL,
	0xc2b2ae3d27d4eb4fULL, 0x165667b19e3779f9ULL,
};

/* Four independent lanes, each folding 16 bytes a multiply, 64 bytes a
 * round: a 1 GiB journal is hashed near memory speed on one core. Not cryptographic: a lane forgets what came before only when an
 * input word equals its key exactly (odds 2^-64 a word), so two different
 * inputs of a length collide with odds near 2^-64. */
uint64_t ac_hash64(uint64_t seed, const void *bytes, size_t len)
{
	const unsigned char *p = bytes;
	uint64_t lane[4], h, lo, hi;
	size_t n = len;

	for (int i = 0; i < 4; i++)
		lane[i] = seed ^ hash_keys[i + 4];
	for (; n >= 64; p += 64, n -= 64)
		for (int i = 0; i < 4; i++)
			lane[i] = fold_mul(load_word(p + 16 * i) ^ hash_keys[i],
					   load_word(p + 16 * i + 8) ^ lane[i]);
	h = fold_mul(lane[0] ^ hash_keys[4], lane[1] ^ (uint64_t)len);
	h = fold_mul(lane[2] ^ h, lane[3] ^ hash_keys[5]);
	for (; n >= 16; p += 16, n -= 16)
		h = fold_mul(load_word(p) ^ hash_keys[6], load_word(p + 8) ^ h);
	lo = load_partial(p, n < 8 ? n : 8);
	hi = n > 8 ? load_partial(p + 8, n - 8) : 0;
	h = fold_mul(lo ^ hash_keys[7], hi ^ h ^ (uint64_t)n);
	return fold_mul(h ^ hash_keys[0], h ^ hash_keys[1] ^ (uint64_t)len);
}
