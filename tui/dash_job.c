/* The dashboard's side of a confirmed action running off its loop: start
 * it, refuse a second write meanwhile (keys.c), cancel it, report it. */
#include "dash.h"

#include "screen.h"

#include "ac_time.h"
#include "ac_watch.h"

#include <string.h>

/* A failure the status line would cut opens whole in a popup. */
static void notice(ui_dash *d)
{
	int rows, cols;

	screen_size(&rows, &cols);
	ui_act_notice(&d->dlg, &d->m, cols);
}

void ui_dash_confirm(ui_dash *d)
{
	ui_act_outcome out;

	if (ui_job_start(&d->job, &d->dlg, d->ws, ac_time_now_ms()) == 0) {
		ui_model_close_dialog(&d->m);
		d->m.action[0] = '\0';
		return;
	}
	/* No thread to be had: the action is still what the operator
	 * confirmed, so it runs here, as it did before there were workers. */
	ui_act_run(&d->dlg, d->ws, -1, &out);
	ui_act_report(&d->dlg, d->ws, &d->m, &d->undo, &out);
	notice(d);
	ui_source_update(d->src, &d->m, AC_WATCH_SESSIONS | AC_WATCH_OPERATIONS);
}

void ui_dash_job_finished(ui_dash *d)
{
	ui_act_outcome out;
	bool cancelled;

	if (!d->job)
		return;
	cancelled = ui_job_cancelled(d->job);
	ui_job_finish(d->job, &d->dlg, &out);
	d->job = NULL;
	ui_act_report(&d->dlg, d->ws, &d->m, &d->undo, &out);
	/* Not for an action the operator cancelled: they know why. */
	if (!cancelled)
		notice(d);
	/* Files were written through the core; session requests are not
	 * watched. */
	ui_source_update(d->src, &d->m, AC_WATCH_SESSIONS | AC_WATCH_OPERATIONS);
	d->dirty = true;
}

bool ui_dash_job_cancel(ui_dash *d)
{
	return d->job && ui_job_cancel(d->job);
}

void ui_dash_job_wait(ui_dash *d)
{
	if (!d->job)
		return;
	ui_job_cancel(d->job);
	ui_dash_job_finished(d);
}
