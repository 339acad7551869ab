/* Error printing and small argument helpers shared by the commands. */
#include "cli.h"

#include "dashboard.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_exact.h"
#include "ac_session.h"
#include "ac_messages.h"
#include "ac_oplog.h"
#include "ac_text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void print_line(FILE *to, const char *prefix, const char *fmt, va_list ap)
{
	ac_buf raw = AC_BUF_INIT, safe = AC_BUF_INIT;
	va_list copy;
	int needed;

	va_copy(copy, ap);
	needed = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (needed >= 0 && ac_buf_reserve(&raw, (size_t)needed) == 0) {
		vsnprintf(raw.data, (size_t)needed + 1, fmt, ap);
		raw.len = (size_t)needed;
		/* Messages quote file names and values from files. */
		ac_text_sanitize(&safe, raw.data, raw.len);
	}
	fprintf(to, "%s%s\n", prefix, safe.data ? safe.data : fmt);
	ac_buf_free(&raw);
	ac_buf_free(&safe);
}

int cli_error(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line(stderr, "agentctl: ", fmt, ap);
	va_end(ap);
	return status;
}

void cli_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line(stderr, "agentctl: ", fmt, ap);
	va_end(ap);
}

void cli_exclude_agent_state(const cli_context *ctx)
{
	if (ac_oplog_exclude_agent_state(&ctx->ws) != 0)
		cli_note("agent state not kept out of git: %s", ac_error_last());
}

void cli_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line(stdout, "", fmt, ap);
	va_end(ap);
}

int cli_parse_count(size_t *out, const char *name, const char *text)
{
	char *end;
	unsigned long long value;

	errno = 0;
	if (!text)
		return cli_error(CLI_USAGE, "%s needs a number", name);
	value = strtoull(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-')
		return cli_error(CLI_USAGE, "%s: '%s' is not a whole number", name, text);
	*out = (size_t)value;
	return CLI_OK;
}

int cli_read_input(ac_buf *out, const char *arg, const char *what)
{
	char chunk[65536];
	ssize_t n;

	ac_buf_clear(out);
	if (strcmp(arg, "-") != 0) {
		if (ac_buf_append(out, arg, strlen(arg)) || ac_buf_reserve(out, 0))
			return cli_error(CLI_FAILED, "out of memory");
		return CLI_OK;
	}
	for (;;) {
		n = read(STDIN_FILENO, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cli_error(CLI_FAILED, "%s: reading standard input: %s", what,
					 strerror(errno));
		if (n == 0)
			break;
		/* Refused as soon as it is too long: never held whole. */
		if (out->len + (size_t)n > CLI_INPUT_MAX)
			return cli_error(CLI_FAILED, "%s: standard input is over the line limit of "
					 "%u bytes (" CLI_INPUT_MAX_TEXT "); nothing was written",
					 what, (unsigned)CLI_INPUT_MAX);
		if (ac_buf_append(out, chunk, (size_t)n))
			return cli_error(CLI_FAILED, "out of memory");
	}
	if (ac_buf_reserve(out, 0))
		return cli_error(CLI_FAILED, "out of memory");
	return CLI_OK;
}

int cli_parse_json(json_t **out, const ac_buf *text, const char *what)
{
	int rc = ac_json_exact_load(out, text->data ? text->data : "", text->len,
				     JSON_DECODE_ANY, what);

	if (rc == AC_ENOMEM)
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	if (rc)
		return cli_error(CLI_USAGE, "%s", ac_error_last());
	return CLI_OK;
}

int cli_check_utf8(const char *what, const char *text)
{
	json_t *probe = json_string(text);

	if (!probe)
		return cli_error(CLI_USAGE, "%s: not valid UTF-8", what);
	json_decref(probe);
	return CLI_OK;
}

int cli_check_new_id(const char *command, const char *id)
{
	/* Every command takes an id as an argument: one like "--help" would
	 * be read as an option, or mistaken for one. Files written by others
	 * may still hold such ids; agentctl does not make them. */
	if (id[0] == '-')
		return cli_error(CLI_USAGE, "%s: --id '%.64s': a new id must not start with '-' "
				 "(commands would read it as an option)", command, id);
	/* Ids are kept as their bytes and shown escaped: a new one with a
	 * control byte would look like another id. */
	for (const char *c = id; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return cli_error(CLI_USAGE, "%s: --id: holds a control byte (a new id must "
					 "not; ids other programs wrote are still read)", command);
	return CLI_OK;
}

int cli_parse_whole(uint64_t *out, const char *name, const char *text, uint64_t max)
{
	uint64_t value = 0;

	if (!text)
		return cli_error(CLI_USAGE, "%s needs a number", name);
	if (!*text)
		return cli_error(CLI_USAGE, "%s: '' is not a whole number", name);
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			return cli_error(CLI_USAGE, "%s: '%s' is not a whole non-negative number",
					 name, text);
		if (value > (max - (uint64_t)(*p - '0')) / 10)
			return cli_error(CLI_USAGE, "%s: '%s' is larger than %llu", name, text,
					 (unsigned long long)max);
		value = value * 10 + (uint64_t)(*p - '0');
	}
	*out = value;
	return CLI_OK;
}

bool cli_option(const char **out, const char *opt, int argc, char **argv, int *i, int *status)
{
	size_t len = strlen(opt);

	if (!strncmp(argv[*i], opt, len) && argv[*i][len] == '=') {
		*out = argv[*i] + len + 1;
		return true;
	}
	if (strcmp(argv[*i], opt))
		return false;
	if (*i + 1 >= argc) {
		*status = cli_error(CLI_USAGE, "%s needs a value", opt);
		return true;
	}
	*out = argv[++*i];
	return true;
}

void cli_put_cell(ac_buf *out, const char *text, int width)
{
	size_t start = out->len, used, len = strlen(text);
	size_t pad = width > 0 && len < (size_t)width ? (size_t)width - len : 0;

	/* Printable ASCII (ids, statuses, times: most cells) needs no
	 * rewriting: copied with its padding at once, a row of a long
	 * listing five times. */
	if (ac_text_plain(text, len) && ac_buf_reserve(out, len + pad) == 0) {
		memcpy(out->data + out->len, text, len);
		memset(out->data + out->len + len, ' ', pad);
		out->len += len + pad;
		out->data[out->len] = '\0';
		return;
	}
	ac_text_sanitize(out, text, len);
	used = out->len - start;
	/* The padding at once (a list pads 200,000 rows' cells). */
	if (width > 0 && used < (size_t)width && ac_buf_reserve(out, (size_t)width - used) == 0) {
		memset(out->data + out->len, ' ', (size_t)width - used);
		out->len += (size_t)width - used;
		out->data[out->len] = '\0';
	}
}

void cli_put_string(ac_buf *out, const json_t *value, const char *absent)
{
	size_t len = json_string_length(value);

	if (json_is_string(value) && len)
		ac_buf_append(out, json_string_value(value), len);
	else
		ac_buf_append(out, absent, strlen(absent));
}

void cli_write_json(const json_t *doc)
{
	size_t len = 0;
	/* Numbers jansson cannot hold come out as the file had them. */
	char *text = ac_json_exact_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER, &len);
	ac_buf safe = AC_BUF_INIT;

	if (text) {
		ac_text_json_safe(&safe, text, len);
		ac_buf_putc(&safe, '\n');
		cli_write(safe.data, safe.len);
	}
	ac_buf_free(&safe);
	free(text);
}

static bool output_failed;

/* Blocks this large (a document streamed out) go to the descriptor as
 * they are: through stdio they would be cut in two writes each. */
#define DIRECT_WRITE_BYTES (64 * 1024)

/* A pipe holds 64 KiB: output of hundreds of megabytes (a query's) then
 * wakes the reader, and waits for it, some ten thousand times. Once, at the
 * first large write, a pipe on stdout is asked for 1 MiB (the most an
 * unprivileged process may set by default); refused, it stays as it was. */
static void widen_pipe(void)
{
	static bool tried;
	struct stat st;

	if (tried)
		return;
	tried = true;
	if (fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode))
		(void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 1 << 20);
}

bool cli_write(const void *bytes, size_t len)
{
	const char *p = bytes;

	if (output_failed)
		return false;
	if (len < DIRECT_WRITE_BYTES) {
		if (fwrite(bytes, 1, len, stdout) != len)
			output_failed = true;
		return !output_failed;
	}
	if (fflush(stdout) != 0) {
		output_failed = true;
		return false;
	}
	widen_pipe();
	while (len) {
		ssize_t n = write(STDOUT_FILENO, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			output_failed = true;
			return false;
		}
		p += n;
		len -= (size_t)n;
	}
	return true;
}

int cli_finish_output(void)
{
	if (fflush(stdout) != 0 || output_failed || ferror(stdout))
		return cli_error(CLI_FAILED, "writing the output: %s", strerror(errno ? errno : EIO));
	return CLI_OK;
}

int cli_dashboard(cli_context *ctx)
{
	dashboard_options options = {.read_only = ctx->read_only,
				     .no_workspace = ctx->no_workspace != NULL};

	if (dashboard_run(&ctx->ws, ctx->config, &options) != 0)
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	return CLI_OK;
}

int cli_open_backend(ac_backend **out, const cli_context *ctx)
{
	if (ac_workspace_store(out, &ctx->ws))
		return cli_error(CLI_FAILED, "%s", ac_error_last());
	return CLI_OK;
}

void cli_close_backend(const cli_context *ctx, ac_backend *b)
{
	ac_workspace_store_release(&ctx->ws, b);
}

int cli_session_exists(const cli_context *ctx, const char *id, const char *command)
{
	ac_backend_session_info info = {0};
	ac_backend *b = NULL;
	char *path = NULL;
	struct stat st;
	int status, rc;

	if (ac_session_path(&path, ctx->ws.sessions_dir, id) != 0)
		return cli_error(CLI_USAGE, "%s: %s", command, ac_error_last());
	rc = lstat(path, &st) == 0 && S_ISREG(st.st_mode);
	free(path);
	if (rc)
		return CLI_OK;
	if ((status = cli_open_backend(&b, ctx)))
		return status;
	/* A shared store keeps its sessions itself (a file may be there too,
	 * written before the store was set). */
	if (ac_backend_has_local_sessions(b))
		status = cli_error(CLI_FAILED, "%s: session '%s' not found in %s", command, id,
				   ctx->ws.sessions_dir);
	else if (ac_backend_inspector_find(b, &info, id) != 0)
		status = cli_error(CLI_FAILED, "%s: %s", command, ac_error_last());
	ac_backend_session_info_clear(&info);
	cli_close_backend(ctx, b);
	return status;
}

void cli_put_conversation(ac_buf *out, const json_t *messages)
{
	ac_buf text = AC_BUF_INIT;
	const json_t *msg;
	size_t i;

	json_array_foreach(messages, i, msg) {
		ac_buf_printf(&text, "[%zu] %s: ", i + 1, ac_message_role(msg));
		ac_message_text(&text, msg);
		cli_put_lines(out, &text, "    ");
	}
	ac_buf_free(&text);
}

void cli_put_lines(ac_buf *out, ac_buf *text, const char *indent)
{
	for (size_t start = 0; text->data && start < text->len;) {
		char *nl = memchr(text->data + start, '\n', text->len - start);
		size_t end = nl ? (size_t)(nl - text->data) : text->len;

		if (start > 0 && *indent)
			ac_buf_append(out, indent, strlen(indent));
		ac_text_sanitize(out, text->data + start, end - start);
		ac_buf_putc(out, '\n');
		start = end + 1;
	}
	ac_buf_clear(text);
}
