/* Journal query terms: parsing "agent=Claude", "status!=SUCCESS",
 * "since=2025-09-03", "text~server" and matching events against them.
 *
 * A query also yields a byte needle that every matching line must contain
 * in its raw form (or the line holds a \u or \/ escape), so scanners can
 * skip most lines without parsing them. Scanning files is ac_journal_scan.h. */
#ifndef AC_QUERY_H
#define AC_QUERY_H

#include "ac_event.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct ac_query ac_query;

/* Parses nterms terms (ANDed; none matches every event):
 *   FIELD=VALUE   the field (a dotted path) equals VALUE
 *   FIELD!=VALUE  the field is absent or differs
 *   FIELD~TEXT    the field is a string that contains TEXT
 *   text~TEXT     TEXT occurs anywhere in the event
 *   since=TIME    timestamp at or after TIME; until=TIME: before TIME
 * The caller frees *out with ac_query_free(). A bad term is AC_EINVAL with
 * a message naming it. */
int ac_query_parse(ac_query **out, const char *const *terms, size_t nterms);

/* Parses query strings as people type them, the seed's one-string form
 * "agent=Codex status=SUCCESS": each of strings[0..nstrings) holds terms
 * separated by spaces or tabs; double quotes keep spaces inside a term and
 * are dropped (result.message~"disk full", or "result.message~disk full").
 * All terms of all strings are ANDed as in ac_query_parse(). A string with
 * no term, an unclosed quote or a term that does not parse is AC_EINVAL
 * naming it; nothing is ever read as a query that matches nothing. */
int ac_query_parse_strings(ac_query **out, const char *const *strings, size_t nstrings);

void ac_query_free(ac_query *q);

/* The paths to scan each line with: the AC_EV_NFIELDS event fields first,
 * then the fields the terms name. Borrowed from q. */
const ac_json_path *ac_query_paths(const ac_query *q, size_t *out_n);

/* True when a scanned, valid event matches every term. spans are the
 * results of scanning line with ac_query_paths(). */
bool ac_query_matches(const ac_query *q, const char *line, size_t len,
		      const ac_json_span *spans);

/* Audit trails show what they cannot read: with on, the scans of
 * ac_journal_scan.h hand q's callback the lines that are not valid events
 * too, marked (ac_scan_match.invalid), when ac_query_matches_invalid()
 * says they match. Off (the default) they are skipped and counted. */
void ac_query_show_invalid(ac_query *q, bool on);
bool ac_query_shows_invalid(const ac_query *q);

/* Whether a line that is not a valid event matches q: every term must
 * hold and each term that names a field needs that field in the line's
 * JSON (FIELD!=VALUE too: a record without the field matches no term on
 * it); since= and until= need a timestamp of the schema's form; text~
 * searches the raw line. spans are the line's scan with ac_query_paths(),
 * or NULL when the line is not JSON (then only text~ terms can hold). */
bool ac_query_matches_invalid(const ac_query *q, const char *line, size_t len,
			      const ac_json_span *spans);

/* One term as a store may translate it into its own index lookups (the
 * PostgreSQL journal's columns). Whatever a store makes of the terms, it
 * still hands each candidate to ac_query_matches(): a translation only
 * needs to keep every event that matches. */
typedef enum {
	AC_QUERY_EQ,       /* key = value */
	AC_QUERY_NE,       /* key != value */
	AC_QUERY_CONTAINS, /* key ~ value */
	AC_QUERY_TEXT,     /* text~value */
	AC_QUERY_SINCE,    /* timestamp >= value (canonical ISO, as bytes) */
	AC_QUERY_UNTIL,    /* timestamp < value */
} ac_query_kind;

typedef struct {
	ac_query_kind kind;
	const char *key;   /* the dotted path as typed ("agent", "action.type") */
	const char *value; /* NUL-terminated; for since/until the canonical time */
	size_t value_len;
	bool literal;      /* an EQ/NE value read as a JSON literal (true, 3, null) */
} ac_query_term;

/* How many terms q has, and term i of them (borrowed from q). */
size_t ac_query_count(const ac_query *q);
void ac_query_term_get(const ac_query *q, size_t i, ac_query_term *out);

/* The prefilter needle, or NULL when every line must be parsed: the longest
 * needle of a term's value, or for since= with until= the '"' and the start
 * every timestamp in that range shares, whichever is longer. Borrowed. */
const char *ac_query_needle(const ac_query *q, size_t *out_len);

#endif
