/* Antigravity CLI (agy) conversations:
 * ~/.gemini/antigravity-cli/brain/<conversation id>/.system_generated/logs/transcript.jsonl
 *
 * The conversation's own stream (conversations/<id>.db, SQLite with
 * protobuf blobs of no published schema; older conversations/<id>.pb,
 * encrypted) is not read. Its "brain" keeps a plain JSON Lines transcript
 * beside it, one line a step, appended as steps complete:
 *   {step_index, source: USER_EXPLICIT | MODEL | SYSTEM,
 *    type: USER_INPUT | PLANNER_RESPONSE | CONVERSATION_HISTORY |
 *          LIST_DIRECTORY | VIEW_FILE | GREP_SEARCH | RUN_COMMAND |
 *          CODE_ACTION | ERROR_MESSAGE | ...,
 *    status: DONE | ..., created_at (RFC 3339), content?, thinking?,
 *    tool_calls?: [{name, args}]}
 * as public readers take it (wesm/agentsview, kenn-io/agentsview
 * internal/parser/antigravity_brain_transcript.go; docs/SOURCES.md). A
 * prompt's content wraps the user's words in <USER_REQUEST> and appends
 * <ADDITIONAL_METADATA> and <USER_SETTINGS_CHANGE> blocks the user did not
 * type. A PLANNER_RESPONSE is the model's turn; the MODEL steps after it
 * are its tool calls' outputs, in order, naming no call. The folder's name
 * is the conversation id (`agy --conversation <id>` resumes it). The
 * transcript names no working directory: history.jsonl at the root
 * ({display, timestamp, workspace, conversationId?} a prompt) does. No
 * token counts are written in plain text: agy has no usage here. */
#include "ac_source_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_exact.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRANSCRIPT ".system_generated/logs/transcript.jsonl"

/* ---- finding the transcripts ---- */

static bool is_folder(const char *path)
{
	struct stat st;

	/* lstat: a link agy did not make leads nowhere. */
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Every conversation's transcript: which workspace one belongs to is in
 * history.jsonl, read once per conversation (the index keeps it). */
static int discover(const char *dir, const char *workspace, bool all, ac_source_found_fn fn,
		    void *ctx)
{
	ac_buf path = AC_BUF_INIT;
	struct dirent *d;
	DIR *brain;
	int rc = 0;

	(void)workspace;
	(void)all;
	if ((rc = ac_buf_printf(&path, "%s/brain", dir)))
		return rc;
	brain = opendir(path.data);
	while (brain && (d = readdir(brain)) && rc == 0) {
		size_t base;
		struct stat st;

		if (d->d_name[0] == '.')
			continue;
		ac_buf_clear(&path);
		if ((rc = ac_buf_printf(&path, "%s/brain/%s", dir, d->d_name)))
			break;
		if (!is_folder(path.data))
			continue;
		base = path.len;
		if ((rc = ac_buf_printf(&path, "/.system_generated")))
			break;
		if (!is_folder(path.data))
			continue;
		if ((rc = ac_buf_printf(&path, "/logs")))
			break;
		if (!is_folder(path.data))
			continue;
		path.len = base;
		if ((rc = ac_buf_printf(&path, "/" TRANSCRIPT)))
			break;
		if (lstat(path.data, &st) == 0 && S_ISREG(st.st_mode))
			rc = fn(path.data, &st, ctx);
	}
	if (brain)
		closedir(brain);
	ac_buf_free(&path);
	return rc;
}

/* ---- what is not read ---- */

/* True when dir holds a brain transcript for the conversation named by
 * file (<id>.db or <id>.pb). */
static bool has_transcript(ac_buf *path, const char *dir, const char *file)
{
	const char *dot = strrchr(file, '.');
	struct stat st;

	ac_buf_clear(path);
	return dot && ac_buf_printf(path, "%s/brain/%.*s/" TRANSCRIPT, dir, (int)(dot - file),
				    file) == 0 &&
	       lstat(path->data, &st) == 0 && S_ISREG(st.st_mode);
}

static bool ends_with(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n > k && !strcmp(name + n - k, suffix);
}

size_t ac_source_agy_unread(const char *dir)
{
	static const char *const folders[] = {"conversations", "implicit"};
	ac_buf path = AC_BUF_INIT, found = AC_BUF_INIT;
	size_t n = 0;

	for (size_t f = 0; dir && f < sizeof(folders) / sizeof(folders[0]); f++) {
		struct dirent *d;
		DIR *folder;

		ac_buf_clear(&path);
		if (ac_buf_printf(&path, "%s/%s", dir, folders[f]) || !(folder = opendir(path.data)))
			continue;
		while ((d = readdir(folder)))
			if (d->d_name[0] != '.' &&
			    (ends_with(d->d_name, ".db") || ends_with(d->d_name, ".pb")) &&
			    !has_transcript(&found, dir, d->d_name))
				n++;
		closedir(folder);
	}
	ac_buf_free(&path);
	ac_buf_free(&found);
	return n;
}

/* ---- what a step is ---- */

typedef enum {
	STEP_OTHER,    /* bookkeeping (CONVERSATION_HISTORY, CHECKPOINT, ...): no message */
	STEP_PROMPT,   /* the user's words */
	STEP_RESPONSE, /* the model's turn: text, reasoning, tool calls */
	STEP_OUTPUT    /* a tool's output (or an error) */
} step_kind;

static bool str_is(const json_t *e, const char *key, const char *value)
{
	const char *s = json_string_value(json_object_get(e, key));

	return s && !strcmp(s, value);
}

static bool non_empty(const json_t *e, const char *key)
{
	const json_t *v = json_object_get(e, key);

	return json_is_string(v) ? json_string_length(v) > 0 : json_array_size(v) > 0;
}

/* System steps that say nothing to a reader of the conversation. */
static bool is_bookkeeping(const char *type)
{
	return !strcmp(type, "CONVERSATION_HISTORY") || !strcmp(type, "CHECKPOINT") ||
	       !strcmp(type, "EPHEMERAL_MESSAGE");
}

/* What step e is, and whether it makes a message: one rule for the
 * summary, the conversation and the search, so the counts agree. *known
 * (may be NULL) is false for a step of a source or type not known. */
static step_kind kind_of(const json_t *e, bool *known)
{
	const char *type = json_string_value(json_object_get(e, "type"));
	const char *source = json_string_value(json_object_get(e, "source"));
	bool ok = type && source;
	step_kind k = STEP_OTHER;

	if (!ok) {
	} else if (!strcmp(type, "USER_INPUT")) {
		/* Text the system put in the user's place is no prompt. */
		if (!strcmp(source, "USER_EXPLICIT") && json_is_string(json_object_get(e, "content")))
			k = STEP_PROMPT;
		ok = !strcmp(source, "USER_EXPLICIT") || !strcmp(source, "SYSTEM");
	} else if (!strcmp(type, "PLANNER_RESPONSE")) {
		if (non_empty(e, "content") || non_empty(e, "tool_calls") || non_empty(e, "thinking"))
			k = STEP_RESPONSE;
		ok = !strcmp(source, "MODEL");
	} else if (!strcmp(type, "ERROR_MESSAGE") || !strcmp(source, "MODEL")) {
		k = STEP_OUTPUT;
	} else {
		ok = !strcmp(source, "SYSTEM") && is_bookkeeping(type);
	}
	if (known)
		*known = ok;
	return k;
}

/* The user's words in a prompt: inside <USER_REQUEST>, else the text
 * before the blocks agy appends. A new string. */
static char *prompt_text(const json_t *e)
{
	const json_t *content = json_object_get(e, "content");
	const char *text = json_string_value(content), *start, *end, *cut;
	size_t len = json_string_length(content);

	if (!text)
		return strdup("");
	start = text;
	end = text + len;
	if ((cut = strstr(text, "<USER_REQUEST>"))) {
		start = cut + strlen("<USER_REQUEST>");
		if ((cut = strstr(start, "</USER_REQUEST>")))
			end = cut;
	}
	if ((cut = strstr(start, "<ADDITIONAL_METADATA>")) && cut < end)
		end = cut;
	if ((cut = strstr(start, "<USER_SETTINGS_CHANGE>")) && cut < end)
		end = cut;
	while (start < end && (*start == '\n' || *start == ' ' || *start == '\r'))
		start++;
	while (end > start && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\r'))
		end--;
	return strndup(start, (size_t)(end - start));
}

/* A step's number as text ("?" when it has none). */
static void step_number(char *out, size_t size, const json_t *e)
{
	const json_t *n = json_object_get(e, "step_index");

	if (json_is_integer(n))
		snprintf(out, size, "%lld", (long long)json_integer_value(n));
	else
		snprintf(out, size, "?");
}

/* ---- the summary ---- */

/* The conversation id: the name of the folder above .system_generated. */
static int id_from_path(ac_source_session *s)
{
	size_t n = strlen(s->path), tail = strlen("/" TRANSCRIPT);
	const char *end, *start;

	if (n <= tail || strcmp(s->path + n - tail, "/" TRANSCRIPT))
		return 0;
	end = s->path + n - tail;
	for (start = end; start > s->path && start[-1] != '/'; start--)
		;
	if (start == end)
		return 0;
	if (!(s->id = strndup(start, (size_t)(end - start))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

/* history.jsonl, read once and then as it grows, as a map: conversation
 * id -> the workspace its last row names. Without it each conversation's
 * first prompt would read the whole history again (5,000 conversations:
 * 12 s). One file at a time (one agy folder is configured); the lock is
 * for a reader on another thread. */
static struct {
	pthread_mutex_t lock;
	char *path;
	uint64_t dev, ino, offset; /* offset: past the last complete line read */
	json_t *map;
} history = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, NULL};

static int history_row(const char *text, size_t len)
{
	json_t *row;
	const char *id, *ws;
	int rc = 0;

	/* Only a row that names a conversation places one: the rest is not
	 * built. */
	if (!memmem(text, len, "\"conversationId\"", 16))
		return 0;
	row = ac_json_load_js(text, len, JSON_ALLOW_NUL);
	id = json_string_value(json_object_get(row, "conversationId"));
	ws = json_string_value(json_object_get(row, "workspace"));
	if (id && *id && ws && ws[0] == '/' && json_object_set_new(history.map, id, json_string(ws)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	json_decref(row);
	return rc;
}

/* Reads the complete lines of fd from history.offset to size (and a
 * last line without its newline, not consumed), memory bounded by the
 * longest line. */
static int history_read(int fd, uint64_t size)
{
	ac_buf carry = AC_BUF_INIT;
	char *block = malloc(1024 * 1024);
	uint64_t at = history.offset;
	bool skipping = false;
	int rc = 0;

	if (!block)
		return ac_error_set(AC_ENOMEM, "out of memory");
	while (rc == 0 && at < size) {
		ssize_t got = pread(fd, block, size - at < 1024 * 1024 ? (size_t)(size - at) : 1024 * 1024,
				    (off_t)at);
		const char *p = block, *end, *nl;

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		at += (uint64_t)got;
		end = block + got;
		while (rc == 0 && (nl = memchr(p, '\n', (size_t)(end - p)))) {
			if (skipping)
				skipping = false;
			else if (carry.len + (size_t)(nl - p) > AC_SOURCE_LINE_MAX)
				;
			else if ((rc = ac_buf_append(&carry, p, (size_t)(nl - p))) == 0)
				rc = history_row(carry.data, carry.len);
			ac_buf_clear(&carry);
			p = nl + 1;
			history.offset = at - (uint64_t)(end - p);
		}
		if (!skipping && carry.len + (size_t)(end - p) > AC_SOURCE_LINE_MAX) {
			skipping = true;
			ac_buf_clear(&carry);
		}
		if (skipping)
			history.offset = at;
		else if (rc == 0 && p < end)
			rc = ac_buf_append(&carry, p, (size_t)(end - p));
	}
	if (rc == 0 && carry.len && !skipping)
		rc = history_row(carry.data, carry.len); /* read again when it ends */
	ac_buf_free(&carry);
	free(block);
	return rc;
}

/* Brings the map up to date with the history.jsonl at path: what was
 * appended since, or all of it for another file or one that shrank. A
 * history that is missing or cannot be read places nothing. */
static int history_refresh(const char *path)
{
	struct stat st;
	int fd = -1, rc;

	if (ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY | O_NOFOLLOW, 0, path) != 0 ||
	    fstat(fd, &st) != 0) {
		ac_error_clear();
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (!history.path || strcmp(history.path, path) || history.dev != (uint64_t)st.st_dev ||
	    history.ino != (uint64_t)st.st_ino || (uint64_t)st.st_size < history.offset) {
		json_decref(history.map);
		free(history.path);
		history.path = strdup(path);
		history.map = json_object();
		history.dev = (uint64_t)st.st_dev;
		history.ino = (uint64_t)st.st_ino;
		history.offset = 0;
		if (!history.path || !history.map) {
			close(fd);
			free(history.path);
			history.path = NULL;
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
	}
	rc = history_read(fd, (uint64_t)st.st_size);
	close(fd);
	if (rc) {
		free(history.path); /* read again whole next time */
		history.path = NULL;
	}
	return rc;
}

/* s's working folder from history.jsonl, five levels above the
 * transcript. Unknown when no row names the conversation: the session
 * then lists only with --all-projects. */
static int find_cwd(ac_source_session *s)
{
	ac_buf path = AC_BUF_INIT;
	const char *end = s->path + strlen(s->path), *ws;
	int rc;

	/* brain/<id>/.system_generated/logs/transcript.jsonl: five up. */
	for (int up = 0; up < 5 && end > s->path; up++)
		while (--end > s->path && *end != '/')
			;
	if ((rc = ac_buf_append(&path, s->path, (size_t)(end - s->path))) ||
	    (rc = ac_buf_printf(&path, "/history.jsonl"))) {
		ac_buf_free(&path);
		return rc;
	}
	pthread_mutex_lock(&history.lock);
	rc = history_refresh(path.data);
	ws = rc == 0 && history.path ? json_string_value(json_object_get(history.map, s->id)) : NULL;
	if (ws && !(s->cwd = strdup(ws)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	pthread_mutex_unlock(&history.lock);
	ac_buf_free(&path);
	return rc;
}

static int note_calls(ac_source_session *s, const json_t *e)
{
	const json_t *calls = json_object_get(e, "tool_calls");
	char step[32], id[64];
	size_t i;
	int rc;

	step_number(step, sizeof(step), e);
	for (i = 0; i < json_array_size(calls); i++) {
		snprintf(id, sizeof(id), "%s.%zu", step, i);
		if ((rc = ac_source_pending_add(s, id)))
			return rc;
	}
	return 0;
}

static int entry(ac_source_session *s, const json_t *e)
{
	bool known;
	step_kind k = kind_of(e, &known);
	const json_t *at = json_object_get(e, "created_at");
	char *text;
	int rc;

	if ((!s->id && (rc = id_from_path(s))) || (rc = ac_source_set(&s->updated, at)) ||
	    (rc = ac_source_set_once(&s->started, at)))
		return rc;
	if (!known && (rc = ac_source_note_unknown(s, json_string_value(json_object_get(e, "type")))))
		return rc;
	switch (k) {
	case STEP_PROMPT:
		if (!(text = prompt_text(e)))
			return ac_error_set(AC_ENOMEM, "out of memory");
		s->messages++;
		s->turn = AC_TURN_AGENT;
		ac_source_pending_clear(s);
		if (!s->task && *text)
			s->task = text;
		else
			free(text);
		/* Looked up at a prompt, the moment agy notes it in history. */
		return !s->cwd && s->id ? find_cwd(s) : 0;
	case STEP_RESPONSE:
		s->messages++;
		/* A new turn of the model: the calls of the last one are over. */
		ac_source_pending_clear(s);
		if ((rc = note_calls(s, e)))
			return rc;
		if (s->npending)
			s->turn = AC_TURN_AGENT;
		else if (non_empty(e, "content"))
			s->turn = AC_TURN_USER;
		return 0;
	case STEP_OUTPUT:
		s->messages++;
		/* Outputs come in the calls' order; they name none. */
		if (s->npending)
			ac_source_pending_drop(s, s->pending[0]);
		s->turn = AC_TURN_AGENT;
		return 0;
	default:
		return 0;
	}
}

/* ---- the conversation ---- */

static int response_message(json_t *out, const json_t *e)
{
	const json_t *calls = json_object_get(e, "tool_calls"), *call;
	const json_t *content = json_object_get(e, "content"), *thinking = json_object_get(e, "thinking");
	json_t *blocks = json_array();
	char step[32], id[64];
	size_t i;

	if (!blocks)
		return ac_error_set(AC_ENOMEM, "out of memory");
	step_number(step, sizeof(step), e);
	if (json_is_string(thinking) && json_string_length(thinking))
		json_array_append_new(blocks, json_pack("{s:s, s:O}", "type", "thinking", "thinking",
							thinking));
	if (json_is_string(content) && json_string_length(content))
		json_array_append_new(blocks, json_pack("{s:s, s:O}", "type", "text", "text", content));
	json_array_foreach(calls, i, call) {
		const char *name = json_string_value(json_object_get(call, "name"));
		const json_t *args = json_object_get(call, "args");

		snprintf(id, sizeof(id), "%s.%zu", step, i);
		json_array_append_new(blocks, json_pack("{s:s, s:s, s:s, s:O}", "type", "tool_use",
							"id", id, "name", name ? name : "?", "input",
							args ? args : json_null()));
	}
	return ac_source_put_message(out, "assistant", blocks);
}

/* An output names no call: it is shown under its own step and type. */
static int output_message(json_t *out, const json_t *e)
{
	const json_t *content = json_object_get(e, "content");
	const char *type = json_string_value(json_object_get(e, "type"));
	char step[32], id[160];
	json_t *block;

	step_number(step, sizeof(step), e);
	snprintf(id, sizeof(id), "%s %.120s", step, type ? type : "?");
	block = json_pack("{s:s, s:s, s:o}", "type", "tool_result", "tool_use_id", id, "content",
			  json_is_string(content) ? json_deep_copy(content) : json_string(""));
	if (block && str_is(e, "type", "ERROR_MESSAGE"))
		json_object_set_new(block, "is_error", json_true());
	return ac_source_put_message(out, "user", block ? json_pack("[o]", block) : NULL);
}

static int messages(json_t *out, const json_t *e)
{
	char *text;
	int rc;

	switch (kind_of(e, NULL)) {
	case STEP_PROMPT:
		if (!(text = prompt_text(e)))
			return ac_error_set(AC_ENOMEM, "out of memory");
		rc = ac_source_put_message(out, "user", json_string(text));
		free(text);
		return rc;
	case STEP_RESPONSE:
		return response_message(out, e);
	case STEP_OUTPUT:
		return output_message(out, e);
	default:
		return 0;
	}
}

static const char *const resume[] = {"agy", "--conversation", "{id}", NULL};

const ac_source_adapter ac_source_agy = {
	.kind = AC_SOURCE_AGY,
	.name = "antigravity",
	.key = "agy",
	.default_dir = ".gemini/antigravity-cli",
	.default_resume = resume,
	.jsonl = true,
	.discover = discover,
	.entry = entry,
	.messages = messages,
};
