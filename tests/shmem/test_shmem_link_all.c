// np: 1
/* Links against every routine shmem.h declares: the address of each goes into one table (typed
 * families generated from the header's type tables, the rest listed), so a routine declared but
 * not defined in libshoal fails this program's link. It prints how many it holds.
 * check_link_all.sh (CTest shmem.link_all_covers_header) checks that the table names every
 * routine the header declares, so a routine added to the header later is covered too. */
#include <stdio.h>

#include <shmem.h>

typedef void (*fn_t)(void);
/* (The lists are laid out by hand: clang-format does not settle on a layout for them.) */
// clang-format off
#define F(name) (fn_t) name,

/* RMA, per type */
#define L_RMA(T, N)                                                                                \
    F(shmem_##N##_put)                                                                             \
    F(shmem_ctx_##N##_put)                                                                         \
    F(shmem_##N##_get)                                                                             \
    F(shmem_ctx_##N##_get)                                                                         \
    F(shmem_##N##_p)                                                                               \
    F(shmem_ctx_##N##_p)                                                                           \
    F(shmem_##N##_g)                                                                               \
    F(shmem_ctx_##N##_g)                                                                           \
    F(shmem_##N##_iput)                                                                            \
    F(shmem_ctx_##N##_iput) F(shmem_##N##_iget) F(shmem_ctx_##N##_iget) F(shmem_##N##_put_nbi)     \
        F(shmem_ctx_##N##_put_nbi) F(shmem_##N##_get_nbi) F(shmem_ctx_##N##_get_nbi)               \
            F(shmem_##N##_put_signal) F(shmem_ctx_##N##_put_signal) F(shmem_##N##_put_signal_nbi)  \
                F(shmem_ctx_##N##_put_signal_nbi)
#define L_RMA_SIZED(S)                                                                             \
    F(shmem_put##S)                                                                                \
    F(shmem_ctx_put##S)                                                                            \
    F(shmem_get##S)                                                                                \
    F(shmem_ctx_get##S)                                                                            \
    F(shmem_iput##S)                                                                               \
    F(shmem_ctx_iput##S)                                                                           \
    F(shmem_iget##S)                                                                               \
    F(shmem_ctx_iget##S)                                                                           \
    F(shmem_put##S##_nbi)                                                                          \
    F(shmem_ctx_put##S##_nbi) F(shmem_get##S##_nbi) F(shmem_ctx_get##S##_nbi)                      \
        F(shmem_put##S##_signal) F(shmem_ctx_put##S##_signal) F(shmem_put##S##_signal_nbi)         \
            F(shmem_ctx_put##S##_signal_nbi)
/* AMOs */
#define L_AMO_EXT(T, N)                                                                            \
    F(shmem_##N##_atomic_fetch)                                                                    \
    F(shmem_ctx_##N##_atomic_fetch)                                                                \
    F(shmem_##N##_atomic_set)                                                                      \
    F(shmem_ctx_##N##_atomic_set)                                                                  \
    F(shmem_##N##_atomic_swap)                                                                     \
    F(shmem_ctx_##N##_atomic_swap)                                                                 \
    F(shmem_##N##_atomic_fetch_nbi)                                                                \
    F(shmem_ctx_##N##_atomic_fetch_nbi)                                                            \
    F(shmem_##N##_atomic_swap_nbi) F(shmem_ctx_##N##_atomic_swap_nbi)
#define L_AMO_STD(T, N)                                                                            \
    F(shmem_##N##_atomic_compare_swap)                                                             \
    F(shmem_ctx_##N##_atomic_compare_swap)                                                         \
    F(shmem_##N##_atomic_fetch_inc)                                                                \
    F(shmem_ctx_##N##_atomic_fetch_inc)                                                            \
    F(shmem_##N##_atomic_inc)                                                                      \
    F(shmem_ctx_##N##_atomic_inc)                                                                  \
    F(shmem_##N##_atomic_fetch_add)                                                                \
    F(shmem_ctx_##N##_atomic_fetch_add)                                                            \
    F(shmem_##N##_atomic_add)                                                                      \
    F(shmem_ctx_##N##_atomic_add) F(shmem_##N##_atomic_compare_swap_nbi)                           \
        F(shmem_ctx_##N##_atomic_compare_swap_nbi) F(shmem_##N##_atomic_fetch_inc_nbi)             \
            F(shmem_ctx_##N##_atomic_fetch_inc_nbi) F(shmem_##N##_atomic_fetch_add_nbi)            \
                F(shmem_ctx_##N##_atomic_fetch_add_nbi)
#define L_AMO_BIT_OP(N, OP)                                                                        \
    F(shmem_##N##_atomic_fetch_##OP)                                                               \
    F(shmem_ctx_##N##_atomic_fetch_##OP)                                                           \
    F(shmem_##N##_atomic_##OP)                                                                     \
    F(shmem_ctx_##N##_atomic_##OP)                                                                 \
    F(shmem_##N##_atomic_fetch_##OP##_nbi) F(shmem_ctx_##N##_atomic_fetch_##OP##_nbi)
#define L_AMO_BIT(T, N) L_AMO_BIT_OP(N, and) L_AMO_BIT_OP(N, or) L_AMO_BIT_OP(N, xor)
/* Point-to-point */
#define L_P2P(T, N)                                                                                \
    F(shmem_##N##_wait_until)                                                                      \
    F(shmem_##N##_wait_until_all)                                                                  \
    F(shmem_##N##_wait_until_any)                                                                  \
    F(shmem_##N##_wait_until_some)                                                                 \
    F(shmem_##N##_wait_until_all_vector)                                                           \
    F(shmem_##N##_wait_until_any_vector)                                                           \
    F(shmem_##N##_wait_until_some_vector)                                                          \
    F(shmem_##N##_test)                                                                            \
    F(shmem_##N##_test_all)                                                                        \
    F(shmem_##N##_test_any) F(shmem_##N##_test_some) F(shmem_##N##_test_all_vector)                \
        F(shmem_##N##_test_any_vector) F(shmem_##N##_test_some_vector)
/* Collectives */
#define L_COLL(T, N)                                                                               \
    F(shmem_##N##_broadcast)                                                                       \
    F(shmem_##N##_collect) F(shmem_##N##_fcollect) F(shmem_##N##_alltoall) F(shmem_##N##_alltoalls)
#define L_RED_BIT(T, N) F(shmem_##N##_and_reduce) F(shmem_##N##_or_reduce) F(shmem_##N##_xor_reduce)
#define L_RED_MM(T, N)  F(shmem_##N##_max_reduce) F(shmem_##N##_min_reduce)
#define L_RED_AR(T, N)  F(shmem_##N##_sum_reduce) F(shmem_##N##_prod_reduce)
#define L_AS_SIZED(S)                                                                              \
    F(shmem_broadcast##S)                                                                          \
    F(shmem_collect##S) F(shmem_fcollect##S) F(shmem_alltoall##S) F(shmem_alltoalls##S)
#define L_TO_ALL_BIT(T, N)                                                                         \
    F(shmem_##N##_and_to_all) F(shmem_##N##_or_to_all) F(shmem_##N##_xor_to_all)
#define L_TO_ALL_MM(T, N) F(shmem_##N##_max_to_all) F(shmem_##N##_min_to_all)
#define L_TO_ALL_AR(T, N) F(shmem_##N##_sum_to_all) F(shmem_##N##_prod_to_all)
/* Deprecated typed names */
#define L_OLD_WAIT(N) F(shmem_##N##_wait)
#define L_OLD_STD(N)                                                                               \
    F(shmem_##N##_cswap)                                                                           \
    F(shmem_##N##_finc) F(shmem_##N##_inc) F(shmem_##N##_fadd) F(shmem_##N##_add)
#define L_OLD_EXT(N) F(shmem_##N##_swap) F(shmem_##N##_fetch) F(shmem_##N##_set)

static const fn_t link_all_table_begin[] = {
    /* setup, query */
    F(shmem_init) F(shmem_init_thread) F(shmem_query_thread) F(shmem_finalize) F(shmem_global_exit)
        F(shmem_my_pe) F(shmem_n_pes) F(shmem_pe_accessible) F(shmem_addr_accessible) F(shmem_ptr)
            F(shmem_team_ptr) F(shmem_info_get_version) F(shmem_info_get_name) F(shmem_pcontrol)
    /* memory */
    F(shmem_malloc) F(shmem_malloc_with_hints) F(shmem_calloc) F(shmem_align) F(shmem_realloc)
        F(shmem_free)
    /* teams, contexts */
    F(shmem_team_my_pe) F(shmem_team_n_pes) F(shmem_team_get_config) F(shmem_team_translate_pe)
        F(shmem_team_split_strided) F(shmem_team_split_2d) F(shmem_team_destroy) F(shmem_ctx_create)
            F(shmem_team_create_ctx) F(shmem_ctx_destroy) F(shmem_ctx_get_team)
    /* RMA */
    SHMEM_RMA_TYPES(L_RMA) SHMEM_RMA_SIZES(L_RMA_SIZED) F(shmem_putmem) F(shmem_ctx_putmem)
        F(shmem_getmem) F(shmem_ctx_getmem) F(shmem_putmem_nbi) F(shmem_ctx_putmem_nbi)
            F(shmem_getmem_nbi) F(shmem_ctx_getmem_nbi) F(shmem_putmem_signal)
                F(shmem_ctx_putmem_signal) F(shmem_putmem_signal_nbi) F(shmem_ctx_putmem_signal_nbi)
                    F(shmem_signal_fetch)
    /* AMOs */
    SHMEM_AMO_EXTENDED_TYPES(L_AMO_EXT) SHMEM_AMO_STANDARD_TYPES(L_AMO_STD)
        SHMEM_AMO_BITWISE_TYPES(L_AMO_BIT)
    /* point-to-point, ordering, locks */
    SHMEM_P2P_TYPES(L_P2P) F(shmem_signal_wait_until) F(shmem_fence) F(shmem_ctx_fence)
        F(shmem_quiet) F(shmem_ctx_quiet) F(shmem_set_lock) F(shmem_clear_lock) F(shmem_test_lock)
    /* collectives */
    F(shmem_barrier_all) F(shmem_sync_all) F(shmem_team_sync) F(shmem_broadcastmem)
        F(shmem_collectmem) F(shmem_fcollectmem) F(shmem_alltoallmem) F(shmem_alltoallsmem)
            SHMEM_RMA_TYPES(L_COLL) SHMEM_REDUCE_BITWISE_TYPES(L_RED_BIT)
                SHMEM_REDUCE_MINMAX_TYPES(L_RED_MM) SHMEM_REDUCE_ARITH_TYPES(L_RED_AR)
    /* deprecated: active sets */
    F(shmem_barrier) F(shmem_sync) L_AS_SIZED(32) L_AS_SIZED(64)
        SHMEM_TO_ALL_BITWISE_TYPES(L_TO_ALL_BIT) SHMEM_TO_ALL_MINMAX_TYPES(L_TO_ALL_MM)
            SHMEM_TO_ALL_ARITH_TYPES(L_TO_ALL_AR)
    /* deprecated names */
    F(start_pes) F(_my_pe) F(_num_pes) F(shmalloc) F(shfree) F(shrealloc) F(shmemalign)
        F(shmem_clear_cache_inv) F(shmem_set_cache_inv) F(shmem_clear_cache_line_inv)
            F(shmem_set_cache_line_inv) F(shmem_udcflush) F(shmem_udcflush_line) F(shmem_wait)
                F(shmem_wait_until) F(shmem_swap) L_OLD_WAIT(short) L_OLD_WAIT(int) L_OLD_WAIT(long)
                    L_OLD_WAIT(longlong) L_OLD_STD(int) L_OLD_STD(long) L_OLD_STD(longlong)
                        L_OLD_EXT(int) L_OLD_EXT(long) L_OLD_EXT(longlong) L_OLD_EXT(float)
                            L_OLD_EXT(double)};

// clang-format on

int main(void) {
    const size_t n = sizeof link_all_table_begin / sizeof link_all_table_begin[0];
    size_t null = 0;
    for (size_t i = 0; i < n; i++) null += link_all_table_begin[i] == NULL;
    printf("test_shmem_link_all: %zu routines linked%s\n", n, null ? " (some NULL!)" : "");
    return null != 0;
}
