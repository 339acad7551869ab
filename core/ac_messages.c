/* Conversation messages: text, tool-call pairing, tokens and safe cuts.
 *
 * Histories come from several agents, so every shape test here is lenient:
 * a member of the wrong type is treated as absent, never as an error. */
#include "ac_messages.h"

#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_tokens.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shapes ---------------------------------------------------------- */

/* obj[key] when it is a string, else NULL. Borrowed from obj. */
static const char *str_member(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

static bool is_block(const json_t *block, const char *type)
{
	const char *t = str_member(block, "type");

	return t && strcmp(t, type) == 0;
}

/* The tool-call id a role "tool" message answers, or NULL for any other
 * message. The two spellings come from the TypeScript and the Python SDKs. */
static const json_t *tool_message_id_value(const json_t *msg)
{
	const char *role = str_member(msg, "role");
	const json_t *id;

	if (!role || strcmp(role, "tool") != 0)
		return NULL;
	id = json_object_get(msg, "toolCallId");
	id = json_is_string(id) ? id : json_object_get(msg, "tool_call_id");
	return json_is_string(id) ? id : NULL;
}

static const char *tool_message_id(const json_t *msg)
{
	return json_string_value(tool_message_id_value(msg));
}

/* Name and input of one entry of an OpenAI-style tool_calls array, which
 * nests them as function:{name, arguments} or, in some SDKs, keeps them at
 * the top as name plus input or arguments. Either may come back NULL. */
static void openai_call_parts(const json_t **out_name, const json_t **out_input,
			      const json_t *call)
{
	const json_t *function = json_object_get(call, "function");
	const json_t *input;

	if (json_is_object(function)) {
		*out_name = json_object_get(function, "name");
		*out_input = json_object_get(function, "arguments");
		return;
	}
	*out_name = json_object_get(call, "name");
	input = json_object_get(call, "input");
	*out_input = input ? input : json_object_get(call, "arguments");
}

/* ---- text ------------------------------------------------------------ */

/* Takes back what was appended after len. */
static void truncate_to(ac_buf *out, size_t len)
{
	out->len = len;
	if (out->data)
		out->data[len] = '\0';
}

/* Appends value as compact JSON, except a string, which is shown as it is:
 * OpenAI sends tool arguments as a string that already holds JSON. */
static int append_json(ac_buf *out, const json_t *value)
{
	int rc;

	if (json_is_string(value))
		return ac_buf_append(out, json_string_value(value), json_string_length(value));
	/* jansson refuses only a string it cannot encode (one built without
	 * UTF-8 checks); show that something was there rather than fail. */
	if ((rc = ac_json_exact_dump_nested(out, value, JSON_COMPACT, 0)) == AC_EINVAL)
		return ac_buf_append(out, "?", 1);
	return rc;
}

/* A space between parts, none before the first: the rendering is one line
 * per message, and start is where this message's rendering began. */
static int separate(ac_buf *out, size_t start)
{
	return out->len > start ? ac_buf_putc(out, ' ') : 0;
}

static int append_content(ac_buf *out, const json_t *content);

/* A tool's name or call id whole (a \u0000 in it included: shown as ^@
 * later, never cut there, so "read\u0000_evil" does not read "read"), or
 * "?" when it is not a string. */
static int append_name(ac_buf *out, const json_t *name)
{
	if (!json_is_string(name))
		return ac_buf_putc(out, '?');
	return ac_buf_append(out, json_string_value(name), json_string_length(name));
}

static int append_tool_use(ac_buf *out, const json_t *name, const json_t *input)
{
	int rc = ac_buf_printf(out, "[tool_use ");

	if (!rc)
		rc = append_name(out, name);
	if (!rc && input && !json_is_null(input)) {
		if (!(rc = ac_buf_putc(out, ' ')))
			rc = append_json(out, input);
	}
	if (!rc)
		rc = ac_buf_putc(out, ']');
	return rc;
}

static int append_tool_result(ac_buf *out, const json_t *id, const json_t *content)
{
	int rc = ac_buf_printf(out, "[tool_result ");

	if (!rc)
		rc = append_name(out, id);
	if (!rc && content && !json_is_null(content)) {
		if (!(rc = ac_buf_append(out, ": ", 2)))
			rc = append_content(out, content);
	}
	if (!rc)
		rc = ac_buf_putc(out, ']');
	return rc;
}

static int append_block(ac_buf *out, const json_t *block)
{
	const char *type = str_member(block, "type");
	const char *text = str_member(block, "text");

	if (json_is_string(block))
		return append_json(out, block);
	if (!type)
		return text ? append_json(out, json_object_get(block, "text"))
			    : ac_buf_append(out, "[?]", 3);
	if (strcmp(type, "text") == 0)
		return text ? append_json(out, json_object_get(block, "text")) : 0;
	if (strcmp(type, "tool_use") == 0)
		return append_tool_use(out, json_object_get(block, "name"),
				       json_object_get(block, "input"));
	if (strcmp(type, "tool_result") == 0)
		return append_tool_result(out, json_object_get(block, "tool_use_id"),
					  json_object_get(block, "content"));
	return ac_buf_printf(out, "[%s]", type);
}

/* A string as it is, blocks one after another, anything else as JSON so an
 * unknown shape still shows what it holds. Recursion only follows
 * tool_result content into tool_result content, as deep as the file nests. */
static int append_content(ac_buf *out, const json_t *content)
{
	size_t start = out->len;
	size_t i;
	const json_t *block;
	int rc = 0;

	if (!content || json_is_null(content))
		return 0;
	if (!json_is_array(content))
		return append_json(out, content);
	json_array_foreach (content, i, block) {
		size_t before = out->len, after;

		if ((rc = separate(out, start)))
			break;
		after = out->len;
		if ((rc = append_block(out, block)))
			break;
		/* an empty block (a text block without text) leaves no gap */
		if (out->len == after)
			truncate_to(out, before);
	}
	return rc;
}

int ac_message_text(ac_buf *out, const json_t *msg)
{
	const json_t *result_id = tool_message_id_value(msg);
	const json_t *content = json_object_get(msg, "content");
	const json_t *calls = json_object_get(msg, "tool_calls");
	const json_t *call;
	size_t start = out->len;
	size_t i;
	int rc = 0;

	if (result_id)
		rc = append_tool_result(out, result_id, content);
	else
		rc = append_content(out, content);
	if (rc || !json_is_array(calls))
		goto done;
	json_array_foreach (calls, i, call) {
		const json_t *name;
		const json_t *input;

		openai_call_parts(&name, &input, call);
		if ((rc = separate(out, start)) || (rc = append_tool_use(out, name, input)))
			goto done;
	}
done:
	return rc;
}

const char *ac_message_role(const json_t *msg)
{
	const char *role = str_member(msg, "role");

	return role ? role : "?";
}

/* ---- pairing --------------------------------------------------------- */

size_t ac_message_tool_calls(const json_t *msg,
			     void (*fn)(const char *id, const char *name, const json_t *input, void *ctx),
			     void *ctx)
{
	const json_t *content = json_object_get(msg, "content");
	const json_t *calls = json_object_get(msg, "tool_calls");
	const json_t *item;
	size_t i, count = 0;

	/* A call without an id can never be answered, so it is not a call
	 * for pairing purposes; ac_message_text() still shows it. */
	if (json_is_array(content)) {
		json_array_foreach (content, i, item) {
			const char *id = str_member(item, "id");

			if (!id || !is_block(item, "tool_use"))
				continue;
			if (fn)
				fn(id, str_member(item, "name"), json_object_get(item, "input"), ctx);
			count++;
		}
	}
	if (json_is_array(calls)) {
		json_array_foreach (calls, i, item) {
			const char *id = str_member(item, "id");
			const json_t *name;
			const json_t *input;

			if (!id)
				continue;
			openai_call_parts(&name, &input, item);
			if (fn)
				fn(id, json_string_value(name), input, ctx);
			count++;
		}
	}
	return count;
}

size_t ac_message_tool_results(const json_t *msg, void (*fn)(const char *id, void *ctx),
			       void *ctx)
{
	const json_t *content = json_object_get(msg, "content");
	const char *id = tool_message_id(msg);
	const json_t *block;
	size_t i, count = 0;

	if (id) {
		if (fn)
			fn(id, ctx);
		count++;
	}
	if (json_is_array(content)) {
		json_array_foreach (content, i, block) {
			const char *use_id = str_member(block, "tool_use_id");

			if (!use_id || !is_block(block, "tool_result"))
				continue;
			if (fn)
				fn(use_id, ctx);
			count++;
		}
	}
	return count;
}

/* ---- tokens ---------------------------------------------------------- */

uint64_t ac_message_tokens(const json_t *msg)
{
	/* JSON_ENCODE_ANY: a message that is a bare string or number is an
	 * unknown shape, and unknown shapes are counted, not dropped. */
	size_t json_len = 0;
	char *json = ac_json_exact_dumps(msg, JSON_COMPACT | JSON_ENCODE_ANY, &json_len);
	uint64_t tokens = AC_TOKENS_MESSAGE_FRAMING;

	/* Without the JSON (out of memory, or a string jansson cannot
	 * encode) only the framing is known; the header leaves no way to
	 * report more. The estimate is ac_tokens.h's one count, the one the
	 * session index takes from the file's text. */
	if (json) {
		tokens = ac_tokens_message_json(json, json_len);
		free(json);
	}
	return tokens;
}

uint64_t ac_messages_tokens(const json_t *messages)
{
	const json_t *msg;
	uint64_t total = 0;
	size_t i;

	json_array_foreach (messages, i, msg)
		total += ac_message_tokens(msg);
	return total;
}

/* ---- cuts ------------------------------------------------------------ */

/* Open addressing from call id to the message that made it. Ids are
 * borrowed from the messages, which outlive every scan, or, in a cut
 * finder, copied. */
typedef struct {
	const char *id;
	size_t index;
} call_slot;

typedef struct {
	call_slot *slots;
	size_t mask;   /* capacity - 1; capacity is a power of two */
	size_t used;   /* slots holding an id */
	bool copy_ids; /* slots own their ids, and the table grows */
	size_t at;     /* the message being scanned */
	size_t *split; /* at least at + 2 counters, see split_counts() */
	size_t split_cap;
	int rc;        /* AC_ENOMEM once an allocation failed */
} pair_scan;

static size_t hash_id(const char *id)
{
	uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)id; *p; p++)
		h = (h ^ *p) * UINT64_C(1099511628211);
	return (size_t)h;
}

static call_slot *find_slot(pair_scan *scan, const char *id)
{
	size_t i = hash_id(id) & scan->mask;

	while (scan->slots[i].id && strcmp(scan->slots[i].id, id) != 0)
		i = (i + 1) & scan->mask;
	return &scan->slots[i];
}

/* Doubles the table of a scan that copies ids (its size is not known in
 * advance), keeping it at most half full. */
static int grow_slots(pair_scan *scan)
{
	pair_scan bigger = *scan;
	size_t cap = scan->mask + 1;

	if (!scan->copy_ids || scan->used * 2 < cap)
		return 0;
	if (!(bigger.slots = calloc(cap * 2, sizeof(*bigger.slots))))
		return AC_ENOMEM;
	bigger.mask = cap * 2 - 1;
	for (size_t i = 0; i < cap; i++)
		if (scan->slots[i].id)
			*find_slot(&bigger, scan->slots[i].id) = scan->slots[i];
	free(scan->slots);
	scan->slots = bigger.slots;
	scan->mask = bigger.mask;
	return 0;
}

/* A repeated id (some agents number calls per turn: "call_0") maps to its
 * latest call, the one a later result answers. */
static void note_call(const char *id, const char *name, const json_t *input, void *ctx)
{
	pair_scan *scan = ctx;
	call_slot *slot;

	(void)name;
	(void)input;
	if (scan->rc)
		return;
	if (grow_slots(scan)) {
		scan->rc = AC_ENOMEM;
		return;
	}
	slot = find_slot(scan, id);
	if (!slot->id) {
		if (scan->copy_ids && !(id = strdup(id))) {
			scan->rc = AC_ENOMEM;
			return;
		}
		slot->id = id;
		scan->used++;
	}
	slot->index = scan->at;
}

/* A result at r answering a call at c < r makes every cut c < i <= r
 * unsafe: +1 at c + 1, -1 at r + 1, summed later. A result whose call is
 * not in the array (or comes only after it) splits nothing. */
static void note_result(const char *id, void *ctx)
{
	pair_scan *scan = ctx;
	call_slot *slot = find_slot(scan, id);

	if (!slot->id || slot->index >= scan->at)
		return;
	scan->split[slot->index + 1]++;
	scan->split[scan->at + 1]--;
}

/* Notes message msg at index scan->at: its calls first, so that a message
 * answering its own call pairs with that call and not with an earlier one
 * of the same id. */
static void note_message(pair_scan *scan, const json_t *msg)
{
	ac_message_tool_calls(msg, note_call, scan);
	if (!scan->rc)
		ac_message_tool_results(msg, note_result, scan);
}

/* Sets *out to an array of size + 1 counters (the caller frees it): entry
 * i is the number of call/result pairs that cutting before message i would
 * separate, so a cut is safe when it is 0. One pass over the messages, with
 * a difference array instead of marking each pair's span, keeps it O(n)
 * however long the pairs. 0 or AC_ENOMEM. */
static int split_counts(size_t **out, const json_t *messages, size_t size)
{
	pair_scan scan = {0};
	size_t calls = 0, cap = 16;
	const json_t *msg;
	size_t i;
	int rc = 0;

	*out = NULL;
	json_array_foreach (messages, i, msg)
		calls += ac_message_tool_calls(msg, NULL, NULL);
	while (cap < calls * 2 && cap <= SIZE_MAX / 4)
		cap *= 2;
	scan.slots = calloc(cap, sizeof(*scan.slots));
	scan.split = calloc(size + 1, sizeof(*scan.split));
	if (!scan.slots || !scan.split) {
		rc = ac_error_set(AC_ENOMEM, "out of memory pairing %zu tool calls", calls);
		goto done;
	}
	scan.mask = cap - 1;
	json_array_foreach (messages, i, msg) {
		scan.at = i;
		note_message(&scan, msg);
	}
	/* Unsigned on purpose: an entry may wrap below zero before the sum,
	 * but every prefix sum is a true, non-negative count. */
	for (i = 1; i <= size; i++)
		scan.split[i] += scan.split[i - 1];
	*out = scan.split;
	scan.split = NULL;
done:
	free(scan.slots);
	free(scan.split);
	return rc;
}

bool ac_messages_safe_cut(const json_t *messages, size_t index)
{
	size_t size = json_array_size(messages);
	size_t *split = NULL;
	bool safe;

	if (index > size)
		return false;
	if (index == 0 || index == size)
		return true;
	/* Out of memory the answer cannot be known; "unsafe" keeps a caller
	 * from cutting. */
	if (split_counts(&split, messages, size))
		return false;
	safe = split[index] == 0;
	free(split);
	return safe;
}

/* On failure each search below returns the bound it moves towards, which
 * is always a safe cut: nothing is ever split, at worst too much is kept
 * or compacted. */

/* The first safe cut at or after from (from <= size) in summed counts. */
static size_t first_safe_from(const size_t *split, size_t from)
{
	while (split[from])
		from++;
	return from;
}

/* The first safe cut at or after from (from <= size). */
static size_t next_safe_cut(const json_t *messages, size_t size, size_t from)
{
	size_t *split = NULL;

	if (from == size || split_counts(&split, messages, size))
		return size;
	from = first_safe_from(split, from);
	free(split);
	return from;
}

size_t ac_messages_last_start(const json_t *messages, size_t n)
{
	size_t size = json_array_size(messages);
	size_t start, *split = NULL;

	if (n >= size)
		return 0;
	start = size - n;
	if (start == size)
		return size;
	if (split_counts(&split, messages, size))
		return 0;
	while (start > 0 && split[start])
		start--;
	free(split);
	return start;
}

size_t ac_messages_budget_start(const json_t *messages, uint64_t budget)
{
	size_t size = json_array_size(messages);
	size_t start = size;
	uint64_t used = 0;

	/* Tokens only for the messages that might fit: a small budget over a
	 * long history costs a few serialisations, not all of them. */
	while (start > 0) {
		uint64_t cost = ac_message_tokens(json_array_get(messages, start - 1));

		if (cost > budget - used)
			break;
		used += cost;
		start--;
	}
	/* Moving later only drops messages, so the budget still holds. */
	return start == 0 ? 0 : next_safe_cut(messages, size, start);
}

/* floor(fraction * size), at least 1 and at most size (size > 0): seed
 * 001's compactIfNeeded, Math.floor(messages.length * compactFraction),
 * on the same double product (41 messages at 0.5: 20). The seed's 0 (one
 * message) is raised to 1: a summary of nothing replaces nothing. */
static size_t fraction_cut(size_t size, double fraction)
{
	double want = fraction * (double)size;

	/* Fractions outside (0,1], and NaN, are clamped. */
	if (!(want >= 2))
		return 1;
	if (want >= (double)size)
		return size;
	return (size_t)want; /* want > 0: truncation is floor */
}

size_t ac_messages_compaction_cut(const json_t *messages, double fraction)
{
	size_t size = json_array_size(messages);

	if (size == 0)
		return 0;
	return next_safe_cut(messages, size, fraction_cut(size, fraction));
}

/* ---- cuts message by message ----------------------------------------- */

struct ac_cut_finder {
	pair_scan scan;
	size_t count; /* messages added */
};

int ac_cut_finder_new(ac_cut_finder **out)
{
	ac_cut_finder *f = calloc(1, sizeof(*f));

	if (f && (f->scan.slots = calloc(16, sizeof(*f->scan.slots)))) {
		f->scan.mask = 15;
		f->scan.copy_ids = true;
		*out = f;
		return 0;
	}
	free(f);
	return ac_error_set(AC_ENOMEM, "out of memory");
}

int ac_cut_finder_add(ac_cut_finder *f, const json_t *msg)
{
	pair_scan *scan = &f->scan;

	/* Room for this message's counter and the one after it. */
	if (f->count + 2 > scan->split_cap) {
		size_t cap = scan->split_cap ? scan->split_cap * 2 : 1024;
		size_t *split = realloc(scan->split, cap * sizeof(*split));

		if (!split)
			return ac_error_set(AC_ENOMEM, "out of memory");
		memset(split + scan->split_cap, 0, (cap - scan->split_cap) * sizeof(*split));
		scan->split = split;
		scan->split_cap = cap;
	}
	scan->at = f->count++;
	note_message(scan, msg);
	return scan->rc ? ac_error_set(AC_ENOMEM, "out of memory pairing tool calls") : 0;
}

size_t ac_cut_finder_cut(ac_cut_finder *f, double fraction)
{
	size_t *split = f->scan.split, size = f->count;

	if (size == 0)
		return 0;
	if (f->scan.rc)
		return size;
	/* Summed once, in place: the finder takes no more messages after. */
	for (size_t i = 1; i <= size; i++)
		split[i] += split[i - 1];
	f->scan.rc = AC_EINVAL;
	return first_safe_from(split, fraction_cut(size, fraction));
}

void ac_cut_finder_free(ac_cut_finder *f)
{
	if (!f)
		return;
	for (size_t i = 0; i <= f->scan.mask; i++)
		free((char *)f->scan.slots[i].id);
	free(f->scan.slots);
	free(f->scan.split);
	free(f);
}

/* ---- what a writer may append ------------------------------------------ */

static int check_block(const json_t *block, const char *name, size_t i)
{
	const char *type = str_member(block, "type");

	if (!json_is_object(block))
		return ac_error_set(AC_EINVAL, "%s.content[%zu]: must be an object", name, i);
	if (!type)
		return ac_error_set(AC_EINVAL, "%s.content[%zu].type: %s", name, i,
				    json_object_get(block, "type") ? "must be a string" : "missing");
	if (!strcmp(type, "text") && !str_member(block, "text"))
		return ac_error_set(AC_EINVAL, "%s.content[%zu].text: %s", name, i,
				    json_object_get(block, "text") ? "must be a string"
								   : "missing (a text block)");
	if (!strcmp(type, "tool_use")) {
		if (!str_member(block, "id"))
			return ac_error_set(AC_EINVAL, "%s.content[%zu].id: must be a string "
					    "(a tool_use block)", name, i);
		if (!str_member(block, "name"))
			return ac_error_set(AC_EINVAL, "%s.content[%zu].name: must be a string "
					    "(a tool_use block)", name, i);
	}
	if (!strcmp(type, "tool_result") && !str_member(block, "tool_use_id"))
		return ac_error_set(AC_EINVAL, "%s.content[%zu].tool_use_id: must be a string "
				    "(a tool_result block)", name, i);
	return 0;
}

int ac_message_check(const json_t *msg, const char *name)
{
	static const char *const roles[] = {"user", "assistant", "system", "tool", NULL};
	const json_t *content, *calls, *item;
	const char *role;
	size_t i;
	int rc;

	if (!json_is_object(msg))
		return ac_error_set(AC_EINVAL, "%s: must be an object {role, content}", name);
	if (!json_object_get(msg, "role"))
		return ac_error_set(AC_EINVAL, "%s.role: missing", name);
	if (!(role = str_member(msg, "role")))
		return ac_error_set(AC_EINVAL, "%s.role: must be a string", name);
	for (i = 0; roles[i] && strcmp(roles[i], role); i++)
		;
	if (!roles[i])
		return ac_error_set(AC_EINVAL, "%s.role: '%.64s' is not one of user, assistant, "
				    "system, tool", name, role);
	calls = json_object_get(msg, "tool_calls");
	if (calls && !json_is_array(calls))
		return ac_error_set(AC_EINVAL, "%s.tool_calls: must be an array", name);
	json_array_foreach(calls, i, item)
		if (!str_member(item, "id"))
			return ac_error_set(AC_EINVAL, "%s.tool_calls[%zu]%s", name, i,
					    json_is_object(item) ? ".id: must be a string"
								 : ": must be an object");
	content = json_object_get(msg, "content");
	if (!content || json_is_null(content)) {
		if (json_array_size(calls) == 0)
			return ac_error_set(AC_EINVAL, "%s.content: %s", name,
					    content ? "null (allowed only beside tool_calls)" : "missing");
	} else if (json_is_array(content)) {
		json_array_foreach(content, i, item)
			if ((rc = check_block(item, name, i)))
				return rc;
	} else if (!json_is_string(content)) {
		return ac_error_set(AC_EINVAL, "%s.content: must be a string or an array of blocks",
				    name);
	}
	if (!strcmp(role, "tool") && !tool_message_id(msg))
		return ac_error_set(AC_EINVAL, "%s: a role \"tool\" message needs a string "
				    "toolCallId or tool_call_id", name);
	return 0;
}

int ac_messages_check(const json_t *messages, const char *name)
{
	const json_t *msg;
	char element[96];
	size_t i;
	int rc;

	if (!json_is_array(messages))
		return ac_error_set(AC_EINVAL, "%s: must be an array of messages", name);
	json_array_foreach(messages, i, msg) {
		snprintf(element, sizeof(element), "%.64s[%zu]", name, i);
		if ((rc = ac_message_check(msg, element)))
			return rc;
	}
	return 0;
}
