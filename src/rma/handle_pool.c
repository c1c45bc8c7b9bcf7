/* The non-blocking handles' pool: see handle_pool.h. */
#include "handle_pool.h"

#include <stdlib.h>

#define CHUNK_BITS 8 /* 256 records per chunk */
#define CHUNK      (1u << CHUNK_BITS)
#define NO_SLOT    UINT32_MAX

static nb_record_t **chunks; /* chunks[i] holds slots i*CHUNK .. i*CHUNK + CHUNK-1 */
static uint32_t nchunks, chunk_cap;
static uint32_t nrecords; /* records made so far: slots 0 .. nrecords-1 */
static uint32_t free_head = NO_SLOT;

nb_record_t *handle_pool_at(uint32_t slot) {
    return &chunks[slot >> CHUNK_BITS][slot & (CHUNK - 1)];
}

uint32_t handle_pool_size(void) {
    return nrecords;
}

/* Adds a chunk of free records; 0 when out of memory (or slots). */
static int grow(void) {
    if ((uint64_t)(nchunks + 1) * CHUNK > OBJTAB_MAX_SLOTS) return 0;
    if (nchunks == chunk_cap) {
        uint32_t cap = chunk_cap ? chunk_cap * 2 : 8;
        nb_record_t **c = realloc(chunks, (size_t)cap * sizeof *c);
        if (!c) return 0;
        chunks = c;
        chunk_cap = cap;
    }
    nb_record_t *recs = calloc(CHUNK, sizeof *recs);
    if (!recs) return 0;
    chunks[nchunks++] = recs;
    /* Free list in slot order, so a program with few handles in flight reuses the first ones. */
    for (uint32_t i = CHUNK; i-- > 0;) {
        recs[i].slot = nrecords + i;
        recs[i].gen = 1;
        recs[i].next_free = free_head;
        free_head = nrecords + i;
    }
    nrecords += CHUNK;
    return 1;
}

nb_record_t *handle_pool_take(void) {
    if (free_head == NO_SLOT && !grow()) return NULL;
    nb_record_t *r = handle_pool_at(free_head);
    free_head = r->next_free;
    r->live = 1;
    r->done = 0;
    return r;
}

void handle_pool_release(nb_record_t *r) {
    r->live = 0;
    r->gen++;
    r->seg = NULL;
    r->next_free = free_head;
    free_head = r->slot;
}

obj_status_t handle_pool_find(uintptr_t token, nb_record_t **out) {
    uint32_t slot, gen;
    if (!objtab_split_token(token, OBJ_HANDLE, nrecords, &slot, &gen)) return OBJ_BAD;
    nb_record_t *r = handle_pool_at(slot);
    if (r->live && r->gen == gen) {
        *out = r;
        return OBJ_LIVE;
    }
    /* An older generation of this record: the token was real once (generations only grow). */
    return gen < r->gen ? OBJ_STALE : OBJ_BAD;
}

void handle_pool_release_all(void) {
    /* Generations restart with the pool; safe because nothing is live and Shoal cannot be
     * initialised twice in one process (stale tokens stay unreachable). */
    for (uint32_t i = 0; i < nchunks; i++) free(chunks[i]);
    free(chunks);
    chunks = NULL;
    nchunks = chunk_cap = nrecords = 0;
    free_head = NO_SLOT;
}
