/* Claude Code transcripts: ~/.claude/projects/<folder>/<session>.jsonl.
 *
 * <folder> is the session's working directory with every byte that is not
 * an ASCII letter or digit replaced by '-' (no runs collapsed: "/a/.b" is
 * "-a--b"); Claude Code cuts a name longer than 200 bytes and appends a
 * hash, so only the first 200 are compared. A workspace's sessions are in
 * its folder and in those of its sub-folders (names that start with the
 * workspace's and go on with '-'); the `cwd` of the entries decides, since
 * two paths can give one name. Files "agent-*.jsonl" hold only sub-agent
 * (sidechain) threads and are not sessions of their own.
 *
 * One JSON object a line: type user|assistant (with message {role,
 * content}), summary, system, file-history-snapshot and others, which are
 * tolerated. Entries with isSidechain true belong to a sub-agent and are
 * left out of the summary and the conversation. */
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
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!strncmp(base, "agent-", 6))
		return 0;
	return w->fn(path, st, w->ctx);
}

static int discover(const char *dir, const char *workspace, bool all, ac_source_found_fn fn,
		    void *ctx)
{
	ac_buf name = AC_BUF_INIT, folder = AC_BUF_INIT;
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
	}
	closedir(top);
done:
	ac_buf_free(&name);
	ac_buf_free(&folder);
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

	if ((rc = ac_source_set(&s->model, json_object_get(message, "model"))))
		return rc;
	json_array_foreach(content, i, block) {
		const char *type = json_string_value(json_object_get(block, "type"));
		const json_t *id = json_object_get(block, "id");

		if (type && !strcmp(type, "tool_use") && json_is_string(id)) {
			if ((rc = ac_source_pending_add(s, json_string_value(id))))
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

/* The record types Claude Code writes (its appendEntry: user, assistant,
 * system and the always-written summary, custom-title,
 * file-history-snapshot, queue-operation; later versions' progress,
 * attachment, ai-title, last-prompt, tag, agent-name, pr-link). Any other
 * is counted by the format-drift canary (`agentctl sources check`). */
static const char *const known_types[] = {
	"user", "assistant", "system", "summary", "custom-title", "file-history-snapshot",
	"queue-operation", "progress", "attachment", "ai-title", "last-prompt", "tag",
	"agent-name", "pr-link",
};

const char *ac_source_claude_known_type(size_t i)
{
	return i < sizeof(known_types) / sizeof(*known_types) ? known_types[i] : NULL;
}

static int entry(ac_source_session *s, const json_t *e)
{
	const char *type = json_string_value(json_object_get(e, "type"));
	const json_t *message = json_object_get(e, "message");
	bool known = false;
	int rc;

	if (!type)
		return 0;
	for (size_t i = 0; ac_source_claude_known_type(i) && !known; i++)
		known = !strcmp(type, ac_source_claude_known_type(i));
	if (!known && (rc = ac_source_note_unknown(s, type)))
		return rc;
	if (!strcmp(type, "summary")) {
		/* Claude Code's own title for the thread: shown when no prompt is. */
		return ac_source_set(&s->title, json_object_get(e, "summary"));
	}
	if (json_is_true(json_object_get(e, "isSidechain")))
		return 0;
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

static int messages(json_t *out, const json_t *e)
{
	const char *type = json_string_value(json_object_get(e, "type"));
	const json_t *message = json_object_get(e, "message"), *content;

	if (!type || json_is_true(json_object_get(e, "isSidechain")) || !json_is_object(message) ||
	    (strcmp(type, "user") && strcmp(type, "assistant")))
		return 0;
	content = json_object_get(message, "content");
	if (!json_is_string(content) && !json_is_array(content))
		return 0;
	/* The blocks are already agentctl's (text, tool_use, tool_result). */
	return ac_source_put_message(out, type, json_deep_copy(content));
}

static int count(const char *text, size_t len)
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
	    span[1].type == AC_JSON_TRUE || span[2].type != AC_JSON_OBJECT)
		return 0;
	return span[3].type == AC_JSON_STRING || span[3].type == AC_JSON_ARRAY;
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
};
