/* shoal-coll-tune: measures every collective algorithm (and tree radix) on this machine at the
 * current team size and writes a tuning file for SHOAL_COLL_TUNING.
 *
 *   shoalrun -n N shoal-coll-tune [-o FILE] [--quick] [--speed] [--only LIST]
 *   shoalrun -n N shoal-coll-tune --check [FILE]
 *   shoalrun -n N shoal-coll-tune --cache [--quick] [--only LIST]   (and --check --cache)
 *
 * Tuning: for each collective, each size of a ladder (x4 steps from 8 B) and each candidate (every
 * registered algorithm that applies, with radix 2, 3, 4 and 8 for those that take a radix, and
 * segment sizes 16K and 64K for those that pipeline, on teams of more than 2 units), the
 * median per-call time over interleaved batches, each call preceded by a write to its source and
 * followed by a read of its result, as in a program; the fastest candidate per size wins (the
 * previous size's winner is kept when it is within 5%, so noise does not fragment the ranges),
 * unless the built-in selection, measured in the same batches, is more than 5% faster than it: that
 * size then gets no rule and keeps the built-in choice (which may be an algorithm no rule can force
 * over a whole range, as the eager collect), and neighbouring sizes with the same winner merge
 * into one rule. Where the built-in table picks an eager algorithm (no round trip per call), no
 * rule is written either, unless --speed: a quiet machine's winner there is a synchronised
 * algorithm, which waits every call for a peer that another job may have descheduled. The
 * built-in choice is the table without this host's cache (an earlier file is being replaced):
 *     <collective> <algorithm>[:radix=N][,seg=S]@bytes=LO-HI,units=N-N
 * (the syntax of select.c and docs/collectives.md). Range boundaries lie at the power of two
 * nearest the geometric mean of neighbouring measured sizes; the last range is open. bytes= is the
 * size the selector keys on: the message for broadcast, reduce and scan, one member's block for
 * alltoall and alltoalls, the whole result (units x per-member bytes) for collect and fcollect. The
 * rules name one team size (units=N-N); other sizes fall through to the built-in defaults. Tuning
 * rules are forced: an algorithm that cannot run a call they match is an error, so a rule is only
 * written for an algorithm that applies over its whole range (checked at both ends, and in place
 * for the collectives that allow it).
 *
 * --check [FILE]: runs each collective at a size inside each rule of FILE (default:
 * $SHOAL_COLL_TUNING; with FILE, SHOAL_COLL_TUNING is set to it before shoal_init) that matches
 * this team size, and checks that the algorithm the rule names is the one that ran. Exit status
 * 0 when every rule was obeyed (and the file parsed), 1 otherwise.
 *
 * --cache: the file goes to this host's tuning cache (src/coll/tuning_cache.c: the folder of
 * SHOAL_COLL_TUNING_CACHE, named by a key of CPU model, CPUs, MPI, Shoal version and path), where
 * every later shoal_init on this host finds it; `make bench` runs this. --check --cache checks
 * that file through the cache (SHOAL_COLL_TUNING unset), i.e. that shoal_init loaded it. */
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h" /* bench/: the helpers the benchmarks share */
#include "shoal.h"
#include "coll/coll.h"

#define MAX_LADDER  16
#define MAX_CANDS   64
#define MAX_BATCHES 21
#define MAX_ITERS   50000
#define BUF_CAP     ((size_t)32 << 20)
#define KEEP_WITHIN 1.05 /* keep the previous winner when within 5% of the fastest */

typedef struct {
    const coll_algo_t *algo;
    int radix;  /* 0: none */
    size_t seg; /* pipeline segment (seg=); 0: none */
    char rule[64];
} cand_t;

typedef struct {
    double us; /* median; NAN when it does not apply */
} meas_t;

static struct {
    int quick, batches, only[COLL_KINDS];
    int speed; /* --speed: tune the built-in eager ranges too (a machine nobody shares) */
    double batch_ns;
    shoal_unit_t me;
    int32_t p;
    shoal_gptr_t dgp, sgp;
    char *dl, *sl;
    size_t bufbytes;
    team_t *team;
} T;

static void die(const char *msg) {
    fprintf(stderr, "shoal-coll-tune: unit %d: %s\n", (int)T.me, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* ---- The collectives, keyed by coll_kind_t ---------------------------------------------------
 * s is the per-call size: message bytes (broadcast, reduce, scan), one member's bytes (collect,
 * fcollect), one block (alltoall, alltoalls). */
static int per_member(coll_kind_t k) {
    return k == COLL_COLLECT || k == COLL_FCOLLECT || k == COLL_ALLTOALL || k == COLL_ALLTOALLS;
}
/* Element size the call works in (reductions: doubles; alltoalls: 8-byte elements). */
static size_t granule(coll_kind_t k) {
    return k == COLL_REDUCE || k == COLL_SCAN || k == COLL_ALLTOALLS ? 8 : 1;
}
/* The size the selector keys on, for per-call size s. */
static size_t msg_bytes(coll_kind_t k, size_t s) {
    if (k == COLL_BARRIER) return 0;
    if (k == COLL_COLLECT || k == COLL_FCOLLECT) return s * (size_t)T.p;
    return s;
}
static int fits(coll_kind_t k, size_t s) {
    return (per_member(k) ? s * (size_t)T.p : s) <= T.bufbytes;
}

static shoal_err_t call(coll_kind_t k, size_t s) {
    switch (k) {
    case COLL_BARRIER:
        return shoal_team_barrier(SHOAL_TEAM_ALL);
    case COLL_BROADCAST:
        return shoal_broadcast(SHOAL_TEAM_ALL, T.dgp, T.sgp, s, 0);
    case COLL_COLLECT:
        return shoal_collect(SHOAL_TEAM_ALL, T.dgp, T.sgp, s);
    case COLL_FCOLLECT:
        return shoal_fcollect(SHOAL_TEAM_ALL, T.dgp, T.sgp, s);
    case COLL_ALLTOALL:
        return shoal_alltoall(SHOAL_TEAM_ALL, T.dgp, T.sgp, s);
    case COLL_ALLTOALLS:
        return shoal_alltoalls(SHOAL_TEAM_ALL, T.dgp, T.sgp, 1, 1, 8, s / 8);
    case COLL_REDUCE:
        return shoal_reduce(SHOAL_TEAM_ALL, T.dgp, T.sgp, s / 8, SHOAL_TYPE_DOUBLE, SHOAL_RED_SUM);
    case COLL_SCAN:
        return shoal_scan(SHOAL_TEAM_ALL, T.dgp, T.sgp, s / 8, SHOAL_TYPE_DOUBLE, 1);
    case COLL_KINDS:
        break;
    }
    return SHOAL_ERR_INVAL;
}

/* Why algo (at radix) cannot run collective k at per-call size s on this team (NULL: it can). */
static const char *why_not(coll_kind_t k, const coll_algo_t *g, int radix, size_t s, int inplace) {
    static size_t *sizes, *offsets;
    if (!sizes) {
        sizes = calloc((size_t)T.p, sizeof *sizes);
        offsets = calloc((size_t)T.p, sizeof *offsets);
        if (!sizes || !offsets) die("out of memory");
    }
    coll_args_t a;
    memset(&a, 0, sizeof a);
    a.kind = k;
    a.team = T.team;
    a.ct = T.team->coll;
    a.p = T.team->size;
    a.me = T.team->myrel;
    a.doff = 0;
    a.soff = inplace ? 0 : 1;
    a.nbytes = s;
    a.msg_bytes = msg_bytes(k, s);
    if (k == COLL_COLLECT || k == COLL_FCOLLECT) {
        for (int32_t r = 0; r < a.p; r++) sizes[r] = s, offsets[r] = s * (size_t)r;
        a.sizes = sizes;
        a.offsets = offsets;
        a.total = s * (size_t)a.p;
    }
    if (k == COLL_ALLTOALLS) {
        a.dst = a.sst = 1;
        a.elem_size = 8;
        a.nelems = s / 8;
    }
    if (k == COLL_REDUCE || k == COLL_SCAN) {
        a.count = s / 8;
        a.type = SHOAL_TYPE_DOUBLE;
        a.op = SHOAL_RED_SUM;
        a.inclusive = 1;
    }
    return coll_not_applicable(g, &a, radix ? radix : g->radix_default);
}

/* ---- Measuring ------------------------------------------------------------------------------- */
/* Each call is timed as a program makes it (bench_util.h, bench_touch_*): its source just written,
 * its result read afterwards. Without that nobody reads dest, the lines an algorithm writes there
 * never move to their reader, and a synchronised algorithm that copies once looks faster than an
 * eager one that stages the data: on the Intel host a 4 KiB alltoall took 0.40 us against
 * eager's 1.40 untouched, and 1.79-1.83 against eager's 1.69 touched. */
static char touch_sink;
static size_t src_bytes(coll_kind_t k, size_t s) {
    if (k == COLL_BARRIER) return 0;
    return k == COLL_ALLTOALL || k == COLL_ALLTOALLS ? s * (size_t)T.p : s;
}
static size_t dest_bytes(coll_kind_t k, size_t s) {
    if (k == COLL_BARRIER) return 0;
    return per_member(k) ? s * (size_t)T.p : s;
}

static double run_n(coll_kind_t k, size_t s, long n) {
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++) {
        bench_touch_write(T.sl, src_bytes(k, s));
        if (call(k, s) != SHOAL_OK) die("a collective failed");
        touch_sink ^= bench_touch_read(T.dl, dest_bytes(k, s));
    }
    return bench_now_ns() - t0;
}

/* Medians (us per call, slowest process per batch) of candidates c[0..nc) (use[i] = 0: skip),
 * plus the built-in selection (auto_us, auto_name). Every process calls it alike. */
static void measure(coll_kind_t k, size_t s, const cand_t *c, const int *use, int nc, double *us,
                    double *auto_us, char *auto_name, size_t auto_len) {
    long iters[MAX_CANDS + 1] = {0};
    /* Candidate nc is "auto" (no override). */
    for (int i = 0; i <= nc; i++) {
        if (i < nc && !use[i]) continue;
        if (shoal_coll_override(coll_kind_name(k), i < nc ? c[i].rule : NULL) != SHOAL_OK)
            die("shoal_coll_override refused a rule");
        if (call(k, s) != SHOAL_OK) die("a collective failed");
        if (i == nc) {
            const char *name = "";
            shoal_coll_last_algorithm(SHOAL_TEAM_ALL, &name);
            snprintf(auto_name, auto_len, "%s", name);
        }
        long n = 1;
        for (;;) {
            double t = run_n(k, s, n), tmax = 0;
            MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (tmax >= T.batch_ns / 8 || n >= MAX_ITERS) {
                double per = tmax / (double)n;
                long want = per > 0 ? (long)(T.batch_ns / per) : MAX_ITERS;
                iters[i] = want < 1 ? 1 : want > MAX_ITERS ? MAX_ITERS : want;
                break;
            }
            n *= 8;
        }
    }
    static double tl[MAX_BATCHES * (MAX_CANDS + 1)], tg[MAX_BATCHES * (MAX_CANDS + 1)];
    int w = nc + 1, order[MAX_CANDS + 1];
    uint64_t rng = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)k << 32) ^ (uint64_t)s;
    for (int b = 0; b < T.batches; b++) {
        bench_shuffle(order, w, &rng); /* a new order each batch, as bench_coll's */
        for (int j = 0; j <= nc; j++) {
            int i = order[j];
            tl[b * w + i] = 0;
            if (i < nc && !use[i]) continue;
            shoal_coll_override(coll_kind_name(k), i < nc ? c[i].rule : NULL);
            MPI_Barrier(MPI_COMM_WORLD);
            tl[b * w + i] = run_n(k, s, iters[i]) / (double)iters[i];
        }
    }
    MPI_Allreduce(tl, tg, T.batches * w, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i <= nc; i++) {
        double v[MAX_BATCHES];
        for (int b = 0; b < T.batches; b++) v[b] = tg[b * w + i] / 1e3;
        qsort(v, (size_t)T.batches, sizeof *v, bench_cmp_double);
        double med = v[T.batches / 2];
        if (i == nc)
            *auto_us = med;
        else
            us[i] = use[i] ? med : NAN;
    }
    shoal_coll_override(coll_kind_name(k), NULL);
}

/* Algorithms that take a pipeline segment size (seg=): the registry has no field for it, so
 * they are named here (see the comments in src/coll/algo_bcast.c and algo_reduce.c). */
static int takes_seg(coll_kind_t k, const char *name) {
    static const struct {
        coll_kind_t k;
        const char *name;
    } v[] = {{COLL_BROADCAST, "kary"},
             {COLL_BROADCAST, "knomial"},
             {COLL_REDUCE, "recursive_doubling"},
             {COLL_REDUCE, "rabenseifner"}};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        if (v[i].k == k && !strcmp(v[i].name, name)) return 1;
    return 0;
}

static void add_cand(cand_t *c, int *n, const coll_algo_t *g, int radix, size_t seg) {
    if (*n >= MAX_CANDS) return;
    cand_t *x = &c[(*n)++];
    x->algo = g;
    x->radix = radix;
    x->seg = seg;
    int len = snprintf(x->rule, sizeof x->rule, "%s", g->name);
    if (radix || seg) len += snprintf(x->rule + len, sizeof x->rule - (size_t)len, ":");
    if (radix) len += snprintf(x->rule + len, sizeof x->rule - (size_t)len, "radix=%d", radix);
    if (seg)
        snprintf(x->rule + len, sizeof x->rule - (size_t)len, "%sseg=%zuK", radix ? "," : "",
                 seg >> 10);
}

/* Candidates of collective k: every algorithm, at radix 2, 3, 4, 8 when it takes one; those that
 * take a segment size also with seg=16K and 64K (radix 2 and 4; measured only on messages
 * longer than the segment, and only on teams of more than 2, where a tree has levels to
 * pipeline). */
static int candidates(coll_kind_t k, cand_t *c) {
    static const int radixes[] = {2, 3, 4, 8};
    static const size_t segs[] = {(size_t)16 << 10, (size_t)64 << 10};
    int na = 0, n = 0;
    const coll_algo_t *g = coll_algos(k, &na);
    for (int i = 0; i < na; i++) {
        int segs_too = takes_seg(k, g[i].name) && T.p > 2;
        if (!g[i].radix_max) {
            add_cand(c, &n, &g[i], 0, 0);
            for (size_t q = 0; segs_too && q < sizeof segs / sizeof *segs; q++)
                add_cand(c, &n, &g[i], 0, segs[q]);
            continue;
        }
        for (size_t r = 0; r < sizeof radixes / sizeof *radixes; r++) {
            if (radixes[r] < g[i].radix_min || radixes[r] > g[i].radix_max) continue;
            add_cand(c, &n, &g[i], radixes[r], 0);
            for (size_t q = 0;
                 segs_too && (radixes[r] == 2 || radixes[r] == 4) && q < sizeof segs / sizeof *segs;
                 q++)
                add_cand(c, &n, &g[i], radixes[r], segs[q]);
        }
    }
    return n;
}

/* Whether candidate c may be written for per-call sizes lo..hi (hi 0: open): it must apply at both
 * ends, and in place where the collective allows that (the user may call it so). */
static int applies_over(coll_kind_t k, const cand_t *c, size_t lo, size_t hi) {
    size_t ends[2] = {lo, hi ? hi : (size_t)1 << 40};
    int inplace = k == COLL_BROADCAST || k == COLL_REDUCE;
    for (int e = 0; e < 2; e++) {
        if (why_not(k, c->algo, c->radix, ends[e], 0)) return 0;
        if (inplace && why_not(k, c->algo, c->radix, ends[e], 1)) return 0;
    }
    return 1;
}

/* ---- Tuning ---------------------------------------------------------------------------------- */
/* Where the range of measured size a ends and that of the next measured size b starts: the power
 * of two nearest their geometric mean (2a on a ladder of x4 steps). */
static size_t boundary(size_t a, size_t b) {
    int la = 0, lb = 0;
    while (((size_t)1 << la) < a) la++;
    while (((size_t)1 << lb) < b) lb++;
    size_t m = (size_t)1 << ((la + lb + 1) / 2);
    return m > a && m <= b ? m : b;
}

static void tune(FILE *out) {
    size_t ladder[MAX_LADDER];
    int nl = 0;
    if (T.quick) {
        const size_t q[] = {8, 4096, (size_t)256 << 10};
        for (size_t i = 0; i < sizeof q / sizeof *q; i++) ladder[nl++] = q[i];
    } else {
        for (size_t s = 8; s <= ((size_t)4 << 20) && nl < MAX_LADDER; s *= 4) ladder[nl++] = s;
    }
    char host[64] = "?", when[64] = "?", a[32];
    gethostname(host, sizeof host);
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    const char *direct = getenv("SHOAL_DIRECT");
    const char *scratch = getenv("SHOAL_COLL_SCRATCH");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (T.me == 0) {
        fprintf(out,
                "# Shoal collectives tuning file (SHOAL_COLL_TUNING), written by "
                "shoal-coll-tune%s.\n",
                T.quick ? " --quick" : "");
        char desc[256], key[17];
        coll_tuning_host(desc, sizeof desc, key);
        fprintf(out, "# Host: %s (tuning cache key %s)\n", desc, key);
        fprintf(out, "# Measured %s on %s: %s, team of %d units, %ld online CPUs%s,\n", when, host,
                shoal_mpi_library(), (int)T.p, cores, T.p > cores ? " (OVERSUBSCRIBED)" : "");
        fprintf(out,
                "# SHOAL_DIRECT=%s, SHOAL_COLL_SCRATCH=%s; median of %d batches of ~%.0f us;\n"
                "# every call preceded by a write to each line of its source, followed by a read "
                "of each line of its result.\n",
                direct ? direct : "1 (default)", scratch ? scratch : "default", T.batches,
                T.batch_ns / 1e3);
        fprintf(out,
                "# Lines: \"collective algorithm[:radix=N][,seg=S]@bytes=LO-HI,units=LO-HI\" (see "
                "docs/collectives.md).\n");
        fprintf(out, "# bytes= is what the selector keys on: broadcast/reduce/scan the message, "
                     "alltoall(s) one block,\n# collect/fcollect the whole result (units x "
                     "per-member bytes). Rules for other team sizes: the built-in defaults.\n");
        fflush(out);
    }
    cand_t c[MAX_CANDS];
    int use[MAX_CANDS];
    static double us[MAX_LADDER][MAX_CANDS];
    for (int kk = 0; kk < COLL_KINDS; kk++) {
        coll_kind_t k = (coll_kind_t)kk;
        if (!T.only[k]) continue;
        int nc = candidates(k, c);
        size_t sz[MAX_LADDER];
        int ns = 0;
        double auto_us[MAX_LADDER];
        char auto_name[MAX_LADDER][40];
        for (int i = 0; i < nl; i++) {
            size_t s = ladder[i];
            if (k == COLL_BARRIER && i > 0) break;
            if (!fits(k, s) || s % granule(k)) continue;
            for (int j = 0; j < nc; j++)
                use[j] = why_not(k, c[j].algo, c[j].radix, s, 0) == NULL && s > c[j].seg;
            sz[ns] = s;
            measure(k, s, c, use, nc, us[ns], &auto_us[ns], auto_name[ns], sizeof auto_name[ns]);
            ns++;
            if (T.me == 0) {
                fprintf(stderr, "shoal-coll-tune: %s %s done\n", coll_kind_name(k),
                        k == COLL_BARRIER ? "" : bench_fmt_size(s, a, sizeof a));
            }
        }
        if (T.me != 0 || !ns) continue;
        /* Winners per size, then ranges. Range i spans per-call sizes [lo_i, hi_i]; the
         * boundary between sizes i and i+1 is 2 x size i (the ladder steps by 4). */
        int win[MAX_LADDER];
        size_t bound[MAX_LADDER]; /* per-call size where range i + 1 starts */
        for (int i = 0; i + 1 < ns; i++) bound[i] = boundary(sz[i], sz[i + 1]);
        fprintf(out,
                "#\n# %s: us per call at each measured size (fastest, runner-up, the "
                "built-in choice)\n",
                coll_kind_name(k));
        for (int i = 0; i < ns; i++) {
            size_t lo = i ? bound[i - 1] : 0, hi = i + 1 < ns ? bound[i] - 1 : 0;
            int best = -1, second = -1;
            for (int j = 0; j < nc; j++) {
                if (isnan(us[i][j]) || !applies_over(k, &c[j], lo, hi)) continue;
                if (best < 0 || us[i][j] < us[i][best]) {
                    second = best;
                    best = j;
                } else if (second < 0 || us[i][j] < us[i][second]) {
                    second = j;
                }
            }
            win[i] = best;
            if (i && win[i - 1] >= 0 && best >= 0 && win[i - 1] != best &&
                !isnan(us[i][win[i - 1]]) && us[i][win[i - 1]] <= KEEP_WITHIN * us[i][best] &&
                applies_over(k, &c[win[i - 1]], lo, hi))
                win[i] = win[i - 1];
            /* The built-in choice can be an algorithm no rule can force everywhere (the eager
             * collect needs the sizes exchanged first): when it beats the winner by more than
             * the noise, this size gets no rule and the built-in table keeps it. */
            int builtin_kept = win[i] >= 0 && auto_us[i] * KEEP_WITHIN < us[i][win[i]];
            /* The built-in eager choices send without a round trip per call, so a root or a
             * sender runs ahead of a peer that another job's process has descheduled; a
             * synchronised winner measured here, on a quiet machine, waits for that peer every
             * call (Intel Xeon, two 2-unit jobs on 2 CPUs: a 1 KiB broadcast 0.49 us under
             * eager, 2.9 under linear). Unless --speed, they stay. */
            int eager_kept = !T.speed && !strcmp(auto_name[i], "eager") && !builtin_kept;
            if (builtin_kept || eager_kept) win[i] = -1;
            fprintf(out, "#   %s: %s %.3f",
                    k == COLL_BARRIER ? "-" : bench_fmt_size(sz[i], a, sizeof a),
                    best >= 0 ? c[best].rule : "(none)", best >= 0 ? us[i][best] : NAN);
            if (second >= 0) fprintf(out, ", next %s %.3f", c[second].rule, us[i][second]);
            fprintf(out, "; built-in %s %.3f", auto_name[i], auto_us[i]);
            if (builtin_kept)
                fprintf(out, "; no rule: the built-in choice is faster");
            else if (eager_kept)
                fprintf(out, "; no rule: the built-in eager is kept (no round trip per call; "
                             "--speed tunes it)");
            else if (win[i] != best)
                fprintf(out, "; kept %s (within 5%%)", c[win[i]].rule);
            fprintf(out, "\n");
        }
        for (int i = 0; i < ns;) {
            int j = i;
            while (j + 1 < ns && win[j + 1] == win[i]) j++;
            if (win[i] >= 0) {
                /* After a size left to the built-in table, the gap up to this measured size
                 * stays the table's too (its eager limit may lie in it: 4 KiB for broadcast). */
                size_t lo = !i               ? 0
                            : win[i - 1] < 0 ? msg_bytes(k, sz[i])
                                             : msg_bytes(k, bound[i - 1]);
                if (k == COLL_BARRIER) {
                    fprintf(out, "%s %s@units=%d-%d\n", coll_kind_name(k), c[win[i]].rule, (int)T.p,
                            (int)T.p);
                } else if (j + 1 < ns) {
                    size_t hi = msg_bytes(k, bound[j]) - 1;
                    fprintf(out, "%s %s@bytes=%zu-%zu,units=%d-%d\n", coll_kind_name(k),
                            c[win[i]].rule, lo, hi, (int)T.p, (int)T.p);
                } else {
                    fprintf(out, "%s %s@bytes=%zu-,units=%d-%d\n", coll_kind_name(k),
                            c[win[i]].rule, lo, (int)T.p, (int)T.p);
                }
            }
            i = j + 1;
        }
        fflush(out);
    }
}

/* ---- Checking a tuning file ------------------------------------------------------------------ */
static const char *kind_by_name(const char *name, coll_kind_t *k) {
    for (int i = 0; i < COLL_KINDS; i++)
        if (!strcmp(name, coll_kind_name((coll_kind_t)i))) {
            *k = (coll_kind_t)i;
            return name;
        }
    return NULL;
}

static int parse_range(const char *t, size_t *lo, size_t *hi) {
    *lo = 0;
    *hi = SIZE_MAX;
    const char *dash = strchr(t, '-');
    if (!dash) return -1;
    if (dash > t) *lo = strtoull(t, NULL, 10);
    if (dash[1] && dash[1] != ',' && dash[1] != ' ') *hi = strtoull(dash + 1, NULL, 10);
    return 0;
}

/* One parsed rule (only what --check needs). */
typedef struct {
    coll_kind_t kind;
    char algo[48];
    size_t blo, bhi;
    long ulo, uhi;
    int line;
} rule_t;

static int read_rules(const char *path, rule_t *r, int max) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    int n = 0, lineno = 0;
    while (fgets(line, sizeof line, f) && n < max) {
        lineno++;
        char *h = strchr(line, '#');
        if (h) *h = 0;
        char name[32], rest[480];
        if (sscanf(line, "%31s %479[^\n]", name, rest) != 2) continue;
        /* one line may hold several rules separated by ';' */
        for (char *save = NULL, *one = strtok_r(rest, ";", &save); one && n < max;
             one = strtok_r(NULL, ";", &save)) {
            rule_t *x = &r[n];
            memset(x, 0, sizeof *x);
            if (!kind_by_name(name, &x->kind)) continue;
            while (*one == ' ' || *one == '\t') one++;
            size_t len = strcspn(one, ":@ \t");
            snprintf(x->algo, sizeof x->algo, "%.*s", (int)len, one);
            x->blo = 0;
            x->bhi = SIZE_MAX;
            x->ulo = 0;
            x->uhi = 1L << 30;
            const char *at = strchr(one, '@');
            if (at) {
                const char *bb = strstr(at, "bytes=");
                const char *uu = strstr(at, "units=");
                if (bb) parse_range(bb + 6, &x->blo, &x->bhi);
                size_t ulo, uhi;
                if (uu && !parse_range(uu + 6, &ulo, &uhi)) {
                    x->ulo = (long)ulo;
                    x->uhi = uhi == SIZE_MAX ? 1L << 30 : (long)uhi;
                }
            }
            x->line = lineno;
            n++;
        }
    }
    fclose(f);
    return n;
}

static int check(const char *path) {
    static rule_t r[512];
    int nr = read_rules(path, r, 512);
    if (nr < 0) {
        if (T.me == 0) fprintf(stderr, "shoal-coll-tune: cannot read %s\n", path);
        return 1;
    }
    int bad = 0, used = 0;
    char a[32];
    for (int i = 0; i < nr; i++) {
        coll_kind_t k = r[i].kind;
        if (T.p < r[i].ulo || T.p > r[i].uhi) continue;
        char env[64];
        snprintf(env, sizeof env, "SHOAL_COLL_%s", coll_kind_name(k));
        for (char *e = env; *e; e++)
            if (*e >= 'a' && *e <= 'z') *e = (char)(*e - 'a' + 'A');
        if (getenv(env) && *getenv(env)) {
            if (T.me == 0)
                printf("check: line %d: %s is set and takes precedence: skipped\n", r[i].line, env);
            continue;
        }
        /* A per-call size whose selector size lies in the rule's bytes range. */
        size_t g = granule(k), per = T.p, s;
        size_t unit = (k == COLL_COLLECT || k == COLL_FCOLLECT) ? per * g : g;
        size_t want = r[i].blo ? r[i].blo : (r[i].bhi >= 64 ? 64 : r[i].bhi);
        size_t m = (want + unit - 1) / unit * unit; /* selector bytes, a whole number of units */
        s = (k == COLL_COLLECT || k == COLL_FCOLLECT) ? m / per : m;
        if (k == COLL_BARRIER) s = m = 0;
        if (k != COLL_BARRIER && (m < r[i].blo || m > r[i].bhi || !fits(k, s) || s == 0)) {
            if (T.me == 0)
                printf("check: line %d: %s %s: no size of this run fits bytes=%zu-%zu: skipped\n",
                       r[i].line, coll_kind_name(k), r[i].algo, r[i].blo, r[i].bhi);
            continue;
        }
        /* The rule that should win: the first in the file that matches. */
        int first = i;
        for (int j = 0; j < i; j++)
            if (r[j].kind == k && T.p >= r[j].ulo && T.p <= r[j].uhi && m >= r[j].blo &&
                m <= r[j].bhi) {
                first = j;
                break;
            }
        shoal_err_t e = call(k, s);
        const char *ran = "";
        shoal_coll_last_algorithm(SHOAL_TEAM_ALL, &ran);
        int ok = e == SHOAL_OK && !strcmp(ran, r[first].algo);
        int all_ok = 0;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        used++;
        if (!all_ok) bad++;
        if (T.me == 0)
            printf("check: line %d: %s at %s (selector bytes %zu, %d units): expected %s (line "
                   "%d), ran %s%s: %s\n",
                   r[i].line, coll_kind_name(k),
                   k == COLL_BARRIER ? "-" : bench_fmt_size(s, a, sizeof a), m, (int)T.p,
                   r[first].algo, r[first].line, ran, e == SHOAL_OK ? "" : " (call failed)",
                   all_ok ? "OK" : "WRONG");
    }
    if (T.me == 0) {
        printf("shoal-coll-tune: check of %s: %d rules in the file, %d apply to %d units, %d "
               "obeyed%s\n",
               path, nr, used, (int)T.p, used - bad, bad ? ": FAILED" : "");
        if (!bad) printf("shoal-coll-tune: check OK\n");
    }
    return bad ? 1 : 0;
}

/* mkdir -p of path's folder. */
static int make_parent_dirs(const char *path) {
    char d[1024];
    snprintf(d, sizeof d, "%s", path);
    for (char *s = d + 1; *s; s++) {
        if (*s != '/') continue;
        *s = '\0';
        if (mkdir(d, 0755) && errno != EEXIST) return -1;
        *s = '/';
    }
    return 0;
}

static void usage(void) {
    fprintf(stderr,
            "usage: shoalrun -n N shoal-coll-tune [-o FILE | --cache] [--quick] [--speed] [--only "
            "LIST]\n"
            "       shoalrun -n N shoal-coll-tune --check [FILE | --cache]\n"
            "LIST: collectives, comma-separated (barrier,broadcast,collect,fcollect,"
            "alltoall,alltoalls,reduce,scan)\n");
}

int main(int argc, char **argv) {
    const char *out_path = NULL, *only = NULL, *check_path = NULL;
    int checking = 0, cache = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out_path = argv[++i];
        else if (!strcmp(argv[i], "--cache"))
            cache = 1;
        else if (!strcmp(argv[i], "--quick"))
            T.quick = 1;
        else if (!strcmp(argv[i], "--speed"))
            T.speed = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--check")) {
            checking = 1;
            if (i + 1 < argc && argv[i + 1][0] != '-') check_path = argv[++i];
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage();
            return 0;
        } else {
            usage();
            return 2;
        }
    }
    for (int k = 0; k < COLL_KINDS; k++) T.only[k] = only == NULL;
    if (only) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", only);
        for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
            coll_kind_t k;
            if (!kind_by_name(t, &k)) {
                usage();
                return 2;
            }
            T.only[k] = 1;
        }
    }
    if (cache && (out_path || check_path)) {
        usage();
        return 2;
    }
    if (checking && !cache) {
        if (check_path)
            setenv("SHOAL_COLL_TUNING", check_path, 1);
        else
            check_path = getenv("SHOAL_COLL_TUNING");
        if (!check_path || !*check_path) {
            fprintf(stderr, "shoal-coll-tune: --check needs a FILE or SHOAL_COLL_TUNING\n");
            return 2;
        }
    }
    T.batches = T.quick ? 3 : 9;
    T.batch_ns = T.quick ? 2e5 : 1e6;

    if (shoal_init(&argc, &argv) != SHOAL_OK) {
        fprintf(stderr, "shoal-coll-tune: shoal_init failed%s\n",
                checking ? " (does the tuning file parse? SHOAL_DEBUG=1 says why)" : "");
        return 1;
    }
    shoal_myid(&T.me);
    shoal_size(&T.p);
    if (shoal__team_get(SHOAL_TEAM_ALL, &T.team) != SHOAL_OK) die("no team of all units");
    /* Buffers: the ladder's largest per-member size times the team, capped. */
    size_t top = T.quick ? (size_t)256 << 10 : (size_t)4 << 20;
    T.bufbytes = top * (size_t)T.p;
    if (T.bufbytes > BUF_CAP) T.bufbytes = BUF_CAP;
    if (T.bufbytes < top) T.bufbytes = top;
    if (shoal_team_memalloc(SHOAL_TEAM_ALL, T.bufbytes, &T.dgp) != SHOAL_OK ||
        shoal_team_memalloc(SHOAL_TEAM_ALL, T.bufbytes, &T.sgp) != SHOAL_OK)
        die("shoal_team_memalloc failed");
    if (shoal_gptr_getaddr(T.dgp, (void **)&T.dl) != SHOAL_OK || !T.dl ||
        shoal_gptr_getaddr(T.sgp, (void **)&T.sl) != SHOAL_OK || !T.sl)
        die("my own part of an allocation is not mapped");
    memset(T.dl, 0, T.bufbytes);
    memset(T.sl, 0, T.bufbytes);

    /* The built-in choice each candidate is held against, and that a size without a rule keeps,
     * is the table without this host's cache: an earlier file's rules are about to be replaced. */
    if (!checking) {
        const char *kept = shoal__rt.coll_tuning_cache;
        shoal__rt.coll_tuning_cache = "off";
        if (coll_select_init() != SHOAL_OK) die("cannot rebuild the selection rules");
        shoal__rt.coll_tuning_cache = kept;
    }
    int status = 0;
    char cache_path[1024], tmp_path[1100];
    if (cache) {
        if (coll_tuning_cache_path(T.p, cache_path, sizeof cache_path))
            die("no tuning cache (SHOAL_COLL_TUNING_CACHE=off, or no HOME)");
        char desc[256], key[17];
        coll_tuning_host(desc, sizeof desc, key);
        if (T.me == 0) fprintf(stderr, "shoal-coll-tune: host %s (key %s)\n", desc, key);
        if (checking) {
            const char *set = getenv("SHOAL_COLL_TUNING");
            if (set && *set) die("--check --cache: unset SHOAL_COLL_TUNING (it would come first)");
            check_path = cache_path;
        } else {
            if (T.me == 0 && make_parent_dirs(cache_path)) {
                fprintf(stderr, "shoal-coll-tune: cannot make the folder of %s: %s\n", cache_path,
                        strerror(errno));
                die("no tuning cache");
            }
            /* Written aside and renamed: a program starting meanwhile reads the old or the new. */
            snprintf(tmp_path, sizeof tmp_path, "%s.%ld.tmp", cache_path, (long)getpid());
            out_path = tmp_path;
        }
    }
    if (checking) {
        status = check(check_path);
    } else {
        FILE *out = stdout;
        if (T.me == 0 && out_path) {
            out = fopen(out_path, "w");
            if (!out) {
                fprintf(stderr, "shoal-coll-tune: cannot write %s: %s\n", out_path,
                        strerror(errno));
                die("no output file");
            }
        }
        double t0 = bench_now_ns();
        tune(out);
        if (T.me == 0) {
            fprintf(out, "# (%.1f s)\n", (bench_now_ns() - t0) / 1e9);
            if (out != stdout) fclose(out);
            if (cache && rename(tmp_path, cache_path)) {
                fprintf(stderr, "shoal-coll-tune: cannot rename %s to %s: %s\n", tmp_path,
                        cache_path, strerror(errno));
                status = 1;
            }
            fprintf(stderr, "shoal-coll-tune: %s written in %.1f s\n",
                    cache      ? cache_path
                    : out_path ? out_path
                               : "tuning",
                    (bench_now_ns() - t0) / 1e9);
        }
    }
    shoal_team_memfree(T.sgp);
    shoal_team_memfree(T.dgp);
    shoal_finalize();
    return status;
}
