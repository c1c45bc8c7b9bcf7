#include "mpiwin.h"
#include "runtime/runtime.h"

/* Atomics only ever use one datatype per location and need not be ordered among themselves
 * beyond what flush gives. */
static MPI_Info window_info(void) {
    MPI_Info info = MPI_INFO_NULL;
    if (MPI_Info_create(&info) == MPI_SUCCESS) MPI_Info_set(info, "accumulate_ordering", "none");
    return info;
}

/* After the creation call: errors come back as codes, and the window is locked for its life. */
static shoal_err_t ready(int rc, const char *call, MPI_Info info, MPI_Win *win) {
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, call);
    MPI_Win_set_errhandler(*win, MPI_ERRORS_RETURN); /* errors come back as SHOAL_ERR_MPI */
    rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, *win);
    if (rc != MPI_SUCCESS) {
        MPI_Win_free(win);
        return shoal__mpi_fail(rc, "MPI_Win_lock_all");
    }
    return SHOAL_OK;
}

/* A team of one on the direct path reaches its only member, itself, with loads and stores: it
 * needs no window (and Open MPI's osc/rdma, which a one-node job asking for MPI_THREAD_MULTIPLE
 * runs on, cannot make one of a single process: docs/design.md). MPI_WIN_NULL stands for it. */
static int needs_no_window(MPI_Comm comm, MPI_Win *win) {
    int n = 0;
    if (!shoal__rt.direct || MPI_Comm_size(comm, &n) != MPI_SUCCESS || n != 1) return 0;
    *win = MPI_WIN_NULL;
    return 1;
}

shoal_err_t xport_win_create(void *base, size_t bytes, MPI_Comm comm, MPI_Win *win) {
    if (needs_no_window(comm, win)) return SHOAL_OK;
    MPI_Info info = window_info();
    int rc = MPI_Win_create(bytes ? base : NULL, (MPI_Aint)bytes, 1, info, comm, win);
    return ready(rc, "MPI_Win_create", info, win);
}

shoal_err_t xport_win_create_dynamic(MPI_Comm comm, MPI_Win *win) {
    if (needs_no_window(comm, win)) return SHOAL_OK;
    MPI_Info info = window_info();
    return ready(MPI_Win_create_dynamic(info, comm, win), "MPI_Win_create_dynamic", info, win);
}

shoal_err_t xport_win_free(MPI_Win *win) {
    if (*win == MPI_WIN_NULL) return SHOAL_OK;
    SHOAL_MPI(MPI_Win_unlock_all(*win));
    SHOAL_MPI(MPI_Win_free(win));
    return SHOAL_OK;
}

shoal_err_t xport_win_attach(MPI_Win win, void *base, size_t bytes, MPI_Aint *disp) {
    SHOAL_MPI(MPI_Get_address(base, disp));
    /* nothing to expose (MPI may refuse an empty range), or no window (a team of one) */
    if (bytes == 0 || win == MPI_WIN_NULL) return SHOAL_OK;
    SHOAL_MPI(MPI_Win_attach(win, base, (MPI_Aint)bytes));
    return SHOAL_OK;
}

shoal_err_t xport_win_detach(MPI_Win win, void *base, size_t bytes) {
    if (bytes == 0 || win == MPI_WIN_NULL) return SHOAL_OK;
    SHOAL_MPI(MPI_Win_detach(win, base));
    return SHOAL_OK;
}

int xport_win_sync(MPI_Win win) {
    return win == MPI_WIN_NULL ? MPI_SUCCESS : MPI_Win_sync(win);
}
