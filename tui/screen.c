/* All of the program's curses state and calls. */
#include "screen.h"

#include "ui_text.h"

#include <curses.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>

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
	char *s = tigetstr((char *)cap);
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
	if (c >= COLORS)
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

		if (colors && i + 1 < COLOR_PAIRS) {
			init_pair((short)(i + 1), curses_color(t.style[i].fg), curses_color(t.style[i].bg));
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

	saved_tty_ok = tcgetattr(STDIN_FILENO, &saved_tty) == 0;
	term_screen = newterm(NULL, stdout, stdin);
	if (!term_screen)
		return -1;
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

	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	colors = use_color && has_colors();
	if (colors) {
		start_color();
		use_default_colors();
	}
	screen_set_theme(theme);
	return 0;
}

void screen_fini(void)
{
	if (!active)
		return;
	active = false;
	mousemask(0, NULL);
	endwin();
	fflush(stdout);
	delscreen(term_screen);
	term_screen = NULL;
}

void screen_size(int *rows, int *cols)
{
	getmaxyx(stdscr, *rows, *cols);
}

void screen_begin(void)
{
	werase(stdscr);
}

void screen_put(int y, int x, int width, ui_style style, const char *text)
{
	int rows, cols;
	size_t len;

	getmaxyx(stdscr, rows, cols);
	if (y < 0 || y >= rows || x < 0 || x >= cols || width <= 0)
		return;
	if (width > cols - x)
		width = cols - x;
	len = ui_text_prefix(text, strlen(text), width, NULL);
	attrset(style_attr[style]);
	mvaddnstr(y, x, text, (int)len);
	attrset(A_NORMAL);
}

void screen_fill(int y, int x, int width, ui_style style)
{
	int rows, cols;

	getmaxyx(stdscr, rows, cols);
	if (y < 0 || y >= rows || x < 0 || x >= cols || width <= 0)
		return;
	if (width > cols - x)
		width = cols - x;
	attrset(style_attr[style]);
	mvhline(y, x, ' ', width);
	attrset(A_NORMAL);
}

void screen_end(void)
{
	wnoutrefresh(stdscr);
	doupdate();
}

void screen_invalidate(void)
{
	clearok(curscr, TRUE);
}

bool screen_read(ui_input *out)
{
	wint_t ch;
	int rc = wget_wch(stdscr, &ch);
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
		if (getmouse(&ev) != OK)
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
