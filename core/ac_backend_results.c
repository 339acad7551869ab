/* Tool results in messages, for the backends' compaction (shared by the
 * file and PostgreSQL backends). */
#include "ac_backend_check.h"

#include "ac_json_exact.h"
#include "ac_messages.h"

#include <stdlib.h>
#include <string.h>

int ac_backend_each_tool_result(json_t *messages, ac_backend_result_fn fn, void *ctx)
{
	json_t *msg, *block;
	size_t i, j;
	int rc;

	json_array_foreach(messages, i, msg) {
		json_t *content = json_object_get(msg, "content");
		const char *id = json_string_value(json_object_get(msg, "toolCallId"));

		if (!id)
			id = json_string_value(json_object_get(msg, "tool_call_id"));
		if (id && !strcmp(ac_message_role(msg), "tool") && content) {
			if ((rc = fn(msg, id, ctx)))
				return rc;
			continue; /* its content is the result (fn may have replaced it) */
		}
		if (!json_is_array(content))
			continue;
		json_array_foreach(content, j, block) {
			const char *type = json_string_value(json_object_get(block, "type"));

			id = json_string_value(json_object_get(block, "tool_use_id"));
			if (type && id && !strcmp(type, "tool_result") && json_object_get(block, "content") &&
			    (rc = fn(block, id, ctx)))
				return rc;
		}
	}
	return 0;
}

/* The output as stored in an artifact: a string's own bytes, anything
 * else as compact JSON. Allocated. */
char *ac_backend_tool_output(const json_t *content, size_t *out_len)
{
	char *text;

	if (json_is_string(content)) {
		*out_len = json_string_length(content);
		text = malloc(*out_len + 1);
		if (text) {
			memcpy(text, json_string_value(content), *out_len);
			text[*out_len] = '\0';
		}
		return text;
	}
	return ac_json_exact_dumps(content, JSON_COMPACT | JSON_ENCODE_ANY, out_len);
}


int ac_backend_artifact_reference(ac_buf *out, const char *id, uint64_t bytes,
				  const char *session_id)
{
	return ac_buf_printf(out, "[artifact %s: %llu bytes; agentctl artifact show %s %s]", id,
			     (unsigned long long)bytes, session_id, id);
}
