/* Shared helpers for the unit tests. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include "ac_file.h"
#include "ac_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *tu_make_temp_dir(void)
{
	const char *base = getenv("TMPDIR");
	char *path = malloc(4096);

	assert_non_null(path);
	snprintf(path, 4096, "%s/agentctl-test-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(path))
		fail_msg("mkdtemp %s failed", path);
	return path;
}

/* Copies folder src into dst (which exists): folders and regular files,
 * which is all a committed fixture can hold. */
static void copy_tree(const char *src, const char *dst)
{
	DIR *dir = opendir(src);
	struct dirent *e;

	if (!dir)
		fail_msg("cannot open fixture folder %s: %s", src, strerror(errno));
	while ((e = readdir(dir))) {
		char *from, *to;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		from = tu_path(src, e->d_name);
		to = tu_path(dst, e->d_name);
		if (lstat(from, &st) != 0)
			fail_msg("lstat %s: %s", from, strerror(errno));
		if (S_ISDIR(st.st_mode)) {
			if (mkdir(to, 0755) != 0)
				fail_msg("mkdir %s: %s", to, strerror(errno));
			copy_tree(from, to);
		} else if (S_ISREG(st.st_mode)) {
			size_t len;
			char *data = tu_read_file(from, &len);

			tu_write_file(to, data, len);
			free(data);
		} else {
			fail_msg("%s: a fixture holds only folders and regular files", from);
		}
		free(from);
		free(to);
	}
	closedir(dir);
}

char *tu_copy_fixture(const char *name)
{
	char *src = tu_path(AC_FIXTURES, name), *dst = tu_make_temp_dir();

	copy_tree(src, dst);
	free(src);
	return dst;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void tu_remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

char *tu_path(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *path = malloc(len);

	assert_non_null(path);
	snprintf(path, len, "%s/%s", dir, name);
	return path;
}

static void write_with_flags(const char *path, const char *bytes, size_t len, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | flags, 0644);

	if (fd < 0)
		fail_msg("open %s failed", path);
	assert_int_equal(write(fd, bytes, len), (ssize_t)len);
	close(fd);
}

void tu_write_file(const char *path, const char *bytes, size_t len)
{
	write_with_flags(path, bytes, len, O_TRUNC);
}

void tu_append_file(const char *path, const char *bytes, size_t len)
{
	write_with_flags(path, bytes, len, O_APPEND);
}

char *tu_read_file(const char *path, size_t *out_len)
{
	struct stat st;
	char *data;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) != 0)
		fail_msg("cannot read %s", path);
	data = malloc((size_t)st.st_size + 1);
	assert_non_null(data);
	assert_int_equal(read(fd, data, (size_t)st.st_size), st.st_size);
	data[st.st_size] = '\0';
	close(fd);
	if (out_len)
		*out_len = (size_t)st.st_size;
	return data;
}

size_t tu_count_lines(const char *path)
{
	size_t len, lines = 0;
	char *data = tu_read_file(path, &len);

	for (size_t i = 0; i < len; i++)
		lines += data[i] == '\n';
	free(data);
	return lines;
}

const char *tu_event_line(const char *agent, const char *message)
{
	static char line[8192];
	static unsigned counter;

	counter++;
	snprintf(line, sizeof(line),
		 "{\"id\":\"evt_20250903142510_%08x\",\"timestamp\":\"2025-09-03T14:25:10.%03uZ\","
		 "\"agent\":\"%s\",\"status\":\"SUCCESS\",\"action\":{\"type\":\"FILE_EDIT\","
		 "\"params\":{\"path\":\"src/a.c\"}},\"result\":{\"message\":\"%s\"}}",
		 counter, counter % 1000, agent, message);
	return line;
}

void tu_put(const char *dir, const char *rel, const char *text)
{
	char *path = tu_path(dir, rel), *slash = strrchr(path, '/');

	*slash = '\0';
	assert_int_equal(ac_file_mkdirs(path), 0);
	*slash = '/';
	tu_write_file(path, text, strlen(text));
	free(path);
}

bool tu_exists(const char *dir, const char *rel)
{
	char *path = tu_path(dir, rel);
	struct stat st;
	bool found = lstat(path, &st) == 0;

	free(path);
	return found;
}

void tu_assert_file(const char *dir, const char *rel, const char *expected)
{
	char *path = tu_path(dir, rel), *text = tu_read_file(path, NULL);

	assert_string_equal(text, expected);
	free(text);
	free(path);
}

json_t *tu_seed_load(const char *dir, const char *id)
{
	char name[512], *path;
	json_t *root;

	snprintf(name, sizeof(name), "%s.json", id);
	path = tu_path(dir, name);
	root = json_load_file(path, 0, NULL);
	free(path);
	return root;
}

void tu_seed_save(const char *dir, const char *id, json_t *session)
{
	char name[512], *path, *tmp, *text;

	snprintf(name, sizeof(name), "%s.json", id);
	path = tu_path(dir, name);
	snprintf(name, sizeof(name), "%s.json.tmp", id);
	tmp = tu_path(dir, name);
	json_object_set_new(session, "updatedAt", json_string("2026-01-01T00:00:00.000Z"));
	text = json_dumps(session, JSON_INDENT(2));
	if (!text)
		fail_msg("cannot serialise a session");
	tu_write_file(tmp, text, strlen(text));
	if (rename(tmp, path) != 0)
		fail_msg("rename %s: %s", tmp, strerror(errno));
	free(text);
	free(tmp);
	free(path);
}

void tu_add_turn(json_t *session, const char *text)
{
	json_array_append_new(json_object_get(session, "conversationHistory"),
			      json_pack("{s:s, s:s}", "role", "assistant", "content", text));
}

bool tu_has_message(const json_t *messages, const char *text)
{
	size_t i;
	json_t *msg;

	json_array_foreach(messages, i, msg)
		if (json_is_string(json_object_get(msg, "content")) &&
		    !strcmp(json_string_value(json_object_get(msg, "content")), text))
			return true;
	return false;
}

long tu_inotify_queue_limit(void)
{
	FILE *file = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
	long limit = 0;

	if (file && fscanf(file, "%ld", &limit) != 1)
		limit = 0;
	if (file)
		fclose(file);
	return limit;
}

void tu_sources_open(tu_sources *t, const char *fixture_home, const char *workspace)
{
	memset(t, 0, sizeof(*t));
	t->home = tu_copy_fixture(fixture_home);
	t->opts = (ac_source_options)AC_SOURCE_OPTIONS_INIT;
	t->opts.workspace = strdup(workspace);
	t->opts.limits = (ac_state_thresholds)AC_STATE_THRESHOLDS_DEFAULT;
	assert_non_null(t->opts.workspace);
}

void tu_sources_dir(tu_sources *t, ac_source_kind kind, const char *rel)
{
	free(t->opts.dir[kind]);
	t->opts.dir[kind] = tu_path(t->home, rel + (rel[0] == '/'));
}

ac_source_session *tu_sources_find(tu_sources *t, const char *id)
{
	if (!t->index)
		assert_int_equal(ac_source_index_new(&t->index, &t->opts), 0);
	assert_int_equal(ac_source_index_refresh(t->index, NULL), 0);
	return ac_source_index_find(t->index, id);
}

void tu_sources_close(tu_sources *t)
{
	ac_source_index_free(t->index);
	ac_source_options_free(&t->opts);
	tu_remove_tree(t->home);
	free(t->home);
	memset(t, 0, sizeof(*t));
}

/* ---- folder fsyncs ------------------------------------------------------ */

static ino_t synced[256];
static int nsynced;
static ac_fs recording_table;

static int record_fsync(void *ctx, int fd)
{
	struct stat st;

	if (ac_fs_real()->fstat(ctx, fd, &st) == 0 && nsynced < 256)
		synced[nsynced++] = st.st_ino;
	return ac_fs_real()->fsync(ctx, fd);
}

void tu_fsync_record(void)
{
	recording_table = *ac_fs_real();
	recording_table.fsync = record_fsync;
	nsynced = 0;
	assert_int_equal(ac_fs_use(&recording_table), 0);
}

void tu_fsync_restore(void)
{
	assert_int_equal(ac_fs_use(NULL), 0);
}

bool tu_fsync_was_synced(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return false;
	for (int i = 0; i < nsynced; i++)
		if (synced[i] == st.st_ino)
			return true;
	return false;
}
