/* 4 ranks, 2 per node placed block-wise (shoalrun --nodes 2 -n 4): a sum of n bytes of doubles,
 * 5 calls each, rank 0 prints the mean: the flat MPI_Allreduce of all 4; the two leaders (ranks
 * 0 and 2) with MPI_Allreduce of the whole vector, or of 256 KiB or 64 KiB pieces in turn, the
 * others waiting in a barrier. Usage: leaders_allreduce [n] (default 1 MiB). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    size_t n = (argc > 1 ? strtoul(argv[1], 0, 0) : 1 << 20) / 8;
    double *v = malloc(n * 8);
    for (size_t i = 0; i < n; i++) v[i] = 1;
    MPI_Comm lead;
    MPI_Comm_split(MPI_COMM_WORLD, r % 2 == 0 ? 0 : MPI_UNDEFINED, r, &lead);
    size_t chunks[] = {n, 262144 / 8, 65536 / 8};
    for (int rep = 0; rep < 2; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < 5; i++)
            MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double flat = (MPI_Wtime() - t0) / 5;
        double t[3];
        for (int c = 0; c < 3; c++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t1 = MPI_Wtime();
            for (int i = 0; i < 5; i++) {
                if (lead != MPI_COMM_NULL)
                    for (size_t off = 0; off < n; off += chunks[c])
                        MPI_Allreduce(MPI_IN_PLACE, v + off,
                                      (int)(n - off < chunks[c] ? n - off : chunks[c]), MPI_DOUBLE,
                                      MPI_SUM, lead);
                MPI_Barrier(MPI_COMM_WORLD);
            }
            t[c] = (MPI_Wtime() - t1) / 5;
        }
        if (r == 0)
            printf("%zu B: flat %.0f us, leaders whole %.0f, 256K chunks %.0f, 64K chunks %.0f\n",
                   n * 8, flat * 1e6, t[0] * 1e6, t[1] * 1e6, t[2] * 1e6);
    }
    MPI_Finalize();
    return 0;
}
