/* Retention in the file store: which checkpoint files, archives, traces
 * and rotated journals a policy lets go, and removing one.
 *
 * Every folder below a store's own is opened with O_NOFOLLOW relative to
 * its parent, and only regular files are listed or removed (unlinkat on
 * the folder we hold): a symbolic link planted anywhere cannot lead a walk
 * or a removal outside. A file is removed only if it is still the one
 * planned (same device and inode), so one a writer renamed into place
 * since (a checkpoint saved again) stays. */
#include "ac_gc.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_checkpoint.h"
#include "ac_error.h"
#include "ac_struct_version.h"
#include "ac_file.h"
#include "ac_fs_calls.h"
#include "ac_journal.h"
#include "ac_json_scan.h"
#include "ac_lock.h"
#include "ac_mutation.h"
#include "ac_session.h"
#include "ac_time.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
	ac_gc_store base;
	char *sessions_dir, *checkpoints_dir, *data_dir, *journal_path;
	char *root; /* the workspace, or NULL */
} files_store;

/* A file that may go, while its owner's files are weighed. */
typedef struct {
	char *name;
	int64_t order;   /* newest first by this: version, else time */
	int64_t time_ms; /* recorded time, else mtime */
	bool protected;  /* never goes (tombstone, named, young) */
	struct stat st;
} candidate;

typedef struct {
	candidate *items;
	size_t count, capacity;
} candidates;

static void candidates_clear(candidates *c)
{
	for (size_t i = 0; i < c->count; i++)
		free(c->items[i].name);
	c->count = 0;
}

static void candidates_free(candidates *c)
{
	candidates_clear(c);
	free(c->items);
	memset(c, 0, sizeof(*c));
}

static int candidates_push(candidates *c, const char *name, int64_t order, int64_t time_ms,
			   bool protected, const struct stat *st)
{
	if (c->count == c->capacity) {
		size_t want = c->capacity ? c->capacity * 2 : 16;
		candidate *grown = realloc(c->items, want * sizeof(*grown));

		if (!grown)
			return ac_error_set(AC_ENOMEM, "out of memory");
		c->items = grown;
		c->capacity = want;
	}
	candidate *item = &c->items[c->count];

	if (!(item->name = strdup(name)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	item->order = order;
	item->time_ms = time_ms;
	item->protected = protected;
	item->st = *st;
	c->count++;
	return 0;
}

static int newest_first(const void *a, const void *b)
{
	const candidate *x = a, *y = b;

	if (x->order != y->order)
		return x->order > y->order ? -1 : 1;
	return strcmp(y->name, x->name);
}

static int64_t mtime_ms(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
}

/* Opens folder name inside at without following a link; -1 with errno
 * (ELOOP or ENOTDIR for a planted link or file) otherwise. */
static int open_folder_at(int at, const char *name)
{
	return ac_fs_openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
}

/* A store's own folder: one inside the workspace is opened without
 * following a link out of it (ac_file_open_dir_in()), at planning and
 * again for each removal, so a link swapped in meanwhile cannot redirect
 * a removal; one the operator configured outside it is opened as given.
 * 0 with *out_fd -1 when absent, AC_EDENIED for a link out. */
static int open_store_folder(int *out_fd, const files_store *fs, const char *path)
{
	int rc;

	if (!fs->root) {
		*out_fd = ac_fs_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
		return 0;
	}
	if ((rc = ac_file_open_dir_in(out_fd, fs->root, path)) == AC_EDENIED ||
	    rc == AC_ENOMEM)
		return rc;
	if (rc)
		ac_error_clear();
	return 0;
}

static bool ends_with(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	return n > s && !strcmp(name + n - s, suffix);
}

static int push_item(ac_gc_plan *plan, ac_gc_kind kind, const char *base, const char *relative,
		     const char *owner, const char *why, const candidate *c)
{
	ac_buf path = AC_BUF_INIT;
	ac_gc_item *item;

	if (plan->count == plan->capacity) {
		size_t want = plan->capacity ? plan->capacity * 2 : 32;
		ac_gc_item *grown = realloc(plan->items, want * sizeof(*grown));

		if (!grown)
			return ac_error_set(AC_ENOMEM, "out of memory");
		plan->items = grown;
		plan->capacity = want;
	}
	item = &plan->items[plan->count];
	memset(item, 0, sizeof(*item));
	if (ac_buf_printf(&path, "%s/%s", base, relative))
		return ac_error_set(AC_ENOMEM, "out of memory");
	item->kind = kind;
	item->path = ac_buf_detach(&path);
	item->base = strdup(base);
	item->relative = strdup(relative);
	item->owner = owner ? strdup(owner) : NULL;
	item->why = strdup(why);
	item->bytes = (uint64_t)c->st.st_size;
	item->time_ms = c->time_ms;
	item->dev = (uint64_t)c->st.st_dev;
	item->ino = (uint64_t)c->st.st_ino;
	plan->count++; /* counted first, so a failed copy below is freed with the plan */
	if (!item->path || !item->base || !item->relative || (owner && !item->owner) ||
	    !item->why)
		return ac_error_set(AC_ENOMEM, "out of memory");
	plan->bytes += item->bytes;
	return 0;
}

/* Weighs one owner's candidates (any order) under policy and plans the
 * ones that go; what_newest says what the keep rule counts. keep_newest:
 * the newest of all stays whatever the rules (it counts for keep). */
static int weigh(ac_gc_plan *plan, candidates *c, const ac_gc_policy *policy, ac_gc_kind kind,
		 const char *base, const char *folder, const char *owner, const char *what_newest,
		 bool keep_newest)
{
	char cutoff[AC_TIME_ISO_LEN + 1];
	int64_t limit = policy->now_ms - policy->older_than_ms;
	size_t kept = 0;
	int rc = 0;

	ac_time_format_iso(cutoff, limit);
	if (c->count)
		qsort(c->items, c->count, sizeof(*c->items), newest_first);
	for (size_t i = 0; i < c->count && !rc; i++) {
		const candidate *item = &c->items[i];
		ac_buf why = AC_BUF_INIT, relative = AC_BUF_INIT;

		if (item->protected)
			continue;
		if ((keep_newest && i == 0) || (policy->has_keep && kept < policy->keep)) {
			kept++;
			continue;
		}
		if (policy->older_than_ms > 0 && item->time_ms >= limit)
			continue;
		if ((policy->has_keep &&
		     ac_buf_printf(&why, "not among the newest %zu %s", policy->keep, what_newest)) ||
		    (policy->older_than_ms > 0 &&
		     ac_buf_printf(&why, "%sfrom before %s", why.len ? ", " : "", cutoff)) ||
		    (folder ? ac_buf_printf(&relative, "%s/%s", folder, item->name)
			    : ac_buf_printf(&relative, "%s", item->name)))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
		else
			rc = push_item(plan, kind, base, relative.data, owner, why.data, item);
		ac_buf_free(&why);
		ac_buf_free(&relative);
	}
	return rc;
}

/* A regular file name in folder dir_fd, stat'ed without following; false
 * for anything else (links, folders, temp files, other names). */
static bool listed_file(struct stat *st, int dir_fd, const char *name, const char *suffix)
{
	return name[0] != '.' && ends_with(name, suffix) && !ac_atomic_is_temp_name(name) &&
	       ac_fs_fstatat(dir_fd, name, st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st->st_mode);
}

/* A per-session folder name inside dir_fd, opened without following;
 * -1 for anything else. */
static int open_session_folder(int dir_fd, const char *name)
{
	if (name[0] == '.' || ac_session_id_check(name) != 0)
		return -1;
	return open_folder_at(dir_fd, name);
}

/* ---- checkpoints ---------------------------------------------------------- */

/* The session's checkpoints as candidates, their headers read by the
 * file provider (a header scan, not a parse; a folder or file that is a
 * link, or a checkpoint that cannot be read, is skipped: it stays). */
static int checkpoint_candidates(candidates *c, ac_checkpoint_store *store, int session_fd,
				 const char *session_id)
{
	ac_checkpoint_filter filter = {.session_id = session_id, .include_tombstones = true};
	ac_checkpoint_header_list headers = {0};
	ac_buf name = AC_BUF_INIT;
	int rc = ac_checkpoint_store_list_headers(&headers, store, &filter);

	for (size_t i = 0; i < headers.count && !rc; i++) {
		const ac_checkpoint_header *h = &headers.items[i];
		struct stat st;
		int64_t created;

		ac_buf_clear(&name);
		if (ac_buf_printf(&name, "%s.json", h->checkpoint_id)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			break;
		}
		if (!listed_file(&st, session_fd, name.data, ".json"))
			continue; /* gone since it was read */
		if (!h->created_at || ac_time_parse(&created, h->created_at) != 0)
			created = mtime_ms(&st);
		rc = candidates_push(c, name.data, h->version, created, h->tombstone, &st);
	}
	ac_buf_free(&name);
	ac_checkpoint_header_list_free(&headers);
	return rc;
}

static int plan_checkpoints(ac_gc_plan *plan, const files_store *fs, const ac_gc_policy *policy)
{
	candidates c = {0};
	ac_checkpoint_store *store = NULL;
	const char *entry;
	ac_fs_dir *top = NULL;
	int top_fd, rc = open_store_folder(&top_fd, fs, fs->checkpoints_dir);

	if (rc || top_fd < 0 || !(top = ac_fs_fdopendir(top_fd))) {
		if (top_fd >= 0)
			ac_fs_close(top_fd);
		return rc;
	}
	if ((rc = ac_checkpoint_store_file_new(&store, fs->checkpoints_dir)))
		goto done;
	while (!rc && (entry = ac_fs_readdir(top)) != NULL) {
		int session_fd = open_session_folder(top_fd, entry);

		if (session_fd < 0)
			continue;
		candidates_clear(&c);
		rc = checkpoint_candidates(&c, store, session_fd, entry);
		/* The next version is the highest stored plus 1: the checkpoint
		 * holding it stays, tombstone or not, so no version is given
		 * twice. */
		if (!rc)
			rc = weigh(plan, &c, policy, AC_GC_CHECKPOINT, fs->checkpoints_dir,
				   entry, entry, "checkpoints of the session", true);
		ac_fs_close(session_fd);
	}
done:
	ac_checkpoint_store_free(store);
	ac_fs_closedir(top);
	candidates_free(&c);
	return rc;
}

/* ---- archives ------------------------------------------------------------- */

/* The members of a session gc reads, in ac_json_scan()'s path order. */
enum { S_STATUS, S_COMPACTIONS, S_ROLLBACKS, S_COUNT };
static const char *const session_keys[S_COUNT] = {
	"status", "metadata.compactions", "metadata.rollbacks",
};

/* *out: {"status", "metadata": {"compactions", "rollbacks"}} of session id
 * (what is present of them), scanned rather than parsed whole: a session
 * may be megabytes of messages. AC_ENOTFOUND when it has no file,
 * AC_ECORRUPT when it is not JSON. */
static int load_session(json_t **out, int sessions_fd, const char *id)
{
	ac_json_path paths[S_COUNT];
	ac_json_span span[S_COUNT];
	ac_buf name = AC_BUF_INIT;
	char *text = NULL;
	size_t len = 0;
	json_t *doc = NULL, *metadata = NULL;
	int rc;

	if (ac_buf_printf(&name, "%s.json", id))
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = ac_file_read_at(&text, &len, sessions_fd, name.data, name.data);
	ac_buf_free(&name);
	if (rc)
		return rc;
	for (size_t i = 0; i < S_COUNT && !rc; i++)
		rc = ac_json_path_init(&paths[i], session_keys[i]);
	if (rc || (rc = ac_json_scan(span, text, len, paths, S_COUNT, NULL))) {
		rc = ac_error_set(AC_ECORRUPT, "session %s: not JSON", id);
		goto done;
	}
	if (!(doc = json_object()) || json_object_set_new(doc, "metadata", metadata = json_object())) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < S_COUNT; i++) {
		json_t *value;

		if (span[i].type == AC_JSON_NONE)
			continue;
		/* Each span is valid JSON (the scan checked it): this fails only
		 * for want of memory, or on what jansson refuses (\u0000 keys). */
		if (!(value = json_loadb(span[i].start, span[i].len, JSON_DECODE_ANY, NULL))) {
			rc = ac_error_set(AC_ECORRUPT, "session %s: %s unreadable", id,
					  session_keys[i]);
			goto done;
		}
		json_object_set_new(i == S_STATUS ? doc : metadata,
				    i == S_STATUS ? "status" : strchr(session_keys[i], '.') + 1, value);
	}
	*out = doc;
	doc = NULL;
done:
	json_decref(doc);
	free(text);
	return rc;
}

/* True when the session names relative in metadata.<records>[].archive. */
static bool session_names(const json_t *session, const char *records, const char *relative)
{
	const json_t *record;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(session, "metadata"), records), i,
			   record) {
		const char *named = json_string_value(json_object_get(record, "archive"));

		if (named && !strcmp(named, relative))
			return true;
	}
	return false;
}

static int plan_archive_folder(ac_gc_plan *plan, const files_store *fs, int sessions_fd,
			       const ac_gc_policy *policy, ac_gc_kind kind, const char *folder,
			       const char *records)
{
	candidates c = {0};
	const char *entry;
	ac_fs_dir *top = NULL;
	int top_fd = open_folder_at(sessions_fd, folder), rc = 0;

	if (top_fd < 0 || !(top = ac_fs_fdopendir(top_fd))) {
		if (top_fd >= 0)
			ac_fs_close(top_fd);
		return 0;
	}
	while (!rc && (entry = ac_fs_readdir(top)) != NULL) {
		int id_fd = open_session_folder(top_fd, entry);
		json_t *session = NULL;
		ac_fs_dir *archives;
		const char *file;
		ac_buf within = AC_BUF_INIT;

		if (id_fd < 0 || !(archives = ac_fs_fdopendir(id_fd))) {
			if (id_fd >= 0)
				ac_fs_close(id_fd);
			continue;
		}
		/* A session that cannot be read may name any of them: all stay. */
		rc = load_session(&session, sessions_fd, entry);
		if (rc && rc != AC_ENOTFOUND) {
			rc = 0;
			ac_fs_closedir(archives);
			continue;
		}
		rc = 0;
		candidates_clear(&c);
		while (!rc && (file = ac_fs_readdir(archives)) != NULL) {
			struct stat st;
			int64_t stamp, newest;

			if (!listed_file(&st, id_fd, file, ".json") ||
			    !strcmp(file, "compensated.json"))
				continue;
			ac_buf_clear(&within);
			if (ac_buf_printf(&within, "%s/%s/%s", folder, entry, file)) {
				rc = ac_error_set(AC_ENOMEM, "out of memory");
				break;
			}
			if (!ac_time_parse_file(&stamp, file))
				stamp = mtime_ms(&st);
			newest = stamp > mtime_ms(&st) ? stamp : mtime_ms(&st);
			rc = candidates_push(&c, file, stamp, stamp,
					     session_names(session, records, within.data) ||
						     newest > policy->now_ms - AC_GC_GRACE_MS,
					     &st);
		}
		ac_buf_clear(&within);
		if (!rc && ac_buf_printf(&within, "%s/%s", folder, entry))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
		if (!rc)
			rc = weigh(plan, &c, policy, kind, fs->sessions_dir, within.data,
				   entry, "archives the session does not name", false);
		ac_buf_free(&within);
		json_decref(session);
		ac_fs_closedir(archives);
	}
	ac_fs_closedir(top);
	candidates_free(&c);
	return rc;
}

/* ---- traces --------------------------------------------------------------- */

/* True when session id is still at work (running or paused), or cannot
 * be read (then it may be). A session with no file is over. */
static bool session_active(int sessions_fd, const char *id)
{
	json_t *session = NULL;
	int rc = load_session(&session, sessions_fd, id);
	const char *status;
	bool active;

	if (rc == AC_ENOTFOUND)
		return false;
	if (rc)
		return true;
	status = json_string_value(json_object_get(session, "status"));
	active = !status || (strcmp(status, "completed") && strcmp(status, "failed"));
	json_decref(session);
	return active;
}

/* Traces go whole and only by age (no --keep: a trace is one session's
 * log, not a series): the last record appended (mtime) before the limit,
 * and the session finished or gone. */
static int plan_traces(ac_gc_plan *plan, const files_store *fs, int sessions_fd,
		       const ac_gc_policy *policy)
{
	ac_gc_policy by_age = *policy;
	candidates c = {0};
	const char *entry;
	ac_fs_dir *top = NULL;
	int data_fd, top_fd = -1, rc = 0;

	if (policy->older_than_ms <= 0)
		return 0;
	by_age.has_keep = false;
	if ((rc = open_store_folder(&data_fd, fs, fs->data_dir)))
		return rc;
	if (data_fd >= 0) {
		top_fd = open_folder_at(data_fd, "traces");
		ac_fs_close(data_fd);
	}
	if (top_fd < 0 || !(top = ac_fs_fdopendir(top_fd))) {
		if (top_fd >= 0)
			ac_fs_close(top_fd);
		return 0;
	}
	while (!rc && (entry = ac_fs_readdir(top)) != NULL) {
		int tenant_fd = entry[0] == '.' ? -1 : open_folder_at(top_fd, entry);
		ac_fs_dir *tenant;
		const char *file;
		ac_buf within = AC_BUF_INIT;

		if (tenant_fd < 0 || !(tenant = ac_fs_fdopendir(tenant_fd))) {
			if (tenant_fd >= 0)
				ac_fs_close(tenant_fd);
			continue;
		}
		while (!rc && (file = ac_fs_readdir(tenant)) != NULL) {
			struct stat st;
			char *id;

			if (!listed_file(&st, tenant_fd, file, ".jsonl"))
				continue;
			if (!(id = strndup(file, strlen(file) - 6))) {
				rc = ac_error_set(AC_ENOMEM, "out of memory");
				break;
			}
			if (ac_session_id_check(id) == 0 && !session_active(sessions_fd, id)) {
				candidates_clear(&c);
				ac_buf_clear(&within);
				if ((rc = candidates_push(&c, file, mtime_ms(&st),
							  mtime_ms(&st), false, &st)) == 0 &&
				    ac_buf_printf(&within, "traces/%s", entry))
					rc = ac_error_set(AC_ENOMEM, "out of memory");
				if (!rc)
					rc = weigh(plan, &c, &by_age, AC_GC_TRACE, fs->data_dir,
						   within.data, id, "", false);
			}
			free(id);
		}
		ac_buf_free(&within);
		ac_fs_closedir(tenant);
	}
	ac_fs_closedir(top);
	candidates_free(&c);
	return rc;
}

/* ---- rotated journals ----------------------------------------------------- */

static int plan_journals(ac_gc_plan *plan, const files_store *fs, const ac_gc_policy *policy)
{
	char **paths = NULL, *dir = NULL, *slash;
	size_t n = 0;
	candidates c = {0};
	int rc, dir_fd = -1;

	if ((rc = ac_journal_files(&paths, &n, fs->journal_path)))
		return rc;
	if (!(dir = strdup(fs->journal_path))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	else
		strcpy(dir, ".");
	if ((rc = open_store_folder(&dir_fd, fs, dir)) || dir_fd < 0)
		goto done;
	for (size_t i = 0; i < n && !rc; i++) {
		const char *name = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];
		const char *stamp = strrchr(name, '-');
		struct stat st;
		int64_t at;

		if (!strcmp(paths[i], fs->journal_path) || !stamp ||
		    !listed_file(&st, dir_fd, name, ".jsonl"))
			continue; /* the live journal, or a link in a rotated one's place */
		/* Only agentctl's own rotated names: another tool's archive
		 * (monthly, logrotate's) is read, but kept as that tool keeps it. */
		if (!ac_time_parse_file(&at, stamp + 1))
			continue;
		rc = candidates_push(&c, name, at, at, false, &st);
	}
	if (!rc)
		rc = weigh(plan, &c, policy, AC_GC_JOURNAL, dir, NULL, NULL, "rotated journals", false);
done:
	if (dir_fd >= 0)
		ac_fs_close(dir_fd);
	candidates_free(&c);
	free(dir);
	ac_journal_files_free(paths, n);
	return rc;
}

/* ---- the provider --------------------------------------------------------- */

static int files_plan(ac_gc_store *store, ac_gc_plan *out, const ac_gc_policy *policy)
{
	const files_store *fs = (const files_store *)store;
	int sessions_fd, rc = open_store_folder(&sessions_fd, fs, fs->sessions_dir);

	if (rc || (rc = plan_checkpoints(out, fs, policy)))
		goto done;
	if (sessions_fd >= 0 &&
	    ((rc = plan_archive_folder(out, fs, sessions_fd, policy, AC_GC_COMPACTION,
				       ".compactions", "compactions")) ||
	     (rc = plan_archive_folder(out, fs, sessions_fd, policy, AC_GC_ROLLBACK, ".rollbacks",
				       "rollbacks")) ||
	     (rc = plan_traces(out, fs, sessions_fd, policy))))
		goto done;
	rc = plan_journals(out, fs, policy);
done:
	if (sessions_fd >= 0)
		ac_fs_close(sessions_fd);
	return rc;
}

/* Opens the folder holding item (every part below its base without
 * following a link); *out_name points at the file's name in relative. */
static int open_item_folder(int *out_fd, const char **out_name, const files_store *fs,
			    const ac_gc_item *item)
{
	char *parts = strdup(item->relative), *part, *next;
	int fd = -1, rc = 0;

	if (!parts) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = open_store_folder(&fd, fs, item->base)))
		goto done;
	if (fd < 0) {
		rc = ac_error_errno(errno, "%s: cannot open", item->base);
		goto done;
	}
	for (part = parts; (next = strchr(part, '/')) != NULL; part = next + 1) {
		int inner;

		*next = '\0';
		if ((inner = open_folder_at(fd, part)) < 0) {
			rc = errno == ENOENT ? ac_error_set(AC_ENOTFOUND, "%s: gone", item->path)
					     : ac_error_set(AC_ECONFLICT, "%s: a folder on its way is "
							    "no longer a folder", item->path);
			goto done;
		}
		ac_fs_close(fd);
		fd = inner;
	}
	*out_name = item->relative + (part - parts);
done:
	free(parts);
	if (rc && fd >= 0)
		ac_fs_close(fd);
	*out_fd = rc ? -1 : fd;
	return rc;
}

/* A trace is removed under the flock its appenders take, and only if no
 * record came since the plan: an append waiting for the lock then starts
 * the session's trace afresh. */
static int remove_trace(int dir_fd, const char *name, const ac_gc_item *item)
{
	struct stat st;
	int fd, rc = 0;

	if ((fd = ac_fs_openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0)) < 0)
		return errno == ENOENT ? ac_error_set(AC_ENOTFOUND, "%s: gone", item->path)
				       : ac_error_set(AC_ECONFLICT, "%s: not the file planned",
						      item->path);
	if (ac_fs_flock(fd, LOCK_EX | LOCK_NB) != 0)
		rc = ac_error_set(AC_ECONFLICT, "%s: in use by a writer", item->path);
	else if (ac_fs_fstat(fd, &st) != 0 || (uint64_t)st.st_ino != item->ino ||
		 (uint64_t)st.st_dev != item->dev || mtime_ms(&st) != item->time_ms)
		rc = ac_error_set(AC_ECONFLICT, "%s: written since the plan", item->path);
	else if (ac_fs_unlinkat(dir_fd, name, 0) != 0)
		rc = ac_error_errno(errno, "%s: cannot remove", item->path);
	ac_fs_close(fd);
	return rc;
}

/* Takes the owner's operator lock for an item of a session's (its
 * checkpoints and archives), without waiting: AC_ECONFLICT, the session
 * skipped, while a compaction or rollback works on it. Under the lock, an
 * archive the session names since the plan (a compaction that finished
 * meanwhile) stays. *out_fd -1 for other items. */
static int hold_owner(int *out_fd, const files_store *fs, const ac_gc_item *item)
{
	json_t *session = NULL;
	const char *records = item->kind == AC_GC_COMPACTION ? "compactions" : "rollbacks";
	int rc, sessions_fd;

	*out_fd = -1;
	if (!item->owner || (item->kind != AC_GC_CHECKPOINT && item->kind != AC_GC_COMPACTION &&
			     item->kind != AC_GC_ROLLBACK))
		return 0;
	/* Planted bug gc_clock_ahead (tests/sim): the lock not taken, so the
	 * age judged on gc's own clock is all that keeps a fresh archive. */
	if (!AC_MUTATION("gc_clock_ahead") &&
	    (rc = ac_lock_session(out_fd, fs->sessions_dir, item->owner, true)))
		return rc == AC_EBUSY ? ac_error_set(AC_ECONFLICT, "session %s is skipped: an "
						     "operator action (a compaction or a rollback) "
						     "is working on it", item->owner)
				      : rc;
	/* Planted bug archive_deleted_after_publish: the plan's reading of
	 * the session trusted, not what a compaction published since. */
	if (item->kind == AC_GC_CHECKPOINT || AC_MUTATION("archive_deleted_after_publish"))
		return 0;
	if ((rc = open_store_folder(&sessions_fd, fs, fs->sessions_dir)))
		return rc;
	if (sessions_fd < 0)
		return 0; /* no sessions: none names it */
	rc = load_session(&session, sessions_fd, item->owner);
	ac_fs_close(sessions_fd);
	if (rc == AC_ENOTFOUND)
		return 0;
	if (rc)
		rc = ac_error_set(AC_ECONFLICT, "%s: session %s cannot be read now, so it may name "
				  "it", item->path, item->owner);
	else if (session_names(session, records, item->relative))
		rc = ac_error_set(AC_ECONFLICT, "%s: named by session %s since the plan",
				  item->path, item->owner);
	json_decref(session);
	return rc;
}

static int files_remove(ac_gc_store *store, const ac_gc_item *item)
{
	const char *name = NULL;
	struct stat st;
	int dir_fd = -1, held = -1, rc;

	if ((rc = hold_owner(&held, (const files_store *)store, item)) ||
	    (rc = open_item_folder(&dir_fd, &name, (const files_store *)store, item)))
		goto done;
	if (item->kind == AC_GC_TRACE) {
		rc = remove_trace(dir_fd, name, item);
	} else if (ac_fs_fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		rc = errno == ENOENT ? ac_error_set(AC_ENOTFOUND, "%s: gone", item->path)
				     : ac_error_errno(errno, "%s: cannot stat", item->path);
	} else if (!S_ISREG(st.st_mode) || (uint64_t)st.st_ino != item->ino ||
		   (uint64_t)st.st_dev != item->dev) {
		rc = ac_error_set(AC_ECONFLICT, "%s: replaced since the plan", item->path);
	} else if (ac_fs_unlinkat(dir_fd, name, 0) != 0) {
		rc = errno == ENOENT ? ac_error_set(AC_ENOTFOUND, "%s: gone", item->path)
				     : ac_error_errno(errno, "%s: cannot remove", item->path);
	}
done:
	if (dir_fd >= 0)
		ac_fs_close(dir_fd);
	if (held >= 0)
		ac_fs_close(held);
	return rc;
}

static void files_free(ac_gc_store *store)
{
	files_store *fs = (files_store *)store;

	free(fs->sessions_dir);
	free(fs->checkpoints_dir);
	free(fs->data_dir);
	free(fs->journal_path);
	free(fs->root);
	free(fs);
}

static const ac_gc_store_ops files_ops = {
	.version = AC_GC_STORE_OPS_VERSION,
	.name = "files",
	.plan = files_plan,
	.remove = files_remove,
	.free = files_free,
};

int ac_gc_store_files_new(ac_gc_store **out, const ac_gc_files_options *opts)
{
	files_store *fs;
	int rc;

	if ((rc = ac_struct_version_check("ac_gc_files_options", opts->version,
					  AC_GC_FILES_OPTIONS_VERSION, "AC_GC_FILES_OPTIONS_INIT")))
		return rc;
	if (!(fs = calloc(1, sizeof(*fs))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	fs->base.ops = &files_ops;
	fs->sessions_dir = strdup(opts->sessions_dir);
	fs->checkpoints_dir = strdup(opts->checkpoints_dir);
	fs->data_dir = strdup(opts->data_dir);
	fs->journal_path = strdup(opts->journal_path);
	fs->root = opts->root ? strdup(opts->root) : NULL;
	if (!fs->sessions_dir || !fs->checkpoints_dir || !fs->data_dir || !fs->journal_path ||
	    (opts->root && !fs->root)) {
		files_free(&fs->base);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	*out = &fs->base;
	return 0;
}
