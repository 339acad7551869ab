/* Path rules for what a rollback may write, and what is agent state. */
#include "ac_git_paths.h"

#include <string.h>

/* Bytes of the HFS+ "ignorable" code point at s (which git strips when it
 * compares names on HFS+), or 0: U+200C..U+200F, U+202A..U+202E,
 * U+206A..U+206F, U+FEFF. */
static size_t hfs_ignorable(const unsigned char *s, size_t left)
{
	if (left >= 3 && s[0] == 0xe2 && s[1] == 0x80 && s[2] >= 0x8c && s[2] <= 0x8f)
		return 3;
	if (left >= 3 && s[0] == 0xe2 && s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae)
		return 3;
	if (left >= 3 && s[0] == 0xe2 && s[1] == 0x81 && s[2] >= 0xaa && s[2] <= 0xaf)
		return 3;
	if (left >= 3 && s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf)
		return 3;
	return 0;
}

/* name as the case-insensitive file systems git guards against see it:
 * HFS ignorables dropped, ASCII lowered, an NTFS stream (":...") cut off,
 * trailing dots and spaces dropped. Only the first cap-1 bytes are kept;
 * longer names never match the short names compared against. */
static void fold_name(char *out, size_t cap, const char *name, size_t len)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t n = 0, skip;

	for (size_t i = 0; i < len && n + 1 < cap;) {
		if ((skip = hfs_ignorable(s + i, len - i))) {
			i += skip;
			continue;
		}
		if (s[i] == ':')
			break;
		out[n++] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
		i++;
	}
	while (n > 0 && (out[n - 1] == '.' || out[n - 1] == ' '))
		n--;
	out[n] = '\0';
}

/* folded is the long name or one of NTFS's 8.3 aliases for it: short~N
 * (N a digit 1..9) or git's hashed alias hashed~N. */
static bool is_name_or_alias(const char *folded, const char *name, const char *shortname,
			     const char *hashed)
{
	size_t len;

	if (!strcmp(folded, name))
		return true;
	for (const char *stem = shortname; stem; stem = stem == shortname ? hashed : NULL) {
		len = strlen(stem);
		if (!strncmp(folded, stem, len) && folded[len] == '~' && folded[len + 1] >= '1' &&
		    folded[len + 1] <= '9' && folded[len + 2] == '\0')
			return true;
	}
	return false;
}

bool ac_git_name_is_dotgit(const char *name, size_t len)
{
	char folded[64];

	fold_name(folded, sizeof(folded), name, len);
	return is_name_or_alias(folded, ".git", "git", NULL);
}

/* The names git reads from the worktree whose contents must not come from
 * a link (fsck: gitmodulesSymlink and friends). */
static bool is_special_gitfile(const char *name, size_t len)
{
	static const char *const names[][3] = {
		{".gitmodules", "gitmod", "gi7eba"},
		{".gitattributes", "gitatt", "gi7d29"},
		{".gitignore", "gitign", "gi250a"},
		{".mailmap", "mailma", "maba30"},
	};
	char folded[64];

	fold_name(folded, sizeof(folded), name, len);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (is_name_or_alias(folded, names[i][0], names[i][1], names[i][2]))
			return true;
	return false;
}

static const char *name_problem(const char *name, size_t len)
{
	if (len == 0)
		return "an empty component (absolute path, '//' or trailing '/')";
	if (len == 1 && name[0] == '.')
		return "a '.' component";
	if (len == 2 && name[0] == '.' && name[1] == '.')
		return "a '..' component";
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c == '\\')
			return "a backslash (a folder separator on Windows)";
		if (c < 0x20 || c == 0x7f)
			return "a control character";
	}
	if (ac_git_name_is_dotgit(name, len))
		return "a name git reserves for its own folder (.git in some case or alias)";
	return NULL;
}

/* A link's target, read from the folder the link is in (depth names below
 * the working directory), must stay inside it and out of any .git. */
static const char *link_problem(size_t depth, const char *target, size_t len)
{
	size_t i = 0;

	if (len == 0 || memchr(target, '\0', len))
		return "a symbolic link with an empty target or a NUL byte in it";
	if (target[0] == '/')
		return "a symbolic link to an absolute path";
	while (i < len) {
		const char *name = target + i, *slash = memchr(name, '/', len - i);
		size_t n = slash ? (size_t)(slash - name) : len - i;

		if (n == 2 && name[0] == '.' && name[1] == '.') {
			if (depth == 0)
				return "a symbolic link that points outside the working directory";
			depth--;
		} else if (n > 0 && !(n == 1 && name[0] == '.')) {
			if (ac_git_name_is_dotgit(name, n))
				return "a symbolic link that points into a .git folder";
			depth++;
		}
		i += n + 1;
	}
	return NULL;
}

const char *ac_git_path_problem(const char *path, uint32_t mode, const char *link_target,
				size_t link_len)
{
	const char *p = path, *name = path, *why;
	size_t depth = 0;

	if (!path || !*path)
		return "an empty path";
	if (mode != 0 && mode != AC_GIT_MODE_BLOB && mode != AC_GIT_MODE_EXEC &&
	    mode != AC_GIT_MODE_LINK && mode != AC_GIT_MODE_GITLINK)
		return "a file mode git does not write";
	for (;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		if ((why = name_problem(name, (size_t)(p - name))))
			return why;
		if (*p == '\0')
			break;
		depth++;
		name = p + 1;
	}
	if (mode == AC_GIT_MODE_LINK) {
		if (is_special_gitfile(name, strlen(name)))
			return "a symbolic link in place of a file git reads (.gitmodules, "
			       ".gitattributes, .gitignore, .mailmap)";
		return link_problem(depth, link_target ? link_target : "", link_target ? link_len : 0);
	}
	return NULL;
}

bool ac_git_path_is_default_agent_state(const char *ws_path)
{
	size_t len = strlen(ws_path);

	if (!strncmp(ws_path, ".agent", 6) && (ws_path[6] == '\0' || ws_path[6] == '/'))
		return true;
	if (strchr(ws_path, '/') || strncmp(ws_path, "JOURNAL", 7))
		return false;
	/* logrotate's archives of a journal: JOURNAL.jsonl.1, .2.gz, -20250903
	 * (read by journal --all, so never rewound either). */
	for (const char *j = strstr(ws_path, ".jsonl"); j; j = strstr(j + 1, ".jsonl"))
		if (j[6] == '.' || j[6] == '-')
			return true;
	if (len >= 5 && !strcmp(ws_path + len - 5, ".lock"))
		len -= 5;
	return len >= 13 && !strncmp(ws_path + len - 6, ".jsonl", 6);
}
