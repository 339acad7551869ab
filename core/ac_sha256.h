/* SHA-256 (FIPS 180-4), for recognising a file's exact content (the trust
 * store of project configuration files). Not for passwords or keys. */
#ifndef AC_SHA256_H
#define AC_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define AC_SHA256_HEX_LEN 64

/* The SHA-256 digest of data[0..len) into out. */
void ac_sha256(uint8_t out[32], const void *data, size_t len);

/* The digest as 64 lowercase hex digits and a NUL, written to out. */
void ac_sha256_hex(char out[AC_SHA256_HEX_LEN + 1], const void *data, size_t len);

#endif
