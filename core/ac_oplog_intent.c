/* The intent of a rollback or revert (ac_oplog_intent.h): its file, what
 * it says, and undoing the stopped rollback it names. Finishing one is
 * ac_oplog.c's (the same path as running the rollback again). */
#include "ac_oplog_impl.h"

#include "ac_atomic.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_fs_calls.h"
#include "ac_journal_store.h"
#include "ac_time.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ac_oplog_intent_path(ac_buf *out, const ac_workspace *ws)
{
	return ac_buf_printf(out, "%s/.agent/" AC_OPLOG_INTENT_FILE, ws->root) ? AC_ENOMEM : 0;
}

void ac_oplog_intent_free(ac_oplog_intent *intent)
{
	if (!intent)
		return;
	free(intent->op_id);
	free(intent->session_id);
	free(intent->started_at);
	free(intent->message);
	free(intent->attempts);
	ac_git_rollback_result_free(&intent->plan);
	free(intent);
}

/* A path as JSON: a string, or {"hex": ...} for bytes that are not UTF-8
 * (a path is its bytes). */
static json_t *path_json(const char *path)
{
	json_t *s = json_string(path);
	ac_buf hex = AC_BUF_INIT;

	if (s)
		return s;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		ac_buf_printf(&hex, "%02x", *p);
	s = hex.data ? json_pack("{s:s}", "hex", hex.data) : NULL;
	ac_buf_free(&hex);
	return s;
}

static char *path_from_json(const json_t *v)
{
	const char *hex = json_string_value(json_object_get(v, "hex"));
	size_t len;
	char *out;

	if (json_is_string(v))
		return strdup(json_string_value(v));
	if (!hex || (len = strlen(hex)) % 2 || !(out = malloc(len / 2 + 1)))
		return NULL;
	for (size_t i = 0; i < len / 2; i++) {
		char byte[3] = {hex[2 * i], hex[2 * i + 1], '\0'};

		out[i] = (char)strtol(byte, NULL, 16);
		if (!out[i]) {
			free(out);
			return NULL;
		}
	}
	out[len / 2] = '\0';
	return out;
}

int ac_oplog_intent_write(const ac_workspace *ws, const ac_op *target, bool revert,
			  const char *message, const ac_git_rollback_result *plan)
{
	char now[AC_TIME_ISO_LEN + 1];
	ac_buf path = AC_BUF_INIT;
	json_t *doc = NULL, *files = json_array();
	char *text = NULL;
	int rc = 0;

	ac_time_format_iso(now, ac_time_now_ms());
	for (size_t i = 0; files && i < plan->n; i++)
		if (json_array_append_new(files, json_pack("{s:s, s:o*}", "action",
							   ac_git_action_name(plan->items[i].action), "path",
							   path_json(plan->items[i].path))))
			goto oom;
	doc = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:s, "
			"s:I, s:I, s:I, s:I, s:o*}",
			"version", 1, "kind", revert ? "revert" : "rollback", "operationId", target->id,
			"sessionId", target->session_id, "operationCommit", target->commit,
			"target", plan->target, "targetTree", plan->target_tree, "snapshot",
			plan->snapshot, "message", message, "pid", (json_int_t)getpid(),
			"startedAt", now, "removed", (json_int_t)plan->removed, "restored",
			(json_int_t)plan->restored, "changed", (json_int_t)plan->changed, "kept",
			(json_int_t)plan->kept, "files", files);
	files = NULL;
	if (!doc || !(text = json_dumps(doc, JSON_COMPACT)) || ac_oplog_intent_path(&path, ws))
		goto oom;
	path.data[path.len - strlen("/" AC_OPLOG_INTENT_FILE)] = '\0';
	rc = ac_file_mkdirs(path.data);
	path.data[strlen(path.data)] = '/';
	if (rc == 0)
		rc = ac_atomic_write(path.data, text, strlen(text), NULL, NULL);
	if (rc)
		rc = ac_error_set(rc, "%s: cannot record the rollback's intent, so no file was "
				  "touched (the snapshot %.12s is HEAD): %s", path.data, plan->snapshot,
				  ac_error_last());
	goto done;
oom:
	rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	json_decref(files);
	json_decref(doc);
	free(text);
	ac_buf_free(&path);
	return rc;
}

int ac_oplog_intent_remove(const ac_workspace *ws)
{
	ac_buf path = AC_BUF_INIT;
	int rc = 0;

	if (ac_oplog_intent_path(&path, ws))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (ac_fs_unlink(path.data) != 0 && errno != ENOENT)
		rc = ac_error_errno(errno, "%s: cannot remove the rollback's intent", path.data);
	else
		rc = ac_file_sync_folder_of(path.data);
	ac_buf_free(&path);
	return rc;
}

static int copy_hash(char out[AC_GIT_HASH_LEN + 1], const json_t *doc, const char *key)
{
	const char *s = json_string_value(json_object_get(doc, key));

	if (!s || strlen(s) > AC_GIT_HASH_LEN || strspn(s, "0123456789abcdef") != strlen(s))
		return -1;
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

static size_t count_of(const json_t *doc, const char *key)
{
	json_int_t n = json_integer_value(json_object_get(doc, key));

	return n > 0 ? (size_t)n : 0;
}

static char *dup_string(const json_t *doc, const char *key)
{
	const char *s = json_string_value(json_object_get(doc, key));

	return strdup(s ? s : "");
}

static int parse(ac_oplog_intent *in, const json_t *doc)
{
	const char *kind = json_string_value(json_object_get(doc, "kind"));
	const json_t *files = json_object_get(doc, "files"), *f;
	const json_t *attempts = json_object_get(doc, "attempts");
	size_t i;

	if (!kind || (strcmp(kind, "rollback") && strcmp(kind, "revert")) || !json_is_array(files) ||
	    !json_string_value(json_object_get(doc, "operationId")) ||
	    copy_hash(in->op_commit, doc, "operationCommit") || copy_hash(in->plan.target, doc, "target") ||
	    copy_hash(in->plan.target_tree, doc, "targetTree") ||
	    copy_hash(in->plan.snapshot, doc, "snapshot") || !*in->plan.snapshot)
		return -1;
	in->revert = !strcmp(kind, "revert");
	in->pid = (long)json_integer_value(json_object_get(doc, "pid"));
	in->plan.removed = count_of(doc, "removed");
	in->plan.restored = count_of(doc, "restored");
	in->plan.changed = count_of(doc, "changed");
	in->plan.kept = count_of(doc, "kept");
	/* Absent in an intent no run has taken up yet. */
	if (attempts && !json_is_array(attempts))
		return -1;
	if (json_array_size(attempts) &&
	    !(in->attempts = calloc(json_array_size(attempts), sizeof(*in->attempts))))
		return -1;
	json_array_foreach(attempts, i, f)
		if ((in->attempts[in->n_attempts++] = (long)json_integer_value(f)) <= 0)
			return -1;
	if (!(in->op_id = dup_string(doc, "operationId")) ||
	    !(in->session_id = dup_string(doc, "sessionId")) ||
	    !(in->started_at = dup_string(doc, "startedAt")) ||
	    !(in->message = dup_string(doc, "message")) ||
	    !(in->plan.items = calloc(json_array_size(files) + 1, sizeof(*in->plan.items))))
		return -1;
	json_array_foreach(files, i, f) {
		const char *action = json_string_value(json_object_get(f, "action"));
		ac_git_plan_item *item = &in->plan.items[in->plan.n];
		ac_git_action a = AC_GIT_REMOVE;

		while (action && strcmp(action, ac_git_action_name(a)) && a < AC_GIT_CHANGE)
			a++;
		if (!action || strcmp(action, ac_git_action_name(a)) ||
		    !(item->path = path_from_json(json_object_get(f, "path"))))
			return -1;
		item->action = a;
		in->plan.n++;
	}
	return 0;
}

int ac_oplog_intent_read(ac_oplog_intent **out, const ac_workspace *ws)
{
	ac_buf path = AC_BUF_INIT;
	ac_oplog_intent *in = NULL;
	json_t *doc = NULL;
	json_error_t error;
	char *text = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	if (ac_oplog_intent_path(&path, ws))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (access(path.data, F_OK) != 0 && errno == ENOENT) {
		rc = 0;
		goto done;
	}
	if ((rc = ac_file_read(&text, &len, path.data)))
		goto done;
	if (!(doc = json_loadb(text, len, 0, &error))) {
		rc = ac_error_set(AC_ECORRUPT, "%s:%d:%d: %s", path.data, error.line, error.column,
				  error.text);
		goto done;
	}
	if (!(in = calloc(1, sizeof(*in))) || parse(in, doc) != 0) {
		rc = in ? ac_error_set(AC_ECORRUPT, "%s: not a rollback intent agentctl wrote (a "
				       "field is missing or wrong)", path.data)
			: ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	*out = in;
	in = NULL;
done:
	ac_oplog_intent_free(in);
	json_decref(doc);
	free(text);
	ac_buf_free(&path);
	return rc;
}

bool ac_oplog_intent_running(const ac_oplog_intent *intent)
{
	if (intent->pid <= 0 || intent->pid == (long)getpid())
		return false;
	return kill((pid_t)intent->pid, 0) == 0 || errno == EPERM;
}

int ac_oplog_intent_describe(ac_buf *out, const ac_oplog_intent *intent)
{
	return ac_buf_printf(out, "%s operation %s: snapshot %.12s holds the state before; "
			     "%zu file%s planned (%zu removed, %zu restored, %zu changed); started %s "
			     "by pid %ld", intent->revert ? "revert of" : "rollback to before", intent->op_id,
			     intent->plan.snapshot, intent->plan.n, intent->plan.n == 1 ? "" : "s",
			     intent->plan.removed, intent->plan.restored, intent->plan.changed,
			     intent->started_at, intent->pid) ? AC_ENOMEM : 0;
}

int ac_oplog_intent_commands(ac_buf *finish, ac_buf *undo, const ac_oplog_intent *intent)
{
	const char *verb = intent->revert ? "revert" : "rollback";

	if ((finish && ac_buf_printf(finish, "agentctl ops %s %s --yes", verb, intent->op_id)) ||
	    (undo && ac_buf_printf(undo, "agentctl ops %s --undo --yes", verb)))
		return AC_ENOMEM;
	return 0;
}

json_t *ac_oplog_intent_json(const ac_oplog_intent *intent)
{
	ac_buf finish = AC_BUF_INIT, undo = AC_BUF_INIT;
	json_t *j = NULL;

	if (ac_oplog_intent_commands(&finish, &undo, intent) == 0)
		j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:b, s:I, s:I, s:I, s:I, s:s, s:s}",
			      "type", intent->revert ? "interrupted_revert" : "interrupted_rollback",
			      "operationId", intent->op_id, "sessionId", intent->session_id,
			      "snapshot", intent->plan.snapshot, "target", intent->plan.target,
			      "startedAt", intent->started_at, "pid", (json_int_t)intent->pid,
			      "running", ac_oplog_intent_running(intent),
			      "files", (json_int_t)intent->plan.n,
			      "removed", (json_int_t)intent->plan.removed,
			      "restored", (json_int_t)intent->plan.restored,
			      "changed", (json_int_t)intent->plan.changed,
			      "finish", finish.data, "undo", undo.data);
	ac_buf_free(&finish);
	ac_buf_free(&undo);
	return j;
}

int ac_oplog_intent_refuse(const ac_workspace *ws, const char *what)
{
	ac_oplog_intent *intent = NULL;
	ac_buf finish = AC_BUF_INIT, undo = AC_BUF_INIT;
	int rc;

	if ((rc = ac_oplog_intent_read(&intent, ws)) || !intent)
		return rc;
	if (ac_oplog_intent_commands(&finish, &undo, intent))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	else
		rc = ac_error_set(AC_ECONFLICT, "%s: refused: an %s %s operation %s (snapshot %.12s) "
				  "left the workspace half changed; finish it (%s) or undo it (%s) "
				  "first", what, ac_oplog_intent_running(intent) ? "unfinished"
									: "interrupted",
				  intent->revert ? "revert of" : "rollback to before", intent->op_id,
				  intent->plan.snapshot, finish.data, undo.data);
	ac_buf_free(&finish);
	ac_buf_free(&undo);
	ac_oplog_intent_free(intent);
	return rc;
}

int ac_oplog_plan_copy(ac_git_rollback_result *out, const ac_git_rollback_result *in)
{
	*out = *in;
	out->items = calloc(in->n + 1, sizeof(*out->items));
	out->n = 0;
	if (!out->items)
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < in->n; i++) {
		out->items[i].action = in->items[i].action;
		if (!(out->items[i].path = strdup(in->items[i].path)))
			return ac_error_set(AC_ENOMEM, "out of memory");
		out->n++;
	}
	return 0;
}

/* The name an agentctl writer of pid gave its temp file for base, or
 * false: ".<base>.<pid>.<8 hex>.tmp" or "<base>.agentctl-<pid>.tmp". */
static bool our_temp_of(const char *name, const char *base, long pid)
{
	char tail[64];
	size_t blen = strlen(base), len = strlen(name);

	snprintf(tail, sizeof(tail), ".agentctl-%ld.tmp", pid);
	if (len == blen + strlen(tail) && !strncmp(name, base, blen) && !strcmp(name + blen, tail))
		return true;
	snprintf(tail, sizeof(tail), ".%ld.", pid);
	if (len != 1 + blen + strlen(tail) + 8 + 4 || name[0] != '.' ||
	    strncmp(name + 1, base, blen) || strncmp(name + 1 + blen, tail, strlen(tail)))
		return false;
	name += 1 + blen + strlen(tail);
	return strspn(name, "0123456789abcdef") == 8 && !strcmp(name + 8, ".tmp");
}

int ac_oplog_intent_note_attempt(const ac_workspace *ws)
{
	ac_buf path = AC_BUF_INIT;
	json_t *doc = NULL, *attempts;
	char *raw = NULL, *text = NULL;
	size_t len = 0;
	int rc;

	if (ac_oplog_intent_path(&path, ws))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_file_read(&raw, &len, path.data)))
		goto done;
	if (!(doc = json_loadb(raw, len, 0, NULL)) || !json_is_object(doc)) {
		rc = ac_error_set(AC_ECORRUPT, "%s: not a rollback intent agentctl wrote", path.data);
		goto done;
	}
	if (!json_is_array(attempts = json_object_get(doc, "attempts")) &&
	    json_object_set_new(doc, "attempts", attempts = json_array()))
		goto oom;
	if (json_array_append_new(attempts, json_integer((json_int_t)getpid())) ||
	    !(text = json_dumps(doc, JSON_COMPACT)))
		goto oom;
	if ((rc = ac_atomic_write(path.data, text, strlen(text), NULL, NULL)))
		rc = ac_error_set(rc, "%s: cannot record this run in the rollback's intent, so no "
				  "file was touched: %s", path.data, ac_error_last());
	goto done;
oom:
	rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	json_decref(doc);
	free(raw);
	free(text);
	ac_buf_free(&path);
	return rc;
}

/* Whether name is a temp file of the intent's writer or of a run that
 * took it up, for base. */
static bool temp_of_any(const char *name, const char *base, const ac_oplog_intent *intent)
{
	if (intent->pid > 0 && our_temp_of(name, base, intent->pid))
		return true;
	for (size_t i = 0; i < intent->n_attempts; i++)
		if (our_temp_of(name, base, intent->attempts[i]))
			return true;
	return false;
}

size_t ac_oplog_intent_clean_temps(const ac_git *g, const ac_oplog_intent *intent)
{
	const ac_git_rollback_result *plan = &intent->plan;
	const char *workdir = ac_git_workdir(g);
	ac_buf dir = AC_BUF_INIT;
	size_t removed = 0;

	if (intent->pid <= 0 && !intent->n_attempts)
		return 0;
	/* The items are sorted by path: each folder's paths come together. */
	for (size_t first = 0, end; first < plan->n; first = end) {
		const char *slash = strrchr(plan->items[first].path, '/');
		size_t dlen = slash ? (size_t)(slash - plan->items[first].path + 1) : 0;
		struct dirent *e;
		DIR *d;

		for (end = first + 1; end < plan->n; end++) {
			const char *p = plan->items[end].path, *s = strrchr(p, '/');

			if ((s ? (size_t)(s - p + 1) : 0) != dlen ||
			    strncmp(p, plan->items[first].path, dlen))
				break;
		}
		ac_buf_clear(&dir);
		if (ac_buf_printf(&dir, "%s%.*s", workdir, (int)dlen, plan->items[first].path) ||
		    !(d = opendir(dir.data)))
			continue;
		while ((e = readdir(d))) {
			if (!ac_atomic_is_temp_name(e->d_name))
				continue;
			for (size_t i = first; i < end; i++)
				if (temp_of_any(e->d_name, plan->items[i].path + dlen, intent)) {
					if (unlinkat(dirfd(d), e->d_name, 0) == 0)
						removed++;
					break;
				}
		}
		closedir(d);
	}
	ac_buf_free(&dir);
	return removed;
}

/* What putting the snapshot back does to each path of plan: the reverse
 * of the rollback's action. */
static ac_git_action reverse(ac_git_action a)
{
	return a == AC_GIT_REMOVE ? AC_GIT_RESTORE : a == AC_GIT_RESTORE ? AC_GIT_REMOVE : AC_GIT_CHANGE;
}

static int journal_undo(const ac_workspace *ws, const ac_oplog_intent *intent, const char *commit)
{
	ac_buf message = AC_BUF_INIT;
	int rc;

	ac_buf_printf(&message, "Undid the interrupted %s operation %s: put back the snapshot %.12s "
		      "(%zu files)", intent->revert ? "revert of" : "rollback to before", intent->op_id,
		      intent->plan.snapshot, intent->plan.n);
	rc = ac_journal_operator_event(ws, "ROLLBACK", "SUCCESS", intent->session_id,
				       json_pack("{s:s, s:s, s:s?, s:I, s:b, s:b}", "operationId",
						 intent->op_id, "snapshot", intent->plan.snapshot, "commit",
						 *commit ? commit : NULL, "files", (json_int_t)intent->plan.n,
						 "revert", intent->revert, "undone", 1),
				       message.data ? message.data : "Undid an interrupted rollback");
	ac_buf_free(&message);
	return rc;
}

int ac_oplog_undo_interrupted(ac_oplog_rollback_result *out, const ac_workspace *ws, bool dry_run)
{
	ac_oplog_intent *intent = NULL;
	ac_buf message = AC_BUF_INIT, path = AC_BUF_INIT;
	ac_git *git = NULL;
	int lock_fd = -1, rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_oplog_open_git(&git, ws)) ||
	    (rc = ac_git_lock(&lock_fd, git, AC_OPLOG_LOCK_TIMEOUT_MS)) ||
	    (rc = ac_oplog_intent_read(&intent, ws)))
		goto done;
	if (!intent) {
		ac_oplog_intent_path(&path, ws);
		rc = ac_error_set(AC_ENOTFOUND, "%s: no interrupted rollback or revert to undo",
				  path.data ? path.data : ".agent/" AC_OPLOG_INTENT_FILE);
		goto done;
	}
	if ((rc = ac_oplog_plan_copy(&out->git, &intent->plan)))
		goto done;
	for (size_t i = 0; i < out->git.n; i++)
		out->git.items[i].action = reverse(out->git.items[i].action);
	out->git.removed = intent->plan.restored;
	out->git.restored = intent->plan.removed;
	if (dry_run || (rc = ac_oplog_intent_note_attempt(ws)))
		goto done;
	if (ac_buf_printf(&message, "[agent] undo of the interrupted %s %s", intent->revert ?
			  "revert of" : "rollback to before", intent->op_id)) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = ac_git_restore_snapshot(out->git.commit, git, &intent->plan, intent->message,
					  message.data)))
		goto done;
	ac_oplog_intent_clean_temps(git, intent);
	if ((rc = ac_oplog_intent_remove(ws)))
		goto done;
	if (journal_undo(ws, intent, out->git.commit) != 0) {
		char *why = strdup(ac_error_last());

		rc = ac_error_set(AC_EIO, "the snapshot %.12s was put back, but the journal was not "
				  "written: %s", intent->plan.snapshot, why ? why : "out of memory");
		free(why);
	}
done:
	if (rc != 0 && !out->git.commit[0])
		ac_git_rollback_result_free(&out->git);
	if (lock_fd >= 0)
		close(lock_fd);
	ac_oplog_intent_free(intent);
	ac_git_free(git);
	ac_buf_free(&message);
	ac_buf_free(&path);
	return rc;
}
