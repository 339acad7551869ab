/* What ac_git.c and ac_git_state.c share about an open repository; not a
 * public header. */
#ifndef AC_GIT_IMPL_H
#define AC_GIT_IMPL_H

#include <git2.h>

#include <stdbool.h>
#include <stddef.h>

/* A journal family: "<dir><stem>.jsonl", "<dir><stem>-*.jsonl", ".lock"s. */
typedef struct {
	char *dir; /* workdir-relative, "" or ending in '/' */
	char *stem;
} ac_git_journal_rule;

struct ac_git {
	git_repository *repo;
	char *workdir; /* real path, ending in '/' */
	char *prefix;  /* the workspace inside workdir: "" or "sub/dir/" */
	char **folders;
	size_t nfolders;
	char **files;
	size_t nfiles;
	ac_git_journal_rule *journals;
	size_t njournals;
};

/* True when path (workdir-relative) lies in the workspace. */
bool ac_git_in_workspace(const ac_git *g, const char *path);

/* libgit2's last error as AC_EIO "<what>: <reason>". */
int ac_git_fail(const char *what);

#endif
