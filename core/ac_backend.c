/* The backend handle's life: its version at init, and its release. What
 * the operations do is each backend's (ac_backend_fs*.c, ac_backend_pg*.c). */
#include "ac_backend_sys.h"

#include "ac_error.h"

void ac_backend_close(ac_backend *b)
{
	if (!b)
		return;
	if (b->free)
		b->free(b->impl);
	*b = (ac_backend){0};
}

int ac_backend_init(ac_backend *b, unsigned int version)
{
	*b = (ac_backend){0};
	if (version != AC_BACKEND_VERSION)
		return ac_error_set(AC_EINVAL,
				    "backend version %u: this library's backends are version %u "
				    "(rebuild the backend against its headers)",
				    version, AC_BACKEND_VERSION);
	b->version = version;
	return 0;
}

int ac_backend_version_check(const ac_backend *b)
{
	if (!b)
		return ac_error_set(AC_EINVAL, "backend: missing");
	if (b->version != AC_BACKEND_VERSION)
		return ac_error_set(AC_EINVAL,
				    "backend version %u: this library's backends are version %u "
				    "(start one with ac_backend_init() or AC_BACKEND_INIT)",
				    b->version, AC_BACKEND_VERSION);
	return 0;
}
