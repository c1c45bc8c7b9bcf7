/* The one waiting policy (ARCHITECTURE.md decision 5): spin briefly (back to back, then with a
 * pause), then yield the core on every poll (or sleep, once a yield found computing programs on
 * the CPU: wait.c), and drive MPI progress all along, so oversubscribed runs finish and
 * passive-target operations that need the target's help complete. */
#ifndef SHOAL_RUNTIME_WAIT_H
#define SHOAL_RUNTIME_WAIT_H

#include "runtime/runtime.h"

typedef struct {
    unsigned polls;
    unsigned sleeps; /* sleep instead of yielding (a yield met computing programs: wait.c,
                      * wait_on) */
} shoal_waiter_t;

static inline void shoal__waiter_init(shoal_waiter_t *w) {
    w->polls = 0;
    w->sleeps = 0;
}
/* Call once per failed poll of the awaited condition. */
void shoal__waiter_pause(shoal_waiter_t *w);
/* Chooses the spin budget for this machine: oversubscribed (more units on it than CPUs they may
 * use, runtime/cpus.h, unless SHOAL_OVERSUBSCRIBED says) or a CPU per unit, where the budget
 * then adapts to what waits see (SHOAL_SPIN_ADAPTIVE). Collective over machine (the units of
 * this shared-memory machine); called once by shoal_init. */
void shoal__wait_configure(MPI_Comm machine, int machine_units);
/* Prints (SHOAL_DEBUG) what the adaptive spin did; called by shoal_finalize. */
void shoal__wait_report(void);

/* The adaptive spin's decision, apart from the waits that feed it (unit-tested alone). Each wait
 * that outlasts the short spin yields once there and times it: a yield that ran another thread in
 * between says something else wants this CPU, so a long spin would hold it from them (and often
 * from the very unit we wait for): a short vote; one that came straight back says nobody does, so
 * spinning on costs nothing: a long vote; one that came back only after a scheduler slice says
 * computing programs took it, which gain nothing from our yields: a long vote too. */
enum { SHOAL_SPIN_VOTE_LONG = 0, SHOAL_SPIN_VOTE_SHORT = 1 };
/* For the report (SHOAL_DEBUG=2): the probes' yields by duration, in classes with these upper
 * bounds in ns (the last open), so that a host's or kernel's scheduler shows what the thresholds
 * below meet there. */
#define SHOAL_SPIN_PROBE_CLASSES 7
extern const uint64_t shoal__spin_probe_class_below[SHOAL_SPIN_PROBE_CLASSES - 1];
/* The class of a yield of yield_ns. */
int shoal__spin_probe_class(uint64_t yield_ns);
typedef struct {
    int state;               /* score | short_mode << 8, changed by compare-and-swap */
    unsigned long votes[2];  /* by kind, for the report */
    unsigned long switches;  /* mode changes, for the report */
    uint64_t probe_after_ns; /* the long spin's waits skip their probe until then (0: none) */
    uint64_t backoff_ns;     /* the current pause between probes after hog yields (0: none) */
    unsigned long skipped;   /* long-spin probes skipped, for the report */
    unsigned long took[SHOAL_SPIN_PROBE_CLASSES]; /* probes by how long their yield took */
} shoal_spin_adapt_t;
/* The vote of a probe whose yield took yield_ns: short when another thread ran and gave the CPU
 * back (over 2 us, under 1 ms: a waiter of another job, which our spinning would delay); long when
 * nobody ran, and when threads kept the CPU for a scheduler slice (1 ms or more: computing
 * programs, to which yielding only gives our slices away). */
int shoal__spin_adapt_judge(uint64_t yield_ns);
/* Records one vote; returns 1 when the short spin is now in force, 0 for the long one. */
int shoal__spin_adapt_vote(shoal_spin_adapt_t *a, int vote);
/* Probing under programs that compute costs a round of their slices per probe: the yield gives
 * the CPU to one of them for its whole slice (14 runnable processes on 2 CPUs: every 1 MiB
 * fcollect waited 12-20 ms at its probe, against 70 us unloaded). So after a probe whose yield
 * took 1 ms or more the long spin's waits stop probing for a while, 16 ms at first, twice as long
 * after each further such probe up to 512 ms; a probe that finds anything else ends it. */
void shoal__spin_adapt_after_probe(shoal_spin_adapt_t *a, uint64_t now_ns, uint64_t yield_ns);
/* Whether a long-spin wait may probe at now_ns (needs the clock only while a pause is on). */
static inline int shoal__spin_adapt_may_probe(const shoal_spin_adapt_t *a, uint64_t now_ns) {
    return now_ns >= __atomic_load_n(&a->probe_after_ns, __ATOMIC_RELAXED);
}
static inline int shoal__spin_adapt_short(const shoal_spin_adapt_t *a) {
    return __atomic_load_n(&a->state, __ATOMIC_RELAXED) >> 8;
}
/* A yield that took this long gave the CPU to threads that kept it for a scheduler slice
 * (programs that compute): yielding again only hands them more (wait.c, wait_on). */
#define SHOAL_YIELD_HOG_NS 1000000u

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t shoal__now_ns(void);
/* sched_yield, timed: returns how long it took (SHOAL_YIELD_HOG_NS or more: computing programs
 * had the CPU); the clock at its return in *after_ns when that is not NULL. */
uint64_t shoal__yield_timed(uint64_t *after_ns);

/* One poke of MPI's progress engine. */
void shoal__progress_poke(void);

/* Whether the reads a program polls in a loop of its own should poke MPI's progress engine:
 * when MPI RMA may target this unit (another unit's passive-target operation through Open MPI's
 * osc/pt2pt completes only when we enter MPI), or when units outnumber CPUs (the poke yields
 * there, Open MPI's itself and MPICH's through shoalrun's shim, and the unit the program waits
 * for may need this CPU). Else nothing needs it: with a CPU per unit on the direct path the poke
 * (an MPI_Iprobe) was half the cost of a polled atomic load (12.4 against 5-6 ns). */
static inline int shoal__poke_wanted(void) {
    return shoal__rt.mpi_rma || shoal__rt.oversubscribed > 0;
}

/* Called by the reads a program polls in a loop of its own (atomic load, fetch-op and CAS, signal
 * read): they may never enter MPI on the direct path. Every 64th such call per thread pokes the
 * progress engine where that is wanted (above): about 3 instructions otherwise. */
static inline void shoal__poll_hint(void) {
    /* initial-exec: a %fs-relative access, not a __tls_get_addr call (libshoal is a shared
     * library, but never dlopen'ed after start-up) */
    static _Thread_local unsigned polls __attribute__((tls_model("initial-exec")));
    if (shoal__poke_wanted() && (++polls & 63) == 0) shoal__progress_poke();
}

/* Polls a CPU-atomic word until it holds at least value, up to polls times, with a gap of a few
 * dozen cycles between polls (a compiler barrier loop, not a pause: a pause costs as much as the
 * hand-off itself on our hosts): 1 when it did. For a flag whose line a peer is about to write
 * (the 2-unit barrier's shared line, an eager cell or ring line with its data): back-to-back
 * polls take the line from the writer again and again, so any delay before the peer's store
 * costs several times itself (a raw 2-unit barrier loop on an EPYC: 40 ns, 66 with 2.7 ns of
 * work between barriers; with the gap 30 and 38). */
#define SHOAL_POLL_GAP 32
static inline int shoal__poll_ge_gapped(const uint64_t *word, uint64_t value, int polls) {
    for (int i = 0; i < polls; i++) {
        if (__atomic_load_n(word, __ATOMIC_ACQUIRE) >= value) return 1;
        for (int j = 0; j < SHOAL_POLL_GAP; j++) __asm__ __volatile__("" ::: "memory");
    }
    return 0;
}

static inline void shoal__cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
