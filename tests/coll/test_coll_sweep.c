/* Sweep of every registered collective algorithm (read from the registry, so new algorithms are
 * tested without touching this file) x radix x team shape x size x root x type/op, each result
 * compared exactly with a sequential reference. Back-to-back calls with changing data and
 * changing algorithms, no barriers in between. Forcing an algorithm that does not apply must fail
 * cleanly on every member.
 *   SHOAL_SWEEP_FULL=1: every type x op, every root, more sizes and iterations.
 *   SHOAL_SWEEP_ONLY=<collective>: one collective only.
 *   SHOAL_SWEEP_ALGO=<algorithm>: only the algorithms of that name (e.g. node, on the cluster). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "shoal.h"

static int failures, calls, unit;
static int full;
static const char *only_algo; /* SHOAL_SWEEP_ALGO */
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            if (failures < 20) {                                                                   \
                fprintf(stderr, "unit %d: %s:%d: ", unit, __FILE__, __LINE__);                     \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fputc('\n', stderr);                                                               \
            }                                                                                      \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* Deterministic data: byte i of member m's contribution in iteration it. */
static unsigned char byte_of(int m, size_t i, int it) {
    return (unsigned char)(m * 131 + i * 7 + it * 17 + (i >> 8));
}

#define MAXBUF (3u << 20)
static shoal_gptr_t dbuf, sbuf;
static char *dloc, *sloc;
static char *expect;

typedef struct {
    shoal_team_t team;
    int32_t p, me;
    const char *name;
} shape_t;

/* Fill my src for a call. */
static void fill_src(const shape_t *s, size_t n, int it) {
    for (size_t i = 0; i < n; i++) sloc[i] = (char)byte_of(s->me, i, it);
}

static int radices(const coll_algo_t *g, int *out) {
    if (!g->radix_max) {
        out[0] = 0;
        return 1;
    }
    int cand[] = {g->radix_min, 3, g->radix_default, 4, 5, 8, g->radix_max}, n = 0;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        int r = cand[i], dup = 0;
        if (r < g->radix_min || r > g->radix_max) continue;
        if (!full && r > 8) continue;
        for (int j = 0; j < n; j++) dup |= out[j] == r;
        if (!dup) out[n++] = r;
    }
    return n;
}

/* Element values for reductions: small, so every type holds every sum and product exactly. */
static void red_value(shoal_type_t t, int m, size_t k, int it, shoal_red_op_t op, void *out) {
    long v = (long)((m * 3 + (long)k * 5 + it) % 7) - 2;           /* -2..4 */
    if (op == SHOAL_RED_PROD) v = ((m + k + it) % 5 == 0) ? 2 : 1; /* products stay small */
    int is_unsigned = t == SHOAL_TYPE_UCHAR || t == SHOAL_TYPE_USHORT || t == SHOAL_TYPE_UINT ||
                      t == SHOAL_TYPE_ULONG || t == SHOAL_TYPE_ULONGLONG || t == SHOAL_TYPE_UINT8 ||
                      t == SHOAL_TYPE_UINT16 || t == SHOAL_TYPE_UINT32 || t == SHOAL_TYPE_UINT64 ||
                      t == SHOAL_TYPE_SIZE;
    if (is_unsigned && v < 0) v = -v;
    if (op >= SHOAL_RED_AND) v = (long)((m * 37 + k * 11 + it) & 0x7f);
    switch (t) {
    case SHOAL_TYPE_FLOAT:
        *(float *)out = (float)v;
        break;
    case SHOAL_TYPE_DOUBLE:
        *(double *)out = (double)v;
        break;
    case SHOAL_TYPE_LONGDOUBLE:
        *(long double *)out = (long double)v;
        break;
    default: {
        long long ll = v;
        memcpy(out, &ll, shoal_type_size(t)); /* little-endian: the low bytes */
        break;
    }
    }
}

/* Forces algorithm g (radix) for kind k on every member; returns 1 if the registry says it
 * applies to this call (otherwise checks that the call fails and returns 0). */
static int force(const coll_algo_t *g, int radix) {
    char rule[64];
    if (radix)
        snprintf(rule, sizeof rule, "%s:radix=%d", g->name, radix);
    else
        snprintf(rule, sizeof rule, "%s", g->name);
    shoal_err_t e = shoal_coll_override(coll_kind_name(g->kind), rule);
    CHECK(e == SHOAL_OK, "override %s failed", rule);
    return e == SHOAL_OK;
}

/* count: elements (reductions, of type t under op); bytes: the message size the selector keys
 * on */
static int applies_typed(const coll_algo_t *g, const shape_t *s, int radix, size_t count,
                         size_t bytes, int inplace, shoal_type_t type, shoal_red_op_t op);
static int applies(const coll_algo_t *g, const shape_t *s, int radix, size_t count, size_t bytes,
                   int inplace) {
    return applies_typed(g, s, radix, count, bytes, inplace, SHOAL_TYPE_INT64, SHOAL_RED_SUM);
}
static int applies_typed(const coll_algo_t *g, const shape_t *s, int radix, size_t count,
                         size_t bytes, int inplace, shoal_type_t type, shoal_red_op_t op) {
    team_t *t = NULL;
    shoal__team_get(s->team, &t);
    coll_args_t a;
    memset(&a, 0, sizeof a);
    a.kind = g->kind;
    a.p = s->p;
    a.team = t;
    a.ct = t->coll;
    a.count = count;
    a.type = type;
    a.op = op;
    a.msg_bytes = bytes;
    a.nbytes = bytes;
    if (g->kind == COLL_COLLECT) { /* the eager collect: did every block come with the sizes? */
        size_t most = 0;
        for (int m = 0; m < s->p; m++) {
            size_t sz = (bytes + (size_t)m * 3) % (bytes + 5); /* as the collect case below */
            if (sz > most) most = sz;
        }
        /* (api.c: a team whose words go through MPI gets the sizes by MPI_Allgather, with blocks of
         * its own that only native reads) */
        a.xchg_blocks = t->coll->seg->atomics_direct && coll_eager_collect_possible(&a) &&
                        most <= t->coll->xchg_cell - 16;
    }
    a.dseg = (segment_t *)1;
    a.sseg = inplace ? (segment_t *)1 : (segment_t *)2;
    return coll_not_applicable(g, &a, radix) == NULL;
}

static void check_last(const shape_t *s, const coll_algo_t *g) {
    const char *last = NULL;
    shoal_coll_last_algorithm(s->team, &last);
    CHECK(last && !strcmp(last, g->name), "ran %s, forced %s", last ? last : "?", g->name);
}

static void sweep_kind(const shape_t *s, coll_kind_t kind, const size_t *sizes, int nsizes,
                       int iters) {
    int nalgos = 0;
    const coll_algo_t *algos = coll_algos(kind, &nalgos);
    for (int ai = 0; ai < nalgos; ai++) {
        const coll_algo_t *g = &algos[ai];
        if (only_algo && strcmp(only_algo, g->name)) continue;
        int rads[8], nr = radices(g, rads);
        for (int ri = 0; ri < nr; ri++) {
            if (!force(g, rads[ri])) continue;
            for (int si = 0; si < nsizes; si++) {
                size_t n = sizes[si];
                for (int it = 0; it < iters; it++) {
                    int it_seed = it + si * 10 + ri * 100 + ai * 1000;
                    switch (kind) {
                    case COLL_BARRIER: {
                        if (si || it) break;
                        int ok = applies(g, s, rads[ri], 0, 0, 0);
                        shoal_err_t e = shoal_team_barrier(s->team);
                        calls++;
                        if (!ok) { /* forced where it cannot run: fails on every member */
                            CHECK(e == SHOAL_ERR_INVAL, "%s barrier %s ran where it cannot",
                                  s->name, g->name);
                            break;
                        }
                        CHECK(e == SHOAL_OK, "%s barrier %s", s->name, g->name);
                        check_last(s, g);
                        break;
                    }
                    case COLL_BROADCAST: {
                        int nroots = (full || s->p <= 4) ? s->p : 3;
                        for (int rk = 0; rk < nroots; rk++) {
                            int root = nroots == s->p ? rk
                                                      : (rk == 0   ? 0
                                                         : rk == 1 ? s->p - 1
                                                                   : s->p / 2);
                            /* src: 0 its own buffer, 1 dest itself (in place), 2 inside dest's
                             * allocation 24 bytes on, overlapping dest without being it */
                            int mode = (it_seed + rk) % 3, inplace = mode == 1;
                            size_t shift = mode == 2 ? 24 : 0, end = n + shift;
                            if (!applies(g, s, rads[ri], 0, n, inplace)) continue;
                            fill_src(s, n, it_seed + rk);
                            if (mode) memmove(dloc + shift, sloc, n);
                            memset(dloc + end, 0x5a, 64); /* canary after the message */
                            shoal_gptr_t from =
                                mode == 0 ? sbuf : shoal_gptr_add(dbuf, (int64_t)shift);
                            shoal_err_t e = shoal_broadcast(s->team, dbuf, from, n, root);
                            calls++;
                            CHECK(e == SHOAL_OK, "%s bcast %s n=%zu root=%d", s->name, g->name, n,
                                  root);
                            for (size_t i = 0; i < n; i++)
                                if ((unsigned char)dloc[i] != byte_of(root, i, it_seed + rk)) {
                                    CHECK(0, "%s bcast %s r%d n=%zu root=%d src mode %d: byte %zu",
                                          s->name, g->name, rads[ri], n, root, mode, i);
                                    break;
                                }
                            for (int i = 0; i < 64; i++)
                                if ((unsigned char)dloc[end + i] != 0x5a) {
                                    CHECK(0, "%s bcast %s wrote past the end", s->name, g->name);
                                    break;
                                }
                            check_last(s, g);
                        }
                        break;
                    }
                    case COLL_COLLECT:
                    case COLL_FCOLLECT: {
                        if (!applies(g, s, rads[ri], 0, n, 0)) break;
                        /* collect: member m gives (n + m * 3) % (n + 5) bytes (some give 0) */
                        size_t total = 0, mine = 0;
                        for (int m = 0; m < s->p; m++) {
                            size_t sz = kind == COLL_FCOLLECT ? n : (n + (size_t)m * 3) % (n + 5);
                            if (m == s->me) mine = sz;
                            for (size_t i = 0; i < sz; i++)
                                expect[total + i] = (char)byte_of(m, i, it_seed);
                            total += sz;
                        }
                        if (total > MAXBUF - 64) break;
                        fill_src(s, mine, it_seed);
                        memset(dloc + total, 0x5a, 64);
                        shoal_err_t e = kind == COLL_FCOLLECT
                                            ? shoal_fcollect(s->team, dbuf, sbuf, n)
                                            : shoal_collect(s->team, dbuf, sbuf, mine);
                        calls++;
                        CHECK(e == SHOAL_OK, "%s %s %s n=%zu", s->name, coll_kind_name(kind),
                              g->name, n);
                        if (memcmp(dloc, expect, total))
                            CHECK(0, "%s %s %s r%d n=%zu: wrong data", s->name,
                                  coll_kind_name(kind), g->name, rads[ri], n);
                        for (int i = 0; i < 64; i++)
                            if ((unsigned char)dloc[total + i] != 0x5a) {
                                CHECK(0, "%s %s %s wrote past the end", s->name,
                                      coll_kind_name(kind), g->name);
                                break;
                            }
                        check_last(s, g);
                        break;
                    }
                    case COLL_ALLTOALL:
                    case COLL_ALLTOALLS: {
                        /* alltoall: blocks of n / p + 1 bytes (the size the checks see) */
                        size_t blk = n / (size_t)s->p + 1;
                        if (!applies(g, s, rads[ri], 0, kind == COLL_ALLTOALL ? blk : n, 0)) break;
                        if (kind == COLL_ALLTOALL) {
                            if (blk * (size_t)s->p > MAXBUF / 2) break;
                            for (int q = 0; q < s->p; q++)
                                for (size_t i = 0; i < blk; i++)
                                    sloc[q * blk + i] = (char)byte_of(s->me * 64 + q, i, it_seed);
                            shoal_err_t e = shoal_alltoall(s->team, dbuf, sbuf, blk);
                            calls++;
                            CHECK(e == SHOAL_OK, "%s alltoall %s", s->name, g->name);
                            for (int q = 0; q < s->p; q++)
                                for (size_t i = 0; i < blk; i++)
                                    if ((unsigned char)dloc[q * blk + i] !=
                                        byte_of(q * 64 + s->me, i, it_seed)) {
                                        CHECK(0, "%s alltoall %s blk=%zu from %d byte %zu", s->name,
                                              g->name, blk, q, i);
                                        q = s->p;
                                        break;
                                    }
                        } else {
                            size_t es = (it_seed % 2) ? 8 : 4, ne = n / 64 + 1;
                            ptrdiff_t sst = 1 + it_seed % 3, dst = 1 + (it_seed / 3) % 2;
                            size_t tot = ne * (size_t)s->p;
                            if (tot * (size_t)(sst > dst ? sst : dst) * es > MAXBUF / 2) break;
                            memset(dloc, 0x5a, tot * (size_t)dst * es);
                            for (size_t j = 0; j < tot; j++) {
                                unsigned long long v = (unsigned long long)s->me * 1000003ull +
                                                       j * 31 + (unsigned)it_seed;
                                memcpy(sloc + j * (size_t)sst * es, &v, es);
                            }
                            shoal_err_t e = shoal_alltoalls(s->team, dbuf, sbuf, dst, sst, es, ne);
                            calls++;
                            CHECK(e == SHOAL_OK, "%s alltoalls %s", s->name, g->name);
                            for (int q = 0; q < s->p; q++)
                                for (size_t k = 0; k < ne; k++) {
                                    /* element k of q's block for me: q's src element me*ne+k */
                                    unsigned long long v = (unsigned long long)q * 1000003ull +
                                                           ((size_t)s->me * ne + k) * 31 +
                                                           (unsigned)it_seed,
                                                       got = 0;
                                    memcpy(&got, dloc + (((size_t)q * ne + k) * (size_t)dst) * es,
                                           es);
                                    if (es == 4) v &= 0xffffffffull;
                                    if (got != v) {
                                        CHECK(0, "%s alltoalls %s es=%zu ne=%zu from %d elem %zu",
                                              s->name, g->name, es, ne, q, k);
                                        q = s->p;
                                        break;
                                    }
                                }
                        }
                        check_last(s, g);
                        break;
                    }
                    case COLL_REDUCE:
                    case COLL_SCAN: {
                        static const shoal_type_t ci_types[] = {
                            SHOAL_TYPE_INT,    SHOAL_TYPE_INT64, SHOAL_TYPE_UINT8,
                            SHOAL_TYPE_DOUBLE, SHOAL_TYPE_FLOAT, SHOAL_TYPE_LONGDOUBLE,
                            SHOAL_TYPE_SHORT};
                        static const shoal_red_op_t ci_ops[] = {
                            SHOAL_RED_SUM, SHOAL_RED_MAX,  SHOAL_RED_XOR, SHOAL_RED_SUM,
                            SHOAL_RED_MIN, SHOAL_RED_PROD, SHOAL_RED_AND};
                        int ncases = full ? SHOAL_TYPE_COUNT_ * 7 : 7;
                        for (int c = 0; c < ncases; c++) {
                            shoal_type_t t = full ? (shoal_type_t)(c / 7) : ci_types[c];
                            shoal_red_op_t op = full ? (shoal_red_op_t)(c % 7) : ci_ops[c];
                            if (kind == COLL_SCAN) op = SHOAL_RED_SUM;
                            if (op >= SHOAL_RED_AND && !coll_type_is_integer(t)) continue;
                            if (!full && c != (it_seed % 7) && kind == COLL_REDUCE && n > 1000)
                                continue;
                            size_t ts = shoal_type_size(t), count = n / ts;
                            int inplace = kind == COLL_REDUCE && (it_seed + c) % 2;
                            if (!applies_typed(g, s, rads[ri], count, n, inplace, t, op)) continue;
                            int incl = (it_seed + c) % 2;
                            char one[16];
                            for (size_t k = 0; k < count; k++) {
                                red_value(t, s->me, k, it_seed + c, op, one);
                                memcpy(sloc + k * ts, one, ts);
                                /* reference: members in order (0..p-1, or the scan's prefix) */
                                int last =
                                    kind == COLL_SCAN ? (incl ? s->me : s->me - 1) : s->p - 1;
                                char acc[16] = {0};
                                for (int m = 0; m <= last; m++) {
                                    red_value(t, m, k, it_seed + c, op, one);
                                    if (m == 0)
                                        memcpy(acc, one, ts);
                                    else
                                        coll_reduce_local(acc, one, 1, t, op);
                                }
                                memcpy(expect + k * ts, acc, ts); /* last < 0: zeros */
                            }
                            shoal_err_t e = kind == COLL_SCAN
                                                ? shoal_scan(s->team, dbuf, sbuf, count, t, incl)
                                                : shoal_reduce(s->team, inplace ? sbuf : dbuf, sbuf,
                                                               count, t, op);
                            calls++;
                            CHECK(e == SHOAL_OK, "%s %s %s", s->name, coll_kind_name(kind),
                                  g->name);
                            char *res = inplace ? sloc : dloc;
                            int differ = 0;
                            if (t == SHOAL_TYPE_LONGDOUBLE) { /* 80-bit values in 16 bytes: compare
                                                                 values, not padding */
                                for (size_t k = 0; k < count; k++) {
                                    long double x, y;
                                    memcpy(&x, res + k * ts, ts);
                                    memcpy(&y, expect + k * ts, ts);
                                    differ |= x != y;
                                }
                            } else {
                                differ = memcmp(res, expect, count * ts) != 0;
                            }
                            if (differ)
                                CHECK(0,
                                      "%s %s %s r%d count=%zu type=%d op=%d inplace=%d incl=%d: "
                                      "wrong",
                                      s->name, coll_kind_name(kind), g->name, rads[ri], count,
                                      (int)t, (int)op, inplace, incl);
                            check_last(s, g);
                        }
                        break;
                    }
                    case COLL_KINDS:
                        break;
                    }
                }
            }
        }
        shoal_coll_override(coll_kind_name(kind), NULL);
    }
}

/* Forcing an algorithm that cannot run fails on every member, and moves nothing. */
static void forced_errors(const shape_t *s) {
    if (s->p & (s->p - 1)) {
        int n = 0;
        const coll_algo_t *v = coll_algos(COLL_FCOLLECT, &n);
        for (int i = 0; i < n; i++)
            if (v[i].needs & NEEDS_POW2) {
                shoal_coll_override("fcollect", v[i].name);
                memset(dloc, 0x77, 64);
                fill_src(s, 8, 1);
                int quiet = 1;
                (void)quiet;
                shoal_err_t e = shoal_fcollect(s->team, dbuf, sbuf, 8);
                CHECK(e == SHOAL_ERR_INVAL, "%s: forcing %s on %d units gave %d", s->name,
                      v[i].name, (int)s->p, (int)e);
                CHECK((unsigned char)dloc[0] == 0x77, "a refused call wrote data");
                shoal_coll_override("fcollect", NULL);
            }
    }
    CHECK(shoal_coll_override("reduce", "no_such_algorithm") == SHOAL_ERR_INVAL,
          "unknown algorithm accepted");
    CHECK(shoal_coll_override("nonsense", "linear") == SHOAL_ERR_INVAL,
          "unknown collective accepted");
}

int main(int argc, char **argv) {
    if (shoal_init(&argc, &argv) != SHOAL_OK) return 1;
    int32_t n;
    shoal_myid(&unit);
    shoal_size(&n);
    full = getenv("SHOAL_SWEEP_FULL") && atoi(getenv("SHOAL_SWEEP_FULL"));
    const char *only = getenv("SHOAL_SWEEP_ONLY");
    only_algo = getenv("SHOAL_SWEEP_ALGO");
    if (shoal_team_memalloc(SHOAL_TEAM_ALL, MAXBUF, &dbuf) ||
        shoal_team_memalloc(SHOAL_TEAM_ALL, MAXBUF, &sbuf))
        return 2;
    shoal_gptr_getaddr(dbuf, (void **)&dloc);
    shoal_gptr_getaddr(sbuf, (void **)&sloc);
    expect = malloc(MAXBUF);

    /* Team shapes: everyone; odd units (non-contiguous, strided); every third unit; {0,2,3,...}. */
    shape_t shapes[4];
    int nshapes = 0;
    shapes[nshapes++] = (shape_t){SHOAL_TEAM_ALL, n, unit, "all"};
    shoal_team_t odd = SHOAL_TEAM_NULL, third = SHOAL_TEAM_NULL, holes = SHOAL_TEAM_NULL;
    if (n >= 3) {
        shoal_team_split(SHOAL_TEAM_ALL, unit % 2, &odd);
        shoal_group_t g;
        shoal_group_create(&g);
        for (int u = n - 1; u >= 0; u -= 1)
            if (u % 3 == 0) shoal_group_add_member(g, u); /* added in reverse: still sorted */
        shoal_team_create(SHOAL_TEAM_ALL, g, &third);
        shoal_group_destroy(&g);
        shoal_group_create(&g);
        for (int u = 0; u < n; u++)
            if (u != 1) shoal_group_add_member(g, u);
        shoal_team_create(SHOAL_TEAM_ALL, g, &holes);
        shoal_group_destroy(&g);
        if (unit % 2)
            shapes[nshapes++] = (shape_t){odd, 0, 0, "odd"};
        else
            shapes[nshapes++] = (shape_t){odd, 0, 0, "even"};
        if (third != SHOAL_TEAM_NULL) shapes[nshapes++] = (shape_t){third, 0, 0, "every-third"};
        if (holes != SHOAL_TEAM_NULL) shapes[nshapes++] = (shape_t){holes, 0, 0, "all-but-1"};
    }
    /* 4152: a message that ends exactly at the end of an eager exchange cell (up to 7 units) */
    static const size_t ci_sizes[] = {0, 1, 7, 8, 1000, 4152, 65539};
    static const size_t full_sizes[] = {0, 1, 7, 8, 64, 1000, 4096, 4152, 65539, 262147, 1048583};
    const size_t *sizes = full ? full_sizes : ci_sizes;
    int nsizes = full ? 11 : 7, iters = full ? 3 : 2;

    /* Every member walks the shapes in the same order; members outside a shape skip it. */
    for (int si = 0; si < nshapes; si++) {
        shape_t *s = &shapes[si];
        shoal_team_size(s->team, &s->p);
        shoal_team_myid(s->team, &s->me);
        for (int k = 0; k < COLL_KINDS; k++) {
            if (only && strcmp(only, coll_kind_name((coll_kind_t)k))) continue;
            sweep_kind(s, (coll_kind_t)k, sizes, nsizes, iters);
        }
        forced_errors(s);
    }
    shoal_barrier(SHOAL_TEAM_ALL);
    if (holes != SHOAL_TEAM_NULL) shoal_team_destroy(&holes);
    if (third != SHOAL_TEAM_NULL) shoal_team_destroy(&third);
    if (odd != SHOAL_TEAM_NULL) shoal_team_destroy(&odd);
    int bad = failures, all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (unit == 0)
        printf("test_coll_sweep: %d calls on unit 0, %s\n", calls, all ? "FAILED" : "OK");
    shoal_team_memfree(dbuf);
    shoal_team_memfree(sbuf);
    free(expect);
    shoal_finalize();
    return all != 0;
}
