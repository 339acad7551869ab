/* Sessions that coding agents keep in their own transcripts: Claude Code
 * (~/.claude/projects), Codex (~/.codex/sessions), Gemini CLI
 * (~/.gemini/tmp) and Antigravity CLI (~/.gemini/antigravity-cli),
 * read-only, beside the seed session files.
 *
 * One adapter per tool (ac_source_claude.c, ac_source_codex.c,
 * ac_source_gemini.c, ac_source_agy.c) behind this interface: discover the transcripts of a
 * workspace, read one incrementally from the byte offset reached last time
 * into a summary (id, cwd, first prompt, times, counts, the inputs of
 * ac_session_state.h), and, on demand, its conversation as agentctl
 * messages ({role, content blocks}) for the conversation view. Nothing
 * here ever writes to those folders: every file is opened O_RDONLY. Unknown
 * entry types and fields are tolerated; a line that is not JSON is skipped
 * and counted. Listing many transcripts is ac_source_index (below). */
#ifndef AC_SOURCE_H
#define AC_SOURCE_H

#include "ac_buf.h"
#include "ac_config.h"
#include "ac_session_state.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	AC_SOURCE_CLAUDE = 0,
	AC_SOURCE_CODEX,
	AC_SOURCE_GEMINI,
	AC_SOURCE_AGY,
	AC_SOURCE_COUNT
} ac_source_kind;

/* "claude-code", "codex", "gemini", "antigravity": the `source` field of
 * `session list --json`. Static. */
const char *ac_source_name(ac_source_kind kind);

/* "claude", "codex", "gemini", "agy": the config key segment
 * (sources.<key>.dir). */
const char *ac_source_key(ac_source_kind kind);

/* How a transcript relates to another. */
typedef enum {
	AC_SOURCE_TOP = 0,   /* its own session */
	AC_SOURCE_FORK,      /* forked from parent_id: its copied prefix is not its own */
	AC_SOURCE_SUBAGENT   /* works for parent_id */
} ac_source_relation;

/* "", "fork", "subagent": the `relation` of `session list --json`. */
const char *ac_source_relation_name(ac_source_relation relation);

#define AC_SOURCE_UNKNOWN_TYPES 8

/* One transcript as read so far. Strings are owned, decoded from the file
 * (not yet safe for a terminal), NULL when not seen. Fields below "read
 * state" belong to the reader. */
typedef struct {
	ac_source_kind kind;
	char *path;      /* the transcript file */
	char *id;        /* what the tool's resume takes */
	char *cwd;       /* the agent's working folder */
	char *task;      /* the first prompt */
	char *title;     /* the tool's own title for the thread (a summary) */
	char *model;
	char *started;   /* ISO-8601 of the first entry */
	char *updated;   /* of the last entry */
	size_t messages; /* the messages ac_source_session_conversation() gives: one count everywhere */
	size_t malformed; /* lines that were not JSON, skipped */
	ac_turn turn;
	bool awaiting_approval;
	/* Where the session sits among others: a Codex fork (parent_id the
	 * thread it was forked from), a sub-agent (a Claude sub-agent, a
	 * Gemini sub-agent chat, a Codex sub-agent thread: parent_id the
	 * session it works for), or a top-level session (parent_id NULL). */
	ac_source_relation relation;
	char *parent_id;
	/* What its model calls took, each call once (input, output and cache
	 * tokens; 0: none said), and its last tool call: the tool's name and
	 * main argument ("Bash make test"), NULL before any. Read by the
	 * adapters that know them (Claude Code's). */
	uint64_t tokens;
	char *last_action;
	/* The tool's own word for what it waits on ("approve Bash"), from a
	 * status file (Claude Code's ~/.claude/sessions/<pid>.json); NULL
	 * when nothing says. Not from the transcript. */
	char *waiting_reason;
	/* What that status file says of the process (AC_AGENT_UNKNOWN: no
	 * file names the session). Set by ac_source_index_refresh() from the
	 * folder of ac_source_options.status_dir, not by a read. */
	ac_agent_status agent;
	/* Record types the adapter does not know, skipped: the format-drift
	 * canary (`agentctl sources check`). Counted by
	 * ac_source_note_unknown(); the first AC_SOURCE_UNKNOWN_TYPES
	 * distinct names are kept, the rest only counted. */
	struct {
		char *type;
		size_t count;
	} unknown[AC_SOURCE_UNKNOWN_TYPES];
	size_t nunknown;       /* distinct names kept */
	size_t unknown_other;  /* records of types past the kept names */
	int64_t mtime_ms; /* the file's, at the last read */
	unsigned char title_rank; /* what gave title: 0 none, 1 a summary, 2 the tool's, 3 the user's */
	/* The strings path .. last_action share the session's own block (one
	 * allocation, not ten: a summary restored from the cache, of which
	 * a list loads 200,000 and frees them again); copied out by
	 * ac_source_session_own() before anything changes one. */
	bool packed;
	/* read state */
	uint32_t reader_flags;   /* the adapter's own, carried between reads (and cached) */
	int64_t reader_mark[2];  /* likewise (Codex: where a fork's copy of its parent ends) */
	uint64_t offset;  /* bytes consumed: the next read starts here */
	uint64_t dev, ino, size;
	int64_t mtime_ns;
	uint64_t bytes_parsed; /* total bytes handed to the parser, for tests and benches */
	bool skipping;    /* inside a line longer than AC_SOURCE_LINE_MAX: dropped to its end */
	void *adapter_state; /* what the adapter keeps between reads (a Gemini chat: its
				messages by id), freed by its forget() */
	uint64_t last_call; /* the last call counted in tokens (a hash of its id): lines of one call repeat it */
	uint64_t last_call_tokens; /* what tokens holds of it: a later line of it, larger, replaces it */
	char **pending;   /* ids of tool calls without a result */
	size_t npending, pending_cap;
} ac_source_session;

/* A line longer than this (no tool writes one; a sparse or hostile file
 * does) is skipped and counted malformed, never held whole; a document
 * source's file larger than AC_SOURCE_DOCUMENT_MAX is not read. */
#define AC_SOURCE_LINE_MAX (64u * 1024 * 1024)
#define AC_SOURCE_DOCUMENT_MAX (256u * 1024 * 1024)

/* A new, unread transcript of kind at path (copied). 0 or AC_ENOMEM;
 * free with ac_source_session_free(). */
int ac_source_session_new(ac_source_session **out, ac_source_kind kind, const char *path);

void ac_source_session_free(ac_source_session *s);

/* Brings s up to date with its file: complete lines appended since the
 * last read are parsed, and only those; a last line without its newline
 * is left for the next read; a file that shrank or was replaced (another
 * inode) is read again from the start. A document (a Gemini chat of the
 * older format, rewritten whole) is read again when its size or time
 * changed.
 * *out_changed (may be NULL) is set when anything was read. 0,
 * AC_ENOTFOUND (gone), AC_ECORRUPT (not a regular file), AC_EIO. */
int ac_source_session_read(ac_source_session *s, bool *out_changed);

/* The conversation of s as an array of agentctl messages (a new
 * reference): text, tool_use and tool_result blocks, read from the file
 * now (the summary keeps none of it). 0, or the errors of a read. */
int ac_source_session_conversation(json_t **out, const ac_source_session *s);

/* s as a session document (a new reference) for what reads one, such as
 * ac_session_export(): id, task, status "<source> transcript
 * (read-only)", createdAt and updatedAt ("" unknown) and its conversation
 * as conversationHistory. 0, or the errors of a read. */
int ac_source_session_document(json_t **out, const ac_source_session *s);

/* True when the tool archived s (a Codex rollout moved to
 * archived_sessions/): still read, and said to be archived. */
bool ac_source_session_archived(const ac_source_session *s);

/* What to call s: its first prompt, else the tool's title, else ""; a
 * sub-agent's title first (its type and description). Borrowed. */
const char *ac_source_session_task(const ac_source_session *s);

/* The inputs of ac_session_state_derive() for s at now_ms. */
void ac_source_session_inputs(ac_state_inputs *out, const ac_source_session *s, int64_t now_ms);

/* Each session's parent among list[0..n), for showing them as a tree:
 * (*out)[i] is the row whose id is list[i]->parent_id (of rows with the
 * same id, the last), or SIZE_MAX when list[i] names no parent or its
 * parent is not in list. A row may name itself, and parents may make a
 * cycle: the caller walking the tree guards against both. *out is
 * allocated, n entries, for the caller to free(); 0 or AC_ENOMEM. */
int ac_source_parent_rows(size_t **out, ac_source_session *const *list, size_t n);

/* True when path is folder or inside it (both absolute, no trailing '/'). */
bool ac_source_path_inside(const char *path, const char *folder);

/* Where to look and what to list. Options filled by hand start from
 * AC_SOURCE_OPTIONS_INIT (every source off); ac_source_options_from_config()
 * sets the version itself. ac_source_index_new() refuses options of
 * another version with AC_EINVAL naming the struct. */
#define AC_SOURCE_OPTIONS_VERSION 1
#define AC_SOURCE_OPTIONS_INIT { .version = AC_SOURCE_OPTIONS_VERSION }

typedef struct {
	unsigned int version;       /* AC_SOURCE_OPTIONS_VERSION */
	char *dir[AC_SOURCE_COUNT]; /* NULL: that source is off */
	char *workspace;            /* resolved, absolute */
	bool all_projects;          /* every transcript, not only the workspace's */
	char *cache_dir;            /* for ac_source_cache.c; NULL: no cache */
	char *status_dir;           /* Claude Code's status files (ac_source_status.h); NULL: not read */
	ac_state_thresholds limits;
} ac_source_options;

/* Fills opts from config: sources.enabled (default true),
 * sources.<key>.enabled, sources.<key>.dir (default under $HOME),
 * sources.<key>.resumeCommand, sources.state.{permissionMs,idleMs,endedMs},
 * sources.claude.statusDir (default ~/.claude/sessions; "" reads none)
 * and the cache folder ($XDG_CACHE_HOME/agentctl, default ~/.cache/...).
 * workspace is resolved with realpath. Free with ac_source_options_free(). */
int ac_source_options_from_config(ac_source_options *opts, const ac_config *config,
				  const char *workspace, bool all_projects);

void ac_source_options_free(ac_source_options *opts);

/* The state thresholds of config: sources.state.permissionMs, idleMs and
 * endedMs (defaults AC_STATE_THRESHOLDS_DEFAULT; negative values are 0). */
void ac_source_state_limits(ac_state_thresholds *out, const ac_config *config);

/* The resume command configured for kind, as a NULL-terminated argv
 * template (strings borrowed from config), or AC_EDENIED when it comes from
 * an untrusted project file (message says how to trust it), or NULL
 * *out when none. The built-in defaults are "claude --resume {id}",
 * "codex resume {id}", "gemini --resume {id}". *out is freed with free()
 * (the array only). */
int ac_source_resume_command(const char ***out, const ac_config *config, ac_source_kind kind);

/* 0 when id may be handed to a tool as its resume argument: 1 to 128
 * bytes of letters, digits, '.', '_' and '-', not starting with '-' (the
 * tools' own ids are UUIDs). An id comes from a file name or from inside
 * a transcript (or the cache): one like "--dangerously-skip-permissions"
 * would be taken as an option, however whole an argument it is.
 * AC_EINVAL otherwise, the message naming the id (escaped). */
int ac_source_id_check(const char *id);

/* Resuming a session with its own tool, on the operator's terminal (the
 * dashboard's a). Made in two steps, so that what refuses (an id that is
 * no tool's, an untrusted command) is known before the terminal is given
 * up. Free with ac_source_resume_free(). */
typedef struct ac_source_resume ac_source_resume;

/* The command that resumes session id of kind: id checked
 * (ac_source_id_check()), then the resume command configured for kind
 * (ac_source_resume_command()) with each argument that is exactly "{id}"
 * replaced by id (never spliced into a larger one). id is copied. 0, or
 * the AC_EINVAL, AC_EDENIED or AC_ENOMEM of those. */
int ac_source_resume_new(ac_source_resume **out, const ac_config *config, ac_source_kind kind,
			 const char *id);

/* The program the command runs (its first argument), for messages.
 * Borrowed from r. */
const char *ac_source_resume_program(const ac_source_resume *r);

/* Runs r in cwd with AGENT_SESSION_ID set to the id, on the caller's own
 * terminal (standard input, output and error inherited: an interactive
 * tool), and waits for it. The caller gives the terminal up first (the
 * dashboard suspends curses). *out_status: 0..255, or 128 + signal. 0, or
 * AC_EIO/AC_ENOTFOUND when it could not be started (the message names the
 * program). */
int ac_source_resume_run(int *out_status, const ac_source_resume *r, const char *cwd);

/* NULL is fine. */
void ac_source_resume_free(ac_source_resume *r);

/* How many Antigravity conversations under dir (sources.agy.dir) agentctl
 * cannot read: a conversations/<id>.db (SQLite with protobuf blobs of no
 * published schema) or conversations/ or implicit/<id>.pb (encrypted)
 * with no brain/<id>/.system_generated/logs/transcript.jsonl beside it.
 * 0 when the folders are missing. For `agentctl sources check`. */
size_t ac_source_agy_unread(const char *dir);

/* ---- many transcripts ---- */

typedef struct ac_source_index ac_source_index;

/* An index over opts (copied). 0, AC_EINVAL (options of another version)
 * or AC_ENOMEM. */
int ac_source_index_new(ac_source_index **out, const ac_source_options *opts);

void ac_source_index_free(ac_source_index *index);

/* Discovers the transcripts and reads what changed in each, then what
 * the status files say (status_dir). *out_read (may be NULL) receives how
 * many files had anything read, plus the sessions a status file changed
 * (their rows show something else). A missing
 * folder lists as empty; a file that cannot be read (or whose path is not
 * valid UTF-8: no tool writes one, and its id could not be shown or
 * given back) is left out and counted by ac_source_index_unreadable().
 * An error (out of memory, a folder that cannot be listed) lists nothing. */
int ac_source_index_refresh(ac_source_index *index, size_t *out_read);

/* How many transcripts the last refresh left out as unreadable; *out_first
 * (may be NULL) receives what the first of them said, one line naming its
 * path with every byte that is not safe text escaped (borrowed until the
 * next refresh; NULL when there were none). */
size_t ac_source_index_unreadable(const ac_source_index *index, const char **out_first);

/* The i-th of them (0 .. ac_source_index_unreadable() - 1): what it said,
 * as above, and its source in *out_kind (may be NULL); NULL past the end.
 * Borrowed until the next refresh. `agentctl sources check` lists them. */
const char *ac_source_index_unreadable_at(const ac_source_index *index, size_t i,
					  ac_source_kind *out_kind);

/* The format-drift canary of one source, as the last refresh found it:
 * files its folders held that its reader did not take, by name pattern
 * ("session-*.jsonl": a name's leading letters and separator, '*', its
 * extension; only names whose extension, from the first dot, is a
 * transcript's: .json, .jsonl, .ndjson, each also with .zst or .gz; only
 * in the folders the source walks), and
 * records its transcripts hold of types its reader does not know, by
 * type (summed over every transcript read, not only those listed). Names
 * are stored escaped; the first 16 of each are kept, the rest counted in
 * other. */
typedef struct {
	char *name;
	size_t count;
} ac_source_tally_item;

typedef struct {
	ac_source_tally_item *items;
	size_t n, cap;
	size_t other;
} ac_source_tally;

typedef struct {
	ac_source_tally files; /* not read, by name pattern */
	ac_source_tally types; /* records skipped, by type */
} ac_source_drift;

/* The canary of kind after the last refresh. Borrowed until the next. */
const ac_source_drift *ac_source_index_drift(const ac_source_index *index, ac_source_kind kind);

/* Appends to out what d says, one clause per name ("gemini: 17
 * session-*.jsonl not read; codex: 3 records of type world_state
 * skipped"), nothing when it says nothing. 0 or AC_ENOMEM. */
int ac_source_drift_describe(ac_buf *out, ac_source_kind kind, const ac_source_drift *d);

/* The sessions listed (in the workspace, or all with all_projects),
 * newest update first. Borrowed; valid until the next refresh. */
ac_source_session *const *ac_source_index_list(ac_source_index *index, size_t *out_n);

/* The options the index was made with. Borrowed. */
const ac_source_options *ac_source_index_options(const ac_source_index *index);

/* The listed session whose id is id, or NULL. Borrowed. */
ac_source_session *ac_source_index_find(ac_source_index *index, const char *id);

#endif
