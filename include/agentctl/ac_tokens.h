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

#endif
