/* User-memory consolidation: gather a user's session notes, run the
 * summariser command on them, write USER.md, refresh the mirrors
 * (ac_consolidate.h). */
#include "ac_consolidate.h"

#include "ac_backend_sys.h"
#include "ac_compact.h"
#include "ac_error.h"
#include "ac_struct_version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ac_consolidate_result_free(ac_consolidate_result *result)
{
	if (!result)
		return;
	ac_sandbox_result_free(&result->refreshed);
	memset(result, 0, sizeof(*result));
}

/* [{"name", "content"}] of one session's session-scope documents. */
static int session_notes(json_t **out, const ac_backend *b, const char *tenant,
			 const char *session_id)
{
	char **names = NULL, *text = NULL;
	size_t n = 0, len;
	int rc;

	if (!(*out = json_array()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = b->memo.list(b->impl, &names, &n, tenant, session_id, "session")))
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		json_t *content;

		if ((rc = b->memo.read(b->impl, &text, &len, tenant, session_id, "session",
				       names[i])))
			break;
		/* A note that is not UTF-8 text cannot go into the JSON input. */
		content = json_stringn(text, len);
		free(text);
		if (!content) {
			rc = ac_error_set(AC_ECORRUPT, "memo %s/%s/session/%s: not UTF-8 text", tenant,
					  session_id, names[i]);
			break;
		}
		if (json_array_append_new(*out, json_pack("{s:s, s:o}", "name", names[i], "content",
							  content)))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
	}
	ac_backend_names_free(names, n);
	return rc;
}

/* The command's input, as ac_consolidate.h describes it. */
static int build_input(json_t **out, ac_consolidate_result *result, const ac_backend *b,
		       const char *tenant, const char *user)
{
	ac_backend_session_info *list = NULL;
	json_t *sessions = json_array(), *notes = NULL;
	char *current = NULL;
	size_t n = 0, len = 0;
	int rc;

	*out = NULL;
	if (!sessions)
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = b->memo.read(b->impl, &current, &len, tenant, user, "user", AC_CONSOLIDATE_DOCUMENT);
	if (rc == AC_ENOTFOUND)
		ac_error_clear(), rc = 0;
	if (rc || (rc = b->users.list(b->impl, &list, &n, tenant, user)))
		goto done;
	for (size_t i = 0; i < n && !rc; i++) {
		if ((rc = session_notes(&notes, b, tenant, list[i].session_id)))
			break;
		if (json_array_size(notes)) {
			result->sessions++;
			result->notes += json_array_size(notes);
			if (json_array_append_new(sessions,
						  json_pack("{s:s, s:s, s:O}", "sessionId",
							    list[i].session_id, "updatedAt",
							    list[i].updated_at, "notes", notes)))
				rc = ac_error_set(AC_ENOMEM, "out of memory");
		}
		json_decref(notes);
		notes = NULL;
	}
	if (!rc && !(*out = json_pack("{s:s, s:s, s:s%, s:O}", "tenantId", tenant, "userId", user,
				      "current", current ? current : "", len, "sessions", sessions)))
		rc = ac_error_set(AC_ECORRUPT, "memo %s/%s/user/%s: not UTF-8 text", tenant, user,
				  AC_CONSOLIDATE_DOCUMENT);
done:
	json_decref(notes);
	json_decref(sessions);
	ac_backend_sessions_free(list, n);
	free(current);
	return rc;
}

/* 0 when opts and its sandbox member are of this library's version. */
static int options_check(const ac_consolidate_options *opts)
{
	int rc;

	if ((rc = ac_struct_version_check("ac_consolidate_options", opts->version,
					  AC_CONSOLIDATE_OPTIONS_VERSION,
					  "AC_CONSOLIDATE_OPTIONS_INIT")))
		return rc;
	return ac_struct_version_check("ac_consolidate_options' ac_sandbox_options",
				       opts->sandbox.version, AC_SANDBOX_OPTIONS_VERSION,
				       "AC_SANDBOX_OPTIONS_INIT");
}

int ac_consolidate_user(ac_consolidate_result *out, const ac_backend *b, const char *tenant,
			const char *user, const ac_consolidate_options *opts)
{
	json_t *input = NULL;
	char *summary = NULL;
	size_t len;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_backend_version_check(b)) || (opts && (rc = options_check(opts))))
		return rc;
	if (!opts || !opts->command || !opts->command[0])
		return ac_error_set(AC_EINVAL, "memory.consolidateCommand is not set");
	if ((rc = ac_backend_id_check("tenant", tenant)) || (rc = ac_backend_id_check("user", user)))
		return rc;
	if ((rc = build_input(&input, out, b, tenant, user)) || !out->notes)
		goto done;
	if ((rc = ac_summarize_command(&summary, opts->command, input,
				       opts->timeout_ms ? opts->timeout_ms : AC_CONSOLIDATE_TIMEOUT_MS))) {
		char why[512];

		snprintf(why, sizeof(why), "%s", ac_error_last());
		rc = ac_error_set(rc, "memory.consolidateCommand for user %s/%s: %s", tenant, user, why);
		goto done;
	}
	/* The command's output is trimmed; a document ends with a line break. */
	len = strlen(summary);
	summary[len] = '\n';
	if ((rc = b->memo.write(b->impl, tenant, user, "user", AC_CONSOLIDATE_DOCUMENT, summary,
				len + 1)))
		goto done;
	out->written = true;
	if (opts->sandbox.registry_dir)
		rc = ac_sandbox_refresh_user(&out->refreshed, b, tenant, user, &opts->sandbox);
done:
	free(summary);
	json_decref(input);
	return rc;
}
