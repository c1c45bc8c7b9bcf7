// np: 2
/* Active-target fences with SHOAL_CHECK_COLLECTIVES=1 (set here before shoal_init), issue 8's
 * mismatched arguments: under every design, a fence where one member passes other assertions, a
 * fence where one member passes a bad assertion bit, and a fence where members name different
 * allocations of the same team each fail on every member (nobody waits for the others) and change
 * nothing: the epoch stays open, the put issued in it still belongs to it and arrives with the
 * next fence. (Without the check mode such a program is erroneous, as in MPI.) Also, in either
 * mode: set_design with different designs, or a bad one on one member, fails everywhere. */
#include "testlib.h"

#define NOSTORE   SHOAL_EPOCH_NOSTORE
#define NOPRECEDE SHOAL_EPOCH_NOPRECEDE
#define NOSUCCEED SHOAL_EPOCH_NOSUCCEED

/* The call must fail (any code) on this unit. */
#define EXPECT_FAIL(call)                                                                          \
    do {                                                                                           \
        shoal_err_t e_ = (call);                                                                   \
        CHECK(e_ != SHOAL_OK, "%s returned SHOAL_OK, expected an error on every unit", #call);     \
    } while (0)

int main(int argc, char **argv) {
    setenv("SHOAL_CHECK_COLLECTIVES", "1", 1);
    test_begin(&argc, &argv);
    const shoal_unit_t right = test_right(), left = test_left();
    shoal_gptr_t gp, other;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &gp));
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &other));
    void *a = NULL;
    CHECK_OK(shoal_gptr_getaddr(gp, &a));
    REQUIRE(a != NULL, "no address for my part");
    const uint8_t *mine = a;
    shoal_epoch_design_t d = (shoal_epoch_design_t)-7;

    /* set_design is always agreed: different designs, or a bad one on one member. */
    EXPECT_FAIL(
        shoal_epoch_set_design(gp, t_me == 0 ? SHOAL_EPOCH_DEFERRED : SHOAL_EPOCH_IMM_NAIVE));
    EXPECT_FAIL(
        shoal_epoch_set_design(gp, t_me == 0 ? (shoal_epoch_design_t)9 : SHOAL_EPOCH_IMM_BARRIER));
    CHECK_OK(shoal_epoch_get_design(gp, &d));
    CHECK(d == SHOAL_EPOCH_AUTO, "rejected set_design calls left design %d", (int)d);

    static const shoal_epoch_design_t designs[] = {SHOAL_EPOCH_DEFERRED, SHOAL_EPOCH_IMM_NAIVE,
                                                   SHOAL_EPOCH_IMM_BARRIER, SHOAL_EPOCH_IMM_NOTIFY,
                                                   SHOAL_EPOCH_AUTO};
    for (int di = 0; di < 5; di++) {
        const char *dn = shoal_epoch_design_name(designs[di]);
        uint8_t v[64];
        fill_pattern(v, sizeof v, 70 + (uint64_t)di, (uint64_t)t_me, 0);
        CHECK_OK(shoal_epoch_set_design(gp, designs[di]));
        CHECK_OK(shoal_epoch_fence(gp, NOPRECEDE));
        shoal_handle_t h = SHOAL_HANDLE_NULL;
        CHECK_OK(
            shoal_put_nb(shoal_gptr_add(shoal_gptr_setunit(gp, right), 64 * di), v, sizeof v, &h));
        shoal_err_t e = shoal_epoch_fence(gp, t_me == 0 ? NOSTORE : 0);
        CHECK(e != SHOAL_OK, "%s: a fence with different assertions returned SHOAL_OK", dn);
        e = shoal_epoch_fence(gp, t_me == t_np - 1 ? 16 : NOSTORE);
        CHECK(e != SHOAL_OK, "%s: a fence with a bad bit on unit %d returned SHOAL_OK", dn,
              (int)(t_np - 1));
        e = shoal_epoch_fence(t_me == 0 ? other : gp, NOSTORE);
        CHECK(e != SHOAL_OK, "%s: a fence on different allocations returned SHOAL_OK", dn);
        /* Nothing changed: the epoch is open, the design stays, the put arrives now. */
        EXPECT_FAIL(shoal_epoch_set_design(gp, SHOAL_EPOCH_IMM_NOTIFY));
        d = (shoal_epoch_design_t)-7;
        CHECK_OK(shoal_epoch_get_design(gp, &d));
        if (designs[di] != SHOAL_EPOCH_AUTO)
            CHECK(d == designs[di], "%s: the design is %d after the rejected fences", dn, (int)d);
        CHECK_OK(shoal_epoch_fence(gp, NOSTORE | NOSUCCEED));
        char what[96];
        snprintf(what, sizeof what, "%s: the put of the epoch the rejected fences left open", dn);
        CHECK_PATTERN(mine + 64 * di, 64, 70 + (uint64_t)di, left, 0, what);
    }
    CHECK_OK(shoal_team_memfree(other));
    CHECK_OK(shoal_team_memfree(gp));
    return test_end("test_fence_checked");
}
