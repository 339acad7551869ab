/* The journal index's file: where it lives, loading what verifies, and
 * writing (a rebuild replaces the file atomically; new blocks are appended
 * as fixed-size checksummed entries under a non-blocking flock, so a crash
 * leaves at most a torn last entry, which is ignored). */
#include "ac_journal_index.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "ACJIDX\0\1"
#define VERSION 3u /* 2: content_hash; 3: a filter per segment, and
                      * ac_hash64 folds 16 bytes a multiply */
#define BYTE_ORDER_MARK 0x0102030405060708ULL
/* Beyond this the file is not read (1 GiB of index is some 250 GiB of
 * journal): the query reads the journal instead. */
#define INDEX_MAX ((uint64_t)1 << 30)
/* Every page of the index is read (its checksums): mapped in one call
 * rather than a fault at a time, where the system can. */
#ifdef MAP_POPULATE
#define POPULATE MAP_POPULATE
#else
#define POPULATE 0
#endif

typedef struct {
	char magic[8];
	uint32_t version, entry_size;
	uint64_t byte_order;
	uint64_t dev, ino;      /* the journal file's */
	uint64_t schema;        /* ac_jidx_schema_hash() */
	uint64_t generation;    /* seeds every entry's checksum */
	uint64_t block_bytes, segment_keys, bloom_bytes, bloom_hashes;
	uint64_t segments, segment_bytes;
	uint64_t reserved[2];
	uint64_t checksum;      /* of the bytes before it */
} file_header;

_Static_assert(sizeof(file_header) == 128, "header size");
_Static_assert(offsetof(ac_jidx_entry, checksum) == sizeof(ac_jidx_entry) - 8,
	       "the checksum ends an entry");

/* True when e lies in the mapped file (else it was built here). */
static bool mapped(const ac_journal_index *idx, const ac_jidx_entry *e)
{
	return idx->map && (const char *)e >= idx->map && (const char *)e < idx->map + idx->map_len;
}

void ac_journal_index_clear(ac_journal_index *idx)
{
	for (size_t i = 0; i < idx->n; i++)
		if (!mapped(idx, idx->entries[i]))
			free((void *)idx->entries[i]);
	free(idx->entries);
	if (idx->map)
		munmap((void *)idx->map, idx->map_len);
	memset(idx, 0, sizeof(*idx));
}

int ac_journal_index_path(char **out, const char *root, const char *path)
{
	size_t root_len = strlen(root);
	ac_buf b = AC_BUF_INIT;
	const char *rel;
	int rc = 0;

	*out = NULL;
	while (root_len > 1 && root[root_len - 1] == '/')
		root_len--;
	if (strncmp(path, root, root_len) || path[root_len] != '/')
		return 0; /* outside the workspace: no index (docs/JOURNAL.md) */
	rel = path + root_len + 1;
	rc = ac_buf_append(&b, root, root_len) || ac_buf_append(&b, "/.agent/index/", 14);
	for (const char *p = rel; *p && !rc; p++)
		rc = *p == '/' ? ac_buf_append(&b, "%2F", 3)
		     : *p == '%' ? ac_buf_append(&b, "%25", 3) : ac_buf_putc(&b, *p);
	if (rc || ac_buf_append(&b, ".idx", 4)) {
		ac_buf_free(&b);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	/* A name longer than a folder entry can be: no index. */
	if (strlen(strrchr(b.data, '/') + 1) > 255) {
		ac_buf_free(&b);
		return 0;
	}
	*out = ac_buf_detach(&b);
	return 0;
}

/* Opens the index's folder, made when create, never through a link that
 * leads out of the workspace (ac_file_open_dir_in()). */
static int open_dir(int *out_fd, const char *root, const char *index_path, bool create)
{
	const char *slash = strrchr(index_path, '/');
	char *dir = strndup(index_path, (size_t)(slash - index_path));
	int rc;

	if (!dir)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (create)
		ac_file_mkdirs(dir);
	rc = ac_file_open_dir_in(out_fd, root, dir);
	free(dir);
	return rc;
}

/* Only this user's own file, writable by no one else, is believed. */
static bool trusted(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_uid == geteuid() && !(st->st_mode & 022);
}

static void header_fill(file_header *h, const struct stat *st, const ac_event_schema *schema,
			uint64_t generation)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, MAGIC, 8);
	h->version = VERSION;
	h->entry_size = sizeof(ac_jidx_entry);
	h->byte_order = BYTE_ORDER_MARK;
	h->dev = (uint64_t)st->st_dev;
	h->ino = (uint64_t)st->st_ino;
	h->schema = ac_jidx_schema_hash(schema);
	h->generation = generation;
	h->block_bytes = AC_JIDX_BLOCK_BYTES;
	h->segment_keys = AC_JIDX_SEGMENT_KEYS;
	h->bloom_bytes = AC_JIDX_BLOOM_BYTES;
	h->bloom_hashes = AC_JIDX_BLOOM_HASHES;
	h->segments = AC_JIDX_SEGMENTS;
	h->segment_bytes = AC_JIDX_SEGMENT_BYTES;
	h->checksum = ac_hash64(0, h, offsetof(file_header, checksum));
}

static uint64_t entry_checksum(const ac_jidx_entry *e, uint64_t generation)
{
	return ac_hash64(generation, e, offsetof(ac_jidx_entry, checksum));
}

static uint64_t new_generation(const struct stat *st)
{
	struct timespec now;
	uint64_t seed[4];

	clock_gettime(CLOCK_REALTIME, &now);
	seed[0] = (uint64_t)now.tv_sec;
	seed[1] = (uint64_t)now.tv_nsec;
	seed[2] = (uint64_t)getpid();
	seed[3] = (uint64_t)st->st_ino;
	return ac_hash64(7, seed, sizeof(seed));
}

/* Adds e itself (in the mapping, or owned by idx from now on). */
static int keep_pointer(ac_journal_index *idx, const ac_jidx_entry *e)
{
	if (idx->n == idx->allocated) {
		size_t grown = idx->allocated ? idx->allocated * 2 : 256;
		const ac_jidx_entry **more = realloc(idx->entries, grown * sizeof(*more));

		if (!more)
			return ac_error_set(AC_ENOMEM, "out of memory");
		idx->entries = more;
		idx->allocated = grown;
	}
	idx->entries[idx->n++] = e;
	idx->covered = e->offset + e->length;
	return 0;
}

int ac_jidx_keep(ac_journal_index *idx, const ac_jidx_entry *e)
{
	ac_jidx_entry *copy = malloc(sizeof(*copy));
	int rc;

	if (!copy)
		return ac_error_set(AC_ENOMEM, "out of memory");
	*copy = *e;
	if ((rc = keep_pointer(idx, copy)))
		free(copy);
	return rc;
}

/* The entries of the mapping that verify, in order and not overlapping,
 * used in place; a bad one leaves a gap that is read. */
static int load_entries(ac_journal_index *idx, const struct stat *st)
{
	uint64_t n = (idx->map_len - sizeof(file_header)) / sizeof(ac_jidx_entry);
	int rc;

	idx->file_entries = (size_t)n;
	for (uint64_t i = 0; i < n; i++) {
		const ac_jidx_entry *e =
			(const void *)(idx->map + sizeof(file_header) + i * sizeof(ac_jidx_entry));

		if (e->checksum != entry_checksum(e, idx->generation) || e->length == 0 ||
		    e->offset < idx->covered || e->offset + e->length < e->offset ||
		    !ac_jidx_segments_hold(e))
			continue;
		/* Past the journal's end: the file was cut, rewritten: stale. */
		if (e->offset + e->length > (uint64_t)st->st_size)
			return AC_ECORRUPT;
		if ((rc = keep_pointer(idx, e)))
			return rc;
	}
	return 0;
}

int ac_journal_index_load(ac_journal_index *idx, const char *root, const char *index_path,
			  const struct stat *st, const ac_event_schema *schema)
{
	file_header want, h;
	struct stat ist;
	void *map;
	int dfd = -1, fd = -1, rc = 0;

	memset(idx, 0, sizeof(*idx));
	idx->generation = new_generation(st);
	idx->state = "none";
	if (open_dir(&dfd, root, index_path, false) ||
	    ac_file_open_regular(&fd, dfd, strrchr(index_path, '/') + 1, O_RDONLY | O_NOFOLLOW, 0,
				 index_path))
		goto done;
	idx->state = "ignored";
	if (fstat(fd, &ist) != 0 || !trusted(&ist) || (uint64_t)ist.st_size > INDEX_MAX ||
	    (uint64_t)ist.st_size < sizeof(file_header))
		goto done;
	/* Mapped, not read: only what a query looks at is touched, nothing
	 * copied. The file is never cut below its whole entries (a rebuild
	 * renames a new one over it), so the mapping stays whole. */
	map = mmap(NULL, (size_t)ist.st_size, PROT_READ, MAP_PRIVATE | POPULATE, fd, 0);
	if (map == MAP_FAILED)
		goto done;
	idx->map = map;
	idx->map_len = (size_t)ist.st_size;
	memcpy(&h, idx->map, sizeof(h));
	header_fill(&want, st, schema, h.generation);
	if (memcmp(&h, &want, sizeof(h)))
		goto done; /* another journal (inode), schema, format or a bad checksum */
	idx->generation = h.generation;
	idx->state = "used";
	rc = load_entries(idx, st);
	if (rc == AC_ECORRUPT) {
		idx->n = 0;
		idx->covered = 0;
		idx->state = "stale";
		idx->generation = new_generation(st);
		idx->file_entries = 0;
		rc = 0;
	}
done:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	return rc;
}

/* A rebuild: the header and every entry into a new file renamed over the
 * old, so that a reader sees the old index or the new, and a file of
 * another owner is replaced by one of ours. */
static int write_whole(const ac_journal_index *idx, const char *index_path, const struct stat *st,
		       const ac_event_schema *schema)
{
	size_t len = sizeof(file_header) + idx->n * sizeof(ac_jidx_entry);
	char *data = malloc(len);
	file_header h;
	int rc;

	if (!data)
		return ac_error_set(AC_ENOMEM, "out of memory");
	header_fill(&h, st, schema, idx->generation);
	memcpy(data, &h, sizeof(h));
	for (size_t i = 0; i < idx->n; i++) {
		ac_jidx_entry e = *idx->entries[i];

		e.checksum = entry_checksum(&e, idx->generation);
		memcpy(data + sizeof(h) + i * sizeof(e), &e, sizeof(e));
	}
	rc = ac_atomic_write_unsynced(index_path, data, len);
	free(data);
	return rc;
}

/* New blocks onto the end of the file this index was loaded from, if it
 * is still that file as loaded (nobody appended or rebuilt meanwhile). */
static int append_entries(const ac_journal_index *idx, size_t from, int dfd,
			  const char *index_path, const struct stat *st,
			  const ac_event_schema *schema)
{
	size_t n = idx->n - from;
	uint64_t at = sizeof(file_header) + (uint64_t)idx->file_entries * sizeof(ac_jidx_entry);
	ac_jidx_entry *out = NULL;
	file_header h, want;
	struct stat ist;
	int fd = -1, rc = 0;

	if (ac_file_open_regular(&fd, dfd, strrchr(index_path, '/') + 1, O_RDWR | O_NOFOLLOW, 0,
				 index_path))
		return 0;
	if (fstat(fd, &ist) != 0 || !trusted(&ist) || flock(fd, LOCK_EX | LOCK_NB) != 0)
		goto done; /* busy: another reader is indexing; leave it to it */
	header_fill(&want, st, schema, idx->generation);
	if ((uint64_t)ist.st_size < at || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(&h, &want, sizeof(h)) ||
	    (uint64_t)ist.st_size >= at + sizeof(ac_jidx_entry))
		goto done;
	if (!(out = malloc(n * sizeof(*out)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		out[i] = *idx->entries[from + i];
		out[i].checksum = entry_checksum(&out[i], idx->generation);
	}
	/* A torn entry a crash left goes first; then one write of whole
	 * entries at the end. */
	if ((uint64_t)ist.st_size != at && ftruncate(fd, (off_t)at) != 0)
		goto done;
	if (pwrite(fd, out, n * sizeof(*out), (off_t)at) != (ssize_t)(n * sizeof(*out)) &&
	    ftruncate(fd, (off_t)at) != 0) {
		/* Nothing more to do: a torn tail is ignored by the next load. */
	}
done:
	free(out);
	if (fd >= 0)
		close(fd); /* and the flock with it */
	return rc;
}

bool ac_journal_index_writable(const char *root, const char *index_path)
{
	int dfd = -1;

	if (open_dir(&dfd, root, index_path, true))
		return false;
	close(dfd);
	return faccessat(AT_FDCWD, index_path, W_OK, AT_EACCESS) == 0 || errno == ENOENT;
}

int ac_journal_index_save(const ac_journal_index *idx, size_t from, const char *root,
			  const char *index_path, const struct stat *st,
			  const ac_event_schema *schema)
{
	int dfd = -1, rc = 0;

	if (from >= idx->n && from != 0)
		return 0;
	/* A read-only or foreign folder: no index, and no complaint. */
	if (open_dir(&dfd, root, index_path, true))
		return 0;
	if (from == 0)
		rc = write_whole(idx, index_path, st, schema) == AC_ENOMEM ? AC_ENOMEM : 0;
	else
		rc = append_entries(idx, from, dfd, index_path, st, schema);
	close(dfd);
	return rc;
}
