/* The rows file itself: where it is, reading it whole, opening it under
 * its lock, appending whole rows (shared with recording a turn,
 * ac_turn_usage.c); and adding rows a copy brought (agentctl storage
 * migrate) as they are: the copy keeps turn numbers and timestamps, so
 * unlike recording a turn nothing is numbered or stamped here. The same
 * lock as ac_turn_usage_record() takes, so a turn recorded meanwhile and a
 * copied row never share a number: the second one sees the first and is
 * refused. */
#include "ac_turn_usage_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the rows file ---- */

/* The rows file, read whole at each load: a million turns fit. */
#define ROWS_FILE_MAX (512u * 1024 * 1024)

int ac_turn_usage_rows_path(char **out, const char *sessions_dir, const char *id, bool make_dir)
{
	ac_buf path = AC_BUF_INIT;
	struct stat st;
	int rc = 0;

	ac_buf_printf(&path, "%s/.usage", sessions_dir);
	if (make_dir && (rc = ac_file_mkdirs(path.data)))
		goto done;
	/* The folder is the workspace's, written by anyone: a link there
	 * would lead every row written (and read) outside it. */
	if (path.data && lstat(path.data, &st) == 0 && !S_ISDIR(st.st_mode)) {
		rc = ac_error_set(AC_ECORRUPT, "%s: %s: per-turn usage is not read or written "
				  "through it", path.data, S_ISLNK(st.st_mode) ? "is a symbolic link"
				  : "not a folder");
		goto done;
	}
	ac_buf_printf(&path, "/%s.jsonl", id);
	if (!path.data) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	*out = path.data;
	path.data = NULL;
done:
	ac_buf_free(&path);
	return rc;
}

int ac_turn_usage_read_all(char **out, size_t *out_len, int fd, const char *path)
{
	struct stat st;
	char *text;
	size_t got = 0;

	if (fstat(fd, &st) != 0)
		return ac_error_errno(errno, "%s", path);
	/* Read whole, so bounded: a sparse file of terabytes is not a
	 * session's rows, and would be read (or fail to allocate) every time. */
	if ((uint64_t)st.st_size > ROWS_FILE_MAX)
		return ac_error_set(AC_ECORRUPT, "%s: larger than %u MB: not per-turn usage rows",
				    path, ROWS_FILE_MAX >> 20);
	if (!(text = malloc((size_t)st.st_size + 1)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, text + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(text);
			return ac_error_errno(errno, "reading %s", path);
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	text[got] = '\0';
	*out = text;
	*out_len = got;
	return 0;
}

int ac_turn_usage_open_rows(int *out_fd, char **out_path, size_t *out_complete, json_t *rows,
			    const char *sessions_dir, const char *id)
{
	char *path = NULL, *text = NULL;
	size_t len = 0, complete = 0;
	int fd = -1, rc;

	if ((rc = ac_turn_usage_rows_path(&path, sessions_dir, id, true)) ||
	    (rc = ac_file_open_regular(&fd, AT_FDCWD, path,
				       O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW, 0644, path)))
		goto done;
	while (flock(fd, LOCK_EX) != 0)
		if (errno != EINTR) {
			rc = ac_error_errno(errno, "locking %s", path);
			goto done;
		}
	if ((rc = ac_turn_usage_read_all(&text, &len, fd, path)) ||
	    (rc = ac_turn_usage_parse_rows(rows, &complete, text, len)))
		goto done;
	/* A torn tail is what a writer that died holding this lock left: cut
	 * it, so the next row starts a line of its own. */
	if (complete < len && ftruncate(fd, (off_t)complete) != 0) {
		rc = ac_error_errno(errno, "repairing %s", path);
		goto done;
	}
	*out_fd = fd;
	*out_path = path;
	*out_complete = complete;
	fd = -1;
	path = NULL;
done:
	if (fd >= 0)
		close(fd);
	free(path);
	free(text);
	return rc;
}

int ac_turn_usage_append_lines(int fd, const char *path, const ac_buf *lines, size_t complete)
{
	size_t done_len = 0;

	while (done_len < lines->len) {
		ssize_t n = write(fd, lines->data + done_len, lines->len - done_len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done_len += (size_t)n;
	}
	if (done_len == lines->len && fdatasync(fd) == 0)
		return 0;
	{
		int rc = ac_error_errno(errno ? errno : EIO, "writing %s", path);

		/* Cut back: the file stays whole rows, none of these. */
		if (ftruncate(fd, (off_t)complete) != 0)
			rc = ac_error_errno(errno, "writing %s (and cutting it back)", path);
		return rc;
	}
}

/* ---- rows a copy brought ---- */

static json_int_t turn_of(const json_t *row)
{
	return json_integer_value(json_object_get(row, "turn"));
}

static int by_value(const void *a, const void *b)
{
	json_int_t x = *(const json_int_t *)a, y = *(const json_int_t *)b;

	return (x > y) - (x < y);
}

static bool has_turn(const json_t *rows, json_int_t turn)
{
	size_t i;
	const json_t *row;

	json_array_foreach(rows, i, row)
		if (turn_of(row) == turn)
			return true;
	return false;
}

/* AC_ECONFLICT when a row of rows has a turn that have has, or that
 * another row of rows has: each side's turns sorted once. */
static int refuse_taken(const json_t *have, const json_t *rows, const char *id)
{
	size_t n = json_array_size(have), m = json_array_size(rows), i;
	json_int_t *turns = malloc((n + m + 1) * sizeof(*turns)), *given = turns + n;
	int rc = 0;

	if (!turns)
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		turns[i] = turn_of(json_array_get(have, i));
	for (i = 0; i < m; i++)
		given[i] = turn_of(json_array_get(rows, i));
	qsort(turns, n, sizeof(*turns), by_value);
	qsort(given, m, sizeof(*given), by_value);
	for (i = 0; i < m && !rc; i++) {
		if (bsearch(&given[i], turns, n, sizeof(*turns), by_value))
			rc = ac_error_set(AC_ECONFLICT, "session %s: usage row turn %lld is there "
					  "already", id, (long long)given[i]);
		else if (i && given[i] == given[i - 1])
			rc = ac_error_set(AC_ECONFLICT, "session %s: usage row turn %lld given twice",
					  id, (long long)given[i]);
	}
	free(turns);
	return rc;
}

/* The lines for rows, each checked as a row and as one line's size. */
static int lines_of(ac_buf *out, const json_t *rows, const char *id)
{
	size_t i;
	const json_t *row;

	json_array_foreach(rows, i, row) {
		char *line;

		if (!ac_turn_usage_is_row(row))
			return ac_error_set(AC_EINVAL, "session %s: usage row %zu is not a row (a turn "
					    "number from 1 and a Usage whose counts check)",
					    id, i + 1);
		if (!(line = json_dumps(row, JSON_COMPACT | JSON_PRESERVE_ORDER)))
			return ac_error_set(AC_ENOMEM, "out of memory");
		if (strlen(line) >= AC_TURN_USAGE_ROW_MAX) {
			free(line);
			return ac_error_set(AC_EINVAL, "session %s: usage row turn %lld is over %d bytes",
					    id, (long long)turn_of(row), AC_TURN_USAGE_ROW_MAX);
		}
		if (ac_buf_printf(out, "%s\n", line)) {
			free(line);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		free(line);
	}
	return 0;
}

int ac_turn_usage_put_rows(const char *sessions_dir, const char *id, const json_t *legacy,
			   const json_t *rows)
{
	char *path = NULL;
	size_t complete = 0;
	json_t *have = json_array(), *carried, *all = NULL;
	ac_buf lines = AC_BUF_INIT;
	int fd = -1, rc;

	if (!have) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = ac_session_id_check(id)))
		goto done;
	if (!json_is_array(rows)) {
		rc = ac_error_set(AC_EINVAL, "session %s: usage rows: not an array", id);
		goto done;
	}
	if (json_array_size(rows) == 0 || (rc = lines_of(&lines, rows, id)))
		goto done;
	if ((rc = ac_turn_usage_open_rows(&fd, &path, &complete, have, sessions_dir, id)))
		goto done;
	/* No row yet: the totals from before rows were kept go first, unless
	 * the copy brings that row itself. */
	carried = json_array_size(have) == 0 ? ac_turn_usage_carried_row(legacy) : NULL;
	if (carried && has_turn(rows, turn_of(carried))) {
		json_decref(carried);
		carried = NULL;
	}
	if (carried) {
		ac_buf_clear(&lines);
		if (json_array_append_new(have, carried) || !(all = json_array()) ||
		    json_array_append(all, carried) || json_array_extend(all, (json_t *)rows)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		if ((rc = lines_of(&lines, all, id)))
			goto done;
	}
	if ((rc = refuse_taken(have, rows, id)))
		goto done;
	rc = ac_turn_usage_append_lines(fd, path, &lines, complete);
done:
	if (fd >= 0)
		close(fd);
	json_decref(have);
	json_decref(all);
	ac_buf_free(&lines);
	free(path);
	return rc;
}
