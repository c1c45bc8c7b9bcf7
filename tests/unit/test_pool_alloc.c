/* Unit test of the pool allocator (src/mem/pool_alloc.c): edge cases, then long random runs checked
 * against a reference model that owns a real shadow buffer of the pool's size.
 *
 * Usage: test_pool_alloc [ops-per-run]   (or TEST_POOL_ALLOC_OPS=n; default 200000).
 * TEST_POOL_ALLOC_SEED=n adds a run with that seed; TEST_POOL_ALLOC_VERBOSE=1 prints statistics. */
#include "mem/pool_alloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "test_pool_alloc: FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);       \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_OK(pa) CHECK(pool_alloc_check(pa) == 0, "pool_alloc_check failed")

static uint64_t round_up(uint64_t n, uint64_t a) {
    return n == 0 ? a : (n + a - 1) / a * a;
}

/* ---- edge cases ----------------------------------------------------------------------------- */

static void test_create(void) {
    pool_alloc_t *pa = (pool_alloc_t *)&pa; /* sentinel: must stay untouched on failure */
    const uint64_t bad[] = {0, 3, 6, 48, 100, (1ULL << 63) + 1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(pool_alloc_create(1 << 20, bad[i], &pa) == -EINVAL, "align %" PRIu64, bad[i]);
        CHECK(pa == (pool_alloc_t *)&pa, "out written on failure");
    }
    CHECK(pool_alloc_create(1 << 20, 64, NULL) == -EINVAL, "NULL out");

    /* align 1 works and allows odd sizes exactly. */
    CHECK(pool_alloc_create(1001, 1, &pa) == 0, "align 1");
    CHECK(pool_alloc_bytes_free(pa) == 1001, "free %" PRIu64, pool_alloc_bytes_free(pa));
    uint64_t o1, o2, o3;
    CHECK(pool_alloc_alloc(pa, 7, &o1) == 0 && o1 == 0, "o1");
    CHECK(pool_alloc_alloc(pa, 0, &o2) == 0 && o2 == 7, "o2 %" PRIu64, o2);
    CHECK(pool_alloc_alloc(pa, 993, &o3) == 0 && o3 == 8, "o3 %" PRIu64, o3);
    CHECK(pool_alloc_bytes_free(pa) == 0, "full");
    CHECK_OK(pa);
    pool_alloc_destroy(pa);

    /* A size that is not a multiple of align: only the whole multiples are managed. */
    CHECK(pool_alloc_create(1000, 64, &pa) == 0, "odd size");
    CHECK(pool_alloc_bytes_free(pa) == 960 && pool_alloc_largest_free(pa) == 960, "cap 960");
    CHECK(pool_alloc_alloc(pa, 961, &o1) == -ENOMEM, "beyond cap");
    CHECK(pool_alloc_alloc(pa, 960, &o1) == 0 && o1 == 0, "exact cap");
    CHECK(pool_alloc_alloc(pa, 0, &o1) == -ENOMEM, "tail unused");
    CHECK(pool_alloc_block(pa, 980, NULL, NULL) == -ENOENT, "tail not a block");
    CHECK_OK(pa);
    pool_alloc_destroy(pa);

    /* Smaller than one alignment unit, and empty: nothing to hand out, but valid. */
    const uint64_t tiny[] = {0, 63};
    for (size_t i = 0; i < 2; i++) {
        CHECK(pool_alloc_create(tiny[i], 64, &pa) == 0, "tiny %" PRIu64, tiny[i]);
        CHECK(pool_alloc_bytes_free(pa) == 0 && pool_alloc_largest_free(pa) == 0, "tiny free");
        o1 = 12345;
        CHECK(pool_alloc_alloc(pa, 0, &o1) == -ENOMEM && o1 == 12345, "tiny alloc");
        CHECK(pool_alloc_free(pa, 0) == -EINVAL, "tiny free 0");
        CHECK_OK(pa);
        pool_alloc_destroy(pa);
    }
    pool_alloc_destroy(NULL);
}

static void test_zero_bytes(void) {
    pool_alloc_t *pa;
    CHECK(pool_alloc_create(64 * 16, 64, &pa) == 0, "create");
    uint64_t off[16];
    for (int i = 0; i < 16; i++) {
        CHECK(pool_alloc_alloc(pa, 0, &off[i]) == 0, "zero alloc %d", i);
        CHECK(off[i] == (uint64_t)i * 64, "zero alloc %d at %" PRIu64, i, off[i]);
        uint64_t s = 1, n = 1;
        CHECK(pool_alloc_block(pa, off[i], &s, &n) == 0 && s == off[i] && n == 0, "block %d", i);
        CHECK(pool_alloc_block(pa, off[i] + 63, &s, &n) == 0 && s == off[i], "block end %d", i);
    }
    CHECK(pool_alloc_live_blocks(pa) == 16 && pool_alloc_bytes_free(pa) == 0, "16 live");
    uint64_t x = 777;
    CHECK(pool_alloc_alloc(pa, 0, &x) == -ENOMEM && x == 777, "zero alloc when full");
    CHECK_OK(pa);
    for (int i = 0; i < 16; i++) CHECK(pool_alloc_free(pa, off[i]) == 0, "free %d", i);
    CHECK(pool_alloc_largest_free(pa) == 64 * 16 && pool_alloc_live_blocks(pa) == 0, "whole");
    CHECK_OK(pa);
    pool_alloc_destroy(pa);
}

static void test_exact_fit_and_exhaustion(void) {
    const uint64_t size = 1 << 20;
    pool_alloc_t *pa;
    CHECK(pool_alloc_create(size, 64, &pa) == 0, "create");
    uint64_t o = 99;
    CHECK(pool_alloc_alloc(pa, size, &o) == 0 && o == 0, "whole pool");
    CHECK(pool_alloc_bytes_free(pa) == 0 && pool_alloc_largest_free(pa) == 0, "no space");
    uint64_t x = 4242;
    CHECK(pool_alloc_alloc(pa, 1, &x) == -ENOMEM && x == 4242, "1 byte in full pool");
    CHECK(pool_alloc_live_blocks(pa) == 1, "still one");
    CHECK_OK(pa);
    CHECK(pool_alloc_free(pa, 0) == 0, "free whole");
    CHECK(pool_alloc_bytes_free(pa) == size && pool_alloc_largest_free(pa) == size, "back");

    /* Requests that cannot fit, including ones that would overflow when rounded. */
    const uint64_t huge[] = {size + 1, size * 2, UINT64_MAX, UINT64_MAX - 62, 1ULL << 63};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        CHECK(pool_alloc_alloc(pa, huge[i], &x) == -ENOMEM && x == 4242, "huge %zu", i);
    }
    CHECK(pool_alloc_alloc(pa, 1, NULL) == -EINVAL, "NULL offset");

    /* Fill with 1000-byte blocks (1024 reserved each), then exhaustion must change nothing. */
    uint64_t n = 0, offs[1024];
    while (pool_alloc_alloc(pa, 1000, &o) == 0) {
        CHECK(n < 1024, "too many blocks");
        CHECK(o == n * 1024, "block %" PRIu64 " at %" PRIu64, n, o);
        offs[n++] = o;
    }
    CHECK(n == 1024, "filled %" PRIu64, n);
    CHECK(pool_alloc_bytes_free(pa) == 0 && pool_alloc_live_blocks(pa) == n, "full counts");
    for (int i = 0; i < 100; i++) {
        CHECK(pool_alloc_alloc(pa, (uint64_t)i, &x) == -ENOMEM && x == 4242, "exhausted %d", i);
    }
    CHECK(pool_alloc_bytes_free(pa) == 0 && pool_alloc_live_blocks(pa) == n, "full intact");
    CHECK_OK(pa);

    /* One hole: exactly that hole is reused, and only for requests that fit it. */
    CHECK(pool_alloc_free(pa, offs[500]) == 0, "hole");
    CHECK(pool_alloc_largest_free(pa) == 1024, "hole size");
    CHECK(pool_alloc_alloc(pa, 1025, &x) == -ENOMEM && x == 4242, "too big for hole");
    CHECK(pool_alloc_alloc(pa, 1024, &o) == 0 && o == offs[500], "hole reused at %" PRIu64, o);
    CHECK_OK(pa);
    for (uint64_t i = 0; i < n; i++) CHECK(pool_alloc_free(pa, offs[i]) == 0, "free %" PRIu64, i);
    CHECK(pool_alloc_largest_free(pa) == size && pool_alloc_live_blocks(pa) == 0, "drained");
    CHECK_OK(pa);
    pool_alloc_destroy(pa);
}

static void test_bad_free(void) {
    pool_alloc_t *pa;
    CHECK(pool_alloc_create(1 << 16, 64, &pa) == 0, "create");
    uint64_t a, b, c;
    CHECK(pool_alloc_alloc(pa, 100, &a) == 0, "a");
    CHECK(pool_alloc_alloc(pa, 200, &b) == 0, "b");
    CHECK(pool_alloc_alloc(pa, 300, &c) == 0, "c");
    const uint64_t fr = pool_alloc_bytes_free(pa), lg = pool_alloc_largest_free(pa);
    const uint64_t bad[] = {b + 1,   b + 64,  b + 255,        a + 63,  c + 100,
                            c + 320, 1 << 15, (1 << 16) - 64, 1 << 16, UINT64_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(pool_alloc_free(pa, bad[i]) == -EINVAL, "bad free %" PRIu64, bad[i]);
        CHECK(pool_alloc_bytes_free(pa) == fr && pool_alloc_largest_free(pa) == lg &&
                  pool_alloc_live_blocks(pa) == 3,
              "state changed by bad free %" PRIu64, bad[i]);
        CHECK_OK(pa);
    }
    CHECK(pool_alloc_free(pa, b) == 0, "free b");
    CHECK(pool_alloc_free(pa, b) == -EINVAL, "double free b");
    CHECK(pool_alloc_live_blocks(pa) == 2 && pool_alloc_bytes_free(pa) == fr + 256, "after b");
    CHECK(pool_alloc_block(pa, b, NULL, NULL) == -ENOENT, "b gone");
    uint64_t s, n;
    CHECK(pool_alloc_block(pa, c + 319, &s, &n) == 0 && s == c && n == 300, "c interior");
    CHECK(pool_alloc_block(pa, a + 127, &s, &n) == 0 && s == a && n == 100, "a padding");
    CHECK(pool_alloc_block(pa, UINT64_MAX, &s, &n) == -ENOENT, "far away");
    CHECK_OK(pa);
    CHECK(pool_alloc_free(pa, a) == 0 && pool_alloc_free(pa, c) == 0, "free a c");
    CHECK(pool_alloc_free(pa, a) == -EINVAL && pool_alloc_free(pa, c) == -EINVAL, "double a c");
    CHECK(pool_alloc_largest_free(pa) == 1 << 16, "whole");
    CHECK_OK(pa);
    pool_alloc_destroy(pa);
}

static void test_alignment(void) {
    for (uint64_t align = 1; align <= 8192; align *= 2) {
        pool_alloc_t *pa;
        CHECK(pool_alloc_create(1 << 22, align, &pa) == 0, "create align %" PRIu64, align);
        uint64_t offs[300], k = 0, used = 0;
        for (uint64_t nb = 0; nb < 300; nb++) {
            uint64_t req = nb * 37 % 5000, o;
            if (pool_alloc_alloc(pa, req, &o) != 0) break;
            CHECK(o % align == 0, "offset %" PRIu64 " align %" PRIu64, o, align);
            used += round_up(req, align);
            offs[k++] = o;
        }
        CHECK(pool_alloc_bytes_free(pa) == (1 << 22) - used, "align %" PRIu64 " sum", align);
        CHECK_OK(pa);
        /* Free every other block and reallocate different sizes into the holes. */
        for (uint64_t i = 0; i < k; i += 2) CHECK(pool_alloc_free(pa, offs[i]) == 0, "free");
        for (uint64_t i = 0; i < k; i += 2) {
            uint64_t o;
            if (pool_alloc_alloc(pa, i * 13 % 3000 + 1, &o) == 0) {
                CHECK(o % align == 0, "re-offset %" PRIu64 " align %" PRIu64, o, align);
            }
        }
        CHECK_OK(pa);
        pool_alloc_destroy(pa);
    }
}

static void test_coalescing(void) {
    pool_alloc_t *pa;
    const uint64_t B = 256, N = 8, size = B * N;
    CHECK(pool_alloc_create(size, 64, &pa) == 0, "create");
    uint64_t o[8];
    for (uint64_t i = 0; i < N; i++) {
        CHECK(pool_alloc_alloc(pa, B, &o[i]) == 0 && o[i] == i * B, "blk %" PRIu64, i);
    }
    /* Holes at 1 and 3, then 2 joins them from both sides. */
    CHECK(pool_alloc_free(pa, o[1]) == 0 && pool_alloc_free(pa, o[3]) == 0, "1 3");
    CHECK(pool_alloc_largest_free(pa) == B && pool_alloc_bytes_free(pa) == 2 * B, "two holes");
    CHECK_OK(pa);
    CHECK(pool_alloc_free(pa, o[2]) == 0, "2");
    CHECK(pool_alloc_largest_free(pa) == 3 * B, "merged both sides");
    CHECK_OK(pa);
    /* Left neighbour only (4 joins 1..3), right neighbour only (0 joins 1..4). */
    CHECK(pool_alloc_free(pa, o[4]) == 0 && pool_alloc_largest_free(pa) == 4 * B, "left merge");
    CHECK(pool_alloc_free(pa, o[0]) == 0 && pool_alloc_largest_free(pa) == 5 * B, "right merge");
    CHECK_OK(pa);
    /* The merged range is reused as one piece, at its start. */
    uint64_t x;
    CHECK(pool_alloc_alloc(pa, 5 * B, &x) == 0 && x == 0, "reuse merged at %" PRIu64, x);
    CHECK(pool_alloc_free(pa, x) == 0, "free merged");
    /* Free the rest in reverse: always one range, the whole pool at the end. */
    for (uint64_t i = N; i-- > 5;) {
        CHECK(pool_alloc_free(pa, o[i]) == 0, "rev %" PRIu64, i);
        CHECK_OK(pa);
    }
    CHECK(pool_alloc_largest_free(pa) == size && pool_alloc_bytes_free(pa) == size, "whole");
    CHECK(pool_alloc_live_blocks(pa) == 0, "none live");
    CHECK(pool_alloc_alloc(pa, size, &x) == 0 && x == 0, "whole again");
    CHECK(pool_alloc_free(pa, x) == 0, "free whole");
    pool_alloc_destroy(pa);
}

static void test_first_fit(void) {
    pool_alloc_t *pa;
    CHECK(pool_alloc_create(64 * 100, 64, &pa) == 0, "create");
    uint64_t o[100];
    for (int i = 0; i < 100; i++) CHECK(pool_alloc_alloc(pa, 64, &o[i]) == 0, "fill");
    /* Holes of 1 unit at 10, 2 units at 30-31, 3 units at 60-62, 1 unit at 90. */
    const int holes[] = {10, 30, 31, 60, 61, 62, 90};
    for (size_t i = 0; i < sizeof holes / sizeof holes[0]; i++) {
        CHECK(pool_alloc_free(pa, o[holes[i]]) == 0, "hole %d", holes[i]);
    }
    CHECK(pool_alloc_largest_free(pa) == 192, "largest 192");
    uint64_t x;
    CHECK(pool_alloc_alloc(pa, 129, &x) == 0 && x == 60 * 64, "3-unit at %" PRIu64, x);
    CHECK(pool_alloc_alloc(pa, 65, &x) == 0 && x == 30 * 64, "2-unit at %" PRIu64, x);
    CHECK(pool_alloc_alloc(pa, 1, &x) == 0 && x == 10 * 64, "1-unit at %" PRIu64, x);
    CHECK(pool_alloc_alloc(pa, 64, &x) == 0 && x == 90 * 64, "last 1-unit at %" PRIu64, x);
    CHECK(pool_alloc_alloc(pa, 1, &x) == -ENOMEM, "full");
    CHECK_OK(pa);
    pool_alloc_destroy(pa);
}

/* In-place resize: shrink gives the tail back (joined with the free range after it), grow takes
 * the free range after it, and a block with a live neighbour or a bad offset changes nothing. */
static void test_resize(void) {
    pool_alloc_t *pa;
    const uint64_t B = 256;
    CHECK(pool_alloc_create(8 * B, 64, &pa) == 0, "create");
    uint64_t a, b, c, s = 0, n = 0;
    CHECK(pool_alloc_alloc(pa, B, &a) == 0 && pool_alloc_alloc(pa, B, &b) == 0, "a b");
    CHECK(pool_alloc_resize(pa, a, 2 * B) == -ENOMEM, "a grows into live b");
    CHECK(pool_alloc_block(pa, a, &s, &n) == 0 && s == a && n == B, "a unchanged");
    CHECK(pool_alloc_resize(pa, b, 7 * B) == 0, "b grows to the end");
    CHECK(pool_alloc_bytes_free(pa) == 0 && pool_alloc_largest_free(pa) == 0, "pool full");
    CHECK(pool_alloc_resize(pa, b, 7 * B + 1) == -ENOMEM, "past the end");
    CHECK_OK(pa);
    CHECK(pool_alloc_resize(pa, b, 1) == 0, "b shrinks to one unit, no range after it");
    CHECK(pool_alloc_bytes_free(pa) == 8 * B - B - 64 &&
              pool_alloc_largest_free(pa) == 8 * B - B - 64,
          "tail free: %" PRIu64, pool_alloc_bytes_free(pa));
    CHECK(pool_alloc_block(pa, b + 64, &s, &n) == -ENOENT, "tail is free space");
    CHECK(pool_alloc_block(pa, b, &s, &n) == 0 && s == b && n == 1, "b is 1 byte");
    CHECK_OK(pa);
    CHECK(pool_alloc_resize(pa, a, 10) == 0, "a shrinks below b");
    CHECK(pool_alloc_alloc(pa, 3 * 64, &c) == 0 && c == a + 64,
          "the freed tail is reused: %" PRIu64, c);
    CHECK(pool_alloc_resize(pa, a, 0) == 0 && pool_alloc_resize(pa, a, 64) == 0, "same length");
    CHECK(pool_alloc_resize(pa, a + 64 * 5, 1) == -EINVAL, "not a block start");
    CHECK(pool_alloc_resize(pa, a + 1, 1) == -EINVAL, "interior offset");
    CHECK(pool_alloc_resize(pa, 8 * B, 1) == -EINVAL, "past the pool");
    CHECK(pool_alloc_resize(pa, b, UINT64_MAX) == -ENOMEM, "huge");
    CHECK_OK(pa);
    CHECK(pool_alloc_free(pa, a) == 0 && pool_alloc_free(pa, b) == 0 && pool_alloc_free(pa, c) == 0,
          "free all");
    CHECK(pool_alloc_largest_free(pa) == 8 * B && pool_alloc_live_blocks(pa) == 0, "whole again");
    CHECK_OK(pa);
    pool_alloc_destroy(pa);
}

/* ---- random runs against a reference model -------------------------------------------------- */

typedef struct {
    uint64_t start, req, ext;
    uint32_t tag;
} blk_t;

typedef struct {
    uint64_t cap, align, units;
    uint8_t *shadow; /* stands in for the pool's bytes */
    int32_t *owner;  /* per align unit: index into live[], or -1 */
    blk_t *live;
    uint64_t nlive, reserved;
    uint32_t next_tag;
} model_t;

static uint64_t rng_state;
static uint64_t rnd(void) {
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static uint64_t rnd_below(uint64_t n) {
    return n ? rnd() % n : 0;
}

static uint8_t pattern(uint32_t tag, uint64_t i) {
    return (uint8_t)(tag * 131u + (uint32_t)i * 7u + (uint32_t)(i >> 8) + 1u);
}

/* Longest run of free units (in bytes), and whether a run of `need` bytes exists below `limit`. */
static uint64_t model_largest(const model_t *m, uint64_t need, uint64_t limit, int *fits_below) {
    uint64_t best = 0, run = 0, run_start = 0;
    *fits_below = 0;
    for (uint64_t u = 0; u < m->units; u++) {
        if (m->owner[u] < 0) {
            if (run == 0) run_start = u;
            run++;
            if (run > best) best = run;
            if (run * m->align >= need && run_start * m->align < limit) *fits_below = 1;
        } else {
            run = 0;
        }
    }
    return best * m->align;
}

static uint64_t random_size(void) {
    uint64_t r = rnd_below(1000);
    if (r < 30) return 0;
    if (r < 950) return 1 + rnd_below(4096);
    if (r < 995) return 4097 + rnd_below(28 * 1024);
    return 32 * 1024 + rnd_below(224 * 1024);
}

static void model_free(pool_alloc_t *pa, model_t *m, uint64_t idx) {
    blk_t b = m->live[idx];
    for (uint64_t i = 0; i < b.req; i++) {
        CHECK(m->shadow[b.start + i] == pattern(b.tag, i),
              "block at %" PRIu64 " (tag %u) byte %" PRIu64 " clobbered", b.start, b.tag, i);
    }
    CHECK(pool_alloc_free(pa, b.start) == 0, "free live block at %" PRIu64, b.start);
    CHECK(pool_alloc_free(pa, b.start) == -EINVAL, "double free at %" PRIu64 " accepted", b.start);
    for (uint64_t u = b.start / m->align; u < (b.start + b.ext) / m->align; u++) {
        CHECK(m->owner[u] == (int32_t)idx, "owner map");
        m->owner[u] = -1;
    }
    m->reserved -= b.ext;
    m->nlive--;
    if (idx != m->nlive) {
        blk_t mv = m->live[m->nlive];
        m->live[idx] = mv;
        for (uint64_t u = mv.start / m->align; u < (mv.start + mv.ext) / m->align; u++) {
            m->owner[u] = (int32_t)idx;
        }
    }
}

/* Resizes live block idx in place to req bytes; the model says whether that fits (shrink, or the
 * units after the block free up to the new end), and the surviving bytes must be intact. */
static int model_resize(pool_alloc_t *pa, model_t *m, uint64_t idx, uint64_t req) {
    blk_t *b = &m->live[idx];
    uint64_t ext = round_up(req, m->align);
    int fits = ext <= m->cap - b->start;
    for (uint64_t u = (b->start + b->ext) / m->align; fits && u < (b->start + ext) / m->align; u++)
        fits = m->owner[u] < 0;
    uint64_t fr = pool_alloc_bytes_free(pa);
    int rc = pool_alloc_resize(pa, b->start, req);
    if (!fits) {
        CHECK(rc == -ENOMEM && pool_alloc_bytes_free(pa) == fr,
              "resize %" PRIu64 " -> %" PRIu64 " should fail: rc %d", b->ext, ext, rc);
        return 0;
    }
    CHECK(rc == 0, "resize at %" PRIu64 ": %" PRIu64 " -> %" PRIu64 " bytes: rc %d", b->start,
          b->req, req, rc);
    for (uint64_t i = 0; i < b->req && i < req; i++)
        CHECK(m->shadow[b->start + i] == pattern(b->tag, i), "resized block byte %" PRIu64, i);
    for (uint64_t u = b->start / m->align; u < (b->start + b->ext) / m->align; u++)
        m->owner[u] = -1;
    for (uint64_t u = b->start / m->align; u < (b->start + ext) / m->align; u++)
        m->owner[u] = (int32_t)idx;
    for (uint64_t i = b->req; i < req; i++) m->shadow[b->start + i] = pattern(b->tag, i);
    m->reserved = m->reserved - b->ext + ext;
    b->req = req;
    b->ext = ext;
    return 1;
}

static void random_run(uint64_t seed, uint64_t size, uint64_t align, uint64_t ops) {
    rng_state = seed;
    pool_alloc_t *pa;
    CHECK(pool_alloc_create(size, align, &pa) == 0, "create");
    model_t m = {.cap = size / align * align, .align = align};
    m.units = m.cap / align;
    m.shadow = malloc(m.cap ? m.cap : 1);
    m.owner = malloc((m.units ? m.units : 1) * sizeof *m.owner);
    m.live = malloc((m.units ? m.units : 1) * sizeof *m.live);
    CHECK(m.shadow && m.owner && m.live, "model malloc");
    for (uint64_t u = 0; u < m.units; u++) m.owner[u] = -1;

    uint64_t n_alloc = 0, n_nomem = 0, n_free = 0, n_bad = 0, max_live = 0, n_resize = 0;
    unsigned p_alloc = 50; /* percent; changes by phase so runs both fill up and drain */
    for (uint64_t op = 0; op < ops; op++) {
        if (op % 5000 == 0) {
            const unsigned phases[] = {50, 75, 90, 25, 10, 55, 60};
            p_alloc = phases[rnd_below(sizeof phases / sizeof phases[0])];
        }
        uint64_t r = rnd_below(1000);
        if (r < 20) {
            /* Free an arbitrary offset: valid only if it is exactly a live block's start. */
            uint64_t o = rnd_below(m.cap + 4 * align + 1);
            if (rnd_below(2) && m.nlive) {
                blk_t *b = &m.live[rnd_below(m.nlive)];
                o = b->start + rnd_below(b->ext);
            }
            uint64_t u = o / align;
            int64_t idx = o < m.cap ? m.owner[u] : -1;
            if (idx >= 0 && m.live[idx].start == o) {
                model_free(pa, &m, (uint64_t)idx);
                n_free++;
            } else {
                uint64_t fr = pool_alloc_bytes_free(pa), lg = pool_alloc_largest_free(pa);
                CHECK(pool_alloc_free(pa, o) == -EINVAL, "bad free %" PRIu64 " accepted", o);
                CHECK(pool_alloc_bytes_free(pa) == fr && pool_alloc_largest_free(pa) == lg &&
                          pool_alloc_live_blocks(pa) == m.nlive,
                      "bad free changed state");
                n_bad++;
            }
        } else if (r < 40 && m.nlive) {
            /* Resize a live block in place (half shrink, half grow). */
            uint64_t idx = rnd_below(m.nlive), req = random_size();
            n_resize += (uint64_t)model_resize(pa, &m, idx, req);
        } else if (r < 60) {
            /* Look up the block around a random offset. */
            uint64_t o = rnd_below(m.cap + align);
            uint64_t s = 0, n = 0;
            int rc = pool_alloc_block(pa, o, &s, &n);
            int64_t idx = o < m.cap ? m.owner[o / align] : -1;
            if (idx < 0) {
                CHECK(rc == -ENOENT, "block(%" PRIu64 ") = %d, expected -ENOENT", o, rc);
            } else {
                CHECK(rc == 0 && s == m.live[idx].start && n == m.live[idx].req,
                      "block(%" PRIu64 ") = %d (%" PRIu64 ", %" PRIu64 ")", o, rc, s, n);
            }
        } else if (rnd_below(100) < p_alloc) {
            uint64_t req = random_size(), o = UINT64_MAX;
            uint64_t ext = round_up(req, align);
            int rc = pool_alloc_alloc(pa, req, &o);
            /* Every 64th alloc (and every failure, sampled), compare with a scan of the model:
             * failure only when no free run fits; success at the lowest run that fits. */
            int deep = (n_alloc + n_nomem) % 64 == 0;
            if (rc == -ENOMEM) {
                CHECK(o == UINT64_MAX, "offset written on failure");
                CHECK(pool_alloc_live_blocks(pa) == m.nlive &&
                          pool_alloc_bytes_free(pa) == m.cap - m.reserved,
                      "failed alloc changed state");
                if (deep || n_nomem % 8 == 0) {
                    int fits;
                    uint64_t lg = model_largest(&m, ext, UINT64_MAX, &fits);
                    CHECK(!fits, "-ENOMEM for %" PRIu64 " but model has a run of %" PRIu64, req,
                          lg);
                    CHECK(pool_alloc_largest_free(pa) == lg, "largest %" PRIu64 " vs %" PRIu64,
                          pool_alloc_largest_free(pa), lg);
                }
                n_nomem++;
                continue;
            }
            CHECK(rc == 0, "alloc rc %d", rc);
            CHECK(o % align == 0, "offset %" PRIu64 " not aligned to %" PRIu64, o, align);
            CHECK(o <= m.cap && ext <= m.cap - o, "block [%" PRIu64 ", +%" PRIu64 ") out of pool",
                  o, ext);
            if (deep) {
                int fits;
                model_largest(&m, ext, o, &fits);
                CHECK(!fits, "not first fit: a lower run fits %" PRIu64 " below %" PRIu64, ext, o);
            }
            uint64_t idx = m.nlive++;
            for (uint64_t u = o / align; u < (o + ext) / align; u++) {
                CHECK(m.owner[u] < 0, "new block at %" PRIu64 " overlaps live block at %" PRIu64, o,
                      m.live[m.owner[u]].start);
                m.owner[u] = (int32_t)idx;
            }
            m.live[idx] = (blk_t){.start = o, .req = req, .ext = ext, .tag = m.next_tag++};
            for (uint64_t i = 0; i < req; i++) m.shadow[o + i] = pattern(m.live[idx].tag, i);
            m.reserved += ext;
            n_alloc++;
            if (m.nlive > max_live) max_live = m.nlive;
        } else if (m.nlive) {
            model_free(pa, &m, rnd_below(m.nlive));
            n_free++;
        }
        CHECK(pool_alloc_live_blocks(pa) == m.nlive, "live %" PRIu64 " vs model %" PRIu64,
              pool_alloc_live_blocks(pa), m.nlive);
        CHECK(pool_alloc_bytes_free(pa) == m.cap - m.reserved, "free %" PRIu64 " vs model %" PRIu64,
              pool_alloc_bytes_free(pa), m.cap - m.reserved);
        if (op % 997 == 0) CHECK_OK(pa);
    }
    CHECK_OK(pa);
    /* Drain in random order: the pool must come back as one range. */
    while (m.nlive) model_free(pa, &m, rnd_below(m.nlive));
    CHECK(pool_alloc_bytes_free(pa) == m.cap && pool_alloc_largest_free(pa) == m.cap,
          "not coalesced after drain: free %" PRIu64 " largest %" PRIu64, pool_alloc_bytes_free(pa),
          pool_alloc_largest_free(pa));
    CHECK(pool_alloc_live_blocks(pa) == 0, "live after drain");
    CHECK_OK(pa);
    uint64_t o;
    if (m.cap) CHECK(pool_alloc_alloc(pa, m.cap, &o) == 0 && o == 0, "whole pool after drain");
    CHECK(n_alloc > ops / 10 && n_free > ops / 10, "run too lopsided: %" PRIu64 "/%" PRIu64,
          n_alloc, n_free);
    CHECK(n_resize > ops / 200, "too few in-place resizes: %" PRIu64, n_resize);
    if (getenv("TEST_POOL_ALLOC_VERBOSE")) {
        printf("  seed %" PRIu64 " size %" PRIu64 " align %" PRIu64 ": %" PRIu64 " allocs, %" PRIu64
               " -ENOMEM, %" PRIu64 " frees, %" PRIu64 " bad frees, %" PRIu64
               " resizes, max live %" PRIu64 "\n",
               seed, size, align, n_alloc, n_nomem, n_free, n_bad, n_resize, max_live);
    }
    pool_alloc_destroy(pa);
    free(m.shadow);
    free(m.owner);
    free(m.live);
}

int main(int argc, char **argv) {
    uint64_t ops = 200000;
    const char *e = getenv("TEST_POOL_ALLOC_OPS");
    if (argc > 1) e = argv[1];
    if (e) ops = strtoull(e, NULL, 10);

    test_create();
    test_zero_bytes();
    test_exact_fit_and_exhaustion();
    test_bad_free();
    test_alignment();
    test_coalescing();
    test_first_fit();
    test_resize();

    /* Pools of different sizes and alignments; some fill up often, some rarely. */
    random_run(1, 4 << 20, 64, ops);
    random_run(2, 1 << 20, 64, ops);
    random_run(3, (1 << 20) + 13, 8, ops / 2);
    random_run(4, 16 << 20, 4096, ops / 2);
    random_run(5, 2 << 20, 128, ops / 2);
    /* Fixed seeds keep failures reproducible; TEST_POOL_ALLOC_SEED=n adds a run with another. */
    if ((e = getenv("TEST_POOL_ALLOC_SEED")) != NULL) {
        random_run(strtoull(e, NULL, 10), 3 << 20, 64, ops);
    }

    printf("test_pool_alloc: OK\n");
    return 0;
}
