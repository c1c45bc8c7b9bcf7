/* Barrier algorithms. */
#include "coll.h"

/* Linear: everyone signals member 0, which waits for all, then releases everyone. */
static shoal_err_t barrier_linear(coll_args_t *a) {
    if (a->p == 1) return SHOAL_OK;
    if (a->me == 0) {
        SHOAL_TRY(coll_wait(a, W_ROUND(0, a->p), (uint64_t)a->p - 1));
        for (int32_t r = 1; r < a->p; r++) SHOAL_TRY(coll_signal(a, r, W_ROUND(1, a->p)));
        return SHOAL_OK;
    }
    SHOAL_TRY(coll_signal(a, 0, W_ROUND(0, a->p)));
    return coll_wait(a, W_ROUND(1, a->p), 1);
}

/* Dissemination: in round k, signal member me + 2^k and wait for member me - 2^k. */
static shoal_err_t barrier_dissemination(coll_args_t *a) {
    int round = 0;
    for (int32_t dist = 1; dist < a->p; dist <<= 1, round++) {
        SHOAL_TRY(coll_signal(a, (a->me + dist) % a->p, W_ROUND(round, a->p)));
        SHOAL_TRY(coll_wait(a, W_ROUND(round, a->p), 1));
    }
    return SHOAL_OK;
}

const coll_algo_t coll_barrier_algos[] = {
    {COLL_BARRIER, "linear", 0, 0, 0, 0, 0, NULL, barrier_linear,
     "counter at member 0, which then releases everyone"},
    {COLL_BARRIER, "dissemination", 0, 0, 0, 0, 0, NULL, barrier_dissemination,
     "ceil(log2 p) rounds, member i signals i+2^k"},
};
const int coll_barrier_nalgos = sizeof coll_barrier_algos / sizeof coll_barrier_algos[0];
