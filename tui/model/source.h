/* The dashboard's source: the readers that fill the model (journal
 * follower, session index, operation log offset, checkpoint store, the
 * storage backend for a conversation's tabs). It brings a ui_model up to
 * date reading only what the watcher says changed. Views never see it:
 * they draw the model (model.h). No curses here. */
#ifndef UI_SOURCE_H
#define UI_SOURCE_H

#include "model.h"

#include "ac_backend.h"
#include "ac_buf.h"
#include "ac_config.h"
#include "ac_json_scan.h"
#include "ac_source.h"
#include "ac_watch.h"
#include "ac_workspace.h"

typedef struct ui_source ui_source;

/* What ui_source_update() changed in the model. */
enum {
	UI_CHANGED_JOURNAL = 1 << 0,
	UI_CHANGED_SESSIONS = 1 << 1,
	UI_CHANGED_OPS = 1 << 2,
	UI_CHANGED_CHECKPOINTS = 1 << 3,
	UI_CHANGED_CONVERSATION = 1 << 4,
	UI_CHANGED_TRACE = 1 << 5,
};

/* Opens the readers of ws (borrowed; must outlive the source) and fills m
 * (zeroed by the caller) for the first time. */
int ui_source_new(ui_source **out, ui_model *m, const ac_workspace *ws);

void ui_source_free(ui_source *src);

/* When the workspace's store keeps no local session files (a database:
 * ac_workspace_store() has no optional.local_sessions): the sessions pane,
 * the conversation and its store tabs read from it from now on (through
 * the ac_backend interface; the session files are no longer followed),
 * and the model's log says which panes still read the workspace's files.
 * 0 (also for the files) or the store's error. */
int ui_source_use_store(ui_source *src);

/* The watch of the store the source reads when the store has one of its
 * own (optional.watch: a database's LISTEN), *out (free with
 * ac_store_watch_free()); *out NULL and 0 otherwise (the files: the
 * workspace's watcher, ac_watch.h, follows them). */
struct ac_store_watch;
int ui_source_watch_store(const ui_source *src, struct ac_store_watch **out);

/* On a database store, one session changed (the store watch named it):
 * its row alone is read again (whatever the number of sessions), and the
 * conversation and trace when it is the open one. Falls back to reading
 * everything when the rows no longer mirror the listing. Returns the
 * UI_CHANGED_* mask. */
unsigned ui_source_store_update_session(ui_source *src, ui_model *m, const char *id);

/* On a database store, after a store watch read that said
 * AC_STORE_CHANGED: the rows of the sessions it named read again one by
 * one (ui_source_store_update_session()), or everything when it could
 * not name them all. Returns the UI_CHANGED_* mask. */
unsigned ui_source_store_changed(ui_source *src, ui_model *m, const struct ac_store_watch *w);

/* The store as hooks name it (ui_notify_scan()'s source): "file" for the
 * workspace's files, else the database (its URL without a password).
 * Borrowed. */
const char *ui_source_store_label(const ui_source *src);

/* The database's backend the source reads through (its connection is
 * the dashboard's: the hooks lease is held on it), or NULL for the
 * workspace's files. Borrowed; the main thread's only. */
const ac_backend *ui_source_store(const ui_source *src);

/* Brings m up to date for the AC_WATCH_* mask (AC_WATCH_RESCAN: all).
 * Returns the UI_CHANGED_* mask. */
unsigned ui_source_update(ui_source *src, ui_model *m, unsigned watch_mask);

/* As ui_source_update() for what ac_watch_read() returned (mask) on
 * watch: when the watcher named the session files that changed
 * (ac_watch_session_files()), only their rows are read again, and the
 * open conversation only when its file is one of them; otherwise the
 * session folder is listed again. */
unsigned ui_source_update_watched(ui_source *src, ui_model *m, const ac_watch *watch,
				  unsigned mask);

/* Judges again the requests of the rows marked with one on its way
 * ("pausing", "resuming"), which change with time alone ("resuming"
 * turns "stalled"), without reading any session file. Returns the
 * UI_CHANGED_* mask. */
unsigned ui_source_recheck_pending(ui_source *src, ui_model *m);

/* Derives the coding agents' sessions' states anew (they change with
 * time alone) and, with refresh, first reads their transcripts again (a
 * stat each, and what was appended). The dashboard derives about once a
 * second and refreshes when their folders' watch fires (or on a slower
 * poll). Returns the UI_CHANGED_* mask. */
unsigned ui_source_poll_transcripts(ui_source *src, ui_model *m, bool refresh);

/* The descriptor that turns readable when a transcript folder changes, or
 * -1 (then poll). */
int ui_source_transcripts_fd(const ui_source *src);

/* True when transcripts are read at all (a folder configured and found
 * readable or not): the dashboard then polls them. */
bool ui_source_transcript_folders(const ui_source *src);

/* The transcript whose id is id (raw, ui_session.raw_id), or NULL: for resuming it with
 * its tool. Borrowed until the next poll. */
const ac_source_session *ui_source_transcript(const ui_source *src, const char *id);

/* Loads the checkpoints of session id (NULL: none) into m. */
int ui_source_load_checkpoints(ui_source *src, ui_model *m, const char *id);

/* Loads session id's conversation into m (m->conv_error says why not).
 * Loading the open one again (its file changed) keeps the store tabs
 * unless its tenant changed. */
int ui_source_open_conversation(ui_source *src, ui_model *m, const char *id);

/* The open conversation's tenant as stored (borrowed until the next
 * open), NULL when it has none: the trace the watcher should follow. */
const char *ui_source_tenant(const ui_source *src);

/* Reads what tab shows for the open conversation: the memory documents
 * (listed again each time), the artifact ids (likewise), or the trace (all
 * of it the first time; after that ui_source_update(AC_WATCH_TRACES) reads
 * only records after m->trace_seq). A session without a tenant has
 * nothing to read (m->store_note says so). */
int ui_source_load_tab(ui_source *src, ui_model *m, ui_tab tab);

/* Reads memo document or artifact i of its list in full into the model's
 * document (m->doc_error says why not). */
int ui_source_open_item(ui_source *src, ui_model *m, ui_tab tab, size_t i);

/* Decodes a string field of a scanned event into a NUL-terminated string
 * borrowed from scratch (reused: copy it before the next call); "" when
 * the field is absent or not a string. */
const char *ui_event_field(ac_buf *scratch, const ac_json_span *f);

/* The session a scanned event names (action.params.sessionId, else
 * trace.correlation_id) and its trace.parent_id, raw, allocated for the
 * caller to free; NULL when absent. */
void ui_event_session(char **out_session, char **out_parent, ac_buf *scratch,
		      const ac_json_span *fields);

#endif
