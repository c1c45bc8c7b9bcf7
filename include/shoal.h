/* Shoal: a one-sided PGAS communication runtime over MPI-3.
 *
 * Every call returns shoal_err_t (SHOAL_OK == 0). A failing call prints one line naming the unit,
 * the call and the reason on stderr (silenced by SHOAL_DEBUG=0) and changes no state: output
 * arguments are written only on success and no data is moved.
 *
 * Units are identified by absolute ids 0..shoal_nunits()-1 (the ranks of MPI_COMM_WORLD). */
#ifndef SHOAL_H
#define SHOAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Only the calls declared here are exported from libshoal; everything else stays internal. */
#pragma GCC visibility push(default)

#define SHOAL_VERSION_MAJOR  0
#define SHOAL_VERSION_MINOR  1
#define SHOAL_VERSION_PATCH  0
#define SHOAL_VERSION_STRING "0.1.0"

/* ---- Errors ---------------------------------------------------------------------------------- */
/* SHOAL_OK is 0; failures are positive and each prints one line; statuses that are not failures
 * ("not now, try again") are negative and print nothing. */
typedef enum {
    SHOAL_BUSY = -1, /* not a failure: try-lock did not get the lock; nothing printed */
    SHOAL_OK = 0,
    SHOAL_ERR_INVAL = 1,    /* a bad argument (NULL output, bad size, bad enum value) */
    SHOAL_ERR_NOT_INIT = 2, /* called before shoal_init or after shoal_finalize */
    SHOAL_ERR_UNIT = 3,     /* unit id out of range, or not a member of the team */
    SHOAL_ERR_GPTR = 4,     /* NULL, freed, stale or foreign global pointer */
    SHOAL_ERR_BOUNDS = 5,   /* access reaches past the end of the allocation */
    SHOAL_ERR_NOMEM = 6,    /* out of global memory (pool or segment ids) or host memory */
    SHOAL_ERR_TEAM = 7,     /* invalid, destroyed or non-member team */
    SHOAL_ERR_ALIGN = 8,    /* atomic on a misaligned address */
    SHOAL_ERR_STATE = 9,    /* call not valid in this state (double free, init twice, ...) */
    /* 10 is unused: it was SHOAL_ERR_BUSY, which is now SHOAL_BUSY (-1), not a failure */
    SHOAL_ERR_MPI = 11,         /* the underlying MPI call failed */
    SHOAL_ERR_UNSUPPORTED = 12, /* a valid request this build or configuration cannot serve */
    SHOAL_ERR_HANDLE = 13,      /* invalid or already completed non-blocking handle */
    SHOAL_ERR_BUSY = SHOAL_BUSY /* the old name of SHOAL_BUSY, kept for existing programs */
} shoal_err_t;

/* Name of an error code ("SHOAL_ERR_BOUNDS: access past the end of the allocation"). */
const char *shoal_strerror(shoal_err_t err);

/* The version of the library running now (the macros above give the headers' version). Usable
 * before shoal_init; any output may be NULL. Returns the version as text ("0.1.0"). */
const char *shoal_version(int *major, int *minor, int *patch);

/* ---- Init, finalize and the environment ------------------------------------------------------ */
typedef int32_t shoal_unit_t;

/* Initialises MPI (unless the program already did: then Shoal uses it and leaves MPI_Finalize to
 * the program). Collective over MPI_COMM_WORLD. argc/argv may be NULL. The same as
 * shoal_init_thread with SHOAL_THREAD_SERIALIZED. */
shoal_err_t shoal_init(int *argc, char ***argv);

/* Thread levels, as MPI's (and the same order):
 *   SINGLE      one thread calls Shoal.
 *   FUNNELED    only the thread that called shoal_init calls Shoal.
 *   SERIALIZED  any thread, one at a time (the program orders the calls).
 *   MULTIPLE    any thread, at the same time, with these rules:
 *     - RMA (put/get, blocking, non-blocking, strided), atomics, signals, waits on handles and
 *       signals, flush/fence, locks, and the queries may be called concurrently.
 *     - Collective calls (team creation and destruction, team_memalloc/memfree, lock
 *       create/destroy, barriers and data collectives, shoal_finalize) are issued by one thread
 *       of a unit at a time, as MPI asks of collectives on one communicator.
 *     - A Shoal lock is held by a unit: another thread of the holding unit that acquires it waits
 *       until the holder releases it (try_acquire returns SHOAL_BUSY); the thread that acquired it
 *       releases it; acquiring it again in the holding thread is an error.
 *     - A handle is completed once: two threads that wait on copies of one handle get one
 *       SHOAL_OK and one SHOAL_ERR_HANDLE ("already completed").
 *   MULTIPLE needs MPI_THREAD_MULTIPLE from MPI (MPICH gives it; Open MPI 4.1's osc/pt2pt, which
 *   Shoal needs there for correct atomics, does not): where MPI cannot, *provided is SERIALIZED,
 *   as MPI_Init_thread lowers a level it cannot give. */
typedef enum {
    SHOAL_THREAD_SINGLE = 0,
    SHOAL_THREAD_FUNNELED = 1,
    SHOAL_THREAD_SERIALIZED = 2,
    SHOAL_THREAD_MULTIPLE = 3
} shoal_thread_level_t;

/* shoal_init asking for a thread level: *provided (may be NULL) gets the level in force, which can
 * be lower than required (never higher than required, except that SINGLE and FUNNELED are
 * answered with themselves). SHOAL_ERR_INVAL for a level outside the enum. */
shoal_err_t shoal_init_thread(int *argc, char ***argv, int required, int *provided);
/* The level shoal_init_thread provided. */
shoal_err_t shoal_query_thread(int *provided);
/* Completes outstanding operations, frees all Shoal resources; collective. Every unit must call
 * it: a unit that leaves between shoal_init and shoal_finalize (returns from main, calls exit()
 * from any thread, with any status) prints "shoal: unit U: exited without shoal_finalize; aborting
 * the job ..." and aborts the whole job (MPI_Abort, exit status non-zero) instead of leaving the
 * others waiting for it forever. Calling MPI_Finalize before shoal_finalize does the same (it would
 * block forever), when libshoal is linked before the MPI library (shoalcc, Shoal::shoal). */
shoal_err_t shoal_finalize(void);
/* 1 between shoal_init and shoal_finalize, else 0. */
int shoal_initialized(void);

shoal_err_t shoal_myid(shoal_unit_t *unit);
shoal_err_t shoal_size(int32_t *nunits);
/* Number of units on my node, and their absolute ids (units[] has room for *count entries). */
shoal_err_t shoal_node_size(int32_t *count);
shoal_err_t shoal_node_units(shoal_unit_t *units, int32_t count);

/* ---- Groups: local, ordered sets of absolute unit ids (always sorted ascending) ---------------
 * A group value is a handle: after shoal_group_destroy every copy of it gives SHOAL_ERR_STATE,
 * and a value that never was a group gives SHOAL_ERR_INVAL. */
typedef struct shoal_group *shoal_group_t;

shoal_err_t shoal_group_create(shoal_group_t *group); /* empty group */
shoal_err_t shoal_group_clone(shoal_group_t group, shoal_group_t *copy);
shoal_err_t shoal_group_destroy(shoal_group_t *group); /* sets *group to NULL */
shoal_err_t shoal_group_add_member(shoal_group_t group, shoal_unit_t unit); /* no-op if present */
shoal_err_t shoal_group_remove_member(shoal_group_t group,
                                      shoal_unit_t unit); /* ERR_UNIT if absent */
shoal_err_t shoal_group_union(shoal_group_t a, shoal_group_t b, shoal_group_t *out);
shoal_err_t shoal_group_intersect(shoal_group_t a, shoal_group_t b, shoal_group_t *out);
/* Splits into n contiguous parts (in sorted order) whose sizes differ by at most one; parts[] has
 * room for n groups; parts beyond the group's size are empty. */
shoal_err_t shoal_group_split(shoal_group_t group, int32_t n, shoal_group_t *parts);
shoal_err_t shoal_group_is_member(shoal_group_t group, shoal_unit_t unit, int *is_member);
shoal_err_t shoal_group_size(shoal_group_t group, int32_t *size);
/* Copies the members (ascending) into units[], which has room for shoal_group_size entries. */
shoal_err_t shoal_group_members(shoal_group_t group, shoal_unit_t *units);

/* ---- Teams: collective, communicator-backed, ids never reused -------------------------------- */
typedef int32_t shoal_team_t;
#define SHOAL_TEAM_ALL  ((shoal_team_t)0)
#define SHOAL_TEAM_NULL ((shoal_team_t)-1)
#define SHOAL_UNDEFINED (-1) /* colour for shoal_team_split: join no team */

/* Collective over parent: every member passes the same group (a subset of the parent's units).
 * Members of the group get the new team, others SHOAL_TEAM_NULL. Team-relative ids follow the
 * group's ascending absolute order. */
shoal_err_t shoal_team_create(shoal_team_t parent, shoal_group_t group, shoal_team_t *team);
/* Collective over parent: units with the same colour form a team (ordered by absolute id);
 * colour SHOAL_UNDEFINED gives SHOAL_TEAM_NULL. */
shoal_err_t shoal_team_split(shoal_team_t parent, int colour, shoal_team_t *team);
/* Collective over parent: the parent's units that share my node. */
shoal_err_t shoal_team_node(shoal_team_t parent, shoal_team_t *team);
/* Collective over the team; frees the team's allocations and locks first. Sets *team to NULL. */
shoal_err_t shoal_team_destroy(shoal_team_t *team);
shoal_err_t shoal_team_size(shoal_team_t team, int32_t *size);
shoal_err_t shoal_team_myid(shoal_team_t team, shoal_unit_t *relative_id);
shoal_err_t shoal_team_parent(shoal_team_t team, shoal_team_t *parent);
/* O(1) both ways. unit_g2l gives ERR_UNIT when the unit is not a member. */
shoal_err_t shoal_team_unit_l2g(shoal_team_t team, shoal_unit_t relative, shoal_unit_t *absolute);
shoal_err_t shoal_team_unit_g2l(shoal_team_t team, shoal_unit_t absolute, shoal_unit_t *relative);
shoal_err_t shoal_team_get_group(shoal_team_t team, shoal_group_t *group);

/* ---- Global pointers ------------------------------------------------------------------------- */
/* 128 bits. unit: absolute unit id; segid: the allocation's segment (0 = NULL pointer);
 * flags: the segment's generation, so pointers into freed memory are recognised; offset: bytes
 * from the start of that unit's part of the segment. Treat the fields as read-only; use the
 * helpers below to derive pointers. */
typedef struct {
    uint32_t unit;
    uint16_t segid;
    uint16_t flags;
    uint64_t offset;
} shoal_gptr_t;

/* The NULL global pointer (a compound literal in C, a braced temporary in C++11 and later). */
#ifdef __cplusplus
#define SHOAL_GPTR_NULL (shoal_gptr_t{0, 0, 0, 0})
#else
#define SHOAL_GPTR_NULL ((shoal_gptr_t){0, 0, 0, 0})
#endif

static inline int shoal_gptr_is_null(shoal_gptr_t gp) {
    return gp.segid == 0;
}
static inline int shoal_gptr_equal(shoal_gptr_t a, shoal_gptr_t b) {
    return a.unit == b.unit && a.segid == b.segid && a.flags == b.flags && a.offset == b.offset;
}
/* Moves the offset by delta bytes (checked when the pointer is used). */
static inline shoal_gptr_t shoal_gptr_add(shoal_gptr_t gp, int64_t delta) {
    gp.offset += (uint64_t)delta;
    return gp;
}
/* The same offset in another unit's part (absolute id). For symmetric allocations, and only for
 * units of the allocation's team: see "What a use of a global pointer detects" below. */
static inline shoal_gptr_t shoal_gptr_setunit(shoal_gptr_t gp, shoal_unit_t unit) {
    gp.unit = (uint32_t)unit;
    return gp;
}
/* What a use of a global pointer detects (SHOAL_ERR_GPTR, _UNIT, _BOUNDS): the NULL pointer; a
 * segment id unknown here; a freed allocation (the generation in flags no longer matches, until
 * the same id has been reused 65,535 times); a unit out of range or outside the allocation's team
 * as this unit knows it; an access past the end of the unit's part (for my own pool blocks: past
 * the block, or a freed block). A pointer is resolved in the caller's table, and segment ids are
 * agreed among a team's members only, so one case is not detected: a pointer of team A moved with
 * shoal_gptr_setunit to a unit u outside A, used by a unit whose live allocation on another team
 * B (disjoint from A, containing u) has the same id and generation; it reaches B's memory on u.
 * Any unit in both A and B rules it out, since ids are unique among each unit's live allocations.
 */
/* The address of the target memory in this process when it is mapped here (my own memory, or a
 * same-node peer with the direct path on): the zero-copy path. *addr = NULL when not mapped. */
shoal_err_t shoal_gptr_getaddr(shoal_gptr_t gp, void **addr);
/* The global pointer for a local address inside one of my allocations. */
shoal_err_t shoal_gptr_from_addr(const void *addr, shoal_gptr_t *gp);

/* ---- Global memory --------------------------------------------------------------------------- */
/* Collective over team: every member allocates nbytes (the same value everywhere) at the same
 * offset; the result points at the calling unit's part; page-aligned. */
shoal_err_t shoal_team_memalloc(shoal_team_t team, size_t nbytes, shoal_gptr_t *gp);
shoal_err_t shoal_team_memfree(shoal_gptr_t gp); /* collective over the allocation's team */
/* Non-collective: nbytes from my pool (SHOAL_POOL_SIZE), 64-byte aligned. */
shoal_err_t shoal_memalloc(size_t nbytes, shoal_gptr_t *gp);
shoal_err_t shoal_memfree(shoal_gptr_t gp); /* local pool blocks only */
/* The pool: total size and bytes free on this unit. */
shoal_err_t shoal_pool_info(size_t *total, size_t *free_bytes);

/* ---- RMA ------------------------------------------------------------------------------------- */
/* Blocking: the data is in the target memory (put) or in dest (get) when the call returns. */
shoal_err_t shoal_put(shoal_gptr_t dest, const void *src, size_t nbytes);
shoal_err_t shoal_get(void *dest, shoal_gptr_t src, size_t nbytes);

/* Non-blocking: returns a handle; *handle == SHOAL_HANDLE_NULL when the operation already
 * completed (always the case on the direct path). A handle is released by wait or by a test that
 * reports completion (also when completion fails: the error is returned once). Buffers must not
 * be touched until then. A copy of a released handle, or any value Shoal did not issue, gives
 * SHOAL_ERR_HANDLE; it never completes another operation. */
typedef struct shoal_handle *shoal_handle_t;
#define SHOAL_HANDLE_NULL ((shoal_handle_t)0)
shoal_err_t shoal_put_nb(shoal_gptr_t dest, const void *src, size_t nbytes, shoal_handle_t *handle);
shoal_err_t shoal_get_nb(void *dest, shoal_gptr_t src, size_t nbytes, shoal_handle_t *handle);
shoal_err_t shoal_wait(shoal_handle_t *handle);               /* sets *handle to NULL */
shoal_err_t shoal_test(shoal_handle_t *handle, int *done);    /* NULL when done */
shoal_err_t shoal_waitall(shoal_handle_t *handles, size_t n); /* NULL entries allowed */
shoal_err_t shoal_testall(shoal_handle_t *handles, size_t n, int *all_done);

/* Completes (remotely) every operation this unit issued to gp's unit, or to every unit. */
shoal_err_t shoal_flush(shoal_gptr_t gp);
shoal_err_t shoal_flush_all(void);
/* Orders: operations issued before the fence reach their targets before those issued after. */
shoal_err_t shoal_fence(void);

/* Strided: nelems elements of elem_size bytes; strides in bytes between element starts, each at
 * least elem_size when nelems > 1 (smaller or negative strides give SHOAL_ERR_INVAL). */
shoal_err_t shoal_put_strided(shoal_gptr_t dest, ptrdiff_t dest_stride, const void *src,
                              ptrdiff_t src_stride, size_t elem_size, size_t nelems);
shoal_err_t shoal_get_strided(void *dest, ptrdiff_t dest_stride, shoal_gptr_t src,
                              ptrdiff_t src_stride, size_t elem_size, size_t nelems);

/* ---- Signals --------------------------------------------------------------------------------- */
typedef enum { SHOAL_SIGNAL_SET = 0, SHOAL_SIGNAL_ADD = 1 } shoal_signal_op_t;
typedef enum {
    SHOAL_CMP_EQ = 0,
    SHOAL_CMP_NE = 1,
    SHOAL_CMP_GT = 2,
    SHOAL_CMP_GE = 3,
    SHOAL_CMP_LT = 4,
    SHOAL_CMP_LE = 5
} shoal_cmp_t;
/* Puts the data, then sets or adds to the 64-bit signal word sig (same unit as dest, 8-byte
 * aligned): whoever sees the signal sees the data. Blocking, like shoal_put. */
shoal_err_t shoal_put_signal(shoal_gptr_t dest, const void *src, size_t nbytes, shoal_gptr_t sig,
                             uint64_t value, shoal_signal_op_t op);
/* Updates a signal word alone. */
shoal_err_t shoal_signal(shoal_gptr_t sig, uint64_t value, shoal_signal_op_t op);
/* Waits until (*sig cmp value) holds for my own signal word; *seen gets the value (may be NULL). */
shoal_err_t shoal_signal_wait_until(shoal_gptr_t sig, shoal_cmp_t cmp, uint64_t value,
                                    uint64_t *seen);
/* Reads my own signal word atomically. */
shoal_err_t shoal_signal_read(shoal_gptr_t sig, uint64_t *value);

/* ---- Atomics --------------------------------------------------------------------------------- */
/* One data-type enum and one operation enum serve atomics and collectives (shoal_type_t and
 * shoal_red_op_t, declared here): SHOAL_INT64 and SHOAL_TYPE_INT64 are the same value, so passing
 * either to either kind of call means the same type. Atomics take INT32, INT64, UINT32, UINT64
 * (sum, and, or, xor) and DOUBLE (add, load, store, swap); other values give SHOAL_ERR_INVAL. */
typedef enum {
    SHOAL_TYPE_CHAR = 0,
    SHOAL_TYPE_SCHAR,
    SHOAL_TYPE_SHORT,
    SHOAL_TYPE_INT,
    SHOAL_TYPE_LONG,
    SHOAL_TYPE_LONGLONG,
    SHOAL_TYPE_UCHAR,
    SHOAL_TYPE_USHORT,
    SHOAL_TYPE_UINT,
    SHOAL_TYPE_ULONG,
    SHOAL_TYPE_ULONGLONG,
    SHOAL_TYPE_INT8,
    SHOAL_TYPE_INT16,
    SHOAL_TYPE_INT32,
    SHOAL_TYPE_INT64,
    SHOAL_TYPE_UINT8,
    SHOAL_TYPE_UINT16,
    SHOAL_TYPE_UINT32,
    SHOAL_TYPE_UINT64,
    SHOAL_TYPE_SIZE,
    SHOAL_TYPE_PTRDIFF,
    SHOAL_TYPE_FLOAT,
    SHOAL_TYPE_DOUBLE,
    SHOAL_TYPE_LONGDOUBLE,
    SHOAL_TYPE_COUNT_, /* number of types, not a type */
    /* The atomics' short names: the same values, so no enum converts silently into another */
    SHOAL_INT32 = SHOAL_TYPE_INT32,
    SHOAL_INT64 = SHOAL_TYPE_INT64,
    SHOAL_UINT32 = SHOAL_TYPE_UINT32,
    SHOAL_UINT64 = SHOAL_TYPE_UINT64,
    SHOAL_DOUBLE = SHOAL_TYPE_DOUBLE
} shoal_type_t;
typedef enum {
    SHOAL_RED_SUM = 0,
    SHOAL_RED_PROD,
    SHOAL_RED_MIN,
    SHOAL_RED_MAX,
    SHOAL_RED_AND, /* integer types only */
    SHOAL_RED_OR,  /* integer types only */
    SHOAL_RED_XOR, /* integer types only */
    /* The atomics' names: the same values */
    SHOAL_OP_SUM = SHOAL_RED_SUM,
    SHOAL_OP_BAND = SHOAL_RED_AND,
    SHOAL_OP_BOR = SHOAL_RED_OR,
    SHOAL_OP_BXOR = SHOAL_RED_XOR
} shoal_red_op_t;
typedef shoal_type_t shoal_dtype_t;    /* the atomics' name for the type enum */
typedef shoal_red_op_t shoal_amo_op_t; /* the atomics' name for the operation enum */

/* *result = old value; target = old op value. value/result point at one element of type. */
shoal_err_t shoal_atomic_fetch_op(shoal_gptr_t gp, shoal_amo_op_t op, shoal_dtype_t type,
                                  const void *value, void *result);
/* target = target op value, nothing returned (cheaper). */
shoal_err_t shoal_atomic_op(shoal_gptr_t gp, shoal_amo_op_t op, shoal_dtype_t type,
                            const void *value);
shoal_err_t shoal_atomic_swap(shoal_gptr_t gp, shoal_dtype_t type, const void *value, void *result);
/* If target == *compare then target = *value; *result = the old value either way. Integers. */
shoal_err_t shoal_atomic_cas(shoal_gptr_t gp, shoal_dtype_t type, const void *compare,
                             const void *value, void *result);
shoal_err_t shoal_atomic_load(shoal_gptr_t gp, shoal_dtype_t type, void *result);
shoal_err_t shoal_atomic_store(shoal_gptr_t gp, shoal_dtype_t type, const void *value);

/* Typed conveniences for the common cases. */
static inline shoal_err_t shoal_fetch_add_i64(shoal_gptr_t gp, int64_t v, int64_t *old) {
    return shoal_atomic_fetch_op(gp, SHOAL_OP_SUM, SHOAL_INT64, &v, old);
}
static inline shoal_err_t shoal_fetch_add_i32(shoal_gptr_t gp, int32_t v, int32_t *old) {
    return shoal_atomic_fetch_op(gp, SHOAL_OP_SUM, SHOAL_INT32, &v, old);
}
static inline shoal_err_t shoal_add_i64(shoal_gptr_t gp, int64_t v) {
    return shoal_atomic_op(gp, SHOAL_OP_SUM, SHOAL_INT64, &v);
}
static inline shoal_err_t shoal_cas_i64(shoal_gptr_t gp, int64_t cmp, int64_t v, int64_t *old) {
    return shoal_atomic_cas(gp, SHOAL_INT64, &cmp, &v, old);
}
static inline shoal_err_t shoal_fetch_add_double(shoal_gptr_t gp, double v, double *old) {
    return shoal_atomic_fetch_op(gp, SHOAL_OP_SUM, SHOAL_DOUBLE, &v, old);
}

/* ---- Synchronisation ------------------------------------------------------------------------- */
/* Completes this unit's outstanding operations, then waits for every team member. */
shoal_err_t shoal_barrier(shoal_team_t team);

/* MCS queue lock: FIFO, waiters spin on their own memory; tails spread over the team's units.
 * A lock destroyed by shoal_lock_destroy, or with its team, gives SHOAL_ERR_STATE from then on
 * (through any copy). lock_destroy fails on every unit (SHOAL_ERR_STATE) while any unit holds
 * the lock; create and destroy, like every creation call, fail on every unit when one unit's
 * argument is bad. */
typedef struct shoal_lock *shoal_lock_t;
shoal_err_t shoal_lock_create(shoal_team_t team, shoal_lock_t *lock); /* collective */
shoal_err_t shoal_lock_destroy(shoal_lock_t *lock);                   /* collective */
shoal_err_t shoal_lock_acquire(shoal_lock_t lock);
/* SHOAL_OK with the lock held, or SHOAL_BUSY (not a failure, nothing printed) when another unit
 * holds it. */
shoal_err_t shoal_lock_try_acquire(shoal_lock_t lock);
shoal_err_t shoal_lock_release(shoal_lock_t lock);

/* ---- Active-target epochs: fence synchronisation (docs/fence.md) -----------------------------
 * MPI's fence model on a symmetric allocation (shoal_team_memalloc, or OpenSHMEM symmetric
 * memory): shoal_epoch_fence is collective over the allocation's team. The first fence opens an
 * epoch; from then on shoal_put_nb and shoal_get_nb to that allocation (any member's part) are
 * the epoch's operations: they give *handle == SHOAL_HANDLE_NULL and the next fence completes
 * them. At its return every operation any member issued to the allocation in the closing epoch is
 * complete at its target and visible to the target's loads, and nothing issued after it can land
 * before it. Buffers of an epoch's operations are not touched until the closing fence (the
 * deferred design reads a put's source there). Blocking put/get, atomics and signals keep their
 * meaning inside an epoch. Once fenced, an allocation stays in fence mode: a non-blocking put/get
 * to it while no epoch is open (after a fence with SHOAL_EPOCH_NOSUCCEED) is SHOAL_ERR_STATE. */
typedef enum {
    SHOAL_EPOCH_AUTO = 0,        /* the measured best (docs/fence.md): imm_barrier */
    SHOAL_EPOCH_DEFERRED = 1,    /* Fence-Def: queued, delivered in the closing fence */
    SHOAL_EPOCH_IMM_NAIVE = 2,   /* Fence-Imm-Naive: finish messages, pairwise flags */
    SHOAL_EPOCH_IMM_BARRIER = 3, /* Fence-Imm-Opt: here one barrier (flushes first) */
    SHOAL_EPOCH_IMM_NOTIFY = 4   /* Fence-Imm-RI: each put notifies its target; then a barrier */
} shoal_epoch_design_t;
/* Assertions (OR them; 0 = none), as MPI_MODE_*: every member passes the same value. */
#define SHOAL_EPOCH_NOSTORE   1 /* no local stores to the allocation since the last fence */
#define SHOAL_EPOCH_NOPRECEDE 2 /* this fence closes no operations (none issued since the last) */
#define SHOAL_EPOCH_NOSUCCEED 4 /* no operations follow: the fence opens no epoch */

shoal_err_t shoal_epoch_fence(shoal_gptr_t alloc, int assertions);
/* Collective over the allocation's team, with no epoch open (before the first fence or after a
 * NOSUCCEED one): the design its fences use from now on. Without it: SHOAL_EPOCH_DESIGN. */
shoal_err_t shoal_epoch_set_design(shoal_gptr_t alloc, shoal_epoch_design_t design);
/* The design in force on the allocation (AUTO resolved; SHOAL_EPOCH_AUTO before its first fence
 * when nothing was set). */
shoal_err_t shoal_epoch_get_design(shoal_gptr_t alloc, shoal_epoch_design_t *design);
const char *shoal_epoch_design_name(shoal_epoch_design_t design); /* "deferred", ... */

/* ---- One-sided broadcast: only the root calls (docs/rma_bcast.md) ----------------------------
 * A symmetric allocation registered with shoal_rma_bcast_enable can receive broadcasts that only
 * their root calls: the other members keep computing while a relay thread of each (one per
 * registration and member, started by shoal_rma_bcast_enable, joined by deregistration, the
 * allocation's free or shoal_finalize) forwards the data down a binomial tree. Broadcasts on one
 * allocation run one at a time, in the order their roots acquire it: a second broadcast (from any
 * root) waits until the first has reached every member. Broadcasts on different allocations
 * overlap. On the MPI path (a member not reachable directly) the relay threads call MPI: that needs
 * SHOAL_THREAD_MULTIPLE (shoal_init_thread); without it enable fails with SHOAL_ERR_UNSUPPORTED. */
typedef enum {
    SHOAL_RMA_BCAST_AUTO = 0,    /* by size and team size (SHOAL_RMA_BCAST_ALGO, docs) */
    SHOAL_RMA_BCAST_LINEAR = 1,  /* the root puts to every member, then completes */
    SHOAL_RMA_BCAST_BINOMIAL = 2 /* the root puts to ceil(log2 p) children; relays forward */
} shoal_rma_bcast_algo_t;
typedef struct shoal_rma_bcast_req *shoal_rma_bcast_t;
#define SHOAL_RMA_BCAST_NULL ((shoal_rma_bcast_t)0)

/* Collective over the allocation's team: register it and start this unit's relay thread for it.
 * Freeing the allocation deregisters it. */
shoal_err_t shoal_rma_bcast_enable(shoal_gptr_t alloc);
/* Collective: deregister (waits for a broadcast in flight on it to reach every member). */
shoal_err_t shoal_rma_bcast_disable(shoal_gptr_t alloc);
/* Called by the root only: nbytes (> 0) from src to dest's offset in the allocation on every
 * member, the root included (src may be the root's own dest). Returns when the root's own puts
 * are done; *req completes when every member has the data. *seq (may be NULL) gets the
 * broadcast's number on this allocation (1, 2, ...), which the members can wait for. */
shoal_err_t shoal_rma_bcast(shoal_gptr_t dest, const void *src, size_t nbytes,
                            shoal_rma_bcast_algo_t algo, shoal_rma_bcast_t *req, uint64_t *seq);
/* The root's completion (the paper's RMABcastTest / RMABcastFlush): done when every member has
 * the data; the request is released then (*req = SHOAL_RMA_BCAST_NULL). */
shoal_err_t shoal_rma_bcast_test(shoal_rma_bcast_t *req, int *done);
shoal_err_t shoal_rma_bcast_wait(shoal_rma_bcast_t *req);
/* Any member, no call from the root needed: has broadcast number seq on alloc reached me? Then
 * its data is in my part, and my relay has passed it on (it forwards from my part), so my part is
 * the program's again: it may read and overwrite it. wait_arrival waits for it. */
shoal_err_t shoal_rma_bcast_arrived(shoal_gptr_t alloc, uint64_t seq, int *arrived);
shoal_err_t shoal_rma_bcast_wait_arrival(shoal_gptr_t alloc, uint64_t seq);
const char *shoal_rma_bcast_algo_name(shoal_rma_bcast_algo_t algo); /* "linear", ... */

/* ---- Collectives ---------------------------------------------------------------------------- */
/* Built only from Shoal's own put/get/atomics/signals. Every member of the team calls them with
 * the same arguments: with SHOAL_CHECK_COLLECTIVES=1 every call first agrees on them (one
 * allreduce), so an argument rejected on one unit, or different roots, sizes, types, operations
 * or buffers, fail every member; without it such a program is erroneous (it may hang). dest and src
 * are my own parts (unit = me) of symmetric allocations (shoal_team_memalloc on a team that
 * contains every member of this team, same offset everywhere); nothing else is needed: each team
 * owns its scratch and signal area, and sequence numbers separate back-to-back collectives. Roots
 * are team-relative. The algorithm is chosen by a decision table (SHOAL_COLL_<NAME> and
 * SHOAL_COLL_TUNING override it; SHOAL_COLL_VERBOSE=1 prints each choice); see docs/collectives.md.
 */
size_t shoal_type_size(shoal_type_t type); /* 0 for an unknown type */

/* Collective barrier with a selectable algorithm (shoal_barrier uses the same selection). */
shoal_err_t shoal_team_barrier(shoal_team_t team);
/* dest on every member = src on root (nbytes). dest == src is allowed (in place). */
shoal_err_t shoal_broadcast(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t nbytes,
                            shoal_unit_t root);
/* Each member contributes nbytes (may differ per member); dest on every member receives all
 * contributions concatenated in team order. dest must hold the total. */
shoal_err_t shoal_collect(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t nbytes);
/* Same, with the same nbytes from every member: dest holds size * nbytes. */
shoal_err_t shoal_fcollect(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t nbytes);
/* Block j (nbytes) of src on member i lands as block i of dest on member j. */
shoal_err_t shoal_alltoall(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t nbytes);
/* Strided alltoall (OpenSHMEM alltoalls): element k (k < nelems) of the block for member j is at
 * src element (j * nelems + k) * sst; it lands at dest element (i * nelems + k) * dst on member j.
 * Strides are in elements (>= 1); elem_size is 4 or 8. */
shoal_err_t shoal_alltoalls(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, ptrdiff_t dst,
                            ptrdiff_t sst, size_t elem_size, size_t nelems);
/* Reduce-to-all: dest[k] = op over members of src[k], k < count. dest == src allowed. */
shoal_err_t shoal_reduce(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t count,
                         shoal_type_t type, shoal_red_op_t op);
/* Sum scans (OpenSHMEM 1.6 sum_inscan / sum_exscan): on member i, dest[k] = sum of src[k] over
 * members 0..i (inclusive) or 0..i-1 (exclusive; member 0 gets 0). */
shoal_err_t shoal_scan(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t count,
                       shoal_type_t type, int inclusive);
/* Replaces the rules for one collective ("barrier", "broadcast", "collect", "fcollect",
 * "alltoall", "alltoalls", "reduce", "scan") at run time, in the SHOAL_COLL_<NAME> syntax; they
 * take precedence over the environment, the tuning file and the defaults. NULL or "" removes the
 * override. Local: call it with the same rules on every unit (tools and tests use it). */
shoal_err_t shoal_coll_override(const char *collective, const char *rules);
/* The algorithm the last collective on this team ran ("" before any). */
shoal_err_t shoal_coll_last_algorithm(shoal_team_t team, const char **name);

/* ---- Introspection --------------------------------------------------------------------------- */
typedef enum {
    SHOAL_MECH_SELF = 0,  /* my own memory */
    SHOAL_MECH_XPMEM = 1, /* peer memory attached with XPMEM */
    SHOAL_MECH_SHM = 2,   /* peer memory in node-shared mappings */
    SHOAL_MECH_MPI = 3    /* no direct mapping: MPI RMA */
} shoal_mechanism_t;
shoal_err_t shoal_peer_mechanism(shoal_unit_t unit, shoal_mechanism_t *mech);
const char *shoal_mechanism_name(shoal_mechanism_t mech);
/* "MPICH 4.0.2" or "Open MPI 4.1.4" etc. (the library's MPI version string, first line). */
const char *shoal_mpi_library(void);

/* Configuration variables (read from the environment at shoal_init). Usable before init: then
 * value is what the environment says now (or the default). */
typedef struct {
    const char *name;          /* "SHOAL_POOL_SIZE" */
    const char *type;          /* "size", "bool", "int" */
    const char *default_value; /* as text */
    const char *description;
    const char *value;    /* the value in force (after init) or that init would use, whole; the
                             text stays valid until the next shoal_config_var call for the same
                             index */
    int from_environment; /* 1 when the environment sets it */
} shoal_config_var_t;
int shoal_config_count(void);
shoal_err_t shoal_config_var(int index, shoal_config_var_t *var);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* SHOAL_H */
