/* The collectives framework. Every algorithm is a coll_algo_t: a name, its applicability as data
 * (read by the selector and by the tests), and a run function built only from Shoal's own
 * point-to-point operations through the helpers below (the exceptions: "native" runs the MPI
 * library's own collective, native.c says why, and "node_native" runs it among the node leaders
 * between its shared-memory steps, leaders.c).
 *
 * Synchronisation: each team owns a coll area (one internal segment): signal words, then a data
 * scratch of SHOAL_COLL_SCRATCH bytes. Signal words are counters that senders only ever add 1
 * to; the receiver keeps, per word, how many signals it has consumed so far (expected[]) and
 * waits until the word reaches expected + what this call brings. Counters never reset, so
 * back-to-back collectives, even with different algorithms, cannot confuse each other.
 *
 * Buffer reuse: a member may write into a peer's dest (or scratch), or read a peer's src, for call
 * N only after the peer has entered call N (then it is done with call N-1's buffers and its src
 * holds call N's data): the peer says so with a READY signal to each member that will touch its
 * buffers. A member whose src is read by peers (pull algorithms) does not return before they
 * have signalled DONE.
 *
 * Two more rules every algorithm keeps: data from member s is announced on W_DATA(s) (a word with
 * one sender), never on a shared W_ROUND word, which another algorithm's signals in the next call
 * could satisfy early; and every collect/fcollect makes each member wait, directly or through
 * others, for every other member, signalling even empty blocks (the collect size slots are only
 * double-buffered). Collect algorithms copy src into dest first, so src and dest may overlap. */
#ifndef SHOAL_COLL_H
#define SHOAL_COLL_H

#include "mem/resolve.h"
#include "xport/copy.h"
#include "team/team.h"
#include "tree.h"

typedef enum {
    COLL_BARRIER = 0,
    COLL_BROADCAST,
    COLL_COLLECT,
    COLL_FCOLLECT,
    COLL_ALLTOALL,
    COLL_ALLTOALLS,
    COLL_REDUCE,
    COLL_SCAN,
    COLL_KINDS
} coll_kind_t;

/* Bytes of a collect's MPI size cell on a team of p, when the team's words go through MPI (api.c,
 * exchange_sizes_mpi): the 8-byte size and room for a block of up to 1 KiB, 8 KiB of blocks in
 * all (a block that does not fit wastes its cell: a bounded cost against the MPI round a second
 * collective takes); only the size beyond 1,024 members. The simulator records the same. */
static inline size_t coll_mpi_cell_bytes(int32_t p) {
    return 8 + (p <= 8 ? 1024 : 8192 / (size_t)p / 8 * 8);
}

/* Which buffer of a member an operation addresses. */
typedef enum { BUF_DEST = 0, BUF_SRC = 1, BUF_SCRATCH = 2 } coll_buf_t;

typedef struct coll_team coll_team_t;

typedef struct coll_args {
    coll_kind_t kind;
    team_t *team;
    coll_team_t *ct;
    int32_t p, me; /* team size, my team-relative id */
    /* The user's buffers: same segment and offset on every member. */
    segment_t *dseg, *sseg;
    uint64_t doff, soff;
    char *dlocal;  /* my dest part, in this process */
    char *slocal;  /* my src part */
    size_t nbytes; /* bcast, fcollect, alltoall: bytes per member; collect: mine */
    int32_t root;
    int root_keeps_dest;     /* broadcast: the root's dest is not written (OpenSHMEM active sets) */
    size_t *sizes, *offsets; /* collect: every member's bytes and exclusive prefix sum */
    size_t total;            /* collect/fcollect: bytes of the whole result */
    ptrdiff_t dst, sst;      /* alltoalls strides (elements) */
    size_t elem_size, nelems;
    size_t count; /* reductions, scans: elements */
    shoal_type_t type;
    shoal_red_op_t op;
    int inclusive;
    size_t msg_bytes; /* the size the selector keyed on */
    int radix;        /* tree radix chosen (algorithms that have one) */
    size_t segsize;   /* pipeline segment size chosen (algorithms that have one); 0 = none */
    /* collect on a team with eager exchange slots: the sizes came in exchange xchg_e, with the
     * blocks themselves when every block fit a cell (xchg_blocks); xchg_open until finished */
    uint64_t xchg_e;
    int xchg_open, xchg_blocks;
    /* collect on a team whose words go through MPI: the sizes came by one MPI_Allgather of cells
     * of mpi_cell bytes each (the 8-byte size, then the block when it fit); mpi_blocks when every
     * block fit, so "native" only copies them out of mpi_cells (owned by shoal_collect). */
    char *mpi_cells;
    size_t mpi_cell;
    int mpi_blocks;
} coll_args_t;

struct coll_team {
    segment_t *seg;       /* signal words + scratch, one part per member */
    size_t sig_bytes;     /* bytes of signal words at the start of each part */
    size_t scratch_bytes; /* scratch bytes after them */
    uint64_t seq;         /* collectives called on this team so far */
    uint64_t eager_seq;   /* eager broadcasts through the slots on this team so far */
    uint64_t ring_seq;    /* eager broadcasts through the ring so far */
    uint64_t ring_pos;    /* ring lines those have used so far */
    size_t ring_off;      /* where the eager broadcast's ring starts in a member's part */
    size_t slots_off;     /* and its slots (after the ring) */
    uint64_t *eager_done; /* [p] each member's W_EAGER_DONE as last read (only ever grows) */
    uint64_t *ring_done;  /* [p] each member's W_RING_DONE as last read */
    uint64_t xchg_seq;    /* eager exchanges called on this team so far */
    uint64_t *xchg_done;  /* [p] each member's W_XCHG_DONE as last read */
    size_t xchg_off;      /* where the exchange slots start in a member's part (0: none) */
    size_t xchg_cell;     /* bytes of one exchange cell (coll_xchg_cell) */
    char *local_buf;      /* private staging kept between calls (linear reduce/scan), or NULL */
    size_t local_bytes;
    uint64_t *expected; /* [nwords] signals consumed per word */
    int32_t nwords;
    const char *last_algo; /* name of the algorithm the last call ran */
    /* Where the members live, for the node-aware algorithms (one allgather at team creation):
     * nodes are numbered by first appearance in team order; by_node lists the members node by
     * node, ascending within a node, so a node's first member (its leader) comes first. */
    int32_t nnodes;
    int32_t node_max;    /* members of the most populous node */
    int32_t *node_of;    /* [p] node of each member */
    int32_t *by_node;    /* [p] members grouped by node */
    int32_t *node_start; /* [nnodes + 1] where each node's group starts in by_node */
    int nodes_in_runs;   /* every node's members are consecutive in team order */
    /* The node leaders' own communicator (ranked by node; leaders.c), made by the team's first
     * node_native call (leaders_made) on a team that spans nodes, only at its leaders:
     * MPI_COMM_NULL elsewhere. */
    MPI_Comm leaders;
    int leaders_made;
    uint64_t flag_seq; /* flag barriers called on this team so far */
    /* The barrier's last selection (select.c): a barrier has no size, so its choice changes only
     * when the rules do (generation) or the team's shape does (never, but checked). */
    const struct coll_algo *barrier_algo;
    uint64_t barrier_gen;
    int32_t barrier_nnodes;
    /* The arguments of that selection, ready to run (a barrier's are the same every call; no
     * barrier algorithm writes to them): shoal_team_barrier's fast path skips building them. */
    coll_args_t barrier_args;
    /* That selection is `line` at 2 members in shared memory, which is the synchronisation
     * layer's 2-member barrier (sync.h): shoal_team_barrier runs it before anything else. */
    int barrier_pair;
    /* fcollect's per-member sizes and offsets (every block the same), made by its first call
     * and kept: no allocation per call, and a kept fcollect's arguments point at them. */
    size_t *fcollect_sizes, *fcollect_offsets;
    /* collect's, refilled by every call (its blocks differ from call to call), made by its first
     * call and kept: two mallocs and frees a call were 263 of the 1,180 instructions of an 8-byte
     * collect at one unit (tests/perf). */
    size_t *collect_sizes, *collect_offsets;
    /* The last broadcast, reduce, alltoall or fcollect: its arguments checked, its algorithm
     * chosen, ready to run again (api.c, "Repeats"): the same call once more skips the checks and
     * the rules. */
    struct coll_repeat {
        int valid;
        coll_kind_t kind;
        shoal_gptr_t dest, src;
        uint64_t key[3]; /* the call's other arguments, by kind */
        uint64_t rules_gen;
        uint64_t preferred; /* coll_preferred_key() when kept */
        int32_t nnodes;
        const struct coll_algo *algo;
        coll_args_t args; /* as selection left them, before the algorithm ran */
    } repeat;
};
/* The generation of the selection rules (select.c): a kept barrier selection holds while equal. */
extern uint64_t coll_rules_gen;
/* This thread's by-name preference (coll_prefer) as a word: 0 none, equal for equal ones (a kept
 * selection holds only under the preference it was made under). */
uint64_t coll_preferred_key(void);

/* The "native" algorithm of every collective (native.c): the MPI library's own collective on the
 * team's communicator. Why it cannot run a call (NULL: it can); the simulator has its own. */
const char *coll_native_not_applicable(const coll_args_t *a);
shoal_err_t coll_native(coll_args_t *a);
/* The between-nodes step of the node_native algorithms (leaders.c): the MPI library's
 * collective among the node leaders (ct->leaders), called by leaders only, a no-op on a team of
 * one node. Barrier; broadcast of buf[0..n) from node root_node's leader; allgatherv in place
 * in my dest, each node's blocks one run (NEEDS_NODE_RUNS); allreduce in place of n elements
 * of acc. The simulator stands in for them as for native. */
shoal_err_t coll_leaders_barrier(coll_args_t *a);
/* Every member, at the start of a node_native call: makes ct->leaders on the team's first one
 * (collective over the team: every member runs the same algorithm for the same call; a team
 * that never runs node_native spends no communicator on it). Freed with the team. */
shoal_err_t coll_leaders_ready(coll_args_t *a);
void coll_leaders_free(coll_team_t *ct);
shoal_err_t coll_leaders_bcast(coll_args_t *a, void *buf, size_t n, int32_t root_node);
shoal_err_t coll_leaders_allgatherv(coll_args_t *a);
shoal_err_t coll_leaders_allreduce(coll_args_t *a, void *acc, size_t n);

/* Signal words of a team of p members. */
#define W_READY(rel)               (rel)           /* READY from member rel */
#define W_DATA(rel, p)             ((p) + (rel))   /* data (or DONE) from member rel */
#define W_ROUND(r, p)              (2 * (p) + (r)) /* round r of a round-based algorithm */
#define COLL_ROUNDS                63
#define W_SIZES(p)                 (2 * (p) + COLL_ROUNDS) /* collect: a member's size arrived */
#define SIZES_WORD(parity, rel, p) (2 * (p) + 64 + (parity) * (p) + (rel)) /* size slots */
#define W_EAGER_DONE(p)            (4 * (p) + 64) /* eager slot broadcasts this member finished */
#define W_XCHG_DONE(p)             (4 * (p) + 65) /* eager exchanges this member has finished */
#define W_RING_DONE(p)             (4 * (p) + 66) /* eager ring lines this member is done with */
/* Flag words (the "flags" barrier): round r's flag of a member, written by that member only (the
 * number of flag barriers it has reached round r of), read by the member it releases. One cache
 * line each, so that each has one reader. */
#define COLL_FLAG_ROUNDS 32
#define W_FLAG(r, p)     (((4 * (p) + 67) + 7) / 8 * 8 + 8 * (r))
/* The "line" barrier's cache line, in member 0's part: word rel is member rel's flag (the number
 * of flag barriers it has reached), so every member reads all of them in one line. */
#define COLL_LINE_UNITS 8
#define W_LINE(rel, p)  (W_FLAG(COLL_FLAG_ROUNDS, p) + (rel))
#define COLL_NWORDS(p)  W_LINE(COLL_LINE_UNITS, p)

/* Eager broadcast (algo_bcast.c), two regions per member after the scratch: a ring of
 * COLL_EAGER_LINES cache lines for messages of up to COLL_EAGER_RING_MAX bytes (each line an
 * 8-byte header and COLL_EAGER_LINE_DATA bytes of message; a message takes consecutive lines),
 * then COLL_BCAST_SLOTS slots for larger ones up to COLL_EAGER_SLOT bytes (an 8-byte flag, then
 * the message). A root runs up to COLL_BCAST_SLOTS calls ahead of a receiver that is not running:
 * with 4 slots, two 2-unit jobs sharing two CPUs took 2.8 us per 1 KiB broadcast, with 16 0.74 us
 * (MPICH 0.43: its root runs ahead in its eager cells), for 50 KiB more per member. */
#define COLL_EAGER_LINE        ((size_t)64)
#define COLL_EAGER_LINE_DATA   (COLL_EAGER_LINE - 8)
#define COLL_EAGER_LINES       128
#define COLL_EAGER_RING_MAX    ((size_t)512)
#define COLL_BCAST_SLOTS       16
#define COLL_EAGER_SLOT        ((size_t)4096)
#define COLL_EAGER_SLOT_STRIDE (COLL_EAGER_SLOT + 64)

/* Eager exchange (eager.c: small fcollect, alltoall, reduce, scan): COLL_XCHG_SLOTS slots per
 * member after the broadcast's, each with one cell per member of the team: an 8-byte flag, then
 * up to the cell's size less 8 bytes. Only teams of up to COLL_XCHG_UNITS have them. In an
 * fcollect, alltoall or reduce nobody leaves before every member has entered, so nobody runs
 * more than a call ahead (a scan's member 0 may, up to the slots): more slots would only cost
 * memory. A cell takes 4 KiB messages up to 7 units and shrinks above, to keep a slot within
 * COLL_XCHG_SLOT_BYTES per member (at least 1 KiB messages). With 1 KiB cells a 4 KiB fcollect
 * took a synchronised algorithm, one copy straight from the source but a round trip: where the
 * program writes its source and reads the result (bench_coll --touch), 2 units, eager is faster
 * (docs/collectives.md), and with units sharing CPUs each round trip can cost a switch. */
#define COLL_XCHG_SLOTS      4
#define COLL_XCHG_SLOT_BYTES ((size_t)32768)
#define COLL_XCHG_CELL_MIN   ((size_t)1088) /* 1 KiB messages, plus the flag */
#define COLL_XCHG_CELL_MAX   ((size_t)4160) /* 4 KiB messages, the flag, and line alignment */
/* Bytes of a cell on a team of p members: whole cache lines, so that a cell's flag and its first
 * data share a line of their own. */
static inline size_t coll_xchg_cell(int32_t p) {
    size_t cell = COLL_XCHG_SLOT_BYTES / (size_t)(p > 0 ? p : 1) / 64 * 64;
    return cell < COLL_XCHG_CELL_MIN   ? COLL_XCHG_CELL_MIN
           : cell > COLL_XCHG_CELL_MAX ? COLL_XCHG_CELL_MAX
                                       : cell;
}
#define COLL_XCHG_UNITS 16

/* Applicability flags. */
#define NEEDS_POW2           0x1u   /* team size a power of two */
#define NEEDS_EVEN           0x2u   /* team size even */
#define NEEDS_COUNT_GE_UNITS 0x4u   /* reductions: count >= team size */
#define NEEDS_NO_INPLACE     0x8u   /* dest and src must differ */
#define NEEDS_EAGER_SIZE     0x10u  /* message fits an eager slot (COLL_EAGER_SLOT) */
#define NEEDS_XCHG           0x20u  /* per-member message fits an exchange cell, team has slots */
#define NEEDS_XCHG_BLOCKS    0x40u  /* collect: every block came with the sizes (xchg_blocks) */
#define NEEDS_CPU_WORDS      0x80u  /* the team's words are CPU atomics (all on node, direct) */
#define NEEDS_MPI_COLL       0x100u /* the MPI library's collective (native.c): its own limits */
#define NEEDS_NODE_RUNS      0x200u /* every node's members consecutive in team order */

typedef struct coll_algo {
    coll_kind_t kind;
    const char *name;
    unsigned needs;                          /* NEEDS_* flags */
    int32_t max_team_size;                   /* 0 = any */
    int radix_min, radix_max, radix_default; /* all 0: no radix parameter */
    /* Bytes of the team scratch one member needs (NULL = none). */
    size_t (*scratch)(const coll_args_t *a);
    shoal_err_t (*run)(coll_args_t *a);
    const char *about; /* one line for docs and tools */
} coll_algo_t;

/* ---- Registry and selection (select.c) ---- */
const char *coll_kind_name(coll_kind_t kind);
/* All algorithms of a kind. */
const coll_algo_t *coll_algos(coll_kind_t kind, int *count);
const coll_algo_t *coll_find_algo(coll_kind_t kind, const char *name);
/* Why algo cannot run these args (a static string), or NULL when it can. */
const char *coll_not_applicable(const coll_algo_t *algo, const coll_args_t *a, int radix);
/* Picks the algorithm and its parameters for a (radix, segsize written into a). */
shoal_err_t coll_select(coll_args_t *a, const coll_algo_t **algo);
/* The calling thread's preference for its collectives of one kind (the SHCOLL names, whose name
 * is an algorithm: src/shmem/shcoll.c): the algorithm `name` with `radix` (0: its default), ahead
 * of every rule, wherever it applies; the rules decide where it does not. name NULL: none.
 * SHOAL_ERR_INVAL for a name that kind does not have. */
shoal_err_t coll_prefer(coll_kind_t kind, const char *name, int radix);
/* The team's cached barrier selection, if the rules and the team have not changed since (its
 * arguments in ct->barrier_args), else NULL. */
const coll_algo_t *coll_barrier_cached(const coll_team_t *ct);
/* Parses SHOAL_COLL_* and SHOAL_COLL_TUNING (init) and drops them (finalize). */
shoal_err_t coll_select_init(void);
void coll_select_finalize(void);
/* Adds the rules of a tuning file's text (select.c); forced rules are the user's word. */
shoal_err_t coll_select_parse_tuning(const char *text, const char *where, const char *origin_name,
                                     int forced);
/* The host-keyed tuning cache (tuning_cache.c): this host's description and key, the file
 * shoal-coll-tune --cache writes for a team of `units`, and loading the files of this host. */
void coll_tuning_host(char *desc, size_t desc_len, char key[17]);
int coll_tuning_cache_path(int32_t units, char *path, size_t len);
shoal_err_t coll_tuning_cache_load(void);

/* ---- Team area and point-to-point helpers (area.c) ---- */
shoal_err_t shoal__coll_team_init(team_t *team);
shoal_err_t shoal__coll_team_finalize(team_t *team);
void shoal__coll_team_release(team_t *team); /* at finalize: host memory only */
/* Word w of member `member`, as a target for the RMA layer's atomics and waits. */
shoal_target_t coll_word(coll_args_t *a, int32_t member, int32_t w);
/* Adds 1 to word w of member peer. */
shoal_err_t coll_signal(coll_args_t *a, int32_t peer, int32_t w);
/* Waits until my word w has brought n more signals than consumed so far; consumes them. */
shoal_err_t coll_wait(coll_args_t *a, int32_t w, uint64_t n);
/* Tells the writer `peer` that my buffers are free for this call. */
static inline shoal_err_t coll_ready(coll_args_t *a, int32_t writer) {
    return coll_signal(a, writer, W_READY(a->me));
}
/* Waits for READY from `peer` before writing into its buffers. */
static inline shoal_err_t coll_wait_ready(coll_args_t *a, int32_t peer) {
    return coll_wait(a, W_READY(peer), 1);
}
/* At least `bytes` of private staging memory, kept for the team's next calls (a fresh buffer
 * per call meant fresh mappings and page faults for large messages); NULL when out of memory. */
char *coll_local_buffer(coll_args_t *a, size_t bytes);
/* Address of my own buffer (dest, src or scratch) at offset. */
char *coll_local(coll_args_t *a, coll_buf_t buf, size_t off);
/* Blocking put of n bytes into member peer's buffer at off. */
shoal_err_t coll_put(coll_args_t *a, int32_t peer, coll_buf_t buf, size_t off, const void *src,
                     size_t n);
/* Put, then add 1 to the peer's word w: whoever sees the signal sees the data. */
shoal_err_t coll_put_signal(coll_args_t *a, int32_t peer, coll_buf_t buf, size_t off,
                            const void *src, size_t n, int32_t w);
/* Blocking get of n bytes from member peer's buffer at off. */
shoal_err_t coll_get(coll_args_t *a, void *dst, int32_t peer, coll_buf_t buf, size_t off, size_t n);
/* A reader's half of a pull: waits for `source`'s word that the data is there, gets n bytes of
 * its buffer into my dest, and says DONE (the source waits for that before it returns). */
static inline shoal_err_t coll_pull(coll_args_t *a, int32_t source, coll_buf_t buf, size_t n) {
    SHOAL_TRY(coll_wait(a, W_DATA(source, a->p), 1));
    SHOAL_TRY(coll_get(a, a->dlocal, source, buf, 0, n));
    return coll_signal(a, source, W_DATA(a->me, a->p));
}
/* Byte offset of the end of a collect's block b (b < p): where block b+1 starts, or the total. */
static inline size_t coll_block_end(const coll_args_t *a, int32_t b) {
    return b + 1 < a->p ? a->offsets[b + 1] : a->total;
}
/* Local copy between my own buffers (memmove semantics). */
void coll_copy_local(void *dst, const void *src, size_t n);

/* The team's node map, as the tree builders take it. */
static inline node_map_t coll_node_map(const coll_team_t *ct) {
    return (node_map_t){ct->nnodes, ct->node_of, ct->by_node, ct->node_start};
}
/* Node n's members (ascending, its leader first) and how many. */
static inline const int32_t *coll_node_members(const coll_args_t *a, int32_t n, int32_t *count) {
    *count = a->ct->node_start[n + 1] - a->ct->node_start[n];
    return a->ct->by_node + a->ct->node_start[n];
}
/* My node's members. */
static inline const int32_t *coll_node_mates(const coll_args_t *a, int32_t *count) {
    return coll_node_members(a, a->ct->node_of[a->me], count);
}
/* The leader (first member) of node n. */
static inline int32_t coll_node_leader(const coll_args_t *a, int32_t n) {
    return a->ct->by_node[a->ct->node_start[n]];
}

/* Broadcast's root: its own dest gets the data unless the caller asked to keep it. */
static inline void coll_root_copy(coll_args_t *a, size_t n) {
    if (!a->root_keeps_dest) coll_copy_local(a->dlocal, a->slocal, n);
}

/* The barrier of shoal_team_barrier (its selection; my outstanding operations complete first)
 * for layers above (epoch/), without the public entry's argument agreement. */
shoal_err_t shoal__coll_barrier(team_t *team);
/* shoal_team_barrier that always selects (a thread's coll_prefer is seen; no kept selection). */
shoal_err_t shoal__team_barrier_selected(shoal_team_t team);
/* shoal_broadcast whose root leaves its dest untouched (the deprecated OpenSHMEM broadcast). */
shoal_err_t shoal__broadcast_keep_root_dest(shoal_team_t team, shoal_gptr_t dest, shoal_gptr_t src,
                                            size_t nbytes, shoal_unit_t root);

/* ---- The eager protocol (eager.c) ----
 * A writer of eager call e (counted per team and per kind) puts into a slot of the peer's coll
 * area: first it makes sure the peer has finished call e - slots (the peer's done_word, read only
 * when *done_seen, the value it last read, is too old), then writes the n bytes after
 * the slot's 8-byte flag, then the flag (e + 1). The reader waits for the flag in its own slot;
 * every member stores its done_word (e + 1) when it leaves the call. */
shoal_err_t coll_eager_post(coll_args_t *a, int32_t peer, uint64_t e, uint64_t slots,
                            int32_t done_word, uint64_t *done_seen, shoal_target_t flag,
                            const void *src, size_t n);
/* Waits until a member's flag word holds at least value (gapped polls, then the yielding wait). */
shoal_err_t coll_wait_flag(const shoal_target_t *flag, uint64_t value);
/* Waits until my slot `flag` holds call e; *data = the bytes after the flag (in my memory). */
shoal_err_t coll_eager_wait(coll_args_t *a, shoal_target_t flag, uint64_t e, const char **data);
shoal_err_t coll_eager_leave(coll_args_t *a, int32_t done_word, uint64_t e);

/* ---- Eager exchange algorithms (eager.c) ---- */
/* collect: every member's size (and its block, when all fit a cell) through one exchange; fills
 * a->sizes, offsets, total. The exchange stays open (a->xchg_open) until coll_eager_end. */
shoal_err_t coll_eager_collect_sizes(coll_args_t *a, size_t mine);
shoal_err_t coll_eager_collect(coll_args_t *a);
shoal_err_t coll_eager_end(coll_args_t *a);
/* A hash of every selection rule in force (environment, tuning file, defaults, overrides) and of
 * the scratch size: units whose hashes differ could pick different algorithms for one call. */
uint64_t coll_select_hash(void);
/* Whether collect on this team exchanges its sizes eagerly (the same on every member). */
int coll_eager_collect_possible(const coll_args_t *a);
shoal_err_t coll_eager_fcollect(coll_args_t *a);
shoal_err_t coll_eager_alltoall(coll_args_t *a);
shoal_err_t coll_eager_reduce(coll_args_t *a);
shoal_err_t coll_eager_scan(coll_args_t *a);

/* ---- Local reduction kernels (reduce_ops.c) ---- */
/* inout[k] = inout[k] op in[k] for k < count. */
void coll_reduce_local(void *inout, const void *in, size_t count, shoal_type_t type,
                       shoal_red_op_t op);
int coll_type_is_integer(shoal_type_t type);

/* ---- Algorithm tables (one per file) ---- */
extern const coll_algo_t coll_barrier_algos[];
extern const int coll_barrier_nalgos;
extern const coll_algo_t coll_bcast_algos[];
extern const int coll_bcast_nalgos;
extern const coll_algo_t coll_collect_algos[];
extern const int coll_collect_nalgos;
extern const coll_algo_t coll_fcollect_algos[];
extern const int coll_fcollect_nalgos;
extern const coll_algo_t coll_alltoall_algos[];
extern const int coll_alltoall_nalgos;
extern const coll_algo_t coll_alltoalls_algos[];
extern const int coll_alltoalls_nalgos;
extern const coll_algo_t coll_reduce_algos[];
extern const int coll_reduce_nalgos;
extern const coll_algo_t coll_scan_algos[];
extern const int coll_scan_nalgos;

#endif
