/* The usage meter's worker (see usage_meter.h). One thread scans, sleeps
 * on a condition for a minute, and scans again; the figures it leaves are
 * read under the same mutex; a byte in a pipe wakes the dashboard's
 * poll(). Everything the thread reads (paths, pricing, budget) is its own
 * copy: jansson values are not shared across threads. */
#include "usage_meter.h"

#include "ac_error.h"
#include "ac_time.h"
#include "ac_usage_report.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EVERY_MS 60000

struct ui_usage_meter {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop, ready, known;
	atomic_bool cancel; /* quitting: a scan stops between two files */
	double day, month;          /* USD */
	double budget_day, budget_month; /* 0: none */
	ac_usage_paths paths;
	json_t *pricing;            /* the thread's own copy, or NULL */
	char *workspace;
	int pipe[2];
	/* The transcripts' token totals of the last scan; their ids point
	 * into ids (the scan's set is not kept). */
	char *ids;
	ac_usage_session_total *totals;
	size_t n_totals;
	uint64_t totals_gen;
};

/* Copies the ids totals[] borrow from the scan's set into one block,
 * *out (free()); NULL when there are none. 0 or AC_ENOMEM. */
static int own_ids(char **out, ac_usage_session_total *totals, size_t n)
{
	size_t size = 0, at = 0;

	*out = NULL;
	for (size_t i = 0; i < n; i++)
		size += strlen(totals[i].session_id) + 1;
	if (!size)
		return 0;
	if (!(*out = malloc(size)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(totals[i].session_id) + 1;

		memcpy(*out + at, totals[i].session_id, len);
		totals[i].session_id = *out + at;
		at += len;
	}
	return 0;
}

static void measure(ui_usage_meter *m)
{
	ac_usage_scan_options o = ac_usage_paths_options(&m->paths);
	ac_usage_set set = {0};
	ac_usage_session_total *totals = NULL;
	size_t n_totals = 0;
	char *ids = NULL;
	double day = 0, month = 0;
	bool known = false;

	o.cancel = &m->cancel;
	/* An index that could not be saved still leaves the figures. */
	if (ac_usage_scan(&set, &o) != 0)
		goto done;
	if (ac_usage_spend(&day, &month, &known, &set, m->workspace, m->pricing,
			   ac_time_now_ms()) != 0 ||
	    ac_usage_session_totals(&totals, &n_totals, &set, m->workspace) != 0 ||
	    own_ids(&ids, totals, n_totals) != 0)
		goto done;
	pthread_mutex_lock(&m->lock);
	m->day = day;
	m->month = month;
	m->known = known;
	m->ready = true;
	free(m->totals);
	free(m->ids);
	m->ids = ids;
	m->totals = totals;
	m->n_totals = n_totals;
	m->totals_gen++;
	pthread_mutex_unlock(&m->lock);
	if (write(m->pipe[1], "u", 1) < 0) {
		/* Full: the dashboard has a wake-up pending already. */
	}
	totals = NULL;
	ids = NULL;
done:
	free(totals);
	free(ids);
	ac_usage_set_free(&set);
}

static void release(ui_usage_meter *m)
{
	pthread_mutex_destroy(&m->lock);
	pthread_cond_destroy(&m->wake);
	close(m->pipe[0]);
	close(m->pipe[1]);
	ac_usage_paths_free(&m->paths);
	json_decref(m->pricing);
	free(m->workspace);
	free(m->totals);
	free(m->ids);
	free(m);
}

static void *run(void *arg)
{
	ui_usage_meter *m = arg;

	for (;;) {
		struct timespec until;

		measure(m);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += EVERY_MS / 1000;
		pthread_mutex_lock(&m->lock);
		while (!m->stop && pthread_cond_timedwait(&m->wake, &m->lock, &until) != ETIMEDOUT) {
		}
		if (m->stop) {
			pthread_mutex_unlock(&m->lock);
			return NULL;
		}
		pthread_mutex_unlock(&m->lock);
	}
}

static double budget(const ac_config *config, const char *which)
{
	const json_t *v = json_object_get(ac_config_get(config, "usage.budgetUsd"), which);

	return json_is_number(v) && json_number_value(v) > 0 ? json_number_value(v) : 0;
}

int ui_usage_meter_start(ui_usage_meter **out, const ac_workspace *ws, const ac_config *config)
{
	ui_usage_meter *m = calloc(1, sizeof(*m));
	const json_t *pricing = ac_config_get(config, "pricing");
	sigset_t all, old;
	int rc;

	*out = NULL;
	if (!m)
		return ac_error_set(AC_ENOMEM, "out of memory");
	m->pipe[0] = m->pipe[1] = -1;
	if ((rc = ac_usage_paths_init(&m->paths, ws)))
		goto fail;
	if (ac_usage_pricing_check(pricing) == 0 && pricing && !(m->pricing = json_deep_copy(pricing))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto fail;
	}
	m->workspace = realpath(ws->root, NULL);
	if (!m->workspace && !(m->workspace = strdup(ws->root))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto fail;
	}
	m->budget_day = budget(config, "day");
	m->budget_month = budget(config, "month");
	if (pipe2(m->pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		rc = ac_error_errno(errno, "usage meter");
		goto fail;
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->wake, NULL);
	/* Signals stay with the dashboard's thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&m->thread, NULL, run, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		pthread_mutex_destroy(&m->lock);
		pthread_cond_destroy(&m->wake);
		rc = ac_error_set(AC_EIO, "usage meter: cannot start a thread");
		goto fail;
	}
	*out = m;
	return 0;
fail:
	if (m->pipe[0] >= 0) {
		close(m->pipe[0]);
		close(m->pipe[1]);
	}
	ac_usage_paths_free(&m->paths);
	json_decref(m->pricing);
	free(m->workspace);
	free(m);
	return rc;
}

int ui_usage_meter_fd(const ui_usage_meter *m)
{
	return m ? m->pipe[0] : -1;
}

void ui_usage_meter_ack(ui_usage_meter *m)
{
	char bytes[16];

	while (m && read(m->pipe[0], bytes, sizeof(bytes)) > 0) {
	}
}

static void spent(ac_buf *out, const char *what, double cost, double limit, bool *over)
{
	ac_buf_printf(out, "  %s $%.2f", what, cost);
	if (limit > 0)
		ac_buf_printf(out, " of $%.2f%s", limit, cost > limit ? " OVER BUDGET" : "");
	if (limit > 0 && cost > limit)
		*over = true;
}

bool ui_usage_meter_line(ui_usage_meter *m, ac_buf *out, bool *out_over)
{
	bool ready;

	*out_over = false;
	if (!m)
		return false;
	pthread_mutex_lock(&m->lock);
	if ((ready = m->ready)) {
		ac_buf_printf(out, "  usage");
		spent(out, "today", m->day, m->budget_day, out_over);
		spent(out, "month", m->month, m->budget_month, out_over);
		if (!m->known)
			ac_buf_printf(out, " (+ cost unknown: models without a price)");
	}
	pthread_mutex_unlock(&m->lock);
	return ready;
}

bool ui_usage_meter_tokens(ui_usage_meter *m, uint64_t *seen_gen, ui_model *model)
{
	bool changed = false;

	if (!m)
		return false;
	pthread_mutex_lock(&m->lock);
	if (m->totals_gen != *seen_gen) {
		/* The model takes them: the next scan makes new ones. */
		*seen_gen = m->totals_gen;
		changed = ui_model_take_usage_tokens(model, m->totals, m->n_totals, m->ids);
		m->totals = NULL;
		m->ids = NULL;
		m->n_totals = 0;
	}
	pthread_mutex_unlock(&m->lock);
	return changed;
}

void ui_usage_meter_stop(ui_usage_meter *m)
{
	if (!m)
		return;
	/* Quitting does not wait for a cold scan of every transcript: it
	 * stops after the file it is reading, and the thread is joined, so
	 * nothing it holds outlives the dashboard. */
	atomic_store(&m->cancel, true);
	pthread_mutex_lock(&m->lock);
	m->stop = true;
	pthread_cond_signal(&m->wake);
	pthread_mutex_unlock(&m->lock);
	pthread_join(m->thread, NULL);
	release(m);
}
