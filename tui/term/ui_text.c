/* Display width, cutting and wrapping of UTF-8 text by terminal columns. */
#include "ui_text.h"

#include <ctype.h>
#include <langinfo.h>
#include <locale.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

void ui_text_locale(void)
{
	const char *codeset;

	setlocale(LC_ALL, "");
	codeset = nl_langinfo(CODESET);
	if (!codeset || (strcasecmp(codeset, "UTF-8") && strcasecmp(codeset, "utf8")))
		if (!setlocale(LC_CTYPE, "C.UTF-8"))
			setlocale(LC_CTYPE, "en_US.UTF-8");
}

size_t ui_utf8_next(const char *s, size_t len, unsigned *out_cp)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned cp;
	size_t need;

	if (u[0] < 0x80) {
		*out_cp = u[0];
		return 1;
	}
	if (u[0] >= 0xC2 && u[0] <= 0xDF) {
		need = 2;
		cp = u[0] & 0x1F;
	} else if (u[0] >= 0xE0 && u[0] <= 0xEF) {
		need = 3;
		cp = u[0] & 0x0F;
	} else if (u[0] >= 0xF0 && u[0] <= 0xF4) {
		need = 4;
		cp = u[0] & 0x07;
	} else {
		*out_cp = u[0];
		return 1;
	}
	if (len < need) {
		*out_cp = u[0];
		return 1;
	}
	for (size_t i = 1; i < need; i++) {
		if ((u[i] & 0xC0) != 0x80) {
			*out_cp = u[0];
			return 1;
		}
		cp = (cp << 6) | (u[i] & 0x3F);
	}
	if ((need == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (need == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
		*out_cp = u[0];
		return 1;
	}
	*out_cp = cp;
	return need;
}

int ui_cp_width(unsigned cp)
{
	int w;

	if (cp < 0x80)
		return cp >= 0x20 && cp != 0x7F ? 1 : 0;
	w = wcwidth((wchar_t)cp);
	if (w >= 0)
		return w > 2 ? 2 : w;
	/* A locale that does not know the character: assume one column. */
	return 1;
}

size_t ui_text_prefix(const char *s, size_t len, int width, int *out_cols)
{
	size_t i = 0;
	int cols = 0;

	while (i < len) {
		unsigned cp;
		size_t n = ui_utf8_next(s + i, len - i, &cp);
		int w = ui_cp_width(cp);

		if (cols + w > width)
			break;
		cols += w;
		i += n;
	}
	if (out_cols)
		*out_cols = cols;
	return i;
}

int ui_text_width(const char *s, size_t len)
{
	int cols = 0;

	for (size_t i = 0; i < len;) {
		unsigned cp;

		i += ui_utf8_next(s + i, len - i, &cp);
		cols += ui_cp_width(cp);
	}
	return cols;
}

static void pad(ac_buf *out, int n)
{
	while (n-- > 0)
		ac_buf_putc(out, ' ');
}

int ui_text_fit(ac_buf *out, const char *s, size_t len, int width, unsigned flags)
{
	int cols, total;
	size_t keep;
	bool cut;

	if (width <= 0)
		return 0;
	total = ui_text_width(s, len);
	cut = total > width;
	if (!cut) {
		keep = len;
		cols = total;
	} else {
		keep = ui_text_prefix(s, len, (flags & UI_FIT_ELLIPSIS) ? width - 1 : width, &cols);
	}
	if (cut && (flags & UI_FIT_ELLIPSIS))
		cols++;
	if ((flags & UI_FIT_RIGHT) && cols < width)
		pad(out, width - cols);
	ac_buf_append(out, s, keep);
	if (cut && (flags & UI_FIT_ELLIPSIS))
		ac_buf_append(out, "\xe2\x80\xa6", 3);
	if ((flags & UI_FIT_PAD) && !(flags & UI_FIT_RIGHT) && cols < width)
		pad(out, width - cols);
	return (flags & (UI_FIT_PAD | UI_FIT_RIGHT)) ? width : cols;
}

void ui_text_input(ac_buf *out, const char *label, const char *text, const char *keys,
		   int width)
{
	size_t len = strlen(text), skip = 0;
	int room = width - ui_text_width(label, strlen(label)) - 1; /* the cursor */
	ac_buf line = AC_BUF_INIT;

	if (ui_text_width(text, len) > room) {
		/* Drop characters from the start until the rest and "…" fit. */
		int cols = ui_text_width(text, len);

		while (skip < len && cols > room - 1) {
			unsigned cp;

			skip += ui_utf8_next(text + skip, len - skip, &cp);
			cols -= ui_cp_width(cp);
		}
		ac_buf_printf(&line, "%s\xe2\x80\xa6%s_", label, text + skip);
	} else {
		ac_buf_printf(&line, "%s%s_%s", label, text, keys);
	}
	ui_text_fit(out, line.data, line.len, width, UI_FIT_ELLIPSIS);
	ac_buf_free(&line);
}

int ui_text_fits(ac_buf *out, const char *s, int width, unsigned flags)
{
	if (!s)
		s = "";
	return ui_text_fit(out, s, strlen(s), width, flags);
}

size_t ui_text_wrap(const char *s, size_t len, int width,
		    void (*fn)(const char *row, size_t row_len, void *ctx), void *ctx)
{
	size_t rows = 0, start = 0;

	if (width < 1)
		width = 1;
	if (len == 0) {
		fn(s, 0, ctx);
		return 1;
	}
	while (start < len) {
		int cols;
		size_t fit = ui_text_prefix(s + start, len - start, width, &cols);
		size_t end, next;

		if (fit == 0) /* a wide character in a one-column row */
			fit = ui_utf8_next(s + start, len - start, &(unsigned){0});
		end = start + fit;
		next = end;
		if (end < len) {
			size_t sp = end;

			if (s[end] == ' ') {
				next = end + 1;
			} else {
				while (sp > start && s[sp - 1] != ' ')
					sp--;
				if (sp > start) {
					end = sp - 1;
					next = sp;
				}
			}
		}
		fn(s + start, end - start, ctx);
		rows++;
		start = next;
	}
	return rows;
}

bool ui_text_match(const char *hay, const char *needle)
{
	bool icase = true;

	if (!needle || !*needle)
		return true;
	if (!hay)
		return false;
	for (const char *p = needle; *p; p++)
		if (isupper((unsigned char)*p))
			icase = false;
	return icase ? strcasestr(hay, needle) != NULL : strstr(hay, needle) != NULL;
}

size_t ui_utf8_encode(char out[4], unsigned cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | cp >> 6), out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | cp >> 12), out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | cp >> 18), out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}
