/* Instructions per direct-path operation, for tests/perf/instr_budget.py (callgrind). One unit:
 * the operations target my own part of a symmetric allocation, which takes the same direct path
 * as a same-node peer (a mapped address). Each operation runs N and 2N times between callgrind
 * dumps; the script takes the difference over N, so start-up and the loop's set-up cancel out
 * and the count per operation is exact and independent of machine load.
 *
 *   valgrind --tool=callgrind --instr-atstart=no instr_count [N [mpi]]
 *
 * Mode "mpi" (run with SHOAL_DIRECT=0): the non-blocking put and get through MPI, next to the
 * MPI_Rput and MPI_Rget they make on a window made as Shoal makes its own (MPI_Win_create over
 * host memory, lock_all), to the same unit; the difference is what Shoal adds (entry checks,
 * resolution, the handle, the dirty mark). The MPI library's own count is the same in both.
 */
#include <mpi.h>
#include <shmem.h>
#include <shoal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

static int n_ops = 1000;
static long sym_word[8]; /* a global: symmetric for the OpenSHMEM face */
static uint64_t sym_data[8], sym_sig[8];

/* Runs body k times with instrumentation on, dumps the counts as "<name>.<k>", then runs after
 * (completing what body started, outside the measurement). */
#define MEASURE_THEN(name, body, after)                                                            \
    do {                                                                                           \
        for (int pass = 1; pass <= 2; pass++) {                                                    \
            int k = pass * n_ops;                                                                  \
            CALLGRIND_START_INSTRUMENTATION;                                                       \
            for (int i = 0; i < k; i++) {                                                          \
                body;                                                                              \
                __asm__ __volatile__("" ::: "memory");                                             \
            }                                                                                      \
            CALLGRIND_STOP_INSTRUMENTATION;                                                        \
            char tag[64];                                                                          \
            snprintf(tag, sizeof tag, "%s.%d", name, pass);                                        \
            CALLGRIND_DUMP_STATS_AT(tag);                                                          \
            after;                                                                                 \
        }                                                                                          \
    } while (0)

/* The same with nothing to complete. */
#define MEASURE(name, body) MEASURE_THEN(name, body, (void)0)

/* GCC 12 takes MPICH's MPI_STATUSES_IGNORE for an empty array and warns; the call is right. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
static void wait_requests(MPI_Request *req, int n) {
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
}
#pragma GCC diagnostic pop

static int mpi_path_mode(void) {
    shoal_gptr_t g;
    if (shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &g) != SHOAL_OK) return 1;
    void *mem = malloc(4096);
    MPI_Win win;
    MPI_Win_create(mem, 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    shoal_handle_t *h = calloc((size_t)2 * n_ops, sizeof *h);
    MPI_Request *req = calloc((size_t)2 * n_ops, sizeof *req);
    uint64_t v = 1, out = 0;
    /* Warm both: handle records and MPI's request pool grown to the largest pass. */
    for (int i = 0; i < 2 * n_ops; i++) shoal_put_nb(g, &v, 8, &h[i]);
    if (h[0] == SHOAL_HANDLE_NULL) {
        fprintf(stderr, "instr_count mpi: no handle from shoal_put_nb: not the MPI path\n");
        return 1;
    }
    if (shoal_waitall(h, (size_t)2 * n_ops) != SHOAL_OK) return 1;
    for (int i = 0; i < 2 * n_ops; i++) MPI_Rput(&v, 8, MPI_BYTE, 0, 0, 8, MPI_BYTE, win, &req[i]);
    wait_requests(req, 2 * n_ops);
    MPI_Win_flush(0, win);
    CALLGRIND_ZERO_STATS;
    MEASURE_THEN("empty", (void)0, (void)0);
    MEASURE_THEN("shoal_put8_nb_mpi", shoal_put_nb(g, &v, 8, &h[i]), shoal_waitall(h, (size_t)k));
    MEASURE_THEN("mpi_rput8", MPI_Rput(&v, 8, MPI_BYTE, 0, 0, 8, MPI_BYTE, win, &req[i]),
                 (wait_requests(req, k), MPI_Win_flush(0, win)));
    MEASURE_THEN("shoal_get8_nb_mpi", shoal_get_nb(&out, g, 8, &h[i]), shoal_waitall(h, (size_t)k));
    MEASURE_THEN("mpi_rget8", MPI_Rget(&out, 8, MPI_BYTE, 0, 0, 8, MPI_BYTE, win, &req[i]),
                 wait_requests(req, k));
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    free(mem);
    free(h);
    free(req);
    shoal_team_memfree(g);
    return shoal_finalize() != SHOAL_OK;
}

int main(int argc, char **argv) {
    if (argc > 1) n_ops = atoi(argv[1]);
    if (argc > 2 && !strcmp(argv[2], "mpi")) {
        if (shoal_init(&argc, &argv) != SHOAL_OK) return 1;
        return mpi_path_mode();
    }
    shmem_init(); /* Shoal underneath; its own calls are measured too */
    shoal_gptr_t g;
    if (shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &g) != SHOAL_OK) return 1;
    shoal_gptr_t sig = shoal_gptr_add(g, 64);
    uint64_t v = 1, out = 0;
    int64_t old = 0;
    CALLGRIND_ZERO_STATS;
    MEASURE("empty", (void)0);
    MEASURE("shoal_put8", shoal_put(g, &v, 8));
    MEASURE("shoal_get8", shoal_get(&out, g, 8));
    MEASURE("shoal_fetch_add", shoal_fetch_add_i64(g, 1, &old));
    MEASURE("shoal_signal_add", shoal_signal(sig, 1, SHOAL_SIGNAL_ADD));
    MEASURE("shoal_put8_signal", shoal_put_signal(g, &v, 8, sig, 1, SHOAL_SIGNAL_SET));
    MEASURE("shmem_put8_signal",
            shmem_uint64_put_signal(sym_data, &v, 1, sym_sig, 1, SHMEM_SIGNAL_SET, 0));
    MEASURE("shmem_signal_fetch", out = shmem_signal_fetch(sym_sig));
    MEASURE("shmem_test", out = (uint64_t)shmem_uint64_test(sym_sig, SHMEM_CMP_EQ, 1));
    MEASURE("shmem_atomic_fetch", out = shmem_uint64_atomic_fetch(sym_sig, 0));
    shoal_handle_t h = SHOAL_HANDLE_NULL; /* the direct path gives no handle */
    MEASURE("shoal_put8_nb", shoal_put_nb(g, &v, 8, &h));
    MEASURE("shmem_put8", shmem_long_put(sym_word, (long *)&v, 1, 0));
    MEASURE("shmem_get8", shmem_long_get((long *)&out, sym_word, 1, 0));
    MEASURE("shmem_fetch_add", old = shmem_long_atomic_fetch_add(sym_word, 1, 0));
    MEASURE("shmem_put8_quiet", (shmem_long_p(sym_word, 1, 0), shmem_quiet()));
    /* At one unit a barrier waits for nobody: what is left is its entry (lookup, selection,
     * flush check), which every barrier pays whatever the team size. */
    MEASURE("shoal_barrier", shoal_barrier(SHOAL_TEAM_ALL));
    MEASURE("shoal_team_barrier", shoal_team_barrier(SHOAL_TEAM_ALL));
    MEASURE("shmem_barrier_all", shmem_barrier_all());
    /* A small collective made again with the same arguments: what every member pays to enter it
     * (at one unit nothing moves), since session 20 without the checks and the rule scan. */
    shoal_gptr_t cdst = shoal_gptr_add(g, 1024), csrc = shoal_gptr_add(g, 2048);
    MEASURE("shoal_broadcast8", shoal_broadcast(SHOAL_TEAM_ALL, cdst, csrc, 8, 0));
    MEASURE("shoal_reduce8",
            shoal_reduce(SHOAL_TEAM_ALL, cdst, csrc, 1, SHOAL_TYPE_INT64, SHOAL_RED_SUM));
    /* collect has no repeat path (its blocks may differ from call to call): its whole entry */
    MEASURE("shoal_collect8", shoal_collect(SHOAL_TEAM_ALL, cdst, csrc, 8));
    /* A fence on an allocation every member maps (auto: imm_barrier, its barrier alone), empty and
     * closing one put. The first fence, which makes the allocation's fence state, comes first. */
    if (shoal_epoch_fence(g, 0) != SHOAL_OK) return 1;
    MEASURE("shoal_epoch_fence", shoal_epoch_fence(g, 0));
    MEASURE("shoal_epoch_put8_fence", (shoal_put_nb(g, &v, 8, &h), shoal_epoch_fence(g, 0)));
    /* One put of an open epoch (an element-wise loop's step): the copy and a note of its target,
     * in line in shoal_put_nb since session 20. */
    MEASURE("shoal_epoch_put8", shoal_put_nb(g, &v, 8, &h));
    if (shoal_epoch_fence(g, 0) != SHOAL_OK) return 1;
    shoal_team_memfree(g);
    shmem_finalize();
    return 0;
}
