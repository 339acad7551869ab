/* Walking up to the workspace (ac_discover.h). */
#include "ac_discover.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first workspace marker in dir: its name (static text) and
 * lstat() into *out_st, or NULL. */
static const char *find_marker(const char *dir, struct stat *out_st)
{
	static const char *const markers[] = {".agent", "JOURNAL.jsonl", ".agentrc.json"};
	ac_buf path = AC_BUF_INIT;
	const char *found = NULL;

	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]) && !found; i++) {
		ac_buf_clear(&path);
		ac_buf_printf(&path, "%s/%s", strcmp(dir, "/") ? dir : "", markers[i]);
		if (path.data && lstat(path.data, out_st) == 0 &&
		    (i == 0 ? S_ISDIR(out_st->st_mode) : true))
			found = markers[i];
	}
	ac_buf_free(&path);
	return found;
}

/* Why the marker found in dir is not to be taken, or NULL: another user
 * could have put it there (the caller and root may, as git's
 * safe.directory check has it), or anyone could (dir is writable by all
 * and not sticky). The text is allocated (the caller frees). */
static char *dubious(const char *dir, const char *marker, const struct stat *st)
{
	ac_buf why = AC_BUF_INIT;
	struct stat folder;
	uid_t owner;

	if (ac_file_foreign_owner(&owner, st, dir, true))
		ac_buf_printf(&why, "skipped the workspace %s: %s is owned by uid %ld, not by you "
			      "(uid %ld) or root, so another user could have put it there", dir,
			      owner == st->st_uid ? marker : "the folder", (long)owner,
			      (long)geteuid());
	else if (stat(dir, &folder) == 0 && (folder.st_mode & S_IWOTH) &&
		 !(folder.st_mode & S_ISVTX))
		ac_buf_printf(&why, "skipped the workspace %s: the folder is writable by anyone and "
			      "not sticky (mode %04o), so anyone could have put its %s there", dir,
			      (unsigned)(folder.st_mode & 07777), marker);
	else
		return NULL;
	return why.data ? ac_buf_detach(&why) : strdup("skipped a workspace another user owns");
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

int ac_discover_workspace(char **out, char **out_skipped, const char *start,
			  const char *ceilings, const char *home)
{
	char *dir = realpath(start, NULL), *slash, *why = NULL;
	const char *stopped = "/", *marker;
	struct stat st;
	dev_t dev;
	int rc;

	*out = NULL;
	if (out_skipped)
		*out_skipped = NULL;
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
		if ((marker = find_marker(dir, &st))) {
			char *doubt = dubious(dir, marker, &st);

			if (!doubt) {
				*out = dir;
				if (out_skipped)
					*out_skipped = why;
				else
					free(why);
				return 0;
			}
			if (first) {
				/* Started in it: the caller asked for this very folder. */
				rc = ac_error_set(AC_EDENIED, "%s; pass -w %s to use it anyway", doubt,
						  dir);
				free(doubt);
				goto done;
			}
			if (!why)
				why = doubt;
			else
				free(doubt);
		}
		if (!strcmp(dir, "/"))
			break;
		slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	rc = ac_error_set(AC_ENOTFOUND, "no " AC_DISCOVER_MARKERS " in %s or above, up to %s%s%s",
			  start, stopped, why ? "; " : "", why ? why : "");
	if (out_skipped) {
		*out_skipped = why;
		why = NULL;
	}
done:
	free(why);
	free(dir);
	return rc;
}
