/* Fuzz target: a project config file, loaded and resolved. */
#include "ac_config.h"
#include "ac_workspace.h"

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
	const char *dir = fuzz_tmpdir("config");
	char path[160];
	ac_config *config = NULL;
	ac_workspace ws;
	int fd;

	if (!dir)
		return 0;
	snprintf(path, sizeof(path), "%s/.agent", dir);
	if (mkdir(path, 0755) == 0)
		setenv("XDG_CONFIG_HOME", dir, 1); /* no user file */
	snprintf(path, sizeof(path), "%s/.agent/config.json", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	close(fd);
	if (ac_config_load(&config, dir) == 0) {
		if (ac_workspace_init(&ws, config) == 0)
			ac_workspace_free(&ws);
		ac_config_free(config);
	}
	return 0;
}
