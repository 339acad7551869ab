/* Sort keys: text as integers that order as its bytes do under strcmp(),
 * so that a sort of thousands compares integers and follows a pointer
 * only to break a tie. */
#ifndef AC_SORT_KEY_H
#define AC_SORT_KEY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Eight bytes of text[0..n) from at (zeros past its end), as an integer
 * that orders as they do. */
static inline uint64_t ac_sort_key8(const char *text, size_t n, size_t at)
{
	uint64_t key = 0;

	if (at <= n && n - at >= 8) { /* all eight there: one load */
		memcpy(&key, text + at, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		key = __builtin_bswap64(key);
#endif
		return key;
	}
	for (size_t b = 0; b < 8; b++, at++)
		key = key << 8 | (at < n ? (unsigned char)text[at] : 0);
	return key;
}

/* -1, 0 or 1 as a is below, equal to or above b. */
static inline int ac_sort_key_cmp(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

#endif
