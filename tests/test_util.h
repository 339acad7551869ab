#ifndef TEST_UTIL_H
#define TEST_UTIL_H
#endif
