/* Channels with each neighbour (np 2: the other process; np >= 3: left and right on a ring), data
 * moved both ways through the counters, every byte checked against a reference:
 *   mode 0: each process writes its own buffer, the peer reads it in place through attached_addrs;
 *   mode 1: each process writes the peer's buffer through attached_addrs, the owner reads it.
 * Buffers come from malloc (not page aligned), posix_memalign and mmap. */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "zcom_testlib.h"

#define ROUNDS 100

static size_t pair_size(int a, int b) {
    return 1000 + 517 * (size_t)(a + b) + 4096 * (a * b % 3);
}

static unsigned char pattern(int writer, int round, size_t i) {
    return (unsigned char)(writer * 31 + round * 7 + i * 13 + (i >> 8));
}

int main(int argc, char **argv) {
    zt_init(&argc, &argv, "test_zcom_basic");
    int n = zt_size == 1 ? 0 : (zt_size == 2 ? 1 : 2);
    int targets[2] = {(zt_rank + zt_size - 1) % zt_size, (zt_rank + 1) % zt_size};
    if (n == 1) targets[0] = 1 - zt_rank;
    void *bufs[2], *attached[2] = {0};
    size_t sizes[2];
    int ids[2], kinds[2];
    for (int i = 0; i < n; i++) {
        sizes[i] = pair_size(zt_rank, targets[i]);
        kinds[i] = (zt_rank + i) % 3;
        if (kinds[i] == 0) {
            bufs[i] = malloc(sizes[i]);
        } else if (kinds[i] == 1) {
            if (posix_memalign(&bufs[i], 4096, sizes[i])) bufs[i] = NULL;
        } else {
            bufs[i] =
                mmap(NULL, sizes[i], PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        }
        memset(bufs[i], 0xEE, sizes[i]);
    }
    int fds_before = zt_count_fds();
    int err = -1;
    ZCom_init_c(bufs, sizes, MPI_COMM_WORLD, targets, n, attached, ids, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "ZCom_init_c: %s", ZCom_strerror(err));
    if (err) return zt_finish();
    for (int i = 0; i < n; i++) {
        /* The contents survived the remapping, and the peer's buffer is visible as it was. */
        ZT_CHECK(((unsigned char *)bufs[i])[0] == 0xEE &&
                     ((unsigned char *)bufs[i])[sizes[i] - 1] == 0xEE,
                 "buffer %d lost its contents at init", i);
        ZT_CHECK(attached[i] != NULL, "attached_addrs[%d] is NULL", i);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        ZT_CHECK(((unsigned char *)attached[i])[0] == 0xEE, "peer buffer %d not as initialised", i);
    MPI_Barrier(MPI_COMM_WORLD);

    for (int mode = 0; mode < 2; mode++) {
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < n; i++) {
                ZT_CHECK(zt_wait(ZCom_can_write_c, ids[i]), "mode %d round %d: can_write timed out",
                         mode, round);
                unsigned char *dst = mode == 0 ? bufs[i] : attached[i];
                for (size_t k = 0; k < sizes[i]; k++) dst[k] = pattern(zt_rank, round, k);
                ZCom_have_written_c(ids[i], &err);
                ZT_CHECK(err == 0, "have_written: %s", ZCom_strerror(err));
            }
            for (int i = 0; i < n; i++) {
                ZT_CHECK(zt_wait(ZCom_can_read_c, ids[i]), "mode %d round %d: can_read timed out",
                         mode, round);
                const unsigned char *src = mode == 0 ? attached[i] : bufs[i];
                size_t bad = 0;
                for (size_t k = 0; k < sizes[i]; k++)
                    if (src[k] != pattern(targets[i], round, k)) bad++;
                ZT_CHECK(bad == 0, "mode %d round %d: %zu wrong bytes from rank %d", mode, round,
                         bad, targets[i]);
                ZCom_have_read_c(ids[i], &err);
                ZT_CHECK(err == 0, "have_read: %s", ZCom_strerror(err));
            }
            if (zt_fails) break;
        }
        /* Between modes: the last round has been read by the peers. */
        for (int i = 0; i < n; i++) ZT_CHECK(zt_wait(ZCom_can_write_c, ids[i]), "drain");
    }
    /* All quiet: nothing to read, everything read. */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) {
        int r = ZCom_can_read_c(ids[i], &err), w = ZCom_can_write_c(ids[i], &err);
        ZT_CHECK(r == 0 && w == 1, "at the end: can_read %d, can_write %d", r, w);
    }

    ZCom_cleanup_c(ids, n, MPI_COMM_WORLD, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "ZCom_cleanup_c: %s", ZCom_strerror(err));
    /* After cleanup: buffers are private memory again, keep the last contents, nothing is left. */
    for (int i = 0; i < n; i++) {
        unsigned char *b = bufs[i];
        ZT_CHECK(b[0] == pattern(targets[i], ROUNDS - 1, 0) &&
                     b[sizes[i] - 1] == pattern(targets[i], ROUNDS - 1, sizes[i] - 1),
                 "buffer %d lost its contents at cleanup", i);
        ZT_CHECK(zt_mapping_kind(b) == 'p', "buffer %d is not private after cleanup", i);
        memset(b, 1, sizes[i]);
    }
    ZT_CHECK(zt_count_zcom_maps() == 0, "%d ZCom mappings left after cleanup",
             zt_count_zcom_maps());
    ZT_CHECK(zt_count_fds() == fds_before, "fds: %d before init, %d after cleanup", fds_before,
             zt_count_fds());
    ZT_CHECK(ZCom_can_write_c(n ? ids[0] : 1, &err) == 0 && err == ZCOM_ERR_CHANNEL,
             "cleaned-up channel still answers");
    for (int i = 0; i < n; i++) {
        if (kinds[i] == 2)
            munmap(bufs[i], sizes[i]);
        else
            free(bufs[i]);
    }
    return zt_finish();
}
