/* Session files: one "<id>.json" per session in the session folder, in the
 * reference format {id, createdAt, updatedAt, task, status,
 * conversationHistory, metadata}, shared with writers in other languages.
 *
 * Keys agentctl does not know survive every rewrite: a session is kept as
 * the whole jansson document and changed in place. Every write is atomic
 * (ac_atomic.h). Other writers take no lock, so a change is a function
 * applied to the file's current content; if the file changes between our
 * read and our rename, the change is applied again to the fresh content.
 * Listing many sessions fast is ac_session_index.h; messages, ac_messages.h. */
#ifndef AC_SESSION_H
#define AC_SESSION_H

#include <jansson.h>
#include "ac_buf.h"
#include "ac_types.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ac_session ac_session;

/* The longest id whose file "<id>.json" can be written (through its
 * temporary name, see ac_atomic.h): 228 bytes. */
#define AC_SESSION_ID_MAX (AC_ATOMIC_NAME_MAX - 5)

/* 0 when id can name a session file: not empty, at most
 * AC_SESSION_ID_MAX bytes, no '/', not "." or "..", not starting with '.'.
 * Otherwise AC_EINVAL with the reason. Checked before any path is built.
 * Any other byte is allowed, control bytes included (another program's
 * writer may use them): an id is its bytes, compared and passed on as
 * they are, and made visible (ac_text_sanitize) only where it is shown.
 * An id holds no NUL: it names a file, and a database's text column
 * cannot hold one; a document whose "id" holds \u0000 is not a session
 * of that id. */
int ac_session_id_check(const char *id);

/* "<dir>/<id>.json" in an allocated string, after checking id. */
int ac_session_path(char **out, const char *dir, const char *id);

/* Loads one session. Returns 0, AC_ENOTFOUND, AC_EINVAL (bad id) or
 * AC_ECORRUPT (not a session document; the message names the file and the
 * line/column or field at fault). *out is freed with ac_session_free(). */
int ac_session_load(ac_session **out, const char *dir, const char *id);

void ac_session_free(ac_session *session);

/* The whole document. Borrowed: owned by session. */
json_t *ac_session_root(const ac_session *session);

/* Fields of the document; borrowed, "" when absent. */
const char *ac_session_id(const ac_session *session);
const char *ac_session_status(const ac_session *session);
const char *ac_session_task(const ac_session *session);

/* conversationHistory; borrowed; an empty array when absent. */
json_t *ac_session_messages(const ac_session *session);

/* ac_messages_tokens() of the first `first` messages (SIZE_MAX: all) of
 * the document as it was last read or written, taken from the file's text
 * by the scanner (ac_tokens.h) rather than by serialising each message;
 * the same numbers. Changes made to the document since are not counted. */
uint64_t ac_session_tokens(const ac_session *session, size_t first);

/* Frees the file's text that session keeps for ac_session_tokens() (as
 * large as the file), when the counts wanted are taken: later counts
 * serialise the messages instead. */
void ac_session_release_text(ac_session *session);

/* A change to a session document, applied to the file's current content
 * (root is that content, to modify in place). Return 0 to write the
 * result, AC_SESSION_UNCHANGED when the content is already as wanted
 * (nothing is written), or a negative AC_E* code with ac_error_set() to
 * refuse (nothing is written). */
typedef int (*ac_session_change_fn)(json_t *root, void *ctx);

#define AC_SESSION_UNCHANGED 1

/* How an update treats the agents that write the same file. Options
 * start from AC_SESSION_WRITE_OPTIONS_INIT (no quiet wait); the calls
 * that take them refuse options of another version with AC_EINVAL naming
 * the struct, before anything is written. */
#define AC_SESSION_WRITE_OPTIONS_VERSION 1
#define AC_SESSION_WRITE_OPTIONS_INIT { .version = AC_SESSION_WRITE_OPTIONS_VERSION }

typedef struct {
	unsigned int version; /* AC_SESSION_WRITE_OPTIONS_VERSION */
	/* Rewrite only a file nobody has written for this long (0: at once).
	 * An operator's change waits for a quiet file so that it does not land
	 * in the middle of an agent's turns. */
	int quiet_ms;
	/* How long to wait for that quiet; then AC_EBUSY, nothing written. */
	int wait_ms;
	/* Set (may be NULL) when a version of ours was ever visible at the
	 * path, even if it was then taken back: a reader may have seen it. */
	bool *published;
} ac_session_write_options;

/* 0 when opts are of this library's version; AC_EINVAL naming the struct
 * and both versions otherwise. NULL (the defaults): 0. */
int ac_session_write_options_check(const ac_session_write_options *opts);

/* Applies change to session id's current file and writes it back
 * atomically, setting updatedAt, as a compare-and-swap on the file's
 * identity (ac_atomic_swap_if): when another writer replaced the file
 * since our read, its version stays, and the change is applied again to
 * its content, up to 8 times, then AC_ECONFLICT. Nothing we write is ever
 * based on a version older than the one it replaces. *out (may be NULL)
 * receives the document as written (or as read, when unchanged). opts may
 * be NULL (no quiet wait). */
int ac_session_update_with(ac_session **out, const char *dir, const char *id,
			   ac_session_change_fn change, void *ctx,
			   const ac_session_write_options *opts);

/* ac_session_update_with() starting from loaded, this session as loaded
 * before (ac_session_load), which the call takes over: it is freed, or
 * becomes *out. While the file is still the one loaded was read from (its
 * identity unchanged), change is applied to loaded's document instead of
 * reading and parsing the file again. loaded NULL: read the file. */
int ac_session_update_from(ac_session **out, ac_session *loaded, const char *dir,
			   const char *id, ac_session_change_fn change, void *ctx,
			   const ac_session_write_options *opts);

/* Reads session id's file as text only, with the file's identity, for a
 * change made on the text (ac_session_update_text_from): nothing is
 * parsed, and ac_session_root() is NULL. Errors as ac_session_load() gives
 * them for a file it cannot read. Freed with ac_session_free(). */
int ac_session_load_text(ac_session **out, const char *dir, const char *id);

/* The file's text a session keeps (borrowed; NULL once released) and its
 * length. */
const char *ac_session_text(const ac_session *s, size_t *out_len);

/* A change made on a session file's text (text[0..len), the file as it
 * was loaded): appends the whole new document to out, with updatedAt set
 * to now. Returns as ac_session_change_fn does. */
typedef int (*ac_session_text_change_fn)(ac_buf *out, const char *text, size_t len,
					 const char *now, void *ctx);

/* ac_session_update_from() for a large document that is not parsed whole:
 * while the file is still the one text_loaded (ac_session_load_text;
 * borrowed, stays the caller's) was read from, text_change makes the new
 * document from its text; once another writer has replaced the file (or
 * on a retry after a conflict) the file is read and parsed and change is
 * applied to it, as ac_session_update_from() does. The same
 * compare-and-swap either way. *out (may be NULL) receives the document
 * when change made it, NULL when text_change did. */
int ac_session_update_text_from(ac_session **out, const ac_session *text_loaded,
				const char *dir, const char *id,
				ac_session_text_change_fn text_change, ac_session_change_fn change,
				void *ctx, const ac_session_write_options *opts);

/* ac_session_update_with() without a quiet wait. */
int ac_session_update(ac_session **out, const char *dir, const char *id,
		      ac_session_change_fn change, void *ctx);

/* Creates a new session file (id NULL: a random UUID), status running,
 * metadata {tenantId, userId, agentId} (NULL ones left out). Fails with
 * AC_EINVAL if the id exists already. */
int ac_session_create(ac_session **out, const char *dir, const char *id,
		      const char *task, const char *tenant, const char *user,
		      const char *agent);

/* Writes root (borrowed; its "id" names the file, checked as an id) as a
 * new session file, atomically, never replacing one that exists
 * (AC_EINVAL, as ac_session_create()). The caller fills every field:
 * nothing is added. *out (may be NULL) receives the session written. */
int ac_session_create_document(ac_session **out, const char *dir, json_t *root);

/* The reference getOrCreate: loads session_id when given and it exists
 * (refusing, AC_ENOTFOUND, one that belongs to another tenant), else creates
 * it (or a new id when session_id is NULL) with an empty task. */
int ac_session_get_or_create(ac_session **out, const char *dir, const char *tenant,
			     const char *user, const char *agent, const char *session_id);

/* Moves a session to status: running -> paused -> running; running or
 * paused -> completed or failed. Anything else is refused (AC_EINVAL) with
 * the reason, judged on the file's current content; a session that has the
 * status already is left as it is (0). opts may be NULL. */
int ac_session_set_status(ac_session **out, const char *dir, const char *id,
			  const char *status);
int ac_session_set_status_with(ac_session **out, const char *dir, const char *id,
			       const char *status, const ac_session_write_options *opts);

/* Milliseconds since the session file was last written (its mtime), for
 * telling whether its agent is writing. AC_ENOTFOUND when absent. */
int ac_session_idle_ms(int64_t *out, const char *dir, const char *id);

/* True when the status change from -> to is allowed. */
bool ac_session_status_change_allowed(const char *from, const char *to);

/* Appends a copy of each message in the array messages to a session
 * document's conversationHistory (made when absent): the one change every
 * append path applies. AC_ECORRUPT when the history is not an array. */
int ac_session_history_append(json_t *root, const json_t *messages);

/* Appends a copy of each message in the array messages. */
int ac_session_append_messages(ac_session **out, const char *dir, const char *id,
			       const json_t *messages);

/* The largest token count or turn number kept: 2^53 - 1, the largest
 * integer the seeds' JavaScript reads exactly. */
#define AC_SESSION_COUNT_MAX UINT64_C(9007199254740991)

/* Adds one turn's usage to metadata.usage {inputTokens, outputTokens,
 * turns}, where other readers ignore it: totals only, no per-turn row
 * (ac_turn_usage_record() keeps rows and derives these totals from them). A count there that is not a whole
 * number is AC_ECORRUPT, a total that would pass AC_SESSION_COUNT_MAX
 * AC_EINVAL; either way nothing is written. */
int ac_session_record_usage(ac_session **out, const char *dir, const char *id,
			    uint64_t input_tokens, uint64_t output_tokens);

/* One turn in one atomic rewrite: appends a copy of each message of the
 * array messages (NULL: none) and adds the usage as
 * ac_session_record_usage() does. Both land or neither does. */
int ac_session_record_turn(ac_session **out, const char *dir, const char *id,
			   const json_t *messages, uint64_t input_tokens, uint64_t output_tokens);

/* Writes session's document as it is in memory, refusing (AC_ECONFLICT)
 * when the file was replaced or changed since session was loaded (by
 * identity, ac_atomic_swap_if): a whole-document save cannot be
 * re-applied, unlike ac_session_update(). */
int ac_session_save(const char *dir, ac_session *session);

/* The last n messages (a new array), never keeping a tool result without
 * its call, and the messages that fit in a token budget from the end. */
json_t *ac_session_last_messages(const ac_session *session, size_t n);
json_t *ac_session_messages_within(const ac_session *session, uint64_t budget);

#endif
