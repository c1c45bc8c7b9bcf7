/* bench_coll: Shoal's collectives against the MPI's native ones, in one run.
 *
 * For each collective (barrier, broadcast, collect, fcollect, alltoall, reduce = sum of doubles,
 * scan = inclusive sum of doubles) and each size from 4 B to 16 MiB (powers of 4, plus 8 B) it
 * times, interleaved batch by batch:
 *   - "auto": the algorithm Shoal's decision table selects (its name is shown),
 *   - every Shoal algorithm alone (forced with shoal_coll_override(collective, "algo")),
 *   - the MPI's native collective: MPI_Barrier, MPI_Bcast, MPI_Allgatherv (collect),
 *     MPI_Allgather (fcollect), MPI_Alltoall, MPI_Allreduce, MPI_Scan,
 * and for the barrier also shoal_barrier (the synchronisation layer's own barrier). Sizes are
 * bytes per member for collect, fcollect and alltoall (a member's block) and bytes of the whole
 * vector for broadcast, reduce and scan. MPI works on the same buffers as Shoal.
 * Every variant's result is checked against a reference once per size before it is timed.
 * Each figure is the median over batches of the per-call time (the slowest process's, per batch);
 * each batch is calibrated to take about --batch-us. The cache-line hand-off between two
 * processes (the floor for a 2-unit barrier) is measured in the same run with a ping-pong on one
 * shared-memory word (MPI_Win_allocate_shared).
 *
 * Algorithms come from Shoal's registry (coll_algos()) when this file is built against the
 * internal headers (target shoal_internal: "coll/coll.h" is then on the include path); otherwise
 * from a list of the algorithm names, where a name the library does not know is skipped.
 *
 * Options: --quick (two sizes, short batches: a smoke test), --csv FILE (raw numbers),
 *          --compare FILE (another MPI's --csv: target (1) is then checked against the faster of
 *          the two MPIs), --batches N, --batch-us T, --max-size SIZE, --only LIST (collectives,
 *          comma-separated), --stat min (tables and targets from the fastest batch instead of
 *          the median: on a loaded machine the best batch is the one where every process ran;
 *          the CSV always has both), --budget S (seconds; past it the remaining sizes get 3
 *          batches; default 80, --quick 60), --load N (N other processes spinning on the CPUs
 *          for the whole run, forked by unit 0: Shoal and MPI measured under the same
 *          background load, issue 12), --touch (every call, Shoal's and MPI's, is preceded by a
 *          write to each cache line of the source and followed by a read of each line of the
 *          result, as in a program; see touch_src), --auto-only (only the selected algorithm,
 *          the MPI collective and the barrier's hand-off are timed: the table's choices against
 *          the MPI without the whole sweep).
 * Exit status: 0 when it ran (no performance target fails it); 1 when a call returned an error
 * or moved wrong data; 2 on bad usage. */
#include <errno.h>
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
#include "shoal.h"

#if defined(__has_include)
#if __has_include("coll/coll.h")
#define HAVE_REGISTRY 1
#include "coll/coll.h"
#endif
#endif
#ifndef HAVE_REGISTRY
#define HAVE_REGISTRY 0
#endif

#define MAX_SIZES   16
#define MAX_ALGOS   24
#define MAX_VARS    (MAX_ALGOS + 3) /* auto, the algorithms, shoal_barrier, MPI */
#define MAX_BATCHES 51
#define MAX_ITERS   100000
#define BUF_CAP     ((size_t)32 << 20) /* each of dest and src, per process */
#define LARGE_MSG   ((size_t)64 << 10) /* target (3) applies from here */

/* ---- Collectives ----------------------------------------------------------------------------- */
enum { K_BARRIER, K_BCAST, K_COLLECT, K_FCOLLECT, K_ALLTOALL, K_REDUCE, K_SCAN, NK };
static const char *const kname[NK] = {"barrier",  "broadcast", "collect", "fcollect",
                                      "alltoall", "reduce",    "scan"};
static const char *const mpiname[NK] = {"MPI_Barrier",   "MPI_Bcast",    "MPI_Allgatherv",
                                        "MPI_Allgather", "MPI_Alltoall", "MPI_Allreduce",
                                        "MPI_Scan"};
static const char *const size_meaning[NK] = {
    "no data",
    "bytes of the message (root 0)",
    "bytes per member (equal sizes); the result is p times that",
    "bytes per member; the result is p times that",
    "bytes per member pair (one block); src and dest hold p blocks",
    "bytes of the vector of doubles (sum)",
    "bytes of the vector of doubles (inclusive sum)"};

#if HAVE_REGISTRY
static const coll_kind_t ckind[NK] = {COLL_BARRIER,  COLL_BROADCAST, COLL_COLLECT, COLL_FCOLLECT,
                                      COLL_ALLTOALL, COLL_REDUCE,    COLL_SCAN};
#else
/* Without the registry: the algorithms of this version (unknown names are skipped). */
static const char *const known_algos[NK][MAX_ALGOS] = {
    {"linear", "dissemination", "flags", "line", "kary_tree", "knomial_tree", "node", "node_native",
     "native", NULL},
    {"linear", "eager", "kary", "knomial", "vandegeijn", "node", "node_native", "native", NULL},
    {"linear", "eager", "recursive_doubling", "ring", "bruck", "bruck_norotate", "node",
     "node_native", "native", NULL},
    {"linear", "eager", "recursive_doubling", "ring", "bruck", "bruck_norotate",
     "neighbor_exchange", "node", "node_native", "native", NULL},
    {"eager", "shift", "xor_pairwise", "color_pairwise", "shift_barrier", "xor_pairwise_barrier",
     "color_pairwise_barrier", "native", NULL},
    {"linear", "eager", "recursive_doubling", "rabenseifner", "node", "node_native", "native",
     NULL},
    {"linear", "eager", "recursive_doubling", "native", NULL},
};
#endif

/* A variant: "auto", one algorithm, shoal_barrier, the MPI collective, or (barrier only) one
 * cache-line hand-off between units 0 and 1, timed in the same batches as the barriers. */
enum { V_AUTO, V_ALGO, V_SYNC, V_MPI, V_HANDOFF };
typedef struct {
    int type;
    const char *algo; /* V_ALGO */
    char label[48];
} variant_t;

/* One measured cell. */
enum { ST_NONE = 0, ST_OK, ST_NA, ST_ERR };
typedef struct {
    int status;
    double med, q1, q3, min; /* us per call */
    double val;              /* the statistic shown: med, or min with --stat min */
    long iters;
    char algo[40]; /* auto: the algorithm that ran */
    char why[64];  /* n/a: the reason */
} cell_t;

typedef struct {
    int quick, batches, only[NK], use_min, touch, auto_only;
    char touch_sink; /* --touch's reads go here, so that they are made */
    double batch_ns, budget_s, t_start;
    int over_budget;
    size_t max_size;
    size_t min_size; /* --min-size: sizes below it are skipped */
    shoal_unit_t me;
    int32_t p;
    long cores;
    int direct;
    shoal_gptr_t dgp, sgp;
    char *dl, *sl;
    size_t bufbytes;
    int nvar[NK];
    variant_t var[NK][MAX_VARS];
    size_t sizes[MAX_SIZES];
    int nsizes;
    cell_t res[NK][MAX_SIZES][MAX_VARS];
    double handoff_ns, handoff_min_ns;
    /* The hand-off variant's word (in measure_handoff's window, kept to the end) and its last
     * value; the barrier's median in-batch ratios to it (auto, shoal_barrier). */
    MPI_Win hwin;
    MPI_Comm hnode;
    uint64_t *hword, hseq;
    double bar_ratio, sync_ratio;
    int data_errors, call_errors;
    /* --compare: the other MPI's native figures */
    char other_mpi[96];
    double other[NK][MAX_SIZES];
} ctx_t;
static ctx_t C;

static void die(const char *msg) {
    fprintf(stderr, "bench_coll: unit %d: %s\n", (int)C.me, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* The MPI library's name, blanks folded ("MPICH Version:\t4.0.2" -> "MPICH Version: 4.0.2"). */
static const char *mpi_lib(void) {
    static char buf[96];
    return bench_squeeze_blanks(shoal_mpi_library(), 1, buf, sizeof buf);
}

/* ---- Sizes and buffers ----------------------------------------------------------------------- */
static int per_member(int k) {
    return k == K_COLLECT || k == K_FCOLLECT || k == K_ALLTOALL;
}

/* Whether size s is measured for collective k. */
static int size_applies(int k, size_t s) {
    if (k == K_BARRIER) return s == C.sizes[0];
    if ((k == K_REDUCE || k == K_SCAN) && s % sizeof(double)) return 0;
    if (per_member(k) && s * (size_t)C.p > C.bufbytes) return 0;
    return s <= C.bufbytes;
}

static inline uint8_t pat(int r, size_t i) {
    return (uint8_t)(r * 101 + (int)(i % 251) * 7 + 3);
}
static inline uint8_t pat2(int from, int to, size_t i) {
    return (uint8_t)(from * 101 + to * 13 + (int)(i % 251) * 7 + 5);
}
static inline double dval(int r, size_t k) {
    return (double)(r + 1) * (double)(k % 13 + 1);
}

/* Fills src with collective k's input for size s. */
static void fill_src(int k, size_t s) {
    int me = (int)C.me;
    switch (k) {
    case K_BCAST:
    case K_COLLECT:
    case K_FCOLLECT:
        for (size_t i = 0; i < s; i++) C.sl[i] = (char)pat(me, i);
        break;
    case K_ALLTOALL:
        for (int32_t j = 0; j < C.p; j++)
            for (size_t i = 0; i < s; i++) C.sl[(size_t)j * s + i] = (char)pat2(me, (int)j, i);
        break;
    case K_REDUCE:
    case K_SCAN: {
        double *v = (double *)(void *)C.sl;
        for (size_t i = 0; i < s / sizeof(double); i++) v[i] = dval(me, i);
        break;
    }
    default:
        break;
    }
}

static size_t dest_bytes(int k, size_t s) {
    if (k == K_BARRIER) return 0;
    return per_member(k) ? s * (size_t)C.p : s;
}

/* Checks dest after one call of collective k at size s; 0 when right. */
static int check_dest(int k, size_t s) {
    const uint8_t *d = (const uint8_t *)C.dl;
    int me = (int)C.me;
    switch (k) {
    case K_BCAST:
        for (size_t i = 0; i < s; i++)
            if (d[i] != pat(0, i)) return 1;
        return 0;
    case K_COLLECT:
    case K_FCOLLECT:
        for (int32_t r = 0; r < C.p; r++)
            for (size_t i = 0; i < s; i++)
                if (d[(size_t)r * s + i] != pat((int)r, i)) return 1;
        return 0;
    case K_ALLTOALL:
        for (int32_t r = 0; r < C.p; r++)
            for (size_t i = 0; i < s; i++)
                if (d[(size_t)r * s + i] != pat2((int)r, me, i)) return 1;
        return 0;
    case K_REDUCE:
    case K_SCAN: {
        const double *v = (const double *)(const void *)C.dl;
        double n = k == K_REDUCE ? (double)C.p : (double)(me + 1);
        for (size_t i = 0; i < s / sizeof(double); i++)
            if (v[i] != (double)(i % 13 + 1) * n * (n + 1) / 2) return 1;
        return 0;
    }
    default:
        return 0;
    }
}

/* ---- One call -------------------------------------------------------------------------------- */
static shoal_err_t shoal_call(int k, size_t s) {
    switch (k) {
    case K_BARRIER:
        return shoal_team_barrier(SHOAL_TEAM_ALL);
    case K_BCAST:
        return shoal_broadcast(SHOAL_TEAM_ALL, C.dgp, C.sgp, s, 0);
    case K_COLLECT:
        return shoal_collect(SHOAL_TEAM_ALL, C.dgp, C.sgp, s);
    case K_FCOLLECT:
        return shoal_fcollect(SHOAL_TEAM_ALL, C.dgp, C.sgp, s);
    case K_ALLTOALL:
        return shoal_alltoall(SHOAL_TEAM_ALL, C.dgp, C.sgp, s);
    case K_REDUCE:
        return shoal_reduce(SHOAL_TEAM_ALL, C.dgp, C.sgp, s / sizeof(double), SHOAL_TYPE_DOUBLE,
                            SHOAL_RED_SUM);
    case K_SCAN:
        return shoal_scan(SHOAL_TEAM_ALL, C.dgp, C.sgp, s / sizeof(double), SHOAL_TYPE_DOUBLE, 1);
    }
    return SHOAL_ERR_INVAL;
}

static int mpi_call(int k, size_t s) {
    static int *counts, *displs;
    MPI_Comm w = MPI_COMM_WORLD;
    switch (k) {
    case K_BARRIER:
        return MPI_Barrier(w);
    case K_BCAST:
        return MPI_Bcast(C.me == 0 ? C.sl : C.dl, (int)s, MPI_BYTE, 0, w);
    case K_COLLECT:
        if (!counts) {
            counts = malloc((size_t)C.p * sizeof *counts);
            displs = malloc((size_t)C.p * sizeof *displs);
            if (!counts || !displs) die("out of memory");
        }
        for (int32_t r = 0; r < C.p; r++) counts[r] = (int)s, displs[r] = (int)(s * (size_t)r);
        return MPI_Allgatherv(C.sl, (int)s, MPI_BYTE, C.dl, counts, displs, MPI_BYTE, w);
    case K_FCOLLECT:
        return MPI_Allgather(C.sl, (int)s, MPI_BYTE, C.dl, (int)s, MPI_BYTE, w);
    case K_ALLTOALL:
        return MPI_Alltoall(C.sl, (int)s, MPI_BYTE, C.dl, (int)s, MPI_BYTE, w);
    case K_REDUCE:
        return MPI_Allreduce(C.sl, C.dl, (int)(s / sizeof(double)), MPI_DOUBLE, MPI_SUM, w);
    case K_SCAN:
        return MPI_Scan(C.sl, C.dl, (int)(s / sizeof(double)), MPI_DOUBLE, MPI_SUM, w);
    }
    return MPI_ERR_OTHER;
}

/* Makes variant v of collective k the one that runs; 0 or a Shoal error. */
static shoal_err_t select_variant(int k, const variant_t *v) {
    if (v->type == V_ALGO) return shoal_coll_override(kname[k], v->algo);
    if (v->type == V_AUTO) return shoal_coll_override(kname[k], NULL);
    return SHOAL_OK;
}

/* --touch: the source written before each call, the result read after it (bench_util.h). */
static void touch_src(int k, size_t s) {
    bench_touch_write(C.sl, k == K_BARRIER ? 0 : k == K_ALLTOALL ? s * (size_t)C.p : s);
}

static void touch_dest(int k, size_t s) {
    C.touch_sink ^= bench_touch_read(C.dl, dest_bytes(k, s));
}

/* n hand-offs of one word between units 0 and 1 (unit 0 writes the odd values, unit 1 the even
 * ones; a unit waits for the value before its own): the floor of a 2-unit barrier, timed in the
 * barrier's own batches, so that both see the same placement of the vCPUs (on our KVM hosts a
 * hand-off takes 30, 70 or 290 ns depending on where they are at the moment). */
static void handoff_run(long n) {
    if (C.me > 1) return;
    for (long i = 0; i < n; i++) {
        uint64_t v = ++C.hseq;
        if ((int)(v & 1) == (C.me == 0)) {
            __atomic_store_n(C.hword, v, __ATOMIC_RELEASE);
            continue;
        }
        unsigned spins = 0;
        while (__atomic_load_n(C.hword, __ATOMIC_ACQUIRE) != v) {
            if (++spins % 1024 == 0)
                sched_yield();
            else
                bench_cpu_relax();
        }
    }
}

/* Runs n calls of variant v; returns the local elapsed ns, or -1 when a call failed. */
static double run_variant(int k, const variant_t *v, size_t s, long n) {
    double t0 = bench_now_ns();
    if (v->type == V_HANDOFF) {
        handoff_run(n);
        return bench_now_ns() - t0;
    }
    for (long i = 0; i < n; i++) {
        int bad;
        if (C.touch) touch_src(k, s);
        if (v->type == V_MPI)
            bad = mpi_call(k, s) != MPI_SUCCESS;
        else if (v->type == V_SYNC)
            bad = shoal_barrier(SHOAL_TEAM_ALL) != SHOAL_OK;
        else
            bad = shoal_call(k, s) != SHOAL_OK;
        if (bad) return -1;
        if (C.touch) touch_dest(k, s);
    }
    return bench_now_ns() - t0;
}

/* ---- Variants: from the registry, or from the list ------------------------------------------- */
#if HAVE_REGISTRY
/* Why the registry says algo cannot run collective k at size s here (NULL: it can). */
static const char *registry_why(int k, const char *algo, size_t s) {
    const coll_algo_t *g = coll_find_algo(ckind[k], algo);
    if (!g) return "not in the registry";
    team_t *t = NULL;
    if (shoal__team_get(SHOAL_TEAM_ALL, &t) != SHOAL_OK) return NULL;
    static size_t *sizes, *offsets;
    if (!sizes) {
        sizes = calloc((size_t)C.p, sizeof *sizes);
        offsets = calloc((size_t)C.p, sizeof *offsets);
        if (!sizes || !offsets) die("out of memory");
    }
    coll_args_t a;
    memset(&a, 0, sizeof a);
    a.kind = ckind[k];
    a.team = t;
    a.ct = t->coll;
    a.p = t->size;
    a.me = t->myrel;
    a.doff = 0;
    a.soff = 1; /* dest and src are different allocations */
    a.nbytes = s;
    a.msg_bytes = s;
    if (k == K_COLLECT || k == K_FCOLLECT) {
        for (int32_t r = 0; r < a.p; r++) sizes[r] = s, offsets[r] = s * (size_t)r;
        a.sizes = sizes;
        a.offsets = offsets;
        a.total = a.msg_bytes = s * (size_t)a.p;
    }
    if (k == K_REDUCE || k == K_SCAN) {
        a.count = s / sizeof(double);
        a.type = SHOAL_TYPE_DOUBLE;
        a.op = SHOAL_RED_SUM;
        a.inclusive = 1;
    }
    return coll_not_applicable(g, &a, g->radix_default);
}
#endif

/* The algorithms of collective k, as variants from v on (up to MAX_VARS - 2 in all); returns
 * the next free index. */
static int add_algorithm_variants(int k, variant_t *v, int n) {
#if HAVE_REGISTRY
    int na = 0;
    const coll_algo_t *g = coll_algos(ckind[k], &na);
    for (int i = 0; i < na && n < MAX_VARS - 2; i++) {
        v[n].type = V_ALGO;
        v[n].algo = g[i].name;
        snprintf(v[n++].label, sizeof v[0].label, "%s", g[i].name);
    }
#else
    for (int i = 0; known_algos[k][i] && n < MAX_VARS - 2; i++) {
        /* A name this library does not know is refused at once (SHOAL_ERR_INVAL). */
        if (shoal_coll_override(kname[k], known_algos[k][i]) != SHOAL_OK) continue;
        v[n].type = V_ALGO;
        v[n].algo = known_algos[k][i];
        snprintf(v[n++].label, sizeof v[0].label, "%s", known_algos[k][i]);
    }
    shoal_coll_override(kname[k], NULL);
#endif
    return n;
}

static void build_variants(void) {
    for (int k = 0; k < NK; k++) {
        int n = 0;
        variant_t *v = C.var[k];
        v[n].type = V_AUTO;
        snprintf(v[n++].label, sizeof v[0].label, "auto");
        /* --auto-only: the selected algorithm against the MPI's, nothing else */
        if (!C.auto_only) n = add_algorithm_variants(k, v, n);
        if (k == K_BARRIER) {
            if (!C.auto_only) {
                v[n].type = V_SYNC;
                snprintf(v[n++].label, sizeof v[0].label, "shoal_barrier");
            }
            if (C.p >= 2) {
                v[n].type = V_HANDOFF;
                snprintf(v[n++].label, sizeof v[0].label, "hand-off");
            }
        }
        v[n].type = V_MPI;
        snprintf(v[n++].label, sizeof v[0].label, "%s", mpiname[k]);
        C.nvar[k] = n;
    }
}

/* ---- Measuring one collective at one size ---------------------------------------------------- */
/* Every process calls this with the same arguments. */
static void measure(int k, int si) {
    size_t s = C.sizes[si];
    int nv = C.nvar[k];
    cell_t *cells = C.res[k][si];
    long iters[MAX_VARS] = {0};
    int usable[MAX_VARS] = {0};
    if (k != K_BARRIER) fill_src(k, s);

    /* Applicability, the data check, the warm-up and the batch size, variant by variant. */
    for (int vi = 0; vi < nv; vi++) {
        const variant_t *v = &C.var[k][vi];
        cell_t *c = &cells[vi];
        c->med = c->q1 = c->q3 = c->min = c->val = NAN;
#if HAVE_REGISTRY
        if (v->type == V_ALGO) {
            const char *why = registry_why(k, v->algo, s);
            if (why) {
                c->status = ST_NA;
                snprintf(c->why, sizeof c->why, "%s", why);
                continue;
            }
        }
#endif
        if (v->type == V_HANDOFF && !C.hword) {
            c->status = ST_NA;
            snprintf(c->why, sizeof c->why, "units 0 and 1 not on one node");
            continue;
        }
        if (select_variant(k, v) != SHOAL_OK) die("shoal_coll_override failed");
        size_t db = dest_bytes(k, s);
        if (db) memset(C.dl, 0xEE, db);
        int rc = 0; /* 0 ok, 1 n/a (SHOAL_ERR_INVAL from a forced algorithm), 2 error, 3 data */
        if (v->type == V_MPI) {
            rc = mpi_call(k, s) != MPI_SUCCESS ? 2 : 0;
        } else if (v->type == V_SYNC) {
            rc = shoal_barrier(SHOAL_TEAM_ALL) != SHOAL_OK ? 2 : 0;
        } else if (v->type == V_HANDOFF) {
            handoff_run(2);
        } else {
            shoal_err_t e = shoal_call(k, s);
            rc = e == SHOAL_OK ? 0 : (e == SHOAL_ERR_INVAL && v->type == V_ALGO) ? 1 : 2;
        }
        /* MPI_Bcast leaves the root's dest alone (the root's data is its src). */
        int skip_check = v->type == V_MPI && k == K_BCAST && C.me == 0;
        if (rc == 0 && !skip_check && check_dest(k, s)) rc = 3;
        if (v->type == V_AUTO) {
            const char *name = "";
            shoal_coll_last_algorithm(SHOAL_TEAM_ALL, &name);
            snprintf(c->algo, sizeof c->algo, "%s", name);
        }
        int worst = 0;
        MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (worst == 1) {
            c->status = ST_NA;
            snprintf(c->why, sizeof c->why, "refused (SHOAL_ERR_INVAL)");
            continue;
        }
        if (worst >= 2) {
            c->status = ST_ERR;
            snprintf(c->why, sizeof c->why, "%s", worst == 3 ? "wrong data" : "call failed");
            if (C.me == 0)
                fprintf(stderr, "bench_coll: %s %s at %zu B: %s\n", kname[k], v->label, s, c->why);
            if (worst == 3)
                C.data_errors++;
            else
                C.call_errors++;
            continue;
        }
        /* Batch size: grow a timed run until it is long enough to estimate a call's time; three
         * times, keeping the fastest estimate (on a busy machine one of them may have waited for a
         * descheduled process). All three, even when the first found one call slower than a third
         * of a batch: under --load 12 a call waits 20-50 ms for a descheduled process now and
         * then (4 % of 1 MiB broadcasts, Shoal's and MPI_Bcast's alike, AMD EPYC, session 28),
         * and one such first call used to set the batch to a single call, whose wait then stood
         * for the call's time: 10-30 ms per 1 MiB call reported, 1.1 ms the mean over 2000. */
        double per_best = INFINITY;
        for (int attempt = 0; attempt < 3; attempt++) {
            long n = 1;
            for (;;) {
                double t = run_variant(k, v, s, n), tmax = 0;
                if (t < 0) die("a collective failed while calibrating");
                MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                if (tmax >= C.batch_ns / 8 || n >= MAX_ITERS) {
                    double per = tmax / (double)n;
                    if (per < per_best) per_best = per;
                    break;
                }
                n *= 8;
            }
        }
        long want = per_best > 0 ? (long)(C.batch_ns / per_best) : MAX_ITERS;
        iters[vi] = want < 1 ? 1 : want > MAX_ITERS ? MAX_ITERS : want;
        usable[vi] = 1;
        c->status = ST_OK;
        c->iters = iters[vi];
    }

    /* The batches: every usable variant once per batch, in a new order each batch (the same on
     * every process: bench_shuffle). */
    int nb = C.batches;
    if (C.over_budget && nb > 3) nb = 3;
    static double tl[MAX_BATCHES * MAX_VARS], tg[MAX_BATCHES * MAX_VARS];
    uint64_t rng = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)k << 32) ^ (uint64_t)si;
    for (int b = 0; b < nb; b++) {
        int order[MAX_VARS];
        bench_shuffle(order, nv, &rng);
        for (int j = 0; j < nv; j++) {
            int vi = order[j];
            if (!usable[vi]) {
                tl[b * MAX_VARS + vi] = 0;
                continue;
            }
            const variant_t *v = &C.var[k][vi];
            if (select_variant(k, v) != SHOAL_OK) die("shoal_coll_override failed");
            MPI_Barrier(MPI_COMM_WORLD);
            double t = run_variant(k, v, s, iters[vi]);
            if (t < 0) die("a collective failed while timing");
            tl[b * MAX_VARS + vi] = t / (double)iters[vi];
        }
    }
    MPI_Allreduce(tl, tg, nb * MAX_VARS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (k == K_BARRIER) { /* the barriers over the hand-off of the same batch */
        int vh = -1, va = -1, vs = -1;
        for (int vi = 0; vi < nv; vi++) {
            int t = C.var[k][vi].type;
            if (!usable[vi]) continue;
            if (t == V_HANDOFF) vh = vi;
            if (t == V_AUTO) va = vi;
            if (t == V_SYNC) vs = vi;
        }
        C.bar_ratio = C.sync_ratio = NAN;
        double ra[MAX_BATCHES], rs[MAX_BATCHES];
        for (int b = 0; vh >= 0 && b < nb; b++) {
            double h = tg[b * MAX_VARS + vh];
            ra[b] = va >= 0 ? tg[b * MAX_VARS + va] / h : NAN;
            rs[b] = vs >= 0 ? tg[b * MAX_VARS + vs] / h : NAN;
        }
        if (vh >= 0 && va >= 0) C.bar_ratio = bench_quantile(ra, nb, 0.5);
        if (vh >= 0 && vs >= 0) C.sync_ratio = bench_quantile(rs, nb, 0.5);
    }
    for (int vi = 0; vi < nv; vi++) {
        if (!usable[vi]) continue;
        double v[MAX_BATCHES];
        for (int b = 0; b < nb; b++) v[b] = tg[b * MAX_VARS + vi] / 1e3;
        cells[vi].q1 = bench_quantile(v, nb, 0.25);
        cells[vi].med = bench_quantile(v, nb, 0.5);
        cells[vi].min = v[0]; /* sorted by bench_quantile() */
        cells[vi].val = C.use_min ? cells[vi].min : cells[vi].med;
        cells[vi].q3 = bench_quantile(v, nb, 0.75);
    }
    shoal_coll_override(kname[k], NULL);
}

/* ---- The cache-line hand-off ----------------------------------------------------------------- */
/* One batch of the ping-pong (units 0 and 1): up to `rounds` round trips or `limit` ns. Unit 0
 * times chunks of HANDOFF_CHUNK round trips and appends the time per hand-off of each to t[]
 * (*nt entries, at most max): a chunk lasts a few microseconds, so most chunks run while both
 * processes are on a core even when the machine is busy, and the median chunk is the hand-off. */
#define HANDOFF_CHUNK 64
static void handoff_batch(uint64_t *line, long rounds, double limit, double *t, int *nt, int max) {
    const uint64_t stop = (uint64_t)1 << 63;
    uint64_t val = 0;
    long done = 0;
    double start = bench_now_ns(), t0 = start, t1 = start;
    for (;;) {
        if (C.me == 0) {
            if (done % HANDOFF_CHUNK == 0) {
                t1 = bench_now_ns();
                if (done && *nt < max) t[(*nt)++] = (t1 - t0) / (2.0 * HANDOFF_CHUNK);
                t0 = t1;
                if (done >= rounds || t1 - start > limit) {
                    __atomic_store_n(line, (val + 1) | stop, __ATOMIC_RELEASE);
                    break;
                }
            }
            __atomic_store_n(line, val + 1, __ATOMIC_RELEASE);
        }
        uint64_t x;
        unsigned spins = 0;
        while ((x = __atomic_load_n(line, __ATOMIC_ACQUIRE)) == val ||
               (C.me == 0 && x == val + 1)) {
            if (++spins % 1024 == 0)
                sched_yield();
            else
                bench_cpu_relax();
        }
        if (x & stop) break; /* unit 1: unit 0 is done */
        if (C.me == 1) __atomic_store_n(line, x + 1, __ATOMIC_RELEASE);
        val = x + (C.me == 1);
        done++;
    }
}

/* Units 0 and 1 bounce one word in a shared-memory window: 0 writes odd values, 1 even ones; a
 * round trip is two hand-offs of the line. Median and minimum over the timed chunks. */
static void measure_handoff(void) {
    C.handoff_ns = C.handoff_min_ns = NAN;
    if (C.p < 2) return;
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nsize = 0;
    MPI_Comm_size(node, &nsize);
    int world = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    if (nsize != world) { /* units 0 and 1 might be on different nodes */
        MPI_Comm_free(&node);
        return;
    }
    MPI_Win win;
    char *base = NULL;
    MPI_Win_allocate_shared(C.me == 0 ? 4096 : 0, 1, MPI_INFO_NULL, node, &base, &win);
    MPI_Aint sz;
    int du;
    MPI_Win_shared_query(win, 0, &sz, &du, &base);
    uint64_t *line = (uint64_t *)(void *)base;
    long rounds = C.quick ? 2000 : 20000;
    double limit = C.quick ? 5e6 : 2e7; /* ns per batch at most (a busy machine is slow) */
    int nb = C.quick ? 3 : 11, max = 4096, nt = 0;
    double *t = malloc((size_t)max * sizeof *t);
    if (!t) die("out of memory");
    for (int b = 0; b < nb; b++) {
        if (C.me == 0) __atomic_store_n(line, 0, __ATOMIC_RELEASE);
        MPI_Barrier(MPI_COMM_WORLD);
        if (C.me <= 1) handoff_batch(line, rounds, limit, t, &nt, max);
        MPI_Barrier(MPI_COMM_WORLD); /* unit 1 has seen the stop before the word is reset */
    }
    if (C.me == 0 && nt) {
        C.handoff_ns = bench_quantile(t, nt, 0.5);
        C.handoff_min_ns = t[0]; /* sorted by bench_quantile() */
    }
    free(t);
    /* The barrier's hand-off variant uses a word of its own on another line of this window. */
    C.hwin = win;
    C.hnode = node;
    C.hword = (uint64_t *)(void *)(base + 2048);
    if (C.me == 0) __atomic_store_n(C.hword, 0, __ATOMIC_RELEASE);
    C.hseq = 0;
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- Output ---------------------------------------------------------------------------------- */
static int var_index(int k, int type) {
    for (int vi = 0; vi < C.nvar[k]; vi++)
        if (C.var[k][vi].type == type) return vi;
    return -1;
}

static void print_tables(void) {
    char a[32];
    for (int k = 0; k < NK; k++) {
        if (!C.only[k]) continue;
        int nv = C.nvar[k], va = var_index(k, V_AUTO), vm = var_index(k, V_MPI);
        printf("\n### %s (us per call; size: %s)\n\n", kname[k], size_meaning[k]);
        printf("| size | auto (selected) |");
        for (int vi = 0; vi < nv; vi++)
            if (vi != va) printf(" %s |", C.var[k][vi].label);
        printf(" auto/MPI |\n|---:|---:|");
        for (int vi = 0; vi < nv; vi++)
            if (vi != va) printf("---:|");
        printf("---:|\n");
        for (int si = 0; si < C.nsizes; si++) {
            if (!size_applies(k, C.sizes[si])) continue;
            cell_t *c = C.res[k][si];
            if (k == K_BARRIER)
                printf("| - |");
            else
                printf("| %s |", bench_fmt_size(C.sizes[si], a, sizeof a));
            if (c[va].status == ST_OK)
                printf(" %s (%s) |", bench_fmt_us(c[va].val, a, sizeof a), c[va].algo);
            else
                printf(" %s |", c[va].status == ST_ERR ? c[va].why : "-");
            for (int vi = 0; vi < nv; vi++) {
                if (vi == va) continue;
                if (c[vi].status == ST_OK)
                    printf(" %s |", bench_fmt_us(c[vi].val, a, sizeof a));
                else if (c[vi].status == ST_NA)
                    printf(" n/a |");
                else if (c[vi].status == ST_ERR)
                    printf(" %s |", c[vi].why);
                else
                    printf(" - |");
            }
            if (c[va].status == ST_OK && c[vm].status == ST_OK)
                printf(" %.2f |\n", c[va].val / c[vm].val);
            else
                printf(" - |\n");
        }
        /* Reasons for n/a, once per algorithm. */
        for (int vi = 0; vi < nv; vi++) {
            const char *why = NULL;
            for (int si = 0; si < C.nsizes && !why; si++)
                if (size_applies(k, C.sizes[si]) && C.res[k][si][vi].status == ST_NA)
                    why = C.res[k][si][vi].why;
            if (why) printf("\nn/a %s: %s.", C.var[k][vi].label, why);
        }
        printf("\n");
    }
}

/* The faster native MPI for collective k at size index si: this run's, or --compare's. */
static double ref_mpi(int k, int si, int *from_other) {
    cell_t *c = C.res[k][si];
    int vm = var_index(k, V_MPI);
    double mine = c[vm].status == ST_OK ? c[vm].val : NAN, o = C.other[k][si];
    *from_other = 0;
    if (!isnan(o) && o > 0 && (isnan(mine) || o < mine)) {
        *from_other = 1;
        return o;
    }
    return mine;
}

static void print_summary(void) {
    char a[32], b[32], c1[32], sz[32];
    int at2 = C.p == 2;
    const char *info = at2 ? "" : " (the targets are stated for 2 units: for information)";
    char tag[96] = "";
    if (!at2)
        snprintf(tag, sizeof tag, " [%d units%s: for information only]", (int)C.p,
                 C.p > C.cores ? ", oversubscribed" : "");
    printf("\n### Summary against the targets%s\n\n", info);
    if (C.other_mpi[0])
        printf("Target (1) compares with the faster native MPI of this run (%s) and of %s "
               "(--compare).\n\n",
               mpi_lib(), C.other_mpi);
    printf("| collective | size | auto | algorithm | native MPI | auto/MPI | (1) no slower | "
           "(3) >= 1.2x faster (>= 64 KiB) |\n|---|---:|---:|---|---:|---:|---|---|\n");
    int miss1 = 0, miss3 = 0, n1 = 0, n3 = 0;
    char list1[4096] = "", list3[4096] = "";
    for (int k = 0; k < NK; k++) {
        if (!C.only[k]) continue;
        int va = var_index(k, V_AUTO);
        for (int si = 0; si < C.nsizes; si++) {
            size_t s = C.sizes[si];
            if (!size_applies(k, s)) continue;
            cell_t *c = &C.res[k][si][va];
            int other = 0;
            double m = ref_mpi(k, si, &other);
            if (c->status != ST_OK || isnan(m)) continue;
            double r = c->val / m;
            int ok1 = c->val <= m;
            int large = k != K_BARRIER && s >= LARGE_MSG, ok3 = r <= 1 / 1.2;
            /* Overlapping quartile ranges: the difference is within this run's noise. */
            int vm = var_index(k, V_MPI);
            int noise = !other && !ok1 && c->q1 <= C.res[k][si][vm].q3;
            n1++;
            if (large) n3++;
            snprintf(sz, sizeof sz, "%s", k == K_BARRIER ? "-" : bench_fmt_size(s, a, sizeof a));
            char line[256];
            if (!ok1) {
                miss1++;
                snprintf(line, sizeof line, "%s%s %s (%s vs %s us, %.2fx%s)", list1[0] ? "; " : "",
                         kname[k], sz, bench_fmt_us(c->val, a, sizeof a),
                         bench_fmt_us(m, b, sizeof b), r, noise ? ", within noise" : "");
                if (strlen(list1) + strlen(line) + 1 < sizeof list1) strcat(list1, line);
            }
            if (large && !ok3) {
                miss3++;
                snprintf(line, sizeof line, "%s%s %s (%.2fx faster)", list3[0] ? "; " : "",
                         kname[k], sz, m / c->val);
                if (strlen(list3) + strlen(line) + 1 < sizeof list3) strcat(list3, line);
            }
            printf("| %s | %s | %s | %s | %s%s | %.2f | %s | %s |\n", kname[k], sz,
                   bench_fmt_us(c->val, a, sizeof a), c->algo, bench_fmt_us(m, c1, sizeof c1),
                   other ? " (other MPI)" : "", r,
                   ok1 ? "MET" : (noise ? "MISSED (within noise)" : "MISSED"),
                   large ? (ok3 ? "MET" : "MISSED") : "-");
        }
    }
    printf("\n- (1)%s at 2 units the selected algorithm is no slower than the native MPI, every "
           "collective and size: %d of %d cases met: %s%s%s\n",
           tag, n1 - miss1, n1, miss1 ? "MISSED" : "MET", miss1 ? ". Misses: " : "", list1);
    /* (2) */
    int vb = var_index(K_BARRIER, V_AUTO), vs = var_index(K_BARRIER, V_SYNC);
    if (C.only[K_BARRIER] && C.res[K_BARRIER][0][vb].status == ST_OK) {
        double bar = C.res[K_BARRIER][0][vb].val * 1e3,
               h = C.use_min ? C.handoff_min_ns : C.handoff_ns;
        double sync = vs >= 0 && C.res[K_BARRIER][0][vs].status == ST_OK
                          ? C.res[K_BARRIER][0][vs].val * 1e3
                          : NAN;
        printf("- (2)%s barrier within 1.5x of one cache-line hand-off: auto (%s) %.0f ns "
               "(shoal_barrier %.0f ns). Paired with the hand-off of the same batches (median of "
               "the batches' ratios): auto %.2fx, shoal_barrier %.2fx: %s. Against the hand-off "
               "measured once at the start, %.0f ns (min %.0f ns): %.2fx\n",
               tag, C.res[K_BARRIER][0][vb].algo, bar, sync, C.bar_ratio, C.sync_ratio,
               isnan(C.bar_ratio)   ? "not measured"
               : C.bar_ratio <= 1.5 ? "MET"
                                    : "MISSED",
               h, C.handoff_min_ns, bar / h);
    }
    printf("- (3)%s large messages (>= 64 KiB) at least 1.2x faster than the native MPI: %d of %d "
           "cases met: %s%s%s\n",
           tag, n3 - miss3, n3, miss3 ? "MISSED" : (n3 ? "MET" : "not measured"),
           miss3 ? ". Misses: " : "", list3);
}

static void write_csv(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "bench_coll: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    fprintf(f, "# bench_coll mpi=%s np=%d direct=%d cores=%ld%s\n", mpi_lib(), (int)C.p, C.direct,
            C.cores, C.touch ? " touch=1" : "");
    fprintf(f, "collective,size_bytes,variant,algorithm,median_us,q1_us,q3_us,iters,status,"
               "min_us\n");
    static const char *st[] = {"none", "ok", "na", "error"};
    for (int k = 0; k < NK; k++) {
        if (!C.only[k]) continue;
        for (int si = 0; si < C.nsizes; si++) {
            if (!size_applies(k, C.sizes[si])) continue;
            for (int vi = 0; vi < C.nvar[k]; vi++) {
                const variant_t *v = &C.var[k][vi];
                const cell_t *c = &C.res[k][si][vi];
                const char *vname = v->type == V_AUTO      ? "auto"
                                    : v->type == V_MPI     ? "mpi"
                                    : v->type == V_SYNC    ? "shoal_barrier"
                                    : v->type == V_HANDOFF ? "handoff"
                                                           : v->algo;
                fprintf(f, "%s,%zu,%s,%s,%.6g,%.6g,%.6g,%ld,%s,%.6g\n", kname[k],
                        k == K_BARRIER ? (size_t)0 : C.sizes[si], vname,
                        v->type == V_AUTO  ? c->algo
                        : v->type == V_MPI ? mpiname[k]
                                           : vname,
                        c->med, c->q1, c->q3, c->iters, st[c->status], c->min);
            }
        }
    }
    if (!isnan(C.handoff_ns))
        fprintf(f, "handoff,64,pingpong,cache-line,%.6g,%.6g,%.6g,0,ok,%.6g\n", C.handoff_ns / 1e3,
                C.handoff_min_ns / 1e3, C.handoff_ns / 1e3, C.handoff_min_ns / 1e3);
    fclose(f);
}

/* Reads another run's CSV: its native MPI figures. */
static void read_compare(const char *path) {
    for (int k = 0; k < NK; k++)
        for (int si = 0; si < MAX_SIZES; si++) C.other[k][si] = NAN;
    if (!path) return;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (C.me == 0) fprintf(stderr, "bench_coll: cannot read %s\n", path);
        return;
    }
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            char *m = strstr(line, "mpi=");
            char *e = m ? strstr(m, " np=") : NULL;
            if (m && e) snprintf(C.other_mpi, sizeof C.other_mpi, "%.*s", (int)(e - m - 4), m + 4);
            continue;
        }
        char kn[32], var[64], alg[64], st[16];
        size_t s;
        double med, mn = NAN;
        if (sscanf(line, "%31[^,],%zu,%63[^,],%63[^,],%lf,%*[^,],%*[^,],%*[^,],%15[^,\n],%lf", kn,
                   &s, var, alg, &med, st, &mn) < 6 ||
            strcmp(var, "mpi") || strcmp(st, "ok"))
            continue;
        if (C.use_min) med = mn;
        for (int k = 0; k < NK; k++) {
            if (strcmp(kn, kname[k])) continue;
            for (int si = 0; si < C.nsizes; si++)
                if (k == K_BARRIER ? si == 0 : C.sizes[si] == s) C.other[k][si] = med;
        }
    }
    fclose(f);
    if (!C.other_mpi[0]) snprintf(C.other_mpi, sizeof C.other_mpi, "%s", path);
}

static void usage(void) {
    fprintf(stderr,
            "usage: bench_coll [--quick] [--csv FILE] [--compare FILE] [--batches N] "
            "[--batch-us T] [--min-size SIZE] [--max-size SIZE] [--only barrier,broadcast,...] "
            "[--stat median|min] [--budget SECONDS] [--load N] [--touch] [--auto-only]\n");
}

int main(int argc, char **argv) {
    const char *csv = NULL, *compare = NULL, *only = NULL;
    int batches = -1, load = 0;
    double batch_us = -1, budget = -1;
    C.max_size = (size_t)16 << 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            C.quick = 1;
        else if (!strcmp(argv[i], "--touch"))
            C.touch = 1;
        else if (!strcmp(argv[i], "--auto-only"))
            C.auto_only = 1;
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv = argv[++i];
        else if (!strcmp(argv[i], "--compare") && i + 1 < argc)
            compare = argv[++i];
        else if (!strcmp(argv[i], "--batches") && i + 1 < argc)
            batches = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--batch-us") && i + 1 < argc)
            batch_us = atof(argv[++i]);
        else if (!strcmp(argv[i], "--max-size") && i + 1 < argc) {
            if (bench_parse_size(argv[++i], &C.max_size)) {
                usage();
                return 2;
            }
        } else if (!strcmp(argv[i], "--min-size") && i + 1 < argc) {
            if (bench_parse_size(argv[++i], &C.min_size)) {
                usage();
                return 2;
            }
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--budget") && i + 1 < argc) {
            budget = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--load") && i + 1 < argc) {
            load = atoi(argv[++i]);
            if (load < 0 || load > BENCH_LOAD_MAX) {
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
    for (int k = 0; k < NK; k++) C.only[k] = only == NULL;
    if (only) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", only);
        for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
            int found = 0;
            for (int k = 0; k < NK; k++)
                if (!strcmp(t, kname[k])) C.only[k] = found = 1;
            if (!found) {
                usage();
                return 2;
            }
        }
    }
    C.batches = batches > 0 ? batches : (C.quick ? 3 : 11);
    if (C.batches > MAX_BATCHES) C.batches = MAX_BATCHES;
    C.batch_ns = 1e3 * (batch_us > 0 ? batch_us : (C.quick ? 200 : 2000));
    C.budget_s = budget > 0 ? budget : C.quick ? 60 : 80;

    if (shoal_init(&argc, &argv) != SHOAL_OK) {
        fprintf(stderr, "bench_coll: shoal_init failed\n");
        return 1;
    }
    shoal_myid(&C.me);
    shoal_size(&C.p);
    C.cores = sysconf(_SC_NPROCESSORS_ONLN);
    {
        shoal_config_var_t cv;
        C.direct = 1;
        for (int i = 0; i < shoal_config_count(); i++)
            if (shoal_config_var(i, &cv) == SHOAL_OK && !strcmp(cv.name, "SHOAL_DIRECT"))
                C.direct = strcmp(cv.value, "0") != 0;
    }

    /* Sizes: 4 B, 8 B, then powers of 4 from 16 B (16 KiB, 64 KiB, 1 MiB among them). */
    if (C.quick) {
        const size_t q[] = {8, (size_t)64 << 10};
        for (size_t i = 0; i < sizeof q / sizeof *q; i++)
            if (q[i] <= C.max_size && q[i] >= C.min_size) C.sizes[C.nsizes++] = q[i];
    } else {
        if (C.min_size <= 4) C.sizes[C.nsizes++] = 4;
        if (C.min_size <= 8) C.sizes[C.nsizes++] = 8;
        for (size_t s = 16; s <= C.max_size && C.nsizes < MAX_SIZES; s *= 4)
            if (s >= C.min_size) C.sizes[C.nsizes++] = s;
    }
    if (!C.nsizes) C.sizes[C.nsizes++] = 8;
    /* Buffers: the largest message (per member: times p), capped at BUF_CAP each. */
    size_t need = 0;
    for (int si = 0; si < C.nsizes; si++) {
        size_t s = C.sizes[si], pm = s * (size_t)C.p;
        if (s > need) need = s;
        if (pm <= BUF_CAP && pm > need) need = pm;
    }
    C.bufbytes = need < BUF_CAP ? need : BUF_CAP;
    if (C.bufbytes < C.sizes[C.nsizes - 1]) C.bufbytes = C.sizes[C.nsizes - 1];
    if (shoal_team_memalloc(SHOAL_TEAM_ALL, C.bufbytes, &C.dgp) != SHOAL_OK ||
        shoal_team_memalloc(SHOAL_TEAM_ALL, C.bufbytes, &C.sgp) != SHOAL_OK)
        die("shoal_team_memalloc failed");
    if (shoal_gptr_getaddr(C.dgp, (void **)&C.dl) != SHOAL_OK || !C.dl ||
        shoal_gptr_getaddr(C.sgp, (void **)&C.sl) != SHOAL_OK || !C.sl)
        die("my own part of an allocation is not mapped");
    memset(C.dl, 0, C.bufbytes);
    memset(C.sl, 0, C.bufbytes);
    build_variants();
    read_compare(compare);

    if (C.me == 0 && load && bench_load_start(load)) die("fork failed (--load)");
    C.t_start = bench_now_ns();
    measure_handoff();
    if (C.me == 0) {
        int over = C.p > C.cores;
        printf("## bench_coll: %s, %d processes%s, SHOAL_DIRECT=%d\n\n", mpi_lib(), (int)C.p,
               over ? " (OVERSUBSCRIBED)" : "", C.direct);
        printf("- MPI library: %s\n", mpi_lib());
        printf("- %d processes on %ld online CPUs%s\n", (int)C.p, C.cores,
               over ? ": OVERSUBSCRIBED (more processes than cores; figures are dominated by "
                      "scheduling)"
                    : "");
        printf("- SHOAL_DIRECT=%d (%s)\n", C.direct,
               C.direct ? "direct path on: shared memory" : "direct path off: everything via MPI");
        printf("- each figure: us per call, the %s over %d interleaved batches of ~%.0f us of "
               "the slowest process's time per call (batch size calibrated per variant, up to %d "
               "calls)%s\n",
               C.use_min ? "MINIMUM (--stat min)" : "median", C.batches, C.batch_ns / 1e3,
               MAX_ITERS, C.quick ? "; --quick run" : "");
        if (C.touch)
            printf("- --touch: each call (Shoal's and MPI's) is preceded by a write to every cache "
                   "line of the source and followed by a read of every line of the result\n");
        printf("- algorithms: %s; auto = the decision table's choice (named in brackets); n/a = "
               "the algorithm does not apply here\n",
               HAVE_REGISTRY ? "every one in Shoal's registry"
                             : "the known names this library has");
        printf("- every variant's result checked against a reference before timing\n");
        printf("- cache-line hand-off (ping-pong on one shared word, units 0 and 1; half a round "
               "trip, timed in chunks of %d round trips): %.0f ns median, %.0f ns min\n",
               HANDOFF_CHUNK, C.handoff_ns, C.handoff_min_ns);
        printf("- load average at start: %.2f\n", bench_loadavg());
        if (load)
            printf("- background load (--load): %d other processes spinning on the CPUs for the "
                   "whole run, under which Shoal and MPI are both measured\n",
                   load);
        fflush(stdout);
    }
    for (int k = 0; k < NK; k++) {
        if (!C.only[k]) continue;
        for (int si = 0; si < C.nsizes; si++) {
            if (!size_applies(k, C.sizes[si])) continue;
            int over = (bench_now_ns() - C.t_start) / 1e9 > C.budget_s;
            MPI_Bcast(&over, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (over) C.over_budget = 1;
            measure(k, si);
        }
    }
    int status = C.data_errors || C.call_errors ? 1 : 0;
    if (C.me == 0) {
        print_tables();
        print_summary();
        if (C.data_errors || C.call_errors)
            printf("\n%d wrong results and %d failed calls (see stderr)\n", C.data_errors,
                   C.call_errors);
        printf("\nLoad average at the end: %.2f.\n", bench_loadavg());
        bench_load_stop();
        if (C.over_budget)
            printf("\nThe run went over its %.0f s budget (a busy machine?): later sizes were "
                   "measured with 3 batches only.\n",
                   C.budget_s);
        printf("\nbench_coll: finished in %.1f s%s\n", (bench_now_ns() - C.t_start) / 1e9,
               status ? " WITH ERRORS" : "");
        fflush(stdout);
        if (csv) write_csv(csv);
    }
    shoal_team_memfree(C.sgp);
    shoal_team_memfree(C.dgp);
    if (C.hword) {
        MPI_Win_free(&C.hwin);
        MPI_Comm_free(&C.hnode);
    }
    shoal_finalize();
    return status;
}
