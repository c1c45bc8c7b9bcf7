/* The node leaders' communicator and the between-nodes step of the node_native algorithms: the
 * MPI library's own collective among one leader per node, while the members of a node meet
 * through shared memory (algo_*.c). Why: across nodes each of Shoal's signals is an MPI RMA
 * operation completed by a network round trip, and on MPICH over TCP a large put moves only as
 * fast as the target enters MPI; the MPI's collectives send and go. The two-level algorithms
 * carry each node's data across the network once, where the MPI's flat collectives on the
 * whole team (native) carry some of it several times (docs/collectives.md "Teams that span
 * nodes"). Like native.c, this file is the simulator's exception: it does not model it. */
#include <stdlib.h>

#include "coll.h"
#include "rma/rma.h"

shoal_err_t coll_leaders_ready(coll_args_t *a) {
    coll_team_t *ct = a->ct;
    if (ct->leaders_made) return SHOAL_OK;
    ct->leaders = MPI_COMM_NULL;
    if (ct->nnodes > 1 && a->team->comm != MPI_COMM_NULL) {
        int32_t node = ct->node_of[a->me];
        int leader = ct->by_node[ct->node_start[node]] == a->me;
        /* Members that are not leaders get MPI_COMM_NULL; ranked by node. */
        int rc = MPI_Comm_split(a->team->comm, leader ? 0 : MPI_UNDEFINED, node, &ct->leaders);
        if (rc != MPI_SUCCESS) {
            ct->leaders = MPI_COMM_NULL;
            return shoal__mpi_fail(rc, "the node leaders' communicator");
        }
    }
    ct->leaders_made = 1;
    return SHOAL_OK;
}

void coll_leaders_free(coll_team_t *ct) {
    if (ct->leaders != MPI_COMM_NULL) MPI_Comm_free(&ct->leaders);
}

shoal_err_t coll_leaders_barrier(coll_args_t *a) {
    if (a->ct->leaders == MPI_COMM_NULL) return SHOAL_OK;
    SHOAL_MPI(MPI_Barrier(a->ct->leaders));
    return SHOAL_OK;
}

shoal_err_t coll_leaders_bcast(coll_args_t *a, void *buf, size_t n, int32_t root_node) {
    if (a->ct->leaders == MPI_COMM_NULL) return SHOAL_OK;
    SHOAL_MPI(MPI_Bcast(buf, (int)n, MPI_BYTE, (int)root_node, a->ct->leaders));
    return SHOAL_OK;
}

shoal_err_t coll_leaders_allgatherv(coll_args_t *a) {
    coll_team_t *ct = a->ct;
    if (ct->leaders == MPI_COMM_NULL) return SHOAL_OK;
    int32_t nn = ct->nnodes;
    int *counts = malloc(2 * (size_t)nn * sizeof *counts);
    if (!counts) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    int *displs = counts + nn;
    for (int32_t k = 0; k < nn; k++) { /* node k's blocks: one run (NEEDS_NODE_RUNS) */
        int32_t first = ct->by_node[ct->node_start[k]];
        int32_t last = ct->by_node[ct->node_start[k + 1] - 1];
        size_t lo = a->offsets[first], hi = coll_block_end(a, last);
        counts[k] = (int)(hi - lo); /* within the total, which native's check keeps in an int */
        displs[k] = (int)lo;
    }
    int rc =
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, a->dlocal, counts, displs, MPI_BYTE, ct->leaders);
    free(counts);
    if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, "MPI_Allgatherv among the node leaders");
    return SHOAL_OK;
}

shoal_err_t coll_leaders_allreduce(coll_args_t *a, void *acc, size_t n) {
    if (a->ct->leaders == MPI_COMM_NULL || !n) return SHOAL_OK;
    SHOAL_MPI(MPI_Allreduce(MPI_IN_PLACE, acc, (int)n, shoal__mpi_datatype(a->type),
                            shoal__mpi_op(a->op), a->ct->leaders));
    return SHOAL_OK;
}
