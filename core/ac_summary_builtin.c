/* The built-in summariser: counts, the tools used and the files they
 * touched, and one line per message from both ends of a long history. It
 * takes messages one at a time, so a history need not be held whole. */
#include "ac_compact_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_messages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_BYTES 200      /* a message's line in the built-in summary */
#define EDGE_MESSAGES 30    /* long histories: this many lines from each end */
#define INPUT_DEPTH 32      /* how deep file paths are looked for in tool inputs */

static bool is_path_key(const char *key)
{
	static const char *const keys[] = {"path", "file", "file_path", "filename", "filePath",
					   "paths"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

static void add_file(ac_summary_facts *f, const json_t *value)
{
	const char *path = json_string_value(value);

	if (!path || !*path || json_object_get(f->files_seen, path))
		return;
	if (json_object_set_new(f->files_seen, path, json_true()) ||
	    json_array_append_new(f->files, json_string(path)))
		f->rc = AC_ENOMEM;
}

/* File paths anywhere in a tool input: under a path-like key, a string or
 * an array of strings; elsewhere, looked for further down. */
static void collect_files(ac_summary_facts *f, const json_t *value, int depth)
{
	const char *key;
	json_t *item;
	size_t i;

	if (depth > INPUT_DEPTH)
		return;
	if (json_is_array(value)) {
		json_array_foreach(value, i, item)
			collect_files(f, item, depth + 1);
		return;
	}
	json_object_foreach((json_t *)value, key, item) {
		if (!is_path_key(key)) {
			collect_files(f, item, depth + 1);
		} else if (json_is_array(item)) {
			json_t *path;

			json_array_foreach(item, i, path)
				add_file(f, path);
		} else {
			add_file(f, item);
		}
	}
}

static void note_tool_call(const char *id, const char *name, const json_t *input, void *ctx)
{
	ac_summary_facts *f = ctx;
	json_t *entry = NULL, *parsed = NULL;
	size_t i;

	(void)id;
	if (!name)
		name = "?";
	json_array_foreach(f->tools, i, entry)
		if (!strcmp(json_string_value(json_array_get(entry, 0)), name))
			break;
	if (i < json_array_size(f->tools)) {
		json_t *count = json_array_get(entry, 1);

		json_integer_set(count, json_integer_value(count) + 1);
	} else if (json_array_append_new(f->tools, json_pack("[s,i]", name, 1))) {
		f->rc = AC_ENOMEM;
	}
	/* OpenAI-style calls carry their arguments as JSON text. */
	if (json_is_string(input))
		input = parsed = json_loads(json_string_value(input), 0, NULL);
	if (input)
		collect_files(f, input, 0);
	json_decref(parsed);
}

/* Appends text as one line: line breaks folded to single spaces, ends
 * trimmed, cut to LINE_BYTES at a character boundary. */
static int append_line(ac_buf *out, const char *text, size_t len)
{
	size_t start = out->len, kept;
	bool space = true; /* drops leading white space */

	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		bool blank = c == '\n' || c == '\r' || c == ' ' || c == '\t';

		if (blank && space)
			continue;
		if (ac_buf_putc(out, blank ? ' ' : c))
			return AC_ENOMEM;
		space = blank;
	}
	while (out->len > start && out->data[out->len - 1] == ' ')
		out->len--;
	kept = out->len - start;
	if (kept > LINE_BYTES) {
		kept = LINE_BYTES;
		while (kept > 0 && ((unsigned char)out->data[start + kept] & 0xc0) == 0x80)
			kept--;
		out->len = start + kept;
		return ac_buf_append(out, "\xe2\x80\xa6", 3); /* "…" */
	}
	if (out->data)
		out->data[out->len] = '\0';
	return 0;
}

static int append_message_line(ac_buf *out, const json_t *msg, ac_buf *scratch)
{
	ac_buf_clear(scratch);
	if (ac_message_text(scratch, msg) ||
	    ac_buf_printf(out, "- %s: ", ac_message_role(msg)) ||
	    append_line(out, scratch->data ? scratch->data : "", scratch->len) ||
	    ac_buf_putc(out, '\n'))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

static int append_facts(ac_buf *out, const ac_summary_facts *facts)
{
	json_t *item;
	size_t i;

	json_array_foreach(facts->tools, i, item)
		if (ac_buf_printf(out, "%s%s (%lld)", i ? ", " : "Tools used: ",
				  json_string_value(json_array_get(item, 0)),
				  (long long)json_integer_value(json_array_get(item, 1))))
			return AC_ENOMEM;
	if (i && ac_buf_putc(out, '\n'))
		return AC_ENOMEM;
	json_array_foreach(facts->files, i, item)
		if (ac_buf_printf(out, "%s%s", i ? ", " : "Files: ", json_string_value(item)))
			return AC_ENOMEM;
	if (i && ac_buf_putc(out, '\n'))
		return AC_ENOMEM;
	return 0;
}

void ac_summary_builtin_free(ac_summary_builtin *b)
{
	json_decref(b->facts.tools);
	json_decref(b->facts.files);
	json_decref(b->facts.files_seen);
	ac_buf_free(&b->lines);
	ac_buf_free(&b->scratch);
}

int ac_summary_builtin_begin(ac_summary_builtin *b, size_t n)
{
	memset(b, 0, sizeof(*b));
	b->n = n;
	b->facts = (ac_summary_facts){json_array(), json_array(), json_object(), 0};
	if (!b->facts.tools || !b->facts.files || !b->facts.files_seen)
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

int ac_summary_builtin_add(ac_summary_builtin *b, const json_t *msg)
{
	const char *role = ac_message_role(msg);
	size_t i = b->seen++, n = b->n;

	if (!strcmp(role, "user"))
		b->users++;
	else if (!strcmp(role, "assistant"))
		b->assistants++;
	else if (!strcmp(role, "tool"))
		b->tools++;
	else
		b->other++;
	ac_message_tool_calls(msg, note_tool_call, &b->facts);
	if (b->facts.rc)
		return ac_error_set(AC_ENOMEM, "out of memory");
	/* A long history keeps its beginning and its end. */
	if (n > 2 * EDGE_MESSAGES && i >= EDGE_MESSAGES && i < n - EDGE_MESSAGES) {
		if (i == EDGE_MESSAGES && ac_buf_printf(&b->lines, "- \xe2\x80\xa6 (%zu more messages)\n",
							n - 2 * EDGE_MESSAGES))
			return ac_error_set(AC_ENOMEM, "out of memory");
		return 0;
	}
	return append_message_line(&b->lines, msg, &b->scratch);
}

int ac_summary_builtin_finish(char **out, ac_summary_builtin *b)
{
	ac_buf text = AC_BUF_INIT;
	size_t n = b->seen;
	int rc = 0;

	if (ac_buf_printf(&text, "%zu message%s compacted (user %zu, assistant %zu, tool %zu", n,
			  n == 1 ? "" : "s", b->users, b->assistants, b->tools) ||
	    (b->other && ac_buf_printf(&text, ", other %zu", b->other)) ||
	    ac_buf_printf(&text, ").\n") || append_facts(&text, &b->facts) ||
	    ac_buf_printf(&text, "Conversation:\n") ||
	    (b->lines.len && ac_buf_append(&text, b->lines.data, b->lines.len))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	/* No trailing line break: the summary ends with its last line. */
	if (text.len && text.data[text.len - 1] == '\n')
		text.data[--text.len] = '\0';
	if (!(*out = ac_buf_detach(&text)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	ac_buf_free(&text);
	return rc;
}

int ac_summarize_builtin(char **out, const json_t *messages)
{
	ac_summary_builtin b;
	json_t *msg;
	size_t i;
	int rc;

	if ((rc = ac_summary_builtin_begin(&b, json_array_size(messages))))
		goto done;
	json_array_foreach(messages, i, msg)
		if ((rc = ac_summary_builtin_add(&b, msg)))
			goto done;
	rc = ac_summary_builtin_finish(out, &b);
done:
	ac_summary_builtin_free(&b);
	return rc;
}

