/* The journal's sparse block index: per block of about 1 MiB of a journal
 * file (cut at line ends), what its lines can match, so that a query reads
 * only the blocks that may hold a match; inside a block, the id filter is
 * kept per segment of about 64 KiB, so that a block that may hold a rare
 * id is read only in the segments that may.
 *
 * It is a cache, never trusted for correctness: a block is skipped only
 * when its entry's checksum holds, the journal is the same file (device,
 * inode, schema), and the block's last bytes still hash as when it was
 * summarised; anything else is read. A block holding a line that is not a
 * valid event is always read, so skipping never changes what a query shows
 * or counts. Files: .agent/index/<journal file name>.idx (docs/JOURNAL.md).
 * Internal to the core; the files store (ac_journal_store_file.c) uses it. */
#ifndef AC_JOURNAL_INDEX_H
#define AC_JOURNAL_INDEX_H

#include "ac_event.h"
#include "ac_hash64.h"
#include "ac_journal_scan.h"
#include "ac_journal_store.h"
#include "ac_json_scan.h"
#include "ac_query.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* A block ends at the first line end at or after this many bytes, or
 * when its last segment is full. */
#define AC_JIDX_BLOCK_BYTES (1u << 20)
#define AC_JIDX_SEGMENTS 16u
/* A segment ends at the first line end at or after this many bytes, or
 * once this many distinct keys went into its filter (a key whose bits
 * were all set already changes nothing): 10.7 bits a key keeps the
 * filter's false positives under 1% (0.6% full). */
#define AC_JIDX_SEGMENT_BYTES (AC_JIDX_BLOCK_BYTES / AC_JIDX_SEGMENTS)
#define AC_JIDX_SEGMENT_KEYS 192u
#define AC_JIDX_SEGMENT_BLOOM 256u /* bytes of one segment's filter */
#define AC_JIDX_BLOOM_BYTES (AC_JIDX_SEGMENT_BLOOM * AC_JIDX_SEGMENTS)
#define AC_JIDX_BLOOM_HASHES 7u
#define AC_JIDX_TS_LEN 24    /* YYYY-MM-DDTHH:mm:ss.sssZ, compared as bytes */
#define AC_JIDX_TAIL_BYTES 64u /* hashed at a block's end to verify it */

enum {
	AC_JIDX_ALWAYS = 1u, /* a line that is not a valid event: always read */
};

/* Bit 31 of each set: a value outside the built-in list. */
#define AC_JIDX_OTHER (1u << 31)

/* One block's summary, as stored (host byte order: a cache, checked by
 * the header's byte-order mark). checksum covers every byte before it,
 * seeded with the header's generation. */
typedef struct {
	uint64_t offset, length;      /* bytes [offset, offset + length) */
	uint64_t first_line, nlines;  /* line number of its first line, and count */
	uint32_t flags;               /* AC_JIDX_* */
	uint32_t agents, statuses, actions; /* bit i: the i-th built-in name */
	char min_ts[AC_JIDX_TS_LEN], max_ts[AC_JIDX_TS_LEN];
	uint64_t tail_hash;           /* of its last min(length, 64) bytes */
	uint32_t nsegments;           /* 1..AC_JIDX_SEGMENTS */
	uint32_t segment[AC_JIDX_SEGMENTS]; /* where each starts (a line), from offset */
	uint32_t reserved;            /* 0: no padding, every byte checksummed */
	/* Segment i's filter is bloom[i * AC_JIDX_SEGMENT_BLOOM...]; a
	 * segment where a filtered field was escaped has every bit set. */
	uint8_t bloom[AC_JIDX_BLOOM_BYTES];
	/* ac_hash64 of all its bytes when every line is a valid event
	 * (never 0); 0 otherwise. journal check counts a block whose bytes
	 * still hash so without parsing it (ac_journal_check_indexed()). */
	uint64_t content_hash;
	uint64_t checksum;
} ac_jidx_entry;

/* A journal file's index as loaded: the entries that verify, in file
 * order, each starting where the one before ends. */
typedef struct {
	/* Each points into the mapped file or, built here, to its own
	 * allocation (freed by ac_journal_index_clear()). */
	const ac_jidx_entry **entries;
	size_t n, allocated;
	const char *map;        /* the index file, mapped read-only, or NULL */
	size_t map_len;
	uint64_t generation;    /* ties entries to their header */
	uint64_t covered;       /* end of the last entry: where the unindexed tail starts */
	size_t file_entries;    /* whole entries in the file as loaded, good or not */
	const char *state;      /* static: "used", "none", "rebuilt", "extended"... for stats */
} ac_journal_index;

void ac_journal_index_clear(ac_journal_index *idx);

/* ---- summaries (ac_journal_index_summary.c) ---- */

/* Hash of the extra agents and action types: which lines are valid. */
uint64_t ac_jidx_schema_hash(const ac_event_schema *schema);

/* Builds one block's summary line by line. */
typedef struct {
	ac_jidx_entry e;
	uint32_t keys;       /* distinct keys put in the last segment's filter */
	uint64_t end;        /* where the next line starts, from e.offset */
	bool have_ts;
	const ac_event_schema *schema; /* borrowed */
	ac_json_path path_list[AC_EV_NFIELDS + 2];
	ac_json_paths paths;
	ac_json_span spans[AC_EV_NFIELDS + 2];
} ac_jidx_summary;

/* s is large (some 12 KiB): allocate it. */
int ac_jidx_summary_init(ac_jidx_summary *s, const ac_event_schema *schema);
/* Starts a block at offset, line number first_line. */
void ac_jidx_summary_start(ac_jidx_summary *s, uint64_t offset, uint64_t first_line);
/* Adds one line (without its '\n', which follows it in the file). */
void ac_jidx_summary_add(ac_jidx_summary *s, const char *line, size_t len);
/* True when the block is full and should end after the line just added:
 * its last segment is full. */
bool ac_jidx_summary_full(const ac_jidx_summary *s);

/* What a query asks of a block, compiled once (values borrowed from q). */
#define AC_JIDX_MAX_KEYS 8
typedef struct {
	bool prunes; /* some term can rule a block out */
	bool has_since, has_until;
	char since[AC_JIDX_TS_LEN], until[AC_JIDX_TS_LEN];
	uint32_t agents, statuses, actions; /* bits every candidate block must have */
	bool impossible; /* a term no valid event can satisfy (two agents at once...) */
	size_t nkeys;
	struct {
		char tag;
		const char *value;
		size_t len;
		uint32_t bits[AC_JIDX_BLOOM_HASHES]; /* its bits in a segment's filter */
	} keys[AC_JIDX_MAX_KEYS];
} ac_jidx_query;

void ac_jidx_query_init(ac_jidx_query *jq, const ac_query *q);
/* What an entry built here holds: 1..AC_JIDX_SEGMENTS segments, the
 * first at the block's start, each after the one before, all inside the
 * block. An entry loaded that does not is left out (its block read). */
bool ac_jidx_segments_hold(const ac_jidx_entry *e);
/* Bit i set when a line of segment i of e's block (whose segments hold)
 * may match; 0 when no line of the block can. */
uint32_t ac_jidx_may_match(const ac_jidx_entry *e, const ac_jidx_query *jq);
/* Where segment i (below a may_match() bit) of e's block starts and
 * ends, in the file. */
uint64_t ac_jidx_segment_start(const ac_jidx_entry *e, uint32_t i);
uint64_t ac_jidx_segment_end(const ac_jidx_entry *e, uint32_t i);

/* ---- the file (ac_journal_index_file.c) ---- */

/* The index file of the journal file path in the workspace at root:
 * "<root>/.agent/index/<path below root, '/' as '%2F'>.idx", allocated; 0
 * with *out NULL when path is outside root (such a journal has no index). */
int ac_journal_index_path(char **out, const char *root, const char *path);

/* Loads the index at index_path for the journal whose identity is st;
 * what does not verify is left out (the whole file when its header,
 * owner or mode is wrong: idx->n 0, a new generation). Never fails but
 * for memory. */
int ac_journal_index_load(ac_journal_index *idx, const char *root, const char *index_path,
			  const struct stat *st, const ac_event_schema *schema);

/* Adds a copy of e at the end of idx (its offset at or past idx->covered). */
int ac_jidx_keep(ac_journal_index *idx, const ac_jidx_entry *e);

/* Appends idx->entries[from..n) to the index file (its header first when
 * from is 0: the file is started again), under a non-blocking flock; a
 * busy lock, a read-only folder or any error: nothing written, 0. */
int ac_journal_index_save(const ac_journal_index *idx, size_t from, const char *root,
			  const char *index_path, const struct stat *st,
			  const ac_event_schema *schema);

/* True when the index's folder can be made and opened, and the file
 * written: otherwise building one would be work thrown away. */
bool ac_journal_index_writable(const char *root, const char *index_path);

/* ---- building (ac_journal_index_build.c) ---- */

/* Summarises the complete blocks of the journal open at fd (path, whose
 * identity is st) from idx->covered up to st->st_size onto idx. Returns 0
 * or a negative code (then idx keeps what it had). */
int ac_journal_index_extend(ac_journal_index *idx, int fd, const char *path,
			    const struct stat *st, const ac_event_schema *schema);

/* content_hash for e's bytes at data, AC_JIDX_ALWAYS set or not. */
uint64_t ac_jidx_content_hash(const ac_jidx_entry *e, const char *data);

/* ---- checking (ac_journal_check.c) ---- */

/* ac_journal_check() of path through its index (index_path NULL: none):
 * the leading blocks whose bytes still hash as when they were validated
 * clean are counted without parsing; the rest is validated as without an
 * index, so counts, reports and errors are the same. Builds or extends the
 * index when it may (a workspace that can be written). */
int ac_journal_check_indexed(uint64_t *out_valid, uint64_t *out_invalid, const char *path,
			     const char *root, const char *index_path,
			     const ac_event_schema *schema, ac_check_fn fn, void *ctx);

/* ac_journal_index_extend() of the unindexed tail when it holds at least
 * a block and the index may be written, then the new entries saved (the
 * whole file when idx was not "used"); idx->state "built" or "extended"
 * then. 0 or AC_ENOMEM: any other failure leaves the index as it was. */
int ac_journal_index_update(ac_journal_index *idx, int fd, const char *path, const char *root,
			    const char *index_path, const struct stat *st,
			    const ac_event_schema *schema);

/* ---- querying (ac_journal_index_scan.c) ---- */

/* ac_journal_scan_format() of one file (no last_n) that reads only the
 * blocks its index says may match, when that is a small part of the file,
 * keeping the index up to date on the way. index_path NULL: no index. */
int ac_journal_index_scan(ac_scan_stats *stats, const char *path, const char *root,
			  const char *index_path,
			  const ac_query *q, const ac_event_schema *schema,
			  ac_scan_format_fn format, const void *format_ctx,
			  ac_scan_write_fn write, void *write_ctx);

/* Lets the files store at store (another store: nothing) query through
 * indexes kept under root/.agent/index. 0 or AC_ENOMEM. */
int ac_journal_store_file_use_index(ac_journal_store *store, const char *root);

#endif
