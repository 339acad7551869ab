/* Putting archived messages back (ac_restore.h). */
#include "ac_restore.h"

#include "ac_compact.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_exact.h"
#include "ac_time.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *id, *relative, *at;
	ac_restore_kind kind;
	size_t expected;
	const json_t *messages;  /* the archive's */
	bool applied;            /* the last call put them back */
} restore_ctx;

/* True when the newest record of metadata[key] names archive. */
static bool newest_names(const json_t *metadata, const char *key, const char *archive)
{
	const json_t *records = json_object_get(metadata, key);
	size_t n = json_array_size(records);
	const char *named = n ? json_string_value(json_object_get(json_array_get(records, n - 1),
								   "archive")) : NULL;

	return named && !strcmp(named, archive);
}

static bool is_summary(const json_t *message)
{
	const char *content = json_string_value(json_object_get(message, "content"));

	return content && !strncmp(content, AC_SUMMARY_PREFIX, strlen(AC_SUMMARY_PREFIX));
}

static int put_back(json_t *root, void *arg)
{
	restore_ctx *r = arg;
	json_t *history = json_object_get(root, "conversationHistory");
	json_t *metadata = json_object_get(root, "metadata"), *restores, *merged = NULL;
	bool compaction = r->kind == AC_RESTORE_COMPACTION;
	size_t n = json_array_size(history), i;
	json_t *m;
	int rc = 0;

	if (!json_is_object(metadata) || !json_is_array(history))
		return ac_error_set(AC_ECONFLICT, "session %s: no history or metadata to restore into",
				    r->id);
	r->applied = false;
	restores = json_object_get(metadata, "restores");
	/* Saved again by a reader after our restore: already done. */
	json_array_foreach(restores, i, m) {
		const char *named = json_string_value(json_object_get(m, "archive"));

		if (named && !strcmp(named, r->relative))
			return AC_SESSION_UNCHANGED;
	}
	if (!newest_names(metadata, compaction ? "compactions" : "rollbacks", r->relative))
		return ac_error_set(AC_ECONFLICT, "session %s: its newest %s is no longer %s; "
				    "nothing was restored", r->id,
				    compaction ? "compaction" : "rollback", r->relative);
	if (n != r->expected)
		return ac_error_set(AC_ECONFLICT, "session %s has %zu messages, not the %zu the %s "
				    "left: an agent wrote since; nothing was restored", r->id, n,
				    r->expected, compaction ? "compaction" : "rollback");
	if (compaction && (n == 0 || !is_summary(json_array_get(history, 0))))
		return ac_error_set(AC_ECONFLICT, "session %s: its first message is not the "
				    "compaction's summary; nothing was restored", r->id);
	if (restores && !json_is_array(restores))
		return ac_error_set(AC_ECORRUPT, "session %s: metadata.restores is not an array", r->id);
	if (!(merged = json_array()))
		goto oom;
	for (i = 0; compaction ? false : i < n; i++)
		if (json_array_append(merged, json_array_get(history, i)))
			goto oom;
	if (json_array_extend(merged, (json_t *)r->messages))
		goto oom;
	for (i = 1; compaction && i < n; i++)
		if (json_array_append(merged, json_array_get(history, i)))
			goto oom;
	if (!restores && json_object_set_new(metadata, "restores", restores = json_array()))
		goto oom;
	if (json_array_append_new(restores, json_pack("{s:s, s:s, s:s, s:I}", "at", r->at, "kind",
						      compaction ? "compaction" : "rollback",
						      "archive", r->relative, "messages",
						      (json_int_t)json_array_size(r->messages))) ||
	    json_object_set(root, "conversationHistory", merged))
		goto oom;
	r->applied = true;
	goto done;
oom:
	rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	json_decref(merged);
	return rc;
}

int ac_restore_archive(size_t *out_restored, const char *sessions_dir, const char *id,
		       const char *archive, ac_restore_kind kind, size_t expected_len,
		       const ac_session_write_options *opts)
{
	size_t dir_len = strlen(sessions_dir), len = 0;
	char *text = NULL, at[AC_TIME_ISO_LEN + 1];
	json_t *doc = NULL, *messages;
	restore_ctx r = {.id = id, .kind = kind, .expected = expected_len, .at = at};
	int rc;

	if (out_restored)
		*out_restored = 0;
	if ((rc = ac_session_write_options_check(opts)))
		return rc;
	/* Metadata names the archive relative to the sessions folder. */
	if (strncmp(archive, sessions_dir, dir_len) || archive[dir_len] != '/')
		return ac_error_set(AC_EINVAL, "%s: not an archive under %s", archive, sessions_dir);
	r.relative = archive + dir_len + 1;
	if ((rc = ac_file_read(&text, &len, archive)) ||
	    (rc = ac_json_exact_load(&doc, text, len, 0, archive)))
		goto done;
	messages = json_object_get(doc, "messages");
	if (!json_is_array(messages) ||
	    !json_is_string(json_object_get(doc, "sessionId")) ||
	    strcmp(json_string_value(json_object_get(doc, "sessionId")), id)) {
		rc = ac_error_set(AC_ECORRUPT, "%s: not an archive of session %s", archive, id);
		goto done;
	}
	r.messages = messages;
	ac_time_format_iso(at, ac_time_now_ms());
	rc = ac_session_update_with(NULL, sessions_dir, id, put_back, &r, opts);
	if (rc == 0 && r.applied && out_restored)
		*out_restored = json_array_size(messages);
done:
	json_decref(doc);
	free(text);
	return rc;
}
