/* Control words in the members' pools (words.h). */
#include <stdlib.h>
#include <string.h>

#include "pool_alloc.h"
#include "words.h"

shoal_err_t shoal__words_create(team_t *team, size_t bytes, shoal_words_t *w) {
    segment_t *pool = shoal__pool_seg;
    uint64_t mine = 0;
    uint64_t *offs = malloc((size_t)team->size * sizeof *offs);
    shoal_err_t err = SHOAL_OK;
    if (!offs)
        err = shoal__fail(SHOAL_ERR_NOMEM, "out of host memory for control words");
    else if (!pool || pool_alloc_alloc(pool->pool, bytes, &mine) != 0)
        err = shoal__fail(SHOAL_ERR_NOMEM,
                          "no room for %zu bytes of control words in my pool (SHOAL_POOL_SIZE)",
                          bytes);
    else {
        memset(pool->my_base + mine, 0, bytes); /* zero before anybody learns the offset */
        /* MPI atomics will meet these local stores: the unified model's sync between them. */
        if (!pool->atomics_direct) MPI_Win_sync(pool->win);
    }
    shoal_err_t all = shoal__team_agree(team, err, 0, "");
    if (all == SHOAL_OK) {
        int rc = MPI_Allgather(&mine, 1, MPI_UINT64_T, offs, 1, MPI_UINT64_T, team->comm);
        if (rc != MPI_SUCCESS) all = shoal__mpi_fail(rc, "MPI_Allgather (control words)");
    }
    if (all != SHOAL_OK) {
        if (err == SHOAL_OK && pool) pool_alloc_free(pool->pool, mine);
        free(offs);
        return all;
    }
    w->pool = pool;
    w->team = team;
    w->offs = offs;
    return SHOAL_OK;
}

void shoal__words_release(shoal_words_t *w, int give_back) {
    if (!w->offs) return;
    if (give_back && w->pool == shoal__pool_seg && shoal__pool_seg)
        pool_alloc_free(w->pool->pool, w->offs[w->team->myrel]);
    free(w->offs);
    w->offs = NULL;
}
