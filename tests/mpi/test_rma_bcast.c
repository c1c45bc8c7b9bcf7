/* One-sided broadcasts on Shoal allocations (issue 7, include/shoal.h "One-sided broadcast"): only
 * the root calls. Every root of the full team and of a sub-team made from a group (every unit but
 * unit 0: 1-3 units, not a prefix), allocated and
 * registered on that team; sizes 1 B .. 4 MiB (256 KiB where MPI carries the data), linear,
 * binomial and auto, completed by wait, by polling test and by the members' arrival query; 100
 * back-to-back broadcasts from rotating roots and a burst from one root (12 and 4 through MPI);
 * broadcasts on two allocations in flight at once; a second root on the same allocation while the
 * first broadcast is in flight (ordered: consecutive numbers, the later data wins) and every unit a
 * root at once; non-roots that compute without calling Shoal while the root completes;
 * deregistration and free with a broadcast in flight; bad input (the right code, nothing written
 * anywhere, no number taken); calls after shoal_finalize. Every member checks its bytes against
 * the root's (the data of broadcast number s from root r is a window of one shared pattern chosen
 * by (s, r)), the guard bytes around them, and the numbers (1, 2, ... per registration).
 *
 * Enable needs SHOAL_THREAD_MULTIPLE when some member of the allocation's team is reached through
 * MPI (SHOAL_DIRECT=0, pretend nodes). Where the MPI cannot give it (Open MPI 4.1), every member
 * must get SHOAL_ERR_UNSUPPORTED from enable on such a team; the checks then run on the teams that
 * need no MPI (a single unit, a team within one pretend node) and on everything rejected before
 * registration.
 *
 * RB_TIMES=1 prints each phase's time on unit 0. */
#include "testlib.h"

/* A file that defines RB_WIDE to 1 and includes this one is the 9-unit variant (sub-teams of 7 and
 * 2 from a split, fewer roots and sizes): not in CI, whose time it would exceed with MPICH. */
#ifndef RB_WIDE
#define RB_WIDE 0
#endif

#define MAXU  16
#define GUARD 16   /* bytes checked untouched on either side of a landing region */
#define SPAN  8191 /* pattern windows start at one of SPAN offsets of the shared pattern */
#define MAXN  ((size_t)4 << 20)

static int t_provided;                        /* the thread level Shoal gave */
static unsigned char t_mpi_pair[MAXU * MAXU]; /* [i * np + j]: unit i reaches j through MPI */
static int t_slow;                            /* some pair of units talks through MPI */
static uint8_t *t_base;                       /* the shared pattern: maxn + SPAN bytes */

/* The data of broadcast number seq from team rank root (the same on every unit). */
static const uint8_t *pat(uint64_t seq, int32_t root) {
    return t_base + (seq * 1031 + (uint64_t)root * 7919) % SPAN;
}

/* Compares n bytes; reports the first difference and the count (one failure). */
static int check_bytes(const uint8_t *got, const uint8_t *want, size_t n, const char *what) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            if (!bad) first = i;
            bad++;
        }
    return CHECK(!bad, "%s: %zu of %zu bytes wrong; first at byte %zu: 0x%02x, expected 0x%02x",
                 what, bad, n, first, bad ? got[first] : 0, bad ? want[first] : 0);
}

/* ---- Teams ---------------------------------------------------------------------------------- */

typedef struct {
    shoal_team_t team;
    int32_t size, me; /* me: my rank, -1 when not a member */
    shoal_unit_t units[MAXU];
    int needs_mpi;      /* some pair of members talks through MPI */
    shoal_err_t expect; /* what shoal_rma_bcast_enable must return on it */
    int created;
} rteam_t;

/* Collective over all units: the team of the n units listed (ascending); SHOAL_TEAM_ALL for all. */
static void team_make(rteam_t *tm, const shoal_unit_t *units, int32_t n) {
    memset(tm, 0, sizeof *tm);
    tm->size = n;
    tm->me = -1;
    for (int32_t i = 0; i < n; i++) {
        tm->units[i] = units[i];
        if (units[i] == t_me) tm->me = i;
        for (int32_t j = 0; j < n; j++)
            if (t_mpi_pair[units[i] * t_np + units[j]]) tm->needs_mpi = 1;
    }
    tm->expect =
        tm->needs_mpi && t_provided != SHOAL_THREAD_MULTIPLE ? SHOAL_ERR_UNSUPPORTED : SHOAL_OK;
    if (n == t_np) {
        tm->team = SHOAL_TEAM_ALL;
        return;
    }
    shoal_group_t g;
    REQUIRE_OK(shoal_group_create(&g));
    for (int32_t i = 0; i < n; i++) REQUIRE_OK(shoal_group_add_member(g, units[i]));
    REQUIRE_OK(shoal_team_create(SHOAL_TEAM_ALL, g, &tm->team));
    REQUIRE_OK(shoal_group_destroy(&g));
    tm->created = 1;
    REQUIRE(tm->me >= 0 ? tm->team != SHOAL_TEAM_NULL : tm->team == SHOAL_TEAM_NULL,
            "team_create: membership of a team of %d", (int)n);
    if (tm->me >= 0) {
        int32_t size = 0;
        shoal_unit_t rel = -1;
        CHECK_OK(shoal_team_size(tm->team, &size));
        CHECK_OK(shoal_team_myid(tm->team, &rel));
        REQUIRE(size == n && rel == tm->me, "team of %d: size %d, my rank %d (expected %d)", (int)n,
                (int)size, (int)rel, (int)tm->me);
    }
}

/* Collective over the team's members. */
static void team_free(rteam_t *tm) {
    if (tm->created && tm->me >= 0) CHECK_OK(shoal_team_destroy(&tm->team));
}

#if RB_WIDE
/* Collective over all units: my team of a shoal_team_split by colour. */
static void team_split(rteam_t *tm, int colour) {
    memset(tm, 0, sizeof *tm);
    REQUIRE_OK(shoal_team_split(SHOAL_TEAM_ALL, colour, &tm->team));
    tm->created = 1;
    REQUIRE_OK(shoal_team_size(tm->team, &tm->size));
    REQUIRE_OK(shoal_team_myid(tm->team, &tm->me));
    for (int32_t i = 0; i < tm->size; i++)
        REQUIRE_OK(shoal_team_unit_l2g(tm->team, i, &tm->units[i]));
    for (int32_t i = 0; i < tm->size; i++)
        for (int32_t j = 0; j < tm->size; j++)
            if (t_mpi_pair[tm->units[i] * t_np + tm->units[j]]) tm->needs_mpi = 1;
    tm->expect =
        tm->needs_mpi && t_provided != SHOAL_THREAD_MULTIPLE ? SHOAL_ERR_UNSUPPORTED : SHOAL_OK;
}
#endif

#if !RB_WIDE
/* The team of size n starting at unit `first` of the ring (sorted): non-prefix members. */
static void team_ring(rteam_t *tm, int32_t first, int32_t n) {
    shoal_unit_t u[MAXU];
    int32_t k = 0;
    for (int32_t i = 0; i < t_np; i++) {
        int32_t d = (i - first + t_np) % t_np;
        if (d < n) u[k++] = i;
    }
    team_make(tm, u, k);
}
#endif

/* An allocation of nbytes on the team's members, registered when the team allows it. Returns 1
 * when registered (then *gp and *mine are set); else frees it again. */
static int rb_alloc(const rteam_t *tm, size_t nbytes, shoal_gptr_t *gp, uint8_t **mine,
                    const char *what) {
    REQUIRE_OK(shoal_team_memalloc(tm->team, nbytes, gp));
    void *p = NULL;
    REQUIRE_OK(shoal_gptr_getaddr(*gp, &p));
    *mine = p;
    shoal_err_t e = shoal_rma_bcast_enable(*gp);
    CHECK(e == tm->expect, "%s: enable on a team of %d%s returned %s, expected %s", what,
          (int)tm->size, tm->needs_mpi ? " (through MPI)" : "", shoal_strerror(e),
          shoal_strerror(tm->expect));
    if (e == SHOAL_OK) return 1;
    CHECK_OK(shoal_team_memfree(*gp));
    return 0;
}

static void rb_free(shoal_gptr_t gp) {
    CHECK_OK(shoal_rma_bcast_disable(gp));
    CHECK_OK(shoal_team_memfree(gp));
}

static int arrived(shoal_gptr_t gp, uint64_t seq) {
    int a = -1;
    CHECK_OK(shoal_rma_bcast_arrived(gp, seq, &a));
    return a;
}

/* ---- One broadcast, checked everywhere ---------------------------------------------------------
 * Collective over the team: rank root sends n bytes of pattern (seq, root) to offset at; every
 * member checks its bytes and that the GUARD bytes on either side kept what they held. *seq: the
 * allocation's last number. how: 0 wait, 1 polling test, 2 the members poll arrived, 3 in place
 * (the root's part is the source), no seq output, wait. No member writes its part: until a
 * broadcast is complete everywhere, a member's part is the source its relay forwards from
 * (docs/rma_bcast.md, Several in flight). */
static void bcast_one(const rteam_t *tm, shoal_gptr_t gp, uint8_t *mine, size_t at, size_t n,
                      int32_t root, shoal_rma_bcast_algo_t algo, int how, uint64_t *seq,
                      const char *what) {
    const uint64_t s = *seq + 1;
    char w[200];
    snprintf(w, sizeof w, "%s: team of %d, root %d, %zu bytes at %zu, %s, seq %llu, how %d", what,
             (int)tm->size, (int)root, n, at, shoal_rma_bcast_algo_name(algo),
             (unsigned long long)s, how);
    uint8_t before[GUARD], after[GUARD];
    memcpy(before, mine + at - GUARD, GUARD);
    memcpy(after, mine + at + n, GUARD);
    CHECK(arrived(gp, s) == 0, "%s: arrived before the broadcast", w);
    /* The previous broadcast is complete everywhere (its root completed before this barrier). */
    CHECK_OK(shoal_barrier(tm->team));
    if (tm->me == root) {
        shoal_rma_bcast_t req = SHOAL_RMA_BCAST_NULL;
        uint64_t got = 0;
        const uint8_t *src = pat(s, root);
        if (how == 3) { /* in place: the root's own part is the source */
            memcpy(mine + at, src, n);
            src = mine + at;
        }
        if (CHECK_OK(shoal_rma_bcast(shoal_gptr_add(gp, (int64_t)at), src, n, algo, &req,
                                     how == 3 ? NULL : &got))) {
            if (how != 3) CHECK(got == s, "%s: the root got seq %llu", w, (unsigned long long)got);
            CHECK(arrived(gp, s) == 1, "%s: not arrived at the root after its call", w);
            if (how == 1) {
                int done = 0;
                double limit = test_now() + 60;
                while (CHECK_OK(shoal_rma_bcast_test(&req, &done)) && !done) {
                    CHECK(req != SHOAL_RMA_BCAST_NULL, "%s: test released an open request", w);
                    if (!CHECK(test_now() < limit, "%s: test never completes", w)) break;
                    test_yield();
                }
                CHECK(req == SHOAL_RMA_BCAST_NULL, "%s: request not NULL after test said done", w);
                done = 0; /* a NULL request tests done */
                CHECK_OK(shoal_rma_bcast_test(&req, &done));
                CHECK(done == 1, "%s: the NULL request tests not done", w);
            } else {
                CHECK_OK(shoal_rma_bcast_wait(&req));
                CHECK(req == SHOAL_RMA_BCAST_NULL, "%s: request not NULL after wait", w);
                CHECK_OK(shoal_rma_bcast_wait(&req)); /* NULL: nothing to do */
            }
        }
    } else if (how == 2) {
        SPIN_UNTIL(arrived(gp, s) == 1, 60);
    } else {
        CHECK_OK(shoal_rma_bcast_wait_arrival(gp, s));
    }
    check_bytes(mine + at, pat(s, root), n, w);
    check_bytes(mine + at - GUARD, before, GUARD, w);
    check_bytes(mine + at + n, after, GUARD, w);
    CHECK(arrived(gp, s) == 1, "%s: not arrived after the data", w);
    CHECK(arrived(gp, s + 1) == 0, "%s: the next number arrived before it was sent", w);
    *seq = s;
}

/* Every root (sparse: the first, middle and last), every size, the algorithms in turn (so each
 * size meets each algorithm over three roots), the completions in turn. On a registered
 * allocation whose parts hold at least the largest size + 64 + GUARD bytes. */
static void sweep_on(const rteam_t *tm, shoal_gptr_t gp, uint8_t *mine, const size_t *sizes,
                     int nsizes, int sparse, uint64_t *seq, const char *what) {
    int k = 0;
    for (int32_t root = 0; root < tm->size; root++) {
        if (sparse && root != 0 && root != tm->size / 2 && root != tm->size - 1) continue;
        for (int i = 0; i < nsizes; i++) {
            size_t at = k % 2 ? GUARD + 3 : 64;
            bcast_one(tm, gp, mine, at, sizes[i], root, (shoal_rma_bcast_algo_t)((root + i) % 3),
                      k % 4, seq, what);
            k++;
        }
    }
    CHECK_OK(shoal_barrier(tm->team));
}

/* A sub-team: its own allocation, registered on it, swept, deregistered and freed. */
static void sweep_team(const rteam_t *tm, const size_t *sizes, int nsizes, int sparse,
                       const char *what) {
    if (tm->me < 0) return;
    size_t most = 0;
    for (int i = 0; i < nsizes; i++) most = sizes[i] > most ? sizes[i] : most;
    shoal_gptr_t gp;
    uint8_t *mine;
    if (!rb_alloc(tm, most + 64 + 2 * GUARD, &gp, &mine, what)) return;
    uint64_t seq = 0;
    sweep_on(tm, gp, mine, sizes, nsizes, sparse, &seq, what);
    int32_t roots = sparse && tm->size > 3 ? 3 : tm->size;
    CHECK(seq == (uint64_t)(roots * nsizes), "%s: %llu broadcasts numbered, %d made", what,
          (unsigned long long)seq, (int)(roots * nsizes));
    rb_free(gp);
}

/* ---- Non-roots that compute ---------------------------------------------------------------- */
/* The root broadcasts and waits for completion while the others compute without calling Shoal.
 * Where every member is mapped (the direct path), the root then puts a flag into every member's
 * part (at flag_at, outside the data); the members watch it with plain loads, then find the data
 * complete, still without calling Shoal: completion needed nothing from them. Elsewhere they
 * compute for a while, then wait for arrival. */
static volatile uint64_t t_sink;

static void compute_phase(const rteam_t *tm, shoal_gptr_t gp, uint8_t *mine, size_t n,
                          size_t flag_at, uint64_t *seq, const char *what) {
    volatile uint64_t *flag = (volatile uint64_t *)(mine + flag_at);
    const int strict = !tm->needs_mpi;
    for (int32_t root = 0; root < tm->size; root++) {
        const uint64_t s = *seq + 1;
        shoal_rma_bcast_algo_t algo = root % 2 ? SHOAL_RMA_BCAST_LINEAR : SHOAL_RMA_BCAST_BINOMIAL;
        char w[160];
        snprintf(w, sizeof w, "%s: team of %d, root %d, the others computing, %zu bytes, %s", what,
                 (int)tm->size, (int)root, n, shoal_rma_bcast_algo_name(algo));
        CHECK_OK(shoal_barrier(tm->team));
        if (tm->me == root) {
            shoal_rma_bcast_t req;
            uint64_t got = 0;
            CHECK_OK(shoal_rma_bcast(shoal_gptr_add(gp, GUARD), pat(s, root), n, algo, &req, &got));
            CHECK(got == s, "%s: seq %llu, expected %llu", w, (unsigned long long)got,
                  (unsigned long long)s);
            CHECK_OK(shoal_rma_bcast_wait(&req));
            if (strict)
                for (int32_t r = 0; r < tm->size; r++)
                    if (r != root)
                        CHECK_OK(shoal_put(
                            shoal_gptr_add(shoal_gptr_setunit(gp, tm->units[r]), (int64_t)flag_at),
                            &s, sizeof s));
        } else {
            /* No Shoal call in here. */
            double limit = test_now() + (strict ? 60 : 0.005);
            uint64_t x = (uint64_t)t_me + 1;
            while ((!strict || *flag != s) && test_now() < limit) {
                for (int i = 0; i < 1000; i++)
                    x = x * 6364136223846793005ull + 1442695040888963407ull;
                t_sink = x;
                sched_yield(); /* the cores are shared with the relays */
            }
            if (strict) {
                CHECK(*flag == s, "%s: the root's completion flag never came", w);
                check_bytes(mine + GUARD, pat(s, root), n, w); /* still no Shoal call */
            }
            CHECK_OK(shoal_rma_bcast_wait_arrival(gp, s));
            check_bytes(mine + GUARD, pat(s, root), n, w);
        }
        CHECK(arrived(gp, s) == 1, "%s: not arrived", w);
        *seq = s;
    }
    CHECK_OK(shoal_barrier(tm->team));
}

/* ---- Back to back ------------------------------------------------------------------------------
 * K broadcasts into slots of one allocation, no barrier between them: broadcast k from rank k % p,
 * which only waits until the broadcast before has reached it (so the numbers are known); each root
 * completes its requests by polling at the end. Then a burst of B from one root, which does not
 * wait between them. Every member checks every slot at the end. */
#define SLOT 64

static size_t slot_bytes(int k) {
    return 1 + (size_t)(k * 37) % SLOT;
}

static void back_to_back(const rteam_t *tm, shoal_gptr_t gp, uint8_t *mine, int K, int B,
                         uint64_t *seq, const char *what) {
    const int32_t p = tm->size;
    const uint64_t s0 = *seq;
    shoal_rma_bcast_t *reqs = calloc((size_t)K, sizeof *reqs);
    REQUIRE(reqs, "out of memory");
    int nreq = 0;
    for (int k = 0; k < K; k++) {
        const int32_t root = k % p;
        if (root != tm->me) continue;
        if (k > 0) CHECK_OK(shoal_rma_bcast_wait_arrival(gp, s0 + (uint64_t)k));
        uint64_t got = 0;
        CHECK_OK(shoal_rma_bcast(shoal_gptr_add(gp, (int64_t)k * SLOT),
                                 pat(s0 + (uint64_t)k + 1, root), slot_bytes(k),
                                 (shoal_rma_bcast_algo_t)(k % 3), &reqs[nreq++], &got));
        CHECK(got == s0 + (uint64_t)k + 1, "%s: broadcast %d got seq %llu", what, k,
              (unsigned long long)got);
    }
    double limit = test_now() + 60; /* poll all of mine to completion */
    for (int left = nreq; left > 0;) {
        left = 0;
        for (int i = 0; i < nreq; i++) {
            int done = 0;
            if (reqs[i] == SHOAL_RMA_BCAST_NULL) continue;
            CHECK_OK(shoal_rma_bcast_test(&reqs[i], &done));
            if (!done) left++;
        }
        if (left && !CHECK(test_now() < limit, "%s: %d requests never complete", what, left)) break;
        if (left) test_yield();
    }
    CHECK_OK(shoal_rma_bcast_wait_arrival(gp, s0 + (uint64_t)K));
    char w[160];
    for (int k = 0; k < K; k++) {
        snprintf(w, sizeof w, "%s: team of %d, back-to-back broadcast %d from %d", what, (int)p, k,
                 (int)(k % p));
        check_bytes(mine + (size_t)k * SLOT, pat(s0 + (uint64_t)k + 1, k % p), slot_bytes(k), w);
    }
    CHECK(arrived(gp, s0 + (uint64_t)K + 1) == 0, "%s: a broadcast nobody sent arrived", what);

    /* The burst: B broadcasts from the last rank, back to back, completed in reverse order, into
     * the first B slots once every member has checked them. */
    CHECK_OK(shoal_barrier(tm->team));
    const int32_t root = p - 1;
    const uint64_t s1 = s0 + (uint64_t)K;
    if (tm->me == root) {
        for (int j = 0; j < B; j++) {
            uint64_t got = 0;
            CHECK_OK(shoal_rma_bcast(
                shoal_gptr_add(gp, (int64_t)j * SLOT), pat(s1 + (uint64_t)j + 1, root), SLOT,
                j % 2 ? SHOAL_RMA_BCAST_BINOMIAL : SHOAL_RMA_BCAST_AUTO, &reqs[j], &got));
            CHECK(got == s1 + (uint64_t)j + 1, "%s: burst broadcast %d got seq %llu", what, j,
                  (unsigned long long)got);
        }
        for (int j = B - 1; j >= 0; j--) CHECK_OK(shoal_rma_bcast_wait(&reqs[j]));
    }
    CHECK_OK(shoal_rma_bcast_wait_arrival(gp, s1 + (uint64_t)B));
    for (int j = 0; j < B; j++) {
        snprintf(w, sizeof w, "%s: team of %d, burst broadcast %d from %d", what, (int)p, j,
                 (int)root);
        check_bytes(mine + (size_t)j * SLOT, pat(s1 + (uint64_t)j + 1, root), SLOT, w);
    }
    free(reqs);
    *seq = s1 + (uint64_t)B;
    CHECK_OK(shoal_barrier(tm->team));
}

/* ---- Several in flight ---------------------------------------------------------------------- */
/* On two registered allocations A and B of the same team, parts of at least n + 4096 * p bytes. */
static void in_flight(const rteam_t *tm, shoal_gptr_t A, uint8_t *ma, uint64_t *sa, shoal_gptr_t B,
                      uint8_t *mb, uint64_t *sb, size_t n, const char *what) {
    const int32_t p = tm->size, ra = 0, rb = p - 1;
    char w[160];
    shoal_rma_bcast_t r1 = SHOAL_RMA_BCAST_NULL, r2 = SHOAL_RMA_BCAST_NULL;
    uint64_t s1 = 0, s2 = 0;

    /* 1. Root ra on A and root rb on B at the same time; nobody waits before issuing. */
    CHECK_OK(shoal_barrier(tm->team));
    if (tm->me == ra)
        CHECK_OK(shoal_rma_bcast(A, pat(*sa + 1, ra), n, SHOAL_RMA_BCAST_BINOMIAL, &r1, &s1));
    if (tm->me == rb)
        CHECK_OK(shoal_rma_bcast(B, pat(*sb + 1, rb), n, SHOAL_RMA_BCAST_LINEAR, &r2, &s2));
    if (tm->me == ra) CHECK(s1 == *sa + 1, "%s: A got seq %llu", what, (unsigned long long)s1);
    if (tm->me == rb) CHECK(s2 == *sb + 1, "%s: B got seq %llu", what, (unsigned long long)s2);
    CHECK_OK(shoal_rma_bcast_wait(&r1));
    CHECK_OK(shoal_rma_bcast_wait(&r2));
    *sa += 1;
    *sb += 1;
    CHECK_OK(shoal_rma_bcast_wait_arrival(A, *sa));
    CHECK_OK(shoal_rma_bcast_wait_arrival(B, *sb));
    snprintf(w, sizeof w, "%s: team of %d, A from %d while B from %d", what, (int)p, (int)ra,
             (int)rb);
    check_bytes(ma, pat(*sa, ra), n, w);
    check_bytes(mb, pat(*sb, rb), n, w);
    CHECK_OK(shoal_barrier(tm->team));

    /* 2. One root on both, no wait between; completed in the other order. */
    if (tm->me == rb) {
        CHECK_OK(shoal_rma_bcast(A, pat(*sa + 1, rb), n, SHOAL_RMA_BCAST_LINEAR, &r1, &s1));
        CHECK_OK(shoal_rma_bcast(B, pat(*sb + 1, rb), n, SHOAL_RMA_BCAST_BINOMIAL, &r2, &s2));
        CHECK(s1 == *sa + 1 && s2 == *sb + 1, "%s: one root on both got seq %llu and %llu", what,
              (unsigned long long)s1, (unsigned long long)s2);
        CHECK_OK(shoal_rma_bcast_wait(&r2));
        CHECK_OK(shoal_rma_bcast_wait(&r1));
    }
    *sa += 1;
    *sb += 1;
    CHECK_OK(shoal_rma_bcast_wait_arrival(B, *sb));
    CHECK_OK(shoal_rma_bcast_wait_arrival(A, *sa));
    snprintf(w, sizeof w, "%s: team of %d, A and B from %d", what, (int)p, (int)rb);
    check_bytes(ma, pat(*sa, rb), n, w);
    check_bytes(mb, pat(*sb, rb), n, w);
    CHECK_OK(shoal_barrier(tm->team));

    /* 3. A second root on A while the first broadcast is in flight: ordered, consecutive numbers,
     * the later data wins where they overlap. The first root tells the second (plain MPI) as soon
     * as its call returns. */
    const int32_t rc2 = 1 % p;
    const size_t n2 = n / 2 + 7;
    const uint64_t first = *sa + 1;
    if (tm->me == ra) {
        CHECK_OK(shoal_rma_bcast(A, pat(first, ra), n, SHOAL_RMA_BCAST_BINOMIAL, &r1, &s1));
        CHECK(s1 == first, "%s: seq %llu, expected %llu", what, (unsigned long long)s1,
              (unsigned long long)first);
        if (rc2 != ra) MPI_Send(&s1, 1, MPI_UINT64_T, tm->units[rc2], 77, MPI_COMM_WORLD);
    }
    if (tm->me == rc2) {
        uint64_t before = s1;
        if (rc2 != ra)
            MPI_Recv(&before, 1, MPI_UINT64_T, tm->units[ra], 77, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        CHECK_OK(shoal_rma_bcast(A, pat(first + 1, rc2), n2, SHOAL_RMA_BCAST_LINEAR, &r2, &s2));
        CHECK(s2 == before + 1, "%s: the second root got seq %llu after %llu", what,
              (unsigned long long)s2, (unsigned long long)before);
    }
    if (tm->me == ra) CHECK_OK(shoal_rma_bcast_wait(&r1));
    if (tm->me == rc2) CHECK_OK(shoal_rma_bcast_wait(&r2));
    *sa = first + 1;
    CHECK_OK(shoal_rma_bcast_wait_arrival(A, *sa));
    snprintf(w, sizeof w, "%s: team of %d, root %d after root %d on one allocation", what, (int)p,
             (int)rc2, (int)ra);
    check_bytes(ma, pat(first + 1, rc2), n2, w);
    check_bytes(ma + n2, pat(first, ra) + n2, n - n2, w);
    CHECK(arrived(A, *sa + 1) == 0, "%s: a later number arrived", w);
    CHECK_OK(shoal_barrier(tm->team));

    /* 4. Every member a root on A at once, each into its own slot after the data: the numbers are
     * the next p, each taken once. The data is keyed by the slot (its number is not known
     * beforehand). */
    const size_t n4 = 1000 + (size_t)tm->me * 3;
    uint64_t s4 = 0;
    CHECK_OK(shoal_rma_bcast(shoal_gptr_add(A, (int64_t)(n + (size_t)tm->me * 4096)),
                             pat(100, tm->me), n4, (shoal_rma_bcast_algo_t)(tm->me % 3), &r1, &s4));
    CHECK_OK(shoal_rma_bcast_wait(&r1));
    CHECK_OK(shoal_rma_bcast_wait_arrival(A, *sa + (uint64_t)p));
    for (int32_t r = 0; r < p; r++) {
        snprintf(w, sizeof w, "%s: team of %d, all roots at once, slot of %d", what, (int)p,
                 (int)r);
        check_bytes(ma + n + (size_t)r * 4096, pat(100, r), 1000 + (size_t)r * 3, w);
    }
    if (tm->size == t_np) { /* the numbers: MPI over the world */
        uint64_t all[MAXU], seen = 0;
        MPI_Allgather(&s4, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, MPI_COMM_WORLD);
        for (int32_t r = 0; r < p; r++)
            if (CHECK(all[r] > *sa && all[r] <= *sa + (uint64_t)p,
                      "%s: root %d of all at once got seq %llu", what, (int)r,
                      (unsigned long long)all[r]))
                seen |= 1ull << (all[r] - *sa - 1);
        CHECK(seen == (1ull << p) - 1, "%s: all at once: numbers not taken once each", what);
    }
    *sa += (uint64_t)p;
    CHECK(arrived(A, *sa + 1) == 0, "%s: a number nobody took arrived", what);
    CHECK_OK(shoal_barrier(tm->team));
}

/* ---- Deregistration or free with a broadcast in flight --------------------------------------- */
static void end_in_flight(const rteam_t *tm, shoal_gptr_t gp, uint8_t *mine, uint64_t seq, size_t n,
                          int free_it, const char *what) {
    const int32_t root = free_it ? tm->size - 1 : 0;
    const uint64_t s = seq + 1;
    shoal_rma_bcast_t req = SHOAL_RMA_BCAST_NULL;
    uint64_t got = 0;
    char w[160];
    snprintf(w, sizeof w, "%s: team of %d, %s with a broadcast from %d in flight", what,
             (int)tm->size, free_it ? "memfree" : "disable", (int)root);
    CHECK_OK(shoal_barrier(tm->team));
    if (tm->me == root) {
        CHECK_OK(shoal_rma_bcast(gp, pat(s, root), n, SHOAL_RMA_BCAST_BINOMIAL, &req, &got));
        CHECK(got == s, "%s: seq %llu", w, (unsigned long long)got);
    }
    if (free_it) {
        CHECK_OK(shoal_team_memfree(gp));
    } else {
        CHECK_OK(shoal_rma_bcast_disable(gp));
        check_bytes(mine, pat(s, root), n, w); /* disable waited for it */
        int a = -1;
        CHECK(shoal_rma_bcast_arrived(gp, s, &a) == SHOAL_ERR_STATE,
              "%s: arrived on a deregistered allocation", w);
    }
    if (tm->me == root) {
        int done = 0;
        CHECK_OK(shoal_rma_bcast_test(&req, &done));
        CHECK(done == 1 && req == SHOAL_RMA_BCAST_NULL, "%s: the root's request: done %d", w, done);
    }
}

/* ---- Bad input ----------------------------------------------------------------------------------
 * On the full team: gp registered (when the team allows it; cap bytes per part, seq its last
 * number), other allocated but not registered. Unit 0 makes the bad calls; every unit checks that
 * its part did not change and that the next good broadcast still gets the next number. Frees
 * other. */
static void expect_err(shoal_err_t got, shoal_err_t want, const char *call) {
    CHECK(got == want, "%s returned %s, expected %s", call, shoal_strerror(got),
          shoal_strerror(want));
}
#define EXPECT_ERR(call, want) expect_err((call), (want), #call)

static void bad_input(const rteam_t *tm, shoal_gptr_t gp, uint8_t *mine, size_t cap, int registered,
                      uint64_t *seq, shoal_gptr_t other) {
    shoal_gptr_t pool, freed = other;
    REQUIRE_OK(shoal_memalloc(256, &pool));
    const uint8_t *src = pat(1, 0);
    shoal_rma_bcast_t req = SHOAL_RMA_BCAST_NULL;
    uint64_t s = 0;
    int flag = 0;

    /* Rejected on every unit alike. */
    EXPECT_ERR(shoal_rma_bcast_enable(pool), SHOAL_ERR_GPTR);
    EXPECT_ERR(shoal_rma_bcast_enable(SHOAL_GPTR_NULL), SHOAL_ERR_GPTR);
    EXPECT_ERR(shoal_rma_bcast_disable(other), SHOAL_ERR_STATE);
    EXPECT_ERR(shoal_rma_bcast_disable(pool), SHOAL_ERR_GPTR);
    if (registered) /* enable twice: every member refuses; the registration stays */
        EXPECT_ERR(shoal_rma_bcast_enable(gp), SHOAL_ERR_STATE);

    uint8_t *copy = malloc(cap);
    REQUIRE(copy, "out of memory");
    memcpy(copy, mine, cap);
    CHECK_OK(shoal_barrier(tm->team));
    if (t_me == 0) {
        EXPECT_ERR(shoal_rma_bcast(gp, src, 0, SHOAL_RMA_BCAST_LINEAR, &req, &s), SHOAL_ERR_INVAL);
        EXPECT_ERR(shoal_rma_bcast(gp, NULL, 8, SHOAL_RMA_BCAST_LINEAR, &req, &s), SHOAL_ERR_INVAL);
        EXPECT_ERR(shoal_rma_bcast(gp, src, 8, SHOAL_RMA_BCAST_LINEAR, NULL, &s), SHOAL_ERR_INVAL);
        EXPECT_ERR(shoal_rma_bcast(gp, src, 8, (shoal_rma_bcast_algo_t)3, &req, &s),
                   SHOAL_ERR_INVAL);
        EXPECT_ERR(shoal_rma_bcast(gp, src, 8, (shoal_rma_bcast_algo_t)-1, &req, &s),
                   SHOAL_ERR_INVAL);
        EXPECT_ERR(shoal_rma_bcast(gp, src, cap + 1, SHOAL_RMA_BCAST_LINEAR, &req, &s),
                   SHOAL_ERR_BOUNDS);
        EXPECT_ERR(shoal_rma_bcast(shoal_gptr_add(gp, (int64_t)cap - 10), src, 11,
                                   SHOAL_RMA_BCAST_BINOMIAL, &req, &s),
                   SHOAL_ERR_BOUNDS);
        EXPECT_ERR(shoal_rma_bcast(shoal_gptr_add(gp, (int64_t)cap), src, 1, SHOAL_RMA_BCAST_AUTO,
                                   &req, &s),
                   SHOAL_ERR_BOUNDS);
        EXPECT_ERR(shoal_rma_bcast(shoal_gptr_add(gp, 8), src, SIZE_MAX - 4, SHOAL_RMA_BCAST_LINEAR,
                                   &req, &s),
                   SHOAL_ERR_BOUNDS);
        EXPECT_ERR(shoal_rma_bcast(other, src, 8, SHOAL_RMA_BCAST_LINEAR, &req, &s),
                   SHOAL_ERR_STATE);
        EXPECT_ERR(shoal_rma_bcast(pool, src, 8, SHOAL_RMA_BCAST_LINEAR, &req, &s), SHOAL_ERR_GPTR);
        EXPECT_ERR(shoal_rma_bcast(SHOAL_GPTR_NULL, src, 8, SHOAL_RMA_BCAST_LINEAR, &req, &s),
                   SHOAL_ERR_GPTR);
        CHECK(req == SHOAL_RMA_BCAST_NULL, "a refused broadcast set the request");
    }
    /* Queries and completions. */
    EXPECT_ERR(shoal_rma_bcast_arrived(other, 1, &flag), SHOAL_ERR_STATE);
    EXPECT_ERR(shoal_rma_bcast_arrived(pool, 1, &flag), SHOAL_ERR_GPTR);
    EXPECT_ERR(shoal_rma_bcast_wait_arrival(other, 1), SHOAL_ERR_STATE);
    if (registered) EXPECT_ERR(shoal_rma_bcast_arrived(gp, 1, NULL), SHOAL_ERR_INVAL);
    EXPECT_ERR(shoal_rma_bcast_test(NULL, &flag), SHOAL_ERR_INVAL);
    EXPECT_ERR(shoal_rma_bcast_test(&req, NULL), SHOAL_ERR_INVAL);
    EXPECT_ERR(shoal_rma_bcast_wait(NULL), SHOAL_ERR_INVAL);
    shoal_rma_bcast_t fake = (shoal_rma_bcast_t)(uintptr_t)0x5eed;
    EXPECT_ERR(shoal_rma_bcast_test(&fake, &flag), SHOAL_ERR_HANDLE);
    EXPECT_ERR(shoal_rma_bcast_wait(&fake), SHOAL_ERR_HANDLE);
    CHECK(!strcmp(shoal_rma_bcast_algo_name(SHOAL_RMA_BCAST_LINEAR), "linear") &&
              !strcmp(shoal_rma_bcast_algo_name(SHOAL_RMA_BCAST_BINOMIAL), "binomial") &&
              !strcmp(shoal_rma_bcast_algo_name(SHOAL_RMA_BCAST_AUTO), "auto"),
          "algorithm names");

    /* The freed allocation. */
    CHECK_OK(shoal_team_memfree(other));
    EXPECT_ERR(shoal_rma_bcast_enable(freed), SHOAL_ERR_GPTR);
    EXPECT_ERR(shoal_rma_bcast_disable(freed), SHOAL_ERR_GPTR);
    EXPECT_ERR(shoal_rma_bcast_arrived(freed, 1, &flag), SHOAL_ERR_GPTR);
    EXPECT_ERR(shoal_rma_bcast_wait_arrival(freed, 1), SHOAL_ERR_GPTR);
    if (t_me == 0)
        EXPECT_ERR(shoal_rma_bcast(freed, src, 8, SHOAL_RMA_BCAST_LINEAR, &req, &s),
                   SHOAL_ERR_GPTR);
    CHECK_OK(shoal_memfree(pool));
    EXPECT_ERR(shoal_rma_bcast_enable(pool), SHOAL_ERR_GPTR);

    CHECK_OK(shoal_barrier(tm->team));
    check_bytes(mine, copy, cap, "bad input: a member's part changed");
    free(copy);
    if (!registered) return;
    CHECK(arrived(gp, *seq + 1) == 0, "bad input: a refused broadcast arrived");
    /* A good one takes the next number: the refused ones took none. Then test and wait on copies
     * of its completed request. */
    bcast_one(tm, gp, mine, 64, 100, 0, SHOAL_RMA_BCAST_AUTO, 0, seq, "after bad input");
    CHECK_OK(shoal_barrier(tm->team));
    if (t_me == 0) {
        uint64_t got = 0;
        CHECK_OK(shoal_rma_bcast(gp, src, 8, SHOAL_RMA_BCAST_LINEAR, &req, &got));
        CHECK(got == *seq + 1, "seq %llu, expected %llu", (unsigned long long)got,
              (unsigned long long)*seq + 1);
        shoal_rma_bcast_t c1 = req, c2 = req;
        CHECK_OK(shoal_rma_bcast_wait(&req));
        EXPECT_ERR(shoal_rma_bcast_test(&c1, &flag), SHOAL_ERR_HANDLE);
        EXPECT_ERR(shoal_rma_bcast_wait(&c2), SHOAL_ERR_HANDLE);
    }
    *seq += 1;
    CHECK_OK(shoal_rma_bcast_wait_arrival(gp, *seq));
    check_bytes(mine, src, 8, "the broadcast after bad input");
    /* Exactly to the end of the part. */
    CHECK_OK(shoal_barrier(tm->team));
    if (t_me == 0) {
        CHECK_OK(shoal_rma_bcast(shoal_gptr_add(gp, (int64_t)cap - 9), src, 9,
                                 SHOAL_RMA_BCAST_BINOMIAL, &req, NULL));
        CHECK_OK(shoal_rma_bcast_wait(&req));
    }
    *seq += 1;
    CHECK_OK(shoal_rma_bcast_wait_arrival(gp, *seq));
    check_bytes(mine + cap - 9, src, 9, "a broadcast to the end of the part");
    CHECK_OK(shoal_barrier(tm->team));
}

/* After shoal_finalize every call says SHOAL_ERR_NOT_INIT (local checks, no MPI left). */
static int after_finalize(shoal_gptr_t gp, shoal_rma_bcast_t stale) {
    long before = t_failures;
    uint8_t b = 1;
    int flag = 0;
    shoal_rma_bcast_t req = stale;
    uint64_t seq = 0;
    EXPECT_ERR(shoal_rma_bcast_enable(gp), SHOAL_ERR_NOT_INIT);
    EXPECT_ERR(shoal_rma_bcast_disable(gp), SHOAL_ERR_NOT_INIT);
    EXPECT_ERR(shoal_rma_bcast(gp, &b, 1, SHOAL_RMA_BCAST_LINEAR, &req, &seq), SHOAL_ERR_NOT_INIT);
    EXPECT_ERR(shoal_rma_bcast_test(&req, &flag), SHOAL_ERR_NOT_INIT);
    EXPECT_ERR(shoal_rma_bcast_wait(&req), SHOAL_ERR_NOT_INIT);
    EXPECT_ERR(shoal_rma_bcast_arrived(gp, 1, &flag), SHOAL_ERR_NOT_INIT);
    EXPECT_ERR(shoal_rma_bcast_wait_arrival(gp, 1), SHOAL_ERR_NOT_INIT);
    return t_failures != before;
}

static double t_phase;
static void phase_done(const char *name) {
    if (t_me == 0 && getenv("RB_TIMES")) printf("  %-20s %.3f s\n", name, test_now() - t_phase);
    t_phase = test_now();
}

int main(int argc, char **argv) {
    test_begin_thread(&argc, &argv, SHOAL_THREAD_MULTIPLE, &t_provided);
    REQUIRE(t_np <= MAXU, "at most %d units", MAXU);
    t_phase = test_now();
    /* Who reaches whom through MPI, as every unit sees it. */
    unsigned char row[MAXU] = {0};
    for (int32_t u = 0; u < t_np; u++) {
        shoal_mechanism_t m;
        CHECK_OK(shoal_peer_mechanism(u, &m));
        row[u] = m == SHOAL_MECH_MPI;
    }
    MPI_Allgather(row, t_np, MPI_UNSIGNED_CHAR, t_mpi_pair, t_np, MPI_UNSIGNED_CHAR,
                  MPI_COMM_WORLD);
    for (int i = 0; i < t_np * t_np; i++) t_slow |= t_mpi_pair[i];
    const size_t maxn = RB_WIDE ? 65536 + 5 : t_slow ? ((size_t)256 << 10) + 3 : MAXN;
    t_base = malloc(maxn + SPAN);
    REQUIRE(t_base, "out of memory");
    fill_pattern(t_base, maxn + SPAN, 7, 0, 0);
    if (t_me == 0)
        printf("%s: %d units, thread level %d, %s\n",
               RB_WIDE ? "test_rma_bcast_wide" : "test_rma_bcast", (int)t_np, t_provided,
               t_slow ? "some pairs through MPI" : "all direct");
    phase_done("set-up");

#if RB_WIDE
    /* Sub-teams of 7 and 2 scattered units from one split, side by side (the direct path only:
     * at 9 units on 2 cores every collective window creation of the MPI path takes seconds);
     * first, middle and last roots, two sizes. */
    static const int colours[9] = {0, 0, 1, 0, 0, 0, 1, 0, 0};
    const size_t small[] = {777, 16384 + 1};
    REQUIRE(t_np == 9, "test_rma_bcast_wide runs at 9 units");
    if (!t_slow) {
        rteam_t tm;
        team_split(&tm, colours[t_me]);
        sweep_team(&tm, small, 2, 1, "split team");
        team_free(&tm);
    }
#else
    /* A sub-team from a group: every unit but unit 0 (sizes 1-3 at 2-4 units: not a prefix, not
     * always a power of two), every root, three sizes. */
    const size_t small[] = {777, 1, 16384 + 1}; /* the first two where MPI carries data */
    if (t_np > 1) {
        rteam_t tm;
        team_ring(&tm, 1, t_np - 1);
        sweep_team(&tm, small, t_slow ? 2 : 3, 0, "sub-team");
        team_free(&tm);
    }
#endif
    phase_done("sub-teams");

    /* The full team: two allocations for the rest (one at 9 units). */
#if RB_WIDE
    const size_t sz[] = {4097, 1, 65536 + 5};
    const int nsizes = t_slow ? 1 : 3, sparse = t_slow, full = 0;
#else
    const size_t sizes[] = {1, 3, 8, 100, 4097, 65536 + 5, ((size_t)1 << 20) + 3, MAXN};
    const size_t sizes_slow[] = {1, 4097, ((size_t)256 << 10) + 3};
    const size_t *sz = t_slow ? sizes_slow : sizes;
    const int nsizes = t_slow ? 3 : 8, sparse = 0, full = 1;
#endif
    const size_t fly = maxn / 4 + 1; /* the size in flight */
    const size_t cap = maxn + 4096 * (size_t)(t_np + 2);
    rteam_t all;
    team_make(&all, (shoal_unit_t[]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, t_np);
    shoal_gptr_t X, B;
    uint8_t *mx, *mb;
    uint64_t sx = 0, sb = 0;
    int xreg = rb_alloc(&all, cap, &X, &mx, "full team"), breg = 0;
    if (xreg) {
        if (full) breg = rb_alloc(&all, cap, &B, &mb, "full team");
        sweep_on(&all, X, mx, sz, nsizes, sparse, &sx, "full team");
        phase_done("full sweep");
        compute_phase(&all, X, mx, fly, cap - 64, &sx, "full team");
        phase_done("compute");
        /* Fewer where MPI carries data (each relay hop waits for a poll). */
        const int k = RB_WIDE || t_slow ? 12 : 100, b = RB_WIDE || t_slow ? 4 : 20;
        back_to_back(&all, X, mx, k, b, &sx, "full team");
        phase_done("back-to-back");
        if (breg) {
            in_flight(&all, X, mx, &sx, B, mb, &sb, fly, "full team");
            end_in_flight(&all, B, mb, sb, fly, 0, "full team");
            phase_done("in flight");
        }
    }
    if (full) { /* B now allocated but unregistered, or never allocated */
        if (!breg) REQUIRE_OK(shoal_team_memalloc(all.team, 64, &B));
        if (!xreg) {
            REQUIRE_OK(shoal_team_memalloc(all.team, cap, &X));
            void *p = NULL;
            REQUIRE_OK(shoal_gptr_getaddr(X, &p));
            mx = p;
        }
        bad_input(&all, X, mx, cap, xreg, &sx, B);
        phase_done("bad input");
    }

    /* For the calls after finalize: an open request (finalize drops it) on X; X freed with a
     * broadcast in flight. */
    shoal_rma_bcast_t open = SHOAL_RMA_BCAST_NULL;
    if (xreg) {
        if (t_me == 0)
            CHECK_OK(shoal_rma_bcast(X, pat(sx + 1, 0), 64, SHOAL_RMA_BCAST_AUTO, &open, NULL));
        CHECK_OK(shoal_rma_bcast_wait_arrival(X, sx + 1));
        end_in_flight(&all, X, mx, sx + 1, fly, 1, "full team");
    } else if (full) {
        CHECK_OK(shoal_team_memfree(X));
    }
    free(t_base);
    int rc = test_end(RB_WIDE ? "test_rma_bcast_wide" : "test_rma_bcast");
    if (after_finalize(X, open)) {
        printf("unit %d: FAILED after shoal_finalize\n", (int)t_me);
        rc = 1;
    }
    return rc;
}
