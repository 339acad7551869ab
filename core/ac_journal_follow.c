/* tail -F for the journal, through the scan engine. */
#include "ac_journal_follow.h"

#include "ac_error.h"
#include "ac_file.h"
#include "ac_journal_reader.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ac_journal_follow {
	char *path;
	const ac_event_schema *schema;
	ac_query *everything;
	size_t backlog;
	bool started;
	dev_t dev;
	ino_t ino;
	uint64_t offset; /* just after the last complete line read */
	uint64_t number; /* line number there, when known from the start */
	bool gone;       /* the file was missing at the last look */
	char head[64];   /* the file's first bytes, to tell a new file with a reused inode */
	size_t head_len;
};

int ac_journal_follow_new(ac_journal_follow **out, const char *path, size_t backlog,
			  const ac_event_schema *schema)
{
	ac_journal_follow *f = calloc(1, sizeof(*f));

	if (!f || !(f->path = strdup(path)) || ac_query_parse(&f->everything, NULL, 0) != 0) {
		ac_journal_follow_free(f);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	/* A follower is a viewer: it shows records outside the schema too. */
	ac_query_show_invalid(f->everything, true);
	f->backlog = backlog;
	f->schema = schema;
	f->number = 1;
	*out = f;
	return 0;
}

void ac_journal_follow_free(ac_journal_follow *f)
{
	if (!f)
		return;
	ac_query_free(f->everything);
	free(f->path);
	free(f);
}

uint64_t ac_journal_follow_offset(const ac_journal_follow *f)
{
	return f->offset;
}

/* The backlog stops where the follow starts, so an event appended while
 * the backlog is read is handed out once, by the next read. */
typedef struct {
	uint64_t end;
	ac_scan_fn fn;
	void *ctx;
} backlog_filter;

static int before_end(const ac_scan_match *m, void *ctx)
{
	const backlog_filter *b = ctx;

	return m->offset < b->end ? b->fn(m, b->ctx) : 0;
}

/* Reads up to sizeof(head) first bytes of the file into out. */
static size_t read_head(char *out, size_t size, const char *path)
{
	int fd;
	ssize_t n = ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY, 0, path) == 0
			    ? pread(fd, out, size, 0) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? (size_t)n : 0;
}

/* A journal deleted and re-created between two looks may get the same
 * inode number back; its first bytes (an event id and time) tell. */
static bool same_file_start(ac_journal_follow *f)
{
	char now[sizeof(f->head)];
	size_t n = read_head(now, f->head_len, f->path);

	return n == f->head_len && memcmp(now, f->head, n) == 0;
}

int ac_journal_follow_read(ac_journal_follow *f, bool *out_restarted, ac_scan_stats *stats,
			   ac_scan_fn fn, void *ctx)
{
	const char *paths[1] = {f->path};
	struct stat st;
	uint64_t end, size;
	int rc;

	if (out_restarted)
		*out_restarted = false;
	if (stat(f->path, &st) != 0) {
		f->gone = f->started;
		return 0; /* not there (yet, or mid-rotation): nothing to show */
	}
	if (f->started && (f->gone || st.st_ino != f->ino || st.st_dev != f->dev ||
			   (uint64_t)st.st_size < f->offset || !same_file_start(f))) {
		/* Rotated, replaced or truncated: a new file, read from its start. */
		f->offset = 0;
		f->number = 1;
		f->head_len = 0;
		if (out_restarted)
			*out_restarted = true;
	}
	f->gone = false;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	if (f->head_len < sizeof(f->head))
		f->head_len = read_head(f->head, sizeof(f->head), f->path);
	if (!f->started) {
		f->started = true;
		/* The backlog: the last events, read backward from the end. */
		if ((rc = ac_journal_complete_end(&end, &size, f->path)))
			return rc == AC_ENOTFOUND ? 0 : rc;
		if (f->backlog) {
			backlog_filter filter = {end, fn, ctx};

			if ((rc = ac_journal_scan(stats, paths, 1, f->everything, f->backlog,
						  f->schema, before_end, &filter)))
				return rc;
		}
		f->offset = end;
		f->number = 0; /* unknown from here on */
		return 0;
	}
	if ((uint64_t)st.st_size == f->offset)
		return 0;
	rc = ac_journal_scan_from(&f->offset, &f->number, stats, f->path, f->offset,
				  f->everything, f->schema, fn, ctx);
	return rc == AC_ENOTFOUND ? 0 : rc;
}
