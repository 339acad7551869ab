/* Finding the workspace a command runs in when none was named, as git
 * finds its repository: from a folder upwards, the first folder that
 * holds a workspace marker. Not for resolving a workspace's settings
 * (ac_workspace.h) or reading its files. */
#ifndef AC_DISCOVER_H
#define AC_DISCOVER_H

/* What marks a folder as a workspace: any of these entries in it. */
#define AC_DISCOVER_MARKERS ".agent/, JOURNAL.jsonl or .agentrc.json"

/* Walks up from start (a folder) to the first folder that holds .agent/,
 * JOURNAL.jsonl or .agentrc.json, and sets *out to it (allocated; the
 * caller frees). The walk stops, as git's does at a mount point and at
 * GIT_CEILING_DIRECTORIES, before:
 *  - a folder listed in ceilings (colon-separated absolute paths, may be
 *    NULL), which is itself not searched unless the walk starts there;
 *  - home (may be NULL), the user's home folder, which holds the user's own
 *    agent state and is searched only when the walk starts there;
 *  - another file system, and the root.
 * Returns 0 with *out set, AC_ENOTFOUND (*out NULL) when no folder up to
 * the boundary holds a marker (the message names start and the boundary),
 * or an AC_E* error when start cannot be resolved. */
int ac_discover_workspace(char **out, const char *start, const char *ceilings, const char *home);

#endif
