/* The forms of `agentctl --help` made from the command specs
 * (cli/cli_forms.h): every spec is shown, each option of a made form, the
 * specs sharing a form on one line, a spec's own usage string as written,
 * and `help COMMAND` shows that command's forms only. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cli_args.h"
#include "cli_forms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEAD "usage: agentctl [-w DIR] "
#define NEXT "       agentctl [-w DIR] "

/* The program's cli_error() (cli.c); the forms say nothing. */
int cli_error(int status, const char *fmt, ...)
{
	(void)fmt;
	return status;
}

/* What cli_forms_put(command, LEAD) writes; the caller frees it. */
static char *forms(const char *command)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	cli_forms_put(out, command, LEAD);
	assert_int_equal(fclose(out), 0);
	return text;
}

/* word stands alone in text: between spaces, '|', '(' or a line's ends. */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *at = text; (at = strstr(at, word)); at++)
		if ((at == text || strchr(" |(\n", at[-1])) && strchr(" |)\n", at[n]))
			return true;
	return false;
}

/* Every subcommand is named in its command's forms, its positional
 * arguments too when its form is made. */
static void test_every_spec_shown(void **state)
{
	(void)state;
	for (size_t i = 0; i < cli_n_specs; i++) {
		const cli_spec *spec = &cli_specs[i];
		char command[32], args[256];
		char *text;

		snprintf(command, sizeof(command), "%.*s", (int)strcspn(spec->name, " "), spec->name);
		text = forms(command);
		if (!has_word(text, spec->name + strlen(command) + (spec->name[strlen(command)] == ' ')))
			fail_msg("%s is in none of its command's forms:\n%s", spec->name, text);
		cli_spec_args(args, sizeof(args), spec);
		if (!spec->usage && args[0] && !strstr(text, args))
			fail_msg("%s's arguments %s are not shown:\n%s", spec->name, args, text);
		free(text);
	}
}

/* A made form shows each option, with its value's name. */
static void test_made_forms_show_options(void **state)
{
	char *all = forms(NULL);

	(void)state;
	for (size_t i = 0; i < cli_n_specs; i++) {
		const cli_spec *spec = &cli_specs[i];

		if (spec->usage)
			continue;
		for (const cli_opt *o = spec->opts; o && o->name; o++) {
			char want[64];

			snprintf(want, sizeof(want), "[%s%s%s]", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
			if (!strstr(all, want))
				fail_msg("%s: %s is not shown", spec->name, want);
		}
	}
	free(all);
}

/* Specs with the same arguments and options share one line. */
static void test_shared_forms_joined(void **state)
{
	char *session = forms("session"), *sandbox = forms("sandbox");

	(void)state;
	assert_non_null(strstr(session,
			       "\n" NEXT "session pause|resume|complete|fail ID [--request-id R]\n"));
	assert_string_equal(sandbox, LEAD "sandbox mirror|sync TENANT SESSION DIR\n");
	free(session);
	free(sandbox);
}

/* A command's forms: its own only, the first after the lead, the others
 * after NEXT; a spec's usage string as written. */
static void test_command_forms(void **state)
{
	char *journal = forms("journal"), *gc = forms("gc"), *usage = forms("usage");

	(void)state;
	assert_string_equal(journal, LEAD "journal log JSON|-\n"
				     NEXT "journal read [--last N] [--all] [--json] [--strict]\n"
				     NEXT "journal query TERM...|\"TERM TERM...\" [--last N] [--all] "
					  "[--json] [--strict]\n"
				     NEXT "journal check [--all]\n"
				     NEXT "journal rotate\n");
	assert_string_equal(gc, LEAD "gc [--keep N] [--older-than AGE] [--dry-run]\n");
	assert_non_null(strstr(usage, "(default: daily)"));
	assert_null(strstr(usage, "\n" NEXT));
	free(journal);
	free(gc);
	free(usage);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_spec_shown),
		cmocka_unit_test(test_made_forms_show_options),
		cmocka_unit_test(test_shared_forms_joined),
		cmocka_unit_test(test_command_forms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
