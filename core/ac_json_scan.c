/* One-pass strict JSON validation that also notes where chosen fields are.
 *
 * The scanner is a loop over labels instead of a recursive descent, so the
 * only bound on nesting is the explicit stack below and hostile input such as
 * ten million '[' costs 257 bytes of reading, not the C stack. The text is
 * not NUL-terminated: every read is checked against end. */
#include "ac_json_scan.h"
#include "ac_error.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Classes of the bytes inside a string; S_PLAIN must stay 0 so the fast
 * loop can test the table entry for truth. */
enum {
	S_PLAIN = 0,
	S_QUOTE,
	S_ESCAPE,
	S_CONTROL,
	S_HIGH,
};

#define C4 S_CONTROL, S_CONTROL, S_CONTROL, S_CONTROL
#define C16 C4, C4, C4, C4
#define H4 S_HIGH, S_HIGH, S_HIGH, S_HIGH
#define H16 H4, H4, H4, H4
#define P4 S_PLAIN, S_PLAIN, S_PLAIN, S_PLAIN
#define P16 P4, P4, P4, P4

static const uint8_t string_class[256] = {
	C16, C16,
	/* 0x20: ' ' '!' '"' then plain */
	S_PLAIN, S_PLAIN, S_QUOTE, S_PLAIN, P4, P4, P4,
	P16, P16,
	/* 0x50: 'P'..'[' '\\' ']'..'_' */
	P4, P4, P4, S_ESCAPE, S_PLAIN, S_PLAIN, S_PLAIN,
	P16, P16,
	H16, H16, H16, H16, H16, H16, H16, H16,
};

#undef C4
#undef C16
#undef H4
#undef H16
#undef P4
#undef P16

/* One open object or array. stack[0] is a sentinel for the top level, so the
 * code that ends a value never has to ask whether it has a parent. */
struct level {
	uint64_t mask;     /* paths whose keys so far match; keys below are tested */
	uint64_t targets;  /* paths whose value is this container */
	const char *start; /* the '{' or '[' */
	bool is_array;
	bool all_strings;  /* every direct element so far is a string */
	size_t count;      /* direct elements or members so far */
};

static int fail(const char *text, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), cold, noinline));

static _Thread_local char last_reason[128];
static _Thread_local size_t last_offset;

static int fail(const char *text, const char *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_reason, sizeof(last_reason), fmt, ap);
	va_end(ap);
	last_offset = (size_t)(at - text);
	return ac_error_set(AC_ECORRUPT, "column %zu: %s", last_offset + 1, last_reason);
}

size_t ac_json_scan_error(const char **out_reason)
{
	*out_reason = last_reason;
	return last_offset;
}

static inline const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

static inline bool is_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

/* The value of four hex digits at p, or -1; p must have 4 bytes. */
static inline long hex4(const char *p)
{
	long v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= '0' && c <= '9')
			v = v * 16 + (c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = v * 16 + ((c | 0x20) - 'a' + 10);
		else
			return -1;
	}
	return v;
}

/* True when none of the 8 bytes can end a run of plain string text: no
 * byte has the high bit, is below 0x20, or is '"' or '\\'. Each test is the
 * usual "has a zero byte" trick; borrows only spill past a byte that is
 * itself a hit, so the combined answer is exact. */
static inline bool word_is_plain(uint64_t v)
{
	const uint64_t ones = 0x0101010101010101ULL;
	const uint64_t highs = 0x8080808080808080ULL;
	uint64_t quote = v ^ (ones * '"');
	uint64_t backslash = v ^ (ones * '\\');

	return ((v | (v - ones * 0x20) | (quote - ones) | (backslash - ones)) &
		highs) == 0;
}

/* Validates the string whose opening quote is at p[-1] and returns the
 * address of its closing quote, or NULL with the error set. *has_escape
 * tells the caller whether a raw compare is enough. */
static inline const char *scan_string(const char *text, const char *p,
				      const char *end, bool *has_escape)
{
	for (;;) {
		uint64_t word;
		unsigned char c;

		/* Event lines are mostly ASCII runs: take them 8 bytes at a time. */
		while (end - p >= 8) {
			memcpy(&word, p, sizeof(word));
			if (!word_is_plain(word))
				break;
			p += 8;
		}
		while (p < end && string_class[(unsigned char)*p] == S_PLAIN)
			p++;
		if (p == end)
			goto unterminated;

		c = (unsigned char)*p;
		switch (string_class[c]) {
		case S_QUOTE:
			return p;
		case S_CONTROL:
			fail(text, p, "control character 0x%02x in string", c);
			return NULL;
		case S_ESCAPE: {
			long unit, low;

			*has_escape = true;
			if (end - p < 2)
				goto unterminated;
			switch (p[1]) {
			case '"': case '\\': case '/': case 'b':
			case 'f': case 'n': case 'r': case 't':
				p += 2;
				continue;
			case 'u':
				break;
			default:
				c = (unsigned char)p[1];
				if (c > 0x20 && c < 0x7f)
					fail(text, p, "invalid escape \\%c", c);
				else
					fail(text, p, "invalid escape byte 0x%02x after '\\'", c);
				return NULL;
			}
			if (end - p < 6 || (unit = hex4(p + 2)) < 0) {
				fail(text, p, "invalid \\u escape, expected 4 hex digits");
				return NULL;
			}
			if (unit >= 0xDC00 && unit <= 0xDFFF) {
				fail(text, p, "lone low surrogate \\u%04lX", unit);
				return NULL;
			}
			if (unit < 0xD800 || unit > 0xDBFF) {
				p += 6;
				continue;
			}
			if (end - p < 12 || p[6] != '\\' || p[7] != 'u' ||
			    (low = hex4(p + 8)) < 0xDC00 || low > 0xDFFF) {
				fail(text, p, "high surrogate \\u%04lX not followed by a low surrogate",
				     unit);
				return NULL;
			}
			p += 12;
			continue;
		}
		default: {
			/* Table 3-7 of the Unicode Standard (well-formed UTF-8):
			 * narrowing the second byte's range is what rules out
			 * overlong forms, encoded surrogates and code points
			 * above U+10FFFF. */
			unsigned char lo = 0x80, hi = 0xBF;
			ptrdiff_t n, k;

			if (c >= 0xC2 && c <= 0xDF) {
				n = 1;
			} else if (c >= 0xE0 && c <= 0xEF) {
				n = 2;
				if (c == 0xE0)
					lo = 0xA0;
				else if (c == 0xED)
					hi = 0x9F;
			} else if (c >= 0xF0 && c <= 0xF4) {
				n = 3;
				if (c == 0xF0)
					lo = 0x90;
				else if (c == 0xF4)
					hi = 0x8F;
			} else {
				goto bad_utf8;
			}
			if (end - p <= n ||
			    (unsigned char)p[1] < lo || (unsigned char)p[1] > hi)
				goto bad_utf8;
			for (k = 2; k <= n; k++)
				if (((unsigned char)p[k] & 0xC0) != 0x80)
					goto bad_utf8;
			p += n + 1;
			continue;
		}
		}
	}

bad_utf8:
	fail(text, p, "invalid UTF-8 in string");
	return NULL;
unterminated:
	fail(text, end, "unterminated string");
	return NULL;
}

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

/* Decodes the escape at p (a validated one) into out; returns the decoded
 * length and moves *pp past the escape. */
static size_t decode_escape(char *out, const char **pp)
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
		if (cp >= 0xD800 && cp <= 0xDBFF) {
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
static bool escaped_equals(const char *p, const char *end,
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
		n = decode_escape(unit, &p);
		if ((size_t)(vend - v) < n || memcmp(unit, v, n) != 0)
			return false;
		v += n;
	}
	return v == vend;
}

/* Sets out[i] for every path bit in which. */
static inline void record(ac_json_span *out, uint64_t which, ac_json_type type,
			  const char *start, size_t len, bool has_escape,
			  bool all_strings, size_t count)
{
	while (which) {
		ac_json_span *s = &out[__builtin_ctzll(which)];

		s->type = type;
		s->start = start;
		s->len = len;
		s->has_escape = has_escape;
		s->all_strings = all_strings;
		s->count = count;
		which &= which - 1;
	}
}

int ac_json_path_init(ac_json_path *out, const char *dotted)
{
	const char *p = dotted;

	memset(out, 0, sizeof(*out));
	if (!dotted || !*dotted)
		return ac_error_set(AC_EINVAL, "empty JSON path");
	for (;;) {
		const char *dot = strchr(p, '.');
		size_t seglen = dot ? (size_t)(dot - p) : strlen(p);

		if (seglen == 0) {
			memset(out, 0, sizeof(*out));
			return ac_error_set(AC_EINVAL,
					    "empty key in JSON path \"%s\"", dotted);
		}
		if (out->nsegments == AC_JSON_MAX_SEGMENTS) {
			memset(out, 0, sizeof(*out));
			return ac_error_set(AC_EINVAL,
					    "JSON path \"%s\" has more than %d keys",
					    dotted, AC_JSON_MAX_SEGMENTS);
		}
		out->segment[out->nsegments] = p;
		out->segment_len[out->nsegments] = seglen;
		out->nsegments++;
		if (!dot)
			break;
		p = dot + 1;
	}
	return 0;
}

int ac_json_scan(ac_json_span *out, const char *text, size_t len,
		 const ac_json_path *paths, size_t npaths)
{
	struct level stack[AC_JSON_MAX_DEPTH + 1];
	struct level *lv = &stack[0];
	const char *p = text, *end = text + len;
	const char *start;
	size_t depth = 0, i;
	/* For the value about to be scanned: the paths it ends and the paths
	 * that continue inside it should it be an object. */
	uint64_t pending = 0, descend = 0;
	bool escaped;

	if (npaths > AC_JSON_MAX_PATHS)
		return ac_error_set(AC_EINVAL, "more than %d JSON paths in one scan",
				    AC_JSON_MAX_PATHS);
	for (i = 0; i < npaths; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		if (paths[i].nsegments >= 1 &&
		    paths[i].nsegments <= AC_JSON_MAX_SEGMENTS)
			descend |= (uint64_t)1 << i;
	}
	stack[0].is_array = false;
	stack[0].mask = stack[0].targets = 0;

	p = skip_space(p, end);
	if (p == end)
		return fail(text, p, "empty document");

value:
	/* p < end here: every jump checks it first. */
	lv->count++;
	switch (*p) {
	case '"':
		start = p;
		escaped = false;
		if (!(p = scan_string(text, p + 1, end, &escaped)))
			return AC_ECORRUPT;
		p++;
		if (pending)
			record(out, pending, AC_JSON_STRING, start,
			       (size_t)(p - start), escaped, false, 0);
		goto after_value;
	case '{':
	case '[':
		if (depth == AC_JSON_MAX_DEPTH)
			return fail(text, p, "nesting deeper than %d",
				    AC_JSON_MAX_DEPTH);
		lv->all_strings = false;
		lv = &stack[++depth];
		lv->targets = pending;
		lv->start = p;
		lv->all_strings = true;
		lv->count = 0;
		if (*p++ == '{') {
			lv->is_array = false;
			lv->mask = descend;
			p = skip_space(p, end);
			if (p < end && *p == '}') {
				p++;
				goto close;
			}
			goto key;
		}
		lv->is_array = true;
		lv->mask = 0;
		pending = descend = 0;
		p = skip_space(p, end);
		if (p == end)
			return fail(text, p, "unexpected end of document");
		if (*p == ']') {
			p++;
			goto close;
		}
		goto value;
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		start = p;
		if (*p == '-' && (++p == end || !is_digit(*p)))
			return fail(text, p, "expected a digit after '-'");
		if (*p++ == '0') {
			if (p < end && is_digit(*p))
				return fail(text, p - 1, "leading zero in number");
		} else {
			while (p < end && is_digit(*p))
				p++;
		}
		if (p < end && *p == '.') {
			if (++p == end || !is_digit(*p))
				return fail(text, p, "expected a digit after '.'");
			while (p < end && is_digit(*p))
				p++;
		}
		if (p < end && (*p == 'e' || *p == 'E')) {
			if (++p < end && (*p == '+' || *p == '-'))
				p++;
			if (p == end || !is_digit(*p))
				return fail(text, p, "expected a digit in the exponent");
			while (p < end && is_digit(*p))
				p++;
		}
		lv->all_strings = false;
		if (pending)
			record(out, pending, AC_JSON_NUMBER, start,
			       (size_t)(p - start), false, false, 0);
		goto after_value;
	case 't':
		if (end - p < 4 || memcmp(p, "true", 4) != 0)
			return fail(text, p, "invalid literal, expected true");
		lv->all_strings = false;
		if (pending)
			record(out, pending, AC_JSON_TRUE, p, 4, false, false, 0);
		p += 4;
		goto after_value;
	case 'f':
		if (end - p < 5 || memcmp(p, "false", 5) != 0)
			return fail(text, p, "invalid literal, expected false");
		lv->all_strings = false;
		if (pending)
			record(out, pending, AC_JSON_FALSE, p, 5, false, false, 0);
		p += 5;
		goto after_value;
	case 'n':
		if (end - p < 4 || memcmp(p, "null", 4) != 0)
			return fail(text, p, "invalid literal, expected null");
		lv->all_strings = false;
		if (pending)
			record(out, pending, AC_JSON_NULL, p, 4, false, false, 0);
		p += 4;
		goto after_value;
	case ']':
		if (lv->is_array)
			return fail(text, p, "trailing comma before ']'");
		return fail(text, p, "unexpected character ']', expected a value");
	default:
		if ((unsigned char)*p > 0x20 && (unsigned char)*p < 0x7f)
			return fail(text, p, "unexpected character '%c', expected a value",
				    *p);
		return fail(text, p, "unexpected byte 0x%02x, expected a value",
			    (unsigned char)*p);
	}

key:
	/* p is just past a '{' or an object's ',', and past the space after it. */
	if (p == end)
		return fail(text, p, "unexpected end of document");
	if (*p != '"') {
		if (*p == '}')
			return fail(text, p, "trailing comma before '}'");
		return fail(text, p, "expected a string key");
	}
	start = ++p;
	escaped = false;
	if (!(p = scan_string(text, p, end, &escaped)))
		return AC_ECORRUPT;
	pending = descend = 0;
	if (lv->mask) {
		/* Only objects within the first AC_JSON_MAX_SEGMENTS levels
		 * have a mask, so the segment index is in range. */
		size_t d = depth - 1, keylen = (size_t)(p - start);
		uint64_t m;

		for (m = lv->mask; m; m &= m - 1) {
			int k = __builtin_ctzll(m);
			const ac_json_path *path = &paths[k];
			size_t seglen = path->segment_len[d];

			if (escaped ? !escaped_equals(start, p, path->segment[d], seglen)
				    : (seglen != keylen ||
				       memcmp(start, path->segment[d], keylen) != 0))
				continue;
			/* A repeated key replaces what an earlier value under
			 * it gave this path, found or not. */
			out[k].type = AC_JSON_NONE;
			if (path->nsegments == d + 1)
				pending |= (uint64_t)1 << k;
			else
				descend |= (uint64_t)1 << k;
		}
	}
	p = skip_space(p + 1, end);
	if (p == end || *p != ':')
		return fail(text, p, "expected ':' after object key");
	p = skip_space(p + 1, end);
	if (p == end)
		return fail(text, p, "unexpected end of document");
	goto value;

close:
	/* p is just past the '}' or ']' of stack[depth]. */
	if (lv->targets)
		record(out, lv->targets, lv->is_array ? AC_JSON_ARRAY : AC_JSON_OBJECT,
		       lv->start, (size_t)(p - lv->start), false,
		       lv->is_array && lv->all_strings, lv->count);
	lv = &stack[--depth];
	/* fall through */

after_value:
	if (depth == 0)
		goto finish;
	p = skip_space(p, end);
	if (p == end)
		return fail(text, p, "unexpected end of document");
	if (lv->is_array) {
		if (*p == ']') {
			p++;
			goto close;
		}
		if (*p != ',')
			return fail(text, p, "expected ',' or ']' after array element");
		pending = descend = 0;
		p = skip_space(p + 1, end);
		if (p == end)
			return fail(text, p, "unexpected end of document");
		goto value;
	}
	if (*p == '}') {
		p++;
		goto close;
	}
	if (*p != ',')
		return fail(text, p, "expected ',' or '}' after object member");
	p = skip_space(p + 1, end);
	goto key;

finish:
	p = skip_space(p, end);
	if (p != end)
		return fail(text, p, "trailing characters after the document");
	return 0;
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
		o += decode_escape(o, &p);
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
	return escaped_equals(content, content + raw_len, value, len);
}
