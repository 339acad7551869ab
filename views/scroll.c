/* Keys of the panes that scroll a text rather than move a cursor (a
 * conversation, an operation's patch, an event or preview in full). */
#include "view.h"

#include <stdint.h>

bool ui_scroll_key(const ui_view *v, const ui_model *m, ui_pane *p, ui_action a, int page)
{
	size_t before = p->top;
	bool followed = p->follow;

	(void)v;
	(void)m;
	if (page < 1)
		page = 1;
	/* Moving stops following the end; G starts it again (the draw then
	 * puts the last line at the bottom). */
	p->follow = false;
	switch (a) {
	case UI_ACT_UP: if (p->top) p->top--; break;
	case UI_ACT_DOWN: p->top++; break; /* clamped when drawn */
	case UI_ACT_TOP: p->top = 0; break;
	case UI_ACT_BOTTOM: p->follow = true; break;
	case UI_ACT_PGUP: p->top = p->top > (size_t)page ? p->top - (size_t)page : 0; break;
	case UI_ACT_PGDN: p->top += (size_t)page; break;
	default:
		p->follow = followed;
		return false;
	}
	return before != p->top || p->follow || followed;
}

bool ui_scroll_key_clamped(const ui_view *v, const ui_model *m, ui_pane *p, ui_action a, int page)
{
	size_t before = p->top;

	(void)v;
	(void)m;
	if (page < 1)
		page = 1;
	switch (a) {
	case UI_ACT_UP: if (p->top) p->top--; break;
	case UI_ACT_DOWN: p->top++; break; /* clamped when drawn */
	case UI_ACT_TOP: p->top = 0; break;
	case UI_ACT_BOTTOM: p->top = SIZE_MAX / 2; break; /* the draw clamps it to the end */
	case UI_ACT_PGUP: p->top = p->top > (size_t)page ? p->top - (size_t)page : 0; break;
	case UI_ACT_PGDN: p->top += (size_t)page; break;
	default: break;
	}
	return p->top != before;
}
