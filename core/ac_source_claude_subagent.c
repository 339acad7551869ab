/* Claude Code sub-agents (the Task/Agent tool's workers) as children of
 * their session (ac_source.h: relation AC_SOURCE_SUBAGENT, parent_id).
 *
 * Where Claude Code writes them:
 *  - today: <project>/<session id>/subagents/agent-<agent id>.jsonl, with
 *    agent-<agent id>.meta.json beside it ({"agentType", "description",
 *    "toolUseId", and "parentAgentId" when another sub-agent started it:
 *    then that one is its parent});
 *  - before: <project>/agent-<agent id>.jsonl beside the session files.
 * Every entry of such a file is a sidechain ("isSidechain": true) whose
 * sessionId is the parent session's. The file's name without ".jsonl" is
 * the child's id ("agent-<agent id>"): unique, and what `session show`
 * takes. agent-acompact-* files are Claude Code's own context compaction,
 * not a worker anyone asked for: not listed (their usage still counts,
 * ac_usage_scan.c walks every file).
 *
 * This is not for a session's own file, whose sidechain entries (older
 * versions wrote them inline) stay left out (ac_source_claude.c). */
#include "ac_source_claude_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A meta file is a few hundred bytes; more is not one Claude Code wrote. */
#define META_MAX (64 * 1024)

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

bool ac_source_claude_is_subagent(const char *path)
{
	const char *base = base_of(path);
	size_t n = strlen(base);

	return n > 12 && !strncmp(base, "agent-", 6) && !strcmp(base + n - 6, ".jsonl");
}

bool ac_source_claude_is_compaction(const char *path)
{
	return !strncmp(base_of(path), "agent-acompact", 14);
}

/* The session id of .../<session id>/subagents/agent-x.jsonl (allocated),
 * NULL for another layout. */
static char *parent_from_path(const char *path)
{
	const char *base = base_of(path), *end, *start;

	if (base - path < 11 || strncmp(base - 11, "/subagents/", 11))
		return NULL;
	end = base - 11;
	for (start = end; start > path && start[-1] != '/'; start--)
		;
	return end > start ? strndup(start, (size_t)(end - start)) : NULL;
}

/* The meta file's JSON, NULL when there is none (or it is not one):
 * opened O_RDONLY without following a link, read up to META_MAX. */
static json_t *read_meta(const char *path)
{
	ac_buf meta = AC_BUF_INIT;
	char text[META_MAX];
	size_t len = 0;
	json_t *doc = NULL;
	struct stat st;
	int fd = -1;

	if (ac_buf_printf(&meta, "%.*s.meta.json", (int)(strlen(path) - 6), path) ||
	    ac_file_open_regular(&fd, AT_FDCWD, meta.data, O_RDONLY | O_NOFOLLOW, 0, meta.data) ||
	    fstat(fd, &st) != 0 || st.st_size > META_MAX)
		goto done;
	while (len < sizeof(text)) {
		ssize_t got = read(fd, text + len, sizeof(text) - len);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	doc = json_loadb(text, len, 0, NULL);
	if (!json_is_object(doc)) {
		json_decref(doc);
		doc = NULL;
	}
done:
	if (fd >= 0)
		close(fd);
	ac_buf_free(&meta);
	ac_error_clear(); /* no meta is no error: the title is then the prompt */
	return doc;
}

/* "Explore: Map the endpoints" from the meta's agentType and description
 * (either alone when the other is missing); NULL when neither is there. */
static char *title_of(const json_t *meta)
{
	const char *type = json_string_value(json_object_get(meta, "agentType"));
	const char *what = json_string_value(json_object_get(meta, "description"));
	ac_buf t = AC_BUF_INIT;

	if (type && *type)
		ac_buf_printf(&t, "%s", type);
	if (what && *what)
		ac_buf_printf(&t, "%s%s", t.len ? ": " : "", what);
	return t.data ? ac_buf_detach(&t) : NULL;
}

/* "agent-<parentAgentId>" when the meta names the sub-agent that started
 * this one (a nested dispatch) and that makes an id; NULL otherwise. */
static char *parent_agent_of(const json_t *meta)
{
	const char *agent = json_string_value(json_object_get(meta, "parentAgentId"));
	ac_buf id = AC_BUF_INIT;

	if (!agent || !*agent || ac_buf_printf(&id, "agent-%s", agent))
		goto none;
	if (ac_source_id_check(id.data) == 0)
		return ac_buf_detach(&id);
none:
	ac_error_clear();
	ac_buf_free(&id);
	return NULL;
}

int ac_source_claude_subagent_note(ac_source_session *s, const char *session_id)
{
	json_t *meta;

	s->relation = AC_SOURCE_SUBAGENT;
	if (s->parent_id)
		return 0;
	meta = read_meta(s->path);
	/* Started by another sub-agent: under it; else under the session. */
	if (!(s->parent_id = parent_agent_of(meta)))
		s->parent_id = parent_from_path(s->path);
	if (!s->parent_id && session_id && !(s->parent_id = strdup(session_id))) {
		json_decref(meta);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	if (s->parent_id && !s->title && meta)
		s->title = title_of(meta);
	json_decref(meta);
	return 0;
}

const ac_source_adapter *ac_source_claude_variant(const char *path)
{
	return ac_source_claude_is_subagent(path) ? &ac_source_claude_subagent : NULL;
}
