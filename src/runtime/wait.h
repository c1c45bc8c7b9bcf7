/* The one waiting policy (ARCHITECTURE.md decision 5): spin briefly, then yield the core on every
 * poll, and drive MPI progress all along, so oversubscribed runs finish and passive-target
 * operations that need the target's help complete. */
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
/* One poke of MPI's progress engine. */
void shoal__progress_poke(void);

static inline void shoal__cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
