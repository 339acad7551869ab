/* The file-system backend's compaction: large tool results to artifacts,
 * then the oldest messages to a summary, each step written before the
 * next begins so that a crash never leaves a reference to nothing.
 *
 * The summary step is ac_compact.h's (same plan, same archive folder, same
 * summary message and metadata.compactions record) with two differences
 * that keep it here: the summariser may be a callback, and every change is
 * judged against the session's tenant on the file's current content. */
#define AC_BACKEND_FS_INTERNAL
#include "ac_backend.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_compact.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_messages.h"
#include "ac_session.h"
#include "ac_time.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- finding tool results ---- */

/* Called with the object whose "content" is a tool result's output (a
 * tool_result block, or a role "tool" message) and the tool-call id. */
typedef int (*result_fn)(json_t *holder, const char *id, void *ctx);

static int each_result(json_t *messages, result_fn fn, void *ctx)
{
	json_t *msg, *block;
	size_t i, j;
	int rc;

	json_array_foreach(messages, i, msg) {
		json_t *content = json_object_get(msg, "content");
		const char *id = json_string_value(json_object_get(msg, "toolCallId"));

		if (!id)
			id = json_string_value(json_object_get(msg, "tool_call_id"));
		if (id && !strcmp(ac_message_role(msg), "tool") && content) {
			if ((rc = fn(msg, id, ctx)))
				return rc;
			continue; /* its content is the result (fn may have replaced it) */
		}
		if (!json_is_array(content))
			continue;
		json_array_foreach(content, j, block) {
			const char *type = json_string_value(json_object_get(block, "type"));

			id = json_string_value(json_object_get(block, "tool_use_id"));
			if (type && id && !strcmp(type, "tool_result") && json_object_get(block, "content") &&
			    (rc = fn(block, id, ctx)))
				return rc;
		}
	}
	return 0;
}

/* The output as stored in an artifact: a string's own bytes, anything
 * else as compact JSON. Allocated. */
static char *output_bytes(const json_t *content, size_t *out_len)
{
	char *text;

	if (json_is_string(content)) {
		*out_len = json_string_length(content);
		text = malloc(*out_len + 1);
		if (text) {
			memcpy(text, json_string_value(content), *out_len);
			text[*out_len] = '\0';
		}
		return text;
	}
	text = json_dumps(content, JSON_COMPACT | JSON_ENCODE_ANY);
	if (text)
		*out_len = strlen(text);
	return text;
}

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
	if (!(bytes = output_bytes(content, &len)))
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
	if (ac_buf_printf(&ref, "[artifact %s: %lld bytes; agentctl artifact show %s %s]", id,
			  (long long)bytes, x->session_id, id) ||
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
	return each_result(json_object_get(root, "conversationHistory"), reference_stored, x);
}

/* ---- summarising ---- */

/* Writes the replaced messages to <sessions>/.compactions/<id>/<UTC>.json,
 * where ac_compact_session() keeps its archives, under a name taken with
 * O_EXCL so no two compactions share one. */
static int write_archive(ac_buf *relative, const char *sessions_dir, const char *id,
			 const char *created_at, const json_t *replaced)
{
	char stamp[21], *data = NULL;
	ac_buf path = AC_BUF_INIT;
	json_t *doc = json_pack("{s:s, s:s, s:O}", "sessionId", id, "createdAt", created_at,
				"messages", replaced);
	int rc = 0, fd = -1;

	if (!doc || !(data = json_dumps(doc, JSON_INDENT(2)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	ac_time_format_file(stamp, ac_time_now_ms());
	for (int attempt = 0; fd < 0; attempt++) {
		ac_buf_clear(relative);
		ac_buf_clear(&path);
		if ((attempt ? ac_buf_printf(relative, ".compactions/%s/%s-%d.json", id, stamp, attempt)
			     : ac_buf_printf(relative, ".compactions/%s/%s.json", id, stamp)) ||
		    ac_buf_printf(&path, "%s/%s", sessions_dir, relative->data)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		if (attempt == 0) {
			char *slash = strrchr(path.data, '/');

			*slash = '\0';
			rc = ac_file_mkdirs(path.data);
			*slash = '/';
			if (rc)
				goto done;
		}
		fd = open(path.data, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && (errno != EEXIST || attempt >= 1000)) {
			rc = ac_error_errno(errno, "%s: cannot create the archive", path.data);
			goto done;
		}
	}
	close(fd);
	if ((rc = ac_atomic_write(path.data, data, strlen(data), NULL, NULL)))
		unlink(path.data);
done:
	json_decref(doc);
	free(data);
	ac_buf_free(&path);
	return rc;
}

typedef struct {
	const char *tenant;
	const char *session_id;
	const json_t *replaced;
	const char *summary;
	const char *archive; /* relative to the sessions folder */
	ac_backend_compact_result *out;
} summary_change;

/* Replaces the summarised messages, if they still open the history, with
 * the summary, and records the compaction as ac_compact_session() does. */
static int summary_owned(json_t *root, void *ctx)
{
	summary_change *c = ctx;
	json_t *history = json_object_get(root, "conversationHistory");
	json_t *metadata, *compactions, *kept = NULL;
	size_t cut = json_array_size(c->replaced), n = json_array_size(history);
	char at[AC_TIME_ISO_LEN + 1];
	ac_buf content = AC_BUF_INIT;
	uint64_t before;
	int rc;

	if ((rc = ac_backend_fs_owned(root, c->tenant, c->session_id)))
		return rc;
	for (size_t i = 0; i < cut; i++)
		if (i >= n || !json_equal(json_array_get(history, i), json_array_get(c->replaced, i)))
			return ac_error_set(AC_ECONFLICT, "session %s changed while it was being "
					    "compacted; nothing was changed", c->session_id);
	metadata = json_object_get(root, "metadata"); /* an object: the tenant check read it */
	compactions = json_object_get(metadata, "compactions");
	if (compactions && !json_is_array(compactions))
		return ac_error_set(AC_ECORRUPT, "session %s: metadata.compactions is not an array",
				    c->session_id);
	before = ac_messages_tokens(history);
	if (ac_buf_printf(&content, "%s%s", AC_SUMMARY_PREFIX, c->summary) ||
	    !(kept = json_pack("[{s:s, s:s}]", "role", "user", "content", content.data)))
		goto nomem;
	for (size_t i = cut; i < n; i++)
		if (json_array_append(kept, json_array_get(history, i)))
			goto nomem;
	c->out->messages_before = n;
	c->out->messages_after = json_array_size(kept);
	c->out->tokens_after = ac_messages_tokens(kept);
	ac_time_format_iso(at, ac_time_now_ms());
	if ((!compactions && json_object_set_new(metadata, "compactions", compactions = json_array())) ||
	    json_array_append_new(compactions,
				  json_pack("{s:s, s:I, s:I, s:I, s:s}", "at", at, "messages",
					    (json_int_t)cut, "tokensBefore", (json_int_t)before,
					    "tokensAfter", (json_int_t)c->out->tokens_after,
					    "archive", c->archive)) ||
	    json_object_set(root, "conversationHistory", kept))
		goto nomem;
	json_decref(kept);
	ac_buf_free(&content);
	return 0;
nomem:
	json_decref(kept);
	ac_buf_free(&content);
	return ac_error_set(AC_ENOMEM, "out of memory");
}

static int summarize(char **out, const json_t *messages, const ac_backend_compact_options *opts)
{
	if (opts->summarize)
		return opts->summarize(out, messages, opts->summarize_ctx);
	if (opts->summarizer_argv)
		return ac_summarize_command(out, opts->summarizer_argv, messages,
					    opts->summarizer_timeout_ms);
	return ac_summarize_builtin(out, messages);
}

static int summarize_if_needed(ac_backend_fs *fs, ac_backend_compact_result *out,
			       const char *tenant, const char *session_id,
			       const ac_backend_compact_options *opts)
{
	ac_compact_options plan_opts;
	ac_compact_result plan;
	ac_session *s = NULL;
	ac_buf archive = AC_BUF_INIT;
	json_t *messages, *replaced = NULL;
	char *summary = NULL;
	const char *created_at;
	summary_change change;
	int rc;

	if ((rc = ac_backend_fs_load_owned(&s, fs, tenant, session_id)))
		return rc;
	messages = ac_session_messages(s);
	ac_compact_options_init(&plan_opts);
	plan_opts.trigger_tokens = opts->trigger_tokens;
	plan_opts.fraction = opts->fraction;
	plan_opts.force = opts->force;
	ac_compact_plan(&plan, messages, &plan_opts);
	out->messages_before = out->messages_after = plan.messages_before;
	out->tokens_after = plan.tokens_before;
	if (!plan.needed)
		goto done;
	if (!(replaced = json_array())) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < plan.summarized; i++)
		if (json_array_append(replaced, json_array_get(messages, i))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	if ((rc = summarize(&summary, replaced, opts)))
		goto done;
	if (!summary) {
		rc = ac_error_set(AC_EINVAL, "session %s: the summariser returned no summary",
				  session_id);
		goto done;
	}
	created_at = json_string_value(json_object_get(ac_session_root(s), "createdAt"));
	if ((rc = write_archive(&archive, fs->sessions_dir, session_id, created_at ? created_at : "",
				replaced)))
		goto done;
	ac_backend_fs_reached(fs, AC_BACKEND_FS_AFTER_ARCHIVE);
	change = (summary_change){tenant, session_id, replaced, summary, archive.data, out};
	if ((rc = ac_session_update(NULL, fs->sessions_dir, session_id, summary_owned, &change))) {
		ac_buf path = AC_BUF_INIT;

		/* Nothing was replaced, so the copy has nothing to keep. */
		if (ac_buf_printf(&path, "%s/%s", fs->sessions_dir, archive.data) == 0)
			unlink(path.data);
		ac_buf_free(&path);
		goto done;
	}
	out->compacted = true;
	out->summarized = plan.summarized;
done:
	ac_session_free(s);
	json_decref(replaced);
	free(summary);
	ac_buf_free(&archive);
	return rc;
}

int ac_backend_fs_compact(void *impl, ac_backend_compact_result *out, const char *tenant,
			  const char *session_id, const ac_backend_compact_options *opts)
{
	ac_backend_fs *fs = impl;
	ac_backend_compact_options defaults;
	ac_backend_compact_result ignored;
	externalize x = {0};
	ac_session *s = NULL;
	json_t *copy = NULL;
	int rc;

	if (!opts) {
		ac_backend_compact_options_init(&defaults);
		opts = &defaults;
	}
	if (!out)
		out = &ignored;
	memset(out, 0, sizeof(*out));
	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", session_id)))
		return rc;
	if (!(opts->fraction > 0 && opts->fraction <= 1))
		return ac_error_set(AC_EINVAL, "compaction fraction %g: must be in (0, 1]", opts->fraction);
	if ((rc = ac_backend_fs_load_owned(&s, fs, tenant, session_id)))
		return rc;
	out->tokens_before = ac_messages_tokens(ac_session_messages(s));
	x = (externalize){fs, tenant, session_id, opts->artifact_threshold, json_object(), out};
	copy = json_deep_copy(ac_session_messages(s));
	if (!x.moved || !copy) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	/* Artifacts first, durably; only then the references to them. */
	if ((rc = each_result(copy, store_large, &x)))
		goto done;
	if (json_object_size(x.moved)) {
		ac_backend_fs_reached(fs, AC_BACKEND_FS_AFTER_ARTIFACTS);
		if ((rc = ac_session_update(NULL, fs->sessions_dir, session_id, externalize_owned, &x)))
			goto done;
		ac_backend_fs_reached(fs, AC_BACKEND_FS_AFTER_EXTERNALIZE);
	}
	rc = summarize_if_needed(fs, out, tenant, session_id, opts);
done:
	json_decref(copy);
	json_decref(x.moved);
	ac_session_free(s);
	return rc;
}
