/* Searching the conversations of many sessions for a text.
 *
 * The searcher walks a list of transcripts, each (session id, source
 * name, path, provider): it reads each file once, looks for the needle in
 * the raw bytes first (in every form a JSON writer may have given it, see
 * below) and only hands the files that may match to their provider, which
 * yields the messages' text with their index. The file session store is
 * the first provider (ac_session_search_file_provider); a reader of
 * another tool's transcripts (JSON Lines) plugs in the same way.
 *
 * Matching: substring, ASCII letters in either case, other characters as
 * written, on the text `session show` prints for a message (text blocks,
 * "[tool_use NAME {input}]", "[tool_result ID: text]"). The raw prefilter
 * looks for the needle as written, as JSON.stringify/jansson escape it
 * (\" \\ \n \t, other controls \u00XX), as an ASCII-only writer does
 * (non-ASCII as \uXXXX, either hex case; Python) and as an HTML-safe one
 * does (<, > and & as \u003c, \u003e, \u0026; Go). A writer that escapes more than
 * that (\/ for /, \u0041 for A) is not found by the prefilter: no match is
 * reported for that file (a miss, never a false hit). Compaction archives
 * are not searched: they hold what was summarised away.
 *
 * Not this module's business: listing the sessions (ac_session_index.h),
 * showing results (the snippet it returns is already terminal-safe). */
#ifndef AC_SESSION_SEARCH_H
#define AC_SESSION_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

/* Called by a provider for each message, index 0-based, role and text
 * borrowed for the call. A non-zero return stops the walk and is returned
 * by the provider. */
typedef int (*ac_search_message_fn)(void *ctx, size_t index, const char *role, const char *text,
				    size_t len);

typedef struct {
	const char *name; /* "file", ... */
	/* Calls fn for every message of the transcript whose whole file is
	 * bytes[0..len) (borrowed). 0, fn's non-zero return, or a negative
	 * AC_E* (AC_ECORRUPT naming path when the file is not a transcript). */
	int (*messages)(const char *bytes, size_t len, const char *path, ac_search_message_fn fn,
			void *ctx);
	/* The transcript's last update (ISO-8601, allocated; "" when it has
	 * none) read from its bytes, for ordering items that came without
	 * one; NULL: such items sort last. */
	char *(*updated_at)(const char *bytes, size_t len);
	/* Optional: as messages(), but reading the file at path itself, a
	 * block at a time, one line held at most (JSON Lines): memory stays
	 * bounded by the longest line kept, whatever the file's size. A line
	 * longer than the provider keeps makes no message (as its
	 * conversation has none) and is counted in *out_skipped. Used for an
	 * item read from path whose updated_at is known. */
	int (*messages_file)(const char *path, ac_search_message_fn fn, void *ctx,
			     size_t *out_skipped);
} ac_search_provider;

/* For a provider that can cut its bytes into messages before decoding
 * them: false when raw[0..len) (one message's raw text, a piece of the
 * bytes it was handed) holds the needle in none of its forms, so that
 * message cannot match and need not be decoded (its index still counts).
 * ctx is the one the provider's fn was given. */
bool ac_search_may_match(void *ctx, const char *raw, size_t len);

/* The agentctl session file: conversationHistory's messages as
 * ac_message_text() renders them. Only the messages whose raw text holds
 * a form of the needle are decoded (the allocation-free scanner finds
 * them); a file the scanner refuses is parsed whole. */
extern const ac_search_provider ac_session_search_file_provider;

/* One transcript to search. Strings borrowed for the search. */
typedef struct {
	const char *id;
	const char *source;     /* provider's name unless a caller says more */
	const char *path;
	/* ISO-8601; results come newest first. NULL: unknown until read
	 * (the provider's updated_at() tells, for the items that match): the
	 * search then reads every item before it orders and cuts to the
	 * limit, so that each file is read once, without a listing first. */
	const char *updated_at;
	const ac_search_provider *provider;
	/* The transcript's bytes when they do not come from a file (a
	 * database store's, serialised), searched instead of reading path
	 * (which then only names it in errors); NULL: read path. */
	const char *bytes;
	size_t len;
} ac_search_item;

/* One matching message. */
typedef struct {
	size_t item;      /* index into the items searched */
	size_t message;   /* 0-based index in the conversation */
	char *role;       /* owned by the result list */
	char *updated_at; /* the item's, or read from it; owned ("" unknown) */
	/* A window of the message's text around the first match, on one
	 * line: line breaks and tabs as spaces, then made terminal-safe
	 * (ac_text_sanitize()), "..." where it was cut. The match itself is
	 * snippet[match_start .. match_start + match_len). Owned. */
	char *snippet;
	size_t match_start, match_len;
} ac_search_hit;

typedef struct {
	ac_search_hit *hits;
	size_t n;
	size_t files_read;    /* files whose bytes were read */
	size_t files_parsed;  /* of those, passed by the prefilter and parsed */
	size_t lines_skipped; /* too long to be searched (messages_file) */
	bool limited;         /* the limit stopped the search */
} ac_search_results;

/* Called for a file that cannot be searched (unreadable, not a
 * transcript): message names it. The search goes on. */
typedef void (*ac_search_problem_fn)(const char *message, void *ctx);

/* Searches items[0..n) for needle[0..needle_len) (UTF-8, not empty),
 * newest updated_at first, every matching message of a session in order
 * (with first_only, only the first: the rest of that transcript is not
 * read), until limit hits (0: no limit). When every item has its
 * updated_at, items is reordered and the search stops at the limit;
 * otherwise every item is read, and the hits are ordered by the update
 * each file holds, then cut. *out is filled (free with
 * ac_search_results_free()). AC_EINVAL for an empty needle or one that
 * is not valid UTF-8, AC_ENOMEM. */
int ac_session_search(ac_search_results *out, ac_search_item *items, size_t n,
		      const char *needle, size_t needle_len, size_t limit, bool first_only,
		      ac_search_problem_fn problem, void *problem_ctx);

void ac_search_results_free(ac_search_results *results);

/* The forms of needle the raw prefilter looks for, ASCII-lowercased
 * (see the module comment): at most AC_SEARCH_FORMS, *out_n set; each
 * owned by the caller (free each). For tests and the searcher. */
#define AC_SEARCH_FORMS 4
int ac_session_search_forms(char **out, size_t *out_n, const char *needle, size_t len);

#endif
