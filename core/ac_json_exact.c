/* Numbers jansson cannot give back as read, carried through as marker
 * strings; NUL allowed in strings; lone surrogates by way of
 * ac_json_surrogate.c. See ac_json_exact.h. */
#include "ac_json_exact.h"
#include "ac_json_exact_impl.h"

#include "ac_atomic.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_fast.h"
#include "ac_json_scan.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define TAG_LEN AC_JSON_TAG_LEN

static char tag[TAG_LEN + 1];
static pthread_once_t tag_once = PTHREAD_ONCE_INIT;

/* Random per process, so no file can plant a string that passes for a
 * marker and have it written back as raw bytes. */
static void make_tag(void)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char b[16];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		unsigned long long seed = (unsigned long long)time(NULL) ^
					  ((unsigned long long)getpid() << 32) ^
					  (unsigned long long)(uintptr_t)&b;

		for (size_t i = 0; i < sizeof(b); i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			b[i] = (unsigned char)(seed >> 56);
		}
	}
	memcpy(tag, "ac-number-", 10);
	for (size_t i = 0; i < sizeof(b); i++) {
		tag[10 + 2 * i] = hex[b[i] >> 4];
		tag[11 + 2 * i] = hex[b[i] & 15];
	}
	tag[TAG_LEN - 1] = ':';
	tag[TAG_LEN] = '\0';
}

const char *ac_json_exact_tag(void)
{
	pthread_once(&tag_once, make_tag);
	return tag;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool in_number(char c)
{
	return is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool valid_number(const char *p, size_t n)
{
	size_t i = 0, d;

	if (i < n && p[i] == '-')
		i++;
	if (i < n && p[i] == '0')
		i++;
	else if (i < n && p[i] >= '1' && p[i] <= '9')
		while (i < n && is_digit(p[i]))
			i++;
	else
		return false;
	if (i < n && p[i] == '.') {
		for (d = ++i; i < n && is_digit(p[i]); i++)
			;
		if (i == d)
			return false;
	}
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			i++;
		for (d = i; i < n && is_digit(p[i]); i++)
			;
		if (i == d)
			return false;
	}
	return i == n;
}

/* True when jansson reads the number as a json_int_t and dumps it back as
 * the same bytes: a plain integer in range, not -0. */
static bool jansson_exact(const char *p, size_t n)
{
	char copy[24];
	char *end;
	long long v;

	if (n >= sizeof(copy) || (n == 2 && p[0] == '-' && p[1] == '0'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_digit(p[i]) && !(i == 0 && p[i] == '-'))
			return false;
	memcpy(copy, p, n);
	copy[n] = '\0';
	errno = 0;
	v = strtoll(copy, &end, 10);
	(void)v;
	return errno == 0 && *end == '\0' && sizeof(json_int_t) >= sizeof(long long);
}

/* Copies text into out with each number jansson would not keep swapped for
 * a marker string. *out_changed says whether any was. */
static int mark_numbers(ac_buf *out, bool *out_changed, const char *text, size_t len)
{
	const char *t = ac_json_exact_tag();
	size_t i = 0, copied = 0;
	int rc = 0;

	*out_changed = false;
	while (i < len) {
		char c = text[i];
		size_t j;

		if (c == '"') {
			for (i++; i < len && text[i] != '"'; i++)
				if (text[i] == '\\')
					i++;
			i++;
			continue;
		}
		if (c != '-' && !is_digit(c)) {
			i++;
			continue;
		}
		for (j = i; j < len && in_number(text[j]); j++)
			;
		if (valid_number(text + i, j - i) && !jansson_exact(text + i, j - i)) {
			if ((rc = ac_buf_append(out, text + copied, i - copied)) ||
			    (rc = ac_buf_putc(out, '"')) ||
			    (rc = ac_buf_append(out, t, TAG_LEN)) ||
			    (rc = ac_buf_append(out, text + i, j - i)) ||
			    (rc = ac_buf_putc(out, '"')))
				return rc;
			copied = j;
			*out_changed = true;
		}
		i = j;
	}
	if (*out_changed)
		rc = ac_buf_append(out, text + copied, len - copied);
	return rc;
}

/* Moves a fault found in the marked copy to its column in the original:
 * markers hold no newline, so only the ones on the fault's line before it
 * shifted it: a number's by its quotes and tag, a lone surrogate's by its
 * tag less the backslash. */
static void unmark_position(json_error_t *jerr, const char *marked, size_t len)
{
	const char *t = ac_json_exact_tag();
	size_t end = (size_t)jerr->position < len ? (size_t)jerr->position : len;
	size_t line_start = end;

	while (line_start > 0 && marked[line_start - 1] != '\n')
		line_start--;
	for (size_t i = line_start; i < end;) {
		const char *hit = memmem(marked + i, end - i, t, TAG_LEN);

		if (!hit)
			break;
		i = (size_t)(hit - marked) + TAG_LEN;
		jerr->column -= i < len && marked[i] == 'u' ? TAG_LEN - 1 : 2 + TAG_LEN;
	}
}

/* True for the faults jansson reports where an allocation failed: it
 * words some as syntax ("invalid token"), and leaves others empty. */
static bool maybe_out_of_memory(const json_error_t *jerr)
{
	switch (json_error_code(jerr)) {
	case json_error_out_of_memory:
	case json_error_unknown:
	case json_error_invalid_syntax:
	case json_error_invalid_utf8:
	case json_error_premature_end_of_input:
	case json_error_end_of_input_expected:
		return true;
	default:
		return !jerr->text[0];
	}
}

int ac_json_load_error(const json_error_t *jerr, const char *text, size_t len, const char *what)
{
	/* A resource failure is not a bad file: when our own allocation-free
	 * scanner finds the text valid, jansson failed for want of memory. */
	if (!jerr->text[0] || json_error_code(jerr) == json_error_out_of_memory ||
	    (text && maybe_out_of_memory(jerr) && ac_json_scan(NULL, text, len, NULL, 0, NULL) == 0))
		return ac_error_set(AC_ENOMEM, "%s: out of memory", what);
	return ac_error_set(AC_ECORRUPT, "%s: line %d column %d: %s", what, jerr->line,
			    jerr->column, jerr->text);
}

bool ac_json_exact_holds_marker(const char *text, size_t len)
{
	return len >= TAG_LEN && memmem(text, len, ac_json_exact_tag(), TAG_LEN) != NULL;
}

int ac_json_exact_load(json_t **out, const char *text, size_t len, size_t flags,
		       const char *what)
{
	ac_buf marked = AC_BUF_INIT, lone = AC_BUF_INIT;
	json_error_t jerr;
	json_t *root;
	const char *src = text;
	size_t src_len = len;
	bool changed, lone_changed = false;
	int rc = 0;

	flags |= JSON_ALLOW_NUL;
	/* The tag is random per process, so no file written by anyone else can
	 * hold it; one that does was made to (it would turn a string into a
	 * number on the way out). */
	if (ac_json_exact_holds_marker(text, len)) {
		rc = ac_error_set(AC_ECORRUPT, "%s: holds agentctl's internal number marker", what);
		goto done;
	}
	if (mark_numbers(&marked, &changed, text, len)) {
		rc = ac_error_set(AC_ENOMEM, "%s: out of memory", what);
		goto done;
	}
	/* Text with every number as jansson gives it back may take the
	 * fast way (same value); what it leaves, jansson reads. */
	root = NULL;
	if (!changed && !(flags & ~(size_t)(JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES)))
		root = ac_json_fast_load_wtf8(text, len);
	if (root)
		goto loaded;
	if (changed) {
		src = marked.data;
		src_len = marked.len;
	}
	if (ac_json_surrogates_mark(&lone, &lone_changed, src, src_len)) {
		rc = ac_error_set(AC_ENOMEM, "%s: out of memory", what);
		goto done;
	}
	if (lone_changed) {
		src = lone.data;
		src_len = lone.len;
	}
	root = json_loadb(src, src_len, flags, &jerr);
	if (!root) {
		if (src != text)
			unmark_position(&jerr, src, src_len);
		rc = ac_json_load_error(&jerr, text, len, what);
		goto done;
	}
	if (lone_changed && (rc = ac_json_surrogates_unmark(root))) {
		json_decref(root);
		rc = ac_error_set(AC_ENOMEM, "%s: out of memory", what);
		goto done;
	}
loaded:
	*out = root;
done:
	ac_buf_free(&marked);
	ac_buf_free(&lone);
	return rc;
}

json_t *ac_json_load_js(const char *text, size_t len, size_t flags)
{
	ac_buf lone = AC_BUF_INIT;
	json_t *root = ac_json_fast_load_wtf8(text, len);
	bool changed = false;

	if (root || ac_json_exact_holds_marker(text, len) ||
	    ac_json_surrogates_mark(&lone, &changed, text, len))
		goto done;
	root = changed ? json_loadb(lone.data, lone.len, flags, NULL) : json_loadb(text, len, flags, NULL);
	if (root && changed && ac_json_surrogates_unmark(root)) {
		json_decref(root);
		root = NULL;
	}
done:
	ac_buf_free(&lone);
	return root;
}

/* The end of the JSON string whose opening quote is at q (the closing
 * quote, one not escaped by an odd run of backslashes), or NULL. */
static const char *string_end(const char *q, const char *end)
{
	const char *p = q + 1;

	for (;;) {
		const char *r = p < end ? memchr(p, '"', (size_t)(end - p)) : NULL;
		size_t slashes = 0;

		if (!r)
			return NULL;
		while (r - slashes > q + 1 && r[-1 - (ptrdiff_t)slashes] == '\\')
			slashes++;
		if (slashes % 2 == 0)
			return r;
		p = r + 1;
	}
}

/* Puts the original number bytes back in JSON text that jansson dumped
 * into out from byte from on. */
static int restore_numbers(ac_buf *out, size_t from)
{
	const char *t = ac_json_exact_tag();
	ac_buf fixed = AC_BUF_INIT;
	size_t copied = from, pos = from;
	bool started = false;
	int rc = 0;

	/* Walks the dump's string tokens from from (outside any string): only a
	 * whole marker string, '"' + tag + number + '"', is a kept number; the
	 * same bytes inside a longer string (\"ac-number-...) are text. */
	for (;;) {
		const char *end_all = out->data + out->len;
		const char *q = out->len > pos ? memchr(out->data + pos, '"', out->len - pos) : NULL;
		const char *close, *start;

		if (!q || !(close = string_end(q, end_all)))
			break;
		start = q + 1;
		pos = (size_t)(close + 1 - out->data);
		if ((size_t)(close - start) <= TAG_LEN || memcmp(start, t, TAG_LEN) != 0 ||
		    !valid_number(start + TAG_LEN, (size_t)(close - start) - TAG_LEN))
			continue;
		if (!started && (rc = ac_buf_append(&fixed, out->data, from)))
			goto done;
		started = true;
		if ((rc = ac_buf_append(&fixed, out->data + copied, (size_t)(q - (out->data + copied)))) ||
		    (rc = ac_buf_append(&fixed, start + TAG_LEN, (size_t)(close - start) - TAG_LEN)))
			goto done;
		copied = pos;
	}
	if (!started)
		goto done;
	if ((rc = ac_buf_append(&fixed, out->data + copied, out->len - copied)))
		goto done;
	ac_buf_free(out);
	*out = fixed;
	fixed = (ac_buf)AC_BUF_INIT;
done:
	ac_buf_free(&fixed);
	return rc;
}

/* The shortest "%.*g" of the double number[0..len) reads back as, written
 * to out (at most 32 bytes); false when number is not a real. */
static bool shortest_real(char out[32], const char *number, size_t len)
{
	char copy[64], *end;
	double value;

	if (len >= sizeof(copy) ||
	    (!memchr(number, '.', len) && !memchr(number, 'e', len) && !memchr(number, 'E', len)))
		return false;
	memcpy(copy, number, len);
	copy[len] = '\0';
	value = strtod(copy, &end);
	if (*end || !isfinite(value))
		return false;
	for (int digits = 1; digits <= 17; digits++) {
		snprintf(out, 32, "%.*g", digits, value);
		if (strtod(out, NULL) == value)
			break;
	}
	/* Still a real when read back: 2.0 is not 2. */
	if (!strpbrk(out, ".eEn"))
		strcat(out, ".0");
	return true;
}

int ac_json_shortest_reals(ac_buf *text)
{
	ac_buf fixed = AC_BUF_INIT;
	size_t i = 0, copied = 0;
	char real[32];
	int rc = 0;

	while (i < text->len) {
		const char *t = text->data;
		size_t j;

		if (t[i] == '"') {
			for (i++; i < text->len && t[i] != '"'; i++)
				if (t[i] == '\\')
					i++;
			i++;
			continue;
		}
		if (t[i] != '-' && !is_digit(t[i])) {
			i++;
			continue;
		}
		for (j = i; j < text->len && in_number(t[j]); j++)
			;
		if (shortest_real(real, t + i, j - i) && strlen(real) < j - i) {
			if ((rc = ac_buf_append(&fixed, t + copied, i - copied)) ||
			    (rc = ac_buf_append(&fixed, real, strlen(real))))
				goto done;
			copied = j;
		}
		i = j;
	}
	if (copied == 0)
		goto done;
	if ((rc = ac_buf_append(&fixed, text->data + copied, text->len - copied)))
		goto done;
	ac_buf_free(text);
	*text = fixed;
	fixed = (ac_buf)AC_BUF_INIT;
done:
	ac_buf_free(&fixed);
	return rc;
}

typedef struct {
	ac_buf *out;
	int rc;
} dump_sink;

static int dump_to_buf(const char *bytes, size_t size, void *data)
{
	dump_sink *sink = data;

	sink->rc = ac_buf_append(sink->out, bytes, size);
	return sink->rc ? -1 : 0;
}

/* Appends root as jansson dumps it with flags, every kept number and lone
 * surrogate written back as read. 0, AC_ENOMEM, or AC_EINVAL when jansson
 * cannot encode a string; out is left as it was on failure. */
static int dump_exact(ac_buf *out, const json_t *root, size_t flags)
{
	dump_sink sink = {out, 0};
	size_t mark = out->len;
	json_t *copy = NULL;
	int rc;

	if ((rc = ac_json_surrogates_for_dump(&copy, root)))
		goto done;
	if (json_dump_callback(copy ? copy : root, dump_to_buf, &sink, flags) != 0) {
		rc = sink.rc ? ac_error_set(AC_ENOMEM, "out of memory")
			     : ac_error_set(AC_EINVAL, "a string that is not UTF-8");
		goto done;
	}
	if ((rc = restore_numbers(out, mark))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (copy)
		ac_json_surrogates_restore(out, mark);
done:
	json_decref(copy);
	if (rc) {
		out->len = mark;
		if (out->data)
			out->data[mark] = '\0';
	}
	return rc;
}

char *ac_json_exact_dumps(const json_t *root, size_t flags, size_t *out_len)
{
	ac_buf text = AC_BUF_INIT;

	if (dump_exact(&text, root, flags) != 0) {
		ac_buf_free(&text);
		return NULL;
	}
	*out_len = text.len;
	return ac_buf_detach(&text);
}

int ac_json_exact_dump_nested(ac_buf *out, const json_t *value, size_t flags, size_t indent)
{
	size_t mark = out->len, breaks = 0;
	char *src, *dst;
	int rc;

	if ((rc = dump_exact(out, value, flags | JSON_ENCODE_ANY)))
		return rc;
	if (indent == 0)
		return 0;
	/* A string's line break is written as \n, so every raw one is the
	 * layout's. Spread from the back, in place. */
	for (size_t i = mark; i < out->len; i++)
		breaks += out->data[i] == '\n';
	if (!breaks)
		return 0;
	if (ac_buf_reserve(out, breaks * indent))
		goto fail;
	src = out->data + out->len;
	dst = src + breaks * indent;
	out->len += breaks * indent;
	out->data[out->len] = '\0';
	while (src > out->data + mark) {
		char c = *--src;

		if (c == '\n') {
			dst -= indent;
			memset(dst, ' ', indent);
		}
		*--dst = c;
	}
	return 0;
fail:
	out->len = mark;
	if (out->data)
		out->data[mark] = '\0';
	return ac_error_set(AC_ENOMEM, "out of memory");
}

int ac_json_exact_write_file(const char *path, const json_t *root, size_t flags)
{
	size_t len = 0;
	char *text = ac_json_exact_dumps(root, flags, &len), *dir = strdup(path), *slash;
	int rc = 0;

	if (!text || !dir) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		rc = ac_file_mkdirs(dir);
	}
	if (rc == 0)
		rc = ac_atomic_write(path, text, len, NULL, NULL);
done:
	free(text);
	free(dir);
	return rc;
}
