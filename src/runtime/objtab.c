/* Opaque-object table: see objtab.h. Slots are recycled through a free list; each recycling bumps
 * the slot's generation, so tokens of earlier occupants never match again. */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

#include "objtab.h"
#include "runtime.h"

#define KIND_MASK ((1u << OBJTAB_KIND_BITS) - 1)
#define MAX_SLOTS OBJTAB_MAX_SLOTS
#define NO_SLOT   UINT32_MAX

typedef struct {
    void *obj;          /* NULL while free */
    uint32_t gen;       /* bumped whenever an occupant leaves */
    uint8_t kind;       /* kind of the current or last occupant */
    uint32_t next_free; /* free list link */
} slot_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The lock is taken unless Shoal is initialised below SHOAL_THREAD_MULTIPLE: then one thread at a
 * time calls Shoal, and no thread of Shoal's own (relays, progress) creates or looks up objects.
 * Its two locked instructions would otherwise cost every non-blocking call on the MPI path twice
 * (a handle's insert, and its lookup and removal at completion). Without shoal_init (the plain-MPI
 * face of the one-sided broadcast) the program's threads may call at once: locked. Returns
 * whether it locked, for table_unlock. */
static int table_lock(void) {
    const int locks = !shoal__rt.initialized || shoal__rt.thread_provided >= SHOAL_THREAD_MULTIPLE;
    if (locks) pthread_mutex_lock(&lock);
    return locks;
}
static void table_unlock(int locked) {
    if (locked) pthread_mutex_unlock(&lock);
}
static slot_t *slots;
static uint32_t nslots, cap, free_head = NO_SLOT;
static size_t live_count[KIND_MASK + 1];

uintptr_t objtab_insert(obj_kind_t kind, void *obj) {
    if (!obj) return 0;
    const int locked = table_lock();
    uint32_t s = free_head;
    if (s != NO_SLOT) {
        free_head = slots[s].next_free;
    } else {
        if (nslots == cap) {
            uint32_t ncap = cap ? cap * 2 : 64;
            if (ncap > MAX_SLOTS) ncap = MAX_SLOTS;
            slot_t *n = ncap > cap ? realloc(slots, (size_t)ncap * sizeof *n) : NULL;
            if (!n) {
                table_unlock(locked);
                return 0;
            }
            slots = n;
            cap = ncap;
        }
        s = nslots++;
        slots[s].gen = 1;
    }
    slots[s].obj = obj;
    slots[s].kind = (uint8_t)kind;
    slots[s].next_free = NO_SLOT;
    live_count[kind]++;
    uintptr_t token = objtab_make_token(kind, s, slots[s].gen);
    table_unlock(locked);
    return token;
}

/* Caller holds the lock. */
static obj_status_t find(obj_kind_t kind, uintptr_t token, uint32_t *slot) {
    uint32_t s, gen;
    if (!objtab_split_token(token, kind, nslots, &s, &gen)) return OBJ_BAD;
    const slot_t *e = &slots[s];
    if (e->obj && e->gen == gen && e->kind == (uint8_t)kind) {
        *slot = s;
        return OBJ_LIVE;
    }
    /* An older generation of this slot: the token was real once (generations only grow). */
    return gen < e->gen ? OBJ_STALE : OBJ_BAD;
}

obj_status_t objtab_lookup(obj_kind_t kind, uintptr_t token, void **obj) {
    const int locked = table_lock();
    uint32_t s = 0;
    obj_status_t st = find(kind, token, &s);
    if (st == OBJ_LIVE) *obj = slots[s].obj;
    table_unlock(locked);
    return st;
}

/* Caller holds the lock. */
static void *vacate(uint32_t s) {
    void *obj = slots[s].obj;
    live_count[slots[s].kind]--;
    slots[s].obj = NULL;
    slots[s].gen++;
    slots[s].next_free = free_head;
    free_head = s;
    return obj;
}

void *objtab_remove(obj_kind_t kind, uintptr_t token) {
    const int locked = table_lock();
    uint32_t s = 0;
    void *obj = find(kind, token, &s) == OBJ_LIVE ? vacate(s) : NULL;
    table_unlock(locked);
    return obj;
}

void objtab_drain(obj_kind_t kind, void (*fn)(void *obj)) {
    const int locked = table_lock();
    for (uint32_t s = 0; s < nslots; s++) {
        if (!slots[s].obj || slots[s].kind != (uint8_t)kind) continue;
        void *obj = vacate(s);
        if (fn) fn(obj);
    }
    table_unlock(locked);
}

size_t objtab_count(obj_kind_t kind) {
    const int locked = table_lock();
    size_t n = live_count[kind];
    table_unlock(locked);
    return n;
}

void objtab_release(void) {
    const int locked = table_lock();
    int empty = 1;
    for (size_t k = 0; k <= KIND_MASK; k++) empty &= live_count[k] == 0;
    if (empty) {
        /* Generations restart with the table; that is safe only because nothing is live and
         * Shoal cannot be initialised twice in one process (stale tokens stay unreachable). */
        free(slots);
        slots = NULL;
        nslots = cap = 0;
        free_head = NO_SLOT;
    }
    table_unlock(locked);
}
