/* The names Codex gives its threads: <codex home>/session_index.jsonl,
 * one {id, thread_name, updated_at} a line, appended on each rename; the
 * last line for an id wins and an empty name is no name (codex-rs
 * rollout/src/session_index.rs). Read again only when the file changed;
 * opened O_RDONLY. Not for use outside the ac_source*.c files. */
#ifndef AC_CODEX_TITLES_H
#define AC_CODEX_TITLES_H

#include <jansson.h>
#include <stdint.h>

typedef struct {
	json_t *names;   /* id -> name; NULL until read */
	uint64_t dev, ino, size;
	int64_t mtime_ns;
} ac_codex_titles;

/* Brings t up to date with the index beside sessions_dir (the folder
 * holding "sessions"; another folder has none). A missing or unreadable
 * index is no names. 0 or AC_ENOMEM. */
int ac_codex_titles_refresh(ac_codex_titles *t, const char *sessions_dir);

/* The name of thread id, or NULL. Borrowed until the next refresh. */
const char *ac_codex_titles_get(const ac_codex_titles *t, const char *id);

void ac_codex_titles_free(ac_codex_titles *t);

#endif
