/* The exit guard: an atexit handler, registered once per process, that aborts the job when the
 * process exits while Shoal is initialised. See exit_guard.h. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void exit_guard_fire(void) {
    long me = (long)getpid();
    long expected = me;
    /* Fire at most once, and only in the process that armed it. */
    if (!atomic_compare_exchange_strong(&armed_pid, &expected, 0)) return;

    char line[160];
    snprintf(line, sizeof line,
             "shoal: unit %d: exited without shoal_finalize; aborting the job so the other units "
             "do not wait forever\n",
             (int)shoal__rt.myid);
    say(line);
    /* Keep what the program printed: _exit and MPI_Abort skip stdio's own flush. */
    fflush(NULL);

    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* MPI is already finalised (the program called MPI_Finalize itself), or MPI_Abort returned:
     * a non-zero status is the launcher's signal that the job failed. */
    _exit(1);
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
