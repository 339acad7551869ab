/* Fuzz target: the byte-exact JSON loader (ac_json_exact.h) that session,
 * checkpoint and compaction files go through. Whatever loads must dump
 * with no marker left over, and load again to the same dump. */
#include "ac_json_exact.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *root = NULL, *again = NULL;
	char *first = NULL, *second = NULL;
	size_t first_len = 0, second_len = 0;

	if (ac_json_exact_load(&root, (const char *)data, size, JSON_DECODE_ANY, "fuzz") != 0)
		return 0;
	first = ac_json_exact_dumps(root, JSON_COMPACT | JSON_ENCODE_ANY, &first_len);
	if (!first)
		goto done;
	if (strlen(first) != first_len)
		abort();
	if (ac_json_exact_load(&again, first, first_len, JSON_DECODE_ANY, "fuzz") != 0)
		abort(); /* what we wrote must read back */
	second = ac_json_exact_dumps(again, JSON_COMPACT | JSON_ENCODE_ANY, &second_len);
	if (second && (second_len != first_len || memcmp(first, second, first_len) != 0))
		abort();
done:
	free(first);
	free(second);
	json_decref(root);
	json_decref(again);
	return 0;
}
