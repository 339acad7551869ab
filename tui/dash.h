/* The dashboard's state, shared by its loop (dashboard.c), the key table
 * (keys.c) and the operator's actions (actions.c): the model and its
 * source, each pane's cursor and filter, which pane is shown, the open
 * dialog, the themes. The state changes that several keys share (showing
 * a pane, opening a conversation or one of its tabs) are here too. No
 * curses here. */
#ifndef UI_DASH_H
#define UI_DASH_H

#include "actions.h"
#include "job.h"
#include "model.h"
#include "overlay.h"
#include "source.h"
#include "theme.h"
#include "undo.h"
#include "view.h"

#include "ac_backend.h"
#include "ac_config.h"
#include "ac_watch.h"
#include "ac_workspace.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#define UI_MAX_THEMES 32

typedef struct ui_dash {
	const ac_workspace *ws;  /* borrowed */
	ui_model m;
	ui_source *src;
	ac_watch *watch;         /* NULL: nothing is watched (tests) */
	struct ac_store_watch *store_watch; /* a database store's changes, or NULL */
	const ac_config *config; /* borrowed; NULL in tests: the files */
	ui_theme theme;
	char *themes[UI_MAX_THEMES];
	size_t n_themes;
	char user_dir[PATH_MAX]; /* theme folders: find_theme_dirs() in dashboard.c */
	char share_dir[PATH_MAX];
	char build_dir[PATH_MAX];
	const char *dirs[5];     /* where theme files are looked for */
	ui_pane panes[UI_PANE_COUNT];
	ui_pane strip;           /* the journal strip under the other panes */
	ui_pane_id pane;         /* UI_PANE_SESSIONS..UI_PANE_JOURNAL */
	ui_overlays open;        /* what is open over the list panes (overlays.h) */
	ui_tab tab;              /* the conversation's tab */
	char traced[2 * AC_BACKEND_ID_MAX + 2]; /* "tenant/session" the watcher follows, or "" */
	ui_dialog dlg;
	ui_job *job;             /* the confirmed action running, or NULL */
	ui_undo undo;            /* what z undoes: the last action confirmed here */
	bool dirty, quit;
	bool follow_sel;         /* f: Operations and Journal follow the selected session */
	bool ops_all;            /* A: Operations lists every session's, not the selected one's */
	char search_text[256];
	struct ui_jsearch_engine *js; /* the whole-journal search, or NULL */
	int64_t redraw_at;       /* when an age on screen changes (0: never) */
	struct ui_usage_meter *meter; /* the usage total and budget, or NULL */
	int64_t transcripts_at;  /* when the transcripts' states are derived next */
	int64_t transcripts_refresh_at; /* when their files are read at the latest */
	char attention_at[256];  /* the session ! selected last (raw id), or "" */
} ui_dash;

/* Resets d to a dashboard on ws (borrowed) showing Sessions, before its
 * model is filled. */
void ui_dash_init(ui_dash *d, const ac_workspace *ws, bool read_only);

/* The dashboard's overlays (overlays.c), pushed on d->open by what
 * opens them; Esc steps the top one back. */
extern const ui_overlay ui_overlay_conversation, ui_overlay_doc, ui_overlay_patch,
	ui_overlay_viewer, ui_overlay_help, ui_overlay_log, ui_overlay_filter, ui_overlay_search;

/* The filter line's own keys (keys.c's table): Enter keeps the filter,
 * Esc clears it, Backspace erases a character. True: always redrawn. */
bool ui_filter_line_key(ui_dash *d, int key);

/* Whether o is open on d. */
bool ui_dash_is_open(const ui_dash *d, const ui_overlay *o);

/* The pane a conversation's tab shows. */
ui_pane_id ui_dash_tab_pane(ui_tab tab);

/* The pane on screen: the topmost overlay's (the log, help, the viewer,
 * an operation's patch, the conversation's document or tab), or the list
 * pane. */
ui_pane_id ui_dash_shown(const ui_dash *d);

/* The pane keys go to: the dialog when one is open, else the one shown. */
ui_pane_id ui_dash_current(const ui_dash *d);

/* Rows a page key moves in the current pane. */
int ui_dash_page_rows(const ui_dash *d);

/* Reads what the Operations rows drawn last need from git (ui_ops_fill()):
 * only those rows, once each, after the frame that shows them, so the
 * first screen of a long log is not held up. True when a row changed
 * (draw again). */
bool ui_dash_fill_ops(ui_dash *d);

/* Shows list pane (closing help and the conversation); the checkpoints
 * pane loads the selected session's checkpoints. */
void ui_dash_switch_pane(ui_dash *d, ui_pane_id pane);

/* Opens session id's conversation on its Messages tab. */
void ui_dash_open_conversation(ui_dash *d, const char *id);

void ui_dash_close_conversation(ui_dash *d);

/* Shows tab of the open conversation, reading what it lists (a document
 * open in another tab is closed). */
void ui_dash_open_tab(ui_dash *d, ui_tab tab);

/* The session file of the open conversation changed and was read again. */
void ui_dash_conversation_reloaded(ui_dash *d);

/* The session the operator means: the conversation's, the checkpoints',
 * or the one selected in Sessions, as its raw id (ui_session.raw_id;
 * borrowed from the model). NULL, with a status line saying so, when
 * there is none. */
const char *ui_dash_target_session(ui_dash *d);

/* Loads the next theme file (the status line says which, or why not). */
void ui_dash_next_theme(ui_dash *d);

/* y: runs the dialog's action off the loop (job.h); the dialog closes
 * and the status line shows it running (dash_job.c). */
void ui_dash_confirm(ui_dash *d);

/* The running action finished: its outcome on the status line (a changed
 * plan in a new dialog), the sessions read again. */
void ui_dash_job_finished(ui_dash *d);

/* Esc while an action runs: true when it was asked to stop. */
bool ui_dash_job_cancel(ui_dash *d);

/* Before leaving: cancels what can be cancelled and waits for the rest. */
void ui_dash_job_wait(ui_dash *d);

/* Frees what d owns (not d). */
void ui_dash_free(ui_dash *d);

#endif
