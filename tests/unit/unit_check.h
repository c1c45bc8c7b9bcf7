/* The unit tests' one check: CHECK(cond, fmt, ...) prints file:line and the message when cond is
 * false and counts it in `failures` (each test reports and returns non-zero when it is > 0). */
#ifndef SHOAL_UNIT_CHECK_H
#define SHOAL_UNIT_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#endif
