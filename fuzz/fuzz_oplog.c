/* Fuzz target: one operation-log line, as any agent can append it to
 * .agent/operations.jsonl (ac_oplog_parse_line), then the summary the
 * list and the dashboard show for it. */
#include "ac_error.h"
#include "ac_oplog.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ac_buf why = AC_BUF_INIT, summary = AC_BUF_INIT;
	ac_op op;
	int rc;

	/* Exactly size bytes, no terminator: overreads are caught. */
	rc = ac_oplog_parse_line(&op, (const char *)data, size, &why);
	if (rc == 0) {
		/* What loads has an id, a type and an object for details. */
		if (!op.id || !*op.id || !op.type || !json_is_object(op.details))
			abort();
		if (ac_oplog_summary(&summary, op.details, 100) == 0 && summary.len > 100)
			abort();
		ac_oplog_op_clear(&op);
	} else if (rc == AC_ECORRUPT && (!why.data || !why.len)) {
		abort(); /* a refused line always says why */
	}
	ac_buf_free(&why);
	ac_buf_free(&summary);
	return 0;
}
