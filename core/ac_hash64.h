/* A fast 64-bit hash of bytes (four multiply lanes), for the checksums
 * of agentctl's own caches and indexes and the journal index's filters.
 * Not cryptographic; see ac_hash64.c for its collision odds. */
#ifndef AC_HASH64_H
#define AC_HASH64_H

#include <stddef.h>
#include <stdint.h>

uint64_t ac_hash64(uint64_t seed, const void *bytes, size_t len);

#endif
