/* Listing the sessions of a folder, fast, again and again.
 *
 * The index remembers each file's identity (inode, size, change times); a
 * refresh lists the folder, stats each "<id>.json", and reads only the
 * files that changed since the last look, picking the listed fields out
 * with the allocation-free scanner instead of building the document. A
 * corrupt file is reported once (file, reason) and left out (or, when
 * asked, its last good summary stays listed, marked stale: see
 * ac_session_index_keep_last_good()). The others still list. For reading or changing one session, use ac_session.h. */
#ifndef AC_SESSION_INDEX_H
#define AC_SESSION_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One session as listed. Strings are owned by the index, decoded from the
 * file (not yet made safe for a terminal), "" when absent. */
typedef struct {
	const char *id;
	const char *task;
	/* task's bytes, for a task that holds \u0000 (made visible where it
	 * is shown, never cut there); a writer that leaves it 0 means
	 * strlen(task). Read it with ac_session_summary_task_len(). */
	size_t task_len;
	const char *status;
	const char *created_at;
	const char *updated_at;
	const char *tenant;
	const char *user;
	const char *agent;
	size_t messages;        /* entries in conversationHistory */
	uint64_t tokens;        /* estimate over conversationHistory (ac_tokens.h) */
	uint64_t input_tokens;  /* metadata.usage, recorded per turn */
	uint64_t output_tokens;
	uint64_t turns;
	/* When the file was last written (its mtime, ms since the epoch): how
	 * long the agent has been quiet (ac_session_state.h); 0 when not known. */
	int64_t written_ms;
	/* The file cannot be read now (torn by a writer, invalid): this is its
	 * last good read (only with ac_session_index_keep_last_good()). */
	bool stale;
} ac_session_summary;

/* The length of s->task: task_len, or strlen(task) when that is more
 * (task_len left 0). */
size_t ac_session_summary_task_len(const ac_session_summary *s);

typedef struct ac_session_index ac_session_index;

/* Called for each session file that cannot be listed, when it is first
 * seen or has changed; reason names what is wrong. */
typedef void (*ac_session_problem_fn)(const char *path, const char *reason, void *ctx);

/* An empty index of dir (nothing is read until the first refresh). */
int ac_session_index_new(ac_session_index **out, const char *dir);

void ac_session_index_free(ac_session_index *index);

/* With keep true, a file this index read well before that does not read
 * now (torn by a writer, being replaced in place) stays listed with its
 * last good summary, marked stale, until it reads again, instead of
 * dropping out: for a live view (the dashboard) whose selection must not
 * jump for one bad read. A removed file still drops out. Default: false. */
void ac_session_index_keep_last_good(ac_session_index *index, bool keep);

/* Keeps the listing between processes too, in a cache file of the user's
 * (ac_session_cache.c): the index's first refresh starts from what the
 * cache holds, and reads only the files whose stamp (name, size, inode,
 * mtime, ctime) differs from it, as later refreshes do. The cache is never
 * trusted for correctness: one that is damaged or not this user's is
 * ignored. Without $XDG_CACHE_HOME and $HOME there is none. Call before
 * the first refresh; 0 or AC_ENOMEM. */
int ac_session_index_use_cache(ac_session_index *index);

/* Writes the cache (ac_session_index_use_cache()) when the listing changed
 * since it was read or written. A cache that cannot be written is no
 * error for the listing: the caller may ignore the code. */
int ac_session_index_save_cache(ac_session_index *index);

/* Brings the index up to date with the folder. problem (may be NULL)
 * hears of files that cannot be listed. *out_parsed (may be NULL) receives
 * how many files had to be read. A missing folder lists as empty. */
int ac_session_index_refresh(ac_session_index *index, ac_session_problem_fn problem,
			     void *ctx, size_t *out_parsed);

/* What ac_session_index_refresh_file() did to the listing: the session
 * listed at was_at before it is not there any more, and the one at now_at
 * is new (AC_SESSION_INDEX_NONE: none). Both set: the same file read again
 * (it may have moved). changed is false when nothing did (then both are
 * NONE). A reader that copied the listing applies this to its copy. */
#define AC_SESSION_INDEX_NONE SIZE_MAX
typedef struct {
	size_t was_at, now_at;
	bool changed;
} ac_session_index_change;

/* Brings the index up to date with one file of the folder, name (a file
 * name, borrowed: "<id>.json"; others change nothing), as a watcher named
 * it: stats it, reads it when its stamp changed, drops it when it is gone.
 * Costs one stat and one file's read, whatever the folder holds. problem
 * as for ac_session_index_refresh(). 0, or AC_ENOMEM (the index is as
 * before; a full refresh brings it up to date). */
int ac_session_index_refresh_file(ac_session_index *index, const char *name,
				  ac_session_problem_fn problem, void *ctx,
				  ac_session_index_change *out);

/* The listed sessions, newest createdAt first. Borrowed until the next
 * refresh or free. */
const ac_session_summary *const *ac_session_index_list(const ac_session_index *index,
							size_t *out_n);

/* How many session files are unreadable now (left out, or listed stale). */
size_t ac_session_index_problems(const ac_session_index *index);

#endif
