/* Error codes and the last error message of the calling thread.
 *
 * Every fallible core call returns 0 or a negative AC_E* code and leaves a
 * one-line, human-readable message (naming the file, line, field or id at
 * fault) for ac_error_last(). The core never prints; the program decides
 * what to show. */
#ifndef AC_ERROR_H
#define AC_ERROR_H

#include <stdarg.h>

enum {
	AC_OK = 0,
	AC_EINVAL = -1,    /* bad argument or input that does not validate */
	AC_ENOMEM = -2,    /* out of memory, or of file descriptors */
	AC_EIO = -3,       /* a system call failed (errno in the message) */
	AC_ENOTFOUND = -4, /* no such file, id or entry */
	AC_EBUSY = -5,     /* a lock could not be taken in time */
	AC_ECORRUPT = -6,  /* a file's contents are not what its format says */
	AC_ECONFLICT = -7, /* another writer changed the file underneath us */
	AC_ENOSPACE = -8,  /* the disk is full or a quota was hit */
	AC_ENOTSUP = -9,   /* the file system or system cannot do this */
	AC_EDENIED = -10,  /* refused: the value comes from a source not trusted for it */
};

/* The message of the last failed call on this thread; never NULL (an empty
 * string when there is none). Borrowed: valid until the next core call on
 * this thread. */
const char *ac_error_last(void);

/* Records a message for ac_error_last() and returns code, so a failing
 * function can `return ac_error_set(AC_EINVAL, "...")`. */
int ac_error_set(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Like ac_error_set() with ": strerror(errnum)" appended; picks AC_ENOSPACE
 * for ENOSPC/EDQUOT, AC_ENOTFOUND for ENOENT, AC_ENOMEM for ENOMEM, EMFILE
 * and ENFILE (a resource ran out: no verdict on the file), AC_EIO otherwise. */
int ac_error_errno(int errnum, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Forgets the last message. */
void ac_error_clear(void);

#endif
