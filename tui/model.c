/* The dashboard's model and the readers that fill it. */
#include "model.h"

#include "ac_checkpoint.h"
#include "ac_error.h"
#include "ac_journal_follow.h"
#include "ac_messages.h"
#include "ac_oplog.h"
#include "ac_session.h"
#include "ac_text.h"
#include "ac_watch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Strings that could not be allocated point here, so nothing is NULL. */
static char empty_string[1];

static char *safe_dup(const char *s, size_t len)
{
	ac_buf b = AC_BUF_INIT;
	char *out;

	if (!s || ac_text_sanitize(&b, s, len) != 0) {
		ac_buf_free(&b);
		return empty_string;
	}
	out = ac_buf_detach(&b);
	return out ? out : empty_string;
}

static char *safe_str(const char *s)
{
	return safe_dup(s, s ? strlen(s) : 0);
}

static void sfree(char *s)
{
	if (s != empty_string)
		free(s);
}

ui_status ui_status_of(const char *status)
{
	static const char *const names[] = {"running", "paused", "completed", "failed"};

	for (int i = 0; status && i < 4; i++)
		if (!strcmp(status, names[i]))
			return (ui_status)i;
	return UI_STATUS_OTHER;
}

ui_status ui_event_status_of(const char *status)
{
	if (!status)
		return UI_STATUS_OTHER;
	if (!strcmp(status, "SUCCESS"))
		return UI_STATUS_COMPLETED;
	if (!strcmp(status, "FAILED"))
		return UI_STATUS_FAILED;
	if (!strcmp(status, "IN_PROGRESS"))
		return UI_STATUS_RUNNING;
	return UI_STATUS_OTHER;
}

void ui_model_set_action(ui_model *m, bool error, const char *fmt, ...)
{
	char raw[1024];
	ac_buf b = AC_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	ac_text_sanitize(&b, raw, strlen(raw));
	snprintf(m->action, sizeof(m->action), "%s", b.data ? b.data : "");
	ac_buf_free(&b);
	m->action_error = error;
}

/* ---- journal tail ------------------------------------------------------ */

const ui_event *ui_model_event(const ui_model *m, size_t i)
{
	return &m->events[(m->events_start + i) % UI_MODEL_EVENTS];
}

static void event_free(ui_event *e)
{
	sfree(e->id);
	sfree(e->timestamp);
	sfree(e->agent);
	sfree(e->status);
	sfree(e->action);
	sfree(e->message);
	memset(e, 0, sizeof(*e));
}

void ui_model_add_event(ui_model *m, const char *id, const char *timestamp, const char *agent,
			const char *status, const char *action, const char *message)
{
	ui_event *e;

	if (m->n_events == UI_MODEL_EVENTS) {
		e = &m->events[m->events_start];
		event_free(e);
		m->events_start = (m->events_start + 1) % UI_MODEL_EVENTS;
	} else {
		e = &m->events[(m->events_start + m->n_events) % UI_MODEL_EVENTS];
		m->n_events++;
	}
	e->id = safe_str(id);
	e->timestamp = safe_str(timestamp);
	e->agent = safe_str(agent);
	e->status = safe_str(status);
	e->action = safe_str(action);
	e->message = safe_str(message);
	e->st = ui_event_status_of(status);
	m->events_seen++;
}

void ui_model_clear_events(ui_model *m)
{
	for (size_t i = 0; i < m->n_events; i++)
		event_free(&m->events[(m->events_start + i) % UI_MODEL_EVENTS]);
	m->events_start = m->n_events = 0;
}

/* ---- sessions ---------------------------------------------------------- */

static void session_free(ui_session *s)
{
	sfree(s->id);
	sfree(s->task);
	sfree(s->status);
	sfree(s->user);
	sfree(s->agent);
	sfree(s->created);
	sfree(s->updated);
}

static void sessions_free(ui_session *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		session_free(&list[i]);
	free(list);
}

int ui_model_set_sessions(ui_model *m, const ac_session_summary *const *list, size_t n)
{
	ui_session *copy = n ? calloc(n, sizeof(*copy)) : NULL;

	if (n && !copy)
		return AC_ENOMEM;
	memset(m->by_status, 0, sizeof(m->by_status));
	for (size_t i = 0; i < n; i++) {
		const ac_session_summary *s = list[i];
		ui_session *c = &copy[i];

		c->id = safe_str(s->id);
		c->task = safe_str(s->task);
		c->status = safe_str(s->status);
		c->user = safe_str(s->user);
		c->agent = safe_str(s->agent);
		c->created = safe_str(s->created_at);
		c->updated = safe_str(s->updated_at);
		c->messages = s->messages;
		c->tokens = s->tokens;
		c->st = ui_status_of(s->status);
		m->by_status[c->st]++;
	}
	sessions_free(m->sessions, m->n_sessions);
	m->sessions = copy;
	m->n_sessions = n;
	return 0;
}

/* ---- operations and checkpoints ---------------------------------------- */

static void ops_clear(ui_model *m)
{
	for (size_t i = 0; i < m->n_ops; i++) {
		ui_op *o = &m->ops[i];

		sfree(o->id);
		sfree(o->timestamp);
		sfree(o->session);
		sfree(o->type);
		sfree(o->what);
		sfree(o->commit);
	}
	m->n_ops = 0;
}

static void ckpts_clear(ui_model *m)
{
	for (size_t i = 0; i < m->n_ckpts; i++) {
		sfree(m->ckpts[i].id);
		sfree(m->ckpts[i].node);
		sfree(m->ckpts[i].created);
	}
	free(m->ckpts);
	m->ckpts = NULL;
	m->n_ckpts = 0;
	free(m->ckpt_session);
	m->ckpt_session = NULL;
	m->ckpts_present = false;
}

/* ---- conversation ------------------------------------------------------ */

typedef struct {
	ui_model *m;
	size_t cap;
	int failed;
} conv_builder;

static void conv_add(conv_builder *b, ui_conv_kind kind, ui_role role, const char *text,
		     size_t len)
{
	ui_conv_line *l;

	if (b->failed)
		return;
	if (b->m->n_conv == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		ui_conv_line *grown = realloc(b->m->conv, cap * sizeof(*grown));

		if (!grown) {
			b->failed = AC_ENOMEM;
			return;
		}
		b->m->conv = grown;
		b->cap = cap;
	}
	l = &b->m->conv[b->m->n_conv++];
	l->kind = kind;
	l->role = role;
	l->text = safe_dup(text, len);
}

/* Adds text as one line per newline; the first line starts with prefix. */
static void conv_add_text(conv_builder *b, ui_conv_kind kind, ui_role role, const char *prefix,
			  const char *text, size_t len)
{
	size_t start = 0;

	while (len && text[len - 1] == '\n')
		len--;
	for (;;) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;
		ac_buf line = AC_BUF_INIT;

		if (start == 0 && prefix)
			ac_buf_append(&line, prefix, strlen(prefix));
		ac_buf_append(&line, text + start, end - start);
		conv_add(b, kind, role, line.data ? line.data : "", line.len);
		ac_buf_free(&line);
		if (!nl)
			break;
		start = end + 1;
	}
}

static ui_role role_of(const char *role)
{
	if (!strcmp(role, "user"))
		return UI_ROLE_USER;
	if (!strcmp(role, "assistant"))
		return UI_ROLE_ASSISTANT;
	if (!strcmp(role, "system"))
		return UI_ROLE_SYSTEM;
	if (!strcmp(role, "tool"))
		return UI_ROLE_TOOL;
	return UI_ROLE_OTHER;
}

static void conv_add_json(conv_builder *b, ui_conv_kind kind, ui_role role, const char *prefix,
			  const json_t *value)
{
	char *dump;

	if (json_is_string(value)) {
		conv_add_text(b, kind, role, prefix, json_string_value(value),
			      json_string_length(value));
		return;
	}
	dump = value ? json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	conv_add_text(b, kind, role, prefix, dump ? dump : "", dump ? strlen(dump) : 0);
	free(dump);
}

/* A tool result's content: a string, or blocks whose text is joined. */
static void conv_add_result(conv_builder *b, ui_role role, const char *id, const json_t *content)
{
	char prefix[300];

	snprintf(prefix, sizeof(prefix), "\xe2\x86\x90 result %.200s: ", id ? id : "?");
	if (json_is_array(content)) {
		json_t *wrap = json_pack("{s:O}", "content", (json_t *)content);
		ac_buf text = AC_BUF_INIT;

		if (wrap && ac_message_text(&text, wrap) == 0)
			conv_add_text(b, UI_CONV_TOOL_RESULT, role, prefix, text.data ? text.data : "",
				      text.len);
		ac_buf_free(&text);
		json_decref(wrap);
		return;
	}
	conv_add_json(b, UI_CONV_TOOL_RESULT, role, prefix, content);
}

static void conv_add_call(conv_builder *b, ui_role role, const char *name, const char *id,
			  const json_t *input)
{
	char prefix[400];

	snprintf(prefix, sizeof(prefix), "\xe2\x86\x92 call %.150s (%.150s) ", name ? name : "?",
		 id ? id : "?");
	conv_add_json(b, UI_CONV_TOOL_CALL, role, prefix, input);
}

static const char *str_field(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

static void conv_add_message(conv_builder *b, size_t index, const json_t *msg)
{
	const char *role_name = ac_message_role(msg);
	ui_role role = role_of(role_name);
	const json_t *content = json_object_get(msg, "content");
	const json_t *calls = json_object_get(msg, "tool_calls");
	char header[300];
	size_t i;
	json_t *block;

	snprintf(header, sizeof(header), "%.200s  #%zu", role_name, index + 1);
	conv_add(b, UI_CONV_ROLE, role, header, strlen(header));
	if (!json_is_object(msg)) {
		conv_add_json(b, UI_CONV_TEXT, role, NULL, msg);
		return;
	}
	if (role == UI_ROLE_TOOL) {
		const char *id = str_field(msg, "toolCallId");

		conv_add_result(b, role, id ? id : str_field(msg, "tool_call_id"), content);
	} else if (json_is_string(content)) {
		conv_add_text(b, UI_CONV_TEXT, role, NULL, json_string_value(content),
			      json_string_length(content));
	} else if (json_is_array(content)) {
		json_array_foreach(content, i, block) {
			const char *type = str_field(block, "type");

			if (type && !strcmp(type, "text") && json_is_string(json_object_get(block, "text")))
				conv_add_json(b, UI_CONV_TEXT, role, NULL, json_object_get(block, "text"));
			else if (type && !strcmp(type, "tool_use"))
				conv_add_call(b, role, str_field(block, "name"), str_field(block, "id"),
					      json_object_get(block, "input"));
			else if (type && !strcmp(type, "tool_result"))
				conv_add_result(b, role, str_field(block, "tool_use_id"),
						json_object_get(block, "content"));
			else
				conv_add_json(b, UI_CONV_TEXT, role, NULL, block);
		}
	} else if (content && !json_is_null(content)) {
		conv_add_json(b, UI_CONV_TEXT, role, NULL, content);
	}
	json_array_foreach(calls, i, block) {
		const json_t *fn = json_object_get(block, "function");
		const char *name = fn ? str_field(fn, "name") : str_field(block, "name");
		const json_t *args = fn ? json_object_get(fn, "arguments") : json_object_get(block, "input");

		conv_add_call(b, role, name, str_field(block, "id"), args);
	}
}

void ui_model_close_conversation(ui_model *m)
{
	for (size_t i = 0; i < m->n_conv; i++)
		sfree(m->conv[i].text);
	free(m->conv);
	m->conv = NULL;
	m->n_conv = 0;
	free(m->conv_session);
	sfree(m->conv_title);
	free(m->conv_error);
	m->conv_session = NULL;
	m->conv_title = NULL;
	m->conv_error = NULL;
}

int ui_model_set_conversation(ui_model *m, const char *id, const char *title,
			      const json_t *messages)
{
	conv_builder b = {m, 0, 0};
	size_t i;
	json_t *msg;

	ui_model_close_conversation(m);
	m->conv_session = strdup(id);
	m->conv_title = safe_str(title);
	json_array_foreach(messages, i, msg)
		conv_add_message(&b, i, msg);
	return m->conv_session ? b.failed : AC_ENOMEM;
}

void ui_model_free(ui_model *m)
{
	ui_model_clear_events(m);
	sessions_free(m->sessions, m->n_sessions);
	m->sessions = NULL;
	m->n_sessions = 0;
	ops_clear(m);
	free(m->ops);
	m->ops = NULL;
	ckpts_clear(m);
	ui_model_close_conversation(m);
	sfree(m->workspace);
	sfree(m->last_problem);
	free(m->polling);
	m->workspace = m->last_problem = m->polling = NULL;
}

/* ---- the source -------------------------------------------------------- */

struct ui_source {
	const ac_workspace *ws;
	ui_model *m;
	ac_journal_follow *follow;
	ac_session_index *index;
	ac_checkpoint_store *store;
	uint64_t ops_offset, ops_line;
	dev_t ops_dev;
	ino_t ops_ino;
	ac_buf scratch;
};

static void note_problem(ui_model *m, const char *path, const char *reason)
{
	char text[2600];

	snprintf(text, sizeof(text), "%.1500s: %.1000s", path ? path : "?", reason ? reason : "?");
	sfree(m->last_problem);
	m->last_problem = safe_str(text);
}

static void session_problem(const char *path, const char *reason, void *ctx)
{
	note_problem(((ui_source *)ctx)->m, path, reason);
}

static void ckpt_problem(const char *path, const char *reason, void *ctx)
{
	ui_source *src = ctx;

	src->m->ckpt_problems++;
	note_problem(src->m, path, reason);
}

static void op_problem(const char *path, uint64_t line, const char *reason, void *ctx)
{
	char where[1600];

	snprintf(where, sizeof(where), "%.1500s:%llu", path, (unsigned long long)line);
	note_problem(((ui_source *)ctx)->m, where, reason);
}

/* Decodes a string field of a scanned event into a NUL-terminated
 * borrowed string (src->scratch is reused; copy before the next call). */
static const char *field(ac_buf *scratch, const ac_json_span *f)
{
	size_t n = 0;

	ac_buf_clear(scratch);
	if (f->type != AC_JSON_STRING || ac_buf_reserve(scratch, f->len + 1) != 0)
		return "";
	ac_json_string_decode(scratch->data, &n, f);
	scratch->data[n] = '\0';
	scratch->len = n;
	/* A decoded \u0000 would end the C string early; show it instead. */
	for (size_t i = 0; i < n; i++)
		if (!scratch->data[i])
			scratch->data[i] = '\x01';
	return scratch->data;
}

static int on_event(const ac_scan_match *match, void *ctx)
{
	ui_source *src = ctx;
	char *parts[5];
	static const int which[5] = {AC_EV_ID, AC_EV_TIMESTAMP, AC_EV_AGENT, AC_EV_STATUS,
				     AC_EV_ACTION_TYPE};

	for (int i = 0; i < 5; i++) {
		const char *s = field(&src->scratch, &match->fields[which[i]]);

		parts[i] = strdup(s);
	}
	ui_model_add_event(src->m, parts[0], parts[1], parts[2], parts[3], parts[4],
			   field(&src->scratch, &match->fields[AC_EV_RESULT_MESSAGE]));
	for (int i = 0; i < 5; i++)
		free(parts[i]);
	return 0;
}

static unsigned read_journal(ui_source *src)
{
	ac_scan_stats stats = {0};
	bool restarted = false;
	uint64_t before = src->m->events_seen;

	/* A rotated or replaced journal goes on below what was shown, as
	 * tail -F does. */
	if (ac_journal_follow_read(src->follow, &restarted, &stats, on_event, src) < 0) {
		note_problem(src->m, src->ws->journal_path, ac_error_last());
		return UI_CHANGED_JOURNAL;
	}
	src->m->journal_skipped += stats.invalid;
	return src->m->events_seen != before || stats.invalid ? UI_CHANGED_JOURNAL : 0;
}

static unsigned read_sessions(ui_source *src)
{
	const ac_session_summary *const *list;
	size_t n = 0, parsed = 0;

	if (ac_session_index_refresh(src->index, session_problem, src, &parsed) != 0) {
		note_problem(src->m, src->ws->sessions_dir, ac_error_last());
		return UI_CHANGED_SESSIONS;
	}
	src->m->session_problems = ac_session_index_problems(src->index);
	list = ac_session_index_list(src->index, &n);
	if (ui_model_set_sessions(src->m, list, n) != 0)
		note_problem(src->m, src->ws->sessions_dir, "out of memory");
	return UI_CHANGED_SESSIONS;
}

static int ops_push(ui_model *m, const ac_op *op)
{
	ac_buf what = AC_BUF_INIT;
	ui_op *o;

	if (m->n_ops == m->cap_ops) {
		size_t cap = m->cap_ops ? m->cap_ops * 2 : 64;
		ui_op *grown = realloc(m->ops, cap * sizeof(*grown));

		if (!grown)
			return AC_ENOMEM;
		m->ops = grown;
		m->cap_ops = cap;
	}
	o = &m->ops[m->n_ops++];
	ac_oplog_summary(&what, op->details, 300);
	o->id = safe_str(op->id);
	o->timestamp = safe_str(op->timestamp);
	o->session = safe_str(op->session_id);
	o->type = safe_str(op->type);
	o->what = safe_dup(what.data, what.len);
	o->commit = safe_str(op->commit ? op->commit : "");
	o->reversible = op->commit != NULL;
	ac_buf_free(&what);
	return 0;
}

static unsigned read_ops(ui_source *src)
{
	ui_model *m = src->m;
	ac_op_list list = {0};
	struct stat st;

	if (stat(src->ws->operations_path, &st) != 0) {
		bool had = m->ops_present || m->n_ops;

		m->ops_present = false;
		ops_clear(m);
		src->ops_offset = 0;
		src->ops_line = 1;
		return had ? UI_CHANGED_OPS : 0;
	}
	m->ops_present = true;
	if (st.st_ino != src->ops_ino || st.st_dev != src->ops_dev ||
	    (uint64_t)st.st_size < src->ops_offset) {
		/* Replaced or truncated: read it again from the start. */
		ops_clear(m);
		m->ops_skipped = 0;
		src->ops_offset = 0;
		src->ops_line = 1;
		src->ops_dev = st.st_dev;
		src->ops_ino = st.st_ino;
	} else if ((uint64_t)st.st_size == src->ops_offset) {
		return 0;
	}
	if (ac_oplog_read(&list, src->ws->operations_path, src->ops_offset, src->ops_line,
			  op_problem, src) != 0) {
		note_problem(m, src->ws->operations_path, ac_error_last());
		return UI_CHANGED_OPS;
	}
	for (size_t i = 0; i < list.n; i++)
		if (ops_push(m, &list.ops[i]) != 0)
			break;
	m->ops_skipped += list.skipped;
	src->ops_offset = list.next_offset;
	src->ops_line = list.next_line;
	ac_op_list_free(&list);
	return UI_CHANGED_OPS;
}

int ui_source_load_checkpoints(ui_source *src, ui_model *m, const char *id)
{
	ac_checkpoint_filter filter = {id, true};
	json_t *list = NULL, *doc;
	size_t i;
	int rc = 0;
	char *path = NULL;
	struct stat st;

	ckpts_clear(m);
	m->ckpt_problems = 0;
	if (!id)
		return 0;
	m->ckpt_session = strdup(id);
	if (ac_session_id_check(id) != 0)
		return 0;
	if (asprintf(&path, "%s/%s", src->ws->checkpoints_dir, id) >= 0)
		m->ckpts_present = stat(path, &st) == 0;
	free(path);
	if (!m->ckpts_present)
		return 0;
	rc = ac_checkpoint_store_list(&list, src->store, &filter);
	if (rc != 0) {
		note_problem(m, src->ws->checkpoints_dir, ac_error_last());
		return rc;
	}
	m->ckpts = calloc(json_array_size(list) + 1, sizeof(*m->ckpts));
	if (!m->ckpts) {
		json_decref(list);
		return AC_ENOMEM;
	}
	json_array_foreach(list, i, doc) {
		ui_checkpoint *c = &m->ckpts[m->n_ckpts++];

		c->id = safe_str(ac_checkpoint_id(doc));
		c->node = safe_str(ac_checkpoint_node(doc));
		c->created = safe_str(json_string_value(json_object_get(doc, "createdAt")));
		c->version = ac_checkpoint_version(doc);
		c->messages = json_array_size(ac_checkpoint_history(doc));
		c->tombstone = ac_checkpoint_is_tombstone(doc);
	}
	json_decref(list);
	return 0;
}

int ui_source_open_conversation(ui_source *src, ui_model *m, const char *id)
{
	ac_session *s = NULL;
	char title[600];
	int rc;

	rc = ac_session_load(&s, src->ws->sessions_dir, id);
	if (rc != 0) {
		char *why = strdup(ac_error_last());

		ui_model_close_conversation(m);
		m->conv_session = strdup(id);
		m->conv_title = safe_str(id);
		m->conv_error = why ? safe_str(why) : NULL;
		if (m->conv_error == empty_string)
			m->conv_error = NULL;
		free(why);
		return rc;
	}
	snprintf(title, sizeof(title), "%.100s  %.12s  %.400s", ac_session_id(s), ac_session_status(s),
		 ac_session_task(s));
	rc = ui_model_set_conversation(m, id, title, ac_session_messages(s));
	ac_session_free(s);
	return rc;
}

int ui_source_new(ui_source **out, ui_model *m, const ac_workspace *ws)
{
	ui_source *src = calloc(1, sizeof(*src));
	int rc;

	*out = NULL;
	if (!src)
		return AC_ENOMEM;
	src->ws = ws;
	src->m = m;
	src->ops_line = 1;
	if ((rc = ac_journal_follow_new(&src->follow, ws->journal_path, UI_MODEL_EVENTS,
					&ws->schema)) != 0 ||
	    (rc = ac_session_index_new(&src->index, ws->sessions_dir)) != 0 ||
	    (rc = ac_checkpoint_store_file_new(&src->store, ws->checkpoints_dir)) != 0) {
		ui_source_free(src);
		return rc;
	}
	ac_checkpoint_store_set_problem(src->store, ckpt_problem, src);
	if (!m->workspace)
		m->workspace = safe_str(ws->root);
	ui_source_update(src, m, ~0u);
	*out = src;
	return 0;
}

void ui_source_free(ui_source *src)
{
	if (!src)
		return;
	ac_journal_follow_free(src->follow);
	ac_session_index_free(src->index);
	ac_checkpoint_store_free(src->store);
	ac_buf_free(&src->scratch);
	free(src);
}

unsigned ui_source_update(ui_source *src, ui_model *m, unsigned mask)
{
	unsigned changed = 0;

	src->m = m;
	if (mask & AC_WATCH_RESCAN)
		mask = ~0u;
	if (mask & AC_WATCH_JOURNAL)
		changed |= read_journal(src);
	if (mask & AC_WATCH_SESSIONS) {
		changed |= read_sessions(src);
		if (m->conv_session && !m->conv_error) {
			char *id = strdup(m->conv_session);

			if (id && ui_source_open_conversation(src, m, id) == 0)
				changed |= UI_CHANGED_CONVERSATION;
			free(id);
		}
	}
	if (mask & AC_WATCH_OPERATIONS)
		changed |= read_ops(src);
	if ((mask & AC_WATCH_CHECKPOINTS) && m->ckpt_session) {
		char *id = strdup(m->ckpt_session);

		ui_source_load_checkpoints(src, m, id);
		free(id);
		changed |= UI_CHANGED_CHECKPOINTS;
	}
	return changed;
}
