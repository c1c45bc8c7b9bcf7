/* PRK Sync_p2p (the pipeline kernel of the Parallel Research Kernels; ZCom thesis section 5.2.2):
 * MPI two-sided against ZCom, on whatever number of processes (>= 2) the program is started with.
 *
 * The kernel. An m x n grid a[i][j]; a[i][0] = i and a[0][j] = j are fixed boundary values, and
 * every sweep computes, in dependency order,
 *     a[i][j] = a[i-1][j] + a[i][j-1] - a[i-1][j-1]      (i = 1..m-1, j = 1..n-1).
 * The first dimension is split in blocks over the processes (process p owns columns
 * start_p..end_p, plus one ghost column on its left). For each row j a process needs the value its
 * left neighbour computed for row j in its last column, computes its part of row j, and hands its
 * own last value to the right: a pipeline with one synchronisation per row and neighbour pair.
 * After each sweep the last process feeds -a[m-1][n-1] back to process 0 as the new a[0][0], so the
 * sweeps depend on each other. Each sweep adds m+n-2 to the corner: after the untimed warm-up
 * sweep and `iterations` timed ones, a[m-1][n-1] = (iterations+1)*(m+n-2), checked with a
 * relative tolerance of 1e-8, as the PRK does. Rate = 1e-6 * 2*(m-1)*(n-1) / (average time of
 * a timed sweep, the slowest process's), in MFlops/s, as the PRK prints it.
 *
 * Variants (same grid layout, same arithmetic, only the hand-off differs):
 *   MPI   the PRK MPI1 way: MPI_Recv of the left neighbour's value into the ghost cell, compute
 *         the row, MPI_Send of the last value to the right; the corner goes back with
 *         MPI_Send/MPI_Recv.
 *   ZCom  each neighbour pair has a ZCom channel. The left process owns a page-aligned buffer of
 *         n doubles, one slot per row, exposed to its right neighbour: after computing row j it
 *         stores its last value in slot j and calls ZCom_have_written_c. The right neighbour waits
 *         for ZCom_can_read_c, reads slot j in place through attached_addrs (the left process's
 *         pages mapped into its address space: nothing is copied by a library) and calls
 *         ZCom_have_read_c. One slot per row means the writer, like MPI_Send of one double (an
 *         eager message), never waits for the reader within a sweep; before reusing the slots in
 *         the next sweep it checks ZCom_can_write_c (everything read), which the corner feedback
 *         already guarantees. The corner goes back through a channel between the last process and
 *         process 0 (for 2 processes, the other direction of the same channel).
 * --grp G  (PRK's group factor; the PRK calls it cheating and flips the sign of the time) hands
 *         over G rows at once: one message of G doubles, or G slots and one have_written. The
 *         default is G = 1, as in the PRK: one element per hand-off.
 *
 * Waiting in the ZCom variant spins briefly, then yields the core (sched_yield) on every poll,
 * poking MPI's progress now and then: with more processes than cores a waiting process must let
 * the one it waits for run. Runs with more processes on the node than online cores are marked
 * OVERSUBSCRIBED: the figures then show the scheduler more than the hand-off.
 *
 * Grids: 1000x100, 4000x1000, 10000x10000 and 100x20000 (few columns per process: the hand-off
 * dominates); --quick: 1000x100 and 2000x500.
 * Options: --quick (small grids, CTest smoke run), --grid MxN (repeatable; replaces the default
 * grids), --iterations N, --grp G, --reps R (best of R runs, alternating the variants),
 * --csv FILE. Exit status 1 when any verification fails or ZCom_init_c fails. */
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "shoal/zcom.h"

#define MAX_GRIDS 16
#define EPSILON   1e-8
#define TAG_ROW   11
#define TAG_CORN  12

static int me, np;
/* ---- the grid slice of this process ---- */

typedef struct {
    long m, n;   /* global grid */
    long start;  /* my first global column */
    long seg;    /* my number of columns */
    long w;      /* row length in memory: seg + 1 (ghost column first) */
    long first;  /* first local column I compute: 1 on process 0 (column 0 is boundary), else 0 */
    double *a;   /* n rows of w doubles; row j at a + j*w, local column i at [i + 1] */
    double *tmp; /* --grp: G values (MPI message buffer) */
    int grp;
} slice_t;

static void slice_init(slice_t *s, long m, long n, int grp) {
    long base = m / np, extra = m % np;
    s->m = m;
    s->n = n;
    s->seg = base + (me < extra);
    s->start = me * base + (me < extra ? me : extra);
    s->w = s->seg + 1;
    s->first = me == 0 ? 1 : 0;
    s->grp = grp;
    s->a = malloc(sizeof(double) * (size_t)(s->w * n));
    s->tmp = malloc(sizeof(double) * (size_t)grp);
    if (!s->a || !s->tmp) {
        fprintf(stderr, "bench_zcom_p2p: rank %d: out of memory for %ld x %ld\n", me, s->w, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Zero everything, then the boundary: row 0 holds the global column index (the ghost column too:
 * my left neighbour's last column), process 0's column 0 holds the row index. */
static void slice_reset(slice_t *s) {
    memset(s->a, 0, sizeof(double) * (size_t)(s->w * s->n));
    for (long k = 0; k < s->w; k++) s->a[k] = (double)(s->start - 1 + k);
    if (me == 0)
        for (long j = 0; j < s->n; j++) s->a[j * s->w + 1] = (double)j;
}

static void slice_free(slice_t *s) {
    free(s->a);
    free(s->tmp);
}

/* Rows j0..j1-1 of my block; their ghost cells are filled. */
static inline void compute_rows(slice_t *s, long j0, long j1) {
    for (long j = j0; j < j1; j++) {
        double *cur = s->a + j * s->w, *prev = cur - s->w;
        for (long i = s->first; i < s->seg; i++) cur[i + 1] = cur[i] + prev[i + 1] - prev[i];
    }
}

static inline double *at(slice_t *s, long j, long i) {
    return s->a + j * s->w + i + 1;
}

/* ---- MPI variant ---- */

static void sweep_mpi(slice_t *s) {
    long n = s->n, G = s->grp;
    for (long j = 1; j < n; j += G) {
        long g = n - j < G ? n - j : G;
        if (me > 0) {
            if (g == 1) {
                MPI_Recv(at(s, j, -1), 1, MPI_DOUBLE, me - 1, TAG_ROW, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(s->tmp, (int)g, MPI_DOUBLE, me - 1, TAG_ROW, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                for (long k = 0; k < g; k++) *at(s, j + k, -1) = s->tmp[k];
            }
        }
        compute_rows(s, j, j + g);
        if (me < np - 1) {
            if (g == 1) {
                MPI_Send(at(s, j, s->seg - 1), 1, MPI_DOUBLE, me + 1, TAG_ROW, MPI_COMM_WORLD);
            } else {
                for (long k = 0; k < g; k++) s->tmp[k] = *at(s, j + k, s->seg - 1);
                MPI_Send(s->tmp, (int)g, MPI_DOUBLE, me + 1, TAG_ROW, MPI_COMM_WORLD);
            }
        }
    }
    /* the corner feeds back: a[0][0] = -a[m-1][n-1] */
    if (me == np - 1) {
        double c = -*at(s, n - 1, s->seg - 1);
        MPI_Send(&c, 1, MPI_DOUBLE, 0, TAG_CORN, MPI_COMM_WORLD);
    }
    if (me == 0)
        MPI_Recv(at(s, 0, 0), 1, MPI_DOUBLE, np - 1, TAG_CORN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* ---- ZCom variant ---- */

typedef struct {
    int ids[3], nt; /* my channels (for cleanup) */
    void *bufs[3];  /* my exposed buffers */
    int ch_left;    /* channel with me-1: I read its column slots (-1: none) */
    const double *in_left;
    int ch_right; /* channel with me+1: I write my column slots */
    double *out_right;
    int ch_corner_out; /* last process: channel on which it hands the corner to process 0 */
    double *corner_out;
    int ch_corner_in; /* process 0: channel on which it gets the corner */
    const double *corner_in;
} zc_t;

static int zc_open(zc_t *z, long n) {
    long page = sysconf(_SC_PAGESIZE);
    size_t colbytes = ((sizeof(double) * (size_t)n + (size_t)page - 1) / (size_t)page) * page;
    size_t sizes[3];
    int targets[3], idx_l = -1, idx_r = -1, idx_c = -1, err = 0;
    void *att[3];
    memset(z, 0, sizeof *z);
    z->ch_left = z->ch_right = z->ch_corner_out = z->ch_corner_in = -1;
    z->nt = 0;
    if (me > 0) idx_l = z->nt, targets[z->nt] = me - 1, sizes[z->nt++] = colbytes;
    if (me < np - 1) idx_r = z->nt, targets[z->nt] = me + 1, sizes[z->nt++] = colbytes;
    if (np > 2 && me == 0) idx_c = z->nt, targets[z->nt] = np - 1, sizes[z->nt++] = (size_t)page;
    if (np > 2 && me == np - 1) idx_c = z->nt, targets[z->nt] = 0, sizes[z->nt++] = (size_t)page;
    for (int i = 0; i < z->nt; i++) {
        /* page-aligned, whole pages: nothing else of this process is exposed */
        if (posix_memalign(&z->bufs[i], (size_t)page, sizes[i])) {
            fprintf(stderr, "bench_zcom_p2p: rank %d: out of memory\n", me);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(z->bufs[i], 0, sizes[i]);
    }
    ZCom_init_c(z->bufs, sizes, MPI_COMM_WORLD, targets, z->nt, att, z->ids, &err);
    if (err) {
        if (me == 0) fprintf(stderr, "bench_zcom_p2p: ZCom_init_c: %s\n", ZCom_strerror(err));
        for (int i = 0; i < z->nt; i++) free(z->bufs[i]);
        return -1;
    }
    if (idx_l >= 0) z->ch_left = z->ids[idx_l], z->in_left = att[idx_l];
    if (idx_r >= 0) z->ch_right = z->ids[idx_r], z->out_right = z->bufs[idx_r];
    if (np == 2) { /* the pipeline's channel carries the corner back too */
        if (me == 1) z->ch_corner_out = z->ch_left, z->corner_out = z->bufs[idx_l];
        if (me == 0) z->ch_corner_in = z->ch_right, z->corner_in = att[idx_r];
    } else {
        if (me == np - 1) z->ch_corner_out = z->ids[idx_c], z->corner_out = z->bufs[idx_c];
        if (me == 0) z->ch_corner_in = z->ids[idx_c], z->corner_in = att[idx_c];
    }
    return 0;
}

static int zc_close(zc_t *z) {
    int err = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    ZCom_cleanup_c(z->ids, z->nt, MPI_COMM_WORLD, &err);
    for (int i = 0; i < z->nt; i++) free(z->bufs[i]);
    return err ? -1 : 0;
}

static void sweep_zcom(slice_t *s, zc_t *z) {
    long n = s->n, G = s->grp;
    unsigned spins;
    int err;
    /* the slots are reused: the right neighbour has read all of the previous sweep (always true
     * here, since the corner feedback orders the sweeps; one load to check it) */
    if (z->ch_right >= 0) {
        spins = 0;
        while (!ZCom_can_write_c(z->ch_right, &err)) bench_relax(&spins);
    }
    for (long j = 1; j < n; j += G) {
        long g = n - j < G ? n - j : G;
        if (z->ch_left >= 0) {
            spins = 0;
            while (!ZCom_can_read_c(z->ch_left, &err)) bench_relax(&spins);
            for (long k = 0; k < g; k++) *at(s, j + k, -1) = z->in_left[j + k]; /* in place */
            ZCom_have_read_c(z->ch_left, &err);
        }
        compute_rows(s, j, j + g);
        if (z->ch_right >= 0) {
            for (long k = 0; k < g; k++) z->out_right[j + k] = *at(s, j + k, s->seg - 1);
            ZCom_have_written_c(z->ch_right, &err);
        }
    }
    if (z->ch_corner_out >= 0) {
        spins = 0;
        while (!ZCom_can_write_c(z->ch_corner_out, &err)) bench_relax(&spins);
        z->corner_out[0] = -*at(s, n - 1, s->seg - 1);
        ZCom_have_written_c(z->ch_corner_out, &err);
    }
    if (z->ch_corner_in >= 0) {
        spins = 0;
        while (!ZCom_can_read_c(z->ch_corner_in, &err)) bench_relax(&spins);
        *at(s, 0, 0) = z->corner_in[0];
        ZCom_have_read_c(z->ch_corner_in, &err);
    }
}

/* Grid points of my block that differ from the closed form after K sweeps. A sweep with
 * a[0][0] = c gives a[i][j] = i + j - c (i, j >= 1), and the feedback makes c = -(K-1)(m+n-2)
 * before the last sweep and -K(m+n-2) after it. The PRK checks the corner only, which a wrong
 * hand-off in any other row leaves intact (the error stays in its row); this checks them all. */
static long count_wrong(slice_t *s, int K) {
    double c = (double)(K - 1) * (double)(s->m + s->n - 2);
    long wrong = 0;
    for (long j = 1; j < s->n; j++)
        for (long i = s->first; i < s->seg; i++)
            wrong += *at(s, j, i) != (double)(s->start + i + j) + c;
    if (me == 0) wrong += *at(s, 0, 0) != -(double)K * (double)(s->m + s->n - 2);
    return wrong;
}

/* One run: warm-up sweep + `iters` timed sweeps. Returns the average time of a timed sweep (the
 * slowest process's total / iters) on every process; *ok = corner verified as the PRK does,
 * *corner = the corner value, *wrong = grid points that differ from the closed form (all on
 * every process). */
static double run(slice_t *s, zc_t *z, int iters, int *ok, double *corner, long *wrong) {
    double t0 = 0;
    slice_reset(s);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int it = 0; it <= iters; it++) {
        if (it == 1) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = bench_now();
        }
        if (z)
            sweep_zcom(s, z);
        else
            sweep_mpi(s);
    }
    double t = bench_now() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double v[2] = {0, 0};
    if (me == np - 1) {
        double expect = (double)(iters + 1) * (double)(s->m + s->n - 2);
        v[0] = *at(s, s->n - 1, s->seg - 1);
        v[1] = fabs(v[0] - expect) / expect < EPSILON;
    }
    MPI_Bcast(v, 2, MPI_DOUBLE, np - 1, MPI_COMM_WORLD);
    *corner = v[0];
    *ok = v[1] != 0;
    long w = count_wrong(s, iters + 1);
    MPI_Allreduce(&w, wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return tmax / iters;
}

static int default_iters(long m, long n, int quick) {
    double pts = (double)m * (double)n;
    long it = quick ? (long)(2e7 / pts) : (long)(4e8 / pts);
    long lo = quick ? 5 : 10, hi = quick ? 100 : 1000;
    return (int)(it < lo ? lo : it > hi ? hi : it);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int quick = 0, grp = 1, iters_opt = 0, reps = 0, ngrids = 0, bad_args = 0;
    long gm[MAX_GRIDS], gn[MAX_GRIDS];
    const char *csv = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) {
            quick = 1;
        } else if (!strcmp(a, "--grid") && v && ngrids < MAX_GRIDS &&
                   sscanf(v, "%ldx%ld", &gm[ngrids], &gn[ngrids]) == 2) {
            ngrids++, i++;
        } else if (!strcmp(a, "--iterations") && v) {
            iters_opt = atoi(v), i++;
        } else if (!strcmp(a, "--grp") && v) {
            grp = atoi(v), i++;
        } else if (!strcmp(a, "--reps") && v) {
            reps = atoi(v), i++;
        } else if (!strcmp(a, "--csv") && v) {
            csv = v, i++;
        } else {
            if (me == 0) fprintf(stderr, "bench_zcom_p2p: unknown or bad option %s\n", a);
            bad_args = 1;
        }
    }
    if (!ngrids) {
        /* the last one is synchronisation-bound: few columns per process, many rows */
        static const long full[][2] = {{1000, 100}, {4000, 1000}, {10000, 10000}, {100, 20000}};
        static const long small[][2] = {{1000, 100}, {2000, 500}};
        ngrids = quick ? 2 : 4;
        for (int g = 0; g < ngrids; g++) {
            gm[g] = quick ? small[g][0] : full[g][0];
            gn[g] = quick ? small[g][1] : full[g][1];
        }
    }
    for (int g = 0; g < ngrids; g++)
        if (gm[g] < 2L * np || gn[g] < 2) {
            if (me == 0)
                fprintf(stderr, "bench_zcom_p2p: grid %ldx%ld: need m >= 2 x processes, n >= 2\n",
                        gm[g], gn[g]);
            bad_args = 1;
        }
    if (np < 2 || grp < 1 || iters_opt < 0 || reps < 0 || bad_args) {
        if (me == 0 && np < 2) fprintf(stderr, "bench_zcom_p2p: needs at least 2 processes\n");
        if (me == 0)
            fprintf(stderr, "usage: bench_zcom_p2p [--quick] [--grid MxN]... [--iterations N] "
                            "[--grp G] [--reps R] [--csv FILE]\n");
        MPI_Finalize();
        return 2;
    }
    if (!reps) reps = quick ? 1 : 3;

    /* processes on this node against online cores */
    int on_node;
    long cores;
    int over = bench_oversubscribed(&on_node, &cores);
    double t_start = bench_now(), load0 = bench_loadavg();

    double tm[MAX_GRIDS], tz[MAX_GRIDS], cm[MAX_GRIDS], cz[MAX_GRIDS];
    int okm[MAX_GRIDS], okz[MAX_GRIDS], its[MAX_GRIDS], zfail = 0;
    long wm[MAX_GRIDS], wz[MAX_GRIDS];
    for (int g = 0; g < ngrids; g++) {
        slice_t s;
        zc_t z;
        long G = grp >= gn[g] ? gn[g] - 1 : grp;
        slice_init(&s, gm[g], gn[g], (int)G);
        its[g] = iters_opt ? iters_opt : default_iters(gm[g], gn[g], quick);
        tm[g] = tz[g] = INFINITY;
        okm[g] = okz[g] = 1;
        wm[g] = wz[g] = 0;
        int zok = zc_open(&z, gn[g]) == 0;
        if (!zok) zfail = 1;
        for (int r = 0; r < reps; r++) {
            int ok;
            long w;
            double t = run(&s, NULL, its[g], &ok, &cm[g], &w);
            okm[g] &= ok && !w;
            if (w > wm[g]) wm[g] = w;
            if (t < tm[g]) tm[g] = t;
            if (zok) {
                t = run(&s, &z, its[g], &ok, &cz[g], &w);
                okz[g] &= ok && !w;
                if (w > wz[g]) wz[g] = w;
                if (t < tz[g]) tz[g] = t;
            }
        }
        if (zok && zc_close(&z)) zfail = 1;
        if (!zok) okz[g] = 0, cz[g] = NAN;
        slice_free(&s);
    }

    int failed = zfail;
    for (int g = 0; g < ngrids; g++) failed |= !okm[g] || !okz[g];
    if (me == 0) {
        printf("# PRK Sync_p2p: MPI vs ZCom (%s, %d processes%s)\n\n", bench_mpi_name(), np,
               over ? ", OVERSUBSCRIBED" : "");
        printf(
            "Pipeline on an m x n grid, columns split in blocks over the processes, one hand-off "
            "per row and neighbour pair%s; the corner value fed back from the last process to "
            "process 0 after every sweep. MPI: MPI_Recv/MPI_Send of each value (the PRK MPI1 "
            "code's way). ZCom: the left process stores the value in its exposed buffer "
            "(have_written), the right one reads it in place through attached_addrs "
            "(can_read, have_read). MFlops/s = 2(m-1)(n-1) / average time per sweep (slowest "
            "process), best of %d run%s per variant (interleaved) after one warm-up sweep; "
            "verified as the PRK does: corner = (iterations+1)(m+n-2) within 1e-8 relative, "
            "and beyond the PRK every grid point against its closed form.\n\n",
            grp > 1 ? "" : " (one element per hand-off, as the PRK)", reps, reps > 1 ? "s" : "");
        if (grp > 1)
            printf(
                "Group factor %d: that many rows per hand-off (the PRK calls this cheating).\n\n",
                grp);
        printf("- MPI library: %s\n", bench_mpi_name());
        printf("- %d processes on %ld online cores%s\n", np, cores,
               over ? ": OVERSUBSCRIBED (more processes than cores: the figures are dominated by "
                      "scheduling)"
                    : "");
        printf("- load average at start: %.2f\n\n", load0);
        printf("| Grid (m x n) | Iterations | MPI MFlops/s | MPI time/sweep (ms) | ZCom MFlops/s | "
               "ZCom time/sweep (ms) | ZCom / MPI | Verification |\n"
               "|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (int g = 0; g < ngrids; g++) {
            double flops = 2.0 * (double)(gm[g] - 1) * (double)(gn[g] - 1);
            char ver[256];
            if (okm[g] && okz[g])
                snprintf(ver, sizeof ver, "ok (corner %.0f; every point)", cm[g]);
            else
                snprintf(ver, sizeof ver,
                         "**FAILED**: corner MPI %.17g, ZCom %.17g, expected %.0f; wrong points "
                         "MPI %ld, ZCom %ld",
                         cm[g], cz[g], (double)(its[g] + 1) * (gm[g] + gn[g] - 2), wm[g], wz[g]);
            printf("| %ld x %ld%s | %d | %.1f | %.4f | %.1f | %.4f | %.2fx | %s |\n", gm[g], gn[g],
                   over ? " OVERSUBSCRIBED" : "", its[g], 1e-6 * flops / tm[g], tm[g] * 1e3,
                   1e-6 * flops / tz[g], tz[g] * 1e3, tm[g] / tz[g], ver);
        }
        printf("\n## Summary\n\n");
        for (int g = 0; g < ngrids; g++) {
            double flops = 2.0 * (double)(gm[g] - 1) * (double)(gn[g] - 1);
            printf("- %d processes%s, %ld x %ld: MPI %.1f MFlops/s, ZCom %.1f MFlops/s, ZCom/MPI "
                   "%.2fx, %s\n",
                   np, over ? " (OVERSUBSCRIBED)" : "", gm[g], gn[g], 1e-6 * flops / tm[g],
                   1e-6 * flops / tz[g], tm[g] / tz[g],
                   okm[g] && okz[g] ? "verified" : "VERIFICATION FAILED");
        }
        if (zfail) printf("- ZCom_init_c or ZCom_cleanup_c FAILED\n");
        printf("\nLoad average at the end: %.2f.\n", bench_loadavg());
        printf("\nbench_zcom_p2p: finished in %.1f s%s\n", bench_now() - t_start,
               failed ? " WITH ERRORS" : "");
        if (csv) {
            FILE *f = fopen(csv, "w");
            if (!f) {
                fprintf(stderr, "bench_zcom_p2p: cannot write %s\n", csv);
                failed = 1;
            } else {
                fprintf(f, "mpi,procs,oversubscribed,m,n,iterations,grp,variant,time_per_sweep_s,"
                           "mflops,verified\n");
                for (int g = 0; g < ngrids; g++) {
                    double flops = 2.0 * (double)(gm[g] - 1) * (double)(gn[g] - 1);
                    fprintf(f, "%s,%d,%d,%ld,%ld,%d,%d,mpi,%.9g,%.6g,%d\n", bench_mpi_name(), np,
                            over, gm[g], gn[g], its[g], grp, tm[g], 1e-6 * flops / tm[g], okm[g]);
                    fprintf(f, "%s,%d,%d,%ld,%ld,%d,%d,zcom,%.9g,%.6g,%d\n", bench_mpi_name(), np,
                            over, gm[g], gn[g], its[g], grp, tz[g], 1e-6 * flops / tz[g], okz[g]);
                }
                fclose(f);
            }
        }
        fflush(stdout);
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return failed ? 1 : 0;
}
