// np: 1 2 3 4
/* Collectives on teams: barrier_all, sync_all, team_sync (data put before them is there after);
 * broadcast (every root), collect (contributions of 0, 1 and 2 elements), fcollect, alltoall and
 * alltoalls (strides 2 and 3) for several types and the mem forms; every reduction op on a
 * representative set of types (max/min: char, short, int, long, float, double, long double,
 * uint64; sum/prod: short, int, long, float, double, uint64, complexd, complexf; and/or/xor:
 * uchar, ushort, uint, ulong, uint64, int8, int16, size), a long one and an in-place one. All on
 * SHMEM_TEAM_WORLD and on two split teams (PEs 1..n-1, even PEs). Results are checked element by
 * element against a reference computed locally; floating inputs are small integers, so sums and
 * products are exact. */
#include <complex.h>

#include "shmem_testlib.h"

#define NE     5
#define BUFSZ  (64 * 1024)
#define NTEAMS 3

static void *sbuf, *dbuf; /* symmetric scratch: BUFSZ each */
static shmem_team_t teams[NTEAMS];
static const char *team_name[NTEAMS] = {"WORLD", "PEs 1..n-1", "even PEs"};
static int cur; /* index of the team being tested, for messages */

/* The mem forms, spelled like the typed ones so one macro makes both. */
#define shmem_mem_broadcast shmem_broadcastmem
#define shmem_mem_collect   shmem_collectmem
#define shmem_mem_fcollect  shmem_fcollectmem
#define shmem_mem_alltoall  shmem_alltoallmem
#define shmem_mem_alltoalls shmem_alltoallsmem

#define DEFINE_COLL(T, N)                                                                          \
    static void coll_##N(shmem_team_t team) {                                                      \
        if (team == SHMEM_TEAM_INVALID) return;                                                    \
        const int tm = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);                        \
        T *src = sbuf, *dst = dbuf;                                                                \
        const size_t cap = BUFSZ / sizeof(T);                                                      \
        int rc;                                                                                    \
        /* broadcast from every root */                                                            \
        for (int root = 0; root < tn; root++) {                                                    \
            for (size_t i = 0; i < cap; i++) dst[i] = (T)0, src[i] = VAL(T, root, tm, i);          \
            shmem_team_sync(team);                                                                 \
            rc = shmem_##N##_broadcast(team, dst, src, NE, root);                                  \
            CHECK(rc == 0, "%s broadcast on %s returned %d", #N, team_name[cur], rc);              \
            /* 1.5: a team broadcast updates dest on every PE, the root's too */                   \
            for (int i = 0; i < NE + 2; i++) {                                                     \
                T want = i < NE ? VAL(T, root, root, i) : (T)0;                                    \
                CHECK(dst[i] == want, "%s broadcast (root %d) on %s: [%d] = %g, expected %g", #N,  \
                      root, team_name[cur], i, (double)dst[i], (double)want);                      \
            }                                                                                      \
            CHECK(shmem_sync(team) == 0, "%s: C11 shmem_sync(team) failed", #N);                   \
        }                                                                                          \
        /* collect: team PE p gives p % 3 elements */                                              \
        for (size_t i = 0; i < cap; i++) dst[i] = (T)0, src[i] = VAL(T, 7, tm, i);                 \
        shmem_team_sync(team);                                                                     \
        rc = shmem_##N##_collect(team, dst, src, (size_t)(tm % 3));                                \
        CHECK(rc == 0, "%s collect returned %d", #N, rc);                                          \
        size_t at = 0;                                                                             \
        for (int p = 0; p < tn; p++)                                                               \
            for (int i = 0; i < p % 3; i++, at++)                                                  \
                CHECK(dst[at] == VAL(T, 7, p, i),                                                  \
                      "%s collect on %s: [%zu] = %g, expected %g "                                 \
                      "(PE %d's %d)",                                                              \
                      #N, team_name[cur], at, (double)dst[at], (double)VAL(T, 7, p, i), p, i);     \
        CHECK(dst[at] == (T)0, "%s collect on %s wrote past the end", #N, team_name[cur]);         \
        shmem_team_sync(team);                                                                     \
        /* fcollect */                                                                             \
        for (size_t i = 0; i < cap; i++) dst[i] = (T)0, src[i] = VAL(T, 8, tm, i);                 \
        shmem_team_sync(team);                                                                     \
        rc = shmem_##N##_fcollect(team, dst, src, NE);                                             \
        CHECK(rc == 0, "%s fcollect returned %d", #N, rc);                                         \
        for (int p = 0; p < tn; p++)                                                               \
            for (int i = 0; i < NE; i++)                                                           \
                CHECK(dst[p * NE + i] == VAL(T, 8, p, i), "%s fcollect on %s: [%d] = %g", #N,      \
                      team_name[cur], p * NE + i, (double)dst[p * NE + i]);                        \
        CHECK(dst[tn * NE] == (T)0, "%s fcollect on %s wrote past the end", #N, team_name[cur]);   \
        shmem_team_sync(team);                                                                     \
        /* alltoall, then alltoalls with dst stride 2 and sst stride 3 */                          \
        for (int s = 0; s < 2; s++) {                                                              \
            const ptrdiff_t ds = s ? 2 : 1, ss = s ? 3 : 1;                                        \
            for (size_t i = 0; i < cap; i++) dst[i] = (T)0, src[i] = VAL(T, 9 + s, tm, i);         \
            shmem_team_sync(team);                                                                 \
            rc = s ? shmem_##N##_alltoalls(team, dst, src, ds, ss, NE)                             \
                   : shmem_##N##_alltoall(team, dst, src, NE);                                     \
            CHECK(rc == 0, "%s alltoall%s returned %d", #N, s ? "s" : "", rc);                     \
            for (size_t i = 0; i < (size_t)(tn * NE) * (size_t)ds + 2; i++) {                      \
                T want = (T)0;                                                                     \
                if (i % (size_t)ds == 0 && i / (size_t)ds < (size_t)(tn * NE)) {                   \
                    size_t e = i / (size_t)ds, p = e / NE, k = e % NE;                             \
                    want = VAL(T, 9 + s, p, (size_t)ss * ((size_t)tm * NE + k));                   \
                }                                                                                  \
                CHECK(dst[i] == want, "%s alltoall%s on %s: [%zu] = %g, expected %g", #N,          \
                      s ? "s" : "", team_name[cur], i, (double)dst[i], (double)want);              \
            }                                                                                      \
            shmem_team_sync(team);                                                                 \
        }                                                                                          \
    }
#define COLL_TYPES(X)                                                                              \
    X(int, int)                                                                                    \
    X(long double, longdouble)                                                                     \
    X(char, char)                                                                                  \
    X(double, double) X(uint64_t, uint64) X(float, float) X(short, short) X(unsigned char, mem)
COLL_TYPES(DEFINE_COLL)

/* ---- Reductions ---- */
#define IN_sum(T, p, i)  VAL(T, 3, p, i)
#define IN_prod(T, p, i) ((T)(1 + ((p) + (i)) % 3))
#define IN_max(T, p, i)  VAL(T, 4, p, i)
#define IN_min(T, p, i)  VAL(T, 5, p, i)
#define IN_and(T, p, i)  ((T)(~((unsigned long long)1 << (((p) + (i)) % (8 * sizeof(T))))))
#define IN_or(T, p, i)   ((T)((unsigned long long)1 << (((p)*3 + (i)) % (8 * sizeof(T)))))
#define IN_xor(T, p, i)  ((T)(((unsigned long long)(p)*0x9E3779B97F4A7C15ull + (i)) >> 7))
#define OP_sum(a, b)     ((a) + (b))
#define OP_prod(a, b)    ((a) * (b))
#define OP_max(a, b)     ((a) > (b) ? (a) : (b))
#define OP_min(a, b)     ((a) < (b) ? (a) : (b))
#define OP_and(a, b)     ((a) & (b))
#define OP_or(a, b)      ((a) | (b))
#define OP_xor(a, b)     ((a) ^ (b))
/* complex inputs: small Gaussian integers */
#define CIN_sum(T, p, i)  ((T)((double)VAL(int, 3, p, i) + (double)((p) % 3) * I))
#define CIN_prod(T, p, i) ((T)((double)(1 + ((p) + (i)) % 2) + (double)(((p) + 1) % 2) * I))

#define DEFINE_RED_(T, N, OP, IN)                                                                  \
    static void red_##N##_##OP(shmem_team_t team, size_t nr, int in_place) {                       \
        if (team == SHMEM_TEAM_INVALID) return;                                                    \
        const int tm = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);                        \
        T *src = sbuf, *dst = in_place ? (T *)sbuf : (T *)dbuf;                                    \
        for (size_t i = 0; i < nr + 2; i++) {                                                      \
            src[i] = IN(T, tm, (int)i);                                                            \
            if (!in_place) dst[i] = (T)0;                                                          \
        }                                                                                          \
        shmem_team_sync(team);                                                                     \
        int rc = shmem_##N##_##OP##_reduce(team, dst, src, nr);                                    \
        CHECK(rc == 0, "%s_%s_reduce on %s returned %d", #N, #OP, team_name[cur], rc);             \
        int bad = 0;                                                                               \
        for (size_t i = 0; i < nr; i++) {                                                          \
            T want = IN(T, 0, (int)i);                                                             \
            for (int p = 1; p < tn; p++) want = OP_##OP(want, IN(T, p, (int)i));                   \
            if (dst[i] != want && bad++ < 3)                                                       \
                CHECK(0, "%s_%s_reduce on %s (%zu elements%s): [%zu] = %g, expected %g", #N, #OP,  \
                      team_name[cur], nr, in_place ? ", in place" : "", i, (double)dst[i],         \
                      (double)want);                                                               \
        }                                                                                          \
        if (!in_place)                                                                             \
            CHECK(dst[nr] == (T)0, "%s_%s_reduce on %s wrote past nreduce", #N, #OP,               \
                  team_name[cur]);                                                                 \
        shmem_team_sync(team);                                                                     \
    }
#define DEFINE_RED(T, N, OP) DEFINE_RED_(T, N, OP, IN_##OP)
#define MINMAX_TYPES(X)                                                                            \
    X(char, char)                                                                                  \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long) X(float, float) X(double, double) X(long double, longdouble) X(uint64_t, uint64)
#define ARITH_TYPES(X)                                                                             \
    X(short, short) X(int, int) X(long, long) X(float, float) X(double, double) X(uint64_t, uint64)
#define BITWISE_TYPES(X)                                                                           \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong) X(uint64_t, uint64) X(int8_t, int8) X(int16_t, int16) X(size_t, size)
#define D_MINMAX(T, N)  DEFINE_RED(T, N, max) DEFINE_RED(T, N, min)
#define D_ARITH(T, N)   DEFINE_RED(T, N, sum) DEFINE_RED(T, N, prod)
#define D_BITWISE(T, N) DEFINE_RED(T, N, and) DEFINE_RED(T, N, or) DEFINE_RED(T, N, xor)
MINMAX_TYPES(D_MINMAX)
ARITH_TYPES(D_ARITH)
BITWISE_TYPES(D_BITWISE)
DEFINE_RED_(shmem_complexd_t, complexd, sum, CIN_sum)
DEFINE_RED_(shmem_complexd_t, complexd, prod, CIN_prod)
DEFINE_RED_(shmem_complexf_t, complexf, sum, CIN_sum)
DEFINE_RED_(shmem_complexf_t, complexf, prod, CIN_prod)

static void reductions(shmem_team_t team) {
#define C_MINMAX(T, N)                                                                             \
    if (test_keep(#N)) {                                                                           \
        red_##N##_max(team, NE, 0);                                                                \
        red_##N##_min(team, NE, 0);                                                                \
    }
#define C_ARITH(T, N)                                                                              \
    if (test_keep(#N)) {                                                                           \
        red_##N##_sum(team, NE, 0);                                                                \
        red_##N##_prod(team, NE, 0);                                                               \
    }
#define C_BITWISE(T, N)                                                                            \
    if (test_keep(#N)) {                                                                           \
        red_##N##_and(team, NE, 0);                                                                \
        red_##N##_or(team, NE, 0);                                                                 \
        red_##N##_xor(team, NE, 0);                                                                \
    }
    MINMAX_TYPES(C_MINMAX)
    ARITH_TYPES(C_ARITH)
    BITWISE_TYPES(C_BITWISE)
    red_complexd_sum(team, NE, 0);
    red_complexd_prod(team, NE, 0);
    if (test_keep("complexf")) {
        red_complexf_sum(team, NE, 0);
        red_complexf_prod(team, NE, 0);
    }
    red_int_sum(team, 3000, 0);    /* long */
    red_double_max(team, 1000, 0); /* long */
    red_int_sum(team, NE, 1);      /* in place */
    red_long_max(team, 1, 0);      /* one element */
}

/* Data put before a barrier/sync is there after it. */
static void barriers(void) {
    int *slot = shmem_calloc(4, sizeof(int));
    REQUIRE(slot, "allocation");
    for (int round = 1; round <= 3; round++) {
        shmem_int_p(&slot[0], round * 100 + t_me, test_right());
        shmem_barrier_all();
        CHECK(slot[0] == round * 100 + test_left(), "barrier_all round %d: %d", round, slot[0]);
        shmem_barrier_all();
        shmem_int_p(&slot[1], round * 100 + t_me, test_right());
        shmem_quiet();
        shmem_sync_all();
        CHECK(slot[1] == round * 100 + test_left(), "quiet+sync_all round %d: %d", round, slot[1]);
        shmem_sync_all();
        shmem_int_p(&slot[2], round * 100 + t_me, test_right());
        shmem_quiet();
        CHECK(shmem_team_sync(SHMEM_TEAM_WORLD) == 0, "team_sync(WORLD)");
        CHECK(slot[2] == round * 100 + test_left(), "quiet+team_sync round %d: %d", round, slot[2]);
        shmem_team_sync(SHMEM_TEAM_WORLD);
    }
    /* team_sync of a sub-team: only its members; the others go on. */
    shmem_team_t even = teams[2];
    if (even != SHMEM_TEAM_INVALID) {
        int tn = shmem_team_n_pes(even), tm = shmem_team_my_pe(even);
        int right = shmem_team_translate_pe(even, (tm + 1) % tn, SHMEM_TEAM_WORLD);
        shmem_int_p(&slot[3], 500 + t_me, right);
        shmem_quiet();
        shmem_team_sync(even);
        int left = shmem_team_translate_pe(even, (tm + tn - 1) % tn, SHMEM_TEAM_WORLD);
        CHECK(slot[3] == 500 + left, "team_sync(even): %d, expected %d", slot[3], 500 + left);
    }
    shmem_barrier_all();
    shmem_free(slot);
}

int main(void) {
    test_init();
    sbuf = shmem_malloc(BUFSZ);
    dbuf = shmem_malloc(BUFSZ);
    REQUIRE(sbuf && dbuf, "allocation");
    teams[0] = SHMEM_TEAM_WORLD;
    teams[1] = teams[2] = SHMEM_TEAM_INVALID;
    if (t_np > 1)
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, t_np - 1, NULL, 0, &teams[1]) == 0,
              "split 1..n-1");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (t_np + 1) / 2, NULL, 0, &teams[2]) == 0,
          "split even");
    barriers();
    for (cur = 0; cur < NTEAMS; cur++) {
#define CALL_COLL(T, N)                                                                            \
    if (test_keep(#N) &&                                                                           \
        (!test_light() || !strcmp(#N, "int") || !strcmp(#N, "mem") || !strcmp(#N, "longdouble")))  \
        coll_##N(teams[cur]);
        COLL_TYPES(CALL_COLL)
        reductions(teams[cur]);
        shmem_barrier_all();
    }
    for (int t = 1; t < NTEAMS; t++)
        if (teams[t] != SHMEM_TEAM_INVALID) shmem_team_destroy(teams[t]);
    shmem_free(dbuf);
    shmem_free(sbuf);
    return test_end("test_shmem_coll");
}
