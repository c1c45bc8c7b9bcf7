/* Team synchronisation state: each team's signal area (barrier counters) and its locks. */
#ifndef SHOAL_SYNC_H
#define SHOAL_SYNC_H

#include "team/team.h"

/* Collective over the team: creates its signal area. */
shoal_err_t shoal__sync_team_init(team_t *team);
/* Collective over the team: destroys its locks and signal area. */
shoal_err_t shoal__sync_team_finalize(team_t *team);
/* At shoal_finalize: drops every lock object (their segments go with shoal__segments_finalize). */
void shoal__sync_finalize(void);
/* Barrier on a team record (completes my outstanding operations first). */
shoal_err_t shoal__team_barrier(team_t *team);

#endif
