/* The workspace's store (ac_workspace.h): the one place that decides
 * whether sessions are the workspace's files or rows in the database
 * storage.url names, and keeps what it opened for the next caller.
 *
 * A backend serves one thread at a time (ac_backend.h), and the dashboard
 * runs actions on a worker thread beside the one that draws: so the
 * workspace keeps a small pool. A thread asking again while it holds one
 * gets the same (an operator action inside a command shares its
 * connection); another thread gets one that is free, else a new one, kept
 * for later. */
#include "ac_workspace.h"

#include "ac_backend_fs.h"
#include "ac_backend_pg.h"
#include "ac_buf.h"
#include "ac_error.h"

#include <pthread.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	ac_backend b;
	pthread_t owner;
	unsigned depth; /* 0: free */
} store_slot;

struct ac_workspace_stores {
	pthread_mutex_t lock;
	store_slot **slots;
	size_t n;
	char *where;    /* the session folder, or the URL without its password */
};

int ac_workspace_stores_new(ac_workspace_stores **out, const ac_workspace *ws)
{
	ac_workspace_stores *s = calloc(1, sizeof(*s));
	const char *url = NULL;

	*out = NULL;
	if (!s)
		return ac_error_set(AC_ENOMEM, "out of memory");
	/* Only for messages: an untrusted storage.url is refused when the
	 * store is opened, and is still what the operator configured. */
	if (ws->config && ac_storage_url(&url, ws->config) != 0) {
		ac_error_clear();
		url = ac_config_string(ws->config, "storage.url", NULL);
	}
	s->where = url && *url ? ac_storage_url_redact(url) : strdup(ws->sessions_dir);
	if (!s->where) {
		free(s);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	pthread_mutex_init(&s->lock, NULL);
	*out = s;
	return 0;
}

void ac_workspace_stores_free(ac_workspace_stores *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		ac_backend_close(&s->slots[i]->b);
		free(s->slots[i]);
	}
	free(s->slots);
	free(s->where);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int ac_workspace_store_url(const char **out, const ac_workspace *ws)
{
	int rc;

	*out = NULL;
	if (ws->config && (rc = ac_storage_url(out, ws->config)))
		return rc;
	if (*out && !**out)
		*out = NULL;
	return 0;
}

/* Opens the store configuration names: PostgreSQL when storage.url
 * (trusted) is set, else the workspace's files. */
static int open_store(ac_backend *out, const ac_workspace *ws)
{
	ac_buf data_dir = AC_BUF_INIT;
	const char *url = NULL;
	int rc;

	if ((rc = ac_workspace_store_url(&url, ws)))
		return rc;
	if (url)
		return ac_backend_pg_init(out, &(ac_backend_pg_options){.version = AC_BACKEND_PG_OPTIONS_VERSION,
			.url = url});
	if (ac_buf_printf(&data_dir, "%s/.agent", ws->root))
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = ac_backend_fs_init(out, &(ac_backend_fs_options){.version = AC_BACKEND_FS_OPTIONS_VERSION,
		.sessions_dir = ws->sessions_dir,
							      .data_dir = data_dir.data});
	ac_buf_free(&data_dir);
	return rc;
}

/* The slot this thread holds, else a free one (taken); NULL when none. */
static store_slot *find_slot(ac_workspace_stores *s, pthread_t self)
{
	store_slot *free_slot = NULL;

	for (size_t i = 0; i < s->n; i++) {
		if (s->slots[i]->depth && pthread_equal(s->slots[i]->owner, self))
			return s->slots[i];
		if (!s->slots[i]->depth && !free_slot)
			free_slot = s->slots[i];
	}
	return free_slot;
}

int ac_workspace_store(ac_backend **out, const ac_workspace *ws)
{
	ac_workspace_stores *s = ws->stores;
	pthread_t self = pthread_self();
	store_slot *slot, **grown;
	int rc = 0;

	*out = NULL;
	if (!s) {
		/* A workspace filled by hand: a store of its own, closed on release. */
		if (!(slot = calloc(1, sizeof(*slot))))
			return ac_error_set(AC_ENOMEM, "out of memory");
		if ((rc = open_store(&slot->b, ws))) {
			free(slot);
			return rc;
		}
		*out = &slot->b;
		return 0;
	}
	pthread_mutex_lock(&s->lock);
	if ((slot = find_slot(s, self))) {
		slot->owner = self;
		slot->depth++;
		*out = &slot->b;
		goto done;
	}
	/* Opened outside the lock would let two threads race for a slot;
	 * opening is rare (once per thread that needs one). */
	if (!(grown = realloc(s->slots, (s->n + 1) * sizeof(*grown)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	s->slots = grown;
	if (!(slot = calloc(1, sizeof(*slot)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = open_store(&slot->b, ws))) {
		free(slot);
		goto done;
	}
	slot->owner = self;
	slot->depth = 1;
	s->slots[s->n++] = slot;
	*out = &slot->b;
done:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void ac_workspace_store_release(const ac_workspace *ws, ac_backend *b)
{
	ac_workspace_stores *s = ws->stores;

	if (!b)
		return;
	if (!s) {
		ac_backend_close(b);
		free((store_slot *)b); /* b is its slot's first member */
		return;
	}
	/* By impl: a caller may hand back a copy of the value it was lent. */
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n; i++)
		if (s->slots[i]->b.impl == b->impl && s->slots[i]->depth)
			s->slots[i]->depth--;
	pthread_mutex_unlock(&s->lock);
}

const char *ac_workspace_store_where(const ac_workspace *ws)
{
	return ws->stores ? ws->stores->where : ws->sessions_dir;
}

int ac_workspace_store_check(ac_workspace_store_report *out, const ac_workspace *ws)
{
	const char *url = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	out->kind = "files";
	if ((rc = ac_workspace_store_url(&url, ws)))
		return rc;
	if (!(out->where = strdup(ac_workspace_store_where(ws))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (!url)
		return 0;
	out->kind = "postgresql";
	out->versioned = true;
	return ac_storage_check_url(url, &out->version, &out->latest, &out->missing);
}

void ac_workspace_store_report_clear(ac_workspace_store_report *report)
{
	free(report->where);
	memset(report, 0, sizeof(*report));
}

int ac_workspace_tenant(char **out, const ac_workspace *ws)
{
	const char *tenant = ws->config ? ac_config_string(ws->config, "storage.tenant", NULL) : NULL;
	struct passwd *pw;

	*out = NULL;
	if (!tenant || !*tenant) {
		if (!(pw = getpwuid(geteuid())) || !pw->pw_name || !*pw->pw_name)
			return ac_error_set(AC_ENOTFOUND, "no tenant: set storage.tenant (user %ld "
					    "has no name)", (long)geteuid());
		tenant = pw->pw_name;
	}
	if (ac_backend_id_check("tenant", tenant)) {
		char *why = strdup(ac_error_last());
		int rc = ac_error_set(AC_EINVAL, "storage.tenant (%s): %s",
				      ws->config && ac_config_get(ws->config, "storage.tenant")
					      ? ac_config_origin(ws->config, "storage.tenant")
					      : "the user's name",
				      why ? why : "not a valid tenant");

		free(why);
		return rc;
	}
	if (!(*out = strdup(tenant)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}
