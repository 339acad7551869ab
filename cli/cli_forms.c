/* The forms of --help, from the command specs (cli_forms.h). */
#include "cli_forms.h"

#include "cli_args.h"

#include <stdbool.h>
#include <string.h>

/* The length of spec's command word ("session" of "session pause"). */
static size_t command_len(const cli_spec *spec)
{
	return strcspn(spec->name, " ");
}

static bool same_command(const cli_spec *a, const cli_spec *b)
{
	size_t n = command_len(a);

	return n == command_len(b) && !strncmp(a->name, b->name, n);
}

/* b's form is a's with another subcommand: it joins a's line. */
static bool same_form(const cli_spec *a, const cli_spec *b)
{
	char a_args[256], b_args[256];

	cli_spec_args(a_args, sizeof(a_args), a);
	cli_spec_args(b_args, sizeof(b_args), b);
	return same_command(a, b) && !a->usage && !b->usage && !strcmp(a_args, b_args) &&
	       a->opts == b->opts && strchr(a->name, ' ') && strchr(b->name, ' ');
}

/* The form of specs[*i] (and of those after it sharing it, *i moved past
 * them) after lead. */
static void put_form(FILE *out, size_t *i, const char *lead)
{
	const cli_spec *spec = &cli_specs[*i];
	char args[256];

	fputs(lead, out);
	if (spec->usage) {
		fprintf(out, "%s\n", spec->usage);
		return;
	}
	fputs(spec->name, out);
	while (*i + 1 < cli_n_specs && same_form(spec, &cli_specs[*i + 1]))
		fprintf(out, "|%s", cli_specs[++*i].name + command_len(spec) + 1);
	cli_spec_args(args, sizeof(args), spec);
	if (args[0])
		fprintf(out, " %s", args);
	for (const cli_opt *o = spec->opts; o && o->name; o++)
		fprintf(out, " [%s%s%s]", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	fputc('\n', out);
}

void cli_forms_put(FILE *out, const char *command, const char *lead)
{
	size_t n = command ? strlen(command) : 0;

	for (size_t i = 0; i < cli_n_specs; i++) {
		const cli_spec *spec = &cli_specs[i];

		if (command && (command_len(spec) != n || strncmp(spec->name, command, n)))
			continue;
		/* "": another spec's form shows this one. */
		if (spec->usage && !spec->usage[0])
			continue;
		put_form(out, &i, lead);
		lead = "       agentctl [-w DIR] ";
	}
}
