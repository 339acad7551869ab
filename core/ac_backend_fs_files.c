/* The file-system backend: memory documents and tool-result artifacts,
 * one file each under the data folder (layout in ac_backend.h). */
#include "ac_backend_fs_impl.h"

#include "ac_backend_check.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_fs_calls.h"
#include "ac_lock.h"
#include "ac_sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCK_TIMEOUT_MS 10000

/* ---- memory documents: memo/<tenant>/<owner>/<scope>/<name> ---- */

/* Checks every part before building anything; *dir (allocated) is the
 * document's folder, *path (allocated, may be NULL) the document. */
static int memo_paths(char **dir, char **path, const ac_backend_fs *fs, const char *tenant,
		      const char *owner, const char *scope, const char *name)
{
	ac_buf d = AC_BUF_INIT, p = AC_BUF_INIT;
	int rc;

	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("owner", owner)) || (rc = ac_backend_scope_check(scope)) ||
	    (path && (rc = ac_backend_id_check("memo name", name))))
		return rc;
	if (ac_buf_printf(&d, "%s/memo/%s/%s/%s", fs->data_dir, tenant, owner, scope) ||
	    (path && ac_buf_printf(&p, "%s/%s", d.data, name))) {
		ac_buf_free(&d);
		ac_buf_free(&p);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	/* A link below the data folder (memo/<tenant>, .../<owner>) must not
	 * lead out of it: only memo itself is checked at start-up. */
	if ((rc = ac_file_check_in(fs->data_dir, d.data))) {
		ac_buf_free(&d);
		ac_buf_free(&p);
		return rc;
	}
	*dir = ac_buf_detach(&d);
	if (path)
		*path = ac_buf_detach(&p);
	return 0;
}

int ac_backend_memo_missing(const char *tenant, const char *owner, const char *scope,
			    const char *name)
{
	return ac_error_set(AC_ENOTFOUND, "memo %s/%s/%s/%s: no such document", tenant, owner,
			    scope, name);
}

/* memo read and stream: path's bytes whole (into *out) or to fn. */
static int memo_fetch(void *impl, char **out, size_t *out_len, ac_backend_block_fn fn,
		      void *ctx, const char *tenant, const char *owner, const char *scope,
		      const char *name)
{
	char *dir = NULL, *path = NULL;
	int rc;

	if ((rc = memo_paths(&dir, &path, impl, tenant, owner, scope, name)))
		return rc;
	rc = fn ? ac_file_each_block(path, fn, ctx) : ac_file_read(out, out_len, path);
	if (rc == AC_ENOTFOUND)
		ac_backend_memo_missing(tenant, owner, scope, name);
	free(dir);
	free(path);
	return rc;
}

static int memo_read(void *impl, char **out, size_t *out_len, const char *tenant,
		     const char *owner, const char *scope, const char *name)
{
	return memo_fetch(impl, out, out_len, NULL, NULL, tenant, owner, scope, name);
}

static int memo_stream(void *impl, ac_backend_block_fn fn, void *ctx, const char *tenant,
		       const char *owner, const char *scope, const char *name)
{
	return memo_fetch(impl, NULL, NULL, fn, ctx, tenant, owner, scope, name);
}

/* Whether path holds what expected says (a SHA-256 in hex, or NULL for
 * no document): AC_ECONFLICT naming it when not. */
static int memo_is(const char *path, const char *expected)
{
	char *now = NULL, hash[AC_SHA256_HEX_LEN + 1];
	size_t len = 0;
	int rc = ac_file_read(&now, &len, path);

	if (rc == AC_ENOTFOUND) {
		ac_error_clear();
		rc = expected ? ac_error_set(AC_ECONFLICT, "%s: removed since it was read", path) : 0;
	} else if (rc == 0) {
		ac_sha256_hex(hash, now, len);
		if (!expected || strcmp(hash, expected))
			rc = ac_error_set(AC_ECONFLICT, "%s: written by another since it was read",
					  path);
	}
	free(now);
	return rc;
}

/* Writers of one folder take turns (flock on it): a whole-document write
 * must not rename over an append in progress and lose it, and a write
 * when unchanged compares under the same lock. */
static int memo_put(void *impl, const char *tenant, const char *owner, const char *scope,
		    const char *name, const char *data, size_t len, bool compare,
		    const char *expected)
{
	char *dir = NULL, *path = NULL;
	int rc, guard = -1;

	if ((rc = memo_paths(&dir, &path, impl, tenant, owner, scope, name)))
		return rc;
	if (!(rc = ac_file_mkdirs_durable(dir, ((ac_backend_fs *)impl)->data_dir)) &&
	    !(rc = ac_lock_folder(&guard, path, LOCK_TIMEOUT_MS)) &&
	    !(compare && (rc = memo_is(path, expected))))
		rc = ac_atomic_write(path, data, len, NULL, NULL);
	if (guard >= 0)
		ac_fs_close(guard);
	free(dir);
	free(path);
	return rc;
}

static int memo_write(void *impl, const char *tenant, const char *owner, const char *scope,
		      const char *name, const char *data, size_t len)
{
	return memo_put(impl, tenant, owner, scope, name, data, len, false, NULL);
}

static int memo_write_if(const ac_backend *b, const char *tenant, const char *owner,
			 const char *scope, const char *name, const char *expected,
			 const char *data, size_t len)
{
	return memo_put(b->impl, tenant, owner, scope, name, data, len, true, expected);
}

/* An append is acknowledged once it is on the disk: the document's bytes
 * synced, and when the append created it, its name in the folder (the
 * folders on its way are synced as they are made). */
static int memo_append(void *impl, const char *tenant, const char *owner, const char *scope,
		       const char *name, const char *data, size_t len)
{
	char *dir = NULL, *path = NULL;
	int rc, guard = -1, fd = -1;
	struct stat st;
	size_t done = 0;
	bool created;

	if ((rc = memo_paths(&dir, &path, impl, tenant, owner, scope, name)))
		return rc;
	if ((rc = ac_file_mkdirs_durable(dir, ((ac_backend_fs *)impl)->data_dir)) ||
	    (rc = ac_lock_folder(&guard, path, LOCK_TIMEOUT_MS)))
		goto done;
	/* Under the folder's lock no other writer creates it meanwhile. */
	created = ac_fs_lstat(path, &st) != 0 && errno == ENOENT;
	if ((rc = ac_file_open_regular(&fd, AT_FDCWD, path,
					O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0644, path)))
		goto done;
	if (ac_fs_fstat(fd, &st) != 0) {
		rc = ac_error_errno(errno, "%s: cannot open", path);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = ac_error_set(AC_ECORRUPT, "%s: not a regular file", path);
		goto done;
	}
	while (done < len) {
		ssize_t n = ac_fs_write(fd, data + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? errno : ENOSPC;

			/* We hold the folder, so nobody appended after us: cut
			 * back to where the document ended. */
			if (done && ac_fs_ftruncate(fd, st.st_size) != 0)
				err = errno;
			rc = ac_error_errno(err, "%s: cannot append", path);
			goto done;
		}
		done += (size_t)n;
	}
	if (ac_fs_fsync(fd) != 0) {
		int err = errno;

		/* Not on the disk: not acknowledged, and not left to be read
		 * as if it were. */
		if (ac_fs_ftruncate(fd, st.st_size) != 0)
			err = errno;
		rc = ac_error_errno(err, "%s: cannot append", path);
		goto done;
	}
	if (created)
		rc = ac_file_sync_folder_of(path);
done:
	if (fd >= 0)
		ac_fs_close(fd);
	if (guard >= 0)
		ac_fs_close(guard);
	free(dir);
	free(path);
	return rc;
}

static int memo_list(void *impl, char ***out_names, size_t *out_n, const char *tenant,
		     const char *owner, const char *scope)
{
	char *dir = NULL;
	int rc;

	*out_names = NULL;
	*out_n = 0;
	if ((rc = memo_paths(&dir, NULL, impl, tenant, owner, scope, NULL)))
		return rc;
	rc = ac_backend_fs_names(out_names, out_n, dir);
	free(dir);
	return rc;
}

/* ---- artifacts: artifacts/<tenant>/<session>/<toolCallId> ---- */

static int artifact_paths(char **dir, char **path, const ac_backend_fs *fs, const char *tenant,
			  const char *session_id, const char *tool_call_id)
{
	ac_buf d = AC_BUF_INIT, p = AC_BUF_INIT;
	int rc;

	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", session_id)) ||
	    (path && (rc = ac_backend_id_check("tool call id", tool_call_id))))
		return rc;
	if (ac_buf_printf(&d, "%s/artifacts/%s/%s", fs->data_dir, tenant, session_id) ||
	    (path && ac_buf_printf(&p, "%s/%s", d.data, tool_call_id))) {
		ac_buf_free(&d);
		ac_buf_free(&p);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	if ((rc = ac_file_check_in(fs->data_dir, d.data))) { /* as memo_paths() */
		ac_buf_free(&d);
		ac_buf_free(&p);
		return rc;
	}
	*dir = ac_buf_detach(&d);
	if (path)
		*path = ac_buf_detach(&p);
	return 0;
}

/* Writes under flock on the session's artifact folder, so that the
 * compare in ac_backend_fs_artifact_put() and the write are one step. */
static int artifact_store(ac_backend_fs *fs, const char *tenant, const char *session_id,
			  const char *tool_call_id, const char *data, size_t len, bool only_new)
{
	char *dir = NULL, *path = NULL, *old = NULL;
	size_t old_len = 0;
	int rc, guard = -1;

	if ((rc = artifact_paths(&dir, &path, fs, tenant, session_id, tool_call_id)))
		return rc;
	/* The session's reference to the artifact is published once this
	 * returns: the artifact's folders must outlive a power cut as well as
	 * its bytes (found by the simulator: seed 1 of "compact"). */
	if ((rc = ac_file_mkdirs_durable(dir, fs->data_dir)) ||
	    (rc = ac_lock_folder(&guard, path, LOCK_TIMEOUT_MS)))
		goto done;
	if (only_new) {
		rc = ac_file_read(&old, &old_len, path);
		if (rc == 0) {
			if (old_len != len || memcmp(old, data, len) != 0)
				rc = ac_error_set(AC_ECONFLICT, "artifact %s of session %s holds "
						  "other output already", tool_call_id, session_id);
			goto done;
		}
		if (rc != AC_ENOTFOUND)
			goto done;
	}
	rc = ac_atomic_write(path, data, len, NULL, NULL);
done:
	if (guard >= 0)
		ac_fs_close(guard);
	free(old);
	free(dir);
	free(path);
	return rc;
}

int ac_backend_fs_artifact_put(ac_backend_fs *fs, const char *tenant, const char *session_id,
			       const char *tool_call_id, const char *data, size_t len)
{
	return artifact_store(fs, tenant, session_id, tool_call_id, data, len, true);
}

static int artifact_write(void *impl, const char *tenant, const char *session_id,
			  const char *tool_call_id, const char *data, size_t len)
{
	return artifact_store(impl, tenant, session_id, tool_call_id, data, len, false);
}

/* artifact read and stream, as memo_fetch(). */
static int artifact_fetch(void *impl, char **out, size_t *out_len, ac_backend_block_fn fn,
			  void *ctx, const char *tenant, const char *session_id,
			  const char *tool_call_id)
{
	char *dir = NULL, *path = NULL;
	int rc;

	if ((rc = artifact_paths(&dir, &path, impl, tenant, session_id, tool_call_id)))
		return rc;
	rc = fn ? ac_file_each_block(path, fn, ctx) : ac_file_read(out, out_len, path);
	if (rc == AC_ENOTFOUND)
		ac_error_set(AC_ENOTFOUND, "session %s has no artifact '%s'", session_id, tool_call_id);
	free(dir);
	free(path);
	return rc;
}

static int artifact_read(void *impl, char **out, size_t *out_len, const char *tenant,
			 const char *session_id, const char *tool_call_id)
{
	return artifact_fetch(impl, out, out_len, NULL, NULL, tenant, session_id, tool_call_id);
}

static int artifact_stream(void *impl, ac_backend_block_fn fn, void *ctx, const char *tenant,
			   const char *session_id, const char *tool_call_id)
{
	return artifact_fetch(impl, NULL, NULL, fn, ctx, tenant, session_id, tool_call_id);
}

static int artifact_list(void *impl, char ***out_ids, size_t *out_n, const char *tenant,
			 const char *session_id)
{
	char *dir = NULL;
	int rc;

	*out_ids = NULL;
	*out_n = 0;
	if ((rc = artifact_paths(&dir, NULL, impl, tenant, session_id, NULL)))
		return rc;
	rc = ac_backend_fs_names(out_ids, out_n, dir);
	free(dir);
	return rc;
}

void ac_backend_fs_fill_files(ac_backend *b)
{
	b->memo = (ac_backend_memo_ops){
		.read = memo_read,
		.stream = memo_stream,
		.write = memo_write,
		.append = memo_append,
		.list = memo_list,
	};
	b->optional.memo_write_if = memo_write_if;
	b->artifact = (ac_backend_artifact_ops){
		.write = artifact_write,
		.read = artifact_read,
		.stream = artifact_stream,
		.list = artifact_list,
	};
}
