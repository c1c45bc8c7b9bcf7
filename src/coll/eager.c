/* Eager exchange: small fcollect, alltoall, reduce and scan without a round trip per call.
 *
 * The synchronised algorithms make a writer wait for the receiver's READY (its dest is free for
 * this call), so every call costs at least a round trip, and back-to-back calls never overlap.
 * Here each member puts its message for member j into a cell of j's coll area instead (cell
 * `me` of j's slot e mod K, e = the team's count of eager exchanges, K = COLL_XCHG_SLOTS), then
 * the cell's flag (e + 1), and goes on; j waits for the flags of the cells it needs in its own
 * slot and works from there. A writer of call e needs j to have finished call e - K (its
 * W_XCHG_DONE >= e - K + 1); it re-reads that word only when the value it last read is too old.
 * Every member stores its W_XCHG_DONE when it leaves an exchange, whatever it sent. A cell is the
 * 8-byte flag and up to 4152 bytes of message (fewer past 7 members: coll_xchg_cell), so a small
 * message shares the flag's cache line; on
 * the direct path both are plain stores ordered by a release store of the flag (no full fence).
 * Every member counts the team's exchanges identically: the selection depends only on arguments
 * that are the same on every member. */
#include <string.h>

#include "coll.h"
#include "rma/rma.h"
#include "runtime/wait.h"

/* Cell `from` of member `member`'s slot for exchange e. */
static shoal_target_t cell(coll_args_t *a, int32_t member, uint64_t e, int32_t from) {
    size_t off =
        a->ct->xchg_off + ((e % COLL_XCHG_SLOTS) * (size_t)a->p + (size_t)from) * a->ct->xchg_cell;
    return shoal__target_at(a->ct->seg, member, off);
}

/* ---- The eager protocol (also the eager broadcast's, algo_bcast.c) ---- */

shoal_err_t coll_eager_post(coll_args_t *a, int32_t peer, uint64_t e, uint64_t slots,
                            int32_t done_word, uint64_t *done_seen, shoal_target_t flag,
                            const void *src, size_t n) {
    if (e >= slots && *done_seen < e - slots + 1) {
        /* Wait until the peer is half the slots behind, not one: a writer ahead of a slower
         * reader (a scan's member 0, a broadcast's root) would otherwise poll the reader's done
         * word on every call, taking its line from the reader, which must take it back for its
         * next store (scan of 8 B at 2 units: 0.23-0.35 us that way, 0.10 us otherwise).
         * Safe: the peer finishes exchange e - slots/2 < e with what every member has posted. */
        shoal_target_t done = coll_word(a, peer, done_word);
        SHOAL_TRY(shoal__wait_word(&done, SHOAL_CMP_GE, e - slots + 1 + slots / 2, done_seen));
    }
    uint64_t v = e + 1;
    if (flag.seg->atomics_direct) { /* the whole team is direct: plain stores, then the flag with
                                     * a release store; no full fence, so the writer does not
                                     * stall until the lines reach the peer */
        if (n) shoal__copy(flag.addr + 8, src, n);
        __atomic_store_n((uint64_t *)(void *)flag.addr, v, __ATOMIC_RELEASE);
        return SHOAL_OK;
    }
    /* The flag is an MPI atomic (some member is off-node): the data completes at the peer first
     * (a blocking put: a copy and a full fence for a same-node peer, MPI otherwise), then the flag
     * with the mechanism every member uses for it. */
    shoal_target_t body = flag;
    body.disp += 8;
    if (body.addr) body.addr += 8; /* a same-node peer of a team that spans nodes */
    if (n) SHOAL_TRY(shoal__put(&body, src, n));
    return shoal__amo(&flag, AMO_STORE, SHOAL_OP_SUM, SHOAL_UINT64, &v, NULL, NULL);
}

shoal_err_t coll_wait_flag(const shoal_target_t *flag, uint64_t value) {
    /* polls with gaps first (runtime/wait.h: the writer's stores need the line), then the
     * yielding wait, which also syncs the window when the flag is an MPI atomic */
    if (flag->seg->atomics_direct &&
        shoal__poll_ge_gapped((const uint64_t *)(void *)flag->addr, value, 64))
        return SHOAL_OK;
    return shoal__wait_word(flag, SHOAL_CMP_GE, value, NULL);
}

shoal_err_t coll_eager_wait(coll_args_t *a, shoal_target_t flag, uint64_t e, const char **data) {
    SHOAL_TRY(coll_wait_flag(&flag, e + 1));
    *data = a->ct->seg->my_base + (flag.disp - a->ct->seg->win_disp[a->me]) + 8;
    return SHOAL_OK;
}

shoal_err_t coll_eager_leave(coll_args_t *a, int32_t done_word, uint64_t e) {
    shoal_target_t done = coll_word(a, a->me, done_word);
    uint64_t v = e + 1;
    if (done.seg->atomics_direct) { /* release: my reads of the slots come first */
        __atomic_store_n((uint64_t *)(void *)done.addr, v, __ATOMIC_RELEASE);
        return SHOAL_OK;
    }
    return shoal__amo(&done, AMO_STORE, SHOAL_OP_SUM, SHOAL_UINT64, &v, NULL, NULL);
}

/* ---- The exchange's cells ---- */

/* Puts n bytes from src into my cell of peer's slot for exchange e, then the flag. */
static shoal_err_t xchg_send(coll_args_t *a, uint64_t e, int32_t peer, const void *src, size_t n) {
    return coll_eager_post(a, peer, e, COLL_XCHG_SLOTS, W_XCHG_DONE(a->p), &a->ct->xchg_done[peer],
                           cell(a, peer, e, a->me), src, n);
}

/* Waits for member `from`'s cell of my slot for exchange e; returns its data (in my memory). */
static shoal_err_t xchg_recv(coll_args_t *a, uint64_t e, int32_t from, const char **data) {
    return coll_eager_wait(a, cell(a, a->me, e, from), e, data);
}

/* I have finished exchange e: my cells of its slot may be reused. */
static shoal_err_t xchg_done(coll_args_t *a, uint64_t e) {
    return coll_eager_leave(a, W_XCHG_DONE(a->p), e);
}

/* collect: the size exchange is itself an eager exchange, on teams of up to 8 units: each member
 * sends its size and, when it fits, its block (size 8 bytes, then the block). Everyone then knows
 * every size, so everyone agrees whether all blocks came along (xchg_blocks), and the selection
 * can pick "eager", which only copies them out of the cells. Whatever runs, the exchange closes
 * after it (coll_eager_end). */
#define COLLECT_UNITS 8
#define BLOCK_MAX(a)  ((a)->ct->xchg_cell - 16) /* the cell less its flag and the size */

shoal_err_t coll_eager_collect_sizes(coll_args_t *a, size_t mine) {
    uint64_t e = a->ct->xchg_seq++;
    char msg[COLL_XCHG_CELL_MAX - 8];
    uint64_t size = mine;
    size_t len = 8 + (mine <= BLOCK_MAX(a) ? mine : 0);
    memcpy(msg, &size, 8);
    if (mine <= BLOCK_MAX(a)) shoal__copy(msg + 8, a->slocal, mine);
    for (int32_t i = 1; i < a->p; i++) SHOAL_TRY(xchg_send(a, e, (a->me + i) % a->p, msg, len));
    a->xchg_e = e;
    a->xchg_open = 1;
    a->xchg_blocks = 1;
    size_t sum = 0;
    int overflow = 0;
    for (int32_t r = 0; r < a->p; r++) {
        uint64_t s = mine;
        if (r != a->me) {
            const char *d;
            SHOAL_TRY(xchg_recv(a, e, r, &d));
            memcpy(&s, d, 8);
        }
        if (s > BLOCK_MAX(a)) a->xchg_blocks = 0;
        a->sizes[r] = (size_t)s;
        a->offsets[r] = sum;
        if ((size_t)s > SIZE_MAX - sum) overflow = 1;
        sum += (size_t)s;
    }
    if (overflow) /* every member read the same sizes: all fail alike, the exchange closed */
        return coll_eager_end(a) != SHOAL_OK
                   ? SHOAL_ERR_MPI
                   : shoal__fail(SHOAL_ERR_INVAL,
                                 "the members' contributions add up past SIZE_MAX");
    a->total = sum;
    return SHOAL_OK;
}

shoal_err_t coll_eager_collect(coll_args_t *a) {
    coll_copy_local(a->dlocal + a->offsets[a->me], a->slocal, a->sizes[a->me]);
    for (int32_t i = 1; i < a->p; i++) {
        int32_t from = (a->me - i + a->p) % a->p;
        const char *d;
        SHOAL_TRY(xchg_recv(a, a->xchg_e, from, &d)); /* arrived already: returns at once */
        coll_copy_local(a->dlocal + a->offsets[from], d + 8, a->sizes[from]);
    }
    return SHOAL_OK;
}

shoal_err_t coll_eager_end(coll_args_t *a) {
    if (!a->xchg_open) return SHOAL_OK;
    a->xchg_open = 0;
    return xchg_done(a, a->xchg_e);
}

int coll_eager_collect_possible(const coll_args_t *a) {
    return a->ct->xchg_off && a->p <= COLLECT_UNITS;
}

/* Block exchange: member j gets block j of my src (src_stride = n: alltoall) or my whole src
 * (src_stride = 0: fcollect); block i of my dest comes from member i. My own block is copied
 * after my sends, so an fcollect src may overlap dest (an alltoall's may not: the entry point
 * refuses it). */
static shoal_err_t exchange_blocks(coll_args_t *a, size_t src_stride) {
    uint64_t e = a->ct->xchg_seq++;
    size_t n = a->nbytes;
    for (int32_t i = 1; i < a->p; i++) {
        int32_t to = (a->me + i) % a->p;
        SHOAL_TRY(xchg_send(a, e, to, a->slocal + (size_t)to * src_stride, n));
    }
    coll_copy_local(a->dlocal + (size_t)a->me * n, a->slocal + (size_t)a->me * src_stride, n);
    for (int32_t i = 1; i < a->p; i++) {
        int32_t from = (a->me - i + a->p) % a->p;
        const char *d;
        SHOAL_TRY(xchg_recv(a, e, from, &d));
        coll_copy_local(a->dlocal + (size_t)from * n, d, n);
    }
    return xchg_done(a, e);
}

shoal_err_t coll_eager_fcollect(coll_args_t *a) {
    return exchange_blocks(a, 0);
}

shoal_err_t coll_eager_alltoall(coll_args_t *a) {
    return exchange_blocks(a, a->nbytes);
}

/* Reduce members 0..last (in member order, as every reduction here: bit-identical results on
 * every member) into dest; my own vector comes from src. dest may be src. */
static shoal_err_t reduce_cells(coll_args_t *a, uint64_t e, int32_t last) {
    size_t n = a->nbytes;
    char acc[COLL_XCHG_CELL_MAX - 8];
    for (int32_t r = 0; r <= last; r++) {
        const char *d = a->slocal;
        if (r != a->me) SHOAL_TRY(xchg_recv(a, e, r, &d));
        if (r == 0)
            shoal__copy(acc, d, n);
        else
            coll_reduce_local(acc, d, a->count, a->type, a->op);
    }
    if (last < 0) memset(acc, 0, n); /* exclusive scan on member 0 */
    shoal__copy(a->dlocal, acc, n);
    return SHOAL_OK;
}

shoal_err_t coll_eager_reduce(coll_args_t *a) {
    uint64_t e = a->ct->xchg_seq++;
    for (int32_t i = 1; i < a->p; i++)
        SHOAL_TRY(xchg_send(a, e, (a->me + i) % a->p, a->slocal, a->nbytes));
    SHOAL_TRY(reduce_cells(a, e, a->p - 1));
    return xchg_done(a, e);
}

/* scan: my vector only to the members after me. */
shoal_err_t coll_eager_scan(coll_args_t *a) {
    uint64_t e = a->ct->xchg_seq++;
    for (int32_t to = a->me + 1; to < a->p; to++)
        SHOAL_TRY(xchg_send(a, e, to, a->slocal, a->nbytes));
    SHOAL_TRY(reduce_cells(a, e, a->inclusive ? a->me : a->me - 1));
    return xchg_done(a, e);
}
