/* agentctl storage migrate (--to URL | --from URL) [--tenant T] [--dry-run]
 * [--json]:
 * copies the workspace's files into the PostgreSQL database URL names, or
 * that database back into the workspace's files (ac_migrate.h). With --to,
 * --tenant gives the sessions that name no tenant (seed-style files) one
 * in the database, which keeps every session under a tenant; with --from,
 * it copies only that tenant's sessions and data (a team's database holds
 * every tenant's: one workspace takes its own), the journal whole (its
 * events name no tenant). --from without --tenant copies every tenant's,
 * as a restore of the whole database does. The URL
 * comes from the argument alone, which the operator typed (the rule
 * --storage follows); storage.url in any config is not consulted, and the
 * workspace side is always its files.
 *
 * One line per kind (copied, already there, conflicts), one verification
 * line per kind (how many of the source's items the destination holds
 * equal), each conflict or failure as one line on stderr. Exit 0 when
 * everything is at the destination, 1 otherwise (a conflict, an item not
 * copied, a count that does not match, an unreachable store), 2 for bad
 * usage. The database is opened first: when it cannot be, nothing has
 * been written anywhere. A dry run does not upgrade its schema either
 * (open_database_unchanged()). */
#include "cli.h"

#include "ac_backend_fs.h"
#include "ac_backend_pg.h"
#include "ac_error.h"
#include "ac_migrate.h"
#include "ac_text.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	ac_backend backend;
	ac_checkpoint_store *checkpoints;
	ac_journal_store *journal;
} side;

static void side_close(side *s)
{
	ac_backend_close(&s->backend);
	if (s->checkpoints)
		ac_checkpoint_store_free(s->checkpoints);
	if (s->journal)
		ac_journal_store_free(s->journal);
}

static int open_database(side *s, const cli_context *ctx, const char *url)
{
	ac_backend_pg_options opts = {.version = AC_BACKEND_PG_OPTIONS_VERSION, .url = url};

	if (ac_backend_pg_init(&s->backend, &opts) ||
	    ac_checkpoint_store_pg_new(&s->checkpoints, url, NULL) ||
	    ac_journal_store_pg_new(&s->journal, url, NULL, NULL, &ctx->ws.schema))
		return cli_error(CLI_FAILED, "storage migrate: %s", ac_error_last());
	return CLI_OK;
}

static int open_files_in(side *s, const cli_context *ctx, const char *sessions_dir,
			 const char *data_dir, const char *checkpoints_dir, const char *journal)
{
	ac_backend_fs_options opts = {.version = AC_BACKEND_FS_OPTIONS_VERSION,
		.sessions_dir = sessions_dir, .data_dir = data_dir};
	int rc = ac_backend_fs_init(&s->backend, &opts) ||
		 ac_checkpoint_store_file_new(&s->checkpoints, checkpoints_dir) ||
		 ac_journal_store_file_new(&s->journal, journal, &ctx->ws.journal, &ctx->ws.schema);

	return rc ? cli_error(CLI_FAILED, "storage migrate: %s", ac_error_last()) : CLI_OK;
}

static int open_files(side *s, const cli_context *ctx)
{
	ac_buf data_dir = AC_BUF_INIT;
	int status;

	if (ac_buf_printf(&data_dir, "%s/.agent", ctx->ws.root))
		return cli_error(CLI_FAILED, "out of memory");
	status = open_files_in(s, ctx, ctx->ws.sessions_dir, data_dir.data,
			       ctx->ws.checkpoints_dir, ctx->ws.journal_path);
	ac_buf_free(&data_dir);
	return status;
}

/* The paths of an empty stand-in store under dir: [0] sessions, [1] data,
 * [2] checkpoints, [3] journal. A dry run writes nothing, so at most the
 * folders are there to remove: innermost first. */
#define STAND_IN_PATHS 4
static const char *const stand_in_parts[STAND_IN_PATHS] = {
	"/.agent/sessions", "/.agent", "/.agent/checkpoints", "/JOURNAL.jsonl"};

static void stand_in_remove(char *dir)
{
	static const char *const folders[] = {"/.agent/sessions", "/.agent/checkpoints", "/.agent",
					      ""};
	ac_buf path = AC_BUF_INIT;

	if (!dir)
		return;
	for (size_t i = 0; i < sizeof(folders) / sizeof(folders[0]); i++) {
		ac_buf_clear(&path);
		if (ac_buf_printf(&path, "%s%s", dir, folders[i]) == 0)
			rmdir(path.data);
	}
	ac_buf_free(&path);
	free(dir);
}

/* A dry run changes nothing, the database's schema included. A database
 * at this agentctl's schema is opened as always (that changes nothing);
 * one with no agentctl schema yet holds nothing of agentctl's, so the run
 * counts against empty stand-in stores (*stand_in: their folder, to
 * remove); an older schema is said, not upgraded. */
static int open_database_unchanged(side *s, char **stand_in, const cli_context *ctx,
				   const char *url)
{
	const char *tmp = getenv("TMPDIR");
	ac_buf paths[STAND_IN_PATHS] = {AC_BUF_INIT, AC_BUF_INIT, AC_BUF_INIT, AC_BUF_INIT};
	int version, latest, missing, status = CLI_OK;

	*stand_in = NULL;
	if (ac_storage_check_url(url, &version, &latest, &missing))
		return cli_error(CLI_FAILED, "storage migrate: %s", ac_error_last());
	if (missing == 0)
		return open_database(s, ctx, url);
	if (version > 0)
		return cli_error(CLI_FAILED, "storage migrate --dry-run: the database is at schema "
				 "version %d and this agentctl expects %d: a dry run does not "
				 "upgrade it (storage migrate without --dry-run does)",
				 version, latest);
	if (asprintf(stand_in, "%s/agentctl-migrate-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) {
		*stand_in = NULL;
		return cli_error(CLI_FAILED, "out of memory");
	}
	if (!mkdtemp(*stand_in))
		return cli_error(CLI_FAILED, "storage migrate: %s: %s", *stand_in, strerror(errno));
	for (int i = 0; i < STAND_IN_PATHS && !status; i++)
		if (ac_buf_printf(&paths[i], "%s%s", *stand_in, stand_in_parts[i]))
			status = cli_error(CLI_FAILED, "out of memory");
	if (!status)
		status = open_files_in(s, ctx, paths[0].data, paths[1].data, paths[2].data,
				       paths[3].data);
	for (int i = 0; i < STAND_IN_PATHS; i++)
		ac_buf_free(&paths[i]);
	return status;
}

static void problem(ac_migrate_kind kind, const char *key, bool conflict, const char *why,
		    void *ctx)
{
	(void)ctx;
	cli_note("storage migrate: %s %s %s: %s", conflict ? "conflict:" : "not copied:",
		 ac_migrate_kind_name(kind), key, why);
}

/* Test seam: AGENTCTL_TEST_MIGRATE_KILL_AFTER=N ends the process with
 * SIGKILL after its Nth write, so a test can check what a crash leaves. */
static long kill_after;

static void after_write(ac_migrate_kind kind, void *ctx)
{
	(void)kind;
	(void)ctx;
	if (kill_after > 0 && --kill_after == 0)
		raise(SIGKILL);
}

static bool all_there(const ac_migrate_count *c, bool dry_run)
{
	return c->conflicts == 0 && c->failed == 0 && (dry_run || c->verified == c->source);
}

static void report_text(ac_buf *out, const ac_migrate_count *counts, bool dry_run)
{
	for (int k = 0; k < AC_MIGRATE_NKINDS; k++) {
		const ac_migrate_count *c = &counts[k];

		ac_buf_printf(out, "%s: %s %llu, already there %llu, conflicts %llu",
			      ac_migrate_kind_name(k), dry_run ? "would copy" : "copied",
			      (unsigned long long)c->copied, (unsigned long long)c->present,
			      (unsigned long long)c->conflicts);
		if (c->failed)
			ac_buf_printf(out, ", not copied %llu", (unsigned long long)c->failed);
		if (c->skipped)
			ac_buf_printf(out, ", unreadable in the source %llu (not copied)",
				      (unsigned long long)c->skipped);
		ac_buf_printf(out, "%s\n", c->copied == 0 && !dry_run ? " (0 new)" : "");
	}
	for (int k = 0; k < AC_MIGRATE_NKINDS && !dry_run; k++)
		ac_buf_printf(out, "verified %s: %llu in the source, %llu of them at the destination%s\n",
			      ac_migrate_kind_name(k), (unsigned long long)counts[k].source,
			      (unsigned long long)counts[k].verified,
			      counts[k].verified == counts[k].source ? "" : " (MISMATCH)");
	ac_buf_printf(out, "not copied: the operation log and git history (they stay with the "
		      "worktree)\n");
}

static void report_json(ac_buf *out, const ac_migrate_count *counts, const char *direction,
			const char *store, bool dry_run, bool ok)
{
	json_t *doc = json_pack("{s:s, s:s, s:b, s:b, s:{}}", "direction", direction, "store",
				store, "dryRun", dry_run, "ok", ok, "kinds");
	json_t *kinds = json_object_get(doc, "kinds");
	char *text;

	for (int k = 0; doc && k < AC_MIGRATE_NKINDS; k++) {
		const ac_migrate_count *c = &counts[k];

		json_object_set_new(kinds, ac_migrate_kind_name(k),
				    json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "copied",
					      (json_int_t)c->copied, "alreadyThere",
					      (json_int_t)c->present, "conflicts",
					      (json_int_t)c->conflicts, "notCopied",
					      (json_int_t)c->failed, "source", (json_int_t)c->source,
					      "verified", (json_int_t)c->verified, "unreadable",
					      (json_int_t)c->skipped));
	}
	if (doc && (text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER))) {
		ac_buf_printf(out, "%s\n", text);
		free(text);
	}
	json_decref(doc);
}

int cli_storage_migrate(cli_context *ctx, int argc, char **argv)
{
	const char *to_url, *from_url, *tenant, *url, *env;
	bool dry_run, json, ok = true;
	ac_migrate_count counts[AC_MIGRATE_NKINDS];
	side files = {0}, db = {0};
	ac_buf out = AC_BUF_INIT;
	char *shown = NULL, *stand_in = NULL;
	cli_args a;
	int status = CLI_OK, rc;

	if ((status = cli_args_parse_as(&a, "storage migrate", argc, argv)))
		return status;
	to_url = cli_args_get(&a, "--to");
	from_url = cli_args_get(&a, "--from");
	tenant = cli_args_get(&a, "--tenant");
	dry_run = cli_args_has(&a, "--dry-run");
	json = cli_args_has(&a, "--json");
	if (!to_url == !from_url)
		return cli_error(CLI_USAGE, "usage: storage migrate (--to URL | --from URL) "
				 "[--tenant T] [--dry-run] [--json]");
	url = to_url ? to_url : from_url;
	if (!*url)
		return cli_error(CLI_USAGE, "storage migrate: the URL is empty");
	if (tenant && ac_backend_id_check("tenant", tenant))
		return cli_error(CLI_USAGE, "storage migrate: --tenant: %s", ac_error_last());
	if ((env = getenv("AGENTCTL_TEST_MIGRATE_KILL_AFTER")))
		kill_after = strtol(env, NULL, 10);
	shown = ac_storage_url_redact(url);
	/* The database first: unreachable, nothing is written anywhere. */
	if ((status = dry_run ? open_database_unchanged(&db, &stand_in, ctx, url)
			      : open_database(&db, ctx, url)) ||
	    (status = open_files(&files, ctx)))
		goto done;
	{
		ac_migrate_store f = {&files.backend, files.checkpoints, files.journal};
		ac_migrate_store d = {&db.backend, db.checkpoints, db.journal};
		ac_migrate_options opts = {.version = AC_MIGRATE_OPTIONS_VERSION,
					   .dry_run = dry_run, .tenant = to_url ? tenant : NULL,
					   .only_tenant = to_url ? NULL : tenant,
					   .problem = problem, .after_write = after_write};

		rc = ac_migrate_run(counts, to_url ? &f : &d, to_url ? &d : &f, &opts);
	}
	for (int k = 0; k < AC_MIGRATE_NKINDS; k++)
		ok = ok && all_there(&counts[k], dry_run);
	if (rc)
		ok = false;
	if (json)
		report_json(&out, counts, to_url ? "to" : "from", shown ? shown : "", dry_run,
			    ok);
	else
		report_text(&out, counts, dry_run);
	if (!json || rc == 0)
		cli_write(out.data, out.len);
	if (counts[AC_MIGRATE_JOURNAL].skipped)
		cli_note("storage migrate: %llu journal line%s in the source %s not a valid event and "
			 "%s not copied (agentctl journal check --all names them)",
			 (unsigned long long)counts[AC_MIGRATE_JOURNAL].skipped,
			 counts[AC_MIGRATE_JOURNAL].skipped == 1 ? "" : "s",
			 counts[AC_MIGRATE_JOURNAL].skipped == 1 ? "is" : "are",
			 counts[AC_MIGRATE_JOURNAL].skipped == 1 ? "was" : "were");
	if (rc)
		status = cli_error(CLI_FAILED, "storage migrate: stopped: %s", ac_error_last());
	else if ((status = cli_finish_output()) == CLI_OK && !ok)
		status = CLI_FAILED;
done:
	side_close(&db);
	side_close(&files);
	stand_in_remove(stand_in);
	ac_buf_free(&out);
	free(shown);
	return status;
}
