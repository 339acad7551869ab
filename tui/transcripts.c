/* The coding agents' sessions' keys (tui/transcripts.h). A transcript is
 * read-only: the one thing done with it is handing it back to its own
 * tool, as a command from the operator's trusted configuration, with the
 * id as a whole argument and in AGENT_SESSION_ID. */
#include "transcripts.h"

#include "screen.h"

#include "ac_error.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const ac_session_state cycle[] = {AC_STATE_WAITING, AC_STATE_RUNNING, AC_STATE_IDLE,
					 AC_STATE_ENDED};

bool ui_transcripts_state_filter(ui_dash *d, int key)
{
	ui_pane *p = &d->panes[UI_PANE_SESSIONS];
	size_t n = sizeof(cycle) / sizeof(cycle[0]), at = n;

	(void)key;
	for (size_t i = 0; i < n; i++)
		if ((int)cycle[i] + 1 == p->state_filter)
			at = i;
	p->state_filter = at + 1 < n ? (int)cycle[at + 1] + 1 : at == n ? (int)cycle[0] + 1 : 0;
	p->cursor = p->top = 0;
	ui_model_set_action(&d->m, false, p->state_filter == 0 ? "showing every state" :
			    "showing only %s sessions (w: next, Esc: all)",
			    ac_session_state_name((ac_session_state)(p->state_filter - 1)));
	return true;
}

bool ui_transcripts_refuse_write(ui_dash *d, const char *id)
{
	const ac_source_session *s = ui_source_transcript(d->src, id);

	if (!s)
		return false;
	ui_model_set_action(&d->m, true, "%s is a %s session, a read-only source: agentctl never "
			    "writes to it (a resumes it with its tool)", id, ac_source_name(s->kind));
	return true;
}

/* Where the agent worked, if that folder is still there and, resolved,
 * inside the workspace; else the workspace. The cwd is the transcript's
 * text: "<ws>/../elsewhere" or a link in the workspace passes the
 * listing's prefix test but would start the tool (and the project
 * settings it reads there) outside. into holds the resolved folder. */
static const char *run_folder(char into[PATH_MAX], const ac_source_session *s, const char *root)
{
	char resolved_root[PATH_MAX];
	struct stat st;

	if (s->cwd && realpath(s->cwd, into) && realpath(root, resolved_root) &&
	    ac_source_path_inside(into, resolved_root) && stat(into, &st) == 0 &&
	    S_ISDIR(st.st_mode))
		return into;
	return root;
}

bool ui_transcripts_resume(ui_dash *d, int key)
{
	const char *target = ui_dash_target_session(d);
	const ac_source_session *s = target ? ui_source_transcript(d->src, target) : NULL;
	ac_source_resume *resume = NULL;
	char folder[PATH_MAX];
	int status = 0, rc;

	(void)key;
	if (!s) {
		ui_model_set_action(&d->m, true, "a: select a coding agent's session (Claude Code, "
				    "Codex, Gemini); r resumes agentctl's own");
		return true;
	}
	if (!d->config) {
		ui_model_set_action(&d->m, true, "a: no configuration to take the resume command from");
		return true;
	}
	if (s->relation == AC_SOURCE_SUBAGENT) {
		/* Its tool resumes the session, never one of its workers. */
		ui_model_set_action(&d->m, true, "a: a sub-agent cannot be resumed on its own; "
				    "resume its session (select it: - on this row)");
		return true;
	}
	/* The command keeps its own copy of the id: the index may read
	 * again while the tool runs. */
	if (ac_source_resume_new(&resume, d->config, s->kind, s->id) != 0) {
		ui_model_set_action(&d->m, true, "a: %s", ac_error_last());
		return true;
	}
	screen_suspend();
	rc = ac_source_resume_run(&status, resume, run_folder(folder, s, d->ws->root));
	screen_resume();
	if (rc)
		ui_model_set_action(&d->m, true, "a: %s", ac_error_last());
	else
		ui_model_set_action(&d->m, status != 0, "%s exited with status %d",
				    ac_source_resume_program(resume), status);
	ac_source_resume_free(resume);
	return true;
}
