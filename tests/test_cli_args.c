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
#include <stdlib.h>
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

/* parse() of the words with, after them, the positional arguments spec
 * cannot do without ("P"), so that only the words are judged. */
static int parse_words(cli_args *out, const cli_spec *spec, int argc, char **argv)
{
	static char *words[16];
	static char placeholder[] = "P";
	int n = 0;

	for (int i = 0; i < argc && n < 15; i++)
		words[n++] = argv[i];
	for (int i = 0; i < cli_spec_min_args(spec) && n < 15; i++)
		words[n++] = placeholder;
	words[n] = NULL;
	return cli_args_parse(out, spec, n, words);
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
				assert_int_equal(parse_words(&a, spec, 2, with_value), CLI_OK);
				assert_string_equal(cli_args_get(&a, o->name), "V1");
				assert_int_equal(a.npos, cli_spec_min_args(spec));
				snprintf(eq, sizeof(eq), "%s=V3", o->name);
				char **inline_value = ARGV(eq);
				assert_int_equal(parse_words(&a, spec, 1, inline_value), CLI_OK);
				assert_string_equal(cli_args_get(&a, o->name), "V3");
				/* The value is missing: refused (before any
				 * argument is missed). */
				char **missing = ARGV(o->name);
				assert_refused(parse(&a, spec, 1, missing), o->name);
			} else {
				assert_int_equal(parse_words(&a, spec, 1, flag), CLI_OK);
				assert_true(cli_args_has(&a, o->name));
				/* A flag takes no value (or, where a word with a dash
				 * may be an id, that word is one). */
				snprintf(eq, sizeof(eq), "%s=x", o->name);
				char **flag_value = ARGV(eq);
				if (spec->flags & CLI_DASH_ARGS) {
					/* in the place of the last argument */
					int n = cli_spec_min_args(spec);
					char **words = ARGV(eq, "P", "P", "P", "P", "P");

					assert_int_equal(parse(&a, spec, n ? n : 1, words), CLI_OK);
				} else
					assert_refused(parse_words(&a, spec, 1, flag_value), eq);
			}
			if (o->alias) {
				assert_int_equal(parse_words(&a, spec, o->arg ? 2 : 1, alias), CLI_OK);
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
			/* An id that starts with '-' (another program's session),
			 * or a memo's text: an argument, in the place of the last. */
			int n = cli_spec_min_args(&cli_specs[s]);
			char **words = ARGV("P", "P", "P", "P", "P", "P");

			words[n ? n - 1 : 0] = argv[0];
			assert_int_equal(parse(&a, &cli_specs[s], n ? n : 1, words), CLI_OK);
			assert_int_equal(a.npos, n ? n : 1);
			assert_string_equal(a.pos[n ? n - 1 : 0], "--no-such-option-x");
			continue;
		}
		assert_refused(parse_words(&a, &cli_specs[s], 1, argv), "'--no-such-option-x'");
		/* Nor is a global option a command's own: main takes those. */
		assert_refused(parse_words(&a, &cli_specs[s], 1, ARGV("--storage")), "--storage");
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

/* A spec with named positional arguments: the parser judges their count,
 * naming the command and what is missing or extra. */
static void test_positional_arguments_by_name_are_counted(void **state)
{
	const cli_spec *read = cli_spec_find("memo", "read");
	const cli_spec *write = cli_spec_find("memo", "write");
	const cli_spec *mirror = cli_spec_find("sandbox", "mirror");
	const cli_spec *rotate = cli_spec_find("journal", "rotate");
	const cli_spec *log = cli_spec_find("journal", "log");
	cli_args a;

	(void)state;
	assert_int_equal(parse(&a, read, 4, ARGV("t", "u", "session", "n")), CLI_OK);
	assert_int_equal(a.npos, 4);
	assert_refused(parse(&a, read, 2, ARGV("t", "u")), "memo read: missing SCOPE NAME");
	assert_refused(parse(&a, read, 5, ARGV("t", "u", "s", "n", "x")),
		       "memo read: unexpected 'x'");
	assert_refused(parse(&a, write, 4, ARGV("t", "u", "s", "n")), "memo write: missing TEXT|-");
	/* A memo's text may start with a dash. */
	assert_int_equal(parse(&a, write, 5, ARGV("t", "u", "s", "n", "-- a list")), CLI_OK);
	assert_string_equal(a.pos[4], "-- a list");
	assert_refused(parse(&a, mirror, 0, ARGV(NULL)),
		       "sandbox mirror: missing TENANT SESSION DIR");
	assert_refused(parse(&a, rotate, 1, ARGV("x")), "journal rotate: unexpected 'x'");
	assert_refused(parse(&a, log, 0, ARGV(NULL)), "journal log: missing JSON|-");
	assert_int_equal(parse(&a, log, 1, ARGV("-")), CLI_OK);
}

/* A missing or an extra argument is said as the command always said it:
 * its own words where it has them (spec->missing, spec->extra), the
 * usage line for checkpoint auto. */
static void test_missing_and_extra_arguments_are_said_as_before(void **state)
{
	char **none = ARGV(NULL), **many = ARGV("a", "b", "c", "d", "e", "f", "g");
	char want[512];
	cli_args a;

	(void)state;
	for (size_t s = 0; s < cli_n_specs; s++) {
		const cli_spec *spec = &cli_specs[s];
		int max = cli_spec_max_args(spec);

		if (cli_spec_min_args(spec) > 0) {
			assert_int_equal(parse(&a, spec, 0, none), CLI_USAGE);
			if (spec->missing) {
				snprintf(want, sizeof(want), "%s %s", spec->name, spec->missing);
				assert_string_equal(said, want);
			}
			n_said = 0;
		}
		if (max >= 0) {
			assert_int_equal(parse(&a, spec, max + 1, many), CLI_USAGE);
			if (!(spec->flags & CLI_SAY_USAGE)) {
				snprintf(want, sizeof(want), "%s: unexpected '%s'", spec->name, many[max]);
				assert_memory_equal(said, want, strlen(want));
			}
			n_said = 0;
		}
	}
	assert_refused(parse(&a, cli_spec_find("session", "show"), 0, none),
		       "session show needs a session id");
	assert_refused(parse(&a, cli_spec_find("session", "pause"), 0, none),
		       "session pause takes one session id");
	assert_refused(parse(&a, cli_spec_find("session", "create"), 2, ARGV("a", "b")),
		       "session create: unexpected 'b' (quote a task of several words)");
	assert_refused(parse(&a, cli_spec_find("journal", "read"), 1, ARGV("x")),
		       "journal read: unexpected 'x' (to filter, use 'journal query')");
	assert_refused(parse(&a, cli_spec_find("journal", "query"), 1, ARGV("--json")),
		       "journal query needs at least one term, e.g. agent=Claude");
	assert_refused(parse(&a, cli_spec_find("checkpoint", "auto"), 1, ARGV("s")),
		       "usage: agentctl checkpoint auto SESSION on|off");
	assert_refused(parse(&a, cli_spec_find("checkpoint", "auto"), 3, ARGV("s", "on", "x")),
		       "usage: agentctl checkpoint auto SESSION on|off");
	/* An argument an option stands for, or none given: the same words. */
	assert_int_equal(parse(&a, cli_spec_find("ops", "rollback"), 1, ARGV("--finish")), CLI_OK);
	assert_refused(cli_args_say_missing(&a), "ops rollback needs an operation id (or --finish, "
						 "--undo)");
	/* Terms and ids that start with a dash, after "--" or by the spec. */
	assert_int_equal(parse(&a, cli_spec_find("journal", "query"), 2, ARGV("--", "-x")), CLI_OK);
	assert_string_equal(a.pos[0], "-x");
	assert_int_equal(parse(&a, cli_spec_find("session", "show"), 1, ARGV("-x")), CLI_OK);
	assert_string_equal(a.pos[0], "-x");
	assert_int_equal(parse(&a, cli_spec_find("checkpoint", "auto"), 2, ARGV("-x", "on")), CLI_OK);
	assert_int_equal(parse(&a, cli_spec_find("session", "create"), 2, ARGV("--", "-t")), CLI_OK);
	assert_string_equal(a.pos[0], "-t");
}

/* The arguments as --help, the forms and the man page show them. */
static void test_positional_arguments_are_shown_with_their_help(void **state)
{
	char args[256], *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	(void)state;
	cli_spec_args(args, sizeof(args), cli_spec_find("memo", "write"));
	assert_string_equal(args, "TENANT OWNER SCOPE NAME TEXT|-");
	cli_spec_args(args, sizeof(args), cli_spec_find("session", "append"));
	assert_string_equal(args, "ID JSON|-");
	assert_int_equal(cli_spec_max_args(cli_spec_find("memo", "list")), 3);
	assert_int_equal(cli_spec_max_args(cli_spec_find("journal", "query")), -1);
	assert_int_equal(cli_spec_min_args(cli_spec_find("session", "show")), 1);
	assert_int_equal(cli_spec_min_args(cli_spec_find("checkpoint", "rollback")), 1);
	assert_int_equal(cli_spec_max_args(cli_spec_find("checkpoint", "rollback")), 2);
	cli_spec_args(args, sizeof(args), cli_spec_find("journal", "query"));
	assert_string_equal(args, "TERM...");
	cli_spec_args(args, sizeof(args), cli_spec_find("usage", NULL));
	assert_string_equal(args, "[daily|session|block]");
	cli_args_put_help(out, cli_spec_find("sandbox", "sync"), "usage: ");
	fclose(out);
	assert_non_null(strstr(text, "usage: sandbox sync TENANT SESSION DIR\n"));
	assert_non_null(strstr(text, "    SESSION  the session whose memos"));
	assert_non_null(strstr(text, "    DIR      the mirror folder"));
	free(text);
}

/* Options that exclude each other: both given is refused, naming both;
 * each names the other, an option of its spec. */
static void test_options_that_exclude_each_other(void **state)
{
	const cli_spec *rollback = cli_spec_find("checkpoint", "rollback");
	const cli_spec *migrate = cli_spec_find("storage", "migrate");
	int pairs = 0;
	cli_args a;

	(void)state;
	assert_refused(parse(&a, rollback, 4, ARGV("s", "--latest", "--skip-uncertain",
						   "--rerun-uncertain")),
		       "checkpoint rollback: --skip-uncertain and --rerun-uncertain exclude each "
		       "other");
	assert_int_equal(parse(&a, rollback, 3, ARGV("s", "--latest", "--rerun-uncertain")),
			 CLI_OK);
	assert_refused(parse(&a, migrate, 3, ARGV("--to", "a", "--from=b")),
		       "storage migrate: --to and --from exclude each other");
	assert_int_equal(parse(&a, migrate, 2, ARGV("--from", "b")), CLI_OK);
	for (size_t s = 0; s < cli_n_specs; s++) {
		for (const cli_opt *o = cli_specs[s].opts; o && o->name; o++) {
			const cli_opt *other = NULL;

			if (!o->excludes)
				continue;
			for (const cli_opt *p = cli_specs[s].opts; p->name; p++)
				if (!strcmp(p->name, o->excludes))
					other = p;
			assert_non_null(other);
			assert_non_null(other->excludes);
			assert_string_equal(other->excludes, o->name);
			pairs++;
		}
	}
	assert_int_equal(pairs, 4);
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
		/* Its arguments by name and help: only the last ones may be
		 * left out, only the last given any number of times. */
		for (const cli_pos *p = cli_specs[s].pos; p && p->name; p++) {
			assert_true(p->help && p->help[0]);
			if (p > cli_specs[s].pos && (p[-1].flags & CLI_POS_OPTIONAL))
				assert_true(p->flags & CLI_POS_OPTIONAL);
			if (p->flags & CLI_POS_MANY)
				assert_null(p[1].name);
		}
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

/* After a command that takes its arguments by name, the same. */
static void test_global_options_after_positional_arguments(void **state)
{
	cli_context ctx = {0};
	char **argv = ARGV("read", "t", "u", "session", "n", "--storage", "postgresql://x", "-w",
			   "/tmp");
	int argc = 9;
	cli_args a;

	(void)state;
	assert_int_equal(cli_args_take_globals(&ctx, "memo", &argc, argv), CLI_OK);
	assert_int_equal(argc, 5);
	assert_string_equal(ctx.storage, "postgresql://x");
	assert_string_equal(ctx.workspace, "/tmp");
	assert_int_equal(cli_args_parse_as(&a, "memo read", argc - 1, argv + 1), CLI_OK);
	assert_int_equal(a.npos, 4);
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
		cmocka_unit_test(test_positional_arguments_by_name_are_counted),
		cmocka_unit_test(test_missing_and_extra_arguments_are_said_as_before),
		cmocka_unit_test(test_positional_arguments_are_shown_with_their_help),
		cmocka_unit_test(test_options_that_exclude_each_other),
		cmocka_unit_test(test_the_later_value_wins),
		cmocka_unit_test(test_every_spec_is_found_by_its_name),
		cmocka_unit_test(test_global_options_after_the_command),
		cmocka_unit_test(test_global_options_after_positional_arguments),
		cmocka_unit_test(test_a_command_options_value_is_not_a_global),
		cmocka_unit_test(test_a_global_given_twice_differently_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
