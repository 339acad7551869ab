/* Conversation search over many transcripts: a raw prefilter, then the
 * provider's messages. */
#include "ac_session_search.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_exact.h"
#include "ac_json_fast.h"
#include "ac_json_scan.h"
#include "ac_messages.h"
#include "ac_search.h"
#include "ac_text.h"
#include "ac_zstd.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of text kept before and after the match in a snippet. */
#define SNIPPET_BEFORE 40
#define SNIPPET_AFTER 60

/* ---- the forms of the needle in a JSON file --------------------------- */

static void ascii_lower(char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] >= 'A' && s[i] <= 'Z')
			s[i] = (char)(s[i] | 0x20);
}

/* The code point at s (valid UTF-8, checked by the caller) and its length. */
static uint32_t utf8_at(const unsigned char *s, size_t *out_len)
{
	if (s[0] < 0x80) {
		*out_len = 1;
		return s[0];
	}
	if (s[0] < 0xe0) {
		*out_len = 2;
		return (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
	}
	if (s[0] < 0xf0) {
		*out_len = 3;
		return (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
	}
	*out_len = 4;
	return (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 |
	       (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
}

/* needle as a JSON writer puts it inside a string: the short escapes and
 * \u00XX for other controls; non-ASCII raw, or as \uXXXX (surrogate pairs
 * above the BMP) when ascii_only (Python's json); <, > and & as \u00XX
 * when html_safe (Go's encoding/json). */
static int json_form(ac_buf *out, const char *needle, size_t len, bool ascii_only,
		     bool html_safe)
{
	static const char shorts[] = "\"\"\\\\\bb\ff\nn\rr\tt";

	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)needle[i];
		const char *sh = c ? memchr(shorts, c, sizeof(shorts) - 1) : NULL;
		size_t n = 1;
		int rc = 0;

		if (sh && (sh - shorts) % 2 == 0) {
			rc = ac_buf_printf(out, "\\%c", sh[1]);
		} else if (c < 0x20 || (html_safe && (c == '<' || c == '>' || c == '&'))) {
			rc = ac_buf_printf(out, "\\u%04x", c);
		} else if (c >= 0x80 && ascii_only) {
			uint32_t cp = utf8_at((const unsigned char *)needle + i, &n);

			if (cp >= 0x10000)
				rc = ac_buf_printf(out, "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
						   0xdc00 + ((cp - 0x10000) & 0x3ff));
			else
				rc = ac_buf_printf(out, "\\u%04x", cp);
		} else {
			n = 1;
			rc = ac_buf_putc(out, (char)c);
		}
		if (rc)
			return rc;
		i += n;
	}
	return 0;
}

int ac_session_search_forms(char **out, size_t *out_n, const char *needle, size_t len)
{
	ac_buf form = AC_BUF_INIT;
	size_t n = 0;
	int rc = 0;

	*out_n = 0;
	for (int kind = 0; kind < AC_SEARCH_FORMS; kind++) {
		bool seen = false;

		ac_buf_clear(&form);
		if (kind == 0)
			rc = ac_buf_append(&form, needle, len);
		else
			rc = json_form(&form, needle, len, kind == 2, kind == 3);
		if (rc || (rc = ac_buf_putc(&form, '\0')))
			goto done;
		form.len--;
		ascii_lower(form.data, form.len);
		for (size_t k = 0; k < n; k++)
			seen = seen || !strcmp(out[k], form.data);
		if (seen)
			continue;
		if (!(out[n] = strdup(form.data))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		n++;
	}
done:
	if (rc) {
		while (n)
			free(out[--n]);
		if (rc == AC_ENOMEM)
			ac_error_set(AC_ENOMEM, "out of memory");
	}
	*out_n = n;
	ac_buf_free(&form);
	return rc;
}

/* ---- the search's state, as providers see it ----------------------------- */

typedef struct {
	ac_search_results *out;
	size_t item;
	ac_finder text_finder; /* the needle as decoded text */
	ac_finder forms[AC_SEARCH_FORMS]; /* its forms in raw JSON */
	size_t nforms;
	size_t limit;
	size_t cap;
	bool first_only;
	const char *updated_at; /* the item's being searched, or NULL */
} search_ctx;

/* True when any form of the needle stands in bytes. */
static bool prefilter(const search_ctx *c, const char *bytes, size_t len)
{
	for (size_t k = 0; k < c->nforms; k++)
		if (ac_finder_find_fold(&c->forms[k], bytes, len))
			return true;
	return false;
}

bool ac_search_may_match(void *ctx, const char *raw, size_t len)
{
	return prefilter(ctx, raw, len);
}

/* ---- the file session store as a provider ------------------------------ */

/* The messages of a file the scanner validated, history its
 * conversationHistory: only those whose raw text may match are decoded. */
static int scanned_messages(const ac_json_span *history, const char *path,
			    ac_search_message_fn fn, void *ctx)
{
	ac_json_cursor cursor;
	ac_json_span value;
	ac_buf text = AC_BUF_INIT;
	json_t *msg = NULL;
	int rc = 0;

	ac_json_cursor_init(&cursor, history);
	for (size_t i = 0; ac_json_cursor_next(&cursor, NULL, &value); i++) {
		if (!ac_search_may_match(ctx, value.start, value.len))
			continue;
		if (!(msg = ac_json_fast_load(value.start, value.len)) &&
		    (rc = ac_json_exact_load(&msg, value.start, value.len, JSON_DECODE_ANY, path)))
			goto done;
		ac_buf_clear(&text);
		if ((rc = ac_message_text(&text, msg)) ||
		    (rc = fn(ctx, i, ac_message_role(msg), text.data ? text.data : "", text.len)))
			goto done;
		json_decref(msg);
		msg = NULL;
	}
done:
	json_decref(msg);
	ac_buf_free(&text);
	return rc;
}

static int file_messages(const char *bytes, size_t len, const char *path, ac_search_message_fn fn,
			 void *ctx)
{
	json_t *root = NULL, *history, *msg;
	ac_buf text = AC_BUF_INIT;
	ac_json_path history_path;
	ac_json_span span;
	size_t i, start = 0;
	int rc = 0;

	/* Most files: checked whole by the scanner, nothing built (its
	 * paths start at a top-level object: anything else is judged below). */
	while (start < len && (bytes[start] == ' ' || bytes[start] == '\t' ||
			       bytes[start] == '\r' || bytes[start] == '\n'))
		start++;
	if (start < len && bytes[start] == '{' &&
	    ac_json_path_init(&history_path, "conversationHistory") == 0 &&
	    ac_json_scan(&span, bytes, len, &history_path, 1, NULL) == 0) {
		if (span.type == AC_JSON_ARRAY)
			return scanned_messages(&span, path, fn, ctx);
		if (span.type == AC_JSON_NONE)
			return 0;
	}
	/* What the scanner refuses (\u0000, 1e999, ...) or a history that
	 * is not an array: parsed whole, as JSON.parse would. */
	if (!(root = ac_json_fast_load(bytes, len)) &&
	    (rc = ac_json_exact_load(&root, bytes, len, 0, path)))
		return rc;
	history = json_object_get(root, "conversationHistory");
	if (!json_is_object(root) || (history && !json_is_array(history))) {
		rc = ac_error_set(AC_ECORRUPT, "%s: not a session (conversationHistory is not an "
				  "array)", path);
		goto done;
	}
	json_array_foreach (history, i, msg) {
		ac_buf_clear(&text);
		if ((rc = ac_message_text(&text, msg)))
			goto done;
		if ((rc = fn(ctx, i, ac_message_role(msg), text.data ? text.data : "", text.len)))
			goto done;
	}
done:
	ac_buf_free(&text);
	json_decref(root);
	return rc;
}

static char *file_updated_at(const char *bytes, size_t len)
{
	ac_json_path path;
	ac_json_span span;
	char *out;
	size_t n = 0;

	if (ac_json_path_init(&path, "updatedAt") != 0 ||
	    ac_json_scan(&span, bytes, len, &path, 1, NULL) != 0 || span.type != AC_JSON_STRING)
		return strdup("");
	if (!(out = malloc(span.len + 1)))
		return NULL;
	ac_json_string_decode(out, &n, &span);
	out[n] = '\0';
	return out;
}

const ac_search_provider ac_session_search_file_provider = {
	.name = "file",
	.messages = file_messages,
	.updated_at = file_updated_at,
};

/* ---- the search --------------------------------------------------------- */

/* Appends text[0..len) on one line, terminal-safe. */
static int put_one_line(ac_buf *out, const char *text, size_t len)
{
	ac_buf flat = AC_BUF_INIT;
	int rc;

	if ((rc = ac_buf_append(&flat, text, len)) == 0) {
		for (size_t i = 0; i < flat.len; i++)
			if (flat.data[i] == '\n' || flat.data[i] == '\r' || flat.data[i] == '\t')
				flat.data[i] = ' ';
		rc = ac_text_sanitize(out, flat.data ? flat.data : "", flat.len);
	}
	ac_buf_free(&flat);
	return rc;
}

static bool continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

static int make_snippet(ac_search_hit *hit, const char *text, size_t len, size_t at,
			size_t match_len)
{
	size_t from = at > SNIPPET_BEFORE ? at - SNIPPET_BEFORE : 0;
	size_t to = len - (at + match_len) > SNIPPET_AFTER ? at + match_len + SNIPPET_AFTER : len;
	ac_buf out = AC_BUF_INIT;
	int rc;

	/* Cut on character boundaries, so no half character shows as \xNN. */
	while (from > 0 && continuation((unsigned char)text[from]))
		from--;
	while (to < len && continuation((unsigned char)text[to]))
		to++;
	if ((from > 0 && (rc = ac_buf_append(&out, "...", 3))) ||
	    (rc = put_one_line(&out, text + from, at - from)))
		goto done;
	hit->match_start = out.len;
	if ((rc = put_one_line(&out, text + at, match_len)))
		goto done;
	hit->match_len = out.len - hit->match_start;
	if ((rc = put_one_line(&out, text + at + match_len, to - at - match_len)) ||
	    (to < len && (rc = ac_buf_append(&out, "...", 3))) || (rc = ac_buf_putc(&out, '\0')))
		goto done;
	hit->snippet = ac_buf_detach(&out);
done:
	ac_buf_free(&out);
	return rc ? ac_error_set(AC_ENOMEM, "out of memory") : 0;
}

/* Stop the provider's walk: the limit is reached; this transcript's
 * first match is all that was asked. */
#define STOP_LIMIT 1
#define STOP_ITEM 2

static int on_message(void *arg, size_t index, const char *role, const char *text, size_t len)
{
	search_ctx *c = arg;
	ac_search_results *r = c->out;
	const char *at = ac_finder_find_fold(&c->text_finder, text, len);
	ac_search_hit *hit;

	if (!at)
		return 0;
	if (r->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		ac_search_hit *grown = realloc(r->hits, cap * sizeof(*grown));

		if (!grown)
			return ac_error_set(AC_ENOMEM, "out of memory");
		r->hits = grown;
		c->cap = cap;
	}
	hit = &r->hits[r->n];
	memset(hit, 0, sizeof(*hit));
	hit->item = c->item;
	hit->message = index;
	if (!(hit->role = strdup(role)) ||
	    !(hit->updated_at = strdup(c->updated_at ? c->updated_at : ""))) {
		free(hit->role);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	if (make_snippet(hit, text, len, (size_t)(at - text), c->text_finder.len)) {
		free(hit->role);
		free(hit->updated_at);
		return AC_ENOMEM;
	}
	r->n++;
	if (c->limit && r->n >= c->limit) {
		r->limited = true;
		return STOP_LIMIT;
	}
	return c->first_only ? STOP_ITEM : 0;
}

static int newest_first(const void *a, const void *b)
{
	const ac_search_item *x = a, *y = b;
	int order = strcmp(y->updated_at ? y->updated_at : "", x->updated_at ? x->updated_at : "");

	return order ? order : strcmp(x->id, y->id);
}

/* Hits of items read before they could be ordered: newest first, then by
 * id, then in conversation order (which qsort would not keep alone). */
static const ac_search_item *sort_items;

static int hit_order(const void *a, const void *b)
{
	const ac_search_hit *x = a, *y = b;
	int order = strcmp(y->updated_at, x->updated_at);

	if (!order)
		order = strcmp(sort_items[x->item].id, sort_items[y->item].id);
	if (!order)
		order = x->item < y->item ? -1 : x->item > y->item;
	return order ? order : x->message < y->message ? -1 : x->message > y->message;
}

/* Orders what an unordered search found and keeps the first limit hits. */
static void order_and_cut(ac_search_results *out, const ac_search_item *items, size_t limit)
{
	if (out->n > 1) {
		sort_items = items;
		qsort(out->hits, out->n, sizeof(*out->hits), hit_order);
		sort_items = NULL;
	}
	while (limit && out->n > limit) {
		out->n--;
		free(out->hits[out->n].role);
		free(out->hits[out->n].updated_at);
		free(out->hits[out->n].snippet);
		out->limited = true;
	}
}


/* ---- a file too big to hold: streamed ------------------------------------ */

/* The prefilter over a file read a block at a time: each block is looked
 * at with the last bytes of the one before (as many as the longest form
 * less one), so that a form across two blocks is still seen. */
typedef struct {
	const search_ctx *c;
	char *window; /* overlap + block */
	size_t keep, kept;
} stream_filter;

#define STREAM_FOUND 1

static int filter_block(const char *bytes, size_t len, void *ctx)
{
	stream_filter *f = ctx;
	size_t n = f->kept + len;

	memcpy(f->window + f->kept, bytes, len);
	if (prefilter(f->c, f->window, n))
		return STREAM_FOUND;
	f->kept = n < f->keep ? n : f->keep;
	memmove(f->window, f->window + n - f->kept, f->kept);
	return 0;
}

/* True in *out_may when a form of the needle stands in the file at path.
 * 0, or the errors of a read. */
static int stream_prefilter(bool *out_may, const search_ctx *c, const char *path)
{
	stream_filter f = {c, NULL, 0, 0};
	int rc;

	*out_may = false;
	for (size_t k = 0; k < c->nforms; k++)
		if (c->forms[k].len > f.keep)
			f.keep = c->forms[k].len;
	f.keep = f.keep ? f.keep - 1 : 0;
	if (!(f.window = malloc(f.keep + AC_FILE_BLOCK)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	/* A compressed rollout is looked at as its text, not its bytes. */
	rc = ac_zstd_path(path) ? ac_zstd_each_block(path, filter_block, &f)
				: ac_file_each_block(path, filter_block, &f);
	free(f.window);
	if (rc == STREAM_FOUND) {
		*out_may = true;
		rc = 0;
	}
	return rc;
}

/* A file read from its path a block at a time by its provider: memory
 * bounded by its longest line, not its size (a 2 GiB line is not held). */
static int search_streamed(ac_search_results *out, search_ctx *c, const ac_search_item *item,
			   ac_search_problem_fn problem, void *problem_ctx)
{
	size_t skipped = 0;
	bool may = false;
	int rc;

	if ((rc = stream_prefilter(&may, c, item->path)))
		return rc;
	out->files_read++;
	if (!may)
		return 0;
	out->files_parsed++;
	c->updated_at = item->updated_at;
	rc = item->provider->messages_file(item->path, on_message, c, &skipped);
	out->lines_skipped += skipped;
	if (skipped && problem && rc != AC_ENOMEM) {
		char *message = NULL;
		ac_buf text = AC_BUF_INIT;

		/* Said, so that no hit missed there passes for none. */
		if (ac_buf_printf(&text, "%s: %zu line%s too long to search, not searched",
				  item->path, skipped, skipped == 1 ? "" : "s") == 0)
			message = ac_buf_detach(&text);
		if (message)
			problem(message, problem_ctx);
		free(message);
		ac_buf_free(&text);
	}
	return rc;
}

int ac_session_search(ac_search_results *out, ac_search_item *items, size_t n,
		      const char *needle, size_t needle_len, size_t limit, bool first_only,
		      ac_search_problem_fn problem, void *problem_ctx)
{
	char *forms[AC_SEARCH_FORMS] = {0};
	char *lower = NULL;
	json_t *check = NULL;
	size_t nforms = 0;
	search_ctx c = {.out = out, .limit = limit, .first_only = first_only};
	bool ordered = true;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (needle_len == 0)
		return ac_error_set(AC_EINVAL, "search: the text to search for is empty");
	/* jansson checks UTF-8 for us: a needle that is not text matches no
	 * message, and its forms could not be built. */
	if (!(check = json_stringn(needle, needle_len)))
		return ac_error_set(AC_EINVAL, "search: the text to search for is not valid UTF-8");
	json_decref(check);
	if ((rc = ac_session_search_forms(forms, &nforms, needle, needle_len)))
		goto done;
	if (!(lower = malloc(needle_len))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	memcpy(lower, needle, needle_len);
	ascii_lower(lower, needle_len);
	ac_finder_init_fold(&c.text_finder, lower, needle_len, NULL);
	for (size_t k = 0; k < nforms; k++)
		ac_finder_init_fold(&c.forms[k], forms[k], strlen(forms[k]), NULL);
	c.nforms = nforms;
	for (size_t i = 0; i < n; i++)
		ordered = ordered && items[i].updated_at;
	/* Without every update known, everything is read, then ordered. */
	/* No item may come as a NULL array: qsort() is not given one. */
	if (ordered && n > 1)
		qsort(items, n, sizeof(*items), newest_first);
	else
		c.limit = 0;
	for (size_t i = 0; i < n && !out->limited; i++) {
		char *bytes = NULL;
		const char *text;
		size_t len = items[i].len;

		if (!items[i].bytes && items[i].updated_at && items[i].provider->messages_file) {
			c.item = i;
			rc = search_streamed(out, &c, &items[i], problem, problem_ctx);
			if (rc == STOP_LIMIT || rc == STOP_ITEM) {
				rc = 0;
			} else if (rc && rc != AC_ENOMEM) {
				/* Gone since it was listed, or unreadable: the
				 * others are still searched. */
				if (problem && rc != AC_ENOTFOUND)
					problem(ac_error_last(), problem_ctx);
				rc = 0;
			}
			if (rc)
				goto done;
			continue;
		}
		if (items[i].bytes) {
			text = items[i].bytes;
		} else if ((rc = ac_file_read(&bytes, &len, items[i].path)) == 0) {
			text = bytes;
		} else {
			if (rc == AC_ENOMEM)
				goto done;
			/* Gone since it was listed, or not a regular file: the
			 * others are still searched. */
			if (problem && rc != AC_ENOTFOUND)
				problem(ac_error_last(), problem_ctx);
			rc = 0;
			continue;
		}
		out->files_read++;
		/* Compressed bytes hold no form of the needle: the provider
		 * decompresses them and looks. */
		if (ac_zstd_path(items[i].path) || prefilter(&c, text, len)) {
			size_t before = out->n;
			char *updated = NULL;

			out->files_parsed++;
			c.item = i;
			c.updated_at = items[i].updated_at;
			rc = items[i].provider->messages(text, len, items[i].path, on_message, &c);
			/* Its hits learn its update now, while its bytes are here. */
			if (!items[i].updated_at && out->n > before && items[i].provider->updated_at) {
				if (!(updated = items[i].provider->updated_at(text, len)))
					rc = ac_error_set(AC_ENOMEM, "out of memory");
				for (size_t h = before; updated && h < out->n; h++) {
					char *copy = strdup(updated);

					if (!copy) {
						rc = ac_error_set(AC_ENOMEM, "out of memory");
						break;
					}
					free(out->hits[h].updated_at);
					out->hits[h].updated_at = copy;
				}
				free(updated);
			}
			if (rc == STOP_LIMIT || rc == STOP_ITEM) {
				rc = 0;
			} else if (rc && rc != AC_ENOMEM) {
				if (problem)
					problem(ac_error_last(), problem_ctx);
				rc = 0;
			}
		}
		free(bytes);
		if (rc)
			goto done;
	}
	if (rc == 0 && !ordered)
		order_and_cut(out, items, limit);
done:
	for (size_t k = 0; k < nforms; k++)
		free(forms[k]);
	free(lower);
	if (rc)
		ac_search_results_free(out);
	return rc;
}

void ac_search_results_free(ac_search_results *results)
{
	for (size_t i = 0; i < results->n; i++) {
		free(results->hits[i].role);
		free(results->hits[i].updated_at);
		free(results->hits[i].snippet);
	}
	free(results->hits);
	memset(results, 0, sizeof(*results));
}
