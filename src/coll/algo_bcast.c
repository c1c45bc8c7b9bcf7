/* Broadcast algorithms. */
#include "coll.h"

/* Linear (as SHCOLL): the root says its src is ready, every other member gets the data from the
 * root, then tells the root it is done (the root must not return, and let the program change
 * src, while someone still reads it). */
static shoal_err_t bcast_linear(coll_args_t *a) {
    if (a->me == a->root) {
        coll_copy_local(a->dlocal, a->slocal, a->nbytes);
        for (int32_t r = 0; r < a->p; r++)
            if (r != a->root) SHOAL_TRY(coll_signal(a, r, W_DATA(a->root, a->p)));
        return coll_wait(a, W_ROUND(0, a->p), (uint64_t)a->p - 1); /* DONE from everyone */
    }
    SHOAL_TRY(coll_wait(a, W_DATA(a->root, a->p), 1));
    SHOAL_TRY(coll_get(a, a->dlocal, a->root, BUF_SRC, 0, a->nbytes));
    return coll_signal(a, a->root, W_ROUND(0, a->p));
}

const coll_algo_t coll_bcast_algos[] = {
    {COLL_BROADCAST, "linear", 0, 0, 0, 0, 0, NULL, bcast_linear,
     "every member gets the data from the root"},
};
const int coll_bcast_nalgos = sizeof coll_bcast_algos / sizeof coll_bcast_algos[0];
