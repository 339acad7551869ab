/* Loading an optional shared library at first use (dlopen), so that a
 * process which never needs it does not pay for loading it and its
 * dependencies at start: libgit2 for the git commands (ac_libgit2.h), curses
 * for the dashboard (tui/term/screen.c). Each user lists its functions once
 * and keeps a typed pointer per function; this fills them. Not a public
 * header. */
#ifndef AC_DL_H
#define AC_DL_H

#include <stddef.h>

/* One symbol to resolve: its name, and the pointer that receives its
 * address (a function pointer or a pointer to the library's variable). */
typedef struct {
	const char *name;
	void **slot;
} ac_dl_symbol;

/* dlopens soname and fills every slot, all or none: a library lacking one
 * symbol is refused whole and every slot set to NULL. 0, or AC_ENOTSUP
 * "<what> needs <soname>, which cannot be loaded: <reason>". Call once per
 * library, before any slot is used (the caller serialises). */
int ac_dl_load(const char *soname, const ac_dl_symbol *symbols, size_t n, const char *what);

#endif
