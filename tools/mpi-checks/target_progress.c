/* Does a passive-target operation complete while its target stays out of MPI? A plain MPI
 * program, no Shoal, 2 ranks: rank 0 times 2,000 rounds each of
 *   put8      an 8-byte MPI_Put + MPI_Win_flush to rank 1
 *   fadd      an MPI_Fetch_and_op (MPI_SUM) + MPI_Win_flush to rank 1
 *   fadd_self the same on its own window part
 * on MPI_Win_create windows over malloc'ed memory (lock_all, MPI_MODE_NOCHECK), as Shoal's MPI
 * path and the one-sided broadcast's control words use them, while rank 1 either
 *   in_mpi    polls MPI_Test in a loop (it drives MPI's progress all the time), or
 *   sleeps    sleeps 20 us between MPI_Test calls (a unit that computes and leaves MPI alone).
 * Run:  shoalrun -n 2 build/<dir>/tools/mpi-checks/mpi_check_target_progress
 * (Open MPI: with OMPI_MCA_osc=rdma; its osc/pt2pt refuses MPI_THREAD_MULTIPLE windows.)
 * On our Intel host (session 35), MPICH 4.0.2: put8 0.5-1.5 us in_mpi, 116-119 us sleeps; fadd
 * 2.4-3.0 and 116-121 us. Open MPI 4.1.4 (osc/rdma, pml ob1): put8 0.9-1.5 us either way; fadd
 * 0.9-1.1 and 101-154 us. So an atomic (and with MPICH any operation) to a unit that is not in
 * MPI waits for that unit's next MPI call: the one-sided broadcast's relays are what makes a
 * non-root's MPI progress on the MPI path (docs/rma_bcast.md, "The MPI path"). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 2000

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

/* Rank 1 until rank 0's message: MPI_Test back to back, or with a 20 us sleep between. */
static void target_waits(int sleeps) {
    int flag = 0, done = 0;
    MPI_Request r;
    MPI_Irecv(&flag, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
    while (!done) {
        if (sleeps) usleep(20);
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv) {
    int provided, me, p;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p != 2) {
        if (me == 0) fprintf(stderr, "target_progress: run with 2 processes\n");
        MPI_Finalize();
        return 1;
    }
    uint64_t *data = calloc(64, sizeof *data), *ctrl = calloc(64, sizeof *ctrl);
    MPI_Win data_win, ctrl_win;
    MPI_Win_create(data, 64 * sizeof *data, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &data_win);
    MPI_Win_create(ctrl, 64 * sizeof *ctrl, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &ctrl_win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, data_win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, ctrl_win);
    static const char *target_mode[2] = {"in_mpi", "sleeps"},
                      *op_name[3] = {"put8", "fadd", "fadd_self"};
    for (int sleeps = 0; sleeps < 2; sleeps++)
        for (int op = 0; op < 3; op++) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == 1) {
                target_waits(sleeps);
                continue;
            }
            uint64_t one = 1, old = 0;
            double t0 = now_us();
            for (int i = 0; i < ROUNDS; i++) {
                if (op == 0) {
                    MPI_Put(&one, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, data_win);
                    MPI_Win_flush(1, data_win);
                } else {
                    int target = op == 1 ? 1 : 0;
                    MPI_Fetch_and_op(&one, &old, MPI_UINT64_T, target, 0, MPI_SUM, ctrl_win);
                    MPI_Win_flush(target, ctrl_win);
                }
            }
            printf("target %-6s  %-9s  %8.2f us\n", target_mode[sleeps], op_name[op],
                   (now_us() - t0) / ROUNDS);
            fflush(stdout);
            int go = 1;
            MPI_Send(&go, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        }
    MPI_Win_unlock_all(ctrl_win);
    MPI_Win_unlock_all(data_win);
    MPI_Win_free(&ctrl_win);
    MPI_Win_free(&data_win);
    free(ctrl);
    free(data);
    MPI_Finalize();
    return 0;
}
