/* Team lifecycle and queries. Teams are created collectively over a parent; the new members agree
 * on an id larger than any id any of them has seen, so a unit never sees an id twice. What upper
 * layers keep per team (allocations, signal area, locks, collectives' area) is created and freed
 * through the hooks they registered (team.h), so this layer never calls up. */
#include <stdlib.h>
#include <string.h>

#include "group.h"
#include "group_algebra.h"
#include "team.h"
#include "team_table.h"
#include "xport/mpiwin.h"

team_t *shoal__team_all_rec;
static int32_t next_team_id = 1;

static const team_hooks_t *hooks[SHOAL_TEAM_HOOKS_MAX];
static int nhooks;

void shoal__team_hooks_register(const team_hooks_t *h) {
    if (nhooks < SHOAL_TEAM_HOOKS_MAX) hooks[nhooks++] = h;
}

/* Destroy hooks below index `from`, in reverse order; the first error is kept. */
static shoal_err_t run_destroy_hooks(team_t *t, int from) {
    shoal_err_t err = SHOAL_OK;
    for (int i = from - 1; i >= 0; i--) {
        shoal_err_t e = hooks[i]->destroy ? hooks[i]->destroy(t) : SHOAL_OK;
        if (err == SHOAL_OK) err = e;
    }
    return err;
}

/* Create hooks in order; on a failure (agreed inside the hook: they are collective) the ones
 * already run are undone. */
static shoal_err_t run_create_hooks(team_t *t) {
    for (int i = 0; i < nhooks; i++) {
        shoal_err_t err = hooks[i]->create ? hooks[i]->create(t) : SHOAL_OK;
        if (err != SHOAL_OK) {
            run_destroy_hooks(t, i);
            return err;
        }
    }
    return SHOAL_OK;
}

shoal_err_t shoal__team_get_slow(shoal_team_t id, team_t **team) {
    team_t *t = team_table_find(id);
    if (!t) {
        if (id == SHOAL_TEAM_NULL)
            return shoal__fail(SHOAL_ERR_TEAM, "SHOAL_TEAM_NULL is not a team");
        return shoal__fail(SHOAL_ERR_TEAM,
                           "team %d does not exist here (destroyed, or I am not "
                           "a member)",
                           (int)id);
    }
    *team = t;
    return SHOAL_OK;
}

static void free_record(team_t *t) {
    if (!t) return;
    xport_win_free(&t->win); /* its segments detached already */
    if (t->node_comm != MPI_COMM_NULL && t->node_comm != t->comm) MPI_Comm_free(&t->node_comm);
    if (t->comm != MPI_COMM_NULL) MPI_Comm_free(&t->comm);
    free(t->abs_of_rel);
    free(t->rel_of_abs);
    free(t->node_rank_of_rel);
    free(t);
}

/* Which team ranks share my node, and their node ranks (segments map their parts): one allgather
 * over the node communicator. buf has room for the node's size. */
static shoal_err_t node_ranks(team_t *t, int32_t *buf) {
    int node_size;
    MPI_Comm_size(t->node_comm, &node_size);
    int rc = MPI_Allgather(&t->myrel, 1, MPI_INT32_T, buf, 1, MPI_INT32_T, t->node_comm);
    if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, "MPI_Allgather");
    for (int32_t r = 0; r < t->size; r++) t->node_rank_of_rel[r] = -1;
    for (int i = 0; i < node_size; i++) t->node_rank_of_rel[buf[i]] = i;
    return SHOAL_OK;
}

/* Builds a team over comm (owned by the team from now on; freed on failure). Collective over comm.
 * id_hint < 0: agree on a fresh id. */
static shoal_err_t team_from_comm(MPI_Comm comm, shoal_team_t parent, shoal_team_t fixed_id,
                                  team_t **out) {
    shoal_err_t err = SHOAL_OK;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN); /* errors come back as SHOAL_ERR_MPI */
    team_t *t = calloc(1, sizeof *t);
    if (!t) { /* the others still wait in the agreement below: take part, then fail */
        int ok = 0, all_ok = 0;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
        MPI_Comm_free(&comm);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    t->comm = comm;
    t->node_comm = MPI_COMM_NULL;
    t->win = MPI_WIN_NULL;
    t->parent = parent;
    MPI_Comm_size(comm, &t->size);
    MPI_Comm_rank(comm, &t->myrel);
    t->abs_of_rel = malloc((size_t)t->size * sizeof *t->abs_of_rel);
    t->rel_of_abs = malloc((size_t)shoal__rt.nunits * sizeof *t->rel_of_abs);
    t->node_rank_of_rel = malloc((size_t)t->size * sizeof *t->node_rank_of_rel);
    /* every member's {absolute id, node colour}; then node ranks (node size <= team size) */
    int32_t *node_rel = malloc(2 * (size_t)t->size * sizeof *node_rel);
    /* Everything that can fail locally is settled before the first collective step, so a member
     * never leaves the others waiting: memory, and room in the team table. */
    int ok = t->abs_of_rel && t->rel_of_abs && t->node_rank_of_rel && node_rel &&
             team_table_reserve() == 0,
        all_ok = 0;
    int rc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (rc != MPI_SUCCESS || !all_ok) {
        err = rc != MPI_SUCCESS
                  ? shoal__mpi_fail(rc, "MPI_Allreduce")
                  : shoal__fail(SHOAL_ERR_NOMEM, "out of host memory building a team");
        goto fail;
    }
    const int32_t me2[2] = {shoal__rt.myid, shoal__rt.node_colour};
    rc = MPI_Allgather(me2, 2, MPI_INT32_T, node_rel, 2, MPI_INT32_T, comm);
    if (rc != MPI_SUCCESS) {
        err = shoal__mpi_fail(rc, "MPI_Allgather");
        goto fail;
    }
    int all = 1;
    for (int32_t r = 0; r < t->size; r++) {
        t->abs_of_rel[r] = node_rel[2 * r];
        all &= node_rel[2 * r + 1] == shoal__rt.node_colour;
    }
    for (int32_t u = 0; u < shoal__rt.nunits; u++) t->rel_of_abs[u] = -1;
    for (int32_t r = 0; r < t->size; r++) t->rel_of_abs[t->abs_of_rel[r]] = r;

    /* The node split of every communicator follows the runtime's node (real or pretend). A team
     * on one node is its own node communicator (the split would give the same members in the same
     * order): no split, and one context id fewer of MPICH's 2,048 per team. */
    if (all) {
        t->node_comm = comm;
        for (int32_t r = 0; r < t->size; r++) t->node_rank_of_rel[r] = r;
    } else {
        rc = MPI_Comm_split(comm, shoal__rt.node_colour, t->myrel, &t->node_comm);
        if (rc != MPI_SUCCESS) {
            err = shoal__mpi_fail(rc, "MPI_Comm_split");
            goto fail;
        }
        err = node_ranks(t, node_rel);
        if (err != SHOAL_OK) goto fail;
    }
    t->all_on_node = all;

    if (fixed_id >= 0) {
        t->id = fixed_id;
    } else {
        int32_t id = 0;
        rc = MPI_Allreduce(&next_team_id, &id, 1, MPI_INT32_T, MPI_MAX, comm);
        if (rc != MPI_SUCCESS) {
            err = shoal__mpi_fail(rc, "MPI_Allreduce");
            goto fail;
        }
        t->id = id;
        next_team_id = id + 1;
    }
    /* t->win, the dynamic window, is made by the first segment that attaches (mem/segment.c) */
    team_table_insert(t->id, t); /* cannot fail: room was reserved */
    err = run_create_hooks(t);
    if (err != SHOAL_OK) {
        team_table_remove(t->id);
        goto fail;
    }
    free(node_rel);
    *out = t;
    return SHOAL_OK;
fail:
    free(node_rel);
    free_record(t);
    return err;
}

shoal_err_t shoal__teams_init(void) {
    MPI_Comm comm;
    SHOAL_MPI(MPI_Comm_dup(shoal__rt.world, &comm));
    team_t *t = NULL;
    SHOAL_TRY(team_from_comm(comm, SHOAL_TEAM_NULL, SHOAL_TEAM_ALL, &t));
    shoal__team_all_rec = t;
    return SHOAL_OK;
}

static shoal_err_t destroy(team_t *t) {
    shoal_err_t err = run_destroy_hooks(t, nhooks);
    team_table_remove(t->id);
    free_record(t);
    return err;
}

static void release_at_finalize(team_t *t) {
    for (int i = nhooks - 1; i >= 0; i--)
        if (hooks[i]->release_at_finalize) hooks[i]->release_at_finalize(t);
    free_record(t);
}

void shoal__teams_finalize(void) {
    /* Segments and locks are gone already (shoal__segments_finalize, shoal__sync_finalize): what is
     * left of each team is its communicators and tables, freed in ascending id order. */
    team_table_foreach(release_at_finalize);
    shoal__team_all_rec = NULL;
    team_table_clear();
}

/* Hash of a group, to check every member passed the same one. */
static uint64_t group_hash(const struct shoal_group *g) {
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)g->size;
    for (int32_t i = 0; i < g->size; i++)
        h = (h ^ (uint64_t)(uint32_t)g->units[i]) * 1099511628211ULL;
    return h;
}

shoal_err_t shoal__team_agree(team_t *t, shoal_err_t mine, uint64_t args, const char *what) {
    /* One allreduce (MAX) of {verdict, h, ~h}: the hashes are equal everywhere iff
     * max(h) == ~max(~h). */
    uint64_t local[3] = {(uint64_t)mine, args, ~args}, all[3];
    SHOAL_MPI(MPI_Allreduce(local, all, 3, MPI_UINT64_T, MPI_MAX, t->comm));
    if (mine != SHOAL_OK) return mine; /* reported where it was found */
    if (all[0] != SHOAL_OK)
        return shoal__fail((shoal_err_t)all[0],
                           "another member of team %d rejected its arguments (see its message)",
                           (int)t->id);
    if (all[1] != ~all[2])
        return shoal__fail(SHOAL_ERR_INVAL, "members of team %d passed different %s", (int)t->id,
                           what);
    return SHOAL_OK;
}

shoal_err_t shoal_team_create(shoal_team_t parent, shoal_group_t group, shoal_team_t *team) {
    SHOAL_ENTER("shoal_team_create");
    team_t *p = NULL;
    SHOAL_TRY(shoal__team_get(parent, &p));
    /* Every member must pass the same group, made only of the parent's units. */
    struct shoal_group *g = NULL;
    shoal_err_t mine =
        !team ? shoal__fail(SHOAL_ERR_INVAL, "NULL output") : shoal__group_get(group, &g);
    for (int32_t i = 0; mine == SHOAL_OK && i < g->size; i++)
        if (g->units[i] < 0 || g->units[i] >= shoal__rt.nunits || p->rel_of_abs[g->units[i]] < 0)
            mine = shoal__fail(SHOAL_ERR_UNIT, "the group has unit %d, outside team %d",
                               (int)g->units[i], (int)parent);
    SHOAL_TRY(shoal__team_agree(p, mine, mine == SHOAL_OK ? group_hash(g) : 0, "groups"));

    int colour = ga_find(g, shoal__rt.myid) >= 0 ? 0 : MPI_UNDEFINED;
    MPI_Comm comm;
    SHOAL_MPI(MPI_Comm_split(p->comm, colour, shoal__rt.myid, &comm));
    if (comm == MPI_COMM_NULL) {
        *team = SHOAL_TEAM_NULL;
        return SHOAL_OK;
    }
    team_t *t = NULL;
    SHOAL_TRY(team_from_comm(comm, parent, -1, &t));
    *team = t->id;
    return SHOAL_OK;
}

/* The tag of MPI_Comm_create_group for shoal__team_create_members (calls are issued one at a time
 * per unit, as every collective; disjoint sets may create theirs at the same time). */
#define CREATE_MEMBERS_TAG 0x5348

/* willing < 0: no vote (shoal__team_create_members). */
static shoal_err_t create_members(const shoal_unit_t *units, int32_t n, int willing,
                                  shoal_team_t *team) {
    if (!shoal__rt.initialized) return shoal__fail(SHOAL_ERR_NOT_INIT, "Shoal is not initialised");
    if (!units || !team || n < 1 || n > shoal__rt.nunits)
        return shoal__fail(SHOAL_ERR_INVAL, "a team of %d units out of %d (or a NULL argument)",
                           (int)n, (int)shoal__rt.nunits);
    /* Checked locally, alike on every listed unit (they pass the same list): before the first
     * collective step, so a bad list fails everywhere without a hang. */
    int *ranks = malloc((size_t)n * sizeof *ranks);
    unsigned char *seen = calloc((size_t)shoal__rt.nunits, 1);
    if (!ranks || !seen) {
        free(ranks);
        free(seen);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    shoal_err_t err = SHOAL_OK;
    int me_in = 0;
    for (int32_t i = 0; i < n && err == SHOAL_OK; i++) {
        if (units[i] < 0 || units[i] >= shoal__rt.nunits)
            err = shoal__fail(SHOAL_ERR_UNIT, "unit %d out of range 0..%d", (int)units[i],
                              (int)shoal__rt.nunits - 1);
        else if (seen[units[i]]++)
            err = shoal__fail(SHOAL_ERR_INVAL, "unit %d is listed twice", (int)units[i]);
        else
            ranks[i] = (int)units[i]; /* world ranks are absolute ids */
        me_in |= units[i] == shoal__rt.myid;
    }
    free(seen);
    if (err == SHOAL_OK && !me_in)
        err = shoal__fail(SHOAL_ERR_UNIT, "the calling unit %d is not among the %d units listed",
                          (int)shoal__rt.myid, (int)n);
    if (err != SHOAL_OK) {
        free(ranks);
        return err;
    }
    MPI_Group world_group = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
    MPI_Comm comm = MPI_COMM_NULL;
    int rc = MPI_Comm_group(shoal__rt.world, &world_group);
    if (rc == MPI_SUCCESS) rc = MPI_Group_incl(world_group, (int)n, ranks, &group);
    free(ranks);
    /* Collective over the group only: the units outside it are not involved. */
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_create_group(shoal__rt.world, group, CREATE_MEMBERS_TAG, &comm);
    if (group != MPI_GROUP_NULL) MPI_Group_free(&group);
    if (world_group != MPI_GROUP_NULL) MPI_Group_free(&world_group);
    if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, "MPI_Comm_create_group");
    /* From here on every step (and every create hook) is collective over comm alone. */
    if (willing >= 0) {
        int all = 0;
        rc = MPI_Allreduce(&willing, &all, 1, MPI_INT, MPI_MIN, comm);
        if (rc != MPI_SUCCESS || !all) {
            MPI_Comm_free(&comm);
            if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, "MPI_Allreduce");
            *team = SHOAL_TEAM_NULL;
            return SHOAL_OK;
        }
    }
    team_t *t = NULL;
    SHOAL_TRY(team_from_comm(comm, SHOAL_TEAM_ALL, -1, &t));
    *team = t->id;
    return SHOAL_OK;
}

shoal_err_t shoal__team_create_members(const shoal_unit_t *units, int32_t n, shoal_team_t *team) {
    return create_members(units, n, -1, team);
}

shoal_err_t shoal__team_create_members_if(const shoal_unit_t *units, int32_t n, int willing,
                                          shoal_team_t *team) {
    return create_members(units, n, willing != 0, team);
}

shoal_err_t shoal_team_split(shoal_team_t parent, int colour, shoal_team_t *team) {
    SHOAL_ENTER("shoal_team_split");
    team_t *p = NULL;
    SHOAL_TRY(shoal__team_get(parent, &p));
    shoal_err_t mine = SHOAL_OK;
    if (!team)
        mine = shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    else if (colour < 0 && colour != SHOAL_UNDEFINED)
        mine = shoal__fail(SHOAL_ERR_INVAL, "colour %d: must be >= 0 or SHOAL_UNDEFINED", colour);
    SHOAL_TRY(shoal__team_agree(p, mine, 0, ""));
    MPI_Comm comm;
    SHOAL_MPI(MPI_Comm_split(p->comm, colour == SHOAL_UNDEFINED ? MPI_UNDEFINED : colour,
                             shoal__rt.myid, &comm));
    if (comm == MPI_COMM_NULL) {
        *team = SHOAL_TEAM_NULL;
        return SHOAL_OK;
    }
    team_t *t = NULL;
    SHOAL_TRY(team_from_comm(comm, parent, -1, &t));
    *team = t->id;
    return SHOAL_OK;
}

shoal_err_t shoal_team_node(shoal_team_t parent, shoal_team_t *team) {
    SHOAL_ENTER("shoal_team_node");
    team_t *p = NULL;
    SHOAL_TRY(shoal__team_get(parent, &p));
    SHOAL_TRY(
        shoal__team_agree(p, team ? SHOAL_OK : shoal__fail(SHOAL_ERR_INVAL, "NULL output"), 0, ""));
    MPI_Comm comm;
    SHOAL_MPI(MPI_Comm_split(p->comm, shoal__rt.node_colour, shoal__rt.myid, &comm));
    team_t *t = NULL;
    SHOAL_TRY(team_from_comm(comm, parent, -1, &t));
    *team = t->id;
    return SHOAL_OK;
}

shoal_err_t shoal_team_destroy(shoal_team_t *team) {
    SHOAL_ENTER("shoal_team_destroy");
    if (!team) return shoal__fail(SHOAL_ERR_INVAL, "NULL team pointer");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(*team, &t));
    if (t == shoal__team_all_rec)
        return shoal__fail(SHOAL_ERR_STATE, "SHOAL_TEAM_ALL lives until shoal_finalize");
    shoal_err_t err = destroy(t);
    *team = SHOAL_TEAM_NULL;
    return err;
}

shoal_err_t shoal_team_size(shoal_team_t team, int32_t *size) {
    SHOAL_ENTER("shoal_team_size");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    if (!size) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    *size = t->size;
    return SHOAL_OK;
}

shoal_err_t shoal_team_myid(shoal_team_t team, shoal_unit_t *relative_id) {
    SHOAL_ENTER("shoal_team_myid");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    if (!relative_id) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    *relative_id = t->myrel;
    return SHOAL_OK;
}

shoal_err_t shoal_team_parent(shoal_team_t team, shoal_team_t *parent) {
    SHOAL_ENTER("shoal_team_parent");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    if (!parent) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    *parent = t->parent;
    return SHOAL_OK;
}

shoal_err_t shoal_team_unit_l2g(shoal_team_t team, shoal_unit_t relative, shoal_unit_t *absolute) {
    SHOAL_ENTER("shoal_team_unit_l2g");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    if (!absolute) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    if (relative < 0 || relative >= t->size)
        return shoal__fail(SHOAL_ERR_UNIT, "relative unit %d out of range 0..%d of team %d",
                           (int)relative, (int)t->size - 1, (int)team);
    *absolute = t->abs_of_rel[relative];
    return SHOAL_OK;
}

shoal_err_t shoal_team_unit_g2l(shoal_team_t team, shoal_unit_t absolute, shoal_unit_t *relative) {
    SHOAL_ENTER("shoal_team_unit_g2l");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    if (!relative) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    if (absolute < 0 || absolute >= shoal__rt.nunits)
        return shoal__fail(SHOAL_ERR_UNIT, "unit %d out of range 0..%d", (int)absolute,
                           (int)shoal__rt.nunits - 1);
    if (t->rel_of_abs[absolute] < 0)
        return shoal__fail(SHOAL_ERR_UNIT, "unit %d is not a member of team %d", (int)absolute,
                           (int)team);
    *relative = t->rel_of_abs[absolute];
    return SHOAL_OK;
}

static int cmp_unit(const void *a, const void *b) {
    shoal_unit_t x = *(const shoal_unit_t *)a, y = *(const shoal_unit_t *)b;
    return (x > y) - (x < y);
}

shoal_err_t shoal_team_get_group(shoal_team_t team, shoal_group_t *group) {
    SHOAL_ENTER("shoal_team_get_group");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    if (!group) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    struct shoal_group *g = malloc(sizeof *g);
    if (!g) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    ga_init(g);
    struct shoal_group view = {t->size, t->size, t->abs_of_rel};
    if (ga_copy(&view, g)) {
        free(g);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    /* A group ascends; a team made by shoal__team_create_members may list its units otherwise. */
    qsort(g->units, (size_t)g->size, sizeof *g->units, cmp_unit);
    return shoal__group_publish(g, group);
}
