/* Point-to-point synchronisation (OpenSHMEM 1.5 section 9.10): wait_until and test with their
 * _all, _any, _some and _vector forms, signal_wait_until, and the older shmem_wait. Every form is
 * one byte-level routine over (ivars, nelems, status, cmp, values) that reads each variable with
 * the same mechanism its remote updates use (a Shoal atomic load for 4- and 8-byte words; 2-byte
 * ones, which no atomic updates, with a plain acquire load) and waits with the runtime's policy:
 * spin briefly, then yield the core, driving MPI progress all along. */
#include <stdlib.h>

#include "rma/rma.h"
#include "runtime/wait.h"
#include "shmem_internal.h"

/* An element of an ivar array as read: its bits widened by sign or zero. */
typedef struct {
    size_t size;
    int is_signed;
} ivar_type_t;

static int cmp_ok(int cmp) {
    if (cmp >= SHMEM_CMP_EQ && cmp <= SHMEM_CMP_LE) return 1;
    shoal__fail(SHOAL_ERR_INVAL, "comparison %d is not one of SHMEM_CMP_*", cmp);
    return 0;
}

static uint64_t widen(const void *p, ivar_type_t ty) {
    switch (ty.size) {
    case 2:
        return ty.is_signed ? (uint64_t)(int64_t) * (const int16_t *)p : *(const uint16_t *)p;
    case 4:
        return ty.is_signed ? (uint64_t)(int64_t) * (const int32_t *)p : *(const uint32_t *)p;
    default:
        return *(const uint64_t *)p;
    }
}

static int holds(int cmp, ivar_type_t ty, uint64_t a, uint64_t b) {
    int lt = ty.is_signed ? (int64_t)a < (int64_t)b : a < b;
    switch (cmp) {
    case SHMEM_CMP_EQ:
        return a == b;
    case SHMEM_CMP_NE:
        return a != b;
    case SHMEM_CMP_GT:
        return !lt && a != b;
    case SHMEM_CMP_GE:
        return !lt;
    case SHMEM_CMP_LT:
        return lt;
    default:
        return lt || a == b; /* LE */
    }
}

/* Reads my ivar (resolved once in t). */
static uint64_t read_ivar(const void *ivar, const shoal_target_t *t, ivar_type_t ty) {
    uint64_t raw = 0;
    if (ty.size == 2) {
        uint16_t v = __atomic_load_n((const uint16_t *)ivar, __ATOMIC_ACQUIRE);
        return widen(&v, ty);
    }
    if (!shoal__amo_inline(t, AMO_LOAD, SHOAL_OP_SUM, ty.size, NULL, &raw))
        shoal__amo(t, AMO_LOAD, SHOAL_OP_SUM, ty.size == 4 ? SHOAL_UINT32 : SHOAL_UINT64, NULL,
                   NULL, &raw);
    return ty.size == 4 ? widen(&raw, ty) : raw;
}

/* The condition's operand for element i (vector forms: one per element). */
static uint64_t operand(const void *values, int vector, size_t i, ivar_type_t ty) {
    return widen((const char *)values + (vector ? i * ty.size : 0), ty);
}

/* Resolves every ivar that takes part; reports the first bad one. */
static int resolve_all(void *ivars, size_t nelems, const int *status, ivar_type_t ty,
                       shoal_target_t *t) {
    for (size_t i = 0; i < nelems; i++) {
        if (status && status[i]) continue;
        if (shmem__target((char *)ivars + i * ty.size, ty.size, (int)shoal__rt.myid, &t[i]) !=
            SHOAL_OK)
            return 0;
    }
    return 1;
}

/* After the condition held: what the writers published before updating the ivar is visible. */
static void acquire(const shoal_target_t *t) {
    if (!t->seg->atomics_direct) MPI_Win_sync(t->seg->win);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
}

typedef enum { WAIT_ALL, WAIT_ANY, WAIT_SOME } wait_kind_t;

/* One routine for all the forms. Returns: ALL -> 1 when all hold; ANY -> the index, SIZE_MAX if
 * none; SOME -> how many (their indices in indices[]). block: wait until the kind is satisfied
 * (ANY/SOME with no element taking part return at once). *seen (when not NULL): the value read
 * of the last element found to satisfy the condition (shmem_signal_wait_until returns it: a
 * second read could see a later value that does not). */
static size_t sync_core_seen(wait_kind_t kind, int block, void *ivars, size_t nelems,
                             size_t *indices, const int *status, int cmp, const void *values,
                             int vector, ivar_type_t ty, uint64_t *seen) {
    size_t fail_value = kind == WAIT_ANY ? SIZE_MAX : 0;
    if (!shmem__ready() || !cmp_ok(cmp)) return fail_value;
    size_t taking_part = 0;
    for (size_t i = 0; i < nelems; i++) taking_part += !(status && status[i]);
    if (taking_part == 0) return kind == WAIT_ALL ? 1 : fail_value;
    shoal_target_t one = {0}, *t = nelems == 1 ? &one : malloc(nelems * sizeof *t);
    if (!t) {
        shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
        return fail_value;
    }
    size_t result = fail_value;
    if (!resolve_all(ivars, nelems, status, ty, t)) goto out;
    if (kind == WAIT_SOME && !indices) {
        shoal__fail(SHOAL_ERR_INVAL, "NULL indices");
        goto out;
    }
    shoal_waiter_t w;
    shoal__waiter_init(&w);
    /* ALL: elements already seen to hold stay done (the specification allows it: a satisfied
     * condition is not re-checked). */
    char *done = NULL, one_done = 0; /* one element (test, wait_until): no allocation per call */
    if (kind == WAIT_ALL && nelems == 1) {
        done = &one_done;
    } else if (kind == WAIT_ALL) {
        done = calloc(nelems, 1);
        if (!done) {
            shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
            goto out;
        }
    }
    size_t left = taking_part, last = 0;
    /* ANY scans from just past the index it returned last time (per thread), so an element that
     * keeps satisfying the condition is returned by some call of a series (1.5: "a series of calls
     * to shmem_test_any must eventually return i"), not hidden behind a lower one that also does.
     */
    static _Thread_local size_t any_from;
    size_t from = kind == WAIT_ANY ? any_from % nelems : 0;
    for (;;) {
        size_t found = 0;
        for (size_t k = 0; k < nelems; k++) {
            size_t i = from + k < nelems ? from + k : from + k - nelems;
            if ((status && status[i]) || (done && done[i])) continue;
            uint64_t v = read_ivar((char *)ivars + i * ty.size, &t[i], ty);
            if (!holds(cmp, ty, v, operand(values, vector, i, ty))) continue;
            last = i;
            if (seen) *seen = v;
            if (kind == WAIT_ALL) {
                done[i] = 1;
                left--;
            } else if (kind == WAIT_ANY) {
                found = 1;
                break;
            } else {
                indices[found++] = i;
            }
        }
        if (kind == WAIT_ALL && left == 0) {
            result = 1;
            break;
        }
        if (kind == WAIT_ANY && found) {
            result = last;
            any_from = last + 1;
            break;
        }
        if (kind == WAIT_SOME && found) {
            result = found;
            break;
        }
        if (!block) {
            result = kind == WAIT_ALL ? 0 : fail_value;
            break;
        }
        shoal__waiter_pause(&w);
    }
    if (done != &one_done) free(done);
    if (result != fail_value && !(kind == WAIT_ALL && result == 0)) acquire(&t[last]);
out:
    if (t != &one) free(t);
    return result;
}

static size_t sync_core(wait_kind_t kind, int block, void *ivars, size_t nelems, size_t *indices,
                        const int *status, int cmp, const void *values, int vector,
                        ivar_type_t ty) {
    return sync_core_seen(kind, block, ivars, nelems, indices, status, cmp, values, vector, ty,
                          NULL);
}

/* shmem_test on one variable, which programs poll in loops of their own (612 instructions a call
 * through sync_core, session 34): my_word's case in line with no stack frame, anything else through
 * sync_core in a call of its own (pushes and pops on every poll cost a hand-off's worth on an
 * Intel Xeon, src/zcom/zcom.c). */
static __attribute__((noinline, cold)) int test_one_slow(void *ivar, int cmp, const void *value,
                                                         ivar_type_t ty) {
    return (int)sync_core(WAIT_ALL, 0, ivar, 1, NULL, NULL, cmp, value, 0, ty);
}

/* The word a single-variable test or wait reads in line: shmem__my_word's, 4 or 8 bytes, with a
 * valid comparison; NULL for every other case, which sync_core serves (and reports). */
static inline __attribute__((always_inline)) const char *my_word(void *ivar, int cmp,
                                                                 ivar_type_t ty) {
    if (ty.size < 4 || cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE) return NULL;
    return shmem__my_word(ivar, ty.size);
}

static inline __attribute__((always_inline)) uint64_t load_word(const char *a, ivar_type_t ty) {
    return ty.size == 4 ? widen(&(uint32_t){__atomic_load_n((const uint32_t *)(const void *)a,
                                                            __ATOMIC_ACQUIRE)},
                                ty)
                        : __atomic_load_n((const uint64_t *)(const void *)a, __ATOMIC_ACQUIRE);
}

static inline __attribute__((always_inline)) int test_one(void *ivar, int cmp, const void *value,
                                                          ivar_type_t ty) {
    const char *a = my_word(ivar, cmp, ty);
    if (__builtin_expect(a != NULL, 1)) return holds(cmp, ty, load_word(a, ty), widen(value, ty));
    return test_one_slow(ivar, cmp, value, ty);
}

/* wait_until and signal_wait_until on one variable: my_word's case polled in a loop of its own,
 * without sync_core's per-element bookkeeping; *seen is the value that satisfied the condition
 * (what signal_wait_until returns). 0 when the general path must serve it. */
static int wait_one(void *ivar, int cmp, const void *value, ivar_type_t ty, uint64_t *seen) {
    const char *a = my_word(ivar, cmp, ty);
    if (!a) return 0;
    uint64_t want = widen(value, ty);
    shoal_waiter_t w;
    shoal__waiter_init(&w);
    for (;;) {
        uint64_t v = load_word(a, ty);
        if (holds(cmp, ty, v, want)) {
            *seen = v;
            return 1;
        }
        shoal__waiter_pause(&w);
    }
}

#define TYPE_OF(T)                                                                                 \
    ((ivar_type_t){sizeof(T), (T)-1 < (T)1}) /* signed: not "< 0" (-Wtype-limits)                  \
                                              */

#define DEFINE_P2P(T, N)                                                                           \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value) {                                   \
        SHMEM_ENTER("shmem_" #N "_wait_until");                                                    \
        uint64_t seen;                                                                             \
        if (!wait_one(ivar, cmp, &cmp_value, TYPE_OF(T), &seen))                                   \
            sync_core(WAIT_ALL, 1, ivar, 1, NULL, NULL, cmp, &cmp_value, 0, TYPE_OF(T));           \
    }                                                                                              \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T cmp_value) {                                                 \
        SHMEM_ENTER("shmem_" #N "_wait_until_all");                                                \
        sync_core(WAIT_ALL, 1, ivars, nelems, NULL, status, cmp, &cmp_value, 0, TYPE_OF(T));       \
    }                                                                                              \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,         \
                                      T cmp_value) {                                               \
        SHMEM_ENTER("shmem_" #N "_wait_until_any");                                                \
        return sync_core(WAIT_ANY, 1, ivars, nelems, NULL, status, cmp, &cmp_value, 0,             \
                         TYPE_OF(T));                                                              \
    }                                                                                              \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,                   \
                                       const int *status, int cmp, T cmp_value) {                  \
        SHMEM_ENTER("shmem_" #N "_wait_until_some");                                               \
        return sync_core(WAIT_SOME, 1, ivars, nelems, indices, status, cmp, &cmp_value, 0,         \
                         TYPE_OF(T));                                                              \
    }                                                                                              \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,    \
                                           T *cmp_values) {                                        \
        SHMEM_ENTER("shmem_" #N "_wait_until_all_vector");                                         \
        sync_core(WAIT_ALL, 1, ivars, nelems, NULL, status, cmp, cmp_values, 1, TYPE_OF(T));       \
    }                                                                                              \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,  \
                                             T *cmp_values) {                                      \
        SHMEM_ENTER("shmem_" #N "_wait_until_any_vector");                                         \
        return sync_core(WAIT_ANY, 1, ivars, nelems, NULL, status, cmp, cmp_values, 1,             \
                         TYPE_OF(T));                                                              \
    }                                                                                              \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,            \
                                              const int *status, int cmp, T *cmp_values) {         \
        SHMEM_ENTER("shmem_" #N "_wait_until_some_vector");                                        \
        return sync_core(WAIT_SOME, 1, ivars, nelems, indices, status, cmp, cmp_values, 1,         \
                         TYPE_OF(T));                                                              \
    }                                                                                              \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value) {                                          \
        SHMEM_ENTER("shmem_" #N "_test");                                                          \
        return test_one(ivar, cmp, &cmp_value, TYPE_OF(T));                                        \
    }                                                                                              \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) {   \
        SHMEM_ENTER("shmem_" #N "_test_all");                                                      \
        return (int)sync_core(WAIT_ALL, 0, ivars, nelems, NULL, status, cmp, &cmp_value, 0,        \
                              TYPE_OF(T));                                                         \
    }                                                                                              \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,               \
                                T cmp_value) {                                                     \
        SHMEM_ENTER("shmem_" #N "_test_any");                                                      \
        return sync_core(WAIT_ANY, 0, ivars, nelems, NULL, status, cmp, &cmp_value, 0,             \
                         TYPE_OF(T));                                                              \
    }                                                                                              \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,      \
                                 int cmp, T cmp_value) {                                           \
        SHMEM_ENTER("shmem_" #N "_test_some");                                                     \
        return sync_core(WAIT_SOME, 0, ivars, nelems, indices, status, cmp, &cmp_value, 0,         \
                         TYPE_OF(T));                                                              \
    }                                                                                              \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T *cmp_values) {                                               \
        SHMEM_ENTER("shmem_" #N "_test_all_vector");                                               \
        return (int)sync_core(WAIT_ALL, 0, ivars, nelems, NULL, status, cmp, cmp_values, 1,        \
                              TYPE_OF(T));                                                         \
    }                                                                                              \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,        \
                                       T *cmp_values) {                                            \
        SHMEM_ENTER("shmem_" #N "_test_any_vector");                                               \
        return sync_core(WAIT_ANY, 0, ivars, nelems, NULL, status, cmp, cmp_values, 1,             \
                         TYPE_OF(T));                                                              \
    }                                                                                              \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                  \
                                        const int *status, int cmp, T *cmp_values) {               \
        SHMEM_ENTER("shmem_" #N "_test_some_vector");                                              \
        return sync_core(WAIT_SOME, 0, ivars, nelems, indices, status, cmp, cmp_values, 1,         \
                         TYPE_OF(T));                                                              \
    }
SHMEM_P2P_TYPES(DEFINE_P2P)

/* The library's routines behind shmem.h's in-line shmem_TYPENAME_test. */
#define DEFINE_TEST_SLOW(T, N)                                                                     \
    int shmem__##N##_test_slow(T *ivar, int cmp, T cmp_value) {                                    \
        return shmem_##N##_test(ivar, cmp, cmp_value);                                             \
    }
SHMEM_P2P_TYPES(DEFINE_TEST_SLOW)

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
    SHMEM_ENTER("shmem_signal_wait_until");
    uint64_t v = 0;
    if (wait_one(sig_addr, cmp, &cmp_value, TYPE_OF(uint64_t), &v)) return v;
    sync_core_seen(WAIT_ALL, 1, sig_addr, 1, NULL, NULL, cmp, &cmp_value, 0, TYPE_OF(uint64_t), &v);
    return v;
}

/* ---- 1.0-1.3 names --------------------------------------------------------------------------- */
#define DEFINE_OLD_WAIT(T, N)                                                                      \
    void shmem_##N##_wait(T *ivar, T cmp_value) {                                                  \
        SHMEM_ENTER("shmem_" #N "_wait");                                                          \
        sync_core(WAIT_ALL, 1, ivar, 1, NULL, NULL, SHMEM_CMP_NE, &cmp_value, 0, TYPE_OF(T));      \
    }
DEFINE_OLD_WAIT(short, short)
DEFINE_OLD_WAIT(int, int)
DEFINE_OLD_WAIT(long, long)
DEFINE_OLD_WAIT(long long, longlong)

void shmem_wait(long *ivar, long cmp_value) {
    SHMEM_ENTER("shmem_wait");
    sync_core(WAIT_ALL, 1, ivar, 1, NULL, NULL, SHMEM_CMP_NE, &cmp_value, 0, TYPE_OF(long));
}

void shmem_wait_until(long *ivar, int cmp, long cmp_value) {
    SHMEM_ENTER("shmem_wait_until");
    sync_core(WAIT_ALL, 1, ivar, 1, NULL, NULL, cmp, &cmp_value, 0, TYPE_OF(long));
}
