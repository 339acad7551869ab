/* The file-system backend's compaction: large tool results to artifacts,
 * then the oldest messages to a summary, each step written before the
 * next begins so that a crash never leaves a reference to nothing.
 *
 * The summary step is ac_compact.h's (same plan, same archive folder, same
 * summary message and metadata.compactions record) with two differences
 * that keep it here: the summariser may be a callback, and every change is
 * judged against the session's tenant on the file's current content. */
#include "ac_backend_fs_impl.h"

#include "ac_backend_check.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_compact.h"
#include "ac_compact_impl.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_file.h"
#include "ac_messages.h"
#include "ac_session.h"
#include "ac_time.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	ac_backend_fs *fs;
	const char *tenant;
	const char *session_id;
	size_t threshold;
	json_t *moved;   /* id -> {"content": the original, "bytes": N} */
	ac_backend_compact_result *out;
} externalize;

/* Pass 1, on a loaded copy: stores each large output as an artifact. */
static int store_large(json_t *holder, const char *id, void *ctx)
{
	externalize *x = ctx;
	json_t *content = json_object_get(holder, "content");
	size_t len = 0;
	char *bytes;
	int rc;

	/* One artifact per id: a second large result under the same id (or
	 * an id no file can be named after) stays inline; nothing is lost. */
	if (json_object_get(x->moved, id) || ac_backend_id_check("tool call id", id) != 0)
		return 0;
	if (json_is_string(content) && json_string_length(content) <= x->threshold)
		return 0;
	if (!(bytes = ac_backend_tool_output(content, &len)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (len <= x->threshold) {
		free(bytes);
		return 0;
	}
	rc = ac_backend_fs_artifact_put(x->fs, x->tenant, x->session_id, id, bytes, len);
	free(bytes);
	if (rc == AC_ECONFLICT)
		return 0;
	if (rc)
		return rc;
	if (json_object_set_new(x->moved, id, json_pack("{s:O, s:I}", "content", content, "bytes",
							(json_int_t)len)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

/* Pass 2, on the file's current content: swaps each stored output, if it
 * is still there unchanged, for a reference to its artifact. */
static int reference_stored(json_t *holder, const char *id, void *ctx)
{
	externalize *x = ctx;
	json_t *moved = json_object_get(x->moved, id);
	json_int_t bytes = json_integer_value(json_object_get(moved, "bytes"));
	ac_buf ref = AC_BUF_INIT;
	int rc = 0;

	if (!moved || !json_equal(json_object_get(holder, "content"), json_object_get(moved, "content")))
		return 0;
	if (ac_backend_artifact_reference(&ref, id, (uint64_t)bytes, x->session_id) ||
	    json_object_set_new(holder, "content", json_string(ref.data)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	if (!rc) {
		x->out->externalized++;
		x->out->artifact_bytes += (uint64_t)bytes;
	}
	ac_buf_free(&ref);
	return rc;
}

static int externalize_owned(json_t *root, void *ctx)
{
	externalize *x = ctx;
	int rc;

	/* Re-applied from scratch on fresh content: the counts too. */
	x->out->externalized = 0;
	x->out->artifact_bytes = 0;
	if ((rc = ac_backend_fs_owned(root, x->tenant, x->session_id)))
		return rc;
	return ac_backend_each_tool_result(json_object_get(root, "conversationHistory"),
					   reference_stored, x);
}

/* ---- summarising: ac_compact_session() with the tenant guarded ---- */

typedef struct {
	ac_backend_fs *fs;
	const char *tenant;
	const char *session_id;
} compact_ctx;

static int guard_owned(const json_t *root, void *ctx)
{
	const compact_ctx *c = ctx;

	return ac_backend_fs_owned(root, c->tenant, c->session_id);
}

static void reached_archive(void *ctx)
{
	const compact_ctx *c = ctx;

	ac_backend_fs_reached(c->fs, AC_BACKEND_FS_AFTER_ARCHIVE);
}

static int summarize_if_needed(ac_backend_fs *fs, ac_backend_compact_result *out,
			       const char *tenant, const char *session_id,
			       const ac_backend_compact_options *opts)
{
	compact_ctx ctx = {fs, tenant, session_id};
	ac_compact_options core;
	ac_compact_result r;
	ac_session *s = NULL;
	int rc;

	/* Refuse another tenant's session before anything runs. */
	if ((rc = ac_backend_fs_load_owned(&s, fs, tenant, session_id)))
		return rc;
	ac_session_free(s);
	/* The caller's options, with the tenant guarded and the test seam. */
	core = opts->compact;
	if (core.summarizer_timeout_ms <= 0)
		core.summarizer_timeout_ms = AC_COMPACT_SUMMARIZER_TIMEOUT_MS;
	core.guard = guard_owned;
	core.guard_ctx = &ctx;
	core.after_archive = reached_archive;
	core.after_archive_ctx = &ctx;
	rc = ac_compact_session(&r, fs->sessions_dir, session_id, &core);
	out->messages_before = r.messages_before;
	out->messages_after = r.needed ? r.messages_after : r.messages_before;
	out->tokens_after = r.needed ? r.tokens_after : r.tokens_before;
	out->compacted = rc == 0 && r.needed;
	out->summarized = out->compacted ? r.summarized : 0;
	out->why_not = r.needed ? NULL : r.why_not;
	ac_compact_result_free(&r);
	return rc;
}

/* Step 1: each tool result over threshold to an artifact of tenant's
 * session, the artifacts durably first, then the references to them. */
static int externalize_large(ac_backend_fs *fs, ac_backend_compact_result *out,
			     const char *tenant, const char *session_id, size_t threshold)
{
	externalize x = {0};
	ac_session *s = NULL;
	json_t *copy = NULL;
	int rc;

	if ((rc = ac_backend_fs_load_owned(&s, fs, tenant, session_id)))
		return rc;
	out->tokens_before = ac_session_tokens(s, SIZE_MAX);
	x = (externalize){fs, tenant, session_id, threshold, json_object(), out};
	copy = json_deep_copy(ac_session_messages(s));
	if (!x.moved || !copy) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = ac_backend_each_tool_result(copy, store_large, &x)))
		goto done;
	if (json_object_size(x.moved)) {
		ac_backend_fs_reached(fs, AC_BACKEND_FS_AFTER_ARTIFACTS);
		if ((rc = ac_session_update(NULL, fs->sessions_dir, session_id, externalize_owned, &x)))
			goto done;
		ac_backend_fs_reached(fs, AC_BACKEND_FS_AFTER_EXTERNALIZE);
	}
done:
	json_decref(copy);
	json_decref(x.moved);
	ac_session_free(s);
	return rc;
}

int ac_backend_fs_compact(void *impl, ac_backend_compact_result *out, const char *tenant,
			  const char *session_id, const ac_backend_compact_options *opts)
{
	ac_backend_compact_options defaults;
	ac_backend_compact_result ignored;
	int rc;

	if ((rc = ac_backend_compact_begin(&opts, &defaults, &out, &ignored, tenant,
					   session_id)) ||
	    (rc = externalize_large(impl, out, tenant, session_id, opts->artifact_threshold)))
		return rc;
	return summarize_if_needed(impl, out, tenant, session_id, opts);
}

/* Counts the tool results over the threshold (ctx: {threshold, count}). */
static int count_large(json_t *holder, const char *id, void *ctx)
{
	size_t *c = ctx, len = 0;
	char *bytes = ac_backend_tool_output(json_object_get(holder, "content"), &len);

	(void)id;
	if (!bytes)
		return ac_error_set(AC_ENOMEM, "out of memory");
	free(bytes);
	c[1] += len > c[0];
	return 0;
}

/* False when no message of the session file's history is longer, as
 * text, than threshold: then no tool result in it is either, and the
 * session need not be parsed whole (a compaction from the text stays in
 * the memory of its text). True when unsure. */
static bool may_hold_large(const char *sessions_dir, const char *session_id, size_t threshold)
{
	ac_buf path = AC_BUF_INIT;
	ac_history_text h;
	ac_json_cursor cursor;
	ac_json_span value;
	char *text = NULL;
	size_t len = 0;
	bool large = true;

	if (!ac_buf_printf(&path, "%s/%s.json", sessions_dir, session_id) &&
	    !ac_file_read(&text, &len, path.data) && ac_history_text_find(&h, text, len, path.data)) {
		large = false;
		ac_json_cursor_init(&cursor, &h.span);
		while (!large && ac_json_cursor_next(&cursor, NULL, &value))
			large = value.len > threshold;
	}
	ac_error_clear();
	free(text);
	ac_buf_free(&path);
	return large;
}

int ac_backend_fs_externalize_session(ac_backend_compact_result *out, size_t *out_stayed,
				      const ac_backend_fs_options *opts, const char *session_id,
				      size_t threshold)
{
	ac_backend b = {0};
	ac_session *s = NULL;
	const char *tenant;
	size_t counter[2] = {threshold, 0};
	int rc;

	*out = (ac_backend_compact_result){0};
	*out_stayed = 0;
	if (!may_hold_large(opts->sessions_dir, session_id, threshold))
		return 0;
	if ((rc = ac_session_load(&s, opts->sessions_dir, session_id)))
		return rc;
	tenant = json_string_value(
		json_object_get(json_object_get(ac_session_root(s), "metadata"), "tenantId"));
	if (!tenant || ac_backend_id_check("tenant", tenant) != 0) {
		/* Artifacts are kept per tenant: a session of none keeps its
		 * results inline (the compaction archive has them whole). */
		ac_error_clear();
		rc = ac_backend_each_tool_result(ac_session_messages(s), count_large, counter);
		*out_stayed = counter[1];
		goto done;
	}
	if (!(rc = ac_backend_fs_init(&b, opts)))
		rc = externalize_large(b.impl, out, tenant, session_id, threshold);
done:
	ac_backend_close(&b);
	ac_session_free(s);
	return rc;
}
