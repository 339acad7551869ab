/* The search over the whole journal (the journal pane's S): a query of the
 * query engine's terms (ac_query.h: any dotted field, text~, since=...)
 * run backward from the end of JOURNAL.jsonl through its rotated files, a
 * window of whole lines at a time (ac_journal_scan_range), so the
 * dashboard's loop stays responsive: it calls ui_jsearch_step() between
 * polls while the search runs. A search stops once it has found what the
 * pane wants to show (n past the last match wants more) or every file was
 * read; Esc stops it. Matches go to model.search, newest first. No curses
 * here. */
#ifndef UI_JSEARCH_H
#define UI_JSEARCH_H

#include "model.h"

#include "ac_workspace.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct ui_jsearch_engine ui_jsearch_engine;

/* Bytes of journal read per window. */
#define UI_JSEARCH_WINDOW (4u << 20)

/* Matches a search finds before it pauses, at first and per "more". */
#define UI_JSEARCH_BATCH 500

/* Starts a search for text (terms separated by spaces; "..." quotes one
 * with spaces) over ws's journal files, replacing *io's (closed first).
 * A bad term or unreadable folder is set as m->search.error. 0 or a
 * negative AC_E* code. */
int ui_jsearch_start(ui_jsearch_engine **io, ui_model *m, const ac_workspace *ws,
		     const char *text);

/* Scans windows for up to budget_ms (at least one window); true when the
 * model changed. Does nothing unless m->search.running. */
bool ui_jsearch_step(ui_jsearch_engine *e, ui_model *m, int budget_ms);

/* Asks for at least n matches in all: a stopped, incomplete search runs
 * again. */
void ui_jsearch_want(ui_jsearch_engine *e, ui_model *m, size_t n);

/* Stops scanning (the matches found stay). */
void ui_jsearch_stop(ui_jsearch_engine *e, ui_model *m);

/* Closes the search: the model's matches are freed, *io too. */
void ui_jsearch_close(ui_jsearch_engine **io, ui_model *m);

#endif
