/* A store's session as a search item (ac_session_search_store.h). */
#include "ac_session_search_store.h"

#include "ac_backend_sys.h"
#include "ac_error.h"

#include <jansson.h>
#include <string.h>

int ac_session_search_store_text(ac_search_item *item, char **out_text, const ac_backend *b,
				 const char *tenant, const char *session_id)
{
	json_t *messages = NULL, *doc;
	int rc;

	*out_text = NULL;
	if ((rc = b->session.load_all(b->impl, &messages, tenant, session_id)))
		return rc;
	doc = json_pack("{s:o}", "conversationHistory", messages);
	if (!doc || !(*out_text = json_dumps(doc, JSON_COMPACT)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	json_decref(doc);
	item->bytes = *out_text;
	item->len = *out_text ? strlen(*out_text) : 0;
	return rc;
}
