/* Fuzz target: the rollback planner's path check, fed what a hostile tree
 * can hold: byte 0 picks the entry's mode, then the path up to a NUL, then
 * (for a link) its target. Whatever passes must be a path git would write:
 * checked here by independent, simpler rules. */
#include "ac_git_paths.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A component a git checkout on Linux must never create. */
static int forbidden(const char *name, size_t len)
{
	char lower[8];

	if (len == 0 || (len == 1 && name[0] == '.') || (len == 2 && !memcmp(name, "..", 2)))
		return 1;
	if (len == 4) {
		for (size_t i = 0; i < 4; i++)
			lower[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
		if (!memcmp(lower, ".git", 4))
			return 1;
	}
	return memchr(name, '\\', len) != NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t modes[] = {AC_GIT_MODE_BLOB, AC_GIT_MODE_EXEC, AC_GIT_MODE_LINK,
					 AC_GIT_MODE_GITLINK, 0, 0100664};
	const char *path, *target, *p, *name;
	size_t path_len, target_len;
	uint32_t mode;
	char *copy;

	if (size < 1)
		return 0;
	mode = modes[data[0] % (sizeof(modes) / sizeof(modes[0]))];
	data++;
	size--;
	target = memchr(data, '\0', size);
	path_len = target ? (size_t)((const uint8_t *)target - data) : size;
	if (!(copy = malloc(size + 1)))
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	path = copy;
	target = path_len < size ? copy + path_len + 1 : NULL;
	target_len = target ? size - path_len - 1 : 0;
	if (!ac_git_path_problem(path, mode, target, target_len)) {
		for (name = p = path;; p++) {
			if (*p != '/' && *p != '\0')
				continue;
			if (forbidden(name, (size_t)(p - name)) ||
			    ac_git_name_is_dotgit(name, (size_t)(p - name)))
				abort();
			if (!*p)
				break;
			name = p + 1;
		}
		if (mode == AC_GIT_MODE_LINK && (!target || target[0] == '/' ||
						 !strncmp(target, "../", 3) || !strcmp(target, "..")))
			if (strchr(path, '/') == NULL)
				abort(); /* a top-level link cannot climb */
		if (mode == 0100664)
			abort();
	}
	(void)ac_git_path_is_default_agent_state(path);
	free(copy);
	return 0;
}
