/* RMA (OpenSHMEM 1.5 sections 9.5 and 9.8.1-2): put, get, p, g, iput, iget, the non-blocking
 * forms and put-with-signal, typed, sized and in bytes, each with a context form. Every form
 * comes down to one of the byte routines below, which resolve the symmetric address once and
 * run Shoal's put/get: on the direct path a copy into the peer's mapping, else MPI RMA.
 *
 * Completion: a blocking put returns with the data at the target (stronger than the source-reuse
 * the specification asks for, and what Shoal's put gives); a non-blocking one completes at the
 * next quiet of its context (on the direct path it completes at once). */
#include <string.h>

#include "rma/rma.h"
#include "shmem_internal.h"

/* The MPI path (and the non-blocking forms through MPI) of put_bytes/get_bytes: cold, so the
 * direct path in line needs no stack frame. */
static __attribute__((noinline, cold)) void put_mpi(shmem_ctx_t ctx, void *dest, const void *src,
                                                    size_t n, int pe, int nbi, segment_t *seg,
                                                    int32_t rank, MPI_Aint disp) {
    if (!nbi) {
        shoal_target_t t = {seg, NULL, rank, disp};
        shoal__put(&t, src, n);
        return;
    }
    const char *call = shoal__current_call;
    shoal_gptr_t gp;
    shoal_handle_t h = SHOAL_HANDLE_NULL;
    if (shmem__gptr(dest, n, pe, &gp) == SHOAL_OK && shoal_put_nb(gp, src, n, &h) == SHOAL_OK)
        shmem__ctx_track(ctx, h);
    shoal__current_call = call;
}

static __attribute__((noinline, cold)) void get_mpi(shmem_ctx_t ctx, void *dest, const void *src,
                                                    size_t n, int pe, int nbi, segment_t *seg,
                                                    int32_t rank, MPI_Aint disp) {
    if (!nbi) {
        shoal_target_t t = {seg, NULL, rank, disp};
        shoal__get(dest, &t, n);
        return;
    }
    const char *call = shoal__current_call;
    shoal_gptr_t gp;
    shoal_handle_t h = SHOAL_HANDLE_NULL;
    if (shmem__gptr(src, n, pe, &gp) == SHOAL_OK && shoal_get_nb(dest, gp, n, &h) == SHOAL_OK)
        shmem__ctx_track(ctx, h);
    shoal__current_call = call;
}

/* On the direct path a copy into (out of) the peer's mapping and a fence, in line: the non-
 * blocking forms complete at once there too. */
static inline void put_bytes(shmem_ctx_t ctx, void *dest, const void *src, size_t n, int pe,
                             int nbi) {
    if (n == 0) return; /* legal with any address, NULL included */
    shoal_target_t t = {0};
    if ((ctx != SHMEM_CTX_DEFAULT && (pe = shmem__ctx_target_pe(ctx, pe)) < 0) ||
        shmem__target(dest, n, pe, &t) != SHOAL_OK)
        return;
    if (__builtin_expect(t.addr != NULL, 1)) {
        shoal__copy_bytes(t.addr, src, n);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return;
    }
    put_mpi(ctx, dest, src, n, pe, nbi, t.seg, t.rank, t.disp);
}

static inline void get_bytes(shmem_ctx_t ctx, void *dest, const void *src, size_t n, int pe,
                             int nbi) {
    if (n == 0) return;
    shoal_target_t t = {0};
    if ((ctx != SHMEM_CTX_DEFAULT && (pe = shmem__ctx_target_pe(ctx, pe)) < 0) ||
        shmem__target(src, n, pe, &t) != SHOAL_OK)
        return;
    if (__builtin_expect(t.addr != NULL, 1)) {
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        shoal__copy_bytes(dest, t.addr, n);
        return;
    }
    get_mpi(ctx, dest, src, n, pe, nbi, t.seg, t.rank, t.disp);
}

/* Strided: element k of the remote object is at remote + k * rstride elements, of the local one
 * at local + k * lstride. Strides are positive (the specification's "stride"; 0 or negative is
 * reported). */
static void strided_bytes(shmem_ctx_t ctx, int is_put, void *dest, const void *src, ptrdiff_t dst,
                          ptrdiff_t sst, size_t elem, size_t nelems, int pe) {
    if (nelems == 0) return;
    if (dst <= 0 || sst <= 0) {
        shoal__fail(SHOAL_ERR_INVAL, "strides must be positive (dst %td, sst %td)", dst, sst);
        return;
    }
    ptrdiff_t rstride = is_put ? dst : sst, lstride = is_put ? sst : dst;
    size_t extent;
    if (__builtin_mul_overflow((size_t)rstride, nelems - 1, &extent) ||
        __builtin_add_overflow(extent, 1, &extent) ||
        __builtin_mul_overflow(extent, elem, &extent)) {
        shoal__fail(SHOAL_ERR_INVAL, "%zu elements at stride %td overflow", nelems, rstride);
        return;
    }
    const void *remote = is_put ? (const void *)dest : src;
    shoal_target_t t = {0};
    if ((ctx != SHMEM_CTX_DEFAULT && (pe = shmem__ctx_target_pe(ctx, pe)) < 0) ||
        shmem__target(remote, extent, pe, &t) != SHOAL_OK)
        return;
    if (t.addr) { /* the peer's memory is mapped: copy element by element */
        char *d = is_put ? t.addr : (char *)dest;
        const char *s = is_put ? (const char *)src : t.addr;
        ptrdiff_t ds = (is_put ? rstride : lstride) * (ptrdiff_t)elem;
        ptrdiff_t ss = (is_put ? lstride : rstride) * (ptrdiff_t)elem;
        if (!is_put) __atomic_thread_fence(__ATOMIC_ACQUIRE);
        for (size_t k = 0; k < nelems; k++)
            memcpy(d + (ptrdiff_t)k * ds, s + (ptrdiff_t)k * ss, elem);
        if (is_put) __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return;
    }
    const char *call = shoal__current_call;
    shoal_gptr_t gp;
    if (shmem__gptr(remote, extent, pe, &gp) == SHOAL_OK) {
        if (is_put)
            shoal_put_strided(gp, rstride * (ptrdiff_t)elem, src, lstride * (ptrdiff_t)elem, elem,
                              nelems);
        else
            shoal_get_strided(dest, lstride * (ptrdiff_t)elem, gp, rstride * (ptrdiff_t)elem, elem,
                              nelems);
    }
    shoal__current_call = call;
}

/* put_signal_bytes past its direct path, out of its way: what it refuses, reported, or the MPI
 * path on targets resolved once more here (handing the caller's over made the direct path keep
 * them in memory: 141 -> 160 instructions; through global pointers they were resolved twice). */
static __attribute__((noinline, cold)) void put_signal_rest(void *dest, const void *src, size_t n,
                                                            uint64_t *sig_addr, uint64_t signal,
                                                            shoal_signal_op_t op, int pe) {
    shoal_target_t td = {0}, ts;
    if (n && !src)
        shoal__fail(SHOAL_ERR_INVAL, "NULL source buffer for %zu bytes", n);
    else if ((uintptr_t)sig_addr & 7)
        shoal__fail(SHOAL_ERR_ALIGN, "the signal word at %p is not 8-byte aligned",
                    (void *)sig_addr);
    else if (shmem__target(sig_addr, sizeof *sig_addr, pe, &ts) == SHOAL_OK &&
             (!n || shmem__target(dest, n, pe, &td) == SHOAL_OK))
        shoal__put_signal_targets(&td, src, n, &ts, signal, op);
}

static void put_signal_bytes(shmem_ctx_t ctx, void *dest, const void *src, size_t n,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD) {
        shoal__fail(SHOAL_ERR_INVAL, "sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD",
                    sig_op);
        return;
    }
    if (ctx != SHMEM_CTX_DEFAULT && (pe = shmem__ctx_target_pe(ctx, pe)) < 0) return;
    shoal_signal_op_t op = sig_op == SHMEM_SIGNAL_SET ? SHOAL_SIGNAL_SET : SHOAL_SIGNAL_ADD;
    /* The direct path straight from the addresses (no global pointers made and resolved again):
     * the program's half of a put-with-signal ping-pong, 297 instructions a call before. */
    shoal_target_t td = {0}, ts;
    if (shmem__target(sig_addr, sizeof *sig_addr, pe, &ts) != SHOAL_OK ||
        (n && shmem__target(dest, n, pe, &td) != SHOAL_OK))
        return;
    if (((uintptr_t)sig_addr & 7) == 0 && (src || !n) &&
        shoal__put_signal_direct(&td, src, n, &ts, signal, op))
        return;
    put_signal_rest(dest, src, n, sig_addr, signal, op, pe);
}

/* ---- The typed, sized and byte forms ---------------------------------------------------------
 * Each public routine names itself (for messages) and calls a byte routine. */
#define DEFINE_RMA_FORMS(N, T, SZ)                                                                 \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {   \
        SHMEM_ENTER("shmem_ctx_" #N "_put");                                                       \
        put_bytes(ctx, dest, source, nelems *(SZ), pe, 0);                                         \
    }                                                                                              \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe) {                        \
        SHMEM_ENTER("shmem_" #N "_put");                                                           \
        put_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems *(SZ), pe, 0);                           \
    }                                                                                              \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {   \
        SHMEM_ENTER("shmem_ctx_" #N "_get");                                                       \
        get_bytes(ctx, dest, source, nelems *(SZ), pe, 0);                                         \
    }                                                                                              \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe) {                        \
        SHMEM_ENTER("shmem_" #N "_get");                                                           \
        get_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems *(SZ), pe, 0);                           \
    }                                                                                              \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,         \
                                 int pe) {                                                         \
        SHMEM_ENTER("shmem_ctx_" #N "_put_nbi");                                                   \
        put_bytes(ctx, dest, source, nelems *(SZ), pe, 1);                                         \
    }                                                                                              \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe) {                    \
        SHMEM_ENTER("shmem_" #N "_put_nbi");                                                       \
        put_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems *(SZ), pe, 1);                           \
    }                                                                                              \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,         \
                                 int pe) {                                                         \
        SHMEM_ENTER("shmem_ctx_" #N "_get_nbi");                                                   \
        get_bytes(ctx, dest, source, nelems *(SZ), pe, 1);                                         \
    }                                                                                              \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe) {                    \
        SHMEM_ENTER("shmem_" #N "_get_nbi");                                                       \
        get_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems *(SZ), pe, 1);                           \
    }                                                                                              \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,            \
                              ptrdiff_t sst, size_t nelems, int pe) {                              \
        SHMEM_ENTER("shmem_ctx_" #N "_iput");                                                      \
        strided_bytes(ctx, 1, dest, source, dst, sst, (SZ), nelems, pe);                           \
    }                                                                                              \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                          int pe) {                                                                \
        SHMEM_ENTER("shmem_" #N "_iput");                                                          \
        strided_bytes(SHMEM_CTX_DEFAULT, 1, dest, source, dst, sst, (SZ), nelems, pe);             \
    }                                                                                              \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,            \
                              ptrdiff_t sst, size_t nelems, int pe) {                              \
        SHMEM_ENTER("shmem_ctx_" #N "_iget");                                                      \
        strided_bytes(ctx, 0, dest, source, dst, sst, (SZ), nelems, pe);                           \
    }                                                                                              \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                          int pe) {                                                                \
        SHMEM_ENTER("shmem_" #N "_iget");                                                          \
        strided_bytes(SHMEM_CTX_DEFAULT, 0, dest, source, dst, sst, (SZ), nelems, pe);             \
    }                                                                                              \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,      \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {     \
        SHMEM_ENTER("shmem_ctx_" #N "_put_signal");                                                \
        put_signal_bytes(ctx, dest, source, nelems *(SZ), sig_addr, signal, sig_op, pe);           \
    }                                                                                              \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,       \
                                uint64_t signal, int sig_op, int pe) {                             \
        SHMEM_ENTER("shmem_" #N "_put_signal");                                                    \
        put_signal_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems *(SZ), sig_addr, signal, sig_op,  \
                         pe);                                                                      \
    }                                                                                              \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,  \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
        SHMEM_ENTER("shmem_ctx_" #N "_put_signal_nbi");                                            \
        put_signal_bytes(ctx, dest, source, nelems *(SZ), sig_addr, signal, sig_op, pe);           \
    }                                                                                              \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,   \
                                    uint64_t signal, int sig_op, int pe) {                         \
        SHMEM_ENTER("shmem_" #N "_put_signal_nbi");                                                \
        put_signal_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems *(SZ), sig_addr, signal, sig_op,  \
                         pe);                                                                      \
    }

/* Typed: also p and g (one element). */
#define DEFINE_RMA_TYPED(T, N)                                                                     \
    DEFINE_RMA_FORMS(N, T, sizeof(T))                                                              \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe) {                            \
        SHMEM_ENTER("shmem_ctx_" #N "_p");                                                         \
        put_bytes(ctx, dest, &value, sizeof(T), pe, 0);                                            \
    }                                                                                              \
    void shmem_##N##_p(T *dest, T value, int pe) {                                                 \
        SHMEM_ENTER("shmem_" #N "_p");                                                             \
        put_bytes(SHMEM_CTX_DEFAULT, dest, &value, sizeof(T), pe, 0);                              \
    }                                                                                              \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe) {                                \
        SHMEM_ENTER("shmem_ctx_" #N "_g");                                                         \
        T value;                                                                                   \
        memset(&value, 0, sizeof value);                                                           \
        get_bytes(ctx, &value, source, sizeof(T), pe, 0);                                          \
        return value;                                                                              \
    }                                                                                              \
    T shmem_##N##_g(const T *source, int pe) {                                                     \
        SHMEM_ENTER("shmem_" #N "_g");                                                             \
        T value;                                                                                   \
        memset(&value, 0, sizeof value);                                                           \
        get_bytes(SHMEM_CTX_DEFAULT, &value, source, sizeof(T), pe, 0);                            \
        return value;                                                                              \
    }
SHMEM_RMA_TYPES(DEFINE_RMA_TYPED)

/* Sized (shmem_put32 ...: S is bits). The size sits inside the name (put32_nbi, iput32), so these
 * have a generator of their own. */
#define DEFINE_RMA_SIZED(S)                                                                        \
    void shmem_ctx_put##S(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,          \
                          int pe) {                                                                \
        SHMEM_ENTER("shmem_ctx_put" #S);                                                           \
        put_bytes(ctx, dest, source, nelems *(S / 8), pe, 0);                                      \
    }                                                                                              \
    void shmem_put##S(void *dest, const void *source, size_t nelems, int pe) {                     \
        SHMEM_ENTER("shmem_put" #S);                                                               \
        put_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems *(S / 8), pe, 0);                        \
    }                                                                                              \
    void shmem_ctx_get##S(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,          \
                          int pe) {                                                                \
        SHMEM_ENTER("shmem_ctx_get" #S);                                                           \
        get_bytes(ctx, dest, source, nelems *(S / 8), pe, 0);                                      \
    }                                                                                              \
    void shmem_get##S(void *dest, const void *source, size_t nelems, int pe) {                     \
        SHMEM_ENTER("shmem_get" #S);                                                               \
        get_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems *(S / 8), pe, 0);                        \
    }                                                                                              \
    void shmem_ctx_put##S##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,    \
                                int pe) {                                                          \
        SHMEM_ENTER("shmem_ctx_put" #S "_nbi");                                                    \
        put_bytes(ctx, dest, source, nelems *(S / 8), pe, 1);                                      \
    }                                                                                              \
    void shmem_put##S##_nbi(void *dest, const void *source, size_t nelems, int pe) {               \
        SHMEM_ENTER("shmem_put" #S "_nbi");                                                        \
        put_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems *(S / 8), pe, 1);                        \
    }                                                                                              \
    void shmem_ctx_get##S##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,    \
                                int pe) {                                                          \
        SHMEM_ENTER("shmem_ctx_get" #S "_nbi");                                                    \
        get_bytes(ctx, dest, source, nelems *(S / 8), pe, 1);                                      \
    }                                                                                              \
    void shmem_get##S##_nbi(void *dest, const void *source, size_t nelems, int pe) {               \
        SHMEM_ENTER("shmem_get" #S "_nbi");                                                        \
        get_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems *(S / 8), pe, 1);                        \
    }                                                                                              \
    void shmem_ctx_iput##S(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,         \
                           ptrdiff_t sst, size_t nelems, int pe) {                                 \
        SHMEM_ENTER("shmem_ctx_iput" #S);                                                          \
        strided_bytes(ctx, 1, dest, source, dst, sst, S / 8, nelems, pe);                          \
    }                                                                                              \
    void shmem_iput##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,               \
                       size_t nelems, int pe) {                                                    \
        SHMEM_ENTER("shmem_iput" #S);                                                              \
        strided_bytes(SHMEM_CTX_DEFAULT, 1, dest, source, dst, sst, S / 8, nelems, pe);            \
    }                                                                                              \
    void shmem_ctx_iget##S(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,         \
                           ptrdiff_t sst, size_t nelems, int pe) {                                 \
        SHMEM_ENTER("shmem_ctx_iget" #S);                                                          \
        strided_bytes(ctx, 0, dest, source, dst, sst, S / 8, nelems, pe);                          \
    }                                                                                              \
    void shmem_iget##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,               \
                       size_t nelems, int pe) {                                                    \
        SHMEM_ENTER("shmem_iget" #S);                                                              \
        strided_bytes(SHMEM_CTX_DEFAULT, 0, dest, source, dst, sst, S / 8, nelems, pe);            \
    }                                                                                              \
    void shmem_ctx_put##S##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {      \
        SHMEM_ENTER("shmem_ctx_put" #S "_signal");                                                 \
        put_signal_bytes(ctx, dest, source, nelems *(S / 8), sig_addr, signal, sig_op, pe);        \
    }                                                                                              \
    void shmem_put##S##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,  \
                               uint64_t signal, int sig_op, int pe) {                              \
        SHMEM_ENTER("shmem_put" #S "_signal");                                                     \
        put_signal_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems *(S / 8), sig_addr, signal,       \
                         sig_op, pe);                                                              \
    }                                                                                              \
    void shmem_ctx_put##S##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,            \
                                       size_t nelems, uint64_t *sig_addr, uint64_t signal,         \
                                       int sig_op, int pe) {                                       \
        SHMEM_ENTER("shmem_ctx_put" #S "_signal_nbi");                                             \
        put_signal_bytes(ctx, dest, source, nelems *(S / 8), sig_addr, signal, sig_op, pe);        \
    }                                                                                              \
    void shmem_put##S##_signal_nbi(void *dest, const void *source, size_t nelems,                  \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {      \
        SHMEM_ENTER("shmem_put" #S "_signal_nbi");                                                 \
        put_signal_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems *(S / 8), sig_addr, signal,       \
                         sig_op, pe);                                                              \
    }
SHMEM_RMA_SIZES(DEFINE_RMA_SIZED)

/* The byte forms. */
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) {
    SHMEM_ENTER("shmem_ctx_putmem");
    put_bytes(ctx, dest, source, nelems, pe, 0);
}
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe) {
    SHMEM_ENTER("shmem_putmem");
    put_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems, pe, 0);
}
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) {
    SHMEM_ENTER("shmem_ctx_getmem");
    get_bytes(ctx, dest, source, nelems, pe, 0);
}
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe) {
    SHMEM_ENTER("shmem_getmem");
    get_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems, pe, 0);
}
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) {
    SHMEM_ENTER("shmem_ctx_putmem_nbi");
    put_bytes(ctx, dest, source, nelems, pe, 1);
}
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe) {
    SHMEM_ENTER("shmem_putmem_nbi");
    put_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems, pe, 1);
}
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe) {
    SHMEM_ENTER("shmem_ctx_getmem_nbi");
    get_bytes(ctx, dest, source, nelems, pe, 1);
}
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe) {
    SHMEM_ENTER("shmem_getmem_nbi");
    get_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems, pe, 1);
}
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
    SHMEM_ENTER("shmem_ctx_putmem_signal");
    put_signal_bytes(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe);
}
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                         uint64_t signal, int sig_op, int pe) {
    SHMEM_ENTER("shmem_putmem_signal");
    put_signal_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems, sig_addr, signal, sig_op, pe);
}
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
    SHMEM_ENTER("shmem_ctx_putmem_signal_nbi");
    put_signal_bytes(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe);
}
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe) {
    SHMEM_ENTER("shmem_putmem_signal_nbi");
    put_signal_bytes(SHMEM_CTX_DEFAULT, dest, source, nelems, sig_addr, signal, sig_op, pe);
}

/* shmem.h's in-line shmem_signal_fetch reads these: my symmetric words' extents while remote PEs
 * update them with CPU atomics (sizes 0 otherwise, and outside shmem_init .. shmem_finalize). */
uintptr_t shmem__local_words_base[2];
size_t shmem__local_words_size[2];
int shmem__local_words_pe = -1; /* and in-line shmem_TYPENAME_atomic_fetch, this PE's number */

void shmem__local_words_publish(int on) {
    __atomic_store_n(&shmem__local_words_pe, on ? (int)shoal__rt.myid : -1, __ATOMIC_RELAXED);
    const shmem_region_t *regions[2] = {&shmem__heap, &shmem__data};
    for (int r = 0; r < 2; r++) {
        const shmem_region_t *g = regions[r];
        int direct = on && g->seg && g->seg->atomics_direct;
        __atomic_store_n(&shmem__local_words_size[r], 0, __ATOMIC_RELAXED);
        shmem__local_words_base[r] = direct ? (uintptr_t)g->base : 0;
        __atomic_store_n(&shmem__local_words_size[r], direct ? g->size : 0, __ATOMIC_RELEASE);
    }
}

/* The library's routine behind shmem.h's in-line shmem_signal_fetch. */
uint64_t shmem__signal_fetch_slow(const uint64_t *sig_addr) {
    return shmem_signal_fetch(sig_addr);
}

/* shmem_signal_fetch's path for what its fast path leaves: reports what is wrong, MPI atomics. */
static __attribute__((noinline, cold)) uint64_t signal_fetch_slow(const uint64_t *sig_addr) {
    shoal_target_t t = {0};
    uint64_t v = 0;
    if (!shmem__ready() || shmem__target(sig_addr, sizeof v, (int)shoal__rt.myid, &t) != SHOAL_OK)
        return 0;
    if ((uintptr_t)sig_addr & 7) {
        shoal__fail(SHOAL_ERR_ALIGN, "the signal word at %p is not 8-byte aligned",
                    (const void *)sig_addr);
        return 0;
    }
    shoal__amo(&t, AMO_LOAD, SHOAL_OP_SUM, SHOAL_UINT64, NULL, NULL, &v);
    return v;
}

/* Programs poll it in loops of their own: a CPU-atomic word of mine is read in line, with no
 * stack frame (the other paths are a call of their own: pushes and pops on every poll cost a
 * hand-off's worth on an Intel Xeon, src/zcom/zcom.c). 120 instructions a call before, session 34.
 */
uint64_t shmem_signal_fetch(const uint64_t *sig_addr) {
    SHMEM_ENTER("shmem_signal_fetch");
    const char *a = shmem__my_word(sig_addr, sizeof *sig_addr);
    if (__builtin_expect(a != NULL, 1))
        return __atomic_load_n((const uint64_t *)(const void *)a, __ATOMIC_SEQ_CST);
    return signal_fetch_slow(sig_addr);
}

/* Elements per shoal_put_strided call. */
#define STRIDED_CHUNK ((size_t)1 << 20)

shoal_err_t shmem__put_strided_any(shoal_gptr_t to, size_t dstep, const char *from, size_t sstep,
                                   size_t esize, size_t nelems) {
    if (dstep == esize && sstep == esize) /* contiguous: one copy, not an element at a time */
        return nelems ? shoal_put(to, from, nelems * esize) : SHOAL_OK;
    shoal_err_t err = SHOAL_OK;
    for (size_t k = 0; k < nelems && err == SHOAL_OK; k += STRIDED_CHUNK) {
        size_t n = nelems - k < STRIDED_CHUNK ? nelems - k : STRIDED_CHUNK;
        err = shoal_put_strided(shoal_gptr_add(to, (int64_t)(k * dstep)), (ptrdiff_t)dstep,
                                from + k * sstep, (ptrdiff_t)sstep, esize, n);
    }
    return err;
}
