/* Loading libgit2 at first use (see ac_libgit2.h). */
#include "ac_libgit2.h"

#include "ac_dl.h"
#include "ac_error.h"

#include <pthread.h>
#include <stdio.h>

#ifndef AC_LIBGIT2_SONAME
#error "AC_LIBGIT2_SONAME (e.g. \"libgit2.so.1.5\") comes from the build: see CMakeLists.txt"
#endif

#define AC_LIBGIT2_DEFINE(name) __typeof__(name) *sym_##name;
AC_LIBGIT2_FUNCTIONS(AC_LIBGIT2_DEFINE)
#undef AC_LIBGIT2_DEFINE

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_failure[512]; /* empty when loaded */

static void load(void)
{
#define AC_LIBGIT2_SYMBOL(name) {#name, (void **)&sym_##name},
	static const ac_dl_symbol symbols[] = {AC_LIBGIT2_FUNCTIONS(AC_LIBGIT2_SYMBOL)};
#undef AC_LIBGIT2_SYMBOL

	if (ac_dl_load(AC_LIBGIT2_SONAME, symbols, sizeof(symbols) / sizeof(symbols[0]),
		       "git support")) {
		snprintf(load_failure, sizeof(load_failure), "%s", ac_error_last());
		return;
	}
	/* Initialised for the life of the process; each ac_git_open() adds
	 * its own count on top. Otherwise, with git used on two threads (the
	 * dashboard's worker and its loop), whichever thread shut libgit2
	 * down last deleted the thread-local key while the other thread's
	 * error state still hung on it, and that state was never freed
	 * (LeakSanitizer, now and then, in e2e_dashboard_ops_patch). */
	sym_git_libgit2_init();
}

int ac_libgit2_load(void)
{
	pthread_once(&load_once, load);
	return load_failure[0] ? ac_error_set(AC_ENOTSUP, "%s", load_failure) : 0;
}
