/* Alltoall and alltoalls algorithms: p rounds, each a put to a different peer (the block for
 * myself is a local copy); they differ in the order of peers:
 *   shift           round r: send to me + r
 *   xor_pairwise    round r: exchange with me XOR r (team size a power of two)
 *   color_pairwise  round r: exchange with my partner in colour r of an edge colouring of the
 *                   complete graph on the team (any team size)
 * Two ways to complete:
 *   counters (the plain names): every member says READY to each peer on entry; a block goes to a
 *     peer only after its READY, and is followed by +1 on the peer's DATA word for me; a member
 *     is done when every peer's DATA word has arrived.
 *   barrier (the "_barrier" names): a dissemination barrier on entry (every member has entered,
 *     so every dest is free for this call), the puts with no signals (each is complete at the
 *     target when coll_put returns), and a dissemination barrier at the end (every put of every
 *     member is complete). 2 ceil(log2 p) signals per member instead of 2 (p - 1).
 * alltoalls with a strided dest stages the blocks through the receivers' scratch (see
 * exchange_staged) rather than putting element by element.
 * The barriers use W_ROUND(k) with the same sender (member me - 2^k) as barrier
 * "dissemination", so consecutive calls count each word exactly. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"

/* Sends my block for peer (alltoall: contiguous; alltoalls: strided elements), then, when
 * signal is set and peer is not me, adds 1 to peer's DATA word for me. pack: nelems elements of
 * local staging for alltoalls (NULL when not needed). */
static shoal_err_t send_block(coll_args_t *a, int32_t peer, int signal, char *pack) {
    int self = peer == a->me;
    if (a->kind == COLL_ALLTOALL) {
        const char *blk = a->slocal + (size_t)peer * a->nbytes;
        size_t off = (size_t)a->me * a->nbytes;
        if (self) {
            coll_copy_local(a->dlocal + off, blk, a->nbytes);
            return SHOAL_OK;
        }
        if (signal)
            return coll_put_signal(a, peer, BUF_DEST, off, blk, a->nbytes, W_DATA(a->me, a->p));
        return coll_put(a, peer, BUF_DEST, off, blk, a->nbytes);
    }
    /* alltoalls: element k of the block for peer is at src element (peer * n + k) * sst; it lands
     * at dest element (me * n + k) * dst on peer. */
    size_t es = a->elem_size, n = a->nelems, sst = (size_t)a->sst, dst = (size_t)a->dst;
    const char *from = a->slocal + (size_t)peer * n * sst * es;
    size_t to = (size_t)a->me * n * dst * es;
    if (self) {
        if (dst == 1 && sst == 1) { /* contiguous on both sides: one copy, not one per element */
            coll_copy_local(a->dlocal + to, from, n * es);
            return SHOAL_OK;
        }
        for (size_t k = 0; k < n; k++)
            coll_copy_local(a->dlocal + to + k * dst * es, from + k * sst * es, es);
        return SHOAL_OK;
    }
    /* Contiguous at the peer (a strided dest goes through exchange_staged, or n is 0): one put,
     * packed here first when my side is strided. */
    const char *blk = from;
    if (sst != 1 && n) {
        for (size_t k = 0; k < n; k++) memcpy(pack + k * es, from + k * sst * es, es);
        blk = pack;
    }
    SHOAL_TRY(coll_put(a, peer, BUF_DEST, to, blk, n * es));
    return signal ? coll_signal(a, peer, W_DATA(a->me, a->p)) : SHOAL_OK;
}

/* Dissemination barrier over the round words (as barrier "dissemination"). */
static shoal_err_t dissemination(coll_args_t *a) {
    int round = 0;
    for (int32_t dist = 1; dist < a->p; dist <<= 1, round++) {
        SHOAL_TRY(coll_signal(a, (a->me + dist) % a->p, W_ROUND(round, a->p)));
        SHOAL_TRY(coll_wait(a, W_ROUND(round, a->p), 1));
    }
    return SHOAL_OK;
}

typedef int32_t (*partner_fn)(const coll_args_t *a, int32_t round);

/* Runs the exchange with peers in the order given by partner(a, round), round < rounds; every
 * member (myself included) is the partner of exactly one round. */
static shoal_err_t exchange_direct(coll_args_t *a, partner_fn partner, int32_t rounds,
                                   int by_barrier, char *pack) {
    if (by_barrier) {
        SHOAL_TRY(dissemination(a));
        for (int32_t r = 0; r < rounds; r++) SHOAL_TRY(send_block(a, partner(a, r), 0, pack));
        return dissemination(a);
    }
    for (int32_t r = 0; r < rounds; r++) {
        int32_t peer = partner(a, r);
        if (peer != a->me) SHOAL_TRY(coll_ready(a, peer));
    }
    for (int32_t r = 0; r < rounds; r++) {
        int32_t peer = partner(a, r);
        if (peer != a->me) SHOAL_TRY(coll_wait_ready(a, peer));
        SHOAL_TRY(send_block(a, peer, 1, pack));
    }
    for (int32_t r = 0; r < rounds; r++) {
        int32_t peer = partner(a, r);
        if (peer != a->me) SHOAL_TRY(coll_wait(a, W_DATA(peer, a->p), 1));
    }
    return SHOAL_OK;
}

/* ---- alltoalls with a strided dest (dst > 1) ----
 * A put per element would cost a round trip per element on the MPI path, so the blocks travel
 * packed through the receivers' scratch: the scratch holds a slot per sender (slot s at
 * s * slot bytes), a block goes in chunks of at most a slot, and the receiver unpacks each
 * chunk into its dest with its stride. Counters: a slot is free when its receiver says READY
 * (once on entry, then after unpacking each chunk but the last); a chunk has arrived with +1 on
 * the receiver's DATA word for the sender. Barriers: one on entry, then per chunk the puts, a
 * barrier (every chunk has arrived), the unpacking, and a barrier before the next chunk's puts
 * (every slot is free again). */
static size_t slot_elems(const coll_args_t *a) {
    size_t es = a->elem_size, m = a->ct->scratch_bytes / (size_t)a->p / es;
    if (a->segsize && a->segsize / es < m) m = a->segsize / es;
    return m ? m : 1; /* scratch() guarantees one element per slot */
}

static int staged(const coll_args_t *a) {
    return a->kind == COLL_ALLTOALLS && a->dst != 1 && a->nelems && a->p > 1;
}

/* Packs elements [k0, k0 + m) of my block for peer into buf. */
static void pack_chunk(const coll_args_t *a, int32_t peer, size_t k0, size_t m, char *buf) {
    size_t es = a->elem_size, sst = (size_t)a->sst;
    const char *from = a->slocal + ((size_t)peer * a->nelems + k0) * sst * es;
    if (sst == 1) {
        shoal__copy(buf, from, m * es);
        return;
    }
    for (size_t k = 0; k < m; k++) memcpy(buf + k * es, from + k * sst * es, es);
}

/* Unpacks elements [k0, k0 + m) of from's block for me from my slot for from. */
static void unpack_chunk(coll_args_t *a, int32_t from, size_t k0, size_t m, size_t slot) {
    size_t es = a->elem_size, dst = (size_t)a->dst;
    const char *in = coll_local(a, BUF_SCRATCH, (size_t)from * slot * es);
    char *out = a->dlocal + ((size_t)from * a->nelems + k0) * dst * es;
    for (size_t k = 0; k < m; k++) memcpy(out + k * dst * es, in + k * es, es);
}

static shoal_err_t exchange_staged(coll_args_t *a, partner_fn partner, int32_t rounds,
                                   int by_barrier, char *pack) {
    size_t n = a->nelems, slot = slot_elems(a), es = a->elem_size;
    size_t nchunks = (n + slot - 1) / slot;
    int32_t me = a->me;
    if (by_barrier)
        SHOAL_TRY(dissemination(a));
    else
        for (int32_t r = 0; r < rounds; r++)
            if (partner(a, r) != me) SHOAL_TRY(coll_ready(a, partner(a, r)));
    SHOAL_TRY(send_block(a, me, 0, NULL)); /* my own block: local copies */
    for (size_t c = 0; c < nchunks; c++) {
        size_t k0 = c * slot, m = n - k0 < slot ? n - k0 : slot;
        if (by_barrier && c) SHOAL_TRY(dissemination(a));
        for (int32_t r = 0; r < rounds; r++) {
            int32_t peer = partner(a, r);
            if (peer == me) continue;
            if (!by_barrier) SHOAL_TRY(coll_wait_ready(a, peer));
            pack_chunk(a, peer, k0, m, pack);
            size_t off = (size_t)me * slot * es;
            if (by_barrier)
                SHOAL_TRY(coll_put(a, peer, BUF_SCRATCH, off, pack, m * es));
            else
                SHOAL_TRY(
                    coll_put_signal(a, peer, BUF_SCRATCH, off, pack, m * es, W_DATA(me, a->p)));
        }
        if (by_barrier) SHOAL_TRY(dissemination(a));
        for (int32_t r = 0; r < rounds; r++) {
            int32_t peer = partner(a, r);
            if (peer == me) continue;
            if (!by_barrier) SHOAL_TRY(coll_wait(a, W_DATA(peer, a->p), 1));
            unpack_chunk(a, peer, k0, m, slot);
            if (!by_barrier && c + 1 < nchunks) SHOAL_TRY(coll_ready(a, peer));
        }
    }
    return SHOAL_OK;
}

/* The scratch a staged alltoalls needs: one element per sender's slot. */
static size_t alltoalls_scratch(const coll_args_t *a) {
    return a->dst > 1 ? (size_t)a->p * a->elem_size : 0;
}

static shoal_err_t exchange(coll_args_t *a, partner_fn partner, int32_t rounds, int by_barrier) {
    char *pack = NULL;
    int stage = staged(a);
    if (a->kind == COLL_ALLTOALLS && a->nelems && a->p > 1 && (stage || a->sst != 1)) {
        size_t m = stage ? slot_elems(a) : a->nelems;
        if (m > a->nelems) m = a->nelems;
        /* the team's local buffer, kept from call to call (no allocation per call) */
        pack = coll_local_buffer(a, m * a->elem_size);
        if (!pack) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    return stage ? exchange_staged(a, partner, rounds, by_barrier, pack)
                 : exchange_direct(a, partner, rounds, by_barrier, pack);
}

/* Shift: in round r send to me + r (round 0 is myself). */
static int32_t shift_partner(const coll_args_t *a, int32_t r) {
    return (a->me + r) % a->p;
}

/* XOR pairwise: in round r my partner is me XOR r (round 0 is myself); p a power of two. */
static int32_t xor_partner(const coll_args_t *a, int32_t r) {
    return a->me ^ r;
}

/* Colour pairwise: a 1-factorisation of the complete graph, so that in every round the members
 * pair off. Odd p: round r pairs i with (r - i) mod p; the member with 2i = r (mod p) meets
 * itself. Even p: round 0 is myself; round r >= 1 uses colour c = r - 1 of the odd construction
 * on the first p - 1 members, and member p - 1 takes the one who would meet itself. */
static int32_t mod(int64_t x, int32_t m) {
    int64_t v = x % m;
    return (int32_t)(v < 0 ? v + m : v);
}
static int32_t color_partner(const coll_args_t *a, int32_t r) {
    int32_t p = a->p, me = a->me;
    if (p % 2) return mod((int64_t)r - me, p);
    if (r == 0) return me;
    int32_t q = p - 1, c = r - 1;
    if (me == q) return mod((int64_t)c * ((q + 1) / 2), q); /* the i with 2i = c (mod q) */
    int32_t x = mod((int64_t)c - me, q);
    return x == me ? q : x;
}

static shoal_err_t alltoall_shift(coll_args_t *a) {
    return exchange(a, shift_partner, a->p, 0);
}
static shoal_err_t alltoall_xor(coll_args_t *a) {
    return exchange(a, xor_partner, a->p, 0);
}
static shoal_err_t alltoall_color(coll_args_t *a) {
    return exchange(a, color_partner, a->p, 0);
}
static shoal_err_t alltoall_shift_barrier(coll_args_t *a) {
    return exchange(a, shift_partner, a->p, 1);
}
static shoal_err_t alltoall_xor_barrier(coll_args_t *a) {
    return exchange(a, xor_partner, a->p, 1);
}
static shoal_err_t alltoall_color_barrier(coll_args_t *a) {
    return exchange(a, color_partner, a->p, 1);
}

const coll_algo_t coll_alltoall_algos[] = {
    {COLL_ALLTOALL, "eager", NEEDS_XCHG, 0, 0, 0, 0, NULL, coll_eager_alltoall,
     "every member puts each block into a cell of its member's area and goes (up to 1080 B, 16 "
     "units)"},
    {COLL_ALLTOALL, "shift", 0, 0, 0, 0, 0, NULL, alltoall_shift,
     "round r: send to me+r; counters"},
    {COLL_ALLTOALL, "xor_pairwise", NEEDS_POW2, 0, 0, 0, 0, NULL, alltoall_xor,
     "round r: exchange with me XOR r; counters"},
    {COLL_ALLTOALL, "color_pairwise", 0, 0, 0, 0, 0, NULL, alltoall_color,
     "round r: exchange with my partner in colour r of K_p; counters"},
    {COLL_ALLTOALL, "shift_barrier", 0, 0, 0, 0, 0, NULL, alltoall_shift_barrier,
     "round r: send to me+r; barriers before and after"},
    {COLL_ALLTOALL, "xor_pairwise_barrier", NEEDS_POW2, 0, 0, 0, 0, NULL, alltoall_xor_barrier,
     "round r: exchange with me XOR r; barriers before and after"},
    {COLL_ALLTOALL, "color_pairwise_barrier", 0, 0, 0, 0, 0, NULL, alltoall_color_barrier,
     "round r: exchange with my partner in colour r of K_p; barriers before and after"},
    {COLL_ALLTOALL, "native", NEEDS_MPI_COLL, 0, 0, 0, 0, NULL, coll_native,
     "MPI_Alltoall on the team's communicator"},
};
const int coll_alltoall_nalgos = sizeof coll_alltoall_algos / sizeof coll_alltoall_algos[0];

const coll_algo_t coll_alltoalls_algos[] = {
    {COLL_ALLTOALLS, "shift", 0, 0, 0, 0, 0, alltoalls_scratch, alltoall_shift,
     "round r: send to me+r; counters"},
    {COLL_ALLTOALLS, "xor_pairwise", NEEDS_POW2, 0, 0, 0, 0, alltoalls_scratch, alltoall_xor,
     "round r: exchange with me XOR r; counters"},
    {COLL_ALLTOALLS, "color_pairwise", 0, 0, 0, 0, 0, alltoalls_scratch, alltoall_color,
     "round r: exchange with my partner in colour r of K_p; counters"},
    {COLL_ALLTOALLS, "shift_barrier", 0, 0, 0, 0, 0, alltoalls_scratch, alltoall_shift_barrier,
     "round r: send to me+r; barriers before and after"},
    {COLL_ALLTOALLS, "xor_pairwise_barrier", NEEDS_POW2, 0, 0, 0, 0, alltoalls_scratch,
     alltoall_xor_barrier, "round r: exchange with me XOR r; barriers before and after"},
    {COLL_ALLTOALLS, "color_pairwise_barrier", 0, 0, 0, 0, 0, alltoalls_scratch,
     alltoall_color_barrier,
     "round r: exchange with my partner in colour r of K_p; barriers before and after"},
};
const int coll_alltoalls_nalgos = sizeof coll_alltoalls_algos / sizeof coll_alltoalls_algos[0];
