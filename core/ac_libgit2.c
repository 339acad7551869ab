/* Loading libgit2 at first use (see ac_libgit2.h). */
#include "ac_libgit2.h"

#include "ac_error.h"

#include <dlfcn.h>
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
	void *lib = dlopen(AC_LIBGIT2_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		snprintf(load_failure, sizeof(load_failure), "%s", dlerror());
		return;
	}
	/* All or none: a library missing one function is refused whole. */
#define AC_LIBGIT2_RESOLVE(name)                                                         \
	if (!load_failure[0] && !(sym_##name = (__typeof__(name) *)dlsym(lib, #name))) \
		snprintf(load_failure, sizeof(load_failure), "%s lacks %s", AC_LIBGIT2_SONAME, #name);
	AC_LIBGIT2_FUNCTIONS(AC_LIBGIT2_RESOLVE)
#undef AC_LIBGIT2_RESOLVE
	if (load_failure[0]) {
#define AC_LIBGIT2_FORGET(name) sym_##name = NULL;
		AC_LIBGIT2_FUNCTIONS(AC_LIBGIT2_FORGET)
#undef AC_LIBGIT2_FORGET
		dlclose(lib);
	}
}

int ac_libgit2_load(void)
{
	pthread_once(&load_once, load);
	if (load_failure[0])
		return ac_error_set(AC_ENOTSUP, "git support needs libgit2 (%s), which cannot be loaded: %s",
				    AC_LIBGIT2_SONAME, load_failure);
	return 0;
}
