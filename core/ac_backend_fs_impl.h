/* The file-system backend's private parts, shared by core/ac_backend_fs*.c
 * (one implementation split by contract); not API. */
#ifndef AC_BACKEND_FS_IMPL_H
#define AC_BACKEND_FS_IMPL_H

#include "ac_backend.h"
#include "ac_session.h"
#include "ac_session_index.h"

typedef struct {
	char *sessions_dir;
	char *data_dir;
	ac_session_index *index; /* refreshed on each listing */
	void (*test_hook)(const char *point, void *ctx);
	void *test_hook_ctx;
} ac_backend_fs;

/* Tells the test hook (if any) that point was reached. */
void ac_backend_fs_reached(const ac_backend_fs *fs, const char *point);

/* 0 when the session document root belongs to tenant; else AC_ENOTFOUND
 * worded as if the session did not exist. */
int ac_backend_fs_owned(const json_t *root, const char *tenant, const char *session_id);

/* Loads a session of tenant (ids checked): AC_ENOTFOUND for another
 * tenant's, worded as if it did not exist. Free with ac_session_free(). */
int ac_backend_fs_load_owned(ac_session **out, const ac_backend_fs *fs, const char *tenant,
			     const char *session_id);

/* Sorted names of the regular files in dir that are not dot files or a
 * store's own (.tmp, .lock); a missing dir has none. */
int ac_backend_fs_names(char ***out, size_t *out_n, const char *dir);

/* Stores an artifact unless one with other bytes is there already: 0 when
 * the artifact now holds data, AC_ECONFLICT when it holds something else. */
int ac_backend_fs_artifact_put(ac_backend_fs *fs, const char *tenant, const char *session_id,
			       const char *tool_call_id, const char *data, size_t len);

int ac_backend_fs_compact(void *impl, ac_backend_compact_result *out, const char *tenant,
			  const char *session_id, const ac_backend_compact_options *opts);

/* Fill in the memo and artifact groups, and the trace and orchestration. */
void ac_backend_fs_fill_files(ac_backend *b);
void ac_backend_fs_fill_logs(ac_backend *b);

#endif
