/* shoal-coll-sim: records each member's communication schedule by running the real collective
 * algorithms (src/coll/algo_*.c, eager.c) against a recording shim (shim.c), then replays the
 * schedules in a LogGP model (replay.c). docs/coll_sim.md describes the model and its limits. */
#ifndef SHOAL_COLL_SIM_H
#define SHOAL_COLL_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"

/* ---- Schedules ---- */
typedef enum {
    EV_PUT = 0,  /* n bytes into peer's memory (blocking: complete at the peer on return);
                  * key 1: into memory the peer reads (its scratch), 0: elsewhere */
    EV_SIGNAL,   /* +1 (or a flag store) on peer's word `key`, ordered after my earlier puts */
    EV_GET,      /* n bytes from peer's memory (blocking) */
    EV_WAIT_ADD, /* coll_wait: n more signals on my word `key` than consumed so far */
    EV_WAIT_ABS, /* shoal__wait_word: word `key` of peer (often me) has had at least n signals,
                  * or holds a stored value of at least n */
    EV_COPY,     /* local copy of n bytes */
    EV_REDUCE,   /* local reduction of n bytes */
    EV_CALL,     /* a call of collective kind n begins: its fixed software cost */
    EV_STORE,    /* peer's word `key` := n (a flag or mark; peer may be me: others poll it) */
    EV_SEND,     /* a two-sided message of n bytes inside one of the MPI's own collectives: +1
                  * on peer's word `key` when it arrives; its sender does not wait for it */
    EV_KINDS
} sim_ev_kind_t;

typedef struct {
    uint8_t kind;
    int32_t peer;
    uint64_t key; /* word (signal words: the coll word index; eager flags: their byte offset) */
    uint64_t n;   /* bytes, or signals */
} sim_ev_t;

typedef struct {
    int32_t p;
    sim_ev_t *ev; /* every member's events, member after member */
    size_t nev, cap;
    size_t *start;     /* [p + 1]: member m's events are ev[start[m] .. start[m + 1]) */
    size_t max_events; /* recording stops (schedule_t.truncated) beyond this many events */
    int truncated;
} sim_schedule_t;

/* What to run: collective kind, algorithm, team size, bytes (per member, as the benchmarks
 * count: broadcast/reduce/scan the message; collect/fcollect/alltoall per member's block), root,
 * radix (0: the algorithm's default), pipeline segment (0: none). */
typedef struct {
    coll_kind_t kind;
    const coll_algo_t *algo;
    int32_t p;
    size_t bytes;
    int32_t root;
    int radix;
    size_t segsize;
    int32_t ppn;  /* units per node, placed block-wise (0: all on one node) */
    int calls;    /* back-to-back calls recorded, each after the member's previous one (0: 1) */
    int mpi_path; /* the team's words go through MPI (api.c): a collect learns the sizes with one
                   * MPI_Allgather, not the eager exchange */
} sim_case_t;

/* Records every member's schedule into *s (fresh; sim_schedule_free after). Returns 0, or -1
 * with a reason in why (not applicable, out of memory, algorithm error, too many events). */
int sim_record(const sim_case_t *c, sim_schedule_t *s, size_t max_events, char *why, size_t whylen);
void sim_schedule_free(sim_schedule_t *s);
/* Why algo cannot run this case (a static string), or NULL. */
const char *sim_not_applicable(const sim_case_t *c);
/* The algorithm (and radix, segment) Shoal's default decision table (select.c) picks for c. */
const coll_algo_t *sim_default_choice(const sim_case_t *c, int *radix, size_t *segsize);

/* ---- LogGP parameters (µs, µs per byte) ---- */
/* A per-byte cost measured at several sizes ("G.<bytes>", "copy.<bytes>" or "reduce.<bytes>" in a
 * parameter file):
 * between two sizes the figure is interpolated geometrically in log(size), outside them the
 * nearest one holds. */
#define SIM_CURVE_MAX 16
typedef struct {
    int n; /* points, by increasing size (0: none; the single figures apply) */
    double bytes[SIM_CURVE_MAX], per_byte[SIM_CURVE_MAX];
} sim_curve_t;

typedef struct {
    char name[64];
    double L, o, g, G; /* latency, send overhead, gap between messages, time per byte */
    double a;          /* a signal's send overhead (an atomic add or flag store; default o) */
    double o_r;        /* a wait's overhead on completion (noticing the signal) */
    double copy;       /* local copy, per byte */
    double reduce;     /* local reduction, per byte */
    /* Messages, copies and reductions of at least big_from bytes (0: none) stream through memory
     * rather than the last-level cache: they cost G_big, copy_big, reduce_big per byte instead
     * (each 0: the in-cache figure). */
    double big_from, G_big, copy_big, reduce_big;
    /* A put into memory the target reads in every call (a scratch), below big_from: its lines
     * come back from the target's cache first (0: G). */
    double G_fresh;
    /* Measured per-size curves for puts and gets (G_curve) and local copies (copy_curve): when
     * present they replace G / G_big and copy / copy_big (big_from's blend) for those events. */
    sim_curve_t G_curve, copy_curve;
    /* Reductions per size (reduce.<bytes>): sums of data a partner has just put, as
     * bench_rma_bcast's loggp_fresh measures them; when present they replace reduce and
     * reduce_big. From 256 KiB up such a sum costs 2-4x the in-cache figure. */
    sim_curve_t reduce_curve;
    /* With cpu_ports: blocking puts both ways at once per size (G_both.<bytes>); the share of a
     * message's time that a CPU moving other bytes meanwhile adds is G_both / G - 1 at its size
     * (0-1; 1 when there is no curve: twice as long). */
    sim_curve_t G_both_curve;
    double call;                  /* a call's fixed software cost on every member before its first
                                   * operation (entry checks, flush, selection); 0 = not modelled */
    double call_kind[COLL_KINDS]; /* "call.<collective>": that collective's own (0: call) */
    int put_ack; /* 1: a put blocks until its completion is back (+L): the MPI path */
    /* With put_ack: a blocking put and get of 256 bytes as measured, completion included (0: not
     * measured, the round trip is priced 2 L). Where the ping-pong's L holds a wait for progress
     * as well as the wire (Open MPI's TCP: L 17.5 us, a put of 8 B and its flush 18 us), 2 L
     * prices every put's completion twice over. Larger messages add (n - 256) G. */
    double put_small, get_small;
    /* One-way time of a message inside the MPI's own collectives (EV_SEND; 0: L): both sides are
     * inside MPI, so no wait for progress, unlike the ping-pong behind L. calibrate.py takes it
     * from MPI_Allgather of 8 B at 2 members (one exchange): its time minus o. */
    double native_L;
    /* 1: a member's own CPU sends, receives and serves every message through MPI within a node,
     * so its ports are one (session 41): both MPIs move an RMA's bytes there by active messages,
     * which the target copies when it enters MPI (MPICH 4.0: a 1 MiB put + flush to a rank that
     * computes for 2 ms took 2.2 ms; puts both ways at once took 1.7-1.9x one). 0: ports apart. */
    int cpu_ports;
} sim_params_t;

void sim_params_default(sim_params_t *prm); /* this machine, direct path */
/* A curve's per-byte figure for n bytes (c->n > 0). */
double sim_curve_at(const sim_curve_t *c, double n);
/* Reads "key = value" lines (# comments); 0, or -1 with a message on stderr. */
int sim_params_read(const char *path, sim_params_t *prm);

/* ---- Replay ---- */
typedef struct {
    double time;          /* completion: the last member's finish time */
    double mean_finish;   /* average over members */
    size_t events;        /* events replayed */
    int deadlock;         /* some member never finished (a bug in the schedule or the engine) */
    int32_t stuck_member; /* one of them (-1: none) */
    uint64_t stuck_key;
    /* Consistency: words whose signal count differs from what their owner consumed. */
    size_t unbalanced_words;
} sim_result_t;

int sim_replay(const sim_schedule_t *s, const sim_params_t *prm, sim_result_t *r);
/* The same over nodes of ppn members (block-wise): messages between nodes use net and the nodes'
 * shared ports (one NIC per node); within a node, local. ppn 0 or net NULL: sim_replay. */
int sim_replay_nodes(const sim_schedule_t *s, const sim_params_t *local, const sim_params_t *net,
                     int32_t ppn, sim_result_t *r);

#endif
