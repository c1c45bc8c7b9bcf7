/* 4 ranks, 2 per node placed block-wise (shoalrun --nodes 2 -n 4): an fcollect of n bytes per
 * rank three ways, 10 calls each, rank 0 prints the mean: the flat MPI_Allgather of all 4; one
 * leader per node (ranks 0 and 2) exchanging its node's 2n bytes with MPI_Allgatherv, the others
 * waiting in a barrier; two lanes ({0, 2} and {1, 3}) each exchanging n bytes. The buffers are
 * not checked: only the MPI's speed is. Usage: leaders_allgatherv [n] (default 1 MiB). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    size_t n = argc > 1 ? strtoul(argv[1], 0, 0) : 1 << 20;
    char *buf = malloc(n * p);
    memset(buf, r, n * p);
    MPI_Comm lane;
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &lane);
    MPI_Comm lead;
    MPI_Comm_split(MPI_COMM_WORLD, r % 2 == 0 ? 0 : MPI_UNDEFINED, r, &lead);
    for (int rep = 0; rep < 3; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < 10; i++)
            MPI_Allgather(MPI_IN_PLACE, 0, MPI_BYTE, buf, (int)n, MPI_BYTE, MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        MPI_Barrier(MPI_COMM_WORLD);
        double t2 = MPI_Wtime();
        for (int i = 0; i < 10; i++) {
            if (lead != MPI_COMM_NULL) {
                int c[2] = {(int)(2 * n), (int)(2 * n)}, d[2] = {0, (int)(2 * n)};
                MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, buf, c, d, MPI_BYTE, lead);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        double t3 = MPI_Wtime();
        MPI_Barrier(MPI_COMM_WORLD);
        double t4 = MPI_Wtime();
        for (int i = 0; i < 10; i++) {
            int c[2] = {(int)n, (int)n}, d[2] = {0, (int)(2 * n)};
            MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, buf, c, d, MPI_BYTE, lane);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        double t5 = MPI_Wtime();
        if (r == 0) printf("  lanes allgatherv+barrier %.1f us\n", (t5 - t4) / 10 * 1e6);
        if (r == 0)
            printf("n=%zu flat allgather %.1f us, leaders allgatherv+barrier %.1f us\n", n,
                   (t1 - t0) / 10 * 1e6, (t3 - t2) / 10 * 1e6);
    }
    MPI_Finalize();
    return 0;
}
