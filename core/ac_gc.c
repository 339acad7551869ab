/* Retention over stores: the policy's parts every provider shares (ages,
 * the plan, applying it). Where files are lives in ac_gc_files.c. */
#include "ac_gc.h"

#include "ac_error.h"

#include <stdlib.h>
#include <string.h>

const char *ac_gc_kind_name(ac_gc_kind kind)
{
	switch (kind) {
	case AC_GC_CHECKPOINT:
		return "checkpoint";
	case AC_GC_COMPACTION:
		return "compaction archive";
	case AC_GC_ROLLBACK:
		return "rollback archive";
	case AC_GC_TRACE:
		return "trace";
	case AC_GC_JOURNAL:
		return "rotated journal";
	case AC_GC_EVENTS:
		return "orchestration events";
	case AC_GC_JOURNAL_EVENTS:
		return "journal events";
	}
	return "?";
}

int ac_gc_parse_age(int64_t *out_ms, const char *text)
{
	static const struct {
		char unit;
		int64_t ms;
	} units[] = {{'m', 60 * 1000}, {'h', 3600 * 1000}, {'d', 86400 * 1000},
		     {'w', 7 * 86400 * 1000}};
	size_t digits = strspn(text, "0123456789");
	int64_t value = 0;

	if (digits == 0 || digits > 9 || text[digits] == '\0' || text[digits + 1] != '\0')
		return ac_error_set(AC_EINVAL, "'%s' is not an age (a number and m, h, d or w: "
				    "90m, 12h, 30d, 2w)", text);
	for (size_t i = 0; i < digits; i++)
		value = value * 10 + (text[i] - '0');
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (text[digits] == units[i].unit) {
			if (value == 0)
				return ac_error_set(AC_EINVAL, "'%s': an age must be more than 0",
						    text);
			*out_ms = value * units[i].ms;
			return 0;
		}
	return ac_error_set(AC_EINVAL, "'%s' is not an age (a number and m, h, d or w: "
			    "90m, 12h, 30d, 2w)", text);
}

void ac_gc_plan_free(ac_gc_plan *plan)
{
	for (size_t i = 0; i < plan->count; i++) {
		ac_gc_item *item = &plan->items[i];

		free(item->path);
		free(item->owner);
		free(item->why);
		free(item->base);
		free(item->relative);
	}
	free(plan->items);
	memset(plan, 0, sizeof(*plan));
}

void ac_gc_store_free(ac_gc_store *store)
{
	if (store)
		store->ops->free(store);
}

int ac_gc_store_version_check(const ac_gc_store *store)
{
	if (!store || !store->ops)
		return ac_error_set(AC_EINVAL, "gc store: missing");
	if (store->ops->version != AC_GC_STORE_OPS_VERSION)
		return ac_error_set(AC_EINVAL,
				    "gc store version %u: this library's are version %u "
				    "(begin its ops with .version = AC_GC_STORE_OPS_VERSION)",
				    store->ops->version, AC_GC_STORE_OPS_VERSION);
	return 0;
}

static int by_kind_then_time(const void *a, const void *b)
{
	const ac_gc_item *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->time_ms != y->time_ms)
		return x->time_ms < y->time_ms ? -1 : 1;
	return strcmp(x->path, y->path);
}

int ac_gc_plan_make(ac_gc_plan *out, ac_gc_store *store, const ac_gc_policy *policy)
{
	int rc;

	if ((rc = ac_gc_store_version_check(store)))
		return rc;
	if (!policy->has_keep && policy->older_than_ms <= 0)
		return ac_error_set(AC_EINVAL, "gc: no rule given (--keep N, --older-than AGE): "
				    "nothing is removed by default");
	if ((rc = store->ops->plan(store, out, policy)))
		return rc;
	if (out->count)
		qsort(out->items, out->count, sizeof(*out->items), by_kind_then_time);
	return 0;
}

int ac_gc_apply(size_t *out_removed, uint64_t *out_bytes, ac_gc_store *store,
		const ac_gc_plan *plan, ac_gc_report_fn report, void *ctx)
{
	size_t removed = 0;
	uint64_t bytes = 0;
	int rc = ac_gc_store_version_check(store);

	for (size_t i = 0; !rc && i < plan->count; i++) {
		const ac_gc_item *item = &plan->items[i];

		rc = store->ops->remove(store, item);
		if (rc == 0) {
			removed++;
			bytes += item->bytes;
		}
		if (report && (rc == 0 || rc == AC_ENOTFOUND || rc == AC_ECONFLICT))
			report(item, rc, ctx);
		if (report && rc == 0 && store->ops->skipped && store->ops->skipped(store, item))
			report(item, AC_ECONFLICT, ctx);
		if (rc == AC_ENOTFOUND || rc == AC_ECONFLICT)
			rc = 0;
		if (rc)
			break;
	}
	if (out_removed)
		*out_removed = removed;
	if (out_bytes)
		*out_bytes = bytes;
	return rc;
}
