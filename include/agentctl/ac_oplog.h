/* The operation log, `.agent/operations.jsonl`: what agents did to the
 * workspace's files, each file change tied to a git commit, and rolling the
 * workspace back to before one of them.
 *
 * A line is `{id, timestamp, sessionId, type, details, gitCommitHash?}`,
 * type one of file_write, file_delete, command_run, or rollback / revert
 * for what the operator undid (any other type is read and kept as
 * written, as the seed's reader does). Other programs append
 * to the same file, so appends go through ac_journal_append() (one write
 * under the shared lock file, torn tails repaired) and reads through
 * ac_journal_reader.h (a torn last line is never delivered). A line that is
 * not a valid record is reported with its number and skipped; the others
 * still load. The git side lives in ac_git.h; this module never runs a
 * shell and never prints. */
#ifndef AC_OPLOG_H
#define AC_OPLOG_H

#include "ac_buf.h"
#include "ac_git.h"
#include "ac_workspace.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One operation. Strings are owned by the op (or the list holding it). */
typedef struct {
	char *id;
	char *timestamp;  /* "" when the line has none */
	char *session_id; /* "" when the line has none */
	char *type;       /* as written: "file_write", ..., "rollback", "revert" */
	char *commit;     /* gitCommitHash, or NULL: not reversible on its own */
	json_t *details;  /* borrowed from raw; an object (empty when absent) */
	json_t *raw;      /* the whole line, unknown keys included; owned reference */
	uint64_t line;    /* 1-based line number in the file (0 when just recorded) */
} ac_op;

typedef struct {
	ac_op *ops;           /* owned, in file order */
	size_t n;
	uint64_t next_offset; /* where the complete lines end: resume here */
	uint64_t next_line;   /* the number the line at next_offset will have */
	uint64_t skipped;     /* invalid lines reported and skipped */
	bool torn;            /* bytes after the last newline were left unread */
	uint64_t torn_offset; /* with torn: where they start */
} ac_op_list;

/* Called for each line that is skipped: its number and why. */
typedef void (*ac_oplog_problem_fn)(const char *path, uint64_t line, const char *reason,
				    void *ctx);

/* Reads the operations in path from byte offset (a line start; 0 for the
 * whole file) whose line number is first_line (1 at offset 0). A missing
 * file is an empty log. report may be NULL. Free out with
 * ac_op_list_free(). */
int ac_oplog_read(ac_op_list *out, const char *path, uint64_t offset, uint64_t first_line,
		  ac_oplog_problem_fn report, void *ctx);

void ac_op_list_free(ac_op_list *list);

/* Parses one line (text[0..len), without its newline) into *out, whose
 * fields the caller frees with ac_oplog_op_clear(). AC_ECORRUPT with why saying what is wrong (it is cleared first) when the
 * line is not a valid record; AC_ENOMEM. */
int ac_oplog_parse_line(ac_op *out, const char *text, size_t len, ac_buf *why);

/* Frees the fields of an op filled by ac_oplog_parse_line() (not the op). */
void ac_oplog_op_clear(ac_op *op);

/* The last operation in list with exactly this id, or NULL. Borrowed. */
const ac_op *ac_op_list_find(const ac_op_list *list, const char *id);

/* The one operation in list with this id: *out is borrowed from list.
 * AC_ENOTFOUND (naming the id and path) when none has it; AC_EINVAL when
 * two or more lines carry it, naming the id and their line numbers: an
 * ambiguous id is never resolved by guessing. */
int ac_op_list_find_unique(const ac_op **out, const ac_op_list *list, const char *id,
			   const char *path);

/* Frees an op returned by ac_oplog_record() (and the op itself). */
void ac_op_free(ac_op *op);

/* Appends to out a one-line description of an operation's details for
 * people: its path, command or rollback target when it has one, else the
 * details as compact JSON; cut to at most max bytes (on a character
 * boundary, "..." marking the cut). Not sanitised: the caller makes it
 * safe for where it goes. 0 or AC_ENOMEM. */
int ac_oplog_summary(ac_buf *out, const json_t *details, size_t max);

/* Records an operation of session_id in ws's operation log. For file_write
 * and file_delete the workspace is first committed (see
 * ac_git_commit_workspace(); message "[agent] <type>: <summary>") and the
 * hash stored; a workspace in no git repository records without one.
 * command_run never commits. details (an object, or NULL for {}) is
 * borrowed. *out (may be NULL) receives the recorded op, freed with
 * ac_op_free(). AC_EINVAL for an unknown type. */
int ac_oplog_record(ac_op **out, const ac_workspace *ws, const char *session_id,
		    const char *type, const json_t *details);

typedef struct {
	ac_git_rollback_result git; /* the files, the snapshot, the commit */
	ac_op *op;                  /* the rollback's own operation; NULL on a dry run */
	/* The sessions whose work it undoes, as the log names them (raw, not
	 * sanitised; owned): a rollback's, those of the operation and of
	 * every one after it, in order of first appearance; a revert's, the
	 * operation's. Operations without a session add none. */
	char **sessions;
	size_t n_sessions;
} ac_oplog_rollback_result;

/* Puts ws's files back as they were just before operation op_id (the
 * state of its commit's parent), undoing it and everything after it; see
 * ac_git_rollback() for what is touched and how nothing is lost. Checks
 * come first and change nothing: AC_ENOTFOUND for an unknown id, a
 * workspace in no git repository or a commit git does not have; AC_EINVAL
 * for an id that more than one line carries or an operation without a
 * commit (command_run). Unless dry_run, the
 * rollback is recorded as the operator's operation of type rollback
 * (details {rollbackOf, snapshot, agent: "Human"}, the target's sessionId,
 * gitCommitHash the rollback's commit) and as a ROLLBACK journal event of agent Human. When writing
 * those fails after the files changed, the error says so (what changed,
 * the commit, the cause) and out->git still describes the rollback
 * (out->git.commit is set). notes (may be NULL) receives remarks that are
 * not failures, such as agent-state files git tracks and the command that
 * untracks them. Free out with ac_oplog_rollback_result_free(), also after
 * an error. */
int ac_oplog_rollback(ac_oplog_rollback_result *out, const ac_workspace *ws, const char *op_id,
		      bool dry_run, ac_buf *notes);

void ac_oplog_rollback_result_free(ac_oplog_rollback_result *r);

/* The operator's own uncommitted work: the files under ws that differ from
 * HEAD (ac_git_dirty_paths()) which no line of the operation log names in
 * details.path or details.paths. A rollback or revert commits them into
 * its snapshot first. Paths relative to the workspace; *out is a
 * NULL-terminated array freed with ac_git_paths_free(). AC_ENOTFOUND when
 * the workspace is in no git repository. */
int ac_oplog_operator_edits(char ***out, size_t *out_n, const ac_workspace *ws);

/* Undoes operation op_id alone, keeping what later operations did: the
 * reverse of its commit merged onto the current files (ac_git_revert()),
 * with the same checks, snapshot and errors as ac_oplog_rollback(); when a
 * later change touched the same lines, AC_ECONFLICT names the paths and
 * nothing changes. Unless dry_run, recorded as an operation of type revert
 * (details {revertOf, snapshot, agent: "Human"}) and a ROLLBACK journal event of agent
 * Human (details {operationId, revert: true, ...}). Free out with
 * ac_oplog_rollback_result_free(), also after an error. */
int ac_oplog_revert(ac_oplog_rollback_result *out, const ac_workspace *ws, const char *op_id,
		    bool dry_run, ac_buf *notes);

/* Appends to notes, when git tracks agent state of ws (which the local
 * exclude file cannot hide), one remark naming it and the command that
 * untracks it. Nothing when there is none, or no repository. */
void ac_oplog_note_tracked_state(ac_buf *notes, const ac_workspace *ws);

/* Appends text quoted for a POSIX shell (single quotes unless it is made
 * only of characters no shell treats specially), for a command shown to a
 * person to copy; agentctl itself never runs a shell. */
void ac_oplog_shell_quote(ac_buf *out, const char *text);

/* Opens ws's repository with the agent's own state protected (sessions,
 * operation log, checkpoints, journals): what record and rollback use, for
 * callers that show a commit (ac_git_commit_changes()). Free with
 * ac_git_free(). */
int ac_oplog_open_git(ac_git **out, const ac_workspace *ws);

/* ac_git_exclude_ensure() for ws (its agent state as ac_oplog_open_git()
 * protects it), unless gitEnabled is off: what a command that writes agent
 * state calls before its first write. 0 or AC_E*. */
int ac_oplog_exclude_agent_state(const ac_workspace *ws);

#endif
