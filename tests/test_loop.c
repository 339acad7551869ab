/* The dashboard's event sources (tui/loop.h), on pipes: a ready fd calls
 * its source back, an idle one does not unless it asked for every turn;
 * sources called in the order added; removal from a callback (its own,
 * another's) and addition from one; a closed fd told POLLNVAL once and
 * removed; set_fd moves a source; an interrupted wait still calls the
 * every-turn sources. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loop.h"

#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

typedef struct {
	int calls;
	short last;
	char *order;    /* appends its tag here when called */
	char tag;
	int remove_id;  /* removes this source when called (-1: none) */
	int add;        /* adds a new source when called */
	int added_id;
	struct ui_loop *loop_seen;
} probe;

static void on_event(ui_loop *loop, int fd, short revents, void *data)
{
	probe *p = data;

	(void)fd;
	p->calls++;
	p->last = revents;
	p->loop_seen = loop;
	if (p->order)
		p->order[strlen(p->order)] = p->tag;
	if (p->remove_id >= 0)
		ui_loop_remove(loop, p->remove_id);
	if (p->add) {
		p->added_id = ui_loop_add(loop, -1, 0, UI_LOOP_EVERY_TURN, on_event, p);
		p->add = 0;
	}
}

static void test_ready_and_idle(void **state)
{
	ui_loop *loop;
	int a[2], b[2];
	probe pa = {.remove_id = -1}, pb = {.remove_id = -1}, tick = {.remove_id = -1};

	(void)state;
	assert_int_equal(pipe(a), 0);
	assert_int_equal(pipe(b), 0);
	assert_int_equal(ui_loop_new(&loop), 0);
	assert_true(ui_loop_add(loop, a[0], POLLIN, 0, on_event, &pa) >= 0);
	assert_true(ui_loop_add(loop, b[0], POLLIN, 0, on_event, &pb) >= 0);
	assert_true(ui_loop_add(loop, -1, 0, UI_LOOP_EVERY_TURN, on_event, &tick) >= 0);
	assert_int_equal(ui_loop_count(loop), 3);

	assert_int_equal(write(a[1], "x", 1), 1);
	assert_int_equal(ui_loop_turn(loop, 1000), 0);
	assert_int_equal(pa.calls, 1);
	assert_true(pa.last & POLLIN);
	assert_ptr_equal(pa.loop_seen, loop);
	assert_int_equal(pb.calls, 0); /* idle, not every turn */
	assert_int_equal(tick.calls, 1);
	assert_int_equal(tick.last, 0);

	/* Nothing ready: the timeout, then only the ticking source. */
	assert_int_equal(read(a[0], (char[1]){0}, 1), 1);
	assert_int_equal(ui_loop_turn(loop, 10), 0);
	assert_int_equal(pa.calls, 1);
	assert_int_equal(tick.calls, 2);

	ui_loop_free(loop);
	close(a[0]), close(a[1]), close(b[0]), close(b[1]);
}

static void test_order(void **state)
{
	ui_loop *loop;
	char order[8] = "";
	probe p[3] = {{.order = order, .tag = 'a', .remove_id = -1},
		      {.order = order, .tag = 'b', .remove_id = -1},
		      {.order = order, .tag = 'c', .remove_id = -1}};

	(void)state;
	assert_int_equal(ui_loop_new(&loop), 0);
	for (int i = 0; i < 3; i++)
		assert_true(ui_loop_add(loop, -1, 0, UI_LOOP_EVERY_TURN, on_event, &p[i]) >= 0);
	assert_int_equal(ui_loop_turn(loop, 0), 0);
	assert_string_equal(order, "abc");
	ui_loop_free(loop);
}

/* A callback removes a later source (not called this turn), then itself;
 * one adds a source (called from the next turn on). */
static void test_remove_and_add_during_dispatch(void **state)
{
	ui_loop *loop;
	char order[16] = "";
	probe first = {.order = order, .tag = 'a', .remove_id = -1};
	probe second = {.order = order, .tag = 'b', .remove_id = -1};
	int id_first, id_second;

	(void)state;
	assert_int_equal(ui_loop_new(&loop), 0);
	id_first = ui_loop_add(loop, -1, 0, UI_LOOP_EVERY_TURN, on_event, &first);
	id_second = ui_loop_add(loop, -1, 0, UI_LOOP_EVERY_TURN, on_event, &second);
	assert_true(id_first >= 0 && id_second >= 0);
	first.remove_id = id_second;
	assert_int_equal(ui_loop_turn(loop, 0), 0);
	assert_string_equal(order, "a");
	assert_int_equal(second.calls, 0);
	assert_int_equal(ui_loop_count(loop), 1);

	/* Itself, and a new one in the same turn: the new one waits. */
	first.remove_id = id_first;
	first.add = 1;
	assert_int_equal(ui_loop_turn(loop, 0), 0);
	assert_string_equal(order, "aa");
	assert_int_equal(ui_loop_count(loop), 1); /* only the one added */
	first.remove_id = -1;
	assert_int_equal(ui_loop_turn(loop, 0), 0);
	assert_string_equal(order, "aaa"); /* the added one, with first's probe */
	assert_int_equal(ui_loop_count(loop), 1);
	ui_loop_remove(loop, first.added_id);
	assert_int_equal(ui_loop_count(loop), 0);
	assert_int_equal(ui_loop_turn(loop, 0), 0);
	assert_string_equal(order, "aaa");
	ui_loop_free(loop);
}

/* An fd closed behind the loop's back: POLLNVAL once, then the source is
 * gone, and the others go on. */
static void test_closed_fd(void **state)
{
	ui_loop *loop;
	int a[2];
	probe gone = {.remove_id = -1}, tick = {.remove_id = -1};

	(void)state;
	assert_int_equal(pipe(a), 0);
	assert_int_equal(ui_loop_new(&loop), 0);
	assert_true(ui_loop_add(loop, a[0], POLLIN, 0, on_event, &gone) >= 0);
	assert_true(ui_loop_add(loop, -1, 0, UI_LOOP_EVERY_TURN, on_event, &tick) >= 0);
	close(a[0]);
	close(a[1]);
	assert_int_equal(ui_loop_turn(loop, 1000), 0);
	assert_int_equal(gone.calls, 1);
	assert_true(gone.last & POLLNVAL);
	assert_int_equal(ui_loop_count(loop), 1);
	assert_int_equal(ui_loop_turn(loop, 0), 0);
	assert_int_equal(gone.calls, 1);
	assert_int_equal(tick.calls, 2);
	ui_loop_free(loop);
}

/* A source without an fd yet (a job not started), then given one. */
static void test_set_fd(void **state)
{
	ui_loop *loop;
	int a[2], id;
	probe p = {.remove_id = -1};

	(void)state;
	assert_int_equal(pipe(a), 0);
	assert_int_equal(ui_loop_new(&loop), 0);
	assert_true((id = ui_loop_add(loop, -1, POLLIN, 0, on_event, &p)) >= 0);
	assert_int_equal(write(a[1], "x", 1), 1);
	assert_int_equal(ui_loop_turn(loop, 0), 0);
	assert_int_equal(p.calls, 0);
	ui_loop_set_fd(loop, id, a[0], POLLIN);
	assert_int_equal(ui_loop_turn(loop, 1000), 0);
	assert_int_equal(p.calls, 1);
	ui_loop_set_fd(loop, id, -1, 0);
	assert_int_equal(ui_loop_turn(loop, 0), 0);
	assert_int_equal(p.calls, 1);
	ui_loop_free(loop);
	close(a[0]), close(a[1]);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A signal ends the wait (SIGWINCH in the dashboard): the every-turn
 * sources run, the others are not told anything. */
static void test_interrupted(void **state)
{
	ui_loop *loop;
	int a[2];
	probe idle = {.remove_id = -1}, tick = {.remove_id = -1};
	struct sigaction sa = {.sa_handler = on_alarm}, old;
	struct itimerval t = {.it_value = {0, 20000}};

	(void)state;
	assert_int_equal(pipe(a), 0);
	assert_int_equal(ui_loop_new(&loop), 0);
	assert_true(ui_loop_add(loop, a[0], POLLIN, 0, on_event, &idle) >= 0);
	assert_true(ui_loop_add(loop, -1, 0, UI_LOOP_EVERY_TURN, on_event, &tick) >= 0);
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	assert_int_equal(setitimer(ITIMER_REAL, &t, NULL), 0);
	assert_int_equal(ui_loop_turn(loop, 5000), 0);
	assert_int_equal(sigaction(SIGALRM, &old, NULL), 0);
	assert_int_equal(idle.calls, 0);
	assert_int_equal(tick.calls, 1);
	assert_false(ui_loop_stopped(loop));
	ui_loop_stop(loop);
	assert_true(ui_loop_stopped(loop));
	ui_loop_free(loop);
	close(a[0]), close(a[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ready_and_idle),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_remove_and_add_during_dispatch),
		cmocka_unit_test(test_closed_fd),
		cmocka_unit_test(test_set_fd),
		cmocka_unit_test(test_interrupted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
