/* What the Gemini CLI adapter's files share (ac_source_gemini.c: folders,
 * messages, the adapter; ac_source_gemini_jsonl.c: the summary and the
 * conversation under the chat loader's rules) and what the usage scan
 * borrows (where a chat's project is). Not for use outside core/. */
#ifndef AC_SOURCE_GEMINI_IMPL_H
#define AC_SOURCE_GEMINI_IMPL_H

#include "ac_source_impl.h"

/* The project root a chat file (<tmp>/<project>/chats/[<parent>/]<file>)
 * belongs to: its project folder's .project_root marker, else the path
 * ~/.gemini/projects.json (beside <tmp>) maps to that folder's name.
 * Allocated; NULL when neither says (or out of memory). */
char *ac_source_gemini_root_of(const char *chat_path);

/* The session a sub-agent chat works for: <parent> of
 * .../chats/<parent>/<file> (allocated), NULL for a top-level chat. */
char *ac_source_gemini_parent_of(const char *chat_path);

/* True for a chat of the older format: session-*.json, one document the
 * CLI rewrote whole (the current one is session-*.jsonl). */
bool ac_source_gemini_is_document(const char *path);

/* How many conversation messages one message record makes, as
 * ac_source_gemini_put() appends them: 0 (info, error, warning, injected
 * context, a model turn with neither text nor calls), 1, or 2 (a model
 * turn and the results of its finished calls). */
size_t ac_source_gemini_shown(const json_t *msg);

/* Appends the messages of one message record to out. */
int ac_source_gemini_put(json_t *out, const json_t *msg);

/* A tool call that has neither a result nor a final status is open. */
bool ac_source_gemini_call_open(const json_t *call);

/* The text of a message's content (a string, a part, or a list of parts
 * and strings; thought parts left out), allocated; NULL out of memory. */
char *ac_source_gemini_text(const json_t *content);

/* False for what the CLI itself does not take as a prompt: empty, a
 * slash or '?' command, injected <session_context> / <hook_context>
 * (cli sessionUtils isIgnoredUserContent). */
bool ac_source_gemini_is_prompt(const char *text);

/* The adapter's entry(), forget(), state_save() and state_restore()
 * (ac_source_gemini_jsonl.c). */
int ac_source_gemini_entry(ac_source_session *s, const json_t *entry);
void ac_source_gemini_forget(ac_source_session *s);
json_t *ac_source_gemini_state_save(const ac_source_session *s);
bool ac_source_gemini_state_restore(ac_source_session *s, const json_t *saved);

/* The conversation of s (the adapter's conversation()), and of a chat's
 * bytes (lines: a .jsonl chat's whole lines; else one document) for the
 * search, which has them in hand. */
int ac_source_gemini_conversation(json_t *out, const ac_source_session *s);
int ac_source_gemini_conversation_bytes(json_t *out, const char *bytes, size_t len, bool lines);

#endif
