/* Copying the journal between stores, streamed: the destination is scanned
 * once into a table of line hashes (how many times each line is there,
 * and each event id), then the source is scanned in order and each line
 * is kept, copied or reported by that table; copies go out in batches of
 * BATCH_LINES, each one transaction where the store has them. A line is
 * recognised by its bytes (an id alone could be reused by another
 * writer): the k-th occurrence of a line in the source is already there
 * when the destination holds it at least k times. An id the destination
 * holds only with other bytes is a conflict. After the copy, the
 * destination is scanned again and every source line counted once more
 * against it (the verification).
 *
 * Scanning hashes each line on the scan's worker threads (the format
 * callback), and hands this thread a compact record per line: the two
 * hashes, the id and the line. */
#include "ac_migrate.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_scan.h"
#include "ac_struct_version.h"

#include <stdlib.h>
#include <string.h>

#define BATCH_LINES 1000
#define BATCH_BYTES (4u * 1024 * 1024)

/* ---- a table of 64-bit hashes with two counts ---- */

typedef struct {
	uint64_t key; /* 0: empty slot */
	uint32_t dst; /* lines (or ids) the destination holds */
	uint32_t src; /* lines the source walk has met so far */
} slot;

typedef struct {
	slot *slots;
	size_t cap, used; /* cap a power of two */
} table;

/* FNV-1a, with the low bit telling line hashes (1) from id hashes (0) and
 * 0 kept for empty slots. */
static uint64_t hash_of(const char *bytes, size_t len, bool line)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)bytes[i]) * 1099511628211ull;
	h = line ? h | 1 : h & ~(uint64_t)1;
	return h ? h : 2;
}

/* The slot for key; created (counts 0) when add, else NULL when absent. */
static slot *find(table *t, uint64_t key, bool add, int *rc)
{
	size_t i;

	*rc = 0;
	if (add && (t->used + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		slot *grown = calloc(cap, sizeof(*grown));

		if (!grown) {
			*rc = ac_error_set(AC_ENOMEM, "out of memory (journal copy table)");
			return NULL;
		}
		for (size_t k = 0; k < t->cap; k++) {
			if (!t->slots[k].key)
				continue;
			for (i = t->slots[k].key & (cap - 1); grown[i].key; i = (i + 1) & (cap - 1))
				;
			grown[i] = t->slots[k];
		}
		free(t->slots);
		t->slots = grown;
		t->cap = cap;
	}
	if (!t->cap)
		return NULL;
	for (i = key & (t->cap - 1); t->slots[i].key; i = (i + 1) & (t->cap - 1))
		if (t->slots[i].key == key)
			return &t->slots[i];
	if (!add)
		return NULL;
	t->used++;
	t->slots[i].key = key;
	return &t->slots[i];
}

/* ---- scanning: a compact record per line ---- */

typedef struct {
	uint64_t line_hash, id_hash;
	uint32_t id_len, line_len;
} header;

static int format_line(ac_buf *out, ac_buf *scratch, const ac_scan_match *m, const void *ctx)
{
	const ac_json_span *id = &m->fields[AC_EV_ID];
	const char *id_text = id->type == AC_JSON_STRING ? id->start + 1 : "";
	size_t id_len = id->type == AC_JSON_STRING && id->len >= 2 ? id->len - 2 : 0;
	header h = {hash_of(m->line, m->len, true), hash_of(id_text, id_len, false),
		    (uint32_t)id_len, (uint32_t)m->len};

	(void)scratch;
	(void)ctx;
	if (ac_buf_append(out, &h, sizeof(h)) || ac_buf_append(out, id_text, id_len) ||
	    ac_buf_append(out, m->line, m->len))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

typedef int (*line_fn)(const header *h, const char *id, const char *line, void *ctx);

typedef struct {
	ac_buf carry; /* a record split across two writes */
	line_fn fn;
	void *ctx;
} reader;

static int take(const char *data, size_t len, void *ctx)
{
	reader *r = ctx;
	size_t at = 0;
	int rc = 0;

	if (r->carry.len) {
		if (ac_buf_append(&r->carry, data, len))
			return ac_error_set(AC_ENOMEM, "out of memory");
		data = r->carry.data;
		len = r->carry.len;
	}
	while (!rc && len - at >= sizeof(header)) {
		header h;

		memcpy(&h, data + at, sizeof(h));
		if (len - at < sizeof(h) + h.id_len + h.line_len)
			break;
		rc = r->fn(&h, data + at + sizeof(h), data + at + sizeof(h) + h.id_len, r->ctx);
		at += sizeof(h) + h.id_len + h.line_len;
	}
	if (rc)
		return rc;
	if (data == r->carry.data) {
		memmove(r->carry.data, r->carry.data + at, len - at);
		r->carry.len = len - at;
	} else if (at < len && ac_buf_append(&r->carry, data + at, len - at)) {
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	return 0;
}

/* Hands fn every valid event of store, oldest first, rotated files too. */
static int scan(ac_journal_store *store, ac_scan_stats *stats, line_fn fn, void *ctx)
{
	reader r = {AC_BUF_INIT, fn, ctx};
	ac_query *q = NULL;
	int rc;

	memset(stats, 0, sizeof(*stats));
	if ((rc = ac_query_parse(&q, NULL, 0)))
		return rc;
	rc = store->ops->scan(store, stats, true, q, 0, format_line, NULL, take, &r);
	ac_query_free(q);
	ac_buf_free(&r.carry);
	return rc;
}

/* ---- the copy ---- */

typedef struct {
	table t;
	ac_journal_store *to;
	const ac_migrate_options *opts;
	ac_migrate_count *out;
	ac_buf lines;     /* the batch: lines, each NUL-terminated */
	size_t *offsets;  /* where each starts in lines */
	size_t *lens;
	const char **ptrs;
	size_t n;
} copy;

static int count_there(const header *h, const char *id, const char *line, void *ctx)
{
	copy *c = ctx;
	slot *s;
	int rc;

	(void)id;
	(void)line;
	if (!(s = find(&c->t, h->line_hash, true, &rc)))
		return rc;
	s->dst++;
	if (!(s = find(&c->t, h->id_hash, true, &rc)))
		return rc;
	s->dst++;
	return 0;
}

static int flush(copy *c)
{
	int rc = 0;

	if (c->n == 0)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		c->ptrs[i] = c->lines.data + c->offsets[i];
	if (c->to->ops->append_batch)
		rc = c->to->ops->append_batch(c->to, c->ptrs, c->lens, c->n);
	else
		for (size_t i = 0; i < c->n && !rc; i++)
			rc = ac_journal_store_append(c->to, c->ptrs[i], c->lens[i], NULL);
	if (rc)
		return rc; /* a store that takes no event stops the copy */
	c->out->copied += c->n;
	c->n = 0;
	ac_buf_clear(&c->lines);
	if (c->opts->after_write)
		c->opts->after_write(AC_MIGRATE_JOURNAL, c->opts->ctx);
	return 0;
}

static int copy_line(const header *h, const char *id, const char *line, void *ctx)
{
	copy *c = ctx;
	slot *s, *ids;
	ac_buf key = AC_BUF_INIT;
	int rc;

	c->out->source++;
	/* A row a database holds may span lines (json keeps whitespace); in a
	 * file it would become two broken ones. */
	if (memchr(line, '\n', h->line_len)) {
		c->out->failed++;
		if (c->opts->problem) {
			ac_buf_append(&key, id, h->id_len);
			c->opts->problem(AC_MIGRATE_JOURNAL, key.data ? key.data : "", false,
					 "the event spans more than one line", c->opts->ctx);
			ac_buf_free(&key);
		}
		return 0;
	}
	if (!(s = find(&c->t, h->line_hash, true, &rc)))
		return rc;
	s->src++;
	if (s->src <= s->dst) {
		c->out->present++;
		return 0;
	}
	ids = find(&c->t, h->id_hash, false, &rc);
	if (s->dst == 0 && ids && ids->dst > 0) {
		c->out->conflicts++;
		if (c->opts->problem) {
			ac_buf_append(&key, id, h->id_len);
			c->opts->problem(AC_MIGRATE_JOURNAL, key.data ? key.data : "", true,
					 "the destination holds another event with this id; left "
					 "as it is", c->opts->ctx);
			ac_buf_free(&key);
		}
		return 0;
	}
	if (c->opts->dry_run) {
		c->out->copied++;
		return 0;
	}
	if (!c->offsets) {
		if (!(c->offsets = calloc(BATCH_LINES, sizeof(*c->offsets))) ||
		    !(c->lens = calloc(BATCH_LINES, sizeof(*c->lens))) ||
		    !(c->ptrs = calloc(BATCH_LINES, sizeof(*c->ptrs))))
			return ac_error_set(AC_ENOMEM, "out of memory");
	}
	c->offsets[c->n] = c->lines.len;
	c->lens[c->n] = h->line_len;
	if (ac_buf_append(&c->lines, line, h->line_len) || ac_buf_append(&c->lines, "", 1))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (++c->n == BATCH_LINES || c->lines.len >= BATCH_BYTES)
		return flush(c);
	return 0;
}

static int count_verified(const header *h, const char *id, const char *line, void *ctx)
{
	copy *c = ctx;
	int rc;
	slot *s = find(&c->t, h->line_hash, false, &rc);

	(void)id;
	(void)line;
	if (s && s->dst < s->src) {
		s->dst++;
		c->out->verified++;
	}
	return 0;
}

int ac_migrate_journal(ac_migrate_count *out, ac_journal_store *from, ac_journal_store *to,
		       const ac_migrate_options *opts)
{
	copy c = {.to = to, .opts = opts, .out = out, .lines = AC_BUF_INIT};
	ac_scan_stats stats;
	int rc;

	if ((rc = ac_struct_version_check("ac_migrate_options", opts->version,
					  AC_MIGRATE_OPTIONS_VERSION, "AC_MIGRATE_OPTIONS_INIT")) ||
	    (rc = ac_journal_store_version_check(from)) ||
	    (rc = ac_journal_store_version_check(to)))
		return rc;
	if ((rc = scan(to, &stats, count_there, &c)) || (rc = scan(from, &stats, copy_line, &c)))
		goto done;
	out->skipped = stats.invalid + stats.torn;
	if ((rc = flush(&c)) || opts->dry_run)
		goto done;
	/* Verification: each source line met again at the destination, at
	 * most as many times as the source holds it. */
	for (size_t i = 0; i < c.t.cap; i++)
		c.t.slots[i].dst = 0;
	rc = scan(to, &stats, count_verified, &c);
done:
	free(c.t.slots);
	free(c.offsets);
	free(c.lens);
	free(c.ptrs);
	ac_buf_free(&c.lines);
	return rc;
}
