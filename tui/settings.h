/* The dashboard's settings over time: which theme it starts with (what is
 * configured, else what the operator chose last time with t, else a light
 * theme when COLORFGBG says the terminal is light, else dark), and the
 * configuration read again when one of its files changes (the project's
 * .agent/config.json or .agentrc.json, the user's config.json, the trust
 * store that `agentctl config trust` writes). A file
 * that no longer loads keeps the last good configuration, and the message
 * log says why. No curses here. */
#ifndef UI_SETTINGS_H
#define UI_SETTINGS_H

#include "dash.h"

#include "ac_config.h"
#include "ac_workspace.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define UI_SETTINGS_FILES 4

typedef struct {
	bool exists;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
} ui_file_sig;

typedef struct {
	char *paths[UI_SETTINGS_FILES]; /* the files watched (owned) */
	ui_file_sig sig[UI_SETTINGS_FILES];
	int64_t next_check_ms;
	const ac_config *first;         /* borrowed: the configuration the program loaded */
	ac_config *config;              /* the last good one reloaded (owned), or NULL */
	ac_workspace ws;                /* resolved from config when ws_ready */
	bool ws_ready;
} ui_settings;

/* How often the configuration files are looked at. */
#define UI_SETTINGS_CHECK_MS 1000

/* The theme to start with for config (see above): its name into name
 * (size bytes) and why it was chosen into why (size bytes). */
void ui_settings_initial_theme(const ac_config *config, char *name, char *why, size_t size);

/* False when config's theme comes from the project file: agents write it,
 * so it may only name an installed theme, never a path to open (a FIFO
 * froze the dashboard; any file root can read was opened). */
bool ui_settings_theme_path_ok(const ac_config *config);

/* Starts watching the configuration files of ws (loaded as config; both
 * borrowed and must outlive s). */
void ui_settings_init(ui_settings *s, const ac_workspace *ws, const ac_config *config);

/* Milliseconds until the files are looked at again (0: now). */
int ui_settings_wait_ms(const ui_settings *s, int64_t now_ms);

/* When it is time, looks at the files; when one changed, loads the
 * configuration again and applies it to d (its theme; the settings the
 * actions use, when the paths are unchanged), saying so in the message
 * log. True when d changed. */
bool ui_settings_check(ui_settings *s, ui_dash *d, int64_t now_ms);

void ui_settings_free(ui_settings *s);

#endif
