/* A workspace's resolved settings: where its files are and how to write
 * them, read from the layered configuration once and shared by every
 * command and the dashboard.
 *
 * Commands (resume_command, summarizer, rollback_tools) are filled only
 * when they may run: one from a project file that is not trusted is left
 * NULL here (so code that forgets to ask cannot run it), and compaction is
 * set to refuse rather than fall back to the built-in summariser. Ask
 * ac_workspace_command() / ac_workspace_rollback_tools() to get the command
 * together with the refusal to show the operator. */
#ifndef AC_WORKSPACE_H
#define AC_WORKSPACE_H

#include "ac_backend.h"
#include "ac_compact.h"
#include "ac_config.h"
#include "ac_event.h"
#include "ac_journal.h"

/* The stores the workspace opened (ac_workspace_store()); private. */
typedef struct ac_workspace_stores ac_workspace_stores;

typedef struct {
	const ac_config *config;        /* borrowed: the config ws was resolved from */
	char *root;                     /* the workspace folder */
	char *sessions_dir;
	char *journal_path;
	char *operations_path;          /* operationLogPath */
	char *checkpoints_dir;          /* checkpointDir */
	json_t *rollback_tools;         /* borrowed from config: tool name -> argv array, or NULL
					 * (unset, or from an untrusted project file) */
	ac_journal_options journal;
	ac_event_schema schema;
	const char **extra_agents;      /* owned array; strings borrowed from config */
	const char **extra_action_types; /* owned array; strings borrowed from config */
	const char **resume_command;    /* owned NULL-terminated argv, or NULL (unset or untrusted) */
	const char **summarizer;        /* owned NULL-terminated argv, or NULL (unset or untrusted) */
	const char **consolidate_command; /* memory.consolidateCommand, the same way */
	ac_compact_options compact;
	/* How operator actions rewrite a session an agent may be writing:
	 * session.quietMs (default 1000) and session.waitMs (default 5000). */
	ac_session_write_options session_write;
	int resume_timeout_ms;          /* resume.timeoutMs, default 30000 */
	int pause_signal;               /* pauseSignal as a number, 0 when unset */
	bool git_enabled;               /* gitEnabled (default true): operations commit */
	ac_workspace_stores *stores;    /* owned; NULL in a workspace filled by hand */
} ac_workspace;

/* Resolves the paths and options from config. Free with
 * ac_workspace_free(); config must outlive ws. AC_EDENIED (one line naming
 * the path and where it leads) when a store path inside the workspace
 * (.agent itself, the sessions, checkpoints, journal and operation log
 * paths, the archive and data folders below them) leads out of it through
 * a symbolic link, or through one that leads nowhere: DESIGN.md, "a store
 * folder is never followed through a symlink out of the workspace". */
int ac_workspace_init(ac_workspace *ws, const ac_config *config);

void ac_workspace_free(ac_workspace *ws);

/* The command configured under key ("resumeCommand",
 * "summarizer.command" or "memory.consolidateCommand") if it may run: 0 and *out (borrowed from ws; NULL
 * when unset), or AC_EDENIED with a one-line message naming the key and the
 * untrusted project file and saying how to trust it (*out NULL). */
int ac_workspace_command(const char *const **out, const ac_workspace *ws, const char *key);

/* rollbackTools, the same way: 0 and *out (borrowed; NULL when unset), or
 * AC_EDENIED. */
int ac_workspace_rollback_tools(const json_t **out, const ac_workspace *ws);

/* The one seam between a workspace and where its sessions live: the store
 * (ac_backend.h), the workspace's files, or the PostgreSQL database
 * storage.url names (--storage, AGENT_STORAGE_URL or a trusted config),
 * opened on first use and kept until ac_workspace_free(). *out is borrowed
 * until ac_workspace_store_release(); a thread that asks again before it
 * releases gets the same one, another thread its own. Nothing above the
 * core asks which store it is: what only one store can do is one of
 * b->optional's operations, NULL when it cannot. AC_EDENIED when
 * storage.url comes from an untrusted project file; AC_EIO when the
 * database cannot be reached. */
int ac_workspace_store(ac_backend **out, const ac_workspace *ws);

/* Gives back what ac_workspace_store() lent (b may be NULL; in a workspace
 * made by ac_workspace_init(), also a copy of the value lent). */
void ac_workspace_store_release(const ac_workspace *ws, ac_backend *b);

/* For what lives beside the sessions in their store (the journal store,
 * the checkpoint provider): *out the database's URL when the workspace's
 * store is one (trusted storage.url), NULL for the files. Borrowed from
 * ws's config; opens nothing. AC_EDENIED as ac_workspace_store(). */
int ac_workspace_store_url(const char **out, const ac_workspace *ws);

/* url without its password (a URL's ":secret@" and any password=...
 * parameter or key), for showing; allocated, NULL when out of memory. */
char *ac_storage_url_redact(const char *url);

/* Where the store is, for people: the session folder, or the database's
 * URL without its password. Borrowed from ws; opens nothing. */
const char *ac_workspace_store_where(const ac_workspace *ws);

/* What `storage check` says of ws's store, read without changing it. */
typedef struct {
	char *where;      /* ac_workspace_store_where()'s, allocated */
	const char *kind; /* "files" or "postgresql" (static): for people */
	bool versioned;   /* the store has a schema version (a database; the
			     files' formats have none, the counts stay 0) */
	int version;      /* the schema version found (0: none yet) */
	int latest;       /* the one this agentctl expects */
	int missing;      /* migrations not applied */
} ac_workspace_store_report;

/* Fills *out (ac_workspace_store_report_clear() after, also on failure)
 * for ws's store: a database is connected to on its own connection and
 * its schema read, nothing migrated. AC_EDENIED as ac_workspace_store(),
 * AC_EIO when the database cannot be reached. */
int ac_workspace_store_check(ac_workspace_store_report *out, const ac_workspace *ws);
void ac_workspace_store_report_clear(ac_workspace_store_report *report);

/* The tenant a session is created in when none is named: storage.tenant,
 * else the name of the user running agentctl (getpwuid(geteuid())).
 * *out allocated. AC_EINVAL naming the key when it is no valid id. */
int ac_workspace_tenant(char **out, const ac_workspace *ws);

/* Used by ac_workspace_init() and ac_workspace_free(). */
int ac_workspace_stores_new(ac_workspace_stores **out, const ac_workspace *ws);
void ac_workspace_stores_free(ac_workspace_stores *stores);

#endif
