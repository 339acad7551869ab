/* The file-system backend (implementer's tier, not in the umbrella):
 * its options, its test seam and its init. An application opens the
 * workspace's store with ac_workspace_store() instead. */
#ifndef AC_BACKEND_FS_H
#define AC_BACKEND_FS_H

#include "ac_backend_sys.h"

/* ---- The file-system backend ----
 *
 * Sessions are the workspace's session files (<sessions_dir>/<id>.json,
 * the reference format, tenant/user/agent in metadata), changed through
 * ac_session_update(), so writers in other languages stay compatible. The
 * rest lives under data_dir (the workspace's .agent folder):
 *
 *   memo/<tenant>/<owner>/<scope>/<name>           a memory document
 *   artifacts/<tenant>/<session>/<toolCallId>      a tool call's output
 *   traces/<tenant>/<session>.jsonl                the trace, one record a line
 *   orchestration/<tenant>/<run>/events.jsonl      the run's events
 *   orchestration/<tenant>/<run>/snapshot.json     {"seq": N, "state": ...}
 *
 * Whole-file writes are atomic (ac_atomic_write). Memo writes and appends
 * take flock on the document's folder; an append is one O_APPEND write, cut
 * back if it fails, so a crash in the middle of one can leave at most its
 * first part (a reader may briefly see an append in progress). A log append
 * holds flock on the log file while it reads the highest seq and appends
 * the record with ac_journal_append() (the shared lock file, torn-tail
 * repair), so seqs never repeat; a torn last line is skipped by readers. */

/* Named points in multi-write calls, reported to test_hook. */
#define AC_BACKEND_FS_AFTER_TURN_MESSAGES "record_turn:messages-written"
#define AC_BACKEND_FS_AFTER_TURN_ROW "record_turn:row-written"
#define AC_BACKEND_FS_AFTER_ARTIFACTS "compact:artifacts-written"
#define AC_BACKEND_FS_AFTER_EXTERNALIZE "compact:session-externalized"
#define AC_BACKEND_FS_AFTER_ARCHIVE "compact:archive-written"

/* The version of ac_backend_fs_options this header describes: options
 * start from AC_BACKEND_FS_OPTIONS_INIT, and ac_backend_fs_init() refuses
 * another version (AC_EINVAL), so members can be added at the end. */
#define AC_BACKEND_FS_OPTIONS_VERSION 1
#define AC_BACKEND_FS_OPTIONS_INIT { .version = AC_BACKEND_FS_OPTIONS_VERSION }

typedef struct {
	unsigned int version;     /* AC_BACKEND_FS_OPTIONS_VERSION */
	const char *sessions_dir; /* the session files (sessionDir) */
	const char *data_dir;     /* where the rest goes: the workspace's .agent */
	/* Test seam: called at each AC_BACKEND_FS_* point between two writes
	 * of one call, so a test can _exit() there and check what a crash
	 * leaves. NULL in production. */
	void (*test_hook)(const char *point, void *ctx);
	void *test_hook_ctx;
} ac_backend_fs_options;

/* Fills *out with the file-system backend. The folders are created on
 * first write. Release with ac_backend_close(). 0 or AC_ENOMEM/AC_EINVAL
 * (options of another version among them). */
int ac_backend_fs_init(ac_backend *out, const ac_backend_fs_options *opts);

#endif
