/* Building jansson values from scanned JSON text (see ac_json_fast.h). */
#include "ac_json_fast.h"

#include "ac_json_scan.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAST_DEPTH 64 /* deeper text is left to jansson */
#define INT_DIGITS 18 /* always within json_int_t (int64) */

typedef struct {
	const char *p, *end;
	char *scratch; /* strings with escapes, decoded */
	size_t scratch_cap;
	bool lone_surrogates; /* kept as WTF-8; else such text is jansson's */
} walk;

static void skip_ws(walk *w)
{
	while (w->p < w->end && (*w->p == ' ' || *w->p == '\t' || *w->p == '\n' || *w->p == '\r'))
		w->p++;
}

/* The string at w->p (its opening quote), decoded: *out points into the
 * text, or into the scratch buffer (until the next string) when it held
 * escapes, which *out_escaped tells. False when out of memory, or for a
 * lone surrogate that is not to be kept. The text
 * is valid, so the closing quote is the first one no backslash escapes. */
static bool take_string(walk *w, const char **out, size_t *out_len, bool *out_escaped)
{
	const char *start = w->p, *q = w->p + 1;
	ac_json_span span;

	*out_escaped = false;
	for (;;) {
		const char *quote = memchr(q, '"', (size_t)(w->end - q));
		const char *bs = memchr(q, '\\', (size_t)(quote - q));

		if (!bs) {
			q = quote;
			break;
		}
		*out_escaped = true;
		q = bs + 2; /* the escaped byte, whatever it is, is not the end */
	}
	w->p = q + 1;
	if (!*out_escaped) {
		*out = start + 1;
		*out_len = (size_t)(q - start - 1);
		return true;
	}
	if ((size_t)(q - start) > w->scratch_cap) {
		char *grown = realloc(w->scratch, (size_t)(q - start));

		if (!grown)
			return false;
		w->scratch = grown;
		w->scratch_cap = (size_t)(q - start);
	}
	span = (ac_json_span){.type = AC_JSON_STRING, .start = start,
			      .len = (size_t)(q + 1 - start), .has_escape = true};
	ac_json_string_decode(w->scratch, out_len, &span);
	*out = w->scratch;
	return w->lone_surrogates || !ac_json_holds_lone_surrogate(w->scratch, *out_len);
}

/* An integer of at most INT_DIGITS digits; NULL for any other number. */
static json_t *take_number(walk *w)
{
	bool negative = *w->p == '-';
	const char *digits = w->p + negative, *q = digits;
	json_int_t value = 0;

	while (q < w->end && *q >= '0' && *q <= '9')
		q++;
	if (q - digits > INT_DIGITS || (q < w->end && (*q == '.' || *q == 'e' || *q == 'E')))
		return NULL;
	for (const char *d = digits; d < q; d++)
		value = value * 10 + (*d - '0');
	w->p = q;
	return json_integer(negative ? -value : value);
}

static json_t *take_value(walk *w, int depth);

static json_t *take_object(walk *w, int depth)
{
	json_t *object = json_object();

	w->p++;
	skip_ws(w);
	if (*w->p == '}') {
		w->p++;
		return object;
	}
	while (object) {
		const char *key;
		char *copy = NULL;
		size_t key_len;
		bool escaped;
		json_t *value;

		skip_ws(w);
		if (!take_string(w, &key, &key_len, &escaped))
			goto fail;
		/* The next string may reuse the scratch buffer. */
		if (escaped) {
			if (!(copy = malloc(key_len ? key_len : 1)))
				goto fail;
			memcpy(copy, key, key_len);
			key = copy;
		}
		skip_ws(w);
		w->p++; /* ':' */
		skip_ws(w);
		value = take_value(w, depth + 1);
		/* A key jansson refuses (NUL inside, repeated) is left to it. */
		if (!value || memchr(key, '\0', key_len) || json_object_getn(object, key, key_len) ||
		    json_object_setn_new_nocheck(object, key, key_len, value)) {
			json_decref(value);
			free(copy);
			goto fail;
		}
		free(copy);
		skip_ws(w);
		if (*w->p++ == '}')
			break;
	}
	return object;
fail:
	json_decref(object);
	return NULL;
}

static json_t *take_array(walk *w, int depth)
{
	json_t *array = json_array();

	w->p++;
	skip_ws(w);
	if (*w->p == ']') {
		w->p++;
		return array;
	}
	while (array) {
		json_t *value;

		skip_ws(w);
		if (!(value = take_value(w, depth + 1)) || json_array_append_new(array, value)) {
			json_decref(array);
			return NULL;
		}
		skip_ws(w);
		if (*w->p++ == ']')
			break;
	}
	return array;
}

static json_t *take_value(walk *w, int depth)
{
	const char *text;
	size_t len;
	bool escaped;

	if (depth > FAST_DEPTH)
		return NULL;
	switch (*w->p) {
	case '{':
		return take_object(w, depth);
	case '[':
		return take_array(w, depth);
	case '"':
		return take_string(w, &text, &len, &escaped) ? json_stringn_nocheck(text, len) : NULL;
	case 't':
		w->p += 4;
		return json_true();
	case 'f':
		w->p += 5;
		return json_false();
	case 'n':
		w->p += 4;
		return json_null();
	default:
		return take_number(w);
	}
}

static json_t *load(const char *text, size_t len, bool lone_surrogates)
{
	walk w = {text, text + len, NULL, 0, lone_surrogates};
	json_t *value;

	/* The scanner's verdict first: the walk above trusts the grammar. */
	if (ac_json_scan(NULL, text, len, NULL, 0, NULL) != 0)
		return NULL;
	skip_ws(&w);
	/* Without JSON_DECODE_ANY jansson takes only these at the top. */
	if (w.p == w.end || (*w.p != '{' && *w.p != '['))
		return NULL;
	value = take_value(&w, 0);
	free(w.scratch);
	return value;
}

json_t *ac_json_fast_load(const char *text, size_t len)
{
	return load(text, len, false);
}

json_t *ac_json_fast_load_wtf8(const char *text, size_t len)
{
	return load(text, len, true);
}
