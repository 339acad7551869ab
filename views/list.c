/* What the list panes share: visible rows under the filters, the cursor
 * and scrolling, drawing rows with their status accent, and the small
 * formatters (status symbols, ages, counts). */
#include "screen.h"
#include "ac_text.h"
#include "ui_text.h"
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const status_symbols[UI_STATUS_COUNT] = {
	[UI_STATUS_RUNNING] = "\xe2\x96\xb6",   /* ▶ */
	[UI_STATUS_PAUSED] = "\xe2\x80\x96",    /* ‖ */
	[UI_STATUS_COMPLETED] = "\xe2\x9c\x93", /* ✓ */
	[UI_STATUS_FAILED] = "\xe2\x9c\x97",    /* ✗ */
	[UI_STATUS_OTHER] = "?",
};

static const ui_style status_styles[UI_STATUS_COUNT] = {
	[UI_STATUS_RUNNING] = UI_ST_RUNNING,
	[UI_STATUS_PAUSED] = UI_ST_PAUSED,
	[UI_STATUS_COMPLETED] = UI_ST_COMPLETED,
	[UI_STATUS_FAILED] = UI_ST_FAILED,
	[UI_STATUS_OTHER] = UI_ST_DIM,
};

static const char *const state_symbols[AC_STATE_COUNT] = {
	[AC_STATE_RUNNING] = "\xe2\x96\xb6",   /* ▶ */
	[AC_STATE_WAITING] = "\xe2\x97\x8f",   /* ● */
	[AC_STATE_IDLE] = "\xe2\x97\x8b",      /* ○ */
	[AC_STATE_ENDED] = "\xe2\x96\xa0",     /* ■ */
	[AC_STATE_PAUSED] = "\xe2\x80\x96",    /* ‖ */
	[AC_STATE_COMPLETED] = "\xe2\x9c\x93", /* ✓ */
	[AC_STATE_FAILED] = "\xe2\x9c\x97",    /* ✗ */
};

static const ui_style state_styles[AC_STATE_COUNT] = {
	[AC_STATE_RUNNING] = UI_ST_STATE_RUNNING,
	[AC_STATE_WAITING] = UI_ST_STATE_WAITING,
	[AC_STATE_IDLE] = UI_ST_STATE_IDLE,
	[AC_STATE_ENDED] = UI_ST_STATE_ENDED,
	[AC_STATE_PAUSED] = UI_ST_PAUSED,
	[AC_STATE_COMPLETED] = UI_ST_COMPLETED,
	[AC_STATE_FAILED] = UI_ST_FAILED,
};

const char *ui_state_symbol(ac_session_state state)
{
	return (unsigned)state < AC_STATE_COUNT ? state_symbols[state] : "?";
}

ui_style ui_state_style(ac_session_state state)
{
	return (unsigned)state < AC_STATE_COUNT ? state_styles[state] : UI_ST_DIM;
}

const char *ui_status_symbol(ui_status st)
{
	return (unsigned)st < UI_STATUS_COUNT ? status_symbols[st] : "?";
}

ui_style ui_status_style(ui_status st)
{
	return (unsigned)st < UI_STATUS_COUNT ? status_styles[st] : UI_ST_DIM;
}

/* Milliseconds since the epoch of "YYYY-MM-DDTHH:MM:SS(.sss)Z", or -1. */
static int64_t iso_ms(const char *iso)
{
	struct tm tm = {0};
	int ms = 0;
	time_t t;

	if (!iso || sscanf(iso, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			   &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
		return -1;
	if (strlen(iso) >= 23 && iso[19] == '.')
		ms = atoi(iso + 20) % 1000;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	t = timegm(&tm);
	return t == (time_t)-1 ? -1 : (int64_t)t * 1000 + ms;
}

/* When the soonest age drawn since the last ui_age_refresh_take() will
 * read differently (0: none drawn). */
static int64_t age_refresh_at;

int64_t ui_age_refresh_take(void)
{
	int64_t at = age_refresh_at;

	age_refresh_at = 0;
	return at;
}

/* Notes when an age of elapsed_ms shown in units of unit_ms changes. */
static void note_age(int64_t now_ms, int64_t elapsed_ms, int64_t unit_ms)
{
	int64_t at = now_ms + unit_ms - elapsed_ms % unit_ms;

	if (!age_refresh_at || at < age_refresh_at)
		age_refresh_at = at;
}

void ui_fmt_age(char *out, size_t size, const char *iso, int64_t now_ms)
{
	int64_t then = iso_ms(iso), s;

	if (then < 0) {
		snprintf(out, size, "-");
		return;
	}
	s = (now_ms - then) / 1000;
	if (s < 0)
		s = 0;
	note_age(now_ms, now_ms > then ? now_ms - then : 0,
		 s < 60 ? 1000 : s < 3600 ? 60000 : s < 86400 ? 3600000 : 86400000);
	if (s < 60)
		snprintf(out, size, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(out, size, "%lldm", (long long)(s / 60));
	else if (s < 86400)
		snprintf(out, size, "%lldh", (long long)(s / 3600));
	else
		snprintf(out, size, "%lldd", (long long)(s / 86400));
}

void ui_fmt_clock(char out[9], const char *iso)
{
	if (iso && strlen(iso) >= 19 && iso[10] == 'T' && iso[13] == ':' && iso[16] == ':') {
		memcpy(out, iso + 11, 8);
		out[8] = '\0';
	} else {
		strcpy(out, "--:--:--");
	}
}

void ui_fmt_count(char *out, size_t size, uint64_t n)
{
	static const char units[] = "kMGTPE";
	uint64_t unit = 1000;

	if (n < 1000) {
		snprintf(out, size, "%llu", (unsigned long long)n);
		return;
	}
	/* The largest unit not above n: at most 4 characters ("9.96k" is
	 * "10k", never "10.0k"). */
	for (size_t u = 0; u < sizeof(units) - 1; u++, unit *= 1000) {
		if (u + 1 < sizeof(units) - 1 && n / 1000 >= unit)
			continue;
		uint64_t tenth = unit / 10, tenths = n / tenth + (n % tenth >= tenth / 2);

		if (tenths < 100)
			snprintf(out, size, "%llu.%llu%c", (unsigned long long)(tenths / 10),
				 (unsigned long long)(tenths % 10), units[u]);
		else /* 9.96k rounds to 10k */
			snprintf(out, size, "%llu%c",
				 (unsigned long long)(n / unit < 10 ? 10 : n / unit), units[u]);
		return;
	}
}

size_t ui_columns_fit(int *widths, const ui_column *cols, size_t n, int width)
{
	size_t shown = n;
	int need = 0, flex = -1;

	for (size_t i = 0; i < n; i++) {
		widths[i] = cols[i].width;
		if (cols[i].width)
			need += cols[i].width + cols[i].gap;
		else
			shown--;
	}
	while (need > width && shown > 1) {
		size_t drop = 0;

		for (size_t i = 1; i < n; i++)
			if (widths[i] && (!drop || cols[i].keep <= cols[drop].keep))
				drop = i;
		if (!drop)
			break;
		need -= cols[drop].width + cols[drop].gap;
		widths[drop] = 0;
		shown--;
	}
	for (size_t i = 0; i < n; i++)
		if (widths[i] && cols[i].flex && flex < 0)
			flex = (int)i;
	if (flex >= 0 && need < width)
		widths[flex] += width - need;
	return shown;
}

void ui_col_count(ac_buf *out, uint64_t n, bool exact, int width, int sep)
{
	char cell[32];

	snprintf(cell, sizeof(cell), "%llu", (unsigned long long)n);
	if (!exact || (int)strlen(cell) > width)
		ui_fmt_count(cell, sizeof(cell), n);
	if ((int)strlen(cell) > width)
		snprintf(cell, sizeof(cell), "\xe2\x80\xa6");
	ui_col(out, cell, width, UI_FIT_RIGHT, sep);
}

void ui_col(ac_buf *out, const char *text, int width, unsigned flags, int sep)
{
	ui_text_fits(out, text, width, flags | UI_FIT_PAD);
	while (sep-- > 0)
		ac_buf_putc(out, ' ');
}

bool ui_filter_fields(const ui_pane *p, const char *const *fields)
{
	if (!p->filter[0])
		return true;
	for (size_t i = 0; fields[i]; i++)
		if (ui_text_match(fields[i], p->filter))
			return true;
	return false;
}

size_t ui_list_visible(const ui_view *v, const ui_model *m, const ui_pane *p, size_t *idx)
{
	size_t n = v->count(m), shown = 0;

	if (v->visible)
		return v->visible(m, p, idx);
	for (size_t i = 0; i < n; i++)
		if (!v->match || v->match(m, i, p)) {
			if (idx)
				idx[shown] = i;
			shown++;
		}
	if (idx && v->order)
		v->order(m, p, idx, shown);
	return shown;
}

/* Whether the model holds an item keyed key at all (shown or filtered). */
static bool listed(const ui_view *v, const ui_model *m, const char *key)
{
	for (size_t i = 0, n = v->count(m); i < n; i++)
		if (!strcmp(v->item_key(m, i), key))
			return true;
	return false;
}

/* Puts the cursor back on the item p->sel names, if it is still shown,
 * and keeps cursor and top within the list. The selection follows the
 * id: when that item is gone from the model (its file removed or being
 * replaced), nothing is selected, p->sel is kept so the cursor comes back
 * when it does, and true is returned; a neighbour is never picked for it.
 * (An item only filtered out hands the cursor on, as before.) */
static bool settle(const ui_view *v, const ui_model *m, ui_pane *p, const size_t *idx, size_t n,
		   int page)
{
	bool missing = false;

	if (p->follow && n) {
		p->cursor = v->newest_first ? 0 : n - 1;
	} else if (p->sel[0] && v->item_key) {
		if (p->cursor >= n || strcmp(v->item_key(m, idx[p->cursor]), p->sel)) {
			bool found = false;

			for (size_t i = 0; i < n && !found; i++)
				if (!strcmp(v->item_key(m, idx[i]), p->sel)) {
					p->cursor = i;
					found = true;
				}
			missing = !found && !listed(v, m, p->sel);
		}
	}
	if (p->cursor >= n)
		p->cursor = n ? n - 1 : 0;
	if (page < 1)
		page = 1;
	if (p->cursor < p->top)
		p->top = p->cursor;
	if (p->cursor >= p->top + (size_t)page)
		p->top = p->cursor - (size_t)page + 1;
	if (n > (size_t)page && p->top > n - (size_t)page)
		p->top = n - (size_t)page;
	if (n <= (size_t)page)
		p->top = 0;
	if (n && v->item_key && !missing)
		snprintf(p->sel, sizeof(p->sel), "%s", v->item_key(m, idx[p->cursor]));
	return missing;
}

bool ui_list_selected(const ui_view *v, const ui_model *m, const ui_pane *p, size_t *out)
{
	size_t n = v->count(m), *idx = malloc((n ? n : 1) * sizeof(*idx)), shown;
	ui_pane copy = *p;
	bool ok = false;

	if (!idx)
		return false;
	shown = ui_list_visible(v, m, p, idx);
	if (!settle(v, m, &copy, idx, shown, p->list_rows) && shown) {
		*out = idx[copy.cursor];
		ok = true;
	}
	free(idx);
	return ok;
}

void ui_draw_title(ui_rect r, const char *name, const ui_pane *p, const char *extra, bool active)
{
	ac_buf t = AC_BUF_INIT;

	ac_buf_printf(&t, " %s ", name);
	if (p && p->session[0] && strlen(p->session) <= 12)
		ac_buf_printf(&t, "\xe2\x80\x94 session %s ", p->session);
	else if (p && p->session[0]) /* a uuid: its start and end tell it apart */
		ac_buf_printf(&t, "\xe2\x80\x94 session %.8s\xe2\x80\xa6%s ", p->session,
			      p->session + strlen(p->session) - 3);
	if (p && p->sort)
		ac_buf_printf(&t, " sorted by %s ", ui_session_sort_name(p->sort));
	if (extra && *extra)
		ac_buf_printf(&t, " %s ", extra);
	if (p && p->status_filter >= 0)
		ac_buf_printf(&t, " [%s only] ", ui_status_symbol((ui_status)p->status_filter));
	if (p && p->state_filter > 0)
		ac_buf_printf(&t, " [%s only] ",
			      ac_session_state_name((ac_session_state)(p->state_filter - 1)));
	if (p && p->host[0])
		ac_buf_printf(&t, " [host %s] ", p->host);
	if (p && p->filter[0])
		ac_buf_printf(&t, " /%s ", p->filter);
	screen_fill(r.y, r.x, r.w, active ? UI_ST_TAB_ACTIVE : UI_ST_TAB);
	{
		ac_buf cut = AC_BUF_INIT;

		ui_text_fit(&cut, t.data, t.len, r.w, 0);
		screen_put(r.y, r.x, r.w, active ? UI_ST_TAB_ACTIVE : UI_ST_TAB, cut.data ? cut.data : "");
		ac_buf_free(&cut);
	}
	ac_buf_free(&t);
}

void ui_list_draw(const ui_view *v, const ui_model *m, ui_pane *p, ui_rect r, bool active,
		  int64_t now_ms)
{
	size_t n = v->count(m), *idx = malloc((n ? n : 1) * sizeof(*idx)), shown;
	char extra[64 + sizeof(p->sel)];
	ac_buf line = AC_BUF_INIT;
	int rows = r.h - 2;
	bool missing = false;

	if (!idx || r.h < 2)
		goto done;
	shown = ui_list_visible(v, m, p, idx);
	snprintf(extra, sizeof(extra), "%zu/%zu", shown ? p->cursor + 1 : 0, shown);
	if (shown != n)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " of %zu", n);
	p->list_rows = rows;
	p->list_y = r.y + 2;
	missing = settle(v, m, p, idx, shown, rows);
	if (missing) {
		/* A key may be a raw id (the Sessions pane's). */
		ac_buf key = AC_BUF_INIT;

		ac_text_sanitize(&key, p->sel, strlen(p->sel));
		snprintf(extra, sizeof(extra), "-/%zu (%.*s is gone)", shown,
			 (int)sizeof(p->sel), key.data ? key.data : "");
		ac_buf_free(&key);
	} else
		snprintf(extra, sizeof(extra), "%zu/%zu", shown ? p->cursor + 1 : 0, shown);
	if (shown != n)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " (of %zu)", n);
	ui_draw_title(r, v->name, p, extra, active);
	v->header(&line, m, r.w);
	screen_fill(r.y + 1, r.x, r.w, UI_ST_HEADER);
	screen_put(r.y + 1, r.x, r.w, UI_ST_HEADER, line.data ? line.data : "");
	if (!shown) {
		const char *why = n ? "nothing matches the filter" : v->empty;

		if (!n && v->empty_text) {
			ac_buf_clear(&line);
			v->empty_text(&line, m);
			why = line.data ? line.data : "";
		}
		screen_put(r.y + 3, r.x + 2, r.w - 2, UI_ST_DIM, why);
		goto done;
	}
	for (int row = 0; row < rows && p->top + (size_t)row < shown; row++) {
		size_t vis = p->top + (size_t)row, i = idx[vis];
		bool sel = vis == p->cursor && !missing;
		int ax = 0, aw = 0;
		ui_style accent;

		ac_buf_clear(&line);
		accent = v->row(&line, m, i, r.w, now_ms, &ax, &aw);
		if (sel)
			screen_fill(r.y + 2 + row, r.x, r.w, active ? UI_ST_SELECTED : UI_ST_DIM);
		screen_put(r.y + 2 + row, r.x, r.w, sel ? (active ? UI_ST_SELECTED : UI_ST_DIM) : UI_ST_NORMAL,
			   line.data ? line.data : "");
		if (aw > 0 && !(sel && active)) {
			/* Redraw the accent cells in the status colour. */
			size_t skip = ui_text_prefix(line.data, line.len, ax, NULL);
			size_t take = ui_text_prefix(line.data + skip, line.len - skip, aw, NULL);
			char *cell = strndup(line.data + skip, take);

			if (cell)
				screen_put(r.y + 2 + row, r.x + ax, aw, accent, cell);
			free(cell);
		}
	}
done:
	ac_buf_free(&line);
	free(idx);
}

bool ui_list_key(const ui_view *v, const ui_model *m, ui_pane *p, ui_action a, int page)
{
	size_t n = ui_list_visible(v, m, p, NULL), before = p->cursor;
	bool was_follow = p->follow;

	if (page < 1)
		page = 1;
	if (p->cursor >= n)
		p->cursor = n ? n - 1 : 0;
	switch (a) {
	case UI_ACT_UP:
		if (p->cursor > 0)
			p->cursor--;
		break;
	case UI_ACT_DOWN:
		if (p->cursor + 1 < n)
			p->cursor++;
		break;
	case UI_ACT_TOP:
		p->cursor = 0;
		break;
	case UI_ACT_BOTTOM:
		p->cursor = n ? n - 1 : 0;
		break;
	case UI_ACT_PGUP:
		p->cursor = p->cursor > (size_t)page ? p->cursor - (size_t)page : 0;
		break;
	case UI_ACT_PGDN:
		p->cursor = p->cursor + (size_t)page < n ? p->cursor + (size_t)page : (n ? n - 1 : 0);
		break;
	default:
		return false;
	}
	if (v->newest_first)
		p->follow = n && p->cursor == 0 && (a == UI_ACT_TOP || a == UI_ACT_UP || a == UI_ACT_PGUP);
	else
		p->follow = n && p->cursor == n - 1 &&
			    (a == UI_ACT_BOTTOM || a == UI_ACT_DOWN || a == UI_ACT_PGDN) &&
			    (v == &ui_view_journal || v == &ui_view_trace);
	p->sel[0] = '\0';
	if (n && v->item_key) {
		size_t *idx = malloc(n * sizeof(*idx));

		if (idx) {
			ui_list_visible(v, m, p, idx);
			snprintf(p->sel, sizeof(p->sel), "%s", v->item_key(m, idx[p->cursor]));
			free(idx);
		}
	}
	return before != p->cursor || was_follow != p->follow;
}

bool ui_list_click(const ui_view *v, const ui_model *m, ui_pane *p, int y)
{
	size_t n = ui_list_visible(v, m, p, NULL), row;
	size_t *idx;

	if (y < p->list_y || y >= p->list_y + p->list_rows)
		return false;
	row = p->top + (size_t)(y - p->list_y);
	if (row >= n)
		return false;
	p->cursor = row;
	p->follow = false;
	p->sel[0] = '\0';
	if (v->item_key && (idx = malloc(n * sizeof(*idx)))) {
		ui_list_visible(v, m, p, idx);
		snprintf(p->sel, sizeof(p->sel), "%s", v->item_key(m, idx[row]));
		free(idx);
	}
	return true;
}

void ui_list_draw_note(const ui_view *v, ui_pane *p, ui_rect r, bool active,
		       const char *extra, const char *note)
{
	ui_draw_title(r, v->name, p, extra, active);
	screen_put(r.y + 2, r.x + 2, r.w - 2, UI_ST_DIM, note);
	p->list_rows = 0;
}
