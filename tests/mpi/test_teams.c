/* Teams: creation from groups of several shapes, split, node teams, nesting, id uniqueness.
 *
 * For every team: size, my relative id (ascending absolute order), l2g/g2l as inverses, g2l of a
 * non-member gives ERR_UNIT, the parent, the group; then a symmetric allocation on the team, a
 * ring put and a ring get among its members (pointers derived with shoal_gptr_setunit and absolute
 * ids), data verified, and a barrier on the team. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define MAXU   32
#define MAXIDS 1024

static int32_t nu; /* units covered by the masks: min(t_np, MAXU) */
static shoal_team_t ids_seen[MAXIDS];
static int nids;

static double t_start;
static void phase(const char *what) {
    if (t_me == 0 && getenv("TEST_VERBOSE")) printf("  %.3f s: %s\n", test_now() - t_start, what);
}

static int popcount(uint32_t m) {
    return __builtin_popcount(m);
}
static int in_mask(uint32_t mask, shoal_unit_t u) {
    return u >= 0 && u < MAXU && (mask & (1u << u));
}

/* Remembers a team id; every id handed out during the run must be new. */
static void record_id(shoal_team_t t, const char *what) {
    CHECK(t != SHOAL_TEAM_NULL && t != SHOAL_TEAM_ALL, "%s: got team id %d", what, t);
    for (int i = 0; i < nids; i++)
        CHECK(ids_seen[i] != t, "%s: team id %d handed out again (first seen as #%d)", what, t, i);
    if (nids < MAXIDS) ids_seen[nids++] = t;
}

/* Checks a team against the set of absolute ids it must hold (members: mask); non-members must
 * have received SHOAL_TEAM_NULL. */
static void check_team(shoal_team_t t, uint32_t mask, shoal_team_t parent, const char *what) {
    if (!in_mask(mask, t_me)) {
        CHECK(t == SHOAL_TEAM_NULL, "%s: non-member got team %d, expected TEAM_NULL", what, t);
        return;
    }
    if (!CHECK(t != SHOAL_TEAM_NULL, "%s: member got TEAM_NULL", what)) return;
    int32_t size = -1;
    shoal_unit_t rel = -1;
    shoal_team_t par = -99;
    CHECK_OK(shoal_team_size(t, &size));
    CHECK_OK(shoal_team_myid(t, &rel));
    CHECK_OK(shoal_team_parent(t, &par));
    CHECK(size == popcount(mask), "%s: size %d, expected %d", what, size, popcount(mask));
    if (t != SHOAL_TEAM_ALL) CHECK(par == parent, "%s: parent %d, expected %d", what, par, parent);
    int expect_rel = popcount(mask & ((1u << t_me) - 1));
    CHECK(rel == expect_rel, "%s: my relative id %d, expected %d", what, rel, expect_rel);

    /* l2g walks the members in ascending absolute order; g2l is its inverse. */
    int r = 0;
    for (shoal_unit_t u = 0; u < nu; u++) {
        shoal_unit_t got = -5;
        shoal_err_t e = shoal_team_unit_g2l(t, u, &got);
        if (in_mask(mask, u)) {
            CHECK(e == SHOAL_OK && got == r, "%s: g2l(%d) = %d (%s), expected %d", what, u, got,
                  shoal_strerror(e), r);
            shoal_unit_t back = -5;
            CHECK_OK(shoal_team_unit_l2g(t, r, &back));
            CHECK(back == u, "%s: l2g(%d) = %d, expected %d", what, r, back, u);
            r++;
        } else {
            CHECK(e == SHOAL_ERR_UNIT && got == -5, "%s: g2l(non-member %d) returned %s, out %d",
                  what, u, shoal_strerror(e), got);
        }
    }
    shoal_unit_t out = -5;
    shoal_err_t e = shoal_team_unit_l2g(t, size, &out);
    CHECK(e == SHOAL_ERR_UNIT && out == -5, "%s: l2g(size) returned %s", what, shoal_strerror(e));
    e = shoal_team_unit_l2g(t, -1, &out);
    CHECK(e == SHOAL_ERR_UNIT && out == -5, "%s: l2g(-1) returned %s", what, shoal_strerror(e));
    e = shoal_team_unit_g2l(t, t_np, &out);
    CHECK(e == SHOAL_ERR_UNIT && out == -5, "%s: g2l(nunits) returned %s", what, shoal_strerror(e));

    /* The team's group holds its members. */
    shoal_group_t g = NULL;
    if (CHECK_OK(shoal_team_get_group(t, &g))) {
        int32_t gs = -1;
        CHECK_OK(shoal_group_size(g, &gs));
        CHECK(gs == size, "%s: group size %d, team size %d", what, gs, size);
        if (gs == size && gs > 0) {
            shoal_unit_t m[MAXU];
            CHECK_OK(shoal_group_members(g, m));
            int k = 0;
            for (shoal_unit_t u = 0; u < nu; u++)
                if (in_mask(mask, u)) {
                    CHECK(m[k] == u, "%s: group member %d is %d, expected %d", what, k, m[k], u);
                    k++;
                }
        }
        CHECK_OK(shoal_group_destroy(&g));
    }
}

/* Members only: symmetric allocation on t, ring put to the next member, ring get from the one
 * after, verify, barrier, free. */
static void team_ring(shoal_team_t t, const char *what) {
    if (t == SHOAL_TEAM_NULL) return;
    /* Derived from the label, not from a counter: members call this a different number of times,
     * and every member must ask for the same size. */
    uint64_t seed = 1469598103934665603ull;
    for (const char *c = what; *c; c++) seed = (seed ^ (uint8_t)*c) * 1099511628211ull;
    int32_t size = 0;
    shoal_unit_t rel = 0, next = 0, next2 = 0, prev = 0;
    CHECK_OK(shoal_team_size(t, &size));
    CHECK_OK(shoal_team_myid(t, &rel));
    if (size <= 0) return;
    CHECK_OK(shoal_team_unit_l2g(t, (rel + 1) % size, &next));
    CHECK_OK(shoal_team_unit_l2g(t, (rel + 2) % size, &next2));
    CHECK_OK(shoal_team_unit_l2g(t, (rel + size - 1) % size, &prev));
    size_t n = 1000 + 8 * (size_t)(seed % 64);
    shoal_gptr_t gp = SHOAL_GPTR_NULL;
    if (!CHECK_OK(shoal_team_memalloc(t, n, &gp))) return;
    CHECK(gp.unit == (uint32_t)t_me, "%s: memalloc result points at unit %u, expected %d", what,
          gp.unit, t_me);
    uint8_t *buf = malloc(n), *in = malloc(n);
    fill_pattern(buf, n, seed, (uint64_t)t_me, 0);
    CHECK_OK(shoal_put(shoal_gptr_setunit(gp, next), buf, n));
    CHECK_OK(shoal_barrier(t));
    void *mine = NULL;
    if (CHECK_OK(shoal_gptr_getaddr(gp, &mine)) &&
        CHECK(mine != NULL, "%s: own part not mapped", what))
        CHECK_PATTERN(mine, n, seed, (uint64_t)prev, 0, what);
    memset(in, 0, n);
    CHECK_OK(shoal_get(in, shoal_gptr_setunit(gp, next), n)); /* my own data, put there */
    CHECK_PATTERN(in, n, seed, (uint64_t)t_me, 0, what);
    memset(in, 0, n);
    CHECK_OK(shoal_get(in, shoal_gptr_setunit(gp, next2), n)); /* written by next */
    CHECK_PATTERN(in, n, seed, (uint64_t)next, 0, what);
    CHECK_OK(shoal_barrier(t));
    CHECK_OK(shoal_team_memfree(gp));
    free(buf);
    free(in);
}

/* Creates a team from mask over parent (collective over parent; the group is built by adding
 * the members in descending order when reversed is set, to check that order does not matter). */
static shoal_team_t create_from_mask(shoal_team_t parent, uint32_t mask, int reversed,
                                     const char *what) {
    shoal_group_t g = NULL;
    CHECK_OK(shoal_group_create(&g));
    for (int i = 0; i < nu; i++) {
        shoal_unit_t u = reversed ? nu - 1 - i : i;
        if (in_mask(mask, u)) CHECK_OK(shoal_group_add_member(g, u));
    }
    shoal_team_t t = -99;
    CHECK_OK(shoal_team_create(parent, g, &t));
    CHECK_OK(shoal_group_destroy(&g));
    if (t != SHOAL_TEAM_NULL && t != -99) record_id(t, what);
    return t;
}

static void destroy(shoal_team_t *t, const char *what) {
    if (*t == SHOAL_TEAM_NULL) return;
    CHECK_OK(shoal_team_destroy(t));
    CHECK(*t == SHOAL_TEAM_NULL, "%s: team_destroy left the id as %d", what, *t);
}

/* One shape: create over ALL, check, ring, destroy. */
static void shape(uint32_t mask, int reversed, const char *what) {
    if (!mask) return;
    shoal_team_t t = create_from_mask(SHOAL_TEAM_ALL, mask, reversed, what);
    phase("created");
    check_team(t, mask, SHOAL_TEAM_ALL, what);
    team_ring(t, what);
    phase("ring done");
    destroy(&t, what);
    phase(what);
}

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    double t0 = test_now();
    t_start = t0;
    nu = t_np < MAXU ? t_np : MAXU;
    uint32_t full = nu == 32 ? 0xFFFFFFFFu : (1u << nu) - 1;
    uint32_t even = 0, odd = 0, strided = 0, odd_rev = 0;
    for (int u = 0; u < nu; u++) {
        if (u % 2 == 0) even |= 1u << u;
        if (u % 2 == 1) odd |= 1u << u;
        if (u % 3 == 0) strided |= 1u << u;
        if ((nu - 1 - u) % 2 == 0) odd_rev |= 1u << u; /* last, last-2, ... */
    }

    /* The team of all units. */
    check_team(SHOAL_TEAM_ALL, full, SHOAL_TEAM_NULL, "TEAM_ALL");
    team_ring(SHOAL_TEAM_ALL, "TEAM_ALL ring");

    shape(full, 0, "all units");
    shape(even, 0, "even units");
    shape(odd, 0, "odd units");
    shape(full, 1, "all units, reversed input");
    shape(odd_rev, 1, "every other unit from the last, reversed input");
    shape(strided, 0, "strided {0,3,6,..}");
    shape(1u << (nu - 1), 0, "singleton {last}");
    shape(1u, 1, "singleton {0}");

    phase("shapes");
    /* Split: colour by id mod 3, with every fourth unit in no team. */
    {
        int colour = t_me % 4 == 3 ? SHOAL_UNDEFINED : t_me % 3;
        uint32_t mask = 0;
        if (colour != SHOAL_UNDEFINED)
            for (int u = 0; u < nu; u++)
                if (u % 4 != 3 && u % 3 == colour) mask |= 1u << u;
        shoal_team_t t = -99;
        CHECK_OK(shoal_team_split(SHOAL_TEAM_ALL, colour, &t));
        if (t != SHOAL_TEAM_NULL) record_id(t, "split mod 3");
        check_team(t, mask, SHOAL_TEAM_ALL, "split mod 3");
        team_ring(t, "split mod 3");
        destroy(&t, "split mod 3");
    }
    /* Singleton teams: every unit its own colour. */
    {
        shoal_team_t t = -99;
        CHECK_OK(shoal_team_split(SHOAL_TEAM_ALL, (int)t_me, &t));
        if (t != SHOAL_TEAM_NULL) record_id(t, "split singleton");
        check_team(t, 1u << t_me, SHOAL_TEAM_ALL, "split singleton");
        team_ring(t, "split singleton");
        destroy(&t, "split singleton");
    }
    /* Every unit passes SHOAL_UNDEFINED: nobody gets a team. */
    {
        shoal_team_t t = -99;
        CHECK_OK(shoal_team_split(SHOAL_TEAM_ALL, SHOAL_UNDEFINED, &t));
        CHECK(t == SHOAL_TEAM_NULL, "split with UNDEFINED gave %d", t);
    }

    phase("splits");
    /* Nesting: halves by parity, then split again inside, then a created team inside that. */
    {
        shoal_team_t half = -99, quarter = -99;
        CHECK_OK(shoal_team_split(SHOAL_TEAM_ALL, t_me % 2, &half));
        record_id(half, "half");
        uint32_t hmask = t_me % 2 ? odd : even;
        check_team(half, hmask, SHOAL_TEAM_ALL, "half");
        shoal_unit_t hrel = 0;
        CHECK_OK(shoal_team_myid(half, &hrel));
        /* Split the half by relative id / 2: pairs of consecutive members. */
        CHECK_OK(shoal_team_split(half, hrel / 2, &quarter));
        record_id(quarter, "quarter");
        uint32_t qmask = 0;
        int k = 0;
        for (int u = 0; u < nu; u++)
            if (in_mask(hmask, u)) {
                if (k / 2 == hrel / 2) qmask |= 1u << u;
                k++;
            }
        check_team(quarter, qmask, half, "quarter (split of half)");
        team_ring(quarter, "quarter");
        team_ring(half, "half");
        /* Created inside the half: its members except its first one. */
        uint32_t sub = hmask & (hmask - 1);
        if (sub) {
            shoal_team_t t = create_from_mask(half, sub, 1, "half minus first");
            check_team(t, sub, half, "half minus first");
            team_ring(t, "half minus first");
            /* A third level. */
            if (t != SHOAL_TEAM_NULL) {
                shoal_team_t t3 = -99;
                CHECK_OK(shoal_team_split(t, 0, &t3));
                if (t3 != SHOAL_TEAM_NULL) record_id(t3, "third level");
                check_team(t3, sub, t, "third level");
                team_ring(t3, "third level");
                destroy(&t3, "third level");
            }
            destroy(&t, "half minus first");
        }
        destroy(&quarter, "quarter");
        destroy(&half, "half");
    }

    phase("nesting");
    /* Node teams: the units sharing my node (all of them on this machine, but compare with the
     * runtime's node list), of ALL and of the even units. */
    {
        int32_t nn = 0;
        CHECK_OK(shoal_node_size(&nn));
        uint32_t nmask = 0;
        if (nn > 0 && nn <= t_np) {
            shoal_unit_t units[nn];
            CHECK_OK(shoal_node_units(units, nn));
            for (int i = 0; i < nn; i++)
                if (units[i] < MAXU) nmask |= 1u << units[i];
            CHECK(in_mask(nmask, t_me), "node units do not include me");
        }
        shoal_team_t node = -99;
        CHECK_OK(shoal_team_node(SHOAL_TEAM_ALL, &node));
        record_id(node, "node");
        check_team(node, nmask, SHOAL_TEAM_ALL, "node team");
        team_ring(node, "node team");
        destroy(&node, "node");

        shoal_team_t ev = create_from_mask(SHOAL_TEAM_ALL, even, 0, "even for node");
        if (ev != SHOAL_TEAM_NULL) {
            shoal_team_t en = -99;
            CHECK_OK(shoal_team_node(ev, &en));
            record_id(en, "node of even");
            check_team(en, nmask & even, ev, "node team of even units");
            team_ring(en, "node team of even units");
            destroy(&en, "node of even");
        }
        destroy(&ev, "even for node");
    }

    phase("node teams");
    /* Ids are never reused: create and destroy many times. */
    double tc = test_now();
    int nchurn = 30;
    for (int i = 0; i < nchurn; i++) {
        /* Fit into a few seconds: creating a team is a string of collectives, which crawl on
         * oversubscribed MPICH. */
        if (i == 2) nchurn = test_scale((test_now() - tc) / 2, 3.0, 6, nchurn);
        shoal_team_t t = -99;
        if (i % 2 == 0) {
            t = create_from_mask(SHOAL_TEAM_ALL, i % 4 == 0 ? full : even, 0, "churn create");
        } else {
            CHECK_OK(shoal_team_split(SHOAL_TEAM_ALL, 0, &t));
            record_id(t, "churn split");
        }
        destroy(&t, "churn");
    }
    phase("churn");
    /* Several teams alive at once, destroyed in an order other than creation. */
    {
        shoal_team_t live[4];
        for (int i = 0; i < 4; i++) {
            CHECK_OK(shoal_team_split(SHOAL_TEAM_ALL, (t_me + i) % 2, &live[i]));
            record_id(live[i], "live");
        }
        team_ring(live[2], "one of four live teams");
        for (int i = 0; i < 4; i++) destroy(&live[(i * 3) % 4], "live");
    }

    double dt = test_now() - t0;
    if (t_me == 0) printf("test_teams: %d units, %d team ids, %.2f s\n", t_np, nids, dt);
    return test_end("test_teams");
}
