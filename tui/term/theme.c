/* Theme files: a tiny line format, parsed with the line number of any
 * fault. */
#include "theme.h"

#include "ac_error.h"
#include "ac_file.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const style_names[UI_ST_COUNT] = {
	[UI_ST_NORMAL] = "normal",
	[UI_ST_TITLE] = "title",
	[UI_ST_TAB] = "tab",
	[UI_ST_TAB_ACTIVE] = "tab-active",
	[UI_ST_HEADER] = "header",
	[UI_ST_SELECTED] = "selected",
	[UI_ST_STATUSBAR] = "statusbar",
	[UI_ST_KEYS] = "keys",
	[UI_ST_RUNNING] = "running",
	[UI_ST_PAUSED] = "paused",
	[UI_ST_COMPLETED] = "completed",
	[UI_ST_FAILED] = "failed",
	[UI_ST_DIM] = "dim",
	[UI_ST_WARNING] = "warning",
	[UI_ST_ERROR] = "error",
	[UI_ST_OK] = "ok",
	[UI_ST_DIALOG] = "dialog",
	[UI_ST_DIALOG_TITLE] = "dialog-title",
	[UI_ST_ROLE_USER] = "role-user",
	[UI_ST_ROLE_ASSISTANT] = "role-assistant",
	[UI_ST_ROLE_SYSTEM] = "role-system",
	[UI_ST_TOOL] = "tool",
	[UI_ST_FILTER] = "filter",
	[UI_ST_INVALID] = "invalid",
	[UI_ST_STATE_RUNNING] = "state-running",
	[UI_ST_STATE_WAITING] = "state-waiting",
	[UI_ST_STATE_IDLE] = "state-idle",
	[UI_ST_STATE_ENDED] = "state-ended",
};

#define D UI_COLOR_DEFAULT
static const ui_style_spec dark[UI_ST_COUNT] = {
	[UI_ST_NORMAL] = {D, D, 0},
	[UI_ST_TITLE] = {0, 6, UI_ATTR_BOLD},
	[UI_ST_TAB] = {7, 4, 0},
	[UI_ST_TAB_ACTIVE] = {0, 3, UI_ATTR_BOLD},
	[UI_ST_HEADER] = {0, 2, UI_ATTR_BOLD},
	[UI_ST_SELECTED] = {0, 6, 0},
	[UI_ST_STATUSBAR] = {7, 4, 0},
	[UI_ST_KEYS] = {D, D, UI_ATTR_DIM},
	[UI_ST_RUNNING] = {2, D, UI_ATTR_BOLD},
	[UI_ST_PAUSED] = {3, D, UI_ATTR_BOLD},
	[UI_ST_COMPLETED] = {4, D, 0},
	[UI_ST_FAILED] = {1, D, UI_ATTR_BOLD},
	[UI_ST_DIM] = {D, D, UI_ATTR_DIM},
	[UI_ST_WARNING] = {3, 4, UI_ATTR_BOLD},
	[UI_ST_ERROR] = {7, 1, UI_ATTR_BOLD},
	[UI_ST_OK] = {2, 4, UI_ATTR_BOLD},
	[UI_ST_DIALOG] = {7, 4, 0},
	[UI_ST_DIALOG_TITLE] = {0, 3, UI_ATTR_BOLD},
	[UI_ST_ROLE_USER] = {6, D, UI_ATTR_BOLD},
	[UI_ST_ROLE_ASSISTANT] = {2, D, UI_ATTR_BOLD},
	[UI_ST_ROLE_SYSTEM] = {5, D, UI_ATTR_BOLD},
	[UI_ST_TOOL] = {3, D, 0},
	[UI_ST_FILTER] = {0, 3, 0},
	[UI_ST_INVALID] = {5, D, UI_ATTR_UNDERLINE},
	[UI_ST_STATE_RUNNING] = {2, D, UI_ATTR_BOLD},
	[UI_ST_STATE_WAITING] = {5, D, UI_ATTR_BOLD | UI_ATTR_REVERSE},
	[UI_ST_STATE_IDLE] = {6, D, 0},
	[UI_ST_STATE_ENDED] = {D, D, UI_ATTR_DIM},
};
#undef D

const char *ui_style_name(ui_style style)
{
	return (unsigned)style < UI_ST_COUNT ? style_names[style] : "?";
}

void ui_theme_default(ui_theme *out)
{
	memset(out, 0, sizeof(*out));
	strcpy(out->name, "dark");
	memcpy(out->style, dark, sizeof(dark));
}

static const char *const color_names[] = {"black", "red", "green", "yellow",
					  "blue", "magenta", "cyan", "white"};

static int parse_color(short *out, const char *word)
{
	char *end;
	long n;

	if (!strcmp(word, "default")) {
		*out = UI_COLOR_DEFAULT;
		return 0;
	}
	for (int bright = 0; bright < 2; bright++) {
		const char *w = word;

		if (bright) {
			if (strncmp(word, "bright-", 7))
				break;
			w = word + 7;
		}
		for (int i = 0; i < 8; i++)
			if (!strcmp(w, color_names[i])) {
				*out = (short)(i + 8 * bright);
				return 0;
			}
	}
	errno = 0;
	n = strtol(word, &end, 10);
	if (*word && !*end && !errno && n >= 0 && n <= 255) {
		*out = (short)n;
		return 0;
	}
	return -1;
}

static int parse_attr(unsigned *out, const char *word)
{
	static const struct {
		const char *name;
		unsigned attr;
	} attrs[] = {{"bold", UI_ATTR_BOLD},	       {"dim", UI_ATTR_DIM},
		     {"reverse", UI_ATTR_REVERSE},     {"underline", UI_ATTR_UNDERLINE},
		     {"italic", UI_ATTR_ITALIC},       {"none", 0}};

	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
		if (!strcmp(word, attrs[i].name)) {
			*out |= attrs[i].attr;
			return 0;
		}
	return -1;
}

/* Parses one "element = fg bg attrs" line (NUL-terminated, comment and
 * surrounding space removed) into t. */
static int parse_line(ui_theme *t, char *line, char *err, size_t errlen)
{
	char *eq = strchr(line, '='), *words[8], *save = NULL, *w;
	size_t nwords = 0;
	int style = -1;
	ui_style_spec spec = {UI_COLOR_DEFAULT, UI_COLOR_DEFAULT, 0};

	if (!eq) {
		snprintf(err, errlen, "expected 'element = fg bg [attrs]'");
		return -1;
	}
	*eq = '\0';
	for (char *e = eq; e > line && isspace((unsigned char)e[-1]);)
		*--e = '\0';
	for (int i = 0; i < UI_ST_COUNT; i++)
		if (!strcmp(line, style_names[i]))
			style = i;
	if (style < 0) {
		snprintf(err, errlen, "unknown element '%.40s'", line);
		return -1;
	}
	for (w = strtok_r(eq + 1, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (nwords == sizeof(words) / sizeof(words[0])) {
			snprintf(err, errlen, "too many words for '%s'", line);
			return -1;
		}
		words[nwords++] = w;
	}
	if (nwords < 2) {
		snprintf(err, errlen, "'%s' needs a foreground and a background colour", line);
		return -1;
	}
	if (parse_color(&spec.fg, words[0]) || parse_color(&spec.bg, words[1])) {
		snprintf(err, errlen, "unknown colour '%.40s'",
			 parse_color(&spec.fg, words[0]) ? words[0] : words[1]);
		return -1;
	}
	for (size_t i = 2; i < nwords; i++)
		if (parse_attr(&spec.attrs, words[i])) {
			snprintf(err, errlen, "unknown attribute '%.40s'", words[i]);
			return -1;
		}
	t->style[style] = spec;
	return 0;
}

int ui_theme_parse(ui_theme *out, const char *name, const char *text, size_t len,
		   char *err, size_t errlen)
{
	ui_theme t;
	size_t start = 0, number = 0;

	ui_theme_default(&t);
	snprintf(t.name, sizeof(t.name), "%s", name);
	while (start < len) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;
		char line[512], *p, *hash, reason[200];
		size_t n = end - start;

		number++;
		if (n >= sizeof(line)) {
			snprintf(err, errlen, "line %zu: line too long", number);
			return -1;
		}
		memcpy(line, text + start, n);
		line[n] = '\0';
		start = end + 1;
		if (memchr(line, '\0', n)) {
			snprintf(err, errlen, "line %zu: NUL byte", number);
			return -1;
		}
		if ((hash = strchr(line, '#')))
			*hash = '\0';
		for (p = line; isspace((unsigned char)*p); p++)
			;
		for (char *e = p + strlen(p); e > p && isspace((unsigned char)e[-1]);)
			*--e = '\0';
		if (!*p)
			continue;
		if (parse_line(&t, p, reason, sizeof(reason))) {
			snprintf(err, errlen, "line %zu: %s", number, reason);
			return -1;
		}
	}
	*out = t;
	return 0;
}

static bool valid_name(const char *name)
{
	return *name && name[0] != '.' && strlen(name) < 48 && !strchr(name, '/');
}

/* Opens the theme file at path the way the stores open a workspace file
 * (ac_file_open_regular()): the open never blocks (a FIFO waited for a
 * writer and froze the dashboard before its first frame, q unread), and
 * anything but a regular file is refused. -1 with err set; -2 when absent. */
static int open_theme(int *out_fd, const char *path, char *err, size_t errlen)
{
	int rc = ac_file_open_regular(out_fd, AT_FDCWD, path, O_RDONLY, 0, path);

	if (rc == AC_ENOTFOUND)
		return -2;
	if (rc) {
		snprintf(err, errlen, "%s", ac_error_last());
		return -1;
	}
	return 0;
}

int ui_theme_load(ui_theme *out, const char *name, const char *const *dirs, bool path_ok,
		  char *err, size_t errlen)
{
	char path[4096], reason[256], text[UI_THEME_MAX_BYTES + 1];
	const char *label = name;
	struct stat st;
	size_t len = 0;
	int fd = -1, rc = -1, found = -2;

	ui_theme_default(out);
	if (strchr(name, '/') && path_ok) {
		snprintf(path, sizeof(path), "%s", name);
		if ((found = open_theme(&fd, path, err, errlen)) == -2)
			snprintf(err, errlen, "%s: %s", path, strerror(ENOENT));
		if (found)
			return -1;
		label = strrchr(name, '/') + 1;
	} else if (strchr(name, '/')) {
		snprintf(err, errlen, "theme '%.200s': a path, not a theme name (a project file "
			 "only names one of the installed themes; a path may be set in the user "
			 "config, AGENT_THEME or --theme)", name);
		return -1;
	} else if (valid_name(name)) {
		for (size_t i = 0; dirs && dirs[i] && found == -2; i++) {
			snprintf(path, sizeof(path), "%s/%s.theme", dirs[i], name);
			found = open_theme(&fd, path, err, errlen);
		}
		if (found == -1)
			return -1;
		if (found) {
			/* Name every folder looked in: the first is often the user's
			 * own, which need not exist. */
			int at = snprintf(err, errlen, "theme '%s': no %s.theme in", name, name);

			for (size_t i = 0; dirs && dirs[i] && at > 0 && (size_t)at < errlen; i++)
				at += snprintf(err + at, errlen - (size_t)at, "%s %s",
					       i ? "," : "", dirs[i]);
			if (!dirs || !dirs[0])
				snprintf(err, errlen, "theme '%s': no theme folder", name);
			return -1;
		}
	} else {
		snprintf(err, errlen, "theme '%.60s': not a theme name", name);
		return -1;
	}
	/* A size cap before reading, and the read bounded by it as well (the
	 * file may grow meanwhile). */
	if (fstat(fd, &st) == 0 && st.st_size > UI_THEME_MAX_BYTES) {
		snprintf(err, errlen, "%s: larger than %d bytes", path, UI_THEME_MAX_BYTES);
		goto done;
	}
	while (len < sizeof(text)) {
		ssize_t n = read(fd, text + len, sizeof(text) - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto done;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len == sizeof(text)) {
		snprintf(err, errlen, "%s: larger than %d bytes", path, UI_THEME_MAX_BYTES);
		goto done;
	}
	if (ui_theme_parse(out, label, text, len, reason, sizeof(reason))) {
		/* "line N: reason" -> "FILE:N: reason" */
		const char *rest = reason + 5;

		snprintf(err, errlen, "%s:%s", path, rest);
		ui_theme_default(out);
		goto done;
	}
	{
		char *dot = strrchr(out->name, '.');

		if (dot && !strcmp(dot, ".theme"))
			*dot = '\0';
	}
	rc = 0;
done:
	close(fd);
	return rc;
}

void ui_theme_strip_colors(ui_theme *t)
{
	for (int i = 0; i < UI_ST_COUNT; i++) {
		bool had_bg = t->style[i].bg != UI_COLOR_DEFAULT;

		t->style[i].fg = t->style[i].bg = UI_COLOR_DEFAULT;
		/* A bar or the cursor row showed by its background: keep it visible. */
		if (had_bg)
			t->style[i].attrs |= UI_ATTR_REVERSE;
	}
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t ui_theme_list(char **names, size_t cap, const char *const *dirs)
{
	size_t n = 0;

	for (size_t d = 0; dirs && dirs[d]; d++) {
		DIR *dir = opendir(dirs[d]);
		struct dirent *e;

		if (!dir)
			continue;
		while ((e = readdir(dir)) && n < cap) {
			size_t len = strlen(e->d_name);
			bool dup = false;

			if (len <= 6 || strcmp(e->d_name + len - 6, ".theme") || e->d_name[0] == '.')
				continue;
			for (size_t i = 0; i < n; i++)
				if (!strncmp(names[i], e->d_name, len - 6) && !names[i][len - 6])
					dup = true;
			if (!dup && (names[n] = strndup(e->d_name, len - 6)))
				n++;
		}
		closedir(dir);
	}
	qsort(names, n, sizeof(*names), cmp_names);
	return n;
}
