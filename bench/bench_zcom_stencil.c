/* miniGhost-style 3-D 7-point stencil with halo exchange (ZCom thesis section 5.3): MPI against
 * ZCom, weak and strong scaling, at whatever number of processes the program is started with.
 *
 * The kernel. A global grid of gx x gy x gz cells is split in blocks over a px x py x pz process
 * grid (--decomp 3d, the default: MPI_Dims_create's factors, the largest along z, whose faces are
 * contiguous in memory; --decomp 1d: slabs along z; --dims X,Y,Z: any). Each process holds its
 * block of nx x ny x nz cells with a one-cell halo, twice (time levels t and t+1). Every step
 * exchanges the faces with the (up to 6) neighbours, then sets every cell to the average of itself
 * and its 6 neighbours (7 flops: 6 additions, 1 multiplication, always in the same order). Halo
 * cells on the global boundary stay 0. Initial values: a hash of the global cell index, so they do
 * not depend on the decomposition.
 *
 * Variants (same arrays, same arithmetic, only the exchange differs):
 *   MPI   as miniGhost's default (BSPMA): per neighbour, MPI_Irecv into a receive buffer, pack
 *         the boundary face into a send buffer, MPI_Isend; MPI_Waitall; unpack into the halo.
 *         The data is copied at least three times (pack, MPI's copy through shared memory,
 *         unpack).
 *   ZCom  each time level's array is exposed to every neighbour (two ZCom_init_c calls: one
 *         channel per neighbour pair and time level). Each process copies its boundary face
 *         straight from its array into the neighbour's halo, through attached_addrs: one copy,
 *         no pack, no MPI. Why the writer copies (rather than the reader reading the peer's
 *         array in place): the stencil kernel stays one loop over contiguous local memory,
 *         identical in both variants, and the copy runs as soon as the writer's step is done,
 *         while the reader may still be computing. Synchronisation per channel (level k, pair):
 *           writer, after computing level k: can_write (the neighbour has read my previous
 *             write into its level-k halo, two steps ago), copy the face, have_written;
 *           reader, before computing from level k: can_read (every neighbour's face is in my
 *             halo), compute, have_read (my level-k halo may be overwritten again).
 *         With one channel per level a process waits only for what it needs; with a single
 *         channel it could not publish step t+1 before its neighbour had finished step t.
 *         Waits spin briefly, then yield the core on every poll (sched_yield), poking MPI's
 *         progress now and then: with more processes than cores the process waited for must run.
 *
 * Both variants compute on the same arrays (exposed to ZCom): ZCom shares the pages as memfd
 * (shmem) pages, which are not transparent huge pages here, while private heap memory may be.
 * Running MPI on the same pages keeps the comparison about the exchange; --private-mpi gives
 * the MPI variant its own heap arrays instead (what a plain MPI program would have).
 *
 * Verification: the final grid's checksum (sum of every cell, MPI_Allreduce of the per-process
 * sums, as miniGhost does) must be bit-for-bit equal in both variants (same arithmetic, same
 * decomposition; it may differ in the last bits only if the MPI reduction order changed, so 1e-12
 * relative is accepted too), every process's final block must be bit-identical (a hash of the
 * bits), and when the global grid is small enough (--serial-max, cells) process 0 also runs the
 * same steps alone on the whole grid and its checksum must agree within 1e-12 (summation order
 * differs). That serial run's time per step is the reference of the parallel efficiency column:
 * serial time / (processes x parallel time). Exit status 1 on any mismatch.
 *
 * Modes: weak scaling (fixed block per process, --weak N: N^3; default 128, --quick 24) and strong
 * scaling (fixed global grid, --strong N: N^3; default 192, --quick 40). One table row per mode;
 * runs with more processes on the node than online cores are marked OVERSUBSCRIBED.
 * Other options: --steps S (default 100, --quick 10), --reps R (best of R, variants interleaved;
 * default 3, --quick 1), --mode weak|strong|both, --csv FILE. */
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "shoal/zcom.h"

#define ONE_SEVENTH (1.0 / 7.0)
#define REL_TOL     1e-12

static int me, np;
static void *xalloc(size_t bytes) {
    void *p = NULL;
    long page = sysconf(_SC_PAGESIZE);
    if (posix_memalign(&p, (size_t)page, bytes ? bytes : 1)) {
        fprintf(stderr, "bench_zcom_stencil: rank %d: out of memory (%zu bytes)\n", me, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* ---- blocks ---- */

/* Faces: 0 x-, 1 x+, 2 y-, 3 y+, 4 z-, 5 z+ (dimension f/2, plus side when f is odd). */
typedef struct {
    int p[3], c[3]; /* process grid, my coordinates */
    long g[3];      /* global cells */
    long n[3];      /* my interior cells */
    long off[3];    /* global index of my first interior cell */
    long sx, sy;    /* strides of y and z */
    size_t cells;   /* with halo */
    int nb[6];      /* neighbour across each face, -1 on the global boundary */
    long nbn[6][3]; /* its interior cells */
    double *A[2];   /* the two time levels */
    size_t bytes;   /* allocated bytes of each level (page multiple) */
} block_t;

static void split(long g, int p, int c, long *n, long *off) {
    long base = g / p, extra = g % p;
    *n = base + (c < extra);
    *off = c * base + (c < extra ? c : extra);
}

static int rank_of(const int p[3], const int c[3]) {
    return c[0] + p[0] * (c[1] + p[1] * c[2]);
}

/* My block of the global grid g over the process grid p (rank r); arrays not allocated. */
static void block_setup(block_t *b, const long g[3], const int p[3], int r) {
    memset(b, 0, sizeof *b);
    for (int d = 0; d < 3; d++) b->p[d] = p[d], b->g[d] = g[d];
    b->c[0] = r % p[0];
    b->c[1] = (r / p[0]) % p[1];
    b->c[2] = r / (p[0] * p[1]);
    for (int d = 0; d < 3; d++) split(g[d], p[d], b->c[d], &b->n[d], &b->off[d]);
    b->sx = b->n[0] + 2;
    b->sy = b->sx * (b->n[1] + 2);
    b->cells = (size_t)b->sy * (size_t)(b->n[2] + 2);
    for (int f = 0; f < 6; f++) {
        int d = f / 2, c[3] = {b->c[0], b->c[1], b->c[2]};
        c[d] += f % 2 ? 1 : -1;
        if (c[d] < 0 || c[d] >= p[d]) {
            b->nb[f] = -1;
            continue;
        }
        b->nb[f] = rank_of(p, c);
        for (int e = 0; e < 3; e++) {
            long off;
            split(g[e], p[e], c[e], &b->nbn[f][e], &off);
        }
    }
}

static inline size_t idx(const block_t *b, long x, long y, long z) {
    return (size_t)(x + y * b->sx + z * b->sy);
}

static uint64_t mix(uint64_t x) { /* splitmix64's finaliser */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Level 0: every cell, halo included, from the global initial values (0 outside the global
 * grid); level 1: zero (its halo is filled by the exchange before it is read). */
static void block_fill(block_t *b) {
    memset(b->A[1], 0, b->cells * sizeof(double));
    for (long z = 0; z < b->n[2] + 2; z++)
        for (long y = 0; y < b->n[1] + 2; y++)
            for (long x = 0; x < b->n[0] + 2; x++) {
                long gc[3] = {b->off[0] + x - 1, b->off[1] + y - 1, b->off[2] + z - 1};
                double v = 0;
                if (gc[0] >= 0 && gc[0] < b->g[0] && gc[1] >= 0 && gc[1] < b->g[1] && gc[2] >= 0 &&
                    gc[2] < b->g[2]) {
                    uint64_t lin =
                        (uint64_t)gc[0] +
                        (uint64_t)b->g[0] * ((uint64_t)gc[1] + (uint64_t)b->g[1] * (uint64_t)gc[2]);
                    v = (double)(mix(lin) >> 11) * 0x1p-53;
                }
                b->A[0][idx(b, x, y, z)] = v;
            }
}

/* The 7-point average of level `in` into level `out`, interior cells only. */
static void stencil(const block_t *b, double *restrict out, const double *restrict in) {
    const long sx = b->sx, sy = b->sy, nx = b->n[0];
    for (long z = 1; z <= b->n[2]; z++)
        for (long y = 1; y <= b->n[1]; y++) {
            const double *c = in + idx(b, 0, y, z);
            double *o = out + idx(b, 0, y, z);
            for (long x = 1; x <= nx; x++)
                o[x] =
                    (c[x] + c[x - 1] + c[x + 1] + c[x - sx] + c[x + sx] + c[x - sy] + c[x + sy]) *
                    ONE_SEVENTH;
        }
}

/* Sum of the interior (z, y, x order) and a hash of its bits. */
static double block_sum(const block_t *b, const double *a, uint64_t *hash) {
    double s = 0;
    uint64_t h = 0;
    for (long z = 1; z <= b->n[2]; z++)
        for (long y = 1; y <= b->n[1]; y++)
            for (long x = 1; x <= b->n[0]; x++) {
                double v = a[idx(b, x, y, z)];
                uint64_t bits;
                memcpy(&bits, &v, sizeof bits);
                s += v;
                h = mix(h ^ bits);
            }
    if (hash) *hash = h;
    return s;
}

/* A face plane: the two in-plane dimensions' counts and strides. */
typedef struct {
    long na, nb; /* cells along the faster and slower in-plane dimension */
    long sa, sb; /* their strides in the block */
} plane_t;

static plane_t plane_of(int d, const long n[3], long sx, long sy) {
    plane_t p;
    if (d == 0)
        p = (plane_t){n[1], n[2], sx, sy};
    else if (d == 1)
        p = (plane_t){n[0], n[2], 1, sy};
    else
        p = (plane_t){n[0], n[1], 1, sx};
    return p;
}

/* Offset of the first in-plane interior cell of plane `at` (along dimension d). */
static size_t plane_base(int d, long at, long sx, long sy) {
    long c[3] = {1, 1, 1};
    c[d] = at;
    return (size_t)(c[0] + c[1] * sx + c[2] * sy);
}

static void copy_plane(double *dst, long dsa, long dsb, const double *src, long ssa, long ssb,
                       long na, long nb) {
    if (dsa == 1 && ssa == 1) {
        for (long j = 0; j < nb; j++) memcpy(dst + j * dsb, src + j * ssb, sizeof(double) * na);
        return;
    }
    for (long j = 0; j < nb; j++)
        for (long i = 0; i < na; i++) dst[i * dsa + j * dsb] = src[i * ssa + j * ssb];
}

/* ---- MPI variant ---- */

typedef struct {
    double *sbuf[6], *rbuf[6];
    plane_t pl[6];
} mpix_t;

static void mpix_open(mpix_t *m, const block_t *b) {
    for (int f = 0; f < 6; f++) {
        m->sbuf[f] = m->rbuf[f] = NULL;
        if (b->nb[f] < 0) continue;
        m->pl[f] = plane_of(f / 2, b->n, b->sx, b->sy);
        size_t cnt = (size_t)(m->pl[f].na * m->pl[f].nb);
        m->sbuf[f] = xalloc(cnt * sizeof(double));
        m->rbuf[f] = xalloc(cnt * sizeof(double));
    }
}

static void mpix_close(mpix_t *m) {
    for (int f = 0; f < 6; f++) free(m->sbuf[f]), free(m->rbuf[f]);
}

/* The halo of level a from the neighbours' boundary faces. A message sent across my face f is
 * tagged with the face it fills at the receiver (f ^ 1). */
static void mpix_exchange(mpix_t *m, const block_t *b, double *a) {
    MPI_Request req[12];
    MPI_Status st[12]; /* not MPI_STATUSES_IGNORE: GCC 12 takes it for a zero-size array */
    int nr = 0;
    for (int f = 0; f < 6; f++) {
        if (b->nb[f] < 0) continue;
        plane_t p = m->pl[f];
        MPI_Irecv(m->rbuf[f], (int)(p.na * p.nb), MPI_DOUBLE, b->nb[f], f, MPI_COMM_WORLD,
                  &req[nr++]);
    }
    for (int f = 0; f < 6; f++) {
        if (b->nb[f] < 0) continue;
        plane_t p = m->pl[f];
        int d = f / 2;
        size_t src = plane_base(d, f % 2 ? b->n[d] : 1, b->sx, b->sy);
        copy_plane(m->sbuf[f], 1, p.na, a + src, p.sa, p.sb, p.na, p.nb);
        MPI_Isend(m->sbuf[f], (int)(p.na * p.nb), MPI_DOUBLE, b->nb[f], f ^ 1, MPI_COMM_WORLD,
                  &req[nr++]);
    }
    MPI_Waitall(nr, req, st);
    for (int f = 0; f < 6; f++) {
        if (b->nb[f] < 0) continue;
        plane_t p = m->pl[f];
        int d = f / 2;
        size_t dst = plane_base(d, f % 2 ? b->n[d] + 1 : 0, b->sx, b->sy);
        copy_plane(a + dst, p.sa, p.sb, m->rbuf[f], 1, p.na, p.na, p.nb);
    }
}

/* ---- ZCom variant ---- */

typedef struct {
    int nt;             /* neighbours */
    int face[6];        /* face of neighbour i */
    int ids[2][6];      /* channel per level and neighbour */
    double *peer[2][6]; /* the neighbour's level array, mapped here */
    int open;
} zx_t;

static int zx_open(zx_t *z, block_t *b) {
    int targets[6], err = 0;
    size_t sizes[6];
    void *bufs[6], *att[6];
    memset(z, 0, sizeof *z);
    for (int f = 0; f < 6; f++)
        if (b->nb[f] >= 0) z->face[z->nt] = f, targets[z->nt++] = b->nb[f];
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < z->nt; i++) bufs[i] = b->A[k], sizes[i] = b->bytes;
        ZCom_init_c(bufs, sizes, MPI_COMM_WORLD, targets, z->nt, att, z->ids[k], &err);
        if (err) {
            if (me == 0)
                fprintf(stderr, "bench_zcom_stencil: ZCom_init_c: %s\n", ZCom_strerror(err));
            if (k == 1) ZCom_cleanup_c(z->ids[0], z->nt, MPI_COMM_WORLD, &err);
            return -1;
        }
        for (int i = 0; i < z->nt; i++) z->peer[k][i] = att[i];
    }
    z->open = 1;
    return 0;
}

static int zx_close(zx_t *z) {
    int e0 = 0, e1 = 0;
    if (!z->open) return 0;
    MPI_Barrier(MPI_COMM_WORLD);
    ZCom_cleanup_c(z->ids[1], z->nt, MPI_COMM_WORLD, &e1);
    ZCom_cleanup_c(z->ids[0], z->nt, MPI_COMM_WORLD, &e0);
    z->open = 0;
    return e0 || e1 ? -1 : 0;
}

/* Copy my boundary faces of level k into the neighbours' level-k halos. */
static void zx_publish(zx_t *z, const block_t *b, int k) {
    int err;
    for (int i = 0; i < z->nt; i++) {
        int f = z->face[i], d = f / 2;
        unsigned spins = 0;
        while (!ZCom_can_write_c(z->ids[k][i], &err)) bench_relax(&spins);
        /* the neighbour's geometry: its strides, and its halo plane on my side */
        const long *nn = b->nbn[f];
        long nsx = nn[0] + 2, nsy = nsx * (nn[1] + 2);
        plane_t mine = plane_of(d, b->n, b->sx, b->sy), theirs = plane_of(d, nn, nsx, nsy);
        size_t src = plane_base(d, f % 2 ? b->n[d] : 1, b->sx, b->sy);
        size_t dst = plane_base(d, f % 2 ? 0 : nn[d] + 1, nsx, nsy);
        copy_plane(z->peer[k][i] + dst, theirs.sa, theirs.sb, b->A[k] + src, mine.sa, mine.sb,
                   mine.na, mine.nb);
        ZCom_have_written_c(z->ids[k][i], &err);
    }
}

static void zx_wait_halo(zx_t *z, int k) {
    int err;
    for (int i = 0; i < z->nt; i++) {
        unsigned spins = 0;
        while (!ZCom_can_read_c(z->ids[k][i], &err)) bench_relax(&spins);
    }
}

static void zx_release_halo(zx_t *z, int k) {
    int err;
    for (int i = 0; i < z->nt; i++) ZCom_have_read_c(z->ids[k][i], &err);
}

/* ---- runs ---- */

typedef struct {
    double t_step, t_comm; /* per step, slowest process */
    double sum;            /* global checksum */
    uint64_t hash;         /* my block's bits */
} result_t;

/* `steps` steps of one variant (z == NULL: MPI) on levels b->A; the result is in level steps%2. */
static void run(block_t *b, mpix_t *m, zx_t *z, int steps, result_t *r) {
    double comm = 0;
    block_fill(b);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    for (int t = 0; t < steps; t++) {
        int k = t % 2;
        double c0 = bench_now();
        if (z) {
            if (t > 0) zx_wait_halo(z, k);
        } else if (t > 0) {
            mpix_exchange(m, b, b->A[k]);
        }
        double c1 = bench_now();
        stencil(b, b->A[1 - k], b->A[k]);
        double c2 = bench_now();
        if (z) {
            if (t > 0) zx_release_halo(z, k);
            if (t < steps - 1) zx_publish(z, b, 1 - k);
        }
        comm += (c1 - c0) + (bench_now() - c2);
    }
    double loc[2] = {bench_now() - t0, comm}, mx[2];
    MPI_Allreduce(loc, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    r->t_step = mx[0] / steps;
    r->t_comm = mx[1] / steps;
    double s = block_sum(b, b->A[steps % 2], &r->hash);
    MPI_Allreduce(&s, &r->sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

/* A barrier that sleeps while it waits: the processes idle during the serial run must leave the
 * cores to it (MPI's blocking calls poll, and with more processes than cores polling processes
 * would slow it down). */
static void sleepy_barrier(void) {
    MPI_Request req;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done) break;
        nanosleep(&(struct timespec){0, 200000}, NULL);
    }
}

/* Process 0 alone on the whole grid: time per step and checksum (others get the checksum). */
static void run_serial(const long g[3], int steps, double *t_step, double *sum) {
    double v[2] = {0, 0};
    sleepy_barrier(); /* everyone is idle before the clock starts */
    if (me == 0) {
        block_t s;
        int one[3] = {1, 1, 1};
        block_setup(&s, g, one, 0);
        s.A[0] = xalloc(s.cells * sizeof(double));
        s.A[1] = xalloc(s.cells * sizeof(double));
        block_fill(&s);
        double t0 = bench_now();
        for (int t = 0; t < steps; t++) stencil(&s, s.A[1 - t % 2], s.A[t % 2]);
        v[0] = (bench_now() - t0) / steps;
        v[1] = block_sum(&s, s.A[steps % 2], NULL);
        free(s.A[0]);
        free(s.A[1]);
    }
    sleepy_barrier();
    MPI_Bcast(v, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    *t_step = v[0];
    *sum = v[1];
}

typedef struct {
    const char *mode;
    long g[3], bmax[3]; /* global grid, largest block */
    int p[3];
    result_t mpi, zc;
    double serial_t, serial_sum;
    int serial_done, zok, same_sum, same_bits, serial_ok;
} row_t;

static void measure(row_t *row, const long g[3], const int p[3], int steps, int reps,
                    int private_mpi, double serial_max) {
    block_t b, bm;
    mpix_t m;
    zx_t z;
    long page = sysconf(_SC_PAGESIZE);
    block_setup(&b, g, p, me);
    for (int d = 0; d < 3; d++) row->g[d] = g[d], row->p[d] = p[d];
    long nmax[3];
    MPI_Allreduce(b.n, nmax, 3, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    for (int d = 0; d < 3; d++) row->bmax[d] = nmax[d];
    /* ZCom pairs buffers of equal size: every process allocates the largest block's bytes */
    unsigned long long mine = b.cells * sizeof(double), most;
    MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    b.bytes = (size_t)((most + (unsigned long long)page - 1) / (unsigned long long)page) * page;
    b.A[0] = xalloc(b.bytes);
    b.A[1] = xalloc(b.bytes);
    memset(b.A[0], 0, b.bytes);
    memset(b.A[1], 0, b.bytes);
    bm = b;
    if (private_mpi) {
        bm.A[0] = xalloc(b.bytes);
        bm.A[1] = xalloc(b.bytes);
    }
    mpix_open(&m, &b);
    row->zok = zx_open(&z, &b) == 0;
    row->mpi.t_step = row->zc.t_step = INFINITY;
    for (int r = 0; r < reps; r++) {
        result_t x;
        run(&bm, &m, NULL, steps, &x);
        if (x.t_step < row->mpi.t_step) row->mpi = x;
        if (row->zok) {
            run(&b, NULL, &z, steps, &x);
            if (x.t_step < row->zc.t_step) row->zc = x;
        }
    }
    if (zx_close(&z)) row->zok = 0;
    mpix_close(&m);
    if (private_mpi) free(bm.A[0]), free(bm.A[1]);
    free(b.A[0]);
    free(b.A[1]);

    int same = row->zok && row->mpi.hash == row->zc.hash, all;
    MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    row->same_bits = all;
    row->same_sum = row->zok && (row->mpi.sum == row->zc.sum ||
                                 fabs(row->mpi.sum - row->zc.sum) <= REL_TOL * fabs(row->mpi.sum));
    row->serial_done = (double)g[0] * g[1] * g[2] <= serial_max;
    row->serial_ok = 1;
    if (row->serial_done) {
        run_serial(g, steps, &row->serial_t, &row->serial_sum);
        row->serial_ok =
            fabs(row->serial_sum - row->mpi.sum) <= REL_TOL * fabs(row->serial_sum) &&
            (!row->zok || fabs(row->serial_sum - row->zc.sum) <= REL_TOL * fabs(row->serial_sum));
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int quick = 0, steps = 0, reps = 0, weak = 0, strong = 0, private_mpi = 0, bad = 0;
    int do_weak = 1, do_strong = 1, dims[3] = {0, 0, 0}, one_d = 0;
    double serial_max = 3e7;
    const char *csv = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) {
            quick = 1;
        } else if (!strcmp(a, "--private-mpi")) {
            private_mpi = 1;
        } else if (!strcmp(a, "--steps") && v) {
            steps = atoi(v), i++;
        } else if (!strcmp(a, "--reps") && v) {
            reps = atoi(v), i++;
        } else if (!strcmp(a, "--weak") && v) {
            weak = atoi(v), i++;
        } else if (!strcmp(a, "--strong") && v) {
            strong = atoi(v), i++;
        } else if (!strcmp(a, "--serial-max") && v) {
            serial_max = atof(v), i++;
        } else if (!strcmp(a, "--mode") && v) {
            do_weak = !strcmp(v, "weak") || !strcmp(v, "both");
            do_strong = !strcmp(v, "strong") || !strcmp(v, "both");
            if (!do_weak && !do_strong) bad = 1;
            i++;
        } else if (!strcmp(a, "--decomp") && v) {
            if (!strcmp(v, "1d"))
                one_d = 1;
            else if (strcmp(v, "3d"))
                bad = 1;
            i++;
        } else if (!strcmp(a, "--dims") && v) {
            if (sscanf(v, "%d,%d,%d", &dims[0], &dims[1], &dims[2]) != 3 || dims[0] < 1 ||
                dims[1] < 1 || dims[2] < 1 || dims[0] * dims[1] * dims[2] != np)
                bad = 1;
            i++;
        } else if (!strcmp(a, "--csv") && v) {
            csv = v, i++;
        } else {
            bad = 1;
        }
        if (bad) {
            if (me == 0) fprintf(stderr, "bench_zcom_stencil: bad option %s\n", a);
            break;
        }
    }
    if (!steps) steps = quick ? 10 : 100;
    if (!reps) reps = quick ? 1 : 3;
    if (!weak) weak = quick ? 24 : 128;
    if (!strong) strong = quick ? 40 : 192;
    if (!dims[0]) {
        if (one_d) {
            dims[0] = dims[1] = 1, dims[2] = np;
        } else {
            int d[3] = {0, 0, 0};
            MPI_Dims_create(np, 3, d); /* non-increasing: the largest split along z */
            dims[0] = d[2], dims[1] = d[1], dims[2] = d[0];
        }
    }
    for (int d = 0; d < 3; d++)
        if (strong < dims[d]) bad = 1;
    if (bad || steps < 1 || reps < 1 || weak < 1) {
        if (me == 0)
            fprintf(stderr,
                    "usage: bench_zcom_stencil [--quick] [--mode weak|strong|both] [--weak N] "
                    "[--strong N] [--steps S] [--reps R] [--decomp 1d|3d] [--dims X,Y,Z] "
                    "[--private-mpi] [--serial-max CELLS] [--csv FILE]\n");
        MPI_Finalize();
        return 2;
    }

    int on_node;
    long cores;
    int over = bench_oversubscribed(&on_node, &cores);
    double t_start = bench_now(), load0 = bench_loadavg();

    row_t rows[2];
    int nrows = 0;
    memset(rows, 0, sizeof rows);
    if (do_weak) {
        long g[3] = {(long)weak * dims[0], (long)weak * dims[1], (long)weak * dims[2]};
        rows[nrows].mode = "weak";
        measure(&rows[nrows++], g, dims, steps, reps, private_mpi, serial_max);
    }
    if (do_strong) {
        long g[3] = {strong, strong, strong};
        rows[nrows].mode = "strong";
        measure(&rows[nrows++], g, dims, steps, reps, private_mpi, serial_max);
    }

    int failed = 0;
    for (int i = 0; i < nrows; i++)
        failed |= !rows[i].zok || !rows[i].same_bits || !rows[i].same_sum || !rows[i].serial_ok;
    if (me == 0) {
        printf("# miniGhost-style 7-point stencil: MPI vs ZCom (%s, %d process%s%s)\n\n",
               bench_mpi_name(), np, np == 1 ? "" : "es", over ? ", OVERSUBSCRIBED" : "");
        printf("3-D grid in blocks over a %d x %d x %d process grid, one-cell halos, %d steps: "
               "exchange the faces with the neighbours, then the 7-point average (7 flops per "
               "cell). MPI: Irecv/pack/Isend/Waitall/unpack per face. ZCom: each process copies "
               "its faces straight into its neighbours' halos through attached_addrs "
               "(can_write/have_written), the neighbour waits with can_read and releases with "
               "have_read. Time per step: the slowest process's, best of %d run%s per variant "
               "(interleaved); comm: the part of it spent exchanging (waits included). Memory: "
               "%s. Parallel efficiency: serial time / (processes x time), the serial run being "
               "process 0 alone on the whole grid.\n\n",
               dims[0], dims[1], dims[2], steps, reps, reps > 1 ? "s" : "",
               private_mpi ? "MPI computes on private heap arrays (--private-mpi), ZCom on its "
                             "exposed ones"
                           : "both variants compute on the same arrays (the ZCom-exposed pages)");
        printf("- MPI library: %s\n", bench_mpi_name());
        printf("- %d process%s on %ld online cores%s\n", np, np == 1 ? "" : "es", cores,
               over ? ": OVERSUBSCRIBED (more processes than cores: the figures are dominated by "
                      "scheduling)"
                    : "");
        printf("- load average at start: %.2f\n\n", load0);
        printf("| Mode | Global grid | Block (largest) | MPI ms/step | MPI comm ms/step | ZCom "
               "ms/step | ZCom comm ms/step | MPI GFlops/s | ZCom GFlops/s | ZCom speed-up | "
               "Serial ms/step | Efficiency MPI / ZCom | Checksum | Verification |\n"
               "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n");
        for (int i = 0; i < nrows; i++) {
            row_t *r = &rows[i];
            double cells = (double)r->g[0] * r->g[1] * r->g[2], fl = 7.0 * cells * 1e-9;
            char ser[32] = "-", eff[48] = "-", ver[200];
            if (r->serial_done) {
                snprintf(ser, sizeof ser, "%.3f", r->serial_t * 1e3);
                snprintf(eff, sizeof eff, "%.0f%% / %.0f%%",
                         100 * r->serial_t / (np * r->mpi.t_step),
                         100 * r->serial_t / (np * r->zc.t_step));
            }
            if (!r->zok)
                snprintf(ver, sizeof ver, "**FAILED**: ZCom_init_c/cleanup failed");
            else if (!r->same_bits || !r->same_sum || !r->serial_ok)
                snprintf(ver, sizeof ver,
                         "**FAILED**: MPI %.17g, ZCom %.17g, serial %.17g; blocks %s", r->mpi.sum,
                         r->zc.sum, r->serial_done ? r->serial_sum : NAN,
                         r->same_bits ? "bit-identical" : "DIFFER");
            else
                snprintf(ver, sizeof ver, "ok: %s%s",
                         r->mpi.sum == r->zc.sum ? "bit-identical" : "within 1e-12",
                         r->serial_done ? ", = serial within 1e-12" : "");
            printf(
                "| %s%s | %ld x %ld x %ld | %ld x %ld x %ld | %.3f | %.3f | %.3f | %.3f | %.2f | "
                "%.2f | %.2fx | %s | %s | %.15e | %s |\n",
                r->mode, over ? " OVERSUBSCRIBED" : "", r->g[0], r->g[1], r->g[2], r->bmax[0],
                r->bmax[1], r->bmax[2], r->mpi.t_step * 1e3, r->mpi.t_comm * 1e3,
                r->zc.t_step * 1e3, r->zc.t_comm * 1e3, fl / r->mpi.t_step, fl / r->zc.t_step,
                r->mpi.t_step / r->zc.t_step, ser, eff, r->mpi.sum, ver);
        }
        printf("\n## Summary\n\n");
        for (int i = 0; i < nrows; i++) {
            row_t *r = &rows[i];
            double cells = (double)r->g[0] * r->g[1] * r->g[2];
            printf("- %s scaling, %d process%s%s, %ld x %ld x %ld: MPI %.3f ms/step (%.1f "
                   "Mcells/s), ZCom %.3f ms/step (%.1f Mcells/s), ZCom speed-up %.2fx, %s\n",
                   r->mode, np, np == 1 ? "" : "es", over ? " (OVERSUBSCRIBED)" : "", r->g[0],
                   r->g[1], r->g[2], r->mpi.t_step * 1e3, cells * 1e-6 / r->mpi.t_step,
                   r->zc.t_step * 1e3, cells * 1e-6 / r->zc.t_step, r->mpi.t_step / r->zc.t_step,
                   r->zok && r->same_bits && r->same_sum && r->serial_ok ? "checksums agree"
                                                                         : "VERIFICATION FAILED");
        }
        printf("\nLoad average at the end: %.2f.\n", bench_loadavg());
        printf("\nbench_zcom_stencil: finished in %.1f s%s\n", bench_now() - t_start,
               failed ? " WITH ERRORS" : "");
        if (csv) {
            FILE *f = fopen(csv, "w");
            if (!f) {
                fprintf(stderr, "bench_zcom_stencil: cannot write %s\n", csv);
                failed = 1;
            } else {
                fprintf(f, "mpi,procs,oversubscribed,mode,gx,gy,gz,px,py,pz,steps,variant,"
                           "time_per_step_s,comm_per_step_s,gflops,checksum,serial_time_per_step_s,"
                           "verified\n");
                for (int i = 0; i < nrows; i++) {
                    row_t *r = &rows[i];
                    double fl = 7.0 * (double)r->g[0] * r->g[1] * r->g[2] * 1e-9;
                    int ok = r->zok && r->same_bits && r->same_sum && r->serial_ok;
                    for (int v = 0; v < 2; v++) {
                        result_t *x = v ? &r->zc : &r->mpi;
                        fprintf(f,
                                "%s,%d,%d,%s,%ld,%ld,%ld,%d,%d,%d,%d,%s,%.9g,%.9g,%.6g,%.17g,"
                                "%.9g,%d\n",
                                bench_mpi_name(), np, over, r->mode, r->g[0], r->g[1], r->g[2],
                                r->p[0], r->p[1], r->p[2], steps, v ? "zcom" : "mpi", x->t_step,
                                x->t_comm, fl / x->t_step, x->sum,
                                r->serial_done ? r->serial_t : NAN, ok);
                    }
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
