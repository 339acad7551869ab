/* The event sources and one turn of the loop (loop.h). Sources are kept
 * in an array whose index is their id; a removed slot is reused by the
 * next ui_loop_add. */
#include "loop.h"

#include "ac_error.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>

typedef struct {
	int fd;
	short events;
	unsigned flags;
	ui_loop_fn fn; /* NULL: a free slot */
	void *data;
	bool fresh;    /* added during this turn: called from the next one */
	int at;        /* its place in this turn's pollfd array, or -1 */
} source;

struct ui_loop {
	source *src;
	int n, cap;
	struct pollfd *fds;
	int fds_cap;
	bool stop;
};

int ui_loop_new(ui_loop **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : ac_error_set(AC_ENOMEM, "out of memory");
}

void ui_loop_free(ui_loop *loop)
{
	if (!loop)
		return;
	free(loop->src);
	free(loop->fds);
	free(loop);
}

int ui_loop_add(ui_loop *loop, int fd, short events, unsigned flags, ui_loop_fn fn, void *data)
{
	int id = 0;

	while (id < loop->n && loop->src[id].fn)
		id++;
	if (id == loop->cap) {
		int cap = loop->cap ? 2 * loop->cap : 8;
		source *grown = realloc(loop->src, (size_t)cap * sizeof(*grown));

		if (!grown)
			return ac_error_set(AC_ENOMEM, "out of memory");
		loop->src = grown;
		loop->cap = cap;
	}
	if (id == loop->n)
		loop->n++;
	loop->src[id] = (source){.fd = fd, .events = events, .flags = flags, .fn = fn,
				 .data = data, .fresh = true, .at = -1};
	return id;
}

void ui_loop_set_fd(ui_loop *loop, int id, int fd, short events)
{
	if (id >= 0 && id < loop->n && loop->src[id].fn) {
		loop->src[id].fd = fd;
		loop->src[id].events = events;
	}
}

void ui_loop_remove(ui_loop *loop, int id)
{
	if (id >= 0 && id < loop->n)
		loop->src[id].fn = NULL;
}

int ui_loop_count(const ui_loop *loop)
{
	int live = 0;

	for (int i = 0; i < loop->n; i++)
		live += loop->src[i].fn != NULL;
	return live;
}

/* This turn's pollfd array, one entry per source with an fd. */
static int gather(ui_loop *loop, nfds_t *out_n)
{
	nfds_t n = 0;

	if (loop->fds_cap < loop->n) {
		struct pollfd *grown = realloc(loop->fds, (size_t)loop->n * sizeof(*grown));

		if (!grown)
			return ac_error_set(AC_ENOMEM, "out of memory");
		loop->fds = grown;
		loop->fds_cap = loop->n;
	}
	for (int i = 0; i < loop->n; i++) {
		source *s = &loop->src[i];

		s->fresh = false;
		s->at = -1;
		if (!s->fn || s->fd < 0)
			continue;
		s->at = (int)n;
		loop->fds[n++] = (struct pollfd){s->fd, s->events, 0};
	}
	*out_n = n;
	return 0;
}

int ui_loop_turn(ui_loop *loop, int timeout_ms)
{
	nfds_t n = 0;
	int status = gather(loop, &n);

	if (status)
		return status;
	if (poll(loop->fds, n, timeout_ms) < 0 && errno != EINTR)
		return ac_error_errno(errno, "poll");
	/* loop->n may grow meanwhile: what is added waits for the next turn. */
	for (int i = 0; i < loop->n; i++) {
		source *s = &loop->src[i];
		short revents = s->at >= 0 ? loop->fds[s->at].revents : 0;
		int fd = s->fd;

		if (!s->fn || s->fresh || (!revents && !(s->flags & UI_LOOP_EVERY_TURN)))
			continue;
		s->fn(loop, fd, revents, s->data);
		/* The callback may have grown (moved) the array. */
		if ((revents & POLLNVAL) && !loop->src[i].fresh)
			loop->src[i].fn = NULL;
	}
	return 0;
}

void ui_loop_stop(ui_loop *loop)
{
	loop->stop = true;
}

bool ui_loop_stopped(const ui_loop *loop)
{
	return loop->stop;
}
