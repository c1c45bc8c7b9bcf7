/* Back-to-back collectives with the default selection, mixed kinds and roots: the eager broadcast
 * lets a root run ahead of the receivers (it only waits when its ring lines in a receiver are
 * still unread), so this test hammers exactly that. First bursts from one root whose receivers
 * start late, so that the root fills their rings or slots and must wait for them (700 8-byte
 * messages, a ring line each, and 40 of 4 KiB, more than twice the 16 slots); then consecutive
 * broadcasts from changing roots, of changing sizes up to the eager slot and just past it,
 * interleaved with reductions, (f)collects, alltoalls and bursts of scans (eager exchanges below
 * 248 bytes: in a scan member 0 waits for nobody and runs ahead), with a member that is made late
 * now and then. Every result is checked against a reference. Usage: test_coll_mixed [iterations]
 * (default 2000). */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shoal.h"

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (failures++ < 10) {                                                                 \
                fprintf(stderr, "unit %d: FAILED: ", (int)me);                                     \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fprintf(stderr, "\n");                                                             \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static shoal_unit_t me, p;

static unsigned char byte_of(int iter, int root, size_t i) {
    return (unsigned char)(iter * 31 + root * 7 + i * 13 + 1);
}

/* Sizes: mostly small (eager), some at the slot size and just past it (another algorithm). */
static size_t size_of(int iter) {
    static const size_t sizes[] = {8, 1, 0, 64, 4096, 4097, 1000, 8, 16, 12000};
    return sizes[iter % 10];
}

int main(int argc, char **argv) {
    if (shoal_init(&argc, &argv) != SHOAL_OK) return 1;
    int iters = argc > 1 ? atoi(argv[1]) : 2000;
    shoal_myid(&me);
    shoal_size(&p);
    const size_t max = 12000;
    shoal_gptr_t dbuf, sbuf, rd, rs, fd, fs, ad, as, cd;
    if (shoal_team_memalloc(SHOAL_TEAM_ALL, max + 64, &dbuf) ||
        shoal_team_memalloc(SHOAL_TEAM_ALL, max, &sbuf) ||
        shoal_team_memalloc(SHOAL_TEAM_ALL, 2 * sizeof(double), &rd) ||
        shoal_team_memalloc(SHOAL_TEAM_ALL, 2 * sizeof(double), &rs) ||
        shoal_team_memalloc(SHOAL_TEAM_ALL, 8 * (size_t)p, &fd) ||
        shoal_team_memalloc(SHOAL_TEAM_ALL, 8, &fs) ||
        shoal_team_memalloc(SHOAL_TEAM_ALL, 8 * (size_t)p, &ad) ||
        shoal_team_memalloc(SHOAL_TEAM_ALL, 8 * (size_t)p, &as) ||
        shoal_team_memalloc(SHOAL_TEAM_ALL, 8 * (size_t)p * ((size_t)p + 1) / 2, &cd)) {
        fprintf(stderr, "allocation failed\n");
        return 1;
    }
    unsigned char *d, *s;
    double *rdl, *rsl;
    uint64_t *fdl, *fsl, *adl, *asl, *cdl;
    shoal_gptr_getaddr(shoal_gptr_setunit(dbuf, me), (void **)&d);
    shoal_gptr_getaddr(shoal_gptr_setunit(sbuf, me), (void **)&s);
    shoal_gptr_getaddr(shoal_gptr_setunit(rd, me), (void **)&rdl);
    shoal_gptr_getaddr(shoal_gptr_setunit(rs, me), (void **)&rsl);
    shoal_gptr_getaddr(shoal_gptr_setunit(fd, me), (void **)&fdl);
    shoal_gptr_getaddr(shoal_gptr_setunit(fs, me), (void **)&fsl);
    shoal_gptr_getaddr(shoal_gptr_setunit(ad, me), (void **)&adl);
    shoal_gptr_getaddr(shoal_gptr_setunit(as, me), (void **)&asl);
    shoal_gptr_getaddr(shoal_gptr_setunit(cd, me), (void **)&cdl);
    srand(1234 + me);
    /* Every unit runs every iteration, failed checks or not: a unit that stopped early would
     * leave the others waiting in a collective, and a failure would show as a timeout. */
    for (int it = 0; it < iters; it++) {
        int root = (it * 7 + it / 3) % p;
        if (it == 0) {
            /* The bursts: eager forced, root 0, receivers 20 ms late; each call's bytes differ. */
            shoal_coll_override("broadcast", "eager");
            const size_t burst_n[2] = {8, 4096};
            const int burst_calls[2] = {700, 40};
            for (int b = 0; b < 2; b++) {
                if (me != 0) {
                    struct timespec late = {0, 20000000};
                    nanosleep(&late, NULL);
                }
                for (int c = 0; c < burst_calls[b]; c++) {
                    size_t n = burst_n[b];
                    if (me == 0)
                        for (size_t i = 0; i < n; i++) s[i] = byte_of(c, b + 5, i);
                    shoal_err_t e = shoal_broadcast(SHOAL_TEAM_ALL, dbuf, sbuf, n, 0);
                    CHECK(e == SHOAL_OK, "burst %zu B call %d: error %d", n, c, (int)e);
                    const char *algo = "";
                    shoal_coll_last_algorithm(SHOAL_TEAM_ALL, &algo);
                    CHECK(p == 1 || strcmp(algo, "eager") == 0, "burst: ran %s, not eager", algo);
                    for (size_t i = 0; i < n; i++)
                        if (d[i] != byte_of(c, b + 5, i)) {
                            CHECK(0, "burst %zu B call %d: byte %zu is %d, expected %d", n, c, i,
                                  d[i], byte_of(c, b + 5, i));
                            break;
                        }
                }
            }
            shoal_coll_override("broadcast", NULL);
        }
        size_t n = size_of(it);
        if (me == root)
            for (size_t i = 0; i < n; i++) s[i] = byte_of(it, root, i);
        memset(d, 0xee, n + 64);
        if (rand() % 8 == 0) { /* a late member: the others run ahead into the next calls */
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
        }
        shoal_err_t e = shoal_broadcast(SHOAL_TEAM_ALL, dbuf, sbuf, n, root);
        CHECK(e == SHOAL_OK, "broadcast it=%d n=%zu root=%d: error %d", it, n, root, (int)e);
        for (size_t i = 0; i < n; i++)
            if (d[i] != byte_of(it, root, i)) {
                CHECK(0, "broadcast it=%d n=%zu root=%d: byte %zu is %d, expected %d", it, n, root,
                      i, d[i], byte_of(it, root, i));
                break;
            }
        for (int i = 0; i < 64; i++)
            if (d[n + i] != 0xee) {
                CHECK(0, "broadcast it=%d n=%zu: wrote past the end", it, n);
                break;
            }
        if (it % 16 == 15) { /* a reduction between broadcasts (scratch and signal words) */
            rsl[0] = it + me;
            rsl[1] = me * 0.5;
            e = shoal_reduce(SHOAL_TEAM_ALL, rd, rs, 2, SHOAL_TYPE_DOUBLE, SHOAL_RED_SUM);
            CHECK(e == SHOAL_OK, "reduce it=%d: error %d", it, (int)e);
            double want0 = (double)it * p + (double)p * (p - 1) / 2, want1 = 0.25 * p * (p - 1);
            CHECK(rdl[0] == want0 && rdl[1] == want1, "reduce it=%d: %g %g, expected %g %g", it,
                  rdl[0], rdl[1], want0, want1);
        }
        if (it % 16 == 3) { /* a burst of scans: member 0 waits for nobody, so it runs ahead */
            for (int b = 0; b < 8; b++) {
                if (rand() % 8 == 0) {
                    struct timespec ts = {0, 50000};
                    nanosleep(&ts, NULL);
                }
                rsl[0] = it * 10 + b + me;
                rsl[1] = me;
                e = shoal_scan(SHOAL_TEAM_ALL, rd, rs, 2, SHOAL_TYPE_DOUBLE, 1);
                CHECK(e == SHOAL_OK, "scan it=%d b=%d: error %d", it, b, (int)e);
                double want0 = (double)(it * 10 + b) * (me + 1) + (double)me * (me + 1) / 2;
                double want1 = (double)me * (me + 1) / 2;
                CHECK(rdl[0] == want0 && rdl[1] == want1, "scan it=%d b=%d: %g %g, expected %g %g",
                      it, b, rdl[0], rdl[1], want0, want1);
            }
        }
        if (it % 16 == 11) { /* an alltoall: block j of member i is i * 100 + j */
            for (int r = 0; r < p; r++) asl[r] = (uint64_t)it * 10000 + (uint64_t)me * 100 + r;
            e = shoal_alltoall(SHOAL_TEAM_ALL, ad, as, 8);
            CHECK(e == SHOAL_OK, "alltoall it=%d: error %d", it, (int)e);
            for (int r = 0; r < p; r++)
                CHECK(adl[r] == (uint64_t)it * 10000 + (uint64_t)r * 100 + me,
                      "alltoall it=%d: block %d", it, r);
        }
        if (it % 16 == 13) { /* a collect: member m gives m + 1 words m * 1000 + k */
            for (int k = 0; k <= me; k++) asl[k] = (uint64_t)it * 100000 + (uint64_t)me * 1000 + k;
            e = shoal_collect(SHOAL_TEAM_ALL, cd, as, 8 * ((size_t)me + 1));
            CHECK(e == SHOAL_OK, "collect it=%d: error %d", it, (int)e);
            for (int m = 0, at = 0; m < p; m++)
                for (int k = 0; k <= m; k++, at++)
                    CHECK(cdl[at] == (uint64_t)it * 100000 + (uint64_t)m * 1000 + k,
                          "collect it=%d: member %d word %d", it, m, k);
        }
        if (it % 16 == 7) { /* an fcollect */
            *fsl = (uint64_t)it * 1000 + (uint64_t)me;
            e = shoal_fcollect(SHOAL_TEAM_ALL, fd, fs, 8);
            CHECK(e == SHOAL_OK, "fcollect it=%d: error %d", it, (int)e);
            for (int r = 0; r < p; r++)
                CHECK(fdl[r] == (uint64_t)it * 1000 + (uint64_t)r, "fcollect it=%d: slot %d", it,
                      r);
        }
    }
    shoal_barrier(SHOAL_TEAM_ALL);
    if (me == 0 && !failures) printf("test_coll_mixed: %d iterations on %d units: OK\n", iters, p);
    int rc = failures ? 1 : 0;
    shoal_finalize();
    return rc;
}
