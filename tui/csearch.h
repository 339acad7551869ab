/* The Sessions pane's "/" filter also looks inside conversations: while
 * its text stays the same (at least UI_CSEARCH_MIN bytes), every listed
 * session's file is searched (ac_session_search.h: the raw prefilter, then
 * the messages), newest first, a slice of files per loop turn so that
 * keys stay answered; each session whose conversation holds the text gets
 * its first matching message and a snippet in model.conv_search. A new
 * text starts over. Afterwards a session the watcher saw change (one row
 * of the model replaced) is searched again alone; a new listing of the
 * whole folder starts the search over. The coding agents' transcript
 * rows are searched in their files by their source's provider
 * (ac_source_search.h). A session the workspace's store keeps as rows (a
 * database) is read through the store when its slice comes, a few at a
 * time. No curses here. */
#ifndef UI_CSEARCH_H
#define UI_CSEARCH_H

#include "model.h"

#include "ac_workspace.h"

#include <stdbool.h>

#define UI_CSEARCH_MIN 2

typedef struct ui_csearch_engine ui_csearch_engine;

/* Keeps the search in step with filter (the Sessions pane's text; "" or
 * NULL: none): a changed text starts over on m's listed sessions in ws's
 * session folder or store (ws borrowed until ui_csearch_free()). True when
 * the model changed. */
bool ui_csearch_sync(ui_csearch_engine **io, ui_model *m, const ac_workspace *ws,
		     const char *filter);

/* Searches files for about budget_ms (one slice at least) while the
 * search runs; true when the model changed. */
bool ui_csearch_step(ui_csearch_engine *e, ui_model *m, int budget_ms);

void ui_csearch_free(ui_csearch_engine *e);

#endif
