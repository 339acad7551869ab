/* Event schema checks over scanned spans, and completion of new events. */
#include "ac_event.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_scan.h"
#include "ac_text.h"
#include "ac_time.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define PATH1(a) {{a}, {sizeof(a) - 1}, 1}
#define PATH2(a, b) {{a, b}, {sizeof(a) - 1, sizeof(b) - 1}, 2}

static const ac_json_path event_paths[AC_EV_NFIELDS] = {
	[AC_EV_ID] = PATH1("id"),
	[AC_EV_TIMESTAMP] = PATH1("timestamp"),
	[AC_EV_AGENT] = PATH1("agent"),
	[AC_EV_STATUS] = PATH1("status"),
	[AC_EV_ACTION] = PATH1("action"),
	[AC_EV_ACTION_TYPE] = PATH2("action", "type"),
	[AC_EV_ACTION_INPUT] = PATH2("action", "input"),
	[AC_EV_ACTION_PARAMS] = PATH2("action", "params"),
	[AC_EV_RESULT] = PATH1("result"),
	[AC_EV_RESULT_MESSAGE] = PATH2("result", "message"),
	[AC_EV_RESULT_ARTIFACTS] = PATH2("result", "artifacts"),
	[AC_EV_TRACE] = PATH1("trace"),
	[AC_EV_TRACE_CORRELATION_ID] = PATH2("trace", "correlation_id"),
	[AC_EV_TRACE_PARENT_ID] = PATH2("trace", "parent_id"),
};

static const char *const field_names[AC_EV_NFIELDS] = {
	"id", "timestamp", "agent", "status", "action", "action.type",
	"action.input", "action.params", "result", "result.message",
	"result.artifacts", "trace", "trace.correlation_id", "trace.parent_id",
};

static const char *const builtin_agents[] = {
	"Claude", "Codex", "Gemini", "Human", "System", NULL,
};
static const char *const statuses[] = {
	"SUCCESS", "FAILED", "IN_PROGRESS", NULL,
};
static const char *const action_types[] = {
	"FILE_CREATE", "FILE_EDIT", "FILE_DELETE", "CMD_RUN", "ANALYSIS",
	"SESSION_START", "SESSION_PAUSE", "SESSION_RESUME", "SESSION_COMPACT",
	"ROLLBACK", NULL,
};

/* A built-in list with a lookup by length, first and last byte, so that
 * checking a field costs one compare rather than one per name (every
 * journal line checks three lists). Filled once, by prepare_tables(). */
#define NAME_BUCKETS 64
#define NAME_SHARED 0xFF /* two names in the bucket: compare them all */
#define NAMES_MAX 16
typedef struct {
	const char *const *names;
	size_t len[NAMES_MAX];
	uint8_t by_key[NAME_BUCKETS]; /* 0: no name; i + 1: names[i] */
} name_set;

static name_set agent_set = {.names = builtin_agents};
static name_set status_set = {.names = statuses};
static name_set action_type_set = {.names = action_types};

/* n >= 1. The middle byte tells FILE_CREATE from FILE_DELETE. */
static size_t name_bucket(const char *s, size_t n)
{
	return (n * 7 + (unsigned char)s[0] * 3 + (unsigned char)s[n - 1] +
		(unsigned char)s[n / 2] * 5) & (NAME_BUCKETS - 1);
}

static void name_set_build(name_set *set)
{
	for (size_t i = 0; set->names[i] && i < NAMES_MAX; i++) {
		size_t n = strlen(set->names[i]), h = name_bucket(set->names[i], n);

		set->len[i] = n;
		set->by_key[h] = set->by_key[h] ? NAME_SHARED : (uint8_t)(i + 1);
	}
}

const ac_json_path *ac_event_paths(void)
{
	return event_paths;
}

static const char *type_name(ac_json_type type)
{
	switch (type) {
	case AC_JSON_OBJECT: return "an object";
	case AC_JSON_ARRAY: return "an array";
	case AC_JSON_STRING: return "a string";
	case AC_JSON_NUMBER: return "a number";
	case AC_JSON_TRUE:
	case AC_JSON_FALSE: return "a boolean";
	case AC_JSON_NULL: return "null";
	default: return "missing";
	}
}

/* Renders a string span for an error message: decoded, made safe for a
 * terminal, and cut to a readable length. */
static void quote_value(char *out, size_t size, const ac_json_span *span)
{
	char decoded[64];
	size_t raw_len = span->len < sizeof(decoded) ? span->len : sizeof(decoded) - 2;
	ac_json_span head = *span;
	ac_buf safe = AC_BUF_INIT;
	size_t n;

	/* Decoding a prefix is safe only without escapes; with them, show raw. */
	if (span->has_escape || span->len > sizeof(decoded)) {
		n = raw_len > 2 ? raw_len - 2 : 0;
		memcpy(decoded, span->start + 1, n);
	} else {
		ac_json_string_decode(decoded, &n, &head);
	}
	if (ac_text_sanitize(&safe, decoded, n) == 0 && safe.data)
		snprintf(out, size, "%.48s%s", safe.data, safe.len > 48 ? "..." : "");
	else
		snprintf(out, size, "?");
	ac_buf_free(&safe);
}

static int want_type(const ac_json_span *fields, enum ac_event_field f,
		     ac_json_type type, bool required)
{
	const ac_json_span *span = &fields[f];

	if (span->type == AC_JSON_NONE)
		return required ? ac_error_set(AC_EINVAL, "%s: missing required field",
					       field_names[f]) : 0;
	if (span->type != type)
		return ac_error_set(AC_EINVAL, "%s: must be %s, not %s", field_names[f],
				    type_name(type), type_name(span->type));
	return 0;
}

/* True when name (NUL-terminated) is exactly raw[0..n), raw holding no NUL
 * (a JSON string's raw bytes never do); stops at the first difference. */
static bool name_is(const char *name, const char *raw, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (name[i] != raw[i])
			return false;
	return name[n] == '\0';
}

static bool in_list(const ac_json_span *span, const char *const *list, size_t n)
{
	/* Every line checks three of these lists: without escapes, compare
	 * the raw bytes in place instead of measuring each name first. */
	bool raw = span->type == AC_JSON_STRING && !span->has_escape && span->len >= 2;

	for (size_t i = 0; (n == (size_t)-1 ? list[i] != NULL : i < n); i++) {
		if (raw ? name_is(list[i], span->start + 1, span->len - 2)
			: ac_json_string_equals(span, list[i], strlen(list[i])))
			return true;
	}
	return false;
}

static bool in_set(const ac_json_span *span, const name_set *set)
{
	const char *raw = span->start + 1;
	size_t n = span->len - 2;
	uint8_t slot;

	if (span->type != AC_JSON_STRING || span->has_escape || span->len <= 2)
		return in_list(span, set->names, (size_t)-1);
	slot = set->by_key[name_bucket(raw, n)];
	if (slot == 0)
		return false;
	if (slot == NAME_SHARED)
		return in_list(span, set->names, (size_t)-1);
	return set->len[slot - 1] == n && name_is(set->names[slot - 1], raw, n);
}

static int want_enum(const ac_json_span *fields, enum ac_event_field f,
		     const name_set *set, const ac_event_schema *schema)
{
	const char *const *allowed = set->names;
	const char *const *extra = NULL;
	size_t nextra = 0;
	char shown[96];
	ac_buf list = AC_BUF_INIT;
	int rc;

	if ((rc = want_type(fields, f, AC_JSON_STRING, true)))
		return rc;
	if (in_set(&fields[f], set))
		return 0;
	/* Names a workspace adds in its config (the seed: a new type is a
	 * configuration change, not a code change). */
	if (schema && f == AC_EV_AGENT) {
		extra = schema->extra_agents;
		nextra = schema->nextra_agents;
	} else if (schema && f == AC_EV_ACTION_TYPE) {
		extra = schema->extra_action_types;
		nextra = schema->nextra_action_types;
	}
	if (extra && in_list(&fields[f], extra, nextra))
		return 0;
	for (size_t i = 0; allowed[i]; i++)
		ac_buf_printf(&list, "%s%s", i ? ", " : "", allowed[i]);
	for (size_t i = 0; extra && i < nextra; i++)
		ac_buf_printf(&list, ", %s", extra[i]);
	quote_value(shown, sizeof(shown), &fields[f]);
	rc = ac_error_set(AC_EINVAL, "%s: '%s' is not one of %s", field_names[f],
			  shown, list.data ? list.data : "");
	ac_buf_free(&list);
	return rc;
}

bool ac_event_id_valid(const char *t, size_t len)
{
	if (len != AC_EVENT_ID_LEN || memcmp(t, "evt_", 4) != 0 || t[18] != '_')
		return false;
	for (size_t i = 4; i < 18; i++)
		if (t[i] < '0' || t[i] > '9')
			return false;
	for (size_t i = 19; i < AC_EVENT_ID_LEN; i++) {
		char c = t[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
		      (c >= 'A' && c <= 'F')))
			return false;
	}
	return true;
}

/* The event paths' key table and the name sets, built once: journal check
 * parses millions of lines with them. */
static ac_json_paths prepared_event_paths;
static pthread_once_t prepare_once = PTHREAD_ONCE_INIT;

static void prepare_tables(void)
{
	ac_json_paths_prepare(&prepared_event_paths, event_paths, AC_EV_NFIELDS);
	name_set_build(&agent_set);
	name_set_build(&status_set);
	name_set_build(&action_type_set);
}

int ac_event_check(const ac_json_span *fields, const ac_event_schema *schema)
{
	char shown[96];
	int rc;

	pthread_once(&prepare_once, prepare_tables);

	if ((rc = want_type(fields, AC_EV_ID, AC_JSON_STRING, true)))
		return rc;
	if (fields[AC_EV_ID].has_escape ||
	    !ac_event_id_valid(fields[AC_EV_ID].start + 1, fields[AC_EV_ID].len - 2)) {
		quote_value(shown, sizeof(shown), &fields[AC_EV_ID]);
		return ac_error_set(AC_EINVAL,
				    "id: '%s' is not of the form evt_YYYYMMDDhhmmss_xxxxxxxx", shown);
	}
	if ((rc = want_type(fields, AC_EV_TIMESTAMP, AC_JSON_STRING, true)))
		return rc;
	if (fields[AC_EV_TIMESTAMP].has_escape ||
	    !ac_time_is_iso(fields[AC_EV_TIMESTAMP].start + 1,
			    fields[AC_EV_TIMESTAMP].len - 2)) {
		quote_value(shown, sizeof(shown), &fields[AC_EV_TIMESTAMP]);
		return ac_error_set(AC_EINVAL,
				    "timestamp: '%s' is not of the form YYYY-MM-DDTHH:mm:ss.sssZ", shown);
	}
	if ((rc = want_enum(fields, AC_EV_AGENT, &agent_set, schema)) ||
	    (rc = want_enum(fields, AC_EV_STATUS, &status_set, schema)) ||
	    (rc = want_type(fields, AC_EV_ACTION, AC_JSON_OBJECT, true)) ||
	    (rc = want_enum(fields, AC_EV_ACTION_TYPE, &action_type_set, schema)) ||
	    (rc = want_type(fields, AC_EV_ACTION_INPUT, AC_JSON_STRING, false)) ||
	    (rc = want_type(fields, AC_EV_ACTION_PARAMS, AC_JSON_OBJECT, true)) ||
	    (rc = want_type(fields, AC_EV_RESULT, AC_JSON_OBJECT, true)) ||
	    (rc = want_type(fields, AC_EV_RESULT_MESSAGE, AC_JSON_STRING, true)) ||
	    (rc = want_type(fields, AC_EV_RESULT_ARTIFACTS, AC_JSON_ARRAY, false)) ||
	    (rc = want_type(fields, AC_EV_TRACE, AC_JSON_OBJECT, false)))
		return rc;
	if (fields[AC_EV_RESULT_ARTIFACTS].type == AC_JSON_ARRAY &&
	    !fields[AC_EV_RESULT_ARTIFACTS].all_strings)
		return ac_error_set(AC_EINVAL, "result.artifacts: must hold only strings");
	for (int f = AC_EV_TRACE_CORRELATION_ID; f <= AC_EV_TRACE_PARENT_ID; f++)
		if (fields[f].type != AC_JSON_NONE && fields[f].type != AC_JSON_STRING &&
		    fields[f].type != AC_JSON_NULL)
			return ac_error_set(AC_EINVAL, "%s: must be a string, not %s",
					    field_names[f], type_name(fields[f].type));
	return 0;
}

int ac_event_parse(ac_json_span *fields, const char *line,
		   size_t len, const ac_event_schema *schema)
{
	int rc;

	pthread_once(&prepare_once, prepare_tables);
	rc = ac_json_scan_prepared(fields, line, len, &prepared_event_paths, NULL);

	if (rc)
		return rc;
	if (*line != '{' && len > 0) {
		size_t i = 0;

		while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
			i++;
		if (i < len && line[i] != '{')
			return ac_error_set(AC_EINVAL, "event: must be a JSON object");
	}
	return ac_event_check(fields, schema);
}

static int make_id(char out[AC_EVENT_ID_LEN + 1], int64_t ms)
{
	unsigned char random_bytes[4];
	char compact[15];

	if (getrandom(random_bytes, sizeof(random_bytes), 0) != sizeof(random_bytes))
		return ac_error_errno(errno, "getrandom");
	ac_time_format_compact(compact, ms);
	snprintf(out, AC_EVENT_ID_LEN + 1, "evt_%s_%02x%02x%02x%02x", compact,
		 random_bytes[0], random_bytes[1], random_bytes[2], random_bytes[3]);
	return 0;
}

/* Copies a validated JSON text without the white space between tokens, so
 * a pretty-printed event becomes one line; every value keeps its exact
 * spelling (numbers are not round-tripped through a double). */
static void minify(ac_buf *out, const char *text, size_t len)
{
	bool in_string = false;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (in_string) {
			ac_buf_putc(out, c);
			if (c == '\\' && i + 1 < len)
				ac_buf_putc(out, text[++i]);
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
			ac_buf_putc(out, c);
		} else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
			ac_buf_putc(out, c);
		}
	}
}

/* The scanner's verdict is the one that counts; jansson only words the
 * message with a line and column, which people find easier to act on. */
static int syntax_error(const char *json_text)
{
	json_error_t jerr;
	json_t *doc = json_loads(json_text, JSON_DECODE_ANY, &jerr);
	char scanner_reason[256];

	if (doc) {
		json_decref(doc);
		snprintf(scanner_reason, sizeof(scanner_reason), "%s", ac_error_last());
		return ac_error_set(AC_EINVAL, "event JSON: %s", scanner_reason);
	}
	return ac_error_set(AC_EINVAL, "event JSON: line %d column %d: %s", jerr.line,
			    jerr.column, jerr.text);
}

int ac_event_prepare(char **out_line, size_t *out_len,
		     char out_id[AC_EVENT_ID_LEN + 1], const char *json_text,
		     const ac_event_schema *schema)
{
	ac_json_span fields[AC_EV_NFIELDS];
	ac_buf compact = AC_BUF_INIT, line = AC_BUF_INIT;
	size_t len = strlen(json_text);
	int64_t ms = ac_time_now_ms();
	char made_id[AC_EVENT_ID_LEN + 1], iso[AC_TIME_ISO_LEN + 1];
	int rc;

	if (ac_json_scan(fields, json_text, len, event_paths, AC_EV_NFIELDS, NULL) != 0)
		return syntax_error(json_text);
	minify(&compact, json_text, len);
	if (!compact.data || compact.data[0] != '{') {
		rc = compact.data ? ac_error_set(AC_EINVAL, "event: must be a JSON object")
				  : ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (fields[AC_EV_TIMESTAMP].type == AC_JSON_STRING && !fields[AC_EV_TIMESTAMP].has_escape) {
		char given[64];
		size_t n = fields[AC_EV_TIMESTAMP].len - 2;

		if (n < sizeof(given)) {
			memcpy(given, fields[AC_EV_TIMESTAMP].start + 1, n);
			given[n] = '\0';
			if (ac_time_parse(&ms, given) != 0)
				ms = ac_time_now_ms(); /* the check below names it */
		}
	}
	/* id and timestamp go first, as every other writer puts them. */
	ac_buf_putc(&line, '{');
	if (fields[AC_EV_ID].type == AC_JSON_NONE) {
		if ((rc = make_id(made_id, ms)))
			goto done;
		ac_buf_printf(&line, "\"id\":\"%s\",", made_id);
	}
	if (fields[AC_EV_TIMESTAMP].type == AC_JSON_NONE) {
		ac_time_format_iso(iso, ms);
		ac_buf_printf(&line, "\"timestamp\":\"%s\",", iso);
	}
	ac_buf_append(&line, compact.data + 1, compact.len - 1);
	if (!line.data) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (line.len >= 2 && line.data[line.len - 2] == ',') {
		/* An empty object "{}" got only our fields: drop the last comma. */
		line.data[line.len - 2] = '}';
		line.len--;
		line.data[line.len] = '\0';
	}
	if ((rc = ac_event_parse(fields, line.data, line.len, schema)))
		goto done;
	memcpy(out_id, fields[AC_EV_ID].start + 1, AC_EVENT_ID_LEN);
	out_id[AC_EVENT_ID_LEN] = '\0';
	*out_len = line.len;
	*out_line = ac_buf_detach(&line);
done:
	ac_buf_free(&compact);
	ac_buf_free(&line);
	return rc;
}
