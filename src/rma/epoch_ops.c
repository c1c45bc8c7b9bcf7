/* An epoch's operations (docs/fence.md): shoal_put_nb / shoal_get_nb on an allocation with fence
 * state come here. What happens at issue is the design's: the deferred design queues, the
 * immediate ones move the data now (a copy on the direct path, MPI_Put/MPI_Get without a request
 * on the MPI path), and the notify design also adds one to the target's ARRIVED word once the
 * data is there. The fence (epoch/) completes the rest. */
#include <stdatomic.h>
#include <stdlib.h>

#include "epoch.h"
#include "rma.h"

/* Never changes: the origin buffer of outstanding MPI accumulates of 1 (an MPI origin buffer
 * must stay untouched until the operation completes, which a stack variable would not). */
static const uint64_t one = 1;

shoal_err_t shoal__epoch_ctrl_add(epoch_t *e, int32_t rel, size_t off, uint64_t delta, int flush) {
    shoal_target_t w = shoal__words_at(&e->ctrl, rel, off);
    if (w.seg->atomics_direct) {
        __atomic_fetch_add((uint64_t *)w.addr, delta, __ATOMIC_SEQ_CST);
        return SHOAL_OK;
    }
    if (delta != 1) flush = 1; /* only the constant 1 may stay outstanding */
    const uint64_t *src = flush ? &delta : &one;
    SHOAL_MPI(
        MPI_Accumulate(src, 1, MPI_UINT64_T, w.rank, w.disp, 1, MPI_UINT64_T, MPI_SUM, w.seg->win));
    if (flush)
        SHOAL_MPI(MPI_Win_flush(w.rank, w.seg->win));
    else
        shoal__segment_mark_dirty(w.seg);
    return SHOAL_OK;
}

shoal_err_t shoal__epoch_complete_to(epoch_t *e, segment_t *seg, int32_t rel) {
    (void)e;
    if (seg->direct[rel]) return SHOAL_OK; /* copies are complete when they return */
    SHOAL_MPI(MPI_Win_flush(rel, seg->win));
    return SHOAL_OK;
}

/* Moves the data now: complete on return on the direct path, outstanding on the MPI path until
 * its target is flushed. */
static shoal_err_t move_now(int is_put, void *local, const shoal_target_t *t, size_t n) {
    if (t->addr) {
        if (is_put) {
            shoal__copy_bytes(t->addr, local, n);
            atomic_thread_fence(memory_order_release);
        } else {
            atomic_thread_fence(memory_order_acquire);
            shoal__copy_bytes(local, t->addr, n);
        }
        return SHOAL_OK;
    }
    if (n > (size_t)1 << 30) /* beyond one MPI count: blocking */
        return is_put ? shoal__put(t, local, n) : shoal__get(local, t, n);
    int rc =
        is_put ? MPI_Put(local, (int)n, MPI_BYTE, t->rank, t->disp, (int)n, MPI_BYTE, t->seg->win)
               : MPI_Get(local, (int)n, MPI_BYTE, t->rank, t->disp, (int)n, MPI_BYTE, t->seg->win);
    if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, is_put ? "MPI_Put" : "MPI_Get");
    shoal__segment_mark_dirty(t->seg);
    return SHOAL_OK;
}

static shoal_err_t enqueue(epoch_t *e, int is_put, void *local, const shoal_target_t *t, size_t n) {
    shoal_err_t err = SHOAL_OK;
    pthread_mutex_lock(&e->queue_mu);
    if (e->nqueue == e->queue_cap) {
        size_t cap = e->queue_cap ? 2 * e->queue_cap : 64;
        epoch_op_t *q = realloc(e->queue, cap * sizeof *q);
        if (q) {
            e->queue = q;
            e->queue_cap = cap;
        } else {
            err = shoal__fail(SHOAL_ERR_NOMEM,
                              "out of host memory for the epoch's queue of %zu "
                              "deferred operations",
                              e->nqueue);
        }
    }
    if (err == SHOAL_OK) e->queue[e->nqueue++] = (epoch_op_t){*t, local, n, is_put};
    pthread_mutex_unlock(&e->queue_mu);
    return err;
}

/* First traffic to rel in this epoch lists it, so the fence visits only the members used. */
static void note_target(epoch_t *e, int32_t rel) {
    if (__atomic_fetch_add(&e->ops_to[rel], 1, __ATOMIC_RELAXED) == 0)
        e->touched[__atomic_fetch_add(&e->ntouched, 1, __ATOMIC_RELAXED)] = rel;
}

shoal_err_t shoal__epoch_issue(int is_put, void *local, const shoal_target_t *t, size_t n,
                               shoal_handle_t *handle) {
    epoch_t *e = t->seg->epoch;
    if (!e->open)
        return shoal__fail(SHOAL_ERR_STATE,
                           "no epoch is open on this allocation (its last shoal_epoch_fence "
                           "asserted SHOAL_EPOCH_NOSUCCEED): open one with shoal_epoch_fence");
    if (n == 0) {
        *handle = SHOAL_HANDLE_NULL;
        return SHOAL_OK;
    }
    switch (e->design) {
    case SHOAL_EPOCH_DEFERRED:
        SHOAL_TRY(enqueue(e, is_put, local, t, n));
        break;
    case SHOAL_EPOCH_IMM_NOTIFY:
        SHOAL_TRY(move_now(is_put, local, t, n));
        if (is_put) { /* the data first, complete at the target; then its notification */
            SHOAL_TRY(shoal__epoch_complete_to(e, t->seg, t->rank));
            SHOAL_TRY(shoal__epoch_ctrl_add(e, t->rank, EPOCH_OFF_ARRIVED, 1, 0));
            __atomic_fetch_add(&e->notes_to[t->rank], 1, __ATOMIC_RELAXED);
        }
        break;
    default:
        SHOAL_TRY(move_now(is_put, local, t, n));
        if (!is_put && !t->addr) __atomic_fetch_add(&e->mpi_gets, 1, __ATOMIC_RELAXED);
        break;
    }
    note_target(e, t->rank);
    *handle = SHOAL_HANDLE_NULL;
    return SHOAL_OK;
}

shoal_err_t shoal__epoch_deliver_queue(epoch_t *e) {
    for (size_t i = 0; i < e->nqueue; i++) {
        epoch_op_t *op = &e->queue[i];
        SHOAL_TRY(move_now(op->is_put, op->local, &op->target, op->nbytes));
    }
    return SHOAL_OK;
}

void shoal__epoch_reset_traffic(epoch_t *e) {
    for (uint32_t i = 0; i < e->ntouched; i++) {
        e->ops_to[e->touched[i]] = 0;
        e->notes_to[e->touched[i]] = 0;
    }
    e->ntouched = 0;
    e->nqueue = 0;
    e->mpi_gets = 0;
}
