/* Reading one coding-agent transcript incrementally (ac_source.h): the
 * part every adapter shares. An adapter only says what one entry means. */
#include "ac_source_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_exact.h"
#include "ac_zstd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A read takes the file in blocks of this size, so memory stays bounded
 * by the longest line, not by the file. */
#define READ_BLOCK (1024 * 1024)

const ac_source_adapter *ac_source_adapter_of(ac_source_kind kind)
{
	switch (kind) {
	case AC_SOURCE_CLAUDE: return &ac_source_claude;
	case AC_SOURCE_CODEX: return &ac_source_codex;
	case AC_SOURCE_GEMINI: return &ac_source_gemini;
	case AC_SOURCE_AGY: return &ac_source_agy;
	default: return NULL;
	}
}

const ac_source_adapter *ac_source_adapter_for(ac_source_kind kind, const char *path)
{
	const ac_source_adapter *a = ac_source_adapter_of(kind), *v;

	return a && a->variant && (v = a->variant(path)) ? v : a;
}

const char *ac_source_name(ac_source_kind kind)
{
	const ac_source_adapter *a = ac_source_adapter_of(kind);

	return a ? a->name : "?";
}

const char *ac_source_key(ac_source_kind kind)
{
	const ac_source_adapter *a = ac_source_adapter_of(kind);

	return a ? a->key : "?";
}

int ac_source_session_new(ac_source_session **out, ac_source_kind kind, const char *path)
{
	ac_source_session *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	s->kind = kind;
	*out = s;
	return 0;
}

const char *ac_source_relation_name(ac_source_relation relation)
{
	switch (relation) {
	case AC_SOURCE_FORK: return "fork";
	case AC_SOURCE_SUBAGENT: return "subagent";
	default: return "";
	}
}

int ac_source_note_unknown(ac_source_session *s, const char *type)
{
	if (!type || !*type)
		type = "(none)";
	for (size_t i = 0; i < s->nunknown; i++)
		if (!strcmp(s->unknown[i].type, type)) {
			s->unknown[i].count++;
			return 0;
		}
	if (s->nunknown == AC_SOURCE_UNKNOWN_TYPES) {
		s->unknown_other++;
		return 0;
	}
	if (!(s->unknown[s->nunknown].type = strdup(type)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	s->unknown[s->nunknown++].count = 1;
	return 0;
}

bool ac_source_reads_lines(const ac_source_session *s)
{
	const ac_source_adapter *a = ac_source_adapter_of(s->kind);

	return a->jsonl && !(a->document && a->document(s->path));
}

/* The summary's strings: path, then those a read sets. */
#define N_STRINGS 10

static void string_fields(ac_source_session *s, char **out[N_STRINGS])
{
	char **fields[N_STRINGS] = {&s->path, &s->id, &s->cwd, &s->task, &s->title, &s->model,
				    &s->started, &s->updated, &s->parent_id, &s->last_action};

	memcpy(out, fields, sizeof(fields));
}

/* Forgets what was read, for a file read again from its start. */
static void reset_summary(ac_source_session *s)
{
	const ac_source_adapter *a = ac_source_adapter_of(s->kind);

	if (a && a->forget)
		a->forget(s);
	char **fields[N_STRINGS];

	string_fields(s, fields);
	for (size_t i = 1; i < N_STRINGS; i++) { /* all but the path */
		free(*fields[i]);
		*fields[i] = NULL;
	}
	ac_source_pending_clear(s);
	s->messages = s->malformed = 0;
	s->turn = AC_TURN_NONE;
	s->awaiting_approval = false;
	s->relation = AC_SOURCE_TOP;
	s->title_rank = 0;
	s->tokens = s->last_call = s->last_call_tokens = 0;
	for (size_t i = 0; i < s->nunknown; i++)
		free(s->unknown[i].type);
	s->nunknown = s->unknown_other = 0;
	s->reader_flags = 0;
	s->reader_mark[0] = s->reader_mark[1] = 0;
	s->offset = 0;
	s->skipping = false;
}

int ac_source_session_own(ac_source_session *s)
{
	char **fields[N_STRINGS], *copies[N_STRINGS] = {0};
	size_t i;

	if (!s->packed)
		return 0;
	string_fields(s, fields);
	for (i = 0; i < N_STRINGS; i++)
		if (*fields[i] && !(copies[i] = strdup(*fields[i])))
			break;
	if (i < N_STRINGS) {
		while (i-- > 0)
			free(copies[i]);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	for (i = 0; i < N_STRINGS; i++)
		*fields[i] = copies[i];
	s->packed = false;
	return 0;
}

void ac_source_session_free(ac_source_session *s)
{
	if (!s)
		return;
	if (s->packed) { /* freed with s */
		char **fields[N_STRINGS];

		string_fields(s, fields);
		for (size_t i = 0; i < N_STRINGS; i++)
			*fields[i] = NULL;
	}
	reset_summary(s);
	free(s->waiting_reason);
	free(s->pending);
	free(s->path);
	free(s);
}

int ac_source_set(char **field, const json_t *value)
{
	char *copy;

	if (!json_is_string(value))
		return 0;
	copy = strndup(json_string_value(value), json_string_length(value));
	if (!copy)
		return ac_error_set(AC_ENOMEM, "out of memory");
	free(*field);
	*field = copy;
	return 0;
}

int ac_source_set_once(char **field, const json_t *value)
{
	return *field ? 0 : ac_source_set(field, value);
}

int ac_source_pending_add(ac_source_session *s, const char *id)
{
	char *copy;

	if (s->npending == s->pending_cap) {
		size_t cap = s->pending_cap ? s->pending_cap * 2 : 4;
		char **grown = realloc(s->pending, cap * sizeof(*grown));

		if (!grown)
			return ac_error_set(AC_ENOMEM, "out of memory");
		s->pending = grown;
		s->pending_cap = cap;
	}
	if (!(copy = strdup(id)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	s->pending[s->npending++] = copy;
	return 0;
}

void ac_source_pending_drop(ac_source_session *s, const char *id)
{
	for (size_t i = 0; i < s->npending; i++)
		if (!strcmp(s->pending[i], id)) {
			free(s->pending[i]);
			s->pending[i] = s->pending[--s->npending];
			return;
		}
}

void ac_source_pending_clear(ac_source_session *s)
{
	for (size_t i = 0; i < s->npending; i++)
		free(s->pending[i]);
	s->npending = 0;
}

int ac_source_put_message(json_t *out, const char *role, json_t *content)
{
	json_t *msg = content ? json_pack("{s:s, s:o}", "role", role, "content", content) : NULL;

	if (!msg || json_array_append_new(out, msg))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

char *ac_source_text_of(const json_t *content)
{
	ac_buf text = AC_BUF_INIT;
	const json_t *block;
	size_t i;

	if (json_is_string(content))
		return strndup(json_string_value(content), json_string_length(content));
	json_array_foreach(content, i, block) {
		const json_t *t = json_object_get(block, "text");

		if (!json_is_string(t))
			continue;
		if (text.len)
			ac_buf_putc(&text, '\n');
		ac_buf_append(&text, json_string_value(t), json_string_length(t));
	}
	if (!text.data)
		return strdup("");
	return ac_buf_detach(&text);
}

bool ac_source_path_inside(const char *path, const char *folder)
{
	size_t n = strlen(folder);

	if (!path || strncmp(path, folder, n))
		return false;
	return path[n] == '\0' || path[n] == '/' || (n == 1 && folder[0] == '/');
}

/* ---- reading ---- */

static int note_line(ac_source_session *s, const ac_source_adapter *a, const char *line,
		     size_t len)
{
	json_t *entry;
	int rc;

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
		len--;
	if (!len)
		return 0;
	s->bytes_parsed += len;
	if (a->line && (rc = a->line(s, line, len)) != AC_SOURCE_NOT_SCANNED)
		return rc;
	entry = ac_json_load_js(line, len, JSON_ALLOW_NUL);
	if (!json_is_object(entry)) {
		/* A line another writer broke is the tool's business: it is
		 * counted (shown as such) and the rest still reads. */
		s->malformed++;
		json_decref(entry);
		return 0;
	}
	rc = a->entry(s, entry);
	json_decref(entry);
	return rc;
}

/* pread() of up to want bytes at at, again after a signal: *out_got
 * bytes (0 at the end). 0 or AC_EIO naming the file. */
static int read_at(size_t *out_got, const ac_source_session *s, int fd, char *buf, size_t want,
		   uint64_t at)
{
	ssize_t got;

	while ((got = pread(fd, buf, want, (off_t)at)) < 0 && errno == EINTR)
		;
	if (got < 0)
		return ac_error_errno(errno, "%s: read", s->path);
	*out_got = (size_t)got;
	return 0;
}

/* Reads complete lines from s->offset to size. */
static int read_lines(ac_source_session *s, const ac_source_adapter *a, int fd, uint64_t size)
{
	ac_buf carry = AC_BUF_INIT;
	char *block = malloc(READ_BLOCK);
	uint64_t at = s->offset;
	int rc = 0;

	if (!block)
		return ac_error_set(AC_ENOMEM, "out of memory");
	while (at < size) {
		size_t want = size - at < READ_BLOCK ? (size_t)(size - at) : READ_BLOCK, got = 0;
		const char *p = block, *end, *nl;

		if ((rc = read_at(&got, s, fd, block, want, at)))
			goto done;
		if (got == 0)
			break;
		at += got;
		end = block + got;
		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			if (s->skipping) {
				s->skipping = false; /* the end of the overlong line */
			} else if (carry.len + (size_t)(nl - p) > AC_SOURCE_LINE_MAX) {
				/* Overlong, though its end came in this block: the
				 * same rule whatever the blocks (the conversation and
				 * the search drop it too). */
				s->malformed++;
				ac_buf_clear(&carry);
			} else if (carry.len) {
				if ((rc = ac_buf_append(&carry, p, (size_t)(nl - p))))
					goto done;
				rc = note_line(s, a, carry.data, carry.len);
				ac_buf_clear(&carry);
			} else {
				rc = note_line(s, a, p, (size_t)(nl - p));
			}
			if (rc)
				goto done;
			p = nl + 1;
			s->offset = at - (uint64_t)(end - p);
		}
		/* The rest is a line still being written (or longer than a
		 * block): it waits in carry; offset stays at its start. One
		 * past AC_SOURCE_LINE_MAX is given up: counted, dropped, and
		 * skipped to its end, this read or a later one. */
		if (p < end && !s->skipping && carry.len + (size_t)(end - p) > AC_SOURCE_LINE_MAX) {
			s->malformed++;
			s->skipping = true;
			ac_buf_clear(&carry);
		}
		if (s->skipping)
			s->offset = at;
		else if (p < end && (rc = ac_buf_append(&carry, p, (size_t)(end - p))))
			goto done;
	}
done:
	ac_buf_free(&carry);
	free(block);
	return rc;
}

static int read_document(ac_source_session *s, const ac_source_adapter *a, int fd,
			 uint64_t size)
{
	ac_buf text = AC_BUF_INIT;
	json_t *doc = NULL;
	int rc = 0;

	if (size > AC_SOURCE_DOCUMENT_MAX) {
		/* Not a chat any tool wrote: counted, not held. */
		reset_summary(s);
		s->malformed++;
		goto done;
	}
	if ((rc = ac_buf_reserve(&text, (size_t)size + 1)))
		goto done;
	while (text.len < size) {
		size_t got = 0;

		if ((rc = read_at(&got, s, fd, text.data + text.len, (size_t)size - text.len, text.len)))
			goto done;
		if (got == 0)
			break;
		text.len += got;
	}
	reset_summary(s);
	s->bytes_parsed += text.len;
	s->offset = text.len;
	doc = json_loadb(text.data ? text.data : "", text.len, JSON_ALLOW_NUL, NULL);
	if (!json_is_object(doc)) {
		/* Caught mid-rewrite, or broken: counted, read again when it
		 * changes. */
		s->malformed++;
		goto done;
	}
	rc = a->entry(s, doc);
done:
	json_decref(doc);
	ac_buf_free(&text);
	return rc;
}

static int open_transcript(int *out_fd, struct stat *st, const char *path)
{
	int rc;

	/* O_RDONLY and O_NOFOLLOW: these folders are the tools' own; a link
	 * planted there does not lead the reader elsewhere. */
	if ((rc = ac_file_open_regular(out_fd, AT_FDCWD, path, O_RDONLY | O_NOFOLLOW, 0, path)))
		return rc;
	if (fstat(*out_fd, st) != 0) {
		rc = ac_error_errno(errno, "%s: stat", path);
		close(*out_fd);
		*out_fd = -1;
	}
	return rc;
}

static int64_t mtime_ns_of(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

bool ac_source_session_unchanged(const ac_source_session *s, const struct stat *st)
{
	return (uint64_t)st->st_dev == s->dev && (uint64_t)st->st_ino == s->ino &&
	       (uint64_t)st->st_size == s->size && mtime_ns_of(st) == s->mtime_ns;
}

/* A compressed rollout is written once, whole: read again from its start
 * when it changed, as a stream of decompressed blocks cut into lines.
 * s->offset counts decompressed bytes (a line's start while it is noted). */
typedef struct {
	ac_source_session *s;
	const ac_source_adapter *a;
	ac_buf line;
	uint64_t at; /* decompressed bytes seen */
	bool skipping;
} stream_ctx;

static int stream_block(const char *bytes, size_t len, void *ctx)
{
	stream_ctx *c = ctx;
	const char *p = bytes, *end = bytes + len, *nl;
	int rc;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		size_t n = (size_t)(nl - p);

		if (c->skipping) {
			c->skipping = false;
		} else if (c->line.len + n > AC_SOURCE_LINE_MAX) {
			c->s->malformed++;
		} else if ((rc = ac_buf_append(&c->line, p, n)) ||
			   (c->line.len && (rc = note_line(c->s, c->a, c->line.data, c->line.len)))) {
			return rc;
		}
		ac_buf_clear(&c->line);
		c->at += n + 1;
		c->s->offset = c->at;
		p = nl + 1;
	}
	if (!c->skipping && c->line.len + (size_t)(end - p) > AC_SOURCE_LINE_MAX) {
		c->s->malformed++;
		c->skipping = true;
		ac_buf_clear(&c->line);
	}
	c->at += (uint64_t)(end - p);
	return c->skipping ? 0 : ac_buf_append(&c->line, p, (size_t)(end - p));
}

static int read_compressed(ac_source_session *s, const ac_source_adapter *a)
{
	stream_ctx c = {s, a, AC_BUF_INIT, 0, false};
	int rc;

	reset_summary(s);
	rc = ac_zstd_each_block(s->path, stream_block, &c);
	ac_buf_free(&c.line);
	/* Read whole: what the next read compares is the file itself. */
	s->offset = s->size;
	return rc;
}

int ac_source_session_read(ac_source_session *s, bool *out_changed)
{
	const ac_source_adapter *a = ac_source_adapter_for(s->kind, s->path);
	struct stat st;
	int64_t mtime_ns;
	int fd = -1, rc;

	if (out_changed)
		*out_changed = false;
	if ((rc = open_transcript(&fd, &st, s->path)))
		return rc;
	if ((rc = ac_source_session_own(s))) {
		close(fd);
		return rc;
	}
	mtime_ns = mtime_ns_of(&st);
	if (ac_source_session_unchanged(s, &st))
		goto done;
	if (out_changed)
		*out_changed = true;
	if ((uint64_t)st.st_dev != s->dev || (uint64_t)st.st_ino != s->ino ||
	    (uint64_t)st.st_size < s->offset)
		reset_summary(s);
	s->dev = (uint64_t)st.st_dev;
	s->ino = (uint64_t)st.st_ino;
	s->size = (uint64_t)st.st_size;
	s->mtime_ns = mtime_ns;
	s->mtime_ms = mtime_ns / 1000000;
	if (ac_source_reads_lines(s) && ac_zstd_path(s->path))
		rc = read_compressed(s, a);
	else
		rc = ac_source_reads_lines(s) ? read_lines(s, a, fd, s->size)
					      : read_document(s, a, fd, s->size);
done:
	close(fd);
	return rc;
}

/* ---- the conversation, on demand ---- */

typedef struct {
	const ac_source_adapter *a;
	json_t *out;
	ac_buf line;
	int rc;
	bool skipping; /* inside a line past AC_SOURCE_LINE_MAX, as read_lines() */
	void *conv;    /* the adapter's state over the file, when it keeps one */
	uint64_t left; /* bytes still to convert */
} convert_ctx;

#define CONVERT_ENOUGH 1 /* the bytes asked for are converted: stop reading */

static int convert_line(convert_ctx *c, const char *line, size_t len)
{
	json_t *entry = ac_json_load_js(line, len, JSON_ALLOW_NUL);

	if (json_is_object(entry))
		c->rc = c->conv ? c->a->conv_line(c->conv, c->out, entry)
				: c->a->messages(c->out, entry);
	json_decref(entry);
	return c->rc;
}

static int convert_block(const char *bytes, size_t len, void *ctx)
{
	convert_ctx *c = ctx;
	const char *p = bytes, *end, *nl;
	bool enough = len >= c->left;

	if (enough)
		len = (size_t)c->left;
	c->left -= len;
	end = bytes + len;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (c->skipping)
			c->skipping = false;
		else if (c->line.len + (size_t)(nl - p) > AC_SOURCE_LINE_MAX)
			; /* overlong: no message, as read_lines() drops it */
		else if (ac_buf_append(&c->line, p, (size_t)(nl - p)))
			return AC_ENOMEM;
		else if (c->line.len && convert_line(c, c->line.data, c->line.len))
			return c->rc;
		ac_buf_clear(&c->line);
		p = nl + 1;
	}
	if (!c->skipping && c->line.len + (size_t)(end - p) > AC_SOURCE_LINE_MAX) {
		c->skipping = true;
		ac_buf_clear(&c->line);
	}
	if (!c->skipping && ac_buf_append(&c->line, p, (size_t)(end - p)))
		return AC_ENOMEM;
	return enough ? CONVERT_ENOUGH : 0;
}

int ac_source_conversation_upto(json_t **out, const ac_source_session *s, uint64_t end,
				const json_t *then)
{
	convert_ctx c = {ac_source_adapter_for(s->kind, s->path), json_array(), AC_BUF_INIT, 0,
			 false, NULL, end};
	json_t *doc = NULL;
	char *text = NULL;
	size_t len;
	int rc;

	*out = NULL;
	if (!c.out || (c.a->conv_new && !(c.conv = c.a->conv_new()))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (c.a->conversation) {
		rc = c.a->conversation(c.out, s);
	} else if (ac_source_reads_lines(s)) {
		/* A torn last line is left out, as the summary leaves it. */
		rc = ac_zstd_path(s->path) ? ac_zstd_each_block(s->path, convert_block, &c)
					   : ac_file_each_block(s->path, convert_block, &c);
		if (rc == CONVERT_ENOUGH)
			rc = 0;
		if (rc == 0 && then)
			rc = c.conv ? c.a->conv_line(c.conv, c.out, then) : c.a->messages(c.out, then);
	} else if (s->size > AC_SOURCE_DOCUMENT_MAX) {
		rc = ac_error_set(AC_ECORRUPT, "%s: larger than %u MB: not a chat any tool wrote",
				  s->path, AC_SOURCE_DOCUMENT_MAX >> 20);
	} else if ((rc = ac_file_read(&text, &len, s->path)) == 0) {
		doc = json_loadb(text, len, JSON_ALLOW_NUL, NULL);
		if (json_is_object(doc))
			rc = c.a->messages(c.out, doc);
	}
done:
	if (rc == 0)
		*out = json_incref(c.out);
	if (c.conv)
		c.a->conv_free(c.conv);
	json_decref(c.out);
	json_decref(doc);
	free(text);
	ac_buf_free(&c.line);
	return rc;
}

int ac_source_session_conversation(json_t **out, const ac_source_session *s)
{
	return ac_source_conversation_upto(out, s, UINT64_MAX, NULL);
}

int ac_source_session_document(json_t **out, const ac_source_session *s)
{
	json_t *conv = NULL;
	char status[64];
	int rc;

	*out = NULL;
	if ((rc = ac_source_session_conversation(&conv, s)))
		return rc;
	snprintf(status, sizeof(status), "%s transcript (%sread-only)", ac_source_name(s->kind),
		 ac_source_session_archived(s) ? "archived, " : "");
	*out = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "id", s->id ? s->id : "", "task",
			 ac_source_session_task(s), "status", status, "createdAt",
			 s->started ? s->started : "", "updatedAt", s->updated ? s->updated : "",
			 "conversationHistory", conv);
	return *out ? 0 : ac_error_set(AC_ENOMEM, "out of memory");
}

bool ac_source_session_archived(const ac_source_session *s)
{
	return s->kind == AC_SOURCE_CODEX && strstr(s->path, "/archived_sessions/");
}

const char *ac_source_session_task(const ac_source_session *s)
{
	/* A sub-agent's first prompt is its parent's long brief; the tool's
	 * title for it (type: description) says what it is for. */
	if (s->relation == AC_SOURCE_SUBAGENT && s->title)
		return s->title;
	return s->task ? s->task : s->title ? s->title : "";
}

void ac_source_session_inputs(ac_state_inputs *out, const ac_source_session *s, int64_t now_ms)
{
	memset(out, 0, sizeof(*out));
	out->turn = s->turn;
	out->agent = s->agent;
	out->pending_tools = s->npending;
	out->awaiting_approval = s->awaiting_approval;
	out->quiet_ms = now_ms - s->mtime_ms;
}
