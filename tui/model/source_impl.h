/* The dashboard source's private parts, shared by tui/model/source.c (the
 * workspace's files) and tui/model/source_store.c (sessions in a
 * database). Not for the rest of the dashboard: it uses source.h. */
#ifndef UI_SOURCE_IMPL_H
#define UI_SOURCE_IMPL_H

#include "source.h"

#include "ac_backend.h"
#include "ac_checkpoint.h"
#include "ac_journal_follow.h"
#include "ac_journal_store.h"
#include "ac_session_index.h"
#include "ac_source.h"

#include <sys/types.h>

struct ui_source {
	const ac_workspace *ws;
	ui_model *m;
	ac_journal_follow *follow;
	ac_session_index *index;
	ac_checkpoint_store *store;
	uint64_t ops_offset, ops_line;
	dev_t ops_dev;
	ino_t ops_ino;
	ac_buf scratch;
	ac_backend *backend;     /* the workspace's store (ac_workspace_store()),
				    held until ui_source_free() */
	bool database;           /* sessions and conversations come from backend:
				    it keeps no local session files */
	char *store_name;        /* the database as shown (no password), or NULL */
	char *tenant, *user, *agent; /* the open conversation's, as stored, or NULL */
	bool rows_synced; /* the model's rows mirror the index's listing */
	ac_journal_store *journal; /* the database's journal (read by seq), or NULL:
				      the file, through follow */
	uint64_t journal_seq;      /* the last event of journal read */
	/* Where the open conversation's lines stand in its database history:
	 * a change reads only what was appended after (session.load_after). */
	ac_backend_history_cursor conv_cursor;
	/* The coding agents' transcripts (tui/model/source_transcripts.c); NULL
	 * when off (a database store, or no HOME). */
	ac_source_index *transcripts;
	struct ac_source_watch *transcripts_watch; /* inotify on their folders */
	ac_state_thresholds limits;
	bool transcripts_read;    /* read once: later rounds are the poll's */
	bool rows_differ;         /* a transcript was read since the rows were set */
	size_t transcripts_unreadable; /* left out by the last refresh, as noted */
	uint64_t drift_said;      /* a hash of the format-drift canary as last logged */
	uint64_t conv_size;       /* the open transcript's size and time when read */
	int64_t conv_mtime_ns;
	char conv_waiting[256];   /* what it waited on then (its title says), "" none */
};

/* Logs a problem with path (once while it stays the same) and keeps it
 * for the status line. */
void ui_source_note_problem(ui_model *m, const char *path, const char *reason);

/* Takes the tenant, user and agent (allocated; may be NULL) of the
 * conversation just loaded; the store tabs start again when the tenant is
 * another one. */
void ui_source_set_owner(ui_source *src, ui_model *m, bool same_session, char *tenant,
			 char *user, char *agent);

/* Opens the transcripts' index from ws's config (nothing when it has
 * none). 0 or AC_ENOMEM. */
int ui_source_transcripts_open(ui_source *src);

/* Puts the transcripts' rows after the session files', their states
 * derived now; with refresh, after reading what changed in them (else
 * from what was read last: no file is touched). UI_CHANGED_SESSIONS when
 * the rows changed, and UI_CHANGED_CONVERSATION when the open
 * conversation is a transcript that changed (it is read again). */
unsigned ui_source_transcripts_read(ui_source *src, ui_model *m, bool refresh);

/* Opens transcript id (as shown: sanitised) as the conversation.
 * AC_ENOTFOUND when no transcript has that id. */
int ui_source_transcript_conversation(ui_source *src, ui_model *m, const char *id);

/* The sessions pane and a conversation from the database (source_store.c). */
unsigned ui_source_store_read_sessions(ui_source *src);
int ui_source_store_open_conversation(ui_source *src, ui_model *m, const char *id);

/* Handed each event read, from the file or the database: into the model. */
int ui_source_on_event(const ac_scan_match *match, void *ctx);

/* The database's journal events after the last seq read (source_store.c). */
unsigned ui_source_store_read_journal(ui_source *src);

#endif
