/* A growable byte buffer, the one string builder of the core.
 *
 * data is always NUL-terminated after a successful call (so it can be used
 * as a C string when the contents hold no NUL), and len excludes that NUL. */
#ifndef AC_BUF_H
#define AC_BUF_H

#include <stddef.h>

typedef struct {
	char *data; /* owned; NULL until the first append */
	size_t len;
	size_t cap;
} ac_buf;

#define AC_BUF_INIT {NULL, 0, 0}

/* Makes room for extra more bytes (plus the NUL). 0 or AC_ENOMEM. */
int ac_buf_reserve(ac_buf *buf, size_t extra);

/* Appends bytes[0..len). 0 or AC_ENOMEM. */
int ac_buf_append(ac_buf *buf, const void *bytes, size_t len);

/* Appends one byte. 0 or AC_ENOMEM. */
int ac_buf_putc(ac_buf *buf, char c);

/* Appends printf-formatted text. 0 or AC_ENOMEM. */
int ac_buf_printf(ac_buf *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Forgets the contents but keeps the memory. */
void ac_buf_clear(ac_buf *buf);

/* Hands the contents to the caller (who frees them) and empties buf.
 * Returns an empty allocated string for an empty buffer, NULL on ENOMEM. */
char *ac_buf_detach(ac_buf *buf);

/* Frees the memory. */
void ac_buf_free(ac_buf *buf);

#endif
