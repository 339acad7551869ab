/* The workspace journal's event schema v1.0: checking and completing events.
 *
 * One validator serves every path: an event typed on the command line is
 * completed with jansson, serialised, and then checked by the same scanner
 * based check that readers apply to each line of the journal, so what
 * `journal log` accepts is exactly what `journal check` calls valid. */
#ifndef AC_EVENT_H
#define AC_EVENT_H

#include "ac_json_span.h"

#include <stdbool.h>
#include <stddef.h>

/* "evt_" + YYYYMMDDhhmmss + "_" + 8 hex digits */
#define AC_EVENT_ID_LEN 27

/* The fields of an event, in the order of ac_event_paths(). */
enum ac_event_field {
	AC_EV_ID,
	AC_EV_TIMESTAMP,
	AC_EV_AGENT,
	AC_EV_STATUS,
	AC_EV_ACTION,
	AC_EV_ACTION_TYPE,
	AC_EV_ACTION_INPUT,
	AC_EV_ACTION_PARAMS,
	AC_EV_RESULT,
	AC_EV_RESULT_MESSAGE,
	AC_EV_RESULT_ARTIFACTS,
	AC_EV_TRACE,
	AC_EV_TRACE_CORRELATION_ID,
	AC_EV_TRACE_PARENT_ID,
	AC_EV_NFIELDS
};

/* What may vary per workspace: agent names and action.type values added
 * in config (journal.agents, journal.actionTypes). Borrowed by every call
 * that takes it; NULL means none. */
typedef struct {
	const char *const *extra_agents;
	size_t nextra_agents;
	const char *const *extra_action_types;
	size_t nextra_action_types;
} ac_event_schema;

/* The AC_EV_NFIELDS scanner paths of the schema's fields (static storage). */
const ac_json_path *ac_event_paths(void);

/* Checks fields (AC_EV_NFIELDS spans, as ac_event_parse() fills them, in
 * the order of enum ac_event_field) against the schema: required fields, types, enum
 * values, id and timestamp formats. Returns 0 or AC_EINVAL with a message
 * that names the field, e.g. "agent: 'Bob' is not one of Claude, ...". */
int ac_event_check(const ac_json_span *fields /* [AC_EV_NFIELDS] */,
		   const ac_event_schema *schema);

/* Scans line[0..len) and checks it; fields receives the spans (borrowed
 * from line). Returns 0, AC_ECORRUPT (not JSON; "column N: ...") or
 * AC_EINVAL (JSON, but not a valid event). */
int ac_event_parse(ac_json_span *fields /* [AC_EV_NFIELDS] */, const char *line,
		   size_t len, const ac_event_schema *schema);

/* Completes an event typed by a person or program: parses json_text,
 * fills "id" and "timestamp" when absent (now, UTC), serialises it as one
 * compact line (no newline) and checks it. *out_line is allocated for the
 * caller to free; out_id receives the event's id. Returns 0, or AC_EINVAL
 * with a message naming the field or the JSON line and column at fault. */
int ac_event_prepare(char **out_line, size_t *out_len,
		     char out_id[AC_EVENT_ID_LEN + 1], const char *json_text,
		     const ac_event_schema *schema);

/* True when text[0..len) has the form evt_<YYYYMMDDhhmmss>_<8 hex>. */
bool ac_event_id_valid(const char *text, size_t len);

#endif
