/* Library setup, exit and query (OpenSHMEM 1.5 section 9.1). shmem_init initialises Shoal (or
 * uses it, when the program called shoal_init first), then the teams and the symmetric memory. */
#define _GNU_SOURCE /* on_exit */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/exit_guard.h"
#include "shmem_internal.h"
#include "shmemx.h"

int shmem__initialized;
static int we_initialized_shoal; /* shmem_init called shoal_init, so shmem_finalize ends it */
static int exit_hook_set;

__attribute__((cold)) int shmem__not_ready(void) {
    shoal__fail(SHOAL_ERR_NOT_INIT,
                "OpenSHMEM is not initialised (call shmem_init first, and not after "
                "shmem_finalize)");
    return 0;
}

/* A PE that returns from main (or calls exit(0)) without shmem_finalize finalises here, as
 * OpenSHMEM programs written for start_pes expect. With a non-zero status it does not: the PE is
 * failing, and Shoal's exit guard then ends the whole job with a message instead of leaving the
 * other PEs waiting in a finalize this PE will never match. */
static void finalize_at_exit(int status, void *arg) {
    (void)arg;
    if (status == 0 && shmem__initialized) shmem_finalize();
}

static void print_info(void) {
    if (shoal__rt.myid != 0) return;
    int major, minor;
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    const char *v = getenv("SHMEM_VERSION"), *i = getenv("SHMEM_INFO");
    if ((v && atoi(v)) || (i && atoi(i)))
        fprintf(stderr, "%s: OpenSHMEM %d.%d, %d PEs, symmetric heap %zu bytes\n", name, major,
                minor, (int)shoal__rt.nunits, shmem__heap.size);
    if (i && atoi(i))
        fprintf(stderr, "  SHMEM_SYMMETRIC_SIZE  bytes of symmetric heap per PE (K/M/G/T "
                        "suffixes; default 128M)\n"
                        "  SHMEM_VERSION         print the library version at start-up\n"
                        "  SHMEM_INFO            print this at start-up\n"
                        "  SHMEM_DEBUG           SHOAL_DEBUG's level for the OpenSHMEM routines\n"
                        "  (shoal-info and shoal-shmem-info list Shoal's own variables)\n");
}

static int init_common(int requested, int *provided) {
    if (shmem__initialized) { /* a second initialisation changes nothing */
        if (provided) *provided = shoal__rt.thread_provided;
        return 0;
    }
    const char *debug = getenv("SHMEM_DEBUG");
    if (debug && *debug && !getenv("SHOAL_DEBUG")) setenv("SHOAL_DEBUG", debug, 0);
    int prov = 0;
    shoal_err_t err = SHOAL_OK;
    if (!shoal_initialized()) {
        if (shoal__rt.finalized)
            return shoal__fail(SHOAL_ERR_STATE,
                               "OpenSHMEM cannot be initialised again after shmem_finalize");
        err = shoal_init_thread(NULL, NULL, requested, &prov);
        if (err != SHOAL_OK) return (int)err;
        we_initialized_shoal = 1;
    } else {
        shoal_query_thread(&prov);
    }
    shoal__current_call = "shmem_init";
    err = shmem__teams_init();
    if (err == SHOAL_OK) {
        err = shmem__symmetric_init();
        if (err != SHOAL_OK) shmem__teams_finalize();
    }
    if (err != SHOAL_OK) {
        if (we_initialized_shoal) shoal_finalize();
        we_initialized_shoal = 0;
        return (int)err;
    }
    shmem__initialized = 1;
    shmem__quiet_idle_set(1);
    shmem__local_words_publish(1);
    if (!exit_hook_set) {
        on_exit(finalize_at_exit, NULL);
        exit_hook_set = 1;
    }
    if (provided) *provided = prov;
    print_info();
    shmem_barrier_all();
    return 0;
}

void shmem_init(void) {
    SHMEM_ENTER("shmem_init");
    if (init_common(SHMEM_THREAD_SINGLE, NULL) != 0) {
        /* shmem_init has no way to return a failure: the job cannot go on. */
        fprintf(stderr, "shoal: shmem_init failed (see above); aborting the job\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int shmem_init_thread(int requested, int *provided) {
    SHMEM_ENTER("shmem_init_thread");
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        shoal__fail(SHOAL_ERR_INVAL, "thread level %d is not one of SHMEM_THREAD_*", requested);
        return -1;
    }
    return init_common(requested, provided) == 0 ? 0 : -1;
}

void start_pes(int npes) {
    SHMEM_ENTER("start_pes");
    (void)npes; /* ignored, as the specification says: the launcher sets the number of PEs */
    shmem_init();
}

void shmem_query_thread(int *provided) {
    SHMEM_ENTER("shmem_query_thread");
    if (!provided) {
        shoal__fail(SHOAL_ERR_INVAL, "NULL output");
        return;
    }
    if (!shmem__ready()) return;
    *provided = shoal__rt.thread_provided;
}

void shmem_finalize(void) {
    SHMEM_ENTER("shmem_finalize");
    if (!shmem__ready()) return;
    shmem_barrier_all(); /* quiet, then every PE is here: nothing is in flight */
    shoal__current_call = "shmem_finalize";
    shmem__ctx_finalize();
    shmem__active_sets_finalize();
    shmem__local_words_publish(0);
    shmem__symmetric_finalize();
    shmem__teams_finalize();
    shmem__quiet_idle_set(0);
    shmem__initialized = 0;
    if (we_initialized_shoal) shoal_finalize();
    we_initialized_shoal = 0;
}

void shmem_global_exit(int status) {
    SHMEM_ENTER("shmem_global_exit");
    fflush(stdout);
    fflush(stderr);
    /* Ends every PE promptly; the launcher reports status (MPI_Abort's error code). MPICH's
     * MPI_Abort may leave through exit() in this process: Shoal's exit guard must not replace
     * the status with its own abort. */
    shmem__quiet_idle_set(0);
    shmem__local_words_publish(0);
    shmem__initialized = 0;
    shoal__exit_guard_disarm();
    MPI_Abort(MPI_COMM_WORLD, status);
    _Exit(status); /* not reached */
}

int shmem_my_pe(void) {
    SHMEM_ENTER("shmem_my_pe");
    return shmem__ready() ? (int)shoal__rt.myid : -1;
}

int shmem_n_pes(void) {
    SHMEM_ENTER("shmem_n_pes");
    return shmem__ready() ? (int)shoal__rt.nunits : -1;
}

int _my_pe(void) {
    return shmem_my_pe();
}

int _num_pes(void) {
    return shmem_n_pes();
}

int shmem_pe_accessible(int pe) {
    SHMEM_ENTER("shmem_pe_accessible");
    return shmem__ready() && pe >= 0 && pe < (int)shoal__rt.nunits;
}

int shmem_addr_accessible(const void *addr, int pe) {
    SHMEM_ENTER("shmem_addr_accessible");
    return shmem_pe_accessible(pe) && shmem__region_of(addr, 1) != NULL;
}

void *shmem_ptr(const void *dest, int pe) {
    SHMEM_ENTER("shmem_ptr");
    shoal_target_t t = {0};
    if (!shmem__ready() || shmem__target(dest, 1, pe, &t) != SHOAL_OK) return NULL;
    if (pe == (int)shoal__rt.myid) return (void *)dest; /* my own copy, whatever the path */
    return t.addr; /* NULL when the PE is reachable only through MPI */
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe) {
    SHMEM_ENTER("shmem_team_ptr");
    if (team == SHMEM_TEAM_INVALID) return NULL; /* the specification's answer, not an error */
    if (!shmem__ready() || !shmem__team_ok(team)) return NULL;
    int world = shmem__team_world_pe(team, pe);
    if (world < 0) {
        shoal__fail(SHOAL_ERR_UNIT, "PE %d is not in the team (%d PEs)", pe, team->n_pes);
        return NULL;
    }
    shoal_target_t t = {0};
    if (shmem__target(dest, 1, world, &t) != SHOAL_OK) return NULL;
    if (world == (int)shoal__rt.myid) return (void *)dest;
    return t.addr;
}

void shmem_info_get_version(int *major, int *minor) {
    if (major) *major = SHMEM_MAJOR_VERSION;
    if (minor) *minor = SHMEM_MINOR_VERSION;
}

/* Exactly SHMEM_VENDOR_STRING: the specification asks for a name "consistent with" it, and test
 * suites (Sandia OpenSHMEM's shmem_info) compare the two with strcmp. shoal-shmem-info prints the
 * versions and the MPI beside it. */
void shmem_info_get_name(char *name) {
    if (!name) return;
    snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

double shmemx_wtime(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void shmem_pcontrol(const int level, ...) {
    (void)level; /* nothing to control: a hook for profiling tools that wrap the library */
}
