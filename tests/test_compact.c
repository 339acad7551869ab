/* Tests for compaction (ac_compact_*): when it is needed, what replaces
 * what, the archive, metadata, tool pairs at the cut, summariser failures
 * that must leave the file byte-identical, a session changed while it was
 * being summarised, and the built-in summary. /bin/sh -c appears here only
 * to make test summarisers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ac_compact.h"
#include "ac_config.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_messages.h"
#include "ac_session.h"
#include "ac_workspace.h"
#include "test_util.h"

#define ID "sess-1"

typedef struct {
	char *dir;
	char *path; /* the session file */
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->dir = tu_make_temp_dir();
	f->path = tu_path(f->dir, ID ".json");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	tu_remove_tree(f->dir);
	free(f->path);
	free(f->dir);
	free(f);
	return 0;
}

static json_t *parse(const char *text)
{
	json_error_t err;
	json_t *value = json_loads(text, 0, &err);

	if (!value)
		fail_msg("bad test JSON at %d:%d: %s", err.line, err.column, err.text);
	return value;
}

static json_t *text_msg(const char *role, const char *text)
{
	return json_pack("{s:s, s:s}", "role", role, "content", text);
}

/* n alternating user/assistant messages of about bytes bytes each. */
static json_t *chat(size_t n, size_t bytes)
{
	json_t *messages = json_array();
	char *text = malloc(bytes + 32);

	assert_non_null(text);
	for (size_t i = 0; i < n; i++) {
		size_t len = (size_t)snprintf(text, bytes + 32, "message %zu:", i);

		for (; len < bytes; len++)
			text[len] = "lorem ipsum "[len % 12];
		text[len] = '\0';
		json_array_append_new(messages, text_msg(i % 2 ? "assistant" : "user", text));
	}
	free(text);
	return messages;
}

static void create_session(const fixture *f, const char *id, const json_t *messages)
{
	if (ac_session_create(NULL, f->dir, id, "the task", "tenant-a", "user-b", "agent-c") ||
	    ac_session_append_messages(NULL, f->dir, id, messages))
		fail_msg("cannot create session %s: %s", id, ac_error_last());
}

static json_t *load_file(const char *path)
{
	char *text = tu_read_file(path, NULL);
	json_t *root = parse(text);

	free(text);
	return root;
}

static void options(ac_compact_options *opts, bool force)
{
	ac_compact_options_init(opts);
	opts->force = force;
	opts->summarizer_timeout_ms = 20000;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void test_defaults_and_plan(void **state)
{
	ac_compact_options opts;
	ac_compact_result plan;
	json_t *one = chat(1, 400000), *many = chat(10, 100);

	(void)state;
	ac_compact_options_init(&opts);
	assert_int_equal(opts.trigger_tokens, 80000);
	assert_true(opts.fraction == 0.5);
	assert_false(opts.force);
	assert_null(opts.summarizer);
	assert_int_equal(opts.summarizer_timeout_ms, 120000);

	ac_compact_plan(&plan, many, &opts);
	assert_false(plan.needed);
	assert_int_equal(plan.messages_before, 10);
	assert_int_equal(plan.tokens_before, ac_messages_tokens(many));

	opts.force = true;
	ac_compact_plan(&plan, many, &opts);
	assert_true(plan.needed);
	assert_int_equal(plan.summarized, 5);
	assert_int_equal(plan.messages_after, 6);
	assert_int_equal(plan.tokens_after, 0);
	assert_null(plan.archive_path);

	/* A single message, however long, is never compacted. */
	ac_compact_plan(&plan, one, &opts);
	assert_true(plan.tokens_before > opts.trigger_tokens);
	assert_false(plan.needed);
	assert_int_equal(plan.summarized, 0);
	json_decref(one);
	json_decref(many);
}

static void test_below_trigger_unchanged(void **state)
{
	fixture *f = *state;
	json_t *messages = chat(10, 200);
	ac_compact_options opts;
	ac_compact_result result;
	char *before, *after, *archives = tu_path(f->dir, ".compactions");
	size_t before_len, after_len;

	create_session(f, ID, messages);
	before = tu_read_file(f->path, &before_len);
	options(&opts, false);
	assert_int_equal(ac_compact_session(&result, f->dir, ID, &opts), 0);
	assert_false(result.needed);
	assert_null(result.archive_path);
	assert_int_equal(result.messages_before, 10);
	after = tu_read_file(f->path, &after_len);
	assert_int_equal(after_len, before_len);
	assert_memory_equal(after, before, before_len);
	assert_false(exists(archives));
	ac_compact_result_free(&result);
	free(archives);
	free(before);
	free(after);
	json_decref(messages);
}

/* Options of another version, or with a write member of another, are
 * refused naming the struct, with the session and its folder untouched;
 * AC_COMPACT_OPTIONS_INIT's are taken and carry the defaults. */
static void test_options_version(void **state)
{
	fixture *f = *state;
	json_t *messages = chat(10, 200);
	ac_compact_options opts = AC_COMPACT_OPTIONS_INIT, inited;
	ac_compact_result result;
	char *before, *after, *archives = tu_path(f->dir, ".compactions");
	size_t before_len, after_len;

	ac_compact_options_init(&inited);
	assert_int_equal(inited.version, AC_COMPACT_OPTIONS_VERSION);
	assert_int_equal(inited.write.version, AC_SESSION_WRITE_OPTIONS_VERSION);
	assert_int_equal(opts.trigger_tokens, inited.trigger_tokens);
	assert_true(opts.fraction == inited.fraction);
	assert_int_equal(opts.min_messages, inited.min_messages);
	assert_int_equal(opts.summarizer_timeout_ms, inited.summarizer_timeout_ms);
	create_session(f, ID, messages);
	before = tu_read_file(f->path, &before_len);
	opts.force = true;
	opts.version = 0;
	assert_int_equal(ac_compact_session(&result, f->dir, ID, &opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_compact_options version 0"));
	assert_non_null(strstr(ac_error_last(), "AC_COMPACT_OPTIONS_INIT"));
	assert_null(result.archive_path);
	opts.version = AC_COMPACT_OPTIONS_VERSION;
	opts.write.version = 0;
	assert_int_equal(ac_compact_session(&result, f->dir, ID, &opts), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "ac_session_write_options version 0"));
	after = tu_read_file(f->path, &after_len);
	assert_int_equal(after_len, before_len);
	assert_memory_equal(after, before, before_len);
	assert_false(exists(archives));
	free(after);
	opts.write.version = AC_SESSION_WRITE_OPTIONS_VERSION;
	opts.force = false;
	assert_int_equal(ac_compact_session(&result, f->dir, ID, &opts), 0);
	assert_false(result.needed);
	ac_compact_result_free(&result);
	free(archives);
	free(before);
	json_decref(messages);
}

/* Adds keys agentctl does not know, which compaction must keep. */
static int add_unknown_keys(json_t *root, void *ctx)
{
	(void)ctx;
	json_object_set_new(root, "x-custom", parse("{\"nested\":[1,2,{\"k\":\"v\"}]}"));
	json_object_set_new(json_object_get(root, "metadata"), "x-meta", json_string("kept"));
	json_object_set_new(json_object_get(root, "metadata"), "compactions",
			    parse("[{\"at\":\"2020-01-01T00:00:00.000Z\",\"messages\":3}]"));
	return 0;
}

static void test_force_compacts(void **state)
{
	fixture *f = *state;
	json_t *messages = chat(12, 300), *root, *history, *archive, *meta, *record, *expected;
	ac_compact_options opts;
	ac_compact_result result;
	const char *content;
	size_t cut = ac_messages_compaction_cut(messages, 0.5);
	char *archive_relative;

	create_session(f, ID, messages);
	assert_int_equal(ac_session_update(NULL, f->dir, ID, add_unknown_keys, NULL), 0);
	options(&opts, true);
	if (ac_compact_session(&result, f->dir, ID, &opts))
		fail_msg("compact: %s", ac_error_last());
	assert_true(result.needed);
	assert_int_equal(cut, 6);
	assert_int_equal(result.summarized, cut);
	assert_int_equal(result.messages_before, 12);
	assert_int_equal(result.messages_after, 12 - cut + 1);
	assert_int_equal(result.tokens_before, ac_messages_tokens(messages));
	assert_non_null(result.archive_path);

	root = load_file(f->path);
	history = json_object_get(root, "conversationHistory");
	assert_int_equal(json_array_size(history), 12 - cut + 1);
	/* The summary first, with the exact prefix, as a user message. */
	assert_string_equal(json_string_value(json_object_get(json_array_get(history, 0), "role")),
			    "user");
	content = json_string_value(json_object_get(json_array_get(history, 0), "content"));
	assert_non_null(content);
	assert_true(strncmp(content, AC_SUMMARY_PREFIX, strlen(AC_SUMMARY_PREFIX)) == 0);
	assert_int_equal(json_object_size(json_array_get(history, 0)), 2);
	/* The kept messages, identical and in order. */
	for (size_t i = cut; i < 12; i++)
		assert_true(json_equal(json_array_get(history, i - cut + 1),
				       json_array_get(messages, i)));
	assert_int_equal(result.tokens_after, ac_messages_tokens(history));
	assert_true(result.tokens_after < result.tokens_before);

	/* Unknown keys survive. */
	expected = parse("{\"nested\":[1,2,{\"k\":\"v\"}]}");
	assert_true(json_equal(json_object_get(root, "x-custom"), expected));
	json_decref(expected);
	meta = json_object_get(root, "metadata");
	assert_string_equal(json_string_value(json_object_get(meta, "x-meta")), "kept");
	assert_string_equal(json_string_value(json_object_get(meta, "tenantId")), "tenant-a");
	assert_string_equal(json_string_value(json_object_get(root, "task")), "the task");

	/* The compaction is recorded after the earlier one. */
	assert_int_equal(json_array_size(json_object_get(meta, "compactions")), 2);
	record = json_array_get(json_object_get(meta, "compactions"), 1);
	assert_int_equal(json_integer_value(json_object_get(record, "messages")), cut);
	assert_int_equal(json_integer_value(json_object_get(record, "tokensBefore")),
			 result.tokens_before);
	assert_int_equal(json_integer_value(json_object_get(record, "tokensAfter")),
			 result.tokens_after);
	assert_int_equal(json_string_length(json_object_get(record, "at")), 24);
	archive_relative = tu_path(f->dir, json_string_value(json_object_get(record, "archive")));
	assert_string_equal(archive_relative, result.archive_path);
	assert_true(strncmp(json_string_value(json_object_get(record, "archive")),
			    ".compactions/" ID "/", strlen(".compactions/" ID "/")) == 0);

	/* The archive holds exactly the replaced messages. */
	archive = load_file(result.archive_path);
	assert_string_equal(json_string_value(json_object_get(archive, "sessionId")), ID);
	assert_string_equal(json_string_value(json_object_get(archive, "createdAt")),
			    json_string_value(json_object_get(root, "createdAt")));
	assert_int_equal(json_array_size(json_object_get(archive, "messages")), cut);
	for (size_t i = 0; i < cut; i++)
		assert_true(json_equal(json_array_get(json_object_get(archive, "messages"), i),
				       json_array_get(messages, i)));

	free(archive_relative);
	json_decref(archive);
	json_decref(root);
	json_decref(messages);
	ac_compact_result_free(&result);
}

/* 8 messages with a tool call at 3 answered at 4: half is 4, which would
 * separate them, so the cut moves to 5. */
static void test_tool_pair_not_split(void **state)
{
	fixture *f = *state;
	json_t *messages = parse(
		"[{\"role\":\"user\",\"content\":\"one\"},"
		"{\"role\":\"assistant\",\"content\":\"two\"},"
		"{\"role\":\"user\",\"content\":\"three\"},"
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\","
		"\"name\":\"read_file\",\"input\":{\"path\":\"a.c\"}}]},"
		"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\","
		"\"content\":\"int x;\"}]},"
		"{\"role\":\"assistant\",\"content\":\"six\"},"
		"{\"role\":\"user\",\"content\":\"seven\"},"
		"{\"role\":\"assistant\",\"content\":\"eight\"}]");
	json_t *root, *history;
	ac_compact_options opts;
	ac_compact_result result;

	create_session(f, ID, messages);
	options(&opts, true);
	assert_int_equal(ac_compact_session(&result, f->dir, ID, &opts), 0);
	assert_int_equal(result.summarized, 5);
	root = load_file(f->path);
	history = json_object_get(root, "conversationHistory");
	assert_int_equal(json_array_size(history), 4);
	assert_true(json_equal(json_array_get(history, 1), json_array_get(messages, 5)));
	for (size_t i = 0; i <= json_array_size(history); i++)
		assert_true(ac_messages_safe_cut(history, i));
	json_decref(root);
	json_decref(messages);
	ac_compact_result_free(&result);
}

/* Entries in dir, 0 when it does not exist. */
static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t count = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			count++;
	closedir(d);
	return count;
}

static void expect_untouched_failure(fixture *f, const char *const *summarizer, int want_rc,
				     const char *want_text)
{
	json_t *messages = chat(10, 200);
	ac_compact_options opts;
	ac_compact_result result;
	char *before, *after, *archives = tu_path(f->dir, ".compactions/" ID);
	size_t before_len, after_len;
	int rc;

	create_session(f, ID, messages);
	before = tu_read_file(f->path, &before_len);
	options(&opts, true);
	opts.summarizer = summarizer;
	rc = ac_compact_session(&result, f->dir, ID, &opts);
	if (rc != want_rc || !strstr(ac_error_last(), want_text))
		fail_msg("got %d \"%s\", want %d \"...%s...\"", rc, ac_error_last(), want_rc,
			 want_text);
	assert_null(result.archive_path);
	after = tu_read_file(f->path, &after_len);
	assert_int_equal(after_len, before_len);
	assert_memory_equal(after, before, before_len);
	assert_int_equal(count_entries(archives), 0);
	ac_compact_result_free(&result);
	free(archives);
	free(before);
	free(after);
	json_decref(messages);
}

static void test_failing_summarizer(void **state)
{
	const char *const argv[] = {"/bin/sh", "-c", "cat >/dev/null; echo 'model down' >&2; exit 3",
				    NULL};

	expect_untouched_failure(*state, argv, AC_EIO,
				 "summarizer /bin/sh exited with status 3: model down");
}

static void test_missing_summarizer(void **state)
{
	const char *const argv[] = {"agentctl-no-such-summarizer", NULL};

	expect_untouched_failure(*state, argv, AC_ENOTFOUND,
				 "summarizer: cannot run 'agentctl-no-such-summarizer': "
				 "No such file or directory");
}

static void test_silent_summarizer(void **state)
{
	const char *const argv[] = {"/bin/sh", "-c", "cat >/dev/null; echo '  '", NULL};

	expect_untouched_failure(*state, argv, AC_EIO, "summarizer /bin/sh printed no summary");
}

static void test_non_utf8_summarizer(void **state)
{
	const char *const argv[] = {"/bin/sh", "-c", "cat >/dev/null; printf 'bad \\377\\n'", NULL};

	expect_untouched_failure(*state, argv, AC_EIO, "not UTF-8");
}

static void test_slow_summarizer(void **state)
{
	const char *const argv[] = {"/bin/sh", "-c", "sleep 10", NULL};
	json_t *messages = chat(4, 100);
	char *summary = NULL;

	(void)state;
	assert_int_equal(ac_summarize_command(&summary, argv, messages, 200), AC_EIO);
	assert_string_equal(ac_error_last(), "summarizer /bin/sh timed out after 200 ms");
	assert_null(summary);
	json_decref(messages);
}

static void test_external_summarizer(void **state)
{
	fixture *f = *state;
	char *capture = tu_path(f->dir, "stdin.json");
	const char *const argv[] = {"/bin/sh", "-c",
				    "cat > \"$0\"; printf '\\n  custom summary \\n\\n'", capture,
				    NULL};
	json_t *messages = chat(10, 200), *root, *got;
	ac_compact_options opts;
	ac_compact_result result;
	char *summary = NULL;

	create_session(f, ID, messages);
	options(&opts, true);
	opts.summarizer = argv;
	if (ac_compact_session(&result, f->dir, ID, &opts))
		fail_msg("compact: %s", ac_error_last());
	root = load_file(f->path);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(root, "conversationHistory"), 0),
				    "content")),
			    AC_SUMMARY_PREFIX "custom summary");
	/* It read the replaced messages as one JSON array. */
	got = load_file(capture);
	assert_int_equal(json_array_size(got), 5);
	for (size_t i = 0; i < 5; i++)
		assert_true(json_equal(json_array_get(got, i), json_array_get(messages, i)));

	assert_int_equal(ac_summarize_command(&summary, argv, messages, 5000), 0);
	assert_string_equal(summary, "custom summary");
	free(summary);
	json_decref(got);
	json_decref(root);
	json_decref(messages);
	free(capture);
	ac_compact_result_free(&result);
}

/* The summariser learns the session it works for as a whole "{id}"
 * argument and as AGENT_SESSION_ID (issue 11 item 3). */
static void test_summarizer_gets_session_id(void **state)
{
	fixture *f = *state;
	const char *const argv[] = {"/bin/sh", "-c",
				    "cat > /dev/null; printf 'for %s|%s' \"$0\" \"$AGENT_SESSION_ID\"",
				    "{id}", NULL};
	json_t *messages = chat(10, 200), *root;
	ac_compact_options opts;
	ac_compact_result result;

	create_session(f, ID, messages);
	options(&opts, true);
	opts.summarizer = argv;
	if (ac_compact_session(&result, f->dir, ID, &opts))
		fail_msg("compact: %s", ac_error_last());
	root = load_file(f->path);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(root, "conversationHistory"), 0),
				    "content")),
			    AC_SUMMARY_PREFIX "for " ID "|" ID);
	json_decref(root);
	json_decref(messages);
	ac_compact_result_free(&result);
}

/* A summariser that replaces the session file while it runs, standing in
 * for another writer: the replacement is kept, whatever it is. */
static void run_with_concurrent_writer(fixture *f, json_t *(*rewrite)(json_t *root),
				       int want_rc, json_t **out_root,
				       ac_compact_result *result)
{
	char *other = tu_path(f->dir, "other-writer.txt"), *text, *after;
	const char *const argv[] = {"/bin/sh", "-c", "cat >/dev/null; cp \"$0\" \"$1\"; echo s",
				    other, f->path, NULL};
	json_t *root = load_file(f->path);
	ac_compact_options opts;
	int rc;

	root = rewrite(root);
	text = json_dumps(root, JSON_INDENT(2));
	tu_write_file(other, text, strlen(text));
	options(&opts, true);
	opts.summarizer = argv;
	rc = ac_compact_session(result, f->dir, ID, &opts);
	if (rc != want_rc)
		fail_msg("got %d \"%s\", want %d", rc, ac_error_last(), want_rc);
	if (want_rc) {
		/* Exactly what the other writer wrote. */
		after = tu_read_file(f->path, NULL);
		assert_string_equal(after, text);
		free(after);
	}
	*out_root = load_file(f->path);
	free(text);
	free(other);
	json_decref(root);
}

static json_t *edit_first_message(json_t *root)
{
	json_object_set_new(json_array_get(json_object_get(root, "conversationHistory"), 0),
			    "content", json_string("edited by someone else"));
	return root;
}

static json_t *append_one(json_t *root)
{
	json_array_append_new(json_object_get(root, "conversationHistory"),
			      text_msg("user", "appended meanwhile"));
	return root;
}

static void test_changed_meanwhile(void **state)
{
	fixture *f = *state;
	json_t *messages = chat(10, 200), *root;
	char *archives = tu_path(f->dir, ".compactions/" ID);
	ac_compact_result result;

	create_session(f, ID, messages);
	run_with_concurrent_writer(f, edit_first_message, AC_ECONFLICT, &root, &result);
	assert_string_equal(ac_error_last(), "session " ID
			    " changed while it was being compacted; nothing was changed");
	assert_null(result.archive_path);
	assert_int_equal(count_entries(archives), 0);
	assert_int_equal(json_array_size(json_object_get(root, "conversationHistory")), 10);
	json_decref(root);
	json_decref(messages);
	free(archives);
}

static void test_appended_meanwhile(void **state)
{
	fixture *f = *state;
	json_t *messages = chat(10, 200), *root, *history;
	ac_compact_result result;

	create_session(f, ID, messages);
	run_with_concurrent_writer(f, append_one, 0, &root, &result);
	history = json_object_get(root, "conversationHistory");
	assert_int_equal(result.summarized, 5);
	assert_int_equal(result.messages_before, 11);
	assert_int_equal(result.messages_after, 7);
	assert_int_equal(json_array_size(history), 7);
	assert_true(json_equal(json_array_get(history, 5), json_array_get(messages, 9)));
	assert_string_equal(json_string_value(json_object_get(json_array_get(history, 6), "content")),
			    "appended meanwhile");
	assert_non_null(result.archive_path);
	json_decref(root);
	json_decref(messages);
	ac_compact_result_free(&result);
}

/* Seed writers saving while the summary is written (the guard is called on
 * each attempt, right before the change): turn A from a writer that saves
 * its own copy, then turn B from one that loads, appends and saves. Every
 * message must survive, in the file or in an archive the file names. The
 * old update let the second writer load the compacted version it had
 * published for a moment, then refused its own retry and deleted the
 * archive that version named. */
typedef struct {
	const char *dir;
	json_t *loaded_once; /* the first writer's copy, loaded before */
	int calls;
} compact_race;

static int seed_writers_meanwhile(const json_t *root, void *ctx)
{
	compact_race *r = ctx;

	(void)root;
	if (++r->calls == 1) {
		tu_add_turn(r->loaded_once, "turn A");
		tu_seed_save(r->dir, ID, r->loaded_once);
	} else if (r->calls == 2) {
		json_t *now = tu_seed_load(r->dir, ID);

		assert_non_null(now);
		tu_add_turn(now, "turn B");
		tu_seed_save(r->dir, ID, now);
		json_decref(now);
	}
	return 0;
}

static void test_seed_writers_during_the_swap_lose_nothing(void **state)
{
	fixture *f = *state;
	json_t *messages = chat(10, 200), *root, *compactions, *record, *archive_doc = NULL;
	json_t *archived = NULL;
	compact_race race = {f->dir, NULL, 0};
	ac_compact_options opts;
	ac_compact_result result;
	size_t i;

	create_session(f, ID, messages);
	race.loaded_once = tu_seed_load(f->dir, ID);
	options(&opts, true);
	opts.guard = seed_writers_meanwhile;
	opts.guard_ctx = &race;
	ac_compact_session(&result, f->dir, ID, &opts);
	root = load_file(f->path);
	compactions = json_object_get(json_object_get(root, "metadata"), "compactions");
	json_array_foreach(compactions, i, record) {
		char *archive = tu_path(f->dir, json_string_value(json_object_get(record, "archive")));

		assert_true(exists(archive)); /* named by the file: never deleted */
		json_decref(archive_doc);
		archive_doc = load_file(archive);
		archived = json_object_get(archive_doc, "messages");
		free(archive);
	}
	for (i = 0; i < json_array_size(messages); i++) {
		const char *text = json_string_value(json_object_get(json_array_get(messages, i), "content"));

		assert_true(tu_has_message(json_object_get(root, "conversationHistory"), text) ||
			    (archived && tu_has_message(archived, text)));
	}
	assert_true(tu_has_message(json_object_get(root, "conversationHistory"), "turn A"));
	assert_true(tu_has_message(json_object_get(root, "conversationHistory"), "turn B"));
	json_decref(race.loaded_once);
	json_decref(archive_doc);
	json_decref(root);
	json_decref(messages);
	ac_compact_result_free(&result);
}

static void test_bad_id_and_missing_session(void **state)
{
	fixture *f = *state;
	ac_compact_options opts;
	ac_compact_result result;

	options(&opts, true);
	assert_int_equal(ac_compact_session(&result, f->dir, "../etc", &opts), AC_EINVAL);
	assert_int_equal(ac_compact_session(&result, f->dir, "absent", &opts), AC_ENOTFOUND);
	assert_null(result.archive_path);
}

/* Two compactions in a row: each archive is its own file, and the second
 * archive starts with the first one's summary. */
static void test_twice(void **state)
{
	fixture *f = *state;
	json_t *messages = chat(16, 200), *archive;
	ac_compact_options opts;
	ac_compact_result first, second;
	const char *content;

	create_session(f, ID, messages);
	options(&opts, true);
	assert_int_equal(ac_compact_session(&first, f->dir, ID, &opts), 0);
	assert_int_equal(ac_compact_session(&second, f->dir, ID, &opts), 0);
	assert_int_equal(first.messages_after, 9);
	assert_int_equal(second.messages_before, 9);
	assert_int_equal(second.summarized, 4); /* seed 001: Math.floor(9 * 0.5) */
	assert_string_not_equal(first.archive_path, second.archive_path);
	assert_true(exists(first.archive_path));
	archive = load_file(second.archive_path);
	content = json_string_value(json_object_get(
		json_array_get(json_object_get(archive, "messages"), 0), "content"));
	assert_true(strncmp(content, AC_SUMMARY_PREFIX, strlen(AC_SUMMARY_PREFIX)) == 0);
	json_decref(archive);
	json_decref(messages);
	ac_compact_result_free(&first);
	ac_compact_result_free(&second);
}

static const char *const TOOL_HISTORY =
	"[{\"role\":\"system\",\"content\":\"You are helpful.\"},"
	"{\"role\":\"user\",\"content\":\"Fix the bug\\nin a.c\"},"
	"{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Reading.\"},"
	"{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"read_file\",\"input\":{\"path\":\"src/a.c\"}}]},"
	"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\","
	"\"content\":\"int main;\"}]},"
	"{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"edit_file\","
	"\"input\":{\"file_path\":\"src/b.c\",\"edits\":[{\"filePath\":\"src/c.c\"}]}}]},"
	"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t2\","
	"\"content\":\"ok\"}]},"
	"{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
	"\"function\":{\"name\":\"read_file\",\"arguments\":"
	"\"{\\\"path\\\":\\\"src/a.c\\\",\\\"paths\\\":[\\\"docs/x.md\\\",\\\"src/b.c\\\"]}\"}}]},"
	"{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"done\"},"
	"{\"role\":\"assistant\",\"content\":\"All fixed.\"}]";

static void test_builtin_summary(void **state)
{
	json_t *messages = parse(TOOL_HISTORY);
	char *summary = NULL, *again = NULL;
	const char *want_head =
		"9 messages compacted (user 3, assistant 4, tool 1, other 1).\n"
		"Tools used: read_file (2), edit_file (1)\n"
		"Files: src/a.c, src/b.c, src/c.c, docs/x.md\n"
		"Conversation:\n"
		"- system: You are helpful.\n"
		"- user: Fix the bug in a.c\n"
		"- assistant: Reading. [tool_use read_file {\"path\":\"src/a.c\"}]\n";
	const char *tail = "\n- assistant: All fixed.";

	(void)state;
	assert_int_equal(ac_summarize_builtin(&summary, messages), 0);
	if (strncmp(summary, want_head, strlen(want_head)) != 0)
		fail_msg("summary:\n%s", summary);
	assert_string_equal(summary + strlen(summary) - strlen(tail), tail);
	assert_int_equal(ac_summarize_builtin(&again, messages), 0);
	assert_string_equal(summary, again);
	free(summary);
	free(again);
	json_decref(messages);
}

static void test_builtin_long_history(void **state)
{
	json_t *messages = chat(70, 20);
	char *summary = NULL;

	(void)state;
	assert_int_equal(ac_summarize_builtin(&summary, messages), 0);
	assert_true(strncmp(summary, "70 messages compacted (user 35, assistant 35, tool 0).\n"
				     "Conversation:\n- user: message 0:", 70) == 0);
	assert_non_null(strstr(summary, "\n- assistant: message 29:"));
	assert_non_null(strstr(summary, "\n- \xe2\x80\xa6 (10 more messages)\n- user: message 40:"));
	assert_null(strstr(summary, "message 30:"));
	assert_null(strstr(summary, "message 39:"));
	assert_non_null(strstr(summary, "\n- assistant: message 69:"));
	free(summary);
	json_decref(messages);
}

static void test_builtin_cuts_lines(void **state)
{
	json_t *messages = json_array();
	char cjk[3 * 300 + 1], ascii[501];
	char *summary = NULL, *line;
	size_t len;

	(void)state;
	for (size_t i = 0; i < 300; i++)
		memcpy(cjk + 3 * i, "\xe6\xbc\xa2", 3); /* 漢 */
	cjk[900] = '\0';
	memset(ascii, 'a', 500);
	ascii[500] = '\0';
	json_array_append_new(messages, text_msg("user", cjk));
	json_array_append_new(messages, text_msg("assistant", ascii));
	assert_int_equal(ac_summarize_builtin(&summary, messages), 0);
	/* 66 whole characters (198 bytes), never a split one, then "…". */
	line = strstr(summary, "- user: ");
	assert_non_null(line);
	line += strlen("- user: ");
	len = (size_t)(strchr(line, '\n') - line);
	assert_int_equal(len, 198 + 3);
	assert_memory_equal(line + 198, "\xe2\x80\xa6", 3);
	line = strstr(summary, "- assistant: ");
	assert_non_null(line);
	line += strlen("- assistant: ");
	assert_int_equal(strlen(line), 200 + 3);
	free(summary);
	json_decref(messages);
}

/* The same bytes of CJK and of English: the CJK history passes a trigger
 * the English one does not. */
static void test_cjk_passes_trigger_sooner(void **state)
{
	fixture *f = *state;
	json_t *english = json_array(), *cjk = json_array();
	char en_text[3001], cjk_text[3001];
	ac_compact_options opts;
	ac_compact_result en_result, cjk_result;
	uint64_t en_tokens, cjk_tokens;

	for (size_t i = 0; i < 3000; i++)
		en_text[i] = "the quick brown fox jumps "[i % 26];
	en_text[3000] = '\0';
	for (size_t i = 0; i < 1000; i++)
		memcpy(cjk_text + 3 * i, i % 2 ? "\xe5\xad\x97" : "\xe6\xbc\xa2", 3);
	cjk_text[3000] = '\0';
	for (int i = 0; i < 4; i++) {
		json_array_append_new(english, text_msg(i % 2 ? "assistant" : "user", en_text));
		json_array_append_new(cjk, text_msg(i % 2 ? "assistant" : "user", cjk_text));
	}
	en_tokens = ac_messages_tokens(english);
	cjk_tokens = ac_messages_tokens(cjk);
	assert_true(cjk_tokens > en_tokens);
	create_session(f, "english", english);
	create_session(f, "cjk", cjk);
	options(&opts, false);
	opts.trigger_tokens = (en_tokens + cjk_tokens) / 2;
	opts.min_messages = 0; /* four messages: only the tokens matter here */
	assert_int_equal(ac_compact_session(&en_result, f->dir, "english", &opts), 0);
	assert_int_equal(ac_compact_session(&cjk_result, f->dir, "cjk", &opts), 0);
	assert_false(en_result.needed);
	assert_true(cjk_result.needed);
	assert_int_equal(cjk_result.summarized, 2);
	ac_compact_result_free(&en_result);
	ac_compact_result_free(&cjk_result);
	json_decref(english);
	json_decref(cjk);
}

/* The compaction fixture (tests/fixtures/): a 40-message session the seed's
 * writer saved turn by turn, over the trigger its project file sets (2000
 * tokens, fraction 0.5), with a tool call and its result straddling the
 * middle; and a small session below the trigger. Settings come from the
 * fixture's config, as the command line takes them. */
#define LONG_ID "5e551000-0000-4000-8000-000000000001"
#define SMALL_ID "5e551000-0000-4000-8000-000000000002"

static void test_fixture_session_over_the_trigger(void **state)
{
	(void)state;
	char *ws_dir = tu_copy_fixture("compaction"), *small, *small_before, *small_after;
	json_t *before, *after, *history, *archive;
	ac_config *config = NULL;
	ac_compact_result result;
	size_t before_len, after_len;
	ac_workspace ws;

	assert_int_equal(ac_config_load(&config, ws_dir), 0);
	assert_int_equal(ac_workspace_init(&ws, config), 0);
	assert_int_equal(ws.compact.trigger_tokens, 2000);
	assert_false(ws.compact.force);

	small = tu_path(ws.sessions_dir, SMALL_ID ".json");
	small_before = tu_read_file(small, &before_len);
	assert_int_equal(ac_compact_session(&result, ws.sessions_dir, SMALL_ID, &ws.compact), 0);
	assert_false(result.needed);
	small_after = tu_read_file(small, &after_len);
	assert_int_equal(after_len, before_len);
	assert_memory_equal(small_after, small_before, before_len);
	ac_compact_result_free(&result);

	assert_non_null(before = tu_seed_load(ws.sessions_dir, LONG_ID));
	assert_int_equal(ac_compact_session(&result, ws.sessions_dir, LONG_ID, &ws.compact), 0);
	assert_true(result.needed);
	assert_int_equal(result.messages_before, 40);
	assert_true(result.tokens_before > 2000);
	/* Half would be 20, between toolu_09's call (19) and its result (20). */
	assert_int_equal(result.summarized, 21);
	assert_non_null(after = tu_seed_load(ws.sessions_dir, LONG_ID));
	history = json_object_get(after, "conversationHistory");
	assert_int_equal(json_array_size(history), 40 - 21 + 1);
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(history, 0), "content")),
			       AC_SUMMARY_PREFIX));
	for (size_t i = 0; i <= json_array_size(history); i++)
		assert_true(ac_messages_safe_cut(history, i));
	/* Nothing is lost: the archive holds exactly the 21 replaced messages. */
	assert_non_null(archive = json_load_file(result.archive_path, 0, NULL));
	assert_int_equal(json_array_size(json_object_get(archive, "messages")), 21);
	for (size_t i = 0; i < 21; i++)
		assert_true(json_equal(json_array_get(json_object_get(archive, "messages"), i),
				       json_array_get(json_object_get(before, "conversationHistory"), i)));
	for (size_t i = 21; i < 40; i++)
		assert_true(json_equal(json_array_get(history, i - 20),
				       json_array_get(json_object_get(before, "conversationHistory"), i)));
	json_decref(archive);
	json_decref(after);
	json_decref(before);
	ac_compact_result_free(&result);
	free(small_before);
	free(small_after);
	free(small);
	ac_workspace_free(&ws);
	ac_config_free(config);
	tu_remove_tree(ws_dir);
	free(ws_dir);
}

/* compaction.minMessages (seed 001, default 20): a history over the
 * trigger but shorter than that is left alone; force still compacts it. */
static void test_min_messages(void **state)
{
	json_t *messages = json_array();
	ac_compact_options opts;
	ac_compact_result result;

	(void)state;
	for (int i = 0; i < 19; i++)
		json_array_append_new(messages, text_msg(i % 2 ? "assistant" : "user", "hello there"));
	options(&opts, false);
	assert_int_equal(opts.min_messages, 20);
	opts.trigger_tokens = 1;
	ac_compact_plan(&result, messages, &opts);
	assert_false(result.needed);
	assert_non_null(strstr(result.why_not, "compaction.minMessages"));
	json_array_append_new(messages, text_msg("assistant", "one more"));
	ac_compact_plan(&result, messages, &opts);
	assert_true(result.needed);
	json_array_remove(messages, 19);
	opts.force = true;
	ac_compact_plan(&result, messages, &opts);
	assert_true(result.needed);
	json_decref(messages);
}

/* ---- compacting from the file's text ---- */

/* The seed writer's layout; unicode, escapes, \u0000, numbers jansson
 * would rewrite (1e999, 0.1), two tool pairs. */
static const char *const SESSION_PRETTY =
	"{\n"
	"  \"id\": \"sess-1\",\n"
	"  \"createdAt\": \"2026-01-01T00:00:00.000Z\",\n"
	"  \"updatedAt\": \"2026-01-01T00:00:00.000Z\",\n"
	"  \"task\": \"tâche\",\n"
	"  \"status\": \"running\",\n"
	"  \"conversationHistory\": [\n"
	"    {\n"
	"      \"role\": \"user\",\n"
	"      \"content\": \"héllo — 日本語 😀 \\\"quoted\\\" back\\\\slash tab\\t nul\\u0000 end\"\n"
	"    },\n"
	"    {\n"
	"      \"role\": \"assistant\",\n"
	"      \"content\": [\n"
	"        {\n"
	"          \"type\": \"text\",\n"
	"          \"text\": \"reading\"\n"
	"        },\n"
	"        {\n"
	"          \"type\": \"tool_use\",\n"
	"          \"id\": \"t1\",\n"
	"          \"name\": \"Read\",\n"
	"          \"input\": {\n"
	"            \"path\": \"src/ü.c\",\n"
	"            \"n\": 1e999\n"
	"          }\n"
	"        }\n"
	"      ]\n"
	"    },\n"
	"    {\n"
	"      \"role\": \"user\",\n"
	"      \"content\": [\n"
	"        {\n"
	"          \"type\": \"tool_result\",\n"
	"          \"tool_use_id\": \"t1\",\n"
	"          \"content\": \"ok\"\n"
	"        }\n"
	"      ]\n"
	"    },\n"
	"    {\n"
	"      \"role\": \"assistant\",\n"
	"      \"content\": [\n"
	"        {\n"
	"          \"type\": \"tool_use\",\n"
	"          \"id\": \"t2\",\n"
	"          \"name\": \"Edit\",\n"
	"          \"input\": {\n"
	"            \"file_path\": \"a.c\"\n"
	"          }\n"
	"        }\n"
	"      ]\n"
	"    },\n"
	"    {\n"
	"      \"role\": \"user\",\n"
	"      \"content\": [\n"
	"        {\n"
	"          \"type\": \"tool_result\",\n"
	"          \"tool_use_id\": \"t2\",\n"
	"          \"content\": [\n"
	"            {\n"
	"              \"type\": \"text\",\n"
	"              \"text\": \"done   line\"\n"
	"            }\n"
	"          ]\n"
	"        }\n"
	"      ]\n"
	"    },\n"
	"    {\n"
	"      \"role\": \"assistant\",\n"
	"      \"content\": \"last\"\n"
	"    }\n"
	"  ],\n"
	"  \"metadata\": {\n"
	"    \"tenantId\": \"t\",\n"
	"    \"cost\": 0.1\n"
	"  }\n"
	"}";

/* The same history written compact (ASCII escapes, -0), with the history
 * first, space around the document, no metadata and no updatedAt. */
static const char *const SESSION_COMPACT =
	"\n"
	"  {\"conversationHistory\":[{\"role\":\"user\",\"content\":\"h\\u00e9llo \\u2014 \\u65e5\\u672c\\u8a9e \\ud83d\\ude00 \\\"quoted\\\" back\\\\slash tab\\t nul\\u0000 end\"},\n"
	"{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"reading\"},\n"
	"{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Read\",\"input\":{\"path\":\"src/\\u00fc.c\",\"n\":-0}}]},\n"
	"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"ok\"}]},\n"
	"{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"Edit\",\"input\":{\"file_path\":\"a.c\"}}]},\n"
	"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t2\",\"content\":[{\"type\":\"text\",\"text\":\"done \\u2028 line\"}]}]},\n"
	"{\"role\":\"assistant\",\"content\":\"last\"}],\"id\":\"sess-1\",\"createdAt\":\"2026-01-01T00:00:00.000Z\",\"task\":\"t\",\"status\":\"paused\"} \n"
	"";

/* Four-space layout; a bare string and a number as messages, OpenAI tool
 * calls answered by a role tool message, a repeated key, deep nesting, a
 * long integer, earlier compactions and an unknown top-level member. */
static const char *const SESSION_ODD_SHAPES =
	"{\n"
	"    \"id\": \"sess-1\",\n"
	"    \"createdAt\": \"2026-01-01T00:00:00.000Z\",\n"
	"    \"updatedAt\": \"x\",\n"
	"    \"status\": \"running\",\n"
	"    \"metadata\": {\n"
	"        \"compactions\": [\n"
	"            {\n"
	"                \"at\": \"old\",\n"
	"                \"archive\": \"old.json\"\n"
	"            }\n"
	"        ],\n"
	"        \"z\": []\n"
	"    },\n"
	"    \"conversationHistory\": [\n"
	"        \"a bare string\",\n"
	"        {\n"
	"            \"role\": \"assistant\",\n"
	"            \"content\": null,\n"
	"            \"tool_calls\": [\n"
	"                {\n"
	"                    \"id\": \"c1\",\n"
	"                    \"function\": {\n"
	"                        \"name\": \"Write\",\n"
	"                        \"arguments\": \"{\\\"path\\\":\\\"x.txt\\\"}\"\n"
	"                    }\n"
	"                }\n"
	"            ]\n"
	"        },\n"
	"        {\n"
	"            \"role\": \"tool\",\n"
	"            \"tool_call_id\": \"c1\",\n"
	"            \"content\": \"written\",\n"
	"            \"role\": \"tool\"\n"
	"        },\n"
	"        42,\n"
	"        {\n"
	"            \"role\": \"system\",\n"
	"            \"content\": \"s\",\n"
	"            \"deep\": {\n"
	"                \"a\": [\n"
	"                    {\n"
	"                        \"b\": {\n"
	"                            \"c\": [\n"
	"                                1,\n"
	"                                2,\n"
	"                                {\n"
	"                                    \"d\": \"e\"\n"
	"                                }\n"
	"                            ]\n"
	"                        }\n"
	"                    }\n"
	"                ]\n"
	"            }\n"
	"        },\n"
	"        {\n"
	"            \"role\": \"user\",\n"
	"            \"content\": \"bye\",\n"
	"            \"extra\": 123456789012345678901234567890\n"
	"        }\n"
	"    ],\n"
	"    \"unknownTop\": {\n"
	"        \"k\": [\n"
	"            true,\n"
	"            false,\n"
	"            null\n"
	"        ]\n"
	"    }\n"
	"}";


/* A summarise callback: the messages reach it as one array, so the
 * session is compacted from the parsed document (the old way). */
static int parsed_way(char **out, const json_t *messages, void *ctx)
{
	(void)ctx;
	return ac_summarize_builtin(out, messages);
}

static json_t *load_exact(const char *path)
{
	size_t len = 0;
	char *text = tu_read_file(path, &len);
	json_t *root = NULL;

	if (ac_json_exact_load(&root, text, len, 0, path))
		fail_msg("%s", ac_error_last());
	free(text);
	return root;
}

/* Compacts session_text at fraction from its text (f's folder) and from
 * the parsed document (a second folder): the same counts, the same archive
 * bytes, and the same session bytes once the parsed way's times and archive
 * name are the text way's. */
static void expect_both_ways_alike(fixture *f, const char *session_text, double fraction,
				   size_t want_cut)
{
	char *dir = tu_make_temp_dir(), *path = tu_path(dir, ID ".json");
	char *text_archive, *parsed_archive, *text_file, *parsed_file;
	json_t *text_root, *parsed_root, *text_record, *parsed_record;
	ac_compact_options opts;
	ac_compact_result text_way, parsed;
	size_t len;

	tu_write_file(f->path, session_text, strlen(session_text));
	tu_write_file(path, session_text, strlen(session_text));
	options(&opts, true);
	opts.fraction = fraction;
	if (ac_compact_session(&text_way, f->dir, ID, &opts))
		fail_msg("text way: %s", ac_error_last());
	opts.summarize = parsed_way;
	if (ac_compact_session(&parsed, dir, ID, &opts))
		fail_msg("parsed way: %s", ac_error_last());
	assert_int_equal(text_way.summarized, want_cut);
	assert_int_equal(parsed.summarized, want_cut);
	assert_int_equal(text_way.messages_before, parsed.messages_before);
	assert_int_equal(text_way.messages_after, parsed.messages_after);
	assert_int_equal(text_way.tokens_before, parsed.tokens_before);
	assert_int_equal(text_way.tokens_after, parsed.tokens_after);

	text_archive = tu_read_file(text_way.archive_path, NULL);
	parsed_archive = tu_read_file(parsed.archive_path, NULL);
	assert_string_equal(text_archive, parsed_archive);

	text_root = load_exact(f->path);
	parsed_root = load_exact(path);
	text_record = json_array_get(json_object_get(json_object_get(text_root, "metadata"),
						     "compactions"),
				     json_array_size(json_object_get(
					     json_object_get(text_root, "metadata"), "compactions")) - 1);
	parsed_record = json_array_get(json_object_get(json_object_get(parsed_root, "metadata"),
						       "compactions"),
				       json_array_size(json_object_get(
					       json_object_get(parsed_root, "metadata"), "compactions")) - 1);
	json_object_set(parsed_root, "updatedAt", json_object_get(text_root, "updatedAt"));
	json_object_set(parsed_record, "at", json_object_get(text_record, "at"));
	json_object_set(parsed_record, "archive", json_object_get(text_record, "archive"));
	text_file = tu_read_file(f->path, NULL);
	parsed_file = ac_json_exact_dumps(parsed_root, JSON_INDENT(2), &len);
	assert_non_null(parsed_file);
	assert_string_equal(text_file, parsed_file);

	free(text_archive);
	free(parsed_archive);
	free(text_file);
	free(parsed_file);
	json_decref(text_root);
	json_decref(parsed_root);
	ac_compact_result_free(&text_way);
	ac_compact_result_free(&parsed);
	tu_remove_tree(dir);
	free(path);
	free(dir);
}

static void test_text_way_pretty_unicode_numbers(void **state)
{
	/* floor(0.7 * 6) = 4 would part t2's call (3) from its result (4). */
	expect_both_ways_alike(*state, SESSION_PRETTY, 0.7, 5);
	expect_both_ways_alike(*state, SESSION_PRETTY, 0.5, 3);
}

static void test_text_way_compact_input(void **state)
{
	expect_both_ways_alike(*state, SESSION_COMPACT, 0.7, 5);
	/* floor(0.4 * 6) = 2 would part t1's call (1) from its result (2). */
	expect_both_ways_alike(*state, SESSION_COMPACT, 0.4, 3);
}

static void test_text_way_odd_shapes(void **state)
{
	/* floor(0.4 * 6) = 2 would part c1's call (1) from its result (2). */
	expect_both_ways_alike(*state, SESSION_ODD_SHAPES, 0.4, 3);
	expect_both_ways_alike(*state, SESSION_ODD_SHAPES, 1, 6);
}

/* A tool pair whose keys and types are spelt with \u escapes (no "tool" in
 * the raw text) still holds the cut. */
static const char *const SESSION_ESCAPED_KEYS =
	"{\"id\":\"sess-1\",\"status\":\"running\",\"conversationHistory\":["
	"{\"role\":\"user\",\"content\":\"a\"},"
	"{\"role\":\"assistant\",\"content\":[{\"type\":\"\\u0074ool_use\",\"id\":\"t1\","
	"\"name\":\"Read\",\"input\":{}}]},"
	"{\"role\":\"user\",\"content\":[{\"\\u0074ype\":\"\\u0074ool_result\","
	"\"\\u0074ool_use_id\":\"t1\",\"content\":\"ok\"}]},"
	"{\"role\":\"assistant\",\"content\":\"b\"}]}";

static void test_text_way_escaped_keys(void **state)
{
	/* floor(0.5 * 4) = 2 would part t1's call (1) from its result (2). */
	expect_both_ways_alike(*state, SESSION_ESCAPED_KEYS, 0.5, 3);
}

/* A long history: the built-in summary's two ends and the archive of
 * 2,500 messages come out the same one message at a time. */
static void test_text_way_long_history(void **state)
{
	fixture *f = *state;
	json_t *messages = chat(5000, 40), *root;
	char *text;

	root = json_pack("{s:s, s:s, s:s, s:O}", "id", ID, "createdAt", "2026-01-01T00:00:00.000Z",
			 "status", "running", "conversationHistory", messages);
	text = json_dumps(root, JSON_INDENT(2));
	expect_both_ways_alike(f, text, 0.5, 2500);
	free(text);
	json_decref(root);
	json_decref(messages);
}

/* The file is replaced by another writer after the archive is written: the
 * text way's document is not written; the change is made again on the
 * new content, parsed, and the appended message is kept. */
static void append_by_another_writer(void *ctx)
{
	fixture *f = ctx;
	json_t *root = tu_seed_load(f->dir, ID);

	assert_non_null(root);
	tu_add_turn(root, "saved by the agent meanwhile");
	tu_seed_save(f->dir, ID, root);
	json_decref(root);
}

static void test_text_way_writer_after_archive(void **state)
{
	fixture *f = *state;
	json_t *messages = chat(10, 50), *root, *history, *archive;
	ac_compact_options opts;
	ac_compact_result result;
	char *text;

	root = json_pack("{s:s, s:s, s:O}", "id", ID, "status", "running", "conversationHistory",
			 messages);
	text = json_dumps(root, JSON_COMPACT);
	tu_write_file(f->path, text, strlen(text));
	free(text);
	json_decref(root);
	options(&opts, true);
	opts.after_archive = append_by_another_writer;
	opts.after_archive_ctx = f;
	if (ac_compact_session(&result, f->dir, ID, &opts))
		fail_msg("%s", ac_error_last());
	assert_int_equal(result.summarized, 5);
	root = load_file(f->path);
	history = json_object_get(root, "conversationHistory");
	assert_int_equal(json_array_size(history), 1 + 5 + 1);
	assert_true(json_equal(json_array_get(history, 1), json_array_get(messages, 5)));
	assert_true(tu_has_message(history, "saved by the agent meanwhile"));
	archive = load_file(result.archive_path);
	assert_int_equal(json_array_size(json_object_get(archive, "messages")), 5);
	assert_true(json_equal(json_array_get(json_object_get(archive, "messages"), 4),
			       json_array_get(messages, 4)));
	json_decref(archive);
	json_decref(messages);
	json_decref(root);
	ac_compact_result_free(&result);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_plan),
		cmocka_unit_test_setup_teardown(test_below_trigger_unchanged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_options_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_force_compacts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tool_pair_not_split, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failing_summarizer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_summarizer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_silent_summarizer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_non_utf8_summarizer, setup, teardown),
		cmocka_unit_test(test_slow_summarizer),
		cmocka_unit_test_setup_teardown(test_external_summarizer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summarizer_gets_session_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_meanwhile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_appended_meanwhile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seed_writers_during_the_swap_lose_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_id_and_missing_session, setup, teardown),
		cmocka_unit_test_setup_teardown(test_twice, setup, teardown),
		cmocka_unit_test(test_builtin_summary),
		cmocka_unit_test(test_builtin_long_history),
		cmocka_unit_test(test_builtin_cuts_lines),
		cmocka_unit_test_setup_teardown(test_cjk_passes_trigger_sooner, setup, teardown),
		cmocka_unit_test(test_fixture_session_over_the_trigger),
		cmocka_unit_test(test_min_messages),
		cmocka_unit_test_setup_teardown(test_text_way_pretty_unicode_numbers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_way_compact_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_way_odd_shapes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_way_escaped_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_way_long_history, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_way_writer_after_archive, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
