/* The sandbox scenario: a session's memo mirror (ac_sandbox.h) between an
 * agent inside the sandbox and the host.
 *
 * Actors: the agent, writing its notes in the mirror folder as a tool
 * writes a file (open with O_TRUNC, write, close; no lock, no fsync);
 * agentctl's `sandbox sync` (ac_sandbox_sync: the agent's edits written
 * back to the file store by the conflict rule, then the mirror refreshed;
 * the first run mirrors); and another host writing the same document
 * through the library (memo.write: durable, acknowledged). Killed at any
 * step; the power fails.
 *
 * The backend is the file store (memo documents in <data>/memo/...), with
 * the session's owners given by the scenario: the sandbox takes any
 * backend, and the file store's own session listing reads the folder
 * outside the seam.
 *
 * Holds after every step (by the conflict rule of ac_sandbox.h):
 *   - an agent's edit is never lost: when the mirror's copy stops holding
 *     an edit of the agent's (for anything but the agent's next edit),
 *     that edit is already in the store, as the document or as a conflict
 *     copy, or held aside in a refresh's temp file (between its two swaps,
 *     or after a kill there until the next refresh puts it back);
 *   - a host's acknowledged write is never replaced by an agent's edit
 *     the agent cannot have seen it (one made while the mirror never
 *     showed that write): such an edit is a conflict, kept beside it.
 * A power loss forgets the agent's writes (it never syncs): the mirror's
 * copy is followed afresh after it. */
#include "sim.h"

#include "ac_backend.h"
#include "ac_backend_fs.h"
#include "ac_error.h"
#include "ac_sandbox.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_DIR "/ws/.agent"
#define MIRROR "/ws/mirror"
#define MIRROR_FILE MIRROR "/session/notes.md"
#define MEMO_DIR DATA_DIR "/memo/t1/s1/session"
#define MEMO_FILE MEMO_DIR "/notes.md"
#define REGISTRY DATA_DIR "/sandboxes"
#define MAX_SEEN 512

/* ---- the backend: the file store, the session's owners given ---- */

static int list_sessions(void *impl, ac_backend_session_info **out, size_t *out_n,
			 const char *tenant)
{
	ac_backend_session_info *info = calloc(1, sizeof(*info));

	(void)impl;
	if (!info)
		return ac_error_set(AC_ENOMEM, "out of memory");
	info->tenant = strdup(tenant);
	info->session_id = strdup("s1");
	info->user = strdup("u1");
	info->agent = strdup("a1");
	info->status = strdup("running");
	*out = info;
	*out_n = 1;
	return 0;
}

static int open_store(ac_backend *out)
{
	ac_backend_fs_options opts = AC_BACKEND_FS_OPTIONS_INIT;
	int rc;

	opts.sessions_dir = SIM_SESSIONS;
	opts.data_dir = DATA_DIR;
	if ((rc = ac_backend_fs_init(out, &opts)))
		return rc;
	out->inspector.list_sessions = list_sessions;
	return 0;
}

/* ---- what the checks have seen ---- */

/* Contents are one line each: "agent-...", "host-..." or the first. */
static struct {
	char text[64];
} mirrored[MAX_SEEN], taken[MAX_SEEN];
static int nmirrored, ntaken;
static char mirror_now[64], store_now[64];
static char violation[512];

static bool in(const char (*list)[64], int n, const char *text)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(list[i], text))
			return true;
	return false;
}

static void add(char (*list)[64], int *n, const char *text)
{
	if (*n < MAX_SEEN && !in((const char (*)[64])list, *n, text))
		snprintf(list[(*n)++], 64, "%s", text);
}

/* path's content (one line), "" when absent. */
static void content_of(char out[64], const char *path)
{
	size_t len;
	char *text = sim_fs_slurp(path, &len);

	snprintf(out, 64, "%.*s", text ? (int)strcspn(text, "\n") : 0, text ? text : "");
	free(text);
}

/* A refresh's temp file in the mirror may hold the agent's copy between
 * its two swaps (or after a kill there, until the next refresh puts it
 * back): held, not lost. */
static void note_held(const char *name, void *ctx)
{
	char path[256], text[64];

	if (strncmp(name, ".agentctl-", 10) != 0)
		return;
	snprintf(path, sizeof(path), "%s/session/%s", MIRROR, name);
	content_of(text, path);
	if (!strcmp(text, (const char *)ctx))
		((char *)ctx)[0] = '\0';
}

static bool held_aside(const char *edit)
{
	char copy[64];

	snprintf(copy, sizeof(copy), "%s", edit);
	sim_fs_list(MIRROR "/session", note_held, copy);
	return copy[0] == '\0';
}

static void take_conflict(const char *name, void *ctx)
{
	char path[256], text[64];

	(void)ctx;
	if (strncmp(name, "notes.md.conflict-", 18) != 0)
		return;
	snprintf(path, sizeof(path), "%s/%s", MEMO_DIR, name);
	content_of(text, path);
	add((char (*)[64])taken, &ntaken, text);
}

/* ---- the actors ---- */

static void agent(sim_actor *a)
{
	while (a->ops_left > 0) {
		char line[64];
		int fd;

		snprintf(line, sizeof(line), "agent-%d-%d\n", (int)a->pid, a->ops_left);
		/* As Node's writeFileSync: truncate, write, close. */
		fd = sim_fs_table.openat(NULL, AT_FDCWD, MIRROR_FILE, O_WRONLY | O_CREAT | O_TRUNC,
					 0644);
		if (fd >= 0) {
			sim_fs_table.write(NULL, fd, line, strlen(line));
			sim_fs_table.close(NULL, fd);
		}
		sim_op_done(a);
		sim_sleep_ns(sim_chance(0.5) ? (int64_t)sim_below(300000)
					     : 5000000 + (int64_t)sim_below(150000000));
	}
}

/* After a sync that finished: no temp file of a killed refresh is left
 * (it may hold an edit that only the next refresh puts back). */
static void find_stale(const char *name, void *ctx)
{
	long pid;

	if (strncmp(name, ".agentctl-", 10) != 0)
		return;
	pid = strtol(name + 10, NULL, 10);
	if (pid != (long)((sim_actor *)ctx)->pid && !sim_pid_alive((pid_t)pid))
		snprintf(violation, sizeof(violation), "%s/session/%s, a temp file of process %ld "
			 "(dead), is still there after a sync finished: not recovered", MIRROR,
			 name, pid);
}

static void syncer(sim_actor *a)
{
	ac_sandbox_options opts = AC_SANDBOX_OPTIONS_INIT;
	ac_backend b = {0};

	opts.registry_dir = REGISTRY;
	if (open_store(&b))
		abort();
	while (a->ops_left > 0) {
		ac_sandbox_result r = {0};
		int rc;

		sim_sleep_ns(20000000 + (int64_t)sim_below(200000000));
		rc = ac_sandbox_sync(&r, &b, "t1", "s1", MIRROR, &opts);
		if (rc == AC_ENOTFOUND) {
			ac_sandbox_result_free(&r);
			rc = ac_sandbox_mirror(&r, &b, "t1", "s1", MIRROR, &opts);
		}
		if (rc)
			sim_trace("%s/%d sandbox: %s", a->role, (int)a->pid, ac_error_last());
		else
			sim_trace("%s/%d synced %zu, conflicts %zu, written %zu, kept %zu", a->role,
				  (int)a->pid, r.synced, r.conflicts, r.written, r.kept);
		if (!rc)
			sim_fs_list(MIRROR "/session", find_stale, a);
		ac_sandbox_result_free(&r);
		sim_op_done(a);
	}
	ac_backend_close(&b);
}

static void host(sim_actor *a)
{
	ac_backend b = {0};

	if (open_store(&b))
		abort();
	while (a->ops_left > 0) {
		char line[64];

		/* Bursts: a host that writes again within a sync's few steps. */
		sim_sleep_ns(sim_chance(0.7) ? (int64_t)sim_below(100000)
					     : 20000000 + (int64_t)sim_below(200000000));
		snprintf(line, sizeof(line), "host-%d-%d\n", (int)a->pid, a->ops_left);
		if (b.memo.write(b.impl, "t1", "s1", "session", "notes.md", line, strlen(line)) == 0)
			sim_ack(a, line, true);
		else
			sim_trace("%s/%d memo write: %s", a->role, (int)a->pid, ac_error_last());
		sim_op_done(a);
	}
	ac_backend_close(&b);
}

int sim_sandbox_setup(void)
{
	sim_acks_reset();
	nmirrored = ntaken = 0;
	mirror_now[0] = store_now[0] = violation[0] = '\0';
	sim_fs_mkdirs(SIM_SESSIONS);
	sim_fs_mkdirs(MEMO_DIR);
	sim_fs_mkdirs(MIRROR);
	sim_fs_put(MEMO_FILE, "first\n", 6);
	sim_add_role("agent", agent, false, true, 30);
	sim_add_role("sync", syncer, true, true, 14);
	sim_add_role("host", host, true, true, 30);
	return 3;
}

/* The agent's writes were never durable: what the mirror holds now is
 * followed afresh. What the mirror once showed and the store once took
 * stays true of the past. */
void sim_sandbox_power_lost(void)
{
	mirror_now[0] = store_now[0] = '\0';
}

bool sim_sandbox_check(char *why, size_t size, bool after_power_loss)
{
	char mirror[64], store[64];

	(void)after_power_loss;
	if (violation[0]) {
		snprintf(why, size, "%s", violation);
		return false;
	}
	content_of(mirror, MIRROR_FILE);
	content_of(store, MEMO_FILE);
	if (!strncmp(store, "agent-", 6))
		add((char (*)[64])taken, &ntaken, store);
	sim_fs_list(MEMO_DIR, take_conflict, NULL);
	/* The mirror stopped holding an agent's edit, not for a newer one (an
	 * empty file is the agent's own truncation before it writes). */
	if (!strncmp(mirror_now, "agent-", 6) && strcmp(mirror, mirror_now) && mirror[0] &&
	    strncmp(mirror, "agent-", 6) && !in((const char (*)[64])taken, ntaken, mirror_now)) {
		if (held_aside(mirror_now))
			return true; /* still the edit the check follows */
		snprintf(why, size, "the agent's edit %s in %s was replaced by '%s' before it was "
			 "in the store (as the document or a conflict copy): lost", mirror_now,
			 MIRROR_FILE, mirror);
		return false;
	}
	/* The store's document went from a host's write to an agent's edit
	 * made while the mirror never showed that write. */
	if (!strncmp(store_now, "host-", 5) && !strncmp(store, "agent-", 6) &&
	    !in((const char (*)[64])mirrored, nmirrored, store_now)) {
		snprintf(why, size, "the host's acknowledged %s in %s was replaced by the agent's %s, "
			 "made while the mirror never showed it: lost, not kept as a conflict",
			 store_now, MEMO_FILE, store);
		return false;
	}
	if (mirror[0])
		add((char (*)[64])mirrored, &nmirrored, mirror);
	snprintf(mirror_now, sizeof(mirror_now), "%s", mirror);
	snprintf(store_now, sizeof(store_now), "%s", store);
	return true;
}
