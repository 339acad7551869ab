/* The layered configuration: which layer wins (command line > project
 * file > user file > environment > defaults), the origin reported for each
 * key, nested and flat keys, type errors that name their file or variable,
 * path resolution, and the workspace settings read from it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_buf.h"
#include "ac_config.h"
#include "ac_error.h"
#include "ac_journal.h"
#include "ac_json_exact.h"
#include "ac_workspace.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

typedef struct {
	char *dir;       /* holds both folders below */
	char *ws;        /* the workspace */
	char *xdg;       /* $XDG_CONFIG_HOME for this test */
	char *project;   /* <ws>/.agent/config.json */
	char *agentrc;   /* <ws>/.agentrc.json */
	char *user;      /* <xdg>/agent/config.json */
	char *state;     /* $XDG_STATE_HOME for this test */
	ac_config *config;
} fixture;

/* Removes every AGENT_* variable, so neither the caller's environment nor
 * an earlier test leaks into a test. */
static void unset_agent_env(void)
{
	for (;;) {
		char name[256] = "";

		for (char **e = environ; *e; e++) {
			const char *eq = strchr(*e, '=');

			if (!strncmp(*e, "AGENT_", 6) && eq && (size_t)(eq - *e) < sizeof(name)) {
				memcpy(name, *e, (size_t)(eq - *e));
				name[eq - *e] = '\0';
				break;
			}
		}
		if (!*name)
			return;
		unsetenv(name);
	}
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	char *agent_dir, *xdg_agent_dir;

	f->dir = tu_make_temp_dir();
	f->ws = tu_path(f->dir, "ws");
	f->xdg = tu_path(f->dir, "xdg");
	agent_dir = tu_path(f->ws, ".agent");
	xdg_agent_dir = tu_path(f->xdg, "agent");
	assert_int_equal(mkdir(f->ws, 0755), 0);
	assert_int_equal(mkdir(agent_dir, 0755), 0);
	assert_int_equal(mkdir(f->xdg, 0755), 0);
	assert_int_equal(mkdir(xdg_agent_dir, 0755), 0);
	f->project = tu_path(agent_dir, "config.json");
	f->agentrc = tu_path(f->ws, ".agentrc.json");
	f->user = tu_path(xdg_agent_dir, "config.json");
	free(agent_dir);
	free(xdg_agent_dir);
	unset_agent_env();
	assert_int_equal(setenv("XDG_CONFIG_HOME", f->xdg, 1), 0);
	/* Trust keeps its copies in the state folder: the test's own. */
	f->state = tu_path(f->dir, "state");
	assert_int_equal(setenv("XDG_STATE_HOME", f->state, 1), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	unset_agent_env();
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_STATE_HOME");
	free(f->state);
	ac_config_free(f->config);
	tu_remove_tree(f->dir);
	free(f->dir);
	free(f->ws);
	free(f->xdg);
	free(f->project);
	free(f->agentrc);
	free(f->user);
	free(f);
	return 0;
}

static void put_file(const char *path, const char *text)
{
	tu_write_file(path, text, strlen(text));
}

/* Loads f->config, which must succeed. */
static ac_config *load(fixture *f)
{
	int rc = ac_config_load(&f->config, f->ws);

	if (rc != 0)
		fail_msg("ac_config_load: %d: %s", rc, ac_error_last());
	assert_non_null(f->config);
	return f->config;
}

/* Loads and expects AC_EINVAL with a message that holds each of the given
 * strings (NULL-terminated list). */
static void load_fails(fixture *f, ...)
{
	ac_config *config = NULL;
	const char *want;
	va_list ap;

	assert_int_equal(ac_config_load(&config, f->ws), AC_EINVAL);
	va_start(ap, f);
	while ((want = va_arg(ap, const char *)))
		if (!strstr(ac_error_last(), want))
			fail_msg("error '%s' does not mention '%s'", ac_error_last(), want);
	va_end(ap);
	/* A failed load hands nothing back to free. */
	assert_null(config);
}

static void assert_origin(const ac_config *c, const char *key, const char *origin)
{
	const char *got = ac_config_origin(c, key);

	if (!got || strcmp(got, origin))
		fail_msg("origin of %s: want '%s', got '%s'", key, origin, got ? got : "(null)");
}

/* ---- layers ---- */

static void test_defaults(void **state)
{
	ac_config *c = load(*state);
	json_t *approval = ac_config_get(c, "requireApproval");

	assert_string_equal(ac_config_string(c, "model", NULL), "claude-sonnet-4-5");
	assert_int_equal(ac_config_int(c, "maxTokens", -1), 8192);
	assert_true(json_is_number(ac_config_get(c, "temperature")));
	assert_true(json_number_value(ac_config_get(c, "temperature")) == 0.0);
	assert_true(json_is_array(approval));
	assert_int_equal(json_array_size(approval), 3);
	assert_string_equal(json_string_value(json_array_get(approval, 0)), "write_file");
	assert_string_equal(json_string_value(json_array_get(approval, 1)), "delete_file");
	assert_string_equal(json_string_value(json_array_get(approval, 2)), "run_command");
	assert_string_equal(ac_config_string(c, "sessionDir", NULL), ".agent/sessions");
	for (const char *const *k = (const char *const[]){"model", "maxTokens", "temperature",
							   "requireApproval", "sessionDir", NULL};
	     *k; k++)
		assert_origin(c, *k, "default");
	assert_null(ac_config_get(c, "no.such.key"));
	assert_null(ac_config_origin(c, "no.such.key"));
	assert_string_equal(ac_config_string(c, "no.such.key", "fb"), "fb");
	assert_int_equal(ac_config_int(c, "no.such.key", 77), 77);
	assert_string_equal(ac_config_workspace(c), ((fixture *)*state)->ws);
}

static void test_environment_over_defaults(void **state)
{
	fixture *f = *state;
	ac_config *c;

	setenv("AGENT_MAX_TOKENS", "100", 1);
	setenv("AGENT_MODEL", "env-model", 1);
	setenv("AGENT_SESSION_DIR", "env/sessions", 1);
	setenv("AGENT_TEMPERATURE", "0.5", 1);
	c = load(f);
	assert_int_equal(ac_config_int(c, "maxTokens", -1), 100);
	assert_origin(c, "maxTokens", "environment AGENT_MAX_TOKENS");
	assert_string_equal(ac_config_string(c, "model", NULL), "env-model");
	assert_origin(c, "model", "environment AGENT_MODEL");
	assert_string_equal(ac_config_string(c, "sessionDir", NULL), "env/sessions");
	assert_origin(c, "sessionDir", "environment AGENT_SESSION_DIR");
	assert_true(json_number_value(ac_config_get(c, "temperature")) == 0.5);
	assert_origin(c, "temperature", "environment AGENT_TEMPERATURE");
	/* Keys without a variable keep their default. */
	assert_origin(c, "requireApproval", "default");
}

static void test_user_file_over_environment(void **state)
{
	fixture *f = *state;
	ac_config *c;

	setenv("AGENT_MAX_TOKENS", "100", 1);
	setenv("AGENT_MODEL", "env-model", 1);
	put_file(f->user, "{\"maxTokens\": 200}");
	c = load(f);
	assert_int_equal(ac_config_int(c, "maxTokens", -1), 200);
	assert_origin(c, "maxTokens", f->user);
	assert_string_equal(ac_config_string(c, "model", NULL), "env-model");
	assert_origin(c, "model", "environment AGENT_MODEL");
}

static void test_project_file_over_user_file(void **state)
{
	fixture *f = *state;
	ac_config *c;

	setenv("AGENT_MAX_TOKENS", "100", 1);
	setenv("AGENT_SESSION_DIR", "env/sessions", 1);
	put_file(f->user, "{\"maxTokens\": 200, \"model\": \"user-model\"}");
	put_file(f->project, "{\"maxTokens\": 300}");
	c = load(f);
	assert_int_equal(ac_config_int(c, "maxTokens", -1), 300);
	assert_origin(c, "maxTokens", f->project);
	assert_string_equal(ac_config_string(c, "model", NULL), "user-model");
	assert_origin(c, "model", f->user);
	assert_string_equal(ac_config_string(c, "sessionDir", NULL), "env/sessions");
	assert_origin(c, "sessionDir", "environment AGENT_SESSION_DIR");
	assert_origin(c, "temperature", "default");
}

static void test_command_line_over_everything(void **state)
{
	fixture *f = *state;
	ac_config *c;

	setenv("AGENT_MAX_TOKENS", "100", 1);
	put_file(f->user, "{\"maxTokens\": 200}");
	put_file(f->project, "{\"maxTokens\": 300, \"theme\": \"light\"}");
	c = load(f);
	assert_int_equal(ac_config_set_cli(c, "maxTokens", "400"), 0);
	assert_int_equal(ac_config_int(c, "maxTokens", -1), 400);
	assert_origin(c, "maxTokens", "command line");
	/* A string key takes the text as it is, even when it looks like JSON. */
	assert_int_equal(ac_config_set_cli(c, "theme", "123"), 0);
	assert_string_equal(ac_config_string(c, "theme", NULL), "123");
	assert_origin(c, "theme", "command line");
	assert_int_equal(ac_config_set_cli(c, "requireApproval", "[\"run_command\"]"), 0);
	assert_int_equal(json_array_size(ac_config_get(c, "requireApproval")), 1);
	/* A wrong type is refused, naming the key, and changes nothing. */
	assert_int_equal(ac_config_set_cli(c, "maxTokens", "abc"), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "maxTokens"));
	assert_non_null(strstr(ac_error_last(), "command line"));
	assert_int_equal(ac_config_int(c, "maxTokens", -1), 400);
	assert_int_equal(ac_config_set_cli(c, "journal.fsync", "sometimes"), AC_EINVAL);
	assert_string_equal(ac_config_string(c, "journal.fsync", NULL), "never");
	assert_origin(c, "journal.fsync", "default");
}

/* ---- which project file ---- */

/* seed-edge's .agentrc.json, with no .agent/config.json beside it. */
static void test_agentrc_used_without_agent_config(void **state)
{
	fixture *f = *state;
	char *ws = tu_copy_fixture("seed-edge"), *agentrc = tu_path(ws, ".agentrc.json");
	ac_config *c;

	put_file(f->user, "{\"maxTokens\": 200, \"temperature\": 0.5}");
	free(f->ws);
	f->ws = ws;
	c = load(f);
	assert_string_equal(ac_config_string(c, "model", NULL), "claude-opus-4");
	assert_origin(c, "model", agentrc);
	/* .agentrc.json is the project layer: above the user file. */
	assert_int_equal(ac_config_int(c, "maxTokens", -1), 16384);
	assert_origin(c, "maxTokens", agentrc);
	assert_origin(c, "temperature", f->user);
	tu_remove_tree(ws);
	free(agentrc);
}

static void test_agentrc_ignored_with_agent_config(void **state)
{
	fixture *f = *state;
	ac_config *c;

	put_file(f->agentrc, "{\"model\": \"rc-model\", \"theme\": \"rc-theme\"}");
	put_file(f->project, "{\"maxTokens\": 5}");
	c = load(f);
	assert_int_equal(ac_config_int(c, "maxTokens", -1), 5);
	assert_string_equal(ac_config_string(c, "model", NULL), "claude-sonnet-4-5");
	assert_origin(c, "model", "default");
	assert_string_equal(ac_config_string(c, "theme", NULL), "dark");
}

/* The committed fixtures' project files (tests/fixtures/): basic's
 * .agent/config.json with nested keys and an extra journal agent; hostile's,
 * whose commands wait for trust. */
static void test_fixture_project_files(void **state)
{
	(void)state;
	char *ws = tu_copy_fixture("basic");
	ac_config *c = NULL;
	ac_workspace w;

	assert_int_equal(ac_config_load(&c, ws), 0);
	assert_string_equal(ac_config_string(c, "model", NULL), "claude-sonnet-4-5");
	assert_int_equal(ac_config_int(c, "maxTokens", -1), 4096);
	assert_int_equal(ac_workspace_init(&w, c), 0);
	assert_int_equal(w.schema.nextra_agents, 1);
	assert_string_equal(w.schema.extra_agents[0], "Aider");
	ac_workspace_free(&w);
	ac_config_free(c);
	tu_remove_tree(ws);
	free(ws);

	ws = tu_copy_fixture("hostile");
	assert_int_equal(ac_config_load(&c, ws), 0);
	assert_false(ac_config_project_trusted(c));
	assert_int_equal(ac_workspace_init(&w, c), 0);
	assert_null(w.resume_command);
	assert_null(w.summarizer);
	ac_workspace_free(&w);
	ac_config_free(c);
	tu_remove_tree(ws);
	free(ws);
}

/* Seed 000's loadProjectConfig(): a file JSON.parse refuses is skipped for
 * the next (issue 26), said in one note naming it and the parse error. */
static void test_broken_agent_config_falls_back(void **state)
{
	fixture *f = *state;
	ac_config *c;

	put_file(f->agentrc, "{\"model\": \"rc-model\"}");
	put_file(f->project, "{\"model\": ");
	c = load(f);
	assert_string_equal(ac_config_string(c, "model", NULL), "rc-model");
	assert_origin(c, "model", f->agentrc);
	assert_non_null(ac_config_notes(c));
	assert_non_null(strstr(ac_config_notes(c), f->project));
	assert_non_null(strstr(ac_config_notes(c), "trying .agentrc.json"));
	/* One line. */
	assert_ptr_equal(strchr(ac_config_notes(c), '\n'), strrchr(ac_config_notes(c), '\n'));
}

static void test_user_file_from_home_without_xdg(void **state)
{
	fixture *f = *state;
	const char *home = getenv("HOME");
	char *saved = home ? strdup(home) : NULL, *cfg = tu_path(f->dir, ".config");
	char *cfg_agent = tu_path(cfg, "agent"), *path = tu_path(cfg_agent, "config.json");
	ac_config *c;

	assert_int_equal(mkdir(cfg, 0755), 0);
	assert_int_equal(mkdir(cfg_agent, 0755), 0);
	put_file(path, "{\"model\": \"home-model\"}");
	unsetenv("XDG_CONFIG_HOME");
	setenv("HOME", f->dir, 1);
	c = load(f);
	if (saved)
		setenv("HOME", saved, 1);
	else
		unsetenv("HOME");
	assert_string_equal(ac_config_string(c, "model", NULL), "home-model");
	assert_origin(c, "model", path);
	free(saved);
	free(cfg);
	free(cfg_agent);
	free(path);
}

/* ---- key shapes ---- */

static void test_nested_and_flat_keys(void **state)
{
	fixture *f = *state;
	json_t *values;
	ac_config *c;

	put_file(f->project, "{\"compaction\": {\"triggerTokens\": 5},"
			     " \"journal.fsync\": \"always\","
			     " \"summarizer\": {\"command\": [\"sum\", \"-q\"]}}");
	put_file(f->user, "{\"compaction.compactFraction\": 0.25, \"journal\": {\"rotateBytes\": 9}}");
	c = load(f);
	assert_int_equal(ac_config_int(c, "compaction.triggerTokens", -1), 5);
	assert_origin(c, "compaction.triggerTokens", f->project);
	assert_string_equal(ac_config_string(c, "journal.fsync", NULL), "always");
	assert_origin(c, "journal.fsync", f->project);
	assert_int_equal(json_array_size(ac_config_get(c, "summarizer.command")), 2);
	assert_true(json_number_value(ac_config_get(c, "compaction.compactFraction")) == 0.25);
	assert_origin(c, "compaction.compactFraction", f->user);
	assert_int_equal(ac_config_int(c, "journal.rotateBytes", -1), 9);
	assert_origin(c, "journal.rotateBytes", f->user);
	/* Values are kept under their dotted keys, not as the nested objects. */
	values = ac_config_values(c);
	assert_non_null(json_object_get(values, "compaction.triggerTokens"));
	assert_null(json_object_get(values, "compaction"));
	assert_null(json_object_get(values, "journal"));
	assert_null(json_object_get(values, "summarizer"));
}

static void test_nested_keys_are_type_checked(void **state)
{
	fixture *f = *state;

	put_file(f->project, "{\"compaction\": {\"triggerTokens\": \"many\"}}");
	load_fails(f, f->project, "compaction.triggerTokens", NULL);
}

static void test_free_form_object_stays_whole(void **state)
{
	fixture *f = *state;
	json_t *tools;
	ac_config *c;

	put_file(f->project, "{\"rollbackTools\": {\"write_file\": [\"git\", \"checkout\"],"
			     " \"migrate\": [\"db\", \"down\"]}}");
	c = load(f);
	tools = ac_config_get(c, "rollbackTools");
	assert_true(json_is_object(tools));
	assert_int_equal(json_object_size(tools), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(tools, "migrate"), 1)),
			    "down");
	assert_origin(c, "rollbackTools", f->project);
	assert_null(ac_config_get(c, "rollbackTools.write_file"));
	assert_null(ac_config_get(c, "rollbackTools.migrate"));
}

static void test_rotate_bytes_from_environment(void **state)
{
	fixture *f = *state;
	ac_config *c;

	setenv("AGENT_JOURNAL_ROTATE_BYTES", "1000", 1);
	setenv("AGENT_JOURNAL_FSYNC", "always", 1);
	setenv("AGENT_COMPACTION_TRIGGER_TOKENS", "321", 1);
	setenv("AGENT_JOURNAL_AGENTS", "[\"Bot\"]", 1);
	c = load(f);
	assert_int_equal(ac_config_int(c, "journal.rotateBytes", -1), 1000);
	assert_origin(c, "journal.rotateBytes", "environment AGENT_JOURNAL_ROTATE_BYTES");
	assert_string_equal(ac_config_string(c, "journal.fsync", NULL), "always");
	assert_origin(c, "journal.fsync", "environment AGENT_JOURNAL_FSYNC");
	assert_int_equal(ac_config_int(c, "compaction.triggerTokens", -1), 321);
	assert_origin(c, "compaction.triggerTokens", "environment AGENT_COMPACTION_TRIGGER_TOKENS");
	assert_string_equal(json_string_value(json_array_get(ac_config_get(c, "journal.agents"), 0)),
			    "Bot");
}

/* The reference resolver reads `if (process.env.AGENT_MODEL)`: an empty
 * variable counts as unset. Taken as a value, AGENT_SESSION_DIR= would put
 * the sessions in the workspace root and AGENT_MAX_TOKENS= would stop
 * every command. */
static void test_empty_variable_is_unset(void **state)
{
	fixture *f = *state;
	ac_config *c = NULL;
	int rc;

	setenv("AGENT_MODEL", "", 1);
	setenv("AGENT_SESSION_DIR", "", 1);
	setenv("AGENT_MAX_TOKENS", "", 1);
	rc = ac_config_load(&c, f->ws);
	f->config = c;
	if (rc != 0)
		fail_msg("empty AGENT_* variables: load failed: %s", ac_error_last());
	assert_string_equal(ac_config_string(c, "model", NULL), "claude-sonnet-4-5");
	assert_origin(c, "model", "default");
	assert_string_equal(ac_config_string(c, "sessionDir", NULL), ".agent/sessions");
	assert_int_equal(ac_config_int(c, "maxTokens", -1), 8192);
}

/* ---- errors name the file or the variable ---- */

static void test_project_file_that_does_not_parse(void **state)
{
	fixture *f = *state;

	ac_config *c;

	put_file(f->project, "{\n  \"model\": \"x\",\n  \"maxTokens\": ,\n}\n");
	c = load(f);
	assert_string_equal(ac_config_string(c, "model", NULL), "claude-sonnet-4-5");
	assert_null(ac_config_project_file(c));
	assert_non_null(ac_config_notes(c));
	assert_non_null(strstr(ac_config_notes(c), f->project));
	assert_non_null(strstr(ac_config_notes(c), "line 3"));
	assert_non_null(strstr(ac_config_notes(c), "column"));
}

static void test_user_file_that_does_not_parse(void **state)
{
	fixture *f = *state;

	put_file(f->user, "not json");
	load_fails(f, f->user, "line 1", NULL);
}

static void test_top_level_array(void **state)
{
	fixture *f = *state;

	put_file(f->project, "[{\"model\": \"x\"}]");
	load_fails(f, f->project, NULL);
}

static void test_wrong_type_in_file(void **state)
{
	fixture *f = *state;

	put_file(f->project, "{\"maxTokens\": \"abc\"}");
	load_fails(f, f->project, "maxTokens", NULL);
}

static void test_wrong_type_in_agentrc(void **state)
{
	fixture *f = *state;

	put_file(f->agentrc, "{\"requireApproval\": \"write_file\"}");
	load_fails(f, f->agentrc, "requireApproval", NULL);
}

static void test_wrong_type_in_environment(void **state)
{
	fixture *f = *state;

	/* The seed's own variable, read as its parseInt reads it: no command
	 * fails on it (none uses maxTokens); what was made of it is noted. */
	static const struct {
		const char *text;
		int64_t want;
		const char *note;
	} cases[] = {
		{"abc", 8192, "'abc' is not a whole number; ignored"},
		{"-5", 8192, "'-5' is not a whole number; ignored"},
		{"12x", 12, "'12x' read as 12"},
		{" 8k", 8, "read as 8"},
		{"4096", 4096, NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		ac_config *c;

		setenv("AGENT_MAX_TOKENS", cases[i].text, 1);
		c = load(f);
		assert_int_equal(ac_config_int(c, "maxTokens", 0), cases[i].want);
		if (cases[i].note)
			assert_non_null(strstr(ac_config_notes(c), cases[i].note));
		else
			assert_null(ac_config_notes(c));
		ac_config_free(c);
		f->config = NULL;
	}
	/* Another key's variable stays strict: commands use those. */
	unsetenv("AGENT_MAX_TOKENS");
	setenv("AGENT_COMPACTION_TRIGGER_TOKENS", "12x", 1);
	load_fails(f, "AGENT_COMPACTION_TRIGGER_TOKENS", NULL);
	unsetenv("AGENT_COMPACTION_TRIGGER_TOKENS");
}

static void test_fsync_choice_in_environment(void **state)
{
	fixture *f = *state;

	setenv("AGENT_JOURNAL_FSYNC", "sometimes", 1);
	load_fails(f, "AGENT_JOURNAL_FSYNC", NULL);
}

static void test_journal_agents_with_a_number(void **state)
{
	fixture *f = *state;

	put_file(f->project, "{\"journal\": {\"agents\": [\"Bot\", 7]}}");
	load_fails(f, f->project, "journal.agents", NULL);
	put_file(f->project, "{\"journal.agents\": 7}");
	load_fails(f, f->project, "journal.agents", NULL);
	unlink(f->project);
	setenv("AGENT_JOURNAL_AGENTS", "[1]", 1);
	load_fails(f, "AGENT_JOURNAL_AGENTS", NULL);
}

static void test_journal_action_types_must_be_names(void **state)
{
	fixture *f = *state;

	put_file(f->project, "{\"journal\": {\"actionTypes\": [\"DEPLOY\", 7]}}");
	load_fails(f, f->project, "journal.actionTypes", NULL);
	put_file(f->project, "{\"journal.actionTypes\": \"DEPLOY\"}");
	load_fails(f, f->project, "journal.actionTypes", NULL);
}

/* ---- paths and the workspace ---- */

static void test_path_joins_relative_keeps_absolute(void **state)
{
	fixture *f = *state;
	char *path, *want;
	ac_config *c;

	/* An absolute path outside the workspace is the operator's to set. */
	put_file(f->project, "{\"sessionDir\": \"custom/sessions\"}");
	put_file(f->user, "{\"journalPath\": \"/abs/J.jsonl\"}");
	c = load(f);
	path = ac_config_path(c, "sessionDir", NULL);
	want = tu_path(f->ws, "custom/sessions");
	assert_string_equal(path, want);
	free(path);
	free(want);
	path = ac_config_path(c, "journalPath", NULL);
	assert_string_equal(path, "/abs/J.jsonl");
	free(path);
	/* An unset key uses the fallback, resolved the same way. */
	path = ac_config_path(c, "no.such.path", "fallback/dir");
	want = tu_path(f->ws, "fallback/dir");
	assert_string_equal(path, want);
	free(path);
	free(want);
	path = ac_config_path(c, "no.such.path", "/fallback");
	assert_string_equal(path, "/fallback");
	free(path);
	assert_null(ac_config_path(c, "no.such.path", NULL));
}

static void test_workspace_defaults(void **state)
{
	fixture *f = *state;
	ac_workspace ws;
	char *want;

	assert_int_equal(ac_workspace_init(&ws, load(f)), 0);
	assert_string_equal(ws.root, f->ws);
	want = tu_path(f->ws, ".agent/sessions");
	assert_string_equal(ws.sessions_dir, want);
	free(want);
	want = tu_path(f->ws, "JOURNAL.jsonl");
	assert_string_equal(ws.journal_path, want);
	free(want);
	assert_int_equal(ws.journal.fsync, AC_FSYNC_NEVER);
	assert_int_equal(ws.journal.rotate_bytes, 0);
	assert_int_equal(ws.compact.trigger_tokens, 80000);
	assert_true(ws.compact.fraction == 0.5);
	assert_null(ws.resume_command);
	assert_null(ws.summarizer);
	assert_null(ws.compact.summarizer);
	assert_int_equal(ws.schema.nextra_agents, 0);
	assert_int_equal(ws.schema.nextra_action_types, 0);
	ac_workspace_free(&ws);
}

static void test_workspace_reads_config(void **state)
{
	fixture *f = *state;
	ac_workspace ws;
	char *want;

	put_file(f->user, "{\"journalPath\": \"/abs/J.jsonl\"}");
	put_file(f->project,
		 "{\"sessionDir\": \"s\","
		 " \"journal\": {\"fsync\": \"always\", \"rotateBytes\": 5000, \"agents\": [\"Bot\", \"Aider\"],"
		 "  \"actionTypes\": [\"DEPLOY\"]},"
		 " \"compaction\": {\"triggerTokens\": 1234, \"compactFraction\": 0.25},"
		 " \"resumeCommand\": [\"agent\", \"--resume\", \"{id}\"],"
		 " \"summarizer\": {\"command\": [\"sum\", \"-q\"]}}");
	assert_int_equal(ac_config_trust(load(f)), 0);
	assert_int_equal(ac_workspace_init(&ws, f->config), 0);
	want = tu_path(f->ws, "s");
	assert_string_equal(ws.sessions_dir, want);
	free(want);
	assert_string_equal(ws.journal_path, "/abs/J.jsonl");
	assert_int_equal(ws.journal.fsync, AC_FSYNC_ALWAYS);
	assert_int_equal(ws.journal.rotate_bytes, 5000);
	assert_int_equal(ws.schema.nextra_agents, 2);
	assert_string_equal(ws.schema.extra_agents[1], "Aider");
	assert_int_equal(ws.schema.nextra_action_types, 1);
	assert_string_equal(ws.schema.extra_action_types[0], "DEPLOY");
	assert_int_equal(ws.compact.trigger_tokens, 1234);
	assert_true(ws.compact.fraction == 0.25);
	assert_non_null(ws.resume_command);
	assert_string_equal(ws.resume_command[0], "agent");
	assert_string_equal(ws.resume_command[1], "--resume");
	/* {id} is replaced when the command runs, not here. */
	assert_string_equal(ws.resume_command[2], "{id}");
	assert_null(ws.resume_command[3]);
	assert_non_null(ws.summarizer);
	assert_string_equal(ws.summarizer[0], "sum");
	assert_string_equal(ws.summarizer[1], "-q");
	assert_null(ws.summarizer[2]);
	assert_ptr_equal(ws.compact.summarizer, ws.summarizer);
	ac_workspace_free(&ws);
}

static void test_workspace_settings_from_environment(void **state)
{
	fixture *f = *state;
	ac_workspace ws;

	setenv("AGENT_JOURNAL_ROTATE_BYTES", "1000", 1);
	setenv("AGENT_SESSION_DIR", "/abs/sessions", 1);
	assert_int_equal(ac_workspace_init(&ws, load(f)), 0);
	assert_int_equal(ws.journal.rotate_bytes, 1000);
	assert_string_equal(ws.sessions_dir, "/abs/sessions");
	ac_workspace_free(&ws);
}

static void test_workspace_rejects_bad_fraction(void **state)
{
	fixture *f = *state;
	ac_workspace ws;

	put_file(f->project, "{\"compaction\": {\"compactFraction\": 0}}");
	assert_int_equal(ac_workspace_init(&ws, load(f)), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), f->project));
	assert_non_null(strstr(ac_error_last(), "compactFraction"));
}

/* ---- trust: what a project file (written by agents) may do ---- */

/* Loads and expects AC_EINVAL naming the project file, key and value. */
static void project_path_refused(fixture *f, const char *key, const char *value)
{
	char text[2048];

	snprintf(text, sizeof(text), "{\"%s\": \"%s\"}", key, value);
	put_file(f->project, text);
	load_fails(f, f->project, key, value, NULL);
}

static void project_path_accepted(fixture *f, const char *key, const char *value)
{
	char text[2048];

	snprintf(text, sizeof(text), "{\"%s\": \"%s\"}", key, value);
	put_file(f->project, text);
	ac_config_free(f->config);
	f->config = NULL;
	load(f);
}

static void test_project_paths_stay_inside(void **state)
{
	fixture *f = *state;
	char *outside = tu_path(f->dir, "outside"), *link = tu_path(f->ws, "link");
	char abs_inside[1024];

	assert_int_equal(mkdir(outside, 0755), 0);
	assert_int_equal(symlink(outside, link), 0);
	project_path_refused(f, "journalPath", "../victim.txt");
	project_path_refused(f, "checkpointDir", "/tmp/elsewhere");
	project_path_refused(f, "sessionDir", "a/../../b");
	project_path_refused(f, "operationLogPath", "link/ops.jsonl");
	project_path_refused(f, "journalPath", "missing/../link/J.jsonl");
	project_path_refused(f, "journalPath", ".git/hooks/post-commit");
	project_path_refused(f, "checkpointDir", "sub/.GIT/x");
	project_path_refused(f, "checkpointDir", ".git./x");
	/* The same from .agentrc.json. */
	unlink(f->project);
	put_file(f->agentrc, "{\"journalPath\": \"../victim.txt\"}");
	load_fails(f, f->agentrc, "journalPath", NULL);
	unlink(f->agentrc);
	project_path_accepted(f, "journalPath", "logs/../J.jsonl");
	project_path_accepted(f, "checkpointDir", "not/yet/there");
	project_path_accepted(f, "sessionDir", ".agent/sessions");
	project_path_accepted(f, "journalPath", ".gitignored/J.jsonl");
	snprintf(abs_inside, sizeof(abs_inside), "%s/J.jsonl", f->ws);
	project_path_accepted(f, "journalPath", abs_inside);
	free(outside);
	free(link);
}

/* The user file and the environment are the operator's: anywhere goes. */
static void test_user_and_environment_paths_anywhere(void **state)
{
	fixture *f = *state;
	ac_config *c;

	put_file(f->user, "{\"journalPath\": \"../victim.txt\", \"checkpointDir\": \"/tmp/ck\"}");
	setenv("AGENT_OPERATION_LOG_PATH", "/var/tmp/ops.jsonl", 1);
	c = load(f);
	assert_string_equal(ac_config_string(c, "journalPath", NULL), "../victim.txt");
	assert_string_equal(ac_config_string(c, "operationLogPath", NULL), "/var/tmp/ops.jsonl");
}

#define COMMANDS "{\"resumeCommand\": [\"agent\", \"{id}\"]," \
		 " \"summarizer\": {\"command\": [\"sum\"]}," \
		 " \"rollbackTools\": {\"t\": [\"undo\"]}}"

static void assert_denied(ac_config *c, const char *key, const char *file)
{
	json_t *value = (json_t *)1;

	assert_int_equal(ac_config_command(&value, c, key), AC_EDENIED);
	assert_null(value);
	assert_non_null(strstr(ac_error_last(), key));
	assert_non_null(strstr(ac_error_last(), file));
	assert_non_null(strstr(ac_error_last(), "agentctl config trust"));
	assert_null(strchr(ac_error_last(), '\n'));
}

static void test_project_commands_need_trust(void **state)
{
	fixture *f = *state;
	const char *const *argv = NULL;
	const json_t *tools = NULL;
	char *summary = NULL;
	ac_workspace ws;
	ac_config *c;

	put_file(f->project, COMMANDS);
	c = load(f);
	assert_false(ac_config_project_trusted(c));
	assert_string_equal(ac_config_project_file(c), f->project);
	assert_int_equal(strlen(ac_config_project_sha256(c)), 64);
	assert_denied(c, "resumeCommand", f->project);
	assert_denied(c, "summarizer.command", f->project);
	assert_denied(c, "rollbackTools", f->project);
	/* The workspace hands out nothing that may not run... */
	assert_int_equal(ac_workspace_init(&ws, c), 0);
	assert_null(ws.resume_command);
	assert_null(ws.summarizer);
	assert_null(ws.rollback_tools);
	assert_int_equal(ac_workspace_command(&argv, &ws, "resumeCommand"), AC_EDENIED);
	assert_int_equal(ac_workspace_rollback_tools(&tools, &ws), AC_EDENIED);
	/* ...and compaction refuses instead of using the built-in summary. */
	assert_non_null(ws.compact.summarize);
	assert_int_equal(ws.compact.summarize(&summary, NULL, ws.compact.summarize_ctx), AC_EDENIED);
	assert_null(summary);
	ac_workspace_free(&ws);

	/* Trusted: recorded in the user's config folder, runs from now on. */
	assert_int_equal(ac_config_trust(c), 0);
	assert_true(tu_exists(f->xdg, "agent/trusted.json"));
	ac_config_free(f->config);
	f->config = NULL;
	c = load(f);
	assert_true(ac_config_project_trusted(c));
	assert_int_equal(ac_workspace_init(&ws, c), 0);
	assert_int_equal(ac_workspace_command(&argv, &ws, "resumeCommand"), 0);
	assert_string_equal(argv[0], "agent");
	assert_int_equal(ac_workspace_rollback_tools(&tools, &ws), 0);
	assert_non_null(tools);
	assert_null(ws.compact.summarize);
	assert_string_equal(ws.compact.summarizer[0], "sum");
	ac_workspace_free(&ws);

	/* One changed byte: not trusted any more. */
	put_file(f->project, COMMANDS " ");
	ac_config_free(f->config);
	f->config = NULL;
	c = load(f);
	assert_false(ac_config_project_trusted(c));
	assert_denied(c, "resumeCommand", f->project);
}

/* Trusting keeps a private copy of the trusted bytes; the review is the
 * file since then, as a diff (before any trust: every line new). */
static void test_trust_copy_and_review(void **state)
{
	fixture *f = *state;
	ac_config_trust_diff r;
	char *copies = tu_path(f->state, "agent/trusted"), *text = NULL, *name = NULL;
	size_t len = 0;
	struct stat st;
	DIR *dir;
	struct dirent *e;
	ac_config *c;

	put_file(f->project, "{\n  \"resumeCommand\": [\"one\"],\n  \"model\": \"m\"\n}\n");
	c = load(f);
	assert_int_equal(ac_config_trust_review(&r, c, 3), 0);
	assert_string_equal(r.trusted_sha256, "");
	assert_false(r.have_copy);
	assert_int_equal(r.added, 4);
	assert_int_equal(r.removed, 0);
	ac_config_trust_diff_free(&r);

	assert_int_equal(ac_config_trust(c), 0);
	assert_int_equal(stat(copies, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_non_null(dir = opendir(copies));
	while ((e = readdir(dir)))
		if (e->d_name[0] != '.')
			name = tu_path(copies, e->d_name);
	closedir(dir);
	assert_non_null(name);
	assert_int_equal(stat(name, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_non_null(text = tu_read_file(name, &len));
	assert_string_equal(text, "{\n  \"resumeCommand\": [\"one\"],\n  \"model\": \"m\"\n}\n");
	free(text);

	/* Trusted and unchanged: nothing to show. */
	assert_int_equal(ac_config_trust_review(&r, c, 3), 0);
	assert_true(r.have_copy);
	assert_int_equal(r.added + r.removed, 0);
	ac_config_trust_diff_free(&r);

	put_file(f->project, "{\n  \"resumeCommand\": [\"two\"],\n  \"model\": \"m\"\n}\n");
	ac_config_free(f->config);
	f->config = NULL;
	c = load(f);
	assert_false(ac_config_project_trusted(c));
	assert_int_equal(ac_config_trust_review(&r, c, 3), 0);
	assert_true(r.have_copy);
	assert_int_equal(strlen(r.trusted_sha256), 64);
	assert_true(r.trusted_at[0] != '\0');
	assert_int_equal(r.added, 1);
	assert_int_equal(r.removed, 1);
	assert_string_equal(r.diff.data, "@@ -1 +1 @@\n"
			    " {\n"
			    "-  \"resumeCommand\": [\"one\"],\n"
			    "+  \"resumeCommand\": [\"two\"],\n"
			    "   \"model\": \"m\"\n"
			    " }\n");
	ac_config_trust_diff_free(&r);

	/* A copy that is not what the store names is not used. */
	put_file(name, "tampered\n");
	assert_int_equal(ac_config_trust_review(&r, c, 3), 0);
	assert_false(r.have_copy);
	assert_int_equal(r.removed, 0);
	ac_config_trust_diff_free(&r);
	free(name);
	free(copies);
}

static void test_trust_keeps_other_entries(void **state)
{
	fixture *f = *state;
	char *store = tu_path(f->xdg, "agent/trusted.json"), *text;
	json_t *root;

	put_file(store, "{\"files\": {\"/elsewhere/.agent/config.json\": {\"sha256\": \"ab\"}}}");
	put_file(f->project, COMMANDS);
	assert_int_equal(ac_config_trust(load(f)), 0);
	text = tu_read_file(store, NULL);
	root = json_loads(text, 0, NULL);
	assert_non_null(root);
	assert_non_null(json_object_get(json_object_get(root, "files"), "/elsewhere/.agent/config.json"));
	assert_int_equal(json_object_size(json_object_get(root, "files")), 1);
	/* The new record: the workspace's resolved folder, the file's name
	 * and the hash of its bytes. */
	{
		char *real = realpath(f->ws, NULL);
		json_t *entry = json_object_get(json_object_get(root, "workspaces"), real);

		assert_string_equal(json_string_value(json_object_get(entry, "file")),
				    ".agent/config.json");
		assert_string_equal(json_string_value(json_object_get(entry, "sha256")),
				    ac_config_project_sha256(f->config));
		free(real);
	}
	json_decref(root);
	free(text);
	/* A broken store is an error naming it, never overwritten. */
	put_file(store, "{broken");
	ac_config_free(f->config);
	f->config = NULL;
	load_fails(f, store, NULL);
	free(store);
}

/* Loads workspace dir into a config that the caller frees. */
static ac_config *load_ws(const char *dir)
{
	ac_config *c = NULL;
	int rc = ac_config_load(&c, dir);

	if (rc != 0)
		fail_msg("ac_config_load %s: %d: %s", dir, rc, ac_error_last());
	return c;
}

/* Trust is keyed by the workspace and the content: workspace B whose
 * .agent/config.json, or whole .agent, is a link to A's trusted file is
 * not trusted (A's "./scripts/resume.sh" would run B's script), and can
 * never be; a copy of the same bytes in B is not trusted either. */
static void test_trust_keyed_by_workspace(void **state)
{
	fixture *f = *state;
	char *b = tu_path(f->dir, "b"), *b_agent = tu_path(b, ".agent"),
	     *b_project = tu_path(b_agent, "config.json"), *c_ws = tu_path(f->dir, "c"),
	     *c_agent = tu_path(c_ws, ".agent"), *a_agent = tu_path(f->ws, ".agent");
	json_t *value = NULL;
	ac_config *c;

	put_file(f->project, "{\"resumeCommand\": [\"./scripts/resume.sh\", \"{id}\"]}");
	assert_int_equal(ac_config_trust(load(f)), 0);
	assert_int_equal(mkdir(b, 0755), 0);
	assert_int_equal(mkdir(b_agent, 0755), 0);
	assert_int_equal(symlink(f->project, b_project), 0);
	c = load_ws(b);
	assert_false(ac_config_project_trusted(c));
	assert_non_null(ac_config_project_untrustable(c));
	assert_non_null(strstr(ac_config_project_untrustable(c), "out of the workspace"));
	assert_int_equal(ac_config_command(&value, c, "resumeCommand"), AC_EDENIED);
	assert_null(value);
	/* ...and `config trust` refuses it, writing nothing. */
	assert_int_equal(ac_config_trust(c), AC_EDENIED);
	assert_null(strchr(ac_error_last(), '\n'));
	ac_config_free(c);

	/* The whole .agent a link to A's. */
	assert_int_equal(mkdir(c_ws, 0755), 0);
	assert_int_equal(symlink(a_agent, c_agent), 0);
	c = load_ws(c_ws);
	assert_false(ac_config_project_trusted(c));
	assert_non_null(ac_config_project_untrustable(c));
	ac_config_free(c);

	/* A copy of the trusted bytes in B: same hash, other workspace. */
	assert_int_equal(unlink(b_project), 0);
	put_file(b_project, "{\"resumeCommand\": [\"./scripts/resume.sh\", \"{id}\"]}");
	c = load_ws(b);
	assert_null(ac_config_project_untrustable(c));
	assert_string_equal(ac_config_project_sha256(c), ac_config_project_sha256(f->config));
	assert_false(ac_config_project_trusted(c));
	ac_config_free(c);
	/* A itself still is. */
	ac_config_free(f->config);
	f->config = NULL;
	assert_true(ac_config_project_trusted(load(f)));
	free(b);
	free(b_agent);
	free(b_project);
	free(c_ws);
	free(c_agent);
	free(a_agent);
}

/* A record of an earlier version ({"files": {resolved path: ...}}) still
 * counts for a project file that is no link, and never for a link to it. */
static void test_trust_old_records(void **state)
{
	fixture *f = *state;
	char *store = tu_path(f->xdg, "agent/trusted.json"), *real, *b = tu_path(f->dir, "b"),
	     *b_agent = tu_path(b, ".agent"), *b_project = tu_path(b_agent, "config.json");
	ac_buf text = AC_BUF_INIT;
	ac_config *c;

	put_file(f->project, COMMANDS);
	c = load(f);
	real = realpath(f->project, NULL);
	ac_buf_printf(&text, "{\"files\": {\"%s\": {\"sha256\": \"%s\", \"trustedAt\": "
		      "\"2025-01-01T00:00:00.000Z\"}}}", real, ac_config_project_sha256(c));
	put_file(store, text.data);
	ac_config_free(f->config);
	f->config = NULL;
	assert_true(ac_config_project_trusted(load(f)));
	assert_int_equal(mkdir(b, 0755), 0);
	assert_int_equal(mkdir(b_agent, 0755), 0);
	assert_int_equal(symlink(f->project, b_project), 0);
	c = load_ws(b);
	assert_false(ac_config_project_trusted(c));
	ac_config_free(c);
	ac_buf_free(&text);
	free(real);
	free(store);
	free(b);
	free(b_agent);
	free(b_project);
}

/* `config trust --sha256 HEX` trusts only the bytes that were reviewed. */
static void test_trust_reviewed_bytes(void **state)
{
	fixture *f = *state;
	char reviewed[65], upper[65];
	ac_config *c;

	put_file(f->project, "{\"model\": \"m\"}");
	c = load(f);
	strcpy(reviewed, ac_config_project_sha256(c));
	/* Swapped in between review and trust. */
	put_file(f->project, "{\"model\": \"m\", \"hooks\": {\"onStatusChange\": [\"sh\", \"x\"]}}");
	ac_config_free(f->config);
	f->config = NULL;
	c = load(f);
	assert_int_equal(ac_config_trust_reviewed(c, reviewed), AC_ECONFLICT);
	assert_non_null(strstr(ac_error_last(), reviewed));
	assert_non_null(strstr(ac_error_last(), ac_config_project_sha256(c)));
	assert_null(strchr(ac_error_last(), '\n'));
	assert_false(ac_config_project_trusted(c));
	assert_false(tu_exists(f->xdg, "agent/trusted.json"));
	/* The hash of what it holds now, in any case: trusted. */
	for (size_t i = 0; i < 65; i++)
		upper[i] = (char)toupper((unsigned char)ac_config_project_sha256(c)[i]);
	assert_int_equal(ac_config_trust_reviewed(c, upper), 0);
	ac_config_free(f->config);
	f->config = NULL;
	assert_true(ac_config_project_trusted(load(f)));
}

/* Every key that runs a command or chooses where data goes is gated, one
 * list: ac_config_command() refuses it from an untrusted file, and
 * ac_config_project_gated() (what `config trust` shows) holds it. */
static void test_gated_keys(void **state)
{
	static const char *const gated[] = {
		"resumeCommand", "summarizer.command", "rollbackTools", "memory.consolidateCommand",
		"hooks.onStatusChange", "notify.desktop", "sources.claude.resumeCommand",
		"sources.codex.resumeCommand", "sources.gemini.resumeCommand", "storage.url",
	};
	fixture *f = *state;
	json_t *value = NULL, *shown;
	ac_config *c;

	put_file(f->project,
		 "{\"resumeCommand\": [\"r\"], \"summarizer\": {\"command\": [\"s\"]},"
		 " \"rollbackTools\": {\"t\": [\"u\"]}, \"memory\": {\"consolidateCommand\": [\"m\"]},"
		 " \"hooks\": {\"onStatusChange\": [\"h\"], \"onLater\": [\"l\"]},"
		 " \"notify\": {\"desktop\": [\"n\"], \"bell\": true},"
		 " \"sources\": {\"claude\": {\"resumeCommand\": [\"c\"]},"
		 " \"codex\": {\"resumeCommand\": [\"x\"]}, \"gemini\": {\"resumeCommand\": [\"g\"]}},"
		 " \"storage\": {\"url\": \"postgresql://elsewhere/db\"}, \"model\": \"m\"}");
	c = load(f);
	shown = ac_config_project_gated(c);
	for (size_t i = 0; i < sizeof(gated) / sizeof(gated[0]); i++) {
		assert_true(ac_config_key_gated(gated[i]));
		assert_non_null(json_object_get(shown, gated[i]));
		assert_denied(c, gated[i], f->project);
	}
	/* A hook this version does not know is shown too; harmless keys not. */
	assert_true(ac_config_key_gated("hooks.onLater"));
	assert_non_null(json_object_get(shown, "hooks.onLater"));
	assert_int_equal(json_object_size(shown), sizeof(gated) / sizeof(gated[0]) + 1);
	assert_false(ac_config_key_gated("model"));
	assert_false(ac_config_key_gated("notify.bell"));
	assert_false(ac_config_key_gated("sources.claude.dir"));
	/* Asking for a key that is not gated is a mistake, said as one. */
	assert_int_equal(ac_config_command(&value, c, "model"), AC_EINVAL);
	/* Overridden on the command line: still shown as the file holds it. */
	assert_int_equal(ac_config_set_cli(c, "storage.url", "postgresql://mine/db"), 0);
	assert_string_equal(json_string_value(json_object_get(shown, "storage.url")),
			    "postgresql://elsewhere/db");
	assert_int_equal(ac_config_command(&value, c, "storage.url"), 0);
	assert_string_equal(json_string_value(value), "postgresql://mine/db");

	/* A key written twice (flat and nested): what is shown is what runs. */
	put_file(f->project, "{\"hooks.onStatusChange\": [\"runs\"],"
			     " \"hooks\": {\"onStatusChange\": [\"shown\"]}}");
	ac_config_free(f->config);
	f->config = NULL;
	c = load(f);
	assert_true(json_equal(json_object_get(ac_config_project_gated(c), "hooks.onStatusChange"),
			       ac_config_get(c, "hooks.onStatusChange")));
}

/* Commands from the user file, the environment and the command line run. */
static void test_operator_commands_trusted(void **state)
{
	fixture *f = *state;
	json_t *value = NULL;
	ac_config *c;

	put_file(f->project, "{\"model\": \"m\"}");
	put_file(f->user, "{\"resumeCommand\": [\"agent\", \"{id}\"]}");
	setenv("AGENT_ROLLBACK_TOOLS", "{\"t\": [\"undo\"]}", 1);
	c = load(f);
	assert_false(ac_config_project_trusted(c));
	assert_int_equal(ac_config_command(&value, c, "resumeCommand"), 0);
	assert_non_null(value);
	assert_int_equal(ac_config_command(&value, c, "rollbackTools"), 0);
	assert_non_null(value);
	assert_int_equal(ac_config_set_cli(c, "summarizer.command", "[\"s\"]"), 0);
	assert_int_equal(ac_config_command(&value, c, "summarizer.command"), 0);
	assert_non_null(value);
}

/* A placeholder inside a larger argument is refused at load, from any
 * layer, naming the file, key and argument index. */
static void test_embedded_placeholder_refused(void **state)
{
	fixture *f = *state;

	put_file(f->project, "{\"resumeCommand\": [\"sh\", \"-c\", \"agent --resume {id}\"]}");
	load_fails(f, f->project, "resumeCommand[2]", "whole argument", NULL);
	unlink(f->project);
	put_file(f->user, "{\"rollbackTools\": {\"t\": [\"undo\", \"--id={id}\"]}}");
	load_fails(f, f->user, "rollbackTools.t[1]", NULL);
	unlink(f->user);
	setenv("AGENT_SUMMARIZER_COMMAND", "[\"sum\", \"{id}.json\"]", 1);
	load_fails(f, "AGENT_SUMMARIZER_COMMAND", "summarizer.command[1]", NULL);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

/* jansson dumps doubles with 17 digits; config show prints them as short
 * as they read back, and leaves strings and integers alone. */
static void test_shortest_reals(void **state)
{
	static const char *const cases[][2] = {
		{"0.20000000000000001", "0.2"},
		{"[1.0000000000000001e300,-0.0,2.0]", "[1e+300,-0.0,2.0]"},
		{"{\"a\":\"0.20000000000000001\",\"b\":17,\"c\":0.12345678901234568}",
		 "{\"a\":\"0.20000000000000001\",\"b\":17,\"c\":0.12345678901234568}"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ac_buf text = AC_BUF_INIT;

		assert_int_equal(ac_buf_append(&text, cases[i][0], strlen(cases[i][0])), 0);
		assert_int_equal(ac_json_shortest_reals(&text), 0);
		assert_string_equal(text.data, cases[i][1]);
		ac_buf_free(&text);
	}
}

/* The byte-exact loader keeps numbers jansson cannot hold as marker
 * strings (a per-process tag + the number). The tag inside a longer string
 * is text, kept as it was; a file holding the tag is refused (fuzz_json_exact
 * found the first: it learned the tag through comparisons). */
static void test_exact_marker_only_as_a_whole_string(void **state)
{
	json_t *big = NULL, *doc;
	char *text, marker[128];
	size_t len = 0;

	(void)state;
	assert_int_equal(ac_json_exact_load(&big, "1e999", 5, JSON_DECODE_ANY, "t"), 0);
	assert_true(json_is_string(big));
	snprintf(marker, sizeof(marker), "%s", json_string_value(big));
	assert_true(strlen(marker) > 5);
	marker[strlen(marker) - 5] = '\0'; /* the tag, without "1e999" */

	/* A string that ends in "\"<tag>0" stays that string. */
	doc = json_pack("[s++, o]", "a\"", marker, "0", big);
	text = ac_json_exact_dumps(doc, JSON_COMPACT, &len);
	assert_non_null(text);
	assert_non_null(strstr(text, marker));       /* still text in the string */
	assert_non_null(strstr(text, ",1e999]"));     /* the kept number comes back */
	free(text);
	json_decref(doc);

	/* A file that holds the tag is refused, naming the file. */
	{
		char crafted[256];

		snprintf(crafted, sizeof(crafted), "[\"%s0\"]", marker);
		doc = NULL;
		assert_int_equal(ac_json_exact_load(&doc, crafted, strlen(crafted), 0, "x.json"),
				 AC_ECORRUPT);
		assert_null(doc);
		assert_non_null(strstr(ac_error_last(), "x.json"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shortest_reals),
		cmocka_unit_test(test_exact_marker_only_as_a_whole_string),
		T(test_defaults),
		T(test_environment_over_defaults),
		T(test_user_file_over_environment),
		T(test_project_file_over_user_file),
		T(test_command_line_over_everything),
		T(test_agentrc_used_without_agent_config),
		T(test_agentrc_ignored_with_agent_config),
		T(test_fixture_project_files),
		T(test_broken_agent_config_falls_back),
		T(test_user_file_from_home_without_xdg),
		T(test_nested_and_flat_keys),
		T(test_nested_keys_are_type_checked),
		T(test_free_form_object_stays_whole),
		T(test_rotate_bytes_from_environment),
		T(test_empty_variable_is_unset),
		T(test_project_file_that_does_not_parse),
		T(test_user_file_that_does_not_parse),
		T(test_top_level_array),
		T(test_wrong_type_in_file),
		T(test_wrong_type_in_agentrc),
		T(test_wrong_type_in_environment),
		T(test_fsync_choice_in_environment),
		T(test_journal_agents_with_a_number),
		T(test_journal_action_types_must_be_names),
		T(test_path_joins_relative_keeps_absolute),
		T(test_workspace_defaults),
		T(test_workspace_reads_config),
		T(test_workspace_settings_from_environment),
		T(test_workspace_rejects_bad_fraction),
		T(test_project_paths_stay_inside),
		T(test_user_and_environment_paths_anywhere),
		T(test_project_commands_need_trust),
		T(test_trust_copy_and_review),
		T(test_trust_keeps_other_entries),
		T(test_trust_keyed_by_workspace),
		T(test_trust_old_records),
		T(test_trust_reviewed_bytes),
		T(test_gated_keys),
		T(test_operator_commands_trusted),
		T(test_embedded_placeholder_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
