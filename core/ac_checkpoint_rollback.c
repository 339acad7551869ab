/* Carrying out a rollback plan: the compensations run newest first and
 * recorded so a retry does not run them again, then the history cut back
 * to the checkpoint's, the removed messages archived and the rollback
 * noted in the session's metadata. A store that cuts in its own
 * transaction (opts->cut) does the last part itself. */
#include "ac_checkpoint.h"
#include "ac_checkpoint_impl.h"
#include "ac_checkpoint_runtime.h"

#include "ac_archive.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_fs_calls.h"
#include "ac_json_exact.h"
#include "ac_lock.h"
#include "ac_messages.h"
#include "ac_mutation.h"
#include "ac_proc.h"
#include "ac_session.h"
#include "ac_struct_version.h"
#include "ac_time.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	const ac_checkpoint_plan *plan;
	const char *archive;    /* relative to the sessions folder */
	const char *at;
} cut_change;

/* True when metadata.rollbacks records archive: the cut is there already
 * (a reader saved the version we had put in place for a moment). */
static bool names_rollback(const json_t *root, const char *archive)
{
	json_t *record;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(root, "metadata"), "rollbacks"), i,
			   record) {
		const char *named = json_string_value(json_object_get(record, "archive"));

		if (named && !strcmp(named, archive))
			return true;
	}
	return false;
}

int ac_checkpoint_note_rollback(json_t *root, const ac_checkpoint_plan *plan, const char *at,
				const char *archive)
{
	json_t *metadata = json_object_get(root, "metadata"), *rollbacks, *record;
	const char *node = ac_checkpoint_node(plan->checkpoint);

	if (metadata && !json_is_object(metadata))
		return ac_error_set(AC_ECORRUPT, "session '%s': metadata is not an object",
				    plan->session_id);
	if (!metadata && json_object_set_new(root, "metadata", metadata = json_object()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	rollbacks = json_object_get(metadata, "rollbacks");
	if (rollbacks && !json_is_array(rollbacks))
		return ac_error_set(AC_ECORRUPT, "session '%s': metadata.rollbacks is not an array",
				    plan->session_id);
	if (!rollbacks && json_object_set_new(metadata, "rollbacks", rollbacks = json_array()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	record = json_pack("{s:s, s:s, s:I, s:I, s:s?}", "at", at, "checkpointId",
			   ac_checkpoint_id(plan->checkpoint), "version",
			   (json_int_t)ac_checkpoint_version(plan->checkpoint), "removedMessages",
			   (json_int_t)plan->remove, "archive", archive);
	/* Behind compactions: how many, and the compensations not run. */
	if (record && plan->unfolded &&
	    (json_object_set_new(record, "compactionsUndone",
				 json_integer((json_int_t)plan->compactions)) ||
	     json_object_set_new(record, "compensationsSkipped",
				 json_integer((json_int_t)plan->n_before_compaction)))) {
		json_decref(record);
		record = NULL;
	}
	if (!record || json_array_append_new(rollbacks, record))
		return ac_error_set(AC_ENOMEM, "out of memory");
	/* Koog's rollback restores where the run was, not only what was said. */
	return ac_checkpoint_put_execution_point(
		root, *node ? node : NULL,
		json_object_get(plan->checkpoint, "lastInput"),
		json_string_value(json_object_get(plan->checkpoint, "lastInputType")),
		ac_checkpoint_id(plan->checkpoint));
}

/* The change applied to the session file's current content: cut the
 * history back to the checkpoint's, refusing if it is not what was planned. */
static int cut_history(json_t *root, void *ctx)
{
	const cut_change *c = ctx;
	const ac_checkpoint_plan *plan = c->plan;
	json_t *history = json_object_get(root, "conversationHistory");
	int rc;

	if (names_rollback(root, c->archive))
		return AC_SESSION_UNCHANGED;
	if (!json_is_array(history) || !json_equal(history, plan->history)) {
		if ((rc = ac_checkpoint_prefix_check(ac_checkpoint_history(plan->checkpoint), history)))
			return ac_error_set(AC_ECONFLICT, "session '%s' changed during the rollback: %s",
					    plan->session_id, ac_error_last());
		return ac_error_set(AC_ECONFLICT, "session '%s' changed during the rollback "
				    "(another writer added or changed messages); its history was "
				    "left as that writer made it", plan->session_id);
	}
	if ((rc = ac_checkpoint_note_rollback(root, plan, c->at, c->archive)))
		return rc;
	/* Behind compactions: the checkpoint's history, rebuilt from their
	 * archives, and their records marked so none is unfolded again. */
	if (plan->unfolded)
		return ac_checkpoint_unfolded_history(root, plan, c->at);
	while (json_array_size(history) > plan->keep)
		if (json_array_remove(history, json_array_size(history) - 1))
			return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

/* "<sessions>/.rollbacks/<id>/compensated.json": the compensations that
 * already ran, {"sessionId", "calls": {callId: {tool, at}}}. */
static int compensated_path(ac_buf *out, const char *sessions_dir, const char *id)
{
	int rc = ac_archive_folder(out, sessions_dir, ".rollbacks", id);

	if (!rc && ac_buf_printf(out, "/compensated.json"))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	return rc;
}

/* The record of compensations run (an empty one when there is none). */
static int load_compensated(json_t **out, const char *sessions_dir, const char *id)
{
	ac_buf path = AC_BUF_INIT;
	json_error_t jerr;
	char *raw = NULL;
	size_t len;
	int rc;

	*out = NULL;
	if ((rc = compensated_path(&path, sessions_dir, id)))
		goto done;
	rc = ac_file_read(&raw, &len, path.data);
	if (rc == AC_ENOTFOUND) {
		rc = 0;
		if (!(*out = json_pack("{s:s, s:{}}", "sessionId", id, "calls")))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (rc)
		goto done;
	*out = json_loadb(raw, len, 0, &jerr);
	if (!*out || !json_is_object(json_object_get(*out, "calls"))) {
		json_decref(*out);
		*out = NULL;
		rc = ac_error_set(AC_ECORRUPT, "%s: not a record of compensations (%s); move it "
				  "aside only if none of its calls needs undoing again", path.data,
				  jerr.text[0] ? jerr.text : "no \"calls\" object");
	}
done:
	free(raw);
	ac_buf_free(&path);
	return rc;
}

static int save_compensated(const json_t *record, const char *sessions_dir, const char *id)
{
	ac_buf path = AC_BUF_INIT;
	int rc;

	if ((rc = compensated_path(&path, sessions_dir, id)) == 0)
		rc = ac_json_exact_write_file(path.data, record, JSON_INDENT(2));
	ac_buf_free(&path);
	return rc;
}

ac_checkpoint_run_fn ac_checkpoint_compensation_run = ac_proc_run_for_session;

/* Copies the record's entry of each call it is told of into kept. */
static void keep_entry(const char *id, const char *name, const json_t *input, void *ctx)
{
	json_t **pair = ctx, *entry = json_object_get(json_object_get(pair[0], "calls"), id);

	(void)name;
	(void)input;
	if (entry)
		json_object_set(pair[1], id, entry);
}

/* The rollback is done: the record keeps only the calls still in the
 * session, the checkpoint's. Their compensations ran for a rollback to an
 * older checkpoint that was given up, and a later one there must not run
 * them again (found by the simulator: seed 1 of "checkpoint" with the
 * operator giving up). With none left, the record goes. */
static void finish_record(const ac_checkpoint_plan *plan, const char *sessions_dir,
			  const char *path)
{
	const json_t *history = ac_checkpoint_history(plan->checkpoint);
	json_t *pair[2] = {NULL, json_object()};

	if (load_compensated(&pair[0], sessions_dir, plan->session_id) == 0 && pair[1])
		for (size_t i = 0; i < json_array_size(history); i++)
			ac_message_tool_calls(json_array_get(history, i), keep_entry, pair);
	if (pair[0] && pair[1] && json_object_size(pair[1]) > 0 &&
	    json_object_set(pair[0], "calls", pair[1]) == 0)
		save_compensated(pair[0], sessions_dir, plan->session_id);
	else
		ac_fs_unlink(path);
	json_decref(pair[0]);
	json_decref(pair[1]);
}

/* Runs one compensation; 0, or AC_EIO with the message saying how it
 * failed. */
static int compensate(const ac_checkpoint_compensation *c, const ac_checkpoint_plan *plan,
		      const char *cwd, int timeout_ms, size_t ran)
{
	ac_proc_result result = {0};
	ac_buf why = AC_BUF_INIT;
	char *input = json_dumps(c->input, JSON_COMPACT | JSON_ENCODE_ANY);
	int rc;

	if (!input)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_checkpoint_compensation_run(&result, c->argv, plan->session_id, cwd, input,
						 strlen(input), timeout_ms))) {
		rc = ac_error_set(AC_EIO, "rollback of session '%s' stopped: compensation for "
				  "tool '%s' call '%s' could not start: %s; session history "
				  "left unchanged", plan->session_id, c->tool, c->call_id,
				  ac_error_last());
	} else if (result.exit_status != 0 || result.timed_out) {
		ac_proc_describe_failure(&why, &result, timeout_ms);
		rc = ac_error_set(AC_EIO, "rollback of session '%s' stopped: compensation for "
				  "tool '%s' call '%s' %s; %zu compensation(s) ran before it "
				  "(recorded: a retry does not run them again); session history "
				  "left unchanged", plan->session_id, c->tool, c->call_id,
				  why.data ? why.data : "failed", ran);
	}
	ac_proc_result_free(&result);
	ac_buf_free(&why);
	free(input);
	return rc;
}

/* Records call c in record (a compensation run or about to): started
 * (done false) or done, then saves it durably. */
static int note_call(json_t *record, const ac_checkpoint_compensation *c,
		     const ac_checkpoint_plan *plan, const char *sessions_dir, bool done,
		     const char *uncertain)
{
	json_t *calls = json_object_get(record, "calls"), *entry = json_object_get(calls, c->call_id);
	char at[AC_TIME_ISO_LEN + 1];

	ac_time_format_iso(at, ac_time_now_ms());
	if (!entry || !done) {
		entry = json_pack("{s:s, s:s, s:s, s:s}", "tool", c->tool, "command", c->argv[0],
				  "checkpointId", ac_checkpoint_id(plan->checkpoint), "startedAt", at);
		if (!entry || json_object_set_new(calls, c->call_id, entry))
			return ac_error_set(AC_ENOMEM, "out of memory");
	}
	if (done && (json_object_set_new(entry, "at", json_string(at)) ||
		     (uncertain && json_object_set_new(entry, "uncertain", json_string(uncertain)))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return save_compensated(record, sessions_dir, plan->session_id);
}

/* The rollback's stop before a compensation an earlier attempt started
 * and never finished: one line naming what to check by hand. */
static int stop_uncertain(const ac_checkpoint_compensation *c, const ac_checkpoint_plan *plan,
			  const json_t *entry)
{
	const char *started = json_string_value(json_object_get(entry, "startedAt"));

	return ac_error_set(AC_EIO, "rollback of session '%s' to checkpoint '%s' stopped: the "
			    "compensation for tool '%s' call '%s' (command '%s') was started%s%s by "
			    "an earlier rollback that did not finish, so it may or may not have "
			    "taken effect; it was not run again and the session history was left "
			    "unchanged (check it, then roll back with --skip-uncertain to go on "
			    "as if it ran, or --rerun-uncertain to run it again)", plan->session_id,
			    ac_checkpoint_id(plan->checkpoint), c->tool, c->call_id, c->argv[0],
			    started ? " at " : "", started ? started : "");
}

/* The record's folders, made durable before the record is first saved:
 * a compensation runs only once its "started" is there to stay, and a
 * power cut must not take <id>/ (or .rollbacks/) with the record and so
 * let a retry run the compensation again (found by the simulator: seed 2
 * of "checkpoint", docs/RELIABILITY.md "Simulation"). */
static int make_record_folder(const char *sessions_dir, const char *id)
{
	ac_buf dir = AC_BUF_INIT;
	int rc = ac_archive_durable_folder(&dir, sessions_dir, ".rollbacks", id);

	ac_buf_free(&dir);
	return rc;
}

/* Runs the compensations still due, newest first, each recorded as
 * started before it runs and as done after. */
static int run_compensations(ac_checkpoint_rollback_result *out, const ac_checkpoint_plan *plan,
			     const char *sessions_dir, const char *cwd,
			     const ac_checkpoint_rollback_options *opts)
{
	int timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : AC_CHECKPOINT_TIMEOUT_MS;
	json_t *record = NULL, *calls;
	bool folder_made = false;
	int rc;

	if ((rc = load_compensated(&record, sessions_dir, plan->session_id)))
		return rc;
	calls = json_object_get(record, "calls");
	for (size_t i = 0; i < plan->n_calls; i++) {
		const ac_checkpoint_compensation *c = &plan->calls[i];
		const json_t *entry;

		if (!c->argv)
			continue;
		entry = json_object_get(calls, c->call_id);
		/* Done: an entry with "at" (the only kind older versions wrote). */
		if (entry && json_object_get(entry, "at")) {
			out->skipped++;
			continue;
		}
		if (!folder_made && (rc = make_record_folder(sessions_dir, plan->session_id)))
			break;
		folder_made = true;
		if (entry) {
			out->uncertain++;
			if (plan->uncertain == AC_CHECKPOINT_UNCERTAIN_STOP) {
				rc = stop_uncertain(c, plan, entry);
				break;
			}
			if (plan->uncertain == AC_CHECKPOINT_UNCERTAIN_SKIP) {
				out->skipped++;
				if ((rc = note_call(record, c, plan, sessions_dir, true, "skipped")))
					break;
				continue;
			}
		}
		/* Recorded as started before it runs: a kill while it runs leaves
		 * it uncertain, never forgotten and run again (the planted bug
		 * records it only after it exited). */
		if (!AC_MUTATION("compensation_recorded_after_exit") &&
		    (rc = note_call(record, c, plan, sessions_dir, false, NULL)))
			break;
		rc = compensate(c, plan, cwd, timeout_ms, out->ran + out->skipped);
		if (opts->attempted)
			opts->attempted(c, rc, rc ? ac_error_last() : "", opts->ctx);
		if (rc) {
			/* It ran and failed (or never started): not uncertain, a
			 * retry runs it again. */
			char *why = strdup(ac_error_last());

			json_object_del(calls, c->call_id);
			if (save_compensated(record, sessions_dir, plan->session_id) == 0 || !why)
				ac_error_set(rc, "%s", why ? why : "out of memory");
			free(why);
			break;
		}
		out->ran++;
		if ((rc = note_call(record, c, plan, sessions_dir, true, NULL)))
			break;
	}
	json_decref(record);
	return rc;
}

int ac_checkpoint_rollback(ac_checkpoint_rollback_result *out, const ac_checkpoint_plan *plan,
			   const char *sessions_dir, const char *cwd,
			   const ac_checkpoint_rollback_options *opts)
{
	static const ac_checkpoint_rollback_options defaults = AC_CHECKPOINT_ROLLBACK_OPTIONS_INIT;
	char at[AC_TIME_ISO_LEN + 1], *archive_relative = NULL;
	const json_t *created;
	ac_session_write_options write = AC_SESSION_WRITE_OPTIONS_INIT;
	json_t *removed = NULL, *extra = NULL;
	bool published = false;
	ac_buf path = AC_BUF_INIT;
	cut_change change;
	int64_t now_ms;
	int rc, held = -1;

	memset(out, 0, sizeof(*out));
	if (!opts)
		opts = &defaults;
	if ((rc = ac_struct_version_check("ac_checkpoint_rollback_options", opts->version,
					  AC_CHECKPOINT_ROLLBACK_OPTIONS_VERSION,
					  "AC_CHECKPOINT_ROLLBACK_OPTIONS_INIT")) ||
	    (rc = ac_session_write_options_check(opts->write)))
		return rc;
	/* Held to the end: gc leaves the session's archives and checkpoints
	 * alone meanwhile (ac_lock_session()). A store that cuts in its own
	 * transaction holds its own lock (ac_backend_pg_hold_session()), and
	 * leaves no lock file among the session files. */
	if ((!opts->cut && (rc = ac_lock_session(&held, sessions_dir, plan->session_id, false))) ||
	    (rc = run_compensations(out, plan, sessions_dir, cwd, opts)))
		goto done;
	if ((plan->remove > 0 || plan->unfolded) && opts->cut) {
		/* The store cuts and archives in its own transaction. */
		if ((rc = opts->cut(plan, opts->cut_ctx)))
			goto done;
	} else if (plan->remove > 0 || plan->unfolded) {
		if ((rc = ac_checkpoint_removed(&removed, plan)))
			goto done;
		now_ms = ac_time_now_ms();
		ac_time_format_iso(at, now_ms);
		created = json_object_get(plan->checkpoint, "createdAt");
		extra = json_pack("{s:s, s:I}", "checkpointId", ac_checkpoint_id(plan->checkpoint),
				  "version", (json_int_t)ac_checkpoint_version(plan->checkpoint));
		if ((rc = ac_archive_write(&out->archive_path, &archive_relative, sessions_dir,
					   ".rollbacks", plan->session_id,
					   json_string_value(created) ? json_string_value(created) : "",
					   now_ms, removed, extra)))
			goto done;
		change = (cut_change){plan, archive_relative, at};
		if (opts->write)
			write = *opts->write;
		write.published = &published;
		if ((rc = ac_session_update_with(NULL, sessions_dir, plan->session_id, cut_history,
						 &change, &write))) {
			if (!published) {
				ac_fs_unlink(out->archive_path);
				free(out->archive_path);
				out->archive_path = NULL;
			}
			goto done;
		}
	}
	/* Done: a later rollback compensates anew what this one removed. */
	if (compensated_path(&path, sessions_dir, plan->session_id) == 0)
		finish_record(plan, sessions_dir, path.data);
done:
	json_decref(removed);
	json_decref(extra);
	free(archive_relative);
	ac_buf_free(&path);
	if (held >= 0)
		ac_fs_close(held);
	return rc;
}

void ac_checkpoint_rollback_result_free(ac_checkpoint_rollback_result *result)
{
	free(result->archive_path);
	result->archive_path = NULL;
}
