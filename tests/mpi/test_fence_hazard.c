/* The overtaking hazard of the fence paper's figure 2 (issue 8), under every design.
 *
 * In epoch k a random half of the units send: each puts three large buffers (1 MiB, 256 KiB + 3
 * and 512 KiB - 3, back to back: one region) of data of its own and of k, buffer b into region
 * k mod 2 of the unit 1 + b after it; so a unit receives from up to three origins, and a unit that
 * sent nothing has nothing to do in its fence but wait for the others' data. Then every unit
 * fences and checks what it received:
 *  - the moment fence k returns, the last bytes of every buffer (a copy writes them last), then
 *    every byte of region k mod 2: every operation of the closing epoch is complete at its target
 *    when the target's fence returns (data still in flight shows as the region's older data);
 *  - in epoch k, after its own puts and just before it calls fence k, region (k + 1) mod 2 still
 *    holds what epoch k - 1 left in it, every byte: nothing of epoch k + 1 has landed before this
 *    unit's fence k (nobody may write that region in epoch k, and an origin can issue epoch k + 1
 *    only after its own fence k), nor anything of epoch k - 1 late.
 * Neither check reads memory that the other units of a correct program may be writing, so both
 * hold exactly. In each epoch a random sender is late: it sleeps before it issues its puts, so
 * the others already wait in the fence while its data is in flight. One allocation on the team of
 * all units goes through every design (a NOSUCCEED fence, set_design, a NOPRECEDE fence to
 * reopen).
 *
 * With the fault SHOAL_EPOCH_TEST_SKIP_ORDERING=1 (each fence leaves out the step that orders the
 * epoch's operations before it returns) the deferred design fails here on both MPIs: the target
 * returns before the origins' data lands. The immediate designs are then the paper's figure 2 (a
 * barrier after the puts, nothing completing them) and still pass on this one machine: both MPIs
 * carry a put and the barrier after it through the same first-in first-out channel, so the barrier
 * never overtakes the data (even raw MPI_Put then MPI_Barrier never showed it; docs/fence.md), and
 * on the direct path the copy is done before the call returns. A multi-node run is where that half
 * of the hazard can show. TEST_HAZARD_EPOCHS=N sets the epochs per design; TEST_VERBOSE=1 prints
 * times and each design's failed checks. */
#define _GNU_SOURCE /* memmem, for a failure's diagnosis */
#include "testlib.h"

#define NBUF 3
static const size_t buf_size[NBUF] = {1u << 20, (256u << 10) + 3, (512u << 10) - 3};
static size_t buf_off[NBUF], region; /* buffers back to back in a region of `region` bytes */

#define SNAP 256 /* bytes of each buffer's end copied the moment a fence returns */

#define NOSTORE   SHOAL_EPOCH_NOSTORE
#define NOPRECEDE SHOAL_EPOCH_NOPRECEDE
#define NOSUCCEED SHOAL_EPOCH_NOSUCCEED

#define NDESIGNS 5
static const shoal_epoch_design_t designs[NDESIGNS] = {
    SHOAL_EPOCH_IMM_NOTIFY, SHOAL_EPOCH_IMM_BARRIER, SHOAL_EPOCH_IMM_NAIVE, SHOAL_EPOCH_DEFERRED,
    SHOAL_EPOCH_AUTO};

/* The data: byte i of what `unit` puts in epoch k is byte i of a word stream of (k, unit); cheap
 * enough to refill megabytes every epoch. Epochs -2 and -1 are the regions' initial contents. */
static uint64_t word_at(int64_t k, uint64_t unit, uint64_t w) {
    uint64_t x = (uint64_t)(k + 3) * 0x9E3779B97F4A7C15ull ^ (unit + 1) * 0xC2B2AE3D27D4EB4Full ^
                 (w + 1) * 0x165667B19E3779F9ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return x;
}
static uint8_t data_byte(int64_t k, uint64_t unit, size_t i) {
    return (uint8_t)(word_at(k, unit, i / 8) >> (8 * (i % 8)));
}
static void fill_data(uint8_t *buf, size_t n, int64_t k, uint64_t unit) {
    size_t w = 0;
    for (; 8 * w + 8 <= n; w++) {
        uint64_t x = word_at(k, unit, w);
        memcpy(buf + 8 * w, &x, 8);
    }
    for (size_t i = 8 * w; i < n; i++) buf[i] = data_byte(k, unit, i);
}

static int verbose;
static long design_failures[NDESIGNS];

/* Buffer b goes from every unit to the unit 1 + b after it, so each unit receives its three
 * buffers from three origins (fewer when there are fewer units; itself among them). */
static shoal_unit_t to_unit(int b) {
    return (shoal_unit_t)((t_me + 1 + b) % t_np);
}
static shoal_unit_t from_unit(int b) {
    return (shoal_unit_t)(((t_me - 1 - b) % t_np + t_np) % t_np);
}

/* My region after epoch k: buffer b is from_unit(b)'s data of epoch k when that unit sent in
 * epoch k (sends: a bit per unit), else what it was. */
static void update_want(uint8_t *want, int64_t k, uint64_t sends) {
    for (int b = 0; b < NBUF; b++) {
        const uint64_t u = (uint64_t)from_unit(b);
        if (!((sends >> u) & 1)) continue;
        uint8_t *w = want + buf_off[b];
        size_t i = 0;
        for (; i < buf_size[b] && (buf_off[b] + i) % 8; i++) w[i] = data_byte(k, u, buf_off[b] + i);
        for (; i + 8 <= buf_size[b]; i += 8) {
            uint64_t x = word_at(k, u, (buf_off[b] + i) / 8);
            memcpy(w + i, &x, 8);
        }
        for (; i < buf_size[b]; i++) w[i] = data_byte(k, u, buf_off[b] + i);
    }
}

/* Where the first wrong word of buffer b came from (a failure's diagnosis): the unit, epoch
 * (-2 .. k + 2) and region offset whose data it is, searched over the whole region at every
 * byte offset (a copy shifted by a few bytes still names its source); else its bytes. */
static void whence(const uint8_t *m, int b, size_t first, int64_t k) {
    size_t at = (buf_off[b] + first + 7) / 8 * 8; /* the first whole word at or after it */
    if (at + 8 > buf_off[b] + buf_size[b]) return;
    const uint8_t *got = m + (at - buf_off[b]);
    uint8_t *stream = malloc(region);
    if (!stream) return;
    for (int64_t e = -2; e <= k + 2; e++)
        for (uint64_t u = 0; u < (uint64_t)t_np; u++) {
            fill_data(stream, region, e, u);
            const uint8_t *hit = memmem(stream, region, got, 8);
            if (hit) {
                fprintf(stderr,
                        "unit %d:   its word at region offset %zu is unit %d's data of epoch %lld "
                        "for region offset %zu\n",
                        (int)t_me, at, (int)u, (long long)e, (size_t)(hit - stream));
                free(stream);
                return;
            }
        }
    free(stream);
    fprintf(stderr,
            "unit %d:   its word at region offset %zu is nobody's data of epochs %lld..%lld: "
            "bytes %02x %02x %02x %02x %02x %02x %02x %02x\n",
            (int)t_me, at, (long long)-2, (long long)(k + 2), got[0], got[1], got[2], got[3],
            got[4], got[5], got[6], got[7]);
}

/* mine (a region of my part) against want: one report per buffer that differs, with how many of
 * its wrong bytes hold the sender's data of epoch `other` (k - 2: the region's older data, not
 * arrived; k + 1: the next epoch's, come too early). */
static void check_region(const uint8_t *mine, const uint8_t *want, int64_t other,
                         const char *design, int64_t k, const char *when) {
    if (memcmp(mine, want, region) == 0) return;
    for (int b = 0; b < NBUF; b++) {
        const uint8_t *m = mine + buf_off[b], *w = want + buf_off[b];
        if (memcmp(m, w, buf_size[b]) == 0) continue;
        const uint64_t from = (uint64_t)from_unit(b);
        size_t bad = 0, hold = 0, first = 0;
        for (size_t i = 0; i < buf_size[b]; i++) {
            if (m[i] == w[i]) continue;
            if (!bad) first = i;
            bad++;
            hold += m[i] == data_byte(other, from, buf_off[b] + i);
        }
        test_report_(__FILE__, __LINE__,
                     "%s, epoch %lld, %s: buffer %d (%zu bytes) from unit %d: %zu bytes wrong, %zu "
                     "of them unit %d's data of epoch %lld; first at byte %zu",
                     design, (long long)k, when, b, buf_size[b], (int)from, bad, hold, (int)from,
                     (long long)other, first);
        whence(m, b, first, k);
    }
}

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    const double t0 = test_now();
    verbose = getenv("TEST_VERBOSE") != NULL;
    for (int b = 0; b < NBUF; b++) {
        buf_off[b] = region;
        region += buf_size[b];
    }
    uint8_t *src[2], *want[2];
    for (int i = 0; i < 2; i++) {
        src[i] = malloc(region);
        want[i] = malloc(region);
        REQUIRE(src[i] && want[i], "out of memory");
    }

    shoal_gptr_t gp;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 2 * region, &gp));
    void *a = NULL;
    CHECK_OK(shoal_gptr_getaddr(gp, &a));
    REQUIRE(a != NULL, "no address for my part");
    uint8_t *mine = a;
    /* Region r starts with everybody's data of "epoch r - 2". */
    for (int r = 0; r < 2; r++) {
        update_want(want[r], r - 2, ~0ull);
        memcpy(mine + (size_t)r * region, want[r], region);
    }

    /* Epochs per design: as many as fit about 0.6 s at this run's pace (the first two epochs
     * set it), at least 3. */
    const char *env = getenv("TEST_HAZARD_EPOCHS");
    int eps = env && *env ? atoi(env) : 12;
    const int fixed = env && *env;
    uint64_t rs = 12345;
    int64_t k = 0;
    double tk = 0;
    for (int di = 0; di < NDESIGNS; di++) {
        const char *dname = shoal_epoch_design_name(designs[di]);
        const long failures_before = t_failures;
        if (di > 0) CHECK_OK(shoal_epoch_fence(gp, NOPRECEDE | NOSUCCEED)); /* no epoch open */
        CHECK_OK(shoal_epoch_set_design(gp, designs[di]));
        CHECK_OK(shoal_epoch_fence(gp, di == 0 ? NOPRECEDE : NOPRECEDE | NOSTORE));
        for (int e = 0; e < eps; e++, k++) {
            if (di == 0 && e == 0) tk = test_now();
            if (di == 0 && e == 2 && !fixed) {
                eps = test_scale((test_now() - tk) / 2 * NDESIGNS, 0.6, 3, eps);
            }
            const int r = (int)(k % 2);
            /* Who sends (each unit with odds 1/2) and who is late (a sender, which sleeps
             * before its puts): every unit draws the same. A unit that sends nothing has nothing
             * to do in its fence but wait for the others' data. */
            rs = rs * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t sends = (rs >> 11) * 0x9E3779B97F4A7C15ull;
            rs = rs * 6364136223846793005ull + 1442695040888963407ull;
            const shoal_unit_t late = (shoal_unit_t)((rs >> 33) % (uint64_t)t_np);
            const unsigned delay = 200 + (unsigned)((rs >> 13) % 1500);
            sends |= 1ull << late;
            const int sending = (int)((sends >> t_me) & 1);
            if (sending) fill_data(src[r], region, k, (uint64_t)t_me);
            if (t_me == late) usleep(delay);
            for (int b = 0; sending && b < NBUF; b++) {
                shoal_handle_t h = (shoal_handle_t)(uintptr_t)0x5A5A0;
                CHECK_OK(shoal_put_nb(shoal_gptr_add(shoal_gptr_setunit(gp, to_unit(b)),
                                                     (int64_t)((size_t)r * region + buf_off[b])),
                                      src[r] + buf_off[b], buf_size[b], &h));
                CHECK(h == SHOAL_HANDLE_NULL, "%s: put_nb in an epoch gave a handle", dname);
            }
            /* Nothing of epoch k + 1 (nor late data of epoch k - 1) in the other region. */
            if (t_failures < 40)
                check_region(mine + (size_t)(1 - r) * region, want[1 - r], k + 1, dname, k,
                             "before my fence");
            update_want(want[r], k, sends);
            int as = NOSTORE;
            if (e == eps - 1) as |= NOSUCCEED;
            CHECK_OK(shoal_epoch_fence(gp, as));
            /* At once: the last bytes of each buffer (a copy writes them last), last buffer
             * first; then every byte. */
            uint8_t snap[NBUF][SNAP];
            for (int b = NBUF - 1; b >= 0; b--)
                memcpy(snap[b], mine + (size_t)r * region + buf_off[b] + buf_size[b] - SNAP, SNAP);
            if (t_failures < 40) {
                for (int b = NBUF - 1; b >= 0; b--)
                    CHECK(memcmp(snap[b], want[r] + buf_off[b] + buf_size[b] - SNAP, SNAP) == 0,
                          "%s, epoch %lld: when my fence returned, the last %d bytes of buffer %d "
                          "from unit %d were not there yet",
                          dname, (long long)k, SNAP, b, (int)from_unit(b));
                check_region(mine + (size_t)r * region, want[r], k - 2, dname, k,
                             "right after my fence returned");
            }
        }
        design_failures[di] = t_failures - failures_before;
    }
    CHECK_OK(shoal_team_memfree(gp));

    if (verbose) {
        long all[NDESIGNS];
        MPI_Reduce(design_failures, all, NDESIGNS, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (t_me == 0) {
            printf("test_fence_hazard: %d epochs per design, %.2f s at np %d, direct %d; failed "
                   "checks:",
                   eps, test_now() - t0, (int)t_np, test_direct());
            for (int di = 0; di < NDESIGNS; di++)
                printf(" %s %ld", shoal_epoch_design_name(designs[di]), all[di]);
            printf("\n");
        }
    }
    for (int i = 0; i < 2; i++) {
        free(src[i]);
        free(want[i]);
    }
    return test_end("test_fence_hazard");
}
