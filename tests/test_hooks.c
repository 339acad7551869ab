/* Status-change hooks: placeholders as whole arguments only, the time
 * limit's wrapper, and trust: a project file's hooks start only once it
 * is trusted; the user's file is trusted. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_config.h"
#include "ac_error.h"
#include "ac_hooks.h"
#include "ac_proc.h"
#include "ac_workspace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_argv(void **state)
{
	const char *const template[] = {"notify", "{id}", "{old}", "{new}", "{ID}", "x", "{host}",
					"{reason}", NULL};
	const char *const embedded[] = {"sh", "-c", "echo {id}", NULL};
	char **argv = NULL;

	(void)state;
	assert_int_equal(ac_hooks_argv(&argv, template, "s1", "running", "paused", "box1",
				       "approve Bash"), 0);
	assert_string_equal(argv[0], "timeout");
	assert_string_equal(argv[1], "-k");
	assert_string_equal(argv[3], "30s");
	assert_string_equal(argv[4], "notify");
	assert_string_equal(argv[5], "s1");
	assert_string_equal(argv[6], "running");
	assert_string_equal(argv[7], "paused");
	assert_string_equal(argv[8], "{ID}");
	assert_string_equal(argv[9], "x");
	/* The host and the reason, each one whole argument. */
	assert_string_equal(argv[10], "box1");
	assert_string_equal(argv[11], "approve Bash");
	assert_null(argv[12]);
	ac_proc_argv_free(argv);
	/* An id spliced into text a shell reads: refused. */
	assert_int_equal(ac_hooks_argv(&argv, embedded, "s1; rm -rf ~", "a", "b", NULL, NULL),
			 AC_EINVAL);
	assert_null(argv);
}

static void test_notifies(void **state)
{
	(void)state;
	assert_true(ac_hooks_notifies("waiting"));
	assert_true(ac_hooks_notifies("paused"));
	assert_false(ac_hooks_notifies("running"));
	assert_false(ac_hooks_notifies("completed"));
}

typedef struct {
	char *dir, *ws, *xdg;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->dir = tu_make_temp_dir();
	f->ws = tu_path(f->dir, "ws");
	f->xdg = tu_path(f->dir, "xdg");
	tu_put(f->ws, ".agent/sessions/.keep", "");
	tu_put(f->xdg, "agent/.keep", "");
	setenv("XDG_CONFIG_HOME", f->xdg, 1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	unsetenv("XDG_CONFIG_HOME");
	tu_remove_tree(f->dir);
	free(f->dir);
	free(f->ws);
	free(f->xdg);
	free(f);
	return 0;
}

/* Loads the workspace's config, fires one change, and says whether a
 * hook started (its log file is created before it runs). */
static bool fires(fixture *f, ac_config **config, char **refusal)
{
	ac_workspace ws = {0};
	ac_hooks *hooks = NULL;
	bool started;

	*refusal = NULL;
	assert_int_equal(ac_config_load(config, f->ws), 0);
	assert_int_equal(ac_workspace_init(&ws, *config), 0);
	assert_int_equal(ac_hooks_new(&hooks, &ws), 0);
	if (ac_hooks_refusal(hooks))
		*refusal = strdup(ac_hooks_refusal(hooks));
	assert_int_equal(ac_hooks_status_changed(hooks, true, "s1", "file", "running", "paused", NULL,
						 NULL), 0);
	started = tu_exists(f->ws, ".agent/hooks.log");
	ac_hooks_free(hooks);
	ac_workspace_free(&ws);
	return started;
}

static void test_project_hooks_need_trust(void **state)
{
	fixture *f = *state;
	ac_config *config = NULL;
	char *refusal;

	tu_put(f->ws, ".agent/config.json",
	       "{\"hooks\": {\"onStatusChange\": [\"true\", \"{id}\"]}}");
	assert_false(fires(f, &config, &refusal));
	assert_non_null(refusal);
	assert_non_null(strstr(refusal, "hooks.onStatusChange"));
	assert_non_null(strstr(refusal, "not trusted"));
	free(refusal);
	assert_int_equal(ac_config_trust(config), 0);
	ac_config_free(config);

	assert_true(fires(f, &config, &refusal));
	assert_null(refusal);
	ac_config_free(config);

	/* Changed content is untrusted again. */
	tu_remove_tree(f->ws);
	tu_put(f->ws, ".agent/config.json",
	       "{\"hooks\": {\"onStatusChange\": [\"false\", \"{id}\"]}}");
	assert_false(fires(f, &config, &refusal));
	assert_non_null(refusal);
	free(refusal);
	ac_config_free(config);
}

static void test_desktop_needs_trust_too(void **state)
{
	fixture *f = *state;
	ac_config *config = NULL;
	char *refusal;

	tu_put(f->ws, ".agent/config.json", "{\"notify\": {\"desktop\": [\"true\"], \"bell\": true}}");
	assert_false(fires(f, &config, &refusal));
	assert_non_null(strstr(refusal, "notify.desktop"));
	free(refusal);
	ac_config_free(config);
}

static void test_user_hooks_are_trusted(void **state)
{
	fixture *f = *state;
	ac_config *config = NULL;
	char *refusal;

	tu_put(f->xdg, "agent/config.json", "{\"hooks\": {\"onStatusChange\": [\"true\"]}}");
	assert_true(fires(f, &config, &refusal));
	assert_null(refusal);
	ac_config_free(config);
}

static void test_embedded_placeholder_refused_on_load(void **state)
{
	fixture *f = *state;
	ac_config *config = NULL;

	tu_put(f->ws, ".agent/config.json",
	       "{\"hooks\": {\"onStatusChange\": [\"sh\", \"-c\", \"echo {new}\"]}}");
	assert_int_equal(ac_config_load(&config, f->ws), AC_EINVAL);
	assert_non_null(strstr(ac_error_last(), "hooks.onStatusChange[2]"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_notifies),
		cmocka_unit_test_setup_teardown(test_project_hooks_need_trust, setup, teardown),
		cmocka_unit_test_setup_teardown(test_desktop_needs_trust_too, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_hooks_are_trusted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_embedded_placeholder_refused_on_load, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
