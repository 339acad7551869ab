/* Atomic, durable file replacement and the clean-up of stray temp files. */
#include "ac_atomic.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_fs_calls.h"
#include "ac_mutation.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Splits path into its folder and base name (both allocated). */
static int split(char **out_dir, char **out_base, const char *path)
{
	const char *slash = strrchr(path, '/');

	*out_dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	*out_base = strdup(slash ? slash + 1 : path);
	if (!*out_dir || !*out_base) {
		free(*out_dir);
		free(*out_base);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = ac_fs_write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : ENOSPC;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Writes data to a new unique temp file beside path and, with durable,
 * fsyncs it; mode (not 0): its mode, whatever the umask, set before it is
 * published. *out_temp names it (the caller frees it and removes the
 * file). */
static int write_temp(ac_buf *out_temp, const char *dir, const char *base, const char *path,
		      const char *data, size_t len, bool durable, mode_t mode)
{
	unsigned random_value = 0;
	int fd, err;

	if (strlen(base) > AC_ATOMIC_NAME_MAX)
		return ac_error_set(AC_EINVAL, "%s: a name longer than %d bytes cannot be written "
				    "(its temporary name would be longer than 255)", path,
				    AC_ATOMIC_NAME_MAX);
	if (ac_fs_getrandom(&random_value, sizeof(random_value), 0) != sizeof(random_value))
		random_value = (unsigned)time(NULL) ^ (unsigned)ac_fs_getpid();
	if (ac_buf_printf(out_temp, "%s/.%s.%ld.%08x.tmp", dir, base, (long)ac_fs_getpid(),
			  random_value))
		return AC_ENOMEM;
	fd = ac_fs_open(out_temp->data, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return ac_error_errno(errno, "%s: cannot create a temporary file", path);
	if (mode && fchmod(fd, mode) != 0) {
		err = errno;
		ac_fs_close(fd);
		ac_fs_unlink(out_temp->data);
		return ac_error_errno(err, "%s: cannot set its mode", path);
	}
	if ((err = write_all(fd, data, len)) || (durable && ac_fs_fsync(fd) != 0 && (err = errno))) {
		ac_fs_close(fd);
		ac_fs_unlink(out_temp->data);
		return ac_error_errno(err, "%s: cannot write", path);
	}
	if (ac_fs_close(fd) != 0) {
		err = errno;
		ac_fs_unlink(out_temp->data);
		return ac_error_errno(err, "%s: cannot write", path);
	}
	return 0;
}


/* Swaps temp with the regular file at path; false (nothing changed) when
 * path is anything else or the file system cannot swap. Unlike a rename
 * over the file, this does not make ext4 start writing the new file out
 * there and then (its replace-by-rename heuristic for programs that never
 * fsync: a quarter of a 1,000-file rollback), which a caller syncing the
 * whole batch at the end does not need. */
static bool exchange_file(const char *temp, const char *path)
{
	struct stat st;

	if (ac_fs_lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    ac_fs_renameat2(AT_FDCWD, temp, AT_FDCWD, path, RENAME_EXCHANGE) != 0)
		return false;
	/* Something other than a file got there in between: swap back. */
	if (ac_fs_lstat(temp, &st) != 0 || !S_ISREG(st.st_mode)) {
		ac_fs_renameat2(AT_FDCWD, temp, AT_FDCWD, path, RENAME_EXCHANGE);
		return false;
	}
	return true;
}

static int replace(const char *path, const char *data, size_t len, ac_atomic_check_fn check,
		   void *ctx, bool durable, mode_t mode)
{
	char *dir = NULL, *base = NULL;
	ac_buf temp = AC_BUF_INIT;
	int rc;

	if ((rc = split(&dir, &base, path)) ||
	    (rc = write_temp(&temp, dir, base, path, data, len, durable, mode)))
		goto done;
	if (check && (rc = check(path, ctx))) {
		ac_fs_unlink(temp.data);
		goto done;
	}
	if (!durable && exchange_file(temp.data, path)) {
		ac_fs_unlink(temp.data); /* now the old file */
		goto done;
	}
	if (ac_fs_rename(temp.data, path) != 0) {
		rc = ac_error_errno(errno, "%s: cannot replace", path);
		ac_fs_unlink(temp.data);
		goto done;
	}
	/* The rename is durable only once the folder's entry is on disk. */
	if (durable)
		rc = ac_file_sync_folder(dir);
done:
	ac_buf_free(&temp);
	free(dir);
	free(base);
	return rc;
}

int ac_atomic_write(const char *path, const char *data, size_t len,
		    ac_atomic_check_fn check, void *ctx)
{
	return replace(path, data, len, check, ctx, true, 0);
}

int ac_atomic_write_unsynced(const char *path, const char *data, size_t len)
{
	return replace(path, data, len, NULL, NULL, false, 0);
}

int ac_atomic_write_unsynced_mode(const char *path, const char *data, size_t len, mode_t mode)
{
	return replace(path, data, len, NULL, NULL, false, mode);
}

/* A failed renameat2: "cannot swap here" is AC_ENOTSUP, so callers can
 * fall back to a plain rename. */
static int rename_error(const char *path)
{
	if (errno == EINVAL || errno == ENOSYS)
		return ac_error_set(AC_ENOTSUP, "%s: the file system cannot swap files", path);
	return ac_error_errno(errno, "%s: cannot replace", path);
}

/* Where renameat2's flags are missing (NFS, SMB, FUSE), link(2) still
 * publishes a whole file only if the name is free: it is atomic on NFS and
 * fails with EEXIST, the classic way to create exclusively there. */
static int create_by_link(const char *temp, const char *path)
{
	if (ac_fs_link(temp, path) == 0)
		return 0;
	if (errno == EEXIST)
		return ac_error_set(AC_ECONFLICT, "%s: exists already", path);
	if (errno == EPERM || errno == EOPNOTSUPP || errno == ENOSYS)
		return ac_error_set(AC_ENOTSUP, "%s: the file system can neither swap nor link "
				    "files", path);
	return ac_error_errno(errno, "%s: cannot create", path);
}

int ac_atomic_swap(char **out_displaced, size_t *out_displaced_len, const char *path,
		   const char *data, size_t len, bool must_be_new)
{
	char *dir = NULL, *base = NULL;
	ac_buf temp = AC_BUF_INIT;
	int rc;

	*out_displaced = NULL;
	*out_displaced_len = 0;
	if ((rc = split(&dir, &base, path)) ||
	    (rc = write_temp(&temp, dir, base, path, data, len, true, 0)))
		goto done;
	if (ac_fs_renameat2(AT_FDCWD, temp.data, AT_FDCWD, path, RENAME_NOREPLACE) == 0) {
		rc = ac_file_sync_folder(dir); /* there was nothing to displace */
		goto done;
	}
	if ((errno == EINVAL || errno == ENOSYS) && must_be_new) {
		rc = create_by_link(temp.data, path);
		if (rc == 0)
			rc = ac_file_sync_folder(dir);
		ac_fs_unlink(temp.data);
		goto done;
	}
	if (errno != EEXIST) {
		rc = rename_error(path);
		ac_fs_unlink(temp.data);
		goto done;
	}
	if (must_be_new) {
		rc = ac_error_set(AC_ECONFLICT, "%s: exists already", path);
		ac_fs_unlink(temp.data);
		goto done;
	}
	if (ac_fs_renameat2(AT_FDCWD, temp.data, AT_FDCWD, path, RENAME_EXCHANGE) != 0) {
		rc = rename_error(path);
		ac_fs_unlink(temp.data);
		goto done;
	}
	/* The temp name now holds what was at path a moment ago. */
	rc = ac_file_read(out_displaced, out_displaced_len, temp.data);
	ac_fs_unlink(temp.data);
	/* Failed, nothing is handed back: the caller frees nothing then. */
	if (rc == 0 && (rc = ac_file_sync_folder(dir))) {
		free(*out_displaced);
		*out_displaced = NULL;
		*out_displaced_len = 0;
	}
done:
	ac_buf_free(&temp);
	free(dir);
	free(base);
	return rc;
}

int ac_file_id_of(ac_file_id *out, const char *path)
{
	struct stat st;

	if (ac_fs_lstat(path, &st) != 0)
		return ac_error_errno(errno, "%s", path);
	out->dev = st.st_dev;
	out->ino = st.st_ino;
	out->size = st.st_size;
	out->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return 0;
}

bool ac_file_id_equal(const ac_file_id *a, const ac_file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns;
}

/* Exchanges temp and path; afterwards temp holds what path held. */
static int exchange(const char *temp, const char *path)
{
	if (ac_fs_renameat2(AT_FDCWD, temp, AT_FDCWD, path, RENAME_EXCHANGE) != 0)
		return rename_error(path);
	return 0;
}

/* After a failed compare: path holds `put` (ours at first) and temp what
 * was displaced. Swap back; if what comes out is not what we put there,
 * someone wrote a newer version meanwhile, so that one goes back in. Each
 * round only ever hands path a version newer than the one it takes out. */
static void put_back(const char *temp, const char *path, ac_file_id put)
{
	for (int round = 0; round < 16; round++) {
		ac_file_id in_temp = {0}, pulled = {0};

		if (ac_file_id_of(&in_temp, temp) || exchange(temp, path) ||
		    ac_file_id_of(&pulled, temp))
			return;
		if (ac_file_id_equal(&pulled, &put))
			return;
		put = in_temp;
	}
}

int ac_atomic_swap_if(bool *out_published, ac_file_id *out_written, const char *path,
		      const ac_file_id *expected, const char *data, size_t len)
{
	char *dir = NULL, *base = NULL;
	ac_buf temp = AC_BUF_INIT;
	ac_file_id ours = {0}, now = {0};
	bool published = false;
	int rc;

	if ((rc = split(&dir, &base, path)) ||
	    (rc = write_temp(&temp, dir, base, path, data, len, true, 0)))
		goto done;
	if ((rc = ac_file_id_of(&ours, temp.data)))
		goto remove;
	/* Most lost races end here, before anything of ours is visible. */
	if ((rc = ac_file_id_of(&now, path)) && rc != AC_ENOTFOUND)
		goto remove;
	if (AC_MUTATION("publish_without_compare")) {
		rc = 0;
	} else if (rc == AC_ENOTFOUND || !ac_file_id_equal(&now, expected)) {
		rc = ac_error_set(AC_ECONFLICT, "%s: changed by another writer", path);
		goto remove;
	}
	if ((rc = exchange(temp.data, path)))
		goto remove;
	published = true;
	if (AC_MUTATION("publish_without_compare") ||
	    (ac_file_id_of(&now, temp.data) == 0 && ac_file_id_equal(&now, expected))) {
		if (!AC_MUTATION("swap_dir_not_synced"))
			rc = ac_file_sync_folder(dir);
		if (out_written)
			*out_written = ours;
		goto remove;
	}
	/* Someone renamed over path between our look and the exchange. */
	put_back(temp.data, path, ours);
	rc = ac_error_set(AC_ECONFLICT, "%s: changed by another writer", path);
remove:
	ac_fs_unlink(temp.data);
done:
	if (out_published)
		*out_published = published;
	ac_buf_free(&temp);
	free(dir);
	free(base);
	return rc;
}

bool ac_atomic_is_temp_name(const char *name)
{
	size_t len = strlen(name);

	return len > 4 && strcmp(name + len - 4, ".tmp") == 0;
}

/* The pid in ".<name>.<pid>.<random>.tmp", or 0 when the name is not ours. */
static long our_temp_pid(const char *name)
{
	size_t len = strlen(name);
	const char *p = name + len - 4; /* at ".tmp" */
	const char *random_dot, *pid_dot;

	if (name[0] != '.' || len < 16)
		return 0;
	random_dot = p - 9;
	if (random_dot <= name || *random_dot != '.')
		return 0;
	pid_dot = random_dot;
	while (pid_dot > name && pid_dot[-1] >= '0' && pid_dot[-1] <= '9')
		pid_dot--;
	if (pid_dot == random_dot || pid_dot[-1] != '.')
		return 0;
	return strtol(pid_dot, NULL, 10);
}

int ac_atomic_clean_temps(const char *dir, int max_age_seconds)
{
	DIR *d = opendir(dir);
	struct dirent *entry;
	time_t now = time(NULL);
	int removed = 0;

	if (!d)
		return 0;
	while ((entry = readdir(d)) != NULL) {
		struct stat st;
		long pid;
		bool dead;

		if (!ac_atomic_is_temp_name(entry->d_name) ||
		    ac_fs_fstatat(dirfd(d), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		pid = our_temp_pid(entry->d_name);
		dead = pid > 0 && ac_fs_kill((pid_t)pid, 0) != 0 && errno == ESRCH;
		/* A dead writer's file can go at once; anyone else's only when
		 * it is too old to be a write in progress. */
		if ((dead && now - st.st_mtime > 1) || now - st.st_mtime > max_age_seconds) {
			if (ac_fs_unlinkat(dirfd(d), entry->d_name, 0) == 0)
				removed++;
		}
	}
	closedir(d);
	return removed;
}
