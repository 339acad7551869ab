/* Rare-byte substring search. */
#include "ac_search.h"

#include <stdint.h>
#include <string.h>

/* How common a byte is in JSON Lines event text, 0 (rare) to 255. Rough,
 * from English and the journal's own shape: quotes, digits of timestamps,
 * lowercase letters and punctuation of JSON are common; capitals, rare
 * letters and controls are not. */
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

void ac_finder_init(ac_finder *f, const char *needle, size_t len)
{
	uint8_t best = 255;

	f->needle = needle;
	f->len = len;
	f->rare_index = 0;
	for (size_t i = 0; i < len; i++) {
		uint8_t rank = byte_rank((unsigned char)needle[i]);

		if (rank < best) {
			best = rank;
			f->rare_index = i;
		}
	}
}

const char *ac_finder_find(const ac_finder *f, const char *hay, size_t n)
{
	const char *p, *end;
	char rare;

	if (f->len == 0 || n < f->len)
		return f->len == 0 ? hay : NULL;
	rare = f->needle[f->rare_index];
	p = hay + f->rare_index;
	end = hay + n - (f->len - f->rare_index) + 1; /* last place rare can stand, +1 */
	while (p < end && (p = memchr(p, rare, (size_t)(end - p))) != NULL) {
		const char *start = p - f->rare_index;

		if (memcmp(start, f->needle, f->len) == 0)
			return start;
		p++;
	}
	return NULL;
}
