/* Retention (ac_gc.h) over the file store: ages, keep and age rules per
 * kind, what always stays (tombstones, the highest version, archives a
 * session names, young archives, running sessions' traces), planted links,
 * and files replaced between the plan and its apply. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_util.h"
#include "ac_checkpoint.h"
#include "ac_error.h"
#include "ac_gc.h"
#include "ac_time.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DAY_MS (86400 * INT64_C(1000))
#define OLD "2020-01-01T00:00:00.000Z"

typedef struct {
	char *root, *sessions, *checkpoints, *data, *journal;
	ac_gc_store *store;
	ac_gc_plan plan;
	int64_t now;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->root = tu_make_temp_dir();
	f->sessions = tu_path(f->root, ".agent/sessions");
	f->checkpoints = tu_path(f->root, ".agent/checkpoints");
	f->data = tu_path(f->root, ".agent");
	f->journal = tu_path(f->root, "JOURNAL.jsonl");
	tu_put(f->root, "JOURNAL.jsonl", "");
	tu_put(f->root, ".agent/sessions/.keep", "");
	ac_gc_files_options opts = {AC_GC_FILES_OPTIONS_VERSION, f->sessions, f->checkpoints, f->data,
				    f->journal, f->root};
	assert_int_equal(ac_gc_store_files_new(&f->store, &opts), 0);
	f->now = ac_time_now_ms();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	ac_gc_plan_free(&f->plan);
	ac_gc_store_free(f->store);
	tu_remove_tree(f->root);
	free(f->root);
	free(f->sessions);
	free(f->checkpoints);
	free(f->data);
	free(f->journal);
	free(f);
	return 0;
}

static void save_checkpoint(fixture *f, const char *session, const char *id, int version,
			    const char *node, const char *created)
{
	ac_checkpoint_store *store = NULL;
	json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:i, s:n, s:s, s:s, s:s, s:s, s:[], s:{}}",
				"checkpointId", id, "sessionId", session, "agentId", "claude",
				"createdAt", created, "version", version, "parentId", "nodeId",
				node, "lastInput", "", "lastInputType", "text", "lastOutput", "",
				"messageHistory", "properties");

	assert_int_equal(ac_checkpoint_store_file_new(&store, f->checkpoints), 0);
	assert_int_equal(ac_checkpoint_store_save(store, doc), 0);
	ac_checkpoint_store_free(store);
	json_decref(doc);
}

/* Sets rel's mtime days_ago days back (not following a link). */
static void age_file(fixture *f, const char *rel, int days_ago)
{
	char *path = tu_path(f->root, rel);
	struct timespec times[2] = {{.tv_sec = time(NULL) - days_ago * 86400},
				    {.tv_sec = time(NULL) - days_ago * 86400}};

	assert_int_equal(utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW), 0);
	free(path);
}

static void plan(fixture *f, bool has_keep, size_t keep, int64_t older_than_ms)
{
	ac_gc_policy policy = {.has_keep = has_keep, .keep = keep,
			       .older_than_ms = older_than_ms, .now_ms = f->now};

	ac_gc_plan_free(&f->plan);
	assert_int_equal(ac_gc_plan_make(&f->plan, f->store, &policy), 0);
}

/* True when the plan removes the file whose path ends in tail. */
static bool planned(const fixture *f, const char *tail)
{
	for (size_t i = 0; i < f->plan.count; i++) {
		const char *path = f->plan.items[i].path;
		size_t n = strlen(path), t = strlen(tail);

		if (n >= t && !strcmp(path + n - t, tail))
			return true;
	}
	return false;
}

static void apply(fixture *f, size_t expect_removed)
{
	size_t removed = 99;
	uint64_t bytes = 0;

	assert_int_equal(ac_gc_apply(&removed, &bytes, f->store, &f->plan, NULL, NULL), 0);
	assert_int_equal(removed, expect_removed);
}

static void test_ages_parse_in_four_units_and_nothing_else(void **state)
{
	static const char *bad[] = {"", "d", "30", "30s", "0d", "3dd", "-1d", " 1d", "1.5d",
				    "1D", "1234567890d"};
	int64_t ms = 0;

	(void)state;
	assert_int_equal(ac_gc_parse_age(&ms, "30d"), 0);
	assert_int_equal(ms, 30 * DAY_MS);
	assert_int_equal(ac_gc_parse_age(&ms, "12h"), 0);
	assert_int_equal(ms, 12 * 3600 * 1000);
	assert_int_equal(ac_gc_parse_age(&ms, "90m"), 0);
	assert_int_equal(ms, 90 * 60 * 1000);
	assert_int_equal(ac_gc_parse_age(&ms, "2w"), 0);
	assert_int_equal(ms, 14 * DAY_MS);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(ac_gc_parse_age(&ms, bad[i]), AC_EINVAL);
		assert_non_null(strstr(ac_error_last(), bad[i]));
	}
}

static void test_no_rule_removes_nothing(void **state)
{
	fixture *f = *state;
	ac_gc_policy policy = {.now_ms = f->now};

	assert_int_equal(ac_gc_plan_make(&f->plan, f->store, &policy), AC_EINVAL);
	assert_int_equal(f->plan.count, 0);
}

static void test_keep_counts_checkpoints_but_not_tombstones(void **state)
{
	fixture *f = *state;

	save_checkpoint(f, "s1", "c1", 1, "manual", OLD);
	save_checkpoint(f, "s1", "c2", 2, "manual", OLD);
	save_checkpoint(f, "s1", "c3", 3, "tombstone", OLD);
	save_checkpoint(f, "s1", "c4", 4, "manual", OLD);
	save_checkpoint(f, "s1", "c5", 5, "manual", OLD);
	save_checkpoint(f, "s2", "d1", 1, "manual", OLD);
	plan(f, true, 2, 0);
	assert_int_equal(f->plan.count, 2);
	assert_true(planned(f, "/s1/c1.json"));
	assert_true(planned(f, "/s1/c2.json"));
	assert_int_equal(f->plan.items[0].kind, AC_GC_CHECKPOINT);
	assert_non_null(strstr(f->plan.items[0].why, "newest 2"));
	assert_true(f->plan.bytes > 0);
	apply(f, 2);
	assert_false(tu_exists(f->checkpoints, "s1/c1.json"));
	assert_true(tu_exists(f->checkpoints, "s1/c3.json"));
	assert_true(tu_exists(f->checkpoints, "s1/c4.json"));
	assert_true(tu_exists(f->checkpoints, "s2/d1.json"));
}

static void test_the_highest_version_stays_so_versions_are_not_reused(void **state)
{
	fixture *f = *state;

	save_checkpoint(f, "s1", "c1", 1, "manual", OLD);
	save_checkpoint(f, "s1", "c2", 2, "manual", OLD);
	plan(f, true, 0, DAY_MS);
	assert_int_equal(f->plan.count, 1);
	assert_true(planned(f, "/s1/c1.json"));
}

static void test_age_uses_the_recorded_time(void **state)
{
	fixture *f = *state;
	char now[AC_TIME_ISO_LEN + 1];

	ac_time_format_iso(now, f->now);
	save_checkpoint(f, "s1", "c1", 1, "manual", OLD);
	save_checkpoint(f, "s1", "c2", 2, "manual", OLD);
	save_checkpoint(f, "s1", "c3", 3, "manual", now);
	save_checkpoint(f, "s1", "c4", 4, "manual", now);
	plan(f, false, 0, 30 * DAY_MS);
	assert_int_equal(f->plan.count, 2);
	assert_true(planned(f, "/c1.json"));
	assert_true(planned(f, "/c2.json"));
	assert_non_null(strstr(f->plan.items[0].why, "from before"));
	/* Both rules: beyond the newest 3 and old. */
	plan(f, true, 3, 30 * DAY_MS);
	assert_int_equal(f->plan.count, 1);
	assert_true(planned(f, "/c1.json"));
}

static void test_archives_a_session_names_stay(void **state)
{
	fixture *f = *state;
	char young[21], name[64];

	tu_put(f->sessions, "s1.json",
	       "{\"id\":\"s1\",\"status\":\"running\",\"conversationHistory\":[],\"metadata\":"
	       "{\"compactions\":[{\"archive\":\".compactions/s1/20200101T000000.000Z.json\"}],"
	       "\"rollbacks\":[{\"archive\":\".rollbacks/s1/20200103T000000.000Z.json\"}]}}");
	tu_put(f->sessions, ".compactions/s1/20200101T000000.000Z.json", "{}");
	tu_put(f->sessions, ".compactions/s1/20200102T000000.000Z.json", "{\"old\":1}");
	ac_time_format_file(young, f->now);
	snprintf(name, sizeof(name), ".compactions/s1/%s.json", young);
	tu_put(f->sessions, name, "{}");
	tu_put(f->sessions, ".rollbacks/s1/20200103T000000.000Z.json", "{}");
	tu_put(f->sessions, ".rollbacks/s1/20200104T000000.000Z.json", "{}");
	tu_put(f->sessions, ".rollbacks/s1/compensated.json", "{}");
	/* A session that is gone names nothing; one unreadable may name all. */
	tu_put(f->sessions, ".compactions/gone/20200101T000000.000Z.json", "{}");
	tu_put(f->sessions, "bad.json", "{not json");
	tu_put(f->sessions, ".compactions/bad/20200101T000000.000Z.json", "{}");
	age_file(f, ".agent/sessions/.compactions/s1/20200102T000000.000Z.json", 900);
	age_file(f, ".agent/sessions/.rollbacks/s1/20200104T000000.000Z.json", 900);
	age_file(f, ".agent/sessions/.compactions/gone/20200101T000000.000Z.json", 900);
	age_file(f, ".agent/sessions/.compactions/bad/20200101T000000.000Z.json", 900);
	plan(f, true, 0, 0);
	assert_int_equal(f->plan.count, 3);
	assert_true(planned(f, ".compactions/s1/20200102T000000.000Z.json"));
	assert_true(planned(f, ".rollbacks/s1/20200104T000000.000Z.json"));
	assert_true(planned(f, ".compactions/gone/20200101T000000.000Z.json"));
	assert_int_equal(f->plan.items[0].time_ms, 1577836800000); /* the name's time */
	/* keep 1: the newest unnamed archive of each session stays. */
	plan(f, true, 1, 0);
	assert_int_equal(f->plan.count, 0);
	plan(f, true, 0, 0);
	apply(f, 3);
	assert_true(tu_exists(f->sessions, ".compactions/s1/20200101T000000.000Z.json"));
	assert_true(tu_exists(f->sessions, name));
	assert_true(tu_exists(f->sessions, ".rollbacks/s1/compensated.json"));
	assert_true(tu_exists(f->sessions, ".compactions/bad/20200101T000000.000Z.json"));
}

static void test_planted_links_lead_nowhere(void **state)
{
	fixture *f = *state;
	char *outside = tu_make_temp_dir(), *link;

	tu_put(outside, "victim.json", "keep me");
	tu_put(outside, "20200101T000000.000Z.json", "keep me");
	tu_put(outside, "c1.json", "keep me");
	tu_put(f->sessions, ".compactions/s1/real.json", "{}");
	link = tu_path(f->sessions, ".compactions/s2");
	assert_int_equal(symlink(outside, link), 0);
	free(link);
	link = tu_path(f->sessions, ".compactions/s1/20200101T000000.000Z.json");
	assert_int_equal(symlink("../../../../../victim.json", link), 0);
	free(link);
	tu_put(f->checkpoints, ".keep", "");
	link = tu_path(f->checkpoints, "s3");
	assert_int_equal(symlink(outside, link), 0);
	free(link);
	link = tu_path(f->root, "JOURNAL-20200101T000000.000Z.jsonl");
	assert_int_equal(symlink("/etc/hostname", link), 0);
	free(link);
	age_file(f, ".agent/sessions/.compactions/s1/real.json", 900);
	plan(f, true, 0, DAY_MS);
	assert_int_equal(f->plan.count, 1);
	assert_true(planned(f, ".compactions/s1/real.json"));
	/* A link put in the planned file's place after the plan stays too. */
	link = tu_path(f->sessions, ".compactions/s1/real.json");
	unlink(link);
	assert_int_equal(symlink("/etc/hostname", link), 0);
	free(link);
	apply(f, 0);
	tu_assert_file(outside, "victim.json", "keep me");
	tu_assert_file(outside, "20200101T000000.000Z.json", "keep me");
	tu_assert_file(outside, "c1.json", "keep me");
	assert_true(tu_exists(f->sessions, ".compactions/s1/real.json"));
	tu_remove_tree(outside);
	free(outside);
}

static void save_four_checkpoints(fixture *f)
{
	save_checkpoint(f, "s1", "c1", 1, "manual", OLD);
	save_checkpoint(f, "s1", "c2", 2, "manual", OLD);
	save_checkpoint(f, "s1", "c3", 3, "manual", OLD);
	save_checkpoint(f, "s1", "c4", 4, "manual", OLD);
}

/* The checkpoints folder moved to other/checkpoints (another workspace's
 * store, a new temp folder) with a link left in its place; returns other. */
static char *move_checkpoints_out(fixture *f)
{
	char *other = tu_make_temp_dir(), *moved = tu_path(other, "checkpoints");

	assert_int_equal(rename(f->checkpoints, moved), 0);
	assert_int_equal(symlink(moved, f->checkpoints), 0);
	free(moved);
	return other;
}

static void assert_four_checkpoints(const char *other)
{
	static const char *const names[] = {"c1", "c2", "c3", "c4"};
	char rel[64];

	for (size_t i = 0; i < 4; i++) {
		snprintf(rel, sizeof(rel), "checkpoints/s1/%s.json", names[i]);
		assert_true(tu_exists(other, rel));
	}
}

/* Issue 23 item 4: B's .agent/checkpoints a link to A's; gc in B planned
 * and removed 3 of A's 4 checkpoints. */
static void test_a_store_folder_linked_out_of_the_workspace_is_refused(void **state)
{
	fixture *f = *state;
	char *other;
	ac_gc_policy policy = {.has_keep = true, .keep = 1, .now_ms = f->now};

	save_four_checkpoints(f);
	other = move_checkpoints_out(f);
	ac_gc_plan_free(&f->plan);
	assert_int_equal(ac_gc_plan_make(&f->plan, f->store, &policy), AC_EDENIED);
	assert_non_null(strstr(ac_error_last(), f->checkpoints));
	assert_non_null(strstr(ac_error_last(), other));
	assert_non_null(strstr(ac_error_last(), "out of the workspace"));
	assert_four_checkpoints(other);
	tu_remove_tree(other);
	free(other);
}

/* The same link swapped in between the plan and its apply: the removals
 * walk from the workspace again and refuse, removing nothing (the planned
 * files are the very ones moved, same inodes). */
static void test_a_link_swapped_in_after_the_plan_removes_nothing(void **state)
{
	fixture *f = *state;
	char *other, *moved, *kept = tu_path(f->root, "kept");
	size_t removed = 99;

	save_four_checkpoints(f);
	plan(f, true, 1, 0);
	assert_int_equal(f->plan.count, 3);
	other = move_checkpoints_out(f);
	moved = tu_path(other, "checkpoints");
	assert_int_equal(ac_gc_apply(&removed, NULL, f->store, &f->plan, NULL, NULL), AC_EDENIED);
	assert_int_equal(removed, 0);
	assert_four_checkpoints(other);
	/* A link that stays inside the workspace is followed. */
	assert_int_equal(unlink(f->checkpoints), 0);
	assert_int_equal(rename(moved, kept), 0);
	assert_int_equal(symlink("../kept", f->checkpoints), 0);
	apply(f, 3);
	assert_true(tu_exists(kept, "s1/c4.json"));
	assert_false(tu_exists(kept, "s1/c1.json"));
	free(moved);
	free(kept);
	tu_remove_tree(other);
	free(other);
}

static void test_a_file_saved_again_after_the_plan_stays(void **state)
{
	fixture *f = *state;

	save_checkpoint(f, "s1", "c1", 1, "manual", OLD);
	save_checkpoint(f, "s1", "c2", 2, "manual", OLD);
	save_checkpoint(f, "s1", "c3", 3, "manual", OLD);
	plan(f, true, 1, 0);
	assert_int_equal(f->plan.count, 2);
	/* c1 saved again (temp file + rename: a new inode); c2 already gone. */
	save_checkpoint(f, "s1", "c1", 1, "manual", OLD);
	char *c2 = tu_path(f->checkpoints, "s1/c2.json");
	unlink(c2);
	free(c2);
	apply(f, 0);
	assert_true(tu_exists(f->checkpoints, "s1/c1.json"));
}

static void test_traces_go_by_age_when_the_session_is_over(void **state)
{
	fixture *f = *state;

	tu_put(f->sessions, "done.json", "{\"id\":\"done\",\"status\":\"completed\"}");
	tu_put(f->sessions, "live.json", "{\"id\":\"live\",\"status\":\"running\"}");
	tu_put(f->data, "traces/t1/done.jsonl", "{\"seq\":1}\n");
	tu_put(f->data, "traces/t1/live.jsonl", "{\"seq\":1}\n");
	tu_put(f->data, "traces/t1/gone.jsonl", "{\"seq\":1}\n");
	tu_put(f->data, "traces/t1/new.jsonl", "{\"seq\":1}\n");
	age_file(f, ".agent/traces/t1/done.jsonl", 40);
	age_file(f, ".agent/traces/t1/live.jsonl", 40);
	age_file(f, ".agent/traces/t1/gone.jsonl", 40);
	plan(f, true, 0, 0);
	assert_int_equal(f->plan.count, 0); /* --keep alone leaves traces */
	plan(f, false, 0, 30 * DAY_MS);
	assert_int_equal(f->plan.count, 2);
	assert_true(planned(f, "traces/t1/done.jsonl"));
	assert_true(planned(f, "traces/t1/gone.jsonl"));
	/* An append since the plan keeps the trace. */
	tu_append_file(f->plan.items[0].path, "{\"seq\":2}\n", 10);
	apply(f, 1);
	assert_true(tu_exists(f->data, "traces/t1/done.jsonl"));
	assert_false(tu_exists(f->data, "traces/t1/gone.jsonl"));
}

static void test_rotated_journals_beyond_the_newest_go(void **state)
{
	fixture *f = *state;

	tu_put(f->root, "JOURNAL-20200101T000000.000Z.jsonl", "a\n");
	tu_put(f->root, "JOURNAL-20200201T000000.000Z.jsonl", "b\n");
	tu_put(f->root, "JOURNAL-20200301T000000.000Z.jsonl", "c\n");
	tu_put(f->root, "JOURNAL-notastamp.jsonl", "d\n");
	plan(f, true, 1, 0);
	assert_int_equal(f->plan.count, 2);
	assert_true(planned(f, "/JOURNAL-20200101T000000.000Z.jsonl"));
	assert_true(planned(f, "/JOURNAL-20200201T000000.000Z.jsonl"));
	assert_int_equal(f->plan.items[0].kind, AC_GC_JOURNAL);
	apply(f, 2);
	assert_true(tu_exists(f->root, "JOURNAL.jsonl"));
	assert_true(tu_exists(f->root, "JOURNAL-20200301T000000.000Z.jsonl"));
	assert_true(tu_exists(f->root, "JOURNAL-notastamp.jsonl"));
	/* The live journal never goes. */
	plan(f, true, 0, DAY_MS);
	assert_int_equal(f->plan.count, 1);
	assert_false(planned(f, "/JOURNAL.jsonl"));
}

/* A store whose ops are of another version is refused before it is
 * asked to plan or remove anything. */
static void test_store_version_refused(void **state)
{
	fixture *f = *state;
	const ac_gc_store_ops *real = f->store->ops;
	ac_gc_store_ops other = *real;
	ac_gc_policy policy = {.has_keep = true, .keep = 1, .now_ms = f->now};
	size_t removed = 7;
	uint64_t bytes = 7;

	assert_int_equal(ac_gc_store_version_check(f->store), 0);
	other.version = AC_GC_STORE_OPS_VERSION + 1;
	f->store->ops = &other;
	assert_int_equal(ac_gc_plan_make(&f->plan, f->store, &policy), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "gc store version 2"));
	assert_int_equal(ac_gc_apply(&removed, &bytes, f->store, &f->plan, NULL, NULL), AC_EINVAL);
	assert_int_equal(removed, 0);
	assert_int_equal(bytes, 0);
	f->store->ops = real;
}

/* The file store's options carry their version: options not started from
 * AC_GC_FILES_OPTIONS_INIT (version 0) are refused, naming the struct,
 * before anything is opened; the right version opens. */
static void test_files_options_version(void **state)
{
	fixture *f = *state;
	ac_gc_files_options opts = AC_GC_FILES_OPTIONS_INIT;
	ac_gc_store *store = NULL;

	opts.sessions_dir = f->sessions;
	opts.checkpoints_dir = f->checkpoints;
	opts.data_dir = f->data;
	opts.journal_path = f->journal;
	opts.version = 0;
	assert_int_equal(ac_gc_store_files_new(&store, &opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_gc_files_options version 0"));
	assert_non_null(strstr(ac_error_last(), "AC_GC_FILES_OPTIONS_INIT"));
	assert_null(store);
	opts.version = AC_GC_FILES_OPTIONS_VERSION;
	assert_int_equal(ac_gc_store_files_new(&store, &opts), 0);
	ac_gc_store_free(store);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ages_parse_in_four_units_and_nothing_else),
		cmocka_unit_test_setup_teardown(test_no_rule_removes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_version_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_files_options_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keep_counts_checkpoints_but_not_tombstones,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_the_highest_version_stays_so_versions_are_not_reused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_age_uses_the_recorded_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_archives_a_session_names_stay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_links_lead_nowhere, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_a_store_folder_linked_out_of_the_workspace_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_link_swapped_in_after_the_plan_removes_nothing,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_file_saved_again_after_the_plan_stays, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_traces_go_by_age_when_the_session_is_over,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_rotated_journals_beyond_the_newest_go, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
