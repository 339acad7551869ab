/* What the Claude Code adapter's two readers share (ac_source_claude.c,
 * the jansson reading; ac_source_claude_scan.c, the scanner's): how an
 * entry moves the turn. Not for use elsewhere. */
#ifndef AC_SOURCE_CLAUDE_IMPL_H
#define AC_SOURCE_CLAUDE_IMPL_H

#include "ac_source_impl.h"

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

/* The i-th record type Claude Code writes that the adapter knows, NULL
 * past the last: any other is counted as unknown. */
const char *ac_source_claude_known_type(size_t i);

#endif
