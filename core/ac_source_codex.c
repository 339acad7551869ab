/* Codex rollouts: ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl.
 *
 * One line a record {timestamp, type, payload}: session_meta (payload id,
 * cwd, timestamp, ...), turn_context (cwd, model, ...), response_item (the
 * model's items: message with role and content parts input_text /
 * output_text, function_call {name, arguments, call_id},
 * function_call_output {call_id, output}, custom_tool_call(_output),
 * local_shell_call, reasoning), event_msg (user_message, agent_message,
 * task_started, task_complete, turn_aborted, token_count, ...) and
 * compacted. Rollouts written before the wrapper existed hold the meta
 * object and the items bare on their lines: both are read. The rollout's
 * folder says nothing of the working directory, so every rollout is read
 * (the index keeps what it read) and its cwd decides. */
#include "ac_source_impl.h"

#include "ac_error.h"
#include "ac_json_scan.h"

#include <stdlib.h>
#include <string.h>

static int discover(const char *dir, const char *workspace, bool all, ac_source_found_fn fn,
		    void *ctx)
{
	(void)workspace;
	(void)all;
	return ac_source_walk(dir, "rollout-", ".jsonl", 3, fn, ctx);
}

/* Text Codex puts in the user's role that the user did not type. */
static bool is_prompt(const char *text)
{
	return *text && strncmp(text, "<environment_context>", 21) &&
	       strncmp(text, "<user_instructions>", 19) && strncmp(text, "# AGENTS.md", 11);
}

/* The payload of a record, or the record itself in the older bare form. */
static const json_t *payload_of(const json_t *e, const char **kind)
{
	const json_t *payload = json_object_get(e, "payload");

	*kind = json_string_value(json_object_get(e, "type"));
	if (json_is_object(payload) && *kind)
		return payload;
	if (!*kind && json_is_string(json_object_get(e, "id")) && json_object_get(e, "timestamp"))
		*kind = "session_meta";
	else
		*kind = "response_item";
	return e;
}

static int note_item(ac_source_session *s, const json_t *p)
{
	const char *type = json_string_value(json_object_get(p, "type"));
	const json_t *call_id = json_object_get(p, "call_id");
	int rc = 0;

	if (!type)
		return 0;
	if (!strcmp(type, "message")) {
		const char *role = json_string_value(json_object_get(p, "role"));
		char *text;

		if (!role || (strcmp(role, "user") && strcmp(role, "assistant")))
			return 0;
		if (!(text = ac_source_text_of(json_object_get(p, "content"))))
			return ac_error_set(AC_ENOMEM, "out of memory");
		if (!strcmp(role, "user") && !is_prompt(text)) {
			free(text);
			return 0;
		}
		s->messages++;
		s->turn = !strcmp(role, "user") ? AC_TURN_AGENT : AC_TURN_USER;
		if (!strcmp(role, "user") && !s->task)
			s->task = text;
		else
			free(text);
	} else if (strstr(type, "_call_output")) {
		if (json_is_string(call_id))
			ac_source_pending_drop(s, json_string_value(call_id));
		s->turn = AC_TURN_AGENT;
	} else if (!strcmp(type, "function_call") || !strcmp(type, "custom_tool_call") ||
		   !strcmp(type, "local_shell_call")) {
		if (json_is_string(call_id) &&
		    (rc = ac_source_pending_add(s, json_string_value(call_id))))
			return rc;
		s->turn = AC_TURN_AGENT;
	} else if (!strcmp(type, "reasoning")) {
		s->turn = AC_TURN_AGENT;
	}
	return rc;
}

static int note_event(ac_source_session *s, const json_t *p)
{
	const char *type = json_string_value(json_object_get(p, "type"));

	if (!type)
		return 0;
	if (!strcmp(type, "task_started")) {
		s->turn = AC_TURN_AGENT;
		s->awaiting_approval = false;
	} else if (!strcmp(type, "task_complete") || !strcmp(type, "turn_aborted")) {
		ac_source_pending_clear(s);
		s->turn = AC_TURN_USER;
		s->awaiting_approval = false;
	} else if (strstr(type, "approval_request")) {
		s->awaiting_approval = true;
	} else if (!strcmp(type, "exec_command_begin") || !strcmp(type, "patch_apply_begin")) {
		/* The call was approved (or needed no approval). */
		s->awaiting_approval = false;
	} else if (!strcmp(type, "user_message")) {
		return ac_source_set_once(&s->task, json_object_get(p, "message"));
	}
	return 0;
}

static int entry(ac_source_session *s, const json_t *e)
{
	const char *kind;
	const json_t *p = payload_of(e, &kind);
	int rc;

	if ((rc = ac_source_set(&s->updated, json_object_get(e, "timestamp"))) ||
	    (rc = ac_source_set_once(&s->started, json_object_get(e, "timestamp"))))
		return rc;
	if (!strcmp(kind, "session_meta"))
		return (rc = ac_source_set_once(&s->id, json_object_get(p, "id"))) ? rc
		       : ac_source_set_once(&s->cwd, json_object_get(p, "cwd"));
	if (!strcmp(kind, "turn_context"))
		return (rc = ac_source_set(&s->model, json_object_get(p, "model"))) ? rc
		       : ac_source_set_once(&s->cwd, json_object_get(p, "cwd"));
	if (!strcmp(kind, "response_item"))
		return note_item(s, p);
	if (!strcmp(kind, "event_msg"))
		return note_event(s, p);
	return 0;
}

/* A call's arguments are JSON text in a string: shown as the object they
 * hold when they parse, else as the text. */
static json_t *arguments_of(const json_t *p)
{
	const json_t *args = json_object_get(p, "arguments");
	json_t *parsed;

	if (!args)
		args = json_object_get(p, "input");
	if (!args)
		args = json_object_get(p, "action");
	if (!json_is_string(args))
		return args ? json_deep_copy(args) : json_object();
	parsed = json_loadb(json_string_value(args), json_string_length(args), 0, NULL);
	return parsed ? parsed : json_deep_copy(args);
}

static json_t *output_of(const json_t *p)
{
	const json_t *out = json_object_get(p, "output");

	if (json_is_object(out))
		out = json_object_get(out, "content");
	return json_is_string(out) ? json_deep_copy(out) : json_string("");
}

static int messages(json_t *out, const json_t *e)
{
	const char *kind, *type, *role;
	const json_t *p = payload_of(e, &kind);
	const json_t *call_id = json_object_get(p, "call_id");
	char *text;
	int rc;

	if (strcmp(kind, "response_item") || !(type = json_string_value(json_object_get(p, "type"))))
		return 0;
	if (!strcmp(type, "message")) {
		role = json_string_value(json_object_get(p, "role"));
		if (!role || (strcmp(role, "user") && strcmp(role, "assistant")))
			return 0;
		if (!(text = ac_source_text_of(json_object_get(p, "content"))))
			return ac_error_set(AC_ENOMEM, "out of memory");
		rc = ac_source_put_message(out, role, json_string(text));
		free(text);
		return rc;
	}
	if (!json_is_string(call_id))
		return 0;
	if (strstr(type, "_call_output"))
		return ac_source_put_message(out, "user", json_pack(
			"[{s:s, s:O, s:o}]", "type", "tool_result", "tool_use_id", call_id,
			"content", output_of(p)));
	if (strstr(type, "_call")) {
		const char *name = json_string_value(json_object_get(p, "name"));

		return ac_source_put_message(out, "assistant", json_pack(
			"[{s:s, s:O, s:s, s:o}]", "type", "tool_use", "id", call_id, "name",
			name ? name : type, "input", arguments_of(p)));
	}
	return 0;
}

/* True when span is a string that holds needle (it has no escapes to
 * decode: the types compared here are plain ASCII words). */
static bool span_has(const ac_json_span *span, const char *needle)
{
	size_t n = strlen(needle);

	if (span->type != AC_JSON_STRING || span->has_escape || span->len < n + 2)
		return false;
	for (size_t i = 1; i + n < span->len; i++)
		if (!memcmp(span->start + i, needle, n))
			return true;
	return false;
}

/* messages(), told by the scanner: the record's payload (or the bare
 * item), then its type, role and call_id. */
static int count(const char *text, size_t len)
{
	static const char *const names[] = {"type", "payload", "id", "timestamp",
					    "payload.type", "payload.role", "payload.call_id",
					    "role", "call_id"};
	enum { TYPE, PAYLOAD, ID, TIME, PTYPE, PROLE, PCALL, ROLE, CALL, N };
	ac_json_path paths[N];
	ac_json_span span[N];
	const ac_json_span *type, *role, *call;

	for (size_t i = 0; i < N; i++)
		if (ac_json_path_init(&paths[i], names[i]))
			return -1;
	if (ac_json_scan(span, text, len, paths, N, NULL) != 0 || span[TYPE].has_escape)
		return -1;
	if (span[PAYLOAD].type == AC_JSON_OBJECT && span[TYPE].type == AC_JSON_STRING) {
		if (!ac_json_string_equals(&span[TYPE], "response_item", 13))
			return 0;
		type = &span[PTYPE], role = &span[PROLE], call = &span[PCALL];
	} else if (span[TYPE].type != AC_JSON_STRING && span[ID].type == AC_JSON_STRING &&
		   span[TIME].type != AC_JSON_NONE) {
		return 0; /* the bare session meta */
	} else {
		type = &span[TYPE], role = &span[ROLE], call = &span[CALL];
	}
	if (type->type != AC_JSON_STRING)
		return 0;
	if (type->has_escape)
		return -1;
	if (ac_json_string_equals(type, "message", 7))
		return ac_json_string_equals(role, "user", 4) ||
		       ac_json_string_equals(role, "assistant", 9);
	if (call->type != AC_JSON_STRING)
		return 0;
	return span_has(type, "_call");
}

static const char *const resume[] = {"codex", "resume", "{id}", NULL};

const ac_source_adapter ac_source_codex = {
	.kind = AC_SOURCE_CODEX,
	.name = "codex",
	.key = "codex",
	.default_dir = ".codex/sessions",
	.default_resume = resume,
	.jsonl = true,
	.discover = discover,
	.entry = entry,
	.messages = messages,
	.count = count,
};
