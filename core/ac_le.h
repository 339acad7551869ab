/* The little-endian record codec the binary caches share: the session
 * listing's cache (ac_session_cache.c), the transcript cache
 * (ac_source_cache.c) and the usage index (ac_usage_index.c). Integers
 * are written least significant byte first, whatever the machine, so that
 * a file means the same to every build. Reading goes through a reader that
 * checks every length against the bytes left: a read past the end sets
 * bad and yields 0 or NULL, so a parser reads a whole record and looks at
 * bad once. What a record holds, and its checksum, stay each cache's own.
 * Inline: loading a cache of 10,000 records calls these 200,000 times. */
#ifndef AC_LE_H
#define AC_LE_H

#include "ac_buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* v stored at p[0..4), least significant byte first. */
static inline void ac_le_store_u32(void *p, uint32_t v)
{
	unsigned char *b = p;

	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

/* The value stored at p[0..4) by ac_le_store_u32(). */
static inline uint32_t ac_le_load_u32(const void *p)
{
	const unsigned char *b = p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Appends v to b (8 bytes): 0 or AC_ENOMEM, as ac_buf_append(). */
static inline int ac_le_put_u64(ac_buf *b, uint64_t v)
{
	unsigned char bytes[8];

	for (int i = 0; i < 8; i++)
		bytes[i] = (unsigned char)(v >> (8 * i));
	return ac_buf_append(b, bytes, sizeof(bytes));
}

/* Appends v to b (4 bytes): 0 or AC_ENOMEM. */
static inline int ac_le_put_u32(ac_buf *b, uint32_t v)
{
	unsigned char bytes[4];

	ac_le_store_u32(bytes, v);
	return ac_buf_append(b, bytes, sizeof(bytes));
}

/* Bytes being read: p up to end (borrowed); bad once a read did not fit. */
typedef struct {
	const unsigned char *p, *end;
	bool bad;
} ac_le_reader;

/* A reader over bytes[0..len) (borrowed). */
static inline ac_le_reader ac_le_reader_of(const void *bytes, size_t len)
{
	return (ac_le_reader){(const unsigned char *)bytes, (const unsigned char *)bytes + len,
			      false};
}

/* The bytes not read yet. */
static inline size_t ac_le_left(const ac_le_reader *r)
{
	return (size_t)(r->end - r->p);
}

/* The next n bytes in place (borrowed from the reader's bytes), NULL when
 * they do not fit (r->bad set) or the reader is bad already. */
static inline const unsigned char *ac_le_get_bytes(ac_le_reader *r, size_t n)
{
	const unsigned char *at = r->p;

	if (r->bad || ac_le_left(r) < n) {
		r->bad = true;
		return NULL;
	}
	r->p += n;
	return at;
}

static inline uint64_t ac_le_get_u64(ac_le_reader *r)
{
	const unsigned char *b = ac_le_get_bytes(r, 8);
	uint64_t v = 0;

	for (int i = 0; b && i < 8; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

static inline uint32_t ac_le_get_u32(ac_le_reader *r)
{
	const unsigned char *b = ac_le_get_bytes(r, 4);

	return b ? ac_le_load_u32(b) : 0;
}

#endif
