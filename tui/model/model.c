/* The dashboard's model and the readers that fill it. */
#include "model.h"

#include "ac_backend.h"
#include "ac_checkpoint.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_journal_follow.h"
#include "ac_messages.h"
#include "ac_oplog.h"
#include "ac_oplog_intent.h"
#include "ac_session.h"
#include "ac_time.h"
#include "ac_text.h"
#include "ac_watch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Strings that could not be allocated point here, so nothing is NULL. */
static char empty_string[1];

char *ui_safe_dup(const char *s, size_t len)
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

char *ui_safe_str(const char *s)
{
	return ui_safe_dup(s, s ? strlen(s) : 0);
}

char *ui_raw_str(const char *s)
{
	char *out = s && *s ? strdup(s) : NULL;

	return out ? out : empty_string;
}

void ui_sfree(char *s)
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

static void show_action(ui_model *m, bool error, bool logged, const char *fmt, va_list ap)
{
	char raw[8192];
	ac_buf b = AC_BUF_INIT;

	vsnprintf(raw, sizeof(raw), fmt, ap);
	ac_text_sanitize(&b, raw, strlen(raw));
	snprintf(m->action, sizeof(m->action), "%s", b.data ? b.data : "");
	m->action_cut = b.len >= sizeof(m->action);
	ac_buf_free(&b);
	m->action_error = error;
	m->action_ms = ac_time_now_ms();
	if (logged)
		ui_model_log(m, error, raw);
}

bool ui_model_action_expire(ui_model *m, int64_t now_ms)
{
	if (!m->action[0] ||
	    now_ms - m->action_ms < (m->action_error ? UI_ACTION_ERROR_SHOWN_MS : UI_ACTION_SHOWN_MS))
		return false;
	m->action[0] = '\0';
	m->action_cut = false;
	return true;
}

void ui_model_set_action(ui_model *m, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	show_action(m, error, true, fmt, ap);
	va_end(ap);
}

void ui_model_set_result(ui_model *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	show_action(m, false, false, fmt, ap);
	va_end(ap);
}

/* ---- the dialog's text ------------------------------------------------- */

/* fmt's text (printf, at most 1023 bytes), sanitised; caller frees. */
static char *safe_format(const char *fmt, va_list ap)
{
	char raw[1024];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	return ui_safe_str(raw);
}

void ui_model_dialog_title(ui_model *m, const char *fmt, ...)
{
	va_list ap;

	ui_model_close_dialog(m);
	va_start(ap, fmt);
	m->dialog_title = safe_format(fmt, ap);
	va_end(ap);
}

void ui_model_dialog_line(ui_model *m, const char *fmt, ...)
{
	va_list ap;

	if (m->n_dialog_lines == m->cap_dialog_lines) {
		size_t cap = m->cap_dialog_lines ? m->cap_dialog_lines * 2 : 16;
		char **grown = realloc(m->dialog_lines, cap * sizeof(*grown));

		if (!grown)
			return;
		m->dialog_lines = grown;
		m->cap_dialog_lines = cap;
	}
	va_start(ap, fmt);
	m->dialog_lines[m->n_dialog_lines] = safe_format(fmt, ap);
	va_end(ap);
	if (m->dialog_lines[m->n_dialog_lines])
		m->n_dialog_lines++;
}

void ui_model_dialog_keys(ui_model *m, const char *fmt, ...)
{
	va_list ap;

	ui_sfree(m->dialog_keys);
	va_start(ap, fmt);
	m->dialog_keys = safe_format(fmt, ap);
	va_end(ap);
}

void ui_model_close_dialog(ui_model *m)
{
	for (size_t i = 0; i < m->n_dialog_lines; i++)
		ui_sfree(m->dialog_lines[i]);
	free(m->dialog_lines);
	ui_sfree(m->dialog_title);
	ui_sfree(m->dialog_keys);
	m->dialog_title = m->dialog_keys = NULL;
	m->dialog_lines = NULL;
	m->n_dialog_lines = m->cap_dialog_lines = 0;
}

/* ---- journal tail ------------------------------------------------------ */

const ui_event *ui_model_event(const ui_model *m, size_t i)
{
	return &m->events[(m->events_start + i) % UI_MODEL_EVENTS];
}

static void event_free(ui_event *e)
{
	ui_sfree(e->id);
	ui_sfree(e->timestamp);
	ui_sfree(e->agent);
	ui_sfree(e->status);
	ui_sfree(e->action);
	ui_sfree(e->message);
	if (e->session)
		ui_sfree(e->session);
	if (e->parent)
		ui_sfree(e->parent);
	if (e->invalid)
		ui_sfree(e->invalid);
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
	e->id = ui_safe_str(id);
	e->timestamp = ui_safe_str(timestamp);
	e->agent = ui_safe_str(agent);
	e->status = ui_safe_str(status);
	e->action = ui_safe_str(action);
	e->message = ui_safe_str(message);
	e->st = ui_event_status_of(status);
	e->session = e->parent = NULL;
	e->invalid = NULL;
	m->events_seen++;
}

void ui_model_event_invalid(ui_model *m, const char *reason, const char *raw, size_t len)
{
	ui_event *e;

	if (!m->n_events)
		return;
	e = &m->events[(m->events_start + m->n_events - 1) % UI_MODEL_EVENTS];
	e->invalid = ui_invalid_text(reason, raw, len);
}

void ui_model_event_link(ui_model *m, const char *session, const char *parent)
{
	ui_event *e;

	if (!m->n_events)
		return;
	e = &m->events[(m->events_start + m->n_events - 1) % UI_MODEL_EVENTS];
	e->session = session && *session ? ui_safe_str(session) : NULL;
	e->parent = parent && *parent ? ui_safe_str(parent) : NULL;
}

void ui_model_clear_events(ui_model *m)
{
	for (size_t i = 0; i < m->n_events; i++)
		event_free(&m->events[(m->events_start + i) % UI_MODEL_EVENTS]);
	m->events_start = m->n_events = 0;
	/* The count starts again with them: the file's events read before a
	 * database replaced it (the same events, migrated) are not counted
	 * twice, nor its bad lines. */
	m->events_seen = m->journal_skipped = 0;
}

/* ---- operations and checkpoints ---------------------------------------- */

bool ui_model_set_intent(ui_model *m, const ac_oplog_intent *intent)
{
	ac_buf line = AC_BUF_INIT;
	bool changed;

	if (intent) {
		ac_buf_printf(&line, "%s ", ac_oplog_intent_running(intent) ? "running:" :
			      "INTERRUPTED:");
		ac_oplog_intent_describe(&line, intent);
	}
	changed = !line.data != !m->intent_line ||
		  (line.data && m->intent_line && strcmp(m->intent_line, line.data));
	ui_sfree(m->intent_line);
	free(m->intent_op);
	m->intent_line = line.data ? ui_safe_str(line.data) : NULL;
	m->intent_op = intent ? strdup(intent->op_id) : NULL;
	m->intent_revert = intent && intent->revert;
	m->intent_running = intent && ac_oplog_intent_running(intent);
	ac_buf_free(&line);
	return changed;
}

void ui_model_clear_ops(ui_model *m)
{
	for (size_t i = 0; i < m->n_ops; i++) {
		ui_op *o = &m->ops[i];

		ui_sfree(o->id);
		ui_sfree(o->raw_id);
		ui_sfree(o->timestamp);
		ui_sfree(o->session);
		ui_sfree(o->type);
		ui_sfree(o->what);
		ui_sfree(o->commit);
		ui_sfree(o->agent);
		ui_sfree(o->note);
	}
	m->n_ops = 0;
}

void ui_model_clear_checkpoints(ui_model *m)
{
	for (size_t i = 0; i < m->n_ckpts; i++) {
		ui_sfree(m->ckpts[i].id);
		ui_sfree(m->ckpts[i].raw_id);
		ui_sfree(m->ckpts[i].node);
		ui_sfree(m->ckpts[i].created);
	}
	free(m->ckpts);
	m->ckpts = NULL;
	m->n_ckpts = 0;
	free(m->ckpt_session);
	m->ckpt_session = NULL;
	if (m->ckpt_session_shown)
		ui_sfree(m->ckpt_session_shown);
	m->ckpt_session_shown = NULL;
	m->ckpts_present = false;
}

/* ---- conversation ------------------------------------------------------ */

typedef struct {
	ui_model *m;
	int failed;
} conv_builder;

static void conv_add(conv_builder *b, ui_conv_kind kind, ui_role role, const char *text,
		     size_t len)
{
	ui_conv_line *l;

	if (b->failed)
		return;
	if (b->m->n_conv == b->m->cap_conv) {
		size_t cap = b->m->cap_conv ? b->m->cap_conv * 2 : 64;
		ui_conv_line *grown = realloc(b->m->conv, cap * sizeof(*grown));

		if (!grown) {
			b->failed = AC_ENOMEM;
			return;
		}
		b->m->conv = grown;
		b->m->cap_conv = cap;
	}
	l = &b->m->conv[b->m->n_conv++];
	l->kind = kind;
	l->role = role;
	l->text = ui_safe_dup(text, len);
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
	size_t dump_len = 0;

	if (json_is_string(value)) {
		conv_add_text(b, kind, role, prefix, json_string_value(value),
			      json_string_length(value));
		return;
	}
	dump = value ? ac_json_exact_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY, &dump_len) : NULL;
	conv_add_text(b, kind, role, prefix, dump ? dump : "", dump ? dump_len : 0);
	free(dump);
}

/* A tool's name or call id into out (size bytes, at least 3): its bytes
 * whole, a \u0000 as "^@" (the prefix is a C string: cut there,
 * "read\u0000_evil" read "read"), "?" when value is not a string. */
static void name_of(char *out, size_t size, const json_t *value)
{
	const char *s = json_string_value(value);
	size_t len = json_string_length(value), at = 0;

	if (!s) {
		s = "?";
		len = 1;
	}
	for (size_t i = 0; i < len && at + 2 < size; i++) {
		if (s[i]) {
			out[at++] = s[i];
		} else {
			out[at++] = '^';
			out[at++] = '@';
		}
	}
	out[at] = '\0';
}

/* A tool result's content: a string, or blocks whose text is joined. */
static void conv_add_result(conv_builder *b, ui_role role, const json_t *id_value,
			    const json_t *content)
{
	char prefix[300], id[201];

	name_of(id, sizeof(id), id_value);
	snprintf(prefix, sizeof(prefix), "\xe2\x86\x90 result %s: ", id);
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

static void conv_add_call(conv_builder *b, ui_role role, const json_t *name_value,
			  const json_t *id_value, const json_t *input)
{
	char prefix[400], name[151], id[151];

	name_of(name, sizeof(name), name_value);
	name_of(id, sizeof(id), id_value);
	snprintf(prefix, sizeof(prefix), "\xe2\x86\x92 call %s (%s) ", name, id);
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
		const json_t *id = json_object_get(msg, "toolCallId");

		conv_add_result(b, role, json_is_string(id) ? id : json_object_get(msg, "tool_call_id"),
				content);
	} else if (json_is_string(content)) {
		conv_add_text(b, UI_CONV_TEXT, role, NULL, json_string_value(content),
			      json_string_length(content));
	} else if (json_is_array(content)) {
		json_array_foreach(content, i, block) {
			const char *type = str_field(block, "type");

			if (type && !strcmp(type, "text") && json_is_string(json_object_get(block, "text")))
				conv_add_json(b, UI_CONV_TEXT, role, NULL, json_object_get(block, "text"));
			else if (type && !strcmp(type, "tool_use"))
				conv_add_call(b, role, json_object_get(block, "name"),
					      json_object_get(block, "id"), json_object_get(block, "input"));
			else if (type && !strcmp(type, "tool_result"))
				conv_add_result(b, role, json_object_get(block, "tool_use_id"),
						json_object_get(block, "content"));
			else if (type && !strcmp(type, "thinking") &&
				 json_is_string(json_object_get(block, "thinking")))
				/* Claude's extended thinking: its text, marked, not the
				 * block's JSON (its signature is noise to a reader). */
				conv_add_json(b, UI_CONV_TEXT, role, "(thinking) ",
					      json_object_get(block, "thinking"));
			else
				conv_add_json(b, UI_CONV_TEXT, role, NULL, block);
		}
	} else if (content && !json_is_null(content)) {
		conv_add_json(b, UI_CONV_TEXT, role, NULL, content);
	}
	json_array_foreach(calls, i, block) {
		const json_t *fn = json_object_get(block, "function");
		const json_t *name = json_object_get(fn ? fn : block, "name");
		const json_t *args = fn ? json_object_get(fn, "arguments") : json_object_get(block, "input");

		conv_add_call(b, role, name, json_object_get(block, "id"), args);
	}
}

static void messages_clear(ui_model *m)
{
	for (size_t i = 0; i < m->n_conv; i++)
		ui_sfree(m->conv[i].text);
	free(m->conv);
	m->conv = NULL;
	m->n_conv = m->cap_conv = m->n_conv_messages = 0;
	m->conv_gen++;
	ui_sfree(m->conv_title);
	free(m->conv_error);
	ui_sfree(m->conv_stale);
	m->conv_title = NULL;
	m->conv_error = NULL;
	m->conv_stale = NULL;
	ui_model_set_usage(m, NULL);
}

/* ---- the conversation's store tabs --------------------------------------- */

void ui_store_list_clear(ui_store_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		ui_sfree(l->items[i].scope);
		ui_sfree(l->items[i].owner);
		ui_sfree(l->items[i].name);
		free(l->items[i].raw_owner);
		free(l->items[i].raw_name);
	}
	free(l->items);
	ui_sfree(l->error);
	memset(l, 0, sizeof(*l));
}

static void trace_clear(ui_model *m)
{
	for (size_t i = 0; i < m->n_trace; i++) {
		ui_sfree(m->trace[i].at);
		ui_sfree(m->trace[i].kind);
		ui_sfree(m->trace[i].summary);
	}
	free(m->trace);
	ui_sfree(m->trace_error);
	m->trace = NULL;
	m->trace_error = NULL;
	m->n_trace = m->cap_trace = m->trace_skipped = 0;
	m->trace_seq = 0;
	m->trace_loaded = false;
}

void ui_model_close_document(ui_model *m)
{
	for (size_t i = 0; i < m->n_doc_lines; i++)
		ui_sfree(m->doc_lines[i]);
	free(m->doc_lines);
	ui_sfree(m->doc_title);
	ui_sfree(m->doc_error);
	m->doc_lines = NULL;
	m->doc_title = m->doc_error = NULL;
	m->n_doc_lines = m->doc_bytes = 0;
}

void ui_model_clear_store(ui_model *m)
{
	ui_store_list_clear(&m->memos);
	ui_store_list_clear(&m->artifacts);
	trace_clear(m);
	ui_model_close_document(m);
	ui_sfree(m->conv_tenant);
	ui_sfree(m->store_note);
	m->conv_tenant = m->store_note = NULL;
}

/* What kind of record: the first of data's type, kind, event, name (as
 * `agentctl trace show` says it). */
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
		e->at = ui_safe_str(json_string_value(json_object_get(record, "at")));
		e->kind = ui_safe_str(ac_backend_trace_kind(data));
		dump = data ? json_dumps(data, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY)
			    : NULL;
		len = dump ? strlen(dump) : 0;
		if (len > TRACE_SUMMARY_MAX) {
			len = TRACE_SUMMARY_MAX;
			while (len && ((unsigned char)dump[len] & 0xC0) == 0x80)
				len--; /* not inside a character */
		}
		e->summary = ui_safe_dup(dump ? dump : "", len);
		free(dump);
		m->trace_seq = (uint64_t)seq;
	}
	return 0;
}

/* Tabs become spaces (to the next multiple of 4 bytes): a sanitised tab
 * would show as ^I. */
char *ui_safe_line(const char *text, size_t len)
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
	out = ui_safe_dup(line.data ? line.data : "", line.len);
	ac_buf_free(&line);
	return out;
}

char *ui_invalid_text(const char *reason, const char *raw, size_t len)
{
	ac_buf text = AC_BUF_INIT;
	char *out;

	ac_buf_printf(&text, "%s | ", reason);
	ac_buf_append(&text, raw, len);
	out = ui_safe_dup(text.data ? text.data : "", text.len);
	ac_buf_free(&text);
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
	m->doc_title = ui_safe_str(title);
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

		m->doc_lines[m->n_doc_lines++] = ui_safe_line(text + start, end - start);
		start = end + 1;
	}
	return 0;
}

void ui_model_close_conversation(ui_model *m)
{
	messages_clear(m);
	ui_model_clear_store(m);
	free(m->conv_session);
	m->conv_session = NULL;
}

int ui_model_set_conversation(ui_model *m, const char *id, const char *title,
			      const json_t *messages)
{
	/* The same session again (its file changed): its store tabs stay. */
	if (m->conv_session && !strcmp(m->conv_session, id)) {
		messages_clear(m);
	} else {
		ui_model_close_conversation(m);
		m->conv_session = strdup(id);
	}
	if (!m->conv_session)
		return AC_ENOMEM;
	return ui_model_append_conversation(m, title, messages);
}

int ui_model_append_conversation(ui_model *m, const char *title, const json_t *messages)
{
	conv_builder b = {m, 0};
	size_t i;
	json_t *msg;

	if (!m->conv_session)
		return AC_EINVAL;
	ui_sfree(m->conv_title);
	m->conv_title = ui_safe_str(title);
	json_array_foreach(messages, i, msg)
		conv_add_message(&b, m->n_conv_messages + i, msg);
	m->n_conv_messages += json_array_size(messages);
	return b.failed;
}

void ui_model_free(ui_model *m)
{
	ui_model_clear_events(m);
	ui_model_clear_sessions(m);
	ui_model_clear_ops(m);
	free(m->ops);
	m->ops = NULL;
	ui_model_set_intent(m, NULL);
	ui_model_clear_checkpoints(m);
	ui_model_close_conversation(m);
	ui_model_csearch_reset(m, NULL);
	ui_model_close_dialog(m);
	ui_model_viewer_close(m);
	ui_model_close_patch(m);
	ui_sfree(m->workspace);
	ui_sfree(m->store_where);
	m->store_where = NULL;
	ui_sfree(m->last_problem);
	free(m->polling);
	m->workspace = m->last_problem = m->polling = NULL;
	ui_sfree(m->journal_error);
	m->journal_error = NULL;
	ui_model_log_free(m);
	ui_model_tree_free(m);
	ui_model_usage_tokens_free(m);
}
