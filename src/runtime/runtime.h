/* The process-wide runtime state, owned by runtime/init.c. */
#ifndef SHOAL_RUNTIME_H
#define SHOAL_RUNTIME_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "shoal.h"
#include "error.h"

typedef struct {
    int initialized;        /* between shoal_init and shoal_finalize */
    int finalized;          /* shoal_finalize completed (init may not run twice per process) */
    int we_initialized_mpi; /* Shoal called MPI_Init_thread, so Shoal calls MPI_Finalize */
    int thread_level;       /* level MPI granted */
    int thread_provided;    /* shoal_thread_level_t the program got (shoal_init_thread) */
    shoal_unit_t myid;
    int32_t nunits;
    MPI_Comm world;  /* duplicate of MPI_COMM_WORLD: our traffic never meets the user's */
    MPI_Comm node;   /* units of my node (split_type SHARED of world, or pretend nodes) */
    int node_colour; /* names my node: every node split of a communicator uses it */
    int32_t node_size;
    int32_t node_rank;
    shoal_unit_t *node_units; /* absolute ids of my node's units, ascending */
    int32_t *node_rank_of;    /* [nunits] my node's rank of a unit, -1 when on another node */
    /* Configuration (see config.c for meaning and defaults). */
    size_t pool_size;
    int direct;
    int mpi_rma; /* a segment of mine is reached through MPI RMA by some member (direct path off,
                  * a team across nodes): polls then poke MPI progress (wait.h). Set, never
                  * cleared, by mem/segment.c */
    int debug;
    int progress_thread;
    int progress_interval_us;
    int spin_tight;             /* polls without a pause before the pausing spin */
    int spin_count;             /* polls before yielding, oversubscribed */
    int spin_count_dedicated;   /* polls before yielding, a CPU per unit */
    int spin_sleep_us;          /* a CPU per unit, beside computing programs: sleep this */
    int oversubscribed;         /* SHOAL_OVERSUBSCRIBED: -1 auto, 0, 1; resolved by shoal_init */
    int spin_adaptive;          /* SHOAL_SPIN_ADAPTIVE: a CPU per unit, the budget adapts */
    int machine_units;          /* units on this machine (real shared-memory node, not pretend) */
    int spin_polls;             /* the polls with a pause in force: spin_count_dedicated in the
                                 * long spin, 0 in the short one (the adaptive spin changes it:
                                 * relaxed atomics) */
    int spin_back_to_back;      /* the back-to-back polls in force: spin_tight in the long spin,
                                 * spin_count in the short one (set with spin_polls) */
    size_t coll_scratch;        /* bytes of each team's collective scratch per unit */
    int coll_verbose;           /* print every collective's algorithm choice */
    int check_collectives;      /* agree on every collective call's arguments (coll/api.c) */
    int pretend_nodes;          /* > 0: split the machine into this many nodes by unit id */
    int mpi_windows;            /* live segments with a window of their own, at most */
    int shmem_active_set_teams; /* OpenSHMEM active sets given a team of their own, at most */
    const char *coll_rules[8];  /* SHOAL_COLL_<NAME> per collective kind (coll/coll.h order) */
    const char *coll_tuning;    /* SHOAL_COLL_TUNING: path of a tuning file */
    const char *coll_tuning_cache; /* SHOAL_COLL_TUNING_CACHE: folder of host-keyed tuning files */
    const char *copy_kernel;       /* SHOAL_COPY_KERNEL: bulk copy kernel, "auto" = measured */
    const char *epoch_design;      /* SHOAL_EPOCH_DESIGN: the fence design of new allocations */
    int epoch_test_skip_ordering;  /* testing only: fences leave out their ordering step (fault) */
    size_t epoch_combine;          /* fences through MPI: puts up to this many bytes are combined
                                    * per target at the fence (rma/epoch_ops.c; 0: never) */
    int epoch_exchange_max;        /* imm_barrier through MPI: teams up to this size exchange
                                    * messages instead of a barrier (epoch/exchange.c) */
    size_t epoch_carry;            /* ... and their puts up to this many bytes travel in them */
    const char *epoch_piece_text;  /* SHOAL_EPOCH_PIECE as given */
    size_t epoch_piece;            /* ... and messages go in pieces of at most this many bytes
                                    * (0: whole; from epoch_piece_text at shoal_init) */
    size_t epoch_copy_thread;      /* direct-path epoch operations from this many bytes go to a
                                    * helper thread (rma/epoch_copy.c; 0: off) */
    const char *rb_algo;           /* SHOAL_RMA_BCAST_ALGO: what SHOAL_RMA_BCAST_AUTO means */
    int rb_waiter_us;          /* relay: fixed sleep between polls (the paper's WaiterTimeout) */
    int rb_flush_us;           /* root's wait: fixed sleep between polls (FlushTimeout) */
    int rb_relay_spin;         /* relay: polls before it sleeps */
    int rb_relay_max_sleep_us; /* relay on the MPI path: longest backoff sleep */
    int rb_relay_follow_us;    /* relay: longest spin that follows a stream of requests */
    int rb_relay_slice_us;     /* relay: its scheduler slice (0: the kernel's) */
    int rb_sleep_limit_ms;     /* direct path: longest futex sleep before looking again */
} shoal_runtime_t;

extern shoal_runtime_t shoal__rt;

#endif
