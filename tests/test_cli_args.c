/* The command specs and their one parser (cli/cli_args.h): every option of
 * every spec is accepted, as `--opt VALUE`, `--opt=VALUE` and its alias;
 * an unknown option, a missing value and an argument too many are refused;
 * "--" ends options; the global options are taken after the command too,
 * and refused when given twice with different values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cli_args.h"

#include <stdio.h>
#include <string.h>

/* A writable argv of the words (the parser moves its slots); eight at
 * a time can be in use. */
#define ARGV(...) argv_of((const char *[]){__VA_ARGS__, NULL})

static char **argv_of(const char **words)
{
	static char *slots[8][16];
	static int next;
	char **out = slots[next++ % 8];
	int i;

	for (i = 0; words[i] && i < 15; i++)
		out[i] = (char *)words[i];
	out[i] = NULL;
	return out;
}

/* The program's cli_error() (cli.c), recording the last line said. */
static char said[512];
static int n_said;

int cli_error(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(said, sizeof(said), fmt, ap);
	va_end(ap);
	n_said++;
	return status;
}

/* Refused: CLI_USAGE, one line said, which names word. */
static void assert_refused(int rc, const char *word)
{
	assert_int_equal(rc, CLI_USAGE);
	assert_int_equal(n_said, 1);
	assert_non_null(strstr(said, word));
	n_said = 0;
}

static int parse(cli_args *out, const cli_spec *spec, int argc, char **argv)
{
	return cli_args_parse(out, spec, argc, argv);
}

static void test_every_option_of_every_spec_is_accepted(void **state)
{
	(void)state;
	for (size_t s = 0; s < cli_n_specs; s++) {
		const cli_spec *spec = &cli_specs[s];

		for (const cli_opt *o = spec->opts; o && o->name; o++) {
			char eq[128];
			char **with_value = ARGV(o->name, "V1");
			char **flag = ARGV(o->name);
			char **alias = ARGV(o->alias ? o->alias : "", "V2");
			cli_args a;

			if (o->arg) {
				assert_int_equal(parse(&a, spec, 2, with_value), CLI_OK);
				assert_string_equal(cli_args_get(&a, o->name), "V1");
				assert_int_equal(a.npos, 0);
				snprintf(eq, sizeof(eq), "%s=V3", o->name);
				char **inline_value = ARGV(eq);
				assert_int_equal(parse(&a, spec, 1, inline_value), CLI_OK);
				assert_string_equal(cli_args_get(&a, o->name), "V3");
				/* The value is missing: refused. */
				char **missing = ARGV(o->name);
				assert_refused(parse(&a, spec, 1, missing), o->name);
			} else {
				assert_int_equal(parse(&a, spec, 1, flag), CLI_OK);
				assert_true(cli_args_has(&a, o->name));
				/* A flag takes no value (or, where a word with a dash
				 * may be an id, that word is one). */
				snprintf(eq, sizeof(eq), "%s=x", o->name);
				char **flag_value = ARGV(eq);
				if (spec->flags & CLI_DASH_ARGS)
					assert_int_equal(parse(&a, spec, 1, flag_value), CLI_OK);
				else
					assert_refused(parse(&a, spec, 1, flag_value), eq);
			}
			if (o->alias) {
				assert_int_equal(parse(&a, spec, o->arg ? 2 : 1, alias), CLI_OK);
				assert_string_equal(cli_args_get(&a, o->name), o->arg ? "V2" : o->name);
			}
		}
	}
}

static void test_unknown_options_are_refused_by_every_spec(void **state)
{
	(void)state;
	for (size_t s = 0; s < cli_n_specs; s++) {
		char **argv = ARGV("--no-such-option-x");
		cli_args a;

		if (cli_specs[s].flags & CLI_DASH_ARGS) {
			/* An id that starts with '-' (another program's session). */
			assert_int_equal(parse(&a, &cli_specs[s], 1, argv), CLI_OK);
			assert_int_equal(a.npos, 1);
			assert_string_equal(a.pos[0], "--no-such-option-x");
			continue;
		}
		assert_refused(parse(&a, &cli_specs[s], 1, argv), "'--no-such-option-x'");
		/* Nor is a global option a command's own: main takes those. */
		assert_refused(parse(&a, &cli_specs[s], 1, ARGV("--storage")), "--storage");
	}
}

static void test_positional_arguments_in_order_among_options(void **state)
{
	const cli_spec *spec = cli_spec_find("session", "append");
	char **argv = ARGV("--json", "s1", "--request-id", "r1", "-");
	cli_args a;

	(void)state;
	assert_non_null(spec);
	assert_int_equal(parse(&a, spec, 5, argv), CLI_OK);
	assert_int_equal(a.npos, 2);
	assert_string_equal(a.pos[0], "s1");
	assert_string_equal(a.pos[1], "-"); /* "-" is standard input, an argument */
	assert_string_equal(cli_args_get(&a, "--request-id"), "r1");
	assert_true(cli_args_has(&a, "--json"));
	/* A third is one too many, named. */
	assert_refused(parse(&a, spec, 3, ARGV("s1", "-", "extra")), "'extra'");
}

static void test_a_value_may_start_with_a_dash(void **state)
{
	const cli_spec *spec = cli_spec_find("session", "create");
	cli_args a;

	(void)state;
	assert_int_equal(parse(&a, spec, 3, ARGV("task", "--id", "-x")), CLI_OK);
	assert_string_equal(cli_args_get(&a, "--id"), "-x");
	assert_int_equal(a.npos, 1);
}

static void test_double_dash_ends_options(void **state)
{
	const cli_spec *query = cli_spec_find("journal", "query");
	const cli_spec *gc = cli_spec_find("gc", NULL);
	cli_args a;

	(void)state;
	assert_int_equal(parse(&a, query, 4, ARGV("--json", "--", "--all", "agent=x")), CLI_OK);
	assert_true(cli_args_has(&a, "--json"));
	assert_false(cli_args_has(&a, "--all"));
	assert_int_equal(a.npos, 2);
	assert_string_equal(a.pos[0], "--all");
	/* After "--", a word is an argument, and gc takes none. */
	assert_refused(parse(&a, gc, 2, ARGV("--", "--dry-run")), "'--dry-run'");
}

static void test_the_later_value_wins(void **state)
{
	const cli_spec *gc = cli_spec_find("gc", NULL);
	cli_args a;

	(void)state;
	assert_int_equal(parse(&a, gc, 3, ARGV("--keep", "3", "--keep=4")), CLI_OK);
	assert_string_equal(cli_args_get(&a, "--keep"), "4");
}

static void test_every_spec_is_found_by_its_name(void **state)
{
	(void)state;
	for (size_t s = 0; s < cli_n_specs; s++) {
		char command[64];
		const char *space = strchr(cli_specs[s].name, ' ');

		snprintf(command, sizeof(command), "%.*s",
			 space ? (int)(space - cli_specs[s].name) : (int)strlen(cli_specs[s].name),
			 cli_specs[s].name);
		assert_ptr_equal(cli_spec_find(command, space ? space + 1 : NULL), &cli_specs[s]);
		assert_true(cli_specs[s].help && cli_specs[s].help[0]);
		assert_non_null(cli_specs[s].args);
	}
	assert_null(cli_spec_find("session", "frobnicate"));
	assert_null(cli_spec_find("sess", "list"));
}

static void test_global_options_after_the_command(void **state)
{
	cli_context ctx = {0};
	char **argv = ARGV("check", "--storage", "postgresql://x", "-w", "/tmp", "--read-only",
			   "--poll", "--theme=light");
	int argc = 8;

	(void)state;
	assert_int_equal(cli_args_take_globals(&ctx, "storage", &argc, argv), CLI_OK);
	assert_int_equal(argc, 1);
	assert_string_equal(argv[0], "check");
	assert_string_equal(ctx.storage, "postgresql://x");
	assert_string_equal(ctx.workspace, "/tmp");
	assert_string_equal(ctx.theme, "light");
	assert_true(ctx.read_only);
	assert_true(ctx.poll);
}

static void test_a_command_options_value_is_not_a_global(void **state)
{
	cli_context ctx = {0};
	char **argv = ARGV("record", "--details", "--storage", "--", "--poll");
	int argc = 5;

	(void)state;
	assert_int_equal(cli_args_take_globals(&ctx, "ops", &argc, argv), CLI_OK);
	assert_int_equal(argc, 5);
	assert_null(ctx.storage);
	assert_false(ctx.poll); /* after "--" */
	assert_string_equal(argv[2], "--storage");
}

static void test_a_global_given_twice_differently_is_refused(void **state)
{
	cli_context ctx = {.storage = "a"};
	char **same = ARGV("check", "--storage", "a");
	char **other = ARGV("check", "--storage=b");
	char **twice = ARGV("list", "-w", "x", "--workspace", "y");
	char **missing = ARGV("list", "--theme");
	int argc = 3;

	(void)state;
	assert_int_equal(cli_args_take_globals(&ctx, "storage", &argc, same), CLI_OK);
	assert_int_equal(argc, 1);
	argc = 2;
	assert_refused(cli_args_take_globals(&ctx, "storage", &argc, other), "--storage");
	ctx = (cli_context){0};
	argc = 5;
	assert_refused(cli_args_take_globals(&ctx, "session", &argc, twice), "--workspace");
	ctx = (cli_context){0};
	argc = 2;
	assert_refused(cli_args_take_globals(&ctx, "session", &argc, missing), "--theme");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_option_of_every_spec_is_accepted),
		cmocka_unit_test(test_unknown_options_are_refused_by_every_spec),
		cmocka_unit_test(test_positional_arguments_in_order_among_options),
		cmocka_unit_test(test_a_value_may_start_with_a_dash),
		cmocka_unit_test(test_double_dash_ends_options),
		cmocka_unit_test(test_the_later_value_wins),
		cmocka_unit_test(test_every_spec_is_found_by_its_name),
		cmocka_unit_test(test_global_options_after_the_command),
		cmocka_unit_test(test_a_command_options_value_is_not_a_global),
		cmocka_unit_test(test_a_global_given_twice_differently_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
