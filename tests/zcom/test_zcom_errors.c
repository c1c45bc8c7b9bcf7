/* Every error of the issue: a code agreed by all processes, a message, and nothing left behind
 * (no ZCom mapping, no extra fd, the buffer still private and intact). Ranks 0 and 1 form the
 * pair; any further rank takes part in the collectives with no target. (A target on another node
 * cannot be made on one machine: the locality predicate is unit-tested in test_zcom_targets.) */
#include <stdint.h>
#include <sys/mman.h>

#include "zcom_testlib.h"

static int fds0, maps0;

/* Calls ZCom_init_c with my part of a case and checks the agreed code and the cleanliness. */
static void expect_init(const char *what, void *buf, size_t size, int *targets, int n, int want) {
    void *bufs[2] = {buf, buf}, *att[2] = {0};
    size_t sizes[2] = {size, size};
    int ids[2] = {-1, -1}, err = -1;
    ZCom_init_c(bufs, sizes, MPI_COMM_WORLD, targets, n, att, ids, &err);
    ZT_CHECK(err == want, "%s: got %s, want %s", what, ZCom_strerror(err), ZCom_strerror(want));
    ZT_CHECK(zt_count_zcom_maps() == maps0, "%s: %d ZCom mappings left (had %d)", what,
             zt_count_zcom_maps(), maps0);
    ZT_CHECK(zt_count_fds() == fds0, "%s: %d fds (had %d)", what, zt_count_fds(), fds0);
    if (buf) ZT_CHECK(zt_mapping_kind(buf) != 's', "%s: buffer left shared", what);
    if (err == ZCOM_SUCCESS) ZCom_cleanup_c(ids, n, MPI_COMM_WORLD, &err);
}

int main(int argc, char **argv) {
    zt_init(&argc, &argv, "test_zcom_errors");
    if (zt_size < 2) {
        fprintf(stderr, "needs 2 processes\n");
        return zt_finish();
    }
    const size_t S = 3 * 4096;
    char *buf = mmap(NULL, S, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(buf, 0x5A, S);
    int in_pair = zt_rank < 2, peer = 1 - zt_rank, n = in_pair ? 1 : 0;
    int t[2];
    fds0 = zt_count_fds();
    maps0 = zt_count_zcom_maps();

    /* Target out of range / negative / myself / twice (rank 0 errs, rank 1 is fine). */
    t[0] = zt_rank == 0 ? zt_size : peer;
    expect_init("target out of range", buf, 4096, t, n, ZCOM_ERR_RANK);
    t[0] = zt_rank == 0 ? -1 : peer;
    expect_init("negative target", buf, 4096, t, n, ZCOM_ERR_RANK);
    t[0] = zt_rank == 0 ? 0 : peer;
    expect_init("target myself", buf, 4096, t, n, ZCOM_ERR_RANK);
    t[0] = t[1] = peer;
    expect_init("target twice", buf, 4096, t, zt_rank == 0 ? 2 : n, ZCOM_ERR_RANK);
    /* NULL and zero-size buffers. */
    t[0] = peer;
    expect_init("NULL buffer", zt_rank == 1 ? NULL : buf, 4096, t, n, ZCOM_ERR_BUFFER);
    expect_init("zero-size buffer", buf, zt_rank == 1 ? 0 : 4096, t, n, ZCOM_ERR_BUFFER);
    /* Sizes that differ between the pair. */
    expect_init("sizes differ", buf, zt_rank == 0 ? 4096 : 4097, t, n, ZCOM_ERR_SIZE);
    /* Not paired: rank 0 targets rank 1, which targets nobody. */
    expect_init("not paired", buf, 4096, t, zt_rank == 0 ? 1 : 0, ZCOM_ERR_NOT_PAIRED);
    /* A buffer on the main thread's stack cannot be remapped. */
    {
        char stack_buf[256];
        memset(stack_buf, 1, sizeof stack_buf);
        expect_init("stack buffer", zt_rank == 0 ? stack_buf : buf, 256, t, n, ZCOM_ERR_BUFFER);
        ZT_CHECK(stack_buf[255] == 1, "stack buffer changed");
    }
    /* Bad arguments. */
    {
        int err = -1;
        ZCom_init_c(NULL, NULL, MPI_COMM_NULL, NULL, 0, NULL, NULL, &err);
        ZT_CHECK(err == ZCOM_ERR_ARG, "MPI_COMM_NULL: %s", ZCom_strerror(err));
        expect_init("negative count", buf, 4096, t, zt_rank == 0 ? -1 : n, ZCOM_ERR_ARG);
        void *b1 = buf;
        size_t s1 = 4096;
        int id;
        err = -1;
        ZCom_init_c(&b1, &s1, MPI_COMM_WORLD, t, n, NULL, &id, &err); /* attached_addrs NULL */
        ZT_CHECK(err == ZCOM_ERR_ARG, "NULL attached_addrs: %s", ZCom_strerror(err));
    }
    /* Unknown channel ids. */
    {
        int err = -1;
        ZT_CHECK(ZCom_can_write_c(9999, &err) == 0 && err == ZCOM_ERR_CHANNEL, "can_write(9999)");
        err = -1;
        ZT_CHECK(ZCom_can_read_c(-3, &err) == 0 && err == ZCOM_ERR_CHANNEL, "can_read(-3)");
        err = -1;
        ZCom_have_written_c(9999, &err);
        ZT_CHECK(err == ZCOM_ERR_CHANNEL, "have_written(9999): %s", ZCom_strerror(err));
        err = -1;
        ZCom_have_read_c(0, &err);
        ZT_CHECK(err == ZCOM_ERR_CHANNEL, "have_read(0): %s", ZCom_strerror(err));
    }
    /* A good channel; then init twice for the same buffer and target; have_read with nothing to
     * read; the channel keeps working. */
    void *b1 = buf, *att = NULL;
    size_t s1 = 4096;
    int id = -1, err = -1;
    ZCom_init_c(&b1, &s1, MPI_COMM_WORLD, t, n, &att, &id, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "good init: %s", ZCom_strerror(err));
    {
        void *b2 = buf, *att2 = NULL;
        int id2 = -1, err2 = -1;
        ZCom_init_c(&b2, &s1, MPI_COMM_WORLD, t, n, &att2, &id2, &err2);
        ZT_CHECK(err2 == ZCOM_ERR_STATE, "init twice: %s", ZCom_strerror(err2));
        ZT_CHECK(zt_count_zcom_maps() == maps0 + 2 * n, "init twice: mappings changed (%d)",
                 zt_count_zcom_maps());
        /* Overlap: pages 1-2 against the shared page 0 + a part of page 1 of another init. */
        void *b3 = buf + 4096 - 8, *att3 = NULL;
        size_t s3 = 4096;
        ZCom_init_c(&b3, &s3, MPI_COMM_WORLD, t, n, &att3, &id2, &err2);
        ZT_CHECK(err2 == ZCOM_ERR_OVERLAP, "overlap: %s", ZCom_strerror(err2));
    }
    if (in_pair) {
        ZCom_have_read_c(id, &err);
        ZT_CHECK(err == ZCOM_ERR_STATE, "have_read with nothing to read: %s", ZCom_strerror(err));
        ZT_CHECK(ZCom_can_write_c(id, &err) == 1 && err == 0, "can_write on a fresh channel");
    }
    MPI_Barrier(MPI_COMM_WORLD); /* both have checked the fresh channel before anyone writes */
    if (in_pair) {
        buf[10] = (char)(40 + zt_rank);
        ZCom_have_written_c(id, &err);
        ZT_CHECK(zt_wait(ZCom_can_read_c, id), "can_read");
        ZT_CHECK(((char *)att)[10] == (char)(40 + peer), "data after the failed inits");
        ZCom_have_read_c(id, &err);
        ZT_CHECK(zt_wait(ZCom_can_write_c, id), "can_write after the peer's read");
    }
    /* Cleanup mismatch: rank 0 closes the channel, rank 1 does not. */
    ZCom_cleanup_c(&id, zt_rank == 0 ? 1 : 0, MPI_COMM_WORLD, &err);
    ZT_CHECK(err == ZCOM_ERR_NOT_PAIRED, "cleanup mismatch: %s", ZCom_strerror(err));
    ZCom_cleanup_c(&id, n, MPI_COMM_WORLD, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "cleanup: %s", ZCom_strerror(err));
    ZT_CHECK(!in_pair || (buf[10] == (char)(40 + zt_rank) && buf[11] == 0x5A),
             "buffer changed by cleanup");
    /* The cleaned-up id. */
    if (in_pair) {
        ZT_CHECK(ZCom_can_write_c(id, &err) == 0 && err == ZCOM_ERR_CHANNEL, "cleaned-up id");
        ZCom_have_written_c(id, &err);
        ZT_CHECK(err == ZCOM_ERR_CHANNEL, "have_written on a cleaned-up id");
    }
    ZCom_cleanup_c(&id, n, MPI_COMM_WORLD, &err);
    ZT_CHECK(err == ZCOM_ERR_CHANNEL, "cleanup twice: %s", ZCom_strerror(err));
    ZT_CHECK(zt_count_zcom_maps() == maps0 && zt_count_fds() == fds0, "resources left at the end");
    munmap(buf, S);
    return zt_finish();
}
