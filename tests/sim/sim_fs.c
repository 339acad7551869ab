/* The simulator's file system: an in-memory tree of folders and files,
 * each with its current state (what readers see) and its durable state
 * (what a power loss keeps), descriptors per simulated process, flock(2),
 * and faults (ENOSPC or EIO) on an agentctl actor's writes and fsyncs.
 *
 * What a power loss keeps follows what Linux file systems promise: the
 * bytes of a file fsynced, a folder's entries once the folder is fsynced;
 * anything else may or may not have reached the disk, so each file and
 * each folder is written back or not by the seed's coin: a rename may
 * survive without the data it named, as on ext4 without
 * auto_da_alloc. Every operation here is one atomic step: the scheduler
 * (sim_sched.c) has already let others run before it. */
#include "sim.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define MAX_INODES 4096
#define MAX_FDS 1024
#define FD_BASE 100000 /* far above any real descriptor the process has */
#define NAME_MAX_LEN 255

typedef struct {
	char name[NAME_MAX_LEN + 1];
	int ino;
} entry;

typedef struct {
	entry *v;
	size_t n, cap;
} entries;

typedef struct {
	char *v;
	size_t len, cap;
} bytes;

typedef struct {
	bool used;
	bool is_dir;
	int parent;          /* folders: the folder holding it (root: itself) */
	bytes data, durable; /* files */
	entries now, kept;   /* folders: current and durable entries */
	int links;           /* entries naming it now */
	struct timespec mtime, ctime;
	int exclusive_fd;    /* flock: the descriptor holding it exclusively, or -1 */
	int shared;          /* flock: shared holders */
} inode;

typedef struct {
	bool used;
	int ino;
	pid_t pid;
	off_t offset;
	int flags;
	int lock; /* 0, LOCK_SH or LOCK_EX */
} descriptor;

static inode inodes[MAX_INODES];
static descriptor fds[MAX_FDS];
double sim_fault_rate;
static bool faults_held;

void sim_fs_faults_hold(bool held)
{
	faults_held = held;
}

static void bytes_set(bytes *b, const char *data, size_t len)
{
	if (len + 1 > b->cap) {
		b->cap = len + 64;
		b->v = realloc(b->v, b->cap);
		if (!b->v)
			abort();
	}
	if (len)
		memcpy(b->v, data, len);
	b->len = len;
}

static void entries_copy(entries *to, const entries *from)
{
	if (from->n > to->cap) {
		to->cap = from->n + 8;
		to->v = realloc(to->v, to->cap * sizeof(*to->v));
		if (!to->v)
			abort();
	}
	if (from->n)
		memcpy(to->v, from->v, from->n * sizeof(*to->v));
	to->n = from->n;
}

/* Bumped by every change to the tree (stamp() and a power loss): a check
 * may skip a tree it has seen already. */
static uint64_t generation;

uint64_t sim_fs_generation(void)
{
	return generation;
}

static void stamp(inode *node, bool content)
{
	int64_t ns = sim_now_ns();
	sim_actor *a = sim_current();
	struct timespec t;

	generation++;
	/* The writer's clock sets the times, as on a shared file system. */
	if (a)
		ns += a->clock_skew_ns;
	t.tv_sec = (time_t)(ns / 1000000000);
	t.tv_nsec = (long)(ns % 1000000000);
	if (content)
		node->mtime = t;
	node->ctime = t;
}

static int new_inode(bool is_dir, int parent)
{
	for (int i = 1; i < MAX_INODES; i++) {
		if (inodes[i].used)
			continue;
		free(inodes[i].data.v);
		free(inodes[i].durable.v);
		free(inodes[i].now.v);
		free(inodes[i].kept.v);
		memset(&inodes[i], 0, sizeof(inodes[i]));
		inodes[i].used = true;
		inodes[i].is_dir = is_dir;
		inodes[i].parent = parent;
		inodes[i].exclusive_fd = -1;
		stamp(&inodes[i], true);
		return i;
	}
	abort(); /* a scenario never makes this many */
}

void sim_fs_reset(void)
{
	for (int i = 0; i < MAX_INODES; i++) {
		free(inodes[i].data.v);
		free(inodes[i].durable.v);
		free(inodes[i].now.v);
		free(inodes[i].kept.v);
	}
	memset(inodes, 0, sizeof(inodes));
	memset(fds, 0, sizeof(fds));
	inodes[1].used = inodes[1].is_dir = true; /* the root */
	inodes[1].parent = 1;
	inodes[1].links = 1;
	inodes[1].exclusive_fd = -1;
}

static entry *find(entries *list, const char *name)
{
	for (size_t i = 0; i < list->n; i++)
		if (!strcmp(list->v[i].name, name))
			return &list->v[i];
	return NULL;
}

static void add_entry(inode *dir, const char *name, int ino)
{
	entries *list = &dir->now;

	if (list->n == list->cap) {
		list->cap = list->cap ? 2 * list->cap : 8;
		list->v = realloc(list->v, list->cap * sizeof(*list->v));
		if (!list->v)
			abort();
	}
	snprintf(list->v[list->n].name, sizeof(list->v[list->n].name), "%s", name);
	list->v[list->n++].ino = ino;
	inodes[ino].links++;
	stamp(dir, true);
}

/* A file no folder names and no descriptor holds is gone (its slot
 * reused), unless a folder's durable state still names it. */
static void maybe_free(int ino)
{
	if (inodes[ino].links > 0 || inodes[ino].is_dir)
		return;
	for (int i = 0; i < MAX_FDS; i++)
		if (fds[i].used && fds[i].ino == ino)
			return;
	for (int i = 1; i < MAX_INODES; i++)
		if (inodes[i].used && inodes[i].is_dir)
			for (size_t k = 0; k < inodes[i].kept.n; k++)
				if (inodes[i].kept.v[k].ino == ino)
					return;
	inodes[ino].used = false;
}

static void remove_entry(inode *dir, entry *e)
{
	int ino = e->ino;

	inodes[ino].links--;
	*e = dir->now.v[--dir->now.n];
	stamp(dir, true);
	maybe_free(ino);
}

static descriptor *fd_of(int fd)
{
	if (fd < FD_BASE || fd >= FD_BASE + MAX_FDS || !fds[fd - FD_BASE].used)
		return NULL;
	return &fds[fd - FD_BASE];
}

/* The folder that path's last component is in, and that component:
 * *out_dir is 0 with errno set when a folder on the way is missing. */
static int walk(int *out_dir, char *last, int dirfd, const char *path)
{
	char copy[4096];
	char *save = NULL, *part, *next;
	int dir;

	*out_dir = 0;
	if (!path[0] || strlen(path) >= sizeof(copy))
		return errno = ENOENT, -1;
	if (path[0] == '/' || dirfd == AT_FDCWD) {
		dir = 1;
	} else {
		descriptor *d = fd_of(dirfd);

		if (!d || !inodes[d->ino].is_dir)
			return errno = EBADF, -1;
		dir = d->ino;
	}
	snprintf(copy, sizeof(copy), "%s", path);
	part = strtok_r(copy, "/", &save);
	if (!part) { /* "/" */
		*out_dir = 1;
		snprintf(last, NAME_MAX_LEN + 1, ".");
		return 0;
	}
	for (; (next = strtok_r(NULL, "/", &save)); part = next) {
		entry *e;

		if (!strcmp(part, "."))
			continue;
		if (!strcmp(part, "..")) {
			dir = inodes[dir].parent;
			continue;
		}
		if (!(e = find(&inodes[dir].now, part)))
			return errno = ENOENT, -1;
		if (!inodes[e->ino].is_dir)
			return errno = ENOTDIR, -1;
		dir = e->ino;
	}
	if (strlen(part) > NAME_MAX_LEN)
		return errno = ENAMETOOLONG, -1;
	snprintf(last, NAME_MAX_LEN + 1, "%s", part);
	*out_dir = dir;
	return 0;
}

/* The inode path names (0 with errno when none). */
static int lookup(int dirfd, const char *path)
{
	char last[NAME_MAX_LEN + 1];
	int dir;
	entry *e;

	if (walk(&dir, last, dirfd, path))
		return 0;
	if (!strcmp(last, "."))
		return dir;
	if (!strcmp(last, ".."))
		return inodes[dir].parent;
	if (!(e = find(&inodes[dir].now, last)))
		return errno = ENOENT, 0;
	return e->ino;
}

static int fail_now(void)
{
	sim_actor *a = sim_current();

	if (!a || !a->agentctl || faults_held || sim_fault_rate <= 0 ||
	    !sim_mishap_chance(sim_fault_rate))
		return 0;
	errno = sim_mishap_chance(0.5) ? ENOSPC : EIO;
	sim_trace("  fault: %s", strerror(errno));
	return -1;
}

int sim_fs_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	char last[NAME_MAX_LEN + 1];
	int dir, ino = 0;
	entry *e;
	sim_actor *a = sim_current();

	(void)mode;
	if (walk(&dir, last, dirfd, path))
		return -1;
	e = strcmp(last, ".") ? find(&inodes[dir].now, last) : NULL;
	if (!strcmp(last, "."))
		ino = dir;
	else if (e)
		ino = e->ino;
	if (ino && (flags & O_CREAT) && (flags & O_EXCL))
		return errno = EEXIST, -1;
	if (!ino) {
		if (!(flags & O_CREAT))
			return errno = ENOENT, -1;
		if (fail_now())
			return -1;
		ino = new_inode(false, dir);
		add_entry(&inodes[dir], last, ino);
	}
	if ((flags & O_DIRECTORY) && !inodes[ino].is_dir)
		return errno = ENOTDIR, -1;
	if (inodes[ino].is_dir && (flags & O_ACCMODE) != O_RDONLY)
		return errno = EISDIR, -1;
	if ((flags & O_TRUNC) && !inodes[ino].is_dir && inodes[ino].data.len) {
		inodes[ino].data.len = 0;
		stamp(&inodes[ino], true);
	}
	for (int i = 0; i < MAX_FDS; i++) {
		if (fds[i].used)
			continue;
		fds[i] = (descriptor){true, ino, a ? a->pid : 1, 0, flags, 0};
		return FD_BASE + i;
	}
	return errno = EMFILE, -1;
}

static void release_lock(descriptor *d, int fd)
{
	inode *node = &inodes[d->ino];

	if (d->lock == LOCK_EX && node->exclusive_fd == fd)
		node->exclusive_fd = -1;
	else if (d->lock == LOCK_SH && node->shared > 0)
		node->shared--;
	d->lock = 0;
}

int sim_fs_close(int fd)
{
	descriptor *d = fd_of(fd);

	if (!d)
		return errno = EBADF, -1;
	release_lock(d, fd);
	d->used = false;
	maybe_free(d->ino);
	return 0;
}

ssize_t sim_fs_pread(int fd, void *buf, size_t len, off_t at)
{
	descriptor *d = fd_of(fd);
	inode *node;

	if (!d)
		return errno = EBADF, -1;
	node = &inodes[d->ino];
	if (node->is_dir)
		return errno = EISDIR, -1;
	if (at < 0)
		return errno = EINVAL, -1;
	if ((size_t)at >= node->data.len)
		return 0;
	if (len > node->data.len - (size_t)at)
		len = node->data.len - (size_t)at;
	memcpy(buf, node->data.v + at, len);
	return (ssize_t)len;
}

ssize_t sim_fs_read(int fd, void *buf, size_t len)
{
	descriptor *d = fd_of(fd);
	ssize_t n;

	if (!d)
		return errno = EBADF, -1;
	if ((n = sim_fs_pread(fd, buf, len, d->offset)) > 0)
		d->offset += n;
	return n;
}

ssize_t sim_fs_pwrite(int fd, const void *buf, size_t len, off_t at)
{
	descriptor *d = fd_of(fd);
	inode *node;
	size_t end;

	if (!d || (d->flags & O_ACCMODE) == O_RDONLY)
		return errno = EBADF, -1;
	if (fail_now())
		return -1;
	node = &inodes[d->ino];
	end = (size_t)at + len;
	if (end + 1 > node->data.cap) {
		node->data.cap = end + end / 2 + 64;
		node->data.v = realloc(node->data.v, node->data.cap);
		if (!node->data.v)
			abort();
	}
	if ((size_t)at > node->data.len)
		memset(node->data.v + node->data.len, 0, (size_t)at - node->data.len);
	memcpy(node->data.v + at, buf, len);
	if (end > node->data.len)
		node->data.len = end;
	stamp(node, true);
	return (ssize_t)len;
}

ssize_t sim_fs_write(int fd, const void *buf, size_t len)
{
	descriptor *d = fd_of(fd);
	ssize_t n;

	if (!d)
		return errno = EBADF, -1;
	if (d->flags & O_APPEND)
		d->offset = (off_t)inodes[d->ino].data.len;
	if ((n = sim_fs_pwrite(fd, buf, len, d->offset)) > 0)
		d->offset += n;
	return n;
}

int sim_fs_fsync(int fd)
{
	descriptor *d = fd_of(fd);
	inode *node;

	if (!d)
		return errno = EBADF, -1;
	if (fail_now())
		return -1;
	node = &inodes[d->ino];
	if (node->is_dir)
		entries_copy(&node->kept, &node->now);
	else
		bytes_set(&node->durable, node->data.v, node->data.len);
	return 0;
}

int sim_fs_ftruncate(int fd, off_t len)
{
	descriptor *d = fd_of(fd);
	inode *node;

	if (!d || (d->flags & O_ACCMODE) == O_RDONLY)
		return errno = EBADF, -1;
	node = &inodes[d->ino];
	if ((size_t)len > node->data.len) {
		char zeros[256] = {0};

		while (node->data.len < (size_t)len) {
			size_t n = (size_t)len - node->data.len;

			n = n > sizeof(zeros) ? sizeof(zeros) : n;
			sim_fs_pwrite(fd, zeros, n, (off_t)node->data.len);
		}
	}
	node->data.len = (size_t)len;
	stamp(node, true);
	return 0;
}

static void fill_stat(struct stat *st, int ino)
{
	inode *node = &inodes[ino];

	memset(st, 0, sizeof(*st));
	st->st_dev = 0x5157;
	st->st_ino = (ino_t)ino;
	st->st_mode = node->is_dir ? (S_IFDIR | 0755) : (S_IFREG | 0644);
	st->st_nlink = (nlink_t)node->links;
	st->st_uid = geteuid();
	st->st_gid = getegid();
	st->st_size = node->is_dir ? 4096 : (off_t)node->data.len;
	st->st_mtim = node->mtime;
	st->st_ctim = node->ctime;
	st->st_atim = node->mtime;
}

int sim_fs_fstat(int fd, struct stat *st)
{
	descriptor *d = fd_of(fd);

	if (!d)
		return errno = EBADF, -1;
	fill_stat(st, d->ino);
	return 0;
}

int sim_fs_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	int ino;

	if ((flags & AT_EMPTY_PATH) && !path[0])
		return sim_fs_fstat(dirfd, st);
	if (!(ino = lookup(dirfd, path)))
		return -1;
	fill_stat(st, ino);
	return 0;
}

int sim_fs_renameat2(int from_dir, const char *from, int to_dir, const char *to,
		     unsigned int flags)
{
	char from_last[NAME_MAX_LEN + 1], to_last[NAME_MAX_LEN + 1];
	int fdir, tdir;
	entry *fe, *te;

	if (walk(&fdir, from_last, from_dir, from) || walk(&tdir, to_last, to_dir, to))
		return -1;
	if (!(fe = find(&inodes[fdir].now, from_last)))
		return errno = ENOENT, -1;
	te = find(&inodes[tdir].now, to_last);
	if ((flags & RENAME_NOREPLACE) && te)
		return errno = EEXIST, -1;
	if (flags & RENAME_EXCHANGE) {
		int ino;

		if (!te)
			return errno = ENOENT, -1;
		ino = fe->ino;
		fe->ino = te->ino;
		te->ino = ino;
		stamp(&inodes[fdir], true);
		stamp(&inodes[tdir], true);
		stamp(&inodes[fe->ino], false);
		stamp(&inodes[te->ino], false);
		return 0;
	}
	if (te && te->ino == fe->ino)
		return 0;
	{
		int ino = fe->ino;

		if (te)
			remove_entry(&inodes[tdir], te);
		/* Named at its new place before its old name goes, so that
		 * it is never without a name (maybe_free()). */
		add_entry(&inodes[tdir], to_last, ino);
		remove_entry(&inodes[fdir], find(&inodes[fdir].now, from_last));
		stamp(&inodes[ino], false);
	}
	return 0;
}

int sim_fs_linkat(int from_dir, const char *from, int to_dir, const char *to, int flags)
{
	char to_last[NAME_MAX_LEN + 1];
	int ino, tdir;

	(void)flags;
	if (!(ino = lookup(from_dir, from)) || walk(&tdir, to_last, to_dir, to))
		return -1;
	if (inodes[ino].is_dir)
		return errno = EPERM, -1;
	if (find(&inodes[tdir].now, to_last))
		return errno = EEXIST, -1;
	add_entry(&inodes[tdir], to_last, ino);
	stamp(&inodes[ino], false);
	return 0;
}

int sim_fs_unlinkat(int dirfd, const char *path, int flags)
{
	char last[NAME_MAX_LEN + 1];
	int dir;
	entry *e;

	if (walk(&dir, last, dirfd, path))
		return -1;
	if (!(e = find(&inodes[dir].now, last)))
		return errno = ENOENT, -1;
	if (inodes[e->ino].is_dir != !!(flags & AT_REMOVEDIR))
		return errno = inodes[e->ino].is_dir ? EISDIR : ENOTDIR, -1;
	if (inodes[e->ino].is_dir && inodes[e->ino].now.n)
		return errno = ENOTEMPTY, -1;
	remove_entry(&inodes[dir], e);
	return 0;
}

int sim_fs_mkdirat(int dirfd, const char *path, mode_t mode)
{
	char last[NAME_MAX_LEN + 1];
	int dir;

	(void)mode;
	if (walk(&dir, last, dirfd, path))
		return -1;
	if (find(&inodes[dir].now, last) || !strcmp(last, "."))
		return errno = EEXIST, -1;
	add_entry(&inodes[dir], last, new_inode(true, dir));
	return 0;
}

int sim_fs_flock(int fd, int operation)
{
	descriptor *d = fd_of(fd);
	inode *node;
	int want = operation & (LOCK_SH | LOCK_EX | LOCK_UN);

	if (!d)
		return errno = EBADF, -1;
	node = &inodes[d->ino];
	release_lock(d, fd);
	if (want == LOCK_UN)
		return 0;
	/* A blocking request waits: the caller steps until it is free. */
	for (;;) {
		bool free_now = want == LOCK_SH ? node->exclusive_fd < 0
						: node->exclusive_fd < 0 && node->shared == 0;

		if (free_now)
			break;
		if (operation & LOCK_NB)
			return errno = EWOULDBLOCK, -1;
		sim_sleep_ns(200000);
	}
	if (want == LOCK_EX)
		node->exclusive_fd = fd;
	else
		node->shared++;
	d->lock = want;
	return 0;
}

int sim_fs_fcntl(int fd, int cmd, int arg)
{
	descriptor *d = fd_of(fd);

	if (!d)
		return errno = EBADF, -1;
	if (cmd == F_DUPFD_CLOEXEC) {
		/* Its own offset (a dup shares it): only folders are dup'ed. */
		for (int i = 0; i < MAX_FDS; i++)
			if (!fds[i].used) {
				fds[i] = *d;
				fds[i].lock = 0;
				return FD_BASE + i;
			}
		return errno = EMFILE, -1;
	}
	if (cmd == F_GETFL)
		return d->flags;
	if (cmd == F_SETFL) {
		d->flags = (d->flags & ~O_NONBLOCK) | (arg & O_NONBLOCK);
		return 0;
	}
	return errno = EINVAL, -1;
}

void sim_fs_drop_pid(pid_t pid)
{
	for (int i = 0; i < MAX_FDS; i++)
		if (fds[i].used && fds[i].pid == pid)
			sim_fs_close(FD_BASE + i);
}

/* Marks what the folders reach from the root; the rest is gone. */
static void mark(int dir, bool *seen)
{
	seen[dir] = true;
	for (size_t i = 0; i < inodes[dir].now.n; i++) {
		int ino = inodes[dir].now.v[i].ino;

		inodes[ino].links++;
		if (!seen[ino] && inodes[ino].is_dir)
			mark(ino, seen);
		seen[ino] = true;
	}
}

void sim_fs_power_loss(void)
{
	static bool seen[MAX_INODES];

	generation++;
	for (int i = 0; i < MAX_FDS; i++)
		fds[i].used = false;
	for (int i = 1; i < MAX_INODES; i++) {
		inode *node = &inodes[i];

		if (!node->used)
			continue;
		node->exclusive_fd = -1;
		node->shared = 0;
		/* The disk may have written it back on its own. */
		if (sim_chance(0.5)) {
			if (node->is_dir)
				entries_copy(&node->kept, &node->now);
			else
				bytes_set(&node->durable, node->data.v, node->data.len);
		}
		if (node->is_dir)
			entries_copy(&node->now, &node->kept);
		else
			bytes_set(&node->data, node->durable.v, node->durable.len);
		node->links = 0;
	}
	memset(seen, 0, sizeof(seen));
	inodes[1].links = 1;
	mark(1, seen);
	for (int i = 2; i < MAX_INODES; i++)
		if (inodes[i].used && !seen[i])
			inodes[i].used = false;
}

char *sim_fs_slurp(const char *path, size_t *out_len)
{
	int ino = lookup(AT_FDCWD, path);
	char *copy;

	if (!ino || inodes[ino].is_dir)
		return NULL;
	if (!(copy = malloc(inodes[ino].data.len + 1)))
		abort();
	if (inodes[ino].data.len)
		memcpy(copy, inodes[ino].data.v, inodes[ino].data.len);
	copy[inodes[ino].data.len] = '\0';
	if (out_len)
		*out_len = inodes[ino].data.len;
	return copy;
}

int sim_fs_mkdirs(const char *path)
{
	char copy[4096];

	snprintf(copy, sizeof(copy), "%s", path);
	for (char *p = copy + 1;; p++) {
		if (*p == '/' || !*p) {
			char c = *p;
			int ino;

			*p = '\0';
			if (sim_fs_mkdirat(AT_FDCWD, copy, 0755) != 0 && errno != EEXIST)
				return -1;
			ino = lookup(AT_FDCWD, copy);
			entries_copy(&inodes[ino].kept, &inodes[ino].now);
			entries_copy(&inodes[inodes[ino].parent].kept, &inodes[inodes[ino].parent].now);
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

void sim_fs_list(const char *dir, void (*fn)(const char *name, void *ctx), void *ctx)
{
	int ino = lookup(AT_FDCWD, dir);

	if (!ino || !inodes[ino].is_dir)
		return;
	for (size_t i = 0; i < inodes[ino].now.n; i++)
		fn(inodes[ino].now.v[i].name, ctx);
}

int sim_fs_put(const char *path, const char *data, size_t len)
{
	int fd = sim_fs_openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ino;

	if (fd < 0)
		return -1;
	sim_fs_pwrite(fd, data, len, 0);
	sim_fs_fsync(fd);
	ino = fds[fd - FD_BASE].ino;
	entries_copy(&inodes[inodes[ino].parent].kept, &inodes[inodes[ino].parent].now);
	sim_fs_close(fd);
	return 0;
}

/* A folder's listing: its names as of fdopendir (one getdents that read
 * them all), "." and ".." first as the kernel gives them. */
struct sim_dir {
	int fd;
	size_t n, at;
	char (*names)[NAME_MAX_LEN + 1];
};

void *sim_fs_fdopendir(int fd)
{
	descriptor *d = fd_of(fd);
	struct sim_dir *dir;
	inode *node;

	if (!d)
		return errno = EBADF, NULL;
	node = &inodes[d->ino];
	if (!node->is_dir)
		return errno = ENOTDIR, NULL;
	if (!(dir = calloc(1, sizeof(*dir))) ||
	    !(dir->names = calloc(node->now.n + 2, sizeof(*dir->names))))
		abort();
	dir->fd = fd;
	snprintf(dir->names[dir->n++], sizeof(dir->names[0]), ".");
	snprintf(dir->names[dir->n++], sizeof(dir->names[0]), "..");
	for (size_t i = 0; i < node->now.n; i++)
		snprintf(dir->names[dir->n++], sizeof(dir->names[0]), "%s", node->now.v[i].name);
	return dir;
}

const char *sim_fs_readdir(void *handle)
{
	struct sim_dir *dir = handle;

	return dir->at < dir->n ? dir->names[dir->at++] : NULL;
}

int sim_fs_closedir(void *handle)
{
	struct sim_dir *dir = handle;
	int rc = sim_fs_close(dir->fd);

	free(dir->names);
	free(dir);
	return rc;
}

/* No links in the tree: the path folded ("." and ".." gone), if it exists. */
char *sim_fs_realpath(const char *path)
{
	char copy[4096], out[4096] = "";
	char *save = NULL, *part;
	size_t len = 0;

	if (path[0] != '/' || strlen(path) >= sizeof(copy) || !lookup(AT_FDCWD, path))
		return errno = ENOENT, NULL;
	snprintf(copy, sizeof(copy), "%s", path);
	for (part = strtok_r(copy, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
		if (!strcmp(part, "."))
			continue;
		if (!strcmp(part, "..")) {
			while (len > 0 && out[--len] != '/')
				;
			out[len] = '\0';
			continue;
		}
		len += (size_t)snprintf(out + len, sizeof(out) - len, "/%s", part);
	}
	return strdup(len ? out : "/");
}
