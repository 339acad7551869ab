/* The model's open patch (model.h): an operation's diff, one line per
 * line, each sanitised for the terminal on its way in (tui/patch.c reads
 * it through the core). */
#include "model.h"

#include "ac_buf.h"
#include "ac_error.h"

#include <stdlib.h>
#include <string.h>

void ui_model_close_patch(ui_model *m)
{
	for (size_t i = 0; i < m->n_patch_lines; i++)
		ui_sfree(m->patch_lines[i]);
	free(m->patch_lines);
	ui_sfree(m->patch_title);
	ui_sfree(m->patch_error);
	m->patch_lines = NULL;
	m->patch_title = m->patch_error = NULL;
	m->n_patch_lines = 0;
}

int ui_model_set_patch(ui_model *m, const char *title, const char *text, size_t len,
		       const char *error)
{
	size_t n = 0, cut = 0;
	ac_buf more = AC_BUF_INIT;

	ui_model_close_patch(m);
	m->patch_title = ui_safe_str(title);
	if (error) {
		m->patch_error = ui_safe_str(error);
		return 0;
	}
	if (!text)
		text = "", len = 0;
	if (len && text[len - 1] == '\n')
		len--; /* a final newline ends the last line; it opens none */
	if (len)
		n = 1;
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	if (n > UI_PATCH_MAX_LINES) {
		cut = n - UI_PATCH_MAX_LINES;
		n = UI_PATCH_MAX_LINES + 1;
	}
	if (n && !(m->patch_lines = calloc(n, sizeof(*m->patch_lines))))
		return AC_ENOMEM;
	for (size_t start = 0; m->n_patch_lines < n - (cut ? 1 : 0);) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;

		m->patch_lines[m->n_patch_lines++] = ui_safe_line(text + start, end - start);
		start = end + 1;
	}
	if (cut) {
		ac_buf_printf(&more, "(%zu more lines not shown: see agentctl ops show OPID --patch)",
			      cut);
		m->patch_lines[m->n_patch_lines++] = ui_safe_str(more.data);
	}
	ac_buf_free(&more);
	return 0;
}
