#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "progress.h"
#include "runtime.h"
#include "wait.h"

static pthread_t thread;
static atomic_int running;
static atomic_ulong polls;
static void (*_Atomic extra_work)(void);

static void *progress_main(void *arg) {
    (void)arg;
    struct timespec pause = {0, (long)shoal__rt.progress_interval_us * 1000L};
    while (atomic_load_explicit(&running, memory_order_acquire)) {
        shoal__progress_poke();
        void (*work)(void) = atomic_load_explicit(&extra_work, memory_order_acquire);
        if (work) work();
        atomic_fetch_add_explicit(&polls, 1, memory_order_relaxed);
        nanosleep(&pause, NULL);
    }
    return NULL;
}

shoal_err_t shoal__progress_start(void) {
    if (shoal__rt.thread_level < MPI_THREAD_MULTIPLE)
        return shoal__fail(
            SHOAL_ERR_UNSUPPORTED,
            "SHOAL_PROGRESS_THREAD=1 needs MPI_THREAD_MULTIPLE, MPI granted level %d",
            shoal__rt.thread_level);
    atomic_store(&running, 1);
    if (pthread_create(&thread, NULL, progress_main, NULL) != 0) {
        atomic_store(&running, 0);
        return shoal__fail(SHOAL_ERR_NOMEM, "cannot start the progress thread");
    }
    return SHOAL_OK;
}

void shoal__progress_stop(void) {
    if (!atomic_exchange(&running, 0)) return;
    pthread_join(thread, NULL);
}

unsigned long shoal__progress_polls(void) {
    return atomic_load(&polls);
}

int shoal__progress_running(void) {
    return atomic_load_explicit(&running, memory_order_acquire);
}

void shoal__progress_set_work(void (*work)(void)) {
    atomic_store_explicit(&extra_work, work, memory_order_release);
}
