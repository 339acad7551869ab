/* What the checkpoint files share (core/ac_checkpoint*.c: one module
 * split by concern); not API. */
#ifndef AC_CHECKPOINT_IMPL_H
#define AC_CHECKPOINT_IMPL_H

#include <jansson.h>

/* The string member key of doc, or "" when it is missing or not a string
 * (ac_checkpoint.c; creating reads message blocks with it too). */
const char *ac_checkpoint_str_member(const json_t *doc, const char *key);

#endif
