/* Per-turn usage rows: the seed's recordTurn(tenantId, sessionId, usage)
 * keeps `{ sessionId, ...usage }` for every turn, every field of Usage.
 *
 * A Usage is a JSON object: the counts inputTokens, outputTokens,
 * cacheCreationInputTokens, cacheReadInputTokens, reasoningTokens,
 * totalTokens (whole numbers, 0..AC_SESSION_COUNT_MAX) and whatever else
 * the agent reports (model, costUsd, ...), kept as given.
 *
 * The file store keeps the rows in an append-only sidecar,
 *   <sessionDir>/.usage/<id>.jsonl   {"turn":N,"timestamp":ISO,"usage":{...}}
 * and not in the session document, because other programs rewrite that
 * document the seed's way (read, modify, temp + rename, no lock): a row
 * inside it would be lost to such a writer, a line in a file it never
 * opens is not. The folder starts with '.' and the file does not end in
 * ".json", so no reader takes it for a session. metadata.usage {inputTokens,
 * outputTokens, turns, ...} stays where other readers look for it, but it is
 * derived: recomputed from the rows on every recorded turn, so a lost
 * update or a crash between the two writes heals at the next turn, and
 * readers here (session show, the inspector) sum the rows themselves.
 *
 * Totals recorded before rows were kept (a document with metadata.usage
 * and no sidecar) become one "carried" row, {"turn":K,"carried":true,
 * "usage":{the old totals}}, written before the first new row: nothing
 * counted earlier is lost, turn numbers go on from K.
 *
 * Not here: the PostgreSQL store's rows (turn_usage, ac_backend_pg.c), and
 * usage read from other tools' transcripts (ac_usage_record.h). */
#ifndef AC_TURN_USAGE_H
#define AC_TURN_USAGE_H

#include "ac_backend.h"
#include "ac_session.h"

#include <jansson.h>

/* The Usage count fields, in the order tables show them; NULL-terminated. */
extern const char *const ac_turn_usage_counts[];

/* 0 when usage is an object whose count fields (when present) are whole
 * numbers 0..AC_SESSION_COUNT_MAX; AC_EINVAL naming what and the field. */
int ac_turn_usage_check(const json_t *usage, const char *what);

/* The Usage a turn records (a new object, NULL when out of memory): a copy
 * of usage->fields (NULL: {}) with inputTokens and outputTokens set from
 * usage's two counts. usage may be NULL (zeros). */
json_t *ac_turn_usage_of(const ac_usage *usage);

/* *out: ac_turn_usage_of(usage) when it checks (ac_turn_usage_check) and
 * its JSON is small enough for a row (one line, one write(2), on files):
 * else AC_EINVAL naming why. Both stores record a turn's Usage only
 * through this, so they refuse the same. */
int ac_turn_usage_row_usage(json_t **out, const ac_usage *usage);

/* A turn's total tokens: the Usage's own totalTokens when it gives one
 * (an agent may count cache tokens in it), else inputTokens + outputTokens,
 * as the database's generated total_tokens column counts. */
uint64_t ac_turn_usage_total(const json_t *usage);

/* *out (new object): the totals of an array of rows: every count summed
 * as the rows give it (totalTokens too: the agents' own figures, which
 * metadata.usage keeps; ac_turn_usage_total() derives a row's for display),
 * turns the highest turn number, costUsd summed when every row gives it
 * (absent otherwise: a partial sum would read as the cost). AC_EINVAL when
 * a sum would pass AC_SESSION_COUNT_MAX. */
int ac_turn_usage_totals(json_t **out, const json_t *rows);

/* Sets usage's (metadata.usage's) keys from totals (ac_turn_usage_totals):
 * inputTokens, outputTokens and turns always, the other counts and costUsd
 * once non-zero, so a session that never reports them keeps the shape it
 * always had; keys other writers added stay. Both stores derive a
 * session's metadata.usage this way, so a document reads the same on
 * either. */
int ac_turn_usage_apply_totals(json_t *usage, const json_t *totals);

/* Adds rows (an array of rows as ac_turn_usage_load gives them, from a
 * copy: turn numbers, timestamps and every member kept) to session id's
 * rows file, one line each, in one write under the file's lock; all or
 * none: AC_ECONFLICT naming the turn when the file (or the array) has a
 * row with a turn number already, AC_EINVAL when one is not a row. legacy
 * as for ac_turn_usage_load: into a file with no row yet its carried row
 * is written first, as recording a turn does, so it is not lost. The
 * document's metadata.usage is not touched (a copy brings it along). */
int ac_turn_usage_put_rows(const char *sessions_dir, const char *id, const json_t *legacy,
			   const json_t *rows);

/* The rows of session id under sessions_dir and their totals:
 * *out = {"turns": [rows...], "totals": {...}} (new reference). legacy
 * (borrowed, may be NULL) is the document's metadata.usage: when no row was
 * ever written and it counts turns, it is shown as the carried row. Lines
 * that do not parse (a torn last line, a foreign edit) are skipped. */
int ac_turn_usage_load(json_t **out, const char *sessions_dir, const char *id,
		       const json_t *legacy);

/* What the caller of ac_turn_usage_record() adds (all may be NULL). */
typedef struct {
	/* Runs on the document's current content before each rewrite, e.g.
	 * the tenant check; its error stops the call. */
	ac_session_change_fn guard;
	/* Told when the messages are written and when the row is: the points
	 * a crash test stops at. */
	void (*reached)(const char *point, void *ctx);
	void *ctx;
} ac_turn_usage_hooks;

#define AC_TURN_USAGE_AFTER_MESSAGES "record_turn:messages-written"
#define AC_TURN_USAGE_AFTER_ROW "record_turn:row-written"

/* Records one turn of session id in the file store: appends the array
 * messages (NULL or empty: none), then the row (turn number = last + 1,
 * timestamp now), then sets metadata.usage to the totals of all rows.
 * Three writes, in that order: a crash after the first leaves messages and
 * no row (the turn not counted); after the second, totals one turn behind,
 * recomputed by the next turn (readers here sum the rows). hooks may be
 * NULL. *out (may be NULL) receives the session as written last;
 * *out_turn (may be NULL) this turn's number. Nothing is written when
 * usage does not check (ac_turn_usage_check) or a total would pass
 * AC_SESSION_COUNT_MAX. */
int ac_turn_usage_record(ac_session **out, uint64_t *out_turn, const char *sessions_dir,
			 const char *id, const json_t *messages, const ac_usage *usage,
			 const ac_turn_usage_hooks *hooks);

#endif
