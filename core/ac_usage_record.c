/* What the usage extractors share: source names, the per-file state the
 * index carries between runs, and the set of counted Claude message keys
 * (open addressing over 64-bit hashes; 0 marks an empty slot). */
#include "ac_usage_record.h"

#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_usage_impl.h"

#include <stdlib.h>
#include <string.h>

const char *ac_usage_source_name(ac_usage_source source)
{
	switch (source) {
	case AC_USAGE_AGENTCTL: return "agentctl";
	case AC_USAGE_CLAUDE: return "claude";
	case AC_USAGE_CODEX: return "codex";
	case AC_USAGE_GEMINI: return "gemini";
	}
	return "?";
}

void ac_usage_file_state_free(ac_usage_file_state *state)
{
	free(state->session_id);
	free(state->project);
	free(state->model);
	free(state->keys);
	free(state->booked);
	ac_usage_gemini_book_free(state->gemini_book);
	memset(state, 0, sizeof(*state));
}

/* FNV-1a over id, a separator, request_id; never 0 (the empty slot). */
uint64_t ac_usage_key_hash(const char *id, const char *request_id)
{
	uint64_t h = 1469598103934665603ULL;

	for (const char *p = id; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (const char *p = request_id; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h ? h : 1;
}

static size_t slot_of(const uint64_t *keys, size_t cap, uint64_t key)
{
	size_t i = (size_t)(key ^ (key >> 29)) & (cap - 1);

	while (keys[i] && keys[i] != key)
		i = (i + 1) & (cap - 1);
	return i;
}

bool ac_usage_file_state_has_key(const ac_usage_file_state *state, uint64_t key)
{
	return state->cap_keys && state->keys[slot_of(state->keys, state->cap_keys, key ? key : 1)];
}

int ac_usage_file_state_add_key(ac_usage_file_state *state, uint64_t key)
{
	key = key ? key : 1;
	/* Kept at most half full, so probes stay short. */
	if ((state->n_keys + 1) * 2 > state->cap_keys) {
		size_t cap = state->cap_keys ? state->cap_keys * 2 : 64;
		uint64_t *keys = calloc(cap, sizeof(*keys));
		ac_usage_booking *booked = calloc(cap, sizeof(*booked));

		if (!keys || !booked) {
			free(keys);
			free(booked);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		for (size_t i = 0; i < state->cap_keys; i++)
			if (state->keys[i]) {
				size_t at = slot_of(keys, cap, state->keys[i]);

				keys[at] = state->keys[i];
				booked[at] = state->booked[i];
			}
		free(state->keys);
		free(state->booked);
		state->keys = keys;
		state->booked = booked;
		state->cap_keys = cap;
	}
	{
		size_t i = slot_of(state->keys, state->cap_keys, key);

		if (!state->keys[i]) {
			state->keys[i] = key;
			state->booked[i] = (ac_usage_booking){.bucket = AC_USAGE_UNBOOKED};
			state->n_keys++;
		}
	}
	return 0;
}

ac_usage_booking *ac_usage_file_state_booking(const ac_usage_file_state *state, uint64_t key)
{
	size_t i;

	if (!state->cap_keys)
		return NULL;
	i = slot_of(state->keys, state->cap_keys, key ? key : 1);
	return state->keys[i] ? &state->booked[i] : NULL;
}

static uint64_t counts_total(const ac_usage_counts *c)
{
	return c->input + c->output + c->cache_create + c->cache_read;
}

bool ac_usage_booking_outgrown(const ac_usage_booking *booking, const ac_usage_counts *counts)
{
	uint64_t booked = 0;

	if (counts->input > UINT32_MAX || counts->output > UINT32_MAX ||
	    counts->cache_create > UINT32_MAX || counts->cache_read > UINT32_MAX)
		return false;
	for (int i = 0; i < 4; i++) {
		if (booking->counts[i] == UINT32_MAX)
			return false; /* frozen: its counts were cut to fit */
		booked += booking->counts[i];
	}
	return counts_total(counts) > booked;
}

static uint32_t fit(uint64_t v)
{
	return v < UINT32_MAX ? (uint32_t)v : UINT32_MAX;
}

void ac_usage_booking_set(ac_usage_booking *booking, const ac_usage_counts *counts)
{
	booking->counts[0] = fit(counts->input);
	booking->counts[1] = fit(counts->output);
	booking->counts[2] = fit(counts->cache_create);
	booking->counts[3] = fit(counts->cache_read);
}

/* The largest count taken: 2^53 - 1, what a JSON reader holds exactly. */
#define COUNT_MAX UINT64_C(9007199254740991)

bool ac_usage_count_of(uint64_t *out, const json_t *usage, const char *key)
{
	const json_t *v = json_object_get(usage, key);

	if (!v) {
		*out = 0;
		return true;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) > COUNT_MAX)
		return false;
	*out = (uint64_t)json_integer_value(v);
	return true;
}

/* Replaces *field with a copy of value when it differs (NULL: kept). */
int ac_usage_remember(char **field, const char *value)
{
	char *copy;

	if (!value || (*field && !strcmp(*field, value)))
		return 0;
	if (!(copy = strdup(value)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	free(*field);
	*field = copy;
	return 0;
}

json_t *ac_usage_parse_line(const char *line, size_t len)
{
	return ac_json_load_js(line, len, 0);
}

int ac_usage_each_line(ac_usage_file_state *state, const char *text, size_t len,
		       const char *fallback, ac_usage_line_wanted_fn wanted,
		       ac_usage_line_fn record, ac_usage_record_fn fn, void *ctx,
		       size_t *out_skipped)
{
	size_t start = 0, skipped = 0;
	int rc = 0;

	while (start < len && rc >= 0) {
		const char *line = text + start, *nl = memchr(line, '\n', len - start);
		size_t line_len = nl ? (size_t)(nl - line) : len - start;
		json_t *obj;

		start += line_len + 1;
		if (!wanted(line, line_len))
			continue;
		if (!(obj = ac_usage_parse_line(line, line_len))) {
			skipped++;
			continue;
		}
		rc = record(state, obj, fallback, fn, ctx);
		json_decref(obj);
		if (rc == -1) {
			skipped++;
			rc = 0;
		}
	}
	if (out_skipped)
		*out_skipped += skipped;
	return rc < 0 ? rc : 0;
}

