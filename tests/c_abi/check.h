/* CHECK(cond, fmt, ...): the C ABI test programs' soft assertion. A failed
 * condition prints file, line and the message to stderr and counts in
 * `failures`; main returns non-zero when it is not 0. One translation unit
 * per program, so the counter lives here. */
#ifndef ATENAOT_TESTS_C_ABI_CHECK_H
#define ATENAOT_TESTS_C_ABI_CHECK_H

#include <stdio.h>

static int failures = 0;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      ++failures;                                          \
    }                                                      \
  } while (0)

#endif
