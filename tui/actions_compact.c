/* c: compacting a session from the dashboard, whichever the workspace's
 * store: the dialog that says what will change,
 * then the compaction on the action's thread, reported on the status
 * line. Split from actions.c, which dispatches to these. */
#include "actions.h"
#include "actions_impl.h"

#include "ac_compact.h"
#include "ac_error.h"
#include "ac_operator.h"
#include "ac_session.h"
#include "undo.h"

#include <stdlib.h>
#include <string.h>

/* The compaction dialog for plan (of messages as the store holds them)
 * or, when nothing is to be done, the status line saying why. */
static void compact_dialog(ui_dialog *d, ui_model *m, const char *id, const json_t *messages,
			   const ac_compact_options *opts, const char *archived)
{
	ac_compact_result plan = {0};

	ac_compact_plan(&plan, messages, opts);
	if (!plan.needed) {
		ui_model_set_action(m, false, "compact %s: nothing to do (%s)", id,
				    plan.why_not ? plan.why_not : "no messages to summarise");
		ac_compact_result_free(&plan);
		return;
	}
	d->kind = UI_DLG_COMPACT;
	d->target = strdup(id);
	ui_model_dialog_title(m, "Compact session %s?", id);
	ui_model_dialog_line(m, "tokens before: %llu (trigger %llu%s)", (unsigned long long)plan.tokens_before,
		       (unsigned long long)opts->trigger_tokens,
		       plan.tokens_before < opts->trigger_tokens ? ", below it: forced" : "");
	ui_model_dialog_line(m, "messages to summarise: %zu of %zu, replaced by 1 summary", plan.summarized,
		       plan.messages_before);
	ui_model_dialog_line(m, "messages after: %zu", plan.messages_after);
	ui_model_dialog_line(m, "the originals are archived %s", archived);
	ui_model_dialog_line(m, "summariser: %s", opts->summarizer && opts->summarizer[0] ? opts->summarizer[0]
									       : "built-in");
	ac_compact_result_free(&plan);
}

void ui_act_plan_compact(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *id)
{
	ac_backend_session_info info = {0};
	ac_compact_options opts = ws->compact;
	const char *const *summarizer = NULL;
	ac_buf where = AC_BUF_INIT;
	json_t *messages = NULL;
	ac_session *s = NULL;
	ac_backend *b = NULL;
	bool local;

	ui_dialog_close(d, m);
	if (ac_workspace_command(&summarizer, ws, "summarizer.command") != 0 ||
	    ac_workspace_store(&b, ws) != 0)
		goto failed;
	local = ac_backend_has_local_sessions(b);
	/* The history as the store holds it now; in a shared store read by
	 * id (its tenant is the store's). */
	if (local ? ac_session_load(&s, ws->sessions_dir, id) != 0
		  : ac_backend_inspector_find(b, &info, id) != 0 ||
			    ac_backend_session_load_all(b, &messages, info.tenant, id) != 0)
		goto failed;
	opts.force = true; /* the operator asked: compact even below the trigger */
	/* Seed 001 §7a: artifacts are kept per tenant (ac_operator_compact). */
	if (local)
		ac_buf_printf(&where, "under %s/.compactions/%s", ws->sessions_dir,
			      json_is_string(json_object_get(
				      json_object_get(ac_session_root(s), "metadata"), "tenantId"))
				      ? "; large tool results become artifacts" : "");
	else
		ac_buf_printf(&where, "in the database (compactions); large tool results become "
			      "artifacts");
	compact_dialog(d, m, id, local ? ac_session_messages(s) : messages, &opts,
		       where.data ? where.data : "");
	d->shared = !local;
	goto done;
failed:
	ui_model_set_action(m, true, "compact %s: %s", id, ac_error_last());
done:
	json_decref(messages);
	ac_backend_session_info_clear(&info);
	ac_workspace_store_release(ws, b);
	ac_buf_free(&where);
	ac_session_free(s);
}

/* What a compaction of d->target did, on the status line: rc its result,
 * done whether it summarised, the counts as it reports them. */
static void say_compacted(ui_act_outcome *o, const ui_dialog *d, int cancel_fd, int rc, bool done,
			  const char *why_not, size_t before, size_t after, uint64_t tokens_before,
			  uint64_t tokens_after, const ac_buf *notes)
{
	if (rc != 0) {
		if (ui_act_cancel_asked(cancel_fd))
			ui_act_say(o, false, "compaction of %s cancelled: nothing changed", d->target);
		else
			ui_act_say(o, true, "compact %s failed, nothing changed: %s", d->target, ac_error_last());
	} else if (!done) {
		ui_act_say(o, false, "compact %s: nothing done (%s)", d->target, why_not ? why_not : "?");
	} else {
		ui_act_say(o, false, "compacted %s: %zu -> %zu messages, %llu -> %llu tokens%s%s", d->target,
		    before, after, (unsigned long long)tokens_before, (unsigned long long)tokens_after,
		    notes->len ? "; " : "", notes->len ? notes->data : "");
	}
}

/* In a shared store nothing is for z to undo: the archive is the
 * store's (compactions), not a file. */
void ui_act_run_compact(const ui_dialog *d, const ac_workspace *ws, int cancel_fd,
			ui_act_outcome *o)
{
	ac_buf notes = AC_BUF_INIT;
	ac_operator_compaction r = {0};
	int rc = ac_operator_compact(ws, d->target, true, &r, &notes);

	say_compacted(o, d, cancel_fd, rc, rc == 0 && r.done.compacted, r.done.why_not,
		      r.done.messages_before, r.done.messages_after, r.done.tokens_before,
		      r.done.tokens_after, &notes);
	if (rc == 0 && r.done.compacted && r.archive) {
		ui_undo_record(&o->undo, UI_UNDO_COMPACT, d->target, r.archive,
			       r.done.messages_after, r.done.summarized, NULL, NULL);
		o->undo_set = true;
	} else if (d->shared) {
		o->undo_forget = true;
	}
	ac_operator_compaction_free(&r);
	ac_buf_free(&notes);
}
