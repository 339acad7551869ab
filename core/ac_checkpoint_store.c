/* The checkpoint store, whatever the provider: the checks made before a
 * provider is asked, and what is built on its few operations (listing in
 * order with a filter, latest, next version, retention, save). The
 * providers themselves are ac_checkpoint_store_{file,memory,pg}.c. */
#include "ac_checkpoint.h"

#include "ac_error.h"
#include "ac_session.h"

void ac_checkpoint_store_free(ac_checkpoint_store *store)
{
	if (store)
		store->ops->free(store);
}

int ac_checkpoint_store_version_check(const ac_checkpoint_store *store)
{
	if (!store || !store->ops)
		return ac_error_set(AC_EINVAL, "checkpoint store: missing");
	if (store->ops->version != AC_CHECKPOINT_STORE_OPS_VERSION)
		return ac_error_set(AC_EINVAL,
				    "checkpoint store version %u: this library's are version %u "
				    "(begin its ops with .version = AC_CHECKPOINT_STORE_OPS_VERSION)",
				    store->ops->version, AC_CHECKPOINT_STORE_OPS_VERSION);
	return 0;
}

void ac_checkpoint_store_set_problem(ac_checkpoint_store *store, ac_checkpoint_problem_fn fn,
				     void *ctx)
{
	store->problem = fn;
	store->problem_ctx = ctx;
}

void ac_checkpoint_store_set_retention(ac_checkpoint_store *store, size_t keep_last)
{
	store->keep_last = keep_last;
}

/* Leaves in array only the checkpoints filter->match keeps. */
static int keep_matching(json_t *array, const ac_checkpoint_filter *filter)
{
	if (!filter->match)
		return 0;
	for (size_t i = json_array_size(array); i-- > 0;) {
		ac_checkpoint_header h;
		bool keep;
		int rc;

		if ((rc = ac_checkpoint_header_get(&h, json_array_get(array, i))))
			return rc;
		keep = filter->match(&h, filter->match_ctx);
		ac_checkpoint_header_clear(&h);
		if (!keep && json_array_remove(array, i))
			return ac_error_set(AC_ENOMEM, "out of memory");
	}
	return 0;
}

int ac_checkpoint_store_list(json_t **out, ac_checkpoint_store *store,
			     const ac_checkpoint_filter *filter)
{
	json_t *array = NULL;
	int rc;

	if ((rc = ac_checkpoint_store_version_check(store)) ||
	    (rc = ac_session_id_check(filter->session_id)))
		return rc;
	if ((rc = store->ops->list(store, &array, filter)))
		return rc;
	if ((rc = keep_matching(array, filter)) || (rc = ac_checkpoint_sort(array))) {
		json_decref(array);
		return rc;
	}
	*out = array;
	return 0;
}

int ac_checkpoint_store_latest_matching(json_t **out, ac_checkpoint_store *store,
					const ac_checkpoint_filter *filter)
{
	ac_checkpoint_header_list list = {0};
	const ac_checkpoint_header *best = NULL;
	int rc;

	if ((rc = ac_checkpoint_store_list_headers(&list, store, filter)))
		goto done;
	for (size_t i = 0; i < list.count; i++)
		if (!best || list.items[i].version > best->version)
			best = &list.items[i];
	rc = best ? ac_checkpoint_store_get(out, store, filter->session_id, best->checkpoint_id)
		  : ac_error_set(AC_ENOTFOUND, "session '%s' has no checkpoint the filter keeps",
				 filter->session_id);
done:
	ac_checkpoint_header_list_free(&list);
	return rc;
}

int ac_checkpoint_store_latest(json_t **out, ac_checkpoint_store *store, const char *session_id)
{
	ac_checkpoint_filter filter = {.session_id = session_id, .include_tombstones = false};
	json_t *array = NULL;
	size_t n;
	int rc;

	if ((rc = ac_checkpoint_store_version_check(store)) || (rc = ac_session_id_check(session_id)))
		return rc;
	if (store->ops->latest)
		return store->ops->latest(store, out, session_id);
	if ((rc = ac_checkpoint_store_list(&array, store, &filter)))
		return rc;
	if ((n = json_array_size(array)) == 0)
		rc = ac_error_set(AC_ENOTFOUND, "session '%s' has no checkpoint", session_id);
	else
		*out = json_incref(json_array_get(array, n - 1));
	json_decref(array);
	return rc;
}

int ac_checkpoint_store_get(json_t **out, ac_checkpoint_store *store, const char *session_id,
			    const char *checkpoint_id)
{
	int rc;

	if ((rc = ac_checkpoint_store_version_check(store)) ||
	    (rc = ac_session_id_check(session_id)) || (rc = ac_checkpoint_id_check(checkpoint_id)))
		return rc;
	return store->ops->get(store, out, session_id, checkpoint_id);
}

int ac_checkpoint_store_delete(ac_checkpoint_store *store, const char *session_id,
			       const char *checkpoint_id)
{
	int rc;

	if ((rc = ac_checkpoint_store_version_check(store)) ||
	    (rc = ac_session_id_check(session_id)) || (rc = ac_checkpoint_id_check(checkpoint_id)))
		return rc;
	return store->ops->remove(store, session_id, checkpoint_id);
}

int ac_checkpoint_store_next_version(int64_t *out, ac_checkpoint_store *store,
				     const char *session_id)
{
	ac_checkpoint_filter filter = {.session_id = session_id, .include_tombstones = true};
	json_t *array = NULL;
	size_t n;
	int rc;

	if ((rc = ac_checkpoint_store_list(&array, store, &filter)))
		return rc;
	n = json_array_size(array);
	*out = 1;
	if (n) {
		const json_t *last = json_array_get(array, n - 1);
		int64_t version = ac_checkpoint_version(last);

		/* Checked before adding one: a planted INT64_MAX must not overflow. */
		if (version < 0 || version >= AC_CHECKPOINT_VERSION_MAX)
			rc = ac_error_set(AC_ECORRUPT, "checkpoint '%s' of session '%s' has version "
					  "%lld, outside 0..%lld: a corrupt or planted file; move "
					  "it aside to go on", ac_checkpoint_id(last), session_id,
					  (long long)version, (long long)AC_CHECKPOINT_VERSION_MAX - 1);
		else
			*out = version + 1;
	}
	json_decref(array);
	return rc;
}

int ac_checkpoint_store_retain(size_t *out_removed, ac_checkpoint_store *store,
			       const char *session_id, size_t keep_last)
{
	ac_checkpoint_filter filter = {.session_id = session_id, .include_tombstones = false};
	json_t *array = NULL;
	size_t n, removed = 0;
	int rc;

	if (keep_last == 0)
		goto finish;
	if ((rc = ac_checkpoint_store_list(&array, store, &filter)))
		return rc;
	n = json_array_size(array);
	/* Index 0 (the first checkpoint) and the last keep_last stay. */
	for (size_t i = 1; i + keep_last < n; i++) {
		const json_t *doc = json_array_get(array, i);

		rc = store->ops->remove(store, session_id, ac_checkpoint_id(doc));
		if (rc && rc != AC_ENOTFOUND) {
			json_decref(array);
			return rc;
		}
		removed += rc == 0;
	}
	json_decref(array);
finish:
	if (out_removed)
		*out_removed = removed;
	return 0;
}

int ac_checkpoint_store_save(ac_checkpoint_store *store, const json_t *doc)
{
	int rc;

	if ((rc = ac_checkpoint_store_version_check(store)))
		return rc;
	if ((rc = ac_checkpoint_validate(doc)))
		return ac_error_set(AC_EINVAL, "checkpoint: %s", ac_error_last());
	if ((rc = ac_session_id_check(ac_checkpoint_session(doc))))
		return rc;
	if ((rc = store->ops->save(store, doc)))
		return rc;
	return ac_checkpoint_store_retain(NULL, store, ac_checkpoint_session(doc), store->keep_last);
}
