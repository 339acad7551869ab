/* Reading the journal by byte offset: forward in blocks of whole lines from
 * any line start, and backward to find where the last lines begin.
 *
 * Only complete lines (ending in '\n') are ever delivered: bytes after the
 * last newline are a torn line or a write still in progress, reported by
 * ac_journal_reader_tail() and never glued to what comes next. A watcher
 * resumes from ac_journal_reader_offset() and so reads only new bytes. This
 * module does not parse JSON (see ac_event.h). */
#ifndef AC_JOURNAL_READER_H
#define AC_JOURNAL_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest line, its newline included, of every JSON Lines file here
 * (journal, rotated journals, operation log, backend logs): the writer
 * (ac_journal_append()) refuses a longer record, and readers deliver every
 * line up to this length whole and report a longer one as overlong rather
 * than hold it. One limit, so whatever was acknowledged can be read. */
#define AC_JOURNAL_MAX_LINE (64u << 20)
#define AC_JOURNAL_MAX_LINE_TEXT "64 MiB"

typedef struct ac_journal_reader ac_journal_reader;

/* One or more complete lines, each ending in '\n'. Borrowed from the
 * reader until its next call. */
typedef struct {
	const char *data;
	size_t len;
	uint64_t offset;       /* file offset of data[0] */
	uint64_t first_number; /* line number of the first line */
	bool overlong;         /* data is one over-long line (text of AC_JOURNAL_MAX_LINE
				* bytes or more), or its start when its end is not read */
} ac_journal_block;

/* One line without its '\n'; borrowed until the reader's next call. */
typedef struct {
	const char *text;
	size_t len;
	uint64_t offset;
	uint64_t number;
	bool overlong;
} ac_journal_line;

/* Opens path for reading the bytes [offset, end) (end UINT64_MAX: to the
 * end of the file, as it grows). offset must be a line start; first_number
 * is that line's number (1 at offset 0). Caller frees with
 * ac_journal_reader_free(). AC_ENOTFOUND when the file does not exist. */
int ac_journal_reader_open(ac_journal_reader **out, const char *path,
			   uint64_t offset, uint64_t end, uint64_t first_number);

/* The next block of whole lines. Returns 1 with *out filled, 0 at the end
 * of the complete lines, or a negative AC_E* code. */
int ac_journal_reader_next_block(ac_journal_reader *r, ac_journal_block *out);

/* The next line. Returns 1, 0 at the end, or a negative code. Do not mix
 * with ac_journal_reader_next_block() on one reader. */
int ac_journal_reader_next(ac_journal_reader *r, ac_journal_line *out);

/* The offset just after the last complete line delivered: where to resume. */
uint64_t ac_journal_reader_offset(const ac_journal_reader *r);

/* The line number the next line will have. */
uint64_t ac_journal_reader_number(const ac_journal_reader *r);

/* After the end was reached: the bytes past the last newline (a torn line
 * or one being written), *out_offset where they start. 0 when none. */
uint64_t ac_journal_reader_tail(const ac_journal_reader *r, uint64_t *out_offset);

void ac_journal_reader_free(ac_journal_reader *r);

/* The offset just after the file's last newline (0 when it has none):
 * where the complete lines end. *out_size receives the file's size. The
 * search reads back at most AC_JOURNAL_MAX_LINE bytes (holes of a sparse
 * file are stepped over unread): when the last newline is further back,
 * *out_end is where it stopped, inside an unterminated line longer than
 * the limit. */
int ac_journal_complete_end(uint64_t *out_end, uint64_t *out_size, const char *path);

/* The start of the line that holds byte pos - 1 (the line start at or
 * before pos), searching backward; pos itself when pos is 0 or follows a
 * newline. Cost: the length of that one line, at most AC_JOURNAL_MAX_LINE
 * bytes read: for a longer line, AC_ECORRUPT (naming the limit) with *out
 * where the search stopped, which is not a line start. */
int ac_journal_line_start(uint64_t *out, const char *path, uint64_t pos);

#endif
