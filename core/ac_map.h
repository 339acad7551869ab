/* Reading a file through a read-only mapping, with the bus error a file
 * cut short under the mapping raises turned into an error return.
 *
 * A page of the mapping past the file's end (the file was truncated after
 * it was mapped) or one the disk cannot read raises SIGBUS on the thread
 * that touches it. ac_map_guarded() runs a function with such faults on
 * that thread's pages of the mapping caught: the function is abandoned
 * (siglongjmp) and the fault's file offset returned. The handler is
 * process-wide only while some guarded call may run (ac_map_guard_begin()
 * to ac_map_guard_end(), counted), and hands any other SIGBUS to the
 * handler that was there before. Internal to the core. */
#ifndef AC_MAP_H
#define AC_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	const char *data; /* the file's byte offset, at data[offset] */
	uint64_t offset;  /* the first byte mapped */
	size_t len;       /* bytes mapped from offset */
	void *base;       /* what mmap returned (page-aligned, below data + offset) */
	size_t base_len;
} ac_map;

/* Maps fd's bytes [offset, offset + len) read-only into *out (the caller
 * releases it with ac_map_release()); afterwards the file's byte x
 * (offset <= x < offset + len) is out->data[x]. Returns 0, or a negative
 * AC_E* code when the file cannot be mapped (a /proc or FUSE file, no
 * address space): the caller reads it instead. fd stays the caller's. */
int ac_map_file(ac_map *out, int fd, uint64_t offset, uint64_t len);

/* Unmaps; m may be zeroed (never mapped). */
void ac_map_release(ac_map *m);

/* Installs the handler (once for all users, counted). 0 or a negative
 * AC_E* code with the error set. */
int ac_map_guard_begin(void);

/* Ends one ac_map_guard_begin(); the last one restores the previous
 * handler. */
void ac_map_guard_end(void);

/* Calls fn(arg) with faults on m's pages caught on this thread and
 * returns what it returns. When one of m's pages faulted instead, fn was
 * abandoned where it was (so it must hold no lock, and own nothing the
 * caller cannot free): *out_faulted is set, *out_fault is the file offset
 * of the byte that faulted, and the return is 0. Needs
 * ac_map_guard_begin(); guarded calls do not nest. */
int ac_map_guarded(const ac_map *m, int (*fn)(void *arg), void *arg, bool *out_faulted,
		   uint64_t *out_fault);

/* The error for a fault at offset of path (open as fd), which was inside
 * the file when it was mapped: "PATH: the file shrank while being read
 * (at byte N)", or a read error when the file still reaches that far (a
 * page the disk could not read). Returns the negative AC_E* code. */
int ac_map_fault_error(int fd, const char *path, uint64_t offset);

#endif
