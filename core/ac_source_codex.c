/* Codex rollouts: ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl,
 * archived ones flat in ~/.codex/archived_sessions/, either compressed as
 * .jsonl.zst (a plain sibling wins: codex-rs rollout/src/compression.rs).
 *
 * One line a record {timestamp, type, payload} (codex-rs
 * history/src/lib.rs RolloutItem): session_meta (id, cwd, timestamp,
 * forked_from_id, source; the first is the rollout's own, later ones come
 * with a fork's copy of its parent: ac_codex_fork.h), turn_context (cwd,
 * model, turn_id), response_item (message with role and content parts,
 * function_call {name, arguments, call_id}, function_call_output
 * {call_id, output}, custom_tool_call(_output), local_shell_call,
 * reasoning, ...), event_msg (user_message, agent_message, task_started,
 * task_complete, turn_aborted, thread_rolled_back {num_turns},
 * token_count, ...), compacted {message, replacement_history} and the
 * records that hold no message (inter_agent_communication(_metadata),
 * world_state, rollout_reference). Rollouts written before the wrapper
 * existed hold the meta object and the items bare on their lines: both
 * are read. The rollout's folder says nothing of the working directory,
 * so every rollout is read (the index keeps what it read) and its cwd
 * decides.
 *
 * What the conversation shows: the user's prompts (not the context Codex
 * injects in the user's role), the answers, tool calls and results, a
 * compaction's summary (labelled as one) and a marker where a turn was
 * aborted; the turns a rollback dropped are gone; a fork's copy of its
 * parent is the parent's, not shown again. "Waiting for approval" is not
 * read from here: Codex writes no approval request to a rollout
 * (codex-rs rollout/src/policy.rs persists none of exec_approval_request,
 * apply_patch_approval_request, request_permissions), so the state rule's
 * pending-tool-call fallback is what applies. */
#include "ac_source_impl.h"

#include "ac_codex_fork.h"
#include "ac_compact.h"
#include "ac_error.h"
#include "ac_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ---- finding rollouts ---- */

typedef struct {
	ac_source_found_fn fn;
	void *ctx;
} found_ctx;

/* A compressed rollout, unless its plain sibling is there (that one is
 * read). */
static int found_compressed(const char *path, const struct stat *st, void *ctx)
{
	found_ctx *f = ctx;
	char *plain = strndup(path, strlen(path) - 4);
	struct stat pst;
	bool shadowed;

	if (!plain)
		return ac_error_set(AC_ENOMEM, "out of memory");
	shadowed = lstat(plain, &pst) == 0 && S_ISREG(pst.st_mode);
	free(plain);
	return shadowed ? 0 : f->fn(path, st, f->ctx);
}

/* One walk: a plain rollout, a compressed one, or a file the canary
 * judges (each file seen once). */
static int found_any(const char *path, const struct stat *st, void *ctx)
{
	found_ctx *f = ctx;
	const char *name = strrchr(path, '/');
	size_t n;

	name = name ? name + 1 : path;
	n = strlen(name);
	if (strncmp(name, "rollout-", 8))
		return ac_source_walk_passed(path, st);
	if (n > 6 && !strcmp(name + n - 6, ".jsonl"))
		return f->fn(path, st, f->ctx);
	if (n > 10 && !strcmp(name + n - 10, ".jsonl.zst"))
		return found_compressed(path, st, ctx);
	return ac_source_walk_passed(path, st);
}

static int walk_rollouts(const char *folder, int depth, ac_source_found_fn fn, void *ctx)
{
	found_ctx f = {fn, ctx};

	return ac_source_walk(folder, "", "", depth, found_any, &f);
}

static int discover(const char *dir, const char *workspace, bool all, ac_source_found_fn fn,
		    void *ctx)
{
	const char *slash = strrchr(dir, '/');
	char *archived;
	int rc;

	(void)workspace;
	(void)all;
	if ((rc = walk_rollouts(dir, 3, fn, ctx)))
		return rc;
	/* Archiving moves a rollout to <codex home>/archived_sessions/, flat
	 * (codex-rs rollout/src/recorder.rs, ThreadListLayout::Flat). */
	if (!slash || strcmp(slash, "/sessions"))
		return 0;
	if (asprintf(&archived, "%.*sarchived_sessions", (int)(slash - dir + 1), dir) < 0)
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = walk_rollouts(archived, 0, fn, ctx);
	free(archived);
	return rc;
}

/* ---- one record ---- */

typedef struct {
	const char *kind;  /* the record's type */
	const json_t *p;   /* its payload (or the bare record) */
	const char *ptype; /* payload.type, NULL when none */
	int64_t line_ms;   /* the line's time, -1 unknown */
} record;

static void record_of(record *r, const json_t *e)
{
	const json_t *payload = json_object_get(e, "payload");
	const char *when = json_string_value(json_object_get(e, "timestamp"));

	r->kind = json_string_value(json_object_get(e, "type"));
	if (json_is_object(payload) && r->kind) {
		r->p = payload;
	} else {
		/* The older bare form: the meta object, else an item. */
		r->p = e;
		r->kind = !r->kind && json_is_string(json_object_get(e, "id")) &&
					  json_object_get(e, "timestamp")
				  ? "session_meta"
				  : "response_item";
	}
	r->ptype = json_string_value(json_object_get(r->p, "type"));
	if (!when || ac_time_parse(&r->line_ms, when) != 0)
		r->line_ms = -1;
}

static bool is_event(const record *r, const char *type)
{
	return !strcmp(r->kind, "event_msg") && r->ptype && !strcmp(r->ptype, type);
}

/* Text Codex puts in the user's role that the user did not type: the
 * contextual fragments of codex-rs core (environment context, AGENTS.md,
 * skills, a `!` shell command, an aborted turn's note, sub-agent notes)
 * and the older user instructions. Matched as Codex matches them: at the
 * start, after white space, in any case. */
static bool is_injected(const char *text)
{
	static const char *const markers[] = {
		"<environment_context>", "# AGENTS.md instructions for ", "<user_instructions>",
		"<skill>", "<user_shell_command>", "<turn_aborted>", "<subagent_notification>",
		"<subagents>", "<plugins>", "<js_repl_instructions>", "<child_agents_instructions>",
		"<skills_section>", "# AGENTS.md",
	};

	while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r')
		text++;
	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		if (!strncasecmp(text, markers[i], strlen(markers[i])))
			return true;
	return false;
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

static int put_text(json_t *out, const char *role, const char *prefix, const char *text)
{
	char *joined;
	int rc;

	if (asprintf(&joined, "%s%s", prefix, text) < 0)
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = ac_source_put_message(out, role, json_string(joined));
	free(joined);
	return rc;
}

/* Appends the messages r stands for (a line of the rollout's own) to out;
 * *out_prompt is set when the first is a prompt the user typed. */
static int record_messages(json_t *out, const record *r, bool *out_prompt)
{
	const json_t *p = r->p, *call_id = json_object_get(p, "call_id");
	const char *type = r->ptype, *role;
	char *text;
	int rc;

	*out_prompt = false;
	if (!strcmp(r->kind, "compacted")) {
		/* The summary that replaced the history before it: kept, and
		 * said to be a summary. */
		const char *summary = json_string_value(json_object_get(p, "message"));

		return put_text(out, "system", AC_SUMMARY_PREFIX, summary ? summary : "");
	}
	if (is_event(r, "turn_aborted")) {
		const char *why = json_string_value(json_object_get(p, "reason"));

		return put_text(out, "system", "[turn aborted] ", why ? why : "");
	}
	if (strcmp(r->kind, "response_item") || !type)
		return 0;
	if (!strcmp(type, "message")) {
		role = json_string_value(json_object_get(p, "role"));
		if (!role || (strcmp(role, "user") && strcmp(role, "assistant")))
			return 0;
		if (!(text = ac_source_text_of(json_object_get(p, "content"))))
			return ac_error_set(AC_ENOMEM, "out of memory");
		if (!strcmp(role, "user") && (!*text || is_injected(text))) {
			free(text);
			return 0;
		}
		*out_prompt = !strcmp(role, "user");
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

/* The rollout's own session_meta: its fork or parent. */
static void meta_parent(const json_t *p, ac_source_relation *rel, const json_t **parent)
{
	const json_t *sub = json_object_get(json_object_get(p, "source"), "subagent");
	const json_t *spawn = json_object_get(sub, "thread_spawn");

	*rel = AC_SOURCE_TOP;
	*parent = NULL;
	if (sub) {
		*parent = json_object_get(spawn, "parent_thread_id");
		if (!json_is_string(*parent))
			*parent = json_object_get(p, "parent_thread_id");
		if (json_is_string(*parent)) {
			*rel = AC_SOURCE_SUBAGENT;
			return;
		}
	}
	*parent = json_object_get(p, "forked_from_id");
	if (json_is_string(*parent))
		*rel = AC_SOURCE_FORK;
	else
		*parent = NULL;
}

/* Feeds a session_meta to the gate: true when it is the rollout's own. */
static bool gate_meta(ac_codex_gate *g, const record *r)
{
	const char *when = json_string_value(json_object_get(r->p, "timestamp"));
	const json_t *parent;
	ac_source_relation rel;
	int64_t meta_ms = -1;

	meta_parent(r->p, &rel, &parent);
	if (when && ac_time_parse(&meta_ms, when) != 0)
		meta_ms = -1;
	return ac_codex_gate_meta(g, json_string_value(json_object_get(r->p, "id")), parent != NULL,
				  meta_ms, r->line_ms);
}

/* True when r is a line of a fork's copy of its parent. */
static bool gate_copied(ac_codex_gate *g, const record *r)
{
	bool turn_start = !strcmp(r->kind, "turn_context") || is_event(r, "task_started") ||
			  is_event(r, "turn_started");

	return ac_codex_gate_copied(g, turn_start,
				    json_string_value(json_object_get(r->p, "turn_id")), r->line_ms);
}

/* ---- the conversation, one pass over a file ---- */

typedef struct {
	ac_codex_gate gate;
	size_t *turns; /* out's length where each surviving user turn began */
	size_t nturns, cap;
} conv_state;

static void *conv_new(void)
{
	return calloc(1, sizeof(conv_state));
}

static void conv_free(void *conv)
{
	conv_state *c = conv;

	if (c)
		free(c->turns);
	free(c);
}

/* A rollback drops the last n user turns and all after them (codex-rs
 * ContextManager::drop_last_n_user_turns). */
static void roll_back(conv_state *c, json_t *out, const json_t *num_turns)
{
	json_int_t n = json_integer_value(num_turns);
	size_t drop = n <= 0 ? 0 : (size_t)n > c->nturns ? c->nturns : (size_t)n, keep;

	if (!drop)
		return;
	c->nturns -= drop;
	keep = c->turns[c->nturns];
	while (json_array_size(out) > keep)
		json_array_remove(out, json_array_size(out) - 1);
}

static int conv_line(void *conv, json_t *out, const json_t *entry)
{
	conv_state *c = conv;
	size_t before = json_array_size(out);
	bool prompt;
	record r;
	int rc;

	record_of(&r, entry);
	if (!strcmp(r.kind, "session_meta")) {
		gate_meta(&c->gate, &r);
		return 0;
	}
	if (gate_copied(&c->gate, &r))
		return 0;
	if (is_event(&r, "thread_rolled_back")) {
		roll_back(c, out, json_object_get(r.p, "num_turns"));
		return 0;
	}
	if ((rc = record_messages(out, &r, &prompt)) || !prompt)
		return rc;
	if (c->nturns == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		size_t *grown = realloc(c->turns, cap * sizeof(*grown));

		if (!grown)
			return ac_error_set(AC_ENOMEM, "out of memory");
		c->turns = grown;
		c->cap = cap;
	}
	c->turns[c->nturns++] = before;
	return 0;
}

/* ---- the summary ---- */

/* The types this reader knows, read or not (codex-rs history/src/lib.rs
 * RolloutItem, protocol/src/protocol.rs EventMsg and models ResponseItem);
 * any other is counted for `agentctl sources check`. */
static bool known(const char *const *names, const char *name)
{
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static const char *const record_types[] = {
	"session_meta", "response_item", "compacted", "turn_context", "event_msg",
	"inter_agent_communication", "inter_agent_communication_metadata", "world_state",
	"rollout_reference", NULL,
};

static const char *const item_types[] = {
	"message", "agent_message", "reasoning", "local_shell_call", "function_call",
	"function_call_output", "custom_tool_call", "custom_tool_call_output", "tool_search_call",
	"tool_search_output", "web_search_call", "image_generation_call", "compaction",
	"compaction_summary", "context_compaction", "compaction_trigger", "additional_tools",
	"ghost_snapshot", "other", NULL,
};

static const char *const event_types[] = {
	"error", "warning", "realtime_conversation_started", "realtime_conversation_realtime",
	"realtime_conversation_closed", "realtime_conversation_sdp", "model_reroute",
	"context_compacted", "thread_rolled_back", "task_started", "turn_started", "task_complete",
	"turn_complete", "token_count", "agent_message", "user_message", "agent_message_delta",
	"agent_reasoning", "agent_reasoning_delta", "agent_reasoning_raw_content",
	"agent_reasoning_raw_content_delta", "agent_reasoning_section_break", "session_configured",
	"thread_name_updated", "thread_goal_updated", "thread_settings_applied",
	"mcp_startup_update", "mcp_startup_complete", "mcp_tool_call_begin", "mcp_tool_call_end",
	"web_search_begin", "web_search_end", "image_generation_begin", "image_generation_end",
	"exec_command_begin", "exec_command_output_delta", "terminal_interaction",
	"exec_command_end", "view_image_tool_call", "exec_approval_request",
	"request_permissions", "request_user_input", "dynamic_tool_call_request",
	"dynamic_tool_call_response", "elicitation_request", "apply_patch_approval_request",
	"guardian_assessment", "guardian_warning", "deprecation_notice", "background_event",
	"undo_started", "undo_completed", "stream_error", "patch_apply_begin",
	"patch_apply_updated", "patch_apply_end", "turn_diff", "get_history_entry_response",
	"mcp_list_tools_response", "list_skills_response",
	"realtime_conversation_list_voices_response", "skills_update_available", "plan_update",
	"turn_aborted", "shutdown_complete", "entered_review_mode", "exited_review_mode",
	"raw_response_item", "item_started", "item_completed", "hook_started", "hook_completed",
	"agent_message_content_delta", "plan_delta", "reasoning_content_delta",
	"reasoning_raw_content_delta", "collab_agent_spawn_begin", "collab_agent_spawn_end",
	"collab_agent_interaction_begin", "collab_agent_interaction_end", "collab_waiting_begin",
	"collab_waiting_end", "collab_close_begin", "collab_close_end", "collab_resume_begin",
	"collab_resume_end", "sub_agent_activity", "injected_message", "safety_buffering",
	"model_verification", "turn_moderation_metadata", "add_credits_nudge_email_response",
	NULL,
};

static int note_unknown(ac_source_session *s, const record *r)
{
	char name[128];

	if (!known(record_types, r->kind))
		return ac_source_note_unknown(s, r->kind);
	if (!r->ptype)
		return 0;
	if (!strcmp(r->kind, "event_msg") && !known(event_types, r->ptype))
		snprintf(name, sizeof(name), "event_msg/%s", r->ptype);
	else if (!strcmp(r->kind, "response_item") && !known(item_types, r->ptype))
		snprintf(name, sizeof(name), "response_item/%s", r->ptype);
	else
		return 0;
	return ac_source_note_unknown(s, name);
}

static void gate_load(ac_codex_gate *g, const ac_source_session *s)
{
	g->flags = s->reader_flags;
	g->cutoff_ms = s->reader_mark[0];
	g->copy_ms = s->reader_mark[1];
}

static void gate_save(ac_source_session *s, const ac_codex_gate *g)
{
	s->reader_flags = g->flags;
	s->reader_mark[0] = g->cutoff_ms;
	s->reader_mark[1] = g->copy_ms;
}

static int note_meta(ac_source_session *s, const record *r)
{
	ac_codex_gate g;
	ac_source_relation rel;
	const json_t *parent;
	int rc;

	gate_load(&g, s);
	if (!gate_meta(&g, r)) {
		gate_save(s, &g);
		return 0; /* the parent's, copied */
	}
	gate_save(s, &g);
	meta_parent(r->p, &rel, &parent);
	s->relation = rel;
	if ((rc = ac_source_set(&s->parent_id, parent)) ||
	    (rc = ac_source_set(&s->id, json_object_get(r->p, "id"))))
		return rc;
	return ac_source_set(&s->cwd, json_object_get(r->p, "cwd"));
}

/* A rollback takes back messages counted earlier: the count is made again
 * from the rollout (rollbacks are rare; the summary keeps no message). */
static int note_rollback(ac_source_session *s, const json_t *entry)
{
	json_t *conv = NULL;
	int rc;

	if ((rc = ac_source_conversation_upto(&conv, s, s->offset, entry)))
		return rc;
	s->messages = json_array_size(conv);
	json_decref(conv);
	ac_source_pending_clear(s);
	s->turn = AC_TURN_USER;
	return 0;
}

static int note_item(ac_source_session *s, const record *r)
{
	const char *type = r->ptype;
	const json_t *call_id = json_object_get(r->p, "call_id");

	if (!type || strcmp(r->kind, "response_item"))
		return 0;
	if (!strcmp(type, "message")) {
		const char *role = json_string_value(json_object_get(r->p, "role"));

		if (role && !strcmp(role, "assistant"))
			s->turn = AC_TURN_USER;
	} else if (strstr(type, "_call_output")) {
		if (json_is_string(call_id))
			ac_source_pending_drop(s, json_string_value(call_id));
		s->turn = AC_TURN_AGENT;
	} else if (!strcmp(type, "function_call") || !strcmp(type, "custom_tool_call") ||
		   !strcmp(type, "local_shell_call")) {
		s->turn = AC_TURN_AGENT;
		if (json_is_string(call_id))
			return ac_source_pending_add(s, json_string_value(call_id));
	} else if (!strcmp(type, "reasoning")) {
		s->turn = AC_TURN_AGENT;
	}
	return 0;
}

static int entry(ac_source_session *s, const json_t *e)
{
	json_t *made = NULL;
	ac_codex_gate g;
	bool prompt, copied;
	record r;
	int rc;

	record_of(&r, e);
	if ((rc = ac_source_set(&s->updated, json_object_get(e, "timestamp"))) ||
	    (rc = ac_source_set_once(&s->started, json_object_get(e, "timestamp"))) ||
	    (rc = note_unknown(s, &r)))
		return rc;
	if (!strcmp(r.kind, "session_meta"))
		return note_meta(s, &r);
	gate_load(&g, s);
	copied = gate_copied(&g, &r);
	gate_save(s, &g);
	if (copied)
		return 0; /* the parent's: counted there */
	if (!strcmp(r.kind, "turn_context"))
		return (rc = ac_source_set(&s->model, json_object_get(r.p, "model"))) ? rc
		       : ac_source_set_once(&s->cwd, json_object_get(r.p, "cwd"));
	if (is_event(&r, "thread_rolled_back"))
		return note_rollback(s, e);
	if (is_event(&r, "task_started") || is_event(&r, "turn_started")) {
		s->turn = AC_TURN_AGENT;
	} else if (is_event(&r, "task_complete") || is_event(&r, "turn_complete") ||
		   is_event(&r, "turn_aborted")) {
		ac_source_pending_clear(s);
		s->turn = AC_TURN_USER;
	} else if (is_event(&r, "user_message")) {
		const json_t *m = json_object_get(r.p, "message");

		if (json_is_string(m) && *json_string_value(m) && !is_injected(json_string_value(m)) &&
		    (rc = ac_source_set_once(&s->task, m)))
			return rc;
	}
	if (!(made = json_array()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = record_messages(made, &r, &prompt)) == 0) {
		s->messages += json_array_size(made);
		if (prompt) {
			s->turn = AC_TURN_AGENT;
			rc = ac_source_set_once(&s->task, json_object_get(json_array_get(made, 0),
									"content"));
		}
	}
	json_decref(made);
	return rc ? rc : note_item(s, &r);
}

/* Every line goes through conv_line(): messages() is what one line of
 * the rollout's own makes, for what calls it line by line. */
static int messages(json_t *out, const json_t *e)
{
	bool prompt;
	record r;

	record_of(&r, e);
	return record_messages(out, &r, &prompt);
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
	.conv_new = conv_new,
	.conv_free = conv_free,
	.conv_line = conv_line,
};
