/* The coding agents' transcripts (ac_source.h) as providers of the
 * conversation search (ac_session_search.h).
 *
 * A JSON Lines transcript (Claude Code, Codex) is cut into lines; a line
 * that holds no form of the needle is not built: the adapter's count()
 * tells from the scanner how many messages it stands for, so the indexes
 * stay those of ac_source_session_conversation() (`session show` numbers
 * them from 1). Only the lines that may match are decoded, by the
 * adapter's own messages(): there is no second parser of those formats.
 * A Gemini chat is decoded whole (its lines depend on each other: a
 * message appended again replaces its earlier version, a rewind drops
 * messages), by the rules of its summary. */
#ifndef AC_SOURCE_SEARCH_H
#define AC_SOURCE_SEARCH_H

#include "ac_session_search.h"
#include "ac_source.h"

/* The provider of kind's transcripts; its name is ac_source_name(kind). */
const ac_search_provider *ac_source_search_provider(ac_source_kind kind);

/* One item for each transcript index lists: id, source name, path,
 * update ("" when the transcript has none) borrowed from index (valid
 * until its next refresh). *out is allocated (free()); NULL when none.
 * 0 or AC_ENOMEM. */
int ac_source_search_items(ac_search_item **out, size_t *out_n, ac_source_index *index);

#endif
