/* MCS queue lock (Mellor-Crummey & Scott) on Shoal atomics, as in DART-MPI, with two changes:
 * waiters spin on a flag in their own memory (not on an MPI_Recv), and each lock's tail lives on
 * a different member (lock i of a team on member i mod size), so many locks do not all queue on
 * unit 0 (the improvement the DART paper names as future work).
 *
 * Each member's part of the lock segment holds three words on separate cache lines:
 *   TAIL  (used on the tail's home member only): 0 = free, else last waiter's rel id + 1
 *   NEXT  my successor's rel id + 1, 0 = none yet
 *   WAIT  1 while I wait for my predecessor to hand the lock over */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "mem/segment.h"
#include "rma/rma.h"
#include "runtime/objtab.h"
#include "runtime/wait.h"
#include "sync.h"
#include "team/team_table.h"

#define TAIL       0
#define NEXT       64
#define WAIT       128
#define LOCK_BYTES 192

/* The program holds a token of runtime/objtab.h naming this record, never the record itself: a
 * lock destroyed by shoal_lock_destroy or with its team is recognised without reading freed
 * memory. */
struct shoal_lock {
    uintptr_t token;
    team_t *team;
    segment_t *seg;
    int32_t tail_rel; /* member whose TAIL word is this lock's tail */
    int held;         /* by this unit */
    /* Threads of this unit queue here before the MCS queue (which has one node per unit):
     * 0 = free; the holding thread is `owner` (SHOAL_THREAD_MULTIPLE). */
    int gate;
    pthread_t owner;
    struct shoal_lock *next_in_team;
};

static shoal_target_t word(const struct shoal_lock *l, int32_t rel, int offset) {
    return shoal__target_at(l->seg, rel, (size_t)offset);
}

static shoal_err_t load(const struct shoal_lock *l, int32_t rel, int off, uint64_t *v) {
    shoal_target_t w = word(l, rel, off);
    return shoal__amo(&w, AMO_LOAD, SHOAL_OP_SUM, SHOAL_UINT64, NULL, NULL, v);
}

static shoal_err_t store(const struct shoal_lock *l, int32_t rel, int off, uint64_t v) {
    shoal_target_t w = word(l, rel, off);
    return shoal__amo(&w, AMO_STORE, SHOAL_OP_SUM, SHOAL_UINT64, &v, NULL, NULL);
}

/* The live record behind a token, or a reported error: SHOAL_ERR_STATE for a lock that existed
 * (destroyed, or its team was), SHOAL_ERR_INVAL for NULL or a value that was never a lock. */
static shoal_err_t check_lock(shoal_lock_t token, struct shoal_lock **l) {
    void *obj = NULL;
    if (!token) return shoal__fail(SHOAL_ERR_INVAL, "NULL lock");
    switch (objtab_lookup(OBJ_LOCK, (uintptr_t)token, &obj)) {
    case OBJ_LIVE:
        *l = obj;
        return SHOAL_OK;
    case OBJ_STALE:
        return shoal__fail(SHOAL_ERR_STATE,
                           "lock %p was destroyed (by shoal_lock_destroy or with its team)",
                           (void *)token);
    default:
        return shoal__fail(SHOAL_ERR_INVAL, "%p is not a lock", (void *)token);
    }
}

/* Frees a lock record whose token is already gone. */
static void free_record(struct shoal_lock *l) {
    free(l);
}

shoal_err_t shoal_lock_create(shoal_team_t team, shoal_lock_t *lock) {
    SHOAL_ENTER("shoal_lock_create");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    /* Every member learns whether every member can go on, so a bad argument on one unit fails
     * them all instead of leaving the others in the collective steps below. */
    struct shoal_lock *l = lock ? calloc(1, sizeof *l) : NULL;
    if (l && !(l->token = objtab_insert(OBJ_LOCK, l))) {
        free(l);
        l = NULL;
    }
    shoal_err_t mine = !lock ? shoal__fail(SHOAL_ERR_INVAL, "NULL output")
                       : !l  ? shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for a lock")
                             : SHOAL_OK;
    shoal_err_t err = shoal__team_agree(t, mine, 0, "");
    if (err != SHOAL_OK) {
        if (l) free_record(objtab_remove(OBJ_LOCK, l->token));
        return err;
    }
    err = shoal__segment_create(t, LOCK_BYTES, SEG_INTERNAL, &l->seg);
    if (err != SHOAL_OK) {
        free_record(objtab_remove(OBJ_LOCK, l->token));
        return err;
    }
    /* Fresh shared memory is zero: the lock is free and nobody waits. */
    l->team = t;
    l->tail_rel = (int32_t)(t->locks_created++ % (uint32_t)t->size);
    l->next_in_team = t->locks;
    t->locks = l;
    *lock = (shoal_lock_t)l->token;
    return SHOAL_OK;
}

static void unlink_lock(struct shoal_lock *l) {
    for (struct shoal_lock **p = &l->team->locks; *p; p = &(*p)->next_in_team)
        if (*p == l) {
            *p = l->next_in_team;
            break;
        }
}

shoal_err_t shoal_lock_destroy(shoal_lock_t *lock) {
    SHOAL_ENTER("shoal_lock_destroy");
    if (!lock) return shoal__fail(SHOAL_ERR_INVAL, "NULL lock pointer");
    struct shoal_lock *l = NULL;
    SHOAL_TRY(check_lock(*lock, &l));
    /* Collective: a member that still holds the lock fails every member (nobody is left waiting
     * in the barrier), and the lock stays usable so it can be released and destroyed again. */
    SHOAL_TRY(shoal__team_agree(
        l->team,
        l->held ? shoal__fail(SHOAL_ERR_STATE, "the lock is held by this unit: release it first")
                : SHOAL_OK,
        0, ""));
    SHOAL_TRY(shoal__team_barrier(l->team)); /* nobody may still be queued */
    unlink_lock(l);
    objtab_remove(OBJ_LOCK, l->token); /* every copy of the token is stale from now on */
    shoal_err_t err = shoal__segment_free(l->seg);
    free_record(l);
    *lock = NULL;
    return err;
}

/* The unit-local gate: one thread of this unit at a time enters the MCS queue. */
static int gate_held_by_me(struct shoal_lock *l) {
    return __atomic_load_n(&l->gate, __ATOMIC_ACQUIRE) &&
           pthread_equal(__atomic_load_n(&l->owner, __ATOMIC_RELAXED), pthread_self());
}

static int gate_try(struct shoal_lock *l) {
    int free_gate = 0;
    if (!__atomic_compare_exchange_n(&l->gate, &free_gate, 1, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return 0;
    __atomic_store_n(&l->owner, pthread_self(), __ATOMIC_RELAXED); /* read by other threads */
    return 1;
}

static void gate_open(struct shoal_lock *l) {
    __atomic_store_n(&l->owner, (pthread_t)0, __ATOMIC_RELAXED);
    __atomic_store_n(&l->gate, 0, __ATOMIC_RELEASE);
}

static shoal_err_t mcs_acquire(struct shoal_lock *lock);

shoal_err_t shoal_lock_acquire(shoal_lock_t token) {
    SHOAL_ENTER("shoal_lock_acquire");
    struct shoal_lock *lock = NULL;
    SHOAL_TRY(check_lock(token, &lock));
    if (gate_held_by_me(lock))
        return shoal__fail(SHOAL_ERR_STATE, "this thread already holds the lock");
    shoal_waiter_t w;
    shoal__waiter_init(&w);
    while (!gate_try(lock)) shoal__waiter_pause(&w); /* another thread of this unit holds it */
    shoal_err_t err = mcs_acquire(lock);
    if (err != SHOAL_OK) gate_open(lock);
    return err;
}

static shoal_err_t mcs_acquire(struct shoal_lock *lock) {
    int32_t me = lock->team->myrel;
    SHOAL_TRY(store(lock, me, NEXT, 0));
    SHOAL_TRY(store(lock, me, WAIT, 1));
    uint64_t pred = 0, self = me + 1;
    shoal_target_t tail = word(lock, lock->tail_rel, TAIL);
    SHOAL_TRY(shoal__amo(&tail, AMO_SWAP, SHOAL_OP_SUM, SHOAL_UINT64, &self, NULL, &pred));
    if (pred != 0) {
        /* Queue behind pred and spin on my own WAIT word until pred hands over. */
        SHOAL_TRY(store(lock, (int32_t)pred - 1, NEXT, self));
        shoal_target_t mine = word(lock, me, WAIT);
        SHOAL_TRY(shoal__wait_word(&mine, SHOAL_CMP_EQ, 0, NULL));
    }
    lock->held = 1;
    return SHOAL_OK;
}

static shoal_err_t mcs_try_acquire(struct shoal_lock *lock) {
    int32_t me = lock->team->myrel;
    SHOAL_TRY(store(lock, me, NEXT, 0));
    uint64_t free_value = 0, self = me + 1, old = 0;
    shoal_target_t tail = word(lock, lock->tail_rel, TAIL);
    SHOAL_TRY(shoal__amo(&tail, AMO_CAS, SHOAL_OP_SUM, SHOAL_UINT64, &self, &free_value, &old));
    if (old != 0) return SHOAL_BUSY; /* not a failure: nothing to report */
    lock->held = 1;
    return SHOAL_OK;
}

shoal_err_t shoal_lock_try_acquire(shoal_lock_t token) {
    SHOAL_ENTER("shoal_lock_try_acquire");
    struct shoal_lock *lock = NULL;
    SHOAL_TRY(check_lock(token, &lock));
    if (gate_held_by_me(lock))
        return shoal__fail(SHOAL_ERR_STATE, "this thread already holds the lock");
    shoal_err_t err = SHOAL_BUSY; /* BUSY from the gate: another thread of this unit holds it */
    if (gate_try(lock)) {
        err = mcs_try_acquire(lock);
        if (err != SHOAL_OK) gate_open(lock);
    }
    /* A busy try-lock is polled in a loop: while the holder's release may be waiting for us to
     * progress its flush (Open MPI's osc/pt2pt), a direct-path CAS would never enter MPI. */
    if (err == SHOAL_BUSY && shoal__poke_wanted()) shoal__progress_poke();
    return err;
}

static shoal_err_t mcs_release(struct shoal_lock *lock);

shoal_err_t shoal_lock_release(shoal_lock_t token) {
    SHOAL_ENTER("shoal_lock_release");
    struct shoal_lock *lock = NULL;
    SHOAL_TRY(check_lock(token, &lock));
    if (!gate_held_by_me(lock) || !lock->held)
        return shoal__fail(SHOAL_ERR_STATE, "this thread does not hold the lock");
    shoal_err_t err = mcs_release(lock);
    if (err == SHOAL_OK) gate_open(lock); /* on a failure the lock stays held: release again */
    return err;
}

static shoal_err_t mcs_release(struct shoal_lock *lock) {
    SHOAL_TRY(shoal__segments_flush(-1)); /* what I wrote under the lock is complete first */
    int32_t me = lock->team->myrel;
    uint64_t next = 0, self = me + 1, none = 0, old = 0;
    SHOAL_TRY(load(lock, me, NEXT, &next));
    if (next == 0) {
        /* No known successor: if I am still the tail, the lock becomes free. */
        shoal_target_t tail = word(lock, lock->tail_rel, TAIL);
        SHOAL_TRY(shoal__amo(&tail, AMO_CAS, SHOAL_OP_SUM, SHOAL_UINT64, &none, &self, &old));
        if (old == self) {
            lock->held = 0;
            return SHOAL_OK;
        }
        /* A successor swapped itself in but has not linked yet: wait for the link. */
        shoal_target_t mine = word(lock, me, NEXT);
        SHOAL_TRY(shoal__wait_word(&mine, SHOAL_CMP_NE, 0, &next));
    }
    SHOAL_TRY(store(lock, (int32_t)next - 1, WAIT, 0));
    lock->held = 0;
    return SHOAL_OK;
}

shoal_err_t shoal__sync_team_finalize(team_t *t) {
    shoal_err_t err = SHOAL_OK;
    while (t->locks) {
        struct shoal_lock *l = t->locks;
        t->locks = l->next_in_team;
        objtab_remove(OBJ_LOCK, l->token); /* the program's copies now name a destroyed lock */
        shoal_err_t e = l->seg ? shoal__segment_free(l->seg) : SHOAL_OK;
        if (err == SHOAL_OK) err = e;
        free_record(l);
    }
    if (t->sync_seg) {
        shoal_err_t e = shoal__segment_free(t->sync_seg);
        if (err == SHOAL_OK) err = e;
        t->sync_seg = NULL;
    }
    return err;
}

static void drop_locks(team_t *t) {
    while (t->locks) {
        struct shoal_lock *l = t->locks;
        t->locks = l->next_in_team;
        objtab_remove(OBJ_LOCK, l->token);
        free_record(l);
    }
}

void shoal__sync_finalize(void) {
    team_table_foreach(drop_locks);
}
