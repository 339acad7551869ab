/* The sandbox memo mirror: filling a folder from the store, taking the
 * agent's edits back, and the registry that lets the host refresh it
 * (ac_sandbox.h). Everything under the mirror folder is hostile input. */
#include "ac_sandbox.h"

#include "ac_atomic.h"
#include "ac_backend_sys.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_struct_version.h"
#include "ac_file.h"
#include "ac_fs_calls.h"
#include "ac_json_exact.h"
#include "ac_sha256.h"
#include "ac_time.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REGISTRATION_KEY_LEN 16
#define TEMP_PREFIX ".agentctl-"

/* One mirror being worked on. */
typedef struct {
	const ac_backend *b;
	const char *tenant;
	const char *session_id;
	char *user;            /* "" when the session names none */
	char *agent;
	char *dir;             /* DIR's real path */
	int dir_fd;
	char *registration;    /* the registration file's path */
	json_t *files;         /* the manifest: "<folder>/<name>" -> sha256 hex */
	size_t max_bytes;
	ac_sandbox_result *out;
	ac_buf notes;
} mirror;

/* A scope folder of the mirror and the owner of its documents. */
typedef struct {
	const char *scope;
	const char *owner;
} scope_owner;

/* One line of out->notes: what, then why. */
static void note(mirror *m, const char *what, const char *why)
{
	ac_buf_printf(&m->notes, "%s: %s\n", what, why);
}

void ac_sandbox_result_free(ac_sandbox_result *result)
{
	if (!result)
		return;
	free(result->notes);
	memset(result, 0, sizeof(*result));
}

static void scopes_of(const mirror *m, scope_owner out[3])
{
	out[0] = (scope_owner){"session", m->session_id};
	out[1] = (scope_owner){"user", m->user};
	out[2] = (scope_owner){"agent", m->agent};
}

/* ---- the folder side: no link followed, no name unchecked ---- */

/* *out_fd: the folder name inside dir_fd, made when create is set. A link
 * or a file in its place is refused (AC_EDENIED); AC_ENOTFOUND when absent
 * and not to be made. */
static int open_folder(int *out_fd, int dir_fd, const char *name, bool create, const char *shown)
{
	if (create && ac_fs_mkdirat(dir_fd, name, 0755) != 0 && errno != EEXIST)
		return ac_error_errno(errno, "%s/%s", shown, name);
	*out_fd = ac_fs_openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (*out_fd >= 0)
		return 0;
	if (errno == ENOENT)
		return ac_error_set(AC_ENOTFOUND, "%s/%s: no such folder", shown, name);
	if (errno == ELOOP || errno == ENOTDIR)
		return ac_error_set(AC_EDENIED, "%s/%s: not a folder (a link or a file): refused",
				    shown, name);
	return ac_error_errno(errno, "%s/%s", shown, name);
}

/* Reads the regular file name in dir_fd, at most max bytes. AC_ENOTFOUND
 * when absent; AC_EDENIED (message says why) for anything else than a
 * regular file that small. */
static int read_entry(char **out, size_t *out_len, int dir_fd, const char *name, size_t max,
		      const char *shown)
{
	ac_buf data = AC_BUF_INIT;
	struct stat st;
	char block[64 * 1024];
	int fd = -1, rc;
	ssize_t n;

	*out = NULL;
	*out_len = 0;
	if ((rc = ac_file_open_regular(&fd, dir_fd, name, O_RDONLY | O_NOFOLLOW, 0, shown))) {
		return rc == AC_ENOTFOUND ? rc : ac_error_set(AC_EDENIED, "%s", ac_error_last());
	}
	if (ac_fs_fstat(fd, &st) != 0) {
		rc = ac_error_errno(errno, "%s", shown);
		goto done;
	}
	/* A second name for a file elsewhere would carry it into the store. */
	if (st.st_nlink > 1) {
		rc = ac_error_set(AC_EDENIED, "%s: has other hard links", shown);
		goto done;
	}
	if ((uint64_t)st.st_size > max) {
		rc = ac_error_set(AC_EDENIED, "%s: larger than %zu bytes", shown, max);
		goto done;
	}
	/* The size can grow while we read: the cap holds on what is read. */
	while ((n = ac_fs_read(fd, block, sizeof(block))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = ac_error_errno(errno, "%s", shown);
			goto done;
		}
		if (data.len + (size_t)n > max) {
			rc = ac_error_set(AC_EDENIED, "%s: larger than %zu bytes", shown, max);
			goto done;
		}
		if (ac_buf_append(&data, block, (size_t)n)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	}
	*out_len = data.len;
	if (!(*out = data.len ? ac_buf_detach(&data) : strdup("")))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	ac_buf_free(&data);
	ac_fs_close(fd);
	return rc;
}

static void hash_of(char out[AC_SHA256_HEX_LEN + 1], const char *data, size_t len);

/* The hash of what name in dir_fd holds now ("" when it is absent or not
 * a file sync can take). */
static void entry_hash(char out[AC_SHA256_HEX_LEN + 1], int dir_fd, const char *name,
		       size_t max)
{
	char *data = NULL;
	size_t len = 0;

	out[0] = '\0';
	if (read_entry(&data, &len, dir_fd, name, max, name) == 0)
		hash_of(out, data, len);
	free(data);
	ac_error_clear();
}

/* Puts data as name in dir_fd: a new temp file, swapped with name (or
 * renamed to it when absent: expected NULL), so a link planted as name is
 * replaced, never written through. The agent writes its copy whenever it
 * likes, with no lock: if what the swap took out is not what was read
 * before (expected), the agent wrote it since, and it goes back; if the
 * agent then wrote into the file just put there, that newer edit stays.
 * *out_put: false when the agent's copy stayed. */
static int put_entry(bool *out_put, int dir_fd, const char *name, const char *data, size_t len,
		     const char *expected, size_t max, const char *shown)
{
	static unsigned counter;
	char temp[64 + AC_BACKEND_ID_MAX], taken_out[AC_SHA256_HEX_LEN + 1];
	char ours[AC_SHA256_HEX_LEN + 1];
	size_t done_len = 0;
	int fd, rc = 0;

	*out_put = false;
	/* Named for its process and its document, so that a refresh after a
	 * kill can put back an edit the swap had taken out (recover_temps). */
	snprintf(temp, sizeof(temp), TEMP_PREFIX "%ld-%u-%s.tmp", (long)ac_fs_getpid(), counter++,
		 name);
	fd = ac_fs_openat(dir_fd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return ac_error_errno(errno, "%s", shown);
	while (done_len < len) {
		ssize_t n = ac_fs_write(fd, data + done_len, len - done_len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = ac_error_errno(errno, "%s", shown);
			break;
		}
		done_len += (size_t)n;
	}
	if (ac_fs_close(fd) != 0 && !rc)
		rc = ac_error_errno(errno, "%s", shown);
	if (rc)
		goto done;
	if (ac_fs_renameat2(dir_fd, temp, dir_fd, name,
			    expected ? RENAME_EXCHANGE : RENAME_NOREPLACE) == 0) {
		*out_put = true;
	} else if (errno == EEXIST || (expected && errno == ENOENT)) {
		goto done; /* the agent made (or removed) it meanwhile: its own */
	} else if (errno != EINVAL && errno != ENOSYS) {
		rc = ac_error_errno(errno, "%s", shown);
		goto done;
	} else if (ac_fs_renameat2(dir_fd, temp, dir_fd, name, 0) != 0) {
		/* A file system without the flags: renamed over, as before. */
		rc = ac_error_errno(errno, "%s", shown);
		goto done;
	} else {
		*out_put = true;
		return 0;
	}
	if (!expected || !*out_put)
		goto done;
	/* temp now holds what name held: the agent's, if it changed since. */
	entry_hash(taken_out, dir_fd, temp, max);
	if (!strcmp(taken_out, expected))
		goto done;
	hash_of(ours, data, len);
	*out_put = false;
	if (ac_fs_renameat2(dir_fd, temp, dir_fd, name, RENAME_EXCHANGE) != 0) {
		rc = ac_error_errno(errno, "%s", shown);
		goto done;
	}
	/* The agent wrote into ours after the swap: that edit is the newer. */
	entry_hash(taken_out, dir_fd, temp, max);
	if (strcmp(taken_out, ours) != 0 &&
	    ac_fs_renameat2(dir_fd, temp, dir_fd, name, RENAME_EXCHANGE) != 0)
		rc = ac_error_errno(errno, "%s", shown);
done:
	ac_fs_unlinkat(dir_fd, temp, 0);
	return rc;
}

static void hash_of(char out[AC_SHA256_HEX_LEN + 1], const char *data, size_t len)
{
	ac_sha256_hex(out, data, len);
}

/* ---- the registration ---- */

static void mirror_free(mirror *m)
{
	free(m->user);
	free(m->agent);
	free(m->dir);
	free(m->registration);
	json_decref(m->files);
	if (m->dir_fd >= 0)
		ac_fs_close(m->dir_fd);
	ac_buf_free(&m->notes);
}

/* 0 when opts are of this library's version (NULL: checked later, where
 * the registry folder is needed); AC_EINVAL naming them otherwise. */
static int options_check(const ac_sandbox_options *opts)
{
	if (!opts)
		return 0;
	return ac_struct_version_check("ac_sandbox_options", opts->version,
				       AC_SANDBOX_OPTIONS_VERSION, "AC_SANDBOX_OPTIONS_INIT");
}

/* The registry folder of one session: <registry>/<tenant>/<session>. */
static int session_registry(ac_buf *out, const ac_sandbox_options *opts, const char *tenant,
			    const char *session_id)
{
	if (!opts || !opts->registry_dir)
		return ac_error_set(AC_EINVAL, "sandbox: no registry folder given");
	if (ac_buf_printf(out, "%s/%s/%s", opts->registry_dir, tenant, session_id))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

static int find_owners(mirror *m);

/* Finds the session's owners, then opens the mirror folder (dir), making it
 * when create is set, and reads its registration when there is one. */
static int mirror_open(mirror *m, const ac_backend *b, const char *tenant, const char *session_id,
		       const char *dir, bool create, const ac_sandbox_options *opts)
{
	ac_buf path = AC_BUF_INIT;
	char key[AC_SHA256_HEX_LEN + 1], *text = NULL;
	size_t len;
	json_t *doc = NULL;
	int rc;

	memset(m, 0, sizeof(*m));
	m->dir_fd = -1;
	m->b = b;
	m->tenant = tenant;
	m->session_id = session_id;
	m->max_bytes = opts && opts->max_bytes ? opts->max_bytes : AC_SANDBOX_MAX_BYTES;
	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", session_id)))
		goto done;
	/* The session first: a failed mirror leaves no folder behind. */
	if ((rc = find_owners(m)))
		goto done;
	if (create && ac_fs_mkdir(dir, 0755) != 0 && errno != EEXIST) {
		rc = ac_error_errno(errno, "%s", dir);
		goto done;
	}
	m->dir_fd = ac_fs_open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (m->dir_fd < 0) {
		rc = errno == ENOENT ? ac_error_set(AC_ENOTFOUND, "%s: no such folder", dir)
				     : ac_error_errno(errno, "%s: not a folder", dir);
		goto done;
	}
	if (!(m->dir = ac_fs_realpath(dir))) {
		rc = ac_error_errno(errno, "%s", dir);
		goto done;
	}
	hash_of(key, m->dir, strlen(m->dir));
	key[REGISTRATION_KEY_LEN] = '\0';
	if ((rc = session_registry(&path, opts, tenant, session_id)) ||
	    ac_buf_printf(&path, "/%s.json", key) ||
	    !(m->registration = ac_buf_detach(&path))) {
		rc = rc ? rc : ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	rc = ac_file_read(&text, &len, m->registration);
	if (rc == AC_ENOTFOUND) {
		ac_error_clear();
		rc = 0;
		m->files = json_object();
	} else if (rc == 0) {
		json_error_t error;

		doc = json_loadb(text, len, 0, &error);
		m->files = json_incref(json_object_get(doc, "files"));
		if (!json_is_object(m->files))
			rc = ac_error_set(AC_ECORRUPT, "%s: not a sandbox registration",
					  m->registration);
	}
	if (!rc && !m->files)
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	json_decref(doc);
	free(text);
	ac_buf_free(&path);
	return rc;
}

static bool registered(const mirror *m)
{
	struct stat st;

	return m->registration && ac_fs_stat(m->registration, &st) == 0;
}

/* The session's user and agent, as the inspector lists them (the one
 * backend call that gives a session's owners without creating it). */
static int find_owners(mirror *m)
{
	ac_backend_session_info *list = NULL;
	size_t n = 0;
	int rc;

	if ((rc = m->b->inspector.list_sessions(m->b->impl, &list, &n, m->tenant)))
		return rc;
	rc = ac_error_set(AC_ENOTFOUND, "tenant %s has no session %s", m->tenant, m->session_id);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(list[i].session_id, m->session_id))
			continue;
		ac_error_clear();
		rc = 0;
		m->user = strdup(list[i].user ? list[i].user : "");
		m->agent = strdup(list[i].agent ? list[i].agent : "");
		if (!m->user || !m->agent)
			rc = ac_error_set(AC_ENOMEM, "out of memory");
		break;
	}
	ac_backend_sessions_free(list, n);
	return rc;
}

static int save_registration(mirror *m)
{
	char at[AC_TIME_ISO_LEN + 1];
	ac_buf folder = AC_BUF_INIT;
	json_t *doc;
	char *text = NULL;
	size_t len = 0;
	int rc;

	ac_time_format_iso(at, ac_time_now_ms());
	doc = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:O}", "dir", m->dir, "tenantId", m->tenant,
			"sessionId", m->session_id, "userId", m->user, "agentId", m->agent,
			"mirroredAt", at, "files", m->files);
	if (doc)
		text = ac_json_exact_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS, &len);
	if (!text || ac_buf_append(&folder, m->registration,
				   (size_t)(strrchr(m->registration, '/') - m->registration))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (!(rc = ac_file_mkdirs(folder.data)))
		rc = ac_atomic_write(m->registration, text, len, NULL, NULL);
done:
	json_decref(doc);
	free(text);
	ac_buf_free(&folder);
	return rc;
}

/* ---- refresh: store -> mirror ---- */

/* Puts the store's data for folder/name into the mirror, unless the
 * agent changed the mirror's copy since it was written there. */
static int refresh_file(mirror *m, int folder_fd, const char *folder, const char *name,
			const char *data, size_t len)
{
	char want[AC_SHA256_HEX_LEN + 1], have[AC_SHA256_HEX_LEN + 1], key[2 * AC_BACKEND_ID_MAX + 2];
	char shown[PATH_MAX + 2 * AC_BACKEND_ID_MAX + 4];
	const char *base;
	char *current = NULL;
	size_t current_len = 0, max = len > m->max_bytes ? len : m->max_bytes;
	bool put;
	int rc;

	snprintf(key, sizeof(key), "%s/%s", folder, name);
	snprintf(shown, sizeof(shown), "%s/%s", m->dir, key);
	base = json_string_value(json_object_get(m->files, key));
	hash_of(want, data, len);
	/* The store's own document may be over the cap: a mirror copy of it,
	 * no larger than what is already in memory, is read whole. */
	rc = read_entry(&current, &current_len, folder_fd, name, max, shown);
	if (rc == 0) {
		hash_of(have, current, current_len);
		free(current);
		if (!strcmp(have, want))
			goto record;
		/* An edit (or a new file) the agent has not synced yet. */
		if (!base || strcmp(have, base)) {
			m->out->kept++;
			return 0;
		}
	} else if (rc == AC_EDENIED) {
		/* Not a file sync can take (a link, a FIFO, a folder, too large,
		 * unreadable): it may be the agent's work, which no copy of it
		 * keeps, so it stays as it is; sync says why once. */
		ac_error_clear();
		m->out->kept++;
		return 0;
	} else if (rc != AC_ENOTFOUND) {
		return rc;
	}
	/* Absent, or unchanged since mirrored. */
	ac_error_clear();
	if ((rc = put_entry(&put, folder_fd, name, data, len, rc == AC_ENOTFOUND ? NULL : have,
			    max, shown))) {
		m->out->refused++;
		note(m, shown, ac_error_last());
		ac_error_clear();
		return 0;
	}
	if (!put) { /* the agent edited it meanwhile: kept, as an edit */
		m->out->kept++;
		return 0;
	}
	m->out->written++;
record:
	if (json_object_set_new(m->files, key, json_string(want)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

/* A folder of the mirror the agent replaced with a link or a file is not
 * refreshed (that would write through the link): noted, the rest goes on. */
static int refuse_folder(mirror *m, int rc)
{
	if (rc != AC_EDENIED)
		return rc;
	m->out->refused++;
	note(m, ac_error_last(), "not refreshed");
	ac_error_clear();
	return 0;
}

/* A temp file of put_entry() whose process is gone: it holds the store's
 * version it was to put, or, when killed between its swaps, what it took
 * out of the mirror (the agent's copy). That copy goes back when the
 * mirror still holds the store's version the swap put there; otherwise
 * the agent has written since, and its newer copy stays. */
static void recover_temp(mirror *m, const scope_owner *so, int fd, const char *temp)
{
	char doc[AC_BACKEND_ID_MAX + 1], held[AC_SHA256_HEX_LEN + 1], now[AC_SHA256_HEX_LEN + 1];
	char want[AC_SHA256_HEX_LEN + 1], *end, *data = NULL;
	const char *at = temp + strlen(TEMP_PREFIX);
	long pid = strtol(at, &end, 10);
	size_t len = 0, n;

	if (end == at || *end != '-' || pid <= 0 || pid == (long)ac_fs_getpid() ||
	    ac_fs_kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return; /* not one of ours, or its process still runs */
	if (!(at = strchr(end + 1, '-')) || (n = strlen(++at)) < 5 || n - 4 > AC_BACKEND_ID_MAX ||
	    strcmp(at + n - 4, ".tmp"))
		return;
	snprintf(doc, sizeof(doc), "%.*s", (int)(n - 4), at);
	if (ac_backend_id_check("memo name", doc) ||
	    m->b->memo.read(m->b->impl, &data, &len, m->tenant, so->owner, so->scope, doc)) {
		ac_error_clear();
		return;
	}
	hash_of(want, data, len);
	free(data);
	entry_hash(held, fd, temp, m->max_bytes);
	entry_hash(now, fd, doc, m->max_bytes);
	if (held[0] && strcmp(held, want) && !strcmp(now, want) &&
	    ac_fs_renameat2(fd, temp, fd, doc, RENAME_EXCHANGE) == 0)
		note(m, doc, "an edit a stopped refresh had set aside was put back");
	ac_fs_unlinkat(fd, temp, 0);
}

static void recover_temps(mirror *m, const scope_owner *so, int fd)
{
	char names[8][64 + AC_BACKEND_ID_MAX];
	const char *name;
	ac_fs_dir *listing;
	int list_fd, n = 0;

	if ((list_fd = ac_fs_fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return;
	if (!(listing = ac_fs_fdopendir(list_fd))) {
		ac_fs_close(list_fd);
		return;
	}
	/* Collected first: the folder changes as they are recovered. A few a
	 * refresh is plenty (one per refresh killed); the rest wait. */
	while (n < 8 && (name = ac_fs_readdir(listing)))
		if (!strncmp(name, TEMP_PREFIX, strlen(TEMP_PREFIX)) &&
		    strlen(name) < sizeof(names[0]))
			snprintf(names[n++], sizeof(names[0]), "%s", name);
	ac_fs_closedir(listing);
	for (int i = 0; i < n; i++)
		recover_temp(m, so, fd, names[i]);
}

static int refresh_scope(mirror *m, const scope_owner *so)
{
	char **names = NULL, *data = NULL;
	size_t n = 0, len;
	int fd = -1, rc;

	if (!so->owner[0])
		return 0;
	if ((rc = m->b->memo.list(m->b->impl, &names, &n, m->tenant, so->owner, so->scope)))
		return rc;
	if ((rc = open_folder(&fd, m->dir_fd, so->scope, true, m->dir)))
		goto refused;
	recover_temps(m, so, fd);
	for (size_t i = 0; i < n && !rc; i++) {
		if (!(rc = m->b->memo.read(m->b->impl, &data, &len, m->tenant, so->owner, so->scope,
					   names[i])))
			rc = refresh_file(m, fd, so->scope, names[i], data, len);
		free(data);
		data = NULL;
	}
	goto done;
refused:
	rc = refuse_folder(m, rc);
done:
	if (fd >= 0)
		ac_fs_close(fd);
	ac_backend_names_free(names, n);
	return rc;
}

static int refresh_artifacts(mirror *m)
{
	char **ids = NULL, *data = NULL;
	size_t n = 0, len;
	int fd = -1, rc;

	if ((rc = m->b->artifact.list(m->b->impl, &ids, &n, m->tenant, m->session_id)))
		return rc;
	if ((rc = open_folder(&fd, m->dir_fd, AC_SANDBOX_ARTIFACTS, true, m->dir)))
		goto refused;
	for (size_t i = 0; i < n && !rc; i++) {
		if (!(rc = m->b->artifact.read(m->b->impl, &data, &len, m->tenant, m->session_id,
					       ids[i])))
			rc = refresh_file(m, fd, AC_SANDBOX_ARTIFACTS, ids[i], data, len);
		free(data);
		data = NULL;
	}
	goto done;
refused:
	rc = refuse_folder(m, rc);
done:
	if (fd >= 0)
		ac_fs_close(fd);
	ac_backend_names_free(ids, n);
	return rc;
}

static int refresh(mirror *m)
{
	scope_owner scopes[3];
	int rc = 0;

	scopes_of(m, scopes);
	m->out->mirrors++;
	for (int i = 0; i < 3 && !rc; i++)
		rc = refresh_scope(m, &scopes[i]);
	if (!rc)
		rc = refresh_artifacts(m);
	if (!rc)
		rc = save_registration(m);
	return rc;
}

/* ---- sync: mirror -> store ---- */

/* Writes the agent's version of a document changed on both sides beside
 * the store's, as <name>.conflict-<UTC>. */
static int save_conflict(mirror *m, const scope_owner *so, const char *name, const char *data,
			 size_t len, const char *shown)
{
	char at[21], conflict[AC_BACKEND_ID_MAX + 40];
	int rc;

	ac_time_format_file(at, ac_time_now_ms());
	snprintf(conflict, sizeof(conflict), "%s.conflict-%s", name, at);
	if (ac_backend_id_check("memo name", conflict))
		return ac_error_set(AC_EINVAL, "%s: name too long for a conflict copy", shown);
	if ((rc = m->b->memo.write(m->b->impl, m->tenant, so->owner, so->scope, conflict, data, len)))
		return rc;
	m->out->conflicts++;
	ac_buf_printf(&m->notes, "%s: conflict: memo %s/%s/%s/%s changed in the store since the "
		      "mirror was taken; the store's version is kept and the agent's saved as %s\n",
		      shown, m->tenant, so->owner, so->scope, name, conflict);
	return 0;
}

/* One mirror file of a scope folder, by the conflict rule. */
static int sync_file(mirror *m, const scope_owner *so, int fd, const char *name)
{
	char have[AC_SHA256_HEX_LEN + 1], stored_hash[AC_SHA256_HEX_LEN + 1];
	char key[2 * AC_BACKEND_ID_MAX + 2], shown[PATH_MAX + 2 * AC_BACKEND_ID_MAX + 4];
	char *data = NULL, *stored = NULL;
	size_t len, stored_len;
	const char *base;
	bool stored_exists;
	int rc;

	snprintf(key, sizeof(key), "%s/%s", so->scope, name);
	snprintf(shown, sizeof(shown), "%s/%s", m->dir, key);
	if ((rc = read_entry(&data, &len, fd, name, m->max_bytes, shown))) {
		if (rc == AC_ENOTFOUND) /* gone since it was listed */
			return ac_error_clear(), 0;
		if (rc != AC_EDENIED)
			return rc;
		m->out->refused++;
		note(m, ac_error_last(), "not written back; left as it is");
		return ac_error_clear(), 0;
	}
	hash_of(have, data, len);
	base = json_string_value(json_object_get(m->files, key));
	if (base && !strcmp(base, have))
		goto done; /* not edited */
	rc = m->b->memo.read(m->b->impl, &stored, &stored_len, m->tenant, so->owner, so->scope, name);
	if (rc && rc != AC_ENOTFOUND)
		goto done;
	stored_exists = rc == 0;
	rc = 0;
	ac_error_clear();
	if (stored_exists)
		hash_of(stored_hash, stored, stored_len);
	if (stored_exists && !strcmp(stored_hash, have)) {
		/* The store has it already. */
	} else if (stored_exists ? base && !strcmp(base, stored_hash) : !base) {
		/* Written only if the store still holds what was just compared:
		 * another host may write it meanwhile (then it is a conflict). */
		rc = m->b->optional.memo_write_if
			     ? m->b->optional.memo_write_if(m->b, m->tenant, so->owner, so->scope,
							    name, stored_exists ? stored_hash : NULL,
							    data, len)
			     : m->b->memo.write(m->b->impl, m->tenant, so->owner, so->scope, name,
						data, len);
		if (rc == AC_ECONFLICT) {
			ac_error_clear();
			if ((rc = save_conflict(m, so, name, data, len, shown)))
				goto done;
		} else if (rc) {
			goto done;
		} else {
			m->out->synced++;
		}
	} else if ((rc = save_conflict(m, so, name, data, len, shown))) {
		goto done;
	}
	/* As if the mirror had been written with what it holds: refresh then
	 * puts the store's version over a conflict and leaves the rest. */
	if (json_object_set_new(m->files, key, json_string(have)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	free(data);
	free(stored);
	return rc;
}

/* Visits each entry of the folder name in the mirror: fn(m, ctx, fd, entry)
 * for a name that passes the id rules; the rest is refused here. */
typedef int (*entry_fn)(mirror *m, const void *ctx, int fd, const char *name);

static int each_entry(mirror *m, const char *folder, entry_fn fn, const void *ctx)
{
	const char *name;
	ac_fs_dir *listing = NULL;
	int fd = -1, list_fd, rc;

	if ((rc = open_folder(&fd, m->dir_fd, folder, false, m->dir))) {
		if (rc == AC_ENOTFOUND)
			return ac_error_clear(), 0;
		if (rc != AC_EDENIED)
			return rc;
		m->out->refused++;
		note(m, ac_error_last(), "nothing in it written back");
		return ac_error_clear(), 0;
	}
	if ((list_fd = ac_fs_fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0 ||
	    !(listing = ac_fs_fdopendir(list_fd))) {
		if (list_fd >= 0)
			ac_fs_close(list_fd);
		rc = ac_error_errno(errno, "%s/%s", m->dir, folder);
		goto done;
	}
	while (!rc && (name = ac_fs_readdir(listing))) {
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		/* A temp file of a refresh running now. */
		if (!strncmp(name, TEMP_PREFIX, strlen(TEMP_PREFIX)))
			continue;
		if (ac_backend_id_check("memo name", name)) {
			m->out->refused++;
			ac_buf_printf(&m->notes, "%s/%s: %s: not written back\n", m->dir, folder,
				      ac_error_last());
			ac_error_clear();
			continue;
		}
		rc = fn(m, ctx, fd, name);
	}
done:
	if (listing)
		ac_fs_closedir(listing);
	ac_fs_close(fd);
	return rc;
}

static int sync_scope_entry(mirror *m, const void *ctx, int fd, const char *name)
{
	return sync_file(m, ctx, fd, name);
}

/* Artifacts are the store's copies: an edit is reported, not written. */
static int check_artifact_entry(mirror *m, const void *ctx, int fd, const char *name)
{
	char have[AC_SHA256_HEX_LEN + 1], key[2 * AC_BACKEND_ID_MAX + 2];
	char shown[PATH_MAX + 2 * AC_BACKEND_ID_MAX + 4];
	const char *base;
	char *data = NULL;
	size_t len;
	int rc;

	(void)ctx;
	snprintf(key, sizeof(key), AC_SANDBOX_ARTIFACTS "/%s", name);
	snprintf(shown, sizeof(shown), "%s/%s", m->dir, key);
	base = json_string_value(json_object_get(m->files, key));
	rc = read_entry(&data, &len, fd, name, m->max_bytes, shown);
	if (rc == 0) {
		hash_of(have, data, len);
		free(data);
		if (base && !strcmp(base, have))
			return 0;
	} else if (rc != AC_EDENIED && rc != AC_ENOTFOUND) {
		return rc;
	}
	ac_error_clear();
	if (rc == AC_ENOTFOUND)
		return 0;
	m->out->refused++;
	note(m, shown, "artifacts are read-only copies of tool outputs: not written back");
	return 0;
}

/* ---- the calls ---- */

static int finish(mirror *m, ac_sandbox_result *out, int rc)
{
	if (m->notes.len && !(out->notes = ac_buf_detach(&m->notes)) && !rc)
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	mirror_free(m);
	return rc;
}

/* Mirrors (or refreshes) into dir, made when create is set. */
static int mirror_into(ac_sandbox_result *out, const ac_backend *b, const char *tenant,
		       const char *session_id, const char *dir, bool create,
		       const ac_sandbox_options *opts)
{
	mirror m;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!(rc = mirror_open(&m, b, tenant, session_id, dir, create, opts))) {
		m.out = out;
		rc = refresh(&m);
	}
	return finish(&m, out, rc);
}

int ac_sandbox_mirror(ac_sandbox_result *out, const ac_backend *b, const char *tenant,
		      const char *session_id, const char *dir, const ac_sandbox_options *opts)
{
	if (ac_backend_version_check(b) || options_check(opts)) {
		memset(out, 0, sizeof(*out));
		return AC_EINVAL;
	}
	return mirror_into(out, b, tenant, session_id, dir, true, opts);
}

int ac_sandbox_sync(ac_sandbox_result *out, const ac_backend *b, const char *tenant,
		    const char *session_id, const char *dir, const ac_sandbox_options *opts)
{
	scope_owner scopes[3];
	mirror m;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_backend_version_check(b)) || (rc = options_check(opts)))
		return rc;
	if ((rc = mirror_open(&m, b, tenant, session_id, dir, false, opts)))
		return finish(&m, out, rc);
	if (!registered(&m)) {
		rc = ac_error_set(AC_ENOTFOUND, "%s is not a mirror of session %s/%s (run agentctl "
				  "sandbox mirror first)", m.dir, tenant, session_id);
		return finish(&m, out, rc);
	}
	m.out = out;
	scopes_of(&m, scopes);
	for (int i = 0; i < 3 && !rc; i++)
		if (scopes[i].owner[0])
			rc = each_entry(&m, scopes[i].scope, sync_scope_entry, &scopes[i]);
	if (!rc)
		rc = each_entry(&m, AC_SANDBOX_ARTIFACTS, check_artifact_entry, NULL);
	if (!rc)
		rc = refresh(&m);
	return finish(&m, out, rc);
}

/* Adds what one refresh found to the running total. */
static void add_result(ac_sandbox_result *total, ac_sandbox_result *one)
{
	total->mirrors += one->mirrors;
	total->written += one->written;
	total->kept += one->kept;
	total->refused += one->refused;
	if (one->notes) {
		ac_buf all = AC_BUF_INIT;

		if (!ac_buf_printf(&all, "%s%s", total->notes ? total->notes : "", one->notes)) {
			free(total->notes);
			total->notes = ac_buf_detach(&all);
		}
		ac_buf_free(&all);
	}
	ac_sandbox_result_free(one);
}

int ac_sandbox_refresh_session(ac_sandbox_result *out, const ac_backend *b, const char *tenant,
			       const char *session_id, const ac_sandbox_options *opts)
{
	ac_buf folder = AC_BUF_INIT, path = AC_BUF_INIT;
	const char *entry;
	ac_fs_dir *listing = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_backend_version_check(b)) || (rc = options_check(opts)) ||
	    (rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", session_id)) ||
	    (rc = session_registry(&folder, opts, tenant, session_id)))
		goto done;
	if (!(listing = ac_fs_opendir(folder.data)))
		goto done; /* no mirror registered */
	while (!rc && (entry = ac_fs_readdir(listing))) {
		size_t len = strlen(entry);
		ac_sandbox_result one = {0};
		char *text = NULL;
		size_t text_len;
		json_t *doc;
		const char *dir;

		if (len < 6 || strcmp(entry + len - 5, ".json") || entry[0] == '.')
			continue;
		ac_buf_clear(&path);
		if (ac_buf_printf(&path, "%s/%s", folder.data, entry)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			break;
		}
		if (ac_file_read(&text, &text_len, path.data)) {
			ac_error_clear();
			continue;
		}
		doc = json_loadb(text, text_len, 0, NULL);
		free(text);
		dir = json_string_value(json_object_get(doc, "dir"));
		if (dir)
			rc = mirror_into(&one, b, tenant, session_id, dir, false, opts);
		if (dir && rc == AC_ENOTFOUND) {
			/* The folder is gone (the sandbox ended): noted, not an error. */
			ac_buf_clear(&path);
			ac_buf_printf(&path, "%s: not refreshed: %s\n", dir, ac_error_last());
			free(one.notes);
			one.notes = ac_buf_detach(&path);
			ac_error_clear();
			rc = 0;
		}
		json_decref(doc);
		add_result(out, &one);
	}
done:
	if (listing)
		ac_fs_closedir(listing);
	ac_buf_free(&folder);
	ac_buf_free(&path);
	return rc;
}

int ac_sandbox_refresh_user(ac_sandbox_result *out, const ac_backend *b, const char *tenant,
			    const char *user, const ac_sandbox_options *opts)
{
	ac_backend_session_info *list = NULL;
	size_t n = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_backend_version_check(b)) || (rc = options_check(opts)) ||
	    (rc = b->users.list(b->impl, &list, &n, tenant, user)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		ac_sandbox_result one;

		rc = ac_sandbox_refresh_session(&one, b, tenant, list[i].session_id, opts);
		add_result(out, &one);
	}
	ac_backend_sessions_free(list, n);
	return rc;
}

/* The mirrors of the tenant's sessions whose agent is agent. */
static int refresh_agent(ac_sandbox_result *out, const ac_backend *b, const char *tenant,
			 const char *agent, const ac_sandbox_options *opts)
{
	ac_backend_session_info *list = NULL;
	size_t n = 0;
	int rc;

	if ((rc = b->inspector.list_sessions(b->impl, &list, &n, tenant)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		ac_sandbox_result one;

		if (!list[i].agent || strcmp(list[i].agent, agent))
			continue;
		rc = ac_sandbox_refresh_session(&one, b, tenant, list[i].session_id, opts);
		add_result(out, &one);
	}
	ac_backend_sessions_free(list, n);
	return rc;
}

int ac_sandbox_refresh_owner(ac_sandbox_result *out, const ac_backend *b, const char *tenant,
			     const char *owner, const char *scope, const ac_sandbox_options *opts)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_backend_version_check(b)) || (rc = options_check(opts)) ||
	    (rc = ac_backend_scope_check(scope)))
		return rc;
	if (!strcmp(scope, "session"))
		return ac_sandbox_refresh_session(out, b, tenant, owner, opts);
	if (!strcmp(scope, "user"))
		return ac_sandbox_refresh_user(out, b, tenant, owner, opts);
	return refresh_agent(out, b, tenant, owner, opts);
}

int ac_sandbox_compact(ac_backend_compact_result *out, ac_sandbox_result *refreshed,
		       const ac_backend *b, const char *tenant, const char *session_id,
		       const ac_backend_compact_options *compact, const ac_sandbox_options *opts)
{
	ac_sandbox_result ignored;
	int rc;

	if (!refreshed)
		refreshed = &ignored;
	memset(refreshed, 0, sizeof(*refreshed));
	if ((rc = ac_backend_version_check(b)) || (rc = options_check(opts)) ||
	    (rc = b->session.compact_if_needed(b->impl, out, tenant, session_id, compact)))
		return rc;
	rc = ac_sandbox_refresh_session(refreshed, b, tenant, session_id, opts);
	if (refreshed == &ignored)
		ac_sandbox_result_free(&ignored);
	return rc;
}
