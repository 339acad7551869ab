/* Whether a folder is on a file system whose other writers inotify cannot
 * see: a network file system (NFS, EFS, SMB/CIFS, Ceph, Lustre, 9p...) or a
 * FUSE mount, where a write made on another host or through another mount
 * raises no event here. The watcher polls such folders. */
#ifndef AC_FS_REMOTE_H
#define AC_FS_REMOTE_H

#include <stdbool.h>

/* The name of a file-system type (statfs f_type) whose changes by others
 * inotify does not report, or NULL for a local one. */
const char *ac_fs_remote_name(long fs_type);

/* True when path (a folder or file that exists) lives on such a file
 * system; *out_name (may be NULL) receives its name. A path that cannot be
 * examined is not called remote. */
bool ac_fs_is_remote(const char *path, const char **out_name);

#endif
