/* libagentctl: the persistence layer agents share in one workspace — the
 * journal, session files, the operation log, checkpoints, the storage
 * backend — and the operator's actions over them (pause, resume, compact,
 * roll back).
 *
 * Include this one header, as <agentctl/agentctl.h>, and link with
 * `pkg-config --cflags --libs agentctl`. Every call is ac_<module>_<verb>;
 * fallible calls return 0 or a negative AC_E* code, and ac_error_last()
 * says why (ac_error.h). Each header below says what its module is for and
 * who frees what. The library never prints and never aborts. */
#ifndef AGENTCTL_H
#define AGENTCTL_H

#ifdef __cplusplus
extern "C" {
#endif

#include "ac_version.h"
#include "ac_error.h"
#include "ac_types.h"
#include "ac_buf.h"
#include "ac_time.h"

/* Helpers a C agent needs as agentctl does: terminal-safe text, atomic
 * file writes, JSON read and written back byte for byte, JSON fields picked
 * without a tree, files read without following what others planted. */
#include "ac_text.h"
#include "ac_atomic.h"
#include "ac_json_exact.h"
#include "ac_json_scan.h"
#include "ac_file.h"

/* Loading an optional library at first use, as agentctl loads libgit2,
 * libpq and curses. */
#include "ac_dl.h"

/* Configuration, the workspace's paths, and finding the workspace. */
#include "ac_config.h"
#include "ac_workspace.h"
#include "ac_discover.h"

/* The journal: writing, reading, querying, following. */
#include "ac_json_span.h"
#include "ac_event.h"
#include "ac_journal.h"
#include "ac_journal_reader.h"
#include "ac_query.h"
#include "ac_journal_scan.h"
#include "ac_journal_follow.h"
#include "ac_journal_store.h"

/* Sessions, their messages and token estimates, compaction. */
#include "ac_session.h"
#include "ac_messages.h"
#include "ac_tokens.h"
#include "ac_compact.h"

/* Listing, searching, exporting and restoring sessions; what each is doing. */
#include "ac_session_index.h"
#include "ac_session_state.h"
#include "ac_session_search.h"
#include "ac_session_search_store.h"
#include "ac_session_export.h"
#include "ac_restore.h"
#include "ac_session_fork.h"

/* The coding agents' own transcripts (Claude Code, Codex, Gemini CLI...):
 * listing, watching, searching them. */
#include "ac_source.h"
#include "ac_source_watch.h"
#include "ac_source_search.h"

/* Checkpoints, the operation log and git. */
#include "ac_checkpoint.h"
#include "ac_checkpoint_runtime.h"
#include "ac_git.h"
#include "ac_oplog.h"
#include "ac_oplog_intent.h"

/* The storage backend's contracts (memo, artifacts, traces, ...): the
 * handle and its values. The vtable a backend fills, and the file and
 * PostgreSQL backends' own inits, are the implementer's tier,
 * <agentctl/sys/>, which this header does not include. */
#include "ac_backend.h"
#include "ac_turn_usage.h"
#include "ac_usage_record.h"
#include "ac_usage_report.h"
#include "ac_sandbox.h"
#include "ac_consolidate.h"

/* Retention: old checkpoints, archives, traces, rotated journals. */
#include "ac_gc.h"

/* Copying a workspace between stores (storage migrate). */
#include "ac_migrate.h"

/* Watching the workspace (and a database store); operator requests and actions. */
#include "ac_watch.h"
#include "ac_watch_mode.h"
#include "ac_store_watch.h"
#include "ac_control.h"
#include "ac_operator.h"

/* The operator's hooks on a change of state, and which dashboard runs them. */
#include "ac_hooks.h"
#include "ac_hooks_lease.h"

#ifdef __cplusplus
}
#endif

#endif
