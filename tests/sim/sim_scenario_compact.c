/* The compaction scenario: two agentctl appenders on one session of tenant
 * t1 (one appends tool results over the artifact threshold), agentctl's
 * compaction of it as `agentctl session compact` runs it for a local
 * session (ac_backend_fs_externalize_session(): the large tool results to
 * artifacts/t1/s1/, then the session naming them; then ac_compact_session()
 * with the built-in summariser: its archive in
 * <sessions>/.compactions/s1/, then the session naming it) and gc of the
 * archives (the file store's plan and apply, `gc --older-than 1m`) run by
 * a host whose wall clock is 20 minutes ahead: past gc's grace for a fresh
 * archive (AC_GC_GRACE_MS), so only the session's lock and gc's re-reading
 * of the session keep an archive a compaction is about to name. Killed at
 * any step; the power fails.
 *
 * Holds after every step and every power loss: the session file loads;
 * every archive it names exists and loads; every artifact a message names
 * exists and holds the tool result; every acknowledged message is in the
 * session or an archive it names, exactly once. */
#include "sim.h"

#include "ac_backend.h"
#include "ac_backend_fs_impl.h"
#include "ac_compact.h"
#include "ac_error.h"
#include "ac_gc.h"
#include "ac_time.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GC_CLOCK_AHEAD_NS (20 * 60 * 1000000000LL)
#define MAX_COUNTED 4096
#define DATA_DIR "/ws/.agent"
#define ARTIFACTS DATA_DIR "/artifacts/t1/s1"
#define REFERENCE_START "[artifact "

static const char initial_session[] =
	"{\n  \"id\": \"s1\",\n  \"task\": \"simulated\",\n  \"status\": \"running\",\n"
	"  \"conversationHistory\": [],\n  \"metadata\": {\"tenantId\": \"t1\"},\n"
	"  \"createdAt\": \"2026-11-28T00:00:00.000Z\",\n"
	"  \"updatedAt\": \"2026-11-28T00:00:00.000Z\"\n}\n";

/* A tool result over the artifact threshold: its marker, then padding. */
static void large_result(char *out, size_t size, const char *marker)
{
	size_t n = strlen(marker);

	memcpy(out, marker, n);
	memset(out + n, '.', size - n - 1);
	out[size - 1] = '\0';
}

#define LARGE_RESULT_SIZE (AC_BACKEND_ARTIFACT_THRESHOLD + 512)

/* An agent's tool results, appended by agentctl: each over the artifact
 * threshold, so that compaction moves it to an artifact. */
static void tool_appender(sim_actor *a)
{
	static char content[LARGE_RESULT_SIZE];

	while (a->ops_left > 0) {
		char marker[64], call[64];

		snprintf(marker, sizeof(marker), "%s-%d-%d", a->role, (int)a->pid, a->ops_left);
		snprintf(call, sizeof(call), "r%d-%d", (int)a->pid, a->ops_left);
		large_result(content, sizeof(content), marker);
		sim_append_acked(a, marker,
				 json_pack("[{s:s, s:s, s:s}]", "role", "tool", "toolCallId", call,
					   "content", content));
	}
}

static void compactor(sim_actor *a)
{
	ac_compact_options opts;

	ac_compact_options_init(&opts);
	opts.force = true; /* whatever its size: a few messages are enough here */
	while (a->ops_left > 0) {
		ac_compact_result r;
		int rc;

		ac_backend_fs_options files = {.version = AC_BACKEND_FS_OPTIONS_VERSION,
						.sessions_dir = SIM_SESSIONS,
						.data_dir = DATA_DIR};
		ac_backend_compact_result moved;
		size_t stayed = 0;

		sim_sleep_ns(50000000 + (int64_t)sim_below(400000000));
		/* As the operator's compaction: large tool results first. */
		if (ac_backend_fs_externalize_session(&moved, &stayed, &files, "s1",
						      AC_BACKEND_ARTIFACT_THRESHOLD))
			sim_trace("%s/%d externalize: %s", a->role, (int)a->pid, ac_error_last());
		else if (moved.externalized)
			sim_trace("%s/%d moved %zu tool results to artifacts", a->role, (int)a->pid,
				  moved.externalized);
		rc = ac_compact_session(&r, SIM_SESSIONS, "s1", &opts);
		if (rc)
			sim_trace("%s/%d compact: %s", a->role, (int)a->pid, ac_error_last());
		else if (r.needed)
			sim_trace("%s/%d compacted %zu messages, archive %s", a->role, (int)a->pid,
				  r.summarized, r.archive_path);
		else
			sim_trace("%s/%d not compacted: %s", a->role, (int)a->pid, r.why_not);
		ac_compact_result_free(&r);
		sim_op_done(a);
	}
}

static void report_removal(const ac_gc_item *item, int rc, void *ctx)
{
	sim_actor *a = ctx;

	sim_trace("%s/%d gc %s %s%s%s", a->role, (int)a->pid, rc ? "kept" : "REMOVED", item->path,
		  rc ? ": " : "", rc ? ac_error_last() : "");
}

static void collector(sim_actor *a)
{
	ac_gc_files_options files = {
		.version = AC_GC_FILES_OPTIONS_VERSION,
		.sessions_dir = SIM_SESSIONS,
		.checkpoints_dir = "/ws/.agent/checkpoints",
		.data_dir = "/ws/.agent",
		.journal_path = "/ws/JOURNAL.jsonl",
		.root = "/ws",
	};

	/* This host's clock runs ahead: every archive looks older than the
	 * grace to it. */
	a->clock_skew_ns = GC_CLOCK_AHEAD_NS;
	sim_trace("%s/%d clock set %+.0f s ahead", a->role, (int)a->pid,
		  (double)GC_CLOCK_AHEAD_NS / 1e9);
	while (a->ops_left > 0) {
		ac_gc_policy policy = {.older_than_ms = 60 * 1000};
		ac_gc_plan plan = {0};
		ac_gc_store *store = NULL;

		sim_sleep_ns(5000000 + (int64_t)sim_below(80000000));
		policy.now_ms = ac_time_now_ms();
		if (ac_gc_store_files_new(&store, &files) || ac_gc_plan_make(&plan, store, &policy)) {
			sim_trace("%s/%d gc: %s", a->role, (int)a->pid, ac_error_last());
		} else {
			/* A loaded host: the process may stall between its plan
			 * and its removals, as between any two steps. */
			if (sim_chance(0.5))
				sim_sleep_ns((int64_t)sim_below(20000000));
			if (ac_gc_apply(NULL, NULL, store, &plan, report_removal, a))
				sim_trace("%s/%d gc: %s", a->role, (int)a->pid, ac_error_last());
		}
		ac_gc_plan_free(&plan);
		ac_gc_store_free(store);
		sim_op_done(a);
	}
}

int sim_compact_setup(void)
{
	sim_acks_reset();
	sim_fs_mkdirs(SIM_SESSIONS);
	sim_fs_put(SIM_SESSION, initial_session, sizeof(initial_session) - 1);
	sim_add_role("append-a", sim_agentctl_append, true, true, 10);
	sim_add_role("append-b", tool_appender, true, true, 8);
	sim_add_role("compact", compactor, true, true, 8);
	sim_add_role("gc", collector, true, true, 30);
	return 4;
}

json_t *sim_load_json(const char *path, char *why, size_t size)
{
	size_t len;
	char *text = sim_fs_slurp(path, &len);
	json_error_t error;
	json_t *root;

	if (!text) {
		snprintf(why, size, "%s does not exist", path);
		return NULL;
	}
	root = json_loadb(text, len, 0, &error);
	free(text);
	if (!root)
		snprintf(why, size, "%s does not load (%zu bytes): %s", path, len, error.text);
	return root;
}

/* The marker a message's content holds: the content itself, or a large
 * tool result's first bytes, or through the artifact a reference names
 * (false with why when that artifact is missing or not the result). */
static bool marker_of(char *out, size_t size, const char *content, char *why, size_t why_size)
{
	char id[64], path[200];
	char *held;
	size_t len, n;

	if (strncmp(content, REFERENCE_START, strlen(REFERENCE_START)) != 0) {
		n = strcspn(content, ".");
		snprintf(out, size, "%.*s", (int)n, content);
		return true;
	}
	n = strcspn(content + strlen(REFERENCE_START), ":");
	snprintf(id, sizeof(id), "%.*s", (int)(n < sizeof(id) ? n : sizeof(id) - 1),
		 content + strlen(REFERENCE_START));
	snprintf(path, sizeof(path), "%s/%s", ARTIFACTS, id);
	if (!(held = sim_fs_slurp(path, &len))) {
		snprintf(why, why_size, "a message names the artifact %s, which does not exist",
			 path);
		return false;
	}
	if (len != LARGE_RESULT_SIZE - 1) {
		snprintf(why, why_size, "the artifact %s holds %zu bytes, not the %d of its result",
			 path, len, LARGE_RESULT_SIZE - 1);
		free(held);
		return false;
	}
	n = strcspn(held, ".");
	snprintf(out, size, "%.*s", (int)n, held);
	free(held);
	return true;
}

/* Counts each acknowledged marker among messages' contents. */
static bool count(int *counts, const json_t *messages, char *why, size_t size)
{
	int n = sim_acks_count();

	for (size_t i = 0; i < json_array_size(messages); i++) {
		const char *content = json_string_value(
			json_object_get(json_array_get(messages, i), "content"));
		char marker[128];

		if (!content)
			continue;
		if (!marker_of(marker, sizeof(marker), content, why, size))
			return false;
		for (int k = 0; k < n; k++)
			if (!strcmp(sim_ack_marker(k), marker))
				counts[k]++;
	}
	return true;
}

static bool check_tree(char *why, size_t size)
{
	static int counts[MAX_COUNTED];
	json_t *session = sim_load_json(SIM_SESSION, why, size), *history, *record;
	int n = sim_acks_count() < MAX_COUNTED ? sim_acks_count() : MAX_COUNTED;
	bool held = false;
	size_t i;

	if (!session)
		return false;
	memset(counts, 0, sizeof(int) * (size_t)n);
	history = json_object_get(session, "conversationHistory");
	if (!json_is_array(history)) {
		snprintf(why, size, "%s has no conversationHistory array", SIM_SESSION);
		goto done;
	}
	if (!count(counts, history, why, size))
		goto done;
	/* The union of the session and the archives it names. */
	json_array_foreach(json_object_get(json_object_get(session, "metadata"), "compactions"), i,
			   record) {
		const char *named = json_string_value(json_object_get(record, "archive"));
		char path[400], reason[600];
		json_t *archive;

		snprintf(path, sizeof(path), "%s/%s", SIM_SESSIONS, named ? named : "(none)");
		if (!(archive = sim_load_json(path, reason, sizeof(reason)))) {
			snprintf(why, size, "%s names the archive %s, but %s", SIM_SESSION,
				 named ? named : "(none)", reason);
			goto done;
		}
		if (!count(counts, json_object_get(archive, "messages"), why, size)) {
			json_decref(archive);
			goto done;
		}
		json_decref(archive);
	}
	for (int k = 0; k < n; k++)
		if (counts[k] != 1) {
			snprintf(why, size, "acknowledged message %s is in %s and the archives it "
				 "names %d times", sim_ack_marker(k), SIM_SESSION, counts[k]);
			goto done;
		}
	held = true;
done:
	json_decref(session);
	return held;
}

/* Checks the tree; the same tree with the same acknowledgements is not
 * read again (most steps change nothing checked, and the checks after
 * every step are most of a run's time). */
bool sim_compact_check(char *why, size_t size, bool after_power_loss)
{
	static uint64_t seen_generation = UINT64_MAX;
	static int seen_acks = -1;

	(void)after_power_loss;
	if (sim_fs_generation() == seen_generation && sim_acks_count() == seen_acks)
		return true;
	if (!check_tree(why, size))
		return false;
	seen_generation = sim_fs_generation();
	seen_acks = sim_acks_count();
	return true;
}
