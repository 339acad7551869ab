/* Fast substring search for the journal's prefilter.
 *
 * glibc's memmem is a generic scalar search; this one looks for two of the
 * needle's bytes at once, the rarest two (judged by byte counts taken from
 * the data being searched, or else by a fixed table of how common each byte
 * is in JSON event text), 16 places at a time with SSE2 where the compiler
 * has it, and compares the whole needle only where both stand, as fast grep
 * tools do. Which bytes are chosen changes the speed, never the result. */
#ifndef AC_SEARCH_H
#define AC_SEARCH_H

#include <stddef.h>
#include <stdint.h>

/* How often each byte value occurs in a sample of the data. */
typedef struct {
	uint32_t count[256];
} ac_byte_counts;

typedef struct {
	const char *needle; /* borrowed */
	size_t len;
	size_t rare_index;  /* where the rarest byte stands in needle */
	size_t rare2_index; /* the next rarest, at another place (== rare_index
			     * when len is 1) */
} ac_finder;

/* Counts the bytes of data[0..n) into *out (which it clears first). */
void ac_byte_counts_sample(ac_byte_counts *out, const char *data, size_t n);

/* Prepares a search for needle[0..len) (len > 0); needle is borrowed.
 * counts, when not NULL, is a sample of the data to be searched (borrowed,
 * read only here); NULL uses the fixed table. */
void ac_finder_init(ac_finder *f, const char *needle, size_t len,
		    const ac_byte_counts *counts);

/* The first occurrence of the needle in hay[0..n), or NULL. */
const char *ac_finder_find(const ac_finder *f, const char *hay, size_t n);

/* The same search with ASCII letters matched in either case (session
 * search): needle must be given with its ASCII letters in lowercase, and
 * counts, when not NULL, should count each letter's two cases together
 * (ac_byte_counts_fold()). Bytes above 0x7f match only themselves. */
void ac_finder_init_fold(ac_finder *f, const char *needle, size_t len,
			 const ac_byte_counts *counts);
const char *ac_finder_find_fold(const ac_finder *f, const char *hay, size_t n);

/* Adds the count of each capital letter to its lowercase one. */
void ac_byte_counts_fold(ac_byte_counts *counts);

#endif
