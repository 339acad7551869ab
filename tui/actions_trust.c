/* Trusting the project file from the dashboard: C shows what trusting it
 * would change, as a diff of the file since it was last trusted here
 * (ac_config_trust_review()), and y trusts exactly the bytes shown, as
 * `agentctl config trust --sha256` does. The file's text is the agents':
 * every line goes through the model's sanitiser (ui_model_dialog_line()). */
#include "actions_impl.h"

#include "ac_error.h"

#include <stdlib.h>
#include <string.h>

enum { CONTEXT = 3 };

void ui_act_plan_trust(ui_dialog *d, const ac_workspace *ws, ui_model *m)
{
	const ac_config *c = ws->config;
	const char *file = c ? ac_config_project_file(c) : NULL;
	const char *sha = c ? ac_config_project_sha256(c) : NULL;
	ac_config_trust_diff r;

	ui_dialog_close(d, m);
	if (!file || !sha) {
		ui_model_set_action(m, true, "trust: no project config (.agent/config.json or "
				    ".agentrc.json) in %s", ws->root);
		return;
	}
	if (ac_config_project_trusted(c)) {
		ui_model_set_action(m, false, "trust: %s is trusted already (sha256 %.12s)", file, sha);
		return;
	}
	if (ac_config_trust_review(&r, c, CONTEXT) != 0) {
		ui_model_set_action(m, true, "trust: %s", ac_error_last());
		goto done;
	}
	d->kind = UI_DLG_TRUST;
	d->target = strdup(sha);
	ui_model_dialog_title(m, "Trust %s for this workspace?", file);
	ui_model_dialog_line(m, "its commands (resumeCommand, hooks, summarizer, ...) run once it is "
			     "trusted, until its content changes; sha256 now %.16s", sha);
	if (!r.trusted_sha256[0])
		ui_model_dialog_line(m, "never trusted for this workspace: every line is shown as new");
	else if (!r.have_copy)
		ui_model_dialog_line(m, "last trusted %s (sha256 %.16s); no copy of that content was "
				     "kept (trusted before copies were): every line is shown as new",
				     r.trusted_at, r.trusted_sha256);
	else
		ui_model_dialog_line(m, "changed since it was last trusted, %s (sha256 %.16s):",
				     r.trusted_at, r.trusted_sha256);
	ui_model_dialog_line(m, "%zu line%s added (+), %zu removed (-):", r.added,
			     r.added == 1 ? "" : "s", r.removed);
	for (const char *t = r.diff.data; t && *t;) {
		const char *nl = strchr(t, '\n');
		size_t len = nl ? (size_t)(nl - t) : strlen(t);

		ui_act_dialog_text(m, t, len);
		t += len + (nl != NULL);
	}
	ui_model_dialog_keys(m, "y: trust this content   n or Esc: cancel (nothing trusted)");
done:
	ac_config_trust_diff_free(&r);
}

void ui_act_run_trust(const ui_dialog *d, const ac_workspace *ws, ui_act_outcome *o)
{
	ac_config *fresh = NULL;

	/* The file as it is now, trusted only if it is still what was shown. */
	if (ac_config_load(&fresh, ws->root) != 0 || ac_config_trust_reviewed(fresh, d->target) != 0)
		ui_act_say(o, true, "trust: %s", ac_error_last());
	else
		ui_act_say(o, false, "trusted %s (sha256 %.12s) for %s; the configuration is read "
			   "again", ac_config_project_file(fresh), d->target, ws->root);
	ac_config_free(fresh);
}
