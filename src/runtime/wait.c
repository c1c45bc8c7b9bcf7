#include <sched.h>
#include <unistd.h>

#include "runtime.h"
#include "wait.h"

void shoal__progress_poke(void) {
    int flag = 0;
    /* Any MPI call that enters the progress engine would do; Iprobe on our private communicator
     * is cheap, has no side effects and exists in every MPI. */
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, shoal__rt.world, &flag, MPI_STATUS_IGNORE);
}

/* Three phases. Back-to-back polls first: a pause instruction costs 23-80 ns on our hosts (as
 * much as the cache-line hand-off a barrier or a flag waits for, when the cores sit close), so
 * pausing from the first failed poll can add a pause to every short wait. Then polls with a pause
 * (kind to a sibling hyperthread) up to the spin budget, and then a yield on every poll. The budget
 * depends on the regime: with more units than CPUs the unit we wait for may need this core, so
 * yield soon; with a CPU per unit a yield hands the core to some other program for a scheduler
 * tick, so spin for longer (shoal__wait_configure). MPI's progress engine is poked all along. */
void shoal__waiter_pause(shoal_waiter_t *w) {
    unsigned n = ++w->polls;
    if (n <= (unsigned)shoal__rt.spin_tight) {
        __asm__ __volatile__("" ::: "memory");
        if ((n & 63) == 0) shoal__progress_poke();
        return;
    }
    if (n < (unsigned)shoal__rt.spin_tight + (unsigned)shoal__rt.spin_polls) {
        shoal__cpu_relax();
        if ((n & 63) == 0) shoal__progress_poke();
        return;
    }
    /* Past the spin budget: another process may need this core to make the progress we await. */
    shoal__progress_poke();
    sched_yield();
}

void shoal__wait_configure(int machine_units) {
    shoal_runtime_t *rt = &shoal__rt;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    rt->machine_units = machine_units;
    if (rt->oversubscribed < 0) rt->oversubscribed = cpus > 0 && machine_units > cpus;
    rt->spin_polls = rt->oversubscribed ? rt->spin_count : rt->spin_count_dedicated;
    if (rt->myid == 0)
        shoal__debug("waiting: %d units on this machine, %ld CPUs online: %s, %d back-to-back "
                     "polls, then %d with a pause, then yields",
                     machine_units, cpus, rt->oversubscribed ? "oversubscribed" : "a CPU per unit",
                     rt->spin_tight, rt->spin_polls);
}
