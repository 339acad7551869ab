/* Who needs the operator: the sessions whose derived state is waiting
 * (as `session list --state waiting` says), longest waiting first, for
 * the attention strip (views/attention.c) and its key (tui/attention.c). */
#include "model.h"

#include "ac_time.h"

#include <stdlib.h>
#include <string.h>

int64_t ui_session_waiting_since(const ui_session *s)
{
	int64_t ms;

	/* A waiting agent writes nothing until answered: its last update is
	 * when it started to wait (the age the Sessions pane shows). */
	if (ac_time_parse(&ms, *s->updated ? s->updated : s->created) == 0)
		return ms;
	return 0;
}

const char *ui_session_attention_name(const ui_session *s)
{
	/* A seed session's agent is its name. A transcript's agent is its
	 * tool, the same for all of them, and its id a UUID: its title (or
	 * first prompt) is what the operator knows it by. */
	if (!s->source)
		return *s->agent ? s->agent : s->id;
	return *s->task ? s->task : s->id;
}

/* qsort has no context argument in C11; the UI is one thread. */
static const ui_model *by_wait_model;

static int by_wait(const void *pa, const void *pb)
{
	const ui_session *a = &by_wait_model->sessions[*(const size_t *)pa];
	const ui_session *b = &by_wait_model->sessions[*(const size_t *)pb];
	int64_t wa = ui_session_waiting_since(a), wb = ui_session_waiting_since(b);

	if (wa != wb) /* unknown (0) last */
		return !wa ? 1 : !wb ? -1 : wa < wb ? -1 : 1;
	return strcmp(a->raw_id, b->raw_id);
}

size_t ui_model_waiting(const ui_model *m, size_t *idx)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n_sessions; i++)
		if (m->sessions[i].state == AC_STATE_WAITING)
			idx[n++] = i;
	by_wait_model = m;
	qsort(idx, n, sizeof(*idx), by_wait);
	return n;
}
