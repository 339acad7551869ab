/* What the source adapters share with the generic reader (ac_source.c):
 * the adapter table and small helpers that fill a summary. Not for use
 * outside the ac_source*.c files. */
#ifndef AC_SOURCE_IMPL_H
#define AC_SOURCE_IMPL_H

#include "ac_source.h"

#include <sys/stat.h>

/* Called by a discoverer for each transcript file it finds (path and its
 * lstat st borrowed). Non-zero stops the walk and is returned. */
typedef int (*ac_source_found_fn)(const char *path, const struct stat *st, void *ctx);

typedef struct ac_source_adapter ac_source_adapter;

struct ac_source_adapter {
	ac_source_kind kind;
	const char *name;    /* "claude-code" */
	const char *key;     /* "claude" */
	const char *default_dir; /* under $HOME */
	const char *const *default_resume;
	bool jsonl;          /* one entry a line; else one document, rewritten whole */
	/* Finds the transcripts under dir for workspace (all: every one). */
	int (*discover)(const char *dir, const char *workspace, bool all,
			ac_source_found_fn fn, void *ctx);
	/* Notes one entry (a line; for a document source, the whole document,
	 * after the summary was reset) in s. Never fails: what it cannot use
	 * it ignores. Returns AC_ENOMEM only. */
	int (*entry)(ac_source_session *s, const json_t *entry);
	/* Appends the messages entry (as above) stands for to out (an array). */
	int (*messages)(json_t *out, const json_t *entry);
	/* Optional: notes one line (its bytes) without building it, or returns
	 * AC_SOURCE_NOT_SCANNED to have it parsed and given to entry(). */
	int (*line)(ac_source_session *s, const char *text, size_t len);
	/* Optional (JSON Lines): how many messages messages() makes of the
	 * line text[0..len), told by the allocation-free scanner without
	 * building it, so that a search can skip a line yet count it; -1 when
	 * the scanner refuses the line (then it is built and counted). Keep in
	 * step with messages(): tests/test_source_search.c checks the two
	 * agree on every fixture. */
	int (*count)(const char *text, size_t len);
	/* Optional: the adapter that reads the file at path when it is not
	 * this one (a Claude Code sub-agent's transcript: its every entry is a
	 * sidechain, which a session's own file leaves out). NULL: this one. */
	const ac_source_adapter *(*variant)(const char *path);
};

#define AC_SOURCE_NOT_SCANNED 1

extern const ac_source_adapter ac_source_claude;
extern const ac_source_adapter ac_source_codex;
extern const ac_source_adapter ac_source_gemini;

const ac_source_adapter *ac_source_adapter_of(ac_source_kind kind);

/* The adapter that reads the transcript of kind at path: kind's, or its
 * variant for that file. Static. */
const ac_source_adapter *ac_source_adapter_for(ac_source_kind kind, const char *path);

/* Replaces *field with a copy of value (NULL or not a string: unchanged).
 * AC_ENOMEM. */
int ac_source_set(char **field, const json_t *value);

/* Sets *field only when it is still NULL. */
int ac_source_set_once(char **field, const json_t *value);

/* True when st is the file s was last read from, as it was then: a
 * refresh need not open it. */
bool ac_source_session_unchanged(const ac_source_session *s, const struct stat *st);

/* The pending tool calls of s: add an id, drop one (unknown: nothing),
 * forget all (a turn ended or was interrupted). */
int ac_source_pending_add(ac_source_session *s, const char *id);
void ac_source_pending_drop(ac_source_session *s, const char *id);
void ac_source_pending_clear(ac_source_session *s);

/* Counts one record of a type the adapter does not know (the canary of
 * ac_source.h). A NULL or empty type counts as "(none)". 0 or AC_ENOMEM. */
int ac_source_note_unknown(ac_source_session *s, const char *type);

/* Appends a message {role, content} (content stolen) to out. */
int ac_source_put_message(json_t *out, const char *role, json_t *content);

/* The text of a content that is a string or an array of blocks with
 * "text" members (joined by newlines), in a new string; "" otherwise. */
char *ac_source_text_of(const json_t *content);

/* Calls fn for each regular file under folder whose name starts with
 * prefix and ends with suffix, descending depth levels of sub-folders
 * (0: folder only). Symbolic links are not followed. A missing folder is
 * not an error. */
int ac_source_walk(const char *folder, const char *prefix, const char *suffix, int depth,
		   ac_source_found_fn fn, void *ctx);

#endif
