#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "cpus.h"
#include "runtime.h"
#include "wait.h"

/* A yield that returns later than this ran another thread in between: a bare sched_yield with
 * nobody else runnable costs 0.5 us on average on our EPYC guest, and 2.5 in 10,000 take longer
 * than 2 us (interrupts). Another job's unit often runs only a few microseconds before it yields
 * back: a threshold of 8 us called 98 % of such probes free and left the long spin in force. */
#define YIELD_TAKEN_NS 2000
/* The score at which the short spin takes over, and at which the long one comes back (apart, so
 * the mode does not flip with every vote), and its ceiling. A short vote adds 2 and a long one
 * takes 1 away: holding a CPU somebody wants costs them a scheduler slice, a yield nobody takes
 * costs half a microsecond. */
/* Where a wait probes, in paused polls past the tight ones. In the short spin its first yield is
 * the probe. In the long spin it probes this far in, so that on a machine to itself the waits
 * that end within a couple of microseconds never pay for a yield (a probe there costs 0.5 us),
 * however short the short spin is. */
#define PROBE_POLLS_LONG 64
#define ADAPT_TO_SHORT   8
#define ADAPT_TO_LONG    2
#define ADAPT_MAX        16

static struct {
    int enabled; /* a CPU per unit, SHOAL_SPIN_ADAPTIVE=1, and two budgets to choose from */
    shoal_spin_adapt_t decision;
} adapt;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void shoal__progress_poke(void) {
    int flag = 0;
    /* Any MPI call that enters the progress engine would do; Iprobe on our private communicator
     * is cheap, has no side effects and exists in every MPI. */
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, shoal__rt.world, &flag, MPI_STATUS_IGNORE);
}

int shoal__spin_adapt_vote(shoal_spin_adapt_t *a, int vote) {
    int old = __atomic_load_n(&a->state, __ATOMIC_RELAXED), next, was_short, now_short;
    do {
        int score = old & 0xff;
        was_short = old >> 8;
        score = vote == SHOAL_SPIN_VOTE_SHORT ? score + 2 : score - 1;
        if (score < 0) score = 0;
        if (score > ADAPT_MAX) score = ADAPT_MAX;
        now_short = was_short ? score > ADAPT_TO_LONG : score >= ADAPT_TO_SHORT;
        next = score | now_short << 8;
    } while (
        !__atomic_compare_exchange_n(&a->state, &old, next, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    __atomic_fetch_add(&a->votes[vote != SHOAL_SPIN_VOTE_LONG], 1, __ATOMIC_RELAXED);
    if (now_short != was_short) __atomic_fetch_add(&a->switches, 1, __ATOMIC_RELAXED);
    return now_short;
}

/* The adaptive spin's evidence: a wait that outlasts the short spin yields once, timed, and
 * votes with what it saw. Then the budget in force (the long spin, or yields from here on). */
static void probe_yield(void) {
    shoal__progress_poke();
    uint64_t before = now_ns();
    sched_yield();
    int taken = now_ns() - before > YIELD_TAKEN_NS;
    int now_short = shoal__spin_adapt_vote(&adapt.decision,
                                           taken ? SHOAL_SPIN_VOTE_SHORT : SHOAL_SPIN_VOTE_LONG);
    __atomic_store_n(&shoal__rt.spin_polls,
                     now_short ? shoal__rt.spin_count : shoal__rt.spin_count_dedicated,
                     __ATOMIC_RELAXED);
}

/* Three phases. Back-to-back polls first: a pause instruction costs 23-80 ns on our hosts (as
 * much as the cache-line hand-off a barrier or a flag waits for, when the cores sit close), so
 * pausing from the first failed poll can add a pause to every short wait. Then polls with a pause
 * (kind to a sibling hyperthread) up to the spin budget, and then a yield on every poll. The budget
 * depends on the regime: with more units than CPUs the unit we wait for may need this core, so
 * yield soon; with a CPU per unit a yield hands the core to some other program for a scheduler
 * tick, so spin for longer, unless the waits keep finding that other threads want this CPU
 * (another job on the same CPUs: probe_yield): then the short spin, as oversubscribed. MPI's
 * progress engine is poked all along. */
void shoal__waiter_pause(shoal_waiter_t *w) {
    unsigned n = ++w->polls, tight = (unsigned)shoal__rt.spin_tight;
    if (n <= tight) {
        __asm__ __volatile__("" ::: "memory");
        if ((n & 63) == 0) shoal__progress_poke();
        return;
    }
    unsigned budget = (unsigned)__atomic_load_n(&shoal__rt.spin_polls, __ATOMIC_RELAXED);
    if (adapt.enabled) {
        unsigned short_spin = shoal__rt.spin_count > 0 ? (unsigned)shoal__rt.spin_count : 1;
        unsigned probe_at = budget > (unsigned)shoal__rt.spin_count && short_spin < PROBE_POLLS_LONG
                                ? PROBE_POLLS_LONG /* the long spin */
                                : short_spin;
        if (n == tight + probe_at) {
            probe_yield();
            return;
        }
    }
    if (n < tight + budget) {
        shoal__cpu_relax();
        if ((n & 63) == 0) shoal__progress_poke();
        return;
    }
    /* Past the spin budget: another process may need this core to make the progress we await. */
    shoal__progress_poke();
    sched_yield();
}

void shoal__wait_configure(MPI_Comm machine, int machine_units) {
    shoal_runtime_t *rt = &shoal__rt;
    shoal_cpus_t cpus;
    shoal__cpus_usable(machine, &cpus);
    rt->machine_units = machine_units;
    if (rt->oversubscribed < 0) rt->oversubscribed = machine_units > cpus.usable;
    rt->spin_polls = rt->oversubscribed ? rt->spin_count : rt->spin_count_dedicated;
    adapt.enabled =
        !rt->oversubscribed && rt->spin_adaptive && rt->spin_count_dedicated > rt->spin_count;
    if (rt->myid == 0)
        shoal__debug("waiting: %d units on this machine; %d CPUs online, %d in the units' "
                     "affinity, %.2f CPUs of cgroup quota%s: %s; %d back-to-back polls, then %d "
                     "with a pause%s, then yields",
                     machine_units, cpus.online, cpus.affinity, cpus.quota,
                     cpus.quota > 0 ? "" : " (none)",
                     rt->oversubscribed ? "oversubscribed" : "a CPU per unit", rt->spin_tight,
                     rt->spin_polls,
                     adapt.enabled ? " (adaptive: SHOAL_SPIN_COUNT while the waits find other "
                                     "threads wanting the CPUs)"
                                   : "");
}

void shoal__wait_report(void) {
    if (!adapt.enabled) return;
    shoal_spin_adapt_t *d = &adapt.decision;
    shoal__debug("adaptive spin: %lu waits found the CPU wanted, %lu found it free; %lu "
                 "switches, now the %s spin",
                 __atomic_load_n(&d->votes[SHOAL_SPIN_VOTE_SHORT], __ATOMIC_RELAXED),
                 __atomic_load_n(&d->votes[SHOAL_SPIN_VOTE_LONG], __ATOMIC_RELAXED),
                 __atomic_load_n(&d->switches, __ATOMIC_RELAXED),
                 shoal__spin_adapt_short(d) ? "short" : "long");
}
