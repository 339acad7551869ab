/* The storage-backend conformance suite (tests/conformance) run against
 * the file-system backend, and what only the file system can show: the
 * files on disk, torn and corrupt lines, nothing written outside the
 * workspace, and a crash at each named point between two writes (the
 * backend's test seam). */
#include "ac_conformance.h"

#include "ac_backend_fs.h"
#include "ac_backend_pg.h"
#include "test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the harness: a temp folder holding one workspace ---- */

typedef struct {
	char *root;    /* the temp folder; holds only ws */
	char *ws;      /* the workspace */
	char *sessions;
	char *data;
	ac_backend backend;
} fixture;

/* The crash point a forked child should die at (the fs test seam). */
static const char *crash_at;

static void crash_hook(const char *point, void *ctx)
{
	(void)ctx;
	if (crash_at && !strcmp(point, crash_at))
		_exit(42);
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	ac_backend_fs_options opts = AC_BACKEND_FS_OPTIONS_INIT;

	f->root = tu_make_temp_dir();
	f->ws = tu_path(f->root, "ws");
	f->data = tu_path(f->ws, ".agent");
	f->sessions = tu_path(f->data, "sessions");
	mkdir(f->ws, 0755);
	opts.sessions_dir = f->sessions;
	opts.data_dir = f->data;
	opts.test_hook = crash_hook;
	if (ac_backend_fs_init(&f->backend, &opts) != 0)
		return -1;
	crash_at = NULL;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	ac_backend_close(&f->backend);
	tu_remove_tree(f->root);
	free(f->root);
	free(f->ws);
	free(f->data);
	free(f->sessions);
	free(f);
	return 0;
}

static void append_text(const char *path, const char *text)
{
	tu_append_file(path, text, strlen(text));
}

/* ---- 1. the session store ---- */

static void test_session_store(void **state)
{
	fixture *f = *state;
	char *path, *text;

	conform_session_store(&f->backend);
	/* On disk: the reference session file, tenancy in metadata. */
	path = tu_path(f->sessions, "chosen-id.json");
	text = tu_read_file(path, NULL);
	assert_non_null(strstr(text, "\"tenantId\": \"t1\""));
	assert_non_null(strstr(text, "\"conversationHistory\": []"));
	free(text);
	free(path);
}

/* ---- 5. the trace store ---- */

static void test_trace(void **state)
{
	fixture *f = *state;
	char *dir = tu_path(f->data, "traces/t1"), *path = tu_path(dir, "s1.jsonl");
	json_t *env = json_object(), *all = NULL;
	uint64_t seq = 0;
	size_t skipped = 0;
	ac_backend *b = &f->backend;

	conform_trace(b);
	/* A torn line (a writer killed mid-line) and a corrupt one are
	 * skipped; the next append continues the numbering. */
	append_text(path, "{\"seq\":7,\"at\":\"x\",\"da");
	OK(b->trace.append(b->impl, &seq, "t1", "s1", env));
	assert_int_equal(seq, 4);
	append_text(path, "garbage\n");
	OK(b->trace.append(b->impl, &seq, "t1", "s1", env));
	assert_int_equal(seq, 5);
	OK(b->trace.load(b->impl, &all, &skipped, "t1", "s1", 0));
	assert_int_equal(json_array_size(all), 5);
	assert_int_equal(skipped, 2);
	json_decref(all);
	conform_expect_each_as_load(b, "t1", "s1");
	/* A complete record that lost only its newline still counts. */
	append_text(path, "{\"seq\":6,\"at\":\"x\",\"data\":{}}");
	OK(b->trace.append(b->impl, &seq, "t1", "s1", env));
	assert_int_equal(seq, 7);
	conform_expect_each_as_load(b, "t1", "s1");
	/* Lines out of seq order (a writer that skipped the lock), one with
	 * its seq not first: walked in seq order all the same. */
	append_text(path, "{\"seq\":3,\"at\":\"x\",\"data\":{\"late\":1}}\n"
			  "{\"at\":\"y\",\"seq\":9,\"data\":{}}\n");
	conform_expect_each_as_load(b, "t1", "s1");
	OK(b->trace.load(b->impl, &all, NULL, "t1", "s1", 0));
	assert_int_equal(json_array_size(all), 9);
	json_decref(all);
	/* Without a trailing newline, and with the file's last record last. */
	append_text(path, "{\"at\":\"z\",\"seq\":10,\"data\":{}}");
	conform_expect_each_as_load(b, "t1", "s1");
	json_decref(env);
	free(path);
	free(dir);
}

/* ---- 6. orchestration ---- */

static void test_orchestration(void **state)
{
	fixture *f = *state;
	char *path = tu_path(f->data, "orchestration/t1/run1/snapshot.json"), *text;

	conform_orchestration(&f->backend);
	text = tu_read_file(path, NULL);
	assert_non_null(strstr(text, "\"seq\": 3"));
	free(text);
	free(path);
}

/* ---- tenant isolation ---- */

/* Nothing may appear outside the workspace: the temp folder holds ws only. */
static void assert_only_workspace(const fixture *f)
{
	DIR *d = opendir(f->root);
	struct dirent *e;

	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "ws"))
			fail_msg("%s appeared outside the workspace", e->d_name);
	closedir(d);
}

static void test_tenant_isolation(void **state)
{
	fixture *f = *state;

	conform_tenant_isolation(&f->backend);
	assert_only_workspace(f);
}

static void test_crafted_ids(void **state)
{
	fixture *f = *state;
	char *etc = tu_path(f->data, "memo");
	struct stat st;

	conform_crafted_ids(&f->backend);
	assert_only_workspace(f);
	/* And inside it, only the one valid tenant folder was made. */
	assert_int_equal(stat(etc, &st), 0);
	free(etc);
	etc = tu_path(f->data, "memo/t");
	assert_int_not_equal(stat(etc, &st), 0);
	free(etc);
}

/* A link below the data folder (a tenant's or owner's folder) that leads
 * out of it is never followed, for reading or writing: only the kind
 * folders themselves (memo, artifacts, traces, orchestration) are checked
 * when the workspace opens (issue 23 item 4). */
static void test_links_below_data_folder(void **state)
{
	fixture *f = *state;
	const char *kinds[] = {"memo", "artifacts", "traces", "orchestration"};
	char *out = tu_path(f->root, "out"), *dir, *link, *text = NULL;
	json_t *env = json_object();
	ac_backend *b = &f->backend;
	size_t len = 0;
	DIR *d;

	mkdir(out, 0755);
	mkdir(f->data, 0755);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		dir = tu_path(f->data, kinds[i]);
		link = tu_path(dir, "t1");
		mkdir(dir, 0755);
		assert_int_equal(symlink(out, link), 0);
		free(link);
		free(dir);
	}
	/* memo/t2/o1 a link: the owner's folder. */
	dir = tu_path(f->data, "memo/t2");
	mkdir(dir, 0755);
	link = tu_path(dir, "o1");
	assert_int_equal(symlink(out, link), 0);
	free(link);
	free(dir);
	assert_int_equal(b->memo.write(b->impl, "t1", "o1", "session", "n", "x", 1), AC_EDENIED);
	assert_int_equal(b->memo.append(b->impl, "t1", "o1", "session", "n", "x", 1), AC_EDENIED);
	assert_int_equal(b->memo.write(b->impl, "t2", "o1", "session", "n", "x", 1), AC_EDENIED);
	assert_int_equal(b->memo.read(b->impl, &text, &len, "t2", "o1", "session", "n"), AC_EDENIED);
	assert_int_equal(b->artifact.write(b->impl, "t1", "s1", "call1", "x", 1), AC_EDENIED);
	assert_int_equal(b->trace.append(b->impl, NULL, "t1", "s1", env), AC_EDENIED);
	assert_int_equal(b->orch.append_event(b->impl, NULL, "t1", "run1", env), AC_EDENIED);
	/* Nothing was made where the links lead. */
	d = opendir(out);
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			fail_msg("%s appeared outside the workspace", e->d_name);
	closedir(d);
	/* A tenant whose folders are real still works. */
	OK(b->memo.write(b->impl, "t3", "o1", "session", "n", "x", 1));
	OK(b->trace.append(b->impl, NULL, "t3", "s1", env));
	free(text);
	json_decref(env);
	free(out);
}

/* ---- a crash between the two writes of one call ---- */

static void arm_turn_crash(void)
{
	crash_at = AC_BACKEND_FS_AFTER_TURN_MESSAGES;
}

static void test_crash_in_record_turn(void **state)
{
	fixture *f = *state;
	int status = conform_crash_in_record_turn(&f->backend, arm_turn_crash);
	ac_backend_session_info *list = NULL;
	size_t n;
	ac_backend_session_info info;

	/* The fs backend died between its writes: messages in, turn not
	 * counted, as documented. */
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 42);
	info = conform_find_info(&f->backend, "crashy", &list, &n);
	assert_int_equal(info.messages, 6);
	assert_int_equal(info.turns, 2);
	assert_int_equal(info.input_tokens, 20);
	ac_backend_sessions_free(list, n);
}

/* ---- compaction: large tool results to artifacts ---- */

static void test_compaction_externalizes(void **state)
{
	fixture *f = *state;
	char *archives = tu_path(f->sessions, ".compactions/long");
	DIR *d;

	conform_compaction_externalizes(&f->backend);
	/* The summarised originals are archived where ac_compact keeps them. */
	d = opendir(archives);
	assert_non_null(d);
	closedir(d);
	free(archives);
}

/* A crash after the artifacts are written but before the session refers
 * to them leaves the session as it was; the next compaction finishes. */
static void test_crash_in_compaction(void **state)
{
	fixture *f = *state;
	ac_backend *b = &f->backend;
	char *id = conform_new_session(b, "t1", "u1", "c"), *x = conform_big(6000, 'z'), *text = NULL;
	json_t *m = json_pack("[{s:s, s:s, s:s}]", "role", "tool", "tool_call_id", "call_9", "content", x);
	ac_backend_compact_result r;
	json_t *all = NULL;
	int status;
	size_t len;
	pid_t pid;

	OK(b->session.append(b->impl, "t1", id, m));
	pid = fork();
	if (pid == 0) {
		crash_at = AC_BACKEND_FS_AFTER_ARTIFACTS;
		_exit(b->session.compact_if_needed(b->impl, NULL, "t1", id, NULL) ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 42);
	OK(b->session.load_all(b->impl, &all, "t1", id));
	assert_string_equal(json_string_value(json_object_get(json_array_get(all, 0), "content")), x);
	json_decref(all);
	OK(b->session.compact_if_needed(b->impl, &r, "t1", id, NULL));
	assert_int_equal(r.externalized, 1);
	OK(b->artifact.read(b->impl, &text, &len, "t1", id, "call_9"));
	assert_string_equal(text, x);
	free(text);
	/* A different output already stored under an id keeps the result inline. */
	json_decref(m);
	m = json_pack("[{s:s, s:s, s:s}]", "role", "tool", "tool_call_id", "call_9", "content", x + 1);
	OK(b->session.append(b->impl, "t1", id, m));
	OK(b->session.compact_if_needed(b->impl, &r, "t1", id, NULL));
	assert_int_equal(r.externalized, 0);
	json_decref(m);
	free(x);
	free(id);
}

/* ---- the suite on files, then the file-only cases ---- */

/* The suite's backend is the fixture's, moved out; one case at a time. */
static void *suite_fixture;

static int make_fs(ac_backend *out, void *ctx)
{
	fixture *f;

	(void)ctx;
	if (setup(&suite_fixture) != 0)
		return -1;
	f = suite_fixture;
	*out = f->backend;
	f->backend = (ac_backend){0};
	return 0;
}

static void release_fs(ac_backend *b, void *ctx)
{
	(void)ctx;
	ac_backend_close(b);
	teardown(&suite_fixture);
}

/* The version a backend is built with: AC_BACKEND_VERSION is taken, any
 * other is refused with a message naming both; the file backend is made
 * at the library's version. */
static void test_backend_version(void **state)
{
	fixture *f = *state;
	ac_backend b = AC_BACKEND_INIT;

	assert_int_equal(ac_backend_version_check(&b), 0);
	assert_int_equal(ac_backend_version_check(&f->backend), 0);
	assert_int_equal(ac_backend_init(&b, AC_BACKEND_VERSION), 0);
	assert_int_equal(b.version, AC_BACKEND_VERSION);
	assert_int_equal(ac_backend_init(&b, AC_BACKEND_VERSION + 1), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "backend version 3"));
	assert_int_equal(b.version, 0);
	assert_int_equal(ac_backend_version_check(&b), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "backend version 0"));
	assert_int_equal(ac_backend_version_check(NULL), AC_EINVAL);
}

/* The backends' options carry their version too: options of another one
 * (or not started from the INIT macro) are refused before anything is
 * opened, naming both versions; *out is left empty. */
static void test_options_version(void **state)
{
	fixture *f = *state;
	ac_backend b = AC_BACKEND_INIT;
	ac_backend_fs_options fs = AC_BACKEND_FS_OPTIONS_INIT;
	ac_backend_pg_options pg = AC_BACKEND_PG_OPTIONS_INIT;

	fs.sessions_dir = f->sessions;
	fs.data_dir = f->data;
	fs.version = AC_BACKEND_FS_OPTIONS_VERSION + 1;
	assert_int_equal(ac_backend_fs_init(&b, &fs), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "file-system backend options version 2"));
	assert_non_null(strstr(ac_error_last(), "AC_BACKEND_FS_OPTIONS_INIT"));
	assert_null(b.impl);
	fs.version = 0;
	assert_int_equal(ac_backend_fs_init(&b, &fs), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "options version 0"));
	fs.version = AC_BACKEND_FS_OPTIONS_VERSION;
	assert_int_equal(ac_backend_fs_init(&b, &fs), 0);
	ac_backend_close(&b);

	/* Refused before any connection: no server is needed to see it. */
	pg.url = "postgresql://nobody@127.0.0.1:1/nodb?connect_timeout=1";
	pg.version = AC_BACKEND_PG_OPTIONS_VERSION + 1;
	assert_int_equal(ac_backend_pg_init(&b, &pg), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "PostgreSQL backend options version 2"));
	assert_non_null(strstr(ac_error_last(), "AC_BACKEND_PG_OPTIONS_INIT"));
	assert_null(b.impl);
}

/* Compaction options of another version, or with a compact member (or
 * its write) of another, are refused naming the struct, the session as it
 * was; AC_BACKEND_COMPACT_OPTIONS_INIT's are taken and carry the defaults. */
static void test_compact_options_version(void **state)
{
	fixture *f = *state;
	const ac_backend *b = &f->backend;
	ac_backend_compact_options opts = AC_BACKEND_COMPACT_OPTIONS_INIT, inited;
	ac_backend_compact_result r;
	json_t *before = NULL, *after = NULL;
	char *id = NULL;

	ac_backend_compact_options_init(&inited);
	assert_int_equal(inited.version, AC_BACKEND_COMPACT_OPTIONS_VERSION);
	assert_int_equal(opts.artifact_threshold, inited.artifact_threshold);
	assert_int_equal(opts.compact.trigger_tokens, inited.compact.trigger_tokens);
	assert_int_equal(opts.compact.write.version, AC_SESSION_WRITE_OPTIONS_VERSION);
	OK(ac_backend_session_create(b, &id, "t1", "u", "a", NULL, "task"));
	OK(ac_backend_session_get(b, &before, "t1", id));
	opts.compact.force = true;
	opts.version = 0;
	assert_int_equal(b->session.compact_if_needed(b->impl, &r, "t1", id, &opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_backend_compact_options version 0"));
	assert_non_null(strstr(ac_error_last(), "AC_BACKEND_COMPACT_OPTIONS_INIT"));
	opts.version = AC_BACKEND_COMPACT_OPTIONS_VERSION;
	opts.compact.version = 0;
	assert_int_equal(b->session.compact_if_needed(b->impl, &r, "t1", id, &opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_compact_options version 0"));
	opts.compact.version = AC_COMPACT_OPTIONS_VERSION;
	opts.compact.write.version = 0;
	assert_int_equal(b->session.compact_if_needed(b->impl, &r, "t1", id, &opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_session_write_options version 0"));
	OK(ac_backend_session_get(b, &after, "t1", id));
	assert_true(json_equal(before, after));
	opts.compact.write.version = AC_SESSION_WRITE_OPTIONS_VERSION;
	OK(b->session.compact_if_needed(b->impl, &r, "t1", id, &opts));
	assert_false(r.compacted);
	json_decref(before);
	json_decref(after);
	free(id);
}

/* The store's operations as application calls: the same results as the
 * vtable, the queries answer what the store has, and an operation the store
 * leaves unset is AC_ENOTSUP naming it, not a call through NULL. */
static void test_calls(void **state)
{
	fixture *f = *state;
	ac_backend b = f->backend;
	ac_backend_session_info info = {0};
	json_t *doc = NULL;
	char *id = NULL, *text = NULL, **names = NULL;
	size_t len = 0, n = 0;

	assert_true(ac_backend_has_local_sessions(&b));
	assert_string_equal(ac_backend_local_sessions(&b), f->sessions);
	assert_false(ac_backend_has_request_keys(&b));
	assert_false(ac_backend_has_local_sessions(NULL));
	assert_int_equal(ac_backend_session_create(&b, &id, "t1", "u", "a", NULL, "task"), 0);
	assert_int_equal(ac_backend_session_get(&b, &doc, "t1", id), 0);
	assert_string_equal(json_string_value(json_object_get(doc, "id")), id);
	assert_int_equal(ac_backend_inspector_find(&b, &info, id), 0);
	assert_string_equal(info.tenant, "t1");
	assert_int_equal(ac_backend_memo_write(&b, "t1", id, "session", "notes", "hi", 2), 0);
	assert_int_equal(ac_backend_memo_read(&b, &text, &len, "t1", id, "session", "notes"), 0);
	assert_int_equal(len, 2);
	assert_int_equal(ac_backend_memo_list(&b, &names, &n, "t1", id, "session"), 0);
	assert_int_equal(n, 1);

	b.request.use = NULL;
	assert_int_equal(ac_backend_request_use(&b, "r1"), AC_ENOTSUP);
	assert_non_null(strstr(ac_error_last(), "request.use"));
	b.memo.stream = NULL;
	assert_false(ac_backend_has_memo_stream(&b));
	assert_int_equal(ac_backend_memo_stream(&b, NULL, NULL, "t1", id, "session", "notes"),
			 AC_ENOTSUP);
	assert_non_null(strstr(ac_error_last(), "memo.stream"));
	assert_non_null(strstr(ac_error_last(), "fs"));
	b.optional.watch = NULL;
	assert_int_equal(ac_backend_watch(&b, NULL), AC_ENOTSUP);
	assert_non_null(strstr(ac_error_last(), "optional.watch"));
	assert_int_equal(ac_backend_session_get(NULL, &doc, "t1", id), AC_EINVAL);

	ac_backend_names_free(names, n);
	ac_backend_session_info_clear(&info);
	json_decref(doc);
	free(text);
	free(id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_session_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_orchestration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tenant_isolation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crafted_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links_below_data_folder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_in_record_turn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compaction_externalizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_in_compaction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backend_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_options_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compact_options_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_calls, setup, teardown),
	};
	const ac_backend_factory files = {"conformance: files", make_fs, release_fs, NULL};
	int failed = ac_backend_conformance_run(&files);

	return failed + cmocka_run_group_tests_name("files only", tests, NULL, NULL);
}
