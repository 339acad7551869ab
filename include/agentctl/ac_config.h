/* The layered configuration: command line > project file > user file >
 * environment > built-in defaults, as the reference resolver does it.
 *
 * Project file: <workspace>/.agent/config.json, else .agentrc.json. User
 * file: $XDG_CONFIG_HOME/agent/config.json (default ~/.config/...).
 * Environment: AGENT_MODEL, AGENT_MAX_TOKENS, AGENT_SESSION_DIR and
 * AGENT_<KEY> for every known key (journal.rotateBytes ->
 * AGENT_JOURNAL_ROTATE_BYTES). Keys are dotted; a file may nest them
 * ({"journal": {"fsync": "always"}}) or write them flat. Known keys are
 * type-checked when loaded: a file that does not parse or a value of the
 * wrong type is an error naming the file or variable, never dropped. */
#ifndef AC_CONFIG_H
#define AC_CONFIG_H

#include "ac_buf.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ac_config ac_config;

/* Trust. The project file is written by agents, so:
 *  - its path keys (sessionDir, journalPath, operationLogPath,
 *    checkpointDir) must resolve (through "..", and the symbolic links that
 *    exist) inside the workspace and outside any .git folder, or loading
 *    fails naming the file and key;
 *  - its gated keys, those that run a command or choose where data goes
 *    (ac_config_key_gated(): resumeCommand, summarizer.command,
 *    rollbackTools, memory.consolidateCommand, hooks.*, notify.desktop,
 *    sources.*.resumeCommand, storage.url) are handed out only through
 *    ac_config_command(), which refuses them until the operator trusted
 *    that file's exact content for this workspace with ac_config_trust()
 *    (`agentctl config trust [--sha256 HEX]`);
 *  - a project file reached through a symbolic link that leads out of the
 *    workspace is never trusted (ac_config_project_untrustable()).
 * The user file, the environment and the command line are the operator's
 * own and are trusted. The trust store is $XDG_CONFIG_HOME/agent/trusted.json
 * (default ~/.config/agent/trusted.json): {"workspaces": {"<resolved
 * workspace folder>": {"file": ".agent/config.json" or ".agentrc.json",
 * "sha256": "<hex of its bytes>", "trustedAt": "<UTC>"}}}. Trust is thus
 * keyed by the workspace and the content, never by where a link leads.
 * Records of earlier versions ({"files": {"<resolved path of the project
 * file>": {"sha256", ...}}}) are still read, and count only for a project
 * file that is no link (its resolved path is <workspace>/<its name>).
 * From every layer, a command whose argument holds a placeholder ("{id}")
 * inside a larger text is refused (see ac_proc_expand_argv()). */

/* Loads the layers for workspace (a folder path). *out is freed with
 * ac_config_free(). Returns 0, or AC_EINVAL naming the file/variable. */
int ac_config_load(ac_config **out, const char *workspace);

void ac_config_free(ac_config *config);

/* What the load read leniently, as the seed's ConfigResolver does (a
 * project file that is not JSON, skipped for the next one; an
 * AGENT_MAX_TOKENS that parseInt reads in part or not at all): one line
 * each, '\n'-separated, for the program to show once; NULL when none.
 * Borrowed from config. */
const char *ac_config_notes(const ac_config *config);

/* Sets key from the command line (the highest layer); value is parsed as
 * JSON when it is valid JSON, else taken as a string, then type-checked. */
int ac_config_set_cli(ac_config *config, const char *key, const char *value);

/* The resolved value of key, or NULL. Borrowed from config. */
json_t *ac_config_get(const ac_config *config, const char *key);

/* Where key's value came from: "command line", a file path,
 * "environment AGENT_X" or "default"; NULL when unset. Borrowed. */
const char *ac_config_origin(const ac_config *config, const char *key);

/* The resolved string, or fallback when unset. Borrowed. */
const char *ac_config_string(const ac_config *config, const char *key,
			     const char *fallback);

/* The resolved integer, or fallback when unset. */
int64_t ac_config_int(const ac_config *config, const char *key, int64_t fallback);

/* The resolved true or false, or fallback when unset. */
bool ac_config_bool(const ac_config *config, const char *key, bool fallback);

/* Resolves a path key against the workspace: absolute values stay, relative
 * ones are joined to the workspace. Returns an allocated string (caller
 * frees) or NULL on ENOMEM. */
char *ac_config_path(const ac_config *config, const char *key, const char *fallback);

/* Every resolved key and its value, as a flat object of dotted keys in
 * the order they were set. Borrowed from config. */
json_t *ac_config_values(const ac_config *config);

/* The workspace folder the config was loaded for. Borrowed. */
const char *ac_config_workspace(const ac_config *config);

/* The project file that was loaded, as named in origins, or NULL. Borrowed. */
const char *ac_config_project_file(const ac_config *config);

/* The SHA-256 (hex) of the project file's bytes as loaded, or NULL. Borrowed. */
const char *ac_config_project_sha256(const ac_config *config);

/* True when a project file was loaded and its content is trusted. */
bool ac_config_project_trusted(const ac_config *config);

/* The trust store's path, or NULL when neither XDG_CONFIG_HOME nor HOME is
 * set. Borrowed. */
const char *ac_config_trust_store(const ac_config *config);

/* Why the loaded project file is never trusted (it is reached through a
 * symbolic link out of the workspace), or NULL. Borrowed. */
const char *ac_config_project_untrustable(const ac_config *config);

/* True for a key that runs a command or chooses where data goes, which a
 * project file sets only once trusted: the keys so marked in the key
 * table, and any key this version does not know in a family that holds
 * one (hooks.*, notify.*, sources.*, memory.*, storage.*...), which a
 * later version may honour. */
bool ac_config_key_gated(const char *key);

/* The i-th key of the known-key table (0 up, in its order), or NULL past
 * the last; what its value is ("a whole number", "one of never, always")
 * into type and its environment variable into env, both cut to size.
 * For the generated manual page (cli/gen/gen_docs.c). */
const char *ac_config_known_key(size_t i, char *type, size_t type_size, char *env,
				size_t env_size);

/* The project file's own gated keys (ac_config_key_gated()) and their
 * values as that file holds them (even where the command line overrides
 * them), parsed from the bytes ac_config_project_sha256() hashes: a flat
 * object in file order; NULL when no project file. Borrowed. */
json_t *ac_config_project_gated(const ac_config *config);

/* The one place that decides whether a gated key's value may be used
 * (ac_config_key_gated(); AC_EINVAL for another key): *out is key's value
 * (borrowed; NULL when unset), or the call returns AC_EDENIED (and *out is
 * NULL) when it comes from a project file whose content is not trusted;
 * the message names the key and the file and says how to trust it. */
int ac_config_command(json_t **out, const ac_config *config, const char *key);

/* ac_config_trust_reviewed(config, NULL). */
int ac_config_trust(ac_config *config);

/* Records the resolved workspace folder, the project file's name and the
 * hash of the bytes that were loaded in the trust store (written
 * atomically; other entries are kept), so its gated keys are used from now
 * on, until its content changes. With sha256 (hex, any case; may be NULL),
 * only when the loaded bytes have that hash: AC_ECONFLICT, nothing
 * written, when they do not (the file changed since it was reviewed).
 * AC_ENOTFOUND when there is no project file, AC_EDENIED when it is never
 * trusted (ac_config_project_untrustable()). */
int ac_config_trust_reviewed(ac_config *config, const char *sha256);

/* What trusting the project file would change, for a review: the file as
 * it was last trusted for this workspace against the bytes loaded now.
 * Trusting keeps a copy of the trusted bytes, private to the operator
 * (0600, in a 0700 folder): $XDG_STATE_HOME/agent/trusted/<sha256 of the
 * resolved workspace>.json (default ~/.local/state/...); the trust store's
 * format is unchanged. */
typedef struct {
	char trusted_at[40];       /* when it was last trusted ("" never) */
	char trusted_sha256[65];   /* the hash then ("" never) */
	bool have_copy;            /* the copy of those bytes was found: diff is
				      against it; else against nothing (every
				      line added) */
	ac_buf diff;               /* ac_linediff() lines: "@@", "-", "+", " " */
	size_t added, removed;     /* lines */
} ac_config_trust_diff;

/* Fills out for config's project file, with context lines of context
 * around each change. Free with ac_config_trust_diff_free(), also after
 * an error. AC_ENOTFOUND without a project file, AC_EDENIED when it is
 * never trusted. The text is the file's, raw: sanitise before showing. */
int ac_config_trust_review(ac_config_trust_diff *out, const ac_config *config, int context);

void ac_config_trust_diff_free(ac_config_trust_diff *d);

#endif
