/* The format-drift canary (ac_source.h): what a source's folders held
 * that its reader did not take, told by name pattern ("session-*.jsonl")
 * and by record type, so that a tool's next format change shows up the
 * day it ships instead of as silence. */
#include "ac_source_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_text.h"

#include <stdlib.h>
#include <string.h>

/* Kept per source and kind of drift; the rest is counted as "other". */
#define TALLY_NAMES 16
#define PATTERN_MAX 64

/* Extensions a tool's transcript has (compressed or not): a file with
 * one that a walk did not take is a transcript of a format not read. */
static const char *const transcript_ext[] = {".jsonl", ".json", ".ndjson"};
static const char *const compressed_ext[] = {"", ".zst", ".gz"};

static bool transcript_like(const char *ext)
{
	for (size_t i = 0; i < sizeof(transcript_ext) / sizeof(*transcript_ext); i++) {
		size_t n = strlen(transcript_ext[i]);

		if (strncmp(ext, transcript_ext[i], n))
			continue;
		for (size_t k = 0; k < sizeof(compressed_ext) / sizeof(*compressed_ext); k++)
			if (!strcmp(ext + n, compressed_ext[k]))
				return true;
	}
	return false;
}

bool ac_source_canary_pattern(ac_buf *out, const char *name)
{
	const char *ext = strchr(name, '.'), *stem_end;
	size_t lead = 0;

	/* The extension, from the first dot, is a transcript's whole: a
	 * side file such as "agent-1.meta.json" is not a transcript. */
	if (name[0] == '.' || !ext || !transcript_like(ext))
		return false;
	/* The fixed part of the name: its leading letters and the separator
	 * after them ("session-", "rollout-"); the rest varies (ids, times). */
	while (&name[lead] < ext && ((name[lead] >= 'a' && name[lead] <= 'z') ||
				     (name[lead] >= 'A' && name[lead] <= 'Z')))
		lead++;
	stem_end = &name[lead];
	if (stem_end < ext && (*stem_end == '-' || *stem_end == '_'))
		stem_end++;
	ac_buf_clear(out);
	if (stem_end == ext || lead > PATTERN_MAX || strlen(ext) > PATTERN_MAX) {
		/* Nothing varies ("logs.json"), or too long to be a pattern. */
		if (strlen(name) > PATTERN_MAX)
			return ac_buf_printf(out, "*%s", ext) == 0;
		return ac_text_sanitize(out, name, strlen(name)) == 0;
	}
	return ac_buf_append(out, name, (size_t)(stem_end - name)) == 0 &&
	       ac_buf_putc(out, '*') == 0 && ac_text_sanitize(out, ext, strlen(ext)) == 0;
}

int ac_source_tally_add(ac_source_tally *t, const char *what, size_t count)
{
	ac_buf safe = AC_BUF_INIT;

	if (!count)
		return 0;
	/* The names are the files' bytes: stored escaped, shown as they are. */
	if (ac_text_sanitize(&safe, what, strlen(what)) || !safe.data) {
		ac_buf_free(&safe);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->items[i].name, safe.data)) {
			t->items[i].count += count;
			ac_buf_free(&safe);
			return 0;
		}
	if (t->n == TALLY_NAMES) {
		t->other += count;
		ac_buf_free(&safe);
		return 0;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4;
		ac_source_tally_item *grown = realloc(t->items, cap * sizeof(*grown));

		if (!grown) {
			ac_buf_free(&safe);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		t->items = grown;
		t->cap = cap;
	}
	t->items[t->n++] = (ac_source_tally_item){ac_buf_detach(&safe), count};
	return 0;
}

void ac_source_tally_clear(ac_source_tally *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->items[i].name);
	t->n = 0;
	t->other = 0;
}

void ac_source_tally_free(ac_source_tally *t)
{
	ac_source_tally_clear(t);
	free(t->items);
	t->items = NULL;
	t->cap = 0;
}

int ac_source_drift_describe(ac_buf *out, ac_source_kind kind, const ac_source_drift *d)
{
	const ac_source_tally *t[2] = {&d->files, &d->types};
	bool first = true;
	int rc = 0;

	for (int w = 0; w < 2 && rc == 0; w++) {
		for (size_t i = 0; i <= t[w]->n && rc == 0; i++) {
			size_t count = i < t[w]->n ? t[w]->items[i].count : t[w]->other;
			const char *name = i < t[w]->n ? t[w]->items[i].name : NULL;

			if (!count)
				continue;
			rc = ac_buf_printf(out, "%s%s: %zu ", first ? "" : "; ", ac_source_key(kind),
					   count);
			if (rc == 0 && w == 0)
				rc = name ? ac_buf_printf(out, "%s not read", name)
					  : ac_buf_printf(out, "files of other names not read");
			else if (rc == 0)
				rc = name ? ac_buf_printf(out, "record%s of type %s skipped",
							  count == 1 ? "" : "s", name)
					  : ac_buf_printf(out, "record%s of other types skipped",
							  count == 1 ? "" : "s");
			first = false;
		}
	}
	return rc ? ac_error_set(AC_ENOMEM, "out of memory") : 0;
}
