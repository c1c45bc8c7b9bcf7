/* The bulk copy of xport/copy.h: three kernels (memcpy, `rep movsb`, a backward vector copy) and
 * the per-process choice among them for each size class, measured on first use.
 *
 * Measured (64 KiB, destination 16 bytes past the source modulo 4 KiB; 1 MiB at distance 0):
 *   AMD EPYC family 25 model 1: memcpy 30-48 us, backward 2.5 us (AVX2) / 2.8 us (SSE2).
 *   AMD EPYC family 26 model 2: memcpy 0.75 us, backward 1.02 us; 1 MiB memcpy 20.2 us,
 *   `rep movsb` 17.5 us; 16 MiB 759 against 496 us. */
#include "copy.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

/* ---- Kernels ---- */
#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2"))) static void backward_avx2(char *d, const char *s, size_t n) {
    size_t i = n;
    while (i >= 128) {
        i -= 128;
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 64));
        __m256i e = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 96));
        _mm256_storeu_si256((__m256i *)(void *)(d + i), a);
        _mm256_storeu_si256((__m256i *)(void *)(d + i + 32), b);
        _mm256_storeu_si256((__m256i *)(void *)(d + i + 64), c);
        _mm256_storeu_si256((__m256i *)(void *)(d + i + 96), e);
    }
    if (i) memcpy(d, s, i);
}

static void backward_sse2(char *d, const char *s, size_t n) {
    size_t i = n;
    while (i >= 64) {
        i -= 64;
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));
        _mm_storeu_si128((__m128i *)(void *)(d + i), a);
        _mm_storeu_si128((__m128i *)(void *)(d + i + 16), b);
        _mm_storeu_si128((__m128i *)(void *)(d + i + 32), c);
        _mm_storeu_si128((__m128i *)(void *)(d + i + 48), e);
    }
    if (i) memcpy(d, s, i);
}

void shoal__copy_backward(void *dst, const void *src, size_t n) {
    static int have_avx2 = -1; /* every thread that finds -1 computes the same value */
    int avx2 = __atomic_load_n(&have_avx2, __ATOMIC_RELAXED);
    if (__builtin_expect(avx2 < 0, 0)) {
        __builtin_cpu_init();
        avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&have_avx2, avx2, __ATOMIC_RELAXED);
    }
    if (avx2)
        backward_avx2(dst, src, n);
    else
        backward_sse2(dst, src, n);
}

void shoal__copy_backward_baseline(void *dst, const void *src, size_t n) {
    backward_sse2(dst, src, n);
}

void shoal__copy_movsb(void *dst, const void *src, size_t n) {
    __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

#else /* elsewhere none of these problems has been seen: the library's copy */

void shoal__copy_backward(void *dst, const void *src, size_t n) {
    memcpy(dst, src, n);
}
void shoal__copy_backward_baseline(void *dst, const void *src, size_t n) {
    memcpy(dst, src, n);
}
void shoal__copy_movsb(void *dst, const void *src, size_t n) {
    memcpy(dst, src, n);
}

#endif

static void run_kernel(shoal_copy_kernel_t k, void *dst, const void *src, size_t n) {
    if (k == SHOAL_COPY_BACKWARD)
        shoal__copy_backward(dst, src, n);
    else if (k == SHOAL_COPY_MOVSB)
        shoal__copy_movsb(dst, src, n);
    else
        memcpy(dst, src, n);
}

/* ---- The choice ---- */
/* What each class is measured with: a size, a distance modulo 4 KiB, and the kernels that may win
 * there (memcpy always competes; the others only where a CPU of ours made them worth it). */
typedef struct {
    size_t size, distance;
    int candidates; /* bit k: kernel k competes */
} class_spec_t;

#define BIT(k) (1 << (k))
static const class_spec_t specs[SHOAL_COPY_NCLASSES] = {
    [SHOAL_COPY_ALIAS_SMALL] = {4096, 16, BIT(SHOAL_COPY_MEMCPY) | BIT(SHOAL_COPY_BACKWARD)},
    [SHOAL_COPY_ALIAS_MID] = {65536, 16, BIT(SHOAL_COPY_MEMCPY) | BIT(SHOAL_COPY_BACKWARD)},
    [SHOAL_COPY_ALIAS_LARGE] = {1 << 20, 16,
                                BIT(SHOAL_COPY_MEMCPY) | BIT(SHOAL_COPY_MOVSB) |
                                    BIT(SHOAL_COPY_BACKWARD)},
    [SHOAL_COPY_LARGE] = {1 << 20, 0, BIT(SHOAL_COPY_MEMCPY) | BIT(SHOAL_COPY_MOVSB)},
};

/* A kernel other than memcpy must be this much faster to be chosen (noise must not flip it). */
#define WIN_MARGIN 0.90
/* Trials per kernel; each is the best of them (a preempted trial only loses). */
#define TRIALS 5

static int chosen[SHOAL_COPY_NCLASSES]; /* shoal_copy_kernel_t (atomic; memcpy until chosen) */
static int state[SHOAL_COPY_NCLASSES];  /* 0: not chosen, 1: being measured, 2: chosen (atomic) */
static double measured[SHOAL_COPY_NCLASSES][SHOAL_COPY_NKERNELS]; /* written before state 2 */
static int forced_kernel = -2; /* -2: not known yet, -1: measure, else the kernel (atomic) */

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Times each candidate kernel of a class in the scratch areas (src page-aligned, dst at the
 * class's distance), alternating kernels within each trial; fills measured[cls] and returns the
 * fastest, memcpy unless another beats it by the margin. */
static shoal_copy_kernel_t measure_class(shoal_copy_class_t cls, char *src, char *dst_area) {
    const class_spec_t *c = &specs[cls];
    char *dst = dst_area + c->distance;
    int reps = (int)((256 << 10) / c->size); /* a trial moves about 256 KiB, at least one copy */
    if (reps < 1) reps = 1;
    double best[SHOAL_COPY_NKERNELS];
    for (int k = 0; k < SHOAL_COPY_NKERNELS; k++) {
        best[k] = 0;
        if (c->candidates & BIT(k))
            run_kernel((shoal_copy_kernel_t)k, dst, src, c->size); /* warm */
    }
    for (int t = 0; t < TRIALS; t++)
        for (int k = 0; k < SHOAL_COPY_NKERNELS; k++) {
            if (!(c->candidates & BIT(k))) continue;
            double t0 = now_ns();
            for (int r = 0; r < reps; r++) {
                run_kernel((shoal_copy_kernel_t)k, dst, src, c->size);
                __asm__ volatile("" ::: "memory");
            }
            double per = (now_ns() - t0) / reps;
            if (best[k] == 0 || per < best[k]) best[k] = per;
        }
    shoal_copy_kernel_t win = SHOAL_COPY_MEMCPY;
    for (int k = 0; k < SHOAL_COPY_NKERNELS; k++) {
        measured[cls][k] = best[k];
        if (k != SHOAL_COPY_MEMCPY && best[k] > 0 &&
            best[k] < WIN_MARGIN * best[SHOAL_COPY_MEMCPY] &&
            (win == SHOAL_COPY_MEMCPY || best[k] < best[win]))
            win = (shoal_copy_kernel_t)k;
    }
    return win;
}

/* Chooses one class's kernel: the forced one, or measured in two scratch areas of the class's
 * size + 4 KiB (page-aligned, faulted in first so no trial pays a page fault). Done on the first
 * copy of the class, not at start: a process that never copies in a class pays nothing (all four
 * classes together take 1.5-4 ms, most of it faulting the 1 MiB areas under KVM). If the memory
 * cannot be had the class keeps memcpy. Threads that copy meanwhile use memcpy. */
static void choose_class(shoal_copy_class_t cls) {
    int forced = __atomic_load_n(&forced_kernel, __ATOMIC_ACQUIRE);
    if (forced == -2) { /* no shoal_init (ZCom, the plain-MPI broadcast): read it here */
        forced = shoal__copy_parse_kernel(getenv("SHOAL_COPY_KERNEL"));
        if (forced < -1) forced = -1; /* shoal_init refuses it; here: measure, as "auto" */
        __atomic_store_n(&forced_kernel, forced, __ATOMIC_RELEASE);
    }
    int expected = 0;
    if (!__atomic_compare_exchange_n(&state[cls], &expected, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return; /* chosen already, or another thread is measuring */
    shoal_copy_kernel_t k = SHOAL_COPY_MEMCPY;
    if (forced >= 0) {
        k = (shoal_copy_kernel_t)forced;
    } else {
        size_t area = specs[cls].size + 4096;
        char *src = mmap(NULL, 2 * area, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (src != MAP_FAILED) {
            k = measure_class(cls, src, src + area);
            munmap(src, 2 * area);
        }
    }
    __atomic_store_n(&chosen[cls], (int)k, __ATOMIC_RELAXED);
    __atomic_store_n(&state[cls], 2, __ATOMIC_RELEASE);
}

int shoal__copy_parse_kernel(const char *text) {
    if (!text || !*text || !strcmp(text, "auto")) return -1;
    for (int k = 0; k < SHOAL_COPY_NKERNELS; k++)
        if (!strcmp(text, shoal__copy_kernel_name((shoal_copy_kernel_t)k))) return k;
    return -2;
}

void shoal__copy_prepare(int forced) {
    if (forced < -1 || forced >= SHOAL_COPY_NKERNELS) forced = -1;
    __atomic_store_n(&forced_kernel, forced, __ATOMIC_RELEASE);
    if (forced < 0) return; /* each class is measured on its first copy */
    for (int c = 0; c < SHOAL_COPY_NCLASSES; c++) {
        for (int k = 0; k < SHOAL_COPY_NKERNELS; k++) measured[c][k] = 0;
        __atomic_store_n(&chosen[c], forced, __ATOMIC_RELAXED);
        __atomic_store_n(&state[c], 2, __ATOMIC_RELEASE);
    }
}

static shoal_copy_class_t class_of(size_t n, int aliased) {
    if (!aliased) return SHOAL_COPY_LARGE;
    return n < 16384                  ? SHOAL_COPY_ALIAS_SMALL
           : n < SHOAL_COPY_LARGE_MIN ? SHOAL_COPY_ALIAS_MID
                                      : SHOAL_COPY_ALIAS_LARGE;
}

void shoal__copy_bulk(void *dst, const void *src, size_t n) {
    shoal_copy_class_t cls = class_of(n, shoal__copy_aliased(dst, src));
    if (__builtin_expect(__atomic_load_n(&state[cls], __ATOMIC_ACQUIRE) != 2, 0)) choose_class(cls);
    int k = __atomic_load_n(&chosen[cls], __ATOMIC_RELAXED);
    run_kernel((shoal_copy_kernel_t)k, dst, src, n);
}

shoal_copy_kernel_t shoal__copy_kernel_of(shoal_copy_class_t cls, double ns[SHOAL_COPY_NKERNELS]) {
    if (__atomic_load_n(&state[cls], __ATOMIC_ACQUIRE) != 2) choose_class(cls);
    while (__atomic_load_n(&state[cls], __ATOMIC_ACQUIRE) != 2) /* another thread measures */
        sched_yield();
    if (ns)
        for (int k = 0; k < SHOAL_COPY_NKERNELS; k++) ns[k] = measured[cls][k];
    return (shoal_copy_kernel_t)__atomic_load_n(&chosen[cls], __ATOMIC_RELAXED);
}

const char *shoal__copy_kernel_name(shoal_copy_kernel_t k) {
    static const char *const names[SHOAL_COPY_NKERNELS] = {"memcpy", "movsb", "backward"};
    return k >= 0 && k < SHOAL_COPY_NKERNELS ? names[k] : "?";
}

void shoal__copy_describe(char *buf, size_t len) {
    static const char *const class_names[SHOAL_COPY_NCLASSES] = {
        "aliased 2-16 KiB", "aliased 16 KiB-1 MiB", "aliased >= 1 MiB", ">= 1 MiB"};
    size_t used = 0;
    buf[0] = '\0';
    for (int c = 0; c < SHOAL_COPY_NCLASSES && used < len; c++) {
        double ns[SHOAL_COPY_NKERNELS];
        shoal_copy_kernel_t k = shoal__copy_kernel_of((shoal_copy_class_t)c, ns);
        int w = snprintf(buf + used, len - used, "%s%s: %s", c ? "; " : "", class_names[c],
                         shoal__copy_kernel_name(k));
        if (w < 0) break;
        used += (size_t)w;
        for (int j = 0; j < SHOAL_COPY_NKERNELS && used < len; j++) {
            if (ns[j] <= 0) continue;
            w = snprintf(buf + used, len - used, " %s=%.0fns",
                         shoal__copy_kernel_name((shoal_copy_kernel_t)j), ns[j]);
            if (w < 0) break;
            used += (size_t)w;
        }
    }
}
