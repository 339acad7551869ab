/* One message for a public options struct of another version. */
#include "ac_struct_version.h"

#include "ac_error.h"

int ac_struct_version_check(const char *what, unsigned int got, unsigned int want,
			    const char *init)
{
	if (got == want)
		return 0;
	return ac_error_set(AC_EINVAL, "%s version %u: this library's are version %u (start them with %s)",
			    what, got, want, init);
}
