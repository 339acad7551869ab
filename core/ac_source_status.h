/* Claude Code's status files: ~/.claude/sessions/<pid>.json, one per
 * running interactive process (sessionId, cwd, startedAt, status
 * busy|waiting|idle, waitingFor such as "permission prompt", name...),
 * removed when the process exits cleanly and left behind by a crash. It
 * is the only thing on disk that tells a permission prompt from a slow
 * tool. This module reads the folder (O_RDONLY, each file bounded, any
 * content tolerated), asks whether each file's process still lives (and
 * is the one that wrote it, not a later process given the same pid), and
 * tells a transcript what its process says (ac_source_session's agent
 * and waiting_reason). It is not a transcript reader, and it never
 * writes there. */
#ifndef AC_SOURCE_STATUS_H
#define AC_SOURCE_STATUS_H

#include "ac_source.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A status file larger than this is no status file: skipped. */
#define AC_SOURCE_STATUS_MAX (64u * 1024)
/* What is kept of a waitingFor (display text; the tools write a few words). */
#define AC_SOURCE_STATUS_REASON_MAX 200

typedef struct {
	char *session_id;    /* owned */
	long pid;            /* from the file's name */
	ac_agent_status agent; /* AC_AGENT_GONE when the process is dead */
	char *waiting_for;   /* owned, NULL when not said; decoded, not safe for a terminal */
	int64_t started_at;  /* ms since the epoch, 0 unknown */
} ac_source_status;

typedef struct {
	ac_source_status *items;
	size_t n;
	size_t skipped;      /* files that are no status file (too large, not JSON, no sessionId) */
	bool present;        /* the folder exists: this machine's Claude Code writes status files */
} ac_source_status_list;

/* Reads every "<pid>.json" of dir into *out (other names are not status
 * files: skipped unseen). A missing or unreadable folder lists nothing:
 * the transcripts then decide alone. 0 or AC_ENOMEM. Free with
 * ac_source_status_list_free(). */
int ac_source_status_read(ac_source_status_list *out, const char *dir);

void ac_source_status_list_free(ac_source_status_list *list);

/* The record that speaks for session_id: a live process before a dead
 * one, the latest started among live ones (a session resumed in a
 * second terminal); NULL when no file names it. Borrowed. */
const ac_source_status *ac_source_status_find(const ac_source_status_list *list,
					      const char *session_id);

/* Whether pid is a live process that started no later than started_at_ms
 * (0: unknown) allows: a pid reused by a later process is not the one
 * that wrote the file. A zombie is dead. */
bool ac_source_status_pid_alive(long pid, int64_t started_at_ms);

/* The working folders of this user's live processes that run Claude
 * Code (an argument named "claude", or a path through its package
 * "claude-code"), as /proc shows them: *out a JSON object used as a set
 * (folder -> true). *out NULL when there is no /proc (nothing can be
 * told). For a session no status file names (a clean exit removed it,
 * or a print-mode run wrote none): no such process in its folder means
 * none works on it. 0 or AC_ENOMEM. */
int ac_source_status_agent_folders(json_t **out);

/* Sets s->agent and s->waiting_reason from list (NULL or no record: the
 * transcript decides again) and, when no record names s, from folders
 * (ac_source_status_agent_folders(); NULL: not known): AC_AGENT_NONE when
 * no process runs in s->cwd. *out_changed is set when either changed.
 * 0 or AC_ENOMEM. */
int ac_source_status_note(ac_source_session *s, const ac_source_status_list *list,
			  const json_t *folders, bool *out_changed);

#endif
