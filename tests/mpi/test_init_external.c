/* The program owns MPI: it calls MPI_Init_thread itself, then shoal_init (which must use the
 * existing MPI), does Shoal work (a put/get ring), shoal_finalize (which must leave MPI alone),
 * then keeps using MPI (an Allreduce, a communicator and a window of its own made before
 * shoal_init) and finally calls MPI_Finalize itself. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define N 4096

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    int provided = 0, rank = -1, nprocs = 0;
    /* SERIALIZED: Open MPI 4.1's osc/pt2pt, which Shoal needs there, refuses MULTIPLE (shoal_init
     * then returns SHOAL_ERR_UNSUPPORTED; docs/design.md). */
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "MPI_Init_thread failed\n");
        return 2;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    /* Some MPI state of the program's own, made before Shoal starts. */
    MPI_Comm mine;
    MPI_Comm_dup(MPI_COMM_WORLD, &mine);
    /* (MPI_Win_create on our own memory: MPICH 4.0.2's MPI_Win_allocate with a 4-byte window
     * and disp_unit 4 makes same-node MPI_Get read rank 0's part, with or without Shoal.) */
    int *winbuf = calloc(16, sizeof(int));
    MPI_Win win;
    MPI_Win_create(winbuf, sizeof(int), sizeof(int), MPI_INFO_NULL, mine, &win);
    *winbuf = 1000 + rank;
    MPI_Barrier(mine);

    t_me = rank; /* for messages before test_begin */
    CHECK(shoal_initialized() == 0, "shoal_initialized() is 1 before shoal_init");
    test_begin(&argc, &argv); /* shoal_init on top of the program's MPI */
    double t0 = test_now();
    CHECK(t_me == rank, "shoal_myid %d, MPI rank %d", t_me, rank);
    CHECK(t_np == nprocs, "shoal_size %d, MPI size %d", t_np, nprocs);
    int flag = 0;
    MPI_Initialized(&flag);
    CHECK(flag, "MPI not initialised after shoal_init");

    /* A put/get ring. */
    shoal_gptr_t gp = SHOAL_GPTR_NULL;
    uint8_t *buf = malloc(N), *in = malloc(N);
    CHECK_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, N, &gp));
    fill_pattern(buf, N, 21, (uint64_t)t_me, 0);
    CHECK_OK(shoal_put(shoal_gptr_setunit(gp, test_right()), buf, N));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    void *a = NULL;
    if (CHECK_OK(shoal_gptr_getaddr(gp, &a)) && a)
        CHECK_PATTERN(a, N, 21, (uint64_t)test_left(), 0, "ring put");
    CHECK_OK(shoal_get(in, shoal_gptr_setunit(gp, test_right()), N));
    CHECK_PATTERN(in, N, 21, (uint64_t)t_me, 0, "ring get");
    /* The program's MPI traffic interleaved with Shoal's. */
    long s = rank, sum = 0;
    MPI_Allreduce(&s, &sum, 1, MPI_LONG, MPI_SUM, mine);
    CHECK(sum == (long)nprocs * (nprocs - 1) / 2, "Allreduce during Shoal gave %ld", sum);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_team_memfree(gp));

    long total = 0;
    MPI_Allreduce(&t_failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK_OK(shoal_finalize());
    alarm(0);
    CHECK(shoal_initialized() == 0, "shoal_initialized() is 1 after shoal_finalize");

    /* MPI is still the program's. */
    flag = 1;
    MPI_Finalized(&flag);
    CHECK(flag == 0, "shoal_finalize finalised the program's MPI");
    if (!flag) {
        sum = 0;
        MPI_Allreduce(&s, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        CHECK(sum == (long)nprocs * (nprocs - 1) / 2, "Allreduce after shoal_finalize gave %ld",
              sum);
        sum = 0;
        MPI_Allreduce(&s, &sum, 1, MPI_LONG, MPI_MAX, mine);
        CHECK(sum == nprocs - 1, "Allreduce on the program's communicator gave %ld", sum);
        /* The program's window from before shoal_init still works. */
        int v = -1, right = (rank + 1) % nprocs;
        MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
        MPI_Get(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
        MPI_Win_unlock(right, win);
        CHECK(v == 1000 + right, "the program's window gave %d, expected %d", v, 1000 + right);
        MPI_Barrier(mine);
        MPI_Win_free(&win);
        MPI_Comm_free(&mine);
        /* Every unit's own failures, including those after shoal_finalize. */
        long all = 0;
        MPI_Allreduce(&t_failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        total = all;
        if (rank == 0) printf("test_init_external: %d units, %.2f s\n", nprocs, test_now() - t0);
        MPI_Finalize();
    } else {
        total += t_failures;
    }
    if (rank == 0 || total) printf("test_init_external: %s\n", total ? "FAILED" : "OK");
    free(buf);
    free(in);
    free(winbuf);
    return total ? 1 : 0;
}
