/* The growable byte buffer. */
#include "ac_buf.h"

#include "ac_error.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ac_buf_reserve(ac_buf *buf, size_t extra)
{
	size_t need = buf->len + extra + 1, cap = buf->cap ? buf->cap : 64;
	char *grown;

	if (need < buf->len)
		return ac_error_set(AC_ENOMEM, "buffer size overflow");
	if (need <= buf->cap)
		return 0;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	grown = realloc(buf->data, cap);
	if (!grown)
		return ac_error_set(AC_ENOMEM, "out of memory (%zu bytes)", cap);
	buf->data = grown;
	buf->cap = cap;
	return 0;
}

int ac_buf_append(ac_buf *buf, const void *bytes, size_t len)
{
	int rc = ac_buf_reserve(buf, len);

	if (rc)
		return rc;
	if (len)
		memcpy(buf->data + buf->len, bytes, len);
	buf->len += len;
	buf->data[buf->len] = '\0';
	return 0;
}

int ac_buf_putc(ac_buf *buf, char c)
{
	return ac_buf_append(buf, &c, 1);
}

int ac_buf_printf(ac_buf *buf, const char *fmt, ...)
{
	va_list ap;
	int needed, rc;

	va_start(ap, fmt);
	needed = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (needed < 0)
		return ac_error_set(AC_EINVAL, "bad format string");
	rc = ac_buf_reserve(buf, (size_t)needed);
	if (rc)
		return rc;
	va_start(ap, fmt);
	vsnprintf(buf->data + buf->len, (size_t)needed + 1, fmt, ap);
	va_end(ap);
	buf->len += (size_t)needed;
	return 0;
}

void ac_buf_clear(ac_buf *buf)
{
	buf->len = 0;
	if (buf->data)
		buf->data[0] = '\0';
}

char *ac_buf_detach(ac_buf *buf)
{
	char *data;

	if (!buf->data && ac_buf_reserve(buf, 0))
		return NULL;
	data = buf->data;
	buf->data = NULL;
	buf->len = buf->cap = 0;
	return data;
}

void ac_buf_free(ac_buf *buf)
{
	free(buf->data);
	buf->data = NULL;
	buf->len = buf->cap = 0;
}
