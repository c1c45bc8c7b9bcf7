/* Error reporting: the first place that detects an error reports it once, naming unit, call and
 * reason, and returns the code. Public entry points record their name so internal code can say
 * which user call failed. */
#ifndef SHOAL_RUNTIME_ERROR_H
#define SHOAL_RUNTIME_ERROR_H

#include "shoal.h"

/* The public call being served on this thread (for messages). */
/* initial-exec: a plain %fs-relative store on every call's entry; the default model of a shared
 * library calls __tls_get_addr, which cost a few ns on each put/get of the direct path. */
extern _Thread_local const char *shoal__current_call __attribute__((tls_model("initial-exec")));

/* Logs "shoal: unit U: CALL: reason" (unless SHOAL_DEBUG=0) and returns err. */
shoal_err_t shoal__fail(shoal_err_t err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Debug-level message (SHOAL_DEBUG>=2). */
void shoal__debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Warning (SHOAL_DEBUG>=1), not tied to a failing call. */
void shoal__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Validation preamble of every public entry point that needs an initialised runtime. */
#define SHOAL_ENTER(name)                                                                          \
    do {                                                                                           \
        shoal__current_call = (name);                                                              \
        if (__builtin_expect(!shoal__rt.initialized, 0))                                           \
            return shoal__fail(SHOAL_ERR_NOT_INIT, "Shoal is not initialised (call shoal_init "    \
                                                   "first, and not after shoal_finalize)");        \
    } while (0)

/* Propagate a failure (already reported) to the caller. */
#define SHOAL_TRY(expr)                                                                            \
    do {                                                                                           \
        shoal_err_t shoal__e = (expr);                                                             \
        if (__builtin_expect(shoal__e != SHOAL_OK, 0)) return shoal__e;                            \
    } while (0)

/* Turn an MPI return code into a reported SHOAL_ERR_MPI. */
shoal_err_t shoal__mpi_fail(int mpi_rc, const char *what);
#define SHOAL_MPI(call)                                                                            \
    do {                                                                                           \
        int shoal__rc = (call);                                                                    \
        if (__builtin_expect(shoal__rc != MPI_SUCCESS, 0))                                         \
            return shoal__mpi_fail(shoal__rc, #call);                                              \
    } while (0)

#endif
