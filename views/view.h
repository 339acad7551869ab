/* Panes: each is a ui_view, a struct of function pointers (htop's Panel,
 * ncdu's draw()/key()) that draws from the model snapshot only, through
 * screen.h. List panes share views/list.c and provide their row format,
 * which is plain text of an exact display width: that is what the unit
 * tests check, without a terminal.
 *
 * A view includes only this header, the model, the terminal's headers
 * (screen.h, ui_text.h, theme.h) and the core's pure utilities (ac_buf.h,
 * ac_text.h): never an action, a key, the dashboard or a store
 * (tests/layering.sh checks it).
 *
 * ui_pane is the per-pane UI state (cursor, scroll, filter): not part of
 * the model, changed by keys and clamped while drawing. */
#ifndef UI_VIEW_H
#define UI_VIEW_H

#include "ac_buf.h"
#include "model.h"
#include "theme.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The moves a pane's key() handles; every other key is the key table's
 * (tui/keys.c), which views never see. */
typedef enum {
	UI_ACT_NONE,
	UI_ACT_UP,
	UI_ACT_DOWN,
	UI_ACT_TOP,
	UI_ACT_BOTTOM,
	UI_ACT_PGUP,
	UI_ACT_PGDN,
} ui_action;

/* The panes, the dialog that stands in front of them and the lines
 * typed at the bottom: where a key applies is a mask of UI_IN(pane). UI_PANE_CONV..UI_PANE_TRACE are the
 * conversation's tabs, UI_PANE_DOC a document opened from one,
 * UI_PANE_PATCH an operation's patch opened from Operations. */
typedef enum {
	UI_PANE_SESSIONS,
	UI_PANE_OPS,
	UI_PANE_CKPTS,
	UI_PANE_JOURNAL,
	UI_PANE_CONV,
	UI_PANE_MEMO,
	UI_PANE_ARTIFACTS,
	UI_PANE_TRACE,
	UI_PANE_DOC,
	UI_PANE_JSEARCH,     /* the journal pane while a whole-journal search is open */
	UI_PANE_VIEWER,      /* an event or a checkpoint preview in full */
	UI_PANE_PATCH,
	UI_PANE_HELP,
	UI_PANE_LOG,        /* the message log (views/log.c) */
	UI_PANE_DIALOG,
	UI_PANE_FILTER_LINE, /* a filter being typed (/): keys edit it, none is a command */
	UI_PANE_SEARCH_LINE, /* the journal search's query being typed (S) */
	UI_PANE_COUNT
} ui_pane_id;

#define UI_IN(pane) (1u << (pane))
#define UI_IN_LISTS (UI_IN(UI_PANE_SESSIONS) | UI_IN(UI_PANE_OPS) | UI_IN(UI_PANE_CKPTS) | \
		     UI_IN(UI_PANE_JOURNAL) | UI_IN(UI_PANE_JSEARCH))
#define UI_IN_CONVERSATION (UI_IN(UI_PANE_CONV) | UI_IN(UI_PANE_MEMO) | \
			    UI_IN(UI_PANE_ARTIFACTS) | UI_IN(UI_PANE_TRACE) | UI_IN(UI_PANE_DOC))
/* Every pane, not the dialog. */
#define UI_IN_PANES (UI_IN_LISTS | UI_IN_CONVERSATION | UI_IN(UI_PANE_PATCH) | UI_IN(UI_PANE_HELP) | \
		     UI_IN(UI_PANE_VIEWER) | UI_IN(UI_PANE_LOG))

#define UI_CONV_MARKS 64

typedef struct {
	size_t cursor, top;  /* cursor and first drawn row, in visible rows */
	char filter[1024];   /* "/" filter; "" for none (a pasted path or id fits) */
	/* The selected item's key, kept across updates: whole, or the item
	 * could never be selected again (a session's raw id is up to 228
	 * bytes, AC_SESSION_ID_MAX). */
	char sel[256];
	bool follow;         /* keep the cursor on the last row as rows arrive */
	int status_filter;   /* -1: all; else a ui_status */
	char host[128];      /* only rows last written by this host (h); "" all */
	int list_y, list_rows; /* where rows were drawn last (mouse clicks) */
	/* Only rows of this session (f: follow the selection); "" all. Its
	 * display form, which may be four times the id's bytes. */
	char session[1024];
	int sort;            /* the list's order (Sessions: a ui_session_sort) */
	int state_filter;    /* 0: all; else 1 + an ac_session_state (Sessions: w), so
			      * that a zeroed pane shows every state */
	/* Conversation: scroll to this message (1-based) at the next draw,
	 * once its width is known; 0: none. */
	size_t goto_message;
	/* Conversation: its wrapped rows (no filter) counted for width up to
	 * line `lines` of model generation gen (ui_model.conv_gen), so a frame
	 * after an append wraps only the lines added. */
	struct {
		uint64_t gen;
		int width;
		size_t lines, rows;
		/* Where the last UI_CONV_MARKS messages counted start (their
		 * first line, the row before it): a frame at the end draws
		 * from there, not from the first message. */
		struct {
			size_t line, row;
		} marks[UI_CONV_MARKS];
		size_t n_marks; /* ever recorded; the ring holds the last ones */
	} conv_count;
} ui_pane;

/* The orders of the Sessions pane (o cycles them); 0: the model's order,
 * not named in the title. */
typedef enum { UI_SORT_NONE, UI_SORT_UPDATED, UI_SORT_STATUS, UI_SORT_TOKENS, UI_SORT_STATE,
	       UI_SORT_COUNT } ui_session_sort;

typedef struct {
	int y, x, h, w;
} ui_rect;

typedef struct ui_view ui_view;

struct ui_view {
	const char *name;
	/* Draws the pane into r; records where its rows went in p. */
	void (*draw)(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
		     int64_t now_ms);
	/* Moves within the pane; true when something changed. page: rows shown. */
	bool (*key)(const ui_view *v, const ui_model *m, ui_pane *p, ui_action a, int page);

	/* List panes only (NULL otherwise). */
	size_t (*count)(const ui_model *m);
	const char *(*item_key)(const ui_model *m, size_t i);
	bool (*match)(const ui_model *m, size_t i, const ui_pane *p);
	void (*header)(ac_buf *out, const ui_model *m, int width);
	/* Appends item i as a row of exactly width columns; *accent_x and
	 * *accent_w (columns) receive the part drawn in the returned style
	 * (the status symbol and name). */
	ui_style (*row)(ac_buf *out, const ui_model *m, size_t i, int width, int64_t now_ms,
			int *accent_x, int *accent_w);
	const char *empty; /* what an empty list says */
	/* The same when it depends on the model (NULL: empty). */
	void (*empty_text)(ac_buf *out, const ui_model *m);
	/* Puts the visible items idx[0..n) in the pane's order (p->sort);
	 * NULL: model order. */
	void (*order)(const ui_model *m, const ui_pane *p, size_t *idx, size_t n);
	/* Does ui_list_visible's work (kept from the last call where it can
	 * be); NULL: match then order each item. */
	size_t (*visible)(const ui_model *m, const ui_pane *p, size_t *idx);
	/* The newest item is the first row: following new items keeps the
	 * cursor there (g), not on the last row (G). */
	bool newest_first;
};

/* The view that draws each pane (NULL for the dialog), and the pane's
 * name as help writes it (views/panes.c). */
extern const ui_view *const ui_pane_views[UI_PANE_COUNT];
const char *ui_pane_name(ui_pane_id pane);

extern const ui_view ui_view_sessions, ui_view_operations, ui_view_checkpoints,
	ui_view_journal, ui_view_conversation, ui_view_help, ui_view_log;

/* The whole-journal search's matches (views/journal.c) and a text open in
 * full (views/viewer.c). */
extern const ui_view ui_view_jsearch, ui_view_viewer;

/* What "sorted by ..." says for a ui_session_sort. */
const char *ui_session_sort_name(int sort);

/* The selected session's detail beside the Sessions list on a wide
 * terminal: status, task, tokens, then its last messages when the model's
 * conversation is that session's (views/session_detail.c). */
void ui_session_detail_draw(const ui_model *m, const ui_pane *sessions, ui_rect r);

/* The attention strip (views/attention.c): the sessions waiting for the
 * operator, longest waiting first, as one line (empty when none waits);
 * drawn at row y, cut to cols. Returns the rows drawn: 1, or 0 when no
 * session waits. */
void ui_attention_line(ac_buf *out, const ui_model *m, int64_t now_ms);
int ui_attention_draw(const ui_model *m, int y, int cols, int64_t now_ms);

/* The conversation's other tabs (views/store.c) and a memo document or
 * artifact open in full (views/conversation.c). */
extern const ui_view ui_view_memos, ui_view_artifacts, ui_view_trace, ui_view_document;

/* An operation's patch, scrollable, coloured by line kind (views/patch.c). */
extern const ui_view ui_view_patch;

/* The style a patch line is drawn in: file headers, hunk headers,
 * additions, removals, "Binary files ... differ", context. */
ui_style ui_patch_style(const char *line);

/* Draws what every tab of the conversation shares, the session's title
 * line (with extra) and the tab bar with tab marked; returns the rect
 * left below them. */
ui_rect ui_conv_frame(const ui_model *m, ui_tab tab, ui_rect r, bool active, const char *extra);

/* Rows the open document takes wrapped to width, only the lines that
 * filter's text matches (NULL: all) (views/conversation.c). */
size_t ui_document_rows(const ui_model *m, const ui_pane *filter, int width);

/* ---- shared by the list panes (views/list.c) --------------------------- */

/* The symbol of a status, readable without colour: ▶ ‖ ✓ ✗ ? */
const char *ui_status_symbol(ui_status st);
ui_style ui_status_style(ui_status st);
/* A derived state's symbol and style (ac_session_state.h). */
const char *ui_state_symbol(ac_session_state state);
ui_style ui_state_style(ac_session_state state);

/* "42s", "5m", "3h", "12d" since the ISO timestamp iso; "-" when unknown. */
void ui_fmt_age(char *out, size_t size, const char *iso, int64_t now_ms);

/* When (ms since the epoch) the soonest age formatted by ui_fmt_age()
 * since the last call will read differently; 0 when none was. The
 * dashboard redraws then, so ages tick while they are on screen. */
int64_t ui_age_refresh_take(void);

/* "HH:MM:SS" of an ISO timestamp (UTC), "--:--:--" when it is not one. */
void ui_fmt_clock(char out[9], const char *iso);

/* 950, 1.2k, 34k, 1.5M, 120M, 3.4G...: at most 4 characters (tenths
 * rounded, whole units rounded down). */
void ui_fmt_count(char *out, size_t size, uint64_t n);

/* A list's column, for ui_columns_fit: its width in cells and the gap
 * after it; keep: how long it stays as the pane narrows (the lowest goes
 * first, the rightmost of equals first); flex: it takes the room the
 * others leave, width being its least. A width of 0: not shown. */
typedef struct {
	int width, gap, keep;
	bool flex;
} ui_column;

/* Which of n columns show in width cells: widths[i] the cells column i
 * gets, 0 when dropped. Columns are dropped (never cut: a number cut to
 * its first digits reads as another number) until the rest fit, the first
 * always staying; a flex column then takes what is left. Returns the
 * number shown. */
size_t ui_columns_fit(int *widths, const ui_column *cols, size_t n, int width);

/* Appends count n right-aligned in width cells, then sep spaces: its
 * digits when exact and they fit, else abbreviated (ui_fmt_count), else
 * "…" (a marker, never the first digits). */
void ui_col_count(ac_buf *out, uint64_t n, bool exact, int width, int sep);

/* Appends text cut or padded to width columns, then sep spaces. */
void ui_col(ac_buf *out, const char *text, int width, unsigned flags, int sep);

/* The visible items (those the filters keep): fills idx (may be NULL; room
 * for v->count(m)) and returns how many. */
size_t ui_list_visible(const ui_view *v, const ui_model *m, const ui_pane *p, size_t *idx);

/* The model index of the selected item; false when the list is empty. */
bool ui_list_selected(const ui_view *v, const ui_model *m, const ui_pane *p, size_t *out);

/* Generic list draw and keys (j/k, g/G, PgUp/PgDn). */
void ui_list_draw(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
		  int64_t now_ms);

/* Draws a pane that has nothing to list, with a note saying what is true
 * of its file (never invented rows); extra may be NULL. */
void ui_list_draw_note(const ui_view *v, ui_pane *p, ui_rect r, bool active,
		       const char *extra, const char *note);
bool ui_list_key(const ui_view *v, const ui_model *m, ui_pane *p, ui_action a, int page);

/* The key handler of a pane that scrolls a text (views/scroll.c): j/k, g,
 * PgUp/PgDn move p->top (clamped when drawn) and stop following; G follows
 * the end. True when the pane changed. */
bool ui_scroll_key(const ui_view *v, const ui_model *m, ui_pane *p, ui_action a, int page);

/* The same for a pane that does not follow its end (help, the message
 * log): G scrolls to the end, which the draw clamps. */
bool ui_scroll_key_clamped(const ui_view *v, const ui_model *m, ui_pane *p, ui_action a, int page);

/* Selects the row drawn at screen row y; false when y holds none. */
bool ui_list_click(const ui_view *v, const ui_model *m, ui_pane *p, int y);

/* Matches the pane's "/" filter against fields (NULL-terminated). */
bool ui_filter_fields(const ui_pane *p, const char *const *fields);

/* Rows the open conversation takes wrapped to width, only the messages
 * that filter's text matches (NULL: all) (views/conversation.c). */
size_t ui_conversation_rows(const ui_model *m, const ui_pane *filter, int width);

/* What help line i is: a heading naming the panes of the keys below it, a
 * key, or past the last. */
typedef enum { UI_HELP_END, UI_HELP_HEADING, UI_HELP_KEY } ui_help_kind;

/* Appends help line i, cut to width (views/help.c): the model's key table
 * grouped by the panes where the keys apply, each key once. */
ui_help_kind ui_help_line(ac_buf *out, const ui_model *m, size_t i, int width);

/* Draws the model's dialog, if one is open, centred on a rows x cols
 * screen, its lines wrapped; p->top is the first body row shown (clamped
 * here) and p->list_rows becomes the body rows shown (views/dialog.c). */
void ui_dialog_draw(const ui_model *m, ui_pane *p, int rows, int cols);

/* Draws a pane's title line: name, filter and a count. */
void ui_draw_title(ui_rect r, const char *name, const ui_pane *p, const char *extra,
		   bool active);

#endif
