/* The dashboard's model and view logic, without a terminal: row texts and
 * their display widths (CJK, emoji), cutting, hostile text made visible,
 * status symbols, the journal ring, conversations, filters and themes, and
 * the key table (its hints, its help, its dispatch). It links the UI
 * library without tui/term/screen.c (agentctl-ui-test) and provides screen.h
 * itself: a stand-in that records what is drawn. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dash.h"
#include "drill.h"
#include "jsearch.h"
#include "keys.h"
#include "model.h"
#include "notify.h"
#include "patch.h"
#include "screen.h"
#include "source.h"
#include "theme.h"
#include "ui_text.h"
#include "view.h"

#include "ac_backend_fs.h"
#include "ac_config.h"
#include "ac_error.h"
#include "ac_session_index.h"
#include "ac_watch.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- a screen that records what is drawn ------------------------------ */

#define FAKE_ROWS 90
static ac_buf fake_rows[FAKE_ROWS];

void screen_put(int y, int x, int width, ui_style style, const char *text)
{
	(void)x;
	(void)width;
	(void)style;
	if (y >= 0 && y < FAKE_ROWS) {
		ac_buf_append(&fake_rows[y], text, strlen(text));
		ac_buf_putc(&fake_rows[y], '|');
	}
}

void screen_fill(int y, int x, int width, ui_style style)
{
	(void)y;
	(void)x;
	(void)width;
	(void)style;
}

/* What the key table's handlers ask of the terminal. */
static int fake_repaints;

/* The width a refusal's popup is measured against (keys.c, dash_job.c). */
void screen_size(int *rows, int *cols)
{
	*rows = FAKE_ROWS;
	*cols = 120;
}

void screen_invalidate(void)
{
	fake_repaints++;
}

/* Resuming a transcript hands the terminal over: nothing to do here. */
void screen_suspend(void)
{
}

void screen_resume(void)
{
}

void screen_set_theme(const ui_theme *theme)
{
	(void)theme;
}

bool screen_has_color(void)
{
	return false;
}

static void fake_reset(void)
{
	for (int i = 0; i < FAKE_ROWS; i++)
		ac_buf_free(&fake_rows[i]);
}

static bool fake_shows(const char *text)
{
	for (int i = 0; i < FAKE_ROWS; i++)
		if (fake_rows[i].data && strstr(fake_rows[i].data, text))
			return true;
	return false;
}

/* ---- helpers ----------------------------------------------------------- */

static bool valid_utf8(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		unsigned cp;
		size_t n = ui_utf8_next(s + i, len - i, &cp);

		if (n == 1 && (unsigned char)s[i] >= 0x80)
			return false;
		i += n;
	}
	return true;
}

static ac_session_summary summary(const char *id, const char *task, const char *status)
{
	ac_session_summary s = {.id = id, .task = task, .status = status,
				.created_at = "2024-05-01T10:00:00.000Z",
				.updated_at = "2024-05-01T10:00:30.000Z", .tenant = "",
				.user = "alice", .agent = "Claude", .messages = 12, .tokens = 3456};

	return s;
}

static void set_sessions(ui_model *m, const ac_session_summary *list, size_t n)
{
	const ac_session_summary *ptrs[8];

	for (size_t i = 0; i < n; i++)
		ptrs[i] = &list[i];
	assert_int_equal(ui_model_set_sessions(m, ptrs, n), 0);
}

static const int64_t now_ms = 1714557690000; /* 2024-05-01T10:01:30Z */

/* ---- width, cutting, wrapping ----------------------------------------- */

static void test_width(void **state)
{
	(void)state;
	assert_int_equal(ui_text_width("abc", 3), 3);
	assert_int_equal(ui_text_width("日本語", strlen("日本語")), 6);
	assert_int_equal(ui_text_width("한국어", strlen("한국어")), 6);
	assert_int_equal(ui_text_width("🚀", strlen("🚀")), 2);
	assert_int_equal(ui_text_width("e\xcc\x81", 3), 1); /* e + combining acute */
	assert_int_equal(ui_text_width("\xe2\x96\xb6", 3), 1); /* ▶ */
}

static void test_fit_never_splits(void **state)
{
	const char *s = "日本語🚀abc";

	(void)state;
	for (int w = 1; w <= 12; w++) {
		ac_buf b = AC_BUF_INIT;
		int cols = ui_text_fit(&b, s, strlen(s), w, UI_FIT_PAD);

		assert_int_equal(cols, w);
		assert_int_equal(ui_text_width(b.data, b.len), w);
		assert_true(valid_utf8(b.data, b.len));
		ac_buf_free(&b);
	}
	{
		ac_buf b = AC_BUF_INIT;

		ui_text_fit(&b, s, strlen(s), 5, 0); /* 日本 + no room for 語 */
		assert_string_equal(b.data, "日本");
		ac_buf_clear(&b);
		ui_text_fit(&b, s, strlen(s), 6, UI_FIT_ELLIPSIS);
		assert_string_equal(b.data, "日本…");
		ac_buf_clear(&b);
		ui_text_fit(&b, "42", 2, 5, UI_FIT_RIGHT);
		assert_string_equal(b.data, "   42");
		ac_buf_free(&b);
	}
}

/* An input line keeps what is typed in view: a text too long for the line
 * loses its start, never its end or the cursor (it used to be cut at the
 * right, so the operator typed blind). */
static void test_input_keeps_the_end(void **state)
{
	ac_buf b = AC_BUF_INIT;

	(void)state;
	ui_text_input(&b, " filter: ", "short", "   Enter: keep", 40);
	assert_string_equal(b.data, " filter: short_   Enter: keep");
	ac_buf_clear(&b);
	ui_text_input(&b, " filter: ", "abcdefghijklmnopqrstuvwxyz0123456789XYZ", "   Enter: keep", 30);
	assert_string_equal(b.data, " filter: \xe2\x80\xa6uvwxyz0123456789XYZ_");
	for (int w = 12; w <= 24; w++) {
		ac_buf_clear(&b);
		ui_text_input(&b, " filter: ", "abc日本語def日本語XYZ日本語", "   Enter", w);
		assert_true(ui_text_width(b.data, b.len) <= w);
		assert_true(valid_utf8(b.data, b.len));
		assert_int_equal(b.data[b.len - 1], '_');
	}
	ac_buf_free(&b);
}

static void count_rows(const char *row, size_t len, void *ctx)
{
	ac_buf *b = ctx;

	ac_buf_append(b, row, len);
	ac_buf_putc(b, '|');
}

static void test_wrap(void **state)
{
	ac_buf b = AC_BUF_INIT;

	(void)state;
	assert_int_equal(ui_text_wrap("hello big world", 15, 9, count_rows, &b), 2);
	assert_string_equal(b.data, "hello big|world|");
	ac_buf_clear(&b);
	assert_int_equal(ui_text_wrap("日本語日本語", strlen("日本語日本語"), 5, count_rows, &b), 3);
	assert_string_equal(b.data, "日本|語日|本語|");
	ac_buf_free(&b);
}

static void test_smart_case(void **state)
{
	(void)state;
	assert_true(ui_text_match("Fix the Login", "login"));
	assert_false(ui_text_match("Fix the login", "Login"));
	assert_true(ui_text_match("Fix the Login", "Login"));
	assert_true(ui_text_match("anything", ""));
	assert_true(ui_text_match("修复登录", "登录"));
}

/* ---- rows -------------------------------------------------------------- */

static void test_status_symbols(void **state)
{
	(void)state;
	assert_string_equal(ui_status_symbol(UI_STATUS_RUNNING), "▶");
	assert_string_equal(ui_status_symbol(UI_STATUS_PAUSED), "‖");
	assert_string_equal(ui_status_symbol(UI_STATUS_COMPLETED), "✓");
	assert_string_equal(ui_status_symbol(UI_STATUS_FAILED), "✗");
	assert_int_equal(ui_status_of("paused"), UI_STATUS_PAUSED);
	assert_int_equal(ui_status_of("bogus"), UI_STATUS_OTHER);
	assert_int_equal(ui_event_status_of("FAILED"), UI_STATUS_FAILED);
	assert_int_equal(ui_status_style(UI_STATUS_FAILED), UI_ST_FAILED);
}

static void test_session_rows(void **state)
{
	ui_model m = {0};
	ac_session_summary list[] = {
		summary("s-cjk", "修复登录页面的错误 🚀 then 日本語 and 한국어 everywhere", "running"),
		summary("s-evil", "evil \x1b]0;pwned\x07 \xe2\x80\xae rtl \xff end", "paused"),
		summary("s-done", "short", "completed"),
	};

	(void)state;
	set_sessions(&m, list, 3);
	assert_int_equal(m.by_status[UI_STATUS_RUNNING], 1);
	assert_int_equal(m.by_status[UI_STATUS_PAUSED], 1);
	for (int w = 40; w <= 160; w += 7) {
		for (size_t i = 0; i < 3; i++) {
			ac_buf row = AC_BUF_INIT;
			int ax = -1, aw = -1;
			ui_style st = ui_view_sessions.row(&row, &m, i, w, now_ms, &ax, &aw);

			assert_int_equal(ui_text_width(row.data, row.len), w);
			assert_true(valid_utf8(row.data, row.len));
			assert_null(memchr(row.data, 0x1b, row.len));
			assert_int_equal(st, ui_status_style(m.sessions[i].st));
			assert_true(ax >= 0 && aw > 0);
			ac_buf_free(&row);
		}
		{
			ac_buf h = AC_BUF_INIT;

			ui_view_sessions.header(&h, &m, w);
			assert_int_equal(ui_text_width(h.data, h.len), w);
			ac_buf_free(&h);
		}
	}
	{
		ac_buf row = AC_BUF_INIT;
		int ax, aw;

		ui_view_sessions.row(&row, &m, 1, 120, now_ms, &ax, &aw);
		assert_non_null(strstr(row.data, "‖ paused"));
		assert_non_null(strstr(row.data, "^[]0;pwned^G"));
		assert_non_null(strstr(row.data, "<U+202E>"));
		assert_non_null(strstr(row.data, "\\xFF") ? strstr(row.data, "\\xFF") : strstr(row.data, "\\xff"));
		ac_buf_clear(&row);
		ui_view_sessions.row(&row, &m, 0, 120, now_ms, &ax, &aw);
		assert_non_null(strstr(row.data, "▶ running"));
		assert_non_null(strstr(row.data, "alice/Claude"));
		assert_non_null(strstr(row.data, "3.5k"));
		assert_non_null(strstr(row.data, " 60s") ? strstr(row.data, " 60s") : strstr(row.data, " 1m"));
		ac_buf_free(&row);
	}
	ui_model_free(&m);
}

static void test_journal_ring_and_rows(void **state)
{
	ui_model m = {0};
	char msg[64];

	(void)state;
	for (int i = 0; i < UI_MODEL_EVENTS + 100; i++) {
		snprintf(msg, sizeof(msg), "event %d", i);
		ui_model_add_event(&m, "evt_x", "2024-05-01T10:00:00.000Z", "Claude", "SUCCESS",
				   "FILE_EDIT", msg);
	}
	assert_int_equal(m.n_events, UI_MODEL_EVENTS);
	assert_string_equal(ui_model_event(&m, 0)->message, "event 100");
	assert_string_equal(ui_model_event(&m, UI_MODEL_EVENTS - 1)->message, "event 2099");
	ui_model_add_event(&m, "evt_y", "2024-05-01T10:00:01.000Z", "Gemini", "FAILED", "CMD_RUN",
			   "日本語のメッセージ 🎉 \x1b[31m red \xc2\x9b done with a long tail of text to cut");
	for (int w = 30; w <= 130; w += 9) {
		ac_buf row = AC_BUF_INIT;
		int ax, aw;
		ui_style st = ui_view_journal.row(&row, &m, m.n_events - 1, w, now_ms, &ax, &aw);

		assert_int_equal(ui_text_width(row.data, row.len), w);
		assert_true(valid_utf8(row.data, row.len));
		assert_null(memchr(row.data, 0x1b, row.len));
		assert_int_equal(st, UI_ST_FAILED);
		ac_buf_free(&row);
	}
	{
		ac_buf row = AC_BUF_INIT;
		int ax, aw;

		ui_view_journal.row(&row, &m, m.n_events - 1, 200, now_ms, &ax, &aw);
		assert_non_null(strstr(row.data, "10:00:01 ✗ Gemini"));
		assert_non_null(strstr(row.data, "^[[31m"));
		assert_non_null(strstr(row.data, "<U+009B>"));
		ac_buf_free(&row);
	}
	ui_model_free(&m);
}

static void test_filter_and_selection(void **state)
{
	ui_model m = {0};
	ui_pane p = {.status_filter = -1};
	ac_session_summary list[] = {
		summary("a1", "Write the parser", "running"),
		summary("b2", "fix LOGIN page", "paused"),
		summary("c3", "login again", "failed"),
	};
	size_t idx[3], i;

	(void)state;
	set_sessions(&m, list, 3);
	snprintf(p.filter, sizeof(p.filter), "login");
	assert_int_equal(ui_list_visible(&ui_view_sessions, &m, &p, idx), 2);
	snprintf(p.filter, sizeof(p.filter), "LOGIN");
	assert_int_equal(ui_list_visible(&ui_view_sessions, &m, &p, idx), 1);
	assert_string_equal(m.sessions[idx[0]].id, "b2");
	p.filter[0] = '\0';
	p.status_filter = UI_STATUS_FAILED;
	assert_int_equal(ui_list_visible(&ui_view_sessions, &m, &p, idx), 1);
	p.status_filter = -1;
	/* Movement, then the selection follows its item when the list changes. */
	p.list_rows = 10;
	assert_true(ui_list_key(&ui_view_sessions, &m, &p, UI_ACT_BOTTOM, 10));
	assert_true(ui_list_selected(&ui_view_sessions, &m, &p, &i));
	assert_string_equal(m.sessions[i].id, "c3");
	{
		ac_session_summary more[] = {summary("z0", "new one", "running"), list[0], list[1], list[2]};

		set_sessions(&m, more, 4);
	}
	assert_true(ui_list_selected(&ui_view_sessions, &m, &p, &i));
	assert_string_equal(m.sessions[i].id, "c3");
	assert_true(ui_list_key(&ui_view_sessions, &m, &p, UI_ACT_TOP, 10));
	assert_true(ui_list_selected(&ui_view_sessions, &m, &p, &i));
	assert_string_equal(m.sessions[i].id, "z0");
	assert_false(ui_list_key(&ui_view_sessions, &m, &p, UI_ACT_UP, 10));
	ui_model_free(&m);
}

/* The selection follows the id: while the selected session is gone from
 * the list (its file removed and not yet written again) nothing is
 * selected, never its neighbour; it is selected again when it is back. A
 * stale session (its file unreadable now) stays, marked. */
static void test_selection_follows_the_id(void **state)
{
	ui_model m = {0};
	ui_pane p = {.status_filter = -1, .list_rows = 10};
	ac_session_summary list[] = {
		summary("a1", "alpha", "running"),
		summary("b2", "bravo", "running"),
		summary("c3", "charlie", "running"),
	};
	size_t i;

	(void)state;
	set_sessions(&m, list, 3);
	assert_true(ui_list_key(&ui_view_sessions, &m, &p, UI_ACT_DOWN, 10));
	assert_true(ui_list_selected(&ui_view_sessions, &m, &p, &i));
	assert_string_equal(m.sessions[i].id, "b2");
	{
		ac_session_summary without[] = {list[0], list[2]};

		set_sessions(&m, without, 2);
	}
	assert_false(ui_list_selected(&ui_view_sessions, &m, &p, &i));
	assert_string_equal(p.sel, "b2");
	set_sessions(&m, list, 3);
	assert_true(ui_list_selected(&ui_view_sessions, &m, &p, &i));
	assert_string_equal(m.sessions[i].id, "b2");
	list[1].stale = true;
	set_sessions(&m, list, 3);
	assert_true(ui_list_selected(&ui_view_sessions, &m, &p, &i));
	assert_string_equal(m.sessions[i].id, "b2");
	assert_string_equal(m.sessions[i].pending, "unreadable");
	assert_true(m.sessions[i].pending_alarm);
	ui_model_free(&m);
}

static void test_draw_through_screen(void **state)
{
	ui_model m = {0};
	ui_pane p = {.status_filter = -1};
	ac_session_summary list[] = {summary("s-1", "タスク \x1b[2J", "running")};
	ui_rect r = {0, 0, 10, 80};

	(void)state;
	set_sessions(&m, list, 1);
	fake_reset();
	ui_view_sessions.draw(&ui_view_sessions, &m, &p, r, true, now_ms);
	assert_true(fake_shows("1 Sessions"));
	assert_true(fake_shows("タスク ^[[2J"));
	assert_true(fake_shows("▶ running"));
	fake_reset();
	/* Operations: an absent log is said, not faked. */
	ui_view_operations.draw(&ui_view_operations, &m, &p, r, true, now_ms);
	assert_true(fake_shows("no operation log yet"));
	fake_reset();
	ui_view_checkpoints.draw(&ui_view_checkpoints, &m, &p, r, true, now_ms);
	assert_true(fake_shows("no session selected"));
	fake_reset();
	ui_keys_describe(&m);
	ui_view_help.draw(&ui_view_help, &m, &p, (ui_rect){0, 0, FAKE_ROWS, 100}, true, now_ms);
	assert_true(fake_shows("quit"));
	assert_true(fake_shows("filter"));
	fake_reset();
	ui_model_free(&m);
}

/* The ids of the visible sessions in the pane's order, "a b c". */
static void visible_ids(char *out, size_t size, const ui_model *m, const ui_pane *p)
{
	size_t idx[8], n = ui_list_visible(&ui_view_sessions, m, p, idx);

	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? " " : "",
			 m->sessions[idx[i]].id);
}

/* o: Sessions by last update, status, tokens; f: a pane narrowed to a
 * session (operations by their session, events by the session they name
 * or their parent operation's), its title naming it; the viewer, the
 * search's pane and the session's detail drawn from the model alone. */
static void test_drill_lists(void **state)
{
	ui_model m = {0};
	ui_pane p = {.status_filter = -1, .list_rows = 10};
	ac_session_summary list[] = {summary("a", "task a", "completed"),
				     summary("b", "task b", "running"),
				     summary("c", "task c", "failed")};
	char none[] = "", o1[] = "o1", o2[] = "o2", sa[] = "a", sb[] = "b", type[] = "file_write";
	ui_op ops[] = {{.id = o1, .timestamp = none, .session = sa, .type = type, .what = none,
			.commit = none},
		       {.id = o2, .timestamp = none, .session = sb, .type = type, .what = none,
			.commit = none}};
	const char *uuid = "5e551000-0000-4000-8000-000000000001";
	char ids[64];
	size_t idx[4];

	(void)state;
	list[0].updated_at = "2024-05-01T10:00:50.000Z", list[0].tokens = 99999;
	list[1].updated_at = "2024-05-01T10:00:10.000Z", list[1].tokens = 10;
	list[2].updated_at = "2024-05-01T10:00:30.000Z", list[2].tokens = 500;
	set_sessions(&m, list, 3);
	p.sort = UI_SORT_UPDATED;
	visible_ids(ids, sizeof(ids), &m, &p);
	assert_string_equal(ids, "a c b");
	p.sort = UI_SORT_STATUS;
	visible_ids(ids, sizeof(ids), &m, &p);
	assert_string_equal(ids, "b c a");
	p.sort = UI_SORT_TOKENS;
	visible_ids(ids, sizeof(ids), &m, &p);
	assert_string_equal(ids, "a c b");
	fake_reset();
	ui_view_sessions.draw(&ui_view_sessions, &m, &p, (ui_rect){0, 0, 10, 100}, true, now_ms);
	assert_true(fake_shows("sorted by tokens"));
	p.sort = UI_SORT_NONE;

	/* Operations of one session (the pane's selection was the sessions'). */
	p.sel[0] = '\0';
	m.ops = ops;
	m.n_ops = 2;
	m.ops_present = true;
	snprintf(p.session, sizeof(p.session), "b");
	assert_int_equal(ui_list_visible(&ui_view_operations, &m, &p, idx), 1);
	assert_string_equal(m.ops[idx[0]].id, "o2");
	snprintf(p.session, sizeof(p.session), "%s", uuid);
	fake_reset();
	ui_view_operations.draw(&ui_view_operations, &m, &p, (ui_rect){0, 0, 10, 100}, true,
				now_ms);
	assert_true(fake_shows("2 Operations \xe2\x80\x94 session 5e551000\xe2\x80\xa6" "001"));
	assert_true(fake_shows("the operation log is empty") || fake_shows("0/0"));

	/* Events: by the session they name, or by their parent operation. */
	ui_model_add_event(&m, "e1", "", "Claude", "SUCCESS", "FILE_EDIT", "one");
	ui_model_event_link(&m, "a", NULL);
	ui_model_add_event(&m, "e2", "", "Claude", "SUCCESS", "FILE_EDIT", "two");
	ui_model_event_link(&m, NULL, "o2");
	ui_model_add_event(&m, "e3", "", "Claude", "SUCCESS", "FILE_EDIT", "three");
	snprintf(p.session, sizeof(p.session), "b");
	assert_int_equal(ui_list_visible(&ui_view_journal, &m, &p, idx), 1);
	assert_string_equal(ui_model_event(&m, idx[0])->id, "e2");
	snprintf(p.session, sizeof(p.session), "a");
	assert_int_equal(ui_list_visible(&ui_view_journal, &m, &p, idx), 1);
	assert_string_equal(ui_model_event(&m, idx[0])->id, "e1");
	p.session[0] = '\0';
	assert_int_equal(ui_list_visible(&ui_view_journal, &m, &p, idx), 3);
	m.ops = NULL;
	m.n_ops = 0;

	/* The session's detail beside the list. */
	fake_reset();
	ui_session_detail_draw(&m, &p, (ui_rect){0, 0, 20, 60});
	assert_true(fake_shows("task a"));
	assert_true(fake_shows("Last messages"));
	assert_true(fake_shows("(reading...)"));

	/* The viewer: sanitised, titled. */
	ui_model_viewer_open(&m, "Event \x1b[2J");
	ui_model_viewer_line(&m, "{\n  \"message\": \"hi \x1b]0;x\x07\"\n}");
	assert_int_equal(m.viewer.n, 3);
	fake_reset();
	ui_view_viewer.draw(&ui_view_viewer, &m, &p, (ui_rect){0, 0, 10, 80}, true, now_ms);
	assert_true(fake_shows("Event ^[[2J"));
	assert_true(fake_shows("\"message\": \"hi ^[]0;x^G\""));
	assert_true(fake_shows("rows 1-3 of 3"));
	ui_model_viewer_close(&m);
	assert_null(m.viewer.title);

	/* The search's pane says what it searched and how far. */
	m.search.query = ui_safe_str("agent=Nobody");
	m.search.n_files = 2;
	m.search.complete = true;
	fake_reset();
	ui_view_jsearch.draw(&ui_view_jsearch, &m, &p, (ui_rect){0, 0, 10, 100}, true, now_ms);
	assert_true(fake_shows("search: agent=Nobody"));
	assert_true(fake_shows("0 matches in 2 files"));
	m.search.complete = false;
	m.search.running = true;
	m.search.bytes_total = 200;
	m.search.bytes_done = 50;
	fake_reset();
	ui_view_jsearch.draw(&ui_view_jsearch, &m, &p, (ui_rect){0, 0, 10, 100}, true, now_ms);
	assert_true(fake_shows("0 matches so far, 25% searched (Esc stops)"));
	ui_sfree(m.search.query);
	memset(&m.search, 0, sizeof(m.search));
	ui_model_free(&m);
}

/* The whole-journal search never reads more than a window per step when
 * its time is up, newest first; keys in between stop it (Esc) or ask for
 * more (n), and a finished search has read every byte. */
static void test_jsearch_steps_are_bounded(void **state)
{
	static ui_model m; /* large (the journal ring): not on the stack */
	char *dir = tu_make_temp_dir(), *journal = tu_path(dir, "JOURNAL.jsonl");
	ac_config *config = NULL;
	ac_workspace ws;
	ui_jsearch_engine *e = NULL;
	ac_buf text = AC_BUF_INIT;
	const size_t lines = 30000; /* ~12 MiB: three windows and a bit */

	(void)state;
	memset(&m, 0, sizeof(m));
	for (size_t i = 0; i < lines; i++)
		ac_buf_printf(&text, "{\"id\":\"evt_20250903142514_%08zx\",\"timestamp\":"
			      "\"2025-09-03T14:25:14.302Z\",\"agent\":\"%s\",\"status\":\"SUCCESS\","
			      "\"action\":{\"type\":\"CMD_RUN\",\"params\":{}},\"result\":{\"message\":"
			      "\"%0330zu\"}}\n", i, i % 1000 ? "Claude" : "Codex", i);
	tu_write_file(journal, text.data, text.len);
	assert_int_equal(ac_config_load(&config, dir), 0);
	assert_int_equal(ac_workspace_init(&ws, config), 0);
	assert_int_equal(ui_jsearch_start(&e, &m, &ws, "since=2020-01-01 agent=Codex"), 0);
	assert_null(m.search.error);
	assert_int_equal(m.search.bytes_total, text.len);
	assert_true(m.search.running);
	/* No time left: one window (and the rest of the line it starts in). */
	assert_true(ui_jsearch_step(e, &m, 0));
	assert_true(m.search.bytes_done >= UI_JSEARCH_WINDOW);
	assert_true(m.search.bytes_done < UI_JSEARCH_WINDOW + 1000);
	assert_true(m.search.running);
	assert_true(m.search.n > 0);
	/* Newest first: the last Codex event of the file is the first match. */
	assert_string_equal(m.search.matches[0].ev.id, "evt_20250903142514_00007148");
	ui_jsearch_stop(e, &m);
	assert_false(ui_jsearch_step(e, &m, 0));
	/* More is wanted: it reads on to the start. */
	ui_jsearch_want(e, &m, SIZE_MAX);
	while (m.search.running)
		assert_true(ui_jsearch_step(e, &m, 0));
	assert_true(m.search.complete);
	assert_int_equal(m.search.n, lines / 1000);
	assert_int_equal(m.search.bytes_done, text.len);
	assert_string_equal(m.search.matches[m.search.n - 1].ev.id, "evt_20250903142514_00000000");
	/* A bad term is said, not searched. */
	assert_int_not_equal(ui_jsearch_start(&e, &m, &ws, "agent"), 0);
	assert_non_null(m.search.error);
	assert_false(m.search.running);
	ui_jsearch_close(&e, &m);
	assert_null(e);
	ui_model_free(&m);
	ac_workspace_free(&ws);
	ac_config_free(config);
	ac_buf_free(&text);
	tu_remove_tree(dir);
	free(journal);
	free(dir);
}

static void test_conversation(void **state)
{
	ui_model m = {0};
	json_error_t err;
	json_t *msgs = json_loads(
		"[{\"role\":\"user\",\"content\":\"Fix it\\nplease \\u001b[1m\"},"
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"Read a.c first\",\"signature\":\"sig\"},"
		"{\"type\":\"text\",\"text\":\"On it\"},"
		"{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"read_file\",\"input\":{\"path\":\"a.c\"}}]},"
		"{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"int x;\"}]},"
		"{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c9\",\"function\":{\"name\":\"ls\",\"arguments\":\"{}\"}}]},"
		"{\"role\":\"tool\",\"tool_call_id\":\"c9\",\"content\":\"a.c\"}]",
		0, &err);
	bool call = false, result = false, call2 = false, result2 = false, thought = false;
	ui_pane p = {0};

	(void)state;
	assert_non_null(msgs);
	assert_int_equal(ui_model_set_conversation(&m, "s1", "s1 running task", msgs), 0);
	assert_int_equal(m.conv[0].kind, UI_CONV_ROLE);
	assert_string_equal(m.conv[0].text, "user  #1");
	assert_string_equal(m.conv[1].text, "Fix it");
	assert_string_equal(m.conv[2].text, "please ^[[1m");
	for (size_t i = 0; i < m.n_conv; i++) {
		if (m.conv[i].kind == UI_CONV_TOOL_CALL && strstr(m.conv[i].text, "read_file (t1)") &&
		    strstr(m.conv[i].text, "a.c"))
			call = true;
		if (m.conv[i].kind == UI_CONV_TOOL_RESULT && strstr(m.conv[i].text, "t1: int x;"))
			result = true;
		if (m.conv[i].kind == UI_CONV_TOOL_CALL && strstr(m.conv[i].text, "ls (c9)"))
			call2 = true;
		if (m.conv[i].kind == UI_CONV_TOOL_RESULT && strstr(m.conv[i].text, "c9: a.c"))
			result2 = true;
		/* A thinking block: its text, marked; not its JSON or signature. */
		if (strstr(m.conv[i].text, "sig"))
			fail_msg("the thinking block's signature is shown: %s", m.conv[i].text);
		if (!strcmp(m.conv[i].text, "(thinking) Read a.c first"))
			thought = true;
	}
	assert_true(call && result && call2 && result2 && thought);
	/* Narrower panes take more rows; drawing shows the role headers. */
	assert_true(ui_conversation_rows(&m, NULL, 20) >= ui_conversation_rows(&m, NULL, 80));
	fake_reset();
	ui_view_conversation.draw(&ui_view_conversation, &m, &p, (ui_rect){0, 0, 40, 80}, true, now_ms);
	assert_true(fake_shows("assistant  #2"));
	assert_true(fake_shows("please ^[[1m"));
	fake_reset();
	json_decref(msgs);
	ui_model_free(&m);
}

/* The screen drawn so far as one text (each row ended by a newline). */
static char *fake_text(void)
{
	ac_buf all = AC_BUF_INIT;

	for (int i = 0; i < FAKE_ROWS; i++) {
		if (fake_rows[i].data)
			ac_buf_append(&all, fake_rows[i].data, fake_rows[i].len);
		ac_buf_putc(&all, '\n');
	}
	return all.data;
}

/* Messages appended to an open conversation draw as a whole read of the
 * longer history would (numbered on; at the end, the newest in view), the
 * pane counting only the lines added; a rebuilt history is counted anew. */
static void test_conversation_append(void **state)
{
	ui_model grown = {0}, whole = {0};
	ui_pane p = {.follow = true}, fresh = {.follow = true}; /* at the end, as a running session's */
	json_t *all = json_array(), *more = json_array();
	ui_rect r = {0, 0, 30, 40};
	char *a, *b, text[200];

	(void)state;
	for (int i = 0; i < 203; i++) {
		snprintf(text, sizeof(text), "message %d: %s", i + 1,
			 i % 3 ? "short" : "a longer one that wraps over two or three rows of forty");
		json_array_append_new(i < 200 ? all : more,
				      json_pack("{s:s, s:s}", "role", i % 2 ? "assistant" : "user",
						"content", text));
	}
	assert_int_equal(ui_model_set_conversation(&grown, "s1", "t", all), 0);
	fake_reset();
	ui_view_conversation.draw(&ui_view_conversation, &grown, &p, r, true, now_ms);
	assert_true(fake_shows("message 200: "));
	assert_int_equal(ui_model_append_conversation(&grown, "t", more), 0);
	assert_int_equal(grown.n_conv_messages, 203);
	fake_reset();
	ui_view_conversation.draw(&ui_view_conversation, &grown, &p, r, true, now_ms);
	a = fake_text();
	json_array_extend(all, more);
	assert_int_equal(ui_model_set_conversation(&whole, "s1", "t", all), 0);
	fake_reset();
	ui_view_conversation.draw(&ui_view_conversation, &whole, &fresh, r, true, now_ms);
	b = fake_text();
	assert_string_equal(a, b);
	assert_non_null(strstr(a, "user  #203"));
	assert_non_null(strstr(a, "message 203: "));
	free(a);
	free(b);
	/* Rebuilt shorter (a compaction): counted anew, not from the old count. */
	json_array_clear(more);
	json_array_append(more, json_array_get(all, 0));
	assert_int_equal(ui_model_set_conversation(&grown, "s1", "t", more), 0);
	fake_reset();
	ui_view_conversation.draw(&ui_view_conversation, &grown, &p, r, true, now_ms);
	snprintf(text, sizeof(text), "rows 1-%zu of %zu  Esc", ui_conversation_rows(&grown, NULL, 40),
		 ui_conversation_rows(&grown, NULL, 40));
	assert_true(fake_shows(text));
	assert_true(fake_shows("message 1: "));
	assert_false(fake_shows("#203"));
	fake_reset();
	json_decref(all);
	json_decref(more);
	ui_model_free(&grown);
	ui_model_free(&whole);
}

/* ---- the conversation's store tabs -------------------------------------- */

typedef struct {
	char *dir;
	ac_config *config;
	ac_workspace ws;
	ac_backend b;
	ui_model m;
	ui_source *src;
} store_fixture;

static void write_session(const store_fixture *f, const char *id, const char *metadata)
{
	char name[64], *path, *text = NULL;

	path = tu_path(f->dir, ".agent");
	mkdir(path, 0700);
	free(path);
	path = tu_path(f->dir, ".agent/sessions");
	mkdir(path, 0700);
	free(path);
	snprintf(name, sizeof(name), ".agent/sessions/%s.json", id);
	path = tu_path(f->dir, name);
	assert_true(asprintf(&text, "{\"id\":\"%s\",\"createdAt\":\"2024-05-01T10:00:00.000Z\","
			     "\"updatedAt\":\"2024-05-01T10:00:00.000Z\",\"task\":\"t\","
			     "\"status\":\"running\",\"conversationHistory\":[{\"role\":\"user\","
			     "\"content\":\"hi\"}],\"metadata\":%s}",
			     id, metadata) > 0);
	tu_write_file(path, text, strlen(text));
	free(text);
	free(path);
}

static void append_trace(store_fixture *f, const char *json)
{
	json_t *envelope = json_loads(json, 0, NULL);

	assert_non_null(envelope);
	assert_int_equal(f->b.trace.append(f->b.impl, NULL, "acme", "s1", envelope), 0);
	json_decref(envelope);
}

static int store_setup(void **state)
{
	store_fixture *f = calloc(1, sizeof(*f));
	char *sessions, *data;
	ac_backend_fs_options opts = {0};
	const char hostile[] = "remember\tthis\nevil \x1b]0;pwned\x07 \xe2\x80\xae done\n";
	const char *artifact = "line 1\nline 2\n日本語 line 3\nEND\n";

	f->dir = tu_make_temp_dir();
	sessions = tu_path(f->dir, ".agent/sessions");
	data = tu_path(f->dir, ".agent");
	assert_int_equal(ac_config_load(&f->config, f->dir), 0);
	assert_int_equal(ac_workspace_init(&f->ws, f->config), 0);
	opts.sessions_dir = sessions;
	opts.data_dir = data;
	assert_int_equal(ac_backend_fs_init(&f->b, &opts), 0);
	write_session(f, "s1", "{\"tenantId\":\"acme\",\"userId\":\"alice\",\"agentId\":\"Claude\"}");
	write_session(f, "s2", "{\"userId\":\"bob\"}");
	assert_int_equal(f->b.memo.write(f->b.impl, "acme", "s1", "session", "NOTES.md", hostile,
					 sizeof(hostile) - 1), 0);
	assert_int_equal(f->b.memo.write(f->b.impl, "acme", "alice", "user", "USER.md", "likes tea",
					 9), 0);
	assert_int_equal(f->b.memo.write(f->b.impl, "other", "s1", "session", "SECRET.md", "no", 2), 0);
	assert_int_equal(f->b.artifact.write(f->b.impl, "acme", "s1", "call_1", artifact,
					     strlen(artifact)), 0);
	append_trace(f, "{\"type\":\"llm_call\",\"model\":\"m1\"}");
	append_trace(f, "{\"kind\":\"tool\",\"name\":\"read_file\",\"note\":\"\\u001b[31m red\"}");
	assert_int_equal(ui_source_new(&f->src, &f->m, &f->ws), 0);
	free(sessions);
	free(data);
	*state = f;
	return 0;
}

static int store_teardown(void **state)
{
	store_fixture *f = *state;

	ui_source_free(f->src);
	ui_model_free(&f->m);
	ac_backend_close(&f->b);
	ac_workspace_free(&f->ws);
	ac_config_free(f->config);
	tu_remove_tree(f->dir);
	free(f->dir);
	free(f);
	fake_reset();
	return 0;
}

static void test_store_tabs(void **state)
{
	store_fixture *f = *state;
	ui_model *m = &f->m;
	ui_pane p = {.status_filter = -1};
	ui_rect r = {0, 0, 30, 100};

	assert_int_equal(ui_source_open_conversation(f->src, m, "s1"), 0);
	assert_string_equal(ui_source_tenant(f->src), "acme");
	assert_string_equal(m->conv_tenant, "acme");
	assert_null(m->store_note);
	/* Nothing is read before its tab is shown. */
	assert_false(m->memos.loaded || m->artifacts.loaded || m->trace_loaded);

	assert_int_equal(ui_source_load_tab(f->src, m, UI_TAB_MEMORY), 0);
	assert_int_equal(m->memos.n, 2); /* another tenant's document is not listed */
	assert_string_equal(m->memos.items[0].scope, "session");
	assert_string_equal(m->memos.items[0].name, "NOTES.md");
	assert_string_equal(m->memos.items[1].scope, "user");
	assert_string_equal(m->memos.items[1].owner, "alice");
	fake_reset();
	ui_view_memos.draw(&ui_view_memos, m, &p, r, true, now_ms);
	assert_true(fake_shows("[Memory 2]"));
	assert_true(fake_shows("tenant acme"));
	assert_true(fake_shows("NOTES.md"));
	assert_true(fake_shows("USER.md"));

	/* A memo document in full: tabs as spaces, hostile bytes visible. */
	assert_int_equal(ui_source_open_item(f->src, m, UI_TAB_MEMORY, 0), 0);
	assert_int_equal(m->n_doc_lines, 2);
	assert_string_equal(m->doc_lines[0], "remember    this");
	assert_string_equal(m->doc_lines[1], "evil ^[]0;pwned^G <U+202E> done");
	p = (ui_pane){.status_filter = -1};
	fake_reset();
	ui_view_document.draw(&ui_view_document, m, &p, r, true, now_ms);
	assert_true(fake_shows("memo session/s1/NOTES.md"));
	assert_true(fake_shows("evil ^[]0;pwned^G <U+202E> done"));
	for (int y = 0; y < FAKE_ROWS; y++)
		assert_null(fake_rows[y].data ? memchr(fake_rows[y].data, 0x1b, fake_rows[y].len) : NULL);
	ui_model_close_document(m);

	assert_int_equal(ui_source_load_tab(f->src, m, UI_TAB_ARTIFACTS), 0);
	assert_int_equal(m->artifacts.n, 1);
	assert_int_equal(ui_source_open_item(f->src, m, UI_TAB_ARTIFACTS, 0), 0);
	assert_int_equal(m->n_doc_lines, 4);
	assert_string_equal(m->doc_lines[3], "END");
	assert_int_equal(ui_document_rows(m, NULL, 80), 4);
	assert_int_equal(ui_source_open_item(f->src, m, UI_TAB_ARTIFACTS, 5), AC_EINVAL);

	/* The trace: everything once, then only what is appended. */
	assert_int_equal(ui_source_load_tab(f->src, m, UI_TAB_TRACE), 0);
	assert_int_equal(m->n_trace, 2);
	assert_int_equal(m->trace_seq, 2);
	assert_string_equal(m->trace[0].kind, "llm_call");
	assert_string_equal(m->trace[1].kind, "tool");
	assert_non_null(strstr(m->trace[1].summary, "\"note\":\"\\u001B[31m red\""));
	assert_int_equal(ui_source_update(f->src, m, AC_WATCH_TRACES), 0);
	append_trace(f, "{\"event\":\"done\",\"text\":\"修复 🚀\"}");
	assert_int_equal(ui_source_update(f->src, m, AC_WATCH_TRACES) & UI_CHANGED_TRACE,
			 UI_CHANGED_TRACE);
	assert_int_equal(m->n_trace, 3);
	assert_int_equal(m->trace[2].seq, 3);
	assert_string_equal(m->trace[2].kind, "done");
	for (int w = 30; w <= 130; w += 7) {
		for (size_t i = 0; i < m->n_trace; i++) {
			ac_buf row = AC_BUF_INIT;
			int ax, aw;

			ui_view_trace.row(&row, m, i, w, now_ms, &ax, &aw);
			assert_int_equal(ui_text_width(row.data, row.len), w);
			assert_true(valid_utf8(row.data, row.len));
			ac_buf_free(&row);
		}
	}
	/* The session file changes: the store tabs stay as they are. */
	write_session(f, "s1", "{\"tenantId\":\"acme\",\"userId\":\"alice\"}");
	ui_source_update(f->src, m, AC_WATCH_SESSIONS);
	assert_int_equal(m->n_trace, 3);
	assert_true(m->trace_loaded);
	p = (ui_pane){.status_filter = -1, .follow = true};
	fake_reset();
	ui_view_trace.draw(&ui_view_trace, m, &p, r, true, now_ms);
	assert_true(fake_shows("[Trace 3]"));
	assert_true(fake_shows("llm_call"));
	assert_true(fake_shows("修复 🚀"));
	assert_int_equal(p.cursor, 2); /* following the newest */
}

static void test_store_without_tenant(void **state)
{
	store_fixture *f = *state;
	ui_model *m = &f->m;
	ui_pane p = {.status_filter = -1};

	assert_int_equal(ui_source_open_conversation(f->src, m, "s2"), 0);
	assert_null(ui_source_tenant(f->src));
	assert_non_null(m->store_note);
	assert_int_equal(ui_source_load_tab(f->src, m, UI_TAB_MEMORY), 0);
	assert_int_equal(m->memos.n, 0);
	fake_reset();
	ui_view_artifacts.draw(&ui_view_artifacts, m, &p, (ui_rect){0, 0, 20, 120}, true, now_ms);
	assert_true(fake_shows("no metadata.tenantId"));
	assert_true(fake_shows("no tenant"));
	/* An unusable tenant id is said as such, and nothing is read. */
	write_session(f, "s2", "{\"tenantId\":\"../acme\"}");
	assert_int_equal(ui_source_open_conversation(f->src, m, "s2"), 0);
	assert_null(ui_source_tenant(f->src));
	assert_non_null(strstr(m->store_note, "not a usable tenant id"));
}

/* ---- themes and keys --------------------------------------------------- */

static void test_theme_parse(void **state)
{
	ui_theme t;
	char err[256];
	const char good[] = "# comment\n\nselected = black bright-cyan bold reverse\nrunning=196 default\n";
	const char bad[] = "normal = default default\nsparkles = red blue\n";
	const char bad_color[] = "normal = mauve default\n";

	(void)state;
	assert_int_equal(ui_theme_parse(&t, "x", good, sizeof(good) - 1, err, sizeof(err)), 0);
	assert_int_equal(t.style[UI_ST_SELECTED].fg, 0);
	assert_int_equal(t.style[UI_ST_SELECTED].bg, 14);
	assert_int_equal(t.style[UI_ST_SELECTED].attrs, UI_ATTR_BOLD | UI_ATTR_REVERSE);
	assert_int_equal(t.style[UI_ST_RUNNING].fg, 196);
	assert_int_equal(ui_theme_parse(&t, "x", bad, sizeof(bad) - 1, err, sizeof(err)), -1);
	assert_string_equal(err, "line 2: unknown element 'sparkles'");
	assert_int_equal(ui_theme_parse(&t, "x", bad_color, sizeof(bad_color) - 1, err, sizeof(err)), -1);
	assert_string_equal(err, "line 1: unknown colour 'mauve'");
	ui_theme_strip_colors(&t);
	for (int i = 0; i < UI_ST_COUNT; i++)
		assert_int_equal(t.style[i].fg, UI_COLOR_DEFAULT);
}

static void test_theme_files(void **state)
{
	char themes[4096];
	const char *dirs[] = {themes, NULL};
	const char *names[] = {"dark", "light", "high-contrast", "monochrome"};
	char *found[16], err[600];
	size_t n;
	ui_theme t;

	(void)state;
	/* The source tree's themes/, beside this file's tests/. */
	snprintf(themes, sizeof(themes), "%s", __FILE__);
	*strrchr(themes, '/') = '\0';
	strcat(themes, "/../themes");
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(ui_theme_load(&t, names[i], dirs, true, err, sizeof(err)), 0);
		assert_string_equal(t.name, names[i]);
	}
	n = ui_theme_list(found, 16, dirs);
	assert_true(n >= 4);
	for (size_t i = 0; i < n; i++)
		free(found[i]);
	assert_int_equal(ui_theme_load(&t, "no-such", dirs, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no-such"));
	assert_int_equal(ui_theme_load(&t, "../etc", dirs, true, err, sizeof(err)), -1);
}

static void test_broken_theme_file(void **state)
{
	char *dir = tu_make_temp_dir(), *path = tu_path(dir, "bad.theme"), err[600], want[700];
	const char *dirs[] = {dir, NULL};
	ui_theme t, def;

	(void)state;
	tu_write_file(path, "normal = default default\n\ntitle = purple\n", 42);
	assert_int_equal(ui_theme_load(&t, "bad", dirs, true, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:3: 'title' needs a foreground and a background colour", path);
	assert_string_equal(err, want);
	ui_theme_default(&def);
	assert_memory_equal(&t, &def, sizeof(t)); /* the default is used */
	tu_remove_tree(dir);
	free(path);
	free(dir);
}

/* Issue 23 item 5: a theme path is opened only when its source may give
 * one, never waits on a FIFO, and reads a regular file of bounded size. */
static void test_theme_paths(void **state)
{
	char *dir = tu_make_temp_dir(), *fifo = tu_path(dir, "fifo.theme"),
	     *big = tu_path(dir, "big.theme"), *good = tu_path(dir, "good.theme"), err[600];
	const char *dirs[] = {dir, NULL};
	char *text = malloc(UI_THEME_MAX_BYTES + 2);
	ui_theme t;

	(void)state;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	tu_write_file(good, "title = red default\n", 20);
	/* From the project file: a name only, whatever the path holds. */
	assert_int_equal(ui_theme_load(&t, good, dirs, false, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "a path, not a theme name"));
	assert_non_null(strstr(err, good));
	assert_int_equal(ui_theme_load(&t, "/etc/shadow", dirs, false, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'/etc/shadow': a path"));
	assert_int_equal(ui_theme_load(&t, "good", dirs, false, err, sizeof(err)), 0);
	/* From the operator: a regular file, not a FIFO (by path or by name). */
	assert_int_equal(ui_theme_load(&t, good, dirs, true, err, sizeof(err)), 0);
	assert_string_equal(t.name, "good");
	assert_int_equal(ui_theme_load(&t, fifo, dirs, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(ui_theme_load(&t, "fifo", dirs, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(ui_theme_load(&t, "/dev/zero", dirs, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));
	memset(text, '#', UI_THEME_MAX_BYTES + 1);
	for (size_t i = 63; i < UI_THEME_MAX_BYTES + 1; i += 64)
		text[i] = '\n';
	tu_write_file(big, text, UI_THEME_MAX_BYTES + 1);
	assert_int_equal(ui_theme_load(&t, big, dirs, true, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "larger than"));
	tu_write_file(big, text, UI_THEME_MAX_BYTES);
	assert_int_equal(ui_theme_load(&t, big, dirs, true, err, sizeof(err)), 0);
	tu_remove_tree(dir);
	free(text);
	free(fifo);
	free(big);
	free(good);
	free(dir);
}

static void test_keys(void **state)
{
	size_t n;
	const ui_key *k = ui_keys(&n);

	(void)state;
	assert_true(n > 20);
	assert_ptr_equal(ui_key_find('q', UI_PANE_SESSIONS)->handler,
			 ui_key_find('q', UI_PANE_HELP)->handler);
	assert_non_null(ui_key_find('R', UI_PANE_OPS));
	assert_non_null(ui_key_find('4', UI_PANE_CONV));
	assert_non_null(ui_key_find(UI_KEY_PGDN, UI_PANE_JOURNAL));
	assert_ptr_equal(ui_key_find(']', UI_PANE_MEMO), ui_key_find(UI_KEY_RIGHT, UI_PANE_TRACE));
	assert_ptr_not_equal(ui_key_find(']', UI_PANE_MEMO), ui_key_find('[', UI_PANE_MEMO));
	/* Where a key does not apply it is nobody's. */
	assert_null(ui_key_find(']', UI_PANE_SESSIONS));
	assert_null(ui_key_find('R', UI_PANE_SESSIONS));
	assert_null(ui_key_find('s', UI_PANE_OPS));
	assert_null(ui_key_find('y', UI_PANE_SESSIONS));
	assert_null(ui_key_find('Z', UI_PANE_SESSIONS));
	/* In a dialog only its keys (and C-l) are. */
	assert_null(ui_key_find('p', UI_PANE_DIALOG));
	assert_null(ui_key_find('1', UI_PANE_DIALOG));
	assert_non_null(ui_key_find(UI_KEY_ESC, UI_PANE_DIALOG));
	assert_ptr_not_equal(ui_key_find(UI_KEY_ESC, UI_PANE_DIALOG),
			     ui_key_find(UI_KEY_ESC, UI_PANE_SESSIONS));
	for (size_t i = 0; i < n; i++) {
		assert_non_null(k[i].doc.label);
		assert_non_null(k[i].doc.help);
		assert_non_null(k[i].handler);
		assert_true(k[i].keys[0] != 0);
		assert_true(k[i].doc.panes != 0);
		assert_true(k[i].reaction != 0);
	}
}

/* ---- the key table in use ------------------------------------------------ */

#define JSEARCH_EVENT(n) "{\"id\":\"evt_20250903142514_0000000" #n "\",\"timestamp\":" \
	"\"2025-09-03T14:25:14.302Z\",\"agent\":\"Claude\",\"status\":\"SUCCESS\",\"action\":" \
	"{\"type\":\"CMD_RUN\",\"params\":{}},\"result\":{\"message\":\"m" #n "\"}}\n"
#define JSEARCH_EVENTS JSEARCH_EVENT(1) JSEARCH_EVENT(2)

/* What a key may change: compared before and after dispatching it. */
typedef struct {
	ui_pane_id shown, current, pane;
	bool conv_open, help_open, filtering, quit, doc_open;
	bool searching, follow_sel, viewer_open, search_open, search_running;
	ui_tab tab;
	ui_pane panes[UI_PANE_COUNT];
	char action[sizeof(((ui_model *)0)->action)];
	char theme[sizeof(((ui_theme *)0)->name)];
} dash_snapshot;

static void snapshot(dash_snapshot *out, const ui_dash *d)
{
	memset(out, 0, sizeof(*out));
	out->shown = ui_dash_shown(d);
	out->current = ui_dash_current(d);
	out->pane = d->pane;
	out->conv_open = ui_dash_is_open(d, &ui_overlay_conversation);
	out->help_open = ui_dash_is_open(d, &ui_overlay_help);
	out->filtering = ui_dash_is_open(d, &ui_overlay_filter);
	out->quit = d->quit;
	out->doc_open = d->m.doc_title != NULL;
	out->searching = ui_dash_is_open(d, &ui_overlay_search);
	out->follow_sel = d->follow_sel;
	out->viewer_open = d->m.viewer.title != NULL;
	out->search_open = d->m.search.query != NULL;
	out->search_running = d->m.search.running;
	out->tab = d->tab;
	for (int i = 0; i < UI_PANE_COUNT; i++) {
		ui_pane *p = &out->panes[i];

		p->cursor = d->panes[i].cursor;
		p->top = d->panes[i].top;
		p->follow = d->panes[i].follow;
		p->status_filter = d->panes[i].status_filter;
		p->sort = d->panes[i].sort;
		memcpy(p->session, d->panes[i].session, sizeof(p->session));
		memcpy(p->filter, d->panes[i].filter, sizeof(p->filter));
	}
	memcpy(out->action, d->m.action, sizeof(out->action));
	memcpy(out->theme, d->theme.name, sizeof(out->theme));
}

/* Where keys go: a line being typed (its own keys), else the pane. */
static ui_pane_id keys_pane(const ui_dash *d)
{
	if (ui_dash_is_open(d, &ui_overlay_filter))
		return UI_PANE_FILTER_LINE;
	if (ui_dash_is_open(d, &ui_overlay_search))
		return UI_PANE_SEARCH_LINE;
	return ui_dash_current(d);
}

/* A key as the dashboard's input passes it on (a line's own keys only
 * while it is typed: dashboard.c, overlays.c). */
static unsigned dispatch(ui_dash *d, int key)
{
	ui_pane_id pane = keys_pane(d);

	return pane == UI_PANE_FILTER_LINE || pane == UI_PANE_SEARCH_LINE
	       ? ui_keys_dispatch_in(d, pane, key) : ui_keys_dispatch(d, key);
}

static bool changed_by(ui_dash *d, int key, unsigned *reaction)
{
	dash_snapshot before, after;

	snapshot(&before, d);
	*reaction = dispatch(d, key);
	snapshot(&after, d);
	return memcmp(&before, &after, sizeof(before)) != 0;
}

/* Puts d in pane, from a fresh start: Sessions, nothing open, no filter,
 * no message. */
static void enter(ui_dash *d, ui_pane_id pane)
{
	ui_dialog_close(&d->dlg, &d->m);
	ui_jsearch_close(&d->js, &d->m);
	ui_dash_switch_pane(d, UI_PANE_SESSIONS);
	for (int i = 0; i < UI_PANE_COUNT; i++)
		d->panes[i] = (ui_pane){.status_filter = -1, .list_rows = 10};
	ui_overlay_remove(&d->open, &ui_overlay_filter);
	ui_overlay_remove(&d->open, &ui_overlay_search);
	d->quit = d->follow_sel = false;
	d->m.action[0] = '\0';
	switch (pane) {
	case UI_PANE_OPS: case UI_PANE_CKPTS: case UI_PANE_JOURNAL:
		ui_dash_switch_pane(d, pane);
		break;
	case UI_PANE_CONV: case UI_PANE_MEMO: case UI_PANE_ARTIFACTS: case UI_PANE_TRACE:
	case UI_PANE_DOC:
		ui_dash_open_conversation(d, "s1");
		if (pane == UI_PANE_CONV)
			break;
		ui_dash_open_tab(d, pane == UI_PANE_MEMO || pane == UI_PANE_DOC ? UI_TAB_MEMORY
				 : pane == UI_PANE_ARTIFACTS ? UI_TAB_ARTIFACTS : UI_TAB_TRACE);
		if (pane == UI_PANE_DOC) {
			assert_int_equal(ui_source_open_item(d->src, &d->m, UI_TAB_MEMORY, 0), 0);
			ui_overlay_push(&d->open, &ui_overlay_doc);
		}
		break;
	case UI_PANE_HELP:
		ui_overlay_push(&d->open, &ui_overlay_help);
		break;
	case UI_PANE_JSEARCH: /* two matches in the journal */
		ui_dash_switch_pane(d, UI_PANE_JOURNAL);
		tu_write_file(d->ws->journal_path, JSEARCH_EVENTS, strlen(JSEARCH_EVENTS));
		assert_int_equal(ui_jsearch_start(&d->js, &d->m, d->ws, "agent=Claude"), 0);
		while (d->m.search.running)
			ui_jsearch_step(d->js, &d->m, 10);
		assert_int_equal(d->m.search.n, 2);
		break;
	case UI_PANE_VIEWER:
		ui_model_viewer_open(&d->m, "a text");
		for (int i = 0; i < 40; i++)
			ui_model_viewer_line(&d->m, "line %d", i);
		ui_overlay_push(&d->open, &ui_overlay_viewer);
		break;
	case UI_PANE_PATCH:
		ui_dash_switch_pane(d, UI_PANE_OPS);
		ui_patch_open(&d->m, d->ws, "op-1");
		ui_overlay_push(&d->open, &ui_overlay_patch);
		break;
	case UI_PANE_LOG:
		ui_overlay_push(&d->open, &ui_overlay_log);
		break;
	case UI_PANE_DIALOG: /* y may have paused it already: then resuming */
		ui_act_plan_status(&d->dlg, d->ws, &d->m, "s2", "paused");
		if (d->dlg.kind == UI_DLG_NONE)
			ui_act_plan_status(&d->dlg, d->ws, &d->m, "s2", "running");
		break;
	case UI_PANE_FILTER_LINE:
		ui_overlay_push(&d->open, &ui_overlay_filter);
		break;
	case UI_PANE_SEARCH_LINE:
		ui_dash_switch_pane(d, UI_PANE_JOURNAL);
		ui_drill_search(d, 'S');
		break;
	default:
		break;
	}
	assert_int_equal(keys_pane(d), pane);
}

static ui_dash test_dash; /* large (the journal ring): not on the stack */

#define OP_LINE "{\"id\":\"op-1\",\"timestamp\":\"2024-05-01T10:00:00.000Z\",\"sessionId\":" \
		"\"s1\",\"type\":\"command_run\",\"details\":{\"command\":\"make\"}}\n"

static int dash_setup(void **state)
{
	store_fixture *f;

	store_setup(state);
	f = *state;
	/* Two artifacts, so that moving in their list moves. */
	assert_int_equal(f->b.artifact.write(f->b.impl, "acme", "s1", "call_2", "x\n", 2), 0);
	/* One operation, without a commit: Enter opens its patch saying so. */
	tu_write_file(f->ws.operations_path, OP_LINE, strlen(OP_LINE));
	ui_dash_init(&test_dash, &f->ws, false);
	assert_int_equal(ui_source_new(&test_dash.src, &test_dash.m, &f->ws), 0);
	ui_keys_describe(&test_dash.m);
	return 0;
}

static int dash_teardown(void **state)
{
	ui_dash_free(&test_dash);
	return store_teardown(state);
}

/* Every key a pane's hint line shows is handled there: dispatched through
 * the table, at least one of its keys changes what the dashboard shows
 * (1-4 in pane 1 stays put; 2 moves). No hinted key is a no-op. */
static void test_hinted_keys_are_handled(void **state)
{
	ui_dash *d = &test_dash;
	size_t n;
	const ui_key *k = ui_keys(&n);

	(void)state;
	for (int pane = 0; pane < UI_PANE_COUNT; pane++) {
		ac_buf hints = AC_BUF_INIT;
		size_t shown = 0;

		ui_keys_hints(&hints, (ui_pane_id)pane, false);
		for (size_t i = 0; i < n; i++) {
			bool any = false;

			if (!ui_key_hinted(&k[i], (ui_pane_id)pane, false))
				continue;
			shown++;
			assert_non_null(strstr(hints.data, k[i].hint));
			assert_ptr_equal(ui_key_find(k[i].keys[0], (ui_pane_id)pane), &k[i]);
			for (size_t j = 0; j < 4 && k[i].keys[j]; j++) {
				unsigned reaction;

				enter(d, (ui_pane_id)pane);
				/* Not for the selected row: refused, saying why. */
				if (k[i].applies && k[i].applies(d, NULL) == UI_KEY_REFUSED) {
					assert_int_equal(dispatch(d, k[i].keys[j]), UI_REDRAW);
					assert_non_null(strstr(d->m.action, k[i].hint));
					any = true;
				} else if (changed_by(d, k[i].keys[j], &reaction)) {
					assert_int_equal(reaction, k[i].reaction);
					any = true;
				}
			}
			if (!any) {
				ac_buf_free(&hints);
				fail_msg("'%s' is shown in %s but changes nothing", k[i].hint,
					 ui_pane_name((ui_pane_id)pane));
			}
		}
		ac_buf_free(&hints);
		assert_true(shown >= 2); /* every pane says at least how to leave it */
	}
}

/* A key not in the table, or not for this pane, does nothing. */
static void test_unbound_keys_do_nothing(void **state)
{
	ui_dash *d = &test_dash;
	const int keys[] = {'Z', 'x', ' ', 'R', ']', 'y', 0};
	const ui_pane_id panes[] = {UI_PANE_SESSIONS, UI_PANE_JOURNAL, UI_PANE_HELP};

	(void)state;
	for (size_t p = 0; p < sizeof(panes) / sizeof(panes[0]); p++)
		for (size_t i = 0; keys[i]; i++) {
			unsigned reaction;

			enter(d, panes[p]);
			assert_false(changed_by(d, keys[i], &reaction));
			assert_int_equal(reaction, 0);
		}
	/* In a dialog, p and 1 are not commands; Esc cancels it. */
	enter(d, UI_PANE_DIALOG);
	assert_int_equal(ui_keys_dispatch(d, 'p'), 0);
	assert_int_equal(ui_keys_dispatch(d, '1'), 0);
	assert_int_equal(ui_dash_current(d), UI_PANE_DIALOG);
	assert_non_null(d->m.dialog_title);
	assert_int_equal(ui_keys_dispatch(d, UI_KEY_ESC), UI_REDRAW);
	assert_null(d->m.dialog_title);
	assert_string_equal(d->m.action, "cancelled; nothing was changed");
	/* C-l repaints the terminal; q quits. */
	enter(d, UI_PANE_SESSIONS);
	fake_repaints = 0;
	assert_true(ui_keys_dispatch(d, UI_KEY_CTRL_L) & UI_REPAINT);
	assert_int_equal(fake_repaints, 1);
	assert_int_equal(ui_keys_dispatch(d, 'q'), UI_QUIT);
	assert_true(d->quit);
}

/* The hint lines of two panes, and read-only mode: what writes is neither
 * shown nor done. */
static void test_hint_lines(void **state)
{
	ui_dash *d = &test_dash;
	ac_buf b = AC_BUF_INIT;

	(void)state;
	ui_keys_hints(&b, UI_PANE_SESSIONS, false);
	assert_non_null(strstr(b.data, "1-4/Tab panes"));
	assert_non_null(strstr(b.data, "s status"));
	assert_non_null(strstr(b.data, "p pause"));
	assert_null(strstr(b.data, "R rollback"));
	assert_null(strstr(b.data, "[ ] tab"));
	ac_buf_clear(&b);
	ui_keys_hints(&b, UI_PANE_OPS, false);
	assert_non_null(strstr(b.data, "R rollback"));
	assert_null(strstr(b.data, "s status"));
	assert_null(strstr(b.data, "p pause"));
	ac_buf_clear(&b);
	ui_keys_hints(&b, UI_PANE_CONV, false);
	assert_non_null(strstr(b.data, "[ ] tab"));
	assert_non_null(strstr(b.data, "Esc back"));
	assert_null(strstr(b.data, "Enter open")); /* Messages opens nothing */
	ac_buf_clear(&b);
	ui_keys_hints(&b, UI_PANE_DIALOG, false);
	assert_non_null(strstr(b.data, "y confirm"));
	assert_null(strstr(b.data, "q quit"));
	ac_buf_clear(&b);
	ui_keys_hints(&b, UI_PANE_SESSIONS, true);
	assert_null(strstr(b.data, "p pause"));
	assert_non_null(strstr(b.data, "read-only"));
	ac_buf_free(&b);

	d->m.read_only = true;
	enter(d, UI_PANE_SESSIONS);
	assert_int_equal(ui_keys_dispatch(d, 'p'), UI_REDRAW);
	assert_int_equal(ui_dash_current(d), UI_PANE_SESSIONS); /* no dialog */
	assert_non_null(strstr(d->m.action, "read-only"));
	d->m.read_only = false;
}

/* The hint line as drawn offers only the keys that apply to the selected
 * row, and such a key pressed anyway is refused with its reason: a running
 * session offers p, not r or a; a transcript a, not p, r or c; an
 * operation without a commit neither R nor v. */
static void test_hints_follow_the_row(void **state)
{
	ui_dash *d = &test_dash;
	ui_transcript_row tr = {.id = "cx-1", .task = "codex task", .created = "", .updated = "",
				.source = "codex", .state = AC_STATE_IDLE};
	ac_buf b = AC_BUF_INIT;

	(void)state;
	enter(d, UI_PANE_SESSIONS);
	snprintf(d->panes[UI_PANE_SESSIONS].sel, sizeof(d->panes[UI_PANE_SESSIONS].sel), "s1");
	ui_keys_hints_for(&b, NULL, d);
	assert_non_null(strstr(b.data, "p pause"));
	assert_null(strstr(b.data, "r resume"));
	assert_null(strstr(b.data, "a attach"));
	assert_int_equal(ui_keys_dispatch(d, 'r'), UI_REDRAW);
	assert_non_null(strstr(d->m.action, "r resume: s1 is running"));
	assert_null(d->m.dialog_title);
	/* A transcript. */
	assert_true(ui_model_set_transcripts(&d->m, &tr, 1));
	snprintf(d->panes[UI_PANE_SESSIONS].sel, sizeof(d->panes[UI_PANE_SESSIONS].sel), "cx-1");
	ac_buf_clear(&b);
	ui_keys_hints_for(&b, NULL, d);
	assert_non_null(strstr(b.data, "a attach"));
	assert_null(strstr(b.data, "p pause"));
	assert_null(strstr(b.data, "r resume"));
	assert_null(strstr(b.data, "c compact"));
	assert_int_equal(ui_keys_dispatch(d, 'c'), UI_REDRAW);
	assert_non_null(strstr(d->m.action, "c compact: cx-1 is a codex session, a read-only source"));
	assert_null(d->m.dialog_title);
	assert_true(ui_model_set_transcripts(&d->m, NULL, 0));
	/* An operation without a commit. */
	enter(d, UI_PANE_OPS);
	ac_buf_clear(&b);
	ui_keys_hints_for(&b, NULL, d);
	assert_null(strstr(b.data, "R rollback"));
	assert_null(strstr(b.data, "v revert"));
	assert_int_equal(ui_keys_dispatch(d, 'R'), UI_REDRAW);
	assert_non_null(strstr(d->m.action, "R rollback: operation"));
	assert_non_null(strstr(d->m.action, "has no commit"));
	ac_buf_free(&b);
}

/* The help screen lists the table: every key once, under a heading naming
 * the panes where it applies, and nothing else. */
static void test_help_is_the_table(void **state)
{
	ui_dash *d = &test_dash;
	size_t n, keys = 0, headings = 0, masks = 0;
	const ui_key *k = ui_keys(&n);
	ac_buf line = AC_BUF_INIT;
	unsigned heading_panes = 0;
	ui_help_kind kind;

	(void)state;
	assert_int_equal(d->m.n_keys, n);
	for (size_t i = 0; i < n; i++) {
		bool first = true;

		for (size_t j = 0; j < i; j++)
			if (k[j].doc.panes == k[i].doc.panes)
				first = false;
		masks += first;
	}
	for (size_t i = 0; (kind = ui_help_line(&line, &d->m, i, 1000)) != UI_HELP_END; i++) {
		if (kind == UI_HELP_HEADING) {
			ac_buf next = AC_BUF_INIT;

			/* A heading is followed by a key: the group's panes are its. */
			headings++;
			heading_panes = 0;
			assert_int_equal(ui_help_line(&next, &d->m, i + 1, 1000), UI_HELP_KEY);
			for (size_t t = 0; t < n; t++)
				if (strstr(next.data, k[t].doc.help))
					heading_panes = k[t].doc.panes;
			ac_buf_free(&next);
		} else {
			size_t found = 0;

			for (size_t t = 0; t < n; t++) {
				if (strstr(line.data, k[t].doc.help) && strstr(line.data, k[t].doc.label)) {
					found++;
					/* The row sits under the heading of its panes. */
					assert_int_equal(k[t].doc.panes, heading_panes);
				}
			}
			assert_int_equal(found, 1);
			keys++;
		}
		ac_buf_clear(&line);
	}
	assert_int_equal(keys, n);
	assert_int_equal(headings, masks);
	ac_buf_free(&line);
	/* And the pane draws it. */
	fake_reset();
	ui_view_help.draw(&ui_view_help, &d->m, &d->panes[UI_PANE_HELP], (ui_rect){0, 0, 59, 200},
			  true, now_ms);
	assert_true(fake_shows("Everywhere:"));
	assert_true(fake_shows("roll back to the selected operation"));
	fake_reset();
}

/* The message log keeps each status message whole and sanitised, the
 * newest UI_MODEL_LOG of them; the status line's copy says it was cut. */
static void test_message_log(void **state)
{
	static ui_model m;
	char longer[800];

	(void)state;
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	memcpy(longer + 600, "\x1b[31mEND", 8);
	ui_model_set_action(&m, true, "%s", longer);
	assert_int_equal(m.n_log, 1);
	assert_true(m.action_cut);
	assert_true(ui_model_log_entry(&m, 0)->error);
	assert_true(strlen(ui_model_log_entry(&m, 0)->text) >= sizeof(longer) - 1);
	assert_null(strchr(ui_model_log_entry(&m, 0)->text, '\x1b'));
	assert_non_null(strstr(ui_model_log_entry(&m, 0)->text, "END"));
	for (int i = 0; i < UI_MODEL_LOG + 99; i++)
		ui_model_set_action(&m, false, "message %d", i);
	assert_false(m.action_cut);
	assert_int_equal(m.n_log, UI_MODEL_LOG);
	assert_string_equal(ui_model_log_entry(&m, 0)->text, "message 99");
	assert_string_equal(ui_model_log_entry(&m, UI_MODEL_LOG - 1)->text, "message 598");
	ui_model_free(&m);
	assert_int_equal(m.n_log, 0);
}

static void test_ages_and_counts(void **state)
{
	char out[16];

	(void)state;
	ui_fmt_age(out, sizeof(out), "2024-05-01T10:01:00.000Z", now_ms);
	assert_string_equal(out, "30s");
	ui_fmt_age(out, sizeof(out), "2024-04-30T10:01:30.000Z", now_ms);
	assert_string_equal(out, "1d");
	ui_fmt_age(out, sizeof(out), "garbage", now_ms);
	assert_string_equal(out, "-");
	ui_fmt_count(out, sizeof(out), 999);
	assert_string_equal(out, "999");
	ui_fmt_count(out, sizeof(out), 45678);
	assert_string_equal(out, "45k");
	ui_fmt_clock(out, "2024-05-01T10:01:00.000Z");
	assert_string_equal(out, "10:01:00");
}

/* A number column is dropped, or its cell marked, never cut to its first
 * digits (issue 27: TOKENS 319 shown as "31" at 40 columns); the lowest
 * kept column goes first, the first column stays, a flex column takes
 * the room left; counts abbreviate in at most 4 characters. */
static void test_number_columns(void **state)
{
	const ui_column cols[] = {{10, 1, 9, false}, {4, 1, 8, true}, {5, 1, 5, false},
				  {6, 1, 6, false}, {5, 0, 7, false}};
	int w[5];
	char out[16];
	ac_buf b = AC_BUF_INIT;
	ui_model m = {0};
	ac_session_summary one = summary("s-num", "a task", "running");

	(void)state;
	assert_int_equal(ui_columns_fit(w, cols, 5, 80), 5);
	assert_int_equal(w[1], 80 - 10 - 1 - 1 - 5 - 1 - 6 - 1 - 5);
	assert_int_equal(w[2], 5);
	assert_int_equal(ui_columns_fit(w, cols, 5, 30), 4); /* the lowest kept goes */
	assert_int_equal(w[2], 0);
	assert_int_equal(w[3], 6);
	assert_int_equal(w[1], 6);
	assert_int_equal(ui_columns_fit(w, cols, 5, 22), 3); /* then the next */
	assert_int_equal(w[2], 0);
	assert_int_equal(w[3], 0);
	assert_int_equal(w[4], 5);
	assert_int_equal(w[1], 5);
	assert_int_equal(ui_columns_fit(w, cols, 5, 3), 1); /* the first stays */
	assert_int_equal(w[0], 10);
	/* Abbreviations: 4 characters at most, at every magnitude. */
	ui_fmt_count(out, sizeof(out), 9960);
	assert_string_equal(out, "10k");
	ui_fmt_count(out, sizeof(out), 3456);
	assert_string_equal(out, "3.5k");
	ui_fmt_count(out, sizeof(out), 1234567890);
	assert_string_equal(out, "1.2G");
	ui_fmt_count(out, sizeof(out), 999999999999ULL);
	assert_string_equal(out, "999G");
	ui_fmt_count(out, sizeof(out), UINT64_MAX);
	assert_string_equal(out, "18E");
	/* A count: exact when it fits, abbreviated, else marked. */
	ui_col_count(&b, 123456, true, 5, 0);
	assert_string_equal(b.data, " 123k");
	ac_buf_clear(&b);
	ui_col_count(&b, 319, true, 5, 0);
	assert_string_equal(b.data, "  319");
	ac_buf_clear(&b);
	ui_col_count(&b, 12345, true, 2, 0);
	assert_string_equal(b.data, " \xe2\x80\xa6");
	ac_buf_free(&b);
	/* The Sessions row at every width: TOKENS shown whole or not at all. */
	one.tokens = 319;
	one.messages = 123456;
	set_sessions(&m, &one, 1);
	for (int width = 24; width <= 200; width++) {
		ac_buf row = AC_BUF_INIT, head = AC_BUF_INIT;
		int ax, aw;
		const char *tok;

		ui_view_sessions.row(&row, &m, 0, width, now_ms, &ax, &aw);
		ui_view_sessions.header(&head, &m, width);
		assert_int_equal(ui_text_width(row.data, row.len), width);
		tok = strstr(head.data, "TOKENS");
		assert_true((tok != NULL) == (strstr(row.data, " 319 ") != NULL ||
					      (strlen(row.data) >= 3 &&
					       !strcmp(row.data + strlen(row.data) - 3, "319"))));
		assert_null(strstr(row.data, " 31 "));
		assert_null(strstr(row.data, "12345"));
		if (strstr(head.data, "MSGS"))
			assert_non_null(strstr(row.data, "123k"));
		ac_buf_free(&row);
		ac_buf_free(&head);
	}
	ui_model_free(&m);
}

/* A dialog is as wide as the terminal, wraps a long line instead of
 * cutting it, and scrolls a plan taller than the screen to its end (the
 * top is clamped there), saying which rows are shown. */
static void test_dialog_wraps_and_scrolls(void **state)
{
	ui_model m = {0};
	ui_pane p = {0};
	bool cut = false;

	(void)state;
	ui_model_dialog_title(&m, "Roll the workspace back to before operation %s?",
			      "11111111-2222-4333-8444-555555555555");
	ui_model_dialog_line(&m, "120 to remove, 0 to restore, 1 to change; the current state is "
			     "committed first (nothing is lost)");
	for (int i = 1; i <= 120; i++)
		ui_model_dialog_line(&m, "  remove  many/path-%03d.txt", i);
	fake_reset();
	ui_dialog_draw(&m, &p, 24, 80);
	assert_true(fake_shows("11111111-2222-4333-8444-555555555555?"));
	assert_true(fake_shows("(nothing is lost)"));
	assert_true(fake_shows("path-001.txt"));
	assert_false(fake_shows("path-120.txt"));
	assert_true(fake_shows("-- rows 1-"));
	assert_true(fake_shows("y: do it"));
	for (int i = 0; i < FAKE_ROWS; i++)
		if (fake_rows[i].data && strstr(fake_rows[i].data, "\xe2\x80\xa6"))
			cut = true;
	assert_false(cut);
	assert_true(p.list_rows > 0 && p.list_rows < 24);

	p.top = SIZE_MAX / 2; /* G */
	fake_reset();
	ui_dialog_draw(&m, &p, 24, 80);
	assert_true(fake_shows("path-120.txt"));
	assert_true(fake_shows("of 122;")); /* 2 rows for the long line, 120 paths */
	assert_int_equal(p.top, 122 - (size_t)p.list_rows);
	assert_true(fake_shows("y: do it"));

	/* One that fits has no scrolling line. */
	ui_model_dialog_title(&m, "Compact session s1?");
	ui_model_dialog_line(&m, "messages after: 9");
	p.top = 0;
	fake_reset();
	ui_dialog_draw(&m, &p, 24, 80);
	assert_true(fake_shows("messages after: 9"));
	assert_false(fake_shows("-- rows"));
	fake_reset();
	ui_model_free(&m);
}

/* An operation's patch in the model and its view: lines sanitised (tabs
 * as spaces), cut at the limit with a line saying how many more; drawn
 * from the top, scrolled by the view's keys, styled by line kind; an
 * error shown instead of lines. */
static void test_patch_view(void **state)
{
	static ui_model m;
	const char text[] = "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n"
			    "@@ -1,2 +1,2 @@\n ctx\tline\n-old\n+evil \x1b[31mred\x07\n"
			    "Binary files a/y and b/y differ\n";
	ui_pane p = {.status_filter = -1};
	ac_buf big = AC_BUF_INIT;

	(void)state;
	assert_int_equal(ui_model_set_patch(&m, "Operation op-1", text, sizeof(text) - 1, NULL), 0);
	assert_int_equal(m.n_patch_lines, 9);
	assert_string_equal(m.patch_lines[5], " ctx    line");
	assert_string_equal(m.patch_lines[7], "+evil ^[[31mred^G");
	assert_int_equal(ui_patch_style(m.patch_lines[0]), UI_ST_HEADER);
	assert_int_equal(ui_patch_style(m.patch_lines[3]), UI_ST_HEADER);
	assert_int_equal(ui_patch_style(m.patch_lines[4]), UI_ST_RUNNING);
	assert_int_equal(ui_patch_style(m.patch_lines[5]), UI_ST_NORMAL);
	assert_int_equal(ui_patch_style(m.patch_lines[6]), UI_ST_FAILED);
	assert_int_equal(ui_patch_style(m.patch_lines[7]), UI_ST_COMPLETED);
	assert_int_equal(ui_patch_style(m.patch_lines[8]), UI_ST_WARNING);

	fake_reset();
	ui_view_patch.draw(&ui_view_patch, &m, &p, (ui_rect){0, 0, 6, 80}, true, now_ms);
	assert_true(fake_shows("lines 1-4 of 9"));
	assert_true(fake_shows("Operation op-1"));
	assert_true(fake_shows("diff --git a/x b/x"));
	assert_false(fake_shows("+evil"));
	assert_true(ui_view_patch.key(&ui_view_patch, &m, &p, UI_ACT_BOTTOM, 4));
	fake_reset();
	ui_view_patch.draw(&ui_view_patch, &m, &p, (ui_rect){0, 0, 6, 80}, true, now_ms);
	assert_true(fake_shows("lines 6-9 of 9"));
	assert_true(fake_shows("+evil ^[[31mred^G"));
	assert_false(fake_shows("diff --git"));
	assert_true(ui_view_patch.key(&ui_view_patch, &m, &p, UI_ACT_TOP, 4));
	assert_false(ui_view_patch.key(&ui_view_patch, &m, &p, UI_ACT_UP, 4));
	assert_true(ui_view_patch.key(&ui_view_patch, &m, &p, UI_ACT_DOWN, 4));
	assert_int_equal(p.top, 1);

	/* Past the limit: the rest is counted. */
	for (int i = 0; i < UI_PATCH_MAX_LINES + 5; i++)
		ac_buf_printf(&big, "+%d\n", i);
	assert_int_equal(ui_model_set_patch(&m, "big", big.data, big.len, NULL), 0);
	assert_int_equal(m.n_patch_lines, UI_PATCH_MAX_LINES + 1);
	assert_non_null(strstr(m.patch_lines[UI_PATCH_MAX_LINES], "5 more lines not shown"));
	ac_buf_free(&big);

	assert_int_equal(ui_model_set_patch(&m, "t", NULL, 0, "no commit \x1b[2J"), 0);
	assert_int_equal(m.n_patch_lines, 0);
	fake_reset();
	ui_view_patch.draw(&ui_view_patch, &m, &p, (ui_rect){0, 0, 6, 80}, true, now_ms);
	assert_true(fake_shows("no commit ^[[2J"));
	ui_model_close_patch(&m);
	assert_null(m.patch_title);
	fake_reset();
}

static ac_backend_session_info store_info(const char *id, const char *updated, const char *host)
{
	return (ac_backend_session_info){
		.tenant = (char *)"acme", .session_id = (char *)id, .user = (char *)"u",
		.agent = (char *)"a", .status = (char *)"running", .updated_at = (char *)updated,
		.host = (char *)host, .writer = (char *)"", .messages = 1,
	};
}

/* A store's rows carry their host; one changed session moves to its place
 * (newest first) without the others being read again; a gone one drops;
 * h filters by host. */
static void test_store_rows(void **state)
{
	ui_model m = {0};
	ac_backend_session_info list[2] = {
		store_info("s-a", "2026-01-02T00:00:00.000Z", "host-a"),
		store_info("s-b", "2026-01-01T00:00:00.000Z", "host-b"),
	};
	ac_backend_session_info changed = store_info("s-b", "2026-01-03T00:00:00.000Z", "host-c");
	ac_backend_session_info added = store_info("s-c", "2026-01-02T12:00:00.000Z", "");
	ui_pane p = {.status_filter = -1};

	(void)state;
	assert_int_equal(ui_model_set_store_sessions(&m, list, 2), 0);
	assert_true(m.hosts_known);
	assert_string_equal(m.sessions[0].host, "host-a");
	assert_string_equal(m.sessions[1].host, "host-b");
	assert_int_equal(ui_model_put_store_session(&m, "s-b", &changed), 0);
	assert_int_equal(m.n_sessions, 2);
	assert_string_equal(m.sessions[0].id, "s-b");
	assert_string_equal(m.sessions[0].host, "host-c");
	assert_string_equal(m.sessions[1].id, "s-a");
	assert_int_equal(ui_model_put_store_session(&m, "s-c", &added), 0);
	assert_int_equal(m.n_sessions, 3);
	assert_string_equal(m.sessions[1].id, "s-c");
	assert_string_equal(m.sessions[1].host, "");
	snprintf(p.host, sizeof(p.host), "host-a");
	assert_false(ui_view_sessions.match(&m, 0, &p));
	assert_true(ui_view_sessions.match(&m, 2, &p));
	assert_int_equal(ui_model_put_store_session(&m, "s-a", NULL), 0);
	assert_int_equal(m.n_sessions, 2);
	assert_int_equal(ui_model_put_store_session(&m, "nosuch", NULL), 0);
	assert_int_equal(m.n_sessions, 2);
	ui_model_free(&m);
}

static unsigned put_status(ui_model *m, ui_notify *n, const char *id, const char *status,
			   const char *updated)
{
	ac_backend_session_info info = store_info(id, updated, "");

	info.status = (char *)status;
	assert_int_equal(ui_model_put_store_session(m, id, status ? &info : NULL), 0);
	return n ? ui_notify_scan(n, m, "db") & UI_NOTIFY_BELL : 0;
}

/* The hooks' look at the rows after one store change compares only the
 * rows the model says changed (ui_model_changed_since): a transition into
 * paused rings once; a row that comes or goes is none, nor a change that
 * ends where it started between two looks; a row replaced whole compares
 * all again. The rows are found by id (ui_model_find_session). */
static void test_notify_changed_rows(void **state)
{
	char *dir = tu_make_temp_dir();
	ac_config *config = NULL;
	ac_workspace ws;
	ui_model m = {0};
	ui_notify *n = NULL;
	ac_backend_session_info list[3] = {
		store_info("s-a", "2026-01-03T00:00:00.000Z", ""),
		store_info("s-b", "2026-01-02T00:00:00.000Z", ""),
		store_info("s-c", "2026-01-01T00:00:00.000Z", ""),
	};
	char *const *changed;
	size_t n_changed;

	(void)state;
	tu_put(dir, ".agent/config.json", "{\"notify\": {\"bell\": true}}");
	assert_int_equal(ac_config_load(&config, dir), 0);
	assert_int_equal(ac_workspace_init(&ws, config), 0);
	assert_int_equal(ui_notify_new(&n, &ws, false, NULL), 0);
	assert_int_equal(ui_model_set_store_sessions(&m, list, 3), 0);
	assert_int_equal(ui_model_find_session(&m, "s-c"), 2);
	assert_int_equal(ui_model_find_session(&m, "nosuch"), AC_SESSION_INDEX_NONE);
	assert_int_equal(ui_notify_scan(n, &m, "db") & UI_NOTIFY_BELL, 0); /* the first look */
	/* Into paused: told once. */
	assert_int_not_equal(put_status(&m, n, "s-b", "paused", "2026-01-04T00:00:00.000Z"), 0);
	assert_int_equal(ui_model_find_session(&m, "s-b"), 0);
	assert_int_equal(ui_notify_scan(n, &m, "db") & UI_NOTIFY_BELL, 0);
	assert_int_equal(put_status(&m, n, "s-b", "paused", "2026-01-05T00:00:00.000Z"), 0);
	/* Came paused, went, came back paused: no transition. */
	assert_int_equal(put_status(&m, n, "s-d", "paused", "2026-01-06T00:00:00.000Z"), 0);
	assert_int_equal(put_status(&m, n, "s-a", NULL, NULL), 0);
	assert_int_equal(ui_model_find_session(&m, "s-a"), AC_SESSION_INDEX_NONE);
	assert_int_equal(put_status(&m, n, "s-a", "paused", "2026-01-07T00:00:00.000Z"), 0);
	/* Running and paused again between two looks: none. */
	assert_int_equal(put_status(&m, NULL, "s-b", "running", "2026-01-08T00:00:00.000Z"), 0);
	assert_int_equal(put_status(&m, NULL, "s-b", "paused", "2026-01-09T00:00:00.000Z"), 0);
	assert_non_null(changed = ui_model_changed_since(&m, m.changed_from, &n_changed));
	assert_int_equal(n_changed, 2);
	assert_string_equal(changed[0], "s-b");
	assert_int_equal(ui_notify_scan(n, &m, "db") & UI_NOTIFY_BELL, 0);
	/* Two rows, one into paused, between two looks: told. */
	assert_int_equal(put_status(&m, NULL, "s-d", "running", "2026-01-10T00:00:00.000Z"), 0);
	assert_int_equal(put_status(&m, NULL, "s-c", "paused", "2026-01-11T00:00:00.000Z"), 0);
	assert_int_not_equal(ui_notify_scan(n, &m, "db") & UI_NOTIFY_BELL, 0);
	/* Replaced whole: no list, all compared; s-d into paused is told. */
	list[0] = store_info("s-d", "2026-01-12T00:00:00.000Z", "");
	list[0].status = (char *)"paused";
	assert_int_equal(ui_model_set_store_sessions(&m, list, 1), 0);
	assert_null(ui_model_changed_since(&m, m.changed_from, &n_changed));
	assert_int_not_equal(ui_notify_scan(n, &m, "db") & UI_NOTIFY_BELL, 0);
	assert_int_equal(ui_model_find_session(&m, "s-b"), AC_SESSION_INDEX_NONE);
	assert_int_equal(put_status(&m, n, "s-d", "running", "2026-01-13T00:00:00.000Z"), 0);
	assert_int_not_equal(put_status(&m, n, "s-d", "paused", "2026-01-14T00:00:00.000Z"), 0);
	ui_notify_free(n);
	ui_model_free(&m);
	ac_workspace_free(&ws);
	ac_config_free(config);
	tu_remove_tree(dir);
	free(dir);
}

/* The Sessions pane's rows kept between frames (views/sessions.c) are
 * the rows a fresh look matches and orders, after each row that moves,
 * comes, goes or stops matching the filter. */
static void test_sessions_visible_kept(void **state)
{
	ui_model m = {0};
	ac_backend_session_info list[4] = {
		store_info("s-a", "2026-01-04T00:00:00.000Z", "h1"),
		store_info("s-b", "2026-01-03T00:00:00.000Z", "h2"),
		store_info("s-c", "2026-01-02T00:00:00.000Z", "h1"),
		store_info("s-d", "2026-01-01T00:00:00.000Z", "h1"),
	};
	struct {
		const char *id, *updated, *host;
	} steps[] = {
		{"s-d", "2026-01-05T00:00:00.000Z", "h1"}, {"s-b", "2026-01-06T00:00:00.000Z", "h1"},
		{"s-e", "2026-01-02T12:00:00.000Z", "h1"}, {"s-a", NULL, NULL},
		{"s-c", "2026-01-07T00:00:00.000Z", "h2"}, {"s-f", "2025-12-01T00:00:00.000Z", "h1"},
		{"s-b", "2026-01-01T06:00:00.000Z", "h1"},
	};
	ui_pane p = {.status_filter = -1, .sort = UI_SORT_UPDATED};
	size_t got[8], want[8];

	(void)state;
	snprintf(p.host, sizeof(p.host), "h1");
	assert_int_equal(ui_model_set_store_sessions(&m, list, 4), 0);
	for (size_t k = 0; k <= sizeof(steps) / sizeof(*steps); k++) {
		size_t n = ui_list_visible(&ui_view_sessions, &m, &p, got), w = 0;

		assert_int_equal(ui_list_visible(&ui_view_sessions, &m, &p, got), n); /* kept */
		for (size_t i = 0; i < m.n_sessions; i++)
			if (ui_view_sessions.match(&m, i, &p))
				want[w++] = i;
		ui_view_sessions.order(&m, &p, want, w);
		assert_int_equal(n, w);
		assert_memory_equal(got, want, n * sizeof(*got));
		if (k == sizeof(steps) / sizeof(*steps))
			break;
		if (steps[k].updated) {
			ac_backend_session_info info = store_info(steps[k].id, steps[k].updated, steps[k].host);

			assert_int_equal(ui_model_put_store_session(&m, steps[k].id, &info), 0);
		} else {
			assert_int_equal(ui_model_put_store_session(&m, steps[k].id, NULL), 0);
		}
	}
	ui_model_free(&m);
}

/* The sessions' tree (tui/model/model_tree.c): a coding agent's sub-agents and
 * forks under their session, in the order shown, one level deeper per
 * generation; a child whose parent is not listed keeps its place; a
 * folded parent hides its descendants (not from a text filter), marked
 * with their number; folding survives a new read of the rows. */
static void tree_rows(ui_model *m, size_t n)
{
	/* Newest first, as the source lists them. */
	const ui_transcript_row rows[] = {
		{.id = "B", .task = "second worker", .source = "claude-code", .parent = "P",
		 .relation = "subagent", .updated = "2024-05-01T10:00:06.000Z"},
		{.id = "X", .task = "another session", .source = "codex",
		 .updated = "2024-05-01T10:00:05.000Z"},
		{.id = "P", .task = "the parent", .source = "claude-code",
		 .updated = "2024-05-01T10:00:04.000Z"},
		{.id = "A", .task = "Explore: first worker", .source = "claude-code", .parent = "P",
		 .relation = "subagent", .updated = "2024-05-01T10:00:03.000Z", .tokens = 2090,
		 .last_action = "Grep \x1b[31mroutes"},
		{.id = "O", .task = "orphan", .source = "claude-code", .parent = "gone",
		 .relation = "subagent", .updated = "2024-05-01T10:00:02.000Z"},
		{.id = "G", .task = "grandchild", .source = "codex", .parent = "A",
		 .relation = "fork", .updated = "2024-05-01T10:00:01.000Z"},
	};

	ui_model_set_transcripts(m, rows, n);
}

static void shown_ids(char *out, size_t size, const ui_model *m, const ui_pane *p)
{
	size_t idx[16], n = ui_list_visible(&ui_view_sessions, m, p, idx);

	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? " " : "",
			 m->sessions[idx[i]].id);
}

/* A waiting transcript's row says what it waits on (its status file's
 * reason, made safe), as `session list` does, where the task column has
 * room: at 120 columns no detail pane says it. */
static void test_session_row_waits_on(void **state)
{
	const ui_transcript_row rows[] = {
		{.id = "W", .task = "Port the scheduler", .source = "claude-code",
		 .updated = "2024-05-01T10:00:04.000Z", .state = AC_STATE_WAITING,
		 .waiting_for = "approve Bash \x1b[31mred"},
		{.id = "R", .task = "Another one", .source = "claude-code",
		 .updated = "2024-05-01T10:00:03.000Z", .state = AC_STATE_RUNNING},
	};
	ui_model m = {0};
	ac_buf row = AC_BUF_INIT;
	int ax, aw;

	(void)state;
	ui_model_set_transcripts(&m, rows, 2);
	/* At 80 columns the task column keeps the task (the title of the
	 * conversation says the reason). */
	ui_view_sessions.row(&row, &m, 0, 80, now_ms, &ax, &aw);
	assert_non_null(strstr(row.data, " Port the sched"));
	ac_buf_clear(&row);
	ui_view_sessions.row(&row, &m, 0, 120, now_ms, &ax, &aw);
	assert_non_null(strstr(row.data, "[approve Bash ^[[31mred] Port the scheduler"));
	ac_buf_clear(&row);
	ui_view_sessions.row(&row, &m, 1, 120, now_ms, &ax, &aw);
	assert_null(strchr(row.data, '['));
	ac_buf_free(&row);
	ui_model_free(&m);
}

/* The attention strip (issue 27): only waiting rows, longest waiting
 * first (unknown last), named by title, with their reason (made safe),
 * cut to the width; nothing at all when none waits. */
static void test_attention_strip(void **state)
{
	const ui_transcript_row rows[] = {
		{.id = "new", .task = "Newest", .source = "codex",
		 .updated = "2024-05-01T10:00:09.000Z", .state = AC_STATE_WAITING},
		{.id = "run", .task = "Busy", .source = "claude-code",
		 .updated = "2024-05-01T10:00:05.000Z", .state = AC_STATE_RUNNING},
		{.id = "old", .task = "Oldest", .source = "claude-code",
		 .updated = "2024-05-01T10:00:01.000Z", .state = AC_STATE_WAITING,
		 .waiting_for = "approve \x1b[31mBash"},
		{.id = "when?", .task = "", .source = "gemini", .updated = "",
		 .state = AC_STATE_WAITING},
	};
	ui_model m = {0};
	ac_buf line = AC_BUF_INIT, cut = AC_BUF_INIT;
	size_t idx[4];

	(void)state;
	ui_model_set_transcripts(&m, rows, 4);
	assert_int_equal(ui_model_waiting(&m, idx), 3);
	assert_string_equal(m.sessions[idx[0]].raw_id, "old");
	assert_string_equal(m.sessions[idx[1]].raw_id, "new");
	assert_string_equal(m.sessions[idx[2]].raw_id, "when?");
	ui_attention_line(&line, &m, now_ms);
	assert_non_null(strstr(line.data, "3 need you (! jumps): Oldest approve ^[[31mBash "));
	assert_non_null(strstr(line.data, ", Newest waiting "));
	assert_non_null(strstr(line.data, ", when? waiting -"));
	assert_null(strstr(line.data, "Busy"));
	assert_null(strchr(line.data, '\x1b'));
	ui_text_fit(&cut, line.data, line.len, 40, UI_FIT_ELLIPSIS);
	assert_true(ui_text_width(cut.data, cut.len) <= 40);
	ui_model_free(&m);
	ac_buf_clear(&line);
	/* None waits: no line (and the dashboard gives the panes its row). */
	ui_model_set_transcripts(&m, rows + 1, 1);
	ui_attention_line(&line, &m, now_ms);
	assert_int_equal(line.len, 0);
	ac_buf_free(&line);
	ac_buf_free(&cut);
	ui_model_free(&m);
}

static void test_session_tree(void **state)
{
	ui_model m = {0};
	ui_pane p = {.status_filter = -1};
	ac_session_summary seed[] = {summary("seed", "a seed session", "running")};
	char ids[128];
	size_t first;

	(void)state;
	set_sessions(&m, seed, 1);
	tree_rows(&m, 6);
	first = m.n_sessions - m.n_transcripts;
	assert_int_equal(m.n_tree_children, 3);
	assert_int_equal(m.sessions[first + 2].children, 2);  /* P: A and B */
	assert_int_equal(m.sessions[first + 3].children, 1);  /* A: G */
	assert_int_equal(m.sessions[first + 5].depth, 2);     /* G under A under P */
	assert_int_equal(ui_model_tree_parent(&m, first + 5), first + 3);
	assert_int_equal(ui_model_tree_parent(&m, first + 4), SIZE_MAX); /* O: "gone" */
	assert_int_equal(ui_model_tree_parent(&m, 0), SIZE_MAX);         /* a session file */
	shown_ids(ids, sizeof(ids), &m, &p);
	assert_string_equal(ids, "seed X P B A G O");
	/* Sorted (B is the newest transcript), the children still follow their parent. */
	p.sort = UI_SORT_UPDATED;
	shown_ids(ids, sizeof(ids), &m, &p);
	assert_string_equal(ids, "seed X P B A G O");
	p.sort = UI_SORT_NONE;
	{
		ac_buf row = AC_BUF_INIT;
		int ax, aw;

		ui_view_sessions.row(&row, &m, first + 2, 120, now_ms, &ax, &aw);
		assert_non_null(strstr(row.data, "\xe2\x96\xbe the parent"));      /* ▾ */
		ac_buf_clear(&row);
		ui_view_sessions.row(&row, &m, first + 3, 120, now_ms, &ax, &aw);
		assert_non_null(strstr(row.data, "\xe2\x94\x94 \xe2\x96\xbe Explore: first")); /* └ ▾ */
		/* A worker's last action (made safe) and its tokens. */
		assert_non_null(strstr(row.data, "first worker \xc2\xb7 Grep ^[[31mroutes"));
		assert_non_null(strstr(row.data, " 2.1k "));
		assert_null(memchr(row.data, 0x1b, row.len));
		ac_buf_clear(&row);
		ui_view_sessions.row(&row, &m, first + 5, 120, now_ms, &ax, &aw);
		assert_non_null(strstr(row.data, "  \xe2\x94\x94 grandchild"));
		ac_buf_clear(&row);
		/* Folded: P's descendants hidden, its row counts its children. */
		assert_int_equal(ui_model_tree_set(&m, "P", true), 0);
		assert_true(ui_model_tree_closed(&m, "P"));
		shown_ids(ids, sizeof(ids), &m, &p);
		assert_string_equal(ids, "seed X P O");
		ui_view_sessions.row(&row, &m, first + 2, 120, now_ms, &ax, &aw);
		assert_non_null(strstr(row.data, "\xe2\x96\xb8" "2 the parent"));  /* ▸2 */
		ac_buf_free(&row);
	}
	/* A text filter finds a folded child. */
	snprintf(p.filter, sizeof(p.filter), "worker");
	shown_ids(ids, sizeof(ids), &m, &p);
	assert_string_equal(ids, "B A");
	p.filter[0] = '\0';
	/* A new read of the rows (one child less) keeps P folded. */
	tree_rows(&m, 5);
	assert_int_equal(m.n_tree_children, 2);
	shown_ids(ids, sizeof(ids), &m, &p);
	assert_string_equal(ids, "seed X P O");
	assert_int_equal(ui_model_tree_set(&m, "P", false), 0);
	shown_ids(ids, sizeof(ids), &m, &p);
	assert_string_equal(ids, "seed X P B A O");
	ui_model_free(&m);
}

/* The Operations rows (tui/model/model_ops.c): newest first and followed on the
 * top row; who did it (details.agent, else the session's agent); RB on
 * every operation a recorded rollback undid, RV on a reverted one; the
 * git side only for the rows asked for, once. */
static void add_op_line(ui_model *m, const char *line)
{
	ac_op op;
	ac_buf why = AC_BUF_INIT;

	assert_int_equal(ac_oplog_parse_line(&op, line, strlen(line), &why), 0);
	assert_int_equal(ui_model_add_op(m, &op), 0);
	ac_oplog_op_clear(&op);
	ac_buf_free(&why);
}

static void test_ops_rows(void **state)
{
	ui_model m = {0};
	ui_pane p = {.status_filter = -1, .follow = true};
	ac_session_summary s = summary("sess-b", "task", "active");
	size_t idx[8];

	(void)state;
	add_op_line(&m, "{\"id\":\"o1\",\"sessionId\":\"sess-a\",\"type\":\"file_write\","
		    "\"details\":{\"path\":\"a.txt\",\"agent\":\"Codex\"},\"gitCommitHash\":\"c1\"}");
	add_op_line(&m, "{\"id\":\"o2\",\"sessionId\":\"sess-b\",\"type\":\"file_write\","
		    "\"details\":{\"path\":\"b.txt\",\"note\":\"fix login\"},\"gitCommitHash\":\"c2\"}");
	add_op_line(&m, "{\"id\":\"o3\",\"sessionId\":\"sess-b\",\"type\":\"file_write\","
		    "\"details\":{\"path\":\"c.txt\"},\"gitCommitHash\":\"c3\"}");
	add_op_line(&m, "{\"id\":\"o4\",\"sessionId\":\"sess-b\",\"type\":\"rollback\","
		    "\"details\":{\"rollbackOf\":\"o2\",\"snapshot\":\"s\",\"agent\":\"Human\"},"
		    "\"gitCommitHash\":\"c4\"}");
	/* An older version's revert, written as file_write. */
	add_op_line(&m, "{\"id\":\"o5\",\"sessionId\":\"sess-a\",\"type\":\"file_write\","
		    "\"details\":{\"revertOf\":\"o1\",\"snapshot\":\"s\"},\"gitCommitHash\":\"c5\"}");
	assert_int_equal(m.ops[0].undone, 'V');
	assert_int_equal(m.ops[1].undone, 'R');
	assert_int_equal(m.ops[2].undone, 'R');
	assert_int_equal(m.ops[3].undone, 0);
	assert_int_equal(m.ops[4].undone, 0);
	assert_string_equal(m.ops[0].agent, "Codex");
	assert_null(m.ops[1].agent);
	assert_string_equal(m.ops[1].note, "fix login");

	/* Newest first; the cursor follows the top row. */
	assert_int_equal(ui_list_visible(&ui_view_operations, &m, &p, idx), 5);
	assert_string_equal(m.ops[idx[0]].id, "o5");
	assert_string_equal(m.ops[idx[4]].id, "o1");

	/* The session's agent for o2 and o3; no git (ws NULL): "?" once read. */
	set_sessions(&m, &s, 1);
	assert_true(ui_ops_fill(&m, NULL, idx + 2, 2));
	assert_string_equal(m.ops[1].agent, "Claude");
	assert_true(m.ops[1].stats_read && m.ops[1].stats_failed);
	assert_false(m.ops[0].stats_read); /* not asked for */
	assert_false(ui_ops_fill(&m, NULL, idx + 2, 2)); /* once */

	fake_reset();
	ui_view_operations.draw(&ui_view_operations, &m, &p, (ui_rect){0, 0, 10, 100}, true, now_ms);
	assert_true(fake_shows("FILES +/-"));
	assert_true(fake_shows("1/5"));
	assert_true(fake_shows("Claude"));
	assert_true(fake_shows("RB ?"));
	assert_true(fake_shows("b.txt \xc2\xb7 fix login"));
	assert_true(fake_shows("RV \xe2\x80\xa6"));
	assert_true(fake_shows("rollback to before o2"));

	/* A new operation: the cursor stays on the top row while following. */
	add_op_line(&m, "{\"id\":\"o6\",\"sessionId\":\"sess-b\",\"type\":\"command_run\","
		    "\"details\":{\"command\":\"make\"}}");
	fake_reset();
	ui_view_operations.draw(&ui_view_operations, &m, &p, (ui_rect){0, 0, 10, 100}, true, now_ms);
	assert_true(fake_shows("1/6"));
	/* j leaves the top: no longer following; k back to it: following. */
	ui_list_key(&ui_view_operations, &m, &p, UI_ACT_DOWN, 5);
	assert_false(p.follow);
	ui_list_key(&ui_view_operations, &m, &p, UI_ACT_UP, 5);
	assert_true(p.follow);
	ui_model_free(&m);
}

/* What is open, one Esc at a time (tui/overlays.c): the log over help
 * over a conversation whose tab has a filter (the filter goes before the
 * conversation); then help over an operation's patch. */
static void test_overlays_one_esc_at_a_time(void **state)
{
	ui_dash *d = &test_dash;

	(void)state;
	enter(d, UI_PANE_CONV);
	snprintf(d->panes[UI_PANE_CONV].filter, sizeof(d->panes[0].filter), "x");
	assert_int_equal(ui_keys_dispatch(d, '?'), UI_REDRAW);
	assert_int_equal(ui_dash_shown(d), UI_PANE_HELP);
	assert_int_equal(ui_keys_dispatch(d, 'L'), UI_REDRAW);
	assert_int_equal(ui_dash_shown(d), UI_PANE_LOG);
	assert_int_equal(ui_keys_dispatch(d, UI_KEY_ESC), UI_REDRAW);
	assert_int_equal(ui_dash_shown(d), UI_PANE_HELP);
	assert_int_equal(ui_keys_dispatch(d, UI_KEY_ESC), UI_REDRAW);
	assert_int_equal(ui_dash_shown(d), UI_PANE_CONV);
	assert_string_equal(d->panes[UI_PANE_CONV].filter, "x");
	assert_int_equal(ui_keys_dispatch(d, UI_KEY_ESC), UI_REDRAW);
	assert_int_equal(ui_dash_shown(d), UI_PANE_CONV);
	assert_string_equal(d->panes[UI_PANE_CONV].filter, "");
	assert_int_equal(ui_keys_dispatch(d, UI_KEY_ESC), UI_REDRAW);
	assert_int_equal(ui_dash_shown(d), UI_PANE_SESSIONS);
	assert_null(d->m.conv_session);

	/* ? over the log closes both when help was under it. */
	ui_keys_dispatch(d, '?');
	ui_keys_dispatch(d, 'L');
	ui_keys_dispatch(d, '?');
	assert_int_equal(ui_dash_shown(d), UI_PANE_SESSIONS);

	enter(d, UI_PANE_OPS);
	assert_int_equal(ui_keys_dispatch(d, UI_KEY_ENTER), UI_REDRAW);
	assert_int_equal(ui_dash_shown(d), UI_PANE_PATCH);
	ui_keys_dispatch(d, '?');
	assert_int_equal(ui_dash_shown(d), UI_PANE_HELP);
	ui_keys_dispatch(d, UI_KEY_ESC);
	assert_int_equal(ui_dash_shown(d), UI_PANE_PATCH);
	ui_keys_dispatch(d, UI_KEY_ESC);
	assert_int_equal(ui_dash_shown(d), UI_PANE_OPS);
	assert_null(d->m.patch_title);
}

/* The lines typed at the bottom take their keys from the table: their
 * hints end the line, Enter/Esc/Backspace are dispatched there, and what
 * else is typed is text, never a command. */
static void test_line_keys_are_the_table(void **state)
{
	ui_dash *d = &test_dash;
	ac_buf hints = AC_BUF_INIT;
	const ui_overlay *top;

	(void)state;
	ui_keys_line_hints(&hints, UI_PANE_FILTER_LINE);
	assert_string_equal(hints.data, "   Enter: keep   Esc: clear");
	ac_buf_clear(&hints);
	ui_keys_line_hints(&hints, UI_PANE_SEARCH_LINE);
	assert_non_null(strstr(hints.data, "   Esc: cancel"));
	ac_buf_free(&hints);
	assert_non_null(ui_key_find(UI_KEY_BACKSPACE, UI_PANE_FILTER_LINE));
	assert_null(ui_key_find('q', UI_PANE_FILTER_LINE));

	enter(d, UI_PANE_FILTER_LINE);
	top = ui_overlay_top(&d->open, d);
	top->key(d, &(ui_input){.key = 'q'});
	top->key(d, &(ui_input){.key = 'z'});
	assert_false(d->quit);
	assert_string_equal(d->panes[UI_PANE_SESSIONS].filter, "qz");
	top->key(d, &(ui_input){.key = UI_KEY_BACKSPACE});
	assert_string_equal(d->panes[UI_PANE_SESSIONS].filter, "q");
	top->key(d, &(ui_input){.key = UI_KEY_ENTER});
	assert_false(ui_dash_is_open(d, &ui_overlay_filter));
	assert_string_equal(d->panes[UI_PANE_SESSIONS].filter, "q");
}

/* A refusal's notice takes any key, through its entry in the key table:
 * q closes it without quitting, y without confirming anything. */
static void test_notice_key_is_the_table(void **state)
{
	ui_dash *d = &test_dash;
	const ui_key *any = ui_key_find(UI_KEY_ANY, UI_PANE_DIALOG);

	(void)state;
	assert_non_null(any);
	assert_string_equal(any->doc.label, "any key");
	assert_null(ui_key_find(UI_KEY_ANY, UI_PANE_SESSIONS));
	for (const int *key = (const int[]){'q', 'y', UI_KEY_ESC, 'Z', 0}; *key; key++) {
		d->dlg.kind = UI_DLG_NOTICE;
		assert_int_equal(ui_keys_dispatch(d, *key), UI_REDRAW);
		assert_int_equal(d->dlg.kind, UI_DLG_NONE);
		assert_false(d->quit);
	}
	/* Without a notice the entry takes nothing: a question's y and n stay. */
	assert_int_equal(ui_keys_dispatch(d, 'Z'), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_fit_never_splits),
		cmocka_unit_test(test_input_keeps_the_end),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_smart_case),
		cmocka_unit_test(test_status_symbols),
		cmocka_unit_test(test_session_rows),
		cmocka_unit_test(test_store_rows),
		cmocka_unit_test(test_notify_changed_rows),
		cmocka_unit_test(test_sessions_visible_kept),
		cmocka_unit_test(test_journal_ring_and_rows),
		cmocka_unit_test(test_filter_and_selection),
		cmocka_unit_test(test_session_row_waits_on),
		cmocka_unit_test(test_session_tree),
		cmocka_unit_test(test_selection_follows_the_id),
		cmocka_unit_test(test_draw_through_screen),
		cmocka_unit_test(test_drill_lists),
		cmocka_unit_test(test_jsearch_steps_are_bounded),
		cmocka_unit_test(test_conversation),
		cmocka_unit_test(test_conversation_append),
		cmocka_unit_test_setup_teardown(test_store_tabs, store_setup, store_teardown),
		cmocka_unit_test_setup_teardown(test_store_without_tenant, store_setup, store_teardown),
		cmocka_unit_test(test_theme_parse),
		cmocka_unit_test(test_theme_files),
		cmocka_unit_test(test_broken_theme_file),
		cmocka_unit_test(test_theme_paths),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_patch_view),
		cmocka_unit_test(test_ops_rows),
		cmocka_unit_test_setup_teardown(test_hinted_keys_are_handled, dash_setup, dash_teardown),
		cmocka_unit_test_setup_teardown(test_unbound_keys_do_nothing, dash_setup, dash_teardown),
		cmocka_unit_test_setup_teardown(test_hint_lines, dash_setup, dash_teardown),
		cmocka_unit_test_setup_teardown(test_hints_follow_the_row, dash_setup, dash_teardown),
		cmocka_unit_test_setup_teardown(test_help_is_the_table, dash_setup, dash_teardown),
		cmocka_unit_test_setup_teardown(test_overlays_one_esc_at_a_time, dash_setup,
						dash_teardown),
		cmocka_unit_test_setup_teardown(test_line_keys_are_the_table, dash_setup,
						dash_teardown),
		cmocka_unit_test_setup_teardown(test_notice_key_is_the_table, dash_setup,
						dash_teardown),
		cmocka_unit_test(test_ages_and_counts),
		cmocka_unit_test(test_number_columns),
		cmocka_unit_test(test_dialog_wraps_and_scrolls),
		cmocka_unit_test(test_message_log),
		cmocka_unit_test(test_attention_strip),
	};

	/* t remembers the theme in the state folder: the test's own. */
	char *state = tu_make_temp_dir();

	setenv("XDG_STATE_HOME", state, 1);
	ui_text_locale();
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	tu_remove_tree(state);
	free(state);
	return failed;
}
