/* Forking a session: a new session file that starts from another's
 * conversation, up to a message or as a checkpoint saved it, and says
 * where it came from in metadata.parent.
 *
 * The fork is written once, atomically, never over an existing file
 * (ac_session_create_document). It starts paused: no agent owns it yet,
 * and one that lists running sessions to pick up work must not take it
 * before the operator chose to resume it (resumeCommand). Task and
 * tenancy (tenantId, userId, agentId) are copied; usage and every other
 * metadata key are not (they describe the parent's runs). Journaling the
 * fork is the caller's (the operator's action, not the library's). */
#ifndef AC_SESSION_FORK_H
#define AC_SESSION_FORK_H

#include "ac_session.h"
#include "ac_source.h"

#include <jansson.h>
#include <stddef.h>

/* Options start from AC_SESSION_FORK_OPTIONS_INIT (a random id, the whole
 * conversation); the calls below refuse options of another version with
 * AC_EINVAL naming the struct. */
#define AC_SESSION_FORK_OPTIONS_VERSION 1
#define AC_SESSION_FORK_OPTIONS_INIT { .version = AC_SESSION_FORK_OPTIONS_VERSION }

typedef struct {
	unsigned int version;     /* AC_SESSION_FORK_OPTIONS_VERSION */
	const char *new_id;       /* NULL: a random UUID */
	/* Keep messages 1..at (1-based, as `session show` numbers them);
	 * 0: the whole conversation. Ignored with checkpoint_history. */
	size_t at;
	/* The messageHistory of the checkpoint checkpoint_id (borrowed), to
	 * start from instead of the parent's conversation; NULL: none. */
	const json_t *checkpoint_history;
	const char *checkpoint_id;
} ac_session_fork_options;

/* The fork's document (*out, a new reference): parent_root (a session
 * document with its conversationHistory, borrowed: a file's root or what
 * a store's session.get gives) cut as opts says, task and tenancy copied,
 * metadata.parent, status paused, new times. Nothing is written: a store
 * creates it (session.create_document), atomically. Errors as below. */
int ac_session_fork_document(json_t **out, const json_t *parent_root,
			     const ac_session_fork_options *opts);

/* Forks parent (loaded; borrowed) into a new session file in dir. *out
 * (may be NULL) receives the new session. AC_EINVAL naming --at when at is
 * past the last message (or the conversation is empty and at > 0), or
 * when the new id exists or is not a valid id. */
int ac_session_fork(ac_session **out, const char *dir, const ac_session *parent,
		    const ac_session_fork_options *opts);

/* Forks the transcript s (a coding agent's; listed, borrowed; never
 * written) into a new session file in dir: its conversation up to opts->at
 * (0: all) as agentctl messages (ac_source_session_conversation()),
 * metadata.parent {source, sessionId, atMessage}, paused, task its first
 * prompt. AC_EINVAL for --at past the end, for a checkpoint (transcripts
 * have none) and for a bad or taken new id; the errors of a read. */
int ac_session_fork_transcript(ac_session **out, const char *dir, const ac_source_session *s,
			       const ac_session_fork_options *opts);

#endif
