/* Terminal-safe rendering of untrusted text. */
#include "ac_text.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Decodes one UTF-8 sequence at s (n bytes available). Returns its length
 * and the code point, or 0 when the bytes are not valid UTF-8. */
static size_t utf8_decode(uint32_t *out_cp, const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80) {
		*out_cp = s[0];
		return 1;
	} else if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		cp = s[0] & 0x1F;
		len = 2;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		cp = s[0] & 0x0F;
		len = 3;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		cp = s[0] & 0x07;
		len = 4;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	*out_cp = cp;
	return len;
}

/* Characters that are printable in theory but let a file rearrange or hide
 * what the operator sees: C1 controls, bidi embeddings/overrides/isolates,
 * marks, zero-width joiners and the BOM. */
static bool is_format_hazard(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C ||
	       (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF;
}

int ac_text_sanitize(ac_buf *out, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, run_start = 0;
	int rc = 0;

	while (i < len) {
		uint32_t cp;
		size_t n;

		if (s[i] >= 0x20 && s[i] < 0x7F) {
			i++;
			continue;
		}
		n = utf8_decode(&cp, s + i, len - i);
		if (n > 1 && !is_format_hazard(cp)) {
			i += n;
			continue;
		}
		if ((rc = ac_buf_append(out, text + run_start, i - run_start)))
			return rc;
		if (n == 0)
			rc = ac_buf_printf(out, "\\x%02X", s[i]);
		else if (cp < 0x20)
			rc = ac_buf_printf(out, "^%c", (char)(cp + '@'));
		else if (cp == 0x7F)
			rc = ac_buf_append(out, "^?", 2);
		else
			rc = ac_buf_printf(out, "<U+%04X>", (unsigned)cp);
		if (rc)
			return rc;
		i += n ? n : 1;
		run_start = i;
	}
	return ac_buf_append(out, text + run_start, len - run_start);
}

int ac_text_json_safe(ac_buf *out, const char *json, size_t len)
{
	const unsigned char *s = (const unsigned char *)json;
	size_t i = 0, run_start = 0;
	int rc;

	while (i < len) {
		uint32_t cp;
		size_t n;

		if (s[i] < 0x80) {
			i++;
			continue;
		}
		n = utf8_decode(&cp, s + i, len - i);
		if (n == 0) {
			i++; /* the scanner rejects this; stay total anyway */
			continue;
		}
		if (!is_format_hazard(cp)) {
			i += n;
			continue;
		}
		if ((rc = ac_buf_append(out, json + run_start, i - run_start)) ||
		    (rc = ac_buf_printf(out, "\\u%04x", (unsigned)cp)))
			return rc;
		i += n;
		run_start = i;
	}
	return ac_buf_append(out, json + run_start, len - run_start);
}
