/* Node-shared memory: one POSIX shared-memory object per allocation and node, mapped by every
 * unit of the node. Each unit's part starts on a page boundary (Open MPI's shared windows start
 * 264 bytes into a page and copy into them ~35% slower; see MPI-NOTES.md). */
#ifndef SHOAL_XPORT_SHM_H
#define SHOAL_XPORT_SHM_H

#include <mpi.h>
#include <stddef.h>

#include "shoal.h"

typedef struct {
    void *map; /* the whole node mapping in this process (NULL when empty) */
    size_t map_len;
    int node_size;
    char **part_base; /* [node_size] start of each node rank's part in this process */
    size_t *part_len; /* [node_size] requested bytes of each part */
} xport_shm_t;

/* Collective over node_comm (all units of one node): every unit contributes my_bytes (the same
 * everywhere when symmetric, which saves exchanging the sizes). On failure every unit returns the
 * same error and nothing stays mapped. */
shoal_err_t xport_shm_create(MPI_Comm node_comm, size_t my_bytes, int symmetric, xport_shm_t *shm);
void xport_shm_destroy(xport_shm_t *shm);
size_t xport_page_size(void);

#endif
