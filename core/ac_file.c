/* Reading regular files safely, making folders, syncing a file system. */
#include "ac_file.h"

#include "ac_buf.h"
#include "ac_error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ac_file_open_regular(int *out_fd, int dir_fd, const char *path, int flags,
			 mode_t mode, const char *shown)
{
	struct stat st;
	int fd, rc = 0, fl;

	*out_fd = -1;
	do {
		fd = openat(dir_fd, path, flags | O_NONBLOCK | O_CLOEXEC, mode);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		if (errno == ELOOP && (flags & O_NOFOLLOW))
			return ac_error_set(AC_ECORRUPT, "%s: is a symbolic link", shown);
		/* A FIFO without a reader refuses a non-blocking writer. */
		if (errno == ENXIO)
			return ac_error_set(AC_ECORRUPT, "%s: not a regular file", shown);
		return ac_error_errno(errno, "%s", shown);
	}
	if (fstat(fd, &st) != 0) {
		rc = ac_error_errno(errno, "%s", shown);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = ac_error_set(AC_ECORRUPT, "%s: not a regular file", shown);
		goto done;
	}
	if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		rc = ac_error_errno(errno, "%s", shown);
		goto done;
	}
	*out_fd = fd;
	fd = -1;
done:
	if (fd >= 0)
		close(fd);
	return rc;
}

int ac_file_read_at(char **out, size_t *out_len, int dir_fd, const char *name,
		    const char *shown_path)
{
	ac_buf data = AC_BUF_INIT;
	struct stat st;
	int fd, rc;

	if ((rc = ac_file_open_regular(&fd, dir_fd, name, O_RDONLY | O_NOFOLLOW, 0, shown_path)))
		return rc;
	if (fstat(fd, &st) != 0) {
		rc = ac_error_errno(errno, "%s", shown_path);
		goto done;
	}
	if (ac_buf_reserve(&data, (size_t)st.st_size + 1)) {
		rc = ac_error_set(AC_ENOMEM, "%s: out of memory", shown_path);
		goto done;
	}
	for (;;) {
		ssize_t n;

		if (data.cap - data.len < 2 && ac_buf_reserve(&data, 65536)) {
			rc = ac_error_set(AC_ENOMEM, "%s: out of memory", shown_path);
			goto done;
		}
		n = read(fd, data.data + data.len, data.cap - data.len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = ac_error_errno(errno, "%s", shown_path);
			goto done;
		}
		if (n == 0)
			break;
		data.len += (size_t)n;
	}
	data.data[data.len] = '\0';
	*out_len = data.len;
	*out = ac_buf_detach(&data);
done:
	ac_buf_free(&data);
	close(fd);
	return rc;
}

int ac_file_read(char **out, size_t *out_len, const char *path)
{
	return ac_file_read_at(out, out_len, AT_FDCWD, path, path);
}

int ac_file_each_block(const char *path, ac_file_block_fn fn, void *ctx)
{
	char *block = malloc(AC_FILE_BLOCK);
	int fd = -1, rc;

	if (!block)
		return ac_error_set(AC_ENOMEM, "%s: out of memory", path);
	if ((rc = ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY | O_NOFOLLOW, 0, path)))
		goto done;
	for (;;) {
		ssize_t n = read(fd, block, AC_FILE_BLOCK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = ac_error_errno(errno, "%s", path);
			break;
		}
		if (n == 0 || (rc = fn(block, (size_t)n, ctx)))
			break;
	}
done:
	if (fd >= 0)
		close(fd);
	free(block);
	return rc;
}

bool ac_file_foreign_owner(uid_t *out_uid, const struct stat *entry, const char *dir,
			   bool allow_root)
{
	uid_t me = geteuid();
	struct stat st;

	*out_uid = entry->st_uid;
	if (entry->st_uid != me && !(allow_root && entry->st_uid == 0))
		return true;
	if (stat(dir, &st) != 0)
		return false;
	*out_uid = st.st_uid;
	return st.st_uid != me && !(allow_root && st.st_uid == 0);
}

int ac_file_mkdirs(const char *dir)
{
	char *copy = strdup(dir);
	int rc = 0;

	if (!copy)
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (char *p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) != 0 && errno != EEXIST)
			rc = ac_error_errno(errno, "%s: cannot create", copy);
		*p = '/';
		if (rc)
			break;
	}
	if (!rc && mkdir(copy, 0755) != 0 && errno != EEXIST)
		rc = ac_error_errno(errno, "%s: cannot create", copy);
	free(copy);
	return rc;
}

int ac_file_sync_fs(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return ac_error_errno(errno, "%s: cannot open to sync", path);
	if (syncfs(fd) != 0)
		rc = ac_error_errno(errno, "%s: syncing its file system", path);
	close(fd);
	return rc;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ac_file_list(char ***out, size_t *out_n, const char *dir, bool dirs)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *entry;
	DIR *d;
	int rc = 0;

	*out = NULL;
	*out_n = 0;
	if (!(d = opendir(dir)))
		return 0;
	while ((entry = readdir(d)) != NULL) {
		struct stat st;

		if (entry->d_name[0] == '.' ||
		    fstatat(dirfd(d), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !(dirs ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)))
			continue;
		if (n == cap) {
			char **grown = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof(*names));

			if (!grown) {
				rc = ac_error_set(AC_ENOMEM, "out of memory");
				goto done;
			}
			names = grown;
		}
		if (!(names[n] = strdup(entry->d_name))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		n++;
	}
	if (n)
		qsort(names, n, sizeof(*names), compare_names);
	*out = names;
	*out_n = n;
	names = NULL;
	n = 0;
done:
	closedir(d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}
