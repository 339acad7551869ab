/* One-pass strict JSON validation that also notes where chosen fields are.
 *
 * The scanner is a loop over states (value, key, close, after a value)
 * instead of a recursive descent, so the only bound on nesting is the
 * explicit stack below and hostile input such as ten million '[' costs 257
 * bytes of reading, not the C stack. The text is not NUL-terminated: every
 * read is checked against end. Preparing the paths is
 * ac_json_scan_paths.c; decoding and comparing the strings found,
 * ac_json_scan_string.c; walking validated text, ac_json_scan_cursor.c. */
#include "ac_json_scan.h"
#include "ac_json_scan_impl.h"
#include "ac_error.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/* The scan under way: the text, what it reports to, and the open
 * containers. Helpers take the position p as an argument and return the
 * next one, so that it stays in a register. */
typedef struct {
	const char *text, *end;
	ac_json_span *out;
	const ac_json_path *paths;
	ac_json_scan_error *error; /* may be NULL */
	struct level *stack;       /* AC_JSON_MAX_DEPTH + 1 levels */
	/* by_key[d][key_bucket(key)]: the paths whose segment d could be
	 * that key, so a key is compared with one or two paths, not all. */
	const uint64_t (*by_key)[KEY_BUCKETS];
	struct level *lv;          /* &stack[depth] */
	size_t depth;
	/* For the value about to be scanned: the paths it ends and the paths
	 * that continue inside it should it be an object. */
	uint64_t pending, descend;
	/* A string (key or value) held a byte from 0x80 (UTF-8). */
	bool beyond_ascii;
} scan;

/* What the scan does next; every helper returns one of these, or a
 * negative AC_E* code. */
enum { NEXT_VALUE, NEXT_KEY, NEXT_CLOSE, NEXT_AFTER_VALUE, NEXT_FINISH };

static int fail(ac_json_scan_error *error, const char *text, const char *at,
		const char *fmt, ...) __attribute__((format(printf, 4, 5), cold, noinline));

/* Sets error (when given) and ac_error_last() to "column N: reason", N
 * the 1-based byte offset of at. Returns AC_ECORRUPT. */
static int fail(ac_json_scan_error *error, const char *text, const char *at,
		const char *fmt, ...)
{
	char reason[AC_JSON_ERROR_TEXT_LENGTH];
	size_t offset = (size_t)(at - text);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (error) {
		const char *nl;

		error->offset = offset;
		error->line = 1;
		error->column = offset + 1;
		for (const char *p = text; (nl = memchr(p, '\n', (size_t)(at - p))); p = nl + 1) {
			error->line++;
			error->column = (size_t)(at - nl);
		}
		memcpy(error->text, reason, strlen(reason) + 1);
	}
	return ac_error_set(AC_ECORRUPT, "column %zu: %s", offset + 1, reason);
}

static inline bool is_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
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

/* Validates the escape whose backslash is at p and returns the address
 * just past it, or NULL with the error set. */
static inline const char *scan_escape(const scan *s, const char *p)
{
	long unit;
	unsigned char c;

	if (s->end - p < 2) {
		fail(s->error, s->text, s->end, "unterminated string");
		return NULL;
	}
	switch (p[1]) {
	case '"': case '\\': case '/': case 'b':
	case 'f': case 'n': case 'r': case 't':
		return p + 2;
	case 'u':
		break;
	default:
		c = (unsigned char)p[1];
		if (c > 0x20 && c < 0x7f)
			fail(s->error, s->text, p, "invalid escape \\%c", c);
		else
			fail(s->error, s->text, p, "invalid escape byte 0x%02x after '\\'", c);
		return NULL;
	}
	if (s->end - p < 6 || (unit = hex4(p + 2)) < 0) {
		fail(s->error, s->text, p, "invalid \\u escape, expected 4 hex digits");
		return NULL;
	}
	/* A lone surrogate (what a JavaScript program writes after cutting
	 * text with .slice() inside an emoji) is read as JSON.parse reads
	 * it; only a high one followed by a low one makes a pair. */
	if (unit >= 0xD800 && unit <= 0xDBFF && surrogate_paired(p, s->end))
		return p + 12;
	return p + 6;
}

/* Validates the multi-byte UTF-8 sequence that starts at p and returns the
 * address just past it, or NULL with the error set. */
static inline const char *scan_utf8(const scan *s, const char *p)
{
	/* Table 3-7 of the Unicode Standard (well-formed UTF-8): narrowing
	 * the second byte's range is what rules out overlong forms, encoded
	 * surrogates and code points above U+10FFFF. */
	unsigned char c = (unsigned char)*p, lo = 0x80, hi = 0xBF;
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
		goto bad;
	}
	if (s->end - p <= n || (unsigned char)p[1] < lo || (unsigned char)p[1] > hi)
		goto bad;
	for (k = 2; k <= n; k++)
		if (((unsigned char)p[k] & 0xC0) != 0x80)
			goto bad;
	return p + n + 1;
bad:
	fail(s->error, s->text, p, "invalid UTF-8 in string");
	return NULL;
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

/* A number at *pp (a digit or '-'). */
static inline int scan_number(scan *s, const char **pp)
{
	const char *start = *pp, *p = start, *end = s->end;

	if (*p == '-' && (++p == end || !is_digit(*p)))
		return fail(s->error, s->text, p, "expected a digit after '-'");
	if (*p++ == '0') {
		if (p < end && is_digit(*p))
			return fail(s->error, s->text, p - 1, "leading zero in number");
	} else {
		while (p < end && is_digit(*p))
			p++;
	}
	if (p < end && *p == '.') {
		if (++p == end || !is_digit(*p))
			return fail(s->error, s->text, p, "expected a digit after '.'");
		while (p < end && is_digit(*p))
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		if (++p < end && (*p == '+' || *p == '-'))
			p++;
		if (p == end || !is_digit(*p))
			return fail(s->error, s->text, p, "expected a digit in the exponent");
		while (p < end && is_digit(*p))
			p++;
	}
	s->lv->all_strings = false;
	if (s->pending)
		record(s->out, s->pending, AC_JSON_NUMBER, start, (size_t)(p - start), false, false,
		       0);
	*pp = p;
	return NEXT_AFTER_VALUE;
}

/* true, false or null at *pp: word, n bytes long. */
static inline int scan_literal(scan *s, const char **pp, const char *word, size_t n,
			       ac_json_type type)
{
	const char *p = *pp;

	if ((size_t)(s->end - p) < n || memcmp(p, word, n) != 0)
		return fail(s->error, s->text, p, "invalid literal, expected %s", word);
	s->lv->all_strings = false;
	if (s->pending)
		record(s->out, s->pending, type, p, n, false, false, 0);
	*pp = p + n;
	return NEXT_AFTER_VALUE;
}

/* The '{' or '[' at *pp: one level deeper. */
static inline int open_container(scan *s, const char **pp)
{
	const char *p = *pp;
	struct level *lv;

	if (s->depth == AC_JSON_MAX_DEPTH)
		return fail(s->error, s->text, p, "nesting deeper than %d", AC_JSON_MAX_DEPTH);
	s->lv->all_strings = false;
	lv = s->lv = &s->stack[++s->depth];
	lv->targets = s->pending;
	lv->start = p;
	lv->all_strings = true;
	lv->count = 0;
	lv->is_array = *p++ == '[';
	lv->mask = lv->is_array ? 0 : s->descend;
	if (lv->is_array)
		s->pending = s->descend = 0;
	p = skip_space(p, s->end);
	*pp = p;
	if (p < s->end && *p == (lv->is_array ? ']' : '}')) {
		*pp = p + 1;
		return NEXT_CLOSE;
	}
	if (!lv->is_array)
		return NEXT_KEY;
	if (p == s->end)
		return fail(s->error, s->text, p, "unexpected end of document");
	return NEXT_VALUE;
}

/* The byte at p starts no value. */
static int unexpected_value(const scan *s, const char *p)
{
	unsigned char c = (unsigned char)*p;

	if (c == ']' && s->lv->is_array)
		return fail(s->error, s->text, p, "trailing comma before ']'");
	if (c > 0x20 && c < 0x7f)
		return fail(s->error, s->text, p, "unexpected character '%c', expected a value",
			    c);
	return fail(s->error, s->text, p, "unexpected byte 0x%02x, expected a value", c);
}

static inline uint64_t load8(const char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t load4(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Keys are short: a few word compares (the last word overlapping the one
 * before) cost less than a call to memcmp. Reads only a[0..n), b[0..n). */
static inline bool same_bytes(const char *a, const char *b, size_t n)
{
	if (n >= 8) {
		for (size_t i = 0; i + 8 < n; i += 8)
			if (load8(a + i) != load8(b + i))
				return false;
		return load8(a + n - 8) == load8(b + n - 8);
	}
	if (n >= 4)
		return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* Marks the paths that the key start[0..key_end) continues or ends: the
 * value after it is pending for the paths it ends, and descend holds the
 * paths that go on inside it. */
static inline void match_key(scan *s, const char *start, const char *key_end, bool escaped)
{
	/* Only objects within the first AC_JSON_MAX_SEGMENTS levels have a
	 * mask, so the segment index is in range. */
	size_t d = s->depth - 1, keylen = (size_t)(key_end - start);
	uint64_t m;

	m = s->lv->mask;
	/* An escaped key may spell a path's key differently: try them all. */
	if (!escaped)
		m &= s->by_key[d][key_bucket(keylen ? (unsigned char)*start : 0, keylen)];
	for (; m; m &= m - 1) {
		int k = __builtin_ctzll(m);
		const ac_json_path *path = &s->paths[k];
		size_t seglen = path->segment_len[d];

		if (escaped ? !ac_json_scan_escaped_equals(start, key_end, path->segment[d], seglen)
			    : (seglen != keylen || !same_bytes(start, path->segment[d], keylen)))
			continue;
		/* A repeated key replaces what an earlier value under it gave
		 * this path, found or not. */
		s->out[k].type = AC_JSON_NONE;
		if (path->nsegments == d + 1)
			s->pending |= (uint64_t)1 << k;
		else
			s->descend |= (uint64_t)1 << k;
	}
}

/* p is just past the '}' or ']' of the innermost container: one level up. */
static inline int close_container(scan *s, const char *p)
{
	const struct level *lv = s->lv;

	if (lv->targets)
		record(s->out, lv->targets, lv->is_array ? AC_JSON_ARRAY : AC_JSON_OBJECT,
		       lv->start, (size_t)(p - lv->start), false, lv->is_array && lv->all_strings,
		       lv->count);
	s->lv = &s->stack[--s->depth];
	return NEXT_AFTER_VALUE;
}

/* What follows a value inside a container: a ',' and the next element or
 * member, or the container's end. */
static inline int after_value(scan *s, const char **pp)
{
	const char *p;

	if (s->depth == 0)
		return NEXT_FINISH;
	p = skip_space(*pp, s->end);
	if (p == s->end)
		return fail(s->error, s->text, p, "unexpected end of document");
	*pp = p + 1;
	if (*p == (s->lv->is_array ? ']' : '}'))
		return NEXT_CLOSE;
	if (*p != ',')
		return fail(s->error, s->text, p, s->lv->is_array
				  ? "expected ',' or ']' after array element"
				  : "expected ',' or '}' after object member");
	p = skip_space(p + 1, s->end);
	*pp = p;
	if (!s->lv->is_array)
		return NEXT_KEY;
	s->pending = s->descend = 0;
	if (p == s->end)
		return fail(s->error, s->text, p, "unexpected end of document");
	return NEXT_VALUE;
}

/* Readies s and out for a scan of text. */
static void scan_begin(scan *s, struct level *stack, ac_json_span *out, const char *text,
		       size_t len, const ac_json_paths *prepared, ac_json_scan_error *error)
{
	if (error) {
		error->offset = 0;
		error->line = error->column = 0;
		error->text[0] = '\0';
	}
	*s = (scan){.text = text, .end = text + len, .out = out, .paths = prepared->paths,
		    .error = error, .stack = stack, .by_key = prepared->by_key, .lv = stack,
		    .descend = prepared->descend};
	if (prepared->npaths)
		memset(out, 0, prepared->npaths * sizeof(*out));
	/* stack[0] is the top level: no container, so no mask and no targets. */
	stack[0] = (struct level){0};
}

int ac_json_scan(ac_json_span *out, const char *text, size_t len,
		 const ac_json_path *paths, size_t npaths, ac_json_scan_error *error)
{
	ac_json_paths prepared;
	int rc;

	if (error) {
		error->offset = 0;
		error->line = error->column = 0;
		error->text[0] = '\0';
	}
	if ((rc = ac_json_paths_prepare(&prepared, paths, npaths)))
		return rc;
	return ac_json_scan_prepared(out, text, len, &prepared, error);
}

/* The scanner's loop, once per way of finding the end of a string's
 * plain run (ac_json_scan_loop.h). */
#define SCAN_NAME(name) name##_scalar
#include "ac_json_scan_loop.h"
#undef SCAN_NAME

#if defined(__SSE2__)
#define SCAN_SSE2 1
#define SCAN_NAME(name) name##_sse2
#include "ac_json_scan_loop.h"
#undef SCAN_NAME
#undef SCAN_SSE2
#endif


int ac_json_scan_prepared_with(ac_json_scan_impl impl, ac_json_span *out, const char *text,
			       size_t len, const ac_json_paths *paths,
			       ac_json_scan_error *error, bool *out_printable)
{
	switch (impl) {
#if defined(__SSE2__)
	case AC_JSON_SCAN_SSE2:
		return scan_run_sse2(out, text, len, paths, error, out_printable);
#endif
	default:
		break;
	}
	return scan_run_scalar(out, text, len, paths, error, out_printable);
}

bool ac_json_scan_has_impl(ac_json_scan_impl impl)
{
	switch (impl) {
	case AC_JSON_SCAN_SCALAR:
		return true;
	case AC_JSON_SCAN_SSE2:
#if defined(__SSE2__)
		return true;
#else
		return false;
#endif
	}
	return false;
}

int ac_json_scan_prepared_printable(ac_json_span *out, const char *text, size_t len,
				    const ac_json_paths *paths, ac_json_scan_error *error,
				    bool *out_printable)
{
	/* No AVX2 copy: event strings are short, and 32 bytes a step measured
	 * no faster than 16 (issue 28, 64 MiB of seed-004 lines). */
#if defined(__SSE2__)
	return scan_run_sse2(out, text, len, paths, error, out_printable);
#else
	return scan_run_scalar(out, text, len, paths, error, out_printable);
#endif
}

int ac_json_scan_prepared(ac_json_span *out, const char *text, size_t len,
			  const ac_json_paths *paths, ac_json_scan_error *error)
{
	return ac_json_scan_prepared_printable(out, text, len, paths, error, NULL);
}
