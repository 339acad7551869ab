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
 * what the operator sees: C1 controls, bidi marks, embeddings, overrides and
 * isolates, the line and paragraph separators (a terminal may break the line
 * there), and the invisible format characters (Unicode Cf and the fillers
 * that draw nothing): soft hyphen, combining grapheme joiner, zero-width
 * spaces and joiners, word joiner and invisible operators, interlinear
 * annotation marks, the BOM, the tag characters (U+E0000 block, which can
 * spell a hidden message) and the variation selectors but VS15/VS16 (text
 * and emoji presentation, common in ordinary text). */
static bool is_format_hazard(uint32_t cp)
{
	if (cp < 0x80)
		return false;
	return (cp >= 0x80 && cp <= 0x9F) || cp == 0x00AD || cp == 0x034F || cp == 0x061C ||
	       cp == 0x115F || cp == 0x1160 || cp == 0x17B4 || cp == 0x17B5 ||
	       (cp >= 0x180B && cp <= 0x180F) || (cp >= 0x200B && cp <= 0x200F) ||
	       (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x206F) ||
	       cp == 0x3164 || (cp >= 0xFE00 && cp <= 0xFE0D) || cp == 0xFEFF || cp == 0xFFA0 ||
	       (cp >= 0xFFF9 && cp <= 0xFFFB) || (cp >= 0x1D173 && cp <= 0x1D17A) ||
	       (cp >= 0xE0000 && cp <= 0xE007F) || (cp >= 0xE0100 && cp <= 0xE01EF);
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

		/* DEL stands only inside strings in JSON text, and jansson
		 * writes it raw: escape it as the controls below 0x20 are. */
		if (s[i] == 0x7F) {
			if ((rc = ac_buf_append(out, json + run_start, i - run_start)) ||
			    (rc = ac_buf_append(out, "\\u007f", 6)))
				return rc;
			run_start = ++i;
			continue;
		}
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
		if ((rc = ac_buf_append(out, json + run_start, i - run_start)))
			return rc;
		/* Beyond U+FFFF (the tag characters) JSON needs a surrogate pair. */
		rc = cp > 0xFFFF ? ac_buf_printf(out, "\\u%04x\\u%04x",
						 0xD800 + ((cp - 0x10000) >> 10),
						 0xDC00 + ((cp - 0x10000) & 0x3FF))
				 : ac_buf_printf(out, "\\u%04x", (unsigned)cp);
		if (rc)
			return rc;
		i += n;
		run_start = i;
	}
	return ac_buf_append(out, json + run_start, len - run_start);
}
