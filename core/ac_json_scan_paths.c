/* The paths a scan picks: a dotted path split into keys, and paths
 * prepared once for many scans (a table of their keys by length and first
 * byte, so the scanner compares a key with the one or two paths it could
 * be). The scan itself is ac_json_scan.c. */
#include "ac_json_scan.h"
#include "ac_json_scan_impl.h"
#include "ac_error.h"

#include <stdint.h>
#include <string.h>

int ac_json_path_init(ac_json_path *out, const char *dotted)
{
	const char *p = dotted;

	memset(out, 0, sizeof(*out));
	if (!dotted || !*dotted)
		return ac_error_set(AC_EINVAL, "empty JSON path");
	for (;;) {
		const char *dot = strchr(p, '.');
		size_t seglen = dot ? (size_t)(dot - p) : strlen(p);

		if (seglen == 0) {
			memset(out, 0, sizeof(*out));
			return ac_error_set(AC_EINVAL,
					    "empty key in JSON path \"%s\"", dotted);
		}
		if (out->nsegments == AC_JSON_MAX_SEGMENTS) {
			memset(out, 0, sizeof(*out));
			return ac_error_set(AC_EINVAL,
					    "JSON path \"%s\" has more than %d keys",
					    dotted, AC_JSON_MAX_SEGMENTS);
		}
		out->segment[out->nsegments] = p;
		out->segment_len[out->nsegments] = seglen;
		out->nsegments++;
		if (!dot)
			break;
		p = dot + 1;
	}
	return 0;
}

int ac_json_paths_prepare(ac_json_paths *out, const ac_json_path *paths, size_t npaths)
{
	out->paths = paths;
	out->npaths = npaths;
	out->descend = 0;
	out->depths = 0;
	if (npaths > AC_JSON_MAX_PATHS)
		return ac_error_set(AC_EINVAL, "more than %d JSON paths in one scan",
				    AC_JSON_MAX_PATHS);
	for (size_t i = 0; i < npaths; i++) {
		if (paths[i].nsegments >= 1 && paths[i].nsegments <= AC_JSON_MAX_SEGMENTS) {
			out->descend |= (uint64_t)1 << i;
			if (paths[i].nsegments > out->depths)
				out->depths = paths[i].nsegments;
		}
	}
	/* Only the depths paths reach are ever looked up. */
	memset(out->by_key, 0, out->depths * sizeof(out->by_key[0]));
	for (size_t i = 0; i < npaths; i++) {
		if (!(out->descend & ((uint64_t)1 << i)))
			continue;
		for (size_t d = 0; d < paths[i].nsegments; d++)
			out->by_key[d][key_bucket(paths[i].segment_len[d] ?
						  (unsigned char)paths[i].segment[d][0] : 0,
						  paths[i].segment_len[d])] |= (uint64_t)1 << i;
	}
	return 0;
}
