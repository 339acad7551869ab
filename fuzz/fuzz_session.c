/* Fuzz target: a session file as another program may have left it, read
 * by the session loader and by the listing index. */
#include "ac_session.h"
#include "ac_session_index.h"

#include "fuzz_tmpdir.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmpdir("session");
	char path[128];
	ac_session *s = NULL;
	ac_session_index *index = NULL;
	size_t n;
	int fd;

	if (!dir)
		return 0;
	snprintf(path, sizeof(path), "%s/s.json", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	close(fd);
	if (ac_session_load(&s, dir, "s") == 0) {
		json_t *last = ac_session_last_messages(s, 3);
		json_t *within = ac_session_messages_within(s, 50);

		json_decref(last);
		json_decref(within);
		ac_session_free(s);
	}
	if (ac_session_index_new(&index, dir) == 0) {
		ac_session_index_refresh(index, NULL, NULL, NULL);
		ac_session_index_list(index, &n);
		ac_session_index_free(index);
	}
	return 0;
}
