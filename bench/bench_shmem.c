/* OpenSHMEM benchmark, OSU style, written against shmem.h alone so that the same source builds
 * with Shoal's oshcc and with any other implementation's (bench/shmem-compare builds it with Open
 * MPI's OSHMEM too and prints the ratios). Every figure is the median over batches of the time per
 * operation; every transfer is checked once against the expected values.
 *
 *   bench_shmem [--quick] [--max-bytes N] [--batches B] [--set K]
 *
 * The SHCOLL paper's figures 6-12, as its loops time them ("fig<N>_*": barrier; broadcast32 plus
 * shmem_barrier_all; double_sum_to_all, fcollect32, collect32, alltoall32 and alltoalls32, each
 * with a barrier_all in the loop, at the paper's sizes per PE up to --max-bytes); built with Shoal
 * also through SHCOLL's names with the algorithm the paper found best at that size
 * ("fig<N>_shcoll_*", shcoll.h).
 *
 * --set K: only the collectives, over the active set of PEs 0..K-1 (the others wait in
 * shmem_barrier_all): a set that is not the whole world, which Shoal serves with a team of its
 * own, or on the program's pSync past SHOAL_SHMEM_ACTIVE_SET_TEAMS (docs/openshmem.md).
 *
 * Ping-pong (OpenSHMEM 1.5): "pingpong_*", 8 bytes and a signal each way between PEs 0 and 1,
 * waited for in the library's loop or in the program's own around a test or a fetch, against a
 * floor of plain stores and loads through shmem_ptr.
 *
 * Output: one line per figure, "RESULT <figure> <bytes> <ns>", then nothing else on stdout from
 * PE 0 (progress goes to stderr). Built with Shoal it also measures Shoal's native call for the
 * same operation ("native_*" figures), so the face's own cost shows. Needs at least 2 PEs: PE 0
 * talks to PE 1; the collectives run over all PEs. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef SHMEM_VENDOR_STRING
#if defined(__has_include)
#if __has_include(<shoal.h>)
#include <shoal.h>
#define HAVE_SHOAL_NATIVE 1
#endif
#if __has_include(<shcoll.h>)
#include <shcoll.h>
#define HAVE_SHCOLL_NAMES 1
#endif
#endif
#endif

static int me, npes, quick, batches = 15;
static int set_size; /* the collectives' active set: PEs 0..set_size-1 (--set; all by default) */
static size_t max_bytes = (size_t)4 << 20;
static int failures;

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void result(const char *name, size_t bytes, double ns) {
    if (me == 0) printf("RESULT %s %zu %.1f\n", name, bytes, ns);
    fflush(stdout);
}

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "bench_shmem: PE %d: wrong data after %s\n", me, what);
        failures++;
    }
}

/* Repetitions so a batch lasts about 1-2 ms at the given per-op estimate. */
static int reps_for(size_t bytes, int base) {
    int r = base;
    if (bytes >= 65536) r = base / 16;
    if (bytes >= ((size_t)1 << 20)) r = base / 64;
    if (quick) r /= 8;
    return r < 2 ? 2 : r;
}

static long *sym_long, *sym_counter;
static double times_sym[64];
/* The active-set collectives' work arrays (OpenSHMEM 1.4 implementations need them; Shoal does
 * not). Each collective kind has its own, and alternates between two so back-to-back calls
 * never share one. */
static long psync_times[SHMEM_BCAST_SYNC_SIZE];
static long psync[2][SHMEM_REDUCE_SYNC_SIZE > SHMEM_COLLECT_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE
                                                                      : SHMEM_COLLECT_SYNC_SIZE];
static long psync_a2a[2][SHMEM_ALLTOALL_SYNC_SIZE];
static long pwrk_long[SHMEM_REDUCE_MIN_WRKDATA_SIZE + (1 << 17)];
static double pwrk_double[SHMEM_REDUCE_MIN_WRKDATA_SIZE + (1 << 17)];
static char *sym_buf, *sym_dst;
static size_t sym_bytes; /* of each */
static char *local_buf;

/* PE 0 runs op reps times per batch, PE 1 idles in the barrier; the median per-op time. */
#define TIME_ORIGIN(name, bytes, reps, op)                                                         \
    do {                                                                                           \
        double t[64];                                                                              \
        int nb = batches;                                                                          \
        for (int b = 0; b < nb; b++) {                                                             \
            shmem_barrier_all();                                                                   \
            double t0 = now_ns();                                                                  \
            if (me == 0)                                                                           \
                for (int r = 0; r < (reps); r++) {                                                 \
                    op;                                                                            \
                }                                                                                  \
            t[b] = (now_ns() - t0) / (reps);                                                       \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        result(name, bytes, median(t, nb));                                                        \
    } while (0)

/* Every PE runs op (a collective) reps times per batch. */
#define TIME_ALL(name, bytes, reps, op)                                                            \
    do {                                                                                           \
        double t[64];                                                                              \
        int nb = batches;                                                                          \
        for (int b = 0; b < nb; b++) {                                                             \
            shmem_barrier_all();                                                                   \
            double t0 = now_ns();                                                                  \
            for (int r = 0; r < (reps) && me < set_size; r++) {                                    \
                op;                                                                                \
            }                                                                                      \
            t[b] = (now_ns() - t0) / (reps);                                                       \
        }                                                                                          \
        /* PE 0's times for everyone (a global variable: symmetric) */                             \
        memcpy(times_sym, t, sizeof(double) * (size_t)nb);                                         \
        shmem_broadcast64(times_sym, times_sym, (size_t)nb, 0, 0, 0, npes, psync_times);           \
        result(name, bytes, median(times_sym, nb));                                                \
    } while (0)

static void bench_latency(void) {
    int reps = reps_for(8, 2000);
    long v = 42, out = 0;
    /* A blocking put alone (the source reusable; Shoal's is also complete at the target, so it
     * pairs with native_put8 call for call), then with the quiet that completes any library's. */
    TIME_ORIGIN("put8", 8, reps, shmem_long_put(sym_long, &v, 1, 1));
    shmem_quiet();
    TIME_ORIGIN("put8_quiet", 8, reps, (shmem_long_put(sym_long, &v, 1, 1), shmem_quiet()));
    TIME_ORIGIN("p8_quiet", 8, reps, (shmem_long_p(sym_long, v, 1), shmem_quiet()));
    shmem_barrier_all();
    if (me == 1) check(*sym_long == 42, "put8");
    TIME_ORIGIN("get8", 8, reps, shmem_long_get(&out, sym_long, 1, 1));
    if (me == 0) check(out == 42, "get8");
    TIME_ORIGIN("g8", 8, reps, out = shmem_long_g(sym_long, 1));
    TIME_ORIGIN("put8_nbi_rate", 8, reps, shmem_long_put_nbi(sym_long + (r & 7), &v, 1, 1);
                if ((r & 63) == 63) shmem_quiet());
    shmem_quiet();
    /* atomics on PE 1's counter */
    long one = 1, cmp = 0;
    *sym_counter = 0;
    shmem_barrier_all();
    TIME_ORIGIN("atomic_fetch_add", 8, reps,
                out = shmem_long_atomic_fetch_add(sym_counter, one, 1));
    TIME_ORIGIN("atomic_add", 8, reps, (shmem_long_atomic_add(sym_counter, one, 1), shmem_quiet()));
    TIME_ORIGIN("atomic_fetch_inc", 8, reps, out = shmem_long_atomic_fetch_inc(sym_counter, 1));
    TIME_ORIGIN("atomic_inc", 8, reps, (shmem_long_atomic_inc(sym_counter, 1), shmem_quiet()));
    shmem_barrier_all();
    if (me == 1) check(*sym_counter == (long)batches * reps * 4, "atomic add/inc (count)");
    TIME_ORIGIN("atomic_compare_swap", 8, reps,
                out = shmem_long_atomic_compare_swap(sym_counter, cmp, one, 1));
    TIME_ORIGIN("atomic_swap", 8, reps, out = shmem_long_atomic_swap(sym_counter, one, 1));
    TIME_ORIGIN("atomic_fetch", 8, reps, out = shmem_long_atomic_fetch(sym_counter, 1));
    TIME_ORIGIN("atomic_set", 8, reps, (shmem_long_atomic_set(sym_counter, one, 1), shmem_quiet()));
    TIME_ORIGIN("atomic_fetch_and", 8, reps,
                out = (long)shmem_uint64_atomic_fetch_and((uint64_t *)sym_counter, 1, 1));
    TIME_ORIGIN("atomic_fetch_xor", 8, reps,
                out = (long)shmem_uint64_atomic_fetch_xor((uint64_t *)sym_counter, 1, 1));
    int *c32 = (int *)sym_counter;
    TIME_ORIGIN("atomic_fetch_add32", 4, reps, out = shmem_int_atomic_fetch_add(c32, 1, 1));
    TIME_ALL("barrier_all", 0, reps_for(0, 500), shmem_barrier_all());
    (void)out;
#ifdef HAVE_SHOAL_NATIVE
    /* Shoal's own calls on the same memory: the face's cost is the difference. */
    shoal_gptr_t g;
    shoal_gptr_from_addr(sym_long, &g);
    g = shoal_gptr_setunit(g, 1);
    shoal_gptr_t gc;
    shoal_gptr_from_addr(sym_counter, &gc);
    gc = shoal_gptr_setunit(gc, 1);
    TIME_ORIGIN("native_put8", 8, reps, shoal_put(g, &v, 8));
    TIME_ORIGIN("native_get8", 8, reps, shoal_get(&out, g, 8));
    TIME_ORIGIN("native_fetch_add", 8, reps, shoal_fetch_add_i64(gc, 1, &out));
    TIME_ALL("native_barrier", 0, reps_for(0, 500), shoal_barrier(SHOAL_TEAM_ALL));
#endif
}

static void bench_bandwidth(void) {
    for (size_t n = 1; n <= max_bytes; n *= 4) {
        int reps = reps_for(n, 400);
        memset(local_buf, (int)(n & 0x7f) + 1, n);
        TIME_ORIGIN("putmem_quiet", n, reps,
                    (shmem_putmem(sym_buf, local_buf, n, 1), shmem_quiet()));
        shmem_barrier_all();
        if (me == 1) check(sym_buf[n - 1] == (char)((n & 0x7f) + 1), "putmem");
        TIME_ORIGIN("getmem", n, reps, shmem_getmem(local_buf, sym_buf, n, 1));
        if (me == 0) check(local_buf[n - 1] == (char)((n & 0x7f) + 1), "getmem");
    }
}

/* The collectives through the active-set interface (PE_start 0, stride 1, all PEs), which every
 * implementation has (Open MPI 4.1's OSHMEM is OpenSHMEM 1.4: no teams); Shoal's builds also time
 * the 1.5 team forms ("team_*"), which have no counterpart there. Sizes: bytes per PE. */
static void bench_collectives(void) {
    size_t limit = max_bytes / (size_t)npes;
    const int n_set = set_size;
    if (limit > ((size_t)1 << 20)) limit = (size_t)1 << 20;
    int k = 0;
    for (size_t n = 8; n <= limit; n *= 8) {
        int reps = reps_for(n * (size_t)npes, 200);
        size_t nl = n / sizeof(long);
        for (size_t i = 0; i < n; i++) sym_buf[i] = (char)(me + i);
        shmem_barrier_all();
        TIME_ALL("broadcast", n, reps,
                 shmem_broadcast64(sym_dst, sym_buf, nl, 0, 0, 0, n_set, psync[k ^= 1]));
        check(me == 0 || me >= n_set || sym_dst[n - 1] == (char)(n - 1), "broadcast");
        TIME_ALL("fcollect", n, reps,
                 shmem_fcollect64(sym_dst, sym_buf, nl, 0, 0, n_set, psync[k ^= 1]));
        check(me >= n_set || sym_dst[n * (size_t)(n_set - 1)] == (char)(n_set - 1), "fcollect");
        TIME_ALL("collect", n, reps,
                 shmem_collect64(sym_dst, sym_buf, nl, 0, 0, n_set, psync[k ^= 1]));
        TIME_ALL("alltoall", n, reps,
                 shmem_alltoall64(sym_dst, sym_buf, nl, 0, 0, n_set, psync_a2a[k ^= 1]));
        TIME_ALL("alltoalls", n, reps,
                 shmem_alltoalls64(sym_dst, sym_buf, 1, 1, nl, 0, 0, n_set, psync_a2a[k ^= 1]));
        TIME_ALL("sum_reduce_long", n, reps,
                 shmem_long_sum_to_all((long *)sym_dst, (long *)sym_buf, (int)nl, 0, 0, n_set,
                                       pwrk_long, psync[k ^= 1]));
        TIME_ALL("max_reduce_double", n, reps,
                 shmem_double_max_to_all((double *)sym_dst, (double *)sym_buf,
                                         (int)(n / sizeof(double)), 0, 0, n_set, pwrk_double,
                                         psync[k ^= 1]));
#if SHMEM_MAJOR_VERSION * 10 + SHMEM_MINOR_VERSION >= 15
        if (n_set < npes) continue; /* the team forms run over the world */
        TIME_ALL("team_broadcast", n, reps,
                 shmem_broadcastmem(SHMEM_TEAM_WORLD, sym_dst, sym_buf, n, 0));
        TIME_ALL("team_fcollect", n, reps,
                 shmem_fcollectmem(SHMEM_TEAM_WORLD, sym_dst, sym_buf, n));
        TIME_ALL("team_alltoall", n, reps,
                 shmem_alltoallmem(SHMEM_TEAM_WORLD, sym_dst, sym_buf, n));
        TIME_ALL("team_sum_reduce_long", n, reps,
                 shmem_long_sum_reduce(SHMEM_TEAM_WORLD, (long *)sym_dst, (long *)sym_buf, nl));
#endif
    }
}

#if SHMEM_MAJOR_VERSION * 10 + SHMEM_MINOR_VERSION >= 15
/* An 8-byte ping-pong between PEs 0 and 1 (the others wait in the barrier): each side puts the
 * round number into the peer's data word with its signal (shmem_uint64_put_signal) and waits for
 * the peer's by one of OpenSHMEM's ways to wait: in the library's loop (signal_wait_until) or in
 * the program's own loop around a test or a fetch, as programs write them. The floor: the same
 * through shmem_ptr with plain stores and loads, where the peer's memory is mapped. One-way time
 * (round trip / 2); the data is checked every round. */
enum { PP_WAIT_UNTIL, PP_TEST, PP_ATOMIC_FETCH, PP_SIGNAL_FETCH, PP_FLOOR, PP_N };
static const char *const pp_names[PP_N] = {
    "pingpong_signal_wait_until", "pingpong_test_loop", "pingpong_atomic_fetch_loop",
    "pingpong_signal_fetch_loop", "pingpong_floor_shmem_ptr"};

static void pp_wait(int how, uint64_t *sig, uint64_t want) {
    switch (how) {
    case PP_WAIT_UNTIL:
        shmem_signal_wait_until(sig, SHMEM_CMP_EQ, want);
        break;
    case PP_TEST:
        while (!shmem_uint64_test(sig, SHMEM_CMP_EQ, want)) continue;
        break;
    case PP_ATOMIC_FETCH:
        while (shmem_uint64_atomic_fetch(sig, me) != want) continue;
        break;
    case PP_SIGNAL_FETCH:
        while (shmem_signal_fetch(sig) != want) continue;
        break;
    default:
        while (__atomic_load_n(sig, __ATOMIC_ACQUIRE) != want) continue;
        break;
    }
}

static void pp_send(int how, uint64_t *data, uint64_t *sig, uint64_t v, uint64_t *peer_data,
                    uint64_t *peer_sig) {
    if (how == PP_FLOOR) {
        __atomic_store_n(peer_data, v, __ATOMIC_RELAXED);
        __atomic_store_n(peer_sig, v, __ATOMIC_RELEASE);
    } else {
        shmem_uint64_put_signal(data, &v, 1, sig, v, SHMEM_SIGNAL_SET, 1 - me);
    }
}

static void bench_pingpong(void) {
    /* per method a data line and a signal line, 64 bytes apart */
    uint64_t *words = shmem_calloc((size_t)PP_N * 16, sizeof(uint64_t));
    static int ok_src, ok_all;
    int reps = reps_for(8, 2000), bad = 0;
    for (int m = 0; m < PP_N; m++) {
        uint64_t *data = words + 16 * m, *sig = data + 8, *peer_data = NULL, *peer_sig = NULL;
        if (m == PP_FLOOR) { /* every PE must agree to run it */
            if (me < 2) {
                peer_data = shmem_ptr(data, 1 - me);
                peer_sig = shmem_ptr(sig, 1 - me);
            }
            ok_src = me >= 2 || (peer_data && peer_sig);
            shmem_barrier_all();
            shmem_int_min_reduce(SHMEM_TEAM_WORLD, &ok_all, &ok_src, 1);
            if (!ok_all) continue;
        }
        uint64_t v = 0;
        double t[64];
        for (int b = 0; b < batches; b++) {
            shmem_barrier_all();
            double t0 = now_ns();
            for (int r = 0; r < reps && me < 2; r++) {
                v++;
                if (me == 0) pp_send(m, data, sig, v, peer_data, peer_sig);
                pp_wait(m, sig, v);
                bad += __atomic_load_n(data, __ATOMIC_RELAXED) != v;
                if (me == 1) pp_send(m, data, sig, v, peer_data, peer_sig);
            }
            t[b] = (now_ns() - t0) / reps / 2;
        }
        shmem_barrier_all();
        result(pp_names[m], 8, median(t, batches));
    }
    check(bad == 0, "pingpong");
    shmem_free(words);
}
#endif

/* The SHCOLL paper's evaluation patterns (figures 6-12: section 6), over all PEs. Each loop has
 * the barrier_all the paper's loops have (the pSync arming of OpenSHMEM 1.4). Sizes are the
 * paper's, per PE, up to max_bytes (its 256 MiB broadcast is left out). */
static void bench_shcoll_figures(void) {
    static long ps_barrier[SHMEM_BARRIER_SYNC_SIZE];
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++) ps_barrier[i] = SHMEM_SYNC_VALUE;
    for (size_t i = 0; i < sym_bytes; i++) sym_buf[i] = (char)(me + i);
    shmem_barrier_all();
    TIME_ALL("fig6_barrier", 0, reps_for(0, 500), shmem_barrier(0, 0, npes, ps_barrier));
    static const size_t fig7[] = {4, 1024, (size_t)1 << 20}, fig8[] = {8, 2048},
                        fig9[] = {4, 16384}, fig12[] = {4, 128};
    int k = 0;
    for (size_t j = 0; j < sizeof fig7 / sizeof fig7[0] && fig7[j] <= max_bytes; j++) {
        size_t n = fig7[j];
        TIME_ALL("fig7_broadcast32_barrier_all", n, reps_for(n, 200),
                 (shmem_broadcast32(sym_dst, sym_buf, n / 4, 0, 0, 0, npes, psync[k ^= 1]),
                  shmem_barrier_all()));
#ifdef HAVE_SHCOLL_NAMES /* the paper's choice: k-nomial to 1 KiB, binomial above */
        TIME_ALL("fig7_shcoll_broadcast32_barrier_all", n, reps_for(n, 200),
                 ((n <= 1024 ? shcoll_broadcast32_knomial_tree : shcoll_broadcast32_binomial_tree)(
                      sym_dst, sym_buf, n / 4, 0, 0, 0, npes, psync[k ^= 1]),
                  shmem_barrier_all()));
#endif
        check(me == 0 || sym_dst[n - 1] == (char)(n - 1), "fig7 broadcast");
    }
    for (size_t j = 0; j < sizeof fig8 / sizeof fig8[0] && fig8[j] <= max_bytes; j++) {
        size_t n = fig8[j];
        int nd = (int)(n / sizeof(double));
        TIME_ALL(
            "fig8_double_sum_to_all", n, reps_for(n, 200),
            (shmem_barrier_all(), shmem_double_sum_to_all((double *)sym_dst, (double *)sym_buf, nd,
                                                          0, 0, npes, pwrk_double, psync[k ^= 1])));
#ifdef HAVE_SHCOLL_NAMES /* recursive doubling */
        TIME_ALL("fig8_shcoll_double_sum_to_all", n, reps_for(n, 200),
                 (shmem_barrier_all(),
                  shcoll_double_sum_to_all_rec_dbl((double *)sym_dst, (double *)sym_buf, nd, 0, 0,
                                                   npes, pwrk_double, psync[k ^= 1])));
#endif
    }
    for (size_t j = 0; j < sizeof fig9 / sizeof fig9[0] && fig9[j] <= max_bytes; j++) {
        size_t n = fig9[j];
        TIME_ALL("fig9_fcollect32", n, reps_for(n * (size_t)npes, 200),
                 (shmem_fcollect32(sym_dst, sym_buf, n / 4, 0, 0, npes, psync[k ^= 1]),
                  shmem_barrier_all()));
        check(sym_dst[n * (size_t)(npes - 1)] == (char)(npes - 1), "fig9 fcollect");
        TIME_ALL("fig10_collect32", n, reps_for(n * (size_t)npes, 200),
                 (shmem_collect32(sym_dst, sym_buf, n / 4, 0, 0, npes, psync[k ^= 1]),
                  shmem_barrier_all()));
        check(sym_dst[n * (size_t)(npes - 1)] == (char)(npes - 1), "fig10 collect");
        TIME_ALL("fig11_alltoall32", n, reps_for(n * (size_t)npes, 200),
                 (shmem_alltoall32(sym_dst, sym_buf, n / 4, 0, 0, npes, psync_a2a[k ^= 1]),
                  shmem_barrier_all()));
        /* block p of my dest is block me of PE p's source */
        check(sym_dst[n * (size_t)(npes - 1)] == (char)(npes - 1 + (int)(n * (size_t)me)),
              "fig11 alltoall");
#ifdef HAVE_SHCOLL_NAMES /* Bruck, recursive doubling, colour pairwise */
        TIME_ALL("fig9_shcoll_fcollect32", n, reps_for(n * (size_t)npes, 200),
                 (shcoll_fcollect32_bruck(sym_dst, sym_buf, n / 4, 0, 0, npes, psync[k ^= 1]),
                  shmem_barrier_all()));
        TIME_ALL("fig10_shcoll_collect32", n, reps_for(n * (size_t)npes, 200),
                 (shcoll_collect32_rec_dbl(sym_dst, sym_buf, n / 4, 0, 0, npes, psync[k ^= 1]),
                  shmem_barrier_all()));
        TIME_ALL("fig11_shcoll_alltoall32", n, reps_for(n * (size_t)npes, 200),
                 (shcoll_alltoall32_color_pairwise_exchange_counter(sym_dst, sym_buf, n / 4, 0, 0,
                                                                    npes, psync_a2a[k ^= 1]),
                  shmem_barrier_all()));
#endif
    }
    for (size_t j = 0; j < sizeof fig12 / sizeof fig12[0] && fig12[j] <= max_bytes; j++) {
        size_t n = fig12[j];
        TIME_ALL("fig12_alltoalls32", n, reps_for(n * (size_t)npes, 200),
                 (shmem_alltoalls32(sym_dst, sym_buf, 1, 1, n / 4, 0, 0, npes, psync_a2a[k ^= 1]),
                  shmem_barrier_all()));
        check(sym_dst[n * (size_t)(npes - 1)] == (char)(npes - 1 + (int)(n * (size_t)me)),
              "fig12 alltoalls");
#ifdef HAVE_SHCOLL_NAMES /* XOR pairwise (a power of two; colour pairwise otherwise) */
        TIME_ALL("fig12_shcoll_alltoalls32", n, reps_for(n * (size_t)npes, 200),
                 (shcoll_alltoalls32_xor_pairwise_exchange_counter(sym_dst, sym_buf, 1, 1, n / 4, 0,
                                                                   0, npes, psync_a2a[k ^= 1]),
                  shmem_barrier_all()));
#endif
    }
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
            batches = 5;
            max_bytes = (size_t)64 << 10;
        } else if (!strcmp(argv[i], "--max-bytes") && i + 1 < argc) {
            max_bytes = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
            set_size = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--batches") && i + 1 < argc) {
            batches = atoi(argv[++i]);
            if (batches < 1 || batches > 64) batches = 15;
        } else {
            fprintf(stderr,
                    "usage: bench_shmem [--quick] [--max-bytes N] [--batches B] [--set K]\n");
            return 2;
        }
    }
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++) psync_times[i] = SHMEM_SYNC_VALUE;
    for (int j = 0; j < 2; j++) {
        for (size_t i = 0; i < sizeof psync[j] / sizeof(long); i++) psync[j][i] = SHMEM_SYNC_VALUE;
        for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++) psync_a2a[j][i] = SHMEM_SYNC_VALUE;
    }
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0) fprintf(stderr, "bench_shmem: needs at least 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_name(name);
    if (me == 0) printf("LIBRARY %s\nPES %d\n", name, npes);
    sym_long = shmem_malloc(64 * sizeof(long));
    sym_counter = shmem_malloc(64);
    size_t coll_bytes = max_bytes < ((size_t)1 << 20) ? max_bytes : ((size_t)1 << 20);
    size_t buf = max_bytes > coll_bytes * (size_t)npes ? max_bytes : coll_bytes * (size_t)npes;
    sym_buf = shmem_malloc(buf);
    sym_bytes = buf;
    sym_dst = shmem_malloc(buf);
    local_buf = malloc(buf);
    if (!sym_long || !sym_counter || !sym_buf || !sym_dst || !local_buf) {
        fprintf(stderr, "bench_shmem: PE %d: out of symmetric memory (SHMEM_SYMMETRIC_SIZE)\n", me);
        shmem_global_exit(1);
    }
    memset(sym_buf, 0, buf);
    memset(sym_dst, 0, buf);
    if (set_size == 0) {
        set_size = npes;
        bench_latency();
#if SHMEM_MAJOR_VERSION * 10 + SHMEM_MINOR_VERSION >= 15
        bench_pingpong();
#endif
        bench_bandwidth();
    } else if (set_size < 1 || set_size > npes) {
        if (me == 0) fprintf(stderr, "bench_shmem: --set %d: needs 1..%d\n", set_size, npes);
        shmem_finalize();
        return 2;
    } else if (me == 0) {
        printf("SET 0..%d\n", set_size - 1);
    }
    bench_collectives();
    if (set_size == npes) bench_shcoll_figures();
    shmem_free(sym_dst);
    shmem_free(sym_buf);
    shmem_free(sym_counter);
    shmem_free(sym_long);
    free(local_buf);
    int bad = failures;
    shmem_finalize();
    return bad ? 1 : 0;
}
