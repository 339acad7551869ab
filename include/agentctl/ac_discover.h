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
 * A marker another user could have put there is not taken (git's
 * safe.directory rule, CVE-2022-24765): one whose entry or folder is owned
 * by neither the caller (effective uid) nor root, or that lies in a folder
 * writable by anyone without the sticky bit. Above start such a folder is
 * skipped and the walk goes on; *out_skipped (may be NULL; allocated, the
 * caller frees, NULL when none) then says, in one line, which folder was
 * skipped first and why. In start itself it is AC_EDENIED, saying why and
 * that -w names it anyway (an explicit folder is the operator's choice).
 * Returns 0 with *out set, AC_ENOTFOUND (*out NULL) when no folder up to
 * the boundary holds a marker to take (the message names start, the
 * boundary and a folder skipped), or an AC_E* error when start cannot be
 * resolved. */
int ac_discover_workspace(char **out, char **out_skipped, const char *start,
			  const char *ceilings, const char *home);

#endif
