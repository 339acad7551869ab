/* Fuzz target: what `agentctl usage` reads from files anyone can write:
 * its index (a cache file: loaded whole or refused, never half believed,
 * whatever its checksum says: anyone can compute one)
 * and the usage lines of Claude Code transcripts and Codex rollouts. The
 * first byte picks which; the rest is the file. */
#include "ac_error.h"
#include "ac_text.h"
#include "ac_usage_index.h"
#include "ac_usage_record.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check_record(const ac_usage_record *r, void *ctx)
{
	const uint64_t max = UINT64_C(9007199254740991);

	(void)ctx;
	/* Every record has a session, a sane time and counts a reader holds. */
	if (!r->session_id || !r->model || !r->project || r->timestamp_ms < 0 ||
	    r->counts.input > max || r->counts.output > max || r->counts.cache_read > max)
		abort();
	return 0;
}

static bool is_text(const char *s)
{
	return !s || ac_text_is_utf8(s, strlen(s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ac_usage_file_state st = {0};
	size_t skipped = 0;

	if (size < 1)
		return 0;
	if (data[0] % 3 == 0) {
		char path[] = "/tmp/fuzz_usage_index.XXXXXX";
		int fd = mkstemp(path);
		ac_usage_index *index = NULL;
		bool rebuilt;

		if (fd < 0)
			return 0;
		if (write(fd, data + 1, size - 1) == (ssize_t)(size - 1) &&
		    ac_usage_index_load(&index, &rebuilt, path) == 0) {
			/* Loaded whole (and then every bucket is within its hour and
			 * every string is text a report can hold, whatever the
			 * checksum said) or refused whole. */
			if (rebuilt && index->n)
				abort();
			for (size_t i = 0; i < index->n; i++) {
				const ac_usage_entry *e = &index->entries[i];

				if (!is_text(e->path) || !is_text(e->state.session_id) ||
				    !is_text(e->state.project) || !is_text(e->state.model))
					abort();
				for (size_t k = 0; k < e->n_buckets; k++)
					if (e->buckets[k].last_ms - e->buckets[k].hour_ms >= 3600000 ||
					    !is_text(e->buckets[k].model))
						abort();
			}
		}
		ac_usage_index_free(index);
		close(fd);
		unlink(path);
		return 0;
	}
	/* Exactly size - 1 bytes, no terminator: overreads are caught. */
	if (data[0] % 3 == 1)
		ac_usage_claude_extract(&st, (const char *)data + 1, size - 1, "f", check_record, NULL,
					&skipped);
	else
		ac_usage_codex_extract(&st, (const char *)data + 1, size - 1, "f", check_record, NULL,
				       &skipped);
	ac_usage_file_state_free(&st);
	return 0;
}
