/* Non-blocking put/get: 64 operations in flight to every unit, completed by each of wait, waitall,
 * test and testall; remote completion by shoal_flush and shoal_flush_all (checked by the target
 * after a plain MPI_Barrier, which completes nothing of Shoal's); a deep queue of 512 small puts.
 * Every byte is checked, and every handle must be NULL once completed. */
#include "testlib.h"

#define NH        64    /* operations in flight per phase */
#define SLOT      32768 /* bytes per (source, k) slot in each unit's part */
#define DEEP      512   /* puts in the deep-queue phase */
#define DEEP_SLOT 16    /* bytes per deep slot */

static const size_t op_sizes[] = {1, 8, 100, 0, 1000, 4097, 30000};
#define NOPSIZES (sizeof op_sizes / sizeof op_sizes[0])

typedef enum { BY_WAIT, BY_WAITALL, BY_TEST, BY_TESTALL } how_t;
static const char *how_name[] = {"wait", "waitall", "test", "testall"};

static uint8_t *src_area, *dst_area;

static size_t op_size(int k) {
    return op_sizes[(size_t)k % NOPSIZES];
}
static size_t op_off(int k) {
    return (size_t)k % 8;
}
/* Operation k of unit s goes to unit target(s, k): every unit, myself included. */
static shoal_unit_t target(shoal_unit_t s, int k) {
    return (s + 1 + k) % t_np;
}
/* Where operation k of unit s lands in its target's part. */
static size_t slot_pos(shoal_unit_t s, int k) {
    return ((size_t)s * NH + (size_t)k) * SLOT + op_off(k);
}
static uint64_t op_first(int k) {
    return (uint64_t)k * SLOT;
} /* pattern index of op k's data */

/* Once the SHOAL_HANDLE_NULL promise applies: the direct path completes everything at once. */
static void check_immediate(shoal_handle_t h, shoal_unit_t t, const char *what) {
    if (test_direct() && test_same_node(t))
        CHECK(h == SHOAL_HANDLE_NULL, "%s to same-node unit %d on the direct path: handle not NULL",
              what, (int)t);
}

static void issue_puts(shoal_gptr_t base, uint64_t seed, shoal_handle_t *h) {
    for (int k = 0; k < NH; k++) {
        const shoal_unit_t t = target(t_me, k);
        uint8_t *src = src_area + (size_t)k * SLOT;
        fill_pattern(src, op_size(k), seed, t_me, op_first(k));
        h[k] = (shoal_handle_t)&h[k]; /* garbage that must be replaced */
        shoal_gptr_t gp = shoal_gptr_add(shoal_gptr_setunit(base, t), (int64_t)slot_pos(t_me, k));
        CHECK_OK(shoal_put_nb(gp, src, op_size(k), &h[k]));
        check_immediate(h[k], t, "put_nb");
    }
}

/* Gets operation k of unit (me + k) % np back from where it landed. */
static void issue_gets(shoal_gptr_t base, shoal_handle_t *h) {
    memset(dst_area, 0xEE, (size_t)NH * SLOT);
    for (int k = 0; k < NH; k++) {
        const shoal_unit_t s = (t_me + k) % t_np, t = target(s, k);
        h[k] = (shoal_handle_t)&h[k];
        shoal_gptr_t gp = shoal_gptr_add(shoal_gptr_setunit(base, t), (int64_t)slot_pos(s, k));
        CHECK_OK(shoal_get_nb(dst_area + (size_t)k * SLOT, gp, op_size(k), &h[k]));
        check_immediate(h[k], t, "get_nb");
    }
}

static void check_gets(uint64_t seed, const char *phase) {
    for (int k = 0; k < NH; k++) {
        const shoal_unit_t s = (t_me + k) % t_np;
        const uint8_t *d = dst_area + (size_t)k * SLOT;
        char what[256];
        snprintf(what, sizeof what, "%s: get_nb %d (%zu bytes of unit %d's data from unit %d)",
                 phase, k, op_size(k), (int)s, (int)target(s, k));
        CHECK_PATTERN(d, op_size(k), seed, s, op_first(k), what);
        CHECK(d[op_size(k)] == 0xEE, "%s: get_nb %d wrote past its end", phase, k);
    }
}

/* The puts that landed in my part (from every unit) hold their data. */
static void check_mine(const uint8_t *mine, uint64_t seed, const char *phase) {
    for (shoal_unit_t s = 0; s < t_np; s++) {
        for (int k = 0; k < NH; k++) {
            if (target(s, k) != t_me) continue;
            char what[256];
            snprintf(what, sizeof what, "%s: my memory, put_nb %d of unit %d (%zu bytes)", phase, k,
                     (int)s, op_size(k));
            CHECK_PATTERN(mine + slot_pos(s, k), op_size(k), seed, s, op_first(k), what);
        }
    }
}

/* Drives one handle to completion with shoal_test; returns 1 when done (or on error). */
static int test_one(shoal_handle_t *h) {
    int done = -1;
    if (!CHECK_OK(shoal_test(h, &done))) return 1;
    CHECK(done == 0 || done == 1, "shoal_test set done to %d", done);
    return done != 0;
}

static int test_every(shoal_handle_t *h, size_t n) {
    int done = -1;
    if (!CHECK_OK(shoal_testall(h, n, &done))) return 1;
    CHECK(done == 0 || done == 1, "shoal_testall set all_done to %d", done);
    return done != 0;
}

static void complete(shoal_handle_t *h, how_t how, const char *phase) {
    switch (how) {
    case BY_WAIT:
        for (int k = 0; k < NH; k++) {
            CHECK_OK(shoal_wait(&h[k]));
            CHECK(h[k] == SHOAL_HANDLE_NULL, "%s: handle %d not NULL after wait", phase, k);
            CHECK_OK(shoal_wait(&h[k])); /* waiting on a NULL handle is fine */
        }
        break;
    case BY_WAITALL:
        CHECK_OK(shoal_waitall(h, NH));
        CHECK_OK(shoal_waitall(h, NH)); /* all NULL now: fine */
        break;
    case BY_TEST: /* last issued first, to complete them out of order */
        for (int k = NH - 1; k >= 0; k--) {
            SPIN_UNTIL(test_one(&h[k]), 60);
            int done = 0;
            CHECK_OK(shoal_test(&h[k], &done)); /* a NULL handle tests as done */
            CHECK(done == 1, "%s: shoal_test on a completed (NULL) handle gave done=%d", phase,
                  done);
        }
        break;
    case BY_TESTALL:
        SPIN_UNTIL(test_every(h, NH), 60);
        break;
    }
    for (int k = 0; k < NH; k++)
        CHECK(h[k] == SHOAL_HANDLE_NULL, "%s: handle %d not NULL after completion", phase, k);
}

/* Puts completed by one method, read back with blocking gets by the issuer and checked by the
 * targets after a barrier; then gets completed by the same method. */
static void completion_phase(shoal_gptr_t base, const uint8_t *mine, how_t how, uint64_t seed) {
    shoal_handle_t h[NH];
    char phase[96];
    snprintf(phase, sizeof phase, "put_nb + %s", how_name[how]);
    issue_puts(base, seed, h);
    complete(h, how, phase);
    /* Complete means in the target memory: read it back. */
    for (int k = 0; k < NH; k += 5) {
        const shoal_unit_t t = target(t_me, k);
        char what[256];
        CHECK_OK(shoal_get(dst_area,
                           shoal_gptr_add(shoal_gptr_setunit(base, t), (int64_t)slot_pos(t_me, k)),
                           op_size(k)));
        snprintf(what, sizeof what, "%s: read back put_nb %d from unit %d", phase, k, (int)t);
        CHECK_PATTERN(dst_area, op_size(k), seed, t_me, op_first(k), what);
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    check_mine(mine, seed, phase);

    snprintf(phase, sizeof phase, "get_nb + %s", how_name[how]);
    issue_gets(base, h);
    complete(h, how, phase);
    check_gets(seed, phase);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL)); /* before the next phase overwrites the slots */
}

/* Puts from one shared source buffer, completed remotely by flush (per target) or flush_all. The
 * targets check after MPI_Barrier, which completes no Shoal operation: only the flush can have. */
static void flush_phase(shoal_gptr_t base, const uint8_t *mine, int all, uint64_t seed) {
    shoal_handle_t h[NH];
    const char *phase = all ? "put_nb + flush_all" : "put_nb + flush";
    fill_pattern(src_area, SLOT, seed, t_me, 0);
    for (int k = 0; k < NH; k++) {
        const shoal_unit_t t = target(t_me, k);
        shoal_gptr_t gp = shoal_gptr_add(shoal_gptr_setunit(base, t), (int64_t)slot_pos(t_me, k));
        CHECK_OK(shoal_put_nb(gp, src_area + op_off(k), op_size(k), &h[k]));
    }
    if (all) {
        CHECK_OK(shoal_flush_all());
    } else {
        for (shoal_unit_t t = 0; t < t_np; t++) CHECK_OK(shoal_flush(shoal_gptr_setunit(base, t)));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (shoal_unit_t s = 0; s < t_np; s++) {
        for (int k = 0; k < NH; k++) {
            if (target(s, k) != t_me) continue;
            char what[256];
            snprintf(what, sizeof what, "%s: my memory, put_nb %d of unit %d (%zu bytes)", phase, k,
                     (int)s, op_size(k));
            CHECK_PATTERN(mine + slot_pos(s, k), op_size(k), seed, s, op_off(k), what);
        }
    }
    CHECK_OK(shoal_waitall(h, NH)); /* releases the handles */
    for (int k = 0; k < NH; k++)
        CHECK(h[k] == SHOAL_HANDLE_NULL, "%s: handle %d not NULL after waitall", phase, k);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
}

/* A deep queue: DEEP small puts spread over every unit, then one waitall. */
static void deep_phase(shoal_gptr_t base, const uint8_t *mine, uint64_t seed) {
    const size_t deep_base = (size_t)t_np * NH * SLOT;
    shoal_handle_t *h = malloc(DEEP * sizeof *h);
    fill_pattern(src_area, (size_t)DEEP * DEEP_SLOT, seed, t_me, 0);
    for (int i = 0; i < DEEP; i++) {
        const shoal_unit_t t = (t_me + i) % t_np;
        const size_t pos = deep_base + ((size_t)t_me * DEEP + (size_t)i) * DEEP_SLOT;
        CHECK_OK(shoal_put_nb(shoal_gptr_add(shoal_gptr_setunit(base, t), (int64_t)pos),
                              src_area + (size_t)i * DEEP_SLOT, DEEP_SLOT, &h[i]));
    }
    CHECK_OK(shoal_waitall(h, DEEP));
    for (int i = 0; i < DEEP; i++)
        CHECK(h[i] == SHOAL_HANDLE_NULL, "deep: handle %d not NULL after waitall", i);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    for (shoal_unit_t s = 0; s < t_np; s++) {
        for (int i = 0; i < DEEP; i++) {
            if ((s + i) % t_np != t_me) continue;
            char what[256];
            snprintf(what, sizeof what, "deep: my memory, put_nb %d of unit %d", i, (int)s);
            CHECK_PATTERN(mine + deep_base + ((size_t)s * DEEP + (size_t)i) * DEEP_SLOT, DEEP_SLOT,
                          seed, s, (uint64_t)i * DEEP_SLOT, what);
        }
    }
    free(h);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
}

/* Handles that outlive their allocation: puts to every unit of a second allocation, which is
 * freed before they are waited for (the free completes them; wait then only releases them, and
 * their copies are stale afterwards). Returns how many handles were live at the free. */
static int outlived_phase(void) {
    shoal_gptr_t extra = SHOAL_GPTR_NULL;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &extra));
    shoal_handle_t h[NH], copies[NH];
    uint64_t v = 7;
    int live = 0;
    for (int k = 0; k < NH; k++) {
        h[k] = SHOAL_HANDLE_NULL;
        CHECK_OK(shoal_put_nb(
            shoal_gptr_setunit(shoal_gptr_add(extra, 8 * (k % 64)), (shoal_unit_t)(k % t_np)), &v,
            8, &h[k]));
        copies[k] = h[k];
        live += h[k] != SHOAL_HANDLE_NULL;
    }
    CHECK_OK(shoal_team_memfree(extra));
    for (int k = 0; k < NH; k++) {
        if (k % 2)
            CHECK_OK(shoal_wait(&h[k]));
        else
            CHECK(test_one(&h[k]), "handle %d of a freed allocation not done at its first test", k);
        CHECK(h[k] == SHOAL_HANDLE_NULL, "handle %d not NULL once completed", k);
        if (copies[k]) CHECK(shoal_wait(&copies[k]) == SHOAL_ERR_HANDLE, "stale copy %d taken", k);
    }
    return live;
}

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    double t0 = test_now();
    src_area = malloc((size_t)NH * SLOT);
    dst_area = malloc((size_t)NH * SLOT);

    /* Waiting on and testing a NULL handle are fine. */
    shoal_handle_t none = SHOAL_HANDLE_NULL;
    int done = 0;
    CHECK_OK(shoal_wait(&none));
    CHECK_OK(shoal_test(&none, &done));
    CHECK(done == 1, "shoal_test on SHOAL_HANDLE_NULL gave done=%d", done);
    CHECK_OK(shoal_waitall(&none, 1));

    const size_t part = (size_t)t_np * NH * SLOT + (size_t)t_np * DEEP * DEEP_SLOT;
    shoal_gptr_t base = SHOAL_GPTR_NULL;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, part, &base));
    void *addr = NULL;
    CHECK_OK(shoal_gptr_getaddr(base, &addr));
    REQUIRE(addr != NULL, "no address for my part");
    const uint8_t *mine = addr;

    uint64_t seed = 100;
    for (int rep = 0; rep < 2; rep++)
        for (how_t how = BY_WAIT; how <= BY_TESTALL; how++)
            completion_phase(base, mine, how, seed++);
    flush_phase(base, mine, 0, seed++);
    flush_phase(base, mine, 1, seed++);
    deep_phase(base, mine, seed++);
    int outlived = outlived_phase();

    /* Handles never waited for: finalize completes them (test_end checks they landed: the target
     * reads the word after its own finalize-like barrier below). */
    shoal_handle_t left = SHOAL_HANDLE_NULL;
    const uint64_t last = 0x1eff;
    CHECK_OK(shoal_put_nb(shoal_gptr_setunit(base, (t_me + 1) % t_np), &last, 8, &left));
    CHECK_OK(shoal_flush_all()); /* remote completion; the handle itself stays live */
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK(*(const volatile uint64_t *)mine == last, "the unwaited put did not land: %#llx",
          (unsigned long long)*(const volatile uint64_t *)mine);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));

    CHECK_OK(shoal_team_memfree(base));
    free(src_area);
    free(dst_area);
    if (t_me == 0 && getenv("TEST_VERBOSE"))
        printf("test_nonblocking: %.2f s at np %d, %d handles outlived their allocation, "
               "one left for finalize: %s\n",
               test_now() - t0, (int)t_np, outlived, left ? "live" : "none (direct path)");
    return test_end("test_nonblocking");
}
