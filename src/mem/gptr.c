/* Global pointer checks, address queries and the per-peer mechanism. */
#include <stdint.h>

#include "pool_alloc.h"
#include "resolve.h"

shoal_err_t shoal__resolve_fail(shoal_gptr_t gp, size_t nbytes) {
    if (gp.segid == 0) return shoal__fail(SHOAL_ERR_GPTR, "NULL global pointer");
    segment_t *s = shoal__segtab[gp.segid];
    if (!s || s->gen != gp.flags)
        return shoal__fail(SHOAL_ERR_GPTR,
                           "global pointer into segment %u (generation %u) that "
                           "is freed or was never allocated here",
                           (unsigned)gp.segid, (unsigned)gp.flags);
    if (gp.unit >= (uint32_t)shoal__rt.nunits)
        return shoal__fail(SHOAL_ERR_UNIT, "unit %u out of range 0..%d", (unsigned)gp.unit,
                           (int)shoal__rt.nunits - 1);
    int32_t rel = s->team->rel_of_abs[gp.unit];
    if (rel < 0)
        return shoal__fail(SHOAL_ERR_UNIT,
                           "unit %u is not a member of team %d, which owns "
                           "segment %u",
                           (unsigned)gp.unit, (int)s->team->id, (unsigned)gp.segid);
    size_t part = shoal__segment_part_size(s, rel);
    if (gp.offset > part || nbytes > part - gp.offset)
        return shoal__fail(SHOAL_ERR_BOUNDS,
                           "%zu bytes at offset %llu reach past the end of unit "
                           "%u's %zu-byte part of segment %u",
                           nbytes, (unsigned long long)gp.offset, (unsigned)gp.unit, part,
                           (unsigned)gp.segid);
    if (s->kind == SEG_POOL && gp.unit == (uint32_t)shoal__rt.myid && nbytes > 0) {
        uint64_t start, len;
        if (pool_alloc_block(s->pool, gp.offset, &start, &len) != 0)
            return shoal__fail(SHOAL_ERR_GPTR,
                               "offset %llu of my pool is not inside a live "
                               "allocation (freed?)",
                               (unsigned long long)gp.offset);
        if (gp.offset + nbytes > start + (len ? len : 0))
            return shoal__fail(SHOAL_ERR_BOUNDS,
                               "%zu bytes at offset %llu reach past the end of "
                               "the %llu-byte allocation at %llu",
                               nbytes, (unsigned long long)gp.offset, (unsigned long long)len,
                               (unsigned long long)start);
    }
    return SHOAL_OK;
}

shoal_err_t shoal_gptr_getaddr(shoal_gptr_t gp, void **addr) {
    SHOAL_ENTER("shoal_gptr_getaddr");
    if (!addr) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    shoal_target_t t = {0};
    SHOAL_TRY(shoal__resolve(gp, 0, &t));
    /* My own memory is always mine to touch, even with the direct path off. */
    if (gp.unit == (uint32_t)shoal__rt.myid)
        *addr = t.seg->my_base ? t.seg->my_base + gp.offset : NULL;
    else
        *addr = t.addr;
    return SHOAL_OK;
}

shoal_err_t shoal_gptr_from_addr(const void *addr, shoal_gptr_t *gp) {
    SHOAL_ENTER("shoal_gptr_from_addr");
    if (!addr || !gp) return shoal__fail(SHOAL_ERR_INVAL, "NULL address or output");
    const char *a = addr;
    for (segment_t *s = shoal__seg_live; s; s = s->next) {
        if (s->kind == SEG_INTERNAL || !s->my_base) continue;
        size_t part = shoal__segment_part_size(s, s->team->myrel);
        if (a >= s->my_base && a < s->my_base + part) {
            *gp =
                (shoal_gptr_t){(uint32_t)shoal__rt.myid, s->id, s->gen, (uint64_t)(a - s->my_base)};
            return SHOAL_OK;
        }
    }
    return shoal__fail(SHOAL_ERR_GPTR, "address %p is not inside any of my global allocations",
                       addr);
}

shoal_err_t shoal_peer_mechanism(shoal_unit_t unit, shoal_mechanism_t *mech) {
    SHOAL_ENTER("shoal_peer_mechanism");
    if (!mech) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    if (unit < 0 || unit >= shoal__rt.nunits)
        return shoal__fail(SHOAL_ERR_UNIT, "unit %d out of range 0..%d", (int)unit,
                           (int)shoal__rt.nunits - 1);
    if (unit == shoal__rt.myid)
        *mech = SHOAL_MECH_SELF;
    else if (shoal__rt.direct && shoal__rt.node_rank_of[unit] >= 0)
        *mech = SHOAL_MECH_SHM;
    else
        *mech = SHOAL_MECH_MPI;
    return SHOAL_OK;
}

const char *shoal_mechanism_name(shoal_mechanism_t mech) {
    switch (mech) {
    case SHOAL_MECH_SELF:
        return "self";
    case SHOAL_MECH_XPMEM:
        return "xpmem";
    case SHOAL_MECH_SHM:
        return "shm";
    case SHOAL_MECH_MPI:
        return "mpi";
    }
    return "unknown";
}

shoal_err_t shoal__resolve_symmetric(shoal_gptr_t gp, size_t nbytes, const char *what,
                                     segment_t **seg) {
    shoal_target_t t = {0};
    SHOAL_TRY(shoal__resolve(gp, nbytes, &t));
    if (t.seg->kind != SEG_COLLECTIVE && t.seg->kind != SEG_ADOPTED)
        return shoal__fail(SHOAL_ERR_GPTR,
                           "%s is not in a symmetric allocation (shoal_team_memalloc, OpenSHMEM "
                           "symmetric memory): a pool block has no counterpart on the other "
                           "members",
                           what);
    *seg = t.seg;
    return SHOAL_OK;
}

shoal_err_t shoal__resolve_symmetric_member(shoal_gptr_t gp, size_t nbytes, const char *what,
                                            segment_t **seg) {
    /* Fast path (every fence enters here): a live symmetric allocation of a team with both the
     * pointer's unit and me, the range inside its part. Anything else takes the full checks
     * below, which name what is wrong. */
    segment_t *s = shoal__segtab[gp.segid];
    if (__builtin_expect(s && s->gen == gp.flags && gp.unit < (uint32_t)shoal__rt.nunits &&
                             (s->kind == SEG_COLLECTIVE || s->kind == SEG_ADOPTED),
                         1)) {
        int32_t rel = s->team->rel_of_abs[gp.unit];
        if (rel >= 0 && s->team->rel_of_abs[shoal__rt.myid] >= 0) {
            size_t part = shoal__segment_part_size(s, rel);
            if (gp.offset <= part && nbytes <= part - gp.offset) {
                *seg = s;
                return SHOAL_OK;
            }
        }
    }
    s = NULL;
    SHOAL_TRY(shoal__resolve_symmetric(gp, nbytes, what, &s));
    if (s->team->rel_of_abs[shoal__rt.myid] < 0)
        return shoal__fail(SHOAL_ERR_TEAM, "unit %d is not a member of the allocation's team %d",
                           (int)shoal__rt.myid, (int)s->team->id);
    *seg = s;
    return SHOAL_OK;
}
