/* Operator requests beside a session, and the agent processes we started. */
#include "ac_control.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_exact.h"
#include "ac_proc.h"
#include "ac_session.h"
#include "ac_sha256.h"
#include "ac_time.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char *const kind_names[] = {"pause", "resume"};
static const char *const state_names[] = {"pending", "applied", "overridden", "resuming",
					  "failed", "resumed"};

/* "<sessions>/<folder>/<id>.json", after checking id. */
static int side_path(ac_buf *out, const char *sessions_dir, const char *folder, const char *id)
{
	int rc;

	if ((rc = ac_session_id_check(id)))
		return rc;
	if (ac_buf_printf(out, "%s/%s/%s.json", sessions_dir, folder, id))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

/* Writes doc at "<sessions>/<folder>/<id>.json", making the folder. */
static int write_side(const char *sessions_dir, const char *folder, const char *id, json_t *doc)
{
	ac_buf path = AC_BUF_INIT;
	int rc;

	if ((rc = side_path(&path, sessions_dir, folder, id)) == 0)
		rc = doc ? ac_json_exact_write_file(path.data, doc, JSON_INDENT(2))
			 : ac_error_set(AC_ENOMEM, "out of memory");
	ac_buf_free(&path);
	return rc;
}

/* Reads "<sessions>/<folder>/<id>.json" as an object; *shown names it. */
static int read_side(json_t **out, ac_buf *shown, const char *sessions_dir, const char *folder,
		     const char *id, ac_file_id *out_file)
{
	json_error_t jerr;
	char *raw = NULL;
	size_t len;
	int rc;

	if ((rc = side_path(shown, sessions_dir, folder, id)) ||
	    (out_file && (rc = ac_file_id_of(out_file, shown->data))) ||
	    (rc = ac_file_read(&raw, &len, shown->data)))
		return rc;
	*out = json_loadb(raw, len, JSON_ALLOW_NUL, &jerr);
	free(raw);
	if (!*out)
		return ac_error_set(AC_ECORRUPT, "%s: line %d column %d: %s", shown->data, jerr.line,
				    jerr.column, jerr.text);
	if (!json_is_object(*out)) {
		json_decref(*out);
		return ac_error_set(AC_ECORRUPT, "%s: not a JSON object", shown->data);
	}
	return 0;
}

static int name_index(const char *name, const char *const *names, size_t n)
{
	for (size_t i = 0; name && i < n; i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -1;
}

static int64_t time_field(const json_t *doc, const char *key)
{
	int64_t ms = 0;
	const char *text = json_string_value(json_object_get(doc, key));

	if (!text || ac_time_parse(&ms, text) != 0)
		return 0;
	return ms;
}

int ac_request_read(ac_request *out, const char *sessions_dir, const char *id)
{
	ac_buf shown = AC_BUF_INIT;
	json_t *doc = NULL;
	const char *reason;
	int rc, kind, state;

	memset(out, 0, sizeof(*out));
	if ((rc = read_side(&doc, &shown, sessions_dir, ".requests", id, &out->file)))
		goto done;
	kind = name_index(json_string_value(json_object_get(doc, "request")), kind_names, 2);
	state = name_index(json_string_value(json_object_get(doc, "state")), state_names,
			   sizeof(state_names) / sizeof(state_names[0]));
	if (kind < 0 || state < 0) {
		rc = ac_error_set(AC_ECORRUPT, "%s: %s is not one agentctl knows", shown.data,
				  kind < 0 ? "request" : "state");
		goto done;
	}
	out->kind = (ac_request_kind)kind;
	out->state = (ac_request_state)state;
	out->requested_ms = time_field(doc, "requestedAt");
	out->applied_ms = time_field(doc, "appliedAt");
	reason = json_string_value(json_object_get(doc, "reason"));
	snprintf(out->reason, sizeof(out->reason), "%s", reason ? reason : "");
done:
	json_decref(doc);
	ac_buf_free(&shown);
	return rc;
}

static json_t *request_doc(const char *id, const ac_request *r)
{
	char requested[AC_TIME_ISO_LEN + 1], applied[AC_TIME_ISO_LEN + 1];
	json_t *doc;

	ac_time_format_iso(requested, r->requested_ms);
	ac_time_format_iso(applied, r->applied_ms);
	doc = json_pack("{s:s, s:s, s:s, s:s, s:s}", "sessionId", id, "request",
			kind_names[r->kind], "state", state_names[r->state], "requestedAt", requested,
			"requestedBy", "Human");
	if (doc && r->applied_ms)
		json_object_set_new(doc, "appliedAt", json_string(applied));
	if (doc && r->reason[0])
		json_object_set_new(doc, "reason", json_string(r->reason));
	return doc;
}

int ac_request_write(const char *sessions_dir, const char *id, const ac_request *r)
{
	json_t *doc = request_doc(id, r);
	int rc = write_side(sessions_dir, ".requests", id, doc);

	json_decref(doc);
	return rc;
}

int ac_request_update(const char *sessions_dir, const char *id, const ac_request *r)
{
	ac_buf path = AC_BUF_INIT;
	json_t *doc = request_doc(id, r);
	char *text = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;
	int rc;

	if (!text)
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	else if ((rc = side_path(&path, sessions_dir, ".requests", id)) == 0)
		rc = ac_atomic_swap_if(NULL, NULL, path.data, &r->file, text, strlen(text));
	free(text);
	json_decref(doc);
	ac_buf_free(&path);
	return rc;
}

int ac_request_clear(const char *sessions_dir, const char *id)
{
	ac_buf path = AC_BUF_INIT;
	int rc;

	if ((rc = side_path(&path, sessions_dir, ".requests", id)) == 0 &&
	    unlink(path.data) != 0 && errno != ENOENT)
		rc = ac_error_errno(errno, "%s: cannot remove", path.data);
	ac_buf_free(&path);
	return rc;
}

int ac_request_list(char ***out, size_t *out_n, const char *sessions_dir)
{
	ac_buf dir_path = AC_BUF_INIT;
	char **ids = NULL;
	size_t n = 0, cap = 0;
	struct dirent *entry;
	DIR *dir;
	int rc = 0;

	*out = NULL;
	*out_n = 0;
	if (ac_buf_printf(&dir_path, "%s/.requests", sessions_dir))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (!(dir = opendir(dir_path.data))) {
		if (errno != ENOENT)
			rc = ac_error_errno(errno, "%s", dir_path.data);
		goto done;
	}
	while ((entry = readdir(dir))) {
		size_t len = strlen(entry->d_name);

		if (len <= 5 || strcmp(entry->d_name + len - 5, ".json") || entry->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **grown = realloc(ids, (cap = cap ? cap * 2 : 8) * sizeof(*ids));

			if (!grown) {
				rc = ac_error_set(AC_ENOMEM, "out of memory");
				break;
			}
			ids = grown;
		}
		if (!(ids[n] = strndup(entry->d_name, len - 5))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			break;
		}
		n++;
	}
	closedir(dir);
	if (rc) {
		for (size_t i = 0; i < n; i++)
			free(ids[i]);
		free(ids);
		goto done;
	}
	*out = ids;
	*out_n = n;
done:
	ac_buf_free(&dir_path);
	return rc;
}

ac_pending ac_request_judge(const ac_request *r, const char *status, int64_t now_ms,
			    int resume_timeout_ms)
{
	if (!r)
		return AC_PENDING_NONE;
	if (r->kind == AC_REQUEST_PAUSE) {
		if (strcmp(status, "running") != 0)
			return AC_PENDING_NONE;
		if (r->state == AC_REQUEST_PENDING)
			return AC_PENDING_PAUSING;
		if (r->state == AC_REQUEST_RESUMED)
			return AC_PENDING_RESUMED_ELSEWHERE;
		return AC_PENDING_OVERRIDDEN;
	}
	if (strcmp(status, "paused") != 0)
		return AC_PENDING_NONE;
	if (r->state == AC_REQUEST_FAILED)
		return AC_PENDING_RESUME_FAILED;
	if (now_ms - r->requested_ms > resume_timeout_ms)
		return AC_PENDING_RESUME_LATE;
	return AC_PENDING_RESUMING;
}

const char *ac_pending_text(ac_pending pending)
{
	switch (pending) {
	case AC_PENDING_NONE: return "";
	case AC_PENDING_PAUSING: return "pausing";
	case AC_PENDING_OVERRIDDEN: return "pause overridden by the agent";
	case AC_PENDING_RESUMING: return "resuming";
	case AC_PENDING_RESUME_LATE: return "resume: no takeover";
	case AC_PENDING_RESUME_FAILED: return "resume failed";
	case AC_PENDING_RESUMED_ELSEWHERE: return "resumed elsewhere";
	}
	return "";
}

/* Where the agents agentctl started are recorded: in the operator's state
 * folder ($XDG_STATE_HOME, else ~/.local/state), "agent/processes/<key>.json"
 * with key a digest of the sessions folder's real path and the id. Not in
 * the workspace: an agent could plant a record there naming any process of
 * the operator's for pauseSignal to hit. */
static int process_path(ac_buf *out, const char *sessions_dir, const char *id)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *real = NULL, digest[AC_SHA256_HEX_LEN + 1];
	ac_buf key = AC_BUF_INIT;
	int rc = 0;

	if ((rc = ac_session_id_check(id)))
		return rc;
	if (!(real = realpath(sessions_dir, NULL)))
		return ac_error_errno(errno, "%s: cannot resolve", sessions_dir);
	if (ac_buf_printf(&key, "%s\n%s", real, id)) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	ac_sha256_hex(digest, key.data, key.len);
	digest[32] = '\0';
	if (!(state && *state) && !(home && *home))
		rc = ac_error_set(AC_EINVAL, "no state folder for agent processes: set "
				  "XDG_STATE_HOME or HOME");
	else if (state && *state ? ac_buf_printf(out, "%s/agent/processes/%s.json", state, digest)
				 : ac_buf_printf(out, "%s/.local/state/agent/processes/%s.json", home,
						 digest))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	free(real);
	ac_buf_free(&key);
	return rc;
}

int ac_process_record(const char *sessions_dir, const char *id, pid_t pid)
{
	char host[256] = "", now[AC_TIME_ISO_LEN + 1];
	ac_buf path = AC_BUF_INIT;
	json_t *doc = NULL;
	int rc;

	if ((rc = process_path(&path, sessions_dir, id)))
		goto done;
	gethostname(host, sizeof(host) - 1);
	ac_time_format_iso(now, ac_time_now_ms());
	doc = json_pack("{s:s, s:I, s:s, s:I, s:s}", "sessionId", id, "pid", (json_int_t)pid,
			"host", host, "startTicks", (json_int_t)ac_proc_start_ticks(pid), "startedAt", now);
	rc = doc ? ac_json_exact_write_file(path.data, doc, JSON_INDENT(2))
		 : ac_error_set(AC_ENOMEM, "out of memory");
done:
	json_decref(doc);
	ac_buf_free(&path);
	return rc;
}

int ac_process_find(ac_agent_process *out, const char *sessions_dir, const char *id)
{
	ac_buf path = AC_BUF_INIT;
	char host[256] = "";
	json_error_t jerr;
	json_t *doc = NULL;
	json_int_t pid;
	char *raw = NULL;
	size_t len;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = process_path(&path, sessions_dir, id)) ||
	    (rc = ac_file_read(&raw, &len, path.data)))
		goto done;
	if (!(doc = json_loadb(raw, len, 0, &jerr)) || !json_is_object(doc)) {
		rc = ac_error_set(AC_ECORRUPT, "%s: not a process record", path.data);
		goto done;
	}
	gethostname(host, sizeof(host) - 1);
	pid = json_integer_value(json_object_get(doc, "pid"));
	snprintf(out->host, sizeof(out->host), "%s",
		 json_string_value(json_object_get(doc, "host")) ? json_string_value(json_object_get(doc, "host")) : "");
	out->start_ticks = (uint64_t)json_integer_value(json_object_get(doc, "startTicks"));
	if (pid <= 1 || pid > INT32_MAX || strcmp(out->host, host) != 0 || !out->start_ticks ||
	    ac_proc_start_ticks((pid_t)pid) != out->start_ticks) {
		rc = ac_error_set(AC_ENOTFOUND, "session '%s': the agent agentctl started is not "
				  "running here any more", id);
		goto done;
	}
	out->pid = (pid_t)pid;
done:
	json_decref(doc);
	free(raw);
	ac_buf_free(&path);
	return rc;
}

int ac_process_signal(const ac_agent_process *p, int sig)
{
	if (kill(-p->pid, sig) != 0 && kill(p->pid, sig) != 0)
		return ac_error_errno(errno, "cannot signal the agent (pid %ld)", (long)p->pid);
	return 0;
}

int ac_process_cmdline(ac_buf *out, const ac_agent_process *process, size_t max)
{
	return ac_proc_cmdline(out, process->pid, max);
}

int ac_signal_from_name(const char *name)
{
	static const struct {
		const char *name;
		int sig;
	} signals[] = {
		{"STOP", SIGSTOP}, {"TSTP", SIGTSTP}, {"INT", SIGINT},   {"TERM", SIGTERM},
		{"HUP", SIGHUP},   {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"QUIT", SIGQUIT},
	};
	const char *bare = name && !strncasecmp(name, "SIG", 3) ? name + 3 : name;

	for (size_t i = 0; bare && i < sizeof(signals) / sizeof(signals[0]); i++)
		if (!strcasecmp(bare, signals[i].name))
			return signals[i].sig;
	ac_error_set(AC_EINVAL, "pauseSignal: '%s' is not a signal agentctl sends (STOP, TSTP, "
		     "INT, TERM, HUP, USR1, USR2, QUIT)", name ? name : "");
	return 0;
}
