/* Fuzz target: the journal line scanner + schema check, and event
 * completion (what `journal log` does with an argument). */
#include "ac_event.h"
#include "ac_json_scan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const extra[] = {"Copilot"};
	ac_event_schema schema = {extra, 1};
	ac_json_span fields[AC_EV_NFIELDS];
	char id[AC_EVENT_ID_LEN + 1], *text, *line = NULL;
	size_t len;

	/* Exactly size bytes, no terminator: overreads are caught. */
	ac_event_parse(fields, (const char *)data, size, &schema);
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (ac_event_prepare(&line, &len, id, text, &schema) == 0) {
		/* What log accepts must be a valid one-line event. */
		if (memchr(line, '\n', len) || ac_event_parse(fields, line, len, &schema) != 0)
			abort();
		free(line);
	}
	free(text);
	return 0;
}
