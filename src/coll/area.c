/* Each team's coll area and the point-to-point helpers every algorithm is built from. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "rma/rma.h"

#define PAGE 4096

/* A member and a key to order it by (qsort). */
typedef struct {
    int32_t key, id;
} keyed_t;

static int by_key_then_id(const void *x, const void *y) {
    const keyed_t *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* Fills ct's node map from every member's node colour (colour[i] of member i): members sorted
 * by (colour, id) give each node's group with its lowest member first; the groups, ordered by
 * that first member, are the nodes 0, 1, ... tmp holds 2p entries. */
static void build_node_map(coll_team_t *ct, const int *colour, int32_t p, keyed_t *tmp) {
    keyed_t *members = tmp, *groups = tmp + p;
    for (int32_t i = 0; i < p; i++) members[i] = (keyed_t){colour[i], i};
    qsort(members, (size_t)p, sizeof *members, by_key_then_id);
    int32_t ng = 0;
    for (int32_t i = 0; i < p; i++) /* a group: its first member as key, where it starts as id */
        if (i == 0 || members[i].key != members[i - 1].key)
            groups[ng++] = (keyed_t){members[i].id, i};
    qsort(groups, (size_t)ng, sizeof *groups, by_key_then_id);
    ct->nnodes = ng;
    ct->node_max = 0;
    int32_t at = 0;
    for (int32_t n = 0; n < ng; n++) {
        ct->node_start[n] = at;
        for (int32_t i = groups[n].id; i < p && members[i].key == members[groups[n].id].key; i++) {
            ct->by_node[at++] = members[i].id;
            ct->node_of[members[i].id] = n;
        }
        if (at - ct->node_start[n] > ct->node_max) ct->node_max = at - ct->node_start[n];
    }
    ct->node_start[ng] = at;
    ct->nodes_in_runs = 1;
    for (int32_t n = 0; n < ng; n++)
        for (int32_t i = ct->node_start[n] + 1; i < ct->node_start[n + 1]; i++)
            if (ct->by_node[i] != ct->by_node[i - 1] + 1) ct->nodes_in_runs = 0;
}

static void free_coll_team(coll_team_t *ct) {
    if (!ct) return;
    coll_leaders_free(ct);
    free(ct->expected);
    free(ct->eager_done);
    free(ct->ring_done);
    free(ct->xchg_done);
    free(ct->node_of);
    free(ct->by_node);
    free(ct->node_start);
    free(ct->local_buf);
    free(ct->fcollect_sizes);
    free(ct->fcollect_offsets);
    free(ct->collect_sizes);
    free(ct->collect_offsets);
    free(ct);
}

shoal_err_t shoal__coll_team_init(team_t *t) {
    coll_team_t *ct = calloc(1, sizeof *ct);
    size_t p = (size_t)t->size;
    int *colour = malloc(p * sizeof *colour);
    keyed_t *tmp = malloc(2 * p * sizeof *tmp);
    int ok = ct != NULL && colour != NULL && tmp != NULL, all_ok = 0;
    if (ct) ct->leaders = MPI_COMM_NULL;
    if (ok) {
        ct->nwords = COLL_NWORDS(t->size);
        ct->expected = calloc((size_t)ct->nwords, sizeof *ct->expected);
        ct->eager_done = calloc(p, sizeof *ct->eager_done);
        ct->ring_done = calloc(p, sizeof *ct->ring_done);
        ct->xchg_done = calloc(p, sizeof *ct->xchg_done);
        ct->node_of = malloc(p * sizeof *ct->node_of);
        ct->by_node = malloc(p * sizeof *ct->by_node);
        ct->node_start = malloc((p + 1) * sizeof *ct->node_start);
        ok = ct->expected != NULL && ct->eager_done != NULL && ct->ring_done != NULL &&
             ct->xchg_done != NULL && ct->node_of != NULL && ct->by_node != NULL &&
             ct->node_start != NULL;
    }
    int rc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, t->comm);
    if (rc == MPI_SUCCESS && all_ok) /* every member has room: where does each one live? */
        rc = MPI_Allgather(&shoal__rt.node_colour, 1, MPI_INT, colour, 1, MPI_INT, t->comm);
    if (rc == MPI_SUCCESS && all_ok) build_node_map(ct, colour, t->size, tmp);
    free(colour);
    free(tmp);
    if (rc != MPI_SUCCESS || !all_ok) {
        free_coll_team(ct);
        if (rc != MPI_SUCCESS)
            return shoal__mpi_fail(rc, "collective area: where the members live");
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for team %d's coll area",
                           (int)t->id);
    }
    /* Sized from the team size now, once: signal words for p members, then the scratch. */
    ct->sig_bytes = ((size_t)ct->nwords * 8 + PAGE - 1) / PAGE * PAGE;
    ct->scratch_bytes = shoal__rt.coll_scratch;
    ct->ring_off = (ct->sig_bytes + ct->scratch_bytes + COLL_EAGER_LINE - 1) / COLL_EAGER_LINE *
                   COLL_EAGER_LINE; /* the ring's lines are cache lines */
    ct->slots_off = ct->ring_off + COLL_EAGER_LINES * COLL_EAGER_LINE;
    size_t bytes = ct->slots_off + COLL_BCAST_SLOTS * COLL_EAGER_SLOT_STRIDE;
    if (t->size <= COLL_XCHG_UNITS) {
        ct->xchg_off = bytes;
        ct->xchg_cell = coll_xchg_cell(t->size);
        bytes += COLL_XCHG_SLOTS * (size_t)t->size * ct->xchg_cell;
    }
    shoal_err_t err = shoal__segment_create(t, bytes, SEG_INTERNAL, &ct->seg);
    if (err != SHOAL_OK) {
        free_coll_team(ct);
        return err;
    }
    t->coll = ct;
    return SHOAL_OK;
}

shoal_err_t shoal__coll_team_finalize(team_t *t) {
    coll_team_t *ct = t->coll;
    if (!ct) return SHOAL_OK;
    shoal_err_t err = ct->seg ? shoal__segment_free(ct->seg) : SHOAL_OK;
    free_coll_team(ct);
    t->coll = NULL;
    return err;
}

void shoal__coll_team_release(team_t *t) {
    if (!t->coll) return;
    t->coll->seg = NULL; /* shoal__segments_finalize freed it already */
    shoal__coll_team_finalize(t);
}

/* Where member peer's buffer `buf` at off lives: a resolved target (no checks: the entry point
 * validated the extents, and symmetric parts have the same size on every member). */
static shoal_target_t target(coll_args_t *a, int32_t peer, coll_buf_t buf, size_t off) {
    if (buf == BUF_SCRATCH) return shoal__target_at(a->ct->seg, peer, a->ct->sig_bytes + off);
    segment_t *s = buf == BUF_DEST ? a->dseg : a->sseg;
    return shoal__target_at(s, s->team->rel_of_abs[a->team->abs_of_rel[peer]],
                            (buf == BUF_DEST ? a->doff : a->soff) + off);
}

shoal_target_t coll_word(coll_args_t *a, int32_t member, int32_t w) {
    return shoal__target_at(a->ct->seg, member, (size_t)w * 8);
}

shoal_err_t coll_signal(coll_args_t *a, int32_t peer, int32_t w) {
    shoal_target_t t = coll_word(a, peer, w);
    uint64_t one = 1;
    return shoal__amo(&t, AMO_OP, SHOAL_OP_SUM, SHOAL_UINT64, &one, NULL, NULL);
}

shoal_err_t coll_wait(coll_args_t *a, int32_t w, uint64_t n) {
    if (!n) return SHOAL_OK;
    a->ct->expected[w] += n;
    shoal_target_t t = coll_word(a, a->me, w);
    return shoal__wait_word(&t, SHOAL_CMP_GE, a->ct->expected[w], NULL);
}

char *coll_local_buffer(coll_args_t *a, size_t bytes) {
    coll_team_t *ct = a->ct;
    if (bytes > ct->local_bytes) {
        char *b = realloc(ct->local_buf, bytes);
        if (!b) return NULL;
        ct->local_buf = b;
        ct->local_bytes = bytes;
    }
    return ct->local_buf ? ct->local_buf : (char *)ct; /* bytes == 0: any non-NULL address */
}

char *coll_local(coll_args_t *a, coll_buf_t buf, size_t off) {
    switch (buf) {
    case BUF_DEST:
        return a->dlocal + off;
    case BUF_SRC:
        return a->slocal + off;
    case BUF_SCRATCH:
        return a->ct->seg->my_base + a->ct->sig_bytes + off;
    }
    return NULL;
}

shoal_err_t coll_put(coll_args_t *a, int32_t peer, coll_buf_t buf, size_t off, const void *src,
                     size_t n) {
    if (!n) return SHOAL_OK;
    shoal_target_t t = target(a, peer, buf, off);
    return shoal__put(&t, src, n);
}

shoal_err_t coll_put_signal(coll_args_t *a, int32_t peer, coll_buf_t buf, size_t off,
                            const void *src, size_t n, int32_t w) {
    SHOAL_TRY(coll_put(a, peer, buf, off, src, n)); /* complete at the peer first */
    return coll_signal(a, peer, w);
}

shoal_err_t coll_get(coll_args_t *a, void *dst, int32_t peer, coll_buf_t buf, size_t off,
                     size_t n) {
    if (!n) return SHOAL_OK;
    shoal_target_t t = target(a, peer, buf, off);
    return shoal__get(dst, &t, n);
}

void coll_copy_local(void *dst, const void *src, size_t n) {
    if (n && dst != src) shoal__move(dst, src, n);
}
