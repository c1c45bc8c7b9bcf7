// np: 1 2
/* Many teams alive at once. A team of PEs that share a node, with the direct path on, holds one
 * MPI communicator and no window (its signal area and collectives' area are only ever touched
 * with loads, stores and CPU atomics): MPICH's 2,048 context ids per process then allow about
 * 2,000 live teams, where a window per area allowed 763 (docs/openshmem.md). 1,500 teams are made
 * and kept; every 100th is used for a reduction and a sync before all are destroyed in reverse.
 * With the direct path off, or across nodes (SHMEM_TEAM_SHARED smaller than the world), teams keep
 * their windows (and a node communicator), so 300 are made there. Each team's collective scratch is
 * set small (SHOAL_COLL_SCRATCH) so that 1,500 teams stay a few hundred MiB of shared memory. */
#include <stdlib.h>
#include <string.h>

#include "shmem_testlib.h"

#define MANY 1500
#define FEW  300

static shmem_team_t teams[MANY];
long total;

/* After shmem_init: the direct path off, or PEs on more than one node (real or pretend). */
static int windows_kept(void) {
    const char *direct = getenv("SHOAL_DIRECT");
    return (direct && !strcmp(direct, "0")) || shmem_team_n_pes(SHMEM_TEAM_SHARED) < t_np;
}

int main(void) {
    setenv("SHOAL_COLL_SCRATCH", "4K", 1);
    test_init();
    const int n = windows_kept() ? FEW : MANY;
    int made = 0;
    for (; made < n; made++) {
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, t_np, NULL, 0, &teams[made]);
        if (rc != 0 || teams[made] == SHMEM_TEAM_INVALID) break;
    }
    CHECK(made == n, "%d live teams made, %d asked for", made, n);
    static long one = 1;
    for (int i = 0; i < made; i += 100) {
        total = 0;
        CHECK(shmem_long_sum_reduce(teams[i], &total, &one, 1) == 0 && total == t_np,
              "team %d: sum %ld, expected %d", i, total, t_np);
        CHECK(shmem_team_my_pe(teams[i]) == t_me && shmem_team_n_pes(teams[i]) == t_np,
              "team %d: my_pe %d, n_pes %d", i, shmem_team_my_pe(teams[i]),
              shmem_team_n_pes(teams[i]));
        shmem_team_sync(teams[i]);
    }
    for (int i = made - 1; i >= 0; i--) shmem_team_destroy(teams[i]);
    if (t_me == 0) printf("test_shmem_team_many: %d teams alive at once\n", made);
    return test_end("test_shmem_team_many");
}
