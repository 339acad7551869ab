/* Undoing a compaction or a checkpoint rollback: the messages it archived
 * (ac_archive.h) go back into the session, in place of the summary (a
 * compaction) or after the messages kept (a checkpoint rollback). Only
 * while the session is as the operation left it: a restore never drops or
 * reorders what an agent wrote since. Not for reading archives to show
 * them. */
#ifndef AC_RESTORE_H
#define AC_RESTORE_H

#include "ac_session.h"

#include <stddef.h>

typedef enum {
	AC_RESTORE_COMPACTION, /* the first message is the summary: put the archive there */
	AC_RESTORE_ROLLBACK,   /* the history was cut: put the archive after it */
} ac_restore_kind;

/* Puts the messages of archive (a path to a file ac_archive_write() wrote
 * under sessions_dir, as ac_compact_result and ac_checkpoint_rollback_result
 * give it) back into session id, through ac_session_update_with() (the same
 * lost-update protection, quiet wait opts, may be NULL). The session must
 * be as the operation left it: its history holds expected_len messages
 * (messages_after of the compaction; the messages kept by the rollback),
 * the newest record of metadata.compactions (or metadata.rollbacks) names
 * the archive, and for a compaction the first message is its summary;
 * otherwise AC_ECONFLICT saying what changed, and nothing is written. The
 * restore is recorded in metadata.restores [{at, kind, archive, messages}];
 * the archive stays. *out_restored (may be NULL) receives how many messages
 * came back. */
int ac_restore_archive(size_t *out_restored, const char *sessions_dir, const char *id,
		       const char *archive, ac_restore_kind kind, size_t expected_len,
		       const ac_session_write_options *opts);

#endif
