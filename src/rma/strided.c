/* Strided put/get: nelems elements of elem_size bytes. Direct path: one copy per element. MPI
 * path: one MPI_Put/MPI_Get with an hvector datatype on each side, then flush. */
#include <stdatomic.h>
#include <string.h>

#include "rma.h"

static shoal_err_t check(const void *local, ptrdiff_t local_stride, shoal_gptr_t remote,
                         ptrdiff_t remote_stride, size_t elem, size_t n, shoal_target_t *t) {
    if (!local && n && elem) return shoal__fail(SHOAL_ERR_INVAL, "NULL local buffer");
    if (n > 1 && (local_stride < (ptrdiff_t)elem || remote_stride < (ptrdiff_t)elem))
        return shoal__fail(SHOAL_ERR_INVAL,
                           "strides (%td local, %td remote) must be at least the "
                           "element size %zu",
                           local_stride, remote_stride, elem);
    if (elem > (size_t)1 << 30 || n > (size_t)1 << 30)
        return shoal__fail(SHOAL_ERR_INVAL, "element size or count beyond 2^30");
    /* The remote span: from the first element's start to the last element's end. */
    size_t span = n ? (size_t)remote_stride * (n - 1) + elem : 0;
    if (n && (n - 1) && (size_t)remote_stride > (SIZE_MAX - elem) / (n - 1))
        return shoal__fail(SHOAL_ERR_BOUNDS, "strided span overflows");
    return shoal__resolve(remote, span, t);
}

static shoal_err_t strided(int is_put, char *local, ptrdiff_t ls, const shoal_target_t *t,
                           ptrdiff_t rs, size_t elem, size_t n) {
    if (!n || !elem) return SHOAL_OK;
    if (t->addr) {
        if (!is_put) atomic_thread_fence(memory_order_acquire);
        for (size_t i = 0; i < n; i++) {
            char *r = t->addr + (ptrdiff_t)i * rs, *l = local + (ptrdiff_t)i * ls;
            memmove(is_put ? r : l, is_put ? l : r, elem);
        }
        if (is_put) atomic_thread_fence(memory_order_seq_cst);
        return SHOAL_OK;
    }
    SHOAL_TRY(shoal__settle(t->seg));
    MPI_Datatype lt, rt;
    SHOAL_MPI(MPI_Type_create_hvector((int)n, (int)elem, (MPI_Aint)ls, MPI_BYTE, &lt));
    int trc = MPI_Type_create_hvector((int)n, (int)elem, (MPI_Aint)rs, MPI_BYTE, &rt);
    if (trc != MPI_SUCCESS) {
        MPI_Type_free(&lt);
        return shoal__mpi_fail(trc, "MPI_Type_create_hvector");
    }
    MPI_Type_commit(&lt);
    MPI_Type_commit(&rt);
    int rc = is_put ? MPI_Put(local, 1, lt, t->rank, t->disp, 1, rt, t->seg->win)
                    : MPI_Get(local, 1, lt, t->rank, t->disp, 1, rt, t->seg->win);
    if (rc == MPI_SUCCESS) rc = MPI_Win_flush(t->rank, t->seg->win);
    MPI_Type_free(&lt);
    MPI_Type_free(&rt);
    if (rc != MPI_SUCCESS)
        return shoal__mpi_fail(rc, is_put ? "strided MPI_Put" : "strided MPI_Get");
    return SHOAL_OK;
}

shoal_err_t shoal_put_strided(shoal_gptr_t dest, ptrdiff_t dest_stride, const void *src,
                              ptrdiff_t src_stride, size_t elem_size, size_t nelems) {
    SHOAL_ENTER("shoal_put_strided");
    shoal_target_t t = {0};
    SHOAL_TRY(check(src, src_stride, dest, dest_stride, elem_size, nelems, &t));
    return strided(1, (char *)src, src_stride, &t, dest_stride, elem_size, nelems);
}

shoal_err_t shoal_get_strided(void *dest, ptrdiff_t dest_stride, shoal_gptr_t src,
                              ptrdiff_t src_stride, size_t elem_size, size_t nelems) {
    SHOAL_ENTER("shoal_get_strided");
    shoal_target_t t = {0};
    SHOAL_TRY(check(dest, dest_stride, src, src_stride, elem_size, nelems, &t));
    return strided(0, dest, dest_stride, &t, src_stride, elem_size, nelems);
}
