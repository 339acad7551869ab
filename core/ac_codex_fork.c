/* Where a Codex rollout's own items begin (ac_codex_fork.h). */
#include "ac_codex_fork.h"

#include <string.h>

/* A turn that starts this long after the copy began is the fork's own,
 * when its id cannot tell. */
#define COPY_BURST_MS 1000

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int64_t ac_codex_uuid7_ms(const char *id)
{
	int64_t ms = 0;

	/* xxxxxxxx-xxxx-7xxx-...: 48 bits of Unix milliseconds, then the version. */
	if (!id || strlen(id) != 36 || id[8] != '-' || id[13] != '-' || id[14] != '7')
		return -1;
	for (int i = 0; i < 13; i++) {
		int v;

		if (i == 8)
			continue;
		if ((v = hex_value(id[i])) < 0)
			return -1;
		ms = ms * 16 + v;
	}
	return ms;
}

bool ac_codex_gate_meta(ac_codex_gate *g, const char *id, bool forked, int64_t meta_ms,
			int64_t line_ms)
{
	if (!(g->flags & AC_CODEX_OWN_META)) {
		int64_t created = ac_codex_uuid7_ms(id);

		g->flags |= AC_CODEX_OWN_META | (forked ? AC_CODEX_GATED : 0);
		g->cutoff_ms = created >= 0 ? created : meta_ms >= 0 ? meta_ms : line_ms;
		return true;
	}
	if ((g->flags & AC_CODEX_GATED) && !(g->flags & AC_CODEX_IN_COPY)) {
		g->flags |= AC_CODEX_IN_COPY;
		g->copy_ms = line_ms;
	}
	return false;
}

bool ac_codex_gate_copied(ac_codex_gate *g, bool turn_start, const char *turn_id, int64_t line_ms)
{
	int64_t minted;

	if (!(g->flags & AC_CODEX_IN_COPY))
		return false;
	if (!turn_start)
		return true;
	minted = ac_codex_uuid7_ms(turn_id);
	if (minted >= 0 ? minted >= g->cutoff_ms
			: line_ms >= 0 && g->copy_ms >= 0 && line_ms - g->copy_ms >= COPY_BURST_MS) {
		/* Once over, the copy does not come back: its ids are all older. */
		g->flags &= ~(uint32_t)AC_CODEX_IN_COPY;
		g->flags &= ~(uint32_t)AC_CODEX_GATED;
		return false;
	}
	return true;
}
