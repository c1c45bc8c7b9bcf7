/* The OpenSHMEM face (include/shmem.h) over Shoal: the top layer. Symmetric addresses become
 * Shoal targets here; every routine then runs on Shoal's own RMA, atomics, waits, teams and
 * collectives (docs/openshmem.md). */
#ifndef SHOAL_SHMEM_INTERNAL_H
#define SHOAL_SHMEM_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "mem/resolve.h"
#include "runtime/runtime.h"
#define SHOAL_BUILDING_SHMEM 1 /* shmem.h: no C11 generic macros over our own definitions */
#include "shmem.h"

/* ---- Symmetric regions ---------------------------------------------------------------------- */
/* The two kinds of symmetric memory: the heap (shmem_malloc: one segment of SHMEM_SYMMETRIC_SIZE
 * on every PE, handed out by a deterministic allocator, so every PE's n-th block has the same
 * offset) and the program's data and bss (global and static variables: the executable's pages
 * shared in place, xport/remap). Both are segments of SHOAL_TEAM_ALL, so a team-relative index
 * in them is the world PE. */
typedef struct {
    char *base;     /* my copy in this process */
    size_t size;    /* bytes (the same on every PE) */
    segment_t *seg; /* NULL while the region does not exist */
} shmem_region_t;

extern shmem_region_t shmem__heap, shmem__data;

/* Publishes (on) or withdraws (0) my symmetric words' extents for shmem.h's in-line
 * shmem_signal_fetch (rma.c). */
void shmem__local_words_publish(int on);

/* The region holding [addr, addr + nbytes), or NULL. */
static inline const shmem_region_t *shmem__region_of(const void *addr, size_t nbytes) {
    const char *p = (const char *)addr;
    if (shmem__heap.seg && p >= shmem__heap.base &&
        nbytes <= shmem__heap.size - (size_t)(p - shmem__heap.base) &&
        p < shmem__heap.base + shmem__heap.size)
        return &shmem__heap;
    if (shmem__data.seg && p >= shmem__data.base && p < shmem__data.base + shmem__data.size &&
        nbytes <= shmem__data.size - (size_t)(p - shmem__data.base))
        return &shmem__data;
    return NULL;
}

/* Slow path of shmem__target: reports exactly what is wrong (not initialised, PE out of range,
 * address not symmetric, range past the end of the region) and returns the error. */
shoal_err_t shmem__target_fail(const void *addr, size_t nbytes, int pe);

/* The Shoal target of the symmetric object at addr (nbytes of it) on world PE pe. nbytes == 0
 * accepts any address (zero-length transfers may pass NULL); the caller then moves nothing. */
/* Always in line: outlined, the target goes through memory and a get costs 40 % more. */
static inline __attribute__((always_inline)) shoal_err_t
shmem__target(const void *addr, size_t nbytes, int pe, shoal_target_t *t) {
    const shmem_region_t *r = shmem__region_of(addr, nbytes);
    if (__builtin_expect(!r || (unsigned)pe >= (unsigned)shoal__rt.nunits, 0))
        return shmem__target_fail(addr, nbytes, pe);
    *t = shoal__target_at(r->seg, pe, (size_t)((const char *)addr - r->base));
    return SHOAL_OK;
}

/* The global pointer of addr on world PE pe (for Shoal's collectives), after the same checks. */
shoal_err_t shmem__gptr(const void *addr, size_t nbytes, int pe, shoal_gptr_t *gp);

/* The global pointer of addr, inside region r (shmem__region_of's answer), on world PE pe. */
static inline shoal_gptr_t shmem__gptr_in(const shmem_region_t *r, const void *addr, int pe) {
    shoal_gptr_t gp;
    gp.unit = (uint32_t)pe;
    gp.segid = r->seg->id;
    gp.flags = r->seg->gen;
    gp.offset = (uint64_t)((const char *)addr - r->base);
    return gp;
}

/* shoal_put_strided for any number of elements (it takes at most 2^30 per call): nelems elements
 * of esize bytes, at byte strides dstep (at to) and sstep (from). */
shoal_err_t shmem__put_strided_any(shoal_gptr_t to, size_t dstep, const char *from, size_t sstep,
                                   size_t esize, size_t nelems);

/* Every public routine starts with this: it names the routine for messages. Routines that return
 * void report a failure (unit, routine, reason) and move nothing. */
#define SHMEM_ENTER(name) (shoal__current_call = (name))

/* Before shmem_init / after shmem_finalize: reports it and returns 0 (the caller returns). In
 * line, as every routine asks it first: a call costs as much as a direct-path quiet. */
extern int shmem__initialized; /* between shmem_init and shmem_finalize */
int shmem__not_ready(void);    /* reports it; 0 */
static inline int shmem__ready(void) {
    return __builtin_expect(shmem__initialized, 1) ? 1 : shmem__not_ready();
}

/* My own copy of a size-byte word of symmetric memory (size a power of two), for the calls
 * programs poll (test, wait_until, signal_fetch) to read in line: initialised, addr aligned, in a
 * region whose words remote PEs update with CPU atomics. NULL otherwise: the general path then
 * serves the call and reports what is wrong. */
static inline __attribute__((always_inline)) const char *shmem__my_word(const void *addr,
                                                                        size_t size) {
    const shmem_region_t *r = shmem__region_of(addr, size);
    if (!__builtin_expect(shmem__initialized && r && r->seg->atomics_direct &&
                              ((uintptr_t)addr & (size - 1)) == 0,
                          1))
        return NULL;
    const char *a = r->seg->direct[shoal__rt.myid];
    return a ? a + ((const char *)addr - r->base) : NULL;
}

/* ---- Reductions ----------------------------------------------------------------------------- */
/* Types of the reductions: Shoal's, and the complex ones (pairs of float or double). */
#define TYPE_COMPLEXD ((int)SHOAL_TYPE_COUNT_ + 1)
#define TYPE_COMPLEXF ((int)SHOAL_TYPE_COUNT_ + 2)

/* The Shoal type of each TYPENAME of the reduction tables. */
#define SHMEM__ST_char       SHOAL_TYPE_CHAR
#define SHMEM__ST_schar      SHOAL_TYPE_SCHAR
#define SHMEM__ST_short      SHOAL_TYPE_SHORT
#define SHMEM__ST_int        SHOAL_TYPE_INT
#define SHMEM__ST_long       SHOAL_TYPE_LONG
#define SHMEM__ST_longlong   SHOAL_TYPE_LONGLONG
#define SHMEM__ST_ptrdiff    SHOAL_TYPE_PTRDIFF
#define SHMEM__ST_uchar      SHOAL_TYPE_UCHAR
#define SHMEM__ST_ushort     SHOAL_TYPE_USHORT
#define SHMEM__ST_uint       SHOAL_TYPE_UINT
#define SHMEM__ST_ulong      SHOAL_TYPE_ULONG
#define SHMEM__ST_ulonglong  SHOAL_TYPE_ULONGLONG
#define SHMEM__ST_int8       SHOAL_TYPE_INT8
#define SHMEM__ST_int16      SHOAL_TYPE_INT16
#define SHMEM__ST_int32      SHOAL_TYPE_INT32
#define SHMEM__ST_int64      SHOAL_TYPE_INT64
#define SHMEM__ST_uint8      SHOAL_TYPE_UINT8
#define SHMEM__ST_uint16     SHOAL_TYPE_UINT16
#define SHMEM__ST_uint32     SHOAL_TYPE_UINT32
#define SHMEM__ST_uint64     SHOAL_TYPE_UINT64
#define SHMEM__ST_size       SHOAL_TYPE_SIZE
#define SHMEM__ST_float      SHOAL_TYPE_FLOAT
#define SHMEM__ST_double     SHOAL_TYPE_DOUBLE
#define SHMEM__ST_longdouble SHOAL_TYPE_LONGDOUBLE
#define SHMEM__ST_complexd   TYPE_COMPLEXD
#define SHMEM__ST_complexf   TYPE_COMPLEXF

#define SHMEM__OP_and  SHOAL_RED_AND
#define SHMEM__OP_or   SHOAL_RED_OR
#define SHMEM__OP_xor  SHOAL_RED_XOR
#define SHMEM__OP_max  SHOAL_RED_MAX
#define SHMEM__OP_min  SHOAL_RED_MIN
#define SHMEM__OP_sum  SHOAL_RED_SUM
#define SHMEM__OP_prod SHOAL_RED_PROD

/* ---- The SHCOLL names (shcoll.c) ---------------------------------------------------------------
 * The active-set collectives (coll.c) for shcoll.c, which names the routine (SHMEM_ENTER) and the
 * algorithm (coll_prefer) first. pSync is SHCOLL's and never read: a set that would run on pSync
 * runs on a team made for the call. */
void shmem__shcoll_barrier(int sync, int PE_start, int logPE_stride, int PE_size);
void shmem__shcoll_broadcast(void *dest, const void *source, size_t nelems, size_t esize,
                             int PE_root, int PE_start, int logPE_stride, int PE_size);
void shmem__shcoll_collect(int fixed, void *dest, const void *source, size_t nelems, size_t esize,
                           int PE_start, int logPE_stride, int PE_size);
void shmem__shcoll_alltoall(void *dest, const void *source, size_t nelems, size_t esize,
                            int PE_start, int logPE_stride, int PE_size);
void shmem__shcoll_alltoalls(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                             size_t nelems, size_t esize, int PE_start, int logPE_stride,
                             int PE_size);
void shmem__shcoll_reduce(void *dest, const void *source, int nreduce, size_t esize, int type,
                          shoal_red_op_t op, int PE_start, int logPE_stride, int PE_size);

/* ---- Teams ----------------------------------------------------------------------------------- */
struct shmem__team {
    shoal_team_t id;   /* the Shoal team (SHOAL_TEAM_NULL: not created / destroyed) */
    int my_pe, n_pes;  /* my index and the size */
    int start, stride; /* world PE of team PE i: world_of[i] (strided from the parent) */
    int *world_of;     /* [n_pes] */
    shmem_team_config_t config;
    long config_mask;
    int contexts;   /* live contexts made on this team */
    int predefined; /* WORLD and SHARED: never destroyed by the program */
};

/* Team PE -> world PE, -1 when out of range. */
static inline int shmem__team_world_pe(shmem_team_t team, int pe) {
    return (pe < 0 || pe >= team->n_pes) ? -1 : team->world_of[pe];
}
/* Checks a team handle given to a routine (reports SHMEM_TEAM_INVALID or a destroyed team). */
int shmem__team_ok(shmem_team_t team);
/* Builds WORLD and SHARED (shmem_init) and releases every team (shmem_finalize). */
shoal_err_t shmem__teams_init(void);
void shmem__teams_finalize(void);

/* ---- Contexts -------------------------------------------------------------------------------- */
/* A context: its team and options, and the Shoal handles of its non-blocking operations that
 * quiet must complete (on the direct path there are none: they complete when issued). */
struct shmem__ctx {
    shmem_team_t team;
    long options;
    int live;
    pthread_mutex_t mu; /* guards pending (unless SHMEM_CTX_PRIVATE) */
    shoal_handle_t *pending;
    size_t npending, cap;
};
/* Checks a context handle (reports SHMEM_CTX_INVALID or a destroyed context). */
int shmem__ctx_ok(shmem_ctx_t ctx);
/* Remembers a handle for the context's next quiet. */
void shmem__ctx_track(shmem_ctx_t ctx, shoal_handle_t h);
/* Completes everything the context issued (shmem_ctx_quiet). */
void shmem__ctx_quiet(shmem_ctx_t ctx);
/* Sets shmem__quiet_idle (shmem.h's in-line quiet and fence): idle, and only while initialised. */
void shmem__quiet_idle_set(int idle);
/* The world PE of a context's team PE (contexts of a team address PEs by team index). */
static inline int shmem__ctx_world_pe(shmem_ctx_t ctx, int pe) {
    return ctx->team == SHMEM_TEAM_WORLD ? pe : shmem__team_world_pe(ctx->team, pe);
}
/* The world PE a context's routine addresses; -1 after reporting a bad context or PE. */
static inline int shmem__ctx_target_pe(shmem_ctx_t ctx, int pe) {
    if (__builtin_expect(ctx == SHMEM_CTX_DEFAULT, 1)) return pe;
    if (!shmem__ctx_ok(ctx)) return -1;
    int w = shmem__ctx_world_pe(ctx, pe);
    if (w < 0)
        shoal__fail(SHOAL_ERR_UNIT, "PE %d is not in the context's team (%d PEs)", pe,
                    ctx->team->n_pes);
    return w;
}
void shmem__ctx_finalize(void);
/* shmem_team_destroy: completes and destroys every context made on the team. */
void shmem__ctx_destroy_team(shmem_team_t team);

/* ---- Setup ----------------------------------------------------------------------------------- */
/* Symmetric memory (shmem_init / shmem_finalize). */
shoal_err_t shmem__symmetric_init(void);
void shmem__symmetric_finalize(void);
/* Active-set teams made by the deprecated collectives (released at shmem_finalize). */
void shmem__active_sets_finalize(void);

#endif
