/* Command specs and their one parser: what each command takes (its
 * options, with their arguments and help, and its positional arguments),
 * written once in a table (cli_specs.c) that parsing, `--help` and the
 * generated man page and completions all read.
 *
 * Not here: what a command does with its arguments, nor the checks on
 * their values (a count, a URL): the commands own those. */
#ifndef CLI_ARGS_H
#define CLI_ARGS_H

#include "cli.h"

#include <stdbool.h>
#include <stddef.h>

/* One option of a command. */
typedef struct {
	const char *name;  /* "--last" (or a short one alone, "-o") */
	const char *alias; /* another spelling ("-o" for "--output"), or NULL */
	const char *arg;   /* the value's name ("N"): it takes one; NULL: a flag */
	const char *help;  /* one line */
	/* Another option of the spec that this one excludes ("--from" for
	 * "--to"), or NULL: giving both is refused (cli_args_parse), and the
	 * zsh completion offers neither once one is given. Written on both. */
	const char *excludes;
} cli_opt;

/* One positional argument of a command. */
typedef struct {
	const char *name; /* "TENANT", "TEXT|-" */
	const char *help; /* one line */
	unsigned flags;   /* CLI_POS_OPTIONAL, CLI_POS_MANY, CLI_POS_SESSION */
} cli_pos;

/* The argument may be left out (only the last ones may be). */
#define CLI_POS_OPTIONAL 1u
/* The last argument, given any number of times ("TERM..."). */
#define CLI_POS_MANY 2u
/* A session's id: the completions offer the workspace's. */
#define CLI_POS_SESSION 4u

/* One command ("gc") or subcommand ("journal query"). */
typedef struct {
	const char *name; /* "journal query": the words that name it */
	/* Its positional arguments, each with its help, ended by an entry
	 * whose name is NULL; NULL: it takes none. The parser refuses a
	 * missing or an extra one. */
	const cli_pos *pos;
	const cli_opt *opts; /* ended by an entry whose name is NULL */
	const char *help;    /* one line */
	unsigned flags;      /* CLI_DASH_ARGS, CLI_SAY_USAGE */
	/* Its form in `agentctl --help` when the one made from name, pos and
	 * opts would not do ("session create TASK [--id ID [--resume]] ..."),
	 * or "" when another spec's form shows it too; NULL: made (cli_forms.h). */
	const char *usage;
	/* What a missing argument is said as, after the name ("needs a
	 * session id": "session show needs a session id"); NULL: "NAME:
	 * missing ARG...". The command says it too when it refuses a value
	 * for the same reason (cli_args_say_missing). */
	const char *missing;
	/* Why an extra argument is refused, after "NAME: unexpected 'ARG'"
	 * in parentheses ("quote a task of several words"), or NULL. */
	const char *extra;
} cli_spec;

/* A word that starts with '-' and is none of the spec's options is an
 * argument, not an unknown option: the ids of sessions other programs
 * wrote may start with '-'. */
#define CLI_DASH_ARGS 1u
/* A missing or an extra argument is said as the command's usage line
 * ("usage: agentctl checkpoint auto SESSION on|off"). */
#define CLI_SAY_USAGE 2u

/* Every command's spec, commands in --help's order. */
extern const cli_spec cli_specs[];
extern const size_t cli_n_specs;

/* Spec's positional arguments as shown ("TENANT OWNER SCOPE NAME
 * [TEXT|-]", "TERM..."), into out. */
void cli_spec_args(char *out, size_t size, const cli_spec *spec);
/* The most positional arguments spec takes; -1: any number. */
int cli_spec_max_args(const cli_spec *spec);
/* How many of them may not be left out. */
int cli_spec_min_args(const cli_spec *spec);

/* The options accepted by every command, before or after its name. */
extern const cli_opt cli_global_opts[];

/* The spec of command (verb may be NULL: a command without subcommands
 * such as gc), or NULL. Borrowed from the table. */
const cli_spec *cli_spec_find(const char *command, const char *verb);

#define CLI_ARGS_MAX 24 /* the most options one spec has, with room */

/* What cli_args_parse found: options by their place in spec->opts, and the
 * positional arguments in order. All strings are borrowed from argv. */
typedef struct {
	const cli_spec *spec;
	const char *value[CLI_ARGS_MAX]; /* an option's value; a flag's is its name */
	char **pos;                      /* the positional arguments (argv's slots) */
	int npos;
} cli_args;

/* Parses argv (the arguments after the command's words) by spec: options
 * anywhere, as `--opt VALUE`, `--opt=VALUE` or the alias; a given option
 * again takes the later value; "--" ends options; "-" is an argument.
 * The positional arguments are moved to the front of argv (out->pos).
 * CLI_USAGE with one line said (naming the argument) for an unknown
 * option, a missing value, one argument too many, an argument spec->pos
 * has that is missing ("memo read: missing SCOPE NAME", or as
 * spec->missing says), or two options that exclude each other. */
int cli_args_parse(cli_args *out, const cli_spec *spec, int argc, char **argv);

/* CLI_USAGE, said as a missing argument of a's spec is: for a command
 * that refuses a given one for the same reason (an empty text, or an
 * argument that an option may stand for and neither was given). */
int cli_args_say_missing(const cli_args *a);

/* cli_args_parse() by the spec whose name is name ("journal query"). */
int cli_args_parse_as(cli_args *out, const char *name, int argc, char **argv);

/* The value of option name (as spec writes it), or NULL when not given. */
const char *cli_args_get(const cli_args *a, const char *name);
/* True when option name was given. */
bool cli_args_has(const cli_args *a, const char *name);

/* Takes the global options (cli_global_opts) out of argv, the arguments
 * after the command name, into ctx, up to "--"; command's spec says which
 * of its options take a value (not read as a global). *argc shrinks.
 * An option given twice with different values, before or after the
 * command, is CLI_USAGE, said in one line; a missing value too. */
int cli_args_take_globals(cli_context *ctx, const char *command, int *argc, char **argv);

/* One global option at argv[*i]: set in ctx (*i moves past its value).
 * CLI_OK, CLI_USAGE (said) when it is bad, or -1 when argv[*i] is not a
 * global option. */
int cli_args_global(cli_context *ctx, int argc, char **argv, int *i);

/* Writes spec's usage line, its help and its options with theirs (then
 * the global options) to out. lead goes before the usage line ("usage:
 * agentctl [-w DIR] "). */
void cli_args_put_help(FILE *out, const cli_spec *spec, const char *lead);
/* The same without the usage line. */
void cli_args_put_options(FILE *out, const cli_spec *spec);

#endif
