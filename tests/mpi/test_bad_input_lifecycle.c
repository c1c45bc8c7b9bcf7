/* Bad-input matrix, the lifecycle part (test_bad_input.c has the rest): every public call that
 * needs the runtime, before shoal_init and after shoal_finalize, returns SHOAL_ERR_NOT_INIT,
 * prints exactly one line "shoal: CALL: reason" (no unit yet, or any more) and writes no output;
 * shoal_init after shoal_finalize and shoal_finalize twice are refused the same way. MPI starts
 * once per process, so this is a program of its own. After shoal_finalize MPI is gone: each
 * process reports its own verdict in its exit code. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

static const shoal_gptr_t gp = {0, 1, 1, 0}; /* a plausible pointer: never looked at */
static uint8_t buf[64];
static int64_t v = 1, r = 0x7777;
static shoal_group_t grp = (shoal_group_t)(uintptr_t)0x1234567;
static shoal_lock_t lck = (shoal_lock_t)(uintptr_t)0xdeadbee8;
static shoal_handle_t hnd = (shoal_handle_t)(uintptr_t)0x5A5A0;
static shoal_rma_bcast_t rbreq = (shoal_rma_bcast_t)(uintptr_t)0x5A5A0;
static int32_t out32 = -5;
static shoal_team_t team_out = -5;
static shoal_gptr_t gp_out = {9, 9, 9, 9};
static shoal_group_t grp_out = NULL;
static shoal_lock_t lck_out = NULL;
static int flag = 7;

typedef struct {
    const char *fn;
    shoal_err_t (*call)(void);
} life_case_t;

#define C(name, expr)                                                                              \
    static shoal_err_t name(void) {                                                                \
        return (expr);                                                                             \
    }
C(c_finalize, shoal_finalize())
C(c_myid, shoal_myid(&out32))
C(c_size, shoal_size(&out32))
C(c_node_size, shoal_node_size(&out32))
C(c_node_units, shoal_node_units(&out32, 1))
C(c_g_create, shoal_group_create(&grp_out))
C(c_g_clone, shoal_group_clone(grp, &grp_out))
C(c_g_destroy, shoal_group_destroy(&grp))
C(c_g_add, shoal_group_add_member(grp, 0))
C(c_g_remove, shoal_group_remove_member(grp, 0))
C(c_g_union, shoal_group_union(grp, grp, &grp_out))
C(c_g_intersect, shoal_group_intersect(grp, grp, &grp_out))
C(c_g_split, shoal_group_split(grp, 1, &grp_out))
C(c_g_is_member, shoal_group_is_member(grp, 0, &flag))
C(c_g_size, shoal_group_size(grp, &out32))
C(c_g_members, shoal_group_members(grp, &out32))
C(c_t_create, shoal_team_create(SHOAL_TEAM_ALL, grp, &team_out))
C(c_t_split, shoal_team_split(SHOAL_TEAM_ALL, 0, &team_out))
C(c_t_node, shoal_team_node(SHOAL_TEAM_ALL, &team_out))
C(c_t_destroy, shoal_team_destroy(&team_out))
C(c_t_size, shoal_team_size(SHOAL_TEAM_ALL, &out32))
C(c_t_myid, shoal_team_myid(SHOAL_TEAM_ALL, &out32))
C(c_t_parent, shoal_team_parent(SHOAL_TEAM_ALL, &team_out))
C(c_t_l2g, shoal_team_unit_l2g(SHOAL_TEAM_ALL, 0, &out32))
C(c_t_g2l, shoal_team_unit_g2l(SHOAL_TEAM_ALL, 0, &out32))
C(c_t_group, shoal_team_get_group(SHOAL_TEAM_ALL, &grp_out))
C(c_getaddr, shoal_gptr_getaddr(gp, (void **)&grp_out))
C(c_from_addr, shoal_gptr_from_addr(buf, &gp_out))
C(c_tmalloc, shoal_team_memalloc(SHOAL_TEAM_ALL, 64, &gp_out))
C(c_tmfree, shoal_team_memfree(gp))
C(c_malloc, shoal_memalloc(64, &gp_out))
C(c_free, shoal_memfree(gp))
C(c_pool_info, shoal_pool_info((size_t *)&gp_out, NULL))
C(c_put, shoal_put(gp, buf, 8))
C(c_get, shoal_get(buf, gp, 8))
C(c_put_nb, shoal_put_nb(gp, buf, 8, &hnd))
C(c_get_nb, shoal_get_nb(buf, gp, 8, &hnd))
C(c_wait, shoal_wait(&hnd))
C(c_test, shoal_test(&hnd, &flag))
C(c_waitall, shoal_waitall(&hnd, 1))
C(c_testall, shoal_testall(&hnd, 1, &flag))
C(c_flush, shoal_flush(gp))
C(c_flush_all, shoal_flush_all())
C(c_fence, shoal_fence())
C(c_epoch_fence, shoal_epoch_fence(gp, 0))
C(c_epoch_set, shoal_epoch_set_design(gp, SHOAL_EPOCH_AUTO))
C(c_epoch_get, shoal_epoch_get_design(gp, (shoal_epoch_design_t *)&flag))
C(c_rb_enable, shoal_rma_bcast_enable(gp))
C(c_rb_disable, shoal_rma_bcast_disable(gp))
C(c_rb, shoal_rma_bcast(gp, buf, 8, SHOAL_RMA_BCAST_AUTO, &rbreq, NULL))
C(c_rb_test, shoal_rma_bcast_test(&rbreq, &flag))
C(c_rb_wait, shoal_rma_bcast_wait(&rbreq))
C(c_rb_arrived, shoal_rma_bcast_arrived(gp, 1, &flag))
C(c_rb_wait_arrival, shoal_rma_bcast_wait_arrival(gp, 1))
C(c_put_strided, shoal_put_strided(gp, 16, buf, 8, 8, 2))
C(c_get_strided, shoal_get_strided(buf, 8, gp, 16, 8, 2))
C(c_put_signal, shoal_put_signal(gp, buf, 8, gp, 1, SHOAL_SIGNAL_ADD))
C(c_signal, shoal_signal(gp, 1, SHOAL_SIGNAL_ADD))
C(c_signal_wait, shoal_signal_wait_until(gp, SHOAL_CMP_EQ, 0, (uint64_t *)&r))
C(c_signal_read, shoal_signal_read(gp, (uint64_t *)&r))
C(c_fetch_op, shoal_atomic_fetch_op(gp, SHOAL_OP_SUM, SHOAL_INT64, &v, &r))
C(c_op, shoal_atomic_op(gp, SHOAL_OP_SUM, SHOAL_INT64, &v))
C(c_swap, shoal_atomic_swap(gp, SHOAL_INT64, &v, &r))
C(c_cas, shoal_atomic_cas(gp, SHOAL_INT64, &v, &v, &r))
C(c_load, shoal_atomic_load(gp, SHOAL_INT64, &r))
C(c_store, shoal_atomic_store(gp, SHOAL_INT64, &v))
C(c_barrier, shoal_barrier(SHOAL_TEAM_ALL))
C(c_lock_create, shoal_lock_create(SHOAL_TEAM_ALL, &lck_out))
C(c_lock_destroy, shoal_lock_destroy(&lck))
C(c_lock_acquire, shoal_lock_acquire(lck))
C(c_lock_try, shoal_lock_try_acquire(lck))
C(c_lock_release, shoal_lock_release(lck))
C(c_team_barrier, shoal_team_barrier(SHOAL_TEAM_ALL))
C(c_broadcast, shoal_broadcast(SHOAL_TEAM_ALL, gp, gp, 8, 0))
C(c_collect, shoal_collect(SHOAL_TEAM_ALL, gp, gp, 8))
C(c_fcollect, shoal_fcollect(SHOAL_TEAM_ALL, gp, gp, 8))
C(c_alltoall, shoal_alltoall(SHOAL_TEAM_ALL, gp, gp, 8))
C(c_alltoalls, shoal_alltoalls(SHOAL_TEAM_ALL, gp, gp, 1, 1, 8, 1))
C(c_reduce, shoal_reduce(SHOAL_TEAM_ALL, gp, gp, 1, SHOAL_TYPE_INT64, SHOAL_RED_SUM))
C(c_scan, shoal_scan(SHOAL_TEAM_ALL, gp, gp, 1, SHOAL_TYPE_INT64, 1))
C(c_override, shoal_coll_override("barrier", NULL))
C(c_last_algo, shoal_coll_last_algorithm(SHOAL_TEAM_ALL, (const char **)&grp_out))
C(c_mechanism, shoal_peer_mechanism(0, (shoal_mechanism_t *)&out32))

#define L(fn, call)                                                                                \
    { #fn, call }
static const life_case_t cases[] = {
    L(shoal_finalize, c_finalize),
    L(shoal_myid, c_myid),
    L(shoal_size, c_size),
    L(shoal_node_size, c_node_size),
    L(shoal_node_units, c_node_units),
    L(shoal_group_create, c_g_create),
    L(shoal_group_clone, c_g_clone),
    L(shoal_group_destroy, c_g_destroy),
    L(shoal_group_add_member, c_g_add),
    L(shoal_group_remove_member, c_g_remove),
    L(shoal_group_union, c_g_union),
    L(shoal_group_intersect, c_g_intersect),
    L(shoal_group_split, c_g_split),
    L(shoal_group_is_member, c_g_is_member),
    L(shoal_group_size, c_g_size),
    L(shoal_group_members, c_g_members),
    L(shoal_team_create, c_t_create),
    L(shoal_team_split, c_t_split),
    L(shoal_team_node, c_t_node),
    L(shoal_team_destroy, c_t_destroy),
    L(shoal_team_size, c_t_size),
    L(shoal_team_myid, c_t_myid),
    L(shoal_team_parent, c_t_parent),
    L(shoal_team_unit_l2g, c_t_l2g),
    L(shoal_team_unit_g2l, c_t_g2l),
    L(shoal_team_get_group, c_t_group),
    L(shoal_gptr_getaddr, c_getaddr),
    L(shoal_gptr_from_addr, c_from_addr),
    L(shoal_team_memalloc, c_tmalloc),
    L(shoal_team_memfree, c_tmfree),
    L(shoal_memalloc, c_malloc),
    L(shoal_memfree, c_free),
    L(shoal_pool_info, c_pool_info),
    L(shoal_put, c_put),
    L(shoal_get, c_get),
    L(shoal_put_nb, c_put_nb),
    L(shoal_get_nb, c_get_nb),
    L(shoal_wait, c_wait),
    L(shoal_test, c_test),
    L(shoal_waitall, c_waitall),
    L(shoal_testall, c_testall),
    L(shoal_flush, c_flush),
    L(shoal_flush_all, c_flush_all),
    L(shoal_fence, c_fence),
    L(shoal_epoch_fence, c_epoch_fence),
    L(shoal_epoch_set_design, c_epoch_set),
    L(shoal_epoch_get_design, c_epoch_get),
    L(shoal_rma_bcast_enable, c_rb_enable),
    L(shoal_rma_bcast_disable, c_rb_disable),
    L(shoal_rma_bcast, c_rb),
    L(shoal_rma_bcast_test, c_rb_test),
    L(shoal_rma_bcast_wait, c_rb_wait),
    L(shoal_rma_bcast_arrived, c_rb_arrived),
    L(shoal_rma_bcast_wait_arrival, c_rb_wait_arrival),
    L(shoal_put_strided, c_put_strided),
    L(shoal_get_strided, c_get_strided),
    L(shoal_put_signal, c_put_signal),
    L(shoal_signal, c_signal),
    L(shoal_signal_wait_until, c_signal_wait),
    L(shoal_signal_read, c_signal_read),
    L(shoal_atomic_fetch_op, c_fetch_op),
    L(shoal_atomic_op, c_op),
    L(shoal_atomic_swap, c_swap),
    L(shoal_atomic_cas, c_cas),
    L(shoal_atomic_load, c_load),
    L(shoal_atomic_store, c_store),
    L(shoal_barrier, c_barrier),
    L(shoal_lock_create, c_lock_create),
    L(shoal_lock_destroy, c_lock_destroy),
    L(shoal_lock_acquire, c_lock_acquire),
    L(shoal_lock_try_acquire, c_lock_try),
    L(shoal_lock_release, c_lock_release),
    L(shoal_team_barrier, c_team_barrier),
    L(shoal_broadcast, c_broadcast),
    L(shoal_collect, c_collect),
    L(shoal_fcollect, c_fcollect),
    L(shoal_alltoall, c_alltoall),
    L(shoal_alltoalls, c_alltoalls),
    L(shoal_reduce, c_reduce),
    L(shoal_scan, c_scan),
    L(shoal_coll_override, c_override),
    L(shoal_coll_last_algorithm, c_last_algo),
    L(shoal_peer_mechanism, c_mechanism),
};

static int cap_fd = -1;
static long fails;

static void fail(const char *when, const char *fn, const char *fmt, const char *detail) {
    fprintf(stderr, "test_bad_input_lifecycle: %s: %s: ", when, fn);
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
    fails++;
}

/* Calls c with stderr captured: NOT_INIT (or want), one line "shoal: fn: reason", no output. */
static void run_one(const char *when, const char *fn, shoal_err_t (*call)(void), shoal_err_t want) {
    char text[2048], prefix[128];
    fflush(stderr);
    int saved = -1;
    if (ftruncate(cap_fd, 0) == 0 && lseek(cap_fd, 0, SEEK_SET) == 0) saved = dup(2);
    if (saved >= 0) dup2(cap_fd, 2);
    shoal_err_t e = call();
    fflush(stderr);
    if (saved >= 0) {
        dup2(saved, 2);
        close(saved);
    }
    ssize_t n = pread(cap_fd, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = '\0';
    if (e != want) fail(when, fn, "returned %s", shoal_strerror(e));
    snprintf(prefix, sizeof prefix, "shoal: %s: ", fn);
    const char *nl = strchr(text, '\n');
    if (!nl || nl[1] || strncmp(text, prefix, strlen(prefix)) != 0 ||
        nl - text <= (ptrdiff_t)strlen(prefix))
        fail(when, fn, "not one line \"shoal: CALL: reason\": \"%s\"", text);
}

static void run_all(const char *when) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_one(when, cases[i].fn, cases[i].call, SHOAL_ERR_NOT_INIT);
    /* No output was written, no value was consumed. */
    if (out32 != -5 || team_out != -5 || gp_out.segid != 9 || grp_out != NULL || lck_out != NULL ||
        flag != 7 || r != 0x7777 || hnd != (shoal_handle_t)(uintptr_t)0x5A5A0 ||
        grp != (shoal_group_t)(uintptr_t)0x1234567 || lck != (shoal_lock_t)(uintptr_t)0xdeadbee8)
        fail(when, "(all)", "%s", "a refused call wrote one of its outputs");
    if (shoal_initialized()) fail(when, "shoal_initialized", "%s", "returned 1");
}

static shoal_err_t init_again(void) {
    return shoal_init(NULL, NULL);
}

int main(int argc, char **argv) {
    FILE *cap = tmpfile();
    if (!cap) {
        perror("tmpfile");
        return 1;
    }
    cap_fd = fileno(cap);
    run_all("before shoal_init");
    if (shoal_init(&argc, &argv) != SHOAL_OK) {
        fprintf(stderr, "test_bad_input_lifecycle: shoal_init failed\n");
        return 1;
    }
    shoal_unit_t me = -1;
    shoal_myid(&me);
    MPI_Barrier(MPI_COMM_WORLD);
    if (shoal_finalize() != SHOAL_OK) fail("finalize", "shoal_finalize", "%s", "failed");
    run_all("after shoal_finalize");
    /* Once finalised, Shoal cannot start again (MPI_Init happens once per process). */
    run_one("after shoal_finalize", "shoal_init", init_again, SHOAL_ERR_STATE);
    fclose(cap);
    if (me == 0 || fails) printf("test_bad_input_lifecycle: %s\n", fails ? "FAILED" : "OK");
    return fails ? 1 : 0;
}
