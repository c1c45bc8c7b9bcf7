/* Regression tests for the defects of the hardening issue (each failed, crashed or hung before its
 * fix; the number is the defect's in the issue):
 *   1  shoal_alltoalls with nelems * team size past SIZE_MAX: an error, not a heap overflow
 *   2  a lock of a destroyed team: SHOAL_ERR_STATE forever, no use-after-free
 *   3  a stale copy of a completed handle is rejected; the live handle it aliases still works
 *   6  a pointer of another team, whose unit is not in the caller's same-id team: rejected
 *   8  destroyed or made-up locks, groups and handles: an error, never a crash
 *   9  creation calls where one unit's argument is rejected locally (NULL output, bad colour,
 *      different pointers to team_memfree, lock_destroy while a unit holds the lock): every unit
 *      fails with an error instead of hanging, and the objects stay usable afterwards
 * The library prints one line per failing call on stderr: that is expected. */
#include <stdint.h>
#include <string.h>

#include "testlib.h"

#define EXPECT(code, call)                                                                         \
    do {                                                                                           \
        shoal_err_t e_ = (call);                                                                   \
        CHECK(e_ == (code), "%s returned %s, expected %s", #call, shoal_strerror(e_),              \
              shoal_strerror(code));                                                               \
    } while (0)

/* Defect 1: the product wraps to a small number, so the buffers validated as 0 bytes. */
static void alltoalls_overflow(void) {
    shoal_gptr_t a, b;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &a));
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &b));
    void *pa = NULL;
    CHECK_OK(shoal_gptr_getaddr(a, &pa));
    memset(pa, 0x5c, 4096);
    /* nelems * np == 2^64 exactly for np a power of two, and wraps for every np > 1 */
    size_t huge = t_np > 1 ? SIZE_MAX / (size_t)t_np + 1 : SIZE_MAX;
    shoal_err_t e = shoal_alltoalls(SHOAL_TEAM_ALL, a, b, 1, 1, 8, huge);
    CHECK(e == SHOAL_ERR_INVAL || e == SHOAL_ERR_BOUNDS, "alltoalls with %zu elements gave %s",
          huge, shoal_strerror(e));
    for (int i = 0; i < 4096; i++)
        if (!CHECK(((uint8_t *)pa)[i] == 0x5c, "dest byte %d changed", i)) break;
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_team_memfree(a));
    CHECK_OK(shoal_team_memfree(b));
}

/* Defects 2 and 8 for locks. */
static void locks_of_destroyed_teams(void) {
    shoal_team_t team = SHOAL_TEAM_NULL;
    REQUIRE_OK(shoal_team_split(SHOAL_TEAM_ALL, 0, &team));
    shoal_lock_t lock = NULL, copy;
    REQUIRE_OK(shoal_lock_create(team, &lock));
    copy = lock;
    CHECK_OK(shoal_lock_acquire(lock));
    CHECK_OK(shoal_lock_release(lock));
    CHECK_OK(shoal_team_destroy(&team));
    for (int i = 0; i < 3; i++) { /* "forever": also after other objects reuse the memory */
        shoal_lock_t other = NULL;
        CHECK_OK(shoal_lock_create(SHOAL_TEAM_ALL, &other));
        EXPECT(SHOAL_ERR_STATE, shoal_lock_acquire(copy));
        EXPECT(SHOAL_ERR_STATE, shoal_lock_try_acquire(copy));
        EXPECT(SHOAL_ERR_STATE, shoal_lock_release(copy));
        CHECK(other != copy, "a new lock has the destroyed lock's handle");
        CHECK_OK(shoal_lock_acquire(other));
        CHECK_OK(shoal_lock_release(other));
        CHECK_OK(shoal_lock_destroy(&other));
    }
    /* Destroyed by shoal_lock_destroy, used through a copy (and destroyed twice). */
    shoal_lock_t l2 = NULL;
    REQUIRE_OK(shoal_lock_create(SHOAL_TEAM_ALL, &l2));
    shoal_lock_t l2copy = l2;
    CHECK_OK(shoal_lock_destroy(&l2));
    CHECK(l2 == NULL, "lock_destroy did not clear the handle");
    EXPECT(SHOAL_ERR_STATE, shoal_lock_acquire(l2copy));
    EXPECT(SHOAL_ERR_STATE, shoal_lock_destroy(&l2copy));
    /* Made-up values. */
    EXPECT(SHOAL_ERR_INVAL, shoal_lock_acquire((shoal_lock_t)(uintptr_t)0xdeadbeef));
    EXPECT(SHOAL_ERR_INVAL, shoal_lock_release((shoal_lock_t)(uintptr_t)8));
    EXPECT(SHOAL_ERR_INVAL, shoal_lock_acquire(NULL));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
}

/* Defect 8 for groups. */
static void destroyed_groups(void) {
    shoal_group_t g = NULL, copy, clone = NULL;
    REQUIRE_OK(shoal_group_create(&g));
    CHECK_OK(shoal_group_add_member(g, 0));
    copy = g;
    CHECK_OK(shoal_group_clone(g, &clone));
    CHECK_OK(shoal_group_destroy(&g));
    CHECK(g == NULL, "group_destroy did not clear the handle");
    EXPECT(SHOAL_ERR_STATE, shoal_group_destroy(&copy)); /* twice, through a copy */
    int32_t size = -1;
    EXPECT(SHOAL_ERR_STATE, shoal_group_size(copy, &size));
    EXPECT(SHOAL_ERR_STATE, shoal_group_add_member(copy, 0));
    CHECK(size == -1, "a failing call wrote its output");
    /* The clone is a group of its own and lives on. */
    CHECK_OK(shoal_group_size(clone, &size));
    CHECK(size == 1, "clone has %d members, expected 1", (int)size);
    shoal_group_t garbage = (shoal_group_t)(uintptr_t)0x1234567;
    EXPECT(SHOAL_ERR_INVAL, shoal_group_size(garbage, &size));
    EXPECT(SHOAL_ERR_INVAL, shoal_group_destroy(&garbage));
    /* Split parts are groups of their own. */
    shoal_group_t parts[3] = {NULL, NULL, NULL};
    CHECK_OK(shoal_group_add_member(clone, t_np - 1));
    CHECK_OK(shoal_group_split(clone, 3, parts));
    int32_t total = 0;
    for (int i = 0; i < 3; i++) {
        int32_t n = -1;
        CHECK_OK(shoal_group_size(parts[i], &n));
        total += n;
        CHECK_OK(shoal_group_destroy(&parts[i]));
    }
    CHECK(total == (t_np > 1 ? 2 : 1), "split parts hold %d units", (int)total);
    CHECK_OK(shoal_group_destroy(&clone));
}

/* Defects 3 and 8 for handles. On the direct path every non-blocking call completes at once and
 * returns SHOAL_HANDLE_NULL, so only the made-up values can be tried there. */
static void stale_handles(void) {
    shoal_gptr_t gp;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &gp));
    shoal_gptr_t right = shoal_gptr_setunit(gp, test_right());
    uint64_t v1 = 111, v2 = 222, got = 0;
    shoal_handle_t h1 = SHOAL_HANDLE_NULL, h2 = SHOAL_HANDLE_NULL;
    CHECK_OK(shoal_put_nb(right, &v1, 8, &h1));
    shoal_handle_t stale = h1;
    CHECK_OK(shoal_wait(&h1));
    CHECK_OK(shoal_put_nb(shoal_gptr_add(right, 64), &v2, 8, &h2)); /* may reuse h1's record */
    if (stale != SHOAL_HANDLE_NULL) {
        EXPECT(SHOAL_ERR_HANDLE, shoal_wait(&stale));
        int done = 0;
        EXPECT(SHOAL_ERR_HANDLE, shoal_test(&stale, &done));
        EXPECT(SHOAL_ERR_HANDLE, shoal_waitall(&stale, 1));
    }
    CHECK_OK(shoal_wait(&h2)); /* the live one is untouched by the stale attempts */
    CHECK(h2 == SHOAL_HANDLE_NULL, "wait did not clear the handle");
    CHECK_OK(shoal_get(&got, shoal_gptr_add(right, 64), 8));
    CHECK(got == v2, "second put gave %llu, expected %llu", (unsigned long long)got,
          (unsigned long long)v2);
    /* The same live handle twice in one waitall is waited once. */
    shoal_handle_t pair[2] = {SHOAL_HANDLE_NULL, SHOAL_HANDLE_NULL};
    CHECK_OK(shoal_put_nb(right, &v2, 8, &pair[0]));
    pair[1] = pair[0];
    CHECK_OK(shoal_waitall(pair, 2));
    CHECK(pair[0] == SHOAL_HANDLE_NULL && pair[1] == SHOAL_HANDLE_NULL, "waitall left handles");
    /* Made-up values. */
    shoal_handle_t bogus = (shoal_handle_t)(uintptr_t)0x5A5A0;
    EXPECT(SHOAL_ERR_HANDLE, shoal_wait(&bogus));
    bogus = (shoal_handle_t)(uintptr_t)0x7fffffff01ULL;
    int done = 0;
    EXPECT(SHOAL_ERR_HANDLE, shoal_test(&bogus, &done));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_team_memfree(gp));
}

/* Defect 9: one unit's bad argument fails every unit, nobody hangs, state stays usable. */
static void collective_failures(void) {
    shoal_unit_t odd = t_np - 1; /* the unit that passes the bad argument */
    int me_odd = t_me == odd;

    shoal_gptr_t gp = {0};
    shoal_err_t e = shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, me_odd ? NULL : &gp);
    CHECK(e != SHOAL_OK, "team_memalloc with a NULL output on unit %d returned SHOAL_OK", odd);
    CHECK(shoal_gptr_is_null(gp), "a failed team_memalloc wrote its output");

    shoal_team_t team = SHOAL_TEAM_NULL;
    e = shoal_team_split(SHOAL_TEAM_ALL, me_odd ? -7 : 0, &team);
    CHECK(e != SHOAL_OK, "team_split with a bad colour on unit %d returned SHOAL_OK", odd);
    CHECK(team == SHOAL_TEAM_NULL, "a failed team_split wrote its output");
    e = shoal_team_split(SHOAL_TEAM_ALL, 0, me_odd ? NULL : &team);
    CHECK(e != SHOAL_OK, "team_split with a NULL output on unit %d returned SHOAL_OK", odd);

    shoal_group_t g = NULL;
    REQUIRE_OK(shoal_group_create(&g));
    for (int u = 0; u < t_np; u++) CHECK_OK(shoal_group_add_member(g, u));
    e = shoal_team_create(SHOAL_TEAM_ALL, me_odd ? NULL : g, &team);
    CHECK(e != SHOAL_OK, "team_create with a NULL group on unit %d returned SHOAL_OK", odd);
    CHECK_OK(shoal_group_destroy(&g));

    /* Different allocations to team_memfree (only meaningful with two or more units). */
    shoal_gptr_t a, b;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &a));
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 4096, &b));
    if (t_np > 1) {
        e = shoal_team_memfree(me_odd ? b : a);
        CHECK(e != SHOAL_OK, "team_memfree of different allocations returned SHOAL_OK");
    }
    uint64_t v = 42 + (uint64_t)t_me, got = 0;
    CHECK_OK(shoal_put(shoal_gptr_setunit(a, test_right()), &v, 8)); /* both still live */
    CHECK_OK(shoal_put(shoal_gptr_setunit(b, test_right()), &v, 8));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    CHECK_OK(shoal_get(&got, a, 8));
    CHECK(got == 42 + (uint64_t)test_left(), "a holds %llu", (unsigned long long)got);
    CHECK_OK(shoal_team_memfree(a));
    CHECK_OK(shoal_team_memfree(b));

    /* lock_destroy while one unit holds the lock. */
    shoal_lock_t lock = NULL;
    REQUIRE_OK(shoal_lock_create(SHOAL_TEAM_ALL, &lock));
    if (me_odd) CHECK_OK(shoal_lock_acquire(lock));
    e = shoal_lock_destroy(&lock);
    CHECK(e == SHOAL_ERR_STATE, "lock_destroy while unit %d holds it gave %s", odd,
          shoal_strerror(e));
    CHECK(lock != NULL, "a failed lock_destroy cleared the handle");
    if (me_odd) CHECK_OK(shoal_lock_release(lock));
    CHECK_OK(shoal_lock_destroy(&lock));

    e = shoal_lock_create(SHOAL_TEAM_ALL, me_odd ? NULL : &lock);
    CHECK(e != SHOAL_OK, "lock_create with a NULL output on unit %d returned SHOAL_OK", odd);
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL)); /* everybody is still in step */
}

/* Defect 6, the detectable part (shoal.h says which case is not): teams {0,1} and {2,3} allocate
 * (same segment id, since they share no unit); unit 0 hands its pointer to unit 2, which must get
 * an error, not its own team's memory. */
static void foreign_pointers(void) {
    if (t_np < 4) return;
    shoal_gptr_t mail;
    REQUIRE_OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 64, &mail));
    shoal_team_t half = SHOAL_TEAM_NULL;
    REQUIRE_OK(shoal_team_split(SHOAL_TEAM_ALL,
                                t_me < 2   ? 0
                                : t_me < 4 ? 1
                                           : SHOAL_UNDEFINED,
                                &half));
    shoal_gptr_t mine = {0};
    if (half != SHOAL_TEAM_NULL) {
        REQUIRE_OK(shoal_team_memalloc(half, 4096, &mine));
        void *p = NULL;
        CHECK_OK(shoal_gptr_getaddr(mine, &p));
        memset(p, 0x3c, 4096);
    }
    if (t_me == 0) CHECK_OK(shoal_put(shoal_gptr_setunit(mail, 2), &mine, sizeof mine));
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    if (t_me == 2) {
        shoal_gptr_t foreign;
        CHECK_OK(shoal_get(&foreign, mail, sizeof foreign));
        uint64_t v = 7;
        shoal_err_t e1 = shoal_put(foreign, &v, 8); /* unit 0, id of my own allocation */
        shoal_err_t e2 = shoal_put(shoal_gptr_setunit(foreign, 1), &v, 8);
        CHECK(e1 != SHOAL_OK && e2 != SHOAL_OK, "foreign pointer accepted: %s, %s",
              shoal_strerror(e1), shoal_strerror(e2));
    }
    CHECK_OK(shoal_barrier(SHOAL_TEAM_ALL));
    if (half != SHOAL_TEAM_NULL) {
        void *p = NULL;
        CHECK_OK(shoal_gptr_getaddr(mine, &p));
        for (int i = 0; i < 4096; i++)
            if (!CHECK(((uint8_t *)p)[i] == 0x3c, "byte %d of my allocation changed", i)) break;
        CHECK_OK(shoal_team_memfree(mine));
        CHECK_OK(shoal_team_destroy(&half));
    }
    CHECK_OK(shoal_team_memfree(mail));
}

int main(int argc, char **argv) {
    test_begin(&argc, &argv);
    alltoalls_overflow();
    locks_of_destroyed_teams();
    destroyed_groups();
    stale_handles();
    foreign_pointers();
    collective_failures();
    return test_end("test_hardening");
}
