/* The checkpoint document: its id rules, the accessors for its fields,
 * validation and the order of a session's checkpoints (version, then id).
 * Reading and writing them is the store's (ac_checkpoint_store*.c);
 * creating one and rolling back to one live in their own files. */
#include "ac_checkpoint.h"
#include "ac_checkpoint_impl.h"

#include "ac_error.h"
#include "ac_session.h"

#include <stdlib.h>
#include <string.h>

int ac_checkpoint_id_check(const char *id)
{
	int rc = ac_session_id_check(id);

	/* Same rules, but the message must say which kind of id is at fault. */
	if (rc) {
		const char *reason = ac_error_last();

		if (!strncmp(reason, "session id", 10))
			reason += 10;
		return ac_error_set(rc, "checkpoint id%s", reason);
	}
	return 0;
}

/* Shared with creating (ac_checkpoint_impl.h). */
const char *ac_checkpoint_str_member(const json_t *doc, const char *key)
{
	const char *value = json_string_value(json_object_get(doc, key));

	return value ? value : "";
}

const char *ac_checkpoint_id(const json_t *doc)
{
	return ac_checkpoint_str_member(doc, "checkpointId");
}

const char *ac_checkpoint_session(const json_t *doc)
{
	return ac_checkpoint_str_member(doc, "sessionId");
}

const char *ac_checkpoint_node(const json_t *doc)
{
	return ac_checkpoint_str_member(doc, "nodeId");
}

int64_t ac_checkpoint_version(const json_t *doc)
{
	return (int64_t)json_integer_value(json_object_get(doc, "version"));
}

json_t *ac_checkpoint_history(const json_t *doc)
{
	json_t *history = json_object_get(doc, "messageHistory");

	return json_is_array(history) ? history : NULL;
}

bool ac_checkpoint_is_tombstone(const json_t *doc)
{
	/* Koog marks one with properties.tombstone = true (and an empty
	 * history); DESIGN.md with nodeId "tombstone". Either is one. */
	return !strcmp(ac_checkpoint_node(doc), AC_CHECKPOINT_TOMBSTONE) ||
	       json_is_true(json_object_get(json_object_get(doc, "properties"),
					    AC_CHECKPOINT_TOMBSTONE));
}

int ac_checkpoint_validate(const json_t *doc)
{
	const json_t *version = json_object_get(doc, "version");

	if (!json_is_object(doc))
		return ac_error_set(AC_ECORRUPT, "not a JSON object");
	if (!json_is_string(json_object_get(doc, "checkpointId")))
		return ac_error_set(AC_ECORRUPT, "checkpointId: missing or not a string");
	if (ac_checkpoint_id_check(ac_checkpoint_id(doc)) != 0)
		return ac_error_set(AC_ECORRUPT, "%s", ac_error_last());
	if (!json_is_string(json_object_get(doc, "sessionId")))
		return ac_error_set(AC_ECORRUPT, "sessionId: missing or not a string");
	if (!json_is_integer(version) || json_integer_value(version) < 0)
		return ac_error_set(AC_ECORRUPT, "version: missing or not a non-negative integer");
	if (!json_is_array(json_object_get(doc, "messageHistory")))
		return ac_error_set(AC_ECORRUPT, "messageHistory: missing or not an array");
	return 0;
}

static int compare_checkpoints(const void *a, const void *b)
{
	const json_t *x = *(const json_t *const *)a, *y = *(const json_t *const *)b;
	int64_t vx = ac_checkpoint_version(x), vy = ac_checkpoint_version(y);

	if (vx != vy)
		return vx < vy ? -1 : 1;
	return strcmp(ac_checkpoint_id(x), ac_checkpoint_id(y));
}

int ac_checkpoint_sort(json_t *array)
{
	size_t n = json_array_size(array);
	json_t **items;
	int rc = 0;

	if (n < 2)
		return 0;
	if (!(items = malloc(n * sizeof(*items))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		items[i] = json_incref(json_array_get(array, i));
	qsort(items, n, sizeof(*items), compare_checkpoints);
	for (size_t i = 0; i < n; i++)
		if (json_array_set(array, i, items[i]))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		json_decref(items[i]);
	free(items);
	return rc;
}
