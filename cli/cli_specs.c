/* Every command's spec (cli_args.h): the one place an option is named.
 * Parsing, `COMMAND --help`, `agentctl --help` (cli_forms.c) and the
 * generated man page and completions (cli/gen/gen_docs.c) read this table. */
#include "cli_args.h"

#define END {NULL, NULL, NULL, NULL}
#define JSON {"--json", NULL, NULL, "print one JSON document"}
#define REQUEST_ID                                                                              \
	{"--request-id", NULL, "R", "the caller's id for this write: a retry with it writes nothing"}
#define ALL_PROJECTS {"--all-projects", NULL, NULL, "every project's transcripts, not this one's"}
#define DRY_RUN {"--dry-run", NULL, NULL, "print what would change, change nothing"}

const cli_opt cli_global_opts[] = {
	{"--workspace", "-w", "DIR", "the workspace (default: found from the current folder up)"},
	{"--storage", NULL, "URL", "the store: a postgresql:// URL or libpq connection string"},
	{"--theme", NULL, "NAME", "the dashboard's theme (dark, light, high-contrast, monochrome)"},
	{"--read-only", NULL, NULL, "no command or key changes a file"},
	{"--poll", NULL, NULL, "follow the workspace by polling, not inotify"},
	END,
};

static const cli_opt demo_opts[] = {
	{"--no-ui", NULL, NULL, "run the simulated agents only, no dashboard"},
	{"--seconds", NULL, "N", "with --no-ui: how long the agents run (default 5)"},
	END,
};

static const cli_opt journal_read_opts[] = {
	{"--last", NULL, "N", "only the last N matching events"},
	{"--all", NULL, NULL, "the rotated archives too, oldest first"},
	JSON,
	{"--strict", NULL, NULL, "an invalid line is an error, not a note"},
	END,
};

static const cli_opt journal_check_opts[] = {
	{"--all", NULL, NULL, "the rotated archives too"},
	END,
};

static const cli_opt json_only[] = {JSON, END};
static const cli_opt request_only[] = {REQUEST_ID, END};

static const cli_opt session_list_opts[] = {
	JSON,
	{"--status", NULL, "S", "only sessions with status S (running, paused, completed, failed)"},
	{"--user", NULL, "U", "only user U's sessions"},
	{"--state", NULL, "S", "only sessions in state S (working, waiting, idle...)"},
	ALL_PROJECTS,
	{"--children", NULL, NULL, "each session's sub-agents and forks right after it"},
	END,
};

static const cli_opt session_create_opts[] = {
	{"--id", NULL, "ID", "the new session's id (default: made from the task)"},
	{"--resume", NULL, NULL, "with --id: open that session if it exists"},
	{"--tenant", NULL, "T", "the tenant"},
	{"--user", NULL, "U", "the user"},
	{"--agent", NULL, "A", "the agent"},
	JSON,
	REQUEST_ID,
	END,
};

static const cli_opt session_append_opts[] = {JSON, REQUEST_ID, END};

static const cli_opt session_record_turn_opts[] = {
	{"--usage", NULL, "JSON", "the turn's Usage object"},
	{"--input", NULL, "N", "the turn's input tokens"},
	{"--output", NULL, "N", "the turn's output tokens"},
	{"--messages", NULL, "JSON|-", "the turn's messages, appended"},
	JSON,
	REQUEST_ID,
	END,
};

static const cli_opt session_compact_opts[] = {
	{"--force", NULL, NULL, "compact even below the configured threshold"},
	REQUEST_ID,
	END,
};

static const cli_opt session_search_opts[] = {
	JSON,
	{"--limit", NULL, "N", "at most N matches"},
	ALL_PROJECTS,
	END,
};

static const cli_opt session_fork_opts[] = {
	{"--at", NULL, "N", "keep the first N messages"},
	{"--checkpoint", NULL, "C", "start from checkpoint C"},
	{"--id", NULL, "NEW", "the fork's id"},
	JSON,
	END,
};

static const cli_opt session_export_opts[] = {
	{"--format", NULL, "md|html", "the document's format"},
	{"--output", "-o", "FILE", "write to FILE, not standard output"},
	END,
};

static const cli_opt ops_list_opts[] = {
	{"--session", NULL, "ID", "only session ID's operations"},
	JSON,
	END,
};

static const cli_opt ops_show_opts[] = {
	{"--patch", "-p", NULL, "the change as a patch"},
	END,
};

static const cli_opt ops_record_opts[] = {
	{"--session", NULL, "ID", "the session the operation belongs to"},
	{"--type", NULL, "T", "file_write, file_delete or command_run"},
	{"--details", NULL, "JSON|-", "the operation's details, a JSON object"},
	JSON,
	END,
};

static const cli_opt ops_rollback_opts[] = {
	{"--finish", NULL, NULL, "finish the interrupted rollback or revert"},
	{"--undo", NULL, NULL, "undo the interrupted rollback or revert"},
	DRY_RUN,
	{"--yes", "-y", NULL, "do not ask (needed without a terminal)"},
	END,
};

static const cli_opt checkpoint_create_opts[] = {
	{"--node", NULL, "N", "the graph node the checkpoint is at"},
	{"--input", NULL, "JSON|-", "the node's last input"},
	{"--input-type", NULL, "T", "the last input's type"},
	{"--id", NULL, "ID", "the checkpoint's id"},
	{"--version", NULL, "V", "the checkpoint's version"},
	{"--tombstone", NULL, NULL, "a tombstone checkpoint (the session's end)"},
	JSON,
	END,
};

static const cli_opt checkpoint_rollback_opts[] = {
	{"--latest", NULL, NULL, "the session's latest checkpoint"},
	{"--yes", NULL, NULL, "do not ask (needed without a terminal)"},
	{"--skip-uncertain", NULL, NULL, "do not run again what may have run"},
	{"--rerun-uncertain", NULL, NULL, "run again what may have run"},
	END,
};

static const cli_opt storage_migrate_opts[] = {
	{"--to", NULL, "URL", "copy the workspace's files into the database URL"},
	{"--from", NULL, "URL", "copy the database URL into the workspace's files"},
	{"--tenant", NULL, "T", "only tenant T"},
	DRY_RUN,
	JSON,
	END,
};

static const cli_opt usage_opts[] = {
	{"--since", NULL, "T", "only usage from T on"},
	ALL_PROJECTS,
	JSON,
	END,
};

static const cli_opt sources_check_opts[] = {ALL_PROJECTS, JSON, END};

static const cli_opt gc_opts[] = {
	{"--keep", NULL, "N", "keep the N newest of each kind"},
	{"--older-than", NULL, "AGE", "remove what is older than AGE (30d, 12h...)"},
	DRY_RUN,
	END,
};

static const cli_opt config_show_opts[] = {
	{"--origin", NULL, NULL, "where each value comes from"},
	JSON,
	END,
};

static const cli_opt config_trust_opts[] = {
	{"--sha256", NULL, "HEX", "trust only the file with this hash (config show prints it)"},
	END,
};

const cli_spec cli_specs[] = {
	{"demo", "", 0, demo_opts, "a live demo workspace and its dashboard", 0,
	 "demo [--no-ui [--seconds N]]      a live demo workspace + dashboard"},
	{"journal log", "JSON|-", 1, NULL, "append one event to the journal", 0, NULL},
	/* A term given to read is refused by the command, which says to use
	 * query. */
	{"journal read", "", -1, journal_read_opts, "print the journal's events", 0, NULL},
	{"journal query", "TERM...", -1, journal_read_opts, "print the events every term matches", 0,
	 "journal query TERM...|\"TERM TERM...\" [--last N] [--all] [--json] [--strict]"},
	{"journal check", "", 0, journal_check_opts, "check every line of the journal", 0, NULL},
	{"journal rotate", "", 0, NULL, "start a new journal file, archiving the old one", 0, NULL},
	{"session list", "", 0, session_list_opts, "list the sessions", 0, NULL},
	{"session show", "ID", 1, json_only, "show a session and its conversation", CLI_DASH_ARGS, NULL},
	/* A second word is refused by the command: quote a task of words. */
	{"session create", "TASK", -1, session_create_opts, "start a session", 0,
	 "session create TASK [--id ID [--resume]] [--tenant T] [--user U] [--agent A] [--json] "
	 "[--request-id R]"},
	{"session append", "ID JSON|-", 2, session_append_opts, "append messages to a session", 0, NULL},
	{"session record-turn", "ID", 1, session_record_turn_opts, "record a turn's token usage", 0,
	 "session record-turn ID (--usage JSON | --input N --output N) [--messages JSON|-] "
	 "[--json] [--request-id R]"},
	{"session pause", "ID", 1, request_only, "pause a session", CLI_DASH_ARGS, NULL},
	{"session resume", "ID", 1, request_only, "resume a paused session", CLI_DASH_ARGS, NULL},
	{"session complete", "ID", 1, request_only, "mark a session completed", CLI_DASH_ARGS, NULL},
	{"session fail", "ID", 1, request_only, "mark a session failed", CLI_DASH_ARGS, NULL},
	{"session compact", "ID", 1, session_compact_opts, "summarise a session's older messages",
	 CLI_DASH_ARGS, NULL},
	{"session search", "TEXT", 1, session_search_opts, "find sessions whose messages hold TEXT", 0,
	 NULL},
	{"session fork", "ID", 1, session_fork_opts, "copy a session, or its start, to a new one", 0,
	 "session fork ID [--at N|--checkpoint C] [--id NEW] [--json]"},
	{"session export", "ID", 1, session_export_opts, "write a session as Markdown or HTML", 0,
	 "session export ID --format md|html [-o FILE]"},
	{"ops list", "", 0, ops_list_opts, "list the recorded operations", 0,
	 "ops list [--session ID] [--json] | show OPID [--patch]"},
	{"ops show", "OPID", 1, ops_show_opts, "show one operation", 0, ""},
	{"ops record", "", 0, ops_record_opts, "record an operation an agent made", 0,
	 "ops record --session ID --type file_write|file_delete|command_run --details JSON|- "
	 "[--json]"},
	{"ops rollback", "OPID", 1, ops_rollback_opts, "undo an operation and everything after it", 0,
	 "ops rollback OPID|--finish|--undo [--dry-run] [--yes]"},
	{"ops revert", "OPID", 1, ops_rollback_opts, "undo one operation only", 0,
	 "ops revert OPID|--finish|--undo [--dry-run] [--yes]"},
	{"checkpoint list", "SESSION", 1, json_only, "list a session's checkpoints", 0, NULL},
	{"checkpoint create", "SESSION", 1, checkpoint_create_opts, "save a checkpoint", 0, NULL},
	{"checkpoint rollback", "SESSION [CKPT]", 2, checkpoint_rollback_opts,
	 "return a session to a checkpoint", 0,
	 "checkpoint rollback SESSION (CKPT|--latest) [--yes] "
	 "[--skip-uncertain|--rerun-uncertain]"},
	{"checkpoint auto", "SESSION on|off", 2, NULL, "checkpoint after every turn, or not", 0, NULL},
	{"memo read", "TENANT OWNER SCOPE NAME", 4, NULL, "print a memo", 0,
	 "memo read|write|append TENANT OWNER SCOPE NAME [TEXT|-]"},
	{"memo write", "TENANT OWNER SCOPE NAME [TEXT|-]", 5, NULL, "replace a memo", 0, ""},
	{"memo append", "TENANT OWNER SCOPE NAME [TEXT|-]", 5, NULL, "append to a memo", 0, ""},
	{"memo list", "TENANT OWNER SCOPE", 3, json_only, "list the memos of a scope", 0, NULL},
	{"artifact list", "SESSION", 1, json_only, "list a session's artifacts", 0,
	 "artifact list SESSION [--json] | show SESSION ID"},
	{"artifact show", "SESSION ID", 2, NULL, "print an artifact", 0, ""},
	{"trace show", "SESSION", 1, json_only, "show a session's trace", 0, NULL},
	{"sandbox mirror", "TENANT SESSION DIR", 3, NULL, "mirror a session's memos into DIR", 0, NULL},
	{"sandbox sync", "TENANT SESSION DIR", 3, NULL, "write DIR's memo changes back", 0, NULL},
	{"storage check", "", 0, NULL, "which store the workspace uses and its schema", 0,
	 "storage check | migrate (--to URL | --from URL) [--tenant T] [--dry-run] [--json]"},
	{"storage migrate", "", 0, storage_migrate_opts, "copy a workspace between its stores", 0, ""},
	{"usage", "[daily|session|block]", 1, usage_opts, "token usage by day, session or block", 0,
	 "usage daily|session|block [--since T] [--all-projects] [--json]   (default: daily)"},
	{"sources check", "", 0, sources_check_opts, "which agent transcripts are found, and why", 0,
	 NULL},
	{"gc", "", 0, gc_opts, "remove old sessions, checkpoints and archives", 0, NULL},
	{"config show", "", 0, config_show_opts, "the configuration in effect", 0,
	 "config show [--origin] [--json] | trust [--sha256 HEX]"},
	{"config trust", "", 0, config_trust_opts, "trust the workspace's project configuration", 0, ""},
};

const size_t cli_n_specs = sizeof(cli_specs) / sizeof(cli_specs[0]);
