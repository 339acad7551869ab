/* `agentctl usage`: the recorded usage of every source (ac_usage_record.h)
 * gathered through an index, priced, and reported by day, by session or
 * by 5-hour billing block.
 *
 * The index ($XDG_CACHE_HOME/agentctl/usage-index.bin, else
 * ~/.cache/agentctl/...) keeps per transcript file its identity (path,
 * device, inode, size, mtime), the byte offset read up to (the end of its
 * last whole line), a hash of the bytes just before that offset, the
 * extractor's state and the usage aggregated per (hour, model). A warm run
 * stats every file and reads only bytes appended since; a file that shrank,
 * changed inode or whose bytes before the offset changed is read again
 * from the start. The index is written to a temp file and renamed, and is
 * never trusted: every count and length is bounds-checked and a checksum
 * covers the whole; anything wrong and it is rebuilt from the files.
 * agentctl's own session rows are few and read every time.
 *
 * Not here: the extractors (ac_usage_record.h), the per-turn rows
 * (ac_turn_usage.h), the printing (cli/cli_usage.c). */
#ifndef AC_USAGE_REPORT_H
#define AC_USAGE_REPORT_H

#include "ac_usage_record.h"
#include "ac_workspace.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Usage of one session and model within one UTC hour. Strings are
 * borrowed from the set that holds it. */
typedef struct {
	ac_usage_source source;
	const char *session_id;
	const char *project; /* "" when unknown */
	const char *model;   /* "" when unknown */
	int64_t hour_ms;     /* the start of the hour */
	int64_t first_ms, last_ms;
	uint64_t calls;
	ac_usage_counts counts;
	/* NULL, or a message this session's file gave whose one booking is in
	 * another project's file (the same transcript copied there): the
	 * project of that file, and the message's key. Counted only for a
	 * workspace that holds this project and not that one, once per key,
	 * so that copies elsewhere never change a workspace's totals. */
	const char *owner_project;
	uint64_t key;
} ac_usage_bucket;

typedef struct ac_usage_index ac_usage_index;

/* Everything a scan found; free with ac_usage_set_free(). */
typedef struct {
	ac_usage_bucket *buckets;
	size_t n, cap;
	size_t files;          /* transcript files seen */
	size_t files_read;     /* of them, read (wholly or their new bytes) */
	size_t files_reread;   /* read again from the start (shrank, replaced) */
	uint64_t bytes_read;
	size_t lines_skipped;  /* usage lines that could not be read */
	size_t files_skipped;  /* transcripts left out: a name that is not UTF-8 */
	bool index_rebuilt;    /* the index was absent, corrupt or of another version */
	char *index_unsaved;   /* why the index could not be written (the figures
				  stand; the next run reads more), or NULL */
	ac_usage_index *index; /* owns the strings */
	json_t *rows;          /* owns the agentctl rows' strings */
} ac_usage_set;

/* Options start from AC_USAGE_SCAN_OPTIONS_INIT (nothing read, no index);
 * ac_usage_scan() refuses options of another version with AC_EINVAL
 * naming the struct. */
#define AC_USAGE_SCAN_OPTIONS_VERSION 1
#define AC_USAGE_SCAN_OPTIONS_INIT { .version = AC_USAGE_SCAN_OPTIONS_VERSION }

typedef struct {
	unsigned int version;     /* AC_USAGE_SCAN_OPTIONS_VERSION */
	const char *claude_dir;   /* NULL: not read */
	const char *codex_dir;    /* NULL: not read */
	const char *sessions_dir; /* agentctl's rows under <dir>/.usage; NULL: not read */
	/* The workspace whose store keeps agentctl's rows (ac_workspace_store(),
	 * borrowed): a store that sums them itself (inspector.usage_by_hour, a
	 * database) is asked instead of reading sessions_dir; NULL: sessions_dir. */
	const ac_workspace *workspace;
	const char *index_path;   /* NULL: no index (every file read whole) */
	/* Set by another thread to stop a scan between two files (it then
	 * returns AC_EBUSY and saves nothing); NULL: never. */
	const atomic_bool *cancel;
	const char *gemini_dir;   /* ~/.gemini/tmp; NULL: not read */
} ac_usage_scan_options;

/* The default index path, allocated: $XDG_CACHE_HOME/agentctl/usage-index.bin,
 * else $HOME/.cache/...; NULL when neither is set. */
char *ac_usage_index_default_path(void);

/* Where a scan reads and keeps its index, from ws's configuration:
 * sources.claude.dir (default ~/.claude/projects), sources.codex.dir
 * (default ~/.codex/sessions), sources.gemini.dir (default ~/.gemini/tmp;
 * "~/" is $HOME, a relative path is the
 * workspace's), the workspace's sessions folder, the workspace itself
 * (its store keeps agentctl's turn rows) and the default index.
 * Strings owned; ac_usage_paths_free(). ws is borrowed: it must outlive
 * the scans. */
typedef struct {
	char *claude_dir, *codex_dir, *sessions_dir, *index_path;
	char *gemini_dir;
	const ac_workspace *workspace;
} ac_usage_paths;

int ac_usage_paths_init(ac_usage_paths *out, const ac_workspace *ws);
void ac_usage_paths_free(ac_usage_paths *paths);

/* The scan options that read what paths names (borrowed). */
static inline ac_usage_scan_options ac_usage_paths_options(const ac_usage_paths *paths)
{
	ac_usage_scan_options o = {.version = AC_USAGE_SCAN_OPTIONS_VERSION,
				   .claude_dir = paths->claude_dir,
				   .codex_dir = paths->codex_dir,
				   .sessions_dir = paths->sessions_dir,
				   .workspace = paths->workspace,
				   .index_path = paths->index_path,
				   .gemini_dir = paths->gemini_dir};
	return o;
}

/* Scans the sources into *out (see the header comment for the index).
 * A folder that does not exist is empty. A file that cannot be read is
 * skipped (counted in nothing), the rest goes on. An index that cannot be
 * written is said in out->index_unsaved, not an error. Fails only for out
 * of memory, or options of another version (AC_EINVAL; *out then empty). */
int ac_usage_scan(ac_usage_set *out, const ac_usage_scan_options *opts);

void ac_usage_set_free(ac_usage_set *set);

/* ---- pricing ---- */

/* USD per million tokens. */
typedef struct {
	double input, output, cache_write, cache_read;
} ac_usage_price;

/* The price of model: from table (the config's `pricing` object: model ->
 * {input, output, cacheWrite, cacheRead}; may be NULL), else the built-in
 * table; a model matches a key equal to it, or the longest key that starts
 * it ("claude-sonnet-4-5" prices "claude-sonnet-4-5-20250929"). false when
 * no key matches: the cost is unknown, never 0. */
bool ac_usage_price_of(ac_usage_price *out, const json_t *table, const char *model);

/* 0 when table is an object of model -> {input, output, cacheWrite,
 * cacheRead} with non-negative numbers (absent ones: 0); else AC_EINVAL
 * naming the model and field. */
int ac_usage_pricing_check(const json_t *table);

/* The built-in example table, a new object (docs: README "usage"). */
json_t *ac_usage_pricing_builtin(void);

/* ---- reports ---- */

typedef enum { AC_USAGE_DAILY, AC_USAGE_BY_SESSION, AC_USAGE_BLOCKS } ac_usage_report_kind;

/* Options start from AC_USAGE_REPORT_OPTIONS_INIT (daily, everything, no
 * pricing); ac_usage_report() refuses options of another version with
 * AC_EINVAL naming the struct. */
#define AC_USAGE_REPORT_OPTIONS_VERSION 1
#define AC_USAGE_REPORT_OPTIONS_INIT                                                      \
	{                                                                                 \
		.version = AC_USAGE_REPORT_OPTIONS_VERSION, .kind = AC_USAGE_DAILY          \
	}

typedef struct {
	unsigned int version;  /* AC_USAGE_REPORT_OPTIONS_VERSION */
	ac_usage_report_kind kind;
	int64_t since_ms;      /* buckets of hours before it are left out; 0: all */
	const char *workspace; /* only sessions whose project is it or inside it; NULL: all */
	const json_t *pricing; /* config `pricing`, may be NULL */
	int64_t now_ms;        /* for the active block */
} ac_usage_report_options;

/* The report as one JSON document: {"kind", "rows": [...], "totals": {...}}.
 * A row has the counts (inputTokens, outputTokens, cacheCreationTokens,
 * cacheReadTokens, totalTokens), costUsd (null when some model has no
 * price: unpricedTokens then says how many tokens went uncosted) and, per
 * kind: date; or source, sessionId, project, lastActivity; or start, end,
 * actualEnd, active (5-hour blocks: one starts at the hour of the first
 * usage after a block ended or after 5 hours without usage, as ccusage
 * counts them). Rows by date, last activity or start. */
int ac_usage_report(json_t **out, const ac_usage_set *set, const ac_usage_report_options *opts);

/* Today's (UTC) and this month's cost over every source in workspace
 * (NULL: all), for the dashboard's budget line; unpriced tokens leave
 * *out_known false. */
int ac_usage_spend(double *out_day, double *out_month, bool *out_known, const ac_usage_set *set,
		   const char *workspace, const json_t *pricing, int64_t now_ms);

/* One coding agent's session and its tokens (totalTokens, as the session
 * report counts them). session_id is borrowed from the set. */
typedef struct {
	ac_usage_source source;
	const char *session_id;
	uint64_t tokens;
} ac_usage_session_total;

/* The transcripts' sessions of workspace (NULL: all) with their totals,
 * sorted by source then id (ac_usage_session_total_find), agentctl's own
 * rows left out: *out (free()) and *out_n. Work is linear in the set's
 * buckets (a warm scan's figures), no file is read. 0 or AC_ENOMEM. */
int ac_usage_session_totals(ac_usage_session_total **out, size_t *out_n, const ac_usage_set *set,
			    const char *workspace);

/* The total of source's session id in totals[0..n) (sorted as above), or
 * NULL. */
const ac_usage_session_total *ac_usage_session_total_find(const ac_usage_session_total *totals,
							  size_t n, ac_usage_source source,
							  const char *id);

#endif
