/* User-memory consolidation (seed 001 §2 and §7b, the reference
 * UserMemoryConsolidationService): a user's session notes folded into
 * their USER.md by a summariser command, then the sandbox mirrors of the
 * user's sessions refreshed.
 *
 * The notes are the session-scope memory documents of each of the user's
 * sessions (the user lister, users.list, names the sessions). The command
 * (memory.consolidateCommand, an argv array from trusted configuration,
 * run without a shell) reads on stdin one JSON object:
 *   {"tenantId", "userId", "current": "<USER.md now, \"\" when none>",
 *    "sessions": [{"sessionId", "updatedAt",
 *                  "notes": [{"name", "content"}, ...]}, ...]}
 * (sessions newest first, only those with notes) and prints the new
 * USER.md, which replaces the user-scope document USER.md atomically.
 * Its failure, time-out or empty output changes nothing.
 *
 * When it runs: agentctl is a command, not a daemon, so "periodically" is
 * each compaction of a session that has a tenant and a user (compaction
 * is what makes session notes the long-term record), when the command is
 * configured; hosts that link the library call it on their own schedule. */
#ifndef AC_CONSOLIDATE_H
#define AC_CONSOLIDATE_H

#include "ac_backend.h"
#include "ac_sandbox.h"

#include <stdbool.h>
#include <stddef.h>

#define AC_CONSOLIDATE_DOCUMENT "USER.md"
#define AC_CONSOLIDATE_TIMEOUT_MS 120000

/* Options start from AC_CONSOLIDATE_OPTIONS_INIT (no command yet, the
 * default time-out, no refresh); ac_consolidate_user() refuses options of
 * another version, or a sandbox member of another, with AC_EINVAL naming
 * the struct, before anything is read. */
#define AC_CONSOLIDATE_OPTIONS_VERSION 1
#define AC_CONSOLIDATE_OPTIONS_INIT                                                        \
	{                                                                                  \
		.version = AC_CONSOLIDATE_OPTIONS_VERSION, .sandbox = AC_SANDBOX_OPTIONS_INIT \
	}

typedef struct {
	unsigned int version;       /* AC_CONSOLIDATE_OPTIONS_VERSION */
	const char *const *command; /* NULL-terminated argv (required) */
	int timeout_ms;             /* 0: AC_CONSOLIDATE_TIMEOUT_MS */
	/* Where sandbox mirrors are registered, to refresh them (7b); NULL
	 * registry_dir: no refresh. */
	ac_sandbox_options sandbox;
} ac_consolidate_options;

typedef struct {
	bool written;               /* USER.md was rewritten */
	size_t sessions;            /* sessions whose notes were folded in */
	size_t notes;               /* notes folded in */
	ac_sandbox_result refreshed; /* the mirrors refreshed afterwards */
} ac_consolidate_result;

/* Folds tenant's user's session notes into their USER.md. With no notes
 * at all nothing runs (written false). *out is filled whatever the return;
 * free with ac_consolidate_result_free(). */
int ac_consolidate_user(ac_consolidate_result *out, const ac_backend *b, const char *tenant,
			const char *user, const ac_consolidate_options *opts);

void ac_consolidate_result_free(ac_consolidate_result *result);

#endif
