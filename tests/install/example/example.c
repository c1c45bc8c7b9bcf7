/* A put/get ring over an installed Shoal: every unit puts a pattern into its right neighbour's
 * part of a symmetric allocation, gets its left neighbour's part back, and checks both against
 * the values they must hold. Prints "example: OK" on unit 0 and returns 0 when all units agree. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <shoal.h>

#define N 1000

#define CHECK(call)                                                                                \
    do {                                                                                           \
        shoal_err_t err_ = (call);                                                                 \
        if (err_ != SHOAL_OK) {                                                                    \
            fprintf(stderr, "example: %s failed: %s\n", #call, shoal_strerror(err_));              \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static uint64_t pattern(int32_t from, int32_t to, int i) {
    return ((uint64_t)from << 40) ^ ((uint64_t)to << 20) ^ (uint64_t)(i * 2654435761u);
}

int main(int argc, char **argv) {
    CHECK(shoal_init(&argc, &argv));
    shoal_unit_t me;
    int32_t n;
    CHECK(shoal_myid(&me));
    CHECK(shoal_size(&n));
    int32_t right = (me + 1) % n, left = (me + n - 1) % n;

    shoal_gptr_t mine;
    CHECK(shoal_team_memalloc(SHOAL_TEAM_ALL, N * sizeof(uint64_t), &mine));
    uint64_t *buf = malloc(N * sizeof(uint64_t));
    if (!buf) return 1;

    /* Put my pattern into my right neighbour's part. */
    for (int i = 0; i < N; i++) buf[i] = pattern(me, right, i);
    CHECK(shoal_put(shoal_gptr_setunit(mine, right), buf, N * sizeof(uint64_t)));
    CHECK(shoal_barrier(SHOAL_TEAM_ALL));

    long errors = 0;
    /* My own part now holds what my left neighbour put there: read it through the global pointer.
     */
    void *addr = NULL;
    CHECK(shoal_gptr_getaddr(mine, &addr));
    if (!addr) {
        fprintf(stderr, "example: unit %d: my own memory is not mapped\n", (int)me);
        errors++;
    } else {
        const uint64_t *local = addr;
        for (int i = 0; i < N; i++)
            if (local[i] != pattern(left, me, i)) errors++;
    }

    /* Get my right neighbour's part: it holds what I put there. */
    for (int i = 0; i < N; i++) buf[i] = 0;
    CHECK(shoal_get(buf, shoal_gptr_setunit(mine, right), N * sizeof(uint64_t)));
    for (int i = 0; i < N; i++)
        if (buf[i] != pattern(me, right, i)) errors++;
    if (errors)
        fprintf(stderr, "example: unit %d of %d: %ld wrong values\n", (int)me, (int)n, errors);

    /* Agree on the result: everyone adds its error count to unit 0's counter. */
    shoal_gptr_t count;
    CHECK(shoal_team_memalloc(SHOAL_TEAM_ALL, sizeof(int64_t), &count));
    int64_t zero = 0;
    CHECK(shoal_atomic_store(count, SHOAL_INT64, &zero));
    CHECK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK(shoal_add_i64(shoal_gptr_setunit(count, 0), errors ? 1 : 0));
    CHECK(shoal_barrier(SHOAL_TEAM_ALL));
    int64_t failed = 0;
    CHECK(shoal_atomic_load(shoal_gptr_setunit(count, 0), SHOAL_INT64, &failed));
    CHECK(shoal_barrier(SHOAL_TEAM_ALL));

    char mpi[128];
    snprintf(mpi, sizeof mpi, "%s", shoal_mpi_library());
    CHECK(shoal_team_memfree(count));
    CHECK(shoal_team_memfree(mine));
    free(buf);
    CHECK(shoal_finalize());
    if (failed) {
        if (me == 0)
            fprintf(stderr, "example: FAILED on %lld of %d units\n", (long long)failed, (int)n);
        return 1;
    }
    if (me == 0) printf("example: OK (%d units, %s)\n", (int)n, mpi);
    return 0;
}
