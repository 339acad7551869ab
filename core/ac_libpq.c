/* Loading libpq at first use (see ac_libpq.h). */
#include "ac_libpq.h"

#include "ac_dl.h"
#include "ac_error.h"

#include <pthread.h>
#include <stdio.h>

#ifndef AC_LIBPQ_SONAME
#error "AC_LIBPQ_SONAME (e.g. \"libpq.so.5\") comes from the build: see CMakeLists.txt"
#endif

#define AC_LIBPQ_DEFINE(name) __typeof__(name) *sym_##name;
AC_LIBPQ_FUNCTIONS(AC_LIBPQ_DEFINE)
#undef AC_LIBPQ_DEFINE

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_failure[512]; /* empty when loaded */

static void load(void)
{
#define AC_LIBPQ_SYMBOL(name) {#name, (void **)&sym_##name},
	static const ac_dl_symbol symbols[] = {AC_LIBPQ_FUNCTIONS(AC_LIBPQ_SYMBOL)};
#undef AC_LIBPQ_SYMBOL

	if (ac_dl_load(AC_LIBPQ_SONAME, symbols, sizeof(symbols) / sizeof(symbols[0]),
		       "the PostgreSQL store"))
		snprintf(load_failure, sizeof(load_failure), "%s", ac_error_last());
}

int ac_libpq_load(void)
{
	pthread_once(&load_once, load);
	return load_failure[0] ? ac_error_set(AC_ENOTSUP, "%s", load_failure) : 0;
}
