/* A fuzz target's scratch folder under /tmp, removed when the fuzzer exits
 * (libFuzzer returns through exit() after -max_total_time), so short CI
 * runs leave nothing behind. */
#ifndef FUZZ_TMPDIR_H
#define FUZZ_TMPDIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static char fuzz_tmpdir_path[64];

static int fuzz_tmpdir_remove_one(const char *path, const struct stat *st, int flag,
				  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void fuzz_tmpdir_remove(void)
{
	nftw(fuzz_tmpdir_path, fuzz_tmpdir_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The folder (made once, mkdtemp from prefix "NAME"); NULL when it cannot be. */
static const char *fuzz_tmpdir(const char *name)
{
	if (!fuzz_tmpdir_path[0]) {
		snprintf(fuzz_tmpdir_path, sizeof(fuzz_tmpdir_path), "/tmp/agentctl-fuzz-%s.XXXXXX",
			 name);
		if (!mkdtemp(fuzz_tmpdir_path)) {
			fuzz_tmpdir_path[0] = '\0';
			return NULL;
		}
		atexit(fuzz_tmpdir_remove);
	}
	return fuzz_tmpdir_path;
}

#endif
