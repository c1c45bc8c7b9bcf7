// np: 1 2 3 4 8
/* Atomic memory operations, every routine for every type of its table, plain and on a created
 * context, all contended: every PE hits one counter on PE 0 and the result is checked exactly.
 * The counter sits between two guard elements that must never change (a 32-bit operation done as
 * 64 bits would clobber one); unsigned counters start just below the type's maximum, so the
 * additions wrap at the type's own width. Fetching forms: every fetched value is gathered on
 * PE 0, which checks they are exactly the values the counter went through (inc: a permutation;
 * add: a chain of the addends; swap: each value swapped in comes out once). compare_swap: a race
 * with exactly one winner, and an increment loop. The _nbi fetching forms are checked the same
 * way after shmem_quiet. Bitwise: each PE owns two bits (a low one and one near the top).
 * Finally the deprecated names (shmem_int_fadd, ..., shmem_swap) and the deprecated C11 generic
 * ones (shmem_add, shmem_fadd, shmem_finc, shmem_inc, shmem_cswap, shmem_swap, shmem_fetch,
 * shmem_set: OpenSHMEM 1.3's, which the Sandia test suite still calls). */
#include "shmem_testlib.h"

#define K 6 /* operations per PE per phase */

static shmem_ctx_t made;
#define AMO(c, N, op, ...)                                                                         \
    ((c) ? shmem_ctx_##N##_atomic_##op(made, __VA_ARGS__) : shmem_##N##_atomic_##op(__VA_ARGS__))
static void done(int c) {
    if (c) shmem_ctx_quiet(made);
    shmem_quiet();
    shmem_barrier_all();
}

static unsigned long ul_sum_1_to(int n) {
    return (unsigned long)n * (unsigned long)(n + 1) / 2;
}

/* Shared arrays: ctr[3] on every PE (guard, counter, guard), logv[np * K] and logw[np * K] (the
 * fetched values and their addends, gathered on PE 0). */
#define GUARD(T) ((T)0x5A)
#define DEFINE_STANDARD(T, N)                                                                      \
    static void standard_##N(int c) {                                                              \
        const char *cn = c ? "ctx" : "plain";                                                      \
        const int nk = t_np * K;                                                                   \
        T *ctr = shmem_malloc(3 * sizeof(T));                                                      \
        T *logv = shmem_malloc((size_t)nk * sizeof(T));                                            \
        REQUIRE(ctr &&logv, "allocation");                                                         \
        const int is_signed = (T)-1 < (T)1;                                                        \
        const T start = is_signed ? (T)-5 : (T)((T)0 - (T)3);                                      \
        T mine[K];                                                                                 \
        for (int phase = 0; phase < 8; phase++) {                                                  \
            ctr[0] = ctr[2] = GUARD(T);                                                            \
            ctr[1] = phase == 4 || phase == 7 ? (T)0 : start;                                      \
            shmem_barrier_all();                                                                   \
            T expect = start;                                                                      \
            for (int k = 0; k < K; k++) {                                                          \
                T old = 0;                                                                         \
                switch (phase) {                                                                   \
                case 0:                                                                            \
                    AMO(c, N, inc, &ctr[1], 0);                                                    \
                    break;                                                                         \
                case 1:                                                                            \
                    mine[k] = AMO(c, N, fetch_inc, &ctr[1], 0);                                    \
                    break;                                                                         \
                case 2:                                                                            \
                    AMO(c, N, add, &ctr[1], (T)(t_me + 1), 0);                                     \
                    break;                                                                         \
                case 3:                                                                            \
                    mine[k] = AMO(c, N, fetch_add, &ctr[1], (T)(t_me + 1), 0);                     \
                    break;                                                                         \
                case 4:                                                                            \
                    if (k == 0)                                                                    \
                        mine[0] = AMO(c, N, compare_swap, &ctr[1], (T)0, (T)(t_me + 1), 0);        \
                    break;                                                                         \
                case 5:                                                                            \
                    old = AMO(c, N, fetch, &ctr[1], 0);                                            \
                    for (;;) {                                                                     \
                        T prev = AMO(c, N, compare_swap, &ctr[1], old, (T)(old + 1), 0);           \
                        if (prev == old) break;                                                    \
                        old = prev;                                                                \
                    }                                                                              \
                    break;                                                                         \
                case 6:                                                                            \
                    AMO(c, N, fetch_inc_nbi, &mine[k], &ctr[1], 0);                                \
                    break;                                                                         \
                case 7:                                                                            \
                    if (k == 0)                                                                    \
                        AMO(c, N, compare_swap_nbi, &mine[0], &ctr[1], (T)0, (T)(t_me + 1), 0);    \
                    break;                                                                         \
                }                                                                                  \
            }                                                                                      \
            if (c) shmem_ctx_quiet(made);                                                          \
            shmem_quiet();                                                                         \
            if (phase == 1 || phase == 3 || phase == 6)                                            \
                shmem_##N##_put(&logv[t_me * K], mine, K, 0);                                      \
            if (phase == 4 || phase == 7) shmem_##N##_p(&logv[t_me], mine[0], 0);                  \
            done(c);                                                                               \
            if (t_me != 0) continue;                                                               \
            if (phase == 2 || phase == 3)                                                          \
                expect = (T)(start + (T)(K * ul_sum_1_to(t_np)));                                  \
            else                                                                                   \
                expect = (T)(start + (T)nk);                                                       \
            CHECK(ctr[0] == GUARD(T) && ctr[2] == GUARD(T), "%s %s phase %d: guards %g %g", #N,    \
                  cn, phase, (double)ctr[0], (double)ctr[2]);                                      \
            if (phase == 4 || phase == 7) {                                                        \
                int winners = 0, winner = -1;                                                      \
                for (int pe = 0; pe < t_np; pe++)                                                  \
                    if (logv[pe] == (T)0) winners++, winner = pe;                                  \
                CHECK(winners == 1, "%s %s compare_swap%s race: %d winners", #N, cn,               \
                      phase == 7 ? "_nbi" : "", winners);                                          \
                CHECK(ctr[1] == (T)(winner + 1), "%s %s compare_swap race: counter %g, winner %d", \
                      #N, cn, (double)ctr[1], winner);                                             \
                for (int pe = 0; pe < t_np; pe++)                                                  \
                    CHECK(logv[pe] == (T)0 || logv[pe] == (T)(winner + 1),                         \
                          "%s %s compare_swap race: PE %d saw %g", #N, cn, pe, (double)logv[pe]);  \
                continue;                                                                          \
            }                                                                                      \
            CHECK(ctr[1] == expect, "%s %s phase %d: counter %g, expected %g", #N, cn, phase,      \
                  (double)(T)(ctr[1] - start), (double)(T)(expect - start));                       \
            if (phase == 1 || phase == 6) { /* fetched: a permutation of start + 0 .. nk-1 */      \
                char seen[8 * K];                                                                  \
                memset(seen, 0, sizeof seen);                                                      \
                for (int i = 0; i < nk; i++) {                                                     \
                    unsigned long d = (unsigned long)(T)(logv[i] - start);                         \
                    if (CHECK(d < (unsigned long)nk && !seen[d],                                   \
                              "%s %s fetch_inc%s: value %lu "                                      \
                              "out of range or seen twice",                                        \
                              #N, cn, phase == 6 ? "_nbi" : "", d))                                \
                        seen[d] = 1;                                                               \
                }                                                                                  \
            }                                                                                      \
            if (phase == 3) { /* fetched values chain: sorted, each is the last plus its adder */  \
                unsigned long d[8 * K];                                                            \
                int who[8 * K];                                                                    \
                for (int i = 0; i < nk; i++)                                                       \
                    d[i] = (unsigned long)(T)(logv[i] - start), who[i] = i / K;                    \
                for (int i = 1; i < nk; i++) /* insertion sort, nk <= 48 */                        \
                    for (int j = i; j > 0 && d[j - 1] > d[j]; j--) {                               \
                        unsigned long td = d[j];                                                   \
                        d[j] = d[j - 1];                                                           \
                        d[j - 1] = td;                                                             \
                        int tw = who[j];                                                           \
                        who[j] = who[j - 1];                                                       \
                        who[j - 1] = tw;                                                           \
                    }                                                                              \
                unsigned long at = 0;                                                              \
                for (int i = 0; i < nk; i++) {                                                     \
                    if (!CHECK(d[i] == at,                                                         \
                               "%s %s fetch_add: fetched start+%lu, expected start+%lu", #N, cn,   \
                               d[i], at))                                                          \
                        break;                                                                     \
                    at += (unsigned long)who[i] + 1;                                               \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        /* fetch_add_nbi: the same chain property, checked on each PE's own values (increasing).   \
         */                                                                                        \
        ctr[1] = 0;                                                                                \
        shmem_barrier_all();                                                                       \
        for (int k = 0; k < K; k++) AMO(c, N, fetch_add_nbi, &mine[k], &ctr[1], (T)2, 0);          \
        done(c);                                                                                   \
        for (int k = 0; k < K; k++)                                                                \
            CHECK((double)mine[k] >= 0 && (double)mine[k] < 2.0 * nk && (long)mine[k] % 2 == 0,    \
                  "%s %s fetch_add_nbi fetched %g", #N, cn, (double)mine[k]);                      \
        if (t_me == 0)                                                                             \
            CHECK(ctr[1] == (T)(2 * nk), "%s %s fetch_add_nbi: counter %g", #N, cn,                \
                  (double)ctr[1]);                                                                 \
        shmem_barrier_all();                                                                       \
        shmem_free(logv);                                                                          \
        shmem_free(ctr);                                                                           \
    }
SHMEM_AMO_STANDARD_TYPES(DEFINE_STANDARD)

/* Extended: fetch, set, swap (+ fetch_nbi, swap_nbi) for the standard types and float/double. */
#define DEFINE_EXTENDED(T, N)                                                                      \
    static void extended_##N(int c) {                                                              \
        const char *cn = c ? "ctx" : "plain";                                                      \
        const int nk = t_np * K;                                                                   \
        T *ctr = shmem_malloc(3 * sizeof(T));                                                      \
        T *slots = shmem_malloc((size_t)t_np * sizeof(T));                                         \
        T *logv = shmem_malloc((size_t)nk * sizeof(T));                                            \
        REQUIRE(ctr &&slots &&logv, "allocation");                                                 \
        /* set: each PE its slot on PE 0; fetch (and fetch_nbi) them all back. */                  \
        for (int i = 0; i < t_np; i++) slots[i] = (T)0;                                            \
        shmem_barrier_all();                                                                       \
        AMO(c, N, set, &slots[t_me], (T)(t_me + 7), 0);                                            \
        done(c);                                                                                   \
        for (int pe = 0; pe < t_np; pe++) {                                                        \
            T v = AMO(c, N, fetch, &slots[pe], 0), w = 0;                                          \
            AMO(c, N, fetch_nbi, &w, &slots[pe], 0);                                               \
            if (c) shmem_ctx_quiet(made);                                                          \
            shmem_quiet();                                                                         \
            CHECK(v == (T)(pe + 7) && w == v, "%s %s set/fetch slot %d: %g / fetch_nbi %g", #N,    \
                  cn, pe, (double)v, (double)w);                                                   \
        }                                                                                          \
        /* swap / swap_nbi: every value swapped in comes out exactly once (or is left in). */      \
        for (int nbi = 0; nbi < 2; nbi++) {                                                        \
            ctr[0] = ctr[2] = GUARD(T);                                                            \
            ctr[1] = (T)0;                                                                         \
            shmem_barrier_all();                                                                   \
            T mine[K];                                                                             \
            for (int k = 0; k < K; k++) {                                                          \
                T in = (T)(t_me * K + k + 1);                                                      \
                if (nbi) {                                                                         \
                    AMO(c, N, swap_nbi, &mine[k], &ctr[1], in, 0);                                 \
                    if (c) shmem_ctx_quiet(made); /* one at a time: the order is the point */      \
                    shmem_quiet();                                                                 \
                } else {                                                                           \
                    mine[k] = AMO(c, N, swap, &ctr[1], in, 0);                                     \
                }                                                                                  \
            }                                                                                      \
            shmem_##N##_put(&logv[t_me * K], mine, K, 0);                                          \
            done(c);                                                                               \
            if (t_me == 0) {                                                                       \
                char seen[8 * K + 1];                                                              \
                memset(seen, 0, sizeof seen);                                                      \
                CHECK(ctr[0] == GUARD(T) && ctr[2] == GUARD(T), "%s swap: guards changed", #N);    \
                for (int i = 0; i <= nk; i++) {                                                    \
                    long v = (long)(i == nk ? ctr[1] : logv[i]);                                   \
                    if (CHECK(v >= 0 && v <= nk && !seen[v],                                       \
                              "%s %s swap%s: value %ld out of "                                    \
                              "range or seen twice",                                               \
                              #N, cn, nbi ? "_nbi" : "", v))                                       \
                        seen[v] = 1;                                                               \
                }                                                                                  \
            }                                                                                      \
            shmem_barrier_all();                                                                   \
        }                                                                                          \
        shmem_free(logv);                                                                          \
        shmem_free(slots);                                                                         \
        shmem_free(ctr);                                                                           \
    }
SHMEM_AMO_EXTENDED_TYPES(DEFINE_EXTENDED)

/* Bitwise: PE p owns bit p and bit (width - 1 - p). */
#define DEFINE_BITWISE(T, N)                                                                       \
    static void bitwise_##N(int c) {                                                               \
        const char *cn = c ? "ctx" : "plain";                                                      \
        const int bits = (int)(8 * sizeof(T));                                                     \
        T *ctr = shmem_malloc(3 * sizeof(T));                                                      \
        REQUIRE(ctr, "allocation");                                                                \
        T all = 0;                                                                                 \
        for (int pe = 0; pe < t_np; pe++)                                                          \
            all = (T)(all | (T)((uint64_t)1 << pe) | (T)((uint64_t)1 << (bits - 1 - pe)));         \
        const T mask = (T)((T)((uint64_t)1 << t_me) | (T)((uint64_t)1 << (bits - 1 - t_me)));      \
        const T x0 = (T)0x3C3C3C3C3C3C3C3Cull;                                                     \
        const T init[3] = {(T) ~(T)0, (T)0, x0};                                                   \
        const char *opn[3] = {"and", "or", "xor"};                                                 \
        for (int op = 0; op < 3; op++)                                                             \
            for (int form = 0; form < 3; form++) { /* plain, fetching, fetching nbi */             \
                ctr[0] = ctr[2] = GUARD(T);                                                        \
                ctr[1] = init[op];                                                                 \
                shmem_barrier_all();                                                               \
                T got = 0;                                                                         \
                const T arg = op == 0 ? (T)~mask : mask;                                           \
                if (op == 0) {                                                                     \
                    if (form == 0) AMO(c, N, and, &ctr[1], arg, 0);                                \
                    if (form == 1) got = AMO(c, N, fetch_and, &ctr[1], arg, 0);                    \
                    if (form == 2) AMO(c, N, fetch_and_nbi, &got, &ctr[1], arg, 0);                \
                } else if (op == 1) {                                                              \
                    if (form == 0) AMO(c, N, or, &ctr[1], arg, 0);                                 \
                    if (form == 1) got = AMO(c, N, fetch_or, &ctr[1], arg, 0);                     \
                    if (form == 2) AMO(c, N, fetch_or_nbi, &got, &ctr[1], arg, 0);                 \
                } else {                                                                           \
                    if (form == 0) AMO(c, N, xor, &ctr[1], arg, 0);                                \
                    if (form == 1) got = AMO(c, N, fetch_xor, &ctr[1], arg, 0);                    \
                    if (form == 2) AMO(c, N, fetch_xor_nbi, &got, &ctr[1], arg, 0);                \
                }                                                                                  \
                done(c);                                                                           \
                if (form) /* my bits were untouched by the others: as initialised */               \
                    CHECK((T)(got & mask) == (T)(init[op] & mask),                                 \
                          "%s %s fetch_%s%s: fetched "                                             \
                          "%#llx, my bits should be as initialised",                               \
                          #N, cn, opn[op], form == 2 ? "_nbi" : "", (unsigned long long)got);      \
                if (t_me == 0) {                                                                   \
                    const T want = op == 0 ? (T)~all : op == 1 ? all : (T)(x0 ^ all);              \
                    CHECK(ctr[1] == want && ctr[0] == GUARD(T) && ctr[2] == GUARD(T),              \
                          "%s %s %s form %d: %#llx, expected %#llx (guards %#llx %#llx)", #N, cn,  \
                          opn[op], form, (unsigned long long)ctr[1], (unsigned long long)want,     \
                          (unsigned long long)ctr[0], (unsigned long long)ctr[2]);                 \
                }                                                                                  \
                shmem_barrier_all();                                                               \
            }                                                                                      \
        shmem_free(ctr);                                                                           \
    }
SHMEM_AMO_BITWISE_TYPES(DEFINE_BITWISE)

/* The 1.0-1.3 names. */
#define DEFINE_OLD(T, N)                                                                           \
    static void old_##N(void) {                                                                    \
        T *v = shmem_calloc(4, sizeof(T));                                                         \
        REQUIRE(v, "allocation");                                                                  \
        shmem_barrier_all();                                                                       \
        shmem_##N##_inc(&v[0], 0);                                                                 \
        shmem_##N##_add(&v[0], (T)2, 0);                                                           \
        T a = shmem_##N##_finc(&v[0], 0);                                                          \
        T b = shmem_##N##_fadd(&v[0], (T)3, 0);                                                    \
        CHECK(a >= 3 && b >= a + 1, #N " finc %lld fadd %lld", (long long)a, (long long)b);        \
        T w = shmem_##N##_cswap(&v[1], (T)0, (T)(t_me + 1), 0);                                    \
        shmem_##N##_set(&v[2], (T)42, test_right());                                               \
        shmem_barrier_all();                                                                       \
        if (t_me == 0) {                                                                           \
            CHECK(v[0] == (T)(7 * t_np), #N " old inc/add/finc/fadd: %lld, expected %d",           \
                  (long long)v[0], 7 * t_np);                                                      \
            CHECK(v[1] >= 1 && v[1] <= t_np, #N " old cswap: %lld", (long long)v[1]);              \
        }                                                                                          \
        CHECK(w == 0 || w == shmem_##N##_fetch(&v[1], 0), #N " cswap returned %lld",               \
              (long long)w);                                                                       \
        T s = shmem_##N##_swap(&v[2], (T)5, test_right());                                         \
        CHECK(s == (T)42, #N " old set/swap: %lld", (long long)s);                                 \
        shmem_barrier_all();                                                                       \
        shmem_free(v);                                                                             \
    }
DEFINE_OLD(int, int)
DEFINE_OLD(long, long)
DEFINE_OLD(long long, longlong)

#define DEFINE_OLD_EXT(T, N)                                                                       \
    static void old_ext_##N(void) {                                                                \
        T *v = shmem_calloc(2, sizeof(T));                                                         \
        REQUIRE(v, "allocation");                                                                  \
        shmem_barrier_all();                                                                       \
        shmem_##N##_set(&v[0], (T)(t_me + 1), test_right());                                       \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_##N##_fetch(&v[0], test_right()) == (T)(t_me + 1), #N " old set/fetch");       \
        shmem_barrier_all();                                                                       \
        T s = shmem_##N##_swap(&v[0], (T)9, t_me);                                                 \
        CHECK(s == (T)(test_left() + 1), #N " old swap returned %g", (double)s);                   \
        shmem_barrier_all();                                                                       \
        shmem_free(v);                                                                             \
    }
DEFINE_OLD_EXT(float, float)
DEFINE_OLD_EXT(double, double)

static void old_swap(void) {
    long *v = shmem_calloc(1, sizeof(long));
    REQUIRE(v, "allocation");
    shmem_barrier_all();
    long got = (shmem_swap)(v, t_me + 1, 0); /* the C function, not the generic macro */
    shmem_barrier_all();
    long seen = shmem_long_g(v, 0);
    CHECK(got == 0 || (got >= 1 && got <= t_np), "shmem_swap returned %ld", got);
    CHECK(seen >= 1 && seen <= t_np, "after shmem_swap: %ld", seen);
    shmem_barrier_all();
    shmem_free(v);
}

/* The deprecated generic names on every type of 1.3's tables: contended on PE 0, then checked
 * exactly (the arithmetic ones), and set/fetch/swap around the ring. */
#define DEFINE_OLD_GENERIC(T, N)                                                                   \
    static void old_generic_##N(void) {                                                            \
        T *v = shmem_calloc(3, sizeof(T));                                                         \
        REQUIRE(v, "allocation");                                                                  \
        shmem_barrier_all();                                                                       \
        shmem_inc(&v[0], 0);                                                                       \
        shmem_add(&v[0], (T)2, 0);                                                                 \
        T a = shmem_finc(&v[0], 0);                                                                \
        T b = shmem_fadd(&v[0], (T)3, 0);                                                          \
        CHECK(a >= 3 && b >= a + 1, #N " generic finc %lld fadd %lld", (long long)a,               \
              (long long)b);                                                                       \
        T w = shmem_cswap(&v[1], (T)0, (T)(t_me + 1), 0);                                          \
        shmem_barrier_all();                                                                       \
        if (t_me == 0) {                                                                           \
            CHECK(v[0] == (T)(7 * t_np), #N " generic inc/add/finc/fadd: %lld, expected %d",       \
                  (long long)v[0], 7 * t_np);                                                      \
            CHECK(v[1] >= 1 && v[1] <= t_np, #N " generic cswap: %lld", (long long)v[1]);          \
        }                                                                                          \
        CHECK(w == 0 || w == shmem_fetch(&v[1], 0), #N " generic cswap returned %lld",             \
              (long long)w);                                                                       \
        shmem_barrier_all();                                                                       \
        ext_then_free_##N(v);                                                                      \
    }
#define DEFINE_OLD_GENERIC_EXT(T, N)                                                               \
    static void ext_then_free_##N(T *v) {                                                          \
        shmem_set(&v[2], (T)(t_me + 1), test_right());                                             \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_fetch(&v[2], test_right()) == (T)(t_me + 1), #N " generic set/fetch");         \
        CHECK(v[2] == (T)(test_left() + 1), #N " generic set: %g", (double)v[2]);                  \
        shmem_barrier_all();                                                                       \
        T s = shmem_swap(&v[2], (T)9, t_me);                                                       \
        CHECK(s == (T)(test_left() + 1), #N " generic swap returned %g", (double)s);               \
        CHECK(v[2] == (T)9, #N " generic swap left %g", (double)v[2]);                             \
        shmem_barrier_all();                                                                       \
        shmem_free(v);                                                                             \
    }
DEFINE_OLD_GENERIC_EXT(int, int)
DEFINE_OLD_GENERIC_EXT(long, long)
DEFINE_OLD_GENERIC_EXT(long long, longlong)
DEFINE_OLD_GENERIC_EXT(float, float)
DEFINE_OLD_GENERIC_EXT(double, double)
DEFINE_OLD_GENERIC(int, int)
DEFINE_OLD_GENERIC(long, long)
DEFINE_OLD_GENERIC(long long, longlong)

/* float and double have only the extended ones. */
static void old_generic_floats(void) {
    float *f = shmem_calloc(3, sizeof(float));
    double *d = shmem_calloc(3, sizeof(double));
    REQUIRE(f && d, "allocation");
    shmem_barrier_all();
    ext_then_free_float(f);
    ext_then_free_double(d);
}

int main(void) {
    test_init();
    REQUIRE(shmem_ctx_create(0, &made) == 0, "shmem_ctx_create");
    REQUIRE(t_np <= 8, "at most 8 PEs (the logs are sized for that)");
    for (int c = 0; c < 2; c++) {
#define CALL_STANDARD(T, N)                                                                        \
    if (test_keep(#N) && (c == 0 || !test_light() || !strcmp(#N, "int"))) standard_##N(c);
#define CALL_EXTENDED(T, N)                                                                        \
    if (test_keep(#N) && (c == 0 || !test_light() || !strcmp(#N, "int"))) extended_##N(c);
#define CALL_BITWISE(T, N)                                                                         \
    if (test_keep(#N) && (c == 0 || !test_light() || !strcmp(#N, "uint32"))) bitwise_##N(c);
        SHMEM_AMO_STANDARD_TYPES(CALL_STANDARD)
        SHMEM_AMO_EXTENDED_TYPES(CALL_EXTENDED)
        SHMEM_AMO_BITWISE_TYPES(CALL_BITWISE)
    }
    old_int();
    old_long();
    old_longlong();
    old_ext_float();
    old_ext_double();
    old_swap();
    old_generic_int();
    old_generic_long();
    old_generic_longlong();
    old_generic_floats();
    shmem_ctx_destroy(made);
    return test_end("test_shmem_atomics");
}
