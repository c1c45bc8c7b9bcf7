/* Blocking put/get, flush and fence. On the direct path a put is a memcpy into the peer's
 * mapping followed by a full fence (the stores are globally visible before any later access of
 * ours: remote completion); on the MPI path MPI_Put + MPI_Win_flush (flush = remote completion
 * in passive target). */
#include <limits.h>
#include <stdatomic.h>
#include <string.h>

#include "rma.h"

/* MPI counts are int: move larger transfers in 1 GiB pieces. */
#define MPI_CHUNK ((size_t)1 << 30)

shoal_err_t shoal__put(const shoal_target_t *t, const void *src, size_t n) {
    if (t->addr) {
        shoal__copy_bytes(t->addr, src, n);
        atomic_thread_fence(memory_order_seq_cst);
        return SHOAL_OK;
    }
    SHOAL_TRY(shoal__settle(t->seg));
    MPI_Win win = t->seg->win;
    for (size_t done = 0; done < n; done += MPI_CHUNK) {
        int len = (int)(n - done < MPI_CHUNK ? n - done : MPI_CHUNK);
        SHOAL_MPI(MPI_Put((const char *)src + done, len, MPI_BYTE, t->rank,
                          t->disp + (MPI_Aint)done, len, MPI_BYTE, win));
    }
    SHOAL_MPI(MPI_Win_flush(t->rank, win));
    return SHOAL_OK;
}

shoal_err_t shoal__get(void *dst, const shoal_target_t *t, size_t n) {
    if (t->addr) {
        atomic_thread_fence(memory_order_acquire); /* see what earlier synchronisation published */
        shoal__copy_bytes(dst, t->addr, n);
        return SHOAL_OK;
    }
    SHOAL_TRY(shoal__settle(t->seg));
    MPI_Win win = t->seg->win;
    for (size_t done = 0; done < n; done += MPI_CHUNK) {
        int len = (int)(n - done < MPI_CHUNK ? n - done : MPI_CHUNK);
        SHOAL_MPI(MPI_Get((char *)dst + done, len, MPI_BYTE, t->rank, t->disp + (MPI_Aint)done, len,
                          MPI_BYTE, win));
    }
    SHOAL_MPI(MPI_Win_flush(t->rank, win));
    return SHOAL_OK;
}

/* The public put and get keep the direct path in line (resolve, copy, fence) and leave the rest
 * to cold functions of their own that take the target in registers, so the fast path needs no
 * stack frame: the instruction budget (tests/perf) counts every instruction of the 8-byte case. */
static __attribute__((noinline, cold)) shoal_err_t
put_rest(segment_t *seg, int32_t rank, MPI_Aint disp, const void *src, size_t nbytes) {
    if (!src && nbytes)
        return shoal__fail(SHOAL_ERR_INVAL, "NULL source buffer for %zu bytes", nbytes);
    if (!nbytes) return SHOAL_OK;
    shoal_target_t t = {seg, NULL, rank, disp};
    return shoal__put(&t, src, nbytes);
}

static __attribute__((noinline, cold)) shoal_err_t
get_rest(void *dest, segment_t *seg, int32_t rank, MPI_Aint disp, size_t nbytes) {
    if (!dest && nbytes)
        return shoal__fail(SHOAL_ERR_INVAL, "NULL destination buffer for %zu bytes", nbytes);
    if (!nbytes) return SHOAL_OK;
    shoal_target_t t = {seg, NULL, rank, disp};
    return shoal__get(dest, &t, nbytes);
}

shoal_err_t shoal_put(shoal_gptr_t dest, const void *src, size_t nbytes) {
    SHOAL_ENTER("shoal_put");
    shoal_target_t t = {0}; /* (kept in registers: the initialisation costs nothing) */
    SHOAL_TRY(shoal__resolve(dest, nbytes, &t));
    if (__builtin_expect(t.addr && src, 1)) {
        shoal__copy_bytes(t.addr, src, nbytes);
        atomic_thread_fence(memory_order_seq_cst);
        return SHOAL_OK;
    }
    /* (a NULL source, nothing to move, or MPI; a mapped target with a NULL source is refused
     * there before anything moves) */
    return put_rest(t.seg, t.rank, t.disp, src, nbytes);
}

shoal_err_t shoal_get(void *dest, shoal_gptr_t src, size_t nbytes) {
    SHOAL_ENTER("shoal_get");
    shoal_target_t t = {0}; /* (kept in registers: the initialisation costs nothing) */
    SHOAL_TRY(shoal__resolve(src, nbytes, &t));
    if (__builtin_expect(t.addr && dest, 1)) {
        atomic_thread_fence(memory_order_acquire); /* see what earlier synchronisation published */
        shoal__copy_bytes(dest, t.addr, nbytes);
        return SHOAL_OK;
    }
    return get_rest(dest, t.seg, t.rank, t.disp, nbytes);
}

shoal_err_t shoal_flush(shoal_gptr_t gp) {
    SHOAL_ENTER("shoal_flush");
    shoal_target_t t = {0};
    SHOAL_TRY(shoal__resolve(gp, 0, &t));
    SHOAL_TRY(shoal__segments_flush((shoal_unit_t)gp.unit));
    atomic_thread_fence(memory_order_seq_cst);
    return SHOAL_OK;
}

shoal_err_t shoal_flush_all(void) {
    SHOAL_ENTER("shoal_flush_all");
    SHOAL_TRY(shoal__segments_flush(-1));
    atomic_thread_fence(memory_order_seq_cst);
    return SHOAL_OK;
}

shoal_err_t shoal_fence(void) {
    SHOAL_ENTER("shoal_fence");
    /* MPI does not order puts to one target; completing them is the portable way to order. */
    SHOAL_TRY(shoal__segments_flush(-1));
    atomic_thread_fence(memory_order_seq_cst);
    return SHOAL_OK;
}
