/* The model's viewer (model.h, ui_viewer): a text in full, each line
 * sanitised for the terminal on its way in. */
#include "model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ui_model_viewer_close(ui_model *m)
{
	for (size_t i = 0; i < m->viewer.n; i++)
		ui_sfree(m->viewer.lines[i]);
	free(m->viewer.lines);
	if (m->viewer.title)
		ui_sfree(m->viewer.title);
	memset(&m->viewer, 0, sizeof(m->viewer));
}

void ui_model_viewer_open(ui_model *m, const char *title)
{
	ui_model_viewer_close(m);
	m->viewer.title = ui_safe_str(title);
}

/* Appends one line of text[0..len) (no newline in it), tabs as spaces. */
static void viewer_push(ui_model *m, const char *text, size_t len)
{
	char *copy, *line;

	if (m->viewer.n == m->viewer.cap) {
		size_t cap = m->viewer.cap ? m->viewer.cap * 2 : 32;
		char **grown = realloc(m->viewer.lines, cap * sizeof(*grown));

		if (!grown)
			return;
		m->viewer.lines = grown;
		m->viewer.cap = cap;
	}
	if (!(copy = strndup(text, len)))
		return;
	for (char *c = copy; *c; c++)
		if (*c == '\t')
			*c = ' ';
	line = ui_safe_dup(copy, strlen(copy));
	free(copy);
	m->viewer.lines[m->viewer.n++] = line;
}

void ui_model_viewer_line(ui_model *m, const char *fmt, ...)
{
	char *text = NULL;
	const char *p;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* One model line per line of the text: a newline is never drawn. */
	for (p = text;;) {
		const char *nl = strchr(p, '\n');

		viewer_push(m, p, nl ? (size_t)(nl - p) : strlen(p));
		if (!nl)
			break;
		p = nl + 1;
	}
	free(text);
}
