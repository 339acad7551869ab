/* A session a store keeps as rows (a database: no file to read) made a
 * search item (ac_session_search.h): its history read through the backend
 * and serialised as a session file holds it, for the file provider. The
 * command line's `session search` and the dashboard's conversation search
 * both read a store's sessions this way. Not for listing them: the
 * caller has the listing. */
#ifndef AC_SESSION_SEARCH_STORE_H
#define AC_SESSION_SEARCH_STORE_H

#include "ac_backend.h"
#include "ac_session_search.h"

/* Reads tenant's session_id through b into *out_text (allocated, the
 * caller frees it after the search) and points item->bytes and ->len at
 * it; item's other members are left. 0, or the store's error (*out_text
 * NULL). */
int ac_session_search_store_text(ac_search_item *item, char **out_text, const ac_backend *b,
				 const char *tenant, const char *session_id);

#endif
