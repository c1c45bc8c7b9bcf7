/* Small per-object control words of the layers above (a fence state's counters, a one-sided
 * broadcast's request words): one block of each member's pool, so making them costs an
 * allgather instead of a window of their own (creating an MPI window took 70-130 ms at 4
 * processes on MPICH, 1 s at 9). The words take the pool segment's atomic mechanism (decision 4),
 * as every word in the pool does. */
#ifndef SHOAL_MEM_WORDS_H
#define SHOAL_MEM_WORDS_H

#include "resolve.h"

typedef struct {
    segment_t *pool; /* the pool segment (team of all units) */
    team_t *team;    /* the members */
    uint64_t *offs;  /* [team size] each member's block in its pool */
} shoal_words_t;

/* Collective over team: bytes of zeroed words on every member. Fails on every member when one
 * member's pool has no room (SHOAL_ERR_NOMEM, naming SHOAL_POOL_SIZE). */
shoal_err_t shoal__words_create(team_t *team, size_t bytes, shoal_words_t *w);
/* Local. give_back 1: my block returns to my pool (the caller made sure nobody touches it any
 * more); 0 at finalize, when the pool itself may be gone already. */
void shoal__words_release(shoal_words_t *w, int give_back);

/* Byte off of member rel's words. */
static inline shoal_target_t shoal__words_at(const shoal_words_t *w, int32_t rel, size_t off) {
    return shoal__target_at(w->pool, w->team->abs_of_rel[rel], (size_t)w->offs[rel] + off);
}

#endif
