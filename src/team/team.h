/* Team records: a communicator plus O(1) unit translation both ways. */
#ifndef SHOAL_TEAM_TEAM_H
#define SHOAL_TEAM_TEAM_H

#include <mpi.h>
#include <stdint.h>

#include "runtime/runtime.h"

struct segment;
struct shoal_lock;

typedef struct team {
    shoal_team_t id;
    shoal_team_t parent;
    MPI_Comm comm;      /* members ordered by absolute id (shoal__team_create_members: as listed) */
    MPI_Comm node_comm; /* the members on my node */
    MPI_Win win; /* dynamic window for segments past SHOAL_MPI_WINDOWS (made on first need) */
    int32_t size;
    int32_t myrel;
    shoal_unit_t *abs_of_rel;  /* [size] */
    int32_t *rel_of_abs;       /* [nunits], -1 for non-members: O(1) translation */
    int all_on_node;           /* every member shares my node */
    int32_t *node_rank_of_rel; /* [size] rank in node_comm, -1 when on another node */
    struct segment *sync_seg;  /* the team's own signal words (barrier); see sync/ */
    uint64_t barrier_epoch;    /* barriers completed: sequence numbers, never resets */
    uint64_t *barrier_pair;    /* 2 members in shared memory: both barrier words, one line */
    uint32_t locks_created;    /* spreads lock tails over the members */
    struct shoal_lock *locks;  /* live locks, destroyed with the team */
    struct coll_team *coll;    /* collectives: signal words and scratch (coll/area.c) */
} team_t;

/* The team record for id, or a reported SHOAL_ERR_TEAM when unknown or I am not a member. The
 * all team, which most calls name, skips the table (a barrier's entry: 48 of its instructions). */
shoal_err_t shoal__team_get_slow(shoal_team_t id, team_t **team);
extern team_t *shoal__team_all_rec;
static inline shoal_err_t shoal__team_get(shoal_team_t id, team_t **team) {
    if (id == SHOAL_TEAM_ALL && shoal__team_all_rec) {
        *team = shoal__team_all_rec;
        return SHOAL_OK;
    }
    return shoal__team_get_slow(id, team);
}
static inline team_t *shoal__team_all(void) {
    return shoal__team_all_rec;
}

/* Failure and argument agreement of a collective call over t: every member passes its local
 * verdict (SHOAL_OK or the error it reported) and a hash of the arguments that must be equal
 * everywhere. Returns SHOAL_OK on every member, or an error on every member: a member's own,
 * another member's code ("another member rejected its arguments"), or SHOAL_ERR_INVAL when the
 * hashes differ ("members passed different <what>"). One allreduce. */
shoal_err_t shoal__team_agree(team_t *t, shoal_err_t mine, uint64_t args, const char *what);

/* Upper layers keep per-team state (mem: the team's allocations; sync: signal area and locks;
 * coll: its area). They are wired in as hooks at init (lifecycle/), so team/ never calls up:
 * create hooks run in registration order when a team is made (collective), destroy hooks in
 * reverse when it is destroyed (collective), release hooks at finalize (local: the segments are
 * gone already). Any of the three may be NULL. */
typedef struct {
    const char *what;
    shoal_err_t (*create)(team_t *t);
    shoal_err_t (*destroy)(team_t *t);
    void (*release_at_finalize)(team_t *t);
} team_hooks_t;
#define SHOAL_TEAM_HOOKS_MAX 8
void shoal__team_hooks_register(const team_hooks_t *hooks);

/* A team of exactly the units listed, in that order (team-relative id i is units[i], which need not
 * ascend), made collectively by those units only: MPI_Comm_create_group on the world communicator,
 * so no other unit takes part. Every listed unit passes the same list (not checked: a different
 * list is erroneous, as for MPI_Comm_create_group); the caller must be in it. Its parent is
 * SHOAL_TEAM_ALL. For layers above whose sets the rest of a parent does not call for (OpenSHMEM's
 * active sets) or whose order is not ascending (OpenSHMEM strided splits with negative strides). */
shoal_err_t shoal__team_create_members(const shoal_unit_t *units, int32_t n, shoal_team_t *team);
/* The same, made only if every listed unit passes willing != 0 (one allreduce over the new
 * communicator); otherwise nothing is kept and *team is SHOAL_TEAM_NULL on every listed unit. For
 * callers that cap how many such teams a unit holds (OpenSHMEM's active sets): the units agree,
 * so they all take the same way. */
shoal_err_t shoal__team_create_members_if(const shoal_unit_t *units, int32_t n, int willing,
                                          shoal_team_t *team);

/* Builds the all-units team (id 0) at init, and tears every team down at finalize. */
shoal_err_t shoal__teams_init(void);
void shoal__teams_finalize(void);

#endif
