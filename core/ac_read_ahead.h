/* Reading files ahead of a scan that parses them one by one: helper
 * threads (one per core, at least two) ask the kernel for the next files'
 * bytes (posix_fadvise WILLNEED, then one byte of each 64 KiB read, which
 * waits for them), so that on a cold page cache the disk works on many
 * files at once and the scan finds them in memory. Only a hint: nothing
 * the helpers read is used, a file they cannot open is left to the scan,
 * and the scan reads every byte itself. Not for a few MiB in all (no
 * thread is started then). */
#ifndef AC_READ_AHEAD_H
#define AC_READ_AHEAD_H

#include <stddef.h>
#include <stdint.h>

/* One file the scan will read, bytes [from, to). */
typedef struct {
	const char *path;
	uint64_t from, to;
} ac_read_ahead_file;

typedef struct ac_read_ahead ac_read_ahead;

/* Starts reading files[0..n) ahead, in that order, at most a window
 * (256 MiB, 512 files) past the file the scan is at (ac_read_ahead_at()).
 * files is borrowed until ac_read_ahead_stop(). *out is NULL when nothing
 * is worth reading ahead, or threads cannot be had: then the scan simply
 * reads. Never fails. */
void ac_read_ahead_start(ac_read_ahead **out, const ac_read_ahead_file *files, size_t n);

/* The scan is at files[i] (ra may be NULL). */
void ac_read_ahead_at(ac_read_ahead *ra, size_t i);

/* Stops the helpers and frees ra (may be NULL). */
void ac_read_ahead_stop(ac_read_ahead *ra);

#endif
