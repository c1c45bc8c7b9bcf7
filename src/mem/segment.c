#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mem/pool_alloc.h"
#include "segment.h"
#include "xport/mpiwin.h"

segment_t *shoal__segtab[SHOAL_MAX_SEGMENTS];
segment_t *shoal__seg_live;
segment_t *shoal__pool_seg;

static uint64_t used_ids[SHOAL_MAX_SEGMENTS / 64]; /* bit set: id in use here */
static uint16_t last_gen[SHOAL_MAX_SEGMENTS];      /* generation each id last had here */
static segment_t **dirty;                          /* segments with MPI ops outstanding */
size_t shoal__segments_ndirty; /* read without the lock by the flushes' fast path */
/* Its copy for programs: shmem.h's in-line quiet and fence read it. Exported data is reached
 * through the GOT (a program may hold a copy relocation of it), so the library's own fast paths
 * keep reading the hidden count, and only the rare changes pay for the copy. */
__attribute__((visibility("default"))) size_t shoal__segments_ndirty_exported;

static void store_ndirty(size_t n) {
    __atomic_store_n(&shoal__segments_ndirty, n, __ATOMIC_RELAXED);
    __atomic_store_n(&shoal__segments_ndirty_exported, n, __ATOMIC_RELAXED);
}
static size_t dirty_cap;
static int own_windows; /* live segments with a window of their own (SHOAL_MPI_WINDOWS) */
/* Whether this MPI's windows are in the unified memory model (a property of the library, the
 * same on every unit): -1 until the first window tells. */
static int mpi_unified = -1;
static pthread_mutex_t dirty_mu = PTHREAD_MUTEX_INITIALIZER; /* the dirty list, for threads */
static void (*complete_in_flight)(const segment_t *);        /* rma/'s handle completion */

static void (*release_hooks[SHOAL_SEGMENT_HOOKS_MAX])(segment_t *, int); /* epoch/, rbcast/ */
static int nrelease_hooks;

void shoal__segment_add_release_hook(void (*release)(segment_t *seg, int collective)) {
    if (nrelease_hooks < SHOAL_SEGMENT_HOOKS_MAX) release_hooks[nrelease_hooks++] = release;
}

static void run_release_hooks(segment_t *s, int collective) {
    for (int i = 0; i < nrelease_hooks; i++) release_hooks[i](s, collective);
}

void shoal__segment_set_free_hook(void (*complete)(const segment_t *seg)) {
    complete_in_flight = complete;
}

/* Agrees with the team on a segment id free at every member and on its next generation. */
/* Picks the lowest segment id free at every member of the team (one MPI_BOR allreduce of the
 * members' in-use bitmaps). */
static shoal_err_t agree_on_id(team_t *t, uint16_t *id) {
    static uint64_t all_used[SHOAL_MAX_SEGMENTS / 64];
    used_ids[0] |= 1; /* id 0 is the NULL pointer */
    SHOAL_MPI(
        MPI_Allreduce(used_ids, all_used, SHOAL_MAX_SEGMENTS / 64, MPI_UINT64_T, MPI_BOR, t->comm));
    int found = -1;
    for (int w = 0; w < SHOAL_MAX_SEGMENTS / 64 && found < 0; w++)
        if (~all_used[w]) found = w * 64 + __builtin_ctzll(~all_used[w]);
    if (found < 0)
        return shoal__fail(SHOAL_ERR_NOMEM,
                           "all %d segment ids are in use on some member of team %d (the limit "
                           "of live allocations per unit, pools and Shoal's own areas included; "
                           "ids are 16 bits of the global pointer, so no setting raises it)",
                           SHOAL_MAX_SEGMENTS - 1, (int)t->id);
    *id = (uint16_t)found;
    return SHOAL_OK;
}

static void release(segment_t *s) {
    if (s->pool) pool_alloc_destroy(s->pool);
    xport_shm_destroy(&s->shm);
    free(s->win_disp);
    free(s->direct);
    free(s->sizes);
    free(s->dirty_to);
    free(s->dirty_list);
    free(s);
}

static shoal_err_t create(team_t *t, size_t nbytes, seg_kind_t kind, void *adopt_base, int fresh,
                          segment_t **out);

shoal_err_t shoal__segment_create(team_t *t, size_t nbytes, seg_kind_t kind, segment_t **out) {
    return create(t, nbytes, kind, NULL, 0, out);
}

shoal_err_t shoal__segment_adopt(team_t *t, void *base, size_t nbytes, int fresh, segment_t **out) {
    return create(t, nbytes, SEG_ADOPTED, base, fresh, out);
}

static shoal_err_t create(team_t *t, size_t nbytes, seg_kind_t kind, void *adopt_base, int fresh,
                          segment_t **out) {
    /* Oversubscribed MPICH makes every collective call cost scheduler ticks, so the agreement
     * takes two: the id (bitmap OR), then one MAX over {size, ~size, generation, failure}; then
     * the node's shared memory and one allgather of the parts' displacements. */
    segment_t *s = calloc(1, sizeof *s);
    uint64_t *parts = NULL; /* the allgather below; allocated before the agreement on failure */
    int ok = s != NULL;
    if (s) {
        s->direct = calloc((size_t)t->size, sizeof *s->direct);
        s->win_disp = calloc((size_t)t->size, sizeof *s->win_disp);
        s->sizes = calloc((size_t)t->size, sizeof *s->sizes);
        s->dirty_to = calloc((size_t)t->size, sizeof *s->dirty_to);
        s->dirty_list = calloc((size_t)t->size, sizeof *s->dirty_list);
        ok = s->direct && s->win_disp && s->sizes && s->dirty_to && s->dirty_list;
        parts = malloc((size_t)t->size * 3 * sizeof *parts);
        ok = ok && parts;
        if (ok && kind == SEG_POOL) ok = pool_alloc_create(nbytes, 64, &s->pool) == 0;
    }
    uint16_t id = 0;
    shoal_err_t err = agree_on_id(t, &id);
    if (err != SHOAL_OK) {
        if (s) release(s);
        free(parts);
        return err;
    }
    int symmetric = kind != SEG_POOL;
    /* A window of its own while every member is under SHOAL_MPI_WINDOWS (the fast MPI path), else
     * an attachment to the team's dynamic window (no communicator: defect 11). Shoal's own areas
     * on a team whose members all share this node, with the direct path on (and windows known to
     * be unified), get no window at all: every member's part is mapped here, so they are only
     * touched with loads, stores and CPU atomics (mem/resolve.h), and a window would cost the
     * team's creation two collective calls and an MPI context id per area, for nothing. */
    int windowless = kind == SEG_INTERNAL && shoal__rt.direct && t->all_on_node && mpi_unified == 1;
    uint64_t mine[6] = {symmetric ? nbytes : 0,
                        symmetric ? ~(uint64_t)nbytes : 0,
                        last_gen[id],
                        !ok,
                        own_windows >= shoal__rt.mpi_windows,
                        !windowless},
             all[6];
    int rc = MPI_Allreduce(mine, all, 6, MPI_UINT64_T, MPI_MAX, t->comm);
    if (rc != MPI_SUCCESS || all[3]) {
        if (s) release(s);
        free(parts);
        return rc != MPI_SUCCESS ? shoal__mpi_fail(rc, "MPI_Allreduce")
                                 : shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for a segment");
    }
    /* Symmetric allocations must agree on the size: a mismatch is an error on every member. */
    if (symmetric && (all[0] != nbytes || ~all[1] != nbytes)) {
        release(s);
        free(parts);
        return shoal__fail(SHOAL_ERR_INVAL,
                           "members of team %d asked for different sizes (%zu here, from %llu to "
                           "%llu)",
                           (int)t->id, nbytes, (unsigned long long)~all[1],
                           (unsigned long long)all[0]);
    }
    uint16_t gen = (uint16_t)(all[2] + 1);
    if (gen == 0) gen = 1; /* generation 0 never names a live segment */
    s->id = id;
    s->gen = gen;
    s->kind = kind;
    s->team = t;
    s->rel_is_abs = t->size == shoal__rt.nunits;
    for (int32_t r = 0; r < t->size && s->rel_is_abs; r++) s->rel_is_abs = t->abs_of_rel[r] == r;
    s->size = nbytes;
    windowless = all[5] == 0; /* every member can do without */
    s->owns_win = all[4] == 0 && !windowless;
    if (!s->owns_win && !windowless && t->win == MPI_WIN_NULL) {
        /* The team's dynamic window is made when its first attachment needs it (every member is
         * here: the choice was agreed above), not with every team: most teams never attach, and
         * a window costs a team creation 3 collectives and one of MPICH's 2,048 context ids. */
        err = xport_win_create_dynamic(t->comm, &t->win);
        if (err != SHOAL_OK) {
            release(s);
            free(parts);
            return err;
        }
    }
    s->win = s->owns_win || windowless ? MPI_WIN_NULL : t->win;

    /* Node-shared memory (agreed over the node), then my part attached to the team's window; one
     * allgather tells every member each part's displacement (and, for pools, size) and whether
     * any member failed, so all fail together. */
    err = adopt_base
              ? xport_shm_adopt(t->node_comm, adopt_base, nbytes, fresh, shoal__rt.direct, &s->shm)
              : xport_shm_create(t->node_comm, nbytes, symmetric, &s->shm);
    MPI_Aint disp = 0;
    int attached = 0;
    if (err == SHOAL_OK) {
        int node_rank;
        MPI_Comm_rank(t->node_comm, &node_rank);
        s->my_base = s->shm.part_base[node_rank];
        if (s->win != MPI_WIN_NULL) {
            err = xport_win_attach(s->win, s->my_base, nbytes, &disp);
            attached = err == SHOAL_OK;
        }
    }
    uint64_t me3[3] = {(uint64_t)disp, nbytes, err != SHOAL_OK};
    rc = MPI_Allgather(me3, 3, MPI_UINT64_T, parts, 3, MPI_UINT64_T, t->comm);
    int other_failed = 0;
    for (int32_t r = 0; rc == MPI_SUCCESS && r < t->size; r++) {
        other_failed |= parts[3 * r + 2] != 0;
        s->win_disp[r] = s->owns_win ? 0 : (MPI_Aint)parts[3 * r];
        s->sizes[r] = (size_t)parts[3 * r + 1]; /* symmetric: nbytes everywhere (agreed above) */
    }
    free(parts);
    if (rc != MPI_SUCCESS || other_failed || err != SHOAL_OK) {
        if (attached) xport_win_detach(s->win, s->my_base, nbytes);
        release(s);
        if (err != SHOAL_OK) return err;
        return rc != MPI_SUCCESS
                   ? shoal__mpi_fail(rc, "MPI_Allgather")
                   : shoal__fail(SHOAL_ERR_NOMEM,
                                 "another member of team %d could not create or attach its "
                                 "part (see its message)",
                                 (int)t->id);
    }
    if (s->owns_win) { /* collective: every member got here */
        err = xport_win_create(s->my_base, nbytes, t->comm, &s->win);
        if (err != SHOAL_OK) {
            release(s);
            return err;
        }
        own_windows++;
    }
    /* Loads and stores may only bypass MPI when the window's memory model is unified. */
    /* (A property of the MPI library, the same on every member: no agreement needed.) */
    if (s->win != MPI_WIN_NULL) {
        int *model = NULL, flag = 0;
        MPI_Win_get_attr(s->win, MPI_WIN_MODEL, &model, &flag);
        mpi_unified = flag && *model == MPI_WIN_UNIFIED;
    }
    int unified = s->win == MPI_WIN_NULL || mpi_unified == 1; /* NULL: no MPI */
    int direct = shoal__rt.direct && unified;
    if (shoal__rt.direct && !unified)
        shoal__warn("segment %u: MPI window is not in the unified memory model: direct path off",
                    (unsigned)id);
    for (int32_t r = 0; r < t->size; r++) {
        int nr = t->node_rank_of_rel[r];
        s->direct[r] = (direct && nr >= 0) ? s->shm.part_base[nr] : NULL;
    }
    s->atomics_direct = direct && t->all_on_node;
    if (!s->atomics_direct) shoal__rt.mpi_rma = 1; /* (set only here; a collective call) */

    used_ids[id / 64] |= 1ULL << (id % 64);
    last_gen[id] = gen;
    shoal__segtab[id] = s;
    s->next = shoal__seg_live;
    if (s->next) s->next->prev = s;
    shoal__seg_live = s;
    *out = s;
    return SHOAL_OK;
}

/* Completes s's outstanding MPI operations, member by member, and forgets them. Not
 * MPI_Win_flush_all: MPICH 4.0.2 (ch4/UCX) at 3-4 processes sometimes returns from it with an
 * MPI_Get's data not all landed (tools/mpi-checks/flush_all_get.c) or, in test_fence_hazard, the
 * tail of a 512 KiB MPI_Put missing for good (about 1 run in 80); a flush per member never
 * showed either. Caller holds dirty_mu. */
static int flush_members(segment_t *s) {
    int rc = MPI_SUCCESS;
    int32_t k = 0;
    for (; k < s->ndirty_to && rc == MPI_SUCCESS; k++) {
        const int32_t rel = s->dirty_list[k];
        rc = MPI_Win_flush(rel, s->win);
        __atomic_store_n(&s->dirty_to[rel], 0, __ATOMIC_RELEASE);
    }
    /* On a failure the members not reached stay listed. */
    memmove(s->dirty_list, s->dirty_list + k, (size_t)(s->ndirty_to - k) * sizeof *s->dirty_list);
    s->ndirty_to -= k;
    return rc;
}

static void unlink_segment(segment_t *s) {
    if (s == shoal__pool_seg) shoal__pool_seg = NULL;
    if (s->prev)
        s->prev->next = s->next;
    else
        shoal__seg_live = s->next;
    if (s->next) s->next->prev = s->prev;
    pthread_mutex_lock(&dirty_mu);
    if (s->dirty) { /* move the last dirty segment into its slot */
        size_t last = shoal__segments_ndirty - 1;
        dirty[s->dirty_slot] = dirty[last];
        store_ndirty(last);
        dirty[s->dirty_slot]->dirty_slot = s->dirty_slot;
        s->dirty = 0;
    }
    pthread_mutex_unlock(&dirty_mu);
    shoal__segtab[s->id] = NULL;
    used_ids[s->id / 64] &= ~(1ULL << (s->id % 64));
}

/* Gone from the table first (no call can reach it any more), then out of MPI and unmapped. An
 * attachment is detached (the caller made sure no member still accesses it); a window of its own
 * is freed (collective over the team, and MPI_Win_free waits for every member's operations). */
static shoal_err_t detach_and_release(segment_t *s) {
    unlink_segment(s);
    shoal_err_t err;
    if (s->owns_win) {
        err = xport_win_free(&s->win);
        own_windows--;
    } else {
        err = xport_win_detach(s->win, s->my_base, s->size);
    }
    release(s);
    return err;
}

shoal_err_t shoal__segment_free(segment_t *s) {
    if (complete_in_flight) complete_in_flight(s); /* handles still in flight on it */
    run_release_hooks(s, 1);                       /* state of the layers above */
    shoal_err_t err = SHOAL_OK;
    if (s->owns_win) return detach_and_release(s); /* MPI_Win_free synchronises */
    if (s->dirty) { /* my MPI operations complete at their targets before anybody detaches */
        pthread_mutex_lock(&dirty_mu);
        int rc = flush_members(s);
        pthread_mutex_unlock(&dirty_mu);
        if (rc != MPI_SUCCESS) err = shoal__mpi_fail(rc, "MPI_Win_flush");
    }
    /* Every member's operations on it are complete before any detaches. Without a window there
     * is nothing to detach and no operation in flight: a member's loads and stores are done when it
     * calls this, and one still working in my part uses its own mapping, which outlives mine. */
    int rc = s->win == MPI_WIN_NULL ? MPI_SUCCESS : MPI_Barrier(s->team->comm);
    if (rc != MPI_SUCCESS && err == SHOAL_OK) err = shoal__mpi_fail(rc, "MPI_Barrier");
    shoal_err_t e = detach_and_release(s);
    return err != SHOAL_OK ? err : e;
}

/* Live segments of a team (or all), in ascending id order; users_only: the program's own
 * allocations (listed before any is freed: freeing one also frees its fence state's segment). */
static int by_id(const void *a, const void *b) {
    int x = (*(segment_t *const *)a)->id, y = (*(segment_t *const *)b)->id;
    return (x > y) - (x < y);
}

static size_t collect(team_t *t, int users_only, segment_t ***out) {
    size_t n = 0;
    for (segment_t *s = shoal__seg_live; s; s = s->next)
        if (!t || s->team == t) n++;
    segment_t **v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return 0;
    n = 0;
    /* The live list, not the whole id table: a team's destruction costs its own segments, not a
     * walk over SHOAL_MAX_SEGMENTS ids (about 30 us of every team destroy). */
    for (segment_t *s = shoal__seg_live; s; s = s->next) {
        /* sync/ and coll/ free their own areas, and adopted memory is freed by its adopter */
        if (users_only && (s->kind == SEG_INTERNAL || s->kind == SEG_ADOPTED)) continue;
        if (!t || s->team == t) v[n++] = s;
    }
    qsort(v, n, sizeof *v, by_id);
    *out = v;
    return n;
}

shoal_err_t shoal__segments_free_team(team_t *t) {
    segment_t **v = NULL;
    size_t n = collect(t, 1, &v);
    shoal_err_t err = SHOAL_OK;
    for (size_t i = 0; i < n; i++) {
        shoal_err_t e = shoal__segment_free(v[i]);
        if (err == SHOAL_OK) err = e;
    }
    free(v);
    return err;
}

void shoal__segments_finalize(void) {
    segment_t **v = NULL;
    size_t n = collect(NULL, 0, &v);
    /* shoal_finalize's barrier completed every operation: attachments need no further
     * synchronisation (finalize stays linear in their number); windows of their own are freed
     * collectively, in this global id order. */
    for (size_t i = 0; i < n; i++) {
        if (v[i]->team->sync_seg == v[i]) v[i]->team->sync_seg = NULL;
        if (complete_in_flight) complete_in_flight(v[i]);
        run_release_hooks(v[i], 0);
        detach_and_release(v[i]);
    }
    free(v);
    free(dirty);
    dirty = NULL;
    store_ndirty(0);
    dirty_cap = 0;
}

shoal_err_t shoal__settle_slow(segment_t *s) {
    shoal_err_t (*unsettled)(segment_t *) = __atomic_load_n(&s->unsettled, __ATOMIC_ACQUIRE);
    return unsettled ? unsettled(s) : SHOAL_OK;
}

void shoal__segment_mark_dirty_slow(segment_t *s, int32_t rel) {
    /* Threads (SHOAL_THREAD_MULTIPLE) may issue MPI operations at once: the lists have a lock. */
    pthread_mutex_lock(&dirty_mu);
    if (!s->dirty) {
        if (shoal__segments_ndirty == dirty_cap) {
            size_t cap = dirty_cap ? dirty_cap * 2 : 16;
            segment_t **d = realloc(dirty, cap * sizeof *d);
            if (!d) { /* cannot track: complete now instead */
                MPI_Win_flush(rel, s->win);
                pthread_mutex_unlock(&dirty_mu);
                return;
            }
            dirty = d;
            dirty_cap = cap;
        }
        s->dirty_slot = shoal__segments_ndirty;
        dirty[shoal__segments_ndirty] = s;
        store_ndirty(shoal__segments_ndirty + 1);
        __atomic_store_n(&s->dirty, 1, __ATOMIC_RELEASE);
    }
    if (!s->dirty_to[rel]) {
        s->dirty_list[s->ndirty_to++] = rel;
        __atomic_store_n(&s->dirty_to[rel], 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&dirty_mu);
}

shoal_err_t shoal__segments_flush(shoal_unit_t unit) {
    /* Nothing outstanding (always so on the direct path): no lock. What this thread issued marked
     * its segment dirty before this call, so it is seen here; the count is written under the lock
     * with atomic stores so this read is not a data race. */
    if (__atomic_load_n(&shoal__segments_ndirty, __ATOMIC_RELAXED) == 0) return SHOAL_OK;
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&dirty_mu);
    if (unit < 0) {
        /* Flushed segments leave the list; on a failure the rest stay listed. */
        size_t i = 0;
        for (; i < shoal__segments_ndirty && rc == MPI_SUCCESS; i++) {
            rc = flush_members(dirty[i]);
            if (rc == MPI_SUCCESS) __atomic_store_n(&dirty[i]->dirty, 0, __ATOMIC_RELEASE);
        }
        if (rc != MPI_SUCCESS) i--; /* the one that failed keeps its unflushed members */
        size_t left = shoal__segments_ndirty - i;
        if (left) memmove(dirty, dirty + i, left * sizeof *dirty); /* dirty may be NULL */
        for (size_t k = 0; k < left; k++) dirty[k]->dirty_slot = k;
        store_ndirty(left);
    } else {
        for (size_t i = 0; i < shoal__segments_ndirty && rc == MPI_SUCCESS; i++) {
            int32_t rel = dirty[i]->team->rel_of_abs[unit];
            if (rel >= 0 && dirty[i]->dirty_to[rel]) rc = MPI_Win_flush(rel, dirty[i]->win);
        }
    }
    pthread_mutex_unlock(&dirty_mu);
    return rc == MPI_SUCCESS ? SHOAL_OK : shoal__mpi_fail(rc, "MPI_Win_flush");
}
