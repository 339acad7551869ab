/* A query over one journal file through its index: the index is brought
 * up to date (its complete new blocks added), the blocks and segments
 * that cannot match and still verify against the journal are skipped,
 * and the rest is scanned in file order as a full pass would scan it, the
 * unindexed tail always. When most blocks may match, the ordinary full
 * pass runs. */
#include "ac_journal_index.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_journal_scan_impl.h"
#include "ac_journal_split.h"
#include "ac_map.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Each match formatted and written at once, on this thread. */
typedef struct {
	ac_scan_format_fn format;
	const void *format_ctx;
	ac_scan_write_fn write;
	void *write_ctx;
	ac_buf out, scratch;
} printer;

static int print_match(const ac_scan_match *m, void *ctx)
{
	printer *p = ctx;
	int rc;

	ac_buf_clear(&p->out);
	if ((rc = p->format(&p->out, &p->scratch, m, p->format_ctx)))
		return rc;
	return p->write(p->out.data, p->out.len, p->write_ctx);
}

/* What a query read, for AGENTCTL_DEBUG_STATS (a file the line is
 * appended to): the measure tests use instead of time. */
typedef struct {
	const char *index;   /* the index's state */
	const char *mode;    /* "indexed" or "full" */
	size_t blocks, skipped, segments_skipped;
	uint64_t read_bytes, file_bytes;
} scan_report;

static void report(const char *path, const scan_report *r)
{
	const char *to = getenv("AGENTCTL_DEBUG_STATS");
	FILE *f;

	if (!to || !*to || !(f = fopen(to, "ae")))
		return;
	fprintf(f, "journal-index file=%s index=%s mode=%s blocks=%zu skipped=%zu "
		   "segments_skipped=%zu read_bytes=%llu file_bytes=%llu\n",
		path, r->index, r->mode, r->blocks, r->skipped, r->segments_skipped,
		(unsigned long long)r->read_bytes, (unsigned long long)r->file_bytes);
	fclose(f);
}

/* A run of bytes [from, to) the query does not read: whole lines. */
typedef struct {
	uint64_t from, to;
} skip_run;

/* What plan() found the query need not read, in file order. */
typedef struct {
	skip_run *runs;
	size_t n;
	size_t blocks, segments; /* skipped: blocks whole, segments in all */
	uint64_t bytes;
} skip_plan;

/* A line starts at `at`: the byte before it ends one. */
static bool line_starts(int fd, uint64_t at)
{
	char before;

	return at == 0 || (pread(fd, &before, 1, (off_t)(at - 1)) == 1 && before == '\n');
}

/* The block still holds what was summarised: its last bytes hash the
 * same, and end a line. */
static bool tail_verifies(int fd, const ac_jidx_entry *e)
{
	char tail[AC_JIDX_TAIL_BYTES];
	size_t k = e->length < AC_JIDX_TAIL_BYTES ? (size_t)e->length : AC_JIDX_TAIL_BYTES;

	return pread(fd, tail, k, (off_t)(e->offset + e->length - k)) == (ssize_t)k &&
	       ac_hash64(0, tail, k) == e->tail_hash && tail[k - 1] == '\n';
}

/* Adds to p the segments of e's block that may not match (may: those
 * that may), when the block verifies, each run of them only when a line
 * starts at both its ends: the block's end is its tail's last byte, a
 * start where the run before ends was checked with that run. */
static void plan_block(skip_plan *p, const ac_jidx_entry *e, uint32_t may, int fd)
{
	uint64_t block_end = e->offset + e->length;
	size_t skipped = 0;

	if (!tail_verifies(fd, e))
		return;
	for (uint32_t i = 0, j; i < e->nsegments; i = j) {
		uint64_t from, to;

		if (may & (1u << i)) {
			j = i + 1;
			continue;
		}
		for (j = i + 1; j < e->nsegments && !(may & (1u << j)); j++)
			;
		from = ac_jidx_segment_start(e, i);
		to = ac_jidx_segment_end(e, j - 1);
		if (!(p->n && p->runs[p->n - 1].to == from) && !line_starts(fd, from))
			continue;
		if (to != block_end && !line_starts(fd, to))
			continue;
		if (p->n && p->runs[p->n - 1].to == from)
			p->runs[p->n - 1].to = to;
		else
			p->runs[p->n++] = (skip_run){from, to};
		p->bytes += to - from;
		p->segments += j - i;
		skipped += j - i;
	}
	if (skipped == e->nsegments)
		p->blocks++;
}

/* The runs of idx's blocks that cannot match and verify into p (its runs
 * allocated for AC_JIDX_SEGMENTS an entry). */
static void plan(skip_plan *p, const ac_journal_index *idx, const ac_jidx_query *jq, int fd)
{
	for (size_t i = 0; i < idx->n; i++) {
		const ac_jidx_entry *e = idx->entries[i];
		uint32_t may = ac_jidx_may_match(e, jq);

		if (may != (1u << e->nsegments) - 1)
			plan_block(p, e, may, fd);
	}
}

/* scan_rest() with the reader, for a file that does not map. */
static int scan_read(ac_scan_ctx *s, const skip_plan *p)
{
	uint64_t from = 0;
	int rc = 0;

	for (size_t i = 0; i < p->n && rc == 0; i++) {
		if (p->runs[i].from > from)
			rc = ac_scan_range(s, from, p->runs[i].from, NULL, NULL, false);
		from = p->runs[i].to;
	}
	if (rc == 0)
		rc = ac_scan_range(s, from, UINT64_MAX, NULL, NULL, true);
	return rc;
}

/* Lines no longer than this are handed to the scan whole from the
 * mapping: well under the line limit, so none of them is over-long. */
#define MAPPED_CHUNK (8u << 20)

/* What plan() left, read from a mapping of the file as it was. */
typedef struct {
	ac_scan_ctx *s;
	const ac_map *map;
	const skip_plan *plan;
	uint64_t next; /* out: where the unterminated tail starts, for the reader */
} mapped_scan;

/* Scans the lines of [from, to) (from a line start) as the reader would:
 * a line of the limit or more is one invalid line. An unterminated rest
 * is left when `last` (*out_rest is where it starts, to when none is),
 * else it is one invalid line if over-long, as the reader has it. */
static int scan_mapped_range(ac_scan_ctx *s, const char *data, uint64_t from, uint64_t to,
			     bool last, uint64_t *out_rest)
{
	ac_journal_block block = {0};
	const char *nl;
	int rc;

	while (from < to) {
		uint64_t reach = to - from < MAPPED_CHUNK ? to - from : MAPPED_CHUNK;

		block.overlong = false;
		block.data = data + from;
		block.offset = from;
		if ((nl = memrchr(data + from, '\n', (size_t)reach))) {
			block.len = (size_t)(nl + 1 - block.data);
		} else {
			/* A line longer than a chunk: to its newline, if any. */
			reach = to - from < AC_JOURNAL_MAX_LINE ? to - from : AC_JOURNAL_MAX_LINE;
			if ((nl = memchr(data + from, '\n', (size_t)reach))) {
				block.len = (size_t)(nl + 1 - block.data);
			} else if (reach < AC_JOURNAL_MAX_LINE) {
				break; /* unterminated, short: not a line yet */
			} else if (!(nl = memchr(data + from + reach, '\n',
						 (size_t)(to - from - reach)))) {
				if (last)
					break; /* the reader's, from its start */
				block.len = (size_t)(to - from);
				block.overlong = true;
				nl = data + to - 1;
			} else {
				block.len = (size_t)(nl - block.data);
				block.overlong = true;
			}
		}
		if ((rc = ac_scan_block(s, &block)))
			return rc;
		from = (uint64_t)(nl - data) + 1;
	}
	*out_rest = from;
	return 0;
}

static int scan_mapped(void *arg)
{
	mapped_scan *m = arg;
	uint64_t from = 0, rest;
	int rc = 0;

	for (size_t i = 0; i < m->plan->n && rc == 0; i++) {
		if (m->plan->runs[i].from > from)
			rc = scan_mapped_range(m->s, m->map->data, from, m->plan->runs[i].from,
					       false, &rest);
		from = m->plan->runs[i].to;
	}
	m->next = from;
	if (rc == 0 && from < m->map->len)
		rc = scan_mapped_range(m->s, m->map->data, from, m->map->len, true, &m->next);
	return rc;
}

/* Scans what plan() left, in file order, then the tail to the end: from a
 * mapping of the file's first size bytes when it maps, the bytes after
 * those with the reader (which reports a torn tail). */
static int scan_rest(ac_scan_stats *stats, const char *path, int fd, uint64_t size,
		     const skip_plan *plan, const ac_query *q,
		     const ac_event_schema *schema, printer *p)
{
	ac_scan_stats local;
	ac_scan_ctx s;
	ac_map map;
	mapped_scan m = {&s, &map, plan, 0};
	uint64_t fault;
	bool faulted;
	int rc;

	if ((rc = ac_scan_ctx_init(&s, stats, &local, q, schema, print_match, p)))
		return rc;
	s.path = path;
	if (size == 0 || ac_map_file(&map, fd, 0, size) != 0)
		return scan_read(&s, plan);
	if ((rc = ac_map_guard_begin()) == 0) {
		rc = ac_map_guarded(&map, scan_mapped, &m, &faulted, &fault);
		ac_map_guard_end();
		if (rc == 0 && faulted)
			rc = ac_map_fault_error(fd, path, fault);
		if (rc == 0)
			rc = ac_scan_range(&s, m.next, UINT64_MAX, NULL, NULL, true);
	}
	ac_map_release(&map);
	return rc;
}

int ac_journal_index_scan(ac_scan_stats *stats, const char *path, const char *root,
			  const char *index_path,
			  const ac_query *q, const ac_event_schema *schema,
			  ac_scan_format_fn format, const void *format_ctx,
			  ac_scan_write_fn write, void *write_ctx)
{
	printer p = {format, format_ctx, write, write_ctx, AC_BUF_INIT, AC_BUF_INIT};
	scan_report r = {.index = "none", .mode = "full"};
	ac_journal_index idx = {0};
	skip_plan sp = {0};
	ac_jidx_query jq;
	struct stat st;
	int fd = -1, rc;

	ac_jidx_query_init(&jq, q);
	/* Only a query the index can narrow builds or reads it. */
	if (!index_path || !jq.prunes ||
	    ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY, 0, path) || fstat(fd, &st) != 0)
		goto full;
	r.file_bytes = (uint64_t)st.st_size;
	if ((rc = ac_journal_index_load(&idx, root, index_path, &st, schema)) ||
	    (rc = ac_journal_index_update(&idx, fd, path, root, index_path, &st, schema)))
		goto done;
	r.index = idx.state;
	r.blocks = idx.n;
	if (!idx.n)
		goto full;
	if (!(sp.runs = calloc(idx.n, AC_JIDX_SEGMENTS * sizeof(*sp.runs)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	plan(&sp, &idx, &jq, fd);
	r.read_bytes = r.file_bytes - sp.bytes;
	r.skipped = sp.blocks;
	r.segments_skipped = sp.segments;
	/* Reading most of it on one core is slower than all of it on all. */
	if (r.read_bytes * 2 * ac_split_threads(r.file_bytes) > r.file_bytes)
		goto full;
	r.mode = "indexed";
	rc = scan_rest(stats, path, fd, r.file_bytes, &sp, q, schema, &p);
	goto done;
full:
	r.read_bytes = r.file_bytes;
	r.skipped = r.segments_skipped = 0;
	rc = ac_journal_scan_format(stats, &path, 1, q, 0, schema, format, format_ctx, write,
				    write_ctx);
done:
	if (index_path && jq.prunes)
		report(path, &r);
	if (fd >= 0)
		close(fd);
	free(sp.runs);
	ac_journal_index_clear(&idx);
	ac_buf_free(&p.out);
	ac_buf_free(&p.scratch);
	return rc;
}
