/* One block's summary in the journal index: what its valid events hold
 * (time range, agents, statuses, action types, the ids in a Bloom filter
 * per segment), and which of its segments a query's terms can match. Every test mirrors
 * how ac_query.c matches a line, so "cannot match" is exact. */
#include "ac_journal_index.h"

#include "ac_error.h"
#include "ac_json_scan.h"

#include <string.h>

/* The built-in names, in the order of their bits. The bits are part of
 * the index file's format (a new name goes at the end); a name added in
 * config gets AC_JIDX_OTHER. */
static const char *const agent_names[] = {"Claude", "Codex", "Gemini", "Human", "System", NULL};
static const char *const status_names[] = {"SUCCESS", "FAILED", "IN_PROGRESS", NULL};
static const char *const action_names[] = {
	"FILE_CREATE", "FILE_EDIT", "FILE_DELETE", "CMD_RUN", "ANALYSIS", "SESSION_START",
	"SESSION_PAUSE", "SESSION_RESUME", "SESSION_COMPACT", "ROLLBACK", NULL,
};

/* The fields whose values go into the filter, with the tag that keeps
 * their values apart: the trace's correlation id, and the session ids
 * operator events (action.params.sessionId) and other writers'
 * SESSION_START events (action.params.session_id) carry. */
static const struct {
	const char *path;
	char tag;
} keyed[] = {
	{"trace.correlation_id", 'c'},
	{"action.params.sessionId", 's'},
	{"action.params.session_id", 'S'},
};
#define NKEYED (sizeof(keyed) / sizeof(keyed[0]))

uint64_t ac_jidx_schema_hash(const ac_event_schema *schema)
{
	uint64_t h = ac_hash64(1, "agents", 6);

	for (size_t i = 0; schema && i < schema->nextra_agents; i++)
		h = ac_hash64(h, schema->extra_agents[i], strlen(schema->extra_agents[i]) + 1);
	h = ac_hash64(h, "actions", 7);
	for (size_t i = 0; schema && i < schema->nextra_action_types; i++)
		h = ac_hash64(h, schema->extra_action_types[i],
				 strlen(schema->extra_action_types[i]) + 1);
	return h;
}

int ac_jidx_summary_init(ac_jidx_summary *s, const ac_event_schema *schema)
{
	memset(s, 0, sizeof(*s));
	s->schema = schema;
	memcpy(s->path_list, ac_event_paths(), AC_EV_NFIELDS * sizeof(ac_json_path));
	for (size_t i = 1; i < NKEYED; i++)
		if (ac_json_path_init(&s->path_list[AC_EV_NFIELDS + i - 1], keyed[i].path))
			return ac_error_set(AC_EINVAL, "%s: bad path", keyed[i].path);
	return ac_json_paths_prepare(&s->paths, s->path_list, AC_EV_NFIELDS + NKEYED - 1);
}

void ac_jidx_summary_start(ac_jidx_summary *s, uint64_t offset, uint64_t first_line)
{
	memset(&s->e, 0, sizeof(s->e));
	s->e.offset = offset;
	s->e.first_line = first_line;
	s->keys = 0;
	s->end = 0;
	s->have_ts = false;
}

/* True when name (NUL-terminated) is exactly value[0..len): stops at the
 * first difference, so the names of a list that share no first byte with
 * value cost one compare each (every line of a first check asks three
 * lists), and never reads past the name's end. */
static inline bool name_is(const char *name, const char *value, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (name[i] != value[i] || name[i] == '\0')
			return false;
	return name[len] == '\0';
}

static uint32_t bit_of_value(const char *value, size_t len, const char *const *names)
{
	for (uint32_t i = 0; names[i]; i++)
		if (name_is(names[i], value, len))
			return 1u << i;
	return AC_JIDX_OTHER;
}

/* The bit of the name span equals (as ac_query.c's value_equals compares
 * a string), AC_JIDX_OTHER for any other. */
static uint32_t bit_of_span(const ac_json_span *span, const char *const *names)
{
	if (span->type == AC_JSON_STRING && !span->has_escape && span->len >= 2)
		return bit_of_value(span->start + 1, span->len - 2, names);
	for (uint32_t i = 0; names[i]; i++)
		if (ac_json_string_equals(span, names[i], strlen(names[i])))
			return 1u << i;
	return AC_JIDX_OTHER;
}

static void bloom_bits(uint32_t out[AC_JIDX_BLOOM_HASHES], char tag, const char *v, size_t len)
{
	uint64_t h1 = ac_hash64(0x6a09e667f3bcc908ULL ^ (uint64_t)(unsigned char)tag, v, len);
	uint64_t h2 = ac_hash64(0xbb67ae8584caa73bULL ^ (uint64_t)(unsigned char)tag, v, len) | 1;

	for (uint32_t i = 0; i < AC_JIDX_BLOOM_HASHES; i++)
		out[i] = (uint32_t)((h1 + i * h2) % (AC_JIDX_SEGMENT_BLOOM * 8u));
}

/* Puts the value a term key=V compares with into the last segment's
 * filter: the text of an unescaped string, the raw bytes of a literal. An
 * escaped string would need decoding the way the query compares it: the
 * segment gives up id pruning instead (every bit set). */
static void add_key(ac_jidx_summary *s, char tag, const ac_json_span *span)
{
	uint8_t *bloom = s->e.bloom + (s->e.nsegments - 1) * AC_JIDX_SEGMENT_BLOOM;
	uint32_t bits[AC_JIDX_BLOOM_HASHES];
	const char *v = span->start;
	size_t len = span->len;
	bool fresh = false;

	if (span->type == AC_JSON_NONE || span->type == AC_JSON_OBJECT ||
	    span->type == AC_JSON_ARRAY)
		return;
	if (span->type == AC_JSON_STRING) {
		if (span->has_escape) {
			memset(bloom, 0xff, AC_JIDX_SEGMENT_BLOOM);
			return;
		}
		v++;
		len -= 2;
	}
	bloom_bits(bits, tag, v, len);
	for (uint32_t i = 0; i < AC_JIDX_BLOOM_HASHES; i++) {
		uint8_t bit = (uint8_t)(1u << (bits[i] % 8));

		fresh |= !(bloom[bits[i] / 8] & bit);
		bloom[bits[i] / 8] |= bit;
	}
	s->keys += fresh;
}

static bool segment_full(const ac_jidx_summary *s)
{
	return s->end - s->e.segment[s->e.nsegments - 1] >= AC_JIDX_SEGMENT_BYTES ||
	       s->keys >= AC_JIDX_SEGMENT_KEYS;
}

uint64_t ac_jidx_content_hash(const ac_jidx_entry *e, const char *data)
{
	uint64_t h;

	if (e->flags & AC_JIDX_ALWAYS)
		return 0;
	h = ac_hash64(0x636865636bULL, data, (size_t)e->length);
	return h ? h : 1;
}

/* Not an object: what ac_event_parse() refuses beyond the scan and the
 * check, so that a block this calls clean is clean for journal check. */
static bool not_object(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
		i++;
	return i < len && line[i] != '{';
}

void ac_jidx_summary_add(ac_jidx_summary *s, const char *line, size_t len)
{
	const ac_json_span *ts = &s->spans[AC_EV_TIMESTAMP];

	if (s->e.nsegments == 0 || (s->e.nsegments < AC_JIDX_SEGMENTS && segment_full(s))) {
		s->e.segment[s->e.nsegments++] = (uint32_t)s->end;
		s->keys = 0;
	}
	s->end += len + 1;
	s->e.nlines++;
	/* As the scan decides (ac_journal_scan.c): not JSON, or not a valid
	 * event under this schema. Such a line may be shown, so its block is
	 * always read. */
	if (ac_json_scan_prepared(s->spans, line, len, &s->paths, NULL) != 0 ||
	    ac_event_check(s->spans, s->schema) != 0 || ts->len != AC_JIDX_TS_LEN + 2 ||
	    not_object(line, len)) {
		s->e.flags |= AC_JIDX_ALWAYS;
		return;
	}
	if (!s->have_ts || memcmp(ts->start + 1, s->e.min_ts, AC_JIDX_TS_LEN) < 0)
		memcpy(s->e.min_ts, ts->start + 1, AC_JIDX_TS_LEN);
	if (!s->have_ts || memcmp(ts->start + 1, s->e.max_ts, AC_JIDX_TS_LEN) > 0)
		memcpy(s->e.max_ts, ts->start + 1, AC_JIDX_TS_LEN);
	s->have_ts = true;
	s->e.agents |= bit_of_span(&s->spans[AC_EV_AGENT], agent_names);
	s->e.statuses |= bit_of_span(&s->spans[AC_EV_STATUS], status_names);
	s->e.actions |= bit_of_span(&s->spans[AC_EV_ACTION_TYPE], action_names);
	add_key(s, keyed[0].tag, &s->spans[AC_EV_TRACE_CORRELATION_ID]);
	for (size_t i = 1; i < NKEYED; i++)
		add_key(s, keyed[i].tag, &s->spans[AC_EV_NFIELDS + i - 1]);
}

bool ac_jidx_summary_full(const ac_jidx_summary *s)
{
	return s->e.nsegments == AC_JIDX_SEGMENTS && segment_full(s);
}

void ac_jidx_query_init(ac_jidx_query *jq, const ac_query *q)
{
	memset(jq, 0, sizeof(*jq));
	for (size_t i = 0; i < ac_query_count(q); i++) {
		ac_query_term t;

		ac_query_term_get(q, i, &t);
		if (t.kind == AC_QUERY_SINCE && t.value_len == AC_JIDX_TS_LEN) {
			if (!jq->has_since || memcmp(t.value, jq->since, AC_JIDX_TS_LEN) > 0)
				memcpy(jq->since, t.value, AC_JIDX_TS_LEN);
			jq->has_since = jq->prunes = true;
		} else if (t.kind == AC_QUERY_UNTIL && t.value_len == AC_JIDX_TS_LEN) {
			if (!jq->has_until || memcmp(t.value, jq->until, AC_JIDX_TS_LEN) < 0)
				memcpy(jq->until, t.value, AC_JIDX_TS_LEN);
			jq->has_until = jq->prunes = true;
		} else if (t.kind != AC_QUERY_EQ) {
			continue;
		} else if (!strcmp(t.key, "agent")) {
			jq->agents |= bit_of_value(t.value, t.value_len, agent_names);
			jq->prunes = true;
		} else if (!strcmp(t.key, "status")) {
			jq->statuses |= bit_of_value(t.value, t.value_len, status_names);
			jq->prunes = true;
		} else if (!strcmp(t.key, "action.type")) {
			jq->actions |= bit_of_value(t.value, t.value_len, action_names);
			jq->prunes = true;
		} else {
			for (size_t k = 0; k < NKEYED; k++) {
				if (strcmp(t.key, keyed[k].path) || jq->nkeys == AC_JIDX_MAX_KEYS)
					continue;
				jq->keys[jq->nkeys].tag = keyed[k].tag;
				jq->keys[jq->nkeys].value = t.value;
				jq->keys[jq->nkeys].len = t.value_len;
				bloom_bits(jq->keys[jq->nkeys].bits, keyed[k].tag, t.value,
					   t.value_len);
				jq->nkeys++;
				jq->prunes = true;
			}
		}
	}
}

static bool bloom_has(const uint8_t *bloom, const uint32_t bits[AC_JIDX_BLOOM_HASHES])
{
	for (uint32_t i = 0; i < AC_JIDX_BLOOM_HASHES; i++)
		if (!(bloom[bits[i] / 8] & (1u << (bits[i] % 8))))
			return false;
	return true;
}

bool ac_jidx_segments_hold(const ac_jidx_entry *e)
{
	if (e->nsegments < 1 || e->nsegments > AC_JIDX_SEGMENTS || e->segment[0] != 0)
		return false;
	for (uint32_t i = 1; i < e->nsegments; i++)
		if (e->segment[i] <= e->segment[i - 1] || e->segment[i] >= e->length)
			return false;
	return true;
}

uint64_t ac_jidx_segment_start(const ac_jidx_entry *e, uint32_t i)
{
	return e->offset + e->segment[i];
}

uint64_t ac_jidx_segment_end(const ac_jidx_entry *e, uint32_t i)
{
	return i + 1 < e->nsegments ? e->offset + e->segment[i + 1] : e->offset + e->length;
}

uint32_t ac_jidx_may_match(const ac_jidx_entry *e, const ac_jidx_query *jq)
{
	uint32_t n = e->nsegments <= AC_JIDX_SEGMENTS ? e->nsegments : AC_JIDX_SEGMENTS;
	uint32_t all = (1u << n) - 1, may = all;

	if (e->flags & AC_JIDX_ALWAYS)
		return all;
	/* A match has since <= timestamp < until (ac_query.c, as bytes). */
	if (jq->has_since && memcmp(e->max_ts, jq->since, AC_JIDX_TS_LEN) < 0)
		return 0;
	if (jq->has_until && memcmp(e->min_ts, jq->until, AC_JIDX_TS_LEN) >= 0)
		return 0;
	if ((e->agents & jq->agents) != jq->agents || (e->statuses & jq->statuses) != jq->statuses ||
	    (e->actions & jq->actions) != jq->actions)
		return 0;
	for (size_t k = 0; k < jq->nkeys && may; k++)
		for (uint32_t i = 0; i < n; i++)
			if ((may & (1u << i)) &&
			    !bloom_has(e->bloom + i * AC_JIDX_SEGMENT_BLOOM, jq->keys[k].bits))
				may &= ~(1u << i);
	return may;
}
