/* Claude Code lines summarised without building them (ac_source_claude.c
 * says what the entries mean; this is the same reading, faster).
 *
 * A transcript is mostly tool results the summary never looks at: parsing
 * each line into a jansson tree spent half the time of a cold read in
 * malloc and free. Here the strict scanner (ac_json_scan.h) checks the
 * line and picks the few fields, and the content blocks are walked in
 * place; only the ids of tool calls and the first prompt are copied. A
 * line the scanner refuses goes to jansson, which decides (it accepts a
 * few things the scanner does not). */
#include "ac_source_claude_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_scan.h"

#include <stdlib.h>
#include <string.h>

enum { F_TYPE, F_SUBTYPE, F_SIDECHAIN, F_META, F_COMPACT_SUMMARY, F_CWD, F_TIMESTAMP, F_MESSAGE,
       F_MODEL, F_CONTENT, F_SUMMARY, F_AI_TITLE, F_CUSTOM_TITLE, F_SESSION, F_MSG_ID, F_IN, F_OUT,
       F_CACHE_NEW, F_CACHE_READ, F_COUNT };

static const char *const field_names[F_COUNT] = {
	"type", "subtype", "isSidechain", "isMeta", "isCompactSummary", "cwd", "timestamp",
	"message", "message.model", "message.content", "summary", "aiTitle", "customTitle",
	"sessionId", "message.id", "message.usage.input_tokens", "message.usage.output_tokens",
	"message.usage.cache_creation_input_tokens", "message.usage.cache_read_input_tokens",
};

static ac_json_path paths[F_COUNT];
static ac_json_paths prepared;
static bool ready;

/* The paths, prepared once (the program reads on one thread). */
static int prepare(void)
{
	if (ready)
		return 0;
	for (int i = 0; i < F_COUNT; i++)
		if (ac_json_path_init(&paths[i], field_names[i]))
			return AC_EINVAL;
	if (ac_json_paths_prepare(&prepared, paths, F_COUNT))
		return AC_EINVAL;
	ready = true;
	return 0;
}

static bool is(const ac_json_span *span, const char *text)
{
	return span->type == AC_JSON_STRING && ac_json_string_equals(span, text, strlen(text));
}

/* A decoded copy of a string span (NUL-terminated; a NUL inside ends it
 * early, as a C string would anyway). NULL when out of memory. */
static char *decoded(const ac_json_span *span)
{
	char *out = malloc(span->len + 1);
	ac_json_span s = *span;
	size_t len;

	if (!out)
		return NULL;
	/* A cursor's value does not say whether it holds an escape
	 * (ac_json_cursor_next): looked for, or "a\nb" stays raw. */
	s.has_escape = s.has_escape || memchr(s.start, '\\', s.len);
	ac_json_string_decode(out, &len, &s);
	out[len] = '\0';
	return out;
}

static int set_from(char **field, const ac_json_span *span, bool once)
{
	char *copy;

	if (span->type != AC_JSON_STRING || (once && *field))
		return 0;
	if (!(copy = decoded(span)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	free(*field);
	*field = copy;
	return 0;
}

/* What one content block is: its type, id, tool_use_id, text, and a tool
 * call's name and input spans. */
typedef struct {
	ac_json_span type, id, tool_use_id, text, name, input;
} block_fields;

static void block_of(block_fields *out, const ac_json_span *block)
{
	ac_json_cursor c;
	ac_json_span key, value;

	memset(out, 0, sizeof(*out));
	if (block->type != AC_JSON_OBJECT)
		return;
	ac_json_cursor_init(&c, block);
	while (ac_json_cursor_next(&c, &key, &value)) {
		if (ac_json_string_equals(&key, "type", 4))
			out->type = value;
		else if (ac_json_string_equals(&key, "id", 2))
			out->id = value;
		else if (ac_json_string_equals(&key, "tool_use_id", 11))
			out->tool_use_id = value;
		else if (ac_json_string_equals(&key, "text", 4))
			out->text = value;
		else if (ac_json_string_equals(&key, "name", 4))
			out->name = value;
		else if (ac_json_string_equals(&key, "input", 5))
			out->input = value;
	}
}

/* Calls fn for each block of an array content (nothing for a string);
 * a non-zero return stops and is returned. */
typedef int (*block_fn)(const block_fields *f, void *ctx);

static int each_block(const ac_json_span *content, block_fn fn, void *ctx)
{
	ac_json_cursor c;
	ac_json_span item;
	block_fields f;
	int rc;

	if (content->type != AC_JSON_ARRAY)
		return 0;
	ac_json_cursor_init(&c, content);
	while (ac_json_cursor_next(&c, NULL, &item)) {
		block_of(&f, &item);
		if ((rc = fn(&f, ctx)))
			return rc;
	}
	return 0;
}

static int join_text(const block_fields *f, void *ctx)
{
	ac_buf *text = ctx;
	char *piece;

	if (f->text.type != AC_JSON_STRING || !(piece = decoded(&f->text)))
		return 0;
	if (text->len)
		ac_buf_putc(text, '\n');
	ac_buf_append(text, piece, strlen(piece));
	free(piece);
	return 0;
}

/* The content's text as ac_source_text_of() joins it (allocated). */
static char *content_text(const ac_json_span *content)
{
	ac_buf text = AC_BUF_INIT;

	if (content->type == AC_JSON_STRING)
		return decoded(content);
	each_block(content, join_text, &text);
	return text.data ? ac_buf_detach(&text) : strdup("");
}

typedef struct {
	ac_source_session *s;
	ac_json_span first; /* the first text */
	size_t results;
	bool said;
} turn_ctx;

static int user_block(const block_fields *f, void *ctx)
{
	turn_ctx *t = ctx;

	if (is(&f->type, "tool_result") && f->tool_use_id.type == AC_JSON_STRING) {
		char *id = decoded(&f->tool_use_id);

		if (!id)
			return ac_error_set(AC_ENOMEM, "out of memory");
		ac_source_pending_drop(t->s, id);
		free(id);
		t->results++;
	}
	if (t->first.type == AC_JSON_NONE && f->text.type == AC_JSON_STRING)
		t->first = f->text;
	return 0;
}

static int note_user(ac_source_session *s, const ac_json_span *content)
{
	turn_ctx t = {s, {0}, 0, false};
	char *text;
	int rc;

	if (content->type == AC_JSON_STRING)
		t.first = *content;
	else if ((rc = each_block(content, user_block, &t)))
		return rc;
	/* Only the first text's start matters, unless it may be the task. */
	if (t.first.type != AC_JSON_STRING)
		return ac_source_claude_user_turn(s, "", t.results);
	if (!(text = s->task || t.results ? decoded(&t.first) : content_text(content)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return ac_source_claude_user_turn_take(s, text, t.results);
}

/* The call's name and its first input argument worth showing, as the
 * jansson reader takes them (ac_source_claude_note_tool_json). */
static int note_action(ac_source_session *s, const block_fields *f)
{
	const char *const *keys = ac_source_claude_action_keys();
	ac_json_span arg = {0}, key, value;
	char *name, *text = NULL;
	int rc;

	if (f->name.type != AC_JSON_STRING)
		return 0;
	for (size_t k = 0; keys[k] && arg.type == AC_JSON_NONE; k++) {
		ac_json_cursor c;

		if (f->input.type != AC_JSON_OBJECT)
			break;
		ac_json_cursor_init(&c, &f->input);
		while (ac_json_cursor_next(&c, &key, &value))
			if (value.type == AC_JSON_STRING && value.len > 2 &&
			    ac_json_string_equals(&key, keys[k], strlen(keys[k]))) {
				arg = value;
				break;
			}
	}
	if (!(name = decoded(&f->name)) || (arg.type == AC_JSON_STRING && !(text = decoded(&arg)))) {
		free(name);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	rc = ac_source_claude_note_action(s, name, strlen(name), text, text ? strlen(text) : 0);
	free(name);
	free(text);
	return rc;
}

static uint64_t count_of(const ac_json_span *span)
{
	/* The scanner checked the number; a line goes on past it (a brace). */
	return span->type == AC_JSON_NUMBER && span->start[0] != '-'
		       ? strtoull(span->start, NULL, 10) : 0;
}

static void note_call(ac_source_session *s, const ac_json_span *f)
{
	uint64_t counts[4] = {count_of(&f[F_IN]), count_of(&f[F_OUT]), count_of(&f[F_CACHE_NEW]),
			      count_of(&f[F_CACHE_READ])};
	char *id = f[F_MSG_ID].type == AC_JSON_STRING ? decoded(&f[F_MSG_ID]) : NULL;

	if (f[F_IN].type == AC_JSON_NONE && f[F_OUT].type == AC_JSON_NONE &&
	    f[F_CACHE_NEW].type == AC_JSON_NONE && f[F_CACHE_READ].type == AC_JSON_NONE)
		goto done; /* no usage: as the jansson reader, nothing noted */
	ac_source_claude_note_tokens(s, id, id ? strlen(id) : 0, counts);
done:
	free(id);
}

static int assistant_block(const block_fields *f, void *ctx)
{
	turn_ctx *t = ctx;
	char *id;
	int rc;

	if (is(&f->type, "text"))
		t->said = true;
	if (!is(&f->type, "tool_use") || f->id.type != AC_JSON_STRING)
		return 0;
	if (!(id = decoded(&f->id)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = ac_source_pending_add(t->s, id);
	free(id);
	return rc ? rc : note_action(t->s, f);
}

static int note_assistant(ac_source_session *s, const ac_json_span *content)
{
	turn_ctx t = {s, {0}, 0, content->type == AC_JSON_STRING};
	int rc;

	if ((rc = each_block(content, assistant_block, &t)))
		return rc;
	ac_source_claude_assistant_turn(s, t.said);
	return 0;
}

/* The title member (F_SUMMARY...) of a title entry. */
static int title_field(const char *member)
{
	return !strcmp(member, "summary") ? F_SUMMARY
	       : !strcmp(member, "aiTitle") ? F_AI_TITLE : F_CUSTOM_TITLE;
}

static int scan_line(ac_source_session *s, const char *line, size_t len, bool sub)
{
	ac_json_span f[F_COUNT];
	char type[64];
	const char *member;
	size_t at = 0, type_len;
	ac_claude_message kind;
	ac_claude_entry c;
	int rank, rc;

	if (prepare() || ac_json_scan_prepared(f, line, len, &prepared, NULL) != 0) {
		ac_error_clear();
		return AC_SOURCE_NOT_SCANNED;
	}
	while (at < len && (line[at] == ' ' || line[at] == '\t'))
		at++;
	if (at == len || line[at] != '{') {
		s->malformed++; /* valid JSON, but no entry */
		return 0;
	}
	if (f[F_TYPE].type != AC_JSON_STRING)
		return 0;
	/* A type longer than any Claude Code writes is left to jansson,
	 * which counts it for the canary. */
	if (f[F_TYPE].len > sizeof(type))
		return AC_SOURCE_NOT_SCANNED;
	ac_json_string_decode(type, &type_len, &f[F_TYPE]);
	if ((rank = ac_source_claude_title_rank(type, type_len, &member))) {
		const ac_json_span *title = &f[title_field(member)];
		char *text;

		if (title->type != AC_JSON_STRING)
			return 0;
		if (!(text = decoded(title)))
			return ac_error_set(AC_ENOMEM, "out of memory");
		ac_source_claude_title_take(s, rank, text);
		return 0;
	}
	if ((rc = ac_source_claude_note_type(s, type, type_len)))
		return rc;
	c = (ac_claude_entry){
		.user = is(&f[F_TYPE], "user"),
		.assistant = is(&f[F_TYPE], "assistant"),
		.boundary = is(&f[F_TYPE], "system") && is(&f[F_SUBTYPE], "compact_boundary"),
		/* A sub-agent's file is all sidechain: there, its own thread. */
		.sidechain = !sub && f[F_SIDECHAIN].type == AC_JSON_TRUE,
		.meta = f[F_META].type == AC_JSON_TRUE,
		.compact_summary = f[F_COMPACT_SUMMARY].type == AC_JSON_TRUE,
		.message_object = f[F_MESSAGE].type == AC_JSON_OBJECT,
		.content_ok = f[F_CONTENT].type == AC_JSON_STRING || f[F_CONTENT].type == AC_JSON_ARRAY,
	};
	if (c.sidechain)
		return 0;
	if (sub && !s->parent_id) {
		char *session = f[F_SESSION].type == AC_JSON_STRING ? decoded(&f[F_SESSION]) : NULL;

		rc = ac_source_claude_subagent_note(s, session);
		free(session);
		if (rc)
			return rc;
	} else if (sub) {
		s->relation = AC_SOURCE_SUBAGENT;
	}
	if ((rc = ac_source_claude_session_id(s)) || (rc = set_from(&s->cwd, &f[F_CWD], true)) ||
	    (rc = set_from(&s->started, &f[F_TIMESTAMP], true)) ||
	    (rc = set_from(&s->updated, &f[F_TIMESTAMP], false)))
		return rc;
	if (c.assistant && c.message_object && (rc = set_from(&s->model, &f[F_MODEL], false)))
		return rc;
	kind = ac_source_claude_message(&c);
	s->messages += kind != AC_CLAUDE_NONE;
	if (kind == AC_CLAUDE_USER)
		return note_user(s, &f[F_CONTENT]);
	if (kind == AC_CLAUDE_ASSISTANT) {
		note_call(s, f);
		return note_assistant(s, &f[F_CONTENT]);
	}
	return 0;
}

int ac_source_claude_scan_line(ac_source_session *s, const char *line, size_t len)
{
	return scan_line(s, line, len, false);
}

int ac_source_claude_scan_subagent_line(ac_source_session *s, const char *line, size_t len)
{
	return scan_line(s, line, len, true);
}
