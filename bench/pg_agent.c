/* A second machine's agent, simulated: one process writing sessions through
 * the PostgreSQL backend under a host name of its own (what
 * ac_backend_pg_options.host records as the writer), for the dashboard's
 * end-to-end test and the change -> screen latency benchmark.
 *
 *   pg_agent URL HOST create TENANT USER AGENT ID
 *   pg_agent URL HOST append TENANT ID MESSAGES_JSON
 *   pg_agent URL HOST status TENANT ID FROM TO
 *   pg_agent URL HOST latency TENANT N
 *       creates N sessions lat-0..lat-N-1 (when missing), then for each
 *       change k: waits for a line on stdin, appends one message to
 *       lat-(k mod N) and prints "<CLOCK_MONOTONIC ns before the commit> <id>"
 *       (bench/store_latency.py reads it and times the frame that shows it).
 * Exit 0, or 1 with one line on stderr. */
#include "ac_backend_pg.h"
#include "ac_error.h"

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

static int latency(const ac_backend *b, const char *tenant, int n)
{
	char id[32], line[16], *made = NULL;
	json_t *msg = json_loads("[{\"role\":\"assistant\",\"content\":\"tick\"}]", 0, NULL);

	for (int i = 0; i < n; i++) {
		snprintf(id, sizeof(id), "lat-%d", i);
		if (b->session.get_or_create(b->impl, &made, tenant, "bench", "agent", id) != 0)
			return fail("create");
		free(made);
	}
	printf("ready\n");
	fflush(stdout);
	for (int k = 0; fgets(line, sizeof(line), stdin); k++) {
		long long t0;

		snprintf(id, sizeof(id), "lat-%d", k % n);
		t0 = now_ns();
		if (b->session.append(b->impl, tenant, id, msg) != 0)
			return fail("append");
		printf("%lld %s\n", t0, id);
		fflush(stdout);
	}
	json_decref(msg);
	return 0;
}

int main(int argc, char **argv)
{
	ac_backend b;
	ac_backend_pg_options opts = {0};
	const char *verb = argc > 3 ? argv[3] : "";
	char *made = NULL;
	int rc = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: pg_agent URL HOST create|append|status|latency ...\n");
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
	} else if (!strcmp(verb, "latency") && argc == 6) {
		rc = latency(&b, argv[4], atoi(argv[5]));
	} else {
		fprintf(stderr, "pg_agent: unknown or incomplete command '%s'\n", verb);
		rc = 2;
	}
	ac_backend_close(&b);
	return rc;
}
