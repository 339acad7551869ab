/* The format-drift canary and the transcript cache (ac_source_canary.c,
 * ac_source_index.c, ac_source_cache.c): what each source's folders held
 * that its reader did not take, summed per source; and a cache written and
 * read back whole, its bad records dropped one by one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_source.h"
#include "ac_source_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WS "/work/fixture-project"
#define S1_PATH "/.claude/projects/-work-fixture-project/6f1c2a9e-3b7d-4c1e-9a55-0d2e4f6a8b10.jsonl"
#define CHATS "/.gemini/tmp/747424084ee33457bf25e37cb475c633f7c039d0929285912c1658a2b887d688/chats"
#define DAY "/.codex/sessions/2025/10/01"

typedef tu_sources fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	tu_sources_open(f, "sources/home", WS);
	tu_sources_dir(f, AC_SOURCE_CLAUDE, "/.claude/projects");
	tu_sources_dir(f, AC_SOURCE_CODEX, "/.codex/sessions");
	tu_sources_dir(f, AC_SOURCE_GEMINI, "/.gemini/tmp");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	tu_sources_close(*state);
	free(*state);
	return 0;
}

static void refresh(fixture *f)
{
	if (!f->index)
		assert_int_equal(ac_source_index_new(&f->index, &f->opts), 0);
	assert_int_equal(ac_source_index_refresh(f->index, NULL), 0);
}

/* The count under name in t (0 when absent). */
static size_t count_of(const ac_source_tally *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->items[i].name, name))
			return t->items[i].count;
	return 0;
}

static size_t names(const ac_source_tally *t)
{
	return t->n;
}

static void append(fixture *f, const char *rel, const char *text)
{
	char *path = tu_path(f->home, rel);

	tu_append_file(path, text, strlen(text));
	free(path);
}

static const char world_state[] =
	"{\"type\":\"world_state\",\"cwd\":\"" WS "\",\"timestamp\":\"2025-10-01T10:00:30.000Z\"}\n";

/* Unknown record types are summed over a source's transcripts;
 * transcript-like names no walk takes are counted by
 * pattern, per source; other files are not; a later refresh counts anew. */
static void test_drift_is_summed_per_source(void **state)
{
	fixture *f = *state;
	const ac_source_drift *claude, *codex, *gemini;
	ac_buf line = AC_BUF_INIT;

	append(f, S1_PATH, world_state);
	append(f, S1_PATH, world_state);
	append(f, S1_PATH, world_state);
	append(f, S1_PATH, "{\"type\":\"plan\",\"timestamp\":\"2025-10-01T10:00:31.000Z\"}\n");
	tu_put(f->home, CHATS "/chat-2026-06-01T10-00-ab.jsonl", "{}\n");
	tu_put(f->home, CHATS "/chat-2026-06-02T10-00-cd.jsonl", "{}\n");
	tu_put(f->home, CHATS "/agent-1.meta.json", "{}\n"); /* a side file */
	tu_put(f->home, CHATS "/notes.txt", "x\n");          /* no transcript's extension */
	tu_put(f->home, DAY "/rollout-2025-10-01T13-00-00-0199.jsonl.zst", "x");
	refresh(f);

	claude = ac_source_index_drift(f->index, AC_SOURCE_CLAUDE);
	codex = ac_source_index_drift(f->index, AC_SOURCE_CODEX);
	gemini = ac_source_index_drift(f->index, AC_SOURCE_GEMINI);
	assert_int_equal(count_of(&claude->types, "world_state"), 3);
	assert_int_equal(count_of(&claude->types, "plan"), 1);
	assert_int_equal(names(&claude->types), 2);
	assert_int_equal(names(&claude->files), 0);
	assert_int_equal(count_of(&gemini->files, "chat-*.jsonl"), 2);
	assert_int_equal(names(&gemini->files), 1);
	/* A compressed rollout is read now (as archived Codex writes it). */
	assert_int_equal(names(&codex->files), 0);
	/* The fixture's older rollout holds one record of a type to come. */
	assert_int_equal(count_of(&codex->types, "some_future_type"), 1);
	assert_int_equal(names(&codex->types), 1);

	assert_int_equal(ac_source_drift_describe(&line, AC_SOURCE_GEMINI, gemini), 0);
	assert_string_equal(line.data, "gemini: 2 chat-*.jsonl not read");
	ac_buf_clear(&line);
	assert_int_equal(ac_source_drift_describe(&line, AC_SOURCE_CLAUDE, claude), 0);
	assert_non_null(strstr(line.data, "claude: 3 records of type world_state skipped"));
	assert_non_null(strstr(line.data, "claude: 1 record of type plan skipped"));
	ac_buf_free(&line);

	/* Gone: counted no more (nothing stale kept between refreshes). */
	{
		char *a = tu_path(f->home, CHATS "/chat-2026-06-01T10-00-ab.jsonl");
		char *b = tu_path(f->home, CHATS "/chat-2026-06-02T10-00-cd.jsonl");

		unlink(a);
		unlink(b);
		free(a);
		free(b);
	}
	refresh(f);
	gemini = ac_source_index_drift(f->index, AC_SOURCE_GEMINI);
	assert_int_equal(names(&gemini->files), 0);
	assert_int_equal(count_of(&ac_source_index_drift(f->index, AC_SOURCE_CLAUDE)->types,
				  "world_state"), 3);
}

/* A new process reports the same record types from the cache, reading
 * nothing again. */
static void test_drift_survives_the_cache(void **state)
{
	fixture *f = *state;
	char *cache = tu_make_temp_dir();
	size_t read = 99, n;
	ac_source_session *const *list;

	f->opts.cache_dir = strdup(cache);
	append(f, S1_PATH, world_state);
	refresh(f);
	ac_source_index_free(f->index);
	f->index = NULL;
	assert_int_equal(ac_source_index_new(&f->index, &f->opts), 0);
	assert_int_equal(ac_source_index_refresh(f->index, &read), 0);
	assert_int_equal(read, 0);
	list = ac_source_index_list(f->index, &n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(list[i]->bytes_parsed, 0);
	assert_int_equal(count_of(&ac_source_index_drift(f->index, AC_SOURCE_CLAUDE)->types,
				  "world_state"), 1);
	tu_remove_tree(cache);
	free(cache);
}

static void test_patterns(void **state)
{
	static const struct {
		const char *name, *pattern;
	} cases[] = {
		{"session-2026-06-01T10-00-abcd.jsonl", "session-*.jsonl"},
		{"rollout-2025-10-01T00-00-00-0199.jsonl.zst", "rollout-*.jsonl.zst"},
		{"0000063b-0000-4000-8000-00000000063b.jsonl", "*.jsonl"},
		{"logs.json", "logs.json"},
		{"chat_7.ndjson.gz", "chat_*.ndjson.gz"},
		{"agent-1.meta.json", NULL},
		{"notes.txt", NULL},
		{".hidden.jsonl", NULL},
		{"session-1.json.bak", NULL},
	};
	ac_buf out = AC_BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		bool is = ac_source_canary_pattern(&out, cases[i].name);

		if (!cases[i].pattern) {
			assert_false(is);
			continue;
		}
		assert_true(is);
		assert_string_equal(out.data, cases[i].pattern);
	}
	/* A name's bytes are escaped in its pattern. */
	assert_true(ac_source_canary_pattern(&out, "x\033]0;.json"));
	assert_null(strchr(out.data, '\033'));
	ac_buf_free(&out);
}

/* 16 names are kept, the rest counted as other. */
static void test_tally_keeps_16_names(void **state)
{
	ac_source_tally t = {0};
	char name[16];

	(void)state;
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "t%d", i);
		assert_int_equal(ac_source_tally_add(&t, name, 2), 0);
	}
	assert_int_equal(ac_source_tally_add(&t, "t0", 1), 0);
	assert_int_equal(t.n, 16);
	assert_int_equal(t.other, 8);
	assert_int_equal(count_of(&t, "t0"), 3);
	ac_source_tally_free(&t);
}

/* ---- the cache ---- */

typedef struct {
	ac_source_session *got[8];
	size_t n;
} collected;

static int collect(ac_source_session *s, void *ctx)
{
	collected *c = ctx;

	assert_true(c->n < 8);
	c->got[c->n++] = s;
	return 0;
}

static void free_collected(collected *c)
{
	for (size_t i = 0; i < c->n; i++)
		ac_source_session_free(c->got[i]);
	c->n = 0;
}

static ac_source_session *sample(const char *path, const char *id)
{
	ac_source_session *s;

	assert_int_equal(ac_source_session_new(&s, AC_SOURCE_CODEX, path), 0);
	s->id = strdup(id);
	s->cwd = strdup("/w/é");
	s->task = strdup("Fix\nthe parser");
	s->title = strdup("A title");
	s->model = strdup("gpt-5-codex");
	s->started = strdup("2025-10-01T00:00:00.000Z");
	s->updated = strdup("2025-10-01T00:10:00.000Z");
	s->parent_id = strdup("0199-parent");
	s->relation = AC_SOURCE_FORK;
	s->messages = 12;
	s->malformed = 1;
	s->turn = AC_TURN_AGENT;
	s->awaiting_approval = true;
	s->offset = 900;
	s->size = 1000;
	s->dev = 7;
	s->ino = 99;
	s->mtime_ns = 1795768962614527811;
	for (int i = 0; i < 10; i++) {
		char type[16];

		snprintf(type, sizeof(type), "kind%d", i);
		assert_int_equal(ac_source_note_unknown(s, type), 0);
	}
	assert_int_equal(ac_source_note_unknown(s, "kind0"), 0);
	assert_int_equal(ac_source_pending_add(s, "call_1"), 0);
	assert_int_equal(ac_source_pending_add(s, "call_2"), 0);
	return s;
}

static void assert_same(const ac_source_session *a, const ac_source_session *b)
{
	assert_string_equal(a->path, b->path);
	assert_int_equal(a->kind, b->kind);
	assert_string_equal(a->id, b->id);
	assert_string_equal(a->cwd, b->cwd);
	assert_string_equal(a->task, b->task);
	assert_string_equal(a->title, b->title);
	assert_string_equal(a->model, b->model);
	assert_string_equal(a->started, b->started);
	assert_string_equal(a->updated, b->updated);
	assert_string_equal(a->parent_id, b->parent_id);
	assert_int_equal(a->relation, b->relation);
	assert_int_equal(a->messages, b->messages);
	assert_int_equal(a->malformed, b->malformed);
	assert_int_equal(a->turn, b->turn);
	assert_int_equal(a->awaiting_approval, b->awaiting_approval);
	assert_int_equal(a->offset, b->offset);
	assert_int_equal(a->size, b->size);
	assert_int_equal(a->dev, b->dev);
	assert_int_equal(a->ino, b->ino);
	assert_int_equal(a->mtime_ns, b->mtime_ns);
	assert_int_equal(b->mtime_ms, b->mtime_ns / 1000000);
	assert_int_equal(a->nunknown, b->nunknown);
	for (size_t i = 0; i < a->nunknown; i++) {
		assert_string_equal(a->unknown[i].type, b->unknown[i].type);
		assert_int_equal(a->unknown[i].count, b->unknown[i].count);
	}
	assert_int_equal(a->unknown_other, b->unknown_other);
	assert_int_equal(a->npending, b->npending);
	for (size_t i = 0; i < a->npending; i++)
		assert_string_equal(a->pending[i], b->pending[i]);
	assert_null(b->waiting_reason); /* read fresh from status files, never cached */
}

/* What is saved is read back field for field; a session with nothing
 * read (offset 0) is not saved. */
static void test_cache_round_trip(void **state)
{
	char *dir = tu_make_temp_dir(), *file = tu_path(dir, "sub/sources-x.bin");
	ac_source_session *s[3];
	collected c = {0};

	(void)state;
	s[0] = sample("/h/.codex/a.jsonl", "0199-a");
	s[1] = sample("/h/.codex/b.jsonl", "0199-b");
	s[1]->relation = AC_SOURCE_SUBAGENT;
	s[1]->waiting_reason = strdup("approve Bash");
	assert_int_equal(ac_source_session_new(&s[2], AC_SOURCE_CLAUDE, "/h/unread.jsonl"), 0);
	assert_int_equal(ac_source_cache_save(file, s, 3), 0);
	assert_int_equal(ac_source_cache_load(file, collect, &c), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.got[0]->nunknown, AC_SOURCE_UNKNOWN_TYPES);
	assert_int_equal(c.got[0]->unknown_other, 2);
	assert_int_equal(c.got[0]->unknown[0].count, 2);
	assert_same(s[0], c.got[0]);
	assert_same(s[1], c.got[1]);
	free_collected(&c);
	for (int i = 0; i < 3; i++)
		ac_source_session_free(s[i]);
	tu_remove_tree(dir);
	free(dir);
	free(file);
}

/* Flips the byte at the first occurrence of what in the file (after skip
 * occurrences) to to. */
static void patch(const char *file, const char *what, size_t skip, char to)
{
	size_t len;
	char *text = tu_read_file(file, &len), *at = text;

	for (;;) {
		at = memmem(at, len - (size_t)(at - text), what, strlen(what));
		assert_non_null(at);
		if (!skip--)
			break;
		at++;
	}
	*at = to;
	tu_write_file(file, text, len);
	free(text);
}

/* The cache is input: a bad record is dropped alone, a torn end ends the
 * load, another file format is no cache at all. */
static void test_cache_bad_records(void **state)
{
	char *dir = tu_make_temp_dir(), *file = tu_path(dir, "sources-x.bin");
	ac_source_session *s[3];
	collected c = {0};
	size_t len;
	char *text;

	(void)state;
	s[0] = sample("/h/a.jsonl", "0199-a");
	s[1] = sample("/h/b.jsonl", "0199-b");
	s[2] = sample("/h/c.jsonl", "0199-c");

	/* A string that is not UTF-8: that record alone is dropped. */
	assert_int_equal(ac_source_cache_save(file, s, 3), 0);
	patch(file, "0199-b", 0, (char)0xff);
	assert_int_equal(ac_source_cache_load(file, collect, &c), 0);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.got[0]->id, "0199-a");
	assert_string_equal(c.got[1]->id, "0199-c");
	free_collected(&c);

	/* A NUL inside a string, likewise. */
	assert_int_equal(ac_source_cache_save(file, s, 3), 0);
	patch(file, "0199-c", 0, '\0');
	assert_int_equal(ac_source_cache_load(file, collect, &c), 0);
	assert_int_equal(c.n, 2);
	free_collected(&c);

	/* An offset past the size read: dropped. */
	s[1]->offset = 5000;
	assert_int_equal(ac_source_cache_save(file, s, 3), 0);
	s[1]->offset = 900;
	assert_int_equal(ac_source_cache_load(file, collect, &c), 0);
	assert_int_equal(c.n, 2);
	free_collected(&c);

	/* Torn: the records before the tear are kept. */
	assert_int_equal(ac_source_cache_save(file, s, 3), 0);
	text = tu_read_file(file, &len);
	tu_write_file(file, text, len - 10);
	free(text);
	assert_int_equal(ac_source_cache_load(file, collect, &c), 0);
	assert_int_equal(c.n, 2);
	free_collected(&c);

	/* Not ours: the JSON cache of before, garbage, a folder. */
	tu_write_file(file, "{\"version\":1,\"files\":[]}", 24);
	assert_int_equal(ac_source_cache_load(file, collect, &c), 0);
	assert_int_equal(c.n, 0);
	unlink(file);
	assert_int_equal(mkdir(file, 0700), 0);
	assert_int_equal(ac_source_cache_load(file, collect, &c), 0);
	assert_int_equal(c.n, 0);

	for (int i = 0; i < 3; i++)
		ac_source_session_free(s[i]);
	tu_remove_tree(dir);
	free(dir);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_drift_is_summed_per_source, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drift_survives_the_cache, setup, teardown),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_tally_keeps_16_names),
		cmocka_unit_test(test_cache_round_trip),
		cmocka_unit_test(test_cache_bad_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
