/* The dashboard's layout (tui/layout.h), without a terminal: at 80x24,
 * 120x40 and 200x60 and every size between, for every pane shown, the
 * rectangles stay inside the area and never overlap; tall enough, the
 * four list panes are all on screen and the focused one is the largest;
 * short, one pane with the journal strip; the detail from 170 columns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "layout.h"

#include <stdio.h>

/* The area between the title and the two bottom lines of a rows x cols
 * terminal, as the dashboard passes it (no attention line). */
static ui_rect area_of(int cols, int rows)
{
	return (ui_rect){1, 0, rows - 3, cols};
}

static bool inside(ui_rect r, ui_rect a)
{
	return r.h == 0 || (r.y >= a.y && r.x >= a.x && r.h > 0 && r.w > 0 &&
			    r.y + r.h <= a.y + a.h && r.x + r.w <= a.x + a.w);
}

static bool overlap(ui_rect a, ui_rect b)
{
	return a.h > 0 && b.h > 0 && a.y < b.y + b.h && b.y < a.y + a.h && a.x < b.x + b.w &&
	       b.x < a.x + a.w;
}

/* Every rectangle laid out: the panes (tiled) or the shown one and the
 * strip, and the detail. */
static size_t rects(const ui_layout *l, ui_rect *out)
{
	size_t n = 0;

	if (l->tiled)
		for (int i = 0; i < UI_LAYOUT_PANES; i++)
			out[n++] = l->pane[i];
	else
		out[n++] = l->shown;
	out[n++] = l->strip;
	out[n++] = l->detail;
	return n;
}

static void test_nothing_overlaps(void **state)
{
	(void)state;
	for (int rows = 6; rows <= 80; rows++)
		for (int cols = 24; cols <= 260; cols += 7)
			for (int p = 0; p < UI_PANE_DIALOG; p++) {
				ui_layout l;
				ui_rect a = area_of(cols, rows), r[8];
				size_t n;

				ui_layout_compute(&l, a, (ui_pane_id)p);
				n = rects(&l, r);
				for (size_t i = 0; i < n; i++) {
					if (!inside(r[i], a))
						fail_msg("%dx%d pane %d: rect %zu outside", cols, rows, p, i);
					for (size_t j = i + 1; j < n; j++)
						if (overlap(r[i], r[j]))
							fail_msg("%dx%d pane %d: %zu and %zu overlap", cols,
								 rows, p, i, j);
				}
				assert_true(l.shown.h > 0 && l.shown.w > 0);
			}
}

static void test_tiled_sizes(void **state)
{
	static const int sizes[][2] = {{120, 40}, {200, 60}, {80, 40}};

	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (int focus = UI_PANE_SESSIONS; focus <= UI_PANE_JOURNAL; focus++) {
			ui_layout l;
			int total = 0;

			ui_layout_compute(&l, area_of(sizes[s][0], sizes[s][1]), (ui_pane_id)focus);
			assert_true(l.tiled);
			assert_memory_equal(&l.shown, &l.pane[focus], sizeof(ui_rect));
			for (int i = 0; i < UI_LAYOUT_PANES; i++) {
				total += l.pane[i].h;
				assert_true(l.pane[i].h >= UI_LAYOUT_MIN_ROWS);
				if (i != focus)
					assert_true(l.pane[focus].h > l.pane[i].h);
				/* stacked in screen order, no gap */
				if (i)
					assert_int_equal(l.pane[i].y, l.pane[i - 1].y + l.pane[i - 1].h);
			}
			assert_int_equal(total, sizes[s][1] - 3);
			assert_int_equal(l.pane[UI_PANE_JOURNAL].w, sizes[s][0]);
			assert_int_equal(l.strip.h, 0);
		}
	/* The whole-journal search takes the journal's place. */
	{
		ui_layout l, j;

		ui_layout_compute(&l, area_of(120, 40), UI_PANE_JSEARCH);
		ui_layout_compute(&j, area_of(120, 40), UI_PANE_JOURNAL);
		assert_true(l.tiled);
		assert_memory_equal(&l.shown, &j.pane[UI_PANE_JOURNAL], sizeof(ui_rect));
	}
}

/* 120x40: focused 16 rows, the others 7 (a title, a header, 5 rows). */
static void test_120x40(void **state)
{
	ui_layout l;

	(void)state;
	ui_layout_compute(&l, area_of(120, 40), UI_PANE_OPS);
	assert_int_equal(l.pane[UI_PANE_SESSIONS].y, 1);
	assert_int_equal(l.pane[UI_PANE_SESSIONS].h, 7);
	assert_int_equal(l.pane[UI_PANE_OPS].h, 16);
	assert_int_equal(l.pane[UI_PANE_CKPTS].h, 7);
	assert_int_equal(l.pane[UI_PANE_JOURNAL].h, 7);
	assert_int_equal(l.pane[UI_PANE_JOURNAL].y + 7, 38);
	assert_int_equal(l.detail.h, 0); /* under 170 columns */
	assert_int_equal(l.pane[UI_PANE_SESSIONS].w, 120);
}

/* Three sessions at 120x40: Sessions takes its 5 rows; what it leaves goes
 * to the focused pane, or to the Journal when Sessions is focused; the
 * panes still fill the area without a gap. A cap under the minimum keeps
 * the minimum; a cap above the share changes nothing. */
static void test_sessions_fit(void **state)
{
	ui_layout l;

	(void)state;
	ui_layout_compute_fit(&l, area_of(120, 40), UI_PANE_SESSIONS, 5);
	assert_int_equal(l.pane[UI_PANE_SESSIONS].h, 5);
	assert_int_equal(l.pane[UI_PANE_OPS].h, 7);
	assert_int_equal(l.pane[UI_PANE_JOURNAL].h, 7 + 11);
	assert_int_equal(l.pane[UI_PANE_JOURNAL].y + l.pane[UI_PANE_JOURNAL].h, 38);
	ui_layout_compute_fit(&l, area_of(120, 40), UI_PANE_OPS, 5);
	assert_int_equal(l.pane[UI_PANE_SESSIONS].h, 5);
	assert_int_equal(l.pane[UI_PANE_OPS].h, 16 + 2);
	assert_int_equal(l.pane[UI_PANE_OPS].y, 6);
	assert_int_equal(l.pane[UI_PANE_JOURNAL].h, 7);
	ui_layout_compute_fit(&l, area_of(120, 40), UI_PANE_OPS, 1);
	assert_int_equal(l.pane[UI_PANE_SESSIONS].h, UI_LAYOUT_MIN_ROWS);
	ui_layout_compute_fit(&l, area_of(120, 40), UI_PANE_SESSIONS, 500);
	assert_int_equal(l.pane[UI_PANE_SESSIONS].h, 16);
}

/* 200x60: the detail beside the first three panes, the journal below. */
static void test_wide_detail(void **state)
{
	ui_layout l;

	(void)state;
	ui_layout_compute(&l, area_of(200, 60), UI_PANE_SESSIONS);
	assert_true(l.tiled);
	assert_int_equal(l.pane[UI_PANE_SESSIONS].w, 120);
	assert_int_equal(l.pane[UI_PANE_OPS].w, 120);
	assert_int_equal(l.detail.x, 121);
	assert_int_equal(l.detail.w, 79);
	assert_int_equal(l.detail.y, 1);
	assert_int_equal(l.detail.h, l.pane[UI_PANE_JOURNAL].y - 1);
	assert_int_equal(l.pane[UI_PANE_JOURNAL].w, 200);
	/* 169 columns: none. */
	ui_layout_compute(&l, area_of(169, 60), UI_PANE_SESSIONS);
	assert_int_equal(l.detail.h, 0);
}

/* Short or narrow: one pane; a strip from 18 rows, never under the journal,
 * help or the log; Sessions' detail on a wide one. Not a list: one pane. */
static void test_one_pane(void **state)
{
	ui_layout l;

	(void)state;
	ui_layout_compute(&l, area_of(80, 24), UI_PANE_SESSIONS);
	assert_false(l.tiled);
	assert_int_equal(l.shown.h, 14);
	assert_int_equal(l.strip.h, 7);
	assert_int_equal(l.strip.y, l.shown.y + l.shown.h);
	ui_layout_compute(&l, area_of(80, 24), UI_PANE_JOURNAL);
	assert_int_equal(l.strip.h, 0);
	assert_int_equal(l.shown.h, 21);
	ui_layout_compute(&l, area_of(80, 20), UI_PANE_OPS);
	assert_int_equal(l.strip.h, 0);
	ui_layout_compute(&l, area_of(120, 40), UI_PANE_CONV);
	assert_false(l.tiled);
	assert_true(l.strip.h > 0);
	ui_layout_compute(&l, area_of(120, 40), UI_PANE_HELP);
	assert_false(l.tiled);
	assert_int_equal(l.shown.h, 37);
	ui_layout_compute(&l, area_of(50, 40), UI_PANE_SESSIONS); /* too narrow */
	assert_false(l.tiled);
	ui_layout_compute(&l, area_of(200, 30), UI_PANE_SESSIONS); /* too short */
	assert_false(l.tiled);
	assert_int_equal(l.shown.w, 120);
	assert_int_equal(l.detail.w, 79);
	ui_layout_compute(&l, area_of(120, 32), UI_PANE_SESSIONS); /* 29 rows */
	assert_false(l.tiled);
	ui_layout_compute(&l, area_of(120, 33), UI_PANE_SESSIONS); /* 30 */
	assert_true(l.tiled);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_overlaps),
		cmocka_unit_test(test_tiled_sizes),
		cmocka_unit_test(test_120x40),
		cmocka_unit_test(test_sessions_fit),
		cmocka_unit_test(test_wide_detail),
		cmocka_unit_test(test_one_pane),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
