/* Per-turn usage rows of the file store (see ac_turn_usage.h for where they
 * live and why). Appends hold flock(2) on the rows file while they read the
 * last turn number and write, so two agentctl writers never hand out the
 * same number; readers take no lock and skip what does not parse. */
#include "ac_turn_usage_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_json_exact.h"
#include "ac_session.h"
#include "ac_time.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const ac_turn_usage_counts[] = {
	"inputTokens",     "outputTokens", "cacheCreationInputTokens", "cacheReadInputTokens",
	"reasoningTokens", "totalTokens",  NULL,
};


/* US dollars one turn may cost, far past any real one; rows are few
 * enough that their sum stays finite. */
#define TURN_COST_MAX 1e9

static bool is_count_value(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0 &&
	       (uint64_t)json_integer_value(v) <= AC_SESSION_COUNT_MAX;
}

int ac_turn_usage_check(const json_t *usage, const char *what)
{
	if (!json_is_object(usage))
		return ac_error_set(AC_EINVAL, "%s: must be a JSON object", what);
	for (size_t i = 0; ac_turn_usage_counts[i]; i++) {
		const json_t *v = json_object_get(usage, ac_turn_usage_counts[i]);

		if (v && !is_count_value(v))
			return ac_error_set(AC_EINVAL, "%s: %s must be a whole number from 0 to %llu",
					    what, ac_turn_usage_counts[i],
					    (unsigned long long)AC_SESSION_COUNT_MAX);
	}
	return 0;
}

json_t *ac_turn_usage_of(const ac_usage *usage)
{
	json_t *out = usage && usage->fields ? json_deep_copy(usage->fields) : json_object();

	if (!out || !json_is_object(out) ||
	    json_object_set_new(out, "inputTokens",
				json_integer((json_int_t)(usage ? usage->input_tokens : 0))) ||
	    json_object_set_new(out, "outputTokens",
				json_integer((json_int_t)(usage ? usage->output_tokens : 0)))) {
		json_decref(out);
		return NULL;
	}
	return out;
}

uint64_t ac_turn_usage_total(const json_t *usage)
{
	const json_t *given = json_object_get(usage, "totalTokens");
	const json_t *in = json_object_get(usage, "inputTokens");
	const json_t *out = json_object_get(usage, "outputTokens");
	uint64_t a = is_count_value(in) ? (uint64_t)json_integer_value(in) : 0;
	uint64_t b = is_count_value(out) ? (uint64_t)json_integer_value(out) : 0;

	if (is_count_value(given))
		return (uint64_t)json_integer_value(given);
	/* Both are at most AC_SESSION_COUNT_MAX (2^53 - 1): no overflow. */
	return a + b;
}

/* sum[key] += add, refusing a sum past AC_SESSION_COUNT_MAX. */
static int add(json_t *sum, const char *key, uint64_t add)
{
	uint64_t have = (uint64_t)json_integer_value(json_object_get(sum, key));

	if (add > AC_SESSION_COUNT_MAX - have)
		return ac_error_set(AC_EINVAL, "usage totals: %s would pass %llu", key,
				    (unsigned long long)AC_SESSION_COUNT_MAX);
	return json_object_set_new(sum, key, json_integer((json_int_t)(have + add)))
		       ? ac_error_set(AC_ENOMEM, "out of memory")
		       : 0;
}

int ac_turn_usage_totals(json_t **out, const json_t *rows)
{
	json_t *sum = json_object(), *row;
	int rc = 0;
	double cost = 0;
	bool every_cost = json_array_size(rows) > 0;
	uint64_t turns = 0;
	size_t i;

	*out = NULL;
	if (!sum)
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t k = 0; ac_turn_usage_counts[k]; k++)
		if ((rc = add(sum, ac_turn_usage_counts[k], 0)))
			goto done;
	json_array_foreach(rows, i, row) {
		const json_t *usage = json_object_get(row, "usage"), *c;
		uint64_t turn = (uint64_t)json_integer_value(json_object_get(row, "turn"));

		for (size_t k = 0; ac_turn_usage_counts[k]; k++) {
			const char *key = ac_turn_usage_counts[k];
			const json_t *v = json_object_get(usage, key);

			if (is_count_value(v) && (rc = add(sum, key, (uint64_t)json_integer_value(v))))
				goto done;
		}
		c = json_object_get(usage, "costUsd");
		/* A row is another program's text: 1e308 twice is infinity, which
		 * JSON cannot hold (every later total, record-turn's included,
		 * failed). A cost past any real turn's is unknown, not summed. */
		if (json_is_number(c) && json_number_value(c) >= 0 &&
		    json_number_value(c) <= TURN_COST_MAX)
			cost += json_number_value(c);
		else
			every_cost = false;
		turns = turn > turns ? turn : turns;
	}
	if (json_object_set_new(sum, "turns", json_integer((json_int_t)turns)) ||
	    (every_cost && json_object_set_new(sum, "costUsd", json_real(cost)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	*out = sum;
	sum = NULL;
done:
	json_decref(sum);
	return rc;
}

/* ---- the rows file ---- */

bool ac_turn_usage_is_row(const json_t *row)
{
	const json_t *turn = json_object_get(row, "turn");

	return json_is_object(row) && json_is_integer(turn) && json_integer_value(turn) >= 1 &&
	       (uint64_t)json_integer_value(turn) <= AC_SESSION_COUNT_MAX &&
	       ac_turn_usage_check(json_object_get(row, "usage"), "row") == 0;
}

int ac_turn_usage_parse_rows(json_t *rows, size_t *out_complete, const char *text, size_t len)
{
	size_t start = 0;

	while (start < len) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t line_len;
		json_t *row;

		if (!nl)
			break;
		line_len = (size_t)(nl - (text + start));
		row = line_len < AC_TURN_USAGE_ROW_MAX ? json_loadb(text + start, line_len, 0, NULL)
							 : NULL;
		if (ac_turn_usage_is_row(row)) {
			if (json_array_append_new(rows, row))
				return ac_error_set(AC_ENOMEM, "out of memory");
		} else {
			json_decref(row);
		}
		start = (size_t)(nl - text) + 1;
	}
	*out_complete = start;
	return 0;
}

json_t *ac_turn_usage_carried_row(const json_t *legacy)
{
	const json_t *turns = json_object_get(legacy, "turns");
	json_t *usage, *row;

	if (!is_count_value(turns) || json_integer_value(turns) < 1)
		return NULL;
	if (!(usage = json_object()))
		return NULL;
	for (size_t k = 0; ac_turn_usage_counts[k]; k++) {
		const json_t *v = json_object_get(legacy, ac_turn_usage_counts[k]);

		if (is_count_value(v))
			json_object_set(usage, ac_turn_usage_counts[k], (json_t *)v);
	}
	row = json_pack("{s:O, s:b, s:o}", "turn", turns, "carried", 1, "usage", usage);
	return row;
}

int ac_turn_usage_load(json_t **out, const char *sessions_dir, const char *id,
		       const json_t *legacy)
{
	char *path = NULL, *text = NULL;
	size_t len = 0, complete;
	json_t *rows = json_array(), *totals = NULL, *row;
	int fd = -1, rc;

	*out = NULL;
	if (!rows)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_session_id_check(id)) ||
	    (rc = ac_turn_usage_rows_path(&path, sessions_dir, id, false)))
		goto done;
	/* Opened as a regular file or not at all: a FIFO planted here would
	 * block a plain open(), and with it `usage`, `session show` and the
	 * dashboard. */
	rc = ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY | O_NOFOLLOW, 0, path);
	if (rc == AC_ENOTFOUND) {
		ac_error_clear();
		rc = 0;
	}
	if (rc)
		goto done;
	if (fd >= 0 && ((rc = ac_turn_usage_read_all(&text, &len, fd, path)) ||
			(rc = ac_turn_usage_parse_rows(rows, &complete, text, len))))
		goto done;
	if (json_array_size(rows) == 0 && (row = ac_turn_usage_carried_row(legacy)))
		json_array_append_new(rows, row);
	if (!(rc = ac_turn_usage_totals(&totals, rows)) &&
	    !(*out = json_pack("{s:O, s:O}", "turns", rows, "totals", totals)))
		rc = ac_error_set(AC_ENOMEM, "out of memory");
done:
	if (fd >= 0)
		close(fd);
	json_decref(rows);
	json_decref(totals);
	free(text);
	free(path);
	return rc;
}

/* Appends the row for usage under flock: *out_totals the totals with it. */
static int append_row(json_t **out_totals, uint64_t *out_turn, const char *sessions_dir,
		      const char *id, const json_t *usage, const json_t *legacy)
{
	char *path = NULL, now[AC_TIME_ISO_LEN + 1];
	size_t complete = 0;
	json_t *rows = json_array(), *fresh = json_array(), *row, *totals = NULL;
	ac_buf lines = AC_BUF_INIT;
	uint64_t last = 0;
	size_t i;
	int fd = -1, rc;

	if (!rows || !fresh) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = ac_turn_usage_open_rows(&fd, &path, &complete, rows, sessions_dir, id)))
		goto done;
	if (json_array_size(rows) == 0 && (row = ac_turn_usage_carried_row(legacy)))
		json_array_append_new(fresh, row);
	json_array_foreach(rows, i, row) {
		uint64_t t = (uint64_t)json_integer_value(json_object_get(row, "turn"));

		last = t > last ? t : last;
	}
	json_array_foreach(fresh, i, row)
		last = (uint64_t)json_integer_value(json_object_get(row, "turn"));
	ac_time_format_iso(now, ac_time_now_ms());
	if (!(row = json_pack("{s:I, s:s, s:O}", "turn", (json_int_t)(last + 1), "timestamp", now,
			      "usage", usage)) ||
	    json_array_append_new(fresh, row)) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	/* The totals are checked before the row lands: a sum past the bound
	 * refuses the turn, with nothing written. */
	json_array_extend(rows, fresh);
	if ((rc = ac_turn_usage_totals(&totals, rows)))
		goto done;
	json_array_foreach(fresh, i, row) {
		char *line = json_dumps(row, JSON_COMPACT | JSON_PRESERVE_ORDER);

		if (!line) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		ac_buf_printf(&lines, "%s\n", line);
		free(line);
	}
	if (lines.len > AC_TURN_USAGE_ROW_MAX) {
		rc = ac_error_set(AC_EINVAL, "usage: the row would be %zu bytes, over %d", lines.len,
				  AC_TURN_USAGE_ROW_MAX);
		goto done;
	}
	if ((rc = ac_turn_usage_append_lines(fd, path, &lines, complete)))
		goto done;
	*out_totals = totals;
	totals = NULL;
	*out_turn = last + 1;
done:
	if (fd >= 0)
		close(fd);
	json_decref(rows);
	json_decref(fresh);
	json_decref(totals);
	ac_buf_free(&lines);
	free(path);
	return rc;
}

/* ---- recording a turn ---- */

typedef struct {
	const ac_turn_usage_hooks *hooks;
	const json_t *messages;   /* appended by append_change */
	const char *sessions_dir; /* where totals_change reads the rows */
	const char *id;
	json_t *legacy;           /* metadata.usage as found (a copy), for the carried row */
} turn_step;

static int guarded(json_t *root, const turn_step *t)
{
	const json_t *metadata = json_object_get(root, "metadata");

	if (t->hooks && t->hooks->guard) {
		int rc = t->hooks->guard(root, t->hooks->ctx);

		if (rc)
			return rc;
	}
	if (metadata && !json_is_object(metadata))
		return ac_error_set(AC_ECORRUPT, "metadata is not an object; usage not recorded");
	if (json_object_get(metadata, "usage") && !json_is_object(json_object_get(metadata, "usage")))
		return ac_error_set(AC_ECORRUPT, "metadata.usage is not an object; usage not recorded");
	return 0;
}

static int append_change(json_t *root, void *ctx)
{
	turn_step *t = ctx;
	int rc;

	if ((rc = guarded(root, t)))
		return rc;
	return ac_session_history_append(root, t->messages);
}

/* True when have (a document's value; a number the exact loader kept as
 * its bytes is a marked string) reads as the number v. */
static bool reads_as(const json_t *have, const json_t *v)
{
	char *text;
	json_t *back;
	size_t len;
	bool same;

	if (!have || json_equal(have, v))
		return have != NULL;
	if (!json_is_string(have) || !(text = ac_json_exact_dumps(have, JSON_ENCODE_ANY, &len)))
		return false;
	back = json_loads(text, JSON_DECODE_ANY, NULL);
	same = back && json_equal(back, v);
	json_decref(back);
	free(text);
	return same;
}

int ac_turn_usage_apply_totals(json_t *usage, const json_t *totals)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)totals, key, v) {
		bool always = !strcmp(key, "inputTokens") || !strcmp(key, "outputTokens") ||
			      !strcmp(key, "turns");

		if (!always && json_is_integer(v) && json_integer_value(v) == 0)
			continue;
		/* Already so: its text stays (0.75 read from a file is kept as
		 * written, not rewritten as jansson prints the double). */
		if (reads_as(json_object_get(usage, key), v))
			continue;
		if (json_object_set(usage, key, v))
			return ac_error_set(AC_ENOMEM, "out of memory");
	}
	return 0;
}

/* metadata.usage's keys set from the totals (ac_turn_usage_apply_totals). */
static int totals_change(json_t *root, void *ctx)
{
	turn_step *t = ctx;
	json_t *metadata, *usage, *loaded = NULL, *totals;
	int rc;

	/* The rows as they are now, read inside the rewrite: a writer whose
	 * row came earlier but whose rewrite comes later still writes totals
	 * that count every row, never older ones. */
	if ((rc = guarded(root, t)) ||
	    (rc = ac_turn_usage_load(&loaded, t->sessions_dir, t->id, t->legacy)))
		return rc;
	totals = json_object_get(loaded, "totals");
	if ((!(metadata = json_object_get(root, "metadata")) &&
	     json_object_set_new(root, "metadata", metadata = json_object())) ||
	    (!(usage = json_object_get(metadata, "usage")) &&
	     json_object_set_new(metadata, "usage", usage = json_object()))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	rc = ac_turn_usage_apply_totals(usage, totals);
done:
	json_decref(loaded);
	return rc;
}

/* The guard on the current document, and its metadata.usage kept. */
static int legacy_change(json_t *root, void *ctx)
{
	turn_step *t = ctx;
	int rc;

	if ((rc = guarded(root, t)))
		return rc;
	json_decref(t->legacy);
	t->legacy = json_deep_copy(json_object_get(json_object_get(root, "metadata"), "usage"));
	return 0;
}

int ac_turn_usage_room(json_t *loaded, const json_t *usage)
{
	json_t *totals = NULL, *row;
	int rc;

	if (!(row = json_pack("{s:i, s:O}", "turn", 1, "usage", usage)) ||
	    json_array_append_new(json_object_get(loaded, "turns"), row))
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = ac_turn_usage_totals(&totals, json_object_get(loaded, "turns"));
	json_decref(totals);
	return rc;
}

/* AC_EINVAL when the rows' totals with usage added would pass the bound. */
static int refuse_overflow(const char *sessions_dir, const char *id, const json_t *usage,
			   const json_t *legacy)
{
	json_t *loaded = NULL;
	int rc;

	if ((rc = ac_turn_usage_load(&loaded, sessions_dir, id, legacy)))
		return rc;
	rc = ac_turn_usage_room(loaded, usage);
	json_decref(loaded);
	return rc;
}

int ac_turn_usage_row_usage(json_t **out, const ac_usage *usage)
{
	json_t *row_usage = ac_turn_usage_of(usage);
	char *text = NULL;
	size_t len;
	int rc;

	*out = NULL;
	if (!row_usage)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_turn_usage_check(row_usage, "usage")))
		goto done;
	/* A row must stay one write(2): refused here, before the messages,
	 * not half way (the row's turn and time add < 100). */
	if (!(text = json_dumps(row_usage, JSON_COMPACT)) || !(len = strlen(text))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (len > AC_TURN_USAGE_ROW_MAX - 100) {
		rc = ac_error_set(AC_EINVAL, "usage: %zu bytes of JSON, over %d", len,
				  AC_TURN_USAGE_ROW_MAX - 100);
		goto done;
	}
	*out = row_usage;
	row_usage = NULL;
done:
	free(text);
	json_decref(row_usage);
	return rc;
}

static void reached(const ac_turn_usage_hooks *hooks, const char *point)
{
	if (hooks && hooks->reached)
		hooks->reached(point, hooks->ctx);
}

int ac_turn_usage_record(ac_session **out, uint64_t *out_turn, const char *sessions_dir,
			 const char *id, const json_t *messages, const ac_usage *usage,
			 const ac_turn_usage_hooks *hooks)
{
	turn_step t = {hooks, messages, sessions_dir, id, NULL};
	json_t *row_usage = NULL, *totals = NULL;
	ac_session *s = NULL;
	uint64_t turn = 0;
	int rc;

	if (out)
		*out = NULL;
	if ((rc = ac_session_id_check(id)))
		return rc;
	if (messages && !json_is_array(messages))
		return ac_error_set(AC_EINVAL, "messages: must be an array");
	if ((rc = ac_turn_usage_row_usage(&row_usage, usage)))
		goto done;
	/* 0. The checks on the document, and a turn the totals could not
	 * take refused before anything is written, its messages included
	 * (append_row checks again, under its lock). */
	if ((rc = ac_session_load(&s, sessions_dir, id)) ||
	    (rc = legacy_change(ac_session_root(s), &t)) ||
	    (rc = refuse_overflow(sessions_dir, id, row_usage, t.legacy)))
		goto done;
	/* 1. The messages. */
	if (json_array_size(messages)) {
		ac_session_free(s);
		s = NULL;
		if ((rc = ac_session_update(&s, sessions_dir, id, append_change, &t)) ||
		    (rc = legacy_change(ac_session_root(s), &t)))
			goto done;
	}
	reached(hooks, AC_TURN_USAGE_AFTER_MESSAGES);
	/* 2. The row: from here on the turn is counted. */
	if ((rc = append_row(&totals, &turn, sessions_dir, id, row_usage, t.legacy)))
		goto done;
	reached(hooks, AC_TURN_USAGE_AFTER_ROW);
	/* 3. The totals other readers see, derived from every row. */
	ac_session_free(s);
	s = NULL;
	if ((rc = ac_session_update(&s, sessions_dir, id, totals_change, &t)))
		goto done;
	if (out_turn)
		*out_turn = turn;
	if (out) {
		*out = s;
		s = NULL;
	}
done:
	ac_session_free(s);
	json_decref(row_usage);
	json_decref(totals);
	json_decref(t.legacy);
	return rc;
}
