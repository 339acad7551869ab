/* Resolving a workspace's settings from its configuration. */
#include "ac_workspace.h"

#include "ac_control.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A config argv array as an owned NULL-terminated array of borrowed
 * strings; NULL when the key is unset or empty, or may not run
 * (ac_config_command() decides). */
static const char **argv_of(const ac_config *config, const char *key)
{
	json_t *array = NULL, *item;
	const char **argv;
	size_t i;

	if (ac_config_command(&array, config, key) != 0)
		ac_error_clear();
	if (!json_is_array(array) || json_array_size(array) == 0)
		return NULL;
	argv = calloc(json_array_size(array) + 1, sizeof(char *));
	if (argv)
		json_array_foreach(array, i, item)
			argv[i] = json_string_value(item);
	return argv;
}

/* Times in milliseconds, kept where an int holds them (a day at most). */
static int64_t clamp_ms(int64_t ms)
{
	return ms < 0 ? 0 : ms > 86400000 ? 86400000 : ms;
}

/* The summariser of a workspace whose summarizer.command is not trusted:
 * compaction is refused with the reason instead of silently using the
 * built-in summary. */
static int refuse_summary(char **out, const json_t *messages, void *ctx)
{
	json_t *command = NULL;

	(void)messages;
	*out = NULL;
	return ac_config_command(&command, ctx, "summarizer.command");
}

/* A names list from config (journal.agents, journal.actionTypes): *out
 * an owned array of strings borrowed from config, NULL when empty. */
static int names_of(const char ***out, size_t *out_n, const ac_config *config, const char *key)
{
	json_t *names = ac_config_get(config, key), *name;
	size_t i;

	*out = NULL;
	*out_n = 0;
	if (!json_is_array(names) || json_array_size(names) == 0)
		return 0;
	if (!(*out = calloc(json_array_size(names), sizeof(char *))))
		return AC_ENOMEM;
	json_array_foreach(names, i, name)
		(*out)[i] = json_string_value(name);
	*out_n = json_array_size(names);
	return 0;
}

/* What agentctl writes below .agent/ and below the sessions folder besides
 * the configured paths (the backends, hooks, operator logs, sandboxes). */
static const char *const data_entries[] = {"memo", "artifacts", "traces", "orchestration",
					    "logs", "sandboxes", "hooks.log", "hooks.lock"};
static const char *const sessions_entries[] = {".compactions", ".rollbacks", ".requests",
						".usage"};

static int check_under(const char *root, const char *dir, const char *const *names, size_t n)
{
	ac_buf path = AC_BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		ac_buf_clear(&path);
		rc = ac_buf_printf(&path, "%s/%s", dir, names[i])
			     ? ac_error_set(AC_ENOMEM, "out of memory")
			     : ac_file_check_in(root, path.data);
	}
	ac_buf_free(&path);
	return rc;
}

/* Every store path inside the workspace (a default, a project file's, or
 * the operator's when it points inside) stays inside once its links are
 * followed: a workspace cannot lead agentctl's writes and removals into
 * another folder by planting a link (ac_file_check_in()). */
static int check_store_paths(const ac_workspace *ws)
{
	const char *const paths[] = {ws->sessions_dir, ws->checkpoints_dir, ws->operations_path,
				     ws->journal_path};
	ac_buf data = AC_BUF_INIT;
	int rc = 0;

	if (ac_buf_printf(&data, "%s/.agent", ws->root))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_file_check_in(ws->root, data.data)))
		goto done;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && !rc; i++)
		rc = ac_file_check_in(ws->root, paths[i]);
	if (!rc)
		rc = check_under(ws->root, data.data, data_entries,
				 sizeof(data_entries) / sizeof(data_entries[0]));
	if (!rc)
		rc = check_under(ws->root, ws->sessions_dir, sessions_entries,
				 sizeof(sessions_entries) / sizeof(sessions_entries[0]));
done:
	ac_buf_free(&data);
	return rc;
}

int ac_workspace_init(ac_workspace *ws, const ac_config *config)
{
	json_t *command = NULL;
	int rc;

	memset(ws, 0, sizeof(*ws));
	ac_journal_options_init(&ws->journal);
	ac_compact_options_init(&ws->compact);
	ws->session_write = (ac_session_write_options)AC_SESSION_WRITE_OPTIONS_INIT;
	ws->config = config;
	ws->root = strdup(ac_config_workspace(config));
	ws->sessions_dir = ac_config_path(config, "sessionDir", ".agent/sessions");
	ws->journal_path = ac_config_path(config, "journalPath", "JOURNAL.jsonl");
	ws->operations_path = ac_config_path(config, "operationLogPath", ".agent/operations.jsonl");
	ws->checkpoints_dir = ac_config_path(config, "checkpointDir", ".agent/checkpoints");
	if (ac_config_command(&command, config, "rollbackTools") != 0)
		ac_error_clear();
	ws->rollback_tools = command;
	if (!ws->root || !ws->sessions_dir || !ws->journal_path || !ws->operations_path ||
	    !ws->checkpoints_dir)
		goto oom;
	if ((rc = check_store_paths(ws))) {
		ac_workspace_free(ws);
		return rc;
	}
	if (!strcmp(ac_config_string(config, "journal.fsync", "never"), "always"))
		ws->journal.fsync = AC_FSYNC_ALWAYS;
	ws->journal.rotate_bytes = (uint64_t)ac_config_int(config, "journal.rotateBytes", 0);
	ws->git_enabled = ac_config_bool(config, "gitEnabled", true);
	ws->journal.rotate_monthly = !strcmp(ac_config_string(config, "journal.rotate", ""), "monthly");
	int64_t foreign_stale_ms =
		ac_config_int(config, "lock.foreignStaleMs", ws->journal.lock.foreign_stale_ms);
	ws->journal.lock.foreign_stale_ms = foreign_stale_ms > INT_MAX ? INT_MAX : (int)foreign_stale_ms;
	if (names_of(&ws->extra_agents, &ws->schema.nextra_agents, config, "journal.agents") ||
	    names_of(&ws->extra_action_types, &ws->schema.nextra_action_types, config,
		     "journal.actionTypes"))
		goto oom;
	ws->schema.extra_agents = ws->extra_agents;
	ws->schema.extra_action_types = ws->extra_action_types;
	ws->resume_command = argv_of(config, "resumeCommand");
	ws->summarizer = argv_of(config, "summarizer.command");
	ws->consolidate_command = argv_of(config, "memory.consolidateCommand");
	ws->compact.trigger_tokens = (uint64_t)ac_config_int(config, "compaction.triggerTokens",
							     AC_COMPACT_TRIGGER_TOKENS);
	if (json_is_number(ac_config_get(config, "compaction.compactFraction")))
		ws->compact.fraction =
			json_number_value(ac_config_get(config, "compaction.compactFraction"));
	ws->compact.min_messages = (size_t)ac_config_int(config, "compaction.minMessages",
							 AC_COMPACT_MIN_MESSAGES);
	ws->compact.summarizer = ws->summarizer;
	ws->session_write.quiet_ms = (int)clamp_ms(ac_config_int(config, "session.quietMs", 1000));
	ws->session_write.wait_ms = (int)clamp_ms(ac_config_int(config, "session.waitMs", 5000));
	ws->compact.write = ws->session_write;
	ws->resume_timeout_ms = (int)clamp_ms(ac_config_int(config, "resume.timeoutMs", 30000));
	if (ac_config_get(config, "pauseSignal") &&
	    !(ws->pause_signal = ac_signal_from_name(ac_config_string(config, "pauseSignal", "")))) {
		char *why = strdup(ac_error_last());

		ac_error_set(AC_EINVAL, "%s: %s", ac_config_origin(config, "pauseSignal"),
			     why ? why : "pauseSignal");
		free(why);
		ac_workspace_free(ws);
		return AC_EINVAL;
	}
	if (ac_config_command(&command, config, "summarizer.command") != 0) {
		ac_error_clear();
		ws->compact.summarize = refuse_summary;
		ws->compact.summarize_ctx = (void *)config;
	}
	if (ws->compact.fraction <= 0 || ws->compact.fraction > 1) {
		ac_workspace_free(ws);
		return ac_error_set(AC_EINVAL, "%s: compaction.compactFraction must be above 0 and at most 1",
				    ac_config_origin(config, "compaction.compactFraction"));
	}
	if ((rc = ac_workspace_stores_new(&ws->stores, ws))) {
		ac_workspace_free(ws);
		return rc;
	}
	return 0;
oom:
	ac_workspace_free(ws);
	return ac_error_set(AC_ENOMEM, "out of memory");
}

void ac_workspace_free(ac_workspace *ws)
{
	free(ws->root);
	free(ws->sessions_dir);
	free(ws->journal_path);
	free(ws->operations_path);
	free(ws->checkpoints_dir);
	free(ws->extra_agents);
	free(ws->extra_action_types);
	free(ws->resume_command);
	free(ws->summarizer);
	free(ws->consolidate_command);
	ac_workspace_stores_free(ws->stores);
	memset(ws, 0, sizeof(*ws));
}

int ac_workspace_command(const char *const **out, const ac_workspace *ws, const char *key)
{
	json_t *command = NULL;
	int rc;

	*out = NULL;
	if (ws->config && (rc = ac_config_command(&command, ws->config, key)))
		return rc;
	if (!strcmp(key, "resumeCommand"))
		*out = ws->resume_command;
	else if (!strcmp(key, "summarizer.command"))
		*out = ws->summarizer;
	else if (!strcmp(key, "memory.consolidateCommand"))
		*out = ws->consolidate_command;
	else
		return ac_error_set(AC_EINVAL, "%s: not a command key", key);
	return 0;
}

int ac_workspace_rollback_tools(const json_t **out, const ac_workspace *ws)
{
	json_t *command = NULL;
	int rc;

	*out = NULL;
	if (ws->config && (rc = ac_config_command(&command, ws->config, "rollbackTools")))
		return rc;
	*out = ws->rollback_tools;
	return 0;
}
