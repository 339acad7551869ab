/* The implementer's tier: a backend written against
 * <agentctl/sys/ac_backend_sys.h> alone (no core/ on the include path), as
 * a third-party store would be. tests/layering.sh compiles it from a copy
 * of include/agentctl/ laid out as an install puts it.
 *
 * A store of one session, read-only: enough to fill the vtable the way
 * every backend does (ac_backend_init() first, then the operations, each
 * taking impl, its out-parameters, then its inputs). */
#include <agentctl/sys/ac_backend_sys.h>
#include <agentctl/agentctl.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	json_t *doc; /* the one session's document */
} one_store;

static int one_get(void *impl, json_t **out, const char *tenant, const char *session_id)
{
	one_store *s = impl;

	if (ac_backend_id_check("tenant", tenant) || ac_backend_id_check("session", session_id))
		return AC_EINVAL;
	if (strcmp(session_id, json_string_value(json_object_get(s->doc, "id"))) != 0)
		return AC_ENOTFOUND;
	*out = json_incref(s->doc);
	return 0;
}

static int one_load_all(void *impl, json_t **out, const char *tenant, const char *session_id)
{
	json_t *doc = NULL;
	int rc = one_get(impl, &doc, tenant, session_id);

	if (rc == 0)
		*out = json_incref(json_object_get(doc, "conversationHistory"));
	json_decref(doc);
	return rc;
}

static void one_free(void *impl)
{
	one_store *s = impl;

	if (s)
		json_decref(s->doc);
	free(s);
}

static int one_init(ac_backend *out, const char *id)
{
	one_store *s;
	int rc;

	if ((rc = ac_backend_init(out, AC_BACKEND_VERSION)))
		return rc;
	if (!(s = calloc(1, sizeof(*s))) ||
	    !(s->doc = json_pack("{s:s, s:[]}", "id", id, "conversationHistory"))) {
		free(s);
		return AC_ENOMEM;
	}
	out->name = "one";
	out->impl = s;
	out->session.get = one_get;
	out->session.load_all = one_load_all;
	out->free = one_free;
	return ac_backend_version_check(out);
}

int main(void)
{
	ac_backend b;
	json_t *history = NULL;
	int rc = one_init(&b, "s1");

	if (rc == 0)
		rc = b.session.load_all(b.impl, &history, "t", "s1");
	json_decref(history);
	ac_backend_close(&b);
	return rc != 0;
}
