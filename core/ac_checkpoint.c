/* Checkpoints: the document, the provider-independent store operations
 * (ordering, latest, versions, retention), creating one from a session,
 * and rolling a session back with compensations. */
#include "ac_checkpoint.h"
#include "ac_checkpoint_runtime.h"

#include "ac_archive.h"
#include "ac_buf.h"
#include "ac_file.h"
#include "ac_json_exact.h"

#include "ac_error.h"
#include "ac_uuid.h"
#include "ac_lock.h"
#include "ac_messages.h"
#include "ac_proc.h"
#include "ac_session.h"
#include "ac_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the document ------------------------------------------------------ */

int ac_checkpoint_id_check(const char *id)
{
	int rc = ac_session_id_check(id);

	/* Same rules, but the message must say which kind of id is at fault. */
	if (rc) {
		const char *reason = ac_error_last();

		if (!strncmp(reason, "session id", 10))
			reason += 10;
		return ac_error_set(rc, "checkpoint id%s", reason);
	}
	return 0;
}

static const char *str_member(const json_t *doc, const char *key)
{
	const char *value = json_string_value(json_object_get(doc, key));

	return value ? value : "";
}

const char *ac_checkpoint_id(const json_t *doc)
{
	return str_member(doc, "checkpointId");
}

const char *ac_checkpoint_session(const json_t *doc)
{
	return str_member(doc, "sessionId");
}

const char *ac_checkpoint_node(const json_t *doc)
{
	return str_member(doc, "nodeId");
}

int64_t ac_checkpoint_version(const json_t *doc)
{
	return (int64_t)json_integer_value(json_object_get(doc, "version"));
}

json_t *ac_checkpoint_history(const json_t *doc)
{
	json_t *history = json_object_get(doc, "messageHistory");

	return json_is_array(history) ? history : NULL;
}

bool ac_checkpoint_is_tombstone(const json_t *doc)
{
	/* Koog marks one with properties.tombstone = true (and an empty
	 * history); DESIGN.md with nodeId "tombstone". Either is one. */
	return !strcmp(ac_checkpoint_node(doc), AC_CHECKPOINT_TOMBSTONE) ||
	       json_is_true(json_object_get(json_object_get(doc, "properties"),
					    AC_CHECKPOINT_TOMBSTONE));
}

int ac_checkpoint_validate(const json_t *doc)
{
	const json_t *version = json_object_get(doc, "version");

	if (!json_is_object(doc))
		return ac_error_set(AC_ECORRUPT, "not a JSON object");
	if (!json_is_string(json_object_get(doc, "checkpointId")))
		return ac_error_set(AC_ECORRUPT, "checkpointId: missing or not a string");
	if (ac_checkpoint_id_check(ac_checkpoint_id(doc)) != 0)
		return ac_error_set(AC_ECORRUPT, "%s", ac_error_last());
	if (!json_is_string(json_object_get(doc, "sessionId")))
		return ac_error_set(AC_ECORRUPT, "sessionId: missing or not a string");
	if (!json_is_integer(version) || json_integer_value(version) < 0)
		return ac_error_set(AC_ECORRUPT, "version: missing or not a non-negative integer");
	if (!json_is_array(json_object_get(doc, "messageHistory")))
		return ac_error_set(AC_ECORRUPT, "messageHistory: missing or not an array");
	return 0;
}

static int compare_checkpoints(const void *a, const void *b)
{
	const json_t *x = *(const json_t *const *)a, *y = *(const json_t *const *)b;
	int64_t vx = ac_checkpoint_version(x), vy = ac_checkpoint_version(y);

	if (vx != vy)
		return vx < vy ? -1 : 1;
	return strcmp(ac_checkpoint_id(x), ac_checkpoint_id(y));
}

int ac_checkpoint_sort(json_t *array)
{
	size_t n = json_array_size(array);
	json_t **items;
	int rc = 0;

	if (n < 2)
		return 0;
	if (!(items = malloc(n * sizeof(*items))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		items[i] = json_incref(json_array_get(array, i));
	qsort(items, n, sizeof(*items), compare_checkpoints);
	for (size_t i = 0; i < n; i++)
		if (json_array_set(array, i, items[i]))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		json_decref(items[i]);
	free(items);
	return rc;
}

/* ---- the store, whatever the provider ---------------------------------- */

void ac_checkpoint_store_free(ac_checkpoint_store *store)
{
	if (store)
		store->ops->free(store);
}

void ac_checkpoint_store_set_problem(ac_checkpoint_store *store, ac_checkpoint_problem_fn fn,
				     void *ctx)
{
	store->problem = fn;
	store->problem_ctx = ctx;
}

void ac_checkpoint_store_set_retention(ac_checkpoint_store *store, size_t keep_last)
{
	store->keep_last = keep_last;
}

/* Leaves in array only the checkpoints filter->match keeps. */
static int keep_matching(json_t *array, const ac_checkpoint_filter *filter)
{
	if (!filter->match)
		return 0;
	for (size_t i = json_array_size(array); i-- > 0;) {
		ac_checkpoint_header h;
		bool keep;
		int rc;

		if ((rc = ac_checkpoint_header_get(&h, json_array_get(array, i))))
			return rc;
		keep = filter->match(&h, filter->match_ctx);
		ac_checkpoint_header_clear(&h);
		if (!keep && json_array_remove(array, i))
			return ac_error_set(AC_ENOMEM, "out of memory");
	}
	return 0;
}

int ac_checkpoint_store_list(json_t **out, ac_checkpoint_store *store,
			     const ac_checkpoint_filter *filter)
{
	json_t *array = NULL;
	int rc;

	if ((rc = ac_session_id_check(filter->session_id)))
		return rc;
	if ((rc = store->ops->list(&array, store, filter)))
		return rc;
	if ((rc = keep_matching(array, filter)) || (rc = ac_checkpoint_sort(array))) {
		json_decref(array);
		return rc;
	}
	*out = array;
	return 0;
}

int ac_checkpoint_store_latest_matching(json_t **out, ac_checkpoint_store *store,
					const ac_checkpoint_filter *filter)
{
	ac_checkpoint_header_list list = {0};
	const ac_checkpoint_header *best = NULL;
	int rc;

	if ((rc = ac_checkpoint_store_list_headers(&list, store, filter)))
		goto done;
	for (size_t i = 0; i < list.count; i++)
		if (!best || list.items[i].version > best->version)
			best = &list.items[i];
	rc = best ? ac_checkpoint_store_get(out, store, filter->session_id, best->checkpoint_id)
		  : ac_error_set(AC_ENOTFOUND, "session '%s' has no checkpoint the filter keeps",
				 filter->session_id);
done:
	ac_checkpoint_header_list_free(&list);
	return rc;
}

int ac_checkpoint_store_latest(json_t **out, ac_checkpoint_store *store, const char *session_id)
{
	ac_checkpoint_filter filter = {.session_id = session_id, .include_tombstones = false};
	json_t *array = NULL;
	size_t n;
	int rc;

	if ((rc = ac_session_id_check(session_id)))
		return rc;
	if (store->ops->latest)
		return store->ops->latest(out, store, session_id);
	if ((rc = ac_checkpoint_store_list(&array, store, &filter)))
		return rc;
	if ((n = json_array_size(array)) == 0)
		rc = ac_error_set(AC_ENOTFOUND, "session '%s' has no checkpoint", session_id);
	else
		*out = json_incref(json_array_get(array, n - 1));
	json_decref(array);
	return rc;
}

int ac_checkpoint_store_get(json_t **out, ac_checkpoint_store *store, const char *session_id,
			    const char *checkpoint_id)
{
	int rc;

	if ((rc = ac_session_id_check(session_id)) || (rc = ac_checkpoint_id_check(checkpoint_id)))
		return rc;
	return store->ops->get(out, store, session_id, checkpoint_id);
}

int ac_checkpoint_store_delete(ac_checkpoint_store *store, const char *session_id,
			       const char *checkpoint_id)
{
	int rc;

	if ((rc = ac_session_id_check(session_id)) || (rc = ac_checkpoint_id_check(checkpoint_id)))
		return rc;
	return store->ops->remove(store, session_id, checkpoint_id);
}

int ac_checkpoint_store_next_version(int64_t *out, ac_checkpoint_store *store,
				     const char *session_id)
{
	ac_checkpoint_filter filter = {.session_id = session_id, .include_tombstones = true};
	json_t *array = NULL;
	size_t n;
	int rc;

	if ((rc = ac_checkpoint_store_list(&array, store, &filter)))
		return rc;
	n = json_array_size(array);
	*out = 1;
	if (n) {
		const json_t *last = json_array_get(array, n - 1);
		int64_t version = ac_checkpoint_version(last);

		/* Checked before adding one: a planted INT64_MAX must not overflow. */
		if (version < 0 || version >= AC_CHECKPOINT_VERSION_MAX)
			rc = ac_error_set(AC_ECORRUPT, "checkpoint '%s' of session '%s' has version "
					  "%lld, outside 0..%lld: a corrupt or planted file; move "
					  "it aside to go on", ac_checkpoint_id(last), session_id,
					  (long long)version, (long long)AC_CHECKPOINT_VERSION_MAX - 1);
		else
			*out = version + 1;
	}
	json_decref(array);
	return rc;
}

int ac_checkpoint_store_retain(size_t *out_removed, ac_checkpoint_store *store,
			       const char *session_id, size_t keep_last)
{
	ac_checkpoint_filter filter = {.session_id = session_id, .include_tombstones = false};
	json_t *array = NULL;
	size_t n, removed = 0;
	int rc;

	if (keep_last == 0)
		goto finish;
	if ((rc = ac_checkpoint_store_list(&array, store, &filter)))
		return rc;
	n = json_array_size(array);
	/* Index 0 (the first checkpoint) and the last keep_last stay. */
	for (size_t i = 1; i + keep_last < n; i++) {
		const json_t *doc = json_array_get(array, i);

		rc = store->ops->remove(store, session_id, ac_checkpoint_id(doc));
		if (rc && rc != AC_ENOTFOUND) {
			json_decref(array);
			return rc;
		}
		removed += rc == 0;
	}
	json_decref(array);
finish:
	if (out_removed)
		*out_removed = removed;
	return 0;
}

int ac_checkpoint_store_save(ac_checkpoint_store *store, const json_t *doc)
{
	int rc;

	if ((rc = ac_checkpoint_validate(doc)))
		return ac_error_set(AC_EINVAL, "checkpoint: %s", ac_error_last());
	if ((rc = ac_session_id_check(ac_checkpoint_session(doc))))
		return rc;
	if ((rc = store->ops->save(store, doc)))
		return rc;
	return ac_checkpoint_store_retain(NULL, store, ac_checkpoint_session(doc), store->keep_last);
}

/* ---- creating ----------------------------------------------------------- */


/* The text of a message: its string content, or its text blocks joined by
 * newlines; "" when it has none (a message of tool calls or results). */
static int plain_text(ac_buf *out, const json_t *msg)
{
	const json_t *content = json_object_get(msg, "content"), *block;
	size_t i;

	if (json_is_string(content))
		return ac_buf_append(out, json_string_value(content), json_string_length(content));
	json_array_foreach (content, i, block) {
		const json_t *text = json_object_get(block, "text");

		if (strcmp(str_member(block, "type"), "text") || !json_is_string(text))
			continue;
		if ((out->len && ac_buf_putc(out, '\n')) ||
		    ac_buf_append(out, json_string_value(text), json_string_length(text)))
			return AC_ENOMEM;
	}
	return 0;
}

/* The text of the last message of role that has any; "" when none. */
static int last_text(json_t **out, const json_t *history, const char *role)
{
	ac_buf text = AC_BUF_INIT;

	for (size_t i = json_array_size(history); i-- > 0;) {
		const json_t *msg = json_array_get(history, i);

		if (strcmp(ac_message_role(msg), role))
			continue;
		if (plain_text(&text, msg)) {
			ac_buf_free(&text);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		if (text.len)
			break;
	}
	*out = json_stringn_nocheck(text.data ? text.data : "", text.len);
	ac_buf_free(&text);
	return *out ? 0 : ac_error_set(AC_ENOMEM, "out of memory");
}

/* The next version, or the caller's (Koog's createCheckpoint takes one)
 * when no checkpoint of the session holds it: versions are never reused. */
static int choose_version(int64_t *out, ac_checkpoint_store *store, const char *session_id,
			  const ac_checkpoint_create_options *opts)
{
	ac_checkpoint_filter filter = {.session_id = session_id, .include_tombstones = true};
	ac_checkpoint_header_list list = {0};
	int rc;

	if (!opts->set_version)
		return ac_checkpoint_store_next_version(out, store, session_id);
	if (opts->version < 0 || opts->version > AC_CHECKPOINT_VERSION_MAX)
		return ac_error_set(AC_EINVAL, "checkpoint version %lld: not between 0 and %lld",
				    (long long)opts->version, (long long)AC_CHECKPOINT_VERSION_MAX);
	if ((rc = ac_checkpoint_store_list_headers(&list, store, &filter)) == 0) {
		for (size_t i = 0; i < list.count; i++)
			if (list.items[i].version == opts->version) {
				rc = ac_error_set(AC_EINVAL, "checkpoint version %lld of session '%s' "
						  "is taken by %s", (long long)opts->version,
						  session_id, list.items[i].checkpoint_id);
				break;
			}
	}
	ac_checkpoint_header_list_free(&list);
	*out = opts->version;
	return rc;
}

/* The options' own checks, made before anything is read. */
static int check_create_options(const ac_checkpoint_create_options *opts)
{
	if (opts->node && !*opts->node)
		return ac_error_set(AC_EINVAL, "checkpoint node: empty");
	if (opts->last_input_type && !*opts->last_input_type)
		return ac_error_set(AC_EINVAL, "checkpoint lastInputType: empty");
	if (opts->checkpoint_id)
		return ac_checkpoint_id_check(opts->checkpoint_id);
	return 0;
}

int ac_checkpoint_create_from(json_t **out, ac_checkpoint_store *store, const char *session_id,
			      const json_t *root, const ac_checkpoint_create_options *opts)
{
	static const ac_checkpoint_create_options defaults = {0};
	const char *node, *checkpoint_id;
	char uuid[37], now[AC_TIME_ISO_LEN + 1];
	json_t *doc = NULL, *latest = NULL, *input = NULL, *output = NULL;
	const json_t *history;
	const char *agent;
	int64_t version;
	bool tombstone;
	int rc;

	if (!opts)
		opts = &defaults;
	node = opts->node;
	checkpoint_id = opts->checkpoint_id;
	if ((rc = ac_session_id_check(session_id)) || (rc = check_create_options(opts)))
		goto done;
	history = json_object_get(root, "conversationHistory");
	if (!json_is_array(history)) {
		rc = ac_error_set(AC_ECORRUPT, "session '%s': conversationHistory is not an array",
				  session_id);
		goto done;
	}
	if (checkpoint_id) {
		json_t *existing = NULL;

		rc = ac_checkpoint_store_get(&existing, store, session_id, checkpoint_id);
		json_decref(existing);
		if (rc == 0) {
			rc = ac_error_set(AC_EINVAL, "checkpoint '%s' of session '%s' exists already",
					  checkpoint_id, session_id);
			goto done;
		}
		if (rc != AC_ENOTFOUND)
			goto done;
	}
	if ((rc = choose_version(&version, store, session_id, opts)))
		goto done;
	rc = ac_checkpoint_store_latest(&latest, store, session_id);
	if (rc && rc != AC_ENOTFOUND)
		goto done;
	if (opts->last_input && !(input = json_deep_copy(opts->last_input))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((!input && (rc = last_text(&input, history, "user"))) ||
	    (rc = last_text(&output, history, "assistant")))
		goto done;
	agent = json_string_value(json_object_get(json_object_get(root, "metadata"), "agentId"));
	if (!checkpoint_id)
		ac_uuid_v4(uuid);
	ac_time_format_iso(now, ac_time_now_ms());
	tombstone = node && !strcmp(node, AC_CHECKPOINT_TOMBSTONE);
	/* A tombstone as Koog writes one: no history, properties.tombstone. */
	doc = json_pack("{s:s, s:s, s:o, s:s, s:I, s:o, s:s, s:O, s:s, s:O, s:o, s:o}",
			"checkpointId", checkpoint_id ? checkpoint_id : uuid, "sessionId", session_id,
			"agentId", agent ? json_string(agent) : json_null(),
			"createdAt", now, "version", (json_int_t)version,
			"parentId", latest ? json_string(ac_checkpoint_id(latest)) : json_null(),
			"nodeId", node ? node : "manual", "lastInput", input,
			"lastInputType", opts->last_input_type ? opts->last_input_type : "text",
			"lastOutput", output,
			"messageHistory", tombstone ? json_array() : json_deep_copy(history),
			"properties", tombstone ? json_pack("{s:b}", AC_CHECKPOINT_TOMBSTONE, 1)
						: json_object());
	if (!doc) {
		rc = ac_error_set(AC_ENOMEM, "out of memory building checkpoint of session '%s'",
				  session_id);
		goto done;
	}
	if ((rc = ac_checkpoint_store_save(store, doc)))
		goto done;
	if (out) {
		*out = doc;
		doc = NULL;
	}
done:
	json_decref(doc);
	json_decref(latest);
	json_decref(input);
	json_decref(output);
	return rc;
}

int ac_checkpoint_create_with(json_t **out, ac_checkpoint_store *store, const char *sessions_dir,
			      const char *session_id, const ac_checkpoint_create_options *opts)
{
	static const ac_checkpoint_create_options defaults = {0};
	char *session_path = NULL;
	ac_session *session = NULL;
	int rc, guard = -1;

	if (!opts)
		opts = &defaults;
	if ((rc = ac_session_path(&session_path, sessions_dir, session_id)) ||
	    (rc = check_create_options(opts)))
		goto done;
	/* agentctl processes take turns from reading the versions to saving,
	 * so two creates never pick the same version. */
	if (access(session_path, F_OK) != 0) {
		rc = ac_error_set(AC_ENOTFOUND, "session '%s' not found in %s", session_id, sessions_dir);
		goto done;
	}
	if ((rc = ac_lock_folder(&guard, session_path, 10000)) ||
	    (rc = ac_session_load(&session, sessions_dir, session_id)))
		goto done;
	rc = ac_checkpoint_create_from(out, store, session_id, ac_session_root(session), opts);
done:
	if (guard >= 0)
		close(guard);
	ac_session_free(session);
	free(session_path);
	return rc;
}

int ac_checkpoint_create(json_t **out, ac_checkpoint_store *store, const char *sessions_dir,
			 const char *session_id, const char *node)
{
	ac_checkpoint_create_options opts = {.node = node};

	return ac_checkpoint_create_with(out, store, sessions_dir, session_id, &opts);
}

/* ---- rolling back ------------------------------------------------------- */

int ac_checkpoint_prefix_check(const json_t *checkpoint_history, const json_t *session_history)
{
	size_t keep = json_array_size(checkpoint_history);
	size_t have = json_array_size(session_history);

	if (keep > have)
		return ac_error_set(AC_EINVAL, "the checkpoint holds %zu messages but the session only "
				    "%zu: the session's history is not a continuation of it", keep, have);
	for (size_t i = 0; i < keep; i++)
		if (!json_equal(json_array_get(checkpoint_history, i),
				json_array_get(session_history, i)))
			return ac_error_set(AC_EINVAL, "the session's history has diverged from the "
					    "checkpoint: message at index %zu differs", i);
	return 0;
}

void ac_checkpoint_plan_free(ac_checkpoint_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->n_calls; i++) {
		free(plan->calls[i].tool);
		free(plan->calls[i].call_id);
		json_decref(plan->calls[i].input);
		free(plan->calls[i].argv);
	}
	free(plan->calls);
	free(plan->session_id);
	json_decref(plan->checkpoint);
	json_decref(plan->history);
	memset(plan, 0, sizeof(*plan));
}

typedef struct {
	ac_checkpoint_plan *plan;
	const json_t *tools;
	size_t message_index;
	size_t first;  /* where this message's calls start in plan->calls */
	size_t cap;
	int rc;
} plan_builder;

/* The NULL-terminated argv for tool from rollbackTools (strings borrowed),
 * *out NULL when none is configured; AC_EINVAL for a malformed entry. */
static int tool_argv(const char ***out, const json_t *tools, const char *tool)
{
	const json_t *entry = json_object_get(tools, tool), *arg;
	const char **argv;
	size_t i;

	*out = NULL;
	if (!entry)
		return 0;
	if (!json_is_array(entry) || json_array_size(entry) == 0)
		return ac_error_set(AC_EINVAL, "rollbackTools.%.64s: must be a non-empty array of "
				    "strings (argv, no shell)", tool);
	if (!(argv = calloc(json_array_size(entry) + 1, sizeof(*argv))))
		return ac_error_set(AC_ENOMEM, "out of memory");
	json_array_foreach (entry, i, arg) {
		if (!json_is_string(arg) || (i == 0 && !*json_string_value(arg))) {
			free(argv);
			return ac_error_set(AC_EINVAL, "rollbackTools.%.64s[%zu]: must be a %sstring",
					    tool, i, i == 0 ? "non-empty " : "");
		}
		argv[i] = json_string_value(arg);
	}
	*out = argv;
	return 0;
}

static void note_call(const char *id, const char *name, const json_t *input, void *ctx)
{
	plan_builder *b = ctx;
	ac_checkpoint_plan *plan = b->plan;
	ac_checkpoint_compensation *c;

	if (b->rc)
		return;
	if (plan->n_calls == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 8;
		void *grown = realloc(plan->calls, cap * sizeof(*plan->calls));

		if (!grown) {
			b->rc = ac_error_set(AC_ENOMEM, "out of memory");
			return;
		}
		plan->calls = grown;
		b->cap = cap;
	}
	c = &plan->calls[plan->n_calls];
	memset(c, 0, sizeof(*c));
	c->message_index = b->message_index;
	c->tool = strdup(name ? name : "");
	c->call_id = strdup(id);
	plan->n_calls++;
	if (!c->tool || !c->call_id) {
		b->rc = ac_error_set(AC_ENOMEM, "out of memory");
		return;
	}
	if ((b->rc = tool_argv(&c->argv, b->tools, c->tool)))
		return;
	if (!c->argv) {
		plan->n_unconfigured++;
		c->input = input ? json_deep_copy(input) : json_object();
		return;
	}
	/* OpenAI sends the arguments as a string holding JSON. */
	if (json_is_string(input)) {
		json_error_t error;

		c->input = json_loads(json_string_value(input), JSON_DECODE_ANY, &error);
		if (!c->input)
			b->rc = ac_error_set(AC_EINVAL, "tool call '%.64s' (%.64s) in message %zu: "
					     "arguments are not JSON: %s", id, c->tool,
					     b->message_index, error.text);
		return;
	}
	c->input = input ? json_deep_copy(input) : json_object();
	if (!c->input)
		b->rc = ac_error_set(AC_ENOMEM, "out of memory");
}

/* Reverses calls[from..to) in place. */
static void reverse_calls(ac_checkpoint_compensation *calls, size_t from, size_t to)
{
	while (to > from + 1) {
		ac_checkpoint_compensation t = calls[from];

		calls[from] = calls[--to];
		calls[to] = t;
		from++;
	}
}

int ac_checkpoint_plan_rollback_history(ac_checkpoint_plan *out, ac_checkpoint_store *store,
					const char *session_id, const char *checkpoint_id,
					json_t *history, const json_t *rollback_tools)
{
	plan_builder b = {.plan = out, .tools = rollback_tools};
	size_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_session_id_check(session_id)) ||
	    (checkpoint_id && (rc = ac_checkpoint_id_check(checkpoint_id))))
		goto done;
	if (rollback_tools && !json_is_object(rollback_tools)) {
		rc = ac_error_set(AC_EINVAL, "rollbackTools: must be an object (tool name -> argv array)");
		goto done;
	}
	if (!(out->session_id = strdup(session_id))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (!json_is_array(history)) {
		rc = ac_error_set(AC_ECORRUPT, "session '%s': conversationHistory is not an array",
				  session_id);
		goto done;
	}
	rc = checkpoint_id ? ac_checkpoint_store_get(&out->checkpoint, store, session_id, checkpoint_id)
			   : ac_checkpoint_store_latest(&out->checkpoint, store, session_id);
	if (rc)
		goto done;
	/* A tombstone marks where a run ended; its empty history is a prefix
	 * of every history, so taking it as a target would empty the session. */
	if (ac_checkpoint_is_tombstone(out->checkpoint)) {
		rc = ac_error_set(AC_EINVAL, "checkpoint '%s' of session '%s' is a tombstone (a "
				  "finished run): there is no state to roll back to",
				  ac_checkpoint_id(out->checkpoint), session_id);
		goto done;
	}
	if ((rc = ac_checkpoint_prefix_check(ac_checkpoint_history(out->checkpoint), history))) {
		ac_error_set(rc, "cannot roll session '%s' back to checkpoint '%s': %s", session_id,
			     ac_checkpoint_id(out->checkpoint), ac_error_last());
		goto done;
	}
	out->history = json_incref(history);
	n = json_array_size(history);
	out->keep = json_array_size(ac_checkpoint_history(out->checkpoint));
	out->remove = n - out->keep;
	/* Newest first: messages from the end, and within one message its
	 * calls from the last to the first. */
	for (size_t i = n; i-- > out->keep;) {
		b.message_index = i;
		b.first = out->n_calls;
		ac_message_tool_calls(json_array_get(history, i), note_call, &b);
		if ((rc = b.rc)) {
			if (rc != AC_ENOMEM)
				ac_error_set(rc, "cannot roll session '%s' back: %s", session_id,
					     ac_error_last());
			goto done;
		}
		reverse_calls(out->calls, b.first, out->n_calls);
	}
done:
	return rc;
}

int ac_checkpoint_plan_rollback(ac_checkpoint_plan *out, ac_checkpoint_store *store,
				const char *sessions_dir, const char *session_id,
				const char *checkpoint_id, const json_t *rollback_tools)
{
	ac_session *session = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_session_id_check(session_id)))
		return rc;
	if ((rc = ac_session_load(&session, sessions_dir, session_id)) == 0)
		rc = ac_checkpoint_plan_rollback_history(out, store, session_id, checkpoint_id,
							 ac_session_messages(session), rollback_tools);
	ac_session_free(session);
	return rc;
}

/* The change applied to the session file's current content: cut the
 * history back to the checkpoint's, refusing if it is not what was planned. */
/* ---- carrying out a rollback ---- */

typedef struct {
	const ac_checkpoint_plan *plan;
	const char *archive;    /* relative to the sessions folder */
	const char *at;
} cut_change;

/* True when metadata.rollbacks records archive: the cut is there already
 * (a reader saved the version we had put in place for a moment). */
static bool names_rollback(const json_t *root, const char *archive)
{
	json_t *record;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(root, "metadata"), "rollbacks"), i,
			   record) {
		const char *named = json_string_value(json_object_get(record, "archive"));

		if (named && !strcmp(named, archive))
			return true;
	}
	return false;
}

int ac_checkpoint_note_rollback(json_t *root, const ac_checkpoint_plan *plan, const char *at,
				const char *archive)
{
	json_t *metadata = json_object_get(root, "metadata"), *rollbacks;
	const char *node = ac_checkpoint_node(plan->checkpoint);

	if (metadata && !json_is_object(metadata))
		return ac_error_set(AC_ECORRUPT, "session '%s': metadata is not an object",
				    plan->session_id);
	if (!metadata && json_object_set_new(root, "metadata", metadata = json_object()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	rollbacks = json_object_get(metadata, "rollbacks");
	if (rollbacks && !json_is_array(rollbacks))
		return ac_error_set(AC_ECORRUPT, "session '%s': metadata.rollbacks is not an array",
				    plan->session_id);
	if (!rollbacks && json_object_set_new(metadata, "rollbacks", rollbacks = json_array()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if (json_array_append_new(rollbacks,
				  json_pack("{s:s, s:s, s:I, s:I, s:s?}", "at", at, "checkpointId",
					    ac_checkpoint_id(plan->checkpoint), "version",
					    (json_int_t)ac_checkpoint_version(plan->checkpoint),
					    "removedMessages", (json_int_t)plan->remove, "archive",
					    archive)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	/* Koog's rollback restores where the run was, not only what was said. */
	return ac_checkpoint_put_execution_point(
		root, *node ? node : NULL,
		json_object_get(plan->checkpoint, "lastInput"),
		json_string_value(json_object_get(plan->checkpoint, "lastInputType")),
		ac_checkpoint_id(plan->checkpoint));
}

static int cut_history(json_t *root, void *ctx)
{
	const cut_change *c = ctx;
	const ac_checkpoint_plan *plan = c->plan;
	json_t *history = json_object_get(root, "conversationHistory");
	int rc;

	if (names_rollback(root, c->archive))
		return AC_SESSION_UNCHANGED;
	if (!json_is_array(history) || !json_equal(history, plan->history)) {
		if ((rc = ac_checkpoint_prefix_check(ac_checkpoint_history(plan->checkpoint), history)))
			return ac_error_set(AC_ECONFLICT, "session '%s' changed during the rollback: %s",
					    plan->session_id, ac_error_last());
		return ac_error_set(AC_ECONFLICT, "session '%s' changed during the rollback "
				    "(another writer added or changed messages); its history was "
				    "left as that writer made it", plan->session_id);
	}
	if ((rc = ac_checkpoint_note_rollback(root, plan, c->at, c->archive)))
		return rc;
	while (json_array_size(history) > plan->keep)
		if (json_array_remove(history, json_array_size(history) - 1))
			return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

/* "<sessions>/.rollbacks/<id>/compensated.json": the compensations that
 * already ran, {"sessionId", "calls": {callId: {tool, at}}}. */
static int compensated_path(ac_buf *out, const char *sessions_dir, const char *id)
{
	if (ac_buf_printf(out, "%s/.rollbacks/%s/compensated.json", sessions_dir, id))
		return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

/* The record of compensations run (an empty one when there is none). */
static int load_compensated(json_t **out, const char *sessions_dir, const char *id)
{
	ac_buf path = AC_BUF_INIT;
	json_error_t jerr;
	char *raw = NULL;
	size_t len;
	int rc;

	*out = NULL;
	if ((rc = compensated_path(&path, sessions_dir, id)))
		goto done;
	rc = ac_file_read(&raw, &len, path.data);
	if (rc == AC_ENOTFOUND) {
		rc = 0;
		if (!(*out = json_pack("{s:s, s:{}}", "sessionId", id, "calls")))
			rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if (rc)
		goto done;
	*out = json_loadb(raw, len, 0, &jerr);
	if (!*out || !json_is_object(json_object_get(*out, "calls"))) {
		json_decref(*out);
		*out = NULL;
		rc = ac_error_set(AC_ECORRUPT, "%s: not a record of compensations (%s); move it "
				  "aside only if none of its calls needs undoing again", path.data,
				  jerr.text[0] ? jerr.text : "no \"calls\" object");
	}
done:
	free(raw);
	ac_buf_free(&path);
	return rc;
}

static int save_compensated(const json_t *record, const char *sessions_dir, const char *id)
{
	ac_buf path = AC_BUF_INIT;
	int rc;

	if ((rc = compensated_path(&path, sessions_dir, id)) == 0)
		rc = ac_json_exact_write_file(path.data, record, JSON_INDENT(2));
	ac_buf_free(&path);
	return rc;
}

/* Runs one compensation; 0, or AC_EIO with the message saying how it
 * failed. */
static int compensate(const ac_checkpoint_compensation *c, const ac_checkpoint_plan *plan,
		      const char *cwd, int timeout_ms, size_t ran)
{
	ac_proc_result result = {0};
	ac_buf why = AC_BUF_INIT;
	char *input = json_dumps(c->input, JSON_COMPACT | JSON_ENCODE_ANY);
	int rc;

	if (!input)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = ac_proc_run_for_session(&result, c->argv, plan->session_id, cwd, input,
					  strlen(input), timeout_ms))) {
		rc = ac_error_set(AC_EIO, "rollback of session '%s' stopped: compensation for "
				  "tool '%s' call '%s' could not start: %s; session history "
				  "left unchanged", plan->session_id, c->tool, c->call_id,
				  ac_error_last());
	} else if (result.exit_status != 0 || result.timed_out) {
		ac_proc_describe_failure(&why, &result, timeout_ms);
		rc = ac_error_set(AC_EIO, "rollback of session '%s' stopped: compensation for "
				  "tool '%s' call '%s' %s; %zu compensation(s) ran before it "
				  "(recorded: a retry does not run them again); session history "
				  "left unchanged", plan->session_id, c->tool, c->call_id,
				  why.data ? why.data : "failed", ran);
	}
	ac_proc_result_free(&result);
	ac_buf_free(&why);
	free(input);
	return rc;
}

/* Runs the compensations still due, newest first, recording each. */
static int run_compensations(ac_checkpoint_rollback_result *out, const ac_checkpoint_plan *plan,
			     const char *sessions_dir, const char *cwd,
			     const ac_checkpoint_rollback_options *opts)
{
	int timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : AC_CHECKPOINT_TIMEOUT_MS;
	json_t *record = NULL, *calls;
	char at[AC_TIME_ISO_LEN + 1];
	int rc;

	if ((rc = load_compensated(&record, sessions_dir, plan->session_id)))
		return rc;
	calls = json_object_get(record, "calls");
	for (size_t i = 0; i < plan->n_calls; i++) {
		const ac_checkpoint_compensation *c = &plan->calls[i];

		if (!c->argv)
			continue;
		if (json_object_get(calls, c->call_id)) {
			out->skipped++;
			continue;
		}
		rc = compensate(c, plan, cwd, timeout_ms, out->ran + out->skipped);
		if (opts->attempted)
			opts->attempted(c, rc, rc ? ac_error_last() : "", opts->ctx);
		if (rc)
			break;
		out->ran++;
		ac_time_format_iso(at, ac_time_now_ms());
		if (json_object_set_new(calls, c->call_id,
					json_pack("{s:s, s:s}", "tool", c->tool, "at", at)) ||
		    (rc = save_compensated(record, sessions_dir, plan->session_id))) {
			if (!rc)
				rc = ac_error_set(AC_ENOMEM, "out of memory");
			break;
		}
	}
	json_decref(record);
	return rc;
}

int ac_checkpoint_rollback(ac_checkpoint_rollback_result *out, const ac_checkpoint_plan *plan,
			   const char *sessions_dir, const char *cwd,
			   const ac_checkpoint_rollback_options *opts)
{
	static const ac_checkpoint_rollback_options defaults = {0};
	char at[AC_TIME_ISO_LEN + 1], *archive_relative = NULL;
	const json_t *created;
	ac_session_write_options write = {0};
	json_t *removed = NULL, *extra = NULL;
	bool published = false;
	ac_buf path = AC_BUF_INIT;
	cut_change change;
	int64_t now_ms;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!opts)
		opts = &defaults;
	if ((rc = run_compensations(out, plan, sessions_dir, cwd, opts)))
		goto done;
	if (plan->remove > 0 && opts->cut) {
		/* The store cuts and archives in its own transaction. */
		if ((rc = opts->cut(plan, opts->cut_ctx)))
			goto done;
	} else if (plan->remove > 0) {
		if (!(removed = json_array())) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		for (size_t i = plan->keep; i < json_array_size(plan->history); i++)
			json_array_append(removed, json_array_get(plan->history, i));
		now_ms = ac_time_now_ms();
		ac_time_format_iso(at, now_ms);
		created = json_object_get(plan->checkpoint, "createdAt");
		extra = json_pack("{s:s, s:I}", "checkpointId", ac_checkpoint_id(plan->checkpoint),
				  "version", (json_int_t)ac_checkpoint_version(plan->checkpoint));
		if ((rc = ac_archive_write(&out->archive_path, &archive_relative, sessions_dir,
					   ".rollbacks", plan->session_id,
					   json_string_value(created) ? json_string_value(created) : "",
					   now_ms, removed, extra)))
			goto done;
		change = (cut_change){plan, archive_relative, at};
		if (opts->write)
			write = *opts->write;
		write.published = &published;
		if ((rc = ac_session_update_with(NULL, sessions_dir, plan->session_id, cut_history,
						 &change, &write))) {
			if (!published) {
				unlink(out->archive_path);
				free(out->archive_path);
				out->archive_path = NULL;
			}
			goto done;
		}
	}
	/* Done: a later rollback compensates anew. */
	if (compensated_path(&path, sessions_dir, plan->session_id) == 0)
		unlink(path.data);
done:
	json_decref(removed);
	json_decref(extra);
	free(archive_relative);
	ac_buf_free(&path);
	return rc;
}

void ac_checkpoint_rollback_result_free(ac_checkpoint_rollback_result *result)
{
	free(result->archive_path);
	result->archive_path = NULL;
}
