/* Query terms and their byte prefilter. */
#include "ac_query.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_scan.h"
#include "ac_time.h"

#include <stdint.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
	TERM_EQ,
	TERM_NE,
	TERM_CONTAINS,
	TERM_TEXT,
	TERM_SINCE,
	TERM_UNTIL,
} term_kind;

typedef struct {
	term_kind kind;
	char *key;      /* owned; the path's segments point into it */
	char *value;    /* owned, NUL-terminated */
	size_t value_len;
	char time_iso[AC_TIME_ISO_LEN + 1]; /* since/until, canonical */
	char *needle;   /* owned; the value as JSON escapes it here, or NULL */
	size_t needle_len;
	/* The needle narrows a scan (ac_query_needle()): a matching line holds
	 * it, or an escape the scan's candidate search finds. Not for a value
	 * with a backspace or form feed, written \u0008 and \u000c here and
	 * \b and \f by other writers, which that search does not look for;
	 * nor for text~ of a quote, tab or CR (make_needle()). */
	bool prefilters;
	size_t path_index; /* into the query's paths */
} term;

struct ac_query {
	term *terms;
	size_t nterms;
	ac_json_path paths[AC_JSON_MAX_PATHS];
	size_t npaths;
	const term *prefilter;
	/* For since= with until=: '"' and the start every timestamp in the
	 * range shares, or empty. */
	char time_needle[AC_TIME_ISO_LEN + 2];
	size_t time_needle_len;
	bool show_invalid;
};

static bool is_json_literal(const char *v)
{
	size_t i = 0;

	if (!strcmp(v, "true") || !strcmp(v, "false") || !strcmp(v, "null"))
		return true;
	if (v[i] == '-')
		i++;
	if (v[i] < '0' || v[i] > '9')
		return false;
	return strspn(v + i, "0123456789.eE+-") == strlen(v + i);
}

/* The bytes value takes inside a JSON string as jansson or JSON.stringify
 * write it. Other spellings need a \u or \/ escape, which the scanner's
 * fallback treats as a candidate anyway. */
static int json_escape(ac_buf *out, const char *value, size_t len)
{
	int rc = 0;

	for (size_t i = 0; i < len && rc == 0; i++) {
		unsigned char c = (unsigned char)value[i];

		if (c == '"' || c == '\\')
			rc = ac_buf_putc(out, '\\') || ac_buf_putc(out, (char)c);
		else if (c == '\n')
			rc = ac_buf_append(out, "\\n", 2);
		else if (c == '\t')
			rc = ac_buf_append(out, "\\t", 2);
		else if (c == '\r')
			rc = ac_buf_append(out, "\\r", 2);
		else if (c < 0x20)
			rc = ac_buf_printf(out, "\\u%04x", c);
		else
			rc = ac_buf_putc(out, (char)c);
	}
	return rc ? AC_ENOMEM : 0;
}

static int make_needle(term *t)
{
	ac_buf needle = AC_BUF_INIT;
	int rc = 0;

	if (t->kind == TERM_NE || t->kind == TERM_SINCE || t->kind == TERM_UNTIL ||
	    t->value_len == 0)
		return 0;
	if (t->kind == TERM_EQ && is_json_literal(t->value))
		rc = ac_buf_append(&needle, t->value, t->value_len);
	else if (t->kind == TERM_EQ)
		rc = ac_buf_putc(&needle, '"') || json_escape(&needle, t->value, t->value_len) ||
		     ac_buf_putc(&needle, '"');
	else
		rc = json_escape(&needle, t->value, t->value_len);
	if (rc) {
		ac_buf_free(&needle);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	t->needle_len = needle.len;
	t->needle = ac_buf_detach(&needle);
	t->prefilters = !memchr(t->value, '\b', t->value_len) &&
			!memchr(t->value, '\f', t->value_len);
	/* text~ decodes the whole line, whose quotes and whitespace between
	 * tokens are raw: a quote, tab or CR of the value may be one of those,
	 * which the escaped needle does not spell. */
	if (t->kind == TERM_TEXT && t->value_len &&
	    strcspn(t->value, "\"\t\r") < t->value_len)
		t->prefilters = false;
	return 0;
}

static int bad_term(const char *text, const char *why)
{
	return ac_error_set(AC_EINVAL, "bad term '%s': %s", text, why);
}

static int parse_term(term *t, const char *text)
{
	size_t key_len = strcspn(text, "=!~");
	const char *op = text + key_len, *value;
	int64_t ms;

	if (key_len == 0 || *op == '\0')
		return bad_term(text, "expected FIELD=VALUE, FIELD!=VALUE, FIELD~TEXT, "
				      "since=TIME, until=TIME or text~TEXT");
	if ((op[0] == '=' || op[0] == '~') && (op[1] == '=' || op[1] == '~'))
		return bad_term(text, "one operator only: '=', '!=' or '~'");
	if (op[0] == '!' && op[1] == '=') {
		t->kind = TERM_NE;
		value = op + 2;
	} else if (op[0] == '=') {
		t->kind = TERM_EQ;
		value = op + 1;
	} else if (op[0] == '~') {
		t->kind = TERM_CONTAINS;
		value = op + 1;
	} else {
		return bad_term(text, "expected '=', '!=' or '~' after the field");
	}
	t->key = strndup(text, key_len);
	t->value = strdup(value);
	if (!t->key || !t->value)
		return ac_error_set(AC_ENOMEM, "out of memory");
	t->value_len = strlen(value);
	if (!strcmp(t->key, "text")) {
		if (t->kind != TERM_CONTAINS)
			return bad_term(text, "use text~TEXT");
		t->kind = TERM_TEXT;
	} else if (!strcmp(t->key, "since") || !strcmp(t->key, "until")) {
		if (t->kind != TERM_EQ)
			return bad_term(text, "use since=TIME or until=TIME");
		if (ac_time_parse(&ms, value) != 0)
			return bad_term(text, "expected a time like 2025-09-03T14:25:10Z");
		t->kind = t->key[0] == 's' ? TERM_SINCE : TERM_UNTIL;
		ac_time_format_iso(t->time_iso, ms);
	}
	return make_needle(t);
}

/* A valid event's timestamp is written raw, AC_TIME_ISO_LEN bytes, and is
 * compared as bytes; any timestamp t with since <= t < until therefore
 * starts with the bytes since and until share. Worth a needle only when
 * they share at least the month: "2025-09-". */
static void make_time_needle(ac_query *q)
{
	const char *since = NULL, *until = NULL;
	size_t shared = 0;

	for (size_t i = 0; i < q->nterms; i++) {
		const term *t = &q->terms[i];

		if (t->kind == TERM_SINCE && (!since || strcmp(t->time_iso, since) > 0))
			since = t->time_iso;
		if (t->kind == TERM_UNTIL && (!until || strcmp(t->time_iso, until) < 0))
			until = t->time_iso;
	}
	if (!since || !until)
		return;
	while (shared < AC_TIME_ISO_LEN && since[shared] == until[shared])
		shared++;
	if (shared < 8)
		return;
	q->time_needle[0] = '"';
	memcpy(q->time_needle + 1, since, shared);
	q->time_needle_len = shared + 1;
}

int ac_query_parse(ac_query **out, const char *const *terms, size_t nterms)
{
	ac_query *q = calloc(1, sizeof(*q));
	int rc = 0;

	if (!q || (nterms && !(q->terms = calloc(nterms, sizeof(*q->terms))))) {
		free(q);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	memcpy(q->paths, ac_event_paths(), AC_EV_NFIELDS * sizeof(ac_json_path));
	q->npaths = AC_EV_NFIELDS;
	for (size_t i = 0; i < nterms; i++) {
		term *t = &q->terms[i];

		q->nterms++;
		if ((rc = parse_term(t, terms[i])))
			goto fail;
		if (t->kind == TERM_EQ || t->kind == TERM_NE || t->kind == TERM_CONTAINS) {
			if (q->npaths == AC_JSON_MAX_PATHS) {
				rc = bad_term(terms[i], "too many terms");
				goto fail;
			}
			if (ac_json_path_init(&q->paths[q->npaths], t->key) != 0) {
				rc = bad_term(terms[i], "the field must be a dotted path like "
							"action.params.path");
				goto fail;
			}
			t->path_index = q->npaths++;
		}
		/* The longest needle is the rarest, as a rule. */
		if (t->prefilters && (!q->prefilter || t->needle_len > q->prefilter->needle_len))
			q->prefilter = t;
	}
	make_time_needle(q);
	*out = q;
	return 0;
fail:
	ac_query_free(q);
	return rc;
}

/* Cuts text at unquoted spaces and tabs into words, double quotes dropped,
 * onto the end of *words (each allocated). */
static int split_words(char ***words, size_t *nwords, size_t *allocated, const char *text)
{
	const char *p = text;

	for (;;) {
		ac_buf word = AC_BUF_INIT;
		bool quoted = false;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return 0;
		for (; *p && (quoted || (*p != ' ' && *p != '\t')); p++) {
			if (*p == '"') {
				quoted = !quoted;
			} else if (ac_buf_putc(&word, *p)) {
				ac_buf_free(&word);
				return ac_error_set(AC_ENOMEM, "out of memory");
			}
		}
		if (quoted) {
			ac_buf_free(&word);
			return ac_error_set(AC_EINVAL, "bad term in '%s': a '\"' is not closed", text);
		}
		if (*nwords == *allocated) {
			size_t grown = *allocated ? *allocated * 2 : 8;
			char **more = realloc(*words, grown * sizeof(*more));

			if (!more) {
				ac_buf_free(&word);
				return ac_error_set(AC_ENOMEM, "out of memory");
			}
			*words = more;
			*allocated = grown;
		}
		/* "" is a word too: an empty term, which parse_term rejects. */
		if (!((*words)[*nwords] = word.data ? ac_buf_detach(&word) : strdup("")))
			return ac_error_set(AC_ENOMEM, "out of memory");
		(*nwords)++;
	}
}

/* True for one FIELD~TEXT term whose text has spaces, written as one
 * argument without quotes ("text~disk full"): free text, kept whole, as a
 * one-term-per-argument caller means it. It is so when the argument starts
 * with FIELD~ and some later word is no term at all (has no '=' or '~');
 * "agent=Codex statusSUCCESS" starts with '=' and is still refused. */
static bool is_free_text_term(const char *text)
{
	const char *p = text, *word;
	size_t field = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	while (p[field] && (isalnum((unsigned char)p[field]) || strchr("._-", p[field])))
		field++;
	if (!field || p[field] != '~' || strchr(p, '"'))
		return false;
	for (word = strpbrk(p, " \t"); word; word = strpbrk(word, " \t")) {
		size_t len;

		word += strspn(word, " \t");
		len = strcspn(word, " \t");
		if (len && !memchr(word, '=', len) && !memchr(word, '~', len))
			return true;
		word += len;
	}
	return false;
}

/* Appends text, trimmed of spaces and tabs at both ends, as one word. */
static int push_whole(char ***words, size_t *nwords, size_t *allocated, const char *text)
{
	size_t start = strspn(text, " \t"), end = strlen(text);

	while (end > start && (text[end - 1] == ' ' || text[end - 1] == '\t'))
		end--;
	if (*nwords == *allocated) {
		size_t grown = *allocated ? *allocated * 2 : 8;
		char **more = realloc(*words, grown * sizeof(*more));

		if (!more)
			return ac_error_set(AC_ENOMEM, "out of memory");
		*words = more;
		*allocated = grown;
	}
	if (!((*words)[*nwords] = strndup(text + start, end - start)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	(*nwords)++;
	return 0;
}

int ac_query_parse_strings(ac_query **out, const char *const *strings, size_t nstrings)
{
	char **words = NULL;
	size_t nwords = 0, allocated = 0;
	int rc = 0;

	for (size_t i = 0; i < nstrings && rc == 0; i++) {
		size_t before = nwords;

		rc = is_free_text_term(strings[i])
			     ? push_whole(&words, &nwords, &allocated, strings[i])
			     : split_words(&words, &nwords, &allocated, strings[i]);
		if (rc == 0 && nwords == before)
			rc = ac_error_set(AC_EINVAL, "bad term '%s': expected FIELD=VALUE, "
						     "FIELD!=VALUE or FIELD~TEXT", strings[i]);
	}
	if (rc == 0)
		rc = ac_query_parse(out, (const char *const *)words, nwords);
	for (size_t i = 0; i < nwords; i++)
		free(words[i]);
	free(words);
	return rc;
}

void ac_query_free(ac_query *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->nterms; i++) {
		free(q->terms[i].key);
		free(q->terms[i].value);
		free(q->terms[i].needle);
	}
	free(q->terms);
	free(q);
}

const ac_json_path *ac_query_paths(const ac_query *q, size_t *out_n)
{
	*out_n = q->npaths;
	return q->paths;
}

const char *ac_query_needle(const ac_query *q, size_t *out_len)
{
	if (q->time_needle_len &&
	    (!q->prefilter || q->time_needle_len > q->prefilter->needle_len)) {
		*out_len = q->time_needle_len;
		return q->time_needle;
	}
	if (!q->prefilter)
		return NULL;
	*out_len = q->prefilter->needle_len;
	return q->prefilter->needle;
}

static bool value_equals(const ac_json_span *span, const term *t)
{
	switch (span->type) {
	case AC_JSON_STRING:
		return ac_json_string_equals(span, t->value, t->value_len);
	case AC_JSON_NUMBER:
	case AC_JSON_TRUE:
	case AC_JSON_FALSE:
	case AC_JSON_NULL:
		return span->len == t->value_len && !memcmp(span->start, t->value, span->len);
	default:
		return false;
	}
}

/* Searches the decoded text of a JSON string span (or, for text~, of the
 * whole line wrapped as one) for the term's value. */
static bool decoded_contains(const char *raw, size_t raw_len, bool has_escape,
			     const term *t)
{
	char stack_buf[4096], *decoded = stack_buf;
	ac_json_span span = {.type = AC_JSON_STRING, .start = raw, .len = raw_len,
			     .has_escape = has_escape};
	size_t decoded_len;
	bool found;

	if (!has_escape)
		return memmem(raw + 1, raw_len - 2, t->value, t->value_len) != NULL;
	if (raw_len > sizeof(stack_buf) && !(decoded = malloc(raw_len)))
		return false;
	ac_json_string_decode(decoded, &decoded_len, &span);
	found = memmem(decoded, decoded_len, t->value, t->value_len) != NULL;
	if (decoded != stack_buf)
		free(decoded);
	return found;
}

static bool line_contains(const char *line, size_t len, const term *t)
{
	char *wrapped;
	bool found;

	if (t->needle && memmem(line, len, t->needle, t->needle_len))
		return true;
	if (!t->needle)
		return true; /* an empty text matches everything */
	if (!memchr(line, '\\', len))
		return false;
	/* Escapes hide the text from the raw search: decode everything, keys
	 * and all, as if the line were one JSON string. */
	if (!(wrapped = malloc(len + 2)))
		return false;
	wrapped[0] = '"';
	memcpy(wrapped + 1, line, len);
	wrapped[len + 1] = '"';
	found = decoded_contains(wrapped, len + 2, true, t);
	free(wrapped);
	return found;
}

static bool term_matches(const term *t, const char *line, size_t len,
			 const ac_json_span *spans)
{
	const ac_json_span *ts = &spans[AC_EV_TIMESTAMP];

	switch (t->kind) {
	case TERM_EQ:
		return value_equals(&spans[t->path_index], t);
	case TERM_NE:
		return !value_equals(&spans[t->path_index], t);
	case TERM_CONTAINS:
		return spans[t->path_index].type == AC_JSON_STRING &&
		       decoded_contains(spans[t->path_index].start, spans[t->path_index].len,
					spans[t->path_index].has_escape, t);
	case TERM_TEXT:
		return line_contains(line, len, t);
	case TERM_SINCE:
		return memcmp(ts->start + 1, t->time_iso, AC_TIME_ISO_LEN) >= 0;
	case TERM_UNTIL:
		return memcmp(ts->start + 1, t->time_iso, AC_TIME_ISO_LEN) < 0;
	}
	return false;
}

size_t ac_query_count(const ac_query *q)
{
	return q->nterms;
}

void ac_query_term_get(const ac_query *q, size_t i, ac_query_term *out)
{
	static const ac_query_kind kinds[] = {
		[TERM_EQ] = AC_QUERY_EQ,       [TERM_NE] = AC_QUERY_NE,
		[TERM_CONTAINS] = AC_QUERY_CONTAINS, [TERM_TEXT] = AC_QUERY_TEXT,
		[TERM_SINCE] = AC_QUERY_SINCE, [TERM_UNTIL] = AC_QUERY_UNTIL,
	};
	const term *t = &q->terms[i];
	bool timed = t->kind == TERM_SINCE || t->kind == TERM_UNTIL;

	out->kind = kinds[t->kind];
	out->key = t->key;
	out->value = timed ? t->time_iso : t->value;
	out->value_len = timed ? AC_TIME_ISO_LEN : t->value_len;
	out->literal = (t->kind == TERM_EQ || t->kind == TERM_NE) && is_json_literal(t->value);
}

bool ac_query_matches(const ac_query *q, const char *line, size_t len,
		      const ac_json_span *spans)
{
	for (size_t i = 0; i < q->nterms; i++)
		if (!term_matches(&q->terms[i], line, len, spans))
			return false;
	return true;
}

void ac_query_show_invalid(ac_query *q, bool on)
{
	q->show_invalid = on;
}

bool ac_query_shows_invalid(const ac_query *q)
{
	return q->show_invalid;
}

/* A term on a record outside the schema: only the fields it has count. */
static bool invalid_term_matches(const term *t, const char *line, size_t len,
				 const ac_json_span *spans)
{
	const ac_json_span *ts;

	if (t->kind == TERM_TEXT)
		return line_contains(line, len, t);
	if (!spans)
		return false;
	if (t->kind == TERM_SINCE || t->kind == TERM_UNTIL) {
		ts = &spans[AC_EV_TIMESTAMP];
		if (ts->type != AC_JSON_STRING || ts->has_escape ||
		    !ac_time_is_iso(ts->start + 1, ts->len - 2))
			return false;
	} else if (spans[t->path_index].type == AC_JSON_NONE) {
		return false;
	}
	return term_matches(t, line, len, spans);
}

bool ac_query_matches_invalid(const ac_query *q, const char *line, size_t len,
			      const ac_json_span *spans)
{
	for (size_t i = 0; i < q->nterms; i++)
		if (!invalid_term_matches(&q->terms[i], line, len, spans))
			return false;
	return true;
}
