/* A store watch (ac_store_watch.h): LISTEN agentctl on a connection of its
 * own, made and read without ever blocking, so a live view's loop polls
 * its socket beside the terminal and the file watcher.
 *
 * States: down (no connection; the next attempt at retry_at) ->
 * connecting (PQconnectPoll as the socket allows) -> listen sent (the
 * LISTEN's result awaited) -> live (notifications read as they come).
 * Anything that fails goes back to down; the next live state reports
 * AC_STORE_RESCAN, since notifications sent meanwhile are lost. */
#include "ac_store_watch.h"

#include "ac_backend.h"
#include "ac_error.h"
#include "ac_libpq.h"
#include "ac_pg.h"
#include "ac_time.h"

#include <jansson.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Between two connection attempts: often enough that a restarted server
 * is followed again within a second or two, rarely enough to cost nothing. */
#define RETRY_MS 1000

/* Between two readings of everything while live: what a writer that sends
 * no notification (an older agentctl, a hand-made UPDATE) changed shows
 * within this, at the cost of one listing a minute. */
#define RESCAN_MS 60000

/* The sessions one read names one by one; beyond, "read them all". */
#define NAMED_MAX 64

_Static_assert(AC_STORE_ID_SIZE == AC_BACKEND_ID_MAX + 1, "the header's id size is the backend's");

typedef enum { WATCH_DOWN, WATCH_CONNECTING, WATCH_LISTEN_SENT, WATCH_LIVE } watch_state;

struct ac_store_watch {
	char *url;        /* as given, password included: never shown */
	char *shown;      /* the same without its password */
	PGconn *conn;
	watch_state state;
	PostgresPollingStatusType polling; /* while connecting: what to wait for */
	int64_t retry_at;
	int64_t rescan_at; /* while live: the next reading of everything */
	int rescan_ms;
	char text[512];   /* ac_store_watch_state() */
	char session[AC_BACKEND_ID_MAX + 1];
	char ckpt_session[AC_BACKEND_ID_MAX + 1];
	/* The sessions the last read's AC_STORE_CHANGED named, each once;
	 * n_named SIZE_MAX when some went unnamed or too many came. */
	char named[NAMED_MAX][AC_BACKEND_ID_MAX + 1];
	size_t n_named;
};

/* The connection is gone (or never came): why, as every store error is
 * said (ac_pg.c's one line: the operation, the store without its
 * password, then "database: " and libpq's first line without its
 * severity words, made visible), and when to try again. */
static void lose(ac_store_watch *w, const char *operation)
{
	char line[320];

	if (w->conn)
		ac_pg_message(sym_PQerrorMessage(w->conn), line, sizeof(line));
	else
		snprintf(line, sizeof(line), "out of memory");
	snprintf(w->text, sizeof(w->text), "store watch, %s (%s): database: %s; trying again "
		 "every %d s", operation, w->shown, line[0] ? line : "no reason given",
		 RETRY_MS / 1000);
	if (w->conn)
		sym_PQfinish(w->conn);
	w->conn = NULL;
	w->state = WATCH_DOWN;
	w->retry_at = ac_time_now_ms() + RETRY_MS;
}

static void start(ac_store_watch *w)
{
	w->conn = sym_PQconnectStart(w->url);
	ac_pg_quiet(w->conn);
	if (!w->conn || sym_PQstatus(w->conn) == CONNECTION_BAD) {
		lose(w, "connecting");
		return;
	}
	w->state = WATCH_CONNECTING;
	/* libpq's rule: at first, wait as if PQconnectPoll said "writing". */
	w->polling = PGRES_POLLING_WRITING;
	snprintf(w->text, sizeof(w->text), "connecting to the store %s", w->shown);
}

int ac_store_watch_new(ac_store_watch **out, const char *url)
{
	ac_store_watch *w;
	int rc;

	*out = NULL;
	if (!url || !*url)
		return ac_error_set(AC_EINVAL, "store watch: no storage url");
	if ((rc = ac_libpq_load()))
		return rc;
	if (!(w = calloc(1, sizeof(*w))) || !(w->url = strdup(url)) ||
	    !(w->shown = ac_pg_redact(url))) {
		ac_store_watch_free(w);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	w->rescan_ms = RESCAN_MS;
	start(w);
	*out = w;
	return 0;
}

void ac_store_watch_set_rescan(ac_store_watch *w, int ms)
{
	if (!w)
		return;
	w->rescan_ms = ms > 0 ? ms : RESCAN_MS;
	if (w->state == WATCH_LIVE)
		w->rescan_at = ac_time_now_ms() + w->rescan_ms;
}

void ac_store_watch_free(ac_store_watch *w)
{
	if (!w)
		return;
	if (w->conn)
		sym_PQfinish(w->conn);
	free(w->url);
	free(w->shown);
	free(w);
}

int ac_store_watch_fd(const ac_store_watch *w, short *events)
{
	*events = POLLIN;
	if (!w || w->state == WATCH_DOWN)
		return -1;
	if (w->state == WATCH_CONNECTING && w->polling == PGRES_POLLING_WRITING)
		*events = POLLOUT;
	return sym_PQsocket(w->conn);
}

int ac_store_watch_timeout_ms(const ac_store_watch *w)
{
	int64_t left;

	if (!w || (w->state != WATCH_DOWN && w->state != WATCH_LIVE))
		return -1;
	if (w->state == WATCH_LIVE) {
		left = w->rescan_at - ac_time_now_ms();
		return left <= 0 ? 0 : left > w->rescan_ms ? w->rescan_ms : (int)left;
	}
	left = w->retry_at - ac_time_now_ms();
	return left <= 0 ? 0 : left > RETRY_MS ? RETRY_MS : (int)left;
}

/* What a notification's payload names: its kind's AC_STORE_* bit and
 * its session ("" when none). */
static unsigned payload_read(char session[AC_BACKEND_ID_MAX + 1], const char *payload)
{
	json_t *doc = json_loads(payload, 0, NULL);
	const char *name = json_string_value(json_object_get(doc, "session"));
	const char *kind = json_string_value(json_object_get(doc, "kind"));
	unsigned bit = AC_STORE_CHANGED;

	if (kind && !strcmp(kind, "journal"))
		bit = AC_STORE_JOURNAL;
	else if (kind && !strcmp(kind, "checkpoint"))
		bit = AC_STORE_CHECKPOINTS;
	snprintf(session, AC_BACKEND_ID_MAX + 1, "%s", name ? name : "");
	json_decref(doc);
	return bit;
}

/* Notes that session changed in what bit names: the one session every
 * such notification names, or "" once two differ. */
static void note_session(char named[AC_BACKEND_ID_MAX + 1], bool *several, bool first,
			 const char *session)
{
	if (first)
		snprintf(named, AC_BACKEND_ID_MAX + 1, "%s", session);
	else if (strcmp(named, session))
		*several = true;
}

/* Adds session to the sessions this read names (once each); "" (a
 * change no session was named for) or one too many: all of them. */
static void note_named(ac_store_watch *w, const char *session)
{
	if (w->n_named == SIZE_MAX)
		return;
	for (size_t i = 0; *session && i < w->n_named; i++)
		if (!strcmp(w->named[i], session))
			return;
	if (!*session || w->n_named == NAMED_MAX) {
		w->n_named = SIZE_MAX;
		return;
	}
	snprintf(w->named[w->n_named++], AC_BACKEND_ID_MAX + 1, "%s", session);
}

/* Reads the notifications that arrived; the mask they make. */
static unsigned read_notifications(ac_store_watch *w)
{
	char session[AC_BACKEND_ID_MAX + 1];
	unsigned changed = 0;
	bool several = false, several_ckpt = false;
	PGnotify *n;

	if (!sym_PQconsumeInput(w->conn) || sym_PQstatus(w->conn) == CONNECTION_BAD) {
		/* The next connection reports AC_STORE_RESCAN. */
		lose(w, "reading notifications");
		return 0;
	}
	while ((n = sym_PQnotifies(w->conn))) {
		unsigned bit = payload_read(session, n->extra ? n->extra : "");

		/* A journal event belongs to no session's row: it never costs
		 * the sessions a reading. */
		if (bit == AC_STORE_CHANGED) {
			note_session(w->session, &several, !(changed & bit), session);
			note_named(w, session);
		} else if (bit == AC_STORE_CHECKPOINTS) {
			note_session(w->ckpt_session, &several_ckpt, !(changed & bit), session);
		}
		changed |= bit;
		sym_PQfreemem(n);
	}
	if (several)
		w->session[0] = '\0';
	if (several_ckpt)
		w->ckpt_session[0] = '\0';
	return changed;
}

/* The LISTEN's result, once it is all there. */
static unsigned read_listen_result(ac_store_watch *w)
{
	PGresult *res;
	bool ok = true;

	if (!sym_PQconsumeInput(w->conn)) {
		lose(w, "LISTEN");
		return 0;
	}
	if (sym_PQisBusy(w->conn))
		return 0;
	while ((res = sym_PQgetResult(w->conn))) {
		ok = ok && sym_PQresultStatus(res) == PGRES_COMMAND_OK;
		sym_PQclear(res);
	}
	if (!ok) {
		lose(w, "LISTEN");
		return 0;
	}
	w->state = WATCH_LIVE;
	w->rescan_at = ac_time_now_ms() + w->rescan_ms;
	snprintf(w->text, sizeof(w->text), "following the store %s", w->shown);
	/* Whatever happened before this moment was not heard. */
	return AC_STORE_RESCAN | read_notifications(w);
}

unsigned ac_store_watch_read(ac_store_watch *w, const char **out_session)
{
	unsigned changed = 0;

	if (out_session)
		*out_session = "";
	if (!w)
		return 0;
	w->session[0] = '\0';
	w->ckpt_session[0] = '\0';
	w->n_named = 0;
	if (w->state == WATCH_DOWN && ac_time_now_ms() >= w->retry_at)
		start(w);
	if (w->state == WATCH_CONNECTING) {
		w->polling = sym_PQconnectPoll(w->conn);
		if (w->polling == PGRES_POLLING_FAILED)
			lose(w, "connecting");
		else if (w->polling == PGRES_POLLING_OK && !sym_PQsendQuery(w->conn, "LISTEN agentctl"))
			lose(w, "LISTEN");
		else if (w->polling == PGRES_POLLING_OK)
			w->state = WATCH_LISTEN_SENT;
	}
	if (w->state == WATCH_LISTEN_SENT)
		changed = read_listen_result(w);
	else if (w->state == WATCH_LIVE)
		changed = read_notifications(w);
	if (w->state == WATCH_LIVE && ac_time_now_ms() >= w->rescan_at) {
		changed |= AC_STORE_RESCAN;
		w->rescan_at = ac_time_now_ms() + w->rescan_ms;
	}
	if (out_session)
		*out_session = w->session;
	return changed;
}

size_t ac_store_watch_sessions(const ac_store_watch *w, const char (**out)[AC_STORE_ID_SIZE])
{
	*out = NULL;
	if (!w || w->n_named == SIZE_MAX)
		return SIZE_MAX;
	*out = (const char(*)[AC_STORE_ID_SIZE])w->named;
	return w->n_named;
}

const char *ac_store_watch_checkpoint_session(const ac_store_watch *w)
{
	return w ? w->ckpt_session : "";
}

bool ac_store_watch_live(const ac_store_watch *w)
{
	return w && w->state == WATCH_LIVE;
}

const char *ac_store_watch_state(const ac_store_watch *w)
{
	return w ? w->text : "";
}
