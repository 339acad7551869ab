/* Following a database store's changes as they happen, for a live view
 * (the dashboard) over sessions written from any number of hosts.
 *
 * Every write of the PostgreSQL store sends pg_notify('agentctl',
 * '{"kind","tenant","session"}') when it commits (ac_backend_pg.h). A store
 * watch LISTENs on a connection of its own and says what changed. It never
 * blocks its caller: the connection is made step by step as its socket
 * becomes ready (the caller polls the socket with its others), and a lost
 * connection is made again after a pause, then reported as "read
 * everything again" (what was sent while it was down is not replayed).
 * While live it also says "read everything again" once a minute
 * (ac_store_watch_set_rescan()), for writers that notify nobody.
 * It reads no data itself: the caller reads through the ac_backend. Not
 * for the files: their watcher is ac_watch.h. */
#ifndef AC_STORE_WATCH_H
#define AC_STORE_WATCH_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ac_store_watch ac_store_watch;

/* What ac_store_watch_read() found. */
enum {
	AC_STORE_CHANGED = 1 << 0, /* a session (or what belongs to one) changed */
	AC_STORE_RESCAN = 1 << 1,  /* (re)connected: anything may have changed */
	AC_STORE_JOURNAL = 1 << 2, /* journal events were appended (kind "journal") */
	AC_STORE_CHECKPOINTS = 1 << 3, /* a checkpoint was saved or removed */
};

/* Starts following the store url names (a postgresql:// URL or a libpq
 * connection string; borrowed). 0, or AC_ENOTSUP (no libpq), AC_EINVAL
 * (unreadable url), AC_ENOMEM; an unreachable server is not an error here:
 * ac_store_watch_state() says so and the watch keeps trying. */
int ac_store_watch_new(ac_store_watch **out, const char *url);

void ac_store_watch_free(ac_store_watch *w);

/* The socket to poll (-1: none now, see ac_store_watch_timeout_ms) and
 * the poll events it waits for (*events: POLLIN or POLLOUT). */
int ac_store_watch_fd(const ac_store_watch *w, short *events);

/* Milliseconds until the watch wants to be read without its socket (the
 * next connection attempt, or the next reading of everything), 0 at
 * once, -1 never. */
int ac_store_watch_timeout_ms(const ac_store_watch *w);

/* Does what is ready and returns at once: advances a connection being
 * made, reads the notifications that arrived. Returns a mask of
 * AC_STORE_*; 0 when nothing changed. A notification's kind picks its
 * bit: "journal" AC_STORE_JOURNAL, "checkpoint" AC_STORE_CHECKPOINTS,
 * any other AC_STORE_CHANGED. *out_session (may be NULL) receives the
 * session the AC_STORE_CHANGED ones name when they all name the same
 * one, else "" (borrowed from w until the next call). */
unsigned ac_store_watch_read(ac_store_watch *w, const char **out_session);

/* The size of a session id as ac_store_watch_sessions() hands it out
 * (AC_BACKEND_ID_MAX + 1). */
#define AC_STORE_ID_SIZE 201

/* After a read that returned AC_STORE_CHANGED: the sessions its
 * notifications named, each once, in *out (borrowed from w until the next
 * read), and their count; SIZE_MAX (*out NULL) when some change named no
 * session or too many came at once: then read them all. */
size_t ac_store_watch_sessions(const ac_store_watch *w, const char (**out)[AC_STORE_ID_SIZE]);

/* While live, a read reports AC_STORE_RESCAN every ms milliseconds (<= 0:
 * the default, a minute) besides what notifications say: what a writer
 * that sends none changed is seen that late, never not at all. */
void ac_store_watch_set_rescan(ac_store_watch *w, int ms);

/* After a read that returned AC_STORE_CHECKPOINTS: the session whose
 * checkpoints changed when all those notifications named the same one,
 * else "" (borrowed from w until the next read). */
const char *ac_store_watch_checkpoint_session(const ac_store_watch *w);

/* True while LISTENing. */
bool ac_store_watch_live(const ac_store_watch *w);

/* What the watch is doing, for a status line: "following the store",
 * "connecting to the store", or why the connection was lost (the store
 * named without its password). Borrowed from w. */
const char *ac_store_watch_state(const ac_store_watch *w);

#endif
