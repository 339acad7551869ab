/* The commit message of a recorded operation, as seed 000's
 * OperationLog.gitCommit words it:
 *   `[agent] ${type}: ${JSON.stringify(details).slice(0, 80)}`
 * byte for byte, so that tools written to the seed recognise agentctl's
 * commits. The details come as JSON text an agent wrote; the seed's agent
 * holds them as a JavaScript object, so every number is written as
 * JavaScript writes that Number (1E5 is 100000, 1.50 is 1.5, -0 is 0, 1e400
 * is null, an integer past 2^53 is the nearest double), strings as
 * JSON.stringify escapes them. */
#include "ac_oplog_impl.h"

#include "ac_buf.h"
#include "ac_error.h"
#include "ac_json_exact.h"

#include <ctype.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* JavaScript's Number.prototype.toString(10) of a finite v (ECMA-262
 * Number::toString): the shortest digits that read back as v, placed as
 * the spec places them. printf rounds correctly, so the first precision
 * that round-trips gives the closest such digits. */
static int js_number(ac_buf *out, double v)
{
	char text[40], digits[20];
	int k = 0, n, exponent;

	if (v == 0)
		return ac_buf_putc(out, '0'); /* -0 too */
	if (v < 0 && ac_buf_putc(out, '-'))
		return AC_ENOMEM;
	if (v < 0)
		v = -v;
	for (int precision = 1; precision <= 17; precision++) {
		snprintf(text, sizeof(text), "%.*e", precision - 1, v);
		if (strtod(text, NULL) == v)
			break;
	}
	for (const char *p = text; *p && *p != 'e'; p++)
		if (isdigit((unsigned char)*p))
			digits[k++] = *p;
	while (k > 1 && digits[k - 1] == '0')
		k--;
	digits[k] = '\0';
	exponent = atoi(strchr(text, 'e') + 1);
	n = exponent + 1; /* v = 0.digits * 10^n */
	if (k <= n && n <= 21)
		return ac_buf_printf(out, "%s%.*s", digits, n - k, "000000000000000000000")
			       ? AC_ENOMEM : 0;
	if (0 < n && n <= 21)
		return ac_buf_printf(out, "%.*s.%s", n, digits, digits + n) ? AC_ENOMEM : 0;
	if (-6 < n && n <= 0)
		return ac_buf_printf(out, "0.%.*s%s", -n, "000000", digits) ? AC_ENOMEM : 0;
	return ac_buf_printf(out, "%c%s%se%c%d", digits[0], k > 1 ? "." : "", digits + 1,
			     exponent < 0 ? '-' : '+', abs(exponent)) ? AC_ENOMEM : 0;
}

/* Rewrites compact JSON text as JSON.stringify would write its value:
 * numbers as JavaScript writes them (a non-finite one as null), \u
 * escapes in lower case; everything else as it is. */
static int js_stringify(ac_buf *out, char *json, size_t len)
{
	for (size_t i = 0; i < len;) {
		if (json[i] == '"') {
			size_t start = i++;

			for (; i < len && json[i] != '"'; i++) {
				if (json[i] != '\\')
					continue;
				if (json[i + 1] == 'u')
					for (size_t k = i + 2; k < i + 6 && k < len; k++)
						json[k] = (char)tolower((unsigned char)json[k]);
				i++; /* the escaped character is not an escape itself */
			}
			if (ac_buf_append(out, json + start, ++i - start))
				return AC_ENOMEM;
		} else if (json[i] == '-' || isdigit((unsigned char)json[i])) {
			size_t start = i;
			char saved;
			double v;

			/* A number ends at a delimiter the text holds, never at
			 * its end (the value is an object): strtod stops there. */
			while (i < len && strchr("+-.0123456789eE", json[i]))
				i++;
			saved = json[i];
			json[i] = '\0';
			v = strtod(json + start, NULL); /* out of range: +-HUGE_VAL */
			json[i] = saved;
			if (v > DBL_MAX || v < -DBL_MAX ? ac_buf_append(out, "null", 4)
							: js_number(out, v))
				return AC_ENOMEM;
		} else if (ac_buf_putc(out, json[i++])) {
			return AC_ENOMEM;
		}
	}
	return 0;
}

/* JavaScript's String.prototype.slice(0, max) of UTF-8 text: the bytes of
 * the first max UTF-16 code units, a character beyond the basic plane
 * counting two. *out_split is set when the cut falls inside such a
 * character: JavaScript then keeps half of it, which becomes U+FFFD when
 * the string is written out as UTF-8. */
static size_t utf16_prefix_bytes(const char *text, size_t len, size_t max, bool *out_split)
{
	size_t at = 0, units = 0;

	*out_split = false;
	while (at < len && units < max) {
		unsigned char lead = (unsigned char)text[at];
		size_t bytes = lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
		size_t cost = bytes == 4 ? 2 : 1;

		if (at + bytes > len)
			break;
		if (units + cost > max) {
			*out_split = true;
			break;
		}
		units += cost;
		at += bytes;
	}
	return at;
}

int ac_oplog_commit_message(ac_buf *out, const char *type, const json_t *details)
{
	ac_buf js = AC_BUF_INIT;
	size_t len = 0, kept;
	char *json = ac_json_exact_dumps(details, JSON_COMPACT, &len);
	bool split;
	int rc;

	if (!json)
		return ac_error_set(AC_ENOMEM, "out of memory");
	rc = js_stringify(&js, json, len);
	free(json);
	if (rc || !js.data) {
		ac_buf_free(&js);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	kept = utf16_prefix_bytes(js.data, js.len, 80, &split);
	rc = ac_buf_printf(out, "[agent] %s: ", type) || ac_buf_append(out, js.data, kept) ||
	     (split && ac_buf_append(out, "\xEF\xBF\xBD", 3));
	ac_buf_free(&js);
	return rc ? ac_error_set(AC_ENOMEM, "out of memory") : 0;
}
