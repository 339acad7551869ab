/* Loading an optional shared library at first use (see ac_dl.h). */
#include "ac_dl.h"

#include "ac_error.h"

#include <dlfcn.h>

int ac_dl_load(const char *soname, const ac_dl_symbol *symbols, size_t n, const char *what)
{
	void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!lib)
		return ac_error_set(AC_ENOTSUP, "%s needs %s, which cannot be loaded: %s", what, soname,
				    dlerror());
	for (i = 0; i < n; i++)
		if (!(*symbols[i].slot = dlsym(lib, symbols[i].name)))
			break;
	if (i == n)
		return 0;
	for (size_t j = 0; j < n; j++)
		*symbols[j].slot = NULL;
	dlclose(lib);
	return ac_error_set(AC_ENOTSUP, "%s needs %s, which cannot be loaded: it lacks %s", what,
			    soname, symbols[i].name);
}
