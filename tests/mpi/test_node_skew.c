// np: 2 3 4
/* Nodes that run at different paces (issue 10): the units on the last unit's node are "late",
 * the others "early" (on one node without pretend nodes: the upper half of the units).
 *
 * 1. A collective allocation freed while the other side still works on it: the early units call
 *    shoal_team_memfree(a) at once and wait there; the late units first put into every early
 *    unit's part of a and of b, read a back, work on for 50 ms, and only then free a. Afterwards
 *    every early unit finds the late units' values in its part of b, and a new allocation (which
 *    may reuse a's memory) starts out as written by its own owner, not by stale puts.
 * 2. Finishing at different times: the early units put a value into each late unit's part of b,
 *    signal it, and call shoal_finalize at once; the late units wait 100 ms (the early ones are
 *    in finalize by then), then wait for the signals, check the values and finalize. Data sent
 *    just before a finalize is not lost, and finalize waits for the late units. Each unit checks
 *    what it received; a failure makes its exit code non-zero. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define WORDS 64 /* per writer, in each member's part */

/* Each unit's node, named by its lowest unit (gathered once: "on my node" alone cannot tell
 * two other nodes apart, as at 3 nodes x 1). */
static int node_first[256];

static void learn_nodes(void) {
    int32_t nnode = 0;
    REQUIRE_OK(shoal_node_size(&nnode));
    shoal_unit_t units[nnode];
    REQUIRE_OK(shoal_node_units(units, nnode));
    int first = (int)units[0], pair[2], all[2 * 256];
    for (int32_t i = 1; i < nnode; i++)
        if ((int)units[i] < first) first = (int)units[i];
    REQUIRE(t_np <= 256, "at most 256 units");
    pair[0] = (int)t_me;
    pair[1] = first;
    MPI_Allgather(pair, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < t_np; i++) node_first[all[2 * i]] = all[2 * i + 1];
}

static int late_unit(shoal_unit_t u) {
    int32_t nnode = 0;
    REQUIRE_OK(shoal_node_size(&nnode));
    if (nnode == t_np) return u >= t_np / 2; /* one node: halves */
    return node_first[u] == node_first[t_np - 1];
}

static uint64_t value(shoal_unit_t writer, shoal_unit_t target, int i, int phase) {
    return (uint64_t)phase << 48 | (uint64_t)writer << 32 | (uint64_t)target << 16 | (uint64_t)i;
}

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    learn_nodes();
    int late = late_unit(t_me);
    /* Parts: WORDS words per writer, then one signal word. */
    size_t part = ((size_t)t_np * WORDS + 1) * sizeof(uint64_t);
    shoal_gptr_t a, b;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, part, &a));
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, part, &b));
    uint64_t *mine_b = NULL;
    REQUIRE_OK(shoal_gptr_getaddr(b, (void **)&mine_b));
    memset(mine_b, 0, part);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    /* 1. Skewed free. */
    if (late) {
        for (shoal_unit_t u = 0; u < t_np; u++) {
            if (late_unit(u)) continue;
            uint64_t v[WORDS], back[WORDS];
            for (int i = 0; i < WORDS; i++) v[i] = value(t_me, u, i, 1);
            size_t off = (size_t)t_me * WORDS * sizeof(uint64_t);
            CHECK_OK(
                shoal_put(shoal_gptr_setunit(shoal_gptr_add(a, (int64_t)off), u), v, sizeof v));
            CHECK_OK(
                shoal_put(shoal_gptr_setunit(shoal_gptr_add(b, (int64_t)off), u), v, sizeof v));
            CHECK_OK(shoal_get(back, shoal_gptr_setunit(shoal_gptr_add(a, (int64_t)off), u),
                               sizeof back));
            CHECK(!memcmp(v, back, sizeof v), "unit %d: read back from unit %d's part of a differs",
                  (int)t_me, (int)u);
        }
        usleep(50 * 1000); /* still working while the early units wait in the free */
    }
    CHECK_OK(shoal_team_memfree(a));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    if (!late)
        for (shoal_unit_t w = 0; w < t_np; w++) {
            if (!late_unit(w)) continue;
            for (int i = 0; i < WORDS; i++) {
                uint64_t got = mine_b[(size_t)w * WORDS + (size_t)i];
                if (!CHECK(got == value(w, t_me, i, 1),
                           "unit %d: b word %d from late unit %d: %#llx, expected %#llx", (int)t_me,
                           i, (int)w, (unsigned long long)got,
                           (unsigned long long)value(w, t_me, i, 1)))
                    break;
            }
        }
    /* A new allocation may take a's place: it holds what its owner wrote, nothing stale. */
    shoal_gptr_t c;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, part, &c));
    uint64_t *mine_c = NULL;
    REQUIRE_OK(shoal_gptr_getaddr(c, (void **)&mine_c));
    for (size_t i = 0; i < part / sizeof(uint64_t); i++) mine_c[i] = ~(uint64_t)i;
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    for (size_t i = 0; i < part / sizeof(uint64_t); i++)
        if (!CHECK(mine_c[i] == ~(uint64_t)i, "unit %d: new allocation word %zu changed", (int)t_me,
                   i))
            break;
    CHECK_OK(shoal_team_memfree(c));

    /* The verdict of part 1, agreed before the units part ways. */
    long total = 0;
    MPI_Allreduce(&t_failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (t_me == 0) printf("test_node_skew: skewed free %s\n", total ? "FAILED" : "OK");

    /* 2. Skewed finish. */
    int nearly = 0;
    for (shoal_unit_t u = 0; u < t_np; u++) nearly += !late_unit(u);
    size_t sig_off = (size_t)t_np * WORDS * sizeof(uint64_t);
    long mine = 0;
    if (!late) {
        for (shoal_unit_t u = 0; u < t_np; u++) {
            if (!late_unit(u)) continue;
            uint64_t v[WORDS];
            for (int i = 0; i < WORDS; i++) v[i] = value(t_me, u, i, 2);
            size_t off = (size_t)t_me * WORDS * sizeof(uint64_t);
            CHECK_OK(shoal_put_signal(
                shoal_gptr_setunit(shoal_gptr_add(b, (int64_t)off), u), v, sizeof v,
                shoal_gptr_setunit(shoal_gptr_add(b, (int64_t)sig_off), u), 1, SHOAL_SIGNAL_ADD));
        }
    } else {
        usleep(100 * 1000); /* the early units are in shoal_finalize by now */
        CHECK_OK(shoal_signal_wait_until(shoal_gptr_add(b, (int64_t)sig_off), SHOAL_CMP_GE,
                                         (uint64_t)nearly, NULL));
        for (shoal_unit_t w = 0; w < t_np; w++) {
            if (late_unit(w)) continue;
            for (int i = 0; i < WORDS; i++) {
                uint64_t got = mine_b[(size_t)w * WORDS + (size_t)i];
                if (!CHECK(got == value(w, t_me, i, 2),
                           "unit %d: word %d from early unit %d after its finalize: %#llx, "
                           "expected %#llx",
                           (int)t_me, i, (int)w, (unsigned long long)got,
                           (unsigned long long)value(w, t_me, i, 2)))
                    break;
            }
        }
    }
    mine = t_failures;
    /* No shoal_team_memfree(b): finalize frees it, after the late units have read it. */
    shoal_err_t err = shoal_finalize();
    if (err != SHOAL_OK) {
        fprintf(stderr, "unit %d: shoal_finalize returned %s\n", (int)t_me, shoal_strerror(err));
        mine++;
    }
    alarm(0);
    if (mine) printf("test_node_skew: unit %d (%s): FAILED\n", (int)t_me, late ? "late" : "early");
    if (t_me == 0 && !mine && !total) printf("test_node_skew: OK\n");
    return mine || total ? 1 : 0;
}
