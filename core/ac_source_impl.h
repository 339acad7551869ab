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
	/* Optional (JSON Lines): a conversation where what a line stands for
	 * depends on the lines before it (a Codex fork's copy of its parent,
	 * a rollback that drops the last turns). conv_new() makes the state
	 * for one pass over a file (NULL: out of memory), conv_line() appends
	 * the messages of the next entry to out, or takes messages back from
	 * its end. When set, messages() and count() serve neither the
	 * conversation nor the search. */
	void *(*conv_new)(void);
	void (*conv_free)(void *conv);
	int (*conv_line)(void *conv, json_t *out, const json_t *entry);
	/* Optional (JSON Lines): true when the file at path is one document
	 * rewritten whole all the same (a Gemini chat of the older format). */
	bool (*document)(const char *path);
	/* Optional: frees s->adapter_state (a file read again from its start,
	 * or freed). */
	void (*forget)(ac_source_session *s);
	/* Optional: builds the conversation of s itself, for a format whose
	 * lines depend on each other (a Gemini chat: a message appended again
	 * replaces its earlier version, a rewind drops messages); messages()
	 * is then given one message record at a time. */
	int (*conversation)(json_t *out, const ac_source_session *s);
	/* Optional: adapter_state for the cache (ac_source_cache.c), a new
	 * reference (NULL: none, or out of memory: then not cached); and its
	 * restore from what the cache holds (saved: NULL when it held none),
	 * false when saved does not fit s (then s is read from its start). */
	json_t *(*state_save)(const ac_source_session *s);
	bool (*state_restore)(ac_source_session *s, const json_t *saved);
	/* Optional: the adapter that reads the file at path when it is not
	 * this one (a Claude Code sub-agent's transcript: its every entry is a
	 * sidechain, which a session's own file leaves out). NULL: this one. */
	const ac_source_adapter *(*variant)(const char *path);
};

/* True when s's file is read line by line (else as one document). */
bool ac_source_reads_lines(const ac_source_session *s);

#define AC_SOURCE_NOT_SCANNED 1

extern const ac_source_adapter ac_source_claude;
extern const ac_source_adapter ac_source_codex;
extern const ac_source_adapter ac_source_gemini;
extern const ac_source_adapter ac_source_agy;

const ac_source_adapter *ac_source_adapter_of(ac_source_kind kind);

/* The adapter that reads the transcript of kind at path: kind's, or its
 * variant for that file. Static. */
const ac_source_adapter *ac_source_adapter_for(ac_source_kind kind, const char *path);

/* Gives s strings of its own when they share its block (packed): call
 * before changing any of them outside a read (a read does it). 0 or
 * AC_ENOMEM. */
int ac_source_session_own(ac_source_session *s);

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

/* The conversation of the first end bytes of s's file (decompressed
 * bytes for a compressed one; UINT64_MAX: all), then of the entry then
 * (NULL: none), as ac_source_session_conversation() makes it. An adapter
 * that must count again (a rollback took messages back) calls it from
 * entry() with s->offset: the start of the line being noted. */
int ac_source_conversation_upto(json_t **out, const ac_source_session *s, uint64_t end,
				const json_t *then);

/* Appends a message {role, content} (content stolen) to out. */
int ac_source_put_message(json_t *out, const char *role, json_t *content);

/* The text of a content that is a string or an array of blocks with
 * "text" members (joined by newlines), in a new string; "" otherwise. */
char *ac_source_text_of(const json_t *content);

/* For a discoverer with its own walk: tells the canary of a regular file
 * it passed over (not a transcript of its format). 0, or what the
 * canary's callback returned. */
int ac_source_walk_passed(const char *path, const struct stat *st);

/* Calls fn for each regular file under folder whose name starts with
 * prefix and ends with suffix, descending depth levels of sub-folders
 * (0: folder only). Symbolic links are not followed. A missing folder is
 * not an error. */
int ac_source_walk(const char *folder, const char *prefix, const char *suffix, int depth,
		   ac_source_found_fn fn, void *ctx);

/* While a refresh walks: fn (NULL: none) is told of each regular file a
 * walk of ac_source_walk() passes over whose name does not fit its
 * pattern, so the index can count transcripts of a format not read (the
 * canary). Per thread. */
void ac_source_walk_unread(ac_source_found_fn fn, void *ctx);

/* The canary's pattern of a file name into out ("session-*.jsonl";
 * escaped), or false when the name has no transcript's extension. */
bool ac_source_canary_pattern(ac_buf *out, const char *name);

/* Adds count under what (stored escaped) to t. 0 or AC_ENOMEM. */
int ac_source_tally_add(ac_source_tally *t, const char *what, size_t count);
void ac_source_tally_clear(ac_source_tally *t);
void ac_source_tally_free(ac_source_tally *t);

#endif
