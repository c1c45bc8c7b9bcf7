/* The one-sided broadcast on a plain MPI program's own window (include/shoal/rma_bcast_mpi.h):
 * MPI only, no shoal_init needed. A registration makes a second window over the program's
 * window memory (its own passive epoch, so the program's epochs are untouched) and a control
 * window (MPI_Win_create over host memory: MPICH's atomics are wrong on MPI_Win_allocate windows,
 * docs/design.md), both locked for the registration's life; then the rb_space core does the
 * rest, with every access through MPI. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rbcast.h"
#include "runtime/error.h"
#include "runtime/objtab.h"
#include "runtime/runtime.h"
#include "shoal/rma_bcast_mpi.h"
#include "space.h"

typedef struct mpi_reg {
    int wid;
    MPI_Comm comm;
    MPI_Win data_win, ctrl_win;
    uint64_t *ctrl_mem;
    char **nulls;    /* [size] nothing is mapped: every access goes through MPI */
    MPI_Aint *zeros; /* [size] displacements start at 0 in both windows */
    size_t *sizes;   /* [size] each rank's window bytes */
    MPI_Aint *units; /* [size] each rank's displacement unit */
    rb_space_t sp;
    struct mpi_reg *next;
} mpi_reg_t;

static mpi_reg_t *regs;
static int next_wid = 1;
static pthread_mutex_t regs_mu = PTHREAD_MUTEX_INITIALIZER; /* roots may be several threads */

static shoal_err_t enter(const char *call) {
    shoal__current_call = call;
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (!up || down)
        return shoal__fail(SHOAL_ERR_NOT_INIT, "MPI is not initialised (or finalised already)");
    return SHOAL_OK;
}

static shoal_err_t find(int wid, mpi_reg_t **out) {
    pthread_mutex_lock(&regs_mu);
    mpi_reg_t *r = regs;
    while (r && r->wid != wid) r = r->next;
    pthread_mutex_unlock(&regs_mu);
    if (!r)
        return shoal__fail(SHOAL_ERR_STATE,
                           "window id %d is not registered (never, or deregistered since)", wid);
    *out = r;
    return SHOAL_OK;
}

static void reg_free(mpi_reg_t *g) {
    if (!g) return;
    if (g->sp.token) objtab_remove(OBJ_RB_SPACE, g->sp.token);
    free(g->ctrl_mem);
    free(g->nulls);
    free(g->zeros);
    free(g->sizes);
    free(g->units);
    free(g);
}

/* What is wrong with the program's window for broadcasts (SHOAL_OK when nothing). */
static shoal_err_t check_window(MPI_Win win, MPI_Comm comm, void **base, MPI_Aint *size,
                                int *unit) {
    int level = MPI_THREAD_SINGLE, flag = 0;
    MPI_Query_thread(&level);
    if (level != MPI_THREAD_MULTIPLE)
        return shoal__fail(SHOAL_ERR_UNSUPPORTED,
                           "MPI runs at thread level %d; the relay threads call MPI while the "
                           "program does, which needs MPI_THREAD_MULTIPLE (MPI_Init_thread)",
                           level);
    if (win == MPI_WIN_NULL || comm == MPI_COMM_NULL)
        return shoal__fail(SHOAL_ERR_INVAL, "MPI_WIN_NULL or MPI_COMM_NULL");
    int *flavor = NULL;
    if (MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag) != MPI_SUCCESS || !flag)
        return shoal__fail(SHOAL_ERR_INVAL, "not a window (no MPI_WIN_CREATE_FLAVOR)");
    if (*flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return shoal__fail(SHOAL_ERR_INVAL, "a dynamic window has no memory of its own to land in");
    MPI_Aint *sz = NULL;
    int *du = NULL;
    MPI_Win_get_attr(win, MPI_WIN_BASE, base, &flag);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag);
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag);
    *size = *sz;
    *unit = *du;
    MPI_Group wg, cg;
    int same = MPI_UNEQUAL;
    MPI_Win_get_group(win, &wg);
    MPI_Comm_group(comm, &cg);
    MPI_Group_compare(wg, cg, &same);
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);
    if (same != MPI_IDENT)
        return shoal__fail(SHOAL_ERR_INVAL, "comm is not the communicator the window was made on "
                                            "(its group differs)");
    return SHOAL_OK;
}

shoal_err_t shoal_rma_bcast_mpi_register(MPI_Win win, MPI_Comm comm, int *wid) {
    SHOAL_TRY(enter("shoal_rma_bcast_mpi_register"));
    void *base = NULL;
    MPI_Aint size = 0;
    int unit = 1;
    shoal_err_t mine = wid ? check_window(win, comm, &base, &size, &unit)
                           : shoal__fail(SHOAL_ERR_INVAL, "NULL wid");
    mpi_reg_t *g = NULL;
    int n = 0, me = 0;
    if (mine == SHOAL_OK) {
        MPI_Comm_size(comm, &n);
        MPI_Comm_rank(comm, &me);
        g = calloc(1, sizeof *g);
        if (g) {
            g->ctrl_mem = calloc(1, RB_CTRL_BYTES);
            g->nulls = calloc((size_t)n, sizeof *g->nulls);
            g->zeros = calloc((size_t)n, sizeof *g->zeros);
            g->sizes = calloc((size_t)n, sizeof *g->sizes);
            g->units = calloc((size_t)n, sizeof *g->units);
        }
        if (!g || !g->ctrl_mem || !g->nulls || !g->zeros || !g->sizes || !g->units)
            mine = shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for the registration");
        else
            mine = rb_params_load(&g->sp);
    }
    /* Every rank's verdict (a rank with bad arguments fails them all, nobody waits). */
    int verdict = (int)mine, all = 0;
    if (MPI_Allreduce(&verdict, &all, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        all = SHOAL_ERR_MPI;
    if (all != SHOAL_OK) {
        reg_free(g);
        return mine != SHOAL_OK ? mine
                                : shoal__fail((shoal_err_t)all, "another rank rejected the "
                                                                "registration (see its message)");
    }
    MPI_Aint mine2[2] = {size, unit}, *every = malloc(2 * (size_t)n * sizeof *every);
    int rc = every ? MPI_Comm_dup(comm, &g->comm) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(g->comm, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS) rc = MPI_Allgather(mine2, 2, MPI_AINT, every, 2, MPI_AINT, g->comm);
    /* One rank broadcasts to itself: no window at all (Open MPI's osc/rdma cannot make one on a
     * single process). */
    g->data_win = g->ctrl_win = MPI_WIN_NULL;
    if (rc == MPI_SUCCESS && n > 1)
        rc = MPI_Win_create(base, size, unit, MPI_INFO_NULL, g->comm, &g->data_win);
    if (rc == MPI_SUCCESS && n > 1)
        rc = MPI_Win_create(g->ctrl_mem, RB_CTRL_BYTES, 1, MPI_INFO_NULL, g->comm, &g->ctrl_win);
    if (rc == MPI_SUCCESS && n > 1) {
        MPI_Win_set_errhandler(g->data_win, MPI_ERRORS_RETURN);
        MPI_Win_set_errhandler(g->ctrl_win, MPI_ERRORS_RETURN);
        rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, g->data_win);
    }
    if (rc == MPI_SUCCESS && n > 1) rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, g->ctrl_win);
    if (rc != MPI_SUCCESS) { /* MPI failed in a collective step: errors are fatal by default */
        free(every);
        reg_free(g);
        return shoal__mpi_fail(rc, "creating the broadcast windows");
    }
    for (int r = 0; r < n; r++) {
        g->sizes[r] = (size_t)every[2 * r];
        g->units[r] = every[2 * r + 1];
    }
    free(every);
    rb_space_t *sp = &g->sp;
    sp->size = n;
    sp->me = me;
    sp->face_mpi = 1;
    sp->data_win = g->data_win;
    sp->data_direct = g->nulls;
    sp->data_disp0 = g->zeros;
    sp->data_unit = unit;
    sp->data_size = g->sizes;
    sp->my_data = base;
    sp->ctrl_win = g->ctrl_win;
    sp->ctrl_direct = g->nulls;
    sp->ctrl_disp0 = g->zeros;
    sp->ctrl_mine = (char *)g->ctrl_mem;
    sp->ctrl_cpu = 0;
    sp->uses_mpi = 1;
    if (n == 1) { /* my own words and region, with CPU atomics */
        sp->ctrl_direct = &sp->ctrl_mine;
        sp->ctrl_cpu = 1;
        sp->uses_mpi = 0;
    }
    sp->face = g;
    sp->token = objtab_insert(OBJ_RB_SPACE, sp);
    shoal_err_t err = sp->token ? rb_relay_start(sp)
                                : shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for the table");
    if (err != SHOAL_OK) { /* cannot be undone collectively: leave the windows to MPI_Finalize */
        return err;
    }
    pthread_mutex_lock(&regs_mu);
    g->wid = next_wid++;
    g->next = regs;
    regs = g;
    pthread_mutex_unlock(&regs_mu);
    *wid = g->wid;
    return SHOAL_OK;
}

shoal_err_t shoal_rma_bcast_mpi_deregister(int wid) {
    SHOAL_TRY(enter("shoal_rma_bcast_mpi_deregister"));
    mpi_reg_t *g = NULL;
    SHOAL_TRY(find(wid, &g));
    SHOAL_TRY(rb_quiesce(&g->sp)); /* a broadcast in flight needs every relay */
    SHOAL_MPI(MPI_Barrier(g->comm));
    rb_relay_stop(&g->sp);
    pthread_mutex_lock(&regs_mu);
    for (mpi_reg_t **p = &regs; *p; p = &(*p)->next)
        if (*p == g) {
            *p = g->next;
            break;
        }
    pthread_mutex_unlock(&regs_mu);
    int rc = MPI_SUCCESS;
    if (g->data_win != MPI_WIN_NULL) {
        rc = MPI_Win_unlock_all(g->data_win);
        if (rc == MPI_SUCCESS) rc = MPI_Win_unlock_all(g->ctrl_win);
        if (rc == MPI_SUCCESS) rc = MPI_Win_free(&g->data_win);
        if (rc == MPI_SUCCESS) rc = MPI_Win_free(&g->ctrl_win);
    }
    if (rc == MPI_SUCCESS) rc = MPI_Comm_free(&g->comm);
    reg_free(g);
    return rc == MPI_SUCCESS ? SHOAL_OK : shoal__mpi_fail(rc, "freeing the broadcast windows");
}

shoal_err_t shoal_rma_bcast_mpi(int wid, const void *buf, size_t nbytes, MPI_Aint disp,
                                shoal_rma_bcast_algo_t algo, shoal_rma_bcast_t *req,
                                uint64_t *seq) {
    SHOAL_TRY(enter("shoal_rma_bcast_mpi"));
    if (!req) return shoal__fail(SHOAL_ERR_INVAL, "NULL request output");
    if (nbytes == 0)
        return shoal__fail(SHOAL_ERR_INVAL, "a broadcast of 0 bytes (nothing to send)");
    if (!buf) return shoal__fail(SHOAL_ERR_INVAL, "NULL buffer for %zu bytes", nbytes);
    if ((unsigned)algo > SHOAL_RMA_BCAST_BINOMIAL)
        return shoal__fail(SHOAL_ERR_INVAL, "%d is not a broadcast algorithm", (int)algo);
    if (disp < 0) return shoal__fail(SHOAL_ERR_BOUNDS, "negative displacement %ld", (long)disp);
    mpi_reg_t *g = NULL;
    SHOAL_TRY(find(wid, &g));
    /* Every rank's window must hold it: checked here, before anything moves. */
    for (int r = 0; r < g->sp.size; r++) {
        size_t at = (size_t)disp * (size_t)g->units[r];
        if (at > g->sizes[r] || nbytes > g->sizes[r] - at)
            return shoal__fail(SHOAL_ERR_BOUNDS,
                               "%zu bytes at displacement %ld reach past the window of rank %d "
                               "(%zu bytes, disp_unit %ld)",
                               nbytes, (long)disp, r, g->sizes[r], (long)g->units[r]);
    }
    return shoal__rb_start(&g->sp, (uint64_t)disp, buf, nbytes, algo, req, seq);
}

shoal_err_t shoal_rma_bcast_mpi_test(shoal_rma_bcast_t *req, int *done) {
    SHOAL_TRY(enter("shoal_rma_bcast_mpi_test"));
    return shoal__rb_req_test(req, done);
}

shoal_err_t shoal_rma_bcast_mpi_wait(shoal_rma_bcast_t *req) {
    SHOAL_TRY(enter("shoal_rma_bcast_mpi_wait"));
    return shoal__rb_req_wait(req);
}

shoal_err_t shoal_rma_bcast_mpi_arrived(int wid, uint64_t seq, int *arrived) {
    SHOAL_TRY(enter("shoal_rma_bcast_mpi_arrived"));
    if (!arrived) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    mpi_reg_t *g = NULL;
    SHOAL_TRY(find(wid, &g));
    return rb_arrived(&g->sp, seq, arrived);
}

shoal_err_t shoal_rma_bcast_mpi_wait_arrival(int wid, uint64_t seq) {
    SHOAL_TRY(enter("shoal_rma_bcast_mpi_wait_arrival"));
    mpi_reg_t *g = NULL;
    SHOAL_TRY(find(wid, &g));
    return rb_wait_arrival(&g->sp, seq);
}
