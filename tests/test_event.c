/* Tests for the event schema (ac_event_*), timestamps (ac_time_*) and the
 * terminal-safety filters (ac_text_*). Lines are parsed from exact-size heap
 * copies, so AddressSanitizer reports any read past the end of a line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_event.h"
#include "ac_json_scan.h"
#include "ac_text.h"
#include "ac_time.h"

#define Q(s) "\"" s "\""
#define OMIT "" /* a part left out of the event */

/* Raw JSON for each top-level member; NULL takes the default, OMIT drops it. */
typedef struct {
	const char *id, *timestamp, *agent, *status, *action, *result, *trace;
} event_parts;

static void build_event(char *out, size_t size, const event_parts *p)
{
	const char *names[] = {"id", "timestamp", "agent", "status", "action", "result", "trace"};
	const char *given[] = {p->id, p->timestamp, p->agent, p->status, p->action,
			       p->result, p->trace};
	const char *defaults[] = {
		Q("evt_20250903142510_0a1b2c3d"), Q("2025-09-03T14:25:10.591Z"), Q("Claude"),
		Q("SUCCESS"), "{\"type\":\"FILE_EDIT\",\"params\":{\"path\":\"src/a.c\"}}",
		"{\"message\":\"edited\"}", OMIT,
	};
	size_t used = 0;

	used += (size_t)snprintf(out, size, "{");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *value = given[i] ? given[i] : defaults[i];

		if (*value)
			used += (size_t)snprintf(out + used, size - used, "%s\"%s\":%s",
						 used > 1 ? "," : "", names[i], value);
	}
	snprintf(out + used, size - used, "}");
}

static int parse_exact(const char *line, const ac_event_schema *schema)
{
	size_t len = strlen(line);
	char *copy = malloc(len ? len : 1);
	ac_json_span fields[AC_EV_NFIELDS];
	int rc;

	assert_non_null(copy);
	memcpy(copy, line, len);
	rc = ac_event_parse(fields, copy, len, schema);
	free(copy);
	return rc;
}

/* The message must start with want_prefix: the field at fault comes first. */
static void expect_rejected(const char *label, const char *line, const ac_event_schema *schema,
			    int want_rc, const char *want_prefix)
{
	int rc = parse_exact(line, schema);
	const char *msg = ac_error_last();

	if (rc != want_rc || strncmp(msg, want_prefix, strlen(want_prefix)) != 0)
		fail_msg("%s: got %d \"%s\", want %d \"%s...\"\n  line: %s", label, rc, msg,
			 want_rc, want_prefix, line);
}

static void expect_valid(const char *label, const char *line, const ac_event_schema *schema)
{
	if (parse_exact(line, schema) != 0)
		fail_msg("%s: rejected: %s\n  line: %s", label, ac_error_last(), line);
}

typedef struct {
	const char *label;
	event_parts parts;
	const char *want_prefix;
} invalid_case;

static const invalid_case invalid_cases[] = {
	{"missing id", {.id = OMIT}, "id: missing"},
	{"missing timestamp", {.timestamp = OMIT}, "timestamp: missing"},
	{"missing agent", {.agent = OMIT}, "agent: missing"},
	{"missing status", {.status = OMIT}, "status: missing"},
	{"missing action", {.action = OMIT}, "action: missing"},
	{"missing action.type", {.action = "{\"params\":{}}"}, "action.type: missing"},
	{"missing action.params", {.action = "{\"type\":\"CMD_RUN\"}"}, "action.params: missing"},
	{"missing result", {.result = OMIT}, "result: missing"},
	{"missing result.message", {.result = "{\"artifacts\":[]}"}, "result.message: missing"},
	{"id a number", {.id = "20250903"}, "id: must be a string"},
	{"timestamp a number", {.timestamp = "1756909510591"}, "timestamp: must be a string"},
	{"agent a number", {.agent = "7"}, "agent: must be a string"},
	{"status null", {.status = "null"}, "status: must be a string"},
	{"action a string", {.action = Q("edit")}, "action: must be an object"},
	{"action.type an array", {.action = "{\"type\":[],\"params\":{}}"}, "action.type: must be"},
	{"action.input a number", {.action = "{\"type\":\"CMD_RUN\",\"input\":1,\"params\":{}}"},
	 "action.input: must be a string"},
	{"action.params an array", {.action = "{\"type\":\"CMD_RUN\",\"params\":[]}"},
	 "action.params: must be an object"},
	{"result a string", {.result = Q("ok")}, "result: must be an object"},
	{"result.message an object", {.result = "{\"message\":{}}"}, "result.message: must be a string"},
	{"trace a string", {.trace = Q("t1")}, "trace: must be an object"},
	{"agent not in the enum", {.agent = Q("Bob")}, "agent: 'Bob' is not one of"},
	{"agent in the wrong case", {.agent = Q("claude")}, "agent: 'claude'"},
	{"status not in the enum", {.status = Q("DONE")}, "status: 'DONE'"},
	{"action.type not in the enum", {.action = "{\"type\":\"FILE_MOVE\",\"params\":{}}"},
	 "action.type: 'FILE_MOVE'"},
	{"id too short", {.id = Q("evt_123")}, "id: "},
	{"id with a non-hex digit", {.id = Q("evt_20250903142510_0a1b2c3g")}, "id: "},
	{"id with 7 hex digits", {.id = Q("evt_20250903142510_0a1b2c3")}, "id: "},
	{"id with 13 time digits", {.id = Q("evt_2025090314251_0a1b2c3d")}, "id: "},
	{"id with another prefix", {.id = Q("evx_20250903142510_0a1b2c3d")}, "id: "},
	{"id with a dash", {.id = Q("evt_20250903142510-0a1b2c3d")}, "id: "},
	{"timestamp without millis", {.timestamp = Q("2025-09-03T14:25:10Z")}, "timestamp: "},
	{"timestamp without Z", {.timestamp = Q("2025-09-03T14:25:10.591")}, "timestamp: "},
	{"timestamp with an offset", {.timestamp = Q("2025-09-03T14:25:10.591+00:00")}, "timestamp: "},
	{"timestamp month 13", {.timestamp = Q("2025-13-03T14:25:10.591Z")}, "timestamp: "},
	{"timestamp Feb 30", {.timestamp = Q("2024-02-30T14:25:10.591Z")}, "timestamp: "},
	{"timestamp Feb 29 of 2023", {.timestamp = Q("2023-02-29T14:25:10.591Z")}, "timestamp: "},
	{"timestamp hour 24", {.timestamp = Q("2025-09-03T24:00:00.000Z")}, "timestamp: "},
	{"artifacts with a number", {.result = "{\"message\":\"m\",\"artifacts\":[\"a.c\",1]}"},
	 "result.artifacts: "},
	{"artifacts a string", {.result = "{\"message\":\"m\",\"artifacts\":\"a.c\"}"},
	 "result.artifacts: "},
	{"correlation_id a number", {.trace = "{\"correlation_id\":42}"}, "trace.correlation_id: "},
	{"parent_id a boolean", {.trace = "{\"parent_id\":true}"}, "trace.parent_id: "},
};

static void test_invalid_events_name_the_field(void **state)
{
	char line[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(invalid_cases) / sizeof(invalid_cases[0]); i++) {
		build_event(line, sizeof(line), &invalid_cases[i].parts);
		expect_rejected(invalid_cases[i].label, line, NULL, AC_EINVAL,
				invalid_cases[i].want_prefix);
	}
}

static void test_not_an_object(void **state)
{
	(void)state;
	expect_rejected("array", "[{\"id\":\"evt_20250903142510_0a1b2c3d\"}]", NULL, AC_EINVAL,
			"event: must be a JSON object");
	expect_rejected("spaced array", "  [1]", NULL, AC_EINVAL, "event: must be a JSON object");
	expect_rejected("string", "\"Claude\"", NULL, AC_EINVAL, "event: must be a JSON object");
	expect_rejected("not JSON", "agent=Claude", NULL, AC_ECORRUPT, "column 1:");
	expect_rejected("truncated object", "{\"id\":\"evt_", NULL, AC_ECORRUPT, "column ");
	expect_rejected("empty line", "", NULL, AC_ECORRUPT, "column ");
}

static void test_valid_events(void **state)
{
	static const event_parts valid[] = {
		{0},
		{.timestamp = Q("2024-02-29T23:59:59.999Z")},
		{.timestamp = Q("2000-02-29T00:00:00.000Z")},
		{.id = Q("evt_20250903142510_ABCDEF01")},
		{.agent = Q("\\u0043laude")}, /* the same name, escaped */
		{.action = "{\"type\":\"ROLLBACK\",\"input\":\"undo\",\"params\":{}}"},
		{.result = "{\"message\":\"\",\"artifacts\":[]}"},
		{.trace = "{\"correlation_id\":\"c1\",\"parent_id\":null}"},
	};
	char line[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++) {
		build_event(line, sizeof(line), &valid[i]);
		expect_valid("valid variant", line, NULL);
	}
	expect_valid("unknown keys", "{\"id\":\"evt_20250903142510_0a1b2c3d\",\"x\":[1,{\"y\":2}],"
		     "\"timestamp\":\"2025-09-03T14:25:10.591Z\",\"agent\":\"Human\",\"status\":"
		     "\"FAILED\",\"action\":{\"type\":\"CMD_RUN\",\"params\":{}},\"result\":"
		     "{\"message\":\"m\"}}", NULL);
}

static void test_extra_agents(void **state)
{
	static const char *const extra[] = {"Bob", "Dana"};
	const ac_event_schema schema = {.extra_agents = extra, .nextra_agents = 2};
	char line[1024];

	(void)state;
	build_event(line, sizeof(line), &(event_parts){.agent = Q("Bob")});
	expect_rejected("Bob without schema", line, NULL, AC_EINVAL, "agent: 'Bob'");
	expect_valid("Bob listed", line, &schema);
	build_event(line, sizeof(line), &(event_parts){.agent = Q("Dana")});
	expect_valid("Dana listed", line, &schema);
	build_event(line, sizeof(line), &(event_parts){.agent = Q("Eve")});
	expect_rejected("Eve not listed", line, &schema, AC_EINVAL, "agent: 'Eve'");
	assert_non_null(strstr(ac_error_last(), "Dana")); /* the message lists the extras */
	build_event(line, sizeof(line), &(event_parts){.agent = Q("Claude")});
	expect_valid("built-ins still allowed", line, &schema);
}

/* journal.actionTypes: a type added in config is valid, listed in the
 * message, and does not make other names valid. */
static void test_extra_action_types(void **state)
{
	static const char *const extra[] = {"DEPLOY", "REVIEW"};
	const ac_event_schema schema = {.extra_action_types = extra, .nextra_action_types = 2};
	char line[1024];

	(void)state;
	build_event(line, sizeof(line),
		    &(event_parts){.action = "{\"type\":\"DEPLOY\",\"params\":{}}"});
	expect_rejected("DEPLOY without schema", line, NULL, AC_EINVAL, "action.type: 'DEPLOY'");
	expect_valid("DEPLOY listed", line, &schema);
	build_event(line, sizeof(line),
		    &(event_parts){.action = "{\"type\":\"SHIP\",\"params\":{}}"});
	expect_rejected("SHIP not listed", line, &schema, AC_EINVAL, "action.type: 'SHIP'");
	assert_non_null(strstr(ac_error_last(), "REVIEW"));
	build_event(line, sizeof(line), &(event_parts){.agent = Q("DEPLOY")});
	expect_rejected("a type is not an agent", line, &schema, AC_EINVAL, "agent: 'DEPLOY'");
}

/* The built-in names are looked up by length, first, middle and last
 * byte: every name is found, escaped or not, and names that differ in one
 * byte or one character of length are not. */
static void test_enum_names_exactly(void **state)
{
	static const char *const agents[] = {"Claude", "Codex", "Gemini", "Human", "System"};
	static const char *const types[] = {
		"FILE_CREATE", "FILE_EDIT", "FILE_DELETE", "CMD_RUN", "ANALYSIS", "SESSION_START",
		"SESSION_PAUSE", "SESSION_RESUME", "SESSION_COMPACT", "ROLLBACK",
	};
	static const char *const near[] = {
		"Codey", "Code", "Codexx", "codex", "Claudf", "C", "x", "FILE_CREATF",
		"FILE_DELETF", "FILE_EDITS", "SUCCES", "SUCCESSS", "FAILEd", "IN_PROGRESs",
	};
	char line[1024], value[64], action[128];

	(void)state;
	for (size_t i = 0; i < sizeof(agents) / sizeof(agents[0]); i++) {
		snprintf(value, sizeof(value), "\"%s\"", agents[i]);
		build_event(line, sizeof(line), &(event_parts){.agent = value});
		expect_valid("agent", line, NULL);
		snprintf(value, sizeof(value), "\"\\u%04x%s\"", agents[i][0], agents[i] + 1);
		build_event(line, sizeof(line), &(event_parts){.agent = value});
		expect_valid("escaped agent", line, NULL);
	}
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		snprintf(action, sizeof(action), "{\"type\":\"%s\",\"params\":{}}", types[i]);
		build_event(line, sizeof(line), &(event_parts){.action = action});
		expect_valid("action type", line, NULL);
	}
	build_event(line, sizeof(line), &(event_parts){.status = Q("IN_PROGRESS")});
	expect_valid("status", line, NULL);
	for (size_t i = 0; i < sizeof(near) / sizeof(near[0]); i++) {
		snprintf(value, sizeof(value), "\"%s\"", near[i]);
		build_event(line, sizeof(line), &(event_parts){.agent = value});
		expect_rejected("near agent", line, NULL, AC_EINVAL, "agent: ");
		build_event(line, sizeof(line), &(event_parts){.status = value});
		expect_rejected("near status", line, NULL, AC_EINVAL, "status: ");
		snprintf(action, sizeof(action), "{\"type\":%s,\"params\":{}}", value);
		build_event(line, sizeof(line), &(event_parts){.action = action});
		expect_rejected("near action type", line, NULL, AC_EINVAL, "action.type: ");
	}
	build_event(line, sizeof(line), &(event_parts){.agent = Q("")});
	expect_rejected("empty agent", line, NULL, AC_EINVAL, "agent: ");
}

/* A rejected value is quoted in the message, but never raw. */
static void test_error_quotes_values_safely(void **state)
{
	char line[1024];

	(void)state;
	build_event(line, sizeof(line), &(event_parts){.agent = Q("\xe2\x80\xae" "Bob")});
	expect_rejected("bidi agent", line, NULL, AC_EINVAL, "agent: '<U+202E>Bob'");
	assert_null(strstr(ac_error_last(), "\xe2\x80\xae"));
}

static void test_id_valid(void **state)
{
	(void)state;
	assert_true(ac_event_id_valid("evt_20250903142510_0a1b2c3d", AC_EVENT_ID_LEN));
	assert_false(ac_event_id_valid("evt_20250903142510_0a1b2c3d", AC_EVENT_ID_LEN - 1));
	assert_false(ac_event_id_valid("evt_2025090314251a_0a1b2c3d", AC_EVENT_ID_LEN));
	assert_false(ac_event_id_valid("evt_20250903142510_0a1b2c3z", AC_EVENT_ID_LEN));
}

/* Prepares json; the caller frees the returned line. */
static char *prepare_ok(const char *json, char id[AC_EVENT_ID_LEN + 1])
{
	char *line = NULL;
	size_t len = 0;

	if (ac_event_prepare(&line, &len, id, json, NULL) != 0)
		fail_msg("prepare failed: %s\n  input: %s", ac_error_last(), json);
	assert_int_equal(strlen(line), len);
	assert_null(strchr(line, '\n'));
	assert_int_equal(parse_exact(line, NULL), 0);
	return line;
}

static const char *json_get_string(json_t *obj, const char *key)
{
	const char *value = json_string_value(json_object_get(obj, key));

	if (!value)
		fail_msg("no string '%s' in the prepared event", key);
	return value;
}

#define MINIMAL_BODY "\"agent\":\"Claude\",\"status\":\"SUCCESS\",\"action\":{\"type\":" \
	"\"CMD_RUN\",\"params\":{\"command\":\"make\"}},\"result\":{\"message\":\"a\\nb\"}"

static void test_prepare_fills_id_and_timestamp(void **state)
{
	char id[AC_EVENT_ID_LEN + 1], before[AC_TIME_ISO_LEN + 1], after[AC_TIME_ISO_LEN + 1];
	const char *ts;
	char *line;
	json_t *event;

	(void)state;
	ac_time_format_iso(before, ac_time_now_ms());
	line = prepare_ok("{\n  " MINIMAL_BODY "\n}\n", id);
	ac_time_format_iso(after, ac_time_now_ms());
	assert_true(ac_event_id_valid(id, strlen(id)));
	assert_int_equal(strspn(id + 19, "0123456789abcdef"), 8);
	event = json_loads(line, 0, NULL);
	assert_non_null(event);
	assert_string_equal(json_get_string(event, "id"), id);
	ts = json_get_string(event, "timestamp");
	assert_true(ac_time_is_iso(ts, strlen(ts)));
	assert_true(strcmp(before, ts) <= 0 && strcmp(ts, after) <= 0);
	/* The id's time part is the timestamp's, digits only. */
	for (int i = 0, j = 4; i < 19; i++)
		if (ts[i] >= '0' && ts[i] <= '9')
			assert_int_equal(ts[i], id[j++]);
	/* The escaped newline stays escaped: still one line. */
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(event, "result"), "message")), "a\nb");
	json_decref(event);
	free(line);
}

static void test_prepare_keeps_given_fields(void **state)
{
	char id[AC_EVENT_ID_LEN + 1], *line;
	json_t *event, *extra;

	(void)state;
	line = prepare_ok("{\"custom\":{\"k\":[1,\"two\",null]},\"timestamp\":"
			  "\"2025-09-03T14:25:10.591Z\",\"id\":\"evt_20250903142510_deadbeef\","
			  MINIMAL_BODY ",\"trace\":{\"correlation_id\":\"c9\"}}", id);
	assert_string_equal(id, "evt_20250903142510_deadbeef");
	event = json_loads(line, 0, NULL);
	assert_non_null(event);
	assert_string_equal(json_get_string(event, "id"), "evt_20250903142510_deadbeef");
	assert_string_equal(json_get_string(event, "timestamp"), "2025-09-03T14:25:10.591Z");
	extra = json_loads("{\"k\":[1,\"two\",null]}", 0, NULL);
	assert_true(json_equal(json_object_get(event, "custom"), extra));
	assert_string_equal(json_get_string(json_object_get(event, "trace"), "correlation_id"), "c9");
	assert_string_equal(json_get_string(json_object_get(json_object_get(event, "action"),
							     "params"), "command"), "make");
	/* Given fields keep their place and spelling: only white space goes. */
	assert_non_null(strstr(line, "{\"custom\":{\"k\":[1,\"two\",null]},\"timestamp\":\"2025-09-03T14:25:10.591Z\",\"id\":"));
	json_decref(extra);
	json_decref(event);
	free(line);
}

static void expect_prepare_fails(const char *json, const char *want1, const char *want2)
{
	char id[AC_EVENT_ID_LEN + 1], *line = NULL;
	size_t len = 0;
	int rc = ac_event_prepare(&line, &len, id, json, NULL);
	const char *msg = ac_error_last();

	if (rc != AC_EINVAL || !strstr(msg, want1) || (want2 && !strstr(msg, want2)))
		fail_msg("prepare %s: got %d \"%s\", want \"%s\"", json, rc, msg, want1);
	assert_null(line);
}

static void test_prepare_rejects(void **state)
{
	(void)state;
	expect_prepare_fails("{\n  \"agent\": \"Claude\",\n  oops\n}", "line 3", "column");
	expect_prepare_fails("not json", "line 1", "column");
	expect_prepare_fails("[1,2]", "must be a JSON object", NULL);
	expect_prepare_fails("{\"agent\":\"Claude\",\"status\":\"SUCCESS\",\"action\":{\"type\":"
			     "\"CMD_RUN\",\"params\":{}},\"result\":{}}", "result.message", NULL);
	expect_prepare_fails("{\"agent\":\"Zed\",\"status\":\"SUCCESS\",\"action\":{\"type\":"
			     "\"CMD_RUN\",\"params\":{}},\"result\":{\"message\":\"m\"}}", "agent", "Zed");
	expect_prepare_fails("{\"timestamp\":\"yesterday\"," MINIMAL_BODY "}", "timestamp", NULL);
	expect_prepare_fails("{\"id\":\"evt_1\"," MINIMAL_BODY "}", "id", NULL);
}

static int64_t parse_time_ok(const char *text)
{
	int64_t ms = 0;

	if (ac_time_parse(&ms, text) != 0)
		fail_msg("ac_time_parse(\"%s\") failed: %s", text, ac_error_last());
	return ms;
}

#define DAY_2025_09_03 INT64_C(1756857600000) /* 2025-09-03T00:00:00Z */

static void test_time_parse(void **state)
{
	static const char *const bad[] = {
		"", "2025-09", "2025-9-03", "2025-13-01", "2025-02-29", "2025-09-03T25:00",
		"2025-09-03T14:60", "2025-09-03T14:25:10.", "2025-09-03T14", "2025-09-03X",
		"2025-09-03T14:25Zjunk", "2025-09-03T14:25+0900", "yesterday", "2025-09-03T14:25:61",
	};
	int64_t ms = 0;

	(void)state;
	assert_int_equal(parse_time_ok("2025-09-03"), DAY_2025_09_03);
	assert_int_equal(parse_time_ok("2025-09-03T14:25"), DAY_2025_09_03 + 51900000);
	assert_int_equal(parse_time_ok("2025-09-03T14:25:10"), DAY_2025_09_03 + 51910000);
	assert_int_equal(parse_time_ok("2025-09-03T14:25:10.5"), DAY_2025_09_03 + 51910500);
	assert_int_equal(parse_time_ok("2025-09-03T14:25:10.591"), DAY_2025_09_03 + 51910591);
	assert_int_equal(parse_time_ok("2025-09-03T14:25:10.591Z"), DAY_2025_09_03 + 51910591);
	assert_int_equal(parse_time_ok("2025-09-03Z"), DAY_2025_09_03);
	assert_int_equal(parse_time_ok("2025-09-03T09:00+09:00"), DAY_2025_09_03);
	assert_int_equal(parse_time_ok("2025-09-02T18:30-05:30"), DAY_2025_09_03);
	assert_int_equal(parse_time_ok("2024-02-29"), DAY_2025_09_03 - INT64_C(552) * 86400000);
	assert_int_equal(parse_time_ok("1970-01-01T00:00:00.000Z"), 0);
	assert_int_equal(parse_time_ok("1969-12-31T23:59:59.999Z"), -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (ac_time_parse(&ms, bad[i]) != AC_EINVAL)
			fail_msg("ac_time_parse(\"%s\") accepted: %lld", bad[i], (long long)ms);
		assert_non_null(strstr(ac_error_last(), bad[i]));
	}
}

static void test_time_format(void **state)
{
	char iso[AC_TIME_ISO_LEN + 1], compact[15], file[21];
	int64_t ms = DAY_2025_09_03 + 51910591;

	(void)state;
	ac_time_format_iso(iso, ms);
	assert_string_equal(iso, "2025-09-03T14:25:10.591Z");
	ac_time_format_compact(compact, ms);
	assert_string_equal(compact, "20250903142510");
	ac_time_format_file(file, ms);
	assert_string_equal(file, "20250903T142510.591Z");
	ac_time_format_iso(iso, -1);
	assert_string_equal(iso, "1969-12-31T23:59:59.999Z");
	assert_int_equal(parse_time_ok("2024-02-29T23:59:59.999Z"),
			 parse_time_ok("2024-03-01") - 1);
}

static void test_time_is_iso(void **state)
{
	static const char *const good[] = {
		"2025-09-03T14:25:10.591Z", "2024-02-29T00:00:00.000Z", "2000-02-29T23:59:59.999Z",
	};
	static const char *const bad[] = {
		"2025-09-03T14:25:10Z", "2025-09-03T14:25:10.591", "2025-09-03T14:25:10.59Z",
		"2025-13-03T14:25:10.591Z", "2025-02-30T14:25:10.591Z", "2023-02-29T14:25:10.591Z",
		"1900-02-29T14:25:10.591Z", "2025-09-03T24:25:10.591Z", "2025-09-03T14:60:10.591Z",
		"2025-09-03T14:25:60.591Z", "2025-09-03 14:25:10.591Z", "2025-09-03T14:25:10.5a1Z",
		"2025-00-03T14:25:10.591Z", "2025-09-00T14:25:10.591Z", "2025-09-03T14:25:10.591+",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!ac_time_is_iso(good[i], strlen(good[i])))
			fail_msg("ac_time_is_iso rejected %s", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (ac_time_is_iso(bad[i], strlen(bad[i])))
			fail_msg("ac_time_is_iso accepted %s", bad[i]);
}

typedef int (*filter_fn)(ac_buf *out, const char *text, size_t len);

static void expect_filtered(filter_fn fn, const char *in, const char *want)
{
	ac_buf out = AC_BUF_INIT;

	assert_int_equal(fn(&out, in, strlen(in)), 0);
	if (strcmp(out.data ? out.data : "", want) != 0)
		fail_msg("filtering \"%s\": got \"%s\", want \"%s\"", in, out.data, want);
	ac_buf_free(&out);
}

/* ac_text_plain() on every byte value at every place of texts of 0..80
 * bytes (its word-at-a-time and 16-byte paths, and their ends): true
 * exactly when all bytes are 0x20..0x7E, and then the text is what
 * ac_text_sanitize() makes of it. The JSON filter escapes a DEL wherever
 * it stands among printable runs. */
static void test_text_plain(void **state)
{
	char text[81];
	ac_buf out = AC_BUF_INIT;

	(void)state;
	for (size_t len = 0; len <= 80; len++) {
		memset(text, 'a' + (int)(len % 26), len);
		assert_true(ac_text_plain(text, len));
		for (size_t at = 0; at < len; at++) {
			for (unsigned b = 0; b < 256; b++) {
				bool want = b >= 0x20 && b < 0x7F;

				text[at] = (char)b;
				if (ac_text_plain(text, len) != want)
					fail_msg("byte 0x%02X at %zu of %zu", b, at, len);
				if (want) {
					ac_buf_clear(&out);
					assert_int_equal(ac_text_sanitize(&out, text, len), 0);
					assert_memory_equal(out.data, text, len);
				}
			}
			text[at] = 0x7F;
			ac_buf_clear(&out);
			assert_int_equal(ac_text_json_safe(&out, text, len), 0);
			assert_int_equal(out.len, len + 5);
			assert_memory_equal(out.data + at, "\\u007f", 6);
			text[at] = 'a' + (char)(len % 26);
		}
	}
	ac_buf_free(&out);
}

static void test_text_sanitize(void **state)
{
	(void)state;
	expect_filtered(ac_text_sanitize, "plain text", "plain text");
	expect_filtered(ac_text_sanitize, "\x1b[31mred", "^[[31mred");
	expect_filtered(ac_text_sanitize, "a\nb\tc\rd", "a^Jb^Ic^Md");
	expect_filtered(ac_text_sanitize, "del\x7f", "del^?");
	expect_filtered(ac_text_sanitize, "nel\xc2\x85x", "nel<U+0085>x");
	expect_filtered(ac_text_sanitize, "\xe2\x80\xae" "evil", "<U+202E>evil");
	expect_filtered(ac_text_sanitize, "zw\xe2\x80\x8bj", "zw<U+200B>j");
	expect_filtered(ac_text_sanitize, "bad\xff", "bad\\xFF");
	expect_filtered(ac_text_sanitize, "cut\xe6\x97", "cut\\xE6\\x97");
	expect_filtered(ac_text_sanitize, "over\xc0\xaf", "over\\xC0\\xAF");
	/* A surrogate's 3 bytes (a lone one from JSON) as JSON.stringify
	 * writes it; cut short, bytes as any other. */
	expect_filtered(ac_text_sanitize, "sur\xed\xa0\x80", "sur\\ud800");
	expect_filtered(ac_text_sanitize, "ship\xed\xa0\xbd!", "ship\\ud83d!");
	expect_filtered(ac_text_sanitize, "\xed\xba\x80ok", "\\ude80ok");
	expect_filtered(ac_text_sanitize, "cut\xed\xa0", "cut\\xED\\xA0");
	expect_filtered(ac_text_sanitize, "日本語 ünï", "日本語 ünï");
	expect_filtered(ac_text_sanitize, "ok \xf0\x9f\x98\x80!", "ok \xf0\x9f\x98\x80!");
}

/* What a document shown whole looked like before it was streamed: the
 * pieces between line breaks and tabs sanitised, those kept. */
static void sanitize_keeping_lines(ac_buf *out, const char *text, size_t len)
{
	size_t start = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && text[i] != '\n' && text[i] != '\t')
			continue;
		assert_int_equal(ac_text_sanitize(out, text + start, i - start), 0);
		if (i < len)
			assert_int_equal(ac_buf_putc(out, text[i]), 0);
		start = i + 1;
	}
}

static int gather(const char *bytes, size_t len, void *ctx)
{
	return ac_buf_append(ctx, bytes, len);
}

static void expect_streamed(const char *text, size_t len, size_t piece)
{
	ac_buf want = AC_BUF_INIT, got = AC_BUF_INIT;
	ac_text_stream st = AC_TEXT_STREAM_INIT(gather, &got);

	sanitize_keeping_lines(&want, text, len);
	for (size_t at = 0; at < len; at += piece)
		assert_int_equal(ac_text_stream_feed(&st, text + at,
						     len - at < piece ? len - at : piece), 0);
	assert_int_equal(ac_text_stream_end(&st), 0);
	if (want.len != got.len || memcmp(want.data, got.data, want.len) != 0)
		fail_msg("streamed in pieces of %zu: got \"%.*s\", want \"%.*s\"", piece,
			 (int)got.len, got.data, (int)want.len, want.data);
	ac_buf_free(&want);
	ac_buf_free(&got);
}

/* Fed in pieces of every size (so every character is split every way
 * it can be), a text shows as it did whole; plain runs long enough for
 * the 16-byte steps, with a hazard at each offset inside one. */
static void test_text_stream(void **state)
{
	static const char *const texts[] = {
		"plain ascii line that is longer than sixteen bytes\nand a second\tone\n",
		"日本語のテキスト、かなと漢字 세션을 다시 시작 ünïcödé \xf0\x9f\x98\x80 emoji\n",
		"cut at the end \xe6\x97",
		"\xe6\x97 cut at the start, then \xc3",
		"bad \xff\xfe bytes, over\xc0\xaf long, sur\xed\xa0\x80 rogate, \xf4\x90\x80\x80 big",
		"\x1b[31mred\x1b[0m \x7f del \xc2\x85 nel \xe2\x80\xae rlo \xe3\x85\xa4 filler\r\n",
	};
	char hazard[200];

	(void)state;
	for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); t++)
		for (size_t piece = 1; piece <= strlen(texts[t]); piece++)
			expect_streamed(texts[t], strlen(texts[t]), piece);
	for (size_t at = 0; at < sizeof(hazard); at++) {
		memset(hazard, 'x', sizeof(hazard));
		hazard[at] = at % 2 ? '\x1b' : '\x7f';
		{
			ac_buf out = AC_BUF_INIT;

			assert_int_equal(ac_text_sanitize(&out, hazard, sizeof(hazard)), 0);
			assert_int_equal(out.len, sizeof(hazard) + 1);
			assert_memory_equal(out.data + at, at % 2 ? "^[" : "^?", 2);
			ac_buf_free(&out);
		}
		expect_streamed(hazard, sizeof(hazard), sizeof(hazard));
		expect_streamed(hazard, sizeof(hazard), 7);
	}
}

static void test_text_json_safe(void **state)
{
	const char *in = "{\"m\":\"\xe2\x80\xae" "abc \xc2\x85 日本 \xf0\x9f\x98\x80\"}";
	ac_buf out = AC_BUF_INIT;
	json_t *before, *after;

	(void)state;
	assert_int_equal(ac_text_json_safe(&out, in, strlen(in)), 0);
	assert_string_equal(out.data, "{\"m\":\"\\u202eabc \\u0085 日本 \xf0\x9f\x98\x80\"}");
	/* The same document, byte-hazard free. */
	before = json_loads(in, 0, NULL);
	after = json_loads(out.data, 0, NULL);
	assert_non_null(before);
	assert_non_null(after);
	assert_true(json_equal(before, after));
	json_decref(before);
	json_decref(after);
	ac_buf_free(&out);
	expect_filtered(ac_text_json_safe, "{\"a\":\"\\u001b[31m\"}", "{\"a\":\"\\u001b[31m\"}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid_events_name_the_field),
		cmocka_unit_test(test_not_an_object),
		cmocka_unit_test(test_valid_events),
		cmocka_unit_test(test_extra_agents),
		cmocka_unit_test(test_extra_action_types),
		cmocka_unit_test(test_enum_names_exactly),
		cmocka_unit_test(test_error_quotes_values_safely),
		cmocka_unit_test(test_id_valid),
		cmocka_unit_test(test_prepare_fills_id_and_timestamp),
		cmocka_unit_test(test_prepare_keeps_given_fields),
		cmocka_unit_test(test_prepare_rejects),
		cmocka_unit_test(test_time_parse),
		cmocka_unit_test(test_time_format),
		cmocka_unit_test(test_time_is_iso),
		cmocka_unit_test(test_text_sanitize),
		cmocka_unit_test(test_text_plain),
		cmocka_unit_test(test_text_stream),
		cmocka_unit_test(test_text_json_safe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
