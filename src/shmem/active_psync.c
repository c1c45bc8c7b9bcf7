/* Active-set collectives on the program's pSync (active_psync.h says when and why).
 *
 * The pSync words used, all at SHMEM_SYNC_VALUE (all bits set, as a 64-bit signal word) between
 * calls:
 *   ARRIVE  at member 0: one is added per other member that reached the agreement;
 *   VERDICT at member 0: a member that rejected its arguments clears bit <its error code>;
 *   RELEASE at the other members: member 0 writes the agreed verdict (0: every member accepted);
 *   DATA    at every member: one is added (or set) per block that has arrived;
 *   OFFSET  at members 1..n-1 (collect): where my block starts in dest, from my predecessor.
 * A counter that starts at SHMEM_SYNC_VALUE holds k - 1 after k additions (it wraps), so "k
 * arrived" is an equality. Whoever resets a word (back to SHMEM_SYNC_VALUE) is its owner, after
 * the last addition it can receive in this call: member 0 resets ARRIVE and VERDICT before it
 * releases anybody, so nobody's next arrival can come before the reset. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "active_psync.h"
#include "coll/coll.h"
#include "shmem_internal.h"

enum { SLOT_ARRIVE, SLOT_VERDICT, SLOT_RELEASE, SLOT_DATA, SLOT_OFFSET };
#define SYNC ((uint64_t)SHMEM_SYNC_VALUE)

/* Bytes pulled per get in a reduction. */
#define PULL_CHUNK ((size_t)64 << 10)

static int world(const aset_sync_t *s, int member) {
    return s->start + member * s->stride;
}

/* The pSync word `slot` of member `member`; base is my own pSync[0]. */
static shoal_gptr_t slot_of(shoal_gptr_t base, int slot, int world_pe) {
    return shoal_gptr_setunit(shoal_gptr_add(base, (int64_t)slot * (int64_t)sizeof(long)),
                              (shoal_unit_t)world_pe);
}
static shoal_gptr_t my_slot(const aset_sync_t *s, shoal_gptr_t base, int slot) {
    return slot_of(base, slot, world(s, s->my_pe));
}

/* My pSync as a global pointer: it must be a symmetric array of SHMEM_SYNC_SIZE longs. */
static shoal_err_t psync_base(const aset_sync_t *s, shoal_gptr_t *base) {
    if (!shmem__region_of(s->psync, SHMEM_SYNC_SIZE * sizeof(long)))
        return shoal__fail(SHOAL_ERR_GPTR,
                           "pSync (%p) is not a symmetric array of SHMEM_SYNC_SIZE (%d) longs: "
                           "this active set has no team of its own (SHOAL_SHMEM_ACTIVE_SET_TEAMS) "
                           "and synchronises on pSync",
                           (void *)s->psync, SHMEM_SYNC_SIZE);
    return shmem__gptr(s->psync, SHMEM_SYNC_SIZE * sizeof(long), (int)shoal__rt.myid, base);
}

/* Waits until count additions have reached my counter word, and puts it back to
 * SHMEM_SYNC_VALUE. More additions than that mean another active set (or another call) uses the
 * same pSync at the same time, which 1.5 does not allow ("reuse a pSync array if all previous
 * collective routines using the pSync array have completed on all participating PEs"; barrier and
 * sync: with the same active set): reported, instead of a wait that can never end. */
static shoal_err_t wait_count(const aset_sync_t *s, shoal_gptr_t mine, int count) {
    const char *call = shoal__current_call;
    uint64_t seen = SYNC;
    shoal_err_t err = SHOAL_OK;
    while (err == SHOAL_OK && seen - SYNC != (uint64_t)count) {
        err = shoal_signal_wait_until(mine, SHOAL_CMP_NE, seen, &seen);
        shoal__current_call = call;
        if (err == SHOAL_OK && seen - SYNC > (uint64_t)count)
            err = shoal__fail(SHOAL_ERR_STATE,
                              "pSync (%p) of the active set (PE_start %d, stride %d, PE_size %d) "
                              "counted %llu additions where %d were due: another active set or "
                              "call is using the same pSync at the same time (1.5 lets a pSync be "
                              "reused only once every PE has completed the collective that used "
                              "it; barriers and syncs: with the same active set)",
                              (void *)s->psync, s->start, s->stride, s->n_pes,
                              (unsigned long long)(seen - SYNC), count);
    }
    shoal_err_t reset = shoal_signal(mine, SYNC, SHOAL_SIGNAL_SET);
    return err != SHOAL_OK ? err : reset;
}

/* Waits until my word reaches value, then puts it back to SHMEM_SYNC_VALUE. */
static shoal_err_t wait_and_reset(shoal_gptr_t mine, shoal_cmp_t cmp, uint64_t value,
                                  uint64_t *seen) {
    shoal_err_t err = shoal_signal_wait_until(mine, cmp, value, seen);
    if (err == SHOAL_OK) err = shoal_signal(mine, SYNC, SHOAL_SIGNAL_SET);
    return err;
}

/* The agreement on my pSync, whose global pointer is base. */
static shoal_err_t agree_at(const aset_sync_t *s, shoal_gptr_t base, shoal_err_t mine) {
    if (s->n_pes == 1) return mine;
    shoal_err_t err = SHOAL_OK;
    const char *call = shoal__current_call;
    const int first = world(s, 0);
    uint64_t verdict = 0;
    if (s->my_pe == 0) {
        shoal_gptr_t arrive = my_slot(s, base, SLOT_ARRIVE), bits = my_slot(s, base, SLOT_VERDICT);
        uint64_t cleared = SYNC;
        /* every member cleared its VERDICT bit before it arrived */
        shoal_err_t counted = wait_count(s, arrive, s->n_pes - 1);
        err = shoal_signal_read(bits, &cleared);
        if (err == SHOAL_OK && cleared != SYNC) err = shoal_signal(bits, SYNC, SHOAL_SIGNAL_SET);
        if (counted != SHOAL_OK) { /* the members of this set fail with me rather than wait */
            if (mine == SHOAL_OK) mine = counted;
            err = SHOAL_OK;
        }
        uint64_t rejected = ~cleared | (mine != SHOAL_OK ? 1ull << ((unsigned)mine & 63) : 0);
        verdict = rejected ? 63u - (uint64_t)__builtin_clzll(rejected) : 0; /* the highest code */
        for (int k = 1; k < s->n_pes && err == SHOAL_OK; k++)
            err = shoal_signal(slot_of(base, SLOT_RELEASE, world(s, k)), verdict, SHOAL_SIGNAL_SET);
    } else {
        if (mine != SHOAL_OK) {
            uint64_t clear = ~(1ull << ((unsigned)mine & 63));
            shoal_gptr_t bits = slot_of(base, SLOT_VERDICT, first);
            err = shoal_atomic_op(bits, SHOAL_OP_BAND, SHOAL_UINT64, &clear);
            if (err == SHOAL_OK) err = shoal_flush(bits); /* before my arrival is counted */
        }
        if (err == SHOAL_OK)
            err = shoal_signal(slot_of(base, SLOT_ARRIVE, first), 1, SHOAL_SIGNAL_ADD);
        if (err == SHOAL_OK)
            err = wait_and_reset(my_slot(s, base, SLOT_RELEASE), SHOAL_CMP_NE, SYNC, &verdict);
    }
    shoal__current_call = call;
    if (mine != SHOAL_OK) return mine;
    if (err != SHOAL_OK) return err;
    if (verdict)
        return shoal__fail((shoal_err_t)verdict,
                           "another PE of the active set (PE_start %d, stride %d, PE_size %d) "
                           "rejected its arguments or found an error (see its message)",
                           s->start, s->stride, s->n_pes);
    return SHOAL_OK;
}

shoal_err_t aset_agree(const aset_sync_t *s, shoal_err_t mine) {
    if (s->n_pes == 1) return mine;
    shoal_gptr_t base;
    shoal_err_t err = psync_base(s, &base);
    if (err != SHOAL_OK) return mine != SHOAL_OK ? mine : err;
    return agree_at(s, base, mine);
}

/* My pSync's global pointer (for the data phase too), then the agreement. */
static shoal_err_t enter(const aset_sync_t *s, shoal_err_t mine, shoal_gptr_t *base) {
    shoal_err_t err = psync_base(s, base);
    if (err != SHOAL_OK) return mine != SHOAL_OK ? mine : err;
    return agree_at(s, *base, mine);
}

/* Waits for count blocks announced on my DATA word, and resets it. */
static shoal_err_t wait_blocks(const aset_sync_t *s, shoal_gptr_t base, int count) {
    if (count == 0) return SHOAL_OK;
    return wait_count(s, my_slot(s, base, SLOT_DATA), count);
}

/* Puts nbytes to member k's dest (at offset) and adds one to its DATA word; only the signal when
 * there are no bytes. */
static shoal_err_t put_block(const aset_sync_t *s, shoal_gptr_t base, shoal_gptr_t dest, int k,
                             size_t offset, const void *src, size_t nbytes) {
    shoal_gptr_t sig = slot_of(base, SLOT_DATA, world(s, k));
    if (!nbytes) return shoal_signal(sig, 1, SHOAL_SIGNAL_ADD);
    shoal_gptr_t to =
        shoal_gptr_add(shoal_gptr_setunit(dest, (shoal_unit_t)world(s, k)), (int64_t)offset);
    return shoal_put_signal(to, src, nbytes, sig, 1, SHOAL_SIGNAL_ADD);
}

static shoal_err_t put_own(const aset_sync_t *s, shoal_gptr_t dest, size_t offset, const void *src,
                           size_t nbytes) {
    if (!nbytes) return SHOAL_OK;
    shoal_gptr_t to =
        shoal_gptr_add(shoal_gptr_setunit(dest, (shoal_unit_t)world(s, s->my_pe)), (int64_t)offset);
    return shoal_put(to, src, nbytes);
}

shoal_err_t aset_broadcast(const aset_sync_t *s, shoal_err_t mine, shoal_gptr_t dest,
                           const void *source, size_t nbytes, int root) {
    shoal_gptr_t base;
    shoal_err_t err = enter(s, mine, &base);
    if (err != SHOAL_OK || s->n_pes == 1) return err;
    if (s->my_pe != root) /* one block, from the root; the root's dest is left alone */
        return wait_blocks(s, base, 1);
    for (int r = 1; r < s->n_pes && err == SHOAL_OK; r++)
        err = put_block(s, base, dest, (root + r) % s->n_pes, 0, source, nbytes);
    return err;
}

/* fcollect and alltoall: member k's block for j goes to j's dest at k * nbytes; for fcollect
 * every block for j is my whole source, for alltoall the j-th nbytes of it. */
static shoal_err_t exchange(const aset_sync_t *s, shoal_err_t mine, shoal_gptr_t dest,
                            const void *source, size_t nbytes, int personalised) {
    shoal_gptr_t base;
    shoal_err_t err = enter(s, mine, &base);
    if (err != SHOAL_OK) return err;
    const char *src = source;
    const size_t at = (size_t)s->my_pe * nbytes;
    err = put_own(s, dest, at, personalised ? src + at : src, nbytes);
    for (int r = 1; r < s->n_pes && err == SHOAL_OK; r++) { /* me + 1 first: no hot spot */
        int k = (s->my_pe + r) % s->n_pes;
        err =
            put_block(s, base, dest, k, at, personalised ? src + (size_t)k * nbytes : src, nbytes);
    }
    shoal_err_t w = wait_blocks(s, base, s->n_pes - 1);
    return err != SHOAL_OK ? err : w;
}

shoal_err_t aset_fcollect(const aset_sync_t *s, shoal_err_t mine, shoal_gptr_t dest,
                          const void *source, size_t nbytes) {
    return exchange(s, mine, dest, source, nbytes, 0);
}

shoal_err_t aset_alltoall(const aset_sync_t *s, shoal_err_t mine, shoal_gptr_t dest,
                          const void *source, size_t nbytes) {
    return exchange(s, mine, dest, source, nbytes, 1);
}

/* collect: member k's block starts where k - 1's ends. The offsets pass down the members (each
 * adds its size and tells the next), every member checks that its block fits in dest, and a
 * second agreement fails every member if one does not; then every block goes everywhere. */
shoal_err_t aset_collect(const aset_sync_t *s, shoal_err_t mine, shoal_gptr_t dest,
                         const void *source, size_t nbytes) {
    shoal_gptr_t base;
    shoal_err_t err = enter(s, mine, &base);
    if (err != SHOAL_OK) return err;
    uint64_t at = 0;
    if (s->my_pe > 0) err = wait_and_reset(my_slot(s, base, SLOT_OFFSET), SHOAL_CMP_NE, SYNC, &at);
    if (err == SHOAL_OK && s->my_pe + 1 < s->n_pes)
        err = shoal_signal(slot_of(base, SLOT_OFFSET, world(s, s->my_pe + 1)), at + nbytes,
                           SHOAL_SIGNAL_SET);
    /* dest is my part of a symmetric object: the same room on every member */
    const shmem_region_t *regions[2] = {&shmem__heap, &shmem__data};
    for (int i = 0; i < 2 && err == SHOAL_OK; i++) {
        const shmem_region_t *r = regions[i];
        if (!r->seg || r->seg->id != dest.segid) continue;
        if (dest.offset + at + nbytes > r->size)
            err = shoal__fail(SHOAL_ERR_BOUNDS,
                              "dest: the blocks before mine (%llu bytes) and mine (%zu) run past "
                              "the end of the symmetric %s",
                              (unsigned long long)at, nbytes, i ? "global variables" : "heap");
    }
    err = agree_at(s, base, err);
    if (err != SHOAL_OK) return err;
    err = put_own(s, dest, (size_t)at, source, nbytes);
    for (int r = 1; r < s->n_pes && err == SHOAL_OK; r++)
        err = put_block(s, base, dest, (s->my_pe + r) % s->n_pes, (size_t)at, source, nbytes);
    shoal_err_t w = wait_blocks(s, base, s->n_pes - 1);
    return err != SHOAL_OK ? err : w;
}

shoal_err_t aset_alltoalls(const aset_sync_t *s, shoal_err_t mine, shoal_gptr_t dest,
                           const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                           size_t esize) {
    shoal_gptr_t base;
    shoal_err_t err = enter(s, mine, &base);
    if (err != SHOAL_OK) return err;
    const size_t dstep = (size_t)dst * esize, sstep = (size_t)sst * esize;
    for (int r = 0; r < s->n_pes && err == SHOAL_OK; r++) {
        int k = (s->my_pe + r) % s->n_pes;
        shoal_gptr_t to = shoal_gptr_add(shoal_gptr_setunit(dest, (shoal_unit_t)world(s, k)),
                                         (int64_t)((size_t)s->my_pe * nelems * dstep));
        const char *from = (const char *)source + (size_t)k * nelems * sstep;
        err = shmem__put_strided_any(to, dstep, from, sstep, esize, nelems);
        if (err != SHOAL_OK || r == 0) continue;
        err = shoal_flush(to); /* the block is there before its signal */
        if (err == SHOAL_OK)
            err = shoal_signal(slot_of(base, SLOT_DATA, world(s, k)), 1, SHOAL_SIGNAL_ADD);
    }
    shoal_err_t w = wait_blocks(s, base, s->n_pes - 1);
    return err != SHOAL_OK ? err : w;
}

/* acc[i] = acc[i] op in[i] for n elements. */
static void combine(void *acc, const void *in, size_t n, shoal_type_t type, shoal_red_op_t op,
                    size_t complex_prod) {
    if (complex_prod == sizeof(double _Complex)) {
        double _Complex *a = acc;
        const double _Complex *b = in;
        for (size_t i = 0; i < n; i++) a[i] *= b[i];
    } else if (complex_prod == sizeof(float _Complex)) {
        float _Complex *a = acc;
        const float _Complex *b = in;
        for (size_t i = 0; i < n; i++) a[i] *= b[i];
    } else {
        coll_reduce_local(acc, in, n, type, op);
    }
}

/* Every member pulls every member's source in member order and combines into a private
 * accumulator (O(n p) bytes per member, and bit-identical results everywhere); a second agreement
 * says everybody has finished reading, and only then is dest written (it may be source). */
shoal_err_t aset_reduce(const aset_sync_t *s, shoal_err_t mine, void *dest, shoal_gptr_t source,
                        size_t n, shoal_type_t type, shoal_red_op_t op, size_t complex_prod) {
    shoal_err_t err = aset_agree(s, mine);
    if (err != SHOAL_OK) return err;
    const size_t esize = complex_prod ? complex_prod : shoal_type_size(type);
    const size_t nbytes = n * esize, chunk = PULL_CHUNK / esize * esize;
    char *acc = malloc(nbytes), *buf = malloc(nbytes < chunk ? nbytes : chunk);
    if (!acc || !buf)
        err = shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for %zu bytes of reduction", nbytes);
    for (int r = 0; r < s->n_pes && err == SHOAL_OK; r++) {
        shoal_gptr_t from = shoal_gptr_setunit(source, (shoal_unit_t)world(s, r));
        for (size_t off = 0; off < nbytes && err == SHOAL_OK; off += chunk) {
            size_t len = nbytes - off < chunk ? nbytes - off : chunk;
            err = shoal_get(r == 0 ? acc + off : buf, shoal_gptr_add(from, (int64_t)off), len);
            if (err == SHOAL_OK && r > 0)
                combine(acc + off, buf, len / esize, type, op, complex_prod);
        }
    }
    err = aset_agree(s, err);
    if (err == SHOAL_OK) shoal__copy(dest, acc, nbytes);
    free(acc);
    free(buf);
    return err;
}
