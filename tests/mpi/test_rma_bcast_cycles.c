// np: 1 2
/* Relay thread start/stop cycles of the one-sided broadcast (issue 7): 100 enable/disable cycles
 * of one allocation with a broadcast each (the numbers start at 1 again with every registration),
 * then 8 memalloc/enable/memfree cycles, every other one freed with its broadcast still in flight,
 * some with a second registration alive beside it (20 and 4 cycles where the control words go
 * through MPI: each registration creates and frees MPI windows). Each registration of a team of
 * two or more runs one relay thread, which must be gone after its disable or free: the entries of
 * /proc/self/task and /proc/self/fd are counted before and after (after a warm-up cycle, so that
 * threads and descriptors MPI opens on first use are in both counts), and the threads while
 * registrations are alive. Where enable must fail (a member reached through MPI without
 * SHOAL_THREAD_MULTIPLE: Open MPI 4.1), every cycle checks that it fails on every unit with
 * SHOAL_ERR_UNSUPPORTED and leaves no thread or descriptor behind. At the end, shoal_finalize with
 * a registration alive and its broadcast in flight. Two units at most: collective window creation
 * crawls on oversubscribed cores. RB_TIMES=1 prints the cycles' times on unit 0. */
#include "testlib.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#define CYCLES      100
#define ALLOC_ROUND 8
#define NB          64

static int t_provided;
static shoal_err_t t_expect; /* what enable returns on the full team */

static int count_entries(const char *path) {
    DIR *d = opendir(path);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

static int threads(void) {
    return count_entries("/proc/self/task");
}

/* The broadcast of a cycle: root (cycle % np) sends NB bytes of pattern (cycle, root) to offset
 * (cycle % 8) * NB; every unit waits for number `seq` and checks. in_flight: the root does not
 * complete it (the caller ends the registration with it in flight); otherwise the root completes
 * by wait or by polling test in turn. */
static void cycle_bcast(shoal_gptr_t gp, int cycle, uint64_t seq, int in_flight,
                        shoal_rma_bcast_t *req) {
    const shoal_unit_t root = cycle % t_np;
    const size_t at = (size_t)(cycle % 8) * NB;
    uint8_t *mine = NULL;
    CHECK_OK(shoal_gptr_getaddr(gp, (void **)&mine));
    *req = SHOAL_RMA_BCAST_NULL;
    if (t_me == root) {
        uint8_t src[NB];
        fill_pattern(src, NB, (uint64_t)cycle, (uint64_t)root, 0);
        uint64_t got = 0;
        CHECK_OK(shoal_rma_bcast(shoal_gptr_add(gp, (int64_t)at), src, NB,
                                 (shoal_rma_bcast_algo_t)(cycle % 3), req, &got));
        CHECK(got == seq, "cycle %d: seq %llu, expected %llu", cycle, (unsigned long long)got,
              (unsigned long long)seq);
        if (!in_flight && cycle % 2) {
            CHECK_OK(shoal_rma_bcast_wait(req));
        } else if (!in_flight) {
            int done = 0;
            double limit = test_now() + 60;
            while (CHECK_OK(shoal_rma_bcast_test(req, &done)) && !done &&
                   CHECK(test_now() < limit, "cycle %d: never completes", cycle))
                test_yield();
        }
    }
    if (in_flight) return;
    CHECK_OK(shoal_rma_bcast_wait_arrival(gp, seq));
    char what[64];
    snprintf(what, sizeof what, "cycle %d from %d", cycle, (int)root);
    CHECK_PATTERN(mine + at, NB, (uint64_t)cycle, (uint64_t)root, 0, what);
}

/* The threads a live registration adds on this unit: its relay (none alone). */
static int relay_threads(void) {
    return t_np > 1 ? 1 : 0;
}

/* Threads of this process whose scheduler slice (se.slice in /proc/self/task/T/sched) is ns; -1
 * where the kernel shows none. */
static int threads_with_slice(unsigned long long ns) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0, seen = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[300], line[256];
        snprintf(path, sizeof path, "/proc/self/task/%s/sched", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        while (fgets(line, sizeof line, f)) {
            unsigned long long v = 0;
            if (strncmp(line, "se.slice", 8) || !strchr(line, ':')) continue;
            seen = 1;
            if (sscanf(strchr(line, ':') + 1, "%llu", &v) == 1 && v == ns) n++;
        }
        fclose(f);
    }
    closedir(d);
    return seen ? n : -1;
}

/* Whether this kernel takes a thread's own scheduler slice (EEVDF custom slices, Linux 6.12). */
static int kernel_has_custom_slices(void) {
    struct utsname u;
    int major = 0, minor = 0;
    if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2) return 0;
    return major > 6 || (major == 6 && minor >= 12);
}

/* The relay thread runs with a short scheduler slice (SHOAL_RMA_BCAST_RELAY_SLICE_US, 100 us by
 * default), so that its wake-ups preempt a program thread computing on its CPU. It sets it when
 * it starts: wait for it a while. */
static void check_relay_slice(void) {
    const char *env = getenv("SHOAL_RMA_BCAST_RELAY_SLICE_US");
    unsigned long long us = env ? strtoull(env, NULL, 10) : 100;
    if (!kernel_has_custom_slices() || us == 0 || threads_with_slice(us * 1000) < 0) {
        if (t_me == 0)
            printf("test_rma_bcast_cycles: relay slice not checked (kernel or setting)\n");
        return;
    }
    int n = 0;
    for (double limit = test_now() + 10; test_now() < limit; test_yield())
        if ((n = threads_with_slice(us * 1000)) == relay_threads()) break;
    CHECK(n == relay_threads(), "%d threads with a %llu us slice, expected %d (the relay)", n, us,
          relay_threads());
}

int main(int argc, char **argv) {
    test_begin_thread(&argc, &argv, SHOAL_THREAD_MULTIPLE, &t_provided);
    int needs_mpi = 0;
    for (int32_t u = 0; u < t_np; u++) {
        shoal_mechanism_t m;
        CHECK_OK(shoal_peer_mechanism(u, &m));
        needs_mpi |= m == SHOAL_MECH_MPI;
    }
    MPI_Allreduce(MPI_IN_PLACE, &needs_mpi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    t_expect = needs_mpi && t_provided != SHOAL_THREAD_MULTIPLE ? SHOAL_ERR_UNSUPPORTED : SHOAL_OK;

    /* Fewer rounds where the control words go through MPI (slower to create and free). */
    const int cycles = needs_mpi ? CYCLES / 5 : CYCLES, rounds = needs_mpi ? 4 : ALLOC_ROUND;
    shoal_gptr_t gp;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 8 * NB, &gp));
    shoal_rma_bcast_t req;
    /* Warm-up: one cycle. */
    if (shoal_rma_bcast_enable(gp) == SHOAL_OK) {
        cycle_bcast(gp, 0, 1, 0, &req);
        CHECK_OK(shoal_rma_bcast_disable(gp));
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    const int tasks0 = threads(), fds0 = count_entries("/proc/self/fd");
    REQUIRE(tasks0 > 0 && fds0 > 0, "cannot count /proc/self/task or /proc/self/fd");

    /* 1. Enable/disable cycles of one allocation, a broadcast each. */
    double te = 0, tb = 0, td = 0;
    for (int c = 0; c < cycles; c++) {
        double t0 = test_now();
        shoal_err_t e = shoal_rma_bcast_enable(gp);
        te += test_now() - t0;
        if (!CHECK(e == t_expect, "cycle %d: enable returned %s, expected %s", c, shoal_strerror(e),
                   shoal_strerror(t_expect)) ||
            e != SHOAL_OK) {
            if (e == SHOAL_OK) CHECK_OK(shoal_rma_bcast_disable(gp));
            continue;
        }
        if (c == 0) check_relay_slice();
        if (c % 25 == 0)
            CHECK(threads() == tasks0 + relay_threads(),
                  "cycle %d: %d threads while registered, expected %d", c, threads(),
                  tasks0 + relay_threads());
        t0 = test_now();
        cycle_bcast(gp, c, 1, 0, &req);
        tb += test_now() - t0;
        t0 = test_now();
        CHECK_OK(shoal_rma_bcast_disable(gp));
        td += test_now() - t0;
    }
    if (t_me == 0 && getenv("RB_TIMES"))
        printf("  %d cycles: enable %.3f s, broadcast %.3f s, disable %.3f s\n", cycles, te, tb,
               td);
    CHECK(threads() == tasks0, "after %d enable/disable cycles: %d threads, %d before", cycles,
          threads(), tasks0);

    /* 2. Allocations registered and freed, every other one with its broadcast in flight; then
     * two registrations alive at once (two relays), ended in either order. */
    for (int c = 0; c < rounds; c++) {
        shoal_gptr_t g2;
        REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 8 * NB + (size_t)c * 512, &g2));
        shoal_err_t e = shoal_rma_bcast_enable(g2);
        CHECK(e == t_expect, "alloc cycle %d: enable returned %s", c, shoal_strerror(e));
        if (e == SHOAL_OK) {
            int fly = c % 2;
            cycle_bcast(g2, c, 1, fly, &req);
            if (c % 4 == 3) { /* a second registration beside it */
                shoal_err_t e2 = shoal_rma_bcast_enable(gp);
                if (CHECK_OK(e2)) {
                    CHECK(threads() == tasks0 + 2 * relay_threads(),
                          "alloc cycle %d: %d threads with two registrations, expected %d", c,
                          threads(), tasks0 + 2 * relay_threads());
                    shoal_rma_bcast_t r2;
                    cycle_bcast(gp, c + 1, 1, 0, &r2);
                    CHECK_OK(shoal_rma_bcast_disable(gp));
                }
            }
            CHECK_OK(shoal_team_memfree(g2)); /* deregisters; waits for the one in flight */
            if (fly && t_me == c % t_np) {
                int done = 0;
                CHECK_OK(shoal_rma_bcast_test(&req, &done));
                CHECK(done == 1 && req == SHOAL_RMA_BCAST_NULL,
                      "alloc cycle %d: the request after the free: done %d", c, done);
            }
        } else {
            CHECK_OK(shoal_team_memfree(g2));
        }
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    const int tasks1 = threads(), fds1 = count_entries("/proc/self/fd");
    CHECK(tasks1 == tasks0, "threads: %d before the cycles, %d after", tasks0, tasks1);
    CHECK(fds1 == fds0, "file descriptors: %d before the cycles, %d after", fds0, fds1);
    /* Finalize with a registration alive and its broadcast in flight: it waits for it, stops the
     * relay and succeeds everywhere (test_end checks). */
    if (shoal_rma_bcast_enable(gp) == SHOAL_OK) cycle_bcast(gp, 1, 1, 1, &req);
    return test_end("test_rma_bcast_cycles");
}
