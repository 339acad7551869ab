/* Gemini CLI chats: ~/.gemini/tmp/<project hash>/chats/session-*.json.
 *
 * <project hash> is the SHA-256 (hex) of the project root's path; a
 * folder may also say its root in a ".project_root" file, which is read
 * when present. A chat is one JSON document the CLI rewrites whole:
 * {sessionId, projectHash, startTime, lastUpdated, messages: [{id,
 * timestamp, type: user|gemini|info|error|warning, content (a string or
 * parts with "text"), toolCalls: [{id, name, args, result, status}],
 * model, tokens}], summary?}. The document names no working directory:
 * the root its folder stands for is the session's cwd. */
#include "ac_source_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_sha256.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* The root a project folder stands for, when it says so (allocated). */
static char *declared_root(const char *folder)
{
	ac_buf path = AC_BUF_INIT;
	char *text = NULL;
	size_t len = 0;

	if (ac_buf_printf(&path, "%s/.project_root", folder) == 0 &&
	    ac_file_read(&text, &len, path.data) == 0) {
		while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
			text[--len] = '\0';
	}
	ac_buf_free(&path);
	return text;
}

static int discover(const char *dir, const char *workspace, bool all, ac_source_found_fn fn,
		    void *ctx)
{
	char hash[AC_SHA256_HEX_LEN + 1];
	ac_buf folder = AC_BUF_INIT;
	struct dirent *d;
	DIR *top;
	int rc = 0;

	ac_sha256_hex(hash, workspace, strlen(workspace));
	if (!(top = opendir(dir)))
		return 0;
	while ((d = readdir(top)) && rc == 0) {
		bool take = all || !strcmp(d->d_name, hash);

		if (d->d_name[0] == '.')
			continue;
		ac_buf_clear(&folder);
		if ((rc = ac_buf_printf(&folder, "%s/%s", dir, d->d_name)))
			break;
		if (!take) {
			char *root = declared_root(folder.data);

			take = root && ac_source_path_inside(root, workspace);
			free(root);
		}
		if (take && (rc = ac_buf_printf(&folder, "/chats")) == 0)
			rc = ac_source_walk(folder.data, "session-", ".json", 0, fn, ctx);
	}
	closedir(top);
	ac_buf_free(&folder);
	return rc;
}

static bool is_type(const json_t *msg, const char *type)
{
	const char *t = json_string_value(json_object_get(msg, "type"));

	return t && !strcmp(t, type);
}

/* A call that has neither a result nor a final status is still open. */
static bool call_open(const json_t *call)
{
	const char *status = json_string_value(json_object_get(call, "status"));

	if (status)
		return strcmp(status, "success") && strcmp(status, "error") &&
		       strcmp(status, "cancelled");
	return !json_object_get(call, "result");
}

static int note_message(ac_source_session *s, const json_t *msg)
{
	const json_t *calls = json_object_get(msg, "toolCalls"), *call;
	size_t i;
	int rc;

	if (is_type(msg, "user")) {
		char *text = ac_source_text_of(json_object_get(msg, "content"));

		if (!text)
			return ac_error_set(AC_ENOMEM, "out of memory");
		s->messages++;
		s->turn = AC_TURN_AGENT;
		if (!s->task && *text)
			s->task = text;
		else
			free(text);
		return 0;
	}
	if (!is_type(msg, "gemini"))
		return 0;
	s->messages++;
	if ((rc = ac_source_set(&s->model, json_object_get(msg, "model"))))
		return rc;
	ac_source_pending_clear(s);
	json_array_foreach(calls, i, call) {
		const char *status = json_string_value(json_object_get(call, "status"));
		const json_t *id = json_object_get(call, "id");

		if (call_open(call) && (rc = ac_source_pending_add(s, json_is_string(id)
								  ? json_string_value(id) : "?")))
			return rc;
		if (status && !strcmp(status, "awaiting_approval"))
			s->awaiting_approval = true;
	}
	/* After its calls' results the model speaks again: a reply with
	 * results in hand (or none asked) leaves the turn to the user. */
	s->turn = s->npending ? AC_TURN_AGENT : AC_TURN_USER;
	return 0;
}

static int entry(ac_source_session *s, const json_t *doc)
{
	const json_t *list = json_object_get(doc, "messages"), *msg;
	size_t i;
	int rc;

	if ((rc = ac_source_set(&s->id, json_object_get(doc, "sessionId"))) ||
	    (rc = ac_source_set(&s->started, json_object_get(doc, "startTime"))) ||
	    (rc = ac_source_set(&s->updated, json_object_get(doc, "lastUpdated"))))
		return rc;
	json_array_foreach(list, i, msg)
		if ((rc = note_message(s, msg)))
			return rc;
	if ((rc = ac_source_set(&s->title, json_object_get(doc, "summary"))))
		return rc;
	if (!s->cwd) {
		/* chats/ sits in the project folder, whose root is the cwd. */
		char *folder = strndup(s->path, strlen(s->path));
		char *slash;

		if (!folder)
			return ac_error_set(AC_ENOMEM, "out of memory");
		for (int up = 0; up < 2 && (slash = strrchr(folder, '/')); up++)
			*slash = '\0';
		s->cwd = declared_root(folder);
		free(folder);
	}
	return rc;
}

/* A result is a list of parts; a functionResponse's output is its text. */
static json_t *result_text(const json_t *call)
{
	const json_t *result = json_object_get(call, "result"), *part;
	ac_buf text = AC_BUF_INIT;
	json_t *out;
	size_t i;

	if (json_is_string(result))
		return json_deep_copy(result);
	json_array_foreach(result, i, part) {
		const json_t *resp = json_object_get(json_object_get(part, "functionResponse"), "response");
		const json_t *o = json_object_get(resp, "output");

		if (!json_is_string(o))
			o = json_object_get(resp, "error");
		if (!json_is_string(o))
			o = json_object_get(part, "text");
		if (json_is_string(o))
			ac_buf_append(&text, json_string_value(o), json_string_length(o));
	}
	out = json_stringn(text.data ? text.data : "", text.len);
	ac_buf_free(&text);
	return out;
}

static int messages(json_t *out, const json_t *doc)
{
	const json_t *list = json_object_get(doc, "messages"), *msg;
	size_t i;
	int rc = 0;

	json_array_foreach(list, i, msg) {
		const json_t *calls = json_object_get(msg, "toolCalls"), *call;
		json_t *blocks, *results;
		char *text;
		size_t k;

		if (!is_type(msg, "user") && !is_type(msg, "gemini"))
			continue;
		if (!(text = ac_source_text_of(json_object_get(msg, "content"))))
			return ac_error_set(AC_ENOMEM, "out of memory");
		if (is_type(msg, "user")) {
			rc = ac_source_put_message(out, "user", json_string(text));
			free(text);
			if (rc)
				return rc;
			continue;
		}
		blocks = json_array();
		results = json_array();
		if (*text)
			json_array_append_new(blocks, json_pack("{s:s, s:s}", "type", "text", "text", text));
		free(text);
		json_array_foreach(calls, k, call) {
			const json_t *id = json_object_get(call, "id"), *args = json_object_get(call, "args");
			const char *name = json_string_value(json_object_get(call, "name"));

			if (!json_is_string(id))
				continue;
			json_array_append_new(blocks, json_pack("{s:s, s:O, s:s, s:O}", "type", "tool_use",
								"id", id, "name", name ? name : "?",
								"input", args ? args : json_null()));
			if (!call_open(call))
				json_array_append_new(results, json_pack("{s:s, s:O, s:o}", "type",
									 "tool_result", "tool_use_id", id,
									 "content", result_text(call)));
		}
		rc = ac_source_put_message(out, "assistant", blocks);
		if (rc == 0 && json_array_size(results))
			rc = ac_source_put_message(out, "user", results);
		else
			json_decref(results);
		if (rc)
			return rc;
	}
	return 0;
}

static const char *const resume[] = {"gemini", "--resume", "{id}", NULL};

const ac_source_adapter ac_source_gemini = {
	.kind = AC_SOURCE_GEMINI,
	.name = "gemini",
	.key = "gemini",
	.default_dir = ".gemini/tmp",
	.default_resume = resume,
	.jsonl = false,
	.discover = discover,
	.entry = entry,
	.messages = messages,
};
