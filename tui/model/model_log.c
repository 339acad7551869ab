/* The message log: every status message and file problem the dashboard
 * showed, whole, with its time (k9s's and lazygit's command log). The
 * status line shows only the newest, cut to its width; the log pane
 * (views/log.c) shows them all. A ring: the oldest go first. */
#include "model.h"

#include "ac_time.h"

#include <string.h>

void ui_model_log(ui_model *m, bool error, const char *text)
{
	ui_log_entry *e;

	if (m->n_log == UI_MODEL_LOG) {
		e = &m->log[m->log_start];
		ui_sfree(e->text);
		m->log_start = (m->log_start + 1) % UI_MODEL_LOG;
		m->n_log--;
	}
	e = &m->log[(m->log_start + m->n_log) % UI_MODEL_LOG];
	e->at_ms = ac_time_now_ms();
	e->error = error;
	e->text = ui_safe_str(text);
	m->n_log++;
}

const ui_log_entry *ui_model_log_entry(const ui_model *m, size_t i)
{
	return &m->log[(m->log_start + i) % UI_MODEL_LOG];
}

void ui_model_log_free(ui_model *m)
{
	for (size_t i = 0; i < m->n_log; i++)
		ui_sfree(m->log[(m->log_start + i) % UI_MODEL_LOG].text);
	m->n_log = m->log_start = 0;
}
