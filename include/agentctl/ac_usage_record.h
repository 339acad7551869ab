/* Usage recorded by every source, for `agentctl usage` and the dashboard's
 * total and budget line: agentctl's own per-turn rows (ac_turn_usage.h),
 * Claude Code transcripts (~/.claude/projects/<project>/<session>.jsonl),
 * Codex rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl) and Gemini
 * CLI chats (~/.gemini/tmp/<project>/chats/[<parent>/]*.jsonl, *.json).
 *
 * Only the usage lines are read here, by small extractors with a byte
 * prefilter (a line without the marker is never parsed); the full
 * transcript adapters of the sessions pane are another module. The
 * extractors feed aggregates per (hour, session, model), which the index
 * (ac_usage_index.h) keeps per file so a warm run reads only appended
 * bytes. Not here: pricing and reports (ac_usage_report.h). */
#ifndef AC_USAGE_RECORD_H
#define AC_USAGE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	AC_USAGE_AGENTCTL = 0, /* the workspace's session turn rows */
	AC_USAGE_CLAUDE = 1,   /* Claude Code transcripts */
	AC_USAGE_CODEX = 2,    /* Codex rollouts */
	AC_USAGE_GEMINI = 3,   /* Gemini CLI chats */
} ac_usage_source;

/* "agentctl", "claude", "codex" or "gemini". */
const char *ac_usage_source_name(ac_usage_source source);

/* The token counts of one call or a sum of them. input excludes cached
 * input: for every source, input + cache_create + cache_read is what the
 * model read, output what it wrote (reasoning is part of output where the
 * source counts it so, and also given alone). */
typedef struct {
	uint64_t input;
	uint64_t output;
	uint64_t cache_create;
	uint64_t cache_read;
	uint64_t reasoning;
} ac_usage_counts;

/* One usage line of a source. Strings are borrowed from the extractor
 * (valid during the callback). */
typedef struct {
	ac_usage_source source;
	const char *session_id;
	const char *project;      /* the cwd the session ran in, "" unknown */
	const char *model;        /* "" unknown */
	int64_t timestamp_ms;     /* UTC */
	ac_usage_counts counts;
	uint64_t key;             /* ac_usage_key_hash() of a Claude message, 0 none:
				     for deduping across files */
	double cost_usd;          /* the cost the line states (Claude Code's costUSD),
				     -1 when it states none; reports price tokens
				     themselves (ac_usage_report.h), so one table
				     prices every source */
} ac_usage_record;

/* Receives each record; non-zero stops the extractor and is returned. */
typedef int (*ac_usage_record_fn)(const ac_usage_record *record, void *ctx);

/* What is known of one message key in one file: the largest counts this
 * file gave it (32 bits each: a count past that freezes the booking, see
 * ac_usage_booking_outgrown) and, when this file holds the message's one
 * booking, the index of the bucket it is in (AC_USAGE_UNBOOKED when
 * another file holds it, or nothing yet). */
typedef struct {
	uint32_t bucket;
	uint32_t counts[4]; /* input, output, cache_create, cache_read */
} ac_usage_booking;

#define AC_USAGE_UNBOOKED UINT32_MAX

/* What an extractor carries from one read of a file to the next (the index
 * keeps it): the session, its cwd and model as last seen, a Codex
 * rollout's last cumulative totals (its events may give only those) and
 * where a fork's copy of its parent ends, and
 * the keys of the Claude messages seen with their bookings (a message is
 * written on several lines as it streams, the last with the real output
 * count: counted once, by message.id + requestId, with the largest counts
 * any line gave it, as ccusage does; the scan keeps one booking per key
 * over all files and raises it in place when a later line is larger). */
typedef struct {
	char *session_id; /* owned, NULL until known */
	char *project;
	char *model;
	ac_usage_counts codex_total;
	/* Where a Codex fork's copy of its parent ends (core/ac_codex_fork.h):
	 * its flags, its creation and the copy's start, in ms. */
	uint32_t codex_gate;
	int64_t codex_cutoff_ms, codex_copy_ms;
	uint64_t *keys;   /* hashes of the message keys seen (open addressing) */
	ac_usage_booking *booked; /* beside keys, slot for slot */
	size_t n_keys, cap_keys;
	/* A Gemini chat (ac_usage_gemini.c), not saved in the index: read from
	 * its start, its messages wait in gemini_book until the end of the
	 * read (a later version of a message replaces an earlier one). */
	void *gemini_book;
} ac_usage_file_state;

void ac_usage_file_state_free(ac_usage_file_state *state);

/* Hash of a Claude message key (message.id + requestId), as keys holds. */
uint64_t ac_usage_key_hash(const char *id, const char *request_id);

/* True when state has counted key; ac_usage_file_state_add_key adds it
 * (0 or AC_ENOMEM). */
bool ac_usage_file_state_has_key(const ac_usage_file_state *state, uint64_t key);
int ac_usage_file_state_add_key(ac_usage_file_state *state, uint64_t key);
/* key's booking in state (valid until the next add), NULL when absent.
 * A new key's booking is unbooked with zero counts. */
ac_usage_booking *ac_usage_file_state_booking(const ac_usage_file_state *state, uint64_t key);

/* Whether counts replace booking's: their total (input + output + cache
 * creation + cache read, ccusage's comparison) is larger and every count
 * fits the booking. A booking holding a count past 32 bits (no real call)
 * is never replaced. */
bool ac_usage_booking_outgrown(const ac_usage_booking *booking, const ac_usage_counts *counts);
/* booking's counts := counts (the caller checked they fit). */
void ac_usage_booking_set(ac_usage_booking *booking, const ac_usage_counts *counts);

/* Extracts the records of text[0..len), which holds whole lines (the
 * caller cuts a torn last line off), of a Claude Code transcript whose
 * file name gives fallback_session. state carries over between calls.
 * Lines that are not JSON, not assistant messages with usage, or repeat a
 * message this file gave with counts as large are skipped (*out_skipped
 * counts the unreadable ones); a repeat with larger counts gives its
 * record again (same key): the receiver replaces, never adds. */
int ac_usage_claude_extract(ac_usage_file_state *state, const char *text, size_t len,
			    const char *fallback_session, ac_usage_record_fn fn, void *ctx,
			    size_t *out_skipped);

/* The same for a Codex rollout: token_count events, per-turn counts from
 * last_token_usage, else the growth of total_token_usage; the model from
 * turn_context, the session and cwd from session_meta. */
int ac_usage_codex_extract(ac_usage_file_state *state, const char *text, size_t len,
			   const char *fallback_session, ac_usage_record_fn fn, void *ctx,
			   size_t *out_skipped);

/* The same for a Gemini CLI chat (.jsonl): each model message's tokens,
 * once per session id + message id; the session from the metadata, the
 * model from the message. Between ac_usage_gemini_begin() (a read from
 * the file's start) and ac_usage_gemini_finish() the messages are kept
 * (the last version of each) and given at the finish, or when a rewind
 * drops them (a rewind leaves the bill as it was); otherwise each is
 * given as it comes.
 * ac_usage_gemini_document() reads a chat of the older format (one JSON
 * document, text its whole file). */
int ac_usage_gemini_begin(ac_usage_file_state *state);
int ac_usage_gemini_extract(ac_usage_file_state *state, const char *text, size_t len,
			    const char *fallback_session, ac_usage_record_fn fn, void *ctx,
			    size_t *out_skipped);
int ac_usage_gemini_finish(ac_usage_file_state *state, const char *fallback_session,
			   ac_usage_record_fn fn, void *ctx);
int ac_usage_gemini_document(ac_usage_file_state *state, const char *text, size_t len,
			     const char *fallback_session, ac_usage_record_fn fn, void *ctx,
			     size_t *out_skipped);
void ac_usage_gemini_book_free(void *book);

#endif
