// np: 1 2 3 4
/* Symmetric memory. The heap: shmem_malloc/calloc (zeroed, also over reused memory)/align
 * (alignments 64..65536 honoured)/realloc (content kept, growing and shrinking)/free,
 * shmem_malloc_with_hints, size 0 (NULL), free(NULL); the same sequence of allocations gives the
 * same offsets on every PE (PE 0 compares them all) and each block is reachable by put from
 * every PE; many alloc/free cycles whose total far exceeds the heap (so freed space is reused).
 * Global and static variables (file-scope arrays with initialisers, static locals, a big bss
 * array) are symmetric: put, get, p/g and atomics on them from every PE; their initial values are
 * read remotely. */
#include <stdint.h>

#include "shmem_testlib.h"

#define NSEQ 24
int g_data[64] = {1, 2, 3, 4, 5, 6, 7, 8};    /* data */
static long s_data[8] = {11, 12, 13, 14, 15}; /* data, file scope static */
int g_bss[100];                               /* bss */
static char s_big[1 << 20];                   /* big bss */
long g_counter;                               /* bss, atomics */
static double g_dbl = 2.5;

static long *static_local(void) {
    static long local[4] = {21, 22, 23, 24};
    return local;
}

static void check_offsets(void) {
    static const size_t sizes[NSEQ] = {1,   8,    100, 4096, 7,       65536, 3, 12345,
                                       64,  1000, 1,   2,    1 << 20, 17,    5, 300000,
                                       128, 129,  255, 256,  4095,    4097,  9, 10};
    char *blocks[NSEQ];
    long *offs = shmem_calloc((size_t)t_np * NSEQ, sizeof(long));
    REQUIRE(offs, "shmem_calloc of the offset table");
    for (int i = 0; i < NSEQ; i++) {
        blocks[i] = shmem_malloc(sizes[i]);
        REQUIRE(blocks[i], "shmem_malloc(%zu) returned NULL", sizes[i]);
        CHECK(((uintptr_t)blocks[i] % sizeof(long double)) == 0,
              "shmem_malloc(%zu) = %p not suitably aligned", sizes[i], (void *)blocks[i]);
    }
    long mine[NSEQ];
    for (int i = 0; i < NSEQ; i++) mine[i] = (long)(blocks[i] - blocks[0]);
    shmem_long_put(&offs[t_me * NSEQ], mine, NSEQ, 0);
    /* And every block is reachable: write my id into the right neighbour's last byte. */
    for (int i = 0; i < NSEQ; i++)
        shmem_char_p(&blocks[i][sizes[i] - 1], (char)(t_me + 1), test_right());
    shmem_barrier_all();
    if (t_me == 0)
        for (int pe = 1; pe < t_np; pe++)
            for (int i = 0; i < NSEQ; i++)
                CHECK(offs[pe * NSEQ + i] == offs[i],
                      "block %d (size %zu): offset %ld on PE %d, %ld on PE 0", i, sizes[i],
                      offs[pe * NSEQ + i], pe, offs[i]);
    for (int i = 0; i < NSEQ; i++)
        CHECK(blocks[i][sizes[i] - 1] == (char)(test_left() + 1),
              "block %d: last byte %d, expected %d", i, blocks[i][sizes[i] - 1], test_left() + 1);
    /* Free in a different order than allocated. */
    for (int i = 1; i < NSEQ; i += 2) shmem_free(blocks[i]);
    for (int i = 0; i < NSEQ; i += 2) shmem_free(blocks[i]);
    shmem_free(offs);
}

static void check_calloc_align_realloc(void) {
    /* malloc(0), calloc with a zero count or size: NULL; free(NULL) does nothing. */
    CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0) is not NULL");
    CHECK(shmem_calloc(0, 8) == NULL, "shmem_calloc(0, 8) is not NULL");
    CHECK(shmem_calloc(8, 0) == NULL, "shmem_calloc(8, 0) is not NULL");
    shmem_free(NULL);

    /* calloc over memory that was dirty. */
    unsigned char *d = shmem_malloc(50000);
    REQUIRE(d, "shmem_malloc(50000)");
    memset(d, 0xAB, 50000);
    shmem_free(d);
    unsigned char *z = shmem_calloc(10000, 5);
    REQUIRE(z, "shmem_calloc(10000, 5)");
    size_t nz = 0;
    for (size_t i = 0; i < 50000; i++) nz += z[i] != 0;
    CHECK(nz == 0, "shmem_calloc: %zu of 50000 bytes not zero", nz);
    shmem_free(z);

    /* align: every power of two from 64 to 65536, each block reachable remotely. */
    for (size_t a = 64; a <= 65536; a *= 2) {
        char *p = shmem_align(a, 100 + a / 64);
        if (!CHECK(p != NULL, "shmem_align(%zu) returned NULL", a)) continue;
        CHECK((uintptr_t)p % a == 0, "shmem_align(%zu) gave %p", a, (void *)p);
        shmem_int_p((int *)p, (int)a + t_me, test_right());
        shmem_barrier_all();
        CHECK(*(int *)p == (int)a + test_left(), "aligned(%zu) block: %d", a, *(int *)p);
        shmem_free(p);
    }
    /* Old names. */
    char *o = shmemalign(256, 64);
    CHECK(o && (uintptr_t)o % 256 == 0, "shmemalign(256) gave %p", (void *)o);
    long *sh = shmalloc(64);
    CHECK(sh != NULL, "shmalloc(64) NULL");
    sh = shrealloc(sh, 128);
    CHECK(sh != NULL, "shrealloc NULL");
    shfree(sh);
    shfree(o);

    /* realloc: grow (content kept), shrink (prefix kept), the result reachable remotely. */
    int *r = shmem_malloc(100 * sizeof(int));
    REQUIRE(r, "shmem_malloc(400)");
    for (int i = 0; i < 100; i++) r[i] = i * 3 + t_me;
    int *keep = shmem_malloc(64); /* so the block cannot simply grow in place at the end */
    r = shmem_realloc(r, 100000 * sizeof(int));
    REQUIRE(r, "shmem_realloc to 400000 bytes returned NULL");
    int bad = 0;
    for (int i = 0; i < 100; i++) bad += r[i] != i * 3 + t_me;
    CHECK(bad == 0, "shmem_realloc (grow): %d of 100 ints changed", bad);
    shmem_int_p(&r[99999], 7 + t_me, test_right());
    shmem_barrier_all();
    CHECK(r[99999] == 7 + test_left(), "realloc'd block end: %d", r[99999]);
    r = shmem_realloc(r, 10 * sizeof(int));
    REQUIRE(r, "shmem_realloc (shrink) returned NULL");
    bad = 0;
    for (int i = 0; i < 10; i++) bad += r[i] != i * 3 + t_me;
    CHECK(bad == 0, "shmem_realloc (shrink): %d of 10 ints changed", bad);
    shmem_barrier_all(); /* everyone has checked before r[9] is written */
    shmem_int_p(&r[9], 9 + t_me, test_right());
    shmem_barrier_all();
    CHECK(r[9] == 9 + test_left(), "shrunk block: %d", r[9]);
    int *n = shmem_realloc(NULL, 32); /* realloc(NULL) is malloc */
    CHECK(n != NULL, "shmem_realloc(NULL, 32) returned NULL");
    shmem_free(n);
    shmem_free(r);
    shmem_free(keep);

    /* Hints: any of them gives usable symmetric memory. */
    const long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                          SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
    for (int h = 0; h < 4; h++) {
        uint64_t *w = shmem_malloc_with_hints(8 * sizeof(uint64_t), hints[h]);
        if (!CHECK(w != NULL, "shmem_malloc_with_hints(64, %ld) NULL", hints[h])) continue;
        w[0] = 0;
        shmem_barrier_all();
        shmem_uint64_atomic_add(&w[0], (uint64_t)t_me + 1, 0);
        shmem_barrier_all();
        if (t_me == 0)
            CHECK(w[0] == (uint64_t)t_np * (t_np + 1) / 2, "hinted block counter %llu",
                  (unsigned long long)w[0]);
        shmem_free(w);
    }
    CHECK(shmem_malloc_with_hints(0, 0) == NULL, "shmem_malloc_with_hints(0) is not NULL");
}

/* Allocations totalling many times the heap: only possible when freed space is reused. */
static void check_cycles(void) {
    int ok = 1;
    /* 120 x 4..8 MiB, or (where each collective call is slow) 14 x 12..16 MiB: either way more
     * than the 128 MiB heap. */
    const int cycles = test_light() ? 14 : 120;
    for (int c = 0; c < cycles && ok; c++) {
        size_t big = (size_t)((test_light() ? 12 : 4) + c % 5) << 20;
        char *a = shmem_malloc(1000 + (size_t)c * 13);
        char *b = shmem_malloc(big);
        ok = CHECK(a && b, "cycle %d: shmem_malloc returned NULL (a %p, b %p)", c, (void *)a,
                   (void *)b);
        if (ok && c % 7 == 0) {
            shmem_char_p(&b[big - 1], (char)c, test_right());
            shmem_barrier_all();
            ok = CHECK(b[big - 1] == (char)c, "cycle %d: byte %d", c, b[big - 1]);
        }
        shmem_free(b);
        shmem_free(a);
    }
}

static void check_globals(void) {
    const int right = test_right(), left = test_left();
    long *loc = static_local();
    /* Initial values read remotely (before anyone changes them). */
    int gd[8];
    shmem_int_get(gd, g_data, 8, right);
    for (int i = 0; i < 8; i++) CHECK(gd[i] == i + 1, "g_data[%d] on PE %d: %d", i, right, gd[i]);
    CHECK(shmem_long_g(&s_data[4], right) == 15, "s_data[4] on PE %d", right);
    CHECK(shmem_long_g(&loc[2], right) == 23, "static local[2] on PE %d", right);
    CHECK(shmem_double_g(&g_dbl, right) == 2.5, "g_dbl on PE %d", right);
    shmem_barrier_all();

    /* Puts into every kind of global, from every PE: slot t_me of each. */
    for (int pe = 0; pe < t_np; pe++) {
        shmem_int_p(&g_data[8 + t_me % 56], 100 + t_me, pe);
        shmem_int_p(&g_bss[t_me % 100], 200 + t_me, pe);
        shmem_long_p(&loc[3], 0, pe); /* overwritten below by the right neighbour's put only */
        char msg[64];
        snprintf(msg, sizeof msg, "from PE %d", t_me);
        shmem_putmem(&s_big[(size_t)t_me * 4096 + 100000], msg, strlen(msg) + 1, pe);
        shmem_long_atomic_add(&g_counter, t_me + 1, pe);
    }
    shmem_barrier_all();
    shmem_long_p(&loc[3], 300 + t_me, right);
    shmem_long_put(&s_data[5], (long[]){400L + t_me, 500L + t_me}, 2, right);
    shmem_double_p(&g_dbl, 0.5 + t_me, right);
    s_big[sizeof s_big - 1] = (char)(t_me + 1); /* for the get below */
    shmem_barrier_all();

    for (int pe = 0; pe < t_np && pe < 56; pe++) {
        CHECK(g_data[8 + pe] == 100 + pe, "g_data[%d]: %d", 8 + pe, g_data[8 + pe]);
        CHECK(g_bss[pe] == 200 + pe, "g_bss[%d]: %d", pe, g_bss[pe]);
        char msg[64];
        snprintf(msg, sizeof msg, "from PE %d", pe);
        CHECK(strcmp(&s_big[(size_t)pe * 4096 + 100000], msg) == 0, "s_big slot %d: \"%.20s\"", pe,
              &s_big[(size_t)pe * 4096 + 100000]);
    }
    CHECK(g_counter == (long)t_np * (t_np + 1) / 2, "g_counter %ld, expected %ld", g_counter,
          (long)t_np * (t_np + 1) / 2);
    CHECK(loc[3] == 300 + left, "static local[3]: %ld", loc[3]);
    CHECK(s_data[5] == 400 + left && s_data[6] == 500 + left, "s_data[5..6]: %ld %ld", s_data[5],
          s_data[6]);
    CHECK(g_dbl == 0.5 + left, "g_dbl %g", g_dbl);
    CHECK(shmem_char_g(&s_big[sizeof s_big - 1], right) == (char)(right + 1),
          "last byte of s_big on PE %d", right);
    /* Atomics on globals: fetch-add returns distinct values; swap; compare-swap. */
    shmem_barrier_all();
    long f = shmem_long_atomic_fetch_add(&g_counter, 1000, 0);
    CHECK(f >= (long)t_np * (t_np + 1) / 2 && (f - (long)t_np * (t_np + 1) / 2) % 1000 == 0,
          "fetch_add on a global returned %ld", f);
    shmem_barrier_all();
    if (t_me == 0)
        CHECK(g_counter == (long)t_np * (t_np + 1) / 2 + 1000L * t_np, "g_counter %ld", g_counter);
    int old = shmem_int_atomic_compare_swap(&g_bss[99], 0, t_me + 1, 0);
    shmem_barrier_all();
    if (t_me == 0) CHECK(g_bss[99] >= 1 && g_bss[99] <= t_np, "cswap winner %d", g_bss[99]);
    CHECK(old == 0 || (old >= 1 && old <= t_np), "cswap returned %d", old);
}

/* First, with the heap still empty: a block grows in place into all the free heap behind it
 * (a realloc that took a new block first would find no room for it), and shrinks in place. */
static void check_realloc_in_place(void) {
    size_t heap = (size_t)128 << 20; /* the default SHMEM_SYMMETRIC_SIZE */
    if (getenv("SHMEM_SYMMETRIC_SIZE")) return;
    char *p = shmem_malloc(16);
    REQUIRE(p, "shmem_malloc(16)");
    memcpy(p, "fifteen chars..", 16);
    char *q = shmem_realloc(p, heap - 4096);
    CHECK(q == p, "shmem_realloc(16 -> heap - 4 KiB) moved or failed: %p -> %p", (void *)p,
          (void *)q);
    if (!q) q = p;
    CHECK(memcmp(q, "fifteen chars..", 16) == 0, "content after growing in place");
    q[heap - 4097] = 'z';
    shmem_char_p(&q[heap - 4098], 'y', test_right());
    shmem_barrier_all();
    CHECK(q[heap - 4098] == 'y' && q[heap - 4097] == 'z', "the grown block's end");
    char *r = shmem_realloc(q, 8);
    CHECK(r == q, "shmem_realloc shrinking moved the block: %p -> %p", (void *)q, (void *)r);
    if (!r) r = q;
    CHECK(memcmp(r, "fifteen", 7) == 0, "content after shrinking in place");
    shmem_free(r);
}

int main(void) {
    test_init();
    check_realloc_in_place();
    check_offsets();
    check_calloc_align_realloc();
    check_cycles();
    check_globals();
    return test_end("test_shmem_memory");
}
