/* Line diffs for review (ac_linediff.h): a longest common subsequence over
 * the lines, which for files of a few hundred lines is instant. */
#include "ac_linediff.h"

#include "ac_error.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *s;
	size_t len;
} line;

/* Splits text into lines (without their '\n'); *out freed by the caller. */
static int split(line **out, size_t *n, const char *text, size_t len)
{
	size_t count = 0, i = 0;
	line *lines;

	for (size_t k = 0; k < len; k++)
		count += text[k] == '\n';
	count += len > 0 && text[len - 1] != '\n';
	*n = 0;
	if (!(lines = calloc(count ? count : 1, sizeof(*lines))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t start = 0; start < len;) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;

		lines[i++] = (line){text + start, end - start};
		start = end + 1;
	}
	*out = lines;
	*n = i;
	return 0;
}

static bool same(const line *a, const line *b)
{
	return a->len == b->len && !memcmp(a->s, b->s, a->len);
}

typedef enum { KEEP, DEL, ADD } op_kind;

typedef struct {
	op_kind kind;
	size_t ai, bi; /* the line's index in a (KEEP, DEL) and b (KEEP, ADD) */
} op;

/* The edit script from a to b, in order, into *out (*n ops). */
static int script(op **out, size_t *n, const line *a, size_t na, const line *b, size_t nb)
{
	uint32_t *len = NULL; /* len[i][j]: LCS of a[i..] and b[j..] */
	op *ops = NULL;
	size_t k = 0, i = 0, j = 0, w = nb + 1;
	bool whole = na > AC_LINEDIFF_MAX || nb > AC_LINEDIFF_MAX;

	*out = NULL;
	*n = 0;
	if (!(ops = malloc((na + nb + 1) * sizeof(*ops))) ||
	    (!whole && !(len = calloc((na + 1) * w, sizeof(*len))))) {
		free(ops);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	for (size_t x = whole ? 0 : na; !whole && x-- > 0;)
		for (size_t y = nb; y-- > 0;)
			len[x * w + y] = same(&a[x], &b[y]) ? len[(x + 1) * w + y + 1] + 1
				: len[(x + 1) * w + y] > len[x * w + y + 1] ? len[(x + 1) * w + y]
									     : len[x * w + y + 1];
	while (i < na || j < nb) {
		if (!whole && i < na && j < nb && same(&a[i], &b[j]))
			ops[k++] = (op){KEEP, i++, j++};
		else if (i < na && (whole || j == nb || len[(i + 1) * w + j] >= len[i * w + j + 1]))
			ops[k++] = (op){DEL, i++, j};
		else
			ops[k++] = (op){ADD, i, j++};
	}
	free(len);
	*out = ops;
	*n = k;
	return 0;
}

static void put(ac_buf *out, char mark, const line *l)
{
	ac_buf_putc(out, mark);
	ac_buf_append(out, l->s, l->len);
	ac_buf_putc(out, '\n');
}

int ac_linediff(ac_buf *out, const char *a, size_t alen, const char *b, size_t blen, int context,
		size_t *added, size_t *removed)
{
	line *la = NULL, *lb = NULL;
	op *ops = NULL;
	size_t na = 0, nb = 0, n = 0, adds = 0, dels = 0, shown_to = 0;
	size_t ctx = context > 0 ? (size_t)context : 0;
	int rc;

	if ((rc = split(&la, &na, a, alen)) || (rc = split(&lb, &nb, b, blen)) ||
	    (rc = script(&ops, &n, la, na, lb, nb)))
		goto done;
	for (size_t k = 0; k < n;) {
		size_t first, last, stop;

		if (ops[k].kind == KEEP) {
			k++;
			continue;
		}
		/* A group: this change, and every later one whose context
		 * touches it. */
		first = k > ctx ? k - ctx : 0;
		if (first < shown_to)
			first = shown_to;
		last = k;
		for (size_t q = k; q < n && q <= last + 2 * ctx + 1; q++)
			if (ops[q].kind != KEEP)
				last = q;
		stop = last + ctx + 1 < n ? last + ctx + 1 : n;
		ac_buf_printf(out, "@@ -%zu +%zu @@\n", ops[first].ai + 1, ops[first].bi + 1);
		for (size_t q = first; q < stop; q++) {
			if (ops[q].kind == KEEP)
				put(out, ' ', &la[ops[q].ai]);
			else if (ops[q].kind == DEL)
				put(out, '-', &la[ops[q].ai]), dels++;
			else
				put(out, '+', &lb[ops[q].bi]), adds++;
		}
		shown_to = k = stop;
	}
	if (!out->data && (adds || dels))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	if (added)
		*added = adds;
	if (removed)
		*removed = dels;
	free(la);
	free(lb);
	free(ops);
	return rc;
}
