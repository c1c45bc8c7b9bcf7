#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "shm.h"

size_t xport_page_size(void) {
    static size_t page;
    if (!page) page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

static size_t round_to_page(size_t n) {
    size_t p = xport_page_size();
    return (n + p - 1) / p * p;
}

/* Agrees on a result over the node: the worst (largest) error code wins. */
static shoal_err_t agree(MPI_Comm comm, shoal_err_t mine) {
    int in = (int)mine, out = 0;
    if (MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) return SHOAL_ERR_MPI;
    return (shoal_err_t)out;
}

shoal_err_t xport_shm_create(MPI_Comm node_comm, size_t my_bytes, int symmetric, xport_shm_t *shm) {
    static unsigned long counter;
    int rank, size;
    MPI_Comm_rank(node_comm, &rank);
    MPI_Comm_size(node_comm, &size);

    xport_shm_t s = {0};
    s.node_size = size;
    s.part_base = calloc((size_t)size, sizeof *s.part_base);
    s.part_len = calloc((size_t)size, sizeof *s.part_len);
    size_t *offsets = calloc((size_t)size + 1, sizeof *offsets);
    unsigned long long mine = my_bytes, *all = calloc((size_t)size, sizeof *all);
    shoal_err_t err = (s.part_base && s.part_len && offsets && all) ? SHOAL_OK : SHOAL_ERR_NOMEM;
    if (agree(node_comm, err) != SHOAL_OK) goto fail_free;
    if (symmetric)
        for (int i = 0; i < size; i++) all[i] = mine;
    else
        SHOAL_MPI(MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG,
                                node_comm));
    /* Every member of the node computes the same layout, so all refuse a size too large for it
     * alike (rounding SIZE_MAX up to a page wraps to 0, which mapped nothing). */
    const size_t limit = PTRDIFF_MAX; /* ftruncate's off_t and MPI's displacements are signed */
    int too_big = 0;
    for (int i = 0; i < size; i++) {
        s.part_len[i] = (size_t)all[i];
        if (all[i] > limit || round_to_page((size_t)all[i]) > limit - offsets[i])
            too_big = 1;
        else
            offsets[i + 1] = offsets[i] + round_to_page((size_t)all[i]);
    }
    if (too_big) {
        err = shoal__fail(SHOAL_ERR_NOMEM,
                          "cannot allocate %zu bytes: the node's parts together would exceed the "
                          "address space",
                          my_bytes);
        goto fail_free;
    }
    s.map_len = offsets[size];

    if (s.map_len > 0) {
        /* The node's first unit names and creates the object; everybody maps it. */
        char name[64] = {0};
        int fd = -1;
        if (rank == 0) {
            snprintf(name, sizeof name, "/shoal.%ld.%lu", (long)getpid(), counter);
            fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
            if (fd < 0 || ftruncate(fd, (off_t)s.map_len) != 0) {
                err =
                    shoal__fail(SHOAL_ERR_NOMEM, "cannot create %zu bytes of shared memory %s: %s",
                                s.map_len, name, strerror(errno));
                if (fd >= 0) {
                    close(fd);
                    shm_unlink(name);
                    fd = -1;
                }
                name[0] = '\0';
            }
        }
        counter++;
        SHOAL_MPI(MPI_Bcast(name, sizeof name, MPI_CHAR, 0, node_comm));
        if (name[0] == '\0') { /* the first unit said why; the others say so too */
            if (rank != 0)
                err = shoal__fail(SHOAL_ERR_NOMEM,
                                  "the node's first unit could not create %zu "
                                  "bytes of shared memory (see its message)",
                                  s.map_len);
            goto fail_free;
        }
        if (rank != 0) fd = shm_open(name, O_RDWR, 0600);
        if (fd >= 0) {
            /* Reserve my own part now (first touch by its owner), so exhaustion is an error here
             * and never a SIGBUS later. */
            size_t my_len = offsets[rank + 1] - offsets[rank];
            int rc = my_len ? posix_fallocate(fd, (off_t)offsets[rank], (off_t)my_len) : 0;
            if (rc != 0)
                err = shoal__fail(SHOAL_ERR_NOMEM, "cannot reserve %zu bytes of shared memory: %s",
                                  my_len, strerror(rc));
            /* after a failed reservation, mapping would only add a second message */
            s.map = rc ? NULL : mmap(NULL, s.map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (s.map == MAP_FAILED) {
                s.map = NULL;
                err = shoal__fail(SHOAL_ERR_NOMEM, "cannot map %zu bytes of shared memory: %s",
                                  s.map_len, strerror(errno));
            }
            close(fd); /* the mapping keeps the object alive */
        } else {
            err = shoal__fail(SHOAL_ERR_NOMEM, "cannot open shared memory %s: %s", name,
                              strerror(errno));
        }
        shoal_err_t all_err = agree(node_comm, err);
        if (rank == 0) shm_unlink(name); /* everybody has it mapped (or failed): drop the name */
        if (all_err != SHOAL_OK) {
            err = all_err;
            goto fail_unmap;
        }
        for (int i = 0; i < size; i++) s.part_base[i] = (char *)s.map + offsets[i];
    }
    free(offsets);
    free(all);
    *shm = s;
    return SHOAL_OK;

fail_unmap:
    if (s.map) munmap(s.map, s.map_len);
fail_free:
    free(offsets);
    free(all);
    free(s.part_base);
    free(s.part_len);
    return err == SHOAL_OK ? SHOAL_ERR_NOMEM : err;
}

void xport_shm_destroy(xport_shm_t *shm) {
    if (shm->map) munmap(shm->map, shm->map_len);
    free(shm->part_base);
    free(shm->part_len);
    memset(shm, 0, sizeof *shm);
}
