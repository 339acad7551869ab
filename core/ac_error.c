/* The thread-local last-error message behind ac_error_last(). */
#include "ac_error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_message[1024];

const char *ac_error_last(void)
{
	return last_message;
}

void ac_error_clear(void)
{
	last_message[0] = '\0';
}

/* Formats into a scratch buffer first: callers often wrap the previous
 * message ("%s: %s", path, ac_error_last()), which lives in last_message. */
static void format_message(const char *fmt, va_list ap)
{
	char scratch[sizeof(last_message)];

	vsnprintf(scratch, sizeof(scratch), fmt, ap);
	memcpy(last_message, scratch, sizeof(last_message));
}

int ac_error_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	format_message(fmt, ap);
	va_end(ap);
	return code;
}

int ac_error_errno(int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t used;
	int code = AC_EIO;

	va_start(ap, fmt);
	format_message(fmt, ap);
	va_end(ap);
	used = strlen(last_message);
	snprintf(last_message + used, sizeof(last_message) - used, ": %s",
		 strerror(errnum));
	if (errnum == ENOSPC || errnum == EDQUOT)
		code = AC_ENOSPACE;
	else if (errnum == ENOENT)
		code = AC_ENOTFOUND;
	else if (errnum == ENOMEM || errnum == EMFILE || errnum == ENFILE)
		code = AC_ENOMEM; /* a resource ran out, not the file's fault */
	return code;
}
