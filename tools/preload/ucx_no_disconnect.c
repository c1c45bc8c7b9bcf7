/* LD_PRELOAD shim for MPICH 4.0.2 over UCX 1.13 across the namespace cluster (docs/cluster.md).
 *
 * MPICH's MPI_Finalize closes every UCX endpoint with ucp_disconnect_nb (a flushing close) and
 * progresses until all closes complete, then enters the PMI barrier. Over UCX's TCP transport a
 * close can need the peer's progress, and a peer that has finished its own closes is blocked in
 * the PMI barrier: the job hangs at exit (seen here in 1 of 2 to 3 of 3 runs of a plain MPI program
 * at 3 nodes x 1, stacks: one rank in uct_tcp_iface_progress under PMPI_Finalize, the rest in
 * the PMI read; the UCX issue openucx/ucx#8738 describes the same). With this shim the close is
 * reported complete at once; the endpoints go with the worker and the process. Every MPI
 * operation has completed by then (MPI_Finalize is collective; shoal_finalize ends in a
 * barrier), so nothing in flight is lost. shoalrun --nodes preloads it on MPICH (and so do the
 * multinode tests, through shoalrun). */
#include <stddef.h>

void *ucp_disconnect_nb(void *ep);

void *ucp_disconnect_nb(void *ep) {
    (void)ep;
    return NULL; /* UCS_OK: completed in place */
}
