/* The sandbox memo mirror (ac_sandbox.h) and USER.md consolidation
 * (ac_consolidate.h) over the file-system backend: the round trip byte
 * for byte, the conflict rule, refreshing after compaction (7a) and after
 * consolidation (7b), and a mirror folder written by a hostile agent
 * (links, folders, FIFOs, bad names, huge files) that must never make sync
 * read or write outside the store.
 *
 * The sandbox goes through ac_backend alone: with AC_SANDBOX_TEST_PG set
 * (a libpq connection string; ctest's test_sandbox_pg sets it under
 * tests/pg/with-postgres.sh) every case runs on the PostgreSQL backend,
 * each in a fresh schema, instead of the files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_backend_fs.h"
#include "ac_backend_pg.h"
#include "ac_consolidate.h"
#include "ac_error.h"
#include "ac_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OK(expr)                                                                   \
	do {                                                                           \
		int rc_ = (expr);                                                          \
		if (rc_ != 0)                                                              \
			fail_msg("%s: %d (%s)", #expr, rc_, ac_error_last());              \
	} while (0)

typedef struct {
	char *root;
	char *data;
	char *sessions;
	char *registry;
	char *mirror;     /* root/mirror: the folder the agent sees */
	char *outside;    /* root/outside: where nothing may be written */
	ac_backend b;
	ac_sandbox_options opts;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	ac_backend_fs_options fs = AC_BACKEND_FS_OPTIONS_INIT;
	char *id = NULL;

	f->root = tu_make_temp_dir();
	f->data = tu_path(f->root, ".agent");
	f->sessions = tu_path(f->data, "sessions");
	f->registry = tu_path(f->data, "sandboxes");
	f->mirror = tu_path(f->root, "mirror");
	f->outside = tu_path(f->root, "outside");
	mkdir(f->outside, 0755);
	fs.sessions_dir = f->sessions;
	fs.data_dir = f->data;
	if (getenv("AC_SANDBOX_TEST_PG")) {
		static int case_number;
		char schema[64];
		ac_backend_pg_options pg = {.version = AC_BACKEND_PG_OPTIONS_VERSION,
			.url = getenv("AC_SANDBOX_TEST_PG"), .schema = schema};

		snprintf(schema, sizeof(schema), "sandbox_%d_%d", (int)getpid(), ++case_number);
		if (ac_backend_pg_init(&f->b, &pg) != 0) {
			fprintf(stderr, "test_sandbox: %s\n", ac_error_last());
			return -1;
		}
	} else if (ac_backend_fs_init(&f->b, &fs) != 0) {
		return -1;
	}
	f->opts = (ac_sandbox_options)AC_SANDBOX_OPTIONS_INIT;
	f->opts.registry_dir = f->registry;
	if (f->b.session.get_or_create(f->b.impl, &id, "T", "U", "A", "s1") != 0)
		return -1;
	free(id);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	ac_backend_close(&f->b);
	tu_remove_tree(f->root);
	free(f->root);
	free(f->data);
	free(f->sessions);
	free(f->registry);
	free(f->mirror);
	free(f->outside);
	free(f);
	return 0;
}

static void memo_put(fixture *f, const char *owner, const char *scope, const char *name,
		     const char *data, size_t len)
{
	OK(f->b.memo.write(f->b.impl, "T", owner, scope, name, data, len));
}

/* The store's document must hold exactly len bytes of data. */
static void assert_memo(fixture *f, const char *owner, const char *scope, const char *name,
			const char *data, size_t len)
{
	char *got = NULL;
	size_t got_len = 0;

	OK(f->b.memo.read(f->b.impl, &got, &got_len, "T", owner, scope, name));
	assert_int_equal(got_len, len);
	assert_memory_equal(got, data, len);
	free(got);
}

static void assert_mirror_file(fixture *f, const char *rel, const char *data, size_t len)
{
	char *path = tu_path(f->mirror, rel), *got;
	size_t got_len = 0;

	got = tu_read_file(path, &got_len);
	assert_non_null(got);
	assert_int_equal(got_len, len);
	assert_memory_equal(got, data, len);
	free(got);
	free(path);
}

static void put_mirror_file(fixture *f, const char *rel, const char *data, size_t len)
{
	char *path = tu_path(f->mirror, rel);

	tu_write_file(path, data, len);
	free(path);
}

static void mirror(fixture *f, ac_sandbox_result *r)
{
	OK(ac_sandbox_mirror(r, &f->b, "T", "s1", f->mirror, &f->opts));
}

static void sync_mirror(fixture *f, ac_sandbox_result *r)
{
	OK(ac_sandbox_sync(r, &f->b, "T", "s1", f->mirror, &f->opts));
}

/* mirror -> the agent edits and adds -> sync: the store holds the agent's
 * bytes exactly (NUL, CR, invalid UTF-8 included); a second sync finds
 * nothing to do. */
static void test_round_trip(void **state)
{
	fixture *f = *state;
	static const char notes[] = "line one\r\n\0binary\xff\xfe tail";
	static const char edited[] = "edited\0\x01\x80 by the agent\n";
	static const char added[] = "a new note";
	ac_sandbox_result r;

	memo_put(f, "s1", "session", "NOTES.md", notes, sizeof(notes) - 1);
	memo_put(f, "U", "user", "USER.md", "user doc\n", 9);
	memo_put(f, "A", "agent", "AGENT.md", "agent doc\n", 10);
	OK(f->b.artifact.write(f->b.impl, "T", "s1", "call_1", "tool output", 11));
	mirror(f, &r);
	assert_int_equal(r.written, 4);
	assert_null(r.notes);
	ac_sandbox_result_free(&r);
	assert_mirror_file(f, "session/NOTES.md", notes, sizeof(notes) - 1);
	assert_mirror_file(f, "user/USER.md", "user doc\n", 9);
	assert_mirror_file(f, "agent/AGENT.md", "agent doc\n", 10);
	assert_mirror_file(f, "artifacts/call_1", "tool output", 11);

	put_mirror_file(f, "session/NOTES.md", edited, sizeof(edited) - 1);
	put_mirror_file(f, "agent/NEW.md", added, sizeof(added) - 1);
	sync_mirror(f, &r);
	assert_int_equal(r.synced, 2);
	assert_int_equal(r.conflicts, 0);
	assert_int_equal(r.refused, 0);
	ac_sandbox_result_free(&r);
	assert_memo(f, "s1", "session", "NOTES.md", edited, sizeof(edited) - 1);
	assert_memo(f, "A", "agent", "NEW.md", added, sizeof(added) - 1);
	assert_memo(f, "U", "user", "USER.md", "user doc\n", 9);
	assert_mirror_file(f, "session/NOTES.md", edited, sizeof(edited) - 1);

	sync_mirror(f, &r);
	assert_int_equal(r.synced, 0);
	assert_int_equal(r.written, 0);
	ac_sandbox_result_free(&r);
}

/* Both sides changed a document: the store's version stays and goes into
 * the mirror, the agent's is kept as NAME.conflict-UTC, and it is said. */
static void test_conflict(void **state)
{
	fixture *f = *state;
	ac_sandbox_result r;
	char **names = NULL, *conflict = NULL;
	size_t n = 0;

	memo_put(f, "U", "user", "USER.md", "v1\n", 3);
	mirror(f, &r);
	ac_sandbox_result_free(&r);
	memo_put(f, "U", "user", "USER.md", "host v2\n", 8);
	put_mirror_file(f, "user/USER.md", "agent v2\n", 9);
	sync_mirror(f, &r);
	assert_int_equal(r.conflicts, 1);
	assert_int_equal(r.synced, 0);
	assert_non_null(r.notes);
	assert_non_null(strstr(r.notes, "conflict"));
	assert_non_null(strstr(r.notes, "USER.md"));
	ac_sandbox_result_free(&r);
	assert_memo(f, "U", "user", "USER.md", "host v2\n", 8);
	assert_mirror_file(f, "user/USER.md", "host v2\n", 8);
	OK(f->b.memo.list(f->b.impl, &names, &n, "T", "U", "user"));
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "USER.md");
	assert_non_null(strstr(names[1], "USER.md.conflict-"));
	assert_memo(f, "U", "user", names[1], "agent v2\n", 9);
	if (asprintf(&conflict, "user/%s", names[1]) < 0)
		fail();
	assert_mirror_file(f, conflict, "agent v2\n", 9);
	free(conflict);
	ac_backend_names_free(names, n);

	/* A store change with no edit in the mirror is just refreshed. */
	memo_put(f, "U", "user", "USER.md", "host v3\n", 8);
	sync_mirror(f, &r);
	assert_int_equal(r.conflicts, 0);
	assert_int_equal(r.written, 1);
	ac_sandbox_result_free(&r);
	assert_mirror_file(f, "user/USER.md", "host v3\n", 8);
}

/* 7a: compaction moves a large tool result to an artifact; the registered
 * mirror shows it at once. A refresh keeps an edit not synced yet. */
static void test_compaction_refreshes(void **state)
{
	fixture *f = *state;
	ac_backend_compact_options copts;
	ac_backend_compact_result cr;
	ac_sandbox_result r;
	json_t *messages;
	char *big = malloc(6001), *path;
	struct stat st;

	memset(big, 'x', 6000);
	big[6000] = '\0';
	memo_put(f, "s1", "session", "NOTES.md", "v1", 2);
	mirror(f, &r);
	ac_sandbox_result_free(&r);
	put_mirror_file(f, "session/NOTES.md", "unsynced edit", 13);
	memo_put(f, "s1", "session", "NOTES.md", "host", 4);
	messages = json_pack("[{s:s, s:[{s:s, s:s, s:s, s:{}}]}, {s:s, s:[{s:s, s:s, s:s}]}]",
			     "role", "assistant", "content", "type", "tool_use", "id", "call_big",
			     "name", "read", "input", "role", "user", "content", "type",
			     "tool_result", "tool_use_id", "call_big", "content", big);
	OK(f->b.session.append(f->b.impl, "T", "s1", messages));
	json_decref(messages);
	path = tu_path(f->mirror, "artifacts/call_big");
	assert_int_not_equal(stat(path, &st), 0);

	ac_backend_compact_options_init(&copts);
	OK(ac_sandbox_compact(&cr, &r, &f->b, "T", "s1", &copts, &f->opts));
	assert_int_equal(cr.externalized, 1);
	assert_int_equal(r.mirrors, 1);
	assert_int_equal(r.kept, 1);
	ac_sandbox_result_free(&r);
	assert_mirror_file(f, "artifacts/call_big", big, 6000);
	assert_mirror_file(f, "session/NOTES.md", "unsynced edit", 13);

	/* A session with no mirror: the hook does nothing. */
	OK(ac_sandbox_refresh_session(&r, &f->b, "T", "nobody", &f->opts));
	assert_int_equal(r.mirrors, 0);
	ac_sandbox_result_free(&r);
	free(path);
	free(big);
}

/* 7b: the user's session notes folded into USER.md by a stub summariser
 * (given the JSON on stdin), and the user's mirrors refreshed. */
static void test_consolidation(void **state)
{
	fixture *f = *state;
	char *input_path = tu_path(f->root, "input.json"), *script = NULL, *input;
	const char *argv[4] = {"/bin/sh", "-c", NULL, NULL};
	ac_consolidate_options copts = AC_CONSOLIDATE_OPTIONS_INIT;
	ac_consolidate_result cr;
	ac_sandbox_result r;
	json_t *doc;
	size_t len;

	memo_put(f, "U", "user", "USER.md", "old profile\n", 12);
	memo_put(f, "s1", "session", "NOTES.md", "likes tea", 9);
	mirror(f, &r);
	ac_sandbox_result_free(&r);
	if (asprintf(&script, "cat > '%s'; echo 'folded profile'", input_path) < 0)
		fail();
	argv[2] = script;
	copts.command = argv;
	copts.sandbox = f->opts;
	/* Options of another version, or with a sandbox member of another:
	 * refused naming the struct, the command never run. */
	copts.version = 0;
	assert_int_equal(ac_consolidate_user(&cr, &f->b, "T", "U", &copts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_consolidate_options version 0"));
	assert_non_null(strstr(ac_error_last(), "AC_CONSOLIDATE_OPTIONS_INIT"));
	copts.version = AC_CONSOLIDATE_OPTIONS_VERSION;
	copts.sandbox.version = 0;
	assert_int_equal(ac_consolidate_user(&cr, &f->b, "T", "U", &copts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_sandbox_options version 0"));
	assert_false(tu_exists(f->root, "input.json"));
	copts.sandbox.version = AC_SANDBOX_OPTIONS_VERSION;
	OK(ac_consolidate_user(&cr, &f->b, "T", "U", &copts));
	assert_true(cr.written);
	assert_int_equal(cr.sessions, 1);
	assert_int_equal(cr.notes, 1);
	assert_int_equal(cr.refreshed.mirrors, 1);
	ac_consolidate_result_free(&cr);
	assert_memo(f, "U", "user", "USER.md", "folded profile\n", 15);
	assert_mirror_file(f, "user/USER.md", "folded profile\n", 15);
	input = tu_read_file(input_path, &len);
	doc = json_loads(input, 0, NULL);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "userId")), "U");
	assert_string_equal(json_string_value(json_object_get(doc, "current")), "old profile\n");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
				    json_array_get(json_object_get(doc, "sessions"), 0), "notes"), 0),
								     "content")),
			    "likes tea");
	json_decref(doc);
	free(input);

	/* A failing summariser changes nothing. */
	argv[2] = "exit 3";
	assert_int_not_equal(ac_consolidate_user(&cr, &f->b, "T", "U", &copts), 0);
	assert_false(cr.written);
	ac_consolidate_result_free(&cr);
	assert_memo(f, "U", "user", "USER.md", "folded profile\n", 15);
	free(script);
	free(input_path);
}

/* The agent writes the mirror folder: nothing it plants is followed,
 * read past the cap, or written anywhere but the store under a checked
 * name. */
static void test_hostile_folder(void **state)
{
	fixture *f = *state;
	char *secret = tu_path(f->outside, "secret"), *path, *got;
	char **names = NULL;
	size_t n = 0, len;
	ac_sandbox_result r;

	tu_write_file(secret, "secret", 6);
	memo_put(f, "s1", "session", "NOTES.md", "v1", 2);
	memo_put(f, "A", "agent", "AGENT.md", "a1", 2);
	mirror(f, &r);
	ac_sandbox_result_free(&r);

	/* A link to a file outside, a folder, a FIFO, names the id rules
	 * refuse, a file over the cap. */
	path = tu_path(f->mirror, "session/link");
	assert_int_equal(symlink(secret, path), 0);
	free(path);
	path = tu_path(f->mirror, "session/folder");
	mkdir(path, 0755);
	free(path);
	path = tu_path(f->mirror, "session/fifo");
	assert_int_equal(mkfifo(path, 0644), 0);
	free(path);
	put_mirror_file(f, "session/.hidden", "x", 1);
	put_mirror_file(f, "session/x.tmp", "x", 1);
	put_mirror_file(f, "session/x.lock", "x", 1);
	f->opts.max_bytes = 1024;
	{
		char big[2048];

		memset(big, 'b', sizeof(big));
		put_mirror_file(f, "session/huge", big, sizeof(big));
	}
	/* The agent's scope folder swapped for a link to a folder outside. */
	path = tu_path(f->mirror, "agent");
	tu_remove_tree(path);
	assert_int_equal(symlink(f->outside, path), 0);
	free(path);
	/* An artifact edited in place. */
	OK(f->b.artifact.write(f->b.impl, "T", "s1", "call_1", "out", 3));

	sync_mirror(f, &r);
	assert_int_equal(r.synced, 0);
	/* 7 in session/, agent/ as a link twice: not synced, not refreshed */
	assert_int_equal(r.refused, 9);
	assert_non_null(strstr(r.notes, "is a symbolic link"));
	assert_non_null(strstr(r.notes, "larger than 1024 bytes"));
	assert_non_null(strstr(r.notes, "not a folder"));
	ac_sandbox_result_free(&r);
	OK(f->b.memo.list(f->b.impl, &names, &n, "T", "s1", "session"));
	assert_int_equal(n, 1); /* NOTES.md only */
	ac_backend_names_free(names, n);
	got = tu_read_file(secret, &len);
	assert_int_equal(len, 6);
	free(got);
	path = tu_path(f->outside, "AGENT.md");
	assert_false(access(path, F_OK) == 0); /* the refresh wrote nothing through the link */
	free(path);

	/* A link planted where a document goes: the refresh neither writes
	 * through it nor replaces it (it is what the agent left there); once
	 * the agent removes it, the store's version comes back. */
	path = tu_path(f->mirror, "session/NOTES.md");
	unlink(path);
	assert_int_equal(symlink(secret, path), 0);
	memo_put(f, "s1", "session", "NOTES.md", "v2", 2);
	OK(ac_sandbox_refresh_session(&r, &f->b, "T", "s1", &f->opts));
	assert_int_equal(r.kept, 1);
	assert_int_equal(r.written, 0);
	ac_sandbox_result_free(&r);
	got = tu_read_file(secret, &len);
	assert_int_equal(len, 6);
	assert_memory_equal(got, "secret", 6);
	free(got);
	{
		char target[256];
		ssize_t target_len = readlink(path, target, sizeof(target));

		assert_int_equal(target_len, (ssize_t)strlen(secret));
		assert_memory_equal(target, secret, (size_t)target_len);
	}
	unlink(path);
	OK(ac_sandbox_refresh_session(&r, &f->b, "T", "s1", &f->opts));
	ac_sandbox_result_free(&r);
	assert_mirror_file(f, "session/NOTES.md", "v2", 2);
	free(path);
	free(secret);
}

/* An edit sync cannot take (over the 16 MiB cap, unreadable, a link) is
 * never replaced by the store's copy: it stays as the agent left it, byte
 * for byte, and the note names the file and says why. A second sync and a
 * refresh after the store changed leave it too. */
static void test_untakeable_edit_kept(void **state)
{
	fixture *f = *state;
	size_t big_len = AC_SANDBOX_MAX_BYTES + ((size_t)1 << 20), got_len = 0;
	char *big = malloc(big_len), *path, *got;
	ac_sandbox_result r;

	assert_non_null(big);
	for (size_t i = 0; i < big_len; i++)
		big[i] = (char)('a' + i % 23);
	memo_put(f, "s1", "session", "NOTES.md", "v1", 2);
	mirror(f, &r);
	ac_sandbox_result_free(&r);
	put_mirror_file(f, "session/NOTES.md", big, big_len);

	sync_mirror(f, &r);
	assert_int_equal(r.synced, 0);
	assert_int_equal(r.conflicts, 0);
	assert_int_equal(r.refused, 1);
	assert_int_equal(r.written, 0);
	assert_non_null(r.notes);
	assert_non_null(strstr(r.notes, "session/NOTES.md: larger than"));
	assert_string_equal(strchr(r.notes, '\n'), "\n"); /* one line */
	ac_sandbox_result_free(&r);
	assert_memo(f, "s1", "session", "NOTES.md", "v1", 2);
	path = tu_path(f->mirror, "session/NOTES.md");
	got = tu_read_file(path, &got_len);
	assert_int_equal(got_len, big_len);
	assert_memory_equal(got, big, big_len);
	free(got);

	/* The store changes: a refresh still leaves the agent's file. */
	memo_put(f, "s1", "session", "NOTES.md", "v2", 2);
	OK(ac_sandbox_refresh_session(&r, &f->b, "T", "s1", &f->opts));
	assert_int_equal(r.written, 0);
	assert_int_equal(r.kept, 1);
	ac_sandbox_result_free(&r);
	sync_mirror(f, &r);
	assert_int_equal(r.refused, 1);
	assert_int_equal(r.written, 0);
	ac_sandbox_result_free(&r);
	got = tu_read_file(path, &got_len);
	assert_int_equal(got_len, big_len);
	assert_memory_equal(got, big, big_len);
	free(got);

	/* Cut back under the cap, it is an edit like any other: the store
	 * changed since the mirror, so it is a conflict copy. */
	put_mirror_file(f, "session/NOTES.md", big, 100);
	sync_mirror(f, &r);
	assert_int_equal(r.conflicts, 1);
	ac_sandbox_result_free(&r);
	assert_mirror_file(f, "session/NOTES.md", "v2", 2);
	free(path);
	free(big);
}

/* Wrong tenant, no registration, bad ids: refused before anything. */
static void test_refusals(void **state)
{
	fixture *f = *state;
	ac_sandbox_result r;

	assert_int_equal(ac_sandbox_mirror(&r, &f->b, "other", "s1", f->mirror, &f->opts),
			 AC_ENOTFOUND);
	ac_sandbox_result_free(&r);
	mkdir(f->mirror, 0755);
	assert_int_equal(ac_sandbox_sync(&r, &f->b, "T", "s1", f->mirror, &f->opts), AC_ENOTFOUND);
	assert_non_null(strstr(ac_error_last(), "sandbox mirror first"));
	ac_sandbox_result_free(&r);
	assert_int_equal(ac_sandbox_mirror(&r, &f->b, "T", "../s1", f->mirror, &f->opts), AC_EINVAL);
	ac_sandbox_result_free(&r);
}

/* A backend of another version is refused by every entry point before
 * it is used (its operations are never called). */
static void test_backend_version(void **state)
{
	fixture *f = *state;
	ac_backend_compact_options compact;
	ac_backend_compact_result compacted = {0};
	ac_sandbox_result r;
	ac_backend old = f->b;
	struct stat st;

	ac_backend_compact_options_init(&compact);
	old.version = AC_BACKEND_VERSION + 1;
	assert_int_equal(ac_sandbox_mirror(&r, &old, "T", "s1", f->mirror, &f->opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "backend version 3"));
	ac_sandbox_result_free(&r);
	assert_int_equal(ac_sandbox_sync(&r, &old, "T", "s1", f->mirror, &f->opts), AC_EINVAL);
	ac_sandbox_result_free(&r);
	assert_int_equal(ac_sandbox_refresh_session(&r, &old, "T", "s1", &f->opts), AC_EINVAL);
	ac_sandbox_result_free(&r);
	assert_int_equal(ac_sandbox_refresh_user(&r, &old, "T", "u", &f->opts), AC_EINVAL);
	ac_sandbox_result_free(&r);
	assert_int_equal(ac_sandbox_refresh_owner(&r, &old, "T", "s1", "session", &f->opts),
			 AC_EINVAL);
	ac_sandbox_result_free(&r);
	assert_int_equal(ac_sandbox_compact(&compacted, &r, &old, "T", "s1", &compact, &f->opts),
			 AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "backend version 3"));
	ac_sandbox_result_free(&r);
	assert_int_equal(stat(f->mirror, &st), -1);
}

/* The options carry their version: options not started from
 * AC_SANDBOX_OPTIONS_INIT (version 0) are refused by every call, naming
 * the struct, before anything is written; the right version mirrors. */
static void test_options_version(void **state)
{
	fixture *f = *state;
	ac_sandbox_options opts = {.registry_dir = f->registry};
	ac_backend_compact_result cr;
	ac_sandbox_result r;

	assert_int_equal(ac_sandbox_mirror(&r, &f->b, "T", "s1", f->mirror, &opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_sandbox_options version 0"));
	assert_non_null(strstr(ac_error_last(), "AC_SANDBOX_OPTIONS_INIT"));
	assert_false(tu_exists(f->root, "mirror"));
	assert_int_equal(ac_sandbox_sync(&r, &f->b, "T", "s1", f->mirror, &opts), AC_EINVAL);
	assert_int_equal(ac_sandbox_refresh_session(&r, &f->b, "T", "s1", &opts), AC_EINVAL);
	assert_int_equal(ac_sandbox_refresh_user(&r, &f->b, "T", "U", &opts), AC_EINVAL);
	assert_int_equal(ac_sandbox_refresh_owner(&r, &f->b, "T", "s1", "session", &opts), AC_EINVAL);
	assert_int_equal(ac_sandbox_compact(&cr, &r, &f->b, "T", "s1", NULL, &opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_sandbox_options version 0"));
	opts.version = AC_SANDBOX_OPTIONS_VERSION;
	OK(ac_sandbox_mirror(&r, &f->b, "T", "s1", f->mirror, &opts));
	ac_sandbox_result_free(&r);
}

/* Another host writes the document between sync's look at the store and
 * its write-back: the write-back is refused (memo_write_if compares under
 * the store's lock) and the agent's edit kept as a conflict copy, never
 * written over the host's (found by the simulator's "sandbox" scenario). */
static const ac_backend *racing_store;
static int host_writes_left;

static int read_then_host_writes(void *impl, char **out, size_t *out_len, const char *tenant,
				 const char *owner, const char *scope, const char *name)
{
	int rc = racing_store->memo.read(impl, out, out_len, tenant, owner, scope, name);

	if (rc == 0 && host_writes_left > 0 && !strcmp(name, "NOTES.md")) {
		host_writes_left--;
		OK(racing_store->memo.write(impl, tenant, owner, scope, name, "host v2\n", 8));
	}
	return rc;
}

static void test_host_write_during_sync_is_kept(void **state)
{
	fixture *f = *state;
	ac_backend racing = f->b;
	ac_sandbox_result r;

	if (!f->b.optional.memo_write_if)
		skip(); /* a store without it compares and writes in two steps */
	memo_put(f, "s1", "session", "NOTES.md", "v1\n", 3);
	mirror(f, &r);
	ac_sandbox_result_free(&r);
	put_mirror_file(f, "session/NOTES.md", "agent v2\n", 9);
	racing_store = &f->b;
	racing.memo.read = read_then_host_writes;
	host_writes_left = 1;
	OK(ac_sandbox_sync(&r, &racing, "T", "s1", f->mirror, &f->opts));
	assert_int_equal(r.synced, 0);
	assert_int_equal(r.conflicts, 1);
	ac_sandbox_result_free(&r);
	assert_memo(f, "s1", "session", "NOTES.md", "host v2\n", 8);
}

/* A refresh killed between its two swaps left the agent's edit in its
 * temp file and the store's version in the mirror: the next refresh puts
 * the edit back and removes the temp file (found by the simulator). */
static void test_set_aside_edit_put_back(void **state)
{
	fixture *f = *state;
	const pid_t dead = 4194303; /* above any pid this machine gives */
	ac_sandbox_result r;
	char *temp = NULL, *path = NULL;
	struct stat st;

	if (kill(dead, 0) == 0 || errno != ESRCH)
		skip();
	memo_put(f, "s1", "session", "NOTES.md", "v1\n", 3);
	mirror(f, &r);
	ac_sandbox_result_free(&r);
	memo_put(f, "s1", "session", "NOTES.md", "v2\n", 3);
	put_mirror_file(f, "session/NOTES.md", "v2\n", 3);
	if (asprintf(&temp, "session/.agentctl-%d-0-NOTES.md.tmp", (int)dead) < 0)
		fail();
	put_mirror_file(f, temp, "agent edit\n", 11);
	mirror(f, &r);
	assert_non_null(r.notes);
	assert_non_null(strstr(r.notes, "put back"));
	ac_sandbox_result_free(&r);
	assert_mirror_file(f, "session/NOTES.md", "agent edit\n", 11);
	path = tu_path(f->mirror, temp);
	assert_int_not_equal(stat(path, &st), 0);
	free(path);
	free(temp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conflict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_write_during_sync_is_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_aside_edit_put_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compaction_refreshes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_options_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_consolidation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_folder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untakeable_edit_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backend_version, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
