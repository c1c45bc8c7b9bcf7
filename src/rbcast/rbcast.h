/* The one-sided broadcast's entry points for the layers above (lifecycle/) and for its two faces.
 */
#ifndef SHOAL_RBCAST_RBCAST_H
#define SHOAL_RBCAST_RBCAST_H

#include "mem/segment.h"

/* The segment release hook (mem/segment.h): deregisters seg; collective: waits for a broadcast in
 * flight and gives its control words back to the pool too. */
void shoal__rbcast_release(segment_t *seg, int collective);
/* shoal_finalize: before its closing barrier, wait for broadcasts in flight (they need every
 * relay); after it, stop every relay thread (before any segment goes away); at the end, drop
 * requests never completed. */
void shoal__rbcast_quiesce_all(void);
void shoal__rbcast_stop_all(void);
void shoal__rbcast_finalize(void);
/* Starts a broadcast on sp (AUTO resolved) and gives the root its request. */
struct rb_space;
shoal_err_t shoal__rb_start(struct rb_space *sp, uint64_t where, const void *src, size_t nbytes,
                            shoal_rma_bcast_algo_t algo, shoal_rma_bcast_t *req, uint64_t *seq);
/* Test and wait on a request of either face. */
shoal_err_t shoal__rb_req_test(shoal_rma_bcast_t *req, int *done);
shoal_err_t shoal__rb_req_wait(shoal_rma_bcast_t *req);

#endif
