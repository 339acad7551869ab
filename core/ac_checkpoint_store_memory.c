/* The in-memory checkpoint provider, and the no-op one: tests, and agents
 * that want checkpoints only for the life of the process. */
#include "ac_checkpoint.h"

#include "ac_error.h"

#include <stdlib.h>

typedef struct {
	ac_checkpoint_store base;
	json_t *sessions; /* session id -> {checkpoint id -> document} */
} memory_store;

static int memory_save(ac_checkpoint_store *store, const json_t *doc)
{
	memory_store *m = (memory_store *)store;
	const char *session = ac_checkpoint_session(doc);
	json_t *copy, *bucket = json_object_get(m->sessions, session);

	if (!bucket) {
		if (!(bucket = json_object()) || json_object_set_new(m->sessions, session, bucket))
			return ac_error_set(AC_ENOMEM, "out of memory");
	}
	if (!(copy = json_deep_copy(doc)) ||
	    json_object_set_new(bucket, ac_checkpoint_id(doc), copy))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

static int memory_list(ac_checkpoint_store *store, json_t **out, const ac_checkpoint_filter *filter)
{
	memory_store *m = (memory_store *)store;
	json_t *bucket = json_object_get(m->sessions, filter->session_id);
	json_t *array = json_array(), *doc;
	const char *key;

	if (!array)
		return ac_error_set(AC_ENOMEM, "out of memory");
	json_object_foreach (bucket, key, doc) {
		if (!filter->include_tombstones && ac_checkpoint_is_tombstone(doc))
			continue;
		if (json_array_append_new(array, json_deep_copy(doc))) {
			json_decref(array);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
	}
	*out = array;
	return 0;
}

static int memory_get(ac_checkpoint_store *store, json_t **out, const char *session_id,
		      const char *checkpoint_id)
{
	memory_store *m = (memory_store *)store;
	json_t *doc = json_object_get(json_object_get(m->sessions, session_id), checkpoint_id);

	if (!doc)
		return ac_error_set(AC_ENOTFOUND, "checkpoint '%s' of session '%s' not found",
				    checkpoint_id, session_id);
	if (!(*out = json_deep_copy(doc)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

static int memory_remove(ac_checkpoint_store *store, const char *session_id,
			 const char *checkpoint_id)
{
	memory_store *m = (memory_store *)store;

	if (json_object_del(json_object_get(m->sessions, session_id), checkpoint_id) != 0)
		return ac_error_set(AC_ENOTFOUND, "checkpoint '%s' of session '%s' not found",
				    checkpoint_id, session_id);
	return 0;
}

static void memory_free(ac_checkpoint_store *store)
{
	memory_store *m = (memory_store *)store;

	json_decref(m->sessions);
	free(m);
}

static const ac_checkpoint_store_ops memory_ops = {
	.version = AC_CHECKPOINT_STORE_OPS_VERSION,
	.name = "memory",
	.save = memory_save,
	.list = memory_list,
	.latest = NULL, /* derived from list */
	.get = memory_get,
	.remove = memory_remove,
	.free = memory_free,
};

int ac_checkpoint_store_memory_new(ac_checkpoint_store **out)
{
	memory_store *m = calloc(1, sizeof(*m));

	if (!m || !(m->sessions = json_object())) {
		free(m);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	m->base.ops = &memory_ops;
	*out = &m->base;
	return 0;
}

/* ---- none: the no-op provider ------------------------------------------ */

static int none_save(ac_checkpoint_store *store, const json_t *doc)
{
	(void)store;
	(void)doc;
	return 0;
}

static int none_list(ac_checkpoint_store *store, json_t **out, const ac_checkpoint_filter *filter)
{
	(void)store;
	(void)filter;
	if (!(*out = json_array()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

static int none_latest(ac_checkpoint_store *store, json_t **out, const char *session_id)
{
	(void)out;
	(void)store;
	return ac_error_set(AC_ENOTFOUND, "session '%s' has no checkpoint (checkpoints are not "
			    "stored)", session_id);
}

static int none_get(ac_checkpoint_store *store, json_t **out, const char *session_id,
		    const char *checkpoint_id)
{
	(void)out;
	(void)store;
	return ac_error_set(AC_ENOTFOUND, "checkpoint '%s' of session '%s' not found "
			    "(checkpoints are not stored)", checkpoint_id, session_id);
}

static int none_remove(ac_checkpoint_store *store, const char *session_id,
		       const char *checkpoint_id)
{
	return none_get(store, NULL, session_id, checkpoint_id);
}

static void none_free(ac_checkpoint_store *store)
{
	free(store);
}

static const ac_checkpoint_store_ops none_ops = {
	.version = AC_CHECKPOINT_STORE_OPS_VERSION,
	.name = "none",
	.save = none_save,
	.list = none_list,
	.latest = none_latest,
	.get = none_get,
	.remove = none_remove,
	.free = none_free,
};

int ac_checkpoint_store_none_new(ac_checkpoint_store **out)
{
	ac_checkpoint_store *store = calloc(1, sizeof(*store));

	if (!store)
		return ac_error_set(AC_ENOMEM, "out of memory");
	store->ops = &none_ops;
	*out = store;
	return 0;
}
