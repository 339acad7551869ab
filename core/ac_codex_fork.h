/* Where a Codex rollout's own items begin: what the transcript reader
 * (ac_source_codex.c) and the usage extractor (ac_usage_codex.c) share.
 *
 * A fork's rollout (and a sub-agent's spawned with its parent's history)
 * begins with its own session_meta, then a copy of the parent's items,
 * the parent's session_meta and token_count events included (codex-rs
 * core Session::record_initial_history, InitialHistory::Forked: the
 * items are persisted as they are, re-stamped with the time of the copy),
 * then the fork's own turns. The first session_meta is the rollout's own
 * (codex-rs rollout/src/recorder.rs, load_rollout_items). Nothing marks
 * where the copy ends; what does is that thread and turn ids are UUIDv7
 * (codex-rs protocol/src/thread_id.rs: Uuid::now_v7): every copied turn
 * was minted before the fork, the fork's first own turn at or after its
 * creation, the time its own id carries. A turn without such an id ends
 * the copy when it starts a second or more after the copy began (the
 * copy is written in one burst). Not for use outside those two files. */
#ifndef AC_CODEX_FORK_H
#define AC_CODEX_FORK_H

#include <stdbool.h>
#include <stdint.h>

/* Kept between reads of a file (both callers cache it). */
typedef struct {
	uint32_t flags;    /* AC_CODEX_* below */
	int64_t cutoff_ms; /* the rollout's creation: its id's UUIDv7 time, else its meta's timestamp */
	int64_t copy_ms;   /* the time the copy's first line carries */
} ac_codex_gate;

#define AC_CODEX_OWN_META 1u /* the rollout's own session_meta was seen */
#define AC_CODEX_GATED 2u    /* a fork or sub-agent: a later session_meta starts a copy */
#define AC_CODEX_IN_COPY 4u  /* inside the copied prefix */

/* The millisecond time a UUIDv7 carries, or -1 when id is not one. */
int64_t ac_codex_uuid7_ms(const char *id);

/* Notes a session_meta line (line_ms its line's time, -1 unknown): true
 * when it is the rollout's own (the first), false when it is a copy's.
 * forked: the meta says the rollout was forked or spawned from another
 * thread; meta_ms the meta's own timestamp (-1 unknown). */
bool ac_codex_gate_meta(ac_codex_gate *g, const char *id, bool forked, int64_t meta_ms,
			int64_t line_ms);

/* For any other line: true when it belongs to the copied prefix (not the
 * rollout's own). turn_start: the line starts a turn (a task_started
 * event or a turn_context) and turn_id is its turn's id (NULL: none). */
bool ac_codex_gate_copied(ac_codex_gate *g, bool turn_start, const char *turn_id, int64_t line_ms);

#endif
