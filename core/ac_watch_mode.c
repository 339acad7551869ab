/* Choosing how to follow a workspace: inotify, or polling where inotify
 * cannot see every writer. */
#include "ac_watch_mode.h"

#include "ac_fs_remote.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Folders that do not exist yet are judged by the folder they will be
 * made in. */
static bool folder_is_remote(const char *path, const char **name)
{
	char *copy;
	bool remote;

	if (!path)
		return false;
	if (ac_fs_is_remote(path, name))
		return true;
	if (!(copy = strdup(path)))
		return false;
	remote = ac_fs_is_remote(dirname(copy), name);
	free(copy);
	return remote;
}

void ac_watch_mode_choose(ac_watch_mode *out, const ac_workspace *ws, const char *setting)
{
	const char *folders[] = {ws->root, ws->sessions_dir, ws->checkpoints_dir, ws->journal_path,
				 ws->operations_path};
	const char *name = NULL;

	memset(out, 0, sizeof(*out));
	if (setting && !strcmp(setting, "poll")) {
		out->poll = true;
		snprintf(out->reason, sizeof(out->reason), "watch = poll");
		return;
	}
	if (setting && !strcmp(setting, "inotify"))
		return;
	for (size_t i = 0; i < sizeof(folders) / sizeof(folders[0]); i++) {
		if (folder_is_remote(folders[i], &name)) {
			out->poll = true;
			snprintf(out->reason, sizeof(out->reason),
				 "%s is on %s, where inotify misses other hosts' writes", folders[i],
				 name);
			return;
		}
	}
}
