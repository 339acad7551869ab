/* The attention strip: one line under the title, only while sessions
 * wait for the operator, longest waiting first ("3 need you (!): claude-02
 * approve Bash 4m, …"). Drawn from the model alone (ui_model_waiting). */
#include "screen.h"
#include "ui_text.h"
#include "view.h"

#include <stdlib.h>

/* The session's name, cut: a long id must leave room for the others. */
#define NAME_W 24

void ui_attention_line(ac_buf *out, const ui_model *m, int64_t now_ms)
{
	size_t *idx = malloc((m->n_sessions ? m->n_sessions : 1) * sizeof(*idx)), n;

	if (!idx)
		return;
	n = ui_model_waiting(m, idx);
	if (n)
		ac_buf_printf(out, " \xe2\x9a\x91 %zu need%s you (! jumps): ", n, n == 1 ? "s" : "");
	for (size_t k = 0; k < n; k++) {
		const ui_session *s = &m->sessions[idx[k]];
		char age[16];

		ui_fmt_age(age, sizeof(age), *s->updated ? s->updated : s->created, now_ms);
		if (k)
			ac_buf_printf(out, ", ");
		ui_text_fits(out, ui_session_attention_name(s), NAME_W, UI_FIT_ELLIPSIS);
		ac_buf_printf(out, " %s %s", s->waiting_for && *s->waiting_for ? s->waiting_for :
			      "waiting", age);
	}
	free(idx);
}

int ui_attention_draw(const ui_model *m, int y, int cols, int64_t now_ms)
{
	ac_buf line = AC_BUF_INIT, cut = AC_BUF_INIT;

	ui_attention_line(&line, m, now_ms);
	if (!line.len) {
		ac_buf_free(&line);
		return 0;
	}
	ui_text_fit(&cut, line.data, line.len, cols, UI_FIT_ELLIPSIS | UI_FIT_PAD);
	screen_put(y, 0, cols, UI_ST_STATE_WAITING, cut.data ? cut.data : "");
	ac_buf_free(&line);
	ac_buf_free(&cut);
	return 1;
}
