/* Session documents: load, change with re-apply on conflict, save. */
#include "ac_session.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_uuid.h"
#include "ac_file.h"
#include "ac_fs_calls.h"
#include "ac_json_exact.h"
#include "ac_json_scan.h"
#include "ac_lock.h"
#include "ac_messages.h"
#include "ac_session_writes.h"
#include "ac_struct_version.h"
#include "ac_time.h"
#include "ac_tokens.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define UPDATE_ATTEMPTS 8
/* A created file this small is read back to check it is still ours. */
#define CREATED_READ_BACK_MAX (1u << 20)

struct ac_session {
	json_t *root;
	json_t *no_messages; /* returned when the document has no history */
	char *raw;      /* the bytes the document was parsed from */
	size_t raw_len;
	ac_file_id file; /* the file they came from (ac_session_save compares) */
	bool from_file;
};

int ac_session_id_check(const char *id)
{
	size_t len;

	if (!id || !*id)
		return ac_error_set(AC_EINVAL, "session id: empty");
	len = strnlen(id, AC_SESSION_ID_MAX + 1);
	/* The file's temporary name must fit NAME_MAX too, so accept only
	 * what can be written, not only what can be named. */
	if (len > AC_SESSION_ID_MAX)
		return ac_error_set(AC_EINVAL,
				    "session id: longer than %d bytes (the longest whose file can "
				    "be written)", AC_SESSION_ID_MAX);
	if (id[0] == '.')
		return ac_error_set(AC_EINVAL, "session id '%.64s': must not start with '.'", id);
	/* Control bytes are allowed: another writer may name a session so,
	 * and the operator must still be able to pause it. An id is kept as
	 * its bytes and only shown escaped (ac_text_sanitize): every message
	 * that quotes one is sanitised where it is printed. */
	if (memchr(id, '/', len))
		return ac_error_set(AC_EINVAL, "session id '%.64s': must not hold '/'", id);
	return 0;
}

int ac_session_path(char **out, const char *dir, const char *id)
{
	ac_buf path = AC_BUF_INIT;
	int rc;

	if ((rc = ac_session_id_check(id)))
		return rc;
	if (ac_buf_printf(&path, "%s/%s.json", dir, id))
		return AC_ENOMEM;
	*out = ac_buf_detach(&path);
	return 0;
}

static int parse_document(json_t **out, const char *path, const char *raw, size_t len)
{
	json_t *root = NULL, *history, *status;
	int rc;

	/* What JSON.parse reads loads: \u0000 in strings, 1e999; such values
	 * are written back as they were (see ac_json_exact.h). */
	if ((rc = ac_json_exact_load(&root, raw, len, 0, path)))
		return rc;
	if (!json_is_object(root)) {
		json_decref(root);
		return ac_error_set(AC_ECORRUPT, "%s: not a JSON object", path);
	}
	history = json_object_get(root, "conversationHistory");
	status = json_object_get(root, "status");
	if (history && !json_is_array(history)) {
		json_decref(root);
		return ac_error_set(AC_ECORRUPT, "%s: conversationHistory is not an array", path);
	}
	if (status && !json_is_string(status)) {
		json_decref(root);
		return ac_error_set(AC_ECORRUPT, "%s: status is not a string", path);
	}
	*out = root;
	return 0;
}

static int read_identified(char **out, size_t *out_len, ac_file_id *out_id, const char *path);

static int load_path(ac_session **out, const char *path)
{
	ac_session *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = read_identified(&s->raw, &s->raw_len, &s->file, path)) ||
	    (rc = parse_document(&s->root, path, s->raw, s->raw_len))) {
		ac_session_free(s);
		return rc;
	}
	s->from_file = true;
	*out = s;
	return 0;
}

int ac_session_load(ac_session **out, const char *dir, const char *id)
{
	char *path = NULL;
	int rc;

	if ((rc = ac_session_path(&path, dir, id)))
		return rc;
	rc = load_path(out, path);
	if (rc == AC_ENOTFOUND)
		ac_error_set(AC_ENOTFOUND, "session '%s' not found in %s", id, dir);
	free(path);
	return rc;
}

int ac_session_load_text(ac_session **out, const char *dir, const char *id)
{
	ac_session *s = NULL;
	char *path = NULL;
	int rc;

	if ((rc = ac_session_path(&path, dir, id)))
		return rc;
	if (!(s = calloc(1, sizeof(*s)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = read_identified(&s->raw, &s->raw_len, &s->file, path))) {
		if (rc == AC_ENOTFOUND)
			ac_error_set(AC_ENOTFOUND, "session '%s' not found in %s", id, dir);
		goto done;
	}
	s->from_file = true;
	*out = s;
	s = NULL;
done:
	ac_session_free(s);
	free(path);
	return rc;
}

const char *ac_session_text(const ac_session *s, size_t *out_len)
{
	*out_len = s->raw_len;
	return s->raw;
}

void ac_session_free(ac_session *s)
{
	if (!s)
		return;
	json_decref(s->root);
	json_decref(s->no_messages);
	free(s->raw);
	free(s);
}

json_t *ac_session_root(const ac_session *s)
{
	return s->root;
}

static const char *string_field(const ac_session *s, const char *key)
{
	const char *value = json_string_value(json_object_get(s->root, key));

	return value ? value : "";
}

const char *ac_session_id(const ac_session *s)
{
	return string_field(s, "id");
}

const char *ac_session_status(const ac_session *s)
{
	return string_field(s, "status");
}

const char *ac_session_task(const ac_session *s)
{
	return string_field(s, "task");
}

json_t *ac_session_messages(const ac_session *s)
{
	json_t *history = json_object_get(s->root, "conversationHistory");

	if (history)
		return history;
	/* Reading must not add the key to the document. */
	if (!s->no_messages)
		((ac_session *)s)->no_messages = json_array();
	return s->no_messages;
}

uint64_t ac_session_tokens(const ac_session *s, size_t first)
{
	static const char key[] = "conversationHistory";
	const ac_json_path path = {{key}, {sizeof(key) - 1}, 1};
	const json_t *messages = ac_session_messages(s);
	ac_json_span span;
	uint64_t tokens = 0;

	if (s->raw && ac_json_scan(&span, s->raw, s->raw_len, &path, 1, NULL) == 0 &&
	    span.type == AC_JSON_ARRAY)
		return ac_tokens_history_prefix_json(span.start, span.len, first);
	/* Text the scanner refuses (nesting past its limit) jansson may
	 * still have read: measure the document. */
	ac_error_clear();
	for (size_t i = 0; i < first && i < json_array_size(messages); i++)
		tokens += ac_message_tokens(json_array_get(messages, i));
	return tokens;
}

void ac_session_release_text(ac_session *s)
{
	free(s->raw);
	s->raw = NULL;
	s->raw_len = 0;
}

/* The reference writer's layout: JSON.stringify(session, null, 2). */
static char *serialise(const json_t *root, size_t *out_len)
{
	return ac_json_exact_dumps(root, JSON_INDENT(2), out_len);
}

static void stamp_updated(json_t *root)
{
	char now[AC_TIME_ISO_LEN + 1];

	ac_time_format_iso(now, ac_time_now_ms());
	json_object_set_new(root, "updatedAt", json_string(now));
}

/* Reads path with the identity of the file the bytes came from: looked up
 * before and after the read, again when the two differ. */
static int read_identified(char **out, size_t *out_len, ac_file_id *out_id, const char *path)
{
	for (int attempt = 0;; attempt++) {
		ac_file_id after;
		int rc;

		if ((rc = ac_file_id_of(out_id, path)))
			return rc;
		if ((rc = ac_file_read(out, out_len, path)))
			return rc;
		if ((rc = ac_file_id_of(&after, path)) && rc != AC_ENOTFOUND) {
			free(*out);
			return rc;
		}
		if (rc == 0 && ac_file_id_equal(out_id, &after))
			return 0;
		free(*out);
		*out = NULL;
		if (attempt == 100)
			return ac_error_set(AC_ECONFLICT, "%s: replaced faster than it can be read", path);
	}
}

static int64_t mtime_ms(const ac_file_id *id)
{
	return id->mtime_ns / 1000000;
}

/* ac_session_idle_ms(), or with others_only, ac_session_foreign_idle_ms(). */
static int idle_since(int64_t *out, const char *dir, const char *id, bool others_only)
{
	char *path = NULL;
	ac_file_id fid;
	int rc;

	if ((rc = ac_session_path(&path, dir, id)))
		return rc;
	if ((rc = ac_file_id_of(&fid, path)) == 0)
		*out = ac_time_now_ms() - (others_only ? ac_session_foreign_write_ms(dir, id, &fid)
						       : mtime_ms(&fid));
	free(path);
	return rc;
}

int ac_session_idle_ms(int64_t *out, const char *dir, const char *id)
{
	return idle_since(out, dir, id, false);
}

int ac_session_foreign_idle_ms(int64_t *out, const char *dir, const char *id)
{
	return idle_since(out, dir, id, true);
}

/* Waits until no other writer than agentctl has written path for
 * quiet_ms, at most wait_ms: agentctl's own writes take the folder lock
 * and compare-and-swap, so a file still exactly as agentctl last wrote it
 * is quiet since the last write before that one (ac_session_writes.h). */
static int wait_quiet(const char *path, const char *dir, const char *id, int quiet_ms,
		      int wait_ms)
{
	int64_t start = ac_time_now_ms();

	for (;;) {
		ac_file_id fid;
		int64_t now = ac_time_now_ms(), idle;
		int rc;

		if ((rc = ac_file_id_of(&fid, path)))
			return rc;
		idle = now - ac_session_foreign_write_ms(dir, id, &fid);
		/* A time over a minute ahead is another clock (a shared file
		 * system), not a write in progress. */
		if (idle >= quiet_ms || idle < -60000)
			return 0;
		if (now - start >= wait_ms)
			return ac_error_set(AC_EBUSY, "session '%s' is being written by its agent (last "
					    "write %lld ms ago, waited %d ms for %d quiet ms)", id,
					    (long long)(idle < 0 ? 0 : idle), wait_ms, quiet_ms);
		{
			int64_t nap = quiet_ms - idle;

			if (nap > 50)
				nap = 50;
			if (nap < 1)
				nap = 1;
			ac_fs_nanosleep(&(struct timespec){nap / 1000, (long)(nap % 1000) * 1000000});
		}
	}
}

/* *out: loaded when the file at path is still the one it was read from,
 * else NULL (loaded freed). */
static ac_session *still_current(ac_session *loaded, const char *path)
{
	ac_file_id now;

	if (loaded && loaded->from_file && ac_file_id_of(&now, path) == 0 &&
	    ac_file_id_equal(&now, &loaded->file))
		return loaded;
	ac_session_free(loaded);
	return NULL;
}

/* True when the file at path is still the one loaded was read from. */
static bool is_current(const ac_session *loaded, const char *path)
{
	ac_file_id now;

	return loaded->from_file && ac_file_id_of(&now, path) == 0 &&
	       ac_file_id_equal(&now, &loaded->file);
}

/* The new document made from text_loaded's text, while the file is still
 * that one: *out_data and *out_len receive it. */
static int change_text(char **out_data, size_t *out_len, const ac_session *text_loaded,
		       ac_session_text_change_fn text_change, void *ctx)
{
	char now[AC_TIME_ISO_LEN + 1];
	ac_buf text = AC_BUF_INIT;
	int rc;

	ac_time_format_iso(now, ac_time_now_ms());
	if ((rc = text_change(&text, text_loaded->raw, text_loaded->raw_len, now, ctx)) == 0 &&
	    !text.data)
		rc = ac_error_set(AC_EINVAL, "a change to the session's text made no document");
	if (rc) {
		ac_buf_free(&text);
		return rc;
	}
	*out_len = text.len;
	*out_data = ac_buf_detach(&text);
	return 0;
}

int ac_session_write_options_check(const ac_session_write_options *opts)
{
	if (!opts)
		return 0;
	return ac_struct_version_check("ac_session_write_options", opts->version,
				       AC_SESSION_WRITE_OPTIONS_VERSION,
				       "AC_SESSION_WRITE_OPTIONS_INIT");
}

/* ac_session_update_from() and ac_session_update_text_from() in one loop:
 * loaded is taken over, text_loaded borrowed (either may be NULL). */
static int update(ac_session **out, ac_session *loaded, const ac_session *text_loaded,
		  const char *dir, const char *id, ac_session_text_change_fn text_change,
		  ac_session_change_fn change, void *ctx, const ac_session_write_options *opts)
{
	char *path = NULL, *data = NULL;
	size_t len = 0;
	ac_session *s = NULL;
	ac_file_id written;
	int rc, guard = -1;

	if (out)
		*out = NULL;
	if ((rc = ac_session_write_options_check(opts))) {
		ac_session_free(loaded);
		return rc;
	}
	if (opts && opts->published)
		*opts->published = false;
	if ((rc = ac_session_path(&path, dir, id))) {
		ac_session_free(loaded);
		return rc;
	}
	/* agentctl processes take turns; writers that take no lock are
	 * caught by the compare-and-swap below. */
	if ((rc = ac_lock_folder(&guard, path, 10000)))
		goto done;
	for (int attempt = 0;; attempt++) {
		bool published = false;
		ac_file_id expected;

		if (opts && opts->quiet_ms > 0 &&
		    (rc = wait_quiet(path, dir, id, opts->quiet_ms, opts->wait_ms)))
			break;
		ac_session_free(s);
		s = NULL;
		free(data);
		data = NULL;
		if (attempt == 0 && text_loaded && is_current(text_loaded, path)) {
			/* The file is as loaded: the change is made on its text. */
			if ((rc = change_text(&data, &len, text_loaded, text_change, ctx)))
				break;
			expected = text_loaded->file;
		} else {
			/* The first round may start from the document loaded. */
			s = still_current(loaded, path);
			loaded = NULL;
			if (!s) {
				if (!(s = calloc(1, sizeof(*s)))) {
					rc = ac_error_set(AC_ENOMEM, "out of memory");
					break;
				}
				if ((rc = read_identified(&s->raw, &s->raw_len, &s->file, path)) ||
				    (rc = parse_document(&s->root, path, s->raw, s->raw_len)))
					break;
				s->from_file = true;
			}
			if ((rc = change(s->root, ctx)))
				break;
			/* The text read no longer holds the document: drop it
			 * before the new one is built (a large session is in
			 * memory as text once, not twice). */
			ac_session_release_text(s);
			stamp_updated(s->root);
			if (!(data = serialise(s->root, &len))) {
				rc = ac_error_set(AC_ENOMEM, "out of memory");
				break;
			}
			expected = s->file;
		}
		written = expected;
		rc = ac_atomic_swap_if(&published, &written, path, &expected, data, len);
		if (published && opts && opts->published)
			*opts->published = true;
		if (rc == 0)
			ac_session_note_own_write(dir, id, &expected, &written);
		if (rc == AC_ENOTSUP)
			rc = ac_atomic_write(path, data, len, NULL, NULL);
		if (rc != AC_ECONFLICT)
			break;
		if (attempt == UPDATE_ATTEMPTS) {
			rc = ac_error_set(AC_ECONFLICT, "%s: another writer kept changing it; gave up "
					  "after %d attempts, leaving its version", path,
					  UPDATE_ATTEMPTS);
			break;
		}
	}
	if (rc == AC_SESSION_UNCHANGED) {
		rc = 0;
	} else if (rc == 0 && s) {
		s->file = written;
		free(s->raw);
		s->raw = data;
		s->raw_len = len;
		data = NULL;
	}
	if (rc == AC_ENOTFOUND)
		ac_error_set(AC_ENOTFOUND, "session '%s' not found in %s", id, dir);
	if (rc == 0 && out) {
		*out = s;
		s = NULL;
	}
done:
	if (guard >= 0)
		ac_fs_close(guard);
	ac_session_free(loaded);
	ac_session_free(s);
	free(data);
	free(path);
	return rc;
}

int ac_session_update_from(ac_session **out, ac_session *loaded, const char *dir,
			   const char *id, ac_session_change_fn change, void *ctx,
			   const ac_session_write_options *opts)
{
	return update(out, loaded, NULL, dir, id, NULL, change, ctx, opts);
}

int ac_session_update_text_from(ac_session **out, const ac_session *text_loaded,
				const char *dir, const char *id,
				ac_session_text_change_fn text_change, ac_session_change_fn change,
				void *ctx, const ac_session_write_options *opts)
{
	return update(out, NULL, text_loaded, dir, id, text_change, change, ctx, opts);
}

int ac_session_update_with(ac_session **out, const char *dir, const char *id,
			   ac_session_change_fn change, void *ctx,
			   const ac_session_write_options *opts)
{
	return ac_session_update_from(out, NULL, dir, id, change, ctx, opts);
}

int ac_session_update(ac_session **out, const char *dir, const char *id,
		      ac_session_change_fn change, void *ctx)
{
	return ac_session_update_with(out, dir, id, change, ctx, NULL);
}


int ac_session_create_document(ac_session **out, const char *dir, json_t *root)
{
	const char *id = json_string_value(json_object_get(root, "id"));
	char *path = NULL;
	ac_session *s = NULL;
	char *displaced = NULL;
	size_t displaced_len;
	struct stat st;
	int rc, guard = -1;

	if (!id)
		return ac_error_set(AC_EINVAL, "a new session needs a string id");
	if ((rc = ac_session_path(&path, dir, id)) || (rc = ac_file_mkdirs(dir)))
		goto done;
	if (ac_fs_lstat(path, &st) == 0) {
		rc = ac_error_set(AC_EINVAL, "session '%s' exists already", id);
		goto done;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	s->root = json_incref(root);
	if (!(s->raw = serialise(s->root, &s->raw_len))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory (or a text that is not UTF-8)");
		goto done;
	}
	/* Never replaces a session another process created meanwhile. */
	rc = ac_atomic_swap(&displaced, &displaced_len, path, s->raw, s->raw_len, true);
	if (rc == AC_ENOTSUP)
		rc = ac_atomic_write(path, s->raw, s->raw_len, NULL, NULL);
	if (rc == AC_ECONFLICT)
		rc = ac_error_set(AC_EINVAL, "session '%s' exists already", id);
	if (rc)
		goto done;
	s->from_file = ac_file_id_of(&s->file, path) == 0;
	/* Only agentctl wrote it: an action right after need not wait for
	 * quiet (ac_session_writes.h). Recorded only when the file is still
	 * ours, by its bytes (a small new file; a large fork is not read back),
	 * under the folder lock, as the record's other writers. */
	if (s->from_file && s->raw_len <= CREATED_READ_BACK_MAX &&
	    ac_lock_folder(&guard, path, 10000) == 0) {
		char *back = NULL;
		size_t back_len = 0;
		ac_file_id back_id;

		if (read_identified(&back, &back_len, &back_id, path) == 0 &&
		    back_len == s->raw_len && !memcmp(back, s->raw, back_len))
			ac_session_note_own_write(dir, id, NULL, &back_id);
		free(back);
	}
	ac_error_clear();
	if (out) {
		*out = s;
		s = NULL;
	}
done:
	if (guard >= 0)
		ac_fs_close(guard);
	ac_session_free(s);
	free(displaced);
	free(path);
	return rc;
}

int ac_session_create(ac_session **out, const char *dir, const char *id,
		      const char *task, const char *tenant, const char *user,
		      const char *agent)
{
	char uuid[37], now[AC_TIME_ISO_LEN + 1];
	json_t *metadata, *root;
	int rc;

	if (!id) {
		ac_uuid_v4(uuid);
		id = uuid;
	}
	if ((rc = ac_session_id_check(id)))
		return rc;
	ac_time_format_iso(now, ac_time_now_ms());
	metadata = json_object();
	if (tenant)
		json_object_set_new(metadata, "tenantId", json_string(tenant));
	if (user)
		json_object_set_new(metadata, "userId", json_string(user));
	if (agent)
		json_object_set_new(metadata, "agentId", json_string(agent));
	root = json_pack("{s:s, s:s, s:s, s:s, s:s, s:[], s:o}", "id", id, "createdAt", now,
			 "updatedAt", now, "task", task ? task : "", "status", "running",
			 "conversationHistory", "metadata", metadata);
	if (!root)
		return ac_error_set(AC_ENOMEM, "out of memory (or a task that is not UTF-8)");
	rc = ac_session_create_document(out, dir, root);
	json_decref(root);
	return rc;
}

int ac_session_get_or_create(ac_session **out, const char *dir, const char *tenant,
			     const char *user, const char *agent, const char *session_id)
{
	ac_session *s = NULL;
	int rc;

	if (session_id) {
		rc = ac_session_load(&s, dir, session_id);
		if (rc == 0) {
			const char *owner = json_string_value(
				json_object_get(json_object_get(s->root, "metadata"), "tenantId"));

			if (tenant && (!owner || strcmp(owner, tenant) != 0)) {
				ac_session_free(s);
				return ac_error_set(AC_ENOTFOUND, "session '%s' not found for tenant '%s'",
						    session_id, tenant);
			}
			*out = s;
			return 0;
		}
		if (rc != AC_ENOTFOUND)
			return rc;
	}
	return ac_session_create(out, dir, session_id, "", tenant, user, agent);
}

bool ac_session_status_change_allowed(const char *from, const char *to)
{
	bool live = !strcmp(from, "running") || !strcmp(from, "paused");

	if (!strcmp(to, "paused"))
		return !strcmp(from, "running");
	if (!strcmp(to, "running"))
		return !strcmp(from, "paused");
	if (!strcmp(to, "completed") || !strcmp(to, "failed"))
		return live;
	return false;
}

typedef struct {
	const char *to;
	int calls;
} status_change;

static int change_status(json_t *root, void *ctx)
{
	status_change *c = ctx;
	const char *to = c->to;
	const char *from = json_string_value(json_object_get(root, "status"));

	if (!from)
		from = "";
	if (strcmp(to, "running") && strcmp(to, "paused") && strcmp(to, "completed") &&
	    strcmp(to, "failed"))
		return ac_error_set(AC_EINVAL, "'%s' is not a status (running, paused, completed, failed)", to);
	/* On a retry the file may hold our change already: a reader took up
	 * the version we had put there for a moment and saved it again. */
	if (!strcmp(from, to))
		return c->calls++ ? AC_SESSION_UNCHANGED
				  : ac_error_set(AC_EINVAL, "the session is %s already", to);
	c->calls++;
	if (!ac_session_status_change_allowed(from, to))
		return ac_error_set(AC_EINVAL, "a %s session cannot become %s%s", *from ? from : "status-less",
				    to, !strcmp(from, "completed") || !strcmp(from, "failed")
					? " (it has ended)" : "");
	json_object_set_new(root, "status", json_string(to));
	return 0;
}

int ac_session_set_status_with(ac_session **out, const char *dir, const char *id,
			       const char *status, const ac_session_write_options *opts)
{
	status_change c = {status, 0};
	int rc = ac_session_update_with(out, dir, id, change_status, &c, opts);

	if (rc == AC_EINVAL)
		ac_error_set(AC_EINVAL, "session '%s': %s", id, ac_error_last());
	return rc;
}

int ac_session_set_status(ac_session **out, const char *dir, const char *id,
			  const char *status)
{
	return ac_session_set_status_with(out, dir, id, status, NULL);
}

int ac_session_history_append(json_t *root, const json_t *messages)
{
	json_t *history = json_object_get(root, "conversationHistory"), *msg;
	size_t i;

	if (history && !json_is_array(history))
		return ac_error_set(AC_ECORRUPT, "conversationHistory is not an array");
	if (!history && json_object_set_new(root, "conversationHistory", history = json_array()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	json_array_foreach(messages, i, msg)
		if (json_array_append_new(history, json_deep_copy(msg)))
			return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

static int append_messages(json_t *root, void *ctx)
{
	return ac_session_history_append(root, ctx);
}

int ac_session_append_messages(ac_session **out, const char *dir, const char *id,
			       const json_t *messages)
{
	if (!json_is_array(messages))
		return ac_error_set(AC_EINVAL, "messages: must be an array");
	return ac_session_update(out, dir, id, append_messages, (void *)messages);
}

typedef struct {
	uint64_t input, output;
	const json_t *messages; /* record_turn: appended first, may be NULL */
} usage_delta;

/* usage[key] += delta, refusing a count that is not a whole number or a
 * sum past AC_SESSION_COUNT_MAX (what JavaScript readers hold exactly). */
static int add_count(json_t *usage, const char *key, uint64_t delta)
{
	json_t *now = json_object_get(usage, key);
	json_int_t have = 0;

	if (now && !(json_is_integer(now) && json_integer_value(now) >= 0))
		return ac_error_set(AC_ECORRUPT, "metadata.usage.%s is not a whole number; usage "
				    "not recorded", key);
	if (now)
		have = json_integer_value(now);
	if (delta > AC_SESSION_COUNT_MAX || (uint64_t)have > AC_SESSION_COUNT_MAX - delta)
		return ac_error_set(AC_EINVAL, "metadata.usage.%s would pass %llu; usage not "
				    "recorded", key, (unsigned long long)AC_SESSION_COUNT_MAX);
	if (json_object_set_new(usage, key, json_integer(have + (json_int_t)delta)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

static int add_usage(json_t *root, void *ctx)
{
	const usage_delta *d = ctx;
	json_t *metadata = json_object_get(root, "metadata"), *usage;
	int rc;

	if (metadata && !json_is_object(metadata))
		return ac_error_set(AC_ECORRUPT, "metadata is not an object; usage not recorded");
	usage = json_object_get(metadata, "usage");
	if (usage && !json_is_object(usage))
		return ac_error_set(AC_ECORRUPT, "metadata.usage is not an object; usage not recorded");
	/* Everything is checked before anything changes: a refusal leaves
	 * the document as it was read. */
	{
		json_t *probe = usage ? json_deep_copy(usage) : json_object();

		if (!probe)
			return ac_error_set(AC_ENOMEM, "out of memory");
		if ((rc = add_count(probe, "inputTokens", d->input)) ||
		    (rc = add_count(probe, "outputTokens", d->output)) ||
		    (rc = add_count(probe, "turns", 1))) {
			json_decref(probe);
			return rc;
		}
		if (d->messages && (rc = append_messages(root, (void *)d->messages))) {
			json_decref(probe);
			return rc;
		}
		if (!(metadata = json_object_get(root, "metadata"))) {
			metadata = json_object();
			if (json_object_set_new(root, "metadata", metadata)) {
				json_decref(probe);
				return ac_error_set(AC_ENOMEM, "out of memory");
			}
		}
		if (json_object_set_new(metadata, "usage", probe))
			return ac_error_set(AC_ENOMEM, "out of memory");
	}
	return 0;
}

int ac_session_record_usage(ac_session **out, const char *dir, const char *id,
			    uint64_t input_tokens, uint64_t output_tokens)
{
	usage_delta d = {input_tokens, output_tokens, NULL};

	return ac_session_update(out, dir, id, add_usage, &d);
}

int ac_session_record_turn(ac_session **out, const char *dir, const char *id,
			   const json_t *messages, uint64_t input_tokens, uint64_t output_tokens)
{
	usage_delta d = {input_tokens, output_tokens, messages};

	if (messages && !json_is_array(messages))
		return ac_error_set(AC_EINVAL, "messages: must be an array");
	return ac_session_update(out, dir, id, add_usage, &d);
}

int ac_session_save(const char *dir, ac_session *s)
{
	char *path = NULL, *data;
	size_t len;
	int rc;

	if ((rc = ac_session_path(&path, dir, ac_session_id(s))))
		return rc;
	stamp_updated(s->root);
	if (!(data = serialise(s->root, &len))) {
		free(path);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	if (s->from_file) {
		rc = ac_atomic_swap_if(NULL, &s->file, path, &s->file, data, len);
		if (rc == AC_ECONFLICT)
			rc = ac_error_set(AC_ECONFLICT, "%s: changed by another writer since it was "
					  "loaded; reload and try again", path);
	} else {
		char *displaced = NULL;
		size_t displaced_len;

		/* Created in memory: only a file that does not exist yet. */
		rc = ac_atomic_swap(&displaced, &displaced_len, path, data, len, true);
		free(displaced);
	}
	if (rc == AC_ENOTSUP)
		rc = ac_atomic_write(path, data, len, NULL, NULL);
	if (rc == 0) {
		free(s->raw);
		s->raw = data;
		s->raw_len = len;
		data = NULL;
		if (!s->from_file)
			s->from_file = ac_file_id_of(&s->file, path) == 0;
	}
	free(data);
	free(path);
	return rc;
}

static json_t *slice(const json_t *messages, size_t start)
{
	json_t *out = json_array();

	for (size_t i = start; out && i < json_array_size(messages); i++)
		json_array_append(out, json_array_get(messages, i));
	return out;
}

json_t *ac_session_last_messages(const ac_session *s, size_t n)
{
	json_t *messages = ac_session_messages(s);

	return slice(messages, ac_messages_last_start(messages, n));
}

json_t *ac_session_messages_within(const ac_session *s, uint64_t budget)
{
	json_t *messages = ac_session_messages(s);

	return slice(messages, ac_messages_budget_start(messages, budget));
}
