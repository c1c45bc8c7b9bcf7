/* Teams (OpenSHMEM 1.5 section 9.4): the predefined SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED, the
 * queries, the strided and 2D splits, and destruction.
 *
 * Every OpenSHMEM team is a Shoal team whose team-relative ids are the OpenSHMEM team's PE numbers:
 * WORLD is SHOAL_TEAM_ALL, SHARED is shoal_team_node(SHOAL_TEAM_ALL) (just me when the direct path
 * is off: SHARED is the PEs shmem_ptr reaches) (both ascend in world PE),
 * and a split's team is made by shoal__team_create_members with its members listed in the new
 * team's order, so a negative stride (reverse order) or a parent whose order does not ascend in
 * world PE needs no translation anywhere: PE_root, collect order and alltoall blocks are Shoal's
 * team-relative ids as they are. That creation is collective over the new team's members only;
 * the splits add the agreement over the whole parent the specification asks for (the same triplet
 * everywhere, and one verdict for every parent PE).
 *
 * A handle is checked by looking it up (a hash of the handles, runtime/keymap.h: O(1), whatever
 * the number of teams made), never by reading through it first. A destroyed team's record stays
 * (marked destroyed, no PEs) until TEAM_QUARANTINE more teams have been destroyed after it, so a
 * stale handle is reported as destroyed instead of read after it was freed; past that it is
 * freed, and its handle is reported as not a team (unless the allocator has reused the address
 * for a newer team's record). */
#include <stdlib.h>
#include <string.h>

#include "runtime/keymap.h"
#include "runtime/quarantine.h"
#include "shmem_internal.h"
#include "team/team.h"

struct shmem__team shmem__team_world = {.id = SHOAL_TEAM_NULL, .my_pe = -1, .predefined = 1};
struct shmem__team shmem__team_shared = {.id = SHOAL_TEAM_NULL, .my_pe = -1, .predefined = 1};

/* Every team record: live ones and the last TEAM_QUARANTINE destroyed ones, in creation order
 * (shmem_finalize destroys the live ones in that order), found by handle through the keymap. */
typedef struct team_node {
    struct shmem__team team;
    int destroyed;
    struct team_node *prev, *next; /* creation order */
} team_node_t;
#define TEAM_QUARANTINE 256
static team_node_t *teams_head, *teams_last;
static quarantine_t destroyed_teams = QUARANTINE_INIT(TEAM_QUARANTINE);
static keymap_t team_handles = KEYMAP_INIT; /* (uintptr_t)handle -> node */
static pthread_mutex_t teams_mu = PTHREAD_MUTEX_INITIALIZER;

static team_node_t *node_of(shmem_team_t team) {
    pthread_mutex_lock(&teams_mu);
    team_node_t *n = keymap_find(&team_handles, (uintptr_t)team);
    pthread_mutex_unlock(&teams_mu);
    return n;
}

int shmem__team_ok(shmem_team_t team) {
    if (team == SHMEM_TEAM_INVALID) {
        shoal__fail(SHOAL_ERR_TEAM, "the team is SHMEM_TEAM_INVALID");
        return 0;
    }
    if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED) {
        if (team->id != SHOAL_TEAM_NULL) return 1;
        shoal__fail(SHOAL_ERR_NOT_INIT,
                    "SHMEM_TEAM_%s does not exist before shmem_init or after "
                    "shmem_finalize",
                    team == SHMEM_TEAM_WORLD ? "WORLD" : "SHARED");
        return 0;
    }
    team_node_t *n = node_of(team);
    if (!n) {
        shoal__fail(SHOAL_ERR_TEAM,
                    "%p is not a team handle (not made by a shmem_team_split_* "
                    "routine, released by shmem_finalize, or destroyed more than %d team "
                    "destructions ago)",
                    (void *)team, TEAM_QUARANTINE);
        return 0;
    }
    if (n->destroyed) {
        shoal__fail(SHOAL_ERR_TEAM, "the team was destroyed (shmem_team_destroy)");
        return 0;
    }
    return 1;
}

/* start and stride: the world PEs as an arithmetic sequence when they are one (stride 0 when not:
 * world_of is what counts). */
static void set_start_stride(struct shmem__team *st) {
    st->start = st->world_of[0];
    st->stride = st->n_pes > 1 ? st->world_of[1] - st->world_of[0] : 1;
    for (int i = 2; i < st->n_pes; i++)
        if (st->world_of[i] - st->world_of[i - 1] != st->stride) st->stride = 0;
}

/* Fills st (world_of already allocated, with room for the team) from the Shoal team id. */
static void fill_from_shoal(struct shmem__team *st, shoal_team_t id) {
    team_t *t = NULL;
    shoal__team_get(id, &t); /* made here just now: cannot fail */
    st->id = id;
    st->n_pes = t->size;
    st->my_pe = t->myrel;
    for (int32_t i = 0; i < t->size; i++) st->world_of[i] = t->abs_of_rel[i];
    set_start_stride(st);
}

/* The configuration a split asks for: checked locally (config may differ between PEs of different
 * new teams, 1.5 section 9.4.3). */
static shoal_err_t check_config(const shmem_team_config_t *config, long mask, const char *which) {
    if (mask & ~SHMEM_TEAM_NUM_CONTEXTS)
        return shoal__fail(SHOAL_ERR_INVAL,
                           "%sconfig_mask 0x%lx has bits other than "
                           "SHMEM_TEAM_NUM_CONTEXTS",
                           which, (unsigned long)mask);
    if ((mask & SHMEM_TEAM_NUM_CONTEXTS) && !config)
        return shoal__fail(SHOAL_ERR_INVAL,
                           "%sconfig_mask asks for SHMEM_TEAM_NUM_CONTEXTS but "
                           "the config pointer is NULL",
                           which);
    if ((mask & SHMEM_TEAM_NUM_CONTEXTS) && config->num_contexts < 0)
        return shoal__fail(SHOAL_ERR_INVAL, "%sconfig.num_contexts %d is negative", which,
                           config->num_contexts);
    return SHOAL_OK;
}

/* A record for a new team of n PEs, allocated before any collective step (so that running out of
 * memory is agreed, not a hang). */
static team_node_t *node_new(int n, const shmem_team_config_t *config, long mask) {
    team_node_t *node = calloc(1, sizeof *node);
    if (!node) return NULL;
    node->team.world_of = malloc((size_t)n * sizeof *node->team.world_of);
    if (!node->team.world_of) {
        free(node);
        return NULL;
    }
    node->team.id = SHOAL_TEAM_NULL;
    node->team.my_pe = -1;
    node->team.config_mask = mask;
    node->team.config.num_contexts = (mask & SHMEM_TEAM_NUM_CONTEXTS) ? config->num_contexts : 0;
    return node;
}

static void node_free(team_node_t *node) {
    if (!node) return;
    free(node->team.world_of);
    free(node);
}

/* Makes a new team's handle known. Out of host memory for the keymap, the handle cannot be
 * recognised: that is reported, every use of it is refused, and the team is released with the
 * others at shmem_finalize. */
static void node_publish(team_node_t *node) {
    pthread_mutex_lock(&teams_mu);
    node->prev = teams_last;
    node->next = NULL;
    if (teams_last)
        teams_last->next = node;
    else
        teams_head = node;
    teams_last = node;
    int err = keymap_insert(&team_handles, (uintptr_t)&node->team, node);
    pthread_mutex_unlock(&teams_mu);
    if (err)
        shoal__fail(SHOAL_ERR_NOMEM, "out of host memory to record the new team's handle: "
                                     "the handle will be refused");
}

/* A destroyed team's record joins the quarantine; the oldest one past TEAM_QUARANTINE is
 * forgotten and freed. Called with teams_mu held. */
static void node_retire(team_node_t *node) {
    node->destroyed = 1;
    team_node_t *old = quarantine_keep(&destroyed_teams, node);
    if (!old) return;
    keymap_remove(&team_handles, (uintptr_t)&old->team);
    if (old->prev)
        old->prev->next = old->next;
    else
        teams_head = old->next;
    if (old->next)
        old->next->prev = old->prev;
    else
        teams_last = old->prev;
    node_free(old);
}

/* Makes the Shoal team of the world PEs members[0..n) (collective over them) into node. */
static shoal_err_t create(const int *members, int n, team_node_t *node) {
    shoal_unit_t *units = malloc((size_t)n * sizeof *units);
    if (!units) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    for (int i = 0; i < n; i++) units[i] = members[i];
    shoal_team_t id = SHOAL_TEAM_NULL;
    shoal_err_t err = shoal__team_create_members(units, n, &id);
    free(units);
    if (err == SHOAL_OK) fill_from_shoal(&node->team, id);
    return err;
}

static uint64_t hash3(uint64_t a, uint64_t b, uint64_t c) {
    uint64_t h = 1469598103934665603ULL;
    h = (h ^ a) * 1099511628211ULL;
    h = (h ^ b) * 1099511628211ULL;
    return (h ^ c) * 1099511628211ULL;
}

/* The Shoal record of a live OpenSHMEM team (for agreements over it). */
static team_t *record_of(shmem_team_t team) {
    team_t *t = NULL;
    return shoal__team_get(team->id, &t) == SHOAL_OK ? t : NULL;
}

/* ---- Setup ----------------------------------------------------------------------------------- */
shoal_err_t shmem__teams_init(void) {
    const char *call = shoal__current_call;
    int n = (int)shoal__rt.nunits;
    struct shmem__team *w = &shmem__team_world, *s = &shmem__team_shared;
    w->world_of = malloc((size_t)n * sizeof *w->world_of);
    s->world_of = malloc((size_t)shoal__rt.node_size * sizeof *s->world_of);
    /* shoal_team_node is collective: take part in it even when the memory above is missing, then
     * agree over every PE (a node whose team failed must not leave the others waiting). */
    shoal_team_t node_id = SHOAL_TEAM_NULL;
    /* SHARED is the PEs whose memory shmem_ptr reaches: my node with the direct path on, only me
     * with it off (SHOAL_DIRECT=0: every other PE is reached through MPI). */
    int direct = shoal__rt.direct;
    int32_t expected = direct ? shoal__rt.node_size : 1;
    shoal_err_t mine = direct ? shoal_team_node(SHOAL_TEAM_ALL, &node_id)
                              : shoal_team_split(SHOAL_TEAM_ALL, (int)shoal__rt.myid, &node_id);
    shoal__current_call = call;
    team_t *t = NULL;
    if (mine == SHOAL_OK && (!w->world_of || !s->world_of))
        mine = shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    if (mine == SHOAL_OK && (mine = shoal__team_get(node_id, &t)) == SHOAL_OK &&
        t->size != expected)
        mine = shoal__fail(SHOAL_ERR_STATE, "the node team has %d units, expected %d", (int)t->size,
                           (int)expected);
    shoal_err_t err = shoal__team_agree(shoal__team_all(), mine, 0, "");
    shoal__current_call = call;
    if (err != SHOAL_OK) {
        if (node_id != SHOAL_TEAM_NULL) shoal_team_destroy(&node_id); /* over the node team */
        shoal__current_call = call;
        free(w->world_of);
        free(s->world_of);
        w->world_of = s->world_of = NULL;
        return err;
    }
    w->id = SHOAL_TEAM_ALL;
    w->n_pes = n;
    w->my_pe = (int)shoal__rt.myid;
    for (int i = 0; i < n; i++) w->world_of[i] = i;
    set_start_stride(w);
    fill_from_shoal(s, node_id);
    w->config.num_contexts = s->config.num_contexts = 0;
    w->config_mask = s->config_mask = 0;
    w->contexts = s->contexts = 0;
    w->predefined = s->predefined = 1;
    return SHOAL_OK;
}

static void reset_predefined(struct shmem__team *t) {
    free(t->world_of);
    memset(t, 0, sizeof *t);
    t->id = SHOAL_TEAM_NULL;
    t->my_pe = -1;
    t->predefined = 1;
}

void shmem__teams_finalize(void) {
    const char *call = shoal__current_call;
    /* Teams still alive are destroyed in creation order: every PE then meets its teams' members
     * in the order it met them when they were made, so these collective calls cannot cross. */
    pthread_mutex_lock(&teams_mu);
    team_node_t *n = teams_head;
    teams_head = teams_last = NULL;
    while (quarantine_take(&destroyed_teams)) continue; /* freed below, from the creation list */
    quarantine_clear(&destroyed_teams);
    keymap_clear(&team_handles);
    pthread_mutex_unlock(&teams_mu);
    while (n) {
        team_node_t *next = n->next;
        if (!n->destroyed && n->team.id != SHOAL_TEAM_NULL) shoal_team_destroy(&n->team.id);
        node_free(n);
        n = next;
    }
    if (shmem__team_shared.id != SHOAL_TEAM_NULL) shoal_team_destroy(&shmem__team_shared.id);
    reset_predefined(&shmem__team_shared);
    reset_predefined(&shmem__team_world);
    shoal__current_call = call;
}

/* ---- Queries --------------------------------------------------------------------------------- */
int shmem_team_my_pe(shmem_team_t team) {
    SHMEM_ENTER("shmem_team_my_pe");
    if (team == SHMEM_TEAM_INVALID) return -1; /* the specification's answer, not an error */
    if (!shmem__ready() || !shmem__team_ok(team)) return -1;
    return team->my_pe;
}

int shmem_team_n_pes(shmem_team_t team) {
    SHMEM_ENTER("shmem_team_n_pes");
    if (team == SHMEM_TEAM_INVALID) return -1;
    if (!shmem__ready() || !shmem__team_ok(team)) return -1;
    return team->n_pes;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config) {
    SHMEM_ENTER("shmem_team_get_config");
    if (team == SHMEM_TEAM_INVALID) return -1; /* "no operation is performed", nonzero */
    if (!shmem__ready() || !shmem__team_ok(team)) return -1;
    if (config_mask & ~SHMEM_TEAM_NUM_CONTEXTS) {
        shoal__fail(SHOAL_ERR_INVAL,
                    "config_mask 0x%lx has bits other than "
                    "SHMEM_TEAM_NUM_CONTEXTS",
                    (unsigned long)config_mask);
        return -1;
    }
    if (config_mask && !config) {
        shoal__fail(SHOAL_ERR_INVAL, "NULL config");
        return -1;
    }
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = team->config.num_contexts;
    return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) {
    SHMEM_ENTER("shmem_team_translate_pe");
    if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID) return -1;
    if (!shmem__ready() || !shmem__team_ok(src_team) || !shmem__team_ok(dest_team)) return -1;
    int world = shmem__team_world_pe(src_team, src_pe);
    if (world < 0) return -1; /* not a PE of src_team */
    if (dest_team == SHMEM_TEAM_WORLD) return world;
    team_t *t = record_of(dest_team);
    return t ? (int)t->rel_of_abs[world] : -1; /* -1 when not a member of dest_team */
}

/* ---- Splits ---------------------------------------------------------------------------------- */
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team) {
    SHMEM_ENTER("shmem_team_split_strided");
    if (!new_team) {
        shoal__fail(SHOAL_ERR_INVAL, "NULL new_team");
        return -1;
    }
    *new_team = SHMEM_TEAM_INVALID;
    if (!shmem__ready()) return -1;
    if (parent_team == SHMEM_TEAM_INVALID) {
        shoal__fail(SHOAL_ERR_TEAM, "parent_team is SHMEM_TEAM_INVALID: no team is made");
        return -1;
    }
    if (!shmem__team_ok(parent_team)) return -1;
    team_t *p = record_of(parent_team);
    if (!p) return -1;
    const int n = parent_team->n_pes;
    /* The triplet: start + stride * i must be a parent PE for every i < size (1.5: no wrap-around;
     * a negative stride lists the PEs in reverse order; stride 0 only for a team of one). Checked
     * from the ends, in 64 bits. */
    shoal_err_t mine = check_config(config, config_mask, "");
    int64_t last = (int64_t)start + (int64_t)stride * ((int64_t)size - 1);
    if (mine == SHOAL_OK && (size < 1 || size > n))
        mine = shoal__fail(SHOAL_ERR_INVAL, "size %d: must be 1..%d (the parent team's size)", size,
                           n);
    if (mine == SHOAL_OK && stride == 0 && size > 1)
        mine = shoal__fail(SHOAL_ERR_INVAL,
                           "stride 0 with size %d: a zero stride only makes a "
                           "team of one PE",
                           size);
    if (mine == SHOAL_OK && (start < 0 || start >= n || last < 0 || last >= n))
        mine = shoal__fail(SHOAL_ERR_INVAL,
                           "the triplet (start %d, stride %d, size %d) reaches "
                           "parent PE %lld, outside 0..%d",
                           start, stride, size, (long long)(start < 0 || start >= n ? start : last),
                           n - 1);
    /* Am I a member, and where? */
    int my = parent_team->my_pe, index = -1;
    if (mine == SHOAL_OK) {
        if (stride == 0)
            index = my == start ? 0 : -1;
        else if ((my - start) % stride == 0 && (my - start) / stride >= 0 &&
                 (my - start) / stride < size)
            index = (my - start) / stride;
    }
    team_node_t *node = NULL;
    int *members = NULL;
    if (mine == SHOAL_OK && index >= 0) {
        node = node_new(size, config, config_mask);
        members = malloc((size_t)size * sizeof *members);
        if (!node || !members) mine = shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    /* Every parent PE: the same triplet, and everybody's verdict on it. */
    const shoal_err_t agreed =
        shoal__team_agree(p, mine, hash3((uint64_t)start, (uint64_t)stride, (uint64_t)size),
                          "PE triplets (start, stride, size)");
    shoal_err_t err = agreed;
    SHMEM_ENTER("shmem_team_split_strided");
    if (err == SHOAL_OK && index >= 0) {
        for (int i = 0; i < size; i++)
            members[i] = parent_team->world_of[start + (int64_t)stride * i];
        err = create(members, size, node);
        SHMEM_ENTER("shmem_team_split_strided");
    }
    free(members);
    if (agreed == SHOAL_OK) { /* (the same on every parent PE) */
        /* One verdict for the whole parent: the team was made on every member, or on none. */
        shoal_err_t all = shoal__team_agree(p, err, 0, "");
        SHMEM_ENTER("shmem_team_split_strided");
        if (all != SHOAL_OK && err == SHOAL_OK && node && node->team.id != SHOAL_TEAM_NULL) {
            shoal_team_destroy(&node->team.id); /* made here but not everywhere: undo */
            SHMEM_ENTER("shmem_team_split_strided");
        }
        err = all;
    }
    if (err != SHOAL_OK) {
        node_free(node);
        return -1;
    }
    if (node) {
        node_publish(node);
        *new_team = &node->team;
    }
    return 0;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team) {
    SHMEM_ENTER("shmem_team_split_2d");
    if (!xaxis_team || !yaxis_team) {
        shoal__fail(SHOAL_ERR_INVAL, "NULL xaxis_team or yaxis_team");
        return -1;
    }
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (!shmem__ready()) return -1;
    if (parent_team == SHMEM_TEAM_INVALID) {
        shoal__fail(SHOAL_ERR_TEAM, "parent_team is SHMEM_TEAM_INVALID: no team is made");
        return -1;
    }
    if (!shmem__team_ok(parent_team)) return -1;
    team_t *p = record_of(parent_team);
    if (!p) return -1;
    /* The 2D space: parent PE pe is at (x, y) = (pe mod xrange, pe / xrange); the x-team of a PE is
     * its row (same y, numbered by x), its y-team its column (same x, numbered by y). An xrange
     * larger than the parent makes one row. */
    const int n = parent_team->n_pes, my = parent_team->my_pe;
    shoal_err_t mine =
        xrange < 1 ? shoal__fail(SHOAL_ERR_INVAL, "xrange %d: must be positive", xrange) : SHOAL_OK;
    if (mine == SHOAL_OK) mine = check_config(xaxis_config, xaxis_mask, "xaxis_");
    if (mine == SHOAL_OK) mine = check_config(yaxis_config, yaxis_mask, "yaxis_");
    int xr = xrange < n ? xrange : n; /* (only used when xrange >= 1) */
    int x = 0, y = 0, xsize = 0, ysize = 0;
    team_node_t *xnode = NULL, *ynode = NULL;
    int *xm = NULL, *ym = NULL;
    if (mine == SHOAL_OK) {
        x = my % xr;
        y = my / xr;
        xsize = (y + 1) * xr <= n ? xr : n - y * xr; /* the last row may be short */
        ysize = (n - x + xr - 1) / xr;               /* columns differ by at most one */
        xnode = node_new(xsize, xaxis_config, xaxis_mask);
        ynode = node_new(ysize, yaxis_config, yaxis_mask);
        xm = malloc((size_t)xsize * sizeof *xm);
        ym = malloc((size_t)ysize * sizeof *ym);
        if (!xnode || !ynode || !xm || !ym)
            mine = shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    shoal_err_t err = shoal__team_agree(p, mine, hash3((uint64_t)xrange, 0, 0), "xrange values");
    SHMEM_ENTER("shmem_team_split_2d");
    shoal_err_t xerr = err, yerr = err;
    if (err == SHOAL_OK) {
        for (int i = 0; i < xsize; i++) xm[i] = parent_team->world_of[y * xr + i];
        for (int i = 0; i < ysize; i++) ym[i] = parent_team->world_of[x + i * xr];
        /* Rows, then columns: every PE is in one of each, so every PE takes part in both rounds
         * (whatever the first gave it). */
        xerr = create(xm, xsize, xnode);
        SHMEM_ENTER("shmem_team_split_2d");
        yerr = create(ym, ysize, ynode);
        SHMEM_ENTER("shmem_team_split_2d");
    }
    free(xm);
    free(ym);
    if (xerr == SHOAL_OK) {
        node_publish(xnode);
        *xaxis_team = &xnode->team;
    } else {
        node_free(xnode);
    }
    if (yerr == SHOAL_OK) {
        node_publish(ynode);
        *yaxis_team = &ynode->team;
    } else {
        node_free(ynode);
    }
    return xerr == SHOAL_OK && yerr == SHOAL_OK ? 0 : -1;
}

/* ---- Destruction ----------------------------------------------------------------------------- */
void shmem_team_destroy(shmem_team_t team) {
    SHMEM_ENTER("shmem_team_destroy");
    if (team == SHMEM_TEAM_INVALID) return; /* "no operation is performed" */
    if (!shmem__ready() || !shmem__team_ok(team)) return;
    if (team->predefined) {
        shoal__fail(SHOAL_ERR_STATE,
                    "SHMEM_TEAM_%s is a predefined team: it cannot be destroyed "
                    "(nothing was done)",
                    team == SHMEM_TEAM_WORLD ? "WORLD" : "SHARED");
        return;
    }
    team_node_t *node = node_of(team);
    /* The team's contexts go with it (1.5: its shareable contexts are destroyed; private ones
     * the program should have destroyed first, and they go too rather than dangle). Their
     * handles stay recognised as destroyed. */
    shmem__ctx_destroy_team(team);
    shoal_team_destroy(&team->id); /* collective over the team; reports its own failure */
    SHMEM_ENTER("shmem_team_destroy");
    team->id = SHOAL_TEAM_NULL;
    team->n_pes = 0;
    team->my_pe = -1;
    free(team->world_of);
    team->world_of = NULL;
    pthread_mutex_lock(&teams_mu);
    node_retire(node);
    pthread_mutex_unlock(&teams_mu);
}
