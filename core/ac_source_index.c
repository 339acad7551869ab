/* Many transcripts kept up to date (ac_source.h): discovery, then an
 * incremental read of each file that changed, then the workspace's list.
 * A refresh costs a stat per transcript plus the bytes appended since the
 * last one; the cache (ac_source_cache.c) spares a new process the first
 * full read. */
#include "ac_codex_titles.h"
#include "ac_source_impl.h"
#include "ac_source_cache.h"
#include "ac_source_status.h"
#include "ac_sort_key.h"
#include "ac_source_paths.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_sha256.h"
#include "ac_struct_version.h"
#include "ac_text.h"
#include "ac_time.h"

#include <stdlib.h>
#include <string.h>

#define CACHE_SAVE_MS 30000
/* How long the processes' folders (a walk of /proc) are taken as known:
 * a dashboard refreshes on every write of an active transcript. */
#define FOLDERS_MS 2000

typedef struct {
	ac_source_session *s;
	unsigned seen; /* the refresh that last found the file */
	/* Its place in the list the last refresh made (SIZE_MAX: not in
	 * it): the cache keeps the sessions in that order (save_cache). */
	size_t rank;
} slot;

struct ac_source_index {
	ac_source_options opts;
	char gemini_hash[AC_SHA256_HEX_LEN + 1];
	slot *slots;
	size_t n, cap;
	ac_source_paths paths; /* path -> slot number */
	ac_source_session **listed;
	size_t nlisted;
	size_t nranked; /* the list's length when the slots' ranks were given */
	unsigned generation;
	char *cache_path;  /* NULL: no cache */
	bool cache_loaded;
	bool cache_dirty;  /* read since the last save */
	int64_t saved_at;  /* ms; a live dashboard saves at most every CACHE_SAVE_MS */
	json_t *folders;      /* Claude Code processes' folders (ac_source_status.h), or NULL */
	int64_t folders_at;   /* ms when they were looked up, 0 never */
	/* during a refresh */
	ac_source_kind kind;
	size_t read;
	/* The files the last refresh left out: what each said, escaped. */
	struct unreadable {
		ac_source_kind kind;
		char *reason;
	} *unreadable;
	size_t n_unreadable, cap_unreadable;
	ac_codex_titles codex_titles; /* Codex's names for its threads */
	/* The files a walk passed over this refresh (the canary), then what
	 * the canary says per source. */
	struct passed {
		ac_source_kind kind;
		char *path;
	} *passed;
	size_t n_passed, cap_passed;
	ac_source_drift drift[AC_SOURCE_COUNT];
};

static const char *path_of_slot(size_t i, void *ctx)
{
	return ((ac_source_index *)ctx)->slots[i].s->path;
}

static size_t slot_of(ac_source_index *ix, const char *path)
{
	return ac_source_paths_find(&ix->paths, path, path_of_slot, ix);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int ac_source_index_new(ac_source_index **out, const ac_source_options *opts)
{
	ac_source_index *ix;
	bool ok;
	int rc;

	*out = NULL;
	if ((rc = ac_struct_version_check("ac_source_options", opts->version,
					  AC_SOURCE_OPTIONS_VERSION, "AC_SOURCE_OPTIONS_INIT")))
		return rc;
	ix = calloc(1, sizeof(*ix));
	ok = ix != NULL;
	if (ok) {
		ix->opts.version = opts->version;
		ix->opts.all_projects = opts->all_projects;
		ix->opts.limits = opts->limits;
		for (int k = 0; k < AC_SOURCE_COUNT; k++)
			if (opts->dir[k] && !(ix->opts.dir[k] = strdup(opts->dir[k])))
				ok = false;
		ix->opts.workspace = dup_or_null(opts->workspace ? opts->workspace : "/");
		ix->opts.cache_dir = dup_or_null(opts->cache_dir);
		ix->opts.status_dir = dup_or_null(opts->status_dir);
		ok = ok && ix->opts.workspace && (!opts->cache_dir || ix->opts.cache_dir) &&
		     (!opts->status_dir || ix->opts.status_dir);
	}
	if (!ok) {
		ac_source_index_free(ix);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	ac_sha256_hex(ix->gemini_hash, ix->opts.workspace, strlen(ix->opts.workspace));
	if (ac_source_cache_path(&ix->cache_path, &ix->opts) != 0) {
		ac_source_index_free(ix);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	*out = ix;
	return 0;
}

static void save_cache(ac_source_index *ix, bool now);

static void forget_passed(ac_source_index *ix)
{
	for (size_t i = 0; i < ix->n_passed; i++)
		free(ix->passed[i].path);
	ix->n_passed = 0;
}

static void forget_unreadable(ac_source_index *ix)
{
	for (size_t i = 0; i < ix->n_unreadable; i++)
		free(ix->unreadable[i].reason);
	ix->n_unreadable = 0;
}

void ac_source_index_free(ac_source_index *ix)
{
	if (!ix)
		return;
	ix->read = 0;
	save_cache(ix, true);
	for (size_t i = 0; i < ix->n; i++)
		ac_source_session_free(ix->slots[i].s);
	free(ix->slots);
	free(ix->listed);
	free(ix->cache_path);
	forget_unreadable(ix);
	free(ix->unreadable);
	json_decref(ix->folders);
	ac_codex_titles_free(&ix->codex_titles);
	forget_passed(ix);
	free(ix->passed);
	for (int k = 0; k < AC_SOURCE_COUNT; k++) {
		ac_source_tally_free(&ix->drift[k].files);
		ac_source_tally_free(&ix->drift[k].types);
	}
	ac_source_paths_free(&ix->paths);
	ac_source_options_free(&ix->opts);
	free(ix);
}

/* Puts s (owned from now on) in a new slot, *out_at its number. */
static int add_slot(ac_source_index *ix, ac_source_session *s, size_t *out_at)
{
	int rc;

	if (ix->n == ix->cap) {
		size_t cap = ix->cap ? ix->cap * 2 : 64;
		slot *grown = realloc(ix->slots, cap * sizeof(*grown));

		if (!grown) {
			ac_source_session_free(s);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		ix->slots = grown;
		ix->cap = cap;
	}
	ix->slots[ix->n] = (slot){s, 0, SIZE_MAX};
	if ((rc = ac_source_paths_add(&ix->paths, s->path, ix->n))) {
		ac_source_session_free(s);
		return rc;
	}
	*out_at = ix->n++;
	return 0;
}

/* A record of the cache: a slot not yet seen by a walk (one the walk does
 * not find is swept). A path twice is kept once. */
static int restored(ac_source_session *s, void *ctx)
{
	ac_source_index *ix = ctx;
	size_t at;

	if (slot_of(ix, s->path) != (size_t)-1) {
		ac_source_session_free(s);
		return 0;
	}
	return add_slot(ix, s, &at);
}

/* A Gemini chat in the workspace's own hash folder names no cwd: the
 * workspace is it. */
static void place_gemini(ac_source_index *ix, ac_source_session *s)
{
	const char *hash;

	if (s->kind != AC_SOURCE_GEMINI || s->cwd)
		return;
	hash = strstr(s->path, ix->gemini_hash);
	if (hash && hash[-1] == '/' && hash[AC_SHA256_HEX_LEN] == '/')
		s->cwd = strdup(ix->opts.workspace);
}

/* Keeps a file left out with what it said (path, when the reason does
 * not name it, and reason escaped: a file name is anyone's bytes). */
static int note_unreadable(ac_source_index *ix, const char *path, const char *reason)
{
	ac_buf line = AC_BUF_INIT;
	int rc = 0;

	if (ix->n_unreadable == ix->cap_unreadable) {
		size_t cap = ix->cap_unreadable ? ix->cap_unreadable * 2 : 8;
		struct unreadable *grown = realloc(ix->unreadable, cap * sizeof(*grown));

		if (!grown)
			return ac_error_set(AC_ENOMEM, "out of memory");
		ix->unreadable = grown;
		ix->cap_unreadable = cap;
	}
	if (path && ((rc = ac_text_sanitize(&line, path, strlen(path))) == 0))
		rc = ac_buf_printf(&line, ": ");
	if (rc == 0)
		rc = ac_text_sanitize(&line, reason, strlen(reason));
	if (rc == 0)
		ix->unreadable[ix->n_unreadable++] = (struct unreadable){ix->kind,
									  ac_buf_detach(&line)};
	ac_buf_free(&line);
	return rc ? ac_error_set(AC_ENOMEM, "out of memory") : 0;
}

static int found(const char *path, const struct stat *st, void *ctx)
{
	ac_source_index *ix = ctx;
	ac_source_session *s;
	size_t i;
	bool changed = false;
	int rc;

	/* Every id and path is held in JSON (this index, the cache, --json):
	 * a name that is not UTF-8 cannot be, nor be shown as it is and given
	 * back to the tool. No tool writes one: counted, not read. */
	if (!ac_text_is_utf8(path, strlen(path)))
		return note_unreadable(ix, path, "the file name is not valid UTF-8");
	i = slot_of(ix, path);
	if (i != (size_t)-1 && (ix->slots[i].s->kind != ix->kind ||
				(uint64_t)st->st_size < ix->slots[i].s->size)) {
		/* Known (or cached) as another source's, or shorter than when
		 * it was read (rewritten in place): read anew from its start. */
		if ((rc = ac_source_session_new(&s, ix->kind, path)))
			return rc;
		ac_source_session_free(ix->slots[i].s);
		ix->slots[i].s = s;
	} else if (i == (size_t)-1) {
		if ((rc = ac_source_session_new(&s, ix->kind, path)) || (rc = add_slot(ix, s, &i)))
			return rc;
	}
	/* The walk's lstat says it is as read (or as the cache says it was
	 * read): not even opened. */
	if (ac_source_session_unchanged(ix->slots[i].s, st)) {
		ix->slots[i].seen = ix->generation;
		return 0;
	}
	rc = ac_source_session_read(ix->slots[i].s, &changed);
	if (rc == AC_ENOMEM)
		return rc;
	if (rc) {
		/* Gone since it was listed: left out. Unreadable (not a regular
		 * file any more, no permission): left out and counted. */
		if (rc != AC_ENOTFOUND)
			rc = note_unreadable(ix, NULL, ac_error_last());
		else
			rc = 0;
		ac_error_clear();
		return rc;
	}
	ix->slots[i].seen = ix->generation;
	if (changed) {
		ix->read++;
		place_gemini(ix, ix->slots[i].s);
	}
	return 0;
}

/* A file a walk passed over (its name does not fit the walk's pattern):
 * kept until the refresh ends, when it is counted unless another walk of
 * the same source took it. */
static int passed_over(const char *path, const struct stat *st, void *ctx)
{
	ac_source_index *ix = ctx;
	char *copy;

	(void)st;
	if (ix->n_passed == ix->cap_passed) {
		size_t cap = ix->cap_passed ? ix->cap_passed * 2 : 16;
		struct passed *grown = realloc(ix->passed, cap * sizeof(*grown));

		if (!grown)
			return ac_error_set(AC_ENOMEM, "out of memory");
		ix->passed = grown;
		ix->cap_passed = cap;
	}
	if (!(copy = strdup(path)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	ix->passed[ix->n_passed++] = (struct passed){ix->kind, copy};
	return 0;
}

static int by_kind_and_path(const void *a, const void *b)
{
	const struct passed *x = a, *y = b;

	return x->kind != y->kind ? (int)x->kind - (int)y->kind : strcmp(x->path, y->path);
}

/* The canary after a refresh: per source, the files passed over that no
 * walk took, by pattern, and the record types its transcripts skipped. */
static int tally_drift(ac_source_index *ix)
{
	ac_buf pattern = AC_BUF_INIT;
	int rc = 0;

	for (int k = 0; k < AC_SOURCE_COUNT; k++) {
		ac_source_tally_clear(&ix->drift[k].files);
		ac_source_tally_clear(&ix->drift[k].types);
	}
	if (ix->n_passed > 1) /* qsort() is never given a NULL array */
		qsort(ix->passed, ix->n_passed, sizeof(*ix->passed), by_kind_and_path);
	for (size_t i = 0; i < ix->n_passed && rc == 0; i++) {
		const struct passed *p = &ix->passed[i];
		const char *name = strrchr(p->path, '/');

		if ((i && by_kind_and_path(p, p - 1) == 0) || slot_of(ix, p->path) != (size_t)-1)
			continue; /* passed over twice, or taken by another walk */
		if (ac_source_canary_pattern(&pattern, name ? name + 1 : p->path))
			rc = ac_source_tally_add(&ix->drift[p->kind].files, pattern.data, 1);
	}
	for (size_t i = 0; i < ix->n && rc == 0; i++) {
		const ac_source_session *s = ix->slots[i].s;
		ac_source_tally *t = &ix->drift[s->kind].types;

		for (size_t u = 0; u < s->nunknown && rc == 0; u++)
			rc = ac_source_tally_add(t, s->unknown[u].type, s->unknown[u].count);
		t->other += s->unknown_other;
	}
	forget_passed(ix);
	ac_buf_free(&pattern);
	return rc;
}

/* Drops the files this refresh did not find, keeping slot numbers dense. */
static int sweep(ac_source_index *ix)
{
	size_t kept = 0;
	int rc = 0;

	for (size_t i = 0; i < ix->n; i++) {
		if (ix->slots[i].seen != ix->generation) {
			ac_source_session_free(ix->slots[i].s);
			continue;
		}
		ix->slots[kept++] = ix->slots[i];
	}
	if (kept == ix->n)
		return 0; /* slot numbers unchanged: the table holds */
	ix->n = kept;
	ac_source_paths_clear(&ix->paths);
	for (size_t i = 0; i < ix->n && rc == 0; i++)
		rc = ac_source_paths_add(&ix->paths, ix->slots[i].s->path, i);
	return rc;
}

/* A listed session with its update's first 24 bytes (ISO-8601 to the
 * millisecond) as three integers that order as the bytes do, and 8 bytes
 * of its path (below): a sort of 200,000 compares integers, and follows
 * a pointer only for an update longer than 24 bytes. */
typedef struct {
	uint64_t key[3];
	uint64_t path_key;
	ac_source_session *s;
	size_t slot;
	bool longer; /* the update has more than the 24 bytes of key */
} sort_item;

static void sort_key(sort_item *it, ac_source_session *s, size_t at)
{
	const char *u = s->updated ? s->updated : "";
	size_t n = strlen(u);

	it->s = s;
	it->slot = at;
	it->longer = n > sizeof(it->key);
	for (int k = 0; k < 3; k++)
		it->key[k] = ac_sort_key8(u, n, (size_t)k * 8);
}

static int newer_first(const void *a, const void *b)
{
	const sort_item *x = a, *y = b;

	for (int k = 0; k < 3; k++)
		if (x->key[k] != y->key[k])
			return y->key[k] > x->key[k] ? 1 : -1;
	if (!x->longer && !y->longer)
		return 0;
	return strcmp(y->s->updated ? y->s->updated : "", x->s->updated ? x->s->updated : "");
}

static int by_path_key(const void *a, const void *b)
{
	const sort_item *x = a, *y = b;

	return x->path_key != y->path_key ? (x->path_key > y->path_key ? 1 : -1) : 0;
}

/* Sorts items[0..n) by path (as strcmp() orders them; no two alike)
 * knowing they share their first at bytes: by the 8 bytes after the
 * prefix they all share, then each run alike in those by the next. A
 * file name is all that tells most paths of a folder apart, and paths
 * are compared as integers, not followed again and again by a
 * comparison sort. */
static void sort_paths(sort_item *items, size_t n, size_t at)
{
	size_t common = SIZE_MAX;

	if (n < 2)
		return;
	for (size_t i = 1; i < n; i++) {
		const char *p = items[0].s->path + at, *q = items[i].s->path + at;
		size_t k = 0;

		while (k < common && p[k] && p[k] == q[k])
			k++;
		common = k;
	}
	at += common;
	for (size_t i = 0; i < n; i++) {
		const char *p = items[i].s->path;

		items[i].path_key = ac_sort_key8(p, at + strnlen(p + at, 8), at);
	}
	qsort(items, n, sizeof(*items), by_path_key);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && items[j].path_key == items[i].path_key; j++)
			;
		/* Alike up to a NUL: the same path, which the index never
		 * holds twice. */
		if (j - i > 1 && (items[i].path_key & 0xff))
			sort_paths(items + i, j - i, at + 8);
	}
}

/* Whether items[0..n) are in the list's order already: restored from a
 * cache saved in that order, with nothing changed since. */
static bool in_order(const sort_item *items, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		int c = newer_first(&items[i - 1], &items[i]);

		if (c > 0 || (c == 0 && strcmp(items[i - 1].s->path, items[i].s->path) >= 0))
			return false;
	}
	return true;
}

/* Newest update first, then by path: by update, then each run of one
 * update by path. False when they were not in that order. */
static bool sort_listed(sort_item *items, size_t n)
{
	if (in_order(items, n))
		return true;
	qsort(items, n, sizeof(*items), newer_first);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && newer_first(&items[i], &items[j]) == 0; j++)
			;
		sort_paths(items + i, j - i, 0);
	}
	return false;
}

static bool listed(const ac_source_index *ix, const ac_source_session *s)
{
	if (!s->id)
		return false;
	return ix->opts.all_projects || ac_source_path_inside(s->cwd, ix->opts.workspace);
}

/* Keeps what this refresh read for the next process. A cache that cannot
 * be written costs the next process a full read, nothing more.
 *
 * The sessions go in the order of the last list, then those not in it:
 * the next process restores them in that order, one block after another,
 * so its list is found already in order (no sort) and is walked through
 * memory in the order it is printed. */
static void save_cache(ac_source_index *ix, bool now)
{
	ac_source_session **all;
	size_t n = 0;
	int64_t at = ac_time_now_ms();

	ix->cache_dirty = ix->cache_dirty || ix->read;
	if (!ix->cache_path || !ix->cache_dirty || (!now && ix->saved_at &&
						    at - ix->saved_at < CACHE_SAVE_MS))
		return;
	/* By rank (a sweep since may have left holes), then the rest. */
	if (!(all = calloc(ix->nranked + ix->n + 1, sizeof(*all))))
		return;
	ix->saved_at = at;
	ix->cache_dirty = false;
	for (size_t i = 0; i < ix->n; i++)
		if (ix->slots[i].rank < ix->nranked)
			all[ix->slots[i].rank] = ix->slots[i].s;
	for (size_t i = 0; i < ix->nranked; i++)
		if (all[i])
			all[n++] = all[i];
	for (size_t i = 0; i < ix->n; i++)
		if (ix->slots[i].rank >= ix->nranked)
			all[n++] = ix->slots[i].s;
	if (ac_source_cache_save(ix->cache_path, all, n) != 0)
		ac_error_clear();
	free(all);
}

/* A Claude session whose transcript could say "running" (or waiting on a
 * call) at now: the only ones the process check
 * (ac_source_status_agent_folders()) is for. */
static bool may_run(const ac_source_index *ix, const ac_source_session *s, int64_t now)
{
	return (s->turn == AC_TURN_AGENT || s->npending > 0) &&
	       now - s->mtime_ms < ix->opts.limits.ended_ms;
}

/* The processes' folders, looked up again when older than FOLDERS_MS. */
static int agent_folders(ac_source_index *ix, int64_t now)
{
	if (ix->folders_at && now - ix->folders_at < FOLDERS_MS)
		return 0;
	json_decref(ix->folders);
	ix->folders = NULL;
	ix->folders_at = now;
	return ac_source_status_agent_folders(&ix->folders);
}

/* What Claude Code's status files say now, told to its sessions (a file
 * changes without its transcript: a prompt opens, a process dies); for
 * one no file names that might show running, whether any Claude Code
 * process runs in its folder (looked up once, only then, and only when
 * the status folder exists: a Claude Code that writes no status files
 * leaves the transcripts to decide alone). A sub-agent's
 * transcript has no process of its own. *out_changed counts the sessions
 * it changed. */
static int note_status(ac_source_index *ix, size_t *out_changed)
{
	ac_source_status_list list;
	int64_t now = ac_time_now_ms();
	bool looked = false;
	int rc;

	*out_changed = 0;
	if (!ix->opts.status_dir || !ix->opts.dir[AC_SOURCE_CLAUDE])
		return 0;
	if ((rc = ac_source_status_read(&list, ix->opts.status_dir)))
		return rc;
	for (size_t i = 0; i < ix->n && rc == 0; i++) {
		ac_source_session *s = ix->slots[i].s;
		bool changed = false;

		if (s->kind != AC_SOURCE_CLAUDE || s->relation == AC_SOURCE_SUBAGENT)
			continue;
		if (!looked && list.present && may_run(ix, s, now) &&
		    !ac_source_status_find(&list, s->id)) {
			looked = true;
			if ((rc = agent_folders(ix, now)))
				break;
		}
		rc = ac_source_status_note(s, &list, looked && may_run(ix, s, now) ? ix->folders : NULL,
					   &changed);
		*out_changed += changed;
	}
	ac_source_status_list_free(&list);
	return rc;
}

/* Codex keeps a thread's name apart from its rollout: each listed
 * rollout takes the name its id has now. */
static int apply_codex_titles(ac_source_index *ix)
{
	const char *dir = ix->opts.dir[AC_SOURCE_CODEX];
	int rc;

	if (!dir || (rc = ac_codex_titles_refresh(&ix->codex_titles, dir)))
		return dir ? rc : 0;
	for (size_t i = 0; i < ix->n; i++) {
		ac_source_session *s = ix->slots[i].s;
		const char *name = s->kind == AC_SOURCE_CODEX
					   ? ac_codex_titles_get(&ix->codex_titles, s->id)
					   : NULL;
		char *copy = NULL;

		if (s->kind != AC_SOURCE_CODEX || (!name && !s->title) ||
		    (name && s->title && !strcmp(name, s->title)))
			continue;
		if (ac_source_session_own(s) || (name && !(copy = strdup(name))))
			return ac_error_set(AC_ENOMEM, "out of memory");
		free(s->title);
		s->title = name ? copy : NULL;
		ix->cache_dirty = true;
	}
	return 0;
}

int ac_source_index_refresh(ac_source_index *ix, size_t *out_read)
{
	size_t status_changed = 0;
	ac_source_session **list;
	sort_item *items;
	int rc = 0;

	if (ix->cache_path && !ix->cache_loaded) {
		ix->cache_loaded = true;
		if ((rc = ac_source_cache_load(ix->cache_path, restored, ix)))
			return rc;
	}
	ix->generation++;
	ix->read = 0;
	forget_unreadable(ix);
	forget_passed(ix);
	ac_source_walk_unread(passed_over, ix);
	for (int k = 0; k < AC_SOURCE_COUNT && rc == 0; k++) {
		const ac_source_adapter *a = ac_source_adapter_of((ac_source_kind)k);

		if (!ix->opts.dir[k])
			continue;
		ix->kind = (ac_source_kind)k;
		rc = a->discover(ix->opts.dir[k], ix->opts.workspace, ix->opts.all_projects, found, ix);
	}
	ac_source_walk_unread(NULL, NULL);
	if (rc || (rc = sweep(ix)) || (rc = note_status(ix, &status_changed)) ||
	    (rc = apply_codex_titles(ix)) || (rc = tally_drift(ix)))
		return rc;
	if (!(list = realloc(ix->listed, (ix->n + 1) * sizeof(*list))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	ix->listed = list;
	ix->nlisted = 0;
	if (!(items = malloc((ix->n + 1) * sizeof(*items))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < ix->n; i++) {
		ix->slots[i].rank = SIZE_MAX;
		if (listed(ix, ix->slots[i].s))
			sort_key(&items[ix->nlisted++], ix->slots[i].s, i);
	}
	/* Out of the cache's order: saved again in the list's. */
	if (!sort_listed(items, ix->nlisted))
		ix->cache_dirty = true;
	for (size_t i = 0; i < ix->nlisted; i++) {
		list[i] = items[i].s;
		ix->slots[items[i].slot].rank = i;
	}
	ix->nranked = ix->nlisted;
	free(items);
	save_cache(ix, false);
	if (out_read)
		*out_read = ix->read + status_changed;
	return 0;
}

size_t ac_source_index_unreadable(const ac_source_index *ix, const char **out_first)
{
	if (out_first)
		*out_first = ix->n_unreadable ? ix->unreadable[0].reason : NULL;
	return ix->n_unreadable;
}

const char *ac_source_index_unreadable_at(const ac_source_index *ix, size_t i,
					  ac_source_kind *out_kind)
{
	if (i >= ix->n_unreadable)
		return NULL;
	if (out_kind)
		*out_kind = ix->unreadable[i].kind;
	return ix->unreadable[i].reason;
}

ac_source_session *const *ac_source_index_list(ac_source_index *ix, size_t *out_n)
{
	*out_n = ix->nlisted;
	return ix->listed;
}

const ac_source_options *ac_source_index_options(const ac_source_index *ix)
{
	return &ix->opts;
}

ac_source_session *ac_source_index_find(ac_source_index *ix, const char *id)
{
	for (size_t i = 0; i < ix->nlisted; i++)
		if (!strcmp(ix->listed[i]->id, id))
			return ix->listed[i];
	return NULL;
}

const ac_source_drift *ac_source_index_drift(const ac_source_index *ix, ac_source_kind kind)
{
	return &ix->drift[kind < AC_SOURCE_COUNT ? kind : 0];
}
