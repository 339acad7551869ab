/* Which view draws each pane, and the panes' names as help writes them. */
#include "view.h"

const ui_view *const ui_pane_views[UI_PANE_COUNT] = {
	[UI_PANE_SESSIONS] = &ui_view_sessions, [UI_PANE_OPS] = &ui_view_operations,
	[UI_PANE_CKPTS] = &ui_view_checkpoints, [UI_PANE_JOURNAL] = &ui_view_journal,
	[UI_PANE_CONV] = &ui_view_conversation, [UI_PANE_MEMO] = &ui_view_memos,
	[UI_PANE_ARTIFACTS] = &ui_view_artifacts, [UI_PANE_TRACE] = &ui_view_trace,
	[UI_PANE_DOC] = &ui_view_document, [UI_PANE_HELP] = &ui_view_help,
	[UI_PANE_JSEARCH] = &ui_view_jsearch, [UI_PANE_VIEWER] = &ui_view_viewer,
	[UI_PANE_PATCH] = &ui_view_patch,
	[UI_PANE_LOG] = &ui_view_log,
	[UI_PANE_DIALOG] = NULL,
};

const char *ui_pane_name(ui_pane_id pane)
{
	static const char *const names[UI_PANE_COUNT] = {
		[UI_PANE_SESSIONS] = "Sessions", [UI_PANE_OPS] = "Operations",
		[UI_PANE_CKPTS] = "Checkpoints", [UI_PANE_JOURNAL] = "Journal",
		[UI_PANE_CONV] = "Messages", [UI_PANE_MEMO] = "Memory",
		[UI_PANE_ARTIFACTS] = "Artifacts", [UI_PANE_TRACE] = "Trace",
		[UI_PANE_DOC] = "a document", [UI_PANE_HELP] = "Help",
		[UI_PANE_JSEARCH] = "Journal search", [UI_PANE_VIEWER] = "a text in full",
		[UI_PANE_PATCH] = "an operation's patch",
		[UI_PANE_LOG] = "the message log",
		[UI_PANE_DIALOG] = "a dialog",
		[UI_PANE_FILTER_LINE] = "the filter line (/)",
		[UI_PANE_SEARCH_LINE] = "the search line (S)",
	};

	return (unsigned)pane < UI_PANE_COUNT ? names[pane] : "?";
}
