/* Shared helpers for the unit tests: temporary folders and small file I/O.
 * Include after <cmocka.h>'s prerequisites; every helper fails the running
 * test (cmocka's fail_msg) rather than returning an error. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include "ac_source.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Creates a fresh folder under $TMPDIR (or /tmp); returns an allocated path. */
char *tu_make_temp_dir(void);

/* Copies the committed fixture workspace tests/fixtures/<name> (see
 * tests/fixtures/README.md) into a fresh temp folder and returns its
 * allocated path; tests change the copy, never the fixture. Remove it with
 * tu_remove_tree. */
char *tu_copy_fixture(const char *name);

/* Removes a folder and everything below it. */
void tu_remove_tree(const char *path);

/* Joins dir and name into an allocated path. */
char *tu_path(const char *dir, const char *name);

/* Writes (replaces) or appends bytes to a file. */
void tu_write_file(const char *path, const char *bytes, size_t len);
void tu_append_file(const char *path, const char *bytes, size_t len);

/* Writes text to dir/rel, making rel's folders. */
void tu_put(const char *dir, const char *rel, const char *text);

/* True when dir/rel exists (not following a final symlink). */
bool tu_exists(const char *dir, const char *rel);

/* Fails the test unless dir/rel holds exactly expected. */
void tu_assert_file(const char *dir, const char *rel, const char *expected);

/* Reads a whole file into an allocated NUL-terminated buffer; *out_len may be NULL. */
char *tu_read_file(const char *path, size_t *out_len);

/* The kernel's bound on queued inotify events
 * (/proc/sys/fs/inotify/max_queued_events), 0 when unknown. */
long tu_inotify_queue_limit(void);

/* Counts the lines (newline-terminated) in a file. */
size_t tu_count_lines(const char *path);

/* A valid compact event line (no newline) for agent with the given message;
 * ids are made unique by a counter. Returns a static buffer. */
const char *tu_event_line(const char *agent, const char *message);

/* Seed 000's JsonSessionStore, the way other programs write sessions:
 * load is readFile + JSON.parse (NULL when that fails); save is
 * JSON.stringify(session, null, 2) to "<id>.json.tmp", then a rename, with
 * no lock and no read before it. */
json_t *tu_seed_load(const char *dir, const char *id);
void tu_seed_save(const char *dir, const char *id, json_t *session);

/* Appends {"role":"assistant","content":text} to session's history. */
void tu_add_turn(json_t *session, const char *text);

/* True when some message of messages has content text. */
bool tu_has_message(const json_t *messages, const char *text);

/* A transcript index over a copy of a fixture home, for the source
 * readers' tests: tu_sources_open() copies tests/fixtures/<fixture_home>
 * and sets the workspace and default thresholds, no source on;
 * tu_sources_dir() turns kind on at home + rel; tu_sources_find() makes
 * the index once, refreshes it and finds id (NULL when not listed);
 * tu_sources_close() frees it all and removes the copy. */
typedef struct {
	char *home;
	ac_source_options opts;
	ac_source_index *index;
} tu_sources;

void tu_sources_open(tu_sources *t, const char *fixture_home, const char *workspace);
void tu_sources_dir(tu_sources *t, ac_source_kind kind, const char *rel);
ac_source_session *tu_sources_find(tu_sources *t, const char *id);
void tu_sources_close(tu_sources *t);

/* Fsyncs through the seam (agentctl/sys/ac_fs.h): tu_fsync_record()
 * installs the kernel's table with fsync noting every folder and file
 * synced (and forgets the earlier ones); tu_fsync_restore() puts the
 * kernel's back; tu_fsync_was_synced() says whether path (a folder or a
 * file) was among them. */
void tu_fsync_record(void);
void tu_fsync_restore(void);
bool tu_fsync_was_synced(const char *path);

#endif
