/* agentctl config show [--origin] [--json] | trust [--sha256 HEX] */
#include "cli.h"


#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_text.h"

#include <stdlib.h>
#include <string.h>

static int compare_keys(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* key's value as shown (a new reference): storage.url never with its
 * password. NULL when out of memory. */
static json_t *shown_value(const char *key, json_t *value)
{
	char *url;
	json_t *masked;

	if (strcmp(key, "storage.url") != 0 || !json_is_string(value))
		return json_incref(value);
	url = ac_storage_url_redact(json_string_value(value));
	masked = json_string(url ? url : "?");
	free(url);
	return masked;
}

/* The project file's gated keys as shown (a new object, NULL when out of
 * memory). */
static json_t *gated_shown(const ac_config *config)
{
	json_t *out = json_object(), *value;
	const char *key;

	json_object_foreach(ac_config_project_gated(config), key, value)
		if (!out || json_object_set_new(out, key, shown_value(key, value)) != 0) {
			json_decref(out);
			return NULL;
		}
	return out;
}

/* The project file's trust state, for `config show` (both forms). */
static json_t *trust_json(const ac_config *config)
{
	const char *project = ac_config_project_file(config);

	if (!project)
		return json_null();
	return json_pack("{s:s, s:s, s:b, s:s?, s:s?, s:o}", "path", project, "sha256",
			 ac_config_project_sha256(config), "trusted",
			 ac_config_project_trusted(config), "trustStore",
			 ac_config_trust_store(config), "neverTrusted",
			 ac_config_project_untrustable(config), "gated", gated_shown(config));
}

static void trust_line(ac_buf *line, const ac_config *config)
{
	const char *project = ac_config_project_file(config);

	if (!project)
		ac_buf_printf(line, "# project file: none");
	else if (ac_config_project_untrustable(config))
		ac_buf_printf(line, "# project file %s (sha256 %s): never trusted: %s", project,
			      ac_config_project_sha256(config), ac_config_project_untrustable(config));
	else if (ac_config_project_trusted(config))
		ac_buf_printf(line, "# project file %s (sha256 %s): trusted", project,
			      ac_config_project_sha256(config));
	else
		ac_buf_printf(line, "# project file %s (sha256 %s): not trusted; its commands do "
			      "not run until you review it and run `agentctl config trust --sha256 "
			      "%s`", project, ac_config_project_sha256(config),
			      ac_config_project_sha256(config));
}

/* json_dumps(value, flags) with reals as short as they read back (0.2,
 * not 0.20000000000000001). The caller frees the result. */
static char *dump_value(const json_t *value, size_t flags)
{
	char *text = json_dumps(value, flags);
	ac_buf buf = AC_BUF_INIT;

	if (!text || ac_buf_append(&buf, text, strlen(text)) || ac_json_shortest_reals(&buf)) {
		ac_buf_free(&buf);
		return text;
	}
	free(text);
	return ac_buf_detach(&buf);
}

static int show(cli_context *ctx, bool origin, bool json)
{
	json_t *values = ac_config_values(ctx->config), *out = json_object(), *value = NULL;
	size_t n = json_object_size(values), i = 0;
	const char **keys = calloc(n + 1, sizeof(char *)), *key;
	ac_buf line = AC_BUF_INIT, safe = AC_BUF_INIT;
	int status;

	if (!keys || !out) {
		free(keys);
		json_decref(out);
		return cli_error(CLI_FAILED, "out of memory");
	}
	json_object_foreach(values, key, value)
		keys[i++] = key;
	qsort(keys, n, sizeof(*keys), compare_keys);
	value = NULL; /* owned from here on */
	for (i = 0; i < n; i++) {
		const char *where = ac_config_origin(ctx->config, keys[i]);
		char *text;

		json_decref(value);
		if (!(value = shown_value(keys[i], json_object_get(values, keys[i]))))
			continue;
		if (json) {
			json_object_set_new(out, keys[i], origin ? json_pack("{s:O, s:s}", "value", value,
									     "origin", where)
								 : json_incref(value));
			continue;
		}
		text = dump_value(value, JSON_COMPACT | JSON_ENCODE_ANY);
		ac_buf_clear(&line);
		ac_buf_printf(&line, "%s = %s", keys[i], text ? text : "?");
		if (origin)
			ac_buf_printf(&line, "    (%s)", where);
		free(text);
		ac_buf_clear(&safe);
		ac_text_sanitize(&safe, line.data, line.len);
		ac_buf_putc(&safe, '\n');
		cli_write(safe.data, safe.len);
	}
	json_decref(value);
	if (!json) {
		ac_buf_clear(&line);
		trust_line(&line, ctx->config);
		ac_buf_clear(&safe);
		ac_text_sanitize(&safe, line.data, line.len);
		ac_buf_putc(&safe, '\n');
		cli_write(safe.data, safe.len);
	}
	if (json) {
		char *text;

		/* Not a config key: set last, so a file cannot shadow it. */
		json_object_set_new(out, "projectFile", trust_json(ctx->config));
		text = dump_value(out, JSON_INDENT(2) | JSON_SORT_KEYS);

		ac_buf_clear(&safe);
		if (text)
			ac_text_json_safe(&safe, text, strlen(text));
		ac_buf_putc(&safe, '\n');
		cli_write(safe.data, safe.len);
		free(text);
	}
	status = cli_finish_output();
	ac_buf_free(&line);
	ac_buf_free(&safe);
	json_decref(out);
	free(keys);
	return status;
}

/* Trusts the project file's content as this process read it (the hash is
 * of the bytes that were parsed), only when it is the content reviewed
 * (sha256, may be NULL), and says what that allows: every gated key the
 * file holds (ac_config_project_gated(), the list ac_config_command()
 * keeps to), from the same bytes. */
static int trust(cli_context *ctx, const char *sha256)
{
	const char *project = ac_config_project_file(ctx->config), *key;
	json_t *gated, *value;
	ac_buf line = AC_BUF_INIT, safe = AC_BUF_INIT;
	int status;

	if (ac_config_trust_reviewed(ctx->config, sha256) != 0)
		return cli_error(CLI_FAILED, "config trust: %s", ac_error_last());
	if (!(gated = gated_shown(ctx->config)))
		return cli_error(CLI_FAILED, "config trust: out of memory (the file is trusted)");
	ac_buf_printf(&line, "trusted %s (sha256 %s) for the workspace %s in %s", project,
		      ac_config_project_sha256(ctx->config), ac_config_workspace(ctx->config),
		      ac_config_trust_store(ctx->config));
	ac_text_sanitize(&safe, line.data, line.len);
	ac_buf_putc(&safe, '\n');
	if (!json_object_size(gated))
		ac_buf_printf(&safe, "  (it sets no key that runs a command or chooses where data "
			      "goes)\n");
	json_object_foreach(gated, key, value) {
		char *text = dump_value(value, JSON_COMPACT | JSON_ENCODE_ANY);

		ac_buf_clear(&line);
		ac_buf_printf(&line, "  %s = %s", key, text ? text : "?");
		free(text);
		ac_text_sanitize(&safe, line.data, line.len);
		ac_buf_putc(&safe, '\n');
	}
	cli_write(safe.data, safe.len);
	status = cli_finish_output();
	json_decref(gated);
	ac_buf_free(&line);
	ac_buf_free(&safe);
	return status;
}

int cli_config(cli_context *ctx, int argc, char **argv)
{
	const char *sha256;
	cli_args a;
	int status;

	if (argc >= 1 && !strcmp(argv[0], "trust")) {
		if ((status = cli_args_parse_as(&a, "config trust", argc - 1, argv + 1)))
			return status;
		sha256 = cli_args_get(&a, "--sha256");
		if (sha256 && (strlen(sha256) != 64 || strspn(sha256, "0123456789abcdefABCDEF") != 64))
			return cli_error(CLI_USAGE, "config trust: --sha256 '%.80s' is not 64 "
					 "hex digits", sha256);
		return trust(ctx, sha256);
	}
	if (argc == 0 || strcmp(argv[0], "show") != 0)
		return cli_error(CLI_USAGE, "config needs a command: show [--origin] [--json] | "
				 "trust [--sha256 HEX]");
	if ((status = cli_args_parse_as(&a, "config show", argc - 1, argv + 1)))
		return status;
	return show(ctx, cli_args_has(&a, "--origin"), cli_args_has(&a, "--json"));
}
