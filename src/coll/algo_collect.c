/* Collect and fcollect algorithms (SHCOLL section 5.2). a->sizes/offsets say where each member's
 * block goes (for fcollect all sizes are equal), a->total is the size of the whole result.
 *
 * Common to all of them:
 * - On entry a member first copies its own block from src into its dest, and only then says
 *   READY to the members that will write into it: from then on every byte it sends comes from
 *   its dest (own block and forwarded ones alike), so src is free as soon as the copy is done,
 *   even when it overlaps dest.
 * - Nobody reads a peer's buffers (puts only), so no DONE handshakes are needed: a member returns
 *   once everything addressed to it has arrived.
 * - Data from member s is always announced on W_DATA(s) (one sender per word: a sender's signals
 *   arrive in order, so counting them cannot mix calls up). A round signals even when it carries
 *   no bytes, so every member depends on every other one and counts balance per call.
 * - Intermediate hops forward blocks that are already in dest, at their final offsets (except
 *   "bruck", which works in a rotated layout and rotates locally at the end).
 * None needs the team scratch. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"

/* Bytes of the n blocks b, b+1, ..., b+n-1 (mod p); n <= p. */
static size_t span_bytes(const coll_args_t *a, int32_t b, int32_t n) {
    if (n <= 0) return 0;
    b %= a->p;
    int32_t last = b + n - 1;
    if (last < a->p) return coll_block_end(a, last) - a->offsets[b];
    return (a->total - a->offsets[b]) + coll_block_end(a, last - a->p);
}

/* Puts the n blocks b..b+n-1 (mod p) of my dest, at their final offsets, into peer's dest, then
 * signals W_DATA(me) once. A range that wraps past the last member goes as two puts. */
static shoal_err_t put_blocks(coll_args_t *a, int32_t peer, int32_t b, int32_t n) {
    b %= a->p;
    if (n > 0) {
        int32_t last = b + n - 1;
        size_t off = a->offsets[b];
        if (last < a->p) {
            SHOAL_TRY(
                coll_put(a, peer, BUF_DEST, off, a->dlocal + off, coll_block_end(a, last) - off));
        } else {
            SHOAL_TRY(coll_put(a, peer, BUF_DEST, off, a->dlocal + off, a->total - off));
            SHOAL_TRY(coll_put(a, peer, BUF_DEST, 0, a->dlocal, coll_block_end(a, last - a->p)));
        }
    }
    return coll_signal(a, peer, W_DATA(a->me, a->p));
}

/* Copies my own block from src to its place in dest (before anybody may write into dest). */
static void copy_own(coll_args_t *a, size_t at) {
    coll_copy_local(a->dlocal + at, a->slocal, a->sizes[a->me]);
}

static int32_t mod(int32_t x, int32_t p) {
    x %= p;
    return x < 0 ? x + p : x;
}

/* Linear: every member puts its block into every member's dest (starting with its right
 * neighbour, so no member is everybody's first target), after that member said READY. */
static shoal_err_t collect_linear(coll_args_t *a) {
    copy_own(a, a->offsets[a->me]);
    for (int32_t i = 1; i < a->p; i++) SHOAL_TRY(coll_ready(a, (a->me + a->p - i) % a->p));
    for (int32_t i = 1; i < a->p; i++) {
        int32_t peer = (a->me + i) % a->p;
        SHOAL_TRY(coll_wait_ready(a, peer));
        SHOAL_TRY(put_blocks(a, peer, a->me, 1));
    }
    for (int32_t i = 1; i < a->p; i++) SHOAL_TRY(coll_wait(a, W_DATA((a->me + i) % a->p, a->p), 1));
    return SHOAL_OK;
}

/* Ring: p-1 rounds; in round r member i sends block i-r to i+1 and receives block i-r-1 from
 * i-1, which it forwards in the next round. */
static shoal_err_t collect_ring(coll_args_t *a) {
    int32_t p = a->p, me = a->me;
    copy_own(a, a->offsets[me]);
    if (p == 1) return SHOAL_OK;
    int32_t right = (me + 1) % p, left = (me + p - 1) % p;
    SHOAL_TRY(coll_ready(a, left));
    SHOAL_TRY(coll_wait_ready(a, right));
    for (int32_t r = 0; r < p - 1; r++) {
        SHOAL_TRY(put_blocks(a, right, mod(me - r, p), 1));
        SHOAL_TRY(coll_wait(a, W_DATA(left, p), 1)); /* block me-r-1 is here */
    }
    return SHOAL_OK;
}

/* Recursive doubling (p a power of two): in round k member i exchanges with i XOR 2^k all it
 * has so far, the 2^k blocks of its aligned group (contiguous in dest). */
static shoal_err_t collect_recursive_doubling(coll_args_t *a) {
    int32_t p = a->p, me = a->me;
    copy_own(a, a->offsets[me]);
    for (int32_t d = 1; d < p; d <<= 1) SHOAL_TRY(coll_ready(a, me ^ d));
    for (int32_t d = 1; d < p; d <<= 1) {
        int32_t peer = me ^ d;
        SHOAL_TRY(coll_wait_ready(a, peer));
        SHOAL_TRY(put_blocks(a, peer, me & ~(d - 1), d));
        SHOAL_TRY(coll_wait(a, W_DATA(peer, p), 1)); /* the partner's group is here */
    }
    return SHOAL_OK;
}

/* Rotates buf left by `left` bytes (buf = X Y with |X| = left becomes Y X). The smaller part
 * goes through tmp (the team's local buffer, kept from call to call, as reduce's staging is);
 * without it (NULL), three reversals do it in place. The rotation moves the result once and its
 * smaller part twice more, which is why bruck takes 2-4x bruck_norotate's time at 2 units. */
static void reverse(char *s, size_t n) {
    for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
        char c = s[i];
        s[i] = s[j - 1];
        s[j - 1] = c;
    }
}
static void rotate_left(char *buf, size_t n, size_t left, char *tmp) {
    if (!left || left >= n) return;
    size_t right = n - left;
    if (tmp && left <= right) {
        shoal__copy(tmp, buf, left);
        shoal__move(buf, buf + left, right);
        shoal__copy(buf + right, tmp, left);
    } else if (tmp) {
        shoal__copy(tmp, buf + left, right);
        shoal__move(buf + right, buf, left);
        shoal__copy(buf, tmp, right);
    } else {
        reverse(buf, left);
        reverse(buf + left, right);
        reverse(buf, n);
    }
}

/* Bruck: ceil(log2 p) rounds, any p. Dest holds the blocks rotated so that my own comes first
 * (position j = block me+j). In round k member i sends its first min(2^k, p-2^k) positions, one
 * contiguous message, to member i-2^k, at that member's position 2^k. After the last round the
 * dest is rotated locally into the final order. */
static shoal_err_t collect_bruck(coll_args_t *a) {
    int32_t p = a->p, me = a->me;
    copy_own(a, 0);
    for (int32_t d = 1; d < p; d <<= 1) SHOAL_TRY(coll_ready(a, (me + d) % p));
    for (int32_t d = 1; d < p; d <<= 1) {
        int32_t to = mod(me - d, p), from = (me + d) % p;
        int32_t n = d < p - d ? d : p - d;
        SHOAL_TRY(coll_wait_ready(a, to));
        SHOAL_TRY(coll_put_signal(a, to, BUF_DEST, span_bytes(a, to, d), a->dlocal,
                                  span_bytes(a, me, n), W_DATA(me, p)));
        SHOAL_TRY(coll_wait(a, W_DATA(from, p), 1)); /* positions d..d+n-1 are here */
    }
    /* Positions 0.. hold blocks me..p-1 then 0..me-1: bring blocks 0..me-1 to the front. */
    size_t left = a->total - a->offsets[me], right = a->offsets[me];
    rotate_left(a->dlocal, a->total, left, coll_local_buffer(a, left < right ? left : right));
    return SHOAL_OK;
}

/* Bruck without the rotation: the same exchange, but blocks go straight to their final offsets;
 * a range of blocks that wraps past the last member is sent as two puts. */
static shoal_err_t collect_bruck_norotate(coll_args_t *a) {
    int32_t p = a->p, me = a->me;
    copy_own(a, a->offsets[me]);
    for (int32_t d = 1; d < p; d <<= 1) SHOAL_TRY(coll_ready(a, (me + d) % p));
    for (int32_t d = 1; d < p; d <<= 1) {
        int32_t to = mod(me - d, p), from = (me + d) % p;
        SHOAL_TRY(coll_wait_ready(a, to));
        SHOAL_TRY(put_blocks(a, to, me, d < p - d ? d : p - d)); /* blocks me..me+n-1 */
        SHOAL_TRY(coll_wait(a, W_DATA(from, p), 1));
    }
    return SHOAL_OK;
}

/* Neighbor exchange (p even): p/2 rounds over the pairs of blocks {2j, 2j+1} (contiguous in
 * dest). Round 0: i exchanges its block with i XOR 1, so both hold their pair. Round t >= 1: i
 * sends the pair it received in round t-1 (its own pair in round 1) to one neighbour and receives
 * one from it: in odd rounds even members pair with i-1 and odd ones with i+1, in even rounds
 * the other way round. An even member of pair j receives pairs j-1, j+1, j-2, j+2, ...; an odd
 * one j+1, j-1, j+2, j-2, ... Sizes may vary per block: each pair goes at its offsets. */
static int32_t nx_partner(int32_t me, int32_t t, int32_t p) {
    int even = me % 2 == 0;
    if (t % 2 == 0) return me ^ 1; /* round 0 and even rounds */
    return even ? mod(me - 1, p) : (me + 1) % p;
}
/* The pair member me receives in round t >= 1 (its own pair for t = 0). */
static int32_t nx_received(int32_t me, int32_t t, int32_t p) {
    int32_t npairs = p / 2, j = me / 2, step = (t + 1) / 2;
    if (t == 0) return j;
    int down = (me % 2 == 0) == (t % 2 == 1); /* even members go down in odd rounds */
    return mod(down ? j - step : j + step, npairs);
}
static shoal_err_t collect_neighbor_exchange(coll_args_t *a) {
    int32_t p = a->p, me = a->me;
    copy_own(a, a->offsets[me]);
    if (p == 1) return SHOAL_OK; /* not reached: needs an even team */
    int32_t rounds = p / 2;
    /* Writers into me: my round-0 partner, and my odd-round partner when there are odd rounds
     * (for p = 2 there is one round only). */
    SHOAL_TRY(coll_ready(a, nx_partner(me, 0, p)));
    if (rounds > 1) SHOAL_TRY(coll_ready(a, nx_partner(me, 1, p)));
    for (int32_t t = 0; t < rounds; t++) {
        int32_t peer = nx_partner(me, t, p);
        if (t < 2) SHOAL_TRY(coll_wait_ready(a, peer));
        if (t == 0)
            SHOAL_TRY(put_blocks(a, peer, me, 1));
        else
            SHOAL_TRY(put_blocks(a, peer, 2 * nx_received(me, t - 1, p), 2));
        SHOAL_TRY(coll_wait(a, W_DATA(peer, p), 1));
    }
    return SHOAL_OK;
}

/* ---- Two-level (node-aware) ----
 * 1. Every member puts its block into every node mate's dest (in shared memory: copies, all at
 *    once). 2. Every leader, once it has its node's blocks, puts them (in runs of consecutive
 *    members, each run one put) into every other leader's dest, starting with the next node.
 * 3. Each leader, once it has everything, puts the other nodes' blocks into its members' dests.
 * So each block crosses the network once per other node, a node's own blocks move once, and only
 * the other nodes' blocks go through the leader. (It used to send every block through the
 * leader and back, its members' own included: at one node of 2 units, 3-4.5x linear.)
 * READY: every member to its node mates (which write its dest), a leader also to the other
 * leaders. A member hears twice from its leader when there are other nodes (its block, then the
 * others'). node_native: step 2 is MPI_Allgatherv in place among the leaders (leaders.c), each
 * node's blocks one run (NEEDS_NODE_RUNS); the leaders then need no READY from each other. */
/* Puts into peer's dest, at their final offsets, the blocks of the members listed in
 * members[0..cnt) (ascending), one put per run of consecutive members. */
static shoal_err_t put_member_runs(coll_args_t *a, int32_t peer, const int32_t *members,
                                   int32_t cnt) {
    for (int32_t i = 0; i < cnt;) {
        int32_t run = 1;
        while (i + run < cnt && members[i + run] == members[i] + run) run++;
        size_t off = a->offsets[members[i]];
        SHOAL_TRY(coll_put(a, peer, BUF_DEST, off, a->dlocal + off,
                           coll_block_end(a, members[i] + run - 1) - off));
        i += run;
    }
    return SHOAL_OK;
}

static shoal_err_t collect_two_level(coll_args_t *a, int native) {
    int32_t cnt, nn = a->ct->nnodes, mn = a->ct->node_of[a->me];
    const int32_t *mates = coll_node_mates(a, &cnt);
    const int leader = a->me == mates[0];
    copy_own(a, a->offsets[a->me]);
    for (int32_t i = 0; i < cnt; i++)
        if (mates[i] != a->me) SHOAL_TRY(coll_ready(a, mates[i]));
    if (leader && !native)
        for (int32_t s = 1; s < nn; s++)
            SHOAL_TRY(coll_ready(a, coll_node_leader(a, (mn + s) % nn)));
    /* 1: my block to my node mates, starting with the next one */
    int32_t my_idx = 0;
    while (mates[my_idx] != a->me) my_idx++;
    for (int32_t k = 1; k < cnt; k++) {
        int32_t peer = mates[(my_idx + k) % cnt];
        SHOAL_TRY(coll_wait_ready(a, peer));
        SHOAL_TRY(put_blocks(a, peer, a->me, 1));
    }
    for (int32_t i = 0; i < cnt; i++)
        if (mates[i] != a->me) SHOAL_TRY(coll_wait(a, W_DATA(mates[i], a->p), 1));
    if (!leader) /* 3, from the leader: the other nodes' blocks */
        return nn > 1 ? coll_wait(a, W_DATA(mates[0], a->p), 1) : SHOAL_OK;
    /* 2: my node's blocks to the other leaders, theirs to me */
    if (native) SHOAL_TRY(coll_leaders_allgatherv(a));
    for (int32_t s = 1; s < nn && !native; s++) {
        int32_t peer = coll_node_leader(a, (mn + s) % nn);
        SHOAL_TRY(coll_wait_ready(a, peer));
        SHOAL_TRY(put_member_runs(a, peer, mates, cnt));
        SHOAL_TRY(coll_signal(a, peer, W_DATA(a->me, a->p)));
    }
    for (int32_t s = 1; s < nn && !native; s++)
        SHOAL_TRY(coll_wait(a, W_DATA(coll_node_leader(a, (mn - s + nn) % nn), a->p), 1));
    /* 3: the other nodes' blocks to my members (READY came before step 1) */
    for (int32_t i = 1; i < cnt && nn > 1; i++) {
        for (int32_t s = 1; s < nn; s++) {
            int32_t ocnt;
            const int32_t *other = coll_node_members(a, (mn + s) % nn, &ocnt);
            SHOAL_TRY(put_member_runs(a, mates[i], other, ocnt));
        }
        SHOAL_TRY(coll_signal(a, mates[i], W_DATA(a->me, a->p)));
    }
    return SHOAL_OK;
}

static shoal_err_t collect_node(coll_args_t *a) {
    return collect_two_level(a, 0);
}

static shoal_err_t collect_node_native(coll_args_t *a) {
    SHOAL_TRY(coll_leaders_ready(a));
    if (a->mpi_blocks) return coll_native(a); /* every block came with the sizes: copies only */
    return collect_two_level(a, 1);
}

const coll_algo_t coll_collect_algos[] = {
    {COLL_COLLECT, "linear", 0, 0, 0, 0, 0, NULL, collect_linear,
     "every member puts its block to every member"},
    {COLL_COLLECT, "eager", NEEDS_XCHG_BLOCKS, 0, 0, 0, 0, NULL, coll_eager_collect,
     "the blocks come with the sizes, through the eager exchange (blocks up to 1072 B, 8 units)"},
    {COLL_COLLECT, "recursive_doubling", NEEDS_POW2, 0, 0, 0, 0, NULL, collect_recursive_doubling,
     "log2 p rounds, exchange everything so far with i XOR 2^k"},
    {COLL_COLLECT, "ring", 0, 0, 0, 0, 0, NULL, collect_ring,
     "p-1 rounds, forward one block to the right neighbour"},
    {COLL_COLLECT, "bruck", 0, 0, 0, 0, 0, NULL, collect_bruck,
     "ceil(log2 p) rounds in a rotated layout, local rotation at the end"},
    {COLL_COLLECT, "bruck_norotate", 0, 0, 0, 0, 0, NULL, collect_bruck_norotate,
     "ceil(log2 p) rounds at final offsets, wrapping ranges split in two puts"},
    {COLL_COLLECT, "node", 0, 0, 0, 0, 0, NULL, collect_node,
     "two-level: blocks among node mates, leaders exchange their nodes' blocks and pass them on"},
    {COLL_COLLECT, "node_native", NEEDS_MPI_COLL | NEEDS_NODE_RUNS, 0, 0, 0, 0, NULL,
     collect_node_native,
     "two-level: blocks among node mates, MPI_Allgatherv among the leaders, passed on"},
    {COLL_COLLECT, "native", NEEDS_MPI_COLL, 0, 0, 0, 0, NULL, coll_native,
     "MPI_Allgatherv on the team's communicator"},
};
const int coll_collect_nalgos = sizeof coll_collect_algos / sizeof coll_collect_algos[0];

const coll_algo_t coll_fcollect_algos[] = {
    {COLL_FCOLLECT, "linear", 0, 0, 0, 0, 0, NULL, collect_linear,
     "every member puts its block to every member"},
    {COLL_FCOLLECT, "eager", NEEDS_XCHG, 0, 0, 0, 0, NULL, coll_eager_fcollect,
     "every member puts its block into a cell of every member's area and goes (up to 1080 B, 16 "
     "units)"},
    {COLL_FCOLLECT, "recursive_doubling", NEEDS_POW2, 0, 0, 0, 0, NULL, collect_recursive_doubling,
     "log2 p rounds, exchange everything so far with i XOR 2^k"},
    {COLL_FCOLLECT, "ring", 0, 0, 0, 0, 0, NULL, collect_ring,
     "p-1 rounds, forward one block to the right neighbour"},
    {COLL_FCOLLECT, "bruck", 0, 0, 0, 0, 0, NULL, collect_bruck,
     "ceil(log2 p) rounds in a rotated layout, local rotation at the end"},
    {COLL_FCOLLECT, "bruck_norotate", 0, 0, 0, 0, 0, NULL, collect_bruck_norotate,
     "ceil(log2 p) rounds at final offsets, wrapping ranges split in two puts"},
    {COLL_FCOLLECT, "neighbor_exchange", NEEDS_EVEN, 0, 0, 0, 0, NULL, collect_neighbor_exchange,
     "p/2 rounds, pairs of blocks passed between alternating neighbours"},
    {COLL_FCOLLECT, "node", 0, 0, 0, 0, 0, NULL, collect_node,
     "two-level: blocks among node mates, leaders exchange their nodes' blocks and pass them on"},
    {COLL_FCOLLECT, "node_native", NEEDS_MPI_COLL | NEEDS_NODE_RUNS, 0, 0, 0, 0, NULL,
     collect_node_native,
     "two-level: blocks among node mates, MPI_Allgatherv among the leaders, passed on"},
    {COLL_FCOLLECT, "native", NEEDS_MPI_COLL, 0, 0, 0, 0, NULL, coll_native,
     "MPI_Allgather on the team's communicator"},
};
const int coll_fcollect_nalgos = sizeof coll_fcollect_algos / sizeof coll_fcollect_algos[0];
