/* Collectives (OpenSHMEM 1.5 section 9.9): barrier_all and sync, the team-based broadcast,
 * collect, fcollect, alltoall, alltoalls and reductions, and the deprecated active-set forms
 * (shmem_barrier, shmem_broadcast32, ..., shmem_TYPE_OP_to_all).
 *
 * Each runs on Shoal's collective of the same name over the team's Shoal team, whose
 * team-relative ids are the OpenSHMEM team's PE numbers (team.c), with global pointers to my own
 * part of the symmetric objects: the heap and the program's data are segments of SHOAL_TEAM_ALL,
 * which contains every team. Three cases have no Shoal collective and are built here from puts and
 * gets (see each): alltoalls of elements other than 4 or 8 bytes (alltoallsmem, 1-, 2- and 16-byte
 * types), the product of complex numbers, and the active-set broadcast, which must leave the root's
 * dest alone where Shoal's (and the 1.5 team-based) broadcast writes it too.
 *
 * Errors: a routine that finds a bad argument (invalid team, root out of range, a buffer that is
 * not symmetric or too short) reports it and returns non-zero (the code of the Shoal error) without
 * moving data. Every member passes the same arguments, so every member normally finds the same
 * fault; with SHOAL_CHECK_COLLECTIVES=1 a member that rejects its arguments still takes part in the
 * team's argument agreement, so the others fail too instead of waiting for it. */
#include <stdlib.h>
#include <string.h>

#include "active_psync.h"
#include "coll/coll.h"
#include "runtime/keymap.h"
#include "shmem_internal.h"
#include "sync/sync.h"
#include "team/team.h"

/* The team a collective runs over: its Shoal team and the world PE of each of its PEs (a shmem
 * team's world_of, or an active set's arithmetic sequence); or an active set without a team of its
 * own, which runs on the call's pSync (active_psync.h). */
typedef struct {
    shoal_team_t id;
    int n_pes, my_pe;
    const int *world_of; /* NULL: world PE of i is start + i * stride */
    int start, stride;
    long *psync;   /* non-NULL: no team (id is SHOAL_TEAM_NULL); the active set's pSync */
    int transient; /* id is a team made for this call (the SHCOLL names): destroyed after it */
} cteam_t;

static aset_sync_t aset_of(const cteam_t *c) {
    aset_sync_t s = {c->n_pes, c->my_pe, c->start, c->stride, c->psync};
    return s;
}

static int world_pe(const cteam_t *c, int i) {
    return c->world_of ? c->world_of[i] : c->start + i * c->stride;
}

static cteam_t of_team(shmem_team_t team) {
    cteam_t c = {team->id, team->n_pes, team->my_pe, team->world_of, 0, 0, NULL, 0};
    return c;
}

/* Reports what is wrong with a team handle given to a collective; 0 when it can be used. */
static shoal_err_t team_check(shmem_team_t team) {
    if (!shmem__ready()) return SHOAL_ERR_NOT_INIT;
    if (!shmem__team_ok(team)) return SHOAL_ERR_TEAM;
    return SHOAL_OK;
}

/* My own part of the symmetric object [addr, addr + nbytes) as a Shoal global pointer; what names
 * the argument in the message. */
static shoal_err_t sym(const void *addr, size_t nbytes, const char *what, shoal_gptr_t *gp) {
    const shmem_region_t *in = shmem__region_of(addr, nbytes);
    if (in) {
        *gp = shmem__gptr_in(in, addr, (int)shoal__rt.myid);
        return SHOAL_OK;
    }
    const char *p = addr;
    const shmem_region_t *regions[2] = {&shmem__heap, &shmem__data};
    for (int i = 0; i < 2; i++) {
        const shmem_region_t *r = regions[i];
        if (r->seg && p >= r->base && p < r->base + r->size)
            return shoal__fail(
                SHOAL_ERR_BOUNDS,
                "%s: %zu bytes at %p run past the end of the symmetric %s (%zu bytes "
                "from it)",
                what, nbytes, addr, i ? "global variables" : "heap",
                (size_t)(r->base + r->size - p));
    }
    return shoal__fail(
        SHOAL_ERR_GPTR,
        "%s (%p) is not symmetric: not in the symmetric heap, nor a global or static "
        "variable of the program",
        what, addr);
}

static shoal_err_t bytes_of(size_t nelems, size_t esize, size_t times, size_t *bytes) {
    if (__builtin_mul_overflow(nelems, esize, bytes) ||
        __builtin_mul_overflow(*bytes, times, bytes))
        return shoal__fail(SHOAL_ERR_INVAL, "%zu elements of %zu bytes (x %zu) overflow", nelems,
                           esize, times);
    return SHOAL_OK;
}

/* A member that rejects its own arguments before reaching Shoal's collective still takes part in
 * the argument agreement Shoal runs with SHOAL_CHECK_COLLECTIVES=1 (the same single allreduce over
 * the team), so the other members fail with it instead of waiting. Returns err. */
static shoal_err_t reject(const cteam_t *c, shoal_err_t err) {
    team_t *t = NULL;
    const char *call = shoal__current_call;
    if (shoal__rt.check_collectives && shoal__team_get(c->id, &t) == SHOAL_OK)
        shoal__team_agree(t, err, 0, "arguments");
    shoal__current_call = call;
    return err;
}

/* The same agreement for the collectives built here (not on one Shoal collective): every member
 * passes its verdict and a hash of the arguments that must match. */
static shoal_err_t agree_here(const cteam_t *c, shoal_err_t mine, uint64_t args) {
    team_t *t = NULL;
    if (!shoal__rt.check_collectives) return mine;
    const char *call = shoal__current_call;
    shoal_err_t err = shoal__team_get(c->id, &t);
    if (err == SHOAL_OK) err = shoal__team_agree(t, mine, args, "arguments");
    shoal__current_call = call;
    return err;
}

static uint64_t hash_words(const uint64_t *v, int n) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < n; i++) h = (h ^ v[i]) * 1099511628211ULL;
    return h;
}

/* Both objects in one region, their byte ranges intersecting. */
static int overlap(const void *a, size_t abytes, const void *b, size_t bbytes) {
    const char *x = a, *y = b;
    return abytes && bbytes && x < y + bbytes && y < x + abytes;
}

/* ---- The collectives on a cteam_t --------------------------------------------------------------
 * Each returns SHOAL_OK or the (reported) error. */

/* keep_root_dest: the active-set broadcast, whose root's dest is not written (1.5 section 9.9.6:
 * "dest is updated on all PEs other than the root PE"; the team-based broadcast updates it on all
 * PEs, root included): Shoal's broadcast has an internal form whose root skips its own copy. */
static shoal_err_t c_broadcast(const cteam_t *c, void *dest, const void *source, size_t nelems,
                               size_t esize, int root, int keep_root_dest) {
    shoal_err_t err = SHOAL_OK;
    size_t nbytes = 0;
    if (root < 0 || root >= c->n_pes)
        err = shoal__fail(SHOAL_ERR_UNIT, "PE_root %d is not a PE of the %s (0..%d)", root,
                          keep_root_dest ? "active set" : "team", c->n_pes - 1);
    else
        err = bytes_of(nelems, esize, 1, &nbytes);
    if (err == SHOAL_OK && nbytes == 0) return SHOAL_OK; /* every member moves nothing */
    shoal_gptr_t d = SHOAL_GPTR_NULL, s = SHOAL_GPTR_NULL;
    if (err == SHOAL_OK) err = sym(dest, nbytes, "dest", &d);
    if (err == SHOAL_OK) err = sym(source, nbytes, "source", &s);
    if (c->psync) {
        aset_sync_t a = aset_of(c);
        return aset_broadcast(&a, err, d, source, nbytes, root);
    }
    if (err != SHOAL_OK) return reject(c, err);
    return keep_root_dest ? shoal__broadcast_keep_root_dest(c->id, d, s, nbytes, root)
                          : shoal_broadcast(c->id, d, s, nbytes, root);
}

static shoal_err_t c_collect(const cteam_t *c, void *dest, const void *source, size_t nelems,
                             size_t esize) {
    size_t nbytes = 0;
    shoal_gptr_t d = SHOAL_GPTR_NULL, s = SHOAL_GPTR_NULL;
    /* Contributions may differ per PE: Shoal checks dest's room once it knows the total. */
    shoal_err_t err = bytes_of(nelems, esize, 1, &nbytes);
    if (err == SHOAL_OK) err = sym(dest, 0, "dest", &d);
    if (err == SHOAL_OK && nbytes) err = sym(source, nbytes, "source", &s);
    if (c->psync) {
        aset_sync_t a = aset_of(c);
        return aset_collect(&a, err, d, source, nbytes);
    }
    if (err != SHOAL_OK) return reject(c, err);
    /* Contributing nothing, source is not read: a PE may pass NULL; any pointer of mine serves
     * (the symmetric source when it is one, so SHOAL_CHECK_COLLECTIVES sees the same everywhere).
     */
    if (!nbytes && (!shmem__region_of(source, 0) ||
                    shmem__gptr(source, 0, (int)shoal__rt.myid, &s) != SHOAL_OK))
        s = d;
    return shoal_collect(c->id, d, s, nbytes);
}

static shoal_err_t c_fcollect(const cteam_t *c, void *dest, const void *source, size_t nelems,
                              size_t esize) {
    size_t nbytes = 0, total = 0;
    shoal_gptr_t d = SHOAL_GPTR_NULL, s = SHOAL_GPTR_NULL;
    shoal_err_t err = bytes_of(nelems, esize, 1, &nbytes);
    if (err == SHOAL_OK) err = bytes_of(nelems, esize, (size_t)c->n_pes, &total);
    if (err == SHOAL_OK && nbytes == 0) return SHOAL_OK;
    if (err == SHOAL_OK) err = sym(dest, total, "dest", &d);
    if (err == SHOAL_OK) err = sym(source, nbytes, "source", &s);
    if (c->psync) {
        aset_sync_t a = aset_of(c);
        return aset_fcollect(&a, err, d, source, nbytes);
    }
    if (err != SHOAL_OK) return reject(c, err);
    return shoal_fcollect(c->id, d, s, nbytes);
}

static shoal_err_t c_alltoall(const cteam_t *c, void *dest, const void *source, size_t nelems,
                              size_t esize) {
    size_t nbytes = 0, total = 0;
    shoal_gptr_t d = SHOAL_GPTR_NULL, s = SHOAL_GPTR_NULL;
    shoal_err_t err = bytes_of(nelems, esize, 1, &nbytes);
    if (err == SHOAL_OK) err = bytes_of(nelems, esize, (size_t)c->n_pes, &total);
    if (err == SHOAL_OK && nbytes == 0) return SHOAL_OK;
    if (err == SHOAL_OK) err = sym(dest, total, "dest", &d);
    if (err == SHOAL_OK) err = sym(source, total, "source", &s);
    if (err == SHOAL_OK && overlap(dest, total, source, total))
        err = shoal__fail(SHOAL_ERR_INVAL, "dest and source overlap");
    if (c->psync) {
        aset_sync_t a = aset_of(c);
        return aset_alltoall(&a, err, d, source, nbytes);
    }
    if (err != SHOAL_OK) return reject(c, err);
    return shoal_alltoall(c->id, d, s, nbytes);
}

/* Bytes spanned by n elements at stride (elements) of esize bytes. */
static int span(size_t n, ptrdiff_t stride, size_t esize, size_t *bytes) {
    size_t last;
    *bytes = 0;
    if (!n) return 0;
    if (stride < 1 || __builtin_mul_overflow(n - 1, (size_t)stride, &last) ||
        __builtin_add_overflow(last, 1, &last) || __builtin_mul_overflow(last, esize, bytes))
        return -1;
    return 0;
}

/* alltoalls of any element size. Shoal's alltoalls takes 4- and 8-byte elements; others are
 * pushed here: every member puts its block for member j (nelems elements at stride sst from
 * element j * nelems of its source) straight into j's dest (at stride dst from element
 * me * nelems) with strided puts, in the order me + 1, me + 2, ... (no hot spot), between two
 * barriers over the team:
 *  - before: every member has entered the call, so nobody writes into a dest its owner is still
 *    reading from an earlier call (1.5 already makes dest ready on every PE before any PE calls;
 *    the barrier makes back-to-back calls safe without relying on that). source is only read by
 *    its owner (a push), so it needs no such wait.
 *  - after: every member's puts are complete (shoal_team_barrier first completes the caller's
 *    RMA, and a blocking put is complete at its target anyway), so on return my dest holds every
 *    block, and my source may be reused (my own puts from it are done).
 * A member whose put fails still reaches the second barrier, so no member waits forever. */
static shoal_err_t c_alltoalls(const cteam_t *c, void *dest, const void *source, ptrdiff_t dst,
                               ptrdiff_t sst, size_t nelems, size_t esize) {
    shoal_err_t err = SHOAL_OK;
    size_t total = 0, dbytes = 0, sbytes = 0;
    if (dst < 1 || sst < 1)
        err = shoal__fail(SHOAL_ERR_INVAL, "strides dst %td and sst %td: must be at least 1", dst,
                          sst);
    else if (__builtin_mul_overflow(nelems, (size_t)c->n_pes, &total) ||
             span(total, dst, esize, &dbytes) || span(total, sst, esize, &sbytes))
        err = shoal__fail(SHOAL_ERR_INVAL, "%zu elements per PE at strides %td/%td overflow",
                          nelems, dst, sst);
    if (err == SHOAL_OK && total == 0) return SHOAL_OK;
    shoal_gptr_t d = SHOAL_GPTR_NULL, s = SHOAL_GPTR_NULL;
    if (err == SHOAL_OK) err = sym(dest, dbytes, "dest", &d);
    if (err == SHOAL_OK) err = sym(source, sbytes, "source", &s);
    if (err == SHOAL_OK && overlap(dest, dbytes, source, sbytes))
        err = shoal__fail(SHOAL_ERR_INVAL, "dest and source overlap");
    if (c->psync) {
        aset_sync_t a = aset_of(c);
        return aset_alltoalls(&a, err, d, source, dst, sst, nelems, esize);
    }
    if (esize == 4 || esize == 8) {
        if (err != SHOAL_OK) return reject(c, err);
        return shoal_alltoalls(c->id, d, s, dst, sst, esize, nelems);
    }
    const uint64_t words[] = {4, (uint64_t)dst, (uint64_t)sst, nelems, esize, d.offset, s.offset};
    err = agree_here(c, err, err == SHOAL_OK ? hash_words(words, 7) : 0);
    if (err != SHOAL_OK) return err;
    const char *call = shoal__current_call;
    err = shoal_team_barrier(c->id);
    const size_t dstep = (size_t)dst * esize, sstep = (size_t)sst * esize;
    for (int r = 0; r < c->n_pes && err == SHOAL_OK; r++) {
        int j = (c->my_pe + r) % c->n_pes;
        shoal_gptr_t to = shoal_gptr_add(shoal_gptr_setunit(d, world_pe(c, j)),
                                         (int64_t)((size_t)c->my_pe * nelems * dstep));
        const char *from = (const char *)source + (size_t)j * nelems * sstep;
        err = shmem__put_strided_any(to, dstep, from, sstep, esize, nelems);
    }
    shoal_err_t b = shoal_team_barrier(c->id);
    shoal__current_call = call;
    return err != SHOAL_OK ? err : b;
}

/* Bytes read per get in the complex product. */
#define PROD_CHUNK ((size_t)64 << 10)

/* The product of complex numbers, which Shoal's reduce does not have (it reduces real types
 * element by element; a complex product mixes the two halves). Every member gets every member's
 * source, in team order, and multiplies into a private accumulator: O(n * P) data moved per
 * member instead of O(n), but every member computes (((s0 * s1) * s2) ...) in the same order, so
 * all get bit-identical results. Two barriers over the team:
 *  - before: every member has entered the call, so its source holds this call's data.
 *  - after: every member has finished reading my source; only then is dest written (dest may be
 *    source itself: 1.5 allows the same array).
 * A member that cannot allocate its accumulator still takes part in both barriers, then fails. */
static shoal_err_t c_complex_prod(const cteam_t *c, void *dest, size_t n, int is_double,
                                  size_t nbytes, shoal_gptr_t s) {
    const size_t esize = is_double ? sizeof(double _Complex) : sizeof(float _Complex);
    const uint64_t words[] = {7, n, (uint64_t)is_double, s.offset};
    char *acc = malloc(nbytes), *buf = malloc(nbytes < PROD_CHUNK ? nbytes : PROD_CHUNK);
    shoal_err_t err = agree_here(c, SHOAL_OK, hash_words(words, 4));
    if (err != SHOAL_OK) {
        free(acc);
        free(buf);
        return err;
    }
    const char *call = shoal__current_call;
    err = shoal_team_barrier(c->id);
    const size_t chunk = PROD_CHUNK / esize * esize;
    for (int r = 0; r < c->n_pes && err == SHOAL_OK && acc && buf; r++) {
        shoal_gptr_t from = shoal_gptr_setunit(s, world_pe(c, r));
        for (size_t off = 0; off < nbytes && err == SHOAL_OK; off += chunk) {
            size_t len = nbytes - off < chunk ? nbytes - off : chunk;
            err = shoal_get(r == 0 ? acc + off : buf, shoal_gptr_add(from, (int64_t)off), len);
            if (err != SHOAL_OK || r == 0) continue;
            if (is_double) {
                double _Complex *a = (double _Complex *)(void *)(acc + off);
                const double _Complex *b = (const double _Complex *)(const void *)buf;
                for (size_t k = 0; k < len / esize; k++) a[k] *= b[k];
            } else {
                float _Complex *a = (float _Complex *)(void *)(acc + off);
                const float _Complex *b = (const float _Complex *)(const void *)buf;
                for (size_t k = 0; k < len / esize; k++) a[k] *= b[k];
            }
        }
    }
    shoal_err_t b = shoal_team_barrier(c->id);
    shoal__current_call = call;
    if (err == SHOAL_OK) err = b;
    if (err == SHOAL_OK && (!acc || !buf))
        err = shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for %zu bytes of products", nbytes);
    if (err == SHOAL_OK) shoal__copy(dest, acc, nbytes);
    free(acc);
    free(buf);
    return err;
}

static shoal_err_t c_reduce(const cteam_t *c, void *dest, const void *source, size_t n,
                            size_t esize, int type, shoal_red_op_t op) {
    size_t nbytes = 0;
    shoal_err_t err = bytes_of(n, esize, 1, &nbytes);
    if (err == SHOAL_OK && nbytes == 0) return SHOAL_OK;
    shoal_gptr_t d = SHOAL_GPTR_NULL, s = SHOAL_GPTR_NULL;
    if (err == SHOAL_OK) err = sym(dest, nbytes, "dest", &d);
    if (err == SHOAL_OK) err = sym(source, nbytes, "source", &s);
    if (err == SHOAL_OK && dest != source && overlap(dest, nbytes, source, nbytes))
        err = shoal__fail(SHOAL_ERR_INVAL, "dest and source overlap without being the same array");
    if (c->psync) {
        aset_sync_t a = aset_of(c);
        size_t complex_prod = 0;
        if (type == TYPE_COMPLEXD || type == TYPE_COMPLEXF) {
            if (op == SHOAL_RED_PROD) {
                complex_prod =
                    type == TYPE_COMPLEXD ? sizeof(double _Complex) : sizeof(float _Complex);
            } else { /* a complex sum is the sum of the real and of the imaginary parts */
                n *= 2;
            }
            type = type == TYPE_COMPLEXD ? SHOAL_TYPE_DOUBLE : SHOAL_TYPE_FLOAT;
        }
        return aset_reduce(&a, err, dest, s, n, (shoal_type_t)type, op, complex_prod);
    }
    if (type == TYPE_COMPLEXD || type == TYPE_COMPLEXF) {
        if (op == SHOAL_RED_PROD) {
            if (err != SHOAL_OK) return agree_here(c, err, 0);
            return c_complex_prod(c, dest, n, type == TYPE_COMPLEXD, nbytes, s);
        }
        /* A complex sum is the sum of the real and of the imaginary parts: 2n reals. */
        n *= 2;
        type = type == TYPE_COMPLEXD ? SHOAL_TYPE_DOUBLE : SHOAL_TYPE_FLOAT;
    }
    if (err != SHOAL_OK) return reject(c, err);
    return shoal_reduce(c->id, d, s, n, (shoal_type_t)type, op);
}

/* ---- Barriers and syncs ---------------------------------------------------------------------- */
/* shmem_barrier_all completes this PE's outstanding operations (shmem_quiet), then waits for every
 * PE. The syncs only wait: shoal_team_barrier is the selectable barrier algorithm; like every Shoal
 * collective it first completes the caller's MPI-level RMA (a flush, which on the direct path has
 * nothing to do), but it does not wait for a context's outstanding non-blocking operations, which
 * is what the specification leaves out of a sync. */
static void barrier_all(void);

void shmem_barrier_all(void) {
    /* The world of 2 PEs in shared memory with nothing pending on the default context and no MPI
     * operation outstanding (its quiet has nothing to do: the direct path's puts and atomics are
     * complete when they return): the 2-member barrier at once, before any bookkeeping, as
     * shoal_barrier does (sync.h says why). */
    team_t *all = shoal__team_all_rec;
    if (all && all->barrier_pair && shmem__initialized &&
        !__atomic_load_n(&SHMEM_CTX_DEFAULT->npending, __ATOMIC_RELAXED) &&
        shoal__segments_clean()) {
        shoal__pair_run(all, all->barrier_pair);
        return;
    }
    barrier_all(); /* a call of its own: the path above saves no registers (src/coll/api.c) */
}

__attribute__((noinline)) static void barrier_all(void) {
    SHMEM_ENTER("shmem_barrier_all");
    if (!shmem__ready()) return;
    shmem_quiet();
    SHMEM_ENTER("shmem_barrier_all");
    shoal_barrier(SHOAL_TEAM_ALL);
    SHMEM_ENTER("shmem_barrier_all");
}

void shmem_sync_all(void) {
    SHMEM_ENTER("shmem_sync_all");
    if (!shmem__ready()) return;
    shoal_team_barrier(SHOAL_TEAM_ALL);
    SHMEM_ENTER("shmem_sync_all");
}

int shmem_team_sync(shmem_team_t team) {
    SHMEM_ENTER("shmem_team_sync");
    shoal_err_t err = team_check(team);
    if (err == SHOAL_OK) err = shoal_team_barrier(team->id);
    SHMEM_ENTER("shmem_team_sync");
    return (int)err;
}

/* ---- Team-based collectives ------------------------------------------------------------------ */
/* Each returns 0, or the (positive) Shoal error code of what it reported. */
#define TEAM_COLL(call, ...)                                                                       \
    do {                                                                                           \
        shoal_err_t err_ = team_check(team);                                                       \
        if (err_ == SHOAL_OK) {                                                                    \
            cteam_t c_ = of_team(team);                                                            \
            err_ = call(&c_, __VA_ARGS__);                                                         \
        }                                                                                          \
        return (int)err_;                                                                          \
    } while (0)

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root) {
    SHMEM_ENTER("shmem_broadcastmem");
    TEAM_COLL(c_broadcast, dest, source, nelems, 1, PE_root, 0);
}

int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems) {
    SHMEM_ENTER("shmem_collectmem");
    TEAM_COLL(c_collect, dest, source, nelems, 1);
}

int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems) {
    SHMEM_ENTER("shmem_fcollectmem");
    TEAM_COLL(c_fcollect, dest, source, nelems, 1);
}

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems) {
    SHMEM_ENTER("shmem_alltoallmem");
    TEAM_COLL(c_alltoall, dest, source, nelems, 1);
}

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems) {
    SHMEM_ENTER("shmem_alltoallsmem");
    TEAM_COLL(c_alltoalls, dest, source, dst, sst, nelems, 1);
}

#define SHMEM__DEF_COLL(T, N)                                                                      \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,          \
                              int PE_root) {                                                       \
        SHMEM_ENTER("shmem_" #N "_broadcast");                                                     \
        TEAM_COLL(c_broadcast, dest, source, nelems, sizeof(T), PE_root, 0);                       \
    }                                                                                              \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems) {          \
        SHMEM_ENTER("shmem_" #N "_collect");                                                       \
        TEAM_COLL(c_collect, dest, source, nelems, sizeof(T));                                     \
    }                                                                                              \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems) {         \
        SHMEM_ENTER("shmem_" #N "_fcollect");                                                      \
        TEAM_COLL(c_fcollect, dest, source, nelems, sizeof(T));                                    \
    }                                                                                              \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems) {         \
        SHMEM_ENTER("shmem_" #N "_alltoall");                                                      \
        TEAM_COLL(c_alltoall, dest, source, nelems, sizeof(T));                                    \
    }                                                                                              \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,          \
                              ptrdiff_t sst, size_t nelems) {                                      \
        SHMEM_ENTER("shmem_" #N "_alltoalls");                                                     \
        TEAM_COLL(c_alltoalls, dest, source, dst, sst, nelems, sizeof(T));                         \
    }
SHMEM_RMA_TYPES(SHMEM__DEF_COLL)

#define SHMEM__DEF_REDUCE(T, N, OP)                                                                \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce) {   \
        SHMEM_ENTER("shmem_" #N "_" #OP "_reduce");                                                \
        TEAM_COLL(c_reduce, dest, source, nreduce, sizeof(T), (int)SHMEM__ST_##N, SHMEM__OP_##OP); \
    }
#define SHMEM__DEF_REDUCE_BITWISE(T, N)                                                            \
    SHMEM__DEF_REDUCE(T, N, and) SHMEM__DEF_REDUCE(T, N, or) SHMEM__DEF_REDUCE(T, N, xor)
#define SHMEM__DEF_REDUCE_MINMAX(T, N) SHMEM__DEF_REDUCE(T, N, max) SHMEM__DEF_REDUCE(T, N, min)
#define SHMEM__DEF_REDUCE_ARITH(T, N)  SHMEM__DEF_REDUCE(T, N, sum) SHMEM__DEF_REDUCE(T, N, prod)
SHMEM_REDUCE_BITWISE_TYPES(SHMEM__DEF_REDUCE_BITWISE)
SHMEM_REDUCE_MINMAX_TYPES(SHMEM__DEF_REDUCE_MINMAX)
SHMEM_REDUCE_ARITH_TYPES(SHMEM__DEF_REDUCE_ARITH)

/* ---- Deprecated: active-set collectives -------------------------------------------------------
 * The active set (PE_start, logPE_stride, PE_size) is the world PEs PE_start + k * 2^logPE_stride,
 * k < PE_size, numbered k; only they call. The whole world is SHOAL_TEAM_ALL itself. Any other
 * set is settled the first time it is used, by its PEs alone (the other PEs do not call these
 * routines), and kept until shmem_finalize (shmem__active_sets_finalize):
 *  - a Shoal team of exactly its PEs (shoal__team_create_members_if), so later calls run Shoal's
 *    collectives at no extra cost; pSync and pWrk are then ignored (each team keeps its own
 *    signal words and scratch, and sequence numbers keep back-to-back calls apart), nor touched.
 *    A team holds MPI communicators (MPICH has 2,048 context ids per process: one per team on
 *    one node with the direct path, about 3 with windows), so a PE gives teams to at most
 *    SHOAL_SHMEM_ACTIVE_SET_TEAMS sets;
 *  - past that, on any of its PEs (they agree while the team would be made), the set runs on the
 *    call's pSync (active_psync.c): slower algorithms, but no resources held, so a program may
 *    use any number of active sets. */
typedef struct aset {
    int start, stride, size;
    shoal_team_t id; /* SHOAL_TEAM_NULL: the set runs on pSync */
    struct aset *next;
} aset_t;
static aset_t *asets, **asets_tail = &asets; /* in the order they were settled */
static keymap_t asets_index = KEYMAP_INIT;   /* aset_key -> aset_t: O(1) per call */
static int aset_teams;                       /* sets of mine with a team */
static pthread_mutex_t asets_mu = PTHREAD_MUTEX_INITIALIZER;

/* A set's key in asets_index: start, stride and size packed in 21 bits each (every one is below
 * the number of PEs); 0 when there are too many PEs for that, and the list is searched. */
static uint64_t aset_key(int start, int stride, int size) {
    if (shoal__rt.nunits >= (1 << 21)) return 0;
    return KEYMAP_FIRST_KEY + ((uint64_t)start | (uint64_t)stride << 21 | (uint64_t)size << 42);
}

/* The team (or pSync) of an active set I belong to, settled on first use (collective over the
 * set's PEs). */
static shoal_err_t active_set(int PE_start, int logPE_stride, int PE_size, long *pSync,
                              cteam_t *c) {
    if (!shmem__ready()) return SHOAL_ERR_NOT_INIT;
    const int npes = (int)shoal__rt.nunits, me = (int)shoal__rt.myid;
    if (PE_size < 1 || PE_size > npes || PE_start < 0 || PE_start >= npes || logPE_stride < 0 ||
        logPE_stride > 30)
        return shoal__fail(SHOAL_ERR_INVAL,
                           "active set (PE_start %d, logPE_stride %d, PE_size %d): needs "
                           "0 <= PE_start < %d, 0 <= logPE_stride <= 30, 1 <= PE_size <= %d",
                           PE_start, logPE_stride, PE_size, npes, npes);
    int stride = PE_size == 1 ? 1 : 1 << logPE_stride;
    int64_t last = (int64_t)PE_start + (int64_t)stride * (PE_size - 1);
    if (last >= npes)
        return shoal__fail(SHOAL_ERR_INVAL,
                           "active set (PE_start %d, logPE_stride %d, PE_size %d) reaches PE "
                           "%lld; there are %d PEs",
                           PE_start, logPE_stride, PE_size, (long long)last, npes);
    if (me < PE_start || (me - PE_start) % stride || (me - PE_start) / stride >= PE_size)
        return shoal__fail(SHOAL_ERR_UNIT,
                           "PE %d is not in the active set (PE_start %d, logPE_stride %d, PE_size "
                           "%d): only its PEs may call",
                           me, PE_start, logPE_stride, PE_size);
    c->n_pes = PE_size;
    c->my_pe = (me - PE_start) / stride;
    c->world_of = NULL;
    c->start = PE_start;
    c->stride = stride;
    c->psync = NULL;
    c->transient = 0;
    if (PE_size == npes) { /* the whole world */
        c->id = SHOAL_TEAM_ALL;
        return SHOAL_OK;
    }
    const uint64_t key = aset_key(PE_start, stride, PE_size);
    pthread_mutex_lock(&asets_mu);
    aset_t *a = key ? keymap_find(&asets_index, key) : asets;
    while (!key && a && !(a->start == PE_start && a->stride == stride && a->size == PE_size))
        a = a->next;
    pthread_mutex_unlock(&asets_mu);
    if (a) {
        c->id = a->id;
        if (a->id == SHOAL_TEAM_NULL) c->psync = pSync;
        return SHOAL_OK;
    }
    a = calloc(1, sizeof *a);
    shoal_unit_t *units = malloc((size_t)PE_size * sizeof *units);
    pthread_mutex_lock(&asets_mu);
    int no_room = key && keymap_reserve(&asets_index);
    pthread_mutex_unlock(&asets_mu);
    if (!a || !units || no_room) {
        free(a);
        free(units);
        return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    }
    for (int k = 0; k < PE_size; k++) units[k] = PE_start + k * stride;
    const char *call = shoal__current_call;
    pthread_mutex_lock(&asets_mu);
    int willing = aset_teams < shoal__rt.shmem_active_set_teams;
    pthread_mutex_unlock(&asets_mu);
    shoal_err_t err = shoal__team_create_members_if(units, PE_size, willing, &a->id);
    shoal__current_call = call;
    free(units);
    if (err != SHOAL_OK) {
        free(a);
        return err;
    }
    a->start = PE_start;
    a->stride = stride;
    a->size = PE_size;
    pthread_mutex_lock(&asets_mu);
    *asets_tail = a;
    asets_tail = &a->next;
    aset_teams += a->id != SHOAL_TEAM_NULL;
    if (key) /* room was reserved before the vote (only a thread settling another set at the
              * same time can make it grow again, and then only out of memory fails it) */
        keymap_insert(&asets_index, key, a);
    pthread_mutex_unlock(&asets_mu);
    c->id = a->id;
    if (a->id == SHOAL_TEAM_NULL) c->psync = pSync;
    return SHOAL_OK;
}

void shmem__active_sets_finalize(void) {
    const char *call = shoal__current_call;
    pthread_mutex_lock(&asets_mu);
    aset_t *a = asets;
    asets = NULL;
    asets_tail = &asets;
    keymap_clear(&asets_index);
    aset_teams = 0;
    pthread_mutex_unlock(&asets_mu);
    /* In creation order: each PE meets its sets' members in the order it met them when the teams
     * were made, so these collective destructions cannot cross. */
    while (a) {
        aset_t *next = a->next;
        if (a->id != SHOAL_TEAM_NULL) shoal_team_destroy(&a->id);
        free(a);
        a = next;
    }
    shoal__current_call = call;
}

/* Runs a collective over an active set (the routines return nothing: failures are reported). */
#define ACTIVE_SET_COLL(call, ...)                                                                 \
    do {                                                                                           \
        cteam_t c_;                                                                                \
        if (active_set(PE_start, logPE_stride, PE_size, pSync, &c_) == SHOAL_OK)                   \
            call(&c_, __VA_ARGS__);                                                                \
    } while (0)

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync) {
    SHMEM_ENTER("shmem_barrier");
    cteam_t c = {0};
    if (active_set(PE_start, logPE_stride, PE_size, pSync, &c) != SHOAL_OK) return;
    shmem_quiet(); /* like shmem_barrier_all: my operations are complete first */
    SHMEM_ENTER("shmem_barrier");
    if (c.psync) {
        aset_sync_t a = aset_of(&c);
        aset_agree(&a, SHOAL_OK);
    } else {
        shoal_barrier(c.id);
    }
    SHMEM_ENTER("shmem_barrier");
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync) {
    SHMEM_ENTER("shmem_sync");
    cteam_t c = {0};
    if (active_set(PE_start, logPE_stride, PE_size, pSync, &c) != SHOAL_OK) return;
    if (c.psync) {
        aset_sync_t a = aset_of(&c);
        aset_agree(&a, SHOAL_OK);
    } else {
        shoal_team_barrier(c.id);
    }
    SHMEM_ENTER("shmem_sync");
}

#define SHMEM__DEF_ACTIVE_SET_SIZED(S)                                                             \
    void shmem_broadcast##S(void *dest, const void *source, size_t nelems, int PE_root,            \
                            int PE_start, int logPE_stride, int PE_size, long *pSync) {            \
        SHMEM_ENTER("shmem_broadcast" #S);                                                         \
        ACTIVE_SET_COLL(c_broadcast, dest, source, nelems, S / 8, PE_root, 1);                     \
    }                                                                                              \
    void shmem_collect##S(void *dest, const void *source, size_t nelems, int PE_start,             \
                          int logPE_stride, int PE_size, long *pSync) {                            \
        SHMEM_ENTER("shmem_collect" #S);                                                           \
        ACTIVE_SET_COLL(c_collect, dest, source, nelems, S / 8);                                   \
    }                                                                                              \
    void shmem_fcollect##S(void *dest, const void *source, size_t nelems, int PE_start,            \
                           int logPE_stride, int PE_size, long *pSync) {                           \
        SHMEM_ENTER("shmem_fcollect" #S);                                                          \
        ACTIVE_SET_COLL(c_fcollect, dest, source, nelems, S / 8);                                  \
    }                                                                                              \
    void shmem_alltoall##S(void *dest, const void *source, size_t nelems, int PE_start,            \
                           int logPE_stride, int PE_size, long *pSync) {                           \
        SHMEM_ENTER("shmem_alltoall" #S);                                                          \
        ACTIVE_SET_COLL(c_alltoall, dest, source, nelems, S / 8);                                  \
    }                                                                                              \
    void shmem_alltoalls##S(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,          \
                            size_t nelems, int PE_start, int logPE_stride, int PE_size,            \
                            long *pSync) {                                                         \
        SHMEM_ENTER("shmem_alltoalls" #S);                                                         \
        ACTIVE_SET_COLL(c_alltoalls, dest, source, dst, sst, nelems, S / 8);                       \
    }
SHMEM__DEF_ACTIVE_SET_SIZED(32)
SHMEM__DEF_ACTIVE_SET_SIZED(64)

#define SHMEM__DEF_TO_ALL(T, N, OP)                                                                \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,            \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync) {          \
        SHMEM_ENTER("shmem_" #N "_" #OP "_to_all");                                                \
        (void)pWrk;                                                                                \
        if (nreduce < 0) {                                                                         \
            shoal__fail(SHOAL_ERR_INVAL, "nreduce %d is negative", nreduce);                       \
            return;                                                                                \
        }                                                                                          \
        ACTIVE_SET_COLL(c_reduce, dest, source, (size_t)nreduce, sizeof(T), (int)SHMEM__ST_##N,    \
                        SHMEM__OP_##OP);                                                           \
    }
#define SHMEM__DEF_TO_ALL_BITWISE(T, N)                                                            \
    SHMEM__DEF_TO_ALL(T, N, and) SHMEM__DEF_TO_ALL(T, N, or) SHMEM__DEF_TO_ALL(T, N, xor)
#define SHMEM__DEF_TO_ALL_MINMAX(T, N) SHMEM__DEF_TO_ALL(T, N, max) SHMEM__DEF_TO_ALL(T, N, min)
#define SHMEM__DEF_TO_ALL_ARITH(T, N)  SHMEM__DEF_TO_ALL(T, N, sum) SHMEM__DEF_TO_ALL(T, N, prod)
SHMEM_TO_ALL_BITWISE_TYPES(SHMEM__DEF_TO_ALL_BITWISE)
SHMEM_TO_ALL_MINMAX_TYPES(SHMEM__DEF_TO_ALL_MINMAX)
SHMEM_TO_ALL_ARITH_TYPES(SHMEM__DEF_TO_ALL_ARITH)

/* ---- For the SHCOLL names (shcoll.c)
 * ------------------------------------------------------------- The active-set routines above,
 * whose pSync follows SHCOLL's conventions (its own sizes, and SHCOLL_SYNC_VALUE 0 where 1.5 has
 * -1), which the pSync algorithms cannot read: a set that runs on pSync (past
 * SHOAL_SHMEM_ACTIVE_SET_TEAMS) runs each SHCOLL call on a team made for it by the set's PEs and
 * destroyed after it (two communicator operations per call, nothing held). The caller has named the
 * routine (SHMEM_ENTER); it is named again after every inner call. */
static shoal_err_t shcoll_set(int PE_start, int logPE_stride, int PE_size, cteam_t *c) {
    const char *call = shoal__current_call;
    shoal_err_t err = active_set(PE_start, logPE_stride, PE_size, NULL, c);
    if (err != SHOAL_OK || c->id != SHOAL_TEAM_NULL) return err;
    shoal_unit_t *units = malloc((size_t)PE_size * sizeof *units);
    if (!units) return shoal__fail(SHOAL_ERR_NOMEM, "out of host memory");
    for (int k = 0; k < PE_size; k++) units[k] = c->start + k * c->stride;
    err = shoal__team_create_members_if(units, PE_size, 1, &c->id);
    free(units);
    shoal__current_call = call;
    c->transient = err == SHOAL_OK;
    return err;
}

static void shcoll_done(cteam_t *c) {
    const char *call = shoal__current_call;
    if (c->transient) shoal_team_destroy(&c->id);
    shoal__current_call = call;
}

#define SHCOLL_SET_COLL(call, ...)                                                                 \
    do {                                                                                           \
        cteam_t c_;                                                                                \
        if (shcoll_set(PE_start, logPE_stride, PE_size, &c_) == SHOAL_OK) {                        \
            call(&c_, __VA_ARGS__);                                                                \
            shcoll_done(&c_);                                                                      \
        }                                                                                          \
    } while (0)

void shmem__shcoll_barrier(int sync, int PE_start, int logPE_stride, int PE_size) {
    const char *call = shoal__current_call;
    cteam_t c;
    if (shcoll_set(PE_start, logPE_stride, PE_size, &c) != SHOAL_OK) return;
    if (!sync) shmem_quiet(); /* a barrier completes my operations first */
    shoal__current_call = call;
    shoal__team_barrier_selected(c.id);
    shoal__current_call = call;
    shcoll_done(&c);
}

void shmem__shcoll_broadcast(void *dest, const void *source, size_t nelems, size_t esize,
                             int PE_root, int PE_start, int logPE_stride, int PE_size) {
    SHCOLL_SET_COLL(c_broadcast, dest, source, nelems, esize, PE_root, 1);
}

void shmem__shcoll_collect(int fixed, void *dest, const void *source, size_t nelems, size_t esize,
                           int PE_start, int logPE_stride, int PE_size) {
    if (fixed)
        SHCOLL_SET_COLL(c_fcollect, dest, source, nelems, esize);
    else
        SHCOLL_SET_COLL(c_collect, dest, source, nelems, esize);
}

void shmem__shcoll_alltoall(void *dest, const void *source, size_t nelems, size_t esize,
                            int PE_start, int logPE_stride, int PE_size) {
    SHCOLL_SET_COLL(c_alltoall, dest, source, nelems, esize);
}

void shmem__shcoll_alltoalls(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                             size_t nelems, size_t esize, int PE_start, int logPE_stride,
                             int PE_size) {
    SHCOLL_SET_COLL(c_alltoalls, dest, source, dst, sst, nelems, esize);
}

void shmem__shcoll_reduce(void *dest, const void *source, int nreduce, size_t esize, int type,
                          shoal_red_op_t op, int PE_start, int logPE_stride, int PE_size) {
    if (nreduce < 0) {
        shoal__fail(SHOAL_ERR_INVAL, "nreduce %d is negative", nreduce);
        return;
    }
    SHCOLL_SET_COLL(c_reduce, dest, source, (size_t)nreduce, esize, type, op);
}
