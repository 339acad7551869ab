/* Journal appends and rotation under the shared lock (the archives rotation
 * leaves are listed by ac_journal_archive.c). */
#include "ac_journal.h"
#include "ac_journal_archive.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_struct_version.h"
#include "ac_file.h"
#include "ac_fs_calls.h"
#include "ac_mutation.h"
#include "ac_journal_reader.h"
#include "ac_lock.h"
#include "ac_time.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void ac_journal_options_init(ac_journal_options *opts)
{
	*opts = (ac_journal_options)AC_JOURNAL_OPTIONS_INIT;
}

int ac_journal_options_check(const ac_journal_options *opts)
{
	int rc;

	if (!opts)
		return 0;
	if ((rc = ac_struct_version_check("ac_journal_options", opts->version,
					  AC_JOURNAL_OPTIONS_VERSION, "AC_JOURNAL_OPTIONS_INIT")))
		return rc;
	return ac_struct_version_check("ac_journal_options' ac_lock_options", opts->lock.version,
				       AC_LOCK_OPTIONS_VERSION, "AC_LOCK_OPTIONS_INIT");
}

static char *lock_path_of(const char *path)
{
	size_t len = strlen(path);
	char *lock_path = malloc(len + sizeof(".lock"));

	if (lock_path) {
		memcpy(lock_path, path, len);
		memcpy(lock_path + len, ".lock", sizeof(".lock"));
	}
	return lock_path;
}

/* Rotates with the lock already held. */
static int rotate_locked(char **out_rotated_path, const char *path)
{
	char *dir = NULL, *stem = NULL, stamp[21];
	ac_buf target = AC_BUF_INIT;
	int rc, fd;

	if ((rc = ac_journal_split_path(&dir, &stem, path)))
		return rc;
	/* link() never replaces an existing file; on a clash the stamp moves
	 * on by a millisecond, so names stay unique and sort in time order. */
	for (int64_t ms = ac_time_now_ms(), attempt = 0;; ms++, attempt++) {
		ac_time_format_file(stamp, ms);
		ac_buf_clear(&target);
		if ((rc = ac_buf_printf(&target, "%s/%s-%s.jsonl", dir, stem, stamp)))
			goto done;
		if (ac_fs_link(path, target.data) == 0)
			break;
		if (errno == EEXIST && attempt < 1000)
			continue;
		rc = ac_error_errno(errno, "%s: cannot rotate to %s", path, target.data);
		goto done;
	}
	if (ac_fs_unlink(path) != 0) {
		rc = ac_error_errno(errno, "%s: cannot remove after rotation", path);
		ac_fs_unlink(target.data);
		goto done;
	}
	fd = ac_fs_open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd >= 0)
		ac_fs_close(fd);
	/* The new name and the fresh journal on disk before the rotation is
	 * reported done. */
	rc = ac_file_sync_folder_of(path);
	if (rc == 0 && out_rotated_path)
		*out_rotated_path = ac_buf_detach(&target);
done:
	ac_buf_free(&target);
	free(dir);
	free(stem);
	return rc;
}

/* Ends a torn last line left by a writer that died holding the lock: run
 * while its stale lock still keeps every other writer out, so nobody can
 * append onto the fragment between the lock's breaking and our turn. */
static void end_torn_line(void *ctx)
{
	const char *path = ctx;
	struct stat st;
	char last = '\n';
	int fd;

	if (AC_MUTATION("journal_no_torn_repair") ||
	    ac_file_open_regular(&fd, AT_FDCWD, path, O_RDWR | O_APPEND | O_NOFOLLOW, 0, path))
		return;
	if (ac_fs_fstat(fd, &st) == 0 && st.st_size > 0 &&
	    ac_fs_pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n' &&
	    ac_fs_write(fd, "\n", 1) != 1) {
		/* Nothing more to do: the next append repairs it itself. */
	}
	ac_fs_close(fd);
}

/* Refuses a record that would not make one line the readers accept. */
static int check_record(const char *path, const char *record, size_t len)
{
	if (memchr(record, '\n', len))
		return ac_error_set(AC_EINVAL, "%s: a record must be one line", path);
	if (len >= AC_JOURNAL_MAX_LINE)
		return ac_error_set(AC_EINVAL,
				    "%s: a record of %zu bytes is over the line limit of %u bytes "
				    "(" AC_JOURNAL_MAX_LINE_TEXT ", newline included)",
				    path, len + 1, AC_JOURNAL_MAX_LINE);
	return 0;
}

/* One append, under the lock. */
typedef struct {
	const char *path;
	const char *record;
	size_t len;
	const ac_journal_options *opts;
	int fd;                      /* the journal, open for appending; -1 */
	struct stat st;              /* the journal before this append */
	char *line;                  /* what is written: ['\n'] record '\n' */
	size_t total;                /* its length */
	ac_journal_append_info info; /* for the caller */
} append_job;

/* Opens the journal (creating it) and notes its size. */
static int open_journal(append_job *a)
{
	int rc;

	if ((rc = ac_file_open_regular(&a->fd, AT_FDCWD, a->path,
					O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW, 0644, a->path)))
		return rc;
	if (ac_fs_fstat(a->fd, &a->st) != 0)
		return ac_error_errno(errno, "%s: cannot open", a->path);
	return 0;
}

/* year * 12 + month - 1 of a UTC time in seconds. */
static int month_index_of(time_t seconds)
{
	struct tm tm;

	gmtime_r(&seconds, &tm);
	return (tm.tm_year + 1900) * 12 + tm.tm_mon;
}

/* The month the journal was started in: its first line's "timestamp"
 * (read from the first 64 KiB only), else its last write. */
static int journal_month_index(const append_job *a)
{
	static const char key[] = "\"timestamp\":\"";
	char head[65536];
	ssize_t n = ac_fs_pread(a->fd, head, sizeof(head), 0);
	const char *end, *at;

	if (n > 0) {
		end = memchr(head, '\n', (size_t)n);
		end = end ? end : head + n;
		at = memmem(head, (size_t)(end - head), key, sizeof(key) - 1);
		if (at && end - (at + sizeof(key) - 1) >= 7) {
			const char *t = at + sizeof(key) - 1;
			int year = 0, month = 0;

			for (int i = 0; i < 4 && t[i] >= '0' && t[i] <= '9'; i++)
				year = year * 10 + (t[i] - '0');
			if (t[4] == '-' && t[5] >= '0' && t[5] <= '1' && t[6] >= '0' && t[6] <= '9')
				month = (t[5] - '0') * 10 + (t[6] - '0');
			if (year >= 1000 && month >= 1 && month <= 12)
				return year * 12 + month - 1;
		}
	}
	return month_index_of(a->st.st_mtim.tv_sec);
}

/* Rotates first when the record would take the journal past rotate_bytes,
 * or (monthly) when the journal was started in an earlier month; an empty
 * journal is never rotated, however long the record. */
static int rotate_if_due(append_job *a)
{
	bool by_size, by_month;
	int rc;

	if (a->st.st_size <= 0)
		return 0;
	by_size = a->opts->rotate_bytes &&
		  (uint64_t)a->st.st_size + a->len + 1 > a->opts->rotate_bytes;
	by_month = a->opts->rotate_monthly &&
		   journal_month_index(a) < month_index_of((time_t)(ac_time_now_ms() / 1000));
	if (!by_size && !by_month)
		return 0;
	a->info.rotated_by = by_month ? "journal.rotate monthly" : "journal.rotateBytes";
	ac_fs_close(a->fd);
	a->fd = -1;
	if ((rc = rotate_locked(&a->info.rotated_to, a->path)))
		return rc;
	return open_journal(a);
}

/* Fills a->line: a '\n' first when the journal ends in a torn line, then
 * the record and its newline; info->offset is where the record will start. */
static int compose_line(append_job *a)
{
	char last = '\n';

	/* pread ignores O_APPEND: the same descriptor reads the last byte. */
	if (a->st.st_size > 0 && ac_fs_pread(a->fd, &last, 1, a->st.st_size - 1) != 1)
		return ac_error_errno(errno, "%s: cannot read its last byte", a->path);
	a->total = 0;
	if (last != '\n' && !AC_MUTATION("journal_no_torn_repair")) {
		a->line[a->total++] = '\n';
		a->info.repaired_torn_tail = true;
	}
	memcpy(a->line + a->total, a->record, a->len);
	a->total += a->len;
	a->line[a->total++] = '\n';
	a->info.offset = (uint64_t)a->st.st_size + (a->info.repaired_torn_tail ? 1 : 0);
	return 0;
}

/* Writes a->line whole, or cuts the journal back to where it ended. */
static int write_line(const append_job *a)
{
	ssize_t written, more;
	int err;

	do {
		written = ac_fs_write(a->fd, a->line, a->total);
	} while (written < 0 && errno == EINTR);
	if (written == (ssize_t)a->total)
		return 0;
	err = written < 0 ? errno : 0;
	/* A short write says nothing of why: one more try at the rest either
	 * finishes the record (we still hold the lock) or fails with the real
	 * reason (ENOSPC, EFBIG, EDQUOT...). */
	if (written > 0) {
		more = ac_fs_write(a->fd, a->line + written, a->total - (size_t)written);
		if (more == (ssize_t)(a->total - (size_t)written))
			return 0;
		err = more < 0 ? errno : ENOSPC;
	}
	/* We hold the lock, so nobody wrote after us: cut back to where the
	 * journal ended, leaving no torn record of our own. */
	if (written > 0 && ac_fs_ftruncate(a->fd, a->st.st_size) != 0)
		err = errno;
	return ac_error_errno(err, "%s: cannot append", a->path);
}

static int sync_if_asked(const append_job *a)
{
	if (a->opts->fsync != AC_FSYNC_ALWAYS || AC_MUTATION("journal_no_fsync"))
		return 0;
	if (ac_fs_fsync(a->fd) != 0)
		return ac_error_errno(errno, "%s: fdatasync", a->path);
	/* The journal's name is durable only once its folder is synced, and
	 * another writer (journal.js never syncs) may have created it a
	 * moment ago: synced every time, not only when we created it (the
	 * simulator lost an acknowledged event to a power cut that way; a
	 * folder with nothing new to write syncs at once). */
	return ac_file_sync_folder_of(a->path);
}

/* Where the torn line began, for the caller's report (rare: only on a
 * repair). Bounded: a torn line longer than the limit is not traced back
 * to its start while we hold the lock. */
static void trace_torn_line(append_job *a)
{
	int rc;

	if (!a->info.repaired_torn_tail)
		return;
	rc = ac_journal_line_start(&a->info.torn_offset, a->path, (uint64_t)a->st.st_size);
	if (rc == AC_ECORRUPT)
		a->info.torn_overlong = true;
	else if (rc)
		a->info.torn_offset = 0;
}

int ac_journal_append(ac_journal_append_info *out, const char *path,
		      const char *record, size_t len, const ac_journal_options *opts)
{
	ac_journal_options defaults;
	ac_lock_options lock_opts;
	ac_lock lock = {.fd = -1, .guard_fd = -1};
	append_job a = {.path = path, .record = record, .len = len, .fd = -1};
	char *lock_path = NULL;
	int rc;

	if (!opts) {
		ac_journal_options_init(&defaults);
		opts = &defaults;
	}
	a.opts = opts;
	if ((rc = ac_journal_options_check(opts)) || (rc = check_record(path, record, len)))
		return rc;
	if (!(lock_path = lock_path_of(path)) || !(a.line = malloc(len + 2))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	lock_opts = opts->lock;
	lock_opts.before_break = end_torn_line;
	lock_opts.before_break_ctx = (void *)path;
	if ((rc = ac_lock_acquire(&lock, lock_path, &lock_opts)) || (rc = open_journal(&a)) ||
	    (rc = rotate_if_due(&a)) || (rc = compose_line(&a)) || (rc = write_line(&a)) ||
	    (rc = sync_if_asked(&a)))
		goto done;
	trace_torn_line(&a);
	if (out) {
		*out = a.info;
		a.info.rotated_to = NULL;
	}
done:
	if (a.fd >= 0)
		ac_fs_close(a.fd);
	ac_lock_release(&lock);
	free(a.info.rotated_to);
	free(lock_path);
	free(a.line);
	return rc;
}

int ac_journal_rotate(char **out_rotated_path, const char *path,
		      const ac_journal_options *opts)
{
	ac_journal_options defaults;
	ac_lock lock = {.fd = -1, .guard_fd = -1};
	char *lock_path = lock_path_of(path);
	struct stat st;
	int rc;

	if (!opts) {
		ac_journal_options_init(&defaults);
		opts = &defaults;
	}
	if (!lock_path)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_journal_options_check(opts)))
		goto done;
	if ((rc = ac_lock_acquire(&lock, lock_path, &opts->lock)))
		goto done;
	if (ac_fs_lstat(path, &st) != 0) {
		rc = ac_error_errno(errno, "%s: cannot rotate", path);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = ac_error_set(AC_EINVAL, "%s: not a regular file", path);
		goto done;
	}
	rc = rotate_locked(out_rotated_path, path);
done:
	ac_lock_release(&lock);
	free(lock_path);
	return rc;
}
