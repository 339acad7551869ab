/* Reaching a checkpoint older than a session file's last compaction: its
 * history with the compaction summary first unfolded back into the
 * messages that compaction archived (metadata.compactions names each
 * archive), newest compaction first; and the mark a rollback behind
 * compactions leaves on their records, so that a later unfolding never
 * takes an undone compaction's archive for the summary first by then.
 * The PostgreSQL store unfolds from its compactions table instead
 * (ac_backend_pg_rollback.c). Nothing here writes a file. */
#include "ac_checkpoint.h"
#include "ac_checkpoint_impl.h"

#include "ac_archive.h"
#include "ac_buf.h"
#include "ac_compact.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_exact.h"

#include <stdlib.h>
#include <string.h>

/* The key a compaction record gets once a rollback went behind it: its
 * summary left the history, so it is not unfolded again. */
#define UNDONE "undoneByRollback"

static json_t *records_of(const json_t *root)
{
	json_t *records = json_object_get(json_object_get(root, "metadata"), "compactions");

	return json_is_array(records) ? records : NULL;
}

/* The depth-th newest compaction record no rollback undid; NULL when none. */
static json_t *live_record(const json_t *root, size_t depth)
{
	json_t *records = records_of(root);

	for (size_t i = json_array_size(records); i-- > 0;) {
		json_t *record = json_array_get(records, i);

		if (json_object_get(record, UNDONE))
			continue;
		if (depth-- == 0)
			return record;
	}
	return NULL;
}

static bool is_summary(const json_t *message)
{
	const char *content = json_string_value(json_object_get(message, "content"));

	return content && !strncmp(content, AC_SUMMARY_PREFIX, strlen(AC_SUMMARY_PREFIX));
}

/* The messages of the archive a record names, read only from this
 * session's ".compactions" folder (a name from a file leads nowhere else). */
static int load_archived(json_t **out, const char *sessions_dir, const char *id,
			 const json_t *record)
{
	const char *relative = json_string_value(json_object_get(record, "archive")), *name;
	const json_t *count = json_object_get(record, "messages");
	ac_buf dir = AC_BUF_INIT, prefix = AC_BUF_INIT, path = AC_BUF_INIT;
	json_t *doc = NULL, *messages;
	char *text = NULL;
	size_t len;
	int rc;

	*out = NULL;
	if (ac_buf_printf(&prefix, ".compactions/%s/", id)) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	name = relative && !strncmp(relative, prefix.data, prefix.len) ? relative + prefix.len : NULL;
	if (!name || !*name || *name == '.' || strchr(name, '/')) {
		rc = ac_error_set(AC_ECORRUPT, "session '%s': metadata.compactions names archive "
				  "'%.128s', not one of this session's compaction archives", id,
				  relative ? relative : "(none)");
		goto done;
	}
	if ((rc = ac_archive_folder(&dir, sessions_dir, ".compactions", id)))
		goto done;
	if (ac_buf_printf(&path, "%s/%s", dir.data, name)) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = ac_file_read(&text, &len, path.data)) ||
	    (rc = ac_json_exact_load(&doc, text, len, 0, path.data)))
		goto done;
	messages = json_object_get(doc, "messages");
	if (!json_is_array(messages) ||
	    (json_is_integer(count) && (size_t)json_integer_value(count) != json_array_size(messages))) {
		rc = ac_error_set(AC_ECORRUPT, "%s: not the %s messages its compaction record names",
				  path.data, json_is_integer(count) ? "number of" : "array of");
		goto done;
	}
	*out = json_incref(messages);
done:
	json_decref(doc);
	free(text);
	ac_buf_free(&dir);
	ac_buf_free(&prefix);
	ac_buf_free(&path);
	return rc;
}

int ac_checkpoint_unfold_file(json_t **out, size_t depth, const json_t *history, void *ctx)
{
	const ac_checkpoint_unfold_file_ctx *u = ctx;
	const json_t *record = live_record(u->root, depth);

	*out = NULL;
	if (!record || !is_summary(json_array_get(history, 0)))
		return ac_error_set(AC_ENOTFOUND, "session '%s': no compaction to unfold", u->id);
	return load_archived(out, u->sessions_dir, u->id, record);
}

int ac_checkpoint_mark_undone(json_t *root, size_t n, const char *at)
{
	/* Newest first, as they were unfolded; marking moves on to the next. */
	for (size_t i = 0; i < n; i++) {
		json_t *record = live_record(root, 0);

		if (!json_is_object(record))
			return ac_error_set(AC_ECONFLICT, "session: metadata.compactions changed "
					    "since the rollback was planned");
		if (json_object_set_new(record, UNDONE, json_string(at)))
			return ac_error_set(AC_ENOMEM, "out of memory");
	}
	return 0;
}

int ac_checkpoint_removed(json_t **out, const ac_checkpoint_plan *plan)
{
	const json_t *from = plan->unfolded ? plan->unfolded : plan->history;

	if (!(*out = json_array()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = plan->keep; i < json_array_size(from); i++)
		if (json_array_append(*out, json_array_get(from, i))) {
			json_decref(*out);
			*out = NULL;
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
	return 0;
}

int ac_checkpoint_unfolded_history(json_t *root, const ac_checkpoint_plan *plan, const char *at)
{
	json_t *kept = json_array();
	int rc;

	for (size_t i = 0; kept && i < plan->keep; i++)
		if (json_array_append(kept, json_array_get(plan->unfolded, i))) {
			json_decref(kept);
			kept = NULL;
		}
	if (!kept || json_object_set_new(root, "conversationHistory", kept))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_checkpoint_mark_undone(root, plan->compactions, at)) == AC_ECONFLICT)
		ac_error_set(rc, "session '%s': its compactions changed since the rollback was "
			     "planned", plan->session_id);
	return rc;
}
