/* Alltoall and alltoalls algorithms: p rounds, each a put to a different peer; they differ in
 * the order of peers. Completion by counters: a member's block from peer is complete when
 * peer's DATA word has been signalled. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"

/* Sends my block for peer (alltoall: contiguous; alltoalls: strided elements). */
static shoal_err_t send_block(coll_args_t *a, int32_t peer) {
    if (a->kind == COLL_ALLTOALL) {
        const char *blk = a->slocal + (size_t)peer * a->nbytes;
        size_t off = (size_t)a->me * a->nbytes;
        if (peer == a->me) {
            coll_copy_local(a->dlocal + off, blk, a->nbytes);
            return SHOAL_OK;
        }
        return coll_put_signal(a, peer, BUF_DEST, off, blk, a->nbytes, W_DATA(a->me, a->p));
    }
    /* alltoalls: gather my strided elements for peer, place them strided at the peer. */
    size_t es = a->elem_size, n = a->nelems;
    for (size_t k = 0; k < n; k++) {
        const char *from = a->slocal + (((size_t)peer * n + k) * (size_t)a->sst) * es;
        size_t to = (((size_t)a->me * n + k) * (size_t)a->dst) * es;
        if (peer == a->me)
            coll_copy_local(a->dlocal + to, from, es);
        else
            SHOAL_TRY(coll_put(a, peer, BUF_DEST, to, from, es));
    }
    return peer == a->me ? SHOAL_OK : coll_signal(a, peer, W_DATA(a->me, a->p));
}

/* Runs the exchange with peers in the order given by partner(a, round). */
static shoal_err_t exchange(coll_args_t *a, int32_t (*partner)(const coll_args_t *, int32_t),
                            int32_t rounds) {
    for (int32_t r = 0; r < rounds; r++) {
        int32_t peer = partner(a, r);
        if (peer >= 0 && peer != a->me) SHOAL_TRY(coll_ready(a, peer));
    }
    for (int32_t r = 0; r < rounds; r++) {
        int32_t peer = partner(a, r);
        if (peer < 0) continue;
        if (peer != a->me) SHOAL_TRY(coll_wait_ready(a, peer));
        SHOAL_TRY(send_block(a, peer));
    }
    for (int32_t r = 0; r < a->p; r++)
        if (r != a->me) SHOAL_TRY(coll_wait(a, W_DATA(r, a->p), 1));
    return SHOAL_OK;
}

/* Shift: in round r send to me + r (round 0 is myself). */
static int32_t shift_partner(const coll_args_t *a, int32_t r) {
    return (a->me + r) % a->p;
}
static shoal_err_t alltoall_shift(coll_args_t *a) {
    return exchange(a, shift_partner, a->p);
}

const coll_algo_t coll_alltoall_algos[] = {
    {COLL_ALLTOALL, "shift", 0, 0, 0, 0, 0, NULL, alltoall_shift, "round r: send to me+r"},
};
const int coll_alltoall_nalgos = sizeof coll_alltoall_algos / sizeof coll_alltoall_algos[0];

const coll_algo_t coll_alltoalls_algos[] = {
    {COLL_ALLTOALLS, "shift", 0, 0, 0, 0, 0, NULL, alltoall_shift, "round r: send to me+r"},
};
const int coll_alltoalls_nalgos = sizeof coll_alltoalls_algos / sizeof coll_alltoalls_algos[0];
