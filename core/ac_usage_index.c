/* The usage index: per transcript file, what was read and what it held
 * (ac_usage_report.h says what is kept and why). The file is binary,
 * little-endian (ac_le.h), read through a reader that checks every length
 * against the bytes left, and closed by an FNV-1a checksum: a file an attacker or
 * a crash wrote is thrown away whole and rebuilt, never half believed.
 * The checksum proves the file whole, not that its writer was agentctl
 * (anyone can compute it): every count, length, time and string is
 * checked as if there were none. */
#include "ac_usage_index.h"

#include "ac_atomic.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_le.h"
#include "ac_text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "ACUSAGE1"
#define VERSION 3u /* 2: a Codex fork's copy boundary; 3: each key's booking */
/* Bounds on what a file may claim, far past real use. */
#define STR_MAX 65536u
#define FILES_MAX 10000000u
#define TIME_MAX INT64_C(253402300799999) /* 9999-12-31T23:59:59.999Z */

void ac_usage_entry_clear(ac_usage_entry *e)
{
	free(e->path);
	ac_usage_file_state_free(&e->state);
	for (size_t i = 0; i < e->n_buckets; i++)
		free(e->buckets[i].model);
	free(e->buckets);
	memset(e, 0, sizeof(*e));
}

void ac_usage_index_free(ac_usage_index *index)
{
	if (!index)
		return;
	for (size_t i = 0; i < index->n; i++)
		ac_usage_entry_clear(&index->entries[i]);
	free(index->entries);
	free(index);
}

uint64_t ac_usage_fnv(uint64_t h, const void *bytes, size_t len)
{
	const unsigned char *p = bytes;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h;
}

/* ---- writing ---- */

static void put_u64(ac_buf *b, uint64_t v)
{
	(void)ac_le_put_u64(b, v);
}

static void put_str(ac_buf *b, const char *s)
{
	size_t len = s ? strlen(s) : 0;

	put_u64(b, len);
	ac_buf_append(b, s ? s : "", len);
}

static void put_counts(ac_buf *b, const ac_usage_counts *c)
{
	put_u64(b, c->input);
	put_u64(b, c->output);
	put_u64(b, c->cache_create);
	put_u64(b, c->cache_read);
	put_u64(b, c->reasoning);
}

int ac_usage_index_save(const ac_usage_index *index, const char *path)
{
	ac_buf b = AC_BUF_INIT;
	char *dir = NULL, *slash;
	int rc;

	ac_buf_append(&b, MAGIC, 8);
	put_u64(&b, VERSION);
	put_u64(&b, index->n);
	for (size_t i = 0; i < index->n; i++) {
		const ac_usage_entry *e = &index->entries[i];

		put_str(&b, e->path);
		put_u64(&b, e->source);
		put_u64(&b, e->dev);
		put_u64(&b, e->ino);
		put_u64(&b, e->size);
		put_u64(&b, (uint64_t)e->mtime_ns);
		put_u64(&b, e->offset);
		put_u64(&b, e->tail_hash);
		put_str(&b, e->state.session_id);
		put_str(&b, e->state.project);
		put_str(&b, e->state.model);
		put_counts(&b, &e->state.codex_total);
		put_u64(&b, e->state.codex_gate);
		put_u64(&b, (uint64_t)e->state.codex_cutoff_ms);
		put_u64(&b, (uint64_t)e->state.codex_copy_ms);
		put_u64(&b, e->state.n_keys);
		for (size_t k = 0; k < e->state.cap_keys; k++)
			if (e->state.keys[k]) {
				const ac_usage_booking *bk = &e->state.booked[k];

				put_u64(&b, e->state.keys[k]);
				put_u64(&b, bk->bucket);
				put_u64(&b, bk->counts[0] | (uint64_t)bk->counts[1] << 32);
				put_u64(&b, bk->counts[2] | (uint64_t)bk->counts[3] << 32);
			}
		put_u64(&b, e->n_buckets);
		for (size_t k = 0; k < e->n_buckets; k++) {
			const ac_usage_entry_bucket *x = &e->buckets[k];

			put_u64(&b, (uint64_t)x->hour_ms);
			put_u64(&b, (uint64_t)x->first_ms);
			put_u64(&b, (uint64_t)x->last_ms);
			put_u64(&b, x->calls);
			put_counts(&b, &x->counts);
			put_str(&b, x->model);
		}
	}
	put_u64(&b, ac_usage_fnv(1469598103934665603ULL, b.data, b.len));
	if (!b.data) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (!(dir = strdup(path))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if ((rc = ac_file_mkdirs(dir)))
			goto done;
	}
	/* A cache: durability is not needed, a whole file is (temp + rename). */
	rc = ac_atomic_write_unsynced(path, b.data, b.len);
done:
	free(dir);
	ac_buf_free(&b);
	return rc;
}

/* ---- reading, never trusting ---- */

/* A string, allocated; NULL for "" when empty_null, and on failure
 * (c->bad set: too long, past the end, a NUL inside, not UTF-8 (every
 * string ends up in a JSON report, which cannot hold one), or out of
 * memory). */
static char *get_str(ac_le_reader *c, bool empty_null)
{
	uint64_t len = ac_le_get_u64(c);
	char *s;

	if (c->bad || len > STR_MAX || len > ac_le_left(c) || memchr(c->p, '\0', (size_t)len) ||
	    !ac_text_is_utf8((const char *)c->p, (size_t)len)) {
		c->bad = true;
		return NULL;
	}
	if (len == 0 && empty_null)
		return NULL;
	if (!(s = strndup((const char *)c->p, (size_t)len))) {
		c->bad = true;
		return NULL;
	}
	c->p += len;
	return s;
}

/* Counts past 2^53 - 1 are no extractor's: a forged file (sums of them
 * could wrap). */
#define COUNT_MAX UINT64_C(9007199254740991)

/* Adds c to sum; a sum past COUNT_MAX (4,096 buckets of 2^53 - 1 each
 * summed past 2^63, which the reports showed as -1) is a forged file. */
static void sum_counts(ac_le_reader *c, ac_usage_counts *sum, const ac_usage_counts *x)
{
	sum->input += x->input;
	sum->output += x->output;
	sum->cache_create += x->cache_create;
	sum->cache_read += x->cache_read;
	sum->reasoning += x->reasoning;
	if (sum->input > COUNT_MAX || sum->output > COUNT_MAX || sum->cache_create > COUNT_MAX ||
	    sum->cache_read > COUNT_MAX || sum->reasoning > COUNT_MAX)
		c->bad = true;
}

static void get_counts(ac_le_reader *c, ac_usage_counts *out)
{
	const uint64_t max = COUNT_MAX;

	out->input = ac_le_get_u64(c);
	out->output = ac_le_get_u64(c);
	out->cache_create = ac_le_get_u64(c);
	out->cache_read = ac_le_get_u64(c);
	out->reasoning = ac_le_get_u64(c);
	if (out->input > max || out->output > max || out->cache_create > max ||
	    out->cache_read > max || out->reasoning > max)
		c->bad = true;
}

/* sum: every bucket's counts so far, over the whole file. */
static bool read_entry(ac_le_reader *c, ac_usage_entry *e, ac_usage_counts *sum)
{
	uint64_t n;

	e->path = get_str(c, false);
	e->source = (ac_usage_source)ac_le_get_u64(c);
	e->dev = ac_le_get_u64(c);
	e->ino = ac_le_get_u64(c);
	e->size = ac_le_get_u64(c);
	e->mtime_ns = (int64_t)ac_le_get_u64(c);
	e->offset = ac_le_get_u64(c);
	e->tail_hash = ac_le_get_u64(c);
	e->state.session_id = get_str(c, true);
	e->state.project = get_str(c, true);
	e->state.model = get_str(c, true);
	get_counts(c, &e->state.codex_total);
	e->state.codex_gate = (uint32_t)ac_le_get_u64(c);
	e->state.codex_cutoff_ms = (int64_t)ac_le_get_u64(c);
	e->state.codex_copy_ms = (int64_t)ac_le_get_u64(c);
	if (c->bad || e->source > AC_USAGE_GEMINI || e->offset > e->size || !e->path ||
	    e->path[0] != '/')
		return false;
	n = ac_le_get_u64(c);
	if (c->bad || n > ac_le_left(c) / 32)
		return false;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t key = ac_le_get_u64(c), bucket = ac_le_get_u64(c);
		uint64_t low = ac_le_get_u64(c), high = ac_le_get_u64(c);
		ac_usage_booking *bk;

		if (c->bad || bucket > AC_USAGE_UNBOOKED ||
		    ac_usage_file_state_add_key(&e->state, key) != 0)
			return false;
		bk = ac_usage_file_state_booking(&e->state, key);
		*bk = (ac_usage_booking){(uint32_t)bucket,
					 {(uint32_t)low, (uint32_t)(low >> 32), (uint32_t)high,
					  (uint32_t)(high >> 32)}};
	}
	n = ac_le_get_u64(c);
	/* A bucket takes at least 80 bytes: the claim is checked before any
	 * allocation it would size. */
	if (c->bad || n > ac_le_left(c) / 80)
		return false;
	if (n && !(e->buckets = calloc((size_t)n, sizeof(*e->buckets))))
		return false;
	e->cap_buckets = (size_t)n;
	for (uint64_t k = 0; k < n; k++) {
		ac_usage_entry_bucket *x = &e->buckets[k];

		x->hour_ms = (int64_t)ac_le_get_u64(c);
		x->first_ms = (int64_t)ac_le_get_u64(c);
		x->last_ms = (int64_t)ac_le_get_u64(c);
		x->calls = ac_le_get_u64(c);
		get_counts(c, &x->counts);
		x->model = get_str(c, false);
		e->n_buckets = (size_t)k + 1;
		sum_counts(c, sum, &x->counts);
		/* Times within years 1970-9999, as a parsed timestamp is, and an
		 * hour that holds them: the reports format and subtract them. */
		if (c->bad || x->first_ms < 0 || x->last_ms > TIME_MAX || x->first_ms > x->last_ms ||
		    x->hour_ms != x->first_ms - x->first_ms % 3600000 ||
		    x->last_ms - x->hour_ms >= 3600000)
			return false;
	}
	/* A booking names one of the entry's buckets, or none. */
	for (size_t k = 0; k < e->state.cap_keys; k++)
		if (e->state.keys[k] && e->state.booked[k].bucket != AC_USAGE_UNBOOKED &&
		    e->state.booked[k].bucket >= e->n_buckets)
			return false;
	return !c->bad;
}

/* *out: the index at path, or an empty one with *out_rebuilt set when it
 * is absent or not to be believed. Only AC_ENOMEM fails. */
int ac_usage_index_load(ac_usage_index **out, bool *out_rebuilt, const char *path)
{
	ac_usage_index *index = calloc(1, sizeof(*index));
	char *text = NULL;
	size_t len = 0;
	ac_le_reader c;
	uint64_t n, sum = 0;
	ac_usage_counts counts = {0};
	bool good = false;

	*out = NULL;
	*out_rebuilt = true;
	if (!index)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (!path || ac_file_read(&text, &len, path) != 0 || len < 8 + 16 + 8 ||
	    memcmp(text, MAGIC, 8) != 0)
		goto done;
	c = ac_le_reader_of(text + len - 8, 8);
	sum = ac_le_get_u64(&c);
	if (sum != ac_usage_fnv(1469598103934665603ULL, text, len - 8))
		goto done;
	c = ac_le_reader_of(text + 8, len - 16);
	if (ac_le_get_u64(&c) != VERSION || (n = ac_le_get_u64(&c)) > FILES_MAX || n > ac_le_left(&c) / 64)
		goto done;
	if (n && !(index->entries = calloc((size_t)n, sizeof(*index->entries))))
		goto done;
	index->cap = (size_t)n;
	for (uint64_t i = 0; i < n; i++) {
		index->n = (size_t)i + 1;
		if (!read_entry(&c, &index->entries[i], &counts))
			goto done;
	}
	good = !c.bad && ac_le_left(&c) == 0;
done:
	free(text);
	if (!good) {
		for (size_t i = 0; i < index->n; i++)
			ac_usage_entry_clear(&index->entries[i]);
		index->n = 0;
	}
	*out_rebuilt = !good;
	*out = index;
	return 0;
}

int ac_usage_entry_add(ac_usage_entry *e, const ac_usage_record *r, size_t *out_bucket)
{
	int64_t hour = r->timestamp_ms - ((r->timestamp_ms % 3600000 + 3600000) % 3600000);
	ac_usage_entry_bucket *x = NULL;

	/* Records come in time order, mostly into the last bucket. */
	for (size_t i = e->n_buckets; i-- > 0;)
		if (e->buckets[i].hour_ms == hour && !strcmp(e->buckets[i].model, r->model)) {
			x = &e->buckets[i];
			break;
		}
	if (!x) {
		if (e->n_buckets == e->cap_buckets) {
			size_t cap = e->cap_buckets ? e->cap_buckets * 2 : 8;
			ac_usage_entry_bucket *grown = realloc(e->buckets, cap * sizeof(*grown));

			if (!grown)
				return ac_error_set(AC_ENOMEM, "out of memory");
			e->buckets = grown;
			e->cap_buckets = cap;
		}
		x = &e->buckets[e->n_buckets];
		memset(x, 0, sizeof(*x));
		if (!(x->model = strdup(r->model)))
			return ac_error_set(AC_ENOMEM, "out of memory");
		e->n_buckets++;
		x->hour_ms = hour;
		x->first_ms = r->timestamp_ms;
		x->last_ms = r->timestamp_ms;
	}
	x->first_ms = r->timestamp_ms < x->first_ms ? r->timestamp_ms : x->first_ms;
	x->last_ms = r->timestamp_ms > x->last_ms ? r->timestamp_ms : x->last_ms;
	x->calls++;
	x->counts.input += r->counts.input;
	x->counts.output += r->counts.output;
	x->counts.cache_create += r->counts.cache_create;
	x->counts.cache_read += r->counts.cache_read;
	x->counts.reasoning += r->counts.reasoning;
	if (out_bucket)
		*out_bucket = (size_t)(x - e->buckets);
	return 0;
}

/* old taken from sum, never below 0 (a forged index may claim more). */
static uint64_t less(uint64_t sum, uint32_t old)
{
	return sum > old ? sum - old : 0;
}

void ac_usage_entry_replace(ac_usage_entry *e, ac_usage_booking *booking,
			    const ac_usage_counts *counts)
{
	ac_usage_entry_bucket *x = &e->buckets[booking->bucket];

	x->counts.input = less(x->counts.input, booking->counts[0]) + counts->input;
	x->counts.output = less(x->counts.output, booking->counts[1]) + counts->output;
	x->counts.cache_create = less(x->counts.cache_create, booking->counts[2]) + counts->cache_create;
	x->counts.cache_read = less(x->counts.cache_read, booking->counts[3]) + counts->cache_read;
	ac_usage_booking_set(booking, counts);
}
