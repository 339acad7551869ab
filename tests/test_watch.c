/* Watching the workspace and following the journal like tail -F. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_backend_fs.h"
#include "ac_config.h"
#include "ac_error.h"
#include "ac_journal.h"
#include "ac_journal_follow.h"
#include "ac_json_scan.h"
#include "ac_session.h"
#include "ac_session_index.h"
#include "ac_watch.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	char *dir;
	char *journal;
	ac_config *config;
	ac_workspace ws;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->dir = tu_make_temp_dir();
	f->journal = tu_path(f->dir, "JOURNAL.jsonl");
	assert_int_equal(ac_config_load(&f->config, f->dir), 0);
	assert_int_equal(ac_workspace_init(&f->ws, f->config), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	ac_workspace_free(&f->ws);
	ac_config_free(f->config);
	tu_remove_tree(f->dir);
	free(f->dir);
	free(f->journal);
	free(f);
	return 0;
}

/* Collects the messages of followed events, space-separated. */
typedef struct {
	char seen[4096];
	int count;
} seen_events;

static int remember(const ac_scan_match *m, void *ctx)
{
	seen_events *s = ctx;
	const ac_json_span *msg = &m->fields[AC_EV_RESULT_MESSAGE];

	strncat(s->seen, msg->start + 1, msg->len - 2);
	strcat(s->seen, " ");
	s->count++;
	return 0;
}

static void append_event(const char *journal, const char *message)
{
	const char *line = tu_event_line("Claude", message);

	assert_int_equal(ac_journal_append(NULL, journal, line, strlen(line), NULL), 0);
}

static const char *follow(ac_journal_follow *fl, seen_events *s, bool *restarted)
{
	memset(s, 0, sizeof(*s));
	assert_int_equal(ac_journal_follow_read(fl, restarted, NULL, remember, s), 0);
	return s->seen;
}

static void test_follow_backlog_then_only_new_events(void **state)
{
	fixture *f = *state;
	ac_journal_follow *fl;
	seen_events s;
	bool restarted;

	for (int i = 0; i < 5; i++) {
		char msg[16];

		snprintf(msg, sizeof(msg), "old%d", i);
		append_event(f->journal, msg);
	}
	assert_int_equal(ac_journal_follow_new(&fl, f->journal, 2, NULL), 0);
	assert_string_equal(follow(fl, &s, &restarted), "old3 old4 ");
	assert_string_equal(follow(fl, &s, &restarted), "");
	append_event(f->journal, "new1");
	append_event(f->journal, "new2");
	assert_string_equal(follow(fl, &s, &restarted), "new1 new2 ");
	assert_false(restarted);
	ac_journal_follow_free(fl);
}

static void test_follow_waits_for_the_newline(void **state)
{
	fixture *f = *state;
	char *line = strdup(tu_event_line("Codex", "slow"));
	size_t half = strlen(line) / 2;
	ac_journal_follow *fl;
	seen_events s;

	append_event(f->journal, "first");
	assert_int_equal(ac_journal_follow_new(&fl, f->journal, 10, NULL), 0);
	assert_string_equal(follow(fl, &s, NULL), "first ");
	tu_append_file(f->journal, line, half);
	assert_string_equal(follow(fl, &s, NULL), "");
	tu_append_file(f->journal, line + half, strlen(line) - half);
	tu_append_file(f->journal, "\n", 1);
	assert_string_equal(follow(fl, &s, NULL), "slow ");
	assert_string_equal(follow(fl, &s, NULL), "");
	ac_journal_follow_free(fl);
	free(line);
}

static void test_follow_survives_rotation_and_truncation(void **state)
{
	fixture *f = *state;
	ac_journal_follow *fl;
	seen_events s;
	bool restarted;

	append_event(f->journal, "before");
	assert_int_equal(ac_journal_follow_new(&fl, f->journal, 10, NULL), 0);
	follow(fl, &s, &restarted);
	assert_int_equal(ac_journal_rotate(NULL, f->journal, NULL), 0);
	assert_string_equal(follow(fl, &s, &restarted), "");
	assert_true(restarted);
	append_event(f->journal, "after-rotation");
	assert_string_equal(follow(fl, &s, &restarted), "after-rotation ");
	assert_false(restarted);
	/* Truncated in place and regrown. */
	tu_write_file(f->journal, "", 0);
	append_event(f->journal, "regrown");
	assert_string_equal(follow(fl, &s, &restarted), "regrown ");
	assert_true(restarted);
	/* Deleted: nothing, no error; re-created: read from its start. */
	unlink(f->journal);
	assert_string_equal(follow(fl, &s, &restarted), "");
	append_event(f->journal, "recreated");
	assert_string_equal(follow(fl, &s, &restarted), "recreated ");
	/* Replaced between two looks, possibly with the same inode number. */
	unlink(f->journal);
	append_event(f->journal, "replaced-unseen");
	assert_string_equal(follow(fl, &s, &restarted), "replaced-unseen ");
	assert_true(restarted);
	ac_journal_follow_free(fl);
}

/* Waits (on the fd, or the poll interval) until the watcher reports bits
 * of want, for at most two seconds; returns everything it reported. */
static unsigned wait_for(ac_watch *w, unsigned want)
{
	unsigned seen = 0;

	for (int round = 0; round < 40 && (seen & want) != want; round++) {
		struct pollfd p = {ac_watch_fd(w), POLLIN, 0};

		if (p.fd >= 0)
			poll(&p, 1, 50);
		else
			usleep(50 * 1000);
		seen |= ac_watch_read(w);
	}
	return seen;
}

static void check_watcher(fixture *f, int poll_ms)
{
	ac_watch *w;
	char *ops;

	assert_int_equal(ac_watch_new(&w, &f->ws, poll_ms), 0);
	assert_int_equal(ac_watch_polling(w, NULL), poll_ms < 0);
	ac_watch_read(w);
	append_event(f->journal, "watched");
	assert_true(wait_for(w, AC_WATCH_JOURNAL) & AC_WATCH_JOURNAL);
	assert_int_equal(ac_session_create(NULL, f->ws.sessions_dir, "w1", "t", NULL, NULL, NULL), 0);
	assert_true(wait_for(w, AC_WATCH_SESSIONS) & AC_WATCH_SESSIONS);
	assert_int_equal(ac_session_set_status(NULL, f->ws.sessions_dir, "w1", "paused"), 0);
	assert_true(wait_for(w, AC_WATCH_SESSIONS) & AC_WATCH_SESSIONS);
	ops = tu_path(f->dir, ".agent/operations.jsonl");
	tu_append_file(ops, "{}\n", 3);
	assert_true(wait_for(w, AC_WATCH_OPERATIONS) & AC_WATCH_OPERATIONS);
	free(ops);
	ac_watch_free(w);
}

static void test_inotify_reports_each_kind(void **state)
{
	check_watcher(*state, 1000);
}

static void test_polling_reports_each_kind(void **state)
{
	check_watcher(*state, -100);
}

static void test_idle_inotify_watcher_sleeps(void **state)
{
	fixture *f = *state;
	ac_watch *w;
	struct pollfd p;

	append_event(f->journal, "x");
	assert_int_equal(ac_watch_new(&w, &f->ws, 1000), 0);
	ac_watch_read(w);
	/* Nothing happens: the fd stays quiet (a dashboard would sleep). */
	p = (struct pollfd){ac_watch_fd(w), POLLIN, 0};
	assert_int_equal(poll(&p, 1, 100), 0);
	assert_int_equal(ac_watch_read(w), 0);
	ac_watch_free(w);
}

static void append_trace(fixture *f, const char *tenant, const char *session)
{
	char *sessions = tu_path(f->dir, ".agent/sessions"), *data = tu_path(f->dir, ".agent");
	ac_backend_fs_options opts = {.version = AC_BACKEND_FS_OPTIONS_VERSION,
		.sessions_dir = sessions, .data_dir = data};
	json_t *envelope = json_pack("{s:s}", "type", "tool_call");
	ac_backend b;

	assert_int_equal(ac_backend_fs_init(&b, &opts), 0);
	assert_int_equal(b.trace.append(b.impl, NULL, tenant, session, envelope), 0);
	ac_backend_close(&b);
	json_decref(envelope);
	free(sessions);
	free(data);
}

/* What the watcher reports once events had time to arrive: 100 ms on the
 * fd, or two polling intervals. */
static unsigned settle(ac_watch *w, int poll_ms)
{
	struct pollfd p = {ac_watch_fd(w), POLLIN, 0};
	unsigned seen = 0;

	if (p.fd >= 0) {
		poll(&p, 1, 100);
		return ac_watch_read(w);
	}
	for (int i = 0; i < 2; i++) {
		usleep((useconds_t)(poll_ms < 0 ? -poll_ms : poll_ms) * 1000);
		seen |= ac_watch_read(w);
	}
	return seen;
}

/* The followed trace is reported when it is created (its tenant folder
 * did not exist yet) and on every append; another session's is not. */
static void check_trace_watch(fixture *f, int poll_ms)
{
	ac_watch *w;

	assert_int_equal(ac_watch_new(&w, &f->ws, poll_ms), 0);
	assert_int_equal(ac_watch_trace(w, "acme", "s1"), 0);
	ac_watch_read(w);
	append_trace(f, "acme", "s1");
	assert_true(wait_for(w, AC_WATCH_TRACES) & AC_WATCH_TRACES);
	append_trace(f, "acme", "s1");
	assert_true(wait_for(w, AC_WATCH_TRACES) & AC_WATCH_TRACES);
	append_trace(f, "acme", "other");
	assert_false(settle(w, poll_ms) & AC_WATCH_TRACES);
	/* Following another trace; then none. */
	assert_int_equal(ac_watch_trace(w, "acme", "other"), 0);
	append_trace(f, "acme", "other");
	assert_true(wait_for(w, AC_WATCH_TRACES) & AC_WATCH_TRACES);
	assert_int_equal(ac_watch_trace(w, NULL, NULL), 0);
	append_trace(f, "acme", "other");
	assert_false(settle(w, poll_ms) & AC_WATCH_TRACES);
	ac_watch_free(w);
}

static void test_inotify_follows_a_trace(void **state)
{
	check_trace_watch(*state, 1000);
}

static void test_polling_follows_a_trace(void **state)
{
	check_trace_watch(*state, -100);
}

static void test_trace_ids_are_checked(void **state)
{
	fixture *f = *state;
	ac_watch *w;

	assert_int_equal(ac_watch_new(&w, &f->ws, 1000), 0);
	assert_int_equal(ac_watch_trace(w, "../escape", "s1"), AC_EINVAL);
	assert_int_equal(ac_watch_trace(w, "acme", "a/b"), AC_EINVAL);
	assert_int_equal(ac_watch_trace(w, "acme", "s1"), 0);
	ac_watch_free(w);
}

/* Writes <checkpoints>/<session>/<name>.json (folders made as needed). */
static void put_checkpoint(fixture *f, const char *session, const char *name)
{
	char rel[256];

	snprintf(rel, sizeof(rel), ".agent/checkpoints/%s/%s.json", session, name);
	tu_put(f->dir, rel, "{}");
}

/* Checkpoints are written into per-session folders: each one is reported,
 * in a folder that was there when watching began and in one that appears
 * later; a folder removed and made again is still followed. */
static void check_checkpoint_watch(fixture *f, int poll_ms)
{
	ac_watch *w;

	put_checkpoint(f, "s1", "c1");
	assert_int_equal(ac_watch_new(&w, &f->ws, poll_ms), 0);
	ac_watch_read(w);
	settle(w, poll_ms);
	put_checkpoint(f, "s1", "c2");
	assert_true(wait_for(w, AC_WATCH_CHECKPOINTS) & AC_WATCH_CHECKPOINTS);
	settle(w, poll_ms);
	put_checkpoint(f, "s2", "c1");
	assert_true(wait_for(w, AC_WATCH_CHECKPOINTS) & AC_WATCH_CHECKPOINTS);
	settle(w, poll_ms);
	put_checkpoint(f, "s2", "c2");
	assert_true(wait_for(w, AC_WATCH_CHECKPOINTS) & AC_WATCH_CHECKPOINTS);
	settle(w, poll_ms);
	/* Nothing written: nothing reported. */
	assert_false(settle(w, poll_ms) & AC_WATCH_CHECKPOINTS);
	{
		char *s2 = tu_path(f->dir, ".agent/checkpoints/s2");

		tu_remove_tree(s2);
		free(s2);
	}
	assert_true(wait_for(w, AC_WATCH_CHECKPOINTS) & AC_WATCH_CHECKPOINTS);
	settle(w, poll_ms);
	put_checkpoint(f, "s2", "c3");
	assert_true(wait_for(w, AC_WATCH_CHECKPOINTS) & AC_WATCH_CHECKPOINTS);
	settle(w, poll_ms);
	put_checkpoint(f, "s2", "c4");
	assert_true(wait_for(w, AC_WATCH_CHECKPOINTS) & AC_WATCH_CHECKPOINTS);
	ac_watch_free(w);
}

static void test_inotify_follows_session_checkpoint_folders(void **state)
{
	check_checkpoint_watch(*state, 1000);
}

static void test_polling_follows_session_checkpoint_folders(void **state)
{
	check_checkpoint_watch(*state, -100);
}


/* ---- session files named by the watcher ------------------------------------ */

static void make_sessions_dir(fixture *f)
{
	char *agent = tu_path(f->dir, ".agent");

	mkdir(agent, 0755);
	assert_int_equal(mkdir(f->ws.sessions_dir, 0755), 0);
	free(agent);
}

/* Saves session id as the seed's writers do (<id>.json.tmp, renamed). */
static void save_session(const char *dir, const char *id, const char *task, const char *created)
{
	json_t *s = json_pack("{s:s, s:s, s:s, s:s, s:[], s:{}}", "id", id, "createdAt", created,
			      "task", task, "status", "running", "conversationHistory", "metadata");

	tu_seed_save(dir, id, s);
	json_decref(s);
}

/* Reads until the fd stays quiet for 100 ms, gathering the session files
 * named in seen (each once); *out_named says whether every read named
 * them. Returns the union of the masks. */
static unsigned drain_names(ac_watch *w, char seen[][64], size_t *nseen, bool *out_named)
{
	unsigned mask = 0;
	struct pollfd p = {ac_watch_fd(w), POLLIN, 0};

	*out_named = true;
	while (poll(&p, 1, 100) > 0) {
		const char *const *names;
		size_t n;
		unsigned got = ac_watch_read(w);

		mask |= got;
		if (!(got & AC_WATCH_SESSIONS))
			continue;
		if (!ac_watch_session_files(w, &names, &n)) {
			*out_named = false;
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			bool dup = false;

			for (size_t j = 0; j < *nseen; j++)
				dup |= !strcmp(seen[j], names[i]);
			if (!dup)
				snprintf(seen[(*nseen)++], 64, "%s", names[i]);
		}
	}
	return mask;
}

/* Each kind of change names the file it happened to: a save by temp file
 * and rename (IN_MOVED_TO), a write in place (IN_CLOSE_WRITE), a removal
 * (IN_DELETE), a rename away (IN_MOVED_FROM) and onto another name; temp
 * files are never named. */
static void test_watch_names_changed_session_files(void **state)
{
	fixture *f = *state;
	const char *dir = f->ws.sessions_dir;
	char seen[16][64], *from, *to, *inplace;
	size_t nseen = 0;
	bool named;
	ac_watch *w;

	make_sessions_dir(f);
	save_session(dir, "s1", "one", "2026-01-01T00:00:01.000Z");
	save_session(dir, "s2", "two", "2026-01-01T00:00:02.000Z");
	save_session(dir, "s3", "three", "2026-01-01T00:00:03.000Z");
	save_session(dir, "s5", "five", "2026-01-01T00:00:05.000Z");
	assert_int_equal(ac_watch_new(&w, &f->ws, 1000), 0);
	ac_watch_read(w);
	save_session(dir, "s1", "one again", "2026-01-01T00:00:01.000Z");
	inplace = tu_path(dir, "s5.json");
	tu_write_file(inplace, "{\"id\":\"s5\"}", 11);
	from = tu_path(dir, "s3.json");
	assert_int_equal(unlink(from), 0);
	free(from);
	from = tu_path(dir, "s2.json");
	to = tu_path(dir, "s4.json");
	assert_int_equal(rename(from, to), 0);
	assert_true(drain_names(w, seen, &nseen, &named) & AC_WATCH_SESSIONS);
	assert_true(named);
	assert_int_equal(nseen, 5);
	for (int i = 1; i <= 5; i++) {
		char name[16];
		bool found = false;

		snprintf(name, sizeof(name), "s%d.json", i);
		for (size_t j = 0; j < nseen; j++)
			found |= !strcmp(seen[j], name);
		assert_true(found);
	}
	free(from);
	free(to);
	free(inplace);
	ac_watch_free(w);
}

/* What does not name a file asks for the folder to be listed again: a
 * folder made in it, the folder moved away, and polling. */
static void test_watch_folder_events_ask_for_a_listing(void **state)
{
	fixture *f = *state;
	const char *dir = f->ws.sessions_dir;
	char seen[16][64], *sub, *moved;
	size_t nseen = 0;
	bool named;
	ac_watch *w;
	const char *const *names;
	size_t n;

	make_sessions_dir(f);
	assert_int_equal(ac_watch_new(&w, &f->ws, 1000), 0);
	ac_watch_read(w);
	sub = tu_path(dir, ".compactions");
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_true(drain_names(w, seen, &nseen, &named) & AC_WATCH_SESSIONS);
	assert_false(named);
	save_session(dir, "s1", "one", "2026-01-01T00:00:01.000Z");
	assert_true(drain_names(w, seen, &nseen, &named) & AC_WATCH_SESSIONS);
	assert_true(named);
	moved = tu_path(f->dir, ".agent/sessions-moved");
	assert_int_equal(rename(dir, moved), 0);
	assert_true(drain_names(w, seen, &nseen, &named) & AC_WATCH_SESSIONS);
	assert_false(named);
	ac_watch_free(w);

	assert_int_equal(rename(moved, dir), 0);
	assert_int_equal(ac_watch_new(&w, &f->ws, -50), 0);
	ac_watch_read(w);
	save_session(dir, "s2", "two", "2026-01-01T00:00:02.000Z");
	assert_true(wait_for(w, AC_WATCH_SESSIONS) & AC_WATCH_SESSIONS);
	assert_false(ac_watch_session_files(w, &names, &n));
	ac_watch_free(w);
	free(sub);
	free(moved);
}

/* More events than the kernel queues (fs.inotify.max_queued_events) while
 * nobody reads: the overflow asks for everything to be read again. */
static void test_watch_overflow_asks_for_a_listing(void **state)
{
	fixture *f = *state;
	const char *dir = f->ws.sessions_dir;
	long limit = tu_inotify_queue_limit();
	const char *const *names;
	unsigned mask = 0;
	size_t n;
	ac_watch *w;

	if (limit <= 0 || limit > 200000)
		skip(); /* a queue this deep takes too many files to fill */
	make_sessions_dir(f);
	assert_int_equal(ac_watch_new(&w, &f->ws, 1000), 0);
	ac_watch_read(w);
	/* A save is at least four events (create, close, moved from, to). */
	for (long i = 0; i < limit / 4 + 16; i++) {
		char id[32];

		snprintf(id, sizeof(id), "s%ld", i % 64);
		save_session(dir, id, "busy", "2026-01-01T00:00:01.000Z");
	}
	mask = wait_for(w, AC_WATCH_RESCAN);
	assert_true(mask & AC_WATCH_RESCAN);
	assert_true(mask & AC_WATCH_SESSIONS);
	/* The read that met the overflow could not name the files. */
	while (ac_watch_read(w))
		;
	save_session(dir, "s1", "after", "2026-01-01T00:00:01.000Z");
	assert_true(wait_for(w, AC_WATCH_SESSIONS) & AC_WATCH_SESSIONS);
	assert_true(ac_watch_session_files(w, &names, &n));
	ac_watch_free(w);
}

/* ---- the index refreshed one named file at a time ---------------------------- */

/* What a reader that copied the listing keeps: the ids, in order. */
typedef struct {
	char ids[64][16];
	size_t n;
} mirror;

static void mirror_apply(mirror *m, const ac_session_index *idx, const ac_session_index_change *c)
{
	const ac_session_summary *const *list;
	size_t n;

	list = ac_session_index_list(idx, &n);
	if (!c->changed) {
		assert_int_equal(c->was_at, AC_SESSION_INDEX_NONE);
		assert_int_equal(c->now_at, AC_SESSION_INDEX_NONE);
		return;
	}
	if (c->was_at != AC_SESSION_INDEX_NONE) {
		assert_true(c->was_at < m->n);
		memmove(m->ids[c->was_at], m->ids[c->was_at + 1], (m->n - c->was_at - 1) * 16);
		m->n--;
	}
	if (c->now_at != AC_SESSION_INDEX_NONE) {
		assert_true(c->now_at <= m->n);
		memmove(m->ids[c->now_at + 1], m->ids[c->now_at], (m->n - c->now_at) * 16);
		snprintf(m->ids[c->now_at], 16, "%s", list[c->now_at]->id);
		m->n++;
	}
}

/* The index after each one-file refresh lists what a full listing of the
 * folder lists (ids, order, fields, stale marks, problems), and the
 * places it reports keep a copied listing equal to it: over saves, new
 * sessions, removals, a changed createdAt (the row moves), a torn write
 * (kept stale) and its repair, temp files and a file that did not change. */
static void test_index_refresh_file_matches_a_listing(void **state)
{
	fixture *f = *state;
	const char *dir = f->ws.sessions_dir;
	ac_session_index *idx, *fresh;
	mirror copy = {0};
	unsigned seed = 7;

	make_sessions_dir(f);
	for (int i = 0; i < 20; i++) {
		char id[16], created[32];

		snprintf(id, sizeof(id), "s%02d", i);
		snprintf(created, sizeof(created), "2026-01-01T00:00:%02d.000Z", i % 7);
		save_session(dir, id, "start", created);
	}
	assert_int_equal(ac_session_index_new(&idx, dir), 0);
	ac_session_index_keep_last_good(idx, true);
	assert_int_equal(ac_session_index_refresh(idx, NULL, NULL, NULL), 0);
	{
		size_t n;
		const ac_session_summary *const *list = ac_session_index_list(idx, &n);

		for (size_t i = 0; i < n; i++)
			snprintf(copy.ids[copy.n++], 16, "%s", list[i]->id);
	}
	for (int step = 0; step < 400; step++) {
		char id[16], name[64], task[32], created[32], *path;
		ac_session_index_change change;
		int what = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 10;
		int which = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 30;

		snprintf(id, sizeof(id), "s%02d", which);
		snprintf(name, sizeof(name), "%s.json", id);
		snprintf(task, sizeof(task), "task %d", step);
		snprintf(created, sizeof(created), "2026-01-01T00:00:%02d.000Z", (step + which) % 9);
		path = tu_path(dir, name);
		if (what < 5) {
			save_session(dir, id, task, what == 4 ? created : "2026-01-01T00:00:03.000Z");
		} else if (what == 5) {
			unlink(path);
		} else if (what == 6) {
			tu_write_file(path, "{\"id\": \"torn", 12);
		} else if (what == 7) {
			char tmp[48];

			snprintf(tmp, sizeof(tmp), "%s.json.tmp", id);
			tu_put(dir, tmp, "{}");
			snprintf(name, sizeof(name), "%s", tmp); /* names a temp file */
		}
		/* what 8, 9: nothing changed, the file is named anyway */
		assert_int_equal(ac_session_index_refresh_file(idx, name, NULL, NULL, &change), 0);
		mirror_apply(&copy, idx, &change);
		free(path);

		assert_int_equal(ac_session_index_new(&fresh, dir), 0);
		ac_session_index_keep_last_good(fresh, true);
		assert_int_equal(ac_session_index_refresh(fresh, NULL, NULL, NULL), 0);
		{
			size_t n1, n2;
			const ac_session_summary *const *a = ac_session_index_list(idx, &n1);
			const ac_session_summary *const *b = ac_session_index_list(fresh, &n2);

			/* A fresh index never read a torn file well: it leaves it
			 * out where idx keeps it stale. */
			size_t j = 0;

			assert_int_equal(copy.n, n1);
			for (size_t i = 0; i < n1; i++) {
				assert_string_equal(copy.ids[i], a[i]->id);
				if (a[i]->stale)
					continue;
				assert_true(j < n2);
				assert_string_equal(a[i]->id, b[j]->id);
				assert_string_equal(a[i]->task, b[j]->task);
				assert_string_equal(a[i]->created_at, b[j]->created_at);
				j++;
			}
			assert_int_equal(j, n2);
			assert_int_equal(ac_session_index_problems(idx),
					 ac_session_index_problems(fresh));
		}
		ac_session_index_free(fresh);
	}
	ac_session_index_free(idx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_follow_backlog_then_only_new_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_waits_for_the_newline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_survives_rotation_and_truncation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inotify_reports_each_kind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_polling_reports_each_kind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_inotify_watcher_sleeps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inotify_follows_a_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_polling_follows_a_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_ids_are_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inotify_follows_session_checkpoint_folders, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_watch_names_changed_session_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch_folder_events_ask_for_a_listing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_watch_overflow_asks_for_a_listing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_refresh_file_matches_a_listing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_polling_follows_session_checkpoint_folders, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
