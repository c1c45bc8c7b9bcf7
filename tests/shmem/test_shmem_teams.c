// np: 1 2 3 4
/* Teams: SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED (my_pe, n_pes, translate_pe, get_config);
 * shmem_team_split_strided for several start/stride/size (all, even PEs, odd PEs, PEs 1..n-1,
 * size 1, stride 3) checked from members (team_my_pe, team_n_pes, translate_pe both ways, a
 * team_sync) and non-members (SHMEM_TEAM_INVALID, -1 from team_my_pe/translate); an invalid
 * split; shmem_team_split_2d (x and y teams of a grid xrange wide); get_config with
 * num_contexts; team contexts (shmem_team_create_ctx, a put through the context addressed by
 * team PE number lands on the right world PE, shmem_ctx_get_team; local, not collective: contexts
 * of SHARED and WORLD made side by side); shmem_team_destroy. */
#include "shmem_testlib.h"

static int *box; /* symmetric: [n_pes] slots written through team contexts */

/* One strided team, from every PE of WORLD. */
static void strided(int start, int stride, int size) {
    for (int i = 0; i < t_np; i++) box[i] = 0; /* nobody writes it before the barriers below */
    shmem_team_config_t cfg = {.num_contexts = 2};
    shmem_team_t team = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, &cfg,
                                      SHMEM_TEAM_NUM_CONTEXTS, &team);
    CHECK(rc == 0, "split_strided(%d, %d, %d) returned %d", start, stride, size, rc);
    const int member =
        t_me >= start && (t_me - start) % stride == 0 && (t_me - start) / stride < size;
    const int idx = member ? (t_me - start) / stride : -1;
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, t_me, member ? team : SHMEM_TEAM_WORLD) ==
              (member ? idx : t_me),
          "translate world -> (%d,%d,%d)", start, stride, size);
    if (!member) {
        CHECK(team == SHMEM_TEAM_INVALID, "non-member of (%d,%d,%d) got a team", start, stride,
              size);
        CHECK(shmem_team_my_pe(team) == -1 && shmem_team_n_pes(team) == -1,
              "SHMEM_TEAM_INVALID: my_pe %d n_pes %d", shmem_team_my_pe(team),
              shmem_team_n_pes(team));
        shmem_barrier_all();
        shmem_barrier_all();
        return;
    }
    CHECK(team != SHMEM_TEAM_INVALID, "member of (%d,%d,%d) got SHMEM_TEAM_INVALID", start, stride,
          size);
    CHECK(shmem_team_my_pe(team) == idx, "(%d,%d,%d): team_my_pe %d, expected %d", start, stride,
          size, shmem_team_my_pe(team), idx);
    CHECK(shmem_team_n_pes(team) == size, "(%d,%d,%d): team_n_pes %d", start, stride, size,
          shmem_team_n_pes(team));
    for (int i = 0; i < size; i++) {
        CHECK(shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD) == start + i * stride,
              "(%d,%d,%d): team PE %d -> world %d", start, stride, size, i,
              shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD));
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, start + i * stride, team) == i,
              "(%d,%d,%d): world %d -> team", start, stride, size, start + i * stride);
    }
    CHECK(shmem_team_translate_pe(team, size, SHMEM_TEAM_WORLD) == -1, "team PE %d (out of range)",
          size);
    if (stride > 1 && t_np > 1) {
        int outsider = (start + 1) % t_np;
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, outsider, team) == -1,
              "world PE %d (not a member) translated into (%d,%d,%d)", outsider, start, stride,
              size);
    }
    shmem_team_config_t got = {.num_contexts = -1};
    CHECK(shmem_team_get_config(team, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 && got.num_contexts == 2,
          "get_config: num_contexts %d, expected 2", got.num_contexts);
    CHECK(shmem_team_sync(team) == 0, "team_sync");

    /* A context of the team: PE numbers are team PEs. Write my world id into box[me] of my
     * right neighbour in the team. */
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    if (CHECK(shmem_team_create_ctx(team, 0, &ctx) == 0 && ctx != SHMEM_CTX_INVALID,
              "team_create_ctx")) {
        shmem_team_t back = SHMEM_TEAM_INVALID;
        CHECK(shmem_ctx_get_team(ctx, &back) == 0 && back == team, "ctx_get_team");
        shmem_barrier_all(); /* box cleared by everyone (at the top) */
        shmem_ctx_int_p(ctx, &box[t_me], 1000 + t_me, (idx + 1) % size);
        shmem_ctx_quiet(ctx);
        shmem_team_sync(team);
        const int left_world = start + ((idx + size - 1) % size) * stride;
        CHECK(box[left_world] == 1000 + left_world,
              "(%d,%d,%d): team ctx put from team left (world %d): %d", start, stride, size,
              left_world, box[left_world]);
        shmem_barrier_all();
        shmem_ctx_destroy(ctx);
    } else {
        shmem_barrier_all();
        shmem_barrier_all();
    }
    shmem_team_destroy(team);
}

static void two_d(int xrange) {
    shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, NULL, 0, &xt, NULL, 0, &yt);
    CHECK(rc == 0, "split_2d(%d) returned %d", xrange, rc);
    const int x = t_me % xrange, y = t_me / xrange;
    const int xsize = (y + 1) * xrange <= t_np ? xrange : t_np - y * xrange;
    const int ysize = (t_np - x + xrange - 1) / xrange;
    CHECK(shmem_team_my_pe(xt) == x && shmem_team_n_pes(xt) == xsize,
          "split_2d(%d): x team my_pe %d n_pes %d, expected %d %d", xrange, shmem_team_my_pe(xt),
          shmem_team_n_pes(xt), x, xsize);
    CHECK(shmem_team_my_pe(yt) == y && shmem_team_n_pes(yt) == ysize,
          "split_2d(%d): y team my_pe %d n_pes %d, expected %d %d", xrange, shmem_team_my_pe(yt),
          shmem_team_n_pes(yt), y, ysize);
    for (int i = 0; i < xsize; i++)
        CHECK(shmem_team_translate_pe(xt, i, SHMEM_TEAM_WORLD) == y * xrange + i,
              "split_2d(%d): x team PE %d", xrange, i);
    for (int j = 0; j < ysize; j++)
        CHECK(shmem_team_translate_pe(yt, j, SHMEM_TEAM_WORLD) == j * xrange + x,
              "split_2d(%d): y team PE %d", xrange, j);
    CHECK(shmem_team_sync(xt) == 0 && shmem_team_sync(yt) == 0, "sync of the 2d teams");
    shmem_barrier_all();
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
}

/* shmem_team_create_ctx is local in 1.5 ("not collective"): as in the specification's
 * atomicity-domain example, PE 0 makes a context on SHMEM_TEAM_SHARED while the others make theirs
 * on WORLD, the last PE 20 ms late; nobody waits for anybody (a collective would hang here, and the
 * test time out). Each context then works: an increment of PE 0's counter, checked after a
 * barrier. SHMEM_TEAM_INVALID gives nonzero and SHMEM_CTX_INVALID. */
static void team_ctx_local(void) {
    static long hits; /* symmetric */
    hits = 0;
    shmem_barrier_all();
    if (t_me == t_np - 1) usleep(20000);
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    shmem_team_t team = t_me == 0 ? SHMEM_TEAM_SHARED : SHMEM_TEAM_WORLD;
    int rc = shmem_team_create_ctx(team, 0, &ctx);
    CHECK(rc == 0 && ctx != SHMEM_CTX_INVALID, "team_create_ctx(%s): %d",
          t_me == 0 ? "SHARED" : "WORLD", rc);
    int target = shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, team); /* PE 0 in my ctx's team */
    if (rc == 0 && target >= 0) {
        shmem_ctx_long_atomic_inc(ctx, &hits, target);
        shmem_ctx_quiet(ctx);
    }
    if (rc == 0) shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (t_me == 0) CHECK(hits == t_np, "contexts of two teams: %ld increments of %d", hits, t_np);
    shmem_ctx_t bad = (shmem_ctx_t)&hits; /* anything but SHMEM_CTX_INVALID */
    rc = shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &bad);
    CHECK(rc != 0 && bad == SHMEM_CTX_INVALID, "team_create_ctx(SHMEM_TEAM_INVALID): rc %d", rc);
    shmem_barrier_all();
}

int main(void) {
    test_init();
    team_ctx_local();
    box = shmem_calloc((size_t)t_np, sizeof(int));
    REQUIRE(box, "allocation");

    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == t_me && shmem_team_n_pes(SHMEM_TEAM_WORLD) == t_np,
          "WORLD: my_pe %d n_pes %d", shmem_team_my_pe(SHMEM_TEAM_WORLD),
          shmem_team_n_pes(SHMEM_TEAM_WORLD));
    for (int pe = 0; pe < t_np; pe++)
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_WORLD) == pe,
              "WORLD -> WORLD %d", pe);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, t_np, SHMEM_TEAM_WORLD) == -1,
          "translate of PE n_pes");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1,
          "translate from SHMEM_TEAM_INVALID");
    shmem_team_config_t wc;
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &wc) == 0,
          "get_config(WORLD)");
    int sh_me = shmem_team_my_pe(SHMEM_TEAM_SHARED), sh_n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    CHECK(sh_n >= 1 && sh_me >= 0 && sh_me < sh_n, "SHARED: my_pe %d n_pes %d", sh_me, sh_n);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, sh_me, SHMEM_TEAM_WORLD) == t_me,
          "SHARED: my team PE is not me in WORLD");
    /* SHARED is the PEs shmem_ptr reaches (one node with the direct path: all of them here; with
     * pretend nodes, my pretend node; with the direct path off, me alone): check the definition. */
    int reachable = 0;
    for (int pe = 0; pe < t_np; pe++) reachable += shmem_ptr(box, pe) != NULL;
    CHECK(sh_n == reachable, "SHARED has %d PEs, shmem_ptr reaches %d", sh_n, reachable);
    if (test_all_direct()) CHECK(sh_n == t_np, "one node, direct path: SHARED has %d PEs", sh_n);
    CHECK(shmem_team_sync(SHMEM_TEAM_SHARED) == 0, "team_sync(SHARED)");

    strided(0, 1, t_np);
    strided(0, 2, (t_np + 1) / 2);
    if (t_np > 1) strided(1, 2, t_np / 2);
    if (t_np > 1) strided(1, 1, t_np - 1);
    strided(t_np - 1, 1, 1);
    strided(0, 3, (t_np + 2) / 3);
    if (t_np <= 2) strided(t_np / 2, 1, 1);

    /* Invalid: a team past the end of WORLD. */
    shmem_team_t bad = (shmem_team_t)&box; /* anything but INVALID */
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, t_np + 1, NULL, 0, &bad);
    CHECK(rc != 0 && bad == SHMEM_TEAM_INVALID, "split_strided of %d PEs of %d: rc %d", t_np + 1,
          t_np, rc);
    shmem_barrier_all();

    /* A split of a split: the odd PEs of (1..n-1) are world PEs 2, 4, ... */
    if (t_np >= 3) {
        shmem_team_t rest = SHMEM_TEAM_INVALID, sub = SHMEM_TEAM_INVALID;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, t_np - 1, NULL, 0, &rest);
        if (rest != SHMEM_TEAM_INVALID) {
            int n = shmem_team_n_pes(rest);
            CHECK(shmem_team_split_strided(rest, 1, 2, n / 2, NULL, 0, &sub) == 0,
                  "split of a split");
            if (sub != SHMEM_TEAM_INVALID) {
                for (int i = 0; i < shmem_team_n_pes(sub); i++)
                    CHECK(shmem_team_translate_pe(sub, i, SHMEM_TEAM_WORLD) == 2 + 2 * i,
                          "split of a split: PE %d is world %d", i,
                          shmem_team_translate_pe(sub, i, SHMEM_TEAM_WORLD));
                CHECK(shmem_team_translate_pe(sub, 0, rest) == 1, "sub -> rest translation");
                shmem_team_destroy(sub);
            }
            shmem_team_destroy(rest);
        }
    }
    shmem_barrier_all();

    /* (Making a team costs about half a second at 3-4 PEs on 2 cores: fewer of them there.) */
    const int few = t_np > 2;
    if (!few) two_d(1);
    two_d(2);
    if (t_np >= 3 && !few) two_d(3);
    two_d(t_np);

    /* Many teams made and destroyed (resources are released). */
    for (int i = 0; i < (t_np > 2 ? 3 : 40); i++) {
        shmem_team_t t = SHMEM_TEAM_INVALID;
        if (!CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, t_np, NULL, 0, &t) == 0,
                   "split number %d", i))
            break;
        shmem_team_destroy(t);
    }

    shmem_barrier_all();
    shmem_free(box);
    return test_end("test_shmem_teams");
}
