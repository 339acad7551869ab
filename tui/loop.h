/* The dashboard's event sources (redis's ae: aeCreateFileEvent): each
 * thing the loop waits on registers {fd, events, callback, data} once,
 * and one turn polls them all and calls back, in the order they were
 * added. A source whose reader also works by time (a watcher that polls,
 * a store that reconnects, the terminal after a signal) is called every
 * turn, told what poll(2) saw, which may be nothing. Not thread-safe: the
 * dashboard's one thread owns it. No curses here, no dashboard state:
 * what a callback does is the caller's. */
#ifndef UI_LOOP_H
#define UI_LOOP_H

#include <stdbool.h>

typedef struct ui_loop ui_loop;

/* Called with what poll(2) reported for the source's fd (0: nothing, or
 * no fd); POLLNVAL when the fd was closed behind the loop's back (the
 * source is then removed, after this call). May add or remove sources,
 * this one included; a source removed is not called again, a source
 * added is called from the next turn on. */
typedef void (*ui_loop_fn)(ui_loop *loop, int fd, short revents, void *data);

enum {
	UI_LOOP_EVERY_TURN = 1 << 0, /* called each turn, ready or not */
};

/* A new, empty loop into *out; free with ui_loop_free. 0 or AC_ENOMEM. */
int ui_loop_new(ui_loop **out);

void ui_loop_free(ui_loop *loop);

/* Registers fd (-1: none yet, or a source that only ticks) for events
 * (POLLIN...), calling fn(loop, fd, revents, data) when it is ready, or
 * every turn with UI_LOOP_EVERY_TURN. data is borrowed. Returns the
 * source's id (>= 0), or AC_ENOMEM. */
int ui_loop_add(ui_loop *loop, int fd, short events, unsigned flags, ui_loop_fn fn, void *data);

/* Points source id at another fd (or -1) and events: a running job's
 * pipe, a store's socket across reconnections. */
void ui_loop_set_fd(ui_loop *loop, int id, int fd, short events);

/* Removes source id; safe from any callback, its own included. */
void ui_loop_remove(ui_loop *loop, int id);

/* The sources registered and not removed. */
int ui_loop_count(const ui_loop *loop);

/* One turn: waits up to timeout_ms (-1: no limit) for any source's fd,
 * then calls the sources back. An interrupted wait (a signal) still calls
 * the every-turn sources. Returns 0, or AC_EIO when poll(2) failed
 * otherwise (nothing is called). */
int ui_loop_turn(ui_loop *loop, int timeout_ms);

/* Asks the loop's owner to stop after this turn (ui_loop_stopped). */
void ui_loop_stop(ui_loop *loop);

bool ui_loop_stopped(const ui_loop *loop);

#endif
