/* Fast substring search for the journal's prefilter.
 *
 * glibc's memmem is a generic scalar search; this one runs the vectorised
 * memchr over the needle's rarest byte (judged by a fixed table of how
 * common each byte is in JSON event text) and compares only where that byte
 * occurs, as fast grep tools do. */
#ifndef AC_SEARCH_H
#define AC_SEARCH_H

#include <stddef.h>

typedef struct {
	const char *needle; /* borrowed */
	size_t len;
	size_t rare_index;  /* where the rarest byte stands in needle */
} ac_finder;

/* Prepares a search for needle[0..len) (len > 0); needle is borrowed. */
void ac_finder_init(ac_finder *f, const char *needle, size_t len);

/* The first occurrence of the needle in hay[0..n), or NULL. */
const char *ac_finder_find(const ac_finder *f, const char *hay, size_t n);

#endif
