#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "shm.h"

size_t xport_page_size(void) {
    static size_t page;
    if (!page) page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

/* The kernel's limit on mappings per process (-1 when unknown). */
static long max_map_count(void) {
    long v = -1;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &v) != 1) v = -1;
        fclose(f);
    }
    return v;
}

/* Bytes node shared memory may still take. A memfd is not bounded by /dev/shm's size the way a
 * named object is, and reserving more than the machine has would end in the OOM killer instead of
 * an error: so memfds are held to the same room as /dev/shm (or the free physical memory). */
static size_t shm_room(void) {
    struct statvfs v;
    if (statvfs("/dev/shm", &v) == 0) return (size_t)v.f_bavail * (size_t)v.f_frsize;
    long pages = sysconf(_SC_AVPHYS_PAGES);
    return pages > 0 ? (size_t)pages * xport_page_size() : SIZE_MAX;
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

/* The node's first unit creates the object, every unit maps it and reserves its own part, and the
 * node agrees on the outcome. anonymous: a memfd that peers open through /proc/<pid>/fd (no name
 * anywhere, so a unit killed in the middle leaves nothing behind); else a named POSIX object,
 * unlinked once everybody has it. SHOAL_ERR_UNSUPPORTED (on every unit, nothing reported) when a
 * peer could not open the memfd: call again with anonymous = 0. */
static shoal_err_t share(MPI_Comm node_comm, int rank, const size_t *offsets, xport_shm_t *s,
                         int anonymous) {
    static unsigned long counter;
    char name[64] = {0};
    int fd = -1;
    shoal_err_t err = SHOAL_OK;
    if (rank == 0) {
        if (anonymous) {
            fd = memfd_create("shoal", MFD_CLOEXEC);
            if (fd < 0)
                name[0] = '-'; /* no memfd here: everybody takes the named way */
            else
                snprintf(name, sizeof name, "/proc/%ld/fd/%d", (long)getpid(), fd);
        } else {
            snprintf(name, sizeof name, "/shoal.%ld.%lu", (long)getpid(), counter++);
            fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        }
        if (fd >= 0 && anonymous && s->map_len > shm_room()) {
            close(fd);
            fd = -1;
            errno = ENOSPC;
        }
        if (name[0] != '-' && (fd < 0 || ftruncate(fd, (off_t)s->map_len) != 0)) {
            err = shoal__fail(SHOAL_ERR_NOMEM, "cannot create %zu bytes of shared memory %s: %s",
                              s->map_len, name, strerror(errno));
            if (fd >= 0) {
                close(fd);
                if (!anonymous) shm_unlink(name);
                fd = -1;
            }
            name[0] = '\0';
        }
    }
    int rc = MPI_Bcast(name, sizeof name, MPI_CHAR, 0, node_comm);
    if (rc != MPI_SUCCESS) {
        if (fd >= 0) close(fd);
        return shoal__mpi_fail(rc, "MPI_Bcast");
    }
    if (name[0] == '-') return SHOAL_ERR_UNSUPPORTED;
    if (name[0] == '\0') { /* the first unit said why; the others say so too */
        if (rank != 0)
            err = shoal__fail(SHOAL_ERR_NOMEM,
                              "the node's first unit could not create %zu bytes of shared memory "
                              "(see its message)",
                              s->map_len);
        return err;
    }
    int opened = 1;
    if (rank != 0) {
        fd = anonymous ? open(name, O_RDWR | O_CLOEXEC) : shm_open(name, O_RDWR, 0600);
        opened = fd >= 0;
        if (!opened && !anonymous)
            err = shoal__fail(SHOAL_ERR_NOMEM, "cannot open shared memory %s: %s", name,
                              strerror(errno));
    }
    if (opened) {
        /* Reserve my own part now (first touch by its owner), so exhaustion is an error here
         * and never a SIGBUS later. */
        size_t my_len = offsets[rank + 1] - offsets[rank];
        int frc = !my_len ? 0
                  : anonymous && my_len > shm_room()
                      ? ENOSPC
                      : posix_fallocate(fd, (off_t)offsets[rank], (off_t)my_len);
        if (frc != 0)
            err = shoal__fail(SHOAL_ERR_NOMEM, "cannot reserve %zu bytes of shared memory: %s",
                              my_len, strerror(frc));
        /* after a failed reservation, mapping would only add a second message */
        s->map = frc ? NULL : mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (s->map == MAP_FAILED) {
            s->map = NULL;
            /* ENOMEM here is usually the kernel's cap on mappings per process, one per live
             * allocation: say which setting raises it. */
            err = shoal__fail(SHOAL_ERR_NOMEM,
                              "cannot map %zu bytes of shared memory: %s (each live allocation is "
                              "one mapping; the kernel allows %ld per process, raised by sysctl "
                              "vm.max_map_count)",
                              s->map_len, strerror(errno), max_map_count());
        }
        if (rank != 0) close(fd); /* the mapping keeps the object alive */
    }
    /* The first unit keeps its descriptor (the memfd's only name) until everybody opened it. */
    shoal_err_t all_err = agree(node_comm, opened ? err : SHOAL_ERR_UNSUPPORTED);
    if (rank == 0) {
        close(fd);
        if (!anonymous) shm_unlink(name); /* everybody has it mapped (or failed) */
    }
    if (all_err != SHOAL_OK && s->map) {
        munmap(s->map, s->map_len);
        s->map = NULL;
    }
    return all_err;
}

shoal_err_t xport_shm_create(MPI_Comm node_comm, size_t my_bytes, int symmetric, xport_shm_t *shm) {
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
    else {
        int rc = MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG,
                               node_comm);
        if (rc != MPI_SUCCESS) {
            err = shoal__mpi_fail(rc, "MPI_Allgather");
            goto fail_free; /* nothing leaks on the way out */
        }
    }
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
        /* Without a name first (nothing can be left in /dev/shm when a unit dies mid-way); with
         * a named object when a peer cannot open the first unit's memfd through /proc. */
        err = share(node_comm, rank, offsets, &s, 1);
        if (err == SHOAL_ERR_UNSUPPORTED) err = share(node_comm, rank, offsets, &s, 0);
        if (err != SHOAL_OK) goto fail_free;
        for (int i = 0; i < size; i++) s.part_base[i] = (char *)s.map + offsets[i];
    }
    free(offsets);
    free(all);
    *shm = s;
    return SHOAL_OK;

fail_free:
    free(offsets);
    free(all);
    free(s.part_base);
    free(s.part_len);
    return err == SHOAL_OK ? SHOAL_ERR_NOMEM : err;
}

void xport__shm_adopt_destroy(xport_shm_t *shm); /* shm_adopt.c */

void xport_shm_destroy(xport_shm_t *shm) {
    if (shm->adopted) xport__shm_adopt_destroy(shm);
    if (shm->map) munmap(shm->map, shm->map_len);
    free(shm->part_base);
    free(shm->part_len);
    memset(shm, 0, sizeof *shm);
}
