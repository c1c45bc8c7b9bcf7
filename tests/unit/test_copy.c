/* The bulk copy (xport/copy.h): every byte lands, and none outside the destination changes, for
 * every distance modulo 4 KiB around the slow ones (dst 0-127 bytes past src, and just below
 * a page), source offsets within a line, and sizes around the backward copy's threshold and its
 * 64- and 128-byte steps (the head left to memcpy), with the copy the CPU picks and with the
 * baseline (SSE2) one. shoal__move with overlapping buffers too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit_check.h"
#include "xport/copy.h"

#define AREA (1 << 20)

static unsigned char pattern(size_t i) {
    return (unsigned char)(i * 131 + (i >> 8) * 7 + 1);
}

/* Copies n bytes to dst_area + GUARD + so + dist from src_area + GUARD + so (both areas start
 * on a page: dist is the distance modulo 4 KiB) and checks the destination and GUARD bytes
 * either side: the copy where it should be, the guard pattern around it. */
#define GUARD 256
static void check_copy(unsigned char *src_area, unsigned char *dst_area, size_t so, size_t dist,
                       size_t n, int baseline) {
    unsigned char *s = src_area + GUARD + so, *d = dst_area + GUARD + so + dist;
    size_t lo = GUARD + so + dist - GUARD, hi = GUARD + so + dist + n + GUARD;
    memset(dst_area + lo, 0xA5, hi - lo);
    if (baseline)
        shoal__copy_backward_baseline(d, s, n);
    else
        shoal__copy(d, s, n);
    for (size_t i = lo; i < hi; i++) {
        unsigned char *p = dst_area + i;
        int inside = p >= d && p < d + n;
        unsigned char want = inside ? s[p - d] : 0xA5;
        if (dst_area[i] != want) {
            CHECK(0, "%s of %zu B, src offset %zu, distance %zu: byte %zu is %u, not %u",
                  baseline ? "baseline backward copy" : "copy", n, so, dist, i, dst_area[i], want);
            return;
        }
    }
}

int main(void) {
    unsigned char *src = aligned_alloc(4096, AREA), *dst = aligned_alloc(4096, AREA);
    CHECK(src && dst, "out of memory");
    if (!src || !dst) return 1;
    for (size_t i = 0; i < AREA; i++) src[i] = pattern(i);

    /* The alias test itself. */
    for (size_t k = 0; k < 8192; k++) {
        int want = (k % 4096) >= 1 && (k % 4096) <= 63;
        CHECK(shoal__copy_aliased(dst + k, dst) == want, "distance %zu: aliased %d", k, !want);
    }
    const size_t sizes[] = {1,    8,    63,   2047, 2048,       2049,   2111,  2175,
                            4096, 4097, 8191, 8256, 65536 + 77, 262144, 300001};
    const size_t offsets[] = {0, 1, 16, 63};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes && failures < 10; si++)
        for (size_t oi = 0; oi < sizeof offsets / sizeof *offsets; oi++)
            for (size_t dist = 0; dist < 4096; dist += dist < 128 ? 1 : 1000) {
                if (sizes[si] > 8192 && dist % 16) continue; /* time: large sizes at every 16 */
                check_copy(src, dst, offsets[oi], dist, sizes[si], 0);
                if (dist >= 1 && dist <= 63) check_copy(src, dst, offsets[oi], dist, sizes[si], 1);
            }

    /* shoal__move: overlapping both ways, at aliased distances. */
    for (size_t dist = 1; dist < 64 && failures < 10; dist += 5)
        for (int up = 0; up < 2; up++) {
            size_t n = 20000;
            unsigned char *ref = malloc(n);
            memcpy(dst, src, AREA);
            unsigned char *from = dst + 8192, *to = up ? from + dist : from - dist;
            memcpy(ref, from, n);
            shoal__move(to, from, n);
            CHECK(memcmp(to, ref, n) == 0, "overlapping move of %zu B by %s%zu", n, up ? "+" : "-",
                  dist);
            free(ref);
        }
    free(src);
    free(dst);
    if (failures) fprintf(stderr, "test_copy: %d failures\n", failures);
    return failures != 0;
}
