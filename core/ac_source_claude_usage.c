/* What a Claude Code transcript says of its model calls, for its row: the
 * tokens they took and the last tool call (ac_source.h: tokens,
 * last_action). Both readers of the adapter (the jansson one and the
 * scanner's) hand their fields here, so they count alike.
 *
 * Claude Code writes one call's message on several lines as it streams,
 * one a content block, each with the same message.id; the input and cache
 * counts repeat and output_tokens grows, the last line holding the real
 * count (ac_usage_claude.c cites the sources). A call is counted when its
 * id differs from the last one counted, and a later line of the same call
 * with a larger total replaces what was counted of it (ccusage's rule:
 * the largest line wins; `agentctl usage` keys by message.id and
 * requestId over every file, a row needs no memory per call). The total
 * is input + output + cache creation + cache read, as usage's
 * totalTokens. A sub-agent's calls are in its own file: its row counts
 * them, its session's row does not (usage books them to the session, by
 * the sessionId they carry). */
#include "ac_source_claude_impl.h"

#include "ac_buf.h"
#include "ac_error.h"

#include <stdlib.h>
#include <string.h>

/* The argument worth showing beside a tool's name, in this order. */
static const char *const action_keys[] = {"command", "file_path", "pattern", "path", "url",
					  "description", "prompt", NULL};

#define ACTION_MAX 160 /* bytes of the argument kept: a row shows less */

const char *const *ac_source_claude_action_keys(void)
{
	return action_keys;
}

static uint64_t fnv1a(const char *text, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
	return h ? h : 1; /* 0 is "none yet" */
}

void ac_source_claude_note_tokens(ac_source_session *s, const char *id, size_t id_len,
				  const uint64_t counts[4])
{
	uint64_t key = id && id_len ? fnv1a(id, id_len) : 0, total = 0;

	for (int i = 0; i < 4; i++)
		total += counts[i];
	if (key && key == s->last_call) {
		/* The same call again: its larger counts replace, never add. */
		if (total > s->last_call_tokens) {
			s->tokens += total - s->last_call_tokens;
			s->last_call_tokens = total;
		}
		return;
	}
	s->last_call = key;
	s->last_call_tokens = total;
	s->tokens += total;
}

int ac_source_claude_note_action(ac_source_session *s, const char *name, size_t name_len,
				 const char *arg, size_t arg_len)
{
	ac_buf b = AC_BUF_INIT;
	const char *nl = arg ? memchr(arg, '\n', arg_len) : NULL;

	if (!name || !name_len)
		return 0;
	if (nl)
		arg_len = (size_t)(nl - arg); /* the first line says what it is */
	if (arg_len > ACTION_MAX) {
		/* Cut on a character's start, so the text stays UTF-8. */
		arg_len = ACTION_MAX;
		while (arg_len && ((unsigned char)arg[arg_len] & 0xC0) == 0x80)
			arg_len--;
	}
	ac_buf_append(&b, name, name_len);
	if (arg && arg_len) {
		ac_buf_putc(&b, ' ');
		ac_buf_append(&b, arg, arg_len);
	}
	if (!b.data) {
		ac_buf_free(&b);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	free(s->last_action);
	s->last_action = ac_buf_detach(&b);
	return 0;
}

int ac_source_claude_note_call_json(ac_source_session *s, const json_t *message)
{
	const json_t *usage = json_object_get(message, "usage"), *id = json_object_get(message, "id");
	static const char *const names[4] = {"input_tokens", "output_tokens",
					     "cache_creation_input_tokens", "cache_read_input_tokens"};
	uint64_t counts[4] = {0, 0, 0, 0};

	if (!json_is_object(usage))
		return 0;
	for (int i = 0; i < 4; i++) {
		json_int_t v = json_integer_value(json_object_get(usage, names[i]));

		counts[i] = v > 0 ? (uint64_t)v : 0;
	}
	ac_source_claude_note_tokens(s, json_string_value(id),
				     json_is_string(id) ? json_string_length(id) : 0, counts);
	return 0;
}

int ac_source_claude_note_tool_json(ac_source_session *s, const json_t *block)
{
	const json_t *name = json_object_get(block, "name"), *input = json_object_get(block, "input");

	if (!json_is_string(name))
		return 0;
	for (size_t i = 0; action_keys[i]; i++) {
		const json_t *v = json_object_get(input, action_keys[i]);

		if (json_is_string(v) && json_string_length(v))
			return ac_source_claude_note_action(s, json_string_value(name),
							    json_string_length(name),
							    json_string_value(v), json_string_length(v));
	}
	return ac_source_claude_note_action(s, json_string_value(name), json_string_length(name),
					    NULL, 0);
}
