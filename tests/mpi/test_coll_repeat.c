/* A team keeps its last broadcast, reduce, scan or alltoall checked and with its algorithm chosen,
 * and runs the same call again without either (src/coll/api.c, "Repeats"). What must never happen
 * is a kept call running when it no longer holds. Cases, every result checked on every member:
 *   - 40 repeats of one broadcast (and of one reduce, scan, alltoall, fcollect), fresh data each
 *     time;
 *   - the three interleaved on the same buffers, and one argument changed at a time (root, size,
 *     operation, type, dest == src), so every call differs from the kept one in one way only;
 *   - the rules changed between two repeats (shoal_coll_override): the new choice runs, and the
 *     old one again once the override is gone;
 *   - the source freed between two repeats: the same call is refused (SHOAL_ERR_GPTR), also once
 *     a new allocation may have taken the freed one's id; the new allocation works;
 *   - an fcollect that fails after the checks (SHOAL_COLL_FCOLLECT forces eager on the direct
 *     path, and eager refuses a block larger than its cells) between two repeats of a small one
 *     (ring, which reads the per-member sizes):
 *     fcollect's per-member sizes belong to the team, and the small call must still move its own
 *     size, not the failed call's. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "testlib.h"

#define BYTES 256 /* per member: alltoall blocks of BYTES / p */

static int32_t p;
static shoal_unit_t me;

static uint8_t *local_of(shoal_gptr_t g) {
    void *a = NULL;
    REQUIRE_OK(shoal_gptr_getaddr(shoal_gptr_setunit(g, (uint32_t)me), &a));
    return a;
}

static uint8_t byte_of(uint64_t seed, int32_t unit, size_t i) {
    return (uint8_t)(seed * 131 + (uint64_t)unit * 29 + i * 7 + 1);
}

/* A broadcast of n bytes from root with fresh data; every member checks dest. */
static void check_bcast(shoal_gptr_t dest, shoal_gptr_t src, size_t n, shoal_unit_t root,
                        uint64_t seed) {
    uint8_t *s = local_of(src), *d = local_of(dest);
    for (size_t i = 0; i < n; i++) s[i] = byte_of(seed, me, i);
    if (d != s) memset(d, 0xEE, n);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL)); /* nobody writes my dest before I reset it */
    CHECK_OK(shoal_broadcast(SHOAL_TEAM_ALL, dest, src, n, root));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += d[i] != byte_of(seed, root, i);
    CHECK(bad == 0, "broadcast of %zu bytes from %d (seed %llu): %zu bytes wrong", n, (int)root,
          (unsigned long long)seed, bad);
}

/* My part of src: element i is ((seed + i) % 1000) * (me + 1), as int64 or int32. */
static void fill_vector(shoal_gptr_t src, size_t count, shoal_type_t type, uint64_t seed) {
    uint8_t *s = local_of(src);
    for (size_t i = 0; i < count; i++) {
        int64_t v = (int64_t)((seed + i) % 1000) * (me + 1);
        if (type == SHOAL_TYPE_INT64)
            ((int64_t *)(void *)s)[i] = v;
        else
            ((int32_t *)(void *)s)[i] = (int32_t)v;
    }
}

/* A sum (or max) of count int64 (or int32) elements; every member checks dest. */
static void check_reduce(shoal_gptr_t dest, shoal_gptr_t src, size_t count, shoal_type_t type,
                         shoal_red_op_t op, uint64_t seed) {
    uint8_t *d = local_of(dest);
    fill_vector(src, count, type, seed);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_reduce(SHOAL_TEAM_ALL, dest, src, count, type, op));
    size_t bad = 0;
    for (size_t i = 0; i < count; i++) {
        int64_t base = (int64_t)((seed + i) % 1000), want = 0;
        for (int32_t r = 0; r < p; r++)
            want = op == SHOAL_RED_SUM     ? want + base * (r + 1)
                   : base * (r + 1) > want ? base * (r + 1)
                                           : want;
        int64_t got =
            type == SHOAL_TYPE_INT64 ? ((int64_t *)(void *)d)[i] : ((int32_t *)(void *)d)[i];
        bad += got != want;
    }
    CHECK(bad == 0, "reduce of %zu elements (seed %llu): %zu wrong", count,
          (unsigned long long)seed, bad);
}

/* An inclusive or exclusive sum scan of count int64 (or int32) elements; every member checks. */
static void check_scan(shoal_gptr_t dest, shoal_gptr_t src, size_t count, shoal_type_t type,
                       int inclusive, uint64_t seed) {
    uint8_t *d = local_of(dest);
    fill_vector(src, count, type, seed);
    memset(d, 0xEE, count * 8);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_scan(SHOAL_TEAM_ALL, dest, src, count, type, inclusive));
    size_t bad = 0;
    for (size_t i = 0; i < count; i++) {
        int64_t base = (int64_t)((seed + i) % 1000), want = 0;
        for (int32_t r = 0; r < (inclusive ? me + 1 : me); r++) want += base * (r + 1);
        int64_t got =
            type == SHOAL_TYPE_INT64 ? ((int64_t *)(void *)d)[i] : ((int32_t *)(void *)d)[i];
        bad += got != want;
    }
    CHECK(bad == 0, "%s scan of %zu elements (seed %llu): %zu wrong",
          inclusive ? "inclusive" : "exclusive", count, (unsigned long long)seed, bad);
}

static void check_alltoall(shoal_gptr_t dest, shoal_gptr_t src, size_t block, uint64_t seed) {
    uint8_t *s = local_of(src), *d = local_of(dest);
    for (int32_t r = 0; r < p; r++)
        for (size_t i = 0; i < block; i++) s[(size_t)r * block + i] = byte_of(seed + r, me, i);
    memset(d, 0xEE, (size_t)p * block);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_alltoall(SHOAL_TEAM_ALL, dest, src, block));
    size_t bad = 0;
    for (int32_t r = 0; r < p; r++) /* block r came from member r, made for me */
        for (size_t i = 0; i < block; i++)
            bad += d[(size_t)r * block + i] != byte_of(seed + me, r, i);
    CHECK(bad == 0, "alltoall of %zu-byte blocks (seed %llu): %zu bytes wrong", block,
          (unsigned long long)seed, bad);
}

static void check_fcollect(shoal_gptr_t dest, shoal_gptr_t src, size_t block, uint64_t seed) {
    uint8_t *s = local_of(src), *d = local_of(dest);
    for (size_t i = 0; i < block; i++) s[i] = byte_of(seed, me, i);
    memset(d, 0xEE, (size_t)p * block);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_fcollect(SHOAL_TEAM_ALL, dest, src, block));
    size_t bad = 0;
    for (int32_t r = 0; r < p; r++)
        for (size_t i = 0; i < block; i++) bad += d[(size_t)r * block + i] != byte_of(seed, r, i);
    CHECK(bad == 0, "fcollect of %zu-byte blocks (seed %llu): %zu bytes wrong", block,
          (unsigned long long)seed, bad);
}

static const char *last_algorithm(void) {
    const char *name = NULL;
    CHECK_OK(shoal_coll_last_algorithm(SHOAL_TEAM_ALL, &name));
    return name ? name : "";
}

int main(int argc, char **argv) {
    /* The user's word: ring for small fcollects (it reads the per-member sizes), eager above
     * wherever the team's words are CPU atomics, an error where it cannot run (the MPI path keeps
     * the defaults there). */
    setenv("SHOAL_COLL_FCOLLECT", "ring@bytes=-1024;eager@path=direct", 1);
    test_begin(&argc, &argv);
    CHECK_OK(shoal_team_size(SHOAL_TEAM_ALL, &p));
    CHECK_OK(shoal_team_myid(SHOAL_TEAM_ALL, &me));
    shoal_gptr_t src, dest;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, BYTES, &src));
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, BYTES, &dest));
    size_t block = BYTES / (size_t)p;
    uint64_t seed = 1;

    /* Repeats of one call, fresh data each time. */
    for (int i = 0; i < 40; i++) check_bcast(dest, src, 64, 0, seed++);
    for (int i = 0; i < 40; i++)
        check_reduce(dest, src, 8, SHOAL_TYPE_INT64, SHOAL_RED_SUM, seed++);
    for (int i = 0; i < 40; i++) check_scan(dest, src, 8, SHOAL_TYPE_INT64, 1, seed++);
    for (int i = 0; i < 40; i++) check_alltoall(dest, src, block, seed++);
    for (int i = 0; i < 40; i++) check_fcollect(dest, src, block, seed++);

    /* Interleaved, and one argument changed at a time. */
    for (int i = 0; i < 12; i++) {
        check_bcast(dest, src, 64, (shoal_unit_t)(i % p), seed++);             /* root */
        check_bcast(dest, src, 64 + (size_t)(i % 3), (shoal_unit_t)0, seed++); /* size */
        check_bcast(src, src, 64, (shoal_unit_t)(p - 1), seed++);              /* in place */
        check_reduce(dest, src, 8, SHOAL_TYPE_INT64, i % 2 ? SHOAL_RED_MAX : SHOAL_RED_SUM, seed++);
        check_reduce(dest, src, 8, i % 2 ? SHOAL_TYPE_INT32 : SHOAL_TYPE_INT64, SHOAL_RED_SUM,
                     seed++);
        check_scan(dest, src, 8, SHOAL_TYPE_INT64, i % 2, seed++); /* inclusive or not */
        check_scan(dest, src, 8, i % 2 ? SHOAL_TYPE_INT32 : SHOAL_TYPE_INT64, 1, seed++);
        check_scan(dest, src, 4 + (size_t)(i % 3), SHOAL_TYPE_INT64, 1, seed++); /* count */
        check_alltoall(dest, src, i % 2 ? block : block / 2, seed++);
        check_fcollect(dest, src, i % 2 ? block : block / 2, seed++);
    }

    /* An fcollect that fails after its checks, between two repeats of a small one. */
    shoal_gptr_t big_src, big_dest;
    size_t big = 8192; /* per member: more than an eager cell */
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, big, &big_src));
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, big * (size_t)p, &big_dest));
    for (int i = 0; i < 3; i++) {
        check_fcollect(dest, src, 16, seed++);
        check_fcollect(dest, src, 16, seed++);
        shoal_err_t e = shoal_fcollect(SHOAL_TEAM_ALL, big_dest, big_src, big);
        CHECK(e == SHOAL_OK || e == SHOAL_ERR_INVAL, "the large fcollect gave %s",
              shoal_strerror(e));
        check_fcollect(dest, src, 16, seed++); /* the kept call again, after the failed one */
    }
    CHECK_OK(shoal_team_memfree(big_dest));
    CHECK_OK(shoal_team_memfree(big_src));

    /* The rules changed between two repeats. */
    check_bcast(dest, src, 64, 0, seed++);
    check_bcast(dest, src, 64, 0, seed++);
    char before[64];
    snprintf(before, sizeof before, "%s", last_algorithm());
    const char *other = strcmp(before, "linear") ? "linear" : "knomial";
    CHECK_OK(shoal_coll_override("broadcast", other));
    check_bcast(dest, src, 64, 0, seed++);
    CHECK(!strcmp(last_algorithm(), other), "after the override to %s, a repeat ran %s", other,
          last_algorithm());
    CHECK_OK(shoal_coll_override("broadcast", NULL));
    check_bcast(dest, src, 64, 0, seed++);
    CHECK(!strcmp(last_algorithm(), before), "with the override gone, a repeat ran %s, not %s",
          last_algorithm(), before);

    /* The source freed between two repeats: refused, never run on freed memory. */
    check_bcast(dest, src, 64, 0, seed++);
    check_reduce(dest, src, 8, SHOAL_TYPE_INT64, SHOAL_RED_SUM, seed++);
    check_scan(dest, src, 8, SHOAL_TYPE_INT64, 1, seed++);
    check_fcollect(dest, src, block, seed++);
    CHECK_OK(shoal_team_memfree(src));
    CHECK(shoal_scan(SHOAL_TEAM_ALL, dest, src, 8, SHOAL_TYPE_INT64, 1) == SHOAL_ERR_GPTR,
          "a scan from a freed source was not refused with SHOAL_ERR_GPTR");
    CHECK(shoal_fcollect(SHOAL_TEAM_ALL, dest, src, block) == SHOAL_ERR_GPTR,
          "an fcollect from a freed source was not refused with SHOAL_ERR_GPTR");
    CHECK(shoal_broadcast(SHOAL_TEAM_ALL, dest, src, 64, 0) == SHOAL_ERR_GPTR,
          "a broadcast from a freed source was not refused with SHOAL_ERR_GPTR");
    CHECK(shoal_reduce(SHOAL_TEAM_ALL, dest, src, 8, SHOAL_TYPE_INT64, SHOAL_RED_SUM) ==
              SHOAL_ERR_GPTR,
          "a reduce from a freed source was not refused with SHOAL_ERR_GPTR");
    shoal_gptr_t fresh;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, BYTES, &fresh)); /* may take the freed id */
    CHECK(shoal_broadcast(SHOAL_TEAM_ALL, dest, src, 64, 0) == SHOAL_ERR_GPTR,
          "a broadcast from the freed source was accepted once its id could be reused");
    check_bcast(dest, fresh, 64, 0, seed++);
    check_bcast(dest, fresh, 64, 0, seed++);
    check_reduce(dest, fresh, 8, SHOAL_TYPE_INT64, SHOAL_RED_SUM, seed++);
    /* and the destination freed */
    CHECK_OK(shoal_team_memfree(dest));
    CHECK(shoal_broadcast(SHOAL_TEAM_ALL, dest, fresh, 64, 0) == SHOAL_ERR_GPTR,
          "a broadcast into a freed dest was not refused with SHOAL_ERR_GPTR");
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_team_memfree(fresh));
    return test_end("test_coll_repeat");
}
