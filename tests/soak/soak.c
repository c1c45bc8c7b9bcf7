/* Soak: a seeded random stream of Shoal operations whose final memory is checked byte for byte
 * against a sequential model.
 *
 *   soak [--seed S] [--epochs N] [--seconds T] [--watchdog W] [--verbose]
 *
 * Every unit runs the same generator from the seed, so every unit knows the whole schedule and
 * keeps the model of every unit's memory. The run is a sequence of epochs:
 *   1. structure: allocations are freed and made again (team_memalloc of varied sizes on varied
 *      teams, shoal_memalloc pool blocks whose pointers travel by fcollect), sub-teams are
 *      destroyed (with their allocations and locks) and created; then a barrier;
 *   2. roles: every part of every allocation is cut into segments, each with one role for the
 *      epoch, so that the outcome does not depend on timing: owned by one unit (put, put_nb,
 *      strided, local stores through shoal_gptr_getaddr, atomics on its own words), frozen (anyone
 *      reads), shared atomic words (one commutative operation per segment), records updated under
 *      a lock (the same delta on every word: a torn read shows), signal words (adds or one set),
 *      nice doubles (integer-valued, so adds commute), or a whole allocation kept for collectives;
 *   3. the stream: every unit runs its own operations in schedule order, the collectives (every
 *      collective of shoal.h plus the team barrier) interleaved, then waits for its signals;
 *      every read is checked at once (gets of frozen or own data exactly, fetched atomics within
 *      the bounds other units' contributions allow, locked records for tearing, put_signal data
 *      once its signal is seen, collective results against a local reference);
 *   4. a barrier, then every unit compares its whole part of every allocation with the model,
 *      and the units agree (shoal_reduce) on failures and on stopping (unit 0 decides, so a
 *      --seconds run stops at the same epoch everywhere).
 * A mismatch prints the seed, epoch, operation, allocation, offset, expected and found bytes; the
 * run exits non-zero. The schedule is a function of the seed alone: --seed S --epochs E repeats a
 * failure (the epoch count only cuts it short). */
#include <float.h>
#include <inttypes.h>
#include <math.h>

#include "testlib.h"

#define MAXU    8  /* units this program supports (the schedule needs every unit's model) */
#define MAXR    20 /* live allocations */
#define MAXT    10 /* live teams */
#define MAXL    12 /* live locks */
#define MAXSEG  40 /* segments per part per epoch */
#define MAXOPS  6000
#define MAXSIG  512
#define NBMAX   6
#define MAXPART 70000 /* largest part of an allocation */

/* ---- the schedule generator: splitmix64, the same stream on every unit -------------------- */
static uint64_t g_rng;
static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint64_t rnd(void) {
    g_rng += 0x9E3779B97F4A7C15ull;
    return mix64(g_rng);
}
static uint64_t below(uint64_t n) {
    return n ? rnd() % n : 0;
}
static int chance(int pct) {
    return (int)below(100) < pct;
}
/* Operation data: bytes are a function of a key, so a buffer is made again wherever needed. */
static void fill(uint8_t *b, size_t n, uint64_t key) {
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = mix64(key + i * 0x9E3779B97F4A7C15ull);
        memcpy(b + i, &w, n - i < 8 ? n - i : 8);
    }
}

/* ---- world: teams, locks, allocations -------------------------------------------------------- */
typedef struct {
    int live, id, n;
    shoal_team_t h; /* my handle; SHOAL_TEAM_NULL when I am not a member */
    int abs[MAXU];  /* team-relative -> absolute */
    int mem[MAXU];  /* absolute -> 1 when a member */
} team_t;

typedef struct {
    int live, team;
    shoal_lock_t h; /* NULL when I am not a member */
} lock_t;

enum { R_FROZEN, R_OWNED, R_ATOMIC, R_LOCKED, R_SIG, R_DBLADD, R_ODBL };
static const char *role_name[] = {"frozen", "owned",   "atomic",   "locked",
                                  "signal", "dbl-add", "dbl-owned"};
typedef struct {
    size_t off, len;
    uint8_t role, unit, type, op, lock;
} seg_t;

enum { RK_TEAM, RK_POOL, RK_DBL };
static const char *kind_name[] = {"team_memalloc", "pool", "doubles"};
typedef struct {
    int live, kind, team, id, coll;
    size_t size[MAXU];
    shoal_gptr_t gp[MAXU];
    uint8_t *model[MAXU];
    seg_t seg[MAXU][MAXSEG];
    int nseg[MAXU];
    size_t ccur; /* collectives: next free byte this epoch */
} region_t;

static team_t teams[MAXT];
static lock_t locks[MAXL];
static region_t regs[MAXR];
static int me, np, g_epoch, g_next_id = 1;
static uint64_t g_seed;
static long g_fail;
static shoal_gptr_t g_ctl; /* my part of the control allocation (agreement, pointer exchange) */
static int g_verbose;
static long g_inject = -1; /* --inject E: corrupt one byte at epoch E (shows the checks fire) */

/* ---- operations ----------------------------------------------------------------------------- */
enum {
    K_PUT,
    K_GET,
    K_NBGROUP,
    K_FENCEPAIR,
    K_PSTRIDED,
    K_GSTRIDED,
    K_LSTORE,
    K_AMO_SHARED,
    K_AMO_OWN,
    K_DBL,
    K_LOCKED,
    K_SIGNAL,
    K_FLUSH,
    K_WAITSIG,
    K_COLL,
    K_COUNT
};
static const char *op_name[] = {"put",          "get",           "nb-group",    "fence-pair",
                                "put_strided",  "get_strided",   "local-store", "atomic-shared",
                                "atomic-owned", "double-atomic", "locked-rmw",  "signal",
                                "flush",        "signal-wait",   "collective"};
enum {
    C_BARRIER,
    C_BCAST,
    C_BCAST_IN,
    C_COLLECT,
    C_FCOLLECT,
    C_ALLTOALL,
    C_ALLTOALLS,
    C_REDUCE,
    C_REDUCE_IN,
    C_SCAN,
    C_COUNT
};
static const char *coll_name[] = {"team_barrier",     "broadcast", "broadcast(in place)", "collect",
                                  "fcollect",         "alltoall",  "alltoalls",           "reduce",
                                  "reduce(in place)", "scan"};

typedef struct {
    uint8_t put;
    int16_t r, t;
    size_t off, len;
    uint64_t key;
} nbsub_t;

typedef struct {
    uint8_t kind, sub, done, type, aop, check;
    int16_t unit, r, t, r2, lock, team, sig;
    size_t off, len, off2, len2;
    uint64_t key, val, aux, bound;
    /* strided */
    size_t esz, nel;
    ptrdiff_t dst, sst;
    /* collectives: team, r, off (dest), off2 (src), len (bytes or count), root */
    int root;
    int nsub;
    nbsub_t nb[NBMAX];
} op_t;

typedef struct {
    int r, t, set, n;
    size_t off;
    uint64_t initial, final;
} sigword_t;

static op_t ops[MAXOPS];
static int nops, g_opi = -1;
static sigword_t sigs[MAXSIG];
static int nsigs;
static long counts[K_COUNT], coll_counts[C_COUNT], g_epochs_done;

/* ---- failure reports ------------------------------------------------------------------------ */
static void describe_op(const op_t *o, char *buf, size_t n) {
    if (o->kind == K_COLL)
        snprintf(buf, n, "#%d %s on team %d (alloc %d dest +%zu src +%zu, %zu, root %d)",
                 (int)(o - ops), coll_name[o->sub], teams[o->team].id,
                 o->r >= 0 ? regs[o->r].id : -1, o->off, o->off2, o->len, o->root);
    else
        snprintf(buf, n, "#%d %s/%d by unit %d (alloc %d on unit %d, +%zu, %zu bytes)",
                 (int)(o - ops), op_name[o->kind], o->sub, o->unit, o->r >= 0 ? regs[o->r].id : -1,
                 o->t, o->off, o->len);
}

__attribute__((format(printf, 1, 2))) static void fail(const char *fmt, ...) {
    char msg[600], opd[200] = "(none: allocation changes or end-of-epoch check)";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (g_opi >= 0) describe_op(&ops[g_opi], opd, sizeof opd);
    if (g_fail < 20)
        fprintf(stderr, "soak: FAIL seed=%" PRIu64 " epoch=%d unit=%d op %s: %s\n", g_seed, g_epoch,
                me, opd, msg);
    fflush(stderr);
    g_fail++;
}

#define OK(call)                                                                                   \
    do {                                                                                           \
        shoal_err_t e_ = (call);                                                                   \
        if (e_ != SHOAL_OK) fail("%s returned %s (line %d)", #call, shoal_strerror(e_), __LINE__); \
    } while (0)

/* Compares found with the model bytes; reports the first difference and how many differ. */
static int compare(const uint8_t *found, const uint8_t *exp, size_t n, const char *what, int r,
                   int t, size_t off) {
    if (!memcmp(found, exp, n)) return 1;
    size_t first = 0, bad = 0;
    for (size_t i = 0; i < n; i++)
        if (found[i] != exp[i]) {
            if (!bad) first = i;
            bad++;
        }
    const region_t *R = &regs[r];
    const seg_t *s = NULL;
    for (int k = 0; k < R->nseg[t]; k++)
        if (off + first >= R->seg[t][k].off && off + first < R->seg[t][k].off + R->seg[t][k].len)
            s = &R->seg[t][k];
    char by[24] = "";
    if (s && (s->role == R_OWNED || s->role == R_ODBL))
        snprintf(by, sizeof by, " by unit %d", s->unit);
    fail("%s: alloc %d (%s, team %d) on unit %d: offset %zu: expected 0x%02x, found 0x%02x "
         "(%zu of %zu bytes differ; segment %s%s)",
         what, R->id, kind_name[R->kind], teams[R->team].id, t, off + first, exp[first],
         found[first], bad, n, s ? role_name[s->role] : (R->coll ? "collectives" : "?"), by);
    return 0;
}

/* ---- helpers -------------------------------------------------------------------------------- */
static shoal_gptr_t gpt(int r, int t, size_t off) {
    return shoal_gptr_add(regs[r].gp[t], (int64_t)off);
}
static uint8_t *mdl(int r, int t, size_t off) {
    return regs[r].model[t] + off;
}
static uint8_t *local(int r, size_t off) {
    void *p = NULL;
    OK(shoal_gptr_getaddr(gpt(r, me, off), &p));
    if (!p) {
        fail("getaddr of my own part of alloc %d is NULL", regs[r].id);
        abort();
    }
    return (uint8_t *)p + 0;
}
static int member(int r, int u) {
    return teams[regs[r].team].mem[u];
}
static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}
static uint64_t rd_word(const uint8_t *p, size_t w) {
    uint64_t v = 0;
    memcpy(&v, p, w);
    return v;
}
static void wr_word(uint8_t *p, size_t w, uint64_t v) {
    memcpy(p, &v, w);
}
static uint64_t wmask(size_t w) {
    return w == 8 ? ~0ull : (1ull << (8 * w)) - 1;
}
static size_t type_w(int type) {
    return (type == SHOAL_INT32 || type == SHOAL_UINT32) ? 4 : 8;
}
static uint64_t amo_apply(int op, uint64_t a, uint64_t v, size_t w) {
    uint64_t r = op == SHOAL_OP_SUM    ? a + v
                 : op == SHOAL_OP_BAND ? (a & v)
                 : op == SHOAL_OP_BOR  ? (a | v)
                                       : (a ^ v);
    return r & wmask(w);
}
static double rd_dbl(const uint8_t *p) {
    double d;
    memcpy(&d, p, 8);
    return d;
}
static void wr_dbl(uint8_t *p, double d) {
    memcpy(p, &d, 8);
}

/* ---- structure: teams, locks, allocations ---------------------------------------------------- */
static int new_region(int kind, int team) {
    for (int r = 0; r < MAXR; r++)
        if (!regs[r].live) {
            memset(&regs[r], 0, sizeof regs[r]);
            regs[r].live = 1;
            regs[r].kind = kind;
            regs[r].team = team;
            regs[r].id = g_next_id++;
            return r;
        }
    return -1;
}

static size_t random_size(void) {
    switch (below(4)) {
    case 0:
        return 8 + below(250);
    case 1:
        return 256 + below(4000);
    case 2:
        return 4096 + below(20000);
    default:
        return 24576 + below(MAXPART - 24576);
    }
}

/* Every member fills its own part with local stores; the model gets the same bytes. */
static void init_parts(int r, uint64_t key) {
    region_t *R = &regs[r];
    for (int u = 0; u < np; u++) {
        if (!R->size[u]) continue;
        R->model[u] = xmalloc(R->size[u]);
        if (R->kind == RK_DBL) /* integer-valued doubles: adds of small integers commute */
            for (size_t i = 0; i + 8 <= R->size[u]; i += 8)
                wr_dbl(R->model[u] + i,
                       (double)((int64_t)(mix64(key + u * 977 + i) % 2001) - 1000));
        else
            fill(R->model[u], R->size[u], key ^ ((uint64_t)(u + 1) << 40));
        if (u == me) memcpy(local(r, 0), R->model[u], R->size[u]);
    }
}

static void team_alloc(int team, int kind, size_t size) {
    int r = new_region(kind, team);
    if (r < 0) return;
    region_t *R = &regs[r];
    for (int u = 0; u < np; u++) R->size[u] = teams[team].mem[u] ? size : 0;
    uint64_t key = rnd();
    if (teams[team].mem[me]) {
        shoal_gptr_t gp = SHOAL_GPTR_NULL;
        shoal_err_t e = shoal_team_memalloc(teams[team].h, size, &gp);
        if (e != SHOAL_OK) {
            fail("team_memalloc(team %d, %zu) returned %s", teams[team].id, size,
                 shoal_strerror(e));
            R->live = 0;
            return;
        }
        for (int u = 0; u < np; u++)
            if (teams[team].mem[u]) R->gp[u] = shoal_gptr_setunit(gp, u);
    }
    init_parts(r, key);
}

static void free_model(int r) {
    for (int u = 0; u < np; u++) free(regs[r].model[u]);
    regs[r].live = 0;
}

static void region_free(int r) {
    region_t *R = &regs[r];
    if (R->kind == RK_POOL)
        OK(shoal_memfree(R->gp[me]));
    else if (member(r, me))
        OK(shoal_team_memfree(R->gp[me]));
    free_model(r);
}

/* Pool blocks: every unit takes a block of its own size, fills it, and the pointers travel by
 * fcollect through the control allocation. */
static void pool_alloc(void) {
    int r = new_region(RK_POOL, 0);
    if (r < 0) return;
    region_t *R = &regs[r];
    for (int u = 0; u < np; u++) R->size[u] = 8 + below(chance(50) ? 2000 : 40000);
    uint64_t key = rnd();
    shoal_gptr_t mine = SHOAL_GPTR_NULL;
    OK(shoal_memalloc(R->size[me], &mine));
    R->gp[me] = mine;
    init_parts(r, key);
    uint8_t *ctl = NULL;
    OK(shoal_gptr_getaddr(g_ctl, (void **)&ctl));
    memcpy(ctl + 128, &mine, sizeof mine);
    OK(shoal_fcollect(SHOAL_TEAM_ALL, shoal_gptr_add(g_ctl, 256), shoal_gptr_add(g_ctl, 128),
                      sizeof mine));
    for (int u = 0; u < np; u++) {
        memcpy(&R->gp[u], ctl + 256 + u * sizeof mine, sizeof mine);
        if (R->gp[u].unit != (uint32_t)u || shoal_gptr_is_null(R->gp[u]))
            fail("pool pointer of unit %d came back as unit %u segment %u", u, R->gp[u].unit,
                 R->gp[u].segid);
    }
    if (!shoal_gptr_equal(R->gp[me], mine)) fail("fcollect changed my own pool pointer");
}

static int new_lock(int team) {
    for (int l = 0; l < MAXL; l++)
        if (!locks[l].live) {
            locks[l].live = 1;
            locks[l].team = team;
            locks[l].h = NULL;
            if (teams[team].mem[me]) OK(shoal_lock_create(teams[team].h, &locks[l].h));
            return l;
        }
    return -1;
}

static int team_slot(void) {
    for (int i = 1; i < MAXT; i++)
        if (!teams[i].live) return i;
    return -1;
}

static void team_record(int slot, const int *mem, shoal_team_t h) {
    team_t *T = &teams[slot];
    memset(T, 0, sizeof *T);
    T->live = 1;
    T->id = g_next_id++;
    T->h = mem[me] ? h : SHOAL_TEAM_NULL;
    for (int u = 0; u < np; u++)
        if (mem[u]) {
            T->mem[u] = 1;
            T->abs[T->n++] = u;
        }
    if (mem[me]) { /* the runtime's view of the team must match the schedule's */
        int32_t size = -1;
        shoal_unit_t rel = -1, a = -1;
        OK(shoal_team_size(h, &size));
        OK(shoal_team_myid(h, &rel));
        if (size != T->n) fail("team %d has %d units, expected %d", T->id, (int)size, T->n);
        for (int i = 0; i < T->n; i++) {
            OK(shoal_team_unit_l2g(h, i, &a));
            if (a != T->abs[i])
                fail("team %d: unit_l2g(%d) = %d, expected %d", T->id, i, a, T->abs[i]);
            if (T->abs[i] == me && rel != i)
                fail("team %d: myid %d, expected %d", T->id, (int)rel, i);
        }
    }
}

/* A split of TEAM_ALL into up to three colours (some units join none), or a team from a group. */
static void make_teams(void) {
    int colour[MAXU], mem[MAXU];
    if (chance(50)) {
        int ncol = 1 + (int)below(3);
        for (int u = 0; u < np; u++) colour[u] = chance(15) ? SHOAL_UNDEFINED : (int)below(ncol);
        shoal_team_t h = SHOAL_TEAM_NULL;
        OK(shoal_team_split(SHOAL_TEAM_ALL, colour[me], &h));
        if (colour[me] == SHOAL_UNDEFINED && h != SHOAL_TEAM_NULL)
            fail("team_split with SHOAL_UNDEFINED gave a team");
        for (int c = 0; c < ncol; c++) {
            int any = 0;
            for (int u = 0; u < np; u++) {
                mem[u] = colour[u] == c;
                any |= mem[u];
            }
            int slot = any ? team_slot() : -1;
            if (slot < 0) {
                if (any && colour[me] == c) OK(shoal_team_destroy(&h));
                continue;
            }
            team_record(slot, mem, h);
        }
    } else {
        shoal_group_t g = NULL;
        OK(shoal_group_create(&g));
        int any = 0;
        for (int u = 0; u < np; u++)
            if ((mem[u] = chance(60))) {
                OK(shoal_group_add_member(g, u));
                any = 1;
            }
        if (!any) {
            mem[0] = 1;
            OK(shoal_group_add_member(g, 0));
        }
        int slot = team_slot();
        shoal_team_t h = SHOAL_TEAM_NULL;
        if (slot >= 0) OK(shoal_team_create(SHOAL_TEAM_ALL, g, &h));
        OK(shoal_group_destroy(&g));
        if (slot >= 0) team_record(slot, mem, h);
    }
}

/* Destroying a team frees its allocations and locks: the schedule forgets them. */
static void destroy_team(int t) {
    if (teams[t].mem[me]) OK(shoal_team_destroy(&teams[t].h));
    for (int r = 0; r < MAXR; r++)
        if (regs[r].live && regs[r].team == t && regs[r].kind != RK_POOL) free_model(r);
    for (int l = 0; l < MAXL; l++)
        if (locks[l].live && locks[l].team == t) locks[l].live = 0;
    teams[t].live = 0;
}

static int count_live_regions(int kind) {
    int n = 0;
    for (int r = 0; r < MAXR; r++) n += regs[r].live && regs[r].kind == kind;
    return n;
}
static int random_live(int (*ok)(int), int max) {
    int cand[64], n = 0;
    for (int i = 0; i < max; i++)
        if (ok(i)) cand[n++] = i;
    return n ? cand[below((uint64_t)n)] : -1;
}
static int ok_team_region(int r) {
    return regs[r].live && regs[r].kind == RK_TEAM;
}
static int ok_pool_region(int r) {
    return regs[r].live && regs[r].kind == RK_POOL;
}
static int ok_subteam(int t) {
    return t > 0 && teams[t].live;
}
static int ok_lock(int l) {
    return locks[l].live;
}
static int ok_team(int t) {
    return teams[t].live;
}

static void setup(void) {
    team_t *A = &teams[0];
    A->live = 1;
    A->id = 0;
    A->h = SHOAL_TEAM_ALL;
    A->n = np;
    for (int u = 0; u < np; u++) A->abs[u] = u, A->mem[u] = 1;
    OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 256 + 16 * MAXU, &g_ctl));
    new_lock(0);
    new_lock(0);
    team_alloc(0, RK_DBL, 8 * (16 + below(200)));
    for (int i = 0; i < 3; i++) team_alloc(0, RK_TEAM, random_size());
    for (int i = 0; i < 2; i++) {
        int before[MAXT];
        for (int t = 0; t < MAXT; t++) before[t] = teams[t].live;
        make_teams();
        for (int t = 1; t < MAXT; t++)
            if (teams[t].live && !before[t]) {
                team_alloc(t, RK_TEAM, random_size());
                new_lock(t);
            }
    }
    pool_alloc();
    pool_alloc();
}

static void structure(void) {
    if (chance(15)) { /* free an allocation and make another, maybe on another team */
        int r = random_live(ok_team_region, MAXR);
        if (r >= 0 && count_live_regions(RK_TEAM) > 2) region_free(r);
        int t = random_live(ok_team, MAXT);
        if (t >= 0) team_alloc(t, RK_TEAM, random_size());
    }
    if (chance(10)) { /* pool churn */
        int r = random_live(ok_pool_region, MAXR);
        if (r >= 0) region_free(r);
        pool_alloc();
    }
    if (chance(5)) { /* team churn: destroy a sub-team (allocations and locks go with it) */
        int t = random_live(ok_subteam, MAXT);
        if (t >= 0) destroy_team(t);
        int before[MAXT];
        for (int i = 0; i < MAXT; i++) before[i] = teams[i].live;
        make_teams();
        for (int i = 1; i < MAXT; i++)
            if (teams[i].live && !before[i]) {
                team_alloc(i, RK_TEAM, random_size());
                if (chance(80)) new_lock(i);
            }
    }
    if (chance(5)) { /* lock churn: destroy one (nobody holds it now) and make another */
        int l = random_live(ok_lock, MAXL);
        if (l >= 0) {
            if (teams[locks[l].team].mem[me]) OK(shoal_lock_destroy(&locks[l].h));
            locks[l].live = 0;
        }
        int t = random_live(ok_team, MAXT);
        if (t >= 0) new_lock(t);
    }
    if (chance(8) && count_live_regions(RK_TEAM) < 8) {
        int t = random_live(ok_team, MAXT);
        if (t >= 0) team_alloc(t, RK_TEAM, random_size());
    }
}

/* ---- roles for one epoch ------------------------------------------------------------------------
 */
static int random_member(int team) {
    return teams[team].abs[below((uint64_t)teams[team].n)];
}

static int lock_for_region(int r) {
    int cand[MAXL], n = 0;
    for (int l = 0; l < MAXL; l++) {
        if (!locks[l].live) continue;
        for (int u = 0; u < np; u++)
            if (teams[locks[l].team].mem[u] && member(r, u)) {
                cand[n++] = l;
                break;
            }
    }
    return n ? cand[below((uint64_t)n)] : -1;
}

static void add_seg(int r, int t, size_t off, size_t len, int role) {
    region_t *R = &regs[r];
    seg_t *s = &R->seg[t][R->nseg[t]++];
    memset(s, 0, sizeof *s);
    s->off = off;
    s->len = len;
    s->role = (uint8_t)role;
    if (role == R_OWNED || role == R_ODBL) s->unit = (uint8_t)random_member(R->team);
    if (role == R_ATOMIC) {
        static const int types[] = {SHOAL_INT32, SHOAL_INT64, SHOAL_UINT32, SHOAL_UINT64};
        static const int opsv[] = {SHOAL_OP_SUM, SHOAL_OP_BAND, SHOAL_OP_BOR, SHOAL_OP_BXOR};
        s->type = (uint8_t)types[below(4)];
        s->op = (uint8_t)opsv[below(4)];
    }
    if (role == R_SIG)
        for (size_t o = off; o < off + len && nsigs < MAXSIG; o += 8) {
            sigword_t *w = &sigs[nsigs++];
            memset(w, 0, sizeof *w);
            w->r = r;
            w->t = t;
            w->off = o;
            w->set = chance(30);
            w->initial = w->final = rd_word(mdl(r, t, o), 8);
        }
}

static void make_roles(int r, int t) {
    region_t *R = &regs[r];
    size_t S = R->size[t], pos = 0;
    R->nseg[t] = 0;
    size_t maxlen = S / 6 + 8;
    while (pos < S && R->nseg[t] < MAXSEG - 2) {
        int p = (int)below(100), role;
        if (R->kind == RK_DBL)
            role = p < 30 ? R_FROZEN : p < 75 ? R_DBLADD : R_ODBL;
        else
            role = p < 45   ? R_OWNED
                   : p < 63 ? R_FROZEN
                   : p < 78 ? R_ATOMIC
                   : p < 88 ? R_LOCKED
                            : R_SIG;
        int lock = -1;
        if (role == R_LOCKED && (lock = lock_for_region(r)) < 0) role = R_OWNED;
        if (role == R_OWNED || role == R_FROZEN) {
            size_t len = 1 + below(S - pos < maxlen ? S - pos : maxlen);
            add_seg(r, t, pos, len, role);
            pos += len;
            continue;
        }
        size_t a = (pos + 7) & ~(size_t)7;
        if (a + 8 > S) break;
        if (a > pos)
            add_seg(r, t, pos, a - pos, chance(50) || R->kind == RK_DBL ? R_FROZEN : R_OWNED);
        size_t words = role == R_SIG      ? 1 + below(3)
                       : role == R_LOCKED ? 1 + below(6)
                                          : 1 + below(8);
        if (words > (S - a) / 8) words = (S - a) / 8;
        add_seg(r, t, a, 8 * words, role);
        if (role == R_LOCKED) R->seg[t][R->nseg[t] - 1].lock = (uint8_t)lock;
        pos = a + 8 * words;
    }
    if (pos < S) add_seg(r, t, pos, S - pos, R->kind == RK_DBL ? R_FROZEN : R_OWNED);
}

/* ---- generation of one epoch's operations ------------------------------------------------------
 */
static int regions_of(int u, int *out, int allow_kind_mask) {
    int n = 0;
    for (int r = 0; r < MAXR; r++)
        if (regs[r].live && !regs[r].coll && (allow_kind_mask >> regs[r].kind & 1) && member(r, u))
            out[n++] = r;
    return n;
}

/* A segment of one of the roles in mask that unit u may use; 0 when none was found. */
static int find_seg(int u, unsigned mask, int kinds, int *pr, int *pt, const seg_t **ps) {
    int rs[MAXR];
    int nr = regions_of(u, rs, kinds);
    for (int tries = 0; tries < 12 && nr; tries++) {
        int r = rs[below((uint64_t)nr)];
        int t = random_member(regs[r].team);
        region_t *R = &regs[r];
        int cand[MAXSEG], n = 0;
        for (int k = 0; k < R->nseg[t]; k++) {
            const seg_t *s = &R->seg[t][k];
            if (!(mask >> s->role & 1)) continue;
            if ((s->role == R_OWNED || s->role == R_ODBL) && s->unit != u) continue;
            if (s->role == R_LOCKED && !teams[locks[s->lock].team].mem[u]) continue;
            cand[n++] = k;
        }
        if (!n) continue;
        *pr = r;
        *pt = t;
        *ps = &R->seg[t][cand[below((uint64_t)n)]];
        return 1;
    }
    return 0;
}

static void sub_range(const seg_t *s, size_t maxlen, size_t *off, size_t *len) {
    size_t l = 1 + below(s->len < maxlen ? s->len : maxlen);
    *off = s->off + below(s->len - l + 1);
    *len = l;
}

static op_t *new_op(int kind, int unit) {
    if (nops >= MAXOPS) return NULL;
    op_t *o = &ops[nops++];
    memset(o, 0, sizeof *o);
    o->kind = (uint8_t)kind;
    o->unit = (int16_t)unit;
    o->r = o->r2 = o->lock = o->team = o->sig = -1;
    o->key = rnd();
    return o;
}

/* An aligned word of width w inside segment s; 0 when it has none. */
static int word_in(const seg_t *s, size_t w, size_t *off) {
    size_t a = (s->off + w - 1) / w * w;
    if (a + w > s->off + s->len) return 0;
    size_t n = (s->off + s->len - a) / w;
    *off = a + w * below(n);
    return 1;
}

static const unsigned RD = 1u << R_FROZEN | 1u << R_OWNED;
#define ALLK 7

static int overlaps(int r1, int t1, size_t o1, size_t l1, int r2, int t2, size_t o2, size_t l2) {
    return r1 == r2 && t1 == t2 && o1 < o2 + l2 && o2 < o1 + l1;
}

static void gen_rma(int u) {
    int r, t;
    const seg_t *s;
    int w = (int)below(100);
    op_t *o;
    if (w < 13) { /* put */
        if (!find_seg(u, 1u << R_OWNED, ALLK, &r, &t, &s) || !(o = new_op(K_PUT, u))) return;
        o->r = (int16_t)r, o->t = (int16_t)t;
        sub_range(s, chance(20) ? 70000 : 600, &o->off, &o->len);
    } else if (w < 23) { /* get: frozen data, or my own */
        if (!find_seg(u, RD, ALLK, &r, &t, &s) || !(o = new_op(K_GET, u))) return;
        o->r = (int16_t)r, o->t = (int16_t)t;
        sub_range(s, chance(20) ? 70000 : 600, &o->off, &o->len);
    } else if (w < 31) { /* a group of non-blocking puts and gets on disjoint bytes */
        if (!(o = new_op(K_NBGROUP, u))) return;
        o->sub = (uint8_t)below(4); /* completion: wait each, waitall, test, testall */
        o->aux = below(3);          /* 0: no flush, 1: flush_all, 2: flush per target */
        int want = 1 + (int)below(NBMAX);
        for (int k = 0; k < want * 3 && o->nsub < want; k++) {
            int put = chance(50);
            if (!find_seg(u, put ? 1u << R_OWNED : RD, ALLK, &r, &t, &s)) continue;
            nbsub_t *b = &o->nb[o->nsub];
            b->put = (uint8_t)put;
            b->r = (int16_t)r, b->t = (int16_t)t;
            sub_range(s, chance(20) ? 20000 : 400, &b->off, &b->len);
            b->key = rnd();
            int clash = 0;
            for (int j = 0; j < o->nsub; j++)
                clash |= overlaps(b->r, b->t, b->off, b->len, o->nb[j].r, o->nb[j].t, o->nb[j].off,
                                  o->nb[j].len);
            if (!clash) o->nsub++;
        }
    } else if (w < 34) { /* put_nb, fence, put_nb to the same bytes: the second wins */
        if (!find_seg(u, 1u << R_OWNED, ALLK, &r, &t, &s) || !(o = new_op(K_FENCEPAIR, u))) return;
        o->r = (int16_t)r, o->t = (int16_t)t;
        sub_range(s, 512, &o->off, &o->len);
        o->aux = rnd();
    } else if (w < 45) { /* strided put or get */
        int put = w < 40;
        if (!find_seg(u, put ? 1u << R_OWNED : RD, ALLK, &r, &t, &s) ||
            !(o = new_op(put ? K_PSTRIDED : K_GSTRIDED, u)))
            return;
        o->r = (int16_t)r, o->t = (int16_t)t;
        o->esz = 1 + below(s->len < 24 ? s->len : 24);
        o->dst = (ptrdiff_t)(o->esz + below(chance(30) ? 1 : 40));
        size_t maxn = 1 + (s->len - o->esz) / (size_t)o->dst;
        o->nel = 1 + below(maxn < 64 ? maxn : 64);
        o->sst = (ptrdiff_t)(o->esz + below(16));
        o->len = (o->nel - 1) * (size_t)o->dst + o->esz;
        o->off = s->off + below(s->len - o->len + 1);
    } else if (w < 50) { /* local stores through getaddr (mine, or a peer's on the direct path) */
        if (!find_seg(u, 1u << R_OWNED, ALLK, &r, &t, &s) || !(o = new_op(K_LSTORE, u))) return;
        o->r = (int16_t)r, o->t = (int16_t)t;
        sub_range(s, 2000, &o->off, &o->len);
    } else if (w < 61) { /* commutative atomics on shared words */
        if (!find_seg(u, 1u << R_ATOMIC, ALLK, &r, &t, &s) || !(o = new_op(K_AMO_SHARED, u)))
            return;
        o->r = (int16_t)r, o->t = (int16_t)t;
        o->type = s->type, o->aop = s->op;
        size_t wd = type_w(s->type);
        if (!word_in(s, wd, &o->off)) {
            o->kind = K_FLUSH;
            return;
        }
        o->len = wd;
        o->sub = (uint8_t)below(s->op == SHOAL_OP_SUM ? 3 : 2); /* op, fetch_op, cas loop */
        o->val = s->op == SHOAL_OP_SUM ? 1 + below(65535) : rnd() & wmask(wd);
    } else if (w < 69) { /* atomics on my own words: every old value is exact */
        if (!find_seg(u, 1u << R_OWNED, ALLK, &r, &t, &s) || !(o = new_op(K_AMO_OWN, u))) return;
        static const int types[] = {SHOAL_INT32, SHOAL_INT64, SHOAL_UINT32, SHOAL_UINT64};
        o->type = (uint8_t)types[below(4)];
        size_t wd = type_w(o->type);
        if (!word_in(s, wd, &o->off)) {
            o->kind = K_FLUSH;
            return;
        }
        o->r = (int16_t)r, o->t = (int16_t)t, o->len = wd;
        o->sub = (uint8_t)below(7); /* store swap cas-hit cas-miss fetch_op op load */
        o->aop =
            (uint8_t)(int[]){SHOAL_OP_SUM, SHOAL_OP_BAND, SHOAL_OP_BOR, SHOAL_OP_BXOR}[below(4)];
        o->val = rnd() & wmask(wd);
    } else if (w < 74) { /* double atomics: shared adds of integers, or my own words */
        if (!find_seg(u, 1u << R_DBLADD | 1u << R_ODBL, 1 << RK_DBL, &r, &t, &s) ||
            !(o = new_op(K_DBL, u)))
            return;
        o->r = (int16_t)r, o->t = (int16_t)t, o->len = 8;
        word_in(s, 8, &o->off);
        o->sub = (uint8_t)(s->role == R_DBLADD ? below(3) /* op fetch load */
                                               : 3 + below(4) /* store swap fetch load */);
        o->val = 1 + below(1000);
    } else if (w < 81) { /* a record read, changed and written back under a lock */
        if (!find_seg(u, 1u << R_LOCKED, ALLK, &r, &t, &s) || !(o = new_op(K_LOCKED, u))) return;
        o->r = (int16_t)r, o->t = (int16_t)t, o->off = s->off, o->len = s->len;
        o->lock = s->lock;
        o->sub = (uint8_t)below(2); /* acquire, try_acquire loop */
        o->aux = below(3);          /* blocking, non-blocking, strided transfers */
        o->val = 1 + below(1000);
    } else if (w < 92) { /* signal: alone or with data (put_signal) */
        if (!find_seg(u, 1u << R_SIG, ALLK, &r, &t, &s)) return;
        int cand[64], n = 0;
        for (int i = 0; i < nsigs && n < 64; i++)
            if (sigs[i].r == r && sigs[i].t == t && sigs[i].off >= s->off &&
                sigs[i].off < s->off + s->len && !(sigs[i].set && sigs[i].n))
                cand[n++] = i;
        if (!n || !(o = new_op(K_SIGNAL, u))) return;
        sigword_t *sw = &sigs[cand[below((uint64_t)n)]];
        o->sig = (int16_t)(sw - sigs);
        o->r = (int16_t)r, o->t = (int16_t)t, o->off = sw->off, o->len = 8;
        if (sw->set) {
            do o->val = rnd();
            while (o->val == sw->initial);
            sw->final = o->val;
        } else {
            o->val = 1 + below(1000);
            sw->final += o->val;
        }
        sw->n++;
        o->sub = 0;
        /* data on the same unit: one of my owned segments on t, in any allocation */
        int r2, t2;
        const seg_t *s2;
        for (int k = 0; k < 6 && chance(75); k++)
            if (find_seg(u, 1u << R_OWNED, ALLK, &r2, &t2, &s2) && t2 == t) {
                o->sub = 1;
                o->r2 = (int16_t)r2;
                sub_range(s2, 800, &o->off2, &o->len2);
                if (chance(5)) o->len2 = 0;
                break;
            }
    } else { /* flushes and fences */
        if (!(o = new_op(K_FLUSH, u))) return;
        o->sub = (uint8_t)below(3);
        o->t = (int16_t)below((uint64_t)np);
    }
}

/* ---- collectives: type table and references ----------------------------------------------------
 */
typedef struct {
    shoal_type_t t;
    char kind; /* 's' signed, 'u' unsigned, 'f' floating */
} tinfo_t;
static const tinfo_t tinfo[] = {
    {SHOAL_TYPE_CHAR, 'c'},   {SHOAL_TYPE_SCHAR, 's'},     {SHOAL_TYPE_SHORT, 's'},
    {SHOAL_TYPE_INT, 's'},    {SHOAL_TYPE_LONG, 's'},      {SHOAL_TYPE_LONGLONG, 's'},
    {SHOAL_TYPE_UCHAR, 'u'},  {SHOAL_TYPE_USHORT, 'u'},    {SHOAL_TYPE_UINT, 'u'},
    {SHOAL_TYPE_ULONG, 'u'},  {SHOAL_TYPE_ULONGLONG, 'u'}, {SHOAL_TYPE_INT8, 's'},
    {SHOAL_TYPE_INT16, 's'},  {SHOAL_TYPE_INT32, 's'},     {SHOAL_TYPE_INT64, 's'},
    {SHOAL_TYPE_UINT8, 'u'},  {SHOAL_TYPE_UINT16, 'u'},    {SHOAL_TYPE_UINT32, 'u'},
    {SHOAL_TYPE_UINT64, 'u'}, {SHOAL_TYPE_SIZE, 'u'},      {SHOAL_TYPE_PTRDIFF, 's'},
    {SHOAL_TYPE_FLOAT, 'f'},  {SHOAL_TYPE_DOUBLE, 'f'},    {SHOAL_TYPE_LONGDOUBLE, 'f'},
};
#define NTYPES ((int)(sizeof tinfo / sizeof tinfo[0]))

static char tkind(int ti) {
    return tinfo[ti].kind == 'c' ? ((char)-1 < 0 ? 's' : 'u') : tinfo[ti].kind;
}
/* Bytes of an element that carry its value (x87 long double has padding). */
static size_t tsig(int ti) {
    size_t sz = shoal_type_size(tinfo[ti].t);
    if (tinfo[ti].t == SHOAL_TYPE_LONGDOUBLE && LDBL_MANT_DIG == 64) return 10;
    return sz;
}
static long double fget(const uint8_t *p, size_t sz) {
    if (sz == 4) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    if (sz == 8) return rd_dbl(p);
    long double l;
    memcpy(&l, p, sizeof l);
    return l;
}
static void fput(uint8_t *p, size_t sz, long double v) {
    memset(p, 0, sz);
    if (sz == 4) {
        float f = (float)v;
        memcpy(p, &f, 4);
    } else if (sz == 8) {
        wr_dbl(p, (double)v);
    } else {
        long double l = v;
        memcpy(p, &l, tsig(NTYPES - 1));
    }
}
static uint64_t iget(const uint8_t *p, size_t sz, char k) {
    uint64_t v = rd_word(p, sz);
    if (k == 's' && sz < 8 && (v >> (8 * sz - 1) & 1)) v |= ~wmask(sz);
    return v;
}
/* acc = acc op x for one element. */
static void red_elem(int ti, int op, uint8_t *acc, const uint8_t *x) {
    size_t sz = shoal_type_size(tinfo[ti].t);
    char k = tkind(ti);
    if (k == 'f') {
        long double a = fget(acc, sz), b = fget(x, sz);
        long double r = op == SHOAL_RED_SUM    ? a + b
                        : op == SHOAL_RED_PROD ? a * b
                        : op == SHOAL_RED_MIN  ? (b < a ? b : a)
                                               : (b > a ? b : a);
        fput(acc, sz, r);
        return;
    }
    uint64_t a = iget(acc, sz, k), b = iget(x, sz, k), r;
    int lt = k == 's' ? (int64_t)b < (int64_t)a : b < a;
    switch (op) {
    case SHOAL_RED_SUM:
        r = a + b;
        break;
    case SHOAL_RED_PROD:
        r = a * b;
        break;
    case SHOAL_RED_MIN:
        r = lt ? b : a;
        break;
    case SHOAL_RED_MAX:
        r = (!lt && a != b) ? b : a;
        break;
    case SHOAL_RED_AND:
        r = a & b;
        break;
    case SHOAL_RED_OR:
        r = a | b;
        break;
    default:
        r = a ^ b;
        break;
    }
    wr_word(acc, sz, r);
}
/* Source values: any bytes for integers; small integers for floating types (sums, products,
 * minima and maxima exact in any order). */
static void typed_fill(uint8_t *b, size_t count, int ti, int op, uint64_t key) {
    size_t sz = shoal_type_size(tinfo[ti].t);
    if (tkind(ti) != 'f') {
        fill(b, count * sz, key);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        int64_t m = op == SHOAL_RED_PROD ? 9 : 41;
        fput(b + i * sz, sz, (long double)((int64_t)(mix64(key + i) % (uint64_t)m) - m / 2));
    }
}

static uint64_t member_key(const op_t *o, int a) {
    return o->key ^ ((uint64_t)(a + 1) * 0xA24BAED4963EE407ull);
}
static size_t collect_n(const op_t *o, int a) {
    return (size_t)(mix64(member_key(o, a)) % (o->len + 1));
}

/* Bytes of src and dest of collective o for a team of nc units. */
static void coll_sizes(const op_t *o, int nc, size_t *src, size_t *dst) {
    size_t tsz = o->type < NTYPES ? shoal_type_size(tinfo[o->type].t) : 1;
    switch (o->sub) {
    case C_BCAST:
        *src = *dst = o->len;
        break;
    case C_BCAST_IN:
        *src = 0, *dst = o->len;
        break;
    case C_COLLECT:
        *src = o->len, *dst = o->len * (size_t)nc;
        break;
    case C_FCOLLECT:
        *src = o->len, *dst = o->len * (size_t)nc;
        break;
    case C_ALLTOALL:
        *src = *dst = o->len * (size_t)nc;
        break;
    case C_ALLTOALLS:
        *src = ((size_t)nc * o->nel - 1) * (size_t)o->sst * o->esz + o->esz;
        *dst = ((size_t)nc * o->nel - 1) * (size_t)o->dst * o->esz + o->esz;
        break;
    case C_REDUCE:
    case C_SCAN:
        *src = *dst = o->len * tsz;
        break;
    case C_REDUCE_IN:
        *src = 0, *dst = o->len * tsz;
        break;
    default:
        *src = *dst = 0;
    }
}

static int ok_coll_region(int r) {
    return regs[r].live && regs[r].coll;
}

static void gen_coll(void) {
    op_t *o = new_op(K_COLL, -1);
    if (!o) return;
    int r = random_live(ok_coll_region, MAXR);
    o->sub = (uint8_t)below(C_COUNT);
    if (r < 0) o->sub = C_BARRIER;
    if (o->sub == C_BARRIER) {
        o->team = (int16_t)random_live(ok_team, MAXT);
        return;
    }
    /* a live team whose units all belong to the allocation's team */
    int cand[MAXT], n = 0;
    for (int t = 0; t < MAXT; t++) {
        if (!teams[t].live) continue;
        int sub = 1;
        for (int u = 0; u < np; u++) sub &= !teams[t].mem[u] || member(r, u);
        if (sub) cand[n++] = t;
    }
    o->team = (int16_t)cand[below((uint64_t)n)];
    int nc = teams[o->team].n;
    o->r = (int16_t)r;
    o->root = (int)below((uint64_t)nc);
    int big = chance(15);
    switch (o->sub) {
    case C_BCAST:
    case C_BCAST_IN:
        o->len = below(big ? 20000 : 300);
        break;
    case C_COLLECT:
    case C_FCOLLECT:
    case C_ALLTOALL:
        o->len = below(big ? 5000 : 100);
        break;
    case C_ALLTOALLS:
        o->esz = chance(50) ? 4 : 8;
        o->nel = 1 + below(big ? 200 : 8);
        o->dst = 1 + (ptrdiff_t)below(3);
        o->sst = 1 + (ptrdiff_t)below(3);
        break;
    default: {
        o->type = (uint8_t)below(NTYPES);
        int fl = tkind(o->type) == 'f';
        o->aop = (uint8_t)below(fl ? 4 : 7);
        if (o->sub == C_SCAN) o->aop = SHOAL_RED_SUM, o->val = below(2); /* val: inclusive */
        o->len = below(big ? 1500 : 40);
    }
    }
    size_t srcb, dstb;
    coll_sizes(o, nc, &srcb, &dstb);
    region_t *R = &regs[r];
    size_t S = R->size[teams[R->team].abs[0]];
    size_t at = (R->ccur + 15) & ~(size_t)15;
    if (at + srcb + dstb + 32 > S) { /* no room left this epoch: a team barrier instead */
        o->sub = C_BARRIER;
        o->r = -1;
        return;
    }
    o->off2 = at + (o->sub >= C_REDUCE ? 0 : below(8)); /* typed sources stay aligned */
    o->off = (o->off2 + srcb + 15) & ~(size_t)15;
    if (o->sub == C_BCAST_IN || o->sub == C_REDUCE_IN) o->off2 = o->off;
    R->ccur = o->off + dstb;
}

static void wait_op(int t, int si) {
    op_t *o = new_op(K_WAITSIG, t);
    if (!o) return;
    sigword_t *w = &sigs[si];
    o->sig = (int16_t)si;
    o->r = (int16_t)w->r, o->t = (int16_t)t, o->off = w->off, o->len = 8;
    uint64_t i = w->initial, f = w->final;
    /* a comparison that holds exactly when every contribution has arrived */
    int c = (int)below(4);
    if (w->set && w->n) {
        static const int inc[] = {SHOAL_CMP_EQ, SHOAL_CMP_NE, SHOAL_CMP_GT, SHOAL_CMP_GE};
        static const int dec[] = {SHOAL_CMP_EQ, SHOAL_CMP_NE, SHOAL_CMP_LT, SHOAL_CMP_LE};
        o->aop = (uint8_t)(f > i ? inc[c] : dec[c]);
        o->val =
            (o->aop == SHOAL_CMP_EQ || o->aop == SHOAL_CMP_GE || o->aop == SHOAL_CMP_LE) ? f : i;
    } else if (w->n && f > i && c >= 2) {
        o->aop = c == 2 ? SHOAL_CMP_GE : SHOAL_CMP_GT;
        o->val = c == 2 ? f : f - 1;
    } else if (w->n == 1 && c == 1) {
        o->aop = SHOAL_CMP_NE, o->val = i;
    } else {
        o->aop = SHOAL_CMP_EQ, o->val = f;
    }
}

/* A put_signal's data can be checked when its signal is seen unless its sender writes the same
 * bytes again later in the epoch. */
static void write_range(const op_t *o, int k, int *r, int *t, size_t *off, size_t *len) {
    *r = -1;
    switch (o->kind) {
    case K_PUT:
    case K_FENCEPAIR:
    case K_PSTRIDED:
    case K_LSTORE:
    case K_AMO_OWN:
        *r = o->r, *t = o->t, *off = o->off, *len = o->len;
        break;
    case K_SIGNAL:
        if (o->sub) *r = o->r2, *t = o->t, *off = o->off2, *len = o->len2;
        break;
    case K_NBGROUP:
        if (k < o->nsub && o->nb[k].put)
            *r = o->nb[k].r, *t = o->nb[k].t, *off = o->nb[k].off, *len = o->nb[k].len;
        break;
    }
}

static void finish_generation(void) {
    for (int i = 0; i < nops; i++) {
        op_t *o = &ops[i];
        if (o->kind == K_SIGNAL && o->sub) {
            o->check = 1;
            for (int j = i + 1; j < nops && o->check; j++) {
                if (ops[j].unit != o->unit) continue;
                for (int k = 0; k < NBMAX; k++) {
                    int r, t;
                    size_t off, len;
                    write_range(&ops[j], k, &r, &t, &off, &len);
                    if (r >= 0 && overlaps(r, t, off, len, o->r2, o->t, o->off2, o->len2))
                        o->check = 0;
                    if (ops[j].kind != K_NBGROUP) break;
                }
            }
        }
        /* bounds for fetched values: what the other units add (or the or/and of everyone) */
        if (o->kind == K_AMO_SHARED || o->kind == K_DBL || o->kind == K_LOCKED) {
            uint64_t b = o->aop == SHOAL_OP_BAND ? ~0ull : 0;
            for (int j = 0; j < nops; j++) {
                const op_t *p = &ops[j];
                if (p->kind != o->kind || p->r != o->r || p->t != o->t || p->off != o->off)
                    continue;
                if (o->kind == K_AMO_SHARED && o->aop == SHOAL_OP_BOR)
                    b |= p->val;
                else if (o->kind == K_AMO_SHARED && o->aop == SHOAL_OP_BAND)
                    b &= p->val;
                else if (p->unit != o->unit && (o->kind != K_DBL || p->sub < 2 || p->sub == 5))
                    b += p->kind == K_DBL && p->sub == 2 ? 0 : p->val;
            }
            o->bound = b;
        }
    }
}

static void generate(void) {
    nops = 0;
    nsigs = 0;
    for (int r = 0; r < MAXR; r++) {
        region_t *R = &regs[r];
        if (!R->live) continue;
        R->coll = R->kind == RK_TEAM && chance(30);
        R->ccur = 0;
        for (int t = 0; t < np; t++) {
            R->nseg[t] = 0;
            if (!R->coll && R->size[t] && (R->kind == RK_POOL || member(r, t))) make_roles(r, t);
        }
    }
    int steps = np * (4 + (int)below(24));
    for (int i = 0; i < steps; i++) {
        if (chance(12))
            gen_coll();
        else
            gen_rma((int)below((uint64_t)np));
    }
    /* every unit waits for its signal words last (after every send of every unit) */
    for (int i = 0; i < nsigs; i++)
        if (sigs[i].n || chance(20)) wait_op(sigs[i].t, i);
    finish_generation();
}

/* ---- the model: applying an operation
 * ------------------------------------------------------------ */
static void strided_src(const op_t *o, uint8_t **buf, size_t *n) {
    *n = (o->nel - 1) * (size_t)o->sst + o->esz;
    *buf = xmalloc(*n);
    fill(*buf, *n, o->key);
}

static void coll_fill(const op_t *o) {
    const team_t *T = &teams[o->team];
    size_t srcb, dstb;
    coll_sizes(o, T->n, &srcb, &dstb);
    for (int i = 0; i < T->n; i++) {
        int a = T->abs[i];
        uint8_t *s = mdl(o->r, a, o->off2);
        if (o->sub == C_REDUCE || o->sub == C_REDUCE_IN || o->sub == C_SCAN)
            typed_fill(s, o->len, o->type, o->aop, member_key(o, a));
        else if (o->sub == C_COLLECT)
            fill(s, collect_n(o, a), member_key(o, a));
        else if (o->sub == C_BCAST_IN)
            fill(s, o->len, member_key(o, a));
        else
            fill(s, srcb, member_key(o, a));
    }
}

static void coll_result(const op_t *o) {
    const team_t *T = &teams[o->team];
    int nc = T->n, r = o->r;
    size_t srcb, dstb;
    coll_sizes(o, nc, &srcb, &dstb);
    uint8_t *res = xmalloc(dstb * (size_t)nc + 16), *tmp = xmalloc(dstb + 16);
    for (int j = 0; j < nc; j++) { /* dest of member j, built from the sources first */
        uint8_t *d = res + (size_t)j * dstb;
        memcpy(d, mdl(r, T->abs[j], o->off), dstb);
        switch (o->sub) {
        case C_BCAST:
        case C_BCAST_IN:
            memcpy(d, mdl(r, T->abs[o->root], o->off2), o->len);
            break;
        case C_COLLECT: {
            size_t at = 0;
            for (int i = 0; i < nc; i++) {
                size_t n = collect_n(o, T->abs[i]);
                memcpy(d + at, mdl(r, T->abs[i], o->off2), n);
                at += n;
            }
            break;
        }
        case C_FCOLLECT:
            for (int i = 0; i < nc; i++)
                memcpy(d + (size_t)i * o->len, mdl(r, T->abs[i], o->off2), o->len);
            break;
        case C_ALLTOALL:
            for (int i = 0; i < nc; i++)
                memcpy(d + (size_t)i * o->len, mdl(r, T->abs[i], o->off2 + (size_t)j * o->len),
                       o->len);
            break;
        case C_ALLTOALLS:
            for (int i = 0; i < nc; i++)
                for (size_t k = 0; k < o->nel; k++)
                    memcpy(d + ((size_t)i * o->nel + k) * (size_t)o->dst * o->esz,
                           mdl(r, T->abs[i],
                               o->off2 + ((size_t)j * o->nel + k) * (size_t)o->sst * o->esz),
                           o->esz);
            break;
        case C_REDUCE:
        case C_REDUCE_IN:
        case C_SCAN: {
            size_t sz = shoal_type_size(tinfo[o->type].t);
            int last = o->sub == C_SCAN ? (o->val ? j : j - 1) : nc - 1;
            if (last < 0) {
                memset(tmp, 0, dstb);
                for (size_t k = 0; k < o->len; k++)
                    if (tkind(o->type) == 'f') fput(tmp + k * sz, sz, 0);
            } else {
                memcpy(tmp, mdl(r, T->abs[0], o->off2), dstb);
                for (int i = 1; i <= last; i++)
                    for (size_t k = 0; k < o->len; k++)
                        red_elem(o->type, o->aop, tmp + k * sz,
                                 mdl(r, T->abs[i], o->off2 + k * sz));
            }
            memcpy(d, tmp, dstb);
            break;
        }
        }
    }
    for (int j = 0; j < nc; j++) memcpy(mdl(r, T->abs[j], o->off), res + (size_t)j * dstb, dstb);
    free(res);
    free(tmp);
}

static void apply(op_t *o) {
    if (o->done) return;
    o->done = 1;
    switch (o->kind) {
    case K_PUT:
    case K_LSTORE:
        fill(mdl(o->r, o->t, o->off), o->len, o->key);
        break;
    case K_FENCEPAIR:
        fill(mdl(o->r, o->t, o->off), o->len, o->aux);
        break;
    case K_NBGROUP:
        for (int k = 0; k < o->nsub; k++)
            if (o->nb[k].put)
                fill(mdl(o->nb[k].r, o->nb[k].t, o->nb[k].off), o->nb[k].len, o->nb[k].key);
        break;
    case K_PSTRIDED: {
        uint8_t *b;
        size_t n;
        strided_src(o, &b, &n);
        for (size_t k = 0; k < o->nel; k++)
            memcpy(mdl(o->r, o->t, o->off + k * (size_t)o->dst), b + k * (size_t)o->sst, o->esz);
        free(b);
        break;
    }
    case K_AMO_SHARED: {
        uint8_t *p = mdl(o->r, o->t, o->off);
        wr_word(p, o->len, amo_apply(o->aop, rd_word(p, o->len), o->val, o->len));
        break;
    }
    case K_AMO_OWN: {
        uint8_t *p = mdl(o->r, o->t, o->off);
        uint64_t v = rd_word(p, o->len);
        if (o->sub <= 2)
            v = o->val; /* store, swap, cas that hits */
        else if (o->sub == 4 || o->sub == 5)
            v = amo_apply(o->aop, v, o->val, o->len);
        wr_word(p, o->len, v);
        break;
    }
    case K_DBL: {
        uint8_t *p = mdl(o->r, o->t, o->off);
        if (o->sub == 0 || o->sub == 1 || o->sub == 5) wr_dbl(p, rd_dbl(p) + (double)o->val);
        if (o->sub == 3 || o->sub == 4) wr_dbl(p, (double)o->val - 500);
        break;
    }
    case K_LOCKED:
        for (size_t i = 0; i < o->len; i += 8) {
            uint8_t *p = mdl(o->r, o->t, o->off + i);
            wr_word(p, 8, rd_word(p, 8) + o->val);
        }
        break;
    case K_SIGNAL: {
        uint8_t *p = mdl(o->r, o->t, o->off);
        wr_word(p, 8, sigs[o->sig].set ? o->val : rd_word(p, 8) + o->val);
        if (o->sub) fill(mdl(o->r2, o->t, o->off2), o->len2, o->key);
        break;
    }
    case K_COLL:
        if (o->sub != C_BARRIER) {
            coll_fill(o);
            coll_result(o);
        }
        break;
    default:
        break;
    }
}

/* ---- execution ---------------------------------------------------------------------------------
 */
static void check_get(const uint8_t *buf, int r, int t, size_t off, size_t len, const char *what) {
    compare(buf, mdl(r, t, off), len, what, r, t, off);
}

static void run_nbgroup(op_t *o) {
    shoal_handle_t h[NBMAX];
    uint8_t *buf[NBMAX];
    for (int k = 0; k < o->nsub; k++) {
        nbsub_t *b = &o->nb[k];
        buf[k] = xmalloc(b->len);
        h[k] = SHOAL_HANDLE_NULL;
        if (b->put) {
            fill(buf[k], b->len, b->key);
            OK(shoal_put_nb(gpt(b->r, b->t, b->off), buf[k], b->len, &h[k]));
        } else {
            memset(buf[k], 0xA5, b->len);
            OK(shoal_get_nb(buf[k], gpt(b->r, b->t, b->off), b->len, &h[k]));
        }
    }
    if (o->sub == 0) {
        for (int k = 0; k < o->nsub; k++) {
            OK(shoal_wait(&h[k]));
            if (h[k] != SHOAL_HANDLE_NULL) fail("shoal_wait left a handle");
        }
    } else if (o->sub == 1) {
        OK(shoal_waitall(h, (size_t)o->nsub));
    } else if (o->sub == 2) {
        for (int k = 0; k < o->nsub; k++) {
            int done = 0;
            double t0 = test_now();
            while (!done && test_now() - t0 < 60) {
                OK(shoal_test(&h[k], &done));
                if (!done) test_yield();
            }
            if (!done) fail("shoal_test did not complete in 60 s");
        }
    } else {
        int done = 0;
        double t0 = test_now();
        while (!done && test_now() - t0 < 60) {
            OK(shoal_testall(h, (size_t)o->nsub, &done));
            if (!done) test_yield();
        }
        if (!done) fail("shoal_testall did not complete in 60 s");
    }
    for (int k = 0; k < o->nsub; k++)
        if (h[k] != SHOAL_HANDLE_NULL) fail("handle %d not released after completion", k);
    if (o->aux == 1) OK(shoal_flush_all());
    for (int k = 0; k < o->nsub; k++) {
        nbsub_t *b = &o->nb[k];
        if (o->aux == 2 && b->put) OK(shoal_flush(gpt(b->r, b->t, 0)));
        if (!b->put) check_get(buf[k], b->r, b->t, b->off, b->len, "get_nb");
        free(buf[k]);
    }
}

static void run_shared_amo(op_t *o) {
    shoal_gptr_t g = gpt(o->r, o->t, o->off);
    size_t w = o->len;
    uint64_t view = rd_word(mdl(o->r, o->t, o->off), w), old = 0, v = o->val;
    if (o->sub == 0) {
        OK(shoal_atomic_op(g, o->aop, o->type, &v));
        return;
    }
    if (o->sub == 1) {
        OK(shoal_atomic_fetch_op(g, o->aop, o->type, &v, &old));
    } else { /* an add made of load and compare-and-swap: commutes like fetch_add */
        uint64_t cur = 0, got = 0;
        OK(shoal_atomic_load(g, o->type, &cur));
        for (int i = 0; i < 1000000; i++) {
            uint64_t nv = (cur + v) & wmask(w);
            OK(shoal_atomic_cas(g, o->type, &cur, &nv, &got));
            if ((got & wmask(w)) == (cur & wmask(w))) break;
            cur = got;
        }
        old = cur;
    }
    old &= wmask(w);
    int ok = 1;
    if (o->aop == SHOAL_OP_SUM)
        ok = ((old - view) & wmask(w)) <= o->bound;
    else if (o->aop == SHOAL_OP_BOR)
        ok = (old & view) == view && (old & ~(view | o->bound)) == 0;
    else if (o->aop == SHOAL_OP_BAND)
        ok = (old & view) == old && (old & (view & o->bound)) == (view & o->bound);
    if (!ok)
        fail("fetched 0x%" PRIx64 " from a shared word: my view 0x%" PRIx64
             ", others' bound 0x%" PRIx64,
             old, view, o->bound);
}

static void run_own_amo(op_t *o) {
    shoal_gptr_t g = gpt(o->r, o->t, o->off);
    size_t w = o->len;
    uint64_t view = rd_word(mdl(o->r, o->t, o->off), w), old = 0xDEADBEEFDEADBEEFull & wmask(w),
             v = o->val, cmp;
    int has_old = 1;
    switch (o->sub) {
    case 0:
        OK(shoal_atomic_store(g, o->type, &v));
        has_old = 0;
        break;
    case 1:
        OK(shoal_atomic_swap(g, o->type, &v, &old));
        break;
    case 2:
        cmp = view;
        OK(shoal_atomic_cas(g, o->type, &cmp, &v, &old));
        break;
    case 3:
        cmp = view ^ 1;
        OK(shoal_atomic_cas(g, o->type, &cmp, &v, &old));
        break;
    case 4:
        OK(shoal_atomic_fetch_op(g, o->aop, o->type, &v, &old));
        break;
    case 5:
        OK(shoal_atomic_op(g, o->aop, o->type, &v));
        has_old = 0;
        break;
    default:
        OK(shoal_atomic_load(g, o->type, &old));
        break;
    }
    if (has_old && (old & wmask(w)) != view)
        fail("atomic on my own word returned 0x%" PRIx64 ", expected 0x%" PRIx64, old & wmask(w),
             view);
}

static void run_dbl(op_t *o) {
    shoal_gptr_t g = gpt(o->r, o->t, o->off);
    double view = rd_dbl(mdl(o->r, o->t, o->off)), v = (double)o->val, old = NAN;
    switch (o->sub) {
    case 0:
        OK(shoal_atomic_op(g, SHOAL_OP_SUM, SHOAL_DOUBLE, &v));
        return;
    case 1:
        OK(shoal_fetch_add_double(g, v, &old));
        break;
    case 2:
    case 6:
        OK(shoal_atomic_load(g, SHOAL_DOUBLE, &old));
        break;
    case 3:
        v -= 500;
        OK(shoal_atomic_store(g, SHOAL_DOUBLE, &v));
        return;
    case 4:
        v -= 500;
        OK(shoal_atomic_swap(g, SHOAL_DOUBLE, &v, &old));
        break;
    case 5:
        OK(shoal_fetch_add_double(g, v, &old));
        break;
    }
    int shared = o->sub <= 2;
    if (shared ? !(old - view >= 0 && old - view <= (double)o->bound && old == floor(old))
               : old != view)
        fail("double atomic returned %.17g: my view %.17g, others add up to %" PRIu64, old, view,
             shared ? o->bound : 0);
}

static void run_locked(op_t *o) {
    shoal_lock_t L = locks[o->lock].h;
    if (o->sub == 0) {
        OK(shoal_lock_acquire(L));
    } else {
        shoal_err_t e;
        double t0 = test_now();
        while ((e = shoal_lock_try_acquire(L)) == SHOAL_BUSY && test_now() - t0 < 60) test_yield();
        if (e != SHOAL_OK) {
            fail("lock_try_acquire: %s", e == SHOAL_BUSY ? "busy for 60 s" : shoal_strerror(e));
            return;
        }
    }
    size_t n = o->len;
    uint64_t rec[8], out[8];
    shoal_gptr_t g = gpt(o->r, o->t, o->off);
    shoal_handle_t h = SHOAL_HANDLE_NULL;
    if (o->aux == 0) {
        OK(shoal_get(rec, g, n));
    } else if (o->aux == 1) {
        OK(shoal_get_nb(rec, g, n, &h));
        OK(shoal_wait(&h));
    } else {
        OK(shoal_get_strided(rec, 8, g, 8, 8, n / 8));
    }
    /* every word moves by the same amount under the lock: a difference is a torn update */
    uint64_t d0 = rec[0] - rd_word(mdl(o->r, o->t, o->off), 8);
    for (size_t i = 0; i < n / 8; i++) {
        uint64_t d = rec[i] - rd_word(mdl(o->r, o->t, o->off + 8 * i), 8);
        if (d != d0 || d > o->bound) {
            fail("locked record word %zu moved by %" PRIu64 " (word 0 by %" PRIu64
                 ", others add at most %" PRIu64 ")",
                 i, d, d0, o->bound);
            break;
        }
        out[i] = rec[i] + o->val;
    }
    if (o->aux == 0) {
        OK(shoal_put(g, out, n));
    } else if (o->aux == 1) {
        OK(shoal_put_nb(g, out, n, &h));
        OK(shoal_wait(&h));
        OK(shoal_flush(g));
    } else {
        OK(shoal_put_strided(g, 8, out, 8, 8, n / 8));
    }
    OK(shoal_lock_release(L));
}

static void run_waitsig(op_t *o) {
    sigword_t *w = &sigs[o->sig];
    shoal_gptr_t g = gpt(o->r, o->t, o->off);
    uint64_t seen = 0, now = 0;
    OK(shoal_signal_wait_until(g, (shoal_cmp_t)o->aop, o->val, &seen));
    if (seen != w->final)
        fail("signal_wait_until(cmp %d, 0x%" PRIx64 ") saw 0x%" PRIx64 ", expected 0x%" PRIx64
             " (initial 0x%" PRIx64 ", %d contributions)",
             o->aop, o->val, seen, w->final, w->initial, w->n);
    OK(shoal_signal_read(g, &now));
    if (now != w->final) fail("signal_read 0x%" PRIx64 ", expected 0x%" PRIx64, now, w->final);
    /* whoever sees the signal sees the data */
    for (int i = 0; i < nops; i++) {
        const op_t *p = &ops[i];
        if (p->kind != K_SIGNAL || p->sig != o->sig || !p->sub || !p->check) continue;
        uint8_t *exp = xmalloc(p->len2);
        fill(exp, p->len2, p->key);
        g_opi = i;
        compare(local(p->r2, p->off2), exp, p->len2, "put_signal data after its signal", p->r2, me,
                p->off2);
        g_opi = (int)(o - ops);
        free(exp);
    }
}

static void run_coll(op_t *o) {
    const team_t *T = &teams[o->team];
    coll_counts[o->sub]++;
    if (o->sub == C_BARRIER) {
        OK(shoal_team_barrier(T->h));
        return;
    }
    int r = o->r;
    size_t srcb, dstb;
    coll_sizes(o, T->n, &srcb, &dstb);
    coll_fill(o);
    if (o->sub == C_BCAST_IN || o->sub == C_REDUCE_IN) srcb = dstb;
    memcpy(local(r, o->off2), mdl(r, me, o->off2), srcb);
    shoal_gptr_t d = gpt(r, me, o->off), s = gpt(r, me, o->off2);
    switch (o->sub) {
    case C_BCAST:
    case C_BCAST_IN:
        OK(shoal_broadcast(T->h, d, s, o->len, o->root));
        break;
    case C_COLLECT:
        OK(shoal_collect(T->h, d, s, collect_n(o, me)));
        break;
    case C_FCOLLECT:
        OK(shoal_fcollect(T->h, d, s, o->len));
        break;
    case C_ALLTOALL:
        OK(shoal_alltoall(T->h, d, s, o->len));
        break;
    case C_ALLTOALLS:
        OK(shoal_alltoalls(T->h, d, s, o->dst, o->sst, o->esz, o->nel));
        break;
    case C_REDUCE:
    case C_REDUCE_IN:
        OK(shoal_reduce(T->h, d, s, o->len, tinfo[o->type].t, o->aop));
        break;
    case C_SCAN:
        OK(shoal_scan(T->h, d, s, o->len, tinfo[o->type].t, (int)o->val));
        break;
    }
    coll_result(o);
    o->done = 1;
    uint8_t *mine = local(r, o->off);
    if ((o->sub == C_REDUCE || o->sub == C_REDUCE_IN || o->sub == C_SCAN) &&
        tsig(o->type) != shoal_type_size(tinfo[o->type].t)) {
        /* long double: compare the value bytes, then make the padding what the model says */
        size_t sz = shoal_type_size(tinfo[o->type].t);
        for (size_t k = 0; k < o->len; k++)
            if (!compare(mine + k * sz, mdl(r, me, o->off + k * sz), tsig(o->type),
                         "collective result (long double)", r, me, o->off + k * sz))
                break;
        memcpy(mine, mdl(r, me, o->off), dstb);
        return;
    }
    compare(mine, mdl(r, me, o->off), dstb, "collective result", r, me, o->off);
}

static void execute(op_t *o) {
    counts[o->kind]++;
    switch (o->kind) {
    case K_PUT: {
        uint8_t *b = xmalloc(o->len);
        fill(b, o->len, o->key);
        OK(shoal_put(gpt(o->r, o->t, o->off), b, o->len));
        free(b);
        break;
    }
    case K_GET: {
        uint8_t *b = xmalloc(o->len);
        memset(b, 0x5A, o->len);
        OK(shoal_get(b, gpt(o->r, o->t, o->off), o->len));
        check_get(b, o->r, o->t, o->off, o->len, "get");
        free(b);
        break;
    }
    case K_NBGROUP:
        run_nbgroup(o);
        break;
    case K_FENCEPAIR: {
        uint8_t *a = xmalloc(o->len), *b = xmalloc(o->len);
        fill(a, o->len, o->key);
        fill(b, o->len, o->aux);
        shoal_handle_t h[2] = {SHOAL_HANDLE_NULL, SHOAL_HANDLE_NULL};
        shoal_gptr_t g = gpt(o->r, o->t, o->off);
        OK(shoal_put_nb(g, a, o->len, &h[0]));
        OK(shoal_fence());
        OK(shoal_put_nb(g, b, o->len, &h[1]));
        OK(shoal_waitall(h, 2));
        OK(shoal_flush(g));
        free(a);
        free(b);
        break;
    }
    case K_PSTRIDED: {
        uint8_t *b;
        size_t n;
        strided_src(o, &b, &n);
        OK(shoal_put_strided(gpt(o->r, o->t, o->off), o->dst, b, o->sst, o->esz, o->nel));
        free(b);
        break;
    }
    case K_GSTRIDED: {
        size_t n = (o->nel - 1) * (size_t)o->sst + o->esz;
        uint8_t *b = xmalloc(n), *exp = xmalloc(n);
        memset(b, 0x3C, n);
        memset(exp, 0x3C, n);
        for (size_t k = 0; k < o->nel; k++)
            memcpy(exp + k * (size_t)o->sst, mdl(o->r, o->t, o->off + k * (size_t)o->dst), o->esz);
        OK(shoal_get_strided(b, o->sst, gpt(o->r, o->t, o->off), o->dst, o->esz, o->nel));
        if (memcmp(b, exp, n)) /* the gaps of the local buffer must stay untouched too */
            for (size_t k = 0; k < n; k++)
                if (b[k] != exp[k]) {
                    fail("get_strided: local byte %zu (element %zu) is 0x%02x, expected 0x%02x", k,
                         k / (size_t)o->sst, b[k], exp[k]);
                    break;
                }
        free(b);
        free(exp);
        break;
    }
    case K_LSTORE: {
        void *p = NULL;
        OK(shoal_gptr_getaddr(gpt(o->r, o->t, o->off), &p));
        if (o->t == me && !p) fail("getaddr of my own memory is NULL");
        if (o->t == me && p) { /* and back: the same global pointer */
            shoal_gptr_t back = SHOAL_GPTR_NULL;
            OK(shoal_gptr_from_addr(p, &back));
            if (!shoal_gptr_equal(back, gpt(o->r, me, o->off)))
                fail("gptr_from_addr(getaddr(p)) gave unit %u segment %u offset %" PRIu64,
                     back.unit, back.segid, back.offset);
        }
        uint8_t *b = xmalloc(o->len);
        fill(b, o->len, o->key);
        if (p)
            memcpy(p, b, o->len);
        else /* not mapped here (MPI path): the same bytes by put */
            OK(shoal_put(gpt(o->r, o->t, o->off), b, o->len));
        free(b);
        break;
    }
    case K_AMO_SHARED:
        run_shared_amo(o);
        break;
    case K_AMO_OWN:
        run_own_amo(o);
        break;
    case K_DBL:
        run_dbl(o);
        break;
    case K_LOCKED:
        run_locked(o);
        break;
    case K_SIGNAL: {
        shoal_gptr_t sg = gpt(o->r, o->t, o->off);
        shoal_signal_op_t sop = sigs[o->sig].set ? SHOAL_SIGNAL_SET : SHOAL_SIGNAL_ADD;
        if (o->sub) {
            uint8_t *b = xmalloc(o->len2);
            fill(b, o->len2, o->key);
            OK(shoal_put_signal(gpt(o->r2, o->t, o->off2), b, o->len2, sg, o->val, sop));
            free(b);
        } else {
            OK(shoal_signal(sg, o->val, sop));
        }
        break;
    }
    case K_FLUSH:
        if (o->sub == 0)
            OK(shoal_flush_all());
        else if (o->sub == 1)
            OK(shoal_fence());
        else {
            shoal_gptr_t g = shoal_gptr_setunit(g_ctl, o->t);
            OK(shoal_flush(g));
        }
        break;
    case K_WAITSIG:
        run_waitsig(o);
        break;
    case K_COLL:
        run_coll(o);
        break;
    }
    apply(o);
}

/* ---- the epoch end: every unit checks its parts, then all agree --------------------------------
 */
static void check_parts(void) {
    g_opi = -1;
    for (int r = 0; r < MAXR; r++) {
        region_t *R = &regs[r];
        if (!R->live || !(R->kind == RK_POOL || member(r, me))) continue;
        if (!compare(local(r, 0), R->model[me], R->size[me], "final memory", r, me, 0)) {
            /* name the operations of this epoch that wrote the first bad byte */
            const uint8_t *m = local(r, 0);
            size_t at = 0;
            while (m[at] == R->model[me][at]) at++;
            for (int i = 0; i < nops; i++)
                for (int k = 0; k < NBMAX; k++) {
                    int rr, tt;
                    size_t off, len;
                    write_range(&ops[i], k, &rr, &tt, &off, &len);
                    if (rr == r && tt == me && at >= off && at < off + len) {
                        char d[200];
                        describe_op(&ops[i], d, sizeof d);
                        fprintf(stderr, "soak:   written this epoch by op %s\n", d);
                    }
                    if (ops[i].kind != K_NBGROUP) break;
                }
            /* a stale but not yet corrupted copy is common: resynchronise to keep going */
            memcpy(R->model[me], local(r, 0), R->size[me]);
        }
    }
}

/* Sum over units of {failures, stop votes}; a reduce-to-all is also the epoch's last barrier. */
static void agree(long fails, int stop, long *all_fails, int *all_stop) {
    int64_t *c = NULL;
    OK(shoal_gptr_getaddr(g_ctl, (void **)&c));
    c[0] = fails;
    c[1] = stop;
    OK(shoal_reduce(SHOAL_TEAM_ALL, shoal_gptr_add(g_ctl, 64), g_ctl, 2, SHOAL_TYPE_INT64,
                    SHOAL_RED_SUM));
    *all_fails = (long)c[8];
    *all_stop = (int)c[9];
    if (*all_fails < fails) fail("agreement: %ld failures in all, %ld here", *all_fails, fails);
}

static char watchdog_msg[200];
static void on_alarm(int sig) {
    (void)sig;
    ssize_t r = write(2, watchdog_msg, strlen(watchdog_msg));
    (void)r;
    _exit(3);
}

int main(int argc, char **argv) {
    setenv("TEST_TIMEOUT", "0", 0); /* the soak runs its own per-epoch watchdog */
    test_begin(&argc, &argv);
    me = t_me;
    np = t_np;
    long max_epochs = -1;
    double seconds = -1, watchdog = 120;
    int seeded = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--seed") && v)
            g_seed = strtoull(v, NULL, 0), seeded = 1, i++;
        else if (!strcmp(a, "--epochs") && v)
            max_epochs = atol(v), i++;
        else if (!strcmp(a, "--seconds") && v)
            seconds = atof(v), i++;
        else if (!strcmp(a, "--watchdog") && v)
            watchdog = atof(v), i++;
        else if (!strcmp(a, "--inject") && v)
            g_inject = atol(v), i++;
        else if (!strcmp(a, "--verbose"))
            g_verbose = 1;
        else {
            if (me == 0)
                fprintf(stderr, "usage: soak [--seed S] [--epochs N] [--seconds T] "
                                "[--watchdog S] [--inject E] [--verbose]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (np > MAXU) {
        if (me == 0) fprintf(stderr, "soak: at most %d units\n", MAXU);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!seeded) { /* a fresh seed, the same on every unit */
        uint64_t s = mix64((uint64_t)time(NULL) ^ (uint64_t)getpid() << 20);
        MPI_Bcast(&s, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        g_seed = s;
    }
    if (max_epochs < 0 && seconds < 0) max_epochs = 50;
    g_rng = g_seed;
    signal(SIGALRM, on_alarm);
    if (me == 0) {
        printf("soak: seed %" PRIu64 ", %d units, direct %d, %s\n", g_seed, np, test_direct(),
               shoal_mpi_library());
        fflush(stdout);
    }
    double t0 = test_now();
    snprintf(watchdog_msg, sizeof watchdog_msg,
             "soak: unit %d: watchdog: set-up took over %.0f s (seed %" PRIu64 ")\n", me, watchdog,
             g_seed);
    alarm((unsigned)watchdog);
    setup();
    OK(shoal_barrier(SHOAL_TEAM_ALL));
    long total_fail = 0;
    for (g_epoch = 0;; g_epoch++) {
        snprintf(watchdog_msg, sizeof watchdog_msg,
                 "soak: unit %d: watchdog: epoch %d ran over %.0f s (seed %" PRIu64 "): hung?\n",
                 me, g_epoch, watchdog, g_seed);
        alarm((unsigned)watchdog);
        g_opi = -1;
        if (g_epoch > 0) {
            structure();
            OK(shoal_barrier(SHOAL_TEAM_ALL));
        }
        generate();
        /* behind the model's back: gets and the final check must see it */
        if (g_epoch == g_inject && me == g_epoch % np)
            for (int r = 0, k = g_epoch; r < MAXR; r++)
                if (regs[r].live && member(r, me) && !k--) {
                    local(r, 0)[regs[r].size[me] / 2] ^= 0x10;
                    break;
                }
        for (int i = 0; i < nops; i++) {
            op_t *o = &ops[i];
            int mine = o->kind == K_COLL ? teams[o->team].mem[me] : o->unit == me;
            if (!mine) continue;
            g_opi = i;
            execute(o);
        }
        g_opi = -1;
        OK(shoal_barrier(SHOAL_TEAM_ALL));
        for (int i = 0; i < nops; i++) apply(&ops[i]);
        check_parts();
        g_epochs_done++;
        int stop = 0;
        if (me == 0)
            stop = (max_epochs >= 0 && g_epoch + 1 >= max_epochs) ||
                   (seconds >= 0 && test_now() - t0 >= seconds);
        int all_stop = 0;
        agree(g_fail, stop, &total_fail, &all_stop);
        if (g_verbose && me == 0) {
            printf("soak: epoch %d: %d operations, %.2f s\n", g_epoch, nops, test_now() - t0);
            fflush(stdout);
        }
        if (total_fail || all_stop) break;
    }
    alarm(0);
    /* totals over all units */
    long all_counts[K_COUNT], all_coll[C_COUNT];
    MPI_Reduce(counts, all_counts, K_COUNT, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(coll_counts, all_coll, C_COUNT, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) {
        long total = 0;
        for (int k = 0; k < K_COUNT; k++) total += all_counts[k];
        printf("soak: seed %" PRIu64 ": %ld epochs in %.1f s, %ld operations:", g_seed,
               g_epochs_done, test_now() - t0, total);
        for (int k = 0; k < K_COUNT; k++)
            if (k != K_COLL) printf(" %s %ld,", op_name[k], all_counts[k]);
        printf(" collectives (per unit)");
        for (int k = 0; k < C_COUNT; k++) printf(" %s %ld", coll_name[k], all_coll[k]);
        printf("\n");
        if (total_fail)
            printf("soak: FAILED at epoch %d: %ld failures (seed %" PRIu64
                   "; repeat with --seed %" PRIu64 " --epochs %d)\n",
                   g_epoch, total_fail, g_seed, g_seed, g_epoch + 1);
        fflush(stdout);
    }
    t_failures = g_fail;
    return test_end("soak");
}
