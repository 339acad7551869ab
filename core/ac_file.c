/* Reading regular files safely, making folders, syncing a file system. */
#include "ac_file.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_fs_calls.h"

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
		fd = ac_fs_openat(dir_fd, path, flags | O_NONBLOCK | O_CLOEXEC, mode);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		if (errno == ELOOP && (flags & O_NOFOLLOW))
			return ac_error_set(AC_ECORRUPT, "%s: is a symbolic link", shown);
		/* A FIFO without a reader refuses a non-blocking writer. */
		if (errno == ENXIO)
			return ac_error_set(AC_ECORRUPT, "%s: not a regular file", shown);
		return ac_error_errno(errno, "%s", shown);
	}
	if (ac_fs_fstat(fd, &st) != 0) {
		rc = ac_error_errno(errno, "%s", shown);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = ac_error_set(AC_ECORRUPT, "%s: not a regular file", shown);
		goto done;
	}
	if ((fl = ac_fs_fcntl(fd, F_GETFL, 0)) < 0 || ac_fs_fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		rc = ac_error_errno(errno, "%s", shown);
		goto done;
	}
	*out_fd = fd;
	fd = -1;
done:
	if (fd >= 0)
		ac_fs_close(fd);
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
	if (ac_fs_fstat(fd, &st) != 0) {
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
		n = ac_fs_read(fd, data.data + data.len, data.cap - data.len - 1);
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
	ac_fs_close(fd);
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
		ssize_t n = ac_fs_read(fd, block, AC_FILE_BLOCK);

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
		ac_fs_close(fd);
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
	if (ac_fs_stat(dir, &st) != 0)
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
		if (ac_fs_mkdir(copy, 0755) != 0 && errno != EEXIST)
			rc = ac_error_errno(errno, "%s: cannot create", copy);
		*p = '/';
		if (rc)
			break;
	}
	if (!rc && ac_fs_mkdir(copy, 0755) != 0 && errno != EEXIST)
		rc = ac_error_errno(errno, "%s: cannot create", copy);
	free(copy);
	return rc;
}

int ac_file_mkdirs_durable(const char *dir, const char *root)
{
	size_t root_len = strlen(root);
	char *copy;
	int rc;

	while (root_len > 1 && root[root_len - 1] == '/')
		root_len--;
	if ((rc = ac_file_mkdirs(dir)))
		return rc;
	if (strncmp(dir, root, root_len) != 0 || (dir[root_len] != '/' && dir[root_len] != '\0'))
		return ac_error_set(AC_EINVAL, "%s: not inside %s", dir, root);
	if (!(copy = strdup(dir)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	/* From the innermost parent outwards: cut at each '/' after root. */
	for (char *slash = strrchr(copy, '/'); rc == 0 && slash && slash >= copy + root_len;
	     slash = strrchr(copy, '/')) {
		*slash = '\0';
		rc = ac_file_sync_folder(*copy ? copy : "/");
	}
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
	const char *name;
	ac_fs_dir *d;
	int fd, rc = 0;

	*out = NULL;
	*out_n = 0;
	if ((fd = ac_fs_open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)) < 0)
		return 0;
	if (!(d = ac_fs_fdopendir(fd))) {
		ac_fs_close(fd);
		return 0;
	}
	while ((name = ac_fs_readdir(d)) != NULL) {
		struct stat st;

		if (name[0] == '.' || ac_fs_fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
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
		if (!(names[n] = strdup(name))) {
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
	ac_fs_closedir(d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* ac_file_resolve(), following links only when follow is set. */
static int fold_path(ac_buf *out, const char *path, bool follow)
{
	const char *p = path;
	struct stat st;

	ac_buf_clear(out);
	while (*p) {
		size_t len = strcspn(p, "/");

		if ((len == 1 && p[0] == '.') || len == 0) {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = out->data ? strrchr(out->data, '/') : NULL;

			if (slash)
				out->len = (size_t)(slash - out->data), out->data[out->len] = '\0';
		} else {
			ac_buf_putc(out, '/');
			ac_buf_append(out, p, len);
			if (!out->data)
				return ac_error_set(AC_ENOMEM, "out of memory");
			if (follow && ac_fs_lstat(out->data, &st) == 0 && S_ISLNK(st.st_mode)) {
				char *real = ac_fs_realpath(out->data);

				if (!real) {
					int err = errno;
					char to[512];
					ssize_t n = readlink(out->data, to, sizeof(to) - 1);

					to[n > 0 ? n : 0] = '\0';
					return ac_error_errno(err, "%s: a symbolic link to '%s' that cannot "
							      "be followed", out->data, to);
				}
				ac_buf_clear(out);
				if (strcmp(real, "/") != 0)
					ac_buf_append(out, real, strlen(real));
				free(real);
			}
		}
		p += len;
		if (*p == '/')
			p++;
	}
	if (!out->len)
		ac_buf_putc(out, '/');
	return out->data ? 0 : ac_error_set(AC_ENOMEM, "out of memory");
}

const char *ac_file_below(const char *resolved, const char *root)
{
	size_t len = strlen(root);

	if (!strcmp(root, "/"))
		return resolved[0] == '/' ? resolved + 1 : NULL;
	if (strncmp(resolved, root, len) || (resolved[len] != '/' && resolved[len] != '\0'))
		return NULL;
	return resolved + len + (resolved[len] == '/');
}

int ac_file_resolve(ac_buf *out, const char *path)
{
	return fold_path(out, path, true);
}

/* path made absolute (against the current folder) and folded, links not
 * followed: where it is as written. */
static int written_path(ac_buf *out, const char *path)
{
	ac_buf joined = AC_BUF_INIT;
	char *cwd = path[0] == '/' ? NULL : getcwd(NULL, 0);
	int rc;

	if (path[0] != '/' && !cwd)
		return ac_error_errno(errno, "%s: the current folder", path);
	rc = cwd ? ac_buf_printf(&joined, "%s/%s", cwd, path) : ac_buf_printf(&joined, "%s", path);
	free(cwd);
	if (rc)
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = fold_path(out, joined.data, false);
	ac_buf_free(&joined);
	return rc;
}

/* The workspace as written and resolved, and where path is inside it as
 * written (*out_rel borrowed from written; NULL when outside). */
typedef struct {
	ac_buf root_written, root_real, written;
	const char *rel;
} placed;

static void placed_free(placed *p)
{
	ac_buf_free(&p->root_written);
	ac_buf_free(&p->root_real);
	ac_buf_free(&p->written);
}

static int place(placed *out, const char *root, const char *path)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = written_path(&out->root_written, root)) ||
	    (rc = written_path(&out->written, path)) ||
	    (rc = fold_path(&out->root_real, out->root_written.data, true)))
		return rc;
	if (!(out->rel = ac_file_below(out->written.data, out->root_written.data)))
		out->rel = ac_file_below(out->written.data, out->root_real.data);
	return 0;
}

static int leads_out(const char *path, const char *root_real, const char *to)
{
	return ac_error_set(AC_EDENIED, "%s: leads out of the workspace %s through a symbolic "
			    "link (to %s); a store folder is never followed out of the workspace",
			    path, root_real, to);
}

/* A link on a store path that leads nowhere or loops is refused too (a
 * file created through it would land where it points): the message of
 * ac_file_resolve(), which names the link and what it holds. */
static int unfollowed(int rc)
{
	char *why;

	if (rc == AC_ENOMEM || !(why = strdup(ac_error_last())))
		return rc;
	rc = ac_error_set(AC_EDENIED, "%s (a store path is never followed out of the workspace)",
			  why);
	free(why);
	return rc;
}

int ac_file_check_in(const char *root, const char *path)
{
	ac_buf resolved = AC_BUF_INIT;
	placed p;
	int rc;

	if ((rc = place(&p, root, path)) || !p.rel)
		goto done;
	if ((rc = ac_file_resolve(&resolved, p.written.data)))
		rc = unfollowed(rc);
	else if (!ac_file_below(resolved.data, p.root_real.data))
		rc = leads_out(p.written.data, p.root_real.data, resolved.data);
done:
	ac_buf_free(&resolved);
	placed_free(&p);
	return rc;
}

/* Opens the folder rel below the open folder root_fd (root_real), one
 * component at a time without following a link: *out_link gets the
 * folded path of a link met on the way (its target not yet followed),
 * *out_fd -1 then. */
static int walk_below(int *out_fd, ac_buf *out_link, int root_fd, const char *root_real,
		      const char *rel, const char *shown)
{
	int fd = ac_fs_fcntl(root_fd, F_DUPFD_CLOEXEC, 0), rc = 0;
	const char *p = rel;

	*out_fd = -1;
	if (fd < 0)
		return ac_error_errno(errno, "%s", shown);
	while (*p) {
		size_t len = strcspn(p, "/");
		char name[256];
		struct stat st;
		int inner;

		if (len >= sizeof(name)) {
			rc = ac_error_set(AC_EINVAL, "%s: a name too long", shown);
			goto done;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len + (p[len] == '/');
		if (!len)
			continue;
		if ((inner = ac_fs_openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
					  0)) >= 0) {
			ac_fs_close(fd);
			fd = inner;
			continue;
		}
		if ((errno == ELOOP || errno == ENOTDIR) &&
		    ac_fs_fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			if (ac_buf_printf(out_link, "%s/%.*s", strcmp(root_real, "/") ? root_real : "",
					  (int)(p - rel - (p[-1] == '/')), rel))
				rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		rc = ac_error_errno(errno, "%s", shown);
		goto done;
	}
	*out_fd = fd;
	fd = -1;
done:
	if (fd >= 0)
		ac_fs_close(fd);
	return rc;
}

int ac_file_open_dir_in(int *out_fd, const char *root, const char *path)
{
	ac_buf rest = AC_BUF_INIT, link = AC_BUF_INIT, resolved = AC_BUF_INIT;
	int root_fd = -1, rc;
	placed p;

	*out_fd = -1;
	if ((rc = place(&p, root, path)))
		goto done;
	if (!p.rel) {
		/* The operator's own folder outside the workspace: as given. */
		if ((*out_fd = ac_fs_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)) < 0)
			rc = ac_error_errno(errno, "%s", path);
		goto done;
	}
	if ((root_fd = ac_fs_open(p.root_real.data, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)) < 0) {
		rc = ac_error_errno(errno, "%s", p.root_real.data);
		goto done;
	}
	if (ac_buf_printf(&rest, "%s", p.rel)) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	/* A link on the way is followed only where it stays in the workspace,
	 * and the walk starts again from the root with where it leads: a link
	 * swapped in meanwhile is met by the next walk. */
	for (int hops = 0;; hops++) {
		const char *rel;

		ac_buf_clear(&link);
		if ((rc = walk_below(out_fd, &link, root_fd, p.root_real.data, rest.data ? rest.data : "",
				     path)) || *out_fd >= 0)
			goto done;
		if (hops == 40) {
			rc = ac_error_set(AC_EINVAL, "%s: too many symbolic links", path);
			goto done;
		}
		/* The link and what follows it, resolved. */
		if (ac_buf_printf(&link, "%s", rest.data + (link.len - 1 -
							   (p.root_real.len > 1 ? p.root_real.len : 0)))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		if ((rc = ac_file_resolve(&resolved, link.data))) {
			rc = unfollowed(rc);
			goto done;
		}
		if (!(rel = ac_file_below(resolved.data, p.root_real.data))) {
			rc = leads_out(p.written.data, p.root_real.data, resolved.data);
			goto done;
		}
		ac_buf_clear(&rest);
		if (ac_buf_printf(&rest, "%s", rel)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	}
done:
	if (root_fd >= 0)
		ac_fs_close(root_fd);
	placed_free(&p);
	ac_buf_free(&rest);
	ac_buf_free(&link);
	ac_buf_free(&resolved);
	return rc;
}

int ac_file_sync_folder(const char *dir)
{
	int fd = ac_fs_open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return 0;
	if (ac_fs_fsync(fd) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP &&
	    errno != EOPNOTSUPP && errno != ENOSYS)
		rc = ac_error_errno(errno, "%s: cannot sync the folder, so what was just written "
				    "there may not survive a power cut", dir);
	ac_fs_close(fd);
	return rc;
}

int ac_file_sync_folder_of(const char *path)
{
	char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
	int rc;

	if (!dir)
		return ac_error_set(AC_ENOMEM, "out of memory");
	/* "/name": the root folder; "name": the current one. */
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	rc = ac_file_sync_folder(slash ? dir : ".");
	free(dir);
	return rc;
}
