/* Walking up to the workspace (ac_discover.h). */
#include "ac_discover.h"

#include "ac_buf.h"
#include "ac_error.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool has_marker(const char *dir)
{
	static const char *const markers[] = {".agent", "JOURNAL.jsonl", ".agentrc.json"};
	ac_buf path = AC_BUF_INIT;
	bool found = false;
	struct stat st;

	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]) && !found; i++) {
		ac_buf_clear(&path);
		ac_buf_printf(&path, "%s/%s", strcmp(dir, "/") ? dir : "", markers[i]);
		found = path.data && lstat(path.data, &st) == 0 &&
			(i == 0 ? S_ISDIR(st.st_mode) : true);
	}
	ac_buf_free(&path);
	return found;
}

/* True when dir (resolved) is one of the colon-separated ceilings. */
static bool is_ceiling(const char *dir, const char *ceilings)
{
	const char *p = ceilings;

	while (p && *p) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char one[PATH_MAX], *real;

		if (len > 0 && len < sizeof(one) && p[0] == '/') {
			memcpy(one, p, len);
			one[len] = '\0';
			real = realpath(one, NULL);
			if (real && !strcmp(real, dir)) {
				free(real);
				return true;
			}
			free(real);
		}
		p = end ? end + 1 : NULL;
	}
	return false;
}

static bool same_path(const char *dir, const char *other)
{
	char *real = other && *other ? realpath(other, NULL) : NULL;
	bool same = real && !strcmp(real, dir);

	free(real);
	return same;
}

int ac_discover_workspace(char **out, const char *start, const char *ceilings, const char *home)
{
	char *dir = realpath(start, NULL), *slash;
	const char *stopped = "/";
	struct stat st;
	dev_t dev;
	int rc;

	*out = NULL;
	if (!dir)
		return ac_error_errno(errno, "%s: cannot resolve the folder", start);
	if (stat(dir, &st) != 0) {
		rc = ac_error_errno(errno, "%s: cannot read", dir);
		goto done;
	}
	dev = st.st_dev;
	for (bool first = true;; first = false) {
		if (!first && (is_ceiling(dir, ceilings) || same_path(dir, home))) {
			stopped = is_ceiling(dir, ceilings) ? "AGENT_CEILING_DIRECTORIES" : "$HOME";
			break;
		}
		if (!first && (stat(dir, &st) != 0 || st.st_dev != dev)) {
			stopped = "a file system boundary";
			break;
		}
		if (has_marker(dir)) {
			*out = dir;
			return 0;
		}
		if (!strcmp(dir, "/"))
			break;
		slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	rc = ac_error_set(AC_ENOTFOUND, "no " AC_DISCOVER_MARKERS " in %s or above, up to %s",
			  start, stopped);
done:
	free(dir);
	return rc;
}
