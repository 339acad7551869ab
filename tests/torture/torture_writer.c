/* The torture tests' workhorse: journal writers (agentctl's append and a
 * foreign writer that follows the lock-file spec) with a SIGKILL loop, the
 * journal verifier, session writers and readers with a SIGKILL loop, a fast
 * journal appender for the dashboard tests, and an inotify overflow probe.
 *
 * Every record carries its writer, a sequence number, a nonce unique to the
 * attempt and an FNV-1a checksum of its payload; each writer logs to its
 * own ack file the records it counts as acknowledged (after the append
 * returned success), so the verifier can tell a lost or duplicated
 * acknowledged append from an unacknowledged one cut off by SIGKILL.
 * Driven by the scripts in tests/torture/; not part of agentctl. */
#include "ac_atomic.h"
#include "ac_error.h"
#include "ac_event.h"
#include "ac_journal.h"
#include "ac_journal_reader.h"
#include "ac_json_scan.h"
#include "ac_session.h"
#include "ac_session_index.h"
#include "ac_time.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_WRITERS 64
#define MAX_PAYLOAD (1u << 20)
#define ID_NEEDLE "\"id\":\"evt_"

/* ---- small helpers ---------------------------------------------------- */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* splitmix64: seeded per process, so restarted writers draw new nonces. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rng_between(uint64_t *state, uint64_t lo, uint64_t hi)
{
	return lo + rng_next(state) % (hi - lo + 1);
}

static uint64_t rng_seed(uint64_t extra)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40) ^
	       extra * 0x2545f4914f6cdd1dull;
}

static uint64_t fnv1a(const char *data, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)data[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static bool write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		data += n;
		len -= (size_t)n;
	}
	return true;
}

static char *path_join(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *path = malloc(len);

	if (!path) {
		fprintf(stderr, "torture_writer: out of memory\n");
		exit(2);
	}
	snprintf(path, len, "%s/%s", dir, name);
	return path;
}

static const char *opt(int argc, char **argv, const char *name, const char *fallback)
{
	for (int i = 0; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return argv[i + 1];
	return fallback;
}

static long opt_long(int argc, char **argv, const char *name, long fallback)
{
	const char *text = opt(argc, argv, name, NULL);

	return text ? strtol(text, NULL, 10) : fallback;
}

/* ---- ack files --------------------------------------------------------- */

/* Opens a writer's ack file for appending and returns the sequence number
 * to continue from: one past the last complete "seq nonce" line. A line
 * cut off by SIGKILL is dropped (the writer owns the file alone; its
 * previous incarnation has been reaped). */
static int ack_open(uint64_t *out_next, const char *ack_path)
{
	int fd = open(ack_path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	struct stat st;
	char *text;
	uint64_t next = 0;
	size_t keep = 0;

	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "%s: cannot open: %s\n", ack_path, strerror(errno));
		exit(2);
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text || pread(fd, text, (size_t)st.st_size, 0) != st.st_size) {
		fprintf(stderr, "%s: cannot read\n", ack_path);
		exit(2);
	}
	text[st.st_size] = '\0';
	for (char *line = text, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		unsigned long long seq;

		if (sscanf(line, "%llu", &seq) == 1)
			next = (uint64_t)seq + 1;
		keep = (size_t)(nl + 1 - text);
	}
	if (keep != (size_t)st.st_size && ftruncate(fd, (off_t)keep) != 0) {
		fprintf(stderr, "%s: cannot truncate\n", ack_path);
		exit(2);
	}
	free(text);
	*out_next = next;
	return fd;
}

static void ack_write(int fd, uint64_t seq, uint64_t nonce)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%" PRIu64 " %016" PRIx64 "\n", seq, nonce);

	if (!write_all(fd, line, (size_t)n)) {
		fprintf(stderr, "ack write failed: %s\n", strerror(errno));
		exit(2);
	}
}

/* ---- journal writers --------------------------------------------------- */

/* Record payload sizes: from 50 bytes to 1 MiB, with sizes around 4 KiB
 * and 64 KiB (page and pipe-buffer boundaries) on purpose. */
static size_t pick_size(uint64_t *rng, size_t max_size)
{
	uint64_t roll = rng_next(rng) % 100;
	size_t size;

	if (roll < 55)
		size = (size_t)rng_between(rng, 50, 1000);
	else if (roll < 67)
		size = (size_t)rng_between(rng, 4096 - 4, 4096 + 4);
	else if (roll < 77)
		size = (size_t)rng_between(rng, 65536 - 4, 65536 + 4);
	else if (roll < 88)
		size = (size_t)rng_between(rng, 1000, 16384);
	else if (roll < 97)
		size = (size_t)rng_between(rng, 16384, 262144);
	else
		size = (size_t)rng_between(rng, MAX_PAYLOAD - 64, MAX_PAYLOAD);
	return size > max_size ? max_size : size;
}

/* Builds one event line (no newline) into line[0..cap), leaving room for
 * the newline a foreign writer adds; returns its length. */
static size_t build_record(char *line, size_t cap, int writer, uint64_t seq, uint64_t nonce,
			   size_t payload_len, uint64_t *rng)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	char stamp[AC_TIME_ISO_LEN + 1], compact[15], *payload;
	int64_t ms = ac_time_now_ms();
	int head;

	ac_time_format_iso(stamp, ms);
	ac_time_format_compact(compact, ms);
	/* The payload goes first into place, so its checksum can be taken
	 * before the envelope is written around it. */
	payload = line + 512;
	for (size_t i = 0; i < payload_len; i++)
		payload[i] = alphabet[rng_next(rng) % 36];
	head = snprintf(line, 512,
			"{\"id\":\"evt_%s_%08" PRIx32 "\",\"timestamp\":\"%s\",\"agent\":\"System\","
			"\"status\":\"SUCCESS\",\"action\":{\"type\":\"ANALYSIS\",\"params\":"
			"{\"tw\":%d,\"seq\":%" PRIu64 ",\"nonce\":\"%016" PRIx64 "\",\"len\":%zu,"
			"\"fnv\":\"%016" PRIx64 "\"}},\"result\":{\"message\":\"",
			compact, (uint32_t)rng_next(rng), stamp, writer, seq, nonce, payload_len,
			fnv1a(payload, payload_len));
	if (head < 0 || (size_t)head + payload_len + 4 > cap) {
		fprintf(stderr, "build_record: %zu bytes do not fit\n", payload_len);
		exit(2);
	}
	memmove(line + head, payload, payload_len);
	memcpy(line + head + payload_len, "\"}}", 3);
	return (size_t)head + payload_len + 3;
}

/* The lock-file spec as another program follows it: create the lock with
 * O_CREAT|O_EXCL (waiting while it exists), write the pid, append the line
 * with one write, unlink. Such a writer never breaks a stale lock and does
 * not look at the journal's last byte. */
static int foreign_append(const char *journal, const char *lock, const char *line, size_t len,
			  uint64_t *rng)
{
	char pid_text[32];
	int64_t deadline = now_ms() + 30000;
	int fd, n;

	while ((fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0) {
		if (errno != EEXIST || now_ms() > deadline) {
			fprintf(stderr, "%s: foreign writer gave up: %s\n", lock,
				errno == EEXIST ? "lock held for 30 s" : strerror(errno));
			return -1;
		}
		sleep_us((long)rng_between(rng, 20, 300));
	}
	n = snprintf(pid_text, sizeof(pid_text), "%ld\n", (long)getpid());
	if (!write_all(fd, pid_text, (size_t)n)) {
		close(fd);
		unlink(lock);
		return -1;
	}
	close(fd);
	fd = open(journal, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, len) != (ssize_t)len) {
		fprintf(stderr, "%s: foreign append failed: %s\n", journal, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(lock);
		return -1;
	}
	close(fd);
	unlink(lock);
	return 0;
}

typedef struct {
	const char *dir;
	int writers;       /* total */
	int foreign_from;  /* writers >= this follow the foreign spec */
	uint64_t count;    /* records per writer */
	size_t max_size;
} journal_setup;

/* SIGTERM asks a journal writer to stop between two appends. */
static volatile sig_atomic_t stop_requested;

static void on_sigterm(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int journal_writer(const journal_setup *js, int id)
{
	char name[32], *journal = path_join(js->dir, "JOURNAL.jsonl");
	char *lock = path_join(js->dir, "JOURNAL.jsonl.lock"), *ack_path, *line;
	bool foreign = id >= js->foreign_from;
	uint64_t rng = rng_seed((uint64_t)id), next;
	int ack_fd;

	snprintf(name, sizeof(name), "ack.%d", id);
	ack_path = path_join(js->dir, name);
	ack_fd = ack_open(&next, ack_path);
	line = malloc(MAX_PAYLOAD + 1024);
	if (!line)
		return 2;
	for (uint64_t seq = next; (js->count == 0 || seq < js->count) && !stop_requested; seq++) {
		uint64_t nonce = rng_next(&rng);
		size_t len = build_record(line, MAX_PAYLOAD + 1024, id, seq, nonce,
					  pick_size(&rng, js->max_size), &rng);

		if (foreign) {
			line[len] = '\n';
			if (foreign_append(journal, lock, line, len + 1, &rng) != 0)
				return 3;
		} else if (ac_journal_append(NULL, journal, line, len, NULL) != 0) {
			fprintf(stderr, "writer %d seq %" PRIu64 ": %s\n", id, seq, ac_error_last());
			return 2;
		}
		ack_write(ack_fd, seq, nonce);
	}
	return 0;
}

static pid_t spawn_journal_writer(const journal_setup *js, int id)
{
	sigset_t term, old;
	pid_t pid;

	/* SIGTERM stays blocked until the child's handler is in place. */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	pid = fork();
	if (pid == 0) {
		struct sigaction sa = {.sa_handler = on_sigterm};

		sigaction(SIGTERM, &sa, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		_exit(journal_writer(js, id));
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}

/* Reads the pid in a lock file, 0 when none. */
static long lock_pid(const char *lock)
{
	char text[32] = {0};
	int fd = open(lock, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? strtol(text, NULL, 10) : 0;
}

/* journal-run: starts the writers; with --kill-for-ms, SIGKILLs a random
 * writer every --kill-min..--kill-max ms for that long, restarting each
 * victim (it continues from its ack file); then waits for all to finish.
 * --holder-kills percent of the kills go to the lock holder, if any.
 * With --count 0 the writers go on until the kill phase ends, then are
 * asked to stop (SIGTERM, honoured between appends). */
static int cmd_journal_run(int argc, char **argv)
{
	journal_setup js = {
		.dir = opt(argc, argv, "--dir", NULL),
		.writers = (int)opt_long(argc, argv, "--agentctl", 8) +
			   (int)opt_long(argc, argv, "--foreign", 8),
		.foreign_from = (int)opt_long(argc, argv, "--agentctl", 8),
		.count = (uint64_t)opt_long(argc, argv, "--count", 100),
		.max_size = (size_t)opt_long(argc, argv, "--max-size", MAX_PAYLOAD),
	};
	long kill_min = opt_long(argc, argv, "--kill-min", 20);
	long kill_max = opt_long(argc, argv, "--kill-max", 60);
	int64_t kill_for = opt_long(argc, argv, "--kill-for-ms", 0);
	int64_t timeout = opt_long(argc, argv, "--timeout-s", 600) * 1000;
	long holder_pct = opt_long(argc, argv, "--holder-kills", 50);
	pid_t pids[MAX_WRITERS];
	int failures = 0, running = 0;
	uint64_t kills = 0, holder_kills = 0, stale_left = 0, rng = rng_seed(99);
	char *lock;
	int64_t start = now_ms();

	if (!js.dir || js.writers < 1 || js.writers > MAX_WRITERS ||
	    (js.count == 0 && kill_for <= 0)) {
		fprintf(stderr, "journal-run: --dir DIR and 1..%d writers\n", MAX_WRITERS);
		return 2;
	}
	lock = path_join(js.dir, "JOURNAL.jsonl.lock");
	for (int i = 0; i < js.writers; i++, running++)
		pids[i] = spawn_journal_writer(&js, i);
	while (kill_for > 0 && now_ms() - start < kill_for && running > 0) {
		int victim, status;
		pid_t pid;

		sleep_us((long)rng_between(&rng, (uint64_t)kill_min, (uint64_t)kill_max) * 1000);
		/* Writers that finished on their own are reaped, not restarted. */
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			for (int i = 0; i < js.writers; i++)
				if (pids[i] == pid) {
					pids[i] = 0;
					running--;
					if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
						failures++;
				}
		if (running == 0)
			break;
		/* Some kills go to whoever holds the lock, so that many land
		 * inside an append (a torn line, a stale lock); the rest hit
		 * a writer at random. */
		victim = -1;
		for (int64_t until = (long)(rng_next(&rng) % 100) < holder_pct ? now_ms() + 10 : 0;
		     victim < 0 && now_ms() < until;) {
			long holder = lock_pid(lock);

			for (int i = 0; i < js.writers; i++)
				if (holder > 0 && pids[i] == (pid_t)holder)
					victim = i;
		}
		if (victim >= 0)
			holder_kills++;
		else
			do
				victim = (int)(rng_next(&rng) % (uint64_t)js.writers);
			while (pids[victim] == 0);
		kill(pids[victim], SIGKILL);
		/* Reaped at once: a zombie still answers kill(pid, 0). */
		waitpid(pids[victim], &status, 0);
		kills++;
		if (lock_pid(lock) == (long)pids[victim])
			stale_left++;
		if (WIFEXITED(status)) { /* it finished just before the kill */
			if (WEXITSTATUS(status) != 0)
				failures++;
			pids[victim] = 0;
			running--;
			continue;
		}
		pids[victim] = spawn_journal_writer(&js, victim);
	}
	if (js.count == 0)
		for (int i = 0; i < js.writers; i++)
			if (pids[i] > 0)
				kill(pids[i], SIGTERM);
	while (running > 0) {
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);

		if (pid == 0) {
			if (now_ms() - start > timeout) {
				fprintf(stderr, "journal-run: writers still running after %lld s; "
					"lock holder pid %ld\n", (long long)timeout / 1000, lock_pid(lock));
				for (int i = 0; i < js.writers; i++)
					if (pids[i] > 0)
						kill(pids[i], SIGKILL);
				failures++;
				timeout = INT64_MAX / 2;
			}
			sleep_us(20000);
			continue;
		}
		if (pid < 0)
			break;
		for (int i = 0; i < js.writers; i++)
			if (pids[i] == pid) {
				pids[i] = 0;
				running--;
				if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
					failures++;
			}
	}
	printf("kills=%" PRIu64 " of_lock_holder=%" PRIu64 " stale_locks_left_by_kills=%" PRIu64
	       " writer_failures=%d elapsed_ms=%lld\n", kills, holder_kills, stale_left, failures,
	       (long long)(now_ms() - start));
	free(lock);
	return failures ? 1 : 0;
}

/* ---- journal verifier -------------------------------------------------- */

typedef struct {
	uint64_t nonce;
	uint64_t seq;
	uint64_t line;
	int writer;
	int acked; /* how many times the ack files name it */
} record;

static int by_nonce(const void *a, const void *b)
{
	const record *x = a, *y = b;

	return x->nonce < y->nonce ? -1 : x->nonce > y->nonce;
}

static size_t count_ids(const char *text, size_t len)
{
	size_t n = 0;
	const char *p = text, *end = text + len;

	while ((p = memmem(p, (size_t)(end - p), ID_NEEDLE, sizeof(ID_NEEDLE) - 1)) != NULL) {
		n++;
		p += sizeof(ID_NEEDLE) - 1;
	}
	return n;
}

typedef struct {
	uint64_t lines, valid, torn, merged, not_ours, checksum_bad, dup, acked, found,
		missing, order_bad, unacked_present, ack_gaps;
} verify_stats;

static void complain(uint64_t *counter, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void complain(uint64_t *counter, const char *fmt, ...)
{
	va_list ap;

	if (*counter < 5) {
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	(*counter)++;
}

/* The writers of the first and the last record in a merged line (-1 when
 * a params object cannot be found). */
static void merged_writers(const char *text, size_t len, int *first, int *last)
{
	static const char needle[] = "\"params\":{\"tw\":";
	const char *p = text, *end = text + len, *hit;

	while ((hit = memmem(p, (size_t)(end - p), needle, sizeof(needle) - 1)) != NULL) {
		int w = atoi(hit + sizeof(needle) - 1);

		if (*first < 0)
			*first = w;
		*last = w;
		p = hit + sizeof(needle) - 1;
	}
}

/* Parses our params object {"tw":..,"seq":..,"nonce":..,"len":..,"fnv":..}. */
static bool parse_params(const ac_json_span *span, int *writer, uint64_t *seq, uint64_t *nonce,
			 uint64_t *len, uint64_t *sum)
{
	char copy[256];

	if (span->len >= sizeof(copy))
		return false;
	memcpy(copy, span->start, span->len);
	copy[span->len] = '\0';
	return sscanf(copy, "{\"tw\":%d,\"seq\":%" SCNu64 ",\"nonce\":\"%" SCNx64
			    "\",\"len\":%" SCNu64 ",\"fnv\":\"%" SCNx64 "\"}",
		      writer, seq, nonce, len, sum) == 5;
}

static int cmd_journal_verify(int argc, char **argv)
{
	const char *dir = opt(argc, argv, "--dir", NULL);
	int writers = (int)opt_long(argc, argv, "--writers", 16);
	int foreign_from = (int)opt_long(argc, argv, "--foreign-from", writers);
	uint64_t missing_foreign = 0;
	const char *invalid_out = opt(argc, argv, "--invalid-out", NULL);
	char *journal;
	verify_stats vs = {0};
	record *recs = NULL;
	size_t nrecs = 0, cap = 0;
	ac_journal_reader *reader = NULL;
	ac_journal_line line;
	ac_json_span fields[AC_EV_NFIELDS];
	FILE *inv = NULL;
	uint64_t tail_offset;
	int rc;

	if (!dir || writers < 1 || writers > MAX_WRITERS) {
		fprintf(stderr, "journal-verify: --dir DIR --writers N\n");
		return 2;
	}
	journal = path_join(dir, "JOURNAL.jsonl");
	if (invalid_out && !(inv = fopen(invalid_out, "w"))) {
		fprintf(stderr, "%s: %s\n", invalid_out, strerror(errno));
		return 2;
	}
	if ((rc = ac_journal_reader_open(&reader, journal, 0, UINT64_MAX, 1)) != 0) {
		fprintf(stderr, "%s\n", ac_error_last());
		return 2;
	}
	while ((rc = ac_journal_reader_next(reader, &line)) == 1) {
		int writer;
		uint64_t seq, nonce, len, sum;
		const ac_json_span *msg;

		vs.lines++;
		if (count_ids(line.text, line.len) > 1) {
			int first = -1, last = -1;

			merged_writers(line.text, line.len, &first, &last);
			complain(&vs.merged, "line %" PRIu64 " (byte %" PRIu64 "): %zu event ids "
				 "in one line: records merged (a fragment of writer %d's, then "
				 "writer %d's)", line.number, line.offset,
				 count_ids(line.text, line.len), first, last);
		}
		if (line.overlong || ac_event_parse(fields, line.text, line.len, NULL) != 0) {
			vs.torn++;
			if (inv)
				fprintf(inv, "%" PRIu64 "\n", line.number);
			continue;
		}
		vs.valid++;
		msg = &fields[AC_EV_RESULT_MESSAGE];
		if (!parse_params(&fields[AC_EV_ACTION_PARAMS], &writer, &seq, &nonce, &len, &sum) ||
		    writer < 0 || writer >= writers) {
			complain(&vs.not_ours, "line %" PRIu64 ": a valid event that is not a "
				 "torture record", line.number);
			continue;
		}
		if (msg->len < 2 || msg->len - 2 != len || fnv1a(msg->start + 1, msg->len - 2) != sum)
			complain(&vs.checksum_bad, "line %" PRIu64 ": writer %d seq %" PRIu64
				 ": payload length or checksum does not match", line.number, writer, seq);
		if (nrecs == cap) {
			cap = cap ? cap * 2 : 1024;
			recs = realloc(recs, cap * sizeof(*recs));
			if (!recs)
				return 2;
		}
		recs[nrecs++] = (record){nonce, seq, line.number, writer, 0};
	}
	if (rc < 0) {
		fprintf(stderr, "%s\n", ac_error_last());
		return 2;
	}
	if (ac_journal_reader_tail(reader, &tail_offset) > 0) {
		/* A torn last line with no newline: check reports it too. */
		vs.lines++;
		vs.torn++;
		if (inv)
			fprintf(inv, "%" PRIu64 "\n", ac_journal_reader_number(reader));
	}
	ac_journal_reader_free(reader);
	if (inv)
		fclose(inv);

	/* No record twice (a nonce is drawn once per attempt). */
	qsort(recs, nrecs, sizeof(*recs), by_nonce);
	for (size_t i = 1; i < nrecs; i++)
		if (recs[i].nonce == recs[i - 1].nonce)
			complain(&vs.dup, "lines %" PRIu64 " and %" PRIu64 ": the same record twice",
				 recs[i - 1].line, recs[i].line);
	/* Every acknowledged record is present, once. */
	for (int w = 0; w < writers; w++) {
		char name[32], *ack_path, text[64];
		uint64_t expect_seq = 0;
		FILE *ack;

		snprintf(name, sizeof(name), "ack.%d", w);
		ack_path = path_join(dir, name);
		if (!(ack = fopen(ack_path, "r"))) {
			fprintf(stderr, "%s: %s\n", ack_path, strerror(errno));
			return 2;
		}
		while (fgets(text, sizeof(text), ack)) {
			uint64_t seq, nonce;
			record key, *hit;

			if (!strchr(text, '\n') ||
			    sscanf(text, "%" SCNu64 " %" SCNx64, &seq, &nonce) != 2)
				continue;
			vs.acked++;
			if (seq != expect_seq)
				complain(&vs.ack_gaps, "writer %d acknowledged seq %" PRIu64
					 " after %" PRIu64, w, seq, expect_seq);
			expect_seq = seq + 1;
			key.nonce = nonce;
			hit = bsearch(&key, recs, nrecs, sizeof(*recs), by_nonce);
			if (!hit || hit->writer != w || hit->seq != seq) {
				complain(&vs.missing, "writer %d seq %" PRIu64 " (nonce %016" PRIx64
					 "): acknowledged but not in the journal", w, seq, nonce);
				if (w >= foreign_from)
					missing_foreign++;
				continue;
			}
			hit->acked++;
			vs.found++;
		}
		fclose(ack);
		free(ack_path);
	}
	/* Per-writer order of the acknowledged records, by line. */
	{
		uint64_t *last_line = calloc((size_t)writers, sizeof(uint64_t));
		uint64_t *last_seq = calloc((size_t)writers, sizeof(uint64_t));
		bool *seen = calloc((size_t)writers, sizeof(bool));

		for (size_t i = 0; i < nrecs; i++)
			if (!recs[i].acked)
				vs.unacked_present++;
		/* Sort acked records by line, then check seq grows per writer. */
		for (size_t i = 0; i < nrecs; i++)
			recs[i].nonce = recs[i].line;
		qsort(recs, nrecs, sizeof(*recs), by_nonce);
		for (size_t i = 0; i < nrecs; i++) {
			int w = recs[i].writer;

			if (!recs[i].acked)
				continue;
			if (seen[w] && recs[i].seq <= last_seq[w])
				complain(&vs.order_bad, "writer %d: seq %" PRIu64 " (line %" PRIu64
					 ") after seq %" PRIu64 " (line %" PRIu64 ")", w, recs[i].seq,
					 recs[i].line, last_seq[w], last_line[w]);
			seen[w] = true;
			last_seq[w] = recs[i].seq;
			last_line[w] = recs[i].line;
		}
		free(last_line);
		free(last_seq);
		free(seen);
	}
	printf("lines=%" PRIu64 " valid=%" PRIu64 " torn=%" PRIu64 " merged=%" PRIu64
	       " acked=%" PRIu64 " found=%" PRIu64 " missing=%" PRIu64
	       " missing_of_foreign=%" PRIu64 " duplicated=%" PRIu64
	       " order_errors=%" PRIu64 " checksum_errors=%" PRIu64 " unacked_present=%" PRIu64
	       " ack_gaps=%" PRIu64 " not_ours=%" PRIu64 "\n",
	       vs.lines, vs.valid, vs.torn, vs.merged, vs.acked,
	       vs.found, vs.missing, missing_foreign, vs.dup, vs.order_bad, vs.checksum_bad, vs.unacked_present,
	       vs.ack_gaps, vs.not_ours);
	free(recs);
	free(journal);
	return vs.merged || vs.missing || vs.dup || vs.order_bad || vs.checksum_bad ||
			       vs.ack_gaps || vs.not_ours
		       ? 1
		       : 0;
}

/* ---- sessions ------------------------------------------------------------ */

typedef struct {
	volatile int stop;
	struct {
		uint64_t reads, loads, refreshes;
		uint64_t empty, partial, invalid, regressions, index_problems, index_missing;
		uint64_t updates, update_failures;
		char first_problem[256];
	} slot[MAX_WRITERS];
} shared_stats;

#define SESSION_ID "s1"

typedef struct {
	int writer;
	uint64_t value;
	uint64_t *rng;
	size_t max_pad;
} change_ctx;

static int set_counter(json_t *root, void *vctx)
{
	change_ctx *c = vctx;
	json_t *meta = json_object_get(root, "metadata");
	char key[32], *pad;
	size_t pad_len = (size_t)rng_between(c->rng, 0, c->max_pad);

	if (!json_is_object(meta))
		return ac_error_set(AC_EINVAL, "no metadata object");
	snprintf(key, sizeof(key), "tt_w%d", c->writer);
	json_object_set_new(meta, key, json_integer((json_int_t)c->value));
	/* A padding of random length, so every version has another size. */
	pad = malloc(pad_len + 1);
	if (!pad)
		return AC_ENOMEM;
	memset(pad, 'a' + (int)(c->value % 26), pad_len);
	pad[pad_len] = '\0';
	json_object_set_new(meta, "tt_pad", json_string(pad));
	free(pad);
	return 0;
}

static void note_problem(shared_stats *sh, int slot, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note_problem(shared_stats *sh, int slot, const char *fmt, ...)
{
	va_list ap;

	if (sh->slot[slot].first_problem[0])
		return;
	va_start(ap, fmt);
	vsnprintf(sh->slot[slot].first_problem, sizeof(sh->slot[slot].first_problem), fmt, ap);
	va_end(ap);
}

/* The control experiment: what a naive writer does (truncate in place,
 * write in two pieces). Readers must catch it, or they prove nothing. */
static int unsafe_update(const char *dir, change_ctx *c)
{
	char *path = path_join(dir, SESSION_ID ".json"), *text = NULL;
	ac_session *s = NULL;
	size_t len;
	int fd, rc = -1;

	if (ac_session_load(&s, dir, SESSION_ID) != 0 || set_counter(ac_session_root(s), c) != 0 ||
	    !(text = json_dumps(ac_session_root(s), JSON_COMPACT)))
		goto done;
	len = strlen(text);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd >= 0) {
		rc = write_all(fd, text, len / 2) && (sleep_us(200), write_all(fd, text + len / 2,
									     len - len / 2))
			     ? 0
			     : -1;
		close(fd);
	}
done:
	free(text);
	ac_session_free(s);
	free(path);
	return rc;
}

static bool unsafe_writers;

static int session_writer(const char *dir, int id, size_t max_pad, shared_stats *sh, int slot)
{
	char name[32], *ack_path;
	uint64_t rng = rng_seed((uint64_t)id), next;
	int fd;

	snprintf(name, sizeof(name), "sack.%d", id);
	ack_path = path_join(dir, name);
	fd = ack_open(&next, ack_path);
	for (uint64_t value = next ? next : 1; !sh->stop; value++) {
		change_ctx c = {id, value, &rng, max_pad};

		if (unsafe_writers) {
			if (unsafe_update(dir, &c) != 0) {
				sleep_us(1000);
				value--;
				continue;
			}
		} else if (ac_session_update(NULL, dir, SESSION_ID, set_counter, &c) != 0) {
			sh->slot[slot].update_failures++;
			note_problem(sh, slot, "writer %d: update failed: %s", id, ac_error_last());
			sleep_us(1000);
			value--;
			continue;
		}
		/* The ack file's "seq" is the counter value written. */
		ack_write(fd, value, 0);
		sh->slot[slot].updates++;
		/* Writer 0 also flips the status now and then, as pause and
		 * resume do. */
		if (id == 0 && value % 5 == 0 && !unsafe_writers &&
		    ac_session_set_status(NULL, dir, SESSION_ID, "paused") == AC_EINVAL &&
		    ac_session_set_status(NULL, dir, SESSION_ID, "running") != 0) {
			sh->slot[slot].update_failures++;
			note_problem(sh, slot, "writer %d: status flip failed: %s", id, ac_error_last());
		}
	}
	return 0;
}

static bool valid_status(const char *status)
{
	static const char *const known[] = {"running", "paused", "completed", "failed"};

	for (size_t i = 0; status && i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(status, known[i]))
			return true;
	return false;
}

/* Checks one version of the session file; remembers the counters seen so
 * that a counter going back (an update undone) is caught. */
static void check_document(shared_stats *sh, int slot, json_t *root, uint64_t *last, int writers,
			   const char *how)
{
	json_t *meta = json_object_get(root, "metadata");
	const char *status = json_string_value(json_object_get(root, "status"));

	if (!json_is_object(root) || !json_is_string(json_object_get(root, "id")) ||
	    strcmp(json_string_value(json_object_get(root, "id")), SESSION_ID) != 0 ||
	    !json_is_array(json_object_get(root, "conversationHistory")) || !json_is_object(meta) ||
	    !valid_status(status)) {
		sh->slot[slot].invalid++;
		note_problem(sh, slot, "%s: a document that is not a valid session", how);
		return;
	}
	for (int w = 0; w < writers; w++) {
		char key[32];
		json_t *v;

		snprintf(key, sizeof(key), "tt_w%d", w);
		v = json_object_get(meta, key);
		if (!v)
			continue;
		if ((uint64_t)json_integer_value(v) < last[w]) {
			sh->slot[slot].regressions++;
			note_problem(sh, slot, "%s: counter of writer %d went back from %" PRIu64
				     " to %" PRIu64, how, w, last[w], (uint64_t)json_integer_value(v));
		}
		last[w] = (uint64_t)json_integer_value(v);
	}
}

/* A reader: open+read+parse, alternating with ac_session_load. */
static int session_reader(const char *dir, int writers, shared_stats *sh, int slot)
{
	char *path = path_join(dir, SESSION_ID ".json");
	uint64_t last[MAX_WRITERS] = {0};
	size_t cap = 1 << 20;
	char *buf = malloc(cap);

	for (uint64_t round = 0; !sh->stop; round++) {
		if (round % 2 == 0) {
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			size_t len = 0;
			ssize_t n;
			json_error_t err;
			json_t *root;

			if (fd < 0) {
				sh->slot[slot].empty++;
				note_problem(sh, slot, "open: %s", strerror(errno));
				continue;
			}
			for (;;) {
				if (len == cap && !(buf = realloc(buf, cap *= 2)))
					return 2;
				n = read(fd, buf + len, cap - len);
				if (n <= 0)
					break;
				len += (size_t)n;
			}
			close(fd);
			sh->slot[slot].reads++;
			if (len == 0) {
				sh->slot[slot].empty++;
				note_problem(sh, slot, "read: an empty file");
				continue;
			}
			root = json_loadb(buf, len, 0, &err);
			if (!root) {
				sh->slot[slot].partial++;
				note_problem(sh, slot, "read: %zu bytes do not parse: %s (line %d)", len,
					     err.text, err.line);
				continue;
			}
			check_document(sh, slot, root, last, writers, "read");
			json_decref(root);
		} else {
			ac_session *s = NULL;

			sh->slot[slot].loads++;
			if (ac_session_load(&s, dir, SESSION_ID) != 0) {
				sh->slot[slot].partial++;
				note_problem(sh, slot, "ac_session_load: %s", ac_error_last());
				continue;
			}
			check_document(sh, slot, ac_session_root(s), last, writers, "load");
			ac_session_free(s);
		}
	}
	free(buf);
	free(path);
	return 0;
}

typedef struct {
	shared_stats *sh;
	int slot;
} problem_ctx;

static void on_index_problem(const char *path, const char *reason, void *vctx)
{
	problem_ctx *p = vctx;

	p->sh->slot[p->slot].index_problems++;
	note_problem(p->sh, p->slot, "index: %s: %s", path, reason);
}

/* A reader through the session index, as the dashboard lists. */
static int index_reader(const char *dir, shared_stats *sh, int slot)
{
	ac_session_index *index;
	problem_ctx pc = {sh, slot};

	if (ac_session_index_new(&index, dir) != 0)
		return 2;
	while (!sh->stop) {
		const ac_session_summary *const *list;
		size_t n = 0;

		if (ac_session_index_refresh(index, on_index_problem, &pc, NULL) != 0) {
			sh->slot[slot].index_problems++;
			note_problem(sh, slot, "refresh: %s", ac_error_last());
			continue;
		}
		sh->slot[slot].refreshes++;
		list = ac_session_index_list(index, &n);
		if (n != 1 || strcmp(list[0]->id, SESSION_ID) != 0 ||
		    !valid_status(list[0]->status)) {
			sh->slot[slot].index_missing++;
			note_problem(sh, slot, "index: %zu sessions listed", n);
		}
	}
	ac_session_index_free(index);
	return 0;
}

static int count_temps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) != NULL)
		if (ac_atomic_is_temp_name(e->d_name))
			n++;
	if (d)
		closedir(d);
	return n;
}

static pid_t spawn_session_writer(const char *dir, int id, size_t max_pad, shared_stats *sh)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(session_writer(dir, id, max_pad, sh, id));
	return pid;
}

/* session-run: --writers processes update one session file in a loop
 * while --readers read it and one index reader lists it; a random writer
 * is SIGKILLed every --kill-min..--kill-max ms and restarted. --unsafe
 * makes the writers rewrite the file in place, to show the readers catch
 * a partial file. */
static int cmd_session_run(int argc, char **argv)
{
	const char *dir = opt(argc, argv, "--dir", NULL);
	int writers = (int)opt_long(argc, argv, "--writers", 2);
	int readers = (int)opt_long(argc, argv, "--readers", 2);
	int64_t duration = opt_long(argc, argv, "--duration-ms", 5000);
	long kill_min = opt_long(argc, argv, "--kill-min", 5);
	long kill_max = opt_long(argc, argv, "--kill-max", 40);
	size_t max_pad = (size_t)opt_long(argc, argv, "--max-pad", 200000);
	pid_t wpids[MAX_WRITERS], rpids[MAX_WRITERS];
	shared_stats *sh;
	uint64_t rng = rng_seed(7), kills = 0, reads = 0, loads = 0, refreshes = 0, bad = 0,
		 regressions = 0, updates = 0, update_failures = 0, lost = 0;
	ac_session *s = NULL;
	json_t *history;
	int64_t start;
	int failed = 0;

	if (!dir || writers < 1 || readers < 0 || writers + readers + 1 > MAX_WRITERS) {
		fprintf(stderr, "session-run: --dir DIR --writers N --readers N\n");
		return 2;
	}
	for (int i = 0; i < argc; i++)
		unsafe_writers |= !strcmp(argv[i], "--unsafe");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	memset(sh, 0, sizeof(*sh));
	/* A session with some history, so a save writes tens of kB. */
	if (ac_session_create(NULL, dir, SESSION_ID, "torture", "t", "u", "Claude") != 0) {
		fprintf(stderr, "%s\n", ac_error_last());
		return 2;
	}
	history = json_array();
	for (int i = 0; i < 100; i++)
		json_array_append_new(history, json_pack("{s:s, s:s+}", "role", i % 2 ? "assistant" : "user",
							 "content", "message ", "with some words in it"));
	if (ac_session_append_messages(NULL, dir, SESSION_ID, history) != 0) {
		fprintf(stderr, "%s\n", ac_error_last());
		return 2;
	}
	json_decref(history);
	for (int w = 0; w < writers; w++)
		wpids[w] = spawn_session_writer(dir, w, max_pad, sh);
	for (int r = 0; r <= readers; r++) {
		rpids[r] = fork();
		if (rpids[r] == 0)
			_exit(r < readers ? session_reader(dir, writers, sh, writers + r)
					  : index_reader(dir, sh, writers + r));
	}
	start = now_ms();
	while (now_ms() - start < duration) {
		int victim = (int)(rng_next(&rng) % (uint64_t)writers), status;

		sleep_us((long)rng_between(&rng, (uint64_t)kill_min, (uint64_t)kill_max) * 1000);
		if (kill_max <= 0)
			continue;
		kill(wpids[victim], SIGKILL);
		waitpid(wpids[victim], &status, 0);
		kills++;
		wpids[victim] = spawn_session_writer(dir, victim, max_pad, sh);
	}
	sh->stop = 1;
	for (int w = 0; w < writers; w++)
		waitpid(wpids[w], NULL, 0);
	for (int r = 0; r <= readers; r++) {
		int status;

		waitpid(rpids[r], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed++;
	}
	for (int i = 0; i < writers + readers + 1; i++) {
		reads += sh->slot[i].reads;
		loads += sh->slot[i].loads;
		refreshes += sh->slot[i].refreshes;
		bad += sh->slot[i].empty + sh->slot[i].partial + sh->slot[i].invalid +
		       sh->slot[i].index_problems + sh->slot[i].index_missing;
		regressions += sh->slot[i].regressions;
		updates += sh->slot[i].updates;
		update_failures += sh->slot[i].update_failures;
		if (sh->slot[i].first_problem[0])
			fprintf(stderr, "process %d: %s\n", i, sh->slot[i].first_problem);
	}
	/* The file loads, and holds every acknowledged update. */
	if (ac_session_load(&s, dir, SESSION_ID) != 0) {
		fprintf(stderr, "final load: %s\n", ac_error_last());
		failed++;
	} else {
		json_t *meta = json_object_get(ac_session_root(s), "metadata");

		for (int w = 0; w < writers; w++) {
			char key[32], name[32], *ack_path;
			uint64_t next;
			int fd;

			snprintf(name, sizeof(name), "sack.%d", w);
			ack_path = path_join(dir, name);
			fd = ack_open(&next, ack_path); /* next = last acked value + 1 */
			close(fd);
			free(ack_path);
			snprintf(key, sizeof(key), "tt_w%d", w);
			/* The file may hold one more than acked: killed after the
			 * swap, before the ack. */
			if (next > 0 && (uint64_t)json_integer_value(json_object_get(meta, key)) < next - 1) {
				fprintf(stderr, "writer %d: acknowledged %" PRIu64 ", file holds %" PRId64
					": an update was lost\n", w, next - 1,
					(int64_t)json_integer_value(json_object_get(meta, key)));
				lost++;
			}
		}
		ac_session_free(s);
	}
	printf("updates_acked=%" PRIu64 " reads=%" PRIu64 " loads=%" PRIu64
	       " index_refreshes=%" PRIu64 " kills=%" PRIu64 " bad_reads=%" PRIu64
	       " regressions=%" PRIu64 " lost_updates=%" PRIu64 " update_failures=%" PRIu64
	       " temps_left=%d\n",
	       updates, reads, loads, refreshes, kills, bad, regressions, lost, update_failures,
	       count_temps(dir));
	munmap(sh, sizeof(*sh));
	return failed || bad || regressions || lost || update_failures || reads + loads == 0 ? 1 : 0;
}

/* ---- helpers for the dashboard tests ---------------------------------------- */

/* append: --count events "<prefix>-<n>" appended fast through the core. */
static int cmd_append(int argc, char **argv)
{
	const char *journal = opt(argc, argv, "--journal", NULL);
	const char *prefix = opt(argc, argv, "--prefix", "ev");
	long count = opt_long(argc, argv, "--count", 1);
	char line[512], stamp[AC_TIME_ISO_LEN + 1], compact[15];
	uint64_t rng = rng_seed(3);

	if (!journal)
		return 2;
	for (long i = 1; i <= count; i++) {
		int64_t ms = ac_time_now_ms();
		int n;

		ac_time_format_iso(stamp, ms);
		ac_time_format_compact(compact, ms);
		n = snprintf(line, sizeof(line),
			     "{\"id\":\"evt_%s_%08" PRIx32 "\",\"timestamp\":\"%s\",\"agent\":\"Codex\","
			     "\"status\":\"SUCCESS\",\"action\":{\"type\":\"CMD_RUN\",\"params\":{}},"
			     "\"result\":{\"message\":\"%s-%ld\"}}",
			     compact, (uint32_t)rng_next(&rng), stamp, prefix, i);
		if (ac_journal_append(NULL, journal, line, (size_t)n, NULL) != 0) {
			fprintf(stderr, "%s\n", ac_error_last());
			return 1;
		}
	}
	return 0;
}

/* inotify-probe: an inotify instance made now, a burst of changes in dir,
 * and whether the queue overflowed: shows the max_queued_events in force. */
static int cmd_inotify_probe(int argc, char **argv)
{
	const char *dir = opt(argc, argv, "--dir", NULL);
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	char *path;
	int fd, overflow = 0;
	ssize_t n;

	if (!dir)
		return 2;
	path = path_join(dir, "probe");
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0 || inotify_add_watch(fd, dir, IN_CREATE | IN_DELETE | IN_MODIFY) < 0)
		return 2;
	for (int i = 0; i < 200; i++) {
		int f = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (f >= 0)
			close(f);
		unlink(path);
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			overflow |= (ev->mask & IN_Q_OVERFLOW) != 0;
			p += sizeof(*ev) + ev->len;
		}
	close(fd);
	free(path);
	printf("overflow=%d\n", overflow);
	return overflow ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "journal-run"))
		return cmd_journal_run(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "journal-verify"))
		return cmd_journal_verify(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "session-run"))
		return cmd_session_run(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "append"))
		return cmd_append(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "inotify-probe"))
		return cmd_inotify_probe(argc - 2, argv + 2);
	fprintf(stderr, "usage: torture_writer journal-run|journal-verify|session-run|append|"
			"inotify-probe [options]\n");
	return 2;
}
