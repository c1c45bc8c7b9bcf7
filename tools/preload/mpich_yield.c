/* LD_PRELOAD shim for MPICH over UCX on a machine with more processes than cores (shoalrun
 * preloads it there; docs/design.md, "MPICH polling").
 *
 * MPICH 4.0 (ch4:ucx, as Debian builds it) waits in every blocking call (collectives, window
 * creation and free, flushes) by calling ucp_worker_progress in a loop and never gives the core
 * away: its MPIR_CVAR_POLLS_BEFORE_YIELD has no effect in that build (libmpich does not even
 * import sched_yield). With more processes than cores the process it waits for may not run for
 * a scheduler tick, so a team creation at 4 processes on 2 cores took 5 s. This shim wraps
 * ucp_worker_progress: after IDLE_POLLS calls in a row that found nothing to do, the thread
 * yields once. Progress calls that find work are untouched, so a busy process runs as before;
 * with a core per process the yield returns at once. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

enum { IDLE_POLLS = 16 };

typedef void *ucp_worker_h; /* the real type is opaque to its callers too */
typedef unsigned (*progress_fn)(ucp_worker_h);

unsigned ucp_worker_progress(ucp_worker_h worker);

static __thread unsigned idle_polls;

unsigned ucp_worker_progress(ucp_worker_h worker) {
    static progress_fn real; /* the same value in every thread: a benign race */
    progress_fn fn = __atomic_load_n(&real, __ATOMIC_RELAXED);
    if (!fn) {
        fn = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
        if (!fn) {
            fprintf(stderr, "libshoal-mpich-yield: ucp_worker_progress not found (%s)\n",
                    dlerror());
            abort();
        }
        __atomic_store_n(&real, fn, __ATOMIC_RELAXED);
    }
    unsigned events = fn(worker);
    if (events) {
        idle_polls = 0;
    } else if (++idle_polls >= IDLE_POLLS) {
        idle_polls = 0;
        sched_yield();
    }
    return events;
}
