/* Shared helpers for the unit tests. */
#include "test_util.h"
