/* What the Claude Code adapter's two readers share (ac_source_claude.c,
 * the jansson reading; ac_source_claude_scan.c, the scanner's): how an
 * entry moves the turn. Not for use elsewhere. */
#ifndef AC_SOURCE_CLAUDE_IMPL_H
#define AC_SOURCE_CLAUDE_IMPL_H

#include "ac_source_impl.h"

/* What an entry's few fields say it is (either reader fills it). */
typedef struct {
	bool user, assistant;   /* type "user", "assistant" */
	bool boundary;          /* type "system", subtype "compact_boundary" */
	bool sidechain, meta;   /* isSidechain, isMeta true */
	bool compact_summary;   /* isCompactSummary true */
	bool message_object;    /* message is an object */
	bool content_ok;        /* message.content is a string or an array */
} ac_claude_entry;

/* The message an entry gives in the conversation: one rule for the
 * summary's count, the conversation, and the search's counter. */
typedef enum {
	AC_CLAUDE_NONE = 0,
	AC_CLAUDE_USER,           /* a prompt, a tool result, a local command's record */
	AC_CLAUDE_ASSISTANT,
	AC_CLAUDE_COMPACT_SUMMARY, /* what a compaction left, written as a user entry: not the user's words */
	AC_CLAUDE_BOUNDARY         /* where a compaction cut: a marker */
} ac_claude_message;

ac_claude_message ac_source_claude_message(const ac_claude_entry *e);

/* A title entry's rank (ac_source_session.title_rank) by its type
 * (borrowed, len bytes): 1 "summary", 2 "ai-title", 3 "custom-title";
 * 0 for any other. And the member that holds its text. */
int ac_source_claude_title_rank(const char *type, size_t len, const char **out_member);

/* Takes title (allocated) as s->title when rank is at least the rank of
 * the one it has (the latest of a rank wins); frees it otherwise. */
void ac_source_claude_title_take(ac_source_session *s, int rank, char *title);

/* Counts an entry type the adapter does not know (the canary). */
int ac_source_claude_note_type(ac_source_session *s, const char *type, size_t len);

/* s->id from the file's name, once. 0 or AC_ENOMEM. */
int ac_source_claude_session_id(ac_source_session *s);

/* A user entry whose text (borrowed) starts as text and that answered
 * results tool calls: the turn, and the task when it is the first prompt
 * (a copy is taken). _take takes text (allocated) over. */
int ac_source_claude_user_turn(ac_source_session *s, const char *text, size_t results);
int ac_source_claude_user_turn_take(ac_source_session *s, char *text, size_t results);

/* An assistant entry that said something (a text) or not, its calls noted. */
void ac_source_claude_assistant_turn(ac_source_session *s, bool said);

/* The scanner's reading of one line: 0, AC_ENOMEM, or AC_SOURCE_NOT_SCANNED
 * when the line is left to jansson. */
int ac_source_claude_scan_line(ac_source_session *s, const char *line, size_t len);

/* The same for a sub-agent's file: its sidechain entries kept, the first
 * one noting where the child sits (ac_source_claude_subagent_note). */
int ac_source_claude_scan_subagent_line(ac_source_session *s, const char *line, size_t len);

/* ---- sub-agents (ac_source_claude_subagent.c) ---- */

/* The adapter of a sub-agent's file (its entries all sidechains). */
extern const ac_source_adapter ac_source_claude_subagent;

/* True when path is a sub-agent's transcript (agent-*.jsonl). */
bool ac_source_claude_is_subagent(const char *path);

/* True for Claude Code's own compaction worker (agent-acompact*): not listed. */
bool ac_source_claude_is_compaction(const char *path);

/* The variant hook: &ac_source_claude_subagent for a sub-agent's file. */
const ac_source_adapter *ac_source_claude_variant(const char *path);

/* Notes that s (a sub-agent's file) is a child: relation, parent_id (the
 * folder above subagents/, else session_id, the entry's sessionId, may be
 * NULL) and, once, its title from the meta file beside it. 0 or AC_ENOMEM. */
int ac_source_claude_subagent_note(ac_source_session *s, const char *session_id);

/* ---- calls and actions (ac_source_claude_usage.c) ---- */

/* Adds a call's tokens (input, output, cache creation, cache read) to
 * s->tokens unless id (id_len bytes; NULL: none) is the call counted last. */
void ac_source_claude_note_tokens(ac_source_session *s, const char *id, size_t id_len,
				  const uint64_t counts[4]);

/* s->last_action = "NAME ARG" (ARG's first line, cut; NULL: the name
 * alone). 0 or AC_ENOMEM. */
int ac_source_claude_note_action(ac_source_session *s, const char *name, size_t name_len,
				 const char *arg, size_t arg_len);

/* The input keys whose value is shown beside a tool's name, in order
 * (NULL-terminated, static). */
const char *const *ac_source_claude_action_keys(void);

/* The jansson reader's: an assistant message's usage, a tool_use block. */
int ac_source_claude_note_call_json(ac_source_session *s, const json_t *message);
int ac_source_claude_note_tool_json(ac_source_session *s, const json_t *block);

#endif
