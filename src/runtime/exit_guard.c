/* The exit guard: an atexit handler, registered once per process, that aborts the job when the
 * process exits while Shoal is initialised. See exit_guard.h. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exit_guard.h"
#include "runtime.h"

/* The pid that armed the guard, 0 when disarmed. A pid and not a flag: a child forked by the
 * program inherits the handler and the state, and its exit must not abort the job. */
static atomic_long armed_pid;
static atomic_flag registered = ATOMIC_FLAG_INIT;

static void say(const char *line) {
    /* write(2), not stdio: another thread may hold stderr's lock at exit. */
    size_t len = strlen(line);
    while (len > 0) {
        ssize_t n = write(STDERR_FILENO, line, len);
        if (n <= 0) return;
        line += n;
        len -= (size_t)n;
    }
}

/* Aborts the job (once, and only in the process that armed the guard), saying why. */
static void guard_fire(const char *what) {
    long me = (long)getpid();
    long expected = me;
    if (!atomic_compare_exchange_strong(&armed_pid, &expected, 0)) return;

    char line[200];
    snprintf(line, sizeof line,
             "shoal: unit %d: %s; aborting the job so the other units do not wait forever\n",
             (int)shoal__rt.myid, what);
    say(line);
    /* Keep what the program printed: _exit and MPI_Abort skip stdio's own flush. */
    fflush(NULL);

    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    /* MPI_COMM_WORLD, not Shoal's duplicate of it: MPICH aborts any other communicator by
     * messaging its members, which then call exit() and would each fire their own guard. On
     * MPI_COMM_WORLD both MPIs ask the launcher to kill the job. */
    /* The launcher forwards our stderr through a pipe and stops reading once the job is being
     * killed: give it a moment to pass the line on first (seen lost under load on MPICH). */
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    if (up && !down) PMPI_Abort(MPI_COMM_WORLD, 1);
    /* MPI is already finalised, or MPI_Abort returned: a non-zero status is all that is left to
     * tell the launcher that the job failed. */
    _exit(1);
}

static void exit_guard_fire(void) {
    guard_fire("exited without shoal_finalize");
}

/* MPI_Finalize through the MPI profiling interface. Called while Shoal is initialised it cannot
 * end well: MPI_Finalize waits for every process (measured: MPICH and Open MPI both block), the
 * others wait in Shoal for this one, and the exit guard never runs. So it aborts the job instead.
 * Otherwise (Shoal finalised, never initialised, or shoal_finalize's own call) it is MPI's.
 * It takes effect when libshoal comes before the MPI library in the program's link order, as
 * shoalcc and CMake's Shoal::shoal arrange. */
__attribute__((visibility("default"))) int MPI_Finalize(void) {
    if (atomic_load(&armed_pid) == (long)getpid())
        guard_fire("called MPI_Finalize without shoal_finalize");
    return PMPI_Finalize();
}

void shoal__exit_guard_arm(void) {
    if (!atomic_flag_test_and_set(&registered) && atexit(exit_guard_fire) != 0) {
        atomic_flag_clear(&registered); /* cannot happen in practice (glibc allocates) */
        shoal__warn("cannot register the exit guard: a unit that exits without shoal_finalize "
                    "will not abort the job");
        return;
    }
    atomic_store(&armed_pid, (long)getpid());
}

void shoal__exit_guard_disarm(void) {
    atomic_store(&armed_pid, 0);
}
