/* The helper thread that copies an epoch's large operations on the direct path
 * (SHOAL_EPOCH_COPY_THREAD; docs/fence.md, "A helper thread on the direct path"). On the direct
 * path the caller of shoal_put_nb copies inside the call, so nothing is left to overlap with the
 * computation that follows. With the helper, the call only hands the copy over; the helper does
 * it while the program computes (on a CPU of its own, if one is free), and the closing fence
 * waits until every copy of its epoch is done before the design's own steps, which then find the
 * epoch as if the caller had copied. */
#ifndef SHOAL_RMA_EPOCH_COPY_H
#define SHOAL_RMA_EPOCH_COPY_H

#include "epoch.h"

/* Starts the helper (shoal_init, when SHOAL_EPOCH_COPY_THREAD > 0 and the direct path is on). */
shoal_err_t shoal__epoch_copy_start(void);
/* Lets the helper finish every copy handed to it, then stops it (shoal_finalize). */
void shoal__epoch_copy_stop(void);
/* 1 while the helper runs. */
int shoal__epoch_copy_running(void);
/* Hands over the copy of an operation of e to a mapped member: n bytes from src to dst, then,
 * when arrived is not NULL, one added to that word (the notify design's notification, mapped
 * here). 0 when the helper does not take it (not running, or n below the threshold): the caller
 * copies. */
int shoal__epoch_copy_later(epoch_t *e, void *dst, const void *src, size_t n, uint64_t *arrived);
/* Until every copy of e handed to the helper is done: the closing fence calls it first, and so
 * does the release of e's allocation. The helper's stores are visible to the caller on return. */
void shoal__epoch_copy_drain(epoch_t *e);
/* Whether e has copies the helper has not finished (cheap: the fence's test before a drain). */
static inline int shoal__epoch_copy_pending(const epoch_t *e) {
    return __atomic_load_n(&e->copies_done, __ATOMIC_ACQUIRE) !=
           __atomic_load_n(&e->copies_given, __ATOMIC_RELAXED);
}
/* Copies the helper has done since shoal_init, and their bytes (SHOAL_DEBUG report). */
void shoal__epoch_copy_counts(unsigned long *copies, unsigned long long *bytes);

#endif
