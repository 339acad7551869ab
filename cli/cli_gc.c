/* agentctl gc: retention over the workspace's files and, with storage.url,
 * its database (ac_gc.h). The plan is printed with --dry-run, else what
 * was removed; nothing goes by default. */
#include "cli.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_gc.h"
#include "ac_time.h"

#include <stdlib.h>
#include <string.h>

/* item's path shown relative to the workspace when it lies inside it. */
static const char *shown_path(const cli_context *ctx, const char *path)
{
	size_t n = strlen(ctx->ws.root);

	if (n && !strncmp(path, ctx->ws.root, n) && path[n] == '/')
		return path + n + 1;
	return path;
}

static void put_item(const cli_context *ctx, const char *verb, const ac_gc_item *item)
{
	ac_buf line = AC_BUF_INIT;

	ac_buf_printf(&line, "%s %s ", verb, ac_gc_kind_name(item->kind));
	cli_put_cell(&line, shown_path(ctx, item->path), 0);
	ac_buf_printf(&line, " %llu bytes (", (unsigned long long)item->bytes);
	cli_put_cell(&line, item->why, 0);
	ac_buf_printf(&line, ")\n");
	cli_write(line.data, line.len);
	ac_buf_free(&line);
}

static void report_removal(const ac_gc_item *item, int rc, void *ctx)
{
	if (rc == 0)
		put_item(ctx, "removed", item);
	else
		cli_note("gc: left %s: %s", shown_path(ctx, item->path), ac_error_last());
}

static int gc_usage(void)
{
	return cli_error(CLI_USAGE, "usage: agentctl gc [--keep N] [--older-than AGE] [--dry-run] "
			 "(give --keep, --older-than or both: nothing is removed by default)");
}

static int parse_gc_args(ac_gc_policy *policy, bool *dry_run, int argc, char **argv)
{
	const char *keep, *older_than;
	cli_args a;
	int status;

	if ((status = cli_args_parse_as(&a, "gc", argc, argv)))
		return status;
	*dry_run = cli_args_has(&a, "--dry-run");
	if ((keep = cli_args_get(&a, "--keep"))) {
		if ((status = cli_parse_count(&policy->keep, "--keep", keep)))
			return status;
		policy->has_keep = true;
	}
	older_than = cli_args_get(&a, "--older-than");
	if (older_than && ac_gc_parse_age(&policy->older_than_ms, older_than))
		return cli_error(CLI_USAGE, "--older-than: %s", ac_error_last());
	if (!policy->has_keep && policy->older_than_ms <= 0)
		return gc_usage();
	return CLI_OK;
}

/* Plans policy over store and prints the plan, or applies it; adds what
 * went (or would) to *files and *bytes. */
static int gc_store(cli_context *ctx, ac_gc_store *store, const ac_gc_policy *policy,
		    bool dry_run, size_t *files, uint64_t *bytes)
{
	ac_gc_plan plan = {0};
	size_t removed = 0;
	uint64_t freed = 0;
	int status = CLI_OK;

	if (ac_gc_plan_make(&plan, store, policy)) {
		status = cli_error(CLI_FAILED, "gc: %s", ac_error_last());
	} else if (dry_run) {
		for (size_t i = 0; i < plan.count; i++)
			put_item(ctx, "would remove", &plan.items[i]);
		*files += plan.count;
		*bytes += plan.bytes;
	} else {
		if (ac_gc_apply(&removed, &freed, store, &plan, report_removal, ctx))
			status = cli_error(CLI_FAILED, "gc: %s", ac_error_last());
		*files += removed;
		*bytes += freed;
	}
	ac_gc_plan_free(&plan);
	return status;
}

/* gc's clock. AGENTCTL_TEST_GC_CLOCK_AHEAD (seconds) sets it ahead of the
 * host's: the tests' stand-in for a host whose clock is wrong, since gc
 * must keep what an operator action is using whatever the clocks say. */
static int64_t gc_now_ms(void)
{
	const char *ahead = getenv("AGENTCTL_TEST_GC_CLOCK_AHEAD");

	return ac_time_now_ms() + (ahead ? strtoll(ahead, NULL, 10) * 1000 : 0);
}

int cli_gc(cli_context *ctx, int argc, char **argv)
{
	ac_gc_policy policy = {.now_ms = gc_now_ms()};
	ac_gc_store *files = NULL, *database = NULL;
	ac_buf data_dir = AC_BUF_INIT, total = AC_BUF_INIT;
	bool dry_run = false;
	size_t count = 0;
	uint64_t bytes = 0;
	int status;

	if ((status = parse_gc_args(&policy, &dry_run, argc, argv)))
		return status;
	if (ctx->read_only && !dry_run)
		return cli_error(CLI_USAGE, "gc: --read-only forbids changes (--dry-run shows the plan)");
	/* gc has no subcommand for main's table of writers; it writes too:
	 * the session locks (<sessions>/.locks/<id>.lock) it takes. */
	if (!dry_run)
		cli_exclude_agent_state(ctx);
	if (ac_buf_printf(&data_dir, "%s/.agent", ctx->ws.root))
		return cli_error(CLI_FAILED, "out of memory");
	ac_gc_files_options opts = {
		.version = AC_GC_FILES_OPTIONS_VERSION,
		.sessions_dir = ctx->ws.sessions_dir,
		.checkpoints_dir = ctx->ws.checkpoints_dir,
		.data_dir = data_dir.data,
		.journal_path = ctx->ws.journal_path,
		.root = ctx->ws.root,
	};
	/* Both stores are opened before anything is removed from either. */
	if (ac_gc_store_files_new(&files, &opts) ||
	    ac_gc_store_open_workspace(&database, &ctx->ws)) {
		status = cli_error(CLI_FAILED, "gc: %s", ac_error_last());
		goto done;
	}
	status = gc_store(ctx, files, &policy, dry_run, &count, &bytes);
	if (!status && database)
		status = gc_store(ctx, database, &policy, dry_run, &count, &bytes);
	ac_buf_printf(&total, "%s %llu bytes in %zu %s\n", dry_run ? "would free" : "freed",
		      (unsigned long long)bytes, count, database ? "files and record sets" : "files");
	cli_write(total.data, total.len);
	if (!status)
		status = cli_finish_output();
done:
	ac_gc_store_free(files);
	ac_gc_store_free(database);
	ac_buf_free(&data_dir);
	ac_buf_free(&total);
	return status;
}
