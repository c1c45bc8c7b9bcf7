/* An OpenSHMEM 1.5 program for the tool tests (oshcc, oshrun, the installed package): every PE
 * puts an int and a double array into its right neighbour's copies with the C11 generic shmem_put
 * (without and with a context), then a long with shmem_p and reads it back with shmem_g; a PE that
 * finds a wrong value adds 1 to PE 0's error count with shmem_atomic_add. PE 0 prints
 * "shmem_hello: OK (N PEs)" when no PE found one. Static arrays (the data segment) and
 * shmem_malloc (the heap) are both symmetric. Needs -std=c11 or later (the generic routines). */
#include <stdio.h>

#include <shmem.h>

#define N 64

static int ints[N];
static double doubles[N];
static int errors;

static void check(int ok, const char *what, int i) {
    if (!ok) {
        fprintf(stderr, "shmem_hello: PE %d: wrong %s at %d\n", shmem_my_pe(), what, i);
        shmem_atomic_add(&errors, 1, 0);
    }
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    int isrc[N];
    double dsrc[N];
    for (int i = 0; i < N; i++) {
        isrc[i] = me * 1000 + i;
        dsrc[i] = me + i / 8.0;
    }
    long *cell = shmem_malloc(sizeof *cell);
    if (!cell) {
        fprintf(stderr, "shmem_hello: PE %d: shmem_malloc failed\n", me);
        shmem_global_exit(1);
    }
    *cell = -1;
    shmem_barrier_all();

    shmem_put(ints, isrc, N, right);
    shmem_put(SHMEM_CTX_DEFAULT, doubles, dsrc, N, right);
    shmem_p(cell, (long)me, right);
    shmem_barrier_all();

    for (int i = 0; i < N; i++) {
        check(ints[i] == left * 1000 + i, "int", i);
        check(doubles[i] == left + i / 8.0, "double", i);
    }
    check(*cell == left, "shmem_p value", 0);
    check(shmem_g(cell, right) == me, "shmem_g value", 0);
    shmem_barrier_all();

    int failed = errors != 0;
    if (me == 0) {
        if (failed)
            printf("shmem_hello: FAILED (%d wrong values)\n", errors);
        else
            printf("shmem_hello: OK (%d PEs)\n", npes);
    }
    shmem_free(cell);
    shmem_finalize();
    return me == 0 && failed;
}
