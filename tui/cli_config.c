/* agentctl config show [--origin] [--json] */
#include "cli.h"

#include "ac_buf.h"
#include "ac_text.h"

#include <stdlib.h>
#include <string.h>

static int compare_keys(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int show(cli_context *ctx, bool origin, bool json)
{
	json_t *values = ac_config_values(ctx->config), *out = json_object(), *value;
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
	for (i = 0; i < n; i++) {
		const char *where = ac_config_origin(ctx->config, keys[i]);
		char *text;

		value = json_object_get(values, keys[i]);
		if (json) {
			json_object_set_new(out, keys[i], origin ? json_pack("{s:O, s:s}", "value", value,
									     "origin", where)
								 : json_incref(value));
			continue;
		}
		text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
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
	if (json) {
		char *text = json_dumps(out, JSON_INDENT(2) | JSON_SORT_KEYS);

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

int cli_config(cli_context *ctx, int argc, char **argv)
{
	bool origin = false, json = false;

	if (argc == 0 || strcmp(argv[0], "show") != 0)
		return cli_error(CLI_USAGE, "config needs a command: show [--origin] [--json]");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--origin"))
			origin = true;
		else if (!strcmp(argv[i], "--json"))
			json = true;
		else
			return cli_error(CLI_USAGE, "config show: unknown option '%s'", argv[i]);
	}
	return show(ctx, origin, json);
}
