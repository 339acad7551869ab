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
 * content}), summary, ai-title and custom-title (the thread's titles),
 * system, file-history-snapshot and others, which are tolerated (and
 * counted by the canary when unknown). Entries with isSidechain true
 * belong to a sub-agent and are left out of the summary and the
 * conversation; isMeta user entries are context Claude Code adds, left
 * out too. A compaction writes a system entry of subtype
 * compact_boundary (shown as a marker) and a user entry with
 * isCompactSummary (shown as a summary, never the task). A local command
 * (/clear, /compact, "!cmd") writes user entries whose text starts
 * <command-name>, <local-command-stdout>...: its output gives the turn
 * back to the user, as no model was asked. A sub-agent's own file is
 * read by the variant below (ac_source_claude_variant), which keeps its
 * sidechain entries. */
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

/* Text Claude Code writes as the user that is no prompt of the user's. */
static bool starts(const char *text, const char *prefix)
{
	return !strncmp(text, prefix, strlen(prefix));
}

/* A local command's record (/clear, /model, "!ls"): its output closes
 * it, and the model was not asked. */
static bool local_output(const char *text)
{
	return starts(text, "<local-command-stdout>") || starts(text, "<local-command-stderr>") ||
	       starts(text, "<bash-stdout>") || starts(text, "<bash-stderr>");
}

/* Where the user's own words start in text, past the reminders Claude
 * Code puts before them; NULL when text holds none (a slash command's
 * record, a local command's output, its caveat, an injected notice). */
static const char *prompt_of(const char *text)
{
	static const char *const injected[] = {
		"<command-", "<local-command", "Caveat:", "[Request interrupted", "<bash-",
		"<task-notification>", "<user-prompt-submit-hook>", "<system-reminder>", NULL,
	};
	const char *end;

	for (;;) {
		while (*text == ' ' || *text == '\n' || *text == '\t' || *text == '\r')
			text++;
		if (!starts(text, "<system-reminder>") ||
		    !(end = strstr(text, "</system-reminder>")))
			break;
		text = end + strlen("</system-reminder>");
	}
	for (size_t i = 0; injected[i]; i++)
		if (starts(text, injected[i]))
			return NULL;
	return *text ? text : NULL;
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
	const char *prompt = results ? NULL : prompt_of(text);

	if (starts(text, "[Request interrupted")) {
		/* The operator stopped the turn: any call left is dropped. */
		ac_source_pending_clear(s);
		s->turn = AC_TURN_USER;
	} else if (!results && local_output(text)) {
		/* A local command ran (/clear, /compact, "!cmd") and is done:
		 * the prompt is the user's again, not a model's turn. */
		if (!s->npending)
			s->turn = AC_TURN_USER;
	} else if (!results && (starts(text, "<local-command-caveat>") || starts(text, "Caveat:") ||
				starts(text, "<bash-input>"))) {
		; /* says nothing of the turn */
	} else if (results || *text) {
		s->turn = AC_TURN_AGENT;
	}
	if (!s->task && prompt) {
		if (prompt != text)
			memmove(text, prompt, strlen(prompt) + 1);
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

ac_claude_message ac_source_claude_message(const ac_claude_entry *e)
{
	if (e->sidechain)
		return AC_CLAUDE_NONE;
	if (e->boundary)
		return AC_CLAUDE_BOUNDARY;
	if (!e->message_object || !e->content_ok)
		return AC_CLAUDE_NONE;
	if (e->assistant)
		return AC_CLAUDE_ASSISTANT;
	if (!e->user)
		return AC_CLAUDE_NONE;
	if (e->compact_summary)
		return AC_CLAUDE_COMPACT_SUMMARY;
	/* A meta entry is context Claude Code adds (a caveat, a skill's
	 * text): not said by anyone in the conversation. */
	return e->meta ? AC_CLAUDE_NONE : AC_CLAUDE_USER;
}

int ac_source_claude_title_rank(const char *type, size_t len, const char **out_member)
{
	static const struct {
		const char *type, *member;
	} titles[] = {{"summary", "summary"}, {"ai-title", "aiTitle"}, {"custom-title", "customTitle"}};

	for (int i = 0; i < 3; i++)
		if (len == strlen(titles[i].type) && !memcmp(type, titles[i].type, len)) {
			*out_member = titles[i].member;
			return i + 1;
		}
	*out_member = NULL;
	return 0;
}

void ac_source_claude_title_take(ac_source_session *s, int rank, char *title)
{
	/* The user's name for the thread over Claude Code's, over an old
	 * summary line; among one kind, the latest. */
	if (!title || rank < s->title_rank) {
		free(title);
		return;
	}
	free(s->title);
	s->title = title;
	s->title_rank = (unsigned char)rank;
}

int ac_source_claude_note_type(ac_source_session *s, const char *type, size_t len)
{
	static const char *const known[] = {
		"user", "assistant", "system", "summary", "ai-title", "custom-title", "agent-name",
		"file-history-snapshot", "queue-operation", "attachment", "mode", "permission-mode",
		"last-prompt", "progress", "tag", "pr-link", NULL,
	};
	char *name;
	int rc;

	for (size_t i = 0; known[i]; i++)
		if (len == strlen(known[i]) && !memcmp(type, known[i], len))
			return 0;
	if (!(name = strndup(type, len)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = ac_source_note_unknown(s, name);
	free(name);
	return rc;
}

static int note_assistant(ac_source_session *s, const json_t *message)
{
	const json_t *content = json_object_get(message, "content"), *block;
	bool said = false;
	size_t i;
	int rc;

	if ((rc = ac_source_claude_note_call_json(s, message)))
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

static void classify(ac_claude_entry *out, const json_t *e)
{
	const char *type = json_string_value(json_object_get(e, "type"));
	const char *subtype = json_string_value(json_object_get(e, "subtype"));
	const json_t *message = json_object_get(e, "message");
	const json_t *content = json_object_get(message, "content");

	memset(out, 0, sizeof(*out));
	out->user = type && !strcmp(type, "user");
	out->assistant = type && !strcmp(type, "assistant");
	out->boundary = type && !strcmp(type, "system") && subtype &&
			!strcmp(subtype, "compact_boundary");
	out->sidechain = json_is_true(json_object_get(e, "isSidechain"));
	out->meta = json_is_true(json_object_get(e, "isMeta"));
	out->compact_summary = json_is_true(json_object_get(e, "isCompactSummary"));
	out->message_object = json_is_object(message);
	out->content_ok = json_is_string(content) || json_is_array(content);
}

/* One entry of a session's file, or (sub) of a sub-agent's. */
static int entry_of(ac_source_session *s, const json_t *e, bool sub)
{
	const char *type = json_string_value(json_object_get(e, "type"));
	const json_t *message = json_object_get(e, "message");
	const char *member;
	ac_claude_message kind;
	ac_claude_entry c;
	int rank, rc;

	if (!type)
		return 0;
	if ((rank = ac_source_claude_title_rank(type, strlen(type), &member))) {
		/* Claude Code's titles for the thread: shown when no prompt is. */
		const json_t *title = json_object_get(e, member);

		if (json_is_string(title))
			ac_source_claude_title_take(s, rank, strndup(json_string_value(title),
								      json_string_length(title)));
		return 0;
	}
	if ((rc = ac_source_claude_note_type(s, type, strlen(type))))
		return rc;
	classify(&c, e);
	/* A sub-agent's file is all sidechain: there, its own thread. */
	if (sub)
		c.sidechain = false;
	else if (c.sidechain)
		return 0;
	if (sub && (rc = ac_source_claude_subagent_note(
			    s, json_string_value(json_object_get(e, "sessionId")))))
		return rc;
	if ((rc = ac_source_claude_session_id(s)) || (rc = ac_source_set_once(&s->cwd, json_object_get(e, "cwd"))) ||
	    (rc = ac_source_set_once(&s->started, json_object_get(e, "timestamp"))) ||
	    (rc = ac_source_set(&s->updated, json_object_get(e, "timestamp"))))
		return rc;
	if (c.assistant && c.message_object &&
	    (rc = ac_source_set(&s->model, json_object_get(message, "model"))))
		return rc;
	kind = ac_source_claude_message(&c);
	/* A compaction's marker and summary count, are never the task and
	 * leave the turn where it was (an automatic one happens mid-turn). */
	s->messages += kind != AC_CLAUDE_NONE;
	if (kind == AC_CLAUDE_USER)
		return note_user(s, json_object_get(message, "content"));
	if (kind == AC_CLAUDE_ASSISTANT)
		return note_assistant(s, message);
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

/* The marker a compaction leaves in the conversation. Its words are the
 * entry's own (a search, which looks at the line's bytes first, finds
 * what is shown). */
static json_t *boundary_text(const json_t *e)
{
	const json_t *meta = json_object_get(e, "compactMetadata");
	const char *said = json_string_value(json_object_get(e, "content"));
	const char *trigger = json_string_value(json_object_get(meta, "trigger"));
	const json_t *tokens = json_object_get(meta, "preTokens");
	ac_buf text = AC_BUF_INIT;
	json_t *out;

	ac_buf_printf(&text, "[compact boundary]");
	if (said)
		ac_buf_printf(&text, " %s", said);
	if (trigger)
		ac_buf_printf(&text, " (%s", trigger);
	if (trigger && json_is_integer(tokens))
		ac_buf_printf(&text, ", %lld tokens", (long long)json_integer_value(tokens));
	if (trigger)
		ac_buf_putc(&text, ')');
	out = text.data ? json_pack("[{s:s, s:s}]", "type", "text", "text", text.data) : NULL;
	ac_buf_free(&text);
	return out;
}

/* A compaction's summary, labelled as one: it is not the user's words. */
static json_t *summary_content(const json_t *content)
{
	json_t *out = json_pack("[{s:s, s:s}]", "type", "text", "text", "[compact summary]");

	if (!out)
		return NULL;
	if (json_is_string(content))
		json_array_append_new(out, json_pack("{s:s, s:s%}", "type", "text", "text",
						     json_string_value(content),
						     json_string_length(content)));
	else {
		json_t *copy = json_deep_copy(content);

		json_array_extend(out, copy);
		json_decref(copy);
	}
	return out;
}

static int messages_of(json_t *out, const json_t *e, bool sub)
{
	const char *type = json_string_value(json_object_get(e, "type"));
	const json_t *content = json_object_get(json_object_get(e, "message"), "content");
	ac_claude_entry c;

	classify(&c, e);
	if (sub)
		c.sidechain = false;
	switch (ac_source_claude_message(&c)) {
	case AC_CLAUDE_USER:
	case AC_CLAUDE_ASSISTANT:
		/* The blocks are already agentctl's (text, tool_use, tool_result). */
		return ac_source_put_message(out, type, json_deep_copy(content));
	case AC_CLAUDE_COMPACT_SUMMARY:
		return ac_source_put_message(out, "system", summary_content(content));
	case AC_CLAUDE_BOUNDARY:
		return ac_source_put_message(out, "system", boundary_text(e));
	default:
		return 0;
	}
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
	static const char *const names[] = {"type", "subtype", "isSidechain", "isMeta",
					    "isCompactSummary", "message", "message.content"};
	enum { N = sizeof(names) / sizeof(names[0]) };
	ac_json_path paths[N];
	ac_json_span span[N];
	ac_claude_entry c;

	for (size_t i = 0; i < N; i++)
		if (ac_json_path_init(&paths[i], names[i]))
			return -1;
	if (ac_json_scan(span, text, len, paths, N, NULL) != 0)
		return -1;
	c = (ac_claude_entry){
		.user = ac_json_string_equals(&span[0], "user", 4),
		.assistant = ac_json_string_equals(&span[0], "assistant", 9),
		.boundary = ac_json_string_equals(&span[0], "system", 6) &&
			    ac_json_string_equals(&span[1], "compact_boundary", 16),
		.sidechain = !sub && span[2].type == AC_JSON_TRUE,
		.meta = span[3].type == AC_JSON_TRUE,
		.compact_summary = span[4].type == AC_JSON_TRUE,
		.message_object = span[5].type == AC_JSON_OBJECT,
		.content_ok = span[6].type == AC_JSON_STRING || span[6].type == AC_JSON_ARRAY,
	};
	return ac_source_claude_message(&c) != AC_CLAUDE_NONE;
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
