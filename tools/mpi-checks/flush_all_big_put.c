/* Does MPI_Win_flush_all complete a large MPI_Put? A plain MPI program, no Shoal, doing what
 * tests/mpi/test_fence_hazard.c does on the MPI path (the imm_barrier fence): in each round a
 * random half of the ranks put three buffers (1 MiB, 256 KiB + 3, 512 KiB - 3; one region of the
 * window, alternating between two) into the ranks 1, 2 and 3 after them (MPI_Win_create,
 * passive target, lock_all), one random sender sleeping first; then each rank completes its puts
 * one of two ways, calls MPI_Barrier, and checks every byte it received:
 *   flush_all   MPI_Win_flush_all
 *   flush       MPI_Win_flush to each rank it put to
 * A wrong round is checked again after one more barrier (did the data only arrive late?).
 * Run (3 or 4 processes):
 *   shoalrun -n 4 build/<dir>/tools/mpi-checks/mpi_check_flush_all_big_put [rounds] [way]
 * way: flush_all (default), flush, or both (alternate); CHECK_SHM=1 puts the window in a shared
 * mapping, as Shoal's segments. Prints the wrong rounds per way.
 * On our Intel host (session 22) MPICH 4.0.2 (ch4/UCX) at 4 processes: 0 wrong of 6,000 rounds
 * (malloc'd window) and 0 of 4,000 (shared mapping) with flush_all. Inside Shoal the same pattern
 * (test_fence_hazard, MPI path) lost the tail of a 512 KiB put in about 1 run of 80 when the
 * fence completed it with flush_all, and never with MPI_Win_flush per target: so Shoal no longer
 * calls flush_all (src/mem/segment.c). What else in Shoal's traffic (more windows, accumulates on
 * another window, its own barrier) makes the difference is not known. */
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NBUF 3
static const size_t buf_size[NBUF] = {1u << 20, (256u << 10) + 3, (512u << 10) - 3};
static size_t buf_off[NBUF], region;

static uint8_t byte_of(long round, int unit, size_t i) {
    uint64_t x = (uint64_t)(round + 3) * 0x9E3779B97F4A7C15ull ^
                 (uint64_t)(unit + 1) * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)(i / 8 + 1) * 0x165667B19E3779F9ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (uint8_t)(x >> (8 * (i % 8)));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    long rounds = argc > 1 ? atol(argv[1]) : 200;
    const char *way = argc > 2 ? argv[2] : "flush_all";
    for (int b = 0; b < NBUF; b++) {
        buf_off[b] = region;
        region += buf_size[b];
    }
    uint8_t *base = NULL, *src = malloc(region), *want = malloc(2 * region);
    if (getenv("CHECK_SHM")) { /* window memory in a shared mapping, as Shoal's segments */
        char name[64];
        snprintf(name, sizeof name, "/flush_all_big_put.%d.%d", (int)getpid(), me);
        int fd = shm_open(name, O_CREAT | O_RDWR | O_EXCL, 0600);
        if (fd < 0 || ftruncate(fd, (off_t)(2 * region))) MPI_Abort(MPI_COMM_WORLD, 1);
        base = mmap(NULL, 2 * region, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        shm_unlink(name);
        close(fd);
        if (base == MAP_FAILED) MPI_Abort(MPI_COMM_WORLD, 1);
    } else if (posix_memalign((void **)&base, 4096, 2 * region))
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (!src || !want) MPI_Abort(MPI_COMM_WORLD, 1);
    memset(base, 0, 2 * region);
    memset(want, 0, 2 * region);
    MPI_Win win;
    MPI_Win_create(base, 2 * region, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    uint64_t rs = 12345;
    long wrong[2] = {0, 0}, late[2] = {0, 0};
    for (long k = 0; k < rounds; k++) {
        const int r = (int)(k % 2);
        const int by_target = !strcmp(way, "flush") || (!strcmp(way, "both") && (k / 2) % 2);
        rs = rs * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t sends = (rs >> 11) * 0x9E3779B97F4A7C15ull;
        rs = rs * 6364136223846793005ull + 1442695040888963407ull;
        const int slow = (int)((rs >> 33) % (uint64_t)p);
        sends |= 1ull << slow;
        if ((sends >> me) & 1) {
            for (size_t i = 0; i < region; i++) src[i] = byte_of(k, me, i);
            if (me == slow) usleep(200 + (unsigned)((rs >> 13) % 1500));
            for (int b = 0; b < NBUF; b++)
                MPI_Put(src + buf_off[b], (int)buf_size[b], MPI_BYTE, (me + 1 + b) % p,
                        (MPI_Aint)(r * region + buf_off[b]), (int)buf_size[b], MPI_BYTE, win);
            if (by_target)
                for (int b = 0; b < NBUF; b++) MPI_Win_flush((me + 1 + b) % p, win);
            else
                MPI_Win_flush_all(win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int b = 0; b < NBUF; b++) {
            int from = ((me - 1 - b) % p + p) % p;
            if (!((sends >> from) & 1)) continue;
            for (size_t i = 0; i < buf_size[b]; i++)
                want[r * region + buf_off[b] + i] = byte_of(k, from, buf_off[b] + i);
        }
        MPI_Win_sync(win);
        int bad_here = memcmp(base + r * region, want + r * region, region) != 0, bad_any = 0;
        MPI_Allreduce(&bad_here, &bad_any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (!bad_any) continue;
        size_t bad = 0;
        for (size_t i = 0; i < region; i++) bad += base[r * region + i] != want[r * region + i];
        MPI_Barrier(MPI_COMM_WORLD); /* one more chance for late data */
        MPI_Win_sync(win);
        if (!bad_here) continue;
        const int still = memcmp(base + r * region, want + r * region, region) != 0;
        wrong[by_target]++;
        late[by_target] += !still;
        fprintf(stderr, "rank %d: round %ld (%s): %zu bytes wrong; after one more barrier %s\n", me,
                k, by_target ? "flush" : "flush_all", bad, still ? "still wrong" : "right");
        if (still) memcpy(want + r * region, base + r * region, region); /* go on from here */
    }
    MPI_Win_unlock_all(win);
    long tot[4], mine[4] = {wrong[0], wrong[1], late[0], late[1]};
    MPI_Reduce(mine, tot, 4, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("%d ranks, %ld rounds: wrong after flush_all %ld (%ld arrived late), after "
               "flush %ld (%ld late)\n",
               p, rounds, tot[0], tot[2], tot[1], tot[3]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
