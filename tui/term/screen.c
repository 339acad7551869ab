/* All of the program's curses state and calls. Curses is loaded when the
 * dashboard starts (ac_dl.h), not linked: the other commands would pay
 * for loading ncursesw and tinfo at every start (0.2 of 1.0 ms). */
#include "screen.h"

#include "ui_text.h"

#include "ac_dl.h"
#include "ac_error.h"

#include <curses.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>

#ifndef AC_NCURSESW_SONAME
#error "AC_NCURSESW_SONAME (e.g. \"libncursesw.so.6\") comes from the build: see CMakeLists.txt"
#endif

/* Every curses function and variable used here; sym_<name> points at it
 * once curses_load() has run. The macros of <curses.h> that call others
 * (attrset, mvaddnstr, ...) are written out below through these. */
#define CURSES_FUNCTIONS(X) \
	X(beep) X(cbreak) X(clearok) X(curs_set) X(delscreen) X(doupdate) X(endwin) X(getmouse) \
	X(has_colors) X(init_pair) X(keypad) X(mouseinterval) X(mousemask) X(newterm) \
	X(nodelay) X(noecho) X(nonl) X(set_escdelay) X(start_color) X(tigetstr) \
	X(use_default_colors) X(waddnstr) X(wattrset) X(werase) X(wget_wch) X(whline) \
	X(wmove) X(wnoutrefresh)
#define CURSES_VARIABLES(X) X(stdscr) X(curscr) X(COLORS) X(COLOR_PAIRS)

#define CURSES_DEFINE(name) static __typeof__(name) *sym_##name;
CURSES_FUNCTIONS(CURSES_DEFINE)
CURSES_VARIABLES(CURSES_DEFINE)
#undef CURSES_DEFINE

static int curses_load(void)
{
	static int rc = 1; /* not tried yet */
#define CURSES_SYMBOL(name) {#name, (void **)&sym_##name},
	static const ac_dl_symbol symbols[] = {CURSES_FUNCTIONS(CURSES_SYMBOL)
					       CURSES_VARIABLES(CURSES_SYMBOL)};
#undef CURSES_SYMBOL

	if (rc == 1)
		rc = ac_dl_load(AC_NCURSESW_SONAME, symbols, sizeof(symbols) / sizeof(symbols[0]),
				"the dashboard");
	return rc;
}

static bool active;
static SCREEN *term_screen;
static bool colors;
static volatile sig_atomic_t stop_flag;
static struct termios saved_tty;
static bool saved_tty_ok;
/* What a crash writes to put the terminal back: exit the alternate screen,
 * show the cursor, reset attributes, stop mouse reporting. Built at init
 * from terminfo so the handler only calls write(). */
static char restore_seq[256];
static size_t restore_len;

static void append_cap(const char *cap)
{
	char *s = sym_tigetstr((char *)cap);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (restore_len + n < sizeof(restore_seq)) {
		memcpy(restore_seq + restore_len, s, n);
		restore_len += n;
	}
}

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void on_crash(int sig)
{
	if (active) {
		if (saved_tty_ok)
			tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
		if (write(STDOUT_FILENO, restore_seq, restore_len) < 0) {
			/* nothing more can be done from a signal handler */
		}
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void at_exit(void)
{
	screen_fini();
}

bool screen_stop_requested(void)
{
	return stop_flag != 0;
}

static short curses_color(short c)
{
	if (c == UI_COLOR_DEFAULT)
		return -1;
	if (c >= *sym_COLORS)
		return c >= 8 && c < 16 ? (short)(c - 8) : -1;
	return c;
}

static attr_t curses_attrs(unsigned a)
{
	attr_t out = 0;

	if (a & UI_ATTR_BOLD)
		out |= A_BOLD;
	if (a & UI_ATTR_DIM)
		out |= A_DIM;
	if (a & UI_ATTR_REVERSE)
		out |= A_REVERSE;
	if (a & UI_ATTR_UNDERLINE)
		out |= A_UNDERLINE;
	if (a & UI_ATTR_ITALIC)
		out |= A_ITALIC;
	return out;
}

static attr_t style_attr[UI_ST_COUNT];

void screen_set_theme(const ui_theme *theme)
{
	ui_theme t = *theme;

	if (!colors)
		ui_theme_strip_colors(&t);
	for (int i = 0; i < UI_ST_COUNT; i++) {
		attr_t a = curses_attrs(t.style[i].attrs);

		if (colors && i + 1 < *sym_COLOR_PAIRS) {
			sym_init_pair((short)(i + 1), curses_color(t.style[i].fg), curses_color(t.style[i].bg));
			a |= COLOR_PAIR(i + 1);
		}
		style_attr[i] = a;
	}
}

bool screen_has_color(void)
{
	return colors;
}

int screen_init(const ui_theme *theme, bool use_color)
{
	struct sigaction sa;
	static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
	static bool registered;

	int rc;

	if ((rc = curses_load()))
		return rc;
	saved_tty_ok = tcgetattr(STDIN_FILENO, &saved_tty) == 0;
	term_screen = sym_newterm(NULL, stdout, stdin);
	if (!term_screen)
		return ac_error_set(AC_EINVAL, "the dashboard needs a terminal (is TERM set?)");
	active = true;
	if (!registered) {
		atexit(at_exit);
		registered = true;
	}
	restore_len = 0;
	append_cap("rmcup");
	append_cap("cnorm");
	append_cap("sgr0");
	{
		static const char mouse_off[] = "\033[?1000l\033[?1002l\033[?1006l";

		if (restore_len + sizeof(mouse_off) - 1 < sizeof(restore_seq)) {
			memcpy(restore_seq + restore_len, mouse_off, sizeof(mouse_off) - 1);
			restore_len += sizeof(mouse_off) - 1;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop; /* no SA_RESTART: poll() returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		sigaction(crash_signals[i], &sa, NULL);

	sym_cbreak();
	sym_noecho();
	sym_nonl();
	sym_keypad(*sym_stdscr, TRUE);
	sym_nodelay(*sym_stdscr, TRUE);
	sym_set_escdelay(25);
	sym_curs_set(0);
	sym_mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	sym_mouseinterval(0);
	colors = use_color && sym_has_colors();
	if (colors) {
		sym_start_color();
		sym_use_default_colors();
	}
	screen_set_theme(theme);
	return 0;
}

void screen_beep(void)
{
	if (active)
		sym_beep();
}

void screen_fini(void)
{
	if (!active)
		return;
	active = false;
	sym_mousemask(0, NULL);
	sym_endwin();
	fflush(stdout);
	sym_delscreen(term_screen);
	term_screen = NULL;
}

void screen_size(int *rows, int *cols)
{
	getmaxyx(*sym_stdscr, *rows, *cols);
}

void screen_begin(void)
{
	sym_werase(*sym_stdscr);
}

void screen_put(int y, int x, int width, ui_style style, const char *text)
{
	int rows, cols;
	size_t len;

	getmaxyx(*sym_stdscr, rows, cols);
	if (y < 0 || y >= rows || x < 0 || x >= cols || width <= 0)
		return;
	if (width > cols - x)
		width = cols - x;
	len = ui_text_prefix(text, strlen(text), width, NULL);
	sym_wattrset(*sym_stdscr, (int)style_attr[style]);
	if (sym_wmove(*sym_stdscr, y, x) != ERR)
		sym_waddnstr(*sym_stdscr, text, (int)len);
	sym_wattrset(*sym_stdscr, A_NORMAL);
}

void screen_fill(int y, int x, int width, ui_style style)
{
	int rows, cols;

	getmaxyx(*sym_stdscr, rows, cols);
	if (y < 0 || y >= rows || x < 0 || x >= cols || width <= 0)
		return;
	if (width > cols - x)
		width = cols - x;
	sym_wattrset(*sym_stdscr, (int)style_attr[style]);
	if (sym_wmove(*sym_stdscr, y, x) != ERR)
		sym_whline(*sym_stdscr, ' ', width);
	sym_wattrset(*sym_stdscr, A_NORMAL);
}

void screen_end(void)
{
	sym_wnoutrefresh(*sym_stdscr);
	sym_doupdate();
}

static void on_ignored(int sig)
{
	(void)sig;
}

static struct sigaction saved_int, saved_quit;

void screen_suspend(void)
{
	struct sigaction sa;

	if (!active)
		return;
	/* A handler, not SIG_IGN: an exec'd program gets the defaults back,
	 * where an ignored signal would stay ignored in it. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_ignored;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &saved_int);
	sigaction(SIGQUIT, &sa, &saved_quit);
	sym_mousemask(0, NULL);
	sym_endwin();
	fflush(stdout);
}

void screen_resume(void)
{
	if (!active)
		return;
	sigaction(SIGINT, &saved_int, NULL);
	sigaction(SIGQUIT, &saved_quit, NULL);
	sym_mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	sym_clearok(*sym_curscr, TRUE);
	sym_doupdate();
}

void screen_invalidate(void)
{
	sym_clearok(*sym_curscr, TRUE);
}

bool screen_read(ui_input *out)
{
	wint_t ch;
	int rc = sym_wget_wch(*sym_stdscr, &ch);
	MEVENT ev;

	memset(out, 0, sizeof(*out));
	if (rc == ERR)
		return false;
	if (rc == OK) {
		switch (ch) {
		case '\r':
		case '\n':
			out->key = UI_KEY_ENTER;
			break;
		case 27:
			out->key = UI_KEY_ESC;
			break;
		case '\t':
			out->key = UI_KEY_TAB;
			break;
		case 127:
		case 8:
			out->key = UI_KEY_BACKSPACE;
			break;
		case 12:
			out->key = UI_KEY_CTRL_L;
			break;
		default:
			out->key = (int)ch;
		}
		return true;
	}
	switch (ch) {
	case KEY_UP: out->key = UI_KEY_UP; break;
	case KEY_DOWN: out->key = UI_KEY_DOWN; break;
	case KEY_LEFT: out->key = UI_KEY_LEFT; break;
	case KEY_RIGHT: out->key = UI_KEY_RIGHT; break;
	case KEY_PPAGE: out->key = UI_KEY_PGUP; break;
	case KEY_NPAGE: out->key = UI_KEY_PGDN; break;
	case KEY_HOME: out->key = UI_KEY_HOME; break;
	case KEY_END: out->key = UI_KEY_END; break;
	case KEY_ENTER: out->key = UI_KEY_ENTER; break;
	case KEY_BACKSPACE: out->key = UI_KEY_BACKSPACE; break;
	case KEY_BTAB: out->key = UI_KEY_BTAB; break;
	case KEY_RESIZE: out->key = UI_KEY_RESIZE; break;
	case KEY_MOUSE:
		if (sym_getmouse(&ev) != OK)
			return true; /* out->key 0: ignored */
		out->key = UI_KEY_MOUSE;
		out->y = ev.y;
		out->x = ev.x;
		if (ev.bstate & BUTTON4_PRESSED)
			out->mouse = UI_MOUSE_WHEEL_UP;
		else if (ev.bstate & BUTTON5_PRESSED)
			out->mouse = UI_MOUSE_WHEEL_DOWN;
		else if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED))
			out->mouse = UI_MOUSE_CLICK;
		break;
	default:
		break; /* out->key 0: ignored */
	}
	return true;
}
