/* Internal entry points of the RMA layer, used by sync/ and runtime/. Each takes a resolved
 * target (mem/resolve.h): validation has happened at the public entry. */
#ifndef SHOAL_RMA_H
#define SHOAL_RMA_H

#include "mem/resolve.h"

typedef enum { AMO_FETCH_OP, AMO_OP, AMO_SWAP, AMO_CAS, AMO_LOAD, AMO_STORE } amo_kind_t;

/* Blocking put/get: complete at the target (put) or in dst (get) on return. */
shoal_err_t shoal__put(const shoal_target_t *t, const void *src, size_t nbytes);
shoal_err_t shoal__get(void *dst, const shoal_target_t *t, size_t nbytes);
/* One atomic on one element. Decision 4: CPU atomics when the segment's team is entirely
 * reachable directly, MPI atomics otherwise; never both on one segment. */
shoal_err_t shoal__amo(const shoal_target_t *t, amo_kind_t kind, shoal_amo_op_t op,
                       shoal_dtype_t type, const void *value, const void *compare, void *result);
/* Waits until my own 64-bit word at t satisfies cmp against value. */
shoal_err_t shoal__wait_word(const shoal_target_t *t, shoal_cmp_t cmp, uint64_t value,
                             uint64_t *seen);
/* Completes every live non-blocking handle (finalize), returns how many there were. */
size_t shoal__handles_complete_all(void);
/* Completes the live handles on one segment before it is freed. */
void shoal__handles_complete_segment(const segment_t *seg);
/* Frees the recycled handle objects (finalize). */
void shoal__handles_release_spares(void);

#endif
