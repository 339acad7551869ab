/* Rare-pair substring search. */
#include "ac_search.h"

#include <stdbool.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* How common a byte is in JSON Lines event text, 0 (rare) to 255. Rough,
 * from English and the journal's own shape: quotes, digits of timestamps,
 * lowercase letters and punctuation of JSON are common; capitals, rare
 * letters and controls are not. Used without a sample, and to break ties
 * between bytes a sample counted equally (often: both never seen). */
static uint8_t byte_rank(unsigned char c)
{
	static const char common[] = " \"etaoinsrhldcum:,0123456789pfgywb.-_{}TZ";
	const char *hit;

	if (c == 0)
		return 0;
	hit = memchr(common, c, sizeof(common) - 1);
	if (hit)
		return (uint8_t)(255 - (hit - common));
	if (c >= 'A' && c <= 'Z')
		return 120;
	if (c >= 'a' && c <= 'z')
		return 100; /* v k x j q z */
	if (c >= 0x80)
		return 90;  /* UTF-8 of non-Latin text */
	if (c < 0x20)
		return 10;
	return 60;          /* other punctuation */
}

void ac_byte_counts_sample(ac_byte_counts *out, const char *data, size_t n)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		out->count[(unsigned char)data[i]]++;
}

/* Lower is rarer: the sample's count first, the fixed table second. */
static uint64_t byte_score(unsigned char c, const ac_byte_counts *counts)
{
	uint64_t count = counts ? counts->count[c] : 0;

	return count << 8 | byte_rank(c);
}

/* The rarest place of needle, skipping the place `skip` and, when
 * avoid_byte >= 0, places holding that byte (a pair of equal bytes says
 * little more than one). */
static size_t rarest_index(const char *needle, size_t len, const ac_byte_counts *counts,
			   size_t skip, int avoid_byte)
{
	uint64_t best = UINT64_MAX;
	size_t best_index = skip;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)needle[i];
		uint64_t score = byte_score(c, counts);

		if (i == skip || (avoid_byte >= 0 && c == (unsigned char)avoid_byte))
			continue;
		if (score < best) {
			best = score;
			best_index = i;
		}
	}
	return best_index;
}

void ac_finder_init(ac_finder *f, const char *needle, size_t len,
		    const ac_byte_counts *counts)
{
	f->needle = needle;
	f->len = len;
	f->rare_index = rarest_index(needle, len, counts, SIZE_MAX, -1);
	f->rare2_index = rarest_index(needle, len, counts, f->rare_index,
				      (unsigned char)needle[f->rare_index]);
	if (f->rare2_index == f->rare_index && len > 1) /* every byte the same */
		f->rare2_index = f->rare_index == 0 ? 1 : 0;
}

/* Starts in hay[from..last] (last: the last place the needle fits), found
 * by memchr over the rarest byte, then a look at the second. */
static const char *find_scalar(const ac_finder *f, const char *hay, size_t from, size_t last)
{
	const char *p = hay + from + f->rare_index;
	const char *end = hay + last + f->rare_index + 1;
	const char rare = f->needle[f->rare_index], rare2 = f->needle[f->rare2_index];

	while (p < end && (p = memchr(p, rare, (size_t)(end - p))) != NULL) {
		const char *start = p - f->rare_index;

		if (start[f->rare2_index] == rare2 && memcmp(start, f->needle, f->len) == 0)
			return start;
		p++;
	}
	return NULL;
}

const char *ac_finder_find(const ac_finder *f, const char *hay, size_t n)
{
	size_t s = 0, last;

	if (f->len == 0 || n < f->len)
		return f->len == 0 ? hay : NULL;
	last = n - f->len;
#if defined(__SSE2__)
	if (f->len > 1) {
		const __m128i v1 = _mm_set1_epi8(f->needle[f->rare_index]);
		const __m128i v2 = _mm_set1_epi8(f->needle[f->rare2_index]);
		const char *a = hay + f->rare_index, *b = hay + f->rare2_index;

		/* Sixteen starts s..s+15 at a time; the loads end at
		 * hay + last + len - 1 at most, inside hay. */
		for (; s + 15 <= last; s += 16) {
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + s));
			__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b + s));
			unsigned mask = (unsigned)_mm_movemask_epi8(
				_mm_and_si128(_mm_cmpeq_epi8(x, v1), _mm_cmpeq_epi8(y, v2)));

			while (mask) {
				const char *start = hay + s + (size_t)__builtin_ctz(mask);

				if (memcmp(start, f->needle, f->len) == 0)
					return start;
				mask &= mask - 1;
			}
		}
		if (s > last)
			return NULL;
	}
#endif
	return find_scalar(f, hay, s, last);
}

/* ---- ASCII case folded ------------------------------------------------ */

static unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c | 0x20) : c;
}

void ac_byte_counts_fold(ac_byte_counts *counts)
{
	for (int c = 'A'; c <= 'Z'; c++) {
		counts->count[c | 0x20] += counts->count[c];
		counts->count[c] = 0;
	}
}

void ac_finder_init_fold(ac_finder *f, const char *needle, size_t len,
			 const ac_byte_counts *counts)
{
	/* The needle is lowercase already, so the pair is chosen as for an
	 * exact search; only the comparison differs. */
	ac_finder_init(f, needle, len, counts);
}

static bool equal_fold(const char *hay, const char *lower, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (fold((unsigned char)hay[i]) != (unsigned char)lower[i])
			return false;
	return true;
}

const char *ac_finder_find_fold(const ac_finder *f, const char *hay, size_t n)
{
	const unsigned char r1 = (unsigned char)f->needle[f->rare_index];
	const unsigned char r2 = (unsigned char)f->needle[f->rare2_index];
	size_t s = 0, last;

	if (f->len == 0 || n < f->len)
		return f->len == 0 ? hay : NULL;
	last = n - f->len;
#if defined(__SSE2__)
	{
		/* x | 0x20 == 'a' holds for 'a' and 'A' only, so a letter of the
		 * pair is compared with that bit set, any other byte as it is. */
		const __m128i m1 = _mm_set1_epi8((char)(r1 >= 'a' && r1 <= 'z' ? 0x20 : 0));
		const __m128i m2 = _mm_set1_epi8((char)(r2 >= 'a' && r2 <= 'z' ? 0x20 : 0));
		const __m128i v1 = _mm_set1_epi8((char)r1), v2 = _mm_set1_epi8((char)r2);
		const char *a = hay + f->rare_index, *b = hay + f->rare2_index;

		for (; s + 15 <= last; s += 16) {
			__m128i x = _mm_or_si128(_mm_loadu_si128((const __m128i *)(const void *)(a + s)), m1);
			__m128i y = _mm_or_si128(_mm_loadu_si128((const __m128i *)(const void *)(b + s)), m2);
			unsigned mask = (unsigned)_mm_movemask_epi8(
				_mm_and_si128(_mm_cmpeq_epi8(x, v1), _mm_cmpeq_epi8(y, v2)));

			while (mask) {
				const char *start = hay + s + (size_t)__builtin_ctz(mask);

				if (equal_fold(start, f->needle, f->len))
					return start;
				mask &= mask - 1;
			}
		}
		if (s > last)
			return NULL;
	}
#endif
	for (; s <= last; s++) {
		const char *start = hay + s;

		if (fold((unsigned char)start[f->rare_index]) == r1 &&
		    fold((unsigned char)start[f->rare2_index]) == r2 &&
		    equal_fold(start, f->needle, f->len))
			return start;
	}
	return NULL;
}
