/* Loading an optional shared library at first use (dlopen), so that a
 * process which never needs it does not pay for loading it and its
 * dependencies at start: the library loads libgit2 for the git calls and
 * libpq for a PostgreSQL store this way, the agentctl program curses for
 * its dashboard (which the library knows nothing of). Each user lists the
 * functions it calls once and keeps a typed pointer per function; this
 * fills them. */
#ifndef AC_DL_H
#define AC_DL_H

#include <stddef.h>

/* One symbol to resolve: its name, and the pointer that receives its
 * address (a function pointer or a pointer to the library's variable). */
typedef struct {
	const char *name;
	void **slot;
} ac_dl_symbol;

/* dlopens soname (RTLD_NOW | RTLD_LOCAL) and fills every slot of
 * symbols[0..n), all or none: a library lacking one symbol is refused
 * whole, closed, and every slot set to NULL. what names the user for the
 * message: 0, or AC_ENOTSUP "<what> needs <soname>, which cannot be
 * loaded: <reason>". A library loaded is never closed: its functions stay
 * valid for the life of the process. Call once per library, before any
 * slot is used (the caller serialises). symbols is only read. */
int ac_dl_load(const char *soname, const ac_dl_symbol *symbols, size_t n, const char *what);

#endif
