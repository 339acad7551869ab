/* The scan engine: prefiltered forward scans and backward windows. */
#include "ac_journal_scan.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_journal_reader.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_WINDOW (64u * 1024)

typedef struct {
	const ac_query *q;
	const ac_event_schema *schema;
	const ac_json_path *paths;
	size_t npaths;
	ac_scan_stats *stats;
	const char *path;
	ac_scan_fn fn;
	void *ctx;
	ac_json_span spans[AC_JSON_MAX_PATHS];
} scan_ctx;

/* Parses one candidate line and hands it on if it is a matching event. */
static int consider_line(scan_ctx *s, const char *line, size_t len, uint64_t offset)
{
	ac_scan_match match;

	if (ac_json_scan(s->spans, line, len, s->paths, s->npaths) != 0 ||
	    ac_event_check(s->spans, s->schema) != 0) {
		s->stats->invalid++;
		return 0;
	}
	if (!ac_query_matches(s->q, line, len, s->spans))
		return 0;
	s->stats->matched++;
	match.path = s->path;
	match.line = line;
	match.len = len;
	match.offset = offset;
	match.fields = s->spans;
	return s->fn(&match, s->ctx);
}

/* The next place at or after p where a line might match: the needle, or a
 * \u or \/ escape that could spell it differently. */
typedef struct {
	const char *needle;
	size_t needle_len;
	const char *next[3]; /* cached hits; NULL: none left */
	bool searched[3];
} candidate_finder;

static const char *next_candidate(candidate_finder *f, const char *p, const char *end)
{
	static const char *const escapes[2] = {"\\u", "\\/"};
	const char *best = NULL;

	for (int i = 0; i < 3; i++) {
		if (!f->searched[i] || (f->next[i] && f->next[i] < p)) {
			const char *pat = i == 0 ? f->needle : escapes[i - 1];
			size_t pat_len = i == 0 ? f->needle_len : 2;

			f->next[i] = p < end ? memmem(p, (size_t)(end - p), pat, pat_len) : NULL;
			f->searched[i] = true;
		}
		if (f->next[i] && (!best || f->next[i] < best))
			best = f->next[i];
	}
	return best;
}

static int scan_block(scan_ctx *s, const ac_journal_block *block)
{
	const char *p = block->data, *end = block->data + block->len;
	candidate_finder finder = {0};
	int rc;

	if (block->overlong) {
		s->stats->invalid++;
		return 0;
	}
	finder.needle = ac_query_needle(s->q, &finder.needle_len);
	while (p < end) {
		const char *line = p, *nl;

		if (finder.needle) {
			const char *hit = next_candidate(&finder, p, end);

			if (!hit)
				break;
			line = memrchr(p, '\n', (size_t)(hit - p));
			line = line ? line + 1 : p;
			nl = memchr(hit, '\n', (size_t)(end - hit));
		} else {
			nl = memchr(p, '\n', (size_t)(end - p));
		}
		if ((rc = consider_line(s, line, (size_t)(nl - line),
					block->offset + (uint64_t)(line - block->data))))
			return rc;
		p = nl + 1;
	}
	return 0;
}

/* Scans [start, end) of s->path forward; returns the reader's resume point
 * and line number through the out-params when asked. */
static int scan_range(scan_ctx *s, uint64_t start, uint64_t end, uint64_t *out_next,
		      uint64_t *in_out_number, bool report_tail)
{
	ac_journal_reader *reader = NULL;
	ac_journal_block block;
	uint64_t tail_offset;
	int rc;

	if ((rc = ac_journal_reader_open(&reader, s->path, start, end,
					 in_out_number ? *in_out_number : 1)))
		return rc;
	while ((rc = ac_journal_reader_next_block(reader, &block)) == 1)
		if ((rc = scan_block(s, &block)))
			break;
	if (rc == 0 && report_tail && ac_journal_reader_tail(reader, &tail_offset) > 0) {
		s->stats->torn++;
		s->stats->torn_offset = tail_offset;
		s->stats->torn_path = s->path;
	}
	if (out_next)
		*out_next = ac_journal_reader_offset(reader);
	if (in_out_number)
		*in_out_number = ac_journal_reader_number(reader);
	ac_journal_reader_free(reader);
	return rc;
}

/* The last matches of a backward search, kept in a ring of last_n copies. */
typedef struct {
	ac_buf *lines;
	uint64_t *offsets;
	size_t *file_index;
	size_t cap, count, head; /* head: the oldest slot when full */
	size_t current_file;
} ring;

static int ring_keep(const ac_scan_match *m, void *ctx)
{
	ring *r = ctx;
	size_t slot;

	if (r->count < r->cap) {
		slot = r->count++;
	} else {
		slot = r->head;
		r->head = (r->head + 1) % r->cap;
	}
	ac_buf_clear(&r->lines[slot]);
	if (ac_buf_append(&r->lines[slot], m->line, m->len))
		return AC_ENOMEM;
	r->offsets[slot] = m->offset;
	r->file_index[slot] = r->current_file;
	return 0;
}

/* Collects up to last_n matches going back from the end of the files,
 * then hands them to the caller oldest first. */
static int scan_last(scan_ctx *s, const char *const *paths, size_t npaths, size_t last_n,
		     ac_scan_fn fn, void *ctx)
{
	ring window = {0};
	ac_buf *collected = NULL;
	uint64_t *collected_offsets = NULL;
	size_t *collected_files = NULL, ncollected = 0;
	int rc = 0;

	window.cap = last_n;
	window.lines = calloc(last_n, sizeof(ac_buf));
	window.offsets = calloc(last_n, sizeof(uint64_t));
	window.file_index = calloc(last_n, sizeof(size_t));
	collected = calloc(last_n, sizeof(ac_buf));
	collected_offsets = calloc(last_n, sizeof(uint64_t));
	collected_files = calloc(last_n, sizeof(size_t));
	if (!window.lines || !window.offsets || !window.file_index || !collected ||
	    !collected_offsets || !collected_files) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	s->fn = ring_keep;
	s->ctx = &window;
	/* collected[] is filled from its end: the newest match goes last. */
	for (size_t f = npaths; f-- > 0 && ncollected < last_n;) {
		uint64_t end, size, span = FIRST_WINDOW;

		s->path = paths[f];
		window.current_file = f;
		if ((rc = ac_journal_complete_end(&end, &size, s->path))) {
			if (rc == AC_ENOTFOUND)
				continue;
			goto done;
		}
		if (size > end) {
			s->stats->torn++;
			s->stats->torn_offset = end;
			s->stats->torn_path = s->path;
		}
		while (end > 0 && ncollected < last_n) {
			uint64_t start;
			size_t need = last_n - ncollected;

			if ((rc = ac_journal_line_start(&start, s->path, end > span ? end - span : 0)))
				goto done;
			window.cap = need;
			window.count = window.head = 0;
			if ((rc = scan_range(s, start, end, NULL, NULL, false)))
				goto done;
			for (size_t i = window.count; i-- > 0;) {
				size_t slot = (window.head + i) % window.cap;
				size_t to = last_n - 1 - ncollected++;
				ac_buf tmp = collected[to];

				collected[to] = window.lines[slot];
				window.lines[slot] = tmp;
				collected_offsets[to] = window.offsets[slot];
				collected_files[to] = window.file_index[slot];
			}
			end = start;
			span = span < (1ull << 40) ? span * 2 : span;
		}
	}
	s->fn = fn;
	s->ctx = ctx;
	s->stats->matched = 0;
	for (size_t i = last_n - ncollected; i < last_n && rc == 0; i++) {
		s->path = paths[collected_files[i]];
		rc = consider_line(s, collected[i].data, collected[i].len, collected_offsets[i]);
	}
done:
	for (size_t i = 0; i < last_n; i++) {
		if (window.lines)
			ac_buf_free(&window.lines[i]);
		if (collected)
			ac_buf_free(&collected[i]);
	}
	free(window.lines);
	free(window.offsets);
	free(window.file_index);
	free(collected);
	free(collected_offsets);
	free(collected_files);
	return rc;
}

static int init_ctx(scan_ctx *s, ac_scan_stats *stats, ac_scan_stats *local,
		    const ac_query *q, const ac_event_schema *schema,
		    ac_scan_fn fn, void *ctx)
{
	memset(s, 0, sizeof(*s));
	memset(local, 0, sizeof(*local));
	s->stats = stats ? stats : local;
	s->q = q;
	s->schema = schema;
	s->fn = fn;
	s->ctx = ctx;
	s->paths = ac_query_paths(q, &s->npaths);
	return 0;
}

int ac_journal_scan(ac_scan_stats *stats, const char *const *paths, size_t npaths,
		    const ac_query *q, size_t last_n, const ac_event_schema *schema,
		    ac_scan_fn fn, void *ctx)
{
	ac_scan_stats local;
	scan_ctx s;
	int rc = 0;

	init_ctx(&s, stats, &local, q, schema, fn, ctx);
	if (last_n > 0)
		return scan_last(&s, paths, npaths, last_n, fn, ctx);
	for (size_t f = 0; f < npaths && rc == 0; f++) {
		s.path = paths[f];
		rc = scan_range(&s, 0, UINT64_MAX, NULL, NULL, true);
		if (rc == AC_ENOTFOUND)
			rc = 0;
	}
	return rc;
}

int ac_journal_scan_from(uint64_t *out_next, uint64_t *in_out_number,
			 ac_scan_stats *stats, const char *path, uint64_t offset,
			 const ac_query *q, const ac_event_schema *schema,
			 ac_scan_fn fn, void *ctx)
{
	ac_scan_stats local;
	scan_ctx s;

	init_ctx(&s, stats, &local, q, schema, fn, ctx);
	s.path = path;
	*out_next = offset;
	return scan_range(&s, offset, UINT64_MAX, out_next, in_out_number, false);
}

int ac_journal_check(uint64_t *out_valid, uint64_t *out_invalid, const char *path,
		     const ac_event_schema *schema, ac_check_fn fn, void *ctx)
{
	ac_journal_reader *reader = NULL;
	ac_json_span fields[AC_EV_NFIELDS];
	ac_journal_line line;
	uint64_t valid = 0, invalid = 0, tail_offset;
	int rc;

	if ((rc = ac_journal_reader_open(&reader, path, 0, UINT64_MAX, 1)))
		return rc;
	while ((rc = ac_journal_reader_next(reader, &line)) == 1) {
		const char *reason = NULL;

		if (line.overlong)
			reason = "line longer than 64 MiB";
		else if (ac_event_parse(fields, line.text, line.len, schema) != 0)
			reason = ac_error_last();
		if (!reason) {
			valid++;
			continue;
		}
		invalid++;
		if (fn && (rc = fn(path, line.number, line.offset, reason, ctx)))
			break;
	}
	if (rc == 0 && ac_journal_reader_tail(reader, &tail_offset) > 0) {
		invalid++;
		if (fn)
			rc = fn(path, ac_journal_reader_number(reader), tail_offset,
				"no newline at the end: a torn line, or one still being written",
				ctx);
	}
	ac_journal_reader_free(reader);
	*out_valid = valid;
	*out_invalid = invalid;
	return rc;
}
