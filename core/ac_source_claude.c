/* Claude Code transcripts: ~/.claude/projects/<folder>/<session>.jsonl.
 *
 * <folder> is the session's working directory with every byte that is not
 * an ASCII letter or digit replaced by '-' (no runs collapsed: "/a/.b" is
 * "-a--b"); Claude Code cuts a name longer than 200 bytes and appends a
 * hash, so only the first 200 are compared. A workspace's sessions are in
 * its folder and in those of its sub-folders (names that start with the
 * workspace's and go on with '-'); the `cwd` of the entries decides, since
 * two paths can give one name. Sub-agents' files (agent-*.jsonl, beside
 * the sessions or in <session>/subagents/) are children of their session:
 * ac_source_claude_subagent.c.
 *
 * One JSON object a line: type user|assistant (with message {role,
 * content}), summary, system, file-history-snapshot and others, which are
 * tolerated. Entries with isSidechain true belong to a sub-agent and are
 * left out of a session's summary and conversation; a sub-agent's own file
 * is read by the variant below, which keeps them. */
#include "ac_source_claude_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_scan.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_COMPARED 200

static void project_name(ac_buf *out, const char *cwd)
{
	for (const char *p = cwd; *p; p++) {
		char c = *p;
		bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');

		ac_buf_putc(out, alnum ? c : '-');
	}
}

typedef struct {
	const char *prefix; /* the workspace's folder name; NULL: all */
	size_t prefix_len;
	ac_source_found_fn fn;
	void *ctx;
} walk_ctx;

/* A project folder that may hold the workspace's sessions. */
static bool candidate(const walk_ctx *w, const char *name)
{
	size_t n = w->prefix_len > NAME_MAX_COMPARED ? NAME_MAX_COMPARED : w->prefix_len;

	if (!w->prefix)
		return true;
	if (strncmp(name, w->prefix, n))
		return false;
	return n == NAME_MAX_COMPARED || name[n] == '\0' || name[n] == '-';
}

static int found_file(const char *path, const struct stat *st, void *ctx)
{
	const walk_ctx *w = ctx;

	if (ac_source_claude_is_compaction(path))
		return 0;
	return w->fn(path, st, w->ctx);
}

/* The sub-agents of each session folder: <folder>/<session>/subagents/.
 * Only folders are looked into (d_type, else lstat), one opendir each. */
static int walk_subagents(ac_buf *path, const char *folder, walk_ctx *w)
{
	struct dirent *d;
	DIR *dir = opendir(folder);
	int rc = 0;

	if (!dir)
		return 0;
	while ((d = readdir(dir)) && rc == 0) {
		struct stat st;

		if (d->d_name[0] == '.' || (d->d_type != DT_DIR && d->d_type != DT_UNKNOWN))
			continue;
		ac_buf_clear(path);
		if ((rc = ac_buf_printf(path, "%s/%s", folder, d->d_name)))
			break;
		if (d->d_type == DT_UNKNOWN && (lstat(path->data, &st) != 0 || !S_ISDIR(st.st_mode)))
			continue;
		if ((rc = ac_buf_printf(path, "/subagents")) == 0)
			rc = ac_source_walk(path->data, "agent-", ".jsonl", 0, found_file, w);
	}
	closedir(dir);
	return rc;
}

static int discover(const char *dir, const char *workspace, bool all, ac_source_found_fn fn,
		    void *ctx)
{
	ac_buf name = AC_BUF_INIT, folder = AC_BUF_INIT, sub = AC_BUF_INIT;
	walk_ctx w = {NULL, 0, fn, ctx};
	struct dirent *d;
	DIR *top;
	int rc = 0;

	if (!all) {
		project_name(&name, workspace);
		if (!name.data)
			return ac_error_set(AC_ENOMEM, "out of memory");
		w.prefix = name.data;
		w.prefix_len = name.len;
	}
	if (!(top = opendir(dir)))
		goto done;
	while ((d = readdir(top)) && rc == 0) {
		if (d->d_name[0] == '.' || !candidate(&w, d->d_name))
			continue;
		ac_buf_clear(&folder);
		if ((rc = ac_buf_printf(&folder, "%s/%s", dir, d->d_name)))
			break;
		rc = ac_source_walk(folder.data, "", ".jsonl", 0, found_file, &w);
		if (rc == 0)
			rc = walk_subagents(&sub, folder.data, &w);
	}
	closedir(top);
done:
	ac_buf_free(&name);
	ac_buf_free(&folder);
	ac_buf_free(&sub);
	return rc;
}

/* Text Claude Code writes as the user that is no prompt of the user's:
 * slash-command wrappers, local command output, its caveats. */
static bool is_prompt(const char *text)
{
	return *text && strncmp(text, "<command-", 9) && strncmp(text, "<local-command", 14) &&
	       strncmp(text, "Caveat:", 7) && strncmp(text, "[Request interrupted", 20);
}

static int note_user(ac_source_session *s, const json_t *content)
{
	const json_t *block;
	size_t i, results = 0;
	char *text;

	json_array_foreach(content, i, block) {
		const json_t *id = json_object_get(block, "tool_use_id");
		const char *type = json_string_value(json_object_get(block, "type"));

		if (json_is_string(id) && type && !strcmp(type, "tool_result")) {
			ac_source_pending_drop(s, json_string_value(id));
			results++;
		}
	}
	if (!(text = ac_source_text_of(content)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return ac_source_claude_user_turn_take(s, text, results);
}

int ac_source_claude_user_turn_take(ac_source_session *s, char *text, size_t results)
{
	if (!strncmp(text, "[Request interrupted", 20)) {
		/* The operator stopped the turn: any call left is dropped. */
		ac_source_pending_clear(s);
		s->turn = AC_TURN_USER;
	} else if (results || *text) {
		s->turn = AC_TURN_AGENT;
	}
	if (!s->task && !results && is_prompt(text)) {
		s->task = text;
		text = NULL;
	}
	free(text);
	return 0;
}

int ac_source_claude_user_turn(ac_source_session *s, const char *text, size_t results)
{
	char *copy = strdup(text);

	if (!copy)
		return ac_error_set(AC_ENOMEM, "out of memory");
	return ac_source_claude_user_turn_take(s, copy, results);
}

static int note_assistant(ac_source_session *s, const json_t *message)
{
	const json_t *content = json_object_get(message, "content"), *block;
	bool said = false;
	size_t i;
	int rc;

	if ((rc = ac_source_set(&s->model, json_object_get(message, "model"))) ||
	    (rc = ac_source_claude_note_call_json(s, message)))
		return rc;
	json_array_foreach(content, i, block) {
		const char *type = json_string_value(json_object_get(block, "type"));
		const json_t *id = json_object_get(block, "id");

		if (type && !strcmp(type, "tool_use") && json_is_string(id)) {
			if ((rc = ac_source_pending_add(s, json_string_value(id))) ||
			    (rc = ac_source_claude_note_tool_json(s, block)))
				return rc;
		} else if (type && !strcmp(type, "text")) {
			said = true;
		}
	}
	if (json_is_string(content))
		said = true;
	ac_source_claude_assistant_turn(s, said);
	return 0;
}

void ac_source_claude_assistant_turn(ac_source_session *s, bool said)
{
	/* Each content block comes as an entry of its own: a text alone
	 * ends the turn unless a tool call follows; "thinking" does not. */
	if (s->npending)
		s->turn = AC_TURN_AGENT;
	else if (said)
		s->turn = AC_TURN_USER;
}

/* The file's name is the id `claude --resume` takes; entries copied from
 * a resumed session may carry the older sessionId. */
int ac_source_claude_session_id(ac_source_session *s)
{
	const char *base = strrchr(s->path, '/');
	size_t n;

	if (s->id)
		return 0;
	base = base ? base + 1 : s->path;
	n = strlen(base);
	if (n > 6 && !strcmp(base + n - 6, ".jsonl"))
		n -= 6;
	if (!(s->id = strndup(base, n)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

/* One entry of a session's file, or (sub) of a sub-agent's. */
static int entry_of(ac_source_session *s, const json_t *e, bool sub)
{
	const char *type = json_string_value(json_object_get(e, "type"));
	const json_t *message = json_object_get(e, "message");
	int rc;

	if (!type)
		return 0;
	if (!strcmp(type, "summary")) {
		/* Claude Code's own title for the thread: shown when no prompt is. */
		return ac_source_set(&s->title, json_object_get(e, "summary"));
	}
	if (json_is_true(json_object_get(e, "isSidechain")) && !sub)
		return 0;
	if (sub && (rc = ac_source_claude_subagent_note(
			    s, json_string_value(json_object_get(e, "sessionId")))))
		return rc;
	if ((rc = ac_source_claude_session_id(s)) || (rc = ac_source_set_once(&s->cwd, json_object_get(e, "cwd"))) ||
	    (rc = ac_source_set_once(&s->started, json_object_get(e, "timestamp"))) ||
	    (rc = ac_source_set(&s->updated, json_object_get(e, "timestamp"))))
		return rc;
	if (!strcmp(type, "user") && json_is_object(message) &&
	    !json_is_true(json_object_get(e, "isMeta"))) {
		s->messages++;
		return note_user(s, json_object_get(message, "content"));
	}
	if (!strcmp(type, "assistant") && json_is_object(message)) {
		s->messages++;
		return note_assistant(s, message);
	}
	return 0;
}

static int entry(ac_source_session *s, const json_t *e)
{
	return entry_of(s, e, false);
}

static int subagent_entry(ac_source_session *s, const json_t *e)
{
	return entry_of(s, e, true);
}

static int messages_of(json_t *out, const json_t *e, bool sub)
{
	const char *type = json_string_value(json_object_get(e, "type"));
	const json_t *message = json_object_get(e, "message"), *content;

	if (!type || (!sub && json_is_true(json_object_get(e, "isSidechain"))) ||
	    !json_is_object(message) ||
	    (strcmp(type, "user") && strcmp(type, "assistant")))
		return 0;
	content = json_object_get(message, "content");
	if (!json_is_string(content) && !json_is_array(content))
		return 0;
	/* The blocks are already agentctl's (text, tool_use, tool_result). */
	return ac_source_put_message(out, type, json_deep_copy(content));
}

static int messages(json_t *out, const json_t *e)
{
	return messages_of(out, e, false);
}

static int subagent_messages(json_t *out, const json_t *e)
{
	return messages_of(out, e, true);
}

static int count_of(const char *text, size_t len, bool sub)
{
	static const char *const names[] = {"type", "isSidechain", "message", "message.content"};
	ac_json_path paths[4];
	ac_json_span span[4];

	for (size_t i = 0; i < 4; i++)
		if (ac_json_path_init(&paths[i], names[i]))
			return -1;
	if (ac_json_scan(span, text, len, paths, 4, NULL) != 0)
		return -1;
	if ((!ac_json_string_equals(&span[0], "user", 4) &&
	     !ac_json_string_equals(&span[0], "assistant", 9)) ||
	    (!sub && span[1].type == AC_JSON_TRUE) || span[2].type != AC_JSON_OBJECT)
		return 0;
	return span[3].type == AC_JSON_STRING || span[3].type == AC_JSON_ARRAY;
}

static int count(const char *text, size_t len)
{
	return count_of(text, len, false);
}

static int subagent_count(const char *text, size_t len)
{
	return count_of(text, len, true);
}

static const char *const resume[] = {"claude", "--resume", "{id}", NULL};

const ac_source_adapter ac_source_claude = {
	.kind = AC_SOURCE_CLAUDE,
	.name = "claude-code",
	.key = "claude",
	.default_dir = ".claude/projects",
	.default_resume = resume,
	.jsonl = true,
	.discover = discover,
	.entry = entry,
	.messages = messages,
	.line = ac_source_claude_scan_line,
	.count = count,
	.variant = ac_source_claude_variant,
};

/* A sub-agent's file: the same reading, its sidechain entries kept. Never
 * asked to discover (its session's adapter finds the files). */
const ac_source_adapter ac_source_claude_subagent = {
	.kind = AC_SOURCE_CLAUDE,
	.name = "claude-code",
	.key = "claude",
	.default_dir = ".claude/projects",
	.default_resume = resume,
	.jsonl = true,
	.discover = discover,
	.entry = subagent_entry,
	.messages = subagent_messages,
	.line = ac_source_claude_scan_subagent_line,
	.count = subagent_count,
};
