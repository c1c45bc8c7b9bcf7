/* Distributed locks (OpenSHMEM 1.5 section 9.11) on a symmetric long that the program set to 0.
 * A ticket lock in PE 0's copy of the word: the high 32 bits hand out tickets, the low 32 bits
 * say whose turn it is. Acquiring takes a ticket with one fetch-add and waits for its turn, so
 * the lock is granted in request order (no starvation). Every access is a Shoal atomic on the
 * 64-bit word, on the one mechanism its segment uses. */
#include "rma/rma.h"
#include "runtime/wait.h"
#include "shmem_internal.h"

#define TICKET  ((uint64_t)1 << 32)
#define LOW(w)  ((uint32_t)(w))
#define HIGH(w) ((uint32_t)((w) >> 32))

static int lock_word(long *lock, shoal_target_t *t) {
    if (!shmem__ready()) return 0;
    if (!lock) {
        shoal__fail(SHOAL_ERR_INVAL, "NULL lock");
        return 0;
    }
    if ((uintptr_t)lock % sizeof(uint64_t)) {
        shoal__fail(SHOAL_ERR_ALIGN, "the lock at %p is not 8-byte aligned", (void *)lock);
        return 0;
    }
    return shmem__target(lock, sizeof(uint64_t), 0, t) == SHOAL_OK;
}

static uint64_t load(const shoal_target_t *t) {
    uint64_t v = 0;
    shoal__amo(t, AMO_LOAD, SHOAL_OP_SUM, SHOAL_UINT64, NULL, NULL, &v);
    return v;
}

void shmem_set_lock(long *lock) {
    SHMEM_ENTER("shmem_set_lock");
    shoal_target_t t = {0};
    if (!lock_word(lock, &t)) return;
    uint64_t add = TICKET, old = 0;
    if (shoal__amo(&t, AMO_FETCH_OP, SHOAL_OP_SUM, SHOAL_UINT64, &add, NULL, &old) != SHOAL_OK)
        return;
    uint32_t mine = HIGH(old);
    shoal_waiter_t w;
    shoal__waiter_init(&w);
    while (LOW(old) != mine) {
        shoal__waiter_pause(&w);
        old = load(&t);
    }
    if (!t.seg->atomics_direct) MPI_Win_sync(t.seg->win);
    __atomic_thread_fence(__ATOMIC_ACQUIRE); /* see what the previous holder wrote */
}

int shmem_test_lock(long *lock) {
    SHMEM_ENTER("shmem_test_lock");
    shoal_target_t t = {0};
    if (!lock_word(lock, &t)) return 1;
    uint64_t seen = load(&t);
    if (HIGH(seen) != LOW(seen)) {                        /* held, or others are queued */
        if (shoal__poke_wanted()) shoal__progress_poke(); /* programs poll test_lock in a loop */
        return 1;
    }
    uint64_t want = seen + TICKET, old = 0;
    if (shoal__amo(&t, AMO_CAS, SHOAL_OP_SUM, SHOAL_UINT64, &want, &seen, &old) != SHOAL_OK)
        return 1;
    if (old != seen) {
        if (shoal__poke_wanted()) shoal__progress_poke();
        return 1;
    }
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return 0;
}

void shmem_clear_lock(long *lock) {
    SHMEM_ENTER("shmem_clear_lock");
    shoal_target_t t = {0};
    if (!lock_word(lock, &t)) return;
    uint64_t seen = load(&t);
    if (HIGH(seen) == LOW(seen)) {
        shoal__fail(SHOAL_ERR_STATE, "the lock at %p is not held", (void *)lock);
        return;
    }
    shmem_quiet(); /* what I wrote under the lock is complete before the next holder enters */
    shoal__current_call = "shmem_clear_lock";
    /* The turn moves on by one; from 0xffffffff it wraps to 0 without carrying into the
     * tickets (adding 1 - 2^32 modulo 2^64). */
    uint64_t add = LOW(seen) == UINT32_MAX ? (uint64_t)1 - TICKET : 1;
    shoal__amo(&t, AMO_OP, SHOAL_OP_SUM, SHOAL_UINT64, &add, NULL, NULL);
}
