/* The TYPE_OP_to_all cases of test_shmem_active_set and test_shcoll: each member's input
 * (TIN_<op>(T, member, i); CTIN_ for the complex types), small enough that every result is exact
 * in every type at up to 8 members, the operation on two values (TOP_<op>), and the calls of
 * every case, to_all_<N>_<OP>(), which the test defines (TO_ALL_CALL_EVERY: every type and
 * operation of shmem.h's tables; the types test_keep leaves out are skipped), which the test
 * defines with TO_ALL_DEFINE_EVERY after defining TO_ALL_DEF(T, N, OP, IN) to define one. */
#ifndef TO_ALL_CASES_H
#define TO_ALL_CASES_H

#include <complex.h>

#define TIN_and(T, p, i)   ((T)(~(1LL << (((p) + (i)) % 15))))
#define TIN_or(T, p, i)    ((T)(1LL << (((p)*3 + (i)) % 15)))
#define TIN_xor(T, p, i)   ((T)((((long long)(p)*37 + (i)*11) & 0x7FFF)))
#define TIN_max(T, p, i)   VAL(T, 4, p, i)
#define TIN_min(T, p, i)   VAL(T, 5, p, i)
#define TIN_sum(T, p, i)   VAL(T, 6, p, i)
#define TIN_prod(T, p, i)  ((T)(1 + ((p) + (i)) % 3))
#define TOP_and(a, b)      ((a) & (b))
#define TOP_or(a, b)       ((a) | (b))
#define TOP_xor(a, b)      ((a) ^ (b))
#define TOP_max(a, b)      ((a) > (b) ? (a) : (b))
#define TOP_min(a, b)      ((a) < (b) ? (a) : (b))
#define TOP_sum(a, b)      ((a) + (b))
#define TOP_prod(a, b)     ((a) * (b))
#define CTIN_sum(T, p, i)  ((T)((double)VAL(int, 6, p, i) + (double)((p) % 3) * I))
#define CTIN_prod(T, p, i) ((T)((double)(1 + ((p) + (i)) % 2) + (double)(((p) + 1) % 2) * I))

#define TO_ALL_DEF_BIT_(T, N)                                                                      \
    TO_ALL_DEF(T, N, and, TIN_and) TO_ALL_DEF(T, N, or, TIN_or) TO_ALL_DEF(T, N, xor, TIN_xor)
#define TO_ALL_DEF_MM_(T, N) TO_ALL_DEF(T, N, max, TIN_max) TO_ALL_DEF(T, N, min, TIN_min)
#define TO_ALL_DEF_AR_(T, N) TO_ALL_DEF(T, N, sum, TIN_sum) TO_ALL_DEF(T, N, prod, TIN_prod)
#define TO_ALL_DEFINE_EVERY()                                                                      \
    SHMEM_TO_ALL_BITWISE_TYPES(TO_ALL_DEF_BIT_)                                                    \
    SHMEM_TO_ALL_MINMAX_TYPES(TO_ALL_DEF_MM_)                                                      \
    SHMEM_TO_ALL_MINMAX_TYPES(TO_ALL_DEF_AR_) /* the real types; the complex ones: */              \
    TO_ALL_DEF(shmem_complexd_t, complexd, sum, CTIN_sum)                                          \
    TO_ALL_DEF(shmem_complexd_t, complexd, prod, CTIN_prod)                                        \
    TO_ALL_DEF(shmem_complexf_t, complexf, sum, CTIN_sum)                                          \
    TO_ALL_DEF(shmem_complexf_t, complexf, prod, CTIN_prod)

#define TO_ALL_CALL_BIT_(T, N)                                                                     \
    if (test_keep(#N)) {                                                                           \
        to_all_##N##_and();                                                                        \
        to_all_##N##_or();                                                                         \
        to_all_##N##_xor();                                                                        \
    }
#define TO_ALL_CALL_MM_(T, N)                                                                      \
    if (test_keep(#N)) {                                                                           \
        to_all_##N##_max();                                                                        \
        to_all_##N##_min();                                                                        \
    }
#define TO_ALL_CALL_AR_(T, N)                                                                      \
    if (test_keep(#N)) {                                                                           \
        to_all_##N##_sum();                                                                        \
        to_all_##N##_prod();                                                                       \
    }
#define TO_ALL_CALL_EVERY()                                                                        \
    do {                                                                                           \
        SHMEM_TO_ALL_BITWISE_TYPES(TO_ALL_CALL_BIT_)                                               \
        SHMEM_TO_ALL_MINMAX_TYPES(TO_ALL_CALL_MM_)                                                 \
        SHMEM_TO_ALL_MINMAX_TYPES(TO_ALL_CALL_AR_) /* the real types; the complex ones: */         \
        to_all_complexd_sum();                                                                     \
        to_all_complexd_prod();                                                                    \
        if (test_keep("complexf")) {                                                               \
            to_all_complexf_sum();                                                                 \
            to_all_complexf_prod();                                                                \
        }                                                                                          \
    } while (0)

#endif
