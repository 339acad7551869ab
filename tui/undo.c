/* Undoing the operator's last action (undo.h). */
#include "undo.h"

#include "ac_error.h"
#include "ac_restore.h"
#include "ac_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void ui_undo_clear(ui_undo *u)
{
	free(u->session);
	free(u->archive);
	free(u->op);
	memset(u, 0, sizeof(*u));
}

void ui_undo_record(ui_undo *u, ui_undo_kind kind, const char *session, const char *archive,
		    size_t expected, size_t restored, const char *op, const char *snapshot)
{
	ui_undo_clear(u);
	u->kind = kind;
	u->at_ms = (int64_t)time(NULL) * 1000;
	u->session = session ? strdup(session) : NULL;
	u->archive = archive ? strdup(archive) : NULL;
	u->op = op ? strdup(op) : NULL;
	u->expected = expected;
	u->restored = restored;
	snprintf(u->snapshot, sizeof(u->snapshot), "%s", snapshot ? snapshot : "");
}

static void clock_of(char out[16], int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	snprintf(out, 16, "--:--:--");
	if (gmtime_r(&t, &tm))
		strftime(out, 16, "%H:%M:%S", &tm);
}

void ui_undo_plan(ui_dialog *d, const ui_undo *u, const ac_workspace *ws, ui_model *m)
{
	char at[16];
	bool compaction = u->kind == UI_UNDO_COMPACT;

	clock_of(at, u->at_ms);
	switch (u->kind) {
	case UI_UNDO_NONE:
		ui_dialog_close(d, m);
		/* Also after an undo or a resume: "nothing yet" would be wrong. */
		ui_model_set_action(m, false, "z: nothing to undo (no pause, compaction, rollback or "
				    "revert of this dashboard is left to undo)");
		return;
	case UI_UNDO_PAUSE:
		ui_act_plan_status(d, ws, m, u->session, "running");
		if (d->kind != UI_DLG_NONE)
			ui_model_dialog_line(m, "(this undoes your pause of %s at %s UTC)",
					     u->session, at);
		return;
	case UI_UNDO_ROLLBACK_OP:
		ui_act_plan_rollback_op(d, ws, m, u->op);
		if (d->kind != UI_DLG_NONE)
			ui_model_dialog_line(m, "(this undoes your rollback or revert at %s UTC: it rolls back its "
					     "operation %s, back to snapshot %.12s)", at, u->op, u->snapshot);
		return;
	case UI_UNDO_COMPACT:
	case UI_UNDO_ROLLBACK_CKPT:
		break;
	}
	ui_dialog_close(d, m);
	d->kind = UI_DLG_UNDO;
	d->target = strdup(u->session);
	ui_undo_record(&d->undo, u->kind, u->session, u->archive, u->expected, u->restored, u->op,
		       u->snapshot);
	d->undo.at_ms = u->at_ms;
	ui_model_dialog_title(m, "Undo the %s of session %s (at %s UTC)?",
			      compaction ? "compaction" : "checkpoint rollback", u->session, at);
	if (compaction)
		ui_model_dialog_line(m, "puts the %zu archived messages back in place of the summary",
				     u->restored);
	else
		ui_model_dialog_line(m, "puts the %zu archived messages back after the %zu kept",
				     u->restored, u->expected);
	ui_model_dialog_line(m, "messages after: %zu", compaction ? u->expected - 1 + u->restored
								   : u->expected + u->restored);
	ui_model_dialog_line(m, "from the archive %s (it stays)", u->archive);
	ui_model_dialog_line(m, "refused, nothing changed, if the session has changed since");
	if (!compaction)
		ui_model_dialog_line(m, "compensations that ran are not undone");
}
