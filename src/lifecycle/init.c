/* shoal_init / shoal_finalize and the environment queries: the top layer, which composes every
 * layer below it (the only folder that may include them all). Per-team state of the upper layers
 * is wired in here as team hooks, so team/ never calls up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "epoch/fence.h"
#include "rbcast/rbcast.h"
#include "mem/segment.h"
#include "rma/epoch_copy.h"
#include "rma/rma.h"
#include "runtime/config.h"
#include "runtime/exit_guard.h"
#include "runtime/objtab.h"
#include "runtime/progress.h"
#include "runtime/runtime.h"
#include "runtime/wait.h"
#include "sync/sync.h"
#include "team/group.h"
#include "team/team.h"
#include "xport/copy.h"
#include "xport/probe.h"

shoal_runtime_t shoal__rt = {
    .debug = 1, .spin_tight = 64, .spin_count = 64, .spin_polls = 0, .spin_back_to_back = 64};

/* Per-team state above team/: created in this order with every team, destroyed in reverse (the
 * collectives' area, then locks and the signal area, then the allocations). */
static const team_hooks_t mem_hooks = {"allocations", NULL, shoal__segments_free_team, NULL};
static const team_hooks_t sync_hooks = {"signal area and locks", shoal__sync_team_init,
                                        shoal__sync_team_finalize, NULL};
static const team_hooks_t coll_hooks = {"collectives' area", shoal__coll_team_init,
                                        shoal__coll_team_finalize, shoal__coll_team_release};

static void wire_layers(void) {
    static int wired;
    if (wired) return;
    wired = 1;
    shoal__team_hooks_register(&mem_hooks);
    shoal__team_hooks_register(&sync_hooks);
    shoal__team_hooks_register(&coll_hooks);
    /* freeing a segment first completes the handles still in flight on it (rma/) */
    shoal__segment_set_free_hook(shoal__handles_complete_segment);
    /* and drops its fence state (epoch/) */
    shoal__segment_add_release_hook(shoal__epoch_release);
    /* and deregisters it from one-sided broadcasts, stopping its relay thread (rbcast/) */
    shoal__segment_add_release_hook(shoal__rbcast_release);
}

static void release_node_info(void) {
    free(shoal__rt.node_units);
    free(shoal__rt.node_rank_of);
    shoal__rt.node_units = NULL;
    shoal__rt.node_rank_of = NULL;
    if (shoal__rt.node != MPI_COMM_NULL) MPI_Comm_free(&shoal__rt.node);
    if (shoal__rt.world != MPI_COMM_NULL) MPI_Comm_free(&shoal__rt.world);
}

static shoal_err_t discover_node(void) {
    shoal_runtime_t *rt = &shoal__rt;
    /* SHOAL_PRETEND_NODES=k splits this machine into k pretend nodes of consecutive units: the
     * state of a team that spans nodes (direct path within, MPI between) on one machine. */
    int k = rt->pretend_nodes > rt->nunits ? rt->nunits : rt->pretend_nodes;
    if (k > 0)
        SHOAL_MPI(MPI_Comm_split(rt->world, (int)((int64_t)rt->myid * k / rt->nunits), rt->myid,
                                 &rt->node));
    else
        SHOAL_MPI(MPI_Comm_split_type(rt->world, MPI_COMM_TYPE_SHARED, rt->myid, MPI_INFO_NULL,
                                      &rt->node));
    MPI_Comm_size(rt->node, &rt->node_size);
    MPI_Comm_rank(rt->node, &rt->node_rank);
    rt->node_units = malloc((size_t)rt->node_size * sizeof *rt->node_units);
    rt->node_rank_of = malloc((size_t)rt->nunits * sizeof *rt->node_rank_of);
    if (!rt->node_units || !rt->node_rank_of)
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    SHOAL_MPI(MPI_Allgather(&rt->myid, 1, MPI_INT32_T, rt->node_units, 1, MPI_INT32_T, rt->node));
    for (int32_t u = 0; u < rt->nunits; u++) rt->node_rank_of[u] = -1;
    for (int32_t i = 0; i < rt->node_size; i++) rt->node_rank_of[rt->node_units[i]] = i;
    rt->node_colour = rt->node_units[0]; /* the node's first unit names it */
    /* The waiting policy counts the units sharing this machine's CPUs: the real node's, also
     * when pretend nodes split it. */
    int machine_units = rt->node_size;
    if (k > 0) {
        MPI_Comm machine;
        SHOAL_MPI(MPI_Comm_split_type(rt->world, MPI_COMM_TYPE_SHARED, rt->myid, MPI_INFO_NULL,
                                      &machine));
        MPI_Comm_size(machine, &machine_units);
        shoal__wait_configure(machine, machine_units);
        MPI_Comm_free(&machine);
    } else {
        shoal__wait_configure(rt->node, machine_units);
    }
    return SHOAL_OK;
}

/* Open MPI's osc/rdma crashes in compare-and-swap between processes of one node (vader's emulated
 * atomics; upstream #11349) and cannot create a window on a single process. osc/sm (allocate and
 * shared windows) and osc/pt2pt (everything else) are correct, so Shoal asks for them, unless the
 * program chose components itself. Debian's openmpi-mca-params.conf excludes pt2pt by default;
 * the environment overrides that file. */
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION >= 5
/* Open MPI 5 has no osc/pt2pt; its osc/rdma and osc/ucx are what is left (not tested here: the
 * machines have 4.1). tools/CMakeLists.txt makes the same choice for shoalrun. */
#define OMPI_OSC_CHOICE      "sm,ucx,rdma"
#define OMPI_OSC_NEEDS_PT2PT 0
#else
#define OMPI_OSC_CHOICE      "sm,pt2pt"
#define OMPI_OSC_NEEDS_PT2PT 1
#endif
/* osc/pt2pt refuses MPI_THREAD_MULTIPLE. A job whose units all share one node, with the direct
 * path on and no pretend nodes, never issues an MPI atomic (every segment takes CPU atomics), so
 * osc/rdma, whose fault is in compare-and-swap and which takes MULTIPLE, can carry its windows:
 * such a job that wants MULTIPLE (the program, or the progress thread) gets "sm,rdma". Told before
 * MPI_Init from what Open MPI's launcher exports (every rank on this node). osc/rdma cannot make a
 * window of one process, but a team of one on the direct path gets none (xport/mpiwin.c), so a
 * job of one unit qualifies too. Only when the component choice is Shoal's own (none set, or
 * shoalrun's default), never over the user's. */
#ifdef OPEN_MPI
#define OMPI_OSC_MULTIPLE_ONE_NODE "sm,rdma"
static int ompi_one_node_multiple_ok(const shoal_runtime_t *rt) {
    const char *size = getenv("OMPI_COMM_WORLD_SIZE"),
               *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    return OMPI_OSC_NEEDS_PT2PT && rt->direct && rt->pretend_nodes <= 0 && size && local &&
           atoi(size) >= 1 && atoi(size) == atoi(local);
}
#endif

static void choose_ompi_osc(int mpi_already_up, int wants_multiple) {
#ifdef OPEN_MPI
    const char *osc = getenv("OMPI_MCA_osc"), *from_run = getenv("SHOALRUN_OMPI_OSC");
    int ours = !osc || (from_run && !strcmp(osc, from_run)); /* not the user's own choice */
    if (mpi_already_up || !ours) return;
    if (wants_multiple && ompi_one_node_multiple_ok(&shoal__rt))
        setenv("OMPI_MCA_osc", OMPI_OSC_MULTIPLE_ONE_NODE, 1);
    else if (!osc)
        setenv("OMPI_MCA_osc", OMPI_OSC_CHOICE, 1);
#else
    (void)mpi_already_up;
    (void)wants_multiple;
#endif
}

/* MPICH's blocking calls (MPI_Win_flush, collectives) busy-poll without giving up the core, so
 * with more processes than cores the target whose progress they await may not run for a whole
 * scheduler tick: measured 22 ms per remote atomic at 4 processes on 2 cores. Asking MPICH to
 * yield every few polls brings that under a millisecond and costs a cheap syscall otherwise. */
#define MPICH_POLLS_BEFORE_YIELD "10"
static void choose_mpich_yield(int mpi_already_up) {
#ifdef MPICH_VERSION
    if (!mpi_already_up && !getenv("MPIR_CVAR_POLLS_BEFORE_YIELD"))
        setenv("MPIR_CVAR_POLLS_BEFORE_YIELD", MPICH_POLLS_BEFORE_YIELD, 1);
#else
    (void)mpi_already_up;
#endif
}

/* After init: warn when MPI atomics will be used on Open MPI without the safe components. */
static void check_ompi_osc(void) {
#ifdef OPEN_MPI
    const char *osc = getenv("OMPI_MCA_osc");
    int mpi_atomics = !shoal__rt.direct || shoal__rt.node_size != shoal__rt.nunits;
    if (OMPI_OSC_NEEDS_PT2PT && mpi_atomics && (!osc || !strstr(osc, "pt2pt"))) {
        shoal__warn("Open MPI without OMPI_MCA_osc=" OMPI_OSC_CHOICE ": compare-and-swap over MPI "
                    "(SHOAL_DIRECT=0, or teams spanning nodes) may crash in osc/rdma; launch with "
                    "shoalrun or set OMPI_MCA_osc=" OMPI_OSC_CHOICE);
    }
#endif
}

/* The Shoal level an MPI level allows (MPI's constants are ordered, but not 0..3 everywhere). */
static int level_from_mpi(int mpi_level) {
    if (mpi_level >= MPI_THREAD_MULTIPLE) return SHOAL_THREAD_MULTIPLE;
    if (mpi_level >= MPI_THREAD_SERIALIZED) return SHOAL_THREAD_SERIALIZED;
    if (mpi_level >= MPI_THREAD_FUNNELED) return SHOAL_THREAD_FUNNELED;
    return SHOAL_THREAD_SINGLE;
}

static shoal_err_t init_at_level(int *argc, char ***argv, int required, int *provided);

shoal_err_t shoal_init(int *argc, char ***argv) {
    shoal__current_call = "shoal_init";
    return init_at_level(argc, argv, SHOAL_THREAD_SERIALIZED, NULL);
}

shoal_err_t shoal_init_thread(int *argc, char ***argv, int required, int *provided) {
    shoal__current_call = "shoal_init_thread";
    if (required < SHOAL_THREAD_SINGLE || required > SHOAL_THREAD_MULTIPLE)
        return shoal__fail(SHOAL_ERR_INVAL,
                           "thread level %d: must be SHOAL_THREAD_SINGLE (0) .. MULTIPLE (3)",
                           required);
    return init_at_level(argc, argv, required, provided);
}

shoal_err_t shoal_query_thread(int *provided) {
    SHOAL_ENTER("shoal_query_thread");
    if (!provided) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    *provided = shoal__rt.thread_provided;
    return SHOAL_OK;
}

/* SHOAL_EPOCH_PIECE: auto is what was measured between the namespace cluster's nodes
 * (docs/fence.md, "Pieces"): the largest piece that still goes by each MPI's eager protocol
 * over TCP. */
static shoal_err_t choose_epoch_piece(shoal_runtime_t *rt) {
    if (!strcmp(rt->epoch_piece_text, "auto")) {
#ifdef OPEN_MPI
        rt->epoch_piece = 60 << 10;
#else
        rt->epoch_piece = 18 << 10;
#endif
        return SHOAL_OK;
    }
    if (shoal__parse_size(rt->epoch_piece_text, &rt->epoch_piece))
        return shoal__fail(SHOAL_ERR_INVAL,
                           "SHOAL_EPOCH_PIECE=\"%s\" is neither auto nor a size (e.g. 16K; 0 = "
                           "one message)",
                           rt->epoch_piece_text);
    return SHOAL_OK;
}

static shoal_err_t init_at_level(int *argc, char ***argv, int required, int *provided) {
    shoal_runtime_t *rt = &shoal__rt;
    if (rt->initialized) return shoal__fail(SHOAL_ERR_STATE, "Shoal is already initialised");
    if (rt->finalized)
        return shoal__fail(SHOAL_ERR_STATE,
                           "Shoal cannot be initialised again after shoal_finalize");
    SHOAL_TRY(shoal__config_load(rt));
    int copy_kernel = shoal__copy_parse_kernel(rt->copy_kernel);
    if (copy_kernel < -1)
        return shoal__fail(SHOAL_ERR_INVAL,
                           "SHOAL_COPY_KERNEL=\"%s\" is not auto, memcpy, movsb or backward",
                           rt->copy_kernel);
    shoal__copy_prepare(copy_kernel);
    SHOAL_TRY(choose_epoch_piece(rt));
    if (rt->debug >= 2) { /* measures every class now (1.5-4 ms), only when asked to print */
        char copies[512];
        shoal__copy_describe(copies, sizeof copies);
        shoal__debug("bulk copies: %s", copies);
    }

    int mpi_up = 0, mpi_down = 0;
    MPI_Initialized(&mpi_up);
    MPI_Finalized(&mpi_down);
    if (mpi_down) return shoal__fail(SHOAL_ERR_STATE, "MPI is already finalised");
    choose_ompi_osc(mpi_up, rt->progress_thread || required == SHOAL_THREAD_MULTIPLE);
#ifdef OPEN_MPI
    /* osc/pt2pt, which Open MPI 4.1 needs for correct compare-and-swap here, refuses
     * MPI_THREAD_MULTIPLE, and the progress thread needs it: refuse cleanly, before MPI. */
    const char *osc = getenv("OMPI_MCA_osc");
    if (OMPI_OSC_NEEDS_PT2PT && rt->progress_thread && (!osc || strstr(osc, "pt2pt")))
        return shoal__fail(SHOAL_ERR_UNSUPPORTED,
                           "SHOAL_PROGRESS_THREAD=1 needs MPI_THREAD_MULTIPLE, which Open MPI's "
                           "osc/pt2pt (needed for correct atomics across nodes or with the direct "
                           "path off) does not support; use SHOAL_PROGRESS_THREAD=0 or MPICH");
#endif
    choose_mpich_yield(mpi_up);
    /* MPI_THREAD_MULTIPLE for the progress thread or a MULTIPLE program, unless the one-sided
     * components cannot take it (Open MPI 4.1's osc/pt2pt): then the program gets SERIALIZED. */
    int multiple_ok = 1;
#ifdef OPEN_MPI
    const char *osc_env = getenv("OMPI_MCA_osc");
    multiple_ok = !(OMPI_OSC_NEEDS_PT2PT && osc_env && strstr(osc_env, "pt2pt"));
#endif
    int wanted = (rt->progress_thread || required == SHOAL_THREAD_MULTIPLE) && multiple_ok
                     ? MPI_THREAD_MULTIPLE
                     : MPI_THREAD_SERIALIZED;
    if (!mpi_up) {
        SHOAL_MPI(MPI_Init_thread(argc, argv, wanted, &rt->thread_level));
        rt->we_initialized_mpi = 1;
    } else {
        MPI_Query_thread(&rt->thread_level);
#ifdef OPEN_MPI
        const char *osc_now = getenv("OMPI_MCA_osc");
        if (OMPI_OSC_NEEDS_PT2PT && rt->thread_level == MPI_THREAD_MULTIPLE && osc_now &&
            strstr(osc_now, "pt2pt"))
            return shoal__fail(SHOAL_ERR_UNSUPPORTED,
                               "the program initialised Open MPI with MPI_THREAD_MULTIPLE, which "
                               "osc/pt2pt (needed for correct atomics on one node) refuses; "
                               "initialise with MPI_THREAD_SERIALIZED or less, or use MPICH");
#endif
    }
    int can = level_from_mpi(rt->thread_level);
    rt->thread_provided = required < can ? required : can;
    rt->world = rt->node = MPI_COMM_NULL;
    shoal_err_t err = SHOAL_OK;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &rt->world);
    if (rc != MPI_SUCCESS) {
        err = shoal__mpi_fail(rc, "MPI_Comm_dup");
        goto fail;
    }
    /* Errors on Shoal's communicators and windows come back as codes (SHOAL_ERR_MPI), not aborts.
     */
    MPI_Comm_set_errhandler(rt->world, MPI_ERRORS_RETURN);
    MPI_Comm_rank(rt->world, &rt->myid);
    MPI_Comm_size(rt->world, &rt->nunits);
    if ((err = discover_node()) != SHOAL_OK) goto fail;
    check_ompi_osc();

    wire_layers();
    rt->initialized = 1; /* from here on, internal calls see a live runtime */
    if ((err = coll_select_init()) != SHOAL_OK) goto fail_init;
    if ((err = shoal__teams_init()) != SHOAL_OK) goto fail_init;
    /* Units that read different SHOAL_COLL_* rules, tuning files or scratch sizes would pick
     * different algorithms for one collective call and hang in it: refuse that at init. */
    if ((err = shoal__team_agree(shoal__team_all(), SHOAL_OK, coll_select_hash(),
                                 "collective selection rules (SHOAL_COLL_*, the tuning file or "
                                 "SHOAL_COLL_SCRATCH)")) != SHOAL_OK)
        goto fail_teams;
    if ((err = shoal__segment_create(shoal__team_all(), rt->pool_size, SEG_POOL,
                                     &shoal__pool_seg)) != SHOAL_OK)
        goto fail_teams;
    if (xport_xpmem_present())
        shoal__debug("XPMEM is present, but this build maps peers with shared memory");
    if (rt->progress_thread && (err = shoal__progress_start()) != SHOAL_OK) goto fail_teams;
    /* The copy thread copies to mapped members only: without the direct path it has no work. */
    if (rt->epoch_copy_thread && rt->direct && (err = shoal__epoch_copy_start()) != SHOAL_OK) {
        shoal__progress_stop();
        goto fail_teams;
    }
    shoal__debug("initialised: %d units, %d on this node, direct path %s", (int)rt->nunits,
                 (int)rt->node_size, rt->direct ? "on" : "off");
    shoal__exit_guard_arm(); /* exiting before shoal_finalize now aborts the job (defect 10) */
    if (provided) *provided = rt->thread_provided; /* outputs only on success */
    return SHOAL_OK;

fail_teams:
    shoal__sync_finalize();
    shoal__segments_finalize();
    shoal__teams_finalize();
fail_init:
    coll_select_finalize();
    rt->initialized = 0;
fail:
    release_node_info();
    if (rt->we_initialized_mpi) MPI_Finalize();
    rt->we_initialized_mpi = 0;
    return err;
}

shoal_err_t shoal_finalize(void) {
    SHOAL_ENTER("shoal_finalize");
    shoal__exit_guard_disarm(); /* this unit takes part in the ending: exiting is fine now */
    shoal_runtime_t *rt = &shoal__rt;
    /* Complete whatever this unit still has in flight, then wait for everybody: peers may still
     * be reading or writing my memory. */
    size_t pending = shoal__handles_complete_all();
    if (pending)
        shoal__warn("%zu non-blocking operation(s) were never waited for; completed them", pending);
    shoal__rbcast_quiesce_all();       /* one-sided broadcasts in flight need every relay thread */
    if (shoal__epoch_copy_running()) { /* copies of open epochs land before peers go on */
        unsigned long copies = 0;
        unsigned long long bytes = 0;
        shoal__epoch_copy_stop();
        shoal__epoch_copy_counts(&copies, &bytes);
        shoal__debug("epoch copy thread: copied %lu operations, %llu bytes", copies, bytes);
    }
    shoal_err_t err = shoal__team_barrier(shoal__team_all()); /* messages name shoal_finalize */
    shoal__wait_report();
    shoal__rbcast_stop_all(); /* nobody broadcasts any more: the relays go before the memory */
    shoal__progress_stop();
    shoal__sync_finalize();
    shoal__segments_finalize();
    shoal__teams_finalize();
    shoal__handles_release_spares();
    shoal__groups_finalize(); /* groups the program did not destroy */
    shoal__rbcast_finalize();
    objtab_release();
    coll_select_finalize();
    release_node_info();
    rt->initialized = 0;
    rt->finalized = 1;
    if (rt->we_initialized_mpi) {
        int rc = MPI_Finalize();
        if (rc != MPI_SUCCESS && err == SHOAL_OK) err = shoal__mpi_fail(rc, "MPI_Finalize");
    }
    return err;
}

int shoal_initialized(void) {
    return shoal__rt.initialized;
}

shoal_err_t shoal_myid(shoal_unit_t *unit) {
    SHOAL_ENTER("shoal_myid");
    if (!unit) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    *unit = shoal__rt.myid;
    return SHOAL_OK;
}

shoal_err_t shoal_size(int32_t *nunits) {
    SHOAL_ENTER("shoal_size");
    if (!nunits) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    *nunits = shoal__rt.nunits;
    return SHOAL_OK;
}

shoal_err_t shoal_node_size(int32_t *count) {
    SHOAL_ENTER("shoal_node_size");
    if (!count) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    *count = shoal__rt.node_size;
    return SHOAL_OK;
}

shoal_err_t shoal_node_units(shoal_unit_t *units, int32_t count) {
    SHOAL_ENTER("shoal_node_units");
    if (!units) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    if (count < shoal__rt.node_size)
        return shoal__fail(SHOAL_ERR_INVAL, "room for %d units, the node has %d", (int)count,
                           (int)shoal__rt.node_size);
    memcpy(units, shoal__rt.node_units, (size_t)shoal__rt.node_size * sizeof *units);
    return SHOAL_OK;
}

const char *shoal_mpi_library(void) {
    /* "MPICH 4.0.2" / "Open MPI 4.1.4": the name and version from the library's first line
     * ("MPICH Version:\t4.0.2", "Open MPI v4.1.4, package: ..."). */
    static char version[128];
    if (!version[0]) {
        char raw[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
        int len = 0;
        MPI_Get_library_version(raw, &len);
        raw[strcspn(raw, "\n,")] = '\0';
        char *v = strstr(raw, "Version:");
        if (v) { /* MPICH-style */
            char *num = v + strlen("Version:");
            num += strspn(num, " \t");
            *v = '\0';
            snprintf(version, sizeof version, "%.60s%.60s", raw, num); /* bounded: no cut */
        } else {
            char *sp = strstr(raw, " v");
            if (sp && sp[2] >= '0' && sp[2] <= '9') memmove(sp + 1, sp + 2, strlen(sp + 2) + 1);
            snprintf(version, sizeof version, "%.127s", raw);
        }
    }
    return version;
}
