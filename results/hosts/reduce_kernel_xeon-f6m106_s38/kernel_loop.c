/* The reduction kernel's double sum alone, timed in cache and beyond (session 38). Build it the
 * ways docs/collectives.md compares:
 *   gcc -O2 kernel_loop.c                   scalar (GCC 12's -O2 vectorises nothing here)
 *   gcc -O3 kernel_loop.c                   SSE2
 *   gcc -O3 -DCLONES kernel_loop.c          an AVX2 copy chosen at load, as libshoal has
 *   gcc -O2 -ftree-loop-vectorize -fvect-cost-model=dynamic -DCLONES kernel_loop.c   libshoal's
 * Prints the best of 30 timings per size, in us per byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

#ifdef CLONES
__attribute__((target_clones("avx2", "default")))
#endif
__attribute__((noinline)) void
sum(void *inout, const void *in, size_t n) {
    double *x = inout;
    const double *y = in;
    for (size_t k = 0; k < n; k++) x[k] = x[k] + y[k];
}

int main(void) {
    size_t sizes[] = {4096, 16384, 65536, 262144, 1048576, 4194304};
    for (int s = 0; s < 6; s++) {
        size_t n = sizes[s];
        char *b = aligned_alloc(4096, 2 * n); /* in = inout + n, as the library's scratch */
        memset(b, 0, 2 * n);
        double best = 1e30;
        for (int r = 0; r < 30; r++) {
            int reps = (int)(4e6 / (double)n) + 1;
            double a = now_ns();
            for (int i = 0; i < reps; i++) sum(b, b + n, n / 8);
            double t = (now_ns() - a) / reps;
            if (t < best) best = t;
        }
        printf("%8zu B: %.3e us/B (%.2f us)\n", n, best / 1e3 / (double)n, best / 1e3);
        free(b);
    }
    return 0;
}
