/* Gemini CLI chats: the usage of each model message.
 *
 * A model message {"id", "type": "gemini", "timestamp", "model",
 * "tokens": {input, output, cached, thoughts, tool, total}} carries the
 * counts of the call that wrote it (google-gemini/gemini-cli
 * chatRecordingService.ts recordMessageTokens: promptTokenCount,
 * candidatesTokenCount, cachedContentTokenCount, thoughtsTokenCount,
 * toolUsePromptTokenCount, totalTokenCount). As the other sources count:
 * input is what the model read without the cached part, plus the tool-use
 * prompt; cache_read the cached part; output the candidates plus the
 * thoughts (billed as output); reasoning the thoughts alone. input +
 * cache_read + output is the message's total.
 *
 * A message is booked once, by session id + message id (the key also
 * keeps a .json chat and the .jsonl the CLI migrated it to from counting
 * one message twice): the CLI appends it again when its tool calls are
 * merged, with the same tokens (recordMessageTokens fills only a message
 * that has none). A "$set" whose "messages" list replaces the messages
 * (a history sync after compression or a rewind) unbooks nothing: those
 * calls were made; nor does a "$rewindTo", which drops the rewound
 * messages from the conversation but not from the bill. A file read from
 * its start keeps its messages in a book until its end (a later version
 * of a message replaces an earlier one there); a rewound message is
 * booked as it leaves the book. */
#include "ac_usage_record.h"

#include "ac_error.h"
#include "ac_time.h"
#include "ac_usage_impl.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char *id;
	bool booked;         /* it has tokens */
	int64_t ts;
	char *model;
	ac_usage_counts counts;
} page;

/* The messages of a chat read from its start, in their order. */
typedef struct {
	page *p;
	size_t n, cap;
	json_t *at; /* id -> index in p */
} book;

static void page_free(page *p)
{
	free(p->id);
	free(p->model);
}

void ac_usage_gemini_book_free(void *b_)
{
	book *b = b_;

	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		page_free(&b->p[i]);
	free(b->p);
	json_decref(b->at);
	free(b);
}

int ac_usage_gemini_begin(ac_usage_file_state *state)
{
	book *b = calloc(1, sizeof(*b));

	ac_usage_gemini_book_free(state->gemini_book);
	state->gemini_book = NULL;
	if (!b || !(b->at = json_object())) {
		free(b);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	state->gemini_book = b;
	return 0;
}

/* The message's tokens as counts: 0 none (no tokens), 1 read, -1 not
 * whole numbers. */
static int counts_of(ac_usage_counts *out, const json_t *msg)
{
	const json_t *t = json_object_get(msg, "tokens");
	uint64_t input, output, cached, thoughts, tool;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(t))
		return 0;
	if (!ac_usage_count_of(&input, t, "input") || !ac_usage_count_of(&output, t, "output") ||
	    !ac_usage_count_of(&cached, t, "cached") || !ac_usage_count_of(&thoughts, t, "thoughts") ||
	    !ac_usage_count_of(&tool, t, "tool"))
		return -1;
	out->cache_read = cached < input ? cached : input;
	out->input = input - out->cache_read + tool;
	out->output = output + thoughts;
	out->reasoning = thoughts;
	return 1;
}

static int give(ac_usage_file_state *state, const char *id, int64_t ts, const char *model,
		const ac_usage_counts *counts, const char *fallback, ac_usage_record_fn fn, void *ctx)
{
	const char *session = state->session_id ? state->session_id : fallback;
	ac_usage_record r = {0};
	int rc;

	r.source = AC_USAGE_GEMINI;
	r.key = ac_usage_key_hash(session, id);
	if (ac_usage_file_state_has_key(state, r.key))
		return 0;
	if ((rc = ac_usage_file_state_add_key(state, r.key)))
		return rc;
	r.session_id = session;
	r.project = state->project ? state->project : "";
	r.model = model ? model : "";
	r.timestamp_ms = ts;
	r.counts = *counts;
	r.cost_usd = -1;
	return fn(&r, ctx);
}

/* One message record: kept in the book (a read from the start), else
 * booked now unless booked before. */
static int message(ac_usage_file_state *state, const json_t *msg, const char *fallback,
		   ac_usage_record_fn fn, void *ctx, size_t *skipped)
{
	book *b = state->gemini_book;
	const char *id = json_string_value(json_object_get(msg, "id"));
	const char *when = json_string_value(json_object_get(msg, "timestamp"));
	const char *model = json_string_value(json_object_get(msg, "model"));
	const json_t *at;
	ac_usage_counts counts;
	int64_t ts = 0;
	int has = counts_of(&counts, msg), rc;
	page *p;

	if (model && (rc = ac_usage_remember(&state->model, model)))
		return rc;
	if (has && (!when || ac_time_parse(&ts, when) != 0 || ts < 0))
		has = -1;
	if (has < 0) {
		(*skipped)++;
		has = 0;
	}
	if (!b)
		return has ? give(state, id, ts, model ? model : state->model, &counts, fallback, fn, ctx)
			   : 0;
	if ((at = json_object_get(b->at, id))) {
		p = &b->p[json_integer_value(at)];
	} else {
		if (b->n == b->cap) {
			size_t cap = b->cap ? b->cap * 2 : 32;
			page *grown = realloc(b->p, cap * sizeof(*grown));

			if (!grown)
				return ac_error_set(AC_ENOMEM, "out of memory");
			b->p = grown;
			b->cap = cap;
		}
		p = &b->p[b->n];
		memset(p, 0, sizeof(*p));
		if (!(p->id = strdup(id)) ||
		    json_object_set_new(b->at, id, json_integer((json_int_t)b->n))) {
			free(p->id);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		b->n++;
	}
	/* The last version wins; one without tokens takes none away. */
	if (has) {
		p->booked = true;
		p->ts = ts;
		p->counts = counts;
		if ((rc = ac_usage_remember(&p->model, model ? model : state->model)))
			return rc;
	}
	return 0;
}

/* A rewind takes messages out of the conversation, not off the bill:
 * the calls were made. The rewound messages with tokens are booked now
 * (their place in the book is gone); with no book (an appended part),
 * every earlier message was booked when it was read. */
static int rewind_to(ac_usage_file_state *state, const char *id, const char *fallback,
		     ac_usage_record_fn fn, void *ctx)
{
	book *b = state->gemini_book;
	const json_t *at;
	size_t from;
	int rc = 0;

	if (!b)
		return 0;
	at = json_object_get(b->at, id);
	from = at ? (size_t)json_integer_value(at) : 0; /* unknown: all, as the CLI's loader */
	while (b->n > from && rc == 0) {
		page *p = &b->p[--b->n];

		if (p->booked)
			rc = give(state, p->id, p->ts, p->model, &p->counts, fallback, fn, ctx);
		json_object_del(b->at, p->id);
		page_free(p);
	}
	return rc;
}

static int record(ac_usage_file_state *state, const json_t *e, const char *fallback,
		  ac_usage_record_fn fn, void *ctx, size_t *skipped)
{
	const json_t *set = json_object_get(e, "$set"), *rewind = json_object_get(e, "$rewindTo");
	const json_t *meta = json_is_object(set) ? set : e, *msg;
	size_t i;
	int rc;

	if (json_is_string(rewind))
		return rewind_to(state, json_string_value(rewind), fallback, fn, ctx);
	if (json_is_string(json_object_get(e, "id")))
		return message(state, e, fallback, fn, ctx, skipped);
	if (!json_is_object(set) && !json_is_string(json_object_get(e, "sessionId")))
		return 0;
	if ((rc = ac_usage_remember(&state->session_id,
				    json_string_value(json_object_get(meta, "sessionId")))))
		return rc;
	json_array_foreach(json_object_get(meta, "messages"), i, msg)
		if (json_is_string(json_object_get(msg, "id")) &&
		    (rc = message(state, msg, fallback, fn, ctx, skipped)))
			return rc;
	return 0;
}

/* The prefilter: a line holds a message (every one keeps its place: a
 * rewind names a user message, which has no tokens), a rewind, the
 * session's id or a $set of messages. Only $set lines of other metadata
 * are left unparsed. */
static bool wanted(const char *line, size_t len)
{
	return memmem(line, len, "\"id\"", 4) || memmem(line, len, "\"$rewindTo\"", 11) ||
	       memmem(line, len, "\"sessionId\"", 11);
}

int ac_usage_gemini_extract(ac_usage_file_state *state, const char *text, size_t len,
			    const char *fallback_session, ac_usage_record_fn fn, void *ctx,
			    size_t *out_skipped)
{
	size_t start = 0, skipped = 0;
	int rc = 0;

	while (start < len && rc == 0) {
		const char *line = text + start, *nl = memchr(line, '\n', len - start);
		size_t line_len = nl ? (size_t)(nl - line) : len - start;
		json_t *obj;

		start += line_len + 1;
		if (!wanted(line, line_len))
			continue;
		if (!(obj = ac_usage_parse_line(line, line_len))) {
			skipped++;
			continue;
		}
		if (json_is_object(obj))
			rc = record(state, obj, fallback_session, fn, ctx, &skipped);
		json_decref(obj);
	}
	if (out_skipped)
		*out_skipped += skipped;
	return rc;
}

int ac_usage_gemini_document(ac_usage_file_state *state, const char *text, size_t len,
			     const char *fallback_session, ac_usage_record_fn fn, void *ctx,
			     size_t *out_skipped)
{
	json_t *doc = json_loadb(text, len, 0, NULL);
	size_t skipped = 0;
	int rc = 0;

	if (json_is_object(doc))
		rc = record(state, doc, fallback_session, fn, ctx, &skipped);
	else if (len)
		skipped++;
	json_decref(doc);
	if (out_skipped)
		*out_skipped += skipped;
	return rc;
}

int ac_usage_gemini_finish(ac_usage_file_state *state, const char *fallback_session,
			   ac_usage_record_fn fn, void *ctx)
{
	book *b = state->gemini_book;
	int rc = 0;

	state->gemini_book = NULL;
	for (size_t i = 0; b && i < b->n && rc == 0; i++)
		if (b->p[i].booked)
			rc = give(state, b->p[i].id, b->p[i].ts, b->p[i].model, &b->p[i].counts,
				  fallback_session, fn, ctx);
	ac_usage_gemini_book_free(b);
	return rc;
}
