/* bench_rma: Shoal put/get against raw MPI RMA and the hardware floor, in one run.
 *
 * Run on 2 processes (more are allowed; they idle): unit 0 is the origin, unit 1 the target.
 * Metrics (as in DART-MPI, section V):
 *   - DTCT: completion time of a blocking put/get (ns per operation);
 *   - DTIT: initiation time of a non-blocking put/get (completed outside the timed region);
 *   - bandwidth of blocking put/get (size / DTCT) and of non-blocking put/get (many overlapping
 *     operations, completion included).
 * Each is measured for Shoal, for raw MPI on an MPI_Win_allocate window, for raw MPI on an
 * MPI_Win_create window over shm_open'd memory (the flavour Shoal's MPI path uses), and for the
 * floor (CPU stores/loads/memcpy into the peer's shared mapping, with a fence where the operation
 * must be complete). All variants of one size run interleaved, batch by batch; each figure is the
 * median over the batches (or the fastest batch with --stat min: on a loaded machine the fastest
 * batch is the one during which both processes kept their cores; the CSV always has both).
 *
 * Options: --quick (few sizes, short batches: a smoke test), --csv FILE (raw numbers),
 *          --batches N, --batch-us T (target duration of one batch), --stat median|min,
 *          --offset N (the origin's local buffers start N bytes into a page, 0-4095; a large
 *          malloc'd buffer starts 16 bytes in, which some CPUs' memcpy handles slowly against a
 *          page-aligned peer: xport/copy.h).
 * BENCH_TRACE=1 in the environment prints each size's measuring time and batch sizes on stderr.
 * Exit status: 0 when it ran (no performance threshold fails it); 1 when an operation returned an
 * error or moved wrong data; 2 on bad usage. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "shoal.h"

#define MAX_BYTES    ((size_t)4 << 20) /* largest message and size of every buffer */
#define MAX_NB       1000              /* outstanding non-blocking operations per batch */
#define MAX_BLOCKING 20000             /* blocking operations per batch */
#define MAX_BATCHES  101
#define TAG_DONE     4242
#define BW_MIN_SIZE  1024 /* bandwidth tables start here */

/* ---- Context --------------------------------------------------------------------------------- */
typedef struct {
    int quick;
    int batches;
    double batch_ns;
    double deadline_ns; /* past this, measure with few batches (busy machine) */
    int over_budget;
    int stat_min;    /* tables from the fastest batch instead of the median */
    char *src, *dst; /* origin's local buffers */
    size_t offset;   /* bytes into a page where they start (--offset) */
    char *src_mem, *dst_mem;
    shoal_gptr_t gp;   /* unit 1's part of a Shoal allocation */
    MPI_Win win_alloc; /* MPI_Win_allocate window */
    MPI_Win win_create;
    char *create_mem; /* my shm object, exposed by win_create */
    char *peer_mem;   /* unit 1's shm object mapped here (unit 0 only) */
    shoal_handle_t h[MAX_NB];
    MPI_Request req[MAX_NB];
    volatile uint64_t sink;
    int errors;
} ctx_t;

static ctx_t C;

/* Keeps the compiler from merging or dropping repeated copies into memory it cannot see read. */
#define COMPILER_BARRIER() __asm__ volatile("" ::: "memory")

static double fail(const char *what, shoal_err_t rc) {
    if (C.errors++ < 5) fprintf(stderr, "bench_rma: %s failed: %s\n", what, shoal_strerror(rc));
    return -1.0;
}

/* Offset of the i-th of several outstanding operations of size s (disjoint: n * s <= MAX_BYTES). */
static inline size_t off_of(long i, size_t s) {
    return ((size_t)i * s) % MAX_BYTES;
}

/* A run function performs n operations of s bytes and returns the nanoseconds of its timed
 * region, or -1 on error. */
typedef double (*run_fn)(size_t s, long n);

/* ---- Blocking put (DTCT) --------------------------------------------------------------------- */
static double put_shoal(size_t s, long n) {
    shoal_err_t rc = SHOAL_OK;
    double t0 = bench_now_ns();
    for (long i = 0; i < n && !rc; i++) rc = shoal_put(C.gp, C.src, s);
    double t = bench_now_ns() - t0;
    return rc ? fail("shoal_put", rc) : t;
}
static double put_mpi(MPI_Win w, size_t s, long n) {
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++) {
        MPI_Put(C.src, (int)s, MPI_BYTE, 1, 0, (int)s, MPI_BYTE, w);
        MPI_Win_flush(1, w);
    }
    return bench_now_ns() - t0;
}
static double put_alloc(size_t s, long n) {
    return put_mpi(C.win_alloc, s, n);
}
static double put_create(size_t s, long n) {
    return put_mpi(C.win_create, s, n);
}
static double put_floor(size_t s, long n) {
    double t0 = bench_now_ns();
    if (s == 8) {
        volatile uint64_t *p = (volatile uint64_t *)C.peer_mem;
        for (long i = 0; i < n; i++) {
            *p = (uint64_t)i;
            atomic_thread_fence(memory_order_seq_cst);
        }
    } else {
        for (long i = 0; i < n; i++) {
            memcpy(C.peer_mem, C.src, s);
            atomic_thread_fence(memory_order_seq_cst);
        }
    }
    return bench_now_ns() - t0;
}
static double memcpy_local(size_t s, long n) {
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++) {
        memcpy(C.dst, C.src, s);
        COMPILER_BARRIER();
    }
    return bench_now_ns() - t0;
}

/* ---- Blocking get (DTCT) --------------------------------------------------------------------- */
static double get_shoal(size_t s, long n) {
    shoal_err_t rc = SHOAL_OK;
    double t0 = bench_now_ns();
    for (long i = 0; i < n && !rc; i++) rc = shoal_get(C.dst, C.gp, s);
    double t = bench_now_ns() - t0;
    return rc ? fail("shoal_get", rc) : t;
}
static double get_mpi(MPI_Win w, size_t s, long n) {
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++) {
        MPI_Get(C.dst, (int)s, MPI_BYTE, 1, 0, (int)s, MPI_BYTE, w);
        MPI_Win_flush(1, w);
    }
    return bench_now_ns() - t0;
}
static double get_alloc(size_t s, long n) {
    return get_mpi(C.win_alloc, s, n);
}
static double get_create(size_t s, long n) {
    return get_mpi(C.win_create, s, n);
}
static double get_floor(size_t s, long n) {
    double t0 = bench_now_ns();
    if (s == 8) {
        volatile uint64_t *p = (volatile uint64_t *)C.peer_mem;
        uint64_t acc = 0;
        for (long i = 0; i < n; i++) {
            acc += *p;
            atomic_thread_fence(memory_order_seq_cst);
        }
        C.sink = acc;
    } else {
        for (long i = 0; i < n; i++) {
            memcpy(C.dst, C.peer_mem, s);
            atomic_thread_fence(memory_order_seq_cst);
        }
    }
    return bench_now_ns() - t0;
}
/* The plain 8-byte load, no fence (reported in the summary only). */
static double load_plain(size_t s, long n) {
    (void)s;
    volatile uint64_t *p = (volatile uint64_t *)C.peer_mem;
    uint64_t acc = 0;
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++) acc += *p;
    double t = bench_now_ns() - t0;
    C.sink = acc;
    return t;
}

/* ---- Non-blocking put/get: initiation (DTIT) or, with timed completion, bandwidth ------------ */
static double putnb_shoal(size_t s, long n, int timed_completion) {
    shoal_err_t rc = SHOAL_OK;
    double t0 = bench_now_ns();
    for (long i = 0; i < n && !rc; i++) {
        size_t o = off_of(i, s);
        rc = shoal_put_nb(shoal_gptr_add(C.gp, (int64_t)o), C.src + o, s, &C.h[i]);
    }
    double t1 = bench_now_ns();
    if (rc) return fail("shoal_put_nb", rc); /* handles of failed calls were left NULL */
    shoal_err_t rc2 = shoal_waitall(C.h, (size_t)n);
    if (!rc2) rc2 = shoal_flush(C.gp);
    double t2 = bench_now_ns();
    if (rc2) return fail("shoal_waitall/shoal_flush after shoal_put_nb", rc2);
    return (timed_completion ? t2 : t1) - t0;
}
static double getnb_shoal(size_t s, long n, int timed_completion) {
    shoal_err_t rc = SHOAL_OK;
    double t0 = bench_now_ns();
    for (long i = 0; i < n && !rc; i++) {
        size_t o = off_of(i, s);
        rc = shoal_get_nb(C.dst + o, shoal_gptr_add(C.gp, (int64_t)o), s, &C.h[i]);
    }
    double t1 = bench_now_ns();
    if (rc) return fail("shoal_get_nb", rc);
    shoal_err_t rc2 = shoal_waitall(C.h, (size_t)n);
    double t2 = bench_now_ns();
    if (rc2) return fail("shoal_waitall after shoal_get_nb", rc2);
    return (timed_completion ? t2 : t1) - t0;
}
/* MPI_Waitall on the first n requests. (GCC 12 takes MPICH's MPI_STATUSES_IGNORE, a pointer
 * constant, for an empty array and warns; the call is correct.) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
static void wait_requests(long n) {
    MPI_Waitall((int)n, C.req, MPI_STATUSES_IGNORE);
}
#pragma GCC diagnostic pop

static double putnb_mpi(MPI_Win w, size_t s, long n, int timed_completion) {
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++) {
        size_t o = off_of(i, s);
        MPI_Rput(C.src + o, (int)s, MPI_BYTE, 1, (MPI_Aint)o, (int)s, MPI_BYTE, w, &C.req[i]);
    }
    double t1 = bench_now_ns();
    wait_requests(n);    /* local completion */
    MPI_Win_flush(1, w); /* remote completion */
    double t2 = bench_now_ns();
    return (timed_completion ? t2 : t1) - t0;
}
static double getnb_mpi(MPI_Win w, size_t s, long n, int timed_completion) {
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++) {
        size_t o = off_of(i, s);
        MPI_Rget(C.dst + o, (int)s, MPI_BYTE, 1, (MPI_Aint)o, (int)s, MPI_BYTE, w, &C.req[i]);
    }
    double t1 = bench_now_ns();
    wait_requests(n);
    double t2 = bench_now_ns();
    return (timed_completion ? t2 : t1) - t0;
}
/* The floor of a non-blocking put: the copy itself; the fence only once, at completion. */
static double putnb_floor(size_t s, long n, int timed_completion) {
    double t0 = bench_now_ns();
    if (s == 8) {
        for (long i = 0; i < n; i++)
            *(volatile uint64_t *)(C.peer_mem + off_of(i, s)) = (uint64_t)i;
    } else {
        for (long i = 0; i < n; i++) {
            size_t o = off_of(i, s);
            memcpy(C.peer_mem + o, C.src + o, s);
            COMPILER_BARRIER();
        }
    }
    double t1 = bench_now_ns();
    atomic_thread_fence(memory_order_seq_cst);
    double t2 = bench_now_ns();
    return (timed_completion ? t2 : t1) - t0;
}
static double getnb_floor(size_t s, long n, int timed_completion) {
    double t0 = bench_now_ns();
    if (s == 8) {
        uint64_t acc = 0;
        for (long i = 0; i < n; i++) acc += *(volatile uint64_t *)(C.peer_mem + off_of(i, s));
        C.sink = acc;
    } else {
        for (long i = 0; i < n; i++) {
            size_t o = off_of(i, s);
            memcpy(C.dst + o, C.peer_mem + o, s);
            COMPILER_BARRIER();
        }
    }
    double t1 = bench_now_ns();
    atomic_thread_fence(memory_order_seq_cst);
    double t2 = bench_now_ns();
    return (timed_completion ? t2 : t1) - t0;
}

static double it_put_shoal(size_t s, long n) {
    return putnb_shoal(s, n, 0);
}
static double it_put_alloc(size_t s, long n) {
    return putnb_mpi(C.win_alloc, s, n, 0);
}
static double it_put_create(size_t s, long n) {
    return putnb_mpi(C.win_create, s, n, 0);
}
static double it_put_floor(size_t s, long n) {
    return putnb_floor(s, n, 0);
}
static double it_get_shoal(size_t s, long n) {
    return getnb_shoal(s, n, 0);
}
static double it_get_alloc(size_t s, long n) {
    return getnb_mpi(C.win_alloc, s, n, 0);
}
static double it_get_create(size_t s, long n) {
    return getnb_mpi(C.win_create, s, n, 0);
}
static double it_get_floor(size_t s, long n) {
    return getnb_floor(s, n, 0);
}
static double bw_put_shoal(size_t s, long n) {
    return putnb_shoal(s, n, 1);
}
static double bw_put_alloc(size_t s, long n) {
    return putnb_mpi(C.win_alloc, s, n, 1);
}
static double bw_put_create(size_t s, long n) {
    return putnb_mpi(C.win_create, s, n, 1);
}
static double bw_put_floor(size_t s, long n) {
    return putnb_floor(s, n, 1);
}
static double bw_get_shoal(size_t s, long n) {
    return getnb_shoal(s, n, 1);
}
static double bw_get_alloc(size_t s, long n) {
    return getnb_mpi(C.win_alloc, s, n, 1);
}
static double bw_get_create(size_t s, long n) {
    return getnb_mpi(C.win_create, s, n, 1);
}
static double bw_get_floor(size_t s, long n) {
    return getnb_floor(s, n, 1);
}

/* ---- Measurement ----------------------------------------------------------------------------- */
/* Columns of every table. */
enum { V_SHOAL, V_ALLOC, V_CREATE, V_FLOOR, V_LOCAL, NV };
static const char *const v_csv_name[NV] = {"shoal", "mpi_allocate", "mpi_create", "floor",
                                           "memcpy_local"};

/* Picks how many operations make one batch of about batch_ns of wall time (also the warm-up).
 * Wall time, not the timed region: a non-blocking batch's completion is untimed but still has to
 * fit the run's budget. 0 on error. */
static long calibrate(run_fn fn, size_t s, long cap) {
    long n = 1;
    double w;
    for (;;) {
        w = INFINITY;
        for (int k = 0; k < 2; k++) { /* the faster of two, so one hiccup does not decide */
            double w0 = bench_now_ns();
            if (fn(s, n) < 0) return 0;
            double d = bench_now_ns() - w0;
            if (d < w) w = d;
        }
        if (w >= C.batch_ns / 4 || n >= cap) break;
        n = n * 4 > cap ? cap : n * 4;
    }
    double want = w > 0 ? (double)n * C.batch_ns / w : (double)cap;
    if (want > (double)cap) want = (double)cap;
    if (want < 1) want = 1;
    /* one more warm-up batch at the final count */
    if (fn(s, (long)want) < 0) return 0;
    return (long)want;
}

/* Runs the variants fns[0..NV) (NULL entries are skipped) interleaved, batch by batch, and stores
 * the ns per operation of each in out[] (median or fastest batch, as --stat says) and in alt[]
 * (the other statistic); NAN when not measured or failed. */
static void measure(size_t s, run_fn const fns[NV], long cap, double out[NV], double alt[NV]) {
    static double samples[NV][MAX_BATCHES];
    long n[NV];
    int ok[NV];
    for (int v = 0; v < NV; v++) {
        out[v] = alt[v] = NAN;
        ok[v] = 0;
        if (!fns[v]) continue;
        n[v] = calibrate(fns[v], s, cap);
        ok[v] = n[v] > 0;
    }
    int batches = C.batches;
    if (bench_now_ns() > C.deadline_ns && batches > 3) {
        batches = 3;
        C.over_budget = 1;
    }
    uint64_t rng = 0x9E3779B97F4A7C15ULL ^ (uint64_t)s;
    for (int b = 0; b < batches; b++) {
        int order[NV];
        bench_shuffle(order, NV, &rng); /* a new order each batch: no variant always follows
                                         * another (and inherits its cache state) */
        for (int k = 0; k < NV; k++) {
            int v = order[k];
            if (!ok[v]) continue;
            double w0 = bench_now_ns();
            double t = fns[v](s, n[v]);
            double w = bench_now_ns() - w0;
            if (t < 0) {
                ok[v] = 0;
                continue;
            }
            samples[v][b] = t / (double)n[v];
            /* A batch far over its time (the target was descheduled on a busy machine): shrink
             * the later ones so the run keeps to its budget. */
            if (w > 4 * C.batch_ns && n[v] > 1) {
                double m = (double)n[v] * C.batch_ns / w;
                n[v] = m < 1 ? 1 : (long)m;
            }
        }
    }
    for (int v = 0; v < NV; v++) {
        if (!ok[v]) continue;
        double med = bench_quantile(samples[v], batches, 0.5), min = samples[v][0]; /* now sorted */
        out[v] = C.stat_min ? min : med;
        alt[v] = C.stat_min ? med : min;
    }
    if (getenv("BENCH_TRACE")) {
        static double last;
        double t = bench_now_ns();
        fprintf(stderr, "size %zu: %.3f s; n =", s, last ? (t - last) / 1e9 : 0.0);
        for (int v = 0; v < NV; v++) fprintf(stderr, " %ld", fns[v] && ok[v] ? n[v] : 0L);
        fprintf(stderr, "\n");
        last = t;
    }
}

/* ---- Results --------------------------------------------------------------------------------- */
enum { M_PUT_CT, M_GET_CT, M_PUT_IT, M_GET_IT, M_PUT_BWNB, M_GET_BWNB, NM };
#define MAX_SIZES 32
static size_t sizes[MAX_SIZES];
static int nsizes;
static double res[NM][MAX_SIZES][NV];     /* ns per operation, the --stat statistic */
static double res_alt[NM][MAX_SIZES][NV]; /* the other statistic (CSV only) */
static double plain_load_8 = NAN;

static const char *fmt_num(double x, char *buf, size_t len) {
    if (isnan(x))
        snprintf(buf, len, "err");
    else if (fabs(x) >= 1000)
        snprintf(buf, len, "%.0f", x);
    else if (fabs(x) >= 100)
        snprintf(buf, len, "%.1f", x);
    else
        snprintf(buf, len, "%.2f", x);
    return buf;
}
static const char *fmt_ratio(double x, char *buf, size_t len) {
    if (isnan(x) || isinf(x))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.2f", x);
    return buf;
}
static double gbps(size_t s, double ns) {
    return (double)s / ns;
} /* bytes/ns == GB/s */

static const char *metric_title[NM] = {"Blocking put: completion time (DTCT)",
                                       "Blocking get: completion time (DTCT)",
                                       "Non-blocking put: initiation time (DTIT)",
                                       "Non-blocking get: initiation time (DTIT)",
                                       "Non-blocking put: bandwidth (completion timed)",
                                       "Non-blocking get: bandwidth (completion timed)"};
static const char *metric_csv[NM] = {"put_dtct",    "get_dtct",  "put_nb_dtit",
                                     "get_nb_dtit", "put_nb_bw", "get_nb_bw"};
static const char *metric_floor[NM] = {
    "8 B: one 8-byte store + seq_cst fence; other sizes: memcpy into the peer's shared mapping + "
    "fence",
    "8 B: one 8-byte load + seq_cst fence; other sizes: memcpy from the peer's shared mapping + "
    "fence",
    "the store (8 B) or memcpy into the peer's mapping alone, no fence",
    "the load (8 B) or memcpy from the peer's mapping alone, no fence",
    "memcpy into the peer's mapping, one fence at the end of the batch",
    "memcpy from the peer's mapping, one fence at the end of the batch"};

/* A time table (ns per op). */
static void print_time_table(int m) {
    char a[32], b[5][32], c[3][32];
    printf("\n### %s, ns per operation (lower is better)\n\n", metric_title[m]);
    printf(
        "| size | Shoal | MPI(allocate) | MPI(create) | floor | overhead ns (Shoal - MPI create) "
        "| ratio Shoal/MPI(allocate) | ratio Shoal/floor |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < nsizes; i++) {
        const double *r = res[m][i];
        printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", bench_fmt_size(sizes[i], a, sizeof a),
               fmt_num(r[V_SHOAL], b[0], 32), fmt_num(r[V_ALLOC], b[1], 32),
               fmt_num(r[V_CREATE], b[2], 32), fmt_num(r[V_FLOOR], b[3], 32),
               fmt_num(r[V_SHOAL] - r[V_CREATE], c[0], 32),
               fmt_ratio(r[V_SHOAL] / r[V_ALLOC], c[1], 32),
               fmt_ratio(r[V_SHOAL] / r[V_FLOOR], c[2], 32));
    }
    printf("\nfloor: %s.\n", metric_floor[m]);
}

/* A bandwidth table (GB/s) from the times of metric m, sizes >= BW_MIN_SIZE. */
static void print_bw_table(int m, const char *title, int with_local) {
    char a[32], b[5][32], c[3][32];
    printf("\n### %s, GB/s (1e9 B/s; higher is better)\n\n", title);
    printf("| size | Shoal | MPI(allocate) | MPI(create) | floor |%s overhead ns (Shoal - MPI "
           "create) | ratio Shoal/MPI(allocate) | ratio Shoal/floor |\n",
           with_local ? " memcpy local |" : "");
    printf("|---:|---:|---:|---:|---:|%s---:|---:|---:|\n", with_local ? "---:|" : "");
    for (int i = 0; i < nsizes; i++) {
        size_t s = sizes[i];
        if (s < BW_MIN_SIZE) continue;
        const double *r = res[m][i];
        printf("| %s | %s | %s | %s | %s |", bench_fmt_size(s, a, sizeof a),
               fmt_num(gbps(s, r[V_SHOAL]), b[0], 32), fmt_num(gbps(s, r[V_ALLOC]), b[1], 32),
               fmt_num(gbps(s, r[V_CREATE]), b[2], 32), fmt_num(gbps(s, r[V_FLOOR]), b[3], 32));
        if (with_local) printf(" %s |", fmt_num(gbps(s, res[M_PUT_CT][i][V_LOCAL]), b[4], 32));
        printf(" %s | %s | %s |\n", fmt_num(r[V_SHOAL] - r[V_CREATE], c[0], 32),
               fmt_ratio(r[V_ALLOC] / r[V_SHOAL], c[1], 32),
               fmt_ratio(r[V_FLOOR] / r[V_SHOAL], c[2], 32));
    }
}

static void write_csv(const char *path, const char *mpi, int direct) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "bench_rma: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    fprintf(f, "mpi,direct,stat,metric,size_bytes,unit");
    for (int v = 0; v < NV; v++) fprintf(f, ",%s", v_csv_name[v]);
    fprintf(f, "\n");
    for (int k = 0; k < 2; k++) {
        int is_min = k == 0 ? C.stat_min : !C.stat_min;
        for (int m = 0; m < NM; m++)
            for (int i = 0; i < nsizes; i++) {
                fprintf(f, "\"%s\",%d,%s,%s,%zu,ns_per_op", mpi, direct, is_min ? "min" : "median",
                        metric_csv[m], sizes[i]);
                for (int v = 0; v < NV; v++) {
                    double x = (k == 0 ? res : res_alt)[m][i][v];
                    if (isnan(x))
                        fprintf(f, ",");
                    else
                        fprintf(f, ",%.3f", x);
                }
                fprintf(f, "\n");
            }
    }
    fclose(f);
}

/* ---- Setup ----------------------------------------------------------------------------------- */
static void die(const char *msg) {
    fprintf(stderr, "bench_rma: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static char *map_shm(const char *name, int create) {
    int fd = shm_open(name, create ? O_CREAT | O_EXCL | O_RDWR : O_RDWR, 0600);
    if (fd < 0) return NULL;
    if (create && ftruncate(fd, (off_t)MAX_BYTES) != 0) {
        close(fd);
        shm_unlink(name);
        return NULL;
    }
    void *p = mmap(NULL, MAX_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : (char *)p;
}

/* The value of SHOAL_DIRECT in force (config table), falling back to the environment. */
static int direct_in_force(void) {
    int n = shoal_config_count();
    for (int i = 0; i < n; i++) {
        shoal_config_var_t var;
        if (shoal_config_var(i, &var) == SHOAL_OK && strcmp(var.name, "SHOAL_DIRECT") == 0)
            return atoi(var.value) != 0 || strcmp(var.value, "true") == 0 ||
                   strcmp(var.value, "on") == 0;
    }
    const char *e = getenv("SHOAL_DIRECT");
    return e ? atoi(e) != 0 : 1;
}

/* Moves a pattern through each path and back, so no variant measures an operation that does
 * nothing. Returns the number of mismatches. */
static int verify(void) {
    int bad = 0;
    for (size_t i = 0; i < MAX_BYTES; i++) C.src[i] = (char)(i * 31 + 7);
    /* Shoal */
    memset(C.dst, 0, MAX_BYTES);
    shoal_err_t rc = shoal_put(C.gp, C.src, MAX_BYTES);
    if (!rc) rc = shoal_get(C.dst, C.gp, MAX_BYTES);
    if (rc || memcmp(C.src, C.dst, MAX_BYTES) != 0) {
        fprintf(stderr, "bench_rma: verify: Shoal put/get round trip wrong (%s)\n",
                shoal_strerror(rc));
        bad++;
    }
    /* MPI allocate window */
    memset(C.dst, 0, MAX_BYTES);
    MPI_Put(C.src, (int)MAX_BYTES, MPI_BYTE, 1, 0, (int)MAX_BYTES, MPI_BYTE, C.win_alloc);
    MPI_Win_flush(1, C.win_alloc);
    MPI_Get(C.dst, (int)MAX_BYTES, MPI_BYTE, 1, 0, (int)MAX_BYTES, MPI_BYTE, C.win_alloc);
    MPI_Win_flush(1, C.win_alloc);
    if (memcmp(C.src, C.dst, MAX_BYTES) != 0) {
        fprintf(stderr, "bench_rma: verify: MPI put/get on the allocate window wrong\n");
        bad++;
    }
    /* MPI create window: the data must land in the peer's shared mapping */
    memset(C.peer_mem, 0, MAX_BYTES);
    MPI_Put(C.src, (int)MAX_BYTES, MPI_BYTE, 1, 0, (int)MAX_BYTES, MPI_BYTE, C.win_create);
    MPI_Win_flush(1, C.win_create);
    if (memcmp(C.src, C.peer_mem, MAX_BYTES) != 0) {
        fprintf(stderr, "bench_rma: verify: MPI put on the create window missed the mapping\n");
        bad++;
    }
    memset(C.dst, 0, MAX_BYTES);
    MPI_Get(C.dst, (int)MAX_BYTES, MPI_BYTE, 1, 0, (int)MAX_BYTES, MPI_BYTE, C.win_create);
    MPI_Win_flush(1, C.win_create);
    if (memcmp(C.src, C.dst, MAX_BYTES) != 0) {
        fprintf(stderr, "bench_rma: verify: MPI get on the create window wrong\n");
        bad++;
    }
    /* Shoal non-blocking, 64 KiB pieces */
    memset(C.dst, 0, MAX_BYTES);
    size_t piece = 64 * 1024;
    long n = (long)(MAX_BYTES / piece);
    rc = SHOAL_OK;
    for (long i = 0; i < n; i++) C.h[i] = SHOAL_HANDLE_NULL;
    for (long i = 0; i < n && !rc; i++)
        rc = shoal_get_nb(C.dst + i * piece, shoal_gptr_add(C.gp, (int64_t)(i * piece)), piece,
                          &C.h[i]);
    shoal_err_t rc2 = shoal_waitall(C.h, (size_t)n);
    if (rc || rc2 || memcmp(C.src, C.dst, MAX_BYTES) != 0) {
        fprintf(stderr, "bench_rma: verify: Shoal get_nb wrong (%s / %s)\n", shoal_strerror(rc),
                shoal_strerror(rc2));
        bad++;
    }
    return bad;
}

/* ---- Summary --------------------------------------------------------------------------------- */
/* Paired estimate of Shoal's per-op overhead over the same MPI call on the create window, at 8 B:
 * many rounds of one Shoal batch and one MPI batch back to back (order alternating); q[1] is the
 * median of the per-round differences, q[0] and q[2] their quartiles, q[3] the fastest Shoal
 * batch minus the fastest MPI batch. The median of paired differences stays honest on a loaded
 * machine, where two unpaired figures can each catch a different hiccup. */
static void paired_overhead(run_fn shoal, run_fn mpi, long cap, double q[4]) {
    int rounds = C.quick ? 9 : MAX_BATCHES;
    static double d[MAX_BATCHES];
    double amin = INFINITY, bmin = INFINITY;
    q[0] = q[1] = q[2] = q[3] = NAN;
    long n1 = calibrate(shoal, 8, cap), n2 = calibrate(mpi, 8, cap);
    if (!n1 || !n2) return;
    long n = n1 < n2 ? n1 : n2;
    for (int r = 0; r < rounds; r++) {
        double a, b;
        if (r & 1) {
            b = mpi(8, n);
            a = shoal(8, n);
        } else {
            a = shoal(8, n);
            b = mpi(8, n);
        }
        if (a < 0 || b < 0) return;
        d[r] = (a - b) / (double)n;
        if (a / (double)n < amin) amin = a / (double)n;
        if (b / (double)n < bmin) bmin = b / (double)n;
    }
    q[0] = bench_quantile(d, rounds, 0.25);
    q[1] = bench_quantile(d, rounds, 0.5);
    q[3] = amin - bmin;
    q[2] = bench_quantile(d, rounds, 0.75);
}

static int size_index(size_t s) {
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] == s) return i;
    return -1;
}

static void print_summary(int direct) {
    char a[32];
    int i8 = size_index(8);
    const double *pc = res[M_PUT_CT][i8], *gc = res[M_GET_CT][i8];
    double qp[4], qg[4], qnp[4], qng[4];
    paired_overhead(put_shoal, put_create, MAX_BLOCKING, qp);
    paired_overhead(get_shoal, get_create, MAX_BLOCKING, qg);
    paired_overhead(it_put_shoal, it_put_create, MAX_NB, qnp);
    paired_overhead(it_get_shoal, it_get_create, MAX_NB, qng);
    plain_load_8 = NAN;
    {
        long n = calibrate(load_plain, 8, MAX_BLOCKING);
        static double t[MAX_BATCHES];
        for (int b = 0; n && b < C.batches; b++) t[b] = load_plain(8, n) / (double)n;
        if (n) plain_load_8 = bench_quantile(t, C.batches, 0.5);
        if (n && C.stat_min) plain_load_8 = t[0];
    }

    printf("\n### Summary against the targets (SHOAL_DIRECT=%d)\n\n", direct);
    /* (1) */
    int ok1 = qp[1] <= 20 && qg[1] <= 20;
    printf("- (1) direct path off: Shoal's per-op overhead over the same raw MPI call (MPI_Put/Get "
           "+ MPI_Win_flush on an MPI_Win_create window), 8 B, target <= 20 ns: put %+.1f ns, get "
           "%+.1f ns (median of %d paired rounds; quartiles put %+.1f..%+.1f, get %+.1f..%+.1f; "
           "fastest batches differ by put %+.1f, get %+.1f; table figures: put Shoal %.1f vs MPI "
           "%.1f ns, get %.1f vs %.1f ns): %s\n",
           qp[1], qg[1], C.quick ? 9 : MAX_BATCHES, qp[0], qp[2], qg[0], qg[2], qp[3], qg[3],
           pc[V_SHOAL], pc[V_CREATE], gc[V_SHOAL], gc[V_CREATE],
           direct ? "n/a here (direct path on: Shoal does not call MPI; shown for information)"
                  : (ok1 ? "MET" : "MISSED"));
    printf("- (1b) direct path off, non-blocking: initiation of shoal_put_nb/shoal_get_nb over "
           "MPI_Rput/MPI_Rget on the create window, 8 B, paired as (1), target <= 20 ns: put "
           "%+.1f ns, get %+.1f ns (quartiles put %+.1f..%+.1f, get %+.1f..%+.1f; fastest batches "
           "differ by put %+.1f, get %+.1f): %s\n",
           qnp[1], qng[1], qnp[0], qnp[2], qng[0], qng[2], qnp[3], qng[3],
           direct ? "n/a here (direct path on: no MPI call to compare with)"
                  : (qnp[1] <= 20 && qng[1] <= 20 ? "MET" : "MISSED"));
    /* (2) */
    double rp = pc[V_SHOAL] / pc[V_FLOOR], rg = gc[V_SHOAL] / gc[V_FLOOR];
    int ok2a = rp <= 2 && rg <= 2;
    int ok2b = pc[V_SHOAL] < pc[V_ALLOC] && gc[V_SHOAL] < gc[V_ALLOC];
    const char *na2 = "n/a here (direct path off; shown for information)";
    printf("- (2a) direct path on: 8 B blocking put/get vs raw store/load + fence, target within "
           "2x: put %.1f ns vs store+fence %.1f ns (%.2fx), get %.1f ns vs load+fence %.1f ns "
           "(%.2fx; plain load without fence %s ns): %s\n",
           pc[V_SHOAL], pc[V_FLOOR], rp, gc[V_SHOAL], gc[V_FLOOR], rg,
           fmt_num(plain_load_8, a, sizeof a), direct ? (ok2a ? "MET" : "MISSED") : na2);
    printf("- (2b) direct path on: 8 B blocking put/get vs MPI_Put/MPI_Get + MPI_Win_flush on an "
           "MPI_Win_allocate window, target faster: put %.1f ns vs %.1f ns (%.3fx), get %.1f ns "
           "vs %.1f ns (%.3fx): %s\n",
           pc[V_SHOAL], pc[V_ALLOC], pc[V_SHOAL] / pc[V_ALLOC], gc[V_SHOAL], gc[V_ALLOC],
           gc[V_SHOAL] / gc[V_ALLOC], direct ? (ok2b ? "MET" : "MISSED") : na2);
    /* (3) */
    double worst[2] = {INFINITY, INFINITY}, worst_local[2] = {INFINITY, INFINITY};
    size_t worst_at[2] = {0, 0};
    int counted = 0;
    for (int i = 0; i < nsizes; i++) {
        if (sizes[i] < 65536) continue;
        counted++;
        for (int k = 0; k < 2; k++) {
            const double *r = res[k == 0 ? M_PUT_CT : M_GET_CT][i];
            double frac = r[V_FLOOR] / r[V_SHOAL]; /* bandwidth fraction */
            double frac_local = res[M_PUT_CT][i][V_LOCAL] / r[V_SHOAL];
            if (!(frac >= worst[k])) {
                worst[k] = frac;
                worst_at[k] = sizes[i];
            }
            if (!(frac_local >= worst_local[k])) worst_local[k] = frac_local;
        }
    }
    char s0[32], s1[32];
    if (counted)
        printf("- (3) put/get bandwidth vs memcpy (into/from the peer's shared mapping) at 64 KiB "
               "and up, target >= 90%%: put worst %.0f%% (at %s), get worst %.0f%% (at %s); "
               "against local memcpy: put worst %.0f%%, get worst %.0f%%: %s\n",
               100 * worst[0], bench_fmt_size(worst_at[0], s0, sizeof s0), 100 * worst[1],
               bench_fmt_size(worst_at[1], s1, sizeof s1), 100 * worst_local[0],
               100 * worst_local[1],
               direct ? (worst[0] >= 0.9 && worst[1] >= 0.9 ? "MET" : "MISSED")
                      : "n/a here (direct path off: MPI moves the data; shown for information)");
    else
        printf("- (3) bandwidth at 64 KiB and up: not measured in this run\n");
}

/* ---- Main ------------------------------------------------------------------------------------ */
/* shoal_mpi_library() with runs of blanks (MPICH's "Version:\t") folded to one space. */
static const char *mpi_name(void) {
    static char buf[128];
    return bench_squeeze_blanks(shoal_mpi_library(), 0, buf, sizeof buf);
}

static void usage(void) {
    fprintf(stderr, "usage: bench_rma [--quick] [--csv FILE] [--batches N] [--batch-us T] "
                    "[--stat median|min] [--offset N]\n");
}

int main(int argc, char **argv) {
    const char *csv = NULL;
    int batches = -1;
    double batch_us = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            C.quick = 1;
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv = argv[++i];
        else if (strcmp(argv[i], "--batches") == 0 && i + 1 < argc)
            batches = atoi(argv[++i]);
        else if (strcmp(argv[i], "--stat") == 0 && i + 1 < argc &&
                 (strcmp(argv[i + 1], "min") == 0 || strcmp(argv[i + 1], "median") == 0))
            C.stat_min = strcmp(argv[++i], "min") == 0;
        else if (strcmp(argv[i], "--batch-us") == 0 && i + 1 < argc)
            batch_us = atof(argv[++i]);
        else if (strcmp(argv[i], "--offset") == 0 && i + 1 < argc && atoi(argv[i + 1]) >= 0 &&
                 atoi(argv[i + 1]) < 4096)
            C.offset = (size_t)atoi(argv[++i]);
        else {
            usage();
            return 2;
        }
    }
    C.batches = batches > 0 ? batches : (C.quick ? 5 : 21);
    if (C.batches > MAX_BATCHES) C.batches = MAX_BATCHES;
    C.batch_ns = 1e3 * (batch_us > 0 ? batch_us : (C.quick ? 200 : 2000));
    double budget_s = C.quick ? 40 : 120; /* ordinarily a run takes a fraction of this */

    if (shoal_init(&argc, &argv) != SHOAL_OK) {
        fprintf(stderr, "bench_rma: shoal_init failed\n");
        return 1;
    }
    shoal_unit_t me;
    int32_t nunits;
    shoal_myid(&me);
    shoal_size(&nunits);
    if (nunits < 2) {
        if (me == 0) fprintf(stderr, "bench_rma: needs 2 processes (unit 0 -> unit 1)\n");
        shoal_finalize();
        return 2;
    }
    int direct = direct_in_force();

    /* Sizes: powers of two from 1 B to 4 MiB (8 B always among them). */
    if (C.quick) {
        const size_t q[] = {1, 8, 1024, 65536, (size_t)1 << 20};
        for (size_t i = 0; i < sizeof q / sizeof *q; i++) sizes[nsizes++] = q[i];
    } else {
        for (size_t s = 1; s <= MAX_BYTES; s *= 2) sizes[nsizes++] = s;
    }

    /* Buffers and windows (collective). */
    if (posix_memalign((void **)&C.src_mem, 4096, MAX_BYTES + 4096) ||
        posix_memalign((void **)&C.dst_mem, 4096, MAX_BYTES + 4096))
        die("out of memory");
    C.src = C.src_mem + C.offset;
    C.dst = C.dst_mem + C.offset;
    memset(C.src, 1, MAX_BYTES);
    memset(C.dst, 2, MAX_BYTES);
    shoal_gptr_t mine;
    shoal_err_t rc = shoal_team_memalloc(SHOAL_TEAM_ALL, MAX_BYTES, &mine);
    if (rc) die("shoal_team_memalloc failed");
    C.gp = shoal_gptr_setunit(mine, 1);

    void *alloc_base;
    MPI_Win_allocate((MPI_Aint)MAX_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &alloc_base,
                     &C.win_alloc);
    memset(alloc_base, 0, MAX_BYTES);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, C.win_alloc);

    int tag = (int)getpid();
    MPI_Bcast(&tag, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char name[64], peer_name[64];
    snprintf(name, sizeof name, "/shoal_bench_rma.%d.%d", tag, (int)me);
    snprintf(peer_name, sizeof peer_name, "/shoal_bench_rma.%d.%d", tag, 1);
    C.create_mem = map_shm(name, 1);
    int okmap = C.create_mem != NULL, allok;
    MPI_Allreduce(&okmap, &allok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!allok) die("shm_open/mmap of the create-window memory failed");
    memset(C.create_mem, 0, MAX_BYTES);
    if (me == 0) {
        C.peer_mem = map_shm(peer_name, 0);
        okmap = C.peer_mem != NULL;
    }
    MPI_Allreduce(&okmap, &allok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    shm_unlink(name); /* everyone who needs it has mapped it */
    if (!allok) die("mapping the peer's shared memory failed");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ordering", "none"); /* as Shoal's own windows */
    MPI_Win_create(C.create_mem, (MPI_Aint)MAX_BYTES, 1, info, MPI_COMM_WORLD, &C.win_create);
    MPI_Info_free(&info);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, C.win_create);
    MPI_Barrier(MPI_COMM_WORLD);

    int status = 0;
    if (me == 0) {
        shoal_mechanism_t mech = SHOAL_MECH_MPI;
        shoal_peer_mechanism(1, &mech);
        double t_start = bench_now_ns();
        C.deadline_ns = t_start + budget_s * 1e9;
        int bad = verify();
        if (bad) status = 1;

        printf("## bench_rma: %s, SHOAL_DIRECT=%d\n\n", mpi_name(), direct);
        printf("- MPI library: %s\n", mpi_name());
        printf("- SHOAL_DIRECT=%d (%s); Shoal's mechanism to unit 1: %s\n", direct,
               direct ? "direct path on: shared memory" : "direct path off: MPI RMA",
               shoal_mechanism_name(mech));
        printf("- the origin's local buffers start %zu bytes into a page%s\n", C.offset,
               C.offset ? " (--offset)" : "");
        printf("- %d processes; origin unit 0, target unit 1 (it polls MPI_Iprobe + sched_yield "
               "so passive-target operations progress)\n",
               (int)nunits);
        printf("- each figure: %s of %d interleaved batches of ~%.0f us (batch size "
               "calibrated per variant, up to %d blocking or %d outstanding non-blocking "
               "operations)%s\n",
               C.stat_min ? "the fastest (--stat min)" : "median", C.batches, C.batch_ns / 1e3,
               MAX_BLOCKING, MAX_NB, C.quick ? "; --quick run" : "");
        printf("- MPI(allocate): MPI_Win_allocate window; MPI(create): MPI_Win_create over "
               "shm_open'd memory (Shoal's MPI-path flavour); both under MPI_Win_lock_all\n");
        printf("- data check before timing (Shoal, both windows): %s\n", bad ? "FAILED" : "OK");
        printf("- load average at start: %.2f (%ld online CPUs)\n", bench_loadavg(),
               sysconf(_SC_NPROCESSORS_ONLN));
        fflush(stdout);

        /* Warm everything up once at the largest size. */
        for (int k = 0; k < 2; k++) {
            put_shoal(MAX_BYTES, 1), get_shoal(MAX_BYTES, 1);
            put_alloc(MAX_BYTES, 1), get_alloc(MAX_BYTES, 1);
            put_create(MAX_BYTES, 1), get_create(MAX_BYTES, 1);
            put_floor(MAX_BYTES, 1), get_floor(MAX_BYTES, 1), memcpy_local(MAX_BYTES, 1);
        }

        for (int i = 0; i < nsizes; i++) {
            size_t s = sizes[i];
            long cap_nb = (long)(MAX_BYTES / s);
            if (cap_nb > MAX_NB) cap_nb = MAX_NB;
            run_fn put_ct[NV] = {put_shoal, put_alloc, put_create, put_floor, memcpy_local};
            run_fn get_ct[NV] = {get_shoal, get_alloc, get_create, get_floor, NULL};
            run_fn put_it[NV] = {it_put_shoal, it_put_alloc, it_put_create, it_put_floor, NULL};
            run_fn get_it[NV] = {it_get_shoal, it_get_alloc, it_get_create, it_get_floor, NULL};
            run_fn put_bw[NV] = {bw_put_shoal, bw_put_alloc, bw_put_create, bw_put_floor, NULL};
            run_fn get_bw[NV] = {bw_get_shoal, bw_get_alloc, bw_get_create, bw_get_floor, NULL};
            measure(s, put_ct, MAX_BLOCKING, res[M_PUT_CT][i], res_alt[M_PUT_CT][i]);
            measure(s, get_ct, MAX_BLOCKING, res[M_GET_CT][i], res_alt[M_GET_CT][i]);
            measure(s, put_it, cap_nb, res[M_PUT_IT][i], res_alt[M_PUT_IT][i]);
            measure(s, get_it, cap_nb, res[M_GET_IT][i], res_alt[M_GET_IT][i]);
            if (s >= BW_MIN_SIZE) {
                measure(s, put_bw, cap_nb, res[M_PUT_BWNB][i], res_alt[M_PUT_BWNB][i]);
                measure(s, get_bw, cap_nb, res[M_GET_BWNB][i], res_alt[M_GET_BWNB][i]);
            } else {
                for (int v = 0; v < NV; v++)
                    res[M_PUT_BWNB][i][v] = res[M_GET_BWNB][i][v] = res_alt[M_PUT_BWNB][i][v] =
                        res_alt[M_GET_BWNB][i][v] = NAN;
            }
        }
        for (int m = M_PUT_CT; m <= M_GET_IT; m++) print_time_table(m);
        print_bw_table(M_PUT_CT, "Blocking put: bandwidth (size / DTCT)", 1);
        printf("\nfloor: memcpy into the peer's shared mapping + fence; memcpy local: between two "
               "private buffers.\n");
        print_bw_table(M_GET_CT, "Blocking get: bandwidth (size / DTCT)", 1);
        printf("\nfloor: memcpy from the peer's shared mapping + fence.\n");
        print_bw_table(M_PUT_BWNB, metric_title[M_PUT_BWNB], 0);
        printf("\nup to %d outstanding operations per batch on disjoint offsets, then completion "
               "(Shoal: waitall + flush; MPI: Waitall + Win_flush); floor: %s.\n",
               MAX_NB, metric_floor[M_PUT_BWNB]);
        print_bw_table(M_GET_BWNB, metric_title[M_GET_BWNB], 0);
        printf("\nfloor: %s.\n", metric_floor[M_GET_BWNB]);
        print_summary(direct);
        if (C.errors) {
            printf("\n%d Shoal operations failed (see stderr)\n", C.errors);
            status = 1;
        }
        printf("\nLoad average at the end: %.2f.\n", bench_loadavg());
        if (C.over_budget)
            printf("\nThe run went over its %.0f s budget (a busy machine?): later sizes were "
                   "measured with 3 batches only.\n",
                   budget_s);
        printf("\nbench_rma: finished in %.1f s%s\n", (bench_now_ns() - t_start) / 1e9,
               status ? " WITH ERRORS" : "");
        fflush(stdout);
        if (csv) write_csv(csv, mpi_name(), direct);
        for (int u = 1; u < nunits; u++) MPI_Send(&status, 1, MPI_INT, u, TAG_DONE, MPI_COMM_WORLD);
    } else {
        /* Target (and idle units): keep MPI progressing until the origin is done. */
        int flag = 0;
        while (!flag) {
            MPI_Iprobe(0, TAG_DONE, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            if (!flag) sched_yield();
        }
        MPI_Recv(&status, 1, MPI_INT, 0, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_unlock_all(C.win_create);
    MPI_Win_free(&C.win_create);
    MPI_Win_unlock_all(C.win_alloc);
    MPI_Win_free(&C.win_alloc);
    munmap(C.create_mem, MAX_BYTES);
    if (C.peer_mem) munmap(C.peer_mem, MAX_BYTES);
    shoal_team_memfree(mine);
    free(C.src_mem);
    free(C.dst_mem);
    shoal_finalize();
    return status;
}
