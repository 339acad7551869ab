/* The checkpoint scenario: an agentctl appender on one session whose turns
 * are a user message and an assistant tool call ("deploy", compensated by
 * rollbackTools' "undeploy"), with a checkpoint after about every other
 * turn (ac_checkpoint_create() on the file store, as `agentctl checkpoint
 * create` makes one); and an operator rolling the session back to one of
 * its checkpoints (ac_checkpoint_plan_rollback() and
 * ac_checkpoint_rollback(), as `agentctl session rollback` runs them for a
 * local session). A compensation is a simulated side effect: one line
 * with its call's id appended, durably, to SIDE_EFFECTS (the world outside
 * agentctl, which no power loss undoes). Killed at any step; the power
 * fails. The operator acts as a user would: a rollback that did not finish
 * is run again, to the same checkpoint; one stopped before a compensation
 * an earlier attempt left uncertain is run again with --skip-uncertain
 * when a side effect is there and --rerun-uncertain when none is; one
 * refused for another reason (the session changed since the plan) is now
 * and then given up for another checkpoint.
 *
 * Holds after every step and every power loss: the session file loads;
 * every acknowledged message is in the session or in a rollback archive
 * it names, exactly once; after the newest rollback the session is
 * exactly its checkpoint's conversation followed only by messages written
 * after the rollback (all old or all new, never a mix), and its archive
 * holds as many messages as the record says; no compensation ran twice,
 * and every one compensated.json records as done ran once. */
#include "sim.h"

#include "ac_checkpoint.h"
#include "ac_checkpoint_impl.h"
#include "ac_error.h"
#include "ac_session.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECKPOINTS "/ws/.agent/checkpoints"
#define SIDE_EFFECTS "/ws/side-effects.log"
#define COMPENSATED SIM_SESSIONS "/.rollbacks/s1/compensated.json"
#define MAX_COUNTED 4096
#define MAX_CALLS 1024

/* What outlives a process: the appender's numbering (a turn's number is
 * never reused) and the operator's rollback still to finish (a user runs
 * the same command again). */
static int next_turn;
static char pending[128];

/* ---- the side effect ------------------------------------------------------ */

/* Appends line to SIDE_EFFECTS, durable at once (the world does not lose
 * what a compensation did when agentctl's host loses power). */
static void side_effect(const char *line)
{
	int fd;

	sim_fs_faults_hold(true);
	fd = sim_fs_openat(AT_FDCWD, SIDE_EFFECTS, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd < 0 || sim_fs_write(fd, line, strlen(line)) != (ssize_t)strlen(line) ||
	    sim_fs_fsync(fd) != 0)
		abort();
	sim_fs_close(fd);
	sim_fs_faults_hold(false);
}

/* A compensation as a process would run: it takes a few steps (agentctl
 * may be killed before, while or after it takes effect) and takes effect
 * once, at one of them. */
static int simulated_compensation(ac_proc_result *out, const char *const *argv,
				  const char *session_id, const char *cwd, const char *input,
				  size_t input_len, int timeout_ms)
{
	json_t *call = json_loadb(input, input_len, 0, NULL);
	const char *id = json_string_value(json_object_get(call, "call"));
	int steps = 1 + (int)sim_below(4), effect_at = (int)sim_below((uint64_t)steps);
	char line[128];

	(void)session_id;
	(void)cwd;
	(void)timeout_ms;
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < steps; i++) {
		sim_step(2000000 + (int64_t)sim_below(20000000), i ? "compensation runs" : argv[0],
			 NULL);
		if (i == effect_at) {
			snprintf(line, sizeof(line), "%s\n", id ? id : "?");
			side_effect(line);
			sim_trace("  side effect: %s compensated", id ? id : "?");
		}
	}
	json_decref(call);
	return 0;
}

/* ---- the actors ---------------------------------------------------------- */

static void appender(sim_actor *a)
{
	ac_checkpoint_store *store = NULL;

	if (ac_checkpoint_store_file_new(&store, CHECKPOINTS))
		abort();
	while (a->ops_left > 0) {
		int n = next_turn++;
		char user[32], call[32], text[32];
		json_t *messages;
		json_t *checkpoint = NULL;

		snprintf(user, sizeof(user), "m-%d", n);
		snprintf(call, sizeof(call), "c-%d", n);
		snprintf(text, sizeof(text), "a-%d", n);
		/* Most turns call the tool, not all: a rollback has a few
		 * compensations to run, and some turns without any. */
		if (sim_chance(0.75))
			messages = json_pack("[{s:s, s:s}, {s:s, s:[{s:s, s:s}, {s:s, s:s, s:s, "
					     "s:{s:s}}]}]", "role", "user", "content", user, "role",
					     "assistant", "content", "type", "text", "text", text, "type",
					     "tool_use", "id", call, "name", "deploy", "input", "call",
					     call);
		else
			messages = json_pack("[{s:s, s:s}, {s:s, s:[{s:s, s:s}]}]", "role", "user",
					     "content", user, "role", "assistant", "content", "type",
					     "text", "text", text);
		if (ac_session_append_messages(NULL, SIM_SESSIONS, "s1", messages) == 0) {
			sim_ack(a, user, true);
			if (json_array_size(json_object_get(json_array_get(messages, 1), "content")) > 1)
				sim_ack(a, call, true);
		} else {
			sim_trace("%s/%d append failed: %s", a->role, (int)a->pid, ac_error_last());
		}
		json_decref(messages);
		if (sim_chance(0.5)) {
			if (ac_checkpoint_create(&checkpoint, store, SIM_SESSIONS, "s1", "turn"))
				sim_trace("%s/%d checkpoint: %s", a->role, (int)a->pid,
					  ac_error_last());
			else
				sim_trace("%s/%d CHECKPOINT %s (%zu messages)", a->role, (int)a->pid,
					  ac_checkpoint_id(checkpoint),
					  json_array_size(ac_checkpoint_history(checkpoint)));
			json_decref(checkpoint);
		}
		sim_op_done(a);
		sim_sleep_ns(1000000 + (int64_t)sim_below(200000000));
	}
	ac_checkpoint_store_free(store);
}

/* A rollback target among the session's checkpoints: the newest half
 * the time (the usual undo of the last turns), else any (the seed picks). */
static bool choose_target(ac_checkpoint_store *store)
{
	ac_checkpoint_filter filter = {.session_id = "s1"};
	json_t *list = NULL;
	size_t n;

	if (ac_checkpoint_store_list(&list, store, &filter) || !(n = json_array_size(list))) {
		json_decref(list);
		return false;
	}
	/* The list is in version order, oldest first. */
	snprintf(pending, sizeof(pending), "%s",
		 ac_checkpoint_id(json_array_get(list, sim_chance(0.5) ? n - 1 : sim_below(n))));
	json_decref(list);
	return true;
}

/* How many times each call's compensation ran (SIDE_EFFECTS' lines). */
static int runs_of(const char *effects, const char *id)
{
	size_t len = strlen(id);
	int runs = 0;

	for (const char *line = effects; line && *line;) {
		const char *end = strchr(line, '\n');

		if ((size_t)((end ? end : line + strlen(line)) - line) == len &&
		    !strncmp(line, id, len))
			runs++;
		line = end ? end + 1 : NULL;
	}
	return runs;
}

/* The user's look at the uncertain compensations before going on: if
 * none took effect, run them again; if any did, skip them (the choice is
 * one for all of them, and a skipped one that never ran is the lesser
 * harm: the stop names only the first, see docs/RELIABILITY.md). */
static ac_checkpoint_uncertain judge_uncertain(void)
{
	char *record = sim_fs_slurp(COMPENSATED, NULL), *effects = sim_fs_slurp(SIDE_EFFECTS, NULL);
	json_t *root = record ? json_loads(record, 0, NULL) : NULL, *entry;
	ac_checkpoint_uncertain choice = AC_CHECKPOINT_UNCERTAIN_RERUN;
	const char *id;

	json_object_foreach(json_object_get(root, "calls"), id, entry)
		if (!json_object_get(entry, "at") && runs_of(effects, id) > 0)
			choice = AC_CHECKPOINT_UNCERTAIN_SKIP;
	json_decref(root);
	free(record);
	free(effects);
	return choice;
}

static void operator(sim_actor *a)
{
	json_t *tools = json_pack("{s:[s, s]}", "deploy", "undeploy", "{id}");
	ac_checkpoint_uncertain uncertain = AC_CHECKPOINT_UNCERTAIN_STOP;
	ac_checkpoint_store *store = NULL;

	if (!tools || ac_checkpoint_store_file_new(&store, CHECKPOINTS))
		abort();
	while (a->ops_left > 0) {
		ac_checkpoint_rollback_options opts = AC_CHECKPOINT_ROLLBACK_OPTIONS_INIT;
		ac_checkpoint_rollback_result result;
		ac_checkpoint_plan plan;
		int rc;

		sim_sleep_ns(50000000 + (int64_t)sim_below(400000000));
		if (!pending[0] && !choose_target(store)) {
			sim_trace("%s/%d no checkpoint yet", a->role, (int)a->pid);
			sim_op_done(a);
			continue;
		}
		if (ac_checkpoint_plan_rollback(&plan, store, SIM_SESSIONS, "s1", pending, tools)) {
			/* Nothing ran: the target is gone (a power loss) or no
			 * longer behind the session. */
			sim_trace("%s/%d plan to %s: %s", a->role, (int)a->pid, pending,
				  ac_error_last());
			ac_checkpoint_plan_free(&plan);
			pending[0] = '\0';
			sim_op_done(a);
			continue;
		}
		plan.uncertain = uncertain;
		rc = ac_checkpoint_rollback(&result, &plan, SIM_SESSIONS, "/ws", &opts);
		if (rc == 0) {
			sim_trace("%s/%d ROLLED BACK to %s: %zu removed, %zu compensations ran, "
				  "%zu before, archive %s", a->role, (int)a->pid, pending, plan.remove,
				  result.ran, result.skipped,
				  result.archive_path ? result.archive_path : "(none)");
			pending[0] = '\0';
			uncertain = AC_CHECKPOINT_UNCERTAIN_STOP;
			sim_op_done(a);
		} else {
			sim_trace("%s/%d rollback to %s: %s", a->role, (int)a->pid, pending,
				  ac_error_last());
			/* Stopped before an uncertain compensation: look, then go on. */
			uncertain = result.uncertain ? judge_uncertain() : AC_CHECKPOINT_UNCERTAIN_STOP;
			/* Now and then the user gives up on this one and picks
			 * another checkpoint. */
			if (!result.uncertain && sim_chance(0.3)) {
				sim_trace("%s/%d gives up on %s", a->role, (int)a->pid, pending);
				pending[0] = '\0';
				sim_op_done(a);
			}
		}
		ac_checkpoint_rollback_result_free(&result);
		ac_checkpoint_plan_free(&plan);
	}
	ac_checkpoint_store_free(store);
	json_decref(tools);
}

int sim_checkpoint_setup(void)
{
	sim_acks_reset();
	next_turn = 0;
	pending[0] = '\0';
	ac_checkpoint_compensation_run = simulated_compensation;
	sim_fs_mkdirs(SIM_SESSIONS);
	sim_fs_mkdirs(CHECKPOINTS);
	sim_fs_put(SIM_SESSION, sim_initial_session, sim_initial_session_len);
	sim_fs_put(SIDE_EFFECTS, "", 0);
	sim_add_role("append", appender, true, true, 16);
	sim_add_role("rollback", operator, true, true, 8);
	return 2;
}

/* ---- the invariants ------------------------------------------------------ */

/* A message's markers: the user's text, the tool call's id. */
static void markers_of(const json_t *msg, const char **user, const char **call)
{
	const json_t *content = json_object_get(msg, "content"), *block;
	size_t i;

	*user = json_string_value(content);
	*call = NULL;
	json_array_foreach(content, i, block) {
		const char *type = json_string_value(json_object_get(block, "type"));

		if (type && !strcmp(type, "tool_use"))
			*call = json_string_value(json_object_get(block, "id"));
	}
}

/* The turn a message belongs to (the number in its text: "m-<n>" from
 * the user, "a-<n>" from the assistant), or -1. */
static int turn_of(const json_t *msg)
{
	const json_t *content = json_object_get(msg, "content");
	const char *text = json_string_value(content);

	if (!text)
		text = json_string_value(json_object_get(json_array_get(content, 0), "text"));
	if (text && (!strncmp(text, "m-", 2) || !strncmp(text, "a-", 2)))
		return atoi(text + 2);
	return -1;
}

static void count(int *counts, const json_t *messages)
{
	int n = sim_acks_count() < MAX_COUNTED ? sim_acks_count() : MAX_COUNTED;

	for (size_t i = 0; i < json_array_size(messages); i++) {
		const char *user, *call;

		markers_of(json_array_get(messages, i), &user, &call);
		for (int k = 0; k < n; k++)
			if ((user && !strcmp(sim_ack_marker(k), user)) ||
			    (call && !strcmp(sim_ack_marker(k), call)))
				counts[k]++;
	}
}

/* After the newest rollback: the checkpoint's conversation, then only
 * turns newer than any the rollback archived. */
static bool check_newest_rollback(const json_t *history, const json_t *record,
				  const json_t *archive, char *why, size_t size)
{
	const char *id = json_string_value(json_object_get(record, "checkpointId"));
	const json_t *removed = json_object_get(archive, "messages"), *kept;
	char path[300];
	json_t *checkpoint;
	size_t keep;
	int newest_removed = -1;
	bool held = false;

	snprintf(path, sizeof(path), "%s/s1/%s.json", CHECKPOINTS, id ? id : "(none)");
	if (!(checkpoint = sim_load_json(path, why, size)))
		return false;
	kept = json_object_get(checkpoint, "messageHistory");
	keep = json_array_size(kept);
	if (json_array_size(history) < keep) {
		snprintf(why, size, "after the rollback to %s the session has %zu messages, fewer "
			 "than the checkpoint's %zu", id, json_array_size(history), keep);
		goto done;
	}
	for (size_t i = 0; i < keep; i++)
		if (!json_equal(json_array_get(history, i), json_array_get(kept, i))) {
			snprintf(why, size, "after the rollback to %s the session's message %zu is "
				 "not the checkpoint's", id, i);
			goto done;
		}
	if ((json_int_t)json_array_size(removed) !=
	    json_integer_value(json_object_get(record, "removedMessages"))) {
		snprintf(why, size, "the rollback to %s archived %zu messages but records %lld", id,
			 json_array_size(removed),
			 (long long)json_integer_value(json_object_get(record, "removedMessages")));
		goto done;
	}
	for (size_t i = 0; i < json_array_size(removed); i++) {
		int t = turn_of(json_array_get(removed, i));

		newest_removed = t > newest_removed ? t : newest_removed;
	}
	for (size_t i = keep; i < json_array_size(history); i++)
		if (turn_of(json_array_get(history, i)) <= newest_removed) {
			snprintf(why, size, "after the rollback to %s the session still holds turn %d, "
				 "older than turn %d it archived (a mix of old and new)", id,
				 turn_of(json_array_get(history, i)), newest_removed);
			goto done;
		}
	held = true;
done:
	json_decref(checkpoint);
	return held;
}

static bool check_session(char *why, size_t size)
{
	static int counts[MAX_COUNTED];
	json_t *session = sim_load_json(SIM_SESSION, why, size), *history, *rollbacks, *record;
	int n = sim_acks_count() < MAX_COUNTED ? sim_acks_count() : MAX_COUNTED;
	bool held = false;
	size_t i;

	if (!session)
		return false;
	memset(counts, 0, sizeof(int) * (size_t)n);
	history = json_object_get(session, "conversationHistory");
	if (!json_is_array(history)) {
		snprintf(why, size, "%s has no conversationHistory array", SIM_SESSION);
		goto done;
	}
	count(counts, history);
	rollbacks = json_object_get(json_object_get(session, "metadata"), "rollbacks");
	json_array_foreach(rollbacks, i, record) {
		const char *named = json_string_value(json_object_get(record, "archive"));
		char path[400], reason[600];
		json_t *archive;

		snprintf(path, sizeof(path), "%s/%s", SIM_SESSIONS, named ? named : "(none)");
		if (!(archive = sim_load_json(path, reason, sizeof(reason)))) {
			snprintf(why, size, "%s names the rollback archive %s, but %s", SIM_SESSION,
				 named ? named : "(none)", reason);
			goto done;
		}
		count(counts, json_object_get(archive, "messages"));
		if (i + 1 == json_array_size(rollbacks) &&
		    !check_newest_rollback(history, record, archive, why, size)) {
			json_decref(archive);
			goto done;
		}
		json_decref(archive);
	}
	for (int k = 0; k < n; k++)
		if (counts[k] != 1) {
			snprintf(why, size, "acknowledged %s is in %s and the rollback archives it "
				 "names %d times", sim_ack_marker(k), SIM_SESSION, counts[k]);
			goto done;
		}
	held = true;
done:
	json_decref(session);
	return held;
}

static bool check_compensations(char *why, size_t size)
{
	char *effects = sim_fs_slurp(SIDE_EFFECTS, NULL), *record;
	json_t *root, *entry;
	const char *id;
	bool held = true;

	/* No call compensated twice. */
	for (const char *line = effects; line && *line && held;) {
		const char *end = strchr(line, '\n');
		char call[64];
		int runs;

		snprintf(call, sizeof(call), "%.*s", (int)((end ? end : line + strlen(line)) - line),
			 line);
		if ((runs = runs_of(effects, call)) > 1) {
			snprintf(why, size, "the compensation for %s ran %d times", call, runs);
			held = false;
		}
		line = end ? end + 1 : NULL;
	}
	/* Every compensation recorded as done (not skipped) ran once. */
	record = held ? sim_fs_slurp(COMPENSATED, NULL) : NULL;
	root = record ? json_loads(record, 0, NULL) : NULL;
	json_object_foreach(json_object_get(root, "calls"), id, entry) {
		if (!held || !json_object_get(entry, "at") || json_object_get(entry, "uncertain"))
			continue;
		if (runs_of(effects, id) != 1) {
			snprintf(why, size, "%s records the compensation for %s as done, but it ran "
				 "%d times", COMPENSATED, id, runs_of(effects, id));
			held = false;
		}
	}
	json_decref(root);
	free(record);
	free(effects);
	return held;
}

/* The same tree with the same acknowledgements is not read again. */
bool sim_checkpoint_check(char *why, size_t size, bool after_power_loss)
{
	static uint64_t seen_generation = UINT64_MAX;
	static int seen_acks = -1;

	(void)after_power_loss;
	if (sim_fs_generation() == seen_generation && sim_acks_count() == seen_acks)
		return true;
	if (!check_session(why, size) || !check_compensations(why, size))
		return false;
	seen_generation = sim_fs_generation();
	seen_acks = sim_acks_count();
	return true;
}
