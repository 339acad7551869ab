/* Fuzz target: the transcript adapters (ac_source*.c) over a file as a
 * coding agent's tool might leave it, or anyone who can write its folder:
 * the first byte picks Claude Code, Codex, Gemini CLI or Antigravity and whether the
 * file is read in two steps (a tail appended after a first read, as the
 * dashboard sees a live transcript); the rest is the file. Every read must
 * succeed or fail cleanly, the summary stay within what was read, the
 * conversation build, and the id the resume key would pass be checked. */
#include "ac_error.h"
#include "ac_source.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put(int fd, const uint8_t *data, size_t size)
{
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* One per ac_source_kind: Claude, Codex, Gemini (the older whole-file
	 * form; .jsonl is covered through Codex's and Claude's line reader),
	 * Antigravity. */
	static const char *const suffix[] = {".jsonl", ".jsonl", ".json", ".jsonl"};
	_Static_assert(sizeof(suffix) / sizeof(suffix[0]) == AC_SOURCE_COUNT,
		       "a file suffix for every transcript source");
	char path[64];
	ac_source_kind kind;
	ac_source_session *s = NULL;
	ac_state_inputs in;
	json_t *messages = NULL;
	size_t split;
	int fd;

	if (size < 1)
		return 0;
	kind = (ac_source_kind)(data[0] % AC_SOURCE_COUNT);
	split = data[0] & 0x80 ? (size - 1) / 2 : size - 1;
	snprintf(path, sizeof(path), "/tmp/fuzz_source.%d%s", (int)getpid(), suffix[kind]);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
		return 0;
	put(fd, data + 1, split);
	if (ac_source_session_new(&s, kind, path) != 0)
		abort();
	if (ac_source_session_read(s, NULL) == 0 && split < size - 1) {
		put(fd, data + 1 + split, size - 1 - split);
		ac_source_session_read(s, NULL);
	}
	/* The reader never claims more than the file holds. */
	if (s->offset > size - 1 || s->messages > size)
		abort();
	ac_source_session_inputs(&in, s, 0);
	{
		static const ac_state_thresholds limits = AC_STATE_THRESHOLDS_DEFAULT;

		(void)ac_session_state_derive(&in, &limits);
	}
	(void)ac_source_session_task(s);
	if (s->id)
		(void)ac_source_id_check(s->id);
	if (ac_source_session_conversation(&messages, s) == 0 && !json_is_array(messages))
		abort();
	json_decref(messages);
	ac_source_session_free(s);
	close(fd);
	unlink(path);
	ac_error_clear();
	return 0;
}
