/* Bad-input matrix: a table of (function, kind of bad argument, call, expected code). For every
 * row, on every unit: the call returns the expected shoal_err_t, prints exactly one line
 * "shoal: unit U: CALL: reason" on stderr (captured around the call), writes no output, and
 * afterwards (after a barrier) every byte of the target memory is unchanged: a symmetric
 * allocation, a pool block and the collectives' buffers, each filled with a known pattern.
 *
 * Every unit runs every row in the same order, so collective rows line up. Rows marked "one unit"
 * pass the bad argument on the last unit only (or different arguments on different units): the
 * README promises that those fail on every unit, for creation calls always and for data
 * collectives in checked mode, which this program switches on (SHOAL_CHECK_COLLECTIVES=1 unless
 * the environment says otherwise). Calls before shoal_init and after shoal_finalize are in
 * test_bad_input_lifecycle.c (MPI starts once per process).
 *
 * The codes are those shoal.h documents; rows whose code shoal.h does not pin down say "(impl)"
 * in their kind and check the code the implementation gives (always a failure). */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "testlib.h"

#define SZ   4096 /* the symmetric allocation */
#define PB   256  /* the pool block */
#define CB   4096 /* each collective buffer */
#define SKIP ((shoal_err_t)-100)

typedef struct {
    const char *fn;   /* the public call, as its message names it */
    const char *kind; /* the bad argument */
    shoal_err_t (*call)(void);
    shoal_err_t want;
} bad_case_t;

/* ---- Fixtures --------------------------------------------------------------------------------
 */
static uint8_t lbuf[SZ];                       /* local source/destination (pattern 1) */
static shoal_gptr_t sym, right;                /* SZ bytes everywhere; right = my right's part */
static shoal_gptr_t blk;                       /* my pool block, PB bytes */
static shoal_gptr_t cd, cs;                    /* collective dest/src, CB bytes each */
static shoal_gptr_t freed, freed_blk, dead_gp; /* freed allocation, freed block, dead team's */
static shoal_team_t dead_team = SHOAL_TEAM_NULL, solo = SHOAL_TEAM_NULL;
static shoal_gptr_t solo_gp; /* an allocation of the team of unit 0 alone (on unit 0) */
static shoal_group_t grp, dead_grp;
static shoal_lock_t lock, dead_lock;
static shoal_handle_t stale_h; /* a completed handle's copy (MPI path only) */
static const shoal_group_t garbage_grp = (shoal_group_t)(uintptr_t)0x1234567;
static const shoal_lock_t garbage_lock = (shoal_lock_t)(uintptr_t)0xdeadbee8;
static const shoal_handle_t garbage_h = (shoal_handle_t)(uintptr_t)0x5A5A0;
static const char *g_wrote; /* set by a case that finds one of its outputs written */

static int last(void) {
    return t_me == t_np - 1;
}
/* An output of a failing call must keep its sentinel. */
#define SAME(cond)                                                                                 \
    do {                                                                                           \
        if (!(cond)) g_wrote = #cond;                                                              \
    } while (0)
#define BAD(name, expr)                                                                            \
    static shoal_err_t name(void) {                                                                \
        return (expr);                                                                             \
    }

static shoal_gptr_t at(shoal_gptr_t gp, int64_t off) {
    return shoal_gptr_add(gp, off);
}
static shoal_gptr_t unit_gp(shoal_gptr_t gp, shoal_unit_t u) {
    return shoal_gptr_setunit(gp, u);
}
static shoal_gptr_t bad_segid(void) {
    shoal_gptr_t g = right;
    g.segid = 0x7FF3;
    return g;
}
static shoal_gptr_t bad_gen(void) {
    shoal_gptr_t g = right;
    g.flags ^= 0x100;
    return g;
}

/* ---- Environment ----------------------------------------------------------------------------- */
BAD(myid_null, shoal_myid(NULL))
BAD(size_null, shoal_size(NULL))
BAD(node_size_null, shoal_node_size(NULL))
BAD(node_units_null, shoal_node_units(NULL, 64))
static shoal_err_t node_units_small(int32_t count) {
    shoal_unit_t u[1] = {-5};
    shoal_err_t e = shoal_node_units(u, count);
    SAME(u[0] == -5);
    return e;
}
BAD(node_units_zero, node_units_small(0))
BAD(node_units_neg, node_units_small(-1))
BAD(init_twice, shoal_init(NULL, NULL))

/* ---- Groups ---------------------------------------------------------------------------------- */
static shoal_err_t clone_of(shoal_group_t g, int null_out) {
    shoal_group_t c = NULL;
    shoal_err_t e = shoal_group_clone(g, null_out ? NULL : &c);
    SAME(c == NULL);
    return e;
}
BAD(g_create_null, shoal_group_create(NULL))
BAD(g_clone_null, clone_of(NULL, 0))
BAD(g_clone_dead, clone_of(dead_grp, 0))
BAD(g_clone_garbage, clone_of(garbage_grp, 0))
BAD(g_clone_out, clone_of(grp, 1))
static shoal_err_t destroy_of(shoal_group_t g) {
    shoal_group_t c = g;
    shoal_err_t e = shoal_group_destroy(&c);
    SAME(c == g);
    return e;
}
BAD(g_destroy_nullptr, shoal_group_destroy(NULL))
BAD(g_destroy_null, destroy_of(NULL))
BAD(g_destroy_twice, destroy_of(dead_grp))
BAD(g_destroy_garbage, destroy_of(garbage_grp))
BAD(g_add_big, shoal_group_add_member(grp, t_np))
BAD(g_add_neg, shoal_group_add_member(grp, -1))
BAD(g_add_dead, shoal_group_add_member(dead_grp, 0))
BAD(g_add_null, shoal_group_add_member(NULL, 0))
BAD(g_add_garbage, shoal_group_add_member(garbage_grp, 0))
BAD(g_rm_big, shoal_group_remove_member(grp, t_np))
BAD(g_rm_absent, t_np < 2 ? SKIP : shoal_group_remove_member(grp, 1))
BAD(g_rm_dead, shoal_group_remove_member(dead_grp, 0))
BAD(g_rm_null, shoal_group_remove_member(NULL, 0))
static shoal_err_t binop(int isect, shoal_group_t a, shoal_group_t b, int null_out) {
    shoal_group_t o = NULL, *out = null_out ? NULL : &o;
    shoal_err_t e = isect ? shoal_group_intersect(a, b, out) : shoal_group_union(a, b, out);
    SAME(o == NULL);
    return e;
}
BAD(g_union_dead, binop(0, grp, dead_grp, 0))
BAD(g_union_null, binop(0, NULL, grp, 0))
BAD(g_union_garbage, binop(0, grp, garbage_grp, 0))
BAD(g_union_out, binop(0, grp, grp, 1))
BAD(g_isect_dead, binop(1, dead_grp, grp, 0))
BAD(g_isect_null, binop(1, grp, NULL, 0))
BAD(g_isect_garbage, binop(1, garbage_grp, grp, 0))
BAD(g_isect_out, binop(1, grp, grp, 1))
static shoal_err_t split_of(shoal_group_t g, int32_t n, int null_parts) {
    shoal_group_t parts[2] = {NULL, NULL};
    shoal_err_t e = shoal_group_split(g, n, null_parts ? NULL : parts);
    SAME(parts[0] == NULL && parts[1] == NULL);
    return e;
}
BAD(g_split_zero, split_of(grp, 0, 0))
BAD(g_split_neg, split_of(grp, -3, 0))
BAD(g_split_null_parts, split_of(grp, 2, 1))
BAD(g_split_dead, split_of(dead_grp, 2, 0))
BAD(g_split_garbage, split_of(garbage_grp, 2, 0))
static shoal_err_t is_member_of(shoal_group_t g, shoal_unit_t u, int null_out) {
    int is = 7;
    shoal_err_t e = shoal_group_is_member(g, u, null_out ? NULL : &is);
    SAME(is == 7);
    return e;
}
BAD(g_is_big, is_member_of(grp, t_np, 0))
BAD(g_is_neg, is_member_of(grp, -1, 0))
BAD(g_is_out, is_member_of(grp, 0, 1))
BAD(g_is_dead, is_member_of(dead_grp, 0, 0))
static shoal_err_t gsize_of(shoal_group_t g, int null_out) {
    int32_t s = -5;
    shoal_err_t e = shoal_group_size(g, null_out ? NULL : &s);
    SAME(s == -5);
    return e;
}
BAD(g_size_dead, gsize_of(dead_grp, 0))
BAD(g_size_null, gsize_of(NULL, 0))
BAD(g_size_garbage, gsize_of(garbage_grp, 0))
BAD(g_size_out, gsize_of(grp, 1))
static shoal_err_t members_of(shoal_group_t g, int null_out) {
    shoal_unit_t u[8] = {-5};
    shoal_err_t e = shoal_group_members(g, null_out ? NULL : u);
    SAME(u[0] == -5);
    return e;
}
BAD(g_members_dead, members_of(dead_grp, 0))
BAD(g_members_null, members_of(NULL, 0))
BAD(g_members_out, members_of(grp, 1))

/* ---- Teams ----------------------------------------------------------------------------------- */
static shoal_err_t create_of(shoal_team_t parent, shoal_group_t g, int null_out) {
    shoal_team_t t = -5;
    shoal_err_t e = shoal_team_create(parent, g, null_out ? NULL : &t);
    SAME(t == -5);
    return e;
}
BAD(t_create_out, create_of(SHOAL_TEAM_ALL, grp, 1))
BAD(t_create_out_one, create_of(SHOAL_TEAM_ALL, grp, last()))
BAD(t_create_group_one, create_of(SHOAL_TEAM_ALL, last() ? NULL : grp, 0))
BAD(t_create_dead_group, create_of(SHOAL_TEAM_ALL, dead_grp, 0))
BAD(t_create_dead_team, create_of(dead_team, grp, 0))
BAD(t_create_bogus_team, create_of(12345, grp, 0))
static shoal_err_t create_mismatch(void) {
    if (t_np < 2) return SKIP;
    shoal_group_t g = NULL; /* {0, me}: a different group on every unit but 0 */
    if (shoal_group_clone(grp, &g) != SHOAL_OK || shoal_group_add_member(g, t_me) != SHOAL_OK)
        return SKIP;
    shoal_err_t e = create_of(SHOAL_TEAM_ALL, g, 0);
    shoal_group_destroy(&g);
    return e;
}
static shoal_err_t split_team(shoal_team_t parent, int colour, int null_out) {
    shoal_team_t t = -5;
    shoal_err_t e = shoal_team_split(parent, colour, null_out ? NULL : &t);
    SAME(t == -5);
    return e;
}
BAD(t_split_colour, split_team(SHOAL_TEAM_ALL, -7, 0))
BAD(t_split_colour_one, split_team(SHOAL_TEAM_ALL, last() ? -7 : 0, 0))
BAD(t_split_out, split_team(SHOAL_TEAM_ALL, 0, 1))
BAD(t_split_out_one, split_team(SHOAL_TEAM_ALL, 0, last()))
BAD(t_split_dead, split_team(dead_team, 0, 0))
BAD(t_split_null, split_team(SHOAL_TEAM_NULL, 0, 0))
static shoal_err_t node_team(shoal_team_t parent, int null_out) {
    shoal_team_t t = -5;
    shoal_err_t e = shoal_team_node(parent, null_out ? NULL : &t);
    SAME(t == -5);
    return e;
}
BAD(t_node_out, node_team(SHOAL_TEAM_ALL, 1))
BAD(t_node_out_one, node_team(SHOAL_TEAM_ALL, last()))
BAD(t_node_dead, node_team(dead_team, 0))
static shoal_err_t tdestroy(shoal_team_t team) {
    shoal_team_t t = team;
    shoal_err_t e = shoal_team_destroy(&t);
    SAME(t == team);
    return e;
}
BAD(t_destroy_nullptr, shoal_team_destroy(NULL))
BAD(t_destroy_twice, tdestroy(dead_team))
BAD(t_destroy_all, tdestroy(SHOAL_TEAM_ALL))
BAD(t_destroy_null, tdestroy(SHOAL_TEAM_NULL))
BAD(t_destroy_bogus, tdestroy(INT32_MAX))
/* The team queries: an int32 output each (l2g/g2l take a unit too). */
static shoal_err_t tquery(int which, shoal_team_t team, shoal_unit_t u, int null_out) {
    int32_t v = -5, *out = null_out ? NULL : &v;
    shoal_err_t e = SHOAL_OK;
    switch (which) {
    case 0:
        e = shoal_team_size(team, out);
        break;
    case 1:
        e = shoal_team_myid(team, out);
        break;
    case 2:
        e = shoal_team_parent(team, out);
        break;
    case 3:
        e = shoal_team_unit_l2g(team, u, out);
        break;
    default:
        e = shoal_team_unit_g2l(team, u, out);
        break;
    }
    SAME(v == -5);
    return e;
}
BAD(t_size_dead, tquery(0, dead_team, 0, 0))
BAD(t_size_null, tquery(0, SHOAL_TEAM_NULL, 0, 0))
BAD(t_size_out, tquery(0, SHOAL_TEAM_ALL, 0, 1))
BAD(t_myid_dead, tquery(1, dead_team, 0, 0))
BAD(t_myid_out, tquery(1, SHOAL_TEAM_ALL, 0, 1))
BAD(t_parent_bogus, tquery(2, -7, 0, 0))
BAD(t_parent_out, tquery(2, SHOAL_TEAM_ALL, 0, 1))
BAD(t_l2g_big, tquery(3, SHOAL_TEAM_ALL, t_np, 0))
BAD(t_l2g_neg, tquery(3, SHOAL_TEAM_ALL, -1, 0))
BAD(t_l2g_out, tquery(3, SHOAL_TEAM_ALL, 0, 1))
BAD(t_l2g_dead, tquery(3, dead_team, 0, 0))
BAD(t_g2l_big, tquery(4, SHOAL_TEAM_ALL, t_np, 0))
BAD(t_g2l_neg, tquery(4, SHOAL_TEAM_ALL, -1, 0))
BAD(t_g2l_out, tquery(4, SHOAL_TEAM_ALL, 0, 1))
BAD(t_g2l_dead, tquery(4, dead_team, 0, 0))
BAD(t_g2l_nonmember, t_me != 0 || t_np < 2 ? SKIP : tquery(4, solo, 1, 0))
static shoal_err_t get_group(shoal_team_t team, int null_out) {
    shoal_group_t g = NULL;
    shoal_err_t e = shoal_team_get_group(team, null_out ? NULL : &g);
    SAME(g == NULL);
    return e;
}
BAD(t_group_dead, get_group(dead_team, 0))
BAD(t_group_out, get_group(SHOAL_TEAM_ALL, 1))

/* ---- Global pointers ------------------------------------------------------------------------- */
static shoal_err_t getaddr(shoal_gptr_t gp, int null_out) {
    void *a = &a;
    shoal_err_t e = shoal_gptr_getaddr(gp, null_out ? NULL : &a);
    SAME(a == (void *)&a);
    return e;
}
BAD(ga_null, getaddr(SHOAL_GPTR_NULL, 0))
BAD(ga_freed, getaddr(freed, 0))
BAD(ga_segid, getaddr(bad_segid(), 0))
BAD(ga_gen, getaddr(bad_gen(), 0))
BAD(ga_unit, getaddr(unit_gp(sym, t_np), 0))
BAD(ga_end, getaddr(at(sym, SZ + 1), 0))
BAD(ga_out, getaddr(sym, 1))
static shoal_err_t from_addr(const void *p, int null_out) {
    shoal_gptr_t g = {9, 9, 9, 9};
    shoal_err_t e = shoal_gptr_from_addr(p, null_out ? NULL : &g);
    SAME(g.unit == 9 && g.segid == 9);
    return e;
}
static void *my_addr(shoal_gptr_t gp) {
    void *a = NULL;
    return shoal_gptr_getaddr(gp, &a) == SHOAL_OK ? a : NULL;
}
static void *freed_addr; /* where the freed allocation's part was */
BAD(fa_null, from_addr(NULL, 0))
BAD(fa_out, from_addr(lbuf, 1))
BAD(fa_foreign, from_addr(lbuf, 0))
BAD(fa_end, from_addr((char *)my_addr(sym) + SZ, 0))
BAD(fa_freed, freed_addr ? from_addr(freed_addr, 0) : SKIP)

/* ---- Memory ---------------------------------------------------------------------------------- */
static shoal_err_t tmalloc(shoal_team_t team, size_t n, int null_out) {
    shoal_gptr_t g = {9, 9, 9, 9};
    shoal_err_t e = shoal_team_memalloc(team, n, null_out ? NULL : &g);
    SAME(g.segid == 9);
    if (e == SHOAL_OK && !null_out) shoal_team_memfree(g); /* keep the units in step */
    return e;
}
BAD(tm_out, tmalloc(SHOAL_TEAM_ALL, 64, 1))
BAD(tm_out_one, tmalloc(SHOAL_TEAM_ALL, 64, last()))
BAD(tm_dead, tmalloc(dead_team, 64, 0))
BAD(tm_null_team, tmalloc(SHOAL_TEAM_NULL, 64, 0))
BAD(tm_sizes, t_np < 2 ? SKIP : tmalloc(SHOAL_TEAM_ALL, last() ? 128 : 64, 0))
BAD(tm_huge, tmalloc(SHOAL_TEAM_ALL, SIZE_MAX, 0))
BAD(tm_huge2, tmalloc(SHOAL_TEAM_ALL, (size_t)1 << 60, 0))
BAD(tm_huge_one, t_np < 2 ? SKIP : tmalloc(SHOAL_TEAM_ALL, last() ? (size_t)1 << 60 : 64, 0))
BAD(tf_null, shoal_team_memfree(SHOAL_GPTR_NULL))
BAD(tf_twice, shoal_team_memfree(freed))
BAD(tf_pool, shoal_team_memfree(blk))
BAD(tf_middle, shoal_team_memfree(at(sym, 64)))
BAD(tf_middle_one, shoal_team_memfree(last() ? at(sym, 64) : sym))
BAD(tf_mismatch, t_np < 2 ? SKIP : shoal_team_memfree(last() ? cd : cs))
BAD(tf_unit, shoal_team_memfree(unit_gp(sym, t_np)))
BAD(tf_dead_team, shoal_team_memfree(dead_gp))
static shoal_err_t pmalloc(size_t n, int null_out) {
    shoal_gptr_t g = {9, 9, 9, 9};
    shoal_err_t e = shoal_memalloc(n, null_out ? NULL : &g);
    SAME(g.segid == 9);
    if (e == SHOAL_OK && !null_out) shoal_memfree(g);
    return e;
}
BAD(pm_out, pmalloc(64, 1))
BAD(pm_huge, pmalloc(SIZE_MAX, 0))
BAD(pm_huge2, pmalloc((size_t)1 << 50, 0))
BAD(pf_null, shoal_memfree(SHOAL_GPTR_NULL))
BAD(pf_twice, shoal_memfree(freed_blk))
BAD(pf_middle, shoal_memfree(at(blk, 64)))
BAD(pf_sym, shoal_memfree(sym))
BAD(pf_other, t_np < 2 ? SKIP : shoal_memfree(unit_gp(blk, (t_me + 1) % t_np)))
BAD(pf_unit, shoal_memfree(unit_gp(blk, t_np)))
BAD(pool_info_null, shoal_pool_info(NULL, NULL))

/* ---- RMA ------------------------------------------------------------------------------------- */
BAD(put_null, shoal_put(SHOAL_GPTR_NULL, lbuf, 8))
BAD(put_freed, shoal_put(unit_gp(freed, (t_me + 1) % t_np), lbuf, 8))
BAD(put_segid, shoal_put(bad_segid(), lbuf, 8))
BAD(put_gen, shoal_put(bad_gen(), lbuf, 8))
BAD(put_dead_team, shoal_put(dead_gp, lbuf, 8))
BAD(put_unit, shoal_put(unit_gp(sym, t_np), lbuf, 8))
BAD(put_unit_neg, shoal_put(unit_gp(sym, -1), lbuf, 8))
BAD(put_nonmember, t_me != 0 || t_np < 2 ? SKIP : shoal_put(unit_gp(solo_gp, 1), lbuf, 8))
BAD(put_end, shoal_put(at(right, SZ - 4), lbuf, 8))
BAD(put_past, shoal_put(at(right, SZ), lbuf, 1))
BAD(put_neg_off, shoal_put(at(right, -8), lbuf, 8))
BAD(put_huge, shoal_put(right, lbuf, SIZE_MAX))
BAD(put_src, shoal_put(right, NULL, 8))
BAD(put_pool_end, shoal_put(at(blk, PB - 4), lbuf, 8))
BAD(put_pool_freed, shoal_put(freed_blk, lbuf, 8))
BAD(get_null, shoal_get(lbuf, SHOAL_GPTR_NULL, 8))
BAD(get_freed, shoal_get(lbuf, freed, 8))
BAD(get_unit, shoal_get(lbuf, unit_gp(sym, t_np), 8))
BAD(get_end, shoal_get(lbuf, at(right, SZ - 4), 8))
BAD(get_huge, shoal_get(lbuf, at(right, 8), SIZE_MAX - 4))
BAD(get_dest, shoal_get(NULL, right, 8))
static shoal_err_t nb(int is_put, shoal_gptr_t gp, void *buf, size_t n, int null_h) {
    shoal_handle_t h = garbage_h;
    shoal_err_t e = is_put ? shoal_put_nb(gp, buf, n, null_h ? NULL : &h)
                           : shoal_get_nb(buf, gp, n, null_h ? NULL : &h);
    SAME(h == garbage_h);
    return e;
}
BAD(putnb_h, nb(1, right, lbuf, 8, 1))
BAD(putnb_null, nb(1, SHOAL_GPTR_NULL, lbuf, 8, 0))
BAD(putnb_freed, nb(1, freed, lbuf, 8, 0))
BAD(putnb_unit, nb(1, unit_gp(sym, t_np), lbuf, 8, 0))
BAD(putnb_end, nb(1, at(right, SZ), lbuf, 8, 0))
BAD(putnb_src, nb(1, right, NULL, 8, 0))
BAD(getnb_h, nb(0, right, lbuf, 8, 1))
BAD(getnb_null, nb(0, SHOAL_GPTR_NULL, lbuf, 8, 0))
BAD(getnb_unit, nb(0, unit_gp(sym, -1), lbuf, 8, 0))
BAD(getnb_end, nb(0, right, lbuf, SZ + 1, 0))
BAD(getnb_dest, nb(0, right, NULL, 8, 0))
static shoal_err_t wait_on(shoal_handle_t h) {
    shoal_handle_t c = h;
    shoal_err_t e = shoal_wait(&c);
    SAME(c == h);
    return e;
}
BAD(wait_nullptr, shoal_wait(NULL))
BAD(wait_garbage, wait_on(garbage_h))
BAD(wait_stale, stale_h ? wait_on(stale_h) : SKIP)
static shoal_err_t test_on(shoal_handle_t h, int null_done) {
    shoal_handle_t c = h;
    int done = 7;
    shoal_err_t e = shoal_test(&c, null_done ? NULL : &done);
    SAME(c == h && done == 7);
    return e;
}
BAD(test_nullptr, shoal_test(NULL, NULL))
BAD(test_done, test_on(SHOAL_HANDLE_NULL, 1))
BAD(test_garbage, test_on(garbage_h, 0))
BAD(test_stale, stale_h ? test_on(stale_h, 0) : SKIP)
static shoal_err_t waitall_on(shoal_handle_t h) {
    shoal_handle_t hs[3] = {SHOAL_HANDLE_NULL, h, SHOAL_HANDLE_NULL};
    shoal_err_t e = shoal_waitall(hs, 3);
    SAME(hs[1] == h);
    return e;
}
BAD(waitall_null, shoal_waitall(NULL, 2))
BAD(waitall_garbage, waitall_on(garbage_h))
BAD(waitall_stale, stale_h ? waitall_on(stale_h) : SKIP)
static shoal_err_t testall_on(shoal_handle_t *hs, size_t n, int null_done) {
    int done = 7;
    shoal_err_t e = shoal_testall(hs, n, null_done ? NULL : &done);
    SAME(done == 7);
    return e;
}
static shoal_err_t testall_garbage_(void) {
    shoal_handle_t hs[2] = {garbage_h, SHOAL_HANDLE_NULL};
    shoal_err_t e = testall_on(hs, 2, 0);
    SAME(hs[0] == garbage_h);
    return e;
}
BAD(testall_null, testall_on(NULL, 2, 0))
BAD(testall_done, testall_on(NULL, 0, 1))
BAD(testall_garbage, testall_garbage_())
BAD(flush_null, shoal_flush(SHOAL_GPTR_NULL))
BAD(flush_unit, shoal_flush(unit_gp(sym, t_np)))
BAD(flush_freed, shoal_flush(freed))
BAD(ps_src, shoal_put_strided(right, 16, NULL, 8, 8, 4))
BAD(ps_small_stride, shoal_put_strided(right, 4, lbuf, 8, 8, 4))
BAD(ps_neg_stride, shoal_put_strided(at(right, 64), -16, lbuf, 8, 8, 3))
BAD(ps_huge_elem, shoal_put_strided(right, 16, lbuf, 16, ((size_t)1 << 31), 1))
BAD(ps_end, shoal_put_strided(right, SZ / 2, lbuf, 8, 8, 3))
BAD(ps_span, shoal_put_strided(right, PTRDIFF_MAX, lbuf, 8, 8, 3))
BAD(ps_null, shoal_put_strided(SHOAL_GPTR_NULL, 16, lbuf, 8, 8, 2))
BAD(ps_unit, shoal_put_strided(unit_gp(sym, t_np), 16, lbuf, 8, 8, 2))
BAD(gs_dest, shoal_get_strided(NULL, 8, right, 16, 8, 4))
BAD(gs_small_stride, shoal_get_strided(lbuf, 2, right, 16, 8, 4))
BAD(gs_huge_n, shoal_get_strided(lbuf, 8, right, 8, 8, ((size_t)1 << 31)))
BAD(gs_end, shoal_get_strided(lbuf, 16, right, 16, 16, SZ / 16 + 1))
BAD(gs_freed, shoal_get_strided(lbuf, 8, freed, 16, 8, 2))

/* ---- Signals --------------------------------------------------------------------------------- */
BAD(psig_src, shoal_put_signal(right, NULL, 8, at(right, 64), 1, SHOAL_SIGNAL_SET))
BAD(psig_op, shoal_put_signal(right, lbuf, 8, at(right, 64), 1, (shoal_signal_op_t)7))
BAD(psig_units,
    t_np < 2 ? SKIP : shoal_put_signal(right, lbuf, 8, at(sym, 64), 1, SHOAL_SIGNAL_SET))
BAD(psig_align, shoal_put_signal(right, lbuf, 8, at(right, 68), 1, SHOAL_SIGNAL_SET))
BAD(psig_sig_end, shoal_put_signal(right, lbuf, 8, at(right, SZ), 1, SHOAL_SIGNAL_SET))
BAD(psig_end, shoal_put_signal(at(right, SZ - 4), lbuf, 8, right, 1, SHOAL_SIGNAL_SET))
BAD(psig_null, shoal_put_signal(SHOAL_GPTR_NULL, lbuf, 8, SHOAL_GPTR_NULL, 1, SHOAL_SIGNAL_SET))
BAD(psig_freed, shoal_put_signal(freed, lbuf, 8, at(freed, 64), 1, SHOAL_SIGNAL_ADD))
BAD(sig_op, shoal_signal(at(right, 64), 1, (shoal_signal_op_t)-1))
BAD(sig_align, shoal_signal(at(right, 4), 1, SHOAL_SIGNAL_ADD))
BAD(sig_end, shoal_signal(at(right, SZ), 1, SHOAL_SIGNAL_ADD))
BAD(sig_null, shoal_signal(SHOAL_GPTR_NULL, 1, SHOAL_SIGNAL_ADD))
BAD(sig_unit, shoal_signal(unit_gp(sym, t_np), 1, SHOAL_SIGNAL_ADD))
BAD(sig_freed, shoal_signal(freed, 1, SHOAL_SIGNAL_SET))
static shoal_err_t wait_until(shoal_gptr_t sig, shoal_cmp_t cmp) {
    uint64_t seen = 0x99;
    shoal_err_t e = shoal_signal_wait_until(sig, cmp, 12345, &seen);
    SAME(seen == 0x99);
    return e;
}
BAD(swait_cmp, wait_until(at(sym, 64), (shoal_cmp_t)99))
BAD(swait_other, t_np < 2 ? SKIP : wait_until(at(right, 64), SHOAL_CMP_EQ))
BAD(swait_align, wait_until(at(sym, 65), SHOAL_CMP_EQ))
BAD(swait_end, wait_until(at(sym, SZ), SHOAL_CMP_EQ))
BAD(swait_null, wait_until(unit_gp(SHOAL_GPTR_NULL, t_me), SHOAL_CMP_EQ))
BAD(swait_freed, wait_until(freed, SHOAL_CMP_EQ))
static shoal_err_t sread(shoal_gptr_t sig, int null_out) {
    uint64_t v = 0x99;
    shoal_err_t e = shoal_signal_read(sig, null_out ? NULL : &v);
    SAME(v == 0x99);
    return e;
}
BAD(sread_out, sread(at(sym, 64), 1))
BAD(sread_other, t_np < 2 ? SKIP : sread(at(right, 64), 0))
BAD(sread_align, sread(at(sym, 12), 0))
BAD(sread_end, sread(at(sym, SZ), 0))

/* ---- Atomics: one helper per call; each runs with a sentinel result ---------------------------
 */
static int64_t av = 1;
static shoal_err_t fop(shoal_gptr_t gp, shoal_amo_op_t op, shoal_dtype_t ty, int nv, int nr) {
    int64_t r = 0x7777;
    shoal_err_t e = shoal_atomic_fetch_op(gp, op, ty, nv ? NULL : &av, nr ? NULL : &r);
    SAME(r == 0x7777);
    return e;
}
static shoal_err_t aop(shoal_gptr_t gp, shoal_amo_op_t op, shoal_dtype_t ty, int nv) {
    return shoal_atomic_op(gp, op, ty, nv ? NULL : &av);
}
static shoal_err_t aswap(shoal_gptr_t gp, shoal_dtype_t ty, int nv, int nr) {
    int64_t r = 0x7777;
    shoal_err_t e = shoal_atomic_swap(gp, ty, nv ? NULL : &av, nr ? NULL : &r);
    SAME(r == 0x7777);
    return e;
}
static shoal_err_t acas(shoal_gptr_t gp, shoal_dtype_t ty, int nc, int nv, int nr) {
    int64_t r = 0x7777, c = 0;
    shoal_err_t e = shoal_atomic_cas(gp, ty, nc ? NULL : &c, nv ? NULL : &av, nr ? NULL : &r);
    SAME(r == 0x7777);
    return e;
}
static shoal_err_t aload(shoal_gptr_t gp, shoal_dtype_t ty, int nr) {
    int64_t r = 0x7777;
    shoal_err_t e = shoal_atomic_load(gp, ty, nr ? NULL : &r);
    SAME(r == 0x7777);
    return e;
}
static shoal_err_t astore(shoal_gptr_t gp, shoal_dtype_t ty, int nv) {
    return shoal_atomic_store(gp, ty, nv ? NULL : &av);
}
#define I64 SHOAL_INT64
#define SUM SHOAL_OP_SUM
BAD(fop_null, fop(SHOAL_GPTR_NULL, SUM, I64, 0, 0))
BAD(fop_freed, fop(freed, SUM, I64, 0, 0))
BAD(fop_unit, fop(unit_gp(sym, t_np), SUM, I64, 0, 0))
BAD(fop_end, fop(at(right, SZ), SUM, I64, 0, 0))
BAD(fop_align, fop(at(right, 4), SUM, I64, 0, 0))
BAD(fop_align32, fop(at(right, 2), SUM, SHOAL_INT32, 0, 0))
BAD(fop_type, fop(right, SUM, SHOAL_TYPE_FLOAT, 0, 0))
BAD(fop_type_big, fop(right, SUM, (shoal_dtype_t)99, 0, 0))
BAD(fop_op, fop(right, (shoal_amo_op_t)99, I64, 0, 0))
BAD(fop_op_prod, fop(right, SHOAL_RED_PROD, I64, 0, 0))
BAD(fop_double_and, fop(right, SHOAL_OP_BAND, SHOAL_DOUBLE, 0, 0))
BAD(fop_value, fop(right, SUM, I64, 1, 0))
BAD(fop_result, fop(right, SUM, I64, 0, 1))
BAD(aop_null, aop(SHOAL_GPTR_NULL, SUM, I64, 0))
BAD(aop_unit, aop(unit_gp(sym, -1), SUM, I64, 0))
BAD(aop_end, aop(at(right, SZ + 64), SUM, I64, 0))
BAD(aop_align, aop(at(right, 4), SUM, I64, 0))
BAD(aop_type, aop(right, SUM, (shoal_dtype_t)-1, 0))
BAD(aop_op, aop(right, SHOAL_RED_MAX, I64, 0))
BAD(aop_double_xor, aop(right, SHOAL_OP_BXOR, SHOAL_DOUBLE, 0))
BAD(aop_value, aop(right, SUM, I64, 1))
BAD(swap_null, aswap(SHOAL_GPTR_NULL, I64, 0, 0))
BAD(swap_end, aswap(at(right, SZ), SHOAL_INT32, 0, 0))
BAD(swap_align, aswap(at(right, 1), I64, 0, 0))
BAD(swap_type, aswap(right, SHOAL_TYPE_CHAR, 0, 0))
BAD(swap_value, aswap(right, I64, 1, 0))
BAD(swap_result, aswap(right, I64, 0, 1))
BAD(cas_null, acas(SHOAL_GPTR_NULL, I64, 0, 0, 0))
BAD(cas_gen, acas(bad_gen(), I64, 0, 0, 0))
BAD(cas_end, acas(at(right, SZ), I64, 0, 0, 0))
BAD(cas_align, acas(at(right, 4), I64, 0, 0, 0))
BAD(cas_double, acas(right, SHOAL_DOUBLE, 0, 0, 0))
BAD(cas_compare, acas(right, I64, 1, 0, 0))
BAD(cas_value, acas(right, I64, 0, 1, 0))
BAD(cas_result, acas(right, I64, 0, 0, 1))
BAD(load_null, aload(SHOAL_GPTR_NULL, I64, 0))
BAD(load_unit, aload(unit_gp(sym, t_np + 1000), I64, 0))
BAD(load_end, aload(at(right, (int64_t)(UINT64_MAX - 7)), I64, 0))
BAD(load_align, aload(at(right, 3), I64, 0))
BAD(load_type, aload(right, SHOAL_TYPE_LONGDOUBLE, 0))
BAD(load_result, aload(right, I64, 1))
BAD(store_null, astore(SHOAL_GPTR_NULL, I64, 0))
BAD(store_freed, astore(unit_gp(freed, (t_me + 1) % t_np), I64, 0))
BAD(store_end, astore(at(right, SZ), SHOAL_UINT32, 0))
BAD(store_align, astore(at(right, 6), SHOAL_UINT64, 0))
BAD(store_type, astore(right, (shoal_dtype_t)SHOAL_TYPE_COUNT_, 0))
BAD(store_value, astore(right, I64, 1))

/* ---- Synchronisation ------------------------------------------------------------------------- */
BAD(bar_dead, shoal_barrier(dead_team))
BAD(bar_null, shoal_barrier(SHOAL_TEAM_NULL))
BAD(bar_bogus, shoal_barrier(12345))
static shoal_err_t lcreate(shoal_team_t team, int null_out) {
    shoal_lock_t l = NULL;
    shoal_err_t e = shoal_lock_create(team, null_out ? NULL : &l);
    SAME(l == NULL);
    return e;
}
BAD(lc_out, lcreate(SHOAL_TEAM_ALL, 1))
BAD(lc_out_one, lcreate(SHOAL_TEAM_ALL, last()))
BAD(lc_dead, lcreate(dead_team, 0))
static shoal_err_t ldestroy(shoal_lock_t l) {
    shoal_lock_t c = l;
    shoal_err_t e = shoal_lock_destroy(&c);
    SAME(c == l);
    return e;
}
BAD(ld_nullptr, shoal_lock_destroy(NULL))
BAD(ld_null, ldestroy(NULL))
BAD(ld_twice, ldestroy(dead_lock))
BAD(ld_garbage, ldestroy(garbage_lock))
static shoal_err_t ld_held_one_(void) {
    if (last() && shoal_lock_acquire(lock) != SHOAL_OK) return SKIP;
    shoal_err_t e = ldestroy(lock);
    if (last()) shoal_lock_release(lock);
    return e;
}
BAD(la_null, shoal_lock_acquire(NULL))
BAD(la_dead, shoal_lock_acquire(dead_lock))
BAD(la_garbage, shoal_lock_acquire(garbage_lock))
/* Acquire twice: the second one fails, the first stays held (and is released here). */
static shoal_err_t twice(int try_) {
    if (shoal_lock_acquire(lock) != SHOAL_OK) return SKIP;
    shoal_err_t e = try_ ? shoal_lock_try_acquire(lock) : shoal_lock_acquire(lock);
    if (shoal_lock_release(lock) != SHOAL_OK) g_wrote = "the lock was not held any more";
    return e;
}
BAD(la_held, twice(0))
BAD(lt_null, shoal_lock_try_acquire(NULL))
BAD(lt_dead, shoal_lock_try_acquire(dead_lock))
BAD(lt_garbage, shoal_lock_try_acquire(garbage_lock))
BAD(lt_held, twice(1))
BAD(lr_null, shoal_lock_release(NULL))
BAD(lr_dead, shoal_lock_release(dead_lock))
BAD(lr_garbage, shoal_lock_release(garbage_lock))
BAD(lr_not_held, shoal_lock_release(lock))

/* ---- Collectives (cd, cs: CB bytes on every unit) --------------------------------------------
 */
#define ALL SHOAL_TEAM_ALL
BAD(tb_dead, shoal_team_barrier(dead_team))
BAD(tb_null, shoal_team_barrier(SHOAL_TEAM_NULL))
BAD(bc_dead, shoal_broadcast(dead_team, cd, cs, 8, 0))
BAD(bc_root, shoal_broadcast(ALL, cd, cs, 8, t_np))
BAD(bc_root_neg, shoal_broadcast(ALL, cd, cs, 8, -1))
BAD(bc_root_one, shoal_broadcast(ALL, cd, cs, 8, last() ? t_np : 0))
BAD(bc_roots_differ, t_np < 2 ? SKIP : shoal_broadcast(ALL, cd, cs, 8, last() ? 1 : 0))
BAD(bc_dest_null, shoal_broadcast(ALL, SHOAL_GPTR_NULL, cs, 8, 0))
BAD(bc_dest_other, t_np < 2 ? SKIP : shoal_broadcast(ALL, unit_gp(cd, (t_me + 1) % t_np), cs, 8, 0))
BAD(bc_dest_pool, shoal_broadcast(ALL, blk, cs, 8, 0))
BAD(bc_end, shoal_broadcast(ALL, cd, cs, CB + 1, 0))
BAD(bc_huge, shoal_broadcast(ALL, cd, cs, SIZE_MAX, 0))
BAD(bc_src_freed_one, shoal_broadcast(ALL, cd, last() ? freed : cs, 8, 0))
BAD(co_dead, shoal_collect(dead_team, cd, cs, 8))
BAD(co_src_null, shoal_collect(ALL, cd, SHOAL_GPTR_NULL, 8))
BAD(co_src_end, shoal_collect(ALL, cd, cs, CB + 1))
BAD(co_src_end_one, shoal_collect(ALL, cd, cs, last() ? CB + 1 : 8))
BAD(co_dest_small, shoal_collect(ALL, at(cd, CB - 8), cs, 8 + (t_me == 0)))
BAD(fc_dead, shoal_fcollect(dead_team, cd, cs, 8))
BAD(fc_overflow, t_np < 2 ? SKIP : shoal_fcollect(ALL, cd, cs, SIZE_MAX / 2 + 1))
BAD(fc_end, shoal_fcollect(ALL, cd, cs, CB / t_np + 1))
BAD(fc_sizes_differ, t_np < 2 ? SKIP : shoal_fcollect(ALL, cd, cs, last() ? 16 : 8))
BAD(fc_dest_other_one, t_np < 2 ? SKIP : shoal_fcollect(ALL, last() ? unit_gp(cd, 0) : cd, cs, 8))
BAD(a2a_dead, shoal_alltoall(dead_team, cd, cs, 8))
BAD(a2a_overlap, shoal_alltoall(ALL, cd, cd, 8))
BAD(a2a_overlap_one, shoal_alltoall(ALL, cd, last() ? cd : cs, 8))
BAD(a2a_overflow, t_np < 2 ? SKIP : shoal_alltoall(ALL, cd, cs, SIZE_MAX / 2 + 1))
BAD(a2a_end, shoal_alltoall(ALL, cd, cs, CB / t_np + 1))
BAD(a2a_src_pool, shoal_alltoall(ALL, cd, blk, 8))
BAD(a2as_elem, shoal_alltoalls(ALL, cd, cs, 1, 1, 3, 4))
BAD(a2as_elem_one, shoal_alltoalls(ALL, cd, cs, 1, 1, last() ? 2 : 8, 4))
BAD(a2as_stride, shoal_alltoalls(ALL, cd, cs, 0, 1, 8, 4))
BAD(a2as_stride_neg, shoal_alltoalls(ALL, cd, cs, 1, -2, 8, 4))
/* nelems x members wraps (for one member: the span itself does not fit) */
BAD(a2as_overflow,
    shoal_alltoalls(ALL, cd, cs, 1, 1, 8, t_np > 1 ? SIZE_MAX / (size_t)t_np + 1 : SIZE_MAX))
BAD(a2as_end, shoal_alltoalls(ALL, cd, cs, 2, 1, 8, CB / 8 / t_np))
BAD(a2as_strides_differ, t_np < 2 ? SKIP : shoal_alltoalls(ALL, cd, cs, last() ? 2 : 1, 1, 4, 4))
BAD(red_dead, shoal_reduce(dead_team, cd, cs, 4, I64, SHOAL_RED_SUM))
BAD(red_type, shoal_reduce(ALL, cd, cs, 4, (shoal_type_t)99, SHOAL_RED_SUM))
BAD(red_type_count, shoal_reduce(ALL, cd, cs, 4, SHOAL_TYPE_COUNT_, SHOAL_RED_SUM))
BAD(red_op, shoal_reduce(ALL, cd, cs, 4, I64, (shoal_red_op_t)42))
BAD(red_and_double, shoal_reduce(ALL, cd, cs, 4, SHOAL_TYPE_DOUBLE, SHOAL_RED_AND))
BAD(red_overflow, shoal_reduce(ALL, cd, cs, SIZE_MAX / 4, I64, SHOAL_RED_SUM))
BAD(red_end, shoal_reduce(ALL, cd, cs, CB / 8 + 1, I64, SHOAL_RED_SUM))
BAD(red_overlap, shoal_reduce(ALL, cd, at(cd, 8), 4, I64, SHOAL_RED_SUM))
BAD(red_ops_differ,
    t_np < 2 ? SKIP : shoal_reduce(ALL, cd, cs, 4, I64, last() ? SHOAL_RED_MAX : SHOAL_RED_SUM))
BAD(red_type_one, shoal_reduce(ALL, cd, cs, 4, last() ? (shoal_type_t)99 : I64, SHOAL_RED_SUM))
BAD(scan_dead, shoal_scan(dead_team, cd, cs, 4, I64, 1))
BAD(scan_type, shoal_scan(ALL, cd, cs, 4, (shoal_type_t)-3, 1))
BAD(scan_overlap, shoal_scan(ALL, cd, cd, 4, I64, 1))
BAD(scan_end, shoal_scan(ALL, cd, at(cs, CB - 8), 4, I64, 0))
BAD(scan_kind_differ, t_np < 2 ? SKIP : shoal_scan(ALL, cd, cs, 4, I64, last()))
BAD(scan_dest_one, shoal_scan(ALL, last() ? SHOAL_GPTR_NULL : cd, cs, 4, I64, 1))
BAD(ov_null, shoal_coll_override(NULL, "linear"))
BAD(ov_unknown, shoal_coll_override("gather", NULL))
BAD(ov_rules, shoal_coll_override("barrier", "no-such-algorithm!"))
static shoal_err_t last_algo(shoal_team_t team, int null_out) {
    const char *n = "sentinel";
    shoal_err_t e = shoal_coll_last_algorithm(team, null_out ? NULL : &n);
    SAME(strcmp(n, "sentinel") == 0);
    return e;
}
BAD(la_out, last_algo(ALL, 1))
BAD(la_team, last_algo(dead_team, 0))

/* ---- Fences and the one-sided broadcast (sym is never fenced nor registered here) ---------- */
BAD(fence_freed, shoal_epoch_fence(freed, 0))
BAD(fence_null, shoal_epoch_fence(SHOAL_GPTR_NULL, 0))
BAD(fence_pool, shoal_epoch_fence(blk, 0))
BAD(fence_bits, shoal_epoch_fence(sym, 0x40))
BAD(design_range, shoal_epoch_set_design(sym, (shoal_epoch_design_t)9))
BAD(design_freed, shoal_epoch_set_design(freed, SHOAL_EPOCH_AUTO))
static shoal_err_t get_design_of(shoal_gptr_t gp, int null_out) {
    shoal_epoch_design_t d = (shoal_epoch_design_t)77;
    shoal_err_t e = shoal_epoch_get_design(gp, null_out ? NULL : &d);
    SAME(d == (shoal_epoch_design_t)77);
    return e;
}
BAD(get_design_out, get_design_of(sym, 1))
BAD(get_design_freed, get_design_of(freed, 0))
BAD(rb_enable_freed, shoal_rma_bcast_enable(freed))
BAD(rb_enable_pool, shoal_rma_bcast_enable(blk))
BAD(rb_disable_unreg, shoal_rma_bcast_disable(sym))
static shoal_err_t rb_of(shoal_gptr_t gp, size_t n, int algo, int null_req) {
    shoal_rma_bcast_t r = (shoal_rma_bcast_t)(uintptr_t)0x77;
    uint64_t seq = 77;
    shoal_err_t e =
        shoal_rma_bcast(gp, lbuf, n, (shoal_rma_bcast_algo_t)algo, null_req ? NULL : &r, &seq);
    SAME(r == (shoal_rma_bcast_t)(uintptr_t)0x77 && seq == 77);
    return e;
}
BAD(rb_zero, rb_of(sym, 0, 0, 0))
BAD(rb_req_null, rb_of(sym, 8, 0, 1))
BAD(rb_algo, rb_of(sym, 8, 5, 0))
BAD(rb_unreg, rb_of(sym, 8, 0, 0))
BAD(rb_freed, rb_of(freed, 8, 0, 0))
BAD(rb_pool, rb_of(blk, 8, 0, 0))
BAD(rb_end, rb_of(at(sym, SZ - 4), 8, 0, 0))
static shoal_err_t rb_test_of(shoal_rma_bcast_t r, int null_done) {
    int done = 7;
    shoal_err_t e = shoal_rma_bcast_test(&r, null_done ? NULL : &done);
    SAME(done == 7);
    return e;
}
BAD(rb_test_garbage, rb_test_of((shoal_rma_bcast_t)(uintptr_t)0x5A5A0, 0))
BAD(rb_test_out, rb_test_of(SHOAL_RMA_BCAST_NULL, 1))
static shoal_err_t rb_wait_garbage_of(void) {
    shoal_rma_bcast_t r = (shoal_rma_bcast_t)(uintptr_t)0x5A5A0;
    return shoal_rma_bcast_wait(&r);
}
BAD(rb_wait_garbage, rb_wait_garbage_of())
BAD(rb_wait_null, shoal_rma_bcast_wait(NULL))
static shoal_err_t rb_arrived_of(shoal_gptr_t gp, int null_out) {
    int a = 7;
    shoal_err_t e = shoal_rma_bcast_arrived(gp, 1, null_out ? NULL : &a);
    SAME(a == 7);
    return e;
}
BAD(rb_arrived_out, rb_arrived_of(sym, 1))
BAD(rb_arrived_unreg, rb_arrived_of(sym, 0))
BAD(rb_wait_arrival_unreg, shoal_rma_bcast_wait_arrival(sym, 1))

/* ---- Introspection --------------------------------------------------------------------------- */
static shoal_err_t mech(shoal_unit_t u, int null_out) {
    shoal_mechanism_t m = (shoal_mechanism_t)77;
    shoal_err_t e = shoal_peer_mechanism(u, null_out ? NULL : &m);
    SAME(m == (shoal_mechanism_t)77);
    return e;
}
BAD(mech_big, mech(t_np, 0))
BAD(mech_neg, mech(-1, 0))
BAD(mech_out, mech(0, 1))
static shoal_err_t cvar(int i, int null_out) {
    shoal_config_var_t v = {.name = "sentinel"};
    shoal_err_t e = shoal_config_var(i, null_out ? NULL : &v);
    SAME(strcmp(v.name, "sentinel") == 0);
    return e;
}
BAD(cvar_neg, cvar(-1, 0))
BAD(cvar_big, cvar(shoal_config_count(), 0))
BAD(cvar_out, cvar(0, 1))

#define R(fn, kind, call, want)                                                                    \
    { #fn, kind, call, SHOAL_ERR_##want }
static const bad_case_t cases[] = {
    R(shoal_myid, "NULL output", myid_null, INVAL),
    R(shoal_size, "NULL output", size_null, INVAL),
    R(shoal_node_size, "NULL output", node_size_null, INVAL),
    R(shoal_node_units, "NULL output", node_units_null, INVAL),
    R(shoal_node_units, "zero count", node_units_zero, INVAL),
    R(shoal_node_units, "negative count", node_units_neg, INVAL),
    R(shoal_init, "init twice", init_twice, STATE),

    R(shoal_group_create, "NULL output", g_create_null, INVAL),
    R(shoal_group_clone, "NULL group", g_clone_null, INVAL),
    R(shoal_group_clone, "destroyed group", g_clone_dead, STATE),
    R(shoal_group_clone, "made-up group", g_clone_garbage, INVAL),
    R(shoal_group_clone, "NULL output", g_clone_out, INVAL),
    R(shoal_group_destroy, "NULL pointer", g_destroy_nullptr, INVAL),
    R(shoal_group_destroy, "NULL group", g_destroy_null, INVAL),
    R(shoal_group_destroy, "double free", g_destroy_twice, STATE),
    R(shoal_group_destroy, "made-up group", g_destroy_garbage, INVAL),
    R(shoal_group_add_member, "unit = nunits", g_add_big, UNIT),
    R(shoal_group_add_member, "unit -1", g_add_neg, UNIT),
    R(shoal_group_add_member, "destroyed group", g_add_dead, STATE),
    R(shoal_group_add_member, "NULL group", g_add_null, INVAL),
    R(shoal_group_add_member, "made-up group", g_add_garbage, INVAL),
    R(shoal_group_remove_member, "unit = nunits", g_rm_big, UNIT),
    R(shoal_group_remove_member, "absent unit", g_rm_absent, UNIT),
    R(shoal_group_remove_member, "destroyed group", g_rm_dead, STATE),
    R(shoal_group_remove_member, "NULL group", g_rm_null, INVAL),
    R(shoal_group_union, "destroyed group", g_union_dead, STATE),
    R(shoal_group_union, "NULL group", g_union_null, INVAL),
    R(shoal_group_union, "made-up group", g_union_garbage, INVAL),
    R(shoal_group_union, "NULL output", g_union_out, INVAL),
    R(shoal_group_intersect, "destroyed group", g_isect_dead, STATE),
    R(shoal_group_intersect, "NULL group", g_isect_null, INVAL),
    R(shoal_group_intersect, "made-up group", g_isect_garbage, INVAL),
    R(shoal_group_intersect, "NULL output", g_isect_out, INVAL),
    R(shoal_group_split, "zero parts", g_split_zero, INVAL),
    R(shoal_group_split, "negative parts", g_split_neg, INVAL),
    R(shoal_group_split, "NULL parts", g_split_null_parts, INVAL),
    R(shoal_group_split, "destroyed group", g_split_dead, STATE),
    R(shoal_group_split, "made-up group", g_split_garbage, INVAL),
    R(shoal_group_is_member, "unit = nunits (impl)", g_is_big, UNIT),
    R(shoal_group_is_member, "unit -1 (impl)", g_is_neg, UNIT),
    R(shoal_group_is_member, "NULL output", g_is_out, INVAL),
    R(shoal_group_is_member, "destroyed group", g_is_dead, STATE),
    R(shoal_group_size, "destroyed group", g_size_dead, STATE),
    R(shoal_group_size, "NULL group", g_size_null, INVAL),
    R(shoal_group_size, "made-up group", g_size_garbage, INVAL),
    R(shoal_group_size, "NULL output", g_size_out, INVAL),
    R(shoal_group_members, "destroyed group", g_members_dead, STATE),
    R(shoal_group_members, "NULL group", g_members_null, INVAL),
    R(shoal_group_members, "NULL output", g_members_out, INVAL),

    R(shoal_team_create, "NULL output", t_create_out, INVAL),
    R(shoal_team_create, "NULL output on one unit", t_create_out_one, INVAL),
    R(shoal_team_create, "NULL group on one unit", t_create_group_one, INVAL),
    R(shoal_team_create, "destroyed group", t_create_dead_group, STATE),
    R(shoal_team_create, "destroyed parent", t_create_dead_team, TEAM),
    R(shoal_team_create, "made-up parent", t_create_bogus_team, TEAM),
    R(shoal_team_create, "different groups (impl)", create_mismatch, INVAL),
    R(shoal_team_split, "bad colour", t_split_colour, INVAL),
    R(shoal_team_split, "bad colour on one unit", t_split_colour_one, INVAL),
    R(shoal_team_split, "NULL output", t_split_out, INVAL),
    R(shoal_team_split, "NULL output on one unit", t_split_out_one, INVAL),
    R(shoal_team_split, "destroyed parent", t_split_dead, TEAM),
    R(shoal_team_split, "SHOAL_TEAM_NULL parent", t_split_null, TEAM),
    R(shoal_team_node, "NULL output", t_node_out, INVAL),
    R(shoal_team_node, "NULL output on one unit", t_node_out_one, INVAL),
    R(shoal_team_node, "destroyed parent", t_node_dead, TEAM),
    R(shoal_team_destroy, "NULL pointer", t_destroy_nullptr, INVAL),
    R(shoal_team_destroy, "destroy twice", t_destroy_twice, TEAM),
    R(shoal_team_destroy, "SHOAL_TEAM_ALL (impl)", t_destroy_all, STATE),
    R(shoal_team_destroy, "SHOAL_TEAM_NULL", t_destroy_null, TEAM),
    R(shoal_team_destroy, "made-up team", t_destroy_bogus, TEAM),
    R(shoal_team_size, "destroyed team", t_size_dead, TEAM),
    R(shoal_team_size, "SHOAL_TEAM_NULL", t_size_null, TEAM),
    R(shoal_team_size, "NULL output", t_size_out, INVAL),
    R(shoal_team_myid, "destroyed team", t_myid_dead, TEAM),
    R(shoal_team_myid, "NULL output", t_myid_out, INVAL),
    R(shoal_team_parent, "made-up team", t_parent_bogus, TEAM),
    R(shoal_team_parent, "NULL output", t_parent_out, INVAL),
    R(shoal_team_unit_l2g, "relative = size", t_l2g_big, UNIT),
    R(shoal_team_unit_l2g, "relative -1", t_l2g_neg, UNIT),
    R(shoal_team_unit_l2g, "NULL output", t_l2g_out, INVAL),
    R(shoal_team_unit_l2g, "destroyed team", t_l2g_dead, TEAM),
    R(shoal_team_unit_g2l, "unit = nunits", t_g2l_big, UNIT),
    R(shoal_team_unit_g2l, "unit -1", t_g2l_neg, UNIT),
    R(shoal_team_unit_g2l, "NULL output", t_g2l_out, INVAL),
    R(shoal_team_unit_g2l, "destroyed team", t_g2l_dead, TEAM),
    R(shoal_team_unit_g2l, "unit not a member", t_g2l_nonmember, UNIT),
    R(shoal_team_get_group, "destroyed team", t_group_dead, TEAM),
    R(shoal_team_get_group, "NULL output", t_group_out, INVAL),

    R(shoal_gptr_getaddr, "NULL global pointer", ga_null, GPTR),
    R(shoal_gptr_getaddr, "freed allocation", ga_freed, GPTR),
    R(shoal_gptr_getaddr, "made-up segment id", ga_segid, GPTR),
    R(shoal_gptr_getaddr, "stale generation", ga_gen, GPTR),
    R(shoal_gptr_getaddr, "unit = nunits", ga_unit, UNIT),
    R(shoal_gptr_getaddr, "past the end", ga_end, BOUNDS),
    R(shoal_gptr_getaddr, "NULL output", ga_out, INVAL),
    R(shoal_gptr_from_addr, "NULL address", fa_null, INVAL),
    R(shoal_gptr_from_addr, "NULL output", fa_out, INVAL),
    R(shoal_gptr_from_addr, "address in no allocation (impl)", fa_foreign, GPTR),
    R(shoal_gptr_from_addr, "address past the end (impl)", fa_end, GPTR),
    R(shoal_gptr_from_addr, "address of a freed allocation (impl)", fa_freed, GPTR),

    R(shoal_team_memalloc, "NULL output", tm_out, INVAL),
    R(shoal_team_memalloc, "NULL output on one unit", tm_out_one, INVAL),
    R(shoal_team_memalloc, "destroyed team", tm_dead, TEAM),
    R(shoal_team_memalloc, "SHOAL_TEAM_NULL", tm_null_team, TEAM),
    R(shoal_team_memalloc, "different sizes", tm_sizes, INVAL),
    R(shoal_team_memalloc, "SIZE_MAX bytes", tm_huge, NOMEM),
    R(shoal_team_memalloc, "2^60 bytes", tm_huge2, NOMEM),
    R(shoal_team_memalloc, "2^60 bytes on one unit", tm_huge_one, INVAL),
    R(shoal_team_memfree, "NULL global pointer", tf_null, GPTR),
    R(shoal_team_memfree, "double free (impl)", tf_twice, GPTR),
    R(shoal_team_memfree, "pool block (impl)", tf_pool, GPTR),
    R(shoal_team_memfree, "not the start (impl)", tf_middle, GPTR),
    R(shoal_team_memfree, "not the start on one unit (impl)", tf_middle_one, GPTR),
    R(shoal_team_memfree, "different allocations (impl)", tf_mismatch, INVAL),
    R(shoal_team_memfree, "unit = nunits", tf_unit, UNIT),
    R(shoal_team_memfree, "allocation of a destroyed team", tf_dead_team, GPTR),
    R(shoal_memalloc, "NULL output", pm_out, INVAL),
    R(shoal_memalloc, "SIZE_MAX bytes", pm_huge, NOMEM),
    R(shoal_memalloc, "2^50 bytes", pm_huge2, NOMEM),
    R(shoal_memfree, "NULL global pointer", pf_null, GPTR),
    R(shoal_memfree, "double free", pf_twice, STATE),
    R(shoal_memfree, "not the start (impl)", pf_middle, STATE),
    R(shoal_memfree, "collective allocation (impl)", pf_sym, GPTR),
    R(shoal_memfree, "another unit's block (impl)", pf_other, UNIT),
    R(shoal_memfree, "unit = nunits", pf_unit, UNIT),
    R(shoal_pool_info, "NULL outputs", pool_info_null, INVAL),

    R(shoal_put, "NULL global pointer", put_null, GPTR),
    R(shoal_put, "freed allocation", put_freed, GPTR),
    R(shoal_put, "made-up segment id", put_segid, GPTR),
    R(shoal_put, "stale generation", put_gen, GPTR),
    R(shoal_put, "allocation of a destroyed team", put_dead_team, GPTR),
    R(shoal_put, "unit = nunits", put_unit, UNIT),
    R(shoal_put, "unit -1", put_unit_neg, UNIT),
    R(shoal_put, "unit outside the allocation's team", put_nonmember, UNIT),
    R(shoal_put, "straddling the end", put_end, BOUNDS),
    R(shoal_put, "at the end", put_past, BOUNDS),
    R(shoal_put, "offset -8", put_neg_off, BOUNDS),
    R(shoal_put, "SIZE_MAX bytes", put_huge, BOUNDS),
    R(shoal_put, "NULL source", put_src, INVAL),
    R(shoal_put, "past the end of a pool block", put_pool_end, BOUNDS),
    R(shoal_put, "freed pool block", put_pool_freed, GPTR),
    R(shoal_get, "NULL global pointer", get_null, GPTR),
    R(shoal_get, "freed allocation", get_freed, GPTR),
    R(shoal_get, "unit = nunits", get_unit, UNIT),
    R(shoal_get, "straddling the end", get_end, BOUNDS),
    R(shoal_get, "size near SIZE_MAX", get_huge, BOUNDS),
    R(shoal_get, "NULL destination", get_dest, INVAL),
    R(shoal_put_nb, "NULL handle output", putnb_h, INVAL),
    R(shoal_put_nb, "NULL global pointer", putnb_null, GPTR),
    R(shoal_put_nb, "freed allocation", putnb_freed, GPTR),
    R(shoal_put_nb, "unit = nunits", putnb_unit, UNIT),
    R(shoal_put_nb, "at the end", putnb_end, BOUNDS),
    R(shoal_put_nb, "NULL source", putnb_src, INVAL),
    R(shoal_get_nb, "NULL handle output", getnb_h, INVAL),
    R(shoal_get_nb, "NULL global pointer", getnb_null, GPTR),
    R(shoal_get_nb, "unit -1", getnb_unit, UNIT),
    R(shoal_get_nb, "one byte too long", getnb_end, BOUNDS),
    R(shoal_get_nb, "NULL destination", getnb_dest, INVAL),
    R(shoal_wait, "NULL pointer", wait_nullptr, INVAL),
    R(shoal_wait, "made-up handle", wait_garbage, HANDLE),
    R(shoal_wait, "stale handle", wait_stale, HANDLE),
    R(shoal_test, "NULL pointers", test_nullptr, INVAL),
    R(shoal_test, "NULL done output", test_done, INVAL),
    R(shoal_test, "made-up handle", test_garbage, HANDLE),
    R(shoal_test, "stale handle", test_stale, HANDLE),
    R(shoal_waitall, "NULL array", waitall_null, INVAL),
    R(shoal_waitall, "made-up handle", waitall_garbage, HANDLE),
    R(shoal_waitall, "stale handle", waitall_stale, HANDLE),
    R(shoal_testall, "NULL array", testall_null, INVAL),
    R(shoal_testall, "NULL output", testall_done, INVAL),
    R(shoal_testall, "made-up handle", testall_garbage, HANDLE),
    R(shoal_flush, "NULL global pointer", flush_null, GPTR),
    R(shoal_flush, "unit = nunits", flush_unit, UNIT),
    R(shoal_flush, "freed allocation", flush_freed, GPTR),
    R(shoal_put_strided, "NULL source", ps_src, INVAL),
    R(shoal_put_strided, "stride below the element size", ps_small_stride, INVAL),
    R(shoal_put_strided, "negative stride", ps_neg_stride, INVAL),
    R(shoal_put_strided, "element of 2^31 bytes (impl)", ps_huge_elem, INVAL),
    R(shoal_put_strided, "past the end", ps_end, BOUNDS),
    R(shoal_put_strided, "span overflows", ps_span, BOUNDS),
    R(shoal_put_strided, "NULL global pointer", ps_null, GPTR),
    R(shoal_put_strided, "unit = nunits", ps_unit, UNIT),
    R(shoal_get_strided, "NULL destination", gs_dest, INVAL),
    R(shoal_get_strided, "stride below the element size", gs_small_stride, INVAL),
    R(shoal_get_strided, "2^31 elements (impl)", gs_huge_n, INVAL),
    R(shoal_get_strided, "past the end", gs_end, BOUNDS),
    R(shoal_get_strided, "freed allocation", gs_freed, GPTR),

    R(shoal_put_signal, "NULL source", psig_src, INVAL),
    R(shoal_put_signal, "bad operation", psig_op, INVAL),
    R(shoal_put_signal, "signal on another unit (impl)", psig_units, INVAL),
    R(shoal_put_signal, "misaligned signal", psig_align, ALIGN),
    R(shoal_put_signal, "signal past the end", psig_sig_end, BOUNDS),
    R(shoal_put_signal, "data past the end", psig_end, BOUNDS),
    R(shoal_put_signal, "NULL global pointers", psig_null, GPTR),
    R(shoal_put_signal, "freed allocation", psig_freed, GPTR),
    R(shoal_signal, "bad operation", sig_op, INVAL),
    R(shoal_signal, "misaligned", sig_align, ALIGN),
    R(shoal_signal, "past the end", sig_end, BOUNDS),
    R(shoal_signal, "NULL global pointer", sig_null, GPTR),
    R(shoal_signal, "unit = nunits", sig_unit, UNIT),
    R(shoal_signal, "freed allocation", sig_freed, GPTR),
    R(shoal_signal_wait_until, "bad comparison", swait_cmp, INVAL),
    R(shoal_signal_wait_until, "another unit's word (impl)", swait_other, UNIT),
    R(shoal_signal_wait_until, "misaligned", swait_align, ALIGN),
    R(shoal_signal_wait_until, "past the end", swait_end, BOUNDS),
    R(shoal_signal_wait_until, "NULL global pointer", swait_null, GPTR),
    R(shoal_signal_wait_until, "freed allocation", swait_freed, GPTR),
    R(shoal_signal_read, "NULL output", sread_out, INVAL),
    R(shoal_signal_read, "another unit's word (impl)", sread_other, UNIT),
    R(shoal_signal_read, "misaligned", sread_align, ALIGN),
    R(shoal_signal_read, "past the end", sread_end, BOUNDS),

    R(shoal_atomic_fetch_op, "NULL global pointer", fop_null, GPTR),
    R(shoal_atomic_fetch_op, "freed allocation", fop_freed, GPTR),
    R(shoal_atomic_fetch_op, "unit = nunits", fop_unit, UNIT),
    R(shoal_atomic_fetch_op, "past the end", fop_end, BOUNDS),
    R(shoal_atomic_fetch_op, "misaligned int64", fop_align, ALIGN),
    R(shoal_atomic_fetch_op, "misaligned int32", fop_align32, ALIGN),
    R(shoal_atomic_fetch_op, "float type", fop_type, INVAL),
    R(shoal_atomic_fetch_op, "type 99", fop_type_big, INVAL),
    R(shoal_atomic_fetch_op, "operation 99", fop_op, INVAL),
    R(shoal_atomic_fetch_op, "product", fop_op_prod, INVAL),
    R(shoal_atomic_fetch_op, "bitwise and on double", fop_double_and, INVAL),
    R(shoal_atomic_fetch_op, "NULL value", fop_value, INVAL),
    R(shoal_atomic_fetch_op, "NULL result", fop_result, INVAL),
    R(shoal_atomic_op, "NULL global pointer", aop_null, GPTR),
    R(shoal_atomic_op, "unit -1", aop_unit, UNIT),
    R(shoal_atomic_op, "past the end", aop_end, BOUNDS),
    R(shoal_atomic_op, "misaligned", aop_align, ALIGN),
    R(shoal_atomic_op, "type -1", aop_type, INVAL),
    R(shoal_atomic_op, "max", aop_op, INVAL),
    R(shoal_atomic_op, "xor on double", aop_double_xor, INVAL),
    R(shoal_atomic_op, "NULL value", aop_value, INVAL),
    R(shoal_atomic_swap, "NULL global pointer", swap_null, GPTR),
    R(shoal_atomic_swap, "past the end", swap_end, BOUNDS),
    R(shoal_atomic_swap, "misaligned", swap_align, ALIGN),
    R(shoal_atomic_swap, "char type", swap_type, INVAL),
    R(shoal_atomic_swap, "NULL value", swap_value, INVAL),
    R(shoal_atomic_swap, "NULL result", swap_result, INVAL),
    R(shoal_atomic_cas, "NULL global pointer", cas_null, GPTR),
    R(shoal_atomic_cas, "stale generation", cas_gen, GPTR),
    R(shoal_atomic_cas, "past the end", cas_end, BOUNDS),
    R(shoal_atomic_cas, "misaligned", cas_align, ALIGN),
    R(shoal_atomic_cas, "double", cas_double, INVAL),
    R(shoal_atomic_cas, "NULL compare", cas_compare, INVAL),
    R(shoal_atomic_cas, "NULL value", cas_value, INVAL),
    R(shoal_atomic_cas, "NULL result", cas_result, INVAL),
    R(shoal_atomic_load, "NULL global pointer", load_null, GPTR),
    R(shoal_atomic_load, "unit nunits+1000", load_unit, UNIT),
    R(shoal_atomic_load, "offset wraps", load_end, BOUNDS),
    R(shoal_atomic_load, "misaligned", load_align, ALIGN),
    R(shoal_atomic_load, "long double", load_type, INVAL),
    R(shoal_atomic_load, "NULL result", load_result, INVAL),
    R(shoal_atomic_store, "NULL global pointer", store_null, GPTR),
    R(shoal_atomic_store, "freed allocation", store_freed, GPTR),
    R(shoal_atomic_store, "past the end", store_end, BOUNDS),
    R(shoal_atomic_store, "misaligned", store_align, ALIGN),
    R(shoal_atomic_store, "type COUNT_", store_type, INVAL),
    R(shoal_atomic_store, "NULL value", store_value, INVAL),

    R(shoal_barrier, "destroyed team", bar_dead, TEAM),
    R(shoal_barrier, "SHOAL_TEAM_NULL", bar_null, TEAM),
    R(shoal_barrier, "made-up team", bar_bogus, TEAM),
    R(shoal_lock_create, "NULL output", lc_out, INVAL),
    R(shoal_lock_create, "NULL output on one unit", lc_out_one, INVAL),
    R(shoal_lock_create, "destroyed team", lc_dead, TEAM),
    R(shoal_lock_destroy, "NULL pointer", ld_nullptr, INVAL),
    R(shoal_lock_destroy, "NULL lock", ld_null, INVAL),
    R(shoal_lock_destroy, "destroy twice", ld_twice, STATE),
    R(shoal_lock_destroy, "made-up lock", ld_garbage, INVAL),
    R(shoal_lock_destroy, "held by one unit", ld_held_one_, STATE),
    R(shoal_lock_acquire, "NULL lock", la_null, INVAL),
    R(shoal_lock_acquire, "destroyed lock", la_dead, STATE),
    R(shoal_lock_acquire, "made-up lock", la_garbage, INVAL),
    R(shoal_lock_acquire, "already held (impl)", la_held, STATE),
    R(shoal_lock_try_acquire, "NULL lock", lt_null, INVAL),
    R(shoal_lock_try_acquire, "destroyed lock", lt_dead, STATE),
    R(shoal_lock_try_acquire, "made-up lock", lt_garbage, INVAL),
    R(shoal_lock_try_acquire, "already held (impl)", lt_held, STATE),
    R(shoal_lock_release, "NULL lock", lr_null, INVAL),
    R(shoal_lock_release, "destroyed lock", lr_dead, STATE),
    R(shoal_lock_release, "made-up lock", lr_garbage, INVAL),
    R(shoal_lock_release, "not held", lr_not_held, STATE),

    R(shoal_team_barrier, "destroyed team", tb_dead, TEAM),
    R(shoal_team_barrier, "SHOAL_TEAM_NULL", tb_null, TEAM),
    R(shoal_broadcast, "destroyed team", bc_dead, TEAM),
    R(shoal_broadcast, "root = size", bc_root, UNIT),
    R(shoal_broadcast, "root -1", bc_root_neg, UNIT),
    R(shoal_broadcast, "bad root on one unit", bc_root_one, UNIT),
    R(shoal_broadcast, "different roots", bc_roots_differ, INVAL),
    R(shoal_broadcast, "NULL dest", bc_dest_null, GPTR),
    R(shoal_broadcast, "dest on another unit (impl)", bc_dest_other, GPTR),
    R(shoal_broadcast, "dest a pool block (impl)", bc_dest_pool, GPTR),
    R(shoal_broadcast, "past the end", bc_end, BOUNDS),
    R(shoal_broadcast, "SIZE_MAX bytes", bc_huge, BOUNDS),
    R(shoal_broadcast, "freed src on one unit", bc_src_freed_one, GPTR),
    R(shoal_collect, "destroyed team", co_dead, TEAM),
    R(shoal_collect, "NULL src", co_src_null, GPTR),
    R(shoal_collect, "src past the end", co_src_end, BOUNDS),
    R(shoal_collect, "src past the end on one unit", co_src_end_one, BOUNDS),
    R(shoal_collect, "dest too small for the total", co_dest_small, BOUNDS),
    R(shoal_fcollect, "destroyed team", fc_dead, TEAM),
    R(shoal_fcollect, "size x members overflows (impl)", fc_overflow, INVAL),
    R(shoal_fcollect, "dest too small", fc_end, BOUNDS),
    R(shoal_fcollect, "different sizes", fc_sizes_differ, INVAL),
    R(shoal_fcollect, "dest on another unit, one unit (impl)", fc_dest_other_one, GPTR),
    R(shoal_alltoall, "destroyed team", a2a_dead, TEAM),
    R(shoal_alltoall, "dest = src (impl)", a2a_overlap, INVAL),
    R(shoal_alltoall, "dest = src on one unit (impl)", a2a_overlap_one, INVAL),
    R(shoal_alltoall, "size x members overflows (impl)", a2a_overflow, INVAL),
    R(shoal_alltoall, "past the end", a2a_end, BOUNDS),
    R(shoal_alltoall, "src a pool block (impl)", a2a_src_pool, GPTR),
    R(shoal_alltoalls, "element size 3", a2as_elem, INVAL),
    R(shoal_alltoalls, "element size 2 on one unit", a2as_elem_one, INVAL),
    R(shoal_alltoalls, "stride 0", a2as_stride, INVAL),
    R(shoal_alltoalls, "stride -2", a2as_stride_neg, INVAL),
    R(shoal_alltoalls, "count x members overflows (impl)", a2as_overflow, INVAL),
    R(shoal_alltoalls, "dest past the end", a2as_end, BOUNDS),
    R(shoal_alltoalls, "different strides", a2as_strides_differ, INVAL),
    R(shoal_reduce, "destroyed team", red_dead, TEAM),
    R(shoal_reduce, "type 99", red_type, INVAL),
    R(shoal_reduce, "type COUNT_", red_type_count, INVAL),
    R(shoal_reduce, "operation 42", red_op, INVAL),
    R(shoal_reduce, "and on double", red_and_double, INVAL),
    R(shoal_reduce, "count overflows (impl)", red_overflow, INVAL),
    R(shoal_reduce, "past the end", red_end, BOUNDS),
    R(shoal_reduce, "partial overlap (impl)", red_overlap, INVAL),
    R(shoal_reduce, "different operations", red_ops_differ, INVAL),
    R(shoal_reduce, "bad type on one unit", red_type_one, INVAL),
    R(shoal_scan, "destroyed team", scan_dead, TEAM),
    R(shoal_scan, "type -3", scan_type, INVAL),
    R(shoal_scan, "dest = src (impl)", scan_overlap, INVAL),
    R(shoal_scan, "src past the end", scan_end, BOUNDS),
    R(shoal_scan, "inclusive on one unit only", scan_kind_differ, INVAL),
    R(shoal_scan, "NULL dest on one unit", scan_dest_one, GPTR),
    R(shoal_coll_override, "NULL collective", ov_null, INVAL),
    R(shoal_coll_override, "unknown collective", ov_unknown, INVAL),
    R(shoal_coll_override, "bad rules", ov_rules, INVAL),
    R(shoal_coll_last_algorithm, "NULL output", la_out, INVAL),
    R(shoal_coll_last_algorithm, "destroyed team", la_team, TEAM),

    R(shoal_epoch_fence, "freed allocation", fence_freed, GPTR),
    R(shoal_epoch_fence, "NULL global pointer", fence_null, GPTR),
    R(shoal_epoch_fence, "pool block", fence_pool, GPTR),
    R(shoal_epoch_fence, "unknown assertion bit", fence_bits, INVAL),
    R(shoal_epoch_set_design, "design 9", design_range, INVAL),
    R(shoal_epoch_set_design, "freed allocation", design_freed, GPTR),
    R(shoal_epoch_get_design, "NULL output", get_design_out, INVAL),
    R(shoal_epoch_get_design, "freed allocation", get_design_freed, GPTR),
    R(shoal_rma_bcast_enable, "freed allocation", rb_enable_freed, GPTR),
    R(shoal_rma_bcast_enable, "pool block", rb_enable_pool, GPTR),
    R(shoal_rma_bcast_disable, "not registered", rb_disable_unreg, STATE),
    R(shoal_rma_bcast, "0 bytes", rb_zero, INVAL),
    R(shoal_rma_bcast, "NULL request output", rb_req_null, INVAL),
    R(shoal_rma_bcast, "algorithm 5", rb_algo, INVAL),
    R(shoal_rma_bcast, "not registered", rb_unreg, STATE),
    R(shoal_rma_bcast, "freed allocation", rb_freed, GPTR),
    R(shoal_rma_bcast, "pool block", rb_pool, GPTR),
    R(shoal_rma_bcast, "past the end", rb_end, BOUNDS),
    R(shoal_rma_bcast_test, "made-up request", rb_test_garbage, HANDLE),
    R(shoal_rma_bcast_test, "NULL output", rb_test_out, INVAL),
    R(shoal_rma_bcast_wait, "made-up request", rb_wait_garbage, HANDLE),
    R(shoal_rma_bcast_wait, "NULL request", rb_wait_null, INVAL),
    R(shoal_rma_bcast_arrived, "NULL output", rb_arrived_out, INVAL),
    R(shoal_rma_bcast_arrived, "not registered", rb_arrived_unreg, STATE),
    R(shoal_rma_bcast_wait_arrival, "not registered", rb_wait_arrival_unreg, STATE),

    R(shoal_peer_mechanism, "unit = nunits", mech_big, UNIT),
    R(shoal_peer_mechanism, "unit -1", mech_neg, UNIT),
    R(shoal_peer_mechanism, "NULL output", mech_out, INVAL),
    R(shoal_config_var, "index -1", cvar_neg, INVAL),
    R(shoal_config_var, "index = count", cvar_big, INVAL),
    R(shoal_config_var, "NULL output", cvar_out, INVAL),
};

/* ---- Capturing stderr around one call -------------------------------------------------------- */
static int cap_fd = -1;
static int cap_begin(void) {
    fflush(stderr);
    /* the file offset is shared with fd 2 after dup2: rewind it too */
    if (ftruncate(cap_fd, 0) != 0 || lseek(cap_fd, 0, SEEK_SET) != 0) return -1;
    int saved = dup(2);
    if (saved >= 0) dup2(cap_fd, 2);
    return saved;
}
static void cap_end(int saved, char *text, size_t len) {
    fflush(stderr);
    if (saved >= 0) {
        dup2(saved, 2);
        close(saved);
    }
    ssize_t n = pread(cap_fd, text, len - 1, 0);
    text[n > 0 ? n : 0] = '\0';
}

/* NULL when text is exactly one line "shoal: unit U: fn: reason", else what is wrong. */
static const char *one_message(const char *text, const char *fn) {
    char prefix[128];
    snprintf(prefix, sizeof prefix, "shoal: unit %d: %s: ", (int)t_me, fn);
    const char *nl = strchr(text, '\n');
    if (!*text) return "no message";
    if (!nl || nl[1]) return "not exactly one line";
    if (strncmp(text, prefix, strlen(prefix)) != 0) return "not \"shoal: unit U: CALL: ...\"";
    if (nl - text <= (ptrdiff_t)strlen(prefix)) return "no reason given";
    return NULL;
}

/* My parts of every target: untouched. */
static void check_memory(const char *what) {
    void *a;
    if ((a = my_addr(sym))) CHECK_PATTERN(a, SZ, 11, (uint64_t)t_me, 0, what);
    if ((a = my_addr(blk))) CHECK_PATTERN(a, PB, 12, (uint64_t)t_me, 0, what);
    if ((a = my_addr(cd))) CHECK_PATTERN(a, CB, 13, (uint64_t)t_me, 0, what);
    if ((a = my_addr(cs))) CHECK_PATTERN(a, CB, 14, (uint64_t)t_me, 0, what);
    CHECK_PATTERN(lbuf, SZ, 1, (uint64_t)t_me, 0, what);
}

static void fill(shoal_gptr_t gp, size_t n, uint64_t seed) {
    void *a = my_addr(gp);
    REQUIRE(a != NULL, "my own part is not mapped");
    fill_pattern(a, n, seed, (uint64_t)t_me, 0);
}

static void setup(void) {
    fill_pattern(lbuf, SZ, 1, (uint64_t)t_me, 0);
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, SZ, &sym));
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, CB, &cd));
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, CB, &cs));
    REQUIRE_OK(shoal_memalloc(PB, &blk));
    right = unit_gp(sym, (t_me + 1) % t_np);
    fill(sym, SZ, 11);
    fill(blk, PB, 12);
    fill(cd, CB, 13);
    fill(cs, CB, 14);
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 128, &freed));
    freed_addr = my_addr(freed);
    REQUIRE_OK(shoal_team_memfree(freed));
    /* Hold the freed address, so that no later allocation is mapped there (then it would be a
     * good address again). */
    if (freed_addr && mmap(freed_addr, 4096, PROT_NONE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != freed_addr)
        freed_addr = NULL;
    REQUIRE_OK(shoal_memalloc(64, &freed_blk));
    REQUIRE_OK(shoal_memfree(freed_blk));
    REQUIRE_OK(shoal_team_split(SHOAL_TEAM_ALL, 0, &dead_team));
    REQUIRE_OK(shoal_team_memalloc(dead_team, 64, &dead_gp));
    shoal_team_t d = dead_team;
    REQUIRE_OK(shoal_team_destroy(&d));
    REQUIRE_OK(shoal_team_split(SHOAL_TEAM_ALL, t_me == 0 ? 0 : SHOAL_UNDEFINED, &solo));
    if (t_me == 0) REQUIRE_OK(shoal_team_memalloc(solo, 64, &solo_gp));
    REQUIRE_OK(shoal_group_create(&grp));
    REQUIRE_OK(shoal_group_add_member(grp, 0));
    REQUIRE_OK(shoal_group_create(&dead_grp));
    shoal_group_t g = dead_grp;
    REQUIRE_OK(shoal_group_destroy(&g));
    REQUIRE_OK(shoal_lock_create(SHOAL_TEAM_ALL, &lock));
    REQUIRE_OK(shoal_lock_create(SHOAL_TEAM_ALL, &dead_lock));
    shoal_lock_t l = dead_lock;
    REQUIRE_OK(shoal_lock_destroy(&l));
    /* A handle exists only off the direct path; its copy goes stale when it completes. */
    uint8_t tmp[8];
    shoal_handle_t h = SHOAL_HANDLE_NULL;
    REQUIRE_OK(shoal_get_nb(tmp, right, 8, &h));
    stale_h = h;
    REQUIRE_OK(shoal_wait(&h));
    REQUIRE_OK(shoal_barrier(SHOAL_TEAM_ALL));
}

static void teardown(void) {
    CHECK_OK(shoal_lock_destroy(&lock));
    CHECK_OK(shoal_group_destroy(&grp));
    if (t_me == 0) {
        CHECK_OK(shoal_team_memfree(solo_gp));
        CHECK_OK(shoal_team_destroy(&solo));
    }
    CHECK_OK(shoal_memfree(blk));
    CHECK_OK(shoal_team_memfree(cs));
    CHECK_OK(shoal_team_memfree(cd));
    CHECK_OK(shoal_team_memfree(sym));
    if (freed_addr) munmap(freed_addr, 4096);
}

/* Values rather than codes: out-of-range inputs give a harmless answer. */
static void value_calls(void) {
    CHECK(shoal_strerror((shoal_err_t)999) != NULL, "shoal_strerror(999) is NULL");
    CHECK(shoal_strerror((shoal_err_t)-50) != NULL, "shoal_strerror(-50) is NULL");
    CHECK(shoal_mechanism_name((shoal_mechanism_t)99) != NULL, "mechanism_name(99) is NULL");
    CHECK(shoal_type_size((shoal_type_t)99) == 0, "type_size(99) is not 0");
    CHECK(shoal_type_size((shoal_type_t)-1) == 0, "type_size(-1) is not 0");
    CHECK(shoal_version(NULL, NULL, NULL) != NULL, "shoal_version(NULL...) is NULL");
}

int main(int argc, char **argv) {
    setenv("SHOAL_CHECK_COLLECTIVES", "1", 0); /* the "one unit" rows need checked mode */
    test_begin(&argc, &argv);
    double t0 = test_now();
    FILE *cap = tmpfile();
    REQUIRE(cap != NULL, "no temporary file for stderr");
    cap_fd = fileno(cap);
    setup();
    value_calls();

    size_t n = sizeof cases / sizeof cases[0], skipped = 0;
    char text[4096];
    for (size_t i = 0; i < n; i++) {
        const bad_case_t *c = &cases[i];
        g_wrote = NULL;
        double t_row = test_now();
        int saved = cap_begin();
        shoal_err_t e = c->call();
        cap_end(saved, text, sizeof text);
        if (e == SKIP) {
            skipped++;
        } else {
            CHECK(e == c->want, "%s [%s]: returned %s, expected %s", c->fn, c->kind,
                  shoal_strerror(e), shoal_strerror(c->want));
            const char *why = e == SHOAL_OK ? NULL : one_message(text, c->fn);
            CHECK(!why, "%s [%s]: message: %s; stderr was: \"%s\"", c->fn, c->kind, why, text);
            CHECK(!g_wrote, "%s [%s]: an output was written (%s)", c->fn, c->kind, g_wrote);
        }
        /* Every unit, every row: afterwards nothing moved anywhere. A failing call moves no
         * data and a blocking one completes before it returns, so MPI_Barrier orders enough (and
         * costs far less than Shoal's barrier off the direct path on this oversubscribed
         * machine); Shoal's barrier also completes anything non-blocking, every 16 rows. */
        if (i % 16 == 15)
            CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
        else
            MPI_Barrier(MPI_COMM_WORLD);
        double dt = test_now() - t_row;
        if (dt > 1.0 && t_me == 0)
            printf("test_bad_input: %s [%s] took %.2f s\n", c->fn, c->kind, dt);
        char what[160];
        snprintf(what, sizeof what, "target memory after %s [%s]", c->fn, c->kind);
        check_memory(what);
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    check_memory("target memory after every case");
    teardown();
    fclose(cap);
    if (t_me == 0)
        printf("test_bad_input: %zu cases (%zu skipped here), %d units, %.2f s\n", n, skipped, t_np,
               test_now() - t0);
    return test_end("test_bad_input");
}
