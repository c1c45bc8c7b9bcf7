/* bench_load: Shoal's collectives against the MPI's while other programs keep the CPUs busy
 * (issue 12, "graceful under load"), measured as the mean time per call over seconds of calls.
 *
 * Under load one call takes anywhere from microseconds to a round of the other programs'
 * scheduler slices (tens of milliseconds), so the medians of short batches (bench_coll --load)
 * move by 10-100x between runs, for Shoal and MPI alike. What a program under load sees is its
 * calls' throughput: here each variant (Shoal's selected algorithm, the MPI collective) runs for
 * --seconds in chunks of calls, the two alternating for --rounds (the first of them changes each
 * round), and the figure is the slowest unit's time in the calls over the calls made. The chunks
 * end together: after each one, an allreduce (not timed) carries unit 0's decision to stop.
 *
 * Options: --load N (N processes spinning on every CPU beside the units, forked by unit 0;
 *          default 12; 0 for none), --seconds S (per variant and round; default 2), --rounds R
 *          (default 2), --only LIST (barrier, broadcast, fcollect, alltoall), --min-size SIZE,
 *          --max-size SIZE (sizes 8 B, 1, 16, 64, 256 KiB and 1 MiB between them), --quick (one
 *          spinner, 50 ms, one round, 8 B and 64 KiB: a smoke test), --csv FILE (the figures,
 *          a row per collective and size).
 * Every variant's result is checked against a reference before it is timed. Exit status: 0 when
 * it ran; 1 when a call failed or moved wrong data; 2 on bad usage. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "shoal.h"

enum { K_BARRIER, K_BCAST, K_FCOLLECT, K_ALLTOALL, NK };
static const char *const kname[NK] = {"barrier", "broadcast", "fcollect", "alltoall"};
static const char *const mpiname[NK] = {"MPI_Barrier", "MPI_Bcast", "MPI_Allgather",
                                        "MPI_Alltoall"};
static const size_t all_sizes[] = {8, 1 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20};
#define NSIZES (sizeof all_sizes / sizeof all_sizes[0])

static struct {
    int me, p;
    shoal_gptr_t dgp, sgp;
    char *dl, *sl;
    size_t bufbytes;
} B;

static void die(const char *what) {
    fprintf(stderr, "bench_load: unit %d: %s\n", B.me, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static inline uint8_t pat(int from, int to, size_t i) {
    return (uint8_t)(from * 101 + to * 13 + (int)(i % 251) * 7 + 5);
}

/* Source and destination for collective k at size s: broadcast and fcollect send pat(me, 0, i),
 * alltoall sends pat(me, j, i) to unit j; the destination is cleared. */
static void fill(int k, size_t s) {
    for (int j = 0; j < (k == K_ALLTOALL ? B.p : 1); j++)
        for (size_t i = 0; i < s; i++) B.sl[(size_t)j * s + i] = (char)pat(B.me, j, i);
    memset(B.dl, 0, s * (size_t)B.p);
}

/* 0 when the destination holds what one call of k at size s must leave there. */
static int check(int k, size_t s) {
    const uint8_t *d = (const uint8_t *)B.dl;
    for (int r = 0; r < (k == K_BCAST ? 1 : B.p); r++)
        for (size_t i = 0; i < s; i++) {
            uint8_t want = k == K_BCAST      ? pat(0, 0, i)
                           : k == K_FCOLLECT ? pat(r, 0, i)
                                             : pat(r, B.me, i);
            if (d[(size_t)r * s + i] != want) return 1;
        }
    return 0;
}

/* One call; 0 on success. */
static int call(int k, int mpi, size_t s) {
    if (!mpi) {
        shoal_err_t rc = SHOAL_ERR_INVAL;
        switch (k) {
        case K_BARRIER:
            rc = shoal_team_barrier(SHOAL_TEAM_ALL);
            break;
        case K_BCAST:
            rc = shoal_broadcast(SHOAL_TEAM_ALL, B.dgp, B.sgp, s, 0);
            break;
        case K_FCOLLECT:
            rc = shoal_fcollect(SHOAL_TEAM_ALL, B.dgp, B.sgp, s);
            break;
        case K_ALLTOALL:
            rc = shoal_alltoall(SHOAL_TEAM_ALL, B.dgp, B.sgp, s);
            break;
        }
        return rc != SHOAL_OK;
    }
    MPI_Comm w = MPI_COMM_WORLD;
    int rc = MPI_ERR_OTHER;
    switch (k) {
    case K_BARRIER:
        rc = MPI_Barrier(w);
        break;
    case K_BCAST:
        rc = MPI_Bcast(B.me == 0 ? B.sl : B.dl, (int)s, MPI_BYTE, 0, w);
        break;
    case K_FCOLLECT:
        rc = MPI_Allgather(B.sl, (int)s, MPI_BYTE, B.dl, (int)s, MPI_BYTE, w);
        break;
    case K_ALLTOALL:
        rc = MPI_Alltoall(B.sl, (int)s, MPI_BYTE, B.dl, (int)s, MPI_BYTE, w);
        break;
    }
    return rc != MPI_SUCCESS;
}

/* The broadcast's root has its data in the source already: MPI_Bcast's root fills nothing. */
static int checked_call(int k, int mpi, size_t s) {
    fill(k, s);
    if (call(k, mpi, s)) return 2;
    if (k == K_BARRIER || (k == K_BCAST && mpi && B.me == 0)) return 0;
    return check(k, s) ? 3 : 0;
}

/* Runs variant (k, mpi) at size s for about seconds, in chunks; returns the slowest unit's time
 * per call in us, and the calls made in *calls. */
static double timed_run(int k, int mpi, size_t s, double seconds, long *calls) {
    /* chunks of about a millisecond unloaded: the allreduce between them stays a small share */
    long chunk = s <= 1024 ? 256 : s <= 65536 ? 32 : 4;
    double spent = 0, start = bench_now_ns();
    long n = 0;
    for (;;) {
        double t0 = bench_now_ns();
        for (long i = 0; i < chunk; i++)
            if (call(k, mpi, s)) die("a call failed while timed");
        spent += bench_now_ns() - t0;
        n += chunk;
        int stop = B.me == 0 && bench_now_ns() - start >= seconds * 1e9, any = 0;
        MPI_Allreduce(&stop, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (any) break;
    }
    double slowest = 0;
    MPI_Allreduce(&spent, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *calls = n;
    return slowest / (double)n / 1e3;
}

static void usage(void) {
    fprintf(stderr, "usage: bench_load [--quick] [--load N] [--seconds S] [--rounds R] "
                    "[--only barrier,broadcast,fcollect,alltoall] [--min-size SIZE] "
                    "[--max-size SIZE] [--csv FILE]\n");
}

int main(int argc, char **argv) {
    int load = 12, rounds = 2, quick = 0, only[NK];
    double seconds = 2;
    size_t min_size = 0, max_size = 1 << 20;
    const char *onlylist = NULL, *csv = NULL;
    for (int i = 1; i < argc; i++) {
        int more = i + 1 < argc;
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--load") && more)
            load = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && more)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && more)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && more)
            csv = argv[++i];
        else if (!strcmp(argv[i], "--only") && more)
            onlylist = argv[++i];
        else if (!strcmp(argv[i], "--min-size") && more) {
            if (bench_parse_size(argv[++i], &min_size)) {
                usage();
                return 2;
            }
        } else if (!strcmp(argv[i], "--max-size") && more) {
            if (bench_parse_size(argv[++i], &max_size)) {
                usage();
                return 2;
            }
        } else {
            usage();
            return 2;
        }
    }
    if (quick) load = 1, seconds = 0.05, rounds = 1;
    if (load < 0 || load > BENCH_LOAD_MAX || rounds < 1 || !(seconds > 0)) {
        usage();
        return 2;
    }
    for (int k = 0; k < NK; k++) only[k] = onlylist == NULL || strstr(onlylist, kname[k]) != NULL;

    if (shoal_init(&argc, &argv) != SHOAL_OK) {
        fprintf(stderr, "bench_load: shoal_init failed\n");
        return 1;
    }
    shoal_unit_t me;
    int32_t p;
    shoal_myid(&me);
    shoal_size(&p);
    B.me = (int)me, B.p = (int)p;
    B.bufbytes = max_size * (size_t)B.p;
    if (shoal_team_memalloc(SHOAL_TEAM_ALL, B.bufbytes, &B.dgp) != SHOAL_OK ||
        shoal_team_memalloc(SHOAL_TEAM_ALL, B.bufbytes, &B.sgp) != SHOAL_OK ||
        shoal_gptr_getaddr(B.dgp, (void **)&B.dl) != SHOAL_OK ||
        shoal_gptr_getaddr(B.sgp, (void **)&B.sl) != SHOAL_OK)
        die("cannot allocate the buffers");

    char cpu[128];
    bench_cpu_model(cpu, sizeof cpu);
    FILE *csvf = NULL;
    if (B.me == 0 && csv) {
        if (!(csvf = fopen(csv, "w"))) die("cannot write the --csv file");
        fprintf(csvf, "collective,size_bytes,shoal_us,shoal_calls,algorithm,mpi_us,mpi_calls,"
                      "load\n");
    }
    if (B.me == 0 && load && bench_load_start(load)) die("fork failed (--load)");
    if (B.me == 0) {
        const char *ad = getenv("SHOAL_SPIN_ADAPTIVE"), *ov = getenv("SHOAL_OVERSUBSCRIBED");
        printf("## bench_load: %s, %d units, %s\n\n", bench_mpi_name(), B.p, cpu);
        const char *direct = getenv("SHOAL_DIRECT");
        printf("- MPI library: %s; SHOAL_DIRECT=%s\n", bench_mpi_name(), direct ? direct : "1");
        printf("- background load: %d other process%s spinning on every CPU for the whole run\n",
               load, load == 1 ? "" : "es");
        printf("- load average at start: %.2f\n", bench_loadavg());
        printf("- each figure: the slowest unit's time in the calls over the calls made, in us, "
               "over %.2f s of calls per variant and round, %d round(s), Shoal and MPI "
               "alternating\n",
               seconds, rounds);
        printf("- waiting policy: SHOAL_SPIN_ADAPTIVE=%s, SHOAL_OVERSUBSCRIBED=%s\n",
               ad ? ad : "(default)", ov ? ov : "(default)");
        printf("- every variant's result checked against a reference before timing\n\n");
        printf(
            "| collective | size | Shoal (algorithm) | calls | MPI (call) | calls | Shoal/MPI |\n");
        printf("|---|---:|---:|---:|---:|---:|---:|\n");
        fflush(stdout);
    }
    int failures = 0;
    double log_sum = 0;
    int rows = 0, no_slower = 0;
    for (int k = 0; k < NK; k++) {
        if (!only[k]) continue;
        for (size_t si = 0; si < NSIZES; si++) {
            size_t s = k == K_BARRIER ? 0 : all_sizes[si];
            if (k == K_BARRIER && si > 0) break;
            if (k != K_BARRIER && (s < min_size || s > max_size)) continue;
            if (quick && k != K_BARRIER && s != 8 && s != 65536) continue;
            int bad = 0, worst = 0;
            for (int mpi = 0; mpi < 2; mpi++) bad |= checked_call(k, mpi, s);
            MPI_Allreduce(&bad, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (worst) {
                if (B.me == 0)
                    fprintf(stderr, "bench_load: %s at %zu B: %s\n", kname[k], s,
                            worst & 1 ? "a call failed" : "wrong data");
                failures++;
                continue;
            }
            const char *algo = "";
            shoal_coll_last_algorithm(SHOAL_TEAM_ALL, &algo);
            double t[2] = {0, 0};
            long n[2] = {0, 0};
            for (int r = 0; r < rounds; r++)
                for (int i = 0; i < 2; i++) {
                    int mpi = (i + r) % 2;
                    long calls;
                    double us = timed_run(k, mpi, s, seconds, &calls);
                    t[mpi] += us * (double)calls, n[mpi] += calls;
                }
            double shoal_us = t[0] / (double)n[0], mpi_us = t[1] / (double)n[1];
            if (B.me == 0) {
                char sz[32], a[32], b[32];
                printf("| %s | %s | %s (%s) | %ld | %s (%s) | %ld | %.2f |\n", kname[k],
                       k == K_BARRIER ? "-" : bench_fmt_size(s, sz, sizeof sz),
                       bench_fmt_us(shoal_us, a, sizeof a), algo, n[0],
                       bench_fmt_us(mpi_us, b, sizeof b), mpiname[k], n[1], shoal_us / mpi_us);
                fflush(stdout);
                if (csvf)
                    fprintf(csvf, "%s,%zu,%.4f,%ld,%s,%.4f,%ld,%d\n", kname[k], s, shoal_us, n[0],
                            algo, mpi_us, n[1], load);
            }
            log_sum += log(shoal_us / mpi_us), rows++, no_slower += shoal_us <= mpi_us;
        }
    }
    if (B.me == 0) {
        printf("\n### Summary\n\n");
        printf("- MPI library: %s\n", bench_mpi_name());
        if (rows)
            printf("- under a load of %d spinning process%s: Shoal/MPI geometric mean %.2f; Shoal "
                   "no slower in %d of %d rows\n",
                   load, load == 1 ? "" : "es", exp(log_sum / rows), no_slower, rows);
        if (failures) printf("- %d collective(s) failed their check: not timed\n", failures);
        if (csvf) fclose(csvf);
        bench_load_stop();
    }
    shoal_team_memfree(B.sgp);
    shoal_team_memfree(B.dgp);
    shoal_finalize();
    return failures ? 1 : 0;
}
