/* Bulk copies of program data on the direct path: puts, gets, collectives, the one-sided
 * broadcast, fences' carried puts.
 *
 * Why not memcpy alone: which copy is fastest depends on the CPU, and glibc 2.36 picks badly on
 * some of ours (docs/design.md, "Bulk copies"):
 *   - AMD EPYC family 25 model 1 (Zen 3): glibc's `rep movsb` (2 KiB up to the L2 size) runs
 *     13-20x slower when the destination starts 1-31 bytes past the source modulo 4 KiB, the
 *     distance between a page-aligned segment and a malloc'd buffer. A backward vector copy
 *     does not suffer it.
 *   - AMD EPYC family 26 model 2 (Zen 5): there that distance costs memcpy 1.3x only, and the
 *     backward copy is 1.4-1.5x slower than memcpy at 64-256 KiB; but from 1 MiB (where glibc
 *     leaves `rep movsb` for a vector loop) `rep movsb` is 1.15x faster at 1 MiB and 1.5x at
 *     16 MiB.
 * So each process measures once, on its own CPU, which of memcpy, `rep movsb` and the backward
 * copy is fastest for each size class where they differ (on the class's first copy), and uses
 * that (SHOAL_COPY_KERNEL forces one). Copies below 2 KiB, and non-aliased ones below 1 MiB, are
 * memcpy without a question, decided inline: the 8-byte put's path is unchanged and the common
 * mid-sized copy makes no call for it. */
#ifndef SHOAL_XPORT_COPY_H
#define SHOAL_XPORT_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* From this size up a copy goes through the measured choice (smaller copies are vector moves
 * inside memcpy, the same on every CPU we met). */
#define SHOAL_COPY_BULK_MIN 2048
/* From this size up the non-aliased copies have a measured choice too (glibc's `rep movsb`
 * range ends at the L2 size, 1 MiB or less on our hosts). */
#define SHOAL_COPY_LARGE_MIN ((size_t)1 << 20)

/* The copy kernels the choice is made among. */
typedef enum {
    SHOAL_COPY_MEMCPY = 0, /* the C library's memcpy */
    SHOAL_COPY_MOVSB,      /* one `rep movsb` (x86-64; memcpy elsewhere) */
    SHOAL_COPY_BACKWARD,   /* 128 bytes a step from the end, AVX2 or SSE2 */
    SHOAL_COPY_NKERNELS
} shoal_copy_kernel_t;

/* The size classes that have a choice, each measured at one size and distance. */
typedef enum {
    SHOAL_COPY_ALIAS_SMALL = 0, /* aliased, 2 KiB up to 16 KiB (measured at 4 KiB) */
    SHOAL_COPY_ALIAS_MID,       /* aliased, 16 KiB up to 1 MiB (measured at 64 KiB) */
    SHOAL_COPY_ALIAS_LARGE,     /* aliased, 1 MiB and up (measured at 1 MiB) */
    SHOAL_COPY_LARGE,           /* not aliased, 1 MiB and up (measured at 1 MiB) */
    SHOAL_COPY_NCLASSES
} shoal_copy_class_t;

/* The bulk copy of the classes above (shoal__copy calls it for n >= SHOAL_COPY_BULK_MIN when
 * aliased, and for n >= SHOAL_COPY_LARGE_MIN), non-overlapping: the kernel chosen for its class,
 * measured on the class's first copy. */
void shoal__copy_bulk(void *dst, const void *src, size_t n);

/* Whether dst starts 1-63 bytes past src modulo 4 KiB (measured slow for `rep movsb` on Zen 3:
 * 1-31; 32-63 kept for a margin). */
static inline int shoal__copy_aliased(const void *dst, const void *src) {
    uintptr_t dist = ((uintptr_t)dst - (uintptr_t)src) & 4095;
    return dist - 1 < 63;
}

/* memcpy for program data: non-overlapping buffers, any size. */
static inline void shoal__copy(void *dst, const void *src, size_t n) {
    if (__builtin_expect(n >= SHOAL_COPY_BULK_MIN, 0) &&
        (n >= SHOAL_COPY_LARGE_MIN || shoal__copy_aliased(dst, src)))
        shoal__copy_bulk(dst, src, n);
    else
        memcpy(dst, src, n);
}

/* memmove for program data: the buffers may overlap (memmove then picks the direction). */
static inline void shoal__move(void *dst, const void *src, size_t n) {
    const char *s = src;
    char *d = dst;
    if (s < d + n && d < s + n)
        memmove(d, s, n);
    else
        shoal__copy(d, s, n);
}

/* SHOAL_COPY_KERNEL's text: "auto" (measure; also NULL or "") -> -1, a kernel's name -> that
 * kernel, anything else -> -2. */
int shoal__copy_parse_kernel(const char *text);
/* SHOAL_COPY_KERNEL as shoal_init read it: forced is a kernel for every class, or -1 to
 * measure each class on its first copy (under a millisecond for the small classes, 1-3 ms for
 * the 1 MiB ones, paid once per process and only by a process that copies in the class).
 * Without it the first bulk copy reads the variable itself. */
void shoal__copy_prepare(int forced);
/* The kernel of a class (choosing first if needed), and the measured ns per copy of each
 * kernel at the class's size (0 where not measured: forced, or not a candidate there). */
shoal_copy_kernel_t shoal__copy_kernel_of(shoal_copy_class_t cls, double ns[SHOAL_COPY_NKERNELS]);
const char *shoal__copy_kernel_name(shoal_copy_kernel_t k);
/* One line naming each class's kernel and timings, for SHOAL_DEBUG=2 and the benchmarks. */
void shoal__copy_describe(char *buf, size_t len);

/* The kernels themselves, for the unit test. */
void shoal__copy_backward(void *dst, const void *src, size_t n);
void shoal__copy_backward_baseline(void *dst, const void *src, size_t n); /* SSE2 only */
void shoal__copy_movsb(void *dst, const void *src, size_t n);

#endif
