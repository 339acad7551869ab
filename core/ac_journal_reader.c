/* Buffered line reading of the journal by byte offset. */
#include "ac_journal_reader.h"

#include "ac_error.h"
#include "ac_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_CHUNK (1u << 20)

struct ac_journal_reader {
	char *path;
	int fd;
	char *buf;
	size_t cap, start, filled; /* unread bytes are buf[start..filled) */
	uint64_t buf_offset;       /* file offset of buf[0] */
	uint64_t end;              /* stop reading here */
	uint64_t number;           /* line number of buf[start] */
	bool eof;
	bool skipping;             /* inside an over-long line, dropping to its end */
	/* the current block, for line-by-line reading */
	ac_journal_block block;
	size_t block_pos;
	bool have_block;
};

int ac_journal_reader_open(ac_journal_reader **out, const char *path,
			   uint64_t offset, uint64_t end, uint64_t first_number)
{
	ac_journal_reader *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return ac_error_set(AC_ENOMEM, "out of memory");
	r->fd = -1;
	r->path = strdup(path);
	r->cap = READ_CHUNK;
	r->buf = malloc(r->cap);
	if (!r->path || !r->buf) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto fail;
	}
	if ((rc = ac_file_open_regular(&r->fd, AT_FDCWD, path, O_RDONLY, 0, path)))
		goto fail;
	posix_fadvise(r->fd, (off_t)offset, 0, POSIX_FADV_SEQUENTIAL);
	r->buf_offset = offset;
	r->end = end;
	r->number = first_number;
	*out = r;
	return 0;
fail:
	ac_journal_reader_free(r);
	return rc;
}

void ac_journal_reader_free(ac_journal_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	free(r->path);
	free(r);
}

/* Reads more bytes after buf[filled], first moving unread bytes to the
 * front and growing the buffer when a single line fills it. Returns bytes
 * read (0 at the end) or a negative code. */
static ssize_t fill(ac_journal_reader *r)
{
	uint64_t file_pos;
	size_t want;
	ssize_t n;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->filled - r->start);
		r->buf_offset += r->start;
		r->filled -= r->start;
		r->start = 0;
	}
	if (r->cap - r->filled < READ_CHUNK / 4 && r->cap < AC_JOURNAL_MAX_LINE + READ_CHUNK) {
		size_t cap = r->cap * 2 < AC_JOURNAL_MAX_LINE + READ_CHUNK
				     ? r->cap * 2 : AC_JOURNAL_MAX_LINE + READ_CHUNK;
		char *grown = realloc(r->buf, cap);

		if (!grown)
			return ac_error_set(AC_ENOMEM, "out of memory reading %s", r->path);
		r->buf = grown;
		r->cap = cap;
	}
	file_pos = r->buf_offset + r->filled;
	if (r->skipping && r->filled == 0 && file_pos < r->end) {
		/* Dropping an over-long line: a hole of a sparse file holds no
		 * newline, so step over it rather than read its zeros. */
		off_t d = lseek(r->fd, (off_t)file_pos, SEEK_DATA);

		if (d < 0 && errno == ENXIO)
			d = lseek(r->fd, 0, SEEK_END);
		if (d > 0 && (uint64_t)d > file_pos) {
			file_pos = (uint64_t)d < r->end ? (uint64_t)d : r->end;
			r->buf_offset = file_pos;
		}
	}
	if (file_pos >= r->end || r->filled == r->cap)
		return 0;
	want = r->cap - r->filled;
	if (r->end - file_pos < want)
		want = (size_t)(r->end - file_pos);
	do {
		n = pread(r->fd, r->buf + r->filled, want, (off_t)file_pos);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return ac_error_errno(errno, "%s: read at byte %llu", r->path,
				      (unsigned long long)file_pos);
	r->filled += (size_t)n;
	return n;
}

int ac_journal_reader_next_block(ac_journal_reader *r, ac_journal_block *out)
{
	for (;;) {
		size_t avail = r->filled - r->start;
		char *data = r->buf + r->start;
		char *last_nl = avail ? memrchr(data, '\n', avail) : NULL;
		ssize_t n;

		if (r->skipping && avail) {
			char *nl = memchr(data, '\n', avail);

			if (!nl) {
				r->start = r->filled;
			} else {
				r->start += (size_t)(nl - data) + 1;
				r->skipping = false;
				r->number++;
			}
			continue;
		}
		if (last_nl && !r->skipping) {
			char *line = data, *nl;

			out->data = data;
			out->offset = r->buf_offset + r->start;
			out->first_number = r->number;
			out->overlong = false;
			/* A line is over-long by its length alone, even when its
			 * newline arrived in the same read: the verdict must not
			 * depend on where reads happened to end, so that any
			 * reader (from another offset, or a piece of a parallel
			 * pass) gives the same one. */
			for (; (nl = memchr(line, '\n', (size_t)(last_nl + 1 - line))); line = nl + 1) {
				if ((size_t)(nl - line) >= AC_JOURNAL_MAX_LINE)
					break;
				r->number++;
			}
			if (line == data && nl) {
				out->len = (size_t)(nl - data);
				out->overlong = true;
				r->start += out->len + 1;
				r->number++;
				return 1;
			}
			out->len = (size_t)(line - data);
			r->start += out->len;
			return 1;
		}
		if (!r->skipping && avail >= AC_JOURNAL_MAX_LINE) {
			out->data = data;
			out->len = avail;
			out->offset = r->buf_offset + r->start;
			out->first_number = r->number;
			out->overlong = true;
			r->start = r->filled;
			r->skipping = true;
			return 1;
		}
		if (r->eof)
			return 0;
		n = fill(r);
		if (n < 0)
			return (int)n;
		if (n == 0)
			r->eof = true;
	}
}

int ac_journal_reader_next(ac_journal_reader *r, ac_journal_line *out)
{
	const char *text, *nl;

	if (!r->have_block || r->block_pos >= r->block.len) {
		int rc = ac_journal_reader_next_block(r, &r->block);

		if (rc <= 0)
			return rc;
		r->have_block = true;
		r->block_pos = 0;
		if (r->block.overlong) {
			out->text = r->block.data;
			out->len = r->block.len;
			out->offset = r->block.offset;
			out->number = r->block.first_number;
			out->overlong = true;
			r->block_pos = r->block.len;
			return 1;
		}
	}
	text = r->block.data + r->block_pos;
	nl = memchr(text, '\n', r->block.len - r->block_pos);
	out->text = text;
	out->len = (size_t)(nl - text);
	out->offset = r->block.offset + r->block_pos;
	out->number = r->block.first_number;
	out->overlong = false;
	r->block.first_number++;
	r->block_pos += out->len + 1;
	return 1;
}

uint64_t ac_journal_reader_offset(const ac_journal_reader *r)
{
	uint64_t offset = r->buf_offset + r->start;

	/* Lines handed out one by one may still sit in the current block. */
	if (r->have_block && r->block_pos < r->block.len && !r->block.overlong)
		offset = r->block.offset + r->block_pos;
	return offset;
}

uint64_t ac_journal_reader_number(const ac_journal_reader *r)
{
	if (r->have_block && r->block_pos < r->block.len && !r->block.overlong)
		return r->block.first_number;
	return r->number;
}

uint64_t ac_journal_reader_tail(const ac_journal_reader *r, uint64_t *out_offset)
{
	*out_offset = r->buf_offset + r->start;
	return r->skipping ? 0 : r->filled - r->start;
}

/* True when [from, pos) holds no data: a hole of a sparse file (zeros,
 * so no newline), or past the end. */
static bool no_data(int fd, uint64_t from, uint64_t pos)
{
	off_t d = lseek(fd, (off_t)from, SEEK_DATA);

	if (d < 0)
		return errno == ENXIO;
	return (uint64_t)d >= pos;
}

/* Where the hole that ends at pos begins (pos when byte pos - 1 is data,
 * or the file system cannot tell): a binary search, a few dozen lseeks
 * however long the hole. */
static uint64_t hole_start(int fd, uint64_t pos)
{
	uint64_t lo = 0, hi;

	if (pos == 0 || !no_data(fd, pos - 1, pos))
		return pos;
	hi = pos - 1;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (no_data(fd, mid, pos))
			hi = mid;
		else
			lo = mid + 1;
	}
	return hi;
}

/* Finds the last newline before pos, searching backward in chunks. Sets
 * *out_found and *out_pos (the newline's offset). The work is bounded by
 * one line's worth: after AC_JOURNAL_MAX_LINE bytes read without a newline
 * the search stops, *out_found is false and *out_pos is where it stopped
 * (0 only when it reached the start of the file). Holes of a sparse file
 * hold no newline and are stepped over without reading them. */
static int last_newline_before(bool *out_found, uint64_t *out_pos, int fd,
			       const char *path, uint64_t pos)
{
	char chunk[64 * 1024];
	uint64_t budget = AC_JOURNAL_MAX_LINE;

	*out_found = false;
	while (pos > 0) {
		size_t n = pos < sizeof(chunk) ? (size_t)pos : sizeof(chunk);
		uint64_t hole = hole_start(fd, pos);
		ssize_t got;
		char *nl;

		if (hole < pos) {
			pos = hole;
			continue;
		}
		if (budget == 0)
			break;
		if (n > budget)
			n = (size_t)budget;
		got = pread(fd, chunk, n, (off_t)(pos - n));
		if (got != (ssize_t)n)
			return ac_error_errno(got < 0 ? errno : EIO, "%s: read at byte %llu",
					      path, (unsigned long long)(pos - n));
		nl = memrchr(chunk, '\n', n);
		if (nl) {
			*out_found = true;
			*out_pos = pos - n + (uint64_t)(nl - chunk);
			return 0;
		}
		pos -= n;
		budget -= n;
	}
	*out_pos = pos;
	return 0;
}

int ac_journal_complete_end(uint64_t *out_end, uint64_t *out_size, const char *path)
{
	struct stat st;
	uint64_t nl_pos = 0;
	bool found;
	int fd, rc;

	if ((rc = ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY, 0, path)))
		return rc;
	if (fstat(fd, &st) != 0) {
		rc = ac_error_errno(errno, "%s", path);
		goto done;
	}
	*out_size = (uint64_t)st.st_size;
	if ((rc = last_newline_before(&found, &nl_pos, fd, path, (uint64_t)st.st_size)))
		goto done;
	/* Not found and not at the start: the search gave up inside a line
	 * longer than the limit, and nl_pos is where. */
	*out_end = found ? nl_pos + 1 : nl_pos;
done:
	close(fd);
	return rc;
}

int ac_journal_line_start(uint64_t *out, const char *path, uint64_t pos)
{
	uint64_t nl_pos = 0;
	bool found;
	int fd, rc;

	if (pos == 0) {
		*out = 0;
		return 0;
	}
	if ((rc = ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY, 0, path)))
		return rc;
	rc = last_newline_before(&found, &nl_pos, fd, path, pos);
	if (rc == 0) {
		*out = found ? nl_pos + 1 : nl_pos;
		if (!found && nl_pos > 0)
			rc = ac_error_set(AC_ECORRUPT, "%s: the line that holds byte %llu is longer "
					  "than the " AC_JOURNAL_MAX_LINE_TEXT " line limit",
					  path, (unsigned long long)(pos - 1));
	}
	close(fd);
	return rc;
}
