/* Put-with-signal and signal words. Two producer/consumer rings (signal ADD, and signal SET with
 * data and signal in one segment): each round's data differs, the receiver checks it in its own
 * memory as soon as it sees the signal (data before signal), and acknowledges so the sender never
 * overwrites early. Then every comparison of shoal_signal_wait_until (unsigned 64-bit, both
 * immediately true and true only later), shoal_signal_read, SET and ADD (with wrap-around), many
 * units signalling one, and put_signal with the signal on another unit than the data (an error,
 * moving nothing). */
#include "testlib.h"

#define MAXDATA   (65536 + 7)
#define DATA_AREA (MAXDATA + 64) /* one ring's data area in each part */
#define SLICE     1000           /* bytes per unit in the many-to-one area */
#define ERR_AREA  256

/* Signal words (8 bytes each, 64 apart) in the signal segment. */
enum { S_ADD, S_ADD_ACK, S_SET, S_SET_ACK, S_CMP, S_WRAP, S_MANY, S_MANY_ACK, S_ERR, S_WORDS };
#define SIGW(i) ((size_t)(i)*64)

static shoal_gptr_t data_seg; /* ADD ring data, many-to-one area, error area */
static shoal_gptr_t sig_seg;  /* signal words of everything but the SET ring */
static shoal_gptr_t set_seg;  /* the SET ring: data area, then its two signal words */
static uint8_t *data_mine, *set_mine;
static uint8_t *src;

static shoal_gptr_t sig_word(shoal_unit_t u, int w) {
    return shoal_gptr_add(shoal_gptr_setunit(sig_seg, u), (int64_t)SIGW(w));
}
#define SET_WORDS ((DATA_AREA + 63) / 64 * 64) /* the SET ring's signal words, after its data */
static shoal_gptr_t set_word(shoal_unit_t u, int which) { /* 0: signal, 1: ack */
    return shoal_gptr_add(shoal_gptr_setunit(set_seg, u), SET_WORDS + 64 * which);
}

static const size_t ring_sizes[] = {8, 1, 333, 4096, MAXDATA};
static size_t ring_size(int r) {
    return ring_sizes[r % 5];
}
static size_t ring_off(int r) {
    return (size_t)r % 8;
}

static uint64_t read_sig(shoal_gptr_t gp) {
    uint64_t v = 0xDEADBEEF;
    CHECK_OK(shoal_signal_read(gp, &v));
    return v;
}

/* ADD ring: round r's data goes right with signal +1; the right neighbour acknowledges with +1
 * on my ack word. SET ring: the same with the signal and the ack set to r + 1. */
static int ring(int full, int set) {
    const shoal_unit_t right = test_right(), left = test_left();
    const char *name = set ? "SET ring" : "ADD ring";
    const shoal_gptr_t my_sig = set ? set_word(t_me, 0) : sig_word(t_me, S_ADD);
    const shoal_gptr_t my_ack = set ? set_word(t_me, 1) : sig_word(t_me, S_ADD_ACK);
    const shoal_gptr_t right_sig = set ? set_word(right, 0) : sig_word(right, S_ADD);
    const shoal_gptr_t left_ack = set ? set_word(left, 1) : sig_word(left, S_ADD_ACK);
    const shoal_gptr_t right_data = shoal_gptr_setunit(set ? set_seg : data_seg, right);
    const uint8_t *mine = set ? set_mine : data_mine;
    const uint64_t seed0 = set ? 70000 : 60000;
    int bad = 0, rounds = full;
    const double t = test_now();

    for (int r = 0; r < rounds; r++) {
        if (r == 10 && full > 30 && !getenv("TEST_ITERS")) /* ten rounds set the pace */
            rounds = 10 + test_scale((test_now() - t) / 10, 1.0, 20, full - 10);
        const size_t n = ring_size(r), off = ring_off(r);
        uint64_t seen = 0;
        /* Send, once the receiver has consumed round r - 1. */
        if (set)
            CHECK_OK(shoal_signal_wait_until(my_ack, SHOAL_CMP_EQ, (uint64_t)r, NULL));
        else
            CHECK_OK(shoal_signal_wait_until(my_ack, SHOAL_CMP_GE, (uint64_t)r, NULL));
        fill_pattern(src, n, seed0 + (uint64_t)r, t_me, 0);
        CHECK_OK(shoal_put_signal(shoal_gptr_add(right_data, (int64_t)off), src, n, right_sig,
                                  set ? (uint64_t)r + 1 : 1,
                                  set ? SHOAL_SIGNAL_SET : SHOAL_SIGNAL_ADD));
        /* Receive round r: once the signal says so, the data is there. */
        CHECK_OK(shoal_signal_wait_until(my_sig, set ? SHOAL_CMP_EQ : SHOAL_CMP_GE, (uint64_t)r + 1,
                                         &seen));
        if (bad < 3) { /* keep going after failures (the others need my acks), quietly */
            if (!CHECK(seen == (uint64_t)r + 1, "%s round %d: signal %llu, expected %d", name, r,
                       (unsigned long long)seen, r + 1))
                bad++;
            char what[256];
            snprintf(what, sizeof what, "%s round %d: %zu bytes from unit %d after its signal",
                     name, r, n, (int)left);
            if (!CHECK_PATTERN(mine + off, n, seed0 + (uint64_t)r, left, 0, what)) bad++;
        }
        CHECK_OK(shoal_signal(left_ack, set ? (uint64_t)r + 1 : 1,
                              set ? SHOAL_SIGNAL_SET : SHOAL_SIGNAL_ADD));
    }
    CHECK_OK(shoal_signal_wait_until(my_ack, SHOAL_CMP_GE, (uint64_t)rounds, NULL));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    if (!bad) {
        CHECK(read_sig(my_sig) == (uint64_t)rounds, "%s: my signal word reads %llu, expected %d",
              name, (unsigned long long)read_sig(my_sig), rounds);
        CHECK(read_sig(my_ack) == (uint64_t)rounds, "%s: my ack word reads %llu, expected %d", name,
              (unsigned long long)read_sig(my_ack), rounds);
    }
    return rounds;
}

static int holds(shoal_cmp_t c, uint64_t v, uint64_t t) {
    switch (c) {
    case SHOAL_CMP_EQ:
        return v == t;
    case SHOAL_CMP_NE:
        return v != t;
    case SHOAL_CMP_GT:
        return v > t;
    case SHOAL_CMP_GE:
        return v >= t;
    case SHOAL_CMP_LT:
        return v < t;
    case SHOAL_CMP_LE:
        return v <= t;
    }
    return 0;
}
static const char *cmp_name[] = {"EQ", "NE", "GT", "GE", "LT", "LE"};

/* For each comparison: the word first holds x (which fails it), then, a little later, y. Values
 * above 2^63 make sure the comparison is unsigned. Unit 0 sets every unit's word. */
static void comparisons(void) {
    const uint64_t H = 1ull << 63;
    static struct {
        shoal_cmp_t cmp;
        uint64_t target, x, y;
    } cases[] = {
        {SHOAL_CMP_EQ, 1000, 999, 1000}, {SHOAL_CMP_NE, 5, 5, 6},  {SHOAL_CMP_GT, 0, 0, 0},
        {SHOAL_CMP_GE, 0, 0, 0},         {SHOAL_CMP_LT, 10, 0, 9}, {SHOAL_CMP_LE, 10, 11, 10},
    };
    cases[2].target = H, cases[2].x = H >> 1, cases[2].y = H + 1; /* GT */
    cases[3].target = H, cases[3].x = H - 1, cases[3].y = H;      /* GE */
    cases[4].x = H + 10;                                          /* LT: not as signed */
    const shoal_gptr_t mine = sig_word(t_me, S_CMP);

    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const shoal_cmp_t cmp = cases[c].cmp;
        const uint64_t x = cases[c].x, y = cases[c].y, target = cases[c].target;
        if (t_me == 0)
            for (shoal_unit_t u = 0; u < t_np; u++)
                CHECK_OK(shoal_signal(sig_word(u, S_CMP), x, SHOAL_SIGNAL_SET));
        CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
        CHECK(read_sig(mine) == x, "CMP_%s case: word reads 0x%llx after SET 0x%llx", cmp_name[cmp],
              (unsigned long long)read_sig(mine), (unsigned long long)x);

        /* Every comparison that holds for x returns at once, reporting x. */
        const uint64_t probes[6] = {x, x + 1, x - 1, x, x + 1, x};
        for (shoal_cmp_t k = SHOAL_CMP_EQ; k <= SHOAL_CMP_LE; k++) {
            uint64_t seen = 0;
            if (!holds(k, x, probes[k])) continue;
            CHECK_OK(shoal_signal_wait_until(mine, k, probes[k], &seen));
            CHECK(seen == x, "wait_until(CMP_%s, 0x%llx) on 0x%llx reported 0x%llx", cmp_name[k],
                  (unsigned long long)probes[k], (unsigned long long)x, (unsigned long long)seen);
        }

        CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL)); /* everyone has seen x */

        /* The real case: holds only once y arrives. */
        if (t_me == 0) {
            usleep(2000);
            for (shoal_unit_t u = t_np - 1; u >= 0; u--)
                CHECK_OK(shoal_signal(sig_word(u, S_CMP), y, SHOAL_SIGNAL_SET));
        }
        uint64_t seen = 0;
        CHECK_OK(shoal_signal_wait_until(mine, cmp, target, &seen));
        CHECK(seen == y && holds(cmp, seen, target),
              "wait_until(CMP_%s, 0x%llx) returned with 0x%llx, expected 0x%llx", cmp_name[cmp],
              (unsigned long long)target, (unsigned long long)seen, (unsigned long long)y);
        CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    }
}

/* SET then ADD past 2^64 wraps; ADDs from every unit to one word all count. */
static void set_add(int n) {
    const shoal_gptr_t wrap = sig_word(test_right(), S_WRAP);
    CHECK_OK(shoal_signal(wrap, ~0ull - 1, SHOAL_SIGNAL_SET));
    CHECK_OK(shoal_signal(wrap, 3, SHOAL_SIGNAL_ADD));
    if (t_me == 0) CHECK_OK(shoal_signal(sig_word(0, S_MANY), 0, SHOAL_SIGNAL_SET));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK(read_sig(sig_word(t_me, S_WRAP)) == 1, "SET 2^64-2 then ADD 3 reads %llu, expected 1",
          (unsigned long long)read_sig(sig_word(t_me, S_WRAP)));
    for (int i = 0; i < n; i++)
        CHECK_OK(shoal_signal(sig_word(0, S_MANY), (uint64_t)t_me + 1, SHOAL_SIGNAL_ADD));
    if (t_me == 0) {
        const uint64_t total = (uint64_t)n * (uint64_t)t_np * (uint64_t)(t_np + 1) / 2;
        uint64_t seen = 0;
        CHECK_OK(shoal_signal_wait_until(sig_word(0, S_MANY), SHOAL_CMP_GE, total, &seen));
        CHECK(seen == total, "ADDs from every unit: %llu, expected %llu", (unsigned long long)seen,
              (unsigned long long)total);
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
}

/* Every unit put_signals its slice into unit 0's area, adding 1 to unit 0's word; unit 0 waits
 * for all of a round, checks every slice, and releases the next round with a SET. */
static void many_to_one(int rounds) {
    const shoal_gptr_t count = sig_word(0, S_MANY);
    const size_t area = 2 * DATA_AREA;
    if (t_me == 0) CHECK_OK(shoal_signal(count, 0, SHOAL_SIGNAL_SET));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    for (int r = 0; r < rounds; r++) {
        CHECK_OK(
            shoal_signal_wait_until(sig_word(t_me, S_MANY_ACK), SHOAL_CMP_GE, (uint64_t)r, NULL));
        const size_t n = SLICE - (size_t)r % 7;
        fill_pattern(src, n, 80000 + (uint64_t)r, t_me, 0);
        CHECK_OK(shoal_put_signal(
            shoal_gptr_add(shoal_gptr_setunit(data_seg, 0), (int64_t)(area + (size_t)t_me * SLICE)),
            src, n, count, 1, SHOAL_SIGNAL_ADD));
        if (t_me == 0) {
            uint64_t seen = 0;
            const uint64_t want = (uint64_t)(r + 1) * (uint64_t)t_np;
            CHECK_OK(shoal_signal_wait_until(count, SHOAL_CMP_GE, want, &seen));
            CHECK(seen == want, "many-to-one round %d: count %llu, expected %llu", r,
                  (unsigned long long)seen, (unsigned long long)want);
            for (shoal_unit_t u = 0; u < t_np; u++) {
                char what[256];
                snprintf(what, sizeof what, "many-to-one round %d: slice of unit %d", r, (int)u);
                CHECK_PATTERN(data_mine + area + (size_t)u * SLICE, n, 80000 + (uint64_t)r, u, 0,
                              what);
            }
            for (shoal_unit_t u = 0; u < t_np; u++)
                CHECK_OK(shoal_signal(sig_word(u, S_MANY_ACK), (uint64_t)r + 1, SHOAL_SIGNAL_SET));
        }
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
}

/* The signal word must be on the data's unit: otherwise an error and nothing moves. */
static void signal_elsewhere(void) {
    if (t_np < 2) return;
    const size_t pos = 2 * DATA_AREA + (size_t)t_np * SLICE;
    const shoal_gptr_t dest =
        shoal_gptr_add(shoal_gptr_setunit(data_seg, test_right()), (int64_t)pos);
    uint8_t before[ERR_AREA], after[ERR_AREA];
    fill_pattern(before, ERR_AREA, 90000, t_me, 0);
    CHECK_OK(shoal_put(dest, before, ERR_AREA));
    CHECK_OK(shoal_signal(sig_word(t_me, S_ERR), 5, SHOAL_SIGNAL_SET));
    fill_pattern(src, ERR_AREA, 90001, t_me, 0);
    for (int op = 0; op < 2; op++) {
        shoal_err_t e = shoal_put_signal(dest, src, ERR_AREA, sig_word(t_me, S_ERR), 7,
                                         op ? SHOAL_SIGNAL_SET : SHOAL_SIGNAL_ADD);
        CHECK(e != SHOAL_OK, "put_signal to unit %d with the signal on unit %d succeeded",
              (int)test_right(), (int)t_me);
        if (e != SHOAL_OK && e != SHOAL_ERR_INVAL)
            fprintf(stderr, "unit %d: note: put_signal with the signal elsewhere gave %s\n",
                    (int)t_me, shoal_strerror(e));
    }
    CHECK_OK(shoal_get(after, dest, ERR_AREA));
    CHECK(memcmp(before, after, ERR_AREA) == 0,
          "a put_signal that failed (signal on another unit) changed the data");
    CHECK(read_sig(sig_word(t_me, S_ERR)) == 5,
          "a put_signal that failed (signal on another unit) changed the signal: %llu",
          (unsigned long long)read_sig(sig_word(t_me, S_ERR)));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
}

static uint8_t *local(shoal_gptr_t gp) {
    void *a = NULL;
    CHECK_OK(shoal_gptr_getaddr(gp, &a));
    REQUIRE(a != NULL, "no address for my part");
    return a;
}

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    double t0 = test_now();
    const char *env = getenv("TEST_ITERS");
    const int rounds = env && *env ? atoi(env) : t_np <= 2 ? 500 : 200;
    src = malloc(MAXDATA);

    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 2 * DATA_AREA + (size_t)t_np * SLICE + ERR_AREA,
                                   &data_seg));
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, SIGW(S_WORDS), &sig_seg));
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, SET_WORDS + 128, &set_seg));
    data_mine = local(data_seg);
    set_mine = local(set_seg);
    /* Fresh allocations are not promised to be zero: clear my signal words. */
    for (int w = 0; w < S_WORDS; w++)
        CHECK_OK(shoal_signal(sig_word(t_me, w), 0, SHOAL_SIGNAL_SET));
    CHECK_OK(shoal_signal(set_word(t_me, 0), 0, SHOAL_SIGNAL_SET));
    CHECK_OK(shoal_signal(set_word(t_me, 1), 0, SHOAL_SIGNAL_SET));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    const int add_rounds = ring(rounds, 0);
    const int set_rounds = ring(rounds, 1);
    double t1 = test_now();
    comparisons();
    set_add(add_rounds);
    many_to_one(add_rounds / 10 + 1);
    signal_elsewhere();

    CHECK_OK(shoal_team_memfree(set_seg));
    CHECK_OK(shoal_team_memfree(sig_seg));
    CHECK_OK(shoal_team_memfree(data_seg));
    free(src);
    if (t_me == 0 && getenv("TEST_VERBOSE"))
        printf("test_signal: %.2f s at np %d (rings of %d and %d rounds: %.2f s)\n",
               test_now() - t0, (int)t_np, add_rounds, set_rounds, t1 - t0);
    return test_end("test_signal");
}
