#include <stdarg.h>
#include <stdio.h>

#include "runtime.h"

_Thread_local const char *shoal__current_call __attribute__((tls_model("initial-exec"))) = "shoal";

const char *shoal_strerror(shoal_err_t err) {
    switch (err) {
    case SHOAL_BUSY:
        return "SHOAL_BUSY: held by another unit, try again (not a failure)";
    case SHOAL_OK:
        return "SHOAL_OK: success";
    case SHOAL_ERR_INVAL:
        return "SHOAL_ERR_INVAL: invalid argument";
    case SHOAL_ERR_NOT_INIT:
        return "SHOAL_ERR_NOT_INIT: Shoal is not initialised";
    case SHOAL_ERR_UNIT:
        return "SHOAL_ERR_UNIT: unit out of range or not a member";
    case SHOAL_ERR_GPTR:
        return "SHOAL_ERR_GPTR: invalid global pointer (NULL, freed or foreign)";
    case SHOAL_ERR_BOUNDS:
        return "SHOAL_ERR_BOUNDS: access past the end of the allocation";
    case SHOAL_ERR_NOMEM:
        return "SHOAL_ERR_NOMEM: out of memory";
    case SHOAL_ERR_TEAM:
        return "SHOAL_ERR_TEAM: invalid team";
    case SHOAL_ERR_ALIGN:
        return "SHOAL_ERR_ALIGN: misaligned atomic";
    case SHOAL_ERR_STATE:
        return "SHOAL_ERR_STATE: call not valid in this state";
    case SHOAL_ERR_MPI:
        return "SHOAL_ERR_MPI: MPI call failed";
    case SHOAL_ERR_UNSUPPORTED:
        return "SHOAL_ERR_UNSUPPORTED: not supported";
    case SHOAL_ERR_HANDLE:
        return "SHOAL_ERR_HANDLE: invalid handle";
    }
    return "unknown Shoal error code";
}

static void vreport(const char *kind, const char *fmt, va_list ap) {
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (shoal__rt.initialized)
        fprintf(stderr, "shoal: unit %d: %s: %s%s\n", (int)shoal__rt.myid, shoal__current_call,
                kind, msg);
    else
        fprintf(stderr, "shoal: %s: %s%s\n", shoal__current_call, kind, msg);
}

shoal_err_t shoal__fail(shoal_err_t err, const char *fmt, ...) {
    if (shoal__rt.debug >= 1) {
        va_list ap;
        va_start(ap, fmt);
        vreport("", fmt, ap);
        va_end(ap);
    }
    return err;
}

void shoal__warn(const char *fmt, ...) {
    if (shoal__rt.debug < 1) return;
    va_list ap;
    va_start(ap, fmt);
    vreport("warning: ", fmt, ap);
    va_end(ap);
}

void shoal__debug(const char *fmt, ...) {
    if (shoal__rt.debug < 2) return;
    va_list ap;
    va_start(ap, fmt);
    vreport("debug: ", fmt, ap);
    va_end(ap);
}

shoal_err_t shoal__mpi_fail(int mpi_rc, const char *what) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mpi_rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "?");
    return shoal__fail(SHOAL_ERR_MPI, "%s failed: %s", what, text);
}

const char *shoal_version(int *major, int *minor, int *patch) {
    if (major) *major = SHOAL_VERSION_MAJOR;
    if (minor) *minor = SHOAL_VERSION_MINOR;
    if (patch) *patch = SHOAL_VERSION_PATCH;
    return SHOAL_VERSION_STRING;
}
