/* Zero copy, proven: after ZCom_init_c the owner writes its buffer and the peer sees the new bytes
 * through attached_addrs with no ZCom call in between (only an MPI_Barrier as the fence), and the
 * peer's writes through attached_addrs appear in the owner's buffer. Buffers of every kind: small
 * mallocs sharing one page, page-aligned, a large malloc (mmap'd by glibc), an mmap, a static
 * array at an odd offset. Pairs: rank r with r^1. After cleanup the buffers are private memory
 * again, at the same address, with their contents. */
#include <stdint.h>
#include <sys/mman.h>

#include "zcom_testlib.h"

#define NB 6
static char static_buf[3 * 4096 + 100];

int main(int argc, char **argv) {
    zt_init(&argc, &argv, "test_zcom_inplace");
    int peer = zt_rank ^ 1;
    if (peer >= zt_size) peer = -1; /* odd process out: no channel */
    int n = peer >= 0 ? NB : 0;
    /* NB channels with the same peer need NB calls (one channel per pair and call). */
    size_t sizes[NB] = {700, 900, 8192, 4 << 20, 65536, 5000};
    void *bufs[NB];
    /* 0 and 1: two unaligned buffers on one page, shared by separate calls (the second reuses
     * the first's shared page). */
    char *blk = NULL;
    if (posix_memalign((void **)&blk, 4096, 4096)) blk = NULL;
    bufs[0] = blk + 100;
    bufs[1] = blk + 1000;
    if (posix_memalign(&bufs[2], 4096, sizes[2])) bufs[2] = NULL;
    bufs[3] = malloc(sizes[3]);
    bufs[4] = mmap(NULL, sizes[4], PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    bufs[5] = static_buf + 77;
    void *att[NB] = {0};
    int ids[NB], err;
    for (int b = 0; b < NB; b++) {
        unsigned char *p = bufs[b];
        for (size_t k = 0; k < sizes[b]; k++) p[k] = (unsigned char)(k * 3 + b + zt_rank);
    }
    /* All six in one call would pair six buffers with one target twice: one call per buffer. */
    for (int b = 0; b < n; b++) {
        ZCom_init_c(&bufs[b], &sizes[b], MPI_COMM_WORLD, &peer, 1, &att[b], &ids[b], &err);
        ZT_CHECK(err == ZCOM_SUCCESS, "init of buffer %d: %s", b, ZCom_strerror(err));
    }
    if (peer < 0) {
        for (int b = 0; b < NB; b++)
            ZCom_init_c(NULL, NULL, MPI_COMM_WORLD, NULL, 0, NULL, NULL, &err);
    }
    if (zt_fails) return zt_finish();
    for (int b = 0; b < n; b++) {
        const unsigned char *q = att[b];
        size_t bad = 0;
        for (size_t k = 0; k < sizes[b]; k++)
            if (q[k] != (unsigned char)(k * 3 + b + peer)) bad++;
        ZT_CHECK(bad == 0, "buffer %d: %zu bytes of the peer's initial contents wrong", b, bad);
        ZT_CHECK(zt_mapping_kind(bufs[b]) == 's', "buffer %d is not shared after init", b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* 1. The owner writes after init; the peer sees it in place. */
    for (int b = 0; b < n; b++) {
        unsigned char *p = bufs[b];
        for (size_t k = 0; k < sizes[b]; k++) p[k] = (unsigned char)(k * 7 + b * 5 + zt_rank * 11);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the fence: no ZCom call */
    for (int b = 0; b < n; b++) {
        const unsigned char *q = att[b];
        size_t bad = 0;
        for (size_t k = 0; k < sizes[b]; k++)
            if (q[k] != (unsigned char)(k * 7 + b * 5 + peer * 11)) bad++;
        ZT_CHECK(bad == 0, "buffer %d: peer's write after init not seen (%zu bytes wrong)", b, bad);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* 2. The peer writes through the attached address; the owner sees it in its own buffer. */
    for (int b = 0; b < n; b++) {
        unsigned char *q = att[b];
        for (size_t k = 0; k < sizes[b]; k++) q[k] = (unsigned char)(k + b + 100 + zt_rank);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int b = 0; b < n; b++) {
        const unsigned char *p = bufs[b];
        size_t bad = 0;
        for (size_t k = 0; k < sizes[b]; k++)
            if (p[k] != (unsigned char)(k + b + 100 + peer)) bad++;
        ZT_CHECK(bad == 0, "buffer %d: write through attached address not seen (%zu wrong)", b,
                 bad);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Cleanup in two calls (channels 0-2, then 3-5): partial cleanup keeps the others working. */
    int half = n / 2;
    ZCom_cleanup_c(ids, half, MPI_COMM_WORLD, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "cleanup 1: %s", ZCom_strerror(err));
    for (int b = half; b < n; b++) {
        unsigned char *p = bufs[b];
        p[1] = (unsigned char)(200 + b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int b = half; b < n; b++)
        ZT_CHECK(((unsigned char *)att[b])[1] == (unsigned char)(200 + b),
                 "buffer %d: not shared after a partial cleanup", b);
    MPI_Barrier(MPI_COMM_WORLD);
    ZCom_cleanup_c(ids + half, n - half, MPI_COMM_WORLD, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "cleanup 2: %s", ZCom_strerror(err));
    for (int b = 0; b < n; b++) {
        const unsigned char *p = bufs[b];
        size_t bad = 0;
        for (size_t k = 2; k < sizes[b]; k++)
            if (p[k] != (unsigned char)(k + b + 100 + peer)) bad++;
        ZT_CHECK(bad == 0, "buffer %d: %zu bytes lost at cleanup", b, bad);
        ZT_CHECK(zt_mapping_kind(bufs[b]) == 'p', "buffer %d not private after cleanup", b);
    }
    ZT_CHECK(zt_count_zcom_maps() == 0, "ZCom mappings left after cleanup");
    free(blk);
    free(bufs[2]);
    free(bufs[3]);
    munmap(bufs[4], sizes[4]);
    return zt_finish();
}
