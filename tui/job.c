/* An operator action on a worker thread, its outcome through a pipe. */
#include "job.h"

#include "ac_error.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ui_job {
	pthread_t thread;
	int done[2];           /* the worker writes one byte when it has finished */
	int cancel[2];         /* the dashboard writes one byte to cancel */
	ui_dialog dlg;         /* the worker's own */
	const ac_workspace *ws;
	ui_act_outcome out;    /* written by the worker, read after the join */
	int64_t started;
	bool cancellable, cancelling;
	ac_buf what;           /* "compacting s1" */
};

static void close_pair(int fds[2])
{
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	fds[0] = fds[1] = -1;
}

static void *work(void *arg)
{
	ui_job *j = arg;
	ssize_t n;

	ui_act_run(&j->dlg, j->ws, j->cancellable ? j->cancel[0] : -1, &j->out);
	while ((n = write(j->done[1], "x", 1)) < 0 && errno == EINTR)
		;
	return NULL;
}

int ui_job_start(ui_job **out, ui_dialog *d, const ac_workspace *ws, int64_t now)
{
	ui_job *j = calloc(1, sizeof(*j));
	sigset_t all, old;
	int rc = 0;

	*out = NULL;
	if (!j)
		return ac_error_set(AC_ENOMEM, "out of memory");
	j->done[0] = j->done[1] = j->cancel[0] = j->cancel[1] = -1;
	if (pipe2(j->done, O_CLOEXEC) != 0 || pipe2(j->cancel, O_CLOEXEC) != 0) {
		rc = ac_error_errno(errno, "cannot start the action: pipe");
		goto fail;
	}
	j->ws = ws;
	j->started = now;
	j->cancellable = ui_act_cancellable(d, ws);
	ui_act_running(&j->what, d);
	j->dlg = *d;
	/* Signals (SIGWINCH, SIGTERM) stay with the dashboard's thread,
	 * whose poll() they must interrupt. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	errno = pthread_create(&j->thread, NULL, work, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (errno) {
		rc = ac_error_errno(errno, "cannot start the action: thread");
		goto fail;
	}
	memset(d, 0, sizeof(*d));
	*out = j;
	return 0;
fail:
	close_pair(j->done);
	close_pair(j->cancel);
	ac_buf_free(&j->what);
	free(j);
	return rc == AC_ENOMEM ? rc : AC_EIO;
}

int ui_job_fd(const ui_job *j)
{
	return j->done[0];
}

bool ui_job_done(const ui_job *j)
{
	struct pollfd p = {.fd = j->done[0], .events = POLLIN};

	return poll(&p, 1, 0) == 1;
}

const char *ui_job_what(const ui_job *j)
{
	return j->what.data ? j->what.data : "";
}

bool ui_job_cancellable(const ui_job *j)
{
	return j->cancellable;
}

bool ui_job_cancelled(const ui_job *j)
{
	return j->cancelling;
}

bool ui_job_cancel(ui_job *j)
{
	ssize_t n;

	if (!j->cancellable || j->cancelling)
		return false;
	while ((n = write(j->cancel[1], "x", 1)) < 0 && errno == EINTR)
		;
	j->cancelling = n == 1;
	return j->cancelling;
}

void ui_job_describe(const ui_job *j, ac_buf *out, int64_t now)
{
	int64_t s = (now - j->started) / 1000;

	ac_buf_printf(out, "%s\xe2\x80\xa6 %llds  %s", j->what.data ? j->what.data : "",
		      (long long)(s < 0 ? 0 : s),
		      j->cancelling ? "cancelling\xe2\x80\xa6"
		      : j->cancellable ? "Esc: cancel"
				       : "(cannot be cancelled now)");
}

int ui_job_tick_ms(const ui_job *j, int64_t now)
{
	int64_t ms = now - j->started;

	return ms < 0 ? 1000 : (int)(1000 - ms % 1000);
}

void ui_job_finish(ui_job *j, ui_dialog *d, ui_act_outcome *out)
{
	pthread_join(j->thread, NULL);
	*d = j->dlg;
	*out = j->out;
	close_pair(j->done);
	close_pair(j->cancel);
	ac_buf_free(&j->what);
	free(j);
}
