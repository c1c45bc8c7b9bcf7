/* bench_rma_bcast: the one-sided broadcast (shoal_rma_bcast: only the root calls) against MPI_Bcast
 * and Shoal's synchronised shoal_broadcast, in one run: the RMA broadcast paper's figures 13-16
 * (../shared/seeds/000_eaf25583d401ea87.txt, section 4; issue 7, Benchmark and Model).
 *
 * One row per message size (8 B .. 4 MiB; root 0; every member of SHOAL_TEAM_ALL). Variants, timed
 * interleaved batch by batch:
 *   - linear and binomial: shoal_rma_bcast(..., SHOAL_RMA_BCAST_LINEAR / _BINOMIAL) from the root's
 *     own part of a registered allocation (so the root copies nothing locally), then
 *     shoal_rma_bcast_wait. Two figures each: root-busy (until shoal_rma_bcast returns) and
 *     completion (until shoal_rma_bcast_wait returns: the done counter is full). Non-roots call
 *     nothing while the root's batch runs: they wait for its end on a local word, yielding the
 *     core to their relay thread.
 *   - shoal_broadcast (every member calls; in place) and MPI_Bcast (the same MPI, MPI_COMM_WORLD,
 *     initialised with MPI_THREAD_MULTIPLE when it gives it: its figures carry that locking).
 *   - puts: the root's ceil(log2 p) blocking shoal_put of the same size to its binomial children
 *     (the floor of the binomial root's busy time), and memcpy: one local copy of the size (the
 *     floor of a relay hop on the direct path).
 * Each figure is the median (or with --stat min the fastest) over interleaved batches of the
 * per-call time; collective variants take the slowest unit's time per batch, one-sided ones the
 * root's. Before a variant of a row is timed its data is checked once at every member (a fresh
 * pattern; non-roots' parts first set to its complement; one-sided: after shoal_rma_bcast_wait
 * and shoal_rma_bcast_wait_arrival); a variant that fails is not timed and the exit status is 1.
 * Ratios in every row: binomial busy / puts, the faster one-sided completion over shoal_broadcast
 * and over MPI_Bcast, and the relay hop over the copy: (binomial completion - K memcpy) / K with
 * K = ceil(log2 p) (the tree's depth along the root's sequential puts).
 *
 * Then: the relay threads' CPU while idle (each unit's relay thread found as the thread
 * shoal_rma_bcast_enable started, its /proc/self/task/TID/schedstat run time over an idle period
 * after a burst of broadcasts), and the cost to non-roots: a fixed compute loop on every non-root,
 * timed while the root broadcasts back to back and while it does not (interleaved repetitions,
 * medians): the slowdown.
 *
 * --loggp: instead, measure the LogGP parameters of this path (tools/loggp/README.md) between units
 * 0 and 1: o (one shoal_put_nb call of 8 B), g (per put of a long run of 8 B puts, completed), G
 * (per byte: blocking puts of 1 and 4 MiB; G_big the same with 16 and 32 MiB, which stream through
 * memory, from big_from = a quarter of the last-level cache), L (half a ping-pong of signals,
 * minus o), a (a blocking
 * fetch-add), o_r (the relay's request-wait overhead, from binomial broadcasts of 8 B at 2 units,
 * relay hot and asleep), and the same with raw MPI_Put / MPI_Fetch_and_op on an MPI_Win_allocate
 * window; printed as "loggp: key=value ..." lines (tools/loggp/loggp.py reads them).
 *
 * Options: --quick (few sizes, short batches: a smoke test), --csv FILE (raw numbers; "-" for
 *          stdout), --compare FILE (another MPI's --csv at the same units and path: the MPI_Bcast
 *          target then uses the faster MPI), --batches N, --batch-us T, --stat median|min,
 *          --budget S (seconds; past it the remaining rows get 3 batches), --sizes pow2|pow4|LIST
 *          (default pow2), --max-size SIZE, --idle-s S (idle period, default 1), --compute-ms T
 *          (non-roots' compute loop, default 200), --slow-size SIZE (broadcast size while they
 *          compute, default 256 KiB), --pin (unit u and its relay thread on CPU u mod CPUs),
 *          --loggp.
 * Exit status: 0 when it ran (no performance target fails it); 1 when a call returned an error
 * or a broadcast delivered wrong data; 2 on bad usage. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "shoal.h"

/* libshoal's reduction kernel (src/coll/reduce_ops.c), built into this program a second time
 * under this name (bench/CMakeLists.txt), so that reduce_fresh times the library's own loop. */
void bench_reduce_kernel(void *inout, const void *in, size_t n, shoal_type_t type,
                         shoal_red_op_t op);

#define MAX_BATCHES 51
#define MAX_ITERS   100000
#define MAX_SIZES   32
#define MAX_RELAYS  8
#define LARGE_MSG   ((size_t)64 << 10) /* the completion targets apply from here */
#define CTL_BYTES   4096

/* ---- Variants -------------------------------------------------------------------------------- */
enum { V_LIN, V_BIN, V_SYNC, V_MPI, V_PUTS, V_COPY, NV };
static const char *const vname[NV] = {"linear",    "binomial", "shoal_broadcast",
                                      "mpi_bcast", "puts",     "memcpy"};
static int one_sided(int v) {
    return v == V_LIN || v == V_BIN || v == V_PUTS || v == V_COPY;
}

enum { ST_NONE = 0, ST_OK, ST_NA, ST_ERR };
typedef struct {
    int status;
    double med, q1, q3, min, val; /* us per call */
    long iters;
    char why[64];
} cell_t;

typedef struct {
    size_t m;
    cell_t c[NV];    /* completion (per call) */
    cell_t busy[NV]; /* linear, binomial: root-busy */
    int data[NV];    /* 0 not checked, 1 right, -1 wrong */
    double other_mpi;
    cell_t pre[2]; /* MPI path: shoal_broadcast, MPI_Bcast before registration (no relay polls) */
} row_t;

/* Control words in my part of the ctl allocation. */
#define W_BATCH 0  /* set by the root: batch number that ended */
#define W_COUNT 8  /* at the root: non-roots that finished their compute loop */
#define W_PING  16 /* --loggp ping-pong */

typedef struct {
    int quick, batches, use_min, loggp, pin;
    double batch_ns, budget_s, t_start, idle_s, compute_ms;
    int over_budget;
    size_t max_size, slow_size;
    const char *sizes_spec;
    shoal_unit_t me;
    int32_t p;
    long cores;
    int direct, provided;
    char cpu[128], mpilib[96], path[16];
    size_t sizes[MAX_SIZES];
    int nsizes;
    row_t rows[MAX_SIZES];
    size_t bufbytes;
    /* memory */
    shoal_gptr_t rb, sync, ctl;
    char *rb_local, *sync_local, *mpibuf, *expect, *copy_src, *copy_dst;
    uint64_t *ctl_local;
    int rb_ok;
    char rb_why[64], rb_reason[160]; /* the cells' "n/a", and why (header, summary) */
    int32_t children[32];
    int nchild, depth;
    uint64_t batch_seq, count_seen;
    unsigned stamp;
    /* relay threads */
    pid_t relay_tid[MAX_RELAYS];
    int nrelay;
    double idle_pct, idle_proc_pct; /* this unit's */
    double idle_all[64], idle_proc_all[64];
    int idle_done;
    /* compute */
    double rate;
    double slow[2], slow_mean[2], bcast_rate[2]; /* per algorithm: max, mean over non-roots */
    int slow_done[2];
    int data_errors, call_errors;
    char other_mpilib[96];
} ctx_t;
static ctx_t C;

static void die(const char *msg) {
    fprintf(stderr, "bench_rma_bcast: unit %d: %s\n", (int)C.me, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void ok_or_die(shoal_err_t e, const char *what) {
    if (e != SHOAL_OK) {
        char b[160];
        snprintf(b, sizeof b, "%s failed: %s", what, shoal_strerror(e));
        die(b);
    }
}

/* The value in force of a configuration variable, copied into buf ("?" when not found). */
static const char *config_str(const char *name, char *buf, size_t len) {
    shoal_config_var_t cv;
    snprintf(buf, len, "?");
    for (int i = 0; i < shoal_config_count(); i++)
        if (shoal_config_var(i, &cv) == SHOAL_OK && !strcmp(cv.name, name)) {
            snprintf(buf, len, "%s", cv.value);
            break;
        }
    return buf;
}

/* ---- Waiting, signalling --------------------------------------------------------------------- */
/* Waits until my control word w reaches v without taking the core or MPI's locks from my relay
 * thread (the way a member that computes leaves them): a short spin, then 20 us sleeps. Only when
 * no relay thread drives MPI progress here (no registration) do I poll MPI now and then, for the
 * root's signal on the MPI path. */
static void wait_word(size_t w, uint64_t v) {
    volatile uint64_t *word = (volatile uint64_t *)((char *)C.ctl_local + w);
    for (unsigned polls = 0; __atomic_load_n(word, __ATOMIC_ACQUIRE) < v; polls++) {
        if (polls < bench_spin_limit()) {
            bench_cpu_relax();
            continue;
        }
        usleep(20);
        if (!C.rb_ok && polls % 16 == 0) {
            int flag;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        }
    }
}

/* The same, polling MPI all the time: for --loggp's point-to-point figures, which are the
 * transport's, not those of a target that leaves MPI progress to others. It also reads the word
 * --loggp's fetch-adds go to (W_AMO), as a relay polls its request word and a root its DONE: a
 * control atomic then pays for the cache line coming back, as in a broadcast. */
#define W_AMO 64
static void wait_word_progress(size_t w, uint64_t v) {
    volatile uint64_t *word = (volatile uint64_t *)((char *)C.ctl_local + w);
    volatile uint64_t *amo = (volatile uint64_t *)((char *)C.ctl_local + W_AMO);
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < v) {
        (void)__atomic_load_n(amo, __ATOMIC_ACQUIRE);
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        bench_cpu_relax();
    }
}

/* The root ends a one-sided batch: every non-root's W_BATCH = ++batch_seq (all units count). */
static void batch_end_how(int progress) {
    C.batch_seq++;
    if (C.me == 0) {
        for (int32_t r = 1; r < C.p; r++)
            ok_or_die(shoal_signal(shoal_gptr_add(shoal_gptr_setunit(C.ctl, r), W_BATCH),
                                   C.batch_seq, SHOAL_SIGNAL_SET),
                      "shoal_signal");
    } else if (progress) {
        wait_word_progress(W_BATCH, C.batch_seq);
    } else {
        wait_word(W_BATCH, C.batch_seq);
    }
}

static void batch_end(void) {
    batch_end_how(0);
}

/* ---- Relay threads: the threads shoal_rma_bcast_enable started --------------------------------
 */
static int list_tasks(pid_t *out, int max) {
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d)) && n < max;)
        if (e->d_name[0] != '.') out[n++] = (pid_t)atoi(e->d_name);
    closedir(d);
    return n;
}

/* CPU time of thread tid in ns (schedstat; else utime + stime from stat), or -1. */
static double thread_cpu_ns(pid_t tid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)tid);
    FILE *f = fopen(path, "r");
    if (f) {
        unsigned long long run = 0;
        int ok = fscanf(f, "%llu", &run) == 1;
        fclose(f);
        if (ok) return (double)run;
    }
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    f = fopen(path, "r");
    if (!f) return -1;
    char line[1024];
    double ns = -1;
    if (fgets(line, sizeof line, f)) {
        char *rp = strrchr(line, ')'); /* the name may hold blanks */
        unsigned long ut = 0, st = 0;
        if (rp &&
            sscanf(rp + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
            ns = (double)(ut + st) * 1e9 / (double)sysconf(_SC_CLK_TCK);
    }
    fclose(f);
    return ns;
}

static double relay_cpu_ns(void) {
    double s = 0;
    for (int i = 0; i < C.nrelay; i++) {
        double t = thread_cpu_ns(C.relay_tid[i]);
        if (t >= 0) s += t;
    }
    return s;
}

static double process_cpu_ns(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

/* ---- The computation ------------------------------------------------------------------------- */
static volatile double compute_sink;

static void compute(long iters) {
    double x = compute_sink + 1.0;
    for (long i = 0; i < iters; i++) x = x * 0.9999999 + 1e-7;
    compute_sink = x;
}

static void calibrate_compute(void) {
    long n = 1 << 16;
    double best = INFINITY;
    for (int i = 0; i < (C.quick ? 5 : 15); i++) {
        double t0 = bench_now_ns();
        compute(n);
        double t = bench_now_ns() - t0;
        if (t < 2e5 && i == 0) n *= 4;
        if (i > 0 && t / (double)n < best) best = t / (double)n;
    }
    C.rate = 1.0 / best;
}

/* ---- Data patterns and checks ---------------------------------------------------------------- */
static void make_expect(size_t m) {
    C.stamp++;
    uint32_t x = C.stamp * 2654435761u + 12345u;
    for (size_t i = 0; i < m; i++) {
        x = x * 1103515245u + 12345u;
        C.expect[i] = (char)(x >> 24);
    }
}

static void poison(char *buf, size_t m) {
    for (size_t i = 0; i < m; i++) buf[i] = (char)~C.expect[i];
}

/* 0 right, 1 wrong data, 2 a call failed; the worst over every unit. */
static int agree_worst(int rc) {
    int worst = 0;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static int check_variant(int v, size_t m) {
    make_expect(m);
    int rc = 0, me = (int)C.me;
    char *where = v == V_SYNC ? C.sync_local : v == V_MPI ? C.mpibuf : C.rb_local;
    if (v == V_COPY) {
        memcpy(C.copy_src, C.expect, m);
        poison(C.copy_dst, m);
        memcpy(C.copy_dst, C.copy_src, m);
        rc = memcmp(C.copy_dst, C.expect, m) ? 1 : 0;
        return agree_worst(rc);
    }
    if (me == 0)
        memcpy(where, C.expect, m);
    else
        poison(where, m);
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t seq = 0;
    if (v == V_LIN || v == V_BIN) {
        if (me == 0) {
            shoal_rma_bcast_t req = SHOAL_RMA_BCAST_NULL;
            if (shoal_rma_bcast(C.rb, C.rb_local, m,
                                v == V_LIN ? SHOAL_RMA_BCAST_LINEAR : SHOAL_RMA_BCAST_BINOMIAL,
                                &req, &seq) != SHOAL_OK ||
                shoal_rma_bcast_wait(&req) != SHOAL_OK)
                rc = 2;
        }
        batch_end();
        MPI_Bcast(&seq, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        if (!rc && shoal_rma_bcast_wait_arrival(C.rb, seq) != SHOAL_OK) rc = 2;
    } else if (v == V_PUTS) {
        if (me == 0)
            for (int k = 0; k < C.nchild && !rc; k++)
                if (shoal_put(shoal_gptr_setunit(C.rb, C.children[k]), C.rb_local, m) != SHOAL_OK)
                    rc = 2;
        batch_end();
        int child = me == 0;
        for (int k = 0; k < C.nchild; k++)
            if (C.children[k] == me) child = 1;
        if (!child) return agree_worst(rc); /* not written: nothing to compare */
    } else if (v == V_SYNC) {
        if (shoal_broadcast(SHOAL_TEAM_ALL, C.sync, C.sync, m, 0) != SHOAL_OK) rc = 2;
    } else {
        if (MPI_Bcast(C.mpibuf, (int)m, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) rc = 2;
    }
    if (!rc && memcmp(where, C.expect, m)) {
        size_t i = 0;
        while (i < m && where[i] == C.expect[i]) i++;
        fprintf(stderr, "bench_rma_bcast: unit %d: %s of %zu B: wrong data from byte %zu\n", me,
                vname[v], m, i);
        rc = 1;
    }
    return agree_worst(rc);
}

/* ---- Timing ---------------------------------------------------------------------------------- */
/* n calls of variant v with m bytes; the local elapsed ns (0 on non-roots for one-sided variants:
 * the root's time is the figure), *busy_ns the root's time inside shoal_rma_bcast. */
static double run_job(int v, size_t m, long n, double *busy_ns) {
    double t0 = bench_now_ns(), busy = 0, t = 0;
    if (one_sided(v) && C.me != 0) {
        batch_end();
        *busy_ns = 0;
        return 0;
    }
    for (long i = 0; i < n; i++) {
        switch (v) {
        case V_LIN:
        case V_BIN: {
            shoal_rma_bcast_t req = SHOAL_RMA_BCAST_NULL;
            double a = bench_now_ns();
            shoal_err_t e = shoal_rma_bcast(
                C.rb, C.rb_local, m, v == V_LIN ? SHOAL_RMA_BCAST_LINEAR : SHOAL_RMA_BCAST_BINOMIAL,
                &req, NULL);
            busy += bench_now_ns() - a;
            if (e == SHOAL_OK) e = shoal_rma_bcast_wait(&req);
            ok_or_die(e, "shoal_rma_bcast");
            break;
        }
        case V_PUTS:
            for (int k = 0; k < C.nchild; k++)
                ok_or_die(shoal_put(shoal_gptr_setunit(C.rb, C.children[k]), C.rb_local, m),
                          "shoal_put");
            break;
        case V_COPY:
            memcpy(C.copy_dst, C.copy_src, m);
            __asm__ __volatile__("" ::: "memory");
            break;
        case V_SYNC:
            ok_or_die(shoal_broadcast(SHOAL_TEAM_ALL, C.sync, C.sync, m, 0), "shoal_broadcast");
            break;
        case V_MPI:
            if (MPI_Bcast(C.mpibuf, (int)m, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
                die("MPI_Bcast failed");
            break;
        }
    }
    t = bench_now_ns() - t0;
    if (one_sided(v)) batch_end();
    *busy_ns = busy;
    return t;
}

typedef struct {
    int v;
    size_t m;
    cell_t *out, *busy;
} job_t;

static void fill_cell(cell_t *c, double *v, int nb) {
    c->q1 = bench_quantile(v, nb, 0.25);
    c->med = bench_quantile(v, nb, 0.5);
    c->min = v[0];
    c->q3 = bench_quantile(v, nb, 0.75);
    c->val = C.use_min ? c->min : c->med;
    c->status = ST_OK;
}

/* Warm-up, batch sizes, then interleaved batches of every job (all units pass the same jobs). */
static void measure(job_t *jobs, int nj) {
    long iters[NV];
    double busy;
    for (int j = 0; j < nj; j++) {
        MPI_Barrier(MPI_COMM_WORLD);
        run_job(jobs[j].v, jobs[j].m, 3, &busy);
        double per_best = INFINITY;
        for (int attempt = 0; attempt < 3; attempt++) {
            long n = 1;
            for (;;) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t = run_job(jobs[j].v, jobs[j].m, n, &busy), tmax = 0;
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
        jobs[j].out->iters = iters[j];
        if (jobs[j].busy) jobs[j].busy->iters = iters[j];
    }
    int nb = C.batches;
    if (C.over_budget && nb > 3) nb = 3;
    static double tl[2 * MAX_BATCHES * NV], tg[2 * MAX_BATCHES * NV];
    memset(tl, 0, sizeof tl);
    uint64_t rng = 0x9E3779B97F4A7C15ULL ^ (uint64_t)nj;
    int order[NV];
    for (int b = 0; b < nb; b++)
        for (int jj = 0; jj < nj; jj++) {
            if (jj == 0)
                bench_shuffle(order, nj, &rng); /* a new order each batch, same everywhere */
            int j = order[jj];
            MPI_Barrier(MPI_COMM_WORLD);
            double t = run_job(jobs[j].v, jobs[j].m, iters[j], &busy);
            tl[b * NV + j] = t / (double)iters[j];
            tl[(MAX_BATCHES + b) * NV + j] = busy / (double)iters[j];
        }
    MPI_Allreduce(tl, tg, 2 * MAX_BATCHES * NV, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int j = 0; j < nj; j++) {
        double v[MAX_BATCHES];
        for (int b = 0; b < nb; b++) v[b] = tg[b * NV + j] / 1e3;
        fill_cell(jobs[j].out, v, nb);
        if (jobs[j].busy) {
            for (int b = 0; b < nb; b++) v[b] = tg[(MAX_BATCHES + b) * NV + j] / 1e3;
            fill_cell(jobs[j].busy, v, nb);
        }
    }
}

/* On the MPI path the relay threads poll MPI beside the program (MPI_THREAD_MULTIPLE): the
 * collectives are also timed before registration, and the targets use the faster figure. */
static void measure_pre_row(row_t *r) {
    job_t jobs[2];
    int nj = 0, vs[2] = {V_SYNC, V_MPI};
    for (int k = 0; k < 2; k++) {
        r->pre[k].med = r->pre[k].val = NAN;
        int worst = check_variant(vs[k], r->m);
        if (worst) {
            r->pre[k].status = ST_ERR;
            snprintf(r->pre[k].why, sizeof r->pre[k].why, "%s",
                     worst == 1 ? "WRONG DATA" : "call failed");
            if (worst == 1)
                C.data_errors++;
            else
                C.call_errors++;
            continue;
        }
        jobs[nj++] = (job_t){vs[k], r->m, &r->pre[k], NULL};
    }
    measure(jobs, nj);
}

static void measure_row(row_t *r) {
    job_t jobs[NV];
    int nj = 0;
    for (int v = 0; v < NV; v++) {
        r->c[v].med = r->c[v].val = r->busy[v].med = r->busy[v].val = NAN;
        if ((v == V_LIN || v == V_BIN || v == V_PUTS) && !C.rb_ok) {
            r->c[v].status = r->busy[v].status = ST_NA;
            snprintf(r->c[v].why, sizeof r->c[v].why, "%s", C.rb_why);
            snprintf(r->busy[v].why, sizeof r->busy[v].why, "%s", C.rb_why);
            continue;
        }
        if (v == V_PUTS && C.nchild == 0) {
            r->c[v].status = ST_NA;
            snprintf(r->c[v].why, sizeof r->c[v].why, "n/a (1 unit)");
            continue;
        }
        int worst = check_variant(v, r->m);
        r->data[v] = worst ? -1 : 1;
        if (worst) {
            r->c[v].status = ST_ERR;
            snprintf(r->c[v].why, sizeof r->c[v].why, "%s",
                     worst == 1 ? "WRONG DATA" : "call failed");
            if (worst == 1)
                C.data_errors++;
            else
                C.call_errors++;
            if (C.me == 0)
                fprintf(stderr, "bench_rma_bcast: %s, %zu B: %s\n", vname[v], r->m, r->c[v].why);
            continue;
        }
        jobs[nj++] = (job_t){v, r->m, &r->c[v], v == V_LIN || v == V_BIN ? &r->busy[v] : NULL};
    }
    measure(jobs, nj);
}

/* ---- Relay idle CPU and the cost to non-roots ------------------------------------------------ */
static void measure_idle(void) {
    if (!C.rb_ok || C.p < 2) return;
    /* A burst first, so the relays go through their spin and fall asleep within the period. */
    if (C.me == 0)
        for (int i = 0; i < 10; i++) {
            shoal_rma_bcast_t req = SHOAL_RMA_BCAST_NULL;
            ok_or_die(shoal_rma_bcast(C.rb, C.rb_local, 64, SHOAL_RMA_BCAST_BINOMIAL, &req, NULL),
                      "shoal_rma_bcast");
            ok_or_die(shoal_rma_bcast_wait(&req), "shoal_rma_bcast_wait");
        }
    batch_end();
    MPI_Barrier(MPI_COMM_WORLD);
    double c0 = relay_cpu_ns(), p0 = process_cpu_ns(), w0 = bench_now_ns();
    struct timespec ts = {(time_t)C.idle_s, (long)((C.idle_s - (double)(time_t)C.idle_s) * 1e9)};
    while (nanosleep(&ts, &ts) && errno == EINTR) {
    }
    double c1 = relay_cpu_ns(), p1 = process_cpu_ns(), w1 = bench_now_ns();
    C.idle_pct = C.nrelay ? 100.0 * (c1 - c0) / (w1 - w0) : NAN;
    C.idle_proc_pct = 100.0 * (p1 - p0) / (w1 - w0);
    int n = C.p < 64 ? (int)C.p : 64;
    double mine[2] = {C.idle_pct, C.idle_proc_pct}, all[128];
    MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (C.me == 0)
        for (int i = 0; i < n; i++) C.idle_all[i] = all[2 * i], C.idle_proc_all[i] = all[2 * i + 1];
    C.idle_done = 1;
}

/* Non-roots time a fixed compute loop while the root broadcasts back to back (phase 1) and while
 * it does not (phase 0), interleaved; slowdown = median(phase 1) / median(phase 0) per non-root. */
static void measure_slowdown(int a) {
    if (!C.rb_ok || C.p < 2) return;
    int reps = C.quick ? 2 : 5;
    long iters = (long)(C.compute_ms * 1e6 * C.rate);
    size_t m = C.slow_size;
    double t[2][16];
    long nb = 0;
    double tb = 0;
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < 2; k++) {
            int phase = (k + r) % 2;
            MPI_Barrier(MPI_COMM_WORLD);
            if (C.me != 0) {
                double t0 = bench_now_ns();
                compute(iters);
                t[phase][r] = bench_now_ns() - t0;
                ok_or_die(shoal_signal(shoal_gptr_add(shoal_gptr_setunit(C.ctl, 0), W_COUNT), 1,
                                       SHOAL_SIGNAL_ADD),
                          "shoal_signal");
            } else {
                C.count_seen += (uint64_t)(C.p - 1);
                volatile uint64_t *cnt = (volatile uint64_t *)((char *)C.ctl_local + W_COUNT);
                if (phase) {
                    double t0 = bench_now_ns();
                    while (__atomic_load_n(cnt, __ATOMIC_ACQUIRE) < C.count_seen) {
                        shoal_rma_bcast_t req = SHOAL_RMA_BCAST_NULL;
                        ok_or_die(
                            shoal_rma_bcast(C.rb, C.rb_local, m,
                                            a ? SHOAL_RMA_BCAST_BINOMIAL : SHOAL_RMA_BCAST_LINEAR,
                                            &req, NULL),
                            "shoal_rma_bcast");
                        ok_or_die(shoal_rma_bcast_wait(&req), "shoal_rma_bcast_wait");
                        nb++;
                    }
                    tb += bench_now_ns() - t0;
                } else {
                    wait_word(W_COUNT, C.count_seen);
                }
            }
            batch_end();
        }
    double ratio = 0;
    if (C.me != 0) {
        double v0[16], v1[16];
        for (int r = 0; r < reps; r++) v0[r] = t[0][r], v1[r] = t[1][r];
        ratio = bench_quantile(v1, reps, 0.5) / bench_quantile(v0, reps, 0.5);
    }
    double mx = 0, sum = 0;
    MPI_Reduce(&ratio, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&ratio, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (C.me == 0) {
        C.slow[a] = mx;
        C.slow_mean[a] = sum / (double)(C.p - 1);
        C.bcast_rate[a] = tb > 0 ? (double)nb / (tb / 1e9) : 0;
        C.slow_done[a] = 1;
    }
}

/* ---- --loggp --------------------------------------------------------------------------------- */
static double median_of(double *v, int n) {
    return bench_quantile(v, n, 0.5);
}

static double clock_overhead_ns(void) {
    double v[1000];
    for (int i = 0; i < 1000; i++) {
        double a = bench_now_ns();
        v[i] = bench_now_ns() - a;
    }
    return median_of(v, 1000);
}

#define LOGGP_CURVE_POINTS 14
typedef struct {
    double L, o, g, G, a, o_r, o_r_cold, G_copy;
    /* The same per-byte figures for messages that stream through memory (LOGGP_BIG_SIZE and twice
     * that: beyond the last-level cache), and the size from which they hold (big_from). */
    double G_big, G_copy_big, big_from;
    /* Per byte, LOGGP_FRESH_SIZE bytes, a partner's data as the collectives' scratch sees it:
     * summing doubles that the peer has just put into my memory (its lines come from the peer's
     * cache), and a put into memory that the peer has just read (the lines must come back). */
    double reduce_fresh, G_fresh;
    /* Per byte at each of loggp_curve_size(k) (blocking puts, local copies; NAN: not measured): the
     * cost of a message as a function of its size (as PLogP's G(m), Kielmann et al. 2000). One
     * figure per kind (G, G_big) misses where the cache levels fall: on an Intel Xeon with a
     * 1.25 MiB L2, 1-4 MiB puts run at a third of the 64-256 KiB ones' speed. */
    double G_curve[LOGGP_CURVE_POINTS], copy_curve[LOGGP_CURVE_POINTS];
    /* Per byte at the same sizes, data that has just crossed between the units (loggp_fresh): a
     * put into lines the peer has read, a sum and a get of lines the peer has written. */
    double G_fresh_curve[LOGGP_CURVE_POINTS], reduce_fresh_curve[LOGGP_CURVE_POINTS],
        get_fresh_curve[LOGGP_CURVE_POINTS];
    /* Per byte at the same sizes, blocking puts both ways at once (loggp_both): where the ends'
     * CPUs move the bytes (MPI within a node: active messages), each CPU then moves two messages
     * and the figure is up to twice G_curve's; where the origin copies alone (the direct path),
     * about the same. */
    double G_both_curve[LOGGP_CURVE_POINTS];
    /* Whole blocking calls, us: an add that fetches nothing (a collective's signal; a is a
     * fetch-add, which some MPIs serve slower: Open MPI's osc/pt2pt across TCP 24-33 against
     * 15-19 us), and a put and a get of LOGGP_CURVE_BASE bytes (their completion included: on
     * the MPI path a round trip that 2 L, from a ping-pong whose waits also wait for progress,
     * overstates). */
    double a_add, put_small, get_small;
} loggp_t;

/* The curve's sizes: the powers of two from 4 KiB (2^12) to 32 MiB (2^25), each figure
 * (t(s) - t(LOGGP_CURVE_BASE)) / (s - LOGGP_CURVE_BASE), the fixed cost of a call taken out.
 * Steps of two, as an L1 or L2 boundary moves the figure 3-5x within a step of four. */
#define LOGGP_CURVE_BASE ((size_t)256)
static size_t loggp_curve_size(int k) {
    return (size_t)4096 << k;
}

#define LOGGP_FRESH_SIZE ((size_t)64 << 10)

/* The streaming figures' sizes: puts of 16 and 32 MiB. */
#define LOGGP_BIG_SIZE ((size_t)16 << 20)

/* Bytes from which a collective's messages stream through memory: at 2 members a collective
 * touches a source and a destination on each, p blocks each for alltoall and collect, so about
 * eight message-sized buffers: an eighth of the last-level cache (32 MiB on this machine's EPYC:
 * 4 MiB; the 2-unit collectives' per-byte cost is up 2-3x from there, results/coll_sim). The
 * kernel's figure (what lscpu prints; glibc's sysconf reads CPUID, which a KVM guest may fill in
 * wrong: 320 MiB here), or 4 MiB when there is none. */
static double loggp_big_from(void) {
    double llc = 0;
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
    if (f) {
        char unit = 0;
        if (fscanf(f, "%lf%c", &llc, &unit) >= 1)
            llc *= unit == 'K' ? 1024 : unit == 'M' ? 1048576 : unit == 'G' ? 1073741824 : 1;
        fclose(f);
    }
    return llc > 0 ? llc / 8 : (double)((size_t)4 << 20);
}

/* Median ns of reps blocking puts of s bytes to peer, and of reps local copies of s bytes. */
static void time_put_and_copy(shoal_gptr_t peer, size_t s, int reps, double *v, double *put_ns,
                              double *copy_ns) {
    for (int r = 0; r < reps; r++) {
        double a = bench_now_ns();
        ok_or_die(shoal_put(peer, C.rb_local, s), "shoal_put");
        v[r] = bench_now_ns() - a;
    }
    *put_ns = median_of(v, reps);
    for (int r = 0; r < reps; r++) {
        double a = bench_now_ns();
        memcpy(C.copy_dst, C.copy_src, s);
        __asm__ __volatile__("" ::: "memory");
        v[r] = bench_now_ns() - a;
    }
    *copy_ns = median_of(v, reps);
}

/* Fills n bytes with doubles of value x: sums of the benchmark's byte patterns could meet
 * subnormal numbers, which some CPUs add a hundred times slower. */
static void fill_doubles(void *p, size_t n, double x) {
    double *d = p;
    for (size_t k = 0; k < n / sizeof(double); k++) d[k] = x;
}

/* The per-size curve (loggp_t.G_curve, copy_curve) on unit 0: each size timed after a few
 * untimed rounds, so the buffers are where repeated calls on the same data keep them, as in the
 * collectives' benchmarks. v holds at least reps values. */
static void loggp_curve(loggp_t *P, shoal_gptr_t peer, double *v, int reps) {
    double base_put, base_copy, tp, tc;
    time_put_and_copy(peer, LOGGP_CURVE_BASE, reps, v, &base_put, &base_copy);
    P->put_small = base_put / 1e3;
    for (int k = 0; k < LOGGP_CURVE_POINTS; k++) {
        size_t s = loggp_curve_size(k);
        P->G_curve[k] = P->copy_curve[k] = NAN;
        if (s > C.bufbytes) continue;
        /* about 20 ms a size, at least 5 and at most reps timed calls */
        int n = (int)(20e6 / (0.1 * (double)s + 1000));
        n = n < 5 ? 5 : n > reps ? reps : n;
        time_put_and_copy(peer, s, 3, v, &tp, &tc); /* warm-up */
        time_put_and_copy(peer, s, n, v, &tp, &tc);
        P->G_curve[k] = (tp - base_put) / (double)(s - LOGGP_CURVE_BASE) / 1e3;
        P->copy_curve[k] = (tc - base_copy) / (double)(s - LOGGP_CURVE_BASE) / 1e3;
    }
}

/* The others wait, driving MPI progress, until unit 0 says it is done. */
static void peer_idle(void) {
    batch_end_how(1);
}

static void loggp_shoal(loggp_t *P, double clk) {
    int reps = C.quick ? 300 : 3000, me = (int)C.me;
    double *v = malloc(sizeof(double) * (size_t)reps);
    shoal_handle_t *h = malloc(sizeof(shoal_handle_t) * 1000);
    if (!v || !h) die("out of memory");
    shoal_gptr_t peer = shoal_gptr_setunit(C.rb, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        /* o: one non-blocking put call of 8 B */
        for (int i = 0; i < reps; i++) {
            shoal_handle_t hh = SHOAL_HANDLE_NULL;
            double a = bench_now_ns();
            shoal_err_t e = shoal_put_nb(shoal_gptr_add(peer, (i % 512) * 64), C.rb_local, 8, &hh);
            v[i] = bench_now_ns() - a - clk;
            ok_or_die(e, "shoal_put_nb");
            ok_or_die(shoal_wait(&hh), "shoal_wait");
        }
        P->o = median_of(v, reps) / 1e3;
        /* g: a long run of 8 B puts, completed */
        int runs = C.quick ? 5 : 21, n = 1000;
        for (int r = 0; r < runs; r++) {
            double a = bench_now_ns();
            for (int i = 0; i < n; i++)
                ok_or_die(shoal_put_nb(shoal_gptr_add(peer, (i % 512) * 64), C.rb_local, 8, &h[i]),
                          "shoal_put_nb");
            ok_or_die(shoal_waitall(h, (size_t)n), "shoal_waitall");
            v[r] = (bench_now_ns() - a) / n;
        }
        P->g = median_of(v, runs) / 1e3;
        /* G: blocking puts of 1 and 4 MiB; the local memcpy the same way */
        size_t s1 = (size_t)1 << 20, s4 = (size_t)4 << 20;
        if (s4 > C.bufbytes) s4 = C.bufbytes, s1 = s4 / 4;
        int big = C.quick ? 5 : 21;
        double tp[2], tc[2];
        for (int k = 0; k < 2; k++) time_put_and_copy(peer, k ? s4 : s1, big, v, &tp[k], &tc[k]);
        P->G = (tp[1] - tp[0]) / (double)(s4 - s1) / 1e3;
        P->G_copy = (tc[1] - tc[0]) / (double)(s4 - s1) / 1e3;
        /* G_big: the same with 16 and 32 MiB (when the buffers hold them) */
        P->G_big = P->G_copy_big = NAN;
        P->big_from = loggp_big_from();
        if (C.bufbytes >= 2 * LOGGP_BIG_SIZE) {
            int huge = C.quick ? 3 : 9;
            for (int k = 0; k < 2; k++)
                time_put_and_copy(peer, LOGGP_BIG_SIZE << k, huge, v, &tp[k], &tc[k]);
            P->G_big = (tp[1] - tp[0]) / (double)LOGGP_BIG_SIZE / 1e3;
            P->G_copy_big = (tc[1] - tc[0]) / (double)LOGGP_BIG_SIZE / 1e3;
        }
        loggp_curve(P, peer, v, reps);
        /* a: a blocking fetch-add on the peer */
        for (int i = 0; i < reps; i++) {
            int64_t old;
            double a = bench_now_ns();
            ok_or_die(
                shoal_fetch_add_i64(shoal_gptr_add(shoal_gptr_setunit(C.ctl, 1), W_AMO), 1, &old),
                "shoal_fetch_add_i64");
            v[i] = bench_now_ns() - a - clk;
        }
        P->a = median_of(v, reps) / 1e3;
        /* a_add: a blocking add, nothing fetched (what a collective's signal is) */
        for (int i = 0; i < reps; i++) {
            double a = bench_now_ns();
            ok_or_die(shoal_add_i64(shoal_gptr_add(shoal_gptr_setunit(C.ctl, 1), W_AMO), 1),
                      "shoal_add_i64");
            v[i] = bench_now_ns() - a - clk;
        }
        P->a_add = median_of(v, reps) / 1e3;
        /* get_small: a blocking get of LOGGP_CURVE_BASE bytes (put_small: loggp_curve) */
        for (int i = 0; i < reps; i++) {
            double a = bench_now_ns();
            ok_or_die(shoal_get(C.copy_dst, peer, LOGGP_CURVE_BASE), "shoal_get");
            v[i] = bench_now_ns() - a - clk;
        }
        P->get_small = median_of(v, reps) / 1e3;
    }
    peer_idle();
    /* L: ping-pong of signals between units 0 and 1 (both words read before the barrier: after
     * it, the other may have written mine already) */
    int rounds = C.quick ? 200 : 2000;
    shoal_gptr_t other = shoal_gptr_add(shoal_gptr_setunit(C.ctl, me < 2 ? 1 - me : me), W_PING);
    shoal_gptr_t mine = shoal_gptr_add(shoal_gptr_setunit(C.ctl, me), W_PING);
    uint64_t base = 0;
    ok_or_die(shoal_signal_read(mine, &base), "shoal_signal_read");
    MPI_Barrier(MPI_COMM_WORLD);
    if (me < 2) {
        for (int i = 1; i <= rounds; i++) {
            double a = bench_now_ns();
            if (me == 0) {
                ok_or_die(shoal_signal(other, base + (uint64_t)i, SHOAL_SIGNAL_SET),
                          "shoal_signal");
                ok_or_die(shoal_signal_wait_until(mine, SHOAL_CMP_GE, base + (uint64_t)i, NULL),
                          "shoal_signal_wait_until");
            } else {
                ok_or_die(shoal_signal_wait_until(mine, SHOAL_CMP_GE, base + (uint64_t)i, NULL),
                          "shoal_signal_wait_until");
                ok_or_die(shoal_signal(other, base + (uint64_t)i, SHOAL_SIGNAL_SET),
                          "shoal_signal");
            }
            v[i - 1] = bench_now_ns() - a;
        }
        double rtt = median_of(v, rounds) / 1e3; /* the median round trip */
        P->L = rtt / 2 - P->o;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(v);
    free(h);
}

/* o_r: binomial broadcasts of 8 B at 2 units; relay hot (back to back) and asleep. */
static void loggp_relay(loggp_t *P) {
    int me = (int)C.me, nmax = C.quick ? 200 : 2000;
    double *v = malloc(sizeof(double) * (size_t)nmax);
    if (!v) die("out of memory");
    P->o_r = P->o_r_cold = NAN;
    MPI_Barrier(MPI_COMM_WORLD);
    if (C.rb_ok && C.p == 2) {
        if (me == 0) {
            for (int cold = 0; cold < 2; cold++) {
                int n = cold ? (C.quick ? 10 : 60) : (C.quick ? 200 : 2000);
                double *busy = malloc(sizeof(double) * (size_t)n), *done = v;
                if (!busy) die("out of memory");
                for (int i = 0; i < n; i++) {
                    if (cold) usleep(3000);
                    shoal_rma_bcast_t req = SHOAL_RMA_BCAST_NULL;
                    double a = bench_now_ns();
                    ok_or_die(
                        shoal_rma_bcast(C.rb, C.rb_local, 8, SHOAL_RMA_BCAST_BINOMIAL, &req, NULL),
                        "shoal_rma_bcast");
                    double b = bench_now_ns();
                    ok_or_die(shoal_rma_bcast_wait(&req), "shoal_rma_bcast_wait");
                    busy[i] = b - a;
                    done[i] = bench_now_ns() - a;
                }
                double x = (median_of(done, n) - median_of(busy, n)) / 1e3 - P->L - P->o - 2 * P->a;
                if (cold)
                    P->o_r_cold = x;
                else
                    P->o_r = x;
                free(busy);
            }
        }
        batch_end(); /* quiet: the relay alone serves the requests, as in a computing member */
    }
    free(v);
}

static void loggp_mpi(loggp_t *P, double clk) {
    int reps = C.quick ? 300 : 3000, me = (int)C.me;
    size_t bytes = C.bufbytes + CTL_BYTES;
    char *base = NULL;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    memset(base, 0, bytes);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Barrier(MPI_COMM_WORLD);
    double *v = malloc(sizeof(double) * (size_t)reps);
    if (!v) die("out of memory");
    MPI_Aint flag = (MPI_Aint)C.bufbytes;
    if (me == 0) {
        for (int i = 0; i < reps; i++) {
            double a = bench_now_ns();
            MPI_Put(C.copy_src, 8, MPI_BYTE, 1, (i % 512) * 64, 8, MPI_BYTE, win);
            v[i] = bench_now_ns() - a - clk;
            MPI_Win_flush(1, win);
        }
        P->o = median_of(v, reps) / 1e3;
        int runs = C.quick ? 5 : 21, n = 1000;
        for (int r = 0; r < runs; r++) {
            double a = bench_now_ns();
            for (int i = 0; i < n; i++)
                MPI_Put(C.copy_src, 8, MPI_BYTE, 1, (i % 512) * 64, 8, MPI_BYTE, win);
            MPI_Win_flush(1, win);
            v[r] = (bench_now_ns() - a) / n;
        }
        P->g = median_of(v, runs) / 1e3;
        size_t s1 = (size_t)1 << 20, s4 = (size_t)4 << 20;
        if (s4 > C.bufbytes) s4 = C.bufbytes, s1 = s4 / 4;
        int big = C.quick ? 5 : 21;
        double tp[2];
        for (int k = 0; k < 2; k++) {
            size_t s = k ? s4 : s1;
            for (int r = 0; r < big; r++) {
                double a = bench_now_ns();
                MPI_Put(C.copy_src, (int)s, MPI_BYTE, 1, 0, (int)s, MPI_BYTE, win);
                MPI_Win_flush(1, win);
                v[r] = bench_now_ns() - a;
            }
            tp[k] = median_of(v, big);
        }
        P->G = (tp[1] - tp[0]) / (double)(s4 - s1) / 1e3;
        for (int i = 0; i < reps; i++) {
            uint64_t one = 1, old = 0;
            double a = bench_now_ns();
            MPI_Fetch_and_op(&one, &old, MPI_UINT64_T, 1, flag + W_AMO, MPI_SUM, win);
            MPI_Win_flush(1, win);
            v[i] = bench_now_ns() - a - clk;
        }
        P->a = median_of(v, reps) / 1e3;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* L: ping-pong of flags (MPI_Accumulate REPLACE + flush; the other polls its memory) */
    int rounds = C.quick ? 200 : 2000;
    if (me < 2) {
        volatile uint64_t *mine = (volatile uint64_t *)(base + flag);
        for (uint64_t i = 1; i <= (uint64_t)rounds; i++) {
            double a = bench_now_ns();
            if (me == 0) {
                MPI_Accumulate(&i, 1, MPI_UINT64_T, 1, flag, 1, MPI_UINT64_T, MPI_REPLACE, win);
                MPI_Win_flush(1, win);
            }
            unsigned spins = 0;
            while (__atomic_load_n(mine, __ATOMIC_ACQUIRE) < i) {
                if (++spins % 64 == 0) {
                    int fl;
                    MPI_Win_sync(win);
                    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &fl, MPI_STATUS_IGNORE);
                }
                if (spins > 100000) sched_yield();
            }
            if (me == 1) {
                MPI_Accumulate(&i, 1, MPI_UINT64_T, 0, flag, 1, MPI_UINT64_T, MPI_REPLACE, win);
                MPI_Win_flush(0, win);
            }
            v[i - 1] = bench_now_ns() - a;
        }
        double rtt = median_of(v, rounds) / 1e3; /* the median round trip */
        P->L = rtt / 2 - P->o;
    }
    P->o_r = P->o_r_cold = P->G_copy = P->G_big = P->G_copy_big = P->big_from = NAN;
    P->reduce_fresh = P->G_fresh = NAN;
    for (int k = 0; k < LOGGP_CURVE_POINTS; k++)
        P->G_curve[k] = P->copy_curve[k] = P->G_fresh_curve[k] = P->reduce_fresh_curve[k] =
            P->get_fresh_curve[k] = P->G_both_curve[k] = NAN;
    P->a_add = P->put_small = P->get_small = NAN;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    free(v);
}

static void loggp_line(FILE *f, const char *prefix, const char *path, const loggp_t *P) {
    char lib[96];
    snprintf(lib, sizeof lib, "%s", C.mpilib);
    for (char *c = lib; *c; c++)
        if (*c == ' ' || *c == ',') *c = '_';
    fprintf(f,
            "%sloggp: path=%s mpi=%s units=%d L=%.6g o=%.6g g=%.6g G=%.6g a=%.6g o_r=%.6g "
            "o_r_cold=%.6g G_copy=%.6g G_big=%.6g G_copy_big=%.6g big_from=%.6g "
            "reduce_fresh=%.6g G_fresh=%.6g a_add=%.6g put_small=%.6g get_small=%.6g",
            prefix, path, lib, (int)C.p, P->L, P->o, P->g, P->G, P->a, P->o_r, P->o_r_cold,
            P->G_copy, P->G_big, P->G_copy_big, P->big_from, P->reduce_fresh, P->G_fresh, P->a_add,
            P->put_small, P->get_small);
    /* the curves as size:value lists, only the sizes measured */
    const double *curves[6] = {P->G_curve,         P->copy_curve,
                               P->G_fresh_curve,   P->reduce_fresh_curve,
                               P->get_fresh_curve, P->G_both_curve};
    const char *names[6] = {
        " G_curve=",         " copy_curve=",  " G_fresh_curve=", " reduce_fresh_curve=",
        " get_fresh_curve=", " G_both_curve="};
    for (int c = 0; c < 6; c++) {
        int first = 1;
        for (int k = 0; k < LOGGP_CURVE_POINTS; k++) {
            if (!(curves[c][k] == curves[c][k])) continue;
            fprintf(f, "%s%zu:%.6g", first ? names[c] : ",", loggp_curve_size(k), curves[c][k]);
            first = 0;
        }
    }
    fputc('\n', f);
}

static loggp_t LS, LM; /* shoal's path, raw MPI */
static double LCLK;

/* Before registration (no relay thread polls MPI beside them): the transport's figures. */
/* Data that has just crossed between the units, at the curve's sizes (loggp_t.G_fresh_curve ...)
 * and LOGGP_FRESH_SIZE (G_fresh, reduce_fresh): in each round
 *   1. unit 0 puts s bytes into unit 1's part, whose lines unit 1 read in the last round (timed:
 *      G_fresh);
 *   2. unit 1 sums them as doubles into a private accumulator (timed: reduce_fresh), their lines
 *      coming from unit 0's cache;
 *   3. unit 0 rewrites s bytes of its own part, then unit 1 gets them (timed: get_fresh).
 * Barriers between the steps only order them (a blocking put completes its data before). This is
 * what the collectives do with a partner's data every call: the repeated puts of loggp_curve
 * find their lines in the putter's own cache after the first round and price a copy, not a
 * transfer. The sum is libshoal's own kernel (bench_reduce_kernel, bench/CMakeLists.txt), with
 * the accumulator at the data's page offset as the library's scratch is: session 37's own -O2
 * loop over a buffer 16 bytes off took 1.2-1.3e-4 us/B for 64 KiB even in cache. Per byte as
 * (t(s) - t(LOGGP_CURVE_BASE)) / (s - LOGGP_CURVE_BASE); the single figures t(s) / s. */
static void fresh_round(size_t s, void *acc, double t[3]) {
    shoal_gptr_t peer = shoal_gptr_setunit(C.rb, 1), owner = shoal_gptr_setunit(C.rb, 0);
    t[0] = t[1] = t[2] = 0;
    if (C.me == 0) {
        double a = bench_now_ns();
        ok_or_die(shoal_put(peer, C.copy_src, s), "shoal_put");
        t[0] = bench_now_ns() - a;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (C.me == 1) {
        double a = bench_now_ns();
        bench_reduce_kernel(acc, C.rb_local, s / sizeof(double), SHOAL_TYPE_DOUBLE, SHOAL_RED_SUM);
        __asm__ __volatile__("" ::: "memory");
        t[1] = bench_now_ns() - a;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (C.me == 0) memcpy(C.rb_local, C.copy_src, s);
    MPI_Barrier(MPI_COMM_WORLD);
    if (C.me == 1) {
        double a = bench_now_ns();
        ok_or_die(shoal_get(C.copy_dst, owner, s), "shoal_get");
        t[2] = bench_now_ns() - a;
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Median ns of each of fresh_round's three figures over reps rounds, on every unit. */
static void fresh_median(size_t s, void *acc, int reps, double *v, double med[3]) {
    double mine[3];
    for (int r = 0; r < reps; r++) {
        double t[3];
        fresh_round(s, acc, t);
        for (int f = 0; f < 3; f++) v[f * reps + r] = t[f];
    }
    for (int f = 0; f < 3; f++) mine[f] = median_of(v + f * reps, reps);
    MPI_Allreduce(mine, med, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

static void loggp_fresh(loggp_t *P) {
    int reps = C.quick ? 21 : 201;
    size_t most = C.bufbytes;
    double *v = malloc(sizeof(double) * 3 * (size_t)reps);
    char *acc_pages = aligned_alloc(4096, most + 4096);
    if (!v || !acc_pages) die("out of memory");
    char *acc = acc_pages + ((uintptr_t)C.rb_local & 4095); /* the data's page offset */
    memset(acc, 0, most);
    fill_doubles(C.copy_src, most, 1.0); /* what unit 0 puts and writes */
    double base[3], med[3];
    fresh_median(LOGGP_CURVE_BASE, acc, reps, v, base);
    fresh_median(LOGGP_FRESH_SIZE, acc, reps, v, med);
    P->G_fresh = med[0] / (double)LOGGP_FRESH_SIZE / 1e3;
    P->reduce_fresh = med[1] / (double)LOGGP_FRESH_SIZE / 1e3;
    for (int k = 0; k < LOGGP_CURVE_POINTS; k++) {
        size_t s = loggp_curve_size(k);
        double *out[3] = {&P->G_fresh_curve[k], &P->reduce_fresh_curve[k], &P->get_fresh_curve[k]};
        for (int f = 0; f < 3; f++) *out[f] = NAN;
        if (s > most) continue;
        /* about 20 ms a size, at least 5 rounds */
        int n = (int)(20e6 / (0.3 * (double)s + 3000));
        n = n < 5 ? 5 : n > reps ? reps : n;
        fresh_median(s, acc, n, v, med);
        for (int f = 0; f < 3; f++)
            *out[f] = (med[f] - base[f]) / (double)(s - LOGGP_CURVE_BASE) / 1e3;
    }
    free(v);
    free(acc_pages);
}

/* Median ns over reps rounds, the slower unit's, of units 0 and 1 each putting s bytes into the
 * other's part at once (a barrier starts each round). */
static double both_median(size_t s, int reps, double *v) {
    shoal_gptr_t other = shoal_gptr_setunit(C.rb, C.me == 0 ? 1 : 0);
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double a = bench_now_ns();
        if (C.me < 2) ok_or_die(shoal_put(other, C.copy_src, s), "shoal_put");
        v[r] = bench_now_ns() - a;
    }
    double mine = median_of(v, reps), both = 0;
    MPI_Allreduce(&mine, &both, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return both;
}

/* loggp_t.G_both_curve: blocking puts both ways at once, per byte past LOGGP_CURVE_BASE, after a
 * few untimed rounds as loggp_curve's. */
static void loggp_both(loggp_t *P) {
    int reps = C.quick ? 21 : 201;
    double *v = malloc(sizeof(double) * (size_t)reps);
    if (!v) die("out of memory");
    double base = both_median(LOGGP_CURVE_BASE, reps, v);
    for (int k = 0; k < LOGGP_CURVE_POINTS; k++) {
        size_t s = loggp_curve_size(k);
        P->G_both_curve[k] = NAN;
        if (s > C.bufbytes) continue;
        int n = (int)(20e6 / (0.2 * (double)s + 2000)); /* about 20 ms a size */
        n = n < 5 ? 5 : n > reps ? reps : n;
        both_median(s, 3, v); /* warm-up */
        P->G_both_curve[k] = (both_median(s, n, v) - base) / (double)(s - LOGGP_CURVE_BASE) / 1e3;
    }
    free(v);
}

static void run_loggp_p2p(void) {
    LCLK = clock_overhead_ns();
    loggp_shoal(&LS, LCLK);
    for (int k = 0; k < LOGGP_CURVE_POINTS; k++)
        LS.G_fresh_curve[k] = LS.reduce_fresh_curve[k] = LS.get_fresh_curve[k] =
            LS.G_both_curve[k] = NAN;
    if (C.p >= 2) loggp_fresh(&LS);
    if (C.p >= 2) loggp_both(&LS);
    loggp_mpi(&LM, LCLK);
}

/* After registration: o_r, then the lines. */
static int run_loggp(const char *csv) {
    double clk = LCLK;
    loggp_t S = LS, M = LM;
    loggp_relay(&S);
    LS = S;
    if (C.me == 0) {
        printf("## bench_rma_bcast --loggp: %s, %d units, SHOAL_DIRECT=%d\n\n", C.mpilib, (int)C.p,
               C.direct);
        printf("- CPU: %s; %d units on %ld online CPUs%s\n", C.cpu, (int)C.p, C.cores,
               C.p > C.cores ? " (OVERSUBSCRIBED)" : "");
        printf("- MPI library: %s\n", C.mpilib);
        printf("- thread level provided: %d (3: MULTIPLE)\n", C.provided);
        printf("- between units 0 and 1; us and us per byte; clock overhead %.1f ns "
               "(subtracted from o and a)\n",
               clk);
        printf("- shoal-%s: shoal_put_nb (o), 1000 x 8 B shoal_put_nb + waitall (g), blocking "
               "shoal_put 1 vs 4 MiB (G), shoal_fetch_add_i64 (a), shoal_signal ping-pong (L = "
               "rtt/2 - o), binomial shoal_rma_bcast of 8 B (o_r = completion - busy - L - o - "
               "2a; hot: back to back; cold: 3 ms apart, relay asleep)%s\n",
               C.path, C.rb_ok && C.p == 2 ? "" : " [o_r not measured: needs 2 units and enable]");
        printf("- mpi-raw: MPI_Put / MPI_Win_flush / MPI_Fetch_and_op / MPI_Accumulate on an "
               "MPI_Win_allocate window (lock_all)\n\n");
        printf("```\n");
        char pth[32];
        snprintf(pth, sizeof pth, "shoal-%s", C.path);
        loggp_line(stdout, "", pth, &S);
        loggp_line(stdout, "", "mpi-raw", &M);
        printf("```\n");
        if (csv) {
            FILE *f = strcmp(csv, "-") ? fopen(csv, "w") : NULL;
            if (f) {
                loggp_line(f, "", pth, &S);
                loggp_line(f, "", "mpi-raw", &M);
                fclose(f);
            }
        }
        fflush(stdout);
    }
    return 0;
}

/* ---- Output ---------------------------------------------------------------------------------- */
static double cval(const cell_t *c) {
    return c->status == ST_OK ? c->val : NAN;
}

/* The faster one-sided completion of row r (and which). */
static double best_done(const row_t *r, int *which) {
    double l = cval(&r->c[V_LIN]), b = cval(&r->c[V_BIN]);
    *which = V_BIN;
    if (isnan(b) || (!isnan(l) && l <= b)) *which = V_LIN;
    return *which == V_LIN ? l : b;
}

/* The faster of two figures (NAN when neither). */
static double fmin_nan(double a, double b) {
    return isnan(a) ? b : isnan(b) ? a : a < b ? a : b;
}

static double sync_ref(const row_t *r) {
    return fmin_nan(cval(&r->c[V_SYNC]), cval(&r->pre[0]));
}

static double mpi_ref(const row_t *r, int *other) {
    double mine = fmin_nan(cval(&r->c[V_MPI]), cval(&r->pre[1]));
    *other = 0;
    if (!isnan(r->other_mpi) && r->other_mpi > 0 && (isnan(mine) || r->other_mpi < mine)) {
        *other = 1;
        return r->other_mpi;
    }
    return mine;
}

static double hop_over_copy(const row_t *r) {
    if (C.depth < 1) return NAN;
    return (cval(&r->c[V_BIN]) - C.depth * cval(&r->c[V_COPY])) / C.depth;
}

/* The same over the bare puts (the root's own data copies): what the tree adds. */
static double hop_over_puts(const row_t *r) {
    if (C.depth < 1) return NAN;
    return (cval(&r->c[V_BIN]) - cval(&r->c[V_PUTS])) / C.depth;
}

static const char *cell_text(const cell_t *c, char *buf, size_t len) {
    if (c->status == ST_OK) return bench_fmt_us(c->val, buf, len);
    snprintf(buf, len, "%s", c->status == ST_NONE ? "-" : c->why);
    return buf;
}

static const char *ratio_text(double x, char *buf, size_t len) {
    if (isnan(x))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.2f", x);
    return buf;
}

/* The compute loop's time lost per broadcast of algorithm k, in us: it ran slow[k] times its
 * time alone while bcast_rate[k] broadcasts a second went on, so each cost (slow - 1) / (slow x
 * rate) seconds of it (0 where none went on). */
static double lost_per_bcast_us(int k) {
    if (C.bcast_rate[k] <= 0 || C.slow[k] <= 0) return 0;
    return (C.slow[k] - 1) / (C.slow[k] * C.bcast_rate[k]) * 1e6;
}

static void print_table(void) {
    char a[16][64];
    printf("\n### Latency against message size (us per broadcast; root 0, %d units)\n\n", (int)C.p);
    printf("Busy: until shoal_rma_bcast returns at the root (back to back: it includes waiting "
           "for the previous broadcast's release); done: until shoal_rma_bcast_wait returns "
           "(every member has the data). puts: the root's %d blocking shoal_put to its binomial "
           "children; memcpy: one local copy. Ratios: binomial busy / puts (target <= 1.2), best "
           "done / shoal_broadcast (<= 1.2 from 64 KiB), best done / MPI_Bcast (< 1 from 64 "
           "KiB), hop = (binomial done - %d memcpy) / %d (direct path: <= 2 us), and (binomial "
           "done - puts) / %d: what the tree adds to the root's own puts.\n\n",
           C.nchild, C.depth, C.depth, C.depth);
    printf("| size | linear busy | linear done | binomial busy | binomial done | shoal_broadcast "
           "| MPI_Bcast | puts (%d) | memcpy | bin busy/puts | best done/shoal_bcast | best "
           "done/MPI_Bcast | hop over copy (us) | hop over puts (us) | data |\n",
           C.nchild);
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (int i = 0; i < C.nsizes; i++) {
        row_t *r = &C.rows[i];
        int w, other;
        double best = best_done(r, &w), m = mpi_ref(r, &other);
        const char *data = "ok";
        for (int v = 0; v < NV; v++)
            if (r->data[v] < 0) data = "WRONG";
        printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%s | %s%s | %s | %s | "
               "%s |\n",
               bench_fmt_size(r->m, a[0], 64), cell_text(&r->busy[V_LIN], a[1], 64),
               cell_text(&r->c[V_LIN], a[2], 64), cell_text(&r->busy[V_BIN], a[3], 64),
               cell_text(&r->c[V_BIN], a[4], 64), cell_text(&r->c[V_SYNC], a[5], 64),
               cell_text(&r->c[V_MPI], a[6], 64), cell_text(&r->c[V_PUTS], a[7], 64),
               cell_text(&r->c[V_COPY], a[8], 64),
               ratio_text(cval(&r->busy[V_BIN]) / cval(&r->c[V_PUTS]), a[9], 64),
               ratio_text(best / sync_ref(r), a[10], 64),
               isnan(best)  ? ""
               : w == V_LIN ? " (lin)"
                            : " (bin)",
               ratio_text(best / m, a[11], 64), other ? " (other MPI)" : "",
               bench_fmt_us(hop_over_copy(r), a[12], 64), bench_fmt_us(hop_over_puts(r), a[13], 64),
               data);
    }
}

static void print_extra(void) {
    if (C.rows[0].pre[0].status != ST_NONE) {
        char a[5][64];
        printf("\n### The collectives without registration (MPI path)\n\n");
        printf("shoal_broadcast and MPI_Bcast timed before shoal_rma_bcast_enable, with no relay "
               "thread polling MPI beside them (us per call; ratio: with registration / "
               "without). The targets above use the faster of the two figures.\n\n");
        printf("| size | shoal_broadcast | MPI_Bcast | shoal_broadcast with/without | MPI_Bcast "
               "with/without |\n|---:|---:|---:|---:|---:|\n");
        for (int i = 0; i < C.nsizes; i++) {
            row_t *r = &C.rows[i];
            printf("| %s | %s | %s | %s | %s |\n", bench_fmt_size(r->m, a[0], 64),
                   cell_text(&r->pre[0], a[1], 64), cell_text(&r->pre[1], a[2], 64),
                   ratio_text(cval(&r->c[V_SYNC]) / cval(&r->pre[0]), a[3], 64),
                   ratio_text(cval(&r->c[V_MPI]) / cval(&r->pre[1]), a[4], 64));
        }
    }
    if (C.idle_done) {
        printf("\n### Relay threads while idle\n\n");
        printf("CPU of each unit's relay thread (the thread shoal_rma_bcast_enable started; "
               "/proc/self/task/TID/schedstat) over %.1f s of idle after a burst of 10 "
               "broadcasts, and the whole process's CPU over the same period, %% of one "
               "core:\n\n| unit | relay thread | process |\n|---:|---:|---:|\n",
               C.idle_s);
        for (int u = 0; u < C.p && u < 64; u++)
            printf("| %d | %.2f %% | %.2f %% |\n", u, C.idle_all[u], C.idle_proc_all[u]);
    }
    if (C.slow_done[0] || C.slow_done[1]) {
        char a[32];
        printf("\n### Cost to non-roots: a compute loop's slowdown\n\n");
        printf("Every non-root times a fixed compute loop (%.0f ms alone) while the root "
               "broadcasts %s back to back, and while it does not (%d interleaved repetitions "
               "each, medians); slowdown = with / without. The slowdown grows with the rate the "
               "root reaches, so the last column divides it out: the loop's time lost per "
               "broadcast, (worst slowdown - 1) / (slowdown x broadcasts/s).\n\n",
               C.compute_ms, bench_fmt_size(C.slow_size, a, sizeof a), C.quick ? 2 : 5);
        printf("| algorithm | slowdown (worst non-root) | slowdown (mean) | broadcasts/s "
               "meanwhile | compute lost per broadcast (us) |\n|---|---:|---:|---:|---:|\n");
        for (int k = 0; k < 2; k++)
            if (C.slow_done[k])
                printf("| %s | %.3fx | %.3fx | %.0f | %.2f |\n", k ? "binomial" : "linear",
                       C.slow[k], C.slow_mean[k], C.bcast_rate[k], lost_per_bcast_us(k));
    }
}

static void print_summary(void) {
    char tag[128] = "", a[32], b[32], line[256];
    if (C.p != 2) snprintf(tag, sizeof tag, " [%d units: stated for 2, for information]", (int)C.p);
    if (C.p > C.cores)
        snprintf(tag + strlen(tag), sizeof tag - strlen(tag),
                 " [oversubscribed: %d units on %ld "
                 "CPUs]",
                 (int)C.p, C.cores);
    printf("\n### Summary against the targets\n\n");
    if (C.other_mpilib[0])
        printf("MPI_Bcast target compares with the faster MPI_Bcast of this run (%s) and of %s "
               "(--compare).\n\n",
               C.mpilib, C.other_mpilib);
    if (!C.rb_ok) {
        printf("- one-sided broadcast not measured on this path (its rows say n/a): %s\n",
               C.rb_reason);
    } else {
        /* (1) binomial busy <= 1.2x puts */
        int n = 0, miss = 0;
        char list[4096] = "";
        double worst = 0;
        for (int i = 0; i < C.nsizes; i++) {
            row_t *r = &C.rows[i];
            double x = cval(&r->busy[V_BIN]) / cval(&r->c[V_PUTS]);
            if (isnan(x)) continue;
            n++;
            if (x > worst) worst = x;
            if (x <= 1.2) continue;
            miss++;
            snprintf(line, sizeof line, "%s%s %.2fx", list[0] ? ", " : "",
                     bench_fmt_size(r->m, a, sizeof a), x);
            if (strlen(list) + strlen(line) + 1 < sizeof list) strcat(list, line);
        }
        printf("- (1)%s binomial root-busy <= 1.2x its %d bare puts: %d of %d sizes met "
               "(worst %.2fx): %s%s%s\n",
               tag, C.nchild, n - miss, n, worst,
               !n     ? "not measured"
               : miss ? "MISSED"
                      : "MET",
               miss ? ". Misses: " : "", list);
        /* (2) completion vs shoal_broadcast, MPI_Bcast, from 64 KiB */
        int n2 = 0, m2 = 0, m3 = 0;
        char l2[4096] = "", l3[4096] = "";
        for (int i = 0; i < C.nsizes; i++) {
            row_t *r = &C.rows[i];
            if (r->m < LARGE_MSG) continue;
            int w, other;
            double best = best_done(r, &w), s = sync_ref(r), m = mpi_ref(r, &other);
            if (isnan(best)) continue;
            n2++;
            if (!(best <= 1.2 * s)) {
                m2++;
                snprintf(line, sizeof line, "%s%s %.2fx", l2[0] ? ", " : "",
                         bench_fmt_size(r->m, a, sizeof a), best / s);
                if (strlen(l2) + strlen(line) + 1 < sizeof l2) strcat(l2, line);
            }
            if (!(best < m)) {
                m3++;
                snprintf(line, sizeof line, "%s%s %.2fx%s", l3[0] ? ", " : "",
                         bench_fmt_size(r->m, b, sizeof b), best / m, other ? " (other MPI)" : "");
                if (strlen(l3) + strlen(line) + 1 < sizeof l3) strcat(l3, line);
            }
        }
        printf("- (2)%s completion (the faster of linear and binomial) <= 1.2x shoal_broadcast "
               "from 64 KiB: %d of %d sizes met: %s%s%s\n",
               tag, n2 - m2, n2,
               !n2  ? "not measured"
               : m2 ? "MISSED"
                    : "MET",
               m2 ? ". Misses: " : "", l2);
        printf("- (2)%s completion faster than MPI_Bcast%s from 64 KiB: %d of %d sizes met: "
               "%s%s%s\n",
               tag, C.other_mpilib[0] ? " (the faster MPI)" : " (this MPI)", n2 - m3, n2,
               !n2  ? "not measured"
               : m3 ? "MISSED"
                    : "MET",
               m3 ? ". Misses: " : "", l3);
        /* (3) hop <= 2 us over the copy, direct path */
        int n4 = 0, m4 = 0;
        double hw = -INFINITY;
        char l4[4096] = "";
        for (int i = 0; i < C.nsizes; i++) {
            double h = hop_over_copy(&C.rows[i]);
            if (isnan(h)) continue;
            n4++;
            if (h > hw) hw = h;
            if (h <= 2.0) continue;
            m4++;
            snprintf(line, sizeof line, "%s%s %s us", l4[0] ? ", " : "",
                     bench_fmt_size(C.rows[i].m, a, sizeof a), bench_fmt_us(h, b, sizeof b));
            if (strlen(l4) + strlen(line) + 1 < sizeof l4) strcat(l4, line);
        }
        printf("- (3)%s%s relay hop <= 2 us over the copy ((binomial done - %d memcpy) / %d): "
               "%d of %d sizes met (worst %s us): %s%s%s\n",
               tag, C.direct ? "" : " [stated for the direct path; this run: for information]",
               C.depth, C.depth, n4 - m4, n4, bench_fmt_us(hw, a, sizeof a),
               !n4  ? "not measured"
               : m4 ? "MISSED"
                    : "MET",
               m4 ? ". Misses: " : "", l4);
        if (C.idle_done) {
            double wi = 0;
            int found = 0;
            for (int u = 0; u < C.p && u < 64; u++)
                if (!isnan(C.idle_all[u])) {
                    found++;
                    if (C.idle_all[u] > wi) wi = C.idle_all[u];
                }
            printf("- (3)%s relay thread idle CPU < 5 %% of a core: worst of %d units %.2f %%: "
                   "%s\n",
                   tag, found, wi,
                   !found   ? "not measured (relay thread not found)"
                   : wi < 5 ? "MET"
                            : "MISSED");
        }
        for (int k = 0; k < 2; k++)
            if (C.slow_done[k])
                printf("- cost to non-roots (%s, for information): compute loop %.3fx slower "
                       "(worst non-root) while the root broadcasts %.0f a second: %.2f us of it "
                       "per broadcast\n",
                       k ? "binomial" : "linear", C.slow[k], C.bcast_rate[k], lost_per_bcast_us(k));
    }
    printf("- data checked once per size and variant at every member before timing: %s\n",
           C.data_errors ? "WRONG DATA (see the table and stderr)" : "every check right");
}

static void csv_row(FILE *f, const char *sec, const char *cs, size_t m, const char *var,
                    const cell_t *c, const char *metric, double rp, double rs, double rm,
                    int data) {
    static const char *const st[] = {"none", "ok", "na", "error"};
    fprintf(f, "%s,%s,%zu,%d,%s,%.6g,%.6g,%.6g,%.6g,%ld,%s,%s,%.6g,%.6g,%.6g,%s\n", sec, cs, m,
            (int)C.p, var, c->med, c->q1, c->q3, c->min, c->iters, st[c->status], metric, rp, rs,
            rm,
            data < 0   ? "wrong"
            : data > 0 ? "ok"
                       : "none");
}

static void write_csv(const char *path) {
    FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
    if (!f) {
        fprintf(stderr, "bench_rma_bcast: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    if (f == stdout) printf("\n```csv\n");
    fprintf(f, "# bench_rma_bcast mpi=%s np=%d direct=%d path=%s cores=%ld stat=%s cpu=%s\n",
            C.mpilib, (int)C.p, C.direct, C.path, C.cores, C.use_min ? "min" : "median", C.cpu);
    fprintf(f, "section,case,size_bytes,units,variant,median,q1,q3,min,iters,status,metric,"
               "ratio_puts,ratio_sync,ratio_mpi,data\n");
    for (int i = 0; i < C.nsizes; i++) {
        const row_t *r = &C.rows[i];
        double s = cval(&r->c[V_SYNC]), m = cval(&r->c[V_MPI]), pu = cval(&r->c[V_PUTS]);
        for (int v = 0; v < NV; v++) {
            const cell_t *c = &r->c[v];
            int bc = v == V_LIN || v == V_BIN;
            if (bc) {
                char bn[32];
                snprintf(bn, sizeof bn, "%s_busy", vname[v]);
                csv_row(f, "latency", "busy", r->m, bn, &r->busy[v], "us", cval(&r->busy[v]) / pu,
                        NAN, NAN, r->data[v]);
            }
            csv_row(f, "latency", bc ? "done" : "call", r->m, vname[v], c, "us", NAN,
                    bc ? cval(c) / s : NAN, bc || v == V_SYNC ? cval(c) / m : NAN, r->data[v]);
        }
        cell_t h = {0};
        h.med = h.q1 = h.q3 = h.min = h.val = hop_over_copy(r);
        h.status = isnan(h.med) ? ST_NA : ST_OK;
        csv_row(f, "hop", "hop_over_copy", r->m, "binomial", &h, "us", NAN, NAN, NAN, 0);
        if (r->pre[0].status != ST_NONE) {
            csv_row(f, "latency", "call", r->m, "shoal_broadcast_noreg", &r->pre[0], "us", NAN, NAN,
                    NAN, r->pre[0].status == ST_OK ? 1 : -1);
            csv_row(f, "latency", "call", r->m, "mpi_bcast_noreg", &r->pre[1], "us", NAN, NAN, NAN,
                    r->pre[1].status == ST_OK ? 1 : -1);
        }
        h.med = h.q1 = h.q3 = h.min = h.val = hop_over_puts(r);
        h.status = isnan(h.med) ? ST_NA : ST_OK;
        csv_row(f, "hop", "hop_over_puts", r->m, "binomial", &h, "us", NAN, NAN, NAN, 0);
    }
    if (C.idle_done)
        for (int u = 0; u < C.p && u < 64; u++) {
            char cs[24];
            snprintf(cs, sizeof cs, "unit%d", u);
            cell_t c = {0};
            c.status = ST_OK;
            c.med = c.q1 = c.q3 = c.min = C.idle_all[u];
            csv_row(f, "idle", cs, 0, "relay", &c, "pct_core", NAN, NAN, NAN, 0);
            c.med = c.q1 = c.q3 = c.min = C.idle_proc_all[u];
            csv_row(f, "idle", cs, 0, "process", &c, "pct_core", NAN, NAN, NAN, 0);
        }
    for (int k = 0; k < 2; k++)
        if (C.slow_done[k]) {
            cell_t c = {0};
            c.status = ST_OK;
            c.med = c.min = c.q1 = c.q3 = C.slow[k];
            c.iters = (long)C.bcast_rate[k];
            csv_row(f, "slowdown", "worst", C.slow_size, k ? "binomial" : "linear", &c, "x_slower",
                    NAN, NAN, NAN, 0);
            c.med = c.min = c.q1 = c.q3 = C.slow_mean[k];
            csv_row(f, "slowdown", "mean", C.slow_size, k ? "binomial" : "linear", &c, "x_slower",
                    NAN, NAN, NAN, 0);
        }
    if (f == stdout)
        printf("```\n");
    else
        fclose(f);
}

/* Another run's CSV: its MPI_Bcast figures, by size. */
static void read_compare(const char *path) {
    if (!path) return;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (C.me == 0) fprintf(stderr, "bench_rma_bcast: cannot read %s\n", path);
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
        char sec[16], var[24], st[8];
        size_t s;
        double med, mn;
        if (sscanf(line, "%15[^,],%*[^,],%zu,%*d,%23[^,],%lf,%*[^,],%*[^,],%lf,%*d,%7[^,]", sec, &s,
                   var, &med, &mn, st) != 6 ||
            strcmp(sec, "latency") || strcmp(var, "mpi_bcast") || strcmp(st, "ok"))
            continue;
        for (int i = 0; i < C.nsizes; i++)
            if (C.rows[i].m == s) C.rows[i].other_mpi = C.use_min ? mn : med;
    }
    fclose(f);
    if (!C.other_mpilib[0]) snprintf(C.other_mpilib, sizeof C.other_mpilib, "%s", path);
}

static int build_sizes(void) {
    const char *sp = C.sizes_spec ? C.sizes_spec : C.quick ? "quick" : "pow2";
    C.nsizes = 0;
    if (!strcmp(sp, "pow2") || !strcmp(sp, "pow4")) {
        int step = !strcmp(sp, "pow2") ? 1 : 2;
        for (size_t s = 8; s <= C.max_size && C.nsizes < MAX_SIZES; s <<= step)
            C.sizes[C.nsizes++] = s;
        if (C.nsizes && C.sizes[C.nsizes - 1] != C.max_size && C.nsizes < MAX_SIZES)
            C.sizes[C.nsizes++] = C.max_size;
    } else if (!strcmp(sp, "quick")) {
        size_t q[] = {8, 4096, (size_t)64 << 10, (size_t)1 << 20};
        for (int i = 0; i < 4; i++)
            if (q[i] <= C.max_size) C.sizes[C.nsizes++] = q[i];
    } else {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", sp);
        for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
            size_t s;
            if (bench_parse_size(t, &s) || s == 0 || C.nsizes == MAX_SIZES) return -1;
            C.sizes[C.nsizes++] = s;
        }
    }
    return C.nsizes ? 0 : -1;
}

static void usage(void) {
    fprintf(stderr, "usage: bench_rma_bcast [--quick] [--csv FILE|-] [--compare FILE] "
                    "[--batches N] [--batch-us T] [--stat median|min] [--budget SECONDS] "
                    "[--sizes pow2|pow4|LIST] [--max-size SIZE] [--idle-s S] [--compute-ms T] "
                    "[--slow-size SIZE] [--pin] [--loggp]\n");
}

int main(int argc, char **argv) {
    const char *csv = NULL, *compare = NULL;
    int batches = -1;
    double batch_us = -1, budget = -1, idle = -1, cms = -1;
    C.max_size = (size_t)4 << 20;
    C.slow_size = (size_t)256 << 10;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            C.quick = 1;
        else if (!strcmp(argv[i], "--loggp"))
            C.loggp = 1;
        else if (!strcmp(argv[i], "--pin"))
            C.pin = 1;
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
        else if (!strcmp(argv[i], "--idle-s") && i + 1 < argc)
            idle = atof(argv[++i]);
        else if (!strcmp(argv[i], "--compute-ms") && i + 1 < argc)
            cms = atof(argv[++i]);
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            C.sizes_spec = argv[++i];
        else if ((!strcmp(argv[i], "--max-size") || !strcmp(argv[i], "--slow-size")) &&
                 i + 1 < argc) {
            size_t *dst = !strcmp(argv[i], "--max-size") ? &C.max_size : &C.slow_size;
            if (bench_parse_size(argv[++i], dst) || *dst == 0) {
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
    if (build_sizes()) {
        usage();
        return 2;
    }
    C.batches = batches > 0 ? batches : C.quick ? 3 : 11;
    if (C.batches > MAX_BATCHES) C.batches = MAX_BATCHES;
    C.batch_ns = 1e3 * (batch_us > 0 ? batch_us : C.quick ? 200 : 2000);
    C.budget_s = budget > 0 ? budget : C.quick ? 60 : 300;
    C.idle_s = idle > 0 ? idle : C.quick ? 0.3 : 1.0;
    C.compute_ms = cms > 0 ? cms : C.quick ? 30 : 200;

    /* The MPI path's relay threads call MPI beside the program: MULTIPLE. */
    if (shoal_init_thread(&argc, &argv, SHOAL_THREAD_MULTIPLE, &C.provided) != SHOAL_OK) {
        fprintf(stderr, "bench_rma_bcast: shoal_init_thread failed\n");
        return 1;
    }
    shoal_myid(&C.me);
    shoal_size(&C.p);
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != (int)C.me) die("Shoal's unit ids are not MPI_COMM_WORLD's ranks");
    if (C.p > 64) die("at most 64 units");
    C.cores = sysconf(_SC_NPROCESSORS_ONLN);
    char cfg[64];
    C.direct = atoi(config_str("SHOAL_DIRECT", cfg, sizeof cfg)) != 0;
    bench_cpu_model(C.cpu, sizeof C.cpu);
    bench_squeeze_blanks(shoal_mpi_library(), 1, C.mpilib, sizeof C.mpilib);
    shoal_mechanism_t mech = SHOAL_MECH_SELF;
    if (C.p > 1) shoal_peer_mechanism((C.me + 1) % C.p, &mech);
    snprintf(C.path, sizeof C.path, "%s", mech == SHOAL_MECH_MPI ? "mpi" : "direct");
    if (C.p == 1) snprintf(C.path, sizeof C.path, "%s", C.direct ? "direct" : "mpi");

    C.bufbytes = 4096;
    for (int i = 0; i < C.nsizes; i++)
        if (C.sizes[i] > C.bufbytes) C.bufbytes = C.sizes[i];
    if (C.slow_size > C.bufbytes) C.bufbytes = C.slow_size;
    if (C.loggp && C.bufbytes < 2 * LOGGP_BIG_SIZE) C.bufbytes = 2 * LOGGP_BIG_SIZE;
    for (int i = 0; i < C.nsizes; i++) {
        C.rows[i].m = C.sizes[i];
        C.rows[i].other_mpi = NAN;
    }

    /* Memory: the registered allocation, shoal_broadcast's, the control words, MPI's buffer. */
    ok_or_die(shoal_team_memalloc(SHOAL_TEAM_ALL, C.bufbytes, &C.rb), "shoal_team_memalloc");
    ok_or_die(shoal_team_memalloc(SHOAL_TEAM_ALL, C.bufbytes, &C.sync), "shoal_team_memalloc");
    ok_or_die(shoal_team_memalloc(SHOAL_TEAM_ALL, CTL_BYTES, &C.ctl), "shoal_team_memalloc");
    if (shoal_gptr_getaddr(C.rb, (void **)&C.rb_local) != SHOAL_OK ||
        shoal_gptr_getaddr(C.sync, (void **)&C.sync_local) != SHOAL_OK ||
        shoal_gptr_getaddr(C.ctl, (void **)&C.ctl_local) != SHOAL_OK)
        die("my own part of an allocation is not mapped");
    memset(C.ctl_local, 0, CTL_BYTES);
    if (posix_memalign((void **)&C.mpibuf, 4096, C.bufbytes) ||
        posix_memalign((void **)&C.expect, 4096, C.bufbytes) ||
        posix_memalign((void **)&C.copy_src, 4096, C.bufbytes) ||
        posix_memalign((void **)&C.copy_dst, 4096, C.bufbytes))
        die("out of memory");
    memset(C.rb_local, 0, C.bufbytes);
    memset(C.sync_local, 0, C.bufbytes);
    memset(C.mpibuf, 0, C.bufbytes);
    memset(C.copy_src, 1, C.bufbytes);
    memset(C.copy_dst, 0, C.bufbytes);
    MPI_Barrier(MPI_COMM_WORLD);

    if (C.loggp && C.p < 2) {
        if (C.me == 0) fprintf(stderr, "bench_rma_bcast --loggp: needs 2 units or more\n");
        shoal_finalize();
        return 2;
    }
    /* --pin: unit u on CPU u mod CPUs, set before registration so the relay thread inherits it
     * (unpinned, a relay woken by the root's futex wake may be moved onto the root's CPU and then
     * wait for the root's polls to yield: see the header). */
    if (C.pin) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET((int)(C.me % C.cores), &set);
        if (sched_setaffinity(0, sizeof set, &set)) die("sched_setaffinity failed");
    }
    if (C.loggp) run_loggp_p2p();
    if (!C.loggp && C.p > 1 && !strcmp(C.path, "mpi")) {
        for (int i = 0; i < C.nsizes; i++) measure_pre_row(&C.rows[i]);
    }
    /* Registration: the thread it starts is my relay. */
    pid_t before[256], after[256];
    int nb = list_tasks(before, 256);
    shoal_err_t e = shoal_rma_bcast_enable(C.rb);
    int na = list_tasks(after, 256);
    C.rb_ok = e == SHOAL_OK;
    if (!C.rb_ok)
        snprintf(C.rb_why, sizeof C.rb_why, "n/a"),
            snprintf(C.rb_reason, sizeof C.rb_reason, "shoal_rma_bcast_enable: %s%s",
                     shoal_strerror(e),
                     e == SHOAL_ERR_UNSUPPORTED ? " (the MPI path needs MPI_THREAD_MULTIPLE)" : "");
    else
        for (int i = 0; i < na; i++) {
            int old = 0;
            for (int j = 0; j < nb; j++)
                if (after[i] == before[j]) old = 1;
            if (!old && C.nrelay < MAX_RELAYS) C.relay_tid[C.nrelay++] = after[i];
        }
    /* The root's binomial children (root 0: srank == rank), largest subtree first. */
    int32_t mask = 1;
    while (mask < C.p) mask <<= 1, C.depth++;
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (mask < C.p) C.children[C.nchild++] = mask;

    int status = 0;
    if (C.loggp) {
        status = run_loggp(csv);
        goto out;
    }
    read_compare(compare);
    calibrate_compute();
    C.t_start = bench_now_ns();
    if (C.me == 0) {
        int over = C.p > C.cores;
        char w[32], f[32], s[32], fo[32], ms[32], al[32];
        printf("## bench_rma_bcast: %s, %d units%s, SHOAL_DIRECT=%d\n\n", C.mpilib, (int)C.p,
               over ? " (OVERSUBSCRIBED)" : "", C.direct);
        printf("- CPU: %s; %d units on %ld online CPUs%s\n", C.cpu, (int)C.p, C.cores,
               over ? ": OVERSUBSCRIBED (more processes than cores; relay threads and waiting "
                      "members share cores: figures are dominated by scheduling)"
                    : "");
        printf("- MPI library: %s\n", C.mpilib);
        printf("- thread level provided: %s (asked: MULTIPLE; MPI_Bcast runs under it too)\n",
               C.provided == SHOAL_THREAD_MULTIPLE     ? "MULTIPLE"
               : C.provided == SHOAL_THREAD_SERIALIZED ? "SERIALIZED"
                                                       : "lower");
#ifdef OMPI_MAJOR_VERSION
        const char *osc = getenv("OMPI_MCA_osc");
        printf("- Open MPI one-sided components: OMPI_MCA_osc=%s\n", osc ? osc : "(unset)");
#endif
        printf("- SHOAL_DIRECT=%d; path: %s (Shoal's mechanism to unit %d: %s); one-sided "
               "broadcast: %s\n",
               C.direct, C.path, (int)((C.me + 1) % C.p), shoal_mechanism_name(mech),
               C.rb_ok ? "enabled" : C.rb_reason);
        printf("- relay settings: SHOAL_RMA_BCAST_WAITER_US=%s, SHOAL_RMA_BCAST_FLUSH_US=%s, "
               "SHOAL_RMA_BCAST_RELAY_SPIN=%s, SHOAL_RMA_BCAST_RELAY_FOLLOW_US=%s, "
               "SHOAL_RMA_BCAST_RELAY_MAX_SLEEP_US=%s, SHOAL_RMA_BCAST_ALGO=%s; relay threads "
               "found at unit 0: %d\n",
               config_str("SHOAL_RMA_BCAST_WAITER_US", w, sizeof w),
               config_str("SHOAL_RMA_BCAST_FLUSH_US", f, sizeof f),
               config_str("SHOAL_RMA_BCAST_RELAY_SPIN", s, sizeof s),
               config_str("SHOAL_RMA_BCAST_RELAY_FOLLOW_US", fo, sizeof fo),
               config_str("SHOAL_RMA_BCAST_RELAY_MAX_SLEEP_US", ms, sizeof ms),
               config_str("SHOAL_RMA_BCAST_ALGO", al, sizeof al), C.nrelay);
        printf("- each figure: us per broadcast, the %s over %d interleaved batches of ~%.0f us "
               "(batch size calibrated per variant after a warm-up, up to %d); collective "
               "variants: the slowest unit's time, one-sided ones: the root's%s\n",
               C.use_min ? "MINIMUM (--stat min)" : "median", C.batches, C.batch_ns / 1e3,
               MAX_ITERS, C.quick ? "; --quick run" : "");
        printf("- every size's data checked once per variant at every member before timing\n");
        printf("- CPU binding: %s\n",
               C.pin ? "--pin: unit u and its relay thread on CPU u mod CPUs"
                     : "none (the scheduler places the threads; a relay that lands on the root's "
                       "CPU waits for the root's polls to yield: figures can differ from run to "
                       "run, --pin fixes the placement)");
        printf("- load average at start: %.2f\n", bench_loadavg());
        fflush(stdout);
    }
    for (int i = 0; i < C.nsizes; i++) {
        int over = (bench_now_ns() - C.t_start) / 1e9 > C.budget_s;
        MPI_Bcast(&over, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (over) C.over_budget = 1;
        measure_row(&C.rows[i]);
    }
    measure_idle();
    measure_slowdown(0);
    measure_slowdown(1);
    status = C.data_errors || C.call_errors ? 1 : 0;
    if (C.me == 0) {
        print_table();
        print_extra();
        print_summary();
        if (C.data_errors || C.call_errors)
            printf("\n%d variants with wrong data and %d failed calls (see stderr)\n",
                   C.data_errors, C.call_errors);
        printf("\nLoad average at the end: %.2f.\n", bench_loadavg());
        if (C.over_budget)
            printf("\nThe run went over its %.0f s budget (a busy machine?): later rows were "
                   "measured with 3 batches only.\n",
                   C.budget_s);
        printf("\nbench_rma_bcast: finished in %.1f s%s\n", (bench_now_ns() - C.t_start) / 1e9,
               status ? " WITH ERRORS" : "");
        fflush(stdout);
        if (csv) write_csv(csv);
        fflush(stdout);
    }
out:
    if (C.rb_ok) ok_or_die(shoal_rma_bcast_disable(C.rb), "shoal_rma_bcast_disable");
    shoal_team_memfree(C.ctl);
    shoal_team_memfree(C.sync);
    shoal_team_memfree(C.rb);
    free(C.mpibuf);
    free(C.expect);
    free(C.copy_src);
    free(C.copy_dst);
    shoal_finalize();
    return status;
}
