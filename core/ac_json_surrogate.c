/* Lone surrogates through jansson (see ac_json_exact_impl.h).
 *
 * A JavaScript string is UTF-16 code units, paired or not: text cut with
 * .slice() inside an emoji keeps half of it, and JSON.stringify writes that
 * half as "\ud83d". jansson refuses such an escape, and refuses to dump a
 * string that is not UTF-8. So a lone surrogate is held in memory as its
 * generalized UTF-8 (WTF-8) bytes, ED A0..BF xx, which keep the code unit
 * and can never be mistaken for a character; it crosses jansson's parser
 * and printer as a marker, and is written back as JSON.stringify writes it. */
#include "ac_json_exact_impl.h"

#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_json_scan.h"
#include "ac_json_scan_impl.h" /* hex4(), surrogate_paired(): the scanner's rule */
#include "ac_text.h"

#include <string.h>

static bool holds_tag(const char *s, size_t len)
{
	return len >= AC_JSON_TAG_LEN && memmem(s, len, ac_json_exact_tag(), AC_JSON_TAG_LEN);
}

int ac_json_surrogates_mark(ac_buf *out, bool *out_changed, const char *text, size_t len)
{
	const char *t = ac_json_exact_tag(), *p = text, *end = text + len, *copied = text;
	int rc = 0;

	*out_changed = false;
	/* Most text has no "\ud" or "\uD" at all: nothing to walk. */
	if (!memmem(text, len, "\\ud", 3) && !memmem(text, len, "\\uD", 3))
		return 0;
	/* Outside strings a quote can only open one. */
	while (p < end && (p = memchr(p, '"', (size_t)(end - p)))) {
		for (p++; p < end && *p != '"'; p++) {
			long unit;

			if (*p != '\\')
				continue;
			if (end - p < 6 || p[1] != 'u' || (unit = hex4(p + 2)) < 0xD800 || unit > 0xDFFF) {
				p++; /* the escaped byte, a quote included */
				continue;
			}
			if (unit <= 0xDBFF && surrogate_paired(p, end)) {
				p += 11;
				continue;
			}
			/* Lowercase, so "\uD83D" and "\ud83d" are one key to
			 * jansson's duplicate check, as to JSON.parse. */
			if ((rc = ac_buf_append(out, copied, (size_t)(p - copied))) ||
			    (rc = ac_buf_append(out, t, AC_JSON_TAG_LEN)) ||
			    (rc = ac_buf_printf(out, "u%04lx", unit)))
				return rc;
			copied = p + 6;
			p += 5;
			*out_changed = true;
		}
		if (p < end)
			p++; /* the closing quote */
	}
	if (*out_changed)
		rc = ac_buf_append(out, copied, (size_t)(end - copied));
	return rc;
}

/* s[0..len) with each marker as its WTF-8 bytes, into out (cleared). */
static int unmarked(ac_buf *out, const char *s, size_t len)
{
	const char *t = ac_json_exact_tag(), *p = s, *end = s + len, *hit;
	int rc = 0;

	ac_buf_clear(out);
	while ((hit = memmem(p, (size_t)(end - p), t, AC_JSON_TAG_LEN))) {
		long unit = end - hit >= AC_JSON_SURROGATE_MARKER_LEN && hit[AC_JSON_TAG_LEN] == 'u'
				    ? hex4(hit + AC_JSON_TAG_LEN + 1) : -1;

		if ((rc = ac_buf_append(out, p, (size_t)(hit - p))))
			return rc;
		if (unit < 0xD800 || unit > 0xDFFF) { /* not one of ours: kept */
			if ((rc = ac_buf_append(out, hit, AC_JSON_TAG_LEN)))
				return rc;
			p = hit + AC_JSON_TAG_LEN;
			continue;
		}
		if ((rc = ac_buf_putc(out, (char)0xED)) ||
		    (rc = ac_buf_putc(out, (char)(0x80 | ((unit >> 6) & 0x3F)))) ||
		    (rc = ac_buf_putc(out, (char)(0x80 | (unit & 0x3F)))))
			return rc;
		p = hit + AC_JSON_SURROGATE_MARKER_LEN;
	}
	return ac_buf_append(out, p, (size_t)(end - p));
}

/* Rebuilds object o, in its order, with the markers in its keys undone. */
static int unmark_keys(json_t *o, ac_buf *scratch)
{
	json_t *fixed = json_object(), *value;
	const char *key;
	int rc = 0;

	if (!fixed)
		return AC_ENOMEM;
	json_object_foreach(o, key, value) {
		if ((rc = unmarked(scratch, key, strlen(key))) ||
		    json_object_setn_new_nocheck(fixed, scratch->data, scratch->len, json_incref(value))) {
			rc = AC_ENOMEM;
			goto done;
		}
	}
	if (json_object_clear(o) || json_object_update(o, fixed))
		rc = AC_ENOMEM;
done:
	json_decref(fixed);
	return rc;
}

static int unmark(json_t *v, ac_buf *scratch)
{
	const char *key;
	json_t *child;
	size_t i;
	bool keys = false;

	switch (json_typeof(v)) {
	case JSON_STRING:
		if (!holds_tag(json_string_value(v), json_string_length(v)))
			return 0;
		if (unmarked(scratch, json_string_value(v), json_string_length(v)) ||
		    json_string_setn_nocheck(v, scratch->data ? scratch->data : "", scratch->len))
			return AC_ENOMEM;
		return 0;
	case JSON_ARRAY:
		json_array_foreach(v, i, child)
			if (unmark(child, scratch))
				return AC_ENOMEM;
		return 0;
	case JSON_OBJECT:
		json_object_foreach(v, key, child) {
			keys = keys || holds_tag(key, strlen(key));
			if (unmark(child, scratch))
				return AC_ENOMEM;
		}
		return keys ? unmark_keys(v, scratch) : 0;
	default:
		return 0;
	}
}

int ac_json_surrogates_unmark(json_t *root)
{
	ac_buf scratch = AC_BUF_INIT;
	int rc = unmark(root, &scratch);

	ac_buf_free(&scratch);
	return rc ? ac_error_set(AC_ENOMEM, "out of memory") : 0;
}

/* s[0..len) with each WTF-8 surrogate as its marker, as a new string. */
static json_t *marked_string(const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const char *t = ac_json_exact_tag(), *p = s, *end = s + len;
	ac_buf out = AC_BUF_INIT;
	json_t *made = NULL;

	while (p < end) {
		const char *ed = memchr(p, 0xED, (size_t)(end - p));
		unsigned unit;
		char digits[5];

		if (!ed || end - ed < 3 || (unsigned char)ed[1] < 0xA0) {
			const char *upto = ed ? ed + 1 : end;

			if (ac_buf_append(&out, p, (size_t)(upto - p)))
				goto done;
			p = upto;
			continue;
		}
		unit = 0xD000u | ((unsigned)(ed[1] & 0x3F) << 6) | (unsigned)(ed[2] & 0x3F);
		digits[0] = 'u';
		for (int k = 0; k < 4; k++)
			digits[1 + k] = hex[(unit >> (12 - 4 * k)) & 15];
		if (ac_buf_append(&out, p, (size_t)(ed - p)) || ac_buf_append(&out, t, AC_JSON_TAG_LEN) ||
		    ac_buf_append(&out, digits, sizeof(digits)))
			goto done;
		p = ed + 3;
	}
	made = json_stringn_nocheck(out.data ? out.data : "", out.len);
done:
	ac_buf_free(&out);
	return made;
}

/* *out NULL when v holds no WTF-8 surrogate, else v's marked copy. */
static int marked_copy(json_t **out, const json_t *v)
{
	json_t *self = (json_t *)v, *copy = NULL, *child, *c;
	const char *key;
	size_t i, n = 0;

	*out = NULL;
	switch (json_typeof(v)) {
	case JSON_STRING:
		if (!ac_json_holds_lone_surrogate(json_string_value(v), json_string_length(v)))
			return 0;
		return (*out = marked_string(json_string_value(v), json_string_length(v))) ? 0 : AC_ENOMEM;
	case JSON_ARRAY:
		json_array_foreach(self, i, child) {
			if (marked_copy(&c, child))
				goto fail;
			/* The first change makes the copy, with what came before. */
			if (c && !copy) {
				if (!(copy = json_array()))
					goto fail;
				for (size_t j = 0; j < i; j++)
					if (json_array_append(copy, json_array_get(v, j)))
						goto fail;
			}
			if (copy && json_array_append_new(copy, c ? c : json_incref(child)))
				goto fail;
		}
		break;
	case JSON_OBJECT:
		json_object_foreach(self, key, child) {
			size_t key_len = strlen(key);
			bool odd_key = ac_json_holds_lone_surrogate(key, key_len);
			json_t *k = NULL;

			if (marked_copy(&c, child) || (odd_key && !(k = marked_string(key, key_len)))) {
				json_decref(c);
				goto fail;
			}
			if ((c || k) && !copy) {
				const char *before;
				json_t *value;
				size_t j = 0;

				if (!(copy = json_object()))
					goto fail;
				json_object_foreach(self, before, value) {
					if (j++ == n)
						break;
					if (json_object_set_nocheck(copy, before, value))
						goto fail;
				}
			}
			if (copy && json_object_setn_new_nocheck(copy, k ? json_string_value(k) : key,
								 k ? json_string_length(k) : key_len,
								 c ? c : json_incref(child))) {
				json_decref(k);
				goto fail;
			}
			json_decref(k);
			n++;
		}
		break;
	default:
		return 0;
	}
	*out = copy;
	return 0;
fail:
	json_decref(copy);
	return AC_ENOMEM;
}

int ac_json_surrogates_for_dump(json_t **out_copy, const json_t *root)
{
	return marked_copy(out_copy, root) ? ac_error_set(AC_ENOMEM, "out of memory") : 0;
}

void ac_json_surrogates_restore(ac_buf *out, size_t from)
{
	const char *t = ac_json_exact_tag();
	char *w, *p, *end, *hit;

	if (!out->data || from >= out->len)
		return;
	w = p = out->data + from;
	end = out->data + out->len;
	while ((hit = memmem(p, (size_t)(end - p), t, AC_JSON_TAG_LEN))) {
		memmove(w, p, (size_t)(hit - p));
		w += hit - p;
		if (end - hit >= AC_JSON_SURROGATE_MARKER_LEN && hit[AC_JSON_TAG_LEN] == 'u') {
			*w++ = '\\';
			memmove(w, hit + AC_JSON_TAG_LEN, 5);
			w += 5;
			p = hit + AC_JSON_SURROGATE_MARKER_LEN;
		} else {
			memmove(w, hit, AC_JSON_TAG_LEN);
			w += AC_JSON_TAG_LEN;
			p = hit + AC_JSON_TAG_LEN;
		}
	}
	memmove(w, p, (size_t)(end - p));
	w += end - p;
	out->len = (size_t)(w - out->data);
	*w = '\0';
}

json_t *ac_json_exact_stringn(const char *text, size_t len)
{
	const char *p = text, *q = text, *end = text + len;

	/* Each surrogate's 3 bytes aside, the text must be UTF-8. */
	while (q < end && (q = memchr(q, 0xED, (size_t)(end - q)))) {
		if (end - q < 3 || (unsigned char)q[1] < 0xA0 || ((unsigned char)q[2] & 0xC0) != 0x80) {
			q++;
			continue;
		}
		if (!ac_text_is_utf8(p, (size_t)(q - p)))
			return NULL;
		p = q = q + 3;
	}
	return ac_text_is_utf8(p, (size_t)(end - p)) ? json_stringn_nocheck(text, len) : NULL;
}
