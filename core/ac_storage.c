/* storage.url as configuration gives it (the configuration,
 * AGENT_STORAGE_URL or --storage), trusted as a command is, and what
 * `storage check` reads of a database. Which store a workspace uses is
 * decided in one place: ac_workspace_store.c. */
#include "ac_backend_pg.h"

#include "ac_config.h"
#include "ac_error.h"
#include "ac_pg.h"
#include "ac_pg_schema.h"
#include "ac_workspace.h"

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
