/* The sandbox memo mirror (seed 001 §6-7, SandboxMemoProvider): a
 * session's memory documents and tool-result artifacts copied into a
 * folder a sandboxed agent sees (/workspace/memo in the seed), the agent's
 * edits written back, and the copy refreshed when the host changes the
 * store (after compaction, 7a; after USER.md consolidation, 7b).
 *
 * Not the store: everything goes through an ac_backend, so any backend
 * works. Not a sandbox either: agentctl only fills and reads the folder.
 *
 * The mirror folder DIR holds
 *   DIR/session/<name>      the session's documents (owner: the session)
 *   DIR/user/<name>         its user's documents (owner: metadata.userId)
 *   DIR/agent/<name>        its agent's documents (owner: metadata.agentId)
 *   DIR/artifacts/<id>      its tool-result artifacts (read-only copies)
 * A scope whose owner the session does not name is left out.
 *
 * Registration: a mirror is registered in the host's registry folder
 * (opts->registry_dir, the workspace's .agent/sandboxes), as
 *   <registry>/<tenant>/<session>/<key>.json
 *   {"dir", "tenantId", "sessionId", "userId", "agentId", "mirroredAt",
 *    "files": {"<folder>/<name>": "<sha256 hex of the content mirrored>"}}
 * (key: 16 hex digits of the SHA-256 of DIR's real path). The manifest is
 * kept there, not in DIR, because DIR is written by the agent: a manifest
 * it could edit would let it pass a store change off as unchanged.
 * ac_sandbox_refresh_session() finds a session's mirrors there.
 *
 * The conflict rule. The host's store is the authority (the seed refreshes
 * the running mirror from it); the agent's edit is never lost either.
 * On sync, a mirror file whose content differs from the manifest's is an
 * edit. When the store's document still has the content the manifest
 * recorded (or neither existed), the edit is written back. When the store
 * changed too (since the mirror was taken), the store's version stays,
 * the agent's is saved in the same scope as "<name>.conflict-<UTC>", the
 * mirror file gets the store's version, and the conflict is reported.
 * Refresh never overwrites a mirror file the agent edited and has not
 * synced (it is counted as kept). Files the agent deletes are not deleted
 * in the store (the contract has no delete); the next refresh brings them
 * back. Artifacts are copies of tool outputs: edits to them are not
 * written back (reported as refused).
 *
 * Hostile folders: every name under DIR is checked (ac_backend_id_check:
 * no '/', no leading '.', no "..") before it is used; only regular files
 * are read, through descriptors opened without following links, and at
 * most max_bytes of each; the scope folders are opened without following
 * links; files are written by creating a new temp file (O_EXCL|O_NOFOLLOW)
 * and swapping it with the name (renamed there when absent), which
 * replaces a link planted meanwhile instead of writing through it; what
 * the swap took out is checked, and an edit the agent made since the
 * refresh looked goes back (a refresh killed between its two swaps leaves
 * the edit in its temp file, and the next refresh puts it back). Anything refused is reported by name and
 * skipped; the rest goes on. A mirror file sync cannot take (a link, a
 * FIFO, a folder, over max_bytes, unreadable) is never replaced nor
 * removed, as it may be the agent's only copy of its work: sync reports
 * it as refused (one note naming it and why) and refresh leaves it as it
 * is (counted as kept), until the agent makes it a file sync can take. */
#ifndef AC_SANDBOX_H
#define AC_SANDBOX_H

#include "ac_backend.h"

#include <stddef.h>

/* The largest mirror file sync takes back, by default (16 MiB). */
#define AC_SANDBOX_MAX_BYTES ((size_t)16 << 20)

/* The folders of a mirror, as above. */
#define AC_SANDBOX_ARTIFACTS "artifacts"

/* Options start from AC_SANDBOX_OPTIONS_INIT; every call refuses options
 * of another version (AC_EINVAL naming them) before anything is done. */
#define AC_SANDBOX_OPTIONS_VERSION 1
#define AC_SANDBOX_OPTIONS_INIT { .version = AC_SANDBOX_OPTIONS_VERSION }

typedef struct {
	unsigned int version;     /* AC_SANDBOX_OPTIONS_VERSION */
	const char *registry_dir; /* where mirrors are registered (required) */
	size_t max_bytes;         /* 0: AC_SANDBOX_MAX_BYTES */
} ac_sandbox_options;

typedef struct {
	size_t mirrors;    /* mirror folders visited */
	size_t written;    /* files written into the mirror */
	size_t kept;       /* mirror files left as the agent edited them (not synced yet,
			    * or not a file sync can take) */
	size_t synced;     /* documents written back to the store */
	size_t conflicts;  /* edits saved as <name>.conflict-<UTC> instead */
	size_t refused;    /* entries refused: links, folders, bad names, too big, artifacts */
	char *notes;       /* one line per conflict or refusal (allocated; NULL when none) */
} ac_sandbox_result;

/* Mirrors tenant's session_id into dir (created when missing; its parent
 * must exist) and registers it. Run again on a mirror, it refreshes it.
 * AC_ENOTFOUND when tenant has no such session. *out is filled (free
 * with ac_sandbox_result_free) whatever the return. */
int ac_sandbox_mirror(ac_sandbox_result *out, const ac_backend *b, const char *tenant,
		      const char *session_id, const char *dir, const ac_sandbox_options *opts);

/* Writes the agent's edits in dir back to the store by the conflict rule,
 * then refreshes the mirror. AC_ENOTFOUND when dir is not a registered
 * mirror of that session. Conflicts and refusals are not errors: they are
 * counted and described in out->notes. */
int ac_sandbox_sync(ac_sandbox_result *out, const ac_backend *b, const char *tenant,
		    const char *session_id, const char *dir, const ac_sandbox_options *opts);

/* The refresh hook: refreshes every mirror registered for the session
 * (none: 0, nothing done). A registered folder that is gone is noted and
 * skipped. Called by the compaction path (7a). */
int ac_sandbox_refresh_session(ac_sandbox_result *out, const ac_backend *b, const char *tenant,
			       const char *session_id, const ac_sandbox_options *opts);

/* Refreshes the mirrors of every session of user (b->users.list), after
 * the user's documents changed (USER.md consolidation, 7b). */
int ac_sandbox_refresh_user(ac_sandbox_result *out, const ac_backend *b, const char *tenant,
			    const char *user, const ac_sandbox_options *opts);

/* After the host changed a document of (owner, scope) outside the
 * sandbox (seed §6: "refresh the running mirror"): refreshes the mirrors
 * that show it: the session's for scope "session", those of the user's
 * sessions for "user", of the agent's sessions (inspector listing) for
 * "agent". */
int ac_sandbox_refresh_owner(ac_sandbox_result *out, const ac_backend *b, const char *tenant,
			     const char *owner, const char *scope, const ac_sandbox_options *opts);

/* The backend's compaction (session.compact_if_needed, which may write
 * artifacts), then the refresh hook for the session's mirrors (7a).
 * *refreshed (may be NULL) gets the refresh's result. */
int ac_sandbox_compact(ac_backend_compact_result *out, ac_sandbox_result *refreshed,
		       const ac_backend *b, const char *tenant, const char *session_id,
		       const ac_backend_compact_options *compact, const ac_sandbox_options *opts);

void ac_sandbox_result_free(ac_sandbox_result *result);

#endif
