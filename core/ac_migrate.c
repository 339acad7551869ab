/* Copying between stores: the kinds kept by key (sessions and their turn
 * usage rows, memos, artifacts, traces, orchestration, checkpoints); the
 * journal is in
 * ac_migrate_journal.c.
 *
 * Each kind is walked twice over the source: once to copy, once to count
 * what the destination holds equal (the verification). Both walks share
 * one routine per kind, which reads an item on both sides and says where
 * it stands (absent, equal, other); only the copy writes, and only what is
 * absent. A store that cannot be reached (AC_EIO) stops the run; a bad
 * item is counted and reported, and the rest goes on. */
#include "ac_migrate.h"

#include "ac_backend_sys.h"
#include "ac_buf.h"
#include "ac_error.h"
#include "ac_struct_version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORDS_PER_WRITE 1000 /* log records per put_records transaction */

typedef enum { ABSENT, EQUAL, OTHER } standing;

typedef struct {
	const ac_migrate_store *from, *to;
	const ac_migrate_options *opts;
	ac_migrate_count *out;
	bool verify; /* the second walk: count, write nothing */
	ac_buf key;
} run;

const char *ac_migrate_kind_name(ac_migrate_kind kind)
{
	static const char *const names[AC_MIGRATE_NKINDS] = {
		[AC_MIGRATE_SESSIONS] = "sessions",
		[AC_MIGRATE_USAGE] = "turn usage rows",
		[AC_MIGRATE_MEMOS] = "memos",
		[AC_MIGRATE_ARTIFACTS] = "artifacts",
		[AC_MIGRATE_TRACES] = "trace records",
		[AC_MIGRATE_EVENTS] = "orchestration events",
		[AC_MIGRATE_SNAPSHOTS] = "snapshots",
		[AC_MIGRATE_CHECKPOINTS] = "checkpoints",
		[AC_MIGRATE_ARCHIVES] = "compaction archives",
		[AC_MIGRATE_JOURNAL] = "journal events",
	};

	return kind < AC_MIGRATE_NKINDS ? names[kind] : "?";
}

/* True when the run copies only one tenant's items and tenant is not it. */
static bool other_tenant(const run *r, const char *tenant)
{
	return r->opts->only_tenant && strcmp(r->opts->only_tenant, tenant) != 0;
}

/* Sets r->key to the parts joined by '/'. */
static int make_key(run *r, const char *const *parts, size_t n)
{
	ac_buf_clear(&r->key);
	for (size_t i = 0; i < n; i++)
		if (ac_buf_printf(&r->key, "%s%s", i ? "/" : "", parts[i]))
			return ac_error_set(AC_ENOMEM, "out of memory");
	return 0;
}

/* Counts an item not copied and tells the caller's problem function.
 * AC_EIO (a store unreachable) and AC_ENOMEM stop the run: returned. */
static int trouble(run *r, ac_migrate_kind kind, bool conflict, int rc, const char *why)
{
	if (rc == AC_EIO || rc == AC_ENOMEM)
		return rc;
	if (r->verify)
		return 0; /* reported by the copy already */
	if (conflict)
		r->out[kind].conflicts++;
	else
		r->out[kind].failed++;
	if (r->opts->problem)
		r->opts->problem(kind, r->key.data ? r->key.data : "", conflict, why, r->opts->ctx);
	return 0;
}

static int other_content(run *r, ac_migrate_kind kind)
{
	return trouble(r, kind, true, AC_ECONFLICT,
		       "the destination holds other content under this key; left as it is");
}

/* Where an item stands, counted; true when the caller is to write it. */
static bool tally(run *r, ac_migrate_kind kind, standing s)
{
	ac_migrate_count *c = &r->out[kind];

	if (r->verify) {
		c->verified += s == EQUAL;
		return false;
	}
	c->source++;
	if (s == EQUAL)
		c->present++;
	else if (s == OTHER)
		other_content(r, kind);
	else if (r->opts->dry_run)
		c->copied++;
	return s == ABSENT && !r->opts->dry_run;
}

/* After a write of n items: counted as copied, or all n as trouble (one
 * line: they were one write). */
static int wrote(run *r, ac_migrate_kind kind, int rc, uint64_t n)
{
	bool conflict = rc == AC_ECONFLICT;

	if (rc) {
		if ((rc = trouble(r, kind, conflict, rc, ac_error_last())) || r->verify)
			return rc;
		if (conflict)
			r->out[kind].conflicts += n - 1;
		else
			r->out[kind].failed += n - 1;
		return 0;
	}
	r->out[kind].copied += n;
	if (r->opts->after_write)
		r->opts->after_write(kind, r->opts->ctx);
	return 0;
}

/* The destination's reading of an item: EQUAL/OTHER after a read (rc 0),
 * ABSENT for AC_ENOTFOUND; any other rc is returned in *err. */
static standing seen(int rc, bool equal, int *err)
{
	*err = 0;
	if (rc == 0)
		return equal ? EQUAL : OTHER;
	if (rc != AC_ENOTFOUND)
		*err = rc;
	return ABSENT;
}

/* ---- sessions, then their turn usage rows ---- */

/* The row of rows whose turn is turn, or NULL; *hint is where to look
 * first (rows in turn order on both sides make the walk one pass). */
static const json_t *row_of_turn(const json_t *rows, json_int_t turn, size_t *hint)
{
	size_t n = json_array_size(rows);

	for (size_t k = 0; k < n; k++) {
		size_t at = (*hint + k) % n;
		const json_t *row = json_array_get(rows, at);

		if (json_integer_value(json_object_get(row, "turn")) == turn) {
			*hint = at + 1;
			return row;
		}
	}
	return NULL;
}

/* The session's rows as its store reads them (session.load_usage: in a
 * file store, the carried row it shows for totals counted before rows were
 * kept included), so a session reads the same on both sides: *out a new
 * array. */
static int load_rows(ac_backend *b, json_t **out, const char *tenant, const char *id)
{
	json_t *loaded = NULL;
	int rc;

	*out = NULL;
	if ((rc = b->session.load_usage(b->impl, &loaded, tenant, id)))
		return rc;
	*out = json_incref(json_object_get(loaded, "turns"));
	json_decref(loaded);
	return *out ? 0 : ac_error_set(AC_ECORRUPT, "session %s: its usage has no rows", id);
}

/* The session's rows at the source (given: as the source's load_usage gave
 * them, for a session no tenant's call reaches), each compared by turn with
 * the destination's; those absent written in one put (all or none). When the
 * session is not at the destination as the source has it (a conflict, or
 * not copied: session_ok false) its rows are not added to what is there:
 * counted as not copied, one line. In a dry run the destination may lack
 * the session: its rows count as absent. */
static int usage_rows(run *r, const char *tenant, const char *id, bool session_ok,
		      const json_t *given)
{
	ac_backend *from = r->from->backend, *to = r->to->backend;
	const char *parts[2] = {tenant, id};
	json_t *rows = NULL, *there = NULL, *pending = json_array(), *row;
	size_t i, hint = 0;
	int rc, err;

	if (!pending)
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = make_key(r, parts, 2)))
		goto done;
	if (given)
		rows = json_incref(json_object_get(given, "turns"));
	else if ((rc = load_rows(from, &rows, tenant, id))) {
		rc = rc == AC_ENOTFOUND ? 0 : trouble(r, AC_MIGRATE_USAGE, false, rc, ac_error_last());
		goto done;
	}
	if (!session_ok && !r->verify && json_array_size(rows)) {
		r->out[AC_MIGRATE_USAGE].source += json_array_size(rows);
		ac_error_set(AC_EINVAL, "the destination does not hold this session as the source "
			     "does: its %zu rows are not added to it", json_array_size(rows));
		rc = wrote(r, AC_MIGRATE_USAGE, AC_EINVAL, json_array_size(rows));
		goto done;
	}
	/* The destination's stored rows: a file store's made-up carried row
	 * (from the document just copied) is not a row there yet. */
	rc = to->copy.usage_rows(to->impl, &there, tenant, id);
	if (rc && rc != AC_ENOTFOUND) {
		rc = trouble(r, AC_MIGRATE_USAGE, false, rc, ac_error_last());
		goto done;
	}
	json_array_foreach(rows, i, row) {
		json_int_t turn = json_integer_value(json_object_get(row, "turn"));
		const json_t *other = row_of_turn(there, turn, &hint);
		char number[24];
		const char *key[3] = {tenant, id, number};

		snprintf(number, sizeof(number), "turn %lld", (long long)turn);
		if ((rc = make_key(r, key, 3)))
			goto done;
		if (tally(r, AC_MIGRATE_USAGE,
			  seen(other ? 0 : AC_ENOTFOUND, other && json_equal(row, other), &err)) &&
		    json_array_append(pending, row)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	}
	rc = 0;
	if (json_array_size(pending) && !(rc = make_key(r, parts, 2)))
		rc = wrote(r, AC_MIGRATE_USAGE, to->copy.put_usage_rows(to->impl, tenant, id, pending),
			   json_array_size(pending));
done:
	json_decref(rows);
	json_decref(there);
	json_decref(pending);
	return rc;
}

/* A source session of no tenant (a seed-style file), as the destination
 * is to hold it: *doc its document with metadata.tenantId = the options'
 * tenant, *usage its usage. AC_EINVAL (reported) without such a tenant. */
static int adopt(run *r, json_t **doc, json_t **usage, const char *id)
{
	ac_backend *from = r->from->backend;
	json_t *source = NULL, *metadata;
	int rc;

	*doc = *usage = NULL;
	if (!r->opts->tenant)
		return ac_error_set(AC_EINVAL, "no tenant (metadata.tenantId), and a database keeps "
				    "every session under one: give one with --tenant T");
	if (!from->copy.get_untenanted)
		return ac_error_set(AC_EINVAL, "no tenant, and its store cannot read it without one");
	if ((rc = from->copy.get_untenanted(from->impl, &source, usage, id)))
		return rc;
	metadata = json_object_get(source, "metadata");
	if (metadata && !json_is_object(metadata)) {
		rc = ac_error_set(AC_ECORRUPT, "its metadata is not an object");
	} else if (!(*doc = json_deep_copy(source)) ||
		   (!metadata && json_object_set_new(*doc, "metadata", json_object())) ||
		   json_object_set_new(json_object_get(*doc, "metadata"), "tenantId",
				       json_string(r->opts->tenant))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
	}
	json_decref(source);
	if (rc) {
		json_decref(*doc);
		json_decref(*usage);
		*doc = *usage = NULL;
	}
	return rc;
}

static int one_session(run *r, const ac_backend_session_info *info)
{
	ac_backend *from = r->from->backend, *to = r->to->backend;
	const char *tenant = *info->tenant ? info->tenant : r->opts->tenant;
	const char *parts[2] = {tenant ? tenant : "", info->session_id};
	json_t *doc = NULL, *there = NULL, *usage = NULL;
	bool created = false;
	standing s;
	int rc, err;

	if ((rc = make_key(r, parts, 2)))
		return rc;
	rc = *info->tenant ? from->session.get(from->impl, &doc, tenant, info->session_id)
			   : adopt(r, &doc, &usage, info->session_id);
	if (rc) {
		if (!*info->tenant && rc != AC_ENOTFOUND && !r->verify)
			r->out[AC_MIGRATE_SESSIONS].source++;
		return rc == AC_ENOTFOUND ? 0 : trouble(r, AC_MIGRATE_SESSIONS, false, rc,
							 ac_error_last());
	}
	rc = to->session.get(to->impl, &there, tenant, info->session_id);
	s = seen(rc, rc == 0 && json_equal(doc, there), &err);
	rc = 0;
	if (err)
		rc = trouble(r, AC_MIGRATE_SESSIONS, false, err, ac_error_last());
	else if (tally(r, AC_MIGRATE_SESSIONS, s)) {
		rc = to->copy.put_session(to->impl, &created, tenant, doc);
		if (!rc && !created)
			rc = ac_error_set(AC_ECONFLICT, "a session with this id is at the destination "
					  "(another tenant's)");
		rc = wrote(r, AC_MIGRATE_SESSIONS, rc, 1);
	}
	if (!rc)
		rc = usage_rows(r, tenant, info->session_id,
				!err && (s == EQUAL || (s == ABSENT && (created || r->opts->dry_run))),
				usage);
	json_decref(doc);
	json_decref(there);
	json_decref(usage);
	return rc;
}

static int sessions(run *r)
{
	ac_backend *from = r->from->backend;
	ac_backend_session_info *list = NULL;
	size_t n = 0;
	int rc;

	if ((rc = from->inspector.list_sessions(from->impl, &list, &n, r->opts->only_tenant)))
		return rc;
	for (size_t i = 0; i < n && !rc; i++)
		rc = one_session(r, &list[i]);
	ac_backend_sessions_free(list, n);
	return rc;
}

/* ---- memos and artifacts: bytes by key ---- */

static int one_document(run *r, ac_migrate_kind kind, const char *const *key)
{
	ac_backend *from = r->from->backend, *to = r->to->backend;
	bool memo = kind == AC_MIGRATE_MEMOS;
	char *data = NULL, *there = NULL;
	size_t len = 0, there_len = 0;
	standing s;
	int rc, err;

	if (other_tenant(r, key[0]))
		return 0;
	if ((rc = make_key(r, key, memo ? 4 : 3)))
		return rc;
	rc = memo ? from->memo.read(from->impl, &data, &len, key[0], key[1], key[2], key[3])
		  : from->artifact.read(from->impl, &data, &len, key[0], key[1], key[2]);
	if (rc)
		return rc == AC_ENOTFOUND ? 0 : trouble(r, kind, false, rc, ac_error_last());
	rc = memo ? to->memo.read(to->impl, &there, &there_len, key[0], key[1], key[2], key[3])
		  : to->artifact.read(to->impl, &there, &there_len, key[0], key[1], key[2]);
	s = seen(rc, rc == 0 && there_len == len && !memcmp(there, data, len), &err);
	rc = 0;
	if (err)
		rc = trouble(r, kind, false, err, ac_error_last());
	else if (tally(r, kind, s))
		rc = wrote(r, kind,
			   memo ? to->memo.write(to->impl, key[0], key[1], key[2], key[3], data, len)
				: to->artifact.write(to->impl, key[0], key[1], key[2], data, len),
			   1);
	free(data);
	free(there);
	return rc;
}

static int memo_key(const char *const *key, void *ctx)
{
	return one_document(ctx, AC_MIGRATE_MEMOS, key);
}

static int artifact_key(const char *const *key, void *ctx)
{
	return one_document(ctx, AC_MIGRATE_ARTIFACTS, key);
}

/* ---- traces and orchestration: records by seq, then the snapshot ---- */

static uint64_t seq_of(const json_t *record)
{
	json_int_t seq = json_integer_value(json_object_get(record, "seq"));

	return seq > 0 ? (uint64_t)seq : 0;
}

static int load_log(ac_backend *b, json_t **out, size_t *skipped, const char *const *key)
{
	if (!strcmp(key[1], "trace"))
		return b->trace.load(b->impl, out, skipped, key[0], key[2], 0);
	return b->orch.load_events(b->impl, out, skipped, key[0], key[2], 0);
}

/* Writes pending (records absent at the destination, in seq order) in
 * transactions of RECORDS_PER_WRITE. */
static int put_pending(run *r, ac_migrate_kind kind, const char *const *key, json_t *pending)
{
	ac_backend *to = r->to->backend;
	size_t n = json_array_size(pending);
	int rc = 0;

	for (size_t at = 0; at < n && !rc; at += RECORDS_PER_WRITE) {
		size_t end = at + RECORDS_PER_WRITE < n ? at + RECORDS_PER_WRITE : n;
		json_t *chunk = json_array();

		for (size_t i = at; chunk && i < end; i++)
			if (json_array_append(chunk, json_array_get(pending, i))) {
				json_decref(chunk);
				chunk = NULL;
			}
		if (!chunk)
			return ac_error_set(AC_ENOMEM, "out of memory");
		rc = wrote(r, kind, to->copy.put_records(to->impl, key[0], key[1], key[2], chunk),
			   end - at);
		json_decref(chunk);
	}
	return rc;
}

static int snapshot(run *r, const char *const *key)
{
	ac_backend *from = r->from->backend, *to = r->to->backend;
	const char *parts[3] = {key[0], key[2], "snapshot"};
	json_t *state = NULL, *there = NULL;
	uint64_t covers = 0, there_covers = 0;
	standing s;
	int rc, err;

	if ((rc = make_key(r, parts, 3)))
		return rc;
	if ((rc = from->orch.load_snapshot(from->impl, &state, &covers, key[0], key[2])))
		return rc == AC_ENOTFOUND ? 0 : trouble(r, AC_MIGRATE_SNAPSHOTS, false, rc,
							 ac_error_last());
	rc = to->orch.load_snapshot(to->impl, &there, &there_covers, key[0], key[2]);
	s = seen(rc, rc == 0 && covers == there_covers && json_equal(state, there), &err);
	rc = 0;
	if (err)
		rc = trouble(r, AC_MIGRATE_SNAPSHOTS, false, err, ac_error_last());
	else if (tally(r, AC_MIGRATE_SNAPSHOTS, s))
		rc = wrote(r, AC_MIGRATE_SNAPSHOTS,
			   to->orch.write_snapshot(to->impl, key[0], key[2], covers, state), 1);
	json_decref(state);
	json_decref(there);
	return rc;
}

static int log_key(const char *const *key, void *ctx)
{
	run *r = ctx;
	bool trace = !strcmp(key[1], "trace");
	ac_migrate_kind kind = trace ? AC_MIGRATE_TRACES : AC_MIGRATE_EVENTS;
	json_t *records = NULL, *there = NULL, *pending = NULL, *record;
	size_t skipped = 0, j = 0, i;
	int rc, err = 0;

	if (other_tenant(r, key[0]))
		return 0;
	if ((rc = make_key(r, key, 3)))
		return rc;
	if ((rc = load_log(r->from->backend, &records, &skipped, key)))
		return trouble(r, kind, false, rc, ac_error_last());
	if (!r->verify)
		r->out[kind].skipped += skipped;
	if ((rc = load_log(r->to->backend, &there, NULL, key))) {
		rc = trouble(r, kind, false, rc, ac_error_last());
		goto done;
	}
	if (!(pending = json_array())) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	/* Both sorted by seq: one merge. */
	json_array_foreach(records, i, record) {
		uint64_t seq = seq_of(record);
		json_t *other;
		standing s;

		while ((other = json_array_get(there, j)) && seq_of(other) < seq)
			j++;
		s = seen(other && seq_of(other) == seq ? 0 : AC_ENOTFOUND,
			 other && json_equal(json_object_get(record, "data"),
					     json_object_get(other, "data")),
			 &err);
		if (tally(r, kind, s) && json_array_append(pending, record)) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
	}
	if ((rc = put_pending(r, kind, key, pending)))
		goto done;
	if (!trace)
		rc = snapshot(r, key);
done:
	json_decref(records);
	json_decref(there);
	json_decref(pending);
	return rc;
}

/* ---- checkpoints ---- */

static int one_checkpoint(run *r, const char *session_id, const json_t *doc)
{
	ac_checkpoint_store *to = r->to->checkpoints;
	const char *parts[2] = {session_id, ac_checkpoint_id(doc)};
	json_t *there = NULL;
	standing s;
	int rc, err;

	if ((rc = make_key(r, parts, 2)))
		return rc;
	/* Its ids name files at a file destination: checked here, since a
	 * provider's save trusts its caller (and the source is not trusted). */
	if ((rc = ac_checkpoint_validate(doc)) || (rc = ac_checkpoint_id_check(session_id)) ||
	    (strcmp(ac_checkpoint_session(doc), session_id) != 0 &&
	     (rc = ac_error_set(AC_ECORRUPT, "its sessionId is not '%s'", session_id)))) {
		if (!r->verify)
			r->out[AC_MIGRATE_CHECKPOINTS].source++;
		return trouble(r, AC_MIGRATE_CHECKPOINTS, false, AC_ECORRUPT, ac_error_last());
	}
	rc = to->ops->get(to, &there, session_id, parts[1]);
	s = seen(rc, rc == 0 && json_equal(doc, there), &err);
	rc = 0;
	if (err)
		rc = trouble(r, AC_MIGRATE_CHECKPOINTS, false, err, ac_error_last());
	else if (tally(r, AC_MIGRATE_CHECKPOINTS, s))
		rc = wrote(r, AC_MIGRATE_CHECKPOINTS, to->ops->save(to, doc), 1);
	json_decref(there);
	return rc;
}

/* A stored checkpoint the source's provider cannot read (and skips). */
static void unreadable(const char *path, const char *reason, void *ctx)
{
	run *r = ctx;
	const char *parts[1] = {path};

	if (make_key(r, parts, 1) == 0 && !r->verify) {
		r->out[AC_MIGRATE_CHECKPOINTS].source++;
		trouble(r, AC_MIGRATE_CHECKPOINTS, false, AC_ECORRUPT, reason);
	}
}

/* Checkpoints are kept by session, not tenant: a session's belongs to
 * its session's tenant. One of no session the source holds is nobody's. */
static bool of_tenant(run *r, const char *session_id)
{
	ac_backend *from = r->from->backend;
	ac_backend_session_info info = {0};
	bool ours = from->inspector.find(from->impl, &info, session_id) == 0 &&
		    !other_tenant(r, info.tenant);

	ac_backend_session_info_clear(&info);
	ac_error_clear();
	return ours;
}

static int checkpoints(run *r)
{
	ac_checkpoint_store *from = r->from->checkpoints;
	ac_checkpoint_problem_fn problem = from->problem;
	void *problem_ctx = from->problem_ctx;
	char **ids = NULL;
	size_t n = 0;
	int rc, err;

	if (!from->ops->sessions)
		return ac_error_set(AC_EINVAL, "the %s checkpoint store cannot list its sessions",
				    from->ops->name);
	if ((rc = from->ops->sessions(from, &ids, &n)))
		return rc;
	ac_checkpoint_store_set_problem(from, unreadable, r);
	for (size_t i = 0; i < n && !rc; i++) {
		ac_checkpoint_filter filter = {.session_id = ids[i], .include_tombstones = true};
		json_t *list = NULL, *doc;
		size_t k;

		if (r->opts->only_tenant && !of_tenant(r, ids[i]))
			continue;
		if ((err = from->ops->list(from, &list, &filter))) {
			const char *parts[1] = {ids[i]};

			if (!(rc = make_key(r, parts, 1)))
				rc = trouble(r, AC_MIGRATE_CHECKPOINTS, false, err, ac_error_last());
			continue;
		}
		json_array_foreach(list, k, doc) {
			if ((rc = one_checkpoint(r, ids[i], doc)))
				break;
		}
		json_decref(list);
	}
	ac_checkpoint_store_set_problem(from, problem, problem_ctx);
	ac_backend_names_free(ids, n);
	return rc;
}

/* ---- archives of removed messages: documents by key ---- */

static int archive_key(const char *const *key, void *ctx)
{
	run *r = ctx;
	ac_backend *from = r->from->backend, *to = r->to->backend;
	json_t *doc = NULL, *there = NULL;
	standing s;
	int rc, err;

	/* An archive of a session of no tenant goes with it (adopt()). */
	const char *dest[4] = {*key[0] ? key[0] : r->opts->tenant, key[1], key[2], key[3]};

	if (other_tenant(r, key[0]))
		return 0;
	if ((rc = make_key(r, dest[0] ? dest : key, 4)))
		return rc;
	if (!dest[0]) {
		if (!r->verify)
			r->out[AC_MIGRATE_ARCHIVES].source++;
		return trouble(r, AC_MIGRATE_ARCHIVES, false, AC_EINVAL,
			       "its session has no tenant (or cannot be read): not copied "
			       "(--tenant T gives one)");
	}
	if ((rc = from->copy.get_archive(from->impl, &doc, key))) {
		if (!r->verify)
			r->out[AC_MIGRATE_ARCHIVES].source++;
		return trouble(r, AC_MIGRATE_ARCHIVES, false, rc, ac_error_last());
	}
	rc = to->copy.get_archive(to->impl, &there, dest);
	s = seen(rc, rc == 0 && json_equal(doc, there), &err);
	rc = 0;
	if (err)
		rc = trouble(r, AC_MIGRATE_ARCHIVES, false, err, ac_error_last());
	else if (tally(r, AC_MIGRATE_ARCHIVES, s))
		rc = wrote(r, AC_MIGRATE_ARCHIVES, to->copy.put_archive(to->impl, dest, doc), 1);
	json_decref(doc);
	json_decref(there);
	return rc;
}

/* ---- the run ---- */

static int walk(run *r)
{
	ac_backend *from = r->from->backend;
	int rc;

	if ((rc = sessions(r)) || (rc = from->copy.each_memo(from->impl, memo_key, r)) ||
	    (rc = from->copy.each_artifact(from->impl, artifact_key, r)) ||
	    (rc = from->copy.each_log(from->impl, log_key, r)) || (rc = checkpoints(r)) ||
	    (rc = from->copy.each_archive(from->impl, archive_key, r)))
		return rc;
	return 0;
}

int ac_migrate_run(ac_migrate_count out[AC_MIGRATE_NKINDS], const ac_migrate_store *from,
		   const ac_migrate_store *to, const ac_migrate_options *opts)
{
	ac_migrate_options none = AC_MIGRATE_OPTIONS_INIT;
	run r = {from, to, opts ? opts : &none, out, false, AC_BUF_INIT};
	int rc;

	memset(out, 0, sizeof(*out) * AC_MIGRATE_NKINDS);
	if ((rc = ac_struct_version_check("ac_migrate_options", r.opts->version,
					  AC_MIGRATE_OPTIONS_VERSION, "AC_MIGRATE_OPTIONS_INIT")) ||
	    (rc = ac_backend_version_check(from->backend)) ||
	    (rc = ac_backend_version_check(to->backend)) ||
	    (rc = ac_checkpoint_store_version_check(from->checkpoints)) ||
	    (rc = ac_checkpoint_store_version_check(to->checkpoints)) ||
	    (rc = ac_journal_store_version_check(from->journal)) ||
	    (rc = ac_journal_store_version_check(to->journal)))
		return rc;
	if (!from->backend->copy.each_memo || !to->backend->copy.put_session ||
	    !from->backend->session.load_usage || !to->backend->copy.usage_rows ||
	    !to->backend->copy.put_usage_rows || !from->backend->copy.each_archive ||
	    !to->backend->copy.get_archive || !to->backend->copy.put_archive)
		return ac_error_set(AC_EINVAL, "storage migrate: a store cannot be copied "
				    "(its backend has no copy operations)");
	if ((rc = walk(&r)) ||
	    (rc = ac_migrate_journal(&out[AC_MIGRATE_JOURNAL], from->journal, to->journal,
				     r.opts)))
		goto done;
	if (!r.opts->dry_run) {
		r.verify = true;
		rc = walk(&r);
	}
done:
	ac_buf_free(&r.key);
	return rc;
}
