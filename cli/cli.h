/* What every command of the program shares: the workspace, the loaded
 * configuration, and the one way errors are printed.
 *
 * Exit status: 0 success, 1 the operation failed, 2 bad usage. Errors are
 * one line on stderr, made safe for the terminal. */
#ifndef CLI_H
#define CLI_H

#include "ac_backend.h"
#include "ac_buf.h"
#include "ac_config.h"
#include "ac_journal_reader.h"
#include "ac_version.h"
#include "ac_workspace.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

typedef struct {
	const char *workspace; /* -w DIR; "." by default */
	const char *theme;     /* --theme NAME, or NULL */
	bool read_only;        /* --read-only */
	bool poll;             /* --poll: the "watch" key set to poll */
	const char *storage;   /* --storage URL: the storage.url key, or NULL */
	ac_config *config;     /* loaded for workspace */
	ac_workspace ws;       /* resolved from config */
	bool ws_ready;         /* ws holds resources to free */
	/* The dashboard found no workspace here or above (why, allocated):
	 * it opens the current folder if a store URL names the fleet's
	 * database, and refuses otherwise. NULL when a workspace was found. */
	char *no_workspace;
	const char *request_id; /* --request-id of a session write, or NULL */
} cli_context;

/* Prints "agentctl: <message>" on stderr (sanitised) and returns status. */
int cli_error(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "agentctl: <message>" on stderr as a note; the command goes on. */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Before a command's first write of agent state: the workspace's git
 * exclude holds agentctl's block (ac_oplog_exclude_agent_state), so that
 * an agent's `git add -A` meanwhile stages none of it; a failure is a note. */
void cli_exclude_agent_state(const cli_context *ctx);

/* Prints "<message>\n" on stdout, sanitised: for a line that quotes an id
 * (which may hold escape bytes) or a value from a file. */
void cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses a whole non-negative decimal number for option name. Prints the
 * usage error itself and returns CLI_USAGE when text is not one. */
int cli_parse_count(size_t *out, const char *name, const char *text);

/* The most a command reads from standard input: the journal's line limit,
 * so whatever is accepted can also be read back. */
#define CLI_INPUT_MAX AC_JOURNAL_MAX_LINE
#define CLI_INPUT_MAX_TEXT AC_JOURNAL_MAX_LINE_TEXT

/* The text of an argument that is either the text itself or "-" for all of
 * standard input (at most CLI_INPUT_MAX bytes), copied into out
 * (NUL-terminated). what names the argument in errors. CLI_FAILED when
 * reading fails or the input is longer (the stores' refusal of a record
 * over the line limit, said before it is held whole). */
int cli_read_input(ac_buf *out, const char *arg, const char *what);

/* Parses JSON text (numbers kept as written, see ac_json_exact.h) into
 * *out (the caller's reference). CLI_USAGE naming what, the line and the
 * column when it is not JSON. */
int cli_parse_json(json_t **out, const ac_buf *text, const char *what);

/* CLI_USAGE naming what when text is not valid UTF-8 (JSON strings must be). */
int cli_check_utf8(const char *what, const char *text);
/* CLI_USAGE (said, naming command) when id, an id the operator gives a new
 * session, starts with '-'; else CLI_OK. */
int cli_check_new_id(const char *command, const char *id);

/* Parses a whole decimal number 0..max (digits only: no sign, no spaces)
 * for option name; prints the usage error itself. */
int cli_parse_whole(uint64_t *out, const char *name, const char *text, uint64_t max);

/* True when argv[*i] is option opt, as `OPT VALUE` (*i moves past VALUE)
 * or `OPT=VALUE`: *out points at VALUE, or, when VALUE is missing, *status
 * is CLI_USAGE with the error printed. False (nothing set) otherwise. */
bool cli_option(const char **out, const char *opt, int argc, char **argv, int *i, int *status);

/* Writes bytes to stdout; false once stdout has failed (a closed pipe). */
bool cli_write(const void *bytes, size_t len);

/* Appends text from a file made safe for the terminal, padded with spaces
 * to width bytes (a table cell). */
void cli_put_cell(ac_buf *out, const char *text, int width);

/* Appends the JSON string value's bytes whole (a \u0000 in it included:
 * never cut there; sanitise the text before it is printed), or absent
 * when value is not a non-empty string. */
void cli_put_string(ac_buf *out, const json_t *value, const char *absent);

/* Appends text made safe line by line: newlines stay readable (later
 * lines indented by indent), everything else that could drive a terminal
 * is escaped. Clears text. */
void cli_put_lines(ac_buf *out, ac_buf *text, const char *indent);

/* Appends the messages of a conversation (a JSON array, borrowed) as
 * `session show` prints them: "[N] role: text", tool calls and results
 * rendered by ac_message_text(), made safe. */
void cli_put_conversation(ac_buf *out, const json_t *messages);

/* Prints a JSON document (2-space indent, keys in document order) on
 * stdout, with C1 and bidi characters escaped as \uXXXX. */
void cli_write_json(const json_t *doc);

/* Flushes stdout; returns CLI_FAILED with a message when output was lost. */
int cli_finish_output(void);

/* The workspace's store (ac_workspace_store(): the database storage.url
 * names, else the files), opened once per process, lent into *out (*out
 * NULL on failure); CLI_FAILED with the error printed. Give it back with
 * cli_close_backend() (NULL is fine). What only some stores can do is
 * asked with ac_backend_has_*(), never by its name. */
int cli_open_backend(ac_backend **out, const cli_context *ctx);
void cli_close_backend(const cli_context *ctx, ac_backend *b);

/* CLI_OK when session id exists: its file, or with storage.url a session
 * of the database; else the one error line, prefixed with command, and
 * CLI_FAILED (CLI_USAGE for an id no session can have). */
int cli_session_exists(const cli_context *ctx, const char *id, const char *command);

/* Appends the per-turn usage table and its totals line for usage, a
 * {"turns": [...], "totals": {...}} (ac_turn_usage_load), to text, which
 * the caller makes safe (cli_put_lines): models come from files. */
void cli_turn_usage_table(ac_buf *text, const json_t *usage);

/* Parses --usage's text into *out, a Usage object whose counts check
 * (ac_turn_usage_check); CLI_USAGE with one line naming what otherwise. */
int cli_turn_usage_parse(json_t **out, const char *text, const char *what);
/* session search|fork|export (cli_session_search.c, cli_session_fork.c,
 * cli_session_export.c), with the arguments after the verb. */
int cli_session_search(const cli_context *ctx, int argc, char **argv);
int cli_session_fork(const cli_context *ctx, int argc, char **argv);
int cli_session_export(const cli_context *ctx, int argc, char **argv);

/* session compact's report line: done (a summary was made) or why_not;
 * archive says where the originals went (a path, or the store's table). */
void cli_print_compacted(const ac_workspace *ws, const char *id, bool done, const char *why_not,
			 size_t summarized, size_t before, uint64_t tokens_before,
			 uint64_t tokens_after, const char *archive);

/* --request-id ID (cli_request.c): takes it out of argv (a usage error,
 * returned, when it is bad or the store keeps no request ids) into
 * ctx->request_id. */
int cli_request_take(cli_context *ctx, int *argc, char **argv, const char *command);
/* Hands ctx->request_id (if any) to b for its next session write. */
int cli_request_use(const ac_backend *b, const cli_context *ctx, const char *command);
/* After that write: true when it was a retry's (nothing written); *out
 * (may be NULL) the first answer's number under key ("messages", "turns"),
 * when it has one. */
bool cli_request_replayed(const ac_backend *b, const cli_context *ctx, const char *key,
			  long long *out);
/* For a status change, which is judged on the status read before it is
 * made: *out_retry true when ctx->request_id made this change already (the
 * caller says so, exit 0, and writes nothing); else the id is handed to b
 * for the change. A usage or store error is printed and returned. */
int cli_request_status(const ac_backend *b, const cli_context *ctx, const char *id,
		       const char *to, bool *out_retry);

int cli_journal(cli_context *ctx, int argc, char **argv);
int cli_session(cli_context *ctx, int argc, char **argv);
int cli_config(cli_context *ctx, int argc, char **argv);
int cli_ops(cli_context *ctx, int argc, char **argv);
int cli_checkpoint(cli_context *ctx, int argc, char **argv);
int cli_demo(cli_context *ctx, int argc, char **argv);
int cli_memo(cli_context *ctx, int argc, char **argv);
int cli_artifact(cli_context *ctx, int argc, char **argv);
int cli_sandbox(cli_context *ctx, int argc, char **argv);
/* After memo write/append changed (owner, scope): refreshes the sandbox
 * mirrors that show it (cli_sandbox.c); trouble is a note. */
void cli_sandbox_after_memo(const ac_backend *b, const cli_context *ctx, const char *tenant,
			    const char *owner, const char *scope);
int cli_trace(cli_context *ctx, int argc, char **argv);
int cli_storage(cli_context *ctx, int argc, char **argv);
int cli_gc(cli_context *ctx, int argc, char **argv);
int cli_usage(cli_context *ctx, int argc, char **argv);
int cli_sources(cli_context *ctx, int argc, char **argv);

/* The dashboard over ctx's workspace; returns the exit status. */
int cli_dashboard(cli_context *ctx);

/* storage migrate (--to URL | --from URL) [--tenant T] [--dry-run] [--json]
 * (cli_storage_migrate.c); argv starts after "migrate". */
int cli_storage_migrate(cli_context *ctx, int argc, char **argv);

/* Every command's options and arguments, and their one parser. */
#include "cli_args.h"

#endif
