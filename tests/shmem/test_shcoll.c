// np: 1 2 3 4
/* SHCOLL's names (include/shcoll.h), as a SHCOLL program calls them: pSync arrays of SHCOLL's sizes
 * set to SHCOLL_SYNC_VALUE, active sets of all PEs, PEs 1..n-1 and the even PEs. Every routine
 * the header declares is called (the tables below come from the header's own lists) and its data
 * checked: barrier, barrier_all, sync, sync_all (data put before is there after), broadcast 8-64
 * (root n-1; its dest left alone), collect (index p gives p % 3 elements), fcollect, alltoall,
 * alltoalls (dst 2, sst 3), every TYPE_OP_to_all. On the set of all PEs it also checks that the
 * algorithm a name asks for is the one that ran where it always applies (shoal_coll_last_
 * algorithm), and at the end that no pSync word was written. Also run with
 * SHOAL_SHMEM_ACTIVE_SET_TEAMS=0, where a set that is not the world runs each call on a team made
 * for it. */
#include <complex.h>
#include <shcoll.h>
#include <shoal.h>

#include "shmem_testlib.h"
#include "to_all_cases.h"

#define NE  4
#define CAP 512 /* elements of each buffer */
long psync_bcast[SHCOLL_BCAST_SYNC_SIZE], psync_barrier[SHCOLL_BARRIER_SYNC_SIZE];
long psync_collect[SHCOLL_COLLECT_SYNC_SIZE], psync_a2a[SHCOLL_ALLTOALL_SYNC_SIZE];
long psync_a2as[SHCOLL_ALLTOALLS_SYNC_SIZE], psync_reduce[SHCOLL_REDUCE_SYNC_SIZE];
static long *const psyncs[] = {psync_bcast, psync_barrier, psync_collect,
                               psync_a2a,   psync_a2as,    psync_reduce};
static const int psync_sizes[] = {SHCOLL_BCAST_SYNC_SIZE,     SHCOLL_BARRIER_SYNC_SIZE,
                                  SHCOLL_COLLECT_SYNC_SIZE,   SHCOLL_ALLTOALL_SYNC_SIZE,
                                  SHCOLL_ALLTOALLS_SYNC_SIZE, SHCOLL_REDUCE_SYNC_SIZE};

struct aset {
    int start, logstride, size;
    const char *name;
};
static struct aset set;
static int idx, world_set; /* my index in the set; the set is every PE */
static int world_of(int i) {
    return set.start + (i << set.logstride);
}
#define SET set.start, set.logstride, set.size

static uint8_t *src, *dst; /* symmetric, CAP * 8 bytes each */

/* Element i of member p's source, seed s, in e bytes (e = 1, 2, 4 or 8). */
static uint64_t elem(int s, int p, int i, int e) {
    uint64_t v = VAL(uint64_t, s, p, i) * 0x0101010101010101ull;
    return e == 8 ? v : v & ((1ull << (8 * e)) - 1);
}
static uint64_t get(const uint8_t *b, int i, int e) {
    uint64_t v = 0;
    memcpy(&v, b + (size_t)i * e, (size_t)e);
    return v;
}
static void fill(int s, int e) {
    shcoll_barrier_dissemination(SET, psync_barrier); /* nobody reads the last call's buffers */
    for (int i = 0; i < CAP; i++) {
        uint64_t v = elem(s, idx, i, e);
        memcpy(src + (size_t)i * e, &v, (size_t)e);
    }
    memset(dst, 0, CAP * 8);
    shcoll_barrier_dissemination(SET, psync_barrier);
}

/* On the set of every PE (2 or more): the algorithm that ran is `want`. */
static void ran(const char *routine, const char *want) {
    const char *name = "";
    if (!world_set || t_np < 2 || !want) return;
    shoal_coll_last_algorithm(SHOAL_TEAM_ALL, &name);
    CHECK(strcmp(name, want) == 0, "%s ran \"%s\", expected \"%s\"", routine, name, want);
}

/* ---- Barriers ---- */
typedef void (*barrier_fn)(int, int, int, long *);
typedef void (*barrier_all_fn)(void);
static void barriers(int *slot) {
#define B_ROW(A)                                                                                   \
    {#A, shcoll_barrier_##A, shcoll_sync_##A, shcoll_barrier_all_##A, shcoll_sync_all_##A},
    static const struct {
        const char *name;
        barrier_fn barrier, sync;
        barrier_all_fn barrier_all, sync_all;
    } rows[] = {SHCOLL_BARRIER_ALGOS(B_ROW)};
    const int next = world_of((idx + 1) % set.size),
              prev = world_of((idx + set.size - 1) % set.size);
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        for (int form = 0; form < 4; form++) {
            if (form >= 2 && !world_set) continue; /* barrier_all, sync_all: every PE */
            int v = 1000 * (int)r + 100 * form + t_me;
            shmem_int_p(&slot[0], v, next);
            if (form == 1 || form == 3) shmem_quiet(); /* a sync does not complete puts */
            if (form == 0) rows[r].barrier(SET, psync_barrier);
            if (form == 1) rows[r].sync(SET, psync_barrier);
            if (form == 2) rows[r].barrier_all();
            if (form == 3) rows[r].sync_all();
            int want = 1000 * (int)r + 100 * form + prev;
            CHECK(slot[0] == want, "%s shcoll_%s_%s: %d, expected %d", set.name,
                  form & 1 ? "sync" : "barrier", rows[r].name, slot[0], want);
            shcoll_barrier_linear(SET, psync_barrier); /* all checked before the next put */
        }
    }
    if (world_set) {
        shcoll_barrier_dissemination(SET, psync_barrier);
        ran("shcoll_barrier_dissemination", "dissemination");
        shcoll_barrier_linear(SET, psync_barrier);
        ran("shcoll_barrier_linear", "linear");
    }
}

/* ---- Broadcast (every size), root n - 1 ---- */
typedef void (*bcast_fn)(void *, const void *, size_t, int, int, int, int, long *);
static void broadcasts(void) {
#define BC_ONE(A, S) {#A, S, shcoll_broadcast##S##_##A},
#define BC_ROW(A)    SHCOLL_BROADCAST_SIZES(BC_ONE, A)
    static const struct {
        const char *name;
        int bits;
        bcast_fn f;
    } rows[] = {SHCOLL_BROADCAST_ALGOS(BC_ROW)};
    const int root = set.size - 1;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        const int e = rows[r].bits / 8, seed = 30 + (int)r;
        fill(seed, e);
        rows[r].f(dst, src, NE, root, SET, psync_bcast);
        for (int i = 0; i < NE + 1; i++) {
            uint64_t want = idx != root && i < NE ? elem(seed, root, i, e) : 0;
            CHECK(get(dst, i, e) == want, "%s shcoll_broadcast%d_%s: [%d] = %#llx, expected %#llx",
                  set.name, rows[r].bits, rows[r].name, i, (unsigned long long)get(dst, i, e),
                  (unsigned long long)want);
        }
        if (strcmp(rows[r].name, "binomial_tree") == 0)
            ran("shcoll_broadcast_binomial_tree", "knomial");
        if (strcmp(rows[r].name, "linear") == 0) ran("shcoll_broadcast_linear", "linear");
    }
    /* The same call through the plain name and through SHCOLL's, alternately: Shoal keeps a call
     * made again (docs/collectives.md, "Repeats"), and each name must still run its own choice. */
    const char *plain = NULL;
    for (int k = 0; k < 6 && world_set && t_np >= 2; k++) {
        int by_name = k % 2, seed = 80 + k;
        fill(seed, 8);
        if (by_name)
            shcoll_broadcast64_linear(dst, src, NE, root, SET, psync_bcast);
        else
            shmem_broadcast64(dst, src, NE, root, SET, psync_bcast);
        for (int i = 0; i < NE; i++)
            CHECK(get(dst, i, 8) == (idx != root ? elem(seed, root, i, 8) : 0),
                  "%s broadcast64, call %d: [%d] wrong", set.name, k, i);
        const char *name = "";
        shoal_coll_last_algorithm(SHOAL_TEAM_ALL, &name);
        if (by_name)
            ran("shcoll_broadcast64_linear after shmem_broadcast64", "linear");
        else if (!plain)
            plain = name;
        else
            CHECK(strcmp(name, plain) == 0,
                  "shmem_broadcast64 after shcoll's linear ran \"%s\", "
                  "before it \"%s\"",
                  name, plain);
    }
}

/* ---- Collect and fcollect ---- */
typedef void (*collect_fn)(void *, const void *, size_t, int, int, int, long *);
static void collects(void) {
#define CO_ONE(A, S) {#A, S, 0, shcoll_collect##S##_##A},
#define CO_ROW(A)    SHCOLL_EXCHANGE_SIZES(CO_ONE, A)
#define FC_ONE(A, S) {#A, S, 1, shcoll_fcollect##S##_##A},
#define FC_ROW(A)    SHCOLL_EXCHANGE_SIZES(FC_ONE, A)
    static const struct {
        const char *name;
        int bits, fixed;
        collect_fn f;
    } rows[] = {SHCOLL_COLLECT_ALGOS(CO_ROW) SHCOLL_FCOLLECT_ALGOS(FC_ROW)};
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        const int e = rows[r].bits / 8, seed = 60 + (int)r, fixed = rows[r].fixed;
        fill(seed, e);
        rows[r].f(dst, src, fixed ? NE : (size_t)(idx % 3), SET, psync_collect);
        int at = 0;
        for (int p = 0; p < set.size; p++)
            for (int i = 0; i < (fixed ? NE : p % 3); i++, at++)
                CHECK(get(dst, at, e) == elem(seed, p, i, e),
                      "%s shcoll_%scollect%d_%s: [%d] (member %d's %d) = %#llx", set.name,
                      fixed ? "f" : "", rows[r].bits, rows[r].name, at, p, i,
                      (unsigned long long)get(dst, at, e));
        CHECK(get(dst, at, e) == 0, "%s shcoll_%scollect%d_%s wrote past the end", set.name,
              fixed ? "f" : "", rows[r].bits, rows[r].name);
        if (fixed && strcmp(rows[r].name, "ring") == 0) ran("shcoll_fcollect_ring", "ring");
        if (!fixed && strcmp(rows[r].name, "linear") == 0) ran("shcoll_collect_linear", "linear");
    }
}

/* ---- Alltoall and alltoalls ---- */
typedef void (*a2a_fn)(void *, const void *, size_t, int, int, int, long *);
typedef void (*a2as_fn)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int, int, int, long *);
static void alltoalls(void) {
#define AA_ONE(A, S)  {#A, S, shcoll_alltoall##S##_##A, NULL},
#define AA_ROW(A)     SHCOLL_EXCHANGE_SIZES(AA_ONE, A)
#define AAS_ONE(A, S) {#A, S, NULL, shcoll_alltoalls##S##_##A},
#define AAS_ROW(A)    SHCOLL_EXCHANGE_SIZES(AAS_ONE, A)
    static const struct {
        const char *name;
        int bits;
        a2a_fn f;
        a2as_fn fs;
    } rows[] = {SHCOLL_ALLTOALL_ALGOS(AA_ROW) SHCOLL_ALLTOALLS_ALGOS(AAS_ROW)};
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        const int e = rows[r].bits / 8, seed = 100 + (int)r, strided = rows[r].fs != NULL;
        const int ds = strided ? 2 : 1, ss = strided ? 3 : 1;
        fill(seed, e);
        if (strided)
            rows[r].fs(dst, src, ds, ss, NE, SET, psync_a2as);
        else
            rows[r].f(dst, src, NE, SET, psync_a2a);
        for (int i = 0; i < set.size * NE * ds + 1; i++) {
            uint64_t want = 0;
            if (i % ds == 0 && i / ds < set.size * NE) {
                int k = i / ds, p = k / NE, j = k % NE;
                want = elem(seed, p, ss * (idx * NE + j), e);
            }
            CHECK(get(dst, i, e) == want, "%s shcoll_alltoall%s%d_%s: [%d] = %#llx, expected %#llx",
                  set.name, strided ? "s" : "", rows[r].bits, rows[r].name, i,
                  (unsigned long long)get(dst, i, e), (unsigned long long)want);
        }
        if (!strided && strcmp(rows[r].name, "shift_exchange_barrier") == 0)
            ran("shcoll_alltoall_shift_exchange_barrier", "shift_barrier");
    }
}

/* ---- TYPE_OP_to_all, every type, operation and algorithm ---- */

#define TO_ALL_NAME(A) #A,
/* The function table of one type and operation: shcoll_N_OP_to_all_<each algorithm>. */
#define TO_ALL_FNS(N, OP)                                                                          \
    shcoll_##N##_##OP##_to_all_linear, shcoll_##N##_##OP##_to_all_binomial,                        \
        shcoll_##N##_##OP##_to_all_rec_dbl, shcoll_##N##_##OP##_to_all_rabenseifner,               \
        shcoll_##N##_##OP##_to_all_rabenseifner2
#define DEFINE_TO_ALL(T, N, OP, IN)                                                                \
    static void to_all_##N##_##OP(void) {                                                          \
        typedef void (*fn_t)(T *, const T *, int, int, int, int, T *, long *);                     \
        static T s[NE + 1], d[NE + 1]; /* symmetric (static) */                                    \
        static T pWrk[SHCOLL_REDUCE_MIN_WRKDATA_SIZE + NE];                                        \
        static const char *const names[] = {SHCOLL_REDUCE_ALGOS(TO_ALL_NAME)};                     \
        static const fn_t fns[] = {TO_ALL_FNS(N, OP)};                                             \
        _Static_assert(sizeof fns / sizeof fns[0] == sizeof names / sizeof names[0],               \
                       "every algorithm of SHCOLL_REDUCE_ALGOS is in TO_ALL_FNS");                 \
        for (size_t a = 0; a < sizeof fns / sizeof fns[0]; a++) {                                  \
            shcoll_barrier_dissemination(SET, psync_barrier);                                      \
            for (int i = 0; i <= NE; i++) s[i] = IN(T, idx, i), d[i] = (T)0;                       \
            shcoll_barrier_dissemination(SET, psync_barrier);                                      \
            fns[a](d, s, NE, SET, pWrk, psync_reduce);                                             \
            for (int i = 0; i < NE; i++) {                                                         \
                T want = IN(T, 0, i);                                                              \
                for (int p = 1; p < set.size; p++) want = TOP_##OP(want, IN(T, p, i));             \
                CHECK(d[i] == want, "%s shcoll_%s_%s_to_all_%s: [%d] = %g, expected %g", set.name, \
                      #N, #OP, names[a], i, (double)creal(d[i]), (double)creal(want));             \
            }                                                                                      \
            CHECK(d[NE] == (T)0, "%s shcoll_%s_%s_to_all_%s wrote past nreduce", set.name, #N,     \
                  #OP, names[a]);                                                                  \
        }                                                                                          \
    }
#define TO_ALL_DEF DEFINE_TO_ALL
TO_ALL_DEFINE_EVERY()

static void reductions(void) {
    TO_ALL_CALL_EVERY();
    static long s[NE], d[NE], w[SHCOLL_REDUCE_MIN_WRKDATA_SIZE + NE];
    for (int i = 0; i < NE; i++) s[i] = i;
    shcoll_barrier_dissemination(SET, psync_barrier);
    shcoll_long_sum_to_all_linear(d, s, NE, SET, w, psync_reduce);
    ran("shcoll_long_sum_to_all_linear", "linear");
}

/* ---- Bad input under SHCOLL's names (every member of the set of all PEs passes the same bad
 * argument, so every one reports it and nobody waits): the message names the SHCOLL routine and
 * the reason, and nothing is written. */
static void expect_refused(const char *routine, const char *reason) {
    const char *msg = test_capture_end();
    CHECK(strstr(msg, routine) && strstr(msg, reason),
          "%s: message \"%s\" (expected the routine "
          "and \"%s\")",
          routine, msg, reason);
}

static void bad_input(void) {
    long local_dest[NE], local_src[NE]; /* not symmetric */
    for (int i = 0; i < NE; i++) local_dest[i] = -7, local_src[i] = i;
    memset(dst, 0x5A, CAP * 8);
    shcoll_barrier_dissemination(SET, psync_barrier);
    test_capture_begin();
    shcoll_broadcast64_linear(local_dest, src, NE, 0, SET, psync_bcast);
    expect_refused("shcoll_broadcast64_linear", "not symmetric");
    test_capture_begin();
    shcoll_fcollect64_ring(dst, local_src, NE, SET, psync_collect);
    expect_refused("shcoll_fcollect64_ring", "not symmetric");
    test_capture_begin();
    static long pwrk_long[SHCOLL_REDUCE_MIN_WRKDATA_SIZE + NE];
    shcoll_long_sum_to_all_rec_dbl((long *)dst, (const long *)src, -1, SET, pwrk_long,
                                   psync_reduce);
    expect_refused("shcoll_long_sum_to_all_rec_dbl", "negative");
    test_capture_begin();
    shcoll_alltoall64_shift_exchange_barrier(dst, src, NE, 0, 0, t_np + 1, psync_a2a); /* too big */
    expect_refused("shcoll_alltoall64_shift_exchange_barrier", "active set");
    test_capture_begin();
    shcoll_broadcast64_binomial_tree(dst, src, NE, t_np, SET, psync_bcast); /* root past the set */
    expect_refused("shcoll_broadcast64_binomial_tree", "PE_root");
    int touched = 0;
    for (int i = 0; i < NE; i++) touched += local_dest[i] != -7;
    for (int i = 0; i < CAP * 8; i++) touched += dst[i] != 0x5A;
    CHECK(touched == 0, "refused calls wrote %d bytes or elements", touched);
    shcoll_barrier_dissemination(SET, psync_barrier);
}

int main(void) {
    for (size_t k = 0; k < sizeof psyncs / sizeof psyncs[0]; k++)
        for (int i = 0; i < psync_sizes[k]; i++) psyncs[k][i] = SHCOLL_SYNC_VALUE;
    test_init();
    /* The tree shapes: accepted at their least, refused below it. */
    shcoll_set_tree_degree(3);
    shcoll_set_knomial_tree_radix_barrier(4);
    shcoll_set_broadcast_tree_degree(3);
    shcoll_set_broadcast_knomial_tree_radix_barrier(4);
    shcoll_set_alltoall_rounds_sync(1);
    shcoll_set_alltoalls_rounds_sync(2);
    test_capture_begin();
    shcoll_set_broadcast_knomial_tree_radix_barrier(1);
    const char *msg = test_capture_end();
    CHECK(strstr(msg, "shcoll_set_broadcast_knomial_tree_radix_barrier") &&
              strstr(msg, "at least 2"),
          "a radix of 1: \"%s\"", msg);
    src = shmem_malloc(CAP * 8);
    dst = shmem_malloc(CAP * 8);
    int *slot = shmem_calloc(1, sizeof(int));
    REQUIRE(src && dst && slot, "allocation");
    struct aset sets[3] = {{0, 0, t_np, "all PEs"},
                           {1, 0, t_np - 1, "PEs 1..n-1"},
                           {0, 1, (t_np + 1) / 2, "even PEs"}};
    for (int k = 0; k < 3; k++) {
        set = sets[k];
        if (set.size < 1 || (k == 2 && t_np < 3)) continue;
        if (test_light() && k == 2) continue;
        int member = t_me >= set.start && ((t_me - set.start) & ((1 << set.logstride) - 1)) == 0 &&
                     ((t_me - set.start) >> set.logstride) < set.size;
        idx = member ? (t_me - set.start) >> set.logstride : -1;
        world_set = set.size == t_np;
        if (member && world_set) bad_input();
        if (member) {
            barriers(slot);
            broadcasts();
            collects();
            alltoalls();
            reductions();
        }
        shmem_barrier_all(); /* the next set starts with every member of this one done */
    }
    for (size_t k = 0; k < sizeof psyncs / sizeof psyncs[0]; k++)
        for (int i = 0; i < psync_sizes[k]; i++)
            CHECK(psyncs[k][i] == SHCOLL_SYNC_VALUE, "pSync %zu [%d] = %ld: written", k, i,
                  psyncs[k][i]);
    shmem_free(slot);
    shmem_free(dst);
    shmem_free(src);
    return test_end("test_shcoll");
}
