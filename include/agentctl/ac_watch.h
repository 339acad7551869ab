/* Watching a workspace for changes: inotify where it can, polling where it
 * cannot (a network file system, watches exhausted), with the same result.
 *
 * The watcher says *what kind* of file changed (journal, sessions,
 * operations, checkpoints, the one session trace it is told to follow);
 * readers
 * then read only that (ac_journal_follow.h for the journal's new bytes, the
 * session index for sessions). It owns one file descriptor to poll(2) on
 * with the UI's input, so an idle dashboard sleeps. */
#ifndef AC_WATCH_H
#define AC_WATCH_H

#include "ac_workspace.h"

#include <stdbool.h>
#include <stddef.h>

enum {
	AC_WATCH_JOURNAL = 1 << 0,
	AC_WATCH_SESSIONS = 1 << 1,
	AC_WATCH_OPERATIONS = 1 << 2,
	AC_WATCH_CHECKPOINTS = 1 << 3,
	AC_WATCH_RESCAN = 1 << 4, /* events were lost (queue overflow): reread everything */
	AC_WATCH_TRACES = 1 << 5, /* the trace ac_watch_trace() follows */
};

typedef struct ac_watch ac_watch;

/* Starts watching ws's files. Never fails for want of inotify: it falls
 * back to polling every poll_ms (and ac_watch_polling() says so). A
 * negative poll_ms polls every -poll_ms without trying inotify (for a file
 * system known not to deliver events, and for tests). */
int ac_watch_new(ac_watch **out, const ac_workspace *ws, int poll_ms);

void ac_watch_free(ac_watch *watch);

/* The descriptor to wait on for readability, or -1 when polling (then
 * wake up every ac_watch_timeout_ms()). */
int ac_watch_fd(const ac_watch *watch);

/* How long the caller may sleep before calling ac_watch_read(): -1 (until
 * the fd is readable) with inotify, the poll interval otherwise. */
int ac_watch_timeout_ms(const ac_watch *watch);

/* Collects what changed since the last call, without blocking: an
 * AC_WATCH_* mask (0: nothing). */
unsigned ac_watch_read(ac_watch *watch);

/* Which session files the events of the last ac_watch_read() named: true
 * when they named every change in the sessions folder, *out_names then
 * holding the *out_n file names ("<id>.json", in the folder; borrowed
 * until the next read), each once, whatever happened to it (written,
 * renamed onto, removed, renamed away); a reader refreshes just those.
 * False when the folder must be listed again: polling, lost events (queue
 * overflow), the folder itself or a folder in it came, went or moved, or
 * too many files changed at once. Temp files (not "*.json") are never
 * named. Only meaningful when the read's mask has AC_WATCH_SESSIONS. */
bool ac_watch_session_files(const ac_watch *watch, const char *const **out_names,
			    size_t *out_n);

/* Also follows one session's trace in the file-system backend's layout
 * (<root>/.agent/traces/<tenant>/<session_id>.jsonl, ac_backend.h),
 * reporting AC_WATCH_TRACES when that file changes (appends included, also
 * when polling); it replaces the trace followed before. tenant or
 * session_id NULL: follows none. The ids are checked with
 * ac_backend_id_check() before a path is built. A tenant folder that does
 * not exist yet is looked for again within ac_watch_timeout_ms(). Strings
 * are borrowed. 0, or AC_EINVAL / AC_ENOMEM (nothing followed then). */
int ac_watch_trace(ac_watch *watch, const char *tenant, const char *session_id);

/* True when inotify could not serve and the watcher polls; *out_reason
 * (may be NULL) receives why, borrowed. */
bool ac_watch_polling(const ac_watch *watch, const char **out_reason);

#endif
