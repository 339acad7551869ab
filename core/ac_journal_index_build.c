/* Building the journal index: the journal read forward from where the
 * index ends, cut into blocks at line ends, each summarised. Only complete
 * blocks are kept; the rest is the unindexed tail a later reader indexes. */
#include "ac_journal_index.h"

#include "ac_error.h"
#include "ac_journal_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The hash of the block's last bytes, read back from the file: what a
 * reader checks, with one small pread, before it skips the block. */
static int tail_hash(uint64_t *out, int fd, const ac_jidx_entry *e)
{
	char tail[AC_JIDX_TAIL_BYTES];
	size_t k = e->length < AC_JIDX_TAIL_BYTES ? (size_t)e->length : AC_JIDX_TAIL_BYTES;

	if (pread(fd, tail, k, (off_t)(e->offset + e->length - k)) != (ssize_t)k)
		return ac_error_errno(errno ? errno : EIO, "cannot read the journal");
	*out = ac_jidx_hash(0, tail, k);
	return 0;
}

int ac_journal_index_extend(ac_journal_index *idx, int fd, const char *path,
			    const struct stat *st, const ac_event_schema *schema)
{
	ac_jidx_summary *s = malloc(sizeof(*s));
	ac_journal_reader *reader = NULL;
	ac_journal_block block;
	size_t before = idx->n;
	uint64_t number = 1;
	bool started = false;
	struct stat now;
	int rc;

	if (!s)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (idx->n)
		number = idx->entries[idx->n - 1].first_line + idx->entries[idx->n - 1].nlines;
	if ((rc = ac_jidx_summary_init(s, schema)) ||
	    (rc = ac_journal_reader_open(&reader, path, idx->covered, (uint64_t)st->st_size, number)))
		goto done;
	while ((rc = ac_journal_reader_next_block(reader, &block)) == 1) {
		const char *p = block.data, *end = block.data + block.len;

		/* A line past the readers' limit: the index stops before it, and
		 * the rest is read by every query. */
		if (block.overlong)
			break;
		number = block.first_number;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			uint64_t at = block.offset + (uint64_t)(p - block.data);

			if (!started) {
				ac_jidx_summary_start(s, at, number);
				started = true;
			}
			ac_jidx_summary_add(s, p, (size_t)(nl - p));
			number++;
			p = nl + 1;
			at = block.offset + (uint64_t)(p - block.data);
			if (at - s->e.offset < AC_JIDX_BLOCK_BYTES && !ac_jidx_summary_full(s))
				continue;
			s->e.length = at - s->e.offset;
			if ((rc = tail_hash(&s->e.tail_hash, fd, &s->e)) || (rc = ac_jidx_keep(idx, &s->e)))
				goto done;
			started = false;
		}
	}
	/* The reader opened path by name: if that is no longer the file fd
	 * holds (rotated meanwhile), the summaries may be of another: none. */
	if (rc == 0 && (stat(path, &now) != 0 || now.st_ino != st->st_ino || now.st_dev != st->st_dev))
		rc = ac_error_set(AC_ECONFLICT, "%s: replaced while indexed", path);
done:
	if (rc < 0 && idx->n > before) {
		idx->n = before;
		idx->covered = before ? idx->entries[before - 1].offset + idx->entries[before - 1].length
				      : 0;
	}
	ac_journal_reader_free(reader);
	free(s);
	return rc < 0 ? rc : 0;
}
