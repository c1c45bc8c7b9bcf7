/* The helper thread of SHOAL_EPOCH_COPY_THREAD (epoch_copy.h). One per unit, started by
 * shoal_init. Copies are done in the order they were handed over, one at a time, so two puts of
 * one epoch to the same bytes land in issue order as the caller's own copies would.
 *
 * Locks and words: mu guards the queue (a ring that grows) and the helper's sleep until work
 * arrives (work_cv). Each epoch counts the copies handed over (copies_given, by the issuing
 * threads) and done (copies_done, by the helper, with release: a drain that reads it with acquire
 * sees the copied bytes); a drain waits by the common policy (runtime/wait.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "epoch_copy.h"
#include "rma.h"
#include "runtime/wait.h"

typedef struct {
    epoch_t *e;
    void *dst;
    const void *src;
    size_t n;
    uint64_t *arrived; /* the notify design: the target's ARRIVED word, or NULL */
} copy_job_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER;
static copy_job_t *ring;
static size_t ring_cap, head;
static size_t count; /* jobs waiting: ring[head], ...; written under mu, read by the linger */
static int sleeping; /* the helper is asleep on work_cv (or about to be) */
static int running, stopping;
static pthread_t helper;
static unsigned long done_copies;
static unsigned long long done_bytes;

/* After its last job the helper polls for the next one this long before it sleeps: a sleeping
 * helper took 40-55 us to wake (KVM guest, Intel Xeon: an idle vCPU halts), more than a 256 KiB
 * copy takes, while a program that fences in a loop hands over its next copy within an epoch.
 * It yields between polls, so that a unit sharing its CPU loses little. */
#define LINGER_NS 500000u

/* Polls for work (without the lock) until there is some, stop is asked, or LINGER_NS pass. */
static void linger(void) {
    uint64_t until = shoal__now_ns() + LINGER_NS;
    for (unsigned i = 1; !__atomic_load_n(&count, __ATOMIC_ACQUIRE); i++) {
        if (__atomic_load_n(&stopping, __ATOMIC_RELAXED)) return;
        shoal__cpu_relax();
        if ((i & 15) == 0) {
            sched_yield();
            if (shoal__now_ns() >= until) return;
        }
    }
}

/* The helper: takes the oldest job, copies it outside the lock, counts it done. */
static void *helper_main(void *arg) {
    (void)arg;
    pthread_mutex_lock(&mu);
    for (;;) {
        if (!count && !stopping) {
            pthread_mutex_unlock(&mu);
            linger();
            pthread_mutex_lock(&mu);
        }
        sleeping = 1;
        while (!count && !stopping) pthread_cond_wait(&work_cv, &mu);
        sleeping = 0;
        if (!count) break; /* stopping, and nothing left */
        copy_job_t job = ring[head];
        head = (head + 1) % ring_cap;
        __atomic_store_n(&count, count - 1, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&mu);
        shoal__copy(job.dst, job.src, job.n);
        if (job.arrived) /* after the data, as the caller's own add would be (release) */
            __atomic_fetch_add(job.arrived, 1, __ATOMIC_SEQ_CST);
        __atomic_fetch_add(&job.e->copies_done, 1, __ATOMIC_RELEASE);
        pthread_mutex_lock(&mu);
        done_copies++;
        done_bytes += job.n;
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

/* The helper inherits its unit's binding: bound to one CPU it shares the unit's and can hide no
 * copy (Open MPI binds up to 2 processes to a core each by default; shoalrun asks for no binding
 * when SHOAL_EPOCH_COPY_THREAD is set). Worth saying, since the user asked for the thread. */
static void warn_if_bound_to_one_cpu(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1)
        shoal__warn("SHOAL_EPOCH_COPY_THREAD: this unit is bound to one CPU, which its copy "
                    "thread then shares: it cannot copy while the unit computes (run the units "
                    "unbound or with two CPUs each; docs/fence.md)");
}

shoal_err_t shoal__epoch_copy_start(void) {
    warn_if_bound_to_one_cpu();
    pthread_mutex_lock(&mu);
    stopping = 0;
    done_copies = 0;
    done_bytes = 0;
    int rc = pthread_create(&helper, NULL, helper_main, NULL);
    running = rc == 0;
    pthread_mutex_unlock(&mu);
    if (rc != 0)
        return shoal__fail(SHOAL_ERR_NOMEM,
                           "cannot start the epochs' copy thread (SHOAL_EPOCH_COPY_THREAD): "
                           "pthread_create returned %d",
                           rc);
    return SHOAL_OK;
}

void shoal__epoch_copy_stop(void) {
    pthread_mutex_lock(&mu);
    if (!running) {
        pthread_mutex_unlock(&mu);
        return;
    }
    __atomic_store_n(&stopping, 1, __ATOMIC_RELAXED); /* the helper empties the queue first */
    pthread_cond_signal(&work_cv);
    pthread_mutex_unlock(&mu);
    pthread_join(helper, NULL);
    pthread_mutex_lock(&mu);
    running = 0;
    free(ring);
    ring = NULL;
    ring_cap = head = count = 0;
    pthread_mutex_unlock(&mu);
}

int shoal__epoch_copy_running(void) {
    return __atomic_load_n(&running, __ATOMIC_RELAXED);
}

/* Room for one more job (under mu); 0 when memory ran out. */
static int ring_room(void) {
    if (count < ring_cap) return 1;
    size_t cap = ring_cap ? 2 * ring_cap : 64;
    copy_job_t *r = malloc(cap * sizeof *r);
    if (!r) return 0;
    for (size_t i = 0; i < count; i++) r[i] = ring[(head + i) % ring_cap];
    free(ring);
    ring = r;
    ring_cap = cap;
    head = 0;
    return 1;
}

int shoal__epoch_copy_later(epoch_t *e, void *dst, const void *src, size_t n, uint64_t *arrived) {
    if (n < shoal__rt.epoch_copy_thread || !shoal__epoch_copy_running()) return 0;
    pthread_mutex_lock(&mu);
    int taken = !stopping && ring_room(); /* out of memory: the caller copies, nothing lost */
    if (taken) {
        __atomic_fetch_add(&e->copies_given, 1, __ATOMIC_RELAXED);
        ring[(head + count) % ring_cap] = (copy_job_t){e, dst, src, n, arrived};
        __atomic_store_n(&count, count + 1, __ATOMIC_RELEASE);
        if (sleeping) pthread_cond_signal(&work_cv);
    }
    pthread_mutex_unlock(&mu);
    return taken;
}

/* The one waiting policy (runtime/wait.h): a spin while the helper copies on a CPU of its own,
 * then yields, which hand this CPU to the helper when it has none. */
void shoal__epoch_copy_drain(epoch_t *e) {
    shoal_waiter_t w;
    shoal__waiter_init(&w);
    while (shoal__epoch_copy_pending(e)) shoal__waiter_pause(&w);
}

void shoal__epoch_copy_counts(unsigned long *copies, unsigned long long *bytes) {
    pthread_mutex_lock(&mu);
    *copies = done_copies;
    *bytes = done_bytes;
    pthread_mutex_unlock(&mu);
}
