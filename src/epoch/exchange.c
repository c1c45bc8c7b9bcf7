/* The fence through MPI for small teams, of imm_barrier and imm_notify: see exchange.h and
 * docs/fence.md ("The exchange", and "Through the exchange" under imm_notify).
 *
 * Why it is correct. Round 1: every member sends each other member one message (tag DATA): a
 * header, then the epoch's small puts to that member. Before sending, a member completes its
 * outstanding MPI operations at their targets (MPI_Win_flush per member used), so once I have
 * every other member's message, their immediate puts are in my part, and I copy the carried
 * ones in myself. Every member has then entered this fence (duty 2 for my part). But a member
 * that has all its messages may leave while another is still copying what it was sent, and its
 * next epoch's get (or put) would meet that member's part half written. So when anybody carried
 * data (each header says whether its sender did, and everybody hears from everybody), round 2
 * follows once my copies are done: my APPLIED word says so, and nothing of the next epoch
 * reaches a part before its owner has written it (duty 1). Node mates wait for each other's
 * word in the fence; towards the others the first operation through MPI on the allocation waits
 * for it (shoal__settle), and the next fence's round-1 messages say the same (round_applied).
 * No message: an epoch ends after round 1, a barrier's worth of messages.
 *
 * Each member sends exactly one message per fence to each other member on the team's
 * communicator (maybe in pieces, each message's first piece saying how long it is), and MPI
 * does not let two messages from one sender with one tag overtake each other, so the first
 * message I take from a member is this fence's: I probe member by member, never with
 * MPI_ANY_SOURCE, which could take a fast member's next message for a slow one's.
 *
 * Members that map each other's memory (node mates on the direct path) carry nothing to each
 * other (their puts were copies), so between them the two rounds are two words of each member's
 * fence control block (rma/epoch.h: ENTERED, APPLIED), written by their owner with release order
 * and read by the mates with acquire order: no MPI message between node mates. A mate can be one
 * fence ahead of me (it left once it saw my ENTERED, and nobody carried), never two (it would
 * need my next ENTERED), so ENTERED alternates between two words by the fence's parity. */
#include "exchange.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "rma/rma.h"
#include "runtime/wait.h"

#define TAG_DATA 0x5E0C /* tags below 32767, the smallest MPI_TAG_UB the standard allows */
/* A message's header, two words: bit 0 of the first set when its sender carried data to anyone,
 * the bits above it the message's length in bytes, header included; the second, the notify
 * design's count of its sender's notifications to the receiver made as adds (0 in the other
 * designs). A message longer than SHOAL_EPOCH_PIECE goes as pieces of at most that many bytes,
 * sent back to back on the same tag (MPI keeps their order), so that each travels by MPI's eager
 * protocol rather than its rendezvous handshake; the receiver learns from the first piece how many
 * bytes follow. */
#define MSG_HEAD 16
/* Messages of more pieces than this go whole: measured with MPICH over TCP, 64 pieces of 16 KiB
 * took 1.2x one rendezvous message of 1 MiB, 33 about as long as 512 KiB (docs/fence.md,
 * "Pieces"). */
#define PIECES_MAX 32
#define ENTRY_HEAD 16 /* an entry: [offset in the target's part][length], 8 bytes each */

static size_t pad8(size_t n) {
    return (n + 7) & ~(size_t)7;
}

shoal_err_t shoal__epoch_exchange_decide(epoch_t *e, segment_t *seg) {
    team_t *t = seg->team;
    /* [0]: some member is reached through MPI here; [1]: I refuse (my SHOAL_EPOCH_EXCHANGE_MAX
     * is below the team's size). The maximum over the team decides for all alike. */
    int mine[2] = {0, t->size < 2 || t->size > shoal__rt.epoch_exchange_max || t->size > 64},
        all[2];
    for (int32_t j = 0; j < t->size; j++) mine[0] |= seg->direct[j] == NULL;
    SHOAL_MPI(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, t->comm));
    e->exchange = all[0] && !all[1];
    if (!e->exchange) return SHOAL_OK;
    e->xat = calloc((size_t)t->size * 2 + 1, sizeof *e->xat); /* starts, then fill cursors */
    e->xgot = calloc((size_t)t->size, 1);
    e->xmate = calloc((size_t)t->size, 1);
    uint64_t *masks = calloc((size_t)t->size, sizeof *masks);
    shoal_err_t err = SHOAL_OK;
    if (!e->xat || !e->xgot || !e->xmate || !masks)
        err = shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for the fence's messages");
    /* Agreed: a member without its buffers must not leave the others exchanging with it. */
    err = shoal__team_agree(t, err, 0, "");
    if (err == SHOAL_OK) {
        /* Flag mates: members whose part and fence words I map. Only pairs where both sides
         * say so use flags, so both sides of a pair always agree. */
        uint64_t mine_mask = 0;
        for (int32_t j = 0; j < t->size; j++)
            if (j != t->myrel && seg->direct[j] && shoal__words_at(&e->ctrl, j, 0).addr)
                mine_mask |= (uint64_t)1 << j;
        int rc = MPI_Allgather(&mine_mask, 1, MPI_UINT64_T, masks, 1, MPI_UINT64_T, t->comm);
        if (rc != MPI_SUCCESS) err = shoal__mpi_fail(rc, "MPI_Allgather");
        for (int32_t j = 0; err == SHOAL_OK && j < t->size; j++)
            e->xmate[j] = (mine_mask >> j & 1) && (masks[j] >> t->myrel & 1);
    }
    free(masks);
    return err;
}

void shoal__epoch_exchange_free(epoch_t *e) {
    free(e->xsend);
    free(e->xrecv);
    free(e->xat);
    free(e->xreqs);
    free(e->xgot);
    free(e->xmate);
}

/* Word off of member j's fence control block, mapped here (a flag mate's, or mine). */
static uint64_t *fence_word(epoch_t *e, int32_t j, size_t off) {
    return (uint64_t *)shoal__words_at(&e->ctrl, j, off).addr;
}

/* GCC 12 takes MPICH's MPI_STATUSES_IGNORE, a pointer constant, for an empty array and warns;
 * the call is right. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
static int test_all(int n, MPI_Request *reqs, int *done) {
    return MPI_Testall(n, reqs, done, MPI_STATUSES_IGNORE);
}
#pragma GCC diagnostic pop

/* buf (of *cap bytes) grown to hold need bytes: the buffer, moved or not; NULL when out of
 * memory (buf stays as it was). */
static void *grow(void *buf, size_t *cap, size_t need) {
    if (need <= *cap) return buf;
    size_t n = *cap ? *cap : 4096;
    while (n < need) n *= 2;
    void *b = realloc(buf, n);
    if (b) *cap = n;
    return b;
}

static shoal_err_t reserve(char **buf, size_t *cap, size_t need) {
    char *b = grow(*buf, cap, need);
    if (!b)
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for a fence message of %zu B",
                           need);
    *buf = b;
    return SHOAL_OK;
}

/* My part's bytes (a pool's parts differ in size). */
static size_t my_part(const segment_t *seg) {
    return seg->sizes ? seg->sizes[seg->team->myrel] : seg->size;
}

/* Writes the puts of a message from member `from` into my part; *carried: its sender carried
 * data to somebody; *notes: the notifications it counted for me. */
static shoal_err_t apply(const segment_t *seg, const char *msg, size_t n, int32_t from,
                         int *carried, uint64_t *notes) {
    const size_t part = my_part(seg);
    uint64_t flags;
    if (n < MSG_HEAD) goto corrupt;
    memcpy(&flags, msg, sizeof flags);
    if (flags >> 1 != n) goto corrupt;
    *carried = (int)(flags & 1);
    memcpy(notes, msg + 8, sizeof *notes);
    for (size_t at = MSG_HEAD; at < n;) {
        uint64_t head[2];
        if (n - at < ENTRY_HEAD) goto corrupt;
        memcpy(head, msg + at, sizeof head);
        at += ENTRY_HEAD;
        if (head[0] > part || head[1] > part - head[0] || pad8(head[1]) > n - at) goto corrupt;
        shoal__copy(seg->my_base + head[0], msg + at, head[1]);
        at += pad8(head[1]);
    }
    return SHOAL_OK;
corrupt:
    return shoal__fail(SHOAL_ERR_STATE,
                       "a fence message from member %d does not parse (%zu bytes: do the members "
                       "fence the same allocation?): its puts were not applied",
                       (int)from, n);
}

/* Packs the epoch's queued puts into one message per other member (a header, then its puts in
 * issue order); those to myself are copied now. *carries: some message holds a put. */
static shoal_err_t pack(epoch_t *e, segment_t *seg, int *carries) {
    team_t *t = seg->team;
    size_t *start = e->xat, *cursor = e->xat + t->size + 1;
    memset(start, 0, ((size_t)t->size + 1) * sizeof *start);
    *carries = 0;
    for (int32_t j = 0; j < t->size; j++)
        if (j != t->myrel && !e->xmate[j]) start[j + 1] = MSG_HEAD; /* mates: no message */
    for (size_t i = 0; i < e->nqueue; i++) {
        const epoch_op_t *q = &e->queue[i];
        if (q->target.rank == t->myrel) continue;
        start[q->target.rank + 1] += ENTRY_HEAD + pad8(q->nbytes);
        *carries = 1;
    }
    for (int32_t j = 0; j < t->size; j++) start[j + 1] += start[j];
    SHOAL_TRY(reserve(&e->xsend, &e->xsend_cap, start[t->size]));
    memcpy(cursor, start, (size_t)t->size * sizeof *cursor);
    for (int32_t j = 0; j < t->size; j++) {
        if (j == t->myrel || e->xmate[j]) continue;
        const uint64_t head[2] = {(uint64_t)(start[j + 1] - start[j]) << 1 | (uint64_t)*carries,
                                  e->notes_to[j]};
        memcpy(e->xsend + cursor[j], head, sizeof head);
        cursor[j] += MSG_HEAD;
    }
    for (size_t i = 0; i < e->nqueue; i++) {
        const epoch_op_t *q = &e->queue[i];
        const int32_t j = q->target.rank;
        const uint64_t off = (uint64_t)(q->target.disp - seg->win_disp[j]);
        if (j == t->myrel) { /* through MPI to myself (SHOAL_DIRECT=0): a copy does it */
            shoal__copy(seg->my_base + off, q->local, q->nbytes);
            continue;
        }
        const uint64_t head[2] = {off, q->nbytes};
        memcpy(e->xsend + cursor[j], head, sizeof head);
        shoal__copy(e->xsend + cursor[j] + ENTRY_HEAD, q->local, q->nbytes);
        cursor[j] += ENTRY_HEAD + pad8(q->nbytes);
    }
    return SHOAL_OK;
}

/* Receives the pieces that follow the first one (`have` bytes, in xrecv) of member j's message,
 * into xrecv after it. */
static shoal_err_t receive_rest(epoch_t *e, segment_t *seg, int32_t j, size_t have, size_t *total) {
    uint64_t flags;
    memcpy(&flags, e->xrecv, sizeof flags);
    *total = have;
    /* A length the first piece cannot start is apply()'s to report. */
    if (flags >> 1 <= have || flags >> 1 > (uint64_t)1 << 30) return SHOAL_OK;
    *total = (size_t)(flags >> 1);
    SHOAL_TRY(reserve(&e->xrecv, &e->xrecv_cap, *total + 1));
    shoal_waiter_t w;
    shoal__waiter_init(&w);
    while (have < *total) {
        int flag = 0, n = 0;
        MPI_Message msg;
        MPI_Status st;
        SHOAL_MPI(MPI_Improbe(j, TAG_DATA, seg->team->comm, &flag, &msg, &st));
        if (!flag) {
            shoal__waiter_pause(&w);
            continue;
        }
        SHOAL_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
        if ((size_t)n > *total - have) {
            /* Not a piece of this message: taken all the same, so that nothing stays queued. */
            SHOAL_TRY(reserve(&e->xrecv, &e->xrecv_cap, have + (size_t)n + 1));
            SHOAL_MPI(MPI_Mrecv(e->xrecv + have, n, MPI_BYTE, &msg, MPI_STATUS_IGNORE));
            return shoal__fail(SHOAL_ERR_STATE,
                               "a fence message from member %d is longer than it said (%zu of "
                               "%zu bytes: do the members fence the same allocation?): its puts "
                               "were not applied",
                               (int)j, have + (size_t)n, *total);
        }
        SHOAL_MPI(MPI_Mrecv(e->xrecv + have, n, MPI_BYTE, &msg, MPI_STATUS_IGNORE));
        have += (size_t)n;
    }
    return SHOAL_OK;
}

/* Takes this fence's message of every other member, applying each as it comes; *carried: some
 * member carried data to somebody; *notes: the notifications they counted for me, added. */
static shoal_err_t receive_all(epoch_t *e, segment_t *seg, int *carried, uint64_t *notes) {
    team_t *t = seg->team;
    memset(e->xgot, 0, (size_t)t->size);
    e->xgot[t->myrel] = 1;
    int32_t pending = t->size - 1;
    const size_t entered = shoal__epoch_off_entered(t->size, e->xseq);
    const int counts = e->design == SHOAL_EPOCH_IMM_NOTIFY;
    shoal_waiter_t w;
    shoal__waiter_init(&w);
    while (pending) {
        int took = 0;
        for (int32_t j = 0; j < t->size; j++) {
            if (e->xgot[j]) continue;
            if (e->xmate[j]) {
                uint64_t v = __atomic_load_n(fence_word(e, j, entered), __ATOMIC_ACQUIRE);
                if (v >> 1 < e->xseq) continue;
                *carried |= (int)(v & 1);
                if (counts) /* written by the mate before its ENTERED word */
                    *notes += __atomic_load_n(
                        fence_word(e, t->myrel, shoal__epoch_off_notes(t->size, e->xseq, j)),
                        __ATOMIC_RELAXED);
                e->xgot[j] = 1;
                pending--;
                took = 1;
                continue;
            }
            int flag = 0, n = 0;
            MPI_Message msg;
            MPI_Status st;
            SHOAL_MPI(MPI_Improbe(j, TAG_DATA, t->comm, &flag, &msg, &st));
            if (!flag) continue;
            SHOAL_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
            SHOAL_TRY(reserve(&e->xrecv, &e->xrecv_cap, (size_t)n + 1));
            SHOAL_MPI(MPI_Mrecv(e->xrecv, n, MPI_BYTE, &msg, MPI_STATUS_IGNORE));
            size_t total = (size_t)n;
            if ((size_t)n >= MSG_HEAD) SHOAL_TRY(receive_rest(e, seg, j, (size_t)n, &total));
            int theirs = 0;
            uint64_t their_notes = 0;
            SHOAL_TRY(apply(seg, e->xrecv, total, j, &theirs, &their_notes));
            *carried |= theirs;
            *notes += their_notes;
            e->xgot[j] = 1;
            pending--;
            took = 1;
        }
        if (!took) shoal__waiter_pause(&w);
    }
    return SHOAL_OK;
}

/* Until every request of reqs[0..n) is complete, waiting as Shoal waits. */
static shoal_err_t complete_all(MPI_Request *reqs, int n) {
    shoal_waiter_t w;
    shoal__waiter_init(&w);
    for (;;) {
        int done = 0;
        SHOAL_MPI(test_all(n, reqs, &done));
        if (done) return SHOAL_OK;
        shoal__waiter_pause(&w);
    }
}

/* The last fence's round 2, for an operation through MPI before this fence's next one: every
 * member not mapped here has written its APPLIED word for it (read through MPI, the word's
 * remote mechanism). Threads may meet here (SHOAL_THREAD_MULTIPLE): one does it. */
static shoal_err_t settle(segment_t *seg) {
    epoch_t *e = seg->epoch;
    team_t *t = seg->team;
    shoal_err_t err = SHOAL_OK;
    pthread_mutex_lock(&e->queue_mu);
    if (__atomic_load_n(&seg->unsettled, __ATOMIC_ACQUIRE)) {
        const size_t applied = shoal__epoch_off_applied(t->size);
        for (int32_t j = 0; j < t->size && err == SHOAL_OK; j++) {
            if (j == t->myrel || e->xmate[j]) continue;
            shoal_target_t w = shoal__words_at(&e->ctrl, j, applied);
            err = shoal__wait_word(&w, SHOAL_CMP_GE, e->xsettle, NULL);
        }
        if (err == SHOAL_OK) __atomic_store_n(&seg->unsettled, NULL, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&e->queue_mu);
    return err;
}

/* Round 2, once my copies are done: my APPLIED word says so. My node mates read it with loads,
 * and I wait for theirs here: they may store into my part directly, with no call that could
 * wait first. Towards the other members nothing is sent: what reaches a member through MPI
 * before the next fence first calls shoal__settle (seg->unsettled, mem/segment.h; rma/'s put,
 * get, atomics, strided and an epoch's operations that move at once, and the one-sided
 * broadcast's root), which reads their APPLIED words; and the next fence's round-1 message
 * from a member says the same (it sends it only after finishing this fence). Puts that wait
 * for the next fence need nothing. An epoch of carried puts then costs one round of messages:
 * on the namespace cluster a message costs its sender about 5 us of CPU. */
static shoal_err_t round_applied(epoch_t *e, segment_t *seg) {
    team_t *t = seg->team;
    const size_t applied = shoal__epoch_off_applied(t->size);
    const shoal_words_t *ctrl = &e->ctrl; /* my own word, mapped here even with no direct path */
    uint64_t *mine = (uint64_t *)(ctrl->pool->my_base + ctrl->offs[t->myrel] + applied);
    __atomic_store_n(mine, e->xseq, __ATOMIC_RELEASE);
    int remote = 0;
    for (int32_t j = 0; j < t->size; j++) remote |= j != t->myrel && !e->xmate[j];
    /* Read through MPI by the others: where my stores and MPI meet, the unified model's sync. */
    if (remote && !ctrl->pool->atomics_direct) SHOAL_MPI(MPI_Win_sync(ctrl->pool->win));
    shoal_waiter_t w;
    shoal__waiter_init(&w);
    for (int32_t j = 0; j < t->size; j++) {
        if (!e->xmate[j]) continue;
        while (__atomic_load_n(fence_word(e, j, applied), __ATOMIC_ACQUIRE) < e->xseq)
            shoal__waiter_pause(&w);
    }
    if (remote) {
        e->xsettle = e->xseq;
        __atomic_store_n(&seg->unsettled, settle, __ATOMIC_RELEASE);
    }
    return SHOAL_OK;
}

/* The size of the pieces a message of n bytes is sent in (n itself: whole): as few pieces of at
 * most SHOAL_EPOCH_PIECE as will do, of equal size (the last may be smaller), so that none is a
 * stray few bytes that costs a message of its own. */
static size_t piece_of(size_t n) {
    const size_t piece = shoal__rt.epoch_piece;
    if (piece && n > piece && (n - 1) / piece < PIECES_MAX) {
        const size_t k = (n - 1) / piece + 1; /* pieces */
        return (n - 1) / k + 1;
    }
    return n ? n : 1;
}

shoal_err_t shoal__epoch_exchange(epoch_t *e, segment_t *seg, uint64_t *notes) {
    team_t *t = seg->team;
    *notes = e->notes_to[t->myrel]; /* my puts to myself notified me too */
    /* What went out at once is complete at its targets before anyone hears from me. Every dirty
     * segment, as the barrier this replaces did. */
    SHOAL_TRY(shoal__segments_flush(-1));
    int carried = 0;
    SHOAL_TRY(pack(e, seg, &carried));
    /* My copies into mapped members' parts are seen before my message is (on x86 a compiler
     * barrier; MPI's own queues then order the rest). */
    atomic_thread_fence(memory_order_seq_cst);
    /* Round 1 to my mates: entered (after my copies and flushes), and whether I carried data;
     * the notify design's counts first, into their blocks, which my ENTERED word then releases. */
    e->xseq++;
    if (e->design == SHOAL_EPOCH_IMM_NOTIFY)
        for (int32_t j = 0; j < t->size; j++)
            if (e->xmate[j])
                __atomic_store_n(
                    fence_word(e, j, shoal__epoch_off_notes(t->size, e->xseq, t->myrel)),
                    (uint64_t)e->notes_to[j], __ATOMIC_RELAXED);
    uint64_t *entered = fence_word(e, t->myrel, shoal__epoch_off_entered(t->size, e->xseq));
    if (entered) __atomic_store_n(entered, e->xseq << 1 | (uint64_t)carried, __ATOMIC_RELEASE);
    size_t nreqs = 0;
    for (int32_t j = 0; j < t->size; j++) {
        if (j == t->myrel || e->xmate[j]) continue;
        const size_t n = e->xat[j + 1] - e->xat[j];
        if (n > (size_t)1 << 30)
            return shoal__fail(SHOAL_ERR_UNSUPPORTED,
                               "the epoch's small puts to member %d add up to %zu B, more than "
                               "one fence message carries (1 GiB): lower SHOAL_EPOCH_COMBINE",
                               (int)j, n);
        const size_t piece = piece_of(n);
        nreqs += (n + piece - 1) / piece;
    }
    MPI_Request *reqs = grow(e->xreqs, &e->xreqs_cap, nreqs * sizeof *reqs);
    if (!reqs) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for %zu requests", nreqs);
    e->xreqs = reqs;
    nreqs = 0;
    for (int32_t j = 0; j < t->size; j++) {
        if (j == t->myrel || e->xmate[j]) continue;
        const size_t piece = piece_of(e->xat[j + 1] - e->xat[j]);
        for (size_t at = e->xat[j]; at < e->xat[j + 1]; at += piece) {
            const size_t n = e->xat[j + 1] - at < piece ? e->xat[j + 1] - at : piece;
            SHOAL_MPI(
                MPI_Isend(e->xsend + at, (int)n, MPI_BYTE, j, TAG_DATA, t->comm, &e->xreqs[nreqs]));
            nreqs++;
        }
    }
    shoal_err_t err = receive_all(e, seg, &carried, notes);
    /* My sends are done before xsend is written again (the next fence). */
    shoal_err_t err2 = complete_all(e->xreqs, (int)nreqs);
    SHOAL_TRY(err);
    SHOAL_TRY(err2);
    /* Every member sent this fence's message after finishing the last one: settled. */
    __atomic_store_n(&seg->unsettled, NULL, __ATOMIC_RELEASE);
    atomic_thread_fence(memory_order_seq_cst); /* the senders' copies before my loads, and my
                                                  copies before my APPLIED word */
    if (carried) SHOAL_TRY(round_applied(e, seg));
    /* MPI wrote my part (the flushed puts): where MPI and my plain loads meet, the unified model
     * asks for a sync, as after the barrier. */
    if (!seg->atomics_direct) SHOAL_MPI(MPI_Win_sync(seg->win));
    return SHOAL_OK;
}
