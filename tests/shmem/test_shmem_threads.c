// np: 1 2 3
/* SHMEM_THREAD_MULTIPLE: where it is provided, four threads of every PE call OpenSHMEM at once:
 * fetch-adds on every PE's counter (the totals are exact only if the atomics are), puts into
 * slots of their own on the right neighbour through contexts of their own (a private and a
 * shared one, each quieted by its thread), non-blocking puts, and waits. Where MULTIPLE is not
 * provided (Open MPI 4.1 gives SERIALIZED), the same work runs with the threads taking turns
 * under a mutex, as SERIALIZED allows. Every value is checked on every PE. */
#include <pthread.h>

#include "shmem_testlib.h"

#define THREADS 4
#define SLOTS   64

static long counter;                   /* every thread of every PE adds to every PE's */
static long slots[THREADS][SLOTS];     /* thread t of my left neighbour writes slots[t] */
static long nbi_slots[THREADS][SLOTS]; /* the same through non-blocking puts */
static int provided;
static int rounds =
    200; /* fewer where every atomic crosses MPI with 3+ PEs on 2 cores (test_light) */
static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER; /* SERIALIZED: one thread at a time */

static void *worker(void *arg) {
    int t = (int)(long)arg, right = (t_me + 1) % t_np;
    int serial = provided < SHMEM_THREAD_MULTIPLE;
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    if (serial) pthread_mutex_lock(&turn);
    int rc = shmem_ctx_create(t % 2 ? SHMEM_CTX_PRIVATE : 0, &ctx);
    if (serial) pthread_mutex_unlock(&turn);
    CHECK(rc == 0 && ctx != SHMEM_CTX_INVALID, "thread %d: shmem_ctx_create returned %d", t, rc);
    if (rc != 0) return NULL;
    for (int r = 0; r < rounds; r++) {
        if (serial) pthread_mutex_lock(&turn);
        for (int pe = 0; pe < t_np; pe++) shmem_long_atomic_fetch_add(&counter, 1, pe);
        long v = (long)t_me * 1000000 + t * 10000 + r;
        shmem_ctx_long_p(ctx, &slots[t][r % SLOTS], v, right);
        shmem_ctx_long_put_nbi(ctx, &nbi_slots[t][r % SLOTS], &v, 1, right);
        shmem_ctx_quiet(ctx); /* v is a local: the nbi put must complete before it goes */
        if (serial) pthread_mutex_unlock(&turn);
    }
    if (serial) pthread_mutex_lock(&turn);
    shmem_ctx_destroy(ctx);
    if (serial) pthread_mutex_unlock(&turn);
    return NULL;
}

int main(void) {
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    test_start();
    CHECK(rc == 0, "shmem_init_thread returned %d", rc);
    CHECK(provided >= SHMEM_THREAD_SERIALIZED && provided <= SHMEM_THREAD_MULTIPLE,
          "provided %d for MULTIPLE", provided);
    int q = -1;
    shmem_query_thread(&q);
    CHECK(q == provided, "query_thread %d, init_thread said %d", q, provided);
    if (t_me == 0) printf("requested MULTIPLE, provided %d\n", provided);
    if (test_light()) rounds = SLOTS; /* still every slot written once */
    shmem_barrier_all();
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    shmem_barrier_all();
    long expect = (long)t_np * THREADS * rounds;
    CHECK(shmem_long_atomic_fetch(&counter, t_me) == expect, "counter %ld, expected %ld",
          shmem_long_atomic_fetch(&counter, t_me), expect);
    int left = (t_me + t_np - 1) % t_np;
    for (int t = 0; t < THREADS; t++)
        for (int s = 0; s < SLOTS; s++) {
            /* the last round r with r % SLOTS == s wrote slot s */
            int r = rounds - 1 - ((rounds - 1 - s) % SLOTS);
            long want = (long)left * 1000000 + t * 10000 + r;
            CHECK(slots[t][s] == want, "slot [%d][%d] = %ld, expected %ld", t, s, slots[t][s],
                  want);
            CHECK(nbi_slots[t][s] == want, "nbi slot [%d][%d] = %ld, expected %ld", t, s,
                  nbi_slots[t][s], want);
        }
    return test_end("test_shmem_threads");
}
