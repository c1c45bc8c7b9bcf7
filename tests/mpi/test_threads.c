/* The thread contract (shoal.h, shoal_init_thread): several threads of every unit at once doing
 * blocking and non-blocking puts and gets, atomics and locks on the same allocation.
 *
 * With SHOAL_THREAD_MULTIPLE provided (MPICH; Open MPI on one node with the direct path, and then
 * it must be) the threads run freely; where Shoal provides only SERIALIZED (Open MPI 4.1 across
 * nodes or with the direct path off, see shoal.h) the same work runs with every Shoal call under
 * one program mutex, which is what SERIALIZED asks of a program. Checked afterwards:
 *   - every slot a thread of my left neighbour put (blocking or non-blocking) holds its value,
 *     and each thread read back what it wrote;
 *   - a counter every thread of every unit fetch-added ends at exactly the number of adds;
 *   - a counter incremented by a plain get + put under a Shoal lock ends exact (the lock excludes
 *     threads of one unit as well as other units);
 *   - two threads completing copies of one handle: exactly one gets SHOAL_OK, the other
 *     SHOAL_ERR_HANDLE;
 *   - every fence design: the threads issue an epoch's non-blocking puts at once, to both
 *     neighbours (so several threads may be first to a target), and one fence delivers them all.
 * Also run under ThreadSanitizer by make test's sanitizer configuration. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "testlib.h"

#define THREADS   4
#define SLOTS     64 /* per thread */
#define LOCKED_N  8  /* lock round trips per thread */
#define COUNTER   (THREADS * SLOTS)
#define LOCKCOUNT (COUNTER + 8)
#define WORDS     (LOCKCOUNT + 8)

static shoal_gptr_t base;
static shoal_lock_t lock;
static int provided;
static pthread_mutex_t serial = PTHREAD_MUTEX_INITIALIZER; /* used when only SERIALIZED */

static void enter(void) {
    if (provided < SHOAL_THREAD_MULTIPLE) pthread_mutex_lock(&serial);
}
static void leave(void) {
    if (provided < SHOAL_THREAD_MULTIPLE) pthread_mutex_unlock(&serial);
}

static int64_t value_of(shoal_unit_t unit, int t, int i) {
    return ((int64_t)unit << 32) | (int64_t)(t << 16) | i;
}

static shoal_gptr_t word(shoal_unit_t unit, int index) {
    return shoal_gptr_add(shoal_gptr_setunit(base, unit), (uint64_t)index * 8);
}

static void *worker(void *arg) {
    int t = (int)(intptr_t)arg;
    shoal_unit_t right = test_right();
    shoal_handle_t pending[8];
    int npending = 0;
    int64_t vals[SLOTS];
    for (int i = 0; i < SLOTS; i++) {
        vals[i] = value_of(t_me, t, i);
        int idx = t * SLOTS + i;
        enter();
        if (i % 2 == 0) {
            CHECK_OK(shoal_put(word(right, idx), &vals[i], sizeof vals[i]));
            int64_t back = -1;
            CHECK_OK(shoal_get(&back, word(right, idx), sizeof back));
            CHECK(back == vals[i], "thread %d slot %d: read back %llx, wrote %llx", t, i,
                  (unsigned long long)back, (unsigned long long)vals[i]);
        } else {
            CHECK_OK(
                shoal_put_nb(word(right, idx), &vals[i], sizeof vals[i], &pending[npending++]));
            if (npending == 8) {
                CHECK_OK(shoal_waitall(pending, (size_t)npending));
                npending = 0;
            }
        }
        int64_t old = 0;
        CHECK_OK(shoal_atomic_fetch_op(word(0, COUNTER), SHOAL_OP_SUM, SHOAL_INT64, &(int64_t){1},
                                       &old));
        leave();
    }
    enter();
    CHECK_OK(shoal_waitall(pending, (size_t)npending));
    leave();
    for (int k = 0; k < LOCKED_N; k++) { /* a plain read-modify-write, made atomic by the lock */
        if (provided == SHOAL_THREAD_MULTIPLE) {
            CHECK_OK(shoal_lock_acquire(lock)); /* waits at the unit's gate or in the queue */
        } else { /* a blocking acquire under the program's mutex would wait for the holder,
                  * which needs that mutex to release: take turns with try_acquire */
            shoal_err_t rc;
            do {
                enter();
                rc = shoal_lock_try_acquire(lock);
                leave();
                if (rc == SHOAL_BUSY) sched_yield();
            } while (rc == SHOAL_BUSY);
            CHECK_OK(rc);
        }
        int64_t v = 0;
        enter();
        CHECK_OK(shoal_get(&v, word(0, LOCKCOUNT), sizeof v));
        leave();
        sched_yield(); /* invite another thread into the critical section */
        v++;
        enter();
        CHECK_OK(shoal_put(word(0, LOCKCOUNT), &v, sizeof v));
        CHECK_OK(shoal_lock_release(lock));
        leave();
    }
    return NULL;
}

/* Two threads complete copies of one handle. */
/* ---- Epochs: every thread puts SLOTS words, even ones to the right neighbour, odd ones to the
 * left; each unit's part has a region for what comes from its left and one for its right, twice:
 * epochs alternate between the two, since a neighbour's next epoch may begin while I still read
 * this one's words (its fence returned first), and two epochs ago is safe (its next fence needs
 * mine, which comes after my reading). */
static shoal_gptr_t epoch_base;
static int epoch_round;
static int64_t epoch_src[THREADS][SLOTS]; /* untouched until the fence: deferred reads it there */

static int64_t epoch_value(shoal_unit_t from, int t, int i, int round) {
    return ((int64_t)round << 48) | value_of(from, t, i);
}

static void *epoch_worker(void *arg) {
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < SLOTS; i++) {
        int to_right = i % 2 == 0;
        shoal_unit_t target = to_right ? test_right() : test_left();
        /* at the target I am its left neighbour (region 0) when I put to its right */
        int idx = (epoch_round % 2) * 2 * COUNTER + (to_right ? 0 : COUNTER) + t * SLOTS + i;
        int64_t *v = &epoch_src[t][i];
        *v = epoch_value(t_me, t, i, epoch_round);
        shoal_handle_t h = SHOAL_HANDLE_NULL;
        enter();
        CHECK_OK(
            shoal_put_nb(shoal_gptr_add(shoal_gptr_setunit(epoch_base, target), (uint64_t)idx * 8),
                         v, sizeof *v, &h));
        leave();
        CHECK(h == SHOAL_HANDLE_NULL, "an epoch's put gave a handle");
    }
    return NULL;
}

static void check_epochs(void) {
    static const shoal_epoch_design_t designs[] = {SHOAL_EPOCH_DEFERRED, SHOAL_EPOCH_IMM_NAIVE,
                                                   SHOAL_EPOCH_IMM_BARRIER, SHOAL_EPOCH_IMM_NOTIFY};
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 4 * COUNTER * 8, &epoch_base));
    int64_t *mine = NULL;
    REQUIRE_OK(shoal_gptr_getaddr(epoch_base, (void **)&mine));
    for (size_t d = 0; d < sizeof designs / sizeof designs[0]; d++) {
        CHECK_OK(shoal_epoch_set_design(epoch_base, designs[d]));
        CHECK_OK(shoal_epoch_fence(epoch_base, 0)); /* opens the first epoch */
        for (int round = 1; round <= 3; round++) {
            epoch_round = (int)d * 4 + round;
            pthread_t th[THREADS];
            for (int t = 0; t < THREADS; t++)
                REQUIRE(pthread_create(&th[t], NULL, epoch_worker, (void *)(intptr_t)t) == 0,
                        "pthread_create");
            for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
            CHECK_OK(shoal_epoch_fence(epoch_base, 0));
            long bad = 0;
            for (int t = 0; t < THREADS; t++)
                for (int i = 0; i < SLOTS; i++) {
                    int from_left = i % 2 == 0; /* the left neighbour's even puts came right */
                    shoal_unit_t from = from_left ? test_left() : test_right();
                    int idx =
                        (epoch_round % 2) * 2 * COUNTER + (from_left ? 0 : COUNTER) + t * SLOTS + i;
                    bad += mine[idx] != epoch_value(from, t, i, epoch_round);
                }
            CHECK(bad == 0, "design %s, epoch %d: %ld of %d words wrong after the fence",
                  shoal_epoch_design_name(designs[d]), round, bad, COUNTER);
        }
        CHECK_OK(shoal_epoch_fence(epoch_base, SHOAL_EPOCH_NOSUCCEED));
    }
    CHECK_OK(shoal_team_memfree(epoch_base));
}

static shoal_handle_t shared_handle;
static shoal_err_t wait_result[2];
static void *waiter(void *arg) {
    int k = (int)(intptr_t)arg;
    shoal_handle_t copy = shared_handle;
    enter();
    wait_result[k] = shoal_wait(&copy); /* the loser's message is expected */
    leave();
    return NULL;
}

int main(int argc, char **argv) {
    /* Bad levels are refused before anything starts, and write no output. */
    int untouched = -7;
    shoal_err_t bad_low = shoal_init_thread(&argc, &argv, -1, &untouched);
    shoal_err_t bad_high = shoal_init_thread(&argc, &argv, SHOAL_THREAD_MULTIPLE + 1, &untouched);
    int multiple_possible = test_multiple_possible(); /* (asks the environment before init) */
    test_begin_thread(&argc, &argv, SHOAL_THREAD_MULTIPLE, &provided);
    CHECK(bad_low == SHOAL_ERR_INVAL && bad_high == SHOAL_ERR_INVAL,
          "shoal_init_thread with levels -1 and 4 gave %s and %s", shoal_strerror(bad_low),
          shoal_strerror(bad_high));
    CHECK(untouched == -7, "a refused shoal_init_thread wrote %d to provided", untouched);
    CHECK(shoal_query_thread(NULL) == SHOAL_ERR_INVAL, "shoal_query_thread(NULL) was accepted");
    int queried = -1;
    CHECK_OK(shoal_query_thread(&queried));
    CHECK(queried == provided, "shoal_query_thread says %d, init said %d", queried, provided);
    CHECK(provided >= SHOAL_THREAD_SERIALIZED, "provided %d, at least SERIALIZED expected",
          provided);
    CHECK(provided == SHOAL_THREAD_MULTIPLE || !multiple_possible,
          "provided %d where MULTIPLE can be given (MPICH; Open MPI on one node, direct path)",
          provided);
    if (t_me == 0)
        printf("test_threads: %d threads per unit, provided %s\n", THREADS,
               provided == SHOAL_THREAD_MULTIPLE ? "MULTIPLE" : "SERIALIZED (threads take turns)");

    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, WORDS * 8, &base));
    REQUIRE_OK(shoal_lock_create(SHOAL_TEAM_ALL, &lock));
    int64_t *mine = NULL;
    REQUIRE_OK(shoal_gptr_getaddr(base, (void **)&mine));
    for (int i = 0; i < WORDS; i++) mine[i] = -1;
    mine[COUNTER] = mine[LOCKCOUNT] = 0;
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        REQUIRE(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    shoal_unit_t left = test_left();
    long bad = 0;
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < SLOTS; i++) bad += mine[t * SLOTS + i] != value_of(left, t, i);
    CHECK(bad == 0, "%ld of %d slots from unit %d are wrong", bad, THREADS * SLOTS, (int)left);
    if (t_me == 0) {
        CHECK(mine[COUNTER] == (int64_t)t_np * THREADS * SLOTS,
              "fetch-add counter %lld, expected %lld", (long long)mine[COUNTER],
              (long long)t_np * THREADS * SLOTS);
        CHECK(mine[LOCKCOUNT] == (int64_t)t_np * THREADS * LOCKED_N,
              "lock-protected counter %lld, expected %lld (lost updates)",
              (long long)mine[LOCKCOUNT], (long long)t_np * THREADS * LOCKED_N);
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    /* One handle, two completing threads (a handle exists on the MPI path only). */
    int64_t v = 7;
    CHECK_OK(shoal_put_nb(word(test_right(), 0), &v, sizeof v, &shared_handle));
    if (shared_handle != SHOAL_HANDLE_NULL) {
        for (int k = 0; k < 2; k++)
            REQUIRE(pthread_create(&th[k], NULL, waiter, (void *)(intptr_t)k) == 0,
                    "pthread_create");
        for (int k = 0; k < 2; k++) pthread_join(th[k], NULL);
        int ok = (wait_result[0] == SHOAL_OK) + (wait_result[1] == SHOAL_OK);
        int stale = (wait_result[0] == SHOAL_ERR_HANDLE) + (wait_result[1] == SHOAL_ERR_HANDLE);
        CHECK(ok == 1 && stale == 1, "two waits on one handle gave %s and %s",
              shoal_strerror(wait_result[0]), shoal_strerror(wait_result[1]));
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    check_epochs();

    CHECK_OK(shoal_lock_destroy(&lock));
    CHECK_OK(shoal_team_memfree(base));
    return test_end("test_threads");
}
