/* ZCom: zero-copy on-node channels (see include/shoal/zcom.h and docs/zcom.md).
 *
 * Mechanism: every process makes the pages covering each of its buffers shareable in place
 * (xport/remap: memfd mapped back at the same address), peers map them through /proc/<pid>/fd,
 * and the four counters of each pair live in one node-shared control area per ZCom_init_c call
 * (xport/shm, the core's on-node substrate), each rank's two on a line of its own. Nothing here
 * needs the Shoal runtime: a plain MPI program can use it. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shoal/zcom.h"
#include "xport/remap.h"
#include "xport/shm.h"
#include "zcom_internal.h"

/* A pair's counters. Each rank owns two lines, which only it writes: its post line holds its
 * "written" and a copy of its "read" as of its last have_written; its read line holds its "read".
 * A waiting rank polls the peer's post line only. can_read needs the peer's "written" from it, and
 * can_write finds the peer's "read" there too whenever the peer has written since it read (every
 * exchange that goes both ways); only a one-way stream reads the peer's read line.
 * Why two lines and not one (sessions 21-25): with "written" and "read" on one line, have_read
 * stored to the line the peer was polling, the peer took it back during the reader's own data
 * store, and have_written had to fetch it again: the line moved twice per hand-off with data
 * (1.15-1.56x the data floor, AMD EPYC f25m1). With a line per counter (the thesis's layout)
 * can_write missed on a second line after can_read's (1.5-1.6x a two-line ping-pong, Intel Xeon).
 * The lines lie 128 bytes apart (the adjacent-line prefetcher pairs lines 64 apart). */
#define ZCOM_LINE       64
#define ZCOM_RANK_BYTES (4 * ZCOM_LINE)       /* post line at 0, read line at 128 */
#define ZCOM_PAIR_BYTES (2 * ZCOM_RANK_BYTES) /* rank A's lines, then rank B's */
#define ZCOM_TAG        7321

typedef _Atomic uint64_t zcounter_t;

/* A page range of mine made shareable (one memfd), used by one or more channels. */
typedef struct zregion {
    remap_region_t r;
    int refs;
    struct zregion *next;
} zregion_t;

/* The node-shared control area of one ZCom_init_c call. */
typedef struct {
    xport_shm_t shm;
    int refs;
} zctl_t;

typedef struct {
    /* my post line (written, read copy) and read line; the peer's the same */
    zcounter_t *my_written, *my_read_copy, *my_read;
    zcounter_t *peer_written, *peer_read_copy, *peer_read;
    uint64_t n_written, n_read; /* my own counters' values (only I change them) */
    int id;
    int peer_world;  /* the peer's rank in MPI_COMM_WORLD */
    char *my_buffer; /* the buffer I exposed on this channel */
    zregion_t *region;
    zctl_t *ctl;
    char *peer_map; /* the peer's region mapped here */
    size_t peer_map_len;
} zchannel_t;

/* Channel table: id -> channel, ids never reused while a channel is alive; id = table_base + index.
 * When the last channel goes, the table is freed and later ids continue from next_id. */
static zchannel_t **table;
static int table_len, table_cap, table_base = 1, next_id = 1, live_channels;
static zregion_t *regions;

static const char *const names[] = {"ZCOM_SUCCESS",     "ZCOM_ERR_ARG",       "ZCOM_ERR_BUFFER",
                                    "ZCOM_ERR_RANK",    "ZCOM_ERR_NOT_LOCAL", "ZCOM_ERR_NOT_PAIRED",
                                    "ZCOM_ERR_SIZE",    "ZCOM_ERR_CHANNEL",   "ZCOM_ERR_STATE",
                                    "ZCOM_ERR_OVERLAP", "ZCOM_ERR_SYS",       "ZCOM_ERR_MPI",
                                    "ZCOM_ERR_NO_MPI"};

const char *ZCom_strerror(int err) {
    if (err < 0 || err >= (int)(sizeof names / sizeof names[0])) return "ZCOM_ERR_(unknown)";
    return names[err];
}

static int world_rank(void) {
    int r = -1, init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static int report(int rank, const char *call, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int report(int rank, const char *call, int code, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "zcom: rank %d: %s: %s (%s)\n", rank, call, msg, ZCom_strerror(code));
    return code;
}

static void set_err(int *err, int code) {
    if (err) *err = code;
}

/* The collective calls need MPI: before MPI_Init or after MPI_Finalize any MPI call (even
 * MPI_Comm_rank) aborts the job, so refuse them here. MPI_Initialized and MPI_Finalized are the
 * calls MPI allows at any time. */
static int mpi_down(const char *call, int *err) {
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin); /* MPI_Initialized stays 1 after MPI_Finalize */
    if (init && !fin) return 0;
    set_err(err, report(-1, call, ZCOM_ERR_NO_MPI, "%s",
                        fin ? "MPI is already finalized (called after MPI_Finalize)"
                            : "MPI is not initialized (call MPI_Init first)"));
    return 1;
}

static inline zchannel_t *lookup(int id) {
    /* unsigned: id - table_base overflows int for ids near INT_MIN */
    unsigned idx = (unsigned)id - (unsigned)table_base;
    return idx < (unsigned)table_len ? table[idx] : NULL;
}

/* ---- target checks (unit-tested) ---- */

int zcom__check_targets(int me, int size, const int *node_of, const int *targets, int n, int *bad) {
    for (int i = 0; i < n; i++) {
        *bad = i;
        int t = targets[i];
        if (t < 0 || t >= size || t == me) return ZCOM_ERR_RANK;
        for (int j = 0; j < i; j++)
            if (targets[j] == t) return ZCOM_ERR_RANK;
        if (node_of[t] != node_of[me]) return ZCOM_ERR_NOT_LOCAL;
    }
    *bad = -1;
    return ZCOM_SUCCESS;
}

/* The page range [*lo, *hi) covering len bytes at p. Returns -1 when it would pass the end of the
 * address space (the rounding would wrap to a small or empty range). */
static int page_range(const void *p, size_t len, size_t page, uintptr_t *lo, uintptr_t *hi) {
    uintptr_t end;
    if (__builtin_add_overflow((uintptr_t)p, len, &end) ||
        __builtin_add_overflow(end, page - 1, &end))
        return -1;
    *lo = (uintptr_t)p / page * page;
    *hi = end / page * page;
    return 0;
}

/* ---- agreement: every process of comm ends with the same code ---- */

/* Returns the worst code of comm (ties: lowest rank); processes that did not fail themselves say
 * which rank did. */
static int agree(MPI_Comm comm, int rank, const char *call, int mine) {
    int in[2] = {mine, -rank}, out[2];
    if (MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MAXLOC, comm) != MPI_SUCCESS)
        return report(rank, call, ZCOM_ERR_MPI, "MPI_Allreduce failed");
    if (out[0] != ZCOM_SUCCESS && mine == ZCOM_SUCCESS)
        report(rank, call, out[0], "rank %d failed; nothing was changed on any process", -out[1]);
    return out[0];
}

/* ---- regions of mine ---- */

static zregion_t *region_containing(uintptr_t lo, uintptr_t hi) {
    for (zregion_t *g = regions; g; g = g->next)
        if ((uintptr_t)g->r.base <= lo && hi <= (uintptr_t)g->r.base + g->r.len) return g;
    return NULL;
}

static zregion_t *region_overlapping(uintptr_t lo, uintptr_t hi) {
    for (zregion_t *g = regions; g; g = g->next)
        if ((uintptr_t)g->r.base < hi && lo < (uintptr_t)g->r.base + g->r.len) return g;
    return NULL;
}

static int region_release(zregion_t *g) {
    if (--g->refs > 0) return 0;
    int e = remap_unshare(&g->r);
    if (e) return e; /* contents still intact in the shared mapping; keep the record */
    for (zregion_t **p = &regions; *p; p = &(*p)->next)
        if (*p == g) {
            *p = g->next;
            break;
        }
    free(g);
    return 0;
}

static void ctl_release(zctl_t *c) {
    if (--c->refs > 0) return;
    xport_shm_destroy(&c->shm);
    free(c);
}

/* ---- ZCom_init_c ---- */

typedef struct {
    long long pid, fd, offset, map_len, slot;
} zinfo_t;

typedef struct {
    uintptr_t lo, hi;
    int idx;
} zrange_t;

static int cmp_range(const void *a, const void *b) {
    const zrange_t *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* ZCom_init_c and ZCom_init_f: call names the one the program made (for messages); n_null says
 * the Fortran binding got no num_targets (the process still takes part in the agreement). */
static void init_impl(const char *call, void **buffers, size_t *buffer_sizes, MPI_Comm comm,
                      int *target_ranks, int num_targets, int n_null, void **attached_addrs,
                      int *channel_ids, int *err) {
    static int xpmem_noted;
    if (mpi_down(call, err)) return;
    int rank = world_rank(), size = 0, code = ZCOM_SUCCESS, n = num_targets;
    if (comm == MPI_COMM_NULL) {
        set_err(err, report(rank, call, ZCOM_ERR_ARG, "comm is MPI_COMM_NULL"));
        return;
    }
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (!xpmem_noted && remap_xpmem_present() && rank == 0) {
        fprintf(stderr, "zcom: rank 0: note: /dev/xpmem exists but is not used (memfd mapping)\n");
    }
    xpmem_noted = 1;
    const size_t page = xport_page_size();

    /* Resources, all released on failure. */
    MPI_Comm node = MPI_COMM_NULL, pc = MPI_COMM_NULL;
    int *node_of = calloc((size_t)size, sizeof *node_of);
    unsigned long long *sz_out = calloc((size_t)size, sizeof *sz_out);
    unsigned long long *sz_in = calloc((size_t)size, sizeof *sz_in);
    size_t nn = n > 0 ? (size_t)n : 1;
    zregion_t **reg_of = calloc(nn, sizeof *reg_of); /* region of buffer i */
    zrange_t *ranges = calloc(nn, sizeof *ranges);
    zinfo_t *info_out = calloc(nn, sizeof *info_out), *info_in = calloc(nn, sizeof *info_in);
    MPI_Request *reqs = calloc(2 * nn, sizeof *reqs);
    char **maps = calloc(nn, sizeof *maps);
    size_t *map_lens = calloc(nn, sizeof *map_lens);
    int *slot_of = calloc(nn, sizeof *slot_of);
    zctl_t *ctl = NULL;
    int have_shm = 0;
    char why[256];

    if (!node_of || !sz_out || !sz_in || !reg_of || !ranges || !info_out || !info_in || !reqs ||
        !maps || !map_lens || !slot_of) {
        /* A few words per process: without them this process cannot even take part in the
         * agreement, and the others would wait for it. */
        report(rank, call, ZCOM_ERR_SYS, "out of memory");
        MPI_Abort(comm, ZCOM_ERR_SYS);
    }

    /* Node membership: node_of[r] = comm rank of the first process of r's node. */
    int node_leader = rank;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) !=
            MPI_SUCCESS ||
        MPI_Bcast(&node_leader, 1, MPI_INT, 0, node) != MPI_SUCCESS ||
        MPI_Comm_dup(comm, &pc) != MPI_SUCCESS) {
        set_err(err, report(rank, call, ZCOM_ERR_MPI, "cannot split comm by node"));
        goto out;
    }
    if (MPI_Allgather(&node_leader, 1, MPI_INT, node_of, 1, MPI_INT, comm) != MPI_SUCCESS) {
        set_err(err, report(rank, call, ZCOM_ERR_MPI, "MPI_Allgather failed"));
        goto out;
    }

    /* Phase A: my arguments. */
    {
        int bad;
        if (n_null)
            code = report(rank, call, ZCOM_ERR_ARG, "num_targets is NULL");
        else if (n < 0)
            code = report(rank, call, ZCOM_ERR_ARG, "num_targets is %d", n);
        else if (n > 0 &&
                 (!buffers || !buffer_sizes || !target_ranks || !attached_addrs || !channel_ids))
            code = report(rank, call, ZCOM_ERR_ARG,
                          "buffers, buffer_sizes, target_ranks, attached_addrs and channel_ids "
                          "must not be NULL");
        else if ((code = zcom__check_targets(rank, size, node_of, target_ranks, n, &bad)) != 0) {
            int t = target_ranks[bad];
            if (code == ZCOM_ERR_NOT_LOCAL)
                report(rank, call, code,
                       "target_ranks[%d] = %d is on another node: no shared memory with it", bad,
                       t);
            else if (t < 0 || t >= size)
                report(rank, call, code, "target_ranks[%d] = %d is out of range (comm size %d)",
                       bad, t, size);
            else if (t == rank)
                report(rank, call, code, "target_ranks[%d] = %d is myself", bad, t);
            else
                report(rank, call, code, "target_ranks[%d] = %d is listed twice", bad, t);
        }
    }
    for (int i = 0; code == ZCOM_SUCCESS && i < n; i++) {
        if (!buffers[i] || buffer_sizes[i] == 0) {
            code = report(rank, call, ZCOM_ERR_BUFFER, "buffers[%d] is %s", i,
                          buffers[i] ? "of size 0" : "NULL");
            break;
        }
        uintptr_t lo, hi;
        if (page_range(buffers[i], buffer_sizes[i], page, &lo, &hi) != 0) {
            code = report(rank, call, ZCOM_ERR_BUFFER,
                          "buffers[%d] = %p with %zu bytes would end past the end of the "
                          "address space",
                          i, buffers[i], buffer_sizes[i]);
            break;
        }
        ranges[i] = (zrange_t){lo, hi, i};
        int tw = -1;
        MPI_Group g, wg;
        MPI_Comm_group(comm, &g);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_translate_ranks(g, 1, &target_ranks[i], wg, &tw);
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
        for (int k = table_len - 1; k >= 0; k--)
            if (table[k] && table[k]->my_buffer == (char *)buffers[i] && table[k]->peer_world == tw)
                code = report(rank, call, ZCOM_ERR_STATE,
                              "buffers[%d] = %p is already exposed to rank %d by channel %d "
                              "(init twice?)",
                              i, buffers[i], target_ranks[i], table[k]->id);
        if (code) break;
        if (!region_containing(lo, hi)) {
            zregion_t *o = region_overlapping(lo, hi);
            if (o)
                code = report(rank, call, ZCOM_ERR_OVERLAP,
                              "the pages of buffers[%d] (%p, %zu bytes) partly overlap pages "
                              "shared by an earlier ZCom_init_c (%p, %zu bytes)",
                              i, buffers[i], buffer_sizes[i], (void *)o->r.base, o->r.len);
            else if (remap_check_range((void *)lo, hi - lo, why, sizeof why) != 0)
                code = report(rank, call, ZCOM_ERR_BUFFER,
                              "buffers[%d] = %p with %zu bytes cannot be shared: %s", i, buffers[i],
                              buffer_sizes[i], why);
        }
    }
    if ((code = agree(comm, rank, call, code)) != ZCOM_SUCCESS) goto out;

    /* Phase B: the pairs. sz_out[t] = my buffer size for t, plus one (0: no channel); phase A
     * made sure that buffer + size + page - 1 fits the address space, so the +1 cannot wrap. */
    for (int i = 0; i < n; i++) sz_out[target_ranks[i]] = buffer_sizes[i] + 1;
    if (MPI_Alltoall(sz_out, 1, MPI_UNSIGNED_LONG_LONG, sz_in, 1, MPI_UNSIGNED_LONG_LONG, comm) !=
        MPI_SUCCESS) {
        set_err(err, report(rank, call, ZCOM_ERR_MPI, "MPI_Alltoall failed"));
        goto out;
    }
    for (int r = 0; r < size && code == ZCOM_SUCCESS; r++) {
        if (sz_out[r] && !sz_in[r])
            code = report(rank, call, ZCOM_ERR_NOT_PAIRED, "rank %d is my target but not mine", r);
        else if (!sz_out[r] && sz_in[r])
            code = report(rank, call, ZCOM_ERR_NOT_PAIRED, "rank %d targets me but is not mine", r);
        else if (sz_out[r] != sz_in[r])
            code = report(rank, call, ZCOM_ERR_SIZE,
                          "my buffer for rank %d has %llu bytes, its buffer for me %llu", r,
                          sz_out[r] - 1, sz_in[r] - 1);
    }
    if ((code = agree(comm, rank, call, code)) != ZCOM_SUCCESS) goto out;

    /* Phase C: share my buffers. Ranges already shared by an earlier call are reused; the new ones
     * are merged where they overlap (two small buffers on one page share one memfd). */
    {
        zrange_t *fresh = calloc(nn, sizeof *fresh);
        int nf = 0;
        if (!fresh) code = report(rank, call, ZCOM_ERR_SYS, "out of memory");
        for (int i = 0; fresh && i < n; i++) {
            zregion_t *g = region_containing(ranges[i].lo, ranges[i].hi);
            if (g) {
                g->refs++;
                reg_of[i] = g;
            } else {
                fresh[nf++] = ranges[i];
            }
        }
        if (fresh) qsort(fresh, (size_t)nf, sizeof *fresh, cmp_range);
        for (int a = 0; fresh && a < nf && code == ZCOM_SUCCESS;) {
            uintptr_t lo = fresh[a].lo, hi = fresh[a].hi;
            int b = a + 1;
            while (b < nf && fresh[b].lo < hi) {
                if (fresh[b].hi > hi) hi = fresh[b].hi;
                b++;
            }
            zregion_t *g = calloc(1, sizeof *g);
            int e =
                g ? remap_share("shoal-zcom", (void *)lo, hi - lo, &g->r, why, sizeof why) : ENOMEM;
            if (e) {
                int i = fresh[a].idx;
                code = report(rank, call, ZCOM_ERR_SYS,
                              "cannot share the pages of buffers[%d] = %p with %zu bytes (%zu "
                              "bytes at %p): %s",
                              i, buffers[i], buffer_sizes[i], (size_t)(hi - lo), (void *)lo,
                              g ? why : "out of memory");
                free(g);
                break;
            }
            g->refs = 0;
            g->next = regions;
            regions = g;
            for (int k = a; k < b; k++) {
                reg_of[fresh[k].idx] = g;
                g->refs++;
            }
            a = b;
        }
        free(fresh);
    }
    if ((code = agree(comm, rank, call, code)) != ZCOM_SUCCESS) goto out;

    /* Phase D: the control area: the lower rank of each pair holds its four counters. */
    int owned = 0;
    for (int i = 0; i < n; i++)
        if (rank < target_ranks[i]) slot_of[i] = owned++;
    size_t ctl_bytes = 0;
    ctl = calloc(1, sizeof *ctl);
    if (!ctl)
        code = report(rank, call, ZCOM_ERR_SYS, "out of memory");
    else if (__builtin_mul_overflow((size_t)owned, (size_t)ZCOM_PAIR_BYTES, &ctl_bytes))
        code = report(rank, call, ZCOM_ERR_SYS, "%d channels need too large a control area", owned);
    if ((code = agree(comm, rank, call, code)) != ZCOM_SUCCESS) goto out;
    if (xport_shm_create(node, ctl_bytes, 0, &ctl->shm) != SHOAL_OK)
        code = report(rank, call, ZCOM_ERR_SYS, "cannot create the shared control area");
    else
        have_shm = 1;
    if ((code = agree(comm, rank, call, code)) != ZCOM_SUCCESS) goto out;

    /* Phase E: tell each target where my buffer for it is, and attach to its buffer for me. */
    for (int i = 0; i < n; i++) {
        zregion_t *g = reg_of[i];
        info_out[i] = (zinfo_t){getpid(), g->r.fd, (char *)buffers[i] - g->r.base,
                                (long long)g->r.len, rank < target_ranks[i] ? slot_of[i] : -1};
        if (MPI_Irecv(&info_in[i], (int)sizeof(zinfo_t), MPI_BYTE, target_ranks[i], ZCOM_TAG, pc,
                      &reqs[i]) != MPI_SUCCESS ||
            MPI_Isend(&info_out[i], (int)sizeof(zinfo_t), MPI_BYTE, target_ranks[i], ZCOM_TAG, pc,
                      &reqs[nn + (size_t)i]) != MPI_SUCCESS) {
            set_err(err, report(rank, call, ZCOM_ERR_MPI, "cannot exchange buffer information"));
            MPI_Abort(comm, ZCOM_ERR_MPI); /* peers would wait for us forever */
        }
    }
    /* Receives and sends waited for separately: 2 * n could overflow an int count. */
    MPI_Status *sts = calloc(nn, sizeof *sts);
    int wrc = n > 0 ? (sts ? MPI_Waitall(n, reqs, sts) : MPI_ERR_NO_MEM) : MPI_SUCCESS;
    if (n > 0 && wrc == MPI_SUCCESS) wrc = MPI_Waitall(n, reqs + nn, sts);
    free(sts);
    if (wrc != MPI_SUCCESS) {
        set_err(err, report(rank, call, ZCOM_ERR_MPI, "cannot exchange buffer information"));
        MPI_Abort(comm, ZCOM_ERR_MPI);
    }
    for (int i = 0; i < n && code == ZCOM_SUCCESS; i++) {
        map_lens[i] = (size_t)info_in[i].map_len;
        maps[i] =
            remap_attach((pid_t)info_in[i].pid, (int)info_in[i].fd, map_lens[i], why, sizeof why);
        if (!maps[i])
            code = report(rank, call, ZCOM_ERR_SYS, "cannot attach rank %d's buffer: %s",
                          target_ranks[i], why);
    }
    if ((code = agree(comm, rank, call, code)) != ZCOM_SUCCESS) goto out;

    /* Phase F: the channels. */
    {
        MPI_Group g, ng, wg;
        MPI_Comm_group(comm, &g);
        MPI_Comm_group(node, &ng);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        /* Ids and table slots are ints and never reused while a channel lives. */
        int need = 0;
        if (n > INT_MAX - next_id || __builtin_add_overflow(table_len, n, &need)) {
            code = report(rank, call, ZCOM_ERR_SYS,
                          "out of channel ids (%d channels would pass INT_MAX)", n);
        } else if (need > table_cap) {
            int cap = need < 16 ? 16 : (need > INT_MAX / 2 ? INT_MAX : 2 * need);
            size_t bytes;
            zchannel_t **t = __builtin_mul_overflow((size_t)cap, sizeof *t, &bytes)
                                 ? NULL
                                 : realloc(table, bytes);
            if (!t) {
                code = report(rank, call, ZCOM_ERR_SYS, "out of memory");
            } else {
                table = t;
                table_cap = cap;
            }
        }
        zchannel_t **chs = calloc(nn, sizeof *chs);
        for (int i = 0; chs && code == ZCOM_SUCCESS && i < n; i++)
            if (!(chs[i] = calloc(1, sizeof *chs[i])))
                code = report(rank, call, ZCOM_ERR_SYS, "out of memory");
        if (!chs) code = report(rank, call, ZCOM_ERR_SYS, "out of memory");
        if ((code = agree(comm, rank, call, code)) != ZCOM_SUCCESS) {
            for (int i = 0; chs && i < n; i++) free(chs[i]);
            free(chs);
            MPI_Group_free(&g);
            MPI_Group_free(&ng);
            MPI_Group_free(&wg);
            goto out;
        }
        if (table_len == 0) table_base = next_id;
        for (int i = 0; i < n; i++) {
            int t = target_ranks[i], lower = rank < t ? rank : t, lower_node, tw;
            MPI_Group_translate_ranks(g, 1, &lower, ng, &lower_node);
            MPI_Group_translate_ranks(g, 1, &t, wg, &tw);
            int slot = rank < t ? slot_of[i] : (int)info_in[i].slot;
            char *c = ctl->shm.part_base[lower_node] + (size_t)slot * ZCOM_PAIR_BYTES;
            char *lines_a = c, *lines_b = c + ZCOM_RANK_BYTES;
            zchannel_t *ch = chs[i];
            int a = rank < t; /* I am rank A of the pair */
            char *mine = a ? lines_a : lines_b, *peer = a ? lines_b : lines_a;
            ch->my_written = (zcounter_t *)mine;
            ch->my_read_copy = (zcounter_t *)mine + 1;
            ch->my_read = (zcounter_t *)(mine + 2 * ZCOM_LINE);
            ch->peer_written = (zcounter_t *)peer;
            ch->peer_read_copy = (zcounter_t *)peer + 1;
            ch->peer_read = (zcounter_t *)(peer + 2 * ZCOM_LINE);
            ch->id = next_id++;
            ch->peer_world = tw;
            ch->my_buffer = buffers[i];
            ch->region = reg_of[i];
            ch->ctl = ctl;
            ch->peer_map = maps[i];
            ch->peer_map_len = map_lens[i];
            ctl->refs++;
            table[table_len++] = ch;
            live_channels++;
            attached_addrs[i] = maps[i] + info_in[i].offset;
            channel_ids[i] = ch->id;
        }
        free(chs);
        MPI_Group_free(&g);
        MPI_Group_free(&ng);
        MPI_Group_free(&wg);
        if (ctl->refs == 0) { /* no targets: the control area is not needed */
            xport_shm_destroy(&ctl->shm);
            free(ctl);
        }
        ctl = NULL; /* owned by the channels now */
        for (int i = 0; i < n; i++) maps[i] = NULL;
        set_err(err, ZCOM_SUCCESS);
    }

out:
    if (code != ZCOM_SUCCESS) set_err(err, code);
    for (int i = 0; maps && i < n; i++)
        if (maps[i]) remap_detach(maps[i], map_lens[i]);
    if (ctl) {
        if (have_shm) xport_shm_destroy(&ctl->shm);
        free(ctl);
    }
    /* Undo my regions: drop this call's references (new regions go back to private memory). */
    for (int i = 0; code != ZCOM_SUCCESS && i < n && reg_of; i++)
        if (reg_of[i]) {
            if (region_release(reg_of[i]) != 0)
                report(rank, call, ZCOM_ERR_SYS, "cannot restore buffers[%d] to private memory", i);
            reg_of[i] = NULL;
        }
    if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
    if (pc != MPI_COMM_NULL) MPI_Comm_free(&pc);
    free(node_of);
    free(sz_out);
    free(sz_in);
    free(reg_of);
    free(ranges);
    free(info_out);
    free(info_in);
    free(reqs);
    free(maps);
    free(map_lens);
    free(slot_of);
}

/* ---- the synchronisation counters ---- */

/* The error paths are calls of their own (cold), so that the four calls below need no stack
 * frame: programs poll can_read and can_write in loops of their own, and the frame's pushes and
 * pops on every poll cost the 8-byte hand-off with data 1.6-1.9x the data floor on Intel Xeon
 * family 6 model 106 (slower than Open MPI's Send/Recv), against 0.8-1.2x without them
 * (bench_zcom_pingpong, paired rounds, A/B twice each, session 34; a gap between polls did not
 * help). */
__attribute__((noinline, cold)) static int bad_channel(const char *call, int id, int *err) {
    set_err(err, report(world_rank(), call, ZCOM_ERR_CHANNEL,
                        "channel id %d is unknown or already cleaned up", id));
    return 0;
}

int ZCom_can_write_c(int channel_id, int *err) {
    zchannel_t *ch = lookup(channel_id);
    if (__builtin_expect(!ch, 0)) return bad_channel("ZCom_can_write_c", channel_id, err);
    set_err(err, ZCOM_SUCCESS);
    /* acquire: the peer's reads of what I wrote are complete before I write again. The copy on
     * the peer's post line never runs ahead of its "read" (both only grow, and read <= my
     * written), so when it already equals my written the read line need not be fetched. */
    if (atomic_load_explicit(ch->peer_read_copy, memory_order_acquire) == ch->n_written) return 1;
    return atomic_load_explicit(ch->peer_read, memory_order_acquire) == ch->n_written;
}

void ZCom_have_written_c(int channel_id, int *err) {
    zchannel_t *ch = lookup(channel_id);
    if (__builtin_expect(!ch, 0)) {
        bad_channel("ZCom_have_written_c", channel_id, err);
        return;
    }
    set_err(err, ZCOM_SUCCESS);
    /* The copy first, both release: whoever sees the new "written" sees this "read" too, and my
     * reads before it are complete for whoever sees the copy (can_write). */
    atomic_store_explicit(ch->my_read_copy, ch->n_read, memory_order_release);
    atomic_store_explicit(ch->my_written, ++ch->n_written, memory_order_release);
}

int ZCom_can_read_c(int channel_id, int *err) {
    zchannel_t *ch = lookup(channel_id);
    if (__builtin_expect(!ch, 0)) return bad_channel("ZCom_can_read_c", channel_id, err);
    set_err(err, ZCOM_SUCCESS);
    /* acquire: the peer's writes are visible before I read them */
    return atomic_load_explicit(ch->peer_written, memory_order_acquire) != ch->n_read;
}

__attribute__((noinline, cold)) static void nothing_unread(int id, int *err) {
    set_err(err, report(world_rank(), "ZCom_have_read_c", ZCOM_ERR_STATE,
                        "channel %d: nothing unread (the peer has not written since)", id));
}

void ZCom_have_read_c(int channel_id, int *err) {
    zchannel_t *ch = lookup(channel_id);
    if (__builtin_expect(!ch, 0)) {
        bad_channel("ZCom_have_read_c", channel_id, err);
        return;
    }
    if (atomic_load_explicit(ch->peer_written, memory_order_relaxed) == ch->n_read) {
        nothing_unread(channel_id, err);
        return;
    }
    set_err(err, ZCOM_SUCCESS);
    atomic_store_explicit(ch->my_read, ++ch->n_read, memory_order_release);
}

/* ---- ZCom_cleanup_c ---- */

void ZCom_init_c(void **buffers, size_t *buffer_sizes, MPI_Comm comm, int *target_ranks,
                 int num_targets, void **attached_addrs, int *channel_ids, int *err) {
    init_impl("ZCom_init_c", buffers, buffer_sizes, comm, target_ranks, num_targets, 0,
              attached_addrs, channel_ids, err);
}

/* ZCom_cleanup_c and ZCom_cleanup_f, as init_impl. */
static void cleanup_impl(const char *call, int *channel_ids, int num_targets, int n_null,
                         MPI_Comm comm, int *err) {
    if (mpi_down(call, err)) return;
    int rank = world_rank(), size = 0, code = ZCOM_SUCCESS, n = num_targets;
    if (comm == MPI_COMM_NULL) {
        set_err(err, report(rank, call, ZCOM_ERR_ARG, "comm is MPI_COMM_NULL"));
        return;
    }
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *out = calloc((size_t)size, sizeof *out), *in = calloc((size_t)size, sizeof *in);
    if (!out || !in)
        code = report(rank, call, ZCOM_ERR_SYS, "out of memory");
    else if (n_null)
        code = report(rank, call, ZCOM_ERR_ARG, "num_targets is NULL");
    else if (n < 0)
        code = report(rank, call, ZCOM_ERR_ARG, "num_targets is %d", n);
    else if (n > 0 && !channel_ids)
        code = report(rank, call, ZCOM_ERR_ARG, "channel_ids is NULL");
    MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; code == ZCOM_SUCCESS && i < n; i++) {
        zchannel_t *ch = lookup(channel_ids[i]);
        if (!ch) {
            code =
                report(rank, call, ZCOM_ERR_CHANNEL,
                       "channel_ids[%d] = %d is unknown or already cleaned up", i, channel_ids[i]);
            break;
        }
        for (int j = 0; j < i; j++)
            if (channel_ids[j] == channel_ids[i])
                code = report(rank, call, ZCOM_ERR_CHANNEL, "channel id %d is listed twice",
                              channel_ids[i]);
        int p = MPI_UNDEFINED;
        MPI_Group_translate_ranks(wg, 1, &ch->peer_world, g, &p);
        if (code == ZCOM_SUCCESS && p == MPI_UNDEFINED)
            code =
                report(rank, call, ZCOM_ERR_NOT_PAIRED,
                       "channel %d's peer (world rank %d) is not in comm", ch->id, ch->peer_world);
        else if (code == ZCOM_SUCCESS)
            out[p]++;
    }
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    if ((code = agree(comm, rank, call, code)) != ZCOM_SUCCESS) goto done;

    /* Each pair must close its channels together (the same number of channels with each other). */
    if (MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, comm) != MPI_SUCCESS)
        code = report(rank, call, ZCOM_ERR_MPI, "MPI_Alltoall failed");
    for (int r = 0; code == ZCOM_SUCCESS && r < size; r++)
        if (out[r] != in[r])
            code = report(rank, call, ZCOM_ERR_NOT_PAIRED,
                          "I close %d channel(s) with rank %d, it closes %d with me", out[r], r,
                          in[r]);
    /* This agreement is also the barrier: after it, no process touches these channels' memory. */
    if ((code = agree(comm, rank, call, code)) != ZCOM_SUCCESS) goto done;

    for (int i = 0; i < n; i++) {
        zchannel_t *ch = lookup(channel_ids[i]);
        table[channel_ids[i] - table_base] = NULL;
        remap_detach(ch->peer_map, ch->peer_map_len);
        int e = region_release(ch->region);
        if (e)
            code = report(rank, call, ZCOM_ERR_SYS,
                          "cannot restore the buffer at %p to private memory: %s (it stays "
                          "valid, in shared memory)",
                          (void *)ch->my_buffer, strerror(e));
        ctl_release(ch->ctl);
        free(ch);
        live_channels--;
    }
    if (live_channels == 0) {
        free(table);
        table = NULL;
        table_len = table_cap = 0;
        table_base = next_id;
    }
    code = agree(comm, rank, call, code);
done:
    free(out);
    free(in);
    set_err(err, code);
}

void ZCom_cleanup_c(int *channel_ids, int num_targets, MPI_Comm comm, int *err) {
    cleanup_impl("ZCom_cleanup_c", channel_ids, num_targets, 0, comm, err);
}

/* ---- Fortran bindings (section 4.5) ---- */

/* MPI_Comm_f2c is an MPI call too: check MPI first. Every argument comes by reference: a NULL
 * comm leaves this process out of the agreement (like MPI_COMM_NULL), a NULL num_targets does
 * not. Messages name the _f call. */
void ZCom_init_f(void **buffers, size_t *buffer_sizes, MPI_Fint *comm, int *target_ranks,
                 int *num_targets, void **attached_addrs, int *channel_ids, int *err) {
    static const char *call = "ZCom_init_f";
    if (mpi_down(call, err)) return;
    if (!comm) {
        set_err(err, report(world_rank(), call, ZCOM_ERR_ARG, "comm is NULL"));
        return;
    }
    init_impl(call, buffers, buffer_sizes, MPI_Comm_f2c(*comm), target_ranks,
              num_targets ? *num_targets : 0, !num_targets, attached_addrs, channel_ids, err);
}

void ZCom_cleanup_f(int *channel_ids, int *num_targets, MPI_Fint *comm, int *err) {
    static const char *call = "ZCom_cleanup_f";
    if (mpi_down(call, err)) return;
    if (!comm) {
        set_err(err, report(world_rank(), call, ZCOM_ERR_ARG, "comm is NULL"));
        return;
    }
    cleanup_impl(call, channel_ids, num_targets ? *num_targets : 0, !num_targets,
                 MPI_Comm_f2c(*comm), err);
}
