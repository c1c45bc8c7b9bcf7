/* OpenSHMEM 1.5's generic routines for C++: the names of shmem_generic.h (shmem_put, shmem_atomic_
 * fetch_add, shmem_wait_until, shmem_sum_reduce, ...) as inline overloads over the typed routines,
 * one per row of the routine's type table (shmem_generic_types.h), with and without a leading
 * context where the C11 interface has both. shmem.h includes this file when it is compiled as C++11
 * or later; include shmem.h, not this file.
 *
 * A call picks its typed routine by the type its symmetric pointer points to, as the C11 selection
 * does; a type outside the routine's table finds no overload ("no matching function for call to
 * 'shmem_atomic_add(float*, ...)'"). Two differences from C, both from C++'s rules: a value
 * argument converts to the table type of the pointer (shmem_p(long_ptr, 1, pe) is the long
 * routine), and the wait and test routines take a pointer to volatile (a flag declared volatile is
 * accepted as it is; C would warn). The deprecated C function shmem_wait_until(long *, int, long)
 * stays what a long * argument selects: it does what the overload would. The complex reductions
 * take shmem_complexd_t and shmem_complexf_t (layout-compatible with std::complex<double>,
 * <float>). */
#ifndef SHMEM_GENERIC_CXX_H
#define SHMEM_GENERIC_CXX_H

#if !defined(__cplusplus) || __cplusplus < 201103L
#error "shmem_generic_cxx.h is for C++11 or later: include shmem.h instead"
#endif

#include "shmem.h"
#include "shmem_generic_types.h"

/* C++ linkage even when a program includes shmem.h inside an extern "C" block (some test suites'
 * headers do): overloads cannot have C linkage. */
extern "C++" {

/* ---- RMA ------------------------------------------------------------------------------------- */
#define SHMEM__CXX_RMA(T, N, P, S)                                                                 \
    inline void shmem_put(T *dest, const T *source, size_t nelems, int pe) {                       \
        shmem_##N##_put(dest, source, nelems, pe);                                                 \
    }                                                                                              \
    inline void shmem_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {      \
        shmem_ctx_##N##_put(ctx, dest, source, nelems, pe);                                        \
    }                                                                                              \
    inline void shmem_get(T *dest, const T *source, size_t nelems, int pe) {                       \
        shmem_##N##_get(dest, source, nelems, pe);                                                 \
    }                                                                                              \
    inline void shmem_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {      \
        shmem_ctx_##N##_get(ctx, dest, source, nelems, pe);                                        \
    }                                                                                              \
    inline void shmem_p(T *dest, T value, int pe) {                                                \
        shmem_##N##_p(dest, value, pe);                                                            \
    }                                                                                              \
    inline void shmem_p(shmem_ctx_t ctx, T *dest, T value, int pe) {                               \
        shmem_ctx_##N##_p(ctx, dest, value, pe);                                                   \
    }                                                                                              \
    inline T shmem_g(const T *source, int pe) {                                                    \
        return shmem_##N##_g(source, pe);                                                          \
    }                                                                                              \
    inline T shmem_g(shmem_ctx_t ctx, const T *source, int pe) {                                   \
        return shmem_ctx_##N##_g(ctx, source, pe);                                                 \
    }                                                                                              \
    inline void shmem_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                           int pe) {                                                               \
        shmem_##N##_iput(dest, source, dst, sst, nelems, pe);                                      \
    }                                                                                              \
    inline void shmem_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,               \
                           ptrdiff_t sst, size_t nelems, int pe) {                                 \
        shmem_ctx_##N##_iput(ctx, dest, source, dst, sst, nelems, pe);                             \
    }                                                                                              \
    inline void shmem_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                           int pe) {                                                               \
        shmem_##N##_iget(dest, source, dst, sst, nelems, pe);                                      \
    }                                                                                              \
    inline void shmem_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,               \
                           ptrdiff_t sst, size_t nelems, int pe) {                                 \
        shmem_ctx_##N##_iget(ctx, dest, source, dst, sst, nelems, pe);                             \
    }                                                                                              \
    inline void shmem_put_nbi(T *dest, const T *source, size_t nelems, int pe) {                   \
        shmem_##N##_put_nbi(dest, source, nelems, pe);                                             \
    }                                                                                              \
    inline void shmem_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {  \
        shmem_ctx_##N##_put_nbi(ctx, dest, source, nelems, pe);                                    \
    }                                                                                              \
    inline void shmem_get_nbi(T *dest, const T *source, size_t nelems, int pe) {                   \
        shmem_##N##_get_nbi(dest, source, nelems, pe);                                             \
    }                                                                                              \
    inline void shmem_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) {  \
        shmem_ctx_##N##_get_nbi(ctx, dest, source, nelems, pe);                                    \
    }                                                                                              \
    inline void shmem_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,      \
                                 uint64_t signal, int sig_op, int pe) {                            \
        shmem_##N##_put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe);                \
    }                                                                                              \
    inline void shmem_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,         \
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {        \
        shmem_ctx_##N##_put_signal(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe);       \
    }                                                                                              \
    inline void shmem_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,  \
                                     uint64_t signal, int sig_op, int pe) {                        \
        shmem_##N##_put_signal_nbi(dest, source, nelems, sig_addr, signal, sig_op, pe);            \
    }                                                                                              \
    inline void shmem_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,     \
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {    \
        shmem_ctx_##N##_put_signal_nbi(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe);   \
    }                                                                                              \
    inline int shmem_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,         \
                               int PE_root) {                                                      \
        return shmem_##N##_broadcast(team, dest, source, nelems, PE_root);                         \
    }                                                                                              \
    inline int shmem_collect(shmem_team_t team, T *dest, const T *source, size_t nelems) {         \
        return shmem_##N##_collect(team, dest, source, nelems);                                    \
    }                                                                                              \
    inline int shmem_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems) {        \
        return shmem_##N##_fcollect(team, dest, source, nelems);                                   \
    }                                                                                              \
    inline int shmem_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems) {        \
        return shmem_##N##_alltoall(team, dest, source, nelems);                                   \
    }                                                                                              \
    inline int shmem_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,         \
                               ptrdiff_t sst, size_t nelems) {                                     \
        return shmem_##N##_alltoalls(team, dest, source, dst, sst, nelems);                        \
    }
SHMEM__G_RMA(SHMEM__CXX_RMA, , )
#undef SHMEM__CXX_RMA

/* ---- Atomic memory operations ------------------------------------------------------------------
 * Extended types: fetch, set, swap (and fetch_nbi, swap_nbi). */
#define SHMEM__CXX_AMO_EXTENDED(T, N, P, S)                                                        \
    inline T shmem_atomic_fetch(const T *source, int pe) {                                         \
        return shmem_##N##_atomic_fetch(source, pe);                                               \
    }                                                                                              \
    inline T shmem_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe) {                        \
        return shmem_ctx_##N##_atomic_fetch(ctx, source, pe);                                      \
    }                                                                                              \
    inline void shmem_atomic_set(T *dest, T value, int pe) {                                       \
        shmem_##N##_atomic_set(dest, value, pe);                                                   \
    }                                                                                              \
    inline void shmem_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe) {                      \
        shmem_ctx_##N##_atomic_set(ctx, dest, value, pe);                                          \
    }                                                                                              \
    inline T shmem_atomic_swap(T *dest, T value, int pe) {                                         \
        return shmem_##N##_atomic_swap(dest, value, pe);                                           \
    }                                                                                              \
    inline T shmem_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe) {                        \
        return shmem_ctx_##N##_atomic_swap(ctx, dest, value, pe);                                  \
    }                                                                                              \
    inline void shmem_atomic_fetch_nbi(T *fetch, const T *source, int pe) {                        \
        shmem_##N##_atomic_fetch_nbi(fetch, source, pe);                                           \
    }                                                                                              \
    inline void shmem_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe) {       \
        shmem_ctx_##N##_atomic_fetch_nbi(ctx, fetch, source, pe);                                  \
    }                                                                                              \
    inline void shmem_atomic_swap_nbi(T *fetch, T *dest, T value, int pe) {                        \
        shmem_##N##_atomic_swap_nbi(fetch, dest, value, pe);                                       \
    }                                                                                              \
    inline void shmem_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) {       \
        shmem_ctx_##N##_atomic_swap_nbi(ctx, fetch, dest, value, pe);                              \
    }
SHMEM__G_AMO_EXTENDED(SHMEM__CXX_AMO_EXTENDED, , )
#undef SHMEM__CXX_AMO_EXTENDED

/* Standard types: compare_swap, fetch_inc, inc, fetch_add, add (and their fetching _nbi forms). */
#define SHMEM__CXX_AMO_STANDARD(T, N, P, S)                                                        \
    inline T shmem_atomic_compare_swap(T *dest, T cond, T value, int pe) {                         \
        return shmem_##N##_atomic_compare_swap(dest, cond, value, pe);                             \
    }                                                                                              \
    inline T shmem_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe) {        \
        return shmem_ctx_##N##_atomic_compare_swap(ctx, dest, cond, value, pe);                    \
    }                                                                                              \
    inline T shmem_atomic_fetch_inc(T *dest, int pe) {                                             \
        return shmem_##N##_atomic_fetch_inc(dest, pe);                                             \
    }                                                                                              \
    inline T shmem_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe) {                            \
        return shmem_ctx_##N##_atomic_fetch_inc(ctx, dest, pe);                                    \
    }                                                                                              \
    inline void shmem_atomic_inc(T *dest, int pe) {                                                \
        shmem_##N##_atomic_inc(dest, pe);                                                          \
    }                                                                                              \
    inline void shmem_atomic_inc(shmem_ctx_t ctx, T *dest, int pe) {                               \
        shmem_ctx_##N##_atomic_inc(ctx, dest, pe);                                                 \
    }                                                                                              \
    inline T shmem_atomic_fetch_add(T *dest, T value, int pe) {                                    \
        return shmem_##N##_atomic_fetch_add(dest, value, pe);                                      \
    }                                                                                              \
    inline T shmem_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe) {                   \
        return shmem_ctx_##N##_atomic_fetch_add(ctx, dest, value, pe);                             \
    }                                                                                              \
    inline void shmem_atomic_add(T *dest, T value, int pe) {                                       \
        shmem_##N##_atomic_add(dest, value, pe);                                                   \
    }                                                                                              \
    inline void shmem_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe) {                      \
        shmem_ctx_##N##_atomic_add(ctx, dest, value, pe);                                          \
    }                                                                                              \
    inline void shmem_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe) {        \
        shmem_##N##_atomic_compare_swap_nbi(fetch, dest, cond, value, pe);                         \
    }                                                                                              \
    inline void shmem_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond, T value, \
                                              int pe) {                                            \
        shmem_ctx_##N##_atomic_compare_swap_nbi(ctx, fetch, dest, cond, value, pe);                \
    }                                                                                              \
    inline void shmem_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe) {                            \
        shmem_##N##_atomic_fetch_inc_nbi(fetch, dest, pe);                                         \
    }                                                                                              \
    inline void shmem_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe) {           \
        shmem_ctx_##N##_atomic_fetch_inc_nbi(ctx, fetch, dest, pe);                                \
    }                                                                                              \
    inline void shmem_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe) {                   \
        shmem_##N##_atomic_fetch_add_nbi(fetch, dest, value, pe);                                  \
    }                                                                                              \
    inline void shmem_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe) {  \
        shmem_ctx_##N##_atomic_fetch_add_nbi(ctx, fetch, dest, value, pe);                         \
    }
SHMEM__G_AMO_STANDARD(SHMEM__CXX_AMO_STANDARD, , )
#undef SHMEM__CXX_AMO_STANDARD

/* Bitwise types: fetch_OP, OP, fetch_OP_nbi for OP = and, or, xor. */
#define SHMEM__CXX_AMO_BITWISE_OP(T, N, OP)                                                        \
    inline T shmem_atomic_fetch_##OP(T *dest, T value, int pe) {                                   \
        return shmem_##N##_atomic_fetch_##OP(dest, value, pe);                                     \
    }                                                                                              \
    inline T shmem_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe) {                  \
        return shmem_ctx_##N##_atomic_fetch_##OP(ctx, dest, value, pe);                            \
    }                                                                                              \
    inline void shmem_atomic_##OP(T *dest, T value, int pe) {                                      \
        shmem_##N##_atomic_##OP(dest, value, pe);                                                  \
    }                                                                                              \
    inline void shmem_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe) {                     \
        shmem_ctx_##N##_atomic_##OP(ctx, dest, value, pe);                                         \
    }                                                                                              \
    inline void shmem_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe) {                \
        shmem_##N##_atomic_fetch_##OP##_nbi(fetch, dest, value, pe);                               \
    }                                                                                              \
    inline void shmem_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,         \
                                              int pe) {                                            \
        shmem_ctx_##N##_atomic_fetch_##OP##_nbi(ctx, fetch, dest, value, pe);                      \
    }
#define SHMEM__CXX_AMO_BITWISE(T, N, P, S)                                                         \
    SHMEM__CXX_AMO_BITWISE_OP(T, N, and)                                                           \
    SHMEM__CXX_AMO_BITWISE_OP(T, N, or)                                                            \
    SHMEM__CXX_AMO_BITWISE_OP(T, N, xor)
SHMEM__G_AMO_BITWISE(SHMEM__CXX_AMO_BITWISE, , )
#undef SHMEM__CXX_AMO_BITWISE
#undef SHMEM__CXX_AMO_BITWISE_OP

/* ---- Point-to-point synchronisation (no context forms; volatile accepted) -------------------- */
#define SHMEM__CXX_P2P(T, N, P, S)                                                                 \
    inline void shmem_wait_until(volatile T *ivar, int cmp, T cmp_value) {                         \
        shmem_##N##_wait_until(const_cast<T *>(ivar), cmp, cmp_value);                             \
    }                                                                                              \
    inline void shmem_wait_until_all(volatile T *ivars, size_t nelems, const int *status, int cmp, \
                                     T cmp_value) {                                                \
        shmem_##N##_wait_until_all(const_cast<T *>(ivars), nelems, status, cmp, cmp_value);        \
    }                                                                                              \
    inline size_t shmem_wait_until_any(volatile T *ivars, size_t nelems, const int *status,        \
                                       int cmp, T cmp_value) {                                     \
        return shmem_##N##_wait_until_any(const_cast<T *>(ivars), nelems, status, cmp, cmp_value); \
    }                                                                                              \
    inline size_t shmem_wait_until_some(volatile T *ivars, size_t nelems, size_t *indices,         \
                                        const int *status, int cmp, T cmp_value) {                 \
        return shmem_##N##_wait_until_some(const_cast<T *>(ivars), nelems, indices, status, cmp,   \
                                           cmp_value);                                             \
    }                                                                                              \
    inline void shmem_wait_until_all_vector(volatile T *ivars, size_t nelems, const int *status,   \
                                            int cmp, T *cmp_values) {                              \
        shmem_##N##_wait_until_all_vector(const_cast<T *>(ivars), nelems, status, cmp,             \
                                          cmp_values);                                             \
    }                                                                                              \
    inline size_t shmem_wait_until_any_vector(volatile T *ivars, size_t nelems, const int *status, \
                                              int cmp, T *cmp_values) {                            \
        return shmem_##N##_wait_until_any_vector(const_cast<T *>(ivars), nelems, status, cmp,      \
                                                 cmp_values);                                      \
    }                                                                                              \
    inline size_t shmem_wait_until_some_vector(volatile T *ivars, size_t nelems, size_t *indices,  \
                                               const int *status, int cmp, T *cmp_values) {        \
        return shmem_##N##_wait_until_some_vector(const_cast<T *>(ivars), nelems, indices, status, \
                                                  cmp, cmp_values);                                \
    }                                                                                              \
    inline int shmem_test(volatile T *ivar, int cmp, T cmp_value) {                                \
        return shmem_##N##_test(const_cast<T *>(ivar), cmp, cmp_value);                            \
    }                                                                                              \
    inline int shmem_test_all(volatile T *ivars, size_t nelems, const int *status, int cmp,        \
                              T cmp_value) {                                                       \
        return shmem_##N##_test_all(const_cast<T *>(ivars), nelems, status, cmp, cmp_value);       \
    }                                                                                              \
    inline size_t shmem_test_any(volatile T *ivars, size_t nelems, const int *status, int cmp,     \
                                 T cmp_value) {                                                    \
        return shmem_##N##_test_any(const_cast<T *>(ivars), nelems, status, cmp, cmp_value);       \
    }                                                                                              \
    inline size_t shmem_test_some(volatile T *ivars, size_t nelems, size_t *indices,               \
                                  const int *status, int cmp, T cmp_value) {                       \
        return shmem_##N##_test_some(const_cast<T *>(ivars), nelems, indices, status, cmp,         \
                                     cmp_value);                                                   \
    }                                                                                              \
    inline int shmem_test_all_vector(volatile T *ivars, size_t nelems, const int *status, int cmp, \
                                     T *cmp_values) {                                              \
        return shmem_##N##_test_all_vector(const_cast<T *>(ivars), nelems, status, cmp,            \
                                           cmp_values);                                            \
    }                                                                                              \
    inline size_t shmem_test_any_vector(volatile T *ivars, size_t nelems, const int *status,       \
                                        int cmp, T *cmp_values) {                                  \
        return shmem_##N##_test_any_vector(const_cast<T *>(ivars), nelems, status, cmp,            \
                                           cmp_values);                                            \
    }                                                                                              \
    inline size_t shmem_test_some_vector(volatile T *ivars, size_t nelems, size_t *indices,        \
                                         const int *status, int cmp, T *cmp_values) {              \
        return shmem_##N##_test_some_vector(const_cast<T *>(ivars), nelems, indices, status, cmp,  \
                                            cmp_values);                                           \
    }
SHMEM__G_P2P(SHMEM__CXX_P2P, , )
#undef SHMEM__CXX_P2P

/* ---- Team reductions ------------------------------------------------------------------------- */
#define SHMEM__CXX_REDUCE(T, N, OP)                                                                \
    inline int shmem_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce) {  \
        return shmem_##N##_##OP##_reduce(team, dest, source, nreduce);                             \
    }
#define SHMEM__CXX_REDUCE_BITWISE(T, N, P, S)                                                      \
    SHMEM__CXX_REDUCE(T, N, and) SHMEM__CXX_REDUCE(T, N, or) SHMEM__CXX_REDUCE(T, N, xor)
#define SHMEM__CXX_REDUCE_MINMAX(T, N, P, S)                                                       \
    SHMEM__CXX_REDUCE(T, N, max) SHMEM__CXX_REDUCE(T, N, min)
#define SHMEM__CXX_REDUCE_ARITH(T, N, P, S)                                                        \
    SHMEM__CXX_REDUCE(T, N, sum) SHMEM__CXX_REDUCE(T, N, prod)
SHMEM__G_REDUCE_BITWISE(SHMEM__CXX_REDUCE_BITWISE, , )
SHMEM__G_REDUCE_MINMAX(SHMEM__CXX_REDUCE_MINMAX, , )
SHMEM__G_REDUCE_ARITH(SHMEM__CXX_REDUCE_ARITH, , )
#undef SHMEM__CXX_REDUCE_ARITH
#undef SHMEM__CXX_REDUCE_MINMAX
#undef SHMEM__CXX_REDUCE_BITWISE
#undef SHMEM__CXX_REDUCE

/* ---- shmem_sync: 1.5's team form beside the deprecated active-set function of four arguments */
inline int shmem_sync(shmem_team_t team) {
    return shmem_team_sync(team);
}

/* ---- Deprecated generic atomics (1.3's names, deprecated since 1.4; no context forms) ---------
 * For long, shmem_swap is the old C function shmem_swap(long *, long, int) itself. */
#define SHMEM__CXX_OLD_AMO_STANDARD(T, N, P, S)                                                    \
    inline T shmem_cswap(T *dest, T cond, T value, int pe) {                                       \
        return shmem_##N##_cswap(dest, cond, value, pe);                                           \
    }                                                                                              \
    inline T shmem_finc(T *dest, int pe) {                                                         \
        return shmem_##N##_finc(dest, pe);                                                         \
    }                                                                                              \
    inline void shmem_inc(T *dest, int pe) {                                                       \
        shmem_##N##_inc(dest, pe);                                                                 \
    }                                                                                              \
    inline T shmem_fadd(T *dest, T value, int pe) {                                                \
        return shmem_##N##_fadd(dest, value, pe);                                                  \
    }                                                                                              \
    inline void shmem_add(T *dest, T value, int pe) {                                              \
        shmem_##N##_add(dest, value, pe);                                                          \
    }
#define SHMEM__CXX_OLD_AMO_EXTENDED(T, N, P, S)                                                    \
    inline T shmem_fetch(const T *source, int pe) {                                                \
        return shmem_##N##_fetch(source, pe);                                                      \
    }                                                                                              \
    inline void shmem_set(T *dest, T value, int pe) {                                              \
        shmem_##N##_set(dest, value, pe);                                                          \
    }
#define SHMEM__CXX_OLD_SWAP(T, N)                                                                  \
    inline T shmem_swap(T *dest, T value, int pe) {                                                \
        return shmem_##N##_swap(dest, value, pe);                                                  \
    }
SHMEM__G_OLD_AMO_STANDARD(SHMEM__CXX_OLD_AMO_STANDARD, , )
SHMEM__G_OLD_AMO_EXTENDED(SHMEM__CXX_OLD_AMO_EXTENDED, , )
SHMEM__CXX_OLD_SWAP(int, int)
SHMEM__CXX_OLD_SWAP(long long, longlong)
SHMEM__CXX_OLD_SWAP(float, float)
SHMEM__CXX_OLD_SWAP(double, double)
#undef SHMEM__CXX_OLD_SWAP
#undef SHMEM__CXX_OLD_AMO_EXTENDED
#undef SHMEM__CXX_OLD_AMO_STANDARD

} /* extern "C++" */

#endif /* SHMEM_GENERIC_CXX_H */
