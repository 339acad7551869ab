/* Walking the elements of an array or the members of an object in text
 * the scanner accepted, one at a time and without building anything (e.g.
 * one message of a session's history at a time). It trusts the text: it
 * does not validate, only finds where each value ends. */
#include "ac_json_scan.h"
#include "ac_json_scan_impl.h"

#include <string.h>

/* Past the string whose opening quote is at p: the first quote not
 * escaped by an odd run of backslashes. */
static const char *past_string(const char *p, const char *end)
{
	for (p++; p < end;) {
		const char *q = memchr(p, '"', (size_t)(end - p));
		const char *b;

		if (!q)
			return end;
		for (b = q; b > p && b[-1] == '\\';)
			b--;
		if ((q - b) % 2 == 0)
			return q + 1;
		p = q + 1;
	}
	return end;
}

static const char *past_value(const char *p, const char *end)
{
	size_t depth = 0;

	if (*p == '"')
		return past_string(p, end);
	if (*p != '{' && *p != '[') {
		while (p < end && *p != ',' && *p != ']' && *p != '}' && *p != ' ' && *p != '\t' &&
		       *p != '\n' && *p != '\r')
			p++;
		return p;
	}
	while (p < end) {
		char c = *p;

		if (c == '"') {
			p = past_string(p, end);
			continue;
		}
		p++;
		if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0)
			return p;
	}
	return end;
}

static ac_json_type type_of(char c)
{
	switch (c) {
	case '{': return AC_JSON_OBJECT;
	case '[': return AC_JSON_ARRAY;
	case '"': return AC_JSON_STRING;
	case 't': return AC_JSON_TRUE;
	case 'f': return AC_JSON_FALSE;
	case 'n': return AC_JSON_NULL;
	default: return AC_JSON_NUMBER;
	}
}

void ac_json_cursor_init(ac_json_cursor *cursor, const ac_json_span *container)
{
	/* Inside the brackets. */
	cursor->p = container->start + 1;
	cursor->end = container->start + container->len - 1;
	cursor->object = container->type == AC_JSON_OBJECT;
}

bool ac_json_cursor_next(ac_json_cursor *cursor, ac_json_span *key, ac_json_span *value)
{
	const char *p = skip_space(cursor->p, cursor->end), *end = cursor->end;

	if (p < end && *p == ',')
		p = skip_space(p + 1, end);
	if (p >= end)
		return false;
	if (cursor->object) {
		const char *key_end = past_string(p, end);

		if (key) {
			memset(key, 0, sizeof(*key));
			key->type = AC_JSON_STRING;
			key->start = p;
			key->len = (size_t)(key_end - p);
			key->has_escape = memchr(p, '\\', key->len) != NULL;
		}
		p = skip_space(key_end, end);
		p = skip_space(p + 1, end); /* the ':' */
	}
	memset(value, 0, sizeof(*value));
	value->type = type_of(*p);
	value->start = p;
	cursor->p = past_value(p, end);
	value->len = (size_t)(cursor->p - p);
	return true;
}
