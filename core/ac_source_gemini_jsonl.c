/* A Gemini CLI chat under the rules of the CLI's own loader
 * (google-gemini/gemini-cli packages/core/src/services/
 * chatRecordingService.ts, loadConversationRecord), read incrementally.
 *
 * A chat session-*.jsonl is appended to, one record a line: first the
 * metadata {sessionId, projectHash, startTime, lastUpdated, kind?,
 * directories?}; then each message record {id, ...} whole, appended again
 * under the same id when its tool calls or tokens change (the last
 * version wins, in the place of the first); {"$set": {...}} merges into
 * the metadata (summary, lastUpdated, sessionId, ...; a "messages" list
 * replaces every message); {"$rewindTo": id} drops that message and every
 * later one (all of them when the id is unknown). The older session-*.json
 * is the same metadata with its "messages" in one document: it goes
 * through the same code as one record.
 *
 * The summary keeps, per message, only its id and what it adds up to (how
 * many conversation messages it makes, its open calls): enough to apply a
 * later version, a rewind or a replacement exactly without the text. The
 * conversation is built from the file on demand by the same rules. */
#include "ac_source_gemini_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_exact.h"

#include <stdlib.h>
#include <string.h>

enum { KIND_OTHER, KIND_USER, KIND_MODEL };

typedef struct {
	char *id;
	unsigned char kind;
	unsigned char shown;  /* conversation messages it makes */
	bool approval;        /* a call waits for the user's approval */
	char **open;          /* ids of its calls still running */
	size_t nopen;
} message;

typedef struct {
	message *m;
	size_t n, cap;
	json_t *at;   /* id -> index in m */
	size_t shown; /* the sum of m[].shown */
	bool placed;  /* cwd and parent looked for (files read once per chat) */
} chat;

static void message_free(message *m)
{
	for (size_t i = 0; i < m->nopen; i++)
		free(m->open[i]);
	free(m->open);
	free(m->id);
	memset(m, 0, sizeof(*m));
}

void ac_source_gemini_forget(ac_source_session *s)
{
	chat *c = s->adapter_state;

	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		message_free(&c->m[i]);
	free(c->m);
	json_decref(c->at);
	free(c);
	s->adapter_state = NULL;
}

static chat *chat_of(ac_source_session *s)
{
	chat *c = s->adapter_state;

	if (c)
		return c;
	if (!(c = calloc(1, sizeof(*c))) || !(c->at = json_object())) {
		free(c);
		return NULL;
	}
	s->adapter_state = c;
	return c;
}

/* The turn, the pending calls and the approval, from the last message
 * that is the user's or the model's; the count, from every message. */
static int settle(ac_source_session *s, const chat *c)
{
	size_t i = c->n;
	int rc;

	s->messages = c->shown;
	while (i > 0 && c->m[i - 1].kind == KIND_OTHER)
		i--;
	ac_source_pending_clear(s);
	s->awaiting_approval = false;
	if (i == 0) {
		s->turn = AC_TURN_NONE;
		return 0;
	}
	if (c->m[i - 1].kind == KIND_USER) {
		s->turn = AC_TURN_AGENT;
		return 0;
	}
	for (size_t k = 0; k < c->m[i - 1].nopen; k++)
		if ((rc = ac_source_pending_add(s, c->m[i - 1].open[k])))
			return rc;
	s->awaiting_approval = c->m[i - 1].approval;
	/* A reply with its calls' results in hand (or none asked) leaves the
	 * turn to the user. */
	s->turn = s->npending ? AC_TURN_AGENT : AC_TURN_USER;
	return 0;
}

/* Drops the messages from index from on. */
static void drop_from(chat *c, size_t from)
{
	while (c->n > from) {
		message *m = &c->m[--c->n];

		c->shown -= m->shown;
		json_object_del(c->at, m->id);
		message_free(m);
	}
}

/* What a message record says of the session beside its place: the first
 * prompt, the model, the time, a type not known. */
static int note_message(ac_source_session *s, const json_t *msg, unsigned char *out_kind)
{
	const char *type = json_string_value(json_object_get(msg, "type"));
	const char *when = json_string_value(json_object_get(msg, "timestamp"));
	int rc;

	*out_kind = KIND_OTHER;
	/* The metadata's lastUpdated is the CLI's own (its list sorts by it);
	 * a message's time stands in only until one is seen. */
	if (when && !s->updated && (rc = ac_source_set(&s->updated, json_object_get(msg, "timestamp"))))
		return rc;
	if (type && !strcmp(type, "user")) {
		char *text = ac_source_gemini_text(json_object_get(msg, "content"));

		if (!text)
			return ac_error_set(AC_ENOMEM, "out of memory");
		*out_kind = KIND_USER;
		/* The CLI's first prompt: the first one ever written, a later
		 * rewind notwithstanding (loadConversationRecord). */
		if (!s->task && ac_source_gemini_is_prompt(text))
			s->task = text;
		else
			free(text);
		return 0;
	}
	if (type && !strcmp(type, "gemini")) {
		*out_kind = KIND_MODEL;
		return ac_source_set(&s->model, json_object_get(msg, "model"));
	}
	if (type && (!strcmp(type, "info") || !strcmp(type, "error") || !strcmp(type, "warning")))
		return 0;
	return ac_source_note_unknown(s, type);
}

/* The message record msg (its id a string) in its place: a new one at the
 * end, a known one replaced where it stands. */
static int put_message(ac_source_session *s, chat *c, const json_t *msg)
{
	const json_t *id = json_object_get(msg, "id"), *at = json_object_get(c->at, json_string_value(id));
	const json_t *call;
	message m = {0};
	size_t i;
	int rc;

	if ((rc = note_message(s, msg, &m.kind)))
		return rc;
	m.shown = (unsigned char)ac_source_gemini_shown(msg);
	if (!(m.id = strndup(json_string_value(id), json_string_length(id))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	json_array_foreach(json_object_get(msg, "toolCalls"), i, call) {
		const char *status = json_string_value(json_object_get(call, "status"));
		const json_t *call_id = json_object_get(call, "id");
		char **grown;

		if (m.kind != KIND_MODEL)
			break;
		if (status && !strcmp(status, "awaiting_approval"))
			m.approval = true;
		if (!ac_source_gemini_call_open(call))
			continue;
		if (!(grown = realloc(m.open, (m.nopen + 1) * sizeof(*grown))) ||
		    !(grown[m.nopen] = strdup(json_is_string(call_id) ? json_string_value(call_id) : "?"))) {
			if (grown)
				m.open = grown;
			message_free(&m);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		m.open = grown;
		m.nopen++;
	}
	if (at) {
		message *old = &c->m[json_integer_value(at)];

		c->shown -= old->shown;
		message_free(old);
		*old = m;
	} else {
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 16;
			message *grown = realloc(c->m, cap * sizeof(*grown));

			if (!grown) {
				message_free(&m);
				return ac_error_set(AC_ENOMEM, "out of memory");
			}
			c->m = grown;
			c->cap = cap;
		}
		if (json_object_setn_new(c->at, m.id, strlen(m.id), json_integer((json_int_t)c->n))) {
			message_free(&m);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		c->m[c->n++] = m;
	}
	c->shown += m.shown;
	return 0;
}

static int put_list(ac_source_session *s, chat *c, const json_t *list)
{
	const json_t *msg;
	size_t i;
	int rc;

	json_array_foreach(list, i, msg)
		if (json_is_string(json_object_get(msg, "id")) && (rc = put_message(s, c, msg)))
			return rc;
	return 0;
}

/* The metadata keys the CLI writes (ConversationRecord); another is
 * counted for the drift canary. */
static bool known_key(const char *key)
{
	static const char *const keys[] = {"sessionId", "projectHash", "startTime", "lastUpdated",
					   "messages", "summary", "memoryScratchpad",
					   "directories", "kind", NULL};

	for (size_t i = 0; keys[i]; i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

static int note_metadata(ac_source_session *s, chat *c, const json_t *meta, const char *prefix)
{
	const char *key, *when = json_string_value(json_object_get(meta, "lastUpdated"));
	const char *kind = json_string_value(json_object_get(meta, "kind"));
	const json_t *list = json_object_get(meta, "messages"), *value;
	int rc;

	if ((rc = ac_source_set(&s->id, json_object_get(meta, "sessionId"))) ||
	    (rc = ac_source_set(&s->started, json_object_get(meta, "startTime"))) ||
	    (rc = ac_source_set(&s->title, json_object_get(meta, "summary"))))
		return rc;
	if (when && (rc = ac_source_set(&s->updated, json_object_get(meta, "lastUpdated"))))
		return rc;
	if (kind && !strcmp(kind, "subagent"))
		s->relation = AC_SOURCE_SUBAGENT;
	json_object_foreach((json_t *)meta, key, value) {
		ac_buf name = AC_BUF_INIT;

		if (known_key(key))
			continue;
		rc = ac_buf_printf(&name, "%s%s", prefix, key);
		if (rc == 0)
			rc = ac_source_note_unknown(s, name.data);
		ac_buf_free(&name);
		if (rc)
			return rc;
	}
	if (!json_is_array(list))
		return 0;
	/* $set messages: a checkpoint that stands for every message. */
	if (*prefix == '$')
		drop_from(c, 0);
	return put_list(s, c, list);
}

/* Where the chat sits: the root of its project folder, and the session a
 * sub-agent chat works for. Once per file. */
static int place(ac_source_session *s, chat *c)
{
	if (c->placed)
		return 0;
	c->placed = true;
	if (!s->cwd)
		s->cwd = ac_source_gemini_root_of(s->path);
	if (!s->parent_id && (s->parent_id = ac_source_gemini_parent_of(s->path)))
		s->relation = AC_SOURCE_SUBAGENT;
	return 0;
}

/* The first key starting with '$' (a record kind the CLI may add), or
 * NULL. */
static const char *dollar_key(const json_t *e)
{
	const char *key;
	json_t *value;

	json_object_foreach((json_t *)e, key, value)
		if (key[0] == '$')
			return key;
	return NULL;
}

int ac_source_gemini_entry(ac_source_session *s, const json_t *e)
{
	chat *c = chat_of(s);
	const json_t *rewind = json_object_get(e, "$rewindTo"), *set = json_object_get(e, "$set");
	int rc;

	if (!c)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = place(s, c)))
		return rc;
	/* In the loader's order: a rewind, a message, a metadata update, the
	 * metadata. */
	if (json_is_string(rewind)) {
		const json_t *at = json_object_get(c->at, json_string_value(rewind));

		drop_from(c, at ? (size_t)json_integer_value(at) : 0);
	} else if (json_is_string(json_object_get(e, "id"))) {
		rc = put_message(s, c, e);
	} else if (json_is_object(set)) {
		rc = note_metadata(s, c, set, "$set.");
	} else if (json_is_string(json_object_get(e, "sessionId"))) {
		rc = note_metadata(s, c, e, "metadata.");
	} else {
		rc = ac_source_note_unknown(s, dollar_key(e));
	}
	return rc ? rc : settle(s, c);
}

/* ---- kept in the sources cache ---- */

/* A .jsonl chat's next append needs its messages by id: they go in the
 * cache as {"sub": bool, "m": [[id, kind, shown, approval, [open call
 * ids]], ...]}. A .json chat is read whole at each change: nothing. */
json_t *ac_source_gemini_state_save(const ac_source_session *s)
{
	const chat *c = s->adapter_state;
	json_t *list, *out;

	if (!c || !ac_source_reads_lines(s))
		return NULL;
	if (!(list = json_array()))
		return NULL;
	for (size_t i = 0; i < c->n; i++) {
		const message *m = &c->m[i];
		json_t *open = json_array();

		for (size_t k = 0; open && k < m->nopen; k++)
			json_array_append_new(open, json_string(m->open[k]));
		if (json_array_append_new(list, json_pack("[s, i, i, b, o]", m->id, (int)m->kind,
							  (int)m->shown, m->approval, open))) {
			json_decref(list);
			return NULL;
		}
	}
	out = json_pack("{s:b, s:o}", "sub", s->relation == AC_SOURCE_SUBAGENT, "m", list);
	return out;
}

static bool restore_message(message *m, const json_t *item)
{
	const json_t *open = json_array_get(item, 4), *id;
	json_int_t kind = json_integer_value(json_array_get(item, 1));
	json_int_t shown = json_integer_value(json_array_get(item, 2));
	size_t k;

	memset(m, 0, sizeof(*m));
	if (json_array_size(item) != 5 || !json_is_string(json_array_get(item, 0)) ||
	    !json_is_integer(json_array_get(item, 1)) || kind < KIND_OTHER || kind > KIND_MODEL ||
	    !json_is_integer(json_array_get(item, 2)) || shown < 0 || shown > 2 ||
	    !json_is_boolean(json_array_get(item, 3)) || !json_is_array(open) ||
	    json_array_size(open) > 4096)
		return false;
	m->kind = (unsigned char)kind;
	m->shown = (unsigned char)shown;
	m->approval = json_is_true(json_array_get(item, 3));
	if (!(m->id = strdup(json_string_value(json_array_get(item, 0)))) ||
	    (json_array_size(open) && !(m->open = calloc(json_array_size(open), sizeof(*m->open)))))
		return false;
	json_array_foreach(open, k, id) {
		if (!json_is_string(id) || !(m->open[m->nopen] = strdup(json_string_value(id))))
			return false;
		m->nopen++;
	}
	return true;
}

bool ac_source_gemini_state_restore(ac_source_session *s, const json_t *saved)
{
	const json_t *list = json_object_get(saved, "m"), *item;
	chat *c;
	size_t i;

	/* Where it sits is the path's to say, again. */
	free(s->parent_id);
	if ((s->parent_id = ac_source_gemini_parent_of(s->path)) ||
	    json_is_true(json_object_get(saved, "sub")))
		s->relation = AC_SOURCE_SUBAGENT;
	if (!ac_source_reads_lines(s))
		return true;
	if (!json_is_array(list) || !(c = chat_of(s)) || c->n)
		return false;
	c->placed = true;
	json_array_foreach(list, i, item) {
		message m;

		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 16;
			message *grown = realloc(c->m, cap * sizeof(*grown));

			if (!grown)
				return false;
			c->m = grown;
			c->cap = cap;
		}
		/* A forged or stale entry (an id twice, counts that do not add
		 * up) is not believed: the file is read again. */
		if (!restore_message(&m, item) || json_object_get(c->at, m.id) ||
		    json_object_set_new(c->at, m.id, json_integer((json_int_t)c->n))) {
			message_free(&m);
			return false;
		}
		c->m[c->n++] = m;
		c->shown += m.shown;
	}
	return c->shown == s->messages;
}

/* ---- the conversation ---- */

/* The messages in their order, the last version of each: the loader's
 * map. */
typedef struct {
	json_t *list; /* message records */
	json_t *at;   /* id -> index in list */
	ac_buf line;
	bool skipping; /* inside a line past AC_SOURCE_LINE_MAX, as the summary */
	int rc;
} builder;

static void cut(builder *b, size_t from)
{
	while (json_array_size(b->list) > from) {
		size_t last = json_array_size(b->list) - 1;

		json_object_del(b->at, json_string_value(json_object_get(json_array_get(b->list, last), "id")));
		json_array_remove(b->list, last);
	}
}

static int upsert(builder *b, json_t *msg)
{
	const char *id = json_string_value(json_object_get(msg, "id"));
	const json_t *at = json_object_get(b->at, id);

	if (at)
		return json_array_set(b->list, (size_t)json_integer_value(at), msg) ? AC_ENOMEM : 0;
	if (json_object_set_new(b->at, id, json_integer((json_int_t)json_array_size(b->list))) ||
	    json_array_append(b->list, msg))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

static int upsert_list(builder *b, const json_t *list)
{
	json_t *msg;
	size_t i;
	int rc;

	json_array_foreach(list, i, msg)
		if (json_is_string(json_object_get(msg, "id")) && (rc = upsert(b, msg)))
			return rc;
	return 0;
}

static int feed(builder *b, json_t *e)
{
	const json_t *rewind = json_object_get(e, "$rewindTo"), *set = json_object_get(e, "$set");

	if (json_is_string(rewind)) {
		const json_t *at = json_object_get(b->at, json_string_value(rewind));

		cut(b, at ? (size_t)json_integer_value(at) : 0);
		return 0;
	}
	if (json_is_string(json_object_get(e, "id")))
		return upsert(b, e);
	if (json_is_object(set)) {
		if (!json_is_array(json_object_get(set, "messages")))
			return 0;
		cut(b, 0);
		return upsert_list(b, json_object_get(set, "messages"));
	}
	if (json_is_string(json_object_get(e, "sessionId")))
		return upsert_list(b, json_object_get(e, "messages"));
	return 0;
}

static int feed_line(builder *b, const char *line, size_t len)
{
	json_t *e = ac_json_load_js(line, len, JSON_ALLOW_NUL);

	if (json_is_object(e))
		b->rc = feed(b, e);
	json_decref(e);
	return b->rc;
}

/* Whole lines of a block; the rest waits for the next (ac_source.c's
 * rule: a line past AC_SOURCE_LINE_MAX is dropped, a torn last line left). */
static int feed_block(const char *bytes, size_t len, void *ctx)
{
	builder *b = ctx;
	const char *p = bytes, *end = bytes + len, *nl;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (b->skipping)
			b->skipping = false;
		else if (b->line.len + (size_t)(nl - p) > AC_SOURCE_LINE_MAX)
			;
		else if (ac_buf_append(&b->line, p, (size_t)(nl - p)))
			return AC_ENOMEM;
		else if (b->line.len && feed_line(b, b->line.data, b->line.len))
			return b->rc;
		ac_buf_clear(&b->line);
		p = nl + 1;
	}
	if (!b->skipping && b->line.len + (size_t)(end - p) > AC_SOURCE_LINE_MAX) {
		b->skipping = true;
		ac_buf_clear(&b->line);
	}
	return b->skipping ? 0 : ac_buf_append(&b->line, p, (size_t)(end - p));
}

static int finish(json_t *out, builder *b, int rc)
{
	json_t *msg;
	size_t i;

	if (rc == 0)
		json_array_foreach(b->list, i, msg)
			if ((rc = ac_source_gemini_put(out, msg)))
				break;
	json_decref(b->list);
	json_decref(b->at);
	ac_buf_free(&b->line);
	return rc;
}

static int builder_init(builder *b)
{
	memset(b, 0, sizeof(*b));
	b->list = json_array();
	b->at = json_object();
	if (!b->list || !b->at) {
		json_decref(b->list);
		json_decref(b->at);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	return 0;
}

int ac_source_gemini_conversation_bytes(json_t *out, const char *bytes, size_t len, bool lines)
{
	builder b;
	json_t *doc;
	int rc;

	if ((rc = builder_init(&b)))
		return rc;
	if (lines)
		return finish(out, &b, feed_block(bytes, len, &b));
	/* One document; a broken one makes no message, as the summary counts
	 * none. */
	doc = json_loadb(bytes, len, JSON_ALLOW_NUL, NULL);
	if (json_is_object(doc))
		rc = feed(&b, doc);
	json_decref(doc);
	return finish(out, &b, rc);
}

int ac_source_gemini_conversation(json_t *out, const ac_source_session *s)
{
	builder b;
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (ac_source_reads_lines(s)) {
		if ((rc = builder_init(&b)))
			return rc;
		return finish(out, &b, ac_file_each_block(s->path, feed_block, &b));
	}
	if (s->size > AC_SOURCE_DOCUMENT_MAX)
		return ac_error_set(AC_ECORRUPT, "%s: larger than %u MB: not a chat any tool wrote",
				    s->path, AC_SOURCE_DOCUMENT_MAX >> 20);
	if ((rc = ac_file_read(&text, &len, s->path)))
		return rc;
	rc = ac_source_gemini_conversation_bytes(out, text, len, false);
	free(text);
	return rc;
}
