/* The simulator's scenarios: who writes which files, and what must hold.
 *
 * sessions  agentctl's own writers on one session file: two append
 *           messages (ac_session_append_messages), one pauses and resumes
 *           (ac_session_set_status). Killed at any step; the power fails.
 *           Holds: the file always loads; every acknowledged message is
 *           in it exactly once, also after a power loss (agentctl fsyncs
 *           before it acknowledges); no message is there twice.
 * seed      a writer that follows seed 000's JsonSessionStore exactly
 *           (read, JSON.parse, push, writeFile of "<id>.json.tmp", rename;
 *           no lock, no fsync), reloading before each turn or loading once,
 *           while agentctl pauses and resumes the session with its quiet
 *           wait. Killed at any step (no power loss: the seed never fsyncs,
 *           so its turns were never promised to survive one). Holds: every
 *           turn the seed saved is in the file; it always loads.
 * journal   two agentctl appenders (ac_journal_append, fsync per append),
 *           a writer that follows seed 004's journal.js (an O_EXCL ".lock"
 *           with its pid, appendFile, unlink) and `journal rotate`. Killed
 *           at any step; the power fails. Holds: every acknowledged event
 *           is on a line of its own, once in the journal and its archives
 *           together, in its writer's order within a file (the seed's only
 *           until a power loss); a lock whose holder is dead never stands
 *           a second while an agentctl writer waits.
 * compact   agentctl's appends, compaction and gc of its archives on a
 *           host whose clock is ahead: sim_scenario_compact.c.
 * checkpoint agentctl's appends and checkpoints, and an operator's
 *           rollbacks with compensations: sim_scenario_checkpoint.c.
 * sandbox   an agent's edits in its memo mirror, sandbox sync and another
 *           host's writes: sim_scenario_sandbox.c. */
#include "sim.h"

#include "ac_error.h"
#include "ac_journal.h"
#include "ac_session.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SESSIONS SIM_SESSIONS
#define SESSION_FILE SIM_SESSION
#define JOURNAL "/ws/JOURNAL.jsonl"
#define MAX_ACKS 4096

/* What the writers were told was done: the markers (message contents,
 * event ids) that must be found, each with its role. */
static struct {
	char marker[64];
	int role;
	bool durable; /* promised to survive a power loss */
} acks[MAX_ACKS];
static int nacks;
static char violation[512]; /* set by an actor; reported by the check */

void sim_ack(sim_actor *a, const char *marker, bool durable)
{
	if (nacks == MAX_ACKS)
		return;
	snprintf(acks[nacks].marker, sizeof(acks[nacks].marker), "%s", marker);
	acks[nacks].role = a->role_slot;
	acks[nacks].durable = durable;
	nacks++;
	sim_trace("%s/%d ACK %s", a->role, (int)a->pid, marker);
}

void sim_forget_undurable(void)
{
	int kept = 0;

	for (int i = 0; i < nacks; i++)
		if (acks[i].durable)
			acks[kept++] = acks[i];
	nacks = kept;
}

/* Which agentctl appenders are inside ac_journal_append() now, and since
 * when the lock has named a dead holder while one of them waited. */
static bool appending[16];
static int64_t dead_holder_since;

static void reset(void)
{
	nacks = 0;
	violation[0] = '\0';
	memset(appending, 0, sizeof(appending));
	dead_holder_since = -1;
}

void sim_acks_reset(void)
{
	reset();
}

int sim_acks_count(void)
{
	return nacks;
}

const char *sim_ack_marker(int k)
{
	return acks[k].marker;
}

/* ---- sessions ------------------------------------------------------------ */

const char sim_initial_session[] =
	"{\n  \"id\": \"s1\",\n  \"task\": \"simulated\",\n  \"status\": \"running\",\n"
	"  \"conversationHistory\": [],\n  \"createdAt\": \"2026-11-28T00:00:00.000Z\",\n"
	"  \"updatedAt\": \"2026-11-28T00:00:00.000Z\"\n}\n";
const size_t sim_initial_session_len = sizeof(sim_initial_session) - 1;

void sim_append_acked(sim_actor *a, const char *marker, json_t *messages)
{
	int rc = ac_session_append_messages(NULL, SESSIONS, "s1", messages);

	json_decref(messages);
	if (rc == 0)
		sim_ack(a, marker, true);
	else
		sim_trace("%s/%d append failed: %s", a->role, (int)a->pid, ac_error_last());
	sim_op_done(a);
	sim_sleep_ns(1000000 + (int64_t)sim_below(300000000));
}

void sim_agentctl_append(sim_actor *a)
{
	while (a->ops_left > 0) {
		char marker[64];

		snprintf(marker, sizeof(marker), "%s-%d-%d", a->role, (int)a->pid, a->ops_left);
		sim_append_acked(a, marker,
				 json_pack("[{s:s, s:s}]", "role", "user", "content", marker));
	}
}

static void agentctl_pause_resume(sim_actor *a)
{
	ac_session_write_options opts = {.version = AC_SESSION_WRITE_OPTIONS_VERSION,
					 .quiet_ms = 1000, .wait_ms = 5000};

	while (a->ops_left > 0) {
		const char *to = a->ops_left % 2 ? "paused" : "running";
		int rc = ac_session_set_status_with(NULL, SESSIONS, "s1", to, &opts);

		if (rc)
			sim_trace("%s/%d set %s: %s", a->role, (int)a->pid, to, ac_error_last());
		sim_op_done(a);
		sim_sleep_ns(1000000 + (int64_t)sim_below(800000000));
	}
}

/* Every marker's count in the session file's conversationHistory; false
 * with why when the file does not load. */
static bool count_markers(int *counts, char *why, size_t size)
{
	size_t len;
	char *text = sim_fs_slurp(SESSION_FILE, &len);
	json_error_t error;
	json_t *root, *history;

	if (!text) {
		snprintf(why, size, "%s is gone", SESSION_FILE);
		return false;
	}
	root = json_loadb(text, len, 0, &error);
	free(text);
	history = root ? json_object_get(root, "conversationHistory") : NULL;
	if (!json_is_array(history)) {
		snprintf(why, size, "%s does not load (%zu bytes): %s", SESSION_FILE, len,
			 root ? "no conversationHistory array" : error.text);
		json_decref(root);
		return false;
	}
	for (size_t i = 0; i < json_array_size(history); i++) {
		const char *content = json_string_value(
			json_object_get(json_array_get(history, i), "content"));

		for (int k = 0; content && k < nacks; k++)
			if (!strcmp(acks[k].marker, content))
				counts[k]++;
	}
	json_decref(root);
	return true;
}

static bool check_session(char *why, size_t size, bool after_power_loss)
{
	static int counts[MAX_ACKS];

	(void)after_power_loss;
	memset(counts, 0, sizeof(int) * (size_t)nacks);
	if (violation[0]) {
		snprintf(why, size, "%s", violation);
		return false;
	}
	if (!count_markers(counts, why, size))
		return false;
	for (int k = 0; k < nacks; k++) {
		if (counts[k] == 0) {
			snprintf(why, size, "acknowledged message %s is not in %s", acks[k].marker,
				 SESSION_FILE);
			return false;
		}
		if (counts[k] > 1) {
			snprintf(why, size, "message %s is in %s %d times", acks[k].marker,
				 SESSION_FILE, counts[k]);
			return false;
		}
	}
	return true;
}

static int setup_sessions(void)
{
	reset();
	sim_fs_mkdirs(SESSIONS);
	sim_fs_put(SESSION_FILE, sim_initial_session, sim_initial_session_len);
	sim_add_role("append-a", sim_agentctl_append, true, true, 12);
	sim_add_role("append-b", sim_agentctl_append, true, true, 12);
	sim_add_role("pause", agentctl_pause_resume, true, true, 8);
	return 3;
}

/* ---- a writer that follows seed 000's JsonSessionStore ------------------- */

/* fs.readFile: the whole file, or NULL (the seed's load() then returns null). */
static char *seed_read(size_t *out_len)
{
	const ac_fs *fs = &sim_fs_table;
	int fd = fs->openat(NULL, AT_FDCWD, SESSION_FILE, O_RDONLY, 0);
	char *text = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;

	if (fd < 0)
		return NULL;
	do {
		if (len + 4096 + 1 > cap && !(text = realloc(text, cap = 2 * cap + 8192)))
			abort();
		n = fs->read(NULL, fd, text + len, 4096);
		len += n > 0 ? (size_t)n : 0;
	} while (n > 0);
	fs->close(NULL, fd);
	text[len] = '\0';
	*out_len = len;
	return text;
}

/* save(): writeFile(tmp, JSON.stringify(updated, null, 2)); rename(tmp, path). */
static bool seed_save(json_t *session)
{
	const ac_fs *fs = &sim_fs_table;
	const char *tmp = SESSION_FILE ".tmp";
	char *text;
	int fd;
	bool ok;

	json_object_set_new(session, "updatedAt", json_string("2026-11-28T00:00:01.000Z"));
	text = json_dumps(session, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fd = fs->openat(NULL, AT_FDCWD, tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ok = fd >= 0 && fs->write(NULL, fd, text, strlen(text)) == (ssize_t)strlen(text);
	if (fd >= 0)
		fs->close(NULL, fd);
	free(text);
	return ok && fs->renameat2(NULL, AT_FDCWD, tmp, AT_FDCWD, SESSION_FILE, 0) == 0;
}

static json_t *seed_load(void)
{
	size_t len;
	char *text = seed_read(&len);
	json_t *root = text ? json_loadb(text, len, 0, NULL) : NULL;

	free(text);
	return root;
}

/* One turn: push a message and save; with reload, load before it. */
static void seed_writer(sim_actor *a)
{
	bool reload = a->pid % 2 == 0; /* both of the seed's patterns, by incarnation */
	json_t *session = reload ? NULL : seed_load();

	while (a->ops_left > 0) {
		char marker[64];

		if (reload) {
			json_decref(session);
			session = seed_load();
		}
		if (!session) {
			sim_trace("%s/%d load failed", a->role, (int)a->pid);
			if (!violation[0])
				snprintf(violation, sizeof(violation),
					 "the seed writer could not load %s", SESSION_FILE);
			return;
		}
		/* The agent runs: the session it holds says so. */
		json_object_set_new(session, "status", json_string("running"));
		snprintf(marker, sizeof(marker), "seed-%d-%d", (int)a->pid, a->ops_left);
		json_array_append_new(json_object_get(session, "conversationHistory"),
				      json_pack("{s:s, s:s}", "role", "assistant", "content", marker));
		if (seed_save(session))
			sim_ack(a, marker, false);
		sim_op_done(a);
		sim_sleep_ns(20000000 + (int64_t)sim_below(1500000000));
	}
	json_decref(session);
}

static int setup_seed(void)
{
	reset();
	sim_fs_mkdirs(SESSIONS);
	sim_fs_put(SESSION_FILE, sim_initial_session, sim_initial_session_len);
	sim_add_role("seed000", seed_writer, false, true, 16);
	sim_add_role("pause", agentctl_pause_resume, true, true, 10);
	return 2;
}

/* ---- the journal --------------------------------------------------------- */

static void agentctl_log(sim_actor *a)
{
	ac_journal_options opts;

	ac_journal_options_init(&opts);
	opts.fsync = AC_FSYNC_ALWAYS;
	while (a->ops_left > 0) {
		char id[64], record[256];
		int rc;

		snprintf(id, sizeof(id), "evt_%s_%d_%d", a->role, (int)a->pid, a->ops_left);
		snprintf(record, sizeof(record),
			 "{\"id\":\"%s\",\"timestamp\":\"2026-11-28T00:00:00.000Z\",\"agent\":\"Codex\","
			 "\"status\":\"SUCCESS\",\"action\":{\"type\":\"CMD_RUN\",\"params\":{}}}", id);
		appending[a->role_slot] = true;
		rc = ac_journal_append(NULL, JOURNAL, record, strlen(record), &opts);
		appending[a->role_slot] = false;
		if (rc == 0) {
			sim_ack(a, id, true);
		} else {
			size_t len;
			char *holder = sim_fs_slurp(JOURNAL ".lock", &len);
			long pid = holder ? strtol(holder, NULL, 10) : 0;

			sim_trace("%s/%d log failed: %s", a->role, (int)a->pid, ac_error_last());
			if (rc == AC_EBUSY && pid > 0 && !sim_pid_alive((pid_t)pid) && !violation[0])
				snprintf(violation, sizeof(violation),
					 "%s/%d was turned away by a lock whose holder (pid %ld) is dead",
					 a->role, (int)a->pid, pid);
			free(holder);
		}
		sim_op_done(a);
		sim_sleep_ns(1000000 + (int64_t)sim_below(200000000));
	}
}

/* journal rotate (`agentctl journal rotate`): the journal moved aside to
 * JOURNAL-<stamp>.jsonl under the lock, a new one started. */
static void agentctl_rotate(sim_actor *a)
{
	ac_journal_options opts;

	ac_journal_options_init(&opts);
	while (a->ops_left > 0) {
		sim_sleep_ns(100000000 + (int64_t)sim_below(900000000));
		if (ac_journal_rotate(NULL, JOURNAL, &opts) != 0)
			sim_trace("%s/%d rotate: %s", a->role, (int)a->pid, ac_error_last());
		sim_op_done(a);
	}
}

/* journal.js's log(): open(lock, 'wx'), write the pid, appendFile, close,
 * unlink. A lock that exists makes it throw: nothing written. */
static void seed004_log(sim_actor *a)
{
	const ac_fs *fs = &sim_fs_table;

	while (a->ops_left > 0) {
		char id[64], record[256], pid[32];
		int lock, fd;
		bool ok;

		snprintf(id, sizeof(id), "evt_seed004_%d_%d", (int)a->pid, a->ops_left);
		snprintf(record, sizeof(record),
			 "{\"id\":\"%s\",\"timestamp\":\"2026-11-28T00:00:00.000Z\",\"agent\":\"Gemini\","
			 "\"status\":\"SUCCESS\",\"action\":{\"type\":\"ANALYSIS\",\"params\":{}}}\n", id);
		lock = fs->openat(NULL, AT_FDCWD, JOURNAL ".lock", O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (lock < 0) {
			sim_trace("%s/%d lock busy", a->role, (int)a->pid);
		} else {
			snprintf(pid, sizeof(pid), "%d", (int)a->pid);
			fs->write(NULL, lock, pid, strlen(pid));
			fd = fs->openat(NULL, AT_FDCWD, JOURNAL, O_WRONLY | O_CREAT | O_APPEND, 0644);
			ok = fd >= 0 && fs->write(NULL, fd, record, strlen(record)) ==
						(ssize_t)strlen(record);
			if (fd >= 0)
				fs->close(NULL, fd);
			fs->close(NULL, lock);
			fs->unlinkat(NULL, AT_FDCWD, JOURNAL ".lock", 0);
			if (ok)
				sim_ack(a, id, false);
		}
		sim_op_done(a);
		sim_sleep_ns(1000000 + (int64_t)sim_below(300000000));
	}
}

/* The lock rule: a lock whose holder is dead is broken by the next
 * agentctl writer that wants it (within its backoff, 4 ms a round), so it
 * never stands a second while one waits (one whose text was cut short:
 * eight, see below). */
static bool check_lock(char *why, size_t size)
{
	size_t len = 0;
	char *holder = sim_fs_slurp(JOURNAL ".lock", &len);
	long pid = holder ? strtol(holder, NULL, 10) : 0;
	bool waiting = false;
	/* agentctl's text cut short (see ac_lock.c): judged by its age. */
	bool torn = holder && strstr(holder, "\nhost=") &&
		    (!strstr(holder, "\npidns=") || holder[len - 1] != '\n');
	char shown[80];

	/* The holder's text as the report shows it: one line. */
	snprintf(shown, sizeof(shown), "%.*s", (int)(len < 60 ? len : 60), holder ? holder : "");
	for (char *c = shown; *c; c++)
		if ((unsigned char)*c < 0x20)
			*c = '|';
	free(holder);
	for (int r = 0; r < 16; r++)
		waiting = waiting || appending[r];
	if (!waiting || pid <= 0 || sim_pid_alive((pid_t)pid)) {
		dead_holder_since = -1;
		return true;
	}
	if (dead_holder_since < 0)
		dead_holder_since = sim_now_ns();
	/* A holder text cut short is judged by its age (a second, on the
	 * reader's clock, which may be 3 s off the writer's); any other by
	 * its pid at once. */
	if (sim_now_ns() - dead_holder_since <= (torn ? 8000000000LL : 1000000000LL))
		return true;
	snprintf(why, size, "the journal's lock has named a dead holder (pid %ld: \"%s\") for "
		 "%.0f ms while an agentctl writer waited", pid, shown,
		 (double)(sim_now_ns() - dead_holder_since) / 1e6);
	return false;
}

/* Counts the acknowledged ids on path's lines into counts; false with why
 * when one is not on a line of its own, or out of its writer's order
 * within the file. */
static bool check_journal_file(const char *path, int *counts, char *why, size_t size)
{
	size_t len;
	char *text = sim_fs_slurp(path, &len);
	int last_seen[16];
	char *line, *end;

	for (int r = 0; r < 16; r++)
		last_seen[r] = -1;
	for (line = text; text && line < text + len; line = end + 1) {
		json_t *event;
		const char *id;

		if (!(end = memchr(line, '\n', (size_t)(text + len - line))))
			end = text + len; /* a last line still being written */
		event = json_loadb(line, (size_t)(end - line), 0, NULL);
		id = event ? json_string_value(json_object_get(event, "id")) : NULL;
		for (int k = 0; k < nacks; k++) {
			const char *at = memmem(line, (size_t)(end - line), acks[k].marker,
						strlen(acks[k].marker));

			/* An id followed by '"': evt_x_1 is not evt_x_12. */
			if (!at || at[strlen(acks[k].marker)] != '"')
				continue;
			if (!id || strcmp(id, acks[k].marker)) {
				snprintf(why, size, "acknowledged event %s is on a line of %s that is "
					 "not its own: %.200s", acks[k].marker, path, line);
				json_decref(event);
				free(text);
				return false;
			}
			counts[k]++;
			/* In its writer's order: acknowledged k after k' means
			 * k's line comes after k''s. */
			if (k < last_seen[acks[k].role]) {
				snprintf(why, size, "event %s is before an event its writer "
					 "acknowledged earlier, in %s", acks[k].marker, path);
				json_decref(event);
				free(text);
				return false;
			}
			last_seen[acks[k].role] = k;
		}
		json_decref(event);
	}
	free(text);
	return true;
}

typedef struct {
	char names[64][96];
	ino_t inos[64];
	int n;
} journal_names;

static void take_journal_name(const char *name, void *ctx)
{
	journal_names *j = ctx;
	struct stat st;

	/* The journal and the archives rotation leaves: JOURNAL-<stamp>.jsonl */
	if (j->n == 64 || (strcmp(name, "JOURNAL.jsonl") &&
			   (strncmp(name, "JOURNAL-", 8) || strlen(name) <= 14 ||
			    strcmp(name + strlen(name) - 6, ".jsonl"))))
		return;
	snprintf(j->names[j->n], sizeof(j->names[0]), "/ws/%s", name);
	/* One file under two names (between rotation's link and unlink) is
	 * counted once. */
	if (sim_fs_fstatat(AT_FDCWD, j->names[j->n], &st, 0) != 0)
		return;
	for (int i = 0; i < j->n; i++)
		if (j->inos[i] == st.st_ino)
			return;
	j->inos[j->n++] = st.st_ino;
}

static bool check_journal(char *why, size_t size, bool after_power_loss)
{
	static int counts[MAX_ACKS];
	journal_names files = {.n = 0};

	(void)after_power_loss;
	if (violation[0]) {
		snprintf(why, size, "%s", violation);
		return false;
	}
	if (!check_lock(why, size))
		return false;
	memset(counts, 0, sizeof(int) * (size_t)nacks);
	/* Every event acknowledged is in the journal or an archive of it:
	 * once in all of them together. */
	sim_fs_list("/ws", take_journal_name, &files);
	for (int i = 0; i < files.n; i++)
		if (!check_journal_file(files.names[i], counts, why, size))
			return false;
	for (int k = 0; k < nacks; k++)
		if (counts[k] != 1) {
			snprintf(why, size, "acknowledged event %s is in the journal and its "
				 "archives %d times", acks[k].marker, counts[k]);
			return false;
		}
	return true;
}

static int setup_journal(void)
{
	reset();
	sim_fs_mkdirs("/ws");
	sim_add_role("log-a", agentctl_log, true, true, 15);
	sim_add_role("log-b", agentctl_log, true, true, 15);
	sim_add_role("seed004", seed004_log, false, true, 15);
	sim_add_role("rotate", agentctl_rotate, true, true, 3);
	return 4;
}

const sim_scenario sim_scenarios[] = {
	{"sessions", "agentctl's writers on one session, killed, power lost", setup_sessions,
	 check_session, sim_forget_undurable, true, NULL},
	{"seed", "seed 000's store against agentctl's pause and resume", setup_seed,
	 check_session, sim_forget_undurable, false, NULL},
	{"journal", "agentctl's appends and rotation and seed 004's journal.js, killed, power lost",
	 setup_journal, check_journal, sim_forget_undurable, true, NULL},
	{"compact", "agentctl's appends, compaction and gc of its archives (gc's clock 20 min "
	 "ahead), killed, power lost", sim_compact_setup, sim_compact_check, sim_forget_undurable,
	 true, NULL},
	{"checkpoint", "agentctl's appends and checkpoints and an operator's rollbacks with "
	 "compensations, killed, power lost", sim_checkpoint_setup, sim_checkpoint_check,
	 sim_forget_undurable, true, NULL},
	{"ops", "ops rollback and revert of a real git repository, killed at any write, "
	 "finished or undone", NULL, NULL, NULL, false, sim_ops_run},
	{"sandbox", "an agent's edits in its memo mirror, sandbox sync and another host's writes, "
	 "killed, power lost", sim_sandbox_setup, sim_sandbox_check, sim_sandbox_power_lost, true,
	 NULL},
};
const size_t sim_nscenarios = sizeof(sim_scenarios) / sizeof(sim_scenarios[0]);
