/* The library's version at run time (ac_version.h). */
#include "ac_version.h"

const char *ac_version(void)
{
	return AC_VERSION_STRING;
}
