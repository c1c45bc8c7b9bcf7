/* The one-sided broadcast's algorithms, relay thread and completion (the RMA broadcast paper,
 * sections 2.1-2.2; docs/rma_bcast.md), on an rb_space of either face.
 *
 * A broadcast holds the space (a ticket lock at member 0) from its start until the last member
 * has the data, so broadcasts on one space never mix and run in the order their roots asked: the
 * member whose DONE add completes the count serves the next ticket, without the root's help. The
 * root copies into its own region, and either puts to everyone (linear) or to its binomial
 * children (PutRequest: data, then descriptor, both complete, then the request word); each
 * child's relay thread forwards to its own subtree from its region and adds one to the root's
 * DONE. */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime/config.h"
#include "runtime/error.h"
#include "runtime/runtime.h"
#include "runtime/wait.h"
#include "follow.h"
#include "space.h"
#include "xport/copy.h"
#include "xport/mpiwin.h"

typedef enum { CTRL_LOAD, CTRL_STORE, CTRL_FADD } ctrl_op_t;

/* An atomic on a control word of member r on the MPI path, issued but not completed: *operand
 * (STORE, FADD) and *result (LOAD, FADD; may be NULL for FADD) must stay valid until a flush, as
 * MPI asks of origin buffers. */
static shoal_err_t ctrl_mpi(rb_space_t *sp, int32_t r, size_t off, ctrl_op_t op,
                            const uint64_t *operand, uint64_t *result) {
    MPI_Aint disp = sp->ctrl_disp0[r] + (MPI_Aint)off;
    int rank = sp->ctrl_rank ? sp->ctrl_rank[r] : r, rc = MPI_SUCCESS;
    if (op == CTRL_LOAD)
        rc = MPI_Fetch_and_op(NULL, result, MPI_UINT64_T, rank, disp, MPI_NO_OP, sp->ctrl_win);
    else if (op == CTRL_FADD && result)
        rc = MPI_Fetch_and_op(operand, result, MPI_UINT64_T, rank, disp, MPI_SUM, sp->ctrl_win);
    else
        rc = MPI_Accumulate(operand, 1, MPI_UINT64_T, rank, disp, 1, MPI_UINT64_T,
                            op == CTRL_STORE ? MPI_REPLACE : MPI_SUM, sp->ctrl_win);
    if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, "an atomic on a broadcast control word");
    return SHOAL_OK;
}

/* One atomic on a control word of member r, complete at return: CPU atomics on the mapping, or
 * an MPI atomic and a flush of that member. *result gets the old value (LOAD, FADD). */
static shoal_err_t ctrl(rb_space_t *sp, int32_t r, size_t off, ctrl_op_t op, uint64_t value,
                        uint64_t *result) {
    uint64_t old = 0;
    if (sp->ctrl_cpu) {
        uint64_t *w = (uint64_t *)(sp->ctrl_direct[r] + off);
        switch (op) {
        case CTRL_LOAD:
            old = __atomic_load_n(w, __ATOMIC_SEQ_CST);
            break;
        case CTRL_STORE:
            __atomic_store_n(w, value, __ATOMIC_SEQ_CST);
            break;
        case CTRL_FADD:
            old = __atomic_fetch_add(w, value, __ATOMIC_SEQ_CST);
            break;
        }
    } else {
        SHOAL_TRY(ctrl_mpi(sp, r, off, op, &value, op == CTRL_STORE ? NULL : &old));
        int rc = MPI_Win_flush(sp->ctrl_rank ? sp->ctrl_rank[r] : r, sp->ctrl_win);
        if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, "an atomic on a broadcast control word");
    }
    if (result) *result = old;
    return SHOAL_OK;
}

/* The same atomics, but on the MPI path only issued: a batch costs one round trip (ctrl_complete)
 * instead of one each (the buffers' lifetime as for ctrl_mpi). */
static shoal_err_t ctrl_issue(rb_space_t *sp, int32_t r, size_t off, ctrl_op_t op,
                              const uint64_t *operand, uint64_t *result) {
    if (sp->ctrl_cpu) return ctrl(sp, r, off, op, operand ? *operand : 0, result);
    return ctrl_mpi(sp, r, off, op, operand, result);
}

/* Completes every ctrl_issue so far to member `only`, or to every member when it is -1 (MPI path;
 * nothing to do with CPU atomics). A flush per member, not MPI_Win_flush_all: MPICH 4.0.2
 * (ch4/UCX) at 3-4 processes sometimes returns from flush_all with a fetched value or a large put
 * not yet complete (src/mem/segment.c, flush_members). */
static shoal_err_t ctrl_complete(rb_space_t *sp, int32_t only) {
    if (sp->ctrl_cpu) return SHOAL_OK;
    const int32_t first = only < 0 ? 0 : only, end = only < 0 ? sp->size : only + 1;
    for (int32_t r = first; r < end; r++) {
        int rc = MPI_Win_flush(sp->ctrl_rank ? sp->ctrl_rank[r] : r, sp->ctrl_win);
        if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, "MPI_Win_flush (broadcast control)");
    }
    return SHOAL_OK;
}

static long futex(uint64_t *word, int op, uint32_t value, const struct timespec *timeout) {
    /* The low half of the 64-bit word (little endian). Not FUTEX_PRIVATE: the word is in memory
     * shared between processes. */
    return syscall(SYS_futex, (uint32_t *)word, op, value, timeout, NULL, 0);
}

/* The sleep of a direct-path wait: a futex on the low half of *word while it still holds seen,
 * for at most the configured limit. *waiters counts the sleepers, so that writers wake only
 * when somebody sleeps: the waiter counts itself before it looks at the word, the writer changes
 * the word before it looks at the count (both sequentially consistent), so one of them sees the
 * other and no wake-up is lost. shared: the word is in memory other processes write. */
static void sleep_on(const rb_space_t *sp, uint64_t *word, uint64_t seen, uint64_t *waiters,
                     int shared) {
    __atomic_fetch_add(waiters, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(word, __ATOMIC_SEQ_CST) == seen) {
        struct timespec limit = {sp->sleep_limit_ms / 1000,
                                 (long)(sp->sleep_limit_ms % 1000) * 1000 * 1000};
        futex(word, shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE, (uint32_t)seen, &limit);
    }
    __atomic_fetch_sub(waiters, 1, __ATOMIC_SEQ_CST);
}

/* The writer's side of sleep_on, after it changed *word. */
static void wake_sleepers(uint64_t *word, uint64_t *waiters, int shared) {
    if (__atomic_load_n(waiters, __ATOMIC_SEQ_CST))
        futex(word, shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

/* After an add to member r's DONE (direct path): wake the program threads waiting there. */
static void wake_done_waiters(rb_space_t *sp, int32_t r) {
    if (sp->ctrl_cpu)
        wake_sleepers((uint64_t *)(sp->ctrl_direct[r] + RB_OFF_DONE),
                      (uint64_t *)(sp->ctrl_direct[r] + RB_OFF_WAITERS), 1);
}

/* A new arrival here (my relay handled a request, or I was the root): wake arrival waiters. */
static void note_arrival(rb_space_t *sp) {
    __atomic_fetch_add(&sp->arrivals, 1, __ATOMIC_SEQ_CST);
    wake_sleepers(&sp->arrivals, &sp->arrival_waiters, 0);
}

/* nbytes into member r's region at unit displacement where (MPI: in pieces of at most 1 GiB). */
static shoal_err_t data_put(rb_space_t *sp, int32_t r, uint64_t where, const void *src,
                            size_t nbytes) {
    size_t at = (size_t)where * (size_t)sp->data_unit;
    if (sp->data_direct[r]) {
        shoal__copy(sp->data_direct[r] + at, src, nbytes);
        return SHOAL_OK;
    }
    size_t piece = ((size_t)1 << 30) - (((size_t)1 << 30) % (size_t)sp->data_unit);
    for (size_t done = 0; done < nbytes; done += piece) {
        size_t n = nbytes - done < piece ? nbytes - done : piece;
        MPI_Aint disp = sp->data_disp0[r] + (MPI_Aint)(where + done / (size_t)sp->data_unit);
        int rc = MPI_Put((const char *)src + done, (int)n, MPI_BYTE, r, disp, (int)n, MPI_BYTE,
                         sp->data_win);
        if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, "MPI_Put (broadcast data)");
    }
    return SHOAL_OK;
}

/* After a store to member r's REQ (direct path): wake r's relay if it sleeps there. */
static void wake_relay(rb_space_t *sp, int32_t r) {
    if (!sp->ctrl_cpu) return;
    uint64_t *sleeping = (uint64_t *)(sp->ctrl_direct[r] + RB_OFF_SLEEPING);
    if (__atomic_load_n(sleeping, __ATOMIC_SEQ_CST))
        futex((uint64_t *)(sp->ctrl_direct[r] + RB_OFF_REQ), FUTEX_WAKE, 1, NULL);
}

/* PutRequest (paper figure 8): data, descriptor, both complete at r, then the request word, then
 * wake r's relay if it sleeps. */
static shoal_err_t put_request(rb_space_t *sp, int32_t r, const rb_descr_t *d, const void *src) {
    SHOAL_TRY(data_put(sp, r, d->where, src, d->nbytes));
    if (sp->ctrl_cpu) {
        memcpy(sp->ctrl_direct[r] + RB_OFF_DESCR, d, sizeof *d);
    } else {
        int rank = sp->ctrl_rank ? sp->ctrl_rank[r] : r;
        int rc = MPI_Put(d, (int)sizeof *d, MPI_BYTE, rank, sp->ctrl_disp0[r] + RB_OFF_DESCR,
                         (int)sizeof *d, MPI_BYTE, sp->ctrl_win);
        if (rc == MPI_SUCCESS) rc = MPI_Win_flush(rank, sp->ctrl_win);
        if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, "MPI_Put (broadcast descriptor)");
    }
    if (!sp->data_direct[r]) {
        int rc = MPI_Win_flush(r, sp->data_win);
        if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, "MPI_Win_flush (broadcast data)");
    }
    atomic_thread_fence(memory_order_release);
    SHOAL_TRY(ctrl(sp, r, RB_OFF_REQ, CTRL_STORE, d->seq * 2, NULL));
    wake_relay(sp, r);
    return SHOAL_OK;
}

/* PutLoop (paper figure 7): my children in the binomial tree rooted at d->root, the largest
 * subtree first. srank is my rank shifted so the root is 0. */
static shoal_err_t put_loop(rb_space_t *sp, const rb_descr_t *d, const void *src) {
    int32_t p = sp->size, root = (int32_t)d->root;
    int32_t srank = (sp->me - root + p) % p;
    int32_t mask = 1;
    if (srank == 0)
        while (mask < p) mask <<= 1;
    else
        mask = srank & -srank;
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (srank + mask < p) SHOAL_TRY(put_request(sp, (srank + mask + root) % p, d, src));
    return SHOAL_OK;
}

/* The polls with a pause before the yields: under shoal_init the waiting policy's spin in force
 * (runtime/wait.h: the long spin with a CPU per unit, until the adaptive spin finds the CPUs
 * wanted), else SHOAL_SPIN_COUNT. With the short spin alone a root's wait yielded from its first
 * failed poll: a binomial 8 B broadcast at 2 units completed in 0.78-0.81 us, 0.43-0.44 with
 * 4,000 polls. */
static unsigned wait_spin(const rb_space_t *sp) {
    if (!sp->spin_runtime) return (unsigned)sp->spin_count;
    return (unsigned)__atomic_load_n(&shoal__rt.spin_back_to_back, __ATOMIC_RELAXED) +
           (unsigned)__atomic_load_n(&shoal__rt.spin_polls, __ATOMIC_RELAXED);
}

/* Past the budget of pauses, give the core away: more processes than cores is common here. The
 * awaited party is often a relay thread that must run on this very CPU, and a yield does not
 * always let it (CFS may pick the yielder again): after a while of yields, short sleeps. A yield
 * that took a scheduler slice or more met programs that compute, and each further one would
 * cost a round of their slices (runtime/wait.c, wait_on): sleeps from then on. */
static void pause_poll(const rb_space_t *sp, unsigned *polls) {
    unsigned n = ++*polls, spin = wait_spin(sp);
    if (n < spin) {
        shoal__cpu_relax();
    } else if (n < spin + 256) {
        if (shoal__yield_timed(NULL) >= SHOAL_YIELD_HOG_NS) *polls = spin + 256;
    } else {
        usleep(20);
    }
}

/* auto (docs/rma_bcast.md, results/rma_bcast.md): measured where this host could measure, the
 * LogGP model (tools/loggp, parameters measured here) beyond. Each row: from this many bytes up,
 * binomial from this many members up. */
typedef struct {
    size_t bytes;
    int32_t units;
} rb_rule_t;
/* Direct path: linear won every measured case at 2-8 units (2 cores: 3-8 are oversubscribed);
 * above 8 the model's crossover (the more conservative of two runs' parameters). */
static const rb_rule_t direct_rules[] = {{32768, 6}, {16384, 7}, {8192, 11}, {4096, 15},
                                         {2048, 27}, {1024, 41}, {512, 48},  {0, 56}};
/* MPI path: measured at 2 units, binomial faster from 32 KiB in one run, from 256 KiB in
 * another: from 256 KiB; above 2 the model's crossover. */
static const rb_rule_t mpi_rules[] = {{131072, 4}, {65536, 7}, {32768, 8}, {16384, 13},
                                      {8192, 15},  {4096, 21}, {0, 22}};

shoal_rma_bcast_algo_t rb_auto_algo(size_t nbytes, int32_t p, int mpi_path) {
    if (p <= 1) return SHOAL_RMA_BCAST_LINEAR;
    if (!mpi_path && p <= 8) return SHOAL_RMA_BCAST_LINEAR;
    if (mpi_path && p == 2)
        return nbytes >= 262144 ? SHOAL_RMA_BCAST_BINOMIAL : SHOAL_RMA_BCAST_LINEAR;
    const rb_rule_t *r = mpi_path ? mpi_rules : direct_rules;
    while (nbytes < r->bytes) r++; /* the last row's bytes is 0 */
    return p >= r->units ? SHOAL_RMA_BCAST_BINOMIAL : SHOAL_RMA_BCAST_LINEAR;
}

shoal_err_t rb_broadcast(rb_space_t *sp, uint64_t where, const void *src, size_t nbytes,
                         shoal_rma_bcast_algo_t algo, uint64_t *done_target, uint64_t *seq_out) {
    int32_t p = sp->size, me = sp->me;
    /* Step 1 of the paper: the previous broadcast on this space (any root) is complete. */
    /* The ticket and a first look at SERVING in one round trip (through MPI: the look may be
     * older than the ticket, which only costs another look). */
    uint64_t ticket = 0, serving = 0;
    static const uint64_t one = 1;
    SHOAL_TRY(ctrl_issue(sp, 0, RB_OFF_NEXT, CTRL_FADD, &one, &ticket));
    SHOAL_TRY(ctrl_issue(sp, 0, RB_OFF_SERVING, CTRL_LOAD, NULL, &serving));
    SHOAL_TRY(ctrl_complete(sp, 0));
    for (unsigned polls = 0; serving != ticket;) {
        pause_poll(sp, &polls);
        SHOAL_TRY(ctrl(sp, 0, RB_OFF_SERVING, CTRL_LOAD, 0, &serving));
    }
    uint64_t seq = ticket + 1;
    /* My DONE now: my previous broadcast released the space only once complete, so DONE is
     * where that one's target put it (kept here: no round trip to read it back). */
    uint64_t base = __atomic_load_n(&sp->root_done, __ATOMIC_SEQ_CST);
    __atomic_store_n(&sp->root_done, base + (uint64_t)(p - 1), __ATOMIC_SEQ_CST);
    rb_descr_t d = {seq, (uint64_t)me, where, nbytes, base + (uint64_t)(p - 1)};
    char *mine = sp->my_data + (size_t)where * (size_t)sp->data_unit;
    if (mine != (const char *)src) shoal__move(mine, src, nbytes);
    __atomic_store_n(&sp->my_root_arrived, seq, __ATOMIC_SEQ_CST);
    note_arrival(sp);
    *done_target = d.done_target;
    *seq_out = seq;
    if (p == 1) return ctrl(sp, 0, RB_OFF_SERVING, CTRL_FADD, 1, NULL);
    if (algo == SHOAL_RMA_BCAST_BINOMIAL) return put_loop(sp, &d, src);
    /* Linear (figure 3): every put, then complete them all, then tell each member (the request
     * word, marked "nothing to relay", is what arrival queries read), then count and release. */
    for (int32_t r = 0; r < p; r++)
        if (r != me) SHOAL_TRY(data_put(sp, r, where, src, nbytes));
    for (int32_t r = 0; r < p && sp->uses_mpi; r++) { /* per member: see ctrl_complete */
        if (r == me || sp->data_direct[r]) continue;
        int rc = MPI_Win_flush(r, sp->data_win);
        if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, "MPI_Win_flush (broadcast data)");
    }
    atomic_thread_fence(memory_order_release);
    /* Every request word and my count in one round trip; the release of the space only after
     * them, so the next broadcast's request cannot reach a member before this one's. */
    uint64_t req = seq * 2 + 1, count = (uint64_t)(p - 1);
    for (int32_t r = 0; r < p; r++)
        if (r != me) SHOAL_TRY(ctrl_issue(sp, r, RB_OFF_REQ, CTRL_STORE, &req, NULL));
    SHOAL_TRY(ctrl_issue(sp, me, RB_OFF_DONE, CTRL_FADD, &count, NULL));
    SHOAL_TRY(ctrl_complete(sp, -1));
    /* A linear request has nothing to relay, but a member's relay is what wakes the threads
     * waiting there for arrival: wake it when there are any (a wake-up is a system call, so not
     * for every broadcast; the waiters count themselves before they look at REQ, I stored REQ
     * before I look at the count). */
    for (int32_t r = 0; r < p; r++)
        if (r != me && sp->ctrl_cpu &&
            __atomic_load_n((uint64_t *)(sp->ctrl_direct[r] + RB_OFF_ARRIVAL_WAITERS),
                            __ATOMIC_SEQ_CST))
            wake_relay(sp, r);
    wake_done_waiters(sp, me); /* a thread of mine may wait on an earlier broadcast */
    return ctrl(sp, 0, RB_OFF_SERVING, CTRL_FADD, 1, NULL);
}

/* ---- The relay thread (the paper's Broadcaster, figure 9) --------------------------------------
 */

static shoal_err_t relay_serve(rb_space_t *sp, uint64_t seq) {
    rb_descr_t d;
    if (!sp->ctrl_cpu) {
        int rc = MPI_Win_sync(sp->ctrl_win);
        if (rc == MPI_SUCCESS && sp->uses_mpi) rc = xport_win_sync(sp->data_win);
        if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, "MPI_Win_sync (relay)");
    }
    atomic_thread_fence(memory_order_acquire);
    memcpy(&d, sp->ctrl_mine + RB_OFF_DESCR, sizeof d);
    if (d.seq != seq)
        return shoal__fail(SHOAL_ERR_STATE,
                           "relay: descriptor of broadcast %llu under request %llu",
                           (unsigned long long)d.seq, (unsigned long long)seq);
    SHOAL_TRY(put_loop(sp, &d, sp->my_data + (size_t)d.where * (size_t)sp->data_unit));
    __atomic_store_n(&sp->relayed, seq, __ATOMIC_SEQ_CST); /* arrival may be reported now */
    uint64_t old = 0;
    SHOAL_TRY(ctrl(sp, (int32_t)d.root, RB_OFF_DONE, CTRL_FADD, 1, &old));
    wake_done_waiters(sp, (int32_t)d.root);
    if (old + 1 == d.done_target) /* the last member: the next ticket may go */
        SHOAL_TRY(ctrl(sp, 0, RB_OFF_SERVING, CTRL_FADD, 1, NULL));
    return SHOAL_OK;
}

/* A yield while the relay polls past its spin, timed (follow.h). */
static void relay_follow_yield(rb_follow_t *f) {
    uint64_t after, took = shoal__yield_timed(&after);
    rb_follow_yielded(f, after - took, after);
}

/* Waits for the request word to move from seen: a short spin (longer while requests come in a
 * stream: follow.h), then a futex sleep (the writer wakes it), or on the MPI path polls
 * with a growing sleep; fixed sleeps when configured. */
static void relay_idle(rb_space_t *sp, uint64_t seen, unsigned *idle, unsigned *backoff_us,
                       rb_follow_t *follow) {
    int waiter_us = sp->waiter_us;
    if (waiter_us > 0) {
        usleep((useconds_t)waiter_us);
        return;
    }
    int spinning = *idle < (unsigned)sp->relay_spin;
    if (spinning || (follow->until_ns && rb_follow_polling(follow, shoal__now_ns()))) {
        /* Every 256 pauses a yield: where the program's thread shares this CPU (more threads
         * than cores, or a placement that put both here), pauses alone hold the CPU it needs
         * for the whole spin (a binomial broadcast took 100-110 us with both units on one CPU,
         * 18-22 us with the yields); on a CPU of its own a yield returns at once (the same
         * pinned figures within 0.05 us). */
        if ((++*idle & 255) != 0)
            shoal__cpu_relax();
        else if (spinning)
            sched_yield();
        else
            relay_follow_yield(follow);
        return;
    }
    if (sp->ctrl_cpu) {
        uint64_t *sleeping = (uint64_t *)(sp->ctrl_mine + RB_OFF_SLEEPING);
        uint64_t *req = (uint64_t *)(sp->ctrl_mine + RB_OFF_REQ);
        __atomic_store_n(sleeping, 1, __ATOMIC_SEQ_CST);
        /* Re-check after announcing the sleep: a writer that stored before saw no sleeper. Every
         * writer of REQ wakes a sleeper, and a stop repeats its wake-up: the limit is only a
         * backstop (SHOAL_RMA_BCAST_SLEEP_LIMIT_MS). */
        if (__atomic_load_n(req, __ATOMIC_SEQ_CST) == seen &&
            !__atomic_load_n(&sp->stop, __ATOMIC_SEQ_CST)) {
            struct timespec limit = {sp->sleep_limit_ms / 1000,
                                     (long)(sp->sleep_limit_ms % 1000) * 1000 * 1000};
            futex(req, FUTEX_WAIT, (uint32_t)seen, &limit);
        }
        __atomic_store_n(sleeping, 0, __ATOMIC_SEQ_CST);
        return;
    }
    usleep(*backoff_us);
    unsigned most = (unsigned)sp->relay_max_sleep_us;
    *backoff_us = *backoff_us * 2 > most ? most : *backoff_us * 2;
}

/* A short scheduler slice for the relay thread (EEVDF's custom slice, Linux 6.12+): a woken
 * thread preempts the running one only when its deadline (its eligible time plus its slice)
 * comes first, so with the default slice a relay woken beside a program thread computing on its
 * CPU waited for the end of that thread's slice: 254-287 binomial broadcasts/s at 2 units with
 * each unit bound to a CPU while the non-roots computed, 7,091-25,108 with 100 us. The share of
 * the CPU is the weight's, which this leaves alone. Older kernels ignore the field for
 * SCHED_OTHER; a refusal leaves the default (reported with SHOAL_DEBUG=2). */
static void relay_short_slice(const rb_space_t *sp) {
    if (sp->relay_slice_us <= 0) return;
    struct { /* the kernel's struct sched_attr, first version (its header clashes with sched.h) */
        uint32_t size, sched_policy;
        uint64_t sched_flags;
        int32_t sched_nice;
        uint32_t sched_priority;
        uint64_t sched_runtime, sched_deadline, sched_period;
    } attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr; /* 48 */
    attr.sched_policy = SCHED_OTHER;
    attr.sched_runtime = (uint64_t)sp->relay_slice_us * 1000;
    if (syscall(SYS_sched_setattr, 0, &attr, 0) != 0)
        shoal__debug("relay thread: no scheduler slice of %d us (%s)", sp->relay_slice_us,
                     strerror(errno));
}

static void *relay_main(void *arg) {
    rb_space_t *sp = arg;
    shoal__current_call = "relay thread of a one-sided broadcast";
    relay_short_slice(sp);
    uint64_t seen = 0;
    rb_follow_t follow = {0, 0, 0};
    unsigned idle = 0, backoff_us = 1;
    while (!__atomic_load_n(&sp->stop, __ATOMIC_SEQ_CST)) {
        uint64_t v = 0;
        if (ctrl(sp, sp->me, RB_OFF_REQ, CTRL_LOAD, 0, &v) != SHOAL_OK) {
            __atomic_fetch_add(&sp->relay_errors, 1, __ATOMIC_RELAXED);
            usleep(1000);
            continue;
        }
        if (v != seen) {
            seen = v;
            idle = 0;
            backoff_us = 1;
            uint64_t seen_ns = sp->relay_follow_us ? shoal__now_ns() : 0;
            if (!(v & 1) && relay_serve(sp, v / 2) != SHOAL_OK)
                __atomic_fetch_add(&sp->relay_errors, 1, __ATOMIC_RELAXED);
            note_arrival(sp);
            if (sp->relay_follow_us)
                rb_follow_request(&follow, seen_ns, shoal__now_ns(),
                                  (uint64_t)sp->relay_follow_us * 1000);
            continue;
        }
        relay_idle(sp, seen, &idle, &backoff_us, &follow);
    }
    return NULL;
}

shoal_err_t rb_relay_start(rb_space_t *sp) {
    if (sp->size == 1) return SHOAL_OK; /* nobody to relay to */
    sp->stop = 0;
    int rc = pthread_create(&sp->relay, NULL, relay_main, sp);
    if (rc != 0)
        return shoal__fail(SHOAL_ERR_NOMEM, "cannot start the relay thread: %s", strerror(rc));
    sp->relay_started = 1;
    return SHOAL_OK;
}

void rb_relay_stop(rb_space_t *sp) {
    if (!sp->relay_started) return;
    __atomic_store_n(&sp->stop, 1, __ATOMIC_SEQ_CST);
    /* The relay may have looked at stop just before it was set and be on its way into the
     * futex: the wake-up is repeated until it has left (stop does not change REQ, the word the
     * futex compares, so one early wake-up could be lost and leave it asleep to its limit). */
    for (;;) {
        if (sp->ctrl_cpu) futex((uint64_t *)(sp->ctrl_mine + RB_OFF_REQ), FUTEX_WAKE, 1, NULL);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 1000 * 1000;
        if (until.tv_nsec >= 1000 * 1000 * 1000) {
            until.tv_sec++;
            until.tv_nsec -= 1000 * 1000 * 1000;
        }
        if (pthread_timedjoin_np(sp->relay, NULL, &until) != ETIMEDOUT) break;
    }
    sp->relay_started = 0;
}

/* ---- Completion ---------------------------------------------------------------------------------
 */

shoal_err_t rb_test(rb_space_t *sp, uint64_t done_target, int *done) {
    uint64_t v = 0;
    SHOAL_TRY(ctrl(sp, sp->me, RB_OFF_DONE, CTRL_LOAD, 0, &v));
    *done = v >= done_target;
    return SHOAL_OK;
}

/* Whether a wait has spent its spin and yield budget (pause_poll's first two phases): on the
 * direct path it then sleeps on a futex instead of pause_poll's short sleeps. */
static int wait_should_sleep(const rb_space_t *sp, unsigned polls) {
    return sp->ctrl_cpu && polls >= wait_spin(sp) + 256;
}

shoal_err_t rb_wait(rb_space_t *sp, uint64_t done_target) {
    unsigned polls = 0;
    for (;;) {
        uint64_t v = 0;
        SHOAL_TRY(ctrl(sp, sp->me, RB_OFF_DONE, CTRL_LOAD, 0, &v));
        if (v >= done_target) return SHOAL_OK;
        if (sp->flush_us > 0)
            usleep((useconds_t)sp->flush_us);
        else if (wait_should_sleep(sp, polls)) /* the relays' DONE adds wake me */
            sleep_on(sp, (uint64_t *)(sp->ctrl_mine + RB_OFF_DONE), v,
                     (uint64_t *)(sp->ctrl_mine + RB_OFF_WAITERS), 1);
        else
            pause_poll(sp, &polls);
    }
}

/* Arrived means: the data is in my part and my relay has passed it on to my subtree (it forwards
 * from my part), so the program may read and even overwrite it. Broadcasts on a space run one at
 * a time, so every number below the last request's has arrived; the last one has once its
 * request needs no relay (linear) or my relay has finished it. */
shoal_err_t rb_arrived(rb_space_t *sp, uint64_t seq, int *arrived) {
    uint64_t req = 0;
    SHOAL_TRY(ctrl(sp, sp->me, RB_OFF_REQ, CTRL_LOAD, 0, &req));
    uint64_t last = req / 2, mine = __atomic_load_n(&sp->my_root_arrived, __ATOMIC_SEQ_CST);
    if (!(req & 1) && __atomic_load_n(&sp->relayed, __ATOMIC_SEQ_CST) < last)
        last--; /* the last request is still being relayed from my part */
    *arrived = seq <= (last > mine ? last : mine);
    /* MPI wrote my region: sync before the program's loads (a team of one has no data window,
     * and nobody but me writes it) */
    if (*arrived && sp->uses_mpi) {
        int rc = xport_win_sync(sp->data_win);
        if (rc != MPI_SUCCESS) return shoal__mpi_fail(rc, "MPI_Win_sync");
    }
    return SHOAL_OK;
}

shoal_err_t rb_wait_arrival(rb_space_t *sp, uint64_t seq) {
    unsigned polls = 0;
    for (;;) {
        int arrived = 0;
        SHOAL_TRY(rb_arrived(sp, seq, &arrived));
        if (arrived) return SHOAL_OK;
        if (!wait_should_sleep(sp, polls)) {
            pause_poll(sp, &polls);
            continue;
        }
        /* Sleep until my relay has handled another request. Counted in ARRIVAL_WAITERS first,
         * so that a root writing a linear request (nothing to relay) wakes the relay; then the
         * arrival test once more, since a request may have come since the one above. */
        uint64_t *counted = (uint64_t *)(sp->ctrl_mine + RB_OFF_ARRIVAL_WAITERS);
        __atomic_fetch_add(counted, 1, __ATOMIC_SEQ_CST);
        uint64_t seen = __atomic_load_n(&sp->arrivals, __ATOMIC_SEQ_CST);
        shoal_err_t err = rb_arrived(sp, seq, &arrived);
        if (err == SHOAL_OK && !arrived) sleep_on(sp, &sp->arrivals, seen, &sp->arrival_waiters, 0);
        __atomic_fetch_sub(counted, 1, __ATOMIC_SEQ_CST);
        SHOAL_TRY(err);
        if (arrived) return SHOAL_OK;
    }
}

shoal_err_t rb_quiesce(rb_space_t *sp) {
    for (unsigned polls = 0;; pause_poll(sp, &polls)) {
        uint64_t next = 0, serving = 0;
        SHOAL_TRY(ctrl(sp, 0, RB_OFF_SERVING, CTRL_LOAD, 0, &serving));
        SHOAL_TRY(ctrl(sp, 0, RB_OFF_NEXT, CTRL_LOAD, 0, &next));
        if (next == serving) return SHOAL_OK;
    }
}

shoal_err_t rb_params_load(rb_space_t *sp) {
    shoal_runtime_t env;
    const shoal_runtime_t *rt = &shoal__rt;
    if (!shoal__rt.initialized) { /* the plain-MPI face: read the environment as init would */
        memset(&env, 0, sizeof env);
        env.debug = shoal__rt.debug;
        SHOAL_TRY(shoal__config_load(&env));
        rt = &env;
    }
    sp->waiter_us = rt->rb_waiter_us;
    sp->flush_us = rt->rb_flush_us;
    sp->relay_spin = rt->rb_relay_spin;
    sp->relay_max_sleep_us = rt->rb_relay_max_sleep_us;
    /* Only where shoal_init found a CPU per unit (the plain-MPI face alone cannot tell). */
    sp->relay_follow_us =
        rt == &shoal__rt && shoal__rt.oversubscribed == 0 ? rt->rb_relay_follow_us : 0;
    sp->relay_slice_us = rt->rb_relay_slice_us;
    sp->sleep_limit_ms = rt->rb_sleep_limit_ms;
    sp->spin_runtime = rt == &shoal__rt;
    sp->spin_count = rt->spin_count < 0 ? 0 : rt->spin_count; /* -1 (auto) unresolved without
                                                               * shoal_init: the short spin's 0 */
    const char *a = rt->rb_algo && *rt->rb_algo ? rt->rb_algo : "auto";
    if (!strcmp(a, "auto"))
        sp->auto_means = SHOAL_RMA_BCAST_AUTO;
    else if (!strcmp(a, "linear"))
        sp->auto_means = SHOAL_RMA_BCAST_LINEAR;
    else if (!strcmp(a, "binomial"))
        sp->auto_means = SHOAL_RMA_BCAST_BINOMIAL;
    else
        return shoal__fail(SHOAL_ERR_INVAL,
                           "SHOAL_RMA_BCAST_ALGO=%s is not an algorithm (auto, linear, binomial)",
                           a);
    return SHOAL_OK;
}
