/* Optional progress thread (SHOAL_PROGRESS_THREAD=1): polls MPI so passive-target operations
 * aimed at this unit advance while the program computes without calling Shoal. */
#ifndef SHOAL_RUNTIME_PROGRESS_H
#define SHOAL_RUNTIME_PROGRESS_H

#include "shoal.h"

shoal_err_t shoal__progress_start(void);
void shoal__progress_stop(void);
/* Number of polls the thread has made (for tests and shoal-info). */
unsigned long shoal__progress_polls(void);
/* 1 while the thread runs. */
int shoal__progress_running(void);
/* Work for the thread besides poking MPI, done on every poll: one function, set by the layer that
 * needs it (the notify design's notifications through MPI: rma/epoch_notify.c). It must be cheap
 * when it has nothing to do and safe to run beside the program's own calls. */
void shoal__progress_set_work(void (*work)(void));

#endif
