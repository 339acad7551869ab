/* The journal index's hash (ac_hash64): its content hash is the cache
 * check that lets journal check count a block unparsed, so any change of
 * a block's bytes must change it. A 64-bit hash cannot promise that; these
 * tests check what it must do in practice: every one-bit change, every
 * length (a tail of zero bytes included), every seed, at every place
 * around its 16- and 64-byte steps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "ac_journal_index.h"

#define MAX_LEN 300

static void fill(unsigned char *m, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		m[i] = (unsigned char)(seed >> 56);
	}
}

/* Flipping any one bit of a message of any length up to MAX_LEN changes
 * its hash, in random bytes and in a run of one byte value. */
static void test_every_bit_flip_changes_hash(void **state)
{
	unsigned char m[MAX_LEN];

	(void)state;
	for (int kind = 0; kind < 2; kind++) {
		if (kind == 0)
			fill(m, sizeof(m), 42);
		else
			memset(m, 'a', sizeof(m));
		for (size_t len = 1; len <= MAX_LEN; len++) {
			uint64_t h = ac_hash64(9, m, len);

			for (size_t bit = 0; bit < len * 8; bit++) {
				m[bit / 8] ^= (unsigned char)(1u << (bit % 8));
				assert_true(ac_hash64(9, m, len) != h);
				m[bit / 8] ^= (unsigned char)(1u << (bit % 8));
			}
		}
	}
}

/* Messages that differ only by trailing zero bytes, or by the seed, hash
 * apart; the same bytes at another address hash the same. */
static void test_length_and_seed_count(void **state)
{
	unsigned char zeros[MAX_LEN + 8] = {0};
	uint64_t seen[MAX_LEN + 1];
	unsigned char *copy = malloc(MAX_LEN + 8);

	(void)state;
	assert_non_null(copy);
	for (size_t len = 0; len <= MAX_LEN; len++) {
		seen[len] = ac_hash64(0, zeros, len);
		for (size_t k = 0; k < len; k++)
			assert_true(seen[k] != seen[len]);
		assert_true(ac_hash64(1, zeros, len) != seen[len]);
		for (size_t shift = 1; shift < 8; shift++) {
			memcpy(copy + shift, zeros, len);
			assert_true(ac_hash64(0, copy + shift, len) == seen[len]);
		}
	}
	free(copy);
}

/* Two swapped 16-byte pieces (the same words in another order, in one
 * lane or across lanes) hash apart. */
static void test_order_matters(void **state)
{
	unsigned char m[256], swapped[256];

	(void)state;
	fill(m, sizeof(m), 7);
	for (size_t a = 0; a + 16 <= sizeof(m); a += 16) {
		for (size_t b = a + 16; b + 16 <= sizeof(m); b += 16) {
			memcpy(swapped, m, sizeof(m));
			memcpy(swapped + a, m + b, 16);
			memcpy(swapped + b, m + a, 16);
			assert_true(ac_hash64(3, swapped, sizeof(m)) !=
				    ac_hash64(3, m, sizeof(m)));
		}
	}
}

/* The function itself stays what indexes already on disk were written
 * with (a change would only cost a rebuild, but a silent one): every
 * length to MAX_LEN, at every alignment, against values taken from the
 * code of 2026-11 (1e73975), the ones before its tail was loaded without
 * a copy. */
static void test_values_stay_those_written_before(void **state)
{
	unsigned char m[MAX_LEN + 8];
	uint64_t all[8] = {0};

	(void)state;
	for (size_t shift = 0; shift < 8; shift++) {
		fill(m + shift, MAX_LEN, 11);
		for (size_t len = 0; len <= MAX_LEN; len++)
			all[shift] = all[shift] * 31 + ac_hash64(len * 7, m + shift, len);
		assert_true(all[shift] == all[0]);
	}
	if (all[0] != UINT64_C(0x8def3daac0e517d6))
		fail_msg("ac_hash64 changed: 0x%016llx", (unsigned long long)all[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_bit_flip_changes_hash),
		cmocka_unit_test(test_length_and_seed_count),
		cmocka_unit_test(test_order_matters),
		cmocka_unit_test(test_values_stay_those_written_before),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
