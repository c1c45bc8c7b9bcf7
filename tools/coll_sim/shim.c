/* The recording shim: what src/coll/area.c, the RMA layer and the runtime give the collective
 * algorithms, reimplemented so that running an algorithm appends its communication to the calling
 * member's schedule instead of moving data. Each member's run function is called once, member
 * after member; waits return at once (the algorithms' control flow never depends on what arrives:
 * collect sizes are passed in, eager flags are counted, not read), and every buffer points into a
 * PROT_NONE reservation, so an algorithm that touched data itself would fault. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "coll/coll.h"
#include "rma/rma.h"
#include "runtime/config.h"
#include "runtime/runtime.h"
#include "sim.h"

/* ---- What the runtime provides (select.c, the algorithms) ---- */
shoal_runtime_t shoal__rt;
_Thread_local const char *shoal__current_call __attribute__((tls_model("initial-exec")));

static char fail_msg[256];

shoal_err_t shoal__fail(shoal_err_t err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fail_msg, sizeof fail_msg, fmt, ap);
    va_end(ap);
    return err;
}

void shoal__debug(const char *fmt, ...) {
    (void)fmt;
}

int shoal__parse_size(const char *text, size_t *bytes) {
    char *end = NULL;
    if (!text || text[0] < '0' || text[0] > '9') return -1;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10), mult = 1;
    if (errno) return -1;
    if (*end == 'k' || *end == 'K') mult = 1ULL << 10;
    if (*end == 'm' || *end == 'M') mult = 1ULL << 20;
    if (*end == 'g' || *end == 'G') mult = 1ULL << 30;
    if (mult > 1) end++;
    if (mult > 1 && (*end == 'i' || *end == 'I')) end++;
    if (mult > 1 && (*end == 'b' || *end == 'B')) end++;
    if (*end) return -1;
    *bytes = (size_t)(v * mult);
    return 0;
}

/* ---- Recording state ---- */
static sim_schedule_t *rec; /* the schedule being recorded */
static int32_t rec_me;      /* the member running */
static char *region;        /* PROT_NONE reservation all buffers point into */
static size_t region_bytes;

static void emit(sim_ev_kind_t kind, int32_t peer, uint64_t key, uint64_t n) {
    if (rec->truncated) return;
    if (rec->nev == rec->max_events) {
        rec->truncated = 1;
        return;
    }
    if (rec->nev == rec->cap) {
        size_t cap = rec->cap ? rec->cap * 2 : 4096;
        sim_ev_t *v = realloc(rec->ev, cap * sizeof *v);
        if (!v) {
            rec->truncated = 1;
            return;
        }
        rec->ev = v;
        rec->cap = cap;
    }
    sim_ev_t *e = &rec->ev[rec->nev++];
    e->kind = (uint8_t)kind;
    e->peer = peer;
    e->key = key;
    e->n = n;
}

/* Local data operations of the algorithm files (sim_override.h). */
void *sim_memcpy(void *dst, const void *src, size_t n) {
    (void)src;
    if (n) emit(EV_COPY, rec_me, 0, n);
    return dst;
}
void *sim_memmove(void *dst, const void *src, size_t n) {
    return sim_memcpy(dst, src, n);
}
/* xport/copy.h's bulk copy (the kernel measured fastest on the CPU): a copy, recorded. */
void shoal__copy_bulk(void *dst, const void *src, size_t n) {
    sim_memcpy(dst, src, n);
}
void *sim_memset(void *dst, int c, size_t n) {
    (void)c;
    if (n) emit(EV_COPY, rec_me, 0, n);
    return dst;
}
void *sim_malloc(size_t n) {
    (void)n;
    return region; /* never dereferenced: the data operations above touch nothing */
}
void sim_free(void *p) {
    (void)p;
}

/* reduce_ops.c is compiled with its kernel renamed (sim_reduce_kernel), so the algorithms' calls
 * land here. */
void coll_reduce_local(void *inout, const void *in, size_t count, shoal_type_t type,
                       shoal_red_op_t op) {
    (void)inout;
    (void)in;
    (void)op;
    if (count) emit(EV_REDUCE, rec_me, 0, count * shoal_type_size(type));
}

/* ---- area.c ---- */
shoal_target_t coll_word(coll_args_t *a, int32_t member, int32_t w) {
    return shoal__target_at(a->ct->seg, member, (size_t)w * 8);
}

shoal_err_t coll_signal(coll_args_t *a, int32_t peer, int32_t w) {
    (void)a;
    emit(EV_SIGNAL, peer, (uint64_t)w * 8, 1);
    return SHOAL_OK;
}

shoal_err_t coll_wait(coll_args_t *a, int32_t w, uint64_t n) {
    (void)a;
    if (n) emit(EV_WAIT_ADD, rec_me, (uint64_t)w * 8, n);
    return SHOAL_OK;
}

char *coll_local_buffer(coll_args_t *a, size_t bytes) {
    (void)a;
    (void)bytes;
    return region;
}

char *coll_local(coll_args_t *a, coll_buf_t buf, size_t off) {
    switch (buf) {
    case BUF_DEST:
        return a->dlocal + off;
    case BUF_SRC:
        return a->slocal + off;
    case BUF_SCRATCH:
        return region + off;
    }
    return NULL;
}

shoal_err_t coll_put(coll_args_t *a, int32_t peer, coll_buf_t buf, size_t off, const void *src,
                     size_t n) {
    (void)a;
    (void)off;
    (void)src;
    /* key 1: into the peer's scratch, which the peer reads in the same call (and read in the
     * last one): its lines must come back first (sim_params_t.G_fresh) */
    if (n) emit(EV_PUT, peer, buf == BUF_SCRATCH, n);
    return SHOAL_OK;
}

shoal_err_t coll_put_signal(coll_args_t *a, int32_t peer, coll_buf_t buf, size_t off,
                            const void *src, size_t n, int32_t w) {
    SHOAL_TRY(coll_put(a, peer, buf, off, src, n));
    return coll_signal(a, peer, w);
}

shoal_err_t coll_get(coll_args_t *a, void *dst, int32_t peer, coll_buf_t buf, size_t off,
                     size_t n) {
    (void)a;
    (void)dst;
    (void)buf;
    (void)off;
    if (n) emit(EV_GET, peer, 0, n);
    return SHOAL_OK;
}

void coll_copy_local(void *dst, const void *src, size_t n) {
    if (n && dst != src) emit(EV_COPY, rec_me, 0, n);
}

/* ---- native.c: the MPI library's own collectives are not modelled (their algorithms are the
 * library's, not in the registry's schedules), so "native" never applies here and never runs. */
const char *coll_native_not_applicable(const coll_args_t *a) {
    (void)a;
    return "the simulator does not model the MPI library's own collectives";
}

shoal_err_t coll_native(coll_args_t *a) {
    (void)a;
    return shoal__fail(SHOAL_ERR_UNSUPPORTED, "the simulator does not model native collectives");
}

/* ---- leaders.c: the node_native algorithms' MPI step among the node leaders, the same
 * exception (they need NEEDS_MPI_COLL, which never applies here). */
shoal_err_t coll_leaders_ready(coll_args_t *a) {
    return coll_native(a);
}

shoal_err_t coll_leaders_barrier(coll_args_t *a) {
    return coll_native(a);
}

shoal_err_t coll_leaders_bcast(coll_args_t *a, void *buf, size_t n, int32_t root_node) {
    (void)buf;
    (void)n;
    (void)root_node;
    return coll_native(a);
}

shoal_err_t coll_leaders_allgatherv(coll_args_t *a) {
    return coll_native(a);
}

shoal_err_t coll_leaders_allreduce(coll_args_t *a, void *acc, size_t n) {
    (void)acc;
    (void)n;
    return coll_native(a);
}

/* ---- The RMA layer, as eager.c uses it (the team's words are MPI-style: atomics_direct = 0,
 * so every flag is a shoal__amo and every eager body a shoal__put) ---- */
shoal_err_t shoal__put(const shoal_target_t *t, const void *src, size_t nbytes) {
    (void)src;
    if (nbytes) emit(EV_PUT, t->rank, 0, nbytes);
    return SHOAL_OK;
}

shoal_err_t shoal__get(void *dst, const shoal_target_t *t, size_t nbytes) {
    (void)dst;
    if (nbytes) emit(EV_GET, t->rank, 0, nbytes);
    return SHOAL_OK;
}

shoal_err_t shoal__amo(const shoal_target_t *t, amo_kind_t kind, shoal_amo_op_t op,
                       shoal_dtype_t type, const void *value, const void *compare, void *result) {
    (void)op;
    (void)compare;
    (void)result;
    /* A store sets a flag or mark (every store of the algorithms is a 64-bit value that only
     * grows); anything else is a signal, counted as one arrival on that word. A store to my own
     * word is a mark that peers poll. */
    if (kind == AMO_STORE && type == SHOAL_UINT64 && value) {
        emit(EV_STORE, t->rank, (uint64_t)t->disp, *(const uint64_t *)value);
        return SHOAL_OK;
    }
    emit(EV_SIGNAL, t->rank, (uint64_t)t->disp, 1);
    return SHOAL_OK;
}

shoal_err_t shoal__wait_word(const shoal_target_t *t, shoal_cmp_t cmp, uint64_t value,
                             uint64_t *seen) {
    (void)cmp; /* GE: every wait of eager.c */
    emit(EV_WAIT_ABS, t->rank, (uint64_t)t->disp, value);
    if (seen) *seen = value;
    return SHOAL_OK;
}

/* sync.h's 2-member barrier: simulated teams have no pair words (barrier_pair is NULL), so the
 * `line` algorithm records its general schedule, the same one store and one wait per member. */
shoal_err_t shoal__pair_wait(team_t *t, uint64_t epoch) {
    (void)t;
    (void)epoch;
    abort();
}

/* ---- Recording ---- */
/* Reserves (never commits) address space for two buffers of `half` bytes each: dest at region,
 * src at region + half; scratch and staging point at region too. Sized per recording, so that
 * small cases (the tests, also under sanitizers) reserve little. */
static int reserve_region(size_t half) {
    size_t bytes = 2 * half;
    if (region && region_bytes >= bytes) return 0;
    if (region) munmap(region, region_bytes);
    region = NULL;
    void *r = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) return -1;
    region = r;
    region_bytes = bytes;
    return 0;
}

/* The word the MPI's own collectives' messages count on. The replay keeps 32 bits of a key;
 * the algorithms' keys are word indices and byte offsets in the collective area, far below. */
#define SIM_NATIVE_KEY ((uint64_t)0xffffff00u)

/* Member me's part of an MPI_Allgather of one cell of `cell` bytes per member (api.c,
 * exchange_sizes_mpi): the MPI's algorithm is not ours to record, so it is modelled as the
 * dissemination pattern of Bruck et al.'s allgather, which MPICH and Open MPI use for small
 * messages on teams of any size: in round r, the 2^r cells I have so far to me + 2^r, and the
 * same number from me - 2^r (the last round only what is left). */
static void record_mpi_allgather(int32_t me, int32_t p, size_t cell) {
    for (int64_t have = 1; have < p; have *= 2) {
        int64_t n = have < p - have ? have : p - have;
        emit(EV_SEND, (int32_t)((me + have) % p), SIM_NATIVE_KEY, (uint64_t)n * cell);
        emit(EV_WAIT_ADD, me, SIM_NATIVE_KEY, 1);
    }
}

/* Fills a's sizes for kind from bytes (see sim_case_t). */
static void case_sizes(const sim_case_t *c, coll_args_t *a) {
    size_t b = c->bytes;
    a->nbytes = b;
    a->msg_bytes = b;
    switch (c->kind) {
    case COLL_REDUCE:
    case COLL_SCAN:
        a->type = SHOAL_TYPE_DOUBLE;
        a->op = SHOAL_RED_SUM;
        a->count = b / sizeof(double);
        a->nbytes = a->count * sizeof(double);
        a->msg_bytes = a->nbytes;
        a->inclusive = 1;
        break;
    case COLL_ALLTOALLS:
        a->elem_size = 8;
        a->nelems = b / 8;
        a->dst = a->sst = 1;
        a->nbytes = a->nelems * 8;
        a->msg_bytes = a->nbytes;
        break;
    default:
        break;
    }
}

static coll_team_t sim_ct;
static segment_t sim_seg;

/* The node map of case c in sim_ct: ppn units per node, block-wise (the last node may have
 * fewer), as shoalrun --nodes places them. Its arrays grow with the largest team seen, and are
 * rebuilt only when the shape changes: the recorder asks once per member (O(p^2) per case when
 * rebuilt each time, a tenth of the schedule test's time at 4096 units). */
static int sim_node_map(const sim_case_t *c) {
    static int32_t *node_of, *by_node, *node_start, cap, map_p, map_ppn;
    int32_t p = c->p, ppn = c->ppn > 0 && c->ppn < p ? c->ppn : p;
    int32_t nn = (p + ppn - 1) / ppn;
    if (p != map_p || ppn != map_ppn) {
        if (p > cap) {
            int32_t *a = realloc(node_of, (size_t)p * sizeof *a);
            if (a) node_of = a;
            int32_t *b = realloc(by_node, (size_t)p * sizeof *b);
            if (b) by_node = b;
            int32_t *s = realloc(node_start, ((size_t)p + 1) * sizeof *s);
            if (s) node_start = s;
            if (!a || !b || !s) return -1;
            cap = p;
        }
        for (int32_t i = 0; i < p; i++) {
            node_of[i] = i / ppn;
            by_node[i] = i;
        }
        for (int32_t n = 0; n <= nn; n++) node_start[n] = n * ppn < p ? n * ppn : p;
        map_p = p;
        map_ppn = ppn;
    }
    sim_ct.nnodes = nn;
    sim_ct.node_max = ppn;
    sim_ct.node_of = node_of;
    sim_ct.by_node = by_node;
    sim_ct.node_start = node_start;
    return 0;
}

/* The arguments the selector and the applicability checks see for case c. */
static void case_args(const sim_case_t *c, coll_args_t *ap) {
    coll_args_t a;
    memset(&a, 0, sizeof a);
    a.kind = c->kind;
    a.p = c->p;
    a.ct = &sim_ct;
    sim_ct.scratch_bytes = 256 * 1024; /* SHOAL_COLL_SCRATCH's default */
    sim_ct.xchg_off = c->p <= COLL_XCHG_UNITS ? 1 : 0;
    sim_ct.xchg_cell = coll_xchg_cell(c->p);
    sim_ct.seg = &sim_seg; /* its words are not CPU atomics: the "flags" barrier does not apply */
    sim_node_map(c);       /* out of memory: the previous map stays, only the choice may differ */
    case_sizes(c, &a);
    a.dseg = &sim_seg; /* not in place */
    a.sseg = NULL;
    /* collect: every block comes with the sizes only on teams of up to 8 units, and only through
     * the eager exchange (on the MPI path the sizes come by MPI_Allgather: api.c) */
    a.xchg_blocks = !c->mpi_path && c->p <= 8 && a.nbytes <= sim_ct.xchg_cell - 16;
    /* the size the selector keys on (docs/collectives.md): the whole result for collect and
     * fcollect, 0 for barrier */
    if (c->kind == COLL_COLLECT || c->kind == COLL_FCOLLECT) a.msg_bytes = (size_t)c->p * a.nbytes;
    if (c->kind == COLL_BARRIER) a.msg_bytes = 0;
    *ap = a;
}

const char *sim_not_applicable(const sim_case_t *c) {
    coll_args_t a;
    case_args(c, &a);
    int radix = c->radix ? c->radix : c->algo->radix_default;
    return coll_not_applicable(c->algo, &a, radix);
}

const coll_algo_t *sim_default_choice(const sim_case_t *c, int *radix, size_t *segsize) {
    static int inited;
    if (!inited) {
        if (coll_select_init() != SHOAL_OK) return NULL;
        inited = 1;
    }
    coll_args_t a;
    case_args(c, &a);
    const coll_algo_t *g = NULL;
    if (coll_select(&a, &g) != SHOAL_OK) return NULL;
    *radix = a.radix;
    *segsize = a.segsize;
    return g;
}

int sim_record(const sim_case_t *c, sim_schedule_t *s, size_t max_events, char *why,
               size_t whylen) {
    memset(s, 0, sizeof *s);
    s->p = c->p;
    s->max_events = max_events;
    const char *na = sim_not_applicable(c);
    if (na) {
        snprintf(why, whylen, "%s", na);
        return -1;
    }
    int32_t p = c->p;
    /* The largest buffer an algorithm addresses: p blocks (collect dest, alltoall src and dest),
     * or the message; scratch and eager cells are far smaller than the 8 MiB of slack. */
    size_t half = (size_t)p * c->bytes + c->bytes + ((size_t)8 << 20);
    half = (half + 4095) / 4096 * 4096;
    if (reserve_region(half)) {
        snprintf(why, whylen, "cannot reserve %zu bytes of address space for the buffers",
                 2 * half);
        return -1;
    }
    s->start = calloc((size_t)p + 1, sizeof *s->start);
    char **direct = calloc((size_t)p, sizeof *direct);
    MPI_Aint *win_disp = calloc((size_t)p, sizeof *win_disp);
    size_t *sizes = calloc((size_t)p, sizeof *sizes), *offsets = calloc((size_t)p, sizeof *offsets);
    uint64_t *eager_done = calloc((size_t)p, sizeof *eager_done);
    uint64_t *ring_done = calloc((size_t)p, sizeof *ring_done);
    uint64_t *xchg_done = calloc((size_t)p, sizeof *xchg_done);
    int rc = 0;
    if (!s->start || !direct || !win_disp || !sizes || !offsets || !eager_done || !ring_done ||
        !xchg_done) {
        snprintf(why, whylen, "out of memory");
        rc = -1;
    }
    memset(&sim_seg, 0, sizeof sim_seg);
    sim_seg.my_base = region;
    sim_seg.direct = direct;
    sim_seg.win_disp = win_disp;
    sim_seg.atomics_direct = 0;
    for (int32_t i = 0; i < p && rc == 0; i++) {
        sizes[i] = c->bytes;
        offsets[i] = (size_t)i * c->bytes;
    }
    rec = s;
    int calls = c->calls > 1 ? c->calls : 1;
    for (int32_t me = 0; me < p && rc == 0; me++) {
        /* A member's team state (sequence numbers, eager slots and what it has seen of its
         * peers) carries from one call to the next, as on a real team. */
        memset(&sim_ct, 0, sizeof sim_ct);
        memset(eager_done, 0, (size_t)p * sizeof *eager_done);
        memset(ring_done, 0, (size_t)p * sizeof *ring_done);
        memset(xchg_done, 0, (size_t)p * sizeof *xchg_done);
        sim_ct.seg = &sim_seg;
        sim_ct.nwords = COLL_NWORDS(p);
        sim_ct.sig_bytes = ((size_t)sim_ct.nwords * 8 + 4095) / 4096 * 4096;
        sim_ct.scratch_bytes = 256 * 1024;
        /* The eager broadcast's ring and slots, then the exchange's cells, as area.c lays them */
        sim_ct.ring_off = sim_ct.sig_bytes + sim_ct.scratch_bytes;
        sim_ct.slots_off = sim_ct.ring_off + COLL_EAGER_LINES * COLL_EAGER_LINE;
        sim_ct.xchg_off =
            p <= COLL_XCHG_UNITS ? sim_ct.slots_off + COLL_BCAST_SLOTS * COLL_EAGER_SLOT_STRIDE : 0;
        sim_ct.xchg_cell = coll_xchg_cell(p);
        sim_ct.eager_done = eager_done;
        sim_ct.ring_done = ring_done;
        sim_ct.xchg_done = xchg_done;
        if (sim_node_map(c)) {
            snprintf(why, whylen, "out of memory");
            rc = -1;
            break;
        }
        rec_me = me;
        s->start[me] = s->nev;
        for (int call = 0; call < calls && rc == 0; call++) {
            coll_args_t a;
            memset(&a, 0, sizeof a);
            a.kind = c->kind;
            a.ct = &sim_ct;
            a.p = p;
            a.me = me;
            a.root = c->root;
            a.radix = c->radix ? c->radix : c->algo->radix_default;
            a.segsize = c->segsize;
            case_sizes(c, &a);
            a.dlocal = region;
            a.slocal = region + half;
            a.dseg = &sim_seg; /* distinct from sseg: not in place */
            a.sseg = NULL;
            a.sizes = sizes;
            a.offsets = offsets;
            a.total = (size_t)p * a.nbytes;
            if (c->kind == COLL_COLLECT || c->kind == COLL_FCOLLECT) a.msg_bytes = a.total;
            if (c->kind == COLL_BARRIER) a.msg_bytes = 0;
            emit(EV_CALL, me, 0, (uint64_t)c->kind);
            sim_ct.seq++; /* as api.c's run() */
            /* collect, as api.c: on teams with eager exchange slots of up to 8 units, the sizes
             * (and the blocks, when they fit) come through one eager exchange first, whatever
             * runs */
            if (c->kind == COLL_COLLECT && c->mpi_path)
                record_mpi_allgather(me, p, coll_mpi_cell_bytes(p));
            else if (c->kind == COLL_COLLECT && coll_eager_collect_possible(&a) &&
                     coll_eager_collect_sizes(&a, a.nbytes) != SHOAL_OK) {
                snprintf(why, whylen, "size exchange failed at member %d: %s", (int)me, fail_msg);
                rc = -1;
            }
            if (rc == 0 && c->algo->run(&a) != SHOAL_OK) {
                snprintf(why, whylen, "algorithm failed at member %d: %s", (int)me, fail_msg);
                rc = -1;
            }
            if (rc == 0 && a.xchg_open) coll_eager_end(&a);
        }
        if (s->truncated) {
            snprintf(why, whylen, "more than %zu events: capped", max_events);
            rc = -1;
        }
    }
    s->start[p] = s->nev;
    rec = NULL;
    free(direct);
    free(win_disp);
    free(sizes);
    free(offsets);
    free(eager_done);
    free(ring_done);
    free(xchg_done);
    if (rc) sim_schedule_free(s);
    return rc;
}

void sim_schedule_free(sim_schedule_t *s) {
    free(s->ev);
    free(s->start);
    memset(s, 0, sizeof *s);
}

/* select.c may load this host's tuning cache (tuning_cache.c, not compiled here): the simulator
 * shows the built-in decision table only. Weak, so that nothing breaks if it is ever linked. */
__attribute__((weak)) shoal_err_t coll_tuning_cache_load(void);
__attribute__((weak)) shoal_err_t coll_tuning_cache_load(void) {
    return SHOAL_OK;
}
