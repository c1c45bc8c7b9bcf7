/* The "native" algorithm of every collective: the MPI library's own collective on the team's
 * communicator (MPI_Barrier, MPI_Bcast, MPI_Allgather(v), MPI_Alltoall, MPI_Allreduce, MPI_Scan).
 * The one exception to coll.h's rule that algorithms are built from Shoal's point-to-point
 * operations, and for a measured reason: between nodes each of Shoal's signals is an MPI RMA
 * operation completed by a network round trip, while MPI's collectives send and go
 * (docs/collectives.md "Native"). The selector picks it by rule like any other algorithm.
 *
 * The buffers are my parts of the symmetric dest and src, as for every algorithm. Every member
 * flushed its outstanding RMA before the call (api.c run), and the collective's own messages order
 * the library's loads and stores after it, as the other algorithms' signals do (an MPI_Win_sync
 * before and after cost 1.8 us of a 9 us broadcast across two nodes on Open MPI, with nothing to
 * order that the messages do not already). Buffers that overlap
 * (in place, or dest and src sharing bytes) go through a private copy of src, since MPI forbids
 * aliased send and receive buffers outside MPI_IN_PLACE. The simulator (tools/coll_sim) stands in
 * for this file with its own coll_native_not_applicable, so the algorithm never runs there. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "rma/rma.h"

static int fits_int(size_t n) {
    return n <= (size_t)INT_MAX;
}

/* The MPI's reduction kernel for (type, op) must compute what Shoal's does (reduce_ops.c), and
 * the two MPIs here do not always: Debian's MPICH 4.0.2 compares unsigned types as signed in MIN
 * and MAX (MPI_MAX of 200 and 100 as MPI_UNSIGNED_CHAR gives 100), and Open MPI 4.1.4's vector
 * kernels saturate 8- and 16-bit sums (100 + 100 as MPI_SIGNED_CHAR gives 127 from 16 elements
 * on) and get MIN and MAX of unsigned long wrong. So each (type, op) is checked once, with
 * MPI_Reduce_local (the kernel the collectives use) on 256 elements of every bit pattern, and
 * native does not run one that disagrees. Local and deterministic: every member reaches the same
 * verdict. */
#define PROBE_ELEMS 256
static signed char kernel_verdict[SHOAL_TYPE_COUNT_][SHOAL_RED_XOR + 1]; /* 0 unknown, 1, -1 */

static void probe_fill(unsigned char *buf, size_t bytes, shoal_type_t type, uint32_t seed) {
    for (size_t i = 0; i < bytes; i++) {
        seed = seed * 1664525u + 1013904223u;
        buf[i] = (unsigned char)(seed >> 24);
    }
    size_t n = bytes / shoal_type_size(type);
    for (size_t i = 0; i < n; i++) { /* floating types: ordinary values (MPI leaves NaN open) */
        seed = seed * 1664525u + 1013904223u;
        double v = (double)(int32_t)(seed >> 8) / 64.0;
        if (type == SHOAL_TYPE_FLOAT) ((float *)(void *)buf)[i] = (float)v;
        if (type == SHOAL_TYPE_DOUBLE) ((double *)(void *)buf)[i] = v;
    }
}

static int mpi_kernel_agrees(shoal_type_t type, shoal_red_op_t op) {
    signed char v = __atomic_load_n(&kernel_verdict[type][op], __ATOMIC_RELAXED);
    if (v) return v > 0;
    size_t bytes = PROBE_ELEMS * shoal_type_size(type);
    unsigned char in[PROBE_ELEMS * 8], mpi[PROBE_ELEMS * 8], mine[PROBE_ELEMS * 8];
    probe_fill(in, bytes, type, 12345u + (uint32_t)type);
    probe_fill(mpi, bytes, type, 777u + (uint32_t)op);
    shoal__copy(mine, mpi, bytes);
    int ok = MPI_Reduce_local(in, mpi, PROBE_ELEMS, shoal__mpi_datatype(type), shoal__mpi_op(op)) ==
             MPI_SUCCESS;
    coll_reduce_local(mine, in, PROBE_ELEMS, type, op);
    ok = ok && !memcmp(mpi, mine, bytes);
    __atomic_store_n(&kernel_verdict[type][op], (signed char)(ok ? 1 : -1), __ATOMIC_RELAXED);
    return ok;
}

const char *coll_native_not_applicable(const coll_args_t *a) {
    if (a->team->comm == MPI_COMM_NULL) return "the team has no MPI communicator";
    switch (a->kind) {
    case COLL_BROADCAST:
        return fits_int(a->nbytes) ? NULL : "message larger than one MPI count (2 GiB - 1)";
    case COLL_COLLECT: /* every block and offset is within the total */
        return fits_int(a->total) ? NULL : "result larger than one MPI count (2 GiB - 1)";
    case COLL_FCOLLECT:
    case COLL_ALLTOALL:
        return fits_int(a->nbytes) && fits_int(a->nbytes * (size_t)a->p)
                   ? NULL
                   : "blocks beyond one MPI count (2 GiB - 1)";
    case COLL_ALLTOALLS:
        return "no native form (the strided blocks would need derived datatypes)";
    case COLL_REDUCE:
    case COLL_SCAN:
        if (shoal__mpi_datatype(a->type) == MPI_DATATYPE_NULL ||
            shoal__mpi_op(a->op) == MPI_OP_NULL ||
            (a->op >= SHOAL_RED_AND && !coll_type_is_integer(a->type)))
            return "no MPI datatype or operation for it";
        /* Each member's result would keep its own 6 padding bytes per element: not identical */
        if (a->type == SHOAL_TYPE_LONGDOUBLE) return "long double (MPI leaves its padding bytes)";
        if (!fits_int(a->count)) return "more elements than one MPI count (2 GiB - 1)";
        return mpi_kernel_agrees(a->type, a->op) ? NULL
                                                 : "this MPI's reduction kernel for the type and "
                                                   "operation disagrees with Shoal's (checked with "
                                                   "MPI_Reduce_local)";
    default:
        return NULL;
    }
}

static int overlaps(const char *x, size_t xn, const char *y, size_t yn) {
    return xn && yn && x < y + yn && y < x + xn;
}

/* src, or a private copy of it when it shares bytes with the dest range (freed by the caller). */
static shoal_err_t separate_src(const coll_args_t *a, size_t src_bytes, size_t dest_bytes,
                                const char **src, char **copy) {
    *src = a->slocal;
    *copy = NULL;
    if (!overlaps(a->slocal, src_bytes, a->dlocal, dest_bytes)) return SHOAL_OK;
    *copy = malloc(src_bytes);
    if (!*copy) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory (%zu bytes)", src_bytes);
    shoal__copy(*copy, a->slocal, src_bytes);
    *src = *copy;
    return SHOAL_OK;
}

static shoal_err_t native_bcast(coll_args_t *a, MPI_Comm comm) {
    if (a->me == a->root) {
        SHOAL_MPI(MPI_Bcast(a->slocal, (int)a->nbytes, MPI_BYTE, a->root, comm));
        if (!a->root_keeps_dest && a->dlocal != a->slocal)
            shoal__move(a->dlocal, a->slocal, a->nbytes);
        return SHOAL_OK;
    }
    SHOAL_MPI(MPI_Bcast(a->dlocal, (int)a->nbytes, MPI_BYTE, a->root, comm));
    return SHOAL_OK;
}

static shoal_err_t native_collect(coll_args_t *a, MPI_Comm comm) {
    if (a->mpi_blocks) { /* every block came with the sizes (api.c exchange_sizes_mpi) */
        for (int32_t r = 0; r < a->p; r++)
            if (a->sizes[r])
                shoal__copy(a->dlocal + a->offsets[r], a->mpi_cells + a->mpi_cell * (size_t)r + 8,
                            a->sizes[r]);
        return SHOAL_OK;
    }
    int *counts = malloc(2 * (size_t)a->p * sizeof *counts);
    if (!counts) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    int *displs = counts + a->p;
    for (int32_t r = 0; r < a->p; r++) {
        counts[r] = (int)a->sizes[r];
        displs[r] = (int)a->offsets[r];
    }
    const char *src = NULL;
    char *copy = NULL;
    shoal_err_t err = separate_src(a, a->nbytes, a->total, &src, &copy);
    if (err == SHOAL_OK) {
        int rc = MPI_Allgatherv(src, (int)a->nbytes, MPI_BYTE, a->dlocal, counts, displs, MPI_BYTE,
                                comm);
        if (rc != MPI_SUCCESS) err = shoal__mpi_fail(rc, "MPI_Allgatherv");
    }
    free(copy);
    free(counts);
    return err;
}

/* fcollect and alltoall: blocks of nbytes; src holds one block (fcollect) or p (alltoall). */
static shoal_err_t native_blocks(coll_args_t *a, MPI_Comm comm) {
    size_t n = a->nbytes, all = n * (size_t)a->p;
    int fcollect = a->kind == COLL_FCOLLECT;
    const char *src = NULL;
    char *copy = NULL;
    SHOAL_TRY(separate_src(a, fcollect ? n : all, all, &src, &copy));
    int rc = fcollect ? MPI_Allgather(src, (int)n, MPI_BYTE, a->dlocal, (int)n, MPI_BYTE, comm)
                      : MPI_Alltoall(src, (int)n, MPI_BYTE, a->dlocal, (int)n, MPI_BYTE, comm);
    free(copy);
    if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, fcollect ? "MPI_Allgather" : "MPI_Alltoall");
    return SHOAL_OK;
}

static shoal_err_t native_reduce(coll_args_t *a, MPI_Comm comm) {
    MPI_Datatype type = shoal__mpi_datatype(a->type);
    int count = (int)a->count;
    size_t bytes = a->count * shoal_type_size(a->type);
    const char *own = NULL; /* src, or its copy where it shares bytes with dest */
    char *copy = NULL;
    int in_place = a->dlocal == a->slocal;
    if (!in_place) SHOAL_TRY(separate_src(a, bytes, bytes, &own, &copy));
    const void *src = in_place ? MPI_IN_PLACE : (const void *)own;
    int rc = MPI_SUCCESS;
    const char *what = "MPI_Allreduce";
    if (a->kind == COLL_REDUCE) {
        rc = MPI_Allreduce(src, a->dlocal, count, type, shoal__mpi_op(a->op), comm);
    } else if (a->inclusive) {
        what = "MPI_Scan";
        rc = MPI_Scan(src, a->dlocal, count, type, MPI_SUM, comm);
    } else {
        what = "MPI_Exscan";
        rc = MPI_Exscan(src, a->dlocal, count, type, MPI_SUM, comm);
        if (rc == MPI_SUCCESS && a->me == 0) memset(a->dlocal, 0, bytes); /* MPI leaves it */
    }
    free(copy);
    if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, what);
    return SHOAL_OK;
}

shoal_err_t coll_native(coll_args_t *a) {
    MPI_Comm comm = a->team->comm;
    switch (a->kind) {
    case COLL_BARRIER:
        SHOAL_MPI(MPI_Barrier(comm));
        break;
    case COLL_BROADCAST:
        SHOAL_TRY(native_bcast(a, comm));
        break;
    case COLL_COLLECT:
        SHOAL_TRY(native_collect(a, comm));
        break;
    case COLL_FCOLLECT:
    case COLL_ALLTOALL:
        SHOAL_TRY(native_blocks(a, comm));
        break;
    case COLL_REDUCE:
    case COLL_SCAN:
        SHOAL_TRY(native_reduce(a, comm));
        break;
    default:
        return shoal__fail(SHOAL_ERR_UNSUPPORTED, "no native %s", coll_kind_name(a->kind));
    }
    return SHOAL_OK;
}
