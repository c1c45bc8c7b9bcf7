/* The bulk copy (xport/copy.h), with each of its kernels forced in turn and with the measured
 * choice: every byte lands, and none outside the destination changes, for every distance modulo
 * 4 KiB around the aliased ones (dst 0-127 bytes past src, and just below a page), source offsets
 * within a line, and sizes around the bulk threshold, the backward copy's 64- and 128-byte steps
 * (the head left to memcpy) and the 1 MiB class boundary; the baseline (SSE2) backward copy too.
 * The choice: SHOAL_COPY_KERNEL's names parse, a forced kernel is every class's kernel, and a
 * measured choice is one of the class's candidates with a time for each. shoal__move with
 * overlapping buffers too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_check.h"
#include "xport/copy.h"

#define AREA ((2 << 20) + 16384)

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
    /* Names. */
    CHECK(shoal__copy_parse_kernel(NULL) == -1 && shoal__copy_parse_kernel("") == -1 &&
              shoal__copy_parse_kernel("auto") == -1,
          "auto, empty and unset must mean: measure");
    for (int k = 0; k < SHOAL_COPY_NKERNELS; k++)
        CHECK(shoal__copy_parse_kernel(shoal__copy_kernel_name((shoal_copy_kernel_t)k)) == k,
              "kernel %d's name does not parse back", k);
    CHECK(shoal__copy_parse_kernel("fast") == -2, "an unknown kernel name must be refused");

    /* The measured choice (the first use): a candidate of each class, with its time. */
    shoal__copy_prepare(-1);
    for (int c = 0; c < SHOAL_COPY_NCLASSES; c++) {
        double ns[SHOAL_COPY_NKERNELS];
        shoal_copy_kernel_t k = shoal__copy_kernel_of((shoal_copy_class_t)c, ns);
        CHECK(k >= 0 && k < SHOAL_COPY_NKERNELS && ns[k] > 0 && ns[SHOAL_COPY_MEMCPY] > 0,
              "class %d: kernel %d was not measured", c, (int)k);
        for (int j = 0; j < SHOAL_COPY_NKERNELS; j++)
            CHECK(j == (int)k || ns[j] <= 0 || j == SHOAL_COPY_MEMCPY || ns[j] >= 0.9 * ns[k],
                  "class %d: kernel %d chosen although %d was faster", c, (int)k, j);
    }
    char line[512];
    shoal__copy_describe(line, sizeof line);
    printf("test_copy: measured choice: %s\n", line);

    /* Every kernel forced in turn: every class runs it, and every copy lands. */
    const size_t sizes[] = {1,
                            8,
                            63,
                            2047,
                            2048,
                            2049,
                            2111,
                            2175,
                            4096,
                            4097,
                            8191,
                            8256,
                            65536 + 77,
                            262144,
                            (1 << 20) - 1,
                            1 << 20,
                            (1 << 20) + 4096 + 77};
    const size_t offsets[] = {0, 1, 16, 63};
    for (int k = 0; k < SHOAL_COPY_NKERNELS && failures < 10; k++) {
        shoal__copy_prepare(k);
        for (int c = 0; c < SHOAL_COPY_NCLASSES; c++)
            CHECK(shoal__copy_kernel_of((shoal_copy_class_t)c, NULL) == (shoal_copy_kernel_t)k,
                  "kernel %s forced, class %d has another", shoal__copy_kernel_name(k), c);
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes && failures < 10; si++)
            for (size_t oi = 0; oi < sizeof offsets / sizeof *offsets; oi++)
                for (size_t dist = 0; dist < 4096; dist += dist < 128 ? 1 : 1000) {
                    /* time: large sizes at every 16th distance, the largest at a few */
                    if (sizes[si] > 8192 && dist % 16) continue;
                    if (sizes[si] > 300000 && (oi > 1 || (dist > 16 && dist < 4000))) continue;
                    check_copy(src, dst, offsets[oi], dist, sizes[si], 0);
                    if (k == 0 && dist >= 1 && dist <= 63)
                        check_copy(src, dst, offsets[oi], dist, sizes[si], 1);
                }
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
