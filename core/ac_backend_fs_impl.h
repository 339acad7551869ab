/* The file-system backend's private parts, shared by core/ac_backend_fs*.c
 * (one implementation split by contract); not API. */
#ifndef AC_BACKEND_FS_IMPL_H
#define AC_BACKEND_FS_IMPL_H

#include "ac_backend_fs.h"
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

/* Compaction's first step (seed 001 §7a) for a session file named by id
 * alone, as ac_backend_fs_compact() takes it: its tool results over
 * threshold moved to artifacts of its metadata.tenantId (out->externalized,
 * artifact_bytes, tokens_before). A session with no tenant has no artifact
 * store: nothing moves, and *out_stayed counts the results that would
 * have. For the operator's compaction on the files. */
int ac_backend_fs_externalize_session(ac_backend_compact_result *out, size_t *out_stayed,
				      const ac_backend_fs_options *opts, const char *session_id,
				      size_t threshold);

/* Logs of {"seq", "at", "data"} records (ac_backend_fs_logs.c): the seq
 * of a record line, 0 when it is not one (torn, corrupt), with the record
 * (a new reference) in *out_record when wanted; and the records after
 * after_seq, sorted by seq, torn or corrupt lines counted in *out_skipped. */
uint64_t ac_backend_fs_record_seq(const char *text, size_t len, json_t **out_record);
int ac_backend_fs_log_load(json_t **out, size_t *out_skipped, const char *path,
			   uint64_t after_seq);

/* The records of the log at path handed to fn one at a time, in seq
 * order, as ac_backend_fs_log_load(after 0) returns them, with memory that
 * does not grow with the log (ac_backend_fs_walk.c). */
int ac_backend_fs_log_each(const char *path, ac_backend_record_fn fn, void *ctx,
			   size_t *out_skipped);

/* Fill in the memo and artifact groups, and the trace and orchestration. */
void ac_backend_fs_fill_files(ac_backend *b);
void ac_backend_fs_fill_logs(ac_backend *b);
/* ...and what a copy between stores needs (ac_backend_fs_copy.c). */
void ac_backend_fs_fill_copy(ac_backend *b);

#endif
