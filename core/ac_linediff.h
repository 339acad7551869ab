/* A line diff of two small texts (configuration files), for a person to
 * read: the changes with a few lines of context, as a unified diff shows
 * them. Not for patches: no file headers, and a text over AC_LINEDIFF_MAX
 * lines is shown as all removed and all added. */
#ifndef AC_LINEDIFF_H
#define AC_LINEDIFF_H

#include "ac_buf.h"

#include <stddef.h>

#define AC_LINEDIFF_MAX 2000

/* Appends to out one line (ending in '\n') per line shown: "@@ -A +B @@"
 * before each group of changes (A, B: the first line's numbers in a and b,
 * 1-based), "-" and the line for one only in a, "+" for one only in b, " "
 * for context (context lines either side of a change). Nothing when a and
 * b hold the same lines. *added and *removed count the lines (may be
 * NULL). A last line without '\n' counts as a line. 0 or AC_ENOMEM. */
int ac_linediff(ac_buf *out, const char *a, size_t alen, const char *b, size_t blen, int context,
		size_t *added, size_t *removed);

#endif
