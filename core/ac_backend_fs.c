/* The file-system backend: set-up, ids, the session store, and the two
 * listings (a user's sessions, the inspector's). Memo documents and
 * artifacts are in ac_backend_fs_files.c, traces and orchestration in
 * ac_backend_fs_logs.c, compaction in ac_backend_fs_compact.c. */
#include "ac_backend_fs_impl.h"

#include "ac_backend_check.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_struct_version.h"
#include "ac_file.h"
#include "ac_messages.h"
#include "ac_session.h"
#include "ac_session_index.h"
#include "ac_turn_usage.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- ids ---- */

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

int ac_backend_id_check(const char *what, const char *id)
{
	size_t len;

	if (!id)
		return ac_error_set(AC_EINVAL, "%s: missing", what);
	len = strnlen(id, AC_BACKEND_ID_MAX + 1);
	if (len > AC_BACKEND_ID_MAX)
		return ac_error_set(AC_EINVAL, "%s: longer than %d bytes", what, AC_BACKEND_ID_MAX);
	if (ac_session_id_check(id) != 0) {
		char why[256];

		/* The rule's own wording, with the right noun in front. */
		snprintf(why, sizeof(why), "%s", ac_error_last());
		if (!strncmp(why, "session id", 10))
			return ac_error_set(AC_EINVAL, "%s%s", what, why + 10);
		return ac_error_set(AC_EINVAL, "%s: %s", what, why);
	}
	/* The store's own ids (tenants, owners, names, and the sessions
	 * agents make through it) stay free of control bytes, though a
	 * session file another program wrote may hold them
	 * (ac_session_id_check). */
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)id[i] < 0x20 || id[i] == 0x7f)
			return ac_error_set(AC_EINVAL, "%s: holds a control byte", what);
	if (ends_with(id, len, ".tmp") || ends_with(id, len, ".lock"))
		return ac_error_set(AC_EINVAL, "%s '%.64s': must not end in .tmp or .lock", what, id);
	return 0;
}

int ac_backend_new_session_check(const char *tenant, const char *user, const char *agent,
				 const char *session_id)
{
	int rc;

	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (user && (rc = ac_backend_id_check("user", user))) ||
	    (agent && (rc = ac_backend_id_check("agent", agent))) ||
	    (session_id && (rc = ac_backend_id_check("session", session_id))))
		return rc;
	return 0;
}

int ac_backend_status_check(const char *from, const char *to)
{
	static const char *const statuses[] = {"running", "paused", "completed", "failed"};
	bool from_ok = false, to_ok = false;

	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
		from_ok = from_ok || (from && !strcmp(from, statuses[i]));
		to_ok = to_ok || (to && !strcmp(to, statuses[i]));
	}
	if (!from_ok || !to_ok)
		return ac_error_set(AC_EINVAL, "'%s' -> '%s': a status is running, paused, completed "
				    "or failed", from ? from : "", to ? to : "");
	return 0;
}

int ac_backend_scope_check(const char *scope)
{
	if (scope && (!strcmp(scope, "session") || !strcmp(scope, "user") || !strcmp(scope, "agent")))
		return 0;
	return ac_error_set(AC_EINVAL, "scope '%.64s': must be session, user or agent",
			    scope ? scope : "");
}

void ac_backend_compact_options_init(ac_backend_compact_options *opts)
{
	*opts = (ac_backend_compact_options)AC_BACKEND_COMPACT_OPTIONS_INIT;
}

int ac_backend_compact_options_check(const ac_backend_compact_options *opts)
{
	int rc;

	if (!opts)
		return 0;
	if ((rc = ac_struct_version_check("ac_backend_compact_options", opts->version,
					  AC_BACKEND_COMPACT_OPTIONS_VERSION,
					  "AC_BACKEND_COMPACT_OPTIONS_INIT")))
		return rc;
	return ac_compact_options_check(&opts->compact);
}

int ac_backend_compact_begin(const ac_backend_compact_options **opts,
			     ac_backend_compact_options *defaults,
			     ac_backend_compact_result **out, ac_backend_compact_result *ignored,
			     const char *tenant, const char *session_id)
{
	int rc;

	if ((rc = ac_backend_compact_options_check(*opts)))
		return rc;
	if (!*opts) {
		ac_backend_compact_options_init(defaults);
		*opts = defaults;
	}
	if (!*out)
		*out = ignored;
	memset(*out, 0, sizeof(**out));
	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", session_id)))
		return rc;
	if (!((*opts)->compact.fraction > 0 && (*opts)->compact.fraction <= 1))
		return ac_error_set(AC_EINVAL, "compaction fraction %g: must be in (0, 1]",
				    (*opts)->compact.fraction);
	return 0;
}

/* ---- shared by the fs files ---- */

void ac_backend_fs_reached(const ac_backend_fs *fs, const char *point)
{
	if (fs->test_hook)
		fs->test_hook(point, fs->test_hook_ctx);
}

int ac_backend_fs_owned(const json_t *root, const char *tenant, const char *session_id)
{
	const char *owner = json_string_value(
		json_object_get(json_object_get(root, "metadata"), "tenantId"));

	if (!owner || strcmp(owner, tenant) != 0)
		return ac_error_set(AC_ENOTFOUND, "session '%s' not found for tenant '%s'",
				    session_id, tenant);
	return 0;
}

int ac_backend_fs_names(char ***out, size_t *out_n, const char *dir)
{
	size_t kept = 0;
	int rc;

	if ((rc = ac_file_list(out, out_n, dir, false)))
		return rc;
	/* A store's own files (temp files, locks) are not names. */
	for (size_t i = 0; i < *out_n; i++) {
		char *name = (*out)[i];
		size_t len = strlen(name);

		if (ends_with(name, len, ".tmp") || ends_with(name, len, ".lock"))
			free(name);
		else
			(*out)[kept++] = name;
	}
	*out_n = kept;
	return 0;
}

/* ---- the session store ---- */

static int check_session(const char *tenant, const char *session_id)
{
	int rc;

	if ((rc = ac_backend_id_check("tenant", tenant)) ||
	    (rc = ac_backend_id_check("session", session_id)))
		return rc;
	return 0;
}

static int fs_get_or_create(void *impl, char **out_id, const char *tenant, const char *user,
			    const char *agent, const char *session_id)
{
	ac_backend_fs *fs = impl;
	ac_session *s = NULL;
	int rc;

	if ((rc = ac_backend_new_session_check(tenant, user, agent, session_id)))
		return rc;
	rc = ac_session_get_or_create(&s, fs->sessions_dir, tenant, user, agent, session_id);
	/* Another process created it between our look and our create. */
	if (rc == AC_EINVAL && session_id)
		rc = ac_session_get_or_create(&s, fs->sessions_dir, tenant, user, agent, session_id);
	if (rc)
		return rc;
	if (!(*out_id = strdup(ac_session_id(s))))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	ac_session_free(s);
	return rc;
}

static int fs_create(void *impl, char **out_id, const char *tenant, const char *user,
		     const char *agent, const char *session_id, const char *task)
{
	ac_backend_fs *fs = impl;
	ac_session *s = NULL;
	int rc;

	*out_id = NULL;
	if ((rc = ac_backend_new_session_check(tenant, user, agent, session_id)))
		return rc;
	if ((rc = ac_session_create(&s, fs->sessions_dir, session_id, task, tenant, user, agent)))
		return rc;
	if (!(*out_id = strdup(ac_session_id(s))))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	ac_session_free(s);
	return rc;
}

int ac_backend_fs_load_owned(ac_session **out, const ac_backend_fs *fs, const char *tenant,
			     const char *session_id)
{
	ac_session *s = NULL;
	int rc;

	if ((rc = check_session(tenant, session_id)))
		return rc;
	rc = ac_session_load(&s, fs->sessions_dir, session_id);
	if (rc == AC_ENOTFOUND)
		return ac_error_set(AC_ENOTFOUND, "session '%s' not found for tenant '%s'",
				    session_id, tenant);
	if (rc == 0 && (rc = ac_backend_fs_owned(ac_session_root(s), tenant, session_id)) != 0) {
		ac_session_free(s);
		return rc;
	}
	*out = s;
	return rc;
}

static int fs_load_all(void *impl, json_t **out, const char *tenant, const char *session_id)
{
	ac_session *s = NULL;
	int rc;

	if ((rc = ac_backend_fs_load_owned(&s, impl, tenant, session_id)))
		return rc;
	*out = json_incref(ac_session_messages(s));
	ac_session_free(s);
	return 0;
}

static int fs_load_last(void *impl, json_t **out, const char *tenant, const char *session_id,
			size_t n)
{
	ac_session *s = NULL;
	int rc;

	if ((rc = ac_backend_fs_load_owned(&s, impl, tenant, session_id)))
		return rc;
	if (!(*out = ac_session_last_messages(s, n)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	ac_session_free(s);
	return rc;
}

static int fs_load_within(void *impl, json_t **out, const char *tenant, const char *session_id,
			  uint64_t budget)
{
	ac_session *s = NULL;
	int rc;

	if ((rc = ac_backend_fs_load_owned(&s, impl, tenant, session_id)))
		return rc;
	if (!(*out = ac_session_messages_within(s, ac_backend_token_budget(budget))))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	ac_session_free(s);
	return rc;
}

static int fs_get(void *impl, json_t **out, const char *tenant, const char *session_id)
{
	ac_session *s = NULL;
	int rc;

	*out = NULL;
	if ((rc = ac_backend_fs_load_owned(&s, impl, tenant, session_id)))
		return rc;
	*out = json_incref(ac_session_root(s));
	ac_session_free(s);
	return 0;
}

typedef struct {
	const char *tenant, *session_id, *from, *to;
} status_change;

/* Judged on the file's current content: the compare of the compare-and-set. */
static int status_owned(json_t *root, void *ctx)
{
	const status_change *c = ctx;
	const char *now = json_string_value(json_object_get(root, "status"));
	int rc;

	if ((rc = ac_backend_fs_owned(root, c->tenant, c->session_id)))
		return rc;
	if (!now || strcmp(now, c->from))
		return ac_error_set(AC_ECONFLICT, "session %s: status is no longer %s", c->session_id,
				    c->from);
	if (json_object_set_new(root, "status", json_string(c->to)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

static int fs_set_status(void *impl, const char *tenant, const char *session_id,
			 const char *from, const char *to)
{
	ac_backend_fs *fs = impl;
	status_change change = {tenant, session_id, from, to};
	int rc;

	if ((rc = check_session(tenant, session_id)) || (rc = ac_backend_status_check(from, to)))
		return rc;
	rc = ac_session_update(NULL, fs->sessions_dir, session_id, status_owned, &change);
	if (rc == AC_ENOTFOUND)
		rc = ac_error_set(AC_ENOTFOUND, "session '%s' not found for tenant '%s'", session_id,
				  tenant);
	return rc;
}

typedef struct {
	const char *tenant;
	const char *session_id;
	const json_t *messages;
	const ac_usage *usage;
} turn_change;

/* Changes are judged on the file's current content, tenant included, so a
 * session that changed hands between a check and a write is never touched. */
static int append_owned(json_t *root, void *ctx)
{
	const turn_change *t = ctx;
	int rc;

	if ((rc = ac_backend_fs_owned(root, t->tenant, t->session_id)))
		return rc;
	if ((rc = ac_session_history_append(root, t->messages)) == AC_ECORRUPT)
		rc = ac_error_set(rc, "session %s: conversationHistory is not an array",
				  t->session_id);
	return rc;
}

/* The tenant check record_turn runs before each of its rewrites. */
static int owned_guard(json_t *root, void *ctx)
{
	const turn_change *t = ctx;

	return ac_backend_fs_owned(root, t->tenant, t->session_id);
}

typedef struct {
	const ac_backend_fs *fs;
	const turn_change *turn;
} turn_hooks;

static int turn_guard(json_t *root, void *ctx)
{
	return owned_guard(root, (void *)((turn_hooks *)ctx)->turn);
}

static void turn_reached(const char *point, void *ctx)
{
	ac_backend_fs_reached(((turn_hooks *)ctx)->fs, point);
}

int ac_backend_messages_check(const json_t *messages)
{
	json_t *msg;
	size_t i;

	if (!json_is_array(messages))
		return ac_error_set(AC_EINVAL, "messages: must be an array");
	json_array_foreach(messages, i, msg)
		if (!json_is_object(msg))
			return ac_error_set(AC_EINVAL, "messages[%zu]: must be an object", i);
	return 0;
}

static int fs_append(void *impl, const char *tenant, const char *session_id,
		     const json_t *messages)
{
	ac_backend_fs *fs = impl;
	turn_change t = {tenant, session_id, messages, NULL};
	int rc;

	if ((rc = check_session(tenant, session_id)) || (rc = ac_backend_messages_check(messages)))
		return rc;
	return ac_session_update(NULL, fs->sessions_dir, session_id, append_owned, &t);
}

/* The rows live beside the session files (ac_turn_usage.h says why there
 * and not in the document). */
static int fs_record_turn(void *impl, const char *tenant, const char *session_id,
			  const json_t *messages, const ac_usage *usage)
{
	ac_backend_fs *fs = impl;
	turn_change t = {tenant, session_id, messages, usage};
	turn_hooks th = {fs, &t};
	ac_turn_usage_hooks hooks = {turn_guard, turn_reached, &th};
	int rc;

	if ((rc = check_session(tenant, session_id)) ||
	    (messages && (rc = ac_backend_messages_check(messages))))
		return rc;
	rc = ac_turn_usage_record(NULL, NULL, fs->sessions_dir, session_id, messages, usage, &hooks);
	if (rc == AC_ENOTFOUND)
		rc = ac_error_set(AC_ENOTFOUND, "session '%s' not found for tenant '%s'", session_id,
				  tenant);
	return rc;
}

static int fs_load_usage(void *impl, json_t **out, const char *tenant, const char *session_id)
{
	ac_backend_fs *fs = impl;
	ac_session *s = NULL;
	int rc;

	*out = NULL;
	if ((rc = check_session(tenant, session_id)))
		return rc;
	if ((rc = ac_session_load(&s, fs->sessions_dir, session_id)) ||
	    (rc = ac_backend_fs_owned(ac_session_root(s), tenant, session_id)))
		goto done;
	rc = ac_turn_usage_load(out, fs->sessions_dir, session_id,
				json_object_get(json_object_get(ac_session_root(s), "metadata"),
						"usage"));
done:
	if (rc == AC_ENOTFOUND)
		rc = ac_error_set(AC_ENOTFOUND, "session '%s' not found for tenant '%s'", session_id,
				  tenant);
	ac_session_free(s);
	return rc;
}

/* ---- listings ---- */

static char *copy(const char *s)
{
	return strdup(s ? s : "");
}

/* info from an index summary: 0 or AC_ENOMEM (info then half-filled, for
 * the caller to clear). The files record no writer: host and writer "". */
static int info_from_summary(ac_backend_session_info *info, const ac_session_summary *s)
{
	info->tenant = copy(s->tenant);
	info->session_id = copy(s->id);
	info->user = copy(s->user);
	info->agent = copy(s->agent);
	info->status = copy(s->status);
	info->updated_at = copy(s->updated_at);
	info->host = copy("");
	info->writer = copy("");
	info->task = copy(s->task);
	info->created_at = copy(s->created_at);
	if (!info->tenant || !info->session_id || !info->user || !info->agent || !info->status ||
	    !info->updated_at || !info->host || !info->writer || !info->task || !info->created_at)
		return ac_error_set(AC_ENOMEM, "out of memory");
	info->messages = s->messages;
	info->tokens = s->tokens;
	info->input_tokens = s->input_tokens;
	info->output_tokens = s->output_tokens;
	info->turns = s->turns;
	return 0;
}

static int list_sessions(ac_backend_fs *fs, ac_backend_session_info **out, size_t *out_n,
			 const char *tenant, const char *user)
{
	const ac_session_summary *const *all;
	ac_backend_session_info *list = NULL;
	size_t n_all, n = 0;
	int rc;

	*out = NULL;
	*out_n = 0;
	if ((rc = ac_session_index_refresh(fs->index, NULL, NULL, NULL)))
		return rc;
	all = ac_session_index_list(fs->index, &n_all);
	if (n_all && !(list = calloc(n_all, sizeof(*list))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n_all; i++) {
		const ac_session_summary *s = all[i];

		if ((tenant && strcmp(s->tenant, tenant)) || (user && strcmp(s->user, user)))
			continue;
		if ((rc = info_from_summary(&list[n++], s))) {
			ac_backend_sessions_free(list, n);
			return rc;
		}
	}
	*out = list;
	*out_n = n;
	return 0;
}

static int fs_list_user_sessions(void *impl, ac_backend_session_info **out, size_t *out_n,
				 const char *tenant, const char *user)
{
	int rc;

	*out = NULL;
	*out_n = 0;
	if ((rc = ac_backend_id_check("tenant", tenant)) || (rc = ac_backend_id_check("user", user)))
		return rc;
	return list_sessions(impl, out, out_n, tenant, user);
}

static int fs_inspector_list(void *impl, ac_backend_session_info **out, size_t *out_n,
			     const char *tenant)
{
	int rc;

	*out = NULL;
	*out_n = 0;
	if (tenant && (rc = ac_backend_id_check("tenant", tenant)))
		return rc;
	return list_sessions(impl, out, out_n, tenant, NULL);
}

static int fs_inspector_find(void *impl, ac_backend_session_info *out, const char *session_id)
{
	ac_backend_fs *fs = impl;
	const ac_session_summary *const *all;
	size_t n_all;
	int rc;

	*out = (ac_backend_session_info){0};
	if ((rc = ac_backend_id_check("session", session_id)) ||
	    (rc = ac_session_index_refresh(fs->index, NULL, NULL, NULL)))
		return rc;
	all = ac_session_index_list(fs->index, &n_all);
	for (size_t i = 0; i < n_all; i++) {
		if (strcmp(all[i]->id, session_id))
			continue;
		if ((rc = info_from_summary(out, all[i])))
			ac_backend_session_info_clear(out);
		return rc;
	}
	return ac_error_set(AC_ENOTFOUND, "session '%s' not found", session_id);
}

/* ---- set-up ---- */

static const char *fs_local_sessions(const ac_backend *b)
{
	return ((const ac_backend_fs *)b->impl)->sessions_dir;
}

static void fs_free(void *impl)
{
	ac_backend_fs *fs = impl;

	if (!fs)
		return;
	ac_session_index_free(fs->index);
	free(fs->sessions_dir);
	free(fs->data_dir);
	free(fs);
}

int ac_backend_fs_init(ac_backend *out, const ac_backend_fs_options *opts)
{
	ac_backend_fs *fs;
	int rc;

	*out = (ac_backend){0};
	if (opts && (rc = ac_struct_version_check("file-system backend options", opts->version,
						  AC_BACKEND_FS_OPTIONS_VERSION,
						  "AC_BACKEND_FS_OPTIONS_INIT")))
		return rc;
	if (!opts || !opts->sessions_dir || !*opts->sessions_dir || !opts->data_dir ||
	    !*opts->data_dir)
		return ac_error_set(AC_EINVAL, "file-system backend: sessions_dir and data_dir are needed");
	if (!(fs = calloc(1, sizeof(*fs))) || !(fs->sessions_dir = strdup(opts->sessions_dir)) ||
	    !(fs->data_dir = strdup(opts->data_dir))) {
		fs_free(fs);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	if ((rc = ac_session_index_new(&fs->index, fs->sessions_dir))) {
		fs_free(fs);
		return rc;
	}
	fs->test_hook = opts->test_hook;
	fs->test_hook_ctx = opts->test_hook_ctx;
	*out = (ac_backend){
		.version = AC_BACKEND_VERSION,
		.name = "fs",
		.impl = fs,
		.session = {
			.get_or_create = fs_get_or_create,
			.create = fs_create,
			.load_all = fs_load_all,
			.load_last = fs_load_last,
			.load_within = fs_load_within,
			.append = fs_append,
			.record_turn = fs_record_turn,
			.load_usage = fs_load_usage,
			.compact_if_needed = ac_backend_fs_compact,
			.get = fs_get,
			.set_status = fs_set_status,
		},
		.users = {.list = fs_list_user_sessions},
		.inspector = {.list_sessions = fs_inspector_list, .find = fs_inspector_find},
		.optional = {.local_sessions = fs_local_sessions},
		.free = fs_free,
	};
	ac_backend_fs_fill_files(out);
	ac_backend_fs_fill_logs(out);
	ac_backend_fs_fill_copy(out);
	return 0;
}

const char *ac_backend_trace_kind(const json_t *envelope)
{
	static const char *const keys[] = {"type", "kind", "event", "name"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = json_string_value(json_object_get(envelope, keys[i]));

		if (v && *v)
			return v;
	}
	return "-";
}
