/* Internal entry points of the RMA layer, used by sync/ and runtime/. Each takes a resolved
 * target (mem/resolve.h): validation has happened at the public entry. */
#ifndef SHOAL_RMA_H
#define SHOAL_RMA_H

#include <string.h>

#include "mem/resolve.h"
#include "xport/copy.h"

typedef enum { AMO_FETCH_OP, AMO_OP, AMO_SWAP, AMO_CAS, AMO_LOAD, AMO_STORE } amo_kind_t;

/* The direct path's copy: word-sized transfers inline as one load and one store. */
static inline void shoal__copy_bytes(void *dst, const void *src, size_t n) {
    const char *s = src;
    char *d = dst;
    /* Word-sized copies inline as one load and one store: no library call on the latency path
     * (shoal_put of 8 B cost 1.95x of a bare store + fence with the call). (GCC inlines a
     * small constant memmove as loads then stores.) */
    if (__builtin_expect(n == 8, 1)) { /* the latency case first: one compare, no jump table */
        memmove(d, s, 8);
        return;
    }
    switch (n) {
    case 1:
        *d = *s;
        return;
    case 2:
        memmove(d, s, 2);
        return;
    case 4:
        memmove(d, s, 4);
        return;
    case 8:
        memmove(d, s, 8);
        return;
    case 16:
        memmove(d, s, 16);
        return;
    default:
        break;
    }
    shoal__move(d, s, n); /* memmove when a unit copies within its own memory */
}

/* A non-blocking operation's copy on the direct path, ordered for whoever synchronises with
 * this unit next: a put's copy then a release fence; a get's acquire fence (it sees what earlier
 * synchronisation published) then its copy. */
static inline __attribute__((always_inline)) void shoal__copy_ordered(int is_put, void *local,
                                                                      char *mapped, size_t n) {
    if (is_put) {
        shoal__copy_bytes(mapped, local, n);
        __atomic_thread_fence(__ATOMIC_RELEASE);
    } else {
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        shoal__copy_bytes(local, mapped, n);
    }
}

/* Put-with-signal on the direct path (shoal_put_signal, the OpenSHMEM face's put_signal): when
 * both the data and a CPU-atomic signal word are mapped here, the data's stores, the signal with
 * release order (never seen before the data, on any CPU), then one full fence, so that both are
 * complete at the target on return as a blocking put's data is. The blocking put's own fence
 * between the two made the data's line and the signal's move one after the other: an 8-byte
 * put-with-signal ping-pong took 1.6-2.2x a floor of plain stores through shmem_ptr (Intel Xeon
 * family 6 model 106, bench_shmem "pingpong_*", session 34). Returns 0, having done nothing,
 * otherwise. */
static inline int shoal__put_signal_direct(const shoal_target_t *data, const void *src, size_t n,
                                           const shoal_target_t *sig, uint64_t value,
                                           shoal_signal_op_t op) {
    if ((n && !data->addr) || !sig->addr || !sig->seg->atomics_direct) return 0;
    if (n) shoal__copy_bytes(data->addr, src, n);
    uint64_t *word = (uint64_t *)(void *)sig->addr;
    if (op == SHOAL_SIGNAL_SET)
        __atomic_store_n(word, value, __ATOMIC_RELEASE);
    else
        __atomic_fetch_add(word, value, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return 1;
}

/* A put-with-signal on resolved targets (the signal word 8-byte aligned, on the data's unit, src
 * not NULL when nbytes > 0: the caller checked): shoal__put_signal_direct where it serves, else
 * the data put complete at the target, then the signal (MPI atomics where the word takes them). */
shoal_err_t shoal__put_signal_targets(const shoal_target_t *data, const void *src, size_t nbytes,
                                      const shoal_target_t *sig, uint64_t value,
                                      shoal_signal_op_t op);
/* Blocking put/get: complete at the target (put) or in dst (get) on return. */
shoal_err_t shoal__put(const shoal_target_t *t, const void *src, size_t nbytes);
shoal_err_t shoal__get(void *dst, const shoal_target_t *t, size_t nbytes);
/* One atomic on one element. Decision 4: CPU atomics when the segment's team is entirely
 * reachable directly, MPI atomics otherwise; never both on one segment. */
shoal_err_t shoal__amo(const shoal_target_t *t, amo_kind_t kind, shoal_amo_op_t op,
                       shoal_dtype_t type, const void *value, const void *compare, void *result);
/* The commonest atomics in line (add, fetch-add, load, store of a 4- or 8-byte integer) when the
 * segment's words are CPU-atomic (decision 4), for the entry points' fast paths: with constant
 * kind and size this folds to one instruction. Returns 0, having done nothing, in every other
 * case (the caller then calls shoal__amo). */
#define SHOAL__AMO_INLINE_CASES(T)                                                                 \
    do {                                                                                           \
        T *p_ = (T *)t->addr;                                                                      \
        switch (kind) {                                                                            \
        case AMO_FETCH_OP:                                                                         \
            *(T *)result = __atomic_fetch_add(p_, *(const T *)value, __ATOMIC_SEQ_CST);            \
            return 1;                                                                              \
        case AMO_OP:                                                                               \
            __atomic_fetch_add(p_, *(const T *)value, __ATOMIC_SEQ_CST);                           \
            return 1;                                                                              \
        case AMO_LOAD:                                                                             \
            *(T *)result = __atomic_load_n(p_, __ATOMIC_SEQ_CST);                                  \
            return 1;                                                                              \
        case AMO_STORE:                                                                            \
            __atomic_store_n(p_, *(const T *)value, __ATOMIC_SEQ_CST);                             \
            return 1;                                                                              \
        default:                                                                                   \
            return 0;                                                                              \
        }                                                                                          \
    } while (0)
static inline int shoal__amo_inline(const shoal_target_t *t, amo_kind_t kind, shoal_amo_op_t op,
                                    size_t size, const void *value, void *result) {
    if (!t->seg->atomics_direct || (op != SHOAL_OP_SUM && kind != AMO_LOAD && kind != AMO_STORE))
        return 0;
    if (size == 8) SHOAL__AMO_INLINE_CASES(uint64_t);
    if (size == 4) SHOAL__AMO_INLINE_CASES(uint32_t);
    return 0;
}

/* Waits until the 64-bit word at t (mine, or a peer's: the flag barriers poll their peers' flags)
 * satisfies cmp against value. */
shoal_err_t shoal__wait_word(const shoal_target_t *t, shoal_cmp_t cmp, uint64_t value,
                             uint64_t *seen);
/* Completes every live non-blocking handle (finalize), returns how many there were. */
size_t shoal__handles_complete_all(void);
/* Completes the live handles on one segment before it is freed. */
void shoal__handles_complete_segment(const segment_t *seg);
/* Frees the recycled handle objects (finalize). */
void shoal__handles_release_spares(void);

/* Shoal's data types and operations as MPI's (mpi_types.c): MPI_DATATYPE_NULL / MPI_OP_NULL
 * where there is none. */
MPI_Datatype shoal__mpi_datatype(shoal_type_t type);
MPI_Op shoal__mpi_op(shoal_red_op_t op);

#endif
