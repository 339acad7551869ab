/* What the compaction's files share, not public: ac_compact.c (plans,
 * summarisers, the change on a parsed document, the steps in order),
 * ac_summary_builtin.c (the built-in summary, one message at a time) and
 * ac_compact_text.c (the same steps on the file's text, one message at a
 * time, so that a large session is never held as one tree). */
#ifndef AC_COMPACT_IMPL_H
#define AC_COMPACT_IMPL_H

#include "ac_buf.h"
#include "ac_compact.h"
#include "ac_json_scan.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the built-in summary (ac_summary_builtin.c) ---- */

typedef struct {
	json_t *tools;       /* [[name, count], ...] in first-use order */
	json_t *files;       /* [path, ...] in first-seen order */
	json_t *files_seen;  /* {path: true}, for de-duplication */
	int rc;
} ac_summary_facts;

/* The built-in summary made one message at a time, so that a history need
 * not be held whole: counts and facts over all, lines from both ends. */
typedef struct {
	size_t n;    /* messages to summarise */
	size_t seen; /* messages added so far */
	size_t users, assistants, tools, other;
	ac_summary_facts facts;
	ac_buf lines, scratch;
} ac_summary_builtin;

/* Starts a summary of n messages; ac_summary_builtin_free() after, even
 * on failure. 0 or AC_ENOMEM. */
int ac_summary_builtin_begin(ac_summary_builtin *b, size_t n);

/* Adds the next message (borrowed for the call). 0 or AC_ENOMEM. */
int ac_summary_builtin_add(ac_summary_builtin *b, const json_t *msg);

/* The summary of the messages added, allocated into *out (the caller
 * frees it). 0 or AC_ENOMEM. */
int ac_summary_builtin_finish(char **out, ac_summary_builtin *b);

void ac_summary_builtin_free(ac_summary_builtin *b);

/* ---- plans, summariser, the change (ac_compact.c) ---- */

/* The plan's counts for n messages of tokens; true when a cut is to be
 * chosen (then ac_compact_plan_cut() finishes the plan). */
bool ac_compact_plan_counts(ac_compact_result *out, size_t n, uint64_t tokens,
			    const ac_compact_options *opts);
void ac_compact_plan_cut(ac_compact_result *out, size_t n, size_t cut);

/* Runs the summariser argv on behalf of session_id (NULL: none) with
 * input[0..input_len) on its standard input; *out receives the summary it
 * printed (allocated). */
int ac_compact_run_summarizer(char **out, const char *const *argv, const char *session_id,
			      const char *input, size_t input_len, int timeout_ms);

/* A session's history as the file's text, walked one message at a time. */
typedef struct {
	ac_json_span span; /* conversationHistory's value in the text */
	const char *what;  /* the file, for errors */
} ac_history_text;

/* One compaction's change to the session, for either way of making it. */
typedef struct {
	const char *id;
	json_t *replaced;         /* the messages that were summarised */
	const char *summary;
	const char *archive;      /* relative to the sessions folder */
	const char *archive_path; /* the same, as a path */
	const char *at;
	ac_compact_result *result;
	const ac_compact_options *opts;
	bool applied;             /* the last call changed the content */
	/* The history as loaded (a reference is held, so no other array
	 * takes its address) and its counts, which stand while the content
	 * is that document. */
	const json_t *loaded;
	uint64_t loaded_tokens, replaced_tokens;
	/* Compacting from the file's text: its history (NULL otherwise), the
	 * document without it, and how many messages are summarised. */
	const ac_history_text *text;
	json_t *rest;
	size_t cut;
} ac_compact_change;

/* The summary message that replaces the first messages. New reference, or
 * NULL when out of memory. */
json_t *ac_compact_summary_message(const char *summary);

/* Checks root's metadata and that the archive is still there (the record
 * must never name nothing), then appends this compaction's record to
 * metadata.compactions (both made when absent). Nothing changes on a
 * refusal. */
int ac_compact_record(json_t *root, const ac_compact_change *change, uint64_t before,
		      uint64_t after);

/* ---- the steps on the file's text (ac_compact_text.c) ---- */

/* True when the session text[0..len) can be compacted from its text: an
 * object the scanner accepts, whose history is an array and whose status,
 * if any, a string (else the parsed way names the fault). Sets *out. */
bool ac_history_text_find(ac_history_text *out, const char *text, size_t len, const char *what);

typedef int (*ac_history_fn)(const json_t *msg, void *ctx);

/* Calls fn for each of messages [from, to) of h, each parsed on its own and
 * released after the call. */
int ac_history_text_each(const ac_history_text *h, size_t from, size_t to, ac_history_fn fn,
			 void *ctx);

/* ac_compact_plan() from the text: tokens from the bytes, the cut from each
 * message's tool calls and results. */
int ac_compact_text_plan(ac_compact_result *out, const ac_history_text *h,
			 const ac_compact_options *opts);

/* The summary of the first cut messages (opts' command or the built-in
 * summariser; only the command's input is held whole). */
int ac_compact_text_summarize(char **out, const ac_history_text *h, size_t cut, const char *id,
			      const ac_compact_options *opts);

/* ac_archive_write() of the first cut messages, written one at a time. */
int ac_compact_text_archive(char **out_path, char **out_relative, const ac_history_text *h,
			    size_t cut, const char *sessions_dir, const char *id,
			    const char *created_at, int64_t now_ms);

/* The document text[0..len) holds with its history left empty: the small
 * top-level members, parsed. */
int ac_compact_text_load_rest(json_t **out, const char *text, size_t len,
			      const ac_history_text *h);

/* ac_session_text_change_fn: the document the parsed way would write, its
 * messages written one at a time (ctx: the ac_compact_change, with rest). */
int ac_compact_text_replace(ac_buf *out, const char *text, size_t len, const char *now,
			    void *ctx);

#endif
