/* A second machine's agent, simulated: one process writing sessions through
 * the PostgreSQL backend under a host name of its own (what
 * ac_backend_pg_options.host records as the writer), for the dashboard's
 * end-to-end test and the change -> screen latency benchmark.
 *
 *   pg_agent URL HOST create TENANT USER AGENT ID
 *   pg_agent URL HOST append TENANT ID MESSAGES_JSON
 *   pg_agent URL HOST status TENANT ID FROM TO
 *   pg_agent URL HOST journal EVENT_JSON          (ids and timestamps filled)
 *   pg_agent URL HOST checkpoint TENANT ID CKPT   (of the session's history now)
 *   pg_agent URL HOST latency TENANT N [KIND]
 *       creates N sessions lat-0..lat-N-1 (when missing), then for each
 *       change k: waits for a line on stdin, makes one change of KIND and
 *       prints "<CLOCK_MONOTONIC ns before the commit> <what the frame
 *       trace names>" (bench/store_latency.py reads it and times the frame
 *       that shows it). KIND: row (default; a message appended to
 *       lat-(k mod N), its row), status (lat-(k mod N) paused or running
 *       again, its row), message (a message appended to lat-0, its open
 *       conversation "conversation:lat-0:<messages>"), journal (an event,
 *       "journal:<id>"), checkpoint (a checkpoint of lat-0,
 *       "checkpoint:<id>").
 * Exit 0, or 1 with one line on stderr. */
#include "ac_backend_pg.h"
#include "ac_checkpoint.h"
#include "ac_error.h"
#include "ac_journal_store.h"
#include "ac_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fail(const char *what)
{
	fprintf(stderr, "pg_agent: %s: %s\n", what, ac_error_last());
	return 1;
}

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Logs one event through the store (as `journal log` does). */
static int log_event(ac_journal_store *journal, const char *json, char id[AC_EVENT_ID_LEN + 1])
{
	static const ac_event_schema schema;
	char *line = NULL;
	size_t len = 0;
	int rc = ac_event_prepare(&line, &len, id, json, &schema);

	if (!rc)
		rc = ac_journal_store_append(journal, line, len, NULL);
	free(line);
	return rc;
}

/* Saves checkpoint ckpt of tenant's session id: its history now, the next
 * version. */
static int save_checkpoint(const ac_backend *b, ac_checkpoint_store *store, const char *tenant,
			   const char *id, const char *ckpt)
{
	char now[AC_TIME_ISO_LEN + 1];
	json_t *doc = NULL, *ck = NULL;
	int64_t version = 0;
	int rc;

	ac_time_format_iso(now, ac_time_now_ms());
	if ((rc = b->session.get(b->impl, &doc, tenant, id)) ||
	    (rc = ac_checkpoint_store_next_version(&version, store, id)))
		goto done;
	ck = json_pack("{s:s, s:s, s:s, s:s, s:I, s:n, s:s, s:n, s:n, s:n, s:O, s:{}}",
		       "checkpointId", ckpt, "sessionId", id, "agentId", "pg_agent",
		       "createdAt", now, "version", (json_int_t)version, "parentId", "nodeId",
		       "bench", "lastInput", "lastInputType", "lastOutput", "messageHistory",
		       json_object_get(doc, "conversationHistory"), "properties");
	rc = ck ? ac_checkpoint_store_save(store, ck) : ac_error_set(AC_ENOMEM, "out of memory");
done:
	json_decref(doc);
	json_decref(ck);
	return rc;
}

typedef struct {
	const ac_backend *b;
	ac_journal_store *journal;
	ac_checkpoint_store *ckpts;
	const char *tenant, *kind;
	json_t *msg;
	size_t lat0_messages;
} latency_run;

/* Change k of the run's kind; what the frame trace will name in shown. */
static int change(latency_run *r, int k, int n, char *shown, size_t size)
{
	char id[AC_EVENT_ID_LEN + 32], event[200];
	int rc;

	snprintf(id, sizeof(id), "lat-%d", k % n);
	snprintf(shown, size, "%s", id);
	if (!strcmp(r->kind, "status"))
		return r->b->session.set_status(r->b->impl, r->tenant, id, (k / n) % 2 ? "paused" : "running",
						(k / n) % 2 ? "running" : "paused");
	if (!strcmp(r->kind, "message")) {
		if ((rc = r->b->session.append(r->b->impl, r->tenant, "lat-0", r->msg)))
			return rc;
		snprintf(shown, size, "conversation:lat-0:%zu", ++r->lat0_messages);
		return 0;
	}
	if (!strcmp(r->kind, "journal")) {
		snprintf(event, sizeof(event), "{\"agent\":\"Codex\",\"status\":\"SUCCESS\",\"action\":"
			 "{\"type\":\"ANALYSIS\",\"params\":{}},\"result\":{\"message\":\"tick %d\"}}", k);
		if ((rc = log_event(r->journal, event, id)))
			return rc;
		snprintf(shown, size, "journal:%s", id);
		return 0;
	}
	if (!strcmp(r->kind, "checkpoint")) {
		snprintf(id, sizeof(id), "ck-%lld-%d", (long long)ac_time_now_ms(), k);
		if ((rc = save_checkpoint(r->b, r->ckpts, r->tenant, "lat-0", id)))
			return rc;
		snprintf(shown, size, "checkpoint:%s", id);
		return 0;
	}
	return r->b->session.append(r->b->impl, r->tenant, id, r->msg);
}

static int latency(const ac_backend *b, const char *url, const char *host, const char *tenant,
		   int n, const char *kind)
{
	char id[32], line[16], shown[128], *made = NULL;
	latency_run r = {b, NULL, NULL, tenant, kind,
			 json_loads("[{\"role\":\"assistant\",\"content\":\"tick\"}]", 0, NULL), 0};
	json_t *history = NULL;
	int rc = 0;

	for (int i = 0; i < n; i++) {
		snprintf(id, sizeof(id), "lat-%d", i);
		if (b->session.get_or_create(b->impl, &made, tenant, "bench", "agent", id) != 0)
			return fail("create");
		free(made);
	}
	if (b->session.load_all(b->impl, &history, tenant, "lat-0") != 0)
		return fail("read lat-0");
	r.lat0_messages = json_array_size(history);
	json_decref(history);
	if ((!strcmp(kind, "journal") && ac_journal_store_pg_new(&r.journal, url, NULL, host, NULL)) ||
	    (!strcmp(kind, "checkpoint") && ac_checkpoint_store_pg_new(&r.ckpts, url, NULL)))
		return fail("open");
	printf("ready\n");
	fflush(stdout);
	for (int k = 0; !rc && fgets(line, sizeof(line), stdin); k++) {
		long long t0 = now_ns();

		if ((rc = change(&r, k, n, shown, sizeof(shown))))
			rc = fail(kind);
		else
			printf("%lld %s\n", t0, shown);
		fflush(stdout);
	}
	json_decref(r.msg);
	ac_journal_store_free(r.journal);
	ac_checkpoint_store_free(r.ckpts);
	return rc;
}

int main(int argc, char **argv)
{
	ac_backend b;
	ac_backend_pg_options opts = AC_BACKEND_PG_OPTIONS_INIT;
	const char *verb = argc > 3 ? argv[3] : "";
	char *made = NULL;
	int rc = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: pg_agent URL HOST create|append|status|journal|checkpoint|latency ...\n");
		return 2;
	}
	opts.url = argv[1];
	opts.host = argv[2];
	opts.agent = "pg_agent";
	if (ac_backend_pg_init(&b, &opts) != 0)
		return fail("open");
	if (!strcmp(verb, "create") && argc == 8) {
		if (b.session.get_or_create(b.impl, &made, argv[4], argv[5], argv[6], argv[7]) != 0)
			rc = fail("create");
		free(made);
	} else if (!strcmp(verb, "append") && argc == 7) {
		json_t *msgs = json_loads(argv[6], 0, NULL);

		if (!msgs || b.session.append(b.impl, argv[4], argv[5], msgs) != 0)
			rc = fail("append");
		json_decref(msgs);
	} else if (!strcmp(verb, "status") && argc == 8) {
		if (b.session.set_status(b.impl, argv[4], argv[5], argv[6], argv[7]) != 0)
			rc = fail("status");
	} else if (!strcmp(verb, "journal") && argc == 5) {
		ac_journal_store *journal = NULL;
		char id[AC_EVENT_ID_LEN + 1];

		if (ac_journal_store_pg_new(&journal, argv[1], NULL, argv[2], NULL) != 0 ||
		    log_event(journal, argv[4], id) != 0)
			rc = fail("journal");
		else
			printf("%s\n", id);
		ac_journal_store_free(journal);
	} else if (!strcmp(verb, "checkpoint") && argc == 7) {
		ac_checkpoint_store *ckpts = NULL;

		if (ac_checkpoint_store_pg_new(&ckpts, argv[1], NULL) != 0 ||
		    save_checkpoint(&b, ckpts, argv[4], argv[5], argv[6]) != 0)
			rc = fail("checkpoint");
		ac_checkpoint_store_free(ckpts);
	} else if (!strcmp(verb, "latency") && (argc == 6 || argc == 7)) {
		rc = latency(&b, argv[1], argv[2], argv[4], atoi(argv[5]), argc == 7 ? argv[6] : "row");
	} else {
		fprintf(stderr, "pg_agent: unknown or incomplete command '%s'\n", verb);
		rc = 2;
	}
	ac_backend_close(&b);
	return rc;
}
