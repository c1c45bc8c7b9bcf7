/* Segments: every collective allocation, each unit's pool, and each team's signal area is a
 * segment. Its memory is allocated once in node-shared memory (xport/shm) and exposed through an
 * MPI window of its own (up to SHOAL_MPI_WINDOWS) or attached to its team's dynamic window, so
 * both paths see the same bytes; Shoal's own areas on a team all on one node, with the direct
 * path on, have no window (nothing would use it: win is MPI_WIN_NULL, owns_win 0). */
#ifndef SHOAL_MEM_SEGMENT_H
#define SHOAL_MEM_SEGMENT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "team/team.h"
#include "xport/shm.h"

#define SHOAL_MAX_SEGMENTS 65536

/* SEG_ADOPTED: symmetric memory the process already had, shared in place (the OpenSHMEM face's
 * heap and the program's global variables): used like a collective allocation, freed only by
 * whoever adopted it. */
typedef enum { SEG_COLLECTIVE = 0, SEG_POOL = 1, SEG_INTERNAL = 2, SEG_ADOPTED = 3 } seg_kind_t;

struct pool_alloc;
struct epoch;
struct rb_space;

typedef struct segment {
    uint16_t id;
    uint16_t gen; /* travels in the gptr's flags: a pointer into a freed segment is recognised */
    seg_kind_t kind;
    int rel_is_abs; /* the team is every unit in order: a member's rank is its unit id (the
                       resolve path then skips the team's table, a dependent load) */
    team_t *team;
    size_t size;         /* my part's bytes (every member's, unless sizes is set) */
    size_t *sizes;       /* [team size] each member's part size (they differ for pools only; one
                            load on the resolve path instead of a test) */
    xport_shm_t shm;     /* the node-shared memory */
    char *my_base;       /* my part in this process */
    char **direct;       /* [team size] each member's part mapped here, NULL when not reachable */
    int atomics_direct;  /* decision 4: CPU atomics only when every member is reachable directly */
    MPI_Win win;         /* its own window, or the team's dynamic one (my part attached to it) */
    int owns_win;        /* 1: win is this segment's (SHOAL_MPI_WINDOWS); 0: the team's */
    MPI_Aint *win_disp;  /* [team size] where each member's part starts in win (0 when owned) */
    int dirty;           /* MPI operations issued since the last flush (on the dirty list) */
    uint8_t *dirty_to;   /* [team size] 1: MPI operations issued to that member since then */
    int32_t *dirty_list; /* [team size] the members with dirty_to set, in first-issue order */
    int32_t ndirty_to;
    struct pool_alloc *pool; /* SEG_POOL: the allocator of my part */
    struct epoch *epoch;     /* fence state once the allocation was fenced (rma/epoch.h) */
    /* Set while the last fence's round 2 may not be over at every member (epoch/exchange.c): an
     * operation through MPI on this allocation calls it first (shoal__settle). Mostly NULL. */
    shoal_err_t (*unsettled)(struct segment *seg);
    struct rb_space *rbcast;     /* registered for one-sided broadcasts (rbcast/space.h) */
    struct segment *next, *prev; /* list of live segments (unlinking is O(1)) */
    size_t dirty_slot;           /* index in the dirty list while dirty */
} segment_t;

/* Before an operation through MPI on s (never on the direct path: the instruction budget): after
 * a fence whose last round is not known to be over everywhere (the exchange's APPLIED words,
 * epoch/exchange.c), wait until it is, since the target may still be copying the fence's carried
 * puts into its part. The test is one load; the call out of line. */
__attribute__((cold, noinline)) shoal_err_t shoal__settle_slow(segment_t *s);
static inline shoal_err_t shoal__settle(segment_t *s) {
    if (__builtin_expect(__atomic_load_n(&s->unsettled, __ATOMIC_ACQUIRE) == NULL, 1))
        return SHOAL_OK;
    return shoal__settle_slow(s);
}

extern segment_t *shoal__segtab[SHOAL_MAX_SEGMENTS];
extern segment_t *shoal__seg_live;
extern segment_t *shoal__pool_seg; /* my pool: non-collective allocations */

/* Collective over team: every member passes the same nbytes (pools: any). */
shoal_err_t shoal__segment_create(team_t *team, size_t nbytes, seg_kind_t kind, segment_t **out);
/* Collective over team: makes [base, base + nbytes) of every member (page aligned, the same
 * nbytes everywhere) a symmetric segment of kind SEG_ADOPTED, mapped by the node's peers when the
 * direct path is on. fresh: the range is an unused reservation and becomes zeroed shared memory;
 * else its pages are shared with their contents (xport_shm_adopt). Freeing it gives the range
 * back (fresh: unmapped; else private again, contents kept). */
shoal_err_t shoal__segment_adopt(team_t *team, void *base, size_t nbytes, int fresh,
                                 segment_t **out);
/* Collective over the segment's team: completes my operations on it, waits until every member
 * has (a barrier), then detaches and unmaps it. */
shoal_err_t shoal__segment_free(segment_t *seg);
/* Collective over team: frees every user allocation that lives on it. */
shoal_err_t shoal__segments_free_team(team_t *team);
/* Collective over all units, in ascending segment id (a global order, so no deadlock). */
void shoal__segments_finalize(void);

static inline size_t shoal__segment_part_size(const segment_t *s, int32_t rel) {
    return s->sizes[rel];
}

/* Called first when a segment is freed, to complete the operations still in flight on it (rma/
 * registers its handle completion at init: mem/ never calls up). */
void shoal__segment_set_free_hook(void (*complete)(const segment_t *seg));

/* State the upper layers hang on a segment (fence state, one-sided broadcast registration) is
 * dropped by release hooks, run when the segment is freed, before anything else: collective is 1
 * inside the collective free (a hook may free segments of its own then), 0 at finalize (host
 * memory only: the finalize loop releases every segment itself). A hook returns at once when
 * its field is unset. Registered by lifecycle/. */
#define SHOAL_SEGMENT_HOOKS_MAX 4
void shoal__segment_add_release_hook(void (*release)(segment_t *seg, int collective));

/* Remember that MPI operations on seg to member rel (its rank in seg's window) may be outstanding:
 * the next flush completes them with MPI_Win_flush to that member. In line: every operation
 * through MPI calls it, and after the first one to a member it is one load (the flag is read
 * without the lists' lock only to skip it: a member listed implies the segment listed). */
void shoal__segment_mark_dirty_slow(segment_t *seg, int32_t rel);
static inline void shoal__segment_mark_dirty(segment_t *seg, int32_t rel) {
    if (!__atomic_load_n(&seg->dirty_to[rel], __ATOMIC_ACQUIRE))
        shoal__segment_mark_dirty_slow(seg, rel);
}
/* Completes outstanding MPI operations on every dirty segment (to one unit, or all when -1). */
shoal_err_t shoal__segments_flush(shoal_unit_t unit);
/* How many segments have MPI operations outstanding (0: a flush has nothing to do). Written
 * under the dirty list's lock with atomic stores, so a relaxed read here is not a data race. */
extern size_t shoal__segments_ndirty;
static inline int shoal__segments_clean(void) {
    return __atomic_load_n(&shoal__segments_ndirty, __ATOMIC_RELAXED) == 0;
}

#endif
