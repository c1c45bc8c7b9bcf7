/* Public collective calls: the validation preamble, the arguments every algorithm reads, the
 * selection, the run. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "rma/rma.h"

/* Checks that gp is my part of a symmetric allocation that every member of t can reach, with at
 * least nbytes from gp; returns its segment and my local address. */
static shoal_err_t check_buffer(team_t *t, shoal_gptr_t gp, size_t nbytes, const char *what,
                                segment_t **seg, char **local) {
    if (gp.unit != (uint32_t)shoal__rt.myid)
        return shoal__fail(SHOAL_ERR_GPTR, "%s must point at my own part (unit %d), not unit %u",
                           what, (int)shoal__rt.myid, (unsigned)gp.unit);
    shoal_target_t tg = {0};
    SHOAL_TRY(shoal__resolve(gp, nbytes, &tg));
    if (tg.seg->kind != SEG_COLLECTIVE)
        return shoal__fail(SHOAL_ERR_GPTR, "%s is not a symmetric (shoal_team_memalloc) allocation",
                           what);
    for (int32_t r = 0; r < t->size; r++)
        if (tg.seg->team->rel_of_abs[t->abs_of_rel[r]] < 0)
            return shoal__fail(SHOAL_ERR_TEAM,
                               "%s lives on team %d, which lacks unit %d of team %d", what,
                               (int)tg.seg->team->id, (int)t->abs_of_rel[r], (int)t->id);
    *seg = tg.seg;
    *local = tg.seg->my_base + gp.offset;
    return SHOAL_OK;
}

static shoal_err_t begin(coll_kind_t kind, shoal_team_t team, coll_args_t *a) {
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    memset(a, 0, sizeof *a);
    a->kind = kind;
    a->team = t;
    a->ct = t->coll;
    a->p = t->size;
    a->me = t->myrel;
    return SHOAL_OK;
}

static shoal_err_t buffers(coll_args_t *a, shoal_gptr_t dest, size_t dbytes, shoal_gptr_t src,
                           size_t sbytes) {
    SHOAL_TRY(check_buffer(a->team, dest, dbytes, "dest", &a->dseg, &a->dlocal));
    SHOAL_TRY(check_buffer(a->team, src, sbytes, "src", &a->sseg, &a->slocal));
    a->doff = dest.offset;
    a->soff = src.offset;
    return SHOAL_OK;
}

/* Select and run. Everything I issued before is complete first (as for a barrier). */
static shoal_err_t run(coll_args_t *a) {
    const coll_algo_t *algo = NULL;
    SHOAL_TRY(coll_select(a, &algo));
    SHOAL_TRY(shoal__segments_flush(-1));
    a->ct->seq++;
    a->ct->last_algo = algo->name;
    return algo->run(a);
}

shoal_err_t shoal_coll_last_algorithm(shoal_team_t team, const char **name) {
    SHOAL_ENTER("shoal_coll_last_algorithm");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    if (!name) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    *name = t->coll->last_algo ? t->coll->last_algo : "";
    return SHOAL_OK;
}

shoal_err_t shoal_team_barrier(shoal_team_t team) {
    SHOAL_ENTER("shoal_team_barrier");
    coll_args_t a;
    SHOAL_TRY(begin(COLL_BARRIER, team, &a));
    return run(&a);
}

shoal_err_t shoal_broadcast(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t nbytes,
                            shoal_unit_t root) {
    SHOAL_ENTER("shoal_broadcast");
    coll_args_t a;
    SHOAL_TRY(begin(COLL_BROADCAST, team, &a));
    if (root < 0 || root >= a.p)
        return shoal__fail(SHOAL_ERR_UNIT, "root %d out of range 0..%d of team %d", (int)root,
                           (int)a.p - 1, (int)team);
    SHOAL_TRY(buffers(&a, dest, nbytes, src, nbytes));
    a.root = root;
    a.nbytes = a.msg_bytes = nbytes;
    return run(&a);
}

/* Every member's contribution to a collect, and where it goes: each member puts its size into
 * every member's slot (double-buffered by call parity: a member is never more than one collect
 * ahead of another, since finishing one needs everybody's data). */
static shoal_err_t exchange_sizes(coll_args_t *a, size_t mine) {
    int parity = (int)(a->ct->seq & 1);
    uint64_t v = mine;
    uint64_t *slots = (uint64_t *)(void *)(a->ct->seg->my_base + 8 * SIZES_WORD(parity, 0, a->p));
    for (int32_t i = 1; i <= a->p; i++) {
        int32_t peer = (a->me + i) % a->p; /* start with the right neighbour: no hot spot */
        shoal_target_t t = {a->ct->seg, NULL, peer, (MPI_Aint)8 * SIZES_WORD(parity, a->me, a->p)};
        if (a->ct->seg->direct[peer]) t.addr = a->ct->seg->direct[peer] + t.disp;
        SHOAL_TRY(shoal__amo(&t, AMO_STORE, SHOAL_OP_SUM, SHOAL_UINT64, &v, NULL, NULL));
        if (peer != a->me) SHOAL_TRY(coll_signal(a, peer, W_SIZES(a->p)));
    }
    SHOAL_TRY(coll_wait(a, W_SIZES(a->p), (uint64_t)a->p - 1));
    a->sizes = malloc((size_t)a->p * sizeof *a->sizes);
    a->offsets = malloc((size_t)a->p * sizeof *a->offsets);
    if (!a->sizes || !a->offsets) {
        free(a->sizes);
        free(a->offsets);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    size_t sum = 0;
    int overflow = 0;
    for (int32_t r = 0; r < a->p; r++) {
        shoal_target_t t = {a->ct->seg, NULL, a->me, (MPI_Aint)8 * SIZES_WORD(parity, r, a->p)};
        if (a->ct->seg->direct[a->me]) t.addr = a->ct->seg->direct[a->me] + t.disp;
        uint64_t s = 0;
        if (t.addr)
            s = __atomic_load_n(&slots[r], __ATOMIC_ACQUIRE);
        else
            SHOAL_TRY(shoal__amo(&t, AMO_LOAD, SHOAL_OP_SUM, SHOAL_UINT64, NULL, NULL, &s));
        a->sizes[r] = (size_t)s;
        a->offsets[r] = sum; /* exclusive prefix sum: where member r's block goes */
        if ((size_t)s > SIZE_MAX - sum) overflow = 1;
        sum += (size_t)s;
    }
    if (overflow) { /* every member read the same sizes: all fail alike */
        free(a->sizes);
        free(a->offsets);
        a->sizes = a->offsets = NULL;
        return shoal__fail(SHOAL_ERR_INVAL, "the members' contributions add up past SIZE_MAX");
    }
    a->total = sum;
    return SHOAL_OK;
}

shoal_err_t shoal_collect(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t nbytes) {
    SHOAL_ENTER("shoal_collect");
    coll_args_t a;
    SHOAL_TRY(begin(COLL_COLLECT, team, &a));
    SHOAL_TRY(buffers(&a, dest, 0, src, nbytes));
    a.nbytes = nbytes;
    SHOAL_TRY(shoal__segments_flush(-1));
    if (coll_eager_collect_possible(&a)) {
        a.sizes = malloc((size_t)a.p * sizeof *a.sizes);
        a.offsets = malloc((size_t)a.p * sizeof *a.offsets);
        shoal_err_t err = !a.sizes || !a.offsets
                              ? shoal__fail(SHOAL_ERR_NOMEM, "out of host memory")
                              : coll_eager_collect_sizes(&a, nbytes);
        if (err != SHOAL_OK) {
            free(a.sizes);
            free(a.offsets);
            return err;
        }
    } else {
        SHOAL_TRY(exchange_sizes(&a, nbytes));
    }
    shoal_err_t err = SHOAL_OK;
    /* dest is symmetric, so every member sees the same verdict here. */
    shoal_target_t tg = {0};
    if ((err = shoal__resolve(dest, a.total, &tg)) == SHOAL_OK) {
        a.msg_bytes = a.total;
        err = run(&a);
    }
    shoal_err_t end = coll_eager_end(&a); /* closes the size exchange, whatever ran */
    if (err == SHOAL_OK) err = end;
    free(a.sizes);
    free(a.offsets);
    return err;
}

shoal_err_t shoal_fcollect(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t nbytes) {
    SHOAL_ENTER("shoal_fcollect");
    coll_args_t a;
    SHOAL_TRY(begin(COLL_FCOLLECT, team, &a));
    if (nbytes && (size_t)a.p > SIZE_MAX / nbytes)
        return shoal__fail(SHOAL_ERR_INVAL, "size overflows");
    SHOAL_TRY(buffers(&a, dest, nbytes * (size_t)a.p, src, nbytes));
    a.nbytes = nbytes;
    a.total = nbytes * (size_t)a.p;
    a.msg_bytes = a.total;
    a.sizes = malloc((size_t)a.p * sizeof *a.sizes);
    a.offsets = malloc((size_t)a.p * sizeof *a.offsets);
    if (!a.sizes || !a.offsets) {
        free(a.sizes);
        free(a.offsets);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    for (int32_t r = 0; r < a.p; r++) {
        a.sizes[r] = nbytes;
        a.offsets[r] = nbytes * (size_t)r;
    }
    shoal_err_t err = run(&a);
    free(a.sizes);
    free(a.offsets);
    return err;
}

shoal_err_t shoal_alltoall(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t nbytes) {
    SHOAL_ENTER("shoal_alltoall");
    coll_args_t a;
    SHOAL_TRY(begin(COLL_ALLTOALL, team, &a));
    if (nbytes && (size_t)a.p > SIZE_MAX / nbytes)
        return shoal__fail(SHOAL_ERR_INVAL, "size overflows");
    SHOAL_TRY(buffers(&a, dest, nbytes * (size_t)a.p, src, nbytes * (size_t)a.p));
    if (a.dseg == a.sseg && a.doff < a.soff + nbytes * (size_t)a.p &&
        a.soff < a.doff + nbytes * (size_t)a.p && nbytes)
        return shoal__fail(SHOAL_ERR_INVAL, "dest and src overlap");
    a.nbytes = a.msg_bytes = nbytes;
    return run(&a);
}

/* Bytes spanned by n elements at stride (elements) of elem bytes. */
static int span(size_t n, ptrdiff_t stride, size_t elem, size_t *bytes) {
    if (!n) {
        *bytes = 0;
        return 0;
    }
    if (stride < 1 || (n - 1) > (SIZE_MAX / elem - 1) / (size_t)stride) return -1;
    *bytes = ((n - 1) * (size_t)stride + 1) * elem;
    return 0;
}

shoal_err_t shoal_alltoalls(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, ptrdiff_t dst,
                            ptrdiff_t sst, size_t elem_size, size_t nelems) {
    SHOAL_ENTER("shoal_alltoalls");
    coll_args_t a;
    SHOAL_TRY(begin(COLL_ALLTOALLS, team, &a));
    if (elem_size != 4 && elem_size != 8)
        return shoal__fail(SHOAL_ERR_INVAL, "element size %zu: must be 4 or 8", elem_size);
    if (nelems > SIZE_MAX / (size_t)a.p) /* the product wrapped once and validated 0 bytes */
        return shoal__fail(SHOAL_ERR_INVAL, "%zu elements per member x %d members overflows",
                           nelems, (int)a.p);
    size_t total = nelems * (size_t)a.p, dbytes, sbytes;
    if (dst < 1 || sst < 1 || span(total, dst, elem_size, &dbytes) ||
        span(total, sst, elem_size, &sbytes))
        return shoal__fail(SHOAL_ERR_INVAL, "strides %td/%td must be >= 1 (and sizes fit)", dst,
                           sst);
    SHOAL_TRY(buffers(&a, dest, dbytes, src, sbytes));
    if (a.dseg == a.sseg && a.doff < a.soff + sbytes && a.soff < a.doff + dbytes && total)
        return shoal__fail(SHOAL_ERR_INVAL, "dest and src overlap");
    a.dst = dst;
    a.sst = sst;
    a.elem_size = elem_size;
    a.nelems = nelems;
    a.msg_bytes = nelems * elem_size;
    return run(&a);
}

static shoal_err_t check_reduction(shoal_type_t type, shoal_red_op_t op, int ops_allowed) {
    if ((unsigned)type >= SHOAL_TYPE_COUNT_)
        return shoal__fail(SHOAL_ERR_INVAL, "unknown type %d", (int)type);
    if ((unsigned)op > SHOAL_RED_XOR || !(ops_allowed >> op & 1))
        return shoal__fail(SHOAL_ERR_INVAL, "operation %d not supported here", (int)op);
    if (op >= SHOAL_RED_AND && !coll_type_is_integer(type))
        return shoal__fail(SHOAL_ERR_INVAL, "bitwise operations need an integer type");
    return SHOAL_OK;
}

shoal_err_t shoal_reduce(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t count,
                         shoal_type_t type, shoal_red_op_t op) {
    SHOAL_ENTER("shoal_reduce");
    coll_args_t a;
    SHOAL_TRY(begin(COLL_REDUCE, team, &a));
    SHOAL_TRY(check_reduction(type, op, 0x7f));
    size_t bytes = count * shoal_type_size(type);
    if (count && bytes / count != shoal_type_size(type))
        return shoal__fail(SHOAL_ERR_INVAL, "size overflows");
    SHOAL_TRY(buffers(&a, dest, bytes, src, bytes));
    if (a.dseg == a.sseg && a.doff != a.soff && a.doff < a.soff + bytes && a.soff < a.doff + bytes)
        return shoal__fail(SHOAL_ERR_INVAL, "dest and src overlap without being the same buffer");
    a.count = count;
    a.type = type;
    a.op = op;
    a.nbytes = a.msg_bytes = bytes;
    return run(&a);
}

shoal_err_t shoal_scan(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t count,
                       shoal_type_t type, int inclusive) {
    SHOAL_ENTER("shoal_scan");
    coll_args_t a;
    SHOAL_TRY(begin(COLL_SCAN, team, &a));
    SHOAL_TRY(check_reduction(type, SHOAL_RED_SUM, 1 << SHOAL_RED_SUM));
    size_t bytes = count * shoal_type_size(type);
    if (count && bytes / count != shoal_type_size(type))
        return shoal__fail(SHOAL_ERR_INVAL, "size overflows");
    SHOAL_TRY(buffers(&a, dest, bytes, src, bytes));
    if (a.dseg == a.sseg && a.doff < a.soff + bytes && a.soff < a.doff + bytes && bytes)
        return shoal__fail(SHOAL_ERR_INVAL, "dest and src overlap");
    a.count = count;
    a.type = type;
    a.op = SHOAL_RED_SUM;
    a.inclusive = inclusive != 0;
    a.nbytes = a.msg_bytes = bytes;
    return run(&a);
}
