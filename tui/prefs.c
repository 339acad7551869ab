/* The operator's remembered preferences (prefs.h). */
#include "prefs.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int folder(ac_buf *out)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (state && *state)
		return ac_buf_printf(out, "%s/agentctl", state) ? ac_error_set(AC_ENOMEM, "out of memory") : 0;
	if (home && *home)
		return ac_buf_printf(out, "%s/.local/state/agentctl", home)
			       ? ac_error_set(AC_ENOMEM, "out of memory") : 0;
	return ac_error_set(AC_EINVAL, "no state folder to remember preferences in: set "
			    "XDG_STATE_HOME or HOME");
}

int ui_prefs_path(char **out, const char *name)
{
	ac_buf path = AC_BUF_INIT;
	int rc;

	*out = NULL;
	if (!*name || strchr(name, '/') || name[0] == '.')
		return ac_error_set(AC_EINVAL, "%s: not a preference name", name);
	if ((rc = folder(&path)))
		goto done;
	if (ac_buf_printf(&path, "/%s", name) || !(*out = ac_buf_detach(&path)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	ac_buf_free(&path);
	return rc;
}

int ui_prefs_read(char **out, const char *name)
{
	char *path = NULL, *text = NULL;
	size_t len = 0, start = 0;
	struct stat st;
	int rc;

	*out = NULL;
	if ((rc = ui_prefs_path(&path, name)))
		return rc;
	if (stat(path, &st) != 0) {
		rc = errno == ENOENT ? 0 : ac_error_errno(errno, "%s: cannot read", path);
		goto done;
	}
	if ((rc = ac_file_read(&text, &len, path)))
		goto done;
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		text[--len] = '\0';
	while (start < len && isspace((unsigned char)text[start]))
		start++;
	if (start < len && !(*out = strdup(text + start)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	free(text);
	free(path);
	return rc;
}

int ui_prefs_write(const char *name, const char *value)
{
	ac_buf dir = AC_BUF_INIT, text = AC_BUF_INIT;
	char *path = NULL;
	int rc;

	if ((rc = ui_prefs_path(&path, name)) || (rc = folder(&dir)))
		goto done;
	if ((rc = ac_file_mkdirs(dir.data))) {
		char *why = strdup(ac_error_last());

		rc = ac_error_set(rc, "%s: cannot make the folder: %s", dir.data, why ? why : "?");
		free(why);
		goto done;
	}
	if (ac_buf_printf(&text, "%s\n", value)) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = ac_atomic_write(path, text.data, text.len, NULL, NULL))) {
		char *why = strdup(ac_error_last());

		rc = ac_error_set(rc, "%s: cannot write: %s", path, why ? why : "?");
		free(why);
	}
done:
	free(path);
	ac_buf_free(&dir);
	ac_buf_free(&text);
	return rc;
}
