/* What every command of the program shares: the workspace, the loaded
 * configuration, and the one way errors are printed.
 *
 * Exit status: 0 success, 1 the operation failed, 2 bad usage. Errors are
 * one line on stderr, made safe for the terminal. */
#ifndef CLI_H
#define CLI_H

#include "ac_buf.h"
#include "ac_config.h"
#include "ac_version.h"
#include "ac_workspace.h"

#include <stdbool.h>
#include <stdio.h>

enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

typedef struct {
	const char *workspace; /* -w DIR; "." by default */
	const char *theme;     /* --theme NAME, or NULL */
	bool read_only;        /* --read-only */
	ac_config *config;     /* loaded for workspace */
	ac_workspace ws;       /* resolved from config */
	bool ws_ready;         /* ws holds resources to free */
} cli_context;

/* Prints "agentctl: <message>" on stderr (sanitised) and returns status. */
int cli_error(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "agentctl: <message>" on stderr as a note; the command goes on. */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses a whole non-negative decimal number for option name. Prints the
 * usage error itself and returns CLI_USAGE when text is not one. */
int cli_parse_count(size_t *out, const char *name, const char *text);

/* Writes bytes to stdout; false once stdout has failed (a closed pipe). */
bool cli_write(const void *bytes, size_t len);

/* Appends text from a file made safe for the terminal, padded with spaces
 * to width bytes (a table cell). */
void cli_put_cell(ac_buf *out, const char *text, int width);

/* Prints a JSON document (2-space indent, keys in document order) on
 * stdout, with C1 and bidi characters escaped as \uXXXX. */
void cli_write_json(const json_t *doc);

/* Flushes stdout; returns CLI_FAILED with a message when output was lost. */
int cli_finish_output(void);

int cli_journal(cli_context *ctx, int argc, char **argv);
int cli_session(cli_context *ctx, int argc, char **argv);
int cli_config(cli_context *ctx, int argc, char **argv);
int cli_ops(cli_context *ctx, int argc, char **argv);
int cli_checkpoint(cli_context *ctx, int argc, char **argv);
int cli_demo(cli_context *ctx, int argc, char **argv);
int cli_memo(cli_context *ctx, int argc, char **argv);
int cli_artifact(cli_context *ctx, int argc, char **argv);
int cli_trace(cli_context *ctx, int argc, char **argv);

/* The dashboard over ctx's workspace; returns the exit status. */
int cli_dashboard(cli_context *ctx);

#endif
