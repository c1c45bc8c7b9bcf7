/* MPI windows over memory we already own. We use MPI_Win_create because it is the flavour on which
 * both MPIs do compare-and-swap and fetch-and-op correctly between processes of one node
 * (MPICH 4.0.2 gets both wrong on MPI_Win_allocate windows; Open MPI's osc/rdma crashes on CAS
 * there; see docs/design.md). Windows are locked (lock_all) for their whole life: passive target,
 * completion by flush. */
#ifndef SHOAL_XPORT_MPIWIN_H
#define SHOAL_XPORT_MPIWIN_H

#include <mpi.h>
#include <stddef.h>

#include "shoal.h"

shoal_err_t xport_win_create(void *base, size_t bytes, MPI_Comm comm, MPI_Win *win);
shoal_err_t xport_win_free(MPI_Win *win);

#endif
