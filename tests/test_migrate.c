/* ac_migrate between two file workspaces (the copy is the same whatever
 * the stores; tests/e2e/storage_migrate_pg.sh runs it against PostgreSQL):
 * everything copied once and a second run copies nothing; a journal line
 * repeated in the source is copied as often as it appears, and found again
 * after; an id the destination holds with other bytes is a conflict, left
 * alone, while the rest is copied; a session with the same id and another
 * document is a conflict; a session without a tenant, a corrupt checkpoint
 * and a journal line that is no event are reported, not copied; a
 * compaction or rollback archive is copied byte-equal under its name, and
 * one the destination holds under that name with other messages is a
 * conflict, left alone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_backend_fs.h"
#include "ac_error.h"
#include "ac_migrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char *root;
	ac_backend backend;
	ac_checkpoint_store *checkpoints;
	ac_journal_store *journal;
	ac_migrate_store store;
} side;

typedef struct {
	side a, b;
	int conflicts_heard;
	int failures_heard;
} fixture;

static void side_open(side *s)
{
	char *sessions, *data, *ckpt, *journal;
	ac_journal_options jopts;

	s->root = tu_make_temp_dir();
	sessions = tu_path(s->root, ".agent/sessions");
	data = tu_path(s->root, ".agent");
	ckpt = tu_path(s->root, ".agent/checkpoints");
	journal = tu_path(s->root, "JOURNAL.jsonl");
	ac_journal_options_init(&jopts);
	ac_backend_fs_options opts = {.version = AC_BACKEND_FS_OPTIONS_VERSION,
		.sessions_dir = sessions, .data_dir = data};
	assert_int_equal(ac_backend_fs_init(&s->backend, &opts), 0);
	assert_int_equal(ac_checkpoint_store_file_new(&s->checkpoints, ckpt), 0);
	assert_int_equal(ac_journal_store_file_new(&s->journal, journal, &jopts, NULL), 0);
	s->store = (ac_migrate_store){&s->backend, s->checkpoints, s->journal};
	free(sessions);
	free(data);
	free(ckpt);
	free(journal);
}

static void side_close(side *s)
{
	ac_backend_close(&s->backend);
	ac_checkpoint_store_free(s->checkpoints);
	ac_journal_store_free(s->journal);
	tu_remove_tree(s->root);
	free(s->root);
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	side_open(&f->a);
	side_open(&f->b);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	side_close(&f->a);
	side_close(&f->b);
	free(f);
	return 0;
}

static void heard(ac_migrate_kind kind, const char *key, bool conflict, const char *why, void *ctx)
{
	fixture *f = ctx;

	(void)kind;
	(void)key;
	(void)why;
	if (conflict)
		f->conflicts_heard++;
	else
		f->failures_heard++;
}

static void migrate(fixture *f, ac_migrate_count *c)
{
	ac_migrate_options opts = {.version = AC_MIGRATE_OPTIONS_VERSION, .problem = heard,
				   .ctx = f};

	assert_int_equal(ac_migrate_run(c, &f->a.store, &f->b.store, &opts), 0);
}

#define ARCHIVE(id, text)                                                                   \
	"{\n  \"sessionId\": \"" id "\",\n  \"createdAt\": \"2025-09-03T14:25:10.000Z\",\n"     \
	"  \"messages\": [\n    {\n      \"role\": \"user\",\n      \"content\": \"" text   \
	"\",\n      \"n\": 2.50\n    }\n  ]\n}"
#define COMPACTION ".agent/sessions/.compactions/s1/20250903T142510.000Z.json"
#define ROLLBACK ".agent/sessions/.rollbacks/s1/20250904T000000.000Z.json"

#define EVENT(id, msg)                                                                      \
	"{\"id\":\"" id "\",\"timestamp\":\"2025-09-03T14:25:10.000Z\",\"agent\":\"Claude\","   \
	"\"status\":\"SUCCESS\",\"action\":{\"type\":\"ANALYSIS\",\"params\":{}},"               \
	"\"result\":{\"message\":\"" msg "\"}}\n"

/* One of each kind in a. */
static void fill(side *s)
{
	ac_backend *b = &s->backend;
	char *id = NULL;
	json_t *msgs = json_pack("[{s:s, s:s}]", "role", "user", "content", "hello \u00e9");
	json_t *event = json_pack("{s:s}", "type", "llm_call");
	json_t *fields = json_pack("{s:i, s:s, s:{s:b}}", "cacheReadInputTokens", 7, "model", "m1",
				   "unknownKey", "kept", 1);
	ac_usage usage = {12, 3, fields};
	json_t *ckpt = json_pack("{s:s, s:s, s:i, s:s, s:[]}", "checkpointId", "c1", "sessionId",
				 "s1", "version", 1, "nodeId", "plan", "messageHistory");

	assert_int_equal(b->session.get_or_create(b->impl, &id, "acme", "u1", "a1", "s1"), 0);
	assert_int_equal(b->session.append(b->impl, "acme", "s1", msgs), 0);
	assert_int_equal(b->session.record_turn(b->impl, "acme", "s1", NULL, &usage), 0);
	assert_int_equal(b->memo.write(b->impl, "acme", "u1", "user", "NOTES.md", "n\0te", 5), 0);
	assert_int_equal(b->artifact.write(b->impl, "acme", "s1", "call_1", "out", 3), 0);
	assert_int_equal(b->trace.append(b->impl, NULL, "acme", "s1", event), 0);
	assert_int_equal(b->orch.append_event(b->impl, NULL, "acme", "run1", event), 0);
	assert_int_equal(b->orch.write_snapshot(b->impl, "acme", "run1", 1, event), 0);
	assert_int_equal(s->checkpoints->ops->save(s->checkpoints, ckpt), 0);
	tu_put(s->root, "JOURNAL.jsonl",
	       EVENT("evt_20250903142510_00000001", "one") EVENT("evt_20250903142510_00000002", "two")
		       EVENT("evt_20250903142510_00000001", "one"));
	tu_put(s->root, COMPACTION, ARCHIVE("s1", "old \u00e9"));
	free(id);
	json_decref(msgs);
	json_decref(event);
	json_decref(fields);
	json_decref(ckpt);
}

static void everything_once(void **state)
{
	fixture *f = *state;
	ac_migrate_count c[AC_MIGRATE_NKINDS];
	char *journal, *text;

	fill(&f->a);
	migrate(f, c);
	for (int k = 0; k < AC_MIGRATE_NKINDS; k++) {
		uint64_t expect = k == AC_MIGRATE_JOURNAL ? 3 : 1;

		assert_int_equal(c[k].copied, expect);
		assert_int_equal(c[k].source, expect);
		assert_int_equal(c[k].verified, expect);
		assert_int_equal(c[k].conflicts + c[k].failed, 0);
	}
	/* The repeated line is there twice, in order: the files are equal. */
	journal = tu_path(f->a.root, "JOURNAL.jsonl");
	text = tu_read_file(journal, NULL);
	tu_assert_file(f->b.root, "JOURNAL.jsonl", text);
	free(text);
	free(journal);
	/* The turn row, every member kept, line for line. */
	journal = tu_path(f->a.root, ".agent/sessions/.usage/s1.jsonl");
	text = tu_read_file(journal, NULL);
	assert_non_null(strstr(text, "\"unknownKey\":{\"kept\":true}"));
	tu_assert_file(f->b.root, ".agent/sessions/.usage/s1.jsonl", text);
	free(text);
	free(journal);
	/* The archive, under its name, byte for byte. */
	tu_assert_file(f->b.root, COMPACTION, ARCHIVE("s1", "old \u00e9"));
	migrate(f, c);
	for (int k = 0; k < AC_MIGRATE_NKINDS; k++) {
		assert_int_equal(c[k].copied, 0);
		assert_int_equal(c[k].present, c[k].source);
		assert_int_equal(c[k].verified, c[k].source);
	}
	assert_int_equal(f->conflicts_heard + f->failures_heard, 0);
}

static void conflicts_left_alone(void **state)
{
	fixture *f = *state;
	ac_backend *b = &f->b.backend;
	ac_migrate_count c[AC_MIGRATE_NKINDS];
	char *id = NULL, *journal = tu_path(f->b.root, "JOURNAL.jsonl");

	fill(&f->a);
	/* b holds event 2's id with other bytes, and session s1 with another history. */
	tu_put(f->b.root, "JOURNAL.jsonl", EVENT("evt_20250903142510_00000002", "not two"));
	assert_int_equal(b->session.get_or_create(b->impl, &id, "acme", "u1", "a1", "s1"), 0);
	free(id);
	migrate(f, c);
	assert_int_equal(c[AC_MIGRATE_JOURNAL].conflicts, 1);
	assert_int_equal(c[AC_MIGRATE_JOURNAL].copied, 2);
	assert_int_equal(c[AC_MIGRATE_JOURNAL].verified, 2);
	assert_int_equal(c[AC_MIGRATE_SESSIONS].conflicts, 1);
	assert_int_equal(c[AC_MIGRATE_SESSIONS].verified, 0);
	/* Its turn row is not added to the other session of that id. */
	assert_int_equal(c[AC_MIGRATE_USAGE].failed, 1);
	assert_int_equal(c[AC_MIGRATE_USAGE].copied, 0);
	assert_false(tu_exists(f->b.root, ".agent/sessions/.usage/s1.jsonl"));
	assert_int_equal(c[AC_MIGRATE_MEMOS].copied, 1);
	assert_int_equal(f->conflicts_heard, 2);
	assert_int_equal(f->failures_heard, 1);
	assert_int_equal(tu_count_lines(journal), 3);
	free(journal);
}

#define ROW(turn, in) \
	"{\"turn\":" #turn ",\"timestamp\":\"2025-01-01T00:00:0" #turn "Z\",\"usage\":" \
	"{\"inputTokens\":" #in ",\"outputTokens\":1,\"x\":[1]}}\n"

/* Rows are told apart by turn: a row the destination holds with other
 * content is a conflict and stays; a new turn is added as it is. */
static void usage_rows_by_turn(void **state)
{
	fixture *f = *state;
	ac_migrate_count c[AC_MIGRATE_NKINDS];

	fill(&f->a);
	migrate(f, c);
	tu_put(f->a.root, ".agent/sessions/.usage/s1.jsonl", ROW(1, 5) ROW(2, 6) ROW(3, 7));
	tu_put(f->b.root, ".agent/sessions/.usage/s1.jsonl", ROW(1, 5) ROW(2, 9));
	f->conflicts_heard = 0;
	migrate(f, c);
	assert_int_equal(c[AC_MIGRATE_USAGE].source, 3);
	assert_int_equal(c[AC_MIGRATE_USAGE].present, 1);
	assert_int_equal(c[AC_MIGRATE_USAGE].conflicts, 1);
	assert_int_equal(c[AC_MIGRATE_USAGE].copied, 1);
	assert_int_equal(c[AC_MIGRATE_USAGE].verified, 2);
	assert_int_equal(f->conflicts_heard, 1);
	tu_assert_file(f->b.root, ".agent/sessions/.usage/s1.jsonl", ROW(1, 5) ROW(2, 9) ROW(3, 7));
}

/* Archives are told apart by (session, kind, name): the same name with
 * other messages is a conflict and stays; a rollback archive beside it is
 * its own item. */
static void archives_by_name(void **state)
{
	fixture *f = *state;
	ac_migrate_count c[AC_MIGRATE_NKINDS];

	fill(&f->a);
	tu_put(f->a.root, ROLLBACK, ARCHIVE("s1", "rolled"));
	tu_put(f->b.root, COMPACTION, ARCHIVE("s1", "someone else's"));
	migrate(f, c);
	assert_int_equal(c[AC_MIGRATE_ARCHIVES].source, 2);
	assert_int_equal(c[AC_MIGRATE_ARCHIVES].conflicts, 1);
	assert_int_equal(c[AC_MIGRATE_ARCHIVES].copied, 1);
	assert_int_equal(c[AC_MIGRATE_ARCHIVES].verified, 1);
	assert_int_equal(f->conflicts_heard, 1);
	tu_assert_file(f->b.root, COMPACTION, ARCHIVE("s1", "someone else's"));
	tu_assert_file(f->b.root, ROLLBACK, ARCHIVE("s1", "rolled"));
}

static void session_without_tenant(void **state)
{
	fixture *f = *state;
	ac_migrate_count c[AC_MIGRATE_NKINDS];

	tu_put(f->a.root, ".agent/sessions/lone.json",
	       "{\"id\":\"lone\",\"createdAt\":\"2025-01-01T00:00:00.000Z\",\"updatedAt\":"
	       "\"2025-01-01T00:00:00.000Z\",\"task\":\"\",\"status\":\"running\","
	       "\"conversationHistory\":[],\"metadata\":{}}");
	migrate(f, c);
	assert_int_equal(c[AC_MIGRATE_SESSIONS].source, 1);
	assert_int_equal(c[AC_MIGRATE_SESSIONS].failed, 1);
	assert_int_equal(c[AC_MIGRATE_SESSIONS].verified, 0);
	assert_int_equal(f->failures_heard, 1);
	assert_false(tu_exists(f->b.root, ".agent/sessions/lone.json"));
}

/* With a tenant given, a session of none is copied under it: its document
 * gains metadata.tenantId and nothing else, its turn rows and archive go
 * with it, the source file is left as it was, and a second run adds
 * nothing. */
static void session_without_tenant_adopted(void **state)
{
	fixture *f = *state;
	ac_migrate_count c[AC_MIGRATE_NKINDS];
	ac_migrate_options opts = {.version = AC_MIGRATE_OPTIONS_VERSION, .tenant = "team",
				   .problem = heard, .ctx = f};
	const char *lone = "{\"id\":\"lone\",\"createdAt\":\"2025-01-01T00:00:00.000Z\","
			   "\"updatedAt\":\"2025-01-01T00:00:00.000Z\",\"task\":\"t\","
			   "\"status\":\"running\",\"conversationHistory\":[],"
			   "\"metadata\":{\"userId\":\"u\"}}";
	json_t *doc = NULL, *want;

	tu_put(f->a.root, ".agent/sessions/lone.json", lone);
	tu_put(f->a.root, ".agent/sessions/.usage/lone.jsonl",
	       "{\"turn\":1,\"timestamp\":\"2025-01-01T00:00:01.000Z\","
	       "\"usage\":{\"inputTokens\":7,\"outputTokens\":3}}\n");
	tu_put(f->a.root, ".agent/sessions/.rollbacks/lone/20250904T000000.000Z.json",
	       ARCHIVE("lone", "rolled"));
	assert_int_equal(ac_migrate_run(c, &f->a.store, &f->b.store, &opts), 0);
	assert_int_equal(f->failures_heard + f->conflicts_heard, 0);
	assert_int_equal(c[AC_MIGRATE_SESSIONS].copied, 1);
	assert_int_equal(c[AC_MIGRATE_SESSIONS].verified, 1);
	assert_int_equal(c[AC_MIGRATE_USAGE].copied, 1);
	assert_int_equal(c[AC_MIGRATE_USAGE].verified, 1);
	assert_int_equal(c[AC_MIGRATE_ARCHIVES].copied, 1);
	assert_int_equal(c[AC_MIGRATE_ARCHIVES].verified, 1);
	assert_int_equal(f->b.backend.session.get(f->b.backend.impl, &doc, "team", "lone"), 0);
	want = json_loads(lone, 0, NULL);
	json_object_set_new(json_object_get(want, "metadata"), "tenantId", json_string("team"));
	assert_true(json_equal(doc, want));
	tu_assert_file(f->a.root, ".agent/sessions/lone.json", lone);
	tu_assert_file(f->b.root, ".agent/sessions/.rollbacks/lone/20250904T000000.000Z.json",
		       ARCHIVE("lone", "rolled"));
	json_decref(doc);
	json_decref(want);

	assert_int_equal(ac_migrate_run(c, &f->a.store, &f->b.store, &opts), 0);
	assert_int_equal(c[AC_MIGRATE_SESSIONS].copied + c[AC_MIGRATE_USAGE].copied +
				 c[AC_MIGRATE_ARCHIVES].copied,
			 0);
	assert_int_equal(c[AC_MIGRATE_SESSIONS].present, 1);
}

/* A line that is no event is counted as unreadable, not copied; a
 * corrupt checkpoint file is reported, not copied, and fails verification. */
static void unreadable_reported(void **state)
{
	fixture *f = *state;
	ac_migrate_count c[AC_MIGRATE_NKINDS];

	tu_put(f->a.root, "JOURNAL.jsonl",
	       EVENT("evt_20250903142510_00000001", "one") "not an event\n");
	tu_put(f->a.root, ".agent/checkpoints/s1/c1.json", "{\"checkpointId\": ");
	migrate(f, c);
	assert_int_equal(c[AC_MIGRATE_JOURNAL].copied, 1);
	assert_int_equal(c[AC_MIGRATE_JOURNAL].skipped, 1);
	assert_int_equal(c[AC_MIGRATE_CHECKPOINTS].failed, 1);
	assert_int_equal(c[AC_MIGRATE_CHECKPOINTS].source, 1);
	assert_int_equal(c[AC_MIGRATE_CHECKPOINTS].verified, 0);
	assert_int_equal(f->failures_heard, 1);
}

static void dry_run_writes_nothing(void **state)
{
	fixture *f = *state;
	ac_migrate_count c[AC_MIGRATE_NKINDS];
	ac_migrate_options opts = {.version = AC_MIGRATE_OPTIONS_VERSION, .dry_run = true};

	fill(&f->a);
	assert_int_equal(ac_migrate_run(c, &f->a.store, &f->b.store, &opts), 0);
	assert_int_equal(c[AC_MIGRATE_JOURNAL].copied, 3);
	assert_int_equal(c[AC_MIGRATE_SESSIONS].copied, 1);
	assert_false(tu_exists(f->b.root, "JOURNAL.jsonl"));
	assert_false(tu_exists(f->b.root, ".agent/sessions/s1.json"));
	assert_false(tu_exists(f->b.root, ".agent/memo"));
}

/* A backend of another version (a struct laid out by other headers) is
 * refused before anything is read or written, naming both versions. */
static void other_backend_version_refused(void **state)
{
	fixture *f = *state;
	ac_migrate_count c[AC_MIGRATE_NKINDS];
	unsigned int kept = f->b.backend.version;

	f->b.backend.version = AC_BACKEND_VERSION + 1;
	assert_int_equal(ac_migrate_run(c, &f->a.store, &f->b.store, NULL), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "backend version 3"));
	f->b.backend.version = 0; /* filled by hand, never initialised */
	assert_int_equal(ac_migrate_run(c, &f->a.store, &f->b.store, NULL), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "backend version 0"));
	f->b.backend.version = kept;
	assert_int_equal(ac_migrate_run(c, &f->a.store, &f->b.store, NULL), 0);
}

/* Options of another version are refused, naming the struct, before
 * anything is read or written; AC_MIGRATE_OPTIONS_INIT's are taken. */
static void other_options_version_refused(void **state)
{
	fixture *f = *state;
	ac_migrate_count c[AC_MIGRATE_NKINDS];
	ac_migrate_options old = {.dry_run = false};
	ac_migrate_options cur = AC_MIGRATE_OPTIONS_INIT;

	fill(&f->a);
	assert_int_equal(ac_migrate_run(c, &f->a.store, &f->b.store, &old), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_migrate_options version 0"));
	assert_non_null(strstr(ac_error_last(), "AC_MIGRATE_OPTIONS_INIT"));
	assert_false(tu_exists(f->b.root, "JOURNAL.jsonl"));
	assert_false(tu_exists(f->b.root, ".agent/sessions/s1.json"));
	assert_int_equal(ac_migrate_journal(&c[AC_MIGRATE_JOURNAL], f->a.store.journal,
					    f->b.store.journal, &old), AC_EINVAL);
	assert_false(tu_exists(f->b.root, "JOURNAL.jsonl"));
	assert_int_equal(ac_migrate_run(c, &f->a.store, &f->b.store, &cur), 0);
	assert_int_equal(c[AC_MIGRATE_SESSIONS].copied, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(everything_once, setup, teardown),
		cmocka_unit_test_setup_teardown(conflicts_left_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(usage_rows_by_turn, setup, teardown),
		cmocka_unit_test_setup_teardown(archives_by_name, setup, teardown),
		cmocka_unit_test_setup_teardown(session_without_tenant, setup, teardown),
		cmocka_unit_test_setup_teardown(session_without_tenant_adopted, setup, teardown),
		cmocka_unit_test_setup_teardown(unreadable_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(dry_run_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(other_backend_version_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(other_options_version_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
