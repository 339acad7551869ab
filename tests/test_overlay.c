/* The overlay stack (tui/overlay.h), on overlays of its own: push, a
 * push of one already open moves it up, Esc steps the top one back (it
 * may stay), overlays no longer live are skipped and dropped, lines that
 * show no pane leave the pane under them shown, a full stack drops its
 * bottom. The dashboard's own overlays, driven by keys, are in
 * test_views.c (test_overlays_one_esc_at_a_time). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dash.h"


/* Only passed through to the overlays' callbacks, which ignore it. */
static ui_dash dash; /* large (the journal ring): not on the stack */

/* Test overlays: a pane each; alive while *alive is; Esc counted. */
static bool alive[4] = {true, true, true, true};
static int backs[4];
static bool stay_once;

#define PANE_OF(n) \
	static ui_pane_id pane_##n(const ui_dash *d) { (void)d; return (ui_pane_id)(n); } \
	static bool live_##n(const ui_dash *d) { (void)d; return alive[n]; } \
	static bool back_##n(ui_dash *d) \
	{ \
		(void)d; \
		backs[n]++; \
		if (stay_once) { stay_once = false; return false; } \
		return true; \
	}
PANE_OF(0)
PANE_OF(1)
PANE_OF(2)

static const ui_overlay o0 = {.name = "o0", .pane = pane_0, .live = live_0, .back = back_0};
static const ui_overlay o1 = {.name = "o1", .pane = pane_1, .live = live_1, .back = back_1};
static const ui_overlay o2 = {.name = "o2", .pane = pane_2, .live = live_2, .back = back_2};
static const ui_overlay line = {.name = "line"}; /* no pane, no back: Esc pops it */

static int setup(void **state)
{
	(void)state;
	for (int i = 0; i < 4; i++)
		alive[i] = true, backs[i] = 0;
	stay_once = false;
	return 0;
}

static void test_push_and_back(void **state)
{
	ui_overlays s = {0};

	(void)state;
	assert_null(ui_overlay_top(&s, &dash));
	assert_int_equal(ui_overlay_pane(&s, &dash, UI_PANE_OPS), UI_PANE_OPS);
	assert_false(ui_overlay_back(&s, &dash));

	ui_overlay_push(&s, &o0);
	ui_overlay_push(&s, &o1);
	ui_overlay_push(&s, &o2);
	assert_ptr_equal(ui_overlay_top(&s, &dash), &o2);
	assert_int_equal(ui_overlay_pane(&s, &dash, UI_PANE_OPS), 2);

	/* Pushed again: moved to the top, not twice in the stack. */
	ui_overlay_push(&s, &o0);
	assert_int_equal(s.n, 3);
	assert_ptr_equal(ui_overlay_top(&s, &dash), &o0);

	/* One Esc at a time, top first: o0, o2, o1. */
	assert_true(ui_overlay_back(&s, &dash));
	assert_int_equal(backs[0], 1);
	assert_ptr_equal(ui_overlay_top(&s, &dash), &o2);
	assert_true(ui_overlay_back(&s, &dash));
	assert_ptr_equal(ui_overlay_top(&s, &dash), &o1);
	assert_true(ui_overlay_is_open(&s, &o1, &dash));
	assert_false(ui_overlay_is_open(&s, &o2, &dash));
	assert_true(ui_overlay_back(&s, &dash));
	assert_null(ui_overlay_top(&s, &dash));
	assert_false(ui_overlay_back(&s, &dash));
	assert_int_equal(backs[0] + backs[1] + backs[2], 3);
}

/* An Esc the top one takes without closing (a filter cleared first). */
static void test_back_that_stays(void **state)
{
	ui_overlays s = {0};

	(void)state;
	ui_overlay_push(&s, &o0);
	ui_overlay_push(&s, &o1);
	stay_once = true;
	assert_true(ui_overlay_back(&s, &dash));
	assert_ptr_equal(ui_overlay_top(&s, &dash), &o1);
	assert_true(ui_overlay_back(&s, &dash));
	assert_ptr_equal(ui_overlay_top(&s, &dash), &o0);
	assert_int_equal(backs[1], 2);
}

/* One the model closed is skipped, and Esc goes to the one under it. */
static void test_not_live(void **state)
{
	ui_overlays s = {0};

	(void)state;
	ui_overlay_push(&s, &o0);
	ui_overlay_push(&s, &o1);
	alive[1] = false;
	assert_ptr_equal(ui_overlay_top(&s, &dash), &o0);
	assert_int_equal(ui_overlay_pane(&s, &dash, UI_PANE_OPS), 0);
	assert_false(ui_overlay_is_open(&s, &o1, &dash));
	assert_true(ui_overlay_back(&s, &dash));
	assert_int_equal(backs[1], 0);
	assert_int_equal(backs[0], 1);
	assert_int_equal(s.n, 0);
}

/* A line being typed is on top for keys; the pane under it is shown. */
static void test_line_and_remove(void **state)
{
	ui_overlays s = {0};

	(void)state;
	ui_overlay_push(&s, &o0);
	ui_overlay_push(&s, &line);
	assert_ptr_equal(ui_overlay_top(&s, &dash), &line);
	assert_int_equal(ui_overlay_pane(&s, &dash, UI_PANE_OPS), 0);
	ui_overlay_remove(&s, &o0); /* from under it */
	assert_int_equal(ui_overlay_pane(&s, &dash, UI_PANE_OPS), UI_PANE_OPS);
	assert_ptr_equal(ui_overlay_top(&s, &dash), &line);
	assert_int_equal(backs[0], 0);
	ui_overlay_remove(&s, &o0); /* not there: nothing */
	assert_true(ui_overlay_back(&s, &dash)); /* no back: popped */
	assert_int_equal(s.n, 0);
}

static void test_full(void **state)
{
	ui_overlays s = {0};
	static ui_overlay many[UI_OVERLAY_MAX + 1];

	(void)state;
	for (int i = 0; i <= UI_OVERLAY_MAX; i++) {
		many[i].name = "many";
		ui_overlay_push(&s, &many[i]);
	}
	assert_int_equal(s.n, UI_OVERLAY_MAX);
	assert_ptr_equal(s.at[0], &many[1]);
	assert_ptr_equal(ui_overlay_top(&s, &dash), &many[UI_OVERLAY_MAX]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_push_and_back, setup, NULL),
		cmocka_unit_test_setup_teardown(test_back_that_stays, setup, NULL),
		cmocka_unit_test_setup_teardown(test_not_live, setup, NULL),
		cmocka_unit_test_setup_teardown(test_line_and_remove, setup, NULL),
		cmocka_unit_test_setup_teardown(test_full, setup, NULL),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
