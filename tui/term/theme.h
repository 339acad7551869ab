/* Themes: which colours and attributes each element of the dashboard
 * takes, as data. A theme is a text file, one element a line:
 *
 *     # comment
 *     element = FG BG [ATTR...]
 *
 * FG and BG are "default", a colour name (black red green yellow blue
 * magenta cyan white, or bright-NAME) or a number 0-255; ATTRs are bold,
 * dim, reverse, underline, italic. Elements not named keep the built-in
 * dark theme's values. No curses here: tui/term/screen.c turns a theme into
 * colour pairs. */
#ifndef UI_THEME_H
#define UI_THEME_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
	UI_ST_NORMAL,
	UI_ST_TITLE,        /* the top bar */
	UI_ST_TAB,          /* an inactive pane's name */
	UI_ST_TAB_ACTIVE,
	UI_ST_HEADER,       /* column titles */
	UI_ST_SELECTED,     /* the cursor row */
	UI_ST_STATUSBAR,
	UI_ST_KEYS,         /* the key hints line */
	UI_ST_RUNNING,
	UI_ST_PAUSED,
	UI_ST_COMPLETED,
	UI_ST_FAILED,
	UI_ST_DIM,          /* secondary text: times, ids */
	UI_ST_WARNING,
	UI_ST_ERROR,
	UI_ST_OK,           /* an action's success on the status line */
	UI_ST_DIALOG,
	UI_ST_DIALOG_TITLE,
	UI_ST_ROLE_USER,
	UI_ST_ROLE_ASSISTANT,
	UI_ST_ROLE_SYSTEM,
	UI_ST_TOOL,         /* tool calls and results in a conversation */
	UI_ST_FILTER,
	UI_ST_INVALID,      /* a journal record outside the schema, shown marked */
	UI_ST_STATE_RUNNING, /* a session's derived state (ac_session_state.h) */
	UI_ST_STATE_WAITING,
	UI_ST_STATE_IDLE,
	UI_ST_STATE_ENDED,
	UI_ST_COUNT
} ui_style;

enum {
	UI_ATTR_BOLD = 1 << 0,
	UI_ATTR_DIM = 1 << 1,
	UI_ATTR_REVERSE = 1 << 2,
	UI_ATTR_UNDERLINE = 1 << 3,
	UI_ATTR_ITALIC = 1 << 4,
};

#define UI_COLOR_DEFAULT (-1)

typedef struct {
	short fg, bg;    /* UI_COLOR_DEFAULT or 0..255 */
	unsigned attrs;  /* UI_ATTR_* */
} ui_style_spec;

typedef struct {
	char name[64];
	ui_style_spec style[UI_ST_COUNT];
} ui_theme;

/* The element's name in theme files ("selected", "running", ...). */
const char *ui_style_name(ui_style style);

/* The built-in dark theme (what a theme file starts from). */
void ui_theme_default(ui_theme *out);

/* Parses a theme from text[0..len); name is what the theme is called.
 * Returns 0, or -1 with err (errlen bytes) receiving "line N: reason". */
int ui_theme_parse(ui_theme *out, const char *name, const char *text, size_t len,
		   char *err, size_t errlen);

/* Loads theme name (a name looked up in dirs as "<dir>/<name>.theme", or
 * a path when it holds a '/' and path_ok: false for a theme an untrusted
 * project file names). dirs is NULL-terminated. Only a regular file of at
 * most UI_THEME_MAX_BYTES is read, and opening never blocks (a FIFO). On
 * failure out is the default theme and err receives "FILE:LINE: reason"
 * or why the file was not found or not read; returns -1. */
#define UI_THEME_MAX_BYTES 16383
int ui_theme_load(ui_theme *out, const char *name, const char *const *dirs, bool path_ok,
		  char *err, size_t errlen);

/* Drops the colours of t, keeping attributes (NO_COLOR, monochrome
 * terminals); selected rows and bars stay readable through reverse video. */
void ui_theme_strip_colors(ui_theme *t);

/* The names of the themes found in dirs, sorted, duplicates removed; at
 * most cap. Returns the number found. names[i] are allocated. */
size_t ui_theme_list(char **names, size_t cap, const char *const *dirs);

#endif
