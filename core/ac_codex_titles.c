/* The names Codex gives its threads (ac_codex_titles.h). */
#include "ac_codex_titles.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* No entry is longer; a longer line is not one of Codex's. */
#define LINE_MAX_BYTES (64 * 1024)

typedef struct {
	json_t *names;
	ac_buf line;
	int rc;
} read_ctx;

static void take_line(read_ctx *c)
{
	json_t *e = json_loadb(c->line.data, c->line.len, 0, NULL);
	const char *id = json_string_value(json_object_get(e, "id"));
	const char *name = json_string_value(json_object_get(e, "thread_name"));

	while (name && (*name == ' ' || *name == '\t'))
		name++;
	if (id && name && *name && json_object_set_new(c->names, id, json_string(name)))
		c->rc = ac_error_set(AC_ENOMEM, "out of memory");
	json_decref(e);
}

static int take_block(const char *bytes, size_t len, void *ctx)
{
	read_ctx *c = ctx;
	const char *p = bytes, *end = bytes + len, *nl;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (c->line.len + (size_t)(nl - p) <= LINE_MAX_BYTES &&
		    ac_buf_append(&c->line, p, (size_t)(nl - p)) == 0 && c->line.len)
			take_line(c);
		ac_buf_clear(&c->line);
		if (c->rc)
			return c->rc;
		p = nl + 1;
	}
	if (c->line.len + (size_t)(end - p) > LINE_MAX_BYTES)
		return 0;
	return ac_buf_append(&c->line, p, (size_t)(end - p));
}

int ac_codex_titles_refresh(ac_codex_titles *t, const char *sessions_dir)
{
	const char *slash = strrchr(sessions_dir, '/');
	read_ctx c = {NULL, AC_BUF_INIT, 0};
	char *path = NULL;
	struct stat st;
	int rc = 0;

	if (!slash || strcmp(slash, "/sessions"))
		return 0;
	if (asprintf(&path, "%.*ssession_index.jsonl", (int)(slash - sessions_dir + 1),
		     sessions_dir) < 0)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		json_decref(t->names);
		t->names = NULL;
		t->size = 0;
		goto done;
	}
	if (t->names && (uint64_t)st.st_dev == t->dev && (uint64_t)st.st_ino == t->ino &&
	    (uint64_t)st.st_size == t->size &&
	    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec == t->mtime_ns)
		goto done;
	if (!(c.names = json_object())) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	/* A last line without its newline is still being written. */
	rc = ac_file_each_block(path, take_block, &c);
	if (rc && rc != AC_ENOMEM) {
		ac_error_clear(); /* unreadable: no names, the sessions still list */
		rc = 0;
	}
	if (rc)
		goto done;
	json_decref(t->names);
	t->names = c.names;
	c.names = NULL;
	t->dev = (uint64_t)st.st_dev;
	t->ino = (uint64_t)st.st_ino;
	t->size = (uint64_t)st.st_size;
	t->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
done:
	json_decref(c.names);
	ac_buf_free(&c.line);
	free(path);
	return rc;
}

const char *ac_codex_titles_get(const ac_codex_titles *t, const char *id)
{
	return t->names && id ? json_string_value(json_object_get(t->names, id)) : NULL;
}

void ac_codex_titles_free(ac_codex_titles *t)
{
	json_decref(t->names);
	t->names = NULL;
}
