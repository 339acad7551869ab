/* Gemini CLI chats: where they are and what one message shows.
 *
 * Folders (google-gemini/gemini-cli packages/core/src/config/storage.ts,
 * projectRegistry.ts): a project's files are in ~/.gemini/tmp/<short
 * name>, the name recorded in ~/.gemini/projects.json ({"projects":
 * {"<root path>": "<short name>"}}) with the root also written in the
 * folder's ".project_root" marker; before that (and still for folders not
 * yet migrated) in ~/.gemini/tmp/<SHA-256 hex of the root>. Chats are
 * chats/session-<time>-<8 hex>.jsonl (the current format, since v0.39),
 * chats/session-*.json (the older one, one document; a resumed one is
 * migrated to the same name + "l", the old file left beside it and not
 * listed again), and a sub-agent's chats/<parent session id>/<agent
 * id>.jsonl (chatRecordingService.ts). The chats name no working
 * directory: the root their folder stands for is the session's cwd.
 *
 * A message record is {id, timestamp, type: user|gemini|info|error|
 * warning, content (a string, a part or a list of parts {text, thought?,
 * functionResponse?}), displayContent?, and for gemini toolCalls: [{id,
 * name, args, result, status}], thoughts, tokens, model}
 * (chatRecordingTypes.ts). ac_source_gemini_jsonl.c applies the loader's
 * rules over them. */
#include "ac_source_gemini_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_sha256.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- folders ---- */

/* The root a project folder stands for, when its marker says so
 * (allocated, surrounding blanks cut as the CLI cuts them). */
static char *declared_root(const char *folder)
{
	ac_buf path = AC_BUF_INIT;
	char *text = NULL, *start;
	size_t len = 0;

	if (ac_buf_printf(&path, "%s/.project_root", folder) == 0 &&
	    ac_file_read(&text, &len, path.data) == 0) {
		while (len && strchr(" \t\r\n", text[len - 1]))
			text[--len] = '\0';
		for (start = text; *start && strchr(" \t\r\n", *start); start++)
			;
		if (start != text)
			memmove(text, start, strlen(start) + 1);
		if (!*text) {
			free(text);
			text = NULL;
		}
	}
	ac_error_clear();
	ac_buf_free(&path);
	return text;
}

/* ~/.gemini/projects.json's "projects" object for the tmp folder dir (a
 * new reference), or NULL when absent or not that shape. */
static json_t *load_registry(const char *dir)
{
	ac_buf path = AC_BUF_INIT;
	const char *slash = strrchr(dir, '/');
	char *text = NULL;
	size_t len = 0;
	json_t *doc = NULL, *projects = NULL;

	if (!slash)
		return NULL;
	if (ac_buf_printf(&path, "%.*s/projects.json", (int)(slash - dir), dir) == 0 &&
	    ac_file_read(&text, &len, path.data) == 0)
		doc = json_loadb(text, len, 0, NULL);
	ac_error_clear();
	projects = json_object_get(doc, "projects");
	if (json_is_object(projects))
		json_incref(projects);
	else
		projects = NULL;
	json_decref(doc);
	free(text);
	ac_buf_free(&path);
	return projects;
}

/* The project folder of a chat file (allocated): the folder above chats/. */
static char *project_folder(const char *chat_path)
{
	char *folder = strdup(chat_path), *slash;

	if (!folder)
		return NULL;
	if ((slash = strrchr(folder, '/')))
		*slash = '\0';
	/* A sub-agent's chat sits one folder deeper. */
	if ((slash = strrchr(folder, '/')) && strcmp(slash + 1, "chats"))
		*slash = '\0';
	if ((slash = strrchr(folder, '/')) && !strcmp(slash + 1, "chats")) {
		*slash = '\0';
		return folder;
	}
	free(folder);
	return NULL;
}

char *ac_source_gemini_root_of(const char *chat_path)
{
	char *folder = project_folder(chat_path), *root = NULL, *slash;
	const char *name, *key;
	json_t *projects, *value;

	if (!folder)
		return NULL;
	if ((root = declared_root(folder)) || !(slash = strrchr(folder, '/'))) {
		free(folder);
		return root;
	}
	name = slash + 1;
	*slash = '\0'; /* folder is now the tmp folder */
	projects = load_registry(folder);
	json_object_foreach(projects, key, value) {
		if (json_is_string(value) && !strcmp(json_string_value(value), name)) {
			root = strdup(key);
			break;
		}
	}
	json_decref(projects);
	free(folder);
	return root;
}

char *ac_source_gemini_parent_of(const char *chat_path)
{
	const char *base = strrchr(chat_path, '/'), *up;
	size_t len;

	if (!base || base == chat_path)
		return NULL;
	for (up = base - 1; up > chat_path && *up != '/'; up--)
		;
	if (*up != '/')
		return NULL;
	len = (size_t)(base - up - 1);
	if (len == 5 && !strncmp(up + 1, "chats", 5))
		return NULL;
	/* .../chats/<parent>/<file>: the folder above must be chats. */
	if (up - chat_path < 6 || strncmp(up - 6, "/chats", 6))
		return NULL;
	return strndup(up + 1, len);
}

static bool ends_with(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n >= k && !strcmp(name + n - k, suffix);
}

bool ac_source_gemini_is_document(const char *path)
{
	return ends_with(path, ".json");
}

/* A chat file to list: .jsonl, or .json that was not migrated to the
 * .jsonl beside it (the CLI resumes that one; both hold the session). */
static bool chat_file(const char *path, const char *name)
{
	ac_buf sibling = AC_BUF_INIT;
	struct stat st;
	bool migrated;

	if (ends_with(name, ".jsonl"))
		return true;
	if (!ends_with(name, ".json") || ac_buf_printf(&sibling, "%sl", path))
		return false;
	migrated = lstat(sibling.data, &st) == 0 && S_ISREG(st.st_mode);
	ac_buf_free(&sibling);
	return !migrated;
}

/* The chats of one project folder: session-* at the top, every chat in a
 * sub-agent folder one level down. */
static int walk_chats(const char *chats, int depth, ac_source_found_fn fn, void *ctx)
{
	ac_buf path = AC_BUF_INIT;
	struct dirent *d;
	DIR *dir = opendir(chats);
	int rc = 0;

	if (!dir)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES
			       ? 0 : ac_error_errno(errno, "%s", chats);
	while ((d = readdir(dir)) && rc == 0) {
		struct stat st;

		if (d->d_name[0] == '.')
			continue;
		ac_buf_clear(&path);
		if ((rc = ac_buf_printf(&path, "%s/%s", chats, d->d_name)))
			break;
		if (lstat(path.data, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth == 0)
			rc = walk_chats(path.data, 1, fn, ctx);
		else if (S_ISREG(st.st_mode) && (depth > 0 || !strncmp(d->d_name, "session-", 8)) &&
			 chat_file(path.data, d->d_name))
			rc = fn(path.data, &st, ctx);
		else if (S_ISREG(st.st_mode) &&
			 !((depth > 0 || !strncmp(d->d_name, "session-", 8)) &&
			   ends_with(d->d_name, ".json")))
			/* Not a chat (a migrated .json is one, read as its .jsonl):
			 * the canary's to judge. */
			rc = ac_source_walk_passed(path.data, &st);
	}
	closedir(dir);
	ac_buf_free(&path);
	return rc;
}

/* True when the folder name is the short name projects.json gives a root
 * inside the workspace. */
static bool registered_inside(const json_t *projects, const char *name, const char *workspace)
{
	const char *key;
	json_t *value;

	json_object_foreach((json_t *)projects, key, value)
		if (json_is_string(value) && !strcmp(json_string_value(value), name) &&
		    ac_source_path_inside(key, workspace))
			return true;
	return false;
}

static int discover(const char *dir, const char *workspace, bool all, ac_source_found_fn fn,
		    void *ctx)
{
	char hash[AC_SHA256_HEX_LEN + 1];
	ac_buf folder = AC_BUF_INIT;
	json_t *projects = all ? NULL : load_registry(dir);
	struct dirent *d;
	DIR *top;
	int rc = 0;

	ac_sha256_hex(hash, workspace, strlen(workspace));
	if (!(top = opendir(dir))) {
		json_decref(projects);
		return 0;
	}
	while ((d = readdir(top)) && rc == 0) {
		bool take = all || !strcmp(d->d_name, hash) ||
			    registered_inside(projects, d->d_name, workspace);

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
			rc = walk_chats(folder.data, 0, fn, ctx);
	}
	closedir(top);
	json_decref(projects);
	ac_buf_free(&folder);
	return rc;
}

/* ---- one message ---- */

static bool is_type(const json_t *msg, const char *type)
{
	const char *t = json_string_value(json_object_get(msg, "type"));

	return t && !strcmp(t, type);
}

bool ac_source_gemini_call_open(const json_t *call)
{
	const char *status = json_string_value(json_object_get(call, "status"));

	if (status)
		return strcmp(status, "success") && strcmp(status, "error") &&
		       strcmp(status, "cancelled");
	return !json_object_get(call, "result");
}

static void append_part_text(ac_buf *text, const json_t *part)
{
	const json_t *t = json_is_string(part) ? part : json_object_get(part, "text");

	if (!json_is_string(t) || json_is_true(json_object_get(part, "thought")))
		return;
	if (text->len)
		ac_buf_putc(text, '\n');
	ac_buf_append(text, json_string_value(t), json_string_length(t));
}

char *ac_source_gemini_text(const json_t *content)
{
	ac_buf text = AC_BUF_INIT;
	const json_t *part;
	size_t i;

	if (json_is_array(content))
		json_array_foreach(content, i, part)
			append_part_text(&text, part);
	else
		append_part_text(&text, content);
	if (!text.data)
		return strdup("");
	return ac_buf_detach(&text);
}

bool ac_source_gemini_is_prompt(const char *text)
{
	while (*text && strchr(" \t\r\n", *text))
		text++;
	return *text && *text != '/' && *text != '?' && strncmp(text, "<session_context>", 17) &&
	       strncmp(text, "<hook_context>", 14);
}

/* A user record made only of function responses: the results a rewind or
 * a history sync copied out of the model turn's calls, which show them
 * already (chatRecordingService.ts updateMessagesFromHistory). */
static bool only_responses(const json_t *content)
{
	const json_t *part;
	size_t i;

	if (json_is_object(content))
		return json_object_get(content, "functionResponse") != NULL;
	if (!json_is_array(content) || !json_array_size(content))
		return false;
	json_array_foreach(content, i, part)
		if (!json_object_get(part, "functionResponse"))
			return false;
	return true;
}

/* Injected context the CLI's own history view leaves out. */
static bool injected(const char *text)
{
	while (*text && strchr(" \t\r\n", *text))
		text++;
	return !strncmp(text, "<session_context>", 17) || !strncmp(text, "<hook_context>", 14);
}

/* What a model turn makes: *out_said (it has text), *out_calls (calls with
 * an id), *out_done (of them, finished). */
static void model_turn(const json_t *msg, const char *text, bool *out_said, size_t *out_calls,
		       size_t *out_done)
{
	const json_t *call;
	size_t i;

	*out_said = *text != '\0';
	*out_calls = *out_done = 0;
	json_array_foreach(json_object_get(msg, "toolCalls"), i, call) {
		if (!json_is_string(json_object_get(call, "id")))
			continue;
		(*out_calls)++;
		if (!ac_source_gemini_call_open(call))
			(*out_done)++;
	}
}

size_t ac_source_gemini_shown(const json_t *msg)
{
	const json_t *content = json_object_get(msg, "content");
	char *text;
	size_t calls, done, n = 0;
	bool said;

	if (!is_type(msg, "user") && !is_type(msg, "gemini"))
		return 0;
	if (!(text = ac_source_gemini_text(content)))
		return 0;
	if (is_type(msg, "user")) {
		n = !only_responses(content) && !injected(text);
	} else {
		model_turn(msg, text, &said, &calls, &done);
		n = (said || calls) + (done > 0);
	}
	free(text);
	return n;
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
	if (json_is_object(result))
		result = json_pack("[O]", result);
	else
		json_incref((json_t *)result);
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
	json_decref((json_t *)result);
	out = json_stringn(text.data ? text.data : "", text.len);
	ac_buf_free(&text);
	return out;
}

int ac_source_gemini_put(json_t *out, const json_t *msg)
{
	const json_t *call;
	json_t *blocks, *results;
	char *text;
	size_t k;
	int rc;

	if (!ac_source_gemini_shown(msg))
		return 0;
	if (!(text = ac_source_gemini_text(json_object_get(msg, "content"))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (is_type(msg, "user")) {
		rc = ac_source_put_message(out, "user", json_string(text));
		free(text);
		return rc;
	}
	blocks = json_array();
	results = json_array();
	if (*text)
		json_array_append_new(blocks, json_pack("{s:s, s:s}", "type", "text", "text", text));
	free(text);
	json_array_foreach(json_object_get(msg, "toolCalls"), k, call) {
		const json_t *id = json_object_get(call, "id"), *args = json_object_get(call, "args");
		const char *name = json_string_value(json_object_get(call, "name"));

		if (!json_is_string(id))
			continue;
		json_array_append_new(blocks, json_pack("{s:s, s:O, s:s, s:O}", "type", "tool_use", "id",
							id, "name", name ? name : "?", "input",
							args ? args : json_null()));
		if (!ac_source_gemini_call_open(call))
			json_array_append_new(results, json_pack("{s:s, s:O, s:o}", "type",
								 "tool_result", "tool_use_id", id,
								 "content", result_text(call)));
	}
	rc = ac_source_put_message(out, "assistant", blocks);
	if (rc == 0 && json_array_size(results))
		rc = ac_source_put_message(out, "user", results);
	else
		json_decref(results);
	return rc;
}

static const char *const resume[] = {"gemini", "--resume", "{id}", NULL};

const ac_source_adapter ac_source_gemini = {
	.kind = AC_SOURCE_GEMINI,
	.name = "gemini",
	.key = "gemini",
	.default_dir = ".gemini/tmp",
	.default_resume = resume,
	.jsonl = true,
	.discover = discover,
	.entry = ac_source_gemini_entry,
	.messages = ac_source_gemini_put,
	.document = ac_source_gemini_is_document,
	.forget = ac_source_gemini_forget,
	.conversation = ac_source_gemini_conversation,
	.state_save = ac_source_gemini_state_save,
	.state_restore = ac_source_gemini_state_restore,
};
