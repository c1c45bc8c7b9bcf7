// np: 1 2 3 4
/* shmem_quiet and shmem_fence complete and order on their own, with no barrier after them to do
 * it instead (every other test checks its data after a barrier, which completes everything too).
 * shmem.h puts quiet and fence in line when nothing is outstanding; this test fails if quiet skips
 * work that is outstanding (the MPI path: a non-blocking get lands at a flush; a quiet made a
 * no-op fails the get cases on both MPIs). The put cases cannot show a skipped quiet or fence
 * here: the flag is a blocking put, whose own completion flushes its target, and both MPIs
 * deliver puts to one target in order; they check the semantics, not the in-line path.
 * Ring, round after round, each PE with its right neighbour:
 *  - get_nbi + quiet: the local buffer is checked right after the quiet;
 *  - put_nbi + quiet, then a flag put: the target waits for the flag and checks the data;
 *  - put_nbi + fence, then a flag put: the same, with fence's ordering instead of quiet;
 *  - a blocking put + quiet from a created context's default (shmem_ctx_quiet) for contrast.
 * Sizes from 8 B to 256 KiB (above MPI's eager limits, so the MPI path's transfers take time). */
#include "shmem_testlib.h"

#define MAXB   (256 * 1024)
#define ROUNDS 6

static uint8_t *sym_src, *sym_dst; /* symmetric, MAXB each */
static long *flag;                 /* symmetric: the round last delivered */

static void fill(uint8_t *p, size_t n, int seed, int pe) {
    for (size_t i = 0; i < n; i++) p[i] = VAL(uint8_t, seed, pe, i);
}

/* The first index where p differs from the pattern of (seed, pe), or n. */
static size_t first_bad(const uint8_t *p, size_t n, int seed, int pe) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != VAL(uint8_t, seed, pe, i)) return i;
    return n;
}

static void get_then_quiet(size_t n, int seed, uint8_t *loc) {
    int right = test_right();
    fill(sym_src, n, seed, t_me);
    memset(loc, 0, n);
    shmem_barrier_all(); /* every source is filled */
    shmem_getmem_nbi(loc, sym_src, n, right);
    shmem_quiet();
    size_t bad = first_bad(loc, n, seed, right);
    CHECK(bad == n, "get_nbi %zu B + quiet: byte %zu is %u, expected %u", n, bad,
          bad < n ? loc[bad] : 0, bad < n ? VAL(uint8_t, seed, right, bad) : 0);
    shmem_barrier_all(); /* nobody refills a source I may still read */
}

/* put_nbi of n bytes to the right, then quiet (or fence), then the round's flag; the left
 * neighbour's data is checked as soon as its flag arrives. */
static void put_then_flag(size_t n, int seed, int use_fence, uint8_t *loc) {
    int right = test_right(), left = test_left();
    fill(loc, n, seed, t_me);
    shmem_barrier_all(); /* my destination is free: the last round's checks are done */
    shmem_putmem_nbi(sym_dst, loc, n, right);
    if (use_fence)
        shmem_fence();
    else
        shmem_quiet();
    shmem_long_p(flag, seed, right);
    shmem_long_wait_until(flag, SHMEM_CMP_EQ, seed);
    size_t bad = first_bad(sym_dst, n, seed, left);
    CHECK(bad == n, "put_nbi %zu B + %s + flag: byte %zu is %u, expected %u", n,
          use_fence ? "fence" : "quiet", bad, bad < n ? sym_dst[bad] : 0,
          bad < n ? VAL(uint8_t, seed, left, bad) : 0);
    /* The local buffer may be reused after the quiet; after a fence only once completed. */
    if (use_fence) shmem_quiet();
    shmem_barrier_all();
}

int main(void) {
    test_init();
    sym_src = (uint8_t *)shmem_malloc(MAXB);
    sym_dst = (uint8_t *)shmem_malloc(MAXB);
    flag = (long *)shmem_calloc(1, sizeof(long));
    uint8_t *loc = (uint8_t *)malloc(MAXB);
    REQUIRE(sym_src && sym_dst && flag && loc, "allocation failed");
    int seed = 1;
    for (size_t n = 8; n <= MAXB; n *= 8) {
        for (int r = 0; r < ROUNDS; r++) {
            get_then_quiet(n, seed++, loc);
            put_then_flag(n, seed++, 0, loc);
            put_then_flag(n, seed++, 1, loc);
        }
    }
    free(loc);
    shmem_free(flag);
    shmem_free(sym_dst);
    shmem_free(sym_src);
    return test_end("test_shmem_quiet");
}
