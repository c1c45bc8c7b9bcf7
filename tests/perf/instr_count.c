/* Instructions per direct-path operation, for tests/perf/instr_budget.py (callgrind). One unit:
 * the operations target my own part of a symmetric allocation, which takes the same direct path
 * as a same-node peer (a mapped address). Each operation runs N and 2N times between callgrind
 * dumps; the script takes the difference over N, so start-up and the loop's set-up cancel out
 * and the count per operation is exact and independent of machine load.
 *
 *   valgrind --tool=callgrind --instr-atstart=no instr_count [N]
 */
#include <shmem.h>
#include <shoal.h>
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/callgrind.h>

static int n_ops = 1000;
static long sym_word[8]; /* a global: symmetric for the OpenSHMEM face */

/* Runs body k times with instrumentation on, then dumps the counts as "<name>.<k>". */
#define MEASURE(name, body)                                                                        \
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
        }                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    if (argc > 1) n_ops = atoi(argv[1]);
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
