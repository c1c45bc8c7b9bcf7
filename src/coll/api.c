/* Public collective calls: the validation preamble, the arguments every algorithm reads, the
 * selection, the run. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "rma/rma.h"
#include "sync/sync.h"

/* Checks that gp is my part of a symmetric allocation that every member of t can reach, with at
 * least nbytes from gp; returns its segment and my local address. */
static shoal_err_t check_buffer(team_t *t, shoal_gptr_t gp, size_t nbytes, const char *what,
                                segment_t **seg, char **local) {
    if (gp.unit != (uint32_t)shoal__rt.myid)
        return shoal__fail(SHOAL_ERR_GPTR, "%s must point at my own part (unit %d), not unit %u",
                           what, (int)shoal__rt.myid, (unsigned)gp.unit);
    segment_t *s = NULL;
    SHOAL_TRY(shoal__resolve_symmetric(gp, nbytes, what, &s));
    /* Every member of t must hold the allocation: certain when it lives on t itself or on the
     * team of all units (an OpenSHMEM active set's buffers), else asked member by member. */
    int32_t check = s->team == t || s->rel_is_abs ? 0 : t->size;
    for (int32_t r = 0; r < check; r++)
        if (s->team->rel_of_abs[t->abs_of_rel[r]] < 0)
            return shoal__fail(SHOAL_ERR_TEAM,
                               "%s lives on team %d, which lacks unit %d of team %d", what,
                               (int)s->team->id, (int)t->abs_of_rel[r], (int)t->id);
    *seg = s;
    *local = s->my_base + gp.offset;
    return SHOAL_OK;
}

static shoal_err_t begin(coll_kind_t kind, shoal_team_t team, coll_args_t *a) {
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    /* Zeroed by copying a zero block: GCC makes a memset of this size `rep stosq`, whose start
     * costs 21-26 ns on AMD EPYC (Zen 3), a fifth of a small collective there. */
    static const coll_args_t no_args;
    *a = no_args;
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

/* ---- Repeats ----
 * Programs call the same small collective over and over (a time step's reduction, a benchmark's
 * loop). Checking the buffers and scanning the rules cost more than an 8-byte broadcast moves
 * (about 550 of its 1,170 instructions at 2 units), so a team keeps its last broadcast, reduce,
 * scan, alltoall or fcollect, checked and with its algorithm chosen, and runs the same call again
 * without either. What was kept no longer holds when the rules changed (coll_rules_gen), the team's
 * node count did, the thread's by-name preference (SHCOLL's names) is not the one it was chosen
 * under, or either allocation was freed (its table entry or generation differ: the pointer then
 * fails its check on the full path); verbose mode and argument agreement always take the full path,
 * which they need. Every member keeps and hits alike: the arguments of a collective are the same
 * on all of them. */
typedef struct {
    shoal_gptr_t dest, src;
    uint64_t key[3];
} repeat_key_t;

static int gptr_same(shoal_gptr_t x, shoal_gptr_t y) {
    return x.unit == y.unit && x.segid == y.segid && x.flags == y.flags && x.offset == y.offset;
}

static int full_path_needed(void) {
    return shoal__rt.coll_verbose || shoal__rt.check_collectives;
}

static int repeat_hit(const coll_team_t *ct, coll_kind_t kind, const repeat_key_t *k) {
    const struct coll_repeat *r = &ct->repeat;
    return r->valid && r->kind == kind && gptr_same(r->dest, k->dest) &&
           gptr_same(r->src, k->src) && r->key[0] == k->key[0] && r->key[1] == k->key[1] &&
           r->key[2] == k->key[2] && r->rules_gen == coll_rules_gen && r->nnodes == ct->nnodes &&
           shoal__segtab[k->dest.segid] == r->args.dseg && r->args.dseg->gen == k->dest.flags &&
           shoal__segtab[k->src.segid] == r->args.sseg && r->args.sseg->gen == k->src.flags &&
           !full_path_needed() && r->preferred == coll_preferred_key();
}

/* Everything I issued before is complete first (as for a barrier); then the algorithm. */
static shoal_err_t run_chosen(coll_args_t *a, const coll_algo_t *algo) {
    SHOAL_TRY(shoal__segments_flush(-1));
    a->ct->seq++;
    a->ct->last_algo = algo->name;
    return algo->run(a);
}

static shoal_err_t run_again(coll_team_t *ct) {
    coll_args_t a = ct->repeat.args; /* a copy: algorithms may write to their arguments */
    return run_chosen(&a, ct->repeat.algo);
}

/* Select and run; with k, keep the checked call for its repeats. */
static shoal_err_t run_keep(coll_args_t *a, const repeat_key_t *k) {
    const coll_algo_t *algo = NULL;
    SHOAL_TRY(coll_select(a, &algo));
    if (k && !full_path_needed()) {
        struct coll_repeat *r = &a->ct->repeat;
        r->kind = a->kind;
        r->dest = k->dest;
        r->src = k->src;
        memcpy(r->key, k->key, sizeof r->key);
        r->rules_gen = coll_rules_gen;
        r->preferred = coll_preferred_key();
        r->nnodes = a->ct->nnodes;
        r->algo = algo;
        r->args = *a;
        r->valid = 1;
    }
    return run_chosen(a, algo);
}

static shoal_err_t run(coll_args_t *a) {
    return run_keep(a, NULL);
}

/* Failure agreement of the data collectives. By default a unit's verdict on its own arguments is
 * its own (an extra allreduce would cost more than a small collective): arguments that are
 * rejected on one unit only, or valid but different, are the program's error and are not
 * detected. With SHOAL_CHECK_COLLECTIVES=1 one allreduce over the team first gives every member
 * the same verdict, and a hash of the arguments that must match (and of the selection rules)
 * catches different roots, sizes, types, operations and buffers on every member. */
static uint64_t hash_words(const uint64_t *v, int n) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < n; i++) h = (h ^ v[i]) * 1099511628211ULL;
    return h;
}

static uint64_t gptr_word(shoal_gptr_t gp) {
    return ((uint64_t)gp.segid << 48 | (uint64_t)gp.flags << 32) ^ gp.offset;
}

static shoal_err_t agree(coll_args_t *a, shoal_err_t mine, const uint64_t *args, int n) {
    if (!shoal__rt.check_collectives) return mine;
    uint64_t h = hash_words(args, n) ^ coll_select_hash();
    return shoal__team_agree(a->team, mine, h, "arguments (or selection rules)");
}
#define AGREE(a, mine, ...)                                                                        \
    agree((a), (mine), (const uint64_t[]){__VA_ARGS__},                                            \
          (int)(sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t)))

shoal_err_t shoal_coll_last_algorithm(shoal_team_t team, const char **name) {
    SHOAL_ENTER("shoal_coll_last_algorithm");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    if (!name) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    *name = t->coll->last_algo ? t->coll->last_algo : "";
    return SHOAL_OK;
}

/* A barrier whose selection the team keeps (coll_barrier_cached): run with the kept arguments,
 * no argument block, no selection. */
static shoal_err_t run_cached_barrier(team_t *t, const coll_algo_t *algo) {
    SHOAL_TRY(shoal__segments_flush(-1));
    t->coll->seq++;
    t->coll->last_algo = algo->name;
    return algo->run(&t->coll->barrier_args);
}

/* The kept selection is `line` at 2 members in shared memory: the synchronisation layer's pair
 * barrier, with the call's bookkeeping after it (see sync.h for why nothing may come before). */
static inline int run_pair_barrier(team_t *t, shoal_err_t *err) {
    coll_team_t *ct = t->coll;
    if (!ct->barrier_pair || ct->barrier_gen != coll_rules_gen || !shoal__pair_barrier(t, err))
        return 0;
    ct->seq++;
    ct->last_algo = ct->barrier_algo->name;
    return 1;
}

static shoal_err_t team_barrier(shoal_team_t team);

shoal_err_t shoal_team_barrier(shoal_team_t team) {
    shoal_err_t err;
    /* The world of 2 units first, before the entry's bookkeeping, as shoal_barrier does (the
     * record exists only while Shoal is initialised; with SHOAL_CHECK_COLLECTIVES the selection
     * never marks a pair, and the agreement below runs). The rest is a call of its own, so that
     * this path saves fewer registers: with all of them saved here the 2-unit barrier took 81-84
     * ns against shoal_barrier's 67-70, without 57-73 (Intel Xeon family 6 model 106, session 34;
     * such pushes and pops cost ZCom's polls too, src/zcom/zcom.c). */
    team_t *all = shoal__team_all_rec;
    if (team == SHOAL_TEAM_ALL && all && run_pair_barrier(all, &err)) return err;
    return team_barrier(team);
}

__attribute__((noinline)) static shoal_err_t team_barrier(shoal_team_t team) {
    SHOAL_ENTER("shoal_team_barrier");
    /* Fast path: the team's last selection still holds and its arguments are ready (with
     * SHOAL_CHECK_COLLECTIVES the agreement below must run). */
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    const coll_algo_t *algo = shoal__rt.check_collectives ? NULL : coll_barrier_cached(t->coll);
    if (algo) return run_cached_barrier(t, algo);
    coll_args_t a;
    SHOAL_TRY(begin(COLL_BARRIER, team, &a));
    SHOAL_TRY(AGREE(&a, SHOAL_OK, COLL_BARRIER));
    return run(&a);
}

shoal_err_t shoal__team_barrier_selected(shoal_team_t team) {
    coll_args_t a;
    SHOAL_TRY(begin(COLL_BARRIER, team, &a));
    SHOAL_TRY(AGREE(&a, SHOAL_OK, COLL_BARRIER));
    return run(&a);
}

/* The runtime's own barriers (fences, one-sided broadcasts) agree on nothing, so the fast path
 * holds with SHOAL_CHECK_COLLECTIVES too: an immediate-barrier fence is this call alone. */
shoal_err_t shoal__coll_barrier(team_t *t) {
    shoal_err_t err;
    if (run_pair_barrier(t, &err)) return err;
    const coll_algo_t *algo = coll_barrier_cached(t->coll);
    if (algo) return run_cached_barrier(t, algo);
    coll_args_t a;
    SHOAL_TRY(begin(COLL_BARRIER, t->id, &a));
    return run(&a);
}

static shoal_err_t broadcast(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t nbytes,
                             shoal_unit_t root, int keep_root_dest) {
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    repeat_key_t k = {dest, src, {nbytes, (uint64_t)(int64_t)root, (uint64_t)keep_root_dest}};
    if (repeat_hit(t->coll, COLL_BROADCAST, &k)) return run_again(t->coll);
    coll_args_t a;
    SHOAL_TRY(begin(COLL_BROADCAST, team, &a));
    shoal_err_t err = SHOAL_OK;
    if (root < 0 || root >= a.p)
        err = shoal__fail(SHOAL_ERR_UNIT, "root %d out of range 0..%d of team %d", (int)root,
                          (int)a.p - 1, (int)team);
    if (err == SHOAL_OK) err = buffers(&a, dest, nbytes, src, nbytes);
    SHOAL_TRY(
        AGREE(&a, err, COLL_BROADCAST, nbytes, (uint64_t)root, gptr_word(dest), gptr_word(src)));
    a.root = root;
    a.root_keeps_dest = keep_root_dest;
    a.nbytes = a.msg_bytes = nbytes;
    return run_keep(&a, &k);
}

shoal_err_t shoal_broadcast(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t nbytes,
                            shoal_unit_t root) {
    SHOAL_ENTER("shoal_broadcast");
    return broadcast(team, dest, src, nbytes, root, 0);
}

shoal_err_t shoal__broadcast_keep_root_dest(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src,
                                            size_t nbytes, shoal_unit_t root) {
    if (!shoal__rt.initialized) return shoal__fail(SHOAL_ERR_NOT_INIT, "Shoal is not initialised");
    return broadcast(team, dest, src, nbytes, root, 1);
}

/* Lets go of a collect's size and offset arrays (the team keeps them for the next call; on a
 * failure the caller sees NULLs). */
static void drop_sizes(coll_args_t *a) {
    a->sizes = a->offsets = NULL;
}

/* The per-member size and offset arrays of a collect: the team's, made by its first collect. */
static shoal_err_t alloc_sizes(coll_args_t *a) {
    coll_team_t *ct = a->ct;
    if (!ct->collect_sizes) {
        size_t *sizes = malloc((size_t)a->p * sizeof *sizes);
        size_t *offsets = malloc((size_t)a->p * sizeof *offsets);
        if (!sizes || !offsets) {
            free(sizes);
            free(offsets);
            return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
        }
        ct->collect_sizes = sizes;
        ct->collect_offsets = offsets;
    }
    a->sizes = ct->collect_sizes;
    a->offsets = ct->collect_offsets;
    return SHOAL_OK;
}

/* Sizes and offsets from the members' sizes (every member has the same v): an overflow fails
 * every member alike. */
static shoal_err_t set_offsets(coll_args_t *a) {
    size_t sum = 0;
    for (int32_t r = 0; r < a->p; r++) {
        a->offsets[r] = sum; /* exclusive prefix sum: where member r's block goes */
        if (a->sizes[r] > SIZE_MAX - sum) {
            drop_sizes(a);
            return shoal__fail(SHOAL_ERR_INVAL, "the members' contributions add up past SIZE_MAX");
        }
        sum += a->sizes[r];
    }
    a->total = sum;
    return SHOAL_OK;
}

/* On a team whose words go through MPI (members on other nodes, or the direct path off), one
 * MPI_Allgather of the sizes: a network latency, where the one-sided exchange below is a round
 * trip per signal (docs/collectives.md "Native"). The blocks ride along in the same call when
 * they fit (mpi_cells): a small collect is then one MPI collective, like MPI_Allgatherv with
 * counts the program already knew. */
static shoal_err_t exchange_sizes_mpi(coll_args_t *a, size_t mine) {
    SHOAL_TRY(alloc_sizes(a));
    size_t cell = coll_mpi_cell_bytes(a->p);
    char *cells = malloc(cell * ((size_t)a->p + 1)), *my_cell = cells + cell * (size_t)a->p;
    if (!cells) {
        drop_sizes(a);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    uint64_t v = mine;
    memcpy(my_cell, &v, 8);
    size_t fit = mine <= cell - 8 ? mine : 0;
    if (fit) shoal__copy(my_cell + 8, a->slocal, fit);
    memset(my_cell + 8 + fit, 0, cell - 8 - fit); /* no uninitialised bytes on the wire */
    int rc = MPI_Allgather(my_cell, (int)cell, MPI_BYTE, cells, (int)cell, MPI_BYTE, a->team->comm);
    if (rc != MPI_SUCCESS) {
        free(cells);
        drop_sizes(a);
        return shoal__mpi_fail(rc, "MPI_Allgather (collect sizes)");
    }
    a->mpi_cells = cells;
    a->mpi_cell = cell;
    a->mpi_blocks = 1;
    for (int32_t r = 0; r < a->p; r++) {
        memcpy(&v, cells + cell * (size_t)r, 8);
        a->sizes[r] = (size_t)v;
        if (v > cell - 8) a->mpi_blocks = 0;
    }
    shoal_err_t err = set_offsets(a);
    if (err != SHOAL_OK) {
        free(cells);
        a->mpi_cells = NULL;
    }
    return err;
}

/* Every member's contribution to a collect, and where it goes, on a team whose words are CPU
 * atomics (others: exchange_sizes_mpi): each member stores its size into every member's slot
 * (double-buffered by call parity: a member is never more than one collect ahead of another, since
 * finishing one needs everybody's data). */
static shoal_err_t exchange_sizes(coll_args_t *a, size_t mine) {
    int parity = (int)(a->ct->seq & 1);
    uint64_t v = mine;
    uint64_t *slots = (uint64_t *)(void *)(a->ct->seg->my_base + 8 * SIZES_WORD(parity, 0, a->p));
    for (int32_t i = 1; i <= a->p; i++) {
        int32_t peer = (a->me + i) % a->p; /* start with the right neighbour: no hot spot */
        shoal_target_t t =
            shoal__target_at(a->ct->seg, peer, 8 * (size_t)SIZES_WORD(parity, a->me, a->p));
        SHOAL_TRY(shoal__amo(&t, AMO_STORE, SHOAL_OP_SUM, SHOAL_UINT64, &v, NULL, NULL));
        if (peer != a->me) SHOAL_TRY(coll_signal(a, peer, W_SIZES(a->p)));
    }
    SHOAL_TRY(coll_wait(a, W_SIZES(a->p), (uint64_t)a->p - 1));
    SHOAL_TRY(alloc_sizes(a));
    for (int32_t r = 0; r < a->p; r++)
        a->sizes[r] = (size_t)__atomic_load_n(&slots[r], __ATOMIC_ACQUIRE);
    return set_offsets(a);
}

shoal_err_t shoal_collect(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t nbytes) {
    SHOAL_ENTER("shoal_collect");
    coll_args_t a;
    SHOAL_TRY(begin(COLL_COLLECT, team, &a));
    /* nbytes may differ per member; dest's room is checked once the total is known */
    SHOAL_TRY(AGREE(&a, buffers(&a, dest, 0, src, nbytes), COLL_COLLECT, gptr_word(dest),
                    gptr_word(src)));
    a.nbytes = nbytes;
    SHOAL_TRY(shoal__segments_flush(-1));
    if (!a.ct->seg->atomics_direct) {
        SHOAL_TRY(exchange_sizes_mpi(&a, nbytes));
    } else if (coll_eager_collect_possible(&a)) {
        SHOAL_TRY(alloc_sizes(&a));
        shoal_err_t err = coll_eager_collect_sizes(&a, nbytes);
        if (err != SHOAL_OK) {
            drop_sizes(&a);
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
    drop_sizes(&a);
    free(a.mpi_cells);
    return err;
}

shoal_err_t shoal_fcollect(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t nbytes) {
    SHOAL_ENTER("shoal_fcollect");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    repeat_key_t k = {dest, src, {nbytes, 0, 0}};
    if (repeat_hit(t->coll, COLL_FCOLLECT, &k)) return run_again(t->coll);
    coll_args_t a;
    SHOAL_TRY(begin(COLL_FCOLLECT, team, &a));
    shoal_err_t err = SHOAL_OK;
    if (nbytes && (size_t)a.p > SIZE_MAX / nbytes)
        err = shoal__fail(SHOAL_ERR_INVAL, "%zu bytes x %d members overflows", nbytes, (int)a.p);
    if (err == SHOAL_OK) err = buffers(&a, dest, nbytes * (size_t)a.p, src, nbytes);
    SHOAL_TRY(AGREE(&a, err, COLL_FCOLLECT, nbytes, gptr_word(dest), gptr_word(src)));
    a.nbytes = nbytes;
    a.total = nbytes * (size_t)a.p;
    a.msg_bytes = a.total;
    coll_team_t *ct = a.ct;
    /* A kept fcollect points at these arrays: it no longer holds once they change (and if this
     * call fails before it is kept in its place, nothing kept may run with its sizes). */
    ct->repeat.valid = 0;
    if (!ct->fcollect_sizes) { /* the team's first fcollect */
        ct->fcollect_sizes = malloc((size_t)a.p * sizeof *ct->fcollect_sizes);
        ct->fcollect_offsets = malloc((size_t)a.p * sizeof *ct->fcollect_offsets);
        if (!ct->fcollect_sizes || !ct->fcollect_offsets) {
            free(ct->fcollect_sizes);
            free(ct->fcollect_offsets);
            ct->fcollect_sizes = ct->fcollect_offsets = NULL;
            return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
        }
    }
    a.sizes = ct->fcollect_sizes; /* the team's: a kept call's arguments point at them */
    a.offsets = ct->fcollect_offsets;
    for (int32_t r = 0; r < a.p; r++) {
        a.sizes[r] = nbytes;
        a.offsets[r] = nbytes * (size_t)r;
    }
    return run_keep(&a, &k);
}

shoal_err_t shoal_alltoall(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t nbytes) {
    SHOAL_ENTER("shoal_alltoall");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    repeat_key_t k = {dest, src, {nbytes, 0, 0}};
    if (repeat_hit(t->coll, COLL_ALLTOALL, &k)) return run_again(t->coll);
    coll_args_t a;
    SHOAL_TRY(begin(COLL_ALLTOALL, team, &a));
    shoal_err_t err = SHOAL_OK;
    if (nbytes && (size_t)a.p > SIZE_MAX / nbytes)
        err = shoal__fail(SHOAL_ERR_INVAL, "%zu bytes x %d members overflows", nbytes, (int)a.p);
    if (err == SHOAL_OK) err = buffers(&a, dest, nbytes * (size_t)a.p, src, nbytes * (size_t)a.p);
    if (err == SHOAL_OK && a.dseg == a.sseg && a.doff < a.soff + nbytes * (size_t)a.p &&
        a.soff < a.doff + nbytes * (size_t)a.p && nbytes)
        err = shoal__fail(SHOAL_ERR_INVAL, "dest and src overlap");
    SHOAL_TRY(AGREE(&a, err, COLL_ALLTOALL, nbytes, gptr_word(dest), gptr_word(src)));
    a.nbytes = a.msg_bytes = nbytes;
    return run_keep(&a, &k);
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
    shoal_err_t err = SHOAL_OK;
    size_t total = 0, dbytes = 0, sbytes = 0;
    if (elem_size != 4 && elem_size != 8)
        err = shoal__fail(SHOAL_ERR_INVAL, "element size %zu: must be 4 or 8", elem_size);
    else if (nelems > SIZE_MAX / (size_t)a.p) /* the product wrapped once and validated 0 bytes */
        err = shoal__fail(SHOAL_ERR_INVAL, "%zu elements per member x %d members overflows", nelems,
                          (int)a.p);
    else if (total = nelems * (size_t)a.p, dst < 1 || sst < 1 ||
                                               span(total, dst, elem_size, &dbytes) ||
                                               span(total, sst, elem_size, &sbytes))
        err =
            shoal__fail(SHOAL_ERR_INVAL, "strides %td/%td must be >= 1 (and sizes fit)", dst, sst);
    if (err == SHOAL_OK) err = buffers(&a, dest, dbytes, src, sbytes);
    if (err == SHOAL_OK && a.dseg == a.sseg && a.doff < a.soff + sbytes &&
        a.soff < a.doff + dbytes && total)
        err = shoal__fail(SHOAL_ERR_INVAL, "dest and src overlap");
    SHOAL_TRY(AGREE(&a, err, COLL_ALLTOALLS, (uint64_t)dst, (uint64_t)sst, elem_size, nelems,
                    gptr_word(dest), gptr_word(src)));
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
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    repeat_key_t k = {dest, src, {count, (uint64_t)type, (uint64_t)op}};
    if (repeat_hit(t->coll, COLL_REDUCE, &k)) return run_again(t->coll);
    coll_args_t a;
    SHOAL_TRY(begin(COLL_REDUCE, team, &a));
    shoal_err_t err = check_reduction(type, op, 0x7f);
    size_t bytes = count * shoal_type_size(type);
    if (err == SHOAL_OK && count && bytes / count != shoal_type_size(type))
        err = shoal__fail(SHOAL_ERR_INVAL, "%zu elements overflow", count);
    if (err == SHOAL_OK) err = buffers(&a, dest, bytes, src, bytes);
    if (err == SHOAL_OK && a.dseg == a.sseg && a.doff != a.soff && a.doff < a.soff + bytes &&
        a.soff < a.doff + bytes)
        err = shoal__fail(SHOAL_ERR_INVAL, "dest and src overlap without being the same buffer");
    SHOAL_TRY(AGREE(&a, err, COLL_REDUCE, count, (uint64_t)type, (uint64_t)op, gptr_word(dest),
                    gptr_word(src)));
    a.count = count;
    a.type = type;
    a.op = op;
    a.nbytes = a.msg_bytes = bytes;
    return run_keep(&a, &k);
}

shoal_err_t shoal_scan(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src, size_t count,
                       shoal_type_t type, int inclusive) {
    SHOAL_ENTER("shoal_scan");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    repeat_key_t k = {dest, src, {count, (uint64_t)type, (uint64_t)(inclusive != 0)}};
    if (repeat_hit(t->coll, COLL_SCAN, &k)) return run_again(t->coll);
    coll_args_t a;
    SHOAL_TRY(begin(COLL_SCAN, team, &a));
    shoal_err_t err = check_reduction(type, SHOAL_RED_SUM, 1 << SHOAL_RED_SUM);
    size_t bytes = count * shoal_type_size(type);
    if (err == SHOAL_OK && count && bytes / count != shoal_type_size(type))
        err = shoal__fail(SHOAL_ERR_INVAL, "%zu elements overflow", count);
    if (err == SHOAL_OK) err = buffers(&a, dest, bytes, src, bytes);
    if (err == SHOAL_OK && a.dseg == a.sseg && a.doff < a.soff + bytes && a.soff < a.doff + bytes &&
        bytes)
        err = shoal__fail(SHOAL_ERR_INVAL, "dest and src overlap");
    SHOAL_TRY(AGREE(&a, err, COLL_SCAN, count, (uint64_t)type, (uint64_t)(inclusive != 0),
                    gptr_word(dest), gptr_word(src)));
    a.count = count;
    a.type = type;
    a.op = SHOAL_RED_SUM;
    a.inclusive = inclusive != 0;
    a.nbytes = a.msg_bytes = bytes;
    return run_keep(&a, &k);
}
