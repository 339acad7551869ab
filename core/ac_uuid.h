/* Random (version 4) UUIDs, as crypto.randomUUID() makes them: the ids of
 * sessions, operations and checkpoints. */
#ifndef AC_UUID_H
#define AC_UUID_H

#define AC_UUID_LEN 36

/* Writes a new lowercase UUID v4 and its NUL to out. */
void ac_uuid_v4(char out[AC_UUID_LEN + 1]);

#endif
