/* Conversation messages as other agents write them: reading their text,
 * pairing tool calls with tool results, estimating tokens, and choosing
 * where a history may be cut.
 *
 * A message is a JSON object {role, content, ...}; content is a string or
 * an array of blocks ({type:"text",text}, {type:"tool_use",id,name,input},
 * {type:"tool_result",tool_use_id,content}). A tool call is a tool_use block
 * or an OpenAI-style "tool_calls" array ([{id, function:{name, arguments}}]
 * or [{id, name, ...}]); its result is a tool_result block or a message with
 * role "tool" carrying "toolCallId" or "tool_call_id". Messages of any other
 * shape are kept and counted, never rejected. All functions take borrowed
 * jansson values and never modify them. */
#ifndef AC_MESSAGES_H
#define AC_MESSAGES_H

#include "ac_buf.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 0 when msg is a message a writer may append (agentctl writes what the
 * reference readers can load; it reads more leniently than it writes): an
 * object whose role is "user", "assistant", "system" or "tool"; whose
 * content is a string or an array of blocks, or, with an OpenAI-style
 * "tool_calls" array, null or absent; whose blocks are objects with a
 * string "type" ("text" with a string text, "tool_use" with string id and
 * name, "tool_result" with a string tool_use_id; other types as they are);
 * whose tool_calls are objects with a string id; and, for role "tool", that
 * carries a string toolCallId or tool_call_id. Otherwise AC_EINVAL naming
 * the member at fault after name, e.g. "messages[2].content[0].text: must
 * be a string". */
int ac_message_check(const json_t *msg, const char *name);

/* ac_message_check() for each element of the array messages, named
 * "<name>[i]"; AC_EINVAL when messages is not an array. */
int ac_messages_check(const json_t *messages, const char *name);

/* Appends a one-line, human-readable rendering of msg's content to out:
 * text blocks as they are, a tool call as "[tool_use NAME {input}]", a tool
 * result as "[tool_result ID: text]", other blocks as "[TYPE]". Newlines
 * are kept. 0 or AC_ENOMEM. */
int ac_message_text(ac_buf *out, const json_t *msg);

/* The role string, or "?" when absent or not a string. Borrowed. */
const char *ac_message_role(const json_t *msg);

/* Calls fn for the id (and tool name, may be NULL) of every tool call in
 * msg. Returns the number of calls. */
size_t ac_message_tool_calls(const json_t *msg,
			     void (*fn)(const char *id, const char *name, const json_t *input, void *ctx),
			     void *ctx);

/* Calls fn for the tool-call id of every tool result in msg. Returns the
 * number of results. */
size_t ac_message_tool_results(const json_t *msg, void (*fn)(const char *id, void *ctx),
			       void *ctx);

/* Estimated tokens of one message: ac_tokens_estimate() of its compact JSON
 * serialisation plus 4 for the message's framing. */
uint64_t ac_message_tokens(const json_t *msg);

/* Sum of ac_message_tokens() over an array of messages. */
uint64_t ac_messages_tokens(const json_t *messages);

/* True when cutting before index (keeping messages[index..]) separates no
 * tool call from its result: no result at or after index answers a call
 * before index. 0 and the array's size are always safe. */
bool ac_messages_safe_cut(const json_t *messages, size_t index);

/* The start index of the last n messages, moved earlier as little as
 * needed so that no kept tool result loses its call. */
size_t ac_messages_last_start(const json_t *messages, size_t n);

/* The start index of the longest suffix whose tokens fit in budget and that
 * is a safe cut (the array's size when not even the last message fits). */
size_t ac_messages_budget_start(const json_t *messages, uint64_t budget);

/* Where compaction cuts: the first safe cut at or after
 * floor(fraction * size), as seed 001 (fraction in (0,1]); at least 1 when size > 0 so
 * something is compacted. Returns the array's size when no later safe cut
 * exists. */
size_t ac_messages_compaction_cut(const json_t *messages, double fraction);

/* ac_messages_compaction_cut() for a history read one message at a time
 * (never held whole): add each message in order (the finder keeps copies
 * of the tool-call ids, nothing else), then ask for the cut once. */
typedef struct ac_cut_finder ac_cut_finder;

/* 0 or AC_ENOMEM; *out is freed with ac_cut_finder_free(). */
int ac_cut_finder_new(ac_cut_finder **out);

/* Notes the next message (borrowed for the call only). 0 or AC_ENOMEM. */
int ac_cut_finder_add(ac_cut_finder *finder, const json_t *msg);

/* ac_messages_compaction_cut() of the messages added; call once, after
 * the last ac_cut_finder_add(). */
size_t ac_cut_finder_cut(ac_cut_finder *finder, double fraction);

void ac_cut_finder_free(ac_cut_finder *finder);

#endif
