/* A bounded first-in first-out store of retired objects: the records of destroyed OpenSHMEM
 * teams and contexts are kept for a while, so a stale handle is recognised as destroyed instead
 * of reaching freed memory, and then released, so a program that makes and destroys them in a
 * loop does not grow. Not thread-safe: the owner locks. */
#ifndef SHOAL_RUNTIME_QUARANTINE_H
#define SHOAL_RUNTIME_QUARANTINE_H

#include <stdint.h>

typedef struct {
    void **ring;    /* cap slots, allocated on first use */
    uint32_t cap;   /* objects kept at most */
    uint32_t first; /* slot of the oldest */
    uint32_t count;
} quarantine_t;
#define QUARANTINE_INIT(cap)                                                                       \
    { 0, (cap), 0, 0 }

/* Keeps obj. Returns the object no longer kept: the oldest once cap are kept, else NULL (obj
 * itself when there is no memory for the ring). The caller releases what comes back. */
void *quarantine_keep(quarantine_t *q, void *obj);
/* Removes and returns the oldest object kept; NULL when empty. */
void *quarantine_take(quarantine_t *q);
/* Frees the ring (empty it first with quarantine_take). */
void quarantine_clear(quarantine_t *q);

#endif
