/* Tests of shoal-coll-sim (docs/coll_sim.md).
 *   exact:     replayed times against LogGP times worked out by hand for tiny cases, and the
 *              engine's own checks (a deadlock and an unbalanced word are reported).
 *   schedules: every registered algorithm of every collective records and replays at p = 1..17
 *              and a few large p: no deadlock, every word gets exactly the signals its owner
 *              consumes, nothing touches data (the buffers are PROT_NONE). A second argument
 *              caps the team size (default 4096). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"

static int failures;

static void expect_near(const char *what, double got, double want) {
    if (fabs(got - want) > 1e-9 * (1 + fabs(want))) {
        printf("FAIL %s: got %.9g, want %.9g\n", what, got, want);
        failures++;
    } else {
        printf("ok   %s = %.6g\n", what, got);
    }
}

static sim_params_t test_params(void) {
    sim_params_t prm;
    sim_params_default(&prm);
    prm.L = 2;
    prm.o = 0.5;
    prm.a = 0.25;
    prm.g = 0.1;
    prm.G = 0.01;
    prm.o_r = 0.05;
    prm.copy = 0.001;
    prm.reduce = 0.002;
    return prm;
}

/* The time of one event of member 0 (member 1 does nothing), replayed alone. */
static double one_event(const sim_params_t *prm, sim_ev_kind_t kind, int32_t peer, uint64_t key,
                        uint64_t n) {
    sim_ev_t ev[1] = {{kind, peer, key, n}};
    size_t start[3] = {0, 1, 1};
    sim_schedule_t s = {2, ev, 1, 1, start, 1, 0};
    sim_result_t r = {0};
    sim_replay(&s, prm, &r);
    return r.time;
}

static double run_case(coll_kind_t kind, const char *name, int32_t p, size_t bytes, int radix) {
    const coll_algo_t *g = coll_find_algo(kind, name);
    if (!g) {
        printf("FAIL no algorithm %s\n", name);
        failures++;
        return -1;
    }
    sim_case_t c = {kind, g, p, bytes, 0, radix, 0, 0, 1, 0};
    sim_schedule_t s;
    char why[200];
    if (sim_record(&c, &s, 1000000, why, sizeof why)) {
        printf("FAIL record %s p=%d: %s\n", name, (int)p, why);
        failures++;
        return -1;
    }
    sim_params_t prm = test_params();
    sim_result_t r;
    if (sim_replay(&s, &prm, &r) || r.deadlock || r.unbalanced_words) {
        printf("FAIL replay %s p=%d: deadlock %d unbalanced %zu\n", name, (int)p, r.deadlock,
               r.unbalanced_words);
        failures++;
    }
    sim_schedule_free(&s);
    return r.time;
}

static int test_exact(void) {
    /* L = 2, o = 0.5, signal overhead a = 0.25, g = 0.1, G = 0.01, o_r = 0.05, copy 0.001/B. */
    /* Dissemination, p = 2: one round, a + L + o_r. */
    expect_near("barrier dissemination p=2", run_case(COLL_BARRIER, "dissemination", 2, 0, 0),
                0.25 + 2 + 0.05);
    /* p = 4 (and 3): two rounds; the second signal leaves after the first wait (the gap g after
     * the first signal has long passed): 2 (a + L + o_r). */
    expect_near("barrier dissemination p=4", run_case(COLL_BARRIER, "dissemination", 4, 0, 0),
                2 * (0.25 + 2 + 0.05));
    expect_near("barrier dissemination p=3", run_case(COLL_BARRIER, "dissemination", 3, 0, 0),
                2 * (0.25 + 2 + 0.05));
    /* Linear, p = 3: members 1 and 2 signal member 0 at a; member 0's receive port takes them g
     * apart (2.25, 2.35); its wait ends at 2.35 + o_r = 2.40; it releases 1 (leaves 2.65) and 2
     * (leaves max(2.65 + a, 2.65 + g) = 2.90), which arrives at 4.90 and is seen at 4.95. */
    expect_near("barrier linear p=3", run_case(COLL_BARRIER, "linear", 3, 0, 0), 4.95);
    /* Linear broadcast, p = 2, 1000 bytes: the root signals 1 (arrives 2.25; seen 2.30), then
     * copies src to its dest (1.0) while member 1 gets 1000 bytes from shared memory: it leaves
     * 2.80, its first miss is served at 4.80, the data in at 4.80 + 999 G = 14.79; DONE leaves
     * 15.04, arrives 17.04, seen 17.09. */
    expect_near("broadcast linear p=2 1000B", run_case(COLL_BROADCAST, "linear", 2, 1000, 0),
                17.09);
    /* Binomial broadcast, p = 2, 100 bytes: member 1 says READY (arrives 2.25, seen 2.30); the
     * root puts 100 bytes (leaves 2.80, busy until 3.79; first byte in 4.80, last 5.79, port free
     * at 5.89), then signals (leaves 4.04; L later is 6.04 > 5.89), seen at 6.09. */
    expect_near("broadcast knomial:k=2 p=2 100B", run_case(COLL_BROADCAST, "knomial", 2, 100, 2),
                6.09);
    /* A call's fixed cost delays every member's first operation: it adds to the whole. */
    {
        const coll_algo_t *g = coll_find_algo(COLL_BARRIER, "dissemination");
        sim_case_t c = {COLL_BARRIER, g, 4, 0, 0, 0, 0, 0, 1, 0};
        sim_schedule_t s;
        char why[200];
        sim_params_t prm = test_params();
        prm.call = 0.7;
        sim_result_t r = {0};
        if (sim_record(&c, &s, 1000, why, sizeof why) == 0) {
            sim_replay(&s, &prm, &r);
            sim_schedule_free(&s);
        }
        expect_near("barrier dissemination p=4 call=0.7", r.time, 0.7 + 2 * (0.25 + 2 + 0.05));
    }
    /* Two nodes of two: members 0 and 1 each put 101 bytes to the other node (net: L = 10, o = 1,
     * g = 0.5, G = 0.1). They share node 0's NIC: the first leaves at 1 and holds the NIC until
     * 1 + g + 100 G = 11.5, the second leaves then and is done sending at 11.5 + 100 G = 21.5.
     * Within one node (or with ppn 0) each is o + 100 G = 1.5 of the local parameters. */
    {
        sim_ev_t nev[2] = {{EV_PUT, 2, 0, 101}, {EV_PUT, 3, 0, 101}};
        size_t nstart[5] = {0, 1, 2, 2, 2};
        sim_schedule_t ns = {4, nev, 2, 2, nstart, 2, 0};
        sim_params_t loc = test_params(), net = test_params();
        net.L = 10, net.o = 1, net.a = 1, net.g = 0.5, net.G = 0.1;
        sim_result_t r = {0};
        sim_replay_nodes(&ns, &loc, &net, 2, &r);
        expect_near("two puts across nodes share the NIC", r.time, 21.5);
        sim_replay_nodes(&ns, &loc, &net, 0, &r);
        expect_near("the same on one node", r.time, 0.5 + 100 * 0.01);
        nev[0].peer = 1, nev[1].peer = 0; /* within node 0 */
        sim_replay_nodes(&ns, &loc, &net, 2, &r);
        expect_near("two puts within a node", r.time, 0.5 + 100 * 0.01);
    }
    /* Stores set a word (flags, marks), adds count: member 0 stores 5 into member 1's word
     * (leaves at a = 0.25, in at 2.25); member 1's wait for 5 ends at 2.30 (as an add, one
     * arrival could never make 5: a deadlock). */
    {
        sim_ev_t sev[2] = {{EV_STORE, 1, 16, 5}, {EV_WAIT_ABS, 1, 16, 5}};
        size_t sstart[3] = {0, 1, 2};
        sim_schedule_t ss = {2, sev, 2, 2, sstart, 2, 0};
        sim_params_t prm = test_params();
        sim_result_t r = {0};
        sim_replay(&ss, &prm, &r);
        expect_near("a stored value satisfies a wait for it", r.deadlock ? -1 : r.time, 2.30);
        /* A mark on my own word costs me nothing; a peer polling it sees it L later (2.05). */
        sim_ev_t mev[2] = {{EV_STORE, 0, 8, 1}, {EV_WAIT_ABS, 0, 8, 1}};
        sim_schedule_t ms = {2, mev, 2, 2, sstart, 2, 0};
        sim_replay(&ms, &prm, &r);
        expect_near("a peer polls my mark", r.deadlock ? -1 : r.time, 2.05);
    }
    /* Per-byte costs by kind of put, big_from = 1000: 500 bytes (half of it) at G (0.5 + 499 x
     * 0.01), 2000 (twice it) at G_big = 0.1 (0.5 + 1999 x 0.1), 1000 at their geometric mean
     * (0.5 + 999 x sqrt(0.01 x 0.1)), 101 bytes into a peer's scratch at G_fresh = 0.05 (0.5 + 100
     * x 0.05). */
    {
        sim_params_t prm = test_params();
        prm.big_from = 1000, prm.G_big = 0.1, prm.G_fresh = 0.05;
        expect_near("a put of half big_from", one_event(&prm, EV_PUT, 1, 0, 500), 0.5 + 499 * 0.01);
        expect_near("a put of twice big_from", one_event(&prm, EV_PUT, 1, 0, 2000),
                    0.5 + 1999 * 0.1);
        expect_near("a put of big_from", one_event(&prm, EV_PUT, 1, 0, 1000),
                    0.5 + 999 * sqrt(0.01 * 0.1));
        expect_near("a put into a peer's scratch", one_event(&prm, EV_PUT, 1, 1, 101),
                    0.5 + 100 * 0.05);
    }
    /* Per-size curves, read from a parameter file: G.1000 = 0.01 and G.4000 = 0.04 (big_from's
     * blend ignored): 500 bytes at 0.01, 2000 at their geometric mean 0.02 (log-midway), 8000 at
     * 0.04; a scratch put never below G_fresh = 0.05; a copy of 2000 bytes between copy.1000 =
     * 0.001 and copy.4000 = 0.004 at 0.002 per byte. */
    {
        char path[] = "/tmp/test_coll_sim_XXXXXX";
        int fd = mkstemp(path);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        sim_params_t prm;
        int read_rc = -1;
        if (f) {
            fprintf(f, "L = 2\no = 0.5\ng = 0.1\nG = 0.01\nbig_from = 1000\nG_big = 9\n"
                       "G_fresh = 0.05\nG.4000 = 0.04\nG.1000 = 0.01\ncopy.1000 = 0.001\n"
                       "copy.4000 = 0.004\nreduce = 0.003\nreduce.1000 = 0.004\n");
            fclose(f);
            read_rc = sim_params_read(path, &prm);
            unlink(path);
        }
        expect_near("a parameter file with curves reads", read_rc, 0);
        expect_near("a put below the curve", one_event(&prm, EV_PUT, 1, 0, 500), 0.5 + 499 * 0.01);
        expect_near("a put between two points of the curve", one_event(&prm, EV_PUT, 1, 0, 2000),
                    0.5 + 1999 * 0.02);
        expect_near("a put past the curve", one_event(&prm, EV_PUT, 1, 0, 8000), 0.5 + 7999 * 0.04);
        expect_near("a scratch put with a curve", one_event(&prm, EV_PUT, 1, 1, 101),
                    0.5 + 100 * 0.05);
        expect_near("a copy on the copy curve", one_event(&prm, EV_COPY, 0, 0, 2000), 2000 * 0.002);
        expect_near("a reduction on the reduce curve, not at reduce",
                    one_event(&prm, EV_REDUCE, 0, 0, 2000), 2000 * 0.004);
    }
    /* A get on shared memory (no put_ack): the load's first miss is one hand-off, L, then the
     * bytes follow: o + L + (n - 1) G, not a request and a reply (o + 2 L + (n - 1) G). */
    {
        sim_params_t prm = test_params();
        expect_near("a get on shared memory", one_event(&prm, EV_GET, 1, 0, 1256),
                    0.5 + 2 + 1255 * 0.01);
    }
    /* The MPI path (put_ack): a put's completion as measured, put_small = 5 for 256 bytes plus
     * (n - 256) G, not the last byte's arrival plus L (0.5 + 2 + 1255 x 0.01 + 2 = 17.05); a get
     * likewise from get_small = 4. */
    {
        sim_params_t prm = test_params();
        prm.put_ack = 1;
        expect_near("an acknowledged put, priced by L", one_event(&prm, EV_PUT, 1, 0, 1256),
                    0.5 + 2 + 1255 * 0.01 + 2);
        prm.put_small = 5, prm.get_small = 4;
        expect_near("an acknowledged put, as measured", one_event(&prm, EV_PUT, 1, 0, 1256),
                    5 + 1000 * 0.01);
        expect_near("a get through MPI, as measured", one_event(&prm, EV_GET, 1, 0, 1256),
                    4 + 1000 * 0.01);
        expect_near("a get smaller than the measured one", one_event(&prm, EV_GET, 1, 0, 100), 4);
    }
    /* cpu_ports (MPI within a node): two members putting 1256 bytes to each other at once. Apart,
     * each as measured (5 + 1000 x 0.01). With one CPU per member, the second put's bytes meet a
     * CPU still moving the first's (12.55 of them, 1255 x 0.01): it takes that much longer; with a
     * measured both-ways curve at 1.5x the one-way one, half of it. */
    {
        sim_ev_t bev[2] = {{EV_PUT, 1, 0, 1256}, {EV_PUT, 0, 0, 1256}};
        size_t bstart[3] = {0, 1, 2};
        sim_schedule_t bs = {2, bev, 2, 2, bstart, 2, 0};
        sim_params_t prm = test_params();
        prm.put_ack = 1, prm.put_small = 5;
        sim_result_t r = {0};
        sim_replay(&bs, &prm, &r);
        expect_near("puts both ways, ports apart", r.time, 5 + 1000 * 0.01);
        prm.cpu_ports = 1;
        sim_replay(&bs, &prm, &r);
        expect_near("puts both ways, one CPU per member", r.time, 5 + 1000 * 0.01 + 12.55);
        prm.G_curve = (sim_curve_t){1, {1256}, {0.01}};
        prm.G_both_curve = (sim_curve_t){1, {1256}, {0.015}};
        sim_replay(&bs, &prm, &r);
        expect_near("puts both ways, the measured share", r.time, 5 + 1000 * 0.01 + 12.55 / 2);
    }
    /* A message inside the MPI's own collective (EV_SEND): its sender goes on after o; it arrives
     * native_L later (L when not given), and the waiter notices it o_r after that. */
    {
        sim_ev_t sev[2] = {{EV_SEND, 1, 7, 1}, {EV_WAIT_ADD, 1, 7, 1}};
        size_t sstart[3] = {0, 1, 2};
        sim_schedule_t ss = {2, sev, 2, 2, sstart, 2, 0};
        sim_params_t prm = test_params();
        prm.put_ack = 1;
        sim_result_t r = {0};
        sim_replay(&ss, &prm, &r);
        expect_near("a native message priced by L", r.deadlock ? -1 : r.time, 0.5 + 2 + 0.05);
        prm.native_L = 1;
        sim_replay(&ss, &prm, &r);
        expect_near("a native message priced by native_L", r.deadlock ? -1 : r.time,
                    0.5 + 1 + 0.05);
    }
    /* Back to back: the second dissemination barrier of p = 2 starts when the first ends, so
     * two take twice one (2 x 2.30); a collective's own call cost replaces the general one. */
    {
        const coll_algo_t *g = coll_find_algo(COLL_BARRIER, "dissemination");
        sim_case_t c = {COLL_BARRIER, g, 2, 0, 0, 0, 0, 0, 2, 0};
        sim_schedule_t s;
        char why[200];
        sim_params_t prm = test_params();
        sim_result_t r = {0};
        if (sim_record(&c, &s, 1000, why, sizeof why) == 0) {
            sim_replay(&s, &prm, &r);
            expect_near("two barriers back to back", r.time, 2 * (0.25 + 2 + 0.05));
            prm.call = 0.7;
            prm.call_kind[COLL_BARRIER] = 0.3;
            sim_replay(&s, &prm, &r);
            expect_near("call.barrier", r.time, 2 * (0.3 + 0.25 + 2 + 0.05));
            sim_schedule_free(&s);
        } else {
            printf("FAIL recording two barriers: %s\n", why);
            failures++;
        }
    }
    /* The engine's checks must be able to fail: a wait nobody signals is a deadlock; a signal
     * nobody consumes an unbalanced word. */
    sim_ev_t ev[2] = {{EV_WAIT_ADD, 0, 8, 1}, {EV_SIGNAL, 0, 16, 1}};
    size_t start[3] = {0, 1, 2};
    sim_schedule_t s = {2, ev, 2, 2, start, 2, 0};
    sim_params_t prm = test_params();
    sim_result_t r;
    sim_replay(&s, &prm, &r);
    if (!r.deadlock || r.stuck_member != 0) {
        printf("FAIL a wait that nobody satisfies was not reported as a deadlock\n");
        failures++;
    } else {
        printf("ok   deadlock detected (member %d)\n", (int)r.stuck_member);
    }
    sim_ev_t ev2[1] = {{EV_SIGNAL, 1, 16, 1}};
    size_t start2[3] = {0, 1, 1};
    sim_schedule_t s2 = {2, ev2, 1, 1, start2, 1, 0};
    sim_replay(&s2, &prm, &r);
    if (r.deadlock || r.unbalanced_words != 1) {
        printf("FAIL a signal nobody consumes was not reported (unbalanced %zu)\n",
               r.unbalanced_words);
        failures++;
    } else {
        printf("ok   unbalanced word detected\n");
    }
    return failures;
}

/* max_p: the largest team replayed. The sanitizer builds stop at 100: under ASan the teams of
 * 1000 and 4096 units took 48 of the test's 53 s and run the same code as the smaller ones. */
static int test_schedules(int32_t max_p) {
    static const int32_t big[] = {31, 64, 100, 1000, 4096};
    static const size_t sizes[] = {0, 8, 1000, 65536};
    sim_params_t prm = test_params();
    size_t runs = 0, skipped = 0, capped = 0;
    for (int k = 0; k < COLL_KINDS; k++) {
        int na = 0;
        const coll_algo_t *algos = coll_algos((coll_kind_t)k, &na);
        for (int ai = 0; ai < na; ai++) {
            const coll_algo_t *g = &algos[ai];
            for (int pi = 0; pi < 17 + 5; pi++) {
                int32_t p = pi < 17 ? pi + 1 : big[pi - 17];
                if (p > max_p) continue;
                for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                    if (p > 100 && sizes[si] != 8) continue; /* keeps the test short */
                    int radices[2] = {0, 3};
                    for (int ri = 0; ri < (g->radix_max ? 2 : 1); ri++) {
                        for (int root = 0; root < (k == COLL_BROADCAST && p > 1 ? 2 : 1); root++) {
                            sim_case_t c = {
                                (coll_kind_t)k, g, p, sizes[si], root ? p - 1 : 0, radices[ri], 0,
                                3, /* nodes of 3 units: the node-aware ones */
                                /* two calls back to back (the second's words balance too),
                                 * on the small teams: the large ones keep the test short */
                                p <= 17 ? 2 : 1,
                                /* collect at odd team sizes: the MPI path's size exchange (the
                                 * MPI's allgather), at even ones the eager exchange */
                                k == COLL_COLLECT && (p & 1)};
                            if (sim_not_applicable(&c)) {
                                skipped++;
                                continue;
                            }
                            sim_schedule_t s;
                            char why[200];
                            /* O(p^2) schedules (linear, ring, pairwise) stop at the cap at p >=
                             * 1000: counted, not failed (the tool says "capped" too) */
                            if (sim_record(&c, &s, 2000000, why, sizeof why)) {
                                if (strstr(why, "capped") && p >= 1000) {
                                    capped++;
                                    continue;
                                }
                                printf("FAIL record kind %d %s p=%d %zuB: %s\n", k, g->name, (int)p,
                                       sizes[si], why);
                                failures++;
                                continue;
                            }
                            sim_result_t r;
                            if (sim_replay(&s, &prm, &r) || r.deadlock || r.unbalanced_words ||
                                !(r.time >= 0)) {
                                printf("FAIL kind %d %s p=%d %zuB root %d radix %d: deadlock %d "
                                       "(member %d word %llu), %zu unbalanced words\n",
                                       k, g->name, (int)p, sizes[si], (int)c.root, c.radix,
                                       r.deadlock, (int)r.stuck_member,
                                       (unsigned long long)r.stuck_key, r.unbalanced_words);
                                failures++;
                            }
                            size_t comm = 0, wide = 0; /* events beyond the call's own */
                            for (size_t e = 0; e < s.nev; e++) {
                                comm += s.ev[e].kind != EV_CALL;
                                wide += s.ev[e].key > 0xffffffffu; /* the replay keeps 32 bits */
                            }
                            if (wide) {
                                printf("FAIL kind %d %s p=%d: %zu events with a word key beyond "
                                       "32 bits\n",
                                       k, g->name, (int)p, wide);
                                failures++;
                            }
                            if (p > 1 && comm == 0 && k != COLL_BARRIER) {
                                /* a collective of 2+ members that communicates nothing */
                                if (sizes[si]) {
                                    printf("FAIL kind %d %s p=%d: empty schedule\n", k, g->name,
                                           (int)p);
                                    failures++;
                                }
                            }
                            runs++;
                            sim_schedule_free(&s);
                        }
                    }
                }
            }
        }
    }
    printf("%zu schedules replayed, %zu cases not applicable, %zu capped (O(p^2) at p >= 1000), "
           "%d failures\n",
           runs, skipped, capped, failures);
    return failures;
}

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "exact";
    int32_t max_p = argc > 2 ? (int32_t)atoi(argv[2]) : 4096;
    int f = !strcmp(what, "schedules") ? test_schedules(max_p > 0 ? max_p : 4096) : test_exact();
    printf(f ? "test_coll_sim %s: FAILED\n" : "test_coll_sim %s: OK\n", what);
    return f ? 1 : 0;
}
