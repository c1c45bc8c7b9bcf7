/* SHCOLL's names (include/shcoll.h): each routine names itself, asks for its algorithm on this
 * thread's next collective (coll_prefer: taken where it applies, Shoal's rules otherwise), and
 * runs the active-set collective of its kind (coll.c, shmem__shcoll_*).
 *
 * The map from SHCOLL's algorithms to Shoal's (src/coll/algo_*.c) is one macro per name,
 * SHCOLL__<collective>_<algorithm>, expanding to Shoal's algorithm and its radix (0: the
 * algorithm's own default), so a name without a map does not compile. Where SHCOLL has variants
 * that differ only in how a round is signalled (counter, signal, put-with-signal, nbi), Shoal's one
 * algorithm of that shape serves them all. */
#include <shcoll.h>

#include "coll/coll.h"
#include "shmem_internal.h"

/* ---- Tree shapes ----------------------------------------------------------------------------- */
static int barrier_tree_degree = 2, barrier_knomial_radix = 2;
static int bcast_tree_degree = 2, bcast_knomial_radix = 2;
static int alltoall_rounds_sync = 1, alltoalls_rounds_sync = 1;

static void set_shape(int *slot, int value, int least, const char *what) {
    if (value < least) {
        shoal__fail(SHOAL_ERR_INVAL, "%s %d: must be at least %d", what, value, least);
        return;
    }
    __atomic_store_n(slot, value, __ATOMIC_RELAXED);
}
static int shape(const int *slot) {
    return __atomic_load_n(slot, __ATOMIC_RELAXED);
}

void shcoll_set_tree_degree(int tree_degree) {
    SHMEM_ENTER("shcoll_set_tree_degree");
    set_shape(&barrier_tree_degree, tree_degree, 2, "tree degree");
}
void shcoll_set_knomial_tree_radix_barrier(int tree_radix) {
    SHMEM_ENTER("shcoll_set_knomial_tree_radix_barrier");
    set_shape(&barrier_knomial_radix, tree_radix, 2, "k-nomial tree radix");
}
void shcoll_set_broadcast_tree_degree(int tree_degree) {
    SHMEM_ENTER("shcoll_set_broadcast_tree_degree");
    set_shape(&bcast_tree_degree, tree_degree, 2, "tree degree");
}
void shcoll_set_broadcast_knomial_tree_radix_barrier(int tree_radix) {
    SHMEM_ENTER("shcoll_set_broadcast_knomial_tree_radix_barrier");
    set_shape(&bcast_knomial_radix, tree_radix, 2, "k-nomial tree radix");
}
void shcoll_set_alltoall_rounds_sync(int rounds_sync) {
    SHMEM_ENTER("shcoll_set_alltoall_rounds_sync");
    set_shape(&alltoall_rounds_sync, rounds_sync, 1, "rounds between barriers");
}
void shcoll_set_alltoalls_rounds_sync(int rounds_sync) {
    SHMEM_ENTER("shcoll_set_alltoalls_rounds_sync");
    set_shape(&alltoalls_rounds_sync, rounds_sync, 1, "rounds between barriers");
}

/* ---- The map: SHCOLL__<collective>_<algorithm> -> Shoal's algorithm, radix ------------------- */
#define SHCOLL__barrier_linear        "linear", 0
#define SHCOLL__barrier_complete_tree "kary_tree", shape(&barrier_tree_degree)
#define SHCOLL__barrier_binomial_tree "knomial_tree", 2
#define SHCOLL__barrier_knomial_tree  "knomial_tree", shape(&barrier_knomial_radix)
#define SHCOLL__barrier_dissemination "dissemination", 0

#define SHCOLL__broadcast_linear              "linear", 0
#define SHCOLL__broadcast_complete_tree       "kary", shape(&bcast_tree_degree)
#define SHCOLL__broadcast_binomial_tree       "knomial", 2
#define SHCOLL__broadcast_knomial_tree        "knomial", shape(&bcast_knomial_radix)
#define SHCOLL__broadcast_knomial_tree_signal "knomial", shape(&bcast_knomial_radix)
#define SHCOLL__broadcast_scatter_collect     "vandegeijn", 0

/* collect and fcollect alike; all_linear(1): every PE puts to every other, which is linear */
#define SHCOLL__collect_linear              "linear", 0
#define SHCOLL__collect_all_linear          "linear", 0
#define SHCOLL__collect_all_linear1         "linear", 0
#define SHCOLL__collect_rec_dbl             "recursive_doubling", 0
#define SHCOLL__collect_rec_dbl_signal      "recursive_doubling", 0
#define SHCOLL__collect_ring                "ring", 0
#define SHCOLL__collect_bruck               "bruck", 0
#define SHCOLL__collect_bruck_no_rotate     "bruck_norotate", 0
#define SHCOLL__fcollect_linear             "linear", 0
#define SHCOLL__fcollect_all_linear         "linear", 0
#define SHCOLL__fcollect_all_linear1        "linear", 0
#define SHCOLL__fcollect_rec_dbl            "recursive_doubling", 0
#define SHCOLL__fcollect_ring               "ring", 0
#define SHCOLL__fcollect_bruck              "bruck", 0
#define SHCOLL__fcollect_bruck_no_rotate    "bruck_norotate", 0
#define SHCOLL__fcollect_bruck_signal       "bruck", 0
#define SHCOLL__fcollect_bruck_inplace      "bruck", 0
#define SHCOLL__fcollect_neighbour_exchange "neighbor_exchange", 0

/* alltoall(s): the _barrier variants are Shoal's; counter, signal and nbi ones its counters */
#define SHCOLL__alltoall_shift_exchange_barrier               "shift_barrier", 0
#define SHCOLL__alltoall_shift_exchange_counter               "shift", 0
#define SHCOLL__alltoall_shift_exchange_signal                "shift", 0
#define SHCOLL__alltoall_xor_pairwise_exchange_barrier        "xor_pairwise_barrier", 0
#define SHCOLL__alltoall_xor_pairwise_exchange_counter        "xor_pairwise", 0
#define SHCOLL__alltoall_xor_pairwise_exchange_signal         "xor_pairwise", 0
#define SHCOLL__alltoall_color_pairwise_exchange_barrier      "color_pairwise_barrier", 0
#define SHCOLL__alltoall_color_pairwise_exchange_counter      "color_pairwise", 0
#define SHCOLL__alltoall_color_pairwise_exchange_signal       "color_pairwise", 0
#define SHCOLL__alltoalls_shift_exchange_barrier              "shift_barrier", 0
#define SHCOLL__alltoalls_shift_exchange_counter              "shift", 0
#define SHCOLL__alltoalls_shift_exchange_barrier_nbi          "shift_barrier", 0
#define SHCOLL__alltoalls_shift_exchange_counter_nbi          "shift", 0
#define SHCOLL__alltoalls_xor_pairwise_exchange_barrier       "xor_pairwise_barrier", 0
#define SHCOLL__alltoalls_xor_pairwise_exchange_counter       "xor_pairwise", 0
#define SHCOLL__alltoalls_xor_pairwise_exchange_barrier_nbi   "xor_pairwise_barrier", 0
#define SHCOLL__alltoalls_xor_pairwise_exchange_counter_nbi   "xor_pairwise", 0
#define SHCOLL__alltoalls_color_pairwise_exchange_barrier     "color_pairwise_barrier", 0
#define SHCOLL__alltoalls_color_pairwise_exchange_counter     "color_pairwise", 0
#define SHCOLL__alltoalls_color_pairwise_exchange_barrier_nbi "color_pairwise_barrier", 0
#define SHCOLL__alltoalls_color_pairwise_exchange_counter_nbi "color_pairwise", 0

/* reduce: Shoal has no binomial reduce-to-all (its linear is the closest: a gather and a
 * broadcast of the result); rabenseifner2 is Rabenseifner's with another scatter, Shoal's one. */
#define SHCOLL__reduce_linear        "linear", 0
#define SHCOLL__reduce_binomial      "linear", 0
#define SHCOLL__reduce_rec_dbl       "recursive_doubling", 0
#define SHCOLL__reduce_rabenseifner  "rabenseifner", 0
#define SHCOLL__reduce_rabenseifner2 "rabenseifner", 0

/* Runs body with the algorithm of SHCOLL__<map> preferred for kind. */
#define SHCOLL__WITH(kind, map, body)                                                              \
    do {                                                                                           \
        if (coll_prefer((kind), map) == SHOAL_OK) {                                                \
            body;                                                                                  \
            coll_prefer((kind), NULL, 0);                                                          \
        }                                                                                          \
    } while (0)

/* ---- The routines ---------------------------------------------------------------------------- */
#define SHCOLL__DEF_BARRIER(A)                                                                     \
    void shcoll_barrier_##A(int PE_start, int logPE_stride, int PE_size, long *pSync) {            \
        SHMEM_ENTER("shcoll_barrier_" #A);                                                         \
        (void)pSync;                                                                               \
        SHCOLL__WITH(COLL_BARRIER, SHCOLL__barrier_##A,                                            \
                     shmem__shcoll_barrier(0, PE_start, logPE_stride, PE_size));                   \
    }                                                                                              \
    void shcoll_barrier_all_##A(void) {                                                            \
        SHMEM_ENTER("shcoll_barrier_all_" #A);                                                     \
        SHCOLL__WITH(COLL_BARRIER, SHCOLL__barrier_##A,                                            \
                     shmem__shcoll_barrier(0, 0, 0, (int)shoal__rt.nunits));                       \
    }                                                                                              \
    void shcoll_sync_##A(int PE_start, int logPE_stride, int PE_size, long *pSync) {               \
        SHMEM_ENTER("shcoll_sync_" #A);                                                            \
        (void)pSync;                                                                               \
        SHCOLL__WITH(COLL_BARRIER, SHCOLL__barrier_##A,                                            \
                     shmem__shcoll_barrier(1, PE_start, logPE_stride, PE_size));                   \
    }                                                                                              \
    void shcoll_sync_all_##A(void) {                                                               \
        SHMEM_ENTER("shcoll_sync_all_" #A);                                                        \
        SHCOLL__WITH(COLL_BARRIER, SHCOLL__barrier_##A,                                            \
                     shmem__shcoll_barrier(1, 0, 0, (int)shoal__rt.nunits));                       \
    }
SHCOLL_BARRIER_ALGOS(SHCOLL__DEF_BARRIER)

#define SHCOLL__DEF_BROADCAST(A, S)                                                                \
    void shcoll_broadcast##S##_##A(void *dest, const void *source, size_t nelems, int PE_root,     \
                                   int PE_start, int logPE_stride, int PE_size, long *pSync) {     \
        SHMEM_ENTER("shcoll_broadcast" #S "_" #A);                                                 \
        (void)pSync;                                                                               \
        SHCOLL__WITH(COLL_BROADCAST, SHCOLL__broadcast_##A,                                        \
                     shmem__shcoll_broadcast(dest, source, nelems, S / 8, PE_root, PE_start,       \
                                             logPE_stride, PE_size));                              \
    }
#define SHCOLL__DEF_BROADCAST_ALL(A) SHCOLL_BROADCAST_SIZES(SHCOLL__DEF_BROADCAST, A)
SHCOLL_BROADCAST_ALGOS(SHCOLL__DEF_BROADCAST_ALL)

#define SHCOLL__DEF_COLLECT(A, S)                                                                  \
    void shcoll_collect##S##_##A(void *dest, const void *source, size_t nelems, int PE_start,      \
                                 int logPE_stride, int PE_size, long *pSync) {                     \
        SHMEM_ENTER("shcoll_collect" #S "_" #A);                                                   \
        (void)pSync;                                                                               \
        SHCOLL__WITH(COLL_COLLECT, SHCOLL__collect_##A,                                            \
                     shmem__shcoll_collect(0, dest, source, nelems, S / 8, PE_start, logPE_stride, \
                                           PE_size));                                              \
    }
#define SHCOLL__DEF_COLLECT_ALL(A) SHCOLL_EXCHANGE_SIZES(SHCOLL__DEF_COLLECT, A)
SHCOLL_COLLECT_ALGOS(SHCOLL__DEF_COLLECT_ALL)

#define SHCOLL__DEF_FCOLLECT(A, S)                                                                 \
    void shcoll_fcollect##S##_##A(void *dest, const void *source, size_t nelems, int PE_start,     \
                                  int logPE_stride, int PE_size, long *pSync) {                    \
        SHMEM_ENTER("shcoll_fcollect" #S "_" #A);                                                  \
        (void)pSync;                                                                               \
        SHCOLL__WITH(COLL_FCOLLECT, SHCOLL__fcollect_##A,                                          \
                     shmem__shcoll_collect(1, dest, source, nelems, S / 8, PE_start, logPE_stride, \
                                           PE_size));                                              \
    }
#define SHCOLL__DEF_FCOLLECT_ALL(A) SHCOLL_EXCHANGE_SIZES(SHCOLL__DEF_FCOLLECT, A)
SHCOLL_FCOLLECT_ALGOS(SHCOLL__DEF_FCOLLECT_ALL)

#define SHCOLL__DEF_ALLTOALL(A, S)                                                                 \
    void shcoll_alltoall##S##_##A(void *dest, const void *source, size_t nelems, int PE_start,     \
                                  int logPE_stride, int PE_size, long *pSync) {                    \
        SHMEM_ENTER("shcoll_alltoall" #S "_" #A);                                                  \
        (void)pSync;                                                                               \
        SHCOLL__WITH(                                                                              \
            COLL_ALLTOALL, SHCOLL__alltoall_##A,                                                   \
            shmem__shcoll_alltoall(dest, source, nelems, S / 8, PE_start, logPE_stride, PE_size)); \
    }
#define SHCOLL__DEF_ALLTOALL_ALL(A) SHCOLL_EXCHANGE_SIZES(SHCOLL__DEF_ALLTOALL, A)
SHCOLL_ALLTOALL_ALGOS(SHCOLL__DEF_ALLTOALL_ALL)

#define SHCOLL__DEF_ALLTOALLS(A, S)                                                                \
    void shcoll_alltoalls##S##_##A(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,   \
                                   size_t nelems, int PE_start, int logPE_stride, int PE_size,     \
                                   long *pSync) {                                                  \
        SHMEM_ENTER("shcoll_alltoalls" #S "_" #A);                                                 \
        (void)pSync;                                                                               \
        SHCOLL__WITH(COLL_ALLTOALLS, SHCOLL__alltoalls_##A,                                        \
                     shmem__shcoll_alltoalls(dest, source, dst, sst, nelems, S / 8, PE_start,      \
                                             logPE_stride, PE_size));                              \
    }
#define SHCOLL__DEF_ALLTOALLS_ALL(A) SHCOLL_EXCHANGE_SIZES(SHCOLL__DEF_ALLTOALLS, A)
SHCOLL_ALLTOALLS_ALGOS(SHCOLL__DEF_ALLTOALLS_ALL)

/* The header's declaring SHCOLL__TO_ALL, made to define (its lists and adapters stay). */
#undef SHCOLL__TO_ALL
#define SHCOLL__TO_ALL(T, N, OP, A)                                                                \
    void shcoll_##N##_##OP##_to_all_##A(T *dest, const T *source, int nreduce, int PE_start,       \
                                        int logPE_stride, int PE_size, T *pWrk, long *pSync) {     \
        SHMEM_ENTER("shcoll_" #N "_" #OP "_to_all_" #A);                                           \
        (void)pWrk;                                                                                \
        (void)pSync;                                                                               \
        SHCOLL__WITH(COLL_REDUCE, SHCOLL__reduce_##A,                                              \
                     shmem__shcoll_reduce(dest, source, nreduce, sizeof(T), (int)SHMEM__ST_##N,    \
                                          SHMEM__OP_##OP, PE_start, logPE_stride, PE_size));       \
    }
SHCOLL_REDUCE_ALGOS(SHCOLL__REDUCE_ALGO)
