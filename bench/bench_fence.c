/* bench_fence: Shoal's active-target fence designs against MPI_Win_fence, in one run: the
 * evaluation of the fence paper (../shared/seeds/002_01147c39b0db8d5e.txt, section 4; issue 8).
 *
 * Variants, side by side in every row: the four designs (deferred, imm_naive, imm_barrier,
 * imm_notify) and auto, each on its own symmetric allocation (shoal_team_memalloc,
 * shoal_epoch_set_design), whose epochs are shoal_put_nb calls into it closed by
 * shoal_epoch_fence(alloc, 0); and the MPI the program was built with: the same MPI_Put calls on an
 * MPI_Win_allocate window closed by MPI_Win_fence(0, win). Sections:
 *   - figure 6, overlap: unit i puts m bytes to i+1 (mod p), computes, fences. t_comm = the epoch
 *     with no computation; t_comp = a calibrated computation of about t_comm, timed alone;
 *     t_total = the epoch with that computation between the put and the fence; overlap =
 *     (t_comm + t_comp - t_total) / t_comm, clamped to 0-100 %. Sizes 1 B - 4 MiB, powers of 4.
 *   - figures 7-9, fence latency: epochs with no put, one 16 B put to i+1, and 16 B puts to the 8
 *     neighbours i+-1 .. i+-4 (mod p; at small p several are the same unit, or the unit itself);
 *     and 64 puts of 8 B to consecutive slots of i+1 (an element-wise loop).
 *   - beside every fence and halo row on the direct path, "copies alone": the same bytes
 *     memcpy'd into the mapped targets with no synchronisation, the floor under any design (a
 *     miss of target (1) where the copies alone take more than half of MPI's epoch is marked).
 *   - figure 10, halo exchange: a 2-D periodic process grid, puts of m bytes to the 4 face
 *     neighbours, or to those and the 4 corner ones (8), one fence per iteration (optionally with
 *     a fixed computation between the puts and the fence: --halo-compute-us).
 *   - table 1, the collectives the designs are built from: barrier (shoal_barrier, MPI_Barrier),
 *     allreduce of 8 B (shoal_reduce of one int64, MPI_Allreduce) and reduce-scatter with one int
 *     per unit (MPI_Reduce_scatter_block; Shoal has no reduce-scatter: shoal_reduce of p ints,
 *     which gives every unit all p sums).
 * Every put lands in a slot of its own at its target (slot k: the k-th neighbour direction), so
 * no two puts of an epoch touch the same bytes. Before a variant of a row is timed, its data is
 * checked once: each origin puts a pattern (origin, slot, a fresh stamp), the target's slots were
 * first set to the complement of what it expects, and after the fence every byte is compared; a
 * variant that fails is not timed (its cell says so) and the exit status is 1.
 * Timing: warm-up, then per variant a batch size calibrated to about --batch-us; then the batches,
 * every variant of the row once per batch (interleaved, starting one further each time), each
 * batch started by an MPI_Barrier. A batch's figure is the slowest unit's time per epoch; each
 * cell is the median over the batches (or the fastest batch with --stat min; the CSV has both).
 *
 * Options: --quick (few sizes, short batches: a smoke test), --csv FILE (raw numbers; "-" for
 *          stdout), --compare FILE (another MPI's --csv: target (1) then uses the faster MPI),
 *          --batches N, --batch-us T, --stat median|min, --budget S (seconds; past it the
 *          remaining rows get 3 batches), --max-size SIZE (largest overlap message),
 *          --only overlap,fence,halo,coll, --halo-compute-us T.
 * Exit status: 0 when it ran (no performance target fails it); 1 when a call returned an error
 * or a fence delivered wrong data; 2 on bad usage. */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "shoal.h"

#define MAX_BATCHES 51
#define MAX_ITERS   200000
#define MAX_PEERS   64 /* puts per epoch per unit (fence_many) */
#define MAX_ROWS    40
#define MAX_JOBS    16
#define LARGE_MSG   ((size_t)64 << 10) /* target (2) applies from here */

/* ---- Variants -------------------------------------------------------------------------------- */
enum { V_DEF, V_NAIVE, V_BARRIER, V_NOTIFY, V_AUTO, V_MPI, NV };
#define NSHOAL V_MPI /* variants 0 .. NSHOAL-1 are Shoal allocations */
static const shoal_epoch_design_t vdesign[NSHOAL] = {SHOAL_EPOCH_DEFERRED, SHOAL_EPOCH_IMM_NAIVE,
                                                     SHOAL_EPOCH_IMM_BARRIER,
                                                     SHOAL_EPOCH_IMM_NOTIFY, SHOAL_EPOCH_AUTO};
static const char *const vname[NV] = {"deferred",   "imm_naive", "imm_barrier",
                                      "imm_notify", "auto",      "mpi"};
static const char *const vtitle[NV] = {"deferred",   "imm_naive", "imm_barrier",
                                       "imm_notify", "auto",      "MPI_Win_fence"};

/* ---- Rows ------------------------------------------------------------------------------------ */
enum { SEC_OVERLAP, SEC_FENCE, SEC_HALO, SEC_COLL, NSEC };
static const char *const secname[NSEC] = {"overlap", "fence", "halo", "coll"};
enum { COLL_BARRIER, COLL_ALLREDUCE, COLL_REDSCAT };
/* In collective rows the Shoal call is variant V_AUTO's cell, the MPI call V_MPI's. */
#define V_SHOAL V_AUTO

enum { ST_NONE = 0, ST_OK, ST_NA, ST_ERR };
typedef struct {
    int status;
    double med, q1, q3, min, val; /* us per epoch (or call) */
    long iters;
    char why[48];
} cell_t;

typedef struct {
    int sec;
    char csvcase[24]; /* fence_zero, halo4, allreduce, ... */
    char title[64];
    size_t msg; /* bytes per put (collectives: bytes of the operation) */
    int npeer;
    int px, py; /* process grid the directions apply to */
    int dx[MAX_PEERS], dy[MAX_PEERS];
    int coll;
    cell_t c[NV];         /* epoch (collective call) time */
    cell_t copy;          /* the epoch's copies alone (direct path): what no fence can beat */
    cell_t comp[NV];      /* overlap: the computation alone */
    cell_t total[NV];     /* overlap: the epoch with the computation */
    double overlap[NV];   /* overlap: percent */
    int data[NV];         /* 0 not checked (no data), 1 right, -1 wrong */
    char auto_design[24]; /* what auto ran */
    double other_mpi;     /* --compare: the other MPI's figure (NAN: none) */
} row_t;

typedef struct {
    int quick, batches, use_min, only[NSEC];
    double batch_ns, budget_s, t_start, halo_compute_us;
    int over_budget;
    size_t max_size;
    shoal_unit_t me;
    int32_t p;
    long cores;
    int direct, progress;
    char cpu[128], mpilib[96];
    /* memory */
    size_t bufbytes;
    char *src;                  /* put sources: slot k at k * msg */
    shoal_gptr_t alloc[NSHOAL]; /* my part of each variant's allocation */
    char *local[NSHOAL];        /* ... mapped here */
    int have[NSHOAL];           /* the design was accepted */
    char why_not[NSHOAL][48];
    MPI_Win win;
    char *winbase;
    shoal_gptr_t cdst, csrc; /* table 1: shoal_reduce's buffers */
    /* the row being measured */
    int to[MAX_PEERS], from[MAX_PEERS];
    char *mapped[MAX_PEERS]; /* slot k's target bytes mapped here (direct path), else NULL */
    shoal_gptr_t gp[NSHOAL][MAX_PEERS];
    double rate; /* computation: loop iterations per ns on this unit */
    unsigned stamp;
    row_t rows[MAX_ROWS];
    int nrows;
    int data_errors, call_errors, nonnull_handles;
    char other_mpilib[96];
} ctx_t;
static ctx_t C;

static void die(const char *msg) {
    fprintf(stderr, "bench_fence: unit %d: %s\n", (int)C.me, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* The value in force of a configuration variable, as an int (dflt when not found). The text
 * shoal_config_var gives lives only until its next call for the same variable: read it at once. */
static int config_int(const char *name, int dflt) {
    shoal_config_var_t cv;
    for (int i = 0; i < shoal_config_count(); i++)
        if (shoal_config_var(i, &cv) == SHOAL_OK && !strcmp(cv.name, name)) return atoi(cv.value);
    return dflt;
}

/* ---- The computation ------------------------------------------------------------------------- */
static volatile double compute_sink;

/* A dependent chain of floating-point operations: the CPU is busy, memory is left alone. */
static void compute(long iters) {
    double x = compute_sink + 1.0;
    for (long i = 0; i < iters; i++) x = x * 0.9999999 + 1e-7;
    compute_sink = x;
}

/* Iterations per ns on this unit: the fastest of several timed runs of about half a millisecond. */
static void calibrate_compute(void) {
    long n = 1 << 16;
    double best = INFINITY;
    for (int i = 0; i < (C.quick ? 5 : 15); i++) {
        double t0 = bench_now_ns();
        compute(n);
        double t = bench_now_ns() - t0;
        if (t < 2e5 && i == 0) n *= 4; /* too short to time well: longer from now on */
        if (i > 0 && t / (double)n < best) best = t / (double)n;
    }
    C.rate = 1.0 / best;
}

static long compute_iters(double us) {
    double it = us * 1e3 * C.rate;
    return it < 1 ? 1 : it > 4e9 ? (long)4e9 : (long)it;
}

/* ---- Neighbours ------------------------------------------------------------------------------ */
/* The unit that direction k of row r leads to from unit u: (x + dx, y + dy) on the periodic
 * px x py grid (u = y * px + x). Linear sets (i+1, i+-1..4) use a p x 1 grid. */
static int neighbour(const row_t *r, int u, int k) {
    int x = u % r->px, y = u / r->px;
    int tx = ((x + r->dx[k]) % r->px + r->px) % r->px;
    int ty = ((y + r->dy[k]) % r->py + r->py) % r->py;
    return ty * r->px + tx;
}

/* A translation of the torus is a bijection: exactly one origin writes my slot k. */
static int origin_of(const row_t *r, int me, int k) {
    for (int o = 0; o < (int)C.p; o++)
        if (neighbour(r, o, k) == me) return o;
    die("a neighbour direction is not a bijection");
    return -1;
}

static void row_prepare(const row_t *r) {
    for (int k = 0; k < r->npeer; k++) {
        C.to[k] = neighbour(r, (int)C.me, k);
        C.from[k] = origin_of(r, (int)C.me, k);
        for (int v = 0; v < NSHOAL; v++)
            C.gp[v][k] =
                shoal_gptr_add(shoal_gptr_setunit(C.alloc[v], C.to[k]), (uint64_t)k * r->msg);
        void *a = NULL;
        C.mapped[k] = C.have[V_AUTO] && shoal_gptr_getaddr(C.gp[V_AUTO][k], &a) == SHOAL_OK
                          ? (char *)a
                          : NULL;
    }
}

/* ---- One epoch, one collective --------------------------------------------------------------- */
/* The puts of row r, citers iterations of computation, the closing fence; 0 when every call
 * succeeded. */
static int epoch(int v, const row_t *r, long citers) {
    size_t m = r->msg;
    if (v == V_MPI) {
        for (int k = 0; k < r->npeer; k++)
            if (MPI_Put(C.src + (size_t)k * m, (int)m, MPI_BYTE, C.to[k], (MPI_Aint)((size_t)k * m),
                        (int)m, MPI_BYTE, C.win) != MPI_SUCCESS)
                return 1;
        if (citers) compute(citers);
        return MPI_Win_fence(0, C.win) != MPI_SUCCESS;
    }
    for (int k = 0; k < r->npeer; k++) {
        shoal_handle_t h = SHOAL_HANDLE_NULL;
        if (shoal_put_nb(C.gp[v][k], C.src + (size_t)k * m, m, &h) != SHOAL_OK) return 1;
        if (h != SHOAL_HANDLE_NULL) { /* shoal.h: an epoch's operations give no handle */
            C.nonnull_handles++;
            if (shoal_wait(&h) != SHOAL_OK) return 1;
        }
    }
    if (citers) compute(citers);
    return shoal_epoch_fence(C.alloc[v], 0) != SHOAL_OK;
}

/* The copies of row r's puts, straight into the mapped targets, without any synchronisation:
 * the floor under every fence design (and MPI's on a shared-memory window), which must move the
 * same bytes. Only meaningful while nothing reads them; the timing runs alone. */
static void copies_only(const row_t *r) {
    for (int k = 0; k < r->npeer; k++) memcpy(C.mapped[k], C.src + (size_t)k * r->msg, r->msg);
    __asm__ __volatile__("" ::: "memory");
}

static int fence_only(int v) {
    if (v == V_MPI) return MPI_Win_fence(0, C.win) != MPI_SUCCESS;
    return shoal_epoch_fence(C.alloc[v], 0) != SHOAL_OK;
}

static int64_t *c_mpi_src, *c_mpi_dst; /* table 1: MPI's buffers (p int64 each) */

static int coll_call(int op, int v) {
    int p = (int)C.p;
    if (v == V_MPI) {
        switch (op) {
        case COLL_BARRIER:
            return MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS;
        case COLL_ALLREDUCE:
            return MPI_Allreduce(c_mpi_src, c_mpi_dst, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD) !=
                   MPI_SUCCESS;
        default:
            return MPI_Reduce_scatter_block(c_mpi_src, c_mpi_dst, 1, MPI_INT, MPI_SUM,
                                            MPI_COMM_WORLD) != MPI_SUCCESS;
        }
    }
    switch (op) {
    case COLL_BARRIER:
        return shoal_barrier(SHOAL_TEAM_ALL) != SHOAL_OK;
    case COLL_ALLREDUCE:
        return shoal_reduce(SHOAL_TEAM_ALL, C.cdst, C.csrc, 1, SHOAL_TYPE_INT64, SHOAL_RED_SUM) !=
               SHOAL_OK;
    default:
        return shoal_reduce(SHOAL_TEAM_ALL, C.cdst, C.csrc, (size_t)p, SHOAL_TYPE_INT,
                            SHOAL_RED_SUM) != SHOAL_OK;
    }
}

/* ---- Data checks ----------------------------------------------------------------------------- */
static inline uint8_t pat(int origin, int slot, unsigned stamp, size_t i) {
    uint32_t x = (uint32_t)i * 2654435761u ^ ((uint32_t)origin * 0x9E3779B1u +
                                              (uint32_t)slot * 0x85EBCA77u + stamp * 0xC2B2AE3Du);
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    return (uint8_t)(x ^ (x >> 8));
}

/* One checked epoch of row r on variant v (collective): 0 right, 1 wrong data, 2 a call failed
 * (the worst over all units). Sources get this stamp's pattern; my slots get its complement; a
 * fence orders those stores before the puts; the puts and their fence; then every byte. */
static int check_epoch(int v, const row_t *r) {
    size_t m = r->msg;
    unsigned stamp = ++C.stamp;
    uint8_t *mine = (uint8_t *)(v == V_MPI ? C.winbase : C.local[v]);
    for (int k = 0; k < r->npeer; k++)
        for (size_t i = 0; i < m; i++) C.src[(size_t)k * m + i] = (char)pat((int)C.me, k, stamp, i);
    int rc = fence_only(v) ? 2 : 0;
    for (int k = 0; k < r->npeer; k++)
        for (size_t i = 0; i < m; i++)
            mine[(size_t)k * m + i] = (uint8_t)~pat(C.from[k], k, stamp, i);
    if (!rc && fence_only(v)) rc = 2;
    if (!rc && epoch(v, r, 0)) rc = 2;
    if (!rc) {
        for (int k = 0; k < r->npeer && !rc; k++)
            for (size_t i = 0; i < m; i++)
                if (mine[(size_t)k * m + i] != pat(C.from[k], k, stamp, i)) {
                    fprintf(stderr,
                            "bench_fence: unit %d: %s %s (%zu B), %s: slot %d (from unit %d) byte "
                            "%zu is 0x%02x, expected 0x%02x\n",
                            (int)C.me, secname[r->sec], r->title, m, vname[v], k, C.from[k], i,
                            mine[(size_t)k * m + i], pat(C.from[k], k, stamp, i));
                    rc = 1;
                    break;
                }
    }
    int worst = 0;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* One checked collective call: 0 right, 1 wrong, 2 failed (worst over the units). */
static int check_coll(int op, int v) {
    int p = (int)C.p, me = (int)C.me, rc = 0;
    int64_t *s64 = NULL, *d64 = NULL;
    if (v != V_MPI) {
        if (shoal_gptr_getaddr(C.csrc, (void **)&s64) ||
            shoal_gptr_getaddr(C.cdst, (void **)&d64) || !s64 || !d64)
            die("the collectives' buffers are not mapped");
    } else {
        s64 = c_mpi_src;
        d64 = c_mpi_dst;
    }
    int *s32 = (int *)(void *)s64, *d32 = (int *)(void *)d64;
    int64_t tri = (int64_t)p * (p + 1) / 2;
    if (op == COLL_ALLREDUCE) {
        s64[0] = me + 1;
        d64[0] = -1;
    } else if (op == COLL_REDSCAT) {
        for (int j = 0; j < p; j++) s32[j] = (me + 1) * (j + 1), d32[j] = -1;
    }
    if (coll_call(op, v)) rc = 2;
    if (!rc && op == COLL_ALLREDUCE && d64[0] != tri) rc = 1;
    if (!rc && op == COLL_REDSCAT) {
        if (v == V_MPI) {
            if (d32[0] != (int)tri * (me + 1)) rc = 1;
        } else {
            for (int j = 0; j < p; j++)
                if (d32[j] != (int)tri * (j + 1)) rc = 1;
        }
    }
    if (rc == 1)
        fprintf(stderr, "bench_fence: unit %d: %s, %s: wrong result\n", me,
                op == COLL_ALLREDUCE ? "allreduce" : "reduce-scatter",
                v == V_MPI ? "MPI" : "Shoal");
    int worst = 0;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* ---- Measuring ------------------------------------------------------------------------------- */
enum { J_EPOCH, J_COMP, J_COLL, J_COPY };
typedef struct {
    row_t *r;
    int v, kind;
    long citers;
    cell_t *out;
} job_t;

/* n repetitions of job j; the local elapsed ns, or -1 when a call failed. */
static double run_job(const job_t *j, long n) {
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++) {
        int bad = 0;
        if (j->kind == J_EPOCH)
            bad = epoch(j->v, j->r, j->citers);
        else if (j->kind == J_COMP)
            compute(j->citers);
        else if (j->kind == J_COPY)
            copies_only(j->r);
        else
            bad = coll_call(j->r->coll, j->v);
        if (bad) return -1;
    }
    return bench_now_ns() - t0;
}

/* Warm-up, batch sizes, then the interleaved batches of every job (collective: all units pass
 * the same jobs). */
static void measure(job_t *jobs, int nj) {
    long iters[MAX_JOBS];
    for (int j = 0; j < nj; j++) {
        cell_t *c = jobs[j].out;
        c->med = c->q1 = c->q3 = c->min = c->val = NAN;
        MPI_Barrier(MPI_COMM_WORLD);
        if (run_job(&jobs[j], 3) < 0) die("a call failed during the warm-up");
        /* Grow a timed run until it is long enough, three times, keeping the fastest estimate
         * (on a busy machine one of them may have waited for a descheduled process). */
        double per_best = INFINITY;
        for (int attempt = 0; attempt < 3; attempt++) {
            long n = 1;
            for (;;) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t = run_job(&jobs[j], n), tmax = 0;
                if (t < 0) die("a call failed while calibrating");
                MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                if (tmax >= C.batch_ns / 8 || n >= MAX_ITERS) {
                    if (tmax / (double)n < per_best) per_best = tmax / (double)n;
                    break;
                }
                n *= 8;
            }
            if (per_best * 3 > C.batch_ns) break;
        }
        long want = per_best > 0 ? (long)(C.batch_ns / per_best) : MAX_ITERS;
        iters[j] = want < 1 ? 1 : want > MAX_ITERS ? MAX_ITERS : want;
        c->iters = iters[j];
    }
    int nb = C.batches;
    if (C.over_budget && nb > 3) nb = 3;
    static double tl[MAX_BATCHES * MAX_JOBS], tg[MAX_BATCHES * MAX_JOBS];
    uint64_t rng = 0x9E3779B97F4A7C15ULL ^ (uint64_t)nj;
    int order[MAX_JOBS];
    for (int b = 0; b < nb; b++)
        for (int jj = 0; jj < nj; jj++) {
            if (jj == 0)
                bench_shuffle(order, nj, &rng); /* a new order each batch, same everywhere */
            int j = order[jj];
            MPI_Barrier(MPI_COMM_WORLD);
            double t = run_job(&jobs[j], iters[j]);
            if (t < 0) die("a call failed while timing");
            tl[b * MAX_JOBS + j] = t / (double)iters[j];
        }
    MPI_Allreduce(tl, tg, nb * MAX_JOBS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int j = 0; j < nj; j++) {
        double v[MAX_BATCHES];
        for (int b = 0; b < nb; b++) v[b] = tg[b * MAX_JOBS + j] / 1e3;
        cell_t *c = jobs[j].out;
        c->q1 = bench_quantile(v, nb, 0.25);
        c->med = bench_quantile(v, nb, 0.5);
        c->min = v[0]; /* sorted by bench_quantile() */
        c->q3 = bench_quantile(v, nb, 0.75);
        c->val = C.use_min ? c->min : c->med;
        c->status = ST_OK;
    }
}

static void mark_error(cell_t *c, int worst, const char *where) {
    c->status = ST_ERR;
    snprintf(c->why, sizeof c->why, "%s", worst == 1 ? "WRONG DATA" : "call failed");
    if (worst == 1)
        C.data_errors++;
    else
        C.call_errors++;
    if (C.me == 0) fprintf(stderr, "bench_fence: %s: %s\n", where, c->why);
}

static void measure_row(row_t *r) {
    job_t jobs[MAX_JOBS];
    int nj = 0;
    char where[128];
    for (int v = 0; v < NV; v++) r->overlap[v] = NAN;
    if (r->sec == SEC_COLL) {
        int vs[2] = {V_SHOAL, V_MPI};
        for (int i = 0; i < 2; i++) {
            int v = vs[i];
            snprintf(where, sizeof where, "%s, %s", r->title, v == V_MPI ? "MPI" : "Shoal");
            int worst = check_coll(r->coll, v);
            r->data[v] = r->coll == COLL_BARRIER ? 0 : worst ? -1 : 1;
            if (worst) {
                mark_error(&r->c[v], worst, where);
                continue;
            }
            jobs[nj++] = (job_t){r, v, J_COLL, 0, &r->c[v]};
        }
        measure(jobs, nj);
        return;
    }
    row_prepare(r);
    long hc = r->sec == SEC_HALO && C.halo_compute_us > 0 ? compute_iters(C.halo_compute_us) : 0;
    for (int v = 0; v < NV; v++) {
        if (v < NSHOAL && !C.have[v]) {
            r->c[v].status = ST_NA;
            snprintf(r->c[v].why, sizeof r->c[v].why, "%s", C.why_not[v]);
            continue;
        }
        if (r->npeer) {
            snprintf(where, sizeof where, "%s %s (%zu B), %s", secname[r->sec], r->title, r->msg,
                     vtitle[v]);
            int worst = check_epoch(v, r);
            r->data[v] = worst ? -1 : 1;
            if (worst) {
                mark_error(&r->c[v], worst, where);
                continue;
            }
        }
        jobs[nj++] = (job_t){r, v, J_EPOCH, hc, &r->c[v]};
    }
    /* The copy floor, where every target of the row is mapped on every unit. */
    int all_mapped = r->sec != SEC_OVERLAP && r->npeer > 0, every = 0;
    for (int k = 0; k < r->npeer; k++)
        if (!C.mapped[k]) all_mapped = 0;
    MPI_Allreduce(&all_mapped, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (every) jobs[nj++] = (job_t){r, V_AUTO, J_COPY, 0, &r->copy};
    measure(jobs, nj);
    if (r->sec == SEC_OVERLAP) {
        /* The computation: about t_comm of each variant (its own median), then alone and inside
         * the epoch, interleaved. */
        int n2 = 0;
        job_t j2[MAX_JOBS];
        for (int j = 0; j < nj; j++) {
            int v = jobs[j].v;
            long it = compute_iters(r->c[v].med);
            j2[n2++] = (job_t){r, v, J_COMP, it, &r->comp[v]};
            j2[n2++] = (job_t){r, v, J_EPOCH, it, &r->total[v]};
        }
        measure(j2, n2);
        for (int j = 0; j < nj; j++) {
            int v = jobs[j].v;
            double comm = r->c[v].val, comp = r->comp[v].val, tot = r->total[v].val;
            double o = (comm + comp - tot) / comm;
            r->overlap[v] = 100.0 * (o < 0 ? 0 : o > 1 ? 1 : o);
        }
    }
    shoal_epoch_design_t d = SHOAL_EPOCH_AUTO;
    if (C.have[V_AUTO] && shoal_epoch_get_design(C.alloc[V_AUTO], &d) == SHOAL_OK)
        snprintf(r->auto_design, sizeof r->auto_design, "%s", shoal_epoch_design_name(d));
    else
        snprintf(r->auto_design, sizeof r->auto_design, "?");
}

/* ---- Rows ------------------------------------------------------------------------------------ */
static row_t *add_row(int sec, const char *csvcase, const char *title, size_t msg) {
    if (C.nrows == MAX_ROWS) die("too many rows");
    row_t *r = &C.rows[C.nrows++];
    memset(r, 0, sizeof *r);
    r->sec = sec;
    snprintf(r->csvcase, sizeof r->csvcase, "%s", csvcase);
    snprintf(r->title, sizeof r->title, "%s", title);
    r->msg = msg;
    r->px = (int)C.p;
    r->py = 1;
    r->other_mpi = NAN;
    return r;
}

static void build_rows(void) {
    char t[64], a[32];
    if (C.only[SEC_OVERLAP]) {
        size_t q[] = {1, (size_t)64 << 10, (size_t)1 << 20};
        size_t n = C.quick ? 3 : 0;
        for (size_t s = 1; !C.quick && s <= C.max_size && n < 16; s *= 4) n++;
        for (size_t i = 0; i < n; i++) {
            size_t s = C.quick ? q[i] : (size_t)1 << (2 * i);
            if (s > C.max_size) continue;
            row_t *r = add_row(SEC_OVERLAP, "overlap", bench_fmt_size(s, a, sizeof a), s);
            r->npeer = 1;
            r->dx[0] = 1;
        }
    }
    if (C.only[SEC_FENCE]) {
        add_row(SEC_FENCE, "fence_zero", "no put", 0);
        row_t *r = add_row(SEC_FENCE, "fence_one", "one 16 B put to i+1", 16);
        r->npeer = 1;
        r->dx[0] = 1;
        r = add_row(SEC_FENCE, "fence_eight", "16 B puts to i+-1..4", 16);
        r->npeer = 8;
        for (int k = 0; k < 8; k++) r->dx[k] = (k % 2 ? -1 : 1) * (k / 2 + 1);
        /* an element-wise loop: 64 puts of 8 B to consecutive slots of i+1 (what the deferred
         * design can combine into one MPI call, SHOAL_EPOCH_COMBINE) */
        r = add_row(SEC_FENCE, "fence_many", "64 x 8 B puts to i+1", 8);
        r->npeer = MAX_PEERS;
        for (int k = 0; k < MAX_PEERS; k++) r->dx[k] = 1;
    }
    if (C.only[SEC_HALO]) {
        /* The grid: px the largest divisor of p with px * px <= p. */
        int px = 1;
        for (int d = 1; d * d <= (int)C.p; d++)
            if ((int)C.p % d == 0) px = d;
        static const int hx[8] = {1, -1, 0, 0, 1, -1, 1, -1}, hy[8] = {0, 0, 1, -1, 1, 1, -1, -1};
        size_t full[] = {1024, (size_t)16 << 10, (size_t)128 << 10}, quick[] = {1024};
        size_t *sz = C.quick ? quick : full;
        int ns = C.quick ? 1 : 3;
        for (int nn = 4; nn <= 8; nn += 4)
            for (int i = 0; i < ns; i++) {
                snprintf(t, sizeof t, "%d neighbours, %s", nn, bench_fmt_size(sz[i], a, sizeof a));
                row_t *r = add_row(SEC_HALO, nn == 4 ? "halo4" : "halo8", t, sz[i]);
                r->npeer = nn;
                r->px = px;
                r->py = (int)C.p / px;
                for (int k = 0; k < nn; k++) r->dx[k] = hx[k], r->dy[k] = hy[k];
            }
    }
    if (C.only[SEC_COLL]) {
        add_row(SEC_COLL, "barrier", "barrier", 0)->coll = COLL_BARRIER;
        add_row(SEC_COLL, "allreduce", "allreduce, 8 B (sum of int64)", 8)->coll = COLL_ALLREDUCE;
        add_row(SEC_COLL, "reduce_scatter", "reduce-scatter, one int per unit", sizeof(int))->coll =
            COLL_REDSCAT;
    }
}

static size_t row_bytes(const row_t *r) {
    return r->sec == SEC_COLL ? 0 : (size_t)r->npeer * r->msg;
}

/* ---- Output ---------------------------------------------------------------------------------- */
static double mpi_ref(const row_t *r, int *other) {
    double mine = r->c[V_MPI].status == ST_OK ? r->c[V_MPI].val : NAN;
    *other = 0;
    if (!isnan(r->other_mpi) && r->other_mpi > 0 && (isnan(mine) || r->other_mpi < mine)) {
        *other = 1;
        return r->other_mpi;
    }
    return mine;
}

/* "1.234 (0.45)": time, and over this MPI's fence. */
static const char *cell_text(const row_t *r, const cell_t *c, char *buf, size_t len) {
    char a[32];
    if (c->status == ST_OK) {
        double m = r->c[V_MPI].status == ST_OK ? r->c[V_MPI].val : NAN;
        if (isnan(m) || c == &r->c[V_MPI])
            snprintf(buf, len, "%s", bench_fmt_us(c->val, a, sizeof a));
        else
            snprintf(buf, len, "%s (%.2f)", bench_fmt_us(c->val, a, sizeof a), c->val / m);
    } else if (c->status == ST_ERR || c->status == ST_NA) {
        snprintf(buf, len, "%s", c->why);
    } else {
        snprintf(buf, len, "-");
    }
    return buf;
}

static const char *data_text(const row_t *r) {
    int any = 0;
    for (int v = 0; v < NV; v++) {
        if (r->data[v] < 0) return "WRONG";
        if (r->data[v] > 0) any = 1;
    }
    return any ? "ok" : "n/a";
}

static void print_epoch_table(int sec, const char *head) {
    char b[64];
    int floor = sec != SEC_OVERLAP; /* the copies-alone column */
    printf("| %s |", head);
    for (int v = 0; v < NV; v++) printf(" %s |", vtitle[v]);
    printf("%s auto runs | data |\n|---|", floor ? " copies alone |" : "");
    for (int v = 0; v < NV + floor; v++) printf("---:|");
    printf("---|---|\n");
    for (int i = 0; i < C.nrows; i++) {
        row_t *r = &C.rows[i];
        if (r->sec != sec) continue;
        printf("| %s |", r->title);
        for (int v = 0; v < NV; v++) printf(" %s |", cell_text(r, &r->c[v], b, sizeof b));
        if (floor) printf(" %s |", cell_text(r, &r->copy, b, sizeof b));
        printf(" %s | %s |\n", r->auto_design, data_text(r));
    }
}

static void print_tables(void) {
    char a[32], b[32];
    if (C.only[SEC_OVERLAP]) {
        printf("\n### Figure 6: overlap (%% of the epoch's time that computation between the put "
               "and the fence hides)\n\n");
        printf("Unit i puts m bytes to i+1, computes, fences. Overlap = (t_comm + t_comp - "
               "t_total) / t_comm, clamped to 0-100 %%: t_comm the epoch without computation, "
               "t_comp a computation of about t_comm timed alone, t_total the epoch with it.\n\n");
        printf("| size |");
        for (int v = 0; v < NV; v++) printf(" %s |", vtitle[v]);
        printf("\n|---:|");
        for (int v = 0; v < NV; v++) printf("---:|");
        printf("\n");
        for (int i = 0; i < C.nrows; i++) {
            row_t *r = &C.rows[i];
            if (r->sec != SEC_OVERLAP) continue;
            printf("| %s |", r->title);
            for (int v = 0; v < NV; v++) {
                if (isnan(r->overlap[v]))
                    printf(" %s |", r->c[v].status == ST_OK ? "-" : cell_text(r, &r->c[v], b, 32));
                else
                    printf(" %.0f %% |", r->overlap[v]);
            }
            printf("\n");
        }
        printf("\nt_comm, us per epoch (in brackets: over MPI_Win_fence's):\n\n");
        print_epoch_table(SEC_OVERLAP, "size");
        printf("\nt_total / t_comp, us (the epoch with the computation / the computation "
               "alone):\n\n| size |");
        for (int v = 0; v < NV; v++) printf(" %s |", vtitle[v]);
        printf("\n|---:|");
        for (int v = 0; v < NV; v++) printf("---:|");
        printf("\n");
        for (int i = 0; i < C.nrows; i++) {
            row_t *r = &C.rows[i];
            if (r->sec != SEC_OVERLAP) continue;
            printf("| %s |", r->title);
            for (int v = 0; v < NV; v++) {
                if (r->total[v].status == ST_OK)
                    printf(" %s / %s |", bench_fmt_us(r->total[v].val, a, sizeof a),
                           bench_fmt_us(r->comp[v].val, b, sizeof b));
                else
                    printf(" - |");
            }
            printf("\n");
        }
    }
    if (C.only[SEC_FENCE]) {
        printf("\n### Figures 7-9: fence latency (us per epoch: the puts and the closing fence; "
               "in brackets: over MPI_Win_fence's)\n\n");
        printf("Copies alone: the same bytes memcpy'd into the mapped targets with no "
               "synchronisation (direct path only): the floor under any design.\n\n");
        print_epoch_table(SEC_FENCE, "epoch");
    }
    if (C.only[SEC_HALO]) {
        int px = 1;
        for (int d = 1; d * d <= (int)C.p; d++)
            if ((int)C.p % d == 0) px = d;
        printf("\n### Figure 10: halo exchange (us per iteration: the puts and one fence; in "
               "brackets: over MPI_Win_fence's)\n\n");
        printf("Periodic %d x %d process grid; 4 neighbours: the faces; 8: the faces and the "
               "corners (at small p some are the same unit, or the unit itself); one message of "
               "the size shown to each%s.\n\n",
               px, (int)C.p / px,
               C.halo_compute_us > 0 ? ", and a fixed computation between the puts and the fence"
                                     : "");
        if (C.halo_compute_us > 0)
            printf("Computation per iteration: %.1f us (--halo-compute-us).\n\n",
                   C.halo_compute_us);
        print_epoch_table(SEC_HALO, "halo");
    }
    if (C.only[SEC_COLL]) {
        printf("\n### Table 1: the collectives the designs use (us per call)\n\n");
        printf("| collective | Shoal | Shoal call | MPI | MPI call | Shoal/MPI | data |\n"
               "|---|---:|---|---:|---|---:|---|\n");
        static const char *const scall[] = {"shoal_barrier", "shoal_reduce (1 int64)",
                                            "shoal_reduce (p ints: all the sums on every unit)"};
        static const char *const mcall[] = {"MPI_Barrier", "MPI_Allreduce",
                                            "MPI_Reduce_scatter_block"};
        for (int i = 0; i < C.nrows; i++) {
            row_t *r = &C.rows[i];
            if (r->sec != SEC_COLL) continue;
            cell_t *s = &r->c[V_SHOAL], *m = &r->c[V_MPI];
            printf("| %s | %s | %s | %s | %s | ", r->title,
                   s->status == ST_OK ? bench_fmt_us(s->val, a, sizeof a) : s->why, scall[r->coll],
                   m->status == ST_OK ? bench_fmt_us(m->val, b, sizeof b) : m->why, mcall[r->coll]);
            if (s->status == ST_OK && m->status == ST_OK)
                printf("%.2f |", s->val / m->val);
            else
                printf("- |");
            printf(" %s |\n", data_text(r));
        }
    }
}

/* The fastest Shoal design of row r (not auto), or -1. */
static int best_design(const row_t *r) {
    int best = -1;
    for (int v = 0; v < V_AUTO; v++)
        if (r->c[v].status == ST_OK && (best < 0 || r->c[v].val < r->c[best].val)) best = v;
    return best;
}

static void print_summary(void) {
    char a[32], b[32], line[256];
    char tag[96] = "";
    if (C.p != 2 && C.p != 4) snprintf(tag, sizeof tag, " [%d units: for information]", (int)C.p);
    if (C.p > C.cores)
        snprintf(tag + strlen(tag), sizeof tag - strlen(tag),
                 " [oversubscribed: %d units on %ld "
                 "CPUs]",
                 (int)C.p, C.cores);
    printf("\n### Summary against the targets\n\n");
    if (C.other_mpilib[0])
        printf("Target (1) compares with the faster MPI_Win_fence of this run (%s) and of %s "
               "(--compare).\n\n",
               C.mpilib, C.other_mpilib);
    /* (1) auto <= half the faster MPI's fence: fence rows and halo rows. */
    int n1 = 0, m1 = 0, floor1 = 0;
    char list1[4096] = "";
    for (int i = 0; i < C.nrows; i++) {
        row_t *r = &C.rows[i];
        if (r->sec != SEC_FENCE && r->sec != SEC_HALO) continue;
        int other = 0;
        double m = mpi_ref(r, &other);
        cell_t *c = &r->c[V_AUTO];
        if (c->status != ST_OK || isnan(m)) continue;
        n1++;
        if (c->val <= 0.5 * m) continue;
        m1++;
        /* A miss under the floor: the copies alone take more than half of MPI's epoch. */
        int under = r->copy.status == ST_OK && r->copy.val > 0.5 * m;
        floor1 += under;
        char fl[64] = "";
        if (under)
            snprintf(fl, sizeof fl, "; copies alone %s us, %.2fx",
                     bench_fmt_us(r->copy.val, b, sizeof b), r->copy.val / m);
        snprintf(line, sizeof line, "%s%s %s (%s vs %s us%s, %.2fx%s)", list1[0] ? "; " : "",
                 secname[r->sec], r->title, bench_fmt_us(c->val, a, sizeof a),
                 bench_fmt_us(m, b, sizeof b), other ? " of the other MPI" : "", c->val / m, fl);
        if (strlen(list1) + strlen(line) + 1 < sizeof list1) strcat(list1, line);
    }
    printf("- (1)%s auto at most half the time of the faster MPI's MPI_Win_fence (zero, one and "
           "8-neighbour puts, both halo patterns): %d of %d cases met: %s%s%s\n",
           tag, n1 - m1, n1,
           !n1  ? "not measured"
           : m1 ? "MISSED"
                : "MET",
           m1 ? ". Misses: " : "", list1);
    if (floor1)
        printf("  - %d of the misses are below the copy floor: the same bytes memcpy'd with no "
               "synchronisation at all take more than half of MPI's whole epoch, so no "
               "implementation that moves them can meet the target there.\n",
               floor1);
    /* (2) notify >= 90 % overlap from 64 KiB up. */
    int n2 = 0, m2 = 0;
    char list2[2048] = "";
    for (int i = 0; i < C.nrows; i++) {
        row_t *r = &C.rows[i];
        if (r->sec != SEC_OVERLAP || r->msg < LARGE_MSG || isnan(r->overlap[V_NOTIFY])) continue;
        n2++;
        snprintf(line, sizeof line, "%s%s %.0f %%", list2[0] ? ", " : "", r->title,
                 r->overlap[V_NOTIFY]);
        if (strlen(list2) + strlen(line) + 1 < sizeof list2) strcat(list2, line);
        if (r->overlap[V_NOTIFY] < 90) m2++;
    }
    const char *where = !C.direct && C.progress
                            ? ""
                            : " [stated for the MPI path with the progress thread; this run: "
                              "for information]";
    if (n2) /* not when the overlap sweep did not run */
        printf("- (2)%s%s imm_notify overlap >= 90 %% from 64 KiB up (SHOAL_DIRECT=%d, "
               "SHOAL_PROGRESS_THREAD=%d): %d of %d sizes met: %s. Overlap: %s\n",
               tag, where, C.direct, C.progress, n2 - m2, n2, m2 ? "MISSED" : "MET", list2);
    /* (3) auto within 10 % of the best design, every row with epochs. */
    int n3 = 0, m3 = 0;
    char list3[4096] = "";
    for (int i = 0; i < C.nrows; i++) {
        row_t *r = &C.rows[i];
        if (r->sec == SEC_COLL) continue;
        int bd = best_design(r);
        cell_t *c = &r->c[V_AUTO];
        if (bd < 0 || c->status != ST_OK) continue;
        n3++;
        double best = r->c[bd].val;
        if (c->val <= 1.1 * best) continue;
        m3++;
        int noise = c->q1 <= r->c[bd].q3;
        snprintf(line, sizeof line, "%s%s %s (auto = %s %s us, %s %s us: %.2fx%s)",
                 list3[0] ? "; " : "", secname[r->sec], r->title, r->auto_design,
                 bench_fmt_us(c->val, a, sizeof a), vname[bd], bench_fmt_us(best, b, sizeof b),
                 c->val / best, noise ? ", within noise" : "");
        if (strlen(list3) + strlen(line) + 1 < sizeof list3) strcat(list3, line);
    }
    printf("- (3)%s auto within 10 %% of the best design in every measured case: %d of %d met: "
           "%s%s%s\n",
           tag, n3 - m3, n3,
           !n3  ? "not measured"
           : m3 ? "MISSED"
                : "MET",
           m3 ? ". Misses: " : "", list3);
    printf("- data checked once per row and variant before timing: %s\n",
           C.data_errors ? "WRONG DATA (see the tables and stderr)" : "every check right");
}

static void csv_cell(FILE *f, const row_t *r, int v, const char *variant, const char *design) {
    static const char *const st[] = {"none", "ok", "na", "error"};
    const cell_t *c = &r->c[v];
    double m = r->c[V_MPI].status == ST_OK ? r->c[V_MPI].val : NAN;
    fprintf(f, "%s,%s,%zu,%d,%s,%s,%.6g,%.6g,%.6g,%.6g,%ld,%s,%.6g,%.6g,%.6g,%.6g,%s\n",
            secname[r->sec], r->csvcase, r->msg, r->npeer, variant, design, c->med, c->q1, c->q3,
            c->min, c->iters, st[c->status], c->status == ST_OK && v != V_MPI ? c->val / m : NAN,
            r->overlap[v], r->comp[v].status == ST_OK ? r->comp[v].val : NAN,
            r->total[v].status == ST_OK ? r->total[v].val : NAN,
            r->data[v] < 0   ? "wrong"
            : r->data[v] > 0 ? "ok"
                             : "none");
}

static void write_csv(const char *path) {
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f) {
        fprintf(stderr, "bench_fence: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    if (f == stdout) printf("\n```csv\n");
    fprintf(f, "# bench_fence mpi=%s np=%d direct=%d progress=%d cores=%ld stat=%s cpu=%s\n",
            C.mpilib, (int)C.p, C.direct, C.progress, C.cores, C.use_min ? "min" : "median", C.cpu);
    fprintf(f, "section,case,size_bytes,neighbours,variant,design,median_us,q1_us,q3_us,min_us,"
               "iters,status,ratio_mpi,overlap_pct,comp_us,total_us,data\n");
    static const char *const scall[] = {"shoal_barrier", "shoal_reduce", "shoal_reduce_p_ints"};
    static const char *const mcall[] = {"MPI_Barrier", "MPI_Allreduce", "MPI_Reduce_scatter_block"};
    for (int i = 0; i < C.nrows; i++) {
        const row_t *r = &C.rows[i];
        if (r->sec == SEC_COLL) {
            csv_cell(f, r, V_SHOAL, "shoal", scall[r->coll]);
            csv_cell(f, r, V_MPI, "mpi", mcall[r->coll]);
            continue;
        }
        for (int v = 0; v < NV; v++)
            csv_cell(f, r, v, vname[v],
                     v == V_AUTO  ? r->auto_design
                     : v == V_MPI ? "MPI_Win_fence"
                                  : vname[v]);
        if (r->copy.status == ST_OK) { /* the copy floor, as a variant of its own */
            row_t rc = *r;
            rc.c[V_AUTO] = r->copy;
            rc.overlap[V_AUTO] = NAN;
            rc.comp[V_AUTO].status = rc.total[V_AUTO].status = ST_NONE;
            rc.data[V_AUTO] = 0;
            csv_cell(f, &rc, V_AUTO, "copies", "memcpy");
        }
    }
    if (f == stdout)
        printf("```\n");
    else
        fclose(f);
}

/* Another run's CSV: its MPI figures, by section, case and size. */
static void read_compare(const char *path) {
    if (!path) return;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (C.me == 0) fprintf(stderr, "bench_fence: cannot read %s\n", path);
        return;
    }
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            char *m = strstr(line, "mpi="), *e = m ? strstr(m, " np=") : NULL;
            if (m && e)
                snprintf(C.other_mpilib, sizeof C.other_mpilib, "%.*s", (int)(e - m - 4), m + 4);
            continue;
        }
        char sec[16], cs[24], var[16], st[8];
        size_t s;
        double med, mn;
        if (sscanf(line, "%15[^,],%23[^,],%zu,%*d,%15[^,],%*[^,],%lf,%*[^,],%*[^,],%lf,%*d,%7[^,]",
                   sec, cs, &s, var, &med, &mn, st) != 7 ||
            strcmp(var, "mpi") || strcmp(st, "ok"))
            continue;
        for (int i = 0; i < C.nrows; i++) {
            row_t *r = &C.rows[i];
            if (!strcmp(sec, secname[r->sec]) && !strcmp(cs, r->csvcase) && s == r->msg)
                r->other_mpi = C.use_min ? mn : med;
        }
    }
    fclose(f);
    if (!C.other_mpilib[0]) snprintf(C.other_mpilib, sizeof C.other_mpilib, "%s", path);
}

static void usage(void) {
    fprintf(stderr, "usage: bench_fence [--quick] [--csv FILE|-] [--compare FILE] [--batches N] "
                    "[--batch-us T] [--stat median|min] [--budget SECONDS] [--max-size SIZE] "
                    "[--only overlap,fence,halo,coll] [--halo-compute-us T]\n");
}

int main(int argc, char **argv) {
    const char *csv = NULL, *compare = NULL, *only = NULL;
    int batches = -1;
    double batch_us = -1, budget = -1;
    C.max_size = (size_t)4 << 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            C.quick = 1;
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv = argv[++i];
        else if (!strcmp(argv[i], "--compare") && i + 1 < argc)
            compare = argv[++i];
        else if (!strcmp(argv[i], "--batches") && i + 1 < argc)
            batches = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--batch-us") && i + 1 < argc)
            batch_us = atof(argv[++i]);
        else if (!strcmp(argv[i], "--budget") && i + 1 < argc)
            budget = atof(argv[++i]);
        else if (!strcmp(argv[i], "--halo-compute-us") && i + 1 < argc)
            C.halo_compute_us = atof(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--max-size") && i + 1 < argc) {
            if (bench_parse_size(argv[++i], &C.max_size) || C.max_size == 0) {
                usage();
                return 2;
            }
        } else if (!strcmp(argv[i], "--stat") && i + 1 < argc) {
            const char *st = argv[++i];
            if (strcmp(st, "median") && strcmp(st, "min")) {
                usage();
                return 2;
            }
            C.use_min = !strcmp(st, "min");
        } else {
            usage();
            return 2;
        }
    }
    for (int s = 0; s < NSEC; s++) C.only[s] = only == NULL;
    if (only) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", only);
        for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
            int found = 0;
            for (int s = 0; s < NSEC; s++)
                if (!strcmp(t, secname[s])) C.only[s] = found = 1;
            if (!found) {
                usage();
                return 2;
            }
        }
    }
    C.batches = batches > 0 ? batches : C.quick ? 3 : 11;
    if (C.batches > MAX_BATCHES) C.batches = MAX_BATCHES;
    C.batch_ns = 1e3 * (batch_us > 0 ? batch_us : C.quick ? 200 : 2000);
    C.budget_s = budget > 0 ? budget : C.quick ? 60 : 150;

    if (shoal_init(&argc, &argv) != SHOAL_OK) {
        fprintf(stderr, "bench_fence: shoal_init failed\n");
        return 1;
    }
    shoal_myid(&C.me);
    shoal_size(&C.p);
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != (int)C.me) die("Shoal's unit ids are not MPI_COMM_WORLD's ranks");
    C.cores = sysconf(_SC_NPROCESSORS_ONLN);
    C.direct = config_int("SHOAL_DIRECT", 1) != 0;
    C.progress = config_int("SHOAL_PROGRESS_THREAD", 0) != 0;
    bench_cpu_model(C.cpu, sizeof C.cpu);
    bench_squeeze_blanks(shoal_mpi_library(), 1, C.mpilib, sizeof C.mpilib);

    build_rows();
    read_compare(compare);
    C.bufbytes = 4096;
    for (int i = 0; i < C.nrows; i++)
        if (row_bytes(&C.rows[i]) > C.bufbytes) C.bufbytes = row_bytes(&C.rows[i]);

    /* Memory: the put sources, an allocation per design, the MPI window. */
    if (posix_memalign((void **)&C.src, 4096, C.bufbytes)) die("out of memory");
    memset(C.src, 0, C.bufbytes);
    for (int v = 0; v < NSHOAL; v++) {
        if (shoal_team_memalloc(SHOAL_TEAM_ALL, C.bufbytes, &C.alloc[v]) != SHOAL_OK)
            die("shoal_team_memalloc failed");
        if (shoal_gptr_getaddr(C.alloc[v], (void **)&C.local[v]) != SHOAL_OK || !C.local[v])
            die("my own part of an allocation is not mapped");
        memset(C.local[v], 0, C.bufbytes);
        /* Collective and agreed: every unit gets the same answer. */
        shoal_err_t e = shoal_epoch_set_design(C.alloc[v], vdesign[v]);
        if (e == SHOAL_OK) e = shoal_epoch_fence(C.alloc[v], 0); /* opens the first epoch */
        C.have[v] = e == SHOAL_OK;
        if (e != SHOAL_OK) {
            snprintf(C.why_not[v], sizeof C.why_not[v], "n/a: %s", shoal_strerror(e));
            C.call_errors++;
        }
    }
    MPI_Win_allocate((MPI_Aint)C.bufbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &C.winbase, &C.win);
    memset(C.winbase, 0, C.bufbytes);
    MPI_Win_fence(0, C.win);
    size_t cbytes = (size_t)C.p * sizeof(int64_t) < 4096 ? 4096 : (size_t)C.p * sizeof(int64_t);
    if (shoal_team_memalloc(SHOAL_TEAM_ALL, cbytes, &C.csrc) != SHOAL_OK ||
        shoal_team_memalloc(SHOAL_TEAM_ALL, cbytes, &C.cdst) != SHOAL_OK)
        die("shoal_team_memalloc failed");
    c_mpi_src = calloc((size_t)C.p + 1, sizeof(int64_t));
    c_mpi_dst = calloc((size_t)C.p + 1, sizeof(int64_t));
    if (!c_mpi_src || !c_mpi_dst) die("out of memory");
    calibrate_compute();

    C.t_start = bench_now_ns();
    if (C.me == 0) {
        int over = C.p > C.cores;
        shoal_mechanism_t mech = SHOAL_MECH_SELF;
        if (C.p > 1) shoal_peer_mechanism((C.me + 1) % C.p, &mech);
        shoal_epoch_design_t ad = SHOAL_EPOCH_AUTO;
        if (C.have[V_AUTO]) shoal_epoch_get_design(C.alloc[V_AUTO], &ad);
        printf("## bench_fence: %s, %d units%s, SHOAL_DIRECT=%d%s\n\n", C.mpilib, (int)C.p,
               over ? " (OVERSUBSCRIBED)" : "", C.direct, C.progress ? ", progress thread" : "");
        printf("- CPU: %s; %d units on %ld online CPUs%s\n", C.cpu, (int)C.p, C.cores,
               over ? ": OVERSUBSCRIBED (more processes than cores; figures are dominated by "
                      "scheduling)"
                    : "");
        printf("- MPI library: %s\n", C.mpilib);
#ifdef OMPI_MAJOR_VERSION
        const char *osc = getenv("OMPI_MCA_osc");
        printf("- Open MPI one-sided components: OMPI_MCA_osc=%s (the MPI_Win_fence figures are "
               "those of the component it picks for an MPI_Win_allocate window)\n",
               osc ? osc : "(unset: Open MPI's default)");
#endif
        const char *copy = getenv("SHOAL_EPOCH_COPY_THREAD");
        printf("- SHOAL_DIRECT=%d (%s); Shoal's mechanism to unit %d: %s; "
               "SHOAL_PROGRESS_THREAD=%d; SHOAL_EPOCH_COPY_THREAD=%s\n",
               C.direct, C.direct ? "direct path on: shared memory" : "direct path off: MPI RMA",
               (int)((C.me + 1) % C.p), shoal_mechanism_name(mech), C.progress,
               copy && *copy ? copy : "0 (off)");
        printf("- Shoal: shoal_put_nb into a shoal_team_memalloc allocation per design "
               "(shoal_epoch_set_design), closed by shoal_epoch_fence(alloc, 0); auto resolved to "
               "%s here. MPI: the same MPI_Put calls on an MPI_Win_allocate window, closed by "
               "MPI_Win_fence(0, win)\n",
               C.have[V_AUTO] ? shoal_epoch_design_name(ad) : "(auto refused)");
        printf("- each figure: us per epoch (per call in table 1), the %s over %d interleaved "
               "batches of ~%.0f us, each batch started by MPI_Barrier, the slowest unit's time "
               "per epoch (batch size calibrated per variant after a warm-up, up to %d)%s\n",
               C.use_min ? "MINIMUM (--stat min)" : "median", C.batches, C.batch_ns / 1e3,
               MAX_ITERS, C.quick ? "; --quick run" : "");
        printf("- in brackets: the time over this MPI's MPI_Win_fence (below 1: Shoal faster)\n");
        printf("- every row's data checked once per variant before timing (pattern put, "
               "compared at the target after the fence); a wrong variant is not timed\n");
        printf("- computation: %.3f loop iterations per ns on unit 0\n", C.rate);
        printf("- load average at start: %.2f\n", bench_loadavg());
        fflush(stdout);
    }
    for (int i = 0; i < C.nrows; i++) {
        int over = (bench_now_ns() - C.t_start) / 1e9 > C.budget_s;
        MPI_Bcast(&over, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (over) C.over_budget = 1;
        measure_row(&C.rows[i]);
    }
    int nonnull = 0;
    MPI_Allreduce(&C.nonnull_handles, &nonnull, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int status = C.data_errors || C.call_errors || nonnull ? 1 : 0;
    if (C.me == 0) {
        print_tables();
        print_summary();
        if (C.data_errors || C.call_errors)
            printf("\n%d variants with wrong data and %d failed calls (see stderr)\n",
                   C.data_errors, C.call_errors);
        if (nonnull)
            printf("\n%d shoal_put_nb calls inside an epoch returned a handle (shoal.h: they give "
                   "SHOAL_HANDLE_NULL)\n",
                   nonnull);
        printf("\nLoad average at the end: %.2f.\n", bench_loadavg());
        if (C.over_budget)
            printf("\nThe run went over its %.0f s budget (a busy machine?): later rows were "
                   "measured with 3 batches only.\n",
                   C.budget_s);
        printf("\nbench_fence: finished in %.1f s%s\n", (bench_now_ns() - C.t_start) / 1e9,
               status ? " WITH ERRORS" : "");
        fflush(stdout);
        if (csv) write_csv(csv);
        fflush(stdout);
    }
    for (int v = 0; v < NSHOAL; v++) {
        if (C.have[v]) shoal_epoch_fence(C.alloc[v], SHOAL_EPOCH_NOSUCCEED);
        shoal_team_memfree(C.alloc[v]);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, C.win);
    MPI_Win_free(&C.win);
    shoal_team_memfree(C.cdst);
    shoal_team_memfree(C.csrc);
    free(c_mpi_src);
    free(c_mpi_dst);
    free(C.src);
    shoal_finalize();
    return status;
}
