/* Errors: every public call with bad input returns the documented code, writes no output and
 * moves no data.
 *
 * Calls before shoal_init and after shoal_finalize give SHOAL_ERR_NOT_INIT. In between: NULL,
 * bogus, stale and freed global pointers (ERR_GPTR), units out of range (ERR_UNIT), accesses past
 * the end (ERR_BOUNDS, including offsets that overflow), NULL buffers and outputs (ERR_INVAL),
 * misaligned atomics (ERR_ALIGN), bad teams (ERR_TEAM), double frees and double init
 * (ERR_STATE). Every failing put/get/atomic targets memory filled with a known pattern and uses
 * local buffers filled with a known pattern; both are checked afterwards.
 *
 * The library prints one line per failing call on stderr (SHOAL_DEBUG=1): that is expected. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define SZ    4096 /* the symmetric allocation (one page) */
#define SMALL 1000 /* an allocation whose size is not a page multiple */
#define LB    8192 /* local buffers */

/* The call must return exactly code. */
#define EXPECT(code, call)                                                                         \
    do {                                                                                           \
        shoal_err_t e_ = (call);                                                                   \
        CHECK(e_ == (code), "%s returned %s, expected %s", #call, shoal_strerror(e_),              \
              shoal_strerror(code));                                                               \
    } while (0)
/* The call must return one of two codes. */
#define EXPECT2(c1, c2, call)                                                                      \
    do {                                                                                           \
        shoal_err_t e_ = (call);                                                                   \
        CHECK(e_ == (c1) || e_ == (c2), "%s returned %s, expected %s or %s", #call,                \
              shoal_strerror(e_), shoal_strerror(c1), shoal_strerror(c2));                         \
    } while (0)
/* The call must fail (any code). */
#define EXPECT_FAIL(call)                                                                          \
    do {                                                                                           \
        shoal_err_t e_ = (call);                                                                   \
        CHECK(e_ != SHOAL_OK, "%s returned SHOAL_OK, expected an error", #call);                   \
    } while (0)

static uint8_t lbuf[LB];    /* local source/destination, always holds pattern (1, me) */
static uint8_t lbuf2[LB];   /* second local buffer, pattern (2, me) */
static shoal_gptr_t sym;    /* SZ bytes on every unit; my part holds pattern (3, me) */
static shoal_gptr_t small;  /* SMALL bytes; my part holds pattern (4, me) */
static shoal_gptr_t target; /* sym on my right neighbour */

static void check_locals(const char *after) {
    CHECK_PATTERN(lbuf, LB, 1, (uint64_t)t_me, 0, after);
    CHECK_PATTERN(lbuf2, LB, 2, (uint64_t)t_me, 0, after);
}

/* After a barrier: my parts of sym and small are untouched. */
static void check_targets(const char *after) {
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    void *a = NULL;
    if (CHECK_OK(shoal_gptr_getaddr(sym, &a)) && a)
        CHECK_PATTERN(a, SZ, 3, (uint64_t)t_me, 0, after);
    if (CHECK_OK(shoal_gptr_getaddr(small, &a)) && a)
        CHECK_PATTERN(a, SMALL, 4, (uint64_t)t_me, 0, after);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
}

/* Every data-moving call on a bad pointer gp must return code and change nothing. */
static void all_ops_fail(shoal_gptr_t gp, shoal_err_t code, const char *what) {
    const shoal_handle_t hsent = (shoal_handle_t)(uintptr_t)0x5A5A0;
    shoal_handle_t h = hsent;
    int64_t v = 5, r = 0x7777;
    const int64_t rsent = 0x7777;
    shoal_err_t e;
#define ONE(call)                                                                                  \
    do {                                                                                           \
        e = (call);                                                                                \
        CHECK(e == code, "%s: %s returned %s, expected %s", what, #call, shoal_strerror(e),        \
              shoal_strerror(code));                                                               \
    } while (0)
    ONE(shoal_put(gp, lbuf, 8));
    ONE(shoal_get(lbuf, gp, 8));
    ONE(shoal_put_nb(gp, lbuf, 8, &h));
    CHECK(h == hsent, "%s: failed put_nb wrote its handle", what);
    ONE(shoal_get_nb(lbuf, gp, 8, &h));
    CHECK(h == hsent, "%s: failed get_nb wrote its handle", what);
    ONE(shoal_put_strided(gp, 16, lbuf, 8, 8, 4));
    ONE(shoal_get_strided(lbuf, 8, gp, 16, 8, 4));
    ONE(shoal_atomic_fetch_op(gp, SHOAL_OP_SUM, SHOAL_INT64, &v, &r));
    ONE(shoal_atomic_op(gp, SHOAL_OP_SUM, SHOAL_INT64, &v));
    ONE(shoal_atomic_swap(gp, SHOAL_INT64, &v, &r));
    ONE(shoal_atomic_cas(gp, SHOAL_INT64, &v, &v, &r));
    ONE(shoal_atomic_load(gp, SHOAL_INT64, &r));
    ONE(shoal_atomic_store(gp, SHOAL_INT64, &v));
    CHECK(r == rsent, "%s: a failed atomic wrote its result", what);
    ONE(shoal_put_signal(gp, lbuf, 8, shoal_gptr_add(gp, 64), 1, SHOAL_SIGNAL_ADD));
    ONE(shoal_signal(gp, 1, SHOAL_SIGNAL_ADD));
    void *addr = (void *)&r;
    ONE(shoal_gptr_getaddr(gp, &addr));
    CHECK(addr == (void *)&r, "%s: failed getaddr wrote its output", what);
#undef ONE
    check_locals(what);
}

/* ---- Before shoal_init ----------------------------------------------------------------------- */
static void before_init(void) {
    CHECK(shoal_initialized() == 0, "shoal_initialized() is 1 before shoal_init");
    shoal_gptr_t gp = {0, 1, 0, 0};
    uint8_t b[16] = {0};
    shoal_unit_t u = -5;
    int32_t n = -5;
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_put(gp, b, 8));
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_get(b, gp, 8));
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_put(SHOAL_GPTR_NULL, b, 8));
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_myid(&u));
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_size(&n));
    CHECK(u == -5 && n == -5, "myid/size wrote outputs before init");
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_team_memalloc(SHOAL_TEAM_ALL, 64, &gp));
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_memalloc(64, &gp));
    CHECK(gp.segid == 1, "memalloc wrote its output before init");
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_barrier(SHOAL_TEAM_ALL));
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_team_size(SHOAL_TEAM_ALL, &n));
    shoal_team_t t = -5;
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_team_split(SHOAL_TEAM_ALL, 0, &t));
    CHECK(t == -5, "team_split wrote its output before init");
    shoal_lock_t l = NULL;
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_lock_create(SHOAL_TEAM_ALL, &l));
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_flush_all());
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_fence());
    int64_t v = 1;
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_atomic_op(gp, SHOAL_OP_SUM, SHOAL_INT64, &v));
    size_t tot = 5, fr = 5;
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_pool_info(&tot, &fr));
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_finalize());
    /* Usable before init. */
    CHECK(shoal_strerror(SHOAL_ERR_BOUNDS) != NULL, "strerror is NULL before init");
    CHECK(shoal_config_count() > 0, "config_count is 0 before init");
    shoal_config_var_t var;
    CHECK_OK(shoal_config_var(0, &var));
    CHECK(shoal_initialized() == 0, "shoal_initialized() is 1 before shoal_init");
}

/* ---- Global pointers ------------------------------------------------------------------------- */
static void bad_pointers(void) {
    all_ops_fail(SHOAL_GPTR_NULL, SHOAL_ERR_GPTR, "NULL gptr");
    shoal_gptr_t gp = target;
    gp.segid = 0xFFFF;
    all_ops_fail(gp, SHOAL_ERR_GPTR, "bogus segid 0xFFFF");
    gp.segid = 0x7FF3;
    all_ops_fail(gp, SHOAL_ERR_GPTR, "bogus segid 0x7FF3");
    gp = target;
    gp.flags ^= 1;
    all_ops_fail(gp, SHOAL_ERR_GPTR, "wrong generation (flags ^ 1)");
    gp = target;
    gp.flags += 0x100;
    all_ops_fail(gp, SHOAL_ERR_GPTR, "wrong generation (flags + 0x100)");

    /* Freed collective allocation; then a new one (which may reuse the segment id with a new
     * generation): the old pointer stays dead, the new one works. */
    shoal_gptr_t f = SHOAL_GPTR_NULL, g = SHOAL_GPTR_NULL;
    CHECK_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 256, &f));
    CHECK_OK(shoal_team_memfree(f));
    shoal_gptr_t fr = shoal_gptr_setunit(f, test_right());
    all_ops_fail(fr, SHOAL_ERR_GPTR, "freed allocation");
    all_ops_fail(f, SHOAL_ERR_GPTR, "freed allocation (own part)");
    CHECK_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 256, &g));
    if (g.segid == f.segid)
        CHECK(g.flags != f.flags, "a reused segment id %u kept its generation %u", g.segid,
              g.flags);
    all_ops_fail(fr, SHOAL_ERR_GPTR, "freed allocation after a new one");
    uint64_t x = 42, y = 0;
    CHECK_OK(shoal_put(shoal_gptr_setunit(g, test_right()), &x, 8));
    CHECK_OK(shoal_get(&y, shoal_gptr_setunit(g, test_right()), 8));
    CHECK(y == 42, "new allocation read back %llu", (unsigned long long)y);
    /* Double collective free. */
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_team_memfree(g));
    EXPECT2(SHOAL_ERR_STATE, SHOAL_ERR_GPTR, shoal_team_memfree(g));
    EXPECT2(SHOAL_ERR_STATE, SHOAL_ERR_GPTR, shoal_team_memfree(f));
    EXPECT(SHOAL_ERR_GPTR, shoal_team_memfree(SHOAL_GPTR_NULL));

    /* An allocation freed by destroying its team. */
    shoal_team_t t = SHOAL_TEAM_NULL;
    CHECK_OK(shoal_team_split(SHOAL_TEAM_ALL, 0, &t));
    shoal_gptr_t tg = SHOAL_GPTR_NULL;
    CHECK_OK(shoal_team_memalloc(t, 128, &tg));
    CHECK_OK(shoal_team_destroy(&t));
    all_ops_fail(shoal_gptr_setunit(tg, test_right()), SHOAL_ERR_GPTR,
                 "allocation of a destroyed team");

    /* Units out of range. */
    all_ops_fail(shoal_gptr_setunit(target, t_np), SHOAL_ERR_UNIT, "unit nunits");
    all_ops_fail(shoal_gptr_setunit(target, -1), SHOAL_ERR_UNIT, "unit -1");
    all_ops_fail(shoal_gptr_setunit(target, t_np + 1000), SHOAL_ERR_UNIT, "unit nunits+1000");
    EXPECT(SHOAL_ERR_UNIT, shoal_flush(shoal_gptr_setunit(target, t_np)));

    /* A unit that is not a member of the allocation's team: a team of unit 0 alone. */
    if (t_np >= 2) {
        shoal_team_t solo = SHOAL_TEAM_NULL;
        CHECK_OK(shoal_team_split(SHOAL_TEAM_ALL, t_me == 0 ? 0 : SHOAL_UNDEFINED, &solo));
        if (t_me == 0) {
            shoal_gptr_t s = SHOAL_GPTR_NULL;
            CHECK_OK(shoal_team_memalloc(solo, 64, &s));
            all_ops_fail(shoal_gptr_setunit(s, 1), SHOAL_ERR_UNIT, "unit outside the team");
            shoal_unit_t rel = -5;
            EXPECT(SHOAL_ERR_UNIT, shoal_team_unit_g2l(solo, 1, &rel));
            CHECK(rel == -5, "failed g2l wrote its output");
            CHECK_OK(shoal_team_memfree(s));
            CHECK_OK(shoal_team_destroy(&solo));
        }
    }
    check_targets("bad pointers");
}

/* ---- Bounds ---------------------------------------------------------------------------------- */
static void bounds(void) {
    /* Edges that are fine. */
    uint8_t b[16];
    CHECK_OK(shoal_get(b, shoal_gptr_add(target, SZ - 8), 8));
    CHECK_PATTERN(b, 8, 3, (uint64_t)test_right(), SZ - 8, "last 8 bytes of the right part");
    CHECK_OK(shoal_get(b, shoal_gptr_add(shoal_gptr_setunit(small, test_right()), SMALL - 8), 8));
    CHECK_PATTERN(b, 8, 4, (uint64_t)test_right(), SMALL - 8, "last 8 bytes of a small part");

    struct {
        shoal_gptr_t gp;
        size_t n;
        const char *what;
    } cases[] = {
        {shoal_gptr_add(target, SZ - 4), 8, "straddling the end"},
        {shoal_gptr_add(target, SZ), 1, "at the end"},
        {shoal_gptr_add(target, SZ + 100), 8, "past the end"},
        {shoal_gptr_add(target, 1 << 20), 8, "1 MiB past the end"},
        {target, SZ + 1, "one byte too long"},
        {shoal_gptr_add(target, (int64_t)(UINT64_MAX - 1)), 8, "offset UINT64_MAX-1"},
        {shoal_gptr_add(target, -8), 8, "offset -8"},
        {shoal_gptr_add(target, 8), SIZE_MAX - 4, "size near SIZE_MAX"},
        {shoal_gptr_add(shoal_gptr_setunit(small, test_right()), SMALL - 4), 8,
         "past the end of a 1000-byte allocation"},
        {shoal_gptr_add(shoal_gptr_setunit(small, test_right()), SMALL), 8,
         "at the end of a 1000-byte allocation"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = cases[i].n;
        shoal_handle_t h = SHOAL_HANDLE_NULL;
        shoal_err_t e;
        e = shoal_put(cases[i].gp, lbuf, n);
        CHECK(e == SHOAL_ERR_BOUNDS, "put %s returned %s", cases[i].what, shoal_strerror(e));
        e = shoal_get(lbuf, cases[i].gp, n);
        CHECK(e == SHOAL_ERR_BOUNDS, "get %s returned %s", cases[i].what, shoal_strerror(e));
        e = shoal_put_nb(cases[i].gp, lbuf, n, &h);
        CHECK(e == SHOAL_ERR_BOUNDS && h == SHOAL_HANDLE_NULL, "put_nb %s returned %s",
              cases[i].what, shoal_strerror(e));
        e = shoal_get_nb(lbuf, cases[i].gp, n, &h);
        CHECK(e == SHOAL_ERR_BOUNDS && h == SHOAL_HANDLE_NULL, "get_nb %s returned %s",
              cases[i].what, shoal_strerror(e));
        e = shoal_put_signal(cases[i].gp, lbuf, n, target, 1, SHOAL_SIGNAL_ADD);
        CHECK(e == SHOAL_ERR_BOUNDS, "put_signal %s returned %s", cases[i].what, shoal_strerror(e));
    }
    /* Atomics reaching past the end, and a signal word past the end. */
    int64_t v = 1, r = 0x7777;
    EXPECT(SHOAL_ERR_BOUNDS,
           shoal_atomic_fetch_op(shoal_gptr_add(target, SZ), SHOAL_OP_SUM, SHOAL_INT64, &v, &r));
    EXPECT(SHOAL_ERR_BOUNDS,
           shoal_atomic_op(shoal_gptr_add(target, SZ + 64), SHOAL_OP_SUM, SHOAL_INT64, &v));
    EXPECT(SHOAL_ERR_BOUNDS,
           shoal_atomic_load(shoal_gptr_add(target, (int64_t)(UINT64_MAX - 7)), SHOAL_INT64, &r));
    EXPECT(SHOAL_ERR_BOUNDS, shoal_atomic_cas(shoal_gptr_add(target, SZ), SHOAL_INT64, &v, &v, &r));
    EXPECT(SHOAL_ERR_BOUNDS, shoal_signal(shoal_gptr_add(target, SZ), 1, SHOAL_SIGNAL_SET));
    EXPECT(SHOAL_ERR_BOUNDS,
           shoal_put_signal(target, lbuf, 8, shoal_gptr_add(target, SZ), 1, SHOAL_SIGNAL_SET));
    CHECK(r == 0x7777, "a failed atomic wrote its result");
    /* Strided: the last element past the end; a negative stride below the start. */
    EXPECT(SHOAL_ERR_BOUNDS, shoal_put_strided(target, SZ / 2, lbuf, 8, 8, 3));
    EXPECT(SHOAL_ERR_BOUNDS, shoal_get_strided(lbuf, 8, target, SZ / 2, 8, 3));
    /* (Shoal refuses strides below the element size, negative ones included, as INVAL.) */
    EXPECT2(SHOAL_ERR_BOUNDS, SHOAL_ERR_INVAL,
            shoal_put_strided(shoal_gptr_add(target, 64), -64, lbuf, 8, 8, 3));
    EXPECT2(SHOAL_ERR_BOUNDS, SHOAL_ERR_INVAL,
            shoal_get_strided(lbuf, 8, shoal_gptr_add(target, 64), -64, 8, 3));
    EXPECT(SHOAL_ERR_BOUNDS, shoal_put_strided(target, 16, lbuf, 16, 16, SZ / 16 + 1));
    EXPECT(SHOAL_ERR_BOUNDS, shoal_get_strided(lbuf, 16, target, 16, 16, SZ / 16 + 1));
    /* A span whose size overflows. */
    EXPECT(SHOAL_ERR_BOUNDS, shoal_put_strided(target, PTRDIFF_MAX, lbuf, 8, 8, 3));
    /* Misaligned atomics and signal words. */
    EXPECT(SHOAL_ERR_ALIGN,
           shoal_atomic_op(shoal_gptr_add(target, 4), SHOAL_OP_SUM, SHOAL_INT64, &v));
    EXPECT(SHOAL_ERR_ALIGN,
           shoal_atomic_fetch_op(shoal_gptr_add(target, 1), SHOAL_OP_SUM, SHOAL_INT64, &v, &r));
    int32_t v32 = 1, r32 = 0x777;
    EXPECT(SHOAL_ERR_ALIGN,
           shoal_atomic_fetch_op(shoal_gptr_add(target, 2), SHOAL_OP_SUM, SHOAL_INT32, &v32, &r32));
    EXPECT(SHOAL_ERR_ALIGN, shoal_atomic_load(shoal_gptr_add(target, 3), SHOAL_INT64, &r));
    EXPECT(SHOAL_ERR_ALIGN, shoal_signal(shoal_gptr_add(target, 4), 1, SHOAL_SIGNAL_ADD));
    CHECK(r == 0x7777 && r32 == 0x777, "a failed atomic wrote its result");
    /* getaddr far past the end. */
    void *a = &v;
    EXPECT(SHOAL_ERR_BOUNDS, shoal_gptr_getaddr(shoal_gptr_add(sym, SZ + 4096), &a));
    CHECK(a == &v, "failed getaddr wrote its output");

    /* Pool blocks: Shoal bounds-checks remote pool accesses against the target's whole pool. */
    size_t total = 0, fr = 0;
    CHECK_OK(shoal_pool_info(&total, &fr));
    shoal_gptr_t blk = SHOAL_GPTR_NULL;
    if (CHECK_OK(shoal_memalloc(64, &blk))) {
        shoal_gptr_t end = shoal_gptr_setunit(blk, test_right());
        end.offset = total;
        EXPECT(SHOAL_ERR_BOUNDS, shoal_put(end, lbuf, 8));
        end.offset = total - 4;
        EXPECT(SHOAL_ERR_BOUNDS, shoal_put(end, lbuf, 8));
        EXPECT(SHOAL_ERR_BOUNDS, shoal_get(lbuf, end, 8));
        end.offset = UINT64_MAX - 1;
        EXPECT(SHOAL_ERR_BOUNDS, shoal_get(lbuf, end, 8));
        CHECK_OK(shoal_memfree(blk));
    }
    check_locals("bounds");
    check_targets("bounds");
}

/* ---- NULL buffers, NULL outputs, bad enums -----------------------------------------------------
 */
static void bad_arguments(void) {
    shoal_handle_t h = SHOAL_HANDLE_NULL;
    int64_t v = 1, r = 0x7777;
    EXPECT(SHOAL_ERR_INVAL, shoal_put(target, NULL, 8));
    EXPECT(SHOAL_ERR_INVAL, shoal_get(NULL, target, 8));
    EXPECT(SHOAL_ERR_INVAL, shoal_put_nb(target, NULL, 8, &h));
    EXPECT(SHOAL_ERR_INVAL, shoal_get_nb(NULL, target, 8, &h));
    EXPECT(SHOAL_ERR_INVAL, shoal_put_nb(target, lbuf, 8, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_get_nb(lbuf, target, 8, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_put_strided(target, 16, NULL, 8, 8, 2));
    EXPECT(SHOAL_ERR_INVAL, shoal_get_strided(NULL, 8, target, 16, 8, 2));
    EXPECT(SHOAL_ERR_INVAL,
           shoal_put_signal(target, NULL, 8, shoal_gptr_add(target, 64), 1, SHOAL_SIGNAL_SET));
    EXPECT(SHOAL_ERR_INVAL, shoal_atomic_op(target, SHOAL_OP_SUM, SHOAL_INT64, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_atomic_fetch_op(target, SHOAL_OP_SUM, SHOAL_INT64, &v, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_atomic_fetch_op(target, SHOAL_OP_SUM, SHOAL_INT64, NULL, &r));
    EXPECT(SHOAL_ERR_INVAL, shoal_atomic_swap(target, SHOAL_INT64, NULL, &r));
    EXPECT(SHOAL_ERR_INVAL, shoal_atomic_cas(target, SHOAL_INT64, NULL, &v, &r));
    EXPECT(SHOAL_ERR_INVAL, shoal_atomic_cas(target, SHOAL_INT64, &v, &v, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_atomic_load(target, SHOAL_INT64, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_atomic_store(target, SHOAL_INT64, NULL));
    /* Bad enum values and combinations. */
    EXPECT(SHOAL_ERR_INVAL, shoal_atomic_op(target, SHOAL_OP_SUM, (shoal_dtype_t)99, &v));
    EXPECT(SHOAL_ERR_INVAL, shoal_atomic_op(target, (shoal_amo_op_t)99, SHOAL_INT64, &v));
    EXPECT(SHOAL_ERR_INVAL, shoal_atomic_fetch_op(target, (shoal_amo_op_t)-1, SHOAL_INT64, &v, &r));
    double d = 1.0, dr = 0;
    EXPECT(SHOAL_ERR_INVAL, shoal_atomic_op(target, SHOAL_OP_BAND, SHOAL_DOUBLE, &d));
    EXPECT(SHOAL_ERR_INVAL, shoal_atomic_fetch_op(target, SHOAL_OP_BXOR, SHOAL_DOUBLE, &d, &dr));
    EXPECT(SHOAL_ERR_INVAL, shoal_atomic_cas(target, SHOAL_DOUBLE, &d, &d, &dr));
    EXPECT(SHOAL_ERR_INVAL, shoal_signal(target, 1, (shoal_signal_op_t)7));
    EXPECT(SHOAL_ERR_INVAL,
           shoal_put_signal(target, lbuf, 8, shoal_gptr_add(target, 64), 1, (shoal_signal_op_t)7));
    uint64_t seen = 0x99;
    shoal_gptr_t mysig = shoal_gptr_add(sym, 64);
    EXPECT(SHOAL_ERR_INVAL, shoal_signal_wait_until(mysig, (shoal_cmp_t)99, 0, &seen));
    EXPECT(SHOAL_ERR_INVAL, shoal_signal_read(mysig, NULL));
    CHECK(r == 0x7777 && dr == 0 && seen == 0x99, "a failed call wrote its output");
    /* Waiting on another unit's signal word is not allowed (and must not hang). */
    if (t_np > 1) EXPECT_FAIL(shoal_signal_wait_until(target, SHOAL_CMP_EQ, 12345, &seen));
    check_locals("NULL buffers");

    /* NULL outputs. */
    EXPECT(SHOAL_ERR_INVAL, shoal_myid(NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_size(NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_node_size(NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_node_units(NULL, 1));
    EXPECT(SHOAL_ERR_INVAL, shoal_team_size(SHOAL_TEAM_ALL, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_team_myid(SHOAL_TEAM_ALL, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_team_parent(SHOAL_TEAM_ALL, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_team_unit_l2g(SHOAL_TEAM_ALL, 0, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_team_unit_g2l(SHOAL_TEAM_ALL, 0, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_team_get_group(SHOAL_TEAM_ALL, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_team_destroy(NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_memalloc(64, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_gptr_getaddr(sym, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_gptr_from_addr(lbuf, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_peer_mechanism(0, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_config_var(0, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_wait(NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_test(NULL, NULL));
    h = SHOAL_HANDLE_NULL;
    EXPECT(SHOAL_ERR_INVAL, shoal_test(&h, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_waitall(NULL, 2));
    EXPECT(SHOAL_ERR_INVAL, shoal_group_create(NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_lock_acquire(NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_lock_release(NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_lock_try_acquire(NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_lock_destroy(NULL));
    shoal_config_var_t var;
    EXPECT(SHOAL_ERR_INVAL, shoal_config_var(-1, &var));
    EXPECT(SHOAL_ERR_INVAL, shoal_config_var(shoal_config_count(), &var));
    shoal_mechanism_t m = (shoal_mechanism_t)77;
    EXPECT(SHOAL_ERR_UNIT, shoal_peer_mechanism(t_np, &m));
    EXPECT(SHOAL_ERR_UNIT, shoal_peer_mechanism(-1, &m));
    CHECK(m == (shoal_mechanism_t)77, "failed peer_mechanism wrote its output");
    CHECK(shoal_strerror((shoal_err_t)999) != NULL, "strerror(999) is NULL");
    CHECK(shoal_mechanism_name((shoal_mechanism_t)99) != NULL, "mechanism_name(99) is NULL");
    /* A local address that is not in any allocation. */
    shoal_gptr_t gp = {9, 9, 9, 9};
    EXPECT2(SHOAL_ERR_GPTR, SHOAL_ERR_INVAL, shoal_gptr_from_addr(lbuf, &gp));
    CHECK(gp.segid == 9 && gp.unit == 9, "failed gptr_from_addr wrote its output");
    /* Collective calls with a NULL output fail on every unit without communicating. */
    EXPECT(SHOAL_ERR_INVAL, shoal_team_memalloc(SHOAL_TEAM_ALL, 64, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_team_split(SHOAL_TEAM_ALL, 0, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_team_node(SHOAL_TEAM_ALL, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_lock_create(SHOAL_TEAM_ALL, NULL));
    shoal_group_t g = NULL;
    CHECK_OK(shoal_group_create(&g));
    EXPECT(SHOAL_ERR_INVAL, shoal_team_create(SHOAL_TEAM_ALL, g, NULL));
    shoal_team_t t = -5;
    EXPECT(SHOAL_ERR_INVAL, shoal_team_create(SHOAL_TEAM_ALL, NULL, &t));
    CHECK(t == -5, "failed team_create wrote its output");
    CHECK_OK(shoal_group_destroy(&g));
    check_locals("NULL outputs");
    check_targets("NULL buffers and outputs");
}

/* ---- Teams and groups ------------------------------------------------------------------------ */
static void bad_teams(void) {
    shoal_team_t bad[] = {12345, SHOAL_TEAM_NULL, -7, INT32_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        shoal_team_t b = bad[i];
        int32_t s = -5;
        shoal_unit_t u = -5;
        shoal_team_t t = -5;
        shoal_gptr_t gp = {9, 9, 9, 9};
        shoal_group_t g = NULL;
        shoal_lock_t l = NULL;
        EXPECT(SHOAL_ERR_TEAM, shoal_team_size(b, &s));
        EXPECT(SHOAL_ERR_TEAM, shoal_team_myid(b, &u));
        EXPECT(SHOAL_ERR_TEAM, shoal_team_parent(b, &t));
        EXPECT(SHOAL_ERR_TEAM, shoal_team_unit_l2g(b, 0, &u));
        EXPECT(SHOAL_ERR_TEAM, shoal_team_unit_g2l(b, 0, &u));
        EXPECT(SHOAL_ERR_TEAM, shoal_team_get_group(b, &g));
        EXPECT(SHOAL_ERR_TEAM, shoal_team_memalloc(b, 64, &gp));
        EXPECT(SHOAL_ERR_TEAM, shoal_barrier(b));
        EXPECT(SHOAL_ERR_TEAM, shoal_lock_create(b, &l));
        EXPECT(SHOAL_ERR_TEAM, shoal_team_split(b, 0, &t));
        EXPECT(SHOAL_ERR_TEAM, shoal_team_node(b, &t));
        CHECK(s == -5 && u == -5 && t == -5 && g == NULL && l == NULL && gp.segid == 9,
              "a call on bad team %d wrote its output", b);
        shoal_group_t grp = NULL;
        CHECK_OK(shoal_group_create(&grp));
        CHECK_OK(shoal_group_add_member(grp, 0));
        EXPECT(SHOAL_ERR_TEAM, shoal_team_create(b, grp, &t));
        CHECK_OK(shoal_group_destroy(&grp));
        shoal_team_t d = b;
        EXPECT(SHOAL_ERR_TEAM, shoal_team_destroy(&d));
        CHECK(d == b, "failed team_destroy changed the id");
    }
    /* A destroyed team. */
    shoal_team_t t = SHOAL_TEAM_NULL, old;
    CHECK_OK(shoal_team_split(SHOAL_TEAM_ALL, 1, &t));
    old = t;
    CHECK_OK(shoal_team_destroy(&t));
    CHECK(t == SHOAL_TEAM_NULL, "team_destroy did not reset the id");
    int32_t s = -5;
    shoal_gptr_t gp = {9, 9, 9, 9};
    EXPECT(SHOAL_ERR_TEAM, shoal_team_size(old, &s));
    EXPECT(SHOAL_ERR_TEAM, shoal_barrier(old));
    EXPECT(SHOAL_ERR_TEAM, shoal_team_memalloc(old, 64, &gp));
    t = old;
    EXPECT(SHOAL_ERR_TEAM, shoal_team_destroy(&t));
    CHECK(s == -5 && gp.segid == 9, "a call on a destroyed team wrote its output");
    /* The all team cannot be destroyed. */
    t = SHOAL_TEAM_ALL;
    EXPECT_FAIL(shoal_team_destroy(&t));
    CHECK(t == SHOAL_TEAM_ALL, "failed destroy of TEAM_ALL changed the id");
    CHECK_OK(shoal_team_size(SHOAL_TEAM_ALL, &s));
    CHECK(s == t_np, "TEAM_ALL has size %d after a destroy attempt", s);

    /* Unit ids out of range in team and group calls. */
    shoal_unit_t u = -5;
    EXPECT(SHOAL_ERR_UNIT, shoal_team_unit_l2g(SHOAL_TEAM_ALL, t_np, &u));
    EXPECT(SHOAL_ERR_UNIT, shoal_team_unit_l2g(SHOAL_TEAM_ALL, -1, &u));
    EXPECT(SHOAL_ERR_UNIT, shoal_team_unit_g2l(SHOAL_TEAM_ALL, t_np, &u));
    EXPECT(SHOAL_ERR_UNIT, shoal_team_unit_g2l(SHOAL_TEAM_ALL, -1, &u));
    CHECK(u == -5, "a failed l2g/g2l wrote its output");
    shoal_group_t g = NULL;
    CHECK_OK(shoal_group_create(&g));
    CHECK_OK(shoal_group_add_member(g, 0));
    EXPECT(SHOAL_ERR_UNIT, shoal_group_add_member(g, t_np));
    EXPECT(SHOAL_ERR_UNIT, shoal_group_add_member(g, -1));
    EXPECT(SHOAL_ERR_UNIT, shoal_group_remove_member(g, t_np));
    EXPECT(SHOAL_ERR_UNIT, shoal_group_remove_member(g, -1));
    if (t_np > 1) EXPECT(SHOAL_ERR_UNIT, shoal_group_remove_member(g, 1)); /* absent */
    int is = 7;
    EXPECT(SHOAL_ERR_UNIT, shoal_group_is_member(g, t_np, &is));
    CHECK(is == 7, "failed is_member wrote its output");
    int32_t gs = -5;
    CHECK_OK(shoal_group_size(g, &gs));
    CHECK(gs == 1, "group has %d members after failed calls, expected 1", gs);
    EXPECT(SHOAL_ERR_INVAL, shoal_group_size(g, NULL));
    EXPECT(SHOAL_ERR_INVAL, shoal_group_size(NULL, &gs));
    /* A group naming a unit outside the parent team: unit 0 alone, adding unit 1. */
    if (t_np >= 2) {
        shoal_team_t solo = SHOAL_TEAM_NULL;
        CHECK_OK(shoal_team_split(SHOAL_TEAM_ALL, t_me == 0 ? 0 : SHOAL_UNDEFINED, &solo));
        if (t_me == 0) {
            CHECK_OK(shoal_group_add_member(g, 1));
            shoal_team_t nt = -5;
            EXPECT_FAIL(shoal_team_create(solo, g, &nt));
            CHECK(nt == -5, "failed team_create wrote its output");
            CHECK_OK(shoal_team_destroy(&solo));
        }
    }
    CHECK_OK(shoal_group_destroy(&g));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
}

/* ---- Frees ----------------------------------------------------------------------------------- */
static void bad_frees(void) {
    size_t total = 0, free0 = 0, f = 0;
    CHECK_OK(shoal_pool_info(&total, &free0));
    /* Double free of a pool block. */
    shoal_gptr_t b = SHOAL_GPTR_NULL;
    CHECK_OK(shoal_memalloc(256, &b));
    CHECK_OK(shoal_memfree(b));
    EXPECT2(SHOAL_ERR_STATE, SHOAL_ERR_GPTR, shoal_memfree(b));
    EXPECT(SHOAL_ERR_GPTR, shoal_memfree(SHOAL_GPTR_NULL));
    /* A pointer into the middle of a block. */
    CHECK_OK(shoal_memalloc(256, &b));
    EXPECT_FAIL(shoal_memfree(shoal_gptr_add(b, 64)));
    CHECK_OK(shoal_memfree(b));
    /* Pool blocks are not collective allocations and vice versa. */
    CHECK_OK(shoal_memalloc(256, &b));
    EXPECT_FAIL(shoal_memfree(sym));
    EXPECT_FAIL(shoal_team_memfree(b)); /* every unit does this: fails locally */
    void *a = NULL;
    CHECK_OK(shoal_gptr_getaddr(sym, &a));
    if (a) CHECK_PATTERN(a, SZ, 3, (uint64_t)t_me, 0, "sym after a bad shoal_memfree");

    /* Another unit's block: the owner publishes its pointer in a symmetric slot; the left
     * neighbour tries to free it. */
    shoal_gptr_t exch = SHOAL_GPTR_NULL;
    CHECK_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, sizeof(shoal_gptr_t), &exch));
    shoal_gptr_t *slot = NULL;
    CHECK_OK(shoal_gptr_getaddr(exch, (void **)&slot));
    void *ba = NULL;
    CHECK_OK(shoal_gptr_getaddr(b, &ba));
    if (ba) fill_pattern(ba, 256, 5, (uint64_t)t_me, 0);
    if (slot) *slot = b;
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    shoal_gptr_t rb = SHOAL_GPTR_NULL;
    CHECK_OK(shoal_get(&rb, shoal_gptr_setunit(exch, test_right()), sizeof rb));
    if (t_np > 1) EXPECT_FAIL(shoal_memfree(rb));
    if (t_np > 1) EXPECT_FAIL(shoal_memfree(shoal_gptr_setunit(b, test_right())));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    /* My block survived: intact, and freeing it works once. */
    if (ba)
        CHECK_PATTERN(ba, 256, 5, (uint64_t)t_me, 0, "pool block after others tried to free it");
    CHECK_OK(shoal_memfree(b));
    CHECK_OK(shoal_pool_info(&total, &f));
    CHECK(f == free0, "pool: %zu bytes free after the bad frees, %zu before", f, free0);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_team_memfree(exch));
}

/* ---- Locks in a wrong state ------------------------------------------------------------------ */
static void bad_locks(void) {
    shoal_lock_t l = NULL;
    CHECK_OK(shoal_lock_create(SHOAL_TEAM_ALL, &l));
    EXPECT(SHOAL_ERR_STATE, shoal_lock_release(l)); /* not held */
    CHECK_OK(shoal_lock_acquire(l));
    CHECK_OK(shoal_lock_release(l));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_lock_destroy(&l));
}

/* ---- Handles --------------------------------------------------------------------------------- */
static void handles(void) {
    shoal_handle_t h = SHOAL_HANDLE_NULL;
    CHECK_OK(shoal_wait(&h)); /* a NULL handle is complete */
    int done = -1;
    CHECK_OK(shoal_test(&h, &done));
    CHECK(done == 1, "test of a NULL handle says %d", done);
    shoal_handle_t hs[3] = {SHOAL_HANDLE_NULL, SHOAL_HANDLE_NULL, SHOAL_HANDLE_NULL};
    CHECK_OK(shoal_waitall(hs, 3));
    /* A real one, waited twice: the second wait sees NULL. */
    uint8_t in[64];
    CHECK_OK(shoal_get_nb(in, target, 64, &h));
    CHECK_OK(shoal_wait(&h));
    CHECK(h == SHOAL_HANDLE_NULL, "wait did not reset the handle");
    CHECK_OK(shoal_wait(&h));
    CHECK_PATTERN(in, 64, 3, (uint64_t)test_right(), 0, "get_nb");
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    before_init();
    test_begin(&argc, &argv);
    double t0 = test_now();
    CHECK(shoal_initialized() == 1, "shoal_initialized() is 0 after shoal_init");
    EXPECT(SHOAL_ERR_STATE, shoal_init(&argc, &argv));
    EXPECT(SHOAL_ERR_STATE, shoal_init(NULL, NULL));
    CHECK(shoal_initialized() == 1, "a second shoal_init changed the state");

    fill_pattern(lbuf, LB, 1, (uint64_t)t_me, 0);
    fill_pattern(lbuf2, LB, 2, (uint64_t)t_me, 0);
    CHECK_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, SZ, &sym));
    CHECK_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, SMALL, &small));
    void *a = NULL;
    if (CHECK_OK(shoal_gptr_getaddr(sym, &a)) && CHECK(a != NULL, "own part not mapped"))
        fill_pattern(a, SZ, 3, (uint64_t)t_me, 0);
    if (CHECK_OK(shoal_gptr_getaddr(small, &a)) && CHECK(a != NULL, "own part not mapped"))
        fill_pattern(a, SMALL, 4, (uint64_t)t_me, 0);
    target = shoal_gptr_setunit(sym, test_right());
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    bad_pointers();
    bounds();
    bad_arguments();
    bad_teams();
    bad_frees();
    bad_locks();
    handles();
    check_locals("all cases");
    check_targets("all cases");
    CHECK_OK(shoal_team_memfree(small));
    CHECK_OK(shoal_team_memfree(sym));
    double dt = test_now() - t0;

    /* Like test_end, but with checks after shoal_finalize (MPI is gone then, so those are
     * reported by each unit on its own, in its exit code). */
    long total = 0;
    MPI_Allreduce(&t_failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    shoal_unit_t me = t_me;
    CHECK_OK(shoal_finalize());
    alarm(0);
    long before = t_failures;
    CHECK(shoal_initialized() == 0, "shoal_initialized() is 1 after shoal_finalize");
    uint8_t b[8] = {0};
    shoal_unit_t u = -5;
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_put(target, b, 8));
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_get(b, target, 8));
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_myid(&u));
    CHECK(u == -5, "myid wrote its output after finalize");
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_barrier(SHOAL_TEAM_ALL));
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_team_memalloc(SHOAL_TEAM_ALL, 64, &sym));
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_memalloc(64, &sym));
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_team_memfree(small));
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_flush_all());
    EXPECT(SHOAL_ERR_NOT_INIT, shoal_finalize());
    EXPECT_FAIL(shoal_init(NULL, NULL)); /* once per process */
    CHECK(shoal_initialized() == 0, "shoal_initialized() is 1 after a refused init");
    long after = t_failures - before;
    if (me == 0 || after) {
        printf("test_errors: %d units, %.2f s\n", t_np, dt);
        printf("test_errors: %s\n", total || after ? "FAILED" : "OK");
    }
    return total || after ? 1 : 0;
}
