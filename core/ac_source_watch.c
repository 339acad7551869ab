/* inotify on the coding agents' folders (ac_source_watch.h). */
#include "ac_source_watch.h"

#include "ac_buf.h"
#include "ac_error.h"

#include <dirent.h>
#include <sys/stat.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

/* What a transcript's folder sees when a tool writes: appends, a file
 * written whole and renamed into place (Gemini), new files and folders. */
#define EVENTS (IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_DELETE | \
		IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF)

struct ac_source_watch {
	int fd;
	json_t *watched; /* folder -> true */
};

int ac_source_watch_new(ac_source_watch **out)
{
	ac_source_watch *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w || !(w->watched = json_object())) {
		free(w);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	*out = w;
	return 0;
}

void ac_source_watch_free(ac_source_watch *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	json_decref(w->watched);
	free(w);
}

int ac_source_watch_fd(const ac_source_watch *w)
{
	return w ? w->fd : -1;
}

static void add(ac_source_watch *w, const char *folder)
{
	if (json_object_get(w->watched, folder))
		return;
	/* ONLYDIR and DONT_FOLLOW: a link planted there is not followed. */
	if (inotify_add_watch(w->fd, folder, EVENTS | IN_ONLYDIR | IN_DONT_FOLLOW) >= 0)
		json_object_set_new(w->watched, folder, json_true());
}

/* The folder of path and those above it, up to (and with) root. */
static void add_up_to(ac_source_watch *w, const char *path, const char *root)
{
	size_t n = strlen(root);
	char *folder = strdup(path), *slash;

	if (!folder)
		return;
	while ((slash = strrchr(folder, '/')) && (size_t)(slash - folder) >= n) {
		*slash = '\0';
		if (strncmp(folder, root, n))
			break;
		add(w, folder);
	}
	free(folder);
}

/* folder and its sub-folders depth levels down (links not followed). */
static void add_tree(ac_source_watch *w, const char *folder, int depth)
{
	ac_buf path = AC_BUF_INIT;
	struct dirent *d;
	DIR *dir;

	add(w, folder);
	if (depth <= 0 || !(dir = opendir(folder)))
		return;
	while ((d = readdir(dir))) {
		struct stat st;

		if (d->d_name[0] == '.')
			continue;
		ac_buf_clear(&path);
		if (ac_buf_printf(&path, "%s/%s", folder, d->d_name) == 0 &&
		    lstat(path.data, &st) == 0 && S_ISDIR(st.st_mode))
			add_tree(w, path.data, depth - 1);
	}
	closedir(dir);
	ac_buf_free(&path);
}

void ac_source_watch_update(ac_source_watch *w, ac_source_index *index)
{
	ac_source_session *const *list;
	const ac_source_options *opts = ac_source_index_options(index);
	size_t n;

	if (!w || w->fd < 0)
		return;
	/* Down to where a new transcript appears in a folder that exists: a
	 * Claude Code project, a Gemini project's chats/; Codex's day folders
	 * (new each day) only above the rollouts listed, else the poll;
	 * Antigravity's brain/, where a conversation's folder appears. */
	static const int depth[AC_SOURCE_COUNT] = {[AC_SOURCE_CLAUDE] = 1, [AC_SOURCE_CODEX] = 1,
						   [AC_SOURCE_GEMINI] = 2, [AC_SOURCE_AGY] = 1};

	for (int k = 0; k < AC_SOURCE_COUNT; k++)
		if (opts->dir[k])
			add_tree(w, opts->dir[k], depth[k]);
	/* Claude Code's status files change with no transcript write (a
	 * permission prompt opens): their folder too. A crash changes no
	 * file: the steady poll notices it. */
	if (opts->status_dir)
		add(w, opts->status_dir);
	list = ac_source_index_list(index, &n);
	for (size_t i = 0; i < n; i++)
		if (opts->dir[list[i]->kind])
			add_up_to(w, list[i]->path, opts->dir[list[i]->kind]);
}

bool ac_source_watch_read(ac_source_watch *w)
{
	char buf[16 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false;
	ssize_t got;

	if (!w || w->fd < 0)
		return false;
	while ((got = read(w->fd, buf, sizeof(buf))) > 0 || (got < 0 && errno == EINTR))
		any = any || got > 0;
	return any;
}
