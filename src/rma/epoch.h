/* The fence state of an allocation (docs/fence.md): what its epochs' operations left to do. The
 * operations are issued here in rma/ (shoal_put_nb / shoal_get_nb land in shoal__epoch_issue);
 * the fences that complete them are collective and live in epoch/. */
#ifndef SHOAL_RMA_EPOCH_H
#define SHOAL_RMA_EPOCH_H

#include <pthread.h>

#include "mem/resolve.h"
#include "mem/words.h"

/* The control words of one member (epoch->ctrl, a block of its pool), in bytes:
 * EXPECTED[2]  operations (or origins) that will reach this member, added by the origins in a
 *              fence's count exchange; two slots by parity of the exchange, read and reset by
 *              their owner;
 * ARRIVED      notifications and finish flags that did reach it, cumulative, never reset;
 * FLAGS[size]  the pairwise "next epoch may start" flags of the naive design, one per member,
 *              each holding the number of the last fence its writer finished. */
#define EPOCH_OFF_EXPECTED 0
#define EPOCH_OFF_ARRIVED  16
#define EPOCH_OFF_FLAGS    24
/* After FLAGS: the exchange's words (epoch/exchange.c), each written by its owner: ENTERED[2]
 * (fence number << 1 | "I carried data", by the fence number's parity: a mate may already be in
 * the next fence while I still read this one's bit), read by the members that map mine; then
 * APPLIED (fence number), read by those and, through MPI, by an operation that settles; then
 * NOTES[2][size], the notify design's counts from each mate (the number of puts it notified me of
 * in the fence's epoch, by the fence number's parity like ENTERED), written by that mate into my
 * block before its ENTERED word. */
static inline size_t shoal__epoch_off_entered(int32_t team_size, uint64_t fence) {
    return EPOCH_OFF_FLAGS + 8 * (size_t)team_size + 8 * (size_t)(fence & 1);
}
static inline size_t shoal__epoch_off_applied(int32_t team_size) {
    return EPOCH_OFF_FLAGS + 8 * (size_t)team_size + 16;
}
static inline size_t shoal__epoch_off_notes(int32_t team_size, uint64_t fence, int32_t from) {
    return shoal__epoch_off_applied(team_size) + 8 +
           8 * ((size_t)team_size * (size_t)(fence & 1) + (size_t)from);
}
static inline size_t shoal__epoch_ctrl_bytes(int32_t team_size) {
    return shoal__epoch_off_applied(team_size) + 8 + 16 * (size_t)team_size;
}

/* A deferred operation: everything the closing fence needs to carry it out. */
typedef struct {
    shoal_target_t target;
    void *local; /* put: the source; get: the destination */
    size_t nbytes;
    int is_put;
} epoch_op_t;

typedef struct epoch {
    shoal_epoch_design_t design; /* resolved: never AUTO */
    int fenced;                  /* fenced once: non-blocking put/get belong to epochs now */
    int open;                    /* an epoch is open: operations may be issued */
    uint64_t exchanges;          /* count exchanges done (their parity picks the slot) */
    uint64_t fences;             /* closing fences done (the naive design's flag value) */
    uint64_t expected_total;     /* arrivals this member was told to expect, in all */
    shoal_words_t ctrl;          /* the members' control words (in their pools) */
    /* This epoch's traffic from me, per team member; updated atomically (threads may issue). */
    uint32_t *ops_to;   /* [size] operations issued to each member (at least: see note_target) */
    uint32_t *notes_to; /* [size] notifications sent to each (the notify design) */
    int32_t *touched;   /* the members with ops_to > 0, in first-touch order */
    uint32_t ntouched;
    /* The progress thread's share (epoch_notify.c): per member, the notify design's
     * notifications through MPI not sent yet (their puts may still be in flight), or the other
     * immediate designs' operations through MPI given to the thread to flush; the origin buffers
     * of the fence's own notification adds (MPI reads them until the fence's barrier completes
     * the adds); the allocation, whose window the thread flushes; the thread's list. */
    uint32_t *unsent_to;   /* [size] */
    uint32_t *flushed_to;  /* [size] of those, how many the thread has completed (flush only) */
    uint64_t *sent_vals;   /* [size] */
    segment_t *seg;        /* the allocation this state belongs to */
    struct epoch *bg_next; /* the next epoch with notifications to send (while bg_listed) */
    int bg_listed;
    /* The deferred design's queue, in issue order. */
    pthread_mutex_t queue_mu; /* threads (SHOAL_THREAD_MULTIPLE) append at once */
    epoch_op_t *queue;
    size_t nqueue, queue_cap;
    /* Combined deliveries (epoch_ops.c): the packed data of each, kept until the fence has
     * completed it (MPI may read an origin buffer until then): freed by the next delivery. */
    void **packs;
    size_t npacks, packs_cap;
    /* The exchange through MPI (epoch/exchange.c; imm_barrier, imm_notify): whether its fences
     * use it, and its buffers, kept from fence to fence. */
    int exchange;
    size_t carried_bytes; /* bytes of this epoch's puts waiting to travel in the messages */
    char *xsend, *xrecv;  /* my messages, back to back; one received message */
    size_t xsend_cap, xrecv_cap, xreqs_cap; /* (xreqs_cap in bytes) */
    size_t *xat;        /* [size + 1] where each member's message starts in xsend */
    MPI_Request *xreqs; /* my sends: a request per piece of each message */
    uint8_t *xgot;      /* [size] 1: this fence's message from that member is applied */
    uint8_t *xmate;     /* [size] 1: we map each other's words: flags instead of messages */
    uint64_t xseq;      /* exchange fences done */
    uint64_t xsettle;   /* the fence whose APPLIED words an operation through MPI awaits */
    /* The copy thread (epoch_copy.c, SHOAL_EPOCH_COPY_THREAD): copies of this state handed to it
     * and done by it, cumulative. */
    uint64_t copies_given, copies_done;
    /* 1 when the design's operations to a mapped member are a copy and a note of the target
     * alone (imm_barrier, imm_naive) and no copy thread runs: set with the design. */
    int plain_design;
} epoch_t;

/* 1 when an operation of the open epoch to a mapped member is only a copy now and a note of its
 * target: the immediate designs but notify (which also sends a notification), when no copy thread
 * takes large ones. shoal_put_nb and shoal_get_nb take such operations in line (rma/nb.c);
 * everything else goes through shoal__epoch_issue. */
static inline int shoal__epoch_moves_plainly(const epoch_t *e) {
    return e->open & e->plain_design;
}
/* Sets e's design (resolved, never AUTO) and what follows from it. */
void shoal__epoch_set_design(epoch_t *e, shoal_epoch_design_t design);

/* Notes traffic to member rel in this epoch; the first lists rel, so that the fence visits only
 * the members used. Threads may issue at once: the first note is an atomic add, which decides
 * who lists rel. Later ones are a plain load and store, because a locked add would also wait for
 * the copy's stores to leave the store buffer (each a cache-line transfer to the target) on every
 * put. Concurrent threads may then lose counts; only an error message reads them ("at least"),
 * and a count once above 0 never returns to 0 before the fence resets it. */
static inline void shoal__epoch_note_target(epoch_t *e, int32_t rel) {
    uint32_t seen = __atomic_load_n(&e->ops_to[rel], __ATOMIC_RELAXED);
    if (__builtin_expect(seen != 0, 1)) {
        __atomic_store_n(&e->ops_to[rel], seen + 1, __ATOMIC_RELAXED);
        return;
    }
    /* The first note. Only SHOAL_THREAD_MULTIPLE lets threads issue at once (relay threads need
     * it too); otherwise plain stores do: right after a fence a locked add waits for the fence's
     * barrier store to reach the peer's line (Intel Xeon: 45 ns per first put_nb, a one-put
     * epoch 0.28 us against 0.15 with none). */
    if (shoal__rt.thread_provided < SHOAL_THREAD_MULTIPLE) {
        __atomic_store_n(&e->ops_to[rel], 1, __ATOMIC_RELAXED);
        uint32_t n = __atomic_load_n(&e->ntouched, __ATOMIC_RELAXED);
        e->touched[n] = rel;
        __atomic_store_n(&e->ntouched, n + 1, __ATOMIC_RELAXED);
        return;
    }
    if (__atomic_fetch_add(&e->ops_to[rel], 1, __ATOMIC_RELAXED) == 0)
        e->touched[__atomic_fetch_add(&e->ntouched, 1, __ATOMIC_RELAXED)] = rel;
}

/* shoal_put_nb / shoal_get_nb on an allocation that has fence state (t->seg->epoch). */
shoal_err_t shoal__epoch_issue(int is_put, void *local, const shoal_target_t *t, size_t nbytes,
                               shoal_handle_t *handle);
/* Adds delta to a control word of member rel: CPU atomics or an MPI accumulate, as the control
 * segment's mechanism says (decision 4). flush 0 leaves an MPI accumulate outstanding (the fence
 * completes it); 1 completes it now. */
shoal_err_t shoal__epoch_ctrl_add(epoch_t *e, int32_t rel, size_t off, uint64_t delta, int flush);
/* The same with the value in *src, which must stay untouched until the add completes when flush
 * is 0. */
shoal_err_t shoal__epoch_ctrl_add_from(epoch_t *e, int32_t rel, size_t off, const uint64_t *src,
                                       int flush);
/* The notify design's put through MPI to member rel has gone out: its notification leaves once
 * the data is complete at the target, sent by the progress thread while the program computes
 * (if it runs) or by the fence (epoch_notify.c). */
void shoal__epoch_notify_later(epoch_t *e, int32_t rel);
/* Sends every notification of mine still unsent (each target's data completed first, the add
 * left to the fence's barrier to complete). The closing fence calls it. */
shoal_err_t shoal__epoch_notify_send_all(epoch_t *e);
/* The fence by the exchange (epoch/fence.c): my notifications through MPI travel in its messages
 * instead of as adds. Takes them back (the progress thread is not inside the state meanwhile)
 * and lowers notes_to by them, so that notes_to counts only those made as adds, which is what the
 * messages tell the targets to wait for; the exchange's flush completes their puts before any
 * message leaves. */
void shoal__epoch_notify_take_unsent(epoch_t *e);
/* The other immediate designs' operation through MPI to member rel has gone out: the progress
 * thread, if it runs, flushes rel while the program computes (that is what moves the data
 * through MPICH, and Open MPI's osc/pt2pt), so that the fence finds it complete. */
void shoal__epoch_flush_later(epoch_t *e, int32_t rel);
/* A change of design (no epoch open): the thread's counts of the state start from 0 again, since
 * imm_notify reads them as its unsent notifications. */
void shoal__epoch_flush_reset(epoch_t *e);
/* Takes the state off the progress thread's list and waits until the thread is done with it (the
 * allocation is being freed). */
void shoal__epoch_notify_forget(epoch_t *e);
/* Completes my operations of the open epoch to member rel (the MPI path's flush; a no-op when
 * the member is mapped here). */
shoal_err_t shoal__epoch_complete_to(epoch_t *e, segment_t *seg, int32_t rel);
/* Carries out the deferred queue (the closing fence of the deferred design). */
shoal_err_t shoal__epoch_deliver_queue(epoch_t *e);
/* Forgets this epoch's traffic (end of a closing fence). */
void shoal__epoch_reset_traffic(epoch_t *e);

#endif
