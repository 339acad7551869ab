/* '-' and '+' in the Sessions pane: a session's sub-agents and forks
 * folded under it or shown (tui/tree.h). What is folded lives in the
 * model (ui_model_tree_set), so it survives every read of the rows. */
#include "tree.h"

#include "screen.h"

#include <stdint.h>
#include <stdio.h>

bool ui_tree_fold(ui_dash *d, int key)
{
	ui_pane *p = &d->panes[UI_PANE_SESSIONS];
	bool fold = key == '-' || key == UI_KEY_LEFT;
	const ui_session *s;
	size_t i, parent;

	if (!ui_list_selected(&ui_view_sessions, &d->m, p, &i))
		return false;
	s = &d->m.sessions[i];
	if (fold && (!s->children || ui_model_tree_closed(&d->m, s->raw_id)) &&
	    (parent = ui_model_tree_parent(&d->m, i)) != SIZE_MAX) {
		/* On a child (with no children shown): its parent folds, and
		 * the cursor goes with it; so '-' repeated climbs the tree. */
		i = parent;
		s = &d->m.sessions[i];
		snprintf(p->sel, sizeof(p->sel), "%s", s->raw_id);
	}
	if (!s->children) {
		ui_model_set_action(&d->m, false, "%s: no sub-agents or forks to %s", s->id,
				    fold ? "fold" : "show");
		return true;
	}
	if (fold == ui_model_tree_closed(&d->m, s->raw_id))
		return false;
	if (ui_model_tree_set(&d->m, s->raw_id, fold) != 0) {
		ui_model_set_action(&d->m, true, "out of memory");
		return true;
	}
	return true;
}
