/* Appending to the shared workspace journal, and rotating it.
 *
 * Every append is one write(2) of one complete line, made under the shared
 * lock file (see core/ac_lock.h), so no two records interleave whatever other
 * writers do, as long as they follow the lock spec. A journal that ends in a
 * torn line (a writer was killed mid-write, the disk filled) is repaired by
 * starting the next record on a fresh line. Reading lives in
 * ac_journal_reader.h; validation in ac_event.h. */
#ifndef AC_JOURNAL_H
#define AC_JOURNAL_H

#include "ac_types.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	AC_FSYNC_NEVER = 0, /* leave flushing to the kernel (the default) */
	AC_FSYNC_ALWAYS,    /* fdatasync after every append */
} ac_fsync_policy;

/* Options start from AC_JOURNAL_OPTIONS_INIT (the defaults, as
 * ac_journal_options_init()); the journal refuses options of another
 * version, or a lock member of another, with AC_EINVAL naming the struct. */
#define AC_JOURNAL_OPTIONS_VERSION 1
#define AC_JOURNAL_OPTIONS_INIT                                                          \
	{                                                                                \
		.version = AC_JOURNAL_OPTIONS_VERSION, .fsync = AC_FSYNC_NEVER,            \
		.lock = AC_LOCK_OPTIONS_INIT                                             \
	}

typedef struct {
	unsigned int version; /* AC_JOURNAL_OPTIONS_VERSION */
	ac_fsync_policy fsync;
	uint64_t rotate_bytes; /* rotate before an append that would pass this; 0: never */
	/* journal.rotate "monthly": rotate before the first append of a UTC
	 * month, when the journal's first event (or, without a readable one,
	 * its last write) is from an earlier month. */
	bool rotate_monthly;
	ac_lock_options lock;
} ac_journal_options;

typedef struct {
	uint64_t offset;         /* where the record starts in the journal */
	bool repaired_torn_tail; /* a newline was written first to end a torn line */
	uint64_t torn_offset;    /* with repaired_torn_tail: where that line starts */
	bool torn_overlong;      /* ...unless it is longer than AC_JOURNAL_MAX_LINE:
				  * then torn_offset is a byte inside it */
	char *rotated_to;        /* owned, or NULL: the journal was rotated first */
	const char *rotated_by;  /* static: the setting that rotated it, "journal.rotateBytes"
				  * or "journal.rotate monthly"; NULL without rotation */
} ac_journal_append_info;

/* Fills opts with the defaults (no fsync, no rotation, lock defaults):
 * AC_JOURNAL_OPTIONS_INIT. */
void ac_journal_options_init(ac_journal_options *opts);

/* 0 when opts (and its lock) are of this library's version; AC_EINVAL
 * naming the struct and both versions otherwise. NULL (the defaults): 0. */
int ac_journal_options_check(const ac_journal_options *opts);

/* Appends record[0..len) plus a newline to the journal at path, creating it
 * when absent. record must be one line (no '\n'); it is not validated here.
 * out may be NULL; when not, the caller frees out->rotated_to.
 * A record of AC_JOURNAL_MAX_LINE bytes or more (the line it would make
 * would not fit the readers' limit) is refused with AC_EINVAL naming both
 * sizes. Returns 0, AC_EINVAL, AC_EBUSY (lock), AC_ENOSPACE or AC_EIO; on failure
 * the journal is as it was (a partly written record is truncated away). */
int ac_journal_append(ac_journal_append_info *out, const char *path,
		      const char *record, size_t len, const ac_journal_options *opts);

/* Moves the journal to "<stem>-<YYYYMMDDThhmmss.sssZ>.jsonl" beside it
 * under the lock and starts an empty one. *out_rotated_path (may be NULL)
 * receives the new name, for the caller to free. AC_ENOTFOUND when there is
 * no journal. */
int ac_journal_rotate(char **out_rotated_path, const char *path,
		      const ac_journal_options *opts);

/* Lists the journal's archives, oldest first, then path itself when it
 * exists. Archives are agentctl's rotated files and other writers' forms
 * beside "<stem>.jsonl": "<stem>-YYYY-MM.jsonl", "<stem>-YYYY-MM-DD.jsonl",
 * logrotate's "<stem>.jsonl.N" and "<stem>.jsonl-YYYYMMDD"; they are
 * ordered by the time of their first event (else of their name; for .N,
 * of their last write), logrotate's higher N first. *out_paths is an
 * allocated array of allocated strings; free with ac_journal_files_free(). */
int ac_journal_files(char ***out_paths, size_t *out_n, const char *path);

/* The files beside the journal at path named like archives that
 * ac_journal_files() does not read (compressed, or a name in no form it
 * knows), each as "<path>: why", sorted by the folder's order; free with
 * ac_journal_files_free(). None: *out_n is 0. */
int ac_journal_unread(char ***out_lines, size_t *out_n, const char *path);

void ac_journal_files_free(char **paths, size_t n);

#endif
