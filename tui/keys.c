/* The key table: every binding of the dashboard, as data. */
#include "screen.h"
#include "view.h"

static const ui_binding bindings[] = {
	{'1', UI_ACT_PANE_SESSIONS, "1", "Sessions pane"},
	{'2', UI_ACT_PANE_OPS, "2", "Operations pane"},
	{'3', UI_ACT_PANE_CKPTS, "3", "Checkpoints pane (of the selected session)"},
	{'4', UI_ACT_PANE_JOURNAL, "4", "Journal pane (live tail)"},
	{UI_KEY_TAB, UI_ACT_NEXT_PANE, "Tab", "next pane"},
	{UI_KEY_BTAB, UI_ACT_PREV_PANE, "S-Tab", "previous pane"},
	{UI_KEY_ENTER, UI_ACT_OPEN, "Enter", "open the selected session's conversation; in its "
	 "Memory or Artifacts tab, the selected document in full"},
	{UI_KEY_ESC, UI_ACT_BACK, "Esc", "back (document -> its tab -> Sessions); clear the filter; "
	 "cancel a dialog"},
	{']', UI_ACT_NEXT_TAB, "] Right", "conversation: next tab (Messages, Memory, Artifacts, Trace)"},
	{UI_KEY_RIGHT, UI_ACT_NEXT_TAB, NULL, NULL},
	{'[', UI_ACT_PREV_TAB, "[ Left", "conversation: previous tab"},
	{UI_KEY_LEFT, UI_ACT_PREV_TAB, NULL, NULL},
	{'j', UI_ACT_DOWN, "j Down", "move down"},
	{UI_KEY_DOWN, UI_ACT_DOWN, NULL, NULL},
	{'k', UI_ACT_UP, "k Up", "move up"},
	{UI_KEY_UP, UI_ACT_UP, NULL, NULL},
	{'g', UI_ACT_TOP, "g Home", "top"},
	{UI_KEY_HOME, UI_ACT_TOP, NULL, NULL},
	{'G', UI_ACT_BOTTOM, "G End", "bottom (the journal then follows new events)"},
	{UI_KEY_END, UI_ACT_BOTTOM, NULL, NULL},
	{UI_KEY_PGUP, UI_ACT_PGUP, "PgUp", "page up"},
	{UI_KEY_PGDN, UI_ACT_PGDN, "PgDn", "page down"},
	{'/', UI_ACT_FILTER, "/", "filter this pane (substring; case-sensitive only with capitals)"},
	{'s', UI_ACT_STATUS_FILTER, "s", "sessions: show only running, paused, completed, failed, all"},
	{'p', UI_ACT_PAUSE, "p", "pause the selected session (asks first)"},
	{'r', UI_ACT_RESUME, "r", "resume the selected session (asks first; starts resumeCommand)"},
	{'c', UI_ACT_COMPACT, "c", "compact the selected session (asks first)"},
	{'R', UI_ACT_ROLLBACK, "R", "roll back to the selected operation or checkpoint (asks first)"},
	{'y', UI_ACT_YES, "y", "confirm a dialog"},
	{'n', UI_ACT_NO, "n", "cancel a dialog"},
	{'t', UI_ACT_THEME, "t", "next theme"},
	{'?', UI_ACT_HELP, "?", "this help"},
	{UI_KEY_CTRL_L, UI_ACT_REDRAW, "C-l", "redraw the screen"},
	{'q', UI_ACT_QUIT, "q", "quit"},
};

const ui_binding *ui_bindings(size_t *out_n)
{
	*out_n = sizeof(bindings) / sizeof(bindings[0]);
	return bindings;
}

ui_action ui_action_for_key(int key)
{
	for (size_t i = 0; i < sizeof(bindings) / sizeof(bindings[0]); i++)
		if (bindings[i].key == key)
			return bindings[i].action;
	return UI_ACT_NONE;
}
