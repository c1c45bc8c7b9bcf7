/* The 128-bit global pointer: layout, helpers, and NULL. */
#include <stddef.h>
#include <stdio.h>

#include "shoal.h"

static int failures;
#define CHECK(c, what)                                                                             \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, what);                              \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

int main(void) {
    CHECK(sizeof(shoal_gptr_t) == 16, "a global pointer is 128 bits");
    CHECK(offsetof(shoal_gptr_t, unit) == 0 && offsetof(shoal_gptr_t, segid) == 4 &&
              offsetof(shoal_gptr_t, flags) == 6 && offsetof(shoal_gptr_t, offset) == 8,
          "layout: unit 32, segment 16, flags 16, offset 64");
    shoal_gptr_t null = SHOAL_GPTR_NULL;
    CHECK(shoal_gptr_is_null(null), "NULL is null");
    shoal_gptr_t g = {7, 3, 9, 4096};
    CHECK(!shoal_gptr_is_null(g), "non-NULL");
    shoal_gptr_t h = shoal_gptr_add(g, 100);
    CHECK(h.offset == 4196 && h.unit == 7 && h.segid == 3 && h.flags == 9, "add moves offset only");
    h = shoal_gptr_add(h, -100);
    CHECK(shoal_gptr_equal(h, g), "add then subtract");
    shoal_gptr_t u = shoal_gptr_setunit(g, 123456);
    CHECK(u.unit == 123456 && u.offset == g.offset && u.segid == g.segid && u.flags == g.flags,
          "setunit changes the unit alone");
    CHECK(!shoal_gptr_equal(u, g), "different units differ");
    shoal_gptr_t big = shoal_gptr_add(g, (int64_t)1 << 40);
    CHECK(big.offset == 4096 + ((uint64_t)1 << 40), "64-bit offsets");
    if (failures) {
        printf("test_gptr_encoding: FAILED (%d checks)\n", failures);
        return 1;
    }
    printf("test_gptr_encoding: OK\n");
    return 0;
}
