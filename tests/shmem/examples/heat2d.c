/* Example: 2-D heat diffusion (Jacobi) on an NX x NY interior, hot top edge, the rows split
 * among the PEs. Each iteration a PE sends its first row up and its last row down with
 * shmem_double_put_signal (signal = iteration + 1, SET) into double-buffered halo rows, waits for
 * its neighbours' rows with shmem_signal_wait_until, then updates its rows. Every PE also runs
 * the same grid serially, with the same row update, and its rows must match that run exactly.
 * Exit status 0 when right. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#define NX    32 /* interior columns (plus one boundary column each side) */
#define NY    24 /* interior rows (plus the top and bottom boundary rows) */
#define ITERS 60
#define W     (NX + 2)

static void step_row(const double *up, const double *mid, const double *down, double *out) {
    out[0] = mid[0];
    out[W - 1] = mid[W - 1];
    for (int j = 1; j < W - 1; j++) out[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
}

static void boundary_rows(double *top, double *bottom) {
    for (int j = 0; j < W; j++) top[j] = 100.0, bottom[j] = 0.0;
}

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    /* My rows: [first, first + rows) of the interior rows 1..NY. */
    int first = 1;
    for (int p = 0; p < me; p++) first += NY / n + (p < NY % n);
    const int rows = NY / n + (me < NY % n);

    double *from_up = shmem_calloc(2 * W, sizeof(double));   /* up neighbour's last row */
    double *from_down = shmem_calloc(2 * W, sizeof(double)); /* down neighbour's first row */
    uint64_t *sig = shmem_calloc(4, sizeof(uint64_t)); /* [0..1]: from up, [2..3]: from down */
    double *u = calloc((size_t)(rows + 2) * W, sizeof(double));
    double *v = calloc((size_t)(rows + 2) * W, sizeof(double));
    if (!from_up || !from_down || !sig || !u || !v) {
        fprintf(stderr, "heat2d: allocation failed\n");
        shmem_global_exit(1);
    }
    /* The top boundary is PE 0's upper ghost row; the others are zero (calloc). */
    if (me == 0)
        for (int j = 0; j < W; j++) u[j] = v[j] = 100.0;

    for (int t = 0; t < ITERS; t++) {
        const int b = t % 2;
        if (me > 0) /* my first row to the up neighbour's from_down[b] */
            shmem_double_put_signal(&from_down[b * W], &u[1 * W], W, &sig[2 + b], (uint64_t)t + 1,
                                    SHMEM_SIGNAL_SET, me - 1);
        if (me < n - 1) /* my last row to the down neighbour's from_up[b] */
            shmem_double_put_signal(&from_up[b * W], &u[rows * W], W, &sig[b], (uint64_t)t + 1,
                                    SHMEM_SIGNAL_SET, me + 1);
        if (me > 0) {
            shmem_signal_wait_until(&sig[b], SHMEM_CMP_EQ, (uint64_t)t + 1);
            memcpy(&u[0], &from_up[b * W], W * sizeof(double));
        }
        if (me < n - 1) {
            shmem_signal_wait_until(&sig[2 + b], SHMEM_CMP_EQ, (uint64_t)t + 1);
            memcpy(&u[(rows + 1) * W], &from_down[b * W], W * sizeof(double));
        }
        for (int i = 1; i <= rows; i++)
            step_row(&u[(i - 1) * W], &u[i * W], &u[(i + 1) * W], &v[i * W]);
        memcpy(&v[0], &u[0], W * sizeof(double));
        memcpy(&v[(rows + 1) * W], &u[(rows + 1) * W], W * sizeof(double));
        double *tmp = u;
        u = v, v = tmp;
    }

    /* The serial run of the whole grid. */
    double *g = calloc((size_t)(NY + 2) * W, sizeof(double)),
           *h = calloc((size_t)(NY + 2) * W, sizeof(double));
    boundary_rows(g, g + (NY + 1) * W);
    boundary_rows(h, h + (NY + 1) * W);
    for (int t = 0; t < ITERS; t++) {
        for (int i = 1; i <= NY; i++)
            step_row(&g[(i - 1) * W], &g[i * W], &g[(i + 1) * W], &h[i * W]);
        double *tmp = g;
        g = h, h = tmp;
    }
    int bad = 0;
    for (int i = 1; i <= rows; i++)
        for (int j = 0; j < W; j++)
            if (u[i * W + j] != g[(first + i - 1) * W + j] && bad++ < 3)
                fprintf(stderr, "heat2d: PE %d: cell (%d, %d) is %.17g, serial %.17g\n", me,
                        first + i - 1, j, u[i * W + j], g[(first + i - 1) * W + j]);
    if (g[1 * W + W / 2] <= 0.0) {
        fprintf(stderr, "heat2d: no heat reached row 1 (serial %.3g)\n", g[1 * W + W / 2]);
        bad++;
    }
    static int failed_pes;
    if (bad) shmem_int_atomic_inc(&failed_pes, 0);
    shmem_barrier_all();
    if (me == 0)
        printf("heat2d: %s (%d PEs, %dx%d, %d iterations, centre %.6f)\n",
               failed_pes ? "FAILED" : "OK", n, NX, NY, ITERS, g[(NY / 2) * W + W / 2]);
    int status = me == 0 ? failed_pes != 0 : bad != 0;
    free(g), free(h), free(u), free(v);
    shmem_free(sig);
    shmem_free(from_down);
    shmem_free(from_up);
    shmem_finalize();
    return status;
}
