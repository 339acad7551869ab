/* Which store a workspace uses: PostgreSQL when storage.url is set (the
 * configuration, AGENT_STORAGE_URL or --storage), else its files. The one
 * place commands open a backend, and what `storage check` reports. */
#include "ac_backend_pg.h"

#include "ac_config.h"
#include "ac_error.h"
#include "ac_pg.h"
#include "ac_pg_schema.h"

#include <stdlib.h>
#include <string.h>

char *ac_storage_url_redact(const char *url)
{
	return ac_pg_redact(url);
}

int ac_storage_url(const char **out, const ac_config *config)
{
	json_t *value = NULL;
	int rc;

	*out = NULL;
	if ((rc = ac_config_command(&value, config, "storage.url")))
		return rc;
	*out = json_string_value(value);
	return 0;
}

int ac_backend_open(ac_backend *out, const ac_config *config, const char *sessions_dir,
		    const char *data_dir)
{
	const char *url = NULL;
	int rc;

	if ((rc = ac_storage_url(&url, config)))
		return rc;
	if (url && *url) {
		ac_backend_pg_options pg = {.url = url};

		return ac_backend_pg_init(out, &pg);
	}
	return ac_backend_fs_init(out, &(ac_backend_fs_options){.sessions_dir = sessions_dir,
							       .data_dir = data_dir});
}

int ac_storage_check(char **out_store, int *out_version, int *out_latest, int *out_missing,
		     const ac_config *config, const char *sessions_dir)
{
	const char *url = NULL;
	int rc;

	*out_store = NULL;
	*out_version = *out_latest = *out_missing = 0;
	if ((rc = ac_storage_url(&url, config)))
		return rc;
	if (!url || !*url) {
		if (!(*out_store = strdup(sessions_dir)))
			return ac_error_set(AC_ENOMEM, "out of memory");
		return 0;
	}
	if (!(*out_store = ac_pg_redact(url)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return ac_storage_check_url(url, out_version, out_latest, out_missing);
}

int ac_storage_check_url(const char *url, int *out_version, int *out_latest, int *out_missing)
{
	ac_pg *pg = NULL;
	int rc;

	*out_version = *out_missing = 0;
	*out_latest = ac_pg_schema_latest();
	if ((rc = ac_pg_open(&pg, url, NULL)) == 0)
		rc = ac_pg_schema_check(pg, out_version, out_missing);
	ac_pg_close(pg);
	return rc;
}
