/* The operation log: reading, recording, rolling back. */
#include "ac_oplog.h"
#include "ac_oplog_impl.h"

#include "ac_error.h"
#include "ac_uuid.h"
#include "ac_file.h"
#include "ac_journal.h"
#include "ac_journal_reader.h"
#include "ac_journal_store.h"
#include "ac_json_exact.h"
#include "ac_time.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOCK_TIMEOUT_MS AC_OPLOG_LOCK_TIMEOUT_MS

static const char *const types[] = {"file_write", "file_delete", "command_run", NULL};

static bool known_type(const char *type)
{
	for (size_t i = 0; types[i]; i++)
		if (!strcmp(types[i], type))
			return true;
	return false;
}

static void op_clear(ac_op *op)
{
	free(op->id);
	free(op->timestamp);
	free(op->session_id);
	free(op->type);
	free(op->commit);
	json_decref(op->raw);
	memset(op, 0, sizeof(*op));
}

void ac_oplog_op_clear(ac_op *op)
{
	op_clear(op);
}

void ac_op_free(ac_op *op)
{
	if (!op)
		return;
	op_clear(op);
	free(op);
}

void ac_op_list_free(ac_op_list *list)
{
	for (size_t i = 0; list->ops && i < list->n; i++)
		op_clear(&list->ops[i]);
	free(list->ops);
	memset(list, 0, sizeof(*list));
}

const ac_op *ac_op_list_find(const ac_op_list *list, const char *id)
{
	for (size_t i = list->n; i-- > 0;)
		if (!strcmp(list->ops[i].id, id))
			return &list->ops[i];
	return NULL;
}

int ac_op_list_find_unique(const ac_op **out, const ac_op_list *list, const char *id,
			   const char *path)
{
	ac_buf lines = AC_BUF_INIT;
	size_t count = 0;
	int rc = 0;

	*out = NULL;
	for (size_t i = 0; i < list->n; i++) {
		if (strcmp(list->ops[i].id, id))
			continue;
		ac_buf_printf(&lines, "%s%llu", count ? ", " : "", (unsigned long long)list->ops[i].line);
		*out = &list->ops[i];
		count++;
	}
	if (count == 0)
		rc = ac_error_set(AC_ENOTFOUND, "operation %s: not in %s", id, path);
	else if (count > 1)
		rc = ac_error_set(AC_EINVAL, "operation %s: ambiguous, %zu lines of %s carry this id "
				  "(lines %s); refusing to pick one", id, count, path,
				  lines.data ? lines.data : "?");
	if (rc)
		*out = NULL;
	ac_buf_free(&lines);
	return rc;
}

static const char *string_field(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : "";
}

/* Fills op from a parsed line, taking the reference to raw. On failure
 * *why says what is wrong with the line and raw is released. */
static int op_from_json(ac_op *op, json_t *raw, const char **why)
{
	json_t *details, *hash;

	memset(op, 0, sizeof(*op));
	*why = NULL;
	if (!json_is_object(raw))
		*why = "not a JSON object";
	else if (!json_is_string(json_object_get(raw, "id")) || !*string_field(raw, "id"))
		*why = "\"id\" is missing or not a string";
	else if (!json_is_string(json_object_get(raw, "type")))
		*why = "\"type\" is missing or not a string";
	else if ((details = json_object_get(raw, "details")) && !json_is_object(details))
		*why = "\"details\" is not an object";
	else if ((hash = json_object_get(raw, "gitCommitHash")) && !json_is_string(hash) &&
		 !json_is_null(hash))
		*why = "\"gitCommitHash\" is not a string";
	if (*why) {
		json_decref(raw);
		return AC_ECORRUPT;
	}
	if (!json_object_get(raw, "details") && json_object_set_new(raw, "details", json_object())) {
		json_decref(raw);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	op->raw = raw;
	op->details = json_object_get(raw, "details");
	op->id = strdup(string_field(raw, "id"));
	op->timestamp = strdup(string_field(raw, "timestamp"));
	op->session_id = strdup(string_field(raw, "sessionId"));
	op->type = strdup(string_field(raw, "type"));
	if (*string_field(raw, "gitCommitHash"))
		op->commit = strdup(string_field(raw, "gitCommitHash"));
	if (!op->id || !op->timestamp || !op->session_id || !op->type ||
	    (!op->commit && *string_field(raw, "gitCommitHash"))) {
		op_clear(op);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	return 0;
}

int ac_oplog_parse_line(ac_op *out, const char *text, size_t len, ac_buf *why)
{
	const char *what = NULL;
	json_t *raw = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	ac_buf_clear(why);
	/* As the seed's JSON.parse reads it: a lone surrogate that a Node
	 * agent's .slice() left in details included (ac_json_exact.h). */
	if ((rc = ac_json_exact_load(&raw, text, len, 0, "not JSON")) != 0) {
		if (rc == AC_ECORRUPT)
			ac_buf_printf(why, "%s", ac_error_last());
		return rc;
	}
	if ((rc = op_from_json(out, raw, &what)) == AC_ECORRUPT)
		ac_buf_printf(why, "%s", what);
	return rc;
}

static int push_op(ac_op_list *list, size_t *cap, const ac_op *op)
{
	if (list->n == *cap) {
		size_t new_cap = *cap ? *cap * 2 : 16;
		ac_op *grown = realloc(list->ops, new_cap * sizeof(*grown));

		if (!grown)
			return ac_error_set(AC_ENOMEM, "out of memory");
		list->ops = grown;
		*cap = new_cap;
	}
	list->ops[list->n++] = *op;
	return 0;
}

int ac_oplog_read(ac_op_list *out, const char *path, uint64_t offset, uint64_t first_line,
		  ac_oplog_problem_fn report, void *ctx)
{
	ac_journal_reader *r = NULL;
	ac_journal_line line;
	ac_buf reason = AC_BUF_INIT;
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	out->next_offset = offset;
	out->next_line = first_line;
	rc = ac_journal_reader_open(&r, path, offset, UINT64_MAX, first_line);
	if (rc == AC_ENOTFOUND) {
		ac_error_clear();
		return 0;
	}
	if (rc)
		return rc;
	while ((rc = ac_journal_reader_next(r, &line)) == 1) {
		const char *why = NULL;
		ac_op op;

		if (line.overlong) {
			why = "longer than the line limit";
		} else if ((rc = ac_oplog_parse_line(&op, line.text, line.len, &reason)) == 0) {
			op.line = line.number;
			if ((rc = push_op(out, &cap, &op))) {
				op_clear(&op);
				goto done;
			}
			continue;
		} else if (rc != AC_ECORRUPT) {
			goto done;
		} else {
			why = reason.data ? reason.data : "not a valid operation";
		}
		out->skipped++;
		if (report)
			report(path, line.number, why, ctx);
	}
	if (rc < 0)
		goto done;
	rc = 0;
	out->next_offset = ac_journal_reader_offset(r);
	out->next_line = ac_journal_reader_number(r);
	out->torn = ac_journal_reader_tail(r, &out->torn_offset) > 0;
done:
	if (rc)
		ac_op_list_free(out);
	ac_buf_free(&reason);
	ac_journal_reader_free(r);
	return rc;
}

/* Appends at most max bytes of text, cutting on a UTF-8 boundary. */
static int append_cut(ac_buf *out, const char *text, size_t max)
{
	size_t len = strlen(text);

	if (len <= max)
		return ac_buf_append(out, text, len);
	len = max > 3 ? max - 3 : 0;
	while (len > 0 && ((unsigned char)text[len] & 0xc0) == 0x80)
		len--;
	if (ac_buf_append(out, text, len))
		return AC_ENOMEM;
	return ac_buf_append(out, "...", 3);
}

int ac_oplog_summary(ac_buf *out, const json_t *details, size_t max)
{
	static const char *const keys[] = {"path", "file", "command", NULL};
	const char *rollback = json_string_value(json_object_get(details, "rollbackOf"));
	const char *revert = json_string_value(json_object_get(details, "revertOf"));
	size_t len = 0;
	char *text;
	int rc;

	for (size_t i = 0; keys[i]; i++) {
		const char *value = json_string_value(json_object_get(details, keys[i]));

		if (value)
			return append_cut(out, value, max);
	}
	if (rollback || revert) {
		ac_buf tmp = AC_BUF_INIT;

		rc = rollback ? ac_buf_printf(&tmp, "rollback to before %s", rollback)
			      : ac_buf_printf(&tmp, "revert of %s", revert);
		if (rc == 0)
			rc = append_cut(out, tmp.data, max);
		ac_buf_free(&tmp);
		return rc;
	}
	if (!details || !(text = ac_json_exact_dumps(details, JSON_COMPACT, &len)))
		return details ? AC_ENOMEM : 0;
	rc = append_cut(out, text, max);
	free(text);
	return rc;
}


/* Writes one operation line; *out (may be NULL) receives it. Numbers that
 * ac_json_exact_load() kept in details go back as they came. */
static int append_op(ac_op **out, const ac_workspace *ws, const char *session_id,
		     const char *type, const json_t *details, const char *commit)
{
	char id[37], now[AC_TIME_ISO_LEN + 1], *line = NULL, *dir = NULL, *slash;
	size_t line_len = 0;
	json_t *record = NULL;
	ac_journal_options opts = ws->journal;
	const char *why;
	ac_op *op = NULL;
	int rc;

	ac_uuid_v4(id);
	ac_time_format_iso(now, ac_time_now_ms());
	record = json_pack("{s:s, s:s, s:s, s:s, s:O}", "id", id, "timestamp", now,
			   "sessionId", session_id, "type", type, "details", details);
	if (!record || (commit && json_object_set_new(record, "gitCommitHash", json_string(commit))) ||
	    !(line = ac_json_exact_dumps(record, JSON_COMPACT, &line_len)) ||
	    !(dir = strdup(ws->operations_path))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if ((rc = ac_file_mkdirs(dir)))
			goto done;
	}
	/* The log is never rotated: rollback needs every line it names. */
	opts.rotate_bytes = 0;
	if ((rc = ac_journal_append(NULL, ws->operations_path, line, line_len, &opts)))
		goto done;
	if (out) {
		if (!(op = calloc(1, sizeof(*op)))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		if ((rc = op_from_json(op, record, &why))) {
			free(op);
			record = NULL;
			goto done;
		}
		record = NULL;
		*out = op;
	}
done:
	json_decref(record);
	free(line);
	free(dir);
	return rc;
}

/* ac_git_open() (out) or ac_git_exclude_ensure() (out NULL) with ws's
 * agent state protected. */
static int with_protect(ac_git **out, const ac_workspace *ws)
{
	const char *folders[] = {ws->sessions_dir, ws->checkpoints_dir, NULL};
	const char *files[] = {ws->operations_path, NULL};
	const char *journals[] = {ws->journal_path, NULL};
	ac_git_protect protect = {folders, files, journals};

	return out ? ac_git_open(out, ws->root, &protect) : ac_git_exclude_ensure(ws->root, &protect);
}

int ac_oplog_open_git(ac_git **out, const ac_workspace *ws)
{
	return with_protect(out, ws);
}

int ac_oplog_exclude_agent_state(const ac_workspace *ws)
{
	return ws->git_enabled ? with_protect(NULL, ws) : 0;
}

int ac_oplog_record(ac_op **out, const ac_workspace *ws, const char *session_id,
		    const char *type, const json_t *details)
{
	char hash[AC_GIT_HASH_LEN + 1];
	json_t *empty = NULL;
	ac_buf message = AC_BUF_INIT;
	ac_git *git = NULL;
	int lock_fd = -1, rc;
	bool commits;

	if (out)
		*out = NULL;
	if (!type || !known_type(type))
		return ac_error_set(AC_EINVAL, "operation type '%s' is not one of file_write, "
				    "file_delete, command_run", type ? type : "(none)");
	if (!session_id)
		return ac_error_set(AC_EINVAL, "an operation needs a session id");
	if (details && !json_is_object(details))
		return ac_error_set(AC_EINVAL, "operation details must be a JSON object");
	if (!details && !(details = empty = json_object()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	/* As the seed: gitEnabled, and never for a command. */
	commits = ws->git_enabled && strcmp(type, "command_run") != 0;
	if (commits) {
		rc = ac_oplog_open_git(&git, ws);
		if (rc == AC_ENOTFOUND) {
			commits = false; /* no repository: nothing to commit to */
			ac_error_clear();
		} else if (rc) {
			goto done;
		}
	}
	if (commits) {
		/* A commit now would take a half rolled back worktree for an
		 * agent's work. Asked under the lock: a rollback holds it
		 * from its snapshot to its last file. */
		if ((rc = ac_git_lock(&lock_fd, git, LOCK_TIMEOUT_MS)) ||
		    (rc = ac_oplog_intent_refuse(ws, "ops record")))
			goto done;
		if ((rc = ac_oplog_commit_message(&message, type, details)))
			goto done;
		if ((rc = ac_git_commit_workspace(hash, git, message.data)))
			goto done;
	}
	/* Under the same lock as the commit, so the log's order is the
	 * history's order. */
	rc = append_op(out, ws, session_id, type, details, commits ? hash : NULL);
done:
	if (lock_fd >= 0)
		close(lock_fd);
	ac_git_free(git);
	ac_buf_free(&message);
	json_decref(empty);
	return rc;
}

static void free_sessions(ac_oplog_rollback_result *r)
{
	for (size_t i = 0; i < r->n_sessions; i++)
		free(r->sessions[i]);
	free(r->sessions);
	r->sessions = NULL;
	r->n_sessions = 0;
}

void ac_oplog_rollback_result_free(ac_oplog_rollback_result *r)
{
	ac_git_rollback_result_free(&r->git);
	ac_op_free(r->op);
	r->op = NULL;
	free_sessions(r);
}

/* The operation log and journal entries of a rollback that happened. A
 * failure is an error naming what was done and what was not: the files
 * did change. */
static int record_rollback(ac_oplog_rollback_result *out, const ac_workspace *ws,
			   const ac_op *target, bool revert)
{
	const ac_git_rollback_result *g = &out->git;
	const char *what = revert ? "reverted" : "rolled back";
	/* The operator's, not the agent's: its own type, and details.agent
	 * naming the operator as the journal does. */
	json_t *details = json_pack("{s:s, s:s, s:s}", revert ? "revertOf" : "rollbackOf",
				    target->id, "snapshot", g->snapshot, "agent", "Human");
	ac_buf message = AC_BUF_INIT;
	int rc = 0;

	if (!details)
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	else
		rc = append_op(&out->op, ws, target->session_id, revert ? "revert" : "rollback",
			       details, g->commit);
	if (rc) {
		char *why = strdup(ac_error_last());

		rc = ac_error_set(rc, "the files were %s (commit %.12s, snapshot %.12s) but "
				  "the %s was not written to the operation log: %s", what, g->commit,
				  g->snapshot, revert ? "revert" : "rollback", why ? why : "out of memory");
		free(why);
		goto done;
	}
	ac_buf_printf(&message, "%s operation %s: %zu removed, %zu restored, "
		      "%zu changed (snapshot %.12s)", revert ? "Reverted" : "Rolled back to before",
		      target->id, g->removed, g->restored, g->changed, g->snapshot);
	if (ac_journal_operator_event(ws, "ROLLBACK", "SUCCESS", target->session_id,
				      json_pack("{s:s, s:s?, s:s, s:s, s:I, s:b}", "operationId", target->id,
						"rollbackOperationId", out->op ? out->op->id : NULL,
						"commit", g->commit, "snapshot", g->snapshot,
						"files", (json_int_t)g->n, "revert", revert),
				      message.data ? message.data : "Rolled back") != 0) {
		char *why = strdup(ac_error_last());

		rc = ac_error_set(AC_EIO, "the files were %s (commit %.12s, recorded as "
				  "operation %s) but the journal was not written: %s", what, g->commit,
				  out->op->id, why ? why : "out of memory");
		free(why);
	}
done:
	json_decref(details);
	ac_buf_free(&message);
	return rc;
}

/* A note naming the agent-state paths git tracks, which other tools'
 * `git add -A` or checkout can still rewind, and the command that stops
 * that. */
static void note_tracked_state(ac_buf *notes, ac_git *git)
{
	char **paths = NULL;
	size_t n = 0;

	if (!notes || ac_git_tracked_agent_state(&paths, &n, git) != 0 || n == 0) {
		ac_error_clear();
		ac_git_paths_free(paths, n);
		return;
	}
	ac_buf_printf(notes, "%sgit tracks agent state (%zu path%s), which another tool's "
		      "checkout could rewind; untrack it with: git -C ", notes->len ? "; " : "", n,
		      n == 1 ? "" : "s");
	ac_oplog_shell_quote(notes, ac_git_workdir(git));
	ac_buf_printf(notes, " rm --cached -r --");
	for (size_t i = 0; i < n; i++) {
		ac_buf_putc(notes, ' ');
		ac_oplog_shell_quote(notes, paths[i]);
	}
	ac_git_paths_free(paths, n);
}

void ac_oplog_note_tracked_state(ac_buf *notes, const ac_workspace *ws)
{
	ac_git *git = NULL;

	if (ac_oplog_open_git(&git, ws) == 0)
		note_tracked_state(notes, git);
	ac_error_clear();
	ac_git_free(git);
}

void ac_oplog_shell_quote(ac_buf *out, const char *text)
{
	if (*text && strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "0123456789-_./+=:@%,") == strlen(text)) {
		ac_buf_append(out, text, strlen(text));
		return;
	}
	ac_buf_putc(out, '\'');
	for (const char *p = text; *p; p++) {
		if (*p == '\'')
			ac_buf_append(out, "'\\''", 4);
		else
			ac_buf_putc(out, *p);
	}
	ac_buf_putc(out, '\'');
}

/* The sessions of list's operations from target on (all of them), or
 * target's alone, into out->sessions. */
static int name_sessions(ac_oplog_rollback_result *out, const ac_op_list *list,
			 const ac_op *target, bool all)
{
	size_t from = (size_t)(target - list->ops), to = all ? list->n : from + 1;

	if (!(out->sessions = calloc(to - from, sizeof(*out->sessions))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = from; i < to; i++) {
		const char *id = list->ops[i].session_id;
		bool seen = false;

		for (size_t j = 0; j < out->n_sessions && !seen; j++)
			seen = !strcmp(out->sessions[j], id);
		if (!*id || seen)
			continue;
		if (!(out->sessions[out->n_sessions] = strdup(id)))
			return ac_error_set(AC_ENOMEM, "out of memory");
		out->n_sessions++;
	}
	return 0;
}

/* What ac_git_undo() records before the first file: the intent. */
typedef struct {
	const ac_workspace *ws;
	const ac_op *target;
	const char *message;
	bool revert;
} intent_ctx;

static int write_intent(const ac_git_rollback_result *plan, void *arg)
{
	const intent_ctx *c = arg;

	return ac_oplog_intent_write(c->ws, c->target, c->revert, c->message, plan);
}

/* A failed write was put back whole: the worktree is the snapshot again. */
static void drop_intent(void *arg)
{
	const intent_ctx *c = arg;

	ac_oplog_intent_remove(c->ws);
}

/* True when list already holds the rollback intent names (the stop came
 * after its log line). */
static bool already_logged(const ac_op_list *list, const ac_oplog_intent *intent)
{
	for (size_t i = list->n; i-- > 0;) {
		const json_t *d = list->ops[i].details;
		const char *of = json_string_value(json_object_get(d, intent->revert ? "revertOf"
										       : "rollbackOf"));
		const char *snapshot = json_string_value(json_object_get(d, "snapshot"));

		if (of && snapshot && !strcmp(of, intent->op_id) &&
		    !strcmp(snapshot, intent->plan.snapshot))
			return true;
	}
	return false;
}

/* Runs again the rollback intent records (its operation is target): the
 * recorded plan written whole, the commit, the log line and journal event
 * unless already there, the stopped run's temp files, the intent. With
 * dry_run, out->git is the recorded plan. Under the git lock. */
static int finish(ac_oplog_rollback_result *out, const ac_workspace *ws, ac_git *git,
		  const ac_oplog_intent *intent, const ac_op_list *list, const ac_op *target,
		  bool dry_run)
{
	int rc;

	if ((rc = ac_oplog_plan_copy(&out->git, &intent->plan)) || dry_run ||
	    (rc = ac_oplog_intent_note_attempt(ws)))
		return rc;
	if ((rc = ac_git_finish(out->git.commit, git, &intent->plan, intent->message)))
		return rc;
	if (!already_logged(list, intent) && (rc = record_rollback(out, ws, target, intent->revert)))
		return rc;
	ac_oplog_intent_clean_temps(git, intent);
	return ac_oplog_intent_remove(ws);
}

static int undo(ac_oplog_rollback_result *out, const ac_workspace *ws, const char *op_id,
		bool dry_run, ac_buf *notes, bool revert)
{
	ac_op_list list = {0};
	const ac_op *target;
	ac_buf snapshot_message = AC_BUF_INIT, message = AC_BUF_INIT;
	ac_oplog_intent *intent = NULL;
	ac_git *git = NULL;
	int lock_fd = -1, rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_oplog_read(&list, ws->operations_path, 0, 1, NULL, NULL)))
		goto done;
	if ((rc = ac_op_list_find_unique(&target, &list, op_id, ws->operations_path)))
		goto done;
	if (!target->commit) {
		rc = ac_error_set(AC_EINVAL, "operation %s (%s) has no git commit: "
				  "not reversible on its own", op_id, target->type);
		goto done;
	}
	if ((rc = name_sessions(out, &list, target, !revert)))
		goto done;
	if ((rc = ac_oplog_open_git(&git, ws)) || (rc = ac_git_lock(&lock_fd, git, LOCK_TIMEOUT_MS)))
		goto done;
	/* Under the lock: a rollback still running holds it until its intent
	 * is gone. The same rollback again finishes a stopped one; any other
	 * is refused, since the worktree is half changed. */
	if ((rc = ac_oplog_intent_read(&intent, ws)))
		goto done;
	if (intent && (intent->revert != revert || strcmp(intent->op_id, target->id))) {
		rc = ac_oplog_intent_refuse(ws, revert ? "ops revert" : "ops rollback");
		goto done;
	}
	if (intent) {
		if ((rc = finish(out, ws, git, intent, &list, target, dry_run)) == 0)
			note_tracked_state(notes, git);
		goto done;
	}
	if (revert) {
		ac_buf_printf(&snapshot_message, "[agent] snapshot before revert of %s", op_id);
		ac_buf_printf(&message, "[agent] revert of %s", op_id);
	} else {
		ac_buf_printf(&snapshot_message, "[agent] snapshot before rollback to before %s", op_id);
		ac_buf_printf(&message, "[agent] rollback to before %s", op_id);
	}
	if (!snapshot_message.data || !message.data) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	{
		intent_ctx ctx = {ws, target, message.data, revert};
		ac_git_undo_options opts = {.version = AC_GIT_UNDO_OPTIONS_VERSION,
					    .revert = revert, .dry_run = dry_run,
					    .before_apply = write_intent, .put_back = drop_intent,
					    .ctx = &ctx};

		if ((rc = ac_git_undo(&out->git, git, target->commit, snapshot_message.data,
				      message.data, &opts)))
			goto done;
	}
	note_tracked_state(notes, git);
	if (dry_run)
		goto done;
	rc = record_rollback(out, ws, target, revert);
	/* Once the log names the rollback, it is whole: the intent goes. A
	 * failed log line keeps it, so that running it again records it. */
	if (out->op) {
		int removed = ac_oplog_intent_remove(ws);

		rc = rc ? rc : removed;
	}
done:
	if (rc != 0)
		free_sessions(out);
	if (lock_fd >= 0)
		close(lock_fd);
	ac_oplog_intent_free(intent);
	ac_git_free(git);
	ac_op_list_free(&list);
	ac_buf_free(&snapshot_message);
	ac_buf_free(&message);
	return rc;
}

int ac_oplog_rollback(ac_oplog_rollback_result *out, const ac_workspace *ws, const char *op_id,
		      bool dry_run, ac_buf *notes)
{
	return undo(out, ws, op_id, dry_run, notes, false);
}

int ac_oplog_revert(ac_oplog_rollback_result *out, const ac_workspace *ws, const char *op_id,
		    bool dry_run, ac_buf *notes)
{
	return undo(out, ws, op_id, dry_run, notes, true);
}

int ac_oplog_finish_interrupted(ac_oplog_rollback_result *out, const ac_workspace *ws,
				bool dry_run, ac_buf *notes)
{
	ac_oplog_intent *intent = NULL;
	ac_buf path = AC_BUF_INIT;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_oplog_intent_read(&intent, ws)))
		return rc;
	if (!intent) {
		ac_oplog_intent_path(&path, ws);
		rc = ac_error_set(AC_ENOTFOUND, "%s: no interrupted rollback or revert to finish",
				  path.data ? path.data : ".agent/" AC_OPLOG_INTENT_FILE);
		ac_buf_free(&path);
		return rc;
	}
	/* undo() reads it again under the lock, and refuses if it changed. */
	rc = undo(out, ws, intent->op_id, dry_run, notes, intent->revert);
	ac_oplog_intent_free(intent);
	return rc;
}
