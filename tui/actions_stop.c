/* Stopping an agent that ignores a pause: the process agentctl knows for
 * a session (one it started, pauseSignal's target), signalled after a
 * confirmation that names its pid and command line. */
#include "actions_impl.h"

#include "ac_control.h"
#include "ac_error.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

enum { CMDLINE_SHOWN = 200 };

void ui_act_offer_stop(ui_dialog *d, const ac_workspace *ws, ui_model *m, const char *id)
{
	ac_agent_process agent;
	ac_request req;

	/* Only an agent that has not honoured the pause asked of it. */
	if (ac_request_read(&req, ws->sessions_dir, id) != 0 || req.kind != AC_REQUEST_PAUSE ||
	    req.state != AC_REQUEST_PENDING || ac_process_find(&agent, ws->sessions_dir, id) != 0)
		return;
	d->stop_pid = agent.pid;
	ui_model_dialog_line(m, "or: S stops its agent, pid %ld, with SIGSTOP; T ends it with "
			     "SIGTERM (each asks first)", (long)agent.pid);
}

void ui_act_plan_stop(ui_dialog *d, const ac_workspace *ws, ui_model *m, int sig)
{
	char *id = d->kind == UI_DLG_STATUS && d->stop_pid && d->target ? strdup(d->target) : NULL;
	ac_buf cmdline = AC_BUF_INIT;
	ac_agent_process agent;

	ui_dialog_close(d, m);
	if (!id) {
		ui_model_set_action(m, true, "S and T stop an agent agentctl knows, from the "
				    "dialog of p on a session whose pause it ignores");
		return;
	}
	if (ac_process_find(&agent, ws->sessions_dir, id) != 0 ||
	    ac_process_cmdline(&cmdline, &agent, CMDLINE_SHOWN) != 0) {
		ui_model_set_action(m, true, "stop %s: %s", id, ac_error_last());
		goto done;
	}
	d->kind = UI_DLG_STOP;
	d->target = id;
	d->stop_pid = agent.pid;
	d->stop_signal = sig;
	id = NULL;
	ui_model_dialog_title(m, "Send %s to pid %ld, the agent of %s?",
			      sig == SIGSTOP ? "SIGSTOP" : "SIGTERM", (long)agent.pid, d->target);
	ui_model_dialog_line(m, "command line: %s", cmdline.len ? cmdline.data : "(none)");
	ui_model_dialog_line(m, "%s", sig == SIGSTOP
		? "it stops where it is (r on the session continues it with SIGCONT)"
		: "it is asked to end; whatever it has not saved is lost");
	ui_model_dialog_line(m, "(its process group too; the session file and pause request "
			     "stay as they are)");
done:
	free(id);
	ac_buf_free(&cmdline);
}

void ui_act_run_stop(const ui_dialog *d, const ac_workspace *ws, ui_act_outcome *o)
{
	const char *name = d->stop_signal == SIGSTOP ? "SIGSTOP" : "SIGTERM";
	ac_agent_process agent;

	/* The record names the process by pid and start time: one that
	 * ended meanwhile, its pid reused, is not signalled. */
	if (ac_process_find(&agent, ws->sessions_dir, d->target) != 0 || agent.pid != d->stop_pid)
		ui_act_say(o, true, "%s not sent: pid %ld is no longer the agent of %s", name,
			   (long)d->stop_pid, d->target);
	else if (ac_process_signal(&agent, d->stop_signal) != 0)
		ui_act_say(o, true, "%s not sent: %s", name, ac_error_last());
	else
		ui_act_say(o, false, "sent %s to pid %ld, the agent of %s", name, (long)agent.pid,
			   d->target);
}
