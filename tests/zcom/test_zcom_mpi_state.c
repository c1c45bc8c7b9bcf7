/* ZCom without MPI running. Before MPI_Init and after MPI_Finalize the collective calls must
 * return ZCOM_ERR_NO_MPI with one line on stderr (not let MPI abort the job), the counter calls
 * ZCOM_ERR_CHANNEL, and nothing may change. MPI_Init can happen once per process, so each case
 * is its own run: argv[1] is "before" or "after". In between, ranks 0 and 1 open a channel and
 * move one message, to show that the refused calls did not disturb ZCom. This program cannot use
 * zt_init/zt_finish (they call MPI): each process exits non-zero on a failure and prints
 * "test_zcom_mpi_state: rank R: OK" otherwise. */
#include <sys/mman.h>

#include "zcom_testlib.h"

static char *buf;

/* Says which call comes next (stdout, flushed): should MPI abort the job inside a call whose
 * stderr is being captured, the log still shows where. */
static void step(const char *what, const char *call) {
    printf("%s: rank %d: %s: %s\n", zt_name, zt_rank, what, call);
    fflush(stdout);
}
static const size_t S = 4096;

/* Every ZCom call with MPI not running: *what says before or after. */
static void refused_calls(const char *what, int open_id) {
    void *bufs[1] = {buf}, *att[1] = {NULL};
    size_t sizes[1] = {S};
    int targets[1] = {1}, ids[1] = {-1}, err = -1, maps0 = zt_count_zcom_maps();
    zt_capture_t cap;
    char text[4096];

    step(what, "ZCom_init_c");
    zt_capture_start(&cap);
    ZCom_init_c(bufs, sizes, MPI_COMM_WORLD, targets, 1, att, ids, &err);
    zt_capture_end(&cap, text, sizeof text);
    ZT_CHECK(err == ZCOM_ERR_NO_MPI, "%s: ZCom_init_c: got %s", what, ZCom_strerror(err));
    ZT_CHECK(zt_count_lines(text, "zcom: rank -1: ZCom_init_c: ") == 1 &&
                 zt_count_lines(text, "zcom:") == 1 && strstr(text, "(ZCOM_ERR_NO_MPI)\n"),
             "%s: ZCom_init_c: not one message line: [%s]", what, text);
    ZT_CHECK(ids[0] == -1 && att[0] == NULL, "%s: ZCom_init_c changed its outputs", what);
    ZCom_init_c(bufs, sizes, MPI_COMM_WORLD, targets, 1, att, ids, NULL); /* err may be NULL */

    int cid = open_id > 0 ? open_id : 1;
    err = -1;
    step(what, "ZCom_cleanup_c");
    zt_capture_start(&cap);
    ZCom_cleanup_c(&cid, 1, MPI_COMM_WORLD, &err);
    zt_capture_end(&cap, text, sizeof text);
    ZT_CHECK(err == ZCOM_ERR_NO_MPI, "%s: ZCom_cleanup_c: got %s", what, ZCom_strerror(err));
    ZT_CHECK(zt_count_lines(text, "zcom: rank -1: ZCom_cleanup_c: ") == 1 &&
                 zt_count_lines(text, "zcom:") == 1,
             "%s: ZCom_cleanup_c: not one message line: [%s]", what, text);

    /* The Fortran entry points convert the handle with MPI_Comm_f2c: MPI must be checked first. */
    MPI_Fint fcomm = 0;
    int one = 1;
    err = -1;
    step(what, "ZCom_init_f");
    ZCom_init_f(bufs, sizes, &fcomm, targets, &one, att, ids, &err);
    ZT_CHECK(err == ZCOM_ERR_NO_MPI, "%s: ZCom_init_f: got %s", what, ZCom_strerror(err));
    err = -1;
    step(what, "ZCom_cleanup_f");
    ZCom_cleanup_f(&cid, &one, &fcomm, &err);
    ZT_CHECK(err == ZCOM_ERR_NO_MPI, "%s: ZCom_cleanup_f: got %s", what, ZCom_strerror(err));

    /* The counters need no MPI; with no channel they say so. */
    if (open_id <= 0) {
        err = -1;
        ZT_CHECK(ZCom_can_write_c(1, &err) == 0 && err == ZCOM_ERR_CHANNEL, "%s: can_write", what);
        err = -1;
        ZT_CHECK(ZCom_can_read_c(1, &err) == 0 && err == ZCOM_ERR_CHANNEL, "%s: can_read", what);
        err = -1;
        ZCom_have_written_c(1, &err);
        ZT_CHECK(err == ZCOM_ERR_CHANNEL, "%s: have_written: %s", what, ZCom_strerror(err));
        err = -1;
        ZCom_have_read_c(1, &err);
        ZT_CHECK(err == ZCOM_ERR_CHANNEL, "%s: have_read: %s", what, ZCom_strerror(err));
        ZT_CHECK(zt_mapping_kind(buf) == 'p', "%s: buffer no longer private", what);
    }
    ZT_CHECK(zt_count_zcom_maps() == maps0, "%s: ZCom mappings changed", what);
    ZT_CHECK(buf[0] == 0x11 && buf[S - 1] == 0x11, "%s: buffer contents changed", what);
}

/* One channel between ranks 0 and 1 (others take part with no target); one message each way.
 * Returns the channel id (cleaned up unless keep), or 0 without a channel. */
static int one_channel(int keep) {
    int peer = zt_rank < 2 && zt_size >= 2 ? 1 - zt_rank : -1, n = peer >= 0, id = 0, err = -1;
    void *b = buf, *att = NULL;
    size_t s = S;
    ZCom_init_c(&b, &s, MPI_COMM_WORLD, &peer, n, &att, &id, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "ZCom_init_c with MPI running: %s", ZCom_strerror(err));
    if (err) return 0;
    if (n) {
        buf[1] = (char)(50 + zt_rank);
        ZCom_have_written_c(id, &err);
        ZT_CHECK(zt_wait(ZCom_can_read_c, id), "can_read");
        ZT_CHECK(((char *)att)[1] == (char)(50 + peer), "message not seen");
        ZCom_have_read_c(id, &err);
        ZT_CHECK(zt_wait(ZCom_can_write_c, id), "can_write");
        buf[1] = 0x11;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (keep) return n ? id : 0;
    ZCom_cleanup_c(&id, n, MPI_COMM_WORLD, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "ZCom_cleanup_c with MPI running: %s", ZCom_strerror(err));
    return 0;
}

int main(int argc, char **argv) {
    zt_name = "test_zcom_mpi_state";
    zt_rank = -1;
    int after = argc > 1 && strcmp(argv[1], "after") == 0;
    if (argc < 2 || (!after && strcmp(argv[1], "before") != 0)) {
        fprintf(stderr, "usage: %s before|after\n", argv[0]);
        return 2;
    }
    buf = mmap(NULL, S, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(buf, 0x11, S);

    if (!after) refused_calls("before MPI_Init", 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &zt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &zt_size);
    one_channel(0);
    /* After: a channel left open across MPI_Finalize cannot be closed any more, but stays
     * mapped: the buffer keeps its contents and stays usable. */
    int open_id = after ? one_channel(1) : 0;
    MPI_Finalize();
    if (after) {
        int rank = zt_rank;
        zt_rank = -1; /* as ZCom sees it now */
        refused_calls("after MPI_Finalize", open_id);
        zt_rank = rank;
        if (open_id) {
            int err = -1;
            ZT_CHECK(ZCom_can_write_c(open_id, &err) == 1 && err == ZCOM_SUCCESS,
                     "open channel after MPI_Finalize: %s", ZCom_strerror(err));
            ZT_CHECK(zt_mapping_kind(buf) == 's', "open channel's buffer not shared any more");
        }
    }
    if (zt_fails) {
        fprintf(stderr, "%s %s: rank %d: FAILED (%d failure(s))\n", zt_name, argv[1], zt_rank,
                zt_fails);
        return 1;
    }
    printf("%s %s: rank %d: OK\n", zt_name, argv[1], zt_rank);
    return 0;
}
