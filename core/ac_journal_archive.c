/* The journal's archives beside it: which files in its folder hold events
 * the journal once held, in what order, and which look like archives but
 * cannot be read.
 *
 * agentctl rotates to "<stem>-<YYYYMMDDThhmmss.sssZ>.jsonl". Seed 004 §5
 * leaves the scheme open ("monthly or by size"), so other writers' archives
 * are read too: "<stem>-YYYY-MM.jsonl" and "<stem>-YYYY-MM-DD.jsonl" (by
 * month, by day), and logrotate's "<stem>.jsonl.N" (higher N older) and
 * "<stem>.jsonl-YYYYMMDD" (dateext). Not a writer: rotation is
 * ac_journal.c's. */
#include "ac_journal.h"
#include "ac_journal_archive.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_fs_calls.h"
#include "ac_time.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How much of an archive is read for the time of its first event. */
#define FIRST_LINE_MAX 65536

int ac_journal_split_path(char **out_dir, char **out_stem, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t base_len = strlen(base);

	if (base_len > 6 && strcmp(base + base_len - 6, ".jsonl") == 0)
		base_len -= 6;
	*out_dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
	*out_stem = strndup(base, base_len);
	if (!*out_dir || !*out_stem) {
		free(*out_dir);
		free(*out_stem);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	return 0;
}

/* An archive found: where it sorts. */
typedef struct {
	char *path;
	int64_t at;          /* its first event's time, else its name's, else mtime */
	unsigned long order; /* logrotate's N (higher: older); 0 for the rest */
} archive;

typedef struct {
	archive *items;
	size_t n, cap;
	char **unread; /* "<path>: why" */
	size_t nunread, unread_cap;
} listing;

static bool digits(const char *s, size_t n)
{
	return strspn(s, "0123456789") >= n;
}

/* "YYYY-MM" or "YYYY-MM-DD" then ".jsonl": its first day. */
static bool dated_name(int64_t *out_ms, const char *rest)
{
	char iso[11];
	size_t len = strlen(rest);

	if (len == 7 + 6 && digits(rest, 4) && rest[4] == '-' && digits(rest + 5, 2))
		snprintf(iso, sizeof(iso), "%.7s-01", rest);
	else if (len == 10 + 6 && digits(rest, 4) && rest[4] == '-' && digits(rest + 5, 2) &&
		 rest[7] == '-' && digits(rest + 8, 2))
		snprintf(iso, sizeof(iso), "%.10s", rest);
	else
		return false;
	return !strcmp(rest + len - 6, ".jsonl") && ac_time_parse(out_ms, iso) == 0;
}

/* logrotate's dateext suffix, "YYYYMMDD" (and any finer digits after). */
static bool dateext_name(int64_t *out_ms, const char *rest)
{
	char iso[11];

	if (strlen(rest) < 8 || rest[strspn(rest, "0123456789")] != '\0')
		return false;
	snprintf(iso, sizeof(iso), "%.4s-%.2s-%.2s", rest, rest + 4, rest + 6);
	return ac_time_parse(out_ms, iso) == 0;
}

static bool compressed(const char *name)
{
	static const char *const suffixes[] = {".gz", ".bz2", ".xz", ".zst", ".lz4", ".Z", ".zip"};
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++) {
		size_t s = strlen(suffixes[i]);

		if (len > s && !strcmp(name + len - s, suffixes[i]))
			return true;
	}
	return false;
}

typedef enum { NOT_ARCHIVE, READ, UNREAD } kind;

/* What name is beside the journal "<stem>.jsonl": an archive read (with the
 * time and order its name gives), one that is not (*why), or neither. */
static kind classify(int64_t *at, unsigned long *order, const char **why, const char *name,
		     const char *stem)
{
	size_t stem_len = strlen(stem);
	const char *rest;

	*at = 0;
	*order = 0;
	if (strncmp(name, stem, stem_len) != 0)
		return NOT_ARCHIVE;
	rest = name + stem_len;
	if (rest[0] == '-') {
		if (strlen(rest + 1) == 20 + 6 && !strcmp(rest + 21, ".jsonl") &&
		    ac_time_parse_file(at, rest + 1))
			return READ;
		if (dated_name(at, rest + 1))
			return READ;
	} else if (!strncmp(rest, ".jsonl", 6) && (rest[6] == '.' || rest[6] == '-')) {
		const char *suffix = rest + 7;

		if (!strcmp(suffix, "lock") || !*suffix)
			return NOT_ARCHIVE; /* the writers' lock file */
		if (rest[6] == '.' && *suffix != '0' && digits(suffix, 1) &&
		    suffix[strspn(suffix, "0123456789")] == '\0' && strlen(suffix) < 10) {
			*order = strtoul(suffix, NULL, 10);
			return READ;
		}
		if (rest[6] == '-' && dateext_name(at, suffix))
			return READ;
	} else {
		return NOT_ARCHIVE;
	}
	*why = compressed(name) ? "compressed; not read (decompress it beside the journal to "
				  "include it)"
				: "named like a rotated journal but not in a form agentctl reads; "
				  "not read";
	return UNREAD;
}

/* The time of the first event in the file at path (its first line's
 * "timestamp"), when it has one. */
static bool first_event_time(int64_t *out_ms, const char *path)
{
	char *text = malloc(FIRST_LINE_MAX);
	json_t *event = NULL;
	bool found = false;
	ssize_t got = 0;
	struct stat st;
	/* Never waits on a FIFO in an archive's place (the scan refuses it). */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && text && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		got = read(fd, text, FIRST_LINE_MAX);
	if (got > 0) {
		const char *end = memchr(text, '\n', (size_t)got);

		if (end && (event = json_loadb(text, (size_t)(end - text), 0, NULL)))
			found = json_is_string(json_object_get(event, "timestamp")) &&
				ac_time_parse(out_ms, json_string_value(
							      json_object_get(event, "timestamp"))) == 0;
	}
	json_decref(event);
	if (fd >= 0)
		close(fd);
	free(text);
	return found;
}

static int push_archive(listing *l, char *path, int64_t at, unsigned long order)
{
	struct stat st;

	if (!path)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (l->n == l->cap) {
		size_t want = l->cap ? l->cap * 2 : 8;
		archive *grown = realloc(l->items, want * sizeof(*grown));

		if (!grown) {
			free(path);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		l->items = grown;
		l->cap = want;
	}
	/* The events say when; a name (or, for logrotate's .N, the last
	 * write) only when the file holds none yet. */
	if (!first_event_time(&at, path) && order && stat(path, &st) == 0)
		at = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
	l->items[l->n++] = (archive){path, at, order};
	return 0;
}

static int push_unread(listing *l, char *line)
{
	if (line && l->nunread == l->unread_cap) {
		size_t want = l->unread_cap ? l->unread_cap * 2 : 4;
		char **grown = realloc(l->unread, want * sizeof(*grown));

		if (!grown) {
			free(line);
			line = NULL;
		} else {
			l->unread = grown;
			l->unread_cap = want;
		}
	}
	if (!line)
		return ac_error_set(AC_ENOMEM, "out of memory");
	l->unread[l->nunread++] = line;
	return 0;
}

/* Oldest first: by time, logrotate's higher N first, then by name. */
static int compare_archives(const void *a, const void *b)
{
	const archive *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if (x->order != y->order)
		return x->order > y->order ? -1 : 1;
	return strcmp(x->path, y->path);
}

static void listing_free(listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i].path);
	free(l->items);
	ac_journal_files_free(l->unread, l->nunread);
	*l = (listing){0};
}

/* Every archive beside the journal at path, sorted oldest first, and the
 * files that look like archives but are not read. */
static int list_archives(listing *out, const char *path)
{
	char *dir = NULL, *stem = NULL;
	const char *name;
	ac_fs_dir *d = NULL;
	int rc;

	*out = (listing){0};
	if ((rc = ac_journal_split_path(&dir, &stem, path)))
		return rc;
	d = ac_fs_opendir(dir);
	while (d && !rc && (name = ac_fs_readdir(d)) != NULL) {
		ac_buf full = AC_BUF_INIT;
		const char *why = NULL;
		unsigned long order;
		int64_t at;
		kind k = classify(&at, &order, &why, name, stem);

		if (k == NOT_ARCHIVE)
			continue;
		if (ac_buf_printf(&full, "%s/%s", dir, name))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
		else if (k == READ)
			rc = push_archive(out, ac_buf_detach(&full), at, order);
		else if (ac_buf_printf(&full, ": %s", why))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
		else
			rc = push_unread(out, ac_buf_detach(&full));
		ac_buf_free(&full);
	}
	if (d)
		ac_fs_closedir(d);
	if (!rc && out->n)
		qsort(out->items, out->n, sizeof(*out->items), compare_archives);
	if (rc)
		listing_free(out);
	free(dir);
	free(stem);
	return rc;
}

int ac_journal_files(char ***out_paths, size_t *out_n, const char *path)
{
	listing l;
	char **paths;
	struct stat st;
	size_t n = 0;
	int rc;

	if ((rc = list_archives(&l, path)))
		return rc;
	if (!(paths = calloc(l.n + 1, sizeof(*paths)))) {
		listing_free(&l);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	for (; n < l.n; n++) {
		paths[n] = l.items[n].path;
		l.items[n].path = NULL;
	}
	if (ac_fs_stat(path, &st) == 0 && !(paths[n++] = strdup(path))) {
		listing_free(&l);
		ac_journal_files_free(paths, n);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	listing_free(&l);
	*out_paths = paths;
	*out_n = n;
	return 0;
}

int ac_journal_unread(char ***out_lines, size_t *out_n, const char *path)
{
	listing l;
	int rc;

	if ((rc = list_archives(&l, path)))
		return rc;
	*out_lines = l.unread;
	*out_n = l.nunread;
	l.unread = NULL;
	l.nunread = 0;
	listing_free(&l);
	return 0;
}

void ac_journal_files_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
