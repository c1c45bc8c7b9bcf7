/* shmemx.h: Shoal's extensions to OpenSHMEM 1.5 (shmem.h).
 *
 * What Shoal adds is its own API, usable in the same program as the shmem_ routines:
 *   - shmem_init initialises Shoal, or uses it when the program called shoal_init first; in the
 *     second case shmem_finalize leaves shoal_finalize to the program.
 *   - A PE number is the Shoal unit id (shmem_my_pe() == the shoal_myid() unit, shmem_n_pes() ==
 *     shoal_size()), so the two APIs name the same processes.
 *   - shoal.h then gives teams made from any group, global pointers, non-collective allocation,
 *     handle-based non-blocking RMA, MCS locks, collectives on Shoal teams and ZCom channels
 *     (include/shoal/zcom.h), alongside OpenSHMEM's symmetric memory.
 * One shmemx_ routine, which Sandia OpenSHMEM and OSHMPI also provide (their test suites and
 * benchmarks time themselves with it):
 *   - shmemx_wtime: seconds since an arbitrary moment in the past, from a monotonic clock
 *     (CLOCK_MONOTONIC): for intervals within a PE, not comparable across PEs. Needs no
 *     shmem_init. */
#ifndef SHMEMX_H
#define SHMEMX_H

#include "shmem.h"
#include "shoal.h"

#ifdef __cplusplus
extern "C" {
#endif
__attribute__((visibility("default"))) double shmemx_wtime(void);
#ifdef __cplusplus
}
#endif

#endif /* SHMEMX_H */
