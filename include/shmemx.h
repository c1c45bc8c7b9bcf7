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
 * Shoal has no shmemx_ routines of its own: this header only brings both APIs in. */
#ifndef SHMEMX_H
#define SHMEMX_H

#include "shmem.h"
#include "shoal.h"

#endif /* SHMEMX_H */
