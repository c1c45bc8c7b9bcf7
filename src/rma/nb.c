/* Non-blocking put/get. On the direct path the copy happens at once (zero-copy, no handle). On
 * the MPI path: MPI_Rput/MPI_Rget; a put's handle also flushes its target on completion, since
 * an MPI request only says the origin buffer is free. Live handles are kept on a list so that
 * freeing a segment or shoal_finalize can complete them. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "epoch.h"
#include "handle_pool.h"
#include "rma.h"
#include "runtime/wait.h"

/* The program holds a token (handle_pool.h), never a record: a stale copy of a completed handle,
 * or a made-up value, is rejected without reading recycled or freed memory. */
typedef nb_record_t handle_t;

/* Threads (SHOAL_THREAD_MULTIPLE): the pool, and each handle from lookup to release, belong to
 * whoever holds this lock, so two threads completing copies of one handle cannot both finish it.
 * Below MULTIPLE one thread at a time calls Shoal (and no thread of Shoal's own touches handles),
 * so the lock is skipped: its two locked instructions per call wait for the store buffer, which
 * right after an MPI call holds MPI's own queue stores. The direct path never takes it. */
static pthread_mutex_t handles_mu = PTHREAD_MUTEX_INITIALIZER;
#define LOCKED(expr)                                                                               \
    __extension__({                                                                                \
        const int locks_ = shoal__rt.thread_provided >= SHOAL_THREAD_MULTIPLE;                     \
        if (locks_) pthread_mutex_lock(&handles_mu);                                               \
        __typeof__(expr) locked_result_ = (expr);                                                  \
        if (locks_) pthread_mutex_unlock(&handles_mu);                                             \
        locked_result_;                                                                            \
    })

/* Finishes h (waits for its request; a put also flushes the target) and releases it, also when
 * MPI fails: a handle whose completion failed is over all the same (the error is returned), so
 * nothing can wait on it forever, finalize included. */
static shoal_err_t handle_finish(handle_t *h) {
    shoal_err_t err = SHOAL_OK;
    if (!h->done) {
        int rc = MPI_Wait(&h->req, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) err = shoal__mpi_fail(rc, "MPI_Wait");
        if (err == SHOAL_OK && h->is_put && (rc = MPI_Win_flush(h->rank, h->seg->win)))
            err = shoal__mpi_fail(rc, "MPI_Win_flush");
    }
    handle_pool_release(h);
    return err;
}

static shoal_err_t issue_mpi(int is_put, void *local, const shoal_target_t *t, size_t n,
                             shoal_handle_t *handle);

static shoal_err_t issue(int is_put, void *local, const shoal_target_t *t, size_t n,
                         shoal_handle_t *handle) {
    /* An allocation in fence mode: the operation belongs to its epoch (docs/fence.md). */
    if (__builtin_expect(t->seg->epoch != NULL, 0) && t->seg->epoch->fenced)
        return shoal__epoch_issue(is_put, local, t, n, handle);
    if (t->addr) {
        shoal__copy_ordered(is_put, local, t->addr, n);
        *handle = SHOAL_HANDLE_NULL;
        return SHOAL_OK;
    }
    if (n > (size_t)1 << 30) { /* beyond one MPI count: do it blocking, report it complete */
        *handle = SHOAL_HANDLE_NULL;
        return is_put ? shoal__put(t, local, n) : shoal__get(local, t, n);
    }
    return LOCKED(issue_mpi(is_put, local, t, n, handle));
}

static shoal_err_t issue_mpi(int is_put, void *local, const shoal_target_t *t, size_t n,
                             shoal_handle_t *handle) {
    handle_t *h = handle_pool_take();
    if (!h) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for a handle");
    int rc = is_put ? MPI_Rput(local, (int)n, MPI_BYTE, t->rank, t->disp, (int)n, MPI_BYTE,
                               t->seg->win, &h->req)
                    : MPI_Rget(local, (int)n, MPI_BYTE, t->rank, t->disp, (int)n, MPI_BYTE,
                               t->seg->win, &h->req);
    if (rc != MPI_SUCCESS) {
        handle_pool_release(h);
        return shoal__mpi_fail(rc, is_put ? "MPI_Rput" : "MPI_Rget");
    }
    h->is_put = is_put;
    h->seg = t->seg;
    h->rank = t->rank;
    shoal__segment_mark_dirty(t->seg, t->rank);
    *handle = (shoal_handle_t)handle_pool_token(h);
    return SHOAL_OK;
}

/* The direct path's common cases, in line (a fence epoch's element-wise loops issue millions of
 * these): a mapped target outside fence mode, or in an open epoch whose design only copies now
 * and notes the target. 1: done; 0: issue() takes it. */
static inline __attribute__((always_inline)) int issue_direct(int is_put, void *local,
                                                              const shoal_target_t *t, size_t n) {
    epoch_t *e = t->seg->epoch;
    int in_epoch = e != NULL && e->fenced;
    if (!t->addr || !n || (in_epoch && !shoal__epoch_moves_plainly(e))) return 0;
    shoal__copy_ordered(is_put, local, t->addr, n);
    if (in_epoch) shoal__epoch_note_target(e, t->rank);
    return 1;
}

shoal_err_t shoal_put_nb(shoal_gptr_t dest, const void *src, size_t nbytes,
                         shoal_handle_t *handle) {
    SHOAL_ENTER("shoal_put_nb");
    if (!handle) return shoal__fail(SHOAL_ERR_INVAL, "NULL handle output");
    if (!src && nbytes)
        return shoal__fail(SHOAL_ERR_INVAL, "NULL source buffer for %zu bytes", nbytes);
    shoal_target_t t = {0};
    SHOAL_TRY(shoal__resolve(dest, nbytes, &t));
    if (__builtin_expect(issue_direct(1, (void *)src, &t, nbytes), 1)) {
        *handle = SHOAL_HANDLE_NULL;
        return SHOAL_OK;
    }
    return issue(1, (void *)src, &t, nbytes, handle);
}

shoal_err_t shoal_get_nb(void *dest, shoal_gptr_t src, size_t nbytes, shoal_handle_t *handle) {
    SHOAL_ENTER("shoal_get_nb");
    if (!handle) return shoal__fail(SHOAL_ERR_INVAL, "NULL handle output");
    if (!dest && nbytes)
        return shoal__fail(SHOAL_ERR_INVAL, "NULL destination buffer for %zu bytes", nbytes);
    shoal_target_t t = {0};
    SHOAL_TRY(shoal__resolve(src, nbytes, &t));
    if (__builtin_expect(issue_direct(0, dest, &t, nbytes), 1)) {
        *handle = SHOAL_HANDLE_NULL;
        return SHOAL_OK;
    }
    return issue(0, dest, &t, nbytes, handle);
}

/* The live record behind a non-NULL token, or a reported SHOAL_ERR_HANDLE. */
static shoal_err_t check_handle(shoal_handle_t token, handle_t **h) {
    switch (handle_pool_find((uintptr_t)token, h)) {
    case OBJ_LIVE:
        return SHOAL_OK;
    case OBJ_STALE:
        return shoal__fail(SHOAL_ERR_HANDLE,
                           "handle %p was already completed (by wait or test): a stale copy",
                           (void *)token);
    default:
        return shoal__fail(SHOAL_ERR_HANDLE, "%p is not a handle Shoal issued", (void *)token);
    }
}

static shoal_err_t wait_one(shoal_handle_t *handle) {
    handle_t *h = NULL;
    SHOAL_TRY(check_handle(*handle, &h));
    *handle = SHOAL_HANDLE_NULL; /* released even when completion failed */
    return handle_finish(h);
}

shoal_err_t shoal_wait(shoal_handle_t *handle) {
    SHOAL_ENTER("shoal_wait");
    if (!handle) return shoal__fail(SHOAL_ERR_INVAL, "NULL handle pointer");
    if (!*handle) return SHOAL_OK;
    return LOCKED(wait_one(handle));
}

/* One non-blocking look at h: *done = 1 (and h finished and released) or 0. A failure also
 * releases h (and reports done): the operation is over, and its error is returned. */
static shoal_err_t test_one(handle_t *h, int *done) {
    int flag = h->done, rc = MPI_SUCCESS;
    if (!flag) rc = MPI_Test(&h->req, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        *done = 1;
        handle_pool_release(h);
        return shoal__mpi_fail(rc, "MPI_Test");
    }
    if (flag) {
        h->done = 1; /* request finished: handle_finish only flushes (for a put) */
        if (h->is_put && h->seg) rc = MPI_Win_flush(h->rank, h->seg->win);
        handle_pool_release(h);
    }
    *done = flag;
    return rc == MPI_SUCCESS ? SHOAL_OK : shoal__mpi_fail(rc, "MPI_Win_flush");
}

static shoal_err_t test_token(shoal_handle_t *handle, int *done) {
    handle_t *h = NULL;
    SHOAL_TRY(check_handle(*handle, &h));
    int finished = 0;
    shoal_err_t err = test_one(h, &finished);
    if (finished) *handle = SHOAL_HANDLE_NULL;
    *done = finished;
    return err;
}

shoal_err_t shoal_test(shoal_handle_t *handle, int *done) {
    SHOAL_ENTER("shoal_test");
    if (!handle || !done) return shoal__fail(SHOAL_ERR_INVAL, "NULL handle pointer or output");
    if (!*handle) {
        *done = 1;
        return SHOAL_OK;
    }
    return LOCKED(test_token(handle, done));
}

/* Remote completion for the puts among handles[0..n): one MPI_Win_flush per (window, rank), not
 * one per handle (a flush is a round trip on most transports). Up to FLUSH_DISTINCT pairs are
 * told apart; past that, a pair may be flushed twice. Never MPI_Win_flush_all, which MPICH 4.0.2
 * does not always complete with (src/mem/segment.c, flush_members). */
#define FLUSH_DISTINCT 32
static shoal_err_t flush_puts_once(handle_t **hs, size_t n) {
    struct {
        MPI_Win win;
        int32_t rank;
    } seen[FLUSH_DISTINCT];
    size_t nseen = 0;
    shoal_err_t err = SHOAL_OK;
    for (size_t i = 0; i < n; i++) {
        handle_t *h = hs[i];
        if (!h || !h->is_put || h->done) continue;
        MPI_Win win = h->seg->win;
        int dup = 0;
        for (size_t k = 0; k < nseen && !dup; k++)
            dup = seen[k].win == win && seen[k].rank == h->rank;
        if (dup) continue;
        int rc = MPI_Win_flush(h->rank, win);
        if (nseen < FLUSH_DISTINCT) {
            seen[nseen].win = win;
            seen[nseen++].rank = h->rank;
        }
        if (rc != MPI_SUCCESS && err == SHOAL_OK) err = shoal__mpi_fail(rc, "MPI_Win_flush");
    }
    return err;
}

/* The records behind tokens[0..n) (NULL entries stay NULL), all checked before anything is done;
 * *out is a malloc'd array (NULL when n == 0). */
static shoal_err_t check_handles(const shoal_handle_t *tokens, size_t n, handle_t ***out) {
    *out = NULL;
    if (!n) return SHOAL_OK;
    handle_t **hs = calloc(n, sizeof *hs);
    if (!hs) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for %zu handles", n);
    for (size_t i = 0; i < n; i++) {
        shoal_err_t err = tokens[i] ? check_handle(tokens[i], &hs[i]) : SHOAL_OK;
        if (err != SHOAL_OK) {
            free(hs);
            return err;
        }
    }
    *out = hs;
    return SHOAL_OK;
}

static shoal_err_t waitall_locked(shoal_handle_t *handles, size_t n);

shoal_err_t shoal_waitall(shoal_handle_t *handles, size_t n) {
    SHOAL_ENTER("shoal_waitall");
    if (!handles && n) return shoal__fail(SHOAL_ERR_INVAL, "NULL handle array");
    return LOCKED(waitall_locked(handles, n));
}

static shoal_err_t waitall_locked(shoal_handle_t *handles, size_t n) {
    handle_t **hs = NULL;
    SHOAL_TRY(check_handles(handles, n, &hs));
    /* All local completions first, then the remote completions, deduplicated. Every handle is
     * released whatever fails: each operation is over, and the first error is returned. */
    shoal_err_t err = SHOAL_OK;
    for (size_t i = 0; i < n; i++) {
        if (!hs[i] || hs[i]->done) continue;
        int rc = MPI_Wait(&hs[i]->req, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS && err == SHOAL_OK) err = shoal__mpi_fail(rc, "MPI_Wait");
    }
    shoal_err_t ferr = flush_puts_once(hs, n);
    if (err == SHOAL_OK) err = ferr;
    for (size_t i = 0; i < n; i++) {
        /* a handle listed twice was released on its first appearance: its token is gone */
        if (hs[i] && handle_pool_token(hs[i]) == (uintptr_t)handles[i]) handle_pool_release(hs[i]);
        handles[i] = SHOAL_HANDLE_NULL;
    }
    free(hs);
    return err;
}

static shoal_err_t testall_locked(shoal_handle_t *handles, size_t n, int *all_done);

shoal_err_t shoal_testall(shoal_handle_t *handles, size_t n, int *all_done) {
    SHOAL_ENTER("shoal_testall");
    if ((!handles && n) || !all_done) return shoal__fail(SHOAL_ERR_INVAL, "NULL array or output");
    return LOCKED(testall_locked(handles, n, all_done));
}

static shoal_err_t testall_locked(shoal_handle_t *handles, size_t n, int *all_done) {
    handle_t **hs = NULL;
    SHOAL_TRY(check_handles(handles, n, &hs));
    int all = 1;
    shoal_err_t err = SHOAL_OK;
    for (size_t i = 0; i < n; i++) {
        if (!hs[i]) continue;
        if (handle_pool_token(hs[i]) !=
            (uintptr_t)handles[i]) { /* listed twice: finished just now */
            handles[i] = SHOAL_HANDLE_NULL;
            continue;
        }
        int done = 0;
        shoal_err_t e = test_one(hs[i], &done);
        if (e != SHOAL_OK && err == SHOAL_OK) err = e;
        if (done)
            handles[i] = SHOAL_HANDLE_NULL;
        else
            all = 0;
    }
    free(hs);
    *all_done = all;
    return err;
}

size_t shoal__handles_complete_all(void) {
    size_t n = 0;
    pthread_mutex_lock(&handles_mu);
    for (uint32_t i = 0; i < handle_pool_size(); i++) {
        handle_t *h = handle_pool_at(i);
        if (!h->live) continue;
        n++;
        handle_finish(h); /* always releases */
    }
    pthread_mutex_unlock(&handles_mu);
    return n;
}

void shoal__handles_complete_segment(const segment_t *seg) {
    /* The program's handle stays valid: it is marked done, and its wait/test just releases it. */
    pthread_mutex_lock(&handles_mu);
    for (uint32_t i = 0; i < handle_pool_size(); i++) {
        handle_t *h = handle_pool_at(i);
        if (!h->live || h->seg != seg || h->done) continue;
        MPI_Wait(&h->req, MPI_STATUS_IGNORE);
        if (h->is_put) MPI_Win_flush(h->rank, seg->win);
        h->done = 1;
        h->seg = NULL;
    }
    pthread_mutex_unlock(&handles_mu);
}

void shoal__handles_release_spares(void) {
    pthread_mutex_lock(&handles_mu);
    handle_pool_release_all();
    pthread_mutex_unlock(&handles_mu);
}
