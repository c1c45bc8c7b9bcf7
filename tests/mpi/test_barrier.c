/* Barriers: nobody passes early, on the all team and on sub-teams, interleaved; both the
 * runtime's shoal_barrier and the selectable shoal_team_barrier (its default algorithm: flags on
 * one node with the direct path, node across nodes, dissemination on the MPI path).
 *
 * Before barrier round r every member adds 1 to a counter on unit 0 (atomic add); after it every
 * member reads the counter (atomic load): it must be at least r * size (everybody arrived) and at
 * most (r + 1) * size (nobody can be past the next barrier). Some rounds have one member arrive
 * late (it sleeps first). Also: a barrier completes the caller's outstanding non-blocking puts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testlib.h"

enum { W_ALL = 0, W_HALF0, W_HALF1, W_ODD, NWORDS };

static shoal_gptr_t counters; /* unit 0's part */

static shoal_gptr_t word(int w) {
    return shoal_gptr_add(counters, 8 * (int64_t)w);
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static uint64_t mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* rounds barriers on team t (members only) counting in word w; base is the counter's value
 * before (the same on every member). A member chosen from the shared seed sleeps in some
 * rounds. Returns the final count. */
static shoal_err_t (*barrier)(shoal_team_t) = shoal_barrier; /* the barrier under test */

static int64_t rounds_on(shoal_team_t t, int w, int rounds, int64_t base, const char *what) {
    int32_t size = 0;
    shoal_unit_t rel = 0;
    CHECK_OK(shoal_team_size(t, &size));
    CHECK_OK(shoal_team_myid(t, &rel));
    for (int r = 1; r <= rounds; r++) {
        uint64_t h = mix64((uint64_t)r * 31 + (uint64_t)w);
        if (h % 8 == 0 && (shoal_unit_t)((h >> 8) % (uint64_t)size) == rel) sleep_ms(10);
        CHECK_OK(shoal_add_i64(word(w), 1));
        CHECK_OK(barrier(t));
        int64_t v = -1;
        CHECK_OK(shoal_atomic_load(word(w), SHOAL_INT64, &v));
        int64_t lo = base + (int64_t)r * size, hi = base + (int64_t)(r + 1) * size;
        CHECK(v >= lo && v <= hi,
              "%s round %d: counter %lld after the barrier, expected %lld..%lld", what, r,
              (long long)(v - base), (long long)(lo - base), (long long)(hi - base));
    }
    /* Exact count: nobody adds again until everybody has read it (the second barrier). */
    CHECK_OK(barrier(t));
    int64_t v = -1;
    CHECK_OK(shoal_atomic_load(word(w), SHOAL_INT64, &v));
    CHECK(v == base + (int64_t)rounds * size, "%s: final counter %lld, expected %lld", what,
          (long long)(v - base), (long long)rounds * size);
    CHECK_OK(barrier(t));
    return base + (int64_t)rounds * size;
}

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    double t0 = test_now();
    shoal_gptr_t gp = SHOAL_GPTR_NULL;
    CHECK_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &gp));
    counters = shoal_gptr_setunit(gp, 0);
    if (t_me == 0)
        for (int w = 0; w < NWORDS; w++)
            CHECK_OK(shoal_atomic_store(word(w), SHOAL_INT64, &(int64_t){0}));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    /* 1. The all team: 5 rounds, then up to 200 more, fitted into a few seconds (a round costs
     *    scheduler ticks on oversubscribed MPICH, or waits for target-side progress of MPI
     *    atomics), at least 30. TEST_BARRIER_ROUNDS fixes the count. */
    double t1 = test_now();
    int64_t all = rounds_on(SHOAL_TEAM_ALL, W_ALL, 5, 0, "all team, first rounds");
    int rounds = test_scale((test_now() - t1) / 5, 2.0, 30, 200);
    const char *env = getenv("TEST_BARRIER_ROUNDS");
    if (env && *env) rounds = atoi(env);
    all = rounds_on(SHOAL_TEAM_ALL, W_ALL, rounds, all, "all team");
    barrier = shoal_team_barrier;
    all = rounds_on(SHOAL_TEAM_ALL, W_ALL, rounds / 4 + 5, all, "all team, shoal_team_barrier");
    barrier = shoal_barrier;
    double t2 = test_now();

    /* 2. Halves (by parity) and the odd units, each with its own counter. */
    shoal_team_t half = SHOAL_TEAM_NULL, oddt = SHOAL_TEAM_NULL;
    CHECK_OK(shoal_team_split(SHOAL_TEAM_ALL, t_me % 2, &half));
    CHECK_OK(shoal_team_split(SHOAL_TEAM_ALL, t_me % 2 ? 0 : SHOAL_UNDEFINED, &oddt));
    int hw = t_me % 2 ? W_HALF1 : W_HALF0;
    int64_t h = rounds_on(half, hw, rounds / 2, 0, "half team");
    int64_t o = 0;
    if (oddt != SHOAL_TEAM_NULL) o = rounds_on(oddt, W_ODD, rounds / 4, 0, "odd team");
    barrier = shoal_team_barrier;
    h = rounds_on(half, hw, rounds / 8 + 2, h, "half team, shoal_team_barrier");
    if (oddt != SHOAL_TEAM_NULL)
        rounds_on(oddt, W_ODD, rounds / 8 + 2, o, "odd team, shoal_team_barrier");
    barrier = shoal_barrier;
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    /* 3. Interleaved: a half-team barrier, then an all-team barrier, per round; the two kinds
     *    of barrier alternate too. */
    for (int r = 1; r <= rounds / 4; r++) {
        barrier = r % 2 ? shoal_barrier : shoal_team_barrier;
        h = rounds_on(half, hw, 1, h, "interleaved half");
        all = rounds_on(SHOAL_TEAM_ALL, W_ALL, 1, all, "interleaved all");
    }
    barrier = shoal_barrier;
    double t3 = test_now();

    /* 4. A barrier completes my outstanding non-blocking puts: after it, my right neighbour
     *    finds the data in its memory without any other call. */
    {
        enum { N = 16, SZ = 200 };
        shoal_gptr_t data = SHOAL_GPTR_NULL;
        CHECK_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, N * SZ, &data));
        uint8_t src[N][SZ];
        shoal_handle_t hs[N];
        shoal_gptr_t dst = shoal_gptr_setunit(data, test_right());
        for (int i = 0; i < N; i++) {
            fill_pattern(src[i], SZ, 900 + (uint64_t)i, (uint64_t)t_me, 0);
            hs[i] = SHOAL_HANDLE_NULL;
            CHECK_OK(shoal_put_nb(shoal_gptr_add(dst, i * SZ), src[i], SZ, &hs[i]));
        }
        CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
        uint8_t *mine = NULL;
        if (CHECK_OK(shoal_gptr_getaddr(data, (void **)&mine)) && mine)
            for (int i = 0; i < N; i++)
                CHECK_PATTERN(mine + i * SZ, SZ, 900 + (uint64_t)i, (uint64_t)test_left(), 0,
                              "non-blocking put completed by the barrier");
        CHECK_OK(shoal_waitall(hs, N));
        for (int i = 0; i < N; i++) CHECK(hs[i] == SHOAL_HANDLE_NULL, "waitall left a handle");
        CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
        CHECK_OK(shoal_team_memfree(data));
    }

    if (oddt != SHOAL_TEAM_NULL) CHECK_OK(shoal_team_destroy(&oddt));
    CHECK_OK(shoal_team_destroy(&half));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_team_memfree(gp));
    if (t_me == 0)
        printf("test_barrier: %d units, %d+5 rounds: all team %.2f s (%.0f us/barrier), sub-teams "
               "and interleaved %.2f s, total %.2f s\n",
               t_np, rounds, t2 - t1, 1e6 * (t2 - t1) / (rounds + 5), t3 - t2, test_now() - t0);
    return test_end("test_barrier");
}
