/* Telling the dashboard that a coding agent wrote: inotify watches on the
 * folders that hold the transcripts (ac_source.h) and the folders above
 * them up to each tool's root, so an append or a new session is read at
 * once instead of at the next poll. Not a reader: what changed is found
 * by the index's refresh (a stat per transcript). Without inotify (or
 * when it fails) there is no descriptor and the caller polls. */
#ifndef AC_SOURCE_WATCH_H
#define AC_SOURCE_WATCH_H

#include "ac_source.h"

#include <stdbool.h>

typedef struct ac_source_watch ac_source_watch;

/* A watcher with no folder yet. 0 or AC_ENOMEM; when inotify cannot be
 * had, the watcher exists and ac_source_watch_fd() is -1. */
int ac_source_watch_new(ac_source_watch **out);

void ac_source_watch_free(ac_source_watch *watch);

/* The descriptor to wait on for readability, or -1 (then poll). */
int ac_source_watch_fd(const ac_source_watch *watch);

/* Watches the folders of index's transcripts and the tools' roots (again
 * after a refresh: folders already watched cost nothing). Folders that
 * cannot be watched are left to the caller's poll. */
void ac_source_watch_update(ac_source_watch *watch, ac_source_index *index);

/* Drains the events without blocking: true when any arrived (or were
 * lost: the queue overflowed). */
bool ac_source_watch_read(ac_source_watch *watch);

#endif
