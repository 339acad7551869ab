/* The coding agents' transcripts in the session commands
 * (cli_session_sources.c). */
#ifndef CLI_SOURCES_H
#define CLI_SOURCES_H

#include "cli.h"

#include "ac_session.h"
#include "ac_source.h"

/* An index of the workspace's transcripts (every project's with
 * all_projects), refreshed. A transcript that cannot be read is left out
 * and a note says so; a refresh that fails is an error. The return is
 * CLI_OK or the exit status of an error already printed. */
int cli_sources_open(ac_source_index **out, const cli_context *ctx, bool all_projects);

/* cli_sources_open() without the note: for a caller that shows what was
 * left out itself (ac_source_index_unreadable()). */
int cli_sources_read(ac_source_index **out, const cli_context *ctx, bool all_projects);

/* s's state now, under the thresholds of config. */
ac_session_state cli_source_state(const ac_source_session *s, int64_t now_ms,
				  const ac_config *config);

/* s as an element of `session list --json` (a new reference). */
json_t *cli_source_json(const ac_source_session *s, ac_session_state state);

/* s as a row of `session list`, in its columns, made safe; depth > 0: a
 * child, its id marked "└ " (indented per level) under its parent. */
void cli_source_row(ac_buf *line, const ac_source_session *s, ac_session_state state,
		    unsigned depth);

/* The order `session list` shows list[0..n) (newest first) in: each
 * shown[i] session, and after it (children) the shown sessions whose
 * parent_id it is, at depth + 1, newest first; a child whose parent is
 * not shown stays in its own place. Without children a sub-agent is left
 * out and a fork keeps its place. *out_order (indexes into list) and
 * *out_depth are allocated (free()), *out_n long. 0 or AC_ENOMEM. */
int cli_sources_tree(size_t **out_order, unsigned char **out_depth, size_t *out_n,
		     ac_source_session *const *list, size_t n, const bool *shown, bool children);

/* The transcript whose id is id, the workspace's first, then any
 * project's: *out NULL when none (CLI_OK); *out_index (freed by the
 * caller, also on error) holds it. */
int cli_source_find(ac_source_index **out_index, ac_source_session **out, const cli_context *ctx,
		    const char *id);

/* `session show ID` for a transcript: *out_found false (and CLI_OK) when
 * no transcript has that id. */
int cli_source_show(const cli_context *ctx, const char *id, bool json, bool *out_found);

/* CLI_OK unless id names no session file but a transcript, which verb
 * may not change: then the error "read-only source" is printed and its
 * status returned. */
int cli_source_refuse_write(const cli_context *ctx, const char *verb, const char *id);

#endif
