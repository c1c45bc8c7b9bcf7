/* shmem_global_exit from one PE ends every PE promptly with its status (OpenSHMEM 1.5 section
 * 9.1.4): the last PE calls it while the others wait on a flag nobody will ever set, so only the
 * global exit can end them. run_global_exit.sh checks the job's exit status and how long it took.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static long flag;

int main(int argc, char **argv) {
    int status = argc > 1 ? atoi(argv[1]) : 7;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_barrier_all();
    if (me == n - 1) {
        fprintf(stderr, "PE %d: calling shmem_global_exit(%d)\n", me, status);
        shmem_global_exit(status);
    }
    shmem_long_wait_until(&flag, SHMEM_CMP_NE, 0);
    fprintf(stderr, "PE %d: the wait ended without a global exit\n", me);
    shmem_finalize();
    return 0;
}
