/* The frame trace (frame_trace.h): a benchmark's view of when a row was drawn. */
#include "frame_trace.h"

#include <stdlib.h>
#include <time.h>

FILE *ui_frame_trace_open(ui_model *m)
{
	const char *path = getenv("AGENTCTL_TRACE_FRAMES");
	FILE *trace = path && *path ? fopen(path, "ae") : NULL;

	m->track_touched = trace != NULL;
	return trace;
}

void ui_frame_trace_drawn(FILE *trace, ui_model *m)
{
	struct timespec now;

	if (!trace || !m->n_touched)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	for (size_t i = 0; i < m->n_touched; i++)
		fprintf(trace, "%lld %s\n",
			(long long)now.tv_sec * 1000000000LL + now.tv_nsec, m->touched[i]);
	fflush(trace);
	ui_model_clear_touched(m);
}

void ui_frame_trace_close(FILE *trace)
{
	if (trace)
		fclose(trace);
}
