/* Searching the coding agents' transcripts: the providers
 * (ac_source_search.h). */
#include "ac_source_search.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_exact.h"
#include "ac_messages.h"
#include "ac_source_impl.h"
#include "ac_zstd.h"
#include "ac_source_gemini_impl.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	ac_search_message_fn fn;
	void *ctx;
	size_t index; /* of the next message */
	ac_buf text;
} walk;

/* The messages entry stands for: handed to fn (indexes counted), or only
 * counted when fn is NULL. */
static int emit(walk *w, const ac_source_adapter *a, const json_t *entry, bool call)
{
	json_t *out = json_array(), *msg;
	size_t i;
	int rc;

	if (!out)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = a->messages(out, entry)))
		goto done;
	json_array_foreach (out, i, msg) {
		if (call) {
			ac_buf_clear(&w->text);
			if ((rc = ac_message_text(&w->text, msg)) ||
			    (rc = w->fn(w->ctx, w->index, ac_message_role(msg),
					w->text.data ? w->text.data : "", w->text.len)))
				goto done;
		}
		w->index++;
	}
done:
	json_decref(out);
	return rc;
}

/* As ac_source_session_conversation() reads a line: a line that is not
 * a JSON object makes no message. */
static json_t *load_line(const char *line, size_t len)
{
	json_t *entry = ac_json_load_js(line, len, JSON_ALLOW_NUL);

	if (entry && !json_is_object(entry)) {
		json_decref(entry);
		entry = NULL;
	}
	return entry;
}

static int line_messages(walk *w, const ac_source_adapter *a, const char *line, size_t len)
{
	bool may = ac_search_may_match(w->ctx, line, len);
	json_t *entry;
	int n, rc;

	if (!may && a->count && (n = a->count(line, len)) >= 0) {
		w->index += (size_t)n;
		return 0;
	}
	if (!(entry = load_line(line, len)))
		return 0;
	rc = emit(w, a, entry, may);
	json_decref(entry);
	return rc;
}

/* A format whose lines depend on the lines before them (the adapter's
 * conv_line()): the conversation is made whole, as `session show` makes
 * it, then searched, so that a message a later line took back is not
 * found and every index is the one `session show` gives. */
typedef struct {
	const ac_source_adapter *a;
	void *conv;
	json_t *out;
	ac_buf line;   /* the line being cut, up to AC_SOURCE_LINE_MAX */
	bool skipping; /* inside a longer one: dropped to its end, never held */
	size_t skipped; /* such lines */
	int rc;
} whole;

static int whole_line(whole *c, const char *line, size_t len)
{
	json_t *entry;

	if (!len || !(entry = load_line(line, len)))
		return 0;
	c->rc = c->a->conv_line(c->conv, c->out, entry);
	json_decref(entry);
	return c->rc;
}

/* Cuts blocks into lines as stream_block() below does: a line past
 * AC_SOURCE_LINE_MAX is never held (a 2 GiB line, or a zstd bomb's, costs
 * no memory), makes no message and is counted. */
static int whole_block(const char *bytes, size_t len, void *ctx)
{
	whole *c = ctx;
	const char *p = bytes, *end = bytes + len, *nl;
	int rc;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		size_t n = (size_t)(nl - p);

		if (c->skipping) {
			c->skipping = false;
		} else if (c->line.len + n > AC_SOURCE_LINE_MAX) {
			c->skipped++;
		} else if (c->line.len) {
			if ((rc = ac_buf_append(&c->line, p, n)) ||
			    (rc = whole_line(c, c->line.data, c->line.len)))
				return rc;
		} else if ((rc = whole_line(c, p, n))) {
			return rc;
		}
		ac_buf_clear(&c->line);
		p = nl + 1;
	}
	if (c->skipping || p == end)
		return 0;
	if (c->line.len + (size_t)(end - p) > AC_SOURCE_LINE_MAX) {
		c->skipped++;
		c->skipping = true;
		ac_buf_clear(&c->line);
		return 0;
	}
	return ac_buf_append(&c->line, p, (size_t)(end - p));
}

/* Hands the conversation c made to w, numbered as `session show` does. */
static int whole_walk(whole *c, walk *w, int rc)
{
	json_t *msg;
	size_t i;

	json_array_foreach (c->out, i, msg) {
		if (rc)
			break;
		ac_buf_clear(&w->text);
		if (!(rc = ac_message_text(&w->text, msg)))
			rc = w->fn(w->ctx, w->index, ac_message_role(msg),
				   w->text.data ? w->text.data : "", w->text.len);
		w->index++;
	}
	return rc;
}

static int whole_open(whole *c, const ac_source_adapter *a)
{
	*c = (whole){a, a->conv_new(), json_array(), AC_BUF_INIT, false, 0, 0};
	return c->conv && c->out ? 0 : ac_error_set(AC_ENOMEM, "out of memory");
}

static void whole_close(whole *c)
{
	if (c->conv)
		c->a->conv_free(c->conv);
	json_decref(c->out);
	ac_buf_free(&c->line);
}

static int messages_whole(const ac_source_adapter *a, const char *bytes, size_t len,
			  const char *path, walk *w)
{
	whole c;
	int rc;

	if ((rc = whole_open(&c, a)) == 0) {
		rc = path && ac_zstd_path(path) ? ac_zstd_each_block_of(bytes, len, path, whole_block, &c)
						: whole_block(bytes, len, &c);
		rc = whole_walk(&c, w, rc);
	}
	whole_close(&c);
	return rc;
}

static int messages_of(ac_source_kind kind, const char *bytes, size_t len, const char *path,
		       ac_search_message_fn fn, void *ctx)
{
	const ac_source_adapter *a = ac_source_adapter_for(kind, path);
	walk w = {fn, ctx, 0, AC_BUF_INIT};
	const char *p = bytes, *end = bytes + len, *nl;
	json_t *doc = NULL;
	int rc = 0;

	if (a->conv_line) {
		rc = messages_whole(a, bytes, len, path, &w);
		goto done;
	}
	if (!a->jsonl) {
		/* A chat rewritten whole: one document, broken ones make
		 * nothing (the listing counts them). */
		doc = json_loadb(bytes, len, JSON_ALLOW_NUL, NULL);
		if (json_is_object(doc))
			rc = emit(&w, a, doc, true);
		goto done;
	}
	/* A last line without its newline is still being written: left out,
	 * as the conversation leaves it. */
	while (rc == 0 && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		/* A line past AC_SOURCE_LINE_MAX makes no message in the
		 * conversation (ac_source.c): none here either, so that every
		 * number after it is the one `session show` gives. */
		if (nl > p && (size_t)(nl - p) <= AC_SOURCE_LINE_MAX)
			rc = line_messages(&w, a, p, (size_t)(nl - p));
		p = nl + 1;
	}
done:
	json_decref(doc);
	ac_buf_free(&w.text);
	return rc;
}

/* ---- a transcript read from its file, a line at a time ---- */

typedef struct {
	walk w;
	const ac_source_adapter *a;
	ac_buf line;    /* the line being cut, up to AC_SOURCE_LINE_MAX */
	bool skipping;  /* inside a longer one: dropped to its end */
	size_t skipped; /* such lines */
} stream;

/* Cuts the blocks into lines as the conversation reads them
 * (ac_source.c): a line past AC_SOURCE_LINE_MAX is never held, makes no
 * message and is counted; the last line without its newline is left out. */
static int stream_block(const char *bytes, size_t len, void *ctx)
{
	stream *st = ctx;
	const char *p = bytes, *end = bytes + len, *nl;
	int rc;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		size_t n = (size_t)(nl - p);

		if (st->skipping) {
			st->skipping = false;
		} else if (st->line.len + n > AC_SOURCE_LINE_MAX) {
			st->skipped++;
		} else if (st->line.len) {
			if ((rc = ac_buf_append(&st->line, p, n)) ||
			    (rc = line_messages(&st->w, st->a, st->line.data, st->line.len)))
				return rc;
		} else if (n && (rc = line_messages(&st->w, st->a, p, n))) {
			return rc;
		}
		ac_buf_clear(&st->line);
		p = nl + 1;
	}
	if (st->skipping || p == end)
		return 0;
	if (st->line.len + (size_t)(end - p) > AC_SOURCE_LINE_MAX) {
		st->skipped++;
		st->skipping = true;
		ac_buf_clear(&st->line);
		return 0;
	}
	return ac_buf_append(&st->line, p, (size_t)(end - p));
}

static int file_messages(ac_source_kind kind, const char *path, ac_search_message_fn fn,
			 void *ctx, size_t *out_skipped)
{
	stream st = {{fn, ctx, 0, AC_BUF_INIT}, ac_source_adapter_for(kind, path), AC_BUF_INIT, false, 0};
	int rc = ac_file_each_block(path, stream_block, &st);

	*out_skipped = st.skipped;
	ac_buf_free(&st.line);
	ac_buf_free(&st.w.text);
	return rc;
}

/* A rollout read from its file a block at a time (decompressed when it
 * is a .zst): only its conversation and one line are held, never the
 * file whole. */
static int whole_file(ac_source_kind kind, const char *path, ac_search_message_fn fn,
		      void *ctx, size_t *out_skipped)
{
	walk w = {fn, ctx, 0, AC_BUF_INIT};
	whole c;
	int rc;

	*out_skipped = 0;
	if ((rc = whole_open(&c, ac_source_adapter_for(kind, path))) == 0) {
		rc = ac_zstd_path(path) ? ac_zstd_each_block(path, whole_block, &c)
					: ac_file_each_block(path, whole_block, &c);
		rc = whole_walk(&c, &w, rc);
		*out_skipped = c.skipped;
	}
	whole_close(&c);
	ac_buf_free(&w.text);
	return rc;
}

static int codex_file(const char *path, ac_search_message_fn fn, void *ctx, size_t *out_skipped)
{
	return whole_file(AC_SOURCE_CODEX, path, fn, ctx, out_skipped);
}

static int agy_file(const char *path, ac_search_message_fn fn, void *ctx, size_t *out_skipped)
{
	return file_messages(AC_SOURCE_AGY, path, fn, ctx, out_skipped);
}

static int claude_file(const char *path, ac_search_message_fn fn, void *ctx, size_t *out_skipped)
{
	return file_messages(AC_SOURCE_CLAUDE, path, fn, ctx, out_skipped);
}

static int claude_messages(const char *bytes, size_t len, const char *path,
			   ac_search_message_fn fn, void *ctx)
{
	return messages_of(AC_SOURCE_CLAUDE, bytes, len, path, fn, ctx);
}

static int codex_messages(const char *bytes, size_t len, const char *path,
			  ac_search_message_fn fn, void *ctx)
{
	return messages_of(AC_SOURCE_CODEX, bytes, len, path, fn, ctx);
}

/* A Gemini chat's lines depend on each other (a message appended again
 * replaces its earlier version, a rewind drops messages): its
 * conversation is built whole, by the summary's rules, then walked. */
static int gemini_messages(const char *bytes, size_t len, const char *path,
			   ac_search_message_fn fn, void *ctx)
{
	json_t *conv = json_array(), *msg;
	ac_buf text = AC_BUF_INIT;
	size_t i;
	int rc;

	if (!conv)
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = ac_source_gemini_conversation_bytes(conv, bytes, len, !ac_source_gemini_is_document(path));
	json_array_foreach (conv, i, msg) {
		if (rc)
			break;
		ac_buf_clear(&text);
		if ((rc = ac_message_text(&text, msg)) == 0)
			rc = fn(ctx, i, ac_message_role(msg), text.data ? text.data : "", text.len);
	}
	ac_buf_free(&text);
	json_decref(conv);
	return rc;
}

static int agy_messages(const char *bytes, size_t len, const char *path,
			ac_search_message_fn fn, void *ctx)
{
	return messages_of(AC_SOURCE_AGY, bytes, len, path, fn, ctx);
}

/* Every item comes with its update from the index: no updated_at(). */
static const ac_search_provider providers[AC_SOURCE_COUNT] = {
	[AC_SOURCE_CLAUDE] = {.name = "claude-code", .messages = claude_messages,
			      .messages_file = claude_file},
	/* A Codex rollout's lines depend on each other (a fork's copy of its
	 * parent, a rollback): its conversation is built whole (the adapter's
	 * conv hooks), not streamed. */
	[AC_SOURCE_CODEX] = {.name = "codex", .messages = codex_messages,
			     .messages_file = codex_file},
	[AC_SOURCE_GEMINI] = {.name = "gemini", .messages = gemini_messages},
	[AC_SOURCE_AGY] = {.name = "antigravity", .messages = agy_messages,
			   .messages_file = agy_file},
};

const ac_search_provider *ac_source_search_provider(ac_source_kind kind)
{
	return kind < AC_SOURCE_COUNT ? &providers[kind] : NULL;
}

int ac_source_search_items(ac_search_item **out, size_t *out_n, ac_source_index *index)
{
	ac_source_session *const *list;
	size_t n;

	*out = NULL;
	*out_n = 0;
	list = ac_source_index_list(index, &n);
	if (!n)
		return 0;
	if (!(*out = calloc(n, sizeof(**out))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const ac_source_session *s = list[i];

		(*out)[i] = (ac_search_item){
			.id = s->id ? s->id : s->path,
			.source = ac_source_name(s->kind),
			.path = s->path,
			/* Known for all: the search goes newest first and
			 * stops at its limit. */
			.updated_at = s->updated ? s->updated : "",
			.provider = &providers[s->kind],
		};
	}
	*out_n = n;
	return 0;
}
