// np: 1 2
/* Teams made and destroyed by the thousand (a program that splits inside its time loop). Team
 * handles are checked in constant time however many teams were made: 300 split/destroy pairs,
 * then a live team's queries and collectives work and give the right answers; the handle of a
 * team destroyed a moment ago is refused as destroyed, and the handle of one destroyed more than
 * 256 destructions ago is refused as not a team (its record is freed by then: the lookup never
 * reads through the handle), neither crashes. Then contexts the same way: 3,000 made, used for a
 * put and destroyed; a context on a team goes with the team; a handle destroyed a moment ago is
 * refused. */
#include "shmem_testlib.h"

#define CYCLES 300

long total;
long slot[3000];

int main(void) {
    test_init();
    shmem_team_t first = SHMEM_TEAM_INVALID, last = SHMEM_TEAM_INVALID, t;
    for (int i = 0; i < CYCLES; i++) {
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, t_np, NULL, 0, &t);
        REQUIRE(rc == 0 && t != SHMEM_TEAM_INVALID, "split %d failed (%d)", i, rc);
        CHECK(shmem_team_my_pe(t) == t_me && shmem_team_n_pes(t) == t_np,
              "team %d: my_pe %d, n_pes %d", i, shmem_team_my_pe(t), shmem_team_n_pes(t));
        if (i == 0) first = t;
        last = t;
        shmem_team_destroy(t);
    }
    shmem_team_t live;
    REQUIRE(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, t_np, NULL, 0, &live) == 0,
            "the live team");
    CHECK(shmem_team_my_pe(live) == t_me && shmem_team_n_pes(live) == t_np,
          "live team: my_pe %d, n_pes %d", shmem_team_my_pe(live), shmem_team_n_pes(live));
    static long one = 1;
    CHECK(shmem_long_sum_reduce(live, &total, &one, 1) == 0 && total == t_np,
          "sum over the live team: %ld, expected %d", total, t_np);
    fprintf(stderr, "PE %d: two refused team handles follow (expected)\n", t_me);
    if (last != live) /* the allocator may have handed the record's address out again */
        CHECK(shmem_team_my_pe(last) == -1, "a destroyed team's handle was accepted");
    if (first != live && first != last)
        CHECK(shmem_team_n_pes(first) == -1, "a long-destroyed team's handle was accepted");
    /* contexts */
    shmem_ctx_t c = SHMEM_CTX_INVALID, on_team = SHMEM_CTX_INVALID;
    for (int i = 0; i < 3000; i++) {
        REQUIRE(shmem_ctx_create(0, &c) == 0, "context %d", i);
        shmem_ctx_long_p(c, &slot[i], 1000 + i, (t_me + 1) % t_np);
        shmem_ctx_quiet(c);
        shmem_ctx_destroy(c);
    }
    REQUIRE(shmem_team_create_ctx(live, 0, &on_team) == 0, "a context on the live team");
    shmem_barrier_all();
    for (int i = 0; i < 3000; i++) CHECK(slot[i] == 1000 + i, "context %d's put: %ld", i, slot[i]);
    shmem_team_destroy(live); /* destroys on_team with it */
    shmem_team_t of = SHMEM_TEAM_INVALID;
    fprintf(stderr, "PE %d: two refused context handles follow (expected)\n", t_me);
    CHECK(shmem_ctx_get_team(c, &of) != 0, "a destroyed context's handle was accepted");
    CHECK(shmem_ctx_get_team(on_team, &of) != 0, "a context of a destroyed team was accepted");
    return test_end("test_shmem_team_churn");
}
