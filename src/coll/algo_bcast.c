/* Broadcast algorithms. */
#include <string.h>

#include "coll.h"
#include "rma/rma.h"
#include "tree.h"

/* Linear (as SHCOLL): the root says its src is ready, every other member gets the data from the
 * root, then tells the root it is done (the root must not return, and let the program change
 * src, while someone still reads it). DONE from member r goes to the root's W_DATA(r), a word
 * with that one sender: on an anonymous counter (W_ROUND) a signal of the next call (e.g. round 0
 * of a dissemination barrier from the root's left neighbour, which may be done already) could
 * stand in for a DONE still to come, and the root would return while someone still reads src.
 * The root fills its own dest while the members read: the copies run side by side (at 2 units a
 * 1 MiB broadcast takes one copy's time, not two). A dest that overlaps src without being it
 * is filled last, when nobody reads src any more. */
static shoal_err_t bcast_linear(coll_args_t *a) {
    if (a->me == a->root) {
        const char *d = a->dlocal, *s = a->slocal;
        int overlaps = d != s && d < s + a->nbytes && s < d + a->nbytes;
        for (int32_t r = 0; r < a->p; r++)
            if (r != a->root) SHOAL_TRY(coll_signal(a, r, W_DATA(a->root, a->p)));
        if (!overlaps) coll_root_copy(a, a->nbytes);
        for (int32_t r = 0; r < a->p; r++) /* DONE from everyone */
            if (r != a->root) SHOAL_TRY(coll_wait(a, W_DATA(r, a->p), 1));
        if (overlaps) coll_root_copy(a, a->nbytes);
        return SHOAL_OK;
    }
    return coll_pull(a, a->root, BUF_SRC, a->nbytes);
}

/* ---- Eager (small messages) ----
 * The synchronised algorithms cost at least a round trip per call: a writer waits for the
 * receiver's READY (or the root for DONE), so back-to-back broadcasts never overlap. Here the
 * root writes the message into each receiver's coll area instead of its dest, and goes; the
 * receiver waits in its own area and copies the message out. Every member counts the calls and
 * where they go identically (the size is the same everywhere), so nobody is told where.
 *
 * Up to COLL_EAGER_RING_MAX bytes: a ring of COLL_EAGER_LINES cache lines, framed by line. Each
 * line is an 8-byte header and 56 bytes of message; ring call c takes k = max(1, ceil(n / 56))
 * consecutive lines (wrapping) from position pos (the lines used so far, ct->ring_pos). The root
 * writes the message into the lines, then c + 1 into their headers, the last line's last with a
 * release store (off the direct path: puts the lines, then the atomic every member uses for that
 * header); the receiver waits for the last header to reach c + 1. Headers only ever hold call
 * numbers, which only grow at any one line, so no wait is satisfied by an older call or by
 * message bytes. A root reuses lines once the receiver is done with them: its W_RING_DONE (lines
 * finished, stored when it leaves a ring call, root or not) must reach pos + k - 128. So a root
 * runs up to 128 small calls ahead of a slow receiver, and consecutive small calls fill
 * consecutive lines, which the receiver's prefetcher streams: 8 B took 55 ns per call in 4
 * slots, 42 ns here (2 units, AMD EPYC). Per line the message is copied in 56-byte pieces, which
 * costs more than one copy from about 1 KiB, so:
 *
 * Larger messages: slot e mod K (K = COLL_BCAST_SLOTS, e = the team's slot calls) holds a flag
 * (e + 1) and up to 4 KiB; the root of call e needs the receiver to have finished call e - K
 * (its W_EAGER_DONE >= e - K + 1), read only when the value last read is too old. The message
 * shares its first cache line with the flag. */
static shoal_target_t eager_slot(coll_args_t *a, int32_t member, uint64_t e) {
    return shoal__target_at(a->ct->seg, member,
                            a->ct->slots_off + (e % COLL_BCAST_SLOTS) * COLL_EAGER_SLOT_STRIDE);
}

static shoal_err_t bcast_eager_slots(coll_args_t *a) {
    coll_team_t *ct = a->ct;
    uint64_t e = ct->eager_seq++;
    if (a->me == a->root) {
        for (int32_t i = 1; i < a->p; i++) {
            int32_t r = (a->root + i) % a->p;
            SHOAL_TRY(coll_eager_post(a, r, e, COLL_BCAST_SLOTS, W_EAGER_DONE(a->p),
                                      &ct->eager_done[r], eager_slot(a, r, e), a->slocal,
                                      a->nbytes));
        }
        coll_root_copy(a, a->nbytes);
    } else {
        const char *d;
        SHOAL_TRY(coll_eager_wait(a, eager_slot(a, a->me, e), e, &d));
        coll_copy_local(a->dlocal, d, a->nbytes);
    }
    return coll_eager_leave(a, W_EAGER_DONE(a->p), e);
}

/* Bytes [from, to) of a record staged at rec, into member r's ring from line pos (wrapping). */
static shoal_err_t ring_put(coll_args_t *a, int32_t r, uint64_t pos, const char *rec, size_t from,
                            size_t to) {
    const size_t ring = COLL_EAGER_LINES * COLL_EAGER_LINE;
    while (from < to) {
        size_t at = ((size_t)(pos % COLL_EAGER_LINES) * COLL_EAGER_LINE + from) % ring;
        size_t n = to - from < ring - at ? to - from : ring - at;
        shoal_target_t t = shoal__target_at(a->ct->seg, r, a->ct->ring_off + at);
        SHOAL_TRY(shoal__put(&t, rec + from, n));
        from += n;
    }
    return SHOAL_OK;
}

static shoal_err_t ring_post(coll_args_t *a, int32_t r, uint64_t c, uint64_t pos, uint64_t k) {
    coll_team_t *ct = a->ct;
    if (pos + k > COLL_EAGER_LINES && ct->ring_done[r] < pos + k - COLL_EAGER_LINES) {
        shoal_target_t done = coll_word(a, r, W_RING_DONE(a->p));
        SHOAL_TRY(
            shoal__wait_word(&done, SHOAL_CMP_GE, pos + k - COLL_EAGER_LINES, &ct->ring_done[r]));
    }
    const char *src = a->slocal;
    size_t n = a->nbytes, tail = n - (size_t)(k - 1) * COLL_EAGER_LINE_DATA;
    uint64_t v = c + 1;
    shoal_target_t ring = shoal__target_at(ct->seg, r, ct->ring_off);
    if (ring.seg->atomics_direct) { /* the whole team is direct: plain stores, then the last
                                     * header with a release store (no full fence) */
        uint64_t at = pos % COLL_EAGER_LINES;
        for (uint64_t i = 0; i + 1 < k; i++, src += COLL_EAGER_LINE_DATA) { /* full lines */
            char *line = ring.addr + (size_t)at * COLL_EAGER_LINE;
            memcpy(line + 8, src, COLL_EAGER_LINE_DATA); /* a constant size: inlined moves */
            __atomic_store_n((uint64_t *)(void *)line, v, __ATOMIC_RELAXED);
            if (++at == COLL_EAGER_LINES) at = 0;
        }
        char *last = ring.addr + (size_t)at * COLL_EAGER_LINE;
        memcpy(last + 8, src, tail);
        __atomic_store_n((uint64_t *)(void *)last, v, __ATOMIC_RELEASE);
        return SHOAL_OK;
    }
    /* Some member is off-node: the lines are staged here and put (complete at the peer when
     * shoal__put returns), all but the last header, which then gets the atomic store. */
    char rec[(COLL_EAGER_RING_MAX / COLL_EAGER_LINE_DATA + 1) * COLL_EAGER_LINE];
    for (uint64_t i = 0; i < k; i++, src += COLL_EAGER_LINE_DATA) {
        char *line = rec + i * COLL_EAGER_LINE;
        memcpy(line, &v, 8);
        memcpy(line + 8, src, i + 1 < k ? COLL_EAGER_LINE_DATA : tail);
    }
    size_t last = (size_t)(k - 1) * COLL_EAGER_LINE;
    SHOAL_TRY(ring_put(a, r, pos, rec, 0, last));
    SHOAL_TRY(ring_put(a, r, pos, rec, last + 8, last + 8 + tail));
    shoal_target_t flag = shoal__target_at(
        ct->seg, r, ct->ring_off + (size_t)((pos + k - 1) % COLL_EAGER_LINES) * COLL_EAGER_LINE);
    return shoal__amo(&flag, AMO_STORE, SHOAL_OP_SUM, SHOAL_UINT64, &v, NULL, NULL);
}

static shoal_err_t bcast_eager_ring(coll_args_t *a) {
    coll_team_t *ct = a->ct;
    uint64_t c = ct->ring_seq++, pos = ct->ring_pos;
    uint64_t k = a->nbytes ? (a->nbytes + COLL_EAGER_LINE_DATA - 1) / COLL_EAGER_LINE_DATA : 1;
    size_t tail = a->nbytes - (size_t)(k - 1) * COLL_EAGER_LINE_DATA;
    ct->ring_pos += k;
    if (a->me == a->root) {
        for (int32_t i = 1; i < a->p; i++) SHOAL_TRY(ring_post(a, (a->root + i) % a->p, c, pos, k));
        coll_root_copy(a, a->nbytes);
    } else {
        shoal_target_t flag = shoal__target_at(
            ct->seg, a->me,
            ct->ring_off + (size_t)((pos + k - 1) % COLL_EAGER_LINES) * COLL_EAGER_LINE);
        SHOAL_TRY(coll_wait_flag(&flag, c + 1));
        const char *ring = ct->seg->my_base + ct->ring_off;
        char *dst = a->dlocal;
        uint64_t at = pos % COLL_EAGER_LINES;
        for (uint64_t i = 0; i + 1 < k; i++, dst += COLL_EAGER_LINE_DATA) { /* full lines */
            memcpy(dst, ring + (size_t)at * COLL_EAGER_LINE + 8, COLL_EAGER_LINE_DATA);
            if (++at == COLL_EAGER_LINES) at = 0;
        }
        memcpy(dst, ring + (size_t)at * COLL_EAGER_LINE + 8, tail);
    }
    return coll_eager_leave(a, W_RING_DONE(a->p), pos + k - 1); /* stores pos + k */
}

static shoal_err_t bcast_eager(coll_args_t *a) {
    return a->nbytes <= COLL_EAGER_RING_MAX ? bcast_eager_ring(a) : bcast_eager_slots(a);
}

/* ---- Tree broadcasts (SHCOLL 5.3) ----
 * Members form a tree over root-relative ids (rel = (me - root + p) % p) with the root at rel 0.
 * On entry each non-root member tells its parent its dest is free (READY); the parent, once it
 * has the data (the root: at once, from its src), puts it into each child's dest and signals the
 * child's W_DATA(parent). With a segment size (seg=) the message moves down the tree in segments,
 * one put and signal per segment per child, so the levels work in a pipeline. Every signal word
 * used has a single sender and every signal is waited for in the same call. Nobody reads a
 * peer's buffer, so nobody waits for DONE: every put is complete when it returns. */

/* Team id of root-relative id rel. */
static inline int32_t team_id(const coll_args_t *a, int32_t rel) {
    return (rel + a->root) % a->p;
}

static shoal_err_t bcast_tree(coll_args_t *a, const tree_t *t) {
    int32_t rel = (a->me - a->root + a->p) % a->p;
    size_t n = a->nbytes;
    if (n && a->p > 1) {
        int32_t parent = t->parent >= 0 ? team_id(a, t->parent) : -1;
        if (parent >= 0) SHOAL_TRY(coll_ready(a, parent));
        size_t seg = a->segsize && a->segsize < n ? a->segsize : n;
        /* The root sends from its src (in place or not); the others forward from their dest. */
        const char *from = rel ? a->dlocal : a->slocal;
        for (size_t off = 0; off < n; off += seg) {
            size_t len = n - off < seg ? n - off : seg;
            if (parent >= 0) SHOAL_TRY(coll_wait(a, W_DATA(parent, a->p), 1));
            for (int32_t i = 0; i < t->n; i++) {
                int32_t child = team_id(a, t->child[i]);
                if (off == 0) SHOAL_TRY(coll_wait_ready(a, child));
                SHOAL_TRY(
                    coll_put_signal(a, child, BUF_DEST, off, from + off, len, W_DATA(a->me, a->p)));
            }
        }
    }
    /* Last, so that a dest overlapping the src cannot change what the children get. */
    if (!rel) coll_root_copy(a, n);
    return SHOAL_OK;
}

static shoal_err_t bcast_kary(coll_args_t *a) {
    tree_t t;
    kary_tree((a->me - a->root + a->p) % a->p, a->p, a->radix, &t);
    return bcast_tree(a, &t);
}

static shoal_err_t bcast_knomial(coll_args_t *a) {
    tree_t t;
    knomial_tree((a->me - a->root + a->p) % a->p, a->p, a->radix, &t);
    return bcast_tree(a, &t);
}

/* Two-level (node-aware): the same push down a tree whose top is a k-nomial tree over the nodes
 * (the root heads its node, every other node's first member heads it) and whose lower level is a
 * k-nomial tree inside each node: the message crosses the network once per node, and the node
 * heads forward it through shared memory (segment by segment with seg=, while more arrives). */
static shoal_err_t bcast_node(coll_args_t *a) {
    tree_t t;
    node_map_t m = coll_node_map(a->ct);
    node_tree(&m, a->me, a->root, a->radix, &t);
    /* bcast_tree speaks root-relative ids */
    if (t.parent >= 0) t.parent = (t.parent - a->root + a->p) % a->p;
    for (int32_t i = 0; i < t.n; i++) t.child[i] = (t.child[i] - a->root + a->p) % a->p;
    return bcast_tree(a, &t);
}

/* Two-level with the MPI library between nodes (node_native): inside a node every member reads
 * the message from its node's source through shared memory, the source being the root in the
 * root's node and the leader elsewhere; the leaders pass it between nodes with MPI_Bcast on
 * their own communicator (leaders.c), the root's node's leader after reading it from the root
 * when that is not itself. A source tells each reader on W_DATA(source) that the data is there
 * and waits for its DONE on W_DATA(reader) before it returns (its buffer is the user's). Reads
 * run in parallel, one copy per member. */
static shoal_err_t bcast_node_native(coll_args_t *a) {
    SHOAL_TRY(coll_leaders_ready(a));
    int32_t cnt, rn = a->ct->node_of[a->root];
    const int32_t *mates = coll_node_mates(a, &cnt);
    int32_t leader = mates[0], source = a->ct->node_of[a->me] == rn ? a->root : leader;
    size_t n = a->nbytes;
    if (a->me != source) {
        SHOAL_TRY(coll_pull(a, source, source == a->root ? BUF_SRC : BUF_DEST, n));
        /* the root's node's leader, the root being another member of it */
        return a->me == leader ? coll_leaders_bcast(a, a->dlocal, n, rn) : SHOAL_OK;
    }
    /* A leader that is not the root receives first; the root lets its mates read while it sends */
    if (a->me != a->root) SHOAL_TRY(coll_leaders_bcast(a, a->dlocal, n, rn));
    for (int32_t i = 0; i < cnt; i++)
        if (mates[i] != a->me) SHOAL_TRY(coll_signal(a, mates[i], W_DATA(a->me, a->p)));
    if (a->me == a->root && a->me == leader) SHOAL_TRY(coll_leaders_bcast(a, a->slocal, n, rn));
    for (int32_t i = 0; i < cnt; i++)
        if (mates[i] != a->me) SHOAL_TRY(coll_wait(a, W_DATA(mates[i], a->p), 1));
    /* Last, so that a dest overlapping the src cannot change what the readers get. */
    if (a->me == a->root) coll_root_copy(a, n);
    return SHOAL_OK;
}

/* ---- Van de Geijn (scatter + allgather) ----
 * The message is cut into p chunks (chunk i, of root-relative member i, holds bytes
 * [i n/p, (i+1) n/p) rounded as chunk_off says; some are empty when n < p). A binomial scatter
 * gives each member the chunks of its binomial subtree [r, r + lowbit(r)) (the root holds all),
 * put straight into its dest; a ring allgather then passes chunks on: in step s member r puts
 * chunk r - s into member r + 1's dest. dest is the staging buffer, so no scratch is needed. A
 * ring put of a chunk the receiver already holds from the scatter is skipped by both sides (so
 * nothing ever goes to the root, which holds everything in its src).
 * READY: member r's dest is written by its scatter parent and by r - 1 (the ring); it sends READY
 * to both (once if they are the same member) on entry, and each writer waits for it once, before
 * its first write. Signals: W_DATA(writer) at the receiver, which has one sender per word. */

/* Where chunk i starts. */
static size_t chunk_off(size_t n, int32_t p, int32_t i) {
    size_t q = n / (size_t)p, rem = n % (size_t)p;
    return (size_t)i * q + ((size_t)i < rem ? (size_t)i : rem);
}

/* Size of member r's binomial subtree span: lowbit(r), or for the root the first 2^k >= p. */
static int64_t subtree_span(int32_t r, int32_t p) {
    if (r) return (int64_t)r & -(int64_t)r;
    int64_t s = 1;
    while (s < p) s <<= 1;
    return s;
}

/* Member r holds chunk j after the scatter. */
static int holds(int32_t r, int32_t p, int32_t j) {
    return j >= r && (int64_t)j < (int64_t)r + subtree_span(r, p);
}

static int32_t binomial_parent(int32_t r) {
    return r ? (int32_t)(r - (r & -r)) : -1;
}

static shoal_err_t bcast_vandegeijn(coll_args_t *a) {
    int32_t p = a->p, rel = (a->me - a->root + p) % p;
    size_t n = a->nbytes;
    if (!n || p == 1) {
        if (!rel) coll_root_copy(a, n);
        return SHOAL_OK;
    }
    int32_t next = (rel + 1) % p, prev = (rel - 1 + p) % p;
    int32_t parent = binomial_parent(rel);
    /* READY to whoever writes into my dest: my scatter parent and my ring predecessor. */
    if (rel) {
        SHOAL_TRY(coll_ready(a, team_id(a, parent)));
        if (prev != parent) SHOAL_TRY(coll_ready(a, team_id(a, prev)));
    }
    const char *from = rel ? a->dlocal : a->slocal;
    /* Scatter: receive my subtree's chunks, then hand each child its subtree's, largest first. */
    int64_t span = subtree_span(rel, p);
    if (rel) SHOAL_TRY(coll_wait(a, W_DATA(team_id(a, parent), p), 1));
    for (int64_t mask = span / 2; mask >= 1; mask /= 2) {
        if (rel + mask >= p) continue;
        int32_t c = (int32_t)(rel + mask), end = (int32_t)(c + mask < p ? c + mask : p);
        size_t lo = chunk_off(n, p, c), hi = chunk_off(n, p, end);
        SHOAL_TRY(coll_wait_ready(a, team_id(a, c)));
        SHOAL_TRY(
            coll_put_signal(a, team_id(a, c), BUF_DEST, lo, from + lo, hi - lo, W_DATA(a->me, p)));
    }
    /* Ring allgather. next's READY was already consumed if next is my scatter child. */
    int ready_next = binomial_parent(next) == rel;
    for (int32_t s = 0; s < p - 1; s++) {
        int32_t j = (int32_t)((rel - s + p) % p);
        if (!holds(next, p, j)) {
            size_t lo = chunk_off(n, p, j), hi = chunk_off(n, p, j + 1);
            if (!ready_next) {
                SHOAL_TRY(coll_wait_ready(a, team_id(a, next)));
                ready_next = 1;
            }
            SHOAL_TRY(coll_put_signal(a, team_id(a, next), BUF_DEST, lo, from + lo, hi - lo,
                                      W_DATA(a->me, p)));
        }
        int32_t jr = (int32_t)((rel - s - 1 + 2 * p) % p);
        if (!holds(rel, p, jr)) SHOAL_TRY(coll_wait(a, W_DATA(team_id(a, prev), p), 1));
    }
    if (!rel) coll_root_copy(a, n);
    return SHOAL_OK;
}

const coll_algo_t coll_bcast_algos[] = {
    {COLL_BROADCAST, "linear", 0, 0, 0, 0, 0, NULL, bcast_linear,
     "every member gets the data from the root"},
    {COLL_BROADCAST, "eager", NEEDS_EAGER_SIZE, 0, 0, 0, 0, NULL, bcast_eager,
     "the root puts the message into a slot of each member's area and goes (up to 4 KiB)"},
    {COLL_BROADCAST, "kary", 0, 0, 2, 32, 2, NULL, bcast_kary,
     "the root pushes down a k-ary tree (pipelined in seg= segments)"},
    {COLL_BROADCAST, "knomial", 0, 0, 2, 32, 2, NULL, bcast_knomial,
     "the root pushes down a k-nomial tree (k = 2: binomial; pipelined in seg= segments)"},
    {COLL_BROADCAST, "vandegeijn", 0, 0, 0, 0, 0, NULL, bcast_vandegeijn,
     "binomial scatter of p chunks, then ring allgather (large messages)"},
    {COLL_BROADCAST, "node", 0, 0, 2, 8, 2, NULL, bcast_node,
     "two-level: k-nomial tree over the nodes, then inside each node (pipelined in seg= segments)"},
    {COLL_BROADCAST, "node_native", NEEDS_MPI_COLL, 0, 0, 0, 0, NULL, bcast_node_native,
     "two-level: MPI_Bcast among the node leaders, members read from their node's source"},
    {COLL_BROADCAST, "native", NEEDS_MPI_COLL, 0, 0, 0, 0, NULL, coll_native,
     "MPI_Bcast on the team's communicator"},
};
const int coll_bcast_nalgos = sizeof coll_bcast_algos / sizeof coll_bcast_algos[0];
