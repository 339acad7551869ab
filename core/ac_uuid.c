/* UUID v4 from the kernel's random source. */
#include "ac_uuid.h"

#include "ac_fs_calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

void ac_uuid_v4(char out[AC_UUID_LEN + 1])
{
	unsigned char b[16];

	if (ac_fs_getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		/* Practically never: fall back to a seeded generator. */
		srand((unsigned)time(NULL) ^ (unsigned)getpid());
		for (size_t i = 0; i < sizeof(b); i++)
			b[i] = (unsigned char)(rand() & 0xff);
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	snprintf(out, AC_UUID_LEN + 1,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
		 b[12], b[13], b[14], b[15]);
}
