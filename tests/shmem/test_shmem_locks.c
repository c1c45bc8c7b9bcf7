// np: 1 2 3 4 8
/* Distributed locks: under shmem_set_lock every PE does a non-atomic read-modify-write (get, add
 * one, put, quiet) of a counter on PE 0, many times; the final count is exact only if the lock
 * excludes. Inside the critical section an atomic "occupancy" word must read 0 on entry (nobody
 * else inside). The same with shmem_test_lock (spin until it returns 0), with a lock in the heap
 * and one among the global variables, and two locks held at once. */
#include "shmem_testlib.h"

#define ROUNDS 15

long g_lock; /* a lock among the global variables (zero-initialised, as the spec requires) */

static void critical(long *counter, int *inside, const char *what) {
    int others = shmem_int_atomic_fetch_inc(inside, 0);
    CHECK(others == 0, "%s: %d other PE(s) inside the critical section", what, others);
    long v = shmem_long_g(counter, 0);
    shmem_long_p(counter, v + 1, 0);
    shmem_quiet();
    shmem_int_atomic_add(inside, -1, 0);
    shmem_quiet();
}

static void run(long *lock, int use_test, const char *what) {
    long *counter = shmem_calloc(1, sizeof(long));
    int *inside = shmem_calloc(1, sizeof(int));
    REQUIRE(counter && inside, "allocation");
    const int rounds = test_light() ? 5 : ROUNDS;
    for (int r = 0; r < rounds; r++) {
        if (use_test) {
            long spins = 0;
            while (shmem_test_lock(lock) != 0) spins++;
        } else {
            shmem_set_lock(lock);
        }
        critical(counter, inside, what);
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    if (t_me == 0)
        CHECK(*counter == (long)rounds * t_np, "%s: counter %ld, expected %ld", what, *counter,
              (long)rounds * t_np);
    shmem_barrier_all();
    shmem_free(inside);
    shmem_free(counter);
}

int main(void) {
    test_init();
    long *heap_lock = shmem_calloc(2, sizeof(long));
    REQUIRE(heap_lock, "allocation");
    run(&heap_lock[0], 0, "set_lock (heap)");
    run(&heap_lock[0], 1, "test_lock (heap)");
    run(&g_lock, 0, "set_lock (global)");
    run(&g_lock, 1, "test_lock (global)");

    /* Held lock: nobody else gets it. PE 0 holds it over two barriers; the others' test_lock
     * must fail in between. */
    if (t_me == 0) shmem_set_lock(&heap_lock[1]);
    shmem_barrier_all();
    if (t_me != 0) CHECK(shmem_test_lock(&heap_lock[1]) != 0, "test_lock got a lock PE 0 holds");
    shmem_barrier_all();
    if (t_me == 0) shmem_clear_lock(&heap_lock[1]);
    shmem_barrier_all();
    /* Released: the last PE can take it now. */
    if (t_me == t_np - 1) {
        CHECK(shmem_test_lock(&heap_lock[1]) == 0, "test_lock failed on a free lock");
        shmem_clear_lock(&heap_lock[1]);
    }
    shmem_barrier_all();

    /* Two locks held at once, taken in the same order everywhere. */
    long *counter = shmem_calloc(1, sizeof(long));
    int *inside = shmem_calloc(1, sizeof(int));
    REQUIRE(counter && inside, "allocation");
    for (int r = 0; r < (test_light() ? 5 : ROUNDS); r++) {
        shmem_set_lock(&g_lock);
        shmem_set_lock(&heap_lock[0]);
        critical(counter, inside, "two locks");
        shmem_clear_lock(&heap_lock[0]);
        shmem_clear_lock(&g_lock);
    }
    shmem_barrier_all();
    if (t_me == 0)
        CHECK(*counter == (long)(test_light() ? 5 : ROUNDS) * t_np, "two locks: counter %ld",
              *counter);
    shmem_barrier_all();
    shmem_free(inside);
    shmem_free(counter);
    shmem_free(heap_lock);
    return test_end("test_shmem_locks");
}
