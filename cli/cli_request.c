/* --request-id ID on the commands that write a session (create, append,
 * record-turn, pause, resume, complete, fail, compact): the idempotency
 * key an agent retries a write under when its answer was lost, so the
 * write is made once and the retry prints the first answer, exit 0. The
 * same id with another write is refused, one line, exit 1.
 *
 * A database store keeps the keys (ac_backend.h section 9). The session
 * files do not: a write there is a rename whose key could not be made in
 * the same step, so --request-id on files is refused (exit 2) rather than
 * promising what a retry would break. */
#include "cli.h"

#include "ac_error.h"

#include <string.h>

int cli_request_take(cli_context *ctx, int *argc, char **argv, const char *command)
{
	int status = CLI_OK;

	for (int i = 0; i < *argc; i++) {
		const char *id = NULL;
		int at = i;

		if (!strcmp(argv[i], "--"))
			break; /* what follows is not an option (a task) */
		if (!cli_option(&id, "--request-id", *argc, argv, &i, &status))
			continue;
		if (status)
			return status;
		if (ctx->request_id)
			return cli_error(CLI_USAGE, "session %s: --request-id given twice", command);
		if (ac_backend_id_check("--request-id", id))
			return cli_error(CLI_USAGE, "session %s: %s", command, ac_error_last());
		{
			ac_backend *b = NULL;
			bool kept;

			if ((status = cli_open_backend(&b, ctx)))
				return status;
			kept = ac_backend_has_request_keys(b);
			cli_close_backend(ctx, b);
			if (!kept)
				return cli_error(CLI_USAGE, "session %s: --request-id: the session files "
						 "keep no request ids (a database store does: "
						 "storage.url); nothing written", command);
		}
		ctx->request_id = id;
		/* Taken out, so the command parses the rest as before. */
		memmove(&argv[at], &argv[i + 1], (size_t)(*argc - i - 1) * sizeof(*argv));
		*argc -= i + 1 - at;
		i = at - 1;
	}
	return CLI_OK;
}

int cli_request_use(const ac_backend *b, const cli_context *ctx, const char *command)
{
	if (!ctx->request_id)
		return CLI_OK;
	if (!ac_backend_has_request_keys(b))
		return cli_error(CLI_USAGE, "session %s: --request-id: this store keeps no request ids",
				 command);
	if (ac_backend_request_use(b, ctx->request_id))
		return cli_error(CLI_USAGE, "session %s: %s", command, ac_error_last());
	return CLI_OK;
}

bool cli_request_replayed(const ac_backend *b, const cli_context *ctx, const char *key,
			  long long *out)
{
	json_t *answer = NULL;
	bool replayed = false;

	if (!ctx->request_id || !ac_backend_has_request_keys(b) ||
	    ac_backend_request_answer(b, &answer, &replayed) != 0) {
		ac_error_clear();
		return false;
	}
	if (out && json_is_integer(json_object_get(answer, key)))
		*out = (long long)json_integer_value(json_object_get(answer, key));
	json_decref(answer);
	return replayed;
}

int cli_request_status(const ac_backend *b, const cli_context *ctx, const char *id,
		       const char *to, bool *out_retry)
{
	ac_backend_session_info info = {0};
	json_t *args = NULL, *answer = NULL;
	int rc, status = CLI_OK;

	*out_retry = false;
	if (!ctx->request_id || !ac_backend_has_request_keys(b))
		return cli_request_use(b, ctx, "status change");
	/* No such session: the change itself says so. */
	if (ac_backend_inspector_find(b, &info, id) != 0) {
		ac_error_clear();
		return cli_request_use(b, ctx, "status change");
	}
	if (!(args = json_pack("{s:s, s:s}", "session", id, "to", to))) {
		status = cli_error(CLI_FAILED, "out of memory");
		goto done;
	}
	rc = ac_backend_request_check(b, &answer, info.tenant, ctx->request_id, "session.set_status",
			      args);
	if (rc == 0)
		*out_retry = true;
	else if (rc == AC_ENOTFOUND)
		status = cli_request_use(b, ctx, "status change");
	else
		status = cli_error(CLI_FAILED, "%s", ac_error_last());
done:
	json_decref(args);
	json_decref(answer);
	ac_backend_session_info_clear(&info);
	return status;
}
