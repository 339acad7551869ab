/* The dashboard's theme choice and configuration reloads (settings.h). */
#include "settings.h"

#include "prefs.h"
#include "screen.h"

#include "ac_buf.h"
#include "ac_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* COLORFGBG is "fg;bg" (rxvt, konsole; some add a middle field): the last
 * field is the background's colour number; 7 and 9-15 are light ones. */
static bool light_background(const char *colorfgbg)
{
	const char *bg = colorfgbg ? strrchr(colorfgbg, ';') : NULL;
	char *end;
	long n;

	if (!bg || !bg[1])
		return false;
	n = strtol(bg + 1, &end, 10);
	return *end == '\0' && (n == 7 || (n >= 9 && n <= 15));
}

void ui_settings_initial_theme(const ac_config *config, char *name, char *why, size_t size)
{
	const char *origin = ac_config_origin(config, "theme");
	const char *fgbg = getenv("COLORFGBG");
	char *remembered = NULL, *path = NULL;

	if (origin && strcmp(origin, "default")) {
		snprintf(name, size, "%s", ac_config_string(config, "theme", "dark"));
		snprintf(why, size, "configured in %s", origin);
	} else if (ui_prefs_read(&remembered, "theme") == 0 && remembered) {
		ui_prefs_path(&path, "theme");
		snprintf(name, size, "%s", remembered);
		snprintf(why, size, "chosen last time with t, remembered in %s", path ? path : "?");
	} else if (light_background(fgbg)) {
		snprintf(name, size, "light");
		snprintf(why, size, "COLORFGBG=%s says the background is light", fgbg);
	} else {
		snprintf(name, size, "dark");
		snprintf(why, size, "the default");
	}
	free(remembered);
	free(path);
}

bool ui_settings_theme_path_ok(const ac_config *config)
{
	const char *origin = config ? ac_config_origin(config, "theme") : NULL;
	const char *project = config ? ac_config_project_file(config) : NULL;

	return !(origin && project && !strcmp(origin, project));
}

static void sig_of(ui_file_sig *out, const char *path)
{
	struct stat st;

	memset(out, 0, sizeof(*out));
	if (!path || stat(path, &st) != 0)
		return;
	*out = (ui_file_sig){true, st.st_dev, st.st_ino, st.st_size, st.st_mtim};
}

static bool sig_equal(const ui_file_sig *a, const ui_file_sig *b)
{
	return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino &&
	       a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec;
}

void ui_settings_init(ui_settings *s, const ac_workspace *ws, const ac_config *config)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	ac_buf path = AC_BUF_INIT;

	memset(s, 0, sizeof(*s));
	s->first = config;
	ac_buf_printf(&path, "%s/.agent/config.json", ws->root);
	s->paths[0] = ac_buf_detach(&path);
	ac_buf_printf(&path, "%s/.agentrc.json", ws->root);
	s->paths[1] = ac_buf_detach(&path);
	/* The user file where ac_config_load() looks for it. */
	if (xdg && *xdg)
		ac_buf_printf(&path, "%s/agent/config.json", xdg);
	else if (home && *home)
		ac_buf_printf(&path, "%s/.config/agent/config.json", home);
	s->paths[2] = path.len ? ac_buf_detach(&path) : NULL;
	ac_buf_free(&path);
	/* Trusting the project file (here or from a shell) changes what its
	 * commands may do. */
	s->paths[3] = config && ac_config_trust_store(config) ? strdup(ac_config_trust_store(config))
							      : NULL;
	for (int i = 0; i < UI_SETTINGS_FILES; i++)
		sig_of(&s->sig[i], s->paths[i]);
}

int ui_settings_wait_ms(const ui_settings *s, int64_t now_ms)
{
	int64_t left = s->next_check_ms - now_ms;

	return left <= 0 ? 0 : left > UI_SETTINGS_CHECK_MS ? UI_SETTINGS_CHECK_MS : (int)left;
}

static bool same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* Applies the theme config names, when it is configured and not the one
 * shown; true when it changed. */
static bool apply_theme(ui_dash *d, const ac_config *config)
{
	const char *origin = ac_config_origin(config, "theme");
	const char *name = ac_config_string(config, "theme", NULL);
	char err[600];

	if (!origin || !strcmp(origin, "default") || !name || !strcmp(name, d->theme.name))
		return false;
	if (ui_theme_load(&d->theme, name, d->dirs, ui_settings_theme_path_ok(config), err,
			  sizeof(err)) != 0) {
		ui_model_set_action(&d->m, true, "theme from %s: %s (keeping %s)", origin, err,
				    d->theme.name);
		return true;
	}
	screen_set_theme(&d->theme);
	return true;
}

bool ui_settings_check(ui_settings *s, ui_dash *d, int64_t now_ms)
{
	const char *cli_theme = same(ac_config_origin(s->first, "theme"), "command line")
					? ac_config_string(s->first, "theme", NULL) : NULL;
	ac_config *fresh = NULL;
	ac_workspace ws;
	const char *changed = NULL;
	ui_file_sig now;

	if (now_ms < s->next_check_ms)
		return false;
	s->next_check_ms = now_ms + UI_SETTINGS_CHECK_MS;
	/* A running action reads the workspace settings: they change after it. */
	if (d->job)
		return false;
	for (int i = 0; i < UI_SETTINGS_FILES; i++) {
		sig_of(&now, s->paths[i]);
		if (!sig_equal(&now, &s->sig[i])) {
			s->sig[i] = now;
			changed = changed ? changed : s->paths[i];
		}
	}
	if (!changed)
		return false;
	if (ac_config_load(&fresh, d->ws->root) != 0 ||
	    (cli_theme && ac_config_set_cli(fresh, "theme", cli_theme) != 0) ||
	    ac_workspace_init(&ws, fresh) != 0) {
		ui_model_set_action(&d->m, true, "configuration not reloaded: %s; keeping the last "
				    "good configuration", ac_error_last());
		ac_config_free(fresh);
		return true;
	}
	if (!same(ws.sessions_dir, d->ws->sessions_dir) || !same(ws.journal_path, d->ws->journal_path) ||
	    !same(ws.operations_path, d->ws->operations_path) ||
	    !same(ws.checkpoints_dir, d->ws->checkpoints_dir)) {
		ui_model_set_action(&d->m, true, "configuration changed (%s) with new file paths: "
				    "restart the dashboard to follow them; nothing else was applied",
				    changed);
		ac_workspace_free(&ws);
		ac_config_free(fresh);
		return true;
	}
	/* The source and the watcher keep the first workspace (same paths);
	 * the actions use the new settings. */
	if (s->ws_ready)
		ac_workspace_free(&s->ws);
	ac_config_free(s->config);
	s->config = fresh;
	s->ws = ws;
	s->ws_ready = true;
	d->ws = &s->ws;
	apply_theme(d, fresh);
	ui_model_set_action(&d->m, false, "configuration reloaded (%s changed); theme %s", changed,
			    d->theme.name);
	return true;
}

void ui_settings_free(ui_settings *s)
{
	if (s->ws_ready)
		ac_workspace_free(&s->ws);
	ac_config_free(s->config);
	for (int i = 0; i < UI_SETTINGS_FILES; i++)
		free(s->paths[i]);
	memset(s, 0, sizeof(*s));
}
