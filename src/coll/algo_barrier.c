/* Barrier algorithms. */
#include "coll.h"
#include "rma/rma.h"
#include "sync/sync.h"
#include "tree.h"

/* Linear: everyone signals member 0, which waits for all, then releases everyone. */
static shoal_err_t barrier_linear(coll_args_t *a) {
    if (a->p == 1) return SHOAL_OK;
    if (a->me == 0) {
        SHOAL_TRY(coll_wait(a, W_ROUND(0, a->p), (uint64_t)a->p - 1));
        for (int32_t r = 1; r < a->p; r++) SHOAL_TRY(coll_signal(a, r, W_ROUND(1, a->p)));
        return SHOAL_OK;
    }
    SHOAL_TRY(coll_signal(a, 0, W_ROUND(0, a->p)));
    return coll_wait(a, W_ROUND(1, a->p), 1);
}

/* Dissemination: in round k, signal member me + 2^k and wait for member me - 2^k. */
static shoal_err_t barrier_dissemination(coll_args_t *a) {
    int round = 0;
    for (int32_t dist = 1; dist < a->p; dist <<= 1, round++) {
        SHOAL_TRY(coll_signal(a, (a->me + dist) % a->p, W_ROUND(round, a->p)));
        SHOAL_TRY(coll_wait(a, W_ROUND(round, a->p), 1));
    }
    return SHOAL_OK;
}

/* Flags (direct path only): the dissemination pattern, but in round k a member publishes that it
 * has reached round k of barrier e by storing e into its own round-k flag (a release store: the
 * member goes on at once), and the member 2^k ahead polls that flag. An atomic add into the
 * peer's word stalls the adder until it owns the peer's line; here nobody waits for a line it
 * does not read, so a round costs one line hand-off (issue 12: a barrier within 1.5x of one).
 * Flags only grow and have one writer, so calls cannot confuse each other. */
static shoal_err_t barrier_flags(coll_args_t *a) {
    uint64_t e = ++a->ct->flag_seq;
    int round = 0;
    for (int32_t dist = 1; dist < a->p; dist <<= 1, round++) {
        shoal_target_t mine = coll_word(a, a->me, W_FLAG(round, a->p));
        __atomic_store_n((uint64_t *)mine.addr, e, __ATOMIC_RELEASE);
        shoal_target_t from = coll_word(a, (a->me - dist + a->p) % a->p, W_FLAG(round, a->p));
        SHOAL_TRY(shoal__wait_word(&from, SHOAL_CMP_GE, e, NULL));
    }
    return SHOAL_OK;
}

/* Line (direct path, up to 8 members): every member's flag is a word of one cache line (in
 * member 0's part); a member stores e into its word and reads the others' in that line. Flags on
 * separate lines cost two lines moving per barrier at 2 units, one line costs one: measured on
 * the AMD EPYC host, 37-39 ns against 49-52 ns for a raw loop of each, one hand-off being 32-37
 * ns. With more members every store still takes the line in turn, so the rules prefer it at 2. */
static shoal_err_t barrier_line(coll_args_t *a) {
    /* 2 members in shared memory: the synchronisation layer's barrier of this design (sync.h),
     * one implementation for both; flag_seq stays as it is (api.c's fast path skips it too). */
    if (a->p == 2 && a->team->barrier_pair) return shoal__pair_run(a->team, a->team->barrier_pair);
    uint64_t e = ++a->ct->flag_seq;
    if (a->p == 1) return SHOAL_OK;
    shoal_target_t mine = coll_word(a, 0, W_LINE(a->me, a->p));
    __atomic_store_n((uint64_t *)mine.addr, e, __ATOMIC_RELEASE);
    for (int32_t r = 0; r < a->p; r++) {
        if (r == a->me) continue;
        shoal_target_t from = coll_word(a, 0, W_LINE(r, a->p));
        SHOAL_TRY(shoal__wait_word(&from, SHOAL_CMP_GE, e, NULL));
    }
    return SHOAL_OK;
}

/* ---- Tree barriers (SHCOLL 5.1) ----
 * Members form a tree rooted at member 0. A member waits until each of its children has arrived,
 * then tells its parent it has arrived (its whole subtree has); the root, once all its children
 * arrived, releases them, and each released member releases its own children.
 * Words: an arrival goes to the parent's W_DATA(child), a release to the child's W_DATA(parent).
 * Each such word has a single sender, so per call every word gets exactly what its owner waits
 * for, in the sender's order: calls (and other algorithms) cannot take each other's signals. */

static shoal_err_t barrier_tree(coll_args_t *a, const tree_t *t) {
    for (int32_t i = 0; i < t->n; i++) SHOAL_TRY(coll_wait(a, W_DATA(t->child[i], a->p), 1));
    if (t->parent >= 0) {
        SHOAL_TRY(coll_signal(a, t->parent, W_DATA(a->me, a->p)));
        SHOAL_TRY(coll_wait(a, W_DATA(t->parent, a->p), 1));
    }
    for (int32_t i = 0; i < t->n; i++) SHOAL_TRY(coll_signal(a, t->child[i], W_DATA(a->me, a->p)));
    return SHOAL_OK;
}

static shoal_err_t barrier_kary(coll_args_t *a) {
    tree_t t;
    kary_tree(a->me, a->p, a->radix, &t);
    return barrier_tree(a, &t);
}

static shoal_err_t barrier_knomial(coll_args_t *a) {
    tree_t t;
    knomial_tree(a->me, a->p, a->radix, &t);
    return barrier_tree(a, &t);
}

/* ---- Two-level (node-aware) ----
 * Each node's members tell their leader (its first member) they have arrived; the leaders run a
 * dissemination barrier among themselves, so the network sees ceil(log2 nodes) rounds of one
 * message per node; each leader then releases its members. Every signal goes to W_DATA(sender):
 * in leader round k a leader hears from the leader 2^k nodes back, a different one each round
 * (2^k < nodes), so every word has one sender per call. node_native: the leaders meet in
 * MPI_Barrier on their own communicator instead (leaders.c). */
static shoal_err_t barrier_two_level(coll_args_t *a, int native) {
    int32_t cnt, nn = a->ct->nnodes, mn = a->ct->node_of[a->me];
    const int32_t *mates = coll_node_mates(a, &cnt);
    if (a->me != mates[0]) {
        SHOAL_TRY(coll_signal(a, mates[0], W_DATA(a->me, a->p)));
        return coll_wait(a, W_DATA(mates[0], a->p), 1);
    }
    for (int32_t i = 1; i < cnt; i++) SHOAL_TRY(coll_wait(a, W_DATA(mates[i], a->p), 1));
    if (native) SHOAL_TRY(coll_leaders_barrier(a));
    for (int32_t dist = 1; dist < nn && !native; dist <<= 1) {
        int32_t to = coll_node_leader(a, (mn + dist) % nn);
        int32_t from = coll_node_leader(a, (mn - dist + nn) % nn);
        SHOAL_TRY(coll_signal(a, to, W_DATA(a->me, a->p)));
        SHOAL_TRY(coll_wait(a, W_DATA(from, a->p), 1));
    }
    for (int32_t i = 1; i < cnt; i++) SHOAL_TRY(coll_signal(a, mates[i], W_DATA(a->me, a->p)));
    return SHOAL_OK;
}

static shoal_err_t barrier_node(coll_args_t *a) {
    return barrier_two_level(a, 0);
}

static shoal_err_t barrier_node_native(coll_args_t *a) {
    SHOAL_TRY(coll_leaders_ready(a));
    return barrier_two_level(a, 1);
}

const coll_algo_t coll_barrier_algos[] = {
    {COLL_BARRIER, "linear", 0, 0, 0, 0, 0, NULL, barrier_linear,
     "counter at member 0, which then releases everyone"},
    {COLL_BARRIER, "dissemination", 0, 0, 0, 0, 0, NULL, barrier_dissemination,
     "ceil(log2 p) rounds, member i signals i+2^k"},
    {COLL_BARRIER, "flags", NEEDS_CPU_WORDS, 0, 0, 0, 0, NULL, barrier_flags,
     "dissemination over flags each member stores in its own words (direct path only)"},
    {COLL_BARRIER, "line", NEEDS_CPU_WORDS, COLL_LINE_UNITS, 0, 0, 0, NULL, barrier_line,
     "every member's flag in one cache line, read whole (direct path only, up to 8 units)"},
    {COLL_BARRIER, "kary_tree", 0, 0, 2, 32, 4, NULL, barrier_kary,
     "arrivals up a k-ary tree to member 0, releases back down"},
    {COLL_BARRIER, "knomial_tree", 0, 0, 2, 32, 2, NULL, barrier_knomial,
     "arrivals up a k-nomial tree to member 0, releases back down"},
    {COLL_BARRIER, "node", 0, 0, 0, 0, 0, NULL, barrier_node,
     "two-level: members to their node's leader, dissemination among the leaders, release"},
    {COLL_BARRIER, "node_native", NEEDS_MPI_COLL, 0, 0, 0, 0, NULL, barrier_node_native,
     "two-level: members to their node's leader, MPI_Barrier among the leaders, release"},
    {COLL_BARRIER, "native", NEEDS_MPI_COLL, 0, 0, 0, 0, NULL, coll_native,
     "MPI_Barrier on the team's communicator"},
};
const int coll_barrier_nalgos = sizeof coll_barrier_algos / sizeof coll_barrier_algos[0];
