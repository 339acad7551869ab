/* Layered configuration resolution with per-key origins and types. */
#include "ac_config.h"

#include "ac_atomic.h"
#include "ac_buf.h"
#include "ac_compact.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_hooks.h"
#include "ac_proc.h"
#include "ac_linediff.h"
#include "ac_sha256.h"
#include "ac_time.h"
#include "ac_json_exact.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum { T_STRING, T_INT, T_NUMBER, T_BOOL, T_STRINGS, T_OBJECT, T_ENUM, T_ARGV_MAP } key_type;

/* What a project file (written by agents) may not do freely with a key. */
enum {
	K_PATH = 1,    /* a path: must stay inside the workspace and out of .git */
	K_COMMAND = 2, /* a command (argv): runs only once the file is trusted */
	K_OPERATOR = 4, /* only the operator's layers (user file, environment, command
			 * line) may set it: a folder outside the workspace that is read */
	K_DESTINATION = 8, /* where data goes (a database): used only once the file is
			    * trusted */
	K_SEED_INT = 16, /* the seed's own variable, read as its parseInt reads it */
	K_HOOK = 32, /* a command the hooks run (ac_hooks.h): its placeholders are
		      * AC_HOOKS_PLACEHOLDERS, not a session command's */
};

/* What a project file's value is handed out for only once it is trusted
 * (ac_config_command()), and what `config trust` shows: this one list. */
#define K_GATED (K_COMMAND | K_DESTINATION)

typedef struct {
	const char *key;
	key_type type;
	const char *env;           /* NULL: derived from the key */
	const char *const *choices; /* T_ENUM */
	unsigned flags;            /* K_PATH, K_COMMAND, K_OPERATOR, K_DESTINATION, K_HOOK */
} known_key;

/* An enum's choices; its error text lists them, so both come from here. */
static const char *const fsync_choices[] = {"never", "always", NULL};
static const char *const watch_choices[] = {"auto", "inotify", "poll", NULL};
static const char *const rotate_choices[] = {"monthly", NULL};
static const char *const provider_choices[] = {"file", "none", NULL};

static const known_key known_keys[] = {
	{"model", T_STRING, "AGENT_MODEL", NULL, 0},
	{"maxTokens", T_INT, "AGENT_MAX_TOKENS", NULL, K_SEED_INT},
	{"temperature", T_NUMBER, NULL, NULL, 0},
	{"requireApproval", T_STRINGS, NULL, NULL, 0},
	{"sessionDir", T_STRING, "AGENT_SESSION_DIR", NULL, K_PATH},
	{"journalPath", T_STRING, NULL, NULL, K_PATH},
	{"operationLogPath", T_STRING, NULL, NULL, K_PATH},
	{"checkpointDir", T_STRING, NULL, NULL, K_PATH},
	{"theme", T_STRING, NULL, NULL, 0},
	{"compaction.triggerTokens", T_INT, NULL, NULL, 0},
	{"compaction.compactFraction", T_NUMBER, NULL, NULL, 0},
	{"compaction.minMessages", T_INT, NULL, NULL, 0},
	{"memory.consolidateCommand", T_STRINGS, NULL, NULL, K_COMMAND},
	{"summarizer.command", T_STRINGS, NULL, NULL, K_COMMAND},
	{"resumeCommand", T_STRINGS, NULL, NULL, K_COMMAND},
	{"rollbackTools", T_ARGV_MAP, NULL, NULL, K_COMMAND},
	{"journal.agents", T_STRINGS, NULL, NULL, 0},
	{"journal.actionTypes", T_STRINGS, NULL, NULL, 0},
	{"journal.fsync", T_ENUM, NULL, fsync_choices, 0},
	{"journal.rotateBytes", T_INT, NULL, NULL, 0},
	{"journal.rotate", T_ENUM, NULL, rotate_choices, 0},
	{"lock.foreignStaleMs", T_INT, NULL, NULL, 0},
	{"gitEnabled", T_BOOL, NULL, NULL, 0},
	{"checkpoint.provider", T_ENUM, NULL, provider_choices, 0},
	{"watch", T_ENUM, NULL, watch_choices, 0},
	{"pauseSignal", T_STRING, NULL, NULL, 0},
	{"storage.url", T_STRING, "AGENT_STORAGE_URL", NULL, K_DESTINATION},
	{"storage.tenant", T_STRING, NULL, NULL, 0},
	{"session.quietMs", T_INT, NULL, NULL, 0},
	{"session.waitMs", T_INT, NULL, NULL, 0},
	{"resume.timeoutMs", T_INT, NULL, NULL, 0},
	{"sources.enabled", T_BOOL, NULL, NULL, 0},
	{"sources.claude.dir", T_STRING, NULL, NULL, K_OPERATOR},
	{"sources.claude.enabled", T_BOOL, NULL, NULL, 0},
	{"sources.claude.resumeCommand", T_STRINGS, NULL, NULL, K_COMMAND},
	{"sources.claude.statusDir", T_STRING, NULL, NULL, K_OPERATOR},
	{"sources.codex.dir", T_STRING, NULL, NULL, K_OPERATOR},
	{"sources.codex.enabled", T_BOOL, NULL, NULL, 0},
	{"sources.codex.resumeCommand", T_STRINGS, NULL, NULL, K_COMMAND},
	{"sources.gemini.dir", T_STRING, NULL, NULL, K_OPERATOR},
	{"sources.gemini.enabled", T_BOOL, NULL, NULL, 0},
	{"sources.gemini.resumeCommand", T_STRINGS, NULL, NULL, K_COMMAND},
	{"sources.agy.dir", T_STRING, NULL, NULL, K_OPERATOR},
	{"sources.agy.enabled", T_BOOL, NULL, NULL, 0},
	{"sources.agy.resumeCommand", T_STRINGS, NULL, NULL, K_COMMAND},
	{"sources.state.permissionMs", T_INT, NULL, NULL, 0},
	{"sources.state.idleMs", T_INT, NULL, NULL, 0},
	{"sources.state.endedMs", T_INT, NULL, NULL, 0},
	/* agentctl usage prices what the sources and the session turn rows
	 * recorded. */
	{"pricing", T_OBJECT, NULL, NULL, 0},
	{"usage.budgetUsd", T_OBJECT, NULL, NULL, 0},
	{"hooks.onStatusChange", T_STRINGS, NULL, NULL, K_COMMAND | K_HOOK},
	{"notify.desktop", T_STRINGS, NULL, NULL, K_COMMAND | K_HOOK},
	{"notify.bell", T_BOOL, NULL, NULL, 0},
};
#define NKNOWN (sizeof(known_keys) / sizeof(known_keys[0]))

struct ac_config {
	char *workspace;
	char *workspace_real;  /* realpath of workspace, for the project paths check */
	json_t *values;  /* flat key -> value */
	json_t *origins; /* flat key -> origin string */
	char *project;         /* the project file as named in origins, or NULL */
	const char *project_rel; /* its name in the workspace (static text) */
	char *project_real;    /* its resolved path */
	char project_sha256[AC_SHA256_HEX_LEN + 1]; /* of the bytes that were parsed */
	char *project_text;    /* those bytes (NUL-terminated copy), for the trust copy */
	size_t project_len;
	json_t *project_gated; /* the project file's gated keys -> its values */
	char *untrustable;     /* why the project file is never trusted, or NULL */
	bool trusted;          /* the trust store holds workspace_real with that hash */
	char *trust_store;     /* <user config folder>/agent/trusted.json, or NULL */
	ac_buf notes;          /* what was read leniently, as the seed reads it: lines */
};

static const known_key *find_known(const char *key)
{
	for (size_t i = 0; i < NKNOWN; i++)
		if (!strcmp(known_keys[i].key, key))
			return &known_keys[i];
	return NULL;
}

bool ac_config_key_gated(const char *key)
{
	const known_key *k = find_known(key);
	size_t family = strcspn(key, ".");

	if (k)
		return (k->flags & K_GATED) != 0;
	/* A key this version does not know, in a family that has gated keys
	 * (hooks.*, notify.*, sources.*...): a later version may run it. */
	for (size_t i = 0; i < NKNOWN; i++)
		if ((known_keys[i].flags & K_GATED) && !strncmp(known_keys[i].key, key, family) &&
		    (known_keys[i].key[family] == '.' || known_keys[i].key[family] == '\0'))
			return true;
	return false;
}

/* Fills buf with "one of a, b, c". */
static const char *choices_text(const known_key *k, char *buf, size_t size)
{
	size_t used = (size_t)snprintf(buf, size, "one of");

	for (size_t i = 0; k->choices[i] && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s %s", i ? "," : "",
					 k->choices[i]);
	return buf;
}

static const char *type_text(const known_key *k, char *buf, size_t size)
{
	switch (k->type) {
	case T_STRING: return "a string";
	case T_INT: return "a whole number";
	case T_NUMBER: return "a number";
	case T_BOOL: return "true or false";
	case T_STRINGS: return "an array of strings";
	case T_OBJECT: return "an object";
	case T_ENUM: return choices_text(k, buf, size);
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
		known_key strings = {NULL, T_STRINGS, NULL, NULL, 0};

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

/* A command template (an argv array) with a placeholder spliced into a
 * larger argument is refused from every layer: the value (a session id, a
 * file name an agent chose) would reach whatever interprets that text, such
 * as `sh -c`. */
static int check_template(json_t *argv, const char *origin, const char *key, const char *tool)
{
	static const char *const session_names[] = AC_PROC_PLACEHOLDERS;
	static const char *const hook_names[] = AC_HOOKS_PLACEHOLDERS;
	const known_key *k = find_known(key);
	const char *const *names = k && (k->flags & K_HOOK) ? hook_names : session_names;
	const char **args = calloc(json_array_size(argv) + 1, sizeof(char *));
	json_t *item;
	size_t i, at = 0;
	int rc = 0;

	if (!args)
		return ac_error_set(AC_ENOMEM, "out of memory");
	json_array_foreach(argv, i, item)
		args[i] = json_string_value(item);
	if (ac_proc_check_template(args, names, &at) != 0)
		rc = ac_error_set(AC_EINVAL, "%s: %s%s%s[%zu]: '%.80s' embeds a placeholder inside a "
				  "larger argument; use it as a whole argument (the session id is "
				  "also in $AGENT_SESSION_ID)", origin, key, tool ? "." : "",
				  tool ? tool : "", at, args[at]);
	free(args);
	return rc;
}

static int check_command(const known_key *k, json_t *value, const char *origin)
{
	const char *tool;
	json_t *argv;
	int rc;

	if (k->type == T_STRINGS)
		return check_template(value, origin, k->key, NULL);
	json_object_foreach(value, tool, argv)
		if ((rc = check_template(argv, origin, k->key, tool)))
			return rc;
	return 0;
}

/* True when a component of rel (a path relative to the workspace) names a
 * git folder: ".git" in any case, with the trailing dots or spaces some
 * file systems drop, or its 8.3 alias "git~1". */
static bool names_git_dir(const char *rel)
{
	while (*rel) {
		size_t len = strcspn(rel, "/"), n = len;

		while (n > 0 && (rel[n - 1] == '.' || rel[n - 1] == ' ') && n > 4)
			n--;
		if ((n == 4 && !strncasecmp(rel, ".git", 4)) || (len == 5 && !strncasecmp(rel, "git~1", 5)))
			return true;
		rel += len;
		if (*rel == '/')
			rel++;
	}
	return false;
}

/* A path from the project file must stay inside the workspace (after
 * resolving ".." and existing symbolic links) and out of .git. */
static int check_inside(const ac_config *c, const char *key, const char *value, const char *origin)
{
	ac_buf joined = AC_BUF_INIT, resolved = AC_BUF_INIT;
	const char *rel = NULL;
	int rc = 0;

	if (value[0] == '/')
		ac_buf_append(&joined, value, strlen(value));
	else
		ac_buf_printf(&joined, "%s/%s", c->workspace_real, value);
	if (!joined.data) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = ac_file_resolve(&resolved, joined.data))) {
		rc = ac_error_set(AC_EINVAL, "%s: %s '%.200s': %s", origin, key, value, ac_error_last());
		goto done;
	}
	if (!resolved.data)
		ac_buf_putc(&resolved, '/');
	if (!resolved.data) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (!(rel = ac_file_below(resolved.data, c->workspace_real)))
		rc = ac_error_set(AC_EINVAL, "%s: %s '%.200s' leads outside the workspace %s (to %.200s); "
				  "a project file's paths must stay inside it (set it in the user "
				  "config or the environment instead)", origin, key, value,
				  c->workspace_real, resolved.data);
	else if (names_git_dir(rel))
		rc = ac_error_set(AC_EINVAL, "%s: %s '%.200s' leads into git's folder (.git); a project "
				  "file's paths may not", origin, key, value);
done:
	ac_buf_free(&joined);
	ac_buf_free(&resolved);
	return rc;
}

static bool from_project(const ac_config *c, const char *origin)
{
	return c->project && !strcmp(origin, c->project);
}

/* Stores value (a new reference is taken) for key from origin after a
 * type check, unless a higher layer already set it. */
static int put(ac_config *c, const char *key, json_t *value, const char *origin,
	       bool override)
{
	const known_key *k = find_known(key);
	char choices[128];
	int rc;

	if (k && !has_type(k, value))
		return ac_error_set(AC_EINVAL, "%s: %s must be %s", origin, key,
				    type_text(k, choices, sizeof(choices)));
	if (k && (k->flags & K_COMMAND) && (rc = check_command(k, value, origin)))
		return rc;
	/* Kept whatever wins below: `config trust` shows what the file holds;
	 * the first of a key written twice (flat and nested), as below. */
	if (from_project(c, origin) && ac_config_key_gated(key) &&
	    !json_object_get(c->project_gated, key) &&
	    json_object_set(c->project_gated, key, value))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (k && (k->flags & K_OPERATOR) && from_project(c, origin))
		return ac_error_set(AC_EINVAL, "%s: %s may not be set by a project file (agents write "
				    "it); set it in the user config or the environment", origin, key);
	if (!override && json_object_get(c->values, key))
		return 0;
	if (k && (k->flags & K_PATH) && from_project(c, origin) &&
	    (rc = check_inside(c, key, json_string_value(value), origin)))
		return rc;
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

/* Reads path whole, following symbolic links (a dotfile manager may
 * link the user's files): *out_real is its resolved path. *out NULL when
 * the file does not exist. */
static int read_whole(char **out, size_t *out_len, char **out_real, const char *path)
{
	char *real = realpath(path, NULL);
	int rc;

	*out = NULL;
	*out_real = NULL;
	if (!real)
		return errno == ENOENT ? 0 : ac_error_errno(errno, "%s: cannot read", path);
	if ((rc = ac_file_read(out, out_len, real)))
		free(real);
	else
		*out_real = real;
	return rc;
}

/* The project file, once read: a file reached through a link that leads
 * out of the workspace is never trusted (its relative commands would run
 * in this workspace what was reviewed for another). */
static int note_project(ac_config *c, const char *path, const char *rel, char *real)
{
	ac_buf why = AC_BUF_INIT;

	c->project_rel = rel;
	c->project_real = real;
	if (!(c->project = strdup(path)) || !(c->project_gated = json_object()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (ac_file_below(real, c->workspace_real))
		return 0;
	if (ac_buf_printf(&why, "%s leads out of the workspace %s (to %s) through a symbolic "
			  "link; a project file from outside its workspace is never trusted",
			  path, c->workspace_real, real))
		return ac_error_set(AC_ENOMEM, "out of memory");
	c->untrustable = ac_buf_detach(&why);
	return 0;
}

/* Loads one file layer; a missing file is no error, a broken one is. The
 * project layer (project_rel: its name in the workspace, else NULL) also
 * records the file and the hash of the very bytes that were parsed, for
 * the trust check. */
static int load_file(ac_config *c, const char *path, const char *project_rel, bool *out_found)
{
	json_error_t jerr;
	json_t *root = NULL;
	char *text = NULL, *real = NULL;
	size_t len = 0;
	int rc;

	*out_found = false;
	if ((rc = read_whole(&text, &len, &real, path)) || !text)
		goto done;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		rc = ac_json_load_error(&jerr, text, len, path);
		/* The seed's loadProjectConfig() catches a JSON.parse error and
		 * goes on to the next file (.agentrc.json, then none): so do we,
		 * saying so once. The user file stays fatal: it is trusted, and
		 * may say where the data lives. */
		if (rc == AC_ECORRUPT && project_rel) {
			rc = ac_buf_printf(&c->notes, "%s; ignored as the reference ignores it, %s\n",
					   ac_error_last(),
					   strcmp(project_rel, ".agentrc.json")
						   ? "trying .agentrc.json"
						   : "no project configuration used")
				     ? ac_error_set(AC_ENOMEM, "out of memory") : 0;
		} else if (rc == AC_ECORRUPT) {
			rc = AC_EINVAL;
		}
		goto done;
	}
	*out_found = true;
	if (!json_is_object(root)) {
		rc = ac_error_set(AC_EINVAL, "%s: must hold a JSON object", path);
		goto done;
	}
	if (project_rel) {
		ac_sha256_hex(c->project_sha256, text, len);
		free(c->project_text);
		if (!(c->project_text = malloc(len + 1))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		memcpy(c->project_text, text, len);
		c->project_text[len] = '\0';
		c->project_len = len;
		rc = note_project(c, path, project_rel, real);
		real = NULL;
		if (rc)
			goto done;
	}
	rc = put_file_object(c, root, "", path);
done:
	json_decref(root);
	free(text);
	free(real);
	return rc;
}

/* The trust store as an object ({"workspaces": {root: {"file", "sha256",
 * "trustedAt"}}, "files": {path: {"sha256", "trustedAt"}}}, the latter
 * written by earlier versions); an empty one when the file does not exist.
 * *out_real (may be NULL) receives the path to write it to. */
static int load_trust_store(json_t **out, char **out_real, const char *store)
{
	json_error_t jerr;
	char *text = NULL, *real = NULL;
	size_t len = 0;
	json_t *root = NULL;
	int rc;

	*out = NULL;
	if ((rc = read_whole(&text, &len, &real, store)))
		goto done;
	if (!text)
		root = json_object();
	else if (!(root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr))) {
		rc = ac_error_set(AC_EINVAL, "%s: line %d column %d: %s", store, jerr.line,
				  jerr.column, jerr.text);
		goto done;
	}
	if (!root) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (!json_is_object(root) || (json_object_get(root, "files") &&
				      !json_is_object(json_object_get(root, "files"))) ||
	    (json_object_get(root, "workspaces") &&
	     !json_is_object(json_object_get(root, "workspaces")))) {
		rc = ac_error_set(AC_EINVAL, "%s: must hold {\"workspaces\": {folder: {\"sha256\": "
				  "...}}}", store);
		goto done;
	}
	*out = root;
	root = NULL;
	if (out_real) {
		*out_real = real ? real : strdup(store);
		real = NULL;
		if (!*out_real) {
			json_decref(*out);
			*out = NULL;
			rc = ac_error_set(AC_ENOMEM, "out of memory");
		}
	}
done:
	json_decref(root);
	free(text);
	free(real);
	return rc;
}

static bool same_sha256(const json_t *entry, const char *sha256)
{
	const char *hex = json_string_value(json_object_get(entry, "sha256"));

	return hex && !strcmp(hex, sha256);
}

/* Whether the trust store holds this workspace with the project file's
 * current name and hash. A record of an earlier version (keyed by the
 * file's resolved path) counts only for a file that is no link at all,
 * so that its path names this workspace alone. */
static int load_trust(ac_config *c)
{
	json_t *store = NULL, *entry;
	const char *rel;
	int rc;

	c->trusted = false;
	if (!c->project || !c->trust_store || c->untrustable)
		return 0;
	if ((rc = load_trust_store(&store, NULL, c->trust_store)))
		return rc;
	entry = json_object_get(json_object_get(store, "workspaces"), c->workspace_real);
	c->trusted = same_sha256(entry, c->project_sha256) &&
		     json_is_string(json_object_get(entry, "file")) &&
		     !strcmp(json_string_value(json_object_get(entry, "file")), c->project_rel);
	entry = json_object_get(json_object_get(store, "files"), c->project_real);
	rel = ac_file_below(c->project_real, c->workspace_real);
	if (!c->trusted && same_sha256(entry, c->project_sha256) && rel &&
	    !strcmp(rel, c->project_rel))
		c->trusted = true;
	json_decref(store);
	return 0;
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

const char *ac_config_known_key(size_t i, char *type, size_t type_size, char *env,
				size_t env_size)
{
	const known_key *k = i < NKNOWN ? &known_keys[i] : NULL;
	ac_buf name = AC_BUF_INIT;
	const char *what;

	if (!k)
		return NULL;
	what = type_text(k, type, type_size);
	if (what != type)
		snprintf(type, type_size, "%s", what);
	if (k->env)
		ac_buf_printf(&name, "%s", k->env);
	else
		env_name(&name, k->key);
	snprintf(env, env_size, "%s", name.data);
	ac_buf_free(&name);
	return k->key;
}

/* JavaScript's parseInt(text, 10), which the seed's loadEnvConfig() applies
 * to AGENT_MAX_TOKENS: leading white space, a sign, then the longest run of
 * digits ("8k" is 8). False for NaN (no digit) or what a json_int_t cannot
 * hold. */
static bool js_parse_int(long long *out, const char *text)
{
	const char *p = text + strspn(text, " \t\n\v\f\r");
	bool negative = *p == '-';
	long long v = 0;

	if (*p == '-' || *p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (LLONG_MAX - (*p - '0')) / 10)
			return false;
		v = v * 10 + (*p - '0');
	}
	*out = negative ? -v : v;
	return true;
}

/* The seed's reading of AGENT_MAX_TOKENS (parseInt): a value a command
 * that uses maxTokens gets, never an error for the commands that do not.
 * What parseInt drops, or a NaN (then the layer below stands), is noted. */
static json_t *env_seed_int(ac_config *c, const char *name, const char *text)
{
	long long v;
	int rc;

	if (!js_parse_int(&v, text) || v < 0) {
		rc = ac_buf_printf(&c->notes, "environment %s: '%.40s' is not a whole number; "
				   "ignored\n", name, text);
		return rc ? NULL : json_null();
	}
	if (text[strspn(text, " \t\n\v\f\r+-0123456789")] &&
	    ac_buf_printf(&c->notes, "environment %s: '%.40s' read as %lld, as the "
			  "reference's parseInt reads it\n", name, text, v))
		return NULL;
	return json_integer(v);
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
		char choices[128];
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
			value = k->flags & K_SEED_INT ? env_seed_int(c, name.data, text)
						      : env_value(k, text);
			if (!value && k->flags & K_SEED_INT)
				rc = ac_error_set(AC_ENOMEM, "out of memory");
			else if (!value)
				rc = ac_error_set(AC_EINVAL, "environment %s: '%.40s' is not %s",
						  name.data, text, type_text(k, choices, sizeof(choices)));
			else if (!json_is_null(value))
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
				     " s:i, s:f, s:i, s:s, s:i}",
				     "model", "claude-sonnet-4-5", "maxTokens", 8192,
				     "temperature", 0.0, "requireApproval", approval,
				     "sessionDir", ".agent/sessions",
				     "journalPath", "JOURNAL.jsonl",
				     "operationLogPath", ".agent/operations.jsonl",
				     "checkpointDir", ".agent/checkpoints",
				     "theme", "dark",
				     "compaction.triggerTokens", AC_COMPACT_TRIGGER_TOKENS,
				     "compaction.compactFraction", AC_COMPACT_FRACTION,
				     "compaction.minMessages", AC_COMPACT_MIN_MESSAGES,
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
	if (!(c->workspace_real = realpath(workspace, NULL))) {
		rc = ac_error_errno(errno, "%s: cannot resolve the workspace folder", workspace);
		goto fail;
	}
	if (xdg && *xdg)
		ac_buf_printf(&path, "%s/agent/trusted.json", xdg);
	else if (home && *home)
		ac_buf_printf(&path, "%s/.config/agent/trusted.json", home);
	if (path.len && !(c->trust_store = ac_buf_detach(&path))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto fail;
	}
	ac_buf_clear(&path);
	/* Highest layer first: put() keeps the first value set for a key. */
	ac_buf_printf(&path, "%s/.agent/config.json", workspace);
	if ((rc = load_file(c, path.data, ".agent/config.json", &found)))
		goto fail;
	if (!found) {
		ac_buf_clear(&path);
		ac_buf_printf(&path, "%s/.agentrc.json", workspace);
		if ((rc = load_file(c, path.data, ".agentrc.json", &found)))
			goto fail;
	}
	ac_buf_clear(&path);
	if (xdg && *xdg)
		ac_buf_printf(&path, "%s/agent/config.json", xdg);
	else if (home && *home)
		ac_buf_printf(&path, "%s/.config/agent/config.json", home);
	if (path.len && (rc = load_file(c, path.data, NULL, &found))) {
		/* Said as the user's file, with the way around it: an unreadable
		 * home must not leave the operator guessing which file. */
		char *why = strdup(ac_error_last());

		ac_error_set(rc, "user config %s; fix it, or set XDG_CONFIG_HOME to another folder",
			     why ? why : path.data);
		free(why);
		goto fail;
	}
	if ((rc = load_env(c)) || (rc = load_defaults(c)) || (rc = load_trust(c)))
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
	free(c->workspace_real);
	free(c->project);
	free(c->project_real);
	free(c->project_text);
	json_decref(c->project_gated);
	free(c->untrustable);
	free(c->trust_store);
	ac_buf_free(&c->notes);
	free(c);
}

const char *ac_config_notes(const ac_config *c)
{
	return c->notes.len ? c->notes.data : NULL;
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

bool ac_config_bool(const ac_config *c, const char *key, bool fallback)
{
	json_t *v = json_object_get(c->values, key);

	return json_is_boolean(v) ? json_is_true(v) : fallback;
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

const char *ac_config_project_file(const ac_config *c)
{
	return c->project;
}

const char *ac_config_project_sha256(const ac_config *c)
{
	return c->project ? c->project_sha256 : NULL;
}

bool ac_config_project_trusted(const ac_config *c)
{
	return c->project && c->trusted;
}

const char *ac_config_trust_store(const ac_config *c)
{
	return c->trust_store;
}

const char *ac_config_project_untrustable(const ac_config *c)
{
	return c->untrustable;
}

json_t *ac_config_project_gated(const ac_config *c)
{
	return c->project_gated;
}

int ac_config_command(json_t **out, const ac_config *c, const char *key)
{
	json_t *value = json_object_get(c->values, key);
	const char *origin = ac_config_origin(c, key);

	*out = NULL;
	if (!ac_config_key_gated(key))
		return ac_error_set(AC_EINVAL, "%s: not a key that runs a command or chooses where "
				    "data goes (see ac_config_key_gated())", key);
	if (!value)
		return 0;
	if (origin && from_project(c, origin) && c->untrustable)
		return ac_error_set(AC_EDENIED, "%s: not used, and `agentctl config trust` will not "
				    "change that: %s", key, c->untrustable);
	if (origin && from_project(c, origin) && !c->trusted)
		return ac_error_set(AC_EDENIED, "%s comes from %s, which is not trusted: review it "
				    "(agentctl config show --origin), then run `agentctl config trust "
				    "--sha256 %s`", key, origin, c->project_sha256);
	*out = value;
	return 0;
}

/* <state folder>/agent/trusted/<sha256 of the resolved workspace>.json:
 * the copy of the bytes last trusted for the workspace. */
static int trusted_copy_path(ac_buf *out, bool folder_only, const ac_config *c)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char key[AC_SHA256_HEX_LEN + 1];

	if (state && *state)
		ac_buf_printf(out, "%s/agent/trusted", state);
	else if (home && *home)
		ac_buf_printf(out, "%s/.local/state/agent/trusted", home);
	else
		return ac_error_set(AC_EINVAL, "no state folder for the trusted copy: set "
				    "XDG_STATE_HOME or HOME");
	ac_sha256_hex(key, c->workspace_real, strlen(c->workspace_real));
	if (!folder_only)
		ac_buf_printf(out, "/%s.json", key);
	return out->data ? 0 : ac_error_set(AC_ENOMEM, "out of memory");
}

static int write_trusted_copy(const ac_config *c)
{
	ac_buf dir = AC_BUF_INIT, path = AC_BUF_INIT;
	int rc;

	if ((rc = trusted_copy_path(&dir, true, c)) || (rc = trusted_copy_path(&path, false, c)) ||
	    (rc = ac_file_mkdirs(dir.data)))
		goto done;
	/* Private: the project file may name hosts and tokens. */
	if (chmod(dir.data, 0700) != 0) {
		rc = ac_error_errno(errno, "%s: cannot make it private", dir.data);
		goto done;
	}
	if ((rc = ac_atomic_write(path.data, c->project_text ? c->project_text : "",
				  c->project_len, NULL, NULL)))
		goto done;
	if (chmod(path.data, 0600) != 0)
		rc = ac_error_errno(errno, "%s: cannot make it private", path.data);
done:
	ac_buf_free(&dir);
	ac_buf_free(&path);
	return rc;
}

int ac_config_trust_review(ac_config_trust_diff *out, const ac_config *c, int context)
{
	json_t *store = NULL, *entry;
	ac_buf path = AC_BUF_INIT;
	char *before = NULL, sha[AC_SHA256_HEX_LEN + 1];
	size_t before_len = 0;
	struct stat st;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!c->project)
		return ac_error_set(AC_ENOTFOUND, "%s: no project config (.agent/config.json or "
				    ".agentrc.json) to trust", c->workspace);
	if (c->untrustable)
		return ac_error_set(AC_EDENIED, "%s", c->untrustable);
	if (c->trust_store && (rc = load_trust_store(&store, NULL, c->trust_store)))
		return rc;
	entry = json_object_get(json_object_get(store, "workspaces"), c->workspace_real);
	if (json_is_string(json_object_get(entry, "trustedAt")))
		snprintf(out->trusted_at, sizeof(out->trusted_at), "%s",
			 json_string_value(json_object_get(entry, "trustedAt")));
	if (json_is_string(json_object_get(entry, "sha256")))
		snprintf(out->trusted_sha256, sizeof(out->trusted_sha256), "%s",
			 json_string_value(json_object_get(entry, "sha256")));
	/* The copy counts only when it holds the bytes the store names. */
	if (out->trusted_sha256[0] && (rc = trusted_copy_path(&path, false, c)) == 0 &&
	    lstat(path.data, &st) == 0 && S_ISREG(st.st_mode) &&
	    ac_file_read(&before, &before_len, path.data) == 0) {
		ac_sha256_hex(sha, before, before_len);
		out->have_copy = !strcmp(sha, out->trusted_sha256);
	}
	ac_error_clear();
	rc = ac_linediff(&out->diff, out->have_copy ? before : "", out->have_copy ? before_len : 0,
			 c->project_text ? c->project_text : "", c->project_len, context,
			 &out->added, &out->removed);
	free(before);
	ac_buf_free(&path);
	json_decref(store);
	return rc;
}

void ac_config_trust_diff_free(ac_config_trust_diff *d)
{
	ac_buf_free(&d->diff);
	memset(d, 0, sizeof(*d));
}

int ac_config_trust(ac_config *c)
{
	return ac_config_trust_reviewed(c, NULL);
}

int ac_config_trust_reviewed(ac_config *c, const char *sha256)
{
	json_t *store = NULL, *workspaces, *entry = NULL;
	char *real = NULL, *text = NULL, at[AC_TIME_ISO_LEN + 1];
	const char *slash;
	int rc;

	if (!c->project) {
		rc = ac_error_set(AC_ENOTFOUND, "%s: no project config (.agent/config.json or "
				  ".agentrc.json) to trust", c->workspace);
		goto done;
	}
	if (c->untrustable) {
		rc = ac_error_set(AC_EDENIED, "%s", c->untrustable);
		goto done;
	}
	if (sha256 && strcasecmp(sha256, c->project_sha256) != 0) {
		rc = ac_error_set(AC_ECONFLICT, "%s: its content has sha256 %s, not the %.64s that "
				  "was reviewed; nothing trusted: review it again (agentctl config "
				  "show --origin)", c->project, c->project_sha256, sha256);
		goto done;
	}
	if (!c->trust_store) {
		rc = ac_error_set(AC_EINVAL, "no user config folder: set XDG_CONFIG_HOME or HOME");
		goto done;
	}
	/* Read again right before writing, so entries others added are kept. */
	if ((rc = load_trust_store(&store, &real, c->trust_store)))
		goto done;
	if (!(workspaces = json_object_get(store, "workspaces"))) {
		if (json_object_set_new(store, "workspaces", json_object()) != 0) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		workspaces = json_object_get(store, "workspaces");
	}
	ac_time_format_iso(at, ac_time_now_ms());
	if (!(entry = json_pack("{s:s, s:s, s:s}", "file", c->project_rel, "sha256",
				c->project_sha256, "trustedAt", at)) ||
	    json_object_set_new(workspaces, c->workspace_real, entry) != 0 ||
	    !(text = json_dumps(store, JSON_INDENT(2) | JSON_SORT_KEYS))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((slash = strrchr(real, '/')) && slash != real) {
		char *dir = strndup(real, (size_t)(slash - real));

		rc = dir ? ac_file_mkdirs(dir) : ac_error_set(AC_ENOMEM, "out of memory");
		free(dir);
		if (rc)
			goto done;
	}
	if ((rc = ac_atomic_write(real, text, strlen(text), NULL, NULL)))
		goto done;
	c->trusted = true;
	/* What was trusted, to show what changes next time; the trust itself
	 * stands without it. */
	if (write_trusted_copy(c) != 0)
		ac_error_clear();
done:
	json_decref(store);
	free(real);
	free(text);
	return rc;
}
