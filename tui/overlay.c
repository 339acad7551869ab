/* The overlay stack (overlay.h). */
#include "overlay.h"

#include <string.h>

static bool live(const ui_overlay *o, const struct ui_dash *d)
{
	return !o->live || o->live(d);
}

void ui_overlay_remove(ui_overlays *s, const ui_overlay *o)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->at[i] == o) {
			memmove(&s->at[i], &s->at[i + 1], (s->n - i - 1) * sizeof(s->at[0]));
			s->n--;
			return;
		}
}

void ui_overlay_push(ui_overlays *s, const ui_overlay *o)
{
	ui_overlay_remove(s, o);
	if (s->n == UI_OVERLAY_MAX)
		ui_overlay_remove(s, s->at[0]);
	s->at[s->n++] = o;
}

bool ui_overlay_is_open(const ui_overlays *s, const ui_overlay *o, const struct ui_dash *d)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->at[i] == o)
			return live(o, d);
	return false;
}

const ui_overlay *ui_overlay_top(const ui_overlays *s, const struct ui_dash *d)
{
	for (size_t i = s->n; i-- > 0;)
		if (live(s->at[i], d))
			return s->at[i];
	return NULL;
}

ui_pane_id ui_overlay_pane(const ui_overlays *s, const struct ui_dash *d, ui_pane_id base)
{
	for (size_t i = s->n; i-- > 0;)
		if (s->at[i]->pane && live(s->at[i], d))
			return s->at[i]->pane(d);
	return base;
}

bool ui_overlay_back(ui_overlays *s, struct ui_dash *d)
{
	const ui_overlay *top;

	while (s->n && !live(s->at[s->n - 1], d))
		s->n--;
	if (!s->n)
		return false;
	top = s->at[s->n - 1];
	if (!top->back || top->back(d))
		ui_overlay_remove(s, top); /* back may have pushed or removed others */
	return true;
}
