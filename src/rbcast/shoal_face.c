/* The one-sided broadcast on Shoal allocations (include/shoal.h, docs/rma_bcast.md): a
 * registration is an rb_space over the allocation's segment (landing regions) and a control
 * segment of its own on the same team; requests are object-table tokens. */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "mem/resolve.h"
#include "mem/words.h"
#include "rbcast.h"
#include "runtime/objtab.h"
#include "space.h"

static rb_space_t *live_spaces; /* this face's registrations, for finalize */

static const char *const algo_names[] = {"auto", "linear", "binomial"};

const char *shoal_rma_bcast_algo_name(shoal_rma_bcast_algo_t algo) {
    return (unsigned)algo < 3 ? algo_names[algo] : "unknown";
}

/* gp must name a symmetric allocation of a team I belong to. */
static shoal_err_t alloc_segment(shoal_gptr_t gp, size_t nbytes, segment_t **seg) {
    return shoal__resolve_symmetric_member(gp, nbytes, "the broadcast's destination", seg);
}

static shoal_err_t registered(shoal_gptr_t gp, size_t nbytes, segment_t **seg) {
    SHOAL_TRY(alloc_segment(gp, nbytes, seg));
    if (!(*seg)->rbcast)
        return shoal__fail(SHOAL_ERR_STATE, "the allocation is not registered for one-sided "
                                            "broadcasts (shoal_rma_bcast_enable)");
    return SHOAL_OK;
}

/* The face's own part of a registration: the control words and their addressing. */
typedef struct {
    shoal_words_t words;
    char **direct;   /* [size] */
    MPI_Aint *disp0; /* [size] */
    int *rank;       /* [size] */
} shoal_face_t;

static void face_free(shoal_face_t *f, int give_back) {
    if (!f) return;
    shoal__words_release(&f->words, give_back);
    free(f->direct);
    free(f->disp0);
    free(f->rank);
    free(f);
}

static void space_free(rb_space_t *sp) {
    if (!sp) return;
    if (sp->token) objtab_remove(OBJ_RB_SPACE, sp->token);
    for (rb_space_t **p = &live_spaces; *p; p = &(*p)->next)
        if (*p == sp) {
            *p = sp->next;
            break;
        }
    free(sp);
}

shoal_err_t shoal_rma_bcast_enable(shoal_gptr_t alloc) {
    SHOAL_ENTER("shoal_rma_bcast_enable");
    segment_t *seg = NULL;
    SHOAL_TRY(alloc_segment(alloc, 0, &seg));
    team_t *t = seg->team;
    shoal_err_t mine = SHOAL_OK;
    rb_space_t *sp = NULL;
    shoal_face_t *f = NULL;
    int uses_mpi = 0;
    for (int32_t r = 0; r < t->size; r++)
        if (r != t->myrel && !seg->direct[r]) uses_mpi = 1;
    if (seg->rbcast)
        mine = shoal__fail(SHOAL_ERR_STATE, "the allocation is registered already");
    else if (uses_mpi && shoal__rt.thread_level != MPI_THREAD_MULTIPLE)
        mine = shoal__fail(SHOAL_ERR_UNSUPPORTED,
                           "members of this allocation are reached through MPI, and the relay "
                           "threads then call MPI at the same time as the program: that needs "
                           "MPI_THREAD_MULTIPLE (shoal_init_thread with SHOAL_THREAD_MULTIPLE on "
                           "an MPI that gives it, e.g. MPICH; Open MPI 4.1 with osc/pt2pt does "
                           "not, see docs/design.md), or the direct path (one node, "
                           "SHOAL_DIRECT=1)");
    else if (!(sp = calloc(1, sizeof *sp)) || !(f = calloc(1, sizeof *f)) ||
             !(f->direct = calloc((size_t)t->size, sizeof *f->direct)) ||
             !(f->disp0 = calloc((size_t)t->size, sizeof *f->disp0)) ||
             !(f->rank = calloc((size_t)t->size, sizeof *f->rank)))
        mine = shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for the registration");
    else
        mine = rb_params_load(sp);
    shoal_err_t err = shoal__team_agree(t, mine, 0, "");
    if (err == SHOAL_OK) err = shoal__words_create(t, RB_CTRL_BYTES, &f->words);
    if (err != SHOAL_OK) {
        face_free(f, 0);
        free(sp);
        return err;
    }
    /* The control words live in the members' pools: their addresses, ranks in the pool's window
     * and mechanism are the pool segment's. */
    for (int32_t r = 0; r < t->size; r++) {
        shoal_target_t w = shoal__words_at(&f->words, r, 0);
        f->direct[r] = w.addr;
        f->disp0[r] = w.disp;
        f->rank[r] = w.rank;
    }
    sp->size = t->size;
    sp->me = t->myrel;
    sp->data_win = seg->win;
    sp->data_direct = seg->direct;
    sp->data_disp0 = seg->win_disp;
    sp->data_unit = 1;
    sp->data_size = seg->sizes;
    sp->my_data = seg->my_base;
    sp->ctrl_win = f->words.pool->win;
    sp->ctrl_direct = f->direct;
    sp->ctrl_disp0 = f->disp0;
    sp->ctrl_rank = f->rank;
    sp->ctrl_mine = f->words.pool->my_base + f->words.offs[t->myrel];
    sp->ctrl_cpu = f->words.pool->atomics_direct;
    sp->uses_mpi = uses_mpi || !sp->ctrl_cpu;
    sp->face = f;
    sp->next = live_spaces;
    live_spaces = sp;
    sp->token = objtab_insert(OBJ_RB_SPACE, sp);
    err = sp->token ? rb_relay_start(sp)
                    : shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for the registration");
    if (err != SHOAL_OK) { /* nobody was told about the words: they can go back */
        face_free(f, 1);
        space_free(sp);
        return err;
    }
    seg->rbcast = sp;
    return SHOAL_OK;
}

void shoal__rbcast_release(segment_t *seg, int collective) {
    rb_space_t *sp = seg->rbcast;
    if (!sp) return;
    seg->rbcast = NULL;
    /* A broadcast in flight needs every relay: wait for it before stopping mine. */
    if (collective) rb_quiesce(sp);
    rb_relay_stop(sp);
    /* Collective: every member has quiesced, but another's last DONE add or request may still be
     * on its way to my words; a barrier first, then they go back to my pool. At finalize the pool
     * may be gone already. */
    if (collective) shoal__coll_barrier(seg->team);
    face_free((shoal_face_t *)sp->face, collective);
    space_free(sp);
}

shoal_err_t shoal_rma_bcast_disable(shoal_gptr_t alloc) {
    SHOAL_ENTER("shoal_rma_bcast_disable");
    segment_t *seg = NULL;
    SHOAL_TRY(registered(alloc, 0, &seg));
    SHOAL_TRY(
        shoal__team_agree(seg->team, SHOAL_OK, (uint64_t)seg->id << 16 | seg->gen, "allocations"));
    shoal__rbcast_release(seg, 1);
    return SHOAL_OK;
}

void shoal__rbcast_quiesce_all(void) {
    for (rb_space_t *sp = live_spaces; sp; sp = sp->next) rb_quiesce(sp);
}

void shoal__rbcast_stop_all(void) {
    for (rb_space_t *sp = live_spaces; sp; sp = sp->next) rb_relay_stop(sp);
}

shoal_err_t shoal_rma_bcast(shoal_gptr_t dest, const void *src, size_t nbytes,
                            shoal_rma_bcast_algo_t algo, shoal_rma_bcast_t *req, uint64_t *seq) {
    SHOAL_ENTER("shoal_rma_bcast");
    if (!req) return shoal__fail(SHOAL_ERR_INVAL, "NULL request output");
    if (nbytes == 0)
        return shoal__fail(SHOAL_ERR_INVAL, "a broadcast of 0 bytes (nothing to send)");
    if (!src) return shoal__fail(SHOAL_ERR_INVAL, "NULL source buffer for %zu bytes", nbytes);
    if ((unsigned)algo > SHOAL_RMA_BCAST_BINOMIAL)
        return shoal__fail(SHOAL_ERR_INVAL, "%d is not a broadcast algorithm", (int)algo);
    segment_t *seg = NULL;
    /* The bounds check of the resolve covers every member: the allocation is symmetric. */
    SHOAL_TRY(registered(dest, nbytes, &seg));
    /* After a fence of the allocation whose last round is still in flight, every member has
     * finished its copies before the root's data leaves (and so before any relay's). */
    SHOAL_TRY(shoal__settle(seg));
    return shoal__rb_start(seg->rbcast, dest.offset, src, nbytes, algo, req, seq);
}

shoal_err_t shoal_rma_bcast_test(shoal_rma_bcast_t *req, int *done) {
    SHOAL_ENTER("shoal_rma_bcast_test");
    return shoal__rb_req_test(req, done);
}

shoal_err_t shoal_rma_bcast_wait(shoal_rma_bcast_t *req) {
    SHOAL_ENTER("shoal_rma_bcast_wait");
    return shoal__rb_req_wait(req);
}

shoal_err_t shoal_rma_bcast_arrived(shoal_gptr_t alloc, uint64_t seq, int *arrived) {
    SHOAL_ENTER("shoal_rma_bcast_arrived");
    if (!arrived) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    segment_t *seg = NULL;
    SHOAL_TRY(registered(alloc, 0, &seg));
    return rb_arrived(seg->rbcast, seq, arrived);
}

shoal_err_t shoal_rma_bcast_wait_arrival(shoal_gptr_t alloc, uint64_t seq) {
    SHOAL_ENTER("shoal_rma_bcast_wait_arrival");
    segment_t *seg = NULL;
    SHOAL_TRY(registered(alloc, 0, &seg));
    return rb_wait_arrival(seg->rbcast, seq);
}
