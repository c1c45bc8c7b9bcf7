/* Blocking put/get: every size class at unaligned offsets, on the ring, to myself, many writers
 * into one unit, and into non-collective (pool) memory. Every byte is checked against the pattern
 * in the target's own memory, through the direct mapping where there is one, and read back with
 * shoal_get; guard bytes around each transfer prove nothing else was written. */
#include "testlib.h"

#define MAXSZ (4u << 20)
#define HEAD  64            /* room for the leading guard bytes */
#define REG   (MAXSZ + 256) /* one region: HEAD + offset + data + trailing guard */
#define NREG  3             /* rounds rotate over three regions (see ring_phase) */
#define GUARD 8             /* guard bytes checked on each side of a transfer */

static const size_t sizes[] = {0,  1,    2,    3,    7,         8,        63,   64,
                               65, 4095, 4096, 4097, 65536 + 3, 1u << 20, MAXSZ};
static const size_t offsets[] = {0, 1, 3, 7, 61};
#define NSIZES    (sizeof sizes / sizeof sizes[0])
#define NOFFS     (sizeof offsets / sizeof offsets[0])
#define MAXROUNDS (NSIZES * NOFFS)

/* The ring's rounds: every size at every offset, but sizes of 1 MiB and more (bandwidth, not
 * alignment, is what they test) only at offsets 0 and 61. */
static size_t nrounds, rsize[MAXROUNDS], roff[MAXROUNDS];
static void plan_rounds(void) {
    for (size_t s = 0; s < NSIZES; s++)
        for (size_t o = 0; o < NOFFS; o++)
            if (sizes[s] < (1u << 20) || offsets[o] == 0 || offsets[o] == 61) {
                rsize[nrounds] = sizes[s];
                roff[nrounds++] = offsets[o];
            }
}

static uint8_t *src_buf, *dst_buf;

static size_t round_size(size_t k) {
    return sizes[k / NOFFS];
}
static size_t round_off(size_t k) {
    return offsets[k % NOFFS];
}
/* Where round k's data starts inside my part. */
static size_t round_pos(size_t k) {
    return (k % NREG) * REG + HEAD + round_off(k);
}
static uint64_t round_seed(size_t k) {
    return 1000 + k;
}
/* The guard bytes round k expects around its data in unit u's memory. */
static uint8_t guard_at(size_t k, shoal_unit_t u, size_t i) {
    return byte_at(7 + k, u, i) | 1;
}

static uint8_t *local_addr(shoal_gptr_t gp) {
    void *a = NULL;
    CHECK_OK(shoal_gptr_getaddr(gp, &a));
    CHECK(a != NULL, "getaddr of my own memory gave NULL");
    return a;
}

/* The owner writes round k's guards into its own memory (before the writer's put). */
static void set_guards(uint8_t *mine, size_t k) {
    uint8_t *p = mine + round_pos(k);
    for (size_t i = 0; i < GUARD; i++) {
        p[-(ptrdiff_t)GUARD + (ptrdiff_t)i] = guard_at(k, t_me, i);
        p[round_size(k) + i] = guard_at(k, t_me, GUARD + i);
    }
}

static void check_guards(const uint8_t *mine, size_t k) {
    const uint8_t *p = mine + round_pos(k);
    for (size_t i = 0; i < GUARD; i++) {
        CHECK(p[-(ptrdiff_t)GUARD + (ptrdiff_t)i] == guard_at(k, t_me, i),
              "round %zu (size %zu, offset %zu): guard byte %zu before the data was overwritten", k,
              round_size(k), round_off(k), GUARD - i);
        CHECK(p[round_size(k) + i] == guard_at(k, t_me, GUARD + i),
              "round %zu (size %zu, offset %zu): guard byte %zu after the data was overwritten", k,
              round_size(k), round_off(k), i);
    }
}

/* Checks what getaddr says about another unit's part: mapped exactly when the direct path is on
 * and the unit shares my node; when mapped, returns the address. */
static const uint8_t *peer_addr(shoal_gptr_t gp) {
    void *a = (void *)1;
    CHECK_OK(shoal_gptr_getaddr(gp, &a));
    if ((shoal_unit_t)gp.unit == t_me) {
        CHECK(a != NULL, "getaddr of my own part gave NULL");
    } else if (test_direct() && test_same_node((shoal_unit_t)gp.unit)) {
        CHECK(a != NULL, "direct path on: getaddr of same-node unit %u gave NULL", gp.unit);
    } else {
        CHECK(a == NULL, "direct path off: getaddr of unit %u gave %p, expected NULL", gp.unit, a);
    }
    return a;
}

/* Every unit puts into its right neighbour's part and gets from its left neighbour's, for every
 * size and offset. Round k uses region k % 3: a region is written again only two barriers after
 * its last reader finished, and its owner re-arms its guards in between. */
static void ring_phase(shoal_gptr_t base, uint8_t *mine) {
    const shoal_unit_t right = test_right(), left = test_left();
    const shoal_unit_t left2 = (left + t_np - 1) % t_np; /* who wrote my left neighbour's part */
    const int direct_peek = test_direct() && test_same_node(left);

    set_guards(mine, 0);
    set_guards(mine, 1);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    for (size_t k = 0; k < nrounds; k++) {
        const size_t n = round_size(k), pos = round_pos(k);
        const uint64_t seed = round_seed(k);
        char what[256];

        /* Put to the right, then read it straight back: a blocking put is complete on return. */
        fill_pattern(src_buf, n, seed, t_me, 0);
        shoal_gptr_t to = shoal_gptr_add(shoal_gptr_setunit(base, right), (int64_t)pos);
        CHECK_OK(shoal_put(to, src_buf, n));
        memset(dst_buf, 0, n + 1);
        CHECK_OK(shoal_get(dst_buf, to, n));
        snprintf(what, sizeof what, "round %zu: read back %zu bytes at +%zu from unit %d", k, n,
                 round_off(k), (int)right);
        CHECK_PATTERN(dst_buf, n, seed, t_me, 0, what);
        CHECK(dst_buf[n] == 0, "round %zu: get of %zu bytes wrote past the end of dest", k, n);

        CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

        /* My own memory holds what my left neighbour put, and nothing around it changed. */
        snprintf(what, sizeof what, "round %zu: my memory, %zu bytes at +%zu put by unit %d", k, n,
                 round_off(k), (int)left);
        CHECK_PATTERN(mine + pos, n, seed, left, 0, what);
        check_guards(mine, k);

        /* Get from the left neighbour: what its own left neighbour put there. */
        shoal_gptr_t from = shoal_gptr_add(shoal_gptr_setunit(base, left), (int64_t)pos);
        memset(dst_buf, 0, n + 1);
        CHECK_OK(shoal_get(dst_buf, from, n));
        snprintf(what, sizeof what, "round %zu: get %zu bytes at +%zu from unit %d", k, n,
                 round_off(k), (int)left);
        CHECK_PATTERN(dst_buf, n, seed, left2, 0, what);
        CHECK(dst_buf[n] == 0, "round %zu: get of %zu bytes wrote past the end of dest", k, n);

        /* The same bytes through the direct mapping, where there is one. */
        const uint8_t *peer = peer_addr(from);
        if (peer && direct_peek) {
            snprintf(what, sizeof what, "round %zu: unit %d's memory seen through getaddr", k,
                     (int)left);
            CHECK_PATTERN(peer, n, seed, left2, 0, what);
        }

        /* Region (k + 2) % 3 is idle now (its readers finished before this round's barrier). */
        if (k + 2 < nrounds) set_guards(mine, k + 2);
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
}

/* Put and get with myself as the target. */
static void self_phase(shoal_gptr_t base, uint8_t *mine) {
    static const size_t self_sizes[] = {0, 1, 7, 64, 4097, 65536 + 3, 1u << 20};
    for (size_t s = 0; s < sizeof self_sizes / sizeof self_sizes[0]; s++) {
        for (size_t o = 0; o < NOFFS; o++) {
            const size_t n = self_sizes[s], pos = HEAD + offsets[o];
            const uint64_t seed = 5000 + s * NOFFS + o;
            char what[256];
            memset(mine + pos - 1, 0xEE, n + 2);
            fill_pattern(src_buf, n, seed, t_me, 0);
            shoal_gptr_t gp = shoal_gptr_add(base, (int64_t)pos);
            CHECK_OK(shoal_put(gp, src_buf, n));
            snprintf(what, sizeof what, "self put %zu bytes at +%zu", n, offsets[o]);
            CHECK_PATTERN(mine + pos, n, seed, t_me, 0, what);
            CHECK(mine[pos - 1] == 0xEE && mine[pos + n] == 0xEE,
                  "self put %zu bytes at +%zu wrote outside its range", n, offsets[o]);
            memset(dst_buf, 0, n);
            CHECK_OK(shoal_get(dst_buf, gp, n));
            snprintf(what, sizeof what, "self get %zu bytes at +%zu", n, offsets[o]);
            CHECK_PATTERN(dst_buf, n, seed, t_me, 0, what);
        }
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
}

/* All units write disjoint slices of unit 0's part at the same time. Size j uses region j % 2, so
 * a slice is rewritten only after every reader of the previous use passed a barrier. */
static void many_to_one_phase(shoal_gptr_t base, uint8_t *mine) {
    static const size_t slice_sizes[] = {1, 7, 4097, 300001};
    for (size_t j = 0; j < sizeof slice_sizes / sizeof slice_sizes[0]; j++) {
        size_t n = slice_sizes[j];
        if ((size_t)t_np * (n + 3) > REG - HEAD) n = (REG - HEAD) / (size_t)t_np - 3;
        const size_t stride = n + 3; /* slices start at odd offsets */
        const size_t start = (j % 2) * REG + HEAD + 1;
        const uint64_t seed = 9000 + j;
        char what[256];

        fill_pattern(src_buf, n, seed, t_me, 0);
        shoal_gptr_t to =
            shoal_gptr_add(shoal_gptr_setunit(base, 0), (int64_t)(start + (size_t)t_me * stride));
        CHECK_OK(shoal_put(to, src_buf, n));
        CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

        if (t_me == 0) {
            for (shoal_unit_t u = 0; u < t_np; u++) {
                snprintf(what, sizeof what, "unit 0's memory: slice of %zu bytes from unit %d", n,
                         (int)u);
                CHECK_PATTERN(mine + start + (size_t)u * stride, n, seed, u, 0, what);
            }
        }
        const size_t span = (size_t)t_np * stride;
        CHECK_OK(
            shoal_get(dst_buf, shoal_gptr_add(shoal_gptr_setunit(base, 0), (int64_t)start), span));
        for (shoal_unit_t u = 0; u < t_np; u++) {
            snprintf(what, sizeof what, "get from unit 0: slice of %zu bytes from unit %d", n,
                     (int)u);
            CHECK_PATTERN(dst_buf + (size_t)u * stride, n, seed, u, 0, what);
        }
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
}

/* Non-collective memory: every unit allocates from its own pool (at a different offset on each
 * unit), the pointers are exchanged, and the ring writes into the neighbours' blocks. */
static void pool_phase(void) {
    enum { BLOCK = 200064 };
    static const size_t pool_sizes[] = {0, 1, 65, 4097, 200000};
    static const size_t pool_offs[] = {0, 3};
    size_t total = 0, free_before = 0, free_after = 0;
    CHECK_OK(shoal_pool_info(&total, &free_before));

    shoal_gptr_t pad = SHOAL_GPTR_NULL, blk = SHOAL_GPTR_NULL;
    REQUIRE_OK(shoal_memalloc(64 * (size_t)t_me + 8, &pad)); /* unit-dependent offsets */
    REQUIRE_OK(shoal_memalloc(BLOCK, &blk));
    CHECK(blk.unit == (uint32_t)t_me, "memalloc gave a pointer to unit %u", blk.unit);
    uint8_t *mine = local_addr(blk);
    REQUIRE(mine != NULL, "no address for my pool block");
    CHECK(((uintptr_t)mine & 63) == 0, "pool block %p is not 64-byte aligned", (void *)mine);

    shoal_gptr_t *all = calloc((size_t)t_np, sizeof *all);
    MPI_Allgather(&blk, (int)sizeof blk, MPI_BYTE, all, (int)sizeof blk, MPI_BYTE, MPI_COMM_WORLD);
    const shoal_unit_t right = test_right(), left = test_left();
    const shoal_unit_t left2 = (left + t_np - 1) % t_np;
    CHECK(all[right].unit == (uint32_t)right, "exchanged pointer of unit %d names unit %u",
          (int)right, all[right].unit);

    for (size_t s = 0; s < sizeof pool_sizes / sizeof pool_sizes[0]; s++) {
        for (size_t o = 0; o < sizeof pool_offs / sizeof pool_offs[0]; o++) {
            const size_t n = pool_sizes[s], pos = 32 + pool_offs[o];
            const uint64_t seed = 20000 + s * 2 + o;
            char what[256];
            CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL)); /* nobody reads my block any more */
            memset(mine, 0xEE, BLOCK);
            CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL)); /* everyone's block is blank */

            fill_pattern(src_buf, n, seed, t_me, 0);
            CHECK_OK(shoal_put(shoal_gptr_add(all[right], (int64_t)pos), src_buf, n));
            CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

            snprintf(what, sizeof what, "pool block: %zu bytes at +%zu put by unit %d", n, pos,
                     (int)left);
            CHECK_PATTERN(mine + pos, n, seed, left, 0, what);
            CHECK(mine[pos - 1] == 0xEE && mine[pos + n] == 0xEE,
                  "pool block: put of %zu bytes at +%zu wrote outside its range", n, pos);
            memset(dst_buf, 0, n);
            CHECK_OK(shoal_get(dst_buf, shoal_gptr_add(all[left], (int64_t)pos), n));
            snprintf(what, sizeof what, "pool block: get %zu bytes at +%zu from unit %d", n, pos,
                     (int)left);
            CHECK_PATTERN(dst_buf, n, seed, left2, 0, what);
            const uint8_t *peer = peer_addr(shoal_gptr_add(all[left], (int64_t)pos));
            if (peer && left != t_me) {
                snprintf(what, sizeof what, "pool block of unit %d seen through getaddr",
                         (int)left);
                CHECK_PATTERN(peer, n, seed, left2, 0, what);
            }
        }
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL)); /* nobody reads my block any more */
    CHECK_OK(shoal_memfree(blk));
    CHECK_OK(shoal_memfree(pad));
    CHECK_OK(shoal_pool_info(&total, &free_after));
    CHECK(free_after == free_before, "pool: %zu bytes free after freeing everything, %zu before",
          free_after, free_before);
    free(all);
}

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    double t0 = test_now();
    plan_rounds();
    src_buf = malloc(REG);
    dst_buf = malloc(REG + 1);

    shoal_gptr_t base = SHOAL_GPTR_NULL;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, (size_t)NREG * REG, &base));
    CHECK(base.unit == (uint32_t)t_me, "team_memalloc gave a pointer to unit %u", base.unit);
    uint8_t *mine = local_addr(base);
    REQUIRE(mine != NULL, "no address for my part");
    long page = sysconf(_SC_PAGESIZE);
    CHECK(((uintptr_t)mine % (uintptr_t)page) == 0, "my part %p is not page-aligned", (void *)mine);
    void *a = NULL;
    CHECK_OK(shoal_gptr_getaddr(shoal_gptr_add(base, 12345), &a));
    CHECK(a == mine + 12345, "getaddr(base + 12345) = %p, expected %p", a, (void *)(mine + 12345));
    double t[5];
    t[0] = test_now();
    ring_phase(base, mine);
    t[1] = test_now();
    self_phase(base, mine);
    t[2] = test_now();
    many_to_one_phase(base, mine);
    t[3] = test_now();
    CHECK_OK(shoal_team_memfree(base));
    pool_phase();
    t[4] = test_now();
    if (t_me == 0 && getenv("TEST_VERBOSE"))
        printf("phases: ring %.2f s, self %.2f s, many-to-one %.2f s, pool %.2f s\n", t[1] - t[0],
               t[2] - t[1], t[3] - t[2], t[4] - t[3]);

    free(src_buf);
    free(dst_buf);
    if (t_me == 0 && getenv("TEST_VERBOSE"))
        printf("test_putget: %.2f s at np %d\n", test_now() - t0, (int)t_np);
    return test_end("test_putget");
}
