// np: 1 2 3 4
/* RMA. For every type of SHMEM_RMA_TYPES (generated from the table): put, get, p, g, iput, iget,
 * put_nbi and get_nbi (then quiet), each plain, on SHMEM_CTX_DEFAULT and on a created context
 * (then ctx_quiet), and the C11 generic forms; each PE writes a pattern into its right
 * neighbour (puts) or reads its right neighbour's (gets), every element is checked after a
 * barrier, including those a strided transfer must not touch. Then the sized routines (put8 ..
 * put128, get, iput, iget, nbi, ctx forms) and putmem/getmem (+nbi, ctx) at sizes 1 B .. 1 MiB,
 * zero-length transfers with NULL addresses, and shmem_fence between puts to one PE. */
#include "shmem_testlib.h"

#define NEL  12
#define SYMN (3 * NEL) /* room for strided destinations */

static shmem_ctx_t made; /* shmem_ctx_create(0) */
static shmem_ctx_t priv; /* shmem_ctx_create(SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED) */

/* Variants: how the elements go, and the layout (dest stride, source stride, count). */
enum {
    V_PUT,
    V_CTX_DEF_PUT,
    V_CTX_PUT,
    V_P,
    V_CTX_P,
    V_PUT_NBI,
    V_CTX_PUT_NBI,
    V_IPUT,
    V_CTX_IPUT,
    V_GEN_PUT,
    V_GEN_P,
    V_PRIV_PUT,
    V_NPUT,
    V_GET = V_NPUT,
    V_CTX_DEF_GET,
    V_CTX_GET,
    V_G,
    V_CTX_G,
    V_GET_NBI,
    V_CTX_GET_NBI,
    V_IGET,
    V_CTX_IGET,
    V_GEN_GET,
    V_GEN_G,
    V_N
};
static const char *vname[V_N] = {"put",
                                 "ctx_put(DEFAULT)",
                                 "ctx_put(made)",
                                 "p",
                                 "ctx_p(made)",
                                 "put_nbi+quiet",
                                 "ctx_put_nbi(made)+ctx_quiet",
                                 "iput(2,3)",
                                 "ctx_iput(made,3,1)",
                                 "generic put",
                                 "generic p",
                                 "ctx_put(private)",
                                 "get",
                                 "ctx_get(DEFAULT)",
                                 "ctx_get(made)",
                                 "g",
                                 "ctx_g(made)",
                                 "get_nbi+quiet",
                                 "ctx_get_nbi(made)+ctx_quiet",
                                 "iget(2,3)",
                                 "ctx_iget(made,1,3)",
                                 "generic get",
                                 "generic g"};
static void layout(int v, ptrdiff_t *ds, ptrdiff_t *ss, size_t *n) {
    *ds = 1, *ss = 1, *n = NEL;
    if (v == V_IPUT || v == V_IGET) *ds = 2, *ss = 3;
    if (v == V_CTX_IPUT) *ds = 3, *ss = 1;
    if (v == V_CTX_IGET) *ds = 1, *ss = 3;
}

/* One function per type: every variant, checked element by element. */
#define DEFINE_RMA(T, N)                                                                           \
    static void rma_##N(void) {                                                                    \
        const int right = test_right();                                                            \
        /* Every variant has its own region, so all run between the same two barriers. */          \
        T *symall = shmem_malloc(V_N * SYMN * sizeof(T));                                          \
        T locall[V_N * SYMN];                                                                      \
        REQUIRE(symall, "shmem_malloc for " #N);                                                   \
        for (int ph = 0; ph < 3; ph++) { /* 0: fill; 1: transfer; 2: check */                      \
            if (ph > 0) {                                                                          \
                shmem_ctx_quiet(made); /* the made context's puts complete before the barrier */   \
                shmem_barrier_all();                                                               \
            }                                                                                      \
            for (int v = 0; v < V_N; v++) {                                                        \
                T *sym = &symall[v * SYMN], *loc = &locall[v * SYMN];                              \
                ptrdiff_t ds, ss;                                                                  \
                size_t n;                                                                          \
                layout(v, &ds, &ss, &n);                                                           \
                const int put = v < V_NPUT;                                                        \
                /* Puts: sym zeroed, loc the pattern; gets: sym the pattern, loc zeroed. */        \
                if (ph == 0) {                                                                     \
                    for (int i = 0; i < SYMN; i++) {                                               \
                        sym[i] = put ? (T)0 : VAL(T, v, t_me, i);                                  \
                        loc[i] = put ? VAL(T, v, t_me, i) : (T)0;                                  \
                    }                                                                              \
                    continue;                                                                      \
                }                                                                                  \
                if (ph == 1) {                                                                     \
                    switch (v) {                                                                   \
                    case V_PUT:                                                                    \
                        shmem_##N##_put(sym, loc, n, right);                                       \
                        break;                                                                     \
                    case V_CTX_DEF_PUT:                                                            \
                        shmem_ctx_##N##_put(SHMEM_CTX_DEFAULT, sym, loc, n, right);                \
                        break;                                                                     \
                    case V_CTX_PUT:                                                                \
                        shmem_ctx_##N##_put(made, sym, loc, n, right);                             \
                        break;                                                                     \
                    case V_P:                                                                      \
                        for (size_t i = 0; i < n; i++) shmem_##N##_p(&sym[i], loc[i], right);      \
                        break;                                                                     \
                    case V_CTX_P:                                                                  \
                        for (size_t i = 0; i < n; i++)                                             \
                            shmem_ctx_##N##_p(made, &sym[i], loc[i], right);                       \
                        break;                                                                     \
                    case V_PUT_NBI:                                                                \
                        shmem_##N##_put_nbi(sym, loc, n, right);                                   \
                        shmem_quiet();                                                             \
                        break;                                                                     \
                    case V_CTX_PUT_NBI:                                                            \
                        shmem_ctx_##N##_put_nbi(made, sym, loc, n, right);                         \
                        break;                                                                     \
                    case V_IPUT:                                                                   \
                        shmem_##N##_iput(sym, loc, ds, ss, n, right);                              \
                        break;                                                                     \
                    case V_CTX_IPUT:                                                               \
                        shmem_ctx_##N##_iput(made, sym, loc, ds, ss, n, right);                    \
                        break;                                                                     \
                    case V_GEN_PUT:                                                                \
                        shmem_put(sym, loc, n, right);                                             \
                        break;                                                                     \
                    case V_GEN_P:                                                                  \
                        for (size_t i = 0; i < n; i++) shmem_p(&sym[i], loc[i], right);            \
                        break;                                                                     \
                    case V_PRIV_PUT:                                                               \
                        shmem_ctx_##N##_put(priv, sym, loc, n, right);                             \
                        shmem_ctx_quiet(priv);                                                     \
                        break;                                                                     \
                    case V_GET:                                                                    \
                        shmem_##N##_get(loc, sym, n, right);                                       \
                        break;                                                                     \
                    case V_CTX_DEF_GET:                                                            \
                        shmem_ctx_##N##_get(SHMEM_CTX_DEFAULT, loc, sym, n, right);                \
                        break;                                                                     \
                    case V_CTX_GET:                                                                \
                        shmem_ctx_##N##_get(made, loc, sym, n, right);                             \
                        break;                                                                     \
                    case V_G:                                                                      \
                        for (size_t i = 0; i < n; i++) loc[i] = shmem_##N##_g(&sym[i], right);     \
                        break;                                                                     \
                    case V_CTX_G:                                                                  \
                        for (size_t i = 0; i < n; i++)                                             \
                            loc[i] = shmem_ctx_##N##_g(made, &sym[i], right);                      \
                        break;                                                                     \
                    case V_GET_NBI:                                                                \
                        shmem_##N##_get_nbi(loc, sym, n, right);                                   \
                        shmem_quiet();                                                             \
                        break;                                                                     \
                    case V_CTX_GET_NBI:                                                            \
                        shmem_ctx_##N##_get_nbi(made, loc, sym, n, right);                         \
                        shmem_ctx_quiet(made);                                                     \
                        break;                                                                     \
                    case V_IGET:                                                                   \
                        shmem_##N##_iget(loc, sym, ds, ss, n, right);                              \
                        break;                                                                     \
                    case V_CTX_IGET:                                                               \
                        shmem_ctx_##N##_iget(made, loc, sym, ds, ss, n, right);                    \
                        break;                                                                     \
                    case V_GEN_GET:                                                                \
                        shmem_get(loc, sym, n, right);                                             \
                        break;                                                                     \
                    case V_GEN_G:                                                                  \
                        for (size_t i = 0; i < n; i++) loc[i] = shmem_g(&sym[i], right);           \
                        break;                                                                     \
                    }                                                                              \
                    continue;                                                                      \
                }                                                                                  \
                /* Puts: sym holds the left neighbour's pattern; gets: loc the right's. */         \
                const T *got = put ? sym : loc;                                                    \
                const int from = put ? test_left() : right;                                        \
                int bad = 0;                                                                       \
                for (int i = 0; i < SYMN; i++) {                                                   \
                    T want = (T)0;                                                                 \
                    if (i % ds == 0 && (size_t)(i / ds) < n)                                       \
                        want = VAL(T, v, from, (i / ds) * ss);                                     \
                    if (got[i] != want && bad++ < 3)                                               \
                        CHECK(0, "%s %s: element %d is %g, expected %g (from PE %d)", #N,          \
                              vname[v], i, (double)got[i], (double)want, from);                    \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        shmem_free(symall); /* (a barrier first: every get is done) */                             \
    }
SHMEM_RMA_TYPES(DEFINE_RMA)

/* ---- Sized routines and the mem forms (bytes) ---- */
typedef void (*cfn)(void *, const void *, size_t, int);
typedef void (*ccfn)(shmem_ctx_t, void *, const void *, size_t, int);
typedef void (*sfn)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
typedef void (*csfn)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
struct sized {
    const char *name;
    size_t es; /* bytes per element */
    cfn put, get, put_nbi, get_nbi;
    ccfn cput, cget, cput_nbi, cget_nbi;
    sfn iput, iget;
    csfn ciput, ciget;
};
#define SIZED(S)                                                                                   \
    {"" #S "-bit",           S / 8,                                                                \
     shmem_put##S,           shmem_get##S,                                                         \
     shmem_put##S##_nbi,     shmem_get##S##_nbi,                                                   \
     shmem_ctx_put##S,       shmem_ctx_get##S,                                                     \
     shmem_ctx_put##S##_nbi, shmem_ctx_get##S##_nbi,                                               \
     shmem_iput##S,          shmem_iget##S,                                                        \
     shmem_ctx_iput##S,      shmem_ctx_iget##S},
static const struct sized sized[] = {SHMEM_RMA_SIZES(SIZED){
    "mem", 1, shmem_putmem, shmem_getmem, shmem_putmem_nbi, shmem_getmem_nbi, shmem_ctx_putmem,
    shmem_ctx_getmem, shmem_ctx_putmem_nbi, shmem_ctx_getmem_nbi, NULL, NULL, NULL, NULL}};

static uint8_t pat(uint64_t seed, int pe, size_t i) {
    uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(pe + 1) * 0xC2B2AE3D27D4EB4Full ^
                 (i + 1) * 0x165667B19E3779F9ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    return (uint8_t)(x >> 29);
}

enum {
    S_PUT,
    S_CPUT,
    S_PUT_NBI,
    S_CPUT_NBI,
    S_IPUT,
    S_CIPUT,
    S_GET,
    S_CGET,
    S_GET_NBI,
    S_CGET_NBI,
    S_IGET,
    S_CIGET,
    S_N
};
static const char *sname[S_N] = {"put",       "ctx_put",       "put_nbi",   "ctx_put_nbi",
                                 "iput(2,3)", "ctx_iput(3,1)", "get",       "ctx_get",
                                 "get_nbi",   "ctx_get_nbi",   "iget(2,3)", "ctx_iget(1,3)"};

/* Phase 0 fills, 1 transfers, 2 checks variant v of s; the caller puts a barrier between the
 * phases (every variant has its own region of sym and loc, so all run in one round). */
static void sized_case(const struct sized *s, int v, uint8_t *sym, uint8_t *loc, size_t n, int ph) {
    const int put = v < S_GET, right = test_right();
    ptrdiff_t ds = 1, ss = 1;
    if (v == S_IPUT || v == S_IGET) ds = 2, ss = 3;
    if (v == S_CIPUT) ds = 3, ss = 1;
    if (v == S_CIGET) ds = 1, ss = 3;
    if ((v == S_IPUT || v == S_CIPUT || v == S_IGET || v == S_CIGET) && !s->iput) return;
    const size_t bytes = 3 * n * s->es;
    const uint64_t seed = 100 * s->es + (uint64_t)v;
    if (ph == 0) {
        for (size_t i = 0; i < bytes; i++) {
            sym[i] = put ? 0 : pat(seed, t_me, i);
            loc[i] = put ? pat(seed, t_me, i) : 0;
        }
        return;
    }
    if (ph == 1) {
        switch (v) {
        case S_PUT:
            s->put(sym, loc, n, right);
            break;
        case S_CPUT:
            s->cput(made, sym, loc, n, right);
            break;
        case S_PUT_NBI:
            s->put_nbi(sym, loc, n, right);
            shmem_quiet();
            break;
        case S_CPUT_NBI:
            s->cput_nbi(made, sym, loc, n, right);
            break;
        case S_IPUT:
            s->iput(sym, loc, ds, ss, n, right);
            break;
        case S_CIPUT:
            s->ciput(made, sym, loc, ds, ss, n, right);
            break;
        case S_GET:
            s->get(loc, sym, n, right);
            break;
        case S_CGET:
            s->cget(made, loc, sym, n, right);
            break;
        case S_GET_NBI:
            s->get_nbi(loc, sym, n, right);
            shmem_quiet();
            break;
        case S_CGET_NBI:
            s->cget_nbi(made, loc, sym, n, right);
            shmem_ctx_quiet(made);
            break;
        case S_IGET:
            s->iget(loc, sym, ds, ss, n, right);
            break;
        case S_CIGET:
            s->ciget(made, loc, sym, ds, ss, n, right);
            break;
        }
        return;
    }
    const uint8_t *got = put ? sym : loc;
    const int from = put ? test_left() : right;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < bytes; i++) {
        size_t e = i / s->es, k = i % s->es;
        uint8_t want = 0;
        if (e % (size_t)ds == 0 && e / (size_t)ds < n)
            want = pat(seed, from, (e / (size_t)ds) * (size_t)ss * s->es + k);
        if (got[i] != want && !bad++) first = i;
    }
    CHECK(bad == 0, "%s %s of %zu elements: %zu of %zu bytes wrong, first at %zu", s->name,
          sname[v], n, bad, bytes, first);
}

static void check_sized(void) {
    const size_t n = 10;
    const size_t region = 3 * n * 16; /* bytes of one variant */
    uint8_t *sym = shmem_malloc(S_N * region);
    uint8_t *loc = malloc(S_N * region);
    REQUIRE(sym && loc, "allocations");
    for (size_t k = 0; k < sizeof sized / sizeof sized[0]; k++) {
        for (int ph = 0; ph < 3; ph++) {
            if (ph > 0) {
                shmem_ctx_quiet(made);
                shmem_barrier_all();
            }
            for (int v = 0; v < S_N; v++)
                sized_case(&sized[k], v, sym + (size_t)v * region, loc + (size_t)v * region, n, ph);
        }
        shmem_barrier_all(); /* the gets of my regions are done before the next fill */
    }
    shmem_free(sym);
    free(loc);
}

/* putmem/getmem (+nbi, ctx) from 1 B to 1 MiB, at an odd offset too. */
static void check_mem_sizes(void) {
    static const size_t sizes[] = {1, 2, 7, 64, 1000, 4096, 65537, 1 << 20};
    const size_t max = (1 << 20) + 8;
    uint8_t *sym = shmem_malloc(max);
    uint8_t *loc = malloc(max);
    REQUIRE(sym && loc, "allocations");
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (int form = 0; form < 4; form++) {
            const size_t n = sizes[k], off = (size_t)form % 2 ? 3 : 0;
            const uint64_t seed = 5000 + k * 4 + (uint64_t)form;
            /* form 0: putmem, 1: ctx_putmem_nbi(made), 2: getmem, 3: ctx_getmem(made) */
            const int put = form < 2;
            memset(sym, 0, max);
            memset(loc, 0, max);
            for (size_t i = 0; i < n; i++) (put ? loc : sym)[off + i] = pat(seed, t_me, i);
            shmem_barrier_all();
            if (form == 0) shmem_putmem(sym + off, loc + off, n, test_right());
            if (form == 1) shmem_ctx_putmem_nbi(made, sym + off, loc + off, n, test_right());
            if (form == 2) shmem_getmem(loc + off, sym + off, n, test_right());
            if (form == 3) shmem_ctx_getmem(made, loc + off, sym + off, n, test_right());
            shmem_ctx_quiet(made);
            shmem_barrier_all();
            const uint8_t *got = put ? sym : loc;
            const int from = put ? test_left() : test_right();
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < n + off + 4 && i < max; i++) {
                uint8_t want = i >= off && i < off + n ? pat(seed, from, i - off) : 0;
                if (got[i] != want && !bad++) first = i;
            }
            CHECK(bad == 0, "%s of %zu bytes at offset %zu: %zu bytes wrong, first at %zu",
                  form == 0   ? "putmem"
                  : form == 1 ? "ctx_putmem_nbi"
                  : form == 2 ? "getmem"
                              : "ctx_getmem",
                  n, off, bad, first);
            shmem_barrier_all();
        }
    }
    shmem_free(sym);
    free(loc);
}

/* Zero-length transfers: NULL addresses are legal and nothing moves. */
static void check_zero_length(void) {
    int *sym = shmem_malloc(4 * sizeof(int));
    REQUIRE(sym, "allocation");
    for (int i = 0; i < 4; i++) sym[i] = 77;
    shmem_barrier_all();
    const int right = test_right();
    shmem_putmem(NULL, NULL, 0, right);
    shmem_getmem(NULL, NULL, 0, right);
    shmem_putmem_nbi(NULL, NULL, 0, right);
    shmem_getmem_nbi(NULL, NULL, 0, right);
    shmem_int_put(NULL, NULL, 0, right);
    shmem_int_get(NULL, NULL, 0, right);
    shmem_double_put_nbi(NULL, NULL, 0, right);
    shmem_long_get_nbi(NULL, NULL, 0, right);
    shmem_int_iput(NULL, NULL, 1, 1, 0, right);
    shmem_int_iget(NULL, NULL, 1, 1, 0, right);
    shmem_put64(NULL, NULL, 0, right);
    shmem_get32(NULL, NULL, 0, right);
    shmem_ctx_putmem(made, NULL, NULL, 0, right);
    shmem_ctx_int_get(made, NULL, NULL, 0, right);
    int junk[4] = {1, 2, 3, 4};
    shmem_int_put(sym, junk, 0, right); /* valid addresses, zero length: nothing moves */
    shmem_quiet();
    shmem_ctx_quiet(made);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        CHECK(sym[i] == 77, "zero-length put changed sym[%d] to %d", i, sym[i]);
    shmem_barrier_all();
    shmem_free(sym);
}

/* fence: puts to one PE arrive in order; the flag put last implies the data. */
static void check_fence(void) {
    long *data = shmem_calloc(64, sizeof(long));
    long *flag = shmem_calloc(1, sizeof(long));
    REQUIRE(data && flag, "allocation");
    const int right = test_right();
    for (int round = 1; round <= 20; round++) {
        long buf[64];
        for (int i = 0; i < 64; i++) buf[i] = round * 1000 + i;
        shmem_long_put(data, buf, 64, right);
        shmem_fence();
        shmem_long_p(flag, round, right);
        shmem_long_wait_until(flag, SHMEM_CMP_GE, round);
        int bad = 0;
        for (int i = 0; i < 64; i++) bad += data[i] != round * 1000 + i;
        CHECK(bad == 0, "fence round %d: %d of 64 words not there when the flag was", round, bad);
        shmem_barrier_all(); /* nobody overwrites before the check */
    }
    shmem_ctx_fence(made);
    shmem_ctx_fence(SHMEM_CTX_DEFAULT);
    shmem_free(flag);
    shmem_free(data);
}

int main(void) {
    test_init();
    REQUIRE(shmem_ctx_create(0, &made) == 0 && made != SHMEM_CTX_INVALID, "shmem_ctx_create");
    REQUIRE(shmem_ctx_create(SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED, &priv) == 0 &&
                priv != SHMEM_CTX_INVALID,
            "shmem_ctx_create(PRIVATE)");
    shmem_team_t team = SHMEM_TEAM_INVALID;
    CHECK(shmem_ctx_get_team(made, &team) == 0 && team == SHMEM_TEAM_WORLD,
          "a created context's team is not SHMEM_TEAM_WORLD");
#define CALL_RMA(T, N)                                                                             \
    if (test_keep(#N)) rma_##N();
    SHMEM_RMA_TYPES(CALL_RMA)
    check_sized();
    check_mem_sizes();
    check_zero_length();
    check_fence();
    shmem_ctx_destroy(priv);
    shmem_ctx_destroy(made);
    return test_end("test_shmem_rma");
}
