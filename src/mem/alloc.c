/* Public allocation calls: collective symmetric allocations (one segment each) and
 * non-collective blocks from my pool segment. */
#include <errno.h>

#include "pool_alloc.h"
#include "resolve.h"

shoal_err_t shoal_team_memalloc(shoal_team_t team, size_t nbytes, shoal_gptr_t *gp) {
    SHOAL_ENTER("shoal_team_memalloc");
    team_t *t = NULL;
    SHOAL_TRY(shoal__team_get(team, &t));
    /* A NULL output on one member fails every member (the others would wait in the creation). */
    SHOAL_TRY(
        shoal__team_agree(t, gp ? SHOAL_OK : shoal__fail(SHOAL_ERR_INVAL, "NULL output"), 0, ""));
    segment_t *s = NULL;
    SHOAL_TRY(shoal__segment_create(t, nbytes, SEG_COLLECTIVE, &s));
    *gp = (shoal_gptr_t){(uint32_t)shoal__rt.myid, s->id, s->gen, 0};
    return SHOAL_OK;
}

shoal_err_t shoal_team_memfree(shoal_gptr_t gp) {
    SHOAL_ENTER("shoal_team_memfree");
    shoal_target_t t = {0};
    /* A pointer that resolves to nothing names no team to agree with: only this unit fails. */
    SHOAL_TRY(shoal__resolve(gp, 0, &t));
    if (t.seg->kind == SEG_ADOPTED)
        return shoal__fail(SHOAL_ERR_GPTR, "OpenSHMEM symmetric memory (shmem_malloc's heap or "
                                           "global variables): shmem_free frees heap blocks");
    if (t.seg->kind != SEG_COLLECTIVE)
        return shoal__fail(SHOAL_ERR_GPTR, "not a collective allocation (use shoal_memfree for "
                                           "pool blocks)");
    /* Collective over the segment's team: every member frees the same allocation, or none does
     * (a member passing another allocation of the team, or a bad offset, fails them all). */
    shoal_err_t mine = SHOAL_OK;
    if (gp.offset != 0)
        mine =
            shoal__fail(SHOAL_ERR_GPTR, "pointer at offset %llu is not the start of the allocation",
                        (unsigned long long)gp.offset);
    SHOAL_TRY(
        shoal__team_agree(t.seg->team, mine, (uint64_t)gp.segid << 16 | gp.flags, "allocations"));
    SHOAL_TRY(shoal__segments_flush(-1)); /* nothing may still be in flight into it */
    return shoal__segment_free(t.seg);
}

static segment_t *my_pool(void) {
    return shoal__pool_seg;
}

shoal_err_t shoal_memalloc(size_t nbytes, shoal_gptr_t *gp) {
    SHOAL_ENTER("shoal_memalloc");
    if (!gp) return shoal__fail(SHOAL_ERR_INVAL, "NULL output");
    segment_t *s = my_pool();
    uint64_t off;
    int rc = pool_alloc_alloc(s->pool, nbytes, &off);
    if (rc == -ENOMEM)
        return shoal__fail(SHOAL_ERR_NOMEM,
                           "no free block of %zu bytes in my pool (%llu of %zu "
                           "bytes free, largest %llu; see SHOAL_POOL_SIZE)",
                           nbytes, (unsigned long long)pool_alloc_bytes_free(s->pool), s->size,
                           (unsigned long long)pool_alloc_largest_free(s->pool));
    if (rc) return shoal__fail(SHOAL_ERR_INVAL, "cannot allocate %zu bytes", nbytes);
    *gp = (shoal_gptr_t){(uint32_t)shoal__rt.myid, s->id, s->gen, off};
    return SHOAL_OK;
}

shoal_err_t shoal_memfree(shoal_gptr_t gp) {
    SHOAL_ENTER("shoal_memfree");
    shoal_target_t t = {0};
    SHOAL_TRY(shoal__resolve(gp, 0, &t));
    if (t.seg->kind != SEG_POOL)
        return shoal__fail(SHOAL_ERR_GPTR, "not a pool block (use shoal_team_memfree for "
                                           "collective allocations)");
    if (gp.unit != (uint32_t)shoal__rt.myid)
        return shoal__fail(SHOAL_ERR_UNIT, "the block belongs to unit %u: only its owner frees it",
                           (unsigned)gp.unit);
    if (pool_alloc_free(t.seg->pool, gp.offset) != 0)
        return shoal__fail(SHOAL_ERR_STATE,
                           "offset %llu is not the start of a live block (freed "
                           "twice?)",
                           (unsigned long long)gp.offset);
    return SHOAL_OK;
}

shoal_err_t shoal_pool_info(size_t *total, size_t *free_bytes) {
    SHOAL_ENTER("shoal_pool_info");
    if (!total && !free_bytes) return shoal__fail(SHOAL_ERR_INVAL, "NULL outputs");
    segment_t *s = my_pool();
    if (total) *total = s->size;
    if (free_bytes) *free_bytes = (size_t)pool_alloc_bytes_free(s->pool);
    return SHOAL_OK;
}
