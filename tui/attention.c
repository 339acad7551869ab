/* !: the sessions waiting for the operator, one after the other. */
#include "attention.h"

#include "ac_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Makes row i shown in p: its filters cleared, its folded parents
 * unfolded. True when something the operator set was undone. */
static bool reveal(ui_dash *d, ui_pane *p, size_t i)
{
	bool cleared = false;

	if (!ui_view_sessions.match(&d->m, i, p)) {
		p->filter[0] = '\0';
		p->status_filter = -1;
		p->state_filter = 0;
		p->host[0] = '\0';
		cleared = true;
	}
	for (size_t at = ui_model_tree_parent(&d->m, i); at != SIZE_MAX;
	     at = ui_model_tree_parent(&d->m, at))
		if (ui_model_tree_closed(&d->m, d->m.sessions[at].raw_id) &&
		    ui_model_tree_set(&d->m, d->m.sessions[at].raw_id, false) == 0)
			cleared = true;
	return cleared;
}

bool ui_attention_next(ui_dash *d, int key)
{
	ui_pane *p = &d->panes[UI_PANE_SESSIONS];
	size_t *idx = malloc((d->m.n_sessions ? d->m.n_sessions : 1) * sizeof(*idx)), n, k = 0;
	const ui_session *s;
	char age[16];
	bool cleared;

	(void)key;
	if (!idx)
		return false;
	n = ui_model_waiting(&d->m, idx);
	if (!n) {
		free(idx);
		ui_model_set_action(&d->m, false, "no session waits for you");
		return true;
	}
	/* Still on the one ! selected: the next one; else the longest. */
	for (size_t j = 0; j < n && ui_dash_shown(d) == UI_PANE_SESSIONS; j++)
		if (!strcmp(d->m.sessions[idx[j]].raw_id, p->sel) &&
		    !strcmp(p->sel, d->attention_at))
			k = (j + 1) % n;
	s = &d->m.sessions[idx[k]];
	ui_dash_switch_pane(d, UI_PANE_SESSIONS);
	cleared = reveal(d, p, idx[k]);
	snprintf(p->sel, sizeof(p->sel), "%s", s->raw_id);
	snprintf(d->attention_at, sizeof(d->attention_at), "%s", s->raw_id);
	p->follow = false;
	ui_fmt_age(age, sizeof(age), *s->updated ? s->updated : s->created, ac_time_now_ms());
	ui_model_set_action(&d->m, false, "waiting %zu/%zu%s: %s %s for %s (! next)", k + 1, n,
			    cleared ? " (filter cleared to show it)" : "",
			    ui_session_attention_name(s), s->waiting_for && *s->waiting_for ?
			    s->waiting_for : "waiting", age);
	free(idx);
	return true;
}
