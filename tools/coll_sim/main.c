/* shoal-coll-sim: predicted times of Shoal's collective algorithms at any team size, from their
 * own schedules (recorded by running src/coll's code against shim.c) replayed in LogGP
 * (replay.c). docs/coll_sim.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"

static const char *kind_names[] = {"barrier",  "broadcast", "collect", "fcollect",
                                   "alltoall", "alltoalls", "reduce",  "scan"};

static int parse_kind(const char *s) {
    for (int k = 0; k < COLL_KINDS; k++)
        if (!strcmp(s, kind_names[k])) return k;
    return -1;
}

static int parse_size(const char *s, size_t *out) {
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s) return -1;
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    else if (*end == 'g' || *end == 'G')
        v <<= 30, end++;
    if (*end == 'i' || *end == 'I') end++;
    if (*end == 'b' || *end == 'B') end++;
    if (*end) return -1;
    *out = (size_t)v;
    return 0;
}

/* "a,b,c" with an optional "lo-hi" (powers of two from lo to hi, and hi). */
static size_t parse_list(const char *text, size_t *out, size_t max) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    size_t n = 0;
    for (char *tok = strtok(buf, ","); tok && n < max; tok = strtok(NULL, ",")) {
        char *dash = strchr(tok, '-');
        if (dash) {
            *dash = 0;
            size_t lo, hi;
            if (parse_size(tok, &lo) || parse_size(dash + 1, &hi) || !lo) return 0;
            for (size_t v = lo; v < hi && n < max; v *= 2) out[n++] = v;
            if (n < max) out[n++] = hi;
        } else if (parse_size(tok, &out[n++])) {
            return 0;
        }
    }
    return n;
}

static void usage(void) {
    fprintf(stderr,
            "usage: shoal-coll-sim [--coll KIND|all] [--algo NAME|all] [--p LIST] [--size LIST]\n"
            "                      [--params FILE] [--radix LIST] [--root R] [--csv FILE]\n"
            "                      [--max-events N] [--check] [--tuning FILE]\n"
            "                      [--ppn N --net-params FILE] [--back-to-back K]\n"
            "  KIND: barrier broadcast collect fcollect alltoall alltoalls reduce scan\n"
            "  LIST: comma-separated, K/M/G suffixes, lo-hi = powers of two from lo, and hi\n"
            "        (default --p 2-100000 --size 8,64K,1M)\n"
            "  --radix: for algorithms with a radix, every listed radix (default: theirs)\n"
            "  --ppn: units per node, block-wise (default: all on one node); the node-aware\n"
            "        algorithms and the selection's nodes= ranges see the nodes, and messages\n"
            "        between nodes are priced by --net-params, through one NIC per node\n"
            "  --back-to-back K: the time per call of calls made back to back (as benchmarks\n"
            "        time them), (T(2K) - T(K)) / K, instead of one call alone\n"
            "  --check: exit 1 if any schedule deadlocks or leaves a word unbalanced\n"
            "  --tuning: write the modelled winners as SHOAL_COLL_TUNING rules\n");
}

/* Records and replays case c: one call alone (b2b <= 0), or the time per call of back-to-back
 * calls, (T(2 b2b) - T(b2b)) / b2b, so that the first call's start-up cancels. 0, or -1 (not
 * recorded: why says why) or 1 (the replay failed: *res says how). */
static int simulate(sim_case_t c, int b2b, size_t max_events, const sim_params_t *prm,
                    const sim_params_t *net, int32_t ppn, char *why, size_t whylen,
                    sim_result_t *res) {
    double t[2] = {0, 0};
    size_t events = 0;
    int runs = b2b > 0 ? 2 : 1;
    for (int k = 0; k < runs; k++) {
        sim_schedule_t s;
        c.calls = b2b > 0 ? b2b << k : 1;
        if (sim_record(&c, &s, max_events, why, whylen)) return -1;
        int bad =
            sim_replay_nodes(&s, prm, net, ppn, res) != 0 || res->deadlock || res->unbalanced_words;
        sim_schedule_free(&s);
        if (bad) return 1;
        t[k] = res->time;
        events = res->events;
    }
    if (b2b > 0) res->time = (t[1] - t[0]) / b2b;
    res->events = events;
    return 0;
}

typedef struct {
    char name[48];
    double t;
    int ok, capped, na;
    const coll_algo_t *algo;
    int radix;
} row_t;

/* One rule of a tuning file (docs/collectives.md "Rule syntax") for the winner at units
 * [p_lo, p_hi] and selector bytes [b_lo, b_hi] (SIZE_MAX: open). */
static void tuning_rule(FILE *f, coll_kind_t kind, const row_t *w, int32_t p_lo, int32_t p_hi,
                        size_t b_lo, size_t b_hi) {
    /* Only where the winner applies: a rule from a tuning file that cannot run is an error. */
    unsigned needs = w->algo->needs;
    if (needs & (NEEDS_POW2 | NEEDS_EVEN)) p_hi = p_lo; /* the simulated team size only */
    if ((needs & NEEDS_XCHG) && (p_hi <= 0 || p_hi > COLL_XCHG_UNITS)) p_hi = COLL_XCHG_UNITS;
    if ((needs & NEEDS_XCHG_BLOCKS) && (p_hi <= 0 || p_hi > 8)) p_hi = 8;
    size_t cap = SIZE_MAX;
    if (needs & NEEDS_EAGER_SIZE) cap = COLL_EAGER_SLOT;
    /* cells shrink as teams grow: the range's largest team has the smallest (area.c) */
    if (needs & NEEDS_XCHG) cap = coll_xchg_cell(p_hi) - 8;
    if (needs & NEEDS_XCHG_BLOCKS) cap = coll_xchg_cell(p_hi) - 16;
    if (cap != SIZE_MAX && (kind == COLL_COLLECT || kind == COLL_FCOLLECT)) cap *= (size_t)p_lo;
    if (b_hi > cap) b_hi = cap;
    fprintf(f, "%s %s", kind_names[kind], w->algo->name);
    if (w->algo->radix_max) fprintf(f, ":radix=%d", w->radix);
    fprintf(f, "@units=%d-", (int)p_lo);
    if (p_hi > 0) fprintf(f, "%d", (int)p_hi);
    if (kind != COLL_BARRIER) {
        fprintf(f, ",bytes=%zu-", b_lo);
        if (b_hi != SIZE_MAX) fprintf(f, "%zu", b_hi);
    }
    fprintf(f, "\n");
}

int main(int argc, char **argv) {
    const char *coll = "barrier,broadcast", *algo = "all", *params = NULL, *csv_path = NULL;
    const char *tuning_path = NULL, *net_params = NULL;
    const char *plist = "2-100000", *slist = "8,64K,1M", *rlist = NULL;
    int32_t root = 0, ppn = 0;
    size_t max_events = 20u * 1000 * 1000;
    int check = 0, b2b = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--check")) {
            check = 1;
            continue;
        }
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            usage();
            return 0;
        }
        if (!v) {
            usage();
            return 2;
        }
        i++;
        if (!strcmp(o, "--coll"))
            coll = v;
        else if (!strcmp(o, "--algo"))
            algo = v;
        else if (!strcmp(o, "--p"))
            plist = v;
        else if (!strcmp(o, "--size"))
            slist = v;
        else if (!strcmp(o, "--params"))
            params = v;
        else if (!strcmp(o, "--radix"))
            rlist = v;
        else if (!strcmp(o, "--root"))
            root = atoi(v);
        else if (!strcmp(o, "--ppn"))
            ppn = atoi(v);
        else if (!strcmp(o, "--net-params"))
            net_params = v;
        else if (!strcmp(o, "--csv"))
            csv_path = v;
        else if (!strcmp(o, "--tuning"))
            tuning_path = v;
        else if (!strcmp(o, "--back-to-back"))
            b2b = atoi(v);
        else if (!strcmp(o, "--max-events"))
            max_events = strtoull(v, NULL, 10);
        else {
            usage();
            return 2;
        }
    }
    sim_params_t prm;
    sim_params_default(&prm);
    if (params && sim_params_read(params, &prm)) return 2;
    sim_params_t net = prm;
    if (net_params && sim_params_read(net_params, &net)) return 2;
    if (ppn > 0 && !net_params)
        fprintf(stderr,
                "shoal-coll-sim: --ppn without --net-params: the network is priced as "
                "the node (%s)\n",
                prm.name);
    size_t ps[256], sizes[64], radices[32];
    size_t np = parse_list(plist, ps, 256), ns = parse_list(slist, sizes, 64);
    size_t nr = rlist ? parse_list(rlist, radices, 32) : 0;
    if (!np || !ns || (rlist && !nr)) {
        usage();
        return 2;
    }
    int kinds[COLL_KINDS], nk = 0;
    if (!strcmp(coll, "all")) {
        for (int k = 0; k < COLL_KINDS; k++) kinds[nk++] = k;
    } else {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", coll);
        for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
            int k = parse_kind(t);
            if (k < 0 || nk == COLL_KINDS) {
                fprintf(stderr, "shoal-coll-sim: unknown collective %s\n", t);
                return 2;
            }
            kinds[nk++] = k;
        }
    }
    FILE *csv = NULL;
    if (csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            fprintf(stderr, "shoal-coll-sim: cannot write %s\n", csv_path);
            return 2;
        }
        fprintf(csv,
                "# shoal-coll-sim params=%s L=%g o=%g a=%g g=%g G=%g o_r=%g copy=%g "
                "reduce=%g call=%g put_ack=%d big_from=%g G_big=%g copy_big=%g reduce_big=%g "
                "G_fresh=%g\n",
                prm.name, prm.L, prm.o, prm.a, prm.g, prm.G, prm.o_r, prm.copy, prm.reduce,
                prm.call, prm.put_ack, prm.big_from, prm.G_big, prm.copy_big, prm.reduce_big,
                prm.G_fresh);
        fprintf(csv, "collective,units,size_bytes,algorithm,radix,predicted_us,status,events,"
                     "default_choice\n");
    }
    FILE *tuning = NULL;
    if (tuning_path) {
        tuning = fopen(tuning_path, "w");
        if (!tuning) {
            fprintf(stderr, "shoal-coll-sim: cannot write %s\n", tuning_path);
            return 2;
        }
        fprintf(tuning,
                "# MODELLED, not measured: written by shoal-coll-sim from LogGP parameters %s\n"
                "# (L=%g o=%g a=%g g=%g G=%g). Team sizes and sizes between the simulated ones\n"
                "# take the winner at the next smaller simulated one; collect and fcollect rules\n"
                "# hold for the simulated team sizes only (their bytes are the whole result).\n",
                prm.name, prm.L, prm.o, prm.a, prm.g, prm.G);
    }
    printf("# shoal-coll-sim: params %s: L=%g o=%g a=%g g=%g G=%g o_r=%g copy=%g reduce=%g "
           "call=%g put_ack=%d (us, us/byte)\n",
           prm.name, prm.L, prm.o, prm.a, prm.g, prm.G, prm.o_r, prm.copy, prm.reduce, prm.call,
           prm.put_ack);
    if (prm.G_fresh > 0) printf("# puts into a peer's scratch: G=%g\n", prm.G_fresh);
    if (prm.big_from > 0)
        printf("# from %.0f bytes on: G=%g copy=%g reduce=%g (streaming through memory)\n",
               prm.big_from, prm.G_big, prm.copy_big, prm.reduce_big);
    const sim_curve_t *curves[3] = {&prm.G_curve, &prm.copy_curve, &prm.reduce_curve};
    const char *what[3] = {"G", "copy", "reduce"};
    for (int c = 0; c < 3; c++) {
        const sim_curve_t *cv = curves[c];
        if (!cv->n) continue;
        printf("# %s per size, in place of the single figures:", what[c]);
        for (int i = 0; i < cv->n; i++) printf(" %.0f:%g", cv->bytes[i], cv->per_byte[i]);
        printf("\n");
    }
    if (ppn > 0)
        printf("# %d units per node; between nodes %s: L=%g o=%g a=%g g=%g G=%g put_ack=%d, one "
               "NIC per node\n",
               (int)ppn, net.name, net.L, net.o, net.a, net.g, net.G, net.put_ack);
    int bad = 0;
    for (int ki = 0; ki < nk; ki++) {
        coll_kind_t kind = (coll_kind_t)kinds[ki];
        int na = 0;
        const coll_algo_t *algos = coll_algos(kind, &na);
        for (size_t si = 0; si < (kind == COLL_BARRIER ? 1 : ns); si++) { /* barrier: no size */
            printf("\n## %s, %zu bytes: predicted us (* = fastest; [d] = Shoal's default choice)\n",
                   kind_names[kind], sizes[si]);
            const char *prev_win = NULL;
            int32_t capped_at[64] = {0}; /* row i capped at this p: larger ones are too */
            char prev_name[48] = "";
            for (size_t pi = 0; pi < np; pi++) {
                int32_t p = (int32_t)ps[pi];
                int32_t r0 = root < p ? root : 0;
                /* a team's words go through MPI on the MPI path and when it spans nodes */
                int mpi_path = prm.put_ack || (ppn > 0 && p > ppn);
                row_t rows[64];
                int nrow = 0, best = -1;
                sim_case_t dc = {kind, NULL, p, sizes[si], r0, 0, 0, ppn, 1, mpi_path};
                int drad = 0;
                size_t dseg = 0;
                const coll_algo_t *def = NULL;
                if (na) {
                    dc.algo = &algos[0];
                    def = sim_default_choice(&dc, &drad, &dseg);
                }
                char defname[48] = "-";
                if (def && def->radix_max)
                    snprintf(defname, sizeof defname, "%s:k=%d", def->name, drad);
                else if (def)
                    snprintf(defname, sizeof defname, "%s", def->name);
                for (int ai = 0; ai < na && nrow < 64; ai++) {
                    const coll_algo_t *g = &algos[ai];
                    if (strcmp(algo, "all") && strcmp(algo, g->name)) continue;
                    size_t nrad = g->radix_max && nr ? nr : 1;
                    for (size_t ri = 0; ri < nrad && nrow < 64; ri++) {
                        int radix = g->radix_max && nr ? (int)radices[ri] : 0;
                        if (g->radix_max && nr && (radix < g->radix_min || radix > g->radix_max))
                            continue;
                        sim_case_t c = {kind, g, p, sizes[si], r0, radix, 0, ppn, 1, mpi_path};
                        row_t *rw = &rows[nrow++];
                        rw->algo = g;
                        rw->radix = radix ? radix : g->radix_default;
                        int shown_radix = radix ? radix : g->radix_default;
                        if (g->radix_max)
                            snprintf(rw->name, sizeof rw->name, "%s:k=%d", g->name, shown_radix);
                        else
                            snprintf(rw->name, sizeof rw->name, "%s", g->name);
                        char why[200] = "";
                        rw->ok = 0;
                        const char *status = "ok";
                        sim_result_t res = {0};
                        int ri_row = nrow - 1;
                        if (capped_at[ri_row] && p >= capped_at[ri_row]) {
                            snprintf(why, sizeof why, "capped (at a smaller team already)");
                            status = "skipped";
                        } else {
                            int sr = simulate(c, b2b, max_events, &prm, &net, ppn, why, sizeof why,
                                              &res);
                            if (sr == 0) {
                                rw->ok = 1;
                                rw->t = res.time;
                                if (best < 0 || rw->t < rows[best].t) best = nrow - 1;
                            } else if (sr > 0) {
                                status = res.deadlock ? "DEADLOCK" : "UNBALANCED";
                                snprintf(why, sizeof why, "%s (member %d, word %llu, %zu words)",
                                         status, (int)res.stuck_member,
                                         (unsigned long long)res.stuck_key, res.unbalanced_words);
                                bad = 1;
                            } else {
                                status = "skipped";
                            }
                        }
                        rw->capped = !rw->ok && strstr(why, "capped") != NULL;
                        if (rw->capped && (!capped_at[ri_row] || p < capped_at[ri_row]))
                            capped_at[ri_row] = p;
                        rw->na = !rw->ok && !strcmp(status, "skipped") && !rw->capped;
                        if (csv)
                            fprintf(csv, "%s,%d,%zu,%s,%d,%.6g,%s,%zu,%s\n", kind_names[kind],
                                    (int)p, sizes[si], g->name, g->radix_max ? shown_radix : 0,
                                    rw->ok ? rw->t : 0.0,
                                    rw->ok       ? "ok"
                                    : rw->capped ? "capped"
                                    : rw->na     ? "n/a"
                                                 : status,
                                    res.events, defname);
                    }
                }
                printf("p=%-7d", (int)p);
                for (int i = 0; i < nrow; i++) {
                    int is_def = def && !strncmp(rows[i].name, defname, strlen(defname)) &&
                                 (rows[i].name[strlen(defname)] == 0);
                    if (rows[i].ok)
                        printf("  %s%s%s=%.4g", i == best ? "*" : "", rows[i].name,
                               is_def ? "[d]" : "", rows[i].t);
                    else if (rows[i].na)
                        printf("  %s=n/a", rows[i].name);
                    else
                        printf("  %s=%s", rows[i].name, rows[i].capped ? "capped" : "FAILED");
                }
                printf("\n");
                if (best >= 0 && tuning && (kind != COLL_BARRIER || si == 0)) {
                    int whole = kind == COLL_COLLECT || kind == COLL_FCOLLECT;
                    int32_t p_hi = whole ? p : pi + 1 < np ? (int32_t)ps[pi + 1] - 1 : 0;
                    size_t b_lo = si ? sizes[si] : 0;
                    size_t b_hi = si + 1 < ns ? sizes[si + 1] - 1 : SIZE_MAX;
                    if (whole) {
                        b_lo *= (size_t)p;
                        if (b_hi != SIZE_MAX) b_hi = (b_hi + 1) * (size_t)p - 1;
                    }
                    tuning_rule(tuning, kind, &rows[best], p, p_hi, b_lo, b_hi);
                }
                if (best >= 0) {
                    int prev_here = 0; /* the previous winner was replayed at this p too */
                    for (int i = 0; i < nrow; i++)
                        if (rows[i].ok && !strcmp(rows[i].name, prev_name)) prev_here = 1;
                    if (prev_win && strcmp(prev_name, rows[best].name))
                        printf("   %s: %s -> %s between p=%d and p=%d\n",
                               prev_here ? "crossover"
                                         : "winner changes (the previous one was "
                                           "capped or not applicable here)",
                               prev_name, rows[best].name, (int)ps[pi - 1], (int)p);
                    snprintf(prev_name, sizeof prev_name, "%s", rows[best].name);
                    prev_win = prev_name;
                }
            }
        }
    }
    if (csv) fclose(csv);
    if (tuning) fclose(tuning);
    return check && bad ? 1 : 0;
}
