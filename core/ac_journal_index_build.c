/* Building the journal index: the journal read forward from where the
 * index ends, cut into blocks at line ends, each summarised. Only complete
 * blocks are kept; the rest is the unindexed tail a later reader indexes.
 * A first build of a large journal runs on every core, a block per piece
 * of the parallel pass (ac_journal_split.h). */
#include "ac_journal_index.h"

#include "ac_error.h"
#include "ac_journal_reader.h"
#include "ac_journal_split.h"

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
	*out = ac_hash64(0, tail, k);
	return 0;
}

/* The content hash of e's bytes, read back from the file (a block read
 * line by line may span several of the reader's). */
static int read_content_hash(uint64_t *out, int fd, const ac_jidx_entry *e)
{
	char *bytes;

	*out = 0;
	if (e->flags & AC_JIDX_ALWAYS)
		return 0;
	if (!(bytes = malloc((size_t)e->length)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (pread(fd, bytes, (size_t)e->length, (off_t)e->offset) == (ssize_t)e->length)
		*out = ac_jidx_content_hash(e, bytes);
	free(bytes);
	return 0;
}

/* ---- the first build on every core ---- */

/* Ends s's block at the end of line bytes data[0..at) of block into out. */
static int put_entry(ac_buf *out, ac_jidx_summary *s, const ac_journal_block *block, size_t at)
{
	size_t k;

	s->e.length = block->offset + at - s->e.offset;
	k = s->e.length < AC_JIDX_TAIL_BYTES ? (size_t)s->e.length : AC_JIDX_TAIL_BYTES;
	s->e.tail_hash = ac_hash64(0, block->data + at - k, k);
	s->e.content_hash = ac_jidx_content_hash(&s->e, block->data + (s->e.offset - block->offset));
	return ac_buf_append(out, (const char *)&s->e, sizeof(s->e)) ? AC_ENOMEM : 0;
}

/* A worker: the piece's lines into entries (line numbers counted from 0
 * within the piece; deliver_entries makes them the file's), each ending
 * where a block would, and at the piece's end. An over-long line is an
 * entry of length 0: the index stops there. */
static int summarise_piece(ac_split_output *out, const ac_journal_block *block, void *worker)
{
	ac_jidx_summary *s = worker;
	const char *p = block->data, *end = block->data + block->len;
	bool started = false;
	int rc;

	if (block->overlong) {
		ac_jidx_summary_start(s, block->offset, 0);
		return ac_buf_append(&out->out, (const char *)&s->e, sizeof(s->e)) ? AC_ENOMEM : 0;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!started) {
			ac_jidx_summary_start(s, block->offset + (uint64_t)(p - block->data), out->lines);
			started = true;
		}
		ac_jidx_summary_add(s, p, (size_t)(nl - p));
		out->lines++;
		p = nl + 1;
		if (p == end || block->offset + (uint64_t)(p - block->data) - s->e.offset >=
					AC_JIDX_BLOCK_BYTES || ac_jidx_summary_full(s)) {
			if ((rc = put_entry(&out->out, s, block, (size_t)(p - block->data))))
				return rc;
			started = false;
		}
	}
	return 0;
}

typedef struct {
	ac_journal_index *idx;
	bool stopped; /* an over-long line was met: nothing after it */
} delivery;

static int deliver_entries(const ac_split_output *out, bool done, uint64_t first_number,
			   void *ctx)
{
	delivery *d = ctx;
	ac_jidx_entry e;
	int rc;

	(void)done;
	for (size_t at = 0; !d->stopped && at + sizeof(e) <= out->out.len; at += sizeof(e)) {
		memcpy(&e, out->out.data + at, sizeof(e));
		if (e.length == 0) {
			d->stopped = true;
			break;
		}
		e.first_line += first_number;
		if ((rc = ac_jidx_keep(d->idx, &e)))
			return rc;
	}
	return 0;
}

/* The whole of path's complete lines on nthreads threads; *out_done
 * false when no thread could start (nothing done). */
static int build_parallel(bool *out_done, ac_journal_index *idx, const char *path, uint64_t end,
			  size_t nthreads, const ac_event_schema *schema)
{
	ac_jidx_summary *workers = calloc(nthreads, sizeof(*workers));
	void **contexts = calloc(nthreads, sizeof(*contexts));
	delivery d = {idx, false};
	int rc = 0;

	*out_done = false;
	if (!workers || !contexts) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < nthreads && rc == 0; i++) {
		rc = ac_jidx_summary_init(&workers[i], schema);
		contexts[i] = &workers[i];
	}
	if (rc == 0)
		rc = ac_split_run(out_done, path, end, nthreads, summarise_piece, contexts,
				  deliver_entries, &d);
done:
	free(workers);
	free(contexts);
	return rc;
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
		number = idx->entries[idx->n - 1]->first_line + idx->entries[idx->n - 1]->nlines;
	if ((rc = ac_jidx_summary_init(s, schema)))
		goto done;
	if (idx->covered == 0) {
		uint64_t end;
		size_t nthreads;
		bool built = false;

		if ((rc = ac_split_end(&end, path)))
			goto done;
		nthreads = ac_split_threads(end);
		if (end > 0 && nthreads > 1 &&
		    (rc = build_parallel(&built, idx, path, end, nthreads, schema)))
			goto done;
		if (built)
			goto check;
	}
	if ((rc = ac_journal_reader_open(&reader, path, idx->covered, (uint64_t)st->st_size, number)))
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
			if ((rc = tail_hash(&s->e.tail_hash, fd, &s->e)) ||
			    (rc = read_content_hash(&s->e.content_hash, fd, &s->e)) ||
			    (rc = ac_jidx_keep(idx, &s->e)))
				goto done;
			started = false;
		}
	}
check:
	/* The reader opened path by name: if that is no longer the file fd
	 * holds (rotated meanwhile), the summaries may be of another: none. */
	if (rc == 0 && (stat(path, &now) != 0 || now.st_ino != st->st_ino || now.st_dev != st->st_dev))
		rc = ac_error_set(AC_ECONFLICT, "%s: replaced while indexed", path);
done:
	if (rc < 0 && idx->n > before) {
		while (idx->n > before)
			free((void *)idx->entries[--idx->n]);
		idx->covered = before ? idx->entries[before - 1]->offset + idx->entries[before - 1]->length
				      : 0;
	}
	ac_journal_reader_free(reader);
	free(s);
	return rc < 0 ? rc : 0;
}

int ac_journal_index_update(ac_journal_index *idx, int fd, const char *path, const char *root,
			    const char *index_path, const struct stat *st,
			    const ac_event_schema *schema)
{
	bool fresh = strcmp(idx->state, "used") != 0;
	size_t before = idx->n;
	int rc;

	if ((uint64_t)st->st_size < idx->covered + AC_JIDX_BLOCK_BYTES ||
	    !ac_journal_index_writable(root, index_path))
		return 0;
	if ((rc = ac_journal_index_extend(idx, fd, path, st, schema)))
		return rc == AC_ENOMEM ? rc : 0;
	if (idx->n == before)
		return 0;
	idx->state = fresh ? "built" : "extended";
	return ac_journal_index_save(idx, fresh ? 0 : before, root, index_path, st, schema);
}
