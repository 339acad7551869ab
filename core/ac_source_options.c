/* Where the coding agents' transcripts are and what may run to resume
 * them, from the configuration (ac_source.h). The folders come only from
 * the operator's layers (ac_config.c refuses them in a project file); the
 * resume commands follow the trust rules of every command key. */
#include "ac_source_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_text.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* value with a leading "~/" taken from $HOME; a relative folder is taken
 * from $HOME too (these folders are the user's, never the workspace's). */
static char *home_path(const char *value)
{
	const char *home = getenv("HOME");
	ac_buf out = AC_BUF_INIT;

	if (value[0] == '/')
		return strdup(value);
	if (!home || !*home)
		return NULL;
	if (value[0] == '~' && (value[1] == '/' || value[1] == '\0'))
		value += value[1] ? 2 : 1;
	if (ac_buf_printf(&out, "%s/%s", home, value))
		return NULL;
	return ac_buf_detach(&out);
}

static int64_t limit(const ac_config *config, const char *key, int64_t fallback)
{
	int64_t v = ac_config_int(config, key, fallback);

	return v < 0 ? 0 : v;
}

void ac_source_state_limits(ac_state_thresholds *out, const ac_config *config)
{
	static const ac_state_thresholds defaults = AC_STATE_THRESHOLDS_DEFAULT;

	out->permission_ms = limit(config, "sources.state.permissionMs", defaults.permission_ms);
	out->idle_ms = limit(config, "sources.state.idleMs", defaults.idle_ms);
	out->ended_ms = limit(config, "sources.state.endedMs", defaults.ended_ms);
}

int ac_source_options_from_config(ac_source_options *opts, const ac_config *config,
				  const char *workspace, bool all_projects)
{
	const char *cache = getenv("XDG_CACHE_HOME");
	bool all_on = ac_config_bool(config, "sources.enabled", true);
	char resolved[PATH_MAX];
	ac_buf key = AC_BUF_INIT;
	int rc = 0;

	*opts = (ac_source_options)AC_SOURCE_OPTIONS_INIT;
	opts->all_projects = all_projects;
	ac_source_state_limits(&opts->limits, config);
	opts->workspace = strdup(realpath(workspace, resolved) ? resolved : workspace);
	if (!opts->workspace) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (int k = 0; k < AC_SOURCE_COUNT; k++) {
		const ac_source_adapter *a = ac_source_adapter_of((ac_source_kind)k);

		ac_buf_clear(&key);
		ac_buf_printf(&key, "sources.%s.enabled", a->key);
		if (!key.data) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		if (!ac_config_bool(config, key.data, all_on))
			continue;
		ac_buf_clear(&key);
		ac_buf_printf(&key, "sources.%s.dir", a->key);
		/* No HOME and no folder set: that source is simply off. */
		opts->dir[k] = home_path(ac_config_string(config, key.data, a->default_dir));
	}
	/* Claude Code's status files say what its live processes do. */
	if (opts->dir[AC_SOURCE_CLAUDE]) {
		const char *status = ac_config_string(config, "sources.claude.statusDir",
						      ".claude/sessions");

		if (status && *status && !(opts->status_dir = home_path(status)) && getenv("HOME")) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	}
	if (cache && cache[0] == '/') {
		ac_buf dir = AC_BUF_INIT;

		if (ac_buf_printf(&dir, "%s/agentctl", cache) == 0)
			opts->cache_dir = ac_buf_detach(&dir);
	} else {
		opts->cache_dir = home_path(".cache/agentctl");
	}
done:
	ac_buf_free(&key);
	if (rc)
		ac_source_options_free(opts);
	return rc;
}

void ac_source_options_free(ac_source_options *opts)
{
	for (int k = 0; k < AC_SOURCE_COUNT; k++)
		free(opts->dir[k]);
	free(opts->workspace);
	free(opts->cache_dir);
	free(opts->status_dir);
	memset(opts, 0, sizeof(*opts));
}

int ac_source_resume_command(const char ***out, const ac_config *config, ac_source_kind kind)
{
	const ac_source_adapter *a = ac_source_adapter_of(kind);
	json_t *array = NULL, *item;
	ac_buf key = AC_BUF_INIT;
	const char **argv = NULL;
	size_t i, n;
	int rc;

	*out = NULL;
	if (!a)
		return ac_error_set(AC_EINVAL, "no such source");
	if ((rc = ac_buf_printf(&key, "sources.%s.resumeCommand", a->key)) ||
	    (rc = ac_config_command(&array, config, key.data)))
		goto done;
	if (array && !json_array_size(array)) {
		rc = ac_error_set(AC_EINVAL, "%s is empty: nothing to run", key.data);
		goto done;
	}
	n = array ? json_array_size(array) : 3;
	if (!(argv = calloc(n + 1, sizeof(*argv)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (array)
		json_array_foreach(array, i, item)
			argv[i] = json_string_value(item);
	else
		for (i = 0; i < n; i++)
			argv[i] = a->default_resume[i];
	*out = argv;
done:
	ac_buf_free(&key);
	return rc;
}

int ac_source_id_check(const char *id)
{
	ac_buf shown = AC_BUF_INIT;
	size_t len = id ? strnlen(id, 129) : 0;
	int rc = 0;

	for (size_t i = 0; i < len && rc == 0; i++) {
		unsigned char c = (unsigned char)id[i];

		/* ASCII ranges, not isalnum(): the locale must not widen them. */
		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') &&
		    c != '.' && c != '_' && c != '-')
			rc = AC_EINVAL;
	}
	if (rc == 0 && len > 0 && len <= 128 && id[0] != '-')
		return 0;
	if (id)
		ac_text_sanitize(&shown, id, strnlen(id, 64));
	rc = ac_error_set(AC_EINVAL, "transcript id '%s%s': not a tool's session id (letters, "
			  "digits, '.', '_', '-', at most 128, not starting with '-'): not resumed",
			  shown.data ? shown.data : "", id && strlen(id) > 64 ? "..." : "");
	ac_buf_free(&shown);
	return rc;
}
