/* MPI windows over memory we already own: a window per segment (MPI_Win_create: MPICH's fastest
 * MPI path) up to SHOAL_MPI_WINDOWS, past that the team's one dynamic window
 * (MPI_Win_create_dynamic) with the segment's part attached, which costs no communicator
 * (defect 11: MPICH runs out of context ids after ~2,000 windows, Open MPI's finalize grows
 * steeply with their number). Both are flavours on which both MPIs do compare-and-swap and
 * fetch-and-op correctly between processes of one node (MPICH 4.0.2 gets both wrong on
 * MPI_Win_allocate windows; Open MPI's osc/rdma crashes on CAS there; see docs/design.md).
 * Windows are locked (lock_all) for their whole life: passive target, completion by flush. */
#ifndef SHOAL_XPORT_MPIWIN_H
#define SHOAL_XPORT_MPIWIN_H

#include <mpi.h>
#include <stddef.h>

#include "shoal.h"

/* Collective over comm: a window over bytes at base, locked for its whole life. A communicator of
 * one process with the direct path on gets MPI_WIN_NULL instead (it needs none); attach, detach
 * and free take it as a window with nothing to do. */
shoal_err_t xport_win_create(void *base, size_t bytes, MPI_Comm comm, MPI_Win *win);
/* Collective over comm: a dynamic window, locked for its whole life. */
shoal_err_t xport_win_create_dynamic(MPI_Comm comm, MPI_Win *win);
/* Collective over the window's communicator; every attached range must be detached first. */
shoal_err_t xport_win_free(MPI_Win *win);
/* Local: expose bytes at base through win; *disp is the displacement peers use for base. */
shoal_err_t xport_win_attach(MPI_Win win, void *base, size_t bytes, MPI_Aint *disp);
/* Local: the range attached at base is no longer reachable through win. */
shoal_err_t xport_win_detach(MPI_Win win, void *base, size_t bytes);
/* MPI_Win_sync, where there is a window (MPI_WIN_NULL: nothing to sync); the MPI return code. */
int xport_win_sync(MPI_Win win);

#endif
