/* The cached session listing. */
#include "ac_session_index.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_scan.h"
#include "ac_session_cache.h"
#include "ac_sort_key.h"
#include "ac_session.h"
#include "ac_tokens.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum {
	F_ID, F_TASK, F_STATUS, F_CREATED, F_UPDATED, F_TENANT, F_USER, F_AGENT,
	F_INPUT, F_OUTPUT, F_TURNS, F_HISTORY, F_COUNT
};

#define P1(a) {{a}, {sizeof(a) - 1}, 1}
#define P2(a, b) {{a, b}, {sizeof(a) - 1, sizeof(b) - 1}, 2}
#define P3(a, b, c) {{a, b, c}, {sizeof(a) - 1, sizeof(b) - 1, sizeof(c) - 1}, 3}

static const ac_json_path listed_paths[F_COUNT] = {
	[F_ID] = P1("id"),
	[F_TASK] = P1("task"),
	[F_STATUS] = P1("status"),
	[F_CREATED] = P1("createdAt"),
	[F_UPDATED] = P1("updatedAt"),
	[F_TENANT] = P2("metadata", "tenantId"),
	[F_USER] = P2("metadata", "userId"),
	[F_AGENT] = P2("metadata", "agentId"),
	[F_INPUT] = P3("metadata", "usage", "inputTokens"),
	[F_OUTPUT] = P3("metadata", "usage", "outputTokens"),
	[F_TURNS] = P3("metadata", "usage", "turns"),
	[F_HISTORY] = P1("conversationHistory"),
};

/* A file's last good summary while it is read again (keep_last_good()). */
typedef struct {
	ac_session_summary summary;
	char *strings;
	bool in_cache; /* strings lie in the loaded cache (below) */
} last_good;

/* Kept small: a folder of 10,000 sessions is two arrays of these. */
typedef struct {
	char *name;  /* file name in the folder */
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	char *problem;  /* why it is bad, until reported */
	ac_session_summary summary;
	char *strings; /* one allocation holding every summary string */
	last_good *prev; /* while being read again; NULL otherwise */
	bool bad;    /* unreadable: left out of the list */
	bool to_parse;  /* changed since the last look: read it in this refresh */
	bool kept;     /* bad, but listed with its last good summary (stale) */
	bool cached;   /* from the cache file, its stamp not yet checked here */
	/* name or strings lie in the loaded cache's memory
	 * (ac_session_cache.h): freed with it, not one by one. */
	bool name_in_cache, strings_in_cache;
} entry;

struct ac_session_index {
	char *dir;
	entry *entries; /* sorted by name */
	size_t count, cap;
	const ac_session_summary **sorted; /* room for count + 1 */
	size_t nsorted;
	size_t problems;
	bool cleaned;
	bool keep_last_good;
	char *cache_path;  /* ac_session_index_use_cache(); NULL: none */
	ac_session_cache *cache; /* the cache as loaded: entries point into it */
	bool cache_read;   /* the cache was looked at (first refresh) */
	bool cache_dirty;  /* the listing changed since the cache was read or written */
	struct stat dir_stat; /* the folder, at the last refresh (the cache's key) */
};

int ac_session_index_new(ac_session_index **out, const char *dir)
{
	ac_session_index *idx = calloc(1, sizeof(*idx));

	if (!idx || !(idx->dir = strdup(dir))) {
		free(idx);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	*out = idx;
	return 0;
}

void ac_session_index_keep_last_good(ac_session_index *idx, bool keep)
{
	idx->keep_last_good = keep;
}

/* Frees p unless it lies in the loaded cache, which frees it whole. */
static void free_unless_in_cache(char *p, bool in_cache)
{
	if (!in_cache)
		free(p);
}

static void entry_clear(entry *e)
{
	free(e->problem);
	free_unless_in_cache(e->name, e->name_in_cache);
	free_unless_in_cache(e->strings, e->strings_in_cache);
	if (e->prev)
		free_unless_in_cache(e->prev->strings, e->prev->in_cache);
	free(e->prev);
	memset(e, 0, sizeof(*e));
}

static void clear_entries(entry *entries, size_t n)
{
	for (size_t i = 0; i < n; i++)
		entry_clear(&entries[i]);
}

void ac_session_index_free(ac_session_index *idx)
{
	if (!idx)
		return;
	clear_entries(idx->entries, idx->count);
	free(idx->entries);
	free(idx->sorted);
	free(idx->dir);
	free(idx->cache_path);
	ac_session_cache_free(idx->cache);
	free(idx);
}

size_t ac_session_summary_task_len(const ac_session_summary *s)
{
	size_t n;

	/* A NUL right at task_len: nothing can lie beyond it, and strlen()
	 * cannot be longer (a listing of 10,000 asks this of every row). */
	if (s->task_len && s->task[s->task_len] == '\0')
		return s->task_len;
	n = strlen(s->task);
	return s->task_len > n ? s->task_len : n;
}

/* A session file's name: "<id>.json", but not "<x>.tmp.json", which the
 * seed's list() skips as a writer's temporary file (seed 000). */
static bool is_session_name(const char *name)
{
	size_t len = strlen(name);

	return len > 5 && name[0] != '.' && strcmp(name + len - 5, ".json") == 0 &&
	       !(len > 9 && strcmp(name + len - 9, ".tmp.json") == 0);
}

static uint64_t number_of(const ac_json_span *span)
{
	return span->type == AC_JSON_NUMBER && span->start[0] != '-'
		       ? strtoull(span->start, NULL, 10) : 0;
}

/* Decodes the listed strings into one allocation, so an entry frees once. */
static int fill_strings(entry *e, const ac_json_span *spans, const char *shown_path)
{
	static const int string_fields[] = {F_ID, F_TASK, F_STATUS, F_CREATED, F_UPDATED,
					    F_TENANT, F_USER, F_AGENT};
	const char **targets[] = {&e->summary.id, &e->summary.task, &e->summary.status,
				  &e->summary.created_at, &e->summary.updated_at,
				  &e->summary.tenant, &e->summary.user, &e->summary.agent};
	size_t total = 0, offsets[8], lens[8], pos = 0;

	for (size_t i = 0; i < 8; i++)
		if (spans[string_fields[i]].type == AC_JSON_STRING)
			total += spans[string_fields[i]].len;
	if (!(e->strings = malloc(total + 8)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < 8; i++) {
		const ac_json_span *s = &spans[string_fields[i]];
		size_t n = 0;

		offsets[i] = pos;
		if (s->type == AC_JSON_STRING)
			ac_json_string_decode(e->strings + pos, &n, s);
		e->strings[pos + n] = '\0';
		lens[i] = n;
		pos += n + 1;
	}
	for (size_t i = 0; i < 8; i++)
		*targets[i] = e->strings + offsets[i];
	/* The task is kept whole, with its length (a decoded NUL shows as
	 * "^@" where it is drawn). An id cannot hold one: it names a file. */
	e->summary.task_len = lens[1];
	if (strlen(e->summary.id) != lens[0])
		return ac_error_set(AC_ECORRUPT, "%s: its id holds \\u0000 (an id names a file: "
				    "it cannot)", shown_path);
	return 0;
}

static int parse_entry(entry *e, int dir_fd, const char *shown_path)
{
	ac_json_span spans[F_COUNT];
	ac_json_scan_error error;
	char *data = NULL;
	size_t len;
	int rc;

	/* Listed sessions can be paused and resumed: one whose file could never
	 * be rewritten (see AC_SESSION_ID_MAX) is reported, not listed. */
	if (strlen(e->name) - 5 > AC_SESSION_ID_MAX) {
		rc = ac_error_set(AC_ECORRUPT, "%s: its id is longer than %d bytes, so the file "
				  "cannot be rewritten", shown_path, AC_SESSION_ID_MAX);
		goto done;
	}
	if ((rc = ac_file_read_at(&data, &len, dir_fd, e->name, shown_path)))
		goto done;
	if (ac_json_scan(spans, data, len, listed_paths, F_COUNT, &error) != 0) {
		/* A session file has lines: name the line, not the byte. */
		rc = ac_error_set(AC_ECORRUPT, "%s: line %zu column %zu: %s", shown_path, error.line,
				  error.column, error.text);
		goto done;
	}
	if (len == 0 || data[strspn(data, " \t\r\n")] != '{') {
		rc = ac_error_set(AC_ECORRUPT, "%s: not a JSON object", shown_path);
		goto done;
	}
	if (spans[F_HISTORY].type != AC_JSON_NONE && spans[F_HISTORY].type != AC_JSON_ARRAY) {
		rc = ac_error_set(AC_ECORRUPT, "%s: conversationHistory is not an array", shown_path);
		goto done;
	}
	if ((rc = fill_strings(e, spans, shown_path)))
		goto done;
	if (!*e->summary.id) {
		rc = ac_error_set(AC_ECORRUPT, "%s: has no id", shown_path);
		goto done;
	}
	e->summary.messages = spans[F_HISTORY].count;
	/* The one count (ac_tokens.h), so that session show and the
	 * compaction dialog, which parse the file, say the same. */
	e->summary.tokens = spans[F_HISTORY].type == AC_JSON_ARRAY
				    ? ac_tokens_history_json(spans[F_HISTORY].start, spans[F_HISTORY].len)
				    : 0;
	e->summary.input_tokens = number_of(&spans[F_INPUT]);
	e->summary.output_tokens = number_of(&spans[F_OUTPUT]);
	e->summary.turns = number_of(&spans[F_TURNS]);
done:
	free(data);
	return rc;
}

/* A name with its first eight bytes as a sort key (ac_sort_key.h): session
 * ids differ there, so sorting 10,000 names seldom calls strcmp(). */
typedef struct {
	uint64_t key;
	char *name;
} name_item;

static int compare_name_items(const void *a, const void *b)
{
	const name_item *x = a, *y = b;

	return x->key != y->key ? ac_sort_key_cmp(x->key, y->key) : strcmp(x->name, y->name);
}

/* Sorts names[0..n) as strcmp() orders them. */
static int sort_names(char **names, size_t n)
{
	name_item *items;

	if (n < 2)
		return 0;
	if (!(items = malloc(n * sizeof(*items))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		items[i] = (name_item){ac_sort_key8(names[i], strnlen(names[i], 8), 0), names[i]};
	qsort(items, n, sizeof(*items), compare_name_items);
	for (size_t i = 0; i < n; i++)
		names[i] = items[i].name;
	free(items);
	return 0;
}

static int compare_newest_first(const void *a, const void *b)
{
	const ac_session_summary *x = *(const ac_session_summary *const *)a;
	const ac_session_summary *y = *(const ac_session_summary *const *)b;
	int c = strcmp(y->created_at, x->created_at);

	return c ? c : strcmp(x->id, y->id);
}

/* What of a file's stat tells that it changed: a third of a struct stat,
 * which a folder of 10,000 files holds one of each. */
typedef struct {
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
} file_stamp;

static file_stamp stamp_of(const struct stat *st)
{
	return (file_stamp){st->st_ino, st->st_size, st->st_mtim, st->st_ctim};
}

static bool same_stamp(const entry *e, const file_stamp *st)
{
	return e->ino == st->ino && e->size == st->size &&
	       e->mtime.tv_sec == st->mtime.tv_sec && e->mtime.tv_nsec == st->mtime.tv_nsec &&
	       e->ctime.tv_sec == st->ctime.tv_sec && e->ctime.tv_nsec == st->ctime.tv_nsec;
}

/* The folder's session file names, sorted: pointers into one block of
 * text (a warm listing of 10,000 files keeps almost none of them, so
 * they are not allocated one by one). */
typedef struct {
	char **names;
	size_t n;
	char *text;
} folder_names;

static void folder_names_free(folder_names *f)
{
	free(f->names);
	free(f->text);
}

/* Reads the names; *out_temps tells whether a writer's temporary file is
 * among the others (ac_atomic_is_temp_name()), so that the folder is read
 * a second time only when one is there to clean. */
static int list_names(folder_names *out, bool *out_temps, DIR *d)
{
	ac_buf text = AC_BUF_INIT;
	size_t *at = NULL, n = 0, cap = 0;
	struct dirent *de;

	*out_temps = false;
	memset(out, 0, sizeof(*out));
	while ((de = readdir(d)) != NULL) {
		if (!is_session_name(de->d_name)) {
			*out_temps = *out_temps || ac_atomic_is_temp_name(de->d_name);
			continue;
		}
		if (n == cap) {
			size_t *grown = realloc(at, (cap = cap ? cap * 2 : 256) * sizeof(*at));

			if (!grown)
				goto oom;
			at = grown;
		}
		at[n++] = text.len;
		if (ac_buf_append(&text, de->d_name, strlen(de->d_name) + 1))
			goto oom;
	}
	/* Offsets while the text grew; pointers now that it has stopped. */
	if (!(out->names = malloc((n + 1) * sizeof(*out->names))))
		goto oom;
	for (size_t i = 0; i < n; i++)
		out->names[i] = text.data + at[i];
	out->n = n;
	out->text = ac_buf_detach(&text);
	free(at);
	return sort_names(out->names, n);
oom:
	free(at);
	ac_buf_free(&text);
	return ac_error_set(AC_ENOMEM, "out of memory");
}

/* Asks the kernel to start reading a file we will parse soon, so that on a
 * cold cache the disk works on many files at once instead of one by one. */
static void read_ahead(int dir_fd, const char *name)
{
	int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
		close(fd);
	}
}

#define READ_AHEAD_FILES 64

/* Keeps read-ahead going on the READ_AHEAD_FILES names after names[i];
 * *ahead is the first name not asked for yet. */
static void read_ahead_after(int dir_fd, char **names, size_t nnames, size_t i, size_t *ahead)
{
	size_t next = *ahead > i ? *ahead : i + 1;

	for (; next < nnames && next < i + READ_AHEAD_FILES; next++)
		read_ahead(dir_fd, names[next]);
	*ahead = next;
}

/* Reads and scans the entries marked to_parse. The first look at a big
 * folder reads every file and is CPU-bound (scanning and estimating
 * tokens), so it is shared among worker threads, one per core. */
typedef struct {
	entry *entries;
	size_t count;
	int dir_fd;
	const char *dir;
	size_t next;          /* the next entry to take */
	pthread_mutex_t lock;
	int failed;           /* a resource failure (AC_ENOMEM: memory, descriptors) */
	char *failure;        /* ...and its message */
} parse_work;

static void *parse_worker(void *arg)
{
	parse_work *w = arg;
	ac_buf shown = AC_BUF_INIT;

	for (;;) {
		entry *e;

		int rc;

		pthread_mutex_lock(&w->lock);
		while (w->next < w->count && !w->entries[w->next].to_parse)
			w->next++;
		e = w->next < w->count && !w->failed ? &w->entries[w->next++] : NULL;
		pthread_mutex_unlock(&w->lock);
		if (!e)
			break;
		ac_buf_clear(&shown);
		if (ac_buf_printf(&shown, "%s/%s", w->dir, e->name))
			rc = ac_error_set(AC_ENOMEM, "%s: out of memory", w->dir);
		else
			rc = parse_entry(e, w->dir_fd, shown.data);
		if (rc == AC_ENOMEM) {
			/* Out of memory or descriptors says nothing about the
			 * file: the listing fails rather than call it bad. */
			pthread_mutex_lock(&w->lock);
			if (!w->failed) {
				w->failed = rc;
				w->failure = strdup(ac_error_last());
			}
			pthread_mutex_unlock(&w->lock);
		} else if (rc != 0) {
			e->bad = true;
			/* ac_error_last() is per thread: keep the words for later. */
			e->problem = strdup(ac_error_last());
		}
	}
	ac_buf_free(&shown);
	return NULL;
}

#define PARSE_THREADS_MAX 8
#define FILES_PER_THREAD 64 /* fewer changed files are not worth a thread */

static int parse_changed(entry *entries, size_t count, size_t changed, int dir_fd,
			 const char *dir)
{
	parse_work work = {entries, count, dir_fd, dir, 0, PTHREAD_MUTEX_INITIALIZER, 0, NULL};
	pthread_t threads[PARSE_THREADS_MAX];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nthreads = changed / FILES_PER_THREAD, started = 0;

	if (nthreads > (size_t)(cores > 0 ? cores : 1))
		nthreads = (size_t)(cores > 0 ? cores : 1);
	if (nthreads > PARSE_THREADS_MAX)
		nthreads = PARSE_THREADS_MAX;
	/* This thread works too; the others only help. */
	for (size_t i = 1; i < nthreads; i++)
		if (pthread_create(&threads[started], NULL, parse_worker, &work) == 0)
			started++;
	parse_worker(&work);
	for (size_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	if (work.failed) {
		ac_error_set(work.failed, "%s", work.failure ? work.failure : "out of memory");
		free(work.failure);
		return work.failed;
	}
	return 0;
}

/* A changed file is read again with the summary it listed in hand, in
 * case the new bytes do not read (keep_last_good()): from was its entry,
 * to is the one to be read. Not a summary from the cache, so that a start
 * lists what it would without one. Out of memory for it, the file is only
 * read again. */
static void keep_aside_last_good(const ac_session_index *idx, entry *to, entry *from)
{
	if (idx->keep_last_good && from->strings && (!from->bad || from->kept) &&
	    !from->cached && (to->prev = malloc(sizeof(*to->prev)))) {
		*to->prev = (last_good){from->summary, from->strings, from->strings_in_cache};
		from->strings = NULL;
	}
}

/* Moves the index's entry for name into e when the file has not changed
 * since it was parsed. *old walks the index's entries (sorted) along with
 * the sorted names. */
static bool take_unchanged(entry *e, ac_session_index *idx, size_t *old, const char *name,
			   const file_stamp *st)
{
	int cmp = 1;

	while (*old < idx->count && (cmp = strcmp(idx->entries[*old].name, name)) < 0)
		(*old)++;
	if (*old >= idx->count || cmp != 0)
		return false;
	if (!same_stamp(&idx->entries[*old], st)) {
		keep_aside_last_good(idx, e, &idx->entries[(*old)++]);
		return false;
	}
	*e = idx->entries[*old];
	e->cached = false; /* its stamp is the file's: as if read here */
	memset(&idx->entries[(*old)++], 0, sizeof(entry));
	return true;
}

/* A new or changed file: e takes name (owned) and st's stamp, to be read. */
static void mark_to_parse(entry *e, char *name, const file_stamp *st)
{
	e->name = name;
	e->ino = st->ino;
	e->size = st->size;
	e->mtime = st->mtime;
	e->ctime = st->ctime;
	e->summary.written_ms = (int64_t)st->mtime.tv_sec * 1000 + st->mtime.tv_nsec / 1000000;
	e->to_parse = true;
}

/* Each name's stat, taken on two threads for a big folder: a warm
 * listing of 10,000 files is mostly these stats (every file's stamp must
 * be looked at: a file rewritten in place changes no name), and the
 * kernel's path walks run on both cores at once. stats_start() sets a
 * helper thread on the names; stats_finish() joins in on this thread
 * (after the cache is read) and waits for the helper. The two take
 * chunks from one counter, so neither waits on the other's share. A stat
 * that fails (the file removed since readdir) leaves ok[i] false. */
#define STAT_THREAD_MIN 2048 /* fewer files are not worth a thread */
#define STAT_CHUNK 128       /* names a thread takes at once */

typedef struct {
	int dir_fd;
	char **names;
	size_t n;
	file_stamp *st;
	bool *ok;
	atomic_size_t next; /* the first name no thread has taken */
	pthread_t helper;
	bool helped;
} name_stats;

static void *stat_chunks(void *arg)
{
	name_stats *s = arg;
	size_t from;

	while ((from = atomic_fetch_add(&s->next, STAT_CHUNK)) < s->n) {
		size_t to = s->n - from < STAT_CHUNK ? s->n : from + STAT_CHUNK;

		for (size_t i = from; i < to; i++) {
			struct stat st;

			if ((s->ok[i] = fstatat(s->dir_fd, s->names[i], &st, AT_SYMLINK_NOFOLLOW) == 0))
				s->st[i] = stamp_of(&st);
		}
	}
	return NULL;
}

static int stats_start(name_stats *s, int dir_fd, char **names, size_t n)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	s->dir_fd = dir_fd;
	s->names = names;
	s->n = n;
	s->helped = false;
	atomic_init(&s->next, 0);
	if (!(s->st = malloc((n + 1) * sizeof(*s->st))) || !(s->ok = calloc(n + 1, sizeof(*s->ok)))) {
		free(s->st);
		s->st = NULL;
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	/* No thread to be had: this one takes every name in stats_finish(). */
	s->helped = n >= STAT_THREAD_MIN && cores > 1 &&
		    pthread_create(&s->helper, NULL, stat_chunks, s) == 0;
	return 0;
}

static void stats_finish(name_stats *s)
{
	stat_chunks(s);
	if (s->helped)
		pthread_join(s->helper, NULL);
	s->helped = false;
}

static void stats_free(name_stats *s)
{
	free(s->st);
	free(s->ok);
}

/* After a failed parse: entries were moved out of the index, so forget it
 * all, and the next refresh reads every file afresh. */
static void forget_all(ac_session_index *idx, entry *fresh, size_t nfresh)
{
	clear_entries(fresh, nfresh);
	clear_entries(idx->entries, idx->count);
	free(idx->entries);
	free(idx->sorted);
	idx->entries = NULL;
	idx->sorted = NULL;
	idx->count = idx->cap = idx->nsorted = idx->problems = 0;
}

/* The entries for the folder's names, by their stats (stats_finish()): an
 * unchanged file's comes over from the index, any other gets a copy of its
 * name and is marked to_parse, *out_parsed counting those. A file removed
 * since readdir is left out. */
/* Whether the folder holds just the names the index has, all still there
 * to stat: the usual warm look, whose entries can stay where they are. */
static bool same_names(const ac_session_index *idx, char **names, size_t nnames,
		       const name_stats *stats)
{
	if (idx->count != nnames || !nnames)
		return false;
	for (size_t i = 0; i < nnames; i++)
		if (!stats->ok[i] || strcmp(idx->entries[i].name, names[i]))
			return false;
	return true;
}

/* collect_entries() where the entries lie: an unchanged one only loses
 * its cached mark; a changed one is emptied but for its name (and its
 * last good summary, set aside) and marked to_parse. */
static void collect_in_place(size_t *out_parsed, ac_session_index *idx, const name_stats *stats)
{
	for (size_t i = 0; i < idx->count; i++) {
		entry *e = &idx->entries[i], changed = {0};

		if (same_stamp(e, &stats->st[i])) {
			e->cached = false; /* its stamp is the file's: as if read here */
			continue;
		}
		keep_aside_last_good(idx, &changed, e);
		changed.name_in_cache = e->name_in_cache;
		changed.name = e->name;
		e->name = NULL;
		entry_clear(e);
		*e = changed;
		mark_to_parse(e, e->name, &stats->st[i]);
		(*out_parsed)++;
	}
}

static int collect_entries(entry **out, size_t *out_n, size_t *out_parsed, bool *out_in_place,
			   ac_session_index *idx, DIR *d, char **names, size_t nnames,
			   const name_stats *stats)
{
	entry *fresh;
	size_t n = 0, old = 0, ahead = 0;

	*out = NULL;
	*out_n = *out_parsed = 0;
	*out_in_place = same_names(idx, names, nnames, stats);
	if (*out_in_place) {
		collect_in_place(out_parsed, idx, stats);
		*out = idx->entries;
		*out_n = idx->count;
		return 0;
	}
	if (!nnames)
		return 0;
	if (!(fresh = calloc(nnames, sizeof(*fresh))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < nnames; i++) {
		const file_stamp *st = &stats->st[i];

		if (!stats->ok[i])
			continue; /* removed since readdir */
		/* On the first look every file is read: keep the disk busy ahead. */
		if (idx->count == 0)
			read_ahead_after(dirfd(d), names, nnames, i, &ahead);
		if (!take_unchanged(&fresh[n], idx, &old, names[i], st)) {
			char *name = strdup(names[i]);

			if (!name) { /* entries have left the index: start afresh */
				forget_all(idx, fresh, n + 1);
				free(fresh);
				return ac_error_set(AC_ENOMEM, "out of memory");
			}
			mark_to_parse(&fresh[n], name, st);
			(*out_parsed)++;
		}
		n++;
	}
	*out = fresh;
	*out_n = n;
	return 0;
}

/* A file read well before that does not read now keeps its last good
 * summary, marked stale: one torn write must not make a session vanish
 * (and a dashboard's cursor jump to its neighbour). */
static void keep_last_good(entry *fresh, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		entry *e = &fresh[i];

		if (!e->prev)
			continue;
		if (e->bad) {
			int64_t written = e->summary.written_ms;

			free_unless_in_cache(e->strings, e->strings_in_cache);
			e->summary = e->prev->summary;
			e->summary.stale = true;
			e->summary.written_ms = written; /* written now, if torn */
			e->strings = e->prev->strings;
			e->strings_in_cache = e->prev->in_cache;
			e->kept = true;
		} else {
			free_unless_in_cache(e->prev->strings, e->prev->in_cache);
		}
		free(e->prev);
		e->prev = NULL;
	}
}

/* Hands each new problem to problem (may be NULL) once, and readies the
 * entries for the next refresh. */
static void report_problems(const char *dir, entry *fresh, size_t n, ac_session_problem_fn problem,
			    void *ctx)
{
	ac_buf shown = AC_BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		if (fresh[i].problem && problem) {
			ac_buf_clear(&shown);
			ac_buf_printf(&shown, "%s/%s", dir, fresh[i].name);
			problem(shown.data, fresh[i].problem, ctx);
		}
		free(fresh[i].problem);
		fresh[i].problem = NULL;
		fresh[i].to_parse = false;
	}
	ac_buf_free(&shown);
}

/* A listed summary with the first 24 bytes of its creation time (an
 * ISO-8601 stamp to the millisecond) as sort keys: the newest-first sort
 * of 10,000 compares integers, and strings only on a tie. */
typedef struct {
	uint64_t created[3];
	const ac_session_summary *s;
} listed_item;

static bool listed_before(const listed_item *x, const listed_item *y)
{
	for (int k = 0; k < 3; k++)
		if (x->created[k] != y->created[k])
			return x->created[k] > y->created[k];
	return compare_newest_first(&x->s, &y->s) < 0;
}

/* A merge sort of items[0..n) with room tmp for as many: the comparison
 * inlined, where qsort() calls it through a pointer and copies each
 * 32-byte item with memcpy() (a third of a warm listing's sort). */
static void sort_listed_items(listed_item *items, listed_item *tmp, size_t n)
{
	listed_item *from = items, *to = tmp;

	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = n - lo > width ? lo + width : n;
			size_t hi = n - mid > width ? mid + width : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				to[k++] = listed_before(&from[j], &from[i]) ? from[j++] : from[i++];
			while (i < mid)
				to[k++] = from[i++];
			while (j < hi)
				to[k++] = from[j++];
		}
		listed_item *swap = from;

		from = to;
		to = swap;
	}
	if (from != items)
		memcpy(items, from, n * sizeof(*items));
}

/* The listing: the good entries' summaries, newest first; bad ones counted. */
static int sort_listed(ac_session_index *idx)
{
	listed_item *items;
	size_t n = 0;

	free(idx->sorted);
	idx->sorted = calloc(idx->count + 1, sizeof(*idx->sorted));
	idx->nsorted = idx->problems = 0;
	/* The items, then as many again for the merges. */
	if (!idx->sorted || idx->count > SIZE_MAX / 2 / sizeof(*items) - 1 ||
	    !(items = malloc(2 * (idx->count + 1) * sizeof(*items))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < idx->count; i++) {
		const ac_session_summary *s = &idx->entries[i].summary;
		size_t len;

		if (idx->entries[i].bad)
			idx->problems++;
		if (idx->entries[i].bad && !idx->entries[i].kept)
			continue; /* no summary */
		len = strnlen(s->created_at, sizeof(items->created));
		items[n].s = s;
		for (int k = 0; k < 3; k++)
			items[n].created[k] = ac_sort_key8(s->created_at, len, (size_t)k * 8);
		n++;
	}
	sort_listed_items(items, items + idx->count + 1, n);
	for (size_t i = 0; i < n; i++)
		idx->sorted[i] = items[i].s;
	idx->nsorted = n;
	free(items);
	return 0;
}

/* ---- the cache between processes (ac_session_cache.c) -------------------- */

int ac_session_index_use_cache(ac_session_index *idx)
{
	free(idx->cache_path);
	idx->cache_path = NULL;
	return ac_session_cache_path(&idx->cache_path, idx->dir);
}

static int compare_entry_names(const void *a, const void *b)
{
	return strcmp(((const entry *)a)->name, ((const entry *)b)->name);
}

/* A record of the cache as an entry of the index, its stamp to be checked
 * by the refresh like any entry's; its name and strings stay in the
 * cache's memory. */
static int take_cached(const ac_session_cache_record *r, void *ctx)
{
	ac_session_index *idx = ctx;
	entry *e;

	if (!is_session_name(r->name) || idx->count == idx->cap)
		return 0;
	e = &idx->entries[idx->count++];
	memset(e, 0, sizeof(*e));
	e->name = (char *)r->name;
	e->strings = (char *)r->strings;
	e->name_in_cache = e->strings_in_cache = true;
	e->ino = (ino_t)r->ino;
	e->size = (off_t)r->size;
	e->mtime = r->mtime;
	e->ctime = r->ctime;
	e->summary = r->summary;
	e->summary.written_ms = (int64_t)r->mtime.tv_sec * 1000 + r->mtime.tv_nsec / 1000000;
	e->cached = true;
	return 0;
}

/* On the first refresh of an empty index, its entries from the cache
 * (sorted by name, as the refresh walks them; a name twice is dropped). */
static int cache_load(ac_session_index *idx, DIR *d)
{
	size_t kept = 0, count;
	int rc;

	if (!d || fstat(dirfd(d), &idx->dir_stat) != 0)
		memset(&idx->dir_stat, 0, sizeof(idx->dir_stat));
	if (!idx->cache_path || idx->cache_read || !d || idx->count)
		return 0;
	idx->cache_read = idx->cache_dirty = true;
	if ((rc = ac_session_cache_load(&idx->cache, idx->cache_path,
					(uint64_t)idx->dir_stat.st_dev,
					(uint64_t)idx->dir_stat.st_ino)))
		return rc;
	/* Room for every record at once: growing by doubling would copy
	 * megabytes of entries on the way. */
	count = ac_session_cache_count(idx->cache);
	if (count && count <= SIZE_MAX / sizeof(entry) &&
	    (idx->entries = malloc(count * sizeof(entry))))
		idx->cap = count;
	if ((rc = ac_session_cache_each(idx->cache, take_cached, idx))) {
		forget_all(idx, NULL, 0);
		return rc;
	}
	/* Saved sorted: sorted again only if it is not. */
	for (size_t i = 1; i < idx->count; i++)
		if (strcmp(idx->entries[i - 1].name, idx->entries[i].name) >= 0) {
			qsort(idx->entries, idx->count, sizeof(entry), compare_entry_names);
			break;
		}
	for (size_t i = 0; i < idx->count; i++) {
		if (kept && !strcmp(idx->entries[kept - 1].name, idx->entries[i].name))
			entry_clear(&idx->entries[i]);
		else
			idx->entries[kept++] = idx->entries[i];
	}
	idx->count = kept;
	/* Written again only if the folder differs from it. */
	idx->cache_dirty = false;
	return 0;
}

/* The cache read on a thread of its own while the calling thread reads the
 * folder's names: the two meet only when the names are matched to it. A
 * later refresh, with nothing to read, stays on the calling thread. */
typedef struct {
	ac_session_index *idx;
	DIR *d;
	pthread_t thread;
	bool started;
	int rc;
	char error[256]; /* its message: ac_error_last() is the thread's own */
} cache_reading;

static void *cache_reading_run(void *arg)
{
	cache_reading *r = arg;

	if ((r->rc = cache_load(r->idx, r->d)))
		snprintf(r->error, sizeof(r->error), "%s", ac_error_last());
	return NULL;
}

static void cache_reading_start(cache_reading *r, ac_session_index *idx, DIR *d)
{
	bool to_read = idx->cache_path && !idx->cache_read && !idx->count;

	r->idx = idx;
	r->d = d;
	r->rc = 0;
	r->started = to_read && pthread_create(&r->thread, NULL, cache_reading_run, r) == 0;
	if (!r->started)
		cache_reading_run(r);
}

/* Waits for the cache; its error (0 when none) is set here as well. */
static int cache_reading_finish(cache_reading *r)
{
	if (r->started)
		pthread_join(r->thread, NULL);
	r->started = false;
	return r->rc ? ac_error_set(r->rc, "%s", r->error) : 0;
}

/* Racy stamps (git's "racy clean" rule): on a file system whose times are
 * coarse (a second, two on FAT) a file rewritten in place within the same
 * tick, to the same size, keeps its mtime, ctime and inode, so a stamp
 * taken within that tick proves nothing. Entries whose mtime or ctime is
 * less than RACY_NS before the save are left out of the cache: the next
 * process reads them again. Writers that replace the file (a new inode)
 * are caught by the stamp whatever the clock. */
#define RACY_NS INT64_C(2000000000)

static int64_t ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

int ac_session_index_save_cache(ac_session_index *idx)
{
	ac_session_cache_record *records;
	struct timespec now;
	size_t n = 0;
	int rc;

	if (!idx->cache_path || !idx->cache_dirty || !idx->dir_stat.st_ino)
		return 0;
	if (!(records = calloc(idx->count + 1, sizeof(*records))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	clock_gettime(CLOCK_REALTIME, &now);
	for (size_t i = 0; i < idx->count; i++) {
		const entry *e = &idx->entries[i];
		const ac_session_summary *s = &e->summary;

		if (e->bad || !e->strings || s->id != e->strings ||
		    ns_of(&e->mtime) > ns_of(&now) - RACY_NS ||
		    ns_of(&e->ctime) > ns_of(&now) - RACY_NS)
			continue;
		records[n] = (ac_session_cache_record){
			.name = e->name, .ino = (uint64_t)e->ino, .size = (uint64_t)e->size,
			.mtime = e->mtime, .ctime = e->ctime, .summary = *s, .strings = e->strings,
			.strings_len = (size_t)(s->agent + strlen(s->agent) + 1 - e->strings)};
		n++;
	}
	/* Nothing to keep: no file (a folder listed once leaves none behind). */
	if (n == 0)
		rc = unlink(idx->cache_path) != 0 && errno != ENOENT
			     ? ac_error_errno(errno, "%s", idx->cache_path) : 0;
	else
		rc = ac_session_cache_save(idx->cache_path, (uint64_t)idx->dir_stat.st_dev,
					   (uint64_t)idx->dir_stat.st_ino, records, n);
	if (rc == 0)
		idx->cache_dirty = false;
	free(records);
	return rc;
}

int ac_session_index_refresh(ac_session_index *idx, ac_session_problem_fn problem,
			     void *ctx, size_t *out_parsed)
{
	DIR *d = opendir(idx->dir);
	folder_names names = {0};
	size_t parsed = 0, nfresh = 0;
	entry *fresh = NULL;
	name_stats stats = {0};
	cache_reading reading = {0};
	bool temps = false, in_place = false;
	int rc = 0;

	if (!d) {
		if (errno != ENOENT)
			return ac_error_errno(errno, "%s", idx->dir);
	} else {
		/* The cache is read while this thread reads the names, then
		 * both stat them. */
		cache_reading_start(&reading, idx, d);
		if ((rc = list_names(&names, &temps, d)) == 0 &&
		    (rc = stats_start(&stats, dirfd(d), names.names, names.n)) == 0)
			stats_finish(&stats);
		if (cache_reading_finish(&reading) && rc == 0)
			rc = reading.rc;
		if (rc)
			goto done;
	}
	if ((rc = collect_entries(&fresh, &nfresh, &parsed, &in_place, idx, d, names.names,
				  names.n, &stats)))
		goto done;
	/* In place, fresh is the index's own array: it is not freed twice. */
	if ((rc = parse_changed(fresh, nfresh, parsed, d ? dirfd(d) : -1, idx->dir))) {
		forget_all(idx, in_place ? NULL : fresh, in_place ? 0 : nfresh);
		if (in_place)
			fresh = NULL;
		goto done;
	}
	/* The cache is behind when a file read well or one listed is gone. */
	idx->cache_dirty |= (in_place ? nfresh : idx->count) != nfresh - parsed;
	for (size_t i = 0; i < nfresh && !idx->cache_dirty; i++)
		idx->cache_dirty = fresh[i].to_parse && !fresh[i].bad;
	keep_last_good(fresh, nfresh);
	report_problems(idx->dir, fresh, nfresh, problem, ctx);
	if (!in_place) {
		clear_entries(idx->entries, idx->count);
		free(idx->entries);
		idx->entries = fresh;
		idx->count = idx->cap = nfresh;
	}
	fresh = NULL;
	if ((rc = sort_listed(idx)))
		goto done;
	/* Stray temp files of crashed writers: once per index is enough, and
	 * none to look for when the listing saw none (a second pass over a
	 * folder of 10,000 names costs a warm `session list` a tenth). */
	if (d && !idx->cleaned && temps) {
		ac_atomic_clean_temps(idx->dir, 3600);
		idx->cleaned = true;
	}
	if (out_parsed)
		*out_parsed = parsed;
done:
	stats_free(&stats);
	folder_names_free(&names);
	free(fresh);
	if (d)
		closedir(d);
	return rc;
}

/* ---- one file: what the watcher named ------------------------------------ */

static bool listed(const entry *e)
{
	return !e->bad || e->kept;
}

/* Where name's entry is (*out_found) or would go, by binary search. */
static size_t find_entry(const ac_session_index *idx, const char *name, bool *out_found)
{
	size_t lo = 0, hi = idx->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(idx->entries[mid].name, name);

		if (!c) {
			*out_found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*out_found = false;
	return lo;
}

/* The listing place of a listed entry's summary. */
static size_t sorted_place(const ac_session_index *idx, const ac_session_summary *s)
{
	size_t i = 0;

	while (i < idx->nsorted && idx->sorted[i] != s)
		i++;
	return i;
}

static void sorted_remove(ac_session_index *idx, size_t at)
{
	memmove(&idx->sorted[at], &idx->sorted[at + 1],
		(idx->nsorted - at - 1) * sizeof(*idx->sorted));
	idx->nsorted--;
}

/* Puts s into the listing, newest createdAt first; returns its place. */
static size_t sorted_insert(ac_session_index *idx, const ac_session_summary *s)
{
	size_t lo = 0, hi = idx->nsorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (compare_newest_first(&idx->sorted[mid], &s) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&idx->sorted[lo + 1], &idx->sorted[lo], (idx->nsorted - lo) * sizeof(*idx->sorted));
	idx->sorted[lo] = s;
	idx->nsorted++;
	return lo;
}

/* Entries move when one comes or goes: the listing's pointers into them
 * are taken as entry numbers first and made pointers again after. */
static int sorted_to_numbers(const ac_session_index *idx, size_t **out)
{
	size_t *numbers = calloc(idx->nsorted + 1, sizeof(*numbers));

	if (!numbers)
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < idx->nsorted; i++)
		numbers[i] = (size_t)((const entry *)((const char *)idx->sorted[i] -
						     offsetof(entry, summary)) - idx->entries);
	*out = numbers;
	return 0;
}

/* After entry at was removed (shift -1) or inserted (+1). */
static void sorted_from_numbers(ac_session_index *idx, const size_t *numbers, size_t at, int shift)
{
	for (size_t i = 0; i < idx->nsorted; i++) {
		size_t n = numbers[i] >= at ? (size_t)((ptrdiff_t)numbers[i] + shift) : numbers[i];

		idx->sorted[i] = &idx->entries[n].summary;
	}
}

/* Removes the entry at, and its place was_at in the listing (or
 * AC_SESSION_INDEX_NONE); on failure nothing changed. */
static int entries_remove(ac_session_index *idx, size_t at, size_t was_at)
{
	size_t *numbers = NULL;
	int rc;

	if ((rc = sorted_to_numbers(idx, &numbers)))
		return rc;
	if (was_at != AC_SESSION_INDEX_NONE) {
		memmove(&numbers[was_at], &numbers[was_at + 1],
			(idx->nsorted - was_at - 1) * sizeof(*numbers));
		idx->nsorted--;
	}
	idx->problems -= idx->entries[at].bad;
	entry_clear(&idx->entries[at]);
	memmove(&idx->entries[at], &idx->entries[at + 1], (idx->count - at - 1) * sizeof(entry));
	idx->count--;
	sorted_from_numbers(idx, numbers, at, -1);
	free(numbers);
	return 0;
}

/* Inserts e (moved in) at; on failure e is left to the caller. */
static int entries_insert(ac_session_index *idx, size_t at, const entry *e)
{
	size_t *numbers = NULL;
	int rc;

	if ((rc = sorted_to_numbers(idx, &numbers)))
		return rc;
	if (idx->count == idx->cap) {
		size_t cap = idx->cap ? 2 * idx->cap : 16;
		entry *grown = realloc(idx->entries, cap * sizeof(*grown));
		const ac_session_summary **grown_sorted =
			grown ? realloc(idx->sorted, (cap + 1) * sizeof(*grown_sorted)) : NULL;

		if (grown)
			idx->entries = grown;
		if (grown_sorted)
			idx->sorted = grown_sorted;
		if (!grown || !grown_sorted) {
			sorted_from_numbers(idx, numbers, at, 0);
			free(numbers);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		idx->cap = cap;
	}
	memmove(&idx->entries[at + 1], &idx->entries[at], (idx->count - at) * sizeof(entry));
	idx->entries[at] = *e;
	idx->count++;
	sorted_from_numbers(idx, numbers, at, 1);
	free(numbers);
	return 0;
}

int ac_session_index_refresh_file(ac_session_index *idx, const char *name,
				  ac_session_problem_fn problem, void *ctx,
				  ac_session_index_change *out)
{
	ac_buf shown = AC_BUF_INIT;
	entry fresh = {0}, *old;
	struct stat st = {0};
	file_stamp stamp;
	bool found, exists;
	size_t at;
	int dir_fd = -1, rc = 0;

	out->was_at = out->now_at = AC_SESSION_INDEX_NONE;
	out->changed = false;
	if (!is_session_name(name) || strchr(name, '/'))
		return 0;
	if (ac_buf_printf(&shown, "%s/%s", idx->dir, name))
		return ac_error_set(AC_ENOMEM, "out of memory");
	/* The folder gone or replaced is for a full refresh to sort out. */
	if ((dir_fd = open(idx->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = ac_error_errno(errno, "%s", idx->dir);
		goto done;
	}
	at = find_entry(idx, name, &found);
	old = found ? &idx->entries[at] : NULL;
	exists = fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	stamp = stamp_of(&st);
	if (old && exists && same_stamp(old, &stamp))
		goto done; /* an event that changed nothing listed (a touch, a repeat) */
	if (old && listed(old))
		out->was_at = sorted_place(idx, &old->summary);
	if (!exists) {
		if (old && !(rc = entries_remove(idx, at, out->was_at)))
			out->changed = idx->cache_dirty = true;
		goto done;
	}
	if (!(fresh.name = strdup(name))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	mark_to_parse(&fresh, fresh.name, &stamp);
	fresh.to_parse = false;
	if ((rc = parse_entry(&fresh, dir_fd, shown.data)) == AC_ENOMEM)
		goto done; /* says nothing about the file: the index stays as it was */
	if (rc) {
		fresh.bad = true;
		fresh.problem = strdup(ac_error_last());
		rc = 0;
		/* keep_last_good(): one torn write keeps the row, marked stale. */
		if (old && idx->keep_last_good && old->strings && listed(old)) {
			int64_t written = fresh.summary.written_ms;

			free(fresh.strings);
			fresh.summary = old->summary;
			fresh.summary.stale = true;
			fresh.summary.written_ms = written;
			fresh.strings = old->strings;
			fresh.strings_in_cache = old->strings_in_cache;
			old->strings = NULL;
			fresh.kept = true;
		}
	}
	if (fresh.problem && problem)
		problem(shown.data, fresh.problem, ctx);
	free(fresh.problem);
	fresh.problem = NULL;
	if (out->was_at != AC_SESSION_INDEX_NONE)
		sorted_remove(idx, out->was_at);
	if (old) {
		idx->problems -= old->bad;
		entry_clear(old);
		*old = fresh;
	} else if ((rc = entries_insert(idx, at, &fresh))) {
		goto done;
	}
	memset(&fresh, 0, sizeof(fresh)); /* moved into the index */
	old = &idx->entries[at];
	idx->problems += old->bad;
	if (listed(old))
		out->now_at = sorted_insert(idx, &old->summary);
	out->changed = true;
	idx->cache_dirty = true;
done:
	entry_clear(&fresh);
	ac_buf_free(&shown);
	if (dir_fd >= 0)
		close(dir_fd);
	return rc;
}

const ac_session_summary *const *ac_session_index_list(const ac_session_index *idx,
							size_t *out_n)
{
	*out_n = idx->nsorted;
	return idx->sorted;
}

size_t ac_session_index_problems(const ac_session_index *idx)
{
	return idx->problems;
}
