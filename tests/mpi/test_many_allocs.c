// np: 1 2
/* Many live allocations (the hardening issue's defect 11).
 *
 * Before, every allocation cost an MPI window and so a communicator: MPICH failed the 2,037th
 * live team allocation ("Too many communicators"), and Open MPI's finalize grew steeply with the
 * number of allocations. Now allocations attach to the team's one dynamic window.
 *
 * 1. TEST_MANY_ALLOCS allocations alive at once (default 2,100 on up to 2 units, more than
 *    MPICH's ~2,037 communicators; 200 from 3 units on, where oversubscribed MPICH makes every
 *    collective slow and the count per unit is what mattered), on the all-units team and on a
 * sub-team of every other unit; each one written by the left neighbour with a put of its index and
 * read back (so displacements and parts are right on the MPI path too), then freed in shuffled
 * order. Creation and free times are printed (rates, no thresholds).
 * 2. A unit's own pool still works afterwards, and more allocations succeed (ids recycled).
 * 3. With TEST_MANY_ALLOCS_EXHAUST=1 (a manual check: about 65,000 allocations): allocations until
 *    one fails, which must be SHOAL_ERR_NOMEM on every unit; freeing them all and allocating
 *    again must work. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "testlib.h"

static void shuffle(int *v, int n, unsigned seed) {
    for (int i = n - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        int j = (int)((seed >> 8) % (unsigned)(i + 1));
        int x = v[i];
        v[i] = v[j];
        v[j] = x;
    }
}

/* Allocates n segments of 64 bytes on team, checks every one through a put from the left
 * neighbour (team order), and frees them in shuffled order. */
static void many_on_team(shoal_team_t team, int n, const char *what) {
    int32_t size = 0, me = 0;
    REQUIRE_OK(shoal_team_size(team, &size));
    REQUIRE_OK(shoal_team_myid(team, &me));
    shoal_unit_t right = 0;
    REQUIRE_OK(shoal_team_unit_l2g(team, (me + 1) % size, &right));
    shoal_gptr_t *gp = calloc((size_t)n, sizeof *gp);
    int *order = malloc((size_t)n * sizeof *order);
    REQUIRE(gp && order, "out of memory");

    double t0 = test_now();
    for (int i = 0; i < n; i++) REQUIRE_OK(shoal_team_memalloc(team, 64, &gp[i]));
    double t1 = test_now();
    for (int i = 0; i < n; i++) {
        int64_t v = (int64_t)i * 1000 + t_me;
        CHECK_OK(shoal_put(shoal_gptr_setunit(gp[i], right), &v, sizeof v));
    }
    CHECK_OK(shoal_barrier(team));
    shoal_unit_t left = 0;
    REQUIRE_OK(shoal_team_unit_l2g(team, (me + size - 1) % size, &left));
    long bad = 0;
    for (int i = 0; i < n; i++) {
        int64_t *mine = NULL;
        CHECK_OK(shoal_gptr_getaddr(gp[i], (void **)&mine));
        int64_t got = -1;
        CHECK_OK(shoal_get(&got, shoal_gptr_setunit(gp[i], t_me), sizeof got));
        if (!mine || *mine != (int64_t)i * 1000 + left || got != *mine) bad++;
    }
    CHECK(bad == 0, "%s: %ld of %d allocations hold the wrong value", what, bad, n);
    CHECK_OK(shoal_barrier(team));

    for (int i = 0; i < n; i++) order[i] = i;
    shuffle(order, n, 12345u); /* the same order on every member: memfree is collective */
    double t2 = test_now();
    for (int i = 0; i < n; i++) CHECK_OK(shoal_team_memfree(gp[order[i]]));
    double t3 = test_now();
    if (t_me == 0)
        printf("%s: %d live allocations on %d units: created in %.2f s (%.0f us each), freed in "
               "%.2f s (%.0f us each)\n",
               what, n, size, t1 - t0, 1e6 * (t1 - t0) / n, t3 - t2, 1e6 * (t3 - t2) / n);
    free(gp);
    free(order);
}

static void exhaust(void) {
    int cap = 70000, n = 0;
    shoal_gptr_t *gp = calloc((size_t)cap, sizeof *gp);
    REQUIRE(gp, "out of memory");
    shoal_err_t e = SHOAL_OK;
    while (n < cap && (e = shoal_team_memalloc(SHOAL_TEAM_ALL, 64, &gp[n])) == SHOAL_OK) n++;
    CHECK(e == SHOAL_ERR_NOMEM, "exhaustion after %d allocations gave %s, not SHOAL_ERR_NOMEM", n,
          shoal_strerror(e));
    if (t_me == 0) printf("exhaustion: %d live allocations, then %s\n", n, shoal_strerror(e));
    for (int i = n - 1; i >= 0; i--) CHECK_OK(shoal_team_memfree(gp[i]));
    shoal_gptr_t again;
    CHECK_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 64, &again));
    CHECK_OK(shoal_team_memfree(again));
    free(gp);
}

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    int n = getenv("TEST_MANY_ALLOCS") ? atoi(getenv("TEST_MANY_ALLOCS")) : t_np <= 2 ? 2100 : 200;

    many_on_team(SHOAL_TEAM_ALL, n, "all units");

    /* A sub-team of the even units (all of them when alone). */
    shoal_group_t g;
    REQUIRE_OK(shoal_group_create(&g));
    for (int32_t u = 0; u < t_np; u += 2) REQUIRE_OK(shoal_group_add_member(g, u));
    shoal_team_t even = SHOAL_TEAM_NULL;
    REQUIRE_OK(shoal_team_create(SHOAL_TEAM_ALL, g, &even));
    if (even != SHOAL_TEAM_NULL) many_on_team(even, n / 2, "even units");
    if (even != SHOAL_TEAM_NULL) CHECK_OK(shoal_team_destroy(&even));
    CHECK_OK(shoal_group_destroy(&g));

    /* The pool and new allocations still work. */
    shoal_gptr_t blk, col;
    CHECK_OK(shoal_memalloc(128, &blk));
    CHECK_OK(shoal_memfree(blk));
    CHECK_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 128, &col));
    CHECK_OK(shoal_team_memfree(col));

    if (getenv("TEST_MANY_ALLOCS_EXHAUST") && atoi(getenv("TEST_MANY_ALLOCS_EXHAUST"))) exhaust();
    return test_end("test_many_allocs");
}
