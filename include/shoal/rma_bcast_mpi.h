/* One-sided broadcast on a plain MPI program's own window (docs/rma_bcast.md): the same
 * broadcast as shoal_rma_bcast (include/shoal.h), for a program that uses MPI RMA and need not
 * call shoal_init at all (it may). Only the root calls the broadcast; a relay thread of each rank
 * forwards the data. Link with libshoal (shoalcc, or Shoal::shoal in CMake).
 *
 * Requirements: MPI initialised with MPI_THREAD_MULTIPLE (the relay threads call MPI while the
 * program does; otherwise registration fails with SHOAL_ERR_UNSUPPORTED), and a window with
 * memory of its own on every rank (MPI_Win_create / MPI_Win_allocate / _shared; not a dynamic
 * window). Registration creates a second window over the same memory for the broadcasts' own
 * passive-target epoch, so the program's epochs on its window are not disturbed; the program must
 * not access a region a broadcast is writing until the broadcast has arrived there.
 *
 * Every call returns a shoal_err_t (SHOAL_OK == 0) and prints one line on failure. */
#ifndef SHOAL_RMA_BCAST_MPI_H
#define SHOAL_RMA_BCAST_MPI_H

#include <mpi.h>

#include "shoal.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* Collective over comm (the communicator win was created on): registers win; *wid names it in
 * the calls below (ids are never reused within a process). */
shoal_err_t shoal_rma_bcast_mpi_register(MPI_Win win, MPI_Comm comm, int *wid);
/* Collective: waits for a broadcast in flight on it, stops the relay threads, frees what
 * registration made (the program's window is untouched). */
shoal_err_t shoal_rma_bcast_mpi_deregister(int wid);
/* The root only (the caller is the root): buf[0..nbytes) lands at displacement disp (in each
 * rank's disp_unit) of the window on every rank, the root's included. Returns when the root's own
 * puts are done; *req completes when every rank has the data; *seq (may be NULL) gets the
 * broadcast's number on this window (1, 2, ...). Broadcasts on one window run one at a time, in
 * the order their roots asked. */
shoal_err_t shoal_rma_bcast_mpi(int wid, const void *buf, size_t nbytes, MPI_Aint disp,
                                shoal_rma_bcast_algo_t algo, shoal_rma_bcast_t *req, uint64_t *seq);
/* The root's completion (RMABcastTest / RMABcastFlush); releases *req when done. */
shoal_err_t shoal_rma_bcast_mpi_test(shoal_rma_bcast_t *req, int *done);
shoal_err_t shoal_rma_bcast_mpi_wait(shoal_rma_bcast_t *req);
/* Any rank, no call from the root needed: has broadcast number seq reached me (data here and
 * passed on by my relay, so the region is the program's again)? */
shoal_err_t shoal_rma_bcast_mpi_arrived(int wid, uint64_t seq, int *arrived);
shoal_err_t shoal_rma_bcast_mpi_wait_arrival(int wid, uint64_t seq);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
