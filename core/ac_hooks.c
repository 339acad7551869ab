/* Status-change hooks and desktop notifications, started detached. */
#include "ac_hooks.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ac_hooks {
	const ac_workspace *ws;
	const char **on_change;   /* owned NULL-terminated argv (strings borrowed), or NULL */
	const char **desktop;
	bool bell;
	char *refusal;            /* why a configured command is left out, or NULL */
	char *log_path;
	char host[256];           /* this machine's name: the host of a row without one */
};

bool ac_hooks_notifies(const char *new_state)
{
	return !strcmp(new_state, "waiting") || !strcmp(new_state, "paused");
}

bool ac_hooks_bell(const ac_hooks *hooks)
{
	return hooks->bell;
}

const char *ac_hooks_refusal(const ac_hooks *hooks)
{
	return hooks->refusal;
}

/* key's argv when it may run: *out NULL when unset or refused (then
 * hooks->refusal keeps the first reason). */
static int command_of(const char ***out, ac_hooks *hooks, const char *key)
{
	json_t *argv = NULL, *item;
	size_t i;

	*out = NULL;
	if (!hooks->ws->config)
		return 0;
	if (ac_config_command(&argv, hooks->ws->config, key) != 0) {
		if (!hooks->refusal && !(hooks->refusal = strdup(ac_error_last())))
			return ac_error_set(AC_ENOMEM, "out of memory");
		ac_error_clear();
		return 0;
	}
	/* The config keeps it an array of strings (checked on load). */
	if (!json_is_array(argv) || json_array_size(argv) == 0)
		return 0;
	if (!(*out = calloc(json_array_size(argv) + 1, sizeof(char *))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	json_array_foreach (argv, i, item)
		(*out)[i] = json_string_value(item);
	return 0;
}

int ac_hooks_new(ac_hooks **out, const ac_workspace *ws)
{
	ac_hooks *h = calloc(1, sizeof(*h));
	ac_buf path = AC_BUF_INIT;
	int rc;

	*out = NULL;
	if (!h)
		return ac_error_set(AC_ENOMEM, "out of memory");
	h->ws = ws;
	if (gethostname(h->host, sizeof(h->host) - 1) != 0)
		h->host[0] = '\0';
	h->bell = ws->config && ac_config_bool(ws->config, "notify.bell", false);
	if ((rc = command_of(&h->on_change, h, "hooks.onStatusChange")) ||
	    (rc = command_of(&h->desktop, h, "notify.desktop")))
		goto done;
	if (ac_buf_printf(&path, "%s/.agent/hooks.log", ws->root ? ws->root : ".")) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	h->log_path = ac_buf_detach(&path);
done:
	ac_buf_free(&path);
	if (rc)
		ac_hooks_free(h);
	else
		*out = h;
	return rc;
}

void ac_hooks_free(ac_hooks *hooks)
{
	if (!hooks)
		return;
	free(hooks->on_change);
	free(hooks->desktop);
	free(hooks->refusal);
	free(hooks->log_path);
	free(hooks);
}

int ac_hooks_argv(char ***out, const char *const *template, const char *id,
		  const char *old_state, const char *new_state, const char *host, const char *reason)
{
	static const char *const names[] = AC_HOOKS_PLACEHOLDERS;
	const char *const values[] = {id, old_state, new_state, host ? host : "",
				      reason ? reason : "", NULL};
	char **expanded = NULL, **wrapped = NULL, limit[16];
	size_t n = 0;
	int rc;

	*out = NULL;
	if ((rc = ac_proc_expand_argv(&expanded, template, names, values)))
		return rc;
	while (expanded[n])
		n++;
	/* A hook that hangs is killed (KILL 2 s after TERM): the dashboard
	 * never waits for it, but it must not linger either. */
	snprintf(limit, sizeof(limit), "%ds", AC_HOOKS_TIMEOUT_S);
	if (!(wrapped = calloc(n + 5, sizeof(char *))) || !(wrapped[0] = strdup("timeout")) ||
	    !(wrapped[1] = strdup("-k")) || !(wrapped[2] = strdup("2")) ||
	    !(wrapped[3] = strdup(limit))) {
		ac_proc_argv_free(wrapped);
		ac_proc_argv_free(expanded);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	memcpy(wrapped + 4, expanded, n * sizeof(char *));
	free(expanded); /* its strings are wrapped's now */
	*out = wrapped;
	return 0;
}

static int start(const ac_hooks *h, const char *const *template, const char *id,
		 const char *source, const char *old_state, const char *new_state,
		 const char *waiting_for, const char *host)
{
	/* The reason is also a variable: a hook may want it out of its argv
	 * (text it did not write); "{reason}" is one whole argument, never
	 * seen by a shell unless the hook hands it to one. */
	const char *reason = waiting_for ? waiting_for : "";
	const char *where = host && *host ? host : h->host;
	const char *const env[] = {"AGENT_SESSION_ID", id, "AGENT_OLD_STATE", old_state,
				   "AGENT_NEW_STATE", new_state, "AGENT_SOURCE", source,
				   "AGENT_WAITING_FOR", reason, "AGENT_HOST", where, NULL};
	char **argv = NULL;
	int rc;

	if ((rc = ac_hooks_argv(&argv, template, id, old_state, new_state, where, reason)) == 0)
		rc = ac_proc_spawn_detached_env(NULL, (const char *const *)argv, env, h->ws->root,
						h->log_path);
	ac_proc_argv_free(argv);
	return rc;
}

bool ac_hooks_on_change(const ac_hooks *hooks)
{
	return hooks->on_change != NULL;
}

bool ac_hooks_any(const ac_hooks *hooks)
{
	return hooks->on_change || hooks->desktop;
}

int ac_hooks_status_changed(ac_hooks *hooks, bool on_change, const char *id, const char *source,
			    const char *old_state, const char *new_state, const char *waiting_for,
			    const char *host)
{
	int rc = 0, one;

	if (on_change && hooks->on_change &&
	    (one = start(hooks, hooks->on_change, id, source, old_state, new_state,
				 waiting_for, host)))
		rc = one;
	if (hooks->desktop && ac_hooks_notifies(new_state) &&
	    (one = start(hooks, hooks->desktop, id, source, old_state, new_state,
				 waiting_for, host)))
		rc = one;
	return rc;
}
