/* The operator's compaction of a session (ac_operator.h), whichever store
 * the workspace has: a session file in place, or the store's own
 * compact_if_needed; journaled
 * as SESSION_COMPACT, then followed up as seed 001 §7 asks (the session's
 * sandbox mirrors, its user's USER.md). */
#include "ac_operator.h"

#include "ac_config.h"
#include "ac_backend_fs_impl.h"
#include "ac_consolidate.h"
#include "ac_error.h"
#include "ac_journal_store.h"
#include "ac_sandbox.h"
#include "ac_session.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* True when a compaction has follow-ups here: a sandbox registry or
 * memory.consolidateCommand (most workspaces have neither). */
static bool has_follow_ups(const ac_workspace *ws, ac_buf *registry)
{
	struct stat st;

	if (ac_buf_printf(registry, "%s/.agent/sandboxes", ws->root))
		return false;
	return stat(registry->data, &st) == 0 ||
	       (ws->config && ac_config_get(ws->config, "memory.consolidateCommand"));
}

/* What follows a compaction of tenant's session (seed 001 §7) in store b:
 * the session's sandbox mirrors are refreshed (7a), and with
 * memory.consolidateCommand set, its user's notes are folded into USER.md,
 * which refreshes that user's mirrors (7b). Both are side steps: trouble
 * goes to notes, the compaction stands. user may be NULL. */
static void follow_up(const ac_workspace *ws, const ac_backend *b, const char *registry,
		      const char *tenant, const char *user, const char *id, ac_buf *notes)
{
	ac_consolidate_options consolidate = AC_CONSOLIDATE_OPTIONS_INIT;
	ac_consolidate_result folded = {0};
	ac_sandbox_result refreshed = {0};

	consolidate.sandbox.registry_dir = registry;
	if (ac_sandbox_refresh_session(&refreshed, b, tenant, id, &consolidate.sandbox) && notes)
		ac_buf_printf(notes, "sandbox mirrors of %s not refreshed: %s\n", id, ac_error_last());
	if (refreshed.notes && notes)
		ac_buf_printf(notes, "%s", refreshed.notes);
	if (!user || ac_backend_id_check("user", user))
		goto done;
	if (ac_workspace_command(&consolidate.command, ws, "memory.consolidateCommand")) {
		if (notes)
			ac_buf_printf(notes, "USER.md not consolidated: %s\n", ac_error_last());
		goto done;
	}
	if (!consolidate.command)
		goto done;
	if (ac_consolidate_user(&folded, b, tenant, user, &consolidate) && notes)
		ac_buf_printf(notes, "USER.md not consolidated: %s\n", ac_error_last());
	else if (folded.written && notes)
		ac_buf_printf(notes, "USER.md of user %s/%s consolidated from %zu notes of %zu "
			      "session%s\n", tenant, user, folded.notes, folded.sessions,
			      folded.sessions == 1 ? "" : "s");
	if (folded.refreshed.notes && notes)
		ac_buf_printf(notes, "%s", folded.refreshed.notes);
done:
	ac_error_clear();
	ac_consolidate_result_free(&folded);
	ac_sandbox_result_free(&refreshed);
}

/* follow_up for a session file: its tenancy read from the file. */
static void after_compact(const ac_workspace *ws, const ac_backend *b, const char *id,
			  ac_buf *notes)
{
	ac_buf registry = AC_BUF_INIT;
	ac_session *s = NULL;
	const json_t *metadata;
	const char *tenant;

	if (!has_follow_ups(ws, &registry) || ac_session_load(&s, ws->sessions_dir, id) != 0)
		goto done;
	metadata = json_object_get(ac_session_root(s), "metadata");
	tenant = json_string_value(json_object_get(metadata, "tenantId"));
	if (!tenant || ac_backend_id_check("tenant", tenant))
		goto done;
	follow_up(ws, b, registry.data, tenant,
		  json_string_value(json_object_get(metadata, "userId")), id, notes);
done:
	ac_error_clear();
	ac_session_free(s);
	ac_buf_free(&registry);
}

/* Journals a compaction that summarised something; archive may be NULL
 * (a store keeps its archive in its own table). */
static void journal_compact(const ac_workspace *ws, const char *id, size_t summarized,
			    uint64_t before, uint64_t after, const char *archive, ac_buf *notes)
{
	ac_buf message = AC_BUF_INIT;

	ac_buf_printf(&message, "Compacted session %s: %zu messages summarised, ~%llu -> ~%llu tokens",
		      id, summarized, (unsigned long long)before, (unsigned long long)after);
	if (ac_journal_operator_event(ws, "SESSION_COMPACT", "SUCCESS", id,
				      json_pack("{s:s, s:I, s:I, s:I, s:s?}", "sessionId", id,
						"messages", (json_int_t)summarized,
						"tokensBefore", (json_int_t)before,
						"tokensAfter", (json_int_t)after, "archive", archive),
				      message.data) != 0 && notes)
		ac_buf_printf(notes, "the journal was not written: %s\n", ac_error_last());
	ac_buf_free(&message);
}

/* Notes are lines; the caller shows them as one block. */
static void end_notes(ac_buf *notes)
{
	if (notes && notes->len && notes->data[notes->len - 1] == '\n')
		notes->data[--notes->len] = '\0';
}

/* Seed 001 §7a on the files, as the store's compact_if_needed does it:
 * large tool results to the session's artifacts before the summary, so
 * the summary does not take them away. Said in notes; true when any moved. */
static int externalize_files(bool *out_moved, const ac_workspace *ws, const char *id,
			     ac_buf *notes)
{
	ac_backend_compact_result moved;
	ac_backend_compact_options defaults;
	ac_buf data_dir = AC_BUF_INIT;
	size_t stayed = 0;
	int rc;

	ac_backend_compact_options_init(&defaults);
	if (ac_buf_printf(&data_dir, "%s/.agent", ws->root))
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = ac_backend_fs_externalize_session(
		&moved, &stayed, &(ac_backend_fs_options){.version = AC_BACKEND_FS_OPTIONS_VERSION,
						  .sessions_dir = ws->sessions_dir,
						  .data_dir = data_dir.data},
		id, defaults.artifact_threshold);
	*out_moved = rc == 0 && moved.externalized;
	if (*out_moved && notes)
		ac_buf_printf(notes, "%zu tool result%s over %zu bytes moved to artifacts (%llu bytes; "
			      "agentctl artifact list %s)\n", moved.externalized,
			      moved.externalized == 1 ? "" : "s", defaults.artifact_threshold,
			      (unsigned long long)moved.artifact_bytes, id);
	if (stayed && notes)
		ac_buf_printf(notes, "%zu tool result%s over %zu bytes not moved to artifacts: the "
			      "session has no metadata.tenantId\n", stayed, stayed == 1 ? "" : "s",
			      defaults.artifact_threshold);
	ac_buf_free(&data_dir);
	return rc;
}

/* A session file a local agent writes: compacted in place once quiet
 * (ac_compact_session(), which takes the file's lock), the summary's
 * originals in an archive file. */
static int compact_local(const ac_workspace *ws, const ac_backend *b, const char *id,
			 bool force, ac_operator_compaction *out, ac_buf *notes)
{
	ac_compact_options opts = ws->compact;
	ac_compact_result r = {0};
	bool moved = false;
	int rc;

	opts.force = force;
	/* Said in notes (the store's count goes to out->done). */
	if ((rc = externalize_files(&moved, ws, id, notes)) ||
	    (rc = ac_compact_session(&r, ws->sessions_dir, id, &opts)))
		goto done;
	out->done = (ac_backend_compact_result){
		.compacted = r.needed, .summarized = r.summarized,
		.messages_before = r.messages_before, .messages_after = r.messages_after,
		.tokens_before = r.tokens_before, .tokens_after = r.tokens_after,
		.why_not = r.why_not,
	};
	out->archive = r.archive_path;
	r.archive_path = NULL;
	if (r.needed)
		journal_compact(ws, id, r.summarized, r.tokens_before, r.tokens_after,
				out->archive, notes);
	if (r.needed || moved)
		after_compact(ws, b, id, notes);
done:
	ac_compact_result_free(&r);
	return rc;
}

/* A store's session: its compact_if_needed (tool results over the
 * artifact threshold to artifacts, then the summary; the store archives
 * what it replaces), under the session's operator lock when the store has
 * one (gc leaves its records alone meanwhile). */
static int compact_stored(const ac_workspace *ws, const ac_backend *b, const char *id,
			  bool force, ac_operator_compaction *out, ac_buf *notes)
{
	ac_backend_compact_options opts;
	ac_backend_session_info info = {0};
	ac_buf registry = AC_BUF_INIT;
	int rc;

	ac_backend_compact_options_init(&opts);
	opts.compact = ws->compact;
	opts.compact.force = force;
	/* The operator names a session by id: its tenant comes from the store. */
	if ((rc = b->inspector.find(b->impl, &info, id)) ||
	    (b->optional.hold_session && (rc = b->optional.hold_session(b, id, true))))
		goto done;
	rc = b->session.compact_if_needed(b->impl, &out->done, info.tenant, id, &opts);
	if (b->optional.hold_session)
		b->optional.hold_session(b, id, false);
	if (rc)
		goto done;
	if (out->done.compacted)
		journal_compact(ws, id, out->done.summarized, out->done.tokens_before,
				out->done.tokens_after, NULL, notes);
	if ((out->done.compacted || out->done.externalized) && has_follow_ups(ws, &registry))
		follow_up(ws, b, registry.data, info.tenant, *info.user ? info.user : NULL, id, notes);
done:
	ac_backend_session_info_clear(&info);
	ac_buf_free(&registry);
	return rc;
}

int ac_operator_compact(const ac_workspace *ws, const char *id, bool force,
			ac_operator_compaction *out, ac_buf *notes)
{
	ac_backend *b = NULL;
	int rc;

	*out = (ac_operator_compaction){0};
	if ((rc = ac_session_id_check(id)) || (rc = ac_workspace_store(&b, ws)))
		return rc;
	rc = (b->optional.local_sessions ? compact_local : compact_stored)(ws, b, id, force, out,
									   notes);
	ac_workspace_store_release(ws, b);
	if (rc == 0)
		end_notes(notes);
	return rc;
}

void ac_operator_compaction_free(ac_operator_compaction *c)
{
	free(c->archive);
	*c = (ac_operator_compaction){0};
}
