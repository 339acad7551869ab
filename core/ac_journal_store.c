/* The journal store interface's shared half: choosing the store. */
#include "ac_journal_store.h"

#include "ac_error.h"
#include "ac_journal_index.h"

int ac_journal_store_open(ac_journal_store **out, const ac_workspace *ws)
{
	const char *url = NULL;
	int rc;

	/* The journal lives in the workspace's store (ac_workspace.h). */
	if ((rc = ac_workspace_store_url(&url, ws)))
		return rc;
	if (url)
		return ac_journal_store_pg_new(out, url, NULL, NULL, &ws->schema);
	if ((rc = ac_journal_store_file_new(out, ws->journal_path, &ws->journal, &ws->schema)))
		return rc;
	/* A workspace's journal queries through its index (docs/JOURNAL.md). */
	if (ws->root && (rc = ac_journal_store_file_use_index(*out, ws->root))) {
		ac_journal_store_free(*out);
		*out = NULL;
	}
	return rc;
}

int ac_journal_store_version_check(const ac_journal_store *store)
{
	if (!store || !store->ops)
		return ac_error_set(AC_EINVAL, "journal store: missing");
	if (store->ops->version != AC_JOURNAL_STORE_OPS_VERSION)
		return ac_error_set(AC_EINVAL,
				    "journal store version %u: this library's are version %u "
				    "(begin its ops with .version = AC_JOURNAL_STORE_OPS_VERSION)",
				    store->ops->version, AC_JOURNAL_STORE_OPS_VERSION);
	return 0;
}

int ac_journal_store_append(ac_journal_store *store, const char *line, size_t len,
			    ac_journal_append_info *info)
{
	int rc;

	if ((rc = ac_journal_store_version_check(store)))
		return rc;
	return store->ops->append(store, info, line, len);
}

int ac_journal_store_follow(ac_journal_store *store, uint64_t *seq, size_t backlog,
			    ac_scan_stats *stats, ac_scan_fn fn, void *ctx)
{
	int rc;

	if ((rc = ac_journal_store_version_check(store)))
		return rc;
	if (!store->ops->follow)
		return ac_error_set(AC_ENOTSUP, "the %s journal is followed by its file watcher, "
				    "not by seq", store->ops->name);
	return store->ops->follow(store, stats, seq, backlog, fn, ctx);
}

void ac_journal_store_free(ac_journal_store *store)
{
	if (store)
		store->ops->free(store);
}
