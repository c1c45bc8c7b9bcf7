/* Groups: local, sorted sets of absolute unit ids, checked against a bitmask reference.
 *
 * Every subset of the units (all of them when there are few units) and every pair of subsets go
 * through union, intersect, split and the membership queries; random sequences of add/remove
 * (including duplicates, absent units and out-of-range ids) are replayed on a group and on the
 * reference side by side. Group calls need shoal_init: ids are checked against the unit count. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define MAXU 32 /* the reference is a 32-bit mask: units beyond it are not used */

static int32_t nu; /* units the reference covers: min(t_np, MAXU) */
static uint64_t rng;

static uint64_t rnd(void) {
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int popcount(uint32_t m) {
    return __builtin_popcount(m);
}

/* A group holding the units of mask, added in a random order with some added twice. */
static shoal_group_t make_group(uint32_t mask) {
    shoal_group_t g = NULL;
    if (!CHECK_OK(shoal_group_create(&g))) return NULL;
    shoal_unit_t order[MAXU];
    int n = 0;
    for (int u = 0; u < nu; u++)
        if (mask & (1u << u)) order[n++] = u;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rnd() % (uint64_t)(i + 1));
        shoal_unit_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < n; i++) {
        CHECK_OK(shoal_group_add_member(g, order[i]));
        if (rnd() % 4 == 0) CHECK_OK(shoal_group_add_member(g, order[i])); /* no-op */
    }
    return g;
}

/* Checks that g holds exactly the units of mask, ascending; returns 1 when it does. */
static int group_matches(shoal_group_t g, uint32_t mask, const char *what) {
    int32_t size = -1;
    if (!CHECK_OK(shoal_group_size(g, &size))) return 0;
    int ok = CHECK(size == popcount(mask), "%s: size %d, expected %d (mask 0x%x)", what, size,
                   popcount(mask), mask);
    shoal_unit_t members[MAXU + 1];
    if (ok && size > 0) {
        members[size] = -77; /* must not be written */
        ok &= CHECK_OK(shoal_group_members(g, members));
        ok &= CHECK(members[size] == -77, "%s: group_members wrote past size", what);
        int k = 0;
        for (int u = 0; u < nu && ok; u++) {
            if (!(mask & (1u << u))) continue;
            ok &= CHECK(members[k] == u, "%s: member %d is %d, expected %d (mask 0x%x)", what, k,
                        members[k], u, mask);
            k++;
        }
    }
    for (int u = 0; u < nu; u++) {
        int is = -1;
        ok &= CHECK_OK(shoal_group_is_member(g, u, &is));
        ok &= CHECK(is == !!(mask & (1u << u)), "%s: is_member(%d) = %d (mask 0x%x)", what, u, is,
                    mask);
    }
    return ok;
}

/* Split of a set with members mask into n parts: contiguous in order, sizes differ by <= 1,
 * parts beyond the size empty. */
static void check_split(shoal_group_t g, uint32_t mask, int32_t n) {
    shoal_group_t parts[MAXU + 3];
    for (int i = 0; i < n + 1; i++) parts[i] = NULL;
    if (!CHECK_OK(shoal_group_split(g, n, parts))) return;
    CHECK(parts[n] == NULL, "split(0x%x, %d) wrote past parts[n-1]", mask, n);
    int s = popcount(mask);
    shoal_unit_t sorted[MAXU];
    int k = 0;
    for (int u = 0; u < nu; u++)
        if (mask & (1u << u)) sorted[k++] = u;
    int pos = 0, minsz = s + 1, maxsz = -1;
    for (int i = 0; i < n; i++) {
        int32_t ps = -1;
        if (!CHECK(parts[i] != NULL, "split(0x%x, %d): part %d is NULL", mask, n, i)) continue;
        CHECK_OK(shoal_group_size(parts[i], &ps));
        if (ps < minsz) minsz = ps;
        if (ps > maxsz) maxsz = ps;
        if (s < n) CHECK(ps == (i < s ? 1 : 0), "split(0x%x, %d): part %d has %d", mask, n, i, ps);
        uint32_t expect = 0;
        for (int j = 0; j < ps && pos + j < s; j++) expect |= 1u << sorted[pos + j];
        CHECK(pos + ps <= s, "split(0x%x, %d): parts hold more than %d units", mask, n, s);
        char what[64];
        snprintf(what, sizeof what, "split(0x%x, %d) part %d", mask, n, i);
        group_matches(parts[i], expect, what);
        pos += ps;
        CHECK_OK(shoal_group_destroy(&parts[i]));
        CHECK(parts[i] == NULL, "group_destroy did not set the group to NULL");
    }
    CHECK(pos == s, "split(0x%x, %d): parts hold %d units, expected %d", mask, n, pos, s);
    CHECK(maxsz - minsz <= 1, "split(0x%x, %d): part sizes from %d to %d", mask, n, minsz, maxsz);
}

/* Random add/remove/clone sequences, side by side with the mask. */
static void random_sequences(int nseq, int nops) {
    for (int s = 0; s < nseq; s++) {
        shoal_group_t g = NULL;
        CHECK_OK(shoal_group_create(&g));
        uint32_t mask = 0;
        for (int op = 0; op < nops; op++) {
            int kind = (int)(rnd() % 8);
            shoal_unit_t u = (shoal_unit_t)(rnd() % (uint64_t)nu);
            shoal_err_t e;
            switch (kind) {
            case 0:
            case 1:
            case 2:
                CHECK_OK(shoal_group_add_member(g, u));
                mask |= 1u << u;
                break;
            case 3:
            case 4:
                e = shoal_group_remove_member(g, u);
                if (mask & (1u << u))
                    CHECK(e == SHOAL_OK, "remove of member %d returned %s", u, shoal_strerror(e));
                else
                    CHECK(e == SHOAL_ERR_UNIT, "remove of absent %d returned %s, expected UNIT", u,
                          shoal_strerror(e));
                mask &= ~(1u << u);
                break;
            case 5: {
                shoal_unit_t bad =
                    (rnd() & 1) ? t_np + (shoal_unit_t)(rnd() % 3) : -1 - (int)(rnd() % 3);
                e = shoal_group_add_member(g, bad);
                CHECK(e == SHOAL_ERR_UNIT, "add of out-of-range %d returned %s", bad,
                      shoal_strerror(e));
                e = shoal_group_remove_member(g, bad);
                CHECK(e == SHOAL_ERR_UNIT, "remove of out-of-range %d returned %s", bad,
                      shoal_strerror(e));
                break;
            }
            case 6: { /* a clone is independent of its original */
                shoal_group_t c = NULL;
                CHECK_OK(shoal_group_clone(g, &c));
                group_matches(c, mask, "clone");
                shoal_unit_t v = (shoal_unit_t)(rnd() % (uint64_t)nu);
                if (mask & (1u << v))
                    CHECK_OK(shoal_group_remove_member(c, v));
                else
                    CHECK_OK(shoal_group_add_member(c, v));
                group_matches(c, mask ^ (1u << v), "modified clone");
                CHECK_OK(shoal_group_destroy(&c));
                break;
            }
            default:
                break;
            }
            group_matches(g, mask, "random sequence");
        }
        CHECK_OK(shoal_group_destroy(&g));
    }
}

int main(int argc, char **argv) {
    /* Thousands of expected failures (removing absent units...): keep stderr readable unless the
     * environment asks for the messages. */
    setenv("SHOAL_DEBUG", "0", 0);
    test_begin(&argc, &argv);
    double t0 = test_now();
    nu = t_np < MAXU ? t_np : MAXU;
    rng = 0x5EED0000ull + (uint64_t)t_me;

    /* Empty group, destroy. */
    shoal_group_t e = NULL;
    CHECK_OK(shoal_group_create(&e));
    group_matches(e, 0, "empty group");
    CHECK_OK(shoal_group_destroy(&e));
    CHECK(e == NULL, "group_destroy did not set the group to NULL");

    /* Every subset when there are few units, else a random selection. */
    int exhaustive = nu <= 8;
    int nmasks = exhaustive ? (1 << nu) : 256;
    uint32_t full = nu == 32 ? 0xFFFFFFFFu : (1u << nu) - 1;
    uint32_t *masks = malloc(sizeof *masks * (size_t)nmasks);
    shoal_group_t *groups = malloc(sizeof *groups * (size_t)nmasks);
    for (int i = 0; i < nmasks; i++) {
        masks[i] = exhaustive ? (uint32_t)i : (uint32_t)rnd() & full;
        groups[i] = make_group(masks[i]);
        group_matches(groups[i], masks[i], "built group");
    }

    /* Union and intersection of every pair (and of a group with itself). */
    for (int i = 0; i < nmasks; i++) {
        for (int j = 0; j < nmasks; j++) {
            shoal_group_t u = NULL, x = NULL;
            if (CHECK_OK(shoal_group_union(groups[i], groups[j], &u))) {
                group_matches(u, masks[i] | masks[j], "union");
                CHECK_OK(shoal_group_destroy(&u));
            }
            if (CHECK_OK(shoal_group_intersect(groups[i], groups[j], &x))) {
                group_matches(x, masks[i] & masks[j], "intersect");
                CHECK_OK(shoal_group_destroy(&x));
            }
        }
        /* The inputs are unchanged. */
        group_matches(groups[i], masks[i], "union/intersect input");
    }

    /* Split of every set into 1 .. nu+2 parts. */
    for (int i = 0; i < nmasks; i++)
        for (int32_t n = 1; n <= nu + 2; n++) check_split(groups[i], masks[i], n);
    /* A bad part count fails and writes nothing. */
    shoal_group_t parts[2] = {NULL, NULL};
    shoal_err_t err = shoal_group_split(groups[nmasks - 1], 0, parts);
    CHECK(err == SHOAL_ERR_INVAL && parts[0] == NULL,
          "split into 0 parts returned %s, expected INVAL", shoal_strerror(err));
    err = shoal_group_split(groups[nmasks - 1], -3, parts);
    CHECK(err == SHOAL_ERR_INVAL && parts[0] == NULL,
          "split into -3 parts returned %s, expected INVAL", shoal_strerror(err));

    /* Removing every member one by one, in random order, ends with an empty group. */
    for (int i = 0; i < nmasks; i += exhaustive ? 1 : 7) {
        shoal_group_t g = NULL;
        CHECK_OK(shoal_group_clone(groups[i], &g));
        uint32_t m = masks[i];
        while (m) {
            shoal_unit_t u = (shoal_unit_t)(rnd() % (uint64_t)nu);
            if (!(m & (1u << u))) continue;
            CHECK_OK(shoal_group_remove_member(g, u));
            m &= ~(1u << u);
            err = shoal_group_remove_member(g, u);
            CHECK(err == SHOAL_ERR_UNIT, "second remove of %d returned %s", u, shoal_strerror(err));
            group_matches(g, m, "remove");
        }
        CHECK_OK(shoal_group_destroy(&g));
        group_matches(groups[i], masks[i], "clone's original after removes");
    }

    random_sequences(40, 200);

    /* Out-of-range ids on a full group change nothing. */
    shoal_group_t all = make_group(full);
    shoal_unit_t bad[] = {t_np, t_np + 1, -1, INT32_MIN, INT32_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err = shoal_group_add_member(all, bad[i]);
        CHECK(err == SHOAL_ERR_UNIT, "add(%d) returned %s", bad[i], shoal_strerror(err));
        err = shoal_group_remove_member(all, bad[i]);
        CHECK(err == SHOAL_ERR_UNIT, "remove(%d) returned %s", bad[i], shoal_strerror(err));
        int is = 42;
        err = shoal_group_is_member(all, bad[i], &is);
        CHECK(err == SHOAL_ERR_UNIT && is == 42, "is_member(%d) returned %s, output %d", bad[i],
              shoal_strerror(err), is);
    }
    group_matches(all, full, "full group after out-of-range calls");

    /* NULL arguments. */
    err = shoal_group_create(NULL);
    CHECK(err == SHOAL_ERR_INVAL, "group_create(NULL) returned %s", shoal_strerror(err));
    int32_t sz = 99;
    err = shoal_group_size(NULL, &sz);
    CHECK(err == SHOAL_ERR_INVAL && sz == 99, "group_size(NULL group) returned %s",
          shoal_strerror(err));
    err = shoal_group_size(all, NULL);
    CHECK(err == SHOAL_ERR_INVAL, "group_size(g, NULL) returned %s", shoal_strerror(err));
    err = shoal_group_union(all, all, NULL);
    CHECK(err == SHOAL_ERR_INVAL, "group_union(.., NULL) returned %s", shoal_strerror(err));
    err = shoal_group_members(all, NULL);
    CHECK(err == SHOAL_ERR_INVAL, "group_members(g, NULL) returned %s", shoal_strerror(err));
    CHECK_OK(shoal_group_destroy(&all));

    for (int i = 0; i < nmasks; i++) CHECK_OK(shoal_group_destroy(&groups[i]));
    free(groups);
    free(masks);
    if (t_me == 0)
        printf("test_groups: %d units, %d sets, %.2f s\n", t_np, nmasks, test_now() - t0);
    return test_end("test_groups");
}
