/* The type tables of OpenSHMEM 1.5's generic routines, written in distinct basic types (shared by
 * the C11 _Generic selections of shmem_generic.h and the C++ overloads of shmem_generic_cxx.h).
 * Include shmem.h, not this file.
 *
 * int32_t, size_t, ptrdiff_t and the other typedefs name one of the basic types, so a table lists
 * each basic type once (neither a _Generic nor an overload set may name a type twice); where a
 * table names a fixed-width type with no basic type beside it, the typedef itself is listed. */
#ifndef SHMEM_GENERIC_TYPES_H
#define SHMEM_GENERIC_TYPES_H

#include "shmem.h"

/* ---- Type tables in basic types ---------------------------------------------------------------
 * LIST(X, P, S) calls X(TYPE, TYPENAME, P, S) for each row; P and S are passed on (the prefix and
 * suffix of the typed routine's name: shmem_ + int + _put). */
#define SHMEM__G_RMA(X, P, S)                                                                      \
    X(float, float, P, S)                                                                          \
    X(double, double, P, S)                                                                        \
    X(long double, longdouble, P, S)                                                               \
    X(char, char, P, S)                                                                            \
    X(signed char, schar, P, S)                                                                    \
    X(short, short, P, S)                                                                          \
    X(int, int, P, S)                                                                              \
    X(long, long, P, S)                                                                            \
    X(long long, longlong, P, S)                                                                   \
    X(unsigned char, uchar, P, S)                                                                  \
    X(unsigned short, ushort, P, S)                                                                \
    X(unsigned int, uint, P, S)                                                                    \
    X(unsigned long, ulong, P, S)                                                                  \
    X(unsigned long long, ulonglong, P, S)

#define SHMEM__G_AMO_STANDARD(X, P, S)                                                             \
    X(int, int, P, S)                                                                              \
    X(long, long, P, S)                                                                            \
    X(long long, longlong, P, S)                                                                   \
    X(unsigned int, uint, P, S)                                                                    \
    X(unsigned long, ulong, P, S)                                                                  \
    X(unsigned long long, ulonglong, P, S)

#define SHMEM__G_AMO_EXTENDED(X, P, S)                                                             \
    X(float, float, P, S)                                                                          \
    X(double, double, P, S)                                                                        \
    SHMEM__G_AMO_STANDARD(X, P, S)

/* The deprecated generic atomics (OpenSHMEM 1.3's shmem_cswap, finc, inc, fadd, add; and swap,
 * fetch, set), deprecated since 1.4 in favour of shmem_atomic_*, over 1.3's smaller tables. */
#define SHMEM__G_OLD_AMO_STANDARD(X, P, S)                                                         \
    X(int, int, P, S)                                                                              \
    X(long, long, P, S)                                                                            \
    X(long long, longlong, P, S)

#define SHMEM__G_OLD_AMO_EXTENDED(X, P, S)                                                         \
    X(float, float, P, S)                                                                          \
    X(double, double, P, S)                                                                        \
    SHMEM__G_OLD_AMO_STANDARD(X, P, S)

#define SHMEM__G_AMO_BITWISE(X, P, S)                                                              \
    X(unsigned int, uint, P, S)                                                                    \
    X(unsigned long, ulong, P, S)                                                                  \
    X(unsigned long long, ulonglong, P, S)                                                         \
    X(int32_t, int32, P, S)                                                                        \
    X(int64_t, int64, P, S)

#define SHMEM__G_P2P(X, P, S)                                                                      \
    X(short, short, P, S)                                                                          \
    X(int, int, P, S)                                                                              \
    X(long, long, P, S)                                                                            \
    X(long long, longlong, P, S)                                                                   \
    X(unsigned short, ushort, P, S)                                                                \
    X(unsigned int, uint, P, S)                                                                    \
    X(unsigned long, ulong, P, S)                                                                  \
    X(unsigned long long, ulonglong, P, S)

#define SHMEM__G_REDUCE_BITWISE(X, P, S)                                                           \
    X(unsigned char, uchar, P, S)                                                                  \
    X(unsigned short, ushort, P, S)                                                                \
    X(unsigned int, uint, P, S)                                                                    \
    X(unsigned long, ulong, P, S)                                                                  \
    X(unsigned long long, ulonglong, P, S)                                                         \
    X(int8_t, int8, P, S)                                                                          \
    X(int16_t, int16, P, S)                                                                        \
    X(int32_t, int32, P, S)                                                                        \
    X(int64_t, int64, P, S)

#define SHMEM__G_REDUCE_MINMAX(X, P, S)                                                            \
    X(char, char, P, S)                                                                            \
    X(signed char, schar, P, S)                                                                    \
    X(short, short, P, S)                                                                          \
    X(int, int, P, S)                                                                              \
    X(long, long, P, S)                                                                            \
    X(long long, longlong, P, S)                                                                   \
    X(unsigned char, uchar, P, S)                                                                  \
    X(unsigned short, ushort, P, S)                                                                \
    X(unsigned int, uint, P, S)                                                                    \
    X(unsigned long, ulong, P, S)                                                                  \
    X(unsigned long long, ulonglong, P, S)                                                         \
    X(float, float, P, S)                                                                          \
    X(double, double, P, S)                                                                        \
    X(long double, longdouble, P, S)

#define SHMEM__G_REDUCE_ARITH(X, P, S)                                                             \
    SHMEM__G_REDUCE_MINMAX(X, P, S)                                                                \
    X(shmem_complexd_t, complexd, P, S)                                                            \
    X(shmem_complexf_t, complexf, P, S)

#endif /* SHMEM_GENERIC_TYPES_H */
