/* The journal store over the workspace's journal file (and, for --all, the
 * files rotation moved aside): the file engine as it is, behind the
 * interface. */
#include "ac_journal_store.h"

#include "ac_error.h"
#include "ac_journal_index.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	ac_journal_store base;
	char *path;
	char *root; /* the workspace's, for the index; NULL: no index */
	ac_journal_options opts;
	/* The last scan's files: its stats point into them until the next. */
	char **scanned;
	size_t nscanned;
} file_store;

static int file_append(ac_journal_store *store, ac_journal_append_info *info, const char *line,
		       size_t len)
{
	file_store *f = (file_store *)store;

	return ac_journal_append(info, f->path, line, len, &f->opts);
}

/* The files a command reads: the journal alone, or with all every rotated
 * one before it. */
static int files_of(char ***out, size_t *out_n, const file_store *f, bool all)
{
	if (all)
		return ac_journal_files(out, out_n, f->path);
	if (!(*out = calloc(1, sizeof(char *))) || !((*out)[0] = strdup(f->path))) {
		free(*out);
		*out = NULL;
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	*out_n = 1;
	return 0;
}

static int file_scan(ac_journal_store *store, ac_scan_stats *stats, bool all, const ac_query *q,
		     size_t last_n, ac_scan_format_fn format, const void *format_ctx,
		     ac_scan_write_fn write, void *write_ctx)
{
	file_store *f = (file_store *)store;
	int rc;

	ac_journal_files_free(f->scanned, f->nscanned);
	f->scanned = NULL;
	f->nscanned = 0;
	if ((rc = files_of(&f->scanned, &f->nscanned, f, all)))
		return rc;
	/* The last N read backward a few windows: no index needed. */
	if (last_n > 0 || !f->root)
		return ac_journal_scan_format(stats, (const char *const *)f->scanned, f->nscanned,
					      q, last_n, &store->schema, format, format_ctx, write,
					      write_ctx);
	/* File by file, each through its own index (an archive has one too:
	 * its name differs), the same output as one scan of them all. */
	for (size_t i = 0; i < f->nscanned && rc == 0; i++) {
		char *index_path = NULL;

		if ((rc = ac_journal_index_path(&index_path, f->root, f->scanned[i])))
			break;
		rc = ac_journal_index_scan(stats, f->scanned[i], f->root, index_path, q,
					   &store->schema, format, format_ctx, write, write_ctx);
		free(index_path);
	}
	return rc;
}

static int file_check(ac_journal_store *store, bool all, ac_check_fn bad,
		      ac_journal_checked_fn checked, void *ctx)
{
	file_store *f = (file_store *)store;
	char **files = NULL;
	size_t nfiles = 0;
	int rc;

	if ((rc = files_of(&files, &nfiles, f, all)))
		return rc;
	for (size_t i = 0; i < nfiles && !rc; i++) {
		uint64_t valid = 0, invalid = 0;

		char *index_path = NULL;

		if (f->root && (rc = ac_journal_index_path(&index_path, f->root, files[i])))
			break;
		if (!(rc = ac_journal_check_indexed(&valid, &invalid, files[i], f->root, index_path,
						    &store->schema, bad, ctx)))
			rc = checked(files[i], valid, invalid, ctx);
		free(index_path);
	}
	ac_journal_files_free(files, nfiles);
	return rc;
}

static int file_unread(ac_journal_store *store, char ***out, size_t *out_n)
{
	return ac_journal_unread(out, out_n, ((file_store *)store)->path);
}

static int file_rotate(ac_journal_store *store, char **out_rotated)
{
	file_store *f = (file_store *)store;

	return ac_journal_rotate(out_rotated, f->path, &f->opts);
}

static void file_free(ac_journal_store *store)
{
	file_store *f = (file_store *)store;

	ac_journal_files_free(f->scanned, f->nscanned);
	free(f->path);
	free(f->root);
	free(f);
}

static const ac_journal_store_ops file_ops = {
	.version = AC_JOURNAL_STORE_OPS_VERSION,
	.name = "file",
	.append = file_append,
	.scan = file_scan,
	.check = file_check,
	.rotate = file_rotate,
	.unread = file_unread,
	.free = file_free,
};

int ac_journal_store_file_new(ac_journal_store **out, const char *path,
			      const ac_journal_options *opts, const ac_event_schema *schema)
{
	file_store *f;
	int rc;

	if ((rc = ac_journal_options_check(opts)))
		return rc;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	f->opts = *opts;
	if (schema)
		f->base.schema = *schema;
	f->base.ops = &file_ops;
	*out = &f->base;
	return 0;
}

int ac_journal_store_file_use_index(ac_journal_store *store, const char *root)
{
	file_store *f = (file_store *)store;

	if (store->ops != &file_ops)
		return 0;
	free(f->root);
	if (!(f->root = strdup(root)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}
