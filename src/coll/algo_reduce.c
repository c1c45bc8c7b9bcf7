/* Reduce-to-all and scan algorithms. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"

/* Linear: get every member's src, reduce in member order (so every member computes the same
 * floating-point result), then tell every member I am done reading its src; write dest only when
 * everyone is done with mine (dest may be src). Scan: the same over members 0..me. */
static shoal_err_t gather_reduce(coll_args_t *a, int32_t upto, int inclusive) {
    size_t bytes = a->nbytes;
    char *acc = bytes <= SIZE_MAX / 2 ? coll_local_buffer(a, 2 * bytes) : NULL;
    if (!acc) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    char *tmp = acc + bytes;
    shoal_err_t err = SHOAL_OK;
    int have = 0;
    /* A peer's src holds this call's data only once the peer has entered the call: READY. */
    for (int32_t r = 0; r < a->p && err == SHOAL_OK; r++) {
        int reads_me = a->kind == COLL_SCAN ? r > a->me : 1;
        if (r != a->me && reads_me) err = coll_ready(a, r);
    }
    int32_t last = inclusive ? upto : upto - 1;
    for (int32_t r = 0; r <= last && err == SHOAL_OK; r++) {
        char *dst = have ? tmp : acc;
        if (r == a->me) {
            shoal__copy(dst, a->slocal, bytes);
        } else {
            err = coll_wait_ready(a, r);
            if (err == SHOAL_OK) err = coll_get(a, dst, r, BUF_SRC, 0, bytes);
        }
        if (err == SHOAL_OK && have) coll_reduce_local(acc, tmp, a->count, a->type, a->op);
        have = 1;
    }
    if (!have) memset(acc, 0, bytes); /* exclusive scan on member 0 */
    /* Tell the members I read that I am done with their src; wait for my own readers. */
    for (int32_t r = 0; r < a->p && err == SHOAL_OK; r++) {
        int i_read = a->kind == COLL_SCAN ? r < a->me : 1;
        if (r != a->me && i_read) err = coll_signal(a, r, W_DATA(a->me, a->p));
    }
    for (int32_t r = 0; r < a->p && err == SHOAL_OK; r++) {
        int reads_me = a->kind == COLL_SCAN ? r > a->me : 1;
        if (r != a->me && reads_me) err = coll_wait(a, W_DATA(r, a->p), 1);
    }
    if (err == SHOAL_OK) shoal__copy(a->dlocal, acc, bytes);
    return err;
}

static shoal_err_t reduce_linear(coll_args_t *a) {
    return gather_reduce(a, a->p - 1, 1);
}
static shoal_err_t scan_linear(coll_args_t *a) {
    return gather_reduce(a, a->me, a->inclusive);
}

/* ---- Chunking ----
 * The tree algorithms move data through the scratch, so they work on the message a chunk at a
 * time: at most `cap` bytes (the scratch, or less: the pipeline segment size when one is set, a
 * share of the scratch when the algorithm keeps something else there), the chunks as even as
 * possible. */
typedef struct {
    size_t es;        /* element bytes */
    size_t nchunks;   /* chunks of the message */
    size_t base, rem; /* elements per chunk: base, and base + 1 for the first rem chunks */
    size_t per_max;   /* elements in the largest chunk */
} chunking_t;

static void chunking(const coll_args_t *a, size_t cap, chunking_t *c) {
    c->es = shoal_type_size(a->type);
    if (a->segsize && a->segsize < cap) cap = a->segsize;
    size_t per = cap / c->es;
    if (per == 0) per = 1; /* the scratch holds one element at least (scratch() says so) */
    c->nchunks = (a->count + per - 1) / per;
    c->base = c->nchunks ? a->count / c->nchunks : 0;
    c->rem = c->nchunks ? a->count % c->nchunks : 0;
    c->per_max = c->base + (c->rem ? 1 : 0);
}

/* First element and number of elements of chunk k. */
static void chunk_at(const chunking_t *c, size_t k, size_t *first, size_t *n) {
    *first = k * c->base + (k < c->rem ? k : c->rem);
    *n = c->base + (k < c->rem ? 1 : 0);
}

/* mine = (lower member's data) op (higher member's data), theirs being the partner's: the same
 * operand order on both partners, so both get the same bits. Integer operations commute
 * exactly; floating ones (min/max of signed zeros, NaN payloads) need the order. theirs (my
 * scratch) is clobbered. */
static void combine(const coll_args_t *a, char *mine, char *theirs, size_t n, int i_am_lower) {
    if (i_am_lower || coll_type_is_integer(a->type)) {
        coll_reduce_local(mine, theirs, n, a->type, a->op);
    } else {
        coll_reduce_local(theirs, mine, n, a->type, a->op);
        shoal__copy(mine, theirs, n * shoal_type_size(a->type));
    }
}

/* ---- Reduce-to-all: recursive doubling and Rabenseifner ----
 * Non-powers of two as in the paper: p' is the largest power of two <= p; member i gets the new
 * id floor(i p' / p); the (at most two) members with the same new id are partners. The higher
 * ("extra") puts its data into the lower's scratch; the lower reduces (lower op higher) into its
 * dest, runs the power-of-two algorithm with the p' lower members under their new ids, and puts
 * the result into its partner's dest. The extra members are spread evenly over the team.
 *
 * Every exchange is a put into the partner's scratch, announced by +1 on its DATA word for me,
 * and allowed by the partner's READY (its scratch is free: it has consumed what the previous
 * writer put there); allgather puts go straight into the partner's dest, which is free because
 * the partner is in this call and has already sent those blocks. */
static int32_t new_id(int32_t i, int32_t p, int32_t q) {
    return (int32_t)((int64_t)i * q / p);
}
static int32_t old_id(int32_t j, int32_t p, int32_t q) { /* the lower member with new id j */
    return (int32_t)(((int64_t)j * p + q - 1) / q);
}

/* First element of block b of q blocks over n elements (the first n % q blocks one longer). */
static size_t block_start(size_t n, int32_t q, size_t b) {
    size_t per = n / (size_t)q, rem = n % (size_t)q;
    return b * per + (b < rem ? b : rem);
}

/* One exchange with peer: my scratch is free (READY to it), its scratch is free (wait READY),
 * put n bytes of mine into its scratch, wait for its data in mine. */
static shoal_err_t swap_scratch(coll_args_t *a, int32_t peer, const char *mine, size_t n) {
    SHOAL_TRY(coll_ready(a, peer));
    SHOAL_TRY(coll_wait_ready(a, peer));
    SHOAL_TRY(coll_put_signal(a, peer, BUF_SCRATCH, 0, mine, n, W_DATA(a->me, a->p)));
    return coll_wait(a, W_DATA(peer, a->p), 1);
}

/* Recursive doubling over the q members of new ids 0..q-1 (j is mine) on n elements at acc. */
static shoal_err_t rd_chunk(coll_args_t *a, int32_t q, int32_t j, char *acc, size_t n, size_t es) {
    char *scratch = coll_local(a, BUF_SCRATCH, 0);
    for (int32_t d = 1; d < q; d <<= 1) {
        int32_t k = j ^ d;
        SHOAL_TRY(swap_scratch(a, old_id(k, a->p, q), acc, n * es));
        combine(a, acc, scratch, n, j < k);
    }
    return SHOAL_OK;
}

/* Rabenseifner: reduce-scatter by recursive halving (member j ends with block j of q reduced),
 * then allgather by recursive doubling straight into the partners' dest. acc is my dest at
 * element first of the chunk. */
static shoal_err_t rab_chunk(coll_args_t *a, int32_t q, int32_t j, char *acc, size_t first,
                             size_t n, size_t es) {
    char *scratch = coll_local(a, BUF_SCRATCH, 0);
    size_t lo = 0; /* first block of the range I am still reducing (2d blocks) */
    for (int32_t d = q / 2; d >= 1; d >>= 1) {
        int32_t k = j ^ d;
        size_t keep = (j & d) ? lo + (size_t)d : lo, give = (j & d) ? lo : lo + (size_t)d;
        size_t ks = block_start(n, q, keep), ke = block_start(n, q, keep + (size_t)d);
        size_t gs = block_start(n, q, give), ge = block_start(n, q, give + (size_t)d);
        SHOAL_TRY(swap_scratch(a, old_id(k, a->p, q), acc + gs * es, (ge - gs) * es));
        combine(a, acc + ks * es, scratch, ke - ks, j < k);
        lo = keep;
    }
    for (int32_t d = 1; d < q; d <<= 1) {
        int32_t k = j ^ d, peer = old_id(k, a->p, q);
        size_t mine = (size_t)(j & ~(d - 1)); /* the d blocks I hold: my aligned group */
        size_t s = block_start(n, q, mine), e = block_start(n, q, mine + (size_t)d);
        SHOAL_TRY(coll_put_signal(a, peer, BUF_DEST, (first + s) * es, acc + s * es, (e - s) * es,
                                  W_DATA(a->me, a->p)));
        SHOAL_TRY(coll_wait(a, W_DATA(peer, a->p), 1));
    }
    return SHOAL_OK;
}

static shoal_err_t reduce_tree(coll_args_t *a, int rabenseifner) {
    int32_t p = a->p, me = a->me, q = 1;
    while ((int64_t)q * 2 <= p) q *= 2;
    int32_t j = new_id(me, p, q), lower = -1, extra = -1;
    if (old_id(j, p, q) != me)
        lower = old_id(j, p, q); /* I am the extra member of my pair */
    else if (me + 1 < p && new_id(me + 1, p, q) == j)
        extra = me + 1;
    chunking_t c;
    chunking(a, a->ct->scratch_bytes, &c);
    size_t es = c.es;
    char *scratch = coll_local(a, BUF_SCRATCH, 0);
    for (size_t k = 0; k < c.nchunks; k++) {
        size_t first, n;
        chunk_at(&c, k, &first, &n);
        char *src = a->slocal + first * es, *acc = a->dlocal + first * es;
        if (lower >= 0) {
            SHOAL_TRY(coll_wait_ready(a, lower));
            SHOAL_TRY(coll_put_signal(a, lower, BUF_SCRATCH, 0, src, n * es, W_DATA(me, p)));
            SHOAL_TRY(coll_wait(a, W_DATA(lower, p), 1)); /* the result is in my dest */
            continue;
        }
        coll_copy_local(acc, src, n * es);
        if (extra >= 0) {
            SHOAL_TRY(coll_ready(a, extra));
            SHOAL_TRY(coll_wait(a, W_DATA(extra, p), 1));
            coll_reduce_local(acc, scratch, n, a->type, a->op); /* lower op higher */
        }
        if (rabenseifner)
            SHOAL_TRY(rab_chunk(a, q, j, acc, first, n, es));
        else
            SHOAL_TRY(rd_chunk(a, q, j, acc, n, es));
        if (extra >= 0)
            SHOAL_TRY(coll_put_signal(a, extra, BUF_DEST, first * es, acc, n * es, W_DATA(me, p)));
    }
    return SHOAL_OK;
}

static shoal_err_t reduce_recursive_doubling(coll_args_t *a) {
    return reduce_tree(a, 0);
}
static shoal_err_t reduce_rabenseifner(coll_args_t *a) {
    return reduce_tree(a, 1);
}

/* ---- Two-level (node-aware) reduce-to-all ----
 * Per chunk: each member puts its data into a slot of its node leader's scratch (slot i - 1 for
 * the i-th member of the node) and the leader reduces them in member order into its dest; the
 * leaders then run recursive doubling among themselves (non-powers of two fold pairs first, as
 * above, over leader numbers), so the network carries one vector per node and round; each
 * leader puts the result into its members' dests. All members get the leaders' bits. A leader
 * says READY to its members for each chunk, and to a peer leader for each exchange only once it
 * has reduced its members' slots: the exchanges use slot 0 after them. */
static int32_t node_slots(const coll_args_t *a) {
    return a->ct->node_max > 1 ? a->ct->node_max - 1 : 1;
}

/* The leaders' exchange of one chunk (acc, n elements at element `first`): I lead node mn. */
static shoal_err_t node_leaders(coll_args_t *a, char *acc, size_t first, size_t n, size_t es) {
    int32_t nl = a->ct->nnodes, mn = a->ct->node_of[a->me], q = 1;
    if (nl == 1) return SHOAL_OK;
    while ((int64_t)q * 2 <= nl) q *= 2;
    int32_t j = new_id(mn, nl, q);
    char *scratch = coll_local(a, BUF_SCRATCH, 0);
    if (old_id(j, nl, q) != mn) { /* the extra leader of a pair: fold into the lower one */
        int32_t lower = coll_node_leader(a, old_id(j, nl, q));
        SHOAL_TRY(coll_wait_ready(a, lower));
        SHOAL_TRY(coll_put_signal(a, lower, BUF_SCRATCH, 0, acc, n * es, W_DATA(a->me, a->p)));
        return coll_wait(a, W_DATA(lower, a->p), 1); /* the result is in my dest */
    }
    int32_t extra = mn + 1 < nl && new_id(mn + 1, nl, q) == j ? coll_node_leader(a, mn + 1) : -1;
    if (extra >= 0) {
        SHOAL_TRY(coll_ready(a, extra));
        SHOAL_TRY(coll_wait(a, W_DATA(extra, a->p), 1));
        coll_reduce_local(acc, scratch, n, a->type, a->op); /* lower op higher */
    }
    for (int32_t d = 1; d < q; d <<= 1) {
        int32_t k = j ^ d;
        SHOAL_TRY(swap_scratch(a, coll_node_leader(a, old_id(k, nl, q)), acc, n * es));
        combine(a, acc, scratch, n, j < k);
    }
    if (extra >= 0)
        SHOAL_TRY(
            coll_put_signal(a, extra, BUF_DEST, first * es, acc, n * es, W_DATA(a->me, a->p)));
    return SHOAL_OK;
}

static shoal_err_t reduce_node(coll_args_t *a) {
    int32_t cnt;
    const int32_t *mates = coll_node_mates(a, &cnt);
    int32_t leader = mates[0], slot = 0;
    for (int32_t i = 1; i < cnt; i++)
        if (mates[i] == a->me) slot = i - 1;
    chunking_t c;
    chunking(a, a->ct->scratch_bytes / (size_t)node_slots(a), &c);
    size_t es = c.es, stride = c.per_max * es;
    char *scratch = coll_local(a, BUF_SCRATCH, 0);
    for (size_t k = 0; k < c.nchunks; k++) {
        size_t first, n;
        chunk_at(&c, k, &first, &n);
        char *src = a->slocal + first * es, *acc = a->dlocal + first * es;
        if (a->me != leader) {
            SHOAL_TRY(coll_wait_ready(a, leader));
            SHOAL_TRY(coll_put_signal(a, leader, BUF_SCRATCH, (size_t)slot * stride, src, n * es,
                                      W_DATA(a->me, a->p)));
            SHOAL_TRY(coll_wait(a, W_DATA(leader, a->p), 1)); /* the result is in my dest */
            continue;
        }
        for (int32_t i = 1; i < cnt; i++) SHOAL_TRY(coll_ready(a, mates[i]));
        coll_copy_local(acc, src, n * es);
        for (int32_t i = 1; i < cnt; i++) {
            SHOAL_TRY(coll_wait(a, W_DATA(mates[i], a->p), 1));
            coll_reduce_local(acc, scratch + (size_t)(i - 1) * stride, n, a->type, a->op);
        }
        SHOAL_TRY(node_leaders(a, acc, first, n, es));
        for (int32_t i = 1; i < cnt; i++)
            SHOAL_TRY(coll_put_signal(a, mates[i], BUF_DEST, first * es, acc, n * es,
                                      W_DATA(a->me, a->p)));
    }
    return SHOAL_OK;
}

/* Two-level with the MPI library between nodes (node_native): each leader reads its node mates'
 * whole vectors (they said READY: their src holds this call's data) into private staging and
 * reduces them in member order into its dest, the leaders run one MPI_Allreduce in place on
 * their own communicator (leaders.c), and the mates read the result from their leader's dest at
 * once, in parallel, then say DONE. No chunks: one MPI call for the whole vector (chunks of the
 * scratch in turn were 1.6x MPI_Allreduce at 1 MiB, Open MPI across two nodes at 10 Gbit/s). A
 * mate's src is read before it writes its dest, so in place works. */
static shoal_err_t reduce_node_native(coll_args_t *a) {
    SHOAL_TRY(coll_leaders_ready(a));
    int32_t cnt;
    const int32_t *mates = coll_node_mates(a, &cnt);
    size_t bytes = a->count * shoal_type_size(a->type);
    if (a->me != mates[0]) {
        SHOAL_TRY(coll_ready(a, mates[0]));
        return coll_pull(a, mates[0], BUF_DEST, bytes);
    }
    char *staging = cnt > 1 ? coll_local_buffer(a, bytes) : NULL;
    if (cnt > 1 && !staging)
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory (%zu bytes of staging)", bytes);
    coll_copy_local(a->dlocal, a->slocal, bytes);
    for (int32_t i = 1; i < cnt; i++) {
        SHOAL_TRY(coll_wait_ready(a, mates[i]));
        SHOAL_TRY(coll_get(a, staging, mates[i], BUF_SRC, 0, bytes));
        coll_reduce_local(a->dlocal, staging, a->count, a->type, a->op);
    }
    SHOAL_TRY(coll_leaders_allreduce(a, a->dlocal, a->count));
    for (int32_t i = 1; i < cnt; i++) SHOAL_TRY(coll_signal(a, mates[i], W_DATA(a->me, a->p)));
    for (int32_t i = 1; i < cnt; i++) SHOAL_TRY(coll_wait(a, W_DATA(mates[i], a->p), 1));
    return SHOAL_OK;
}

/* A slot of one element at least per member of the largest node but its leader. */
static size_t scratch_node(const coll_args_t *a) {
    return (size_t)node_slots(a) * shoal_type_size(a->type);
}

/* One element of scratch at least (the message goes through in chunks). */
static size_t scratch_one(const coll_args_t *a) {
    return shoal_type_size(a->type);
}

/* ---- Scan: recursive doubling (Hillis-Steele) ----
 * In round k (d = 2^k) member i puts its partial sum s (members (i - d, i]) into member i + d's
 * scratch and adds the one from i - d: afterwards s covers (i - 2d, i]. The exclusive scan keeps
 * e (members (i - d, i - 1], empty at first) beside it: e += what arrives. Member 0's exclusive
 * result is 0. Inclusive: s lives in dest. Exclusive: e lives in dest, s in the upper half of my
 * scratch (nobody else writes there). */
static shoal_err_t scan_recursive_doubling(coll_args_t *a) {
    int32_t p = a->p, me = a->me;
    chunking_t c;
    size_t es = shoal_type_size(a->type);
    size_t cap = a->inclusive ? a->ct->scratch_bytes : a->ct->scratch_bytes / (2 * es) * es;
    chunking(a, cap, &c);
    char *scratch = coll_local(a, BUF_SCRATCH, 0);
    char *s_excl = coll_local(a, BUF_SCRATCH, c.per_max * es);
    for (size_t k = 0; k < c.nchunks; k++) {
        size_t first, n;
        chunk_at(&c, k, &first, &n);
        char *src = a->slocal + first * es, *dst = a->dlocal + first * es;
        char *s = a->inclusive ? dst : s_excl;
        int have_e = 0;
        shoal__copy(s, src, n * es); /* dest and src never overlap (the entry point checks) */
        for (int32_t d = 1; d < p; d <<= 1) {
            int32_t up = me + d < p ? me + d : -1, down = me >= d ? me - d : -1;
            if (down >= 0) SHOAL_TRY(coll_ready(a, down));
            if (up >= 0) {
                SHOAL_TRY(coll_wait_ready(a, up));
                SHOAL_TRY(coll_put_signal(a, up, BUF_SCRATCH, 0, s, n * es, W_DATA(me, p)));
            }
            if (down >= 0) {
                SHOAL_TRY(coll_wait(a, W_DATA(down, p), 1));
                if (!a->inclusive) {
                    if (have_e)
                        coll_reduce_local(dst, scratch, n, a->type, a->op);
                    else
                        shoal__copy(dst, scratch, n * es);
                    have_e = 1;
                }
                coll_reduce_local(s, scratch, n, a->type, a->op);
            }
        }
        if (!a->inclusive && !have_e) memset(dst, 0, n * es); /* member 0 */
    }
    return SHOAL_OK;
}

/* Exclusive scans keep a second chunk in the scratch. */
static size_t scratch_scan(const coll_args_t *a) {
    return (a->inclusive ? 1 : 2) * shoal_type_size(a->type);
}

const coll_algo_t coll_reduce_algos[] = {
    {COLL_REDUCE, "linear", 0, 0, 0, 0, 0, NULL, reduce_linear,
     "every member gets every src and reduces in member order"},
    {COLL_REDUCE, "eager", NEEDS_XCHG, 0, 0, 0, 0, NULL, coll_eager_reduce,
     "every member puts its vector into a cell of every member's area; each reduces in member "
     "order "
     "(up to 1080 B, 16 units)"},
    {COLL_REDUCE, "recursive_doubling", 0, 0, 0, 0, 0, scratch_one, reduce_recursive_doubling,
     "log2 p' exchanges of the whole (chunked) vector; non-powers of two fold pairs first"},
    {COLL_REDUCE, "rabenseifner", NEEDS_COUNT_GE_UNITS, 0, 0, 0, 0, scratch_one,
     reduce_rabenseifner,
     "reduce-scatter by recursive halving, allgather by recursive doubling; pairs fold first"},
    {COLL_REDUCE, "node", 0, 0, 0, 0, 0, scratch_node, reduce_node,
     "two-level: members reduce into their node leader, recursive doubling among the leaders, "
     "leaders put the result back"},
    {COLL_REDUCE, "node_native", NEEDS_MPI_COLL, 0, 0, 0, 0, NULL, reduce_node_native,
     "two-level: the node leader reduces its members' vectors, MPI_Allreduce among the leaders, "
     "members read the result"},
    {COLL_REDUCE, "native", NEEDS_MPI_COLL, 0, 0, 0, 0, NULL, coll_native,
     "MPI_Allreduce on the team's communicator"},
};
const int coll_reduce_nalgos = sizeof coll_reduce_algos / sizeof coll_reduce_algos[0];

const coll_algo_t coll_scan_algos[] = {
    {COLL_SCAN, "linear", 0, 0, 0, 0, 0, NULL, scan_linear,
     "member i gets the src of members 0..i and sums in member order"},
    {COLL_SCAN, "eager", NEEDS_XCHG, 0, 0, 0, 0, NULL, coll_eager_scan,
     "every member puts its vector into a cell of each later member's area (up to 1080 B, 16 "
     "units)"},
    {COLL_SCAN, "recursive_doubling", 0, 0, 0, 0, 0, scratch_scan, scan_recursive_doubling,
     "Hillis-Steele: ceil(log2 p) rounds, member i sends its partial sum to i + 2^k"},
    {COLL_SCAN, "native", NEEDS_MPI_COLL, 0, 0, 0, 0, NULL, coll_native,
     "MPI_Scan, or MPI_Exscan, on the team's communicator"},
};
const int coll_scan_nalgos = sizeof coll_scan_algos / sizeof coll_scan_algos[0];
