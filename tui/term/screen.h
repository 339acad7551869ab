/* The one layer between the dashboard and the terminal: every curses call
 * of the program is in screen.c (htop's CRT.c, tmux's screen-write.c).
 * Views draw text that is already sanitised and cut to width (ui_text.h)
 * through screen_put(); input comes back as ui_input, with curses' key
 * codes translated to UI_KEY_*.
 *
 * The terminal is restored on every way out: screen_fini(), exit()
 * (atexit), SIGINT/SIGTERM (the loop is told through screen_stop_requested()
 * and ends normally) and a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT:
 * the saved terminal modes and the terminal's exit sequences are written
 * with async-signal-safe calls, then the signal is re-raised). */
#ifndef UI_SCREEN_H
#define UI_SCREEN_H

#include "theme.h"

#include <stdbool.h>

enum {
	UI_KEY_UP = 0x110000, /* above every Unicode code point */
	UI_KEY_DOWN,
	UI_KEY_LEFT,
	UI_KEY_RIGHT,
	UI_KEY_PGUP,
	UI_KEY_PGDN,
	UI_KEY_HOME,
	UI_KEY_END,
	UI_KEY_ENTER,
	UI_KEY_ESC,
	UI_KEY_BACKSPACE,
	UI_KEY_TAB,
	UI_KEY_BTAB,
	UI_KEY_RESIZE,
	UI_KEY_MOUSE,
	UI_KEY_CTRL_L,
	UI_KEY_ANY, /* never read: the key table's entry for "any key" (a notice) */
};

enum { UI_MOUSE_CLICK = 1, UI_MOUSE_WHEEL_UP, UI_MOUSE_WHEEL_DOWN };

typedef struct {
	int key;               /* a Unicode code point or UI_KEY_* */
	int mouse, y, x;       /* with UI_KEY_MOUSE: UI_MOUSE_* and where */
} ui_input;

/* Starts curses on the terminal with theme (colours dropped when
 * use_color is false or the terminal has none). 0, or an AC_E* code with
 * the message set: no terminal, or curses cannot be loaded. */
int screen_init(const ui_theme *theme, bool use_color);

/* Rings the terminal's bell (or flashes it, as curses decides). */
void screen_beep(void);

/* Restores the terminal. Safe to call twice. */
void screen_fini(void);

/* Applies another theme (colour pairs are redefined). */
void screen_set_theme(const ui_theme *theme);

/* True when the terminal can show colour and colours are in use. */
bool screen_has_color(void);

/* The terminal's size. */
void screen_size(int *rows, int *cols);

/* Starts a frame (clears the back buffer). */
void screen_begin(void);

/* Writes text at (y, x) in style, at most width columns (text should be
 * cut already; this only guards the screen's edge). */
void screen_put(int y, int x, int width, ui_style style, const char *text);

/* Fills width columns from (y, x) with spaces in style. */
void screen_fill(int y, int x, int width, ui_style style);

/* Shows the frame: one terminal update per loop. */
void screen_end(void);

/* Forces a full repaint at the next screen_end() (Ctrl-L). */
void screen_invalidate(void);

/* Gives the terminal to a program run in the foreground (a coding agent
 * resumed with its tool) and takes it back: suspend leaves curses mode
 * and lets Ctrl-C and Ctrl-\\ reach that program only (the dashboard
 * keeps running); resume restores both and repaints everything. */
void screen_suspend(void);
void screen_resume(void);

/* Reads one input without waiting; false when there is none. */
bool screen_read(ui_input *out);

/* True once SIGINT or SIGTERM arrived. */
bool screen_stop_requested(void);

#endif
