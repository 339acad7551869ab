/* Running external commands from config (summarizer, compensations,
 * resume) without a shell: argv arrays only, so no text from a file is
 * ever interpreted by a shell. */
#ifndef AC_PROC_H
#define AC_PROC_H

#include "ac_buf.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
	int exit_status;   /* 0..255, or 128 + signal when killed */
	int timed_out;     /* 1 when the time limit ran out (the child was killed) */
	int cancelled;     /* 1 when the thread's cancel fd asked (the child was killed) */
	ac_buf out;        /* standard output, at most 16 MiB kept */
	ac_buf err;        /* standard error, at most 64 KiB kept */
} ac_proc_result;

/* Runs argv (argv[0] looked up in PATH, the array NULL-terminated) in cwd
 * (NULL: the current folder), writes input[0..input_len) to its standard
 * input (then closes it), collects its outputs, and waits at most
 * timeout_ms (then kills it). Returns 0 when it ran, whatever its exit
 * status (check out->exit_status), or AC_EIO/AC_ENOTFOUND when it could not
 * be started (the message names argv[0]). The caller frees out with
 * ac_proc_result_free(). */
int ac_proc_run(ac_proc_result *out, const char *const *argv, const char *cwd,
		const char *input, size_t input_len, int timeout_ms);

/* ac_proc_run() with env, a NULL-terminated list of name, value pairs
 * ({"AGENT_SESSION_ID", id, NULL}; may be NULL) added to the child's
 * environment, replacing variables of the same name. */
int ac_proc_run_env(ac_proc_result *out, const char *const *argv, const char *const *env,
		    const char *cwd, const char *input, size_t input_len, int timeout_ms);

void ac_proc_result_free(ac_proc_result *result);

/* Runs argv with env added (as ac_proc_run_env()) in cwd, on the
 * caller's own terminal (standard input, output and error inherited: an
 * interactive program, such as `claude --resume ID`), and waits for it.
 * The caller gives the terminal up first (the dashboard suspends curses).
 * *out_status: 0..255 or 128 + signal. 0, or AC_EIO/AC_ENOTFOUND when it
 * could not be started (the message names argv[0]). */
int ac_proc_run_attached(int *out_status, const char *const *argv, const char *const *env,
			 const char *cwd);

/* Makes the commands this thread runs through ac_proc_run*() cancellable:
 * once fd (a pipe's read end or an eventfd, owned by the caller) is
 * readable, the running command's process group is killed and reaped, and
 * the run returns 0 with out->cancelled set (exit status 128 + SIGKILL);
 * a command started while fd is readable is killed at once. For a worker
 * thread that runs a long operator action (a summariser, compensations)
 * that the operator may cancel. -1 (the default) turns it off. Only this
 * thread is affected. */
void ac_proc_set_cancel_fd(int fd);

/* Fills a command template from config: an argument exactly equal to
 * names[k] (e.g. "{id}") becomes values[k]; every other argument is copied
 * as it is. A placeholder is replaced only as a WHOLE argument, so a value
 * (a session id, which is a file name an agent chose) is never spliced into
 * text that a program such as `sh -c` would interpret; a template argument
 * that holds a placeholder inside a larger text is refused (AC_EINVAL,
 * naming the argument's index). names and values are NULL-terminated and
 * parallel (names may be NULL). *out is a NULL-terminated allocated array
 * of allocated strings, freed with ac_proc_argv_free(). */
int ac_proc_expand_argv(char ***out, const char *const *template, const char *const *names,
			const char *const *values);

/* The check ac_proc_expand_argv() makes, for config loading: 0, or AC_EINVAL
 * when an argument embeds one of names in a larger text (*out_index, may be
 * NULL, receives its index; the message names it). */
int ac_proc_check_template(const char *const *template, const char *const *names,
			   size_t *out_index);

/* Frees an argv from ac_proc_expand_argv(); NULL is fine. */
void ac_proc_argv_free(char **argv);

/* The placeholders a command template from config may use, as whole
 * arguments: "{id}" is the session id (also passed as AGENT_SESSION_ID). */
#define AC_PROC_PLACEHOLDERS {"{id}", NULL}

/* ac_proc_run_env() of a command template from config on behalf of
 * session_id: "{id}" arguments become the id (ac_proc_expand_argv()) and
 * AGENT_SESSION_ID is set. session_id NULL: template runs as it is. The
 * summariser and the rollbackTools compensations run through this. */
int ac_proc_run_for_session(ac_proc_result *out, const char *const *template,
			    const char *session_id, const char *cwd, const char *input,
			    size_t input_len, int timeout_ms);

/* Starts argv detached (its own session, stdin from /dev/null, stdout and
 * stderr appended to log_path, created with its folder if needed) and does
 * not wait for it. *out_pid (may be NULL) receives its pid. */
int ac_proc_spawn_detached(pid_t *out_pid, const char *const *argv, const char *cwd,
			   const char *log_path);

/* ac_proc_spawn_detached() with env added to the child's environment (see
 * ac_proc_run_env()). */
int ac_proc_spawn_detached_env(pid_t *out_pid, const char *const *argv, const char *const *env,
			       const char *cwd, const char *log_path);


/* A one-line description of how a finished command failed, for error
 * messages: "exited with status 3: <first line of stderr>", "was killed by
 * signal 9", "timed out after 30 s". Written to out. */
void ac_proc_describe_failure(ac_buf *out, const ac_proc_result *result, int timeout_ms);

/* When process pid started, in clock ticks since boot (field 22 of
 * /proc/<pid>/stat): with the pid, what names one process, since a pid is
 * reused. 0 when the process is gone, a zombie, or there is no /proc. */
uint64_t ac_proc_start_ticks(pid_t pid);

/* Process pid's command line (/proc/<pid>/cmdline, arguments joined by
 * spaces, at most max bytes read) into out; AC_ENOTFOUND when it is gone. */
int ac_proc_cmdline(ac_buf *out, pid_t pid, size_t max);

#endif
