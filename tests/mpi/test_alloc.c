/* Global memory: collective and non-collective allocation under churn.
 *
 * 1. Collective churn: rounds of random shoal_team_memalloc / shoal_team_memfree (sizes 0..1 MiB,
 *    the same sequence everywhere from a shared seed). Each allocation is filled by the left
 *    neighbour with a put; every live allocation is re-verified after each round, so overlapping
 *    or recycled-too-early memory shows up as corruption.
 * 2. Many collective segments alive at once (up to 200, at least 66 on 1-2 units: more than a
 *    64-bit word of segment ids; at least 16 from 3 units on, where each costs an MPI window made
 *    by oversubscribed processes, 80 ms on MPICH at 4, and the id bookkeeping is the same),
 *    freed in random order.
 * 3. Non-collective churn: thousands of random shoal_memalloc / shoal_memfree; 64-byte alignment;
 *    patterns verified at free; the pool's free byte count returns exactly to its start value.
 * 4. Pool blocks reached remotely (put into the neighbour's block).
 * 5. Exhaustion: more than the pool gives SHOAL_ERR_NOMEM, writes no output, and the pool still
 *    works afterwards. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define MIB (1024u * 1024u)

static uint64_t mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

typedef struct {
    uint64_t s;
} rng_t;
static uint64_t rnd(rng_t *r) {
    return mix64(r->s++);
}

/* A fast word-wise pattern (the byte-wise one in testlib is too slow for megabytes). */
static void wfill(void *p, size_t n, uint64_t a, uint64_t b) {
    unsigned char *c = p;
    uint64_t seed = mix64(a * 0x100000001B3ull ^ mix64(b));
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = mix64(seed + i);
        memcpy(c + i, &w, 8);
    }
    if (i < n) {
        uint64_t w = mix64(seed + i);
        memcpy(c + i, &w, n - i);
    }
}

/* Returns 1 when p holds wfill(a, b); reports the first difference otherwise. */
#define WCHECK(p, n, a, b, ...) wcheck_((p), (n), (a), (b), __LINE__, __VA_ARGS__)
__attribute__((format(printf, 6, 7))) static int
wcheck_(const void *p, size_t n, uint64_t a, uint64_t b, int line, const char *fmt, ...) {
    const unsigned char *c = p;
    uint64_t seed = mix64(a * 0x100000001B3ull ^ mix64(b));
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = mix64(seed + i);
        size_t k = n - i < 8 ? n - i : 8;
        if (memcmp(c + i, &w, k) != 0) {
            char what[256];
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(what, sizeof what, fmt, ap);
            va_end(ap);
            size_t j = 0;
            while (j < k && c[i + j] == ((unsigned char *)&w)[j]) j++;
            test_report_(__FILE__, line, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what,
                         i + j, n, c[i + j], ((unsigned char *)&w)[j]);
            return 0;
        }
    }
    return 1;
}

/* A random size: mostly small, sometimes up to max. */
static size_t rand_size(rng_t *r, size_t max) {
    uint64_t c = rnd(r) % 10;
    size_t lim = c < 3 ? 64 : c < 6 ? 8192 : c < 9 ? 131072 : max;
    if (lim > max) lim = max;
    return (size_t)(rnd(r) % (lim + 1));
}

static void *local_addr(shoal_gptr_t gp) {
    void *a = NULL;
    if (!CHECK_OK(shoal_gptr_getaddr(gp, &a))) return NULL;
    CHECK(a != NULL, "own memory of segment %u is not mapped", gp.segid);
    return a;
}

/* ---- 1. Collective churn --------------------------------------------------------------------- */
#define MAXLIVE 12
typedef struct {
    shoal_gptr_t gp;
    size_t size;
    uint64_t id;
} coll_t;

static void collective_churn(int rounds) {
    rng_t shared = {0xA110Cull}; /* the same sequence on every unit */
    coll_t live[MAXLIVE];
    int nlive = 0;
    uint64_t next_id = 1;
    shoal_unit_t right = test_right(), left = test_left();
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *buf = malloc(MIB), *in = malloc(MIB);
    double t0 = test_now();
    for (int r = 0; r < rounds; r++) {
        /* Fit the rest into a few seconds (collective calls crawl on oversubscribed MPICH). */
        if (r == 6) rounds = test_scale((test_now() - t0) / 6, 2.5, 20, rounds);
        int do_alloc = nlive == 0 || (nlive < MAXLIVE && rnd(&shared) % 3 != 0);
        int victim = do_alloc ? -1 : (int)(rnd(&shared) % (uint64_t)nlive);
        size_t size = do_alloc ? (r % 17 == 5   ? MIB
                                  : r % 13 == 7 ? 0
                                                : rand_size(&shared, MIB))
                               : 0;

        /* Read back (get) from my right neighbour's part of one allocation that stays alive this
         * round: it holds what I put there. */
        if (nlive > (victim >= 0 ? 1 : 0)) {
            int k = (int)(rnd(&shared) % (uint64_t)nlive);
            if (k == victim) k = (k + 1) % nlive;
            if (live[k].size) {
                memset(in, 0, live[k].size);
                CHECK_OK(shoal_get(in, shoal_gptr_setunit(live[k].gp, right), live[k].size));
                WCHECK(in, live[k].size, (uint64_t)t_me, live[k].id,
                       "round %d: get of allocation %llu from unit %d", r,
                       (unsigned long long)live[k].id, right);
            }
        }

        if (do_alloc) {
            coll_t a = {SHOAL_GPTR_NULL, size, next_id++};
            if (!CHECK_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, size, &a.gp))) {
                CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
                continue;
            }
            CHECK(a.gp.unit == (uint32_t)t_me && !shoal_gptr_is_null(a.gp),
                  "round %d: memalloc(%zu) gave unit %u segid %u", r, size, a.gp.unit, a.gp.segid);
            for (int i = 0; i < nlive; i++)
                CHECK(live[i].gp.segid != a.gp.segid || live[i].gp.flags != a.gp.flags,
                      "round %d: new allocation has the segment id %u of a live one", r,
                      a.gp.segid);
            if (size) {
                unsigned char *mine = local_addr(a.gp);
                CHECK(((uintptr_t)mine % (uintptr_t)page) == 0,
                      "round %d: allocation of %zu bytes at %p is not page-aligned", r, size,
                      (void *)mine);
                wfill(buf, size, (uint64_t)t_me, a.id);
                CHECK_OK(shoal_put(shoal_gptr_setunit(a.gp, right), buf, size));
            }
            live[nlive++] = a;
        } else {
            coll_t *v = &live[victim];
            unsigned char *mine = v->size ? local_addr(v->gp) : NULL;
            if (mine)
                WCHECK(mine, v->size, (uint64_t)left, v->id, "round %d: allocation %llu at free", r,
                       (unsigned long long)v->id);
            CHECK_OK(shoal_team_memfree(v->gp));
            live[victim] = live[--nlive];
        }
        CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
        if (t_me == 0 && getenv("TEST_VERBOSE") && r % 10 == 0) {
            printf("  churn round %d, %d live\n", r, nlive);
            fflush(stdout);
        }
        /* Every live allocation still holds what the left neighbour put. */
        for (int i = 0; i < nlive; i++) {
            if (!live[i].size) continue;
            unsigned char *mine = local_addr(live[i].gp);
            if (mine)
                WCHECK(mine, live[i].size, (uint64_t)left, live[i].id,
                       "round %d: live allocation %llu (%zu bytes)", r,
                       (unsigned long long)live[i].id, live[i].size);
        }
    }
    for (int i = 0; i < nlive; i++) CHECK_OK(shoal_team_memfree(live[i].gp));
    free(buf);
    free(in);
}

/* ---- 2. Many segments at once ---------------------------------------------------------------- */
static int nsegments; /* how many many_segments used */
static void many_segments(int count) {
    coll_t *a = calloc((size_t)count, sizeof *a);
    double t0 = test_now();
    rng_t shared = {0x5E65ull};
    shoal_unit_t right = test_right(), left = test_left();
    unsigned char buf[1024];
    for (int i = 0; i < count; i++) {
        /* Up to count, fitted into a few seconds, but more than 64 (a word of ids) on 1-2 units. */
        if (i == 4) count = test_scale((test_now() - t0) / 2, 2.5, t_np <= 2 ? 66 : 16, count);
        a[i].size = 8 + (size_t)(rnd(&shared) % 1000);
        a[i].id = 10000 + (uint64_t)i;
        if (!CHECK_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, a[i].size, &a[i].gp))) {
            a[i].size = 0;
            continue;
        }
        wfill(buf, a[i].size, (uint64_t)t_me, a[i].id);
        CHECK_OK(shoal_put(shoal_gptr_setunit(a[i].gp, right), buf, a[i].size));
        if (t_me == 0 && getenv("TEST_VERBOSE") && i % 20 == 0) {
            printf("  segment %d allocated\n", i);
            fflush(stdout);
        }
    }
    for (int i = 0; i < count; i++)
        for (int j = 0; j < i; j++)
            if (a[i].size && a[j].size)
                CHECK(a[i].gp.segid != a[j].gp.segid, "allocations %d and %d share segment id %u",
                      i, j, a[i].gp.segid);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    for (int i = 0; i < count; i++) {
        if (!a[i].size) continue;
        unsigned char *mine = local_addr(a[i].gp);
        if (mine) WCHECK(mine, a[i].size, (uint64_t)left, a[i].id, "segment %d of %d", i, count);
    }
    /* Free in a random order (the same everywhere), checking the survivors once halfway. */
    int *order = malloc(sizeof *order * (size_t)count);
    for (int i = 0; i < count; i++) order[i] = i;
    for (int i = count - 1; i > 0; i--) {
        int j = (int)(rnd(&shared) % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int k = 0; k < count; k++) {
        int i = order[k];
        if (a[i].size) CHECK_OK(shoal_team_memfree(a[i].gp));
        a[i].size = 0;
        if (k == count / 2)
            for (int j = 0; j < count; j++) {
                if (!a[j].size) continue;
                unsigned char *mine = local_addr(a[j].gp);
                if (mine)
                    WCHECK(mine, a[j].size, (uint64_t)left, a[j].id,
                           "segment %d after freeing half", j);
            }
    }
    free(order);
    free(a);
    nsegments = count;
}

/* ---- 3. Non-collective churn ----------------------------------------------------------------- */
#define MAXBLK 256
typedef struct {
    shoal_gptr_t gp;
    size_t size;
    uint64_t id;
} blk_t;

static void pool_churn(int ops) {
    size_t total = 0, free0 = 0, f = 0;
    if (!CHECK_OK(shoal_pool_info(&total, &free0))) return;
    CHECK(free0 <= total && free0 > 0, "pool: total %zu, free %zu", total, free0);
    const char *env = getenv("SHOAL_POOL_SIZE");
    if (!env || !*env) CHECK(total == 64u * MIB, "pool total %zu, default is 64 MiB", total);
    rng_t r = {0xB10Cull * 1000 + (uint64_t)t_me};
    blk_t b[MAXBLK];
    int n = 0;
    uint64_t next_id = 1;
    size_t live_bytes = 0;
    for (int op = 0; op < ops; op++) {
        int do_alloc = n == 0 || (n < MAXBLK && rnd(&r) % 2 == 0);
        if (do_alloc) {
            blk_t x = {SHOAL_GPTR_NULL, rand_size(&r, 256 * 1024), next_id++};
            if (!CHECK_OK(shoal_memalloc(x.size, &x.gp))) continue;
            CHECK(x.gp.unit == (uint32_t)t_me, "memalloc gave unit %u", x.gp.unit);
            if (x.size) {
                unsigned char *p = local_addr(x.gp);
                CHECK(((uintptr_t)p & 63) == 0, "memalloc(%zu) at %p: not 64-byte aligned", x.size,
                      (void *)p);
                if (p) wfill(p, x.size, (uint64_t)t_me, x.id);
                /* The address maps back to the same pointer. */
                shoal_gptr_t back = SHOAL_GPTR_NULL;
                if (p && CHECK_OK(shoal_gptr_from_addr(p, &back)))
                    CHECK(shoal_gptr_equal(back, x.gp),
                          "gptr_from_addr(getaddr(gp)) != gp (segid %u/%u offset %llu/%llu)",
                          back.segid, x.gp.segid, (unsigned long long)back.offset,
                          (unsigned long long)x.gp.offset);
            }
            b[n++] = x;
            live_bytes += x.size;
        } else {
            int k = (int)(rnd(&r) % (uint64_t)n);
            if (b[k].size) {
                unsigned char *p = local_addr(b[k].gp);
                if (p)
                    WCHECK(p, b[k].size, (uint64_t)t_me, b[k].id, "pool block %llu (%zu bytes)",
                           (unsigned long long)b[k].id, b[k].size);
            }
            CHECK_OK(shoal_memfree(b[k].gp));
            live_bytes -= b[k].size;
            b[k] = b[--n];
        }
        if (op % 97 == 0) {
            CHECK_OK(shoal_pool_info(&total, &f));
            CHECK(f + live_bytes <= free0, "pool: %zu free + %zu live > %zu free at start", f,
                  live_bytes, free0);
        }
    }
    /* Every block still intact, then all freed: the free count is back where it started. */
    for (int k = 0; k < n; k++) {
        if (b[k].size) {
            unsigned char *p = local_addr(b[k].gp);
            if (p) WCHECK(p, b[k].size, (uint64_t)t_me, b[k].id, "pool block at the end");
        }
        CHECK_OK(shoal_memfree(b[k].gp));
    }
    CHECK_OK(shoal_pool_info(&total, &f));
    CHECK(f == free0, "pool: %zu bytes free after freeing everything, %zu at start", f, free0);
}

/* ---- 4. Pool blocks reached remotely --------------------------------------------------------- */
static void pool_remote(void) {
    shoal_gptr_t exch = SHOAL_GPTR_NULL;
    if (!CHECK_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, sizeof(shoal_gptr_t), &exch))) return;
    shoal_unit_t right = test_right(), left = test_left();
    size_t mysize = 1000 + 64 * (size_t)t_me, rsize = 1000 + 64 * (size_t)right;
    shoal_gptr_t blk = SHOAL_GPTR_NULL, rblk = SHOAL_GPTR_NULL;
    CHECK_OK(shoal_memalloc(mysize, &blk));
    shoal_gptr_t *slot = local_addr(exch);
    if (slot) *slot = blk;
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_get(&rblk, shoal_gptr_setunit(exch, right), sizeof rblk));
    CHECK(rblk.unit == (uint32_t)right, "right neighbour's block pointer names unit %u", rblk.unit);
    unsigned char buf[2048];
    wfill(buf, rsize, (uint64_t)t_me, 77);
    CHECK_OK(shoal_put(rblk, buf, rsize));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    unsigned char *p = local_addr(blk);
    if (p) WCHECK(p, mysize, (uint64_t)left, 77, "pool block written by unit %d", left);
    memset(buf, 0, sizeof buf);
    CHECK_OK(shoal_get(buf, rblk, rsize));
    WCHECK(buf, rsize, (uint64_t)t_me, 77, "get from unit %d's pool block", right);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_memfree(blk));
    CHECK_OK(shoal_team_memfree(exch));
}

/* ---- 5. Exhaustion --------------------------------------------------------------------------- */
static void exhaustion(void) {
    size_t total = 0, free0 = 0, f = 0;
    if (!CHECK_OK(shoal_pool_info(&total, &free0))) return;
    const shoal_gptr_t sentinel = {77, 77, 77, 77};
    size_t too_big[] = {total + 1, free0 + 64, 2 * total, SIZE_MAX, SIZE_MAX - 63};
    for (size_t i = 0; i < sizeof too_big / sizeof too_big[0]; i++) {
        shoal_gptr_t gp = sentinel;
        shoal_err_t e = shoal_memalloc(too_big[i], &gp);
        CHECK(e == SHOAL_ERR_NOMEM, "memalloc(%zu) with %zu free returned %s, expected NOMEM",
              too_big[i], free0, shoal_strerror(e));
        CHECK(shoal_gptr_equal(gp, sentinel), "failed memalloc(%zu) wrote its output", too_big[i]);
    }
    /* Fill the pool with 1 MiB blocks, then with small ones, until it says NOMEM. */
    size_t cap = (free0 / MIB) + 2 + 70000;
    shoal_gptr_t *blocks = malloc(sizeof *blocks * cap);
    size_t nb = 0, nbig = 0;
    shoal_err_t e = SHOAL_OK;
    while (nb < cap) {
        e = shoal_memalloc(MIB, &blocks[nb]);
        if (e != SHOAL_OK) break;
        nb++;
    }
    nbig = nb;
    CHECK(e == SHOAL_ERR_NOMEM, "filling the pool with 1 MiB blocks ended with %s",
          shoal_strerror(e));
    CHECK(nbig * MIB <= free0 && nbig + 2 >= free0 / MIB,
          "pool of %zu free bytes took %zu blocks of 1 MiB", free0, nbig);
    /* The rest in 1 KiB pieces. */
    while (nb < cap) {
        e = shoal_memalloc(1024, &blocks[nb]);
        if (e != SHOAL_OK) break;
        nb++;
    }
    CHECK(e == SHOAL_ERR_NOMEM, "filling the pool with 1 KiB blocks ended with %s",
          shoal_strerror(e));
    CHECK_OK(shoal_pool_info(&total, &f));
    CHECK(f < MIB, "pool full, yet %zu bytes free", f);
    /* A full pool fails cleanly, again. */
    shoal_gptr_t gp = sentinel;
    e = shoal_memalloc(MIB, &gp);
    CHECK(e == SHOAL_ERR_NOMEM && shoal_gptr_equal(gp, sentinel),
          "memalloc(1 MiB) on a full pool returned %s", shoal_strerror(e));
    /* Free in an interleaved order (odd first, then even) to exercise coalescing. */
    for (size_t i = 1; i < nb; i += 2) CHECK_OK(shoal_memfree(blocks[i]));
    for (size_t i = 0; i < nb; i += 2) CHECK_OK(shoal_memfree(blocks[i]));
    CHECK_OK(shoal_pool_info(&total, &f));
    CHECK(f == free0, "pool: %zu bytes free after exhaustion and free, %zu at start", f, free0);
    /* The pool still works: a block of most of its size fits again. */
    gp = SHOAL_GPTR_NULL;
    if (CHECK_OK(shoal_memalloc(free0 / 2, &gp))) {
        unsigned char *p = local_addr(gp);
        if (p) {
            wfill(p, 4096, 5, 5);
            WCHECK(p, 4096, 5, 5, "block after exhaustion");
        }
        CHECK_OK(shoal_memfree(gp));
    }
    free(blocks);
}

static void phase(const char *what, double t0) {
    if (t_me == 0 && getenv("TEST_VERBOSE")) {
        printf("  %.3f s: %s\n", test_now() - t0, what);
        fflush(stdout);
    }
}

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    double t[6];
    t[0] = test_now();
    const char *skip = getenv("TEST_ALLOC_SKIP_CHURN");
    if (!skip || !*skip) collective_churn(60);
    t[1] = test_now();
    phase("churn", t[0]);
    many_segments(200);
    t[2] = test_now();
    phase("segments", t[0]);
    pool_churn(4000);
    t[3] = test_now();
    phase("pool churn", t[0]);
    pool_remote();
    t[4] = test_now();
    phase("pool remote", t[0]);
    exhaustion();
    t[5] = test_now();
    phase("exhaustion", t[0]);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    if (t_me == 0)
        printf("test_alloc: %d units: churn %.2f s, %d segments %.2f s, pool churn %.2f s, "
               "remote %.2f s, exhaustion %.2f s\n",
               t_np, t[1] - t[0], nsegments, t[2] - t[1], t[3] - t[2], t[4] - t[3], t[5] - t[4]);
    return test_end("test_alloc");
}
