/* Reading zstd-compressed files (Codex compresses rollouts to .jsonl.zst)
 * as streams, in bounded memory: a block of decompressed bytes at a time,
 * never the file whole. Files are opened O_RDONLY. */
#ifndef AC_ZSTD_H
#define AC_ZSTD_H

#include "ac_buf.h"
#include "ac_file.h"

#include <stdbool.h>
#include <stddef.h>

/* True when path names a compressed file (it ends in ".zst"). */
bool ac_zstd_path(const char *path);

/* Decompresses the regular file path, handing each block of decompressed
 * bytes (at most ZSTD_DStreamOutSize(), 128 KiB) to fn as
 * ac_file_each_block() does; a non-zero return from fn stops and is
 * returned. AC_ECORRUPT naming the file when it is not a whole zstd
 * stream; the errors of ac_file_open_regular(). */
int ac_zstd_each_block(const char *path, ac_file_block_fn fn, void *ctx);

/* The same over bytes already in memory (bytes[0..len), a whole file);
 * shown names them in an error. */
int ac_zstd_each_block_of(const char *bytes, size_t len, const char *shown,
			  ac_file_block_fn fn, void *ctx);

#endif
