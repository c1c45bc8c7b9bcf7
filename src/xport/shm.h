/* Node-shared memory: one POSIX shared-memory object per allocation and node, mapped by every
 * unit of the node. Each unit's part starts on a page boundary (Open MPI's shared windows start
 * 264 bytes into a page and copy into them ~35% slower; see MPI-NOTES.md). */
#ifndef SHOAL_XPORT_SHM_H
#define SHOAL_XPORT_SHM_H

#include <mpi.h>
#include <stddef.h>

#include "remap.h"
#include "shoal.h"

typedef struct {
    void *map; /* the whole node mapping in this process (NULL when empty) */
    size_t map_len;
    int node_size;
    char **part_base; /* [node_size] start of each node rank's part in this process */
    size_t *part_len; /* [node_size] requested bytes of each part */
    /* Adopted memory (xport_shm_adopt): my part is memory the program already has, shared in
     * place; each peer's part is a mapping of its own (map is NULL). */
    int adopted;
    int own_rank;   /* my index in part_base */
    int own_shared; /* my part is a memfd of ours (remap), peers may map it */
    int own_fresh;  /* my part was created by us (unmapped at destroy), else restored private */
    remap_region_t own;
} xport_shm_t;

/* Collective over node_comm (all units of one node): every unit contributes my_bytes (the same
 * everywhere when symmetric, which saves exchanging the sizes). On failure every unit returns the
 * same error and nothing stays mapped. */
shoal_err_t xport_shm_create(MPI_Comm node_comm, size_t my_bytes, int symmetric, xport_shm_t *shm);
/* Collective over node_comm: the same, for memory that exists in this process at [base, base +
 * len) (page aligned, len the same on every unit of the node). fresh: the range is a reservation
 * of ours (PROT_NONE or unused anonymous memory) and becomes new zeroed shared memory; else its
 * pages (the program's data, say) are shared in place with their contents (xport/remap). share
 * = 0 maps nothing of the peers and leaves the range as it is (the direct path is off). On
 * failure every unit returns the same error and the range is as before. */
shoal_err_t xport_shm_adopt(MPI_Comm node_comm, void *base, size_t len, int fresh, int share,
                            xport_shm_t *shm);
void xport_shm_destroy(xport_shm_t *shm);
size_t xport_page_size(void);

#endif
