/* Layered configuration resolution with per-key origins and types. */
#include "ac_config.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_exact.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum { T_STRING, T_INT, T_NUMBER, T_BOOL, T_STRINGS, T_OBJECT, T_ENUM, T_ARGV_MAP } key_type;

typedef struct {
	const char *key;
	key_type type;
	const char *env;           /* NULL: derived from the key */
	const char *const *choices; /* T_ENUM */
} known_key;

static const char *const fsync_choices[] = {"never", "always", NULL};

static const known_key known_keys[] = {
	{"model", T_STRING, "AGENT_MODEL", NULL},
	{"maxTokens", T_INT, "AGENT_MAX_TOKENS", NULL},
	{"temperature", T_NUMBER, NULL, NULL},
	{"requireApproval", T_STRINGS, NULL, NULL},
	{"sessionDir", T_STRING, "AGENT_SESSION_DIR", NULL},
	{"journalPath", T_STRING, NULL, NULL},
	{"operationLogPath", T_STRING, NULL, NULL},
	{"checkpointDir", T_STRING, NULL, NULL},
	{"theme", T_STRING, NULL, NULL},
	{"compaction.triggerTokens", T_INT, NULL, NULL},
	{"compaction.compactFraction", T_NUMBER, NULL, NULL},
	{"summarizer.command", T_STRINGS, NULL, NULL},
	{"resumeCommand", T_STRINGS, NULL, NULL},
	{"rollbackTools", T_ARGV_MAP, NULL, NULL},
	{"journal.agents", T_STRINGS, NULL, NULL},
	{"journal.fsync", T_ENUM, NULL, fsync_choices},
	{"journal.rotateBytes", T_INT, NULL, NULL},
};
#define NKNOWN (sizeof(known_keys) / sizeof(known_keys[0]))

struct ac_config {
	char *workspace;
	json_t *values;  /* flat key -> value */
	json_t *origins; /* flat key -> origin string */
};

static const known_key *find_known(const char *key)
{
	for (size_t i = 0; i < NKNOWN; i++)
		if (!strcmp(known_keys[i].key, key))
			return &known_keys[i];
	return NULL;
}

static const char *type_text(const known_key *k)
{
	switch (k->type) {
	case T_STRING: return "a string";
	case T_INT: return "a whole number";
	case T_NUMBER: return "a number";
	case T_BOOL: return "true or false";
	case T_STRINGS: return "an array of strings";
	case T_OBJECT: return "an object";
	case T_ENUM: return "one of never, always";
	case T_ARGV_MAP: return "an object of argv arrays (tool name -> [\"program\", \"arg\"...])";
	}
	return "?";
}

static bool has_type(const known_key *k, json_t *v)
{
	size_t i;
	json_t *item;

	switch (k->type) {
	case T_STRING: return json_is_string(v);
	case T_INT: return json_is_integer(v) && json_integer_value(v) >= 0;
	case T_NUMBER: return json_is_number(v);
	case T_BOOL: return json_is_boolean(v);
	case T_OBJECT: return json_is_object(v);
	case T_STRINGS:
		if (!json_is_array(v))
			return false;
		json_array_foreach(v, i, item)
			if (!json_is_string(item))
				return false;
		return true;
	case T_ARGV_MAP: {
		const char *tool;
		json_t *argv;
		known_key strings = {NULL, T_STRINGS, NULL, NULL};

		if (!json_is_object(v))
			return false;
		json_object_foreach(v, tool, argv)
			if (!has_type(&strings, argv) || json_array_size(argv) == 0)
				return false;
		return true;
	}
	case T_ENUM:
		if (!json_is_string(v))
			return false;
		for (i = 0; k->choices[i]; i++)
			if (!strcmp(k->choices[i], json_string_value(v)))
				return true;
		return false;
	}
	return false;
}

/* Stores value (a new reference is taken) for key from origin after a
 * type check, unless a higher layer already set it. */
static int put(ac_config *c, const char *key, json_t *value, const char *origin,
	       bool override)
{
	const known_key *k = find_known(key);

	if (k && !has_type(k, value))
		return ac_error_set(AC_EINVAL, "%s: %s must be %s", origin, key, type_text(k));
	if (!override && json_object_get(c->values, key))
		return 0;
	if (json_object_set(c->values, key, value) ||
	    json_object_set_new(c->origins, key, json_string(origin)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

/* Flattens a file's object into dotted keys: nested objects are walked
 * only where a known key lives below them, so free-form objects such as
 * rollbackTools stay whole. */
static int put_file_object(ac_config *c, json_t *obj, const char *prefix, const char *origin)
{
	const char *key;
	json_t *value;
	int rc;

	json_object_foreach(obj, key, value) {
		ac_buf full = AC_BUF_INIT;
		bool walk = false;

		if (ac_buf_printf(&full, "%s%s%s", prefix, *prefix ? "." : "", key))
			return AC_ENOMEM;
		if (json_is_object(value) && !find_known(full.data)) {
			for (size_t i = 0; i < NKNOWN && !walk; i++)
				walk = !strncmp(known_keys[i].key, full.data, full.len) &&
				       known_keys[i].key[full.len] == '.';
		}
		rc = walk ? put_file_object(c, value, full.data, origin)
			  : put(c, full.data, value, origin, false);
		ac_buf_free(&full);
		if (rc)
			return rc;
	}
	return 0;
}

/* Loads one file layer; a missing file is no error, a broken one is. */
static int load_file(ac_config *c, const char *path, bool *out_found)
{
	json_error_t jerr;
	json_t *root;
	int rc, fd;

	*out_found = false;
	/* Not json_load_file(): a FIFO in the file's place must not hang us. A
	 * symbolic link is fine (a user's config often is one). */
	if ((rc = ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY, 0, path)))
		return rc == AC_ENOTFOUND ? 0 : rc;
	root = json_loadfd(fd, JSON_REJECT_DUPLICATES, &jerr);
	close(fd);
	if (!root) {
		rc = ac_json_load_error(&jerr, NULL, 0, path);
		return rc == AC_ECORRUPT ? AC_EINVAL : rc;
	}
	*out_found = true;
	if (!json_is_object(root)) {
		json_decref(root);
		return ac_error_set(AC_EINVAL, "%s: must hold a JSON object", path);
	}
	rc = put_file_object(c, root, "", path);
	json_decref(root);
	return rc;
}

/* "journal.rotateBytes" -> "AGENT_JOURNAL_ROTATE_BYTES" */
static void env_name(ac_buf *out, const char *key)
{
	ac_buf_append(out, "AGENT_", 6);
	for (const char *p = key; *p; p++) {
		if (*p == '.')
			ac_buf_putc(out, '_');
		else if (isupper((unsigned char)*p) && p != key && p[-1] != '.')
			ac_buf_putc(out, '_'), ac_buf_putc(out, *p);
		else
			ac_buf_putc(out, (char)toupper((unsigned char)*p));
	}
}

/* Turns an environment string into the key's type. */
static json_t *env_value(const known_key *k, const char *text)
{
	char *end;

	switch (k->type) {
	case T_STRING:
	case T_ENUM:
		return json_string(text);
	case T_INT: {
		long long v;

		errno = 0;
		v = strtoll(text, &end, 10);
		if (errno || end == text || *end || v < 0)
			return NULL;
		return json_integer(v);
	}
	case T_NUMBER: {
		double v;

		errno = 0;
		v = strtod(text, &end);
		if (errno || end == text || *end)
			return NULL;
		return json_real(v);
	}
	default:
		return json_loads(text, JSON_DECODE_ANY, NULL);
	}
}

static int load_env(ac_config *c)
{
	for (size_t i = 0; i < NKNOWN; i++) {
		const known_key *k = &known_keys[i];
		ac_buf name = AC_BUF_INIT, origin = AC_BUF_INIT;
		const char *text;
		json_t *value;
		int rc = 0;

		if (k->env)
			ac_buf_append(&name, k->env, strlen(k->env));
		else
			env_name(&name, k->key);
		text = name.data ? getenv(name.data) : NULL;
		/* Empty counts as unset, as in the reference (`if (process.env.X)`). */
		if (text && *text) {
			ac_buf_printf(&origin, "environment %s", name.data);
			value = env_value(k, text);
			if (!value)
				rc = ac_error_set(AC_EINVAL, "environment %s: '%.40s' is not %s",
						  name.data, text, type_text(k));
			else
				rc = put(c, k->key, value, origin.data, false);
			json_decref(value);
		}
		ac_buf_free(&name);
		ac_buf_free(&origin);
		if (rc)
			return rc;
	}
	return 0;
}

static int load_defaults(ac_config *c)
{
	json_t *approval = json_pack("[sss]", "write_file", "delete_file", "run_command");
	json_t *defaults = json_pack("{s:s, s:i, s:f, s:o, s:s, s:s, s:s, s:s, s:s,"
				     " s:i, s:f, s:s, s:i}",
				     "model", "claude-sonnet-4-5", "maxTokens", 8192,
				     "temperature", 0.0, "requireApproval", approval,
				     "sessionDir", ".agent/sessions",
				     "journalPath", "JOURNAL.jsonl",
				     "operationLogPath", ".agent/operations.jsonl",
				     "checkpointDir", ".agent/checkpoints",
				     "theme", "dark",
				     "compaction.triggerTokens", 80000,
				     "compaction.compactFraction", 0.5,
				     "journal.fsync", "never", "journal.rotateBytes", 0);
	int rc = 0;
	const char *key;
	json_t *value;

	if (!defaults)
		return ac_error_set(AC_ENOMEM, "out of memory");
	json_object_foreach(defaults, key, value)
		if ((rc = put(c, key, value, "default", false)))
			break;
	json_decref(defaults);
	return rc;
}

int ac_config_load(ac_config **out, const char *workspace)
{
	ac_config *c = calloc(1, sizeof(*c));
	ac_buf path = AC_BUF_INIT;
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	bool found = false;
	int rc;

	if (!c || !(c->workspace = strdup(workspace)) || !(c->values = json_object()) ||
	    !(c->origins = json_object())) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto fail;
	}
	/* Highest layer first: put() keeps the first value set for a key. */
	ac_buf_printf(&path, "%s/.agent/config.json", workspace);
	if ((rc = load_file(c, path.data, &found)))
		goto fail;
	if (!found) {
		ac_buf_clear(&path);
		ac_buf_printf(&path, "%s/.agentrc.json", workspace);
		if ((rc = load_file(c, path.data, &found)))
			goto fail;
	}
	ac_buf_clear(&path);
	if (xdg && *xdg)
		ac_buf_printf(&path, "%s/agent/config.json", xdg);
	else if (home && *home)
		ac_buf_printf(&path, "%s/.config/agent/config.json", home);
	if (path.len && (rc = load_file(c, path.data, &found)))
		goto fail;
	if ((rc = load_env(c)) || (rc = load_defaults(c)))
		goto fail;
	ac_buf_free(&path);
	*out = c;
	return 0;
fail:
	ac_buf_free(&path);
	ac_config_free(c);
	return rc;
}

void ac_config_free(ac_config *c)
{
	if (!c)
		return;
	json_decref(c->values);
	json_decref(c->origins);
	free(c->workspace);
	free(c);
}

int ac_config_set_cli(ac_config *c, const char *key, const char *text)
{
	json_t *value = json_loads(text, JSON_DECODE_ANY, NULL);
	const known_key *k = find_known(key);
	int rc;

	if (!value || (k && (k->type == T_STRING || k->type == T_ENUM) && !json_is_string(value))) {
		json_decref(value);
		value = json_string(text);
	}
	if (!value)
		return ac_error_set(AC_EINVAL, "command line: %s: not valid UTF-8", key);
	rc = put(c, key, value, "command line", true);
	json_decref(value);
	return rc;
}

json_t *ac_config_get(const ac_config *c, const char *key)
{
	return json_object_get(c->values, key);
}

const char *ac_config_origin(const ac_config *c, const char *key)
{
	return json_string_value(json_object_get(c->origins, key));
}

const char *ac_config_string(const ac_config *c, const char *key, const char *fallback)
{
	json_t *v = json_object_get(c->values, key);

	return json_is_string(v) ? json_string_value(v) : fallback;
}

int64_t ac_config_int(const ac_config *c, const char *key, int64_t fallback)
{
	json_t *v = json_object_get(c->values, key);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : fallback;
}

char *ac_config_path(const ac_config *c, const char *key, const char *fallback)
{
	const char *value = ac_config_string(c, key, fallback);
	ac_buf path = AC_BUF_INIT;

	if (!value)
		return NULL;
	if (value[0] == '/')
		ac_buf_append(&path, value, strlen(value));
	else
		ac_buf_printf(&path, "%s/%s", c->workspace, value);
	return ac_buf_detach(&path);
}

json_t *ac_config_values(const ac_config *c)
{
	return c->values;
}

const char *ac_config_workspace(const ac_config *c)
{
	return c->workspace;
}
