// np: 1 2 3 4 8
/* Active-target epochs (issue 8): shoal_epoch_fence under every design, on teams of every size.
 *
 * Model epochs. Teams: for s = np/2 .. 1 a team of s units and one of np - s, side by side (two
 * shoal_team_create calls from groups of scattered units), then a created team of all units;
 * every size 1..np. On the team of all units each design (deferred, imm_naive, imm_barrier,
 * imm_notify, auto) is set with shoal_epoch_set_design on an allocation of its own, which after
 * its epochs switches to the next design (where fences are cheap); each other team has one
 * allocation that goes through all five. A switch: a fence with NOSUCCEED, every other time a fence
 * with NOPRECEDE|NOSUCCEED (which does nothing), set_design, a NOPRECEDE fence to reopen. Epochs
 * run back to back in five kinds in turn: none, one operation (one member), many puts and gets
 * mixed (every member, random targets), a halo (puts to and gets from the 8 neighbours r +- 1..4
 * mod the team size) and many puts; in each a random member is late to its fence. Every member
 * plans every member's operations from a shared seed, so each knows what every part must hold after
 * each fence (a sequential model) and checks its own part and every get it issued. Puts write one
 * half of each part, in a slot per (origin, operation); gets read the other half, written in
 * earlier epochs (accesses that conflict inside one epoch are erroneous, as in MPI). After fence k
 * a member checks the half epoch k wrote (epoch k + 1's puts may be landing in the other), and all
 * of its part at the end. Empty epochs are closed with NOPRECEDE every other time, others with
 * NOSTORE every other time (no local stores follow the first fence). Runs end with NOSUCCEED, with
 * NOPRECEDE|NOSUCCEED on an empty epoch, or with the allocation freed in an open epoch.
 * get_design reports the design set (auto: one of the four, the same on every member).
 *
 * Sizes: on the team of all units each allocation also carries two sets of puts of 1 B .. 1 MiB
 * (unaligned, with guards): epoch A to the right neighbour, epoch B to the left one while getting
 * A's data back from the right one.
 *
 * Bad input: out-of-range designs and assertion bits (SHOAL_ERR_INVAL, nothing changes),
 * set_design in an open epoch (SHOAL_ERR_STATE, design unchanged), put_nb/get_nb after a
 * NOSUCCEED fence (SHOAL_ERR_STATE, nothing written, handle untouched), a NOPRECEDE fence on a
 * unit that did issue an operation (SHOAL_ERR_STATE there, the data still arrives by the next
 * fence, nobody hangs) under every design, a fence on a freed allocation (SHOAL_ERR_GPTR), on a
 * pool block, on the NULL pointer, and by a non-member (the unit of the team of 1, with a pointer
 * into the other team's allocation). The library prints one line per failing call on stderr:
 * that is expected.
 *
 * Runs at 1-4 units and at 8, where the side-by-side teams give every team size 1..8
 * (test_fence_wide adds 9). Epoch counts follow the run's pace (a few barriers timed at the start):
 * the MPI path from 3 units oversubscribes the cores and a fence takes tens of milliseconds there.
 * test_fence_wide.c includes this file with FENCE_WIDE set (9 units; see model_phase there).
 * TEST_FENCE_EPOCHS=N sets the epochs per design; TEST_VERBOSE=1 prints the phases' times, 2 each
 * allocation's. */
#include "testlib.h"

#ifndef FENCE_WIDE
#define FENCE_WIDE 0
#endif
#if FENCE_WIDE
#define TEST_NAME "test_fence_wide"
#else
#define TEST_NAME "test_fence"
#endif

#define MAXN   16  /* largest team size handled */
#define M      16  /* operation slots per origin and epoch */
#define SLOT   256 /* bytes per slot (a put's largest size) */
#define GMAX   512 /* a get's largest size in the model epochs */
#define GGUARD 8   /* guard bytes after each get's data */

#define NOSTORE   SHOAL_EPOCH_NOSTORE
#define NOPRECEDE SHOAL_EPOCH_NOPRECEDE
#define NOSUCCEED SHOAL_EPOCH_NOSUCCEED

/* The call must return exactly code. */
#define EXPECT(code, call)                                                                         \
    do {                                                                                           \
        shoal_err_t e_ = (call);                                                                   \
        CHECK(e_ == (code), "%s returned %s, expected %s", #call, shoal_strerror(e_),              \
              shoal_strerror(code));                                                               \
    } while (0)
/* The call must fail (any code). */
#define EXPECT_FAIL(call)                                                                          \
    do {                                                                                           \
        shoal_err_t e_ = (call);                                                                   \
        CHECK(e_ != SHOAL_OK, "%s returned SHOAL_OK, expected an error", #call);                   \
    } while (0)

#define NDESIGNS 5
static const shoal_epoch_design_t designs[NDESIGNS] = {SHOAL_EPOCH_DEFERRED, SHOAL_EPOCH_IMM_NAIVE,
                                                       SHOAL_EPOCH_IMM_BARRIER,
                                                       SHOAL_EPOCH_IMM_NOTIFY, SHOAL_EPOCH_AUTO};

static int verbose;
static double t_start;
static void phase(const char *what) {
    if (t_me == 0 && verbose) printf("  %.3f s: %s\n", test_now() - t_start, what);
}
/* After this many failures on a unit its data checks stop (the fences go on, so nothing hangs):
 * one broken mechanism would otherwise print thousands of lines. */
static int checking(void) {
    return t_failures < 40;
}

/* ---- Deterministic randomness shared by the members ------------------------------------------ */
typedef struct {
    uint64_t s;
} rng_t;
static uint32_t rnd(rng_t *r, uint32_t n) {
    uint64_t x = (r->s += 0x9E3779B97F4A7C15ull);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    return n ? (uint32_t)(x % n) : 0;
}

/* ---- Teams ----------------------------------------------------------------------------------- */
typedef struct {
    shoal_team_t team;
    int32_t n;              /* members */
    int32_t me;             /* my relative id */
    shoal_unit_t abs[MAXN]; /* absolute id of each member */
    char name[48];          /* for messages */
    int side;               /* 1: the team of `round` units; 0: the other */
} tctx_t;

/* Model runs: the unit (>= 0) that the next allocation's first member sends a pointer to. */
static shoal_unit_t nonmember_to = -1;

/* Fills tc from its team (team and side set). */
static void fill_team(tctx_t *tc, const char *what) {
    REQUIRE_OK(shoal_team_size(tc->team, &tc->n));
    REQUIRE_OK(shoal_team_myid(tc->team, &tc->me));
    REQUIRE(tc->n >= 1 && tc->n <= MAXN, "team of %d units", (int)tc->n);
    for (int32_t r = 0; r < tc->n; r++) REQUIRE_OK(shoal_team_unit_l2g(tc->team, r, &tc->abs[r]));
    snprintf(tc->name, sizeof tc->name, "%s of %d", what, (int)tc->n);
}

#if !FENCE_WIDE
static int gcd(int a, int b) {
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Round s (1 <= s <= np/2) splits the units into a team of s and one of np - s, members picked
 * through a permutation (u * step + s) mod np so that teams are not runs of consecutive units;
 * round 0 makes one team of every unit. Both teams are created (shoal_team_create, collective over
 * all units); I get the one I am in. Returns the lowest unit of the other team (-1: none). */
static shoal_unit_t make_team(int round, tctx_t *tc) {
    int step = 1;
    for (int k = 2; k < t_np; k++)
        if (gcd(k, t_np) == 1) {
            step = k;
            break;
        }
    int in_a[MAXN] = {0};
    for (shoal_unit_t u = 0; u < t_np; u++)
        in_a[u] = round == 0 || (int)(((int64_t)u * step + round) % t_np) < round;
    memset(tc, 0, sizeof *tc);
    tc->team = SHOAL_TEAM_NULL;
    tc->side = in_a[t_me];
    shoal_unit_t other_first = -1;
    for (shoal_unit_t u = t_np - 1; u >= 0; u--)
        if (in_a[u] != tc->side) other_first = u;
    for (int side = 1; side >= 0; side--) {
        if (round == 0 && side == 0) break;
        shoal_group_t g = NULL;
        REQUIRE_OK(shoal_group_create(&g));
        for (shoal_unit_t u = 0; u < t_np; u++)
            if (in_a[u] == side) REQUIRE_OK(shoal_group_add_member(g, u));
        shoal_team_t t = SHOAL_TEAM_NULL;
        REQUIRE_OK(shoal_team_create(SHOAL_TEAM_ALL, g, &t));
        CHECK_OK(shoal_group_destroy(&g));
        if (in_a[t_me] == side) {
            REQUIRE(t != SHOAL_TEAM_NULL, "round %d: a member got SHOAL_TEAM_NULL", round);
            tc->team = t;
        } else {
            CHECK(t == SHOAL_TEAM_NULL, "round %d: a non-member got team %d", round, (int)t);
        }
    }
    fill_team(tc, "team");
    snprintf(tc->name, sizeof tc->name, "team of %d (round %d)", (int)tc->n, round);
    return other_first;
}

#endif

/* ---- Model epochs ---------------------------------------------------------------------------- */
enum { K_EMPTY, K_ONE, K_MANY, K_HALO, K_PUTS, NKINDS };
static const char *kind_name[NKINDS] = {"empty", "one operation", "many puts and gets",
                                        "8-neighbour halo", "many puts"};

typedef struct {
    uint8_t is_put;
    uint8_t k;      /* slot: unique among the origin's operations of the epoch */
    int32_t target; /* relative id */
    uint32_t off;   /* put: inside the slot; get: inside the read half */
    uint32_t len;
} op_t;

typedef struct {
    const tctx_t *tc;
    shoal_gptr_t gp;   /* my part */
    uint8_t *mine;     /* its address */
    size_t half, part; /* half = n * M * SLOT; part = 2 * half */
    uint8_t *model;    /* n parts: what each must hold */
    uint8_t *prev;     /* my part in the model before the last epoch */
    uint8_t *src;      /* M * SLOT: my puts' sources */
    uint8_t *gets;     /* M * (GMAX + GGUARD): my gets' destinations */
    uint64_t seed;     /* of the run */
    long epochs;       /* epochs closed with operations planned: picks the halves */
    shoal_epoch_design_t design;
    op_t plan[MAXN][M]; /* every member's operations of this epoch */
    int nplan[MAXN];
} run_t;

static size_t slot_pos(int32_t origin, int k) {
    return ((size_t)origin * M + (size_t)k) * SLOT;
}
static uint64_t epoch_seed(const run_t *r) {
    return r->seed * 100003u + (uint64_t)r->epochs;
}
static size_t write_half(const run_t *r) {
    return (size_t)(r->epochs % 2) * r->half;
}
static size_t read_half(const run_t *r) {
    return (size_t)((r->epochs + 1) % 2) * r->half;
}

static void make_op(run_t *r, rng_t *g, int32_t origin, int is_put, int k, int32_t target) {
    op_t *op = &r->plan[origin][r->nplan[origin]++];
    op->is_put = (uint8_t)is_put;
    op->k = (uint8_t)k;
    op->target = target;
    if (is_put) {
        op->len = rnd(g, 4) == 0 ? SLOT : 1 + rnd(g, SLOT);
        op->off = rnd(g, SLOT - op->len + 1);
    } else {
        op->len = 1 + rnd(g, GMAX);
        op->off = rnd(g, (uint32_t)(r->half - op->len + 1));
    }
}

static void plan_epoch(run_t *r, int kind, rng_t *g) {
    const int32_t n = r->tc->n;
    memset(r->nplan, 0, sizeof r->nplan);
    switch (kind) {
    case K_EMPTY:
        break;
    case K_ONE: {
        int32_t o = (int32_t)rnd(g, (uint32_t)n), t = (int32_t)rnd(g, (uint32_t)n);
        make_op(r, g, o, rnd(g, 3) != 0, (int)rnd(g, M), t);
        break;
    }
    case K_MANY:
        for (int32_t o = 0; o < n; o++) {
            int cnt = (int)rnd(g, M + 1);
            for (int k = 0; k < cnt; k++)
                make_op(r, g, o, (int)rnd(g, 2), k, (int32_t)rnd(g, (uint32_t)n));
        }
        break;
    case K_HALO:
        for (int32_t o = 0; o < n; o++)
            for (int d = 0; d < 8; d++) {
                int dist = d / 2 + 1;
                int32_t t = (int32_t)((d % 2 ? o - dist % n + n : o + dist) % n);
                make_op(r, g, o, 1, d, t);
                make_op(r, g, o, 0, 8 + d, t);
            }
        break;
    case K_PUTS:
        for (int32_t o = 0; o < n; o++)
            for (int k = 0; k < M; k++) make_op(r, g, o, 1, k, (int32_t)rnd(g, (uint32_t)n));
        break;
    }
}

static void issue_epoch(run_t *r, const char *where) {
    const tctx_t *tc = r->tc;
    const uint64_t es = epoch_seed(r);
    for (int i = 0; i < r->nplan[tc->me]; i++) {
        const op_t *op = &r->plan[tc->me][i];
        shoal_gptr_t tg = shoal_gptr_setunit(r->gp, tc->abs[op->target]);
        shoal_handle_t h = (shoal_handle_t)(uintptr_t)0x5A5A0; /* must become NULL */
        if (op->is_put) {
            uint8_t *s = r->src + (size_t)op->k * SLOT + op->off;
            fill_pattern(s, op->len, es, (uint64_t)tc->me, (uint64_t)op->k * SLOT + op->off);
            size_t pos = write_half(r) + slot_pos(tc->me, op->k) + op->off;
            CHECK_OK(shoal_put_nb(shoal_gptr_add(tg, (int64_t)pos), s, op->len, &h));
        } else {
            uint8_t *d = r->gets + (size_t)op->k * (GMAX + GGUARD);
            memset(d, 0xEE, GMAX + GGUARD);
            size_t pos = read_half(r) + op->off;
            CHECK_OK(shoal_get_nb(d, shoal_gptr_add(tg, (int64_t)pos), op->len, &h));
        }
        CHECK(h == SHOAL_HANDLE_NULL, "%s: %s in an epoch gave a handle", where,
              op->is_put ? "put_nb" : "get_nb");
    }
}

/* My part against the model, bytes [from, from + n): one report with the first wrong byte,
 * decoded, and how many wrong bytes still hold what the model held before this epoch (stale). */
static void check_part(const run_t *r, size_t from, size_t n, const char *where) {
    const uint8_t *want = r->model + (size_t)r->tc->me * r->part;
    if (memcmp(r->mine + from, want + from, n) == 0) return;
    size_t first = 0, bad = 0, stale = 0;
    for (size_t i = from; i < from + n; i++)
        if (r->mine[i] != want[i]) {
            if (!bad) first = i;
            bad++;
            stale += r->mine[i] == r->prev[i];
        }
    size_t in = first % r->half, slot = in / SLOT;
    test_report_(__FILE__, __LINE__,
                 "%s: my part: %zu of %zu bytes wrong (%zu stale); first at byte %zu (half %zu, "
                 "slot of origin %zu op %zu, byte %zu): 0x%02x, expected 0x%02x",
                 where, bad, n, stale, first, first / r->half, slot / M, slot % M, in % SLOT,
                 r->mine[first], want[first]);
}

static void apply_and_check(run_t *r, const char *where) {
    const tctx_t *tc = r->tc;
    const uint64_t es = epoch_seed(r);
    memcpy(r->prev, r->model + (size_t)tc->me * r->part, r->part);
    for (int32_t o = 0; o < tc->n; o++)
        for (int i = 0; i < r->nplan[o]; i++) {
            const op_t *op = &r->plan[o][i];
            if (!op->is_put) continue;
            uint8_t *d = r->model + (size_t)op->target * r->part + write_half(r) +
                         slot_pos(o, op->k) + op->off;
            fill_pattern(d, op->len, es, (uint64_t)o, (uint64_t)op->k * SLOT + op->off);
        }
    if (!checking()) return;
    /* Only the half this epoch wrote: the next epoch's puts may be landing in the other. */
    check_part(r, write_half(r), r->half, where);
    for (int i = 0; i < r->nplan[tc->me]; i++) {
        const op_t *op = &r->plan[tc->me][i];
        if (op->is_put) continue;
        const uint8_t *d = r->gets + (size_t)op->k * (GMAX + GGUARD);
        const uint8_t *want = r->model + (size_t)op->target * r->part + read_half(r) + op->off;
        if (memcmp(d, want, op->len) != 0) {
            size_t j = 0;
            while (d[j] == want[j]) j++;
            test_report_(__FILE__, __LINE__,
                         "%s: get %d of %u bytes from member %d (offset %u of the read half): "
                         "byte %zu is 0x%02x, expected 0x%02x",
                         where, (int)op->k, op->len, (int)op->target, op->off, j, d[j], want[j]);
        }
        for (int j = 0; j < GGUARD; j++)
            if (d[op->len + (size_t)j] != 0xEE) {
                test_report_(__FILE__, __LINE__, "%s: get %d wrote past its end", where,
                             (int)op->k);
                break;
            }
    }
}

/* ---- Sizes 1 B .. 1 MiB: the big area after the model region of the round-0 allocations ---- */
static const size_t big_sizes[] = {1, 2, 7, 64, 1000, 4097, 65536 + 3, 1u << 20};
#define NBIG    (sizeof big_sizes / sizeof big_sizes[0])
#define BIG_GAP 64
#define SEED_A  501
#define SEED_B  502
static size_t big_pos[NBIG], big_set; /* start of each size in a set; a set's bytes */
/* The area is two sets. init: what I store in mine before the first fence; want_a / want_b: what
 * it holds after epoch A (the first set from my left neighbour) and B (the second set from my
 * right neighbour); src_a / src_b: my puts' data (as a whole set, used at big_pos[i]); got: my
 * gets of epoch B (my epoch A data back from my right neighbour). The same every allocation: the
 * init store overwrites whatever a previous allocation left. */
static uint8_t *big_init, *big_want_a, *big_want_b, *big_src_a, *big_src_b, *big_got;

static void big_prepare(shoal_unit_t left, shoal_unit_t right) {
    if (big_init) return;
    for (size_t i = 0; i < NBIG; i++) {
        big_pos[i] = big_set + 5; /* unaligned starts */
        big_set += big_sizes[i] + BIG_GAP;
    }
    big_init = malloc(2 * big_set);
    big_want_a = malloc(2 * big_set);
    big_want_b = malloc(2 * big_set);
    big_src_a = malloc(big_set);
    big_src_b = malloc(big_set);
    big_got = malloc(big_set);
    REQUIRE(big_init && big_want_a && big_want_b && big_src_a && big_src_b && big_got,
            "out of memory");
    fill_pattern(big_init, 2 * big_set, 77, (uint64_t)t_me, 0);
    fill_pattern(big_src_a, big_set, SEED_A, (uint64_t)t_me, 0);
    fill_pattern(big_src_b, big_set, SEED_B, (uint64_t)t_me, 0);
    memcpy(big_want_a, big_init, 2 * big_set);
    fill_pattern(big_got, big_set, SEED_A, (uint64_t)left, 0); /* scratch */
    for (size_t i = 0; i < NBIG; i++)
        memcpy(big_want_a + big_pos[i], big_got + big_pos[i], big_sizes[i]);
    memcpy(big_want_b, big_want_a, 2 * big_set);
    fill_pattern(big_got, big_set, SEED_B, (uint64_t)right, 0);
    for (size_t i = 0; i < NBIG; i++)
        memcpy(big_want_b + big_set + big_pos[i], big_got + big_pos[i], big_sizes[i]);
}

/* Reports the first byte where got differs from want, and how many do. */
static void report_diff(const uint8_t *got, const uint8_t *want, size_t n, const char *where,
                        const char *what) {
    if (memcmp(got, want, n) == 0) return;
    size_t first = 0, bad = 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            if (!bad) first = i;
            bad++;
        }
    size_t which = 0;
    while (which + 1 < NBIG && big_pos[which + 1] <= first % big_set) which++;
    test_report_(__FILE__, __LINE__,
                 "%s, %s: %zu of %zu bytes wrong; first at byte %zu (set %zu, near the put of "
                 "%zu bytes): 0x%02x, expected 0x%02x",
                 where, what, bad, n, first, first / big_set, big_sizes[which], got[first],
                 want[first]);
}

/* Two epochs in the big area (starting at byte base of each part) of an allocation whose epoch
 * is open and empty: A puts every size to my right neighbour's first set; B puts every size to my
 * left neighbour's second set and gets my A data back from my right neighbour's first set. */
static void big_epochs(shoal_gptr_t gp, uint8_t *mine, size_t base, shoal_unit_t left,
                       shoal_unit_t right, const char *where) {
    shoal_handle_t h;
    for (size_t i = 0; i < NBIG; i++) {
        h = (shoal_handle_t)(uintptr_t)0x5A5A0;
        CHECK_OK(shoal_put_nb(
            shoal_gptr_add(shoal_gptr_setunit(gp, right), (int64_t)(base + big_pos[i])),
            big_src_a + big_pos[i], big_sizes[i], &h));
        CHECK(h == SHOAL_HANDLE_NULL, "%s: put_nb in an epoch gave a handle", where);
    }
    CHECK_OK(shoal_epoch_fence(gp, NOSTORE));
    /* The first set only: my right neighbour's epoch B puts may be landing in the second. */
    if (checking()) report_diff(mine + base, big_want_a, big_set, where, "after epoch A");
    memset(big_got, 0xEE, big_set);
    for (size_t i = 0; i < NBIG; i++) {
        CHECK_OK(shoal_put_nb(
            shoal_gptr_add(shoal_gptr_setunit(gp, left), (int64_t)(base + big_set + big_pos[i])),
            big_src_b + big_pos[i], big_sizes[i], &h));
        CHECK_OK(shoal_get_nb(
            big_got + big_pos[i],
            shoal_gptr_add(shoal_gptr_setunit(gp, right), (int64_t)(base + big_pos[i])),
            big_sizes[i], &h));
    }
    CHECK_OK(shoal_epoch_fence(gp, NOSTORE));
    /* Blocking gets at once, of what I put to my left neighbour in epoch B: the fence must have
     * completed it there, however far the neighbour is into its copying (through MPI the
     * fence's last round may still be on its way: mem/resolve.h, shoal__settle). */
    uint8_t *back = malloc(big_set);
    CHECK(back != NULL, "out of memory");
    for (size_t i = 0; back && i < NBIG; i++)
        CHECK_OK(shoal_get(
            back + big_pos[i],
            shoal_gptr_add(shoal_gptr_setunit(gp, left), (int64_t)(base + big_set + big_pos[i])),
            big_sizes[i]));
    for (size_t i = 0; back && checking() && i < NBIG; i++)
        if (memcmp(back + big_pos[i], big_src_b + big_pos[i], big_sizes[i]) != 0) {
            char what[320];
            snprintf(what, sizeof what, "%s: blocking get of %zu bytes after epoch B", where,
                     big_sizes[i]);
            CHECK_PATTERN(back + big_pos[i], big_sizes[i], SEED_B, t_me, big_pos[i], what);
        }
    free(back);
    if (!checking()) return;
    report_diff(mine + base, big_want_b, 2 * big_set, where, "after epoch B");
    for (size_t i = 0; i < NBIG; i++) {
        const uint8_t *g = big_got + big_pos[i];
        if (memcmp(g, big_src_a + big_pos[i], big_sizes[i]) != 0) {
            char what[320];
            snprintf(what, sizeof what, "%s: epoch B: get of %zu bytes", where, big_sizes[i]);
            CHECK_PATTERN(g, big_sizes[i], SEED_A, t_me, big_pos[i], what);
        }
        CHECK(g[-1] == 0xEE && g[big_sizes[i]] == 0xEE && g[big_sizes[i] + BIG_GAP - 6] == 0xEE,
              "%s: the get of %zu bytes wrote outside its range", where, big_sizes[i]);
    }
}

/* ---- One allocation's life ------------------------------------------------------------------- */
/* get_design must report `set` (or, for auto, one of the four designs); returns what it gave. */
static int check_design(const run_t *r, shoal_epoch_design_t set, int fenced, const char *where) {
    shoal_epoch_design_t d = (shoal_epoch_design_t)-7;
    if (!CHECK_OK(shoal_epoch_get_design(r->gp, &d))) return -1;
    if (set != SHOAL_EPOCH_AUTO)
        CHECK(d == set, "%s: get_design gave %d (%s), expected %d (%s)", where, (int)d,
              shoal_epoch_design_name(d), (int)set, shoal_epoch_design_name(set));
    else if (fenced)
        CHECK(d >= SHOAL_EPOCH_DEFERRED && d <= SHOAL_EPOCH_IMM_NOTIFY,
              "%s: auto resolved to %d after a fence", where, (int)d);
    else
        CHECK(d >= SHOAL_EPOCH_AUTO && d <= SHOAL_EPOCH_IMM_NOTIFY,
              "%s: get_design gave %d before the first fence", where, (int)d);
    return (int)d;
}

/* A run: one allocation on tc's team, nseg designs in turn (designs[dis[i]]), eps epochs under
 * each. The first is set before the first fence; each later one after a NOSUCCEED fence (every
 * other time after a further fence with NOPRECEDE|NOSUCCEED, which does nothing), then a NOPRECEDE
 * fence opens its epochs. with_big: the size sweep after the first fence. ending: 0 the last fence
 * has NOSUCCEED; 1 a NOPRECEDE|NOSUCCEED fence closes the empty epoch the last one opened; 2 the
 * allocation is freed in that open epoch. resolved[i]: what get_design gave for segment i. */
static void model_run(const tctx_t *tc, const int *dis, int nseg, int eps, uint64_t seed,
                      int with_big, int ending, int *resolved) {
    run_t *r = calloc(1, sizeof *r);
    REQUIRE(r != NULL, "out of memory");
    r->tc = tc;
    r->seed = seed;
    r->half = (size_t)tc->n * M * SLOT;
    r->part = 2 * r->half;
    const shoal_unit_t left = tc->abs[(tc->me + tc->n - 1) % tc->n];
    const shoal_unit_t right = tc->abs[(tc->me + 1) % tc->n];
    if (with_big) big_prepare(left, right);
    const size_t bytes = r->part + (with_big ? 2 * big_set : 0);
    char where[200];
    snprintf(where, sizeof where, "%s, %s", tc->name, shoal_epoch_design_name(designs[dis[0]]));
    double tm[6] = {0};
    tm[0] = test_now();
    REQUIRE_OK(shoal_team_memalloc(tc->team, bytes, &r->gp));
    tm[1] = test_now();
    if (nonmember_to >= 0 && tc->me == 0) { /* see model_phase */
        MPI_Send(&r->gp, (int)sizeof r->gp, MPI_BYTE, nonmember_to, 8, MPI_COMM_WORLD);
        nonmember_to = -1;
    }
    void *a = NULL;
    CHECK_OK(shoal_gptr_getaddr(r->gp, &a));
    REQUIRE(a != NULL, "%s: no address for my part", where);
    r->mine = a;
    r->model = malloc((size_t)tc->n * r->part);
    r->prev = malloc(r->part);
    r->src = malloc((size_t)M * SLOT);
    r->gets = malloc((size_t)M * (GMAX + GGUARD));
    REQUIRE(r->model && r->prev && r->src && r->gets, "out of memory");

    /* Nothing set yet: auto before the first fence. */
    shoal_epoch_design_t d0 = (shoal_epoch_design_t)-7;
    CHECK_OK(shoal_epoch_get_design(r->gp, &d0));
    CHECK(d0 == SHOAL_EPOCH_AUTO, "%s: get_design before anything was set gave %d", where, (int)d0);
    /* Every part starts with its own pattern, stored locally before the first fence. */
    for (int32_t m = 0; m < tc->n; m++)
        fill_pattern(r->model + (size_t)m * r->part, r->part, seed, 1000u + (uint64_t)m, 0);
    memcpy(r->mine, r->model + (size_t)tc->me * r->part, r->part);
    if (with_big) memcpy(r->mine + r->part, big_init, 2 * big_set);

    rng_t g = {seed * 7919u + 17};
    /* Epochs so far: their kinds rotate over the run, from a different kind in each run. */
    long count = (long)(seed % NKINDS);
    for (int seg = 0; seg < nseg; seg++) {
        const shoal_epoch_design_t design = designs[dis[seg]];
        if (seg == 0) {
            snprintf(where, sizeof where, "%s, %s", tc->name, shoal_epoch_design_name(design));
        } else {
            snprintf(where, sizeof where, "%s, %s after %s", tc->name,
                     shoal_epoch_design_name(design), shoal_epoch_design_name(designs[dis[0]]));
            if (seg % 2) CHECK_OK(shoal_epoch_fence(r->gp, NOPRECEDE | NOSUCCEED));
        }
        CHECK_OK(shoal_epoch_set_design(r->gp, design));
        check_design(r, design, 0, where);
        CHECK_OK(shoal_epoch_fence(r->gp, seg == 0 ? NOPRECEDE : NOPRECEDE | NOSTORE));
        resolved[seg] = check_design(r, design, 1, where);
        if (seg == 0) tm[2] = test_now();
        if (seg == 0 && with_big) big_epochs(r->gp, r->mine, r->part, left, right, where);
        if (seg == 0) tm[3] = test_now();
        for (int e = 0; e < eps; e++, count++) {
            const int kind = (int)(count % NKINDS);
            plan_epoch(r, kind, &g);
            const int32_t late = (int32_t)rnd(&g, (uint32_t)tc->n);
            const unsigned delay = 50 + rnd(&g, 600);
            char ew[300];
            snprintf(ew, sizeof ew, "%s, epoch %ld (%s)", where, r->epochs, kind_name[kind]);
            issue_epoch(r, ew);
            if (tc->me == late) usleep(delay);
            int as = count % 2 ? NOSTORE : 0;
            if (kind == K_EMPTY && (count / NKINDS) % 2 == 0) as |= NOPRECEDE;
            if (e == eps - 1 && (seg < nseg - 1 || ending == 0)) as |= NOSUCCEED;
            CHECK_OK(shoal_epoch_fence(r->gp, as));
            apply_and_check(r, ew);
            r->epochs++;
        }
    }
    if (ending == 1) CHECK_OK(shoal_epoch_fence(r->gp, NOPRECEDE | NOSUCCEED | NOSTORE));
    if (checking()) check_part(r, 0, r->part, where); /* all of it: nobody writes any more */
    tm[4] = test_now();
    CHECK_OK(shoal_team_memfree(r->gp));
    tm[5] = test_now();
    if (verbose > 1 && tc->me == 0)
        printf("    unit %d, %s: alloc %.0f ms, first fence %.0f ms, sizes %.0f ms, %d epochs %.0f "
               "ms, free %.0f ms\n",
               (int)t_me, where, 1e3 * (tm[1] - tm[0]), 1e3 * (tm[2] - tm[1]),
               1e3 * (tm[3] - tm[2]), nseg * eps, 1e3 * (tm[4] - tm[3]), 1e3 * (tm[5] - tm[4]));
    free(r->model);
    free(r->prev);
    free(r->src);
    free(r->gets);
    free(r);
}

/* Every member of my team reported the same designs (auto resolves alike everywhere). */
static void check_agreement(const tctx_t *tc, const int *mine, int count, const char *what) {
    int *all = malloc(sizeof(int) * (size_t)count * (size_t)t_np);
    REQUIRE(all != NULL, "out of memory");
    MPI_Allgather(mine, count, MPI_INT, all, count, MPI_INT, MPI_COMM_WORLD);
    for (int32_t m = 0; m < tc->n; m++) {
        const int *theirs = all + (size_t)tc->abs[m] * (size_t)count;
        for (int i = 0; i < count; i++)
            CHECK(theirs[i] == mine[i],
                  "%s, %s: unit %d's design %d is %d, mine %d (every member must agree)", tc->name,
                  what, (int)tc->abs[m], i, theirs[i], mine[i]);
    }
    free(all);
}

/* Epochs per design: what fits the budget at this run's fence cost (collective), unless
 * TEST_FENCE_EPOCHS says. A fence costs two to three barriers (more with operations in flight),
 * plus the late member's sleep and the checks: four barriers and a millisecond, to be safe. The
 * MPI path oversubscribes the cores from 3 units, where a fence takes tens of milliseconds. */
static double fence_cost;
static int epochs_for(double budget_s, int designs_per_budget, int lo, int hi) {
    const char *env = getenv("TEST_FENCE_EPOCHS");
    if (env && *env) return atoi(env);
    return test_scale(fence_cost * designs_per_budget, budget_s, lo, hi);
}
static void calibrate(void) {
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    double t = test_now();
    for (int i = 0; i < 8; i++) CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    const double mine = 4 * (test_now() - t) / 8 + 0.001;
    MPI_Allreduce(&mine, &fence_cost, 1, MPI_DOUBLE, MPI_MAX,
                  MPI_COMM_WORLD); /* the same everywhere */
}

#if FENCE_WIDE
/* At 9 units every collective call is slow (each process gets a fifth of a core on this 2-core
 * machine; a team creation or an allocation takes about a second, a fence on the MPI path a fifth
 * of one): the team of all units (SHOAL_TEAM_ALL itself) goes through all five designs on one
 * allocation. TEST_FENCE_WIDE_SPLIT=1 first adds a round of a team of 7 and one of 2 made by a
 * single shoal_team_split (units scattered), three and two designs in turn, side by side (about
 * four seconds more). */
static void model_phase(void) {
    int res[2 * NDESIGNS];
    tctx_t tc;
    const char *split = getenv("TEST_FENCE_WIDE_SPLIT");
    if (split && atoi(split)) {
        const int e_split = epochs_for(0.8, 3, 1, 8);
        memset(&tc, 0, sizeof tc);
        tc.side = (int)((t_me * 2 + 1) % t_np) < 7; /* 7 of 9 units: a permutation picks them */
        REQUIRE_OK(shoal_team_split(SHOAL_TEAM_ALL, tc.side, &tc.team));
        fill_team(&tc, "split team");
        /* notify, deferred, barrier on the 7; naive, auto on the 2 */
        static const int seven[3] = {3, 0, 2}, two[2] = {1, 4};
        memset(res, 0, sizeof res);
        if (tc.side)
            model_run(&tc, seven, 3, e_split, 200, 0, 1, res);
        else
            model_run(&tc, two, 2, e_split, 201, 0, 2, res);
        check_agreement(&tc, res, 2 * NDESIGNS, "designs in force");
        CHECK_OK(shoal_team_destroy(&tc.team));
        phase("split round (teams of 7 and 2)");
    }
    const int e_all = epochs_for(0.8, NDESIGNS, 1, 8);
    memset(&tc, 0, sizeof tc);
    tc.team = SHOAL_TEAM_ALL;
    fill_team(&tc, "all units");
    static const int all5[NDESIGNS] = {1, 3, 0, 2, 4};
    memset(res, 0, sizeof res);
    model_run(&tc, all5, NDESIGNS, e_all, 202, 0, 0, res);
    check_agreement(&tc, res, 2 * NDESIGNS, "designs in force");
    phase("all units");
}
#else
static void model_phase(void) {
    /* Round 0 (all units): one allocation per design (then the next design after a switch);
     * the others: one allocation per team that goes through every design. */
    const int e_all = epochs_for(0.6, NDESIGNS, 2, 20);
    const int e_sub = epochs_for(0.3, NDESIGNS * (t_np / 2), 2, 10);
    for (int round = t_np / 2; round >= 0; round--) {
        tctx_t tc;
        shoal_unit_t other_first = make_team(round, &tc);
        int res[2 * NDESIGNS];
        memset(res, 0, sizeof res);
        if (round == 1) {
            /* A non-member's fence: the first unit of the bigger team sends a pointer into its
             * allocation to the unit of the team of 1, which has no live allocation then but
             * those of the team of all units, so the pointer cannot alias one of its own. */
            if (tc.side == 1) {
                shoal_gptr_t tg = SHOAL_GPTR_NULL;
                shoal_epoch_design_t d = (shoal_epoch_design_t)-7;
                MPI_Recv(&tg, (int)sizeof tg, MPI_BYTE, other_first, 8, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                EXPECT_FAIL(shoal_epoch_fence(tg, 0));
                EXPECT_FAIL(shoal_epoch_fence(tg, NOPRECEDE | NOSUCCEED));
                EXPECT_FAIL(shoal_epoch_set_design(tg, SHOAL_EPOCH_DEFERRED));
                EXPECT_FAIL(shoal_epoch_get_design(tg, &d));
            } else if (tc.me == 0) {
                nonmember_to = other_first;
            }
        }
        if (round == 0) {
            /* Where fences are slow (the MPI path from 3 units) the switches are left to the
             * other rounds, which make four each. */
            const int nseg = fence_cost < 0.004 || t_np < 3 ? 2 : 1;
            for (int di = 0; di < NDESIGNS; di++) {
                const int segs[2] = {di, (di + 1) % NDESIGNS};
                model_run(&tc, segs, nseg, (e_all + nseg - 1) / nseg, 1 + (uint64_t)di, 1, di % 3,
                          &res[2 * di]);
            }
        } else {
            int segs[NDESIGNS];
            for (int i = 0; i < NDESIGNS; i++) segs[i] = (round + i) % NDESIGNS;
            model_run(&tc, segs, NDESIGNS, e_sub, 100 + (uint64_t)round, 0, round % 3, res);
        }
        check_agreement(&tc, res, 2 * NDESIGNS, "designs in force");
        CHECK_OK(shoal_team_destroy(&tc.team));
        char msg[80];
        snprintf(msg, sizeof msg, "model round %d (team of %d, %d epochs per allocation or design)",
                 round, (int)tc.n, round == 0 ? e_all : e_sub);
        phase(msg);
    }
}
#endif

#if !FENCE_WIDE
/* ---- Bad input ------------------------------------------------------------------------------- */
static void names_phase(void) {
    static const char *const want[] = {"auto", "deferred", "imm_naive", "imm_barrier",
                                       "imm_notify"};
    for (int d = 0; d < 5; d++) {
        const char *n = shoal_epoch_design_name((shoal_epoch_design_t)d);
        CHECK(n && strcmp(n, want[d]) == 0, "shoal_epoch_design_name(%d) = \"%s\", expected %s", d,
              n ? n : "(null)", want[d]);
    }
    CHECK(shoal_epoch_design_name((shoal_epoch_design_t)99) != NULL,
          "shoal_epoch_design_name(99) is NULL");
    CHECK(shoal_epoch_design_name((shoal_epoch_design_t)-1) != NULL,
          "shoal_epoch_design_name(-1) is NULL");
}

/* Fence mode starts with the first fence: a design set before it leaves non-blocking operations
 * passive (a handle, completed by wait), as on any allocation. */
static void before_first_fence_phase(void) {
    shoal_gptr_t gp;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &gp));
    REQUIRE_OK(shoal_epoch_set_design(gp, SHOAL_EPOCH_IMM_BARRIER));
    uint64_t v = 0xF00D0000u + (uint64_t)t_me, got = 0;
    shoal_handle_t h = SHOAL_HANDLE_NULL;
    CHECK_OK(shoal_put_nb(shoal_gptr_setunit(gp, test_right()), &v, 8, &h));
    CHECK_OK(shoal_wait(&h));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_get(&got, gp, 8));
    CHECK(got == 0xF00D0000u + (uint64_t)test_left(),
          "a put before the first fence (design set) did not land: 0x%llx",
          (unsigned long long)got);
    CHECK_OK(shoal_team_memfree(gp));
}

static void bad_input_phase(void) {
    const shoal_unit_t right = test_right();
    shoal_gptr_t gp;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &gp));
    void *a = NULL;
    CHECK_OK(shoal_gptr_getaddr(gp, &a));
    REQUIRE(a != NULL, "no address for my part");
    uint8_t *mine = a;
    fill_pattern(mine, 4096, 31, (uint64_t)t_me, 0);
    shoal_epoch_design_t d = (shoal_epoch_design_t)-7;

    /* Out-of-range designs, NULL output, bad assertion bits: nothing changes. */
    EXPECT(SHOAL_ERR_INVAL, shoal_epoch_set_design(gp, (shoal_epoch_design_t)5));
    EXPECT(SHOAL_ERR_INVAL, shoal_epoch_set_design(gp, (shoal_epoch_design_t)-1));
    EXPECT(SHOAL_ERR_INVAL, shoal_epoch_get_design(gp, NULL));
    CHECK_OK(shoal_epoch_get_design(gp, &d));
    CHECK(d == SHOAL_EPOCH_AUTO, "after rejected set_design calls: design %d, expected auto",
          (int)d);
    CHECK_OK(shoal_epoch_set_design(gp, SHOAL_EPOCH_IMM_NOTIFY));
    EXPECT(SHOAL_ERR_INVAL, shoal_epoch_fence(gp, 8));
    EXPECT(SHOAL_ERR_INVAL, shoal_epoch_fence(gp, -1));
    EXPECT(SHOAL_ERR_INVAL, shoal_epoch_fence(gp, NOPRECEDE | (1 << 20)));
    CHECK_OK(shoal_epoch_fence(gp, NOPRECEDE)); /* opens */

    /* set_design in an open epoch: SHOAL_ERR_STATE, the design stays. A bad fence in the open
     * epoch changes nothing either: the next put still belongs to it. */
    EXPECT(SHOAL_ERR_STATE, shoal_epoch_set_design(gp, SHOAL_EPOCH_DEFERRED));
    d = (shoal_epoch_design_t)-7;
    CHECK_OK(shoal_epoch_get_design(gp, &d));
    CHECK(d == SHOAL_EPOCH_IMM_NOTIFY, "set_design in an open epoch changed the design to %d",
          (int)d);
    uint8_t v[64], back[64];
    fill_pattern(v, sizeof v, 32, (uint64_t)t_me, 0);
    shoal_handle_t h = SHOAL_HANDLE_NULL;
    EXPECT(SHOAL_ERR_INVAL, shoal_epoch_fence(gp, 64));
    CHECK_OK(shoal_put_nb(shoal_gptr_add(shoal_gptr_setunit(gp, right), 128), v, sizeof v, &h));
    CHECK_OK(shoal_epoch_fence(gp, NOSUCCEED));
    CHECK_PATTERN(mine + 128, sizeof v, 32, test_left(), 0, "put after a rejected fence");

    /* No epoch open (after NOSUCCEED): put_nb and get_nb are SHOAL_ERR_STATE and move nothing. */
    const shoal_handle_t sent = (shoal_handle_t)(uintptr_t)0x5A5A0;
    h = sent;
    fill_pattern(v, sizeof v, 33, (uint64_t)t_me, 0);
    EXPECT(SHOAL_ERR_STATE,
           shoal_put_nb(shoal_gptr_add(shoal_gptr_setunit(gp, right), 256), v, sizeof v, &h));
    CHECK(h == sent, "a failed put_nb wrote its handle");
    memset(back, 0x3C, sizeof back);
    EXPECT(SHOAL_ERR_STATE,
           shoal_get_nb(back, shoal_gptr_add(shoal_gptr_setunit(gp, right), 0), sizeof back, &h));
    CHECK(h == sent, "a failed get_nb wrote its handle");
    int untouched = 1;
    for (size_t i = 0; i < sizeof back; i++) untouched &= back[i] == 0x3C;
    CHECK(untouched, "a failed get_nb wrote its destination");
    /* A fence that closes and opens nothing keeps it that way. */
    CHECK_OK(shoal_epoch_fence(gp, NOPRECEDE | NOSUCCEED));
    h = sent;
    EXPECT(SHOAL_ERR_STATE,
           shoal_put_nb(shoal_gptr_add(shoal_gptr_setunit(gp, right), 320), v, sizeof v, &h));
    CHECK(h == sent, "a failed put_nb wrote its handle");
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_PATTERN(mine + 256, 64, 31, (uint64_t)t_me, 256, "memory after a failed put_nb");
    CHECK_PATTERN(mine + 320, 64, 31, (uint64_t)t_me, 320, "memory after a failed put_nb");

    /* An epoch declared empty (NOPRECEDE) on a unit that issued a put: that unit gets
     * SHOAL_ERR_STATE, nobody hangs, the put still arrives (by the next fence). Every design. */
    for (int di = 0; di < NDESIGNS; di++) {
        const shoal_unit_t liar = (shoal_unit_t)(di % t_np), dest = (liar + 1) % t_np;
        const size_t off = 1024 + 64 * (size_t)di;
        CHECK_OK(shoal_epoch_set_design(gp, designs[di]));
        CHECK_OK(shoal_epoch_fence(gp, NOPRECEDE));
        fill_pattern(v, sizeof v, 40 + (uint64_t)di, (uint64_t)t_me, 0);
        if (t_me == liar)
            CHECK_OK(shoal_put_nb(shoal_gptr_add(shoal_gptr_setunit(gp, dest), (int64_t)off), v,
                                  sizeof v, &h));
        shoal_err_t e = shoal_epoch_fence(gp, NOPRECEDE);
        if (t_me == liar)
            CHECK(e == SHOAL_ERR_STATE,
                  "%s: a NOPRECEDE fence after my put returned %s, expected SHOAL_ERR_STATE",
                  shoal_epoch_design_name(designs[di]), shoal_strerror(e));
        else
            CHECK(e == SHOAL_OK || e == SHOAL_ERR_STATE,
                  "%s: a NOPRECEDE fence after unit %d's put returned %s on another unit",
                  shoal_epoch_design_name(designs[di]), (int)liar, shoal_strerror(e));
        if (t_me == dest && verbose) {
            int arrived = 1;
            for (size_t i = 0; i < sizeof v; i++)
                arrived &= mine[off + i] == byte_at(40 + (uint64_t)di, (uint64_t)liar, i);
            printf("  %s: wrong NOPRECEDE: the put had %sarrived at that fence's return\n",
                   shoal_epoch_design_name(designs[di]), arrived ? "" : "not ");
        }
        CHECK_OK(shoal_epoch_fence(gp, NOSUCCEED));
        if (t_me == dest) {
            char what[120];
            snprintf(what, sizeof what, "%s: the put of an epoch declared empty",
                     shoal_epoch_design_name(designs[di]));
            CHECK_PATTERN(mine + off, sizeof v, 40 + (uint64_t)di, liar, 0, what);
        }
    }

    /* A freed allocation, a pool block, the NULL pointer. */
    shoal_gptr_t dead = gp;
    CHECK_OK(shoal_team_memfree(gp));
    EXPECT(SHOAL_ERR_GPTR, shoal_epoch_fence(dead, 0));
    EXPECT(SHOAL_ERR_GPTR, shoal_epoch_fence(dead, NOSUCCEED));
    EXPECT_FAIL(shoal_epoch_set_design(dead, SHOAL_EPOCH_DEFERRED));
    d = (shoal_epoch_design_t)-7;
    EXPECT_FAIL(shoal_epoch_get_design(dead, &d));
    CHECK(d == (shoal_epoch_design_t)-7, "a failed get_design wrote its output");
    EXPECT(SHOAL_ERR_GPTR, shoal_epoch_fence(SHOAL_GPTR_NULL, 0));
    shoal_gptr_t pb;
    REQUIRE_OK(shoal_memalloc(256, &pb));
    EXPECT_FAIL(shoal_epoch_fence(pb, 0));
    EXPECT_FAIL(shoal_epoch_set_design(pb, SHOAL_EPOCH_IMM_BARRIER));
    CHECK_OK(shoal_put_nb(pb, v, sizeof v, &h)); /* the pool block is not in fence mode */
    CHECK_OK(shoal_wait(&h));
    CHECK_OK(shoal_memfree(pb));

    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
}
#endif

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    REQUIRE(t_np <= MAXN, "this test handles up to %d units", MAXN);
    t_start = test_now();
    verbose = getenv("TEST_VERBOSE") ? atoi(getenv("TEST_VERBOSE")) : 0;
#if !FENCE_WIDE
    names_phase();
    before_first_fence_phase();
    bad_input_phase();
    phase("bad input");
#endif
    calibrate();
    model_phase();
    if (t_me == 0 && verbose)
        printf(TEST_NAME ": %.2f s at np %d, direct %d\n", test_now() - t_start, (int)t_np,
               test_direct());
    return test_end(TEST_NAME);
}
