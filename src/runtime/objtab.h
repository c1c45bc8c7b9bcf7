/* The table behind Shoal's opaque objects (locks, groups, one-sided broadcast requests; the
 * non-blocking handles keep their own pool with the same token layout: rma/handle_pool.h).
 *
 * A program only ever holds a token, never a pointer into Shoal's memory: the token names a slot
 * of this table, the slot's generation at the time the object was made, and the object's kind.
 * Looking a token up reads only the table, so a destroyed object, a stale copy of a recycled
 * handle, a lock of a destroyed team, or a made-up value is recognised without touching freed
 * memory (the ABA and use-after-free defects of raw pointers). Tokens travel in the public
 * pointer types (shoal_handle_t, shoal_lock_t, shoal_group_t), so the ABI is unchanged.
 *
 * Token layout (64-bit): bits 0-3 kind, bits 4-27 slot + 1 (up to 16M live objects), bits 28-59
 * the slot's generation (32 bits, never reused within a run in practice). 0 is never a token.
 * The table is protected by a mutex (under SHOAL_THREAD_MULTIPLE, or before shoal_init): any
 * thread may then create, look up and destroy objects. */
#ifndef SHOAL_RUNTIME_OBJTAB_H
#define SHOAL_RUNTIME_OBJTAB_H

#include <stdint.h>

typedef enum {
    OBJ_HANDLE = 1, /* kept in a pool of their own (rma/handle_pool.c), not in this table */
    OBJ_LOCK = 2,
    OBJ_GROUP = 3,
    OBJ_RB_REQ = 4,  /* a one-sided broadcast's request (rbcast/) */
    OBJ_RB_SPACE = 5 /* a registration for one-sided broadcasts (rbcast/) */
} obj_kind_t;

typedef enum {
    OBJ_LIVE = 0,  /* the token names a live object of the kind asked for */
    OBJ_STALE = 1, /* it named one once: destroyed, completed or released since */
    OBJ_BAD = 2    /* never a token of this kind (garbage, another kind, or NULL) */
} obj_status_t;

/* The token layout, shared with tables of their own (the non-blocking handles' pool,
 * rma/handle_pool.c, whose records are their slots). */
#define OBJTAB_KIND_BITS 4
#define OBJTAB_SLOT_BITS 24
#define OBJTAB_GEN_BITS  32
#define OBJTAB_MAX_SLOTS ((1u << OBJTAB_SLOT_BITS) - 2) /* slot + 1 must fit, and never be 0 */

static inline uintptr_t objtab_make_token(obj_kind_t kind, uint32_t slot, uint32_t gen) {
    return (uintptr_t)kind | ((uintptr_t)(slot + 1) << OBJTAB_KIND_BITS) |
           ((uintptr_t)gen << (OBJTAB_KIND_BITS + OBJTAB_SLOT_BITS));
}

/* Splits a token of kind: 0 when it cannot name a slot below nslots. */
static inline int objtab_split_token(uintptr_t token, obj_kind_t kind, uint32_t nslots,
                                     uint32_t *slot, uint32_t *gen) {
    if (sizeof(uintptr_t) < 8) return 0; /* 64-bit platforms only (see CMake) */
    if ((token & ((1u << OBJTAB_KIND_BITS) - 1)) != (uintptr_t)kind) return 0;
    if (token >> (OBJTAB_KIND_BITS + OBJTAB_SLOT_BITS + OBJTAB_GEN_BITS)) return 0; /* top 0 */
    uint32_t s = (uint32_t)((token >> OBJTAB_KIND_BITS) & ((1u << OBJTAB_SLOT_BITS) - 1));
    if (s == 0 || s > nslots) return 0;
    *slot = s - 1;
    *gen = (uint32_t)(token >> (OBJTAB_KIND_BITS + OBJTAB_SLOT_BITS));
    return 1;
}

/* Registers obj and returns its token, or 0 when out of host memory (or slots). */
uintptr_t objtab_insert(obj_kind_t kind, void *obj);
/* The object behind token (kind must match): OBJ_LIVE and *obj set, or why not. */
obj_status_t objtab_lookup(obj_kind_t kind, uintptr_t token, void **obj);
/* Ends the token's life: later lookups of it say OBJ_STALE. Returns the object, or NULL when the
 * token was not live (then nothing changes). */
void *objtab_remove(obj_kind_t kind, uintptr_t token);
/* Calls fn on every live object of kind and removes it (finalize: nothing is leaked). */
void objtab_drain(obj_kind_t kind, void (*fn)(void *obj));
/* Number of live objects of kind (tests). */
size_t objtab_count(obj_kind_t kind);
/* Frees the table itself once every kind is drained (finalize). */
void objtab_release(void);

#endif
