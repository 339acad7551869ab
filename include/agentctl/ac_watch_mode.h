/* Inotify or polling: the "watch" setting (auto, inotify, poll; --poll on
 * the command line) and, for auto, the file systems the workspace's folders
 * are on (ac_fs_remote.h). */
#ifndef AC_WATCH_MODE_H
#define AC_WATCH_MODE_H

#include "ac_workspace.h"

#include <stdbool.h>

typedef struct {
	bool poll;        /* follow by polling, not inotify */
	char reason[256]; /* why, for the status line: "watch = poll", "... is on nfs" */
} ac_watch_mode;

/* Chooses for ws from setting ("auto", "inotify", "poll"; NULL is auto).
 * Auto polls when any of the workspace's folders (the root, sessions,
 * checkpoints, the journal's and the operation log's) is on a network or
 * FUSE file system, where inotify misses other hosts' writes. */
void ac_watch_mode_choose(ac_watch_mode *out, const ac_workspace *ws, const char *setting);

#endif
