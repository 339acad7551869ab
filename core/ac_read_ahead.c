/* Files read ahead of a scan on helper threads (ac_read_ahead.h). */
#include "ac_read_ahead.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define HELPERS_MAX 8
#define WINDOW_BYTES (256u << 20)
#define WINDOW_FILES 512
/* Less than this in all is read by the scan at once, as fast. */
#define WORTH_BYTES (16u << 20)
/* The kernel reads ahead in stretches at least this long. */
#define STRETCH (64u << 10)

struct ac_read_ahead {
	const ac_read_ahead_file *files;
	size_t n;
	uint64_t *before; /* before[i]: bytes of files[0..i) */
	pthread_mutex_t lock;
	pthread_cond_t moved;
	size_t next; /* the next file a helper takes */
	size_t at;   /* the file the scan is at */
	atomic_bool stop; /* also read by helpers between reads */
	pthread_t threads[HELPERS_MAX];
	size_t started;
};

/* Brings [from, to) of path into the page cache: the kernel is asked for
 * all of it at once, then a byte of each stretch is read, so that this
 * thread, not the scan, waits for the disk (nothing is copied but those
 * bytes). */
static void read_one(ac_read_ahead *ra, const ac_read_ahead_file *f)
{
	/* One file's share is the window too (a sparse file may be huge). */
	uint64_t to = f->to - f->from > WINDOW_BYTES ? f->from + WINDOW_BYTES : f->to;
	int fd = open(f->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char byte;

	if (fd < 0)
		return;
	/* A FIFO or a device swapped in is left to the scan (which refuses it). */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		posix_fadvise(fd, (off_t)f->from, (off_t)(to - f->from), POSIX_FADV_WILLNEED);
		for (uint64_t at = f->from; at < to && !atomic_load(&ra->stop); at += STRETCH)
			if (pread(fd, &byte, 1, (off_t)at) != 1)
				break;
	}
	close(fd);
}

static void *helper(void *arg)
{
	ac_read_ahead *ra = arg;
	pthread_mutex_lock(&ra->lock);
	while (!atomic_load(&ra->stop) && ra->next < ra->n) {
		size_t i = ra->next;

		/* Not too far ahead of the scan: what is read must still be in
		 * memory when the scan comes to it. */
		if (i > ra->at + 1 &&
		    (i >= ra->at + WINDOW_FILES || ra->before[i] - ra->before[ra->at] > WINDOW_BYTES)) {
			pthread_cond_wait(&ra->moved, &ra->lock);
			continue;
		}
		ra->next++;
		if (i <= ra->at || ra->files[i].from >= ra->files[i].to)
			continue; /* the scan is there already, or nothing to read */
		pthread_mutex_unlock(&ra->lock);
		read_one(ra, &ra->files[i]);
		pthread_mutex_lock(&ra->lock);
	}
	pthread_mutex_unlock(&ra->lock);
	return NULL;
}

void ac_read_ahead_start(ac_read_ahead **out, const ac_read_ahead_file *files, size_t n)
{
	ac_read_ahead *ra;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	/* They mostly wait for the disk: at least two, so that one waits
	 * while another asks. */
	size_t helpers = cores > 2 ? (size_t)cores : 2;
	uint64_t total = 0;

	*out = NULL;
	for (size_t i = 0; i < n; i++)
		total += files[i].to > files[i].from ? files[i].to - files[i].from : 0;
	if (n < 2 || total < WORTH_BYTES || !(ra = calloc(1, sizeof(*ra))))
		return;
	if (!(ra->before = malloc((n + 1) * sizeof(*ra->before)))) {
		free(ra);
		return;
	}
	atomic_init(&ra->stop, false);
	ra->files = files;
	ra->n = n;
	ra->before[0] = 0;
	for (size_t i = 0; i < n; i++)
		ra->before[i + 1] = ra->before[i] +
				    (files[i].to > files[i].from ? files[i].to - files[i].from : 0);
	pthread_mutex_init(&ra->lock, NULL);
	pthread_cond_init(&ra->moved, NULL);
	if (helpers > HELPERS_MAX)
		helpers = HELPERS_MAX;
	for (size_t i = 0; i < helpers; i++)
		if (pthread_create(&ra->threads[ra->started], NULL, helper, ra) == 0)
			ra->started++;
	if (!ra->started) {
		ac_read_ahead_stop(ra);
		return;
	}
	*out = ra;
}

void ac_read_ahead_at(ac_read_ahead *ra, size_t i)
{
	if (!ra)
		return;
	pthread_mutex_lock(&ra->lock);
	ra->at = i;
	pthread_cond_broadcast(&ra->moved);
	pthread_mutex_unlock(&ra->lock);
}

void ac_read_ahead_stop(ac_read_ahead *ra)
{
	if (!ra)
		return;
	pthread_mutex_lock(&ra->lock);
	atomic_store(&ra->stop, true);
	pthread_cond_broadcast(&ra->moved);
	pthread_mutex_unlock(&ra->lock);
	for (size_t i = 0; i < ra->started; i++)
		pthread_join(ra->threads[i], NULL);
	pthread_mutex_destroy(&ra->lock);
	pthread_cond_destroy(&ra->moved);
	free(ra->before);
	free(ra);
}
