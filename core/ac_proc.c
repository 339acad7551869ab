/* Running argv commands: one poll() loop feeds stdin and drains stdout and
 * stderr, so neither side can block the other whatever the sizes. */
#include "ac_proc.h"

#include "ac_error.h"
#include "ac_file.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define OUT_LIMIT ((size_t)16 << 20)
#define ERR_LIMIT ((size_t)64 << 10)
#define WRITE_CHUNK ((size_t)64 << 10)
/* Without a pidfd, how often the loop looks whether the child has exited. */
#define EXIT_CHECK_MS 20

/* What a child reports through its close-on-exec pipe before it execs. */
enum { REPORT_PID, REPORT_CHDIR, REPORT_EXEC, REPORT_SETUP };

typedef struct {
	int kind;
	int value; /* a pid or an errno */
} child_report;

/* A child may only use async-signal-safe calls before exec: no ac_error,
 * no malloc. */
static void report(int fd, int kind, int value)
{
	child_report r = {kind, value};
	ssize_t n;

	do
		n = write(fd, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
}

/* Moves fd above 2, so that putting the three pipes on 0, 1 and 2 cannot
 * overwrite one of them when the parent ran with a standard fd closed. */
static int move_high(int fd)
{
	return fd > 2 ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

/* In a child: in, out and err onto 0, 1, 2 (dup2 clears close-on-exec). */
static int child_setup_fds(int in, int out, int err)
{
	if ((in = move_high(in)) < 0 || (out = move_high(out)) < 0 || (err = move_high(err)) < 0)
		return -1;
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		return -1;
	return 0;
}

/* In a child: the signal state a freshly started program expects, whatever
 * the parent blocks or ignores. */
static void child_reset_signals(void)
{
	struct sigaction dfl;
	sigset_t none;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGPIPE, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In a child: chdir, exec (with envp as its environment when set; it was
 * built before the fork, as a child may not allocate), and on failure tell
 * the parent why. */
static void child_exec(int report_fd, const char *const *argv, const char *cwd,
		       char *const *envp)
{
	if (cwd && chdir(cwd) != 0) {
		report(report_fd, REPORT_CHDIR, errno);
		_exit(127);
	}
	child_reset_signals();
	if (envp)
		environ = (char **)envp;
	execvp(argv[0], (char *const *)argv);
	report(report_fd, REPORT_EXEC, errno);
	_exit(127);
}

/* In a child that will not exec: closes every descriptor. */
static void close_all_fds(void)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 0U, ~0U, 0U) == 0)
		return;
#endif
	for (int fd = 0, max = (int)sysconf(_SC_OPEN_MAX); fd < (max > 0 ? max : 1024); fd++)
		close(fd);
}

/* The guard's answer to PR_SET_PDEATHSIG: the whole process group goes,
 * the guard included. */
static void kill_own_group(int sig)
{
	(void)sig;
	kill(0, SIGKILL);
}

/* In a child (its own process group, its pipes on 0, 1 and 2): the guard.
 * It stays between agentctl and the command and kills the command's whole
 * process group when agentctl dies (PR_SET_PDEATHSIG; a parent that died
 * before the prctl is seen in getppid()): the command and what it
 * started, which a signal to the command alone would leave running. A
 * command we wait for (a compensation, a summariser) must not go on once
 * agentctl is killed, where a retry cannot know how far it got. The guard
 * exits as the command did. */
static void child_guard(int report_fd, pid_t parent, const char *const *argv, const char *cwd,
			char *const *envp)
{
	struct sigaction on_death, dfl;
	struct rlimit no_core = {0, 0};
	pid_t self = getpid(), command;
	int status;

	memset(&on_death, 0, sizeof(on_death));
	on_death.sa_handler = kill_own_group;
	sigemptyset(&on_death.sa_mask);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	child_reset_signals();
	if (sigaction(SIGTERM, &on_death, NULL) != 0 || prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 ||
	    getppid() != parent || (command = fork()) < 0) {
		report(report_fd, REPORT_SETUP, errno);
		_exit(127);
	}
	if (command == 0) {
		sigaction(SIGTERM, &dfl, NULL);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != self) {
			report(report_fd, REPORT_SETUP, errno);
			_exit(127);
		}
		child_exec(report_fd, argv, cwd, envp);
	}
	/* Only the command holds the pipes now: their ends are its ends. The
	 * guard never execs, so the parent's close-on-exec descriptors (the
	 * pipes' other ends among them) are closed by hand. */
	close_all_fds();
	while (waitpid(command, &status, 0) < 0)
		if (errno != EINTR)
			_exit(127);
	if (WIFSIGNALED(status)) {
		/* Killed as the command was, without a core of its own. */
		setrlimit(RLIMIT_CORE, &no_core);
		sigaction(WTERMSIG(status), &dfl, NULL);
		kill(self, WTERMSIG(status));
		_exit(128 + WTERMSIG(status));
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

/* Reads the child's reports until every copy of the pipe is closed (by exec
 * or exit). Returns the number of reports read into r. */
static size_t read_reports(child_report *r, size_t max, int fd)
{
	char bytes[4 * sizeof(child_report)];
	size_t used = 0;

	for (;;) {
		ssize_t n = read(fd, bytes + used, sizeof(bytes) - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
		if (used == sizeof(bytes))
			break;
	}
	used /= sizeof(child_report);
	if (used > max)
		used = max;
	memcpy(r, bytes, used * sizeof(child_report));
	return used;
}

/* The error for a failed chdir or exec report, naming the program. */
static int start_error(const child_report *r, const char *program, const char *cwd)
{
	int rc;

	if (r->kind == REPORT_CHDIR)
		rc = ac_error_errno(r->value, "cannot run '%s' in '%s'", program, cwd);
	else if (r->kind == REPORT_EXEC)
		rc = ac_error_errno(r->value, "cannot run '%s'", program);
	else
		rc = ac_error_errno(r->value, "cannot start '%s'", program);
	return rc == AC_ENOTFOUND ? rc : AC_EIO;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static int exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 255;
}

/* Reads what is available on *fd into buf, keeping at most limit bytes and
 * discarding the rest so the child never blocks on a full pipe. Closes *fd
 * at end of file or on an error. */
static int drain(ac_buf *buf, int *fd, size_t limit)
{
	char chunk[65536];

	while (*fd >= 0) {
		ssize_t n = read(*fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			close_fd(fd);
			return 0;
		}
		if (buf->len < limit) {
			size_t keep = (size_t)n < limit - buf->len ? (size_t)n : limit - buf->len;

			if (ac_buf_append(buf, chunk, keep))
				return AC_ENOMEM;
		}
	}
	return 0;
}

/* Writes the next chunk of input; a child that stopped reading (EPIPE) or
 * any other write error ends the input. */
static void feed(int *fd, const char *input, size_t len, size_t *done)
{
	size_t want = len - *done < WRITE_CHUNK ? len - *done : WRITE_CHUNK;
	ssize_t n = write(*fd, input + *done, want);

	if (n > 0)
		*done += (size_t)n;
	else if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n < 0 || *done == len)
		close_fd(fd);
}

static int set_nonblocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

typedef struct {
	pid_t pid;
	int in, out, err, pidfd;
} running_child;

/* This thread's cancel fd (ac_proc_set_cancel_fd()), or -1. */
static _Thread_local int cancel_fd = -1;

void ac_proc_set_cancel_fd(int fd)
{
	cancel_fd = fd;
}

/* Kills the child's whole process group, so helpers it started die with
 * it (and cannot hold its pipes open), and reaps the child. */
static void kill_and_reap(const running_child *c, int *status)
{
	kill(-c->pid, SIGKILL);
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, status, 0) < 0 && errno == EINTR)
		;
}

/* The poll loop. Returns 0 with *status set when the child has exited or
 * was killed at the deadline (out->timed_out), or AC_ENOMEM. */
static int communicate(ac_proc_result *out, int *status, running_child *c, const char *input,
		       size_t input_len, int timeout_ms)
{
	int64_t deadline = timeout_ms > 0 ? monotonic_ms() + timeout_ms : 0;
	size_t written = 0;
	bool exited = false;
	int rc = 0;

	if (input_len == 0)
		close_fd(&c->in);
	while (!exited) {
		struct pollfd fds[5];
		nfds_t n = 0;
		int wait_ms = -1, ready;
		pid_t reaped;

		if (deadline) {
			int64_t left = deadline - monotonic_ms();

			if (left <= 0) {
				kill_and_reap(c, status);
				out->timed_out = 1;
				break;
			}
			wait_ms = left > INT32_MAX ? INT32_MAX : (int)left;
		}
		if (c->pidfd < 0 && (wait_ms < 0 || wait_ms > EXIT_CHECK_MS))
			wait_ms = EXIT_CHECK_MS;
		if (c->in >= 0)
			fds[n++] = (struct pollfd){.fd = c->in, .events = POLLOUT};
		if (c->out >= 0)
			fds[n++] = (struct pollfd){.fd = c->out, .events = POLLIN};
		if (c->err >= 0)
			fds[n++] = (struct pollfd){.fd = c->err, .events = POLLIN};
		if (c->pidfd >= 0)
			fds[n++] = (struct pollfd){.fd = c->pidfd, .events = POLLIN};
		if (cancel_fd >= 0)
			fds[n++] = (struct pollfd){.fd = cancel_fd, .events = POLLIN};
		ready = poll(fds, n, wait_ms);
		if (ready < 0 && errno != EINTR && errno != EAGAIN) {
			int err = errno;

			/* Cannot wait on the pipes any more: do not leave the
			 * child running behind us. */
			kill_and_reap(c, status);
			ac_error_errno(err, "poll");
			return AC_EIO;
		}
		if (ready <= 0 && c->pidfd >= 0)
			continue;
		if (ready > 0 && cancel_fd >= 0 && fds[n - 1].revents) {
			kill_and_reap(c, status);
			out->cancelled = 1;
			break;
		}
		for (nfds_t i = 0; ready > 0 && i < n; i++) {
			if (!fds[i].revents)
				continue;
			if (fds[i].fd == c->in)
				feed(&c->in, input, input_len, &written);
			else if (fds[i].fd == c->out)
				rc = drain(&out->out, &c->out, OUT_LIMIT);
			else if (fds[i].fd == c->err)
				rc = drain(&out->err, &c->err, ERR_LIMIT);
			if (rc)
				break;
		}
		if (rc) {
			kill_and_reap(c, status);
			return rc;
		}
		while ((reaped = waitpid(c->pid, status, WNOHANG)) < 0 && errno == EINTR)
			;
		/* With SIGCHLD ignored the system reaps the child itself and
		 * its status is lost: not knowing is not success. */
		if (reaped < 0) {
			int err = errno;

			kill_and_reap(c, status);
			ac_error_errno(err, "cannot learn how the command ended: waitpid");
			return AC_EIO;
		}
		exited = reaped == c->pid;
	}
	/* The child's own writes are all in the pipes by now; a background
	 * process it left holding them open must not keep us waiting. */
	if ((rc = drain(&out->out, &c->out, OUT_LIMIT)) == 0)
		rc = drain(&out->err, &c->err, ERR_LIMIT);
	return rc;
}

/* While we write to a child that may exit without reading, SIGPIPE is
 * blocked on this thread (write then fails with EPIPE instead of killing
 * us), and one that we caused is taken off the pending set before the
 * thread's mask is restored. */
typedef struct {
	sigset_t old_mask;
	bool was_pending;
} sigpipe_guard;

static void sigpipe_block(sigpipe_guard *g)
{
	sigset_t pipe_set, pending;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &g->old_mask);
	sigpending(&pending);
	g->was_pending = sigismember(&pending, SIGPIPE) == 1;
}

static void sigpipe_restore(sigpipe_guard *g)
{
	sigset_t pipe_set, pending;
	struct timespec zero = {0, 0};

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	if (!g->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1)
		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &g->old_mask, NULL);
}

static int make_pipe(int fds[2])
{
	return pipe2(fds, O_CLOEXEC);
}

/* Whether template argument arg holds one of names inside a larger text. */
static const char *embedded_name(const char *arg, const char *const *names)
{
	for (size_t n = 0; names && names[n]; n++)
		if (strcmp(arg, names[n]) != 0 && strstr(arg, names[n]))
			return names[n];
	return NULL;
}

int ac_proc_check_template(const char *const *template, const char *const *names,
			   size_t *out_index)
{
	for (size_t i = 0; template && template[i]; i++) {
		const char *name = embedded_name(template[i], names);

		if (name) {
			if (out_index)
				*out_index = i;
			return ac_error_set(AC_EINVAL, "argument %zu embeds %s inside a larger "
					    "argument: a placeholder must be a whole argument "
					    "(the value is also in the environment)", i, name);
		}
	}
	return 0;
}

int ac_proc_expand_argv(char ***out, const char *const *template, const char *const *names,
			const char *const *values)
{
	size_t n = 0;
	char **argv = NULL;
	int rc;

	*out = NULL;
	if ((rc = ac_proc_check_template(template, names, NULL)))
		return rc;
	while (template && template[n])
		n++;
	if (!(argv = calloc(n + 1, sizeof(*argv)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		const char *arg = template[i];

		for (size_t k = 0; names && names[k]; k++)
			if (!strcmp(arg, names[k])) {
				arg = values[k];
				/* Values come from files (a session's or a transcript's
				 * name): whole as an argument, "--yolo" is still an
				 * option to the program. */
				if (arg && arg[0] == '-') {
					rc = ac_error_set(AC_EINVAL, "%s '%.64s' starts with '-': the "
							  "command would take it as an option; not run",
							  names[k], arg);
					goto done;
				}
				break;
			}
		if (!arg) {
			rc = ac_error_set(AC_EINVAL, "argument %zu: no value for its placeholder", i);
			goto done;
		}
		if (!(argv[i] = strdup(arg))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	}
	*out = argv;
	argv = NULL;
	rc = 0;
done:
	ac_proc_argv_free(argv);
	return rc;
}

void ac_proc_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

int ac_proc_run_for_session(ac_proc_result *out, const char *const *template,
			    const char *session_id, const char *cwd, const char *input,
			    size_t input_len, int timeout_ms)
{
	static const char *const names[] = AC_PROC_PLACEHOLDERS;
	const char *const values[] = {session_id, NULL};
	const char *const env[] = {"AGENT_SESSION_ID", session_id, NULL};
	char **argv = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!session_id)
		return ac_proc_run_env(out, template, NULL, cwd, input, input_len, timeout_ms);
	if ((rc = ac_proc_expand_argv(&argv, template, names, values)))
		goto done;
	rc = ac_proc_run_env(out, (const char *const *)argv, env, cwd, input, input_len, timeout_ms);
done:
	ac_proc_argv_free(argv);
	return rc;
}

/* The environment of this process with the NULL-terminated name, value
 * pairs of env added (replacing a variable of the same name), as an
 * allocated array for execve; *out NULL when env is NULL or empty. Free with
 * ac_proc_argv_free(). */
static int build_env(char ***out, const char *const *env)
{
	size_t n = 0, extra = 0, j = 0;
	char **envp = NULL;
	int rc = 0;

	*out = NULL;
	while (env && env[2 * extra])
		extra++;
	if (!extra)
		return 0;
	while (environ[n])
		n++;
	if (!(envp = calloc(n + extra + 1, sizeof(*envp)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;

		for (size_t e = 0; e < extra && !replaced; e++) {
			size_t len = strlen(env[2 * e]);

			replaced = !strncmp(environ[i], env[2 * e], len) && environ[i][len] == '=';
		}
		if (!replaced && !(envp[j++] = strdup(environ[i]))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	}
	for (size_t e = 0; e < extra; e++) {
		ac_buf var = AC_BUF_INIT;

		ac_buf_printf(&var, "%s=%s", env[2 * e], env[2 * e + 1] ? env[2 * e + 1] : "");
		if (!(envp[j++] = ac_buf_detach(&var))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	}
	*out = envp;
	envp = NULL;
done:
	ac_proc_argv_free(envp);
	return rc;
}

int ac_proc_run(ac_proc_result *out, const char *const *argv, const char *cwd,
		const char *input, size_t input_len, int timeout_ms)
{
	return ac_proc_run_env(out, argv, NULL, cwd, input, input_len, timeout_ms);
}

int ac_proc_run_env(ac_proc_result *out, const char *const *argv, const char *const *env,
		    const char *cwd, const char *input, size_t input_len, int timeout_ms)
{
	char **envp = NULL;
	int in[2] = {-1, -1}, outp[2] = {-1, -1}, errp[2] = {-1, -1}, rep[2] = {-1, -1};
	running_child c = {-1, -1, -1, -1, -1};
	pid_t parent;
	sigpipe_guard guard;
	child_report r;
	int status = 0, rc;

	memset(out, 0, sizeof(*out));
	if (!argv || !argv[0] || !*argv[0])
		return ac_error_set(AC_EINVAL, "no command to run");
	if ((rc = build_env(&envp, env)))
		return rc;
	sigpipe_block(&guard);
	if (make_pipe(in) || make_pipe(outp) || make_pipe(errp) || make_pipe(rep)) {
		ac_error_errno(errno, "cannot run '%s': pipe", argv[0]);
		rc = AC_EIO;
		goto done;
	}
	parent = getpid();
	c.pid = fork();
	if (c.pid < 0) {
		ac_error_errno(errno, "cannot run '%s': fork", argv[0]);
		rc = AC_EIO;
		goto done;
	}
	if (c.pid == 0) {
		int report_fd = move_high(rep[1]);

		/* Its own process group, so a time-out can kill what it starts. */
		setpgid(0, 0);
		if (child_setup_fds(in[0], outp[1], errp[1]) != 0) {
			report(report_fd, REPORT_SETUP, errno);
			_exit(127);
		}
		child_guard(report_fd, parent, argv, cwd, envp);
	}
	close_fd(&in[0]);
	close_fd(&outp[1]);
	close_fd(&errp[1]);
	close_fd(&rep[1]);
	if (read_reports(&r, 1, rep[0]) == 1) {
		while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR)
			;
		c.pid = -1;
		rc = start_error(&r, argv[0], cwd);
		goto done;
	}
	c.in = in[1];
	c.out = outp[0];
	c.err = errp[0];
	in[1] = outp[0] = errp[0] = -1;
	if (set_nonblocking(c.in) || set_nonblocking(c.out) || set_nonblocking(c.err)) {
		int err = errno;

		kill_and_reap(&c, &status);
		ac_error_errno(err, "'%s': cannot set up its pipes", argv[0]);
		rc = AC_EIO;
		goto done;
	}
	c.pidfd = open_pidfd(c.pid);
	if ((rc = communicate(out, &status, &c, input, input_len, timeout_ms)))
		goto done;
	out->exit_status = out->timed_out || out->cancelled ? 128 + SIGKILL : exit_status_of(status);
done:
	close_fd(&in[0]);
	close_fd(&in[1]);
	close_fd(&outp[0]);
	close_fd(&outp[1]);
	close_fd(&errp[0]);
	close_fd(&errp[1]);
	close_fd(&rep[0]);
	close_fd(&rep[1]);
	close_fd(&c.in);
	close_fd(&c.out);
	close_fd(&c.err);
	close_fd(&c.pidfd);
	sigpipe_restore(&guard);
	ac_proc_argv_free(envp);
	if (rc)
		ac_proc_result_free(out);
	return rc;
}

int ac_proc_run_attached(int *out_status, const char *const *argv, const char *const *env,
			 const char *cwd)
{
	char **envp = NULL;
	int rep[2] = {-1, -1}, status = 0, rc;
	child_report r;
	pid_t pid;

	*out_status = 0;
	if (!argv || !argv[0] || !*argv[0])
		return ac_error_set(AC_EINVAL, "no command to run");
	if ((rc = build_env(&envp, env)))
		return rc;
	if (make_pipe(rep)) {
		rc = ac_error_errno(errno, "cannot run '%s': pipe", argv[0]);
		goto done;
	}
	if ((pid = fork()) < 0) {
		rc = ac_error_errno(errno, "cannot run '%s': fork", argv[0]);
		goto done;
	}
	if (pid == 0)
		child_exec(move_high(rep[1]), argv, cwd, envp);
	close_fd(&rep[1]);
	if (read_reports(&r, 1, rep[0]) == 1)
		rc = start_error(&r, argv[0], cwd);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*out_status = exit_status_of(status);
done:
	close_fd(&rep[0]);
	close_fd(&rep[1]);
	ac_proc_argv_free(envp);
	return rc;
}

void ac_proc_result_free(ac_proc_result *result)
{
	if (!result)
		return;
	ac_buf_free(&result->out);
	ac_buf_free(&result->err);
	memset(result, 0, sizeof(*result));
}

/* Creates the folder log_path is in, if it has one. */
static int make_log_folder(const char *log_path)
{
	const char *slash = strrchr(log_path, '/');
	char *dir;
	int rc;

	if (!slash || slash == log_path)
		return 0;
	if (!(dir = strndup(log_path, (size_t)(slash - log_path))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = ac_file_mkdirs(dir);
	free(dir);
	return rc;
}

int ac_proc_spawn_detached(pid_t *out_pid, const char *const *argv, const char *cwd,
			   const char *log_path)
{
	return ac_proc_spawn_detached_env(out_pid, argv, NULL, cwd, log_path);
}

int ac_proc_spawn_detached_env(pid_t *out_pid, const char *const *argv, const char *const *env,
			       const char *cwd, const char *log_path)
{
	char **envp = NULL;
	int null_fd = -1, log_fd = -1, rep[2] = {-1, -1}, status;
	child_report r[2];
	const child_report *failure = NULL;
	size_t got;
	pid_t first, pid = 0;
	int rc;

	if (!argv || !argv[0] || !*argv[0])
		return ac_error_set(AC_EINVAL, "no command to run");
	if ((rc = make_log_folder(log_path)) || (rc = build_env(&envp, env)))
		return rc;
	/* Not a FIFO (a writer's open would block) nor a symlink planted to
	 * send the command's output elsewhere. */
	if ((rc = ac_file_open_regular(&log_fd, AT_FDCWD, log_path,
					O_WRONLY | O_CREAT | O_APPEND | O_NOCTTY | O_NOFOLLOW, 0644,
					log_path)))
		goto done;
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd < 0) {
		ac_error_errno(errno, "/dev/null: cannot open");
		rc = AC_EIO;
		goto done;
	}
	if (make_pipe(rep)) {
		ac_error_errno(errno, "cannot run '%s': pipe", argv[0]);
		rc = AC_EIO;
		goto done;
	}
	first = fork();
	if (first < 0) {
		ac_error_errno(errno, "cannot run '%s': fork", argv[0]);
		rc = AC_EIO;
		goto done;
	}
	if (first == 0) {
		int report_fd = move_high(rep[1]);
		pid_t second;

		/* A new session leaves our terminal and process group; the
		 * second fork leaves no zombie behind and can never regain a
		 * controlling terminal. */
		if (setsid() < 0 || (second = fork()) < 0) {
			report(report_fd, REPORT_SETUP, errno);
			_exit(127);
		}
		if (second > 0) {
			report(report_fd, REPORT_PID, (int)second);
			_exit(0);
		}
		if (child_setup_fds(null_fd, log_fd, log_fd) != 0) {
			report(report_fd, REPORT_SETUP, errno);
			_exit(127);
		}
		child_exec(report_fd, argv, cwd, envp);
	}
	close_fd(&rep[1]);
	got = read_reports(r, 2, rep[0]);
	while (waitpid(first, &status, 0) < 0 && errno == EINTR)
		;
	/* The two processes report independently: a pid from the first, and
	 * from the second only a failure to start, in either order. */
	for (size_t i = 0; i < got; i++)
		if (r[i].kind == REPORT_PID)
			pid = (pid_t)r[i].value;
		else
			failure = &r[i];
	if (failure) {
		rc = start_error(failure, argv[0], cwd);
		goto done;
	}
	if (pid <= 0) {
		rc = ac_error_set(AC_EIO, "cannot run '%s': the starter exited", argv[0]);
		goto done;
	}
	if (out_pid)
		*out_pid = pid;
	rc = 0;
done:
	close_fd(&null_fd);
	close_fd(&log_fd);
	close_fd(&rep[0]);
	close_fd(&rep[1]);
	ac_proc_argv_free(envp);
	return rc;
}

/* The first non-blank line of stderr, trimmed, at most 200 bytes. */
static int append_first_line(ac_buf *out, const ac_buf *err)
{
	const char *p = err->data, *end = err->data ? err->data + err->len : NULL, *eol;
	size_t len;

	while (p && p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	if (!p || p == end)
		return 0;
	eol = memchr(p, '\n', (size_t)(end - p));
	len = (size_t)((eol ? eol : end) - p);
	while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
		len--;
	if (len > 200) {
		len = 200;
		while (len > 0 && ((unsigned char)p[len] & 0xc0) == 0x80)
			len--;
	}
	if (ac_buf_append(out, ": ", 2) || ac_buf_append(out, p, len))
		return AC_ENOMEM;
	return 0;
}

void ac_proc_describe_failure(ac_buf *out, const ac_proc_result *result, int timeout_ms)
{
	if (result->timed_out) {
		if (timeout_ms % 1000 == 0)
			ac_buf_printf(out, "timed out after %d s", timeout_ms / 1000);
		else
			ac_buf_printf(out, "timed out after %d ms", timeout_ms);
		return;
	}
	if (result->cancelled) {
		ac_buf_printf(out, "was cancelled by the operator");
		return;
	}
	/* 128 + N is how a death by signal N is reported (as shells do). */
	if (result->exit_status > 128 && result->exit_status < 128 + 65)
		ac_buf_printf(out, "was killed by signal %d", result->exit_status - 128);
	else
		ac_buf_printf(out, "exited with status %d", result->exit_status);
	append_first_line(out, &result->err);
}

/* Field 22 of /proc/<pid>/stat: when the process started, in clock ticks
 * since boot. 0 when the process is gone or a zombie (exited, not yet
 * reaped: a container's first process may never reap it). */
uint64_t ac_proc_start_ticks(pid_t pid)
{
	char path[64], *raw = NULL, *p;
	size_t len;
	uint64_t ticks = 0;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (ac_file_read(&raw, &len, path) != 0)
		return 0;
	/* The command name may hold spaces and ')': fields start after the
	 * last ')'. Field 3 is the state; 22 is 19 fields further. */
	p = strrchr(raw, ')');
	if (p && (p[1] != ' ' || p[2] == 'Z' || p[2] == 'X'))
		p = NULL;
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		ticks = strtoull(p + 1, NULL, 10);
	free(raw);
	return ticks;
}

int ac_proc_cmdline(ac_buf *out, pid_t pid, size_t max)
{
	char path[64], *raw = NULL;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	if (ac_file_read(&raw, &len, path) != 0)
		return ac_error_set(AC_ENOTFOUND, "process %ld is gone", (long)pid);
	if (len > max)
		len = max;
	for (size_t i = 0; i + 1 < len; i++)
		if (raw[i] == '\0')
			raw[i] = ' ';
	while (len && raw[len - 1] == '\0')
		len--;
	ac_buf_clear(out);
	ac_buf_append(out, raw, len);
	free(raw);
	return 0;
}
