/* Fuzz target: a message's Markdown rendered for the HTML export
 * (ac_markdown_html.h). Whatever the input, the output holds only the
 * renderer's own tags, each closed in order, and no attribute but a link's
 * href (http, https, mailto, no quote in it) and rel. */
#include "ac_markdown_html.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const tags[] = {"p", "em", "strong", "code", "pre", "a", "ul", "ol", "li",
				   "blockquote", "h4", "h5", "h6", "hr", NULL};
static const char rel[] = "\" rel=\"noopener noreferrer\">";

/* The index of the tag named at s[0..n), or -1. */
static int tag_of(const char *s, size_t n)
{
	for (int t = 0; tags[t]; t++)
		if (strlen(tags[t]) == n && !memcmp(s, tags[t], n))
			return t;
	return -1;
}

static void check(const char *html, size_t len)
{
	int stack[4096];
	size_t depth = 0;

	for (size_t i = 0; i < len; i++) {
		size_t j, k;
		bool closing;
		int t;

		if (html[i] != '<')
			continue;
		closing = i + 1 < len && html[i + 1] == '/';
		j = i + 1 + closing;
		for (k = j; k < len && ((html[k] >= 'a' && html[k] <= 'z') ||
					(html[k] >= '0' && html[k] <= '9')); k++) {
		}
		if ((t = tag_of(html + j, k - j)) < 0)
			abort();
		if (k < len && html[k] == ' ') {
			const char *href = html + k + 7, *end = memchr(html + k, '>', len - k), *quote;

			if (closing || strcmp(tags[t], "a") || !end || strncmp(html + k, " href=\"", 7) ||
			    (strncasecmp(href, "http://", 7) && strncasecmp(href, "https://", 8) &&
			     strncasecmp(href, "mailto:", 7)))
				abort();
			quote = memchr(href, '"', (size_t)(end - href));
			if (!quote || strncmp(quote, rel, sizeof(rel) - 1) || quote + sizeof(rel) - 2 != end)
				abort();
			k = (size_t)(end - html);
		}
		if (k >= len || html[k] != '>')
			abort();
		if (strcmp(tags[t], "hr")) {
			if (!closing && depth < sizeof(stack) / sizeof(stack[0]))
				stack[depth++] = t;
			else if (!closing || !depth || stack[--depth] != t)
				abort();
		}
		i = k;
	}
	if (depth)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ac_buf out = AC_BUF_INIT;

	if (ac_markdown_html(&out, (const char *)data, size) == 0)
		check(out.data ? out.data : "", out.len);
	ac_buf_free(&out);
	return 0;
}
