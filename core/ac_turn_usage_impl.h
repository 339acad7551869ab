/* What the file store's turn rows share between recording a turn
 * (ac_turn_usage.c) and adding copied rows (ac_turn_usage_file.c). */
#ifndef AC_TURN_USAGE_IMPL_H
#define AC_TURN_USAGE_IMPL_H

#include "ac_buf.h"
#include "ac_turn_usage.h"

#include <stdbool.h>
#include <stddef.h>

/* A row larger than this is not written (nor read back): a Usage is a few
 * hundred bytes; the bound keeps one line one write(2). */
#define AC_TURN_USAGE_ROW_MAX 65536

/* AC_EINVAL when the totals of loaded's rows (ac_turn_usage_load's shape),
 * with a row of usage added to them, would pass AC_SESSION_COUNT_MAX: a
 * turn is refused before it is written, on either store. */
int ac_turn_usage_room(json_t *loaded, const json_t *usage);
/* *out (allocated): <sessions_dir>/.usage/<id>.jsonl; make_dir creates
 * the folder. */
int ac_turn_usage_rows_path(char **out, const char *sessions_dir, const char *id, bool make_dir);

/* A row as read back: an object with a whole turn number >= 1 and a Usage
 * whose counts check. Anything else is not a row. */
bool ac_turn_usage_is_row(const json_t *row);

/* The complete lines of text[0..len) that are rows, appended to rows;
 * *out_complete is the length up to the last '\n' (the rest is torn). */
int ac_turn_usage_parse_rows(json_t *rows, size_t *out_complete, const char *text, size_t len);

/* The carried row for totals counted before rows were kept (legacy:
 * metadata.usage, may be NULL), or NULL when it counts no turn. */
json_t *ac_turn_usage_carried_row(const json_t *legacy);

/* The whole file open on fd (*out allocated, NUL-terminated). */
int ac_turn_usage_read_all(char **out, size_t *out_len, int fd, const char *path);

/* Opens session id's rows file (made if need be), takes its lock
 * (flock, held until *out_fd is closed), reads its rows into rows and cuts
 * a torn tail, so what is appended next starts a line. *out_path is
 * allocated; *out_complete is the file's length. */
int ac_turn_usage_open_rows(int *out_fd, char **out_path, size_t *out_complete, json_t *rows,
			    const char *sessions_dir, const char *id);

/* Appends lines to the file open_rows opened, and syncs it; on failure it
 * is cut back to complete bytes (whole rows, none of these). */
int ac_turn_usage_append_lines(int fd, const char *path, const ac_buf *lines, size_t complete);

#endif
