/* agentctl's own last write of a session file (ac_session_writes.h). */
#include "ac_session_writes.h"

#include "ac_atomic.h"
#include "ac_fs_calls.h"
#include "ac_session.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RECORD_TAG "agentctl-write 1"

typedef struct {
	ac_file_id file;
	int64_t foreign_ms;
} own_write;

/* Opens <dir>/.locks/<id>.lock (made with flags & O_CREAT), never through
 * a symbolic link; -1 when it cannot be. */
static int open_record(const char *dir, const char *id, int flags)
{
	char name[AC_SESSION_ID_MAX + sizeof(".lock")];
	int dir_fd, locks_fd = -1, fd = -1;

	if (ac_session_id_check(id))
		return -1;
	snprintf(name, sizeof(name), "%s.lock", id);
	if ((dir_fd = ac_fs_open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)) < 0)
		return -1;
	if ((flags & O_CREAT) && ac_fs_mkdirat(dir_fd, ".locks", 0755) != 0 && errno != EEXIST)
		goto done;
	if ((locks_fd = ac_fs_openat(dir_fd, ".locks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0)) < 0)
		goto done;
	fd = ac_fs_openat(locks_fd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd >= 0) {
		struct stat st;

		/* A FIFO or a device planted there is not read or written. */
		if (ac_fs_fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			ac_fs_close(fd);
			fd = -1;
		}
	}
done:
	if (locks_fd >= 0)
		ac_fs_close(locks_fd);
	ac_fs_close(dir_fd);
	return fd;
}

/* The record, when there is one that reads whole. */
static bool read_record(own_write *out, const char *dir, const char *id)
{
	char text[160];
	intmax_t dev, ino, size, mtime_ns, foreign_ms;
	ssize_t n;
	int fd = open_record(dir, id, O_RDONLY);

	if (fd < 0)
		return false;
	n = ac_fs_pread(fd, text, sizeof(text) - 1, 0);
	ac_fs_close(fd);
	if (n <= 0)
		return false;
	text[n] = '\0';
	if (sscanf(text, RECORD_TAG " %jd %jd %jd %jd %jd\n", &dev, &ino, &size, &mtime_ns,
		   &foreign_ms) != 5 || !strchr(text, '\n'))
		return false;
	out->file = (ac_file_id){.dev = (dev_t)dev, .ino = (ino_t)ino, .size = (off_t)size,
				 .mtime_ns = (int64_t)mtime_ns};
	out->foreign_ms = (int64_t)foreign_ms;
	return true;
}

int64_t ac_session_foreign_write_ms(const char *dir, const char *id, const ac_file_id *now)
{
	own_write last;

	if (read_record(&last, dir, id) && ac_file_id_equal(&last.file, now))
		return last.foreign_ms;
	return now->mtime_ns / 1000000;
}

void ac_session_note_own_write(const char *dir, const char *id, const ac_file_id *replaced,
			       const ac_file_id *written)
{
	char text[160];
	int64_t foreign_ms = replaced ? ac_session_foreign_write_ms(dir, id, replaced) : 0;
	int len, fd;

	len = snprintf(text, sizeof(text), RECORD_TAG " %jd %jd %jd %jd %jd\n",
		       (intmax_t)written->dev, (intmax_t)written->ino, (intmax_t)written->size,
		       (intmax_t)written->mtime_ns, (intmax_t)foreign_ms);
	if (len <= 0 || (size_t)len >= sizeof(text) ||
	    (fd = open_record(dir, id, O_WRONLY | O_CREAT)) < 0)
		return;
	/* Shorter than a page: one write; readers take the same folder lock. */
	if (ac_fs_pwrite(fd, text, (size_t)len, 0) != len || ac_fs_ftruncate(fd, len) != 0)
		(void)ac_fs_ftruncate(fd, 0);
	ac_fs_close(fd);
}
