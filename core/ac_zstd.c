/* Reading zstd-compressed files as streams (ac_zstd.h). */
#include "ac_zstd.h"

#include "ac_error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

bool ac_zstd_path(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && !strcmp(path + n - 4, ".zst");
}

typedef struct {
	ZSTD_DCtx *d;
	void *out;
	size_t out_size;
	size_t last; /* ZSTD_decompressStream's last answer: 0 at the end of a frame */
	const char *shown;
} stream;

/* Decompresses in[0..len) through fn. */
static int feed(stream *z, const char *bytes, size_t len, ac_file_block_fn fn, void *ctx)
{
	ZSTD_inBuffer in = {bytes, len, 0};
	int rc;

	while (in.pos < in.size) {
		ZSTD_outBuffer out = {z->out, z->out_size, 0};

		z->last = ZSTD_decompressStream(z->d, &out, &in);
		if (ZSTD_isError(z->last))
			return ac_error_set(AC_ECORRUPT, "%s: not a zstd stream: %s", z->shown,
					    ZSTD_getErrorName(z->last));
		if (out.pos && (rc = fn(z->out, out.pos, ctx)))
			return rc;
	}
	return 0;
}

/* What the frame still holds once the input ended. */
static int drain(stream *z, ac_file_block_fn fn, void *ctx)
{
	int rc;

	while (z->last != 0) {
		ZSTD_inBuffer in = {NULL, 0, 0};
		ZSTD_outBuffer out = {z->out, z->out_size, 0};

		z->last = ZSTD_decompressStream(z->d, &out, &in);
		if (ZSTD_isError(z->last))
			return ac_error_set(AC_ECORRUPT, "%s: not a zstd stream: %s", z->shown,
					    ZSTD_getErrorName(z->last));
		if (out.pos == 0)
			return ac_error_set(AC_ECORRUPT, "%s: the zstd stream is cut short", z->shown);
		if ((rc = fn(z->out, out.pos, ctx)))
			return rc;
	}
	return 0;
}

static int stream_open(stream *z, const char *shown)
{
	memset(z, 0, sizeof(*z));
	z->shown = shown;
	z->out_size = ZSTD_DStreamOutSize();
	if (!(z->d = ZSTD_createDCtx()) || !(z->out = malloc(z->out_size))) {
		ZSTD_freeDCtx(z->d);
		return ac_error_set(AC_ENOMEM, "%s: out of memory", shown);
	}
	return 0;
}

static void stream_close(stream *z)
{
	ZSTD_freeDCtx(z->d);
	free(z->out);
}

int ac_zstd_each_block_of(const char *bytes, size_t len, const char *shown,
			  ac_file_block_fn fn, void *ctx)
{
	stream z;
	int rc;

	if ((rc = stream_open(&z, shown)))
		return rc;
	if ((rc = feed(&z, bytes, len, fn, ctx)) == 0)
		rc = drain(&z, fn, ctx);
	stream_close(&z);
	return rc;
}

int ac_zstd_each_block(const char *path, ac_file_block_fn fn, void *ctx)
{
	size_t in_size = ZSTD_DStreamInSize();
	char *in = malloc(in_size);
	int fd = -1, rc;
	stream z;

	if (!in)
		return ac_error_set(AC_ENOMEM, "%s: out of memory", path);
	if ((rc = stream_open(&z, path))) {
		free(in);
		return rc;
	}
	if ((rc = ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY | O_NOFOLLOW, 0, path)))
		goto done;
	for (;;) {
		ssize_t n = read(fd, in, in_size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = ac_error_errno(errno, "%s", path);
			break;
		}
		if (n == 0) {
			rc = drain(&z, fn, ctx);
			break;
		}
		if ((rc = feed(&z, in, (size_t)n, fn, ctx)))
			break;
	}
done:
	if (fd >= 0)
		close(fd);
	stream_close(&z);
	free(in);
	return rc;
}
