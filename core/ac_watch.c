/* inotify watches on the workspace's folders, or stat polling. */
#include "ac_watch.h"

#include "ac_backend.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_oplog_intent.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

/* One watched folder and the changes its events mean. */
typedef struct {
	char *dir;
	int wd;
	unsigned kind;     /* the AC_WATCH_* its events raise */
	char *only_name;   /* when set, only events on this name count */
	char *name_prefix; /* ...or on names starting with this (rotated journals) */
	bool file;         /* polling compares dir/only_name itself (appends) */
	struct stat last;  /* polling: the last stat of dir/only_name or dir */
} watched;

/* items[TRACE_ITEM] is the followed trace, when nitems says it is there. */
enum { SESSIONS_ITEM = 1, CKPT_ITEM = 3, FIXED_ITEMS = 5, TRACE_ITEM = FIXED_ITEMS };

/* More session files named in one read than this, and listing the folder
 * again costs less than refreshing each. */
#define SESSION_NAMES_MAX 256

/* A per-session checkpoint folder (<checkpoints>/<sessionId>/): checkpoints
 * are written there, not in the folder watched as items[CKPT_ITEM], so
 * each gets its own watch (and, when polling, its own last stat). */
typedef struct {
	char *name;
	int wd;
	struct stat last;
	bool seen; /* found by the scan in progress */
} subdir;

struct ac_watch {
	int fd;
	int poll_ms;
	const char *polling_reason; /* NULL with inotify */
	watched items[FIXED_ITEMS + 1];
	size_t nitems;
	char *data_dir; /* the file-system backend's folder: <root>/.agent */
	subdir *subs;   /* the checkpoint folders of sessions */
	size_t nsubs, cap_subs;
	/* The session files the last read's events named, when they named
	 * every change in the sessions folder (sessions_named). */
	char *session_names[SESSION_NAMES_MAX];
	size_t nsession_names;
	bool sessions_named;
};

static const uint32_t watch_mask = IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_TO | IN_MOVED_FROM |
				   IN_CREATE | IN_DELETE | IN_ATTRIB | IN_DELETE_SELF |
				   IN_MOVE_SELF;

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
}

static void item_stat(const watched *item, struct stat *out)
{
	char path[PATH_MAX];
	int n = item->file ? snprintf(path, sizeof(path), "%s/%s", item->dir, item->only_name) : 0;

	if (n < 0 || (size_t)n >= sizeof(path) || stat(item->file ? path : item->dir, out) != 0)
		memset(out, 0, sizeof(*out));
}

static void item_free(watched *item)
{
	free(item->dir);
	free(item->only_name);
	free(item->name_prefix);
	memset(item, 0, sizeof(*item));
	item->wd = -1;
}

static int add_item(ac_watch *w, const char *dir, unsigned kind, const char *only_name,
		    const char *name_prefix)
{
	watched *item = &w->items[w->nitems];

	memset(item, 0, sizeof(*item));
	item->wd = -1;
	item->kind = kind;
	item->dir = strdup(dir);
	item->only_name = only_name ? strdup(only_name) : NULL;
	item->name_prefix = name_prefix ? strdup(name_prefix) : NULL;
	if (!item->dir || (only_name && !item->only_name) || (name_prefix && !item->name_prefix))
		return ac_error_set(AC_ENOMEM, "out of memory");
	w->nitems++;
	return 0;
}

/* A watched file's folder may not exist yet (no session written so far):
 * watch the nearest existing ancestor instead, and rescan when it appears. */
static int add_inotify_watch(ac_watch *w, watched *item)
{
	item->wd = inotify_add_watch(w->fd, item->dir, watch_mask);
	if (item->wd >= 0)
		return 0;
	if (errno == ENOENT)
		return 0; /* poll-free: the parent's IN_CREATE makes us retry */
	return -errno;
}

static bool same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ino == b->st_ino;
}

static void subs_drop(ac_watch *w, size_t i)
{
	if (w->fd >= 0 && w->subs[i].wd >= 0)
		inotify_rm_watch(w->fd, w->subs[i].wd);
	free(w->subs[i].name);
	w->subs[i] = w->subs[--w->nsubs];
}

/* Brings the list of per-session checkpoint folders up to date: a new one
 * is watched (inotify) or remembered (polling), a gone one forgotten.
 * True when a folder came, went or (polling) changed: its checkpoints
 * must be read again. Folders that cannot be watched are looked at again
 * on the next scan. */
static bool scan_subdirs(ac_watch *w)
{
	const char *dir = w->items[CKPT_ITEM].dir;
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *e;
	bool changed = false;

	for (size_t i = 0; i < w->nsubs; i++)
		w->subs[i].seen = false;
	while (d && (e = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;
		size_t i;
		int n;

		if (e->d_name[0] == '.')
			continue;
		n = snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (n < 0 || (size_t)n >= sizeof(path) || stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		for (i = 0; i < w->nsubs && strcmp(w->subs[i].name, e->d_name); i++)
			;
		if (i == w->nsubs) {
			subdir *grown;

			if (w->nsubs == w->cap_subs) {
				size_t cap = w->cap_subs ? 2 * w->cap_subs : 16;

				if (!(grown = realloc(w->subs, cap * sizeof(*grown))))
					break; /* out of memory: the next scan tries again */
				w->subs = grown;
				w->cap_subs = cap;
			}
			if (!(w->subs[i].name = strdup(e->d_name)))
				break;
			w->subs[i].wd = w->fd >= 0 ? inotify_add_watch(w->fd, path, watch_mask) : -1;
			w->subs[i].last = st;
			w->nsubs++;
			changed = true;
		} else if (!same_stat(&w->subs[i].last, &st)) {
			w->subs[i].last = st;
			changed = true;
		}
		if (w->fd >= 0 && w->subs[i].wd < 0 &&
		    (w->subs[i].wd = inotify_add_watch(w->fd, path, watch_mask)) >= 0)
			changed = true;
		w->subs[i].seen = true;
	}
	if (d)
		closedir(d);
	for (size_t i = w->nsubs; i-- > 0;)
		if (!w->subs[i].seen) {
			subs_drop(w, i);
			changed = true;
		}
	return changed;
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int ac_watch_new(ac_watch **out, const ac_workspace *ws, int poll_ms)
{
	ac_watch *w = calloc(1, sizeof(*w));
	char *journal_dir = NULL, *ops_dir = NULL, *prefix = NULL;
	const char *journal_name = base_of(ws->journal_path);
	size_t stem = strlen(journal_name);
	int rc;

	if (!w)
		return ac_error_set(AC_ENOMEM, "out of memory");
	w->fd = -1;
	w->poll_ms = poll_ms > 0 ? poll_ms : poll_ms < 0 ? -poll_ms : 1000;
	journal_dir = dir_of(ws->journal_path);
	ops_dir = dir_of(ws->operations_path);
	if (stem > 6 && !strcmp(journal_name + stem - 6, ".jsonl"))
		stem -= 6;
	prefix = strndup(journal_name, stem);
	if (!journal_dir || !ops_dir || !prefix ||
	    asprintf(&w->data_dir, "%s/.agent", ws->root) < 0) {
		w->data_dir = NULL;
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto fail;
	}
	/* The journal is watched through its folder so that rotation,
	 * replacement and re-creation are seen like `tail -F` sees them. */
	if ((rc = add_item(w, journal_dir, AC_WATCH_JOURNAL, NULL, prefix)) ||
	    (rc = add_item(w, ws->sessions_dir, AC_WATCH_SESSIONS, NULL, NULL)) ||
	    (rc = add_item(w, ops_dir, AC_WATCH_OPERATIONS, base_of(ws->operations_path), NULL)) ||
	    (rc = add_item(w, ws->checkpoints_dir, AC_WATCH_CHECKPOINTS, NULL, NULL)) ||
	    /* A rollback's intent (ac_oplog_intent.h) comes and goes beside
	     * the log: shown with the operations. */
	    (rc = add_item(w, w->data_dir, AC_WATCH_OPERATIONS, AC_OPLOG_INTENT_FILE, NULL)))
		goto fail;
	w->fd = poll_ms < 0 ? -1 : inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (poll_ms < 0) {
		w->polling_reason = "polling was asked for";
	} else if (w->fd < 0) {
		w->polling_reason = "inotify is not available";
	} else {
		for (size_t i = 0; i < w->nitems; i++) {
			int err = -add_inotify_watch(w, &w->items[i]);

			if (err == ENOSPC) {
				w->polling_reason = "inotify watches are exhausted (fs.inotify.max_user_watches)";
				break;
			}
		}
		if (w->polling_reason) {
			close(w->fd);
			w->fd = -1;
		}
	}
	for (size_t i = 0; i < w->nitems; i++)
		item_stat(&w->items[i], &w->items[i].last);
	scan_subdirs(w);
	free(journal_dir);
	free(ops_dir);
	free(prefix);
	*out = w;
	return 0;
fail:
	free(journal_dir);
	free(ops_dir);
	free(prefix);
	ac_watch_free(w);
	return rc;
}

static void forget_session_names(ac_watch *w)
{
	for (size_t i = 0; i < w->nsession_names; i++)
		free(w->session_names[i]);
	w->nsession_names = 0;
}

void ac_watch_free(ac_watch *w)
{
	if (!w)
		return;
	forget_session_names(w);
	if (w->fd >= 0)
		close(w->fd);
	for (size_t i = 0; i < w->nitems; i++)
		item_free(&w->items[i]);
	for (size_t i = 0; i < w->nsubs; i++)
		free(w->subs[i].name);
	free(w->subs);
	free(w->data_dir);
	free(w);
}

/* Drops the followed trace's inotify watch, unless another item shares it
 * (inotify gives one wd per folder). */
static void drop_trace(ac_watch *w)
{
	watched *item = &w->items[TRACE_ITEM];
	bool shared = false;

	if (w->nitems <= TRACE_ITEM)
		return;
	for (size_t i = 0; i < TRACE_ITEM; i++)
		shared |= item->wd >= 0 && w->items[i].wd == item->wd;
	if (w->fd >= 0 && item->wd >= 0 && !shared)
		inotify_rm_watch(w->fd, item->wd);
	item_free(item);
	w->nitems = TRACE_ITEM;
}

int ac_watch_trace(ac_watch *w, const char *tenant, const char *session_id)
{
	char *dir = NULL, *name = NULL;
	watched *item = &w->items[TRACE_ITEM];
	int rc = 0;

	drop_trace(w);
	if (!tenant || !session_id)
		return 0;
	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", session_id)))
		return rc;
	if (asprintf(&dir, "%s/traces/%s", w->data_dir, tenant) < 0 ||
	    asprintf(&name, "%s.jsonl", session_id) < 0) {
		free(dir);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	if ((rc = add_item(w, dir, AC_WATCH_TRACES, name, NULL)) != 0) {
		item_free(item);
		goto done;
	}
	item->file = true;
	if (w->fd >= 0 && add_inotify_watch(w, item) != 0)
		item->wd = -1; /* tried again in ac_watch_read(), like a missing folder */
	item_stat(item, &item->last);
done:
	free(dir);
	free(name);
	return rc;
}

int ac_watch_fd(const ac_watch *w)
{
	return w->fd;
}

int ac_watch_timeout_ms(const ac_watch *w)
{
	if (w->fd < 0)
		return w->poll_ms;
	/* A folder that does not exist yet cannot be watched: look again now
	 * and then, so it is picked up soon after it appears. */
	for (size_t i = 0; i < w->nitems; i++)
		if (w->items[i].wd < 0)
			return 2000;
	/* A session's checkpoint folder without a watch (none left) is
	 * compared by its stat instead (scan_subdirs()). */
	for (size_t i = 0; i < w->nsubs; i++)
		if (w->subs[i].wd < 0)
			return 2000;
	return -1;
}

bool ac_watch_polling(const ac_watch *w, const char **out_reason)
{
	if (out_reason)
		*out_reason = w->polling_reason;
	return w->fd < 0;
}

static bool name_counts(const watched *item, const char *name)
{
	if (item->only_name)
		return !strcmp(name, item->only_name);
	if (item->name_prefix)
		return !strncmp(name, item->name_prefix, strlen(item->name_prefix));
	return true;
}

/* Polling: a folder's mtime changes when entries come and go; a file's
 * contents show in the files' own stats, so each watched item is compared
 * as a whole by the newest mtime/size among its entries. */
static bool item_changed(watched *item)
{
	struct stat now;
	bool changed;

	item_stat(item, &now);
	changed = now.st_mtim.tv_sec != item->last.st_mtim.tv_sec ||
		  now.st_mtim.tv_nsec != item->last.st_mtim.tv_nsec || now.st_ino != item->last.st_ino ||
		  (item->file && now.st_size != item->last.st_size);
	item->last = now;
	return changed;
}

static unsigned poll_changes(ac_watch *w)
{
	/* Appends do not touch a folder's mtime, so while polling, every
	 * interval asks the readers to look; they read only new bytes or
	 * changed files, so a quiet workspace costs a few stat calls. */
	unsigned mask = AC_WATCH_JOURNAL | AC_WATCH_OPERATIONS | AC_WATCH_SESSIONS;

	for (size_t i = 0; i < w->nitems; i++)
		if (item_changed(&w->items[i]))
			mask |= w->items[i].kind;
	/* A checkpoint written into a session's folder changes only that
	 * folder's mtime. */
	if (scan_subdirs(w))
		mask |= AC_WATCH_CHECKPOINTS;
	return mask;
}

/* An event in the sessions folder: a session file's name is kept for
 * ac_watch_session_files(); one without a usable name (the folder itself,
 * a folder in it) means the folder must be listed again. Other names
 * (temp files) change no session. */
static void note_session_event(ac_watch *w, const struct inotify_event *ev)
{
	size_t len = ev->len ? strlen(ev->name) : 0;

	if (!w->sessions_named)
		return;
	if (!len || (ev->mask & (IN_ISDIR | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))) {
		w->sessions_named = false;
		return;
	}
	if (len <= 5 || strcmp(ev->name + len - 5, ".json"))
		return;
	for (size_t i = 0; i < w->nsession_names; i++)
		if (!strcmp(w->session_names[i], ev->name))
			return;
	if (w->nsession_names == SESSION_NAMES_MAX ||
	    !(w->session_names[w->nsession_names] = strdup(ev->name))) {
		w->sessions_named = false;
		return;
	}
	w->nsession_names++;
}

bool ac_watch_session_files(const ac_watch *w, const char *const **out_names, size_t *out_n)
{
	*out_names = (const char *const *)w->session_names;
	*out_n = w->sessions_named ? w->nsession_names : 0;
	return w->sessions_named;
}

unsigned ac_watch_read(ac_watch *w)
{
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	unsigned mask = 0;
	bool rescan_subs = false;
	ssize_t n;

	forget_session_names(w);
	/* Polling sees that the folder changed, not which file. */
	w->sessions_named = w->fd >= 0;
	if (w->fd < 0)
		return poll_changes(w);
	while ((n = read(w->fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			p += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				w->sessions_named = false;
				mask |= AC_WATCH_RESCAN | AC_WATCH_JOURNAL | AC_WATCH_SESSIONS |
					AC_WATCH_OPERATIONS | AC_WATCH_CHECKPOINTS | AC_WATCH_TRACES;
				rescan_subs = true;
				continue;
			}
			for (size_t i = 0; i < w->nsubs; i++)
				if (ev->wd == w->subs[i].wd) {
					mask |= AC_WATCH_CHECKPOINTS;
					if (ev->mask & IN_IGNORED)
						w->subs[i].wd = -1; /* gone: the scan below forgets it */
					rescan_subs |= (ev->mask & (IN_IGNORED | IN_DELETE_SELF |
								   IN_MOVE_SELF)) != 0;
				}
			if (ev->wd == w->items[CKPT_ITEM].wd && w->items[CKPT_ITEM].wd >= 0 &&
			    (ev->mask & (IN_ISDIR | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)))
				rescan_subs = true; /* a session's folder came or went */
			for (size_t i = 0; i < w->nitems; i++) {
				watched *item = &w->items[i];

				if (ev->wd != item->wd)
					continue;
				if (i == SESSIONS_ITEM)
					note_session_event(w, ev);
				if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
					item->wd = -1; /* re-added below once it exists again */
					mask |= item->kind;
				} else if (!ev->len || name_counts(item, ev->name)) {
					mask |= item->kind;
				}
			}
		}
	}
	/* Folders that did not exist (or went away) are tried again, cheaply. */
	for (size_t i = 0; i < w->nitems; i++)
		if (w->items[i].wd < 0 && add_inotify_watch(w, &w->items[i]) == 0 &&
		    w->items[i].wd >= 0) {
			mask |= w->items[i].kind;
			w->sessions_named &= i != SESSIONS_ITEM; /* files came while unwatched */
			rescan_subs |= i == CKPT_ITEM;
		}
	for (size_t i = 0; i < w->nsubs && !rescan_subs; i++)
		rescan_subs = w->subs[i].wd < 0;
	if (rescan_subs && scan_subdirs(w))
		mask |= AC_WATCH_CHECKPOINTS;
	return mask;
}
