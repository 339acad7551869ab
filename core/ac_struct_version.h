/* The version check of a public options struct a caller fills: the struct
 * begins with `unsigned int version`, its header defines NAME_VERSION and
 * NAME_INIT, and the library refuses any other version with one message,
 * so a later version can add members at the end safely. Not for vtables,
 * whose checks say how to start the ops (ac_backend_version_check()). */
#ifndef AC_STRUCT_VERSION_H
#define AC_STRUCT_VERSION_H

/* 0 when got is want; AC_EINVAL otherwise: "WHAT version GOT: this
 * library's are version WANT (start them with INIT)". what and init are
 * for the message (static text). */
int ac_struct_version_check(const char *what, unsigned int got, unsigned int want,
			    const char *init);

#endif
