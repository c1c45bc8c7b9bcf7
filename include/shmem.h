/* OpenSHMEM 1.5 on Shoal (C). Every routine of the 1.5 specification is declared here and defined
 * in libshoal (src/shmem/); programs built with `oshcc` and started with `oshrun` run unchanged.
 * Shoal's own extensions are in shmemx.h. docs/openshmem.md says how each part maps onto Shoal
 * and where Shoal goes beyond (or, where it must, falls short of) the specification.
 *
 * The typed families (one routine per type the specification lists) are declared from the type
 * tables below, so each table is written once: SHMEM_..._TYPES(X) calls X(TYPE, TYPENAME) for
 * every row. */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* ---- Constants ------------------------------------------------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN  256
#define SHMEM_VENDOR_STRING "Shoal"

#define SHMEM_THREAD_SINGLE     0
#define SHMEM_THREAD_FUNNELED   1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE   3

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_CTX_PRIVATE    (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE    (1L << 2)

#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE  (1L << 1)

#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* The active-set collectives' work arrays. Shoal needs none of them (each team keeps its own
 * scratch), but programs size and initialise them with these names, so they exist. */
#define SHMEM_SYNC_VALUE              (-1L)
#define SHMEM_SYNC_SIZE               16
#define SHMEM_BCAST_SYNC_SIZE         SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE       SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE        SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE       SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE      SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE     SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1

/* Deprecated spellings (OpenSHMEM 1.0-1.3). */
#define _SHMEM_MAJOR_VERSION           SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION           SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN            SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING           SHMEM_VENDOR_STRING
#define _SHMEM_CMP_EQ                  SHMEM_CMP_EQ
#define _SHMEM_CMP_NE                  SHMEM_CMP_NE
#define _SHMEM_CMP_GT                  SHMEM_CMP_GT
#define _SHMEM_CMP_GE                  SHMEM_CMP_GE
#define _SHMEM_CMP_LT                  SHMEM_CMP_LT
#define _SHMEM_CMP_LE                  SHMEM_CMP_LE
#define _SHMEM_SYNC_VALUE              SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE         SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE       SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE        SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE       SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- Type tables ----------------------------------------------------------------------------- */
/* Standard RMA types (put, get, p, g, iput, iget, nbi, put_signal, broadcast, collect, fcollect,
 * alltoall, alltoalls). */
#define SHMEM_RMA_TYPES(X)                                                                         \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    X(long double, longdouble)                                                                     \
    X(char, char)                                                                                  \
    X(signed char, schar)                                                                          \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int8_t, int8)                                                                                \
    X(int16_t, int16)                                                                              \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint8_t, uint8)                                                                              \
    X(uint16_t, uint16)                                                                            \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)

/* Standard AMO types (inc, add, compare_swap and their fetching forms). */
#define SHMEM_AMO_STANDARD_TYPES(X)                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)

/* Extended AMO types (fetch, set, swap): the standard ones plus float and double. */
#define SHMEM_AMO_EXTENDED_TYPES(X)                                                                \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    SHMEM_AMO_STANDARD_TYPES(X)

/* Bitwise AMO types (and, or, xor and their fetching forms). */
#define SHMEM_AMO_BITWISE_TYPES(X)                                                                 \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)

/* Point-to-point synchronisation types (wait_until, test and their variants). */
#define SHMEM_P2P_TYPES(X)                                                                         \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)

/* Team reductions: and, or, xor */
#define SHMEM_REDUCE_BITWISE_TYPES(X)                                                              \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int8_t, int8)                                                                                \
    X(int16_t, int16)                                                                              \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint8_t, uint8)                                                                              \
    X(uint16_t, uint16)                                                                            \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)

/* Team reductions: max, min (and, with the complex types below, sum and prod) */
#define SHMEM_REDUCE_MINMAX_TYPES(X)                                                               \
    X(char, char)                                                                                  \
    X(signed char, schar)                                                                          \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(ptrdiff_t, ptrdiff)                                                                          \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int8_t, int8)                                                                                \
    X(int16_t, int16)                                                                              \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint8_t, uint8)                                                                              \
    X(uint16_t, uint16)                                                                            \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    X(long double, longdouble)

/* Complex types of the sum and prod reductions (C99 _Complex; C++ sees the same layout). */
#ifdef __cplusplus
typedef struct {
    double re, im;
} shmem_complexd_t;
typedef struct {
    float re, im;
} shmem_complexf_t;
#else
typedef double _Complex shmem_complexd_t;
typedef float _Complex shmem_complexf_t;
#endif
#define SHMEM_REDUCE_ARITH_TYPES(X)                                                                \
    SHMEM_REDUCE_MINMAX_TYPES(X)                                                                   \
    X(shmem_complexd_t, complexd)                                                                  \
    X(shmem_complexf_t, complexf)

/* Sizes of the sized RMA routines (shmem_put8 ... shmem_put128: bits). */
#define SHMEM_RMA_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* ---- Opaque handles -------------------------------------------------------------------------- */
typedef struct shmem__team *shmem_team_t;
typedef struct shmem__ctx *shmem_ctx_t;
typedef struct {
    int num_contexts;
} shmem_team_config_t;

extern struct shmem__team shmem__team_world, shmem__team_shared;
extern struct shmem__ctx shmem__ctx_default;
#define SHMEM_TEAM_WORLD   (&shmem__team_world)
#define SHMEM_TEAM_SHARED  (&shmem__team_shared)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#define SHMEM_CTX_DEFAULT  (&shmem__ctx_default)
#define SHMEM_CTX_INVALID  ((shmem_ctx_t)0)

/* ---- Library setup, exit and query ----------------------------------------------------------- */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);
/* Profiling control (1.5 profiling interface): levels 0 (off), 1 (on), 2 (flush) and tool-defined
 * ones are accepted; Shoal itself profiles nothing, so this is a point for tools to intercept. */
void shmem_pcontrol(const int level, ...);

/* ---- Memory management ----------------------------------------------------------------------- */
void *shmem_malloc(size_t size);
void *shmem_malloc_with_hints(size_t size, long hints);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);

/* ---- Teams ----------------------------------------------------------------------------------- */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);

/* ---- Contexts -------------------------------------------------------------------------------- */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ---- RMA ------------------------------------------------------------------------------------- */
#define SHMEM__DECL_RMA(T, N)                                                                      \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                         \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);    \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                         \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);    \
    void shmem_##N##_p(T *dest, T value, int pe);                                                  \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                             \
    T shmem_##N##_g(const T *source, int pe);                                                      \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                                 \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                          int pe);                                                                 \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,            \
                              ptrdiff_t sst, size_t nelems, int pe);                               \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                          int pe);                                                                 \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,            \
                              ptrdiff_t sst, size_t nelems, int pe);                               \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);                     \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,         \
                                 int pe);                                                          \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);                     \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,         \
                                 int pe);                                                          \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,       \
                                uint64_t signal, int sig_op, int pe);                              \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,      \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);      \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,   \
                                    uint64_t signal, int sig_op, int pe);                          \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,  \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_RMA_TYPES(SHMEM__DECL_RMA)

#define SHMEM__DECL_RMA_SIZED(S)                                                                   \
    void shmem_put##S(void *dest, const void *source, size_t nelems, int pe);                      \
    void shmem_ctx_put##S(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    void shmem_get##S(void *dest, const void *source, size_t nelems, int pe);                      \
    void shmem_ctx_get##S(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe); \
    void shmem_iput##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,               \
                       size_t nelems, int pe);                                                     \
    void shmem_ctx_iput##S(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,         \
                           ptrdiff_t sst, size_t nelems, int pe);                                  \
    void shmem_iget##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,               \
                       size_t nelems, int pe);                                                     \
    void shmem_ctx_iget##S(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,         \
                           ptrdiff_t sst, size_t nelems, int pe);                                  \
    void shmem_put##S##_nbi(void *dest, const void *source, size_t nelems, int pe);                \
    void shmem_ctx_put##S##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,    \
                                int pe);                                                           \
    void shmem_get##S##_nbi(void *dest, const void *source, size_t nelems, int pe);                \
    void shmem_ctx_get##S##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,    \
                                int pe);                                                           \
    void shmem_put##S##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,  \
                               uint64_t signal, int sig_op, int pe);                               \
    void shmem_ctx_put##S##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);       \
    void shmem_put##S##_signal_nbi(void *dest, const void *source, size_t nelems,                  \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);       \
    void shmem_ctx_put##S##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,            \
                                       size_t nelems, uint64_t *sig_addr, uint64_t signal,         \
                                       int sig_op, int pe);
SHMEM_RMA_SIZES(SHMEM__DECL_RMA_SIZED)

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                         uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);

/* ---- Atomic memory operations ---------------------------------------------------------------- */
#define SHMEM__DECL_AMO_EXTENDED(T, N)                                                             \
    T shmem_##N##_atomic_fetch(const T *source, int pe);                                           \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);                      \
    void shmem_##N##_atomic_set(T *dest, T value, int pe);                                         \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);                    \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe);                                           \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);                      \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);                          \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe);     \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);                          \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
SHMEM_AMO_EXTENDED_TYPES(SHMEM__DECL_AMO_EXTENDED)

#define SHMEM__DECL_AMO_STANDARD(T, N)                                                             \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                           \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe);      \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                               \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);                          \
    void shmem_##N##_atomic_inc(T *dest, int pe);                                                  \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);                             \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                                      \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);                 \
    void shmem_##N##_atomic_add(T *dest, T value, int pe);                                         \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);                    \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe);          \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond,       \
                                                 T value, int pe);                                 \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                              \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe);         \
    void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);                     \
    void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
SHMEM_AMO_STANDARD_TYPES(SHMEM__DECL_AMO_STANDARD)

#define SHMEM__DECL_AMO_BITWISE_OP(T, N, OP)                                                       \
    T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);                                     \
    T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);                \
    void shmem_##N##_atomic_##OP(T *dest, T value, int pe);                                        \
    void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);                   \
    void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe);                  \
    void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,      \
                                                 int pe);
#define SHMEM__DECL_AMO_BITWISE(T, N)                                                              \
    SHMEM__DECL_AMO_BITWISE_OP(T, N, and)                                                          \
    SHMEM__DECL_AMO_BITWISE_OP(T, N, or)                                                           \
    SHMEM__DECL_AMO_BITWISE_OP(T, N, xor)
SHMEM_AMO_BITWISE_TYPES(SHMEM__DECL_AMO_BITWISE)

/* ---- Point-to-point synchronisation ---------------------------------------------------------- */
#define SHMEM__DECL_P2P(T, N)                                                                      \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                                    \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T cmp_value);                                                  \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,         \
                                      T cmp_value);                                                \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,                   \
                                       const int *status, int cmp, T cmp_value);                   \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,    \
                                           T *cmp_values);                                         \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,  \
                                             T *cmp_values);                                       \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,            \
                                              const int *status, int cmp, T *cmp_values);          \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                           \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);    \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,      \
                                 int cmp, T cmp_value);                                            \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T *cmp_values);                                                \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,        \
                                       T *cmp_values);                                             \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                  \
                                        const int *status, int cmp, T *cmp_values);
SHMEM_P2P_TYPES(SHMEM__DECL_P2P)
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- Memory ordering ------------------------------------------------------------------------- */
void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);

/* In line, not part of the interface: shmem_quiet and shmem_fence with nothing to complete. The
 * direct path's puts and atomics are complete and fenced when they return, so with no
 * non-blocking operation pending on the default context and no MPI operation outstanding, a quiet
 * or a fence is a release fence; in line, a put + quiet costs one library call, as Shoal's own
 * blocking put does. Anything else (and a call before shmem_init) goes to the library's routine.
 * Define SHMEM_NO_INLINE to always call the library. &shmem_quiet is the library's routine. */
extern int shmem__quiet_idle; /* 1: initialised, no handle pending on the default context */
extern size_t shoal__segments_ndirty_exported; /* segments with MPI operations outstanding */
void shmem__quiet_slow(void);                  /* the library's shmem_quiet */
void shmem__fence_slow(void);                  /* the library's shmem_fence */
#if defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(SHMEM_NO_INLINE) &&                     \
    !defined(SHOAL__BUILDING_LIBRARY)
#define SHMEM__NOTHING_OUTSTANDING()                                                               \
    (__atomic_load_n(&shmem__quiet_idle, __ATOMIC_RELAXED) &&                                      \
     !__atomic_load_n(&shoal__segments_ndirty_exported, __ATOMIC_RELAXED))
extern __inline__ __attribute__((__gnu_inline__, __always_inline__)) void shmem_quiet(void) {
    if (__builtin_expect(SHMEM__NOTHING_OUTSTANDING(), 1))
        __atomic_thread_fence(__ATOMIC_RELEASE);
    else
        shmem__quiet_slow();
}
extern __inline__ __attribute__((__gnu_inline__, __always_inline__)) void shmem_fence(void) {
    if (__builtin_expect(SHMEM__NOTHING_OUTSTANDING(), 1))
        __atomic_thread_fence(__ATOMIC_RELEASE);
    else
        shmem__fence_slow();
}
#endif

/* In line, not part of the interface: shmem_signal_fetch of a word of this PE's symmetric memory
 * while its words are CPU atomics (every PE on this node, the direct path): one load. Programs
 * poll it in loops of their own, and on an Intel Xeon a library call per poll cost the waiter
 * 30-50 ns of each hand-off (docs/openshmem.md, "Performance"). The library publishes the heap's
 * and the data's extents here at shmem_init (sizes 0 otherwise); any other address, a misaligned
 * one, or a call before shmem_init goes to the library's routine, which reports it. Define
 * SHMEM_NO_INLINE to always call the library. &shmem_signal_fetch is the library's routine. */
extern uintptr_t shmem__local_words_base[2]; /* heap, data: where my symmetric words start */
extern size_t shmem__local_words_size[2];    /* their bytes; 0 while not CPU-atomic here */
uint64_t shmem__signal_fetch_slow(const uint64_t *sig_addr); /* the library's routine */
#if defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(SHMEM_NO_INLINE) &&                     \
    !defined(SHOAL__BUILDING_LIBRARY)
/* Whether the n bytes at a (n a power of two, a multiple of n) are a word of the extents above
 * (a macro: an in-line function of the library's may not call a static one). */
#define SHMEM__IN_EXTENT(a, n, r)                                                                  \
    (__atomic_load_n(&shmem__local_words_size[r], __ATOMIC_RELAXED) >= (n) &&                      \
     (a)-shmem__local_words_base[r] <=                                                             \
         __atomic_load_n(&shmem__local_words_size[r], __ATOMIC_RELAXED) - (n))
#define SHMEM__LOCAL_WORD(a, n)                                                                    \
    (((a) & ((n)-1)) == 0 && (SHMEM__IN_EXTENT(a, n, 0) || SHMEM__IN_EXTENT(a, n, 1)))
extern __inline__ __attribute__((__gnu_inline__, __always_inline__)) uint64_t
shmem_signal_fetch(const uint64_t *sig_addr) {
    if (SHMEM__LOCAL_WORD((uintptr_t)sig_addr, sizeof *sig_addr))
        return __atomic_load_n(sig_addr, __ATOMIC_SEQ_CST);
    return shmem__signal_fetch_slow(sig_addr);
}
#endif

/* In line likewise: shmem_TYPENAME_test of a 4- or 8-byte word of the extents above with a valid
 * comparison, which programs poll as they poll shmem_signal_fetch; anything else (2-byte types
 * too), and every error, through the library's routine, shmem__TYPENAME_test_slow. */
#define SHMEM__DECL_TEST_SLOW(T, N) int shmem__##N##_test_slow(T *ivar, int cmp, T cmp_value);
SHMEM_P2P_TYPES(SHMEM__DECL_TEST_SLOW)
#if defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(SHMEM_NO_INLINE) &&                     \
    !defined(SHOAL__BUILDING_LIBRARY)
#define SHMEM__TEST_IN_LINE(T, N)                                                                  \
    extern __inline__ __attribute__((__gnu_inline__, __always_inline__)) int shmem_##N##_test(     \
        T *ivar, int cmp, T cmp_value) {                                                           \
        if (sizeof(T) >= 4 && SHMEM__LOCAL_WORD((uintptr_t)ivar, sizeof(T))) {                     \
            T v = __atomic_load_n(ivar, __ATOMIC_ACQUIRE);                                         \
            switch (cmp) {                                                                         \
            case SHMEM_CMP_EQ:                                                                     \
                return v == cmp_value;                                                             \
            case SHMEM_CMP_NE:                                                                     \
                return v != cmp_value;                                                             \
            case SHMEM_CMP_GT:                                                                     \
                return v > cmp_value;                                                              \
            case SHMEM_CMP_GE:                                                                     \
                return v >= cmp_value;                                                             \
            case SHMEM_CMP_LT:                                                                     \
                return v < cmp_value;                                                              \
            case SHMEM_CMP_LE:                                                                     \
                return v <= cmp_value;                                                             \
            }                                                                                      \
        }                                                                                          \
        return shmem__##N##_test_slow(ivar, cmp, cmp_value);                                       \
    }
SHMEM_P2P_TYPES(SHMEM__TEST_IN_LINE)
#endif

/* In line likewise: shmem_TYPENAME_atomic_fetch of a word of the extents above from this very PE
 * (the library publishes its number with them), which programs poll as they poll shmem_test: one
 * load. Any other PE or address, and every error, through the library's routine,
 * shmem__TYPENAME_atomic_fetch_slow. float and double are loaded as they are stored, whole. */
extern int shmem__local_words_pe; /* this PE while the extents are published, else -1 */
#define SHMEM__DECL_FETCH_SLOW(T, N) T shmem__##N##_atomic_fetch_slow(const T *source, int pe);
SHMEM_AMO_EXTENDED_TYPES(SHMEM__DECL_FETCH_SLOW)
#if defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(SHMEM_NO_INLINE) &&                     \
    !defined(SHOAL__BUILDING_LIBRARY)
#define SHMEM__FETCH_IN_LINE(T, N)                                                                 \
    extern __inline__ __attribute__((__gnu_inline__, __always_inline__))                           \
    T shmem_##N##_atomic_fetch(const T *source, int pe) {                                          \
        if (pe == __atomic_load_n(&shmem__local_words_pe, __ATOMIC_RELAXED) &&                     \
            SHMEM__LOCAL_WORD((uintptr_t)source, sizeof(T))) {                                     \
            T v;                                                                                   \
            __atomic_load(source, &v, __ATOMIC_SEQ_CST);                                           \
            return v;                                                                              \
        }                                                                                          \
        return shmem__##N##_atomic_fetch_slow(source, pe);                                         \
    }
SHMEM_AMO_EXTENDED_TYPES(SHMEM__FETCH_IN_LINE)
#endif

/* ---- Distributed locking --------------------------------------------------------------------- */
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* ---- Collectives on teams -------------------------------------------------------------------- */
void shmem_barrier_all(void);
void shmem_sync_all(void);
int shmem_team_sync(shmem_team_t team);
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);
#define SHMEM__DECL_COLL(T, N)                                                                     \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,          \
                              int PE_root);                                                        \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);           \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);          \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);          \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,          \
                              ptrdiff_t sst, size_t nelems);
SHMEM_RMA_TYPES(SHMEM__DECL_COLL)

#define SHMEM__DECL_REDUCE(T, N, OP)                                                               \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define SHMEM__DECL_REDUCE_BITWISE(T, N)                                                           \
    SHMEM__DECL_REDUCE(T, N, and) SHMEM__DECL_REDUCE(T, N, or) SHMEM__DECL_REDUCE(T, N, xor)
#define SHMEM__DECL_REDUCE_MINMAX(T, N) SHMEM__DECL_REDUCE(T, N, max) SHMEM__DECL_REDUCE(T, N, min)
#define SHMEM__DECL_REDUCE_ARITH(T, N)  SHMEM__DECL_REDUCE(T, N, sum) SHMEM__DECL_REDUCE(T, N, prod)
SHMEM_REDUCE_BITWISE_TYPES(SHMEM__DECL_REDUCE_BITWISE)
SHMEM_REDUCE_MINMAX_TYPES(SHMEM__DECL_REDUCE_MINMAX)
SHMEM_REDUCE_ARITH_TYPES(SHMEM__DECL_REDUCE_ARITH)

/* ---- Deprecated: active-set collectives (PE_start, logPE_stride, PE_size, pSync/pWrk) ---------
 * The active set is the PEs PE_start + k * 2^logPE_stride, k < PE_size; only they call. pSync and
 * pWrk are accepted and not used (each active set gets a Shoal team of its own, made on first use
 * and kept until shmem_finalize). */
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define SHMEM__DECL_ACTIVE_SET_SIZED(S)                                                            \
    void shmem_broadcast##S(void *dest, const void *source, size_t nelems, int PE_root,            \
                            int PE_start, int logPE_stride, int PE_size, long *pSync);             \
    void shmem_collect##S(void *dest, const void *source, size_t nelems, int PE_start,             \
                          int logPE_stride, int PE_size, long *pSync);                             \
    void shmem_fcollect##S(void *dest, const void *source, size_t nelems, int PE_start,            \
                           int logPE_stride, int PE_size, long *pSync);                            \
    void shmem_alltoall##S(void *dest, const void *source, size_t nelems, int PE_start,            \
                           int logPE_stride, int PE_size, long *pSync);                            \
    void shmem_alltoalls##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,          \
                            size_t nelems, int PE_start, int logPE_stride, int PE_size,            \
                            long *pSync);
SHMEM__DECL_ACTIVE_SET_SIZED(32)
SHMEM__DECL_ACTIVE_SET_SIZED(64)

#define SHMEM__DECL_TO_ALL(T, N, OP)                                                               \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,            \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define SHMEM_TO_ALL_BITWISE_TYPES(X)                                                              \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM_TO_ALL_MINMAX_TYPES(X)                                                               \
    SHMEM_TO_ALL_BITWISE_TYPES(X) X(float, float) X(double, double) X(long double, longdouble)
#define SHMEM_TO_ALL_ARITH_TYPES(X)                                                                \
    SHMEM_TO_ALL_MINMAX_TYPES(X) X(shmem_complexd_t, complexd) X(shmem_complexf_t, complexf)
#define SHMEM__DECL_TO_ALL_BITWISE(T, N)                                                           \
    SHMEM__DECL_TO_ALL(T, N, and) SHMEM__DECL_TO_ALL(T, N, or) SHMEM__DECL_TO_ALL(T, N, xor)
#define SHMEM__DECL_TO_ALL_MINMAX(T, N) SHMEM__DECL_TO_ALL(T, N, max) SHMEM__DECL_TO_ALL(T, N, min)
#define SHMEM__DECL_TO_ALL_ARITH(T, N)  SHMEM__DECL_TO_ALL(T, N, sum) SHMEM__DECL_TO_ALL(T, N, prod)
SHMEM_TO_ALL_BITWISE_TYPES(SHMEM__DECL_TO_ALL_BITWISE)
SHMEM_TO_ALL_MINMAX_TYPES(SHMEM__DECL_TO_ALL_MINMAX)
SHMEM_TO_ALL_ARITH_TYPES(SHMEM__DECL_TO_ALL_ARITH)

/* ---- Deprecated names (OpenSHMEM 1.0-1.4): still work -----------------------------------------
 */
void start_pes(int npes); /* shmem_init; finalized at exit */
int _my_pe(void);
int _num_pes(void);
void *shmalloc(size_t size);
void shfree(void *ptr);
void *shrealloc(void *ptr, size_t size);
void *shmemalign(size_t alignment, size_t size);
void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void *dest);
void shmem_set_cache_line_inv(void *dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void *dest);
void shmem_wait(long *ivar, long cmp_value);
void shmem_wait_until(long *ivar, int cmp, long cmp_value);
#define SHMEM__DECL_OLD_WAIT(T, N) void shmem_##N##_wait(T *ivar, T cmp_value);
SHMEM__DECL_OLD_WAIT(short, short)
SHMEM__DECL_OLD_WAIT(int, int)
SHMEM__DECL_OLD_WAIT(long, long)
SHMEM__DECL_OLD_WAIT(long long, longlong)
/* The 1.0-1.3 atomic names */
#define SHMEM__DECL_OLD_AMO_STANDARD(T, N)                                                         \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe);                                         \
    T shmem_##N##_finc(T *dest, int pe);                                                           \
    void shmem_##N##_inc(T *dest, int pe);                                                         \
    T shmem_##N##_fadd(T *dest, T value, int pe);                                                  \
    void shmem_##N##_add(T *dest, T value, int pe);
#define SHMEM__DECL_OLD_AMO_EXTENDED(T, N)                                                         \
    T shmem_##N##_swap(T *dest, T value, int pe);                                                  \
    T shmem_##N##_fetch(const T *source, int pe);                                                  \
    void shmem_##N##_set(T *dest, T value, int pe);
SHMEM__DECL_OLD_AMO_STANDARD(int, int)
SHMEM__DECL_OLD_AMO_STANDARD(long, long)
SHMEM__DECL_OLD_AMO_STANDARD(long long, longlong)
SHMEM__DECL_OLD_AMO_EXTENDED(int, int)
SHMEM__DECL_OLD_AMO_EXTENDED(long, long)
SHMEM__DECL_OLD_AMO_EXTENDED(long long, longlong)
SHMEM__DECL_OLD_AMO_EXTENDED(float, float)
SHMEM__DECL_OLD_AMO_EXTENDED(double, double)
long shmem_swap(long *dest, long value, int pe);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

/* ---- Type-generic interfaces: C11 _Generic selections, or C++ overloads ----------------------
 */
/* (Not inside libshoal itself, which defines functions whose names the generic macros take.) */
#if defined(__cplusplus) && __cplusplus >= 201103L
#include "shmem_generic_cxx.h"
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(SHOAL_BUILDING_SHMEM)
#include "shmem_generic.h"
#endif

#endif /* SHMEM_H */
