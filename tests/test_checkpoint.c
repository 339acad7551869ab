/* Checkpoints: the provider contract (memory, file and, when AC_TEST_PG is
 * set, PostgreSQL through the one interface, and none), ordering by version, tombstones, retention, bad
 * files and ids, creating from a session, and rollback with compensations. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_checkpoint.h"
#include "ac_checkpoint_impl.h"
#include "ac_checkpoint_runtime.h"
#include "ac_compact.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_exact.h"
#include "ac_session.h"

#include <dirent.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
	char *dir;       /* the test's temp folder */
	char *sessions;  /* <dir>/sessions */
	char *ckpts;     /* <dir>/checkpoints */
	ac_checkpoint_store *store;
	size_t problems;
	char last_problem[1024];
} fixture;

static void count_problem(const char *path, const char *reason, void *ctx)
{
	fixture *f = ctx;

	assert_non_null(strstr(reason, path));
	f->problems++;
	snprintf(f->last_problem, sizeof(f->last_problem), "%s", reason);
}

static fixture *make_fixture(void)
{
	fixture *f = calloc(1, sizeof(*f));

	f->dir = tu_make_temp_dir();
	f->sessions = tu_path(f->dir, "sessions");
	f->ckpts = tu_path(f->dir, "checkpoints");
	mkdir(f->sessions, 0755);
	return f;
}

static int setup_memory(void **state)
{
	fixture *f = make_fixture();

	assert_int_equal(ac_checkpoint_store_memory_new(&f->store), 0);
	ac_checkpoint_store_set_problem(f->store, count_problem, f);
	*state = f;
	return 0;
}

static int setup_file(void **state)
{
	fixture *f = make_fixture();

	assert_int_equal(ac_checkpoint_store_file_new(&f->store, f->ckpts), 0);
	ac_checkpoint_store_set_problem(f->store, count_problem, f);
	*state = f;
	return 0;
}

static int setup_none(void **state)
{
	fixture *f = make_fixture();

	assert_int_equal(ac_checkpoint_store_none_new(&f->store), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	ac_checkpoint_store_free(f->store);
	tu_remove_tree(f->dir);
	free(f->dir);
	free(f->sessions);
	free(f->ckpts);
	free(f);
	return 0;
}

/* The PostgreSQL server the PG* variables name (ctest runs the pg cases
 * through tests/pg/with-postgres.sh); each case a schema of its own. */
#define TEST_PG_URL "application_name=agentctl-test-checkpoint"
static char pg_schema[64];
static int pg_case;

static void drop_pg_schema(void)
{
	PGconn *conn = PQconnectdb(TEST_PG_URL " options='-c client_min_messages=warning'");
	char *quoted = conn ? PQescapeIdentifier(conn, pg_schema, strlen(pg_schema)) : NULL;
	char sql[160];

	if (quoted) {
		snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE", quoted);
		PQclear(PQexec(conn, sql));
		PQfreemem(quoted);
	}
	PQfinish(conn);
}

static int setup_pg(void **state)
{
	fixture *f = make_fixture();

	snprintf(pg_schema, sizeof(pg_schema), "ckpt_%d_%d", (int)getpid(), ++pg_case);
	drop_pg_schema();
	if (ac_checkpoint_store_pg_new(&f->store, TEST_PG_URL, pg_schema) != 0)
		fail_msg("%s", ac_error_last());
	ac_checkpoint_store_set_problem(f->store, count_problem, f);
	*state = f;
	return 0;
}

static int teardown_pg(void **state)
{
	int rc = teardown(state);

	drop_pg_schema();
	return rc;
}

static bool is_pg(const fixture *f)
{
	return !strcmp(f->store->ops->name, "postgresql");
}

/* A checkpoint document of session s with n messages. */
static json_t *ckpt(const char *session, const char *id, int version, const char *node,
		    const char *created, size_t n)
{
	json_t *history = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(history, json_pack("{s:s, s:s+}", "role", "user",
							 "content", "m", i % 2 ? "1" : "0"));
	return json_pack("{s:s, s:s, s:s, s:s, s:i, s:n, s:s, s:s, s:s, s:s, s:o, s:{}, s:s}",
			 "checkpointId", id, "sessionId", session, "agentId", "claude",
			 "createdAt", created, "version", version, "parentId", "nodeId", node,
			 "lastInput", "", "lastInputType", "text", "lastOutput", "",
			 "messageHistory", history, "properties", "x-unknown", "kept");
}

static void save(fixture *f, json_t *doc)
{
	assert_int_equal(ac_checkpoint_store_save(f->store, doc), 0);
	json_decref(doc);
}

static void assert_versions(json_t *list, const int *versions, size_t n)
{
	assert_int_equal(json_array_size(list), n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ac_checkpoint_version(json_array_get(list, i)), versions[i]);
}

/* ---- the provider contract: the same body for memory and file --------- */

static void test_contract_order_latest_tombstones(void **state)
{
	fixture *f = *state;
	ac_checkpoint_filter live = {.session_id = "s1", .include_tombstones = false}, all = {.session_id = "s1", .include_tombstones = true}, other = {.session_id = "s2", .include_tombstones = true};
	json_t *list = NULL, *latest = NULL;
	int64_t next;

	/* Clocks go backwards: version decides. */
	save(f, ckpt("s1", "c3", 3, "n3", "2020-01-01T00:00:00.000Z", 3));
	save(f, ckpt("s1", "c1", 1, "n1", "2030-01-01T00:00:00.000Z", 1));
	save(f, ckpt("s1", "c2", 2, "n2", "2025-01-01T00:00:00.000Z", 2));
	save(f, ckpt("s1", "c4", 4, AC_CHECKPOINT_TOMBSTONE, "2010-01-01T00:00:00.000Z", 3));
	assert_int_equal(ac_checkpoint_store_list(&list, f->store, &live), 0);
	assert_versions(list, (const int[]){1, 2, 3}, 3);
	json_decref(list);
	assert_int_equal(ac_checkpoint_store_list(&list, f->store, &all), 0);
	assert_versions(list, (const int[]){1, 2, 3, 4}, 4);
	assert_true(ac_checkpoint_is_tombstone(json_array_get(list, 3)));
	json_decref(list);
	assert_int_equal(ac_checkpoint_store_latest(&latest, f->store, "s1"), 0);
	assert_string_equal(ac_checkpoint_id(latest), "c3");
	json_decref(latest);
	assert_int_equal(ac_checkpoint_store_next_version(&next, f->store, "s1"), 0);
	assert_int_equal(next, 5);
	assert_int_equal(ac_checkpoint_store_list(&list, f->store, &other), 0);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	assert_int_equal(ac_checkpoint_store_latest(&latest, f->store, "s2"), AC_ENOTFOUND);
	assert_int_equal(ac_checkpoint_store_next_version(&next, f->store, "s2"), 0);
	assert_int_equal(next, 1);
	assert_int_equal(f->problems, 0);
}

static void test_contract_get_replace_delete(void **state)
{
	fixture *f = *state;
	json_t *doc = ckpt("s1", "c1", 1, "n1", "2025-01-01T00:00:00.000Z", 2), *got = NULL;

	assert_int_equal(ac_checkpoint_store_save(f->store, doc), 0);
	assert_int_equal(ac_checkpoint_store_get(&got, f->store, "s1", "c1"), 0);
	assert_true(json_equal(doc, got)); /* unknown keys kept */
	assert_string_equal(json_string_value(json_object_get(got, "x-unknown")), "kept");
	json_decref(got);
	/* Saving the same id replaces it. */
	json_object_set_new(doc, "nodeId", json_string("again"));
	assert_int_equal(ac_checkpoint_store_save(f->store, doc), 0);
	assert_int_equal(ac_checkpoint_store_get(&got, f->store, "s1", "c1"), 0);
	assert_string_equal(ac_checkpoint_node(got), "again");
	json_decref(got);
	json_decref(doc);
	assert_int_equal(ac_checkpoint_store_get(&got, f->store, "s1", "nope"), AC_ENOTFOUND);
	assert_non_null(strstr(ac_error_last(), "nope"));
	assert_int_equal(ac_checkpoint_store_get(&got, f->store, "s2", "c1"), AC_ENOTFOUND);
	assert_int_equal(ac_checkpoint_store_delete(f->store, "s1", "c1"), 0);
	assert_int_equal(ac_checkpoint_store_get(&got, f->store, "s1", "c1"), AC_ENOTFOUND);
	assert_int_equal(ac_checkpoint_store_delete(f->store, "s1", "c1"), AC_ENOTFOUND);
}

static void test_contract_retention_keeps_first_and_last_n(void **state)
{
	fixture *f = *state;
	ac_checkpoint_filter all = {.session_id = "s1", .include_tombstones = true};
	json_t *list = NULL;
	char id[8];
	int64_t next;

	ac_checkpoint_store_set_retention(f->store, 2);
	for (int v = 1; v <= 6; v++) {
		snprintf(id, sizeof(id), "c%d", v);
		save(f, ckpt("s1", id, v, v == 5 ? AC_CHECKPOINT_TOMBSTONE : "n",
			     "2025-01-01T00:00:00.000Z", 1));
	}
	/* Live: 1 2 3 4 6, tombstone 5. Kept: first (1), last two live (4, 6),
	 * and the tombstone. */
	assert_int_equal(ac_checkpoint_store_list(&list, f->store, &all), 0);
	assert_versions(list, (const int[]){1, 4, 5, 6}, 4);
	json_decref(list);
	assert_int_equal(ac_checkpoint_store_next_version(&next, f->store, "s1"), 0);
	assert_int_equal(next, 7);
}

static void test_contract_bad_ids_refused(void **state)
{
	fixture *f = *state;
	ac_checkpoint_filter bad = {.session_id = "../x", .include_tombstones = true};
	json_t *doc, *list = NULL, *got = NULL;

	doc = ckpt("../escape", "c1", 1, "n", "2025-01-01T00:00:00.000Z", 1);
	assert_int_equal(ac_checkpoint_store_save(f->store, doc), AC_EINVAL);
	json_decref(doc);
	doc = ckpt("s1", "../../evil", 1, "n", "2025-01-01T00:00:00.000Z", 1);
	assert_int_equal(ac_checkpoint_store_save(f->store, doc), AC_EINVAL);
	json_decref(doc);
	assert_int_equal(ac_checkpoint_store_list(&list, f->store, &bad), AC_EINVAL);
	assert_int_equal(ac_checkpoint_store_get(&got, f->store, "s1", "../c1"), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "checkpoint id"));
	assert_int_equal(ac_checkpoint_store_get(&got, f->store, "..", "c1"), AC_EINVAL);
	assert_int_equal(ac_checkpoint_store_delete(f->store, "s1", "a/b"), AC_EINVAL);
	/* Nothing was written outside the checkpoint folder. */
	assert_int_equal(access(f->sessions, F_OK), 0);
	{
		char *escaped = tu_path(f->dir, "escape");

		assert_int_not_equal(access(escaped, F_OK), 0);
		free(escaped);
	}
}

/* ---- none --------------------------------------------------------------- */

static void test_none_stores_nothing(void **state)
{
	fixture *f = *state;
	ac_checkpoint_filter all = {.session_id = "s1", .include_tombstones = true};
	json_t *list = NULL, *got = NULL;
	int64_t next;

	save(f, ckpt("s1", "c1", 1, "n", "2025-01-01T00:00:00.000Z", 1));
	assert_int_equal(ac_checkpoint_store_list(&list, f->store, &all), 0);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	assert_int_equal(ac_checkpoint_store_latest(&got, f->store, "s1"), AC_ENOTFOUND);
	assert_int_equal(ac_checkpoint_store_get(&got, f->store, "s1", "c1"), AC_ENOTFOUND);
	assert_int_equal(ac_checkpoint_store_next_version(&next, f->store, "s1"), 0);
	assert_int_equal(next, 1);
}

/* ---- file specifics ----------------------------------------------------- */

static void test_file_bad_files_reported_and_skipped(void **state)
{
	fixture *f = *state;
	ac_checkpoint_filter all = {.session_id = "s1", .include_tombstones = true};
	char *folder, *path;
	json_t *list = NULL;
	DIR *d;
	struct dirent *e;
	static const char *const bad[][2] = {
		{"garbage.json", "{not json"},
		{"wrongid.json", "{\"checkpointId\":\"other\",\"sessionId\":\"s1\",\"version\":1,"
				 "\"messageHistory\":[]}"},
		{"noversion.json", "{\"checkpointId\":\"noversion\",\"sessionId\":\"s1\","
				   "\"messageHistory\":[]}"},
		{"otherses.json", "{\"checkpointId\":\"otherses\",\"sessionId\":\"s9\",\"version\":1,"
				  "\"messageHistory\":[]}"},
	};

	save(f, ckpt("s1", "good", 1, "n", "2025-01-01T00:00:00.000Z", 1));
	/* Temp names never end in .json: only the checkpoint itself is there. */
	folder = tu_path(f->ckpts, "s1");
	d = opendir(folder);
	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			assert_string_equal(e->d_name, "good.json");
	closedir(d);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		path = tu_path(folder, bad[i][0]);
		tu_write_file(path, bad[i][1], strlen(bad[i][1]));
		free(path);
	}
	path = tu_path(folder, "link.json");
	assert_int_equal(symlink("good.json", path), 0);
	free(path);
	path = tu_path(folder, "fifo.json");
	assert_int_equal(mkfifo(path, 0644), 0);
	free(path);
	path = tu_path(folder, "dir.json");
	assert_int_equal(mkdir(path, 0755), 0);
	free(path);
	path = tu_path(folder, "notes.txt");
	tu_write_file(path, "x", 1);
	free(path);

	assert_int_equal(ac_checkpoint_store_list(&list, f->store, &all), 0);
	assert_int_equal(json_array_size(list), 1);
	assert_string_equal(ac_checkpoint_id(json_array_get(list, 0)), "good");
	assert_int_equal(f->problems, 7);
	json_decref(list);
	free(folder);
}

static void test_file_corrupt_get_names_file(void **state)
{
	fixture *f = *state;
	char *folder = tu_path(f->ckpts, "s1"), *path;
	json_t *got = NULL;

	save(f, ckpt("s1", "c1", 1, "n", "2025-01-01T00:00:00.000Z", 1));
	path = tu_path(folder, "c1.json");
	tu_write_file(path, "{\"checkpointId\":", 16);
	assert_int_equal(ac_checkpoint_store_get(&got, f->store, "s1", "c1"), AC_ECORRUPT);
	assert_non_null(strstr(ac_error_last(), path));
	free(path);
	free(folder);
}

/* ---- creating from a session ------------------------------------------- */

static const char session_text[] =
	"{\"id\":\"s1\",\"createdAt\":\"2025-01-01T00:00:00.000Z\","
	"\"updatedAt\":\"2025-01-01T00:00:00.000Z\",\"task\":\"t\",\"status\":\"running\","
	"\"conversationHistory\":["
	"{\"role\":\"user\",\"content\":\"make users\"},"
	"{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}"
	"%s],\"metadata\":{\"agentId\":\"claude\"},\"x-extra\":true}";

/* Writes session s1 with the two base messages plus more (a JSON fragment
 * starting with a comma, or ""); returns the file's path. */
static char *write_session(fixture *f, const char *more)
{
	char *text = NULL, *path = tu_path(f->sessions, "s1.json");

	assert_true(asprintf(&text, session_text, more) > 0);
	tu_write_file(path, text, strlen(text));
	free(text);
	return path;
}

static void test_create_from_session(void **state)
{
	fixture *f = *state;
	json_t *first = NULL, *second = NULL, *tomb = NULL;
	char *path = write_session(f, "");
	const char *id;

	assert_int_equal(ac_checkpoint_create(&first, f->store, f->sessions, "s1", NULL), 0);
	id = ac_checkpoint_id(first);
	assert_int_equal(strlen(id), 36);
	assert_int_equal(id[14], '4');
	assert_non_null(strchr("89ab", id[19]));
	assert_int_equal(ac_checkpoint_version(first), 1);
	assert_string_equal(ac_checkpoint_node(first), "manual");
	assert_string_equal(ac_checkpoint_session(first), "s1");
	assert_string_equal(json_string_value(json_object_get(first, "agentId")), "claude");
	assert_true(json_is_null(json_object_get(first, "parentId")));
	assert_string_equal(json_string_value(json_object_get(first, "lastInput")), "make users");
	assert_string_equal(json_string_value(json_object_get(first, "lastOutput")), "ok");
	assert_true(json_is_object(json_object_get(first, "properties")));
	assert_int_equal(json_array_size(ac_checkpoint_history(first)), 2);

	assert_int_equal(ac_checkpoint_create(&second, f->store, f->sessions, "s1", "plan"), 0);
	assert_int_equal(ac_checkpoint_version(second), 2);
	assert_string_equal(ac_checkpoint_node(second), "plan");
	assert_string_equal(json_string_value(json_object_get(second, "parentId")), id);
	/* A tombstone counts for versions but is never the parent. */
	assert_int_equal(ac_checkpoint_create(&tomb, f->store, f->sessions, "s1",
					      AC_CHECKPOINT_TOMBSTONE), 0);
	json_decref(second);
	assert_int_equal(ac_checkpoint_create(&second, f->store, f->sessions, "s1", NULL), 0);
	assert_int_equal(ac_checkpoint_version(second), 4);
	assert_string_not_equal(json_string_value(json_object_get(second, "parentId")),
				ac_checkpoint_id(tomb));

	assert_int_equal(ac_checkpoint_create(NULL, f->store, f->sessions, "nope", NULL), AC_ENOTFOUND);
	assert_non_null(strstr(ac_error_last(), "nope"));
	assert_int_equal(ac_checkpoint_create(NULL, f->store, f->sessions, "../s1", NULL), AC_EINVAL);
	json_decref(first);
	json_decref(second);
	json_decref(tomb);
	free(path);
}

/* basic's checkpoints, written as the checkpoint seed's fields by
 * tests/fixtures/make-fixtures.js: the file store reads them in version
 * order, skips the tombstone for "latest", and a new checkpoint continues
 * their versions and parent chain. */
#define PARSER "5e551000-0000-4000-8000-000000000001"
#define DOCS "5e551000-0000-4000-8000-000000000002"

static void test_file_reads_the_fixture_checkpoints(void **state)
{
	(void)state;
	char *ws = tu_copy_fixture("basic"), *dir = tu_path(ws, ".agent/checkpoints");
	char *sessions = tu_path(ws, ".agent/sessions");
	ac_checkpoint_filter parser = {.session_id = PARSER, .include_tombstones = true}, docs_live = {.session_id = DOCS, .include_tombstones = false}, docs = {.session_id = DOCS, .include_tombstones = true};
	ac_checkpoint_store *store;
	json_t *list, *latest, *session, *made;
	char *path = tu_path(sessions, PARSER ".json");
	int64_t next;

	assert_int_equal(ac_checkpoint_store_file_new(&store, dir), 0);
	assert_int_equal(ac_checkpoint_store_list(&list, store, &parser), 0);
	assert_versions(list, (const int[]){1, 2}, 2);
	assert_string_equal(ac_checkpoint_node(json_array_get(list, 0)), "plan");
	assert_string_equal(ac_checkpoint_id(json_array_get(list, 1)),
			    "c4ec0000-0000-4000-8000-000000000002");
	assert_string_equal(json_string_value(json_object_get(json_array_get(list, 1), "parentId")),
			    "c4ec0000-0000-4000-8000-000000000001");
	/* Each checkpoint's history is a prefix of the session's. */
	session = json_load_file(path, 0, NULL);
	assert_non_null(session);
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(ac_checkpoint_prefix_check(ac_checkpoint_history(json_array_get(list, i)),
							    json_object_get(session, "conversationHistory")), 0);
	json_decref(session);
	json_decref(list);

	/* The finished session: a tombstone is listed but is never "latest". */
	assert_int_equal(ac_checkpoint_store_list(&list, store, &docs), 0);
	assert_versions(list, (const int[]){1, 2}, 2);
	assert_true(ac_checkpoint_is_tombstone(json_array_get(list, 1)));
	json_decref(list);
	assert_int_equal(ac_checkpoint_store_list(&list, store, &docs_live), 0);
	assert_versions(list, (const int[]){1}, 1);
	json_decref(list);
	assert_int_equal(ac_checkpoint_store_latest(&latest, store, DOCS), 0);
	assert_string_equal(ac_checkpoint_node(latest), "translate");
	json_decref(latest);
	assert_int_equal(ac_checkpoint_store_next_version(&next, store, DOCS), 0);
	assert_int_equal(next, 3);

	/* agentctl's checkpoint follows the seed-written ones. */
	assert_int_equal(ac_checkpoint_create(&made, store, sessions, PARSER, NULL), 0);
	assert_int_equal(ac_checkpoint_version(made), 3);
	assert_string_equal(json_string_value(json_object_get(made, "parentId")),
			    "c4ec0000-0000-4000-8000-000000000002");
	assert_string_equal(json_string_value(json_object_get(made, "agentId")), "claude");
	assert_int_equal(json_array_size(ac_checkpoint_history(made)), 8);
	json_decref(made);
	ac_checkpoint_store_free(store);
	free(path);
	free(sessions);
	free(dir);
	tu_remove_tree(ws);
	free(ws);
}

/* A checkpoint of a session document the caller read (a database
 * store's): no session file is needed or touched. */
static void test_create_from_document(void **state)
{
	fixture *f = *state;
	json_t *root = json_loads("{\"id\":\"d1\",\"conversationHistory\":["
				  "{\"role\":\"user\",\"content\":\"make users\"},"
				  "{\"role\":\"assistant\",\"content\":\"ok\"}],"
				  "\"metadata\":{\"agentId\":\"claude\"}}", 0, NULL);
	json_t *doc = NULL;
	char *path = NULL;

	assert_int_equal(ac_checkpoint_create_from(&doc, f->store, "d1", root, NULL), 0);
	assert_true(json_equal(json_object_get(doc, "messageHistory"),
			       json_object_get(root, "conversationHistory")));
	assert_string_equal(json_string_value(json_object_get(doc, "agentId")), "claude");
	assert_string_equal(json_string_value(json_object_get(doc, "lastInput")), "make users");
	assert_int_equal(ac_checkpoint_version(doc), 1);
	json_decref(doc);
	assert_int_equal(ac_session_path(&path, f->sessions, "d1"), 0);
	assert_int_equal(access(path, F_OK), -1);
	/* A document without a history array is refused, nothing saved. */
	json_object_set_new(root, "conversationHistory", json_string("x"));
	assert_int_equal(ac_checkpoint_create_from(NULL, f->store, "d1", root, NULL), AC_ECORRUPT);
	assert_int_equal(ac_checkpoint_store_latest(&doc, f->store, "d1"), 0);
	assert_int_equal(ac_checkpoint_version(doc), 1);
	json_decref(doc);
	json_decref(root);
	free(path);
}

static void test_create_with_options(void **state)
{
	fixture *f = *state;
	json_t *input = json_loads("{\"q\":[1,2]}", 0, NULL), *doc = NULL, *list = NULL;
	ac_checkpoint_create_options opts = {.version = AC_CHECKPOINT_CREATE_OPTIONS_VERSION,
					     .node = "plan", .checkpoint_id = "run-1",
					     .last_input = input, .last_input_type = "json"};
	ac_checkpoint_filter all = {.session_id = "s1", .include_tombstones = true};
	char *path = write_session(f, "");

	assert_int_equal(ac_checkpoint_create_with(&doc, f->store, f->sessions, "s1", &opts), 0);
	assert_string_equal(ac_checkpoint_id(doc), "run-1");
	assert_string_equal(ac_checkpoint_node(doc), "plan");
	assert_true(json_equal(json_object_get(doc, "lastInput"), input));
	assert_string_equal(json_string_value(json_object_get(doc, "lastInputType")), "json");
	assert_string_equal(json_string_value(json_object_get(doc, "lastOutput")), "ok");
	json_decref(doc);
	doc = NULL;
	/* An id the session's checkpoints hold is refused, never replaced. */
	assert_int_equal(ac_checkpoint_create_with(NULL, f->store, f->sessions, "s1", &opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "'run-1' of session 's1' exists already"));
	assert_int_equal(ac_checkpoint_store_list(&list, f->store, &all), 0);
	assert_int_equal(json_array_size(list), 1);
	json_decref(list);
	/* Checked before anything is read: a bad id or an empty type. */
	opts.checkpoint_id = "../x";
	assert_int_equal(ac_checkpoint_create_with(NULL, f->store, f->sessions, "s1", &opts), AC_EINVAL);
	opts.checkpoint_id = NULL;
	opts.last_input_type = "";
	assert_int_equal(ac_checkpoint_create_with(NULL, f->store, f->sessions, "s1", &opts), AC_EINVAL);
	/* NULL options are ac_checkpoint_create()'s defaults. */
	assert_int_equal(ac_checkpoint_create_with(&doc, f->store, f->sessions, "s1", NULL), 0);
	assert_string_equal(ac_checkpoint_node(doc), "manual");
	assert_int_equal(ac_checkpoint_version(doc), 2);
	assert_string_equal(json_string_value(json_object_get(doc, "parentId")), "run-1");
	assert_string_equal(json_string_value(json_object_get(doc, "lastInputType")), "text");
	assert_string_equal(json_string_value(json_object_get(doc, "lastInput")), "make users");
	json_decref(doc);
	json_decref(input);
	free(path);
}

/* ---- rolling back ------------------------------------------------------ */

static void test_prefix_refusals(void **state)
{
	fixture *f = *state;
	ac_checkpoint_plan plan;
	json_t *doc = NULL;
	char *path = write_session(f, ",{\"role\":\"user\",\"content\":\"more\"}");
	char *before;

	assert_int_equal(ac_checkpoint_create(&doc, f->store, f->sessions, "s1", NULL), 0);
	/* Diverged: message 1 changed since the checkpoint. */
	free(path);
	path = tu_path(f->sessions, "s1.json");
	before = tu_read_file(path, NULL);
	{
		char *changed = strstr(before, "\"ok\"");

		memcpy(changed, "\"OK\"", 4);
		tu_write_file(path, before, strlen(before));
	}
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1",
						     ac_checkpoint_id(doc), NULL), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "index 1 differs"));
	ac_checkpoint_plan_free(&plan);
	/* Longer: the session lost messages the checkpoint has. */
	free(write_session(f, ""));
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", NULL, NULL),
			 AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "holds 3 messages but the session only 2"));
	ac_checkpoint_plan_free(&plan);
	/* Unknown checkpoint, bad ids. */
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", "nope", NULL),
			 AC_ENOTFOUND);
	ac_checkpoint_plan_free(&plan);
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", "../x", NULL),
			 AC_EINVAL);
	ac_checkpoint_plan_free(&plan);
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "../s1", NULL, NULL),
			 AC_EINVAL);
	ac_checkpoint_plan_free(&plan);
	json_decref(doc);
	free(before);
	free(path);
}

/* Issue 26 item 6: "the latest" of a finished run is its tombstone, and
 * Koog's rollbackToLatestCheckpoint restores nothing then; so does the
 * plan, saying so, while the checkpoint before it stays reachable by id. */
static void test_latest_refused_when_newest_is_a_tombstone(void **state)
{
	fixture *f = *state;
	ac_checkpoint_plan plan;
	char *path = write_session(f, "");
	json_t *live = NULL, *again = NULL;

	assert_int_equal(ac_checkpoint_create(&live, f->store, f->sessions, "s1", NULL), 0);
	save(f, ckpt("s1", "end", 2, AC_CHECKPOINT_TOMBSTONE, "2025-01-01T00:00:01.000Z", 0));
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", NULL, NULL),
			 AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "newest checkpoint 'end' (version 2) is a tombstone"));
	assert_non_null(strstr(ac_error_last(), "nothing was changed"));
	assert_null(plan.checkpoint);
	ac_checkpoint_plan_free(&plan);
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1",
						     ac_checkpoint_id(live), NULL), 0);
	assert_string_equal(ac_checkpoint_id(plan.checkpoint), ac_checkpoint_id(live));
	ac_checkpoint_plan_free(&plan);
	/* A live checkpoint after the tombstone (a new run): it is the latest. */
	assert_int_equal(ac_checkpoint_create(&again, f->store, f->sessions, "s1", NULL), 0);
	assert_int_equal(ac_checkpoint_version(again), 3);
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", NULL, NULL), 0);
	assert_string_equal(ac_checkpoint_id(plan.checkpoint), ac_checkpoint_id(again));
	ac_checkpoint_plan_free(&plan);
	json_decref(live);
	json_decref(again);
	free(path);
}

/* Issue 26 item 2: seed 002's checkpoint (Koog's AgentCheckpointData) has
 * no sessionId: the folder names the session. Koog's own layout (no
 * .json) is named as not read, once per listing. */
static void test_file_seed_checkpoint_without_session_id(void **state)
{
	fixture *f = *state;
	static const char seed[] =
		"{\"checkpointId\":\"a1\",\"createdAt\":\"2025-01-01T00:00:00.000Z\","
		"\"nodeId\":\"plan\",\"lastInput\":\"make users\",\"lastInputType\":\"kotlin.String\","
		"\"messageHistory\":[{\"role\":\"user\",\"content\":\"make users\"}],\"version\":1}";
	static const char tomb[] =
		"{\"checkpointId\":\"t2\",\"createdAt\":\"2025-01-01T00:00:01.000Z\","
		"\"nodeId\":\"tombstone\",\"lastInput\":null,\"messageHistory\":[],\"version\":2,"
		"\"properties\":{\"tombstone\":true}}";
	char *folder = tu_path(f->ckpts, "s1"), *a = tu_path(folder, "a1.json");
	char *t = tu_path(folder, "t2.json"), *koog = tu_path(folder, "k3");
	char *temp = tu_path(folder, "a1.json.tmp");
	ac_checkpoint_filter all = {.session_id = "s1", .include_tombstones = true};
	ac_checkpoint_header_list headers = {0};
	json_t *list = NULL, *doc = NULL;

	assert_int_equal(ac_file_mkdirs(folder), 0);
	tu_write_file(a, seed, strlen(seed));
	tu_write_file(t, tomb, strlen(tomb));
	tu_write_file(koog, seed, strlen(seed));
	tu_write_file(temp, seed, strlen(seed));
	assert_int_equal(ac_checkpoint_store_list(&list, f->store, &all), 0);
	assert_versions(list, (const int[]){1, 2}, 2);
	assert_string_equal(ac_checkpoint_session(json_array_get(list, 0)), "s1");
	assert_true(ac_checkpoint_is_tombstone(json_array_get(list, 1)));
	/* Koog's file is named (and why), the writer's temp file is not. */
	assert_int_equal(f->problems, 1);
	assert_non_null(strstr(f->last_problem, "s1/k3: not read"));
	assert_non_null(strstr(f->last_problem, "Koog"));
	json_decref(list);
	assert_int_equal(ac_checkpoint_store_list_headers(&headers, f->store, &all), 0);
	assert_int_equal(headers.count, 2);
	assert_string_equal(headers.items[0].checkpoint_id, "a1");
	assert_int_equal(headers.items[0].messages, 1);
	assert_true(headers.items[1].tombstone);
	ac_checkpoint_header_list_free(&headers);
	assert_int_equal(ac_checkpoint_store_get(&doc, f->store, "s1", "a1"), 0);
	assert_string_equal(ac_checkpoint_session(doc), "s1");
	json_decref(doc);
	free(temp);
	free(koog);
	free(t);
	free(a);
	free(folder);
}

/* After the checkpoint: Daniel (t1), then Maria (t2) and a mail (t3, no
 * compensation) in one message, then Zoe as an OpenAI call (c4). */
static const char tool_messages[] =
	",{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"createUser\","
	"\"input\":{\"name\":\"Daniel\"}}]}"
	",{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"ok\"}]}"
	",{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"createUser\","
	"\"input\":{\"name\":\"Maria\",\"tags\":[1,2]}},{\"type\":\"tool_use\",\"id\":\"t3\",\"name\":\"sendMail\","
	"\"input\":{\"to\":\"x\"}}]}"
	",{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c4\",\"type\":\"function\","
	"\"function\":{\"name\":\"createUser\",\"arguments\":\"{\\\"name\\\":\\\"Zoe\\\"}\"}}]}";

static json_t *tools_config(const char *log, const char *fail_tool)
{
	char *script = NULL;
	json_t *tools;

	assert_true(asprintf(&script, "cat >> '%s'; echo >> '%s'", log, log) > 0);
	tools = json_pack("{s:[s,s,s]}", "createUser", "/bin/sh", "-c", script);
	if (fail_tool)
		json_object_set_new(tools, fail_tool,
				    json_pack("[s,s,s]", "/bin/sh", "-c", "echo nope >&2; exit 3"));
	free(script);
	return tools;
}

static void test_rollback_runs_compensations_newest_first(void **state)
{
	fixture *f = *state;
	ac_checkpoint_plan plan;
	json_t *doc = NULL, *tools;
	char *path = write_session(f, ""), *log = tu_path(f->dir, "LOG"), *text;
	ac_session *session = NULL;
	ac_checkpoint_rollback_result result;
	ac_checkpoint_rollback_options opts = {.version = AC_CHECKPOINT_ROLLBACK_OPTIONS_VERSION,
					       .timeout_ms = 10000};
	json_t *removed, *archive, *record;

	assert_int_equal(ac_checkpoint_create(&doc, f->store, f->sessions, "s1", NULL), 0);
	free(write_session(f, tool_messages));
	tools = tools_config(log, NULL);
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", NULL, tools), 0);
	assert_int_equal(plan.keep, 2);
	assert_int_equal(plan.remove, 4);
	assert_int_equal(plan.n_calls, 4);
	assert_int_equal(plan.n_unconfigured, 1);
	assert_string_equal(plan.calls[0].call_id, "c4");
	assert_string_equal(plan.calls[1].call_id, "t3");
	assert_null(plan.calls[1].argv); /* sendMail: no compensation configured */
	assert_string_equal(plan.calls[1].tool, "sendMail");
	assert_string_equal(plan.calls[2].call_id, "t2");
	assert_string_equal(plan.calls[3].call_id, "t1");
	removed = json_array();
	for (size_t i = plan.keep; i < json_array_size(plan.history); i++)
		json_array_append(removed, json_array_get(plan.history, i));
	/* Options of another version, or a write of another: refused naming
	 * the struct before any compensation runs. */
	{
		ac_checkpoint_rollback_options old = {.timeout_ms = 10000};
		ac_session_write_options write = {.quiet_ms = 0};

		assert_int_equal(ac_checkpoint_rollback(&result, &plan, f->sessions, f->dir, &old),
				 AC_EINVAL);
		assert_non_null(strstr(ac_error_last(), "ac_checkpoint_rollback_options version 0"));
		assert_non_null(strstr(ac_error_last(), "AC_CHECKPOINT_ROLLBACK_OPTIONS_INIT"));
		ac_checkpoint_rollback_result_free(&result);
		old = (ac_checkpoint_rollback_options)AC_CHECKPOINT_ROLLBACK_OPTIONS_INIT;
		old.write = &write;
		assert_int_equal(ac_checkpoint_rollback(&result, &plan, f->sessions, f->dir, &old),
				 AC_EINVAL);
		assert_non_null(strstr(ac_error_last(), "ac_session_write_options version 0"));
		ac_checkpoint_rollback_result_free(&result);
		assert_false(tu_exists(f->dir, "LOG"));
	}
	assert_int_equal(ac_checkpoint_rollback(&result, &plan, f->sessions, f->dir, &opts), 0);
	assert_int_equal(result.ran, 3);
	text = tu_read_file(log, NULL);
	assert_string_equal(text, "{\"name\":\"Zoe\"}\n{\"name\":\"Maria\",\"tags\":[1,2]}\n"
				  "{\"name\":\"Daniel\"}\n");
	free(text);
	assert_int_equal(ac_session_load(&session, f->sessions, "s1"), 0);
	assert_true(json_equal(ac_session_messages(session), ac_checkpoint_history(doc)));
	assert_true(json_is_true(json_object_get(ac_session_root(session), "x-extra")));
	/* What was removed is archived and named in metadata (issue 10 item 5). */
	assert_non_null(result.archive_path);
	archive = json_load_file(result.archive_path, 0, NULL);
	assert_non_null(archive);
	assert_true(json_equal(json_object_get(archive, "messages"), removed));
	assert_string_equal(json_string_value(json_object_get(archive, "checkpointId")),
			    ac_checkpoint_id(doc));
	record = json_array_get(json_object_get(json_object_get(ac_session_root(session), "metadata"),
						"rollbacks"), 0);
	assert_int_equal(json_integer_value(json_object_get(record, "removedMessages")), 4);
	assert_non_null(strstr(result.archive_path, json_string_value(json_object_get(record, "archive"))));
	assert_false(tu_exists(f->sessions, ".rollbacks/s1/compensated.json"));
	json_decref(archive);
	json_decref(removed);
	ac_checkpoint_rollback_result_free(&result);
	ac_session_free(session);
	ac_checkpoint_plan_free(&plan);
	json_decref(tools);
	json_decref(doc);
	free(log);
	free(path);
}

/* Issue 26 item 5: a checkpoint older than the last compaction is rolled
 * back to as Koog does (its history restored), rebuilt from the
 * compaction's archive; the compensations of the tool calls made before
 * the compaction are skipped (counted, named in the plan), those after it
 * run, and the compaction is marked so it is never unfolded again. */
static void test_rollback_behind_a_compaction(void **state)
{
	fixture *f = *state;
	static const char after[] =
		"[{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t9\","
		"\"name\":\"createUser\",\"input\":{\"name\":\"Zed\"}}]},"
		"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t9\","
		"\"content\":\"ok\"}]}]";
	char *path = write_session(f, ""), *log = tu_path(f->dir, "LOG"), *text;
	json_t *doc = NULL, *tools = tools_config(log, NULL), *more, *root, *archive;
	ac_checkpoint_rollback_options opts = {.version = AC_CHECKPOINT_ROLLBACK_OPTIONS_VERSION,
					       .timeout_ms = 10000};
	ac_checkpoint_rollback_result result;
	ac_compact_options copts;
	ac_compact_result compacted;
	ac_checkpoint_plan plan;
	ac_session *session = NULL;

	assert_int_equal(ac_checkpoint_create(&doc, f->store, f->sessions, "s1", NULL), 0);
	free(write_session(f, tool_messages));
	ac_compact_options_init(&copts);
	copts.force = true;
	copts.fraction = 1.0;
	assert_int_equal(ac_compact_session(&compacted, f->sessions, "s1", &copts), 0);
	assert_int_equal(compacted.summarized, 6);
	ac_compact_result_free(&compacted);
	more = json_loads(after, 0, NULL);
	assert_int_equal(ac_session_append_messages(NULL, f->sessions, "s1", more), 0);
	json_decref(more);

	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1",
						     ac_checkpoint_id(doc), tools), 0);
	assert_non_null(plan.unfolded);
	assert_int_equal(plan.compactions, 1);
	assert_int_equal(json_array_size(plan.unfolded), 8);
	assert_int_equal(plan.keep, 2);
	assert_int_equal(plan.remove, 6);
	assert_int_equal(plan.n_before_compaction, 4); /* t1, t2, t3, c4 */
	assert_int_equal(plan.n_calls, 1);
	assert_string_equal(plan.calls[0].call_id, "t9");
	assert_int_equal(ac_checkpoint_rollback(&result, &plan, f->sessions, f->dir, &opts), 0);
	assert_int_equal(result.ran, 1);
	text = tu_read_file(log, NULL);
	assert_string_equal(text, "{\"name\":\"Zed\"}\n");
	free(text);
	assert_int_equal(ac_session_load(&session, f->sessions, "s1"), 0);
	root = ac_session_root(session);
	assert_true(json_equal(ac_session_messages(session), ac_checkpoint_history(doc)));
	assert_non_null(json_object_get(json_array_get(json_object_get(json_object_get(root, "metadata"),
								       "compactions"), 0),
					"undoneByRollback"));
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(json_object_get(json_object_get(root, "metadata"),
								"rollbacks"), 0),
				 "compactionsUndone")), 1);
	/* Nothing lost: the rollback's archive holds the 6 messages after the
	 * checkpoint, the compacted ones included. */
	archive = json_load_file(result.archive_path, 0, NULL);
	assert_int_equal(json_array_size(json_object_get(archive, "messages")), 6);
	json_decref(archive);
	ac_checkpoint_rollback_result_free(&result);
	ac_checkpoint_plan_free(&plan);
	/* Already there: nothing is unfolded again, nothing to do. */
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1",
						     ac_checkpoint_id(doc), tools), 0);
	assert_null(plan.unfolded);
	assert_int_equal(plan.remove, 0);
	ac_checkpoint_plan_free(&plan);
	ac_session_free(session);
	json_decref(tools);
	json_decref(doc);
	free(log);
	free(path);
}

/* An archive a session file's metadata.compactions names is read only
 * from that session's .compactions folder: a name leading elsewhere stops
 * the plan, named, and nothing is read. */
static void test_unfold_reads_only_the_sessions_archives(void **state)
{
	fixture *f = *state;
	static const char text[] =
		"{\"id\":\"s1\",\"createdAt\":\"2025-01-01T00:00:00.000Z\",\"updatedAt\":"
		"\"2025-01-01T00:00:00.000Z\",\"task\":\"t\",\"status\":\"running\","
		"\"conversationHistory\":[{\"role\":\"user\",\"content\":\"[Conversation summary]: x\"}],"
		"\"metadata\":{\"compactions\":[{\"messages\":1,\"archive\":"
		"\".compactions/s1/../../../secret.json\"}]}}";
	char *path = tu_path(f->sessions, "s1.json");
	ac_checkpoint_plan plan;

	tu_write_file(path, text, strlen(text));
	save(f, ckpt("s1", "c", 1, "n", "2025-01-01T00:00:00.000Z", 1));
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", "c", NULL),
			 AC_ECORRUPT);
	assert_non_null(strstr(ac_error_last(), "not one of this session's compaction archives"));
	ac_checkpoint_plan_free(&plan);
	free(path);
}

static void count_attempt(const ac_checkpoint_compensation *call, int rc, const char *message,
			  void *ctx)
{
	(void)call;
	(void)rc;
	(void)message;
	(*(int *)ctx)++;
}

static void test_failing_compensation_stops_and_keeps_session(void **state)
{
	fixture *f = *state;
	ac_checkpoint_plan plan;
	json_t *doc = NULL, *tools;
	char *path = write_session(f, ""), *log = tu_path(f->dir, "LOG"), *before, *after, *text;
	size_t before_len, after_len;
	int attempts = 0;
	ac_checkpoint_rollback_result result;
	ac_checkpoint_rollback_options opts = {.version = AC_CHECKPOINT_ROLLBACK_OPTIONS_VERSION,
					       .timeout_ms = 10000, .attempted = count_attempt,
					       .ctx = &attempts};

	assert_int_equal(ac_checkpoint_create(&doc, f->store, f->sessions, "s1", NULL), 0);
	free(write_session(f, tool_messages));
	before = tu_read_file(path, &before_len);
	/* c4 (createUser) runs, then t3 (sendMail) fails with status 3. */
	tools = tools_config(log, "sendMail");
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", NULL, tools), 0);
	assert_int_equal(plan.n_unconfigured, 0);
	assert_int_equal(ac_checkpoint_rollback(&result, &plan, f->sessions, f->dir, &opts), AC_EIO);
	assert_int_equal(result.ran, 1);
	assert_non_null(strstr(ac_error_last(), "sendMail"));
	assert_non_null(strstr(ac_error_last(), "t3"));
	assert_non_null(strstr(ac_error_last(), "status 3"));
	assert_int_equal(attempts, 2); /* the failed attempt is reported too */
	text = tu_read_file(log, NULL);
	assert_string_equal(text, "{\"name\":\"Zoe\"}\n");
	free(text);
	after = tu_read_file(path, &after_len);
	assert_int_equal(before_len, after_len);
	assert_memory_equal(before, after, before_len);
	ac_checkpoint_rollback_result_free(&result);
	ac_checkpoint_plan_free(&plan);
	/* Retried once sendMail has no failing compensation: c4 (createUser),
	 * which ran already, is not run again (issue 10 item 6). */
	json_decref(tools);
	tools = tools_config(log, NULL);
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", NULL, tools), 0);
	assert_int_equal(ac_checkpoint_rollback(&result, &plan, f->sessions, f->dir, &opts), 0);
	assert_int_equal(result.skipped, 1);
	assert_int_equal(result.ran, 2);
	text = tu_read_file(log, NULL);
	assert_string_equal(text, "{\"name\":\"Zoe\"}\n{\"name\":\"Maria\",\"tags\":[1,2]}\n"
				  "{\"name\":\"Daniel\"}\n");
	free(text);
	assert_false(tu_exists(f->sessions, ".rollbacks/s1/compensated.json"));
	ac_checkpoint_rollback_result_free(&result);
	ac_checkpoint_plan_free(&plan);
	json_decref(tools);
	json_decref(doc);
	free(before);
	free(after);
	free(log);
	free(path);
}

/* One rollback of a fresh tool_messages session with createUser copying
 * the compensation record it finds first into SEEN, then logging its input;
 * record (may be NULL): the compensated.json an interrupted attempt left. */
static int rollback_after_crash(fixture *f, ac_checkpoint_rollback_result *result,
				const char *record, ac_checkpoint_uncertain uncertain)
{
	ac_checkpoint_rollback_options opts = {.version = AC_CHECKPOINT_ROLLBACK_OPTIONS_VERSION,
					       .timeout_ms = 10000};
	ac_checkpoint_plan plan;
	char *log = tu_path(f->dir, "LOG"), *seen = tu_path(f->dir, "SEEN"), *script = NULL;
	char *record_path = tu_path(f->sessions, ".rollbacks/s1/compensated.json");
	json_t *doc = NULL, *tools;
	int rc;

	free(write_session(f, ""));
	assert_int_equal(ac_checkpoint_create(&doc, f->store, f->sessions, "s1", NULL), 0);
	free(write_session(f, tool_messages));
	if (record)
		tu_put(f->sessions, ".rollbacks/s1/compensated.json", record);
	assert_true(asprintf(&script, "[ -e '%s' ] || cp '%s' '%s'; cat >> '%s'; echo >> '%s'", seen,
			     record_path, seen, log, log) > 0);
	tools = json_pack("{s:[s,s,s]}", "createUser", "/bin/sh", "-c", script);
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", NULL, tools), 0);
	plan.uncertain = uncertain;
	rc = ac_checkpoint_rollback(result, &plan, f->sessions, f->dir, &opts);
	ac_checkpoint_plan_free(&plan);
	json_decref(tools);
	json_decref(doc);
	free(script);
	free(record_path);
	free(seen);
	free(log);
	return rc;
}

/* What was durable when the first compensation started. */
static const char *record_folders[3];
static bool durable_at_first_run[3];
static int compensations_started;

static int run_noting_durable(ac_proc_result *out, const char *const *argv,
			      const char *session_id, const char *cwd, const char *input,
			      size_t input_len, int timeout_ms)
{
	if (compensations_started++ == 0)
		for (int i = 0; i < 3; i++)
			durable_at_first_run[i] = tu_fsync_was_synced(record_folders[i]);
	return ac_proc_run_for_session(out, argv, session_id, cwd, input, input_len, timeout_ms);
}

/* A compensation runs only once its "started" record would survive a
 * power cut: the record's folder, created by the rollback, is named
 * durably in .rollbacks/, and .rollbacks/ in the sessions folder, before
 * anything runs. Otherwise the cut takes the record with its folder and
 * the retry runs the compensation again (found by the simulator: seed 2
 * of "checkpoint", docs/RELIABILITY.md "Simulation"). */
static void test_compensation_record_folder_durable_before_it_runs(void **state)
{
	fixture *f = *state;
	char *path = write_session(f, ""), *log = tu_path(f->dir, "LOG");
	char *rollbacks = tu_path(f->sessions, ".rollbacks");
	char *own = tu_path(rollbacks, "s1");
	ac_checkpoint_rollback_options opts = {.version = AC_CHECKPOINT_ROLLBACK_OPTIONS_VERSION,
					       .timeout_ms = 10000};
	ac_checkpoint_rollback_result result;
	ac_checkpoint_plan plan;
	json_t *tools;

	assert_int_equal(ac_checkpoint_create(NULL, f->store, f->sessions, "s1", NULL), 0);
	free(write_session(f, tool_messages));
	tools = tools_config(log, NULL);
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", NULL, tools), 0);
	record_folders[0] = own;            /* names compensated.json */
	record_folders[1] = rollbacks;      /* names s1/ */
	record_folders[2] = f->sessions;    /* names .rollbacks/ */
	compensations_started = 0;
	ac_checkpoint_compensation_run = run_noting_durable;
	tu_fsync_record();
	assert_int_equal(ac_checkpoint_rollback(&result, &plan, f->sessions, f->dir, &opts), 0);
	tu_fsync_restore();
	ac_checkpoint_compensation_run = ac_proc_run_for_session;
	assert_int_equal(compensations_started, 3);
	assert_true(durable_at_first_run[0]);
	assert_true(durable_at_first_run[1]);
	assert_true(durable_at_first_run[2]);
	ac_checkpoint_rollback_result_free(&result);
	ac_checkpoint_plan_free(&plan);
	json_decref(tools);
	free(own);
	free(rollbacks);
	free(log);
	free(path);
}

/* A session's first checkpoint creates the session's folder in the store:
 * its name is synced in the store's folder, and the store's in its parent,
 * or a power cut takes every checkpoint in it though each was reported
 * saved (found by the simulator: seed 1 of "checkpoint"). */
static void test_file_first_checkpoint_folder_is_durable(void **state)
{
	fixture *f = *state;

	tu_fsync_record();
	save(f, ckpt("s1", "a", 1, "n", "2025-01-01T00:00:00.000Z", 1));
	tu_fsync_restore();
	assert_true(tu_fsync_was_synced(f->ckpts)); /* names s1/ */
	assert_true(tu_fsync_was_synced(f->dir));   /* names checkpoints/ */
}

/* Issue 23 item 12: each compensation is recorded as started before it
 * runs; one an interrupted attempt started and never finished is not run
 * again unless the operator says so. */
static void test_uncertain_compensation_is_not_run_again(void **state)
{
	fixture *f = *state;
	/* c4 started by an attempt that was killed; t1 done by an older one. */
	static const char crashed[] =
		"{\"sessionId\": \"s1\", \"calls\": {"
		"\"c4\": {\"tool\": \"createUser\", \"command\": \"/bin/sh\", "
		"\"startedAt\": \"2026-01-01T00:00:00.000Z\"}, "
		"\"t1\": {\"tool\": \"createUser\", \"at\": \"2026-01-01T00:00:00.000Z\"}}}";
	ac_checkpoint_rollback_result result;
	char *log = tu_path(f->dir, "LOG"), *seen = tu_path(f->dir, "SEEN"), *text;
	json_t *record, *entry;

	/* The intent is on disk when the command runs: started, not done. */
	assert_int_equal(rollback_after_crash(f, &result, NULL, AC_CHECKPOINT_UNCERTAIN_STOP), 0);
	assert_int_equal(result.ran, 3);
	assert_int_equal(result.uncertain, 0);
	record = json_load_file(seen, 0, NULL);
	assert_non_null(record);
	entry = json_object_get(json_object_get(record, "calls"), "c4");
	assert_non_null(json_object_get(entry, "startedAt"));
	assert_null(json_object_get(entry, "at"));
	assert_string_equal(json_string_value(json_object_get(entry, "command")), "/bin/sh");
	json_decref(record);
	ac_checkpoint_rollback_result_free(&result);
	unlink(log);

	/* Stop: nothing runs, one line names session, checkpoint, tool, call. */
	assert_int_equal(rollback_after_crash(f, &result, crashed, AC_CHECKPOINT_UNCERTAIN_STOP),
			 AC_EIO);
	assert_int_equal(result.ran, 0);
	assert_int_equal(result.uncertain, 1);
	assert_non_null(strstr(ac_error_last(), "session 's1'"));
	assert_non_null(strstr(ac_error_last(), "tool 'createUser' call 'c4'"));
	assert_non_null(strstr(ac_error_last(), "command '/bin/sh'"));
	assert_null(strchr(ac_error_last(), '\n'));
	assert_false(tu_exists(f->dir, "LOG"));
	ac_checkpoint_rollback_result_free(&result);

	/* Skip: c4 and t1 are not run, t2 is. */
	assert_int_equal(rollback_after_crash(f, &result, crashed, AC_CHECKPOINT_UNCERTAIN_SKIP), 0);
	assert_int_equal(result.ran, 1);
	assert_int_equal(result.skipped, 2);
	assert_int_equal(result.uncertain, 1);
	text = tu_read_file(log, NULL);
	assert_string_equal(text, "{\"name\":\"Maria\",\"tags\":[1,2]}\n");
	free(text);
	ac_checkpoint_rollback_result_free(&result);
	unlink(log);

	/* Rerun: c4 runs again, then t2; t1 stays done. */
	assert_int_equal(rollback_after_crash(f, &result, crashed, AC_CHECKPOINT_UNCERTAIN_RERUN), 0);
	assert_int_equal(result.ran, 2);
	assert_int_equal(result.uncertain, 1);
	text = tu_read_file(log, NULL);
	assert_string_equal(text, "{\"name\":\"Zoe\"}\n{\"name\":\"Maria\",\"tags\":[1,2]}\n");
	free(text);
	assert_false(tu_exists(f->sessions, ".rollbacks/s1/compensated.json"));
	ac_checkpoint_rollback_result_free(&result);
	free(seen);
	free(log);
}

/* Rolls s1 back to checkpoint id with tools; returns the rollback's rc. */
static int rollback_to(fixture *f, ac_checkpoint_rollback_result *result, const char *id,
		       const json_t *tools)
{
	ac_checkpoint_rollback_options opts = {.version = AC_CHECKPOINT_ROLLBACK_OPTIONS_VERSION,
					       .timeout_ms = 10000};
	ac_checkpoint_plan plan;
	int rc;

	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", id, tools), 0);
	rc = ac_checkpoint_rollback(result, &plan, f->sessions, f->dir, &opts);
	ac_checkpoint_plan_free(&plan);
	return rc;
}

/* A rollback to an old checkpoint compensated c4, t2 and t1, then was
 * given up; the operator rolled back to a later checkpoint instead, which
 * keeps t1 in the session. That rollback must not forget that t1 was
 * compensated: a later rollback to the old checkpoint would run it again
 * (found by the simulator: seed 1 of "checkpoint", with an operator who
 * gives up a rollback now and then). */
static void test_given_up_rollback_compensations_not_run_again(void **state)
{
	fixture *f = *state;
	static const char given_up[] =
		"{\"sessionId\": \"s1\", \"calls\": {"
		"\"c4\": {\"tool\": \"createUser\", \"at\": \"2026-01-01T00:00:00.000Z\"}, "
		"\"t2\": {\"tool\": \"createUser\", \"at\": \"2026-01-01T00:00:00.000Z\"}, "
		"\"t1\": {\"tool\": \"createUser\", \"at\": \"2026-01-01T00:00:00.000Z\"}}}";
	/* Daniel's call (t1) and its result: the first two of tool_messages. */
	char *t1_turn = strndup(tool_messages, (size_t)(strstr(tool_messages + 1, ",{\"role\":\"assistant\"") -
							  tool_messages));
	char *log = tu_path(f->dir, "LOG"), *old_id, *later_id;
	ac_checkpoint_rollback_result result;
	json_t *old = NULL, *later = NULL, *tools = tools_config(log, NULL);

	free(write_session(f, ""));
	assert_int_equal(ac_checkpoint_create(&old, f->store, f->sessions, "s1", NULL), 0);
	free(write_session(f, t1_turn));
	assert_int_equal(ac_checkpoint_create(&later, f->store, f->sessions, "s1", NULL), 0);
	assert_int_equal(json_array_size(ac_checkpoint_history(later)), 4);
	free(write_session(f, tool_messages));
	tu_put(f->sessions, ".rollbacks/s1/compensated.json", given_up);
	old_id = strdup(ac_checkpoint_id(old));
	later_id = strdup(ac_checkpoint_id(later));

	/* To the later checkpoint: c4 and t2 ran already; t1 stays recorded. */
	assert_int_equal(rollback_to(f, &result, later_id, tools), 0);
	assert_int_equal(result.ran, 0);
	assert_int_equal(result.skipped, 2);
	assert_true(tu_exists(f->sessions, ".rollbacks/s1/compensated.json"));
	ac_checkpoint_rollback_result_free(&result);

	/* Then to the old one: t1 is not compensated a second time. */
	assert_int_equal(rollback_to(f, &result, old_id, tools), 0);
	assert_int_equal(result.ran, 0);
	assert_int_equal(result.skipped, 1);
	assert_false(tu_exists(f->dir, "LOG"));
	assert_false(tu_exists(f->sessions, ".rollbacks/s1/compensated.json"));
	ac_checkpoint_rollback_result_free(&result);
	json_decref(old);
	json_decref(later);
	json_decref(tools);
	free(old_id);
	free(later_id);
	free(t1_turn);
	free(log);
}

static void test_rollback_refuses_session_changed_since_plan(void **state)
{
	fixture *f = *state;
	ac_checkpoint_plan plan;
	json_t *doc = NULL, *tools;
	char *path = write_session(f, ""), *log = tu_path(f->dir, "LOG"), *before, *after;
	size_t before_len, after_len;
	ac_checkpoint_rollback_result result;
	ac_checkpoint_rollback_options opts = {.version = AC_CHECKPOINT_ROLLBACK_OPTIONS_VERSION,
					       .timeout_ms = 10000};

	assert_int_equal(ac_checkpoint_create(&doc, f->store, f->sessions, "s1", NULL), 0);
	free(write_session(f, tool_messages));
	tools = tools_config(log, NULL);
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", NULL, tools), 0);
	/* Another writer appends a message between the plan and the cut. */
	free(write_session(f, ",{\"role\":\"user\",\"content\":\"late\"}"));
	before = tu_read_file(path, &before_len);
	assert_int_equal(ac_checkpoint_rollback(&result, &plan, f->sessions, f->dir, &opts), AC_ECONFLICT);
	assert_null(result.archive_path); /* nothing was ever published: no archive kept */
	ac_checkpoint_rollback_result_free(&result);
	assert_non_null(strstr(ac_error_last(), "changed during the rollback"));
	after = tu_read_file(path, &after_len);
	assert_int_equal(before_len, after_len);
	assert_memory_equal(before, after, before_len);
	ac_checkpoint_plan_free(&plan);
	json_decref(tools);
	json_decref(doc);
	free(before);
	free(after);
	free(log);
	free(path);
}

static void test_plan_validates_config_and_arguments(void **state)
{
	fixture *f = *state;
	ac_checkpoint_plan plan;
	json_t *doc = NULL, *tools;
	char *path = write_session(f, "");

	assert_int_equal(ac_checkpoint_create(&doc, f->store, f->sessions, "s1", NULL), 0);
	free(write_session(f, tool_messages));
	tools = json_pack("{s:s}", "createUser", "rm -rf /");
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", NULL, tools),
			 AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "rollbackTools.createUser"));
	ac_checkpoint_plan_free(&plan);
	json_decref(tools);
	/* OpenAI arguments that are not JSON. */
	free(write_session(f, ",{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c9\",\"function\":"
			      "{\"name\":\"createUser\",\"arguments\":\"{oops\"}}]}"));
	tools = json_pack("{s:[s]}", "createUser", "/bin/true");
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", NULL, tools),
			 AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "c9"));
	ac_checkpoint_plan_free(&plan);
	json_decref(tools);
	json_decref(doc);
	free(path);
}

/* ---- headers: the listing that keeps no documents --------------------- */

static void collect_problem(const char *path, const char *reason, void *ctx)
{
	assert_non_null(strstr(reason, path));
	json_array_append_new(ctx, json_string(reason));
}

/* The headers of the session's checkpoints are the full load's, entry by
 * entry and in order, and the same files are reported with the same words. */
static void assert_headers_match_full_load(ac_checkpoint_store *store,
					   const ac_checkpoint_filter *filter, size_t expected)
{
	json_t *full_problems = json_array(), *header_problems = json_array(), *list = NULL, *doc;
	ac_checkpoint_header_list headers = {0};
	ac_checkpoint_header h;
	size_t i;

	ac_checkpoint_store_set_problem(store, collect_problem, full_problems);
	assert_int_equal(ac_checkpoint_store_list(&list, store, filter), 0);
	ac_checkpoint_store_set_problem(store, collect_problem, header_problems);
	assert_int_equal(ac_checkpoint_store_list_headers(&headers, store, filter), 0);
	assert_true(json_equal(full_problems, header_problems));
	assert_int_equal(json_array_size(list), expected);
	assert_int_equal(headers.count, expected);
	json_array_foreach (list, i, doc) {
		const ac_checkpoint_header *got = &headers.items[i];

		assert_int_equal(ac_checkpoint_header_get(&h, doc), 0);
		assert_string_equal(got->checkpoint_id, h.checkpoint_id);
		assert_string_equal(got->node_id, h.node_id);
		if (h.created_at)
			assert_string_equal(got->created_at, h.created_at);
		else
			assert_null(got->created_at);
		assert_int_equal(got->parent_id_len, h.parent_id_len);
		if (h.parent_id)
			assert_memory_equal(got->parent_id, h.parent_id, h.parent_id_len + 1);
		else
			assert_null(got->parent_id);
		assert_int_equal(got->version, h.version);
		assert_int_equal(got->messages, h.messages);
		assert_int_equal(got->tombstone, h.tombstone);
		ac_checkpoint_header_clear(&h);
	}
	json_decref(list);
	json_decref(full_problems);
	json_decref(header_problems);
	ac_checkpoint_header_list_free(&headers);
}

static void test_file_headers_match_the_fixture_checkpoints(void **state)
{
	(void)state;
	char *ws = tu_copy_fixture("basic"), *dir = tu_path(ws, ".agent/checkpoints");
	ac_checkpoint_filter parser = {.session_id = PARSER, .include_tombstones = true}, docs_live = {.session_id = DOCS, .include_tombstones = false}, docs = {.session_id = DOCS, .include_tombstones = true};
	ac_checkpoint_store *store;

	assert_int_equal(ac_checkpoint_store_file_new(&store, dir), 0);
	assert_headers_match_full_load(store, &parser, 2);
	assert_headers_match_full_load(store, &docs, 2);
	assert_headers_match_full_load(store, &docs_live, 1);
	ac_checkpoint_store_free(store);
	free(dir);
	tu_remove_tree(ws);
	free(ws);
}

static void test_contract_headers_match_full_load(void **state)
{
	fixture *f = *state;
	ac_checkpoint_filter all = {.session_id = "s1", .include_tombstones = true}, live = {.session_id = "s1", .include_tombstones = false};

	save(f, ckpt("s1", "b", 2, "n\t\u00e9", "2025-01-02T00:00:00.000Z", 3));
	/* Equal versions are ordered by id; PostgreSQL refuses a second
	 * checkpoint with a version (test_pg_versions_unique_per_session). */
	save(f, ckpt("s1", "a", is_pg(f) ? 1 : 2, "n", "2025-01-01T00:00:00.000Z", 0));
	save(f, ckpt("s1", "t", 3, AC_CHECKPOINT_TOMBSTONE, "2025-01-03T00:00:00.000Z", 1));
	save(f, ckpt("s2", "other", 1, "n", "2025-01-01T00:00:00.000Z", 1));
	assert_headers_match_full_load(f->store, &all, 3);
	assert_headers_match_full_load(f->store, &live, 2);
}

/* Hand-written files the header scan must take exactly as the full load
 * does: good ones with escapes, and every kind of corrupt one. */
static void test_file_headers_match_full_load_on_corrupt_files(void **state)
{
	fixture *f = *state;
	ac_checkpoint_filter all = {.session_id = "s1", .include_tombstones = true};
	char *folder, *path, deep[1200];
	size_t n = 0;
	static const char *const files[][2] = {
		/* taken */
		{"esc.json", "{\"checkpointId\":\"esc\",\"sessionId\":\"s1\",\"version\":7,"
			     "\"nodeId\":\"n\\u00e9\\\"q\\\\\",\"createdAt\":\"2025\\/01\","
			     "\"parentId\":\"p\\ud83d\\ude00\",\"messageHistory\":[1,[2,3],{}]}"},
		{"nul.json", "{\"checkpointId\":\"nul\",\"sessionId\":\"s1\",\"version\":8,"
			     "\"parentId\":\"a\\u0000b\",\"createdAt\":\"c\\u0000d\","
			     "\"messageHistory\":[]}"},
		{"dup.json", "{\"checkpointId\":\"x\",\"checkpointId\":\"dup\",\"sessionId\":\"s1\","
			     "\"version\":\"1\",\"version\":9,\"nodeId\":5,\"createdAt\":null,"
			     "\"parentId\":[],\"messageHistory\":[]}"},
		{"big.json", "{\"checkpointId\":\"big\",\"sessionId\":\"s1\",\"version\":0,"
			     "\"x\":123456789012345678901234567890,\"y\":-0,\"z\":0.1,"
			     "\"messageHistory\":[1e999]}"},
		{"tomb.json", "{\"checkpointId\":\"tomb\",\"sessionId\":\"s1\",\"version\":10,"
			      "\"nodeId\":\"tombstone\",\"messageHistory\":[{\"a\":{\"b\":[]}}]}"},
		/* reported and skipped */
		{"garbage.json", "{not json"},
		{"trailing.json", "{\"checkpointId\":\"trailing\",\"sessionId\":\"s1\",\"version\":1,"
				  "\"messageHistory\":[],}"},
		{"wrongid.json", "{\"checkpointId\":\"other\",\"sessionId\":\"s1\",\"version\":1,"
				 "\"messageHistory\":[]}"},
		{"otherses.json", "{\"checkpointId\":\"otherses\",\"sessionId\":\"s9\",\"version\":1,"
				  "\"messageHistory\":[]}"},
		{"noversion.json", "{\"checkpointId\":\"noversion\",\"sessionId\":\"s1\","
				   "\"messageHistory\":[]}"},
		{"realver.json", "{\"checkpointId\":\"realver\",\"sessionId\":\"s1\",\"version\":1.0,"
				 "\"messageHistory\":[]}"},
		{"expver.json", "{\"checkpointId\":\"expver\",\"sessionId\":\"s1\",\"version\":1e2,"
				"\"messageHistory\":[]}"},
		{"negver.json", "{\"checkpointId\":\"negver\",\"sessionId\":\"s1\",\"version\":-1,"
				"\"messageHistory\":[]}"},
		{"minus0.json", "{\"checkpointId\":\"minus0\",\"sessionId\":\"s1\",\"version\":-0,"
				"\"messageHistory\":[]}"},
		{"hugever.json", "{\"checkpointId\":\"hugever\",\"sessionId\":\"s1\","
				 "\"version\":9223372036854775808,\"messageHistory\":[]}"},
		{"strver.json", "{\"checkpointId\":\"strver\",\"sessionId\":\"s1\",\"version\":\"1\","
				"\"messageHistory\":[]}"},
		{"nohist.json", "{\"checkpointId\":\"nohist\",\"sessionId\":\"s1\",\"version\":1,"
				"\"messageHistory\":{}}"},
		{"array.json", "[{\"checkpointId\":\"array\",\"sessionId\":\"s1\",\"version\":1,"
			       "\"messageHistory\":[]}]"},
		{"nulkey.json", "{\"checkpointId\":\"nulkey\",\"sessionId\":\"s1\",\"version\":1,"
				"\"k\\u0000\":1,\"messageHistory\":[]}"},
		{"utf8.json", "{\"checkpointId\":\"utf8\",\"sessionId\":\"s1\",\"version\":1,"
			      "\"nodeId\":\"\xc3\x28\",\"messageHistory\":[]}"},
		{"surrogate.json", "{\"checkpointId\":\"surrogate\",\"sessionId\":\"s1\",\"version\":1,"
				   "\"nodeId\":\"\\ud800\",\"messageHistory\":[]}"},
		{"two.json", "{\"checkpointId\":\"two\",\"sessionId\":\"s1\",\"version\":1,"
			     "\"messageHistory\":[]} {}"},
		{"empty.json", ""},
		{"bad id.json", "{}"},
	};

	save(f, ckpt("s1", "good", 1, "n", "2025-01-01T00:00:00.000Z", 2));
	folder = tu_path(f->ckpts, "s1");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		path = tu_path(folder, files[i][0]);
		tu_write_file(path, files[i][1], strlen(files[i][1]));
		free(path);
	}
	/* Nesting the scanner refuses (over 256) and jansson reads: taken. */
	n += (size_t)snprintf(deep, sizeof(deep), "{\"checkpointId\":\"deep\",\"sessionId\":\"s1\","
				"\"version\":11,\"messageHistory\":[");
	for (size_t i = 0; i < 300; i++)
		deep[n++] = '[';
	for (size_t i = 0; i < 300; i++)
		deep[n++] = ']';
	deep[n++] = ']';
	deep[n++] = '}';
	path = tu_path(folder, "deep.json");
	tu_write_file(path, deep, n);
	free(path);
	path = tu_path(folder, "link.json");
	assert_int_equal(symlink("good.json", path), 0);
	free(path);
	path = tu_path(folder, "fifo.json");
	assert_int_equal(mkfifo(path, 0644), 0);
	free(path);
	path = tu_path(folder, "dir.json");
	assert_int_equal(mkdir(path, 0755), 0);
	free(path);
	/* surrogate.json is read as JSON.parse reads it (a lone "\ud800"). */
	assert_headers_match_full_load(f->store, &all, 8);
	free(folder);
}

/* ---- the runtime half (seed 002): filters, versions, execution point,
 * automatic persistence ---- */

static bool node_is(const ac_checkpoint_header *h, void *ctx)
{
	return !strcmp(h->node_id, (const char *)ctx);
}

static void test_filter_is_a_predicate(void **state)
{
	fixture *f = *state;
	char plan_node[] = "plan", review_node[] = "review";
	ac_checkpoint_filter plans = {.session_id = "s1", .include_tombstones = true,
				      .match = node_is, .match_ctx = plan_node};
	ac_checkpoint_header_list headers = {0};
	json_t *list = NULL, *latest = NULL;

	save(f, ckpt("s1", "a", 1, "plan", "2025-01-01T00:00:00Z", 1));
	save(f, ckpt("s1", "b", 2, "code", "2025-01-01T00:00:01Z", 2));
	save(f, ckpt("s1", "c", 3, "plan", "2025-01-01T00:00:02Z", 3));
	save(f, ckpt("s1", "d", 4, "code", "2025-01-01T00:00:03Z", 4));
	assert_int_equal(ac_checkpoint_store_list(&list, f->store, &plans), 0);
	assert_versions(list, (const int[]){1, 3}, 2);
	json_decref(list);
	assert_int_equal(ac_checkpoint_store_list_headers(&headers, f->store, &plans), 0);
	assert_int_equal(headers.count, 2);
	assert_int_equal(headers.items[1].version, 3);
	ac_checkpoint_header_list_free(&headers);
	/* getLatestCheckpoint(agentId, filter): the newest the filter keeps. */
	assert_int_equal(ac_checkpoint_store_latest_matching(&latest, f->store, &plans), 0);
	assert_string_equal(ac_checkpoint_id(latest), "c");
	json_decref(latest);
	plans.match_ctx = review_node;
	assert_int_equal(ac_checkpoint_store_latest_matching(&latest, f->store, &plans),
			 AC_ENOTFOUND);
}

static void test_create_with_callers_version(void **state)
{
	fixture *f = *state;
	ac_checkpoint_create_options opts = {.version = AC_CHECKPOINT_CREATE_OPTIONS_VERSION,
					     .set_version = true, .checkpoint_version = 0,
					     .checkpoint_id = "run-1"};
	json_t *doc = NULL;

	free(write_session(f, ""));
	/* Options of another version (the struct's, not the checkpoint's):
	 * refused naming the struct, nothing saved. */
	opts.version = 0;
	assert_int_equal(ac_checkpoint_create_with(&doc, f->store, f->sessions, "s1", &opts),
			 AC_EINVAL);
	assert_null(doc);
	assert_non_null(strstr(ac_error_last(), "ac_checkpoint_create_options version 0"));
	assert_non_null(strstr(ac_error_last(), "AC_CHECKPOINT_CREATE_OPTIONS_INIT"));
	assert_int_equal(ac_checkpoint_create_from(&doc, f->store, "s1", NULL, &opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_checkpoint_create_options version 0"));
	opts.version = AC_CHECKPOINT_CREATE_OPTIONS_VERSION;
	/* Koog's example: createCheckpoint(..., checkpointId = runId, version = 0L). */
	assert_int_equal(ac_checkpoint_create_with(&doc, f->store, f->sessions, "s1", &opts), 0);
	assert_int_equal(ac_checkpoint_version(doc), 0);
	json_decref(doc);
	opts.checkpoint_id = "run-2";
	assert_int_equal(ac_checkpoint_create_with(NULL, f->store, f->sessions, "s1", &opts),
			 AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "version 0 of session 's1' is taken by run-1"));
	opts.checkpoint_version = -1;
	assert_int_equal(ac_checkpoint_create_with(NULL, f->store, f->sessions, "s1", &opts),
			 AC_EINVAL);
	opts.checkpoint_version = 7;
	assert_int_equal(ac_checkpoint_create_with(&doc, f->store, f->sessions, "s1", &opts), 0);
	assert_int_equal(ac_checkpoint_version(doc), 7);
	json_decref(doc);
	/* Without a version: one past the highest. */
	assert_int_equal(ac_checkpoint_create_with(&doc, f->store, f->sessions, "s1", NULL), 0);
	assert_int_equal(ac_checkpoint_version(doc), 8);
	json_decref(doc);
}

static void test_set_execution_point(void **state)
{
	fixture *f = *state;
	json_t *history = json_pack("[{s:s, s:s}]", "role", "user", "content", "start over");
	json_t *input = json_pack("{s:s}", "goal", "tests");
	ac_session *s = NULL;
	json_t *point;

	free(write_session(f, ""));
	assert_int_equal(ac_checkpoint_set_execution_point(f->sessions, "s1", "plan", input,
							   "Goal", history), 0);
	assert_int_equal(ac_session_load(&s, f->sessions, "s1"), 0);
	assert_true(json_equal(ac_session_messages(s), history));
	point = json_object_get(json_object_get(ac_session_root(s), "metadata"), "executionPoint");
	assert_string_equal(json_string_value(json_object_get(point, "nodeId")), "plan");
	assert_true(json_equal(json_object_get(point, "lastInput"), input));
	assert_string_equal(json_string_value(json_object_get(point, "lastInputType")), "Goal");
	/* Keys other writers put there stay. */
	assert_true(json_is_true(json_object_get(ac_session_root(s), "x-extra")));
	ac_session_free(s);
	/* Without a history: only the point moves. */
	assert_int_equal(ac_checkpoint_set_execution_point(f->sessions, "s1", "code", NULL, NULL,
							   NULL), 0);
	assert_int_equal(ac_session_load(&s, f->sessions, "s1"), 0);
	assert_int_equal(json_array_size(ac_session_messages(s)), 1);
	ac_session_free(s);
	assert_int_equal(ac_checkpoint_set_execution_point(f->sessions, "s1", "", NULL, NULL, NULL),
			 AC_EINVAL);
	assert_int_equal(ac_checkpoint_set_execution_point(f->sessions, "s1", "x", NULL, NULL,
							   input), AC_EINVAL);
	json_decref(history);
	json_decref(input);
}

static void test_rollback_restores_the_execution_point(void **state)
{
	fixture *f = *state;
	ac_checkpoint_create_options opts = {.version = AC_CHECKPOINT_CREATE_OPTIONS_VERSION,
					     .node = "review"};
	ac_checkpoint_rollback_result result;
	ac_checkpoint_plan plan;
	json_t *input = json_string("check the diff"), *doc = NULL, *point;
	ac_session *s = NULL;

	free(write_session(f, ""));
	opts.last_input = input;
	opts.last_input_type = "String";
	assert_int_equal(ac_checkpoint_create_with(&doc, f->store, f->sessions, "s1", &opts), 0);
	free(write_session(f, ",{\"role\":\"user\",\"content\":\"later\"}"));
	assert_int_equal(ac_checkpoint_plan_rollback(&plan, f->store, f->sessions, "s1", NULL, NULL),
			 0);
	assert_int_equal(ac_checkpoint_rollback(&result, &plan, f->sessions, f->dir, NULL), 0);
	assert_int_equal(ac_session_load(&s, f->sessions, "s1"), 0);
	point = json_object_get(json_object_get(ac_session_root(s), "metadata"), "executionPoint");
	assert_string_equal(json_string_value(json_object_get(point, "nodeId")), "review");
	assert_string_equal(json_string_value(json_object_get(point, "lastInput")),
			    "check the diff");
	assert_string_equal(json_string_value(json_object_get(point, "lastInputType")), "String");
	assert_string_equal(json_string_value(json_object_get(point, "checkpointId")),
			    ac_checkpoint_id(doc));
	ac_session_free(s);
	ac_checkpoint_rollback_result_free(&result);
	ac_checkpoint_plan_free(&plan);
	json_decref(doc);
	json_decref(input);
}

static void test_automatic_persistence_per_session(void **state)
{
	fixture *f = *state;
	ac_checkpoint_filter all = {.session_id = "s1", .include_tombstones = true};
	json_t *list = NULL;
	char *id = NULL;

	free(write_session(f, ""));
	/* Not asked for: nothing. */
	assert_int_equal(ac_checkpoint_after_turn(&id, f->store, f->sessions, "s1"), 0);
	assert_null(id);
	assert_int_equal(ac_checkpoint_set_automatic(f->sessions, "s1", true), 0);
	assert_int_equal(ac_session_record_turn(NULL, f->sessions, "s1", NULL, 10, 5), 0);
	assert_int_equal(ac_checkpoint_after_turn(&id, f->store, f->sessions, "s1"), 0);
	assert_non_null(id);
	free(id);
	assert_int_equal(ac_checkpoint_store_list(&list, f->store, &all), 0);
	assert_int_equal(json_array_size(list), 1);
	assert_string_equal(ac_checkpoint_node(json_array_get(list, 0)), "turn-1");
	json_decref(list);
	assert_int_equal(ac_checkpoint_set_automatic(f->sessions, "s1", false), 0);
	assert_int_equal(ac_checkpoint_after_turn(&id, f->store, f->sessions, "s1"), 0);
	assert_null(id);
}

static void test_no_persistence_provider_saves_nothing_automatically(void **state)
{
	fixture *f = *state;
	char *id = NULL;

	free(write_session(f, ""));
	assert_true(ac_checkpoint_store_is_none(f->store));
	assert_int_equal(ac_checkpoint_set_automatic(f->sessions, "s1", true), 0);
	assert_int_equal(ac_checkpoint_after_turn(&id, f->store, f->sessions, "s1"), 0);
	assert_null(id);
}

#define CONTRACT(name)                                                            \
	cmocka_unit_test_setup_teardown(name, setup_memory, teardown),            \
		cmocka_unit_test_setup_teardown(name, setup_file, teardown)
#define CONTRACT_PG(name) cmocka_unit_test_setup_teardown(name, setup_pg, teardown_pg)

/* Two checkpoints of a session never share a version in PostgreSQL (a
 * constraint: two hosts creating at once cannot both take it); the other
 * session's same version is fine, and replacing by id keeps working. */
static void test_pg_versions_unique_per_session(void **state)
{
	fixture *f = *state;
	json_t *doc = ckpt("s1", "b", 1, "n", "2025-01-01T00:00:00.000Z", 1), *got = NULL;

	save(f, ckpt("s1", "a", 1, "n", "2025-01-01T00:00:00.000Z", 1));
	assert_int_equal(ac_checkpoint_store_save(f->store, doc), AC_ECONFLICT);
	assert_non_null(strstr(ac_error_last(), "version 1"));
	assert_non_null(strstr(ac_error_last(), "'b'"));
	json_decref(doc);
	assert_int_equal(ac_checkpoint_store_get(&got, f->store, "s1", "b"), AC_ENOTFOUND);
	save(f, ckpt("s2", "b", 1, "n", "2025-01-01T00:00:00.000Z", 1));
	save(f, ckpt("s1", "a", 1, "again", "2025-01-01T00:00:00.000Z", 2));
	assert_int_equal(ac_checkpoint_store_get(&got, f->store, "s1", "a"), 0);
	assert_string_equal(ac_checkpoint_node(got), "again");
	json_decref(got);
}

/* The document comes back as saved, numbers jansson cannot hold included,
 * and both tombstone forms are tombstones in the header column. */
static void test_pg_text_exact_and_tombstone_forms(void **state)
{
	fixture *f = *state;
	static const char text[] =
		"{\"checkpointId\":\"k\",\"sessionId\":\"s1\",\"version\":1,"
		"\"messageHistory\":[],\"big\":123456789012345678901234567890,\"f\":0.1,"
		"\"properties\":{\"tombstone\":true},\"parentId\":\"p\\u0000q\"}";
	ac_checkpoint_filter live = {.session_id = "s1", .include_tombstones = false};
	ac_checkpoint_header_list headers = {0};
	json_t *doc = NULL, *got = NULL;
	char *back;
	size_t len;

	assert_int_equal(ac_json_exact_load(&doc, text, strlen(text), 0, "test"), 0);
	assert_int_equal(ac_checkpoint_store_save(f->store, doc), 0);
	json_decref(doc);
	save(f, ckpt("s1", "t", 2, AC_CHECKPOINT_TOMBSTONE, "2025-01-01T00:00:00.000Z", 0));
	assert_int_equal(ac_checkpoint_store_get(&got, f->store, "s1", "k"), 0);
	back = ac_json_exact_dumps(got, JSON_COMPACT | JSON_PRESERVE_ORDER, &len);
	assert_string_equal(back, text);
	free(back);
	json_decref(got);
	assert_int_equal(ac_checkpoint_store_list_headers(&headers, f->store, &live), 0);
	assert_int_equal(headers.count, 0);
	ac_checkpoint_header_list_free(&headers);
	assert_int_equal(ac_checkpoint_store_latest(&got, f->store, "s1"), AC_ENOTFOUND);
}

/* A planted checkpoint with version 2^63-1: the next version is refused
 * with a message naming it (it used to overflow, then every create failed
 * with a misleading message). Run under UBSan this also proves no signed
 * overflow happens. */
static void test_file_planted_huge_version_refused(void **state)
{
	fixture *f = *state;
	static const char planted[] =
		"{\"checkpointId\":\"planted\",\"sessionId\":\"s1\",\"version\":9223372036854775807,"
		"\"messageHistory\":[]}";
	char *folder = tu_path(f->ckpts, "s1"), *path = tu_path(folder, "planted.json");
	json_t *doc = NULL;
	int64_t next = 0;

	free(write_session(f, ""));
	save(f, ckpt("s1", "good", 1, "n", "2025-01-01T00:00:00.000Z", 1));
	tu_write_file(path, planted, strlen(planted));
	assert_int_equal(ac_checkpoint_store_next_version(&next, f->store, "s1"), AC_ECORRUPT);
	assert_non_null(strstr(ac_error_last(), "planted"));
	assert_non_null(strstr(ac_error_last(), "9223372036854775807"));
	assert_int_equal(ac_checkpoint_create(&doc, f->store, f->sessions, "s1", NULL), AC_ECORRUPT);
	assert_non_null(strstr(ac_error_last(), "move it aside"));
	assert_null(doc);
	unlink(path);
	assert_int_equal(ac_checkpoint_create(&doc, f->store, f->sessions, "s1", NULL), 0);
	assert_int_equal(ac_checkpoint_version(doc), 2);
	json_decref(doc);
	free(path);
	free(folder);
}

/* A store whose ops are of another version is refused by every call
 * before the provider is asked; the message names both versions. */
static void test_store_version_refused(void **state)
{
	fixture *f = *state;
	const ac_checkpoint_store_ops *real = f->store->ops;
	ac_checkpoint_store_ops other = *real;
	ac_checkpoint_filter filter = {.session_id = "s1"};
	ac_checkpoint_header_list headers = {0};
	json_t *out = NULL;

	assert_int_equal(ac_checkpoint_store_version_check(f->store), 0);
	other.version = AC_CHECKPOINT_STORE_OPS_VERSION + 1;
	f->store->ops = &other;
	assert_int_equal(ac_checkpoint_store_version_check(f->store), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "checkpoint store version 2"));
	assert_int_equal(ac_checkpoint_store_list(&out, f->store, &filter), AC_EINVAL);
	assert_int_equal(ac_checkpoint_store_list_headers(&headers, f->store, &filter), AC_EINVAL);
	assert_int_equal(ac_checkpoint_store_latest(&out, f->store, "s1"), AC_EINVAL);
	assert_int_equal(ac_checkpoint_store_get(&out, f->store, "s1", "c1"), AC_EINVAL);
	assert_int_equal(ac_checkpoint_store_delete(f->store, "s1", "c1"), AC_EINVAL);
	assert_int_equal(ac_checkpoint_store_save(f->store, NULL), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "AC_CHECKPOINT_STORE_OPS_VERSION"));
	assert_null(out);
	f->store->ops = real;
	assert_int_equal(ac_checkpoint_store_version_check(NULL), AC_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_store_version_refused, setup_memory, teardown),
		CONTRACT(test_contract_order_latest_tombstones),
		CONTRACT(test_contract_get_replace_delete),
		CONTRACT(test_contract_retention_keeps_first_and_last_n),
		CONTRACT(test_contract_bad_ids_refused),
		cmocka_unit_test_setup_teardown(test_none_stores_nothing, setup_none, teardown),
		cmocka_unit_test_setup_teardown(test_file_bad_files_reported_and_skipped,
						setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_file_planted_huge_version_refused, setup_file,
						teardown),
		cmocka_unit_test_setup_teardown(test_file_corrupt_get_names_file, setup_file,
						teardown),
		CONTRACT(test_create_from_session),
		cmocka_unit_test(test_file_reads_the_fixture_checkpoints),
		cmocka_unit_test(test_file_headers_match_the_fixture_checkpoints),
		CONTRACT(test_contract_headers_match_full_load),
		cmocka_unit_test_setup_teardown(test_file_headers_match_full_load_on_corrupt_files,
						setup_file, teardown),
		CONTRACT(test_create_with_options),
		CONTRACT(test_create_from_document),
		CONTRACT(test_prefix_refusals),
		CONTRACT(test_latest_refused_when_newest_is_a_tombstone),
		cmocka_unit_test_setup_teardown(test_file_seed_checkpoint_without_session_id,
						setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_unfold_reads_only_the_sessions_archives,
						setup_file, teardown),
		CONTRACT(test_rollback_runs_compensations_newest_first),
		CONTRACT(test_rollback_behind_a_compaction),
		CONTRACT(test_failing_compensation_stops_and_keeps_session),
		CONTRACT(test_uncertain_compensation_is_not_run_again),
		cmocka_unit_test_setup_teardown(test_compensation_record_folder_durable_before_it_runs,
						setup_file, teardown),
		cmocka_unit_test_setup_teardown(test_file_first_checkpoint_folder_is_durable,
						setup_file, teardown),
		CONTRACT(test_given_up_rollback_compensations_not_run_again),
		CONTRACT(test_rollback_refuses_session_changed_since_plan),
		cmocka_unit_test_setup_teardown(test_plan_validates_config_and_arguments,
						setup_file, teardown),
		CONTRACT(test_filter_is_a_predicate),
		CONTRACT(test_create_with_callers_version),
		CONTRACT(test_set_execution_point),
		CONTRACT(test_rollback_restores_the_execution_point),
		CONTRACT(test_automatic_persistence_per_session),
		cmocka_unit_test_setup_teardown(test_no_persistence_provider_saves_nothing_automatically,
						setup_none, teardown),
	};

	const struct CMUnitTest pg_tests[] = {
		CONTRACT_PG(test_contract_order_latest_tombstones),
		CONTRACT_PG(test_contract_get_replace_delete),
		CONTRACT_PG(test_contract_retention_keeps_first_and_last_n),
		CONTRACT_PG(test_contract_bad_ids_refused),
		CONTRACT_PG(test_create_from_session),
		CONTRACT_PG(test_contract_headers_match_full_load),
		CONTRACT_PG(test_create_with_options),
		CONTRACT_PG(test_create_from_document),
		CONTRACT_PG(test_prefix_refusals),
		CONTRACT_PG(test_latest_refused_when_newest_is_a_tombstone),
		CONTRACT_PG(test_rollback_runs_compensations_newest_first),
		CONTRACT_PG(test_rollback_behind_a_compaction),
		CONTRACT_PG(test_failing_compensation_stops_and_keeps_session),
		CONTRACT_PG(test_uncertain_compensation_is_not_run_again),
		CONTRACT_PG(test_rollback_refuses_session_changed_since_plan),
		CONTRACT_PG(test_filter_is_a_predicate),
		CONTRACT_PG(test_create_with_callers_version),
		CONTRACT_PG(test_set_execution_point),
		CONTRACT_PG(test_rollback_restores_the_execution_point),
		CONTRACT_PG(test_automatic_persistence_per_session),
		CONTRACT_PG(test_pg_versions_unique_per_session),
		CONTRACT_PG(test_pg_text_exact_and_tombstone_forms),
	};

	/* The PostgreSQL provider only where a server is given (ctest's
	 * test_checkpoint_pg, through tests/pg/with-postgres.sh). */
	if (getenv("AC_TEST_PG"))
		return cmocka_run_group_tests_name("checkpoint_pg", pg_tests, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
