// np: 2 3 4
/* The deferred fence design's combining (src/rma/epoch_ops.c): through MPI, a target's queued
 * puts of up to SHOAL_EPOCH_COMBINE bytes (default 1 KiB) travel as one MPI_Put, packed, with an
 * indexed target datatype. Every epoch each member issues to every member (itself included),
 * interleaving the targets so that the fence must group them: 64 contiguous 8-byte puts (one
 * merged piece), 32 strided 16-byte puts (32 pieces, gaps between them), one put of exactly the
 * limit and one just above it (delivered alone), three pairs of adjacent puts, a get after the
 * contiguous ones (which splits a run), and 8 puts written twice with the same bytes (a run that
 * overlaps itself: delivered one by one). The imm_barrier design (auto) queues its small puts
 * through MPI and combines them too: both designs run.
 * Each origin writes its own slice of each target's part; after the closing fence every slice
 * must hold exactly the origin's bytes where a put went and the fill (0xEE) everywhere else, so a
 * piece at a wrong displacement, a merge across a gap or a lost piece shows. On the direct path
 * the same program runs with copies (nothing is combined there). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testlib.h"

#define SLICE     16384 /* one origin's slice of a target's part */
#define MAXP      8
#define EPOCHS    20
#define FILL      0xEE
#define GET_AT    12288 /* in the target's own slice: what the get reads */
#define GET_BYTES 100
#define DOUBLE_AT 8192
#define STRIDE_AT 1024
#define LIMIT_AT  4096
#define ABOVE_AT  (LIMIT_AT + 1024 + 8)
#define ABOVE2_AT 6400
#define FEW_AT    10240

/* The puts of one epoch, as (offset in the slice, bytes), in issue order; the get comes after
 * the contiguous ones. Runs of a target's small puts, as the fence sees them: 64 pieces that
 * merge into one (one plain put), 32 strided ones and the one at the limit (33 pieces: an
 * indexed datatype), the one above the limit alone, 3 pairs that merge into 3 pieces (3 plain
 * puts from the packed data), another above the limit, the doubled ones (overlap: one by one). */
typedef struct {
    size_t off, n;
} piece_t;

static size_t build_pieces(piece_t *v) {
    size_t k = 0;
    for (size_t i = 0; i < 64; i++) v[k++] = (piece_t){8 * i, 8};
    for (size_t i = 0; i < 32; i++) v[k++] = (piece_t){STRIDE_AT + 40 * i, 16};
    v[k++] = (piece_t){LIMIT_AT, 1024};
    v[k++] = (piece_t){ABOVE_AT, 1025};
    for (size_t i = 0; i < 3; i++) {
        v[k++] = (piece_t){FEW_AT + 32 * i, 8};
        v[k++] = (piece_t){FEW_AT + 32 * i + 8, 8};
    }
    v[k++] = (piece_t){ABOVE2_AT, 1025};
    for (size_t r = 0; r < 2; r++)
        for (size_t i = 0; i < 8; i++) v[k++] = (piece_t){DOUBLE_AT + 8 * i, 8};
    return k;
}

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    int32_t p = 0;
    shoal_unit_t me = 0;
    CHECK_OK(shoal_team_size(SHOAL_TEAM_ALL, &p));
    CHECK_OK(shoal_team_myid(SHOAL_TEAM_ALL, &me));
    REQUIRE(p <= MAXP, "at most %d units", MAXP);
    static piece_t pieces[256];
    size_t npieces = build_pieces(pieces);
    static uint8_t src[MAXP][SLICE], want[SLICE], got[MAXP][GET_BYTES];
    const shoal_epoch_design_t designs[] = {SHOAL_EPOCH_DEFERRED, SHOAL_EPOCH_IMM_BARRIER};
    for (size_t d = 0; d < sizeof designs / sizeof *designs; d++) {
        const char *name = shoal_epoch_design_name(designs[d]);
        shoal_gptr_t gp = SHOAL_GPTR_NULL;
        REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, (size_t)p * SLICE, &gp));
        REQUIRE_OK(shoal_epoch_set_design(gp, designs[d]));
        uint8_t *mine = NULL;
        REQUIRE_OK(shoal_gptr_getaddr(shoal_gptr_setunit(gp, (uint32_t)me), (void **)&mine));
        int wrong = 0;
        for (int ep = 0; ep < EPOCHS; ep++) {
            uint64_t seed = (uint64_t)ep + 1;
            /* my part: fill, and what others' gets read from my own slice */
            memset(mine, FILL, (size_t)p * SLICE);
            fill_pattern(mine + (size_t)me * SLICE + GET_AT, GET_BYTES, seed + 7777, (uint64_t)me,
                         0);
            for (int32_t t = 0; t < p; t++)
                fill_pattern(src[t], SLICE, seed, (uint64_t)(me * MAXP + t), 0);
            memset(got, 0, sizeof got);
            CHECK_OK(shoal_epoch_fence(gp, 0)); /* opens: my stores are before it */
            shoal_handle_t h;
            for (size_t k = 0; k < npieces; k++) {
                for (int32_t t = 0; t < p; t++) { /* targets interleaved: the fence groups them */
                    shoal_gptr_t at = shoal_gptr_add(shoal_gptr_setunit(gp, (uint32_t)t),
                                                     (int64_t)((size_t)me * SLICE + pieces[k].off));
                    CHECK_OK(shoal_put_nb(at, src[t] + pieces[k].off, pieces[k].n, &h));
                    if (k == 63) /* a get splits the target's run of puts */
                        CHECK_OK(shoal_get_nb(got[t],
                                              shoal_gptr_add(shoal_gptr_setunit(gp, (uint32_t)t),
                                                             (int64_t)((size_t)t * SLICE + GET_AT)),
                                              GET_BYTES, &h));
                }
            }
            CHECK_OK(shoal_epoch_fence(gp, 0)); /* closes: everything is complete */
            for (int32_t o = 0; o < p;
                 o++) { /* my slice o: origin o's bytes where it put, else fill */
                uint8_t full[SLICE];
                fill_pattern(full, SLICE, seed, (uint64_t)(o * MAXP + me), 0);
                memset(want, FILL, SLICE);
                if (o == me) fill_pattern(want + GET_AT, GET_BYTES, seed + 7777, (uint64_t)me, 0);
                for (size_t k = 0; k < npieces; k++)
                    memcpy(want + pieces[k].off, full + pieces[k].off, pieces[k].n);
                const uint8_t *have = mine + (size_t)o * SLICE;
                if (memcmp(have, want, SLICE)) {
                    size_t b = 0;
                    while (have[b] == want[b]) b++;
                    if (wrong++ < 4)
                        CHECK(0,
                              "%s, epoch %d: slice of origin %d differs first at byte %zu (%#x, "
                              "want %#x)",
                              name, ep, (int)o, b, have[b], want[b]);
                }
            }
            for (int32_t t = 0; t < p; t++) {
                char what[64];
                snprintf(what, sizeof what, "%s, epoch %d: get from unit %d", name, ep, (int)t);
                CHECK_PATTERN(got[t], GET_BYTES, seed + 7777, (uint64_t)t, 0, what);
            }
            /* nobody refills its part for the next epoch before everybody has checked this one */
            CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
        }
        CHECK(wrong == 0, "%s: %d slices wrong over %d epochs", name, wrong, EPOCHS);
        CHECK_OK(shoal_epoch_fence(gp, SHOAL_EPOCH_NOSUCCEED));
        CHECK_OK(shoal_team_memfree(gp));
    }
    return test_end("test_fence_combine");
}
