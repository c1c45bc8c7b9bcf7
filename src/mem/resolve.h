/* THE dispatch point (ARCHITECTURE.md decision 1): a global pointer resolves, here and nowhere
 * else, to a local address (target mapped into this process) or to an MPI window, rank and
 * displacement. Every RMA, atomic and signal operation goes through shoal__resolve, which also
 * performs every validity and bounds check on the pointer. */
#ifndef SHOAL_MEM_RESOLVE_H
#define SHOAL_MEM_RESOLVE_H

#include "segment.h"

typedef struct {
    segment_t *seg;
    char *addr;    /* target bytes mapped here, or NULL: use MPI */
    int32_t rank;  /* target's rank in seg->team->comm (and in seg->win) */
    MPI_Aint disp; /* the target bytes' displacement in seg->win (dynamic: the target's address) */
} shoal_target_t;

/* The target for Shoal's own words and buffers (signal areas, lock words, collective flags and
 * scratch): byte disp of team member rel's part of s. Unchecked (the caller owns the layout);
 * the one place that decides whether it is mapped here. Whether the word may be touched with CPU
 * atomics is s->atomics_direct, never addr alone: in a team that spans nodes a same-node peer is
 * mapped, but its words are read by other members with MPI atomics. */
static inline shoal_target_t shoal__target_at(segment_t *s, int32_t rel, size_t disp) {
    shoal_target_t t = {s, s->direct[rel] ? s->direct[rel] + disp : NULL, rel,
                        s->win_disp[rel] + (MPI_Aint)disp};
    return t;
}

/* gp (nbytes from it) in a symmetric allocation: one a team made collectively
 * (shoal_team_memalloc) or adopted (OpenSHMEM symmetric memory), never a pool block, which has
 * no counterpart on the other members. what names gp in the message (a constant: "dest"). */
shoal_err_t shoal__resolve_symmetric(shoal_gptr_t gp, size_t nbytes, const char *what,
                                     segment_t **seg);
/* The same, and this unit is a member of the allocation's team. */
shoal_err_t shoal__resolve_symmetric_member(shoal_gptr_t gp, size_t nbytes, const char *what,
                                            segment_t **seg);

/* Slow path: works out and reports exactly what is wrong with gp. */
shoal_err_t shoal__resolve_fail(shoal_gptr_t gp, size_t nbytes);

static inline shoal_err_t shoal__resolve(shoal_gptr_t gp, size_t nbytes, shoal_target_t *t) {
    segment_t *s = shoal__segtab[gp.segid]; /* entry 0 (the NULL pointer) is always empty */
    if (__builtin_expect(!s || s->gen != gp.flags || gp.unit >= (uint32_t)shoal__rt.nunits, 0))
        return shoal__resolve_fail(gp, nbytes);
    int32_t rel = s->rel_is_abs ? (int32_t)gp.unit : s->team->rel_of_abs[gp.unit];
    if (__builtin_expect(rel < 0, 0)) return shoal__resolve_fail(gp, nbytes);
    size_t part = shoal__segment_part_size(s, rel);
    if (__builtin_expect(gp.offset > part || nbytes > part - gp.offset, 0))
        return shoal__resolve_fail(gp, nbytes);
    /* My own pool: the allocator knows the block, so check against it (freed, overrun). */
    if (__builtin_expect(s->kind == SEG_POOL && gp.unit == (uint32_t)shoal__rt.myid && nbytes, 0)) {
        shoal_err_t e = shoal__resolve_fail(gp, nbytes); /* SHOAL_OK when the block is fine */
        if (e != SHOAL_OK) return e;
    }
    t->seg = s;
    t->rank = rel;
    t->disp = s->win_disp[rel] + (MPI_Aint)gp.offset;
    t->addr = s->direct[rel] ? s->direct[rel] + gp.offset : NULL;
    return SHOAL_OK;
}

#endif
