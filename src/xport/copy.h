/* Bulk copies of program data on the direct path: puts, gets, collectives, the one-sided
 * broadcast, fences' carried puts.
 *
 * Why not memcpy alone: glibc 2.36 copies 2 KiB up to the L2 size with `rep movsb` on AMD, and
 * on AMD EPYC (Zen 3, family 25 model 1) that runs 13-20x slower when the destination starts
 * 1-31 bytes past the source modulo 4 KiB (64 KiB: 30-48 us instead of 1.6-2.4 us). It is the
 * common case, not a corner: a large malloc'd buffer starts 16 bytes into a page and Shoal's
 * segments start on one, so a 64 KiB shoal_get into a malloc'd buffer, or a reduction through a
 * realloc'd work buffer, hit it on every call. Copying backwards from the end never makes a load
 * wait for an earlier store to the same 4 KiB offset, and is as fast as the best memcpy
 * (docs/design.md, "Bulk copies"). */
#ifndef SHOAL_XPORT_COPY_H
#define SHOAL_XPORT_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* From this size up glibc may use `rep movsb` (smaller copies are vector moves, unaffected). */
#define SHOAL_COPY_ALIAS_MIN 2048

/* Copies n bytes between non-overlapping buffers, backwards when the distance is one that
 * `rep movsb` handles badly. */
void shoal__copy_backward(void *dst, const void *src, size_t n);
/* The same without AVX2 (what CPUs without it run), for the unit test on CPUs with it. */
void shoal__copy_backward_baseline(void *dst, const void *src, size_t n);

/* Whether dst starts 1-63 bytes past src modulo 4 KiB (measured slow: 1-31; 32-63 kept for a
 * margin, the backward copy costs nothing there). */
static inline int shoal__copy_aliased(const void *dst, const void *src) {
    uintptr_t dist = ((uintptr_t)dst - (uintptr_t)src) & 4095;
    return dist - 1 < 63;
}

/* memcpy for program data: non-overlapping buffers, any size. */
static inline void shoal__copy(void *dst, const void *src, size_t n) {
    if (__builtin_expect(n >= SHOAL_COPY_ALIAS_MIN, 0) && shoal__copy_aliased(dst, src))
        shoal__copy_backward(dst, src, n);
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

#endif
