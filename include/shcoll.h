/* SHCOLL's names on Shoal. SHCOLL is the OpenSHMEM collectives library of the SHCOLL paper, whose
 * algorithms Shoal's collectives are; its users call one routine per collective, element size and
 * algorithm (shcoll_broadcast32_binomial_tree, shcoll_long_sum_to_all_rec_dbl, ...). A program
 * written against SHCOLL's shcoll.h builds against this header with `oshcc` and runs on Shoal
 * unchanged (or relinks, the arguments being SHCOLL's).
 *
 * Each routine is the OpenSHMEM 1.4 active-set collective of its kind (shmem_broadcast32,
 * shmem_collect64, shmem_long_sum_to_all, ...; only the set's PEs call it) run with the algorithm
 * its name asks for, where Shoal has that algorithm and it applies to the call (recursive
 * doubling needs a power of two, for example); Shoal's own selection chooses otherwise.
 * docs/openshmem.md ("SHCOLL's names") has the map from SHCOLL's algorithms to Shoal's.
 *
 * pSync and pWrk: allocate and set them as SHCOLL says (SHCOLL_*_SYNC_SIZE longs of
 * SHCOLL_SYNC_VALUE); Shoal never reads them. */
#ifndef SHCOLL_H
#define SHCOLL_H

#include <shmem.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

#define SHCOLL_SYNC_VALUE              0
#define SHCOLL_BCAST_SYNC_SIZE         2
#define SHCOLL_BARRIER_SYNC_SIZE       SHMEM_BARRIER_SYNC_SIZE
#define SHCOLL_COLLECT_SYNC_SIZE       68
#define SHCOLL_ALLTOALL_SYNC_SIZE      64
#define SHCOLL_ALLTOALLS_SYNC_SIZE     SHMEM_ALLTOALLS_SYNC_SIZE
#define SHCOLL_REDUCE_SYNC_SIZE        64
#define SHCOLL_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* Tree shapes, for every PE alike (each PE sets its own: set the same everywhere). Degree and
 * radix at least 2; a value Shoal's tree cannot take leaves the choice to Shoal. */
void shcoll_set_tree_degree(int tree_degree);                         /* barrier complete_tree */
void shcoll_set_knomial_tree_radix_barrier(int tree_radix);           /* barrier knomial_tree */
void shcoll_set_broadcast_tree_degree(int tree_degree);               /* broadcast complete_tree */
void shcoll_set_broadcast_knomial_tree_radix_barrier(int tree_radix); /* broadcast knomial_* */
/* SHCOLL's barrier every rounds_sync rounds of the _barrier alltoall(s) variants. Shoal's
 * synchronise once before and once after all rounds: the value (at least 1) is checked and kept,
 * and changes nothing. */
void shcoll_set_alltoall_rounds_sync(int rounds_sync);
void shcoll_set_alltoalls_rounds_sync(int rounds_sync);

/* The algorithms of each collective, as SHCOLL names them. */
#define SHCOLL_BARRIER_ALGOS(X)                                                                    \
    X(linear) X(complete_tree) X(binomial_tree) X(knomial_tree) X(dissemination)
#define SHCOLL_BROADCAST_ALGOS(X)                                                                  \
    X(linear)                                                                                      \
    X(complete_tree) X(binomial_tree) X(knomial_tree) X(knomial_tree_signal) X(scatter_collect)
#define SHCOLL_COLLECT_ALGOS(X)                                                                    \
    X(linear)                                                                                      \
    X(all_linear) X(all_linear1) X(rec_dbl) X(rec_dbl_signal) X(ring) X(bruck) X(bruck_no_rotate)
#define SHCOLL_FCOLLECT_ALGOS(X)                                                                   \
    X(linear)                                                                                      \
    X(all_linear)                                                                                  \
    X(all_linear1)                                                                                 \
    X(rec_dbl)                                                                                     \
    X(ring) X(bruck) X(bruck_no_rotate) X(bruck_signal) X(bruck_inplace) X(neighbour_exchange)
#define SHCOLL_ALLTOALL_ALGOS(X)                                                                   \
    X(shift_exchange_barrier)                                                                      \
    X(shift_exchange_counter)                                                                      \
    X(shift_exchange_signal)                                                                       \
    X(xor_pairwise_exchange_barrier)                                                               \
    X(xor_pairwise_exchange_counter)                                                               \
    X(xor_pairwise_exchange_signal)                                                                \
    X(color_pairwise_exchange_barrier)                                                             \
    X(color_pairwise_exchange_counter) X(color_pairwise_exchange_signal)
#define SHCOLL_ALLTOALLS_ALGOS(X)                                                                  \
    X(shift_exchange_barrier)                                                                      \
    X(shift_exchange_counter)                                                                      \
    X(shift_exchange_barrier_nbi)                                                                  \
    X(shift_exchange_counter_nbi)                                                                  \
    X(xor_pairwise_exchange_barrier)                                                               \
    X(xor_pairwise_exchange_counter)                                                               \
    X(xor_pairwise_exchange_barrier_nbi)                                                           \
    X(xor_pairwise_exchange_counter_nbi)                                                           \
    X(color_pairwise_exchange_barrier)                                                             \
    X(color_pairwise_exchange_counter)                                                             \
    X(color_pairwise_exchange_barrier_nbi) X(color_pairwise_exchange_counter_nbi)
#define SHCOLL_REDUCE_ALGOS(X) X(linear) X(binomial) X(rec_dbl) X(rabenseifner) X(rabenseifner2)

/* Element sizes (bits) of each sized family. */
#define SHCOLL_BROADCAST_SIZES(X, A) X(A, 8) X(A, 16) X(A, 32) X(A, 64)
#define SHCOLL_EXCHANGE_SIZES(X, A)  X(A, 32) X(A, 64)

#define SHCOLL__DECL_BARRIER(A)                                                                    \
    void shcoll_barrier_##A(int PE_start, int logPE_stride, int PE_size, long *pSync);             \
    void shcoll_barrier_all_##A(void);                                                             \
    void shcoll_sync_##A(int PE_start, int logPE_stride, int PE_size, long *pSync);                \
    void shcoll_sync_all_##A(void);
SHCOLL_BARRIER_ALGOS(SHCOLL__DECL_BARRIER)

#define SHCOLL__DECL_BROADCAST(A, S)                                                               \
    void shcoll_broadcast##S##_##A(void *dest, const void *source, size_t nelems, int PE_root,     \
                                   int PE_start, int logPE_stride, int PE_size, long *pSync);
#define SHCOLL__DECL_BROADCAST_ALL(A) SHCOLL_BROADCAST_SIZES(SHCOLL__DECL_BROADCAST, A)
SHCOLL_BROADCAST_ALGOS(SHCOLL__DECL_BROADCAST_ALL)

#define SHCOLL__DECL_COLLECT(A, S)                                                                 \
    void shcoll_collect##S##_##A(void *dest, const void *source, size_t nelems, int PE_start,      \
                                 int logPE_stride, int PE_size, long *pSync);
#define SHCOLL__DECL_COLLECT_ALL(A) SHCOLL_EXCHANGE_SIZES(SHCOLL__DECL_COLLECT, A)
SHCOLL_COLLECT_ALGOS(SHCOLL__DECL_COLLECT_ALL)

#define SHCOLL__DECL_FCOLLECT(A, S)                                                                \
    void shcoll_fcollect##S##_##A(void *dest, const void *source, size_t nelems, int PE_start,     \
                                  int logPE_stride, int PE_size, long *pSync);
#define SHCOLL__DECL_FCOLLECT_ALL(A) SHCOLL_EXCHANGE_SIZES(SHCOLL__DECL_FCOLLECT, A)
SHCOLL_FCOLLECT_ALGOS(SHCOLL__DECL_FCOLLECT_ALL)

#define SHCOLL__DECL_ALLTOALL(A, S)                                                                \
    void shcoll_alltoall##S##_##A(void *dest, const void *source, size_t nelems, int PE_start,     \
                                  int logPE_stride, int PE_size, long *pSync);
#define SHCOLL__DECL_ALLTOALL_ALL(A) SHCOLL_EXCHANGE_SIZES(SHCOLL__DECL_ALLTOALL, A)
SHCOLL_ALLTOALL_ALGOS(SHCOLL__DECL_ALLTOALL_ALL)

#define SHCOLL__DECL_ALLTOALLS(A, S)                                                               \
    void shcoll_alltoalls##S##_##A(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,   \
                                   size_t nelems, int PE_start, int logPE_stride, int PE_size,     \
                                   long *pSync);
#define SHCOLL__DECL_ALLTOALLS_ALL(A) SHCOLL_EXCHANGE_SIZES(SHCOLL__DECL_ALLTOALLS, A)
SHCOLL_ALLTOALLS_ALGOS(SHCOLL__DECL_ALLTOALLS_ALL)

/* Reductions: the types and operations of OpenSHMEM 1.4's TYPE_OP_to_all (shmem.h's tables).
 * SHCOLL__TO_ALL(T, N, OP, A) declares one routine here; src/shmem/shcoll.c redefines it to define
 * them and expands SHCOLL__REDUCE_ALGO again. */
#define SHCOLL__TO_ALL(T, N, OP, A)                                                                \
    void shcoll_##N##_##OP##_to_all_##A(T *dest, const T *source, int nreduce, int PE_start,       \
                                        int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define SHCOLL__TO_ALL_BITWISE(T, N, A)                                                            \
    SHCOLL__TO_ALL(T, N, and, A) SHCOLL__TO_ALL(T, N, or, A) SHCOLL__TO_ALL(T, N, xor, A)
#define SHCOLL__TO_ALL_MINMAX(T, N, A) SHCOLL__TO_ALL(T, N, max, A) SHCOLL__TO_ALL(T, N, min, A)
#define SHCOLL__TO_ALL_ARITH(T, N, A)  SHCOLL__TO_ALL(T, N, sum, A) SHCOLL__TO_ALL(T, N, prod, A)
/* shmem.h's tables call X(T, N); these pass the algorithm along. */
#define SHCOLL__BITWISE_linear(T, N)        SHCOLL__TO_ALL_BITWISE(T, N, linear)
#define SHCOLL__BITWISE_binomial(T, N)      SHCOLL__TO_ALL_BITWISE(T, N, binomial)
#define SHCOLL__BITWISE_rec_dbl(T, N)       SHCOLL__TO_ALL_BITWISE(T, N, rec_dbl)
#define SHCOLL__BITWISE_rabenseifner(T, N)  SHCOLL__TO_ALL_BITWISE(T, N, rabenseifner)
#define SHCOLL__BITWISE_rabenseifner2(T, N) SHCOLL__TO_ALL_BITWISE(T, N, rabenseifner2)
#define SHCOLL__MINMAX_linear(T, N)         SHCOLL__TO_ALL_MINMAX(T, N, linear)
#define SHCOLL__MINMAX_binomial(T, N)       SHCOLL__TO_ALL_MINMAX(T, N, binomial)
#define SHCOLL__MINMAX_rec_dbl(T, N)        SHCOLL__TO_ALL_MINMAX(T, N, rec_dbl)
#define SHCOLL__MINMAX_rabenseifner(T, N)   SHCOLL__TO_ALL_MINMAX(T, N, rabenseifner)
#define SHCOLL__MINMAX_rabenseifner2(T, N)  SHCOLL__TO_ALL_MINMAX(T, N, rabenseifner2)
#define SHCOLL__ARITH_linear(T, N)          SHCOLL__TO_ALL_ARITH(T, N, linear)
#define SHCOLL__ARITH_binomial(T, N)        SHCOLL__TO_ALL_ARITH(T, N, binomial)
#define SHCOLL__ARITH_rec_dbl(T, N)         SHCOLL__TO_ALL_ARITH(T, N, rec_dbl)
#define SHCOLL__ARITH_rabenseifner(T, N)    SHCOLL__TO_ALL_ARITH(T, N, rabenseifner)
#define SHCOLL__ARITH_rabenseifner2(T, N)   SHCOLL__TO_ALL_ARITH(T, N, rabenseifner2)
#define SHCOLL__REDUCE_ALGO(A)                                                                     \
    SHMEM_TO_ALL_BITWISE_TYPES(SHCOLL__BITWISE_##A)                                                \
    SHMEM_TO_ALL_MINMAX_TYPES(SHCOLL__MINMAX_##A) SHMEM_TO_ALL_ARITH_TYPES(SHCOLL__ARITH_##A)
SHCOLL_REDUCE_ALGOS(SHCOLL__REDUCE_ALGO)

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
