/* Reduce-to-all and scan algorithms. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"

/* Linear: get every member's src, reduce in member order (so every member computes the same
 * floating-point result), then tell every member I am done reading its src; write dest only when
 * everyone is done with mine (dest may be src). Scan: the same over members 0..me. */
static shoal_err_t gather_reduce(coll_args_t *a, int32_t upto, int inclusive) {
    size_t bytes = a->nbytes;
    char *acc = malloc(bytes ? bytes : 1), *tmp = malloc(bytes ? bytes : 1);
    if (!acc || !tmp) {
        free(acc);
        free(tmp);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    shoal_err_t err = SHOAL_OK;
    int have = 0;
    /* A peer's src holds this call's data only once the peer has entered the call: READY. */
    for (int32_t r = 0; r < a->p && err == SHOAL_OK; r++) {
        int reads_me = a->kind == COLL_SCAN ? r > a->me : 1;
        if (r != a->me && reads_me) err = coll_ready(a, r);
    }
    int32_t last = inclusive ? upto : upto - 1;
    for (int32_t r = 0; r <= last && err == SHOAL_OK; r++) {
        char *dst = have ? tmp : acc;
        if (r == a->me) {
            memcpy(dst, a->slocal, bytes);
        } else {
            err = coll_wait_ready(a, r);
            if (err == SHOAL_OK) err = coll_get(a, dst, r, BUF_SRC, 0, bytes);
        }
        if (err == SHOAL_OK && have) coll_reduce_local(acc, tmp, a->count, a->type, a->op);
        have = 1;
    }
    if (!have) memset(acc, 0, bytes); /* exclusive scan on member 0 */
    /* Tell the members I read that I am done with their src; wait for my own readers. */
    for (int32_t r = 0; r < a->p && err == SHOAL_OK; r++) {
        int i_read = a->kind == COLL_SCAN ? r < a->me : 1;
        if (r != a->me && i_read) err = coll_signal(a, r, W_DATA(a->me, a->p));
    }
    for (int32_t r = 0; r < a->p && err == SHOAL_OK; r++) {
        int reads_me = a->kind == COLL_SCAN ? r > a->me : 1;
        if (r != a->me && reads_me) err = coll_wait(a, W_DATA(r, a->p), 1);
    }
    if (err == SHOAL_OK) memcpy(a->dlocal, acc, bytes);
    free(acc);
    free(tmp);
    return err;
}

static shoal_err_t reduce_linear(coll_args_t *a) {
    return gather_reduce(a, a->p - 1, 1);
}
static shoal_err_t scan_linear(coll_args_t *a) {
    return gather_reduce(a, a->me, a->inclusive);
}

const coll_algo_t coll_reduce_algos[] = {
    {COLL_REDUCE, "linear", 0, 0, 0, 0, 0, NULL, reduce_linear,
     "every member gets every src and reduces in member order"},
};
const int coll_reduce_nalgos = sizeof coll_reduce_algos / sizeof coll_reduce_algos[0];

const coll_algo_t coll_scan_algos[] = {
    {COLL_SCAN, "linear", 0, 0, 0, 0, 0, NULL, scan_linear,
     "member i gets the src of members 0..i and sums in member order"},
};
const int coll_scan_nalgos = sizeof coll_scan_algos / sizeof coll_scan_algos[0];
