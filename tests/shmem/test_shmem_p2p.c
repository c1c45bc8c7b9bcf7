// np: 1 2 3 4
/* Point-to-point synchronisation, for every type of SHMEM_P2P_TYPES and every comparison: the
 * left neighbour changes my variables (shmem_TYPE_p) after a barrier, and I wait for them with
 * wait_until, wait_until_all/any/some and their _vector forms, with status arrays (status[i] != 0
 * excludes element i: an excluded element is never changed, so a wait that looked at it would
 * hang, or an index of it would be returned). Before the change, test/test_all/any/some(+vector)
 * must say "not yet" (0, 0, SIZE_MAX, 0); after, they must see it. All-excluded and NULL status
 * arrays; a series of _any calls returns every satisfied element (fairness, 1.5); and the
 * deprecated shmem_wait / shmem_TYPE_wait / shmem_wait_until. */
#include "shmem_testlib.h"

#define NV 6

/* For each comparison: the value before, the value the left neighbour writes, the comparison
 * value (false before, true after). */
static const struct {
    int cmp;
    const char *name;
    int before, after, value;
} cmps[] = {
    {SHMEM_CMP_EQ, "EQ", 0, 5, 5}, {SHMEM_CMP_NE, "NE", 0, 5, 0},  {SHMEM_CMP_GT, "GT", 0, 5, 4},
    {SHMEM_CMP_GE, "GE", 0, 5, 5}, {SHMEM_CMP_LT, "LT", 10, 5, 6}, {SHMEM_CMP_LE, "LE", 10, 5, 5},
};
#define NCMP 6

/* Kinds of wait, each with its own pattern of which elements change and which are excluded. */
enum { W_ONE, W_ALL, W_ANY, W_SOME, W_ALL_V, W_ANY_V, W_SOME_V, W_N };
static const char *wname[W_N] = {"wait_until",
                                 "wait_until_all",
                                 "wait_until_any",
                                 "wait_until_some",
                                 "wait_until_all_vector",
                                 "wait_until_any_vector",
                                 "wait_until_some_vector"};
/* Elements the left neighbour changes (bit i) and elements excluded by status (bit i). */
static const unsigned changed[W_N] = {0x01, 0x3B, 0x08, 0x11, 0x3B, 0x20, 0x06};
static const unsigned excluded[W_N] = {0x00, 0x04, 0x02, 0x20, 0x04, 0x01, 0x30};

#define DEFINE_P2P(T, N)                                                                           \
    static void p2p_##N(void) {                                                                    \
        T *iva = shmem_malloc(W_N * NV * sizeof(T)); /* NV elements for each kind of wait */       \
        REQUIRE(iva, "allocation");                                                                \
        for (int c = 0; c < NCMP; c++)                                                             \
            for (int ph = 0; ph < 3; ph++) {      /* 0: reset, test; 1: change; 2: wait, test */   \
                if (ph == 1) shmem_barrier_all(); /* everyone has reset and tested */              \
                for (int w = 0; w < W_N; w++) {                                                    \
                    T *iv = &iva[w * NV];                                                          \
                    const int cmp = cmps[c].cmp;                                                   \
                    const T before = (T)cmps[c].before, after = (T)cmps[c].after;                  \
                    T value = (T)cmps[c].value, values[NV];                                        \
                    int status[NV];                                                                \
                    size_t idx[NV];                                                                \
                    /* the vector forms: a different comparison value per element, same meaning */ \
                    for (int i = 0; i < NV; i++) {                                                 \
                        if (ph == 0) iv[i] = before;                                               \
                        status[i] = (excluded[w] >> i) & 1 ? 1 + i : 0;                            \
                        values[i] = value;                                                         \
                    }                                                                              \
                    for (int i = 0; i < NV; i++) /* other values with the same truth */            \
                        values[i] = cmp == SHMEM_CMP_GT   ? (T)(i % 5)                             \
                                    : cmp == SHMEM_CMP_GE ? (T)(1 + i % 5)                         \
                                    : cmp == SHMEM_CMP_LT ? (T)(6 + i % 5)                         \
                                    : cmp == SHMEM_CMP_LE ? (T)(5 + i % 5)                         \
                                                          : value;                                 \
                    if (ph == 0) { /* Not yet: every test form says so. */                         \
                        CHECK(shmem_##N##_test(&iv[0], cmp, value) == 0,                           \
                              "%s %s: test true before", #N, cmps[c].name);                        \
                        CHECK(shmem_##N##_test_all(iv, NV, status, cmp, value) == 0,               \
                              "%s %s: test_all true before", #N, cmps[c].name);                    \
                        CHECK(shmem_##N##_test_any(iv, NV, status, cmp, value) == SIZE_MAX,        \
                              "%s %s: test_any found something before", #N, cmps[c].name);         \
                        CHECK(shmem_##N##_test_some(iv, NV, idx, status, cmp, value) == 0,         \
                              "%s %s: test_some found something before", #N, cmps[c].name);        \
                        CHECK(shmem_##N##_test_all_vector(iv, NV, status, cmp, values) == 0,       \
                              "%s %s: test_all_vector true before", #N, cmps[c].name);             \
                        CHECK(shmem_##N##_test_any_vector(iv, NV, status, cmp, values) ==          \
                                  SIZE_MAX,                                                        \
                              "%s %s: test_any_vector found something before", #N, cmps[c].name);  \
                        CHECK(shmem_##N##_test_some_vector(iv, NV, idx, status, cmp, values) == 0, \
                              "%s %s: test_some_vector found something before", #N, cmps[c].name); \
                        continue;                                                                  \
                    }                                                                              \
                    if (ph == 1) { /* The left neighbour changes my elements of changed[w]. */     \
                        for (int i = 0; i < NV; i++)                                               \
                            if ((changed[w] >> i) & 1) shmem_##N##_p(&iv[i], after, test_right()); \
                        continue;                                                                  \
                    }                                                                              \
                    /* ph 2: wait, then test. (The next reset is safe without a barrier: every     \
                     * change the left neighbour makes to my variables has been seen by a wait.)   \
                     */                                                                            \
                    size_t r = 0, found = 0;                                                       \
                    unsigned seen = 0;                                                             \
                    switch (w) {                                                                   \
                    case W_ONE:                                                                    \
                        shmem_##N##_wait_until(&iv[0], cmp, value);                                \
                        seen = 1;                                                                  \
                        break;                                                                     \
                    case W_ALL:                                                                    \
                        shmem_##N##_wait_until_all(iv, NV, status, cmp, value);                    \
                        break;                                                                     \
                    case W_ALL_V:                                                                  \
                        shmem_##N##_wait_until_all_vector(iv, NV, status, cmp, values);            \
                        break;                                                                     \
                    case W_ANY:                                                                    \
                    case W_ANY_V:                                                                  \
                        r = w == W_ANY                                                             \
                                ? shmem_##N##_wait_until_any(iv, NV, status, cmp, value)           \
                                : shmem_##N##_wait_until_any_vector(iv, NV, status, cmp, values);  \
                        if (CHECK(r < NV && ((changed[w] >> r) & 1), "%s %s %s returned %zu", #N,  \
                                  cmps[c].name, wname[w], r))                                      \
                            seen |= 1u << r;                                                       \
                        break;                                                                     \
                    case W_SOME:                                                                   \
                    case W_SOME_V:                                                                 \
                        /* until both changed elements are reported (exclude those already seen)   \
                         */                                                                        \
                        while ((seen & changed[w]) != changed[w]) {                                \
                            int st[NV];                                                            \
                            for (int i = 0; i < NV; i++) st[i] = status[i] || ((seen >> i) & 1);   \
                            r = w == W_SOME                                                        \
                                    ? shmem_##N##_wait_until_some(iv, NV, idx, st, cmp, value)     \
                                    : shmem_##N##_wait_until_some_vector(iv, NV, idx, st, cmp,     \
                                                                         values);                  \
                            if (!CHECK(r >= 1 && r <= NV, "%s %s %s returned %zu", #N,             \
                                       cmps[c].name, wname[w], r))                                 \
                                break;                                                             \
                            for (size_t k = 0; k < r; k++) {                                       \
                                if (!CHECK(idx[k] < NV && ((changed[w] >> idx[k]) & 1) &&          \
                                               !((seen >> idx[k]) & 1),                            \
                                           "%s %s %s: index %zu (excluded, unchanged or seen)",    \
                                           #N, cmps[c].name, wname[w], idx[k]))                    \
                                    break;                                                         \
                                seen |= 1u << idx[k];                                              \
                                found++;                                                           \
                            }                                                                      \
                            if (found > NV) break;                                                 \
                        }                                                                          \
                        break;                                                                     \
                    }                                                                              \
                    /* What the wait promised is true now. */                                      \
                    const unsigned must = w == W_ALL || w == W_ALL_V ? changed[w] : seen;          \
                    for (int i = 0; i < NV; i++)                                                   \
                        if ((must >> i) & 1)                                                       \
                            CHECK(iv[i] == after, "%s %s %s: element %d is %lld after the wait",   \
                                  #N, cmps[c].name, wname[w], i, (long long)iv[i]);                \
                    CHECK(shmem_##N##_test(&iv[(w == W_ONE) ? 0 : __builtin_ctz(changed[w])], cmp, \
                                           value) == 1,                                            \
                          "%s %s: test false after", #N, cmps[c].name);                            \
                    CHECK(shmem_##N##_test_all(iv, NV, status, cmp, value) ==                      \
                              ((changed[w] | excluded[w]) == 0x3F),                                \
                          "%s %s %s: test_all", #N, cmps[c].name, wname[w]);                       \
                    size_t a = shmem_##N##_test_any(iv, NV, status, cmp, value);                   \
                    CHECK(a < NV && ((changed[w] >> a) & 1) && !((excluded[w] >> a) & 1),          \
                          "%s %s %s: test_any after gave %zu", #N, cmps[c].name, wname[w], a);     \
                    size_t s = shmem_##N##_test_some(iv, NV, idx, status, cmp, value);             \
                    CHECK(s == (size_t)__builtin_popcount(changed[w]),                             \
                          "%s %s %s: test_some gave %zu", #N, cmps[c].name, wname[w], s);          \
                    a = shmem_##N##_test_any_vector(iv, NV, status, cmp, values);                  \
                    CHECK(a < NV && ((changed[w] >> a) & 1),                                       \
                          "%s %s: test_any_vector after gave %zu", #N, cmps[c].name, a);           \
                    s = shmem_##N##_test_some_vector(iv, NV, idx, status, cmp, values);            \
                    CHECK(s == (size_t)__builtin_popcount(changed[w]),                             \
                          "%s %s: test_some_vector gave %zu", #N, cmps[c].name, s);                \
                    CHECK(shmem_##N##_test_all_vector(iv, NV, status, cmp, values) ==              \
                              ((changed[w] | excluded[w]) == 0x3F),                                \
                          "%s %s %s: test_all_vector", #N, cmps[c].name, wname[w]);                \
                }                                                                                  \
            }                                                                                      \
        shmem_barrier_all();                                                                       \
        shmem_free(iva);                                                                           \
    }
SHMEM_P2P_TYPES(DEFINE_P2P)

/* Every element excluded, NULL status, nelems 0. */
static void edge_cases(void) {
    long *iv = shmem_calloc(4, sizeof(long));
    REQUIRE(iv, "allocation");
    const int all[4] = {1, 1, 1, 1};
    size_t idx[4];
    long vals[4] = {0, 0, 0, 0};
    shmem_long_wait_until_all(iv, 4, all, SHMEM_CMP_EQ, 99); /* returns at once */
    CHECK(shmem_long_wait_until_any(iv, 4, all, SHMEM_CMP_EQ, 99) == SIZE_MAX,
          "wait_until_any, all excluded: not SIZE_MAX");
    CHECK(shmem_long_wait_until_some(iv, 4, idx, all, SHMEM_CMP_EQ, 99) == 0,
          "wait_until_some, all excluded: not 0");
    CHECK(shmem_long_test_any(iv, 4, all, SHMEM_CMP_EQ, 0) == SIZE_MAX,
          "test_any, all excluded: not SIZE_MAX");
    CHECK(shmem_long_test_all(iv, 4, all, SHMEM_CMP_EQ, 99) == 1, "test_all, all excluded: not 1");
    CHECK(shmem_long_test_some(iv, 4, idx, all, SHMEM_CMP_EQ, 0) == 0,
          "test_some, all excluded: not 0");
    shmem_long_wait_until_all_vector(iv, 4, all, SHMEM_CMP_EQ, vals);
    CHECK(shmem_long_wait_until_any_vector(iv, 4, all, SHMEM_CMP_EQ, vals) == SIZE_MAX,
          "wait_until_any_vector, all excluded");
    /* NULL status: every element included. */
    CHECK(shmem_long_test_all(iv, 4, NULL, SHMEM_CMP_EQ, 0) == 1, "test_all, NULL status");
    CHECK(shmem_long_test_some(iv, 4, idx, NULL, SHMEM_CMP_EQ, 0) == 4, "test_some, NULL status");
    shmem_long_wait_until_all(iv, 4, NULL, SHMEM_CMP_GE, 0);
    CHECK(shmem_long_wait_until_some(iv, 4, idx, NULL, SHMEM_CMP_EQ, 0) == 4,
          "wait_until_some, NULL status");
    /* Every element satisfies the condition: a series of test_any / wait_until_any calls (and
     * their _vector forms) must return each of them, not the first again and again (1.5: "a
     * series of calls to shmem_test_any must eventually return i"); 4 elements, 12 calls each.
     * With a status array, only the included ones, and never an excluded one. */
    for (int form = 0; form < 4; form++) {
        int seen[4] = {0, 0, 0, 0}, bad = 0;
        for (int call = 0; call < 12; call++) {
            size_t i = form == 0   ? shmem_long_test_any(iv, 4, NULL, SHMEM_CMP_EQ, 0)
                       : form == 1 ? shmem_long_wait_until_any(iv, 4, NULL, SHMEM_CMP_EQ, 0)
                       : form == 2
                           ? shmem_long_test_any_vector(iv, 4, NULL, SHMEM_CMP_EQ, vals)
                           : shmem_long_wait_until_any_vector(iv, 4, NULL, SHMEM_CMP_EQ, vals);
            if (i < 4)
                seen[i] = 1;
            else
                bad++;
        }
        CHECK(!bad && seen[0] && seen[1] && seen[2] && seen[3],
              "any form %d: a series of calls returned indices %d%d%d%d (%d bad)", form, seen[0],
              seen[1], seen[2], seen[3], bad);
    }
    const int odd_out[4] = {0, 1, 0, 1};
    int seen0 = 0, seen2 = 0, wrong = 0;
    for (int call = 0; call < 12; call++) {
        size_t i = shmem_long_test_any(iv, 4, odd_out, SHMEM_CMP_EQ, 0);
        seen0 += i == 0, seen2 += i == 2, wrong += i != 0 && i != 2;
    }
    CHECK(seen0 && seen2 && !wrong, "test_any with status: 0 x%d, 2 x%d, other x%d", seen0, seen2,
          wrong);
    /* nelems 0 */
    CHECK(shmem_long_test_any(iv, 0, NULL, SHMEM_CMP_EQ, 0) == SIZE_MAX, "test_any of nothing");
    CHECK(shmem_long_wait_until_any(iv, 0, NULL, SHMEM_CMP_EQ, 0) == SIZE_MAX,
          "wait_until_any of nothing");
    shmem_barrier_all();
    shmem_free(iv);
}

/* Deprecated: shmem_wait (until != value), shmem_TYPE_wait, shmem_wait_until (long). */
#define OLD_WAIT(T, N, k)                                                                          \
    do {                                                                                           \
        vars->N##_v = (T)3;                                                                        \
        shmem_barrier_all();                                                                       \
        shmem_##N##_p(&vars->N##_v, (T)(4 + k), test_right());                                     \
        shmem_##N##_wait(&vars->N##_v, (T)3);                                                      \
        CHECK(vars->N##_v == (T)(4 + k), "shmem_" #N "_wait: %lld", (long long)vars->N##_v);       \
        shmem_barrier_all();                                                                       \
    } while (0)
static void old_waits(void) {
    struct old {
        short short_v;
        int int_v;
        long long_v;
        long long longlong_v;
        long plain;
    } *vars = shmem_calloc(1, sizeof(struct old));
    REQUIRE(vars, "allocation");
    OLD_WAIT(short, short, 1);
    OLD_WAIT(int, int, 2);
    OLD_WAIT(long, long, 3);
    OLD_WAIT(long long, longlong, 4);
    vars->plain = 0;
    shmem_barrier_all();
    shmem_long_p(&vars->plain, 8, test_right());
    shmem_wait(&vars->plain, 0);
    CHECK(vars->plain == 8, "shmem_wait: %ld", vars->plain);
    shmem_barrier_all();
    shmem_long_p(&vars->plain, 9, test_right());
    shmem_wait_until(&vars->plain, SHMEM_CMP_EQ, 9);
    CHECK(vars->plain == 9, "shmem_wait_until (deprecated): %ld", vars->plain);
    shmem_barrier_all();
    shmem_free(vars);
}

int main(void) {
    test_init();
#define CALL_P2P(T, N)                                                                             \
    if (test_keep(#N)) p2p_##N();
    SHMEM_P2P_TYPES(CALL_P2P)
    edge_cases();
    old_waits();
    return test_end("test_shmem_p2p");
}
