/* shoal_epoch_fence and the four designs of the fence paper (docs/fence.md has one section per
 * design and the reasons for each step). A closing fence has two duties: (1) every operation of
 * the epoch is complete at its target before the target returns, (2) nothing of the next epoch
 * reaches a member before that member has returned. The designs differ in how they learn (1) and
 * how they provide (2):
 *   deferred     queue; exchange counts (one per origin); deliver; flag each target; wait.
 *                (2) comes free: the next epoch's operations wait in the queue until the next
 *                fence's count exchange, which needs every member there.
 *   imm_naive    operations went out at once; a finish flag to each target used; exchange counts;
 *                wait; then a flag to every other member, and wait for all of theirs.
 *   imm_barrier  the paper's imm_naive with a barrier for the pairwise flags; here the barrier
 *                alone, as its finish flags and counts say nothing it does not
 * (completes_at_barrier). imm_notify   every put adds 1 to its target's ARRIVED word once
 * complete (through MPI: later, rma/epoch_notify.c): send those not sent yet; exchange the
 * numbers of puts; wait; barrier. The count exchange is a sparse reduce-scatter: each
 * origin adds its contribution to the EXPECTED word of each target it used, then a barrier, then
 * each member takes its own word. On teams whose fences exchange messages (exchange.c), those
 * messages carry the counts, and their one round does what the barriers did (fence_by_round). */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "exchange.h"
#include "fence.h"
#include "rma/epoch.h"
#include "rma/epoch_copy.h"
#include "rma/rma.h"

#define ASSERTIONS_ALL (SHOAL_EPOCH_NOSTORE | SHOAL_EPOCH_NOPRECEDE | SHOAL_EPOCH_NOSUCCEED)

static const char *const design_names[] = {"auto", "deferred", "imm_naive", "imm_barrier",
                                           "imm_notify"};
#define NDESIGNS ((int)(sizeof design_names / sizeof *design_names))

const char *shoal_epoch_design_name(shoal_epoch_design_t design) {
    return (unsigned)design < (unsigned)NDESIGNS ? design_names[design] : "unknown";
}

/* auto: measured on this machine (docs/fence.md, results/fence.md): imm_barrier, which with
 * every member mapped, and through MPI as well (its barrier flushes first), is one barrier: the
 * least any fence can do. Through MPI (2 units) it took 0.35-0.85 us against deferred's 1.2-2.8
 * (MPICH), 0.61-2.9 against 0.84-9.8 (Open MPI), for no put and one put. */
static shoal_epoch_design_t resolve_auto(void) {
    return SHOAL_EPOCH_IMM_BARRIER;
}

/* imm_barrier: the finish messages and the count exchange would report nothing its barrier does
 * not already say. On an allocation every member maps each operation was a copy, complete (and
 * fenced) when its call returned; through MPI, the barrier starts by flushing every outstanding
 * operation (MPI_Win_flush to each member it went to: src/mem/segment.c, flush_members), and a
 * flush completes at the target (MPI 3.1 section 11.5.4), which RDMA completions, for which the
 * paper counts, do not. Its one barrier then carries both duties. */
static int completes_at_barrier(const epoch_t *e) {
    return e->design == SHOAL_EPOCH_IMM_BARRIER;
}

/* The designs whose whole fence is the exchange's round of messages on teams that exchange them:
 * imm_barrier, and imm_notify, whose counts the messages carry. Its two barriers and the count
 * exchange's adds cost about 115 us per fence between two nodes, where one round of messages
 * costs 11-12 (docs/fence.md, imm_notify, "Through the exchange"). */
static int fences_by_round(const epoch_t *e) {
    return completes_at_barrier(e) || (e->design == SHOAL_EPOCH_IMM_NOTIFY && e->exchange);
}

/* The barrier of a fence that completes there, and through MPI the sync that lets my loads see
 * what the others' operations wrote into my part (the unified model's memory barrier). */
static shoal_err_t fence_barrier(segment_t *seg) {
    SHOAL_TRY(shoal__coll_barrier(seg->team));
    if (!seg->atomics_direct) SHOAL_MPI(MPI_Win_sync(seg->win));
    return SHOAL_OK;
}

static shoal_err_t default_design(shoal_epoch_design_t *design) {
    const char *name = shoal__rt.epoch_design;
    if (!name || !*name) name = "auto";
    for (int d = 0; d < NDESIGNS; d++)
        if (!strcmp(name, design_names[d])) {
            *design = (shoal_epoch_design_t)d;
            return SHOAL_OK;
        }
    return shoal__fail(SHOAL_ERR_INVAL,
                       "SHOAL_EPOCH_DESIGN=%s is not a design (auto, deferred, imm_naive, "
                       "imm_barrier, imm_notify)",
                       name);
}

/* gp must name a symmetric allocation of a team I belong to. */
static shoal_err_t fence_segment(shoal_gptr_t gp, segment_t **seg) {
    return shoal__resolve_symmetric_member(gp, 0, "the fenced allocation", seg);
}

static void state_free(epoch_t *e) {
    if (!e) return;
    free(e->ops_to);
    free(e->notes_to);
    free(e->unsent_to);
    free(e->flushed_to);
    free(e->sent_vals);
    free(e->touched);
    free(e->queue);
    for (size_t i = 0; i < e->npacks; i++) free(e->packs[i]);
    free(e->packs);
    shoal__epoch_exchange_free(e);
    pthread_mutex_destroy(&e->queue_mu);
    free(e);
}

/* Collective over the allocation's team: its fence state, with design (AUTO resolved). */
static shoal_err_t state_create(segment_t *seg, shoal_epoch_design_t design) {
    team_t *t = seg->team;
    epoch_t *e = calloc(1, sizeof *e);
    if (e) {
        pthread_mutex_init(&e->queue_mu, NULL);
        e->ops_to = calloc((size_t)t->size, sizeof *e->ops_to);
        e->notes_to = calloc((size_t)t->size, sizeof *e->notes_to);
        e->unsent_to = calloc((size_t)t->size, sizeof *e->unsent_to);
        e->flushed_to = calloc((size_t)t->size, sizeof *e->flushed_to);
        e->sent_vals = calloc((size_t)t->size, sizeof *e->sent_vals);
        e->touched = calloc((size_t)t->size, sizeof *e->touched);
        e->seg = seg;
    }
    shoal_err_t mine = SHOAL_OK;
    if (!e || !e->ops_to || !e->notes_to || !e->unsent_to || !e->flushed_to || !e->sent_vals ||
        !e->touched)
        mine = shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for the fence state");
    shoal_err_t err = shoal__team_agree(t, mine, 0, "");
    if (err == SHOAL_OK) err = shoal__words_create(t, shoal__epoch_ctrl_bytes(t->size), &e->ctrl);
    if (err == SHOAL_OK) err = shoal__epoch_exchange_decide(e, seg);
    if (err != SHOAL_OK) {
        state_free(e);
        return err;
    }
    shoal__epoch_set_design(e, design == SHOAL_EPOCH_AUTO ? resolve_auto() : design);
    seg->epoch = e;
    return SHOAL_OK;
}

/* The copy thread's copies of the closing epoch (SHOAL_EPOCH_COPY_THREAD) are done before any
 * step of a fence: every design then finds the epoch as if its caller had copied. */
static inline void drain_copies(epoch_t *e) {
    if (shoal__epoch_copy_pending(e)) shoal__epoch_copy_drain(e);
}

void shoal__epoch_release(segment_t *seg, int collective) {
    epoch_t *e = seg->epoch;
    if (!e) return;
    /* (An unsettled fence leaves nothing in flight: every member has finished it before it
     * joins this collective free.) */
    __atomic_store_n(&seg->unsettled, NULL, __ATOMIC_RELEASE);
    seg->epoch = NULL;
    if (e->nqueue)
        shoal__warn("an allocation was freed with %zu deferred operations of an open epoch that no "
                    "fence completed: they were dropped",
                    e->nqueue);
    drain_copies(e);               /* the copy thread is done with its memory */
    shoal__epoch_notify_forget(e); /* the progress thread lets go of it first */
    /* Collective: every member is in this free, past the allocation's last fence: nobody touches
     * the words any more. At finalize the pool may be gone already. */
    shoal__words_release(&e->ctrl, collective);
    state_free(e);
}

/* ---- The steps the designs are made of --------------------------------------------------------
 */

static shoal_target_t my_word(epoch_t *e, size_t off) {
    return shoal__words_at(&e->ctrl, e->ctrl.team->myrel, off);
}

/* Sparse reduce-scatter: my contribution to each member I used (1, or the puts I notified it of),
 * a barrier, then my own total, taken and reset in one swap. The slots alternate between
 * exchanges: a fast member's next exchange cannot meet my reading of this one, since the next
 * exchange's barrier needs me. */
static shoal_err_t exchange_counts(epoch_t *e, int count_notes) {
    size_t slot = EPOCH_OFF_EXPECTED + 8 * (size_t)(e->exchanges & 1);
    for (uint32_t i = 0; i < e->ntouched; i++) {
        int32_t r = e->touched[i];
        uint64_t v = count_notes ? e->notes_to[r] : 1;
        if (v) SHOAL_TRY(shoal__epoch_ctrl_add(e, r, slot, v, 1));
    }
    SHOAL_TRY(shoal__coll_barrier(e->ctrl.team));
    shoal_target_t w = my_word(e, slot);
    uint64_t zero = 0, mine = 0;
    SHOAL_TRY(shoal__amo(&w, AMO_SWAP, SHOAL_OP_SUM, SHOAL_UINT64, &zero, NULL, &mine));
    e->expected_total += mine;
    e->exchanges++;
    return SHOAL_OK;
}

/* Until every operation aimed at me has reported (ARRIVED reaches the total I was told). */
static shoal_err_t wait_arrivals(epoch_t *e, segment_t *seg) {
    if (shoal__rt.epoch_test_skip_ordering) return SHOAL_OK; /* the deferred design's fault */
    shoal_target_t w = my_word(e, EPOCH_OFF_ARRIVED);
    SHOAL_TRY(shoal__wait_word(&w, SHOAL_CMP_GE, e->expected_total, NULL));
    /* MPI wrote my part: where MPI and my plain loads meet, the unified model asks for a sync. */
    if (!seg->atomics_direct) SHOAL_MPI(MPI_Win_sync(seg->win));
    return SHOAL_OK;
}

/* Each member I used: my operations to it complete there (MPI path), then, with flag, one added
 * to its ARRIVED word (the finish message of the immediate designs, the deferred design's flag on
 * its last operation). */
static shoal_err_t complete_targets(epoch_t *e, segment_t *seg, int flag) {
    for (uint32_t i = 0; i < e->ntouched; i++) {
        int32_t r = e->touched[i];
        SHOAL_TRY(shoal__epoch_complete_to(e, seg, r));
        if (flag) SHOAL_TRY(shoal__epoch_ctrl_add(e, r, EPOCH_OFF_ARRIVED, 1, 1));
    }
    return SHOAL_OK;
}

/* Duty (2) for the immediate designs: nobody starts the next epoch before everybody finished
 * this fence. The naive design says so to every other member; the others use a barrier. */
static shoal_err_t start_next_epoch(epoch_t *e) {
    team_t *t = e->ctrl.team;
    if (e->design == SHOAL_EPOCH_DEFERRED) return SHOAL_OK;
    if (e->design != SHOAL_EPOCH_IMM_NAIVE) return shoal__coll_barrier(t);
    uint64_t starts = ++e->fences;
    SHOAL_TRY(shoal__segments_flush(-1)); /* my operations are complete before I say so */
    for (int32_t j = 0; j < t->size; j++)
        if (j != t->myrel)
            SHOAL_TRY(shoal__epoch_ctrl_add(e, j, EPOCH_OFF_FLAGS + 8 * (size_t)t->myrel, 1, 1));
    for (int32_t j = 0; j < t->size; j++) {
        if (j == t->myrel) continue;
        shoal_target_t w = my_word(e, EPOCH_OFF_FLAGS + 8 * (size_t)j);
        SHOAL_TRY(shoal__wait_word(&w, SHOAL_CMP_GE, starts, NULL));
    }
    return SHOAL_OK;
}

/* Duty (1), by design. */
static shoal_err_t close_epoch(epoch_t *e, segment_t *seg) {
    switch (e->design) {
    case SHOAL_EPOCH_DEFERRED:
        SHOAL_TRY(exchange_counts(e, 0));
        SHOAL_TRY(shoal__epoch_deliver_queue(e));
        SHOAL_TRY(complete_targets(e, seg, 1));
        break;
    case SHOAL_EPOCH_IMM_NOTIFY:
        SHOAL_TRY(shoal__epoch_notify_send_all(e)); /* those the progress thread did not send */
        SHOAL_TRY(complete_targets(e, seg, 0));     /* the gets on the MPI path */
        SHOAL_TRY(exchange_counts(e, 1));           /* its barrier flushes the notifications */
        break;
    default: /* imm_naive (imm_barrier completes at its barrier: completes_at_barrier) */
        SHOAL_TRY(complete_targets(e, seg, 1));
        SHOAL_TRY(exchange_counts(e, 0));
        break;
    }
    return wait_arrivals(e, seg);
}

/* An epoch declared empty (NOPRECEDE) in which I did issue operations: they are completed all
 * the same, without telling the targets (who do not wait), and the notify design takes its
 * notifications back so the targets' counts stay exact. */
static shoal_err_t complete_undeclared(epoch_t *e, segment_t *seg) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < e->ntouched; i++) n += e->ops_to[e->touched[i]];
    if (e->nqueue) SHOAL_TRY(shoal__epoch_deliver_queue(e));
    SHOAL_TRY(complete_targets(e, seg, 0));
    if (e->design == SHOAL_EPOCH_IMM_NOTIFY) {
        SHOAL_TRY(shoal__epoch_notify_send_all(e)); /* all of them go, to be undone below */
        SHOAL_TRY(shoal__segments_flush(-1)); /* the notifications land before they are undone */
        for (uint32_t i = 0; i < e->ntouched; i++) {
            int32_t r = e->touched[i];
            if (e->notes_to[r])
                SHOAL_TRY(shoal__epoch_ctrl_add(e, r, EPOCH_OFF_ARRIVED,
                                                (uint64_t) - (int64_t)e->notes_to[r], 1));
        }
    }
    shoal__epoch_reset_traffic(e);
    return shoal__fail(SHOAL_ERR_STATE,
                       "the fence asserted SHOAL_EPOCH_NOPRECEDE (an empty epoch), but this unit "
                       "issued operations in it (at least %u); they were completed anyway",
                       n);
}

/* A fence by the exchange (fences_by_round). imm_notify's notifications through MPI ride in the
 * messages: a put's data is complete at its target before my message leaves (the exchange's
 * flush), so the message itself can say that it arrived, where an add of its own would cost a
 * second round trip (flush the data, then the add). What stays counted in ARRIVED is the adds
 * that were made, a node mate's after each copy: each message (a mate's NOTES word) tells its
 * target how many, and the target waits for them as below. They are there by then (made before
 * the mate's ENTERED word); the wait keeps ARRIVED and the totals in step for the fences that
 * follow, whatever their design. */
static shoal_err_t fence_exchange(epoch_t *e, segment_t *seg) {
    drain_copies(e);
    if (e->design == SHOAL_EPOCH_IMM_NOTIFY && e->ntouched) shoal__epoch_notify_take_unsent(e);
    uint64_t notes = 0;
    SHOAL_TRY(shoal__epoch_exchange(e, seg, &notes));
    if (!notes) return SHOAL_OK; /* (the exchange synced my window for the data already) */
    e->expected_total += notes;
    return wait_arrivals(e, seg);
}

/* The fault SHOAL_EPOCH_TEST_SKIP_ORDERING for the immediate designs: the fence of the paper's
 * figure 2, which they exist to avoid: a barrier, and nothing that completes the epoch's
 * operations at their targets first (nothing is flushed, no finish message, no count). On a
 * network whose barrier can overtake data, the data arrives after the fence. (On one machine both
 * MPIs' channels are first-in first-out: even raw MPI_Put then MPI_Barrier never showed it.) */
static shoal_err_t fence_by_barrier_only(epoch_t *e, segment_t *seg, int opens) {
    if (e->nqueue) SHOAL_TRY(shoal__epoch_deliver_queue(e)); /* imm_barrier's small puts go */
    shoal__epoch_reset_traffic(e);
    e->open = opens;
    if (MPI_Barrier(seg->team->comm) != MPI_SUCCESS)
        return shoal__fail(SHOAL_ERR_MPI, "MPI_Barrier");
    return SHOAL_OK;
}

/* ---- Public calls ------------------------------------------------------------------------------
 */

static shoal_err_t fence_general(segment_t *seg, shoal_err_t mine, int assertions);

shoal_err_t shoal_epoch_fence(shoal_gptr_t alloc, int assertions) {
    SHOAL_ENTER("shoal_epoch_fence");
    segment_t *seg = NULL;
    shoal_err_t mine = fence_segment(alloc, &seg);
    /* The common case on one node, kept short (a fence in a halo loop is latency-bound): no
     * assertions, no checking, and a design whose fence is its barrier alone. */
    epoch_t *e = seg ? seg->epoch : NULL;
    if (__builtin_expect(mine == SHOAL_OK && assertions == 0 && e && fences_by_round(e) &&
                             !shoal__rt.check_collectives && !shoal__rt.epoch_test_skip_ordering,
                         1)) {
        e->fenced = 1;
        e->open = 1;
        if (e->exchange) { /* small teams through MPI: messages carry the small puts */
            shoal_err_t err = fence_exchange(e, seg);
            if (e->ntouched) shoal__epoch_reset_traffic(e);
            return err;
        }
        if (e->ntouched) {
            drain_copies(e);
            if (e->nqueue) SHOAL_TRY(shoal__epoch_deliver_queue(e)); /* small puts, combined */
            shoal__epoch_reset_traffic(e);
        }
        return fence_barrier(seg);
    }
    return fence_general(seg, mine, assertions);
}

/* Every other fence: first fences, assertions, the designs that close epochs, checking. */
static shoal_err_t fence_general(segment_t *seg, shoal_err_t mine, int assertions) {
    if (mine == SHOAL_OK && (assertions & ~ASSERTIONS_ALL))
        mine = shoal__fail(SHOAL_ERR_INVAL,
                           "unknown assertion bits 0x%x (SHOAL_EPOCH_NOSTORE, "
                           "_NOPRECEDE, _NOSUCCEED)",
                           (unsigned)(assertions & ~ASSERTIONS_ALL));
    if (!seg) return mine; /* no allocation: no team to agree with */
    /* Like the collectives: every member's verdict and arguments agree only when checked. */
    if (shoal__rt.check_collectives)
        SHOAL_TRY(shoal__team_agree(seg->team, mine,
                                    (uint64_t)assertions << 32 | (uint64_t)seg->id << 16 | seg->gen,
                                    "fence assertions or allocations"));
    else
        SHOAL_TRY(mine);
    if (!seg->epoch) {
        shoal_epoch_design_t d = SHOAL_EPOCH_AUTO;
        shoal_err_t derr = default_design(&d);
        SHOAL_TRY(shoal__team_agree(seg->team, derr, (uint64_t)d, "SHOAL_EPOCH_DESIGN values"));
        SHOAL_TRY(state_create(seg, d));
    }
    epoch_t *e = seg->epoch;
    drain_copies(e);
    e->fenced = 1; /* from now on the allocation's non-blocking operations are epoch operations */
    int opens = !(assertions & SHOAL_EPOCH_NOSUCCEED);
    int precedes = e->open && !(assertions & SHOAL_EPOCH_NOPRECEDE);
    /* The last fence's round 2 (epoch/exchange.c) is in before anything here moves data through
     * MPI; a plain exchange takes it in itself, after its round 1. */
    int plain_exchange = fences_by_round(e) && e->exchange && (precedes || opens) &&
                         !(e->open && !precedes && e->ntouched) &&
                         !shoal__rt.epoch_test_skip_ordering;
    if (!plain_exchange) SHOAL_TRY(shoal__settle(seg));
    if (shoal__rt.epoch_test_skip_ordering && e->design != SHOAL_EPOCH_DEFERRED)
        return fence_by_barrier_only(e, seg, opens);
    shoal_err_t err = SHOAL_OK;
    if (fences_by_round(e)) {
        if (e->open && !precedes && e->ntouched)
            err = complete_undeclared(e, seg);
        else if (e->open && e->ntouched && e->nqueue && !e->exchange)
            err = shoal__epoch_deliver_queue(e);
        if (err != SHOAL_OK && err != SHOAL_ERR_STATE) { /* MPI failed: give up */
            shoal__epoch_reset_traffic(e);
            return err;
        }
        if (precedes || opens) { /* the exchange carries the queue, so it is reset after */
            shoal_err_t e2 = e->exchange ? fence_exchange(e, seg) : fence_barrier(seg);
            if (err == SHOAL_OK) err = e2;
        }
        shoal__epoch_reset_traffic(e);
        e->open = opens;
        return err;
    }
    if (e->open) {
        if (precedes)
            err = close_epoch(e, seg);
        else if (e->ntouched)
            err = complete_undeclared(e, seg); /* reported; the fence goes on */
        shoal__epoch_reset_traffic(e);
        if (err != SHOAL_OK && err != SHOAL_ERR_STATE) return err; /* MPI failed: give up */
    }
    if (opens) {
        /* After a full close the deferred design needs nothing more; an opening fence of any
         * immediate design needs everybody at the fence before the first operation flies. */
        shoal_err_t e2 = start_next_epoch(e);
        if (err == SHOAL_OK) err = e2;
    }
    e->open = opens;
    return err;
}

shoal_err_t shoal_epoch_set_design(shoal_gptr_t alloc, shoal_epoch_design_t design) {
    SHOAL_ENTER("shoal_epoch_set_design");
    segment_t *seg = NULL;
    SHOAL_TRY(fence_segment(alloc, &seg));
    shoal_err_t mine = SHOAL_OK;
    if ((unsigned)design >= (unsigned)NDESIGNS)
        mine = shoal__fail(SHOAL_ERR_INVAL, "%d is not a fence design", (int)design);
    else if (seg->epoch && seg->epoch->open)
        mine = shoal__fail(SHOAL_ERR_STATE,
                           "an epoch is open on this allocation: change the design before its "
                           "first fence or after a fence with SHOAL_EPOCH_NOSUCCEED");
    /* Rare and collective: always agreed, so different designs never meet in one fence. */
    SHOAL_TRY(shoal__team_agree(seg->team, mine, (uint64_t)design, "fence designs"));
    if (!seg->epoch) return state_create(seg, design);
    shoal__epoch_flush_reset(seg->epoch);
    shoal__epoch_set_design(seg->epoch, design == SHOAL_EPOCH_AUTO ? resolve_auto() : design);
    return SHOAL_OK;
}

shoal_err_t shoal_epoch_get_design(shoal_gptr_t alloc, shoal_epoch_design_t *design) {
    SHOAL_ENTER("shoal_epoch_get_design");
    if (!design) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    segment_t *seg = NULL;
    SHOAL_TRY(fence_segment(alloc, &seg));
    *design = seg->epoch ? seg->epoch->design : SHOAL_EPOCH_AUTO;
    return SHOAL_OK;
}
