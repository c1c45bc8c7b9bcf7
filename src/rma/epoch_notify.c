/* The notify design's notifications through MPI (docs/fence.md, "Immediate with notification").
 *
 * A notification may leave only once its put is complete at the target, and MPI orders nothing
 * between a put and an accumulate to another location: the put must be flushed first. Flushing
 * inside shoal_put_nb made every put blocking, so nothing could overlap it (0-1 % on one node,
 * 17 % for 1 MiB across nodes). Now the put goes out and only its count is kept (unsent_to). The
 * progress thread, when it runs, flushes each such target while the program computes, which is
 * what moves the data there (MPICH's and Open MPI's osc/pt2pt's puts move while someone drives
 * MPI), and adds the count to the target's ARRIVED word; the closing fence sends whatever is left,
 * one flush and one add per target rather than per put. Where the fence exchanges messages
 * (epoch/exchange.c), no notification through MPI is an add: the thread only flushes (flushed_to
 * keeps it from flushing the same puts again), and the fence's message to the target says how
 * many arrived. An add there would cost the thread a second round trip after the data's, which a
 * fence that came meanwhile would wait for. The other immediate designs' operations through MPI
 * (imm_barrier's puts too large to wait for the fence, imm_naive's, gets) are flushed by the
 * thread the same way and nothing is added for them; their unsent_to and flushed_to only grow
 * (the thread flushes a member while they differ), so their fences touch neither: the fence's
 * own flush completes what the thread has not, and a later flush of a member with nothing
 * outstanding costs the thread little. A change of design starts both from 0 again.
 *
 * Locks: list_mu guards the list of states with unsent notifications (taken for a moment by the
 * program on a put, by the thread to pop one); work_mu is held by the thread while it sends, so
 * that a fence or a free that takes it knows the thread is not inside that state. */
#include <pthread.h>

#include "epoch.h"
#include "runtime/progress.h"

static pthread_mutex_t list_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t work_mu = PTHREAD_MUTEX_INITIALIZER;
static epoch_t *list_head;

static void unlist_locked(epoch_t *e) {
    if (!e->bg_listed) return;
    for (epoch_t **p = &list_head; *p; p = &(*p)->bg_next)
        if (*p == e) {
            __atomic_store_n(p, e->bg_next, __ATOMIC_RELAXED);
            break;
        }
    e->bg_listed = 0;
}

/* Keeps the thread out of e: waits until it is done with e (it may be flushing or sending for e
 * right now) and takes e off its list. Until let_thread_in, e's counts are the caller's. */
static void keep_thread_out(epoch_t *e) {
    pthread_mutex_lock(&work_mu);
    pthread_mutex_lock(&list_mu);
    unlist_locked(e);
    pthread_mutex_unlock(&list_mu);
}

static void let_thread_in(void) {
    pthread_mutex_unlock(&work_mu);
}

/* Sends rel's unsent notifications: the data to rel complete first, then one add of their number.
 * The thread completes its add (nobody else would); the fence leaves it to its barrier, from
 * sent_vals, which no other add of this epoch uses. On failure the count goes back, so that the
 * fence tries again and reports. */
static shoal_err_t send_unsent(epoch_t *e, int32_t rel, int by_thread) {
    uint32_t k = __atomic_exchange_n(&e->unsent_to[rel], 0, __ATOMIC_ACQ_REL);
    if (!k) return SHOAL_OK;
    shoal_err_t err = shoal__epoch_complete_to(e, e->seg, rel);
    if (err == SHOAL_OK) {
        if (by_thread)
            err = shoal__epoch_ctrl_add(e, rel, EPOCH_OFF_ARRIVED, k, 1);
        else {
            e->sent_vals[rel] = k;
            err = shoal__epoch_ctrl_add_from(e, rel, EPOCH_OFF_ARRIVED, &e->sent_vals[rel], 0);
        }
    }
    if (err != SHOAL_OK) __atomic_fetch_add(&e->unsent_to[rel], k, __ATOMIC_RELAXED);
    return err;
}

/* The progress thread's share: every listed state's notifications, or only its flushes (above),
 * one state at a time (popped under list_mu, so that an operation meanwhile lists it again rather
 * than being missed). */
static void send_in_background(void) {
    if (!__atomic_load_n(&list_head, __ATOMIC_ACQUIRE)) return;
    pthread_mutex_lock(&work_mu);
    for (;;) {
        pthread_mutex_lock(&list_mu);
        epoch_t *e = list_head;
        if (e) {
            __atomic_store_n(&list_head, e->bg_next, __ATOMIC_RELAXED);
            e->bg_listed = 0;
        }
        pthread_mutex_unlock(&list_mu);
        if (!e) break;
        int32_t size = e->ctrl.team->size;
        const int adds = e->design == SHOAL_EPOCH_IMM_NOTIFY && !e->exchange;
        for (int32_t r = 0; r < size; r++) {
            uint32_t u = __atomic_load_n(&e->unsent_to[r], __ATOMIC_ACQUIRE);
            if (adds) {
                if (u) (void)send_unsent(e, r, 1); /* a failure is left for the fence */
            } else if (u != e->flushed_to[r]) {    /* only the data (a fence's message notifies) */
                if (shoal__epoch_complete_to(e, e->seg, r) == SHOAL_OK) e->flushed_to[r] = u;
            }
        }
    }
    pthread_mutex_unlock(&work_mu);
}

/* Puts e on the thread's list (once per listing, not per operation). */
static void list_for_thread(epoch_t *e) {
    pthread_mutex_lock(&list_mu);
    if (!e->bg_listed) { /* the thread's work first, then the state */
        shoal__progress_set_work(send_in_background);
        e->bg_listed = 1;
        e->bg_next = list_head;
        __atomic_store_n(&list_head, e, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&list_mu);
}

void shoal__epoch_notify_later(epoch_t *e, int32_t rel) {
    __atomic_fetch_add(&e->unsent_to[rel], 1, __ATOMIC_RELEASE);
    if (shoal__progress_running()) list_for_thread(e); /* else the fence sends them */
}

void shoal__epoch_flush_later(epoch_t *e, int32_t rel) {
    if (!shoal__progress_running()) return; /* the fence's flush moves them */
    __atomic_fetch_add(&e->unsent_to[rel], 1, __ATOMIC_RELEASE);
    list_for_thread(e);
}

void shoal__epoch_flush_reset(epoch_t *e) {
    keep_thread_out(e);
    for (int32_t r = 0; r < e->ctrl.team->size; r++) {
        __atomic_store_n(&e->unsent_to[r], 0, __ATOMIC_RELAXED);
        e->flushed_to[r] = 0;
    }
    let_thread_in();
}

shoal_err_t shoal__epoch_notify_send_all(epoch_t *e) {
    int any = 0;
    for (uint32_t i = 0; i < e->ntouched && !any; i++)
        any = __atomic_load_n(&e->unsent_to[e->touched[i]], __ATOMIC_RELAXED) != 0;
    if (!any) return SHOAL_OK;
    shoal_err_t err = SHOAL_OK;
    keep_thread_out(e);
    for (uint32_t i = 0; i < e->ntouched; i++) e->flushed_to[e->touched[i]] = 0;
    for (uint32_t i = 0; i < e->ntouched && err == SHOAL_OK; i++)
        err = send_unsent(e, e->touched[i], 0);
    let_thread_in();
    return err;
}

void shoal__epoch_notify_take_unsent(epoch_t *e) {
    keep_thread_out(e);
    for (uint32_t i = 0; i < e->ntouched; i++) {
        int32_t r = e->touched[i];
        e->notes_to[r] -= __atomic_exchange_n(&e->unsent_to[r], 0, __ATOMIC_ACQ_REL);
        e->flushed_to[r] = 0;
    }
    let_thread_in();
}

void shoal__epoch_notify_forget(epoch_t *e) {
    keep_thread_out(e);
    let_thread_in();
}
