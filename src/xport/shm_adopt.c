/* Node-shared memory from memory the process already has (xport_shm_adopt in shm.h): each unit
 * shares its own range in place (xport/remap) and maps every node peer's memfd. The OpenSHMEM
 * face uses it for the program's global and static variables, whose addresses the program
 * already holds, and for the symmetric heap, which it places at an aligned address of its own. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "shm.h"

/* The node agrees: the worst (largest) error code wins. */
static shoal_err_t agree_node(MPI_Comm comm, shoal_err_t mine) {
    int in = (int)mine, out = 0;
    if (MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) return SHOAL_ERR_MPI;
    return (shoal_err_t)out;
}

/* Undoes my own part: a fresh range is unmapped (the address range is free again), shared
 * pages become private again with their contents. */
static void release_own(xport_shm_t *s) {
    if (!s->own_shared) return;
    if (s->own_fresh) {
        munmap(s->own.base, s->own.len);
        close(s->own.fd);
    } else {
        remap_unshare(&s->own);
    }
    s->own_shared = 0;
}

shoal_err_t xport_shm_adopt(MPI_Comm node_comm, void *base, size_t len, int fresh, int share,
                            xport_shm_t *shm) {
    int rank, size;
    MPI_Comm_rank(node_comm, &rank);
    MPI_Comm_size(node_comm, &size);
    xport_shm_t s = {0};
    s.adopted = 1;
    s.own_fresh = fresh;
    s.node_size = size;
    s.part_base = calloc((size_t)size, sizeof *s.part_base);
    s.part_len = calloc((size_t)size, sizeof *s.part_len);
    long long *ids = calloc(2 * (size_t)size, sizeof *ids); /* (pid, fd) of every unit */
    shoal_err_t err = (s.part_base && s.part_len && ids) ? SHOAL_OK : SHOAL_ERR_NOMEM;
    if (err != SHOAL_OK) shoal__fail(err, "out of host memory");
    char why[256] = "";
    /* fresh memory is always ours (a memfd, even when no peer maps it), so the range is usable */
    if (err == SHOAL_OK && (share || fresh)) {
        int e = fresh ? remap_create_at("shoal-symmetric", base, len, &s.own, why, sizeof why)
                      : remap_share("shoal-symmetric", base, len, &s.own, why, sizeof why);
        if (e)
            err = shoal__fail(SHOAL_ERR_NOMEM, "cannot share %zu bytes at %p: %s", len, base, why);
        s.own_shared = e == 0;
    }
    err = agree_node(node_comm, err);
    if (err == SHOAL_OK && share) {
        long long me[2] = {(long long)getpid(), (long long)s.own.fd};
        int rc = MPI_Allgather(me, 2, MPI_LONG_LONG, ids, 2, MPI_LONG_LONG, node_comm);
        if (rc != MPI_SUCCESS) err = shoal__mpi_fail(rc, "MPI_Allgather");
        for (int i = 0; err == SHOAL_OK && i < size; i++) {
            if (i == rank) continue;
            s.part_base[i] =
                remap_attach((pid_t)ids[2 * i], (int)ids[2 * i + 1], len, why, sizeof why);
            if (!s.part_base[i])
                err = shoal__fail(SHOAL_ERR_NOMEM, "cannot map node peer %d's memory: %s", i, why);
        }
        err = agree_node(node_comm, err);
    }
    free(ids);
    if (err != SHOAL_OK) {
        for (int i = 0; s.part_base && i < size; i++)
            if (i != rank && s.part_base[i]) remap_detach(s.part_base[i], len);
        release_own(&s);
        free(s.part_base);
        free(s.part_len);
        return err;
    }
    s.part_base[rank] = base;
    s.own_rank = rank;
    for (int i = 0; i < size; i++) s.part_len[i] = len;
    *shm = s;
    return SHOAL_OK;
}

/* Called by xport_shm_destroy for adopted memory: the peers' mappings go, my part is released. */
void xport__shm_adopt_destroy(xport_shm_t *s) {
    for (int i = 0; i < s->node_size; i++)
        if (i != s->own_rank && s->part_base[i]) remap_detach(s->part_base[i], s->part_len[i]);
    release_own(s);
}
