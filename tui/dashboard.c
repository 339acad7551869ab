/* The dashboard shell: a live tail of the journal until the full dashboard
 * (panes for sessions, operations and checkpoints) lands. All curses state
 * stays in this file. */
#include "cli.h"

#include "ac_buf.h"
#include "ac_journal_scan.h"
#include "ac_text.h"

#include <curses.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
	ac_buf *lines;
	size_t count, cap;
} tail_lines;

static int keep_line(const ac_scan_match *m, void *ctx)
{
	tail_lines *t = ctx;
	const ac_json_span *fields[] = {&m->fields[AC_EV_TIMESTAMP], &m->fields[AC_EV_AGENT],
					&m->fields[AC_EV_STATUS], &m->fields[AC_EV_ACTION_TYPE],
					&m->fields[AC_EV_RESULT_MESSAGE]};
	ac_buf *line;
	char decoded[512];

	if (t->count == t->cap)
		return 1;
	line = &t->lines[t->count++];
	ac_buf_clear(line);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const ac_json_span *f = fields[i];
		size_t n = 0;

		if (f->type == AC_JSON_STRING && f->len <= sizeof(decoded))
			ac_json_string_decode(decoded, &n, f);
		ac_text_sanitize(line, decoded, n);
		ac_buf_putc(line, ' ');
	}
	return 0;
}

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void draw(const char *workspace, const char *journal, tail_lines *t)
{
	int rows, cols;

	getmaxyx(stdscr, rows, cols);
	erase();
	attron(A_REVERSE);
	mvhline(0, 0, ' ', cols);
	mvaddnstr(0, 1, "agentctl", cols - 1);
	mvaddnstr(0, 11, workspace, cols > 11 ? cols - 11 : 0);
	attroff(A_REVERSE);
	mvaddnstr(1, 0, "Journal (live tail)", cols);
	for (size_t i = 0; i < t->count && (int)i < rows - 3; i++)
		if (t->lines[i].data)
			mvaddnstr(2 + (int)i, 0, t->lines[i].data, cols);
	if (t->count == 0)
		mvaddnstr(3, 2, "No events yet in this journal.", cols - 2);
	attron(A_REVERSE);
	mvhline(rows - 1, 0, ' ', cols);
	mvaddnstr(rows - 1, 1, journal, cols - 20 > 0 ? cols - 20 : 0);
	mvaddnstr(rows - 1, cols > 12 ? cols - 12 : 0, "q: quit", 11);
	attroff(A_REVERSE);
	refresh();
}

int dashboard_run(cli_context *ctx)
{
	const char *journal = ctx->ws.journal_path;
	tail_lines tail = {0};
	ac_query *everything = NULL;
	struct stat last = {0}, now;
	bool dirty = true;

	if (ac_query_parse(&everything, NULL, 0) != 0)
		return cli_error(CLI_FAILED, "out of memory");
	setlocale(LC_ALL, "");
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (!initscr()) {
		ac_query_free(everything);
		return cli_error(CLI_FAILED, "cannot start the terminal (is TERM set?)");
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	timeout(250);
	tail.cap = (size_t)(LINES > 3 ? LINES - 3 : 1);
	tail.lines = calloc(tail.cap, sizeof(ac_buf));
	while (!stop_requested) {
		const char *files[] = {journal};
		int key;

		if (stat(journal, &now) == 0 &&
		    (now.st_size != last.st_size || now.st_mtim.tv_nsec != last.st_mtim.tv_nsec ||
		     now.st_ino != last.st_ino)) {
			last = now;
			tail.count = 0;
			if (tail.lines)
				ac_journal_scan(NULL, files, 1, everything, tail.cap, NULL, keep_line, &tail);
			dirty = true;
		}
		if (dirty)
			draw(ctx->workspace, journal, &tail);
		dirty = false;
		key = getch();
		if (key == 'q')
			break;
		if (key == KEY_RESIZE)
			dirty = true;
	}
	endwin();
	for (size_t i = 0; tail.lines && i < tail.cap; i++)
		ac_buf_free(&tail.lines[i]);
	free(tail.lines);
	ac_query_free(everything);
	return CLI_OK;
}
