/* A token estimate for conversation text that needs no tokenizer.
 *
 * Rules, per UTF-8 text (JSON or plain):
 *   - ASCII: 1 token per 4 characters, where a run of white space counts as
 *     one character (so pretty-printed and compact JSON estimate alike);
 *   - a 2-byte character (Latin accents, Greek, Cyrillic, Arabic...): 1/2;
 *   - a 3-byte character (CJK ideographs, kana, Hangul, most symbols): 1;
 *   - a 4-byte character (emoji, rare CJK): 2.
 * CJK text thus estimates at about one token a character, where a
 * bytes/4 rule would see only 3/4 token per character, and English at about
 * one token per 4 characters, close to real tokenizers. It is an estimate:
 * use it for triggers and budgets, not billing. */
#ifndef AC_TOKENS_H
#define AC_TOKENS_H

#include <stddef.h>
#include <stdint.h>

/* Estimated tokens in text[0..len); rounded up, 0 only for empty text.
 * Invalid UTF-8 bytes count as 1/4 each. */
uint64_t ac_tokens_estimate(const char *text, size_t len);

/* What a message costs beyond its JSON: role markers and separators. */
#define AC_TOKENS_MESSAGE_FRAMING 4

/* The one token count of a conversation: every number agentctl shows for a
 * session (session list and show, the Sessions pane, the compaction
 * dialog and result) is this, so they agree.
 *
 * A message costs AC_TOKENS_MESSAGE_FRAMING plus ac_tokens_estimate() of
 * its compact JSON written the way jansson writes it (no white space
 * between tokens; in strings only ", \ and control characters escaped,
 * \b \f \n \r \t short, everything else as its UTF-8). So the same
 * message estimates alike whether it is read from a pretty-printed file
 * with \u escapes (the session index scans the file's text) or dumped
 * from a parsed document (ac_messages.h). Numbers count as written. */

/* Estimated tokens of one message given as JSON text json[0..len). */
uint64_t ac_tokens_message_json(const char *json, size_t len);

/* Sum of ac_tokens_message_json() over the elements of a JSON array
 * json[0..len) (a conversationHistory as stored); 0 when it is not an
 * array. */
uint64_t ac_tokens_history_json(const char *json, size_t len);

/* ac_tokens_history_json() of the first count elements only. */
uint64_t ac_tokens_history_prefix_json(const char *json, size_t len, size_t count);

#endif
