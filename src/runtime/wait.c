#include <sched.h>
#include <stdio.h>
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
/* SHOAL_YIELD_HOG_NS (wait.h), 1 ms: a yield that returns later than this gave the CPU to threads
 * that kept it for a scheduler slice instead of handing it back: programs that compute. The slice
 * is 0.75 ms x (1 + log2 CPUs, up to 8) under CFS and EEVDF alike (1.5 ms on 2 CPUs, 3 ms from 8),
 * ended at the next tick; another job's waiter, the case the short spin is for, gives the CPU back
 * within microseconds, or after its long spin (4096 paused polls, 0.1-0.3 ms). Yielding to programs
 * that compute only costs this unit slices and nothing we wait for comes of it, so the probe votes
 * long. History: 5 ms from session 25 (AMD EPYC family 25 model 1, where such yields took a round
 * of 12-20 ms). Session 33, the same host kind (kernel 6.18, EEVDF): a spinner's turn often took
 * 2.5-5 ms (27 % of the probes with 12 spinners, 12-14 % with one), so those probes voted short,
 * the short spin took over and yielded every poll to the spinners. Shoal/MPI, mean time per call
 * over seconds (bench_load, Open MPI, 2 units, 19 rows of barrier, broadcast, fcollect, alltoall at
 * 8 B-1 MiB): with 12 spinners, 4.73 (no slower in 2 of 19) at 5 ms and 0.15 (18 of 19) at 1 ms;
 * with one spinner, 1.26 (8 of 13) and 0.33 (13 of 13). Two co-located 2-unit jobs
 * (bench/colocated, two rounds each): no change beyond the runs' noise (Shoal/MPI 0.44-0.65 at 5
 * ms, 0.47-0.57 at 1 ms); their probes' yields took under 20 us in 97-99 % of cases, 1-5 ms in
 * 0.05-0.7 %. */
#define YIELD_HOG_NS SHOAL_YIELD_HOG_NS

/* The score at which the short spin takes over, and at which the long one comes back (apart, so
 * the mode does not flip with every vote), and its ceiling. A short vote adds 2 and a long one
 * takes 1 away: holding a CPU somebody wants costs them a scheduler slice, a yield nobody takes
 * costs half a microsecond. */
#define ADAPT_TO_SHORT 8
#define ADAPT_TO_LONG  2
#define ADAPT_MAX      16
/* Where a wait in the long spin probes, in paused polls past the tight ones: this far in, so that
 * on a machine to itself the waits that end within a couple of microseconds never pay for a
 * yield (a probe costs 0.5 us there). In the short spin the first yield is the probe. */
#define PROBE_POLLS_LONG 64
/* The pause between the long spin's probes while they find the CPU hogged: shoal__spin_adapt_
 * after_probe (wait.h). A probe costs a round of the hogs' slices (7 runnable per CPU: 12-20 ms
 * on the AMD EPYC host), so probing at most every 16-512 ms bounds what the probes lose. */
#define PROBE_BACKOFF_MIN_NS 16000000u
#define PROBE_BACKOFF_MAX_NS 512000000u

const uint64_t shoal__spin_probe_class_below[SHOAL_SPIN_PROBE_CLASSES - 1] = {
    YIELD_TAKEN_NS, 20000, 200000, YIELD_HOG_NS, 2500000, 5000000};

int shoal__spin_probe_class(uint64_t yield_ns) {
    int c = 0;
    while (c < SHOAL_SPIN_PROBE_CLASSES - 1 && yield_ns >= shoal__spin_probe_class_below[c]) c++;
    return c;
}

static struct {
    int enabled; /* a CPU per unit, SHOAL_SPIN_ADAPTIVE=1, and two budgets to choose from */
    shoal_spin_adapt_t decision;
} adapt;

/* What the waits' yields did with a CPU per unit (wait_on), for the report (relaxed atomics). */
static struct { unsigned long yields, hog_yields, sleeps; } yield_counts;

uint64_t shoal__now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

uint64_t shoal__yield_timed(uint64_t *after_ns) {
    uint64_t before = shoal__now_ns();
    sched_yield();
    uint64_t after = shoal__now_ns();
    if (after_ns) *after_ns = after;
    return after - before;
}

void shoal__progress_poke(void) {
    int flag = 0;
    /* Any MPI call that enters the progress engine would do; Iprobe on our private communicator
     * is cheap, has no side effects and exists in every MPI. */
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, shoal__rt.world, &flag, MPI_STATUS_IGNORE);
}

int shoal__spin_adapt_judge(uint64_t yield_ns) {
    return yield_ns > YIELD_TAKEN_NS && yield_ns < YIELD_HOG_NS ? SHOAL_SPIN_VOTE_SHORT
                                                                : SHOAL_SPIN_VOTE_LONG;
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

void shoal__spin_adapt_after_probe(shoal_spin_adapt_t *a, uint64_t now_ns, uint64_t yield_ns) {
    if (yield_ns < YIELD_HOG_NS) { /* no hogs (any more): every long-spin wait probes again */
        if (__atomic_load_n(&a->backoff_ns, __ATOMIC_RELAXED)) {
            __atomic_store_n(&a->backoff_ns, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&a->probe_after_ns, 0, __ATOMIC_RELAXED);
        }
        return;
    }
    /* Relaxed and unlocked: two threads probing at once may double the pause once too few. */
    uint64_t b = __atomic_load_n(&a->backoff_ns, __ATOMIC_RELAXED);
    b = b == 0 ? PROBE_BACKOFF_MIN_NS : b * 2 > PROBE_BACKOFF_MAX_NS ? PROBE_BACKOFF_MAX_NS : b * 2;
    __atomic_store_n(&a->backoff_ns, b, __ATOMIC_RELAXED);
    __atomic_store_n(&a->probe_after_ns, now_ns + b, __ATOMIC_RELAXED);
}

/* SHOAL_SPIN_COUNT's default. Every poll of the short spin past its back-to-back polls pokes
 * MPI's progress engine and yields. Measured on 2 CPUs (bench_shmem barrier_all, fcollect):
 * this job's own 3 units on Open MPI took 8.5-9.3 us per barrier with no back-to-back polls and
 * 5.0-5.4 with 64 (each poke is a pass of opal_progress; 4 units: 5.7-10.9 against 3.9-4.8, one
 * run of 12.2); on MPICH 3.8-5.1 with none and 5.6-7.2 with 64; and two co-located 2-unit jobs on
 * Open MPI did better with none (Shoal/MPI geometric mean 0.69, against 0.84 with 64), as on MPICH
 * (session 18). */
static int short_spin_default(int oversubscribed) {
#ifdef OPEN_MPI
    return oversubscribed ? 64 : 0;
#else
    (void)oversubscribed;
    return 0;
#endif
}

/* The short spin (more units than CPUs, or other jobs on this CPU) or the long one. */
static void set_spin(int short_spin) {
    shoal_runtime_t *rt = &shoal__rt;
    __atomic_store_n(&rt->spin_back_to_back, short_spin ? rt->spin_count : rt->spin_tight,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&rt->spin_polls, short_spin ? 0 : rt->spin_count_dedicated, __ATOMIC_RELAXED);
}

/* The adaptive spin's evidence: a wait yields once, timed (the short spin's first yield, or 64
 * paused polls into the long spin), and votes with what it saw; the spin in force follows. */
static void probe_yield(shoal_waiter_t *w) {
    shoal__progress_poke();
    uint64_t after, took = shoal__yield_timed(&after);
    int now_short = shoal__spin_adapt_vote(&adapt.decision, shoal__spin_adapt_judge(took));
    shoal__spin_adapt_after_probe(&adapt.decision, after, took);
    __atomic_fetch_add(&adapt.decision.took[shoal__spin_probe_class(took)], 1, __ATOMIC_RELAXED);
    set_spin(now_short);
    if (took >= YIELD_HOG_NS && shoal__rt.spin_sleep_us > 0) w->sleeps = 1; /* wait_on */
}

/* The long spin's probe, unless hog yields have paused probing (then a paused poll instead). */
static void probe_yield_long(shoal_waiter_t *w) {
    if (__atomic_load_n(&adapt.decision.probe_after_ns, __ATOMIC_RELAXED) == 0 ||
        shoal__spin_adapt_may_probe(&adapt.decision, shoal__now_ns())) {
        probe_yield(w);
        return;
    }
    __atomic_fetch_add(&adapt.decision.skipped, 1, __ATOMIC_RELAXED);
    shoal__cpu_relax();
}

/* A wait's yields with a CPU per unit (past the long spin's polls, or in the adaptive short
 * spin): the unit we wait for is not running (or works for long). A yield hands the core to
 * whoever else wants it, and comes straight back when nobody does. But beside programs that
 * compute, a yield gives up the rest of this thread's slice: since Linux 6.18 the yielder forfeits
 * its remaining virtual runtime (EEVDF), so it returns only after a round of the others' slices.
 * Measured on 2 vCPUs (Intel Xeon, kernel 6.18), 3 spinners on the CPU: 478 yields in 2 s, 378 of
 * them over 1 ms; 50 us sleeps instead: 13,222 in 2 s, 76 over 1 ms. So once one of this wait's
 * yields (or its probe) took a slice or more, or while the probes meet computing programs, the
 * wait sleeps between polls: a sleeper keeps its place (its lag) and is back within about a
 * hundred microseconds of its timer, which is all it adds once the unit it waits for arrives.
 * Past the long spin a wait sleeps from its first poll while the probes meet computing programs
 * (long_spin); the short spin's waits, which co-located jobs' waiters mostly answer within
 * microseconds, only after a slow yield of their own. (Not when this job's own units outnumber
 * the CPUs: there the yield is how the unit we wait for gets this very CPU, and a sleeper would
 * make it wait.) */
static void wait_on(shoal_waiter_t *w, int long_spin) {
    long sleep_us = shoal__rt.spin_sleep_us;
    if (sleep_us > 0 && long_spin && !w->sleeps && adapt.enabled &&
        __atomic_load_n(&adapt.decision.backoff_ns, __ATOMIC_RELAXED))
        w->sleeps = 1; /* the probes meet computing programs already: skip the costly yield */
    if (w->sleeps) {
        struct timespec pause = {sleep_us / 1000000, sleep_us % 1000000 * 1000};
        nanosleep(&pause, NULL);
        __atomic_fetch_add(&yield_counts.sleeps, 1, __ATOMIC_RELAXED);
        return;
    }
    uint64_t took = shoal__yield_timed(NULL);
    __atomic_fetch_add(&yield_counts.yields, 1, __ATOMIC_RELAXED);
    if (took >= YIELD_HOG_NS) {
        __atomic_fetch_add(&yield_counts.hog_yields, 1, __ATOMIC_RELAXED);
        if (sleep_us > 0) w->sleeps = 1;
    }
}

/* Two spins. The long one (a CPU per unit) has three phases. Back-to-back polls first: a pause
 * instruction costs 23-80 ns on our hosts (as much as the cache-line hand-off a barrier or a flag
 * waits for, when the cores sit close), so pausing from the first failed poll can add a pause to
 * every short wait. Then polls with a pause (kind to a sibling hyperthread) up to the spin budget,
 * and then a yield on every poll: a yield hands the core to some other program for a scheduler
 * tick. The short one (more units than CPUs, or the adaptive spin has found other jobs on this
 * CPU: probe_yield) makes SHOAL_SPIN_COUNT back-to-back polls (default none) and then yields on
 * every poll: the unit we wait for may need this very core, and every poll spent here delays it.
 * Two co-located 2-unit jobs, short spin forced, Shoal/MPICH for fcollect and alltoall of 8 B to 4
 * KiB: 0.86-1.15x with 64 back-to-back polls before yielding, 0.55-0.77x with none. MPI's
 * progress engine is poked all along. */
void shoal__waiter_pause(shoal_waiter_t *w) {
    unsigned n = ++w->polls;
    unsigned back_to_back =
        (unsigned)__atomic_load_n(&shoal__rt.spin_back_to_back, __ATOMIC_RELAXED);
    if (n <= back_to_back) {
        /* a gap of a few dozen cycles, as shoal__poll_ge_gapped: polls back to back take the
         * line from its writer again and again (a 2-unit barrier: 30 ns with a gap, 48 without) */
        for (int j = 0; j < SHOAL_POLL_GAP; j++) __asm__ __volatile__("" ::: "memory");
        if ((n & 63) == 0) shoal__progress_poke();
        return;
    }
    unsigned budget = (unsigned)__atomic_load_n(&shoal__rt.spin_polls, __ATOMIC_RELAXED);
    if (budget == 0) {        /* the short spin (no polls with a pause): yields from here on */
        if (!adapt.enabled) { /* this job's own units outnumber the CPUs */
            shoal__progress_poke();
            sched_yield();
        } else if (n == back_to_back + 1) { /* the first tells what the CPU does */
            probe_yield(w);
        } else {
            shoal__progress_poke();
            wait_on(w, 0);
        }
        return;
    }
    if (adapt.enabled && n == back_to_back + PROBE_POLLS_LONG) {
        probe_yield_long(w);
        return;
    }
    if (n < back_to_back + budget) {
        shoal__cpu_relax();
        if ((n & 63) == 0) shoal__progress_poke();
        return;
    }
    /* Past the spin budget: another process may need this core to make the progress we await. */
    shoal__progress_poke();
    wait_on(w, 1);
}

void shoal__wait_configure(MPI_Comm machine, int machine_units) {
    shoal_runtime_t *rt = &shoal__rt;
    shoal_cpus_t cpus;
    shoal__cpus_usable(machine, &cpus);
    rt->machine_units = machine_units;
    if (rt->oversubscribed < 0) rt->oversubscribed = machine_units > cpus.usable;
    if (rt->spin_count < 0) rt->spin_count = short_spin_default(rt->oversubscribed);
    set_spin(rt->oversubscribed);
    adapt.enabled =
        !rt->oversubscribed && rt->spin_adaptive && rt->spin_count_dedicated > rt->spin_count;
    if (rt->myid == 0 && rt->oversubscribed)
        shoal__debug("waiting: %d units on this machine; %d CPUs online, %d in the units' "
                     "affinity, %.2f CPUs of cgroup quota%s: oversubscribed; the short spin: %d "
                     "back-to-back polls, then yields",
                     machine_units, cpus.online, cpus.affinity, cpus.quota,
                     cpus.quota > 0 ? "" : " (none)", rt->spin_count);
    else if (rt->myid == 0)
        shoal__debug("waiting: %d units on this machine; %d CPUs online, %d in the units' "
                     "affinity, %.2f CPUs of cgroup quota%s: a CPU per unit; the long spin: %d "
                     "back-to-back polls, then %d with a pause, then yields%s",
                     machine_units, cpus.online, cpus.affinity, cpus.quota,
                     cpus.quota > 0 ? "" : " (none)", rt->spin_tight, rt->spin_count_dedicated,
                     adapt.enabled ? " (adaptive: the short spin, SHOAL_SPIN_COUNT back-to-back "
                                     "polls then yields, while the waits find other threads "
                                     "wanting the CPUs)"
                                   : "");
}

void shoal__wait_report(void) {
    unsigned long yields = __atomic_load_n(&yield_counts.yields, __ATOMIC_RELAXED);
    unsigned long sleeps = __atomic_load_n(&yield_counts.sleeps, __ATOMIC_RELAXED);
    if (yields || sleeps)
        shoal__debug("waits' yields: %lu (%lu of them 1 ms or more), %lu sleeps of "
                     "%d us",
                     yields, __atomic_load_n(&yield_counts.hog_yields, __ATOMIC_RELAXED), sleeps,
                     shoal__rt.spin_sleep_us);
    if (!adapt.enabled) return;
    shoal_spin_adapt_t *d = &adapt.decision;
    shoal__debug("adaptive spin: %lu waits found the CPU wanted, %lu found it free; %lu "
                 "switches; %lu probes skipped after hog yields; now the %s spin",
                 __atomic_load_n(&d->votes[SHOAL_SPIN_VOTE_SHORT], __ATOMIC_RELAXED),
                 __atomic_load_n(&d->votes[SHOAL_SPIN_VOTE_LONG], __ATOMIC_RELAXED),
                 __atomic_load_n(&d->switches, __ATOMIC_RELAXED),
                 __atomic_load_n(&d->skipped, __ATOMIC_RELAXED),
                 shoal__spin_adapt_short(d) ? "short" : "long");
    char line[256];
    int at = 0;
    for (int c = 0; c < SHOAL_SPIN_PROBE_CLASSES && at < (int)sizeof line; c++) {
        const uint64_t *below = shoal__spin_probe_class_below;
        unsigned long n = __atomic_load_n(&d->took[c], __ATOMIC_RELAXED);
        if (c < SHOAL_SPIN_PROBE_CLASSES - 1)
            at += snprintf(line + at, sizeof line - at, "%s under %.0f us: %lu", c ? "," : "",
                           below[c] / 1e3, n);
        else
            at += snprintf(line + at, sizeof line - at, ", %.0f us or more: %lu",
                           below[c - 1] / 1e3, n);
    }
    shoal__debug("adaptive spin: probes' yields took%s", line);
}
