/* Team synchronisation state: each team's signal area (barrier counters) and its locks. */
#ifndef SHOAL_SYNC_H
#define SHOAL_SYNC_H

#include "mem/segment.h"
#include "runtime/wait.h"
#include "team/team.h"

/* Collective over the team: creates its signal area. */
shoal_err_t shoal__sync_team_init(team_t *team);
/* Collective over the team: destroys its locks and signal area. */
shoal_err_t shoal__sync_team_finalize(team_t *team);
/* At shoal_finalize: drops every lock object (their segments go with shoal__segments_finalize). */
void shoal__sync_finalize(void);
/* Barrier on a team record (completes my outstanding operations first). */
shoal_err_t shoal__team_barrier(team_t *team);

/* ---- The 2-member barrier in shared memory (t->barrier_pair: both words in one line) ----
 * In line: store my epoch (a release store: I go on at once) and poll the peer's word in the same
 * line. Back-to-back barriers are a race between my next store and the peer's polls, which take
 * the line away: every instruction between seeing the peer and storing again costs several times
 * its own time (a raw loop on an EPYC: 2.7 ns of delay there made a 46 ns barrier 60 ns, 5.4 ns
 * made it 77), so this path has none it can avoid, and its polls leave gaps (wait.h). The
 * collectives' `line` algorithm at 2 units is this barrier too. */
#define SHOAL_PAIR_POLLS_IN_LINE 64
/* The waits that outlast the polls in line: the runtime's policy. */
shoal_err_t shoal__pair_wait(team_t *t, uint64_t epoch);
static inline shoal_err_t shoal__pair_run(team_t *t, uint64_t *pair) {
    uint64_t epoch = ++t->barrier_epoch;
    __atomic_store_n(&pair[t->myrel], epoch, __ATOMIC_RELEASE);
    if (shoal__poll_ge_gapped(&pair[1 - t->myrel], epoch, SHOAL_PAIR_POLLS_IN_LINE))
        return SHOAL_OK;
    return shoal__pair_wait(t, epoch);
}
/* Runs it and returns 1, or returns 0 when the team cannot take it (not 2 members in shared
 * memory, or MPI operations of mine still to complete: the general path flushes them). */
static inline int shoal__pair_barrier(team_t *t, shoal_err_t *err) {
    uint64_t *pair = t->barrier_pair;
    if (!pair || !shoal__segments_clean()) return 0;
    *err = shoal__pair_run(t, pair);
    return 1;
}

#endif
