/* MCS queue lock (Mellor-Crummey & Scott) on Shoal atomics, as in DART-MPI, with two changes:
 * waiters spin on a flag in their own memory (not on an MPI_Recv), and each lock's tail lives on
 * a different member (lock i of a team on member i mod size), so many locks do not all queue on
 * unit 0 (the improvement the DART paper names as future work).
 *
 * Each member's part of the lock segment holds three words on separate cache lines:
 *   TAIL  (used on the tail's home member only): 0 = free, else last waiter's rel id + 1
 *   NEXT  my successor's rel id + 1, 0 = none yet
 *   WAIT  1 while I wait for my predecessor to hand the lock over */
#include <stdlib.h>

#include "mem/segment.h"
#include "rma/rma.h"
#include "runtime/wait.h"
#include "sync.h"
#include "team/team_table.h"

#define TAIL       0
#define NEXT       64
#define WAIT       128
#define LOCK_BYTES 192

struct shoal_lock {
    team_t *team;
    segment_t *seg;
    int32_t tail_rel; /* member whose TAIL word is this lock's tail */
    int held;         /* by this unit */
    struct shoal_lock *next_in_team;
};

static shoal_target_t word(const struct shoal_lock *l, int32_t rel, int offset) {
    shoal_target_t w = {l->seg, NULL, rel, offset};
    if (l->seg->direct[rel]) w.addr = l->seg->direct[rel] + offset;
    return w;
}

static shoal_err_t load(const struct shoal_lock *l, int32_t rel, int off, int64_t *v) {
    shoal_target_t w = word(l, rel, off);
    return shoal__amo(&w, AMO_LOAD, SHOAL_OP_SUM, SHOAL_INT64, NULL, NULL, v);
}

static shoal_err_t store(const struct shoal_lock *l, int32_t rel, int off, int64_t v) {
    shoal_target_t w = word(l, rel, off);
    return shoal__amo(&w, AMO_STORE, SHOAL_OP_SUM, SHOAL_INT64, &v, NULL, NULL);
}

static shoal_err_t check_lock(shoal_lock_t lock) {
    if (!lock || !lock->seg) return shoal__fail(SHOAL_ERR_INVAL, "NULL or destroyed lock");
    return SHOAL_OK;
}

shoal_err_t shoal_lock_create(shoal_team_t team, shoal_lock_t *lock) {
    SHOAL_ENTER("shoal_lock_create");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    if (!lock) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    struct shoal_lock *l = calloc(1, sizeof *l);
    int ok = l != NULL, all_ok = 0;
    SHOAL_MPI(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, t->comm));
    if (!all_ok) {
        free(l);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for a lock");
    }
    shoal_err_t err = shoal__segment_create(t, LOCK_BYTES, SEG_INTERNAL, &l->seg);
    if (err != SHOAL_OK) {
        free(l);
        return err;
    }
    /* Fresh shared memory is zero: the lock is free and nobody waits. */
    l->team = t;
    l->tail_rel = (int32_t)(t->locks_created++ % (uint32_t)t->size);
    l->next_in_team = t->locks;
    t->locks = l;
    *lock = l;
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
    SHOAL_TRY(check_lock(*lock));
    struct shoal_lock *l = *lock;
    if (l->held)
        return shoal__fail(SHOAL_ERR_STATE, "the lock is held by this unit: release it first");
    SHOAL_TRY(shoal__team_barrier(l->team)); /* nobody may still be queued */
    unlink_lock(l);
    shoal_err_t err = shoal__segment_free(l->seg);
    free(l);
    *lock = NULL;
    return err;
}

shoal_err_t shoal_lock_acquire(shoal_lock_t lock) {
    SHOAL_ENTER("shoal_lock_acquire");
    SHOAL_TRY(check_lock(lock));
    if (lock->held) return shoal__fail(SHOAL_ERR_STATE, "this unit already holds the lock");
    int32_t me = lock->team->myrel;
    SHOAL_TRY(store(lock, me, NEXT, 0));
    SHOAL_TRY(store(lock, me, WAIT, 1));
    int64_t pred = 0, self = me + 1;
    shoal_target_t tail = word(lock, lock->tail_rel, TAIL);
    SHOAL_TRY(shoal__amo(&tail, AMO_SWAP, SHOAL_OP_SUM, SHOAL_INT64, &self, NULL, &pred));
    if (pred != 0) {
        /* Queue behind pred and spin on my own WAIT word until pred hands over. */
        SHOAL_TRY(store(lock, (int32_t)pred - 1, NEXT, self));
        shoal_target_t mine = word(lock, me, WAIT);
        SHOAL_TRY(shoal__wait_word(&mine, SHOAL_CMP_EQ, 0, NULL));
    }
    lock->held = 1;
    return SHOAL_OK;
}

shoal_err_t shoal_lock_try_acquire(shoal_lock_t lock) {
    SHOAL_ENTER("shoal_lock_try_acquire");
    SHOAL_TRY(check_lock(lock));
    if (lock->held) return shoal__fail(SHOAL_ERR_STATE, "this unit already holds the lock");
    int32_t me = lock->team->myrel;
    SHOAL_TRY(store(lock, me, NEXT, 0));
    int64_t free_value = 0, self = me + 1, old = 0;
    shoal_target_t tail = word(lock, lock->tail_rel, TAIL);
    SHOAL_TRY(shoal__amo(&tail, AMO_CAS, SHOAL_OP_SUM, SHOAL_INT64, &self, &free_value, &old));
    if (old != 0) return SHOAL_ERR_BUSY; /* not a failure: nothing to report */
    lock->held = 1;
    return SHOAL_OK;
}

shoal_err_t shoal_lock_release(shoal_lock_t lock) {
    SHOAL_ENTER("shoal_lock_release");
    SHOAL_TRY(check_lock(lock));
    if (!lock->held) return shoal__fail(SHOAL_ERR_STATE, "this unit does not hold the lock");
    SHOAL_TRY(shoal__segments_flush(-1)); /* what I wrote under the lock is complete first */
    int32_t me = lock->team->myrel;
    int64_t next = 0, self = me + 1, none = 0, old = 0;
    SHOAL_TRY(load(lock, me, NEXT, &next));
    if (next == 0) {
        /* No known successor: if I am still the tail, the lock becomes free. */
        shoal_target_t tail = word(lock, lock->tail_rel, TAIL);
        SHOAL_TRY(shoal__amo(&tail, AMO_CAS, SHOAL_OP_SUM, SHOAL_INT64, &none, &self, &old));
        if (old == self) {
            lock->held = 0;
            return SHOAL_OK;
        }
        /* A successor swapped itself in but has not linked yet: wait for the link. */
        shoal_target_t mine = word(lock, me, NEXT);
        SHOAL_TRY(shoal__wait_word(&mine, SHOAL_CMP_NE, 0, (uint64_t *)&next));
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
        shoal_err_t e = l->seg ? shoal__segment_free(l->seg) : SHOAL_OK;
        if (err == SHOAL_OK) err = e;
        l->seg = NULL; /* the program's copy of the pointer now names a destroyed lock */
        free(l);
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
        free(l);
    }
}

void shoal__sync_finalize(void) {
    team_table_foreach(drop_locks);
}
