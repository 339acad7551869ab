/* A workspace's resolved settings: where its files are and how to write
 * them, read from the layered configuration once and shared by every
 * command and the dashboard. */
#ifndef AC_WORKSPACE_H
#define AC_WORKSPACE_H

#include "ac_compact.h"
#include "ac_config.h"
#include "ac_event.h"
#include "ac_journal.h"

typedef struct {
	char *root;                     /* the workspace folder */
	char *sessions_dir;
	char *journal_path;
	char *operations_path;          /* operationLogPath */
	char *checkpoints_dir;          /* checkpointDir */
	json_t *rollback_tools;         /* borrowed from config: tool name -> argv array, or NULL */
	ac_journal_options journal;
	ac_event_schema schema;
	const char **extra_agents;      /* owned array; strings borrowed from config */
	const char **resume_command;    /* owned NULL-terminated argv, or NULL */
	const char **summarizer;        /* owned NULL-terminated argv, or NULL */
	ac_compact_options compact;
	/* How operator actions rewrite a session an agent may be writing:
	 * session.quietMs (default 1000) and session.waitMs (default 5000). */
	ac_session_write_options session_write;
	int resume_timeout_ms;          /* resume.timeoutMs, default 30000 */
	int pause_signal;               /* pauseSignal as a number, 0 when unset */
} ac_workspace;

/* Resolves the paths and options from config. Free with
 * ac_workspace_free(); config must outlive ws. */
int ac_workspace_init(ac_workspace *ws, const ac_config *config);

void ac_workspace_free(ac_workspace *ws);

#endif
