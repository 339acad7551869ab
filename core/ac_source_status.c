/* Claude Code's per-process status files (ac_source_status.h).
 *
 * The format, as public readers of it show it (tests/fixtures/
 * sources-current/home/.claude/README.md cites them): a JSON object with
 * pid, sessionId, cwd, startedAt (ms since the epoch), kind
 * (interactive|background), entrypoint, name, nameSource, status
 * (busy|waiting|idle; absent for SDK sessions) and, while waiting,
 * waitingFor ("permission prompt", "input needed", "sandbox request",
 * "worker request", "dialog open"). Claude Code's own listing drops a
 * record whose pid or start time no longer matches a live process: so
 * does this reader. Nothing here trusts the file: a name that is not
 * "<pid>.json", a size past AC_SOURCE_STATUS_MAX, a link, a FIFO, text
 * that is not a JSON object or a pid field that contradicts the name are
 * skipped. */
#include "ac_source_status.h"

#include "ac_error.h"
#include "ac_file.h"
#include "ac_proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A process starts before it writes its status file; a clock step or a
 * slow start can put its recorded start a little before ours. */
#define START_SLACK_MS 5000

/* The pid a status file's name gives ("123.json"), or 0. */
static long pid_of_name(const char *name)
{
	long pid = 0;
	size_t i;

	for (i = 0; name[i] >= '0' && name[i] <= '9'; i++) {
		if (i >= 10)
			return 0;
		pid = pid * 10 + (name[i] - '0');
	}
	if (i == 0 || strcmp(name + i, ".json") || pid <= 0 || pid > INT_MAX)
		return 0;
	return pid;
}

/* The machine's boot time, ms since the epoch (0: unknown). */
static int64_t boot_ms(void)
{
	char *raw = NULL, *line;
	size_t len;
	int64_t ms = 0;

	if (ac_file_read(&raw, &len, "/proc/stat") != 0) {
		ac_error_clear();
		return 0;
	}
	if ((line = strstr(raw, "\nbtime ")))
		ms = strtoll(line + 7, NULL, 10) * 1000;
	free(raw);
	return ms;
}

bool ac_source_status_pid_alive(long pid, int64_t started_at_ms)
{
	uint64_t ticks;
	long hz = sysconf(_SC_CLK_TCK);
	int64_t boot, began;

	if (pid <= 0 || pid > INT_MAX)
		return false;
	if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
		return false;
	/* It exists (EPERM: another user's, which cannot be ours, but is no
	 * proof of death either). Its start says whether it is the writer. */
	if (!(ticks = ac_proc_start_ticks((pid_t)pid))) {
		ac_error_clear();
		/* No /proc (or a zombie): a zombie is dead; without /proc the
		 * kill() above is all there is to go on. */
		return access("/proc/self/stat", F_OK) != 0;
	}
	if (!started_at_ms || hz <= 0 || !(boot = boot_ms()))
		return true;
	began = boot + (int64_t)(ticks * 1000 / (uint64_t)hz);
	return began <= started_at_ms + START_SLACK_MS;
}

static ac_agent_status status_of(const char *status)
{
	if (!status)
		return AC_AGENT_LIVE;
	if (!strcmp(status, "busy"))
		return AC_AGENT_BUSY;
	if (!strcmp(status, "waiting"))
		return AC_AGENT_WAITING;
	if (!strcmp(status, "idle"))
		return AC_AGENT_IDLE;
	return AC_AGENT_LIVE; /* a word a later version added: alive, nothing more known */
}

/* A copy of text cut to AC_SOURCE_STATUS_REASON_MAX bytes on a UTF-8
 * character boundary (jansson gives valid UTF-8; a cut must keep it so). */
static char *reason_copy(const char *text)
{
	size_t n = strlen(text);

	if (n > AC_SOURCE_STATUS_REASON_MAX) {
		n = AC_SOURCE_STATUS_REASON_MAX;
		while (n && ((unsigned char)text[n] & 0xC0) == 0x80)
			n--;
	}
	return strndup(text, n);
}

/* One file's record in *out; false when the file is no status file. */
static bool parse(ac_source_status *out, const char *text, size_t len, long pid)
{
	json_t *doc = json_loadb(text, len, 0, NULL);
	const json_t *id, *field;
	const char *status;
	bool ok = false;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(doc))
		goto done;
	id = json_object_get(doc, "sessionId");
	field = json_object_get(doc, "pid");
	/* The pid inside must be the name's when given: a record copied
	 * under another name speaks for no process. */
	if (!json_is_string(id) || !*json_string_value(id) ||
	    (field && (!json_is_integer(field) || json_integer_value(field) != pid)))
		goto done;
	out->pid = pid;
	field = json_object_get(doc, "startedAt");
	if (json_is_integer(field) && json_integer_value(field) > 0)
		out->started_at = json_integer_value(field);
	status = json_string_value(json_object_get(doc, "status"));
	out->agent = status_of(status);
	field = json_object_get(doc, "waitingFor");
	if (out->agent == AC_AGENT_WAITING && json_is_string(field) && *json_string_value(field) &&
	    !(out->waiting_for = reason_copy(json_string_value(field))))
		goto done;
	if (!(out->session_id = strdup(json_string_value(id))))
		goto done;
	ok = true;
done:
	if (!ok) {
		free(out->waiting_for);
		out->waiting_for = NULL;
	}
	json_decref(doc);
	return ok;
}

/* The text of dir's entry name, when it is a regular file no larger than
 * AC_SOURCE_STATUS_MAX: *out allocated, NULL otherwise. */
static int read_one(char **out, size_t *out_len, int dir_fd, const char *name)
{
	struct stat st;
	char *text = NULL;
	ssize_t got;
	size_t len = 0;
	int fd;

	*out = NULL;
	/* O_NOFOLLOW and a regular file only: a link or a FIFO planted there
	 * neither leads elsewhere nor blocks the reader. */
	if (ac_file_open_regular(&fd, dir_fd, name, O_RDONLY | O_NOFOLLOW, 0, name) != 0) {
		ac_error_clear();
		return 0;
	}
	if (fstat(fd, &st) != 0 || st.st_size > (off_t)AC_SOURCE_STATUS_MAX)
		goto done;
	if (!(text = malloc(AC_SOURCE_STATUS_MAX + 1))) {
		close(fd);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	/* Bounded whatever the size said: the file may grow meanwhile. */
	while (len <= AC_SOURCE_STATUS_MAX &&
	       ((got = read(fd, text + len, AC_SOURCE_STATUS_MAX + 1 - len)) > 0 ||
		(got < 0 && errno == EINTR)))
		if (got > 0)
			len += (size_t)got;
	if (len > AC_SOURCE_STATUS_MAX) {
		free(text);
		text = NULL;
	}
done:
	close(fd);
	*out = text;
	*out_len = len;
	return 0;
}

static int add(ac_source_status_list *list, size_t *cap, const ac_source_status *item)
{
	if (list->n == *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 8;
		ac_source_status *grown = realloc(list->items, grown_cap * sizeof(*grown));

		if (!grown)
			return ac_error_set(AC_ENOMEM, "out of memory");
		list->items = grown;
		*cap = grown_cap;
	}
	list->items[list->n++] = *item;
	return 0;
}

int ac_source_status_read(ac_source_status_list *out, const char *dir)
{
	struct dirent *d;
	size_t cap = 0;
	DIR *folder;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!dir || !(folder = opendir(dir)))
		return 0;
	out->present = true;
	while ((d = readdir(folder)) && rc == 0) {
		long pid = pid_of_name(d->d_name);
		ac_source_status item;
		char *text = NULL;
		size_t len = 0;

		if (!pid)
			continue;
		if ((rc = read_one(&text, &len, dirfd(folder), d->d_name)))
			break;
		if (!text || !parse(&item, text, len, pid)) {
			out->skipped++;
			free(text);
			continue;
		}
		free(text);
		if (!ac_source_status_pid_alive(pid, item.started_at)) {
			/* A crash left it: what it said is over. */
			item.agent = AC_AGENT_GONE;
			free(item.waiting_for);
			item.waiting_for = NULL;
		}
		if ((rc = add(out, &cap, &item))) {
			free(item.session_id);
			free(item.waiting_for);
		}
	}
	closedir(folder);
	if (rc)
		ac_source_status_list_free(out);
	return rc;
}

void ac_source_status_list_free(ac_source_status_list *list)
{
	for (size_t i = 0; i < list->n; i++) {
		free(list->items[i].session_id);
		free(list->items[i].waiting_for);
	}
	free(list->items);
	memset(list, 0, sizeof(*list));
}

const ac_source_status *ac_source_status_find(const ac_source_status_list *list,
					      const char *session_id)
{
	const ac_source_status *best = NULL;

	for (size_t i = 0; list && session_id && i < list->n; i++) {
		const ac_source_status *r = &list->items[i];
		bool live = r->agent != AC_AGENT_GONE;

		if (strcmp(r->session_id, session_id))
			continue;
		if (!best || (live && best->agent == AC_AGENT_GONE) ||
		    (live == (best->agent != AC_AGENT_GONE) && r->started_at > best->started_at))
			best = r;
	}
	return best;
}

/* True when one of the NUL-separated arguments of cmdline[0..len) runs
 * Claude Code: "claude" as a name (the native build) or a path through
 * its npm package "claude-code" (node .../@anthropic-ai/claude-code/cli.js). */
static bool runs_claude(const char *cmdline, size_t len)
{
	for (size_t at = 0; at < len;) {
		const char *arg = cmdline + at, *base = strrchr(arg, '/');

		base = base ? base + 1 : arg;
		if (!strcmp(base, "claude") || strstr(arg, "/claude-code/"))
			return true;
		at += strlen(arg) + 1;
	}
	return false;
}

int ac_source_status_agent_folders(json_t **out)
{
	char path[300], cwd[PATH_MAX + 1], cmdline[4096];
	struct dirent *d;
	DIR *proc;
	int rc = 0;

	*out = NULL;
	if (!(proc = opendir("/proc")))
		return 0;
	if (!(*out = json_object())) {
		closedir(proc);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	while ((d = readdir(proc)) && rc == 0) {
		ssize_t n;
		int fd;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		/* Another user's process cannot be read, nor write our files. */
		snprintf(path, sizeof(path), "/proc/%s/cwd", d->d_name);
		if ((n = readlink(path, cwd, sizeof(cwd) - 1)) <= 0)
			continue;
		cwd[n] = '\0';
		snprintf(path, sizeof(path), "/proc/%s/cmdline", d->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, cmdline, sizeof(cmdline) - 1);
		close(fd);
		if (n <= 0)
			continue;
		cmdline[n] = '\0';
		if (runs_claude(cmdline, (size_t)n) && !json_object_get(*out, cwd) &&
		    json_object_set_new(*out, cwd, json_true()))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
	}
	closedir(proc);
	if (rc) {
		json_decref(*out);
		*out = NULL;
	}
	return rc;
}

int ac_source_status_note(ac_source_session *s, const ac_source_status_list *list,
			  const json_t *folders, bool *out_changed)
{
	const ac_source_status *r = ac_source_status_find(list, s->id);
	ac_agent_status agent = r ? r->agent
			      : folders && s->cwd && !json_object_get(folders, s->cwd) ? AC_AGENT_NONE
			      : AC_AGENT_UNKNOWN;
	const char *reason = r ? r->waiting_for : NULL;
	bool same_reason = reason ? s->waiting_reason && !strcmp(reason, s->waiting_reason)
				  : !s->waiting_reason;
	char *copy = NULL;

	*out_changed = agent != s->agent || !same_reason;
	s->agent = agent;
	if (same_reason)
		return 0;
	if (reason && !(copy = strdup(reason)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	free(s->waiting_reason);
	s->waiting_reason = copy;
	return 0;
}
