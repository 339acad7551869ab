/* journal check: every line validated, on as many cores as help, with the
 * invalid lines reported in file order. */
#include "ac_journal_scan.h"

#include "ac_error.h"
#include "ac_file.h"
#include "ac_journal_index.h"
#include "ac_map.h"
#include "ac_journal_reader.h"
#include "ac_journal_split.h"
#include "ac_json_scan.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OVERLONG_REASON "line longer than " AC_JOURNAL_MAX_LINE_TEXT

typedef struct {
	uint64_t valid, invalid;
	uint64_t next_offset, next_number; /* where the single-threaded part goes on */
} check_totals;

/* Validates lines from offset (a line start numbered number) to the end of
 * the file as it is now, torn tail included. */
static int check_serial(check_totals *t, const char *path, const ac_event_schema *schema,
			ac_check_fn fn, void *ctx)
{
	ac_journal_reader *reader = NULL;
	ac_json_span fields[AC_EV_NFIELDS];
	ac_journal_line line;
	uint64_t tail_offset;
	int rc;

	if ((rc = ac_journal_reader_open(&reader, path, t->next_offset, UINT64_MAX,
					 t->next_number)))
		return rc;
	while ((rc = ac_journal_reader_next(reader, &line)) == 1) {
		const char *reason = NULL;

		if (line.overlong)
			reason = OVERLONG_REASON;
		else if (ac_event_parse(fields, line.text, line.len, schema) != 0)
			reason = ac_error_last();
		if (!reason) {
			t->valid++;
			continue;
		}
		t->invalid++;
		if (fn && (rc = fn(path, line.number, line.offset, reason, ctx)))
			break;
	}
	if (rc == 0 && ac_journal_reader_tail(reader, &tail_offset) > 0) {
		t->invalid++;
		if (fn)
			rc = fn(path, ac_journal_reader_number(reader), tail_offset,
				"no newline at the end: a torn line, or one still being written",
				ctx);
	}
	ac_journal_reader_free(reader);
	return rc;
}

/* An invalid line as a worker notes it for the calling thread: its index
 * in the piece, its offset, then the reason with its NUL. */
typedef struct {
	uint64_t index, offset;
	uint32_t reason_len;
} invalid_record;

typedef struct {
	const ac_event_schema *schema;
	ac_json_span fields[AC_EV_NFIELDS];
} check_worker;

static int note_invalid(ac_split_output *o, uint64_t offset, const char *reason)
{
	invalid_record r = {o->lines, offset, (uint32_t)strlen(reason) + 1};

	o->invalid++;
	if (ac_buf_append(&o->out, &r, sizeof(r)) || ac_buf_append(&o->out, reason, r.reason_len))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return ac_split_flush(o);
}

static int check_block(ac_split_output *o, const ac_journal_block *block, void *ctx)
{
	check_worker *w = ctx;
	const char *p = block->data, *end = block->data + block->len;
	int rc;

	if (block->overlong) {
		rc = note_invalid(o, block->offset, OVERLONG_REASON);
		o->lines++;
		return rc;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (ac_event_parse(w->fields, p, (size_t)(nl - p), w->schema) == 0)
			o->valid++;
		else if ((rc = note_invalid(o, block->offset + (uint64_t)(p - block->data),
					    ac_error_last())))
			return rc;
		o->lines++;
		p = nl + 1;
	}
	return 0;
}

typedef struct {
	check_totals *totals;
	const char *path;
	ac_check_fn fn;
	void *ctx;
} check_delivery;

static int deliver_invalid(const ac_split_output *o, bool done, uint64_t first_number,
			   void *ctx)
{
	check_delivery *d = ctx;
	const char *p = o->out.data, *end = o->out.data + o->out.len;
	int rc;

	while (p < end) {
		invalid_record r;

		memcpy(&r, p, sizeof(r));
		p += sizeof(r);
		if (d->fn && (rc = d->fn(d->path, first_number + r.index, r.offset, p, d->ctx)))
			return rc;
		p += r.reason_len;
	}
	if (done) {
		d->totals->valid += o->valid;
		d->totals->invalid += o->invalid;
		d->totals->next_number = first_number + o->lines;
	}
	return 0;
}

/* The complete lines [0, end) on nthreads threads; *out_started false:
 * nothing done, no thread could start. */
static int check_parallel(bool *out_started, check_totals *t, const char *path, uint64_t end,
			  size_t nthreads, const ac_event_schema *schema, ac_check_fn fn,
			  void *ctx)
{
	check_worker *workers = calloc(nthreads, sizeof(*workers));
	void **contexts = calloc(nthreads, sizeof(*contexts));
	check_delivery d = {t, path, fn, ctx};
	int rc;

	*out_started = false;
	if (!workers || !contexts) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < nthreads; i++) {
		workers[i].schema = schema;
		contexts[i] = &workers[i];
	}
	rc = ac_split_run(out_started, path, end, nthreads, check_block, contexts,
			  deliver_invalid, &d);
	if (rc == 0 && *out_started)
		t->next_offset = end;
done:
	free(workers);
	free(contexts);
	return rc;
}

int ac_journal_check(uint64_t *out_valid, uint64_t *out_invalid, const char *path,
		     const ac_event_schema *schema, ac_check_fn fn, void *ctx)
{
	check_totals t = {0, 0, 0, 1};
	uint64_t end;
	size_t nthreads;
	int rc;

	if ((rc = ac_split_end(&end, path)))
		return rc;
	nthreads = ac_split_threads(end);
	if (ac_split_wanted(end, nthreads)) {
		bool started;

		if ((rc = check_parallel(&started, &t, path, end, nthreads, schema, fn, ctx)))
			goto done;
	}
	/* What follows end (everything when no thread ran). */
	rc = check_serial(&t, path, schema, fn, ctx);
done:
	*out_valid = t.valid;
	*out_invalid = t.invalid;
	return rc;
}

/* ---- through the index ---- */

typedef struct {
	const ac_journal_index *idx;
	const ac_map *map;
	size_t skipped;          /* leading blocks counted unparsed */
	uint64_t offset, number; /* where validation goes on */
	uint64_t valid;
} clean_prefix;

static void count_block(clean_prefix *c, const ac_jidx_entry *e)
{
	c->skipped++;
	c->valid += e->nlines;
	c->offset += e->length;
	c->number += e->nlines;
}

/* True when e was built by this process (ac_journal_index_update() just
 * now) rather than read from the index file. */
static bool built_here(const ac_journal_index *idx, const ac_jidx_entry *e)
{
	return !idx->map || (const char *)e < idx->map || (const char *)e >= idx->map + idx->map_len;
}

/* The leading blocks the index update just validated clean, reading
 * their bytes a moment ago: hashing them again would read the whole file
 * a second time, on one core, for the answer the update has just given. */
static void count_fresh(clean_prefix *c)
{
	for (size_t i = c->skipped; i < c->idx->n; i++) {
		const ac_jidx_entry *e = c->idx->entries[i];

		if (!built_here(c->idx, e) || e->content_hash == 0 || e->offset != c->offset ||
		    e->first_line != c->number)
			break;
		count_block(c, e);
	}
}

/* The leading blocks whose bytes hash as when they were validated clean
 * (or that were validated just now). */
static int count_clean(void *arg)
{
	clean_prefix *c = arg;

	for (size_t i = c->skipped; i < c->idx->n; i++) {
		const ac_jidx_entry *e = c->idx->entries[i];

		if (e->content_hash == 0 || e->offset != c->offset || e->first_line != c->number ||
		    e->offset + e->length > c->map->offset + c->map->len ||
		    (!built_here(c->idx, e) &&
		     ac_jidx_content_hash(e, c->map->data + e->offset) != e->content_hash))
			break;
		count_block(c, e);
	}
	return 0;
}

/* For AGENTCTL_DEBUG_STATS: blocks counted unparsed, the measure tests use. */
static void report_check(const char *path, const ac_journal_index *idx, const clean_prefix *c,
			 bool counted)
{
	const char *to = getenv("AGENTCTL_DEBUG_STATS");
	FILE *f;

	if (!to || !*to || !(f = fopen(to, "ae")))
		return;
	fprintf(f, "journal-check file=%s index=%s mode=%s blocks=%zu skipped=%zu "
		   "validated_from=%llu\n",
		path, idx->state ? idx->state : "none", counted ? "counted" : "full", idx->n,
		counted ? c->skipped : 0, counted ? (unsigned long long)c->offset : 0ULL);
	fclose(f);
}

int ac_journal_check_indexed(uint64_t *out_valid, uint64_t *out_invalid, const char *path,
			     const char *root, const char *index_path,
			     const ac_event_schema *schema, ac_check_fn fn, void *ctx)
{
	ac_journal_index idx = {0};
	clean_prefix c = {&idx, NULL, 0, 0, 1, 0};
	check_totals t = {0, 0, 0, 1};
	ac_map map = {0};
	struct stat st;
	bool faulted = false;
	uint64_t fault;
	int fd = -1, rc;

	if (!index_path || ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY, 0, path) ||
	    fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return ac_journal_check(out_valid, out_invalid, path, schema, fn, ctx);
	}
	if ((rc = ac_journal_index_load(&idx, root, index_path, &st, schema)) ||
	    (rc = ac_journal_index_update(&idx, fd, path, root, index_path, &st, schema)))
		goto done;
	count_fresh(&c);
	if (c.skipped < idx.n && idx.covered > 0 && ac_map_file(&map, fd, 0, idx.covered) == 0 &&
	    ac_map_guard_begin() == 0) {
		c.map = &map;
		ac_map_guarded(&map, count_clean, &c, &faulted, &fault);
		ac_map_guard_end();
	}
	/* Little counted (or a fault: the full pass reports it): the whole
	 * file on every core is faster than its rest on one. */
	if (faulted || c.skipped == 0 ||
	    (st.st_size - (off_t)c.offset) * (off_t)ac_split_threads((uint64_t)st.st_size) >
		    st.st_size) {
		report_check(path, &idx, &c, false);
		rc = ac_journal_check(out_valid, out_invalid, path, schema, fn, ctx);
		goto done;
	}
	report_check(path, &idx, &c, true);
	t.valid = c.valid;
	t.next_offset = c.offset;
	t.next_number = c.number;
	rc = check_serial(&t, path, schema, fn, ctx);
	*out_valid = t.valid;
	*out_invalid = t.invalid;
done:
	ac_map_release(&map);
	ac_journal_index_clear(&idx);
	close(fd);
	return rc;
}
