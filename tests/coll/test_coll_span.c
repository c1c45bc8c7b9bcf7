/* The default selection on a team that spans nodes (real ones across the namespace cluster, or
 * SHOAL_PRETEND_NODES): small messages go to the MPI's own collective ("native"), large ones to
 * the two-level algorithms with the MPI's collective among the node leaders ("node_native"), at
 * the sizes docs/collectives.md gives ("Teams that span nodes"). Every result is checked against
 * a reference, back to back, in place and not, from every root. On a team within one node the
 * test only checks the data. Usage: test_coll_span [rounds] (default 3). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shoal.h"

static int failures;
static shoal_unit_t me, p;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond) && failures++ < 10) {                                                          \
            fprintf(stderr, "unit %d: FAILED: ", (int)me);                                         \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

static int spans_nodes; /* the all team spans nodes */

/* The algorithm the last call on the all team ran must be `want` where the team spans nodes. */
static void check_algo(const char *what, size_t n, const char *want) {
    const char *algo = "";
    shoal_coll_last_algorithm(SHOAL_TEAM_ALL, &algo);
    CHECK(!spans_nodes || strcmp(algo, want) == 0, "%s of %zu bytes ran %s, expected %s", what, n,
          algo, want);
}

static unsigned char byte_of(int round, int who, size_t i) {
    return (unsigned char)(round * 29 + who * 11 + i * 7 + 3);
}

int main(int argc, char **argv) {
    if (shoal_init(&argc, &argv) != SHOAL_OK) return 1;
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    shoal_myid(&me);
    shoal_size(&p);
    int32_t on_node = 0;
    shoal_node_size(&on_node);
    spans_nodes = on_node < p; /* then no node holds every unit: every unit sees the same */
    /* Sizes around each threshold: the message (broadcast), the vector (reduce), per member
     * (fcollect: the rule keys on the whole result, p times that). */
    const size_t bsizes[] = {4096, 262144 - 8, 262144, 1048576};
    const size_t fper = 262144 / (size_t)p; /* the whole result at 256 KiB, rounded down */
    const size_t fsizes[] = {1024, fper - 8, (fper + 8) / 8 * 8 + 8};
    const size_t rcounts[] = {16, 65536 / 8 - 1, 65536 / 8, 262144 / 8, 262144 / 8 + 1};
    const size_t maxb = 1048576, maxf = fsizes[2] * (size_t)p, maxr = (262144 / 8 + 1) * 8;
    shoal_gptr_t dest, src;
    size_t cap = maxb > maxf ? maxb : maxf;
    if (maxr > cap) cap = maxr;
    if (shoal_team_memalloc(SHOAL_TEAM_ALL, cap, &dest) ||
        shoal_team_memalloc(SHOAL_TEAM_ALL, cap, &src)) {
        fprintf(stderr, "allocation failed\n");
        return 1;
    }
    unsigned char *d, *s;
    shoal_gptr_getaddr(shoal_gptr_setunit(dest, me), (void **)&d);
    shoal_gptr_getaddr(shoal_gptr_setunit(src, me), (void **)&s);
    for (int r = 0; r < rounds; r++) {
        for (size_t k = 0; k < sizeof bsizes / sizeof bsizes[0]; k++) {
            size_t n = bsizes[k];
            shoal_unit_t root = (shoal_unit_t)((r + (int)k) % p);
            for (size_t i = 0; i < n; i++) s[i] = byte_of(r, root, i);
            memset(d, 0xee, n);
            CHECK(shoal_broadcast(SHOAL_TEAM_ALL, dest, src, n, root) == SHOAL_OK,
                  "broadcast %zu root %d", n, (int)root);
            check_algo("broadcast", n, n >= 262144 ? "node_native" : "native");
            for (size_t i = 0; i < n; i++)
                if (d[i] != byte_of(r, root, i)) {
                    CHECK(0, "broadcast %zu root %d: byte %zu is %d", n, (int)root, i, d[i]);
                    break;
                }
        }
        for (size_t k = 0; k < sizeof fsizes / sizeof fsizes[0]; k++) {
            size_t n = fsizes[k];
            for (size_t i = 0; i < n; i++) s[i] = byte_of(r, me, i);
            memset(d, 0xee, n * (size_t)p);
            CHECK(shoal_fcollect(SHOAL_TEAM_ALL, dest, src, n) == SHOAL_OK, "fcollect %zu", n);
            check_algo("fcollect", n * (size_t)p,
                       n * (size_t)p >= 262144 ? "node_native" : "native");
            for (shoal_unit_t u = 0; u < p; u++)
                for (size_t i = 0; i < n; i++)
                    if (d[(size_t)u * n + i] != byte_of(r, u, i)) {
                        CHECK(0, "fcollect %zu: unit %d's byte %zu is %d", n, (int)u, i,
                              d[(size_t)u * n + i]);
                        u = p;
                        break;
                    }
        }
        for (size_t k = 0; k < sizeof rcounts / sizeof rcounts[0]; k++) {
            size_t n = rcounts[k];
            double *dv = (double *)(void *)d, *sv = (double *)(void *)s;
            int in_place = (r + (int)k) % 2;
            double *in = in_place ? dv : sv;
            for (size_t i = 0; i < n; i++) in[i] = (double)((int)(i % 1000) + r * me);
            CHECK(shoal_reduce(SHOAL_TEAM_ALL, dest, in_place ? dest : src, n, SHOAL_TYPE_DOUBLE,
                               SHOAL_RED_SUM) == SHOAL_OK,
                  "reduce %zu", n);
            check_algo("reduce", n * 8,
                       n * 8 >= 65536 && n * 8 <= 262144 ? "node_native" : "native");
            for (size_t i = 0; i < n; i++) { /* small integers: exact in any order */
                double want = (double)(i % 1000) * p + (double)r * p * (p - 1) / 2;
                if (dv[i] != want) {
                    CHECK(0, "reduce %zu%s: element %zu is %g, expected %g", n,
                          in_place ? " in place" : "", i, dv[i], want);
                    break;
                }
            }
        }
    }
    printf("test_coll_span: unit %d: %s (%s)\n", (int)me, failures ? "FAILED" : "OK",
           spans_nodes ? "the team spans nodes" : "one node");
    shoal_finalize();
    return failures ? 1 : 0;
}
