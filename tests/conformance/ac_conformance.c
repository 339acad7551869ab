/* The storage-backend conformance suite (ac_conformance.h). Every check
 * uses a backend only through the ac_backend struct. */
#include "ac_conformance.h"

#include "ac_backend_sys.h"
#include "ac_buf.h"
#include "ac_sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

char *conform_new_session(const ac_backend *b, const char *tenant, const char *user,
			 const char *id)
{
	char *out = NULL;

	OK(b->session.get_or_create(b->impl, &out, tenant, user, "claude", id));
	return out;
}

json_t *conform_msgs(const char *json)
{
	json_error_t err;
	json_t *v = json_loads(json, 0, &err);

	if (!v)
		fail_msg("bad test JSON: %s", err.text);
	return v;
}

static void append(const ac_backend *b, const char *tenant, const char *session, const char *json)
{
	json_t *m = conform_msgs(json);

	OK(b->session.append(b->impl, tenant, session, m));
	json_decref(m);
}

size_t conform_history_size(const ac_backend *b, const char *tenant, const char *session)
{
	json_t *all = NULL;
	size_t n;

	OK(b->session.load_all(b->impl, &all, tenant, session));
	n = json_array_size(all);
	json_decref(all);
	return n;
}

/* The inspector's line for session (all fields), which must exist. */
ac_backend_session_info conform_find_info(const ac_backend *b, const char *session,
					 ac_backend_session_info **list, size_t *n)
{
	OK(b->inspector.list_sessions(b->impl, list, n, NULL));
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*list)[i].session_id, session))
			return (*list)[i];
	fail_msg("session %s is not listed", session);
	return (ac_backend_session_info){0};
}

static uint64_t turns_of(const ac_backend *b, const char *session)
{
	ac_backend_session_info *list = NULL;
	size_t n;
	uint64_t turns = conform_find_info(b, session, &list, &n).turns;

	ac_backend_sessions_free(list, n);
	return turns;
}

static bool names_equal(char **names, size_t n, const char *const *want, size_t n_want)
{
	if (n != n_want)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], want[i]))
			return false;
	return true;
}

/* ---- 1. the session store ---- */

void conform_session_store(const ac_backend *b)
{
	char *id = conform_new_session(b, "t1", "u1", NULL), *again = NULL;
	json_t *out = NULL;
	ac_backend_session_info *list = NULL, info;
	size_t n;
	ac_usage usage = {100, 40, NULL};

	assert_int_equal(strlen(id), 36); /* a UUID */
	OK(b->session.get_or_create(b->impl, &again, "t1", "u1", "claude", id));
	assert_string_equal(again, id);
	assert_int_equal(conform_history_size(b, "t1", id), 0);
	append(b, "t1", id,
	       "[{\"role\":\"user\",\"content\":\"list the files\"},"
	       " {\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"c1\",\"name\":\"ls\",\"input\":{}}]},"
	       " {\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"c1\",\"content\":\"a b\"}]},"
	       " {\"role\":\"assistant\",\"content\":\"two files\",\"x-kept\":true}]");
	assert_int_equal(conform_history_size(b, "t1", id), 4);
	/* Unknown keys survive. */
	OK(b->session.load_all(b->impl, &out, "t1", id));
	assert_true(json_is_true(json_object_get(json_array_get(out, 3), "x-kept")));
	json_decref(out);
	/* The last 1; the last 2 would orphan a tool result, so 3. */
	OK(b->session.load_last(b->impl, &out, "t1", id, 1));
	assert_int_equal(json_array_size(out), 1);
	json_decref(out);
	OK(b->session.load_last(b->impl, &out, "t1", id, 2));
	assert_int_equal(json_array_size(out), 3);
	json_decref(out);
	OK(b->session.load_within(b->impl, &out, "t1", id, 1000000));
	assert_int_equal(json_array_size(out), 4);
	json_decref(out);
	/* 0 is the seed's default budget (100,000), not "nothing". */
	OK(b->session.load_within(b->impl, &out, "t1", id, 0));
	assert_int_equal(json_array_size(out), 4);
	json_decref(out);
	OK(b->session.load_within(b->impl, &out, "t1", id, 1));
	assert_true(json_array_size(out) < 4);
	json_decref(out);
	/* Not an array of messages: refused, nothing written. */
	out = conform_msgs("{\"role\":\"user\"}");
	assert_int_equal(b->session.append(b->impl, "t1", id, out), AC_EINVAL);
	json_decref(out);
	out = conform_msgs("[\"text\"]");
	assert_int_equal(b->session.append(b->impl, "t1", id, out), AC_EINVAL);
	json_decref(out);
	/* A turn: messages and usage. */
	out = conform_msgs("[{\"role\":\"user\",\"content\":\"thanks\"}]");
	OK(b->session.record_turn(b->impl, "t1", id, out, &usage));
	json_decref(out);
	OK(b->session.record_turn(b->impl, "t1", id, NULL, &usage));
	assert_int_equal(conform_history_size(b, "t1", id), 5);
	info = conform_find_info(b, id, &list, &n);
	assert_string_equal(info.tenant, "t1");
	assert_string_equal(info.user, "u1");
	assert_int_equal(info.turns, 2);
	assert_int_equal(info.input_tokens, 200);
	assert_int_equal(info.output_tokens, 80);
	assert_int_equal(info.messages, 5);
	assert_true(info.tokens > 0);
	assert_true(info.updated_at[0] != '\0');
	ac_backend_sessions_free(list, n);
	/* A chosen id is created as given. */
	free(again);
	again = conform_new_session(b, "t1", "u1", "chosen-id");
	assert_string_equal(again, "chosen-id");
	assert_int_equal(b->session.load_all(b->impl, &out, "t1", "no-such"), AC_ENOTFOUND);
	free(again);
	free(id);
	/* The default budget caps a long history: 20 messages of ~6,250
	 * estimated tokens each pass 100,000; budget 0 keeps what 100,000 keeps. */
	id = conform_new_session(b, "t1", "u1", NULL);
	{
		json_t *long_history = json_array(), *capped = NULL;
		char *text = malloc(25001);

		memset(text, 'x', 25000);
		text[25000] = '\0';
		for (int i = 0; i < 20; i++)
			json_array_append_new(long_history, json_pack("{s:s, s:s}", "role",
								      i % 2 ? "assistant" : "user",
								      "content", text));
		OK(b->session.append(b->impl, "t1", id, long_history));
		OK(b->session.load_within(b->impl, &out, "t1", id, 0));
		OK(b->session.load_within(b->impl, &capped, "t1", id, AC_BACKEND_TOKEN_BUDGET));
		assert_true(json_array_size(out) > 0 && json_array_size(out) < 20);
		assert_int_equal(json_array_size(out), json_array_size(capped));
		json_decref(capped);
		json_decref(out);
		json_decref(long_history);
		free(text);
	}
	free(id);
}

/* get: the whole session as a file holds it; set_status: a
 * compare-and-set that refuses when the status moved; the inspector's
 * find: one session by id, whatever its tenant. */
void conform_get_and_status(const ac_backend *b)
{
	char *id = conform_new_session(b, "t1", "u1", "cas-1");
	json_t *doc = NULL, *turn = conform_msgs("[{\"role\":\"assistant\",\"content\":\"ok\"}]");
	ac_backend_session_info info;
	ac_usage usage = {10, 3, NULL};

	append(b, "t1", id, "[{\"role\":\"user\",\"content\":\"hi\",\"x-kept\":1}]");
	OK(b->session.record_turn(b->impl, "t1", id, turn, &usage));
	OK(b->session.get(b->impl, &doc, "t1", id));
	assert_string_equal(json_string_value(json_object_get(doc, "id")), "cas-1");
	assert_string_equal(json_string_value(json_object_get(doc, "status")), "running");
	assert_non_null(json_string_value(json_object_get(doc, "createdAt")));
	assert_non_null(json_string_value(json_object_get(doc, "updatedAt")));
	assert_int_equal(json_array_size(json_object_get(doc, "conversationHistory")), 2);
	assert_int_equal(json_integer_value(json_object_get(
		json_array_get(json_object_get(doc, "conversationHistory"), 0), "x-kept")), 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "metadata"),
							      "tenantId")), "t1");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(
		doc, "metadata"), "usage"), "turns")), 1);
	json_decref(doc);
	doc = NULL;
	assert_int_equal(b->session.get(b->impl, &doc, "t2", id), AC_ENOTFOUND);
	assert_null(doc);
	assert_int_equal(b->session.get(b->impl, &doc, "t1", "no-such"), AC_ENOTFOUND);

	OK(b->session.set_status(b->impl, "t1", id, "running", "paused"));
	/* Another writer's change came first: refused, nothing written. */
	assert_int_equal(b->session.set_status(b->impl, "t1", id, "running", "failed"), AC_ECONFLICT);
	OK(b->session.get(b->impl, &doc, "t1", id));
	assert_string_equal(json_string_value(json_object_get(doc, "status")), "paused");
	assert_int_equal(json_array_size(json_object_get(doc, "conversationHistory")), 2);
	json_decref(doc);
	assert_int_equal(b->session.set_status(b->impl, "t2", id, "paused", "running"), AC_ENOTFOUND);
	assert_int_equal(b->session.set_status(b->impl, "t1", "no-such", "paused", "running"),
			 AC_ENOTFOUND);
	assert_int_equal(b->session.set_status(b->impl, "t1", id, "paused", "sleeping"), AC_EINVAL);
	assert_int_equal(b->session.set_status(b->impl, "t1", "../x", "paused", "running"), AC_EINVAL);

	OK(b->inspector.find(b->impl, &info, id));
	assert_string_equal(info.session_id, "cas-1");
	assert_string_equal(info.tenant, "t1");
	assert_string_equal(info.user, "u1");
	assert_string_equal(info.status, "paused");
	assert_int_equal(info.messages, 2);
	assert_int_equal(info.turns, 1);
	assert_non_null(info.host);
	assert_non_null(info.writer);
	ac_backend_session_info_clear(&info);
	assert_int_equal(b->inspector.find(b->impl, &info, "no-such"), AC_ENOTFOUND);
	assert_null(info.session_id);
	OK(b->session.set_status(b->impl, "t1", id, "paused", "running"));
	json_decref(turn);
	free(id);
}

/* ---- 2. memory documents ---- */

static int gather_block(const char *bytes, size_t len, void *ctx)
{
	return ac_buf_append(ctx, bytes, len);
}

/* A backend's stream op hands over what its read op returns. */
static void expect_memo_stream(const ac_backend *b, const char *tenant, const char *owner,
			       const char *scope, const char *name)
{
	ac_buf streamed = AC_BUF_INIT;
	char *text = NULL;
	size_t len = 0;

	if (!b->memo.stream)
		return;
	OK(b->memo.read(b->impl, &text, &len, tenant, owner, scope, name));
	OK(b->memo.stream(b->impl, gather_block, &streamed, tenant, owner, scope, name));
	assert_int_equal(streamed.len, len);
	if (len)
		assert_memory_equal(streamed.data, text, len);
	free(text);
	ac_buf_free(&streamed);
}

void conform_memo(const ac_backend *b)
{
	char *text = NULL, **names = NULL;
	size_t len, n;
	static const char binary[] = "a\0b\x1b[2J";
	static const char *const want[] = {"NOTES.md", "TODO.md"};

	assert_int_equal(b->memo.read(b->impl, &text, &len, "t1", "s1", "session", "NOTES.md"),
			 AC_ENOTFOUND);
	OK(b->memo.write(b->impl, "t1", "s1", "session", "NOTES.md", "# Notes\n", 8));
	OK(b->memo.append(b->impl, "t1", "s1", "session", "NOTES.md", "- one\n", 6));
	OK(b->memo.read(b->impl, &text, &len, "t1", "s1", "session", "NOTES.md"));
	assert_int_equal(len, 14);
	assert_string_equal(text, "# Notes\n- one\n");
	free(text);
	/* Append creates; write replaces. */
	OK(b->memo.append(b->impl, "t1", "s1", "session", "TODO.md", "- [ ] a\n", 8));
	OK(b->memo.write(b->impl, "t1", "s1", "session", "TODO.md", "done", 4));
	OK(b->memo.read(b->impl, &text, &len, "t1", "s1", "session", "TODO.md"));
	assert_string_equal(text, "done");
	free(text);
	/* Scopes are separate; bytes are kept as they are. */
	OK(b->memo.write(b->impl, "t1", "u1", "user", "USER.md", binary, sizeof(binary) - 1));
	OK(b->memo.read(b->impl, &text, &len, "t1", "u1", "user", "USER.md"));
	assert_int_equal(len, sizeof(binary) - 1);
	assert_memory_equal(text, binary, len);
	free(text);
	expect_memo_stream(b, "t1", "u1", "user", "USER.md");
	expect_memo_stream(b, "t1", "s1", "session", "NOTES.md");
	assert_int_equal(b->memo.read(b->impl, &text, &len, "t1", "s1", "user", "NOTES.md"),
			 AC_ENOTFOUND);
	if (b->memo.stream)
		assert_int_equal(b->memo.stream(b->impl, gather_block, NULL, "t1", "s1", "user",
						"NOTES.md"), AC_ENOTFOUND);
	assert_int_equal(b->memo.write(b->impl, "t1", "s1", "global", "X.md", "x", 1), AC_EINVAL);
	OK(b->memo.list(b->impl, &names, &n, "t1", "s1", "session"));
	assert_true(names_equal(names, n, want, 2));
	ac_backend_names_free(names, n);
	OK(b->memo.list(b->impl, &names, &n, "t1", "nobody", "session"));
	assert_int_equal(n, 0);
	ac_backend_names_free(names, n);
	/* An empty document is a document. */
	OK(b->memo.write(b->impl, "t1", "s1", "agent", "EMPTY.md", "", 0));
	OK(b->memo.read(b->impl, &text, &len, "t1", "s1", "agent", "EMPTY.md"));
	assert_int_equal(len, 0);
	free(text);
	expect_memo_stream(b, "t1", "s1", "agent", "EMPTY.md");
}

/* memo_write_if (optional): written only over the document the caller
 * saw, by its SHA-256, or where there is none when it expects none;
 * otherwise AC_ECONFLICT and nothing written. */
void conform_memo_write_if(const ac_backend *b)
{
	char hash[AC_SHA256_HEX_LEN + 1], stale[AC_SHA256_HEX_LEN + 1], *text = NULL;
	size_t len = 0;

	if (!b->optional.memo_write_if)
		skip(); /* the caller compares and writes in two steps */
	OK(b->optional.memo_write_if(b, "t1", "s1", "session", "N.md", NULL, "v1", 2));
	assert_int_equal(b->optional.memo_write_if(b, "t1", "s1", "session", "N.md", NULL, "x", 1),
			 AC_ECONFLICT);
	ac_sha256_hex(hash, "v1", 2);
	ac_sha256_hex(stale, "v0", 2);
	assert_int_equal(b->optional.memo_write_if(b, "t1", "s1", "session", "N.md", stale, "x", 1),
			 AC_ECONFLICT);
	OK(b->memo.read(b->impl, &text, &len, "t1", "s1", "session", "N.md"));
	assert_int_equal(len, 2);
	assert_memory_equal(text, "v1", 2);
	free(text);
	OK(b->optional.memo_write_if(b, "t1", "s1", "session", "N.md", hash, "v2", 2));
	assert_int_equal(b->optional.memo_write_if(b, "t1", "s1", "session", "N.md", hash, "v3", 2),
			 AC_ECONFLICT);
	OK(b->memo.read(b->impl, &text, &len, "t1", "s1", "session", "N.md"));
	assert_int_equal(len, 2);
	assert_memory_equal(text, "v2", 2);
	free(text);
	/* Expecting a document that is not there. */
	assert_int_equal(b->optional.memo_write_if(b, "t1", "s1", "session", "GONE.md", hash, "x",
						   1),
			 AC_ECONFLICT);
	assert_int_equal(b->memo.read(b->impl, &text, &len, "t1", "s1", "session", "GONE.md"),
			 AC_ENOTFOUND);
	assert_int_equal(b->optional.memo_write_if(b, "t1", "s1", "global", "N.md", NULL, "x", 1),
			 AC_EINVAL);
}

/* ---- 3. artifacts ---- */

static void expect_artifact_stream(const ac_backend *b, const char *tenant, const char *session,
				   const char *id)
{
	ac_buf streamed = AC_BUF_INIT;
	char *text = NULL;
	size_t len = 0;

	if (!b->artifact.stream)
		return;
	OK(b->artifact.read(b->impl, &text, &len, tenant, session, id));
	OK(b->artifact.stream(b->impl, gather_block, &streamed, tenant, session, id));
	assert_int_equal(streamed.len, len);
	assert_memory_equal(streamed.data, text, len);
	free(text);
	ac_buf_free(&streamed);
}

void conform_artifacts(const ac_backend *b)
{
	char *text = NULL, **ids = NULL;
	size_t len, n;
	static const char *const want[] = {"call_1", "toolu_2"};

	OK(b->artifact.list(b->impl, &ids, &n, "t1", "s1"));
	assert_int_equal(n, 0);
	ac_backend_names_free(ids, n);
	OK(b->artifact.write(b->impl, "t1", "s1", "toolu_2", "output two", 10));
	OK(b->artifact.write(b->impl, "t1", "s1", "call_1", "first", 5));
	OK(b->artifact.write(b->impl, "t1", "s1", "call_1", "output one", 10));
	OK(b->artifact.read(b->impl, &text, &len, "t1", "s1", "call_1"));
	assert_int_equal(len, 10);
	assert_string_equal(text, "output one");
	free(text);
	OK(b->artifact.list(b->impl, &ids, &n, "t1", "s1"));
	assert_true(names_equal(ids, n, want, 2));
	ac_backend_names_free(ids, n);
	assert_int_equal(b->artifact.read(b->impl, &text, &len, "t1", "s1", "nope"), AC_ENOTFOUND);
	assert_int_equal(b->artifact.read(b->impl, &text, &len, "t1", "s2", "call_1"), AC_ENOTFOUND);
	expect_artifact_stream(b, "t1", "s1", "call_1");
	if (b->artifact.stream)
		assert_int_equal(b->artifact.stream(b->impl, gather_block, NULL, "t1", "s2", "call_1"),
				 AC_ENOTFOUND);
}

/* ---- 4. the user session lister and 7. the inspector ---- */

void conform_listers(const ac_backend *b)
{
	char *a = conform_new_session(b, "t1", "u1", "sa"), *c = conform_new_session(b, "t1", "u2", "sc");
	char *d = conform_new_session(b, "t2", "u1", "sd");
	ac_backend_session_info *list = NULL;
	size_t n;

	OK(b->users.list(b->impl, &list, &n, "t1", "u1"));
	assert_int_equal(n, 1);
	assert_string_equal(list[0].session_id, "sa");
	assert_true(list[0].updated_at[0] != '\0');
	ac_backend_sessions_free(list, n);
	OK(b->users.list(b->impl, &list, &n, "t1", "u3"));
	assert_int_equal(n, 0);
	ac_backend_sessions_free(list, n);
	OK(b->inspector.list_sessions(b->impl, &list, &n, NULL));
	assert_int_equal(n, 3);
	ac_backend_sessions_free(list, n);
	OK(b->inspector.list_sessions(b->impl, &list, &n, "t2"));
	assert_int_equal(n, 1);
	assert_string_equal(list[0].tenant, "t2");
	assert_string_equal(list[0].session_id, "sd");
	assert_string_equal(list[0].user, "u1");
	ac_backend_sessions_free(list, n);
	free(a);
	free(c);
	free(d);
}

/* create: the task and tenancy as given, never an existing id (whatever
 * its tenant), and listings carry the task and creation time. */
void conform_create(const ac_backend *b)
{
	char *id = NULL, *fresh = NULL, *other = conform_new_session(b, "t2", "u9", "taken");
	ac_backend_session_info *list = NULL, info;
	size_t n = 0;
	json_t *doc = NULL;

	OK(b->session.create(b->impl, &id, "t1", "u1", "claude", "made", "fix \"the\" build"));
	assert_string_equal(id, "made");
	OK(b->session.get(b->impl, &doc, "t1", "made"));
	assert_string_equal(json_string_value(json_object_get(doc, "task")), "fix \"the\" build");
	assert_string_equal(json_string_value(json_object_get(doc, "status")), "running");
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "metadata"),
							      "tenantId")), "t1");
	assert_int_equal(json_array_size(json_object_get(doc, "conversationHistory")), 0);
	info = conform_find_info(b, "made", &list, &n);
	assert_string_equal(info.task, "fix \"the\" build");
	assert_string_equal(info.created_at, json_string_value(json_object_get(doc, "createdAt")));
	assert_int_equal(strlen(info.created_at), 24);
	ac_backend_sessions_free(list, n);
	json_decref(doc);
	/* Taken ids: nothing written, the session as it was. */
	assert_int_equal(b->session.create(b->impl, &fresh, "t1", "u1", "claude", "made", "other"),
			 AC_EINVAL);
	assert_null(fresh);
	assert_int_equal(b->session.create(b->impl, &fresh, "t1", "u1", "claude", "taken", "x"),
			 AC_EINVAL);
	info = conform_find_info(b, "made", &list, &n);
	assert_string_equal(info.task, "fix \"the\" build");
	ac_backend_sessions_free(list, n);
	info = conform_find_info(b, "taken", &list, &n);
	assert_string_equal(info.tenant, "t2");
	assert_string_equal(info.task, "");
	ac_backend_sessions_free(list, n);
	/* No id: a new one; no task: "". get_or_create's sessions list a "" task. */
	OK(b->session.create(b->impl, &fresh, "t1", NULL, NULL, NULL, NULL));
	assert_int_equal(strlen(fresh), 36);
	OK(b->users.list(b->impl, &list, &n, "t2", "u9"));
	assert_int_equal(n, 1);
	assert_string_equal(list[0].task, "");
	assert_true(list[0].created_at[0] != '\0');
	ac_backend_sessions_free(list, n);
	free(id);
	assert_int_equal(b->session.create(b->impl, &id, "../t", NULL, NULL, NULL, "x"), AC_EINVAL);
	/* A long task (more than a database keeps in its listing indexes),
	 * multi-byte characters too, is listed whole. */
	{
		char *task = conform_big(3000, 'x'), *made = NULL;

		memcpy(task + 100, "\xc3\xa9\xe2\x82\xac", 5);
		OK(b->session.create(b->impl, &made, "t1", NULL, NULL, "long", task));
		info = conform_find_info(b, "long", &list, &n);
		assert_string_equal(info.task, task);
		ac_backend_sessions_free(list, n);
		free(made);
		free(task);
	}
	assert_null(id);
	free(fresh);
	free(other);
}

/* ---- 5. the trace store ---- */

static int gather_record(const json_t *record, void *ctx)
{
	return json_array_append(ctx, (json_t *)record);
}

/* A backend's each walks exactly what load(after 0) returns. */
void conform_expect_each_as_load(const ac_backend *b, const char *tenant, const char *session)
{
	json_t *all = NULL, *walked = json_array();
	size_t skipped_load = 9, skipped_each = 9;

	if (!b->trace.each) {
		json_decref(walked);
		return;
	}
	OK(b->trace.load(b->impl, &all, &skipped_load, tenant, session, 0));
	OK(b->trace.each(b->impl, &skipped_each, gather_record, walked, tenant, session));
	assert_true(json_equal(all, walked));
	assert_int_equal(skipped_each, skipped_load);
	json_decref(all);
	json_decref(walked);
}

void conform_trace(const ac_backend *b)
{
	json_t *env, *all = NULL;
	uint64_t seq = 0;
	size_t skipped = 9;

	OK(b->trace.load(b->impl, &all, &skipped, "t1", "s1", 0));
	assert_int_equal(json_array_size(all), 0);
	assert_int_equal(skipped, 0);
	json_decref(all);
	conform_expect_each_as_load(b, "t1", "s1");
	for (int i = 1; i <= 3; i++) {
		env = json_pack("{s:s, s:i, s:s}", "type", "step", "i", i, "text", "line\nbreak");
		OK(b->trace.append(b->impl, &seq, "t1", "s1", env));
		assert_int_equal(seq, (uint64_t)i);
		json_decref(env);
	}
	OK(b->trace.load(b->impl, &all, NULL, "t1", "s1", 0));
	assert_int_equal(json_array_size(all), 3);
	for (size_t i = 0; i < 3; i++) {
		json_t *r = json_array_get(all, i);

		assert_int_equal(json_integer_value(json_object_get(r, "seq")), (json_int_t)i + 1);
		assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "data"), "i")),
				 (json_int_t)i + 1);
		assert_string_equal(json_string_value(json_object_get(json_object_get(r, "data"), "text")),
				    "line\nbreak");
		assert_non_null(json_string_value(json_object_get(r, "at")));
	}
	json_decref(all);
	OK(b->trace.load(b->impl, &all, NULL, "t1", "s1", 2));
	assert_int_equal(json_array_size(all), 1);
	json_decref(all);
	conform_expect_each_as_load(b, "t1", "s1");
	env = json_string("not an object");
	assert_int_equal(b->trace.append(b->impl, NULL, "t1", "s1", env), AC_EINVAL);
	json_decref(env);
}

/* A long trace (well past one 64 KiB read-back window): what comes after a
 * seq is exactly the later records, in order. */
void conform_long_trace(const ac_backend *b)
{
	json_t *env, *all = NULL;
	uint64_t seq = 0;

	for (int i = 1; i <= 1500; i++) {
		env = json_pack("{s:s, s:i, s:s}", "type", "step", "i", i, "text",
				"a line long enough that fifteen hundred of them fill several windows");
		OK(b->trace.append(b->impl, &seq, "t1", "long", env));
		json_decref(env);
	}
	{
		static const uint64_t after[] = {1499, 1450, 700, 3, 0};

		for (size_t k = 0; k < sizeof(after) / sizeof(after[0]); k++) {
			OK(b->trace.load(b->impl, &all, NULL, "t1", "long", after[k]));
			assert_int_equal(json_array_size(all), 1500 - after[k]);
			assert_int_equal(json_integer_value(json_object_get(json_array_get(all, 0), "seq")),
					 (json_int_t)after[k] + 1);
			assert_int_equal(json_integer_value(json_object_get(
				json_array_get(all, json_array_size(all) - 1), "seq")), 1500);
			json_decref(all);
		}
	}
	assert_int_equal(seq, 1500);
	conform_expect_each_as_load(b, "t1", "long");
}

/* ---- 6. orchestration ---- */

static json_int_t sum_events(const json_t *records)
{
	json_int_t sum = 0;
	json_t *r;
	size_t i;

	json_array_foreach(records, i, r)
		sum += json_integer_value(json_object_get(json_object_get(r, "data"), "add"));
	return sum;
}

void conform_orchestration(const ac_backend *b)
{
	json_t *event, *events = NULL, *state = NULL;
	uint64_t seq = 0, covers = 0;

	assert_int_equal(b->orch.load_snapshot(b->impl, &state, &covers, "t1", "run1"), AC_ENOTFOUND);
	for (int i = 1; i <= 5; i++) {
		event = json_pack("{s:s, s:i}", "type", "add", "add", i);
		OK(b->orch.append_event(b->impl, &seq, "t1", "run1", event));
		json_decref(event);
	}
	assert_int_equal(seq, 5);
	/* A snapshot after event 3: the running sum 1+2+3. */
	state = json_pack("{s:i}", "sum", 6);
	OK(b->orch.write_snapshot(b->impl, "t1", "run1", 3, state));
	/* Snapshots never go back, nor past the last event. */
	assert_int_equal(b->orch.write_snapshot(b->impl, "t1", "run1", 2, state), AC_ECONFLICT);
	assert_int_equal(b->orch.write_snapshot(b->impl, "t1", "run1", 9, state), AC_EINVAL);
	json_decref(state);
	for (int i = 6; i <= 7; i++) {
		event = json_pack("{s:s, s:i}", "type", "add", "add", i);
		OK(b->orch.append_event(b->impl, &seq, "t1", "run1", event));
		json_decref(event);
	}
	/* "After a crash": rebuild from storage alone. */
	state = NULL;
	OK(b->orch.load_snapshot(b->impl, &state, &covers, "t1", "run1"));
	assert_int_equal(covers, 3);
	OK(b->orch.load_events(b->impl, &events, NULL, "t1", "run1", covers));
	assert_int_equal(json_array_size(events), 4);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(events, 0), "seq")), 4);
	assert_int_equal(json_integer_value(json_object_get(state, "sum")) + sum_events(events), 28);
	json_decref(events);
	json_decref(state);
	OK(b->orch.load_events(b->impl, &events, NULL, "t1", "run1", 0));
	assert_int_equal(json_array_size(events), 7);
	assert_int_equal(sum_events(events), 28);
	json_decref(events);
}

/* ---- tenant isolation ---- */

void conform_tenant_isolation(const ac_backend *b)
{
	char *a = conform_new_session(b, "acme", "u1", "shared-id"), *text = NULL, *id = NULL, **names = NULL;
	json_t *m = conform_msgs("[{\"role\":\"user\",\"content\":\"mine\"}]"), *out = NULL;
	ac_backend_session_info *list = NULL;
	ac_usage usage = {1, 1, NULL};
	size_t len, n;
	uint64_t covers;

	OK(b->session.append(b->impl, "acme", a, m));
	OK(b->memo.write(b->impl, "acme", "u1", "user", "USER.md", "secret", 6));
	OK(b->artifact.write(b->impl, "acme", a, "call_1", "secret", 6));
	OK(b->trace.append(b->impl, NULL, "acme", a, json_array_get(m, 0)));
	OK(b->orch.append_event(b->impl, NULL, "acme", "run1", json_array_get(m, 0)));
	OK(b->orch.write_snapshot(b->impl, "acme", "run1", 1, m));

	/* Another tenant cannot see, load, change or take over the session. */
	assert_int_equal(b->session.get_or_create(b->impl, &id, "evil", "u1", "x", a), AC_ENOTFOUND);
	assert_int_equal(b->session.load_all(b->impl, &out, "evil", a), AC_ENOTFOUND);
	assert_int_equal(b->session.load_last(b->impl, &out, "evil", a, 5), AC_ENOTFOUND);
	assert_int_equal(b->session.load_within(b->impl, &out, "evil", a, 1000), AC_ENOTFOUND);
	assert_int_equal(b->session.append(b->impl, "evil", a, m), AC_ENOTFOUND);
	assert_int_equal(b->session.record_turn(b->impl, "evil", a, m, &usage), AC_ENOTFOUND);
	assert_int_equal(b->session.compact_if_needed(b->impl, NULL, "evil", a, NULL), AC_ENOTFOUND);
	assert_int_equal(conform_history_size(b, "acme", a), 1);
	assert_int_equal(turns_of(b, a), 0);
	/* Its memo, artifacts, trace and runs are not there for it. */
	assert_int_equal(b->memo.read(b->impl, &text, &len, "evil", "u1", "user", "USER.md"),
			 AC_ENOTFOUND);
	assert_int_equal(b->artifact.read(b->impl, &text, &len, "evil", a, "call_1"), AC_ENOTFOUND);
	OK(b->artifact.list(b->impl, &names, &n, "evil", a));
	assert_int_equal(n, 0);
	ac_backend_names_free(names, n);
	OK(b->trace.load(b->impl, &out, NULL, "evil", a, 0));
	assert_int_equal(json_array_size(out), 0);
	json_decref(out);
	OK(b->orch.load_events(b->impl, &out, NULL, "evil", "run1", 0));
	assert_int_equal(json_array_size(out), 0);
	json_decref(out);
	assert_int_equal(b->orch.load_snapshot(b->impl, &out, &covers, "evil", "run1"), AC_ENOTFOUND);
	OK(b->users.list(b->impl, &list, &n, "evil", "u1"));
	assert_int_equal(n, 0);
	ac_backend_sessions_free(list, n);
	OK(b->inspector.list_sessions(b->impl, &list, &n, "evil"));
	assert_int_equal(n, 0);
	ac_backend_sessions_free(list, n);
	/* Its writes land in its own space and leave acme's data alone. */
	OK(b->memo.write(b->impl, "evil", "u1", "user", "USER.md", "overwritten", 11));
	OK(b->artifact.write(b->impl, "evil", a, "call_1", "overwritten", 11));
	OK(b->memo.read(b->impl, &text, &len, "acme", "u1", "user", "USER.md"));
	assert_string_equal(text, "secret");
	free(text);
	OK(b->artifact.read(b->impl, &text, &len, "acme", a, "call_1"));
	assert_string_equal(text, "secret");
	free(text);
	json_decref(m);
	free(a);
}

/* Ids crafted to leave a tenant's space, or to make a bad file name. */
void conform_crafted_ids(const ac_backend *b)
{
	static char long_id[5000], just_over[AC_BACKEND_ID_MAX + 2], at_max[AC_BACKEND_ID_MAX + 1];
	const char *bad[] = {NULL, "", ".", "..", "../acme", "../../../../tmp/x", "/etc/passwd",
			     "/tmp", "a/b", "acme/../evil", "x\ty", "\x1b[2J", "nl\n", "del\x7f",
			     ".hidden", "x.lock", "x.tmp", long_id, just_over};
	json_t *m = conform_msgs("[{\"role\":\"user\",\"content\":\"x\"}]"), *obj = json_object(), *out = NULL;
	char *text = NULL, *id = NULL, **names = NULL;
	ac_backend_session_info *list = NULL;
	ac_usage usage = {1, 1, NULL};
	size_t len, n;
	uint64_t seq;

	memset(long_id, 'a', sizeof(long_id) - 1);
	memset(just_over, 'b', sizeof(just_over) - 1);
	memset(at_max, 'c', sizeof(at_max) - 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *x = bad[i];

#define BAD(call) assert_int_equal((call), AC_EINVAL)
		BAD(b->session.get_or_create(b->impl, &id, x, "u", "a", NULL));
		if (x) {
			BAD(b->session.get_or_create(b->impl, &id, "t", x, "a", NULL));
			BAD(b->session.get_or_create(b->impl, &id, "t", "u", x, NULL));
			BAD(b->session.get_or_create(b->impl, &id, "t", "u", "a", x));
		}
		BAD(b->session.load_all(b->impl, &out, x, "s"));
		BAD(b->session.load_all(b->impl, &out, "t", x));
		BAD(b->session.load_last(b->impl, &out, "t", x, 3));
		BAD(b->session.load_within(b->impl, &out, "t", x, 10));
		BAD(b->session.append(b->impl, x, "s", m));
		BAD(b->session.append(b->impl, "t", x, m));
		BAD(b->session.record_turn(b->impl, "t", x, m, &usage));
		BAD(b->session.compact_if_needed(b->impl, NULL, x, "s", NULL));
		BAD(b->session.compact_if_needed(b->impl, NULL, "t", x, NULL));
		BAD(b->memo.write(b->impl, x, "o", "user", "N.md", "x", 1));
		BAD(b->memo.write(b->impl, "t", x, "user", "N.md", "x", 1));
		BAD(b->memo.write(b->impl, "t", "o", x, "N.md", "x", 1));
		BAD(b->memo.write(b->impl, "t", "o", "user", x, "x", 1));
		BAD(b->memo.append(b->impl, "t", "o", "user", x, "x", 1));
		BAD(b->memo.append(b->impl, x, "o", "user", "N.md", "x", 1));
		BAD(b->memo.read(b->impl, &text, &len, "t", x, "user", "N.md"));
		BAD(b->memo.list(b->impl, &names, &n, x, "o", "user"));
		BAD(b->artifact.write(b->impl, x, "s", "c", "x", 1));
		BAD(b->artifact.write(b->impl, "t", x, "c", "x", 1));
		BAD(b->artifact.write(b->impl, "t", "s", x, "x", 1));
		BAD(b->artifact.read(b->impl, &text, &len, "t", "s", x));
		BAD(b->artifact.list(b->impl, &names, &n, "t", x));
		BAD(b->trace.append(b->impl, &seq, x, "s", obj));
		BAD(b->trace.append(b->impl, &seq, "t", x, obj));
		BAD(b->trace.load(b->impl, &out, NULL, "t", x, 0));
		BAD(b->orch.append_event(b->impl, &seq, x, "r", obj));
		BAD(b->orch.append_event(b->impl, &seq, "t", x, obj));
		BAD(b->orch.load_events(b->impl, &out, NULL, "t", x, 0));
		BAD(b->orch.write_snapshot(b->impl, "t", x, 0, obj));
		BAD(b->orch.load_snapshot(b->impl, &out, &seq, x, "r"));
		BAD(b->users.list(b->impl, &list, &n, x, "u"));
		BAD(b->users.list(b->impl, &list, &n, "t", x));
		if (x)
			BAD(b->inspector.list_sessions(b->impl, &list, &n, x));
#undef BAD
	}
	/* The longest id allowed works everywhere. */
	free(conform_new_session(b, at_max, at_max, at_max));
	OK(b->memo.write(b->impl, at_max, at_max, "session", at_max, "x", 1));
	OK(b->memo.append(b->impl, at_max, at_max, "session", at_max, "y", 1));
	OK(b->artifact.write(b->impl, at_max, at_max, at_max, "x", 1));
	OK(b->trace.append(b->impl, &seq, at_max, at_max, obj));
	OK(b->orch.append_event(b->impl, &seq, at_max, at_max, obj));
	OK(b->orch.write_snapshot(b->impl, at_max, at_max, 1, obj));
	assert_int_equal(conform_history_size(b, at_max, at_max), 0);
	json_decref(m);
	json_decref(obj);
}

/* ---- two processes at once ---- */

#define PER_CHILD 100

static void run_children(void (*body)(const ac_backend *, int), const ac_backend *b)
{
	pid_t pids[2];
	int status;

	for (int k = 0; k < 2; k++) {
		pids[k] = fork();
		assert_true(pids[k] >= 0);
		if (pids[k] == 0) {
			body(b, k);
			_exit(0);
		}
	}
	for (int k = 0; k < 2; k++) {
		assert_int_equal(waitpid(pids[k], &status, 0), pids[k]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
}

static void memo_appender(const ac_backend *b, int k)
{
	char line[32];

	for (int i = 0; i < PER_CHILD; i++) {
		int len = snprintf(line, sizeof(line), "p%d-%03d\n", k, i);

		if (b->memo.append(b->impl, "t1", "s1", "session", "NOTES.md", line, (size_t)len))
			_exit(1);
	}
}

void conform_concurrent_memo_appends(const ac_backend *b)
{
	char *text = NULL, line[32];
	size_t len, lines = 0;

	run_children(memo_appender, b);
	OK(b->memo.read(b->impl, &text, &len, "t1", "s1", "session", "NOTES.md"));
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	assert_int_equal(lines, 2 * PER_CHILD);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < PER_CHILD; i++) {
			char *at;

			snprintf(line, sizeof(line), "p%d-%03d\n", k, i);
			at = strstr(text, line);
			assert_non_null(at);
			assert_null(strstr(at + 1, line));
		}
	free(text);
}

/* Each adds its lines one at a time as a read, then a memo_write_if of
 * what it read plus its line, again on a conflict: a counter kept by
 * compare-and-swap. A compare and a write in two steps loses lines. */
static void memo_swapper(const ac_backend *b, int k)
{
	char hash[AC_SHA256_HEX_LEN + 1], line[32];

	for (int i = 0; i < PER_CHILD; i++) {
		int len = snprintf(line, sizeof(line), "p%d-%03d\n", k, i), rc;

		do {
			ac_buf next = AC_BUF_INIT;
			char *text = NULL;
			size_t n = 0;

			rc = b->memo.read(b->impl, &text, &n, "t1", "s1", "session", "CAS.md");
			if (rc && rc != AC_ENOTFOUND)
				_exit(1);
			if (rc == 0)
				ac_sha256_hex(hash, text, n);
			if ((text && ac_buf_append(&next, text, n)) ||
			    ac_buf_append(&next, line, (size_t)len))
				_exit(1);
			rc = b->optional.memo_write_if(b, "t1", "s1", "session", "CAS.md",
						       text ? hash : NULL, next.data, next.len);
			free(text);
			ac_buf_free(&next);
		} while (rc == AC_ECONFLICT);
		if (rc)
			_exit(1);
	}
}

void conform_concurrent_memo_write_if(const ac_backend *b)
{
	char *text = NULL, line[32];
	size_t len, lines = 0;

	if (!b->optional.memo_write_if)
		skip();
	run_children(memo_swapper, b);
	OK(b->memo.read(b->impl, &text, &len, "t1", "s1", "session", "CAS.md"));
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	assert_int_equal(lines, 2 * PER_CHILD);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < PER_CHILD; i++) {
			snprintf(line, sizeof(line), "p%d-%03d\n", k, i);
			assert_non_null(strstr(text, line));
		}
	free(text);
}

static void trace_appender(const ac_backend *b, int k)
{
	for (int i = 0; i < PER_CHILD; i++) {
		json_t *env = json_pack("{s:i, s:i}", "p", k, "i", i);
		int rc = b->trace.append(b->impl, NULL, "t1", "s1", env);

		json_decref(env);
		if (rc)
			_exit(1);
	}
}

void conform_concurrent_trace_appends(const ac_backend *b)
{
	bool seen[2][PER_CHILD] = {{false}};
	json_t *all = NULL, *r;
	json_int_t last = 0;
	size_t i;

	run_children(trace_appender, b);
	OK(b->trace.load(b->impl, &all, NULL, "t1", "s1", 0));
	assert_int_equal(json_array_size(all), 2 * PER_CHILD);
	json_array_foreach(all, i, r) {
		json_int_t seq = json_integer_value(json_object_get(r, "seq"));
		json_t *data = json_object_get(r, "data");
		json_int_t p = json_integer_value(json_object_get(data, "p"));
		json_int_t k = json_integer_value(json_object_get(data, "i"));

		assert_true(seq > last); /* strictly increasing: no duplicates */
		last = seq;
		assert_false(seen[p][k]);
		seen[p][k] = true;
	}
	json_decref(all);
}

/* ---- a crash between the two writes of one call ---- */

/* Runs record_turn in a child that arm() may make die half-way; returns
 * the child's wait status. Whatever happened, the session loads, and a
 * counted turn never lacks its messages. */
int conform_crash_in_record_turn(const ac_backend *b, void (*arm)(void))
{
	char *id = conform_new_session(b, "t1", "u1", "crashy");
	json_t *turn = conform_msgs("[{\"role\":\"user\",\"content\":\"q\"},{\"role\":\"assistant\",\"content\":\"a\"}]");
	ac_usage usage = {10, 20, NULL};
	size_t before, after;
	uint64_t turns;
	int status;
	pid_t pid;

	OK(b->session.record_turn(b->impl, "t1", id, turn, &usage));
	before = conform_history_size(b, "t1", id);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (arm)
			arm();
		_exit(b->session.record_turn(b->impl, "t1", id, turn, &usage) ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	after = conform_history_size(b, "t1", id); /* it loads */
	turns = turns_of(b, id);
	assert_true(after == before || after == before + 2);
	assert_true(turns == 1 || turns == 2);
	if (turns == 2)
		assert_int_equal(after, before + 2);
	/* And it goes on working. */
	OK(b->session.record_turn(b->impl, "t1", id, turn, &usage));
	assert_int_equal(turns_of(b, id), turns + 1);
	json_decref(turn);
	free(id);
	return status;
}

/* ---- compaction: large tool results to artifacts ---- */

typedef struct {
	int calls;
	size_t messages;
} summary_seen;

static int test_summarizer(char **out, const json_t *messages, void *ctx)
{
	summary_seen *seen = ctx;

	seen->calls++;
	seen->messages = json_array_size(messages);
	*out = strdup("the early part");
	return 0;
}

char *conform_big(size_t n, char c)
{
	char *s = malloc(n + 1);

	memset(s, c, n);
	s[n] = '\0';
	return s;
}

void conform_compaction_externalizes(const ac_backend *b)
{
	char *id = conform_new_session(b, "t1", "u1", "long"), *x = conform_big(10000, 'x'), *y = conform_big(5000, 'y');
	char *text = NULL, **ids = NULL, expected[200];
	json_t *m, *all = NULL, *block;
	ac_backend_compact_options opts;
	ac_backend_compact_result r;
	summary_seen seen = {0};
	size_t len, n;
	static const char *const want[] = {"call_2", "toolu_big"};

	m = json_pack("[{s:s, s:s}, {s:s, s:[{s:s, s:s, s:s, s:{}}]},"
		      " {s:s, s:[{s:s, s:s, s:s}]}, {s:s, s:s, s:s},"
		      " {s:s, s:s, s:s}, {s:s, s:s}]",
		      "role", "user", "content", "read the big file",
		      "role", "assistant", "content", "type", "tool_use", "id", "toolu_big", "name", "read", "input",
		      "role", "user", "content", "type", "tool_result", "tool_use_id", "toolu_big", "content", x,
		      "role", "tool", "toolCallId", "call_2", "content", y,
		      "role", "tool", "toolCallId", "call_small", "content", "small output",
		      "role", "assistant", "content", "done");
	OK(b->session.append(b->impl, "t1", id, m));
	json_decref(m);

	/* Below the trigger: only the large results move. */
	ac_backend_compact_options_init(&opts);
	OK(b->session.compact_if_needed(b->impl, &r, "t1", id, &opts));
	assert_int_equal(r.externalized, 2);
	assert_int_equal(r.artifact_bytes, 15000);
	assert_false(r.compacted);
	assert_true(r.tokens_after < r.tokens_before);
	OK(b->session.load_all(b->impl, &all, "t1", id));
	assert_int_equal(json_array_size(all), 6);
	block = json_array_get(json_object_get(json_array_get(all, 2), "content"), 0);
	snprintf(expected, sizeof(expected),
		 "[artifact toolu_big: 10000 bytes; agentctl artifact show long toolu_big]");
	assert_string_equal(json_string_value(json_object_get(block, "content")), expected);
	assert_string_equal(json_string_value(json_object_get(block, "tool_use_id")), "toolu_big");
	assert_string_equal(json_string_value(json_object_get(json_array_get(all, 4), "content")),
			    "small output");
	json_decref(all);
	/* Nothing lost: the artifacts hold the full outputs. */
	OK(b->artifact.read(b->impl, &text, &len, "t1", id, "toolu_big"));
	assert_int_equal(len, 10000);
	assert_string_equal(text, x);
	free(text);
	OK(b->artifact.read(b->impl, &text, &len, "t1", id, "call_2"));
	assert_string_equal(text, y);
	free(text);
	OK(b->artifact.list(b->impl, &ids, &n, "t1", id));
	assert_true(names_equal(ids, n, want, 2));
	ac_backend_names_free(ids, n);
	/* Again: nothing left to move. */
	OK(b->session.compact_if_needed(b->impl, &r, "t1", id, &opts));
	assert_int_equal(r.externalized, 0);

	/* Forced, with the caller's summariser. */
	opts.compact.force = true;
	opts.compact.summarize = test_summarizer;
	opts.compact.summarize_ctx = &seen;
	OK(b->session.compact_if_needed(b->impl, &r, "t1", id, &opts));
	assert_true(r.compacted);
	assert_int_equal(seen.calls, 1);
	assert_int_equal(seen.messages, r.summarized);
	OK(b->session.load_all(b->impl, &all, "t1", id));
	assert_int_equal(json_array_size(all), 6 - r.summarized + 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(all, 0), "content")),
			    "[Conversation summary]: the early part");
	json_decref(all);
	free(x);
	free(y);
	free(id);
}
/* ---- the runner ---- */

static const ac_backend_factory *factory;

typedef struct {
	ac_backend backend;
} conform_case;

static int make_case(void **state)
{
	conform_case *c = calloc(1, sizeof(*c));

	if (!c || factory->make(&c->backend, factory->ctx) != 0) {
		free(c);
		return -1;
	}
	*state = c;
	return 0;
}

static int release_case(void **state)
{
	conform_case *c = *state;

	factory->release(&c->backend, factory->ctx);
	free(c);
	return 0;
}

#define CASE(check)                                                                \
	static void case_##check(void **state)                                     \
	{                                                                          \
		conform_##check(&((conform_case *)*state)->backend);               \
	}

CASE(session_store)
CASE(memo)
CASE(artifacts)
CASE(listers)
CASE(trace)
CASE(long_trace)
CASE(orchestration)
CASE(tenant_isolation)
CASE(crafted_ids)
CASE(concurrent_memo_appends)
CASE(memo_write_if)
CASE(concurrent_memo_write_if)
CASE(concurrent_trace_appends)
CASE(compaction_externalizes)
CASE(get_and_status)
CASE(create)
CASE(turn_usage_rows)
CASE(turn_usage_empty)
CASE(create_document)

/* Not armed: the child records its turn while the parent waits; the turn
 * is whole and counted once. */
static void case_record_turn_in_child(void **state)
{
	int status = conform_crash_in_record_turn(&((conform_case *)*state)->backend, NULL);

	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int ac_backend_conformance_run(const ac_backend_factory *f)
{
#define RUN(name) cmocka_unit_test_setup_teardown(case_##name, make_case, release_case)
	const struct CMUnitTest tests[] = {
		RUN(session_store),
		RUN(memo),
		RUN(artifacts),
		RUN(listers),
		RUN(trace),
		RUN(long_trace),
		RUN(orchestration),
		RUN(tenant_isolation),
		RUN(crafted_ids),
		RUN(concurrent_memo_appends),
		RUN(memo_write_if),
		RUN(concurrent_memo_write_if),
		RUN(concurrent_trace_appends),
		RUN(record_turn_in_child),
		RUN(compaction_externalizes),
		RUN(get_and_status),
		RUN(create),
		RUN(turn_usage_rows),
		RUN(turn_usage_empty),
		RUN(create_document),
	};
#undef RUN

	factory = f;
	return _cmocka_run_group_tests(f->name, tests, sizeof(tests) / sizeof(tests[0]), NULL, NULL);
}
