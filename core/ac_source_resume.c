/* Resuming a session with its own tool on the operator's terminal
 * (ac_source.h): the configured command, the id a whole argument and in
 * AGENT_SESSION_ID, through the process runner (ac_proc.h). */
#include "ac_source.h"

#include "ac_error.h"
#include "ac_proc.h"

#include <stdlib.h>
#include <string.h>

struct ac_source_resume {
	char **argv; /* the command, "{id}" filled */
	char *id;
};

int ac_source_resume_new(ac_source_resume **out, const ac_config *config, ac_source_kind kind,
			 const char *id)
{
	static const char *const names[] = AC_PROC_PLACEHOLDERS;
	const char *const values[] = {id, NULL};
	const char **template = NULL;
	ac_source_resume *r = NULL;
	int rc;

	*out = NULL;
	if ((rc = ac_source_id_check(id)) || (rc = ac_source_resume_command(&template, config, kind)))
		goto done;
	if (!(r = calloc(1, sizeof(*r))) || !(r->id = strdup(id))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = ac_proc_expand_argv(&r->argv, template, names, values)))
		goto done;
	*out = r;
	r = NULL;
done:
	ac_source_resume_free(r);
	free(template);
	return rc;
}

const char *ac_source_resume_program(const ac_source_resume *r)
{
	return r->argv[0];
}

int ac_source_resume_run(int *out_status, const ac_source_resume *r, const char *cwd)
{
	const char *const env[] = {"AGENT_SESSION_ID", r->id, NULL};

	return ac_proc_run_attached(out_status, (const char *const *)r->argv, env, cwd);
}

void ac_source_resume_free(ac_source_resume *r)
{
	if (!r)
		return;
	ac_proc_argv_free(r->argv);
	free(r->id);
	free(r);
}
