/* The strings a scan found: decoded into a buffer, or compared with a
 * value without one. Only for spans the scanner validated, so escapes are
 * known to be well formed here. */
#include "ac_json_scan.h"
#include "ac_json_scan_impl.h"

#include <string.h>

/* Writes code point cp as UTF-8 and returns the byte count. */
static size_t put_utf8(char *out, unsigned long cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Decodes the escape at p (a validated one, in text ending at end) into
 * out; returns the decoded length and moves *pp past the escape. A lone
 * surrogate becomes its 3-byte generalized UTF-8 form (WTF-8: ED A0..BF
 * xx), which keeps the code unit and is never valid UTF-8. */
static size_t decode_escape(char *out, const char **pp, const char *end)
{
	const char *p = *pp;
	unsigned long cp;

	switch (p[1]) {
	case 'b': *out = '\b'; break;
	case 'f': *out = '\f'; break;
	case 'n': *out = '\n'; break;
	case 'r': *out = '\r'; break;
	case 't': *out = '\t'; break;
	case 'u':
		cp = (unsigned long)hex4(p + 2);
		if (cp >= 0xD800 && cp <= 0xDBFF && surrogate_paired(p, end)) {
			cp = 0x10000 + ((cp - 0xD800) << 10) +
			     ((unsigned long)hex4(p + 8) - 0xDC00);
			*pp = p + 12;
		} else {
			*pp = p + 6;
		}
		return put_utf8(out, cp);
	default: /* '"', '\\', '/' stand for themselves */
		*out = p[1];
		break;
	}
	*pp = p + 2;
	return 1;
}

/* Compares validated raw string content p[0..end) holding escapes with
 * value[0..len), decoding as it goes so that a long key never needs a
 * buffer. */
bool ac_json_scan_escaped_equals(const char *p, const char *end,
				 const char *value, size_t len)
{
	const char *v = value, *vend = value + len;

	while (p < end) {
		/* A run longer than what is left of value cannot match, so
		 * the search for the next escape never looks further. */
		size_t avail = (size_t)(end - p), left = (size_t)(vend - v);
		size_t window = avail < left ? avail : left;
		const char *bs = memchr(p, '\\', window);
		size_t run = bs ? (size_t)(bs - p) : window;
		char unit[4];
		size_t n;

		if (run && memcmp(p, v, run) != 0)
			return false;
		p += run;
		v += run;
		if (!bs) {
			if (p < end)
				return false; /* value ended, the raw text did not */
			break;
		}
		n = decode_escape(unit, &p, end);
		if ((size_t)(vend - v) < n || memcmp(unit, v, n) != 0)
			return false;
		v += n;
	}
	return v == vend;
}

void ac_json_string_decode(char *out, size_t *out_len, const ac_json_span *span)
{
	const char *p, *end;
	char *o = out;

	*out_len = 0;
	if (span->type != AC_JSON_STRING || span->len < 2)
		return;
	p = span->start + 1;
	end = span->start + span->len - 1;
	while (p < end) {
		const char *bs = span->has_escape ?
			memchr(p, '\\', (size_t)(end - p)) : NULL;
		size_t run = (size_t)((bs ? bs : end) - p);

		memcpy(o, p, run);
		o += run;
		if (!bs)
			break;
		p = bs;
		o += decode_escape(o, &p, end);
	}
	*out_len = (size_t)(o - out);
}

bool ac_json_string_equals(const ac_json_span *span, const char *value, size_t len)
{
	const char *content;
	size_t raw_len;

	if (span->type != AC_JSON_STRING || span->len < 2)
		return false;
	content = span->start + 1;
	raw_len = span->len - 2;
	if (!span->has_escape)
		return raw_len == len && (len == 0 || memcmp(content, value, len) == 0);
	return ac_json_scan_escaped_equals(content, content + raw_len, value, len);
}

bool ac_json_holds_lone_surrogate(const char *s, size_t len)
{
	for (const char *p = s, *end = s + len; (p = memchr(p, 0xED, (size_t)(end - p))); p++)
		if (end - p > 1 && (unsigned char)p[1] >= 0xA0)
			return true;
	return false;
}
