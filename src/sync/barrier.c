/* Team barrier. On a team whose members all share this node's memory (direct path): dissemination
 * over the team's own signal words, with sequence numbers instead of resets: in round k unit i
 * stores the barrier's epoch into its own round-k word and waits for unit i-2^k's. ceil(log2 n)
 * rounds, no unit is a hot spot, and the waits use the runtime's spin-then-yield policy, so
 * oversubscribed runs do not starve; at 2 units both words share one cache line (one line moves
 * per barrier instead of two: 178-184 against 231-242 ns where a hand-off took 170-180 ns, the
 * "line" collective's measurement), in line in the caller (sync.h: 27-33 ns where a hand-off took
 * 31-35, against 61-74 before). Elsewhere MPI_Barrier, after the flush that completes my RMA
 * (an RMA signal per round cost a round trip each: 19.5 against 8.9 us across two nodes; MPICH's
 * spinning in oversubscribed runs is what shoalrun's yield shim is for). */
#include <stdatomic.h>

#include "mem/segment.h"
#include "rma/rma.h"
#include "sync.h"

#define ROUND_STRIDE    64 /* one cache line per round's word */
#define MAX_ROUNDS      32
#define SYNC_AREA_BYTES (ROUND_STRIDE * MAX_ROUNDS)

shoal_err_t shoal__sync_team_init(team_t *t) {
    SHOAL_TRY(shoal__segment_create(t, SYNC_AREA_BYTES, SEG_INTERNAL, &t->sync_seg));
    /* Two members whose words are CPU-atomic: both in member 0's first line (see above). */
    if (t->size == 2 && t->sync_seg->atomics_direct && t->sync_seg->direct[0])
        t->barrier_pair = (uint64_t *)t->sync_seg->direct[0];
    return SHOAL_OK;
}

shoal_err_t shoal__pair_wait(team_t *t, uint64_t epoch) {
    shoal_target_t from = shoal__target_at(t->sync_seg, 0, 8 * (size_t)(1 - t->myrel));
    return shoal__wait_word(&from, SHOAL_CMP_GE, epoch, NULL);
}

static shoal_target_t round_word(segment_t *s, int32_t rel, int round) {
    return shoal__target_at(s, rel, (size_t)round * ROUND_STRIDE);
}

shoal_err_t shoal__team_barrier(team_t *t) {
    shoal_err_t err;
    if (shoal__pair_barrier(t, &err)) return err;
    SHOAL_TRY(shoal__segments_flush(-1)); /* everything I issued is complete first */
    if (t->size == 1) {
        atomic_thread_fence(memory_order_seq_cst);
        return SHOAL_OK;
    }
    if (t->barrier_pair) return shoal__pair_run(t, t->barrier_pair); /* 2 members: one line */
    uint64_t epoch = ++t->barrier_epoch;
    int round = 0;
    if (t->sync_seg->atomics_direct) {
        /* No full fence here: the release store publishes every store I made before it, and
         * the peer's acquiring poll sees them; release/acquire chains are transitive, so the
         * later rounds carry them on (a full fence cost 20-30 ns of a 70 ns barrier). */
        /* Every member's words in shared memory: in round k I store the epoch into my own round-k
         * word (a release store: I go on at once) and poll the word of unit i-2^k. An atomic add
         * into the peer's word would stall me until I own its line; this costs one line hand-off
         * per round (issue 12: a barrier within 1.5x of one hand-off). Each word keeps one writer
         * and one reader, and only grows. */
        for (int32_t dist = 1; dist < t->size; dist <<= 1, round++) {
            shoal_target_t mine = round_word(t->sync_seg, t->myrel, round);
            __atomic_store_n((uint64_t *)mine.addr, epoch, __ATOMIC_RELEASE);
            shoal_target_t from =
                round_word(t->sync_seg, (t->myrel - dist + t->size) % t->size, round);
            SHOAL_TRY(shoal__wait_word(&from, SHOAL_CMP_GE, epoch, NULL));
        }
        return SHOAL_OK;
    }
    /* Signals through MPI (members on other nodes, or the direct path off): each would be an RMA
     * round trip, and everything I issued is complete already (the flush above), so the MPI
     * library's barrier is all that is left to do (docs/design.md, "Barrier"). */
    SHOAL_MPI(MPI_Barrier(t->comm));
    return SHOAL_OK;
}

shoal_err_t shoal_barrier(shoal_team_t team) {
    shoal_err_t err;
    /* The world of 2 units in shared memory goes first, before the entry's bookkeeping (the
     * call's name for messages, the initialisation check: the world's record exists only while
     * Shoal is initialised, and this path cannot fail). Back to back, those few instructions
     * made the barrier 62-72 ns instead of 42-56 ns where the raw loop took 40 (EPYC, near
     * regime, paired runs). */
    team_t *all = shoal__team_all_rec;
    if (team == SHOAL_TEAM_ALL && all && shoal__pair_barrier(all, &err)) return err;
    SHOAL_ENTER("shoal_barrier");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    if (shoal__pair_barrier(t, &err)) return err;
    return shoal__team_barrier(t);
}
