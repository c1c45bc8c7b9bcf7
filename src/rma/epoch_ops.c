/* An epoch's operations (docs/fence.md): shoal_put_nb / shoal_get_nb on an allocation with fence
 * state come here. What happens at issue is the design's: the deferred design queues, the
 * immediate ones move the data now (a copy on the direct path, MPI_Put/MPI_Get without a request
 * on the MPI path), and the notify design also adds one to the target's ARRIVED word once the
 * data is there. The fence (epoch/) completes the rest. */
#define _GNU_SOURCE /* qsort_r */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "epoch.h"
#include "epoch_copy.h"
#include "rma.h"

/* Never changes: the origin buffer of outstanding MPI accumulates of 1 (an MPI origin buffer
 * must stay untouched until the operation completes, which a stack variable would not). */
static const uint64_t one = 1;

shoal_err_t shoal__epoch_ctrl_add_from(epoch_t *e, int32_t rel, size_t off, const uint64_t *src,
                                       int flush) {
    shoal_target_t w = shoal__words_at(&e->ctrl, rel, off);
    if (w.seg->atomics_direct) {
        __atomic_fetch_add((uint64_t *)w.addr, *src, __ATOMIC_SEQ_CST);
        return SHOAL_OK;
    }
    SHOAL_MPI(
        MPI_Accumulate(src, 1, MPI_UINT64_T, w.rank, w.disp, 1, MPI_UINT64_T, MPI_SUM, w.seg->win));
    if (flush)
        SHOAL_MPI(MPI_Win_flush(w.rank, w.seg->win));
    else
        shoal__segment_mark_dirty(w.seg, w.rank);
    return SHOAL_OK;
}

shoal_err_t shoal__epoch_ctrl_add(epoch_t *e, int32_t rel, size_t off, uint64_t delta, int flush) {
    if (delta != 1) flush = 1; /* only the constant 1 may stay outstanding */
    return shoal__epoch_ctrl_add_from(e, rel, off, flush ? &delta : &one, flush);
}

shoal_err_t shoal__epoch_complete_to(epoch_t *e, segment_t *seg, int32_t rel) {
    (void)e;
    if (seg->direct[rel]) return SHOAL_OK; /* copies are complete when they return */
    SHOAL_MPI(MPI_Win_flush(rel, seg->win));
    return SHOAL_OK;
}

void shoal__epoch_set_design(epoch_t *e, shoal_epoch_design_t design) {
    e->design = design;
    e->plain_design = (design == SHOAL_EPOCH_IMM_BARRIER || design == SHOAL_EPOCH_IMM_NAIVE) &&
                      !shoal__epoch_copy_running();
}

/* The copy of an immediate design's operation to a mapped member handed to the copy thread
 * (epoch_copy.h), with the notify design's notification when arrived is not NULL; 0: the caller
 * copies. */
static int copy_later(epoch_t *e, int is_put, void *local, const shoal_target_t *t, size_t n,
                      uint64_t *arrived) {
    return is_put ? shoal__epoch_copy_later(e, t->addr, local, n, arrived)
                  : shoal__epoch_copy_later(e, local, t->addr, n, NULL);
}

/* The notify design's ARRIVED word of member rel when the copy thread may add to it (a CPU atomic
 * on memory mapped here), else NULL. */
static uint64_t *arrived_word(epoch_t *e, int32_t rel) {
    shoal_target_t w = shoal__words_at(&e->ctrl, rel, EPOCH_OFF_ARRIVED);
    return w.seg->atomics_direct && w.addr ? (uint64_t *)w.addr : NULL;
}

/* Moves the data now: complete on return on the direct path, outstanding on the MPI path until
 * its target is flushed. */
static shoal_err_t move_now(int is_put, void *local, const shoal_target_t *t, size_t n) {
    if (t->addr) {
        shoal__copy_ordered(is_put, local, t->addr, n);
        return SHOAL_OK;
    }
    SHOAL_TRY(shoal__settle(t->seg)); /* the target has finished the last fence's copies */
    if (n > (size_t)1 << 30)          /* beyond one MPI count: blocking */
        return is_put ? shoal__put(t, local, n) : shoal__get(local, t, n);
    int rc =
        is_put ? MPI_Put(local, (int)n, MPI_BYTE, t->rank, t->disp, (int)n, MPI_BYTE, t->seg->win)
               : MPI_Get(local, (int)n, MPI_BYTE, t->rank, t->disp, (int)n, MPI_BYTE, t->seg->win);
    if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, is_put ? "MPI_Put" : "MPI_Get");
    shoal__segment_mark_dirty(t->seg, t->rank);
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

/* Carried puts are packed into the fence's messages, a copy of each: at most CARRY_TOTAL bytes
 * per epoch, the rest go out at once (so a message never outgrows one MPI count either). Whether
 * n more bytes may wait. */
#define CARRY_TOTAL ((size_t)64 << 20)
static int carry_room(epoch_t *e, size_t n) {
    size_t had = __atomic_fetch_add(&e->carried_bytes, n, __ATOMIC_RELAXED);
    return had + n <= CARRY_TOTAL;
}

/* Whether imm_barrier's put through MPI of n bytes to t waits for the fence. With the exchange,
 * puts to another node wait up to SHOAL_EPOCH_CARRY bytes: over TCP one message beat MPI_Put and
 * its flush up to 128 KiB and more. To my own node (MPI through shared memory) they do not: there
 * MPI_Put copies once, and a message's packing and unpacking cost more from 16 KiB (a 128 KiB
 * halo 1.5-2.7x slower). */
static int waits_for_fence(epoch_t *e, const shoal_target_t *t, size_t n) {
    if (!e->exchange || t->seg->team->node_rank_of_rel[t->rank] >= 0)
        return n <= shoal__rt.epoch_combine;
    return n <= shoal__rt.epoch_carry && carry_room(e, n);
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
        if (!t->addr && is_put && e->exchange && n <= shoal__rt.epoch_combine && carry_room(e, n)) {
            /* A small put through MPI travels in the fence's message to its target, which is its
             * notification too: data and notice arrive together, as an RDMA write with immediate
             * does, where a put on its own needs its flush's round trip before the fence's
             * message can leave (50-57 us against 11-13 for an epoch of one small put between
             * two nodes). It has no overlap to give. */
            SHOAL_TRY(enqueue(e, is_put, local, t, n));
            break;
        }
        if (t->addr && shoal__rt.epoch_copy_thread && n >= shoal__rt.epoch_copy_thread) {
            /* the copy thread copies, then notifies (where its add can be a CPU atomic) */
            uint64_t *arrived = is_put ? arrived_word(e, t->rank) : NULL;
            if ((arrived || !is_put) && copy_later(e, is_put, local, t, n, arrived)) {
                if (is_put) __atomic_fetch_add(&e->notes_to[t->rank], 1, __ATOMIC_RELAXED);
                break;
            }
        }
        SHOAL_TRY(move_now(is_put, local, t, n));
        if (!is_put) break;
        if (t->addr) /* a copy, complete at the target: its notification now */
            SHOAL_TRY(shoal__epoch_ctrl_add(e, t->rank, EPOCH_OFF_ARRIVED, 1, 0));
        else /* through MPI: the notification waits until the data is complete */
            shoal__epoch_notify_later(e, t->rank);
        __atomic_fetch_add(&e->notes_to[t->rank], 1, __ATOMIC_RELAXED);
        break;
    default:
        /* imm_barrier: a small put through MPI waits for the fence, which sends a target's small
         * puts combined before its barrier (no overlap lost: a small put has none to give), or,
         * on a team whose fences exchange messages, in its message to the target */
        if (!t->addr && is_put && e->design == SHOAL_EPOCH_IMM_BARRIER && waits_for_fence(e, t, n))
            SHOAL_TRY(enqueue(e, is_put, local, t, n));
        else if (t->addr && copy_later(e, is_put, local, t, n, NULL))
            ; /* the copy thread copies it while the program computes */
        else {
            SHOAL_TRY(move_now(is_put, local, t, n));
            if (!t->addr) shoal__epoch_flush_later(e, t->rank); /* the progress thread moves it */
        }
        break;
    }
    shoal__epoch_note_target(e, t->rank);
    *handle = SHOAL_HANDLE_NULL;
    return SHOAL_OK;
}

/* ---- Combining (the deferred and imm_barrier designs, MPI path) ----
 * A target's small queued puts are packed into one buffer in target order, pieces that meet at
 * the target merged, and go as one plain MPI_Put per piece, or, from COMBINE_INDEXED_MIN pieces,
 * as one MPI_Put with an indexed target datatype. Per call, MPI costs far more than packing a few
 * hundred bytes (the paper's "certain optimizations" of a deferred design; imm_barrier queues its
 * small puts for the same reason: they have no overlap to lose).
 * Only puts through MPI of at most SHOAL_EPOCH_COMBINE bytes are combined, and only when no two of
 * the run overlap at the target (MPI leaves overlapping entries of one datatype undefined; the
 * run is then delivered one by one, as before). */

#define COMBINE_RUN_MAX ((size_t)1 << 30)
/* Pieces (after merging) from which a run goes as one put with an indexed datatype rather than
 * one plain put per piece: creating, committing and freeing the datatype cost Open MPI 4.1 about
 * 0.4 us each time (2 units, MPI path: 8 puts of 16 B in 4 pieces took 2.7-3.1 us as two indexed
 * puts against 1.9-2.0 as eight plain ones), while 64 puts of 8 B in one piece went from 6.9-7.5
 * to 4.5-5.2 us (MPICH: 44-46 to 6.1-6.4). */
#define COMBINE_INDEXED_MIN 8

/* Queue indices ordered by target, issue order kept within one target. */
static int by_target_then_issue(const void *x, const void *y, void *ctx) {
    const epoch_op_t *q = ctx;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    if (q[i].target.rank != q[j].target.rank) return q[i].target.rank < q[j].target.rank ? -1 : 1;
    return i < j ? -1 : i > j;
}

static int by_disp(const void *x, const void *y) {
    const epoch_op_t *a = *(epoch_op_t *const *)x, *b = *(epoch_op_t *const *)y;
    return a->target.disp < b->target.disp ? -1 : a->target.disp > b->target.disp;
}

static int combinable(const epoch_op_t *op) {
    return op->is_put && !op->target.addr && op->nbytes <= shoal__rt.epoch_combine;
}

/* Keeps a packed buffer until the next delivery (MPI may read it until the fence completes the
 * put: after reset_traffic, in imm_barrier's barrier). */
static shoal_err_t keep_pack(epoch_t *e, void *pack) {
    if (e->npacks == e->packs_cap) {
        size_t cap = e->packs_cap ? 2 * e->packs_cap : 8;
        void **v = realloc(e->packs, cap * sizeof *v);
        if (!v) {
            free(pack);
            return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for a combined delivery");
        }
        e->packs = v;
        e->packs_cap = cap;
    }
    e->packs[e->npacks++] = pack;
    return SHOAL_OK;
}

/* Delivers run[0..n) (puts to one target, issue order) packed; *alone = 1 (nothing sent) when
 * the run overlaps itself at the target, or merges into no fewer pieces than it has and is too
 * short for a datatype: the caller then sends each as it is. */
static shoal_err_t put_combined(epoch_t *e, epoch_op_t **run, size_t n, int *alone) {
    epoch_op_t **sorted = malloc(n * sizeof *sorted);
    MPI_Aint *disp = malloc(n * sizeof *disp);
    int *len = malloc(n * sizeof *len);
    char *pack = NULL;
    shoal_err_t err = SHOAL_OK;
    *alone = 1;
    if (!sorted || !disp || !len) {
        err = shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for a combined delivery");
        goto out;
    }
    /* In target order, so that adjacent pieces merge and an overlap shows as a neighbour's. */
    memcpy(sorted, run, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, by_disp);
    size_t nb = 0, total = 0;
    for (size_t i = 0; i < n; i++) {
        const epoch_op_t *op = sorted[i];
        MPI_Aint d = (MPI_Aint)op->target.disp;
        if (nb && d < disp[nb - 1] + len[nb - 1]) goto out; /* overlaps */
        total += op->nbytes;
        if (nb && d == disp[nb - 1] + len[nb - 1]) {
            len[nb - 1] += (int)op->nbytes;
        } else {
            disp[nb] = d;
            len[nb++] = (int)op->nbytes;
        }
    }
    if (nb == n && nb < COMBINE_INDEXED_MIN) goto out; /* nothing to gain */
    pack = malloc(total);
    if (!pack) {
        err = shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for a combined delivery");
        goto out;
    }
    for (size_t i = 0, at = 0; i < n; at += sorted[i]->nbytes, i++)
        shoal__copy(pack + at, sorted[i]->local, sorted[i]->nbytes);
    *alone = 0;
    const shoal_target_t *t = &run[0]->target;
    int rc = MPI_SUCCESS;
    if (nb < COMBINE_INDEXED_MIN) { /* a few pieces: one plain put each, from the packed data */
        size_t from = 0;
        for (size_t b = 0; b < nb && rc == MPI_SUCCESS; from += (size_t)len[b], b++)
            rc = MPI_Put(pack + from, len[b], MPI_BYTE, t->rank, disp[b], len[b], MPI_BYTE,
                         t->seg->win);
    } else {
        MPI_Datatype where = MPI_DATATYPE_NULL;
        rc = MPI_Type_create_hindexed((int)nb, len, disp, MPI_BYTE, &where);
        if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&where);
        if (rc == MPI_SUCCESS) /* displacements are absolute bytes: target_disp 0, unit 1 */
            rc = MPI_Put(pack, (int)total, MPI_BYTE, t->rank, 0, 1, where, t->seg->win);
        if (where != MPI_DATATYPE_NULL) MPI_Type_free(&where); /* MPI keeps it for the put */
    }
    if (rc != MPI_SUCCESS) {
        err = shoal__mpi_fail(rc, "MPI_Put (combined)");
        goto out;
    }
    shoal__segment_mark_dirty(t->seg, t->rank);
    err = keep_pack(e, pack);
    pack = NULL;
out:
    free(pack);
    free(sorted);
    free(disp);
    free(len);
    return err;
}

shoal_err_t shoal__epoch_deliver_queue(epoch_t *e) {
    /* The last fence's packed buffers: complete by now (the deferred design flushes its targets,
     * imm_barrier's barrier flushes everything, both before they return), so free. */
    for (size_t i = 0; i < e->npacks; i++) free(e->packs[i]);
    e->npacks = 0;
    size_t n = e->nqueue;
    size_t *order = n > 1 && shoal__rt.epoch_combine ? malloc(n * sizeof *order) : NULL;
    epoch_op_t **run = order ? malloc(n * sizeof *run) : NULL;
    if (!order || !run) { /* nothing to combine (or no memory for it): one by one, issue order */
        free(order);
        free(run);
        for (size_t i = 0; i < n; i++) {
            epoch_op_t *op = &e->queue[i];
            SHOAL_TRY(move_now(op->is_put, op->local, &op->target, op->nbytes));
        }
        return SHOAL_OK;
    }
    for (size_t i = 0; i < n; i++) order[i] = i;
    qsort_r(order, n, sizeof *order, by_target_then_issue, e->queue);
    shoal_err_t err = SHOAL_OK;
    for (size_t i = 0; i < n && err == SHOAL_OK;) {
        /* a target's operations, issue order: runs of combinable puts, the rest one by one */
        epoch_op_t *op = &e->queue[order[i]];
        size_t k = 0, bytes = 0; /* a run's bytes stay within one MPI count */
        while (i + k < n && combinable(&e->queue[order[i + k]]) &&
               e->queue[order[i + k]].target.rank == op->target.rank &&
               bytes + e->queue[order[i + k]].nbytes <= COMBINE_RUN_MAX) {
            bytes += e->queue[order[i + k]].nbytes;
            run[k] = &e->queue[order[i + k]], k++;
        }
        int alone = 1;
        if (k >= 2) err = put_combined(e, run, k, &alone);
        if (err != SHOAL_OK) break;
        if (!alone) {
            i += k;
            continue;
        }
        size_t m = k ? k : 1; /* one by one: a run not worth combining, or not a small put */
        for (size_t j = 0; j < m && err == SHOAL_OK; j++) {
            epoch_op_t *o = &e->queue[order[i + j]];
            err = move_now(o->is_put, o->local, &o->target, o->nbytes);
        }
        i += m;
    }
    free(order);
    free(run);
    return err;
}

void shoal__epoch_reset_traffic(epoch_t *e) {
    for (uint32_t i = 0; i < e->ntouched; i++) {
        e->ops_to[e->touched[i]] = 0;
        e->notes_to[e->touched[i]] = 0;
    }
    e->ntouched = 0;
    e->nqueue = 0;
    e->carried_bytes = 0;
}
