/* The one parser of command lines, over the specs of cli_specs.c. */
#include "cli_args.h"

#include <string.h>

const cli_spec *cli_spec_find(const char *command, const char *verb)
{
	size_t n = strlen(command);

	for (size_t i = 0; i < cli_n_specs; i++) {
		const char *name = cli_specs[i].name;

		if (strncmp(name, command, n) != 0)
			continue;
		if (!verb ? name[n] == '\0' : name[n] == ' ' && !strcmp(name + n + 1, verb))
			return &cli_specs[i];
	}
	return NULL;
}

/* The option of opts that arg names (as `--opt` or `--opt=VALUE`), or
 * NULL; *inline_value points after '=' when it was written so. */
static const cli_opt *find_opt(const cli_opt *opts, const char *arg, const char **inline_value)
{
	*inline_value = NULL;
	for (const cli_opt *o = opts; o && o->name; o++) {
		const char *names[2] = {o->name, o->alias};

		for (int k = 0; k < 2 && names[k]; k++) {
			size_t len = strlen(names[k]);

			if (strncmp(arg, names[k], len) != 0)
				continue;
			if (arg[len] == '\0')
				return o;
			if (arg[len] == '=' && o->arg) {
				*inline_value = arg + len + 1;
				return o;
			}
		}
	}
	return NULL;
}

static bool is_option(const char *arg)
{
	return arg[0] == '-' && arg[1] != '\0';
}

/* CLI_USAGE, said, when two options given exclude each other. */
static int check_excluded(const cli_args *a)
{
	for (const cli_opt *o = a->spec->opts; o && o->name; o++)
		if (o->excludes && a->value[o - a->spec->opts] && cli_args_has(a, o->excludes))
			return cli_error(CLI_USAGE, "%s: %s and %s exclude each other", a->spec->name,
					 o->name, o->excludes);
	return CLI_OK;
}

/* spec's usage line after lead ("usage: agentctl checkpoint auto
 * SESSION on|off [OPTION]..."), into out. */
static void usage_line(char *out, size_t size, const cli_spec *spec, const char *lead)
{
	char args[256];

	cli_spec_args(args, sizeof(args), spec);
	snprintf(out, size, "%s%s%s%s%s", lead, spec->name, args[0] ? " " : "", args,
		 spec->opts && spec->opts[0].name ? " [OPTION]..." : "");
}

/* CLI_USAGE, said as spec's usage line (CLI_SAY_USAGE). */
static int say_usage(const cli_spec *spec)
{
	char line[512];

	usage_line(line, sizeof(line), spec, "usage: agentctl ");
	return cli_error(CLI_USAGE, "%s", line);
}

int cli_args_say_missing(const cli_args *a)
{
	const cli_spec *spec = a->spec;
	char missing[256];
	size_t len = 0;

	if (spec->flags & CLI_SAY_USAGE)
		return say_usage(spec);
	if (spec->missing)
		return cli_error(CLI_USAGE, "%s %s", spec->name, spec->missing);
	missing[0] = '\0';
	for (int i = a->npos; spec->pos && spec->pos[i].name && len < sizeof(missing); i++)
		if (!(spec->pos[i].flags & CLI_POS_OPTIONAL))
			len += (size_t)snprintf(missing + len, sizeof(missing) - len, "%s%s",
						len ? " " : "", spec->pos[i].name);
	return cli_error(CLI_USAGE, "%s: missing %s", spec->name, missing);
}

/* CLI_USAGE, said, for arg, one argument more than spec takes. */
static int say_extra(const cli_spec *spec, const char *arg)
{
	if (spec->flags & CLI_SAY_USAGE)
		return say_usage(spec);
	return cli_error(CLI_USAGE, "%s: unexpected '%s'%s%s%s", spec->name, arg,
			 spec->extra ? " (" : "", spec->extra ? spec->extra : "",
			 spec->extra ? ")" : "");
}

int cli_args_parse(cli_args *out, const cli_spec *spec, int argc, char **argv)
{
	int max_args = cli_spec_max_args(spec), status;
	bool options_done = false;

	memset(out, 0, sizeof(*out));
	out->spec = spec;
	out->pos = argv;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i], *value;
		const cli_opt *o;

		o = options_done || !is_option(arg) ? NULL : find_opt(spec->opts, arg, &value);
		if (options_done || !is_option(arg) ||
		    (!o && (spec->flags & CLI_DASH_ARGS) && strcmp(arg, "--") != 0)) {
			if (max_args >= 0 && out->npos >= max_args)
				return say_extra(spec, arg);
			/* Options only ever drop out, so this slot is free. */
			argv[out->npos++] = argv[i];
			continue;
		}
		if (!strcmp(arg, "--")) {
			options_done = true;
			continue;
		}
		if (!o)
			return cli_error(CLI_USAGE, "%s: unknown option '%s'", spec->name, arg);
		if (o->arg && !value) {
			if (i + 1 >= argc)
				return cli_error(CLI_USAGE, "%s: %s needs a value (%s)", spec->name,
						 o->name, o->arg);
			value = argv[++i];
		}
		out->value[o - spec->opts] = o->arg ? value : o->name;
	}
	if ((status = check_excluded(out)))
		return status;
	return out->npos < cli_spec_min_args(spec) ? cli_args_say_missing(out) : CLI_OK;
}

int cli_args_parse_as(cli_args *out, const char *name, int argc, char **argv)
{
	for (size_t i = 0; i < cli_n_specs; i++)
		if (!strcmp(cli_specs[i].name, name))
			return cli_args_parse(out, &cli_specs[i], argc, argv);
	return cli_error(CLI_FAILED, "%s: no such command spec", name);
}

static int opt_index(const cli_args *a, const char *name)
{
	for (int i = 0; a->spec->opts && a->spec->opts[i].name; i++)
		if (!strcmp(a->spec->opts[i].name, name))
			return i;
	return -1;
}

const char *cli_args_get(const cli_args *a, const char *name)
{
	int i = opt_index(a, name);

	return i < 0 ? NULL : a->value[i];
}

bool cli_args_has(const cli_args *a, const char *name)
{
	return cli_args_get(a, name) != NULL;
}

/* Sets *field to value, refusing a second, different one. */
static int set_once(const char **field, const char *name, const char *value)
{
	if (*field && strcmp(*field, value) != 0)
		return cli_error(CLI_USAGE, "%s given twice with different values ('%s' and '%s')",
				 name, *field, value);
	*field = value;
	return CLI_OK;
}

int cli_args_global(cli_context *ctx, int argc, char **argv, int *i)
{
	const char *value;
	const cli_opt *o = find_opt(cli_global_opts, argv[*i], &value);

	if (!o)
		return -1;
	if (o->arg && !value) {
		if (*i + 1 >= argc)
			return cli_error(CLI_USAGE, "%s needs a value (%s)", argv[*i], o->arg);
		value = argv[++*i];
	}
	if (!strcmp(o->name, "--workspace"))
		return set_once(&ctx->workspace, o->name, value);
	if (!strcmp(o->name, "--storage"))
		return set_once(&ctx->storage, o->name, value);
	if (!strcmp(o->name, "--theme"))
		return set_once(&ctx->theme, o->name, value);
	if (!strcmp(o->name, "--read-only"))
		ctx->read_only = true;
	else if (!strcmp(o->name, "--poll"))
		ctx->poll = true;
	return CLI_OK;
}

int cli_args_take_globals(cli_context *ctx, const char *command, int *argc, char **argv)
{
	const cli_spec *spec = cli_spec_find(command, NULL);
	int kept = 0, i, status;

	for (i = 0; i < *argc; i++) {
		const char *arg = argv[i], *value;
		const cli_opt *o;

		if (!strcmp(arg, "--"))
			break;
		if (!is_option(arg)) {
			/* The first word names the subcommand, whose options
			 * tell a value from a global option. */
			if (!spec)
				spec = cli_spec_find(command, arg);
			argv[kept++] = argv[i];
			continue;
		}
		if (spec && (o = find_opt(spec->opts, arg, &value))) {
			argv[kept++] = argv[i];
			if (o->arg && !value && i + 1 < *argc)
				argv[kept++] = argv[++i];
			continue;
		}
		if ((status = cli_args_global(ctx, *argc, argv, &i)) > 0)
			return status;
		if (status < 0) /* not a global: the command's to judge */
			argv[kept++] = argv[i];
	}
	while (i < *argc)
		argv[kept++] = argv[i++];
	*argc = kept;
	return CLI_OK;
}

/* "-o, --output FILE": how an option is written. */
static void opt_synopsis(char *out, size_t size, const cli_opt *o)
{
	snprintf(out, size, "%s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "", o->name,
		 o->arg ? " " : "", o->arg ? o->arg : "");
}

static void put_opts(FILE *out, const cli_opt *opts)
{
	char left[128];
	int width = 0;

	for (const cli_opt *o = opts; o && o->name; o++) {
		opt_synopsis(left, sizeof(left), o);
		if ((int)strlen(left) > width)
			width = (int)strlen(left);
	}
	for (const cli_opt *o = opts; o && o->name; o++) {
		opt_synopsis(left, sizeof(left), o);
		fprintf(out, "    %-*s  %s\n", width, left, o->help);
	}
}

/* The positional arguments with their help, in put_opts' layout. */
static void put_pos(FILE *out, const cli_pos *pos)
{
	int width = 0;

	for (const cli_pos *p = pos; p && p->name; p++)
		if ((int)strlen(p->name) > width)
			width = (int)strlen(p->name);
	for (const cli_pos *p = pos; p && p->name; p++)
		fprintf(out, "    %-*s  %s%s\n", width, p->name, p->help,
			p->flags & CLI_POS_OPTIONAL ? " (may be left out)" : "");
}

void cli_args_put_options(FILE *out, const cli_spec *spec)
{
	fprintf(out, "  %s\n", spec->help);
	put_pos(out, spec->pos);
	put_opts(out, spec->opts);
	fputs("  and the global options, before or after the command:\n", out);
	put_opts(out, cli_global_opts);
}

void cli_args_put_help(FILE *out, const cli_spec *spec, const char *lead)
{
	char line[512];

	usage_line(line, sizeof(line), spec, lead);
	fprintf(out, "%s\n", line);
	cli_args_put_options(out, spec);
}
