/* Each listed session's parent row (ac_source.h), by id through the
 * transcript index's table (ac_source_paths.h): a listing of 200,000
 * sessions is not 200,000 JSON keys. */
#include "ac_source.h"

#include "ac_error.h"
#include "ac_source_paths.h"

#include <stdint.h>
#include <stdlib.h>

static const char *id_of_row(size_t i, void *list)
{
	return ((ac_source_session *const *)list)[i]->id;
}

int ac_source_parent_rows(size_t **out, ac_source_session *const *list, size_t n)
{
	ac_source_paths at = {0}; /* id -> row */
	size_t *parent = malloc((n + 1) * sizeof(*parent));
	bool linked = false; /* a row names a parent */
	int rc = 0;

	*out = NULL;
	if (!parent)
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		parent[i] = SIZE_MAX;
		linked = linked || list[i]->parent_id;
	}
	/* Rows by id, when a row names a parent. An id twice names its last
	 * row: the first added is the one found. */
	for (size_t i = n; linked && i-- > 0;)
		if ((rc = ac_source_paths_add(&at, list[i]->id, i)))
			goto done;
	for (size_t k = 0; linked && k < n; k++)
		if (list[k]->parent_id)
			parent[k] = ac_source_paths_find(&at, list[k]->parent_id, id_of_row,
							 (void *)list);
	*out = parent;
	parent = NULL;
done:
	ac_source_paths_free(&at);
	free(parent);
	return rc;
}
