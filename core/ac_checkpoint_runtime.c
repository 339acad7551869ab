/* The runtime half of checkpoints: provider choice, automatic persistence
 * and the execution point. */
#include "ac_checkpoint_runtime.h"

#include "ac_config.h"
#include "ac_error.h"
#include "ac_session.h"
#include "ac_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ac_checkpoint_store_open(ac_checkpoint_store **out, const ac_workspace *ws)
{
	const char *provider = ws->config ? ac_config_string(ws->config, "checkpoint.provider",
							     "file")
					  : "file";
	const char *url = NULL;
	int rc;

	if (!strcmp(provider, "none"))
		return ac_checkpoint_store_none_new(out);
	/* Checkpoints live where everything else does (ac_workspace.h). */
	if ((rc = ac_workspace_store_url(&url, ws)))
		return rc;
	if (url)
		return ac_checkpoint_store_pg_new(out, url, NULL);
	return ac_checkpoint_store_file_new(out, ws->checkpoints_dir);
}

bool ac_checkpoint_store_is_none(const ac_checkpoint_store *store)
{
	return store && store->ops && !strcmp(store->ops->name, "none");
}

/* *out: metadata of root, created when missing. */
static int metadata_of(json_t **out, json_t *root)
{
	json_t *metadata = json_object_get(root, "metadata");

	if (metadata && !json_is_object(metadata))
		return ac_error_set(AC_ECORRUPT, "metadata is not an object");
	if (!metadata && json_object_set_new(root, "metadata", metadata = json_object()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	*out = metadata;
	return 0;
}

int ac_checkpoint_put_execution_point(json_t *root, const char *node, const json_t *input,
				      const char *input_type, const char *checkpoint_id)
{
	char now[AC_TIME_ISO_LEN + 1];
	json_t *metadata = NULL, *point;
	int rc;

	if ((rc = metadata_of(&metadata, root)))
		return rc;
	ac_time_format_iso(now, ac_time_now_ms());
	point = json_pack("{s:O}", "lastInput", input ? input : json_null());
	if (!point || (node && json_object_set_new(point, "nodeId", json_string(node))) ||
	    (input_type && json_object_set_new(point, "lastInputType", json_string(input_type))) ||
	    (checkpoint_id &&
	     json_object_set_new(point, "checkpointId", json_string(checkpoint_id))) ||
	    json_object_set_new(point, "at", json_string(now)) ||
	    json_object_set_new(metadata, "executionPoint", point)) {
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	return 0;
}

typedef struct {
	const char *node, *input_type;
	const json_t *input, *history;
} execution_point_change;

static int set_point(json_t *root, void *ctx)
{
	const execution_point_change *c = ctx;

	if (c->history &&
	    json_object_set_new(root, "conversationHistory", json_deep_copy(c->history)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return ac_checkpoint_put_execution_point(root, c->node, c->input, c->input_type, NULL);
}

int ac_checkpoint_set_execution_point(const char *sessions_dir, const char *session_id,
				      const char *node, const json_t *input,
				      const char *input_type, const json_t *history)
{
	execution_point_change change = {node, input_type, input, history};
	int rc;

	if ((rc = ac_session_id_check(session_id)))
		return rc;
	if (node && !*node)
		return ac_error_set(AC_EINVAL, "execution point node: empty");
	if (history && !json_is_array(history))
		return ac_error_set(AC_EINVAL, "the history of an execution point must be an array "
				    "of messages");
	return ac_session_update(NULL, sessions_dir, session_id, set_point, &change);
}

bool ac_checkpoint_automatic(const json_t *session_root)
{
	return json_is_true(json_object_get(
		json_object_get(json_object_get(session_root, "metadata"), "persistence"),
		"automatic"));
}

int ac_checkpoint_automatic_change(json_t *root, void *ctx)
{
	bool on = *(const bool *)ctx;
	json_t *metadata = NULL, *persistence;
	int rc;

	if (ac_checkpoint_automatic(root) == on)
		return AC_SESSION_UNCHANGED;
	if ((rc = metadata_of(&metadata, root)))
		return rc;
	persistence = json_object_get(metadata, "persistence");
	if (!json_is_object(persistence) &&
	    json_object_set_new(metadata, "persistence", persistence = json_object()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (json_object_set_new(persistence, "automatic", json_boolean(on)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

int ac_checkpoint_set_automatic(const char *sessions_dir, const char *session_id, bool on)
{
	int rc;

	if ((rc = ac_session_id_check(session_id)))
		return rc;
	return ac_session_update(NULL, sessions_dir, session_id, ac_checkpoint_automatic_change, &on);
}

/* The node an automatic checkpoint is saved as: the turn it follows. */
static void turn_node(char *node, size_t size, const json_t *root)
{
	snprintf(node, size, "turn-%lld",
		 (long long)json_integer_value(json_object_get(
			 json_object_get(json_object_get(root, "metadata"), "usage"), "turns")));
}

static int keep_id(char **out_id, json_t *doc)
{
	int rc = 0;

	if (out_id && !(*out_id = strdup(ac_checkpoint_id(doc))))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	json_decref(doc);
	return rc;
}

int ac_checkpoint_after_turn(char **out_id, ac_checkpoint_store *store,
			     const char *sessions_dir, const char *session_id)
{
	ac_checkpoint_create_options opts = AC_CHECKPOINT_CREATE_OPTIONS_INIT;
	ac_session *session = NULL;
	json_t *doc = NULL;
	char node[48];
	int rc;

	if (out_id)
		*out_id = NULL;
	if (ac_checkpoint_store_is_none(store))
		return 0;
	if ((rc = ac_session_load(&session, sessions_dir, session_id)))
		return rc;
	if (!ac_checkpoint_automatic(ac_session_root(session))) {
		ac_session_free(session);
		return 0;
	}
	turn_node(node, sizeof(node), ac_session_root(session));
	ac_session_free(session);
	opts.node = node;
	/* The file variant: it reads the session again under the folder's
	 * lock, so the checkpoint holds the history as of its save. */
	if ((rc = ac_checkpoint_create_with(&doc, store, sessions_dir, session_id, &opts)))
		return rc;
	return keep_id(out_id, doc);
}

int ac_checkpoint_after_turn_from(char **out_id, ac_checkpoint_store *store,
				  const char *session_id, const json_t *root)
{
	ac_checkpoint_create_options opts = AC_CHECKPOINT_CREATE_OPTIONS_INIT;
	json_t *doc = NULL;
	char node[48];
	int rc;

	if (out_id)
		*out_id = NULL;
	if (ac_checkpoint_store_is_none(store) || !ac_checkpoint_automatic(root))
		return 0;
	turn_node(node, sizeof(node), root);
	opts.node = node;
	if ((rc = ac_checkpoint_create_from(&doc, store, session_id, root, &opts)))
		return rc;
	return keep_id(out_id, doc);
}
