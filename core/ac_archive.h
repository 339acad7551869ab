/* Archives of the messages an operation removes from a session, so that
 * nothing is lost and the operation can be undone: compaction writes
 * <sessions>/.compactions/<id>/<UTC>.json, a checkpoint rollback
 * <sessions>/.rollbacks/<id>/<UTC>.json, each
 *   {"sessionId", "createdAt", "messages": [...], ...extra keys}
 * with the messages byte-exact (ac_json_exact.h). Each archive gets a name
 * no other holds (taken with O_EXCL, then filled atomically). Session
 * readers never see them: they are below a folder starting with '.'. This
 * module only writes them; the session's metadata names them. */
#ifndef AC_ARCHIVE_H
#define AC_ARCHIVE_H

#include "ac_buf.h"

#include <jansson.h>
#include <stdint.h>

/* Fills dir with "<sessions_dir>/<folder>/<id>" once it is known to stay
 * in the sessions folder: a link there (an agent's, leading to another
 * workspace's archives) that leads out is refused with one line naming it
 * and where it leads (ac_file_check_in(), AC_EDENIED). 0, or an error. */
int ac_archive_folder(ac_buf *dir, const char *sessions_dir, const char *folder, const char *id);

/* ac_archive_folder(), then the folder created with every name on its
 * way made durable (synced in its parent), so a file written there
 * survives a power cut along with its folder (a record such as a
 * rollback's compensated.json, which must outlast what it guards). */
int ac_archive_durable_folder(ac_buf *dir, const char *sessions_dir, const char *folder,
			      const char *id);

/* Writes messages of session id (created_at: its createdAt) to a new
 * archive under "<sessions_dir>/<folder>/<id>/", named by now_ms. extra
 * (may be NULL; borrowed) adds its keys to the document. *out_path and
 * *out_relative (the path relative to sessions_dir, as metadata records
 * it) are allocated for the caller. Nothing is left behind on failure. */
int ac_archive_write(char **out_path, char **out_relative, const char *sessions_dir,
		     const char *folder, const char *id, const char *created_at, int64_t now_ms,
		     const json_t *messages, const json_t *extra);

/* The same document as ac_archive_write(messages, extra NULL) built one
 * message at a time, for a history too large to hold twice: begin, add
 * each message in order, then ac_archive_write_built(). doc is the
 * caller's (ac_buf_free). 0 or AC_ENOMEM. */
int ac_archive_begin(ac_buf *doc, const char *id, const char *created_at);
int ac_archive_add(ac_buf *doc, const json_t *message);

/* Ends doc and writes it as ac_archive_write() does (same names, same
 * out-parameters). */
int ac_archive_write_built(char **out_path, char **out_relative, const char *sessions_dir,
			   const char *folder, const char *id, int64_t now_ms, ac_buf *doc);

#endif
