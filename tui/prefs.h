/* The operator's preferences that the dashboard remembers for them (its
 * theme): small text values in the user's state folder,
 * $XDG_STATE_HOME/agentctl/<name> (default ~/.local/state/agentctl/<name>),
 * never in a workspace or the project file, which agents write. Not
 * configuration: what the operator configures wins over what is
 * remembered (ac_config.h). */
#ifndef UI_PREFS_H
#define UI_PREFS_H

/* The path of preference name (a plain file name), allocated for the
 * caller; AC_EINVAL when neither XDG_STATE_HOME nor HOME is set. */
int ui_prefs_path(char **out, const char *name);

/* The remembered value of name, without surrounding white space, into *out
 * (allocated; NULL when none is remembered). AC_E* when it cannot be read
 * (the message names the file). */
int ui_prefs_read(char **out, const char *name);

/* Remembers value for name: the folder is made, the file replaced
 * atomically. AC_E* naming the file when it cannot be written. */
int ui_prefs_write(const char *name, const char *value);

#endif
