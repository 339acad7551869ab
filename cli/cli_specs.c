/* Every command's spec (cli_args.h): the one place an option is named.
 * Parsing, `COMMAND --help`, `agentctl --help` (cli_forms.c) and the
 * generated man page and completions (cli/gen/gen_docs.c) read this table. */
#include "cli_args.h"

#define END {NULL, NULL, NULL, NULL, NULL}
#define JSON {"--json", NULL, NULL, "print one JSON document", NULL}
#define REQUEST_ID                                                                              \
	{"--request-id", NULL, "R", "the caller's id for this write: a retry with it writes nothing",  \
	 NULL}
#define ALL_PROJECTS                                                                            \
	{"--all-projects", NULL, NULL, "every project's transcripts, not this one's", NULL}
#define DRY_RUN {"--dry-run", NULL, NULL, "print what would change, change nothing", NULL}

const cli_opt cli_global_opts[] = {
	{"--workspace", "-w", "DIR", "the workspace (default: found from the current folder up)", NULL},
	{"--storage", NULL, "URL", "the store: a postgresql:// URL or libpq connection string", NULL},
	{"--theme", NULL, "NAME", "the dashboard's theme (dark, light, high-contrast, monochrome)", NULL},
	{"--read-only", NULL, NULL, "no command or key changes a file", NULL},
	{"--poll", NULL, NULL, "follow the workspace by polling, not inotify", NULL},
	END,
};

static const cli_opt demo_opts[] = {
	{"--no-ui", NULL, NULL, "run the simulated agents only, no dashboard", NULL},
	{"--seconds", NULL, "N", "with --no-ui: how long the agents run (default 5)", NULL},
	END,
};

static const cli_opt journal_read_opts[] = {
	{"--last", NULL, "N", "only the last N matching events", NULL},
	{"--all", NULL, NULL, "the rotated archives too, oldest first", NULL},
	JSON,
	{"--strict", NULL, NULL, "an invalid line is an error, not a note", NULL},
	END,
};

static const cli_opt journal_check_opts[] = {
	{"--all", NULL, NULL, "the rotated archives too", NULL},
	END,
};

/* The positional arguments. */
#define POS_END {NULL, NULL, 0}
#define TENANT {"TENANT", "the tenant (an id)", 0}
#define SESSION {"SESSION", "the session (an id)", CLI_POS_SESSION}
/* A session's id, written ID where the session is the command's object. */
#define SESSION_ID {"ID", "the session (an id)", CLI_POS_SESSION}

static const cli_pos journal_log_pos[] = {
	{"JSON|-", "the event, a JSON object, or - to read it from standard input", 0},
	POS_END,
};

static const cli_pos journal_query_pos[] = {
	{"TERM", "a term: FIELD=VALUE, FIELD!=VALUE, FIELD~TEXT, text~TEXT, since=TIME or "
		 "until=TIME (or several in one quoted string)", CLI_POS_MANY},
	POS_END,
};

static const cli_pos id_pos[] = {SESSION_ID, POS_END};
static const cli_pos session_create_pos[] = {
	{"TASK", "the first message's subject (\"\" for none)", 0},
	POS_END,
};
static const cli_pos session_append_pos[] = {
	SESSION_ID,
	{"JSON|-", "the messages, JSON, or - to read them from standard input", 0},
	POS_END,
};
static const cli_pos session_search_pos[] = {{"TEXT", "the text to look for", 0}, POS_END};

static const cli_pos ops_show_pos[] = {{"OPID", "the operation (an id)", 0}, POS_END};
static const cli_pos ops_rollback_pos[] = {
	{"OPID", "the operation (an id), or --finish or --undo instead", CLI_POS_OPTIONAL},
	POS_END,
};

static const cli_pos session_arg_pos[] = {SESSION, POS_END};
static const cli_pos checkpoint_rollback_pos[] = {
	SESSION,
	{"CKPT", "the checkpoint (an id), or --latest instead", CLI_POS_OPTIONAL},
	POS_END,
};
static const cli_pos checkpoint_auto_pos[] = {
	SESSION,
	{"on|off", "a checkpoint after every turn, or not", 0},
	POS_END,
};

#define MEMO_SCOPE TENANT, {"OWNER", "the memo's owner (an id)", 0},                          \
	{"SCOPE", "session, user or agent", 0}

static const cli_pos memo_list_pos[] = {MEMO_SCOPE, POS_END};
static const cli_pos memo_read_pos[] = {MEMO_SCOPE, {"NAME", "the memo's name", 0}, POS_END};
static const cli_pos memo_change_pos[] = {
	MEMO_SCOPE,
	{"NAME", "the memo's name", 0},
	{"TEXT|-", "the text, or - to read it from standard input", 0},
	POS_END,
};

static const cli_pos artifact_show_pos[] = {SESSION, {"ID", "the artifact (an id)", 0}, POS_END};

static const cli_pos sandbox_pos[] = {
	TENANT,
	{"SESSION", "the session whose memos and artifacts are mirrored", CLI_POS_SESSION},
	{"DIR", "the mirror folder, which the sandboxed agent sees", 0},
	POS_END,
};

static const cli_pos usage_pos[] = {
	{"daily|session|block", "the report: by day (the default), by session or by 5-hour block",
	 CLI_POS_OPTIONAL},
	POS_END,
};

static const cli_opt json_only[] = {JSON, END};
static const cli_opt request_only[] = {REQUEST_ID, END};

static const cli_opt session_list_opts[] = {
	JSON,
	{"--status", NULL, "S", "only sessions with status S (running, paused, completed, failed)", NULL},
	{"--user", NULL, "U", "only user U's sessions", NULL},
	{"--state", NULL, "S", "only sessions in state S (working, waiting, idle...)", NULL},
	ALL_PROJECTS,
	{"--children", NULL, NULL, "each session's sub-agents and forks right after it", NULL},
	END,
};

static const cli_opt session_create_opts[] = {
	{"--id", NULL, "ID", "the new session's id (default: made from the task)", NULL},
	{"--resume", NULL, NULL, "with --id: open that session if it exists", NULL},
	{"--tenant", NULL, "T", "the tenant", NULL},
	{"--user", NULL, "U", "the user", NULL},
	{"--agent", NULL, "A", "the agent", NULL},
	JSON,
	REQUEST_ID,
	END,
};

static const cli_opt session_append_opts[] = {JSON, REQUEST_ID, END};

static const cli_opt session_record_turn_opts[] = {
	{"--usage", NULL, "JSON", "the turn's Usage object", NULL},
	{"--input", NULL, "N", "the turn's input tokens", NULL},
	{"--output", NULL, "N", "the turn's output tokens", NULL},
	{"--messages", NULL, "JSON|-", "the turn's messages, appended", NULL},
	JSON,
	REQUEST_ID,
	END,
};

static const cli_opt session_compact_opts[] = {
	{"--force", NULL, NULL, "compact even below the configured threshold", NULL},
	REQUEST_ID,
	END,
};

static const cli_opt session_search_opts[] = {
	JSON,
	{"--limit", NULL, "N", "at most N matches", NULL},
	ALL_PROJECTS,
	END,
};

static const cli_opt session_fork_opts[] = {
	{"--at", NULL, "N", "keep the first N messages", NULL},
	{"--checkpoint", NULL, "C", "start from checkpoint C", NULL},
	{"--id", NULL, "NEW", "the fork's id", NULL},
	JSON,
	END,
};

static const cli_opt session_export_opts[] = {
	{"--format", NULL, "md|html", "the document's format", NULL},
	{"--output", "-o", "FILE", "write to FILE, not standard output", NULL},
	END,
};

static const cli_opt ops_list_opts[] = {
	{"--session", NULL, "ID", "only session ID's operations", NULL},
	JSON,
	END,
};

static const cli_opt ops_show_opts[] = {
	{"--patch", "-p", NULL, "the change as a patch", NULL},
	END,
};

static const cli_opt ops_record_opts[] = {
	{"--session", NULL, "ID", "the session the operation belongs to", NULL},
	{"--type", NULL, "T", "file_write, file_delete or command_run", NULL},
	{"--details", NULL, "JSON|-", "the operation's details, a JSON object", NULL},
	JSON,
	END,
};

static const cli_opt ops_rollback_opts[] = {
	{"--finish", NULL, NULL, "finish the interrupted rollback or revert", NULL},
	{"--undo", NULL, NULL, "undo the interrupted rollback or revert", NULL},
	DRY_RUN,
	{"--yes", "-y", NULL, "do not ask (needed without a terminal)", NULL},
	END,
};

static const cli_opt checkpoint_create_opts[] = {
	{"--node", NULL, "N", "the graph node the checkpoint is at", NULL},
	{"--input", NULL, "JSON|-", "the node's last input", NULL},
	{"--input-type", NULL, "T", "the last input's type", NULL},
	{"--id", NULL, "ID", "the checkpoint's id", NULL},
	{"--version", NULL, "V", "the checkpoint's version", NULL},
	{"--tombstone", NULL, NULL, "a tombstone checkpoint (the session's end)", NULL},
	JSON,
	END,
};

static const cli_opt checkpoint_rollback_opts[] = {
	{"--latest", NULL, NULL, "the session's latest checkpoint", NULL},
	{"--yes", NULL, NULL, "do not ask (needed without a terminal)", NULL},
	{"--skip-uncertain", NULL, NULL, "do not run again what may have run", "--rerun-uncertain"},
	{"--rerun-uncertain", NULL, NULL, "run again what may have run", "--skip-uncertain"},
	END,
};

static const cli_opt storage_migrate_opts[] = {
	{"--to", NULL, "URL", "copy the workspace's files into the database URL", "--from"},
	{"--from", NULL, "URL", "copy the database URL into the workspace's files", "--to"},
	{"--tenant", NULL, "T", "only tenant T", NULL},
	DRY_RUN,
	JSON,
	END,
};

static const cli_opt usage_opts[] = {
	{"--since", NULL, "T", "only usage from T on", NULL},
	ALL_PROJECTS,
	JSON,
	END,
};

static const cli_opt sources_check_opts[] = {ALL_PROJECTS, JSON, END};

static const cli_opt gc_opts[] = {
	{"--keep", NULL, "N", "keep the N newest of each kind", NULL},
	{"--older-than", NULL, "AGE", "remove what is older than AGE (30d, 12h...)", NULL},
	DRY_RUN,
	END,
};

static const cli_opt config_show_opts[] = {
	{"--origin", NULL, NULL, "where each value comes from", NULL},
	JSON,
	END,
};

static const cli_opt config_trust_opts[] = {
	{"--sha256", NULL, "HEX", "trust only the file with this hash (config show prints it)", NULL},
	END,
};

/* {name, pos, opts, help, flags, usage, missing, extra} */
const cli_spec cli_specs[] = {
	{"demo", NULL, demo_opts, "a live demo workspace and its dashboard", 0,
	 "demo [--no-ui [--seconds N]]      a live demo workspace + dashboard", NULL, NULL},
	{"journal log", journal_log_pos, NULL, "append one event to the journal", 0, NULL, NULL,
	 NULL},
	{"journal read", NULL, journal_read_opts, "print the journal's events", 0, NULL, NULL,
	 "to filter, use 'journal query'"},
	{"journal query", journal_query_pos, journal_read_opts, "print the events every term matches",
	 0, "journal query TERM...|\"TERM TERM...\" [--last N] [--all] [--json] [--strict]",
	 "needs at least one term, e.g. agent=Claude", NULL},
	{"journal check", NULL, journal_check_opts, "check every line of the journal", 0, NULL, NULL,
	 NULL},
	{"journal rotate", NULL, NULL, "start a new journal file, archiving the old one", 0, NULL,
	 NULL, NULL},
	{"session list", NULL, session_list_opts, "list the sessions", 0, NULL, NULL, NULL},
	{"session show", id_pos, json_only, "show a session and its conversation",
	 CLI_DASH_ARGS, NULL, "needs a session id", NULL},
	{"session create", session_create_pos, session_create_opts, "start a session", 0,
	 "session create TASK [--id ID [--resume]] [--tenant T] [--user U] [--agent A] [--json] "
	 "[--request-id R]",
	 "needs a task (the first message's subject; \"\" for none)",
	 "quote a task of several words"},
	{"session append", session_append_pos, session_append_opts, "append messages to a session", 0,
	 NULL, "needs a session id and the messages (JSON, or - for standard input)", NULL},
	{"session record-turn", id_pos, session_record_turn_opts, "record a turn's token usage",
	 0,
	 "session record-turn ID (--usage JSON | --input N --output N) [--messages JSON|-] "
	 "[--json] [--request-id R]",
	 "needs a session id and --usage JSON or --input N and --output N (the turn's tokens)",
	 NULL},
	{"session pause", id_pos, request_only, "pause a session", CLI_DASH_ARGS, NULL,
	 "takes one session id", NULL},
	{"session resume", id_pos, request_only, "resume a paused session", CLI_DASH_ARGS, NULL,
	 "takes one session id", NULL},
	{"session complete", id_pos, request_only, "mark a session completed", CLI_DASH_ARGS,
	 NULL, "takes one session id", NULL},
	{"session fail", id_pos, request_only, "mark a session failed", CLI_DASH_ARGS, NULL,
	 "takes one session id", NULL},
	{"session compact", id_pos, session_compact_opts, "summarise a session's older messages",
	 CLI_DASH_ARGS, NULL, "needs a session id", NULL},
	{"session search", session_search_pos, session_search_opts,
	 "find sessions whose messages hold TEXT", 0, NULL, "needs the text to look for", NULL},
	{"session fork", id_pos, session_fork_opts, "copy a session, or its start, to a new one",
	 0, "session fork ID [--at N|--checkpoint C] [--id NEW] [--json]", "needs a session id",
	 NULL},
	{"session export", id_pos, session_export_opts, "write a session as Markdown or HTML", 0,
	 "session export ID --format md|html [-o FILE]",
	 "needs a session id and --format md|html", NULL},
	{"ops list", NULL, ops_list_opts, "list the recorded operations", 0,
	 "ops list [--session ID] [--json] | show OPID [--patch]", NULL, NULL},
	{"ops show", ops_show_pos, ops_show_opts, "show one operation", 0, "",
	 "takes one operation id", NULL},
	{"ops record", NULL, ops_record_opts, "record an operation an agent made", 0,
	 "ops record --session ID --type file_write|file_delete|command_run --details JSON|- "
	 "[--json]", NULL, NULL},
	{"ops rollback", ops_rollback_pos, ops_rollback_opts,
	 "undo an operation and everything after it", 0,
	 "ops rollback OPID|--finish|--undo [--dry-run] [--yes]",
	 "needs an operation id (or --finish, --undo)", NULL},
	{"ops revert", ops_rollback_pos, ops_rollback_opts, "undo one operation only", 0,
	 "ops revert OPID|--finish|--undo [--dry-run] [--yes]",
	 "needs an operation id (or --finish, --undo)", NULL},
	{"checkpoint list", session_arg_pos, json_only, "list a session's checkpoints", 0, NULL,
	 "needs a session id", NULL},
	{"checkpoint create", session_arg_pos, checkpoint_create_opts, "save a checkpoint", 0, NULL,
	 "needs a session id", NULL},
	{"checkpoint rollback", checkpoint_rollback_pos, checkpoint_rollback_opts,
	 "return a session to a checkpoint", 0,
	 "checkpoint rollback SESSION (CKPT|--latest) [--yes] "
	 "[--skip-uncertain|--rerun-uncertain]",
	 "needs a session id and either a checkpoint id or --latest", NULL},
	/* Its ids may start with '-', as they could before it had a spec. */
	{"checkpoint auto", checkpoint_auto_pos, NULL, "checkpoint after every turn, or not",
	 CLI_DASH_ARGS | CLI_SAY_USAGE, NULL, NULL, NULL},
	{"memo read", memo_read_pos, NULL, "print a memo", 0,
	 "memo read|write|append TENANT OWNER SCOPE NAME [TEXT|-]", NULL, NULL},
	{"memo write", memo_change_pos, NULL, "replace a memo", CLI_DASH_ARGS, "", NULL, NULL},
	{"memo append", memo_change_pos, NULL, "append to a memo", CLI_DASH_ARGS, "", NULL, NULL},
	{"memo list", memo_list_pos, json_only, "list the memos of a scope", 0, NULL, NULL, NULL},
	{"artifact list", session_arg_pos, json_only, "list a session's artifacts", 0,
	 "artifact list SESSION [--json] | show SESSION ID", "takes one session id", NULL},
	{"artifact show", artifact_show_pos, NULL, "print an artifact", 0, "",
	 "takes a session id and an artifact id", NULL},
	{"trace show", session_arg_pos, json_only, "show a session's trace", 0, NULL,
	 "needs a session id", NULL},
	{"sandbox mirror", sandbox_pos, NULL, "mirror a session's memos into DIR", 0, NULL, NULL,
	 NULL},
	{"sandbox sync", sandbox_pos, NULL, "write DIR's memo changes back", 0, NULL, NULL, NULL},
	{"storage check", NULL, NULL, "which store the workspace uses and its schema", 0,
	 "storage check | migrate (--to URL | --from URL) [--tenant T] [--dry-run] [--json]", NULL,
	 NULL},
	{"storage migrate", NULL, storage_migrate_opts, "copy a workspace between its stores", 0, "",
	 NULL, NULL},
	{"usage", usage_pos, usage_opts, "token usage by day, session or block", 0,
	 "usage daily|session|block [--since T] [--all-projects] [--json]   (default: daily)", NULL,
	 NULL},
	{"sources check", NULL, sources_check_opts, "which agent transcripts are found, and why", 0,
	 NULL, NULL, NULL},
	{"gc", NULL, gc_opts, "remove old sessions, checkpoints and archives", 0, NULL, NULL, NULL},
	{"config show", NULL, config_show_opts, "the configuration in effect", 0,
	 "config show [--origin] [--json] | trust [--sha256 HEX]", NULL, NULL},
	{"config trust", NULL, config_trust_opts, "trust the workspace's project configuration", 0,
	 "", NULL, NULL},
};

const size_t cli_n_specs = sizeof(cli_specs) / sizeof(cli_specs[0]);

void cli_spec_args(char *out, size_t size, const cli_spec *spec)
{
	size_t len = 0;

	out[0] = '\0';
	for (const cli_pos *p = spec->pos; p && p->name && len < size; p++) {
		bool optional = p->flags & CLI_POS_OPTIONAL;

		len += (size_t)snprintf(out + len, size - len, "%s%s%s%s%s", len ? " " : "",
					optional ? "[" : "", p->name,
					p->flags & CLI_POS_MANY ? "..." : "", optional ? "]" : "");
	}
}

int cli_spec_max_args(const cli_spec *spec)
{
	int n = 0;

	for (const cli_pos *p = spec->pos; p && p->name; p++, n++)
		if (p->flags & CLI_POS_MANY)
			return -1;
	return n;
}

int cli_spec_min_args(const cli_spec *spec)
{
	int n = 0;

	for (const cli_pos *p = spec->pos; p && p->name; p++)
		n += !(p->flags & CLI_POS_OPTIONAL);
	return n;
}
