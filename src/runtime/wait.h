/* The one waiting policy (ARCHITECTURE.md decision 5): spin briefly (back to back, then with a
 * pause), then yield the core on every poll, and drive MPI progress all along, so oversubscribed
 * runs finish and passive-target operations that need the target's help complete. */
#ifndef SHOAL_RUNTIME_WAIT_H
#define SHOAL_RUNTIME_WAIT_H

typedef struct {
    unsigned polls;
} shoal_waiter_t;

static inline void shoal__waiter_init(shoal_waiter_t *w) {
    w->polls = 0;
}
/* Call once per failed poll of the awaited condition. */
void shoal__waiter_pause(shoal_waiter_t *w);
/* Chooses the spin budget for this machine: oversubscribed (more units on it than online CPUs,
 * unless SHOAL_OVERSUBSCRIBED says) or a CPU per unit. Called once by shoal_init. */
void shoal__wait_configure(int machine_units);
/* One poke of MPI's progress engine. */
void shoal__progress_poke(void);

/* Called by the reads a program polls in a loop of its own (atomic load, fetch-op and CAS, signal
 * read, a busy try-lock): they may never enter MPI on the direct path, yet a passive-target
 * operation another unit aims at us through MPI (Open MPI's osc/pt2pt) completes only when we
 * do. Every 64th such call per thread pokes the progress engine: about 3 instructions otherwise. */
static inline void shoal__poll_hint(void) {
    /* initial-exec: a %fs-relative access, not a __tls_get_addr call (libshoal is a shared
     * library, but never dlopen'ed after start-up) */
    static _Thread_local unsigned polls __attribute__((tls_model("initial-exec")));
    if ((++polls & 63) == 0) shoal__progress_poke();
}

static inline void shoal__cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
