/* shoal_collect with every member's size chosen around the limits where the implementation
 * changes its way: on a team whose signals go through MPI (direct path off, or across nodes) the
 * blocks ride in the size exchange's cells when every block fits (1 KiB each on teams of up to 8,
 * src/coll/api.c), else a second collective moves them; on the direct path the eager exchange
 * carries blocks up to 1072 bytes. Cases: every block exactly at a limit, one byte over, mixed
 * (some fit, some not), empty blocks among full ones, and all empty. Every member checks the
 * whole result against the pattern each member wrote, and the bytes after it stay untouched. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testlib.h"

#define MAXB  1100 /* largest block of a case */
#define GUARD 64   /* bytes after the result that must keep their value */

/* Size of member r's block in case c on a team of p. */
static size_t case_size(int c, int32_t r, int32_t p) {
    switch (c) {
    case 0:
        return 1024; /* every block exactly fills its cell */
    case 1:
        return 1025; /* every block one byte over */
    case 2:
        return r % 2 ? 1025 : 1024; /* some fit, some do not */
    case 3:
        return r == p - 1 ? 1024 : 0; /* empty blocks and one full one */
    case 4:
        return 0; /* nothing at all */
    case 5:
        return (size_t)(r * 131) % 1073; /* assorted, up to the eager cell */
    case 6:
        return r == 0 ? 1072 : 1073; /* the eager cell's limit */
    default:
        return (size_t)r + 1; /* small and different */
    }
}
#define NCASES 8

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    int32_t p = 0;
    shoal_unit_t me = 0;
    CHECK_OK(shoal_team_size(SHOAL_TEAM_ALL, &p));
    CHECK_OK(shoal_team_myid(SHOAL_TEAM_ALL, &me));
    shoal_gptr_t src = SHOAL_GPTR_NULL, dest = SHOAL_GPTR_NULL;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, MAXB, &src));
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, (size_t)p * MAXB + GUARD, &dest));
    uint8_t *s = NULL, *d = NULL;
    REQUIRE_OK(shoal_gptr_getaddr(shoal_gptr_setunit(src, (uint32_t)me), (void **)&s));
    REQUIRE_OK(shoal_gptr_getaddr(shoal_gptr_setunit(dest, (uint32_t)me), (void **)&d));
    for (int round = 0; round < 3; round++) /* again, so calls follow calls of other sizes */
        for (int c = 0; c < NCASES; c++) {
            uint64_t seed = (uint64_t)(round * NCASES + c) + 1;
            size_t mine = case_size(c, me, p), total = 0;
            for (int32_t r = 0; r < p; r++) total += case_size(c, r, p);
            fill_pattern(s, mine, seed, (uint64_t)me, 0);
            memset(d, 0xA5, (size_t)p * MAXB + GUARD);
            CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL)); /* nobody writes my dest before I reset it */
            CHECK_OK(shoal_collect(SHOAL_TEAM_ALL, dest, src, mine));
            char what[64];
            size_t at = 0;
            for (int32_t r = 0; r < p; r++) {
                size_t n = case_size(c, r, p);
                snprintf(what, sizeof what, "round %d case %d block of unit %d", round, c, (int)r);
                CHECK_PATTERN(d + at, n, seed, (uint64_t)r, 0, what);
                at += n;
            }
            int untouched = 1;
            for (size_t i = total; i < total + GUARD; i++) untouched &= d[i] == 0xA5;
            CHECK(untouched, "round %d case %d: bytes after the %zu-byte result were written",
                  round, c, total);
            CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL)); /* everybody read before src changes */
        }
    return test_end("test_collect_sizes");
}
