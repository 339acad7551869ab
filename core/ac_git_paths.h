/* Which paths from a git tree agentctl may write into a workspace, and
 * which paths are the agent's own state that no rollback rewinds and no
 * commit stages. Pure functions on path text: no repository, no file
 * system. The rules follow git's fsck and libgit2's path validation
 * (GIT_PATH_REJECT_*): a tree written by a hostile agent may name "..",
 * ".git" in any case or alias, or a symbolic link that points away. It is
 * not the place that decides what a rollback does (ac_git.h). */
#ifndef AC_GIT_PATHS_H
#define AC_GIT_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* git's file modes as they appear in a tree entry. */
#define AC_GIT_MODE_TREE 0040000u
#define AC_GIT_MODE_BLOB 0100644u
#define AC_GIT_MODE_EXEC 0100755u
#define AC_GIT_MODE_LINK 0120000u
#define AC_GIT_MODE_GITLINK 0160000u

/* Checks path (a '/'-separated path relative to the repository's working
 * directory, as a tree or diff names it) and the entry's mode. With mode
 * AC_GIT_MODE_LINK, link_target (link_len bytes, may hold anything) is
 * the link's contents and must stay inside the working directory. Returns
 * NULL when the path is safe to write, else a static phrase saying why not
 * (for example "a '..' component"). Refused: an empty path or component
 * (absolute paths, "//", a trailing '/'), "." and "..", a backslash or a
 * control byte, any name git treats as ".git" (any case, trailing dots or
 * spaces, NTFS "GIT~1" and "::$INDEX_ALLOCATION" streams, HFS ignorable
 * code points such as U+200C inside it), .gitmodules, .gitattributes,
 * .gitignore or .mailmap as a symbolic link, a link that is absolute or
 * climbs out of the working directory or into a .git folder, and a mode
 * git does not write. A gitlink (a submodule entry) passes here: what it
 * points at is never written. */
const char *ac_git_path_problem(const char *path, uint32_t mode, const char *link_target,
				size_t link_len);

/* True when the single name (no '/') is one git treats as ".git" on some
 * file system. */
bool ac_git_name_is_dotgit(const char *name, size_t len);

/* True when ws_path (relative to the workspace root, '/'-separated) is
 * agent state by the fixed rules that hold whatever the configuration
 * says: everything under ".agent/" (and ".agent" itself), and every
 * journal file in the workspace root: "JOURNAL*.jsonl" and its ".lock".
 * Configured places (sessionDir, journalPath, ...) are added by the git
 * layer on top (ac_git_is_agent_state()). */
bool ac_git_path_is_default_agent_state(const char *ws_path);

#endif
