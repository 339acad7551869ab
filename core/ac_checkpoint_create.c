/* Creating a checkpoint from a session: its version (never reused), the
 * last input and output taken from the history, and a tombstone as Koog
 * writes one. Saving is the store's; this file only builds the document. */
#include "ac_checkpoint.h"
#include "ac_checkpoint_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_fs_calls.h"
#include "ac_lock.h"
#include "ac_messages.h"
#include "ac_session.h"
#include "ac_struct_version.h"
#include "ac_time.h"
#include "ac_uuid.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The text of a message: its string content, or its text blocks joined by
 * newlines; "" when it has none (a message of tool calls or results). */
static int plain_text(ac_buf *out, const json_t *msg)
{
	const json_t *content = json_object_get(msg, "content"), *block;
	size_t i;

	if (json_is_string(content))
		return ac_buf_append(out, json_string_value(content), json_string_length(content));
	json_array_foreach (content, i, block) {
		const json_t *text = json_object_get(block, "text");

		if (strcmp(ac_checkpoint_str_member(block, "type"), "text") || !json_is_string(text))
			continue;
		if ((out->len && ac_buf_putc(out, '\n')) ||
		    ac_buf_append(out, json_string_value(text), json_string_length(text)))
			return AC_ENOMEM;
	}
	return 0;
}

/* The text of the last message of role that has any; "" when none. */
static int last_text(json_t **out, const json_t *history, const char *role)
{
	ac_buf text = AC_BUF_INIT;

	for (size_t i = json_array_size(history); i-- > 0;) {
		const json_t *msg = json_array_get(history, i);

		if (strcmp(ac_message_role(msg), role))
			continue;
		if (plain_text(&text, msg)) {
			ac_buf_free(&text);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		if (text.len)
			break;
	}
	*out = json_stringn_nocheck(text.data ? text.data : "", text.len);
	ac_buf_free(&text);
	return *out ? 0 : ac_error_set(AC_ENOMEM, "out of memory");
}

/* The next version, or the caller's (Koog's createCheckpoint takes one)
 * when no checkpoint of the session holds it: versions are never reused. */
static int choose_version(int64_t *out, ac_checkpoint_store *store, const char *session_id,
			  const ac_checkpoint_create_options *opts)
{
	ac_checkpoint_filter filter = {.session_id = session_id, .include_tombstones = true};
	ac_checkpoint_header_list list = {0};
	int rc;

	if (!opts->set_version)
		return ac_checkpoint_store_next_version(out, store, session_id);
	if (opts->checkpoint_version < 0 || opts->checkpoint_version > AC_CHECKPOINT_VERSION_MAX)
		return ac_error_set(AC_EINVAL, "checkpoint version %lld: not between 0 and %lld",
				    (long long)opts->checkpoint_version,
				    (long long)AC_CHECKPOINT_VERSION_MAX);
	if ((rc = ac_checkpoint_store_list_headers(&list, store, &filter)) == 0) {
		for (size_t i = 0; i < list.count; i++)
			if (list.items[i].version == opts->checkpoint_version) {
				rc = ac_error_set(AC_EINVAL, "checkpoint version %lld of session '%s' "
						  "is taken by %s",
						  (long long)opts->checkpoint_version,
						  session_id, list.items[i].checkpoint_id);
				break;
			}
	}
	ac_checkpoint_header_list_free(&list);
	*out = opts->checkpoint_version;
	return rc;
}

/* The options' own checks, made before anything is read. */
static int check_create_options(const ac_checkpoint_create_options *opts)
{
	int rc;

	if ((rc = ac_struct_version_check("ac_checkpoint_create_options", opts->version,
					  AC_CHECKPOINT_CREATE_OPTIONS_VERSION,
					  "AC_CHECKPOINT_CREATE_OPTIONS_INIT")))
		return rc;
	if (opts->node && !*opts->node)
		return ac_error_set(AC_EINVAL, "checkpoint node: empty");
	if (opts->last_input_type && !*opts->last_input_type)
		return ac_error_set(AC_EINVAL, "checkpoint lastInputType: empty");
	if (opts->checkpoint_id)
		return ac_checkpoint_id_check(opts->checkpoint_id);
	return 0;
}

int ac_checkpoint_create_from(json_t **out, ac_checkpoint_store *store, const char *session_id,
			      const json_t *root, const ac_checkpoint_create_options *opts)
{
	static const ac_checkpoint_create_options defaults = AC_CHECKPOINT_CREATE_OPTIONS_INIT;
	const char *node, *checkpoint_id;
	char uuid[37], now[AC_TIME_ISO_LEN + 1];
	json_t *doc = NULL, *latest = NULL, *input = NULL, *output = NULL;
	const json_t *history;
	const char *agent;
	int64_t version;
	bool tombstone;
	int rc;

	if (!opts)
		opts = &defaults;
	node = opts->node;
	checkpoint_id = opts->checkpoint_id;
	if ((rc = ac_session_id_check(session_id)) || (rc = check_create_options(opts)))
		goto done;
	history = json_object_get(root, "conversationHistory");
	if (!json_is_array(history)) {
		rc = ac_error_set(AC_ECORRUPT, "session '%s': conversationHistory is not an array",
				  session_id);
		goto done;
	}
	if (checkpoint_id) {
		json_t *existing = NULL;

		rc = ac_checkpoint_store_get(&existing, store, session_id, checkpoint_id);
		json_decref(existing);
		if (rc == 0) {
			rc = ac_error_set(AC_EINVAL, "checkpoint '%s' of session '%s' exists already",
					  checkpoint_id, session_id);
			goto done;
		}
		if (rc != AC_ENOTFOUND)
			goto done;
	}
	if ((rc = choose_version(&version, store, session_id, opts)))
		goto done;
	rc = ac_checkpoint_store_latest(&latest, store, session_id);
	if (rc && rc != AC_ENOTFOUND)
		goto done;
	if (opts->last_input && !(input = json_deep_copy(opts->last_input))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((!input && (rc = last_text(&input, history, "user"))) ||
	    (rc = last_text(&output, history, "assistant")))
		goto done;
	agent = json_string_value(json_object_get(json_object_get(root, "metadata"), "agentId"));
	if (!checkpoint_id)
		ac_uuid_v4(uuid);
	ac_time_format_iso(now, ac_time_now_ms());
	tombstone = node && !strcmp(node, AC_CHECKPOINT_TOMBSTONE);
	/* A tombstone as Koog writes one: no history, properties.tombstone. */
	doc = json_pack("{s:s, s:s, s:o, s:s, s:I, s:o, s:s, s:O, s:s, s:O, s:o, s:o}",
			"checkpointId", checkpoint_id ? checkpoint_id : uuid, "sessionId", session_id,
			"agentId", agent ? json_string(agent) : json_null(),
			"createdAt", now, "version", (json_int_t)version,
			"parentId", latest ? json_string(ac_checkpoint_id(latest)) : json_null(),
			"nodeId", node ? node : "manual", "lastInput", input,
			"lastInputType", opts->last_input_type ? opts->last_input_type : "text",
			"lastOutput", output,
			"messageHistory", tombstone ? json_array() : json_deep_copy(history),
			"properties", tombstone ? json_pack("{s:b}", AC_CHECKPOINT_TOMBSTONE, 1)
						: json_object());
	if (!doc) {
		rc = ac_error_set(AC_ENOMEM, "out of memory building checkpoint of session '%s'",
				  session_id);
		goto done;
	}
	if ((rc = ac_checkpoint_store_save(store, doc)))
		goto done;
	if (out) {
		*out = doc;
		doc = NULL;
	}
done:
	json_decref(doc);
	json_decref(latest);
	json_decref(input);
	json_decref(output);
	return rc;
}

int ac_checkpoint_create_with(json_t **out, ac_checkpoint_store *store, const char *sessions_dir,
			      const char *session_id, const ac_checkpoint_create_options *opts)
{
	static const ac_checkpoint_create_options defaults = AC_CHECKPOINT_CREATE_OPTIONS_INIT;
	char *session_path = NULL;
	ac_session *session = NULL;
	struct stat st;
	int rc, guard = -1;

	if (!opts)
		opts = &defaults;
	if ((rc = ac_session_path(&session_path, sessions_dir, session_id)) ||
	    (rc = check_create_options(opts)))
		goto done;
	/* agentctl processes take turns from reading the versions to saving,
	 * so two creates never pick the same version. */
	if (ac_fs_stat(session_path, &st) != 0) {
		rc = ac_error_set(AC_ENOTFOUND, "session '%s' not found in %s", session_id, sessions_dir);
		goto done;
	}
	if ((rc = ac_lock_folder(&guard, session_path, 10000)) ||
	    (rc = ac_session_load(&session, sessions_dir, session_id)))
		goto done;
	rc = ac_checkpoint_create_from(out, store, session_id, ac_session_root(session), opts);
done:
	if (guard >= 0)
		ac_fs_close(guard);
	ac_session_free(session);
	free(session_path);
	return rc;
}

int ac_checkpoint_create(json_t **out, ac_checkpoint_store *store, const char *sessions_dir,
			 const char *session_id, const char *node)
{
	ac_checkpoint_create_options opts = AC_CHECKPOINT_CREATE_OPTIONS_INIT;

	opts.node = node;

	return ac_checkpoint_create_with(out, store, sessions_dir, session_id, &opts);
}
