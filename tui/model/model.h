/* The dashboard's model: everything the panes show, copied out of the
 * core's readers and made safe for a terminal (ac_text_sanitize), so that
 * views draw from it alone and never touch a file.
 *
 * The readers that fill it are tui/model/source.h. Between two updates the
 * model does not change: views may keep pointers into it while drawing. No
 * curses here. */
#ifndef UI_MODEL_H
#define UI_MODEL_H

#include "ac_backend.h"
#include "ac_oplog.h"
#include "ac_oplog_intent.h"
#include "ac_session_index.h"
#include "ac_session_state.h"
#include "ac_usage_report.h"
#include "ac_workspace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	UI_STATUS_RUNNING,
	UI_STATUS_PAUSED,
	UI_STATUS_COMPLETED,
	UI_STATUS_FAILED,
	UI_STATUS_OTHER,
	UI_STATUS_COUNT
} ui_status;

/* Every string below is owned by the model, sanitised, never NULL. */
typedef struct {
	char *id, *task, *status, *user, *agent, *created, *updated;
	/* The session's id as stored, byte for byte: its identity, for every
	 * lookup, action, hook and file (an id holds no NUL: it names a file,
	 * and a database's text cannot hold one). Never drawn: id is its
	 * display form, and two ids can look the same there ("a\x1b" and
	 * "a^["). Never NULL. */
	char *raw_id;
	char *host;  /* that last wrote it: a database store records it; "" for files */
	size_t messages;
	uint64_t tokens;
	ui_status st;
	/* What an operator request leaves pending ("pausing", "resuming",
	 * "overridden", "stalled", "no resume"; static, NULL for none), and
	 * whether that is trouble to show in red. */
	const char *pending;
	bool pending_alarm;
	/* A coding agent's transcript (tui/model/model_transcripts.c): its tool
	 * ("claude-code", "codex", "gemini"; static), NULL for a session file. */
	const char *source;
	ac_session_state state; /* derived: ac_session_state.h */
	/* When its store last wrote a session (ms since the epoch; 0 unknown):
	 * a running one whose agent is quiet past the idle threshold is idle,
	 * as `session list --state` says. */
	int64_t written_ms;
	/* The transcript's file, raw (for the conversation search, never
	 * shown); NULL for a session file. */
	char *path;
	/* What a waiting agent waits on, as its tool says ("permission
	 * prompt", ac_source_status.h), sanitised; NULL when nothing says. */
	char *waiting_for;
	/* Where a transcript sits among the others (tui/model/model_tree.c): a
	 * child's parent (raw id, NULL at the top) and relation ("subagent",
	 * "fork"; static, NULL at the top), how many ancestors are listed
	 * (depth), the parent's row among the transcripts (SIZE_MAX: not
	 * listed), and for a parent its listed children. */
	char *parent;
	const char *relation;
	/* A transcript's last tool call ("Bash make test"), sanitised; NULL
	 * when none is known. */
	char *last_action;
	/* A transcript whose tool counts no tokens: tokens is the usage
	 * index's total for its session (ui_model_take_usage_tokens). */
	bool tokens_usage;
	unsigned depth;
	size_t parent_row;
	size_t children;
} ui_session;

typedef struct {
	char *id, *timestamp, *agent, *status, *action, *message;
	ui_status st; /* SUCCESS -> completed, FAILED -> failed, IN_PROGRESS -> running */
	/* The session it names (action.params.sessionId, else
	 * trace.correlation_id) and trace.parent_id (an operation id), for
	 * narrowing to a session; NULL when absent. */
	char *session, *parent;
	/* For a line that is not a valid event (shown, marked, never hidden):
	 * why and the record, sanitised, "REASON | RAW"; NULL for an event. */
	char *invalid;
} ui_event;

typedef struct {
	char *id, *timestamp, *session, *type, *what, *commit;
	/* The id as recorded, for every lookup and action, never drawn (as
	 * ui_session.raw_id: "a\x1b" and "a^[" look the same as id). */
	char *raw_id;
	bool reversible; /* has a commit to roll back to */
	/* Who did it: details.agent, else (filled by ui_ops_fill()) the
	 * session's agentId or user; NULL until known. */
	char *agent;
	/* The operation's note (details.note/message/description), else its
	 * commit's subject when that says more than the seed's "[agent] ..."
	 * (filled by ui_ops_fill()); NULL: none. */
	char *note;
	/* Files its commit changed and lines added/removed, from git, read
	 * once (stats_read) for rows on screen by ui_ops_fill(). */
	size_t files, adds, dels;
	bool stats_read, stats_failed;
	/* 'R' rolled back, 'V' reverted by a later recorded rollback/revert
	 * operation; 0: not undone. */
	char undone;
} ui_op;

typedef struct {
	char *id, *node, *created;
	char *raw_id; /* as stored: the identity (ui_session.raw_id), never drawn */
	int64_t version;
	size_t messages;
	bool tombstone;
} ui_checkpoint;

typedef enum {
	UI_CONV_ROLE,        /* a message's header: its role (and index) */
	UI_CONV_TEXT,
	UI_CONV_TOOL_CALL,
	UI_CONV_TOOL_RESULT,
} ui_conv_kind;

/* One logical line of a conversation (no newline; wrapped when drawn). */
typedef enum { UI_ROLE_USER, UI_ROLE_ASSISTANT, UI_ROLE_SYSTEM, UI_ROLE_TOOL, UI_ROLE_OTHER } ui_role;

typedef struct {
	ui_conv_kind kind;
	ui_role role;        /* the message's role */
	char *text;
} ui_conv_line;

/* The conversation's tabs: its messages, then what the storage backend
 * (ac_backend.h) keeps for the session under its tenant. */
typedef enum {
	UI_TAB_MESSAGES,
	UI_TAB_MEMORY,
	UI_TAB_ARTIFACTS,
	UI_TAB_TRACE,
	UI_TAB_COUNT
} ui_tab;

/* A memory document (scope "session", "user" or "agent") or an artifact
 * (scope ""). raw_owner and raw_name are the ids as stored, kept only to
 * read the item back: never drawn. */
typedef struct {
	char *scope, *owner, *name; /* sanitised */
	char *raw_owner, *raw_name;
} ui_store_item;

typedef struct {
	ui_store_item *items;
	size_t n;
	bool loaded;   /* listed at least once */
	char *error;   /* why it could not be listed, or NULL */
} ui_store_list;

/* One trace record: {"seq", "at", "data"}; kind is data's type, kind,
 * event or name; summary the data as compact JSON, cut. */
typedef struct {
	uint64_t seq;
	char *at, *kind, *summary;
} ui_trace_entry;

/* One row of the key table, as help shows it: label ("j Down"), what it
 * does, and the panes where it applies (a mask of 1 << ui_pane_id,
 * views/view.h). Strings are static. */
typedef struct {
	const char *label;
	const char *help;
	unsigned panes;
	bool writes;    /* changes files: refused in read-only mode */
} ui_key_doc;

#define UI_MODEL_EVENTS 2000 /* the journal tail kept */
#define UI_MODEL_LOG 500     /* the status messages kept (model_log.c) */

/* One status message as shown, whole (the status line cuts it). */
typedef struct {
	int64_t at_ms;   /* when it was shown (ms since the epoch) */
	bool error;
	char *text;      /* sanitised, whole */
} ui_log_entry;

/* A text open in full in front of the panes: a journal event as pretty
 * JSON, a checkpoint's preview (tui/preview.c fills it). Open when title
 * is set; lines sanitised. */
typedef struct {
	char *title;
	char **lines;
	size_t n, cap;
} ui_viewer;

/* One event the whole-journal search found: file indexes search.files. */
typedef struct {
	ui_event ev;
	size_t file;
	uint64_t offset;     /* of its line in that file */
} ui_jmatch;

/* The search over the whole journal and its rotated files (tui/jsearch.c
 * fills it, newest match first; views/journal.c draws it). Open when
 * query is set. */
typedef struct {
	char *query;         /* sanitised, as typed */
	char **files;        /* raw paths, oldest first: read, never drawn */
	char **file_names;   /* their sanitised base names */
	size_t n_files;
	ui_jmatch *matches;
	size_t n, cap;
	uint64_t bytes_total, bytes_done;
	size_t files_done;   /* files scanned to their start */
	bool running;        /* scanning now (more is wanted) */
	bool complete;       /* every file scanned */
	bool database;       /* a database's journal (no files: matches open by id) */
	char *error;         /* the query or a file could not be read; or NULL */
} ui_jsearch;

/* A session whose conversation holds the Sessions pane's "/" filter text
 * (tui/csearch.c finds them): its first matching message (0-based) and a
 * snippet around the match (one line, sanitised). */
typedef struct {
	char *id;
	size_t message;
	char *snippet;
} ui_conv_hit;

/* The conversation search behind the Sessions pane's filter. */
typedef struct {
	char *needle;        /* the filter text searched for, as typed; NULL: none */
	ui_conv_hit *hits;   /* sorted by id */
	size_t n, cap;
	uint64_t gen;        /* changes with each hit and each new search */
	bool running;        /* files are still being read */
} ui_csearch;

/* The rows by raw id (tui/model/model_ids.c): the ids and updated_at are the
 * rows' own strings, borrowed. */
typedef struct {
	const char *id, *updated;
} ui_id_entry;
typedef struct {
	ui_id_entry *slot;
	size_t cap, n;           /* cap: a power of two */
	bool lost;               /* out of memory: rows are searched one by one */
} ui_id_map;
void ui_id_map_put(ui_id_map *t, const char *id, const char *updated);
void ui_id_map_remove(ui_id_map *t, const char *id);
const ui_id_entry *ui_id_map_get(const ui_id_map *t, const char *id);
void ui_id_map_clear(ui_id_map *t);

typedef struct {
	char *workspace;         /* sanitised root */
	char *store_where;       /* a shared store's name (sanitised, no password),
				    or NULL: the sessions are the workspace's files */
	bool read_only;

	ui_session *sessions;    /* newest first */
	bool hosts_known;        /* some row names its host: the HOST column is shown */
	size_t n_sessions, cap_sessions;
	size_t by_status[UI_STATUS_COUNT];
	/* The rows whose pending label changes with time alone (pending and
	 * not pending_alarm: "resuming" turns "stalled"), kept by the
	 * functions that set rows and labels (tui/model/model_sessions.c). */
	size_t n_pending_quiet;
	/* Changes with every change of the rows (unique in the process). When
	 * the last change was one ui_model_put_session() after generation
	 * sessions_prev_gen, sessions_move says what it did (was_at, now_at):
	 * a view may move that row in what it derived instead of starting
	 * over. Otherwise sessions_prev_gen is 0. */
	uint64_t sessions_gen, sessions_prev_gen;
	ac_session_index_change sessions_move;
	/* The session files' and the store's rows by raw id (not the
	 * transcripts'): ui_model_find_session(). */
	ui_id_map row_ids;
	bool rows_in_order;      /* those rows are in the store's listing order */
	/* The raw ids of the rows ui_model_put_session() and
	 * ui_model_put_store_session() changed, came or went between
	 * generations changed_from and changed_to (the current one when no
	 * other change came since): ui_model_changed_since(). */
	char **changed;
	size_t n_changed, cap_changed;
	bool changed_lost;       /* too many, or out of memory */
	uint64_t changed_from, changed_to;
	/* The last n_transcripts rows are coding agents' transcripts, after
	 * the session files' rows (which mirror the index's listing). */
	size_t n_transcripts;
	/* Token totals of the transcripts' sessions from the usage index
	 * (tui/usage_meter.c, sorted: ac_usage_session_total_find), for those
	 * whose tool says none; owned, ids in usage_ids. */
	ac_usage_session_total *usage_totals;
	size_t n_usage_totals;
	char *usage_ids;
	/* The thresholds a session's state is derived under (borrowed; NULL:
	 * the defaults), and the next moment a session file's row turns idle
	 * with time alone (0: none will): ui_model_derive_states(). */
	const ac_state_thresholds *state_limits;
	int64_t states_change_at;
	/* Transcript rows that are children (a sub-agent, a fork whose parent
	 * is listed): 0 spares the Sessions pane its tree. The parents whose
	 * children the operator folded (raw ids; '-'), kept across reads. */
	size_t n_tree_children;
	char **tree_closed;
	size_t n_tree_closed;
	/* The ids (sanitised) of the rows changed since ui_model_clear_touched(),
	 * and the events, checkpoints and conversations read (prefixed),
	 * noted only while track_touched is set: what the frame trace reports
	 * (tui/frame_trace.h). */
	bool track_touched;
	char **touched;
	size_t n_touched, cap_touched;

	ui_event events[UI_MODEL_EVENTS]; /* a ring: the oldest at events_start */
	size_t events_start, n_events;
	uint64_t events_seen;    /* since start */

	bool ops_present;        /* the operation log exists */
	/* The folder is no workspace (a database's fleet seen from anywhere):
	 * no operation log, no git. */
	bool no_workspace;
	/* A rollback or revert stopped midway (ac_oplog_intent.h), shown
	 * above the operations: its line (sanitised) and what F and U act on;
	 * intent_line NULL when there is none. */
	char *intent_line;
	char *intent_op;         /* its operation (raw) */
	bool intent_revert, intent_running;
	ui_op *ops;              /* file order (oldest first) */
	size_t n_ops, cap_ops;

	char *ckpt_session;      /* whose checkpoints are loaded (raw), or NULL */
	char *ckpt_session_shown; /* the same sanitised, for titles; NULL with it */
	ui_checkpoint *ckpts;    /* by version */
	size_t n_ckpts;
	bool ckpts_present;      /* the session has a checkpoint folder */

	char *conv_session;      /* the open conversation, or NULL */
	char *conv_title;
	ui_conv_line *conv;
	size_t n_conv, cap_conv;
	size_t n_conv_messages;  /* the messages the lines were built from */
	uint64_t conv_gen;       /* moved on when the lines are built anew (not
				  * when lines are appended) */
	char *conv_error;        /* why it could not be loaded, or NULL */
	char *conv_stale;        /* why it cannot be read again now (the lines are
				  * its last good read), or NULL */
	/* The open conversation's recorded usage (ac_turn_usage.h), as lines
	 * ready to draw: conv_usage_total the totals ("" when no turn), then
	 * one line per turn row, oldest first. */
	char *conv_usage_total;
	char **conv_usage_rows;
	size_t n_conv_usage_rows;

	/* The open conversation's store, read when its tab is shown. */
	char *conv_tenant;       /* metadata.tenantId, or NULL */
	char *store_note;        /* why nothing can be read (no tenant), or NULL */
	ui_store_list memos;     /* scope order (session, user, agent), then name */
	ui_store_list artifacts; /* by id */
	ui_trace_entry *trace;   /* by seq */
	size_t n_trace, cap_trace;
	uint64_t trace_seq;      /* the last seq read: the next load is after it */
	bool trace_loaded;
	char *trace_error;
	size_t trace_skipped;    /* torn or corrupt records */

	/* A memo document or artifact open for reading: one line per line of
	 * the file (tabs as spaces), or doc_error. Open when doc_title is set. */
	ui_tab doc_tab;
	char *doc_title;
	char **doc_lines;
	size_t n_doc_lines, doc_bytes;
	char *doc_error;

	/* An operation's patch open for reading (tui/patch.c fills it,
	 * views/patch.c draws it): one line per line of the diff (tabs as
	 * spaces), or patch_error. Open when patch_title is set. */
	char *patch_title;
	char **patch_lines;
	size_t n_patch_lines;
	char *patch_error;

	/* Warnings for the status line. */
	uint64_t journal_skipped;  /* invalid lines skipped by the tail */
	uint64_t ops_skipped;
	size_t session_problems;
	size_t ckpt_problems;
	char *last_problem;        /* the latest file that could not be read, and why */
	char *polling;             /* why the watcher polls, or NULL */

	char action[512];          /* the last action's result, sanitised */
	bool action_error;
	bool action_cut;           /* action holds less than the message: the log has it */
	int64_t action_ms;         /* when it was set: it leaves the status line after
				    * UI_ACTION_SHOWN_MS (errors UI_ACTION_ERROR_SHOWN_MS);
				    * the log (L) keeps it */

	/* Every status message and file problem, oldest first: a ring. */
	ui_log_entry log[UI_MODEL_LOG];
	size_t log_start, n_log;
	char *journal_error;       /* why the journal cannot be read, or NULL */

	/* The open confirmation dialog (tui/actions.c fills it, views/dialog.c
	 * draws it): open when dialog_title is set. Sanitised. */
	char *dialog_title;
	char **dialog_lines;       /* what will change */
	size_t n_dialog_lines, cap_dialog_lines;
	char *dialog_keys;         /* its keys line; NULL: y confirms, n cancels */

	/* The key table as the help screen shows it (tui/keys.c): static. */
	const ui_key_doc *keys;
	size_t n_keys;

	ui_viewer viewer;          /* an event or a checkpoint preview in full */
	ui_jsearch search;         /* the whole-journal search */
	ui_csearch conv_search;    /* conversations holding the Sessions filter */
} ui_model;

/* Starts the conversation search's results over for needle (copied;
 * NULL: none, everything freed). */
void ui_model_csearch_reset(ui_model *m, const char *needle);

/* Adds session id's hit (copied; snippet is sanitised already). 0 or
 * AC_ENOMEM. */
int ui_model_csearch_add(ui_model *m, const char *id, size_t message, const char *snippet);

/* Drops session id's hit, if any. */
void ui_model_csearch_remove(ui_model *m, const char *id);

/* Session id's hit for filter (the pane's text), or NULL: none, or the
 * results are another text's. Borrowed until the next change. */
const ui_conv_hit *ui_model_csearch_hit(const ui_model *m, const char *filter, const char *id);

/* The i-th event of the tail, oldest first (i < n_events). */
const ui_event *ui_model_event(const ui_model *m, size_t i);

/* Maps a session status string to ui_status. */
ui_status ui_status_of(const char *status);

/* Maps a journal status (SUCCESS, FAILED, IN_PROGRESS) to ui_status. */
ui_status ui_event_status_of(const char *status);

#define UI_ACTION_SHOWN_MS 20000
#define UI_ACTION_ERROR_SHOWN_MS 60000

/* Clears the status line's message once it has been shown long enough
 * (now_ms); true when it did (the screen changes). */
bool ui_model_action_expire(ui_model *m, int64_t now_ms);

/* Sets the last action's result (printf format; sanitised), kept in the
 * log (L) too. */
void ui_model_set_action(ui_model *m, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same line, not logged: a result each key typed replaces (a search's
 * count), which would fill the log one keystroke at a time. */
void ui_model_set_result(ui_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends text (raw; sanitised here) to the message log, stamped now. */
void ui_model_log(ui_model *m, bool error, const char *text);

/* The i-th message of the log, oldest first (i < n_log). */
const ui_log_entry *ui_model_log_entry(const ui_model *m, size_t i);

/* Empties the message log. */
void ui_model_log_free(ui_model *m);

/* Appends one decoded journal event to the ring (for the follower and for
 * tests); fields are raw and get sanitised here. */
void ui_model_add_event(ui_model *m, const char *id, const char *timestamp, const char *agent,
			const char *status, const char *action, const char *message);

/* Sets the session and parent operation (raw, may be NULL) of the event
 * added last. */
void ui_model_event_link(ui_model *m, const char *session, const char *parent);
/* Marks the newest event as a record outside the schema: reason and the
 * raw line (len bytes, borrowed) are kept sanitised, to be shown marked. */
void ui_model_event_invalid(ui_model *m, const char *reason, const char *raw, size_t len);

/* The viewer (model.viewer): opens it titled title (raw), appends a raw
 * line (sanitised; tabs as spaces), closes it. */
void ui_model_viewer_open(ui_model *m, const char *title);
void ui_model_viewer_line(ui_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ui_model_viewer_close(ui_model *m);

/* Derives again, at now_ms, the states of the session files' rows, which
 * change with time alone (running turns idle once quiet), when
 * m->states_change_at has come. True when a row's state changed. */
bool ui_model_derive_states(ui_model *m, int64_t now_ms);

/* Empties the journal tail and its counts (events seen, lines skipped). */
void ui_model_clear_events(ui_model *m);

/* Replaces the session list with sanitised copies of list[0..n) (borrowed)
 * and recounts the statuses. 0 or AC_ENOMEM (the old list is kept). */
int ui_model_set_sessions(ui_model *m, const ac_session_summary *const *list, size_t n);

/* The same from a store's listing (ac_backend.h; borrowed), with the host
 * that last wrote each session (m->hosts_known then says whether any
 * row has one). 0 or AC_ENOMEM (the old list is kept). */
int ui_model_set_store_sessions(ui_model *m, const ac_backend_session_info *list, size_t n);

/* Applies one session file's refresh (ac_session_index_change) to the
 * rows, which mirror the index's listing: the row at was_at goes, s
 * (borrowed; NULL: none) comes at now_at, marked with pending/alarm as
 * ui_model_set_session_pending() does unless it is stale. Costs one row,
 * whatever the number of rows. 0, AC_EINVAL (the places do not fit these
 * rows: set them whole) or AC_ENOMEM (nothing changed). */
int ui_model_put_session(ui_model *m, size_t was_at, const ac_session_summary *s, size_t now_at,
			 const char *pending, bool alarm);

/* One session of a store's listing changed: its row (session id) is
 * replaced by info (borrowed), moved to its place in the listing's order
 * (newest first), or added; info NULL: the row goes. Costs one row. 0 or
 * AC_ENOMEM (nothing changed). */
int ui_model_put_store_session(ui_model *m, const char *id, const ac_backend_session_info *info);

/* One coding agent's transcript as a row: raw strings, sanitised here;
 * parent (NULL: top level) and relation ("subagent", "fork"; static,
 * NULL: top level) place a child under its session. */
typedef struct {
	const char *id, *task, *created, *updated, *source, *path, *parent, *relation;
	const char *waiting_for; /* raw; NULL: nothing said */
	const char *last_action; /* NULL: none known */
	size_t messages;
	uint64_t tokens;         /* 0: its tool says none */
	ac_session_state state;
} ui_transcript_row;

/* ---- the sessions' tree (tui/model/model_tree.c) ---- */

/* Fills the tree fields of the transcript rows (parent_row, depth,
 * children) and m->n_tree_children from their parents. 0 or AC_ENOMEM
 * (the rows are then shown flat). */
int ui_model_tree_link(ui_model *m);

/* Whether the operator folded the children of session raw_id. */
bool ui_model_tree_closed(const ui_model *m, const char *raw_id);

/* Folds (closed) or unfolds the children of session raw_id. 0 or AC_ENOMEM. */
int ui_model_tree_set(ui_model *m, const char *raw_id, bool closed);

/* Whether row i is hidden by a folded ancestor. */
bool ui_model_tree_hidden(const ui_model *m, size_t i);

/* The row of the parent of row i listed among the transcripts, or
 * SIZE_MAX. */
size_t ui_model_tree_parent(const ui_model *m, size_t i);

/* Puts the rows idx[0..n) (indexes into m->sessions, in the order shown)
 * in tree order: each row, then its shown children (in their order), one
 * level deeper; a child whose parent is not shown keeps its place. */
void ui_model_tree_order(const ui_model *m, size_t *idx, size_t n);

void ui_model_tree_free(ui_model *m);

/* Replaces the transcript rows (the last m->n_transcripts) with rows[0..n),
 * unless they are the same already. True when the rows changed. */
bool ui_model_set_transcripts(ui_model *m, const ui_transcript_row *rows, size_t n);

/* Takes totals[0..n) (sorted by source and id) and the block ids their
 * ids point into (both freed by the model from now on), and gives each
 * transcript row whose tool counts no tokens its session's total. True
 * when a row changed. */
bool ui_model_take_usage_tokens(ui_model *m, ac_usage_session_total *totals, size_t n, char *ids);

/* Frees what ui_model_take_usage_tokens took. */
void ui_model_usage_tokens_free(ui_model *m);

/* Frees the session rows (and the touched ids). */
void ui_model_clear_sessions(ui_model *m);

/* The index of the row whose raw id is id, or AC_SESSION_INDEX_NONE:
 * found by its id and its place (the store's rows are in listing order),
 * else row by row. */
size_t ui_model_find_session(const ui_model *m, const char *id);

/* The raw ids (*n, borrowed, may repeat) of every row changed, added or
 * removed since generation gen, or NULL when the model cannot tell (rows
 * replaced whole, or changed in another way since): then compare all.
 * ui_model_changed_forget() starts a new list from the current rows. */
/* Renumbers rows[0..n) (indexes into m->sessions before its one move,
 * m->sessions_move) as after it, dropping the row that went: how many
 * are left. */
size_t ui_model_renumber_rows(const ui_model *m, size_t *rows, size_t n);
/* Puts row in its place among rows[0..n) (ascending, room for one more):
 * n + 1. */
size_t ui_rows_insert(size_t *rows, size_t n, size_t row);

char *const *ui_model_changed_since(const ui_model *m, uint64_t gen, size_t *n);
void ui_model_changed_forget(ui_model *m);

/* Notes that the row of session id (sanitised, borrowed) changed, when
 * m->track_touched; ui_model_clear_touched() forgets the notes. */
void ui_model_touch_session(ui_model *m, const char *id);
void ui_model_clear_touched(ui_model *m);

/* Marks session id (if listed) with what a request leaves pending: label is
 * static text, alarm asks for the failure colour. */
void ui_model_set_session_pending(ui_model *m, const char *id, const char *label, bool alarm);

/* Sets the open conversation's usage lines from usage, a {"turns": [...],
 * "totals": {...}} (borrowed; NULL clears them). 0 or AC_ENOMEM. */
int ui_model_set_usage(ui_model *m, const json_t *usage);

/* Builds the conversation lines of messages (a JSON array, borrowed) for
 * session id; title is shown above it. */
int ui_model_set_conversation(ui_model *m, const char *id, const char *title,
			      const json_t *messages);

/* Adds the lines of messages (a JSON array, borrowed) at the open
 * conversation's end, as set_conversation draws them after the ones it
 * holds (numbered on), and sets its title: what a store read only
 * appended. AC_EINVAL when no conversation is open. */
int ui_model_append_conversation(ui_model *m, const char *title, const json_t *messages);

/* Closes the conversation with its store tabs and document. */
void ui_model_close_conversation(ui_model *m);

/* Appends trace records (a JSON array of {"seq","at","data"}, borrowed)
 * with a seq past m->trace_seq, which follows them. */
int ui_model_add_trace(ui_model *m, const json_t *records);

/* Sets the open document to text[0..len) (raw; sanitised here), titled
 * title, from tab. */
int ui_model_set_document(ui_model *m, ui_tab tab, const char *title, const char *text,
			  size_t len);

void ui_model_close_document(ui_model *m);

/* ---- an operation's patch (tui/model/model_patch.c; tui/patch.c reads it) ---- */

/* Most lines kept of one patch; the rest is counted in a last line. */
#define UI_PATCH_MAX_LINES 20000

/* Sets m's patch to text[0..len) (raw; sanitised here, tabs as spaces,
 * cut at UI_PATCH_MAX_LINES) titled title, or to error when it is not
 * NULL. 0 or AC_ENOMEM. */
int ui_model_set_patch(ui_model *m, const char *title, const char *text, size_t len,
		       const char *error);

/* Closes the open patch. */
void ui_model_close_patch(ui_model *m);

/* Opens the dialog titled by fmt (printf; sanitised), with no lines yet. */
void ui_model_dialog_title(ui_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends a line to the dialog (printf; sanitised). */
void ui_model_dialog_line(ui_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sets the open dialog's keys line (printf; sanitised), for a dialog
 * whose keys are not only y and n. */
void ui_model_dialog_keys(ui_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Closes the dialog: its text is freed. */
void ui_model_close_dialog(ui_model *m);

/* Frees everything the model owns (the struct itself is the caller's). */
void ui_model_free(ui_model *m);

/* ---- who needs the operator (tui/model/model_attention.c) ---- */

/* Puts in idx (room for m->n_sessions) the rows whose derived state is
 * waiting, longest waiting first (then by id); returns how many. */
size_t ui_model_waiting(const ui_model *m, size_t *idx);

/* When s started to wait, as far as its files say (its last update;
 * ms since the epoch), 0 when unknown. */
int64_t ui_session_waiting_since(const ui_session *s);

/* The name the attention strip gives s: a seed session's agent, a
 * transcript's title or first prompt; else its id. Borrowed. */
const char *ui_session_attention_name(const ui_session *s);

/* Shared by the model's files: frees one row's strings; a new rows
 * generation (unique in the process). */
void ui_session_free_row(ui_session *s);
uint64_t ui_model_next_generation(void);

/* Shared with tui/model/source.c, which fills the model. */
char *ui_safe_dup(const char *s, size_t len);  /* sanitised copy; caller frees */
char *ui_safe_str(const char *s);              /* ui_safe_dup of a C string (NULL: "") */
char *ui_raw_str(const char *s);               /* an unsanitised copy, never drawn (NULL: "") */
char *ui_safe_line(const char *s, size_t len); /* one line: tabs as spaces, then sanitised */
/* "REASON | RAW" of a record outside the schema, sanitised; caller frees. */
char *ui_invalid_text(const char *reason, const char *raw, size_t len);
void ui_sfree(char *s);
void ui_model_clear_ops(ui_model *m);

/* Appends op (borrowed) to the operations (tui/model/model_ops.c), marking the
 * operations an operator's rollback or revert undid. 0 or AC_ENOMEM. */
int ui_model_add_op(ui_model *m, const ac_op *op);

/* Reads, once each, the git stats, commit subject and agent of the
 * operations idx[first..first+n) (the rows on screen) that lack them.
 * ws may be NULL (no git). True when a row changed. */
bool ui_ops_fill(ui_model *m, const ac_workspace *ws, const size_t *idx, size_t n);

/* Shows intent (NULL: none) above the operations; true when that changed.
 * The intent is only read. */
bool ui_model_set_intent(ui_model *m, const ac_oplog_intent *intent);
void ui_model_clear_checkpoints(ui_model *m);
void ui_model_clear_store(ui_model *m);
void ui_store_list_clear(ui_store_list *l);

#endif
