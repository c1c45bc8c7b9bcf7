/* Requests of both faces: the root's handle on a broadcast, an object-table token (a stale or
 * made-up value is recognised without touching freed memory). */
#include <stdio.h>
#include <stdlib.h>

#include "rbcast.h"
#include "runtime/error.h"
#include "runtime/objtab.h"
#include "runtime/runtime.h"
#include "space.h"

struct shoal_rma_bcast_req {
    uintptr_t token;       /* the program's name for it */
    uintptr_t space_token; /* its registration: stale once deregistered */
    uint64_t done_target;
};

shoal_err_t shoal__rb_start(rb_space_t *sp, uint64_t where, const void *src, size_t nbytes,
                            shoal_rma_bcast_algo_t algo, shoal_rma_bcast_t *req, uint64_t *seq) {
    shoal_rma_bcast_algo_t asked = algo;
    if (algo == SHOAL_RMA_BCAST_AUTO) algo = sp->auto_means;
    if (algo == SHOAL_RMA_BCAST_AUTO) algo = rb_auto_algo(nbytes, sp->size, sp->uses_mpi);
    if (shoal__rt.coll_verbose) /* SHOAL_COLL_VERBOSE: the collectives' verbose mode */
        fprintf(stderr, "shoal: rma_bcast: %s (%s) for %zu bytes on %d members\n",
                shoal_rma_bcast_algo_name(algo),
                asked == SHOAL_RMA_BCAST_AUTO ? "auto" : "asked for", nbytes, (int)sp->size);
    /* The request first: nothing may fail once data has gone out. */
    struct shoal_rma_bcast_req *r = malloc(sizeof *r);
    if (!r || !(r->token = objtab_insert(OBJ_RB_REQ, r))) {
        free(r);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for a broadcast request");
    }
    uint64_t target = 0, number = 0;
    shoal_err_t err = rb_broadcast(sp, where, src, nbytes, algo, &target, &number);
    if (err != SHOAL_OK) {
        objtab_remove(OBJ_RB_REQ, r->token);
        free(r);
        return err;
    }
    r->space_token = sp->token;
    r->done_target = target;
    *req = (shoal_rma_bcast_t)r->token;
    if (seq) *seq = number;
    return SHOAL_OK;
}

/* The live request behind a token and its registration (still live). */
static shoal_err_t lookup(shoal_rma_bcast_t token, struct shoal_rma_bcast_req **r,
                          rb_space_t **sp) {
    void *obj = NULL;
    switch (objtab_lookup(OBJ_RB_REQ, (uintptr_t)token, &obj)) {
    case OBJ_LIVE:
        break;
    case OBJ_STALE:
        return shoal__fail(SHOAL_ERR_HANDLE, "the broadcast request was completed already");
    default:
        return shoal__fail(SHOAL_ERR_HANDLE, "not a broadcast request");
    }
    *r = obj;
    /* A deregistered space: deregistration waited for its broadcasts, so this one is complete. */
    void *space = NULL;
    *sp = objtab_lookup(OBJ_RB_SPACE, (*r)->space_token, &space) == OBJ_LIVE ? space : NULL;
    return SHOAL_OK;
}

static void release(struct shoal_rma_bcast_req *r) {
    objtab_remove(OBJ_RB_REQ, r->token);
    free(r);
}

/* Shared by the two faces: test and wait on a request token. */
shoal_err_t shoal__rb_req_test(shoal_rma_bcast_t *req, int *done) {
    if (!req || !done) return shoal__fail(SHOAL_ERR_INVAL, "NULL argument");
    if (*req == SHOAL_RMA_BCAST_NULL) {
        *done = 1;
        return SHOAL_OK;
    }
    struct shoal_rma_bcast_req *r = NULL;
    rb_space_t *sp = NULL;
    SHOAL_TRY(lookup(*req, &r, &sp));
    int d = 1;
    if (sp) SHOAL_TRY(rb_test(sp, r->done_target, &d));
    if (d) {
        release(r);
        *req = SHOAL_RMA_BCAST_NULL;
    }
    *done = d;
    return SHOAL_OK;
}

shoal_err_t shoal__rb_req_wait(shoal_rma_bcast_t *req) {
    if (!req) return shoal__fail(SHOAL_ERR_INVAL, "NULL request");
    if (*req == SHOAL_RMA_BCAST_NULL) return SHOAL_OK;
    struct shoal_rma_bcast_req *r = NULL;
    rb_space_t *sp = NULL;
    SHOAL_TRY(lookup(*req, &r, &sp));
    if (sp) SHOAL_TRY(rb_wait(sp, r->done_target));
    release(r);
    *req = SHOAL_RMA_BCAST_NULL;
    return SHOAL_OK;
}

static void free_request(void *r) {
    free(r);
}

void shoal__rbcast_finalize(void) {
    objtab_drain(OBJ_RB_REQ, free_request); /* requests never tested to completion */
}
