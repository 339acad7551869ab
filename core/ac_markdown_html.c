/* Markdown to closed HTML (ac_markdown_html.h). Blocks are read line by
 * line; the text of a paragraph, list item or quote is gathered, then its
 * inline marks are rendered by one left-to-right pass that, for each
 * opener, looks for its closer. A search that fails is remembered (a
 * later opener of the same kind would fail too), and a found pair's inside
 * is rendered by a call of its own to a bounded depth: so the work stays
 * linear in the text. Every element is opened and closed by the same
 * call, so nothing in the text can leave one open or close one early. */
#include "ac_markdown_html.h"

#include "ac_error.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

enum {
	MAX_DEPTH = 6, /* emphasis in emphasis in a link...: deeper marks stay text */
	MAX_TICKS = 16, /* a code span's backticks: a longer run stays text */
};

typedef struct {
	ac_buf *out;
	int rc;
} md;

static void lit(md *m, const char *s)
{
	if (m->rc == 0)
		m->rc = ac_buf_append(m->out, s, strlen(s));
}

/* Text: every byte that could start markup or leave an attribute is an
 * entity. */
static void esc(md *m, const char *s, size_t n)
{
	size_t from = 0;

	for (size_t i = 0; i < n && m->rc == 0; i++) {
		const char *e;

		switch (s[i]) {
		case '&': e = "&amp;"; break;
		case '<': e = "&lt;"; break;
		case '>': e = "&gt;"; break;
		case '"': e = "&quot;"; break;
		case '\'': e = "&#39;"; break;
		case '\0': e = "&#xFFFD;"; break;
		default: continue;
		}
		if ((m->rc = ac_buf_append(m->out, s + from, i - from)) == 0)
			lit(m, e);
		from = i + 1;
	}
	if (m->rc == 0)
		m->rc = ac_buf_append(m->out, s + from, n - from);
}

/* ---- inline -------------------------------------------------------------- */

/* What one call over a span has learnt: where a search found nothing. */
typedef struct {
	size_t no_ticks[MAX_TICKS + 1]; /* no closing run of k backticks at or after */
	size_t no_emph[2][4];           /* no closer of '*' / '_' run of k at or after */
	size_t bracket;                 /* the next ']' at or after bracket_from (n: none) */
	size_t bracket_from;
	size_t url_at, url_end;         /* the address read after url_at's "](": its ')'
					 * (0: none there, or not a scheme allowed) */
} span_memo;

static void inline_span(md *m, const char *s, size_t n, int depth, bool links);

static size_t run_of(const char *s, size_t n, size_t i, char c)
{
	size_t j = i;

	while (j < n && s[j] == c)
		j++;
	return j - i;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* The scheme a link may have: http, https or mailto, in any case. */
static bool link_allowed(const char *url, size_t n)
{
	static const char *const schemes[] = {"http://", "https://", "mailto:"};

	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		size_t k = strlen(schemes[i]);

		if (n > k && !strncasecmp(url, schemes[i], k))
			return true;
	}
	return false;
}

/* Bytes a link's address may not hold here: they would end it, or mean
 * markup (a real address has them percent-encoded). */
static bool url_stop(char c)
{
	return (unsigned char)c <= ' ' || strchr("<>\"'`()[]\\", c) || c == 0x7f;
}

static void link(md *m, const char *url, size_t url_n, const char *text, size_t text_n,
		 int depth, bool text_is_markdown)
{
	lit(m, "<a href=\"");
	esc(m, url, url_n);
	lit(m, "\" rel=\"noopener noreferrer\">");
	if (text_is_markdown)
		inline_span(m, text, text_n, depth + 1, false);
	else
		esc(m, text, text_n);
	lit(m, "</a>");
}

/* A code span at s[i] (a run of k backticks): its end, or 0 when the run
 * stays text. */
static size_t code_span(md *m, span_memo *memo, const char *s, size_t n, size_t i, size_t k)
{
	size_t j = i + k, from, to;

	if (k > MAX_TICKS || i >= memo->no_ticks[k])
		return 0;
	while (j < n) {
		size_t r;

		if (s[j] != '`') {
			j++;
			continue;
		}
		r = run_of(s, n, j, '`');
		if (r == k)
			break;
		j += r;
	}
	if (j >= n) {
		memo->no_ticks[k] = i;
		return 0;
	}
	from = i + k;
	to = j;
	/* One space each side is padding: `` `x` `` shows `x`. */
	if (to - from >= 2 && s[from] == ' ' && s[to - 1] == ' ')
		from++, to--;
	lit(m, "<code>");
	esc(m, s + from, to - from);
	lit(m, "</code>");
	return j + k;
}

/* Emphasis at s[i] (a run of k of c): its end, or 0 when the run stays
 * text. The closer is a run of exactly k, after a non-space; '_' only
 * outside words (snake_case stays text). */
static size_t emphasis(md *m, span_memo *memo, const char *s, size_t n, size_t i, size_t k,
		       int depth, bool links)
{
	int which = s[i] == '*' ? 0 : 1;
	char c = s[i];
	size_t j = i + k;

	if (k > 3 || depth >= MAX_DEPTH || j >= n || is_space(s[j]) ||
	    (c == '_' && i > 0 && isalnum((unsigned char)s[i - 1])) || i >= memo->no_emph[which][k])
		return 0;
	while (j < n) {
		size_t r;

		if (s[j] != c) {
			j++;
			continue;
		}
		r = run_of(s, n, j, c);
		if (r == k && !is_space(s[j - 1]) &&
		    !(c == '_' && j + r < n && isalnum((unsigned char)s[j + r])))
			break;
		j += r;
	}
	if (j >= n) {
		memo->no_emph[which][k] = i;
		return 0;
	}
	lit(m, k == 1 ? "<em>" : k == 2 ? "<strong>" : "<strong><em>");
	inline_span(m, s + i + k, j - i - k, depth + 1, links);
	lit(m, k == 1 ? "</em>" : k == 2 ? "</strong>" : "</em></strong>");
	return j + k;
}

/* [text](url) at s[i]: its end, or 0 when it stays text (no such shape,
 * or an address of another scheme: javascript:, data:...). */
static size_t bracket_link(md *m, span_memo *memo, const char *s, size_t n, size_t i, int depth)
{
	size_t close, u, e;

	if (depth >= MAX_DEPTH)
		return 0;
	if (memo->bracket_from > i + 1 || memo->bracket < i + 1) {
		const char *p = memchr(s + i + 1, ']', n - i - 1);

		memo->bracket = p ? (size_t)(p - s) : n;
		memo->bracket_from = i + 1;
	}
	close = memo->bracket;
	if (close + 1 >= n || s[close + 1] != '(')
		return 0;
	u = close + 2;
	/* "[[[...](x" tries one "](" for every "[": it is read once. */
	if (memo->url_at != close) {
		for (e = u; e < n && !url_stop(s[e]); e++) {
		}
		memo->url_at = close;
		memo->url_end = e < n && s[e] == ')' && link_allowed(s + u, e - u) ? e : 0;
	}
	if (!(e = memo->url_end))
		return 0;
	link(m, s + u, e - u, s + i + 1, close - i - 1, depth, true);
	return e + 1;
}

/* <https://...> at s[i]: its end, or 0. */
static size_t autolink(md *m, const char *s, size_t n, size_t i)
{
	size_t e;

	for (e = i + 1; e < n && !url_stop(s[e]); e++) {
	}
	if (e >= n || s[e] != '>' || !link_allowed(s + i + 1, e - i - 1))
		return 0;
	link(m, s + i + 1, e - i - 1, s + i + 1, e - i - 1, 0, false);
	return e + 1;
}

static void inline_span(md *m, const char *s, size_t n, int depth, bool links)
{
	span_memo memo;
	size_t i = 0, text = 0;

	for (size_t k = 0; k <= MAX_TICKS; k++)
		memo.no_ticks[k] = SIZE_MAX;
	for (int w = 0; w < 2; w++)
		for (int k = 0; k < 4; k++)
			memo.no_emph[w][k] = SIZE_MAX;
	memo.bracket = 0;
	memo.bracket_from = SIZE_MAX;
	memo.url_at = SIZE_MAX;
	memo.url_end = 0;
	while (i < n && m->rc == 0) {
		char c = s[i];
		size_t end = 0, k = 1;

		if (c == '\\' && i + 1 < n && ispunct((unsigned char)s[i + 1])) {
			esc(m, s + text, i - text);
			esc(m, s + i + 1, 1);
			i += 2;
			text = i;
			continue;
		}
		if (c == '`' || c == '*' || c == '_')
			k = run_of(s, n, i, c);
		if (!strchr("`*_[<", c) || !c) {
			i++;
			continue;
		}
		esc(m, s + text, i - text);
		if (c == '`')
			end = code_span(m, &memo, s, n, i, k);
		else if (c == '*' || c == '_')
			end = emphasis(m, &memo, s, n, i, k, depth, links);
		else if (c == '[' && links)
			end = bracket_link(m, &memo, s, n, i, depth);
		else if (c == '<' && links)
			end = autolink(m, s, n, i);
		if (!end) { /* the marks stay text */
			esc(m, s + i, k);
			end = i + k;
		}
		i = text = end;
	}
	esc(m, s + text, n - text);
}

/* ---- blocks -------------------------------------------------------------- */

typedef enum { IN_NOTHING, IN_BULLETS, IN_NUMBERS, IN_QUOTE } container;

typedef struct {
	md m;
	container in;
	bool item_open;
	ac_buf text; /* the paragraph, item or quoted lines gathered */
	char fence;  /* '`' or '~' inside a fenced block, else 0 */
	size_t fence_len;
} blocks;

static void gather(blocks *b, const char *s, size_t n)
{
	if (b->m.rc == 0 && b->text.len)
		b->m.rc = ac_buf_putc(&b->text, '\n');
	if (b->m.rc == 0)
		b->m.rc = ac_buf_append(&b->text, s, n);
}

/* The gathered text rendered: a paragraph, or an item's body. */
static void flush_text(blocks *b)
{
	bool para = b->in != IN_BULLETS && b->in != IN_NUMBERS;

	if (!b->text.len)
		return;
	lit(&b->m, para ? "<p>" : "");
	inline_span(&b->m, b->text.data, b->text.len, 0, true);
	lit(&b->m, para ? "</p>\n" : "");
	ac_buf_clear(&b->text);
}

static void close_blocks(blocks *b)
{
	flush_text(b);
	if (b->item_open)
		lit(&b->m, "</li>\n");
	b->item_open = false;
	if (b->in == IN_BULLETS)
		lit(&b->m, "</ul>\n");
	else if (b->in == IN_NUMBERS)
		lit(&b->m, "</ol>\n");
	else if (b->in == IN_QUOTE)
		lit(&b->m, "</blockquote>\n");
	b->in = IN_NOTHING;
}

static size_t indent_of(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && s[i] == ' ')
		i++;
	return i;
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return false;
	return true;
}

/* "---", "* * *", "___": a rule. */
static bool rule(const char *s, size_t n)
{
	size_t marks = 0;
	char c = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == ' ' || s[i] == '\t')
			continue;
		if (!strchr("-*_", s[i]) || !s[i] || (c && s[i] != c))
			return false;
		c = s[i];
		marks++;
	}
	return marks >= 3;
}

/* A list item's marker at s (after the indent): the kind, and *body
 * where its text starts; IN_NOTHING when none. */
static container item_marker(const char *s, size_t n, size_t *body)
{
	size_t d = 0;

	if (n >= 1 && strchr("-*+", s[0]) && s[0] && (n == 1 || s[1] == ' ' || s[1] == '\t')) {
		*body = n == 1 ? 1 : 2;
		return IN_BULLETS;
	}
	while (d < n && d < 9 && isdigit((unsigned char)s[d]))
		d++;
	if (d && d < n && (s[d] == '.' || s[d] == ')') &&
	    (d + 1 == n || s[d + 1] == ' ' || s[d + 1] == '\t')) {
		*body = d + 1 == n ? d + 1 : d + 2;
		return IN_NUMBERS;
	}
	return IN_NOTHING;
}

static void heading(blocks *b, const char *s, size_t n, size_t level)
{
	char tag[8];
	size_t from = level, to = n;

	while (from < to && (s[from] == ' ' || s[from] == '\t'))
		from++;
	/* A closing run of #s after a space is not text. */
	while (to > from && (s[to - 1] == ' ' || s[to - 1] == '\t'))
		to--;
	{
		size_t hashes = to;

		while (hashes > from && s[hashes - 1] == '#')
			hashes--;
		if (hashes == from || s[hashes - 1] == ' ' || s[hashes - 1] == '\t')
			to = hashes;
		while (to > from && (s[to - 1] == ' ' || s[to - 1] == '\t'))
			to--;
	}
	snprintf(tag, sizeof(tag), "<h%zu>", level + 3 > 6 ? 6 : level + 3);
	lit(&b->m, tag);
	inline_span(&b->m, s + from, to - from, 0, true);
	snprintf(tag, sizeof(tag), "</h%zu>", level + 3 > 6 ? 6 : level + 3);
	lit(&b->m, tag);
	lit(&b->m, "\n");
}

/* One line inside a fenced block: its text, or its end. */
static void fenced_line(blocks *b, const char *s, size_t n)
{
	size_t ind = indent_of(s, n);

	if (ind <= 3 && run_of(s, n, ind, b->fence) >= b->fence_len &&
	    blank(s + ind + run_of(s, n, ind, b->fence), n - ind - run_of(s, n, ind, b->fence))) {
		lit(&b->m, "</code></pre>\n");
		b->fence = 0;
		return;
	}
	esc(&b->m, s, n);
	lit(&b->m, "\n");
}

static void line(blocks *b, const char *s, size_t n)
{
	size_t ind = indent_of(s, n), body, run;
	const char *t = s + ind;
	size_t tn = n - ind;
	container kind;

	if (b->fence) {
		fenced_line(b, s, n);
		return;
	}
	if (blank(s, n)) {
		close_blocks(b);
		return;
	}
	if (ind <= 3 && (t[0] == '`' || t[0] == '~') && (run = run_of(t, tn, 0, t[0])) >= 3 &&
	    !(t[0] == '`' && memchr(t + run, '`', tn - run))) {
		close_blocks(b);
		b->fence = t[0];
		b->fence_len = run;
		lit(&b->m, "<pre><code>");
		return;
	}
	if (ind <= 3 && rule(t, tn)) {
		close_blocks(b);
		lit(&b->m, "<hr>\n");
		return;
	}
	if (ind <= 3 && (run = run_of(t, tn, 0, '#')) >= 1 && run <= 6 &&
	    (run == tn || t[run] == ' ' || t[run] == '\t')) {
		close_blocks(b);
		heading(b, t, tn, run);
		return;
	}
	if (ind <= 3 && (kind = item_marker(t, tn, &body)) != IN_NOTHING) {
		if (b->in != kind)
			close_blocks(b);
		flush_text(b);
		if (b->item_open)
			lit(&b->m, "</li>\n");
		if (b->in != kind)
			lit(&b->m, kind == IN_BULLETS ? "<ul>\n" : "<ol>\n");
		b->in = kind;
		lit(&b->m, "<li>");
		b->item_open = true;
		gather(b, t + body, tn - body);
		return;
	}
	if (ind <= 3 && t[0] == '>') {
		body = tn > 1 && t[1] == ' ' ? 2 : 1;
		if (b->in != IN_QUOTE) {
			close_blocks(b);
			lit(&b->m, "<blockquote>\n");
			b->in = IN_QUOTE;
		}
		gather(b, t + body, tn - body);
		return;
	}
	if (b->in == IN_QUOTE) /* no lazy continuation: the quote ends */
		close_blocks(b);
	gather(b, t, tn);
}

int ac_markdown_html(ac_buf *out, const char *text, size_t len)
{
	blocks b = {.m = {out, 0}, .text = AC_BUF_INIT};
	size_t start = 0;

	while (start < len && b.m.rc == 0) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;

		line(&b, text + start, end - start);
		start = end + 1;
	}
	if (b.fence) /* unterminated: it runs to the end, and is closed */
		lit(&b.m, "</code></pre>\n");
	close_blocks(&b);
	ac_buf_free(&b.text);
	return b.m.rc ? ac_error_set(AC_ENOMEM, "out of memory") : 0;
}
