/* Checkpoint headers: the fields a listing shows, kept without the
 * documents they come from, so listing thousands of checkpoints holds one
 * at a time. Providers that can read headers cheaply (the file provider)
 * implement list_headers; for the others they are taken from list. */
#include "ac_checkpoint.h"

#include "ac_error.h"

#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s, bool *failed)
{
	char *copy;

	if (!s)
		return NULL;
	if (!(copy = strdup(s)))
		*failed = true;
	return copy;
}

void ac_checkpoint_header_clear(ac_checkpoint_header *h)
{
	free(h->checkpoint_id);
	free(h->node_id);
	free(h->created_at);
	free(h->parent_id);
	memset(h, 0, sizeof(*h));
}

int ac_checkpoint_header_get(ac_checkpoint_header *out, const json_t *doc)
{
	const json_t *parent;
	bool failed = false;

	memset(out, 0, sizeof(*out));
	out->checkpoint_id = dup_or_null(ac_checkpoint_id(doc), &failed);
	out->node_id = dup_or_null(ac_checkpoint_node(doc), &failed);
	out->created_at = dup_or_null(json_string_value(json_object_get(doc, "createdAt")), &failed);
	parent = json_object_get(doc, "parentId");
	if (json_is_string(parent)) {
		out->parent_id_len = json_string_length(parent);
		if (!(out->parent_id = malloc(out->parent_id_len + 1)))
			failed = true;
		else
			memcpy(out->parent_id, json_string_value(parent), out->parent_id_len + 1);
	}
	out->version = ac_checkpoint_version(doc);
	out->messages = json_array_size(ac_checkpoint_history(doc));
	out->tombstone = ac_checkpoint_is_tombstone(doc);
	if (failed) {
		ac_checkpoint_header_clear(out);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	return 0;
}

int ac_checkpoint_header_list_take(ac_checkpoint_header_list *list, ac_checkpoint_header *h)
{
	if (list->count == list->capacity) {
		size_t capacity = list->capacity ? list->capacity * 2 : 64;
		ac_checkpoint_header *items = capacity > SIZE_MAX / sizeof(*items)
						      ? NULL
						      : realloc(list->items, capacity * sizeof(*items));

		if (!items) {
			ac_checkpoint_header_clear(h);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		list->items = items;
		list->capacity = capacity;
	}
	list->items[list->count++] = *h;
	memset(h, 0, sizeof(*h));
	return 0;
}

void ac_checkpoint_header_list_free(ac_checkpoint_header_list *list)
{
	for (size_t i = 0; i < list->count; i++)
		ac_checkpoint_header_clear(&list->items[i]);
	free(list->items);
	memset(list, 0, sizeof(*list));
}

/* The order of ac_checkpoint_sort(): version, then checkpointId. */
static int compare_headers(const void *a, const void *b)
{
	const ac_checkpoint_header *x = a, *y = b;

	if (x->version != y->version)
		return x->version < y->version ? -1 : 1;
	return strcmp(x->checkpoint_id, y->checkpoint_id);
}

/* For providers without list_headers: the full documents, one by one. */
static int headers_from_list(ac_checkpoint_header_list *out, ac_checkpoint_store *store,
			     const ac_checkpoint_filter *filter)
{
	json_t *array = NULL, *doc;
	ac_checkpoint_header h;
	size_t i;
	int rc;

	if ((rc = store->ops->list(store, &array, filter)))
		return rc;
	json_array_foreach (array, i, doc) {
		if ((rc = ac_checkpoint_header_get(&h, doc)) ||
		    (rc = ac_checkpoint_header_list_take(out, &h)))
			break;
	}
	json_decref(array);
	return rc;
}

/* Leaves in list only the headers filter->match keeps, in their order. */
static void keep_matching_headers(ac_checkpoint_header_list *list,
				  const ac_checkpoint_filter *filter)
{
	size_t kept = 0;

	for (size_t i = 0; i < list->count; i++) {
		if (filter->match(&list->items[i], filter->match_ctx))
			list->items[kept++] = list->items[i];
		else
			ac_checkpoint_header_clear(&list->items[i]);
	}
	list->count = kept;
}

int ac_checkpoint_store_list_headers(ac_checkpoint_header_list *out, ac_checkpoint_store *store,
				     const ac_checkpoint_filter *filter)
{
	int rc;

	if ((rc = ac_checkpoint_store_version_check(store)) ||
	    (rc = ac_session_id_check(filter->session_id)))
		return rc;
	rc = store->ops->list_headers ? store->ops->list_headers(store, out, filter)
				      : headers_from_list(out, store, filter);
	if (rc)
		return rc;
	if (filter->match)
		keep_matching_headers(out, filter);
	if (out->count > 1)
		qsort(out->items, out->count, sizeof(*out->items), compare_headers);
	return 0;
}
