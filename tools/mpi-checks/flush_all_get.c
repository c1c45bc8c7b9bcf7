/* Does MPI_Win_flush_all complete an MPI_Get? A plain MPI program, no Shoal: every rank gets
 * small pieces of its right neighbour's window (MPI_Win_create, passive target, lock_all) into a
 * buffer set to 0xEE, completes them one of three ways, and checks the bytes:
 *   flush_all   MPI_Win_flush_all
 *   flush       MPI_Win_flush(right)
 *   rget_wait   MPI_Rget + MPI_Wait
 * and, for comparison, puts: every rank puts the pieces into its right neighbour's second half,
 * completes them with MPI_Win_flush_all, and after a barrier checks what its left one put:
 *   put_flush_all
 * and prints, per way, how many rounds had a get incomplete. Run (MPICH, 3 or 4 processes):
 *   shoalrun -n 4 build/<dir>/tools/mpi-checks/mpi_check_flush_all_get [rounds]
 * On our hosts MPICH 4.0.2 (ch4/UCX): flush_all 2,550 rounds of 8,000 x 4 short at 4
 * processes (732, and 74-223, in other runs), 163 of 8,000 x 3 at 3, none at 2; flush,
 * rget_wait and put_flush_all 0 everywhere. Open MPI 4.1.4: 0 of 4,000 x 4 for every way. Shoal's
 * fences therefore flush per target after MPI gets (src/epoch/fence.c, complete_gets). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIECES 256 /* 8-byte gets per round */
#define WORDS  (PIECES * 8)

static unsigned char expected(size_t i, int owner) {
    return (unsigned char)(i * 7 + (size_t)owner);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    long rounds = argc > 1 ? atol(argv[1]) : 8000;
    unsigned char *base = malloc(2 * WORDS), *got = malloc(WORDS);
    MPI_Request *reqs = malloc(PIECES * sizeof *reqs);
    if (!base || !got || !reqs) MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < WORDS; i++) base[i] = expected(i, me);
    MPI_Win win;
    MPI_Win_create(base, 2 * WORDS, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    int right = (me + 1) % p, left = (me + p - 1) % p;
    static const char *const ways[] = {"flush_all", "flush", "rget_wait", "put_flush_all"};
    for (int way = 0; way < 4; way++) {
        long bad = 0, all = 0;
        for (long r = 0; r < rounds; r++) {
            memset(got, 0xEE, WORDS);
            if (way == 3) { /* nobody puts into my second half before I reset it */
                memset(base + WORDS, 0xEE, WORDS);
                MPI_Win_sync(win);
                MPI_Barrier(MPI_COMM_WORLD);
            }
            for (int k = 0; k < PIECES; k++) {
                if (way == 3)
                    MPI_Put(base + 8 * k, 8, MPI_BYTE, right, WORDS + 8 * k, 8, MPI_BYTE, win);
                else if (way == 2)
                    MPI_Rget(got + 8 * k, 8, MPI_BYTE, right, 8 * k, 8, MPI_BYTE, win, &reqs[k]);
                else
                    MPI_Get(got + 8 * k, 8, MPI_BYTE, right, 8 * k, 8, MPI_BYTE, win);
            }
            if (way == 0 || way == 3) MPI_Win_flush_all(win);
            if (way == 1) MPI_Win_flush(right, win);
            for (int k = 0; way == 2 && k < PIECES; k++) MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
            int short_round = 0;
            if (way == 3) {
                MPI_Barrier(MPI_COMM_WORLD);
                MPI_Win_sync(win);
                for (size_t i = 0; i < WORDS; i++)
                    short_round |= base[WORDS + i] != expected(i, left);
            } else {
                for (size_t i = 0; i < WORDS; i++) short_round |= got[i] != expected(i, right);
            }
            bad += short_round;
            MPI_Barrier(MPI_COMM_WORLD);
        }
        MPI_Reduce(&bad, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (me == 0)
            printf("%-13s %ld of %ld rounds x %d ranks had a piece missing\n", ways[way], all,
                   rounds, p);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    free(base);
    free(got);
    free(reqs);
    MPI_Finalize();
    return 0;
}
