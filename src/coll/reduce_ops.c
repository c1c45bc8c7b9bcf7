/* Element-wise reduction kernels for every C integer and floating type. */
#include <string.h>
#include <stddef.h>
#include <stdint.h>

#include "coll.h"

#define ARITH(T, inout, in, n, op)                                                                 \
    do {                                                                                           \
        T *x = (T *)(inout);                                                                       \
        const T *y = (const T *)(in);                                                              \
        switch (op) {                                                                              \
        case SHOAL_RED_SUM:                                                                        \
            for (size_t k = 0; k < (n); k++) x[k] = (T)(x[k] + y[k]);                              \
            break;                                                                                 \
        case SHOAL_RED_PROD:                                                                       \
            for (size_t k = 0; k < (n); k++) x[k] = (T)(x[k] * y[k]);                              \
            break;                                                                                 \
        case SHOAL_RED_MIN:                                                                        \
            for (size_t k = 0; k < (n); k++) x[k] = y[k] < x[k] ? y[k] : x[k];                     \
            break;                                                                                 \
        case SHOAL_RED_MAX:                                                                        \
            for (size_t k = 0; k < (n); k++) x[k] = y[k] > x[k] ? y[k] : x[k];                     \
            break;                                                                                 \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
    } while (0)

/* Unsigned and at least as wide as int: narrow types would promote to (signed) int and overflow. */
#define WIDE(U, v) ((unsigned long long)(U)(v))

/* Integers: bitwise too. Sums and products wrap (computed unsigned, no signed overflow). */
#define INTEGER(T, U, inout, in, n, op)                                                            \
    do {                                                                                           \
        T *x = (T *)(inout);                                                                       \
        const T *y = (const T *)(in);                                                              \
        switch (op) {                                                                              \
        case SHOAL_RED_SUM:                                                                        \
            for (size_t k = 0; k < (n); k++) x[k] = (T)(WIDE(U, x[k]) + WIDE(U, y[k]));            \
            break;                                                                                 \
        case SHOAL_RED_PROD:                                                                       \
            for (size_t k = 0; k < (n); k++) x[k] = (T)(WIDE(U, x[k]) * WIDE(U, y[k]));            \
            break;                                                                                 \
        case SHOAL_RED_AND:                                                                        \
            for (size_t k = 0; k < (n); k++) x[k] &= y[k];                                         \
            break;                                                                                 \
        case SHOAL_RED_OR:                                                                         \
            for (size_t k = 0; k < (n); k++) x[k] |= y[k];                                         \
            break;                                                                                 \
        case SHOAL_RED_XOR:                                                                        \
            for (size_t k = 0; k < (n); k++) x[k] ^= y[k];                                         \
            break;                                                                                 \
        default:                                                                                   \
            ARITH(T, inout, in, n, op);                                                            \
            break;                                                                                 \
        }                                                                                          \
    } while (0)

int coll_type_is_integer(shoal_type_t type) {
    return type != SHOAL_TYPE_FLOAT && type != SHOAL_TYPE_DOUBLE && type != SHOAL_TYPE_LONGDOUBLE;
}

size_t shoal_type_size(shoal_type_t type) {
    switch (type) {
    case SHOAL_TYPE_CHAR:
        return sizeof(char);
    case SHOAL_TYPE_SCHAR:
        return sizeof(signed char);
    case SHOAL_TYPE_SHORT:
        return sizeof(short);
    case SHOAL_TYPE_INT:
        return sizeof(int);
    case SHOAL_TYPE_LONG:
        return sizeof(long);
    case SHOAL_TYPE_LONGLONG:
        return sizeof(long long);
    case SHOAL_TYPE_UCHAR:
        return sizeof(unsigned char);
    case SHOAL_TYPE_USHORT:
        return sizeof(unsigned short);
    case SHOAL_TYPE_UINT:
        return sizeof(unsigned int);
    case SHOAL_TYPE_ULONG:
        return sizeof(unsigned long);
    case SHOAL_TYPE_ULONGLONG:
        return sizeof(unsigned long long);
    case SHOAL_TYPE_INT8:
        return 1;
    case SHOAL_TYPE_INT16:
        return 2;
    case SHOAL_TYPE_INT32:
        return 4;
    case SHOAL_TYPE_INT64:
        return 8;
    case SHOAL_TYPE_UINT8:
        return 1;
    case SHOAL_TYPE_UINT16:
        return 2;
    case SHOAL_TYPE_UINT32:
        return 4;
    case SHOAL_TYPE_UINT64:
        return 8;
    case SHOAL_TYPE_SIZE:
        return sizeof(size_t);
    case SHOAL_TYPE_PTRDIFF:
        return sizeof(ptrdiff_t);
    case SHOAL_TYPE_FLOAT:
        return sizeof(float);
    case SHOAL_TYPE_DOUBLE:
        return sizeof(double);
    case SHOAL_TYPE_LONGDOUBLE:
        return sizeof(long double);
    case SHOAL_TYPE_COUNT_:
        break;
    }
    return 0;
}

/* The kernels are plain loops for the compiler to vectorise. src/CMakeLists.txt gives this file
 * the vectoriser's dynamic cost model: GCC 12's -O2 default ("very cheap") vectorised none of
 * them, since each needs a run-time check that inout and in do not overlap. On x86-64 the
 * function is built once more for AVX2, and the loader picks the copy for the CPU (an ifunc;
 * an AVX-512 copy was no faster in bench_coll): a sum of doubles in cache ran at 7.2e-5 us/B
 * scalar, 5.6e-5 with SSE2 (-O3) and 2.3e-5 with AVX2 (Xeon family 6 model 106, session 38).
 * Element-wise operations round alike in every vector width, so members on different CPUs still
 * compute the same result. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void coll_reduce_local(void *inout, const void *in, size_t n, shoal_type_t type,
                       shoal_red_op_t op) {
    switch (type) {
    case SHOAL_TYPE_CHAR:
        INTEGER(char, unsigned char, inout, in, n, op);
        break;
    case SHOAL_TYPE_SCHAR:
        INTEGER(signed char, unsigned char, inout, in, n, op);
        break;
    case SHOAL_TYPE_SHORT:
        INTEGER(short, unsigned short, inout, in, n, op);
        break;
    case SHOAL_TYPE_INT:
        INTEGER(int, unsigned, inout, in, n, op);
        break;
    case SHOAL_TYPE_LONG:
        INTEGER(long, unsigned long, inout, in, n, op);
        break;
    case SHOAL_TYPE_LONGLONG:
        INTEGER(long long, unsigned long long, inout, in, n, op);
        break;
    case SHOAL_TYPE_UCHAR:
        INTEGER(unsigned char, unsigned char, inout, in, n, op);
        break;
    case SHOAL_TYPE_USHORT:
        INTEGER(unsigned short, unsigned short, inout, in, n, op);
        break;
    case SHOAL_TYPE_UINT:
        INTEGER(unsigned, unsigned, inout, in, n, op);
        break;
    case SHOAL_TYPE_ULONG:
        INTEGER(unsigned long, unsigned long, inout, in, n, op);
        break;
    case SHOAL_TYPE_ULONGLONG:
        INTEGER(unsigned long long, unsigned long long, inout, in, n, op);
        break;
    case SHOAL_TYPE_INT8:
        INTEGER(int8_t, uint8_t, inout, in, n, op);
        break;
    case SHOAL_TYPE_INT16:
        INTEGER(int16_t, uint16_t, inout, in, n, op);
        break;
    case SHOAL_TYPE_INT32:
        INTEGER(int32_t, uint32_t, inout, in, n, op);
        break;
    case SHOAL_TYPE_INT64:
        INTEGER(int64_t, uint64_t, inout, in, n, op);
        break;
    case SHOAL_TYPE_UINT8:
        INTEGER(uint8_t, uint8_t, inout, in, n, op);
        break;
    case SHOAL_TYPE_UINT16:
        INTEGER(uint16_t, uint16_t, inout, in, n, op);
        break;
    case SHOAL_TYPE_UINT32:
        INTEGER(uint32_t, uint32_t, inout, in, n, op);
        break;
    case SHOAL_TYPE_UINT64:
        INTEGER(uint64_t, uint64_t, inout, in, n, op);
        break;
    case SHOAL_TYPE_SIZE:
        INTEGER(size_t, size_t, inout, in, n, op);
        break;
    case SHOAL_TYPE_PTRDIFF:
        INTEGER(ptrdiff_t, size_t, inout, in, n, op);
        break;
    case SHOAL_TYPE_FLOAT:
        ARITH(float, inout, in, n, op);
        break;
    case SHOAL_TYPE_DOUBLE:
        ARITH(double, inout, in, n, op);
        break;
    case SHOAL_TYPE_LONGDOUBLE:
        /* long double wants 16-byte alignment, and the eager cells put data 8 bytes after their
         * flag: such operands go through aligned copies, one element at a time. */
        if (((uintptr_t)inout | (uintptr_t)in) % _Alignof(long double)) {
            for (size_t k = 0; k < n; k++) {
                long double a, b;
                memcpy(&a, (char *)inout + k * sizeof a, sizeof a);
                memcpy(&b, (const char *)in + k * sizeof b, sizeof b);
                ARITH(long double, &a, &b, 1, op);
                memcpy((char *)inout + k * sizeof a, &a, sizeof a);
            }
        } else {
            ARITH(long double, inout, in, n, op);
        }
        break;
    case SHOAL_TYPE_COUNT_:
        break;
    }
}
