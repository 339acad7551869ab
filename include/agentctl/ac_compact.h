/* Compaction: replacing the oldest part of a long conversation with one
 * summary message, without losing anything.
 *
 * When a session's estimated tokens (ac_messages.h) pass the trigger, the
 * oldest fraction of its history, cut where no tool call is separated from
 * its result, is summarised and replaced by
 *   {"role":"user","content":"[Conversation summary]: ..."}
 * followed by the kept messages. The replaced messages are first archived
 * to <sessions>/.compactions/<id>/<UTC>.json, and metadata.compactions
 * records each compaction. The summary comes from a built-in summariser
 * (offline, deterministic) or an external command (argv from config) that
 * reads the messages as JSON on stdin and prints the summary. */
#ifndef AC_COMPACT_H
#define AC_COMPACT_H

#include "ac_session.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AC_SUMMARY_PREFIX "[Conversation summary]: "

/* The defaults ac_compact_options_init() fills in. */
#define AC_COMPACT_TRIGGER_TOKENS 80000
#define AC_COMPACT_FRACTION 0.5
#define AC_COMPACT_MIN_MESSAGES 20 /* seed 001's compaction.minMessages */
#define AC_COMPACT_SUMMARIZER_TIMEOUT_MS 120000

/* Options start from AC_COMPACT_OPTIONS_INIT (the defaults above, as
 * ac_compact_options_init()); ac_compact_session() refuses options of
 * another version, or a write member of another, with AC_EINVAL naming
 * the struct. */
#define AC_COMPACT_OPTIONS_VERSION 1
#define AC_COMPACT_OPTIONS_INIT                                                           \
	{                                                                                 \
		.version = AC_COMPACT_OPTIONS_VERSION,                                      \
		.trigger_tokens = AC_COMPACT_TRIGGER_TOKENS, .fraction = AC_COMPACT_FRACTION, \
		.min_messages = AC_COMPACT_MIN_MESSAGES,                                    \
		.summarizer_timeout_ms = AC_COMPACT_SUMMARIZER_TIMEOUT_MS,                  \
		.write = AC_SESSION_WRITE_OPTIONS_INIT                                      \
	}

typedef struct {
	unsigned int version;             /* AC_COMPACT_OPTIONS_VERSION */
	uint64_t trigger_tokens;          /* compaction.triggerTokens */
	double fraction;                  /* compaction.compactFraction, in (0, 1] */
	bool force;                       /* compact even below the trigger */
	/* compaction.minMessages: a history shorter than this is not
	 * summarised by the trigger (seed 001: too short to be worth a
	 * summary); force, the operator's explicit request, overrides it as it
	 * overrides the trigger. 0 or 1: no minimum beyond the two a summary
	 * needs. */
	size_t min_messages;
	const char *const *summarizer;    /* summarizer.command argv (NULL-terminated), or NULL: built-in */
	int summarizer_timeout_ms;
	/* A summariser in code (a backend's callback); when set it is used
	 * instead of summarizer / the built-in one. Returns 0 and an allocated
	 * *out, or an AC_E* code with a message. */
	int (*summarize)(char **out, const json_t *messages, void *ctx);
	void *summarize_ctx;
	/* Checked on the session's current content right before it is
	 * changed (e.g. that it still belongs to a tenant); a non-zero return
	 * refuses the compaction and is returned. May be NULL. A session
	 * compacted from its text (the usual way, see ac_compact_session())
	 * is shown with its conversationHistory empty: a guard judges the
	 * other members (metadata, id, status), not the messages. */
	int (*guard)(const json_t *root, void *ctx);
	void *guard_ctx;
	/* Called once the archive is written and before the session changes
	 * (a seam for crash tests). May be NULL. */
	void (*after_archive)(void *ctx);
	void *after_archive_ctx;
	/* How the session is rewritten (quiet wait); published is ignored. */
	ac_session_write_options write;
} ac_compact_options;

typedef struct {
	bool needed;              /* false: nothing was (or would be) done... */
	const char *why_not;      /* ...and why, for people (static text); NULL when needed */
	size_t messages_before;
	size_t summarized;        /* messages replaced by the summary */
	size_t messages_after;
	uint64_t tokens_before;
	uint64_t tokens_after;    /* after: estimated with the actual summary (plan: 0) */
	char *archive_path;       /* owned; set when compacted */
} ac_compact_result;

/* Fills opts with the defaults above; everything else zero (NULL):
 * AC_COMPACT_OPTIONS_INIT. */
void ac_compact_options_init(ac_compact_options *opts);

/* 0 when opts (and its write member) are of this library's version;
 * AC_EINVAL naming the struct and both versions otherwise. NULL: 0. */
int ac_compact_options_check(const ac_compact_options *opts);

/* What compacting the given messages would do, without doing it: needed,
 * messages_before, summarized, messages_after (summarized replaced by 1),
 * tokens_before. For the dashboard's confirmation dialog. */
void ac_compact_plan(ac_compact_result *out, const json_t *messages,
		     const ac_compact_options *opts);

/* Compacts session id in sessions_dir. The summariser runs before the
 * session is touched; its failure leaves the session untouched and the
 * message says why. If another writer changed the summarised messages
 * meanwhile, nothing is changed (AC_ECONFLICT); messages appended
 * meanwhile are kept. The archive is removed again only when no version of
 * the session that names it was ever visible; otherwise it stays, and the
 * message names it. The caller frees out->archive_path with
 * ac_compact_result_free().
 * Memory: unless opts->summarize is set (it takes the messages as one
 * array), the session is not parsed whole: its history is read from the
 * file's text one message at a time, and the new document is written the
 * same way, byte for byte as a parsed rewrite would be; the process holds
 * the file's text plus one step's output. Once another writer has
 * replaced the file, the change is made on its parsed content. */
int ac_compact_session(ac_compact_result *out, const char *sessions_dir, const char *id,
		       const ac_compact_options *opts);

void ac_compact_result_free(ac_compact_result *result);

/* The built-in summary of messages: who said what (in order, each cut to a
 * line), the tools called with counts, and the file paths mentioned in tool
 * inputs. Deterministic. *out is allocated for the caller to free. */
int ac_summarize_builtin(char **out, const json_t *messages);

/* Runs argv with the messages as a JSON array on stdin; its trimmed stdout
 * is the summary. A non-zero exit, a time-out or empty output is an error
 * that says which. */
int ac_summarize_command(char **out, const char *const *argv, const json_t *messages,
			 int timeout_ms);

#endif
