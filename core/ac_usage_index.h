/* The usage index's entries and file format (core/ac_usage_index.c), for
 * the scan (core/ac_usage_scan.c); not API: ac_usage_report.h is. */
#ifndef AC_USAGE_INDEX_H
#define AC_USAGE_INDEX_H

#include "ac_buf.h"
#include "ac_usage_record.h"
#include "ac_usage_report.h"

#include <stdbool.h>
#include <stdint.h>

/* Usage of one model in one hour of one file. */
typedef struct {
	int64_t hour_ms, first_ms, last_ms;
	uint64_t calls;
	ac_usage_counts counts;
	char *model; /* owned, "" unknown */
} ac_usage_entry_bucket;

/* One transcript file as last read. */
typedef struct {
	char *path;
	ac_usage_source source;
	uint64_t dev, ino, size, offset, tail_hash;
	int64_t mtime_ns;
	ac_usage_file_state state;
	ac_usage_entry_bucket *buckets;
	size_t n_buckets, cap_buckets;
	bool seen; /* found by this scan (the others are dropped) */
} ac_usage_entry;

struct ac_usage_index {
	ac_usage_entry *entries;
	size_t n, cap;
};

/* The bytes hashed before a file's offset, to tell an append from a
 * rewrite. */
#define AC_USAGE_TAIL 64

uint64_t ac_usage_fnv(uint64_t h, const void *bytes, size_t len);

int ac_usage_index_load(ac_usage_index **out, bool *out_rebuilt, const char *path);
int ac_usage_index_save(const ac_usage_index *index, const char *path);
void ac_usage_index_free(ac_usage_index *index);
void ac_usage_entry_clear(ac_usage_entry *e);

/* Adds a record to e's bucket of its hour and model; *out_bucket (may be
 * NULL) its index. */
int ac_usage_entry_add(ac_usage_entry *e, const ac_usage_record *r, size_t *out_bucket);
/* In e's bucket at index bucket (it holds booking), booking's counts give
 * way to counts: the same call with its final counts, so calls and times
 * are kept. booking takes counts. */
void ac_usage_entry_replace(ac_usage_entry *e, ac_usage_booking *booking,
			    const ac_usage_counts *counts);

#endif
