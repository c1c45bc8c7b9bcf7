/* Exit guard (hardening defect 10): a unit that leaves the program between shoal_init and
 * shoal_finalize (return from main, exit()) would leave the other units waiting for it forever
 * (MPICH's launcher does not notice a process that exits with status 0). The guard turns that
 * into a job abort with a message. exit_guard.c also wraps MPI_Finalize (profiling interface):
 * called before shoal_finalize, it would block forever, so it aborts the job the same way. */
#ifndef SHOAL_RUNTIME_EXIT_GUARD_H
#define SHOAL_RUNTIME_EXIT_GUARD_H

/* Called by a successful shoal_init: from now on, exiting this process aborts the job. */
void shoal__exit_guard_arm(void);
/* Called when shoal_finalize starts: exiting is fine again. */
void shoal__exit_guard_disarm(void);

#endif
