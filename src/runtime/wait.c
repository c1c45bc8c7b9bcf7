#include <sched.h>

#include "runtime.h"
#include "wait.h"

void shoal__progress_poke(void) {
    int flag = 0;
    /* Any MPI call that enters the progress engine would do; Iprobe on our private communicator
     * is cheap, has no side effects and exists in every MPI. */
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, shoal__rt.world, &flag, MPI_STATUS_IGNORE);
}

void shoal__waiter_pause(shoal_waiter_t *w) {
    unsigned n = ++w->polls;
    if (n < (unsigned)shoal__rt.spin_count) {
        shoal__cpu_relax();
        if ((n & 63) == 0) shoal__progress_poke();
        return;
    }
    /* Past the spin budget: another process may need this core to make the progress we await. */
    shoal__progress_poke();
    sched_yield();
}
