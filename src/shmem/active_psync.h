/* The deprecated active-set collectives run on the program's pSync array, for active sets that
 * have no Shoal team of their own (coll.c gives teams to the first SHOAL_SHMEM_ACTIVE_SET_TEAMS
 * sets a PE meets; the rest come here, so the number of active sets has no limit).
 *
 * Each collective starts with an agreement over pSync (a counter at the set's first PE, then a
 * release word at every other PE), which carries every member's verdict on its own arguments:
 * a member that rejects its arguments makes every member fail, nobody writes anything, and nobody
 * waits forever. It also means every member has entered before any data moves, so back-to-back
 * calls may reuse one pSync. The data then moves with puts that signal a pSync word at their
 * target; reductions pull every member's source and combine in member order, so every member
 * gets bit-identical results. Every pSync word used is back at SHMEM_SYNC_VALUE on return, as
 * the specification requires. pWrk is not needed. */
#ifndef SHOAL_SHMEM_ACTIVE_PSYNC_H
#define SHOAL_SHMEM_ACTIVE_PSYNC_H

#include <stddef.h>

#include "shoal.h"

typedef struct {
    int n_pes, my_pe;  /* the set's size and my index in it */
    int start, stride; /* world PE of member i: start + i * stride */
    long *psync;       /* the call's pSync (SHMEM_SYNC_SIZE words, symmetric) */
} aset_sync_t;

/* Agrees on every member's verdict (mine: SHOAL_OK or the error it reported); returns mine, or
 * the error another member reported. shmem_sync on an active set is this with SHOAL_OK. */
shoal_err_t aset_agree(const aset_sync_t *s, shoal_err_t mine);

/* The collectives. mine is the member's verdict on its arguments; the pointers are only used when
 * every member accepted. dest is the global pointer of my part of the symmetric dest. */
shoal_err_t aset_broadcast(const aset_sync_t *s, shoal_err_t mine, shoal_gptr_t dest,
                           const void *source, size_t nbytes, int root);
shoal_err_t aset_collect(const aset_sync_t *s, shoal_err_t mine, shoal_gptr_t dest,
                         const void *source, size_t nbytes);
shoal_err_t aset_fcollect(const aset_sync_t *s, shoal_err_t mine, shoal_gptr_t dest,
                          const void *source, size_t nbytes);
shoal_err_t aset_alltoall(const aset_sync_t *s, shoal_err_t mine, shoal_gptr_t dest,
                          const void *source, size_t nbytes);
/* nelems elements of esize bytes per member, at strides dst / sst elements. */
shoal_err_t aset_alltoalls(const aset_sync_t *s, shoal_err_t mine, shoal_gptr_t dest,
                           const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                           size_t esize);
/* n elements of type reduced with op into dest (which may be source itself). complex_prod:
 * 0, or the size of one complex element (8: float, 16: double) for the product of complex
 * numbers, which Shoal's element-wise kernels do not have. */
shoal_err_t aset_reduce(const aset_sync_t *s, shoal_err_t mine, void *dest, shoal_gptr_t source,
                        size_t n, shoal_type_t type, shoal_red_op_t op, size_t complex_prod);

#endif
