/* The records behind non-blocking handles (nb.c), in a pool of their own.
 *
 * A handle is the cheapest opaque object Shoal makes, and one is made per non-blocking call
 * through MPI, so it does not go through the general table (runtime/objtab.c): its record is its
 * own slot. Records live in chunks that never move; a free list recycles them, and each release
 * bumps the record's generation, so the program's token (runtime/objtab.h's layout, kind
 * OBJ_HANDLE) of an earlier occupant is recognised as stale without touching freed memory, and a
 * made-up value is rejected by its slot number alone. Taking a record is a pop and a few stores;
 * the live records are found by a scan of the pool (only segment free and finalize need them).
 *
 * Not thread-safe by itself: nb.c holds its lock around every call under SHOAL_THREAD_MULTIPLE. */
#ifndef SHOAL_RMA_HANDLE_POOL_H
#define SHOAL_RMA_HANDLE_POOL_H

#include <mpi.h>
#include <stdint.h>

#include "mem/segment.h"
#include "runtime/objtab.h"

typedef struct nb_record {
    uint32_t gen;  /* bumped whenever the record is released */
    uint32_t slot; /* its own index in the pool */
    uint32_t next_free;
    uint8_t live; /* 1 from take to release */
    uint8_t is_put;
    uint8_t done; /* completed early (its segment was freed): wait/test only release it */
    int32_t rank; /* the target, relative to seg's team */
    MPI_Request req;
    const segment_t *seg;
} nb_record_t;

/* A record, live, its fields to be set by the caller (done = 0); NULL when out of memory. */
nb_record_t *handle_pool_take(void);
/* Ends the record's life: its token is stale from now on. */
void handle_pool_release(nb_record_t *r);
/* The program's name for a live record. */
static inline uintptr_t handle_pool_token(const nb_record_t *r) {
    return objtab_make_token(OBJ_HANDLE, r->slot, r->gen);
}
/* The live record behind token, or why not (OBJ_STALE: it named one once). */
obj_status_t handle_pool_find(uintptr_t token, nb_record_t **r);
/* Number of records in the pool, live or not, and the one at slot (for scans: check ->live). */
uint32_t handle_pool_size(void);
nb_record_t *handle_pool_at(uint32_t slot);
/* Frees the pool (finalize, with nothing live). */
void handle_pool_release_all(void);

#endif
