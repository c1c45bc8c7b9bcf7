/* Example: pi by the midpoint rule on 4 / (1 + x^2) over [0, 1]. PE p sums the intervals
 * p, p + n, p + 2n, ...; shmem_double_sum_reduce adds the partial sums. Every PE computes the
 * same sum serially (the same terms in the same per-PE order, then added in PE order) and checks
 * the reduction against it, and against M_PI. Exit status 0 when right. */
#include <math.h>
#include <stdio.h>

#include <shmem.h>

#define INTERVALS 200000

static double partial(int pe, int n) {
    const double h = 1.0 / INTERVALS;
    double s = 0;
    for (long i = pe; i < INTERVALS; i += n) {
        double x = h * ((double)i + 0.5);
        s += 4.0 / (1.0 + x * x);
    }
    return s * h;
}

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    double *mine = shmem_malloc(sizeof(double)), *pi = shmem_malloc(sizeof(double));
    *mine = partial(me, n);
    int rc = shmem_double_sum_reduce(SHMEM_TEAM_WORLD, pi, mine, 1);

    double serial = 0;
    for (int pe = 0; pe < n; pe++) serial += partial(pe, n);
    int failed = 0;
    if (rc != 0 || fabs(*pi - serial) > 1e-12 || fabs(*pi - M_PI) > 1e-9) {
        fprintf(stderr, "pi: PE %d: reduction %.15f (rc %d), serial %.15f, M_PI %.15f\n", me, *pi,
                rc, serial, M_PI);
        failed = 1;
    }
    /* Every PE's verdict on PE 0. */
    static int bad;
    if (failed) shmem_int_atomic_inc(&bad, 0);
    shmem_barrier_all();
    if (me == 0) printf("pi: %s (%d PEs): %.15f\n", bad ? "FAILED" : "OK", n, *pi);
    int status = me == 0 ? bad != 0 : failed;
    shmem_free(pi);
    shmem_free(mine);
    shmem_finalize();
    return status;
}
