/* Collective calls fail together in checked mode (SHOAL_CHECK_COLLECTIVES=1, set by this program
 * before shoal_init): a bad argument on one unit, or valid but different arguments (roots, sizes,
 * types, operations, buffers), give every unit an error instead of a hang or wrong data; the team
 * stays usable and later calls give the right data. Without checked mode the same calls hang
 * (hardening issue, defects 5 and 9). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define N 64

static int64_t *mine_of(shoal_gptr_t gp) {
    void *p = NULL;
    CHECK_OK(shoal_gptr_getaddr(gp, &p));
    return p;
}

/* Every unit must see an error (any code) from call. */
#define ALL_FAIL(call, what)                                                                       \
    do {                                                                                           \
        shoal_err_t e_ = (call);                                                                   \
        CHECK(e_ != SHOAL_OK, "%s: returned SHOAL_OK on unit %d", what, (int)t_me);                \
    } while (0)

/* A correct broadcast and reduce after the failures: the team's collective state is intact. */
static void still_works(shoal_gptr_t a, shoal_gptr_t b, int round) {
    int64_t *pa = mine_of(a), *pb = mine_of(b);
    for (int i = 0; i < N; i++) pa[i] = t_me == 0 ? 1000 * round + i : -1;
    CHECK_OK(shoal_broadcast(SHOAL_TEAM_ALL, b, a, N * sizeof(int64_t), 0));
    for (int i = 0; i < N; i++)
        if (!CHECK(pb[i] == 1000 * round + i, "round %d: bcast[%d] = %lld", round, i,
                   (long long)pb[i]))
            break;
    for (int i = 0; i < N; i++) pa[i] = t_me + i;
    CHECK_OK(shoal_reduce(SHOAL_TEAM_ALL, b, a, N, SHOAL_TYPE_INT64, SHOAL_RED_SUM));
    int64_t base = (int64_t)t_np * (t_np - 1) / 2;
    for (int i = 0; i < N; i++)
        if (!CHECK(pb[i] == base + (int64_t)t_np * i, "round %d: reduce[%d] = %lld", round, i,
                   (long long)pb[i]))
            break;
}

int main(int argc, char **argv) {
    setenv("SHOAL_CHECK_COLLECTIVES", "1", 1);
    test_begin(&argc, &argv);
    shoal_gptr_t a, b, c;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &a));
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &b));
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &c));
    const size_t bytes = N * sizeof(int64_t);
    shoal_unit_t odd = t_np - 1;
    int me_odd = t_me == odd;
    still_works(a, b, 0);

    /* Rejected on one unit only. */
    ALL_FAIL(shoal_broadcast(SHOAL_TEAM_ALL, b, a, bytes, me_odd ? t_np + 5 : 0), "bad root");
    ALL_FAIL(shoal_broadcast(SHOAL_TEAM_ALL, me_odd ? SHOAL_GPTR_NULL : b, a, bytes, 0),
             "NULL dest");
    ALL_FAIL(shoal_reduce(SHOAL_TEAM_ALL, b, a, N, me_odd ? (shoal_type_t)99 : SHOAL_TYPE_INT64,
                          SHOAL_RED_SUM),
             "bad type");
    ALL_FAIL(shoal_alltoalls(SHOAL_TEAM_ALL, b, a, 1, 1, 8, me_odd ? SIZE_MAX / 2 : 1),
             "huge alltoalls");
    ALL_FAIL(shoal_fcollect(SHOAL_TEAM_ALL, b, a, me_odd ? 1u << 30 : 8), "fcollect past dest");
    still_works(a, b, 1);

    if (t_np > 1) { /* valid on every unit, but different */
        ALL_FAIL(shoal_broadcast(SHOAL_TEAM_ALL, b, a, bytes, me_odd ? 1 : 0), "different roots");
        ALL_FAIL(shoal_broadcast(SHOAL_TEAM_ALL, b, a, me_odd ? bytes / 2 : bytes, 0),
                 "different sizes");
        ALL_FAIL(shoal_reduce(SHOAL_TEAM_ALL, b, a, N, SHOAL_TYPE_INT64,
                              me_odd ? SHOAL_RED_MAX : SHOAL_RED_SUM),
                 "different operations");
        ALL_FAIL(
            shoal_reduce(SHOAL_TEAM_ALL, b, a, me_odd ? N - 1 : N, SHOAL_TYPE_INT64, SHOAL_RED_SUM),
            "different counts");
        ALL_FAIL(shoal_fcollect(SHOAL_TEAM_ALL, me_odd ? c : b, a, 8), "different buffers");
        ALL_FAIL(shoal_scan(SHOAL_TEAM_ALL, b, a, N, SHOAL_TYPE_INT64, me_odd), "different scans");
        ALL_FAIL(shoal_alltoall(SHOAL_TEAM_ALL, b, a, me_odd ? 16 : 8), "different alltoalls");
        /* A run-time override on one unit only changes the selection rules. */
        if (me_odd) CHECK_OK(shoal_coll_override("broadcast", "linear"));
        ALL_FAIL(shoal_broadcast(SHOAL_TEAM_ALL, b, a, bytes, 0), "different overrides");
        if (me_odd) CHECK_OK(shoal_coll_override("broadcast", NULL));
    }
    still_works(a, b, 2);

    CHECK_OK(shoal_team_memfree(c));
    CHECK_OK(shoal_team_memfree(b));
    CHECK_OK(shoal_team_memfree(a));
    return test_end("test_coll_checked");
}
