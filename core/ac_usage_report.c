/* Pricing and the three reports of `agentctl usage` over a scanned set
 * (ac_usage_report.h). Days and hours are UTC, so a report does not depend
 * on the machine that prints it. A bucket whose model has no price adds
 * its tokens to unpricedTokens and makes its row's cost unknown (null),
 * never 0: a low number that is wrong is worse than none. */
#include "ac_usage_report.h"

#include "ac_error.h"
#include "ac_struct_version.h"
#include "ac_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOUR_MS INT64_C(3600000)
#define BLOCK_MS (5 * HOUR_MS)

/* ---- pricing ---- */

/* An example default, USD per million tokens as the vendors listed them
 * in 2025; the config's `pricing` overrides or adds models. */
static const struct {
	const char *model;
	ac_usage_price price;
} builtin[] = {
	{"claude-opus-4-5", {5, 25, 6.25, 0.5}},
	{"claude-opus-4", {15, 75, 18.75, 1.5}},
	{"claude-sonnet-4", {3, 15, 3.75, 0.3}},
	{"claude-3-7-sonnet", {3, 15, 3.75, 0.3}},
	{"claude-3-5-sonnet", {3, 15, 3.75, 0.3}},
	{"claude-haiku-4-5", {1, 5, 1.25, 0.1}},
	{"claude-3-5-haiku", {0.8, 4, 1, 0.08}},
	{"gpt-5", {1.25, 10, 1.25, 0.125}},
	{"gpt-5-mini", {0.25, 2, 0.25, 0.025}},
	{"gpt-5-nano", {0.05, 0.4, 0.05, 0.005}},
	{"gpt-4.1", {2, 8, 2, 0.5}},
	{"o3", {2, 8, 2, 0.5}},
	{"o4-mini", {1.1, 4.4, 1.1, 0.275}},
};

json_t *ac_usage_pricing_builtin(void)
{
	json_t *table = json_object();

	for (size_t i = 0; table && i < sizeof(builtin) / sizeof(builtin[0]); i++)
		json_object_set_new(table, builtin[i].model,
				    json_pack("{s:f, s:f, s:f, s:f}", "input", builtin[i].price.input,
					      "output", builtin[i].price.output, "cacheWrite",
					      builtin[i].price.cache_write, "cacheRead",
					      builtin[i].price.cache_read));
	return table;
}

static const char *const price_fields[] = {"input", "output", "cacheWrite", "cacheRead", NULL};

/* USD per million tokens, far past any model's. */
#define PRICE_MAX 1e6

int ac_usage_pricing_check(const json_t *table)
{
	const char *model;
	const json_t *entry;

	if (!table)
		return 0;
	if (!json_is_object(table))
		return ac_error_set(AC_EINVAL, "pricing: must be an object of model -> prices");
	json_object_foreach((json_t *)table, model, entry) {
		if (!json_is_object(entry))
			return ac_error_set(AC_EINVAL, "pricing.%s: must be an object {input, output, "
					    "cacheWrite, cacheRead}", model);
		for (size_t i = 0; price_fields[i]; i++) {
			const json_t *v = json_object_get(entry, price_fields[i]);

			/* Bounded: a project file may set pricing, and 1e308 made
			 * every cost infinite, which JSON cannot hold. */
			if (v && !(json_is_number(v) && json_number_value(v) >= 0 &&
				   json_number_value(v) <= PRICE_MAX))
				return ac_error_set(AC_EINVAL, "pricing.%s.%s: must be a number from 0 "
						    "to %.0f (USD per million tokens)", model,
						    price_fields[i], PRICE_MAX);
		}
	}
	return 0;
}

/* How well key names model: its length when equal or a prefix, else 0. */
static size_t match(const char *key, const char *model)
{
	size_t len = strlen(key);

	return len && !strncmp(key, model, len) ? len : 0;
}

bool ac_usage_price_of(ac_usage_price *out, const json_t *table, const char *model)
{
	const json_t *best = NULL, *entry;
	const char *key;
	size_t best_len = 0, builtin_best = 0, n;

	if (!model || !*model)
		return false;
	json_object_foreach((json_t *)table, key, entry)
		if (json_is_object(entry) && (n = match(key, model)) > best_len) {
			best = entry;
			best_len = n;
		}
	if (best) {
		out->input = json_number_value(json_object_get(best, "input"));
		out->output = json_number_value(json_object_get(best, "output"));
		out->cache_write = json_number_value(json_object_get(best, "cacheWrite"));
		out->cache_read = json_number_value(json_object_get(best, "cacheRead"));
		return true;
	}
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if ((n = match(builtin[i].model, model)) > builtin_best) {
			*out = builtin[i].price;
			builtin_best = n;
		}
	return builtin_best > 0;
}

/* ---- rows ---- */

typedef struct {
	char key[400];
	ac_usage_counts counts;
	uint64_t unpriced;
	double cost;
	int64_t first_ms, last_ms, start_ms;
	const ac_usage_bucket *any; /* for source, session, project */
	json_t *models;             /* model -> true */
} row;

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t tokens_of(const ac_usage_counts *c)
{
	return sat_add(sat_add(c->input, c->output), sat_add(c->cache_create, c->cache_read));
}

static void add_counts(ac_usage_counts *to, const ac_usage_counts *c)
{
	to->input = sat_add(to->input, c->input);
	to->output = sat_add(to->output, c->output);
	to->cache_create = sat_add(to->cache_create, c->cache_create);
	to->cache_read = sat_add(to->cache_read, c->cache_read);
	to->reasoning = sat_add(to->reasoning, c->reasoning);
}

static void add_bucket(row *r, const ac_usage_bucket *b, const json_t *pricing)
{
	ac_usage_price p;

	add_counts(&r->counts, &b->counts);
	if (ac_usage_price_of(&p, pricing, b->model))
		r->cost += ((double)b->counts.input * p.input + (double)b->counts.output * p.output +
			    (double)b->counts.cache_create * p.cache_write +
			    (double)b->counts.cache_read * p.cache_read) /
			   1e6;
	else
		r->unpriced = sat_add(r->unpriced, tokens_of(&b->counts));
	if (!r->any || b->first_ms < r->first_ms)
		r->first_ms = b->first_ms;
	if (!r->any || b->last_ms > r->last_ms)
		r->last_ms = b->last_ms;
	r->any = r->any ? r->any : b;
	if (*b->model)
		json_object_set_new(r->models, b->model, json_true());
}

static json_t *counts_json(const row *r)
{
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I}",
			      "inputTokens", (json_int_t)r->counts.input,
			      "outputTokens", (json_int_t)r->counts.output,
			      "cacheCreationTokens", (json_int_t)r->counts.cache_create,
			      "cacheReadTokens", (json_int_t)r->counts.cache_read,
			      "reasoningTokens", (json_int_t)r->counts.reasoning,
			      "totalTokens", (json_int_t)tokens_of(&r->counts),
			      "costUsd", r->unpriced ? json_null() : json_real(r->cost),
			      "unpricedTokens", (json_int_t)r->unpriced);
	json_t *models = json_array();
	const char *model;
	json_t *v;

	json_object_foreach(r->models, model, v)
		json_array_append_new(models, json_string(model));
	json_object_set_new(o, "models", models);
	if (r->unpriced)
		json_object_set_new(o, "costUsdPriced", json_real(r->cost));
	return o;
}

static bool project_in(const char *project, const char *ws)
{
	size_t len = strlen(ws);

	while (len > 0 && ws[len - 1] == '/')
		len--; /* "/" becomes "": every absolute cwd is inside it */
	return !strncmp(project, ws, len) && (project[len] == '\0' || project[len] == '/');
}

/* Whether b counts for the workspace ws (NULL: every project). A copy's
 * bucket (owner_project set) counts only where its booked original does
 * not, once per message: copied_keys holds the keys counted so far. */
static bool counted(const ac_usage_bucket *b, const char *ws, json_t *copied_keys)
{
	char key[17];

	if (b->owner_project) {
		if (!ws || !project_in(b->project, ws) || project_in(b->owner_project, ws))
			return false;
		snprintf(key, sizeof(key), "%016llx", (unsigned long long)b->key);
		if (json_object_get(copied_keys, key))
			return false;
		return json_object_set_new(copied_keys, key, json_true()) == 0;
	}
	return !ws || b->source == AC_USAGE_AGENTCTL || project_in(b->project, ws);
}

static void iso(char out[AC_TIME_ISO_LEN + 1], int64_t ms)
{
	ac_time_format_iso(out, ms);
}

static int by_first(const void *a, const void *b)
{
	const ac_usage_bucket *x = *(const ac_usage_bucket *const *)a;
	const ac_usage_bucket *y = *(const ac_usage_bucket *const *)b;

	return x->first_ms < y->first_ms ? -1 : x->first_ms > y->first_ms;
}

static int by_key(const void *a, const void *b)
{
	const row *x = a, *y = b;
	int64_t kx = x->start_ms, ky = y->start_ms;

	return kx < ky ? -1 : kx > ky ? 1 : strcmp(x->key, y->key);
}

/* The row of key (found or added); NULL when out of memory. */
static row *row_for(row **rows, size_t *n, size_t *cap, json_t *seen, const char *key)
{
	json_t *at = json_object_get(seen, key);

	if (at)
		return &(*rows)[json_integer_value(at)];
	if (*n == *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 64;
		row *grown = realloc(*rows, grown_cap * sizeof(*grown));

		if (!grown)
			return NULL;
		*rows = grown;
		*cap = grown_cap;
	}
	memset(&(*rows)[*n], 0, sizeof(row));
	snprintf((*rows)[*n].key, sizeof((*rows)[*n].key), "%s", key);
	if (!((*rows)[*n].models = json_object()) ||
	    json_object_set_new(seen, key, json_integer((json_int_t)*n)))
		return NULL;
	return &(*rows)[(*n)++];
}

int ac_usage_report(json_t **out, const ac_usage_set *set, const ac_usage_report_options *opts)
{
	static const char *const kinds[] = {"daily", "session", "block"};
	const ac_usage_bucket **order = NULL;
	row *rows = NULL, total = {0};
	size_t n = 0, cap = 0, m = 0;
	json_t *seen = json_object(), *list = json_array(), *copied = json_object();
	int64_t block_end = 0, last_seen = 0;
	int rc = 0;

	*out = NULL;
	if ((rc = ac_struct_version_check("ac_usage_report_options", opts->version,
					  AC_USAGE_REPORT_OPTIONS_VERSION,
					  "AC_USAGE_REPORT_OPTIONS_INIT")))
		goto done;
	if (!seen || !list || !copied || !(total.models = json_object()) ||
	    (set->n && !(order = malloc(set->n * sizeof(*order))))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < set->n; i++)
		if (set->buckets[i].last_ms >= opts->since_ms &&
		    counted(&set->buckets[i], opts->workspace, copied))
			order[m++] = &set->buckets[i];
	if (m)
		qsort(order, m, sizeof(*order), by_first);
	for (size_t i = 0; i < m; i++) {
		const ac_usage_bucket *b = order[i];
		char key[400], day[AC_TIME_ISO_LEN + 1];
		row *r;

		if (opts->kind == AC_USAGE_DAILY) {
			iso(day, b->hour_ms);
			snprintf(key, sizeof(key), "%.10s", day);
		} else if (opts->kind == AC_USAGE_BY_SESSION) {
			snprintf(key, sizeof(key), "%s/%s", ac_usage_source_name(b->source), b->session_id);
		} else {
			/* A block opens at the hour of the first usage after the
			 * last block ended or after 5 hours without usage. */
			if (!block_end || b->first_ms >= block_end || b->first_ms - last_seen >= BLOCK_MS)
				block_end = b->hour_ms + BLOCK_MS;
			snprintf(key, sizeof(key), "%lld", (long long)(block_end - BLOCK_MS));
			last_seen = b->last_ms > last_seen ? b->last_ms : last_seen;
		}
		if (!(r = row_for(&rows, &n, &cap, seen, key))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		if (!r->any)
			r->start_ms = opts->kind == AC_USAGE_BLOCKS ? block_end - BLOCK_MS
				      : opts->kind == AC_USAGE_DAILY ? b->hour_ms : 0;
		add_bucket(r, b, opts->pricing);
		add_bucket(&total, b, opts->pricing);
	}
	/* Sessions are listed by last activity. */
	for (size_t i = 0; opts->kind == AC_USAGE_BY_SESSION && i < n; i++)
		rows[i].start_ms = rows[i].last_ms;
	if (n)
		qsort(rows, n, sizeof(*rows), by_key);
	for (size_t i = 0; i < n; i++) {
		const row *r = &rows[i];
		json_t *o = counts_json(r);
		char a[AC_TIME_ISO_LEN + 1], b[AC_TIME_ISO_LEN + 1], c[AC_TIME_ISO_LEN + 1];

		if (opts->kind == AC_USAGE_DAILY) {
			json_object_set_new(o, "date", json_string(r->key));
		} else if (opts->kind == AC_USAGE_BY_SESSION) {
			iso(a, r->last_ms);
			json_object_set_new(o, "source", json_string(ac_usage_source_name(r->any->source)));
			json_object_set_new(o, "sessionId", json_string(r->any->session_id));
			json_object_set_new(o, "project", json_string(r->any->project));
			json_object_set_new(o, "lastActivity", json_string(a));
		} else {
			iso(a, r->start_ms);
			iso(b, r->start_ms + BLOCK_MS);
			iso(c, r->last_ms);
			json_object_set_new(o, "start", json_string(a));
			json_object_set_new(o, "end", json_string(b));
			json_object_set_new(o, "actualEnd", json_string(c));
			json_object_set_new(o, "active",
					    json_boolean(opts->now_ms < r->start_ms + BLOCK_MS &&
							 opts->now_ms - r->last_ms < BLOCK_MS));
		}
		json_array_append_new(list, o);
	}
	if (!(*out = json_pack("{s:s, s:o, s:o}", "kind", kinds[opts->kind], "rows", list,
			       "totals", counts_json(&total))))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	list = NULL;
done:
	for (size_t i = 0; i < n; i++)
		json_decref(rows[i].models);
	json_decref(total.models);
	json_decref(list);
	json_decref(seen);
	json_decref(copied);
	free(rows);
	free(order);
	return rc;
}

int ac_usage_spend(double *out_day, double *out_month, bool *out_known, const ac_usage_set *set,
		   const char *workspace, const json_t *pricing, int64_t now_ms)
{
	char now[AC_TIME_ISO_LEN + 1], at[AC_TIME_ISO_LEN + 1];
	row day = {0}, month = {0};
	json_t *copied = json_object();

	iso(now, now_ms);
	if (!copied || !(day.models = json_object()) || !(month.models = json_object())) {
		json_decref(day.models);
		json_decref(copied);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < set->n; i++) {
		const ac_usage_bucket *b = &set->buckets[i];

		if (!counted(b, workspace, copied))
			continue;
		iso(at, b->hour_ms);
		if (!strncmp(at, now, 7))
			add_bucket(&month, b, pricing);
		if (!strncmp(at, now, 10))
			add_bucket(&day, b, pricing);
	}
	*out_day = day.cost;
	*out_month = month.cost;
	*out_known = !month.unpriced;
	json_decref(day.models);
	json_decref(month.models);
	json_decref(copied);
	return 0;
}

static int total_order(ac_usage_source source, const char *id, const ac_usage_session_total *t)
{
	return source != t->source ? (source < t->source ? -1 : 1) : strcmp(id, t->session_id);
}

static int by_session(const void *a, const void *b)
{
	const ac_usage_session_total *x = a;

	return total_order(x->source, x->session_id, b);
}

int ac_usage_session_totals(ac_usage_session_total **out, size_t *out_n, const ac_usage_set *set,
			    const char *workspace)
{
	ac_usage_session_total *t = set->n ? malloc(set->n * sizeof(*t)) : NULL;
	json_t *copied = json_object();
	size_t n = 0, kept = 0;

	*out = NULL;
	*out_n = 0;
	if ((set->n && !t) || !copied) {
		free(t);
		json_decref(copied);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < set->n; i++) {
		const ac_usage_bucket *b = &set->buckets[i];

		if (b->source != AC_USAGE_AGENTCTL && b->session_id && counted(b, workspace, copied))
			t[n++] = (ac_usage_session_total){b->source, b->session_id, tokens_of(&b->counts)};
	}
	json_decref(copied);
	if (n)
		qsort(t, n, sizeof(*t), by_session);
	/* One entry a session: its buckets (hours, models) summed. */
	for (size_t i = 0; i < n; i++) {
		if (kept && !total_order(t[i].source, t[i].session_id, &t[kept - 1]))
			t[kept - 1].tokens = sat_add(t[kept - 1].tokens, t[i].tokens);
		else
			t[kept++] = t[i];
	}
	if (!kept) {
		free(t);
		t = NULL;
	}
	*out = t;
	*out_n = kept;
	return 0;
}

const ac_usage_session_total *ac_usage_session_total_find(const ac_usage_session_total *totals,
							  size_t n, ac_usage_source source,
							  const char *id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = total_order(source, id, &totals[mid]);

		if (!c)
			return &totals[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}
