/* The application tier: a program built against <agentctl/agentctl.h>
 * alone, with only the installed include folder on its path (no core/, no
 * sys/). tests/layering.sh compiles it so, from a copy of include/agentctl/
 * laid out as an install puts it.
 *
 * It checks a journal line with ac_event_parse(), reading the fields it
 * hands back, and holds the workspace's store as a handle: what the
 * umbrella promises a caller can do without the implementer's tier; and
 * uses one call of each helper header made public (text, atomic writes,
 * exact JSON, the scanner, files), and the store's operations as calls
 * (ac_backend.h), with no vtable in sight. */
#include <agentctl/agentctl.h>

#include <stdio.h>
#include <string.h>

#ifdef AC_BACKEND_SYS_H
#error "the umbrella pulls in the backend vtable (sys/ac_backend_sys.h)"
#endif
#if defined(AC_BACKEND_FS_H) || defined(AC_BACKEND_FS_AFTER_TURN_MESSAGES)
#error "the umbrella pulls in the file backend's test hook (sys/ac_backend_fs.h)"
#endif

static const char line[] =
	"{\"id\":\"evt_20250101120000_0123abcd\",\"timestamp\":\"2025-01-01T12:00:00Z\","
	"\"agent\":\"Claude\",\"status\":\"SUCCESS\","
	"\"action\":{\"type\":\"ANALYSIS\",\"params\":{}},"
	"\"result\":{\"message\":\"hello\"}}";

int main(void)
{
	ac_json_span fields[AC_EV_NFIELDS];
	const ac_json_span *agent = &fields[AC_EV_AGENT];
	ac_backend *store = NULL; /* a handle: ac_workspace_store() fills it */

	if (ac_event_parse(fields, line, sizeof(line) - 1, NULL) != 0) {
		fprintf(stderr, "tiers_app: %s\n", ac_error_last());
		return 1;
	}
	if (agent->type != AC_JSON_STRING || agent->len != strlen("\"Claude\"") ||
	    memcmp(agent->start, "\"Claude\"", agent->len) != 0 ||
	    ac_event_check(fields, NULL) != 0) {
		fprintf(stderr, "tiers_app: the agent field is not the line's\n");
		return 1;
	}
	if (ac_event_parse(fields, "{\"agent\":1}", 11, NULL) != AC_EINVAL) {
		fprintf(stderr, "tiers_app: a bad event passed\n");
		return 1;
	}
	if (ac_text_plain("\x1b[2J", 4) || !ac_atomic_is_temp_name(".a.json.1.2.tmp") ||
	    ac_json_exact_holds_marker("1", 1) ||
	    ac_json_scan(fields, "{\"a\":1}", 7, NULL, 0, NULL) != 0 ||
	    ac_file_below("/ws/a", "/ws") == NULL) {
		fprintf(stderr, "tiers_app: a helper header's call answered wrong\n");
		return 1;
	}
	if (store && !ac_backend_has_local_sessions(store)) {
		ac_backend_session_info info = {0};
		char **names = NULL;
		size_t n = 0;

		if (ac_backend_inspector_find(store, &info, "s1") == 0 &&
		    ac_backend_memo_list(store, &names, &n, info.tenant, "s1", "session") == 0)
			printf("tiers_app: %zu memo document(s)\n", n);
		ac_backend_names_free(names, n);
		ac_backend_session_info_clear(&info);
	}
	if (ac_backend_has_watch(store)) { /* false for NULL, as every query */
		fprintf(stderr, "tiers_app: a missing store answered a query\n");
		return 1;
	}
	ac_backend_close(store); /* safe on NULL */
	printf("tiers_app: ok\n");
	return 0;
}
