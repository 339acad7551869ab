/* Forking a session (or a coding agent's transcript): the new document,
 * and a new file of it. */
#include "ac_session_fork.h"

#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_source.h"
#include "ac_struct_version.h"
#include "ac_time.h"
#include "ac_uuid.h"

#include <string.h>

/* The new metadata: the parent's tenancy, and where the fork came from. */
static json_t *fork_metadata(const json_t *parent_root, const ac_session_fork_options *opts,
			     size_t kept)
{
	static const char *const tenancy[] = {"tenantId", "userId", "agentId"};
	const json_t *from = json_object_get(parent_root, "metadata");
	json_t *metadata = json_object(), *parent;

	if (!metadata)
		return NULL;
	for (size_t i = 0; i < sizeof(tenancy) / sizeof(tenancy[0]); i++) {
		json_t *value = json_object_get(from, tenancy[i]);

		if (json_is_string(value) && json_object_set(metadata, tenancy[i], value)) {
			json_decref(metadata);
			return NULL;
		}
	}
	parent = opts->checkpoint_history
		? json_pack("{s:O, s:s}", "sessionId", json_object_get(parent_root, "id"),
			    "checkpointId", opts->checkpoint_id)
		: json_pack("{s:O, s:I}", "sessionId", json_object_get(parent_root, "id"),
			    "atMessage", (json_int_t)kept);
	if (!parent || json_object_set_new(metadata, "parent", parent)) {
		json_decref(metadata);
		return NULL;
	}
	return metadata;
}

/* The fork's document (new reference; NULL: out of memory): id (NULL: a
 * random UUID, already checked otherwise), paused, now; history and
 * metadata borrowed. */
static int fork_root(json_t **out, const char *id, const char *task, json_t *history,
		     json_t *metadata)
{
	char uuid[37], now[AC_TIME_ISO_LEN + 1];
	int rc;

	*out = NULL;
	if (!id) {
		ac_uuid_v4(uuid);
		id = uuid;
	}
	if ((rc = ac_session_id_check(id)))
		return rc;
	ac_time_format_iso(now, ac_time_now_ms());
	/* The task may hold a lone surrogate a Node agent left (WTF-8). */
	*out = json_pack("{s:s, s:s, s:s, s:o, s:s, s:O, s:O}", "id", id, "createdAt", now,
			 "updatedAt", now, "task", ac_json_exact_stringn(task, strlen(task)),
			 "status", "paused",
			 "conversationHistory", history, "metadata", metadata);
	return *out ? 0 : ac_error_set(AC_ENOMEM, "out of memory");
}

static int check_version(const ac_session_fork_options *opts)
{
	return ac_struct_version_check("ac_session_fork_options", opts->version,
				       AC_SESSION_FORK_OPTIONS_VERSION,
				       "AC_SESSION_FORK_OPTIONS_INIT");
}

int ac_session_fork_document(json_t **out, const json_t *parent_root,
			     const ac_session_fork_options *opts)
{
	const json_t *messages = json_object_get(parent_root, "conversationHistory");
	const char *parent_id = json_string_value(json_object_get(parent_root, "id"));
	json_t *history = NULL, *metadata = NULL;
	const json_t *task;
	size_t count = json_array_size(messages), kept = count;
	int rc;

	*out = NULL;
	if ((rc = check_version(opts)))
		return rc;
	if (opts->new_id && (rc = ac_session_id_check(opts->new_id)))
		return rc;
	if (!parent_id)
		return ac_error_set(AC_ECORRUPT, "the session forked has no id");
	if (opts->checkpoint_history) {
		if (!json_is_array(opts->checkpoint_history))
			return ac_error_set(AC_ECORRUPT, "checkpoint '%s': messageHistory is not an "
					    "array", opts->checkpoint_id);
		messages = opts->checkpoint_history;
		kept = json_array_size(messages);
	} else if (opts->at) {
		if (opts->at > count)
			return ac_error_set(AC_EINVAL, "--at %zu: session '%s' has %zu message%s",
					    opts->at, parent_id, count, count == 1 ? "" : "s");
		kept = opts->at;
	}
	/* Deep copies: the new session shares nothing with the parent's. */
	if (!(history = json_array())) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < kept; i++) {
		if (json_array_append_new(history, json_deep_copy(json_array_get(messages, i)))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	}
	if (!(metadata = fork_metadata(parent_root, opts, kept))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	task = json_object_get(parent_root, "task");
	rc = fork_root(out, opts->new_id, json_is_string(task) ? json_string_value(task) : "",
		       history, metadata);
done:
	json_decref(history);
	json_decref(metadata);
	return rc;
}

int ac_session_fork(ac_session **out, const char *dir, const ac_session *parent,
		    const ac_session_fork_options *opts)
{
	json_t *root = NULL;
	int rc;

	if ((rc = ac_session_fork_document(&root, ac_session_root(parent), opts)) == 0)
		rc = ac_session_create_document(out, dir, root);
	json_decref(root);
	return rc;
}

int ac_session_fork_transcript(ac_session **out, const char *dir, const ac_source_session *s,
			       const ac_session_fork_options *opts)
{
	json_t *conversation = NULL, *history = NULL, *metadata = NULL, *root = NULL;
	size_t count, kept;
	int rc;

	*out = NULL;
	if ((rc = check_version(opts)))
		return rc;
	if (opts->checkpoint_history)
		return ac_error_set(AC_EINVAL, "--checkpoint: '%s' is a %s transcript, which has no "
				    "checkpoints (fork it --at N)", s->id, ac_source_name(s->kind));
	/* The messages as the conversation view shows them: text, tool_use
	 * and tool_result blocks, agentctl's own shape. */
	if ((rc = ac_source_session_conversation(&conversation, s)))
		return rc;
	count = kept = json_array_size(conversation);
	if (opts->at > count) {
		rc = ac_error_set(AC_EINVAL, "--at %zu: transcript '%s' has %zu message%s", opts->at,
				  s->id, count, count == 1 ? "" : "s");
		goto done;
	}
	if (opts->at)
		kept = opts->at;
	/* The conversation was built for this call alone: its first kept
	 * messages are the history, nothing shared with anything else. */
	if (!(history = json_array()) ||
	    !(metadata = json_pack("{s:{s:s, s:s, s:I}}", "parent", "source",
				   ac_source_name(s->kind), "sessionId", s->id ? s->id : "",
				   "atMessage", (json_int_t)kept))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < kept; i++)
		if (json_array_append(history, json_array_get(conversation, i))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	if ((rc = fork_root(&root, opts->new_id, ac_source_session_task(s), history, metadata)) == 0)
		rc = ac_session_create_document(out, dir, root);
done:
	json_decref(root);
	json_decref(conversation);
	json_decref(history);
	json_decref(metadata);
	return rc;
}
