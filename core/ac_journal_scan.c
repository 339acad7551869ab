/* The scan engine: prefiltered forward scans and backward windows. */
#include "ac_journal_scan.h"
#include "ac_journal_scan_impl.h"

#include "ac_buf.h"
#include "ac_cpu.h"
#include "ac_error.h"
#include "ac_journal_reader.h"
#include "ac_json_scan.h"
#include "ac_search.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if AC_HAVE_AVX2_PATH
#include <immintrin.h>
#endif

#define FIRST_WINDOW (64u * 1024)

/* Counts a line that is not a valid event as skipped. */
static int skip_invalid(ac_scan_ctx *s)
{
	if (s->stats->invalid++ == 0)
		s->stats->invalid_path = s->path;
	return 0;
}

/* Parses one candidate line and hands it on if it is a matching event, or
 * an invalid record the query shows (ac_query_show_invalid()). */
static int consider_line(ac_scan_ctx *s, const char *line, size_t len, uint64_t offset)
{
	ac_scan_match match;
	const char *invalid = NULL;
	bool printable = false;
	char why[256];

	if (ac_json_scan_prepared_printable(s->spans, line, len, &s->paths, NULL, &printable) != 0) {
		if (!ac_query_shows_invalid(s->q))
			return skip_invalid(s);
		/* Not JSON: no field is known, whatever the scan got to. */
		memset(s->spans, 0, s->paths.npaths * sizeof(s->spans[0]));
		snprintf(why, sizeof(why), "%s", ac_error_last());
		ac_error_set(AC_ECORRUPT, "not JSON: %s", why);
		invalid = ac_error_last();
		if (!ac_query_matches_invalid(s->q, line, len, NULL))
			return 0;
	} else if (ac_event_check(s->spans, s->schema) != 0) {
		if (!ac_query_shows_invalid(s->q))
			return skip_invalid(s);
		invalid = ac_error_last();
		if (!ac_query_matches_invalid(s->q, line, len, s->spans))
			return 0;
	} else if (!ac_query_matches(s->q, line, len, s->spans)) {
		return 0;
	}
	s->stats->matched++;
	match.path = s->path;
	match.line = line;
	match.len = len;
	match.offset = offset;
	match.fields = s->spans;
	match.invalid = invalid;
	match.printable = printable;
	return s->fn(&match, s->ctx);
}

/* Which escapes can spell the needle other than as written. The needle is
 * the value as the query escapes it (ac_query.c), so a line that holds the
 * value without holding the needle holds an escape the query would not
 * write: \/ for a '/', or \u. A \u that stands for an ASCII character
 * starts "\u00"; any other is a character from U+0080 (surrogates too), so
 * for an ASCII needle only "\u00" counts. Journal text in other scripts
 * is full of \u escapes (Korean text: one line in six of seed-004's),
 * each of which would otherwise make its line a candidate, parsed for
 * nothing. */
typedef struct {
	bool slash;      /* \/ counts: the needle holds a '/' */
	bool any_u;      /* every \u counts: the needle holds a byte from 0x80 */
} escape_kinds;

static escape_kinds escape_kinds_of(const char *needle, size_t len)
{
	escape_kinds k = {memchr(needle, '/', len) != NULL, false};

	for (size_t i = 0; i < len && !k.any_u; i++)
		k.any_u = (unsigned char)needle[i] >= 0x80;
	return k;
}

/* The pair at c (a backslash, then 'u' or '/') is an escape of a kind
 * that counts; a \u too near the end to hold "00" counts (the scanner
 * says what it is). */
static inline bool escape_counts(escape_kinds k, const char *c, const char *end)
{
	if (c[1] == '/')
		return k.slash;
	return k.any_u || end - c < 4 || (c[2] == '0' && c[3] == '0');
}

/* The next place at or after p where a line might match: the needle, or a
 * \u or \/ escape that could spell it differently. Both hits are cached
 * until passed, so each byte is searched once. */
typedef struct {
	ac_finder needle;
	const char *next_needle, *next_escape;
	bool needle_done, escape_done; /* searched to the end: no more hits */
	escape_kinds kinds;
} candidate_finder;

/* True when the backslash at y starts an escape as read from `from` on:
 * "\\\\" escapes itself, so it does when the run of backslashes that ends
 * at y (counted from `from`) is odd. */
static bool starts_escape(const char *from, const char *y)
{
	size_t run = 1;

	while ((size_t)(y - from) >= run && y[-(ptrdiff_t)run] == '\\')
		run++;
	return run % 2 == 1;
}

/* The first \u or \/ escape at or after p of a kind that counts. Journal
 * text holds many other escapes (\" and \n), so the pairs are looked for
 * 16 places at a time rather than stopping at every backslash. */
static const char *next_escape_at(escape_kinds k, const char *p, const char *end)
{
	const char *from = p;

#if defined(__SSE2__)
	const __m128i backslash = _mm_set1_epi8('\\'), u = _mm_set1_epi8('u');
	const __m128i slash = _mm_set1_epi8('/');

	for (; end - p > 16; p += 16) {
		__m128i here = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i next = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
		unsigned pairs = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(here, backslash)) &
				 (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(next, u),
									  _mm_cmpeq_epi8(next, slash)));

		for (; pairs; pairs &= pairs - 1) {
			const char *c = p + __builtin_ctz(pairs);

			if (escape_counts(k, c, end) && starts_escape(from, c))
				return c;
		}
	}
#endif
	for (; end - p > 1; p++)
		if (*p == '\\' && (p[1] == 'u' || p[1] == '/') && escape_counts(k, p, end) &&
		    starts_escape(from, p))
			return p;
	return NULL;
}

#if AC_HAVE_AVX2_PATH
/* Whether the needle starts at c (c + needle_len <= end checked here). */
static inline bool needle_at(const ac_finder *f, const char *c, const char *end)
{
	return (size_t)(end - c) >= f->len && memcmp(c, f->needle, f->len) == 0;
}

static inline bool escape_at(escape_kinds k, const char *from, const char *c,
			     const char *end)
{
	return end - c > 1 && c[0] == '\\' && (c[1] == 'u' || c[1] == '/') &&
	       escape_counts(k, c, end) && starts_escape(from, c);
}

/* next_candidate() in one pass, 32 places at a time: the needle's two
 * rare bytes and the escape pairs are looked for together, so each byte
 * is loaded once, and no hit is cached (the caller's p only moves past
 * the hit it was given). */
__attribute__((target("avx2"))) static const char *next_candidate_avx2(const ac_finder *f,
								     escape_kinds k,
								     const char *p,
								     const char *end)
{
	const char *from = p;
	size_t ri = f->rare_index, r2 = f->rare2_index;
	size_t reach = 32 + (ri > r2 ? ri : r2) + 1; /* bytes an iteration reads from p */
	const __m256i v1 = _mm256_set1_epi8(f->needle[ri]), v2 = _mm256_set1_epi8(f->needle[r2]);
	const __m256i backslash = _mm256_set1_epi8('\\'), u = _mm256_set1_epi8('u');
	const __m256i slash = _mm256_set1_epi8('/');

	for (; (size_t)(end - p) >= reach; p += 32) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(p + ri));
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + r2));
		__m256i here = _mm256_loadu_si256((const __m256i *)(const void *)p);
		__m256i next = _mm256_loadu_si256((const __m256i *)(const void *)(p + 1));
		uint32_t need = (uint32_t)_mm256_movemask_epi8(
			_mm256_and_si256(_mm256_cmpeq_epi8(a, v1), _mm256_cmpeq_epi8(b, v2)));
		uint32_t esc = (uint32_t)_mm256_movemask_epi8(_mm256_and_si256(
			_mm256_cmpeq_epi8(here, backslash),
			_mm256_or_si256(_mm256_cmpeq_epi8(next, u), _mm256_cmpeq_epi8(next, slash))));

		for (uint32_t any = need | esc; any; any &= any - 1) {
			const char *c = p + __builtin_ctz(any);
			uint32_t bit = any & -any;

			if (((esc & bit) && escape_counts(k, c, end) && starts_escape(from, c)) ||
			    ((need & bit) && needle_at(f, c, end)))
				return c;
		}
	}
	for (; p < end; p++)
		if (escape_at(k, from, p, end) || needle_at(f, p, end))
			return p;
	return NULL;
}
#endif

static const char *next_candidate(candidate_finder *f, const char *p, const char *end)
{
#if AC_HAVE_AVX2_PATH
	if (ac_cpu_avx2())
		return next_candidate_avx2(&f->needle, f->kinds, p, end);
#endif
	if (!f->needle_done && (!f->next_needle || f->next_needle < p)) {
		f->next_needle = ac_finder_find(&f->needle, p, (size_t)(end - p));
		f->needle_done = f->next_needle == NULL;
	}
	if (!f->escape_done && (!f->next_escape || f->next_escape < p)) {
		f->next_escape = next_escape_at(f->kinds, p, end);
		f->escape_done = f->next_escape == NULL;
	}
	if (f->needle_done)
		return f->escape_done ? NULL : f->next_escape;
	if (f->escape_done || f->next_needle < f->next_escape)
		return f->next_needle;
	return f->next_escape;
}

int ac_scan_block(ac_scan_ctx *s, const ac_journal_block *block)
{
	const char *p = block->data, *end = block->data + block->len;
	candidate_finder finder = {0};
	const char *needle;
	size_t needle_len = 0;
	int rc;

	if (block->overlong) {
		if (s->stats->invalid++ == 0)
			s->stats->invalid_path = s->path;
		return 0;
	}
	needle = ac_query_needle(s->q, &needle_len);
	if (needle && !s->have_finder) {
		ac_byte_counts counts;

		ac_byte_counts_sample(&counts, block->data,
				      block->len < AC_SCAN_SAMPLE_BYTES ? block->len : AC_SCAN_SAMPLE_BYTES);
		ac_finder_init(&s->finder, needle, needle_len, &counts);
		s->have_finder = true;
	}
	if (needle) {
		finder.needle = s->finder;
		finder.kinds = escape_kinds_of(needle, needle_len);
	}
	while (p < end) {
		const char *line = p, *nl;

		if (needle) {
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
int ac_scan_range(ac_scan_ctx *s, uint64_t start, uint64_t end, uint64_t *out_next,
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
		if ((rc = ac_scan_block(s, &block)))
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

/* One match kept for later: a copy, since the reader's buffer moves on. */
typedef struct {
	ac_buf line;
	uint64_t offset;
	size_t file;
} kept_match;

/* The last `limit` matches of one window, in a ring that grows with what it
 * holds (never to limit up front: --last 10000000 must not cost memory). */
typedef struct {
	kept_match *items;
	size_t allocated, limit, count, head; /* head: the oldest when full */
	size_t current_file;
} ring;

static int ring_keep(const ac_scan_match *m, void *ctx)
{
	ring *r = ctx;
	kept_match *slot;

	if (r->count < r->limit) {
		if (r->count == r->allocated) {
			size_t grown = r->allocated ? r->allocated * 2 : 16;
			kept_match *items;

			if (grown > r->limit)
				grown = r->limit;
			items = realloc(r->items, grown * sizeof(*items));
			if (!items)
				return ac_error_set(AC_ENOMEM, "out of memory");
			memset(items + r->allocated, 0, (grown - r->allocated) * sizeof(*items));
			r->items = items;
			r->allocated = grown;
		}
		slot = &r->items[r->count++];
	} else {
		slot = &r->items[r->head];
		r->head = (r->head + 1) % r->limit;
	}
	ac_buf_clear(&slot->line);
	if (ac_buf_append(&slot->line, m->line, m->len))
		return AC_ENOMEM;
	slot->offset = m->offset;
	slot->file = r->current_file;
	return 0;
}

static void free_kept(kept_match *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ac_buf_free(&items[i].line);
	free(items);
}

/* Moves the ring's matches, newest first, onto the end of *collected. */
static int take_newest_first(kept_match **collected, size_t *ncollected, size_t *allocated,
			     ring *r)
{
	for (size_t i = r->count; i-- > 0;) {
		kept_match *slot = &r->items[(r->head + i) % r->count];

		if (*ncollected == *allocated) {
			size_t grown = *allocated ? *allocated * 2 : 16;
			kept_match *items = realloc(*collected, grown * sizeof(*items));

			if (!items)
				return ac_error_set(AC_ENOMEM, "out of memory");
			*collected = items;
			*allocated = grown;
		}
		(*collected)[(*ncollected)++] = *slot;
		memset(&slot->line, 0, sizeof(slot->line));
	}
	r->count = r->head = 0;
	return 0;
}

/* Collects up to last_n matches going back from the end of the files in
 * windows that double, then hands them to the caller oldest first. */
static int scan_last(ac_scan_ctx *s, const char *const *paths, size_t npaths, size_t last_n,
		     ac_scan_fn fn, void *ctx)
{
	ring window = {0};
	kept_match *collected = NULL;
	size_t ncollected = 0, allocated = 0;
	int rc = 0;

	s->fn = ring_keep;
	s->ctx = &window;
	for (size_t f = npaths; f-- > 0 && ncollected < last_n;) {
		uint64_t end, size, span = FIRST_WINDOW;

		s->path = paths[f];
		window.current_file = f;
		if ((rc = ac_journal_complete_end(&end, &size, s->path))) {
			if (rc == AC_ENOTFOUND) {
				rc = 0;
				continue;
			}
			goto done;
		}
		if (size > end) {
			uint64_t torn_at = end;

			/* When end is where a bounded search gave up inside an
			 * over-long line, name that line's start if in reach. */
			if (ac_journal_line_start(&torn_at, s->path, end) != 0)
				torn_at = end;
			s->stats->torn++;
			s->stats->torn_offset = torn_at;
			s->stats->torn_path = s->path;
		}
		while (end > 0 && ncollected < last_n) {
			uint64_t start;
			bool overlong;

			rc = ac_journal_line_start(&start, s->path, end > span ? end - span : 0);
			/* A line longer than the limit: finding its start would
			 * cost its whole length. start is inside it, so its rest
			 * reads as one invalid line, and older lines of this file
			 * are left to a forward read (journal check, read --all). */
			overlong = rc == AC_ECORRUPT;
			if (overlong)
				rc = 0;
			if (rc)
				goto done;
			window.limit = last_n - ncollected;
			if ((rc = ac_scan_range(s, start, end, NULL, NULL, false)) ||
			    (rc = take_newest_first(&collected, &ncollected, &allocated, &window)))
				goto done;
			if (overlong)
				break;
			end = start;
			span = span < (1ull << 40) ? span * 2 : span;
		}
	}
	s->fn = fn;
	s->ctx = ctx;
	s->stats->matched = 0;
	for (size_t i = ncollected; i-- > 0 && rc == 0;) {
		s->path = paths[collected[i].file];
		rc = consider_line(s, collected[i].line.data, collected[i].line.len,
				   collected[i].offset);
	}
done:
	free_kept(window.items, window.allocated);
	free_kept(collected, ncollected);
	return rc;
}

int ac_scan_ctx_init(ac_scan_ctx *s, ac_scan_stats *stats, ac_scan_stats *local,
		     const ac_query *q, const ac_event_schema *schema, ac_scan_fn fn, void *ctx)
{
	const ac_json_path *paths;
	size_t npaths;

	memset(s, 0, sizeof(*s));
	memset(local, 0, sizeof(*local));
	s->stats = stats ? stats : local;
	s->q = q;
	s->schema = schema;
	s->fn = fn;
	s->ctx = ctx;
	paths = ac_query_paths(q, &npaths);
	return ac_json_paths_prepare(&s->paths, paths, npaths);
}

int ac_journal_scan(ac_scan_stats *stats, const char *const *paths, size_t npaths,
		    const ac_query *q, size_t last_n, const ac_event_schema *schema,
		    ac_scan_fn fn, void *ctx)
{
	ac_scan_stats local;
	ac_scan_ctx s;
	int rc = 0;

	if ((rc = ac_scan_ctx_init(&s, stats, &local, q, schema, fn, ctx)))
		return rc;
	if (last_n > 0)
		return scan_last(&s, paths, npaths, last_n, fn, ctx);
	for (size_t f = 0; f < npaths && rc == 0; f++) {
		s.path = paths[f];
		rc = ac_scan_range(&s, 0, UINT64_MAX, NULL, NULL, true);
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
	ac_scan_ctx s;
	int rc;

	*out_next = offset;
	if ((rc = ac_scan_ctx_init(&s, stats, &local, q, schema, fn, ctx)))
		return rc;
	s.path = path;
	return ac_scan_range(&s, offset, UINT64_MAX, out_next, in_out_number, false);
}

int ac_journal_scan_range(ac_scan_stats *stats, const char *path, uint64_t start, uint64_t end,
			  const ac_query *q, const ac_event_schema *schema,
			  ac_scan_fn fn, void *ctx)
{
	ac_scan_stats local;
	ac_scan_ctx s;
	int rc;

	if ((rc = ac_scan_ctx_init(&s, stats, &local, q, schema, fn, ctx)))
		return rc;
	s.path = path;
	return ac_scan_range(&s, start, end, NULL, NULL, false);
}
