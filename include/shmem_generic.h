/* OpenSHMEM 1.5's C11 type-generic interfaces on Shoal. shmem.h includes this file at its end when
 * it is compiled as C11 or later; C++ gets the same routines as overloads (shmem_generic_cxx.h).
 * Include shmem.h, not this file.
 *
 * Every generic routine of the specification is here, as a macro over the typed routines shmem.h
 * declares:
 *   RMA          shmem_put, get, p, g, iput, iget, put_nbi, get_nbi, put_signal, put_signal_nbi
 *   atomics      shmem_atomic_fetch, set, swap, compare_swap, fetch_inc, inc, fetch_add, add,
 *                fetch_and, and, fetch_or, or, fetch_xor, xor, and the fetching _nbi forms
 *                (fetch_nbi, swap_nbi, compare_swap_nbi, fetch_inc_nbi, fetch_add_nbi,
 *                fetch_and_nbi, fetch_or_nbi, fetch_xor_nbi)
 *   wait/test    shmem_wait_until, shmem_test and their _all, _any, _some, _all_vector,
 *                _any_vector, _some_vector forms
 *   collectives  shmem_broadcast, collect, fcollect, alltoall, alltoalls, and the team reductions
 *                shmem_and_reduce, or, xor, max, min, sum, prod; shmem_sync(team)
 *   deprecated   1.3's generic atomics (shmem_add, cswap, fetch, ...), at the end
 * The RMA and atomic routines take an optional leading context: shmem_put(dest, source, nelems,
 * pe) and shmem_put(ctx, dest, source, nelems, pe) are both valid, told apart by their number of
 * arguments.
 *
 * A call selects its typed routine by the type of the object its symmetric pointer points to (dest,
 * or source for shmem_g, shmem_atomic_fetch and shmem_atomic_fetch_nbi, or ivar/ivars); const and
 * volatile on that object are ignored for the choice. The accepted types are those of the
 * specification's table for the routine. Each table is written (shmem_generic_types.h) in the
 * distinct basic C types it covers: int32_t, size_t, ptrdiff_t and the other typedefs name one of
 * those types, so they select the same routine (a _Generic cannot list a type twice). Where a table
 * names a fixed-width type with no basic type beside it (int32_t and int64_t for the bitwise
 * atomics, int8_t to int64_t for the bitwise reductions), the typedef itself is listed.
 *
 * A type outside the routine's table does not compile: "static assertion failed: "shmem_put: the
 * pointed-to type is not in the OpenSHMEM type table of shmem_put"". A wrong number of arguments
 * to a routine with a context form names a helper that does not exist ("implicit declaration of
 * function 'shmem__put_3_args'", then an undefined reference); to the others, the preprocessor
 * says so.
 *
 * The deprecated function shmem_wait_until(long *, int, long) (shmem.h) is still reachable as
 * (shmem_wait_until)(ivar, cmp, value); the macro gives the same result for long. */
#ifndef SHMEM_GENERIC_H
#define SHMEM_GENERIC_H

#if defined(__cplusplus) || !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "shmem_generic.h needs C11 or later (not C++): include shmem.h instead"
#endif

#include "shmem.h"

#include "shmem_generic_types.h"

/* ---- Selection --------------------------------------------------------------------------------
 * SHMEM__G(LIST, P, S, NAME, ptr) is the typed routine P<TYPENAME>S for the type *ptr has, after a
 * static assertion (naming NAME) that LIST has that type. Neither ptr nor anything else is
 * evaluated here: the caller passes ptr again in the call's arguments. */
/* clang-format off */
#define SHMEM__G_ROUTINE(T, N, P, S) T: P##N##S,
#define SHMEM__G_ACCEPT(T, N, P, S) T: 1,
#define SHMEM__G(LIST, P, S, NAME, ptr)                                                            \
    ((void)sizeof(struct {                                                                         \
         _Static_assert(_Generic(*(ptr), LIST(SHMEM__G_ACCEPT, , ) default: 0),                    \
                        NAME ": the pointed-to type is not in the OpenSHMEM type table of " NAME); \
         char shmem__unused;                                                                       \
     }),                                                                                           \
     _Generic(*(ptr), LIST(SHMEM__G_ROUTINE, P, S) default: shmem__generic_unsupported_type))
/* clang-format on */

/* Only named by the selection above when the static assertion has already failed; not defined. */
void shmem__generic_unsupported_type(const volatile void *first, ...);

/* Dispatch on the number of arguments (up to 9): SHMEM__NARGS(a, b, c) is 3, and
 * SHMEM__BY_NARGS(shmem__put_, a, b, c, d) is shmem__put_4_args(a, b, c, d). */
/* clang-format off */
#define SHMEM__NARGS(...) SHMEM__NARGS_(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define SHMEM__NARGS_(a, b, c, d, e, f, g, h, i, n, ...) n
#define SHMEM__CAT3(a, b, c) SHMEM__CAT3_(a, b, c)
#define SHMEM__CAT3_(a, b, c) a##b##c
#define SHMEM__BY_NARGS(name, ...)                                                                 \
    SHMEM__CAT3(name, SHMEM__NARGS(__VA_ARGS__), _args)(__VA_ARGS__)
/* clang-format on */

/* ---- RMA ------------------------------------------------------------------------------------- */
#define shmem_put(...) SHMEM__BY_NARGS(shmem__put_, __VA_ARGS__)
#define shmem__put_4_args(dest, source, nelems, pe)                                                \
    SHMEM__G(SHMEM__G_RMA, shmem_, _put, "shmem_put", dest)(dest, source, nelems, pe)
#define shmem__put_5_args(ctx, dest, source, nelems, pe)                                           \
    SHMEM__G(SHMEM__G_RMA, shmem_ctx_, _put, "shmem_put", dest)(ctx, dest, source, nelems, pe)

#define shmem_get(...) SHMEM__BY_NARGS(shmem__get_, __VA_ARGS__)
#define shmem__get_4_args(dest, source, nelems, pe)                                                \
    SHMEM__G(SHMEM__G_RMA, shmem_, _get, "shmem_get", dest)(dest, source, nelems, pe)
#define shmem__get_5_args(ctx, dest, source, nelems, pe)                                           \
    SHMEM__G(SHMEM__G_RMA, shmem_ctx_, _get, "shmem_get", dest)(ctx, dest, source, nelems, pe)

#define shmem_p(...) SHMEM__BY_NARGS(shmem__p_, __VA_ARGS__)
#define shmem__p_3_args(dest, value, pe)                                                           \
    SHMEM__G(SHMEM__G_RMA, shmem_, _p, "shmem_p", dest)(dest, value, pe)
#define shmem__p_4_args(ctx, dest, value, pe)                                                      \
    SHMEM__G(SHMEM__G_RMA, shmem_ctx_, _p, "shmem_p", dest)(ctx, dest, value, pe)

#define shmem_g(...) SHMEM__BY_NARGS(shmem__g_, __VA_ARGS__)
#define shmem__g_2_args(source, pe)                                                                \
    SHMEM__G(SHMEM__G_RMA, shmem_, _g, "shmem_g", source)(source, pe)
#define shmem__g_3_args(ctx, source, pe)                                                           \
    SHMEM__G(SHMEM__G_RMA, shmem_ctx_, _g, "shmem_g", source)(ctx, source, pe)

#define shmem_iput(...) SHMEM__BY_NARGS(shmem__iput_, __VA_ARGS__)
#define shmem__iput_6_args(dest, source, dst, sst, nelems, pe)                                     \
    SHMEM__G(SHMEM__G_RMA, shmem_, _iput, "shmem_iput", dest)(dest, source, dst, sst, nelems, pe)
#define shmem__iput_7_args(ctx, dest, source, dst, sst, nelems, pe)                                \
    SHMEM__G(SHMEM__G_RMA, shmem_ctx_, _iput, "shmem_iput", dest)                                  \
    (ctx, dest, source, dst, sst, nelems, pe)

#define shmem_iget(...) SHMEM__BY_NARGS(shmem__iget_, __VA_ARGS__)
#define shmem__iget_6_args(dest, source, dst, sst, nelems, pe)                                     \
    SHMEM__G(SHMEM__G_RMA, shmem_, _iget, "shmem_iget", dest)(dest, source, dst, sst, nelems, pe)
#define shmem__iget_7_args(ctx, dest, source, dst, sst, nelems, pe)                                \
    SHMEM__G(SHMEM__G_RMA, shmem_ctx_, _iget, "shmem_iget", dest)                                  \
    (ctx, dest, source, dst, sst, nelems, pe)

#define shmem_put_nbi(...) SHMEM__BY_NARGS(shmem__put_nbi_, __VA_ARGS__)
#define shmem__put_nbi_4_args(dest, source, nelems, pe)                                            \
    SHMEM__G(SHMEM__G_RMA, shmem_, _put_nbi, "shmem_put_nbi", dest)(dest, source, nelems, pe)
#define shmem__put_nbi_5_args(ctx, dest, source, nelems, pe)                                       \
    SHMEM__G(SHMEM__G_RMA, shmem_ctx_, _put_nbi, "shmem_put_nbi", dest)                            \
    (ctx, dest, source, nelems, pe)

#define shmem_get_nbi(...) SHMEM__BY_NARGS(shmem__get_nbi_, __VA_ARGS__)
#define shmem__get_nbi_4_args(dest, source, nelems, pe)                                            \
    SHMEM__G(SHMEM__G_RMA, shmem_, _get_nbi, "shmem_get_nbi", dest)(dest, source, nelems, pe)
#define shmem__get_nbi_5_args(ctx, dest, source, nelems, pe)                                       \
    SHMEM__G(SHMEM__G_RMA, shmem_ctx_, _get_nbi, "shmem_get_nbi", dest)                            \
    (ctx, dest, source, nelems, pe)

#define shmem_put_signal(...) SHMEM__BY_NARGS(shmem__put_signal_, __VA_ARGS__)
#define shmem__put_signal_7_args(dest, source, nelems, sig_addr, signal, sig_op, pe)               \
    SHMEM__G(SHMEM__G_RMA, shmem_, _put_signal, "shmem_put_signal", dest)                          \
    (dest, source, nelems, sig_addr, signal, sig_op, pe)
#define shmem__put_signal_8_args(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe)          \
    SHMEM__G(SHMEM__G_RMA, shmem_ctx_, _put_signal, "shmem_put_signal", dest)                      \
    (ctx, dest, source, nelems, sig_addr, signal, sig_op, pe)

#define shmem_put_signal_nbi(...) SHMEM__BY_NARGS(shmem__put_signal_nbi_, __VA_ARGS__)
#define shmem__put_signal_nbi_7_args(dest, source, nelems, sig_addr, signal, sig_op, pe)           \
    SHMEM__G(SHMEM__G_RMA, shmem_, _put_signal_nbi, "shmem_put_signal_nbi", dest)                  \
    (dest, source, nelems, sig_addr, signal, sig_op, pe)
#define shmem__put_signal_nbi_8_args(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe)      \
    SHMEM__G(SHMEM__G_RMA, shmem_ctx_, _put_signal_nbi, "shmem_put_signal_nbi", dest)              \
    (ctx, dest, source, nelems, sig_addr, signal, sig_op, pe)

/* ---- Atomic memory operations ------------------------------------------------------------------
 * Extended types: fetch, set, swap (and fetch_nbi, swap_nbi). */
#define shmem_atomic_fetch(...) SHMEM__BY_NARGS(shmem__atomic_fetch_, __VA_ARGS__)
#define shmem__atomic_fetch_2_args(source, pe)                                                     \
    SHMEM__G(SHMEM__G_AMO_EXTENDED, shmem_, _atomic_fetch, "shmem_atomic_fetch", source)(source, pe)
#define shmem__atomic_fetch_3_args(ctx, source, pe)                                                \
    SHMEM__G(SHMEM__G_AMO_EXTENDED, shmem_ctx_, _atomic_fetch, "shmem_atomic_fetch", source)       \
    (ctx, source, pe)

#define shmem_atomic_set(...) SHMEM__BY_NARGS(shmem__atomic_set_, __VA_ARGS__)
#define shmem__atomic_set_3_args(dest, value, pe)                                                  \
    SHMEM__G(SHMEM__G_AMO_EXTENDED, shmem_, _atomic_set, "shmem_atomic_set", dest)(dest, value, pe)
#define shmem__atomic_set_4_args(ctx, dest, value, pe)                                             \
    SHMEM__G(SHMEM__G_AMO_EXTENDED, shmem_ctx_, _atomic_set, "shmem_atomic_set", dest)             \
    (ctx, dest, value, pe)

#define shmem_atomic_swap(...) SHMEM__BY_NARGS(shmem__atomic_swap_, __VA_ARGS__)
#define shmem__atomic_swap_3_args(dest, value, pe)                                                 \
    SHMEM__G(SHMEM__G_AMO_EXTENDED, shmem_, _atomic_swap, "shmem_atomic_swap", dest)               \
    (dest, value, pe)
#define shmem__atomic_swap_4_args(ctx, dest, value, pe)                                            \
    SHMEM__G(SHMEM__G_AMO_EXTENDED, shmem_ctx_, _atomic_swap, "shmem_atomic_swap", dest)           \
    (ctx, dest, value, pe)

#define shmem_atomic_fetch_nbi(...) SHMEM__BY_NARGS(shmem__atomic_fetch_nbi_, __VA_ARGS__)
#define shmem__atomic_fetch_nbi_3_args(fetch, source, pe)                                          \
    SHMEM__G(SHMEM__G_AMO_EXTENDED, shmem_, _atomic_fetch_nbi, "shmem_atomic_fetch_nbi", source)   \
    (fetch, source, pe)
#define shmem__atomic_fetch_nbi_4_args(ctx, fetch, source, pe)                                     \
    SHMEM__G(SHMEM__G_AMO_EXTENDED, shmem_ctx_, _atomic_fetch_nbi, "shmem_atomic_fetch_nbi",       \
             source)                                                                               \
    (ctx, fetch, source, pe)

#define shmem_atomic_swap_nbi(...) SHMEM__BY_NARGS(shmem__atomic_swap_nbi_, __VA_ARGS__)
#define shmem__atomic_swap_nbi_4_args(fetch, dest, value, pe)                                      \
    SHMEM__G(SHMEM__G_AMO_EXTENDED, shmem_, _atomic_swap_nbi, "shmem_atomic_swap_nbi", dest)       \
    (fetch, dest, value, pe)
#define shmem__atomic_swap_nbi_5_args(ctx, fetch, dest, value, pe)                                 \
    SHMEM__G(SHMEM__G_AMO_EXTENDED, shmem_ctx_, _atomic_swap_nbi, "shmem_atomic_swap_nbi", dest)   \
    (ctx, fetch, dest, value, pe)

/* Standard types: compare_swap, fetch_inc, inc, fetch_add, add (and their fetching _nbi forms). */
#define shmem_atomic_compare_swap(...) SHMEM__BY_NARGS(shmem__atomic_compare_swap_, __VA_ARGS__)
#define shmem__atomic_compare_swap_4_args(dest, cond, value, pe)                                   \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_, _atomic_compare_swap, "shmem_atomic_compare_swap",     \
             dest)                                                                                 \
    (dest, cond, value, pe)
#define shmem__atomic_compare_swap_5_args(ctx, dest, cond, value, pe)                              \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_ctx_, _atomic_compare_swap, "shmem_atomic_compare_swap", \
             dest)                                                                                 \
    (ctx, dest, cond, value, pe)

#define shmem_atomic_fetch_inc(...) SHMEM__BY_NARGS(shmem__atomic_fetch_inc_, __VA_ARGS__)
#define shmem__atomic_fetch_inc_2_args(dest, pe)                                                   \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_, _atomic_fetch_inc, "shmem_atomic_fetch_inc", dest)     \
    (dest, pe)
#define shmem__atomic_fetch_inc_3_args(ctx, dest, pe)                                              \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_ctx_, _atomic_fetch_inc, "shmem_atomic_fetch_inc", dest) \
    (ctx, dest, pe)

#define shmem_atomic_inc(...) SHMEM__BY_NARGS(shmem__atomic_inc_, __VA_ARGS__)
#define shmem__atomic_inc_2_args(dest, pe)                                                         \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_, _atomic_inc, "shmem_atomic_inc", dest)(dest, pe)
#define shmem__atomic_inc_3_args(ctx, dest, pe)                                                    \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_ctx_, _atomic_inc, "shmem_atomic_inc", dest)             \
    (ctx, dest, pe)

#define shmem_atomic_fetch_add(...) SHMEM__BY_NARGS(shmem__atomic_fetch_add_, __VA_ARGS__)
#define shmem__atomic_fetch_add_3_args(dest, value, pe)                                            \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_, _atomic_fetch_add, "shmem_atomic_fetch_add", dest)     \
    (dest, value, pe)
#define shmem__atomic_fetch_add_4_args(ctx, dest, value, pe)                                       \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_ctx_, _atomic_fetch_add, "shmem_atomic_fetch_add", dest) \
    (ctx, dest, value, pe)

#define shmem_atomic_add(...) SHMEM__BY_NARGS(shmem__atomic_add_, __VA_ARGS__)
#define shmem__atomic_add_3_args(dest, value, pe)                                                  \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_, _atomic_add, "shmem_atomic_add", dest)(dest, value, pe)
#define shmem__atomic_add_4_args(ctx, dest, value, pe)                                             \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_ctx_, _atomic_add, "shmem_atomic_add", dest)             \
    (ctx, dest, value, pe)

#define shmem_atomic_compare_swap_nbi(...)                                                         \
    SHMEM__BY_NARGS(shmem__atomic_compare_swap_nbi_, __VA_ARGS__)
#define shmem__atomic_compare_swap_nbi_5_args(fetch, dest, cond, value, pe)                        \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_, _atomic_compare_swap_nbi,                              \
             "shmem_atomic_compare_swap_nbi", dest)                                                \
    (fetch, dest, cond, value, pe)
#define shmem__atomic_compare_swap_nbi_6_args(ctx, fetch, dest, cond, value, pe)                   \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_ctx_, _atomic_compare_swap_nbi,                          \
             "shmem_atomic_compare_swap_nbi", dest)                                                \
    (ctx, fetch, dest, cond, value, pe)

#define shmem_atomic_fetch_inc_nbi(...) SHMEM__BY_NARGS(shmem__atomic_fetch_inc_nbi_, __VA_ARGS__)
#define shmem__atomic_fetch_inc_nbi_3_args(fetch, dest, pe)                                        \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_, _atomic_fetch_inc_nbi, "shmem_atomic_fetch_inc_nbi",   \
             dest)                                                                                 \
    (fetch, dest, pe)
#define shmem__atomic_fetch_inc_nbi_4_args(ctx, fetch, dest, pe)                                   \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_ctx_, _atomic_fetch_inc_nbi,                             \
             "shmem_atomic_fetch_inc_nbi", dest)                                                   \
    (ctx, fetch, dest, pe)

#define shmem_atomic_fetch_add_nbi(...) SHMEM__BY_NARGS(shmem__atomic_fetch_add_nbi_, __VA_ARGS__)
#define shmem__atomic_fetch_add_nbi_4_args(fetch, dest, value, pe)                                 \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_, _atomic_fetch_add_nbi, "shmem_atomic_fetch_add_nbi",   \
             dest)                                                                                 \
    (fetch, dest, value, pe)
#define shmem__atomic_fetch_add_nbi_5_args(ctx, fetch, dest, value, pe)                            \
    SHMEM__G(SHMEM__G_AMO_STANDARD, shmem_ctx_, _atomic_fetch_add_nbi,                             \
             "shmem_atomic_fetch_add_nbi", dest)                                                   \
    (ctx, fetch, dest, value, pe)

/* Bitwise types: fetch_and, and, fetch_or, or, fetch_xor, xor (and their fetching _nbi forms). */
#define shmem_atomic_fetch_and(...) SHMEM__BY_NARGS(shmem__atomic_fetch_and_, __VA_ARGS__)
#define shmem__atomic_fetch_and_3_args(dest, value, pe)                                            \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_, _atomic_fetch_and, "shmem_atomic_fetch_and", dest)      \
    (dest, value, pe)
#define shmem__atomic_fetch_and_4_args(ctx, dest, value, pe)                                       \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_ctx_, _atomic_fetch_and, "shmem_atomic_fetch_and", dest)  \
    (ctx, dest, value, pe)
#define shmem_atomic_and(...) SHMEM__BY_NARGS(shmem__atomic_and_, __VA_ARGS__)
#define shmem__atomic_and_3_args(dest, value, pe)                                                  \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_, _atomic_and, "shmem_atomic_and", dest)(dest, value, pe)
#define shmem__atomic_and_4_args(ctx, dest, value, pe)                                             \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_ctx_, _atomic_and, "shmem_atomic_and", dest)              \
    (ctx, dest, value, pe)
#define shmem_atomic_fetch_and_nbi(...) SHMEM__BY_NARGS(shmem__atomic_fetch_and_nbi_, __VA_ARGS__)
#define shmem__atomic_fetch_and_nbi_4_args(fetch, dest, value, pe)                                 \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_, _atomic_fetch_and_nbi, "shmem_atomic_fetch_and_nbi",    \
             dest)                                                                                 \
    (fetch, dest, value, pe)
#define shmem__atomic_fetch_and_nbi_5_args(ctx, fetch, dest, value, pe)                            \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_ctx_, _atomic_fetch_and_nbi,                              \
             "shmem_atomic_fetch_and_nbi", dest)                                                   \
    (ctx, fetch, dest, value, pe)

#define shmem_atomic_fetch_or(...) SHMEM__BY_NARGS(shmem__atomic_fetch_or_, __VA_ARGS__)
#define shmem__atomic_fetch_or_3_args(dest, value, pe)                                             \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_, _atomic_fetch_or, "shmem_atomic_fetch_or", dest)        \
    (dest, value, pe)
#define shmem__atomic_fetch_or_4_args(ctx, dest, value, pe)                                        \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_ctx_, _atomic_fetch_or, "shmem_atomic_fetch_or", dest)    \
    (ctx, dest, value, pe)
#define shmem_atomic_or(...) SHMEM__BY_NARGS(shmem__atomic_or_, __VA_ARGS__)
#define shmem__atomic_or_3_args(dest, value, pe)                                                   \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_, _atomic_or, "shmem_atomic_or", dest)(dest, value, pe)
#define shmem__atomic_or_4_args(ctx, dest, value, pe)                                              \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_ctx_, _atomic_or, "shmem_atomic_or", dest)                \
    (ctx, dest, value, pe)
#define shmem_atomic_fetch_or_nbi(...) SHMEM__BY_NARGS(shmem__atomic_fetch_or_nbi_, __VA_ARGS__)
#define shmem__atomic_fetch_or_nbi_4_args(fetch, dest, value, pe)                                  \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_, _atomic_fetch_or_nbi, "shmem_atomic_fetch_or_nbi",      \
             dest)                                                                                 \
    (fetch, dest, value, pe)
#define shmem__atomic_fetch_or_nbi_5_args(ctx, fetch, dest, value, pe)                             \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_ctx_, _atomic_fetch_or_nbi, "shmem_atomic_fetch_or_nbi",  \
             dest)                                                                                 \
    (ctx, fetch, dest, value, pe)

#define shmem_atomic_fetch_xor(...) SHMEM__BY_NARGS(shmem__atomic_fetch_xor_, __VA_ARGS__)
#define shmem__atomic_fetch_xor_3_args(dest, value, pe)                                            \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_, _atomic_fetch_xor, "shmem_atomic_fetch_xor", dest)      \
    (dest, value, pe)
#define shmem__atomic_fetch_xor_4_args(ctx, dest, value, pe)                                       \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_ctx_, _atomic_fetch_xor, "shmem_atomic_fetch_xor", dest)  \
    (ctx, dest, value, pe)
#define shmem_atomic_xor(...) SHMEM__BY_NARGS(shmem__atomic_xor_, __VA_ARGS__)
#define shmem__atomic_xor_3_args(dest, value, pe)                                                  \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_, _atomic_xor, "shmem_atomic_xor", dest)(dest, value, pe)
#define shmem__atomic_xor_4_args(ctx, dest, value, pe)                                             \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_ctx_, _atomic_xor, "shmem_atomic_xor", dest)              \
    (ctx, dest, value, pe)
#define shmem_atomic_fetch_xor_nbi(...) SHMEM__BY_NARGS(shmem__atomic_fetch_xor_nbi_, __VA_ARGS__)
#define shmem__atomic_fetch_xor_nbi_4_args(fetch, dest, value, pe)                                 \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_, _atomic_fetch_xor_nbi, "shmem_atomic_fetch_xor_nbi",    \
             dest)                                                                                 \
    (fetch, dest, value, pe)
#define shmem__atomic_fetch_xor_nbi_5_args(ctx, fetch, dest, value, pe)                            \
    SHMEM__G(SHMEM__G_AMO_BITWISE, shmem_ctx_, _atomic_fetch_xor_nbi,                              \
             "shmem_atomic_fetch_xor_nbi", dest)                                                   \
    (ctx, fetch, dest, value, pe)

/* ---- Point-to-point synchronisation (no context forms) --------------------------------------- */
#define shmem_wait_until(ivar, cmp, cmp_value)                                                     \
    SHMEM__G(SHMEM__G_P2P, shmem_, _wait_until, "shmem_wait_until", ivar)(ivar, cmp, cmp_value)
#define shmem_wait_until_all(ivars, nelems, status, cmp, cmp_value)                                \
    SHMEM__G(SHMEM__G_P2P, shmem_, _wait_until_all, "shmem_wait_until_all", ivars)                 \
    (ivars, nelems, status, cmp, cmp_value)
#define shmem_wait_until_any(ivars, nelems, status, cmp, cmp_value)                                \
    SHMEM__G(SHMEM__G_P2P, shmem_, _wait_until_any, "shmem_wait_until_any", ivars)                 \
    (ivars, nelems, status, cmp, cmp_value)
#define shmem_wait_until_some(ivars, nelems, indices, status, cmp, cmp_value)                      \
    SHMEM__G(SHMEM__G_P2P, shmem_, _wait_until_some, "shmem_wait_until_some", ivars)               \
    (ivars, nelems, indices, status, cmp, cmp_value)
#define shmem_wait_until_all_vector(ivars, nelems, status, cmp, cmp_values)                        \
    SHMEM__G(SHMEM__G_P2P, shmem_, _wait_until_all_vector, "shmem_wait_until_all_vector", ivars)   \
    (ivars, nelems, status, cmp, cmp_values)
#define shmem_wait_until_any_vector(ivars, nelems, status, cmp, cmp_values)                        \
    SHMEM__G(SHMEM__G_P2P, shmem_, _wait_until_any_vector, "shmem_wait_until_any_vector", ivars)   \
    (ivars, nelems, status, cmp, cmp_values)
#define shmem_wait_until_some_vector(ivars, nelems, indices, status, cmp, cmp_values)              \
    SHMEM__G(SHMEM__G_P2P, shmem_, _wait_until_some_vector, "shmem_wait_until_some_vector", ivars) \
    (ivars, nelems, indices, status, cmp, cmp_values)

#define shmem_test(ivar, cmp, cmp_value)                                                           \
    SHMEM__G(SHMEM__G_P2P, shmem_, _test, "shmem_test", ivar)(ivar, cmp, cmp_value)
#define shmem_test_all(ivars, nelems, status, cmp, cmp_value)                                      \
    SHMEM__G(SHMEM__G_P2P, shmem_, _test_all, "shmem_test_all", ivars)                             \
    (ivars, nelems, status, cmp, cmp_value)
#define shmem_test_any(ivars, nelems, status, cmp, cmp_value)                                      \
    SHMEM__G(SHMEM__G_P2P, shmem_, _test_any, "shmem_test_any", ivars)                             \
    (ivars, nelems, status, cmp, cmp_value)
#define shmem_test_some(ivars, nelems, indices, status, cmp, cmp_value)                            \
    SHMEM__G(SHMEM__G_P2P, shmem_, _test_some, "shmem_test_some", ivars)                           \
    (ivars, nelems, indices, status, cmp, cmp_value)
#define shmem_test_all_vector(ivars, nelems, status, cmp, cmp_values)                              \
    SHMEM__G(SHMEM__G_P2P, shmem_, _test_all_vector, "shmem_test_all_vector", ivars)               \
    (ivars, nelems, status, cmp, cmp_values)
#define shmem_test_any_vector(ivars, nelems, status, cmp, cmp_values)                              \
    SHMEM__G(SHMEM__G_P2P, shmem_, _test_any_vector, "shmem_test_any_vector", ivars)               \
    (ivars, nelems, status, cmp, cmp_values)
#define shmem_test_some_vector(ivars, nelems, indices, status, cmp, cmp_values)                    \
    SHMEM__G(SHMEM__G_P2P, shmem_, _test_some_vector, "shmem_test_some_vector", ivars)             \
    (ivars, nelems, indices, status, cmp, cmp_values)

/* ---- Collectives on teams -------------------------------------------------------------------- */
#define shmem_broadcast(team, dest, source, nelems, PE_root)                                       \
    SHMEM__G(SHMEM__G_RMA, shmem_, _broadcast, "shmem_broadcast", dest)                            \
    (team, dest, source, nelems, PE_root)
#define shmem_collect(team, dest, source, nelems)                                                  \
    SHMEM__G(SHMEM__G_RMA, shmem_, _collect, "shmem_collect", dest)(team, dest, source, nelems)
#define shmem_fcollect(team, dest, source, nelems)                                                 \
    SHMEM__G(SHMEM__G_RMA, shmem_, _fcollect, "shmem_fcollect", dest)(team, dest, source, nelems)
#define shmem_alltoall(team, dest, source, nelems)                                                 \
    SHMEM__G(SHMEM__G_RMA, shmem_, _alltoall, "shmem_alltoall", dest)(team, dest, source, nelems)
#define shmem_alltoalls(team, dest, source, dst, sst, nelems)                                      \
    SHMEM__G(SHMEM__G_RMA, shmem_, _alltoalls, "shmem_alltoalls", dest)                            \
    (team, dest, source, dst, sst, nelems)

#define shmem_and_reduce(team, dest, source, nreduce)                                              \
    SHMEM__G(SHMEM__G_REDUCE_BITWISE, shmem_, _and_reduce, "shmem_and_reduce", dest)               \
    (team, dest, source, nreduce)
#define shmem_or_reduce(team, dest, source, nreduce)                                               \
    SHMEM__G(SHMEM__G_REDUCE_BITWISE, shmem_, _or_reduce, "shmem_or_reduce", dest)                 \
    (team, dest, source, nreduce)
#define shmem_xor_reduce(team, dest, source, nreduce)                                              \
    SHMEM__G(SHMEM__G_REDUCE_BITWISE, shmem_, _xor_reduce, "shmem_xor_reduce", dest)               \
    (team, dest, source, nreduce)
#define shmem_max_reduce(team, dest, source, nreduce)                                              \
    SHMEM__G(SHMEM__G_REDUCE_MINMAX, shmem_, _max_reduce, "shmem_max_reduce", dest)                \
    (team, dest, source, nreduce)
#define shmem_min_reduce(team, dest, source, nreduce)                                              \
    SHMEM__G(SHMEM__G_REDUCE_MINMAX, shmem_, _min_reduce, "shmem_min_reduce", dest)                \
    (team, dest, source, nreduce)
#define shmem_sum_reduce(team, dest, source, nreduce)                                              \
    SHMEM__G(SHMEM__G_REDUCE_ARITH, shmem_, _sum_reduce, "shmem_sum_reduce", dest)                 \
    (team, dest, source, nreduce)
#define shmem_prod_reduce(team, dest, source, nreduce)                                             \
    SHMEM__G(SHMEM__G_REDUCE_ARITH, shmem_, _prod_reduce, "shmem_prod_reduce", dest)               \
    (team, dest, source, nreduce)

/* ---- shmem_sync
 * ---------------------------------------------------------------------------------- 1.5's C11 team
 * form, int shmem_sync(shmem_team_t team) (shmem_team_sync), beside the deprecated active-set
 * function shmem_sync(PE_start, logPE_stride, PE_size, pSync): told apart by their number of
 * arguments. */
#define shmem_sync(...)          SHMEM__BY_NARGS(shmem__sync_, __VA_ARGS__)
#define shmem__sync_1_args(team) shmem_team_sync(team)
#define shmem__sync_4_args(PE_start, logPE_stride, PE_size, pSync)                                 \
    (shmem_sync)(PE_start, logPE_stride, PE_size, pSync)

/* ---- Deprecated generic atomics ----------------------------------------------------------------
 * OpenSHMEM 1.3's type-generic names, deprecated since 1.4 (shmem_atomic_* replace them) and still
 * part of 1.5 (its annex of deprecated interfaces): no context forms, 1.3's type tables. The old
 * C function shmem_swap(long *, long, int) stays reachable as (shmem_swap)(dest, value, pe); the
 * macro gives the same result for long. */
#define shmem_cswap(dest, cond, value, pe)                                                         \
    SHMEM__G(SHMEM__G_OLD_AMO_STANDARD, shmem_, _cswap, "shmem_cswap", dest)(dest, cond, value, pe)
#define shmem_finc(dest, pe)                                                                       \
    SHMEM__G(SHMEM__G_OLD_AMO_STANDARD, shmem_, _finc, "shmem_finc", dest)(dest, pe)
#define shmem_inc(dest, pe)                                                                        \
    SHMEM__G(SHMEM__G_OLD_AMO_STANDARD, shmem_, _inc, "shmem_inc", dest)(dest, pe)
#define shmem_fadd(dest, value, pe)                                                                \
    SHMEM__G(SHMEM__G_OLD_AMO_STANDARD, shmem_, _fadd, "shmem_fadd", dest)(dest, value, pe)
#define shmem_add(dest, value, pe)                                                                 \
    SHMEM__G(SHMEM__G_OLD_AMO_STANDARD, shmem_, _add, "shmem_add", dest)(dest, value, pe)
#define shmem_swap(dest, value, pe)                                                                \
    SHMEM__G(SHMEM__G_OLD_AMO_EXTENDED, shmem_, _swap, "shmem_swap", dest)(dest, value, pe)
#define shmem_fetch(source, pe)                                                                    \
    SHMEM__G(SHMEM__G_OLD_AMO_EXTENDED, shmem_, _fetch, "shmem_fetch", source)(source, pe)
#define shmem_set(dest, value, pe)                                                                 \
    SHMEM__G(SHMEM__G_OLD_AMO_EXTENDED, shmem_, _set, "shmem_set", dest)(dest, value, pe)

#endif /* SHMEM_GENERIC_H */
