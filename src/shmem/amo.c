/* Atomic memory operations (OpenSHMEM 1.5 section 9.7), every type of the standard, extended and
 * bitwise tables, blocking and non-blocking fetching forms, with contexts, and the names of 1.0-
 * 1.3. Each maps onto one Shoal atomic on a 32- or 64-bit word (decision 4 of the design: CPU
 * atomics when every PE of the segment is mapped here, MPI atomics otherwise, never both on one
 * word), so 32-bit types are exactly as atomic as 64-bit ones. float and double travel as their
 * bit patterns for fetch, set and swap, which only move bits. The non-blocking fetching forms
 * complete before they return (allowed: the result is only promised at the next quiet). */
#include <string.h>

#include "rma/rma.h"
#include "runtime/wait.h"
#include "shmem_internal.h"

/* Every case shoal__amo_inline does not serve: MPI atomics, CAS, swap, the bitwise operations
 * (cold: the target comes in registers, so the in-line path needs no stack frame). */
static __attribute__((noinline, cold)) int amo_rest(segment_t *seg, char *addr, int32_t rank,
                                                    MPI_Aint disp, amo_kind_t kind,
                                                    shoal_amo_op_t op, size_t size, int is_signed,
                                                    const void *value, const void *cmp,
                                                    void *result) {
    shoal_target_t t = {seg, addr, rank, disp};
    shoal_dtype_t type = size == 4 ? (is_signed ? SHOAL_INT32 : SHOAL_UINT32)
                                   : (is_signed ? SHOAL_INT64 : SHOAL_UINT64);
    return shoal__amo(&t, kind, op, type, value, cmp, result) == SHOAL_OK;
}

/* One atomic on the size-byte object at dest on pe. Returns 0 after reporting a failure. */
static inline int amo(shmem_ctx_t ctx, void *dest, size_t size, int is_signed, amo_kind_t kind,
                      shoal_amo_op_t op, const void *value, const void *cmp, void *result, int pe) {
    shoal_target_t t = {0};
    if ((ctx != SHMEM_CTX_DEFAULT && (pe = shmem__ctx_target_pe(ctx, pe)) < 0) ||
        shmem__target(dest, size, pe, &t) != SHOAL_OK)
        return 0;
    if (__builtin_expect((uintptr_t)dest % size != 0, 0)) {
        shoal__fail(SHOAL_ERR_ALIGN, "%zu-byte atomic on %p, which is not %zu-byte aligned", size,
                    dest, size);
        return 0;
    }
    if (kind == AMO_LOAD || kind == AMO_CAS) shoal__poll_hint(); /* programs poll with these */
    if (shoal__amo_inline(&t, kind, op, size, value, result)) return 1;
    return amo_rest(t.seg, t.addr, t.rank, t.disp, kind, op, size, is_signed, value, cmp, result);
}

#define SIGNED(T) ((T)-1 < (T)1) /* (not "< 0": -Wtype-limits on unsigned types) */

/* fetch, set, swap: float and double as bits (unsigned words of their size). */
#define DEFINE_AMO_EXTENDED(T, N)                                                                  \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe) {                     \
        SHMEM_ENTER("shmem_ctx_" #N "_atomic_fetch");                                              \
        T r;                                                                                       \
        memset(&r, 0, sizeof r);                                                                   \
        amo(ctx, (void *)source, sizeof(T), SIGNED(T), AMO_LOAD, SHOAL_OP_SUM, NULL, NULL, &r,     \
            pe);                                                                                   \
        return r;                                                                                  \
    }                                                                                              \
    T shmem_##N##_atomic_fetch(const T *source, int pe) {                                          \
        SHMEM_ENTER("shmem_" #N "_atomic_fetch");                                                  \
        T r;                                                                                       \
        memset(&r, 0, sizeof r);                                                                   \
        amo(SHMEM_CTX_DEFAULT, (void *)source, sizeof(T), SIGNED(T), AMO_LOAD, SHOAL_OP_SUM, NULL, \
            NULL, &r, pe);                                                                         \
        return r;                                                                                  \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe) {                   \
        SHMEM_ENTER("shmem_ctx_" #N "_atomic_set");                                                \
        amo(ctx, dest, sizeof(T), SIGNED(T), AMO_STORE, SHOAL_OP_SUM, &value, NULL, NULL, pe);     \
    }                                                                                              \
    void shmem_##N##_atomic_set(T *dest, T value, int pe) {                                        \
        SHMEM_ENTER("shmem_" #N "_atomic_set");                                                    \
        amo(SHMEM_CTX_DEFAULT, dest, sizeof(T), SIGNED(T), AMO_STORE, SHOAL_OP_SUM, &value, NULL,  \
            NULL, pe);                                                                             \
    }                                                                                              \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe) {                     \
        SHMEM_ENTER("shmem_ctx_" #N "_atomic_swap");                                               \
        T r;                                                                                       \
        memset(&r, 0, sizeof r);                                                                   \
        amo(ctx, dest, sizeof(T), SIGNED(T), AMO_SWAP, SHOAL_OP_SUM, &value, NULL, &r, pe);        \
        return r;                                                                                  \
    }                                                                                              \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe) {                                          \
        SHMEM_ENTER("shmem_" #N "_atomic_swap");                                                   \
        T r;                                                                                       \
        memset(&r, 0, sizeof r);                                                                   \
        amo(SHMEM_CTX_DEFAULT, dest, sizeof(T), SIGNED(T), AMO_SWAP, SHOAL_OP_SUM, &value, NULL,   \
            &r, pe);                                                                               \
        return r;                                                                                  \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe) {    \
        SHMEM_ENTER("shmem_ctx_" #N "_atomic_fetch_nbi");                                          \
        amo(ctx, (void *)source, sizeof(T), SIGNED(T), AMO_LOAD, SHOAL_OP_SUM, NULL, NULL, fetch,  \
            pe);                                                                                   \
    }                                                                                              \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe) {                         \
        SHMEM_ENTER("shmem_" #N "_atomic_fetch_nbi");                                              \
        amo(SHMEM_CTX_DEFAULT, (void *)source, sizeof(T), SIGNED(T), AMO_LOAD, SHOAL_OP_SUM, NULL, \
            NULL, fetch, pe);                                                                      \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) {    \
        SHMEM_ENTER("shmem_ctx_" #N "_atomic_swap_nbi");                                           \
        amo(ctx, dest, sizeof(T), SIGNED(T), AMO_SWAP, SHOAL_OP_SUM, &value, NULL, fetch, pe);     \
    }                                                                                              \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe) {                         \
        SHMEM_ENTER("shmem_" #N "_atomic_swap_nbi");                                               \
        amo(SHMEM_CTX_DEFAULT, dest, sizeof(T), SIGNED(T), AMO_SWAP, SHOAL_OP_SUM, &value, NULL,   \
            fetch, pe);                                                                            \
    }
SHMEM_AMO_EXTENDED_TYPES(DEFINE_AMO_EXTENDED)

/* One fetching operation (blocking and _nbi, plain and ctx) and its non-fetching twin. */
#define DEFINE_AMO_OP(T, N, NAME, OP)                                                              \
    T shmem_ctx_##N##_atomic_fetch_##NAME(shmem_ctx_t ctx, T *dest, T value, int pe) {             \
        SHMEM_ENTER("shmem_ctx_" #N "_atomic_fetch_" #NAME);                                       \
        T r = 0;                                                                                   \
        amo(ctx, dest, sizeof(T), SIGNED(T), AMO_FETCH_OP, OP, &value, NULL, &r, pe);              \
        return r;                                                                                  \
    }                                                                                              \
    T shmem_##N##_atomic_fetch_##NAME(T *dest, T value, int pe) {                                  \
        SHMEM_ENTER("shmem_" #N "_atomic_fetch_" #NAME);                                           \
        T r = 0;                                                                                   \
        amo(SHMEM_CTX_DEFAULT, dest, sizeof(T), SIGNED(T), AMO_FETCH_OP, OP, &value, NULL, &r,     \
            pe);                                                                                   \
        return r;                                                                                  \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_fetch_##NAME##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,    \
                                                   int pe) {                                       \
        SHMEM_ENTER("shmem_ctx_" #N "_atomic_fetch_" #NAME "_nbi");                                \
        amo(ctx, dest, sizeof(T), SIGNED(T), AMO_FETCH_OP, OP, &value, NULL, fetch, pe);           \
    }                                                                                              \
    void shmem_##N##_atomic_fetch_##NAME##_nbi(T *fetch, T *dest, T value, int pe) {               \
        SHMEM_ENTER("shmem_" #N "_atomic_fetch_" #NAME "_nbi");                                    \
        amo(SHMEM_CTX_DEFAULT, dest, sizeof(T), SIGNED(T), AMO_FETCH_OP, OP, &value, NULL, fetch,  \
            pe);                                                                                   \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_##NAME(shmem_ctx_t ctx, T *dest, T value, int pe) {                \
        SHMEM_ENTER("shmem_ctx_" #N "_atomic_" #NAME);                                             \
        amo(ctx, dest, sizeof(T), SIGNED(T), AMO_OP, OP, &value, NULL, NULL, pe);                  \
    }                                                                                              \
    void shmem_##N##_atomic_##NAME(T *dest, T value, int pe) {                                     \
        SHMEM_ENTER("shmem_" #N "_atomic_" #NAME);                                                 \
        amo(SHMEM_CTX_DEFAULT, dest, sizeof(T), SIGNED(T), AMO_OP, OP, &value, NULL, NULL, pe);    \
    }

#define DEFINE_AMO_STANDARD(T, N)                                                                  \
    DEFINE_AMO_OP(T, N, add, SHOAL_OP_SUM)                                                         \
    DEFINE_AMO_INC(T, N)                                                                           \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe) {     \
        SHMEM_ENTER("shmem_ctx_" #N "_atomic_compare_swap");                                       \
        T r = 0;                                                                                   \
        amo(ctx, dest, sizeof(T), SIGNED(T), AMO_CAS, SHOAL_OP_SUM, &value, &cond, &r, pe);        \
        return r;                                                                                  \
    }                                                                                              \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe) {                          \
        SHMEM_ENTER("shmem_" #N "_atomic_compare_swap");                                           \
        T r = 0;                                                                                   \
        amo(SHMEM_CTX_DEFAULT, dest, sizeof(T), SIGNED(T), AMO_CAS, SHOAL_OP_SUM, &value, &cond,   \
            &r, pe);                                                                               \
        return r;                                                                                  \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond,       \
                                                 T value, int pe) {                                \
        SHMEM_ENTER("shmem_ctx_" #N "_atomic_compare_swap_nbi");                                   \
        amo(ctx, dest, sizeof(T), SIGNED(T), AMO_CAS, SHOAL_OP_SUM, &value, &cond, fetch, pe);     \
    }                                                                                              \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe) {         \
        SHMEM_ENTER("shmem_" #N "_atomic_compare_swap_nbi");                                       \
        amo(SHMEM_CTX_DEFAULT, dest, sizeof(T), SIGNED(T), AMO_CAS, SHOAL_OP_SUM, &value, &cond,   \
            fetch, pe);                                                                            \
    }

/* inc = add 1 (no value parameter). */
#define DEFINE_AMO_INC(T, N)                                                                       \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe) {                         \
        SHMEM_ENTER("shmem_ctx_" #N "_atomic_fetch_inc");                                          \
        T one = 1, r = 0;                                                                          \
        amo(ctx, dest, sizeof(T), SIGNED(T), AMO_FETCH_OP, SHOAL_OP_SUM, &one, NULL, &r, pe);      \
        return r;                                                                                  \
    }                                                                                              \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe) {                                              \
        SHMEM_ENTER("shmem_" #N "_atomic_fetch_inc");                                              \
        T one = 1, r = 0;                                                                          \
        amo(SHMEM_CTX_DEFAULT, dest, sizeof(T), SIGNED(T), AMO_FETCH_OP, SHOAL_OP_SUM, &one, NULL, \
            &r, pe);                                                                               \
        return r;                                                                                  \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe) {        \
        SHMEM_ENTER("shmem_ctx_" #N "_atomic_fetch_inc_nbi");                                      \
        T one = 1;                                                                                 \
        amo(ctx, dest, sizeof(T), SIGNED(T), AMO_FETCH_OP, SHOAL_OP_SUM, &one, NULL, fetch, pe);   \
    }                                                                                              \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) {                             \
        SHMEM_ENTER("shmem_" #N "_atomic_fetch_inc_nbi");                                          \
        T one = 1;                                                                                 \
        amo(SHMEM_CTX_DEFAULT, dest, sizeof(T), SIGNED(T), AMO_FETCH_OP, SHOAL_OP_SUM, &one, NULL, \
            fetch, pe);                                                                            \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe) {                            \
        SHMEM_ENTER("shmem_ctx_" #N "_atomic_inc");                                                \
        T one = 1;                                                                                 \
        amo(ctx, dest, sizeof(T), SIGNED(T), AMO_OP, SHOAL_OP_SUM, &one, NULL, NULL, pe);          \
    }                                                                                              \
    void shmem_##N##_atomic_inc(T *dest, int pe) {                                                 \
        SHMEM_ENTER("shmem_" #N "_atomic_inc");                                                    \
        T one = 1;                                                                                 \
        amo(SHMEM_CTX_DEFAULT, dest, sizeof(T), SIGNED(T), AMO_OP, SHOAL_OP_SUM, &one, NULL, NULL, \
            pe);                                                                                   \
    }
SHMEM_AMO_STANDARD_TYPES(DEFINE_AMO_STANDARD)

#define DEFINE_AMO_BITWISE(T, N)                                                                   \
    DEFINE_AMO_OP(T, N, and, SHOAL_OP_BAND)                                                        \
    DEFINE_AMO_OP(T, N, or, SHOAL_OP_BOR)                                                          \
    DEFINE_AMO_OP(T, N, xor, SHOAL_OP_BXOR)
SHMEM_AMO_BITWISE_TYPES(DEFINE_AMO_BITWISE)

/* ---- The names of OpenSHMEM 1.0-1.3 ---------------------------------------------------------- */
#define DEFINE_OLD_STANDARD(T, N)                                                                  \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe) {                                        \
        return shmem_##N##_atomic_compare_swap(dest, cond, value, pe);                             \
    }                                                                                              \
    T shmem_##N##_finc(T *dest, int pe) {                                                          \
        return shmem_##N##_atomic_fetch_inc(dest, pe);                                             \
    }                                                                                              \
    void shmem_##N##_inc(T *dest, int pe) {                                                        \
        shmem_##N##_atomic_inc(dest, pe);                                                          \
    }                                                                                              \
    T shmem_##N##_fadd(T *dest, T value, int pe) {                                                 \
        return shmem_##N##_atomic_fetch_add(dest, value, pe);                                      \
    }                                                                                              \
    void shmem_##N##_add(T *dest, T value, int pe) {                                               \
        shmem_##N##_atomic_add(dest, value, pe);                                                   \
    }
/* The library's routines behind shmem.h's in-line shmem_TYPENAME_atomic_fetch. */
#define DEFINE_FETCH_SLOW(T, N)                                                                    \
    T shmem__##N##_atomic_fetch_slow(const T *source, int pe) {                                    \
        return shmem_##N##_atomic_fetch(source, pe);                                               \
    }
SHMEM_AMO_EXTENDED_TYPES(DEFINE_FETCH_SLOW)

#define DEFINE_OLD_EXTENDED(T, N)                                                                  \
    T shmem_##N##_swap(T *dest, T value, int pe) {                                                 \
        return shmem_##N##_atomic_swap(dest, value, pe);                                           \
    }                                                                                              \
    T shmem_##N##_fetch(const T *source, int pe) {                                                 \
        return shmem_##N##_atomic_fetch(source, pe);                                               \
    }                                                                                              \
    void shmem_##N##_set(T *dest, T value, int pe) {                                               \
        shmem_##N##_atomic_set(dest, value, pe);                                                   \
    }
DEFINE_OLD_STANDARD(int, int)
DEFINE_OLD_STANDARD(long, long)
DEFINE_OLD_STANDARD(long long, longlong)
DEFINE_OLD_EXTENDED(int, int)
DEFINE_OLD_EXTENDED(long, long)
DEFINE_OLD_EXTENDED(long long, longlong)
DEFINE_OLD_EXTENDED(float, float)
DEFINE_OLD_EXTENDED(double, double)

long shmem_swap(long *dest, long value, int pe) {
    return shmem_long_atomic_swap(dest, value, pe);
}
