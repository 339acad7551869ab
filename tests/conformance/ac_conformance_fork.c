/* Conformance: a session created whole from a document
 * (session.create_document), as a fork is made: history, task, tenancy
 * and metadata.parent land together; an id that is taken, whatever its
 * tenant, and a document of another tenant are refused with nothing
 * written. */
#include "ac_conformance.h"
#include "ac_backend_sys.h"

#include <string.h>

static json_t *fork_doc(const char *id, const char *tenant)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:[{s:s, s:s}, {s:s, s:s}],"
			 " s:{s:s, s:s, s:s, s:{s:s, s:i}}}",
			 "id", id, "createdAt", "2026-01-02T03:04:05.006Z",
			 "updatedAt", "2026-01-02T03:04:05.006Z", "task", "fix the build",
			 "status", "paused", "conversationHistory", "role", "user", "content", "hi",
			 "role", "assistant", "content", "ok", "metadata", "tenantId", tenant,
			 "userId", "u1", "agentId", "claude", "parent", "sessionId", "p1",
			 "atMessage", 2);
}

void conform_create_document(const ac_backend *b)
{
	char *taken = conform_new_session(b, "t2", "u9", "taken");
	ac_backend_session_info *list = NULL, info;
	json_t *doc = fork_doc("forked", "t1"), *got = NULL, *bad;
	size_t n = 0;

	OK(b->session.create_document(b->impl, "t1", doc));
	OK(b->session.get(b->impl, &got, "t1", "forked"));
	assert_true(json_equal(json_object_get(got, "conversationHistory"),
			       json_object_get(doc, "conversationHistory")));
	assert_string_equal(json_string_value(json_object_get(got, "task")), "fix the build");
	assert_string_equal(json_string_value(json_object_get(got, "status")), "paused");
	assert_true(json_equal(json_object_get(json_object_get(got, "metadata"), "parent"),
			       json_object_get(json_object_get(doc, "metadata"), "parent")));
	json_decref(got);
	info = conform_find_info(b, "forked", &list, &n);
	assert_string_equal(info.tenant, "t1");
	assert_string_equal(info.user, "u1");
	assert_int_equal(info.messages, 2);
	ac_backend_sessions_free(list, n);
	/* Another tenant cannot read it. */
	assert_int_equal(b->session.get(b->impl, &got, "t2", "forked"), AC_ENOTFOUND);
	/* Taken ids, ours or another tenant's: refused, nothing changed. */
	assert_int_equal(b->session.create_document(b->impl, "t1", doc), AC_EINVAL);
	json_decref(doc);
	doc = fork_doc("taken", "t1");
	assert_int_equal(b->session.create_document(b->impl, "t1", doc), AC_EINVAL);
	assert_int_equal(conform_history_size(b, "t2", "taken"), 0);
	info = conform_find_info(b, "taken", &list, &n);
	assert_string_equal(info.tenant, "t2");
	ac_backend_sessions_free(list, n);
	/* A document that names another tenant, or a history that is not
	 * messages: refused before anything is written. */
	bad = fork_doc("stray", "t2");
	assert_int_equal(b->session.create_document(b->impl, "t1", bad), AC_EINVAL);
	json_decref(bad);
	bad = fork_doc("stray", "t1");
	json_object_set_new(bad, "conversationHistory", json_pack("[i]", 1));
	assert_int_equal(b->session.create_document(b->impl, "t1", bad), AC_EINVAL);
	json_decref(bad);
	assert_int_equal(b->session.get(b->impl, &got, "t1", "stray"), AC_ENOTFOUND);
	json_decref(doc);
	free(taken);
}
