/* Group algebra against a bitmask reference: random sets, every operation, many rounds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "team/group_algebra.h"

#define UNITS 64
#include "unit_check.h"

static uint64_t mask_of(const struct shoal_group *g) {
    uint64_t m = 0;
    for (int32_t i = 0; i < g->size; i++) m |= 1ULL << g->units[i];
    return m;
}

/* Sorted strictly ascending, and exactly the reference set. */
static void expect(const struct shoal_group *g, uint64_t want, const char *what) {
    for (int32_t i = 1; i < g->size; i++)
        CHECK(g->units[i - 1] < g->units[i], "%s: not strictly ascending at %d", what, (int)i);
    CHECK(mask_of(g) == want, "%s: members %llx, want %llx", what, (unsigned long long)mask_of(g),
          (unsigned long long)want);
    CHECK(g->size == __builtin_popcountll(want), "%s: size %d, want %d", what, (int)g->size,
          __builtin_popcountll(want));
}

static uint64_t rand64(void) {
    return ((uint64_t)rand() << 40) ^ ((uint64_t)rand() << 20) ^ rand();
}

static void random_group(struct shoal_group *g, uint64_t *mask) {
    *mask = rand64() & rand64(); /* sparse-ish */
    ga_init(g);
    /* add in a scrambled order, with duplicates: the group must still come out sorted */
    for (int k = 0; k < 3 * UNITS; k++) {
        int u = rand() % UNITS;
        if (*mask >> u & 1) CHECK(ga_add(g, u) == 0, "add %d", u);
    }
    for (int u = 0; u < UNITS; u++)
        if (*mask >> u & 1) CHECK(ga_add(g, u) == 0, "add %d", u);
}

int main(void) {
    srand(12345);
    for (int round = 0; round < 2000; round++) {
        struct shoal_group a, b, u, in, c;
        uint64_t ma, mb;
        random_group(&a, &ma);
        random_group(&b, &mb);
        expect(&a, ma, "build");
        ga_init(&u);
        ga_init(&in);
        ga_init(&c);
        CHECK(ga_union(&a, &b, &u) == 0, "union");
        expect(&u, ma | mb, "union");
        CHECK(ga_intersect(&a, &b, &in) == 0, "intersect");
        expect(&in, ma & mb, "intersect");
        CHECK(ga_copy(&a, &c) == 0, "copy");
        expect(&c, ma, "copy");
        for (int unit = 0; unit < UNITS; unit++) {
            int32_t idx = ga_find(&a, unit);
            CHECK((idx >= 0) == (int)(ma >> unit & 1), "find %d", unit);
            if (idx >= 0) CHECK(a.units[idx] == unit, "find index");
        }
        /* remove present and absent members */
        int victim = rand() % UNITS;
        int rc = ga_remove(&c, victim);
        CHECK(rc == ((ma >> victim & 1) ? 0 : -ENOENT), "remove %d rc %d", victim, rc);
        expect(&c, ma & ~(1ULL << victim), "remove");
        /* split: contiguous, sizes differ by at most one, together the whole group */
        int32_t n = 1 + rand() % 9;
        struct shoal_group parts[9];
        for (int p = 0; p < n; p++) ga_init(&parts[p]);
        CHECK(ga_split(&a, n, parts) == 0, "split");
        int32_t at = 0, minsz = a.size, maxsz = 0;
        for (int p = 0; p < n; p++) {
            for (int32_t i = 0; i < parts[p].size; i++, at++)
                CHECK(parts[p].units[i] == a.units[at], "split %d part %d not contiguous", n, p);
            if (parts[p].size < minsz) minsz = parts[p].size;
            if (parts[p].size > maxsz) maxsz = parts[p].size;
            ga_release(&parts[p]);
        }
        CHECK(at == a.size, "split covers %d of %d", (int)at, (int)a.size);
        CHECK(maxsz - minsz <= 1, "split sizes from %d to %d", (int)minsz, (int)maxsz);
        ga_release(&a);
        ga_release(&b);
        ga_release(&u);
        ga_release(&in);
        ga_release(&c);
    }
    /* empty groups and a bad split */
    struct shoal_group e, f, out, p1[3];
    ga_init(&e);
    ga_init(&f);
    ga_init(&out);
    CHECK(ga_union(&e, &f, &out) == 0 && out.size == 0, "empty union");
    CHECK(ga_split(&e, 0, p1) == -EINVAL, "split into 0 parts must fail");
    for (int p = 0; p < 3; p++) ga_init(&p1[p]);
    CHECK(ga_split(&e, 3, p1) == 0 && p1[0].size == 0 && p1[2].size == 0, "split empty");
    ga_release(&out);
    if (failures) {
        printf("test_group_algebra: FAILED (%d checks)\n", failures);
        return 1;
    }
    printf("test_group_algebra: OK\n");
    return 0;
}
