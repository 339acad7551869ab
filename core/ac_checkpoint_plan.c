/* Planning a rollback: checking that the session's history continues the
 * checkpoint's, and listing the tool calls to undo, newest first, with
 * their compensations from rollbackTools. Nothing is run or changed here;
 * carrying the plan out is ac_checkpoint_rollback.c. */
#include "ac_checkpoint.h"
#include "ac_checkpoint_impl.h"

#include "ac_error.h"
#include "ac_messages.h"
#include "ac_session.h"

#include <stdlib.h>
#include <string.h>

int ac_checkpoint_prefix_check(const json_t *checkpoint_history, const json_t *session_history)
{
	size_t keep = json_array_size(checkpoint_history);
	size_t have = json_array_size(session_history);

	if (keep > have)
		return ac_error_set(AC_EINVAL, "the checkpoint holds %zu messages but the session only "
				    "%zu: the session's history is not a continuation of it", keep, have);
	for (size_t i = 0; i < keep; i++)
		if (!json_equal(json_array_get(checkpoint_history, i),
				json_array_get(session_history, i)))
			return ac_error_set(AC_EINVAL, "the session's history has diverged from the "
					    "checkpoint: message at index %zu differs", i);
	return 0;
}

void ac_checkpoint_plan_free(ac_checkpoint_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->n_calls; i++) {
		free(plan->calls[i].tool);
		free(plan->calls[i].call_id);
		json_decref(plan->calls[i].input);
		free(plan->calls[i].argv);
	}
	free(plan->calls);
	free(plan->session_id);
	json_decref(plan->checkpoint);
	json_decref(plan->history);
	json_decref(plan->unfolded);
	memset(plan, 0, sizeof(*plan));
}

typedef struct {
	ac_checkpoint_plan *plan;
	const json_t *tools;
	size_t message_index;
	size_t first;  /* where this message's calls start in plan->calls */
	size_t cap;
	int rc;
} plan_builder;

/* The NULL-terminated argv for tool from rollbackTools (strings borrowed),
 * *out NULL when none is configured; AC_EINVAL for a malformed entry. */
static int tool_argv(const char ***out, const json_t *tools, const char *tool)
{
	const json_t *entry = json_object_get(tools, tool), *arg;
	const char **argv;
	size_t i;

	*out = NULL;
	if (!entry)
		return 0;
	if (!json_is_array(entry) || json_array_size(entry) == 0)
		return ac_error_set(AC_EINVAL, "rollbackTools.%.64s: must be a non-empty array of "
				    "strings (argv, no shell)", tool);
	if (!(argv = calloc(json_array_size(entry) + 1, sizeof(*argv))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	json_array_foreach (entry, i, arg) {
		if (!json_is_string(arg) || (i == 0 && !*json_string_value(arg))) {
			free(argv);
			return ac_error_set(AC_EINVAL, "rollbackTools.%.64s[%zu]: must be a %sstring",
					    tool, i, i == 0 ? "non-empty " : "");
		}
		argv[i] = json_string_value(arg);
	}
	*out = argv;
	return 0;
}

static void note_call(const char *id, const char *name, const json_t *input, void *ctx)
{
	plan_builder *b = ctx;
	ac_checkpoint_plan *plan = b->plan;
	ac_checkpoint_compensation *c;

	if (b->rc)
		return;
	if (plan->n_calls == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 8;
		void *grown = realloc(plan->calls, cap * sizeof(*plan->calls));

		if (!grown) {
			b->rc = ac_error_set(AC_ENOMEM, "out of memory");
			return;
		}
		plan->calls = grown;
		b->cap = cap;
	}
	c = &plan->calls[plan->n_calls];
	memset(c, 0, sizeof(*c));
	c->message_index = b->message_index;
	c->tool = strdup(name ? name : "");
	c->call_id = strdup(id);
	plan->n_calls++;
	if (!c->tool || !c->call_id) {
		b->rc = ac_error_set(AC_ENOMEM, "out of memory");
		return;
	}
	if ((b->rc = tool_argv(&c->argv, b->tools, c->tool)))
		return;
	if (!c->argv) {
		plan->n_unconfigured++;
		c->input = input ? json_deep_copy(input) : json_object();
		return;
	}
	/* OpenAI sends the arguments as a string holding JSON. */
	if (json_is_string(input)) {
		json_error_t error;

		c->input = json_loads(json_string_value(input), JSON_DECODE_ANY, &error);
		if (!c->input)
			b->rc = ac_error_set(AC_EINVAL, "tool call '%.64s' (%.64s) in message %zu: "
					     "arguments are not JSON: %s", id, c->tool,
					     b->message_index, error.text);
		return;
	}
	c->input = input ? json_deep_copy(input) : json_object();
	if (!c->input)
		b->rc = ac_error_set(AC_ENOMEM, "out of memory");
}

/* Reverses calls[from..to) in place. */
static void reverse_calls(ac_checkpoint_compensation *calls, size_t from, size_t to)
{
	while (to > from + 1) {
		ac_checkpoint_compensation t = calls[from];

		calls[from] = calls[--to];
		calls[to] = t;
		from++;
	}
}

/* The target of a rollback to "the latest": the newest checkpoint, as
 * Koog's rollbackToLatestCheckpoint takes it, tombstones included. A
 * tombstone there means the run finished: Koog restores nothing, and
 * neither does this (the one before it is no "latest" of a finished run). */
static int newest(json_t **out, ac_checkpoint_store *store, const char *session_id)
{
	ac_checkpoint_filter filter = {.session_id = session_id, .include_tombstones = true};
	int rc = ac_checkpoint_store_latest_matching(out, store, &filter);

	if (rc == AC_ENOTFOUND)
		return ac_error_set(rc, "session '%s' has no checkpoint", session_id);
	if (rc == 0 && ac_checkpoint_is_tombstone(*out)) {
		rc = ac_error_set(AC_EINVAL, "session '%s': its newest checkpoint '%s' (version "
				  "%lld) is a tombstone: the run finished, so there is no latest "
				  "state to roll back to; nothing was changed (name an older "
				  "checkpoint by its id to roll back to it)", session_id,
				  ac_checkpoint_id(*out), (long long)ac_checkpoint_version(*out));
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}

static void count_call(const char *id, const char *name, const json_t *input, void *ctx)
{
	(void)id;
	(void)name;
	(void)input;
	((ac_checkpoint_plan *)ctx)->n_before_compaction++;
}

/* When the checkpoint's history is no prefix of history: unfolds the
 * session's compactions, newest first, until it is one. *out_unfolded
 * (NULL when none did) and plan->compactions are set; with none, the
 * refusal of the plain prefix check stands. */
static int unfold_to(json_t **out_unfolded, ac_checkpoint_plan *plan, const json_t *history,
		     ac_checkpoint_unfold_fn unfold, void *ctx)
{
	const json_t *wanted = ac_checkpoint_history(plan->checkpoint);
	json_t *now = json_incref((json_t *)history), *next = NULL;
	char *refusal;
	int rc = ac_checkpoint_prefix_check(wanted, history);

	*out_unfolded = NULL;
	if (rc == 0 || !unfold) {
		json_decref(now);
		return rc;
	}
	if (!(refusal = strdup(ac_error_last()))) {
		json_decref(now);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	for (size_t depth = 0;; depth++) {
		if ((rc = unfold(&next, depth, now, ctx))) {
			if (rc == AC_ENOTFOUND)
				rc = ac_error_set(AC_EINVAL, "%s", refusal);
			break;
		}
		/* The archived messages take the summary's place. */
		for (size_t i = 1; i < json_array_size(now); i++)
			if (json_array_append(next, json_array_get(now, i)))
				rc = ac_error_set(AC_ENOMEM, "out of memory");
		json_decref(now);
		now = next;
		if (rc)
			break;
		if (ac_checkpoint_prefix_check(wanted, now) == 0) {
			plan->compactions = depth + 1;
			*out_unfolded = json_incref(now);
			break;
		}
	}
	json_decref(now);
	free(refusal);
	return rc;
}

int ac_checkpoint_plan_rollback_history(ac_checkpoint_plan *out, ac_checkpoint_store *store,
					const char *session_id, const char *checkpoint_id,
					json_t *history, const json_t *rollback_tools)
{
	return ac_checkpoint_plan_rollback_unfolding(out, store, session_id, checkpoint_id, history,
						     rollback_tools, NULL, NULL);
}

int ac_checkpoint_plan_rollback_unfolding(ac_checkpoint_plan *out, ac_checkpoint_store *store,
					  const char *session_id, const char *checkpoint_id,
					  json_t *history, const json_t *rollback_tools,
					  ac_checkpoint_unfold_fn unfold, void *unfold_ctx)
{
	plan_builder b = {.plan = out, .tools = rollback_tools};
	const json_t *after;
	size_t n, first_after;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_session_id_check(session_id)) ||
	    (checkpoint_id && (rc = ac_checkpoint_id_check(checkpoint_id))))
		goto done;
	if (rollback_tools && !json_is_object(rollback_tools)) {
		rc = ac_error_set(AC_EINVAL, "rollbackTools: must be an object (tool name -> argv array)");
		goto done;
	}
	if (!(out->session_id = strdup(session_id))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (!json_is_array(history)) {
		rc = ac_error_set(AC_ECORRUPT, "session '%s': conversationHistory is not an array",
				  session_id);
		goto done;
	}
	rc = checkpoint_id ? ac_checkpoint_store_get(&out->checkpoint, store, session_id, checkpoint_id)
			   : newest(&out->checkpoint, store, session_id);
	if (rc)
		goto done;
	/* A tombstone marks where a run ended; its empty history is a prefix
	 * of every history, so taking it as a target would empty the session. */
	if (ac_checkpoint_is_tombstone(out->checkpoint)) {
		rc = ac_error_set(AC_EINVAL, "checkpoint '%s' of session '%s' is a tombstone (a "
				  "finished run): there is no state to roll back to",
				  ac_checkpoint_id(out->checkpoint), session_id);
		goto done;
	}
	if ((rc = unfold_to(&out->unfolded, out, history, unfold, unfold_ctx))) {
		if (rc != AC_ENOMEM)
			ac_error_set(rc, "cannot roll session '%s' back to checkpoint '%s': %s",
				     session_id, ac_checkpoint_id(out->checkpoint), ac_error_last());
		goto done;
	}
	out->history = json_incref(history);
	after = out->unfolded ? out->unfolded : history;
	n = json_array_size(after);
	out->keep = json_array_size(ac_checkpoint_history(out->checkpoint));
	out->remove = n - out->keep;
	/* Unfolded: the session's messages after its first (the summary) end
	 * it; the calls before them were made before the compaction. */
	first_after = out->unfolded ? n - (json_array_size(history) - 1) : 0;
	for (size_t i = out->keep; i < first_after; i++)
		ac_message_tool_calls(json_array_get(after, i), count_call, out);
	if (first_after < out->keep)
		first_after = out->keep;
	/* Newest first: messages from the end, and within one message its
	 * calls from the last to the first. */
	for (size_t i = n; i-- > first_after;) {
		b.message_index = i;
		b.first = out->n_calls;
		ac_message_tool_calls(json_array_get(after, i), note_call, &b);
		if ((rc = b.rc)) {
			if (rc != AC_ENOMEM)
				ac_error_set(rc, "cannot roll session '%s' back: %s", session_id,
					     ac_error_last());
			goto done;
		}
		reverse_calls(out->calls, b.first, out->n_calls);
	}
done:
	return rc;
}

int ac_checkpoint_plan_rollback(ac_checkpoint_plan *out, ac_checkpoint_store *store,
				const char *sessions_dir, const char *session_id,
				const char *checkpoint_id, const json_t *rollback_tools)
{
	ac_session *session = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_session_id_check(session_id)))
		return rc;
	if ((rc = ac_session_load(&session, sessions_dir, session_id)) == 0) {
		ac_checkpoint_unfold_file_ctx unfold = {sessions_dir, session_id,
							ac_session_root(session)};

		rc = ac_checkpoint_plan_rollback_unfolding(out, store, session_id, checkpoint_id,
							   ac_session_messages(session),
							   rollback_tools, ac_checkpoint_unfold_file,
							   &unfold);
	}
	ac_session_free(session);
	return rc;
}
