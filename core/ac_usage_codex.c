/* Codex rollouts: the usage of each turn.
 *
 * A rollout is JSON Lines of {"timestamp", "type", "payload"}: a
 * session_meta (payload.id, payload.cwd), turn_context lines (payload.model,
 * payload.cwd), and event_msg lines whose payload.type is "token_count"
 * with payload.info {total_token_usage, last_token_usage} (info may be
 * null), each {input_tokens, cached_input_tokens, output_tokens,
 * reasoning_output_tokens, total_tokens}. input_tokens includes the cached
 * part; output_tokens includes reasoning (OpenAI's accounting).
 *
 * A turn's counts are last_token_usage; without it, the growth of
 * total_token_usage since the previous event (the state carries the last
 * totals across reads). An event whose totals did not grow repeats the
 * previous one (Codex writes some twice) and is not counted again.
 *
 * The first session_meta is the rollout's own: its id is the session the
 * usage is booked to. A fork (or a sub-agent spawned with its parent's
 * history) starts with a copy of its parent's items, token_count events
 * included, which the parent's rollout counts already: in that copy an
 * event only moves the baseline (the fork's own totals continue the
 * parent's), nothing is booked (ac_codex_fork.h says where the copy ends).
 * Only lines holding one of the type names read here are parsed. */
#include "ac_usage_record.h"

#include "ac_codex_fork.h"
#include "ac_error.h"
#include "ac_time.h"
#include "ac_usage_impl.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Codex's usage object as counts: false when a count is not a whole number. */
static bool counts_of(ac_usage_counts *out, const json_t *u)
{
	uint64_t input, cached;

	memset(out, 0, sizeof(*out));
	if (!ac_usage_count_of(&input, u, "input_tokens") ||
	    !ac_usage_count_of(&cached, u, "cached_input_tokens") ||
	    !ac_usage_count_of(&out->output, u, "output_tokens") ||
	    !ac_usage_count_of(&out->reasoning, u, "reasoning_output_tokens"))
		return false;
	out->cache_read = cached < input ? cached : input;
	out->input = input - out->cache_read;
	return true;
}

static bool grew(const ac_usage_counts *now, const ac_usage_counts *before)
{
	return now->input + now->cache_read + now->output >
	       before->input + before->cache_read + before->output;
}

/* now - before, field by field; a field that shrank (a new cumulative
 * series) counts whole. */
static ac_usage_counts growth(const ac_usage_counts *now, const ac_usage_counts *before)
{
	ac_usage_counts d;

	d.input = now->input >= before->input ? now->input - before->input : now->input;
	d.output = now->output >= before->output ? now->output - before->output : now->output;
	d.cache_create = 0;
	d.cache_read = now->cache_read >= before->cache_read ? now->cache_read - before->cache_read
							     : now->cache_read;
	d.reasoning = now->reasoning >= before->reasoning ? now->reasoning - before->reasoning
							  : now->reasoning;
	return d;
}

static int64_t ms_of(const json_t *when)
{
	int64_t ms;

	return json_is_string(when) && ac_time_parse(&ms, json_string_value(when)) == 0 ? ms : -1;
}

/* The rollout's own session_meta gives the session and its folder; a
 * copied one starts the copy. */
static int note_meta(ac_usage_file_state *state, const json_t *payload, int64_t line_ms)
{
	const json_t *sub = json_object_get(json_object_get(payload, "source"), "subagent");
	ac_codex_gate g = {state->codex_gate, state->codex_cutoff_ms, state->codex_copy_ms};
	bool forked = json_is_string(json_object_get(payload, "forked_from_id")) ||
		      (sub && (json_is_string(json_object_get(json_object_get(sub, "thread_spawn"),
							      "parent_thread_id")) ||
			       json_is_string(json_object_get(payload, "parent_thread_id"))));
	bool own = ac_codex_gate_meta(&g, json_string_value(json_object_get(payload, "id")), forked,
				      ms_of(json_object_get(payload, "timestamp")), line_ms);
	int rc;

	state->codex_gate = g.flags;
	state->codex_cutoff_ms = g.cutoff_ms;
	state->codex_copy_ms = g.copy_ms;
	if (!own)
		return 0;
	return (rc = ac_usage_remember(&state->session_id,
				       json_string_value(json_object_get(payload, "id")))) ||
			       (rc = ac_usage_remember(&state->project,
						       json_string_value(json_object_get(payload, "cwd"))))
		       ? rc
		       : 0;
}

/* True when the line is in a fork's copy of its parent. */
static bool copied(ac_usage_file_state *state, const char *type, const json_t *payload,
		   int64_t line_ms)
{
	const char *ptype = json_string_value(json_object_get(payload, "type"));
	ac_codex_gate g = {state->codex_gate, state->codex_cutoff_ms, state->codex_copy_ms};
	bool turn_start = !strcmp(type, "turn_context") ||
			  (!strcmp(type, "event_msg") && ptype &&
			   (!strcmp(ptype, "task_started") || !strcmp(ptype, "turn_started")));
	bool in_copy = ac_codex_gate_copied(&g, turn_start,
					    json_string_value(json_object_get(payload, "turn_id")),
					    line_ms);

	state->codex_gate = g.flags;
	return in_copy;
}

/* 1: a record given; 0: not a usage line (or a repeat, or the parent's);
 * -1: unreadable. */
static int line_record(ac_usage_file_state *state, const json_t *obj, const char *fallback,
		       ac_usage_record_fn fn, void *ctx)
{
	const char *type = json_string_value(json_object_get(obj, "type"));
	const json_t *payload = json_object_get(obj, "payload"), *info, *last, *total;
	const char *when = json_string_value(json_object_get(obj, "timestamp"));
	ac_usage_record r = {0};
	ac_usage_counts totals;
	bool parents;
	int rc;

	if (!json_is_object(obj))
		return -1;
	if (!type || !json_is_object(payload))
		return 0;
	if (!strcmp(type, "session_meta"))
		return note_meta(state, payload, ms_of(json_object_get(obj, "timestamp")));
	parents = copied(state, type, payload, ms_of(json_object_get(obj, "timestamp")));
	if (!strcmp(type, "turn_context") && parents)
		return 0;
	if (!strcmp(type, "turn_context"))
		return (rc = ac_usage_remember(&state->model,
					       json_string_value(json_object_get(payload, "model")))) ||
				       (!state->project &&
					(rc = ac_usage_remember(&state->project,
								json_string_value(json_object_get(payload, "cwd")))))
			       ? rc
			       : 0;
	if (strcmp(type, "event_msg") ||
	    strcmp(json_string_value(json_object_get(payload, "type"))
			   ? json_string_value(json_object_get(payload, "type"))
			   : "",
		   "token_count"))
		return 0;
	info = json_object_get(payload, "info");
	if (!json_is_object(info))
		return 0; /* a rate-limit notice without counts */
	last = json_object_get(info, "last_token_usage");
	total = json_object_get(info, "total_token_usage");
	if (!when || ac_time_parse(&r.timestamp_ms, when) != 0 || r.timestamp_ms < 0)
		return -1;
	if (json_is_object(total)) {
		if (!counts_of(&totals, total))
			return -1;
		if (!grew(&totals, &state->codex_total))
			return 0;
		if (parents) {
			state->codex_total = totals; /* the fork's own totals go on from here */
			return 0;
		}
		if (json_is_object(last)) {
			if (!counts_of(&r.counts, last))
				return -1;
		} else {
			r.counts = growth(&totals, &state->codex_total);
		}
		state->codex_total = totals;
	} else if (!json_is_object(last) || !counts_of(&r.counts, last)) {
		return -1;
	} else if (parents) {
		return 0;
	}
	r.source = AC_USAGE_CODEX;
	r.cost_usd = -1;
	r.session_id = state->session_id ? state->session_id : fallback;
	r.project = state->project ? state->project : "";
	r.model = state->model ? state->model : "";
	return (rc = fn(&r, ctx)) ? rc : 1;
}

static bool usage_line(const char *line, size_t len)
{
	return memmem(line, len, "\"token_count\"", 13) || memmem(line, len, "\"turn_context\"", 14) ||
	       memmem(line, len, "\"session_meta\"", 14) ||
	       memmem(line, len, "\"task_started\"", 14) || memmem(line, len, "\"turn_started\"", 14);
}

int ac_usage_codex_extract(ac_usage_file_state *state, const char *text, size_t len,
			   const char *fallback_session, ac_usage_record_fn fn, void *ctx,
			   size_t *out_skipped)
{
	return ac_usage_each_line(state, text, len, fallback_session, usage_line, line_record, fn,
				  ctx, out_skipped);
}
