/* What agentctl itself last wrote to a session file, so that an operator
 * action's quiet wait (ac_session_write_options.quiet_ms) counts only the
 * other writers' writes.
 *
 * The wait is there for writers that take no lock and never read before
 * they save (seed 000's JsonSessionStore): a change landing amid their
 * turns is undone or taken up half-made. agentctl's own writes (session
 * append, record-turn, a status change, a compaction) take the folder lock
 * and compare-and-swap, so they are no such risk: when the file is still
 * exactly the one agentctl last wrote, nobody wrote since, and the quiet
 * is measured from the last write before agentctl's, which the record
 * keeps. Not this: a cache of the document, or anything trusted for
 * correctness. A record that is missing, unreadable, or names another file
 * than the one at the path means "not known": the plain wait.
 *
 * Kept as one line in the session's lock file (<dir>/.locks/<id>.lock,
 * ac_lock_session(), whose flock does not use its content):
 *   agentctl-write 1 <dev> <ino> <size> <mtime_ns> <foreign_ms>
 * written by a writer that holds the session folder's lock. */
#ifndef AC_SESSION_WRITES_H
#define AC_SESSION_WRITES_H

#include <stdint.h>

#include "ac_types.h"

/* When the session file now at path (identity now) was last written by a
 * writer other than agentctl, in ms since the epoch: its modification time,
 * or, when it is exactly agentctl's own last write, the time the record
 * keeps (0 when only agentctl ever wrote it). */
int64_t ac_session_foreign_write_ms(const char *dir, const char *id, const ac_file_id *now);

/* Milliseconds since a writer other than agentctl last wrote session id's
 * file (ac_session_foreign_write_ms()), for telling whether an agent that
 * takes no lock is writing it. AC_ENOTFOUND when absent. (In
 * ac_session.c, beside ac_session_idle_ms().) */
int ac_session_foreign_idle_ms(int64_t *out, const char *dir, const char *id);

/* Records that agentctl wrote the session file written over replaced
 * (NULL: it created the file). Called under the folder lock
 * (ac_lock_folder()); a record that cannot be written is left out (the
 * next action waits as before). */
void ac_session_note_own_write(const char *dir, const char *id, const ac_file_id *replaced,
			       const ac_file_id *written);

#endif
