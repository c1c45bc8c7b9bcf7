/* One-sided broadcast (docs/rma_bcast.md): the core works on an rb_space, which says how to reach
 * every member's landing region and control words. Two faces fill it in: Shoal allocations
 * (rbcast/shoal_face.c: the direct path where mapped, the segment's MPI window otherwise) and a
 * plain MPI program's own window (rbcast/mpi_face.c: MPI only, no shoal_init). */
#ifndef SHOAL_RBCAST_SPACE_H
#define SHOAL_RBCAST_SPACE_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "shoal.h"

/* Control words of each member, bytes from the start of its control part:
 * NEXT     (member 0) tickets taken: broadcast number k holds ticket k - 1
 * SERVING  (member 0) broadcasts completed: ticket t may start when SERVING == t. A ticket lock
 *          (fetch-and-add only: Open MPI's osc/rdma crashes in compare-and-swap, MPI-NOTES.md),
 *          so broadcasts on one space run one at a time in the order their roots asked
 * DONE     members that completed broadcasts rooted here (cumulative; the root's completion)
 * REQ      the last request here: number * 2, + 1 when there is nothing to relay (linear);
 *          the relay thread sleeps on its low 32 bits (futex) on the direct path
 * SLEEPING the relay thread is (about to be) asleep on REQ: a writer must wake it
 * WAITERS  program threads (about to be) asleep on DONE: whoever adds to DONE wakes them
 * ARRIVAL_WAITERS program threads (about to be) asleep waiting for an arrival: a root that
 *          writes a linear request here then wakes the relay, which tells them
 * DESCR    the request's description, written by the parent before REQ */
#define RB_OFF_NEXT            0
#define RB_OFF_SERVING         8
#define RB_OFF_DONE            16
#define RB_OFF_REQ             24
#define RB_OFF_SLEEPING        32
#define RB_OFF_WAITERS         40
#define RB_OFF_ARRIVAL_WAITERS 48
#define RB_OFF_DESCR           64
#define RB_CTRL_BYTES          128

typedef struct {
    uint64_t seq;         /* the broadcast's number */
    uint64_t root;        /* its root (rank in the space) */
    uint64_t where;       /* landing place: byte offset (Shoal) or displacement (MPI face) */
    uint64_t nbytes;      /* its size */
    uint64_t done_target; /* the root's DONE value at completion */
} rb_descr_t;

typedef struct rb_space {
    int32_t size, me;
    int face_mpi; /* 1: the plain-MPI face (errors name the communicator's ranks) */
    /* Landing regions: member r's byte b is data_direct[r] + b when mapped here, else
     * MPI displacement data_disp0[r] + b / data_unit in data_win. */
    MPI_Win data_win;
    char **data_direct;
    MPI_Aint *data_disp0;
    MPI_Aint data_unit; /* bytes per displacement unit of data_win (1 for Shoal) */
    size_t *data_size;  /* [size] bytes of each member's region */
    char *my_data;      /* my region here */
    /* Control words: CPU atomics on ctrl_direct when ctrl_cpu (every member mapped), else MPI
     * atomics on ctrl_win (decision 4: one mechanism per word). */
    MPI_Win ctrl_win;
    char **ctrl_direct;
    MPI_Aint *ctrl_disp0;
    int *ctrl_rank;  /* [size] member r's rank in ctrl_win (NULL: r itself) */
    char *ctrl_mine; /* my control part here (read with plain loads after a sync) */
    int ctrl_cpu;
    int uses_mpi; /* some traffic goes through MPI (the relay thread calls MPI) */
    /* The relay thread. */
    pthread_t relay;
    int relay_started;
    int stop;              /* set, then the relay is woken: it exits */
    uint64_t relay_errors; /* failed relays (reported when they happen) */
    /* Waiting parameters (the SHOAL_RMA_BCAST_* and SHOAL_SPIN_COUNT variables), read at
     * registration: the plain-MPI face has no shoal_init to read them. */
    int waiter_us, flush_us, relay_spin, relay_max_sleep_us, spin_count, sleep_limit_ms;
    int relay_follow_us; /* SHOAL_RMA_BCAST_RELAY_FOLLOW_US; 0 where units outnumber CPUs */
    int relay_slice_us;  /* SHOAL_RMA_BCAST_RELAY_SLICE_US */
    int spin_runtime;    /* the waits spin as the waiting policy in force (under shoal_init) */
    shoal_rma_bcast_algo_t auto_means; /* SHOAL_RMA_BCAST_ALGO */
    uintptr_t token;                   /* its name in the object table (requests refer to it) */
    void *face;                        /* the face's own record (its control words, ...) */
    struct rb_space *next;             /* the face's list of live spaces */
    uint64_t relayed; /* the last broadcast my relay has passed on (my part is mine again) */
    /* Broadcast numbers I have taken as root (for a fast local arrival answer). */
    uint64_t my_root_arrived;
    /* My DONE word's value once my broadcasts so far are complete (the sum of their counts). */
    uint64_t root_done;
    /* Arrivals my relay has seen (bumped after each request it handled, and by my own
     * broadcasts), and program threads (about to be) asleep on it: a process-private futex. */
    uint64_t arrivals, arrival_waiters;
} rb_space_t;

/* Starts the relay thread (p > 1) / stops and joins it. */
shoal_err_t rb_relay_start(rb_space_t *sp);
void rb_relay_stop(rb_space_t *sp);
/* The root's broadcast; *done_target: the DONE value that means complete; *seq: its number. */
shoal_err_t rb_broadcast(rb_space_t *sp, uint64_t where, const void *src, size_t nbytes,
                         shoal_rma_bcast_algo_t algo, uint64_t *done_target, uint64_t *seq);
/* The root's completion test; wait polls it with the waiting policy (or SHOAL_RMA_BCAST_FLUSH_US
 * sleeps). */
shoal_err_t rb_test(rb_space_t *sp, uint64_t done_target, int *done);
shoal_err_t rb_wait(rb_space_t *sp, uint64_t done_target);
/* Has broadcast seq reached me / wait for it. */
shoal_err_t rb_arrived(rb_space_t *sp, uint64_t seq, int *arrived);
shoal_err_t rb_wait_arrival(rb_space_t *sp, uint64_t seq);
/* Waits until no broadcast is in flight on the space (deregistration). */
shoal_err_t rb_quiesce(rb_space_t *sp);
/* The algorithm auto picks for nbytes on p members, on the direct or the MPI path (rules:
 * docs/rma_bcast.md). */
shoal_rma_bcast_algo_t rb_auto_algo(size_t nbytes, int32_t p, int mpi_path);

/* Fills sp's waiting parameters and auto_means from the configuration (rt: shoal__rt when
 * initialised, else a copy loaded from the environment). */
shoal_err_t rb_params_load(rb_space_t *sp);

#endif
