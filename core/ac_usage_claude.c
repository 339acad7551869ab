/* Claude Code transcripts: the usage of each assistant message.
 *
 * A line is {"type":"assistant", "sessionId", "cwd", "timestamp",
 * "requestId", "isSidechain", "message": {"id", "model", "usage":
 * {input_tokens, output_tokens, cache_creation_input_tokens,
 * cache_read_input_tokens, ...}}}. Claude Code writes one message on
 * several lines as it streams, one a content block, all with the same id
 * and requestId; the input and cache counts repeat, output_tokens grows
 * and only the last line holds the real count (5 then 90 in
 * vibe-cafe/vibe-usage#63; ccusage a7141daf "keep complete duplicate
 * usage entries"). A resumed session repeats earlier lines in its new
 * file. So a message is one key, message.id + requestId, counted once
 * with the largest counts any of its lines gave (ccusage's rule: the
 * line with the largest input + output + cache total wins): a later,
 * larger line gives the record again and the receiver replaces the
 * booking; a line no larger is skipped here. Sidechain (subagent) lines
 * are calls that were paid for: counted. Only lines holding both "usage"
 * and "assistant" are parsed at all. */
#include "ac_usage_record.h"

#include "ac_error.h"
#include "ac_usage_impl.h"
#include "ac_time.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* One line: 1 when it gave a record, 0 when it is not a usage line, -1
 * when it should have been one and could not be read; or an AC_E* code. */
static int line_record(ac_usage_file_state *state, const json_t *obj, const char *fallback,
		       ac_usage_record_fn fn, void *ctx)
{
	const json_t *message = json_object_get(obj, "message");
	const json_t *usage = json_object_get(message, "usage");
	const char *id = json_string_value(json_object_get(message, "id"));
	const char *request = json_string_value(json_object_get(obj, "requestId"));
	const char *when = json_string_value(json_object_get(obj, "timestamp"));
	ac_usage_record r = {0};
	uint64_t key = 0;
	int rc;

	if (!json_is_object(obj) ||
	    strcmp(json_string_value(json_object_get(obj, "type")) ? json_string_value(json_object_get(obj, "type")) : "",
		   "assistant") ||
	    !json_is_object(usage))
		return 0;
	if ((rc = ac_usage_remember(&state->session_id, json_string_value(json_object_get(obj, "sessionId")))) ||
	    (rc = ac_usage_remember(&state->project, json_string_value(json_object_get(obj, "cwd")))) ||
	    (rc = ac_usage_remember(&state->model, json_string_value(json_object_get(message, "model")))))
		return rc;
	/* Claude Code 2.x may leave requestId out (junhoyeo/tokscale#563):
	 * the message id alone keys it then, as ccusage's (id, None). */
	if (id && *id)
		key = ac_usage_key_hash(id, request ? request : "");
	if (!ac_usage_count_of(&r.counts.input, usage, "input_tokens") ||
	    !ac_usage_count_of(&r.counts.output, usage, "output_tokens") ||
	    !ac_usage_count_of(&r.counts.cache_create, usage, "cache_creation_input_tokens") ||
	    !ac_usage_count_of(&r.counts.cache_read, usage, "cache_read_input_tokens"))
		return key && ac_usage_file_state_has_key(state, key) ? 0 : -1;
	if (key) {
		const ac_usage_booking *seen = ac_usage_file_state_booking(state, key);

		/* This file gave the message already, as large: nothing new. */
		if (seen && !ac_usage_booking_outgrown(seen, &r.counts))
			return 0;
	}
	if (!when || ac_time_parse(&r.timestamp_ms, when) != 0 || r.timestamp_ms < 0)
		return -1;
	if (key && (rc = ac_usage_file_state_add_key(state, key)))
		return rc;
	r.source = AC_USAGE_CLAUDE;
	r.key = key;
	r.cost_usd = json_is_number(json_object_get(obj, "costUSD"))
			     ? json_number_value(json_object_get(obj, "costUSD"))
			     : -1;
	r.session_id = state->session_id ? state->session_id : fallback;
	r.project = state->project ? state->project : "";
	r.model = json_string_value(json_object_get(message, "model"))
			  ? json_string_value(json_object_get(message, "model"))
			  : "";
	if ((rc = fn(&r, ctx)))
		return rc;
	/* The largest counts this file gave the key, for its next lines (the
	 * receiver read the old ones first). */
	if (key)
		ac_usage_booking_set(ac_usage_file_state_booking(state, key), &r.counts);
	return 1;
}

/* The prefilter: most lines (user turns, tool results, summaries) never
 * reach a parser. */
static bool usage_line(const char *line, size_t len)
{
	return memmem(line, len, "\"usage\"", 7) && memmem(line, len, "\"assistant\"", 11);
}

int ac_usage_claude_extract(ac_usage_file_state *state, const char *text, size_t len,
			    const char *fallback_session, ac_usage_record_fn fn, void *ctx,
			    size_t *out_skipped)
{
	return ac_usage_each_line(state, text, len, fallback_session, usage_line, line_record, fn,
				  ctx, out_skipped);
}
