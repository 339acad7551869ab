/* The Markdown-to-HTML renderer of the HTML export (ac_markdown_html.h):
 * what it renders, and hostile text kept text: raw HTML, event handler
 * attributes, javascript: and data: links, quotes that would leave an
 * attribute, unterminated fences and marks, deep nesting, and 1 MB lines
 * of delimiters rendered in linear time. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ac_markdown_html.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static char *render(const char *md)
{
	ac_buf out = AC_BUF_INIT;

	assert_int_equal(ac_markdown_html(&out, md, strlen(md)), 0);
	return out.data ? out.data : strdup("");
}

static void assert_renders(const char *md, const char *html)
{
	char *got = render(md);

	if (strcmp(got, html)) {
		fprintf(stderr, "markdown: %s\nexpected: %s\ngot:      %s\n", md, html, got);
		free(got);
		fail();
	}
	free(got);
}

/* The output's tags: only the renderer's own, each opened one closed in
 * order, and no attribute but a link's href (http, https, mailto) and
 * rel. */
static void assert_closed(const char *html, size_t len)
{
	static const char *const allowed[] = {"p", "em", "strong", "code", "pre", "a", "ul", "ol",
					      "li", "blockquote", "h4", "h5", "h6", "hr", NULL};
	const char *stack[64];
	size_t depth = 0;

	for (size_t i = 0; i < len; i++) {
		size_t j = i + 1, k;
		bool closing;
		const char *name;

		if (html[i] != '<')
			continue;
		closing = j < len && html[j] == '/';
		j += closing;
		for (k = j; k < len && ((html[k] >= 'a' && html[k] <= 'z') || (html[k] >= '0' && html[k] <= '9')); k++) {
		}
		name = NULL;
		for (size_t a = 0; allowed[a]; a++)
			if (k - j == strlen(allowed[a]) && !strncmp(html + j, allowed[a], k - j))
				name = allowed[a];
		if (!name)
			fail_msg("unknown tag at %zu: %.20s", i, html + i);
		if (k < len && html[k] == ' ') {
			static const char rel[] = "\" rel=\"noopener noreferrer\">";
			const char *end = memchr(html + k, '>', len - k);
			const char *href = html + k + 7, *quote;

			assert_false(closing);
			assert_string_equal(name, "a");
			assert_non_null(end);
			assert_true(!strncmp(html + k, " href=\"http://", 14) ||
				    !strncmp(html + k, " href=\"https://", 15) ||
				    !strncmp(html + k, " href=\"mailto:", 14));
			/* The address holds no quote: nothing leaves the attribute. */
			quote = memchr(href, '"', (size_t)(end - href));
			assert_non_null(quote);
			assert_int_equal(strncmp(quote, rel, sizeof(rel) - 1), 0);
			assert_ptr_equal(quote + sizeof(rel) - 2, end);
			k = (size_t)(end - html);
		}
		assert_int_equal(html[k], '>');
		if (!strcmp(name, "hr"))
			continue;
		if (!closing) {
			assert_true(depth < 64);
			stack[depth++] = name;
		} else {
			assert_true(depth > 0);
			assert_string_equal(stack[--depth], name);
		}
		i = k;
	}
	assert_int_equal(depth, 0);
}

static void assert_safe(const char *md)
{
	char *got = render(md);

	assert_closed(got, strlen(got));
	assert_null(strcasestr(got, "<script"));
	assert_null(strcasestr(got, "javascript:\""));
	assert_null(strcasestr(got, "href=\"javascript"));
	assert_null(strcasestr(got, "href=\"data"));
	assert_null(strcasestr(got, "<img"));
	free(got);
}

static void test_blocks(void **state)
{
	(void)state;
	assert_renders("hello *world*", "<p>hello <em>world</em></p>\n");
	assert_renders("# Title\n\ntext", "<h4>Title</h4>\n<p>text</p>\n");
	assert_renders("### deep ###\n###### deepest", "<h6>deep</h6>\n<h6>deepest</h6>\n");
	assert_renders("#not a heading", "<p>#not a heading</p>\n");
	assert_renders("- one\n- two **bold**\n\n1. first\n2) second",
		       "<ul>\n<li>one</li>\n<li>two <strong>bold</strong></li>\n</ul>\n"
		       "<ol>\n<li>first</li>\n<li>second</li>\n</ol>\n");
	assert_renders("para\n- item\ncontinued", "<p>para</p>\n<ul>\n<li>item\ncontinued</li>\n</ul>\n");
	assert_renders("> quoted\n> more\nafter", "<blockquote>\n<p>quoted\nmore</p>\n</blockquote>\n<p>after</p>\n");
	assert_renders("a\n\n---\n\nb", "<p>a</p>\n<hr>\n<p>b</p>\n");
	assert_renders("```c\nint *p = &x; // <b>\n```\nafter",
		       "<pre><code>int *p = &amp;x; // &lt;b&gt;\n</code></pre>\n<p>after</p>\n");
	assert_renders("~~~~\n```\nstill code\n~~~~", "<pre><code>```\nstill code\n</code></pre>\n");
}

static void test_inlines(void **state)
{
	(void)state;
	assert_renders("`a <b> c` and ``x ` y``",
		       "<p><code>a &lt;b&gt; c</code> and <code>x ` y</code></p>\n");
	assert_renders("**bold _and em_** ***both***",
		       "<p><strong>bold <em>and em</em></strong> <strong><em>both</em></strong></p>\n");
	assert_renders("snake_case_name and 2 * 3 * 4", "<p>snake_case_name and 2 * 3 * 4</p>\n");
	assert_renders("\\*not em\\* \\<b>", "<p>*not em* &lt;b&gt;</p>\n");
	assert_renders("[site](https://example.com/a?b=1&c=2) <http://x.org/p>",
		       "<p><a href=\"https://example.com/a?b=1&amp;c=2\" rel=\"noopener noreferrer\">site</a> "
		       "<a href=\"http://x.org/p\" rel=\"noopener noreferrer\">http://x.org/p</a></p>\n");
	assert_renders("[mail](mailto:a@b.c) [*em* link](HTTPS://E.COM)",
		       "<p><a href=\"mailto:a@b.c\" rel=\"noopener noreferrer\">mail</a> "
		       "<a href=\"HTTPS://E.COM\" rel=\"noopener noreferrer\"><em>em</em> link</a></p>\n");
	assert_renders("`unclosed *em and [link(", "<p>`unclosed *em and [link(</p>\n");
}

/* Everything a hostile message could try stays text. */
static void test_hostile(void **state)
{
	static const char *const inputs[] = {
		"<script>alert(1)</script>",
		"<img src=x onerror=alert(1)>",
		"[x](javascript:alert(1)) [y](JaVaScRiPt:alert(1)) [z](data:text/html,<script>)",
		"[x](vbscript:msgbox) [x]( javascript:alert(1)) <javascript:alert(1)>",
		"[q](https://a.b/\"onmouseover=\"alert(1)) [q](https://a.b/'x)",
		"[t](http://a.b/ \"title\" onclick=x)",
		"<a href=\"javascript:x\">y</a> <http://a.b\" onerror=\"x>",
		"[[x](http://a.b)](http://c.d) [a [b](http://e.f) c](http://g.h)",
		"![img](http://a.b/x.png) ![i](javascript:x)",
		"```\nunterminated <script>\n",
		"~~~\n</code></pre><script>x</script>",
		"> <script>\n- <b>\n# <i>\n1. </li></ul><script>",
		"**__**__*_*_***___",
		"* * *\n- - -\n***bold***text***",
		"`` ` `` `` ``` ` ```` ` ``",
		"a\0b <\0script>",
		"\\",
		"[",
		"](",
		"<",
		"&lt;script&gt; &#x3C;script&#x3E;",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++)
		assert_safe(inputs[i]);
	assert_renders("<img src=x onerror=alert(1)>",
		       "<p>&lt;img src=x onerror=alert(1)&gt;</p>\n");
	assert_renders("[x](javascript:alert(1))", "<p>[x](javascript:alert(1))</p>\n");
	assert_renders("[q](https://a.b/\"x)", "<p>[q](https://a.b/&quot;x)</p>\n");
	assert_renders("```\nopen", "<pre><code>open\n</code></pre>\n");
	assert_renders("&amp;", "<p>&amp;amp;</p>\n");
	{
		/* A NUL byte is shown, never cuts the text. */
		ac_buf out = AC_BUF_INIT;

		assert_int_equal(ac_markdown_html(&out, "a\0b", 3), 0);
		assert_string_equal(out.data, "<p>a&#xFFFD;b</p>\n");
		ac_buf_free(&out);
	}
	{
		/* Nesting deeper than the bound stays text, closed. */
		char deep[200] = "";

		for (int i = 0; i < 20; i++)
			strcat(deep, i % 2 ? "_" : "*");
		strcat(deep, "x");
		for (int i = 19; i >= 0; i--)
			strcat(deep, i % 2 ? "_" : "*");
		assert_safe(deep);
	}
}

/* 1 MB lines of each delimiter, and of pairs that would make a naive
 * search quadratic, render in linear time (a quadratic pass would take
 * minutes; the bound leaves room for a loaded sanitizer build). */
static void test_huge_lines(void **state)
{
	static const char *const units[] = {"*", "_", "`", "[", "<", "*a ", "[a", "[](", "`a",
					    "**a", "<http://a", "[a](http://", "> ", "# ", "- "};
	size_t n = 1 << 20;
	char *text = malloc(n + 1);

	(void)state;
	assert_non_null(text);
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		size_t k = strlen(units[u]);
		ac_buf out = AC_BUF_INIT;
		clock_t t0;
		double secs;

		for (size_t i = 0; i < n; i++)
			text[i] = units[u][i % k];
		text[n] = '\0';
		t0 = clock();
		assert_int_equal(ac_markdown_html(&out, text, n), 0);
		secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
		if (secs > 5.0) /* quadratic would take minutes */
			fail_msg("'%s' x %zu took %.2f s", units[u], n / k, secs);
		assert_closed(out.data, out.len);
		ac_buf_free(&out);
	}
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_inlines),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_huge_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
