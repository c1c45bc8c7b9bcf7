/* Every generic routine on every type of its table (shmem.h's TYPE, TYPENAME tables, typedefs
 * included), with and without a context where the routine has both: compiled with -std=c11
 * -pedantic -Wall -Wextra -Werror -fsyntax-only (tools.shmem_header.c11: the _Generic selections of
 * shmem_generic.h), and the same as C++11 (tools.shmem_header.cxx_generic: the overloads of
 * shmem_generic_cxx.h).
 * A wrong selection would pass a T * to another type's routine, which -Werror refuses; the
 * routines that return a value are also checked to return T. */
#include <shmem.h>

#ifdef __cplusplus
#include <type_traits>
#define RETURNS(call, T) static_assert(std::is_same<decltype(call), T>::value, #call " returns " #T)
#else
#define RETURNS(call, T) _Static_assert(_Generic((call), T : 1, default : 0), #call " returns " #T)
#endif

#define TEST_RMA(T, N)                                                                             \
    void rma_##N(shmem_ctx_t ctx, T *d, const T *s, uint64_t *sig);                                \
    void rma_##N(shmem_ctx_t ctx, T *d, const T *s, uint64_t *sig) {                               \
        T v = 0;                                                                                   \
        shmem_put(d, s, 1, 0);                                                                     \
        shmem_put(ctx, d, s, 1, 0);                                                                \
        shmem_get(d, s, 1, 0);                                                                     \
        shmem_get(ctx, d, s, 1, 0);                                                                \
        shmem_p(d, v, 0);                                                                          \
        shmem_p(ctx, d, v, 0);                                                                     \
        v = shmem_g(s, 0);                                                                         \
        v = shmem_g(ctx, s, 0);                                                                    \
        v = shmem_g(d, 0);                                                                         \
        shmem_iput(d, s, 1, 1, 1, 0);                                                              \
        shmem_iput(ctx, d, s, 1, 1, 1, 0);                                                         \
        shmem_iget(d, s, 1, 1, 1, 0);                                                              \
        shmem_iget(ctx, d, s, 1, 1, 1, 0);                                                         \
        shmem_put_nbi(d, s, 1, 0);                                                                 \
        shmem_put_nbi(ctx, d, s, 1, 0);                                                            \
        shmem_get_nbi(d, s, 1, 0);                                                                 \
        shmem_get_nbi(ctx, d, s, 1, 0);                                                            \
        shmem_put_signal(d, s, 1, sig, 1, SHMEM_SIGNAL_SET, 0);                                    \
        shmem_put_signal(ctx, d, s, 1, sig, 1, SHMEM_SIGNAL_SET, 0);                               \
        shmem_put_signal_nbi(d, s, 1, sig, 1, SHMEM_SIGNAL_SET, 0);                                \
        shmem_put_signal_nbi(ctx, d, s, 1, sig, 1, SHMEM_SIGNAL_SET, 0);                           \
        shmem_broadcast(SHMEM_TEAM_WORLD, d, s, 1, 0);                                             \
        shmem_collect(SHMEM_TEAM_WORLD, d, s, 1);                                                  \
        shmem_fcollect(SHMEM_TEAM_WORLD, d, s, 1);                                                 \
        shmem_alltoall(SHMEM_TEAM_WORLD, d, s, 1);                                                 \
        shmem_alltoalls(SHMEM_TEAM_WORLD, d, s, 1, 1, 1);                                          \
        RETURNS(shmem_g(s, 0), T);                                                                 \
        RETURNS(shmem_g(ctx, d, 0), T);                                                            \
        (void)v;                                                                                   \
    }
SHMEM_RMA_TYPES(TEST_RMA)

#define TEST_EXT(T, N)                                                                             \
    void ext_##N(shmem_ctx_t ctx, T *d, const T *s, T *f);                                         \
    void ext_##N(shmem_ctx_t ctx, T *d, const T *s, T *f) {                                        \
        T v = shmem_atomic_fetch(s, 0);                                                            \
        v = shmem_atomic_fetch(ctx, s, 0);                                                         \
        shmem_atomic_set(d, v, 0);                                                                 \
        shmem_atomic_set(ctx, d, v, 0);                                                            \
        v = shmem_atomic_swap(d, v, 0);                                                            \
        v = shmem_atomic_swap(ctx, d, v, 0);                                                       \
        shmem_atomic_fetch_nbi(f, s, 0);                                                           \
        shmem_atomic_fetch_nbi(ctx, f, s, 0);                                                      \
        shmem_atomic_swap_nbi(f, d, v, 0);                                                         \
        shmem_atomic_swap_nbi(ctx, f, d, v, 0);                                                    \
        RETURNS(shmem_atomic_fetch(ctx, s, 0), T);                                                 \
        RETURNS(shmem_atomic_swap(d, v, 0), T);                                                    \
    }
SHMEM_AMO_EXTENDED_TYPES(TEST_EXT)

#define TEST_STD(T, N)                                                                             \
    void std_##N(shmem_ctx_t ctx, T *d, T *f);                                                     \
    void std_##N(shmem_ctx_t ctx, T *d, T *f) {                                                    \
        T v = shmem_atomic_compare_swap(d, 0, 1, 0);                                               \
        v = shmem_atomic_compare_swap(ctx, d, 0, 1, 0);                                            \
        v = shmem_atomic_fetch_inc(d, 0);                                                          \
        v = shmem_atomic_fetch_inc(ctx, d, 0);                                                     \
        shmem_atomic_inc(d, 0);                                                                    \
        shmem_atomic_inc(ctx, d, 0);                                                               \
        v = shmem_atomic_fetch_add(d, 1, 0);                                                       \
        v = shmem_atomic_fetch_add(ctx, d, 1, 0);                                                  \
        shmem_atomic_add(d, 1, 0);                                                                 \
        shmem_atomic_add(ctx, d, 1, 0);                                                            \
        shmem_atomic_compare_swap_nbi(f, d, 0, 1, 0);                                              \
        shmem_atomic_compare_swap_nbi(ctx, f, d, 0, 1, 0);                                         \
        shmem_atomic_fetch_inc_nbi(f, d, 0);                                                       \
        shmem_atomic_fetch_inc_nbi(ctx, f, d, 0);                                                  \
        shmem_atomic_fetch_add_nbi(f, d, 1, 0);                                                    \
        shmem_atomic_fetch_add_nbi(ctx, f, d, 1, 0);                                               \
        RETURNS(shmem_atomic_fetch_inc(ctx, d, 0), T);                                             \
        RETURNS(shmem_atomic_compare_swap(d, 0, 1, 0), T);                                         \
        (void)v;                                                                                   \
    }
SHMEM_AMO_STANDARD_TYPES(TEST_STD)

#define TEST_BIT(T, N)                                                                             \
    void bit_##N(shmem_ctx_t ctx, T *d, T *f);                                                     \
    void bit_##N(shmem_ctx_t ctx, T *d, T *f) {                                                    \
        T v = shmem_atomic_fetch_and(d, 1, 0);                                                     \
        v = shmem_atomic_fetch_and(ctx, d, 1, 0);                                                  \
        shmem_atomic_and(d, 1, 0);                                                                 \
        shmem_atomic_and(ctx, d, 1, 0);                                                            \
        shmem_atomic_fetch_and_nbi(f, d, 1, 0);                                                    \
        shmem_atomic_fetch_and_nbi(ctx, f, d, 1, 0);                                               \
        v = shmem_atomic_fetch_or(d, 1, 0);                                                        \
        v = shmem_atomic_fetch_or(ctx, d, 1, 0);                                                   \
        shmem_atomic_or(d, 1, 0);                                                                  \
        shmem_atomic_or(ctx, d, 1, 0);                                                             \
        shmem_atomic_fetch_or_nbi(f, d, 1, 0);                                                     \
        shmem_atomic_fetch_or_nbi(ctx, f, d, 1, 0);                                                \
        v = shmem_atomic_fetch_xor(d, 1, 0);                                                       \
        v = shmem_atomic_fetch_xor(ctx, d, 1, 0);                                                  \
        shmem_atomic_xor(d, 1, 0);                                                                 \
        shmem_atomic_xor(ctx, d, 1, 0);                                                            \
        shmem_atomic_fetch_xor_nbi(f, d, 1, 0);                                                    \
        shmem_atomic_fetch_xor_nbi(ctx, f, d, 1, 0);                                               \
        RETURNS(shmem_atomic_fetch_or(ctx, d, 1, 0), T);                                           \
        (void)v;                                                                                   \
    }
SHMEM_AMO_BITWISE_TYPES(TEST_BIT)

#define TEST_P2P(T, N)                                                                             \
    size_t p2p_##N(T *iv, T *vals, size_t *idx, const int *st);                                    \
    size_t p2p_##N(T *iv, T *vals, size_t *idx, const int *st) {                                   \
        size_t r = 0;                                                                              \
        shmem_wait_until(iv, SHMEM_CMP_EQ, 0);                                                     \
        shmem_wait_until_all(iv, 2, st, SHMEM_CMP_EQ, 0);                                          \
        r += shmem_wait_until_any(iv, 2, st, SHMEM_CMP_EQ, 0);                                     \
        r += shmem_wait_until_some(iv, 2, idx, st, SHMEM_CMP_EQ, 0);                               \
        shmem_wait_until_all_vector(iv, 2, st, SHMEM_CMP_EQ, vals);                                \
        r += shmem_wait_until_any_vector(iv, 2, st, SHMEM_CMP_EQ, vals);                           \
        r += shmem_wait_until_some_vector(iv, 2, idx, st, SHMEM_CMP_EQ, vals);                     \
        r += (size_t)shmem_test(iv, SHMEM_CMP_EQ, 0);                                              \
        r += (size_t)shmem_test_all(iv, 2, st, SHMEM_CMP_EQ, 0);                                   \
        r += shmem_test_any(iv, 2, st, SHMEM_CMP_EQ, 0);                                           \
        r += shmem_test_some(iv, 2, idx, st, SHMEM_CMP_EQ, 0);                                     \
        r += (size_t)shmem_test_all_vector(iv, 2, st, SHMEM_CMP_EQ, vals);                         \
        r += shmem_test_any_vector(iv, 2, st, SHMEM_CMP_EQ, vals);                                 \
        r += shmem_test_some_vector(iv, 2, idx, st, SHMEM_CMP_EQ, vals);                           \
        return r;                                                                                  \
    }
SHMEM_P2P_TYPES(TEST_P2P)

#define TEST_RBIT(T, N)                                                                            \
    int rbit_##N(T *d, const T *s);                                                                \
    int rbit_##N(T *d, const T *s) {                                                               \
        return shmem_and_reduce(SHMEM_TEAM_WORLD, d, s, 1) +                                       \
               shmem_or_reduce(SHMEM_TEAM_WORLD, d, s, 1) +                                        \
               shmem_xor_reduce(SHMEM_TEAM_WORLD, d, s, 1);                                        \
    }
SHMEM_REDUCE_BITWISE_TYPES(TEST_RBIT)
#define TEST_RMM(T, N)                                                                             \
    int rmm_##N(T *d, const T *s);                                                                 \
    int rmm_##N(T *d, const T *s) {                                                                \
        return shmem_max_reduce(SHMEM_TEAM_WORLD, d, s, 1) +                                       \
               shmem_min_reduce(SHMEM_TEAM_WORLD, d, s, 1);                                        \
    }
SHMEM_REDUCE_MINMAX_TYPES(TEST_RMM)
#define TEST_RAR(T, N)                                                                             \
    int rar_##N(T *d, const T *s);                                                                 \
    int rar_##N(T *d, const T *s) {                                                                \
        return shmem_sum_reduce(SHMEM_TEAM_WORLD, d, s, 1) +                                       \
               shmem_prod_reduce(SHMEM_TEAM_WORLD, d, s, 1);                                       \
    }
SHMEM_REDUCE_ARITH_TYPES(TEST_RAR)
