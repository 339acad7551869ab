/* agentctl-gen-docs: writes the parts of the shell completions and the
 * man page that list commands and options, from the command specs
 * (cli/cli_specs.c), and the man page's lists of dashboard keys (the key
 * table, tui/keys.c) and configuration keys (core/ac_config.c), between
 * the marker lines of the committed files, so they never drift from what
 * the program takes.
 *
 *   agentctl-gen-docs --check FILE...   exit 1 (and say which) when a FILE's
 *                                       generated part differs
 *   agentctl-gen-docs --write FILE...   rewrite those parts
 *
 * FILE is completions/agentctl.bash or completions/_agentctl (zsh) (the
 * lists their functions read) or docs/agentctl.1 (its COMMANDS summary,
 * DASHBOARD KEYS and CONFIGURATION lists); a part lies between a line
 * holding its mark (BEGIN_MARK...) and one holding END_MARK. Built by CMake, run by
 * ctest (generated_docs) and by the gen-docs target; not installed. */
#include "cli_args.h"
#include "keys.h"
#include "view.h"

#include "ac_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The marker lines hold these, after the file's comment leader: a part
 * begins with the line naming its source. */
#define BEGIN_MARK "---- generated from cli/cli_specs.c by agentctl-gen-docs: do not edit ----\n"
#define KEYS_MARK "---- generated from tui/keys.c by agentctl-gen-docs: do not edit ----\n"
#define CONFIG_MARK "---- generated from core/ac_config.c by agentctl-gen-docs: do not edit ----\n"
#define END_MARK "---- end of the generated part ----\n"

/* The command word of spec (its name up to a space) into word. */
static void command_of(char *word, size_t size, const cli_spec *spec)
{
	snprintf(word, size, "%.*s", (int)strcspn(spec->name, " "), spec->name);
}

/* Appends word to the space-separated list out holds after its opening
 * quote, once. */
static void add_word(ac_buf *out, size_t list_start, const char *word)
{
	size_t n = strlen(word);

	for (const char *at = out->data + list_start; (at = strstr(at, word)); at += n)
		if ((at == out->data + list_start || at[-1] == ' ') && (at[n] == ' ' || !at[n]))
			return;
	ac_buf_printf(out, "%s%s", out->len > list_start ? " " : "", word);
}

static void put_opt_words(ac_buf *out, size_t list_start, const cli_opt *opts, bool valued_only)
{
	for (const cli_opt *o = opts; o && o->name; o++) {
		if (valued_only && !o->arg)
			continue;
		if (o->alias)
			add_word(out, list_start, o->alias);
		add_word(out, list_start, o->name);
	}
}

/* What bash offers for positional argument p: ":session" (a session id),
 * ":dir" (a folder), or the words of the argument (SCOPE's; "-" of
 * "TEXT|-"); nothing else. */
static void put_bash_arg(ac_buf *out, const cli_spec *spec, int n, const cli_pos *p)
{
	const char *words = p->flags & CLI_POS_SESSION ? ":session"
			  : !strcmp(p->name, "DIR")     ? ":dir"
			  : !strcmp(p->name, "SCOPE")   ? "session user agent"
			  : strstr(p->name, "|-")       ? "-"
							: NULL;

	if (!words)
		return;
	ac_buf_printf(out, "\t");
	for (const char *c = spec->name; *c; c++)
		ac_buf_printf(out, "%c", *c == ' ' ? '/' : *c);
	ac_buf_printf(out, "/%d) echo \"%s\" ;;\n", n, words);
}

/* _agentctl_arg CMD/SUB N: what the Nth argument of the commands whose
 * spec names their arguments is (put_bash_arg). */
static void bash_args(ac_buf *out)
{
	ac_buf_printf(out, "\n# What argument $2 of $1, COMMAND/SUBCOMMAND, is (for the commands whose\n"
			   "# spec names them): :session, :dir, or the words offered.\n"
			   "_agentctl_arg()\n{\n\tcase $1/$2 in\n");
	for (size_t i = 0; i < cli_n_specs; i++)
		for (int n = 0; cli_specs[i].pos && cli_specs[i].pos[n].name; n++)
			put_bash_arg(out, &cli_specs[i], n + 1, &cli_specs[i].pos[n]);
	ac_buf_printf(out, "\tesac\n}\n");
}

static void bash_block(ac_buf *out)
{
	char word[64], last[64] = "";
	size_t start;

	ac_buf_printf(out, "_agentctl_commands=\"");
	for (size_t i = 0; i < cli_n_specs; i++) {
		command_of(word, sizeof(word), &cli_specs[i]);
		if (strcmp(word, last))
			ac_buf_printf(out, "%s ", word);
		snprintf(last, sizeof(last), "%s", word);
	}
	ac_buf_printf(out, "help\"\n");
	ac_buf_printf(out, "_agentctl_globals=\"");
	start = out->len;
	put_opt_words(out, start, cli_global_opts, false);
	ac_buf_printf(out, "\"\n# The options that take a value (the next word is not an argument).\n");
	ac_buf_printf(out, "_agentctl_valued=\"");
	start = out->len;
	put_opt_words(out, start, cli_global_opts, true);
	for (size_t i = 0; i < cli_n_specs; i++)
		put_opt_words(out, start, cli_specs[i].opts, true);
	ac_buf_printf(out, "\"\n\n# The subcommands of command $1.\n_agentctl_subs()\n{\n\tcase $1 in\n");
	last[0] = '\0';
	for (size_t i = 0; i < cli_n_specs; i++) {
		const char *space = strchr(cli_specs[i].name, ' ');

		command_of(word, sizeof(word), &cli_specs[i]);
		if (!space)
			continue;
		if (strcmp(word, last))
			ac_buf_printf(out, "%s\t%s) echo \"", last[0] ? "\" ;;\n" : "", word);
		else
			ac_buf_printf(out, " ");
		ac_buf_printf(out, "%s", space + 1);
		snprintf(last, sizeof(last), "%s", word);
	}
	ac_buf_printf(out, "\" ;;\n\tesac\n}\n\n");
	ac_buf_printf(out, "# The options of $1, a command or COMMAND/SUBCOMMAND.\n"
			   "_agentctl_opts()\n{\n\tcase $1 in\n");
	for (size_t i = 0; i < cli_n_specs; i++) {
		ac_buf key = AC_BUF_INIT;

		if (!cli_specs[i].opts)
			continue;
		ac_buf_printf(&key, "%s", cli_specs[i].name);
		for (char *c = key.data; *c; c++)
			if (*c == ' ')
				*c = '/';
		ac_buf_printf(out, "\t%s) echo \"", key.data);
		ac_buf_free(&key);
		start = out->len;
		put_opt_words(out, start, cli_specs[i].opts, false);
		ac_buf_printf(out, "\" ;;\n");
	}
	ac_buf_printf(out, "\tesac\n}\n");
	bash_args(out);
}

/* zsh: s in single quotes, a quote as '\'' (the caller opened them);
 * in an _arguments spec (spec), a bracket escaped. */
static void put_zsh_quoted(ac_buf *out, const char *s, bool spec)
{
	for (; *s; s++) {
		if (*s == '\'')
			ac_buf_printf(out, "'\\''");
		else if (spec && (*s == '[' || *s == ']'))
			ac_buf_printf(out, "\\%c", *s);
		else
			ac_buf_append(out, s, 1);
	}
}

/* What zsh offers for an option's value or a positional argument (key:
 * the option's name, or the argument's): a few by key, a file or a
 * folder for FILE and DIR, else the literal words of an "a|b" argument a
 * ("md|html"; "JSON|-" gives "-"). */
static void put_zsh_action(ac_buf *out, const char *key, const char *a)
{
	static const struct {
		const char *key, *action;
	} by_key[] = {
		{"--theme", "_agentctl_themes"},
		{"--session", "_agentctl_sessions"},
		{"--status", "(running paused completed failed)"},
		{"--type", "(file_write file_delete command_run)"},
		{"SCOPE", "(session user agent)"},
	};
	size_t start;

	for (size_t i = 0; i < sizeof(by_key) / sizeof(by_key[0]); i++)
		if (!strcmp(key, by_key[i].key)) {
			ac_buf_printf(out, "%s", by_key[i].action);
			return;
		}
	if (!strcmp(a, "FILE") || !strcmp(a, "DIR")) {
		ac_buf_printf(out, "%s", a[0] == 'F' ? "_files" : "_directories");
		return;
	}
	if (!strchr(a, '|'))
		return;
	ac_buf_printf(out, "(");
	start = out->len;
	while (*a) {
		size_t n = strcspn(a, "|");
		bool literal = false;

		for (size_t k = 0; k < n; k++)
			literal |= !(a[k] >= 'A' && a[k] <= 'Z');
		if (literal)
			ac_buf_printf(out, "%s%.*s", out->len > start ? " " : "", (int)n, a);
		a += n + (a[n] == '|');
	}
	ac_buf_printf(out, ")");
}

/* One _arguments spec of option spelling name (o's name or alias). */
static void put_zsh_opt(ac_buf *out, const cli_opt *o, const char *name)
{
	ac_buf_printf(out, "    '");
	/* What zsh offers no more once this is given: its other spelling,
	 * and the option it excludes. */
	if (o->alias || o->excludes)
		ac_buf_printf(out, "(%s%s%s%s%s)", o->alias ? o->alias : "", o->alias ? " " : "",
			      o->alias ? o->name : "", o->alias && o->excludes ? " " : "",
			      o->excludes ? o->excludes : "");
	ac_buf_printf(out, "%s%s[", name, !o->arg ? "" : name[1] == '-' ? "=" : "+");
	put_zsh_quoted(out, o->help, true);
	ac_buf_printf(out, "]");
	if (o->arg) {
		ac_buf_printf(out, ":");
		put_zsh_quoted(out, o->arg, true);
		ac_buf_printf(out, ":");
		put_zsh_action(out, o->name, o->arg);
	}
	ac_buf_printf(out, "'\n");
}

/* The _arguments spec of positional argument n, p: "N:help:action"
 * (help's colons escaped; "N::" when it may be left out, "*:" when it
 * may be given any number of times). */
static void put_zsh_pos(ac_buf *out, int n, const cli_pos *p)
{
	if (p->flags & CLI_POS_MANY)
		ac_buf_printf(out, "    '*:");
	else
		ac_buf_printf(out, "    '%d:%s", n, p->flags & CLI_POS_OPTIONAL ? ":" : "");
	for (const char *c = p->help; *c; c++) {
		if (*c == ':')
			ac_buf_printf(out, "\\:");
		else
			put_zsh_quoted(out, (char[]){*c, '\0'}, false);
	}
	ac_buf_printf(out, ":");
	if (p->flags & CLI_POS_SESSION)
		ac_buf_printf(out, "_agentctl_sessions");
	else
		put_zsh_action(out, p->name, p->name);
	ac_buf_printf(out, "'\n");
}

static void put_zsh_opts(ac_buf *out, const cli_opt *opts)
{
	for (const cli_opt *o = opts; o && o->name; o++) {
		if (o->alias)
			put_zsh_opt(out, o, o->alias);
		put_zsh_opt(out, o, o->name);
	}
}

/* The zsh completion's lists: the commands, the global options, each
 * command's subcommands and each form's options, as _describe and
 * _arguments take them. */
static void zsh_block(ac_buf *out)
{
	char word[64], last[64] = "";

	ac_buf_printf(out, "# The global options, as _arguments takes them.\n_agentctl_globals=(\n");
	put_zsh_opts(out, cli_global_opts);
	ac_buf_printf(out, ")\n\n# The commands and what they do (a group: its subcommands).\n"
			   "_agentctl_commands=(\n");
	for (size_t i = 0; i < cli_n_specs; i++) {
		const char *space = strchr(cli_specs[i].name, ' ');

		command_of(word, sizeof(word), &cli_specs[i]);
		if (!space) {
			ac_buf_printf(out, "    '%s:", word);
			put_zsh_quoted(out, cli_specs[i].help, false);
			ac_buf_printf(out, "'\n");
		} else if (strcmp(word, last)) {
			ac_buf_printf(out, "    '%s:%s", word, space + 1);
		} else {
			ac_buf_printf(out, ", %s", space + 1);
		}
		/* A group's line ends at its last subcommand. */
		if (space && (i + 1 == cli_n_specs ||
			      strncmp(cli_specs[i + 1].name, cli_specs[i].name, strlen(word) + 1)))
			ac_buf_printf(out, "'\n");
		snprintf(last, sizeof(last), "%s", space ? word : "");
	}
	ac_buf_printf(out, "    'help:print the usage summary'\n)\n\n");
	ac_buf_printf(out, "# The subcommands of command $1 and what they do, into reply.\n"
			   "_agentctl_subs() {\n  reply=()\n  case $1 in\n");
	last[0] = '\0';
	for (size_t i = 0; i < cli_n_specs; i++) {
		const char *space = strchr(cli_specs[i].name, ' ');

		command_of(word, sizeof(word), &cli_specs[i]);
		if (!space)
			continue;
		if (strcmp(word, last))
			ac_buf_printf(out, "%s    (%s) reply=(\n", last[0] ? "      ) ;;\n" : "", word);
		ac_buf_printf(out, "      '%s:", space + 1);
		put_zsh_quoted(out, cli_specs[i].help, false);
		ac_buf_printf(out, "'\n");
		snprintf(last, sizeof(last), "%s", word);
	}
	ac_buf_printf(out, "      ) ;;\n  esac\n}\n\n");
	ac_buf_printf(out, "# The options of $1, a command or COMMAND/SUBCOMMAND, into reply.\n"
			   "_agentctl_opts() {\n  reply=()\n  case $1 in\n");
	for (size_t i = 0; i < cli_n_specs; i++) {
		if (!cli_specs[i].opts || !cli_specs[i].opts[0].name)
			continue;
		ac_buf_printf(out, "    (");
		for (const char *c = cli_specs[i].name; *c; c++)
			ac_buf_printf(out, "%c", *c == ' ' ? '/' : *c);
		ac_buf_printf(out, ") reply=(\n");
		put_zsh_opts(out, cli_specs[i].opts);
		ac_buf_printf(out, "      ) ;;\n");
	}
	ac_buf_printf(out, "  esac\n}\n\n");
	ac_buf_printf(out, "# The positional arguments of $1, COMMAND/SUBCOMMAND, into reply (for\n"
			   "# the commands whose spec names them).\n"
			   "_agentctl_args() {\n  reply=()\n  case $1 in\n");
	for (size_t i = 0; i < cli_n_specs; i++) {
		const cli_pos *pos = cli_specs[i].pos;

		if (!pos || !pos[0].name)
			continue;
		ac_buf_printf(out, "    (");
		for (const char *c = cli_specs[i].name; *c; c++)
			ac_buf_printf(out, "%c", *c == ' ' ? '/' : *c);
		ac_buf_printf(out, ") reply=(\n");
		for (int n = 0; pos[n].name; n++)
			put_zsh_pos(out, n + 1, &pos[n]);
		ac_buf_printf(out, "      ) ;;\n");
	}
	ac_buf_printf(out, "  esac\n}\n");
}

/* text for roff: '-' as \-, a backslash as \e, a character past ASCII
 * (the key table's marks, "└") as \[uXXXX]. text is valid UTF-8 (the
 * tables are the program's own). */
static void put_roff(ac_buf *out, const char *text)
{
	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		int len = *c >= 0xf0 ? 4 : *c >= 0xe0 ? 3 : *c >= 0xc0 ? 2 : 1;
		unsigned code = len == 1 ? *c : *c & (0x3fu >> (len - 1));

		if (len > 1) {
			for (int k = 1; k < len && c[1]; k++)
				code = code << 6 | (*++c & 0x3fu);
			ac_buf_printf(out, "\\[u%04X]", code);
		} else if (*c == '-') {
			ac_buf_printf(out, "\\-");
		} else if (*c == '\\') {
			ac_buf_printf(out, "\\e");
		} else {
			ac_buf_append(out, c, 1);
		}
	}
}

/* The man page's summary of every command: its synopsis, what it does, and
 * its options with theirs. */
static void man_block(ac_buf *out)
{
	for (size_t i = 0; i < cli_n_specs; i++) {
		const cli_spec *spec = &cli_specs[i];
		char args[256];

		cli_spec_args(args, sizeof(args), spec);
		/* .TP's tag is one line: bold name, italic arguments. */
		ac_buf_printf(out, ".TP\n.%s \"", args[0] ? "BI" : "B");
		put_roff(out, spec->name);
		if (args[0]) {
			ac_buf_printf(out, "\" \" ");
			put_roff(out, args);
		}
		ac_buf_printf(out, "\"\n");
		put_roff(out, spec->help);
		ac_buf_printf(out, ".\n");
		if ((!spec->opts || !spec->opts[0].name) && (!spec->pos || !spec->pos[0].name))
			continue;
		ac_buf_printf(out, ".RS\n");
		/* The arguments a spec names, with their help, then the options. */
		for (const cli_pos *p = spec->pos; p && p->name; p++) {
			ac_buf_printf(out, ".TP\n.I \"");
			put_roff(out, p->name);
			ac_buf_printf(out, "\"\n");
			put_roff(out, p->help);
			ac_buf_printf(out, "%s.\n", p->flags & CLI_POS_OPTIONAL ? " (may be left out)" : "");
		}
		for (const cli_opt *o = spec->opts; o && o->name; o++) {
			ac_buf_printf(out, ".TP\n.%s \"", o->arg ? "BI" : "B");
			if (o->alias) {
				put_roff(out, o->alias);
				ac_buf_printf(out, ", ");
			}
			put_roff(out, o->name);
			if (o->arg) {
				ac_buf_printf(out, "\" \" ");
				put_roff(out, o->arg);
			}
			ac_buf_printf(out, "\"\n");
			put_roff(out, o->help);
			ac_buf_printf(out, ".\n");
		}
		ac_buf_printf(out, ".RE\n");
	}
}

/* Where a key applies: "everywhere", or its panes by name. (The help
 * screen's headings, views/help.c, name whole groups of panes.) */
static void put_panes(ac_buf *out, unsigned panes)
{
	const char *sep = "";

	if ((panes & UI_IN_PANES) == UI_IN_PANES) {
		ac_buf_printf(out, "everywhere");
		return;
	}
	for (int p = 0; p < UI_PANE_COUNT; p++)
		if (panes & UI_IN(p)) {
			ac_buf_printf(out, "%s%s", sep, ui_pane_name((ui_pane_id)p));
			sep = ", ";
		}
}

/* The man page's list of every dashboard key (the key table's order):
 * its label, what it does, where it applies, and whether it writes. */
static void man_keys_block(ac_buf *out)
{
	size_t n;
	const ui_key *keys = ui_keys(&n);

	for (size_t i = 0; i < n; i++) {
		const ui_key_doc *doc = &keys[i].doc;

		ac_buf_printf(out, ".TP\n.B \"");
		put_roff(out, doc->label);
		/* \& keeps a help that starts with '.' from being a request. */
		ac_buf_printf(out, "\"\n\\&");
		put_roff(out, doc->help);
		ac_buf_printf(out, ".\nWhere: ");
		put_panes(out, doc->panes);
		ac_buf_printf(out, ".%s\n", doc->writes ? " It writes: refused with \\-\\-read\\-only." : "");
	}
}

/* The man page's list of every configuration key (the known-key table's
 * order): its value's type and its environment variable. */
static void man_config_block(ac_buf *out)
{
	char type[256], env[128];
	const char *key;

	for (size_t i = 0; (key = ac_config_known_key(i, type, sizeof(type), env, sizeof(env)));
	     i++) {
		ac_buf_printf(out, ".TP\n.B ");
		put_roff(out, key);
		ac_buf_printf(out, "\n");
		put_roff(out, type);
		ac_buf_printf(out, "; environment: ");
		put_roff(out, env);
		ac_buf_printf(out, ".\n");
	}
}

static int read_all(ac_buf *out, const char *path)
{
	FILE *f = fopen(path, "rb");
	char chunk[4096];
	size_t n;

	if (!f) {
		perror(path);
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		ac_buf_append(out, chunk, n);
	fclose(f);
	return 0;
}

/* now (a file's text) with the lines between its marker line mark and
 * the end marker after it replaced by block, into out. */
static int splice(ac_buf *out, const ac_buf *now, const char *path, const char *mark,
		  const char *block)
{
	const char *begin, *end;

	if (!now->data || !(begin = strstr(now->data, mark)) || !(end = strstr(begin, END_MARK))) {
		fprintf(stderr, "%s: no generated part (the marker line %.*s)\n", path,
			(int)strlen(mark) - 1, mark);
		return -1;
	}
	begin += strlen(mark);
	while (end > begin && end[-1] != '\n')
		end--;
	ac_buf_append(out, now->data, (size_t)(begin - now->data));
	ac_buf_printf(out, "%s%s", block, end);
	return 0;
}

static bool ends_with(const char *text, const char *end)
{
	size_t n = strlen(text), m = strlen(end);

	return n >= m && !strcmp(text + n - m, end);
}

/* now, path's text, with every generated part written again, into want:
 * a man page (FILE.1) gets the command summary, the dashboard keys and
 * the configuration keys; a shell file its lists, zsh's (_agentctl) as
 * _describe and _arguments take them. */
static int generate(ac_buf *want, const ac_buf *now, const char *path)
{
	static const struct {
		const char *mark;
		void (*write)(ac_buf *out);
	} man_parts[] = {
		{BEGIN_MARK, man_block},
		{KEYS_MARK, man_keys_block},
		{CONFIG_MARK, man_config_block},
	};
	ac_buf block = AC_BUF_INIT, text = AC_BUF_INIT;
	int rc = 0;

	if (!ends_with(path, ".1")) {
		(ends_with(path, "/_agentctl") ? zsh_block : bash_block)(&block);
		rc = splice(want, now, path, BEGIN_MARK, block.data);
		ac_buf_free(&block);
		return rc;
	}
	ac_buf_append(&text, now->data, now->len);
	for (size_t p = 0; p < sizeof(man_parts) / sizeof(man_parts[0]) && !rc; p++) {
		ac_buf_clear(&block);
		ac_buf_clear(want);
		man_parts[p].write(&block);
		rc = splice(want, &text, path, man_parts[p].mark, block.data);
		ac_buf_clear(&text);
		ac_buf_append(&text, want->data, want->len);
	}
	ac_buf_free(&block);
	ac_buf_free(&text);
	return rc;
}

int main(int argc, char **argv)
{
	int status = 0;

	if (argc < 3 || (strcmp(argv[1], "--check") && strcmp(argv[1], "--write"))) {
		fprintf(stderr, "usage: agentctl-gen-docs --check|--write FILE...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		ac_buf now = AC_BUF_INIT, want = AC_BUF_INIT;
		FILE *f;

		if (read_all(&now, argv[i]) || generate(&want, &now, argv[i])) {
			status = 1;
			ac_buf_free(&now);
			ac_buf_free(&want);
			continue;
		}
		if (now.len == want.len && !memcmp(now.data, want.data, now.len)) {
			/* up to date */
		} else if (!strcmp(argv[1], "--check")) {
			fprintf(stderr, "%s: a generated part differs from its table "
				"(run: cmake --build BUILD --target gen-docs)\n", argv[i]);
			status = 1;
		} else if (!(f = fopen(argv[i], "wb"))) {
			perror(argv[i]);
			status = 1;
		} else if ((fwrite(want.data, 1, want.len, f) != want.len) | (fclose(f) != 0)) {
			perror(argv[i]);
			status = 1;
		}
		ac_buf_free(&now);
		ac_buf_free(&want);
	}
	return status;
}
