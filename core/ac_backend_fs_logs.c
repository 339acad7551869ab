/* The file-system backend: the trace store and orchestration persistence,
 * both logs of {"seq", "at", "data"} records, one a line.
 *
 * A log append holds flock on the log file itself while it finds the
 * highest seq and appends the next record with ac_journal_append(), which
 * takes the shared lock file and the folder's flock inside that, repairs a
 * torn last line and cuts back a failed write. Every writer takes the file
 * first and the folder second, so they cannot deadlock; the file lock is
 * what makes "highest + 1" unique. */
#include "ac_backend_fs_impl.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_exact.h"
#include "ac_json_fast.h"
#include "ac_journal.h"
#include "ac_journal_reader.h"
#include "ac_lock.h"
#include "ac_time.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOCK_TIMEOUT_MS 10000

uint64_t ac_backend_fs_record_seq(const char *text, size_t len, json_t **out_record)
{
	/* Records as appends write them take the fast way; the rest, and
	 * every line it refuses, jansson's. */
	json_t *record = ac_json_fast_load(text, len);
	json_t *seq;
	uint64_t value = 0;

	if (!record)
		record = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, NULL);
	seq = json_object_get(record, "seq");

	if (json_is_integer(seq) && json_integer_value(seq) > 0 && json_object_get(record, "data"))
		value = (uint64_t)json_integer_value(seq);
	if (value && out_record)
		*out_record = record;
	else
		json_decref(record);
	return value;
}

static uint64_t seq_of_range(int fd, uint64_t start, uint64_t end)
{
	size_t len = (size_t)(end - start);
	char *text = malloc(len ? len : 1);
	uint64_t seq = 0;

	if (text && pread(fd, text, len, (off_t)start) == (ssize_t)len)
		seq = ac_backend_fs_record_seq(text, len, NULL);
	free(text);
	return seq;
}

/* The highest seq in the log: that of its last record, found reading
 * backward from the end (records are appended in seq order), or of a
 * complete record left without its newline by a crash, which the next
 * append's repair turns into a line of its own. 0 for no log. */
static int highest_seq(uint64_t *out, const char *path)
{
	uint64_t end, size, start, best = 0;
	int fd, rc;

	*out = 0;
	if ((rc = ac_journal_complete_end(&end, &size, path)))
		return rc == AC_ENOTFOUND ? 0 : rc;
	if ((rc = ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY | O_NOFOLLOW, 0, path)))
		return rc;
	if (size > end)
		best = seq_of_range(fd, end, size);
	while (end > 0) {
		uint64_t seq;

		if ((rc = ac_journal_line_start(&start, path, end - 1)))
			break;
		seq = seq_of_range(fd, start, end - 1);
		if (seq) {
			best = seq > best ? seq : best;
			break;
		}
		end = start;
	}
	close(fd);
	*out = best;
	return rc;
}

/* Sleeps a little longer each round, up to 4 ms: waiting costs little
 * CPU, yet a freed lock is taken quickly. */
static int lock_file(int fd, const char *path)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (unsigned round = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; round++) {
		long ns = 50000L << (round < 6 ? round : 6);
		struct timespec pause = {0, ns > 4000000L ? 4000000L : ns};

		/* No flock here (some network file systems): the shared lock
		 * file taken by ac_journal_append() still orders the lines. */
		if (errno == ENOLCK || errno == EOPNOTSUPP)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return ac_error_errno(errno, "%s: flock", path);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 >
		    LOCK_TIMEOUT_MS)
			return ac_error_set(AC_EBUSY, "%s: another process holds it", path);
		nanosleep(&pause, NULL);
	}
	return 0;
}

/* Opens the log at path (creating it and dir) and takes its flock: the
 * writers of one log take turns from here until *fd is closed. */
static int open_locked(int *fd, const char *dir, const char *path)
{
	struct stat st;
	int rc;

	*fd = -1;
	if ((rc = ac_file_mkdirs(dir)) ||
	    (rc = ac_file_open_regular(fd, AT_FDCWD, path, O_RDWR | O_CREAT | O_NOFOLLOW, 0644,
				       path)))
		return rc;
	if (fstat(*fd, &st) != 0)
		return ac_error_errno(errno, "%s: cannot open", path);
	return lock_file(*fd, path);
}

static int log_append(uint64_t *out_seq, const char *dir, const char *path, const json_t *data)
{
	char at[AC_TIME_ISO_LEN + 1], *line = NULL;
	uint64_t last = 0;
	json_t *record = NULL;
	int rc, fd = -1;

	if (!json_is_object(data))
		return ac_error_set(AC_EINVAL, "%s: a record's data must be a JSON object", path);
	if ((rc = open_locked(&fd, dir, path)) || (rc = highest_seq(&last, path)))
		goto done;
	ac_time_format_iso(at, ac_time_now_ms());
	record = json_pack("{s:I, s:s, s:O}", "seq", (json_int_t)(last + 1), "at", at, "data", data);
	/* Compact JSON escapes every newline inside strings: one line. */
	if (!record || !(line = json_dumps(record, JSON_COMPACT))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory (or data that is not valid JSON)");
		goto done;
	}
	if ((rc = ac_journal_append(NULL, path, line, strlen(line), NULL)))
		goto done;
	if (out_seq)
		*out_seq = last + 1;
done:
	if (fd >= 0)
		close(fd); /* drops the flock */
	json_decref(record);
	free(line);
	return rc;
}

/* Appends records as they are (a copy from another store keeps their seq
 * and time), each above the highest seq the log holds, one line each in
 * order: a crash leaves a prefix of them, which the copy finds again. */
static int log_put(const char *dir, const char *path, const json_t *records)
{
	uint64_t last = 0;
	char *line = NULL;
	json_t *record;
	size_t i;
	int rc, fd = -1;

	if ((rc = open_locked(&fd, dir, path)) || (rc = highest_seq(&last, path)))
		goto done;
	json_array_foreach(records, i, record) {
		json_t *seq = json_object_get(record, "seq");

		if (!json_is_integer(seq) || json_integer_value(seq) <= 0 ||
		    (uint64_t)json_integer_value(seq) <= last ||
		    !json_is_object(json_object_get(record, "data"))) {
			rc = ac_error_set(AC_ECONFLICT, "%s: record %zu is not a {seq, at, data} above "
					  "seq %llu", path, i, (unsigned long long)last);
			goto done;
		}
		last = (uint64_t)json_integer_value(seq);
		free(line);
		if (!(line = json_dumps(record, JSON_COMPACT | JSON_PRESERVE_ORDER))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		if ((rc = ac_journal_append(NULL, path, line, strlen(line), NULL)))
			goto done;
	}
done:
	if (fd >= 0)
		close(fd);
	free(line);
	return rc;
}

static int compare_records(const void *a, const void *b)
{
	json_t *const *x = a, *const *y = b;
	json_int_t sx = json_integer_value(json_object_get(*x, "seq"));
	json_int_t sy = json_integer_value(json_object_get(*y, "seq"));

	return sx < sy ? -1 : sx > sy;
}

/* The seq of the first record in text[0..len), 0 when none parses. */
static uint64_t first_seq(const char *text, size_t len)
{
	for (size_t start = 0; start < len;) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;
		json_t *record = NULL;
		uint64_t seq = 0;

		if (end > start)
			seq = ac_backend_fs_record_seq(text + start, end - start, &record);

		json_decref(record);
		if (seq)
			return seq;
		start = end + 1;
	}
	return 0;
}

/* Reads the part of the log that can hold records after after_seq. Seqs
 * are given under the lock in append order, so the file is sorted by seq:
 * going back from the end in windows that double until the window opens
 * with a record at or before after_seq costs what is new, not the file's
 * size. after_seq 0 reads everything. */
static int read_tail_after(char **out, size_t *out_len, const char *path, uint64_t after_seq)
{
	uint64_t size, span = 64 * 1024, start = 0;
	ac_buf text = AC_BUF_INIT;
	struct stat st;
	int fd, rc = 0;

	if (after_seq == 0)
		return ac_file_read(out, out_len, path);
	if ((rc = ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY | O_NOFOLLOW, 0, path)))
		return rc;
	if (fstat(fd, &st) != 0) {
		rc = ac_error_errno(errno, "%s", path);
		close(fd);
		return rc;
	}
	size = (uint64_t)st.st_size;
	for (;;) {
		ssize_t got;

		if ((rc = ac_journal_line_start(&start, path, size > span ? size - span : 0)))
			break;
		ac_buf_clear(&text);
		if ((rc = ac_buf_reserve(&text, (size_t)(size - start))))
			break;
		got = pread(fd, text.data, (size_t)(size - start), (off_t)start);
		if (got < 0) {
			rc = ac_error_errno(errno, "%s", path);
			break;
		}
		text.len = (size_t)got;
		text.data[text.len] = '\0';
		if (start == 0 || first_seq(text.data, text.len) <= after_seq)
			break;
		span *= 2;
	}
	close(fd);
	if (rc == 0) {
		*out_len = text.len;
		*out = ac_buf_detach(&text);
	}
	ac_buf_free(&text);
	return rc;
}

int ac_backend_fs_log_load(json_t **out, size_t *out_skipped, const char *path,
			   uint64_t after_seq)
{
	char *text = NULL;
	size_t len = 0, skipped = 0, n = 0;
	json_t **records = NULL, *array = NULL;
	int rc;

	if (out_skipped)
		*out_skipped = 0;
	rc = read_tail_after(&text, &len, path, after_seq);
	if (rc == AC_ENOTFOUND)
		rc = 0;
	else if (rc)
		return rc;
	/* At most one record per line: an upper bound for the array. */
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	if (!(records = calloc(n + 1, sizeof(*records))) || !(array = json_array())) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	n = 0;
	/* The last piece, when it has no newline, is read too: a complete
	 * record there lost only its newline (see highest_seq). */
	for (size_t start = 0; start < len;) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;
		json_t *record = NULL;

		if (end > start) {
			uint64_t seq = ac_backend_fs_record_seq(text + start, end - start, &record);

			if (!seq)
				skipped++;
			else if (seq > after_seq)
				records[n++] = record;
			else
				json_decref(record);
		}
		start = end + 1;
	}
	qsort(records, n, sizeof(*records), compare_records);
	for (size_t i = 0; i < n; i++) {
		if (json_array_append_new(array, records[i])) {
			records[i] = NULL;
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		records[i] = NULL;
	}
	*out = array;
	array = NULL;
	if (out_skipped)
		*out_skipped = skipped;
done:
	for (size_t i = 0; records && i < n; i++)
		json_decref(records[i]);
	free(records);
	json_decref(array);
	free(text);
	return rc;
}

/* ---- traces: traces/<tenant>/<session>.jsonl ---- */

static int trace_paths(ac_buf *dir, ac_buf *path, const ac_backend_fs *fs, const char *tenant,
		       const char *session_id)
{
	int rc;

	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", session_id)))
		return rc;
	if (ac_buf_printf(dir, "%s/traces/%s", fs->data_dir, tenant) ||
	    ac_buf_printf(path, "%s/%s.jsonl", dir->data, session_id))
		return ac_error_set(AC_ENOMEM, "out of memory");
	/* A link below the data folder must not lead out of it (only traces
	 * itself is checked at start-up). */
	return ac_file_check_in(fs->data_dir, dir->data);
}

static int trace_append(void *impl, uint64_t *out_seq, const char *tenant,
			const char *session_id, const json_t *envelope)
{
	ac_buf dir = AC_BUF_INIT, path = AC_BUF_INIT;
	int rc;

	if (!(rc = trace_paths(&dir, &path, impl, tenant, session_id)))
		rc = log_append(out_seq, dir.data, path.data, envelope);
	ac_buf_free(&dir);
	ac_buf_free(&path);
	return rc;
}

static int trace_load(void *impl, json_t **out, size_t *out_skipped, const char *tenant,
		      const char *session_id, uint64_t after_seq)
{
	ac_buf dir = AC_BUF_INIT, path = AC_BUF_INIT;
	int rc;

	if (!(rc = trace_paths(&dir, &path, impl, tenant, session_id)))
		rc = ac_backend_fs_log_load(out, out_skipped, path.data, after_seq);
	ac_buf_free(&dir);
	ac_buf_free(&path);
	return rc;
}

static int trace_each(void *impl, size_t *out_skipped, ac_backend_record_fn fn, void *ctx,
		      const char *tenant, const char *session_id)
{
	ac_buf dir = AC_BUF_INIT, path = AC_BUF_INIT;
	int rc;

	if (out_skipped)
		*out_skipped = 0;
	if (!(rc = trace_paths(&dir, &path, impl, tenant, session_id)))
		rc = ac_backend_fs_log_each(path.data, fn, ctx, out_skipped);
	ac_buf_free(&dir);
	ac_buf_free(&path);
	return rc;
}

/* ---- orchestration: orchestration/<tenant>/<run>/{events.jsonl,snapshot.json} ---- */

typedef struct {
	ac_buf dir, events, snapshot;
} run_paths;

static void run_paths_free(run_paths *p)
{
	ac_buf_free(&p->dir);
	ac_buf_free(&p->events);
	ac_buf_free(&p->snapshot);
}

static int make_run_paths(run_paths *p, const ac_backend_fs *fs, const char *tenant,
			  const char *run_id)
{
	int rc;

	*p = (run_paths){AC_BUF_INIT, AC_BUF_INIT, AC_BUF_INIT};
	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("run id", run_id)))
		return rc;
	if (ac_buf_printf(&p->dir, "%s/orchestration/%s/%s", fs->data_dir, tenant, run_id) ||
	    ac_buf_printf(&p->events, "%s/events.jsonl", p->dir.data) ||
	    ac_buf_printf(&p->snapshot, "%s/snapshot.json", p->dir.data))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return ac_file_check_in(fs->data_dir, p->dir.data); /* as trace_paths() */
}

static int orch_append_event(void *impl, uint64_t *out_seq, const char *tenant,
			     const char *run_id, const json_t *event)
{
	run_paths p;
	int rc;

	if (!(rc = make_run_paths(&p, impl, tenant, run_id)))
		rc = log_append(out_seq, p.dir.data, p.events.data, event);
	run_paths_free(&p);
	return rc;
}

static int orch_load_events(void *impl, json_t **out, size_t *out_skipped, const char *tenant,
			    const char *run_id, uint64_t after_seq)
{
	run_paths p;
	int rc;

	if (!(rc = make_run_paths(&p, impl, tenant, run_id)))
		rc = ac_backend_fs_log_load(out, out_skipped, p.events.data, after_seq);
	run_paths_free(&p);
	return rc;
}

/* The snapshot file's {seq, state}; AC_ENOTFOUND or AC_ECORRUPT. */
static int read_snapshot(json_t **out_state, uint64_t *out_seq, const char *path)
{
	char *text = NULL;
	size_t len;
	json_error_t jerr;
	json_t *doc, *seq;
	int rc;

	if ((rc = ac_file_read(&text, &len, path)))
		return rc;
	doc = json_loadb(text, len, JSON_ALLOW_NUL, &jerr);
	rc = doc ? 0 : ac_json_load_error(&jerr, text, len, path);
	free(text);
	if (rc)
		return rc;
	seq = json_object_get(doc, "seq");
	if (!json_is_integer(seq) || json_integer_value(seq) < 0 || !json_object_get(doc, "state")) {
		json_decref(doc);
		return ac_error_set(AC_ECORRUPT, "%s: not a snapshot {seq, state}", path);
	}
	*out_seq = (uint64_t)json_integer_value(seq);
	if (out_state)
		*out_state = json_incref(json_object_get(doc, "state"));
	json_decref(doc);
	return 0;
}

static int orch_write_snapshot(void *impl, const char *tenant, const char *run_id,
			       uint64_t covers_seq, const json_t *state)
{
	char at[AC_TIME_ISO_LEN + 1], *text = NULL;
	uint64_t last = 0, stored = 0;
	json_t *doc = NULL;
	run_paths p;
	int rc, guard = -1;

	if ((rc = make_run_paths(&p, impl, tenant, run_id)))
		goto done;
	if (!state) {
		rc = ac_error_set(AC_EINVAL, "run %s: a snapshot needs a state", run_id);
		goto done;
	}
	/* Snapshot writers of a run take turns, so none goes back in time. */
	if ((rc = ac_file_mkdirs(p.dir.data)) ||
	    (rc = ac_lock_folder(&guard, p.snapshot.data, LOCK_TIMEOUT_MS)) ||
	    (rc = highest_seq(&last, p.events.data)))
		goto done;
	if (covers_seq > last) {
		rc = ac_error_set(AC_EINVAL, "run %s: a snapshot cannot cover event %llu; the last "
				  "is %llu", run_id, (unsigned long long)covers_seq,
				  (unsigned long long)last);
		goto done;
	}
	rc = read_snapshot(NULL, &stored, p.snapshot.data);
	if (rc == 0 && stored > covers_seq) {
		rc = ac_error_set(AC_ECONFLICT, "run %s: the stored snapshot covers event %llu, "
				  "later than %llu", run_id, (unsigned long long)stored,
				  (unsigned long long)covers_seq);
		goto done;
	}
	/* A corrupt old snapshot is replaced: the events still hold it all. */
	ac_time_format_iso(at, ac_time_now_ms());
	if (!(doc = json_pack("{s:I, s:s, s:O}", "seq", (json_int_t)covers_seq, "at", at, "state",
			      state)) ||
	    !(text = json_dumps(doc, JSON_INDENT(2)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory (or a state that is not valid JSON)");
		goto done;
	}
	rc = ac_atomic_write(p.snapshot.data, text, strlen(text), NULL, NULL);
done:
	if (guard >= 0)
		close(guard);
	json_decref(doc);
	free(text);
	run_paths_free(&p);
	return rc;
}

static int orch_load_snapshot(void *impl, json_t **out_state, uint64_t *out_covers_seq,
			      const char *tenant, const char *run_id)
{
	run_paths p;
	int rc;

	if (!(rc = make_run_paths(&p, impl, tenant, run_id))) {
		rc = read_snapshot(out_state, out_covers_seq, p.snapshot.data);
		if (rc == AC_ENOTFOUND)
			ac_error_set(AC_ENOTFOUND, "run %s has no snapshot", run_id);
	}
	run_paths_free(&p);
	return rc;
}

static int fs_put_records(void *impl, const char *tenant, const char *kind, const char *log,
			  const json_t *records)
{
	ac_buf dir = AC_BUF_INIT, path = AC_BUF_INIT;
	run_paths p = {AC_BUF_INIT, AC_BUF_INIT, AC_BUF_INIT};
	int rc;

	if (!strcmp(kind, "trace")) {
		if (!(rc = trace_paths(&dir, &path, impl, tenant, log)))
			rc = log_put(dir.data, path.data, records);
	} else if (!strcmp(kind, "run")) {
		if (!(rc = make_run_paths(&p, impl, tenant, log)))
			rc = log_put(p.dir.data, p.events.data, records);
	} else {
		rc = ac_error_set(AC_EINVAL, "log kind '%s': not trace or run", kind);
	}
	ac_buf_free(&dir);
	ac_buf_free(&path);
	run_paths_free(&p);
	return rc;
}

void ac_backend_fs_fill_logs(ac_backend *b)
{
	b->copy.put_records = fs_put_records;
	b->trace = (ac_backend_trace_ops){
		.append = trace_append,
		.load = trace_load,
		.each = trace_each,
	};
	b->orch = (ac_backend_orch_ops){
		.append_event = orch_append_event,
		.load_events = orch_load_events,
		.write_snapshot = orch_write_snapshot,
		.load_snapshot = orch_load_snapshot,
	};
}
