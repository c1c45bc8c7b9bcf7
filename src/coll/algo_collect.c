/* Collect and fcollect algorithms (a->sizes/offsets say where each member's block goes; for
 * fcollect all sizes are equal). */
#include "coll.h"

/* Linear: every member puts its block into every member's dest (starting with its right
 * neighbour, so no member is everybody's first target), after that member said READY. */
static shoal_err_t collect_linear(coll_args_t *a) {
    coll_copy_local(a->dlocal + a->offsets[a->me], a->slocal, a->sizes[a->me]);
    for (int32_t i = 1; i < a->p; i++) SHOAL_TRY(coll_ready(a, (a->me + a->p - i) % a->p));
    for (int32_t i = 1; i < a->p; i++) {
        int32_t peer = (a->me + i) % a->p;
        SHOAL_TRY(coll_wait_ready(a, peer));
        SHOAL_TRY(coll_put_signal(a, peer, BUF_DEST, a->offsets[a->me], a->slocal, a->sizes[a->me],
                                  W_DATA(a->me, a->p)));
    }
    for (int32_t i = 1; i < a->p; i++) SHOAL_TRY(coll_wait(a, W_DATA((a->me + i) % a->p, a->p), 1));
    return SHOAL_OK;
}

const coll_algo_t coll_collect_algos[] = {
    {COLL_COLLECT, "linear", 0, 0, 0, 0, 0, NULL, collect_linear,
     "every member puts its block to every member"},
};
const int coll_collect_nalgos = sizeof coll_collect_algos / sizeof coll_collect_algos[0];

const coll_algo_t coll_fcollect_algos[] = {
    {COLL_FCOLLECT, "linear", 0, 0, 0, 0, 0, NULL, collect_linear,
     "every member puts its block to every member"},
};
const int coll_fcollect_nalgos = sizeof coll_fcollect_algos / sizeof coll_fcollect_algos[0];
