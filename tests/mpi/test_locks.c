// np: 1 2 3 4 8
/* Locks: mutual exclusion, several locks at once on different teams, try_acquire.
 *
 * Exclusion is proven two ways: a counter on unit 0 incremented with a NON-atomic get, +1, put
 * under the lock (lost updates show as a short final count), and an occupancy word incremented
 * atomically on entry (the old value must be 0) and decremented on exit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

/* Words in unit 0's part of the shared allocation. */
enum {
    W_COUNT_ALL = 0, /* counter guarded by the all-team lock */
    W_OCC_ALL,       /* occupancy of that critical section */
    W_COUNT_SUB0,    /* counter of sub-team 0 (even units), then its occupancy */
    W_OCC_SUB0,
    W_COUNT_SUB1,
    W_OCC_SUB1,
    W_COUNT_TRY,
    W_OCC_TRY,
    NWORDS
};

static shoal_gptr_t words; /* points at unit 0's part */

static shoal_gptr_t word(int w) {
    return shoal_gptr_add(words, 8 * (int64_t)w);
}

/* The critical section: occupancy +1 (must have been 0), non-atomic increment, occupancy -1. */
static void critical(int count_word, int occ_word, const char *what) {
    int64_t old = -1;
    CHECK_OK(shoal_fetch_add_i64(word(occ_word), 1, &old));
    CHECK(old == 0, "%s: entered the critical section with occupancy %lld", what, (long long)old);
    int64_t c = -1;
    CHECK_OK(shoal_get(&c, word(count_word), sizeof c));
    if (c % 7 == 3) sched_yield(); /* widen the window now and then */
    c++;
    CHECK_OK(shoal_put(word(count_word), &c, sizeof c));
    CHECK_OK(shoal_fetch_add_i64(word(occ_word), -1, &old));
    CHECK(old == 1, "%s: left the critical section with occupancy %lld", what, (long long)old);
}

static int64_t read_word(int w) {
    int64_t v = -1;
    CHECK_OK(shoal_get(&v, word(w), sizeof v));
    return v;
}

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    double t0 = test_now();
    /* Up to 300 rounds per unit: after a few, the count is scaled to fit a few seconds (the MPI
     * path costs several RMA round trips per section, each a scheduler tick when MPICH runs
     * oversubscribed), but never below 30. TEST_LOCK_ROUNDS fixes it. */
    const char *env = getenv("TEST_LOCK_ROUNDS");
    int fixed = env && *env;
    int rounds = fixed ? atoi(env) : 300, warm = 6;

    shoal_gptr_t gp = SHOAL_GPTR_NULL;
    CHECK_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, NWORDS * 8, &gp));
    words = shoal_gptr_setunit(gp, 0);
    if (t_me == 0) {
        int64_t zero[NWORDS] = {0};
        CHECK_OK(shoal_put(words, zero, sizeof zero));
    }
    shoal_team_t sub = SHOAL_TEAM_NULL;
    int colour = t_me % 2;
    CHECK_OK(shoal_team_split(SHOAL_TEAM_ALL, colour, &sub));
    int32_t subsize = 0;
    CHECK_OK(shoal_team_size(sub, &subsize));
    shoal_lock_t lall = NULL, lsub = NULL, ltry = NULL;
    CHECK_OK(shoal_lock_create(SHOAL_TEAM_ALL, &lall));
    CHECK_OK(shoal_lock_create(sub, &lsub));
    CHECK_OK(shoal_lock_create(SHOAL_TEAM_ALL, &ltry));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    int csub = colour ? W_COUNT_SUB1 : W_COUNT_SUB0, osub = colour ? W_OCC_SUB1 : W_OCC_SUB0;

    /* 1. Rounds of: the all lock alone, the sub-team lock alone, the sub lock nested inside the
     *    all lock (always taken in that order, so no deadlock). */
    double t1 = test_now();
    int n_all = 0, n_sub = 0;
    for (int r = 0; r < rounds; r++) {
        if (!fixed && r == warm) rounds = test_scale((test_now() - t1) / warm, 4.0, 30, 300);
        switch (r % 3) {
        case 0:
            CHECK_OK(shoal_lock_acquire(lall));
            critical(W_COUNT_ALL, W_OCC_ALL, "all lock");
            CHECK_OK(shoal_lock_release(lall));
            n_all++;
            break;
        case 1:
            CHECK_OK(shoal_lock_acquire(lsub));
            critical(csub, osub, "sub-team lock");
            CHECK_OK(shoal_lock_release(lsub));
            n_sub++;
            break;
        default:
            CHECK_OK(shoal_lock_acquire(lall));
            CHECK_OK(shoal_lock_acquire(lsub));
            critical(csub, osub, "sub-team lock inside the all lock");
            critical(W_COUNT_ALL, W_OCC_ALL, "all lock around the sub-team lock");
            CHECK_OK(shoal_lock_release(lsub));
            CHECK_OK(shoal_lock_release(lall));
            n_all++;
            n_sub++;
            break;
        }
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    double t2 = test_now();
    {
        int64_t all = read_word(W_COUNT_ALL);
        int64_t s = read_word(csub);
        CHECK(all == (int64_t)n_all * t_np, "all-lock counter %lld, expected %lld", (long long)all,
              (long long)n_all * t_np);
        CHECK(s == (int64_t)n_sub * subsize, "sub-team %d counter %lld, expected %lld", colour,
              (long long)s, (long long)n_sub * subsize);
        CHECK(read_word(W_OCC_ALL) == 0 && read_word(osub) == 0, "occupancy not back to 0");
    }

    /* 2. try_acquire: a lock held by unit 0 is BUSY for everyone else. */
    if (t_me == 0) CHECK_OK(shoal_lock_acquire(ltry));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    if (t_me != 0) {
        for (int i = 0; i < 3; i++) {
            shoal_err_t e = shoal_lock_try_acquire(ltry);
            CHECK(e == SHOAL_BUSY, "try_acquire of a lock unit 0 holds returned %s",
                  shoal_strerror(e));
            if (e == SHOAL_OK) CHECK_OK(shoal_lock_release(ltry));
        }
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    if (t_me == 0) CHECK_OK(shoal_lock_release(ltry));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    /* A free lock is acquired by try_acquire at once (one unit at a time). */
    for (int u = 0; u < t_np; u++) {
        if (u == t_me) {
            shoal_err_t e = shoal_lock_try_acquire(ltry);
            CHECK(e == SHOAL_OK, "try_acquire of a free lock returned %s", shoal_strerror(e));
            if (e == SHOAL_OK) CHECK_OK(shoal_lock_release(ltry));
        }
        CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL)); /* one unit at a time: the lock is free */
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    /* 3. try_acquire loops by everyone, mixed with blocking acquires. */
    int tries = rounds / 3, busy = 0;
    for (int r = 0; r < tries; r++) {
        if ((r + t_me) % 4 == 0) {
            CHECK_OK(shoal_lock_acquire(ltry));
        } else {
            shoal_err_t e;
            double deadline = test_now() + 30;
            while ((e = shoal_lock_try_acquire(ltry)) == SHOAL_BUSY) {
                busy++;
                if (!CHECK(test_now() < deadline, "try_acquire busy for 30 s")) break;
                test_yield();
            }
            if (!CHECK(e == SHOAL_OK, "try_acquire returned %s", shoal_strerror(e))) continue;
        }
        critical(W_COUNT_TRY, W_OCC_TRY, "try lock");
        CHECK_OK(shoal_lock_release(ltry));
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    {
        int64_t c = read_word(W_COUNT_TRY);
        CHECK(c == (int64_t)tries * t_np, "try-lock counter %lld, expected %lld", (long long)c,
              (long long)tries * t_np);
    }
    double t3 = test_now();

    /* 4. Locks created and destroyed repeatedly, each used once by everybody. */
    int nshort = 4;
    for (int i = 0; i < nshort; i++) {
        shoal_lock_t l = NULL;
        CHECK_OK(shoal_lock_create(i % 2 ? sub : SHOAL_TEAM_ALL, &l));
        CHECK_OK(shoal_lock_acquire(l));
        critical(i % 2 ? csub : W_COUNT_ALL, i % 2 ? osub : W_OCC_ALL, "short-lived lock");
        CHECK_OK(shoal_lock_release(l));
        CHECK_OK(shoal_lock_destroy(&l));
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK(read_word(W_COUNT_ALL) == (int64_t)(n_all + (nshort + 1) / 2) * t_np,
          "all counter after short-lived "
          "locks: %lld",
          (long long)read_word(W_COUNT_ALL));

    CHECK_OK(shoal_lock_destroy(&lall));
    CHECK_OK(shoal_lock_destroy(&lsub));
    CHECK_OK(shoal_lock_destroy(&ltry));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_team_destroy(&sub));
    CHECK_OK(shoal_team_memfree(gp));
    if (t_me == 0)
        printf("test_locks: %d units, %d rounds: nested %.2f s (%.1f us/section), try %.2f s "
               "(%d busy on unit 0), total %.2f s\n",
               t_np, rounds, t2 - t1, 1e6 * (t2 - t1) / ((double)(n_all + n_sub) * t_np), t3 - t2,
               busy, test_now() - t0);
    return test_end("test_locks");
}
