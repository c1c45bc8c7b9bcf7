/* Atomics. One mechanism per location (decision 4): a segment whose whole team is reachable
 * directly uses CPU atomics (__atomic builtins, sequentially consistent), any other segment MPI
 * accumulate operations (MPI_Fetch_and_op / MPI_Accumulate / MPI_Compare_and_swap, then
 * MPI_Win_flush for completion). Both MPIs get these right on MPI_Win_create windows. */
#include <string.h>

#include "rma.h"
#include "runtime/wait.h"

static size_t type_size(shoal_dtype_t type) {
    return (type == SHOAL_INT32 || type == SHOAL_UINT32) ? 4 : 8;
}

/* Integer read-modify-write on 32 or 64 bits (unsigned arithmetic: no signed overflow). */
#define INT_RMW(T, p, kind, op, vp, cp, rp)                                                        \
    do {                                                                                           \
        T v = vp ? *(const T *)(vp) : 0, old = 0;                                                  \
        switch (kind) {                                                                            \
        case AMO_FETCH_OP:                                                                         \
        case AMO_OP:                                                                               \
            switch (op) {                                                                          \
            case SHOAL_OP_SUM:                                                                     \
                old = __atomic_fetch_add((T *)(p), v, __ATOMIC_SEQ_CST);                           \
                break;                                                                             \
            case SHOAL_OP_BAND:                                                                    \
                old = __atomic_fetch_and((T *)(p), v, __ATOMIC_SEQ_CST);                           \
                break;                                                                             \
            case SHOAL_OP_BOR:                                                                     \
                old = __atomic_fetch_or((T *)(p), v, __ATOMIC_SEQ_CST);                            \
                break;                                                                             \
            case SHOAL_OP_BXOR:                                                                    \
                old = __atomic_fetch_xor((T *)(p), v, __ATOMIC_SEQ_CST);                           \
                break;                                                                             \
            default: /* PROD, MIN, MAX: refused by check() */                                      \
                break;                                                                             \
            }                                                                                      \
            break;                                                                                 \
        case AMO_SWAP:                                                                             \
            old = __atomic_exchange_n((T *)(p), v, __ATOMIC_SEQ_CST);                              \
            break;                                                                                 \
        case AMO_CAS:                                                                              \
            old = *(const T *)(cp);                                                                \
            __atomic_compare_exchange_n((T *)(p), &old, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
            break;                                                                                 \
        case AMO_LOAD:                                                                             \
            old = __atomic_load_n((T *)(p), __ATOMIC_SEQ_CST);                                     \
            break;                                                                                 \
        case AMO_STORE:                                                                            \
            __atomic_store_n((T *)(p), v, __ATOMIC_SEQ_CST);                                       \
            break;                                                                                 \
        }                                                                                          \
        if (rp) *(T *)(rp) = old;                                                                  \
    } while (0)

/* Doubles: the CPU has no floating fetch-add; a compare-and-swap loop on the bits is atomic. */
static void double_rmw(void *p, amo_kind_t kind, const void *vp, void *rp) {
    uint64_t *word = p, old_bits, new_bits;
    double v = vp ? *(const double *)vp : 0, old;
    switch (kind) {
    case AMO_FETCH_OP:
    case AMO_OP:
        old_bits = __atomic_load_n(word, __ATOMIC_RELAXED);
        do {
            memcpy(&old, &old_bits, 8);
            double sum = old + v;
            memcpy(&new_bits, &sum, 8);
        } while (!__atomic_compare_exchange_n(word, &old_bits, new_bits, 1, __ATOMIC_SEQ_CST,
                                              __ATOMIC_RELAXED));
        break;
    case AMO_SWAP:
        memcpy(&new_bits, &v, 8);
        old_bits = __atomic_exchange_n(word, new_bits, __ATOMIC_SEQ_CST);
        break;
    case AMO_LOAD:
        old_bits = __atomic_load_n(word, __ATOMIC_SEQ_CST);
        break;
    case AMO_STORE:
        memcpy(&new_bits, &v, 8);
        __atomic_store_n(word, new_bits, __ATOMIC_SEQ_CST);
        old_bits = 0;
        break;
    default:
        old_bits = 0;
        break; /* CAS on doubles is rejected at the entry point */
    }
    if (rp) memcpy(rp, &old_bits, 8);
}

shoal_err_t shoal__amo(const shoal_target_t *t, amo_kind_t kind, shoal_amo_op_t op,
                       shoal_dtype_t type, const void *value, const void *compare, void *result) {
    if (t->seg->atomics_direct) {
        if (type == SHOAL_DOUBLE)
            double_rmw(t->addr, kind, value, result);
        else if (type_size(type) == 4)
            INT_RMW(uint32_t, t->addr, kind, op, value, compare, result);
        else
            INT_RMW(uint64_t, t->addr, kind, op, value, compare, result);
        return SHOAL_OK;
    }
    SHOAL_TRY(shoal__settle(t->seg));
    MPI_Win win = t->seg->win;
    MPI_Datatype dt = shoal__mpi_datatype(type); /* check() admitted only atomic types */
    uint64_t scratch; /* fetching ops need a result buffer even when the caller wants none */
    void *res = result ? result : &scratch;
    switch (kind) {
    case AMO_FETCH_OP:
        SHOAL_MPI(MPI_Fetch_and_op(value, res, dt, t->rank, t->disp, shoal__mpi_op(op), win));
        break;
    case AMO_OP:
        SHOAL_MPI(MPI_Accumulate(value, 1, dt, t->rank, t->disp, 1, dt, shoal__mpi_op(op), win));
        break;
    case AMO_SWAP:
        SHOAL_MPI(MPI_Fetch_and_op(value, res, dt, t->rank, t->disp, MPI_REPLACE, win));
        break;
    case AMO_CAS:
        SHOAL_MPI(MPI_Compare_and_swap(value, compare, res, dt, t->rank, t->disp, win));
        break;
    case AMO_LOAD:
        SHOAL_MPI(MPI_Fetch_and_op(NULL, res, dt, t->rank, t->disp, MPI_NO_OP, win));
        break;
    case AMO_STORE:
        SHOAL_MPI(MPI_Accumulate(value, 1, dt, t->rank, t->disp, 1, dt, MPI_REPLACE, win));
        break;
    }
    SHOAL_MPI(MPI_Win_flush(t->rank, win));
    return SHOAL_OK;
}

/* The validation preamble every public atomic shares. */
static shoal_err_t check(shoal_gptr_t gp, amo_kind_t kind, shoal_amo_op_t op, shoal_dtype_t type,
                         const void *value, const void *compare, const void *result,
                         shoal_target_t *t) {
    if (type != SHOAL_INT32 && type != SHOAL_INT64 && type != SHOAL_UINT32 &&
        type != SHOAL_UINT64 && type != SHOAL_DOUBLE)
        return shoal__fail(SHOAL_ERR_INVAL,
                           "type %d is not an atomic type (INT32, INT64, UINT32, UINT64, DOUBLE)",
                           (int)type);
    if ((kind == AMO_FETCH_OP || kind == AMO_OP) && op != SHOAL_OP_SUM && op != SHOAL_OP_BAND &&
        op != SHOAL_OP_BOR && op != SHOAL_OP_BXOR)
        return shoal__fail(SHOAL_ERR_INVAL,
                           "operation %d is not an atomic operation (SUM, BAND, BOR, BXOR)",
                           (int)op);
    if (type == SHOAL_DOUBLE &&
        (kind == AMO_CAS || ((kind == AMO_FETCH_OP || kind == AMO_OP) && op != SHOAL_OP_SUM)))
        return shoal__fail(SHOAL_ERR_INVAL, "doubles support add, fetch-add, swap, load and store "
                                            "only");
    if (kind != AMO_LOAD && !value) return shoal__fail(SHOAL_ERR_INVAL, "NULL value");
    if (kind == AMO_CAS && !compare) return shoal__fail(SHOAL_ERR_INVAL, "NULL compare value");
    if (kind != AMO_OP && kind != AMO_STORE && !result)
        return shoal__fail(SHOAL_ERR_INVAL, "NULL result");
    size_t size = type_size(type);
    if (gp.offset % size)
        return shoal__fail(SHOAL_ERR_ALIGN, "offset %llu is not aligned to the %zu-byte type",
                           (unsigned long long)gp.offset, size);
    return shoal__resolve(gp, size, t);
}

/* The fast path of the integer atomics that shoal__amo_inline serves: every argument that
 * check() would examine is fine, so the same errors come out in the same order either way. */
static inline int plain_int(shoal_gptr_t gp, shoal_amo_op_t op, shoal_dtype_t type, size_t *size) {
    *size = type_size(type);
    return (type == SHOAL_INT64 || type == SHOAL_UINT64 || type == SHOAL_INT32 ||
            type == SHOAL_UINT32) &&
           op == SHOAL_OP_SUM && !(gp.offset & (*size - 1));
}

/* The fast paths' fallback (MPI atomics): the target comes in registers, so the fast path needs
 * no stack frame. Sums only (plain_int). */
static __attribute__((noinline, cold)) shoal_err_t amo_rest(segment_t *seg, char *addr,
                                                            int32_t rank, MPI_Aint disp,
                                                            amo_kind_t kind, shoal_dtype_t type,
                                                            const void *value, void *result) {
    shoal_target_t t = {seg, addr, rank, disp};
    return shoal__amo(&t, kind, SHOAL_OP_SUM, type, value, NULL, result);
}

shoal_err_t shoal_atomic_fetch_op(shoal_gptr_t gp, shoal_amo_op_t op, shoal_dtype_t type,
                                  const void *value, void *result) {
    SHOAL_ENTER("shoal_atomic_fetch_op");
    size_t size;
    if (__builtin_expect(plain_int(gp, op, type, &size) && value && result, 1)) {
        shoal_target_t ft = {0}; /* (in registers) */
        SHOAL_TRY(shoal__resolve(gp, size, &ft));
        shoal__poll_hint();
        if (shoal__amo_inline(&ft, AMO_FETCH_OP, op, size, value, result)) return SHOAL_OK;
        return amo_rest(ft.seg, ft.addr, ft.rank, ft.disp, AMO_FETCH_OP, type, value, result);
    }
    shoal_target_t t = {0};
    SHOAL_TRY(check(gp, AMO_FETCH_OP, op, type, value, NULL, result, &t));
    shoal__poll_hint();
    return shoal__amo(&t, AMO_FETCH_OP, op, type, value, NULL, result);
}

shoal_err_t shoal_atomic_op(shoal_gptr_t gp, shoal_amo_op_t op, shoal_dtype_t type,
                            const void *value) {
    SHOAL_ENTER("shoal_atomic_op");
    size_t size;
    if (__builtin_expect(plain_int(gp, op, type, &size) && value, 1)) {
        shoal_target_t ft = {0};
        SHOAL_TRY(shoal__resolve(gp, size, &ft));
        if (shoal__amo_inline(&ft, AMO_OP, op, size, value, NULL)) return SHOAL_OK;
        return amo_rest(ft.seg, ft.addr, ft.rank, ft.disp, AMO_OP, type, value, NULL);
    }
    shoal_target_t t = {0};
    SHOAL_TRY(check(gp, AMO_OP, op, type, value, NULL, NULL, &t));
    return shoal__amo(&t, AMO_OP, op, type, value, NULL, NULL);
}

shoal_err_t shoal_atomic_swap(shoal_gptr_t gp, shoal_dtype_t type, const void *value,
                              void *result) {
    SHOAL_ENTER("shoal_atomic_swap");
    shoal_target_t t = {0};
    SHOAL_TRY(check(gp, AMO_SWAP, SHOAL_OP_SUM, type, value, NULL, result, &t));
    return shoal__amo(&t, AMO_SWAP, SHOAL_OP_SUM, type, value, NULL, result);
}

shoal_err_t shoal_atomic_cas(shoal_gptr_t gp, shoal_dtype_t type, const void *compare,
                             const void *value, void *result) {
    SHOAL_ENTER("shoal_atomic_cas");
    shoal_target_t t = {0};
    SHOAL_TRY(check(gp, AMO_CAS, SHOAL_OP_SUM, type, value, compare, result, &t));
    shoal__poll_hint();
    return shoal__amo(&t, AMO_CAS, SHOAL_OP_SUM, type, value, compare, result);
}

shoal_err_t shoal_atomic_load(shoal_gptr_t gp, shoal_dtype_t type, void *result) {
    SHOAL_ENTER("shoal_atomic_load");
    shoal_target_t t = {0};
    SHOAL_TRY(check(gp, AMO_LOAD, SHOAL_OP_SUM, type, NULL, NULL, result, &t));
    shoal__poll_hint();
    return shoal__amo(&t, AMO_LOAD, SHOAL_OP_SUM, type, NULL, NULL, result);
}

shoal_err_t shoal_atomic_store(shoal_gptr_t gp, shoal_dtype_t type, const void *value) {
    SHOAL_ENTER("shoal_atomic_store");
    shoal_target_t t = {0};
    SHOAL_TRY(check(gp, AMO_STORE, SHOAL_OP_SUM, type, value, NULL, NULL, &t));
    return shoal__amo(&t, AMO_STORE, SHOAL_OP_SUM, type, value, NULL, NULL);
}
