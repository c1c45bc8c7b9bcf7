/* The one-sided broadcast's plain-MPI face (include/shoal/rma_bcast_mpi.h) in a program that uses
 * MPI RMA and never calls shoal_init; with the argument "--with-shoal" it calls shoal_init_thread
 * too (after MPI_Init_thread), the other case the issue names. Every root, both algorithms and
 * auto, sizes 1 B - 1 MiB, a window with disp_unit 4 landing at a displacement, back-to-back
 * broadcasts from two roots at once (ordered: numbers consecutive, the later one's data wins),
 * the program's own fence epochs on its window still working, bad input, deregistration with a
 * broadcast in flight, and register/deregister cycles that leave no thread behind. */
#include <dirent.h>
#include <mpi.h>
#include <shoal.h>
#include <shoal/rma_bcast_mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int me, np, failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "rank %d: %s:%d: ", me, __FILE__, __LINE__);                           \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)
#define CHECK_OK(call)                                                                             \
    do {                                                                                           \
        shoal_err_t e_ = (call);                                                                   \
        CHECK(e_ == SHOAL_OK, "%s: %s", #call, shoal_strerror(e_));                                \
    } while (0)

static unsigned char byte_at(uint64_t seq, size_t i) {
    return (unsigned char)(seq * 131 + i * 7 + (i >> 9));
}

static int threads_now(void) {
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

#define WIN_BYTES (2u << 20)
#define DISP      16 /* displacement units of 4 bytes: data lands 64 bytes in */

/* One broadcast from root of n bytes, checked on every rank. */
static void one(int wid, unsigned char *mem, unsigned char *src, uint64_t *count, int root,
                size_t n, shoal_rma_bcast_algo_t algo) {
    uint64_t want = ++*count;
    for (size_t i = 0; i < n; i++) src[i] = byte_at(want, i);
    if (me == root) {
        shoal_rma_bcast_t req = SHOAL_RMA_BCAST_NULL;
        uint64_t seq = 0;
        CHECK_OK(shoal_rma_bcast_mpi(wid, src, n, DISP, algo, &req, &seq));
        CHECK(seq == want, "broadcast number %llu, expected %llu", (unsigned long long)seq,
              (unsigned long long)want);
        int done = 0;
        for (shoal_err_t e = SHOAL_OK; !done && e == SHOAL_OK;) {
            e = shoal_rma_bcast_mpi_test(&req, &done);
            CHECK(e == SHOAL_OK, "test: %s", shoal_strerror(e));
        }
        CHECK(req == SHOAL_RMA_BCAST_NULL, "a completed request is released");
    } else {
        CHECK_OK(shoal_rma_bcast_mpi_wait_arrival(wid, want));
    }
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n; i++)
        if (mem[4 * DISP + i] != src[i]) bad = i;
    CHECK(bad == n, "root %d, %zu B, %s: byte %zu differs", root, n,
          algo == SHOAL_RMA_BCAST_LINEAR ? "linear" : "binomial", bad);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    alarm(150); /* a hang fails here before CTest's timeout */
    int with_shoal = argc > 1 && !strcmp(argv[1], "--with-shoal");
    if (with_shoal) {
        int level = 0;
        shoal_err_t e = shoal_init_thread(&argc, &argv, SHOAL_THREAD_MULTIPLE, &level);
        /* Open MPI 4.1: Shoal needs osc/pt2pt, which refuses MULTIPLE (docs/design.md). */
        if (e == SHOAL_ERR_UNSUPPORTED) {
            if (me == 0) printf("test_rma_bcast_mpi: shoal_init refuses this MPI: skipped\n");
            MPI_Finalize();
            return 0;
        }
        CHECK_OK(e);
    }
    int threads_before = threads_now();
    unsigned char *mem = NULL;
    MPI_Win win;
    MPI_Win_allocate(WIN_BYTES, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    memset(mem, 0, WIN_BYTES);
    unsigned char *src = malloc(WIN_BYTES);
    MPI_Barrier(MPI_COMM_WORLD);

    int wid = 0;
    shoal_err_t e = shoal_rma_bcast_mpi_register(win, MPI_COMM_WORLD, &wid);
    if (provided != MPI_THREAD_MULTIPLE) {
        CHECK(e == SHOAL_ERR_UNSUPPORTED, "registration without MULTIPLE: %s", shoal_strerror(e));
        goto out;
    }
    CHECK(e == SHOAL_OK, "register: %s", shoal_strerror(e));
    if (e != SHOAL_OK) goto out;

    uint64_t count = 0;
    /* Every root, every algorithm; the sizes rotate so each pair meets several (MPICH's waits
     * are slow with more processes than cores: CI time). */
    static const size_t sizes[] = {1, 8, 1000, 65536, 1 << 20};
    int k = 0;
    for (int root = 0; root < np; root++)
        for (int a = 0; a < 3; a++)
            for (int s = 0; s < 2; s++, k++)
                one(wid, mem, src, &count, root, sizes[(k * 3 + s) % 5], (shoal_rma_bcast_algo_t)a);
    for (k = 0; k < 20; k++) one(wid, mem, src, &count, k % np, 64, SHOAL_RMA_BCAST_BINOMIAL);

    /* Two roots at once: both broadcasts go, numbered consecutively, the later one's data wins. */
    if (np >= 2) {
        unsigned char mine[256];
        memset(mine, 0xA0 + me, sizeof mine);
        shoal_rma_bcast_t req = SHOAL_RMA_BCAST_NULL;
        uint64_t seq = 0;
        if (me < 2) CHECK_OK(shoal_rma_bcast_mpi(wid, mine, sizeof mine, DISP, 0, &req, &seq));
        if (me < 2) CHECK_OK(shoal_rma_bcast_mpi_wait(&req));
        uint64_t mine_seq[2] = {me == 0 ? seq : 0, me == 1 ? seq : 0}, seqs[2] = {0, 0};
        MPI_Allreduce(mine_seq, seqs, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        CHECK((seqs[0] == count + 1 && seqs[1] == count + 2) ||
                  (seqs[1] == count + 1 && seqs[0] == count + 2),
              "two roots got numbers %llu and %llu after %llu", (unsigned long long)seqs[0],
              (unsigned long long)seqs[1], (unsigned long long)count);
        count += 2;
        CHECK_OK(shoal_rma_bcast_mpi_wait_arrival(wid, count));
        int later = seqs[0] > seqs[1] ? 0 : 1;
        CHECK(mem[4 * DISP] == 0xA0 + later && mem[4 * DISP + 255] == 0xA0 + later,
              "the later broadcast (root %d) must win, found 0x%x", later, mem[4 * DISP]);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* The program's own RMA on its window, with fence epochs, still works. */
    MPI_Win_fence(0, win);
    int v = 1000 + me;
    MPI_Put(&v, 1, MPI_INT, (me + 1) % np, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    CHECK(((int *)mem)[0] == 1000 + (me + np - 1) % np, "the program's own put");

    /* Bad input: a clear error, nothing written anywhere. */
    memset(mem + 4 * DISP, 0x5A, 64);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        shoal_rma_bcast_t req = SHOAL_RMA_BCAST_NULL;
        CHECK(shoal_rma_bcast_mpi(wid, src, 0, DISP, 0, &req, NULL) == SHOAL_ERR_INVAL, "0 B");
        CHECK(shoal_rma_bcast_mpi(wid, src, WIN_BYTES, DISP, 0, &req, NULL) == SHOAL_ERR_BOUNDS,
              "past the window");
        CHECK(shoal_rma_bcast_mpi(wid, src, 8, -1, 0, &req, NULL) == SHOAL_ERR_BOUNDS, "disp<0");
        CHECK(shoal_rma_bcast_mpi(wid, src, 8, DISP, 7, &req, NULL) == SHOAL_ERR_INVAL, "algo");
        CHECK(shoal_rma_bcast_mpi(wid + 1000, src, 8, DISP, 0, &req, NULL) == SHOAL_ERR_STATE,
              "unknown window id");
        CHECK(shoal_rma_bcast_mpi(wid, src, 8, DISP, 0, NULL, NULL) == SHOAL_ERR_INVAL, "NULL");
        shoal_rma_bcast_t fake = (shoal_rma_bcast_t)(uintptr_t)0x1234;
        CHECK(shoal_rma_bcast_mpi_wait(&fake) == SHOAL_ERR_HANDLE, "a made-up request");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int touched = -1;
    for (int i = 0; i < 64 && touched < 0; i++)
        if (mem[4 * DISP + i] != 0x5A) touched = i;
    CHECK(touched < 0, "a refused broadcast wrote into the window: byte %d is 0x%x", touched,
          touched < 0 ? 0 : mem[4 * DISP + touched]);
    MPI_Barrier(MPI_COMM_WORLD); /* everybody has looked before the next broadcast writes */

    /* Deregistration with a broadcast in flight: it waits for the broadcast; the root's request
     * then reports completion. */
    shoal_rma_bcast_t req = SHOAL_RMA_BCAST_NULL;
    if (me == np - 1) {
        for (size_t i = 0; i < 100000; i++) src[i] = byte_at(count + 1, i);
        CHECK_OK(shoal_rma_bcast_mpi(wid, src, 100000, DISP, SHOAL_RMA_BCAST_BINOMIAL, &req, NULL));
    }
    count++;
    CHECK_OK(shoal_rma_bcast_mpi_deregister(wid));
    for (size_t i = 0; i < 100000; i++)
        if (mem[4 * DISP + i] != byte_at(count, i)) {
            CHECK(0, "broadcast in flight at deregistration: byte %zu", i);
            break;
        }
    if (me == np - 1) {
        int done = 0;
        CHECK_OK(shoal_rma_bcast_mpi_test(&req, &done));
        CHECK(done, "the request of a broadcast finished by deregistration");
    }
    CHECK(shoal_rma_bcast_mpi_arrived(wid, 1, &(int){0}) == SHOAL_ERR_STATE, "deregistered id");

    /* Cycles: no relay thread left behind. */
    for (int c = 0; c < 10; c++) {
        int w = 0;
        CHECK_OK(shoal_rma_bcast_mpi_register(win, MPI_COMM_WORLD, &w));
        uint64_t cnt = 0;
        one(w, mem, src, &cnt, c % np, 100,
            c % 2 ? SHOAL_RMA_BCAST_LINEAR : SHOAL_RMA_BCAST_BINOMIAL);
        CHECK_OK(shoal_rma_bcast_mpi_deregister(w));
    }
    CHECK(threads_now() == threads_before, "threads: %d before, %d after", threads_before,
          threads_now());

out:
    MPI_Win_free(&win);
    free(src);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("test_rma_bcast_mpi%s: %s\n", with_shoal ? " (with shoal_init)" : "",
               all ? "FAILED" : "OK");
    if (with_shoal) shoal_finalize();
    MPI_Finalize();
    return all ? 1 : 0;
}
