/* The dashboard's model and the readers that fill it. */
#include "model.h"

#include "ac_backend.h"
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

static void messages_clear(ui_model *m)
{
	for (size_t i = 0; i < m->n_conv; i++)
		sfree(m->conv[i].text);
	free(m->conv);
	m->conv = NULL;
	m->n_conv = 0;
	sfree(m->conv_title);
	free(m->conv_error);
	m->conv_title = NULL;
	m->conv_error = NULL;
}

/* ---- the conversation's store tabs --------------------------------------- */

static void store_list_clear(ui_store_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		sfree(l->items[i].scope);
		sfree(l->items[i].owner);
		sfree(l->items[i].name);
		free(l->items[i].raw_owner);
		free(l->items[i].raw_name);
	}
	free(l->items);
	sfree(l->error);
	memset(l, 0, sizeof(*l));
}

static void trace_clear(ui_model *m)
{
	for (size_t i = 0; i < m->n_trace; i++) {
		sfree(m->trace[i].at);
		sfree(m->trace[i].kind);
		sfree(m->trace[i].summary);
	}
	free(m->trace);
	sfree(m->trace_error);
	m->trace = NULL;
	m->trace_error = NULL;
	m->n_trace = m->cap_trace = m->trace_skipped = 0;
	m->trace_seq = 0;
	m->trace_loaded = false;
}

void ui_model_close_document(ui_model *m)
{
	for (size_t i = 0; i < m->n_doc_lines; i++)
		sfree(m->doc_lines[i]);
	free(m->doc_lines);
	sfree(m->doc_title);
	sfree(m->doc_error);
	m->doc_lines = NULL;
	m->doc_title = m->doc_error = NULL;
	m->n_doc_lines = m->doc_bytes = 0;
}

static void store_clear(ui_model *m)
{
	store_list_clear(&m->memos);
	store_list_clear(&m->artifacts);
	trace_clear(m);
	ui_model_close_document(m);
	sfree(m->conv_tenant);
	sfree(m->store_note);
	m->conv_tenant = m->store_note = NULL;
}

/* What kind of record: the first of data's type, kind, event, name (as
 * `agentctl trace show` says it). */
static const char *record_kind(const json_t *data)
{
	static const char *const keys[] = {"type", "kind", "event", "name"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = json_string_value(json_object_get(data, keys[i]));

		if (v && *v)
			return v;
	}
	return "-";
}

/* Longest summary kept, in bytes: a row shows less. */
#define TRACE_SUMMARY_MAX 400

int ui_model_add_trace(ui_model *m, const json_t *records)
{
	size_t i;
	json_t *record;

	json_array_foreach(records, i, record) {
		json_int_t seq = json_integer_value(json_object_get(record, "seq"));
		const json_t *data = json_object_get(record, "data");
		ui_trace_entry *e;
		char *dump;
		size_t len;

		if (seq <= 0 || (uint64_t)seq <= m->trace_seq)
			continue;
		if (m->n_trace == m->cap_trace) {
			size_t cap = m->cap_trace ? m->cap_trace * 2 : 64;
			ui_trace_entry *grown = realloc(m->trace, cap * sizeof(*grown));

			if (!grown)
				return AC_ENOMEM;
			m->trace = grown;
			m->cap_trace = cap;
		}
		e = &m->trace[m->n_trace++];
		e->seq = (uint64_t)seq;
		e->at = safe_str(json_string_value(json_object_get(record, "at")));
		e->kind = safe_str(record_kind(data));
		dump = data ? json_dumps(data, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY)
			    : NULL;
		len = dump ? strlen(dump) : 0;
		if (len > TRACE_SUMMARY_MAX) {
			len = TRACE_SUMMARY_MAX;
			while (len && ((unsigned char)dump[len] & 0xC0) == 0x80)
				len--; /* not inside a character */
		}
		e->summary = safe_dup(dump ? dump : "", len);
		free(dump);
		m->trace_seq = (uint64_t)seq;
	}
	return 0;
}

/* Tabs become spaces (to the next multiple of 4 bytes): a sanitised tab
 * would show as ^I. */
static char *doc_line(const char *text, size_t len)
{
	ac_buf line = AC_BUF_INIT;
	char *out;

	for (size_t i = 0; i < len; i++) {
		if (text[i] != '\t') {
			ac_buf_putc(&line, text[i]);
			continue;
		}
		do
			ac_buf_putc(&line, ' ');
		while (line.len % 4);
	}
	out = safe_dup(line.data ? line.data : "", line.len);
	ac_buf_free(&line);
	return out;
}

int ui_model_set_document(ui_model *m, ui_tab tab, const char *title, const char *text,
			  size_t len)
{
	size_t n = 1;

	ui_model_close_document(m);
	if (!text)
		text = "", len = 0;
	m->doc_tab = tab;
	m->doc_title = safe_str(title);
	m->doc_bytes = len;
	if (len && text[len - 1] == '\n')
		len--; /* a final newline ends the last line; it opens none */
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	if (!(m->doc_lines = calloc(n, sizeof(*m->doc_lines))))
		return AC_ENOMEM;
	for (size_t start = 0; m->n_doc_lines < n;) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;

		m->doc_lines[m->n_doc_lines++] = doc_line(text + start, end - start);
		start = end + 1;
	}
	return 0;
}

void ui_model_close_conversation(ui_model *m)
{
	messages_clear(m);
	store_clear(m);
	free(m->conv_session);
	m->conv_session = NULL;
}

int ui_model_set_conversation(ui_model *m, const char *id, const char *title,
			      const json_t *messages)
{
	conv_builder b = {m, 0, 0};
	size_t i;
	json_t *msg;

	/* The same session again (its file changed): its store tabs stay. */
	if (m->conv_session && !strcmp(m->conv_session, id)) {
		messages_clear(m);
	} else {
		ui_model_close_conversation(m);
		m->conv_session = strdup(id);
	}
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
	ac_backend backend;      /* the file-system backend on <root>/.agent */
	char *tenant, *user, *agent; /* the open conversation's, as stored, or NULL */
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

static char *meta_dup(const ac_session *s, const char *key)
{
	const char *v = json_string_value(json_object_get(
		json_object_get(ac_session_root(s), "metadata"), key));

	return v ? strdup(v) : NULL;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Takes the tenant, user and agent (allocated) of the conversation just
 * loaded; the store tabs start again when the tenant is another one. */
static void set_owner(ui_source *src, ui_model *m, bool same_session, char *tenant, char *user,
		      char *agent)
{
	bool keep = same_session && tenant && same_str(tenant, src->tenant);

	free(src->user);
	free(src->agent);
	src->user = user;
	src->agent = agent;
	if (keep) {
		free(tenant);
		return;
	}
	store_clear(m);
	free(src->tenant);
	src->tenant = NULL;
	if (!tenant) {
		m->store_note = safe_str("this session has no metadata.tenantId: memory documents, "
					 "artifacts and traces are kept per tenant, so it has none");
	} else if (ac_backend_id_check("tenant", tenant) != 0) {
		char note[1200];

		snprintf(note, sizeof(note), "metadata.tenantId is not a usable tenant id: %.1000s",
			 ac_error_last());
		m->store_note = safe_str(note);
		m->conv_tenant = safe_str(tenant);
		free(tenant);
	} else {
		m->conv_tenant = safe_str(tenant);
		src->tenant = tenant;
	}
}

const char *ui_source_tenant(const ui_source *src)
{
	return src->tenant;
}

int ui_source_open_conversation(ui_source *src, ui_model *m, const char *id)
{
	ac_session *s = NULL;
	char title[600];
	bool same = m->conv_session && !strcmp(m->conv_session, id);
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
		free(src->tenant);
		src->tenant = NULL;
		return rc;
	}
	snprintf(title, sizeof(title), "%.100s  %.12s  %.400s", ac_session_id(s), ac_session_status(s),
		 ac_session_task(s));
	rc = ui_model_set_conversation(m, id, title, ac_session_messages(s));
	set_owner(src, m, same, meta_dup(s, "tenantId"), meta_dup(s, "userId"),
		  meta_dup(s, "agentId"));
	ac_session_free(s);
	return rc;
}

/* ---- the store tabs: through the backend interface only ------------------ */

static int store_push(ui_store_list *l, size_t *cap, const char *scope, const char *owner,
		      const char *name)
{
	ui_store_item *it;

	if (l->n == *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 16;
		ui_store_item *grown = realloc(l->items, grown_cap * sizeof(*grown));

		if (!grown)
			return AC_ENOMEM;
		l->items = grown;
		*cap = grown_cap;
	}
	it = &l->items[l->n];
	if (!(it->raw_owner = strdup(owner)) || !(it->raw_name = strdup(name))) {
		free(it->raw_owner);
		return AC_ENOMEM;
	}
	it->scope = safe_str(scope);
	it->owner = safe_str(owner);
	it->name = safe_str(name);
	l->n++;
	return 0;
}

/* A listing is done: fresh replaces *l, or when rc says it failed, *l is
 * kept with the error to show. Returns rc. */
static int store_list_settle(ui_store_list *l, ui_store_list *fresh, int rc)
{
	if (rc) {
		store_list_clear(fresh);
		sfree(l->error);
		l->error = safe_str(ac_error_last());
	} else {
		store_list_clear(l);
		*l = *fresh;
	}
	l->loaded = true;
	return rc;
}

static int load_memos(ui_source *src, ui_model *m)
{
	const ac_backend *b = &src->backend;
	const char *const scopes[] = {"session", "user", "agent"};
	const char *const owners[] = {m->conv_session, src->user, src->agent};
	ui_store_list fresh = {0};
	size_t cap = 0;
	int rc = 0;

	for (size_t s = 0; s < 3 && !rc; s++) {
		char **names = NULL;
		size_t n = 0;

		/* A session names its user and agent; without one, that scope
		 * has no owner to look under. */
		if (!owners[s] || ac_backend_id_check("owner", owners[s]) != 0)
			continue;
		if ((rc = b->memo.list(b->impl, &names, &n, src->tenant, owners[s], scopes[s])))
			break;
		for (size_t i = 0; i < n && !rc; i++)
			rc = store_push(&fresh, &cap, scopes[s], owners[s], names[i]);
		if (rc)
			ac_error_set(rc, "out of memory");
		ac_backend_names_free(names, n);
	}
	return store_list_settle(&m->memos, &fresh, rc);
}

static int load_artifacts(ui_source *src, ui_model *m)
{
	const ac_backend *b = &src->backend;
	ui_store_list fresh = {0};
	char **ids = NULL;
	size_t n = 0, cap = 0;
	int rc;

	if (!(rc = b->artifact.list(b->impl, &ids, &n, src->tenant, m->conv_session)))
		for (size_t i = 0; i < n && !rc; i++)
			if ((rc = store_push(&fresh, &cap, "", m->conv_session, ids[i])))
				ac_error_set(rc, "out of memory");
	ac_backend_names_free(ids, n);
	return store_list_settle(&m->artifacts, &fresh, rc);
}

/* Reads the records after the last seq seen. */
static unsigned read_trace(ui_source *src, ui_model *m)
{
	const ac_backend *b = &src->backend;
	json_t *records = NULL;
	size_t skipped = 0, before = m->n_trace;
	bool had_error = m->trace_error != NULL;
	int rc;

	if (!src->tenant || !m->conv_session)
		return 0;
	rc = b->trace.load(b->impl, &records, &skipped, src->tenant, m->conv_session, m->trace_seq);
	m->trace_loaded = true;
	sfree(m->trace_error);
	m->trace_error = NULL;
	if (rc) {
		m->trace_error = safe_str(ac_error_last());
		return UI_CHANGED_TRACE;
	}
	if (ui_model_add_trace(m, records) != 0)
		m->trace_error = safe_str("out of memory");
	json_decref(records);
	if (skipped != m->trace_skipped || m->n_trace != before || had_error || m->trace_error) {
		m->trace_skipped = skipped;
		return UI_CHANGED_TRACE;
	}
	return 0;
}

int ui_source_load_tab(ui_source *src, ui_model *m, ui_tab tab)
{
	if (!m->conv_session || !src->tenant)
		return 0;
	switch (tab) {
	case UI_TAB_MEMORY: return load_memos(src, m);
	case UI_TAB_ARTIFACTS: return load_artifacts(src, m);
	case UI_TAB_TRACE:
		read_trace(src, m);
		return m->trace_error ? AC_EIO : 0;
	default: return 0;
	}
}

int ui_source_open_item(ui_source *src, ui_model *m, ui_tab tab, size_t i)
{
	const ac_backend *b = &src->backend;
	const ui_store_list *l = tab == UI_TAB_MEMORY ? &m->memos : &m->artifacts;
	const ui_store_item *it;
	char *text = NULL, title[1400];
	size_t len = 0;
	int rc;

	if (!src->tenant || (tab != UI_TAB_MEMORY && tab != UI_TAB_ARTIFACTS) || i >= l->n)
		return AC_EINVAL;
	it = &l->items[i];
	if (tab == UI_TAB_MEMORY) {
		snprintf(title, sizeof(title), "memo %s/%.400s/%.400s", it->scope, it->raw_owner,
			 it->raw_name);
		rc = b->memo.read(b->impl, &text, &len, src->tenant, it->raw_owner, it->scope,
				  it->raw_name);
	} else {
		snprintf(title, sizeof(title), "artifact %.400s", it->raw_name);
		rc = b->artifact.read(b->impl, &text, &len, src->tenant, m->conv_session, it->raw_name);
	}
	if (rc) {
		ui_model_set_document(m, tab, title, "", 0);
		m->doc_error = safe_str(ac_error_last());
	} else {
		rc = ui_model_set_document(m, tab, title, text, len);
	}
	free(text);
	return rc;
}

/* The same backend `agentctl memo|artifact|trace` use: <root>/.agent. */
static int open_backend(ui_source *src)
{
	ac_buf data_dir = AC_BUF_INIT;
	ac_backend_fs_options opts = {0};
	int rc;

	if (ac_buf_printf(&data_dir, "%s/.agent", src->ws->root))
		return ac_error_set(AC_ENOMEM, "out of memory");
	opts.sessions_dir = src->ws->sessions_dir;
	opts.data_dir = data_dir.data;
	rc = ac_backend_fs_init(&src->backend, &opts);
	ac_buf_free(&data_dir);
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
	if ((rc = open_backend(src)) != 0 ||
	    (rc = ac_journal_follow_new(&src->follow, ws->journal_path, UI_MODEL_EVENTS,
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
	ac_backend_close(&src->backend);
	free(src->tenant);
	free(src->user);
	free(src->agent);
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
	if ((mask & AC_WATCH_TRACES) && m->trace_loaded)
		changed |= read_trace(src, m);
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
