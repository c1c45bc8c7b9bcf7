/* Strided put/get: element sizes 1..1000 bytes, contiguous and gapped strides on either side,
 * 0..1000 elements. Each case is checked byte for byte over the whole span plus guards, so the
 * gaps between elements must keep their background. Puts go to the right neighbour (read back
 * with a plain get, and finally checked in the target's own memory); gets come from the left
 * neighbour's static data. */
#include "testlib.h"

#define REGION (128 * 1024) /* per-region bytes in each part */
#define GUARD  16

static const size_t elems[] = {1, 4, 8, 24, 1000};
static const size_t remote_gaps[] = {0, 1, 3, SIZE_MAX /* = elem: stride 2 * elem */, 13};
static const size_t local_gaps[] = {0, 5};
static const size_t counts[] = {0, 1, 2, 3, 17, 100, 1000};
#define N_ELEMS  (sizeof elems / sizeof elems[0])
#define N_RGAPS  (sizeof remote_gaps / sizeof remote_gaps[0])
#define N_LGAPS  (sizeof local_gaps / sizeof local_gaps[0])
#define N_COUNTS (sizeof counts / sizeof counts[0])
#define N_CASES  (N_ELEMS * N_RGAPS * N_LGAPS * N_COUNTS)

typedef struct {
    size_t elem, count;
    ptrdiff_t rstride, lstride; /* remote and local strides in bytes */
    size_t rmis;                /* misalignment of the remote start */
} scase_t;

static scase_t case_of(size_t c) {
    scase_t s;
    size_t i = c;
    s.count = counts[i % N_COUNTS];
    i /= N_COUNTS;
    const size_t lgap = local_gaps[i % N_LGAPS];
    i /= N_LGAPS;
    size_t rgap = remote_gaps[i % N_RGAPS];
    i /= N_RGAPS;
    s.elem = elems[i];
    if (rgap == SIZE_MAX) rgap = s.elem;
    s.rstride = (ptrdiff_t)(s.elem + rgap);
    s.lstride = (ptrdiff_t)(s.elem + lgap);
    s.rmis = c % 8;
    return s;
}

static size_t span(size_t count, ptrdiff_t stride, size_t elem) {
    return count ? (count - 1) * (size_t)stride + elem : 0;
}
/* A case fits when its spans (plus guards and misalignment) fit a region. */
static int fits(const scase_t *s) {
    return span(s->count, s->rstride, s->elem) + 2 * GUARD + 8 <= REGION &&
           span(s->count, s->lstride, s->elem) + 2 * GUARD <= REGION;
}

static int case_fits(size_t c) {
    const scase_t s = case_of(c);
    return fits(&s);
}

static void describe(char *buf, size_t len, const char *op, size_t c, const scase_t *s) {
    snprintf(buf, len, "%s case %zu (elem %zu, count %zu, remote stride %td, local stride %td)", op,
             c, s->elem, s->count, s->rstride, s->lstride);
}

/* Compares got with expected; on a mismatch reports where, and whether it is in an element. */
static void compare(const uint8_t *got, const uint8_t *exp, size_t n, size_t first_elem,
                    ptrdiff_t stride, size_t elem, size_t count, const char *what) {
    for (size_t i = 0; i < n; i++) {
        if (got[i] == exp[i]) continue;
        const char *where = "a guard";
        if (i >= first_elem && i < first_elem + span(count, stride, elem)) {
            size_t rel = i - first_elem;
            where = rel % (size_t)stride < elem ? "an element" : "a gap between elements";
        }
        size_t bad = 0;
        for (size_t j = i; j < n; j++) bad += got[j] != exp[j];
        CHECK(0, "%s: byte %zu (in %s) is 0x%02x, expected 0x%02x; %zu bytes wrong", what, i, where,
              got[i], exp[i], bad);
        return;
    }
}

/* What put case c by `writer` leaves in the target's region (guards, elements and gaps), from
 * the byte at the case's misalignment on. */
static size_t expected_put(size_t c, shoal_unit_t writer, uint8_t *exp) {
    const scase_t s = case_of(c);
    const size_t n = span(s.count, s.rstride, s.elem) + 2 * GUARD;
    fill_pattern(exp, n, 30000 + c, writer, 0); /* the background */
    for (size_t i = 0; i < s.count; i++)        /* source element i: pattern at i * lstride */
        fill_pattern(exp + GUARD + i * (size_t)s.rstride, s.elem, 40000 + c, writer,
                     i * (size_t)s.lstride);
    return n;
}

static void put_cases(shoal_gptr_t region_right, uint8_t *src, uint8_t *bg, uint8_t *exp,
                      uint8_t *got) {
    for (size_t c = 0; c < N_CASES; c++) {
        const scase_t s = case_of(c);
        if (!fits(&s)) continue;
        char what[256];
        describe(what, sizeof what, "put_strided", c, &s);
        const size_t n = span(s.count, s.rstride, s.elem) + 2 * GUARD;
        shoal_gptr_t at = shoal_gptr_add(region_right, (int64_t)s.rmis);

        /* The background, then the elements over it. */
        fill_pattern(bg, n, 30000 + c, t_me, 0);
        CHECK_OK(shoal_put(at, bg, n));
        fill_pattern(src, span(s.count, s.lstride, s.elem), 40000 + c, t_me, 0);
        CHECK_OK(shoal_put_strided(shoal_gptr_add(at, GUARD), s.rstride, src, s.lstride, s.elem,
                                   s.count));

        expected_put(c, t_me, exp);
        memset(got, 0, n);
        CHECK_OK(shoal_get(got, at, n));
        compare(got, exp, n, GUARD, s.rstride, s.elem, s.count, what);
    }
}

static void get_cases(shoal_gptr_t region_left, shoal_unit_t left, uint8_t *dst, uint8_t *exp) {
    for (size_t c = 0; c < N_CASES; c++) {
        const scase_t s = case_of(c);
        if (!fits(&s)) continue;
        char what[256];
        describe(what, sizeof what, "get_strided", c, &s);
        const size_t n = span(s.count, s.lstride, s.elem) + 2 * GUARD;

        fill_pattern(dst, n, 50000 + c, t_me, 0); /* local background */
        memcpy(exp, dst, n);
        /* The left unit's region holds pattern(seed 7, left, index) everywhere. */
        for (size_t i = 0; i < s.count; i++)
            fill_pattern(exp + GUARD + i * (size_t)s.lstride, s.elem, 7, left,
                         s.rmis + i * (size_t)s.rstride);
        CHECK_OK(shoal_get_strided(dst + GUARD, s.lstride,
                                   shoal_gptr_add(region_left, (int64_t)s.rmis), s.rstride, s.elem,
                                   s.count));
        compare(dst, exp, n, GUARD, s.lstride, s.elem, s.count, what);
    }
}

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    double t0 = test_now();
    const shoal_unit_t right = test_right(), left = test_left();

    /* My part: [0, REGION) is written by my left neighbour's puts; [REGION, 2 * REGION) is the
     * static source of my right neighbour's gets. */
    shoal_gptr_t base = SHOAL_GPTR_NULL;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 2 * REGION, &base));
    void *addr = NULL;
    CHECK_OK(shoal_gptr_getaddr(base, &addr));
    REQUIRE(addr != NULL, "no address for my part");
    uint8_t *mine = addr;
    fill_pattern(mine + REGION, REGION, 7, t_me, 0);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    uint8_t *a = malloc(REGION), *b = malloc(REGION), *c = malloc(REGION), *d = malloc(REGION);
    put_cases(shoal_gptr_setunit(base, right), a, b, c, d);
    double t1 = test_now();
    get_cases(shoal_gptr_add(shoal_gptr_setunit(base, left), REGION), left, a, b);
    double t2 = test_now();
    if (getenv("TEST_VERBOSE"))
        printf("unit %d: puts %.2f s, gets %.2f s\n", (int)t_me, t1 - t0, t2 - t1);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    /* My memory holds my left neighbour's last put case exactly. */
    size_t last = N_CASES;
    while (last > 0 && !case_fits(last - 1)) last--;
    if (last > 0) {
        const scase_t s = case_of(last - 1);
        const size_t n = expected_put(last - 1, left, c);
        char what[256];
        describe(what, sizeof what, "my memory after the last put_strided", last - 1, &s);
        compare(mine + s.rmis, c, n, GUARD, s.rstride, s.elem, s.count, what);
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    CHECK_OK(shoal_team_memfree(base));
    free(a);
    free(b);
    free(c);
    free(d);
    if (t_me == 0 && getenv("TEST_VERBOSE"))
        printf("test_strided: %.2f s at np %d\n", test_now() - t0, (int)t_np);
    return test_end("test_strided");
}
