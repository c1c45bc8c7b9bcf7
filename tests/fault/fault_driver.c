/* Fault driver: unit 1 dies in the middle of a loop, the other units keep looping, and
 * run_fault.sh checks that the launcher ends the whole job quickly, with a message, and that no
 * shared memory is left behind.
 *
 *   fault_driver CASE DIR
 *
 * Every unit appends its pid to DIR/pids; the victim writes the wall-clock time of its death to
 * DIR/mark just before dying, so the script can measure from there to the launcher's end.
 *
 * Cases (unit 1 is the victim; the survivors loop until the launcher or Shoal ends them):
 *   put        SIGKILL in a put/get loop to the right neighbour (no synchronisation at all)
 *   barrier    SIGKILL in a barrier loop
 *   coll       SIGKILL in a broadcast/reduce loop
 *   lock       SIGKILL while holding a lock, in an acquire/release loop
 *   alloc      SIGKILL (from a second thread, at a random time) in a memalloc/memfree loop
 *   zcom       SIGKILL in a ZCom ring exchange (plain MPI program: no shoal_init)
 *   nofin      return from main without shoal_finalize, in a barrier loop (exit status 0)
 *   nofin-exit exit(0) from another thread while the main thread is in a barrier loop
 *   nofin-mpi  the program initialised MPI itself; return from main without either finalize
 *   nofin-mpifin  the program initialised MPI itself; MPI_Finalize, no shoal_finalize, return
 *   clean      control: a child forked by unit 1 exits, then every unit finalises (status 0)
 *   clean-mpi  control: the program's own MPI, shoal_finalize then MPI_Finalize (status 0)
 *
 * Every loop checks its results against a reference and prints "FAIL" on a wrong one. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <shoal.h>
#include <shoal/zcom.h>

#define VICTIM         1
#define KILL_AFTER     200  /* iterations the victim completes before dying */
#define SURVIVOR_LIMIT 120. /* seconds: a survivor never loops longer than this on its own */

static int me = -1, np = 0, fails = 0;
static const char *dir;

static double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "fault: unit %d: FAIL at line %d: ", me, __LINE__);                        \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        fails++;                                                                                   \
    } while (0)
#define OK(call)                                                                                   \
    do {                                                                                           \
        shoal_err_t e_ = (call);                                                                   \
        if (e_ != SHOAL_OK) FAIL("%s: %s", #call, shoal_strerror(e_));                             \
    } while (0)

/* Appends one line to DIR/name (O_APPEND: every unit writes whole lines). */
static void append(const char *name, const char *line) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) {
        perror(path);
        return;
    }
    if (write(fd, line, strlen(line)) < 0) perror(path);
    close(fd);
}

/* The victim records when it dies (the script measures the job's end from here). */
static void mark(const char *what) {
    char line[128];
    snprintf(line, sizeof line, "%.6f %s\n", wall_now(), what);
    append("mark", line);
    fprintf(stderr, "fault: unit %d: %s\n", me, what);
}

static void die_now(void) {
    mark("SIGKILL");
    raise(SIGKILL);
}

/* 1 when a survivor has looped too long on its own: the job should have ended long before. */
static int too_long(double t0) {
    if (wall_now() - t0 < SURVIVOR_LIMIT) return 0;
    FAIL("still looping %.0f s after the start: nobody ended the job", SURVIVOR_LIMIT);
    return 1;
}

static void start(void) {
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    char line[64];
    snprintf(line, sizeof line, "%ld\n", (long)getpid());
    append("pids", line);
}

/* ---- The loops (Shoal initialised, every unit calls them) ------------------------------------ */

/* Put a value into my slot on the right neighbour, read it back. */
static void loop_put(void) {
    shoal_gptr_t gp;
    OK(shoal_team_memalloc(SHOAL_TEAM_ALL, (size_t)np * 8, &gp));
    shoal_gptr_t slot = shoal_gptr_add(shoal_gptr_setunit(gp, (me + 1) % np), (uint64_t)me * 8);
    OK(shoal_barrier(SHOAL_TEAM_ALL));
    double t0 = wall_now();
    for (int64_t it = 0; !fails && !too_long(t0); it++) {
        if (me == VICTIM && it == KILL_AFTER) die_now();
        int64_t v = (int64_t)me << 40 | it, back = -1;
        OK(shoal_put(slot, &v, sizeof v));
        OK(shoal_get(&back, slot, sizeof back));
        if (back != v) FAIL("put %" PRId64 ", read back %" PRId64, v, back);
    }
}

/* Called on the victim's second thread while its main thread is in the barrier loop. */
static void *exit_thread(void *arg) {
    (void)arg;
    mark("exit(0) from a second thread");
    exit(0);
}

/* Write the iteration into my word, barrier, the left neighbour's word must show it too. */
static void loop_barrier(int victim_returns, int victim_thread_exits) {
    shoal_gptr_t gp;
    OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 8, &gp));
    int64_t *mine = NULL;
    OK(shoal_gptr_getaddr(gp, (void **)&mine));
    shoal_gptr_t left = shoal_gptr_setunit(gp, (me + np - 1) % np);
    OK(shoal_barrier(SHOAL_TEAM_ALL));
    double t0 = wall_now();
    for (int64_t it = 0; !fails && !too_long(t0); it++) {
        if (me == VICTIM && it == KILL_AFTER) {
            if (victim_returns) return;
            if (victim_thread_exits) {
                pthread_t t;
                if (pthread_create(&t, NULL, exit_thread, NULL) != 0) FAIL("pthread_create");
            } else {
                die_now();
            }
        }
        int64_t v = it;
        OK(shoal_put(shoal_gptr_setunit(gp, me), &v, sizeof v));
        OK(shoal_barrier(SHOAL_TEAM_ALL));
        int64_t seen = -1;
        OK(shoal_get(&seen, left, sizeof seen));
        if (seen != it) FAIL("iteration %" PRId64 ": left neighbour's word is %" PRId64, it, seen);
        OK(shoal_barrier(SHOAL_TEAM_ALL));
    }
    (void)mine;
}

/* Broadcast from a moving root, then a sum reduction, both checked. */
static void loop_coll(void) {
    shoal_gptr_t gp;
    OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 32, &gp));
    int64_t *mine = NULL;
    OK(shoal_gptr_getaddr(gp, (void **)&mine));
    shoal_gptr_t src = gp, dst = shoal_gptr_add(gp, 16);
    OK(shoal_barrier(SHOAL_TEAM_ALL));
    double t0 = wall_now();
    for (int64_t it = 0; !fails && !too_long(t0); it++) {
        if (me == VICTIM && it == KILL_AFTER) die_now();
        int root = (int)(it % np);
        mine[0] = me == root ? root * 1000000 + it : -1;
        OK(shoal_broadcast(SHOAL_TEAM_ALL, dst, src, 8, root));
        if (mine[2] != root * 1000000 + it)
            FAIL("broadcast %" PRId64 ": got %" PRId64, it, mine[2]);
        mine[0] = me + it;
        OK(shoal_reduce(SHOAL_TEAM_ALL, dst, src, 1, SHOAL_TYPE_INT64, SHOAL_RED_SUM));
        int64_t want = np * it + (int64_t)np * (np - 1) / 2;
        if (mine[2] != want)
            FAIL("reduce %" PRId64 ": got %" PRId64 ", want %" PRId64, it, mine[2], want);
    }
}

/* Under the lock: the holder word must be free, the counter must not have moved backwards. */
static void loop_lock(void) {
    shoal_lock_t lock;
    shoal_gptr_t gp;
    OK(shoal_lock_create(SHOAL_TEAM_ALL, &lock));
    OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 16, &gp));
    shoal_gptr_t holder = shoal_gptr_setunit(gp, 0), counter = shoal_gptr_add(holder, 8);
    if (me == 0) {
        int64_t none = -1;
        OK(shoal_put(holder, &none, sizeof none));
    }
    OK(shoal_barrier(SHOAL_TEAM_ALL));
    double t0 = wall_now();
    int64_t last = -1;
    for (int64_t it = 0; !fails && !too_long(t0); it++) {
        OK(shoal_lock_acquire(lock));
        int64_t h = 0, c = 0, none = -1, mine = me;
        OK(shoal_get(&h, holder, sizeof h));
        if (h != -1) FAIL("iteration %" PRId64 ": lock held by unit %" PRId64 " as well", it, h);
        OK(shoal_put(holder, &mine, sizeof mine));
        OK(shoal_get(&c, counter, sizeof c));
        if (c < last) FAIL("counter went from %" PRId64 " to %" PRId64, last, c);
        c++;
        OK(shoal_put(counter, &c, sizeof c));
        last = c;
        if (me == VICTIM && it == KILL_AFTER) die_now(); /* dies holding the lock */
        OK(shoal_put(holder, &none, sizeof none));
        OK(shoal_lock_release(lock));
    }
}

/* ZCom ring (no shoal_init): each round, write my buffers, read the neighbours'. */
static void loop_zcom(void) {
    int n = np == 2 ? 1 : 2;
    int targets[2] = {(me + 1) % np, (me + np - 1) % np};
    enum { BYTES = 4096 };
    void *bufs[2], *peer[2] = {0};
    size_t sizes[2] = {BYTES, BYTES};
    int ids[2], err = 0;
    for (int i = 0; i < n; i++) bufs[i] = calloc(1, BYTES);
    ZCom_init_c(bufs, sizes, MPI_COMM_WORLD, targets, n, peer, ids, &err);
    if (err != ZCOM_SUCCESS) {
        FAIL("ZCom_init_c: %s", ZCom_strerror(err));
        return;
    }
    double t0 = wall_now();
    for (int64_t it = 0; !fails && !too_long(t0); it++) {
        if (me == VICTIM && it == KILL_AFTER) die_now();
        for (int i = 0; i < n; i++) {
            while (!ZCom_can_write_c(ids[i], &err) && !err && !too_long(t0)) sched_yield();
            int64_t *b = bufs[i];
            for (int k = 0; k < BYTES / 8; k++) b[k] = (int64_t)me << 40 | it << 10 | k;
            ZCom_have_written_c(ids[i], &err);
        }
        for (int i = 0; i < n; i++) {
            while (!ZCom_can_read_c(ids[i], &err) && !err && !too_long(t0)) sched_yield();
            const int64_t *b = peer[i];
            for (int k = 0; k < BYTES / 8 && !fails; k++)
                if (b[k] != ((int64_t)targets[i] << 40 | it << 10 | k))
                    FAIL("round %" PRId64 ": word %d from rank %d wrong", it, k, targets[i]);
            ZCom_have_read_c(ids[i], &err);
        }
        if (err) FAIL("ZCom counters: %s", ZCom_strerror(err));
    }
}

/* Kills this process after a delay, wherever the main thread is (for loops where the interesting
 * moments are inside Shoal's calls). */
static void *killer_thread(void *arg) {
    usleep((useconds_t)(uintptr_t)arg);
    die_now();
    return NULL;
}

/* Collective allocation and free of a growing size: each creates a node shared-memory object
 * (created by the node's first unit, unlinked once every unit mapped it). The victim dies at a
 * random moment, often in the middle of one. */
static void loop_alloc(void) {
    if (me == VICTIM) {
        pthread_t t;
        srand((unsigned)getpid());
        uintptr_t delay_us = 200000 + (uintptr_t)(rand() % 300000);
        if (pthread_create(&t, NULL, killer_thread, (void *)delay_us) != 0) FAIL("pthread_create");
    }
    double t0 = wall_now();
    for (int64_t it = 0; !fails && !too_long(t0); it++) {
        shoal_gptr_t gp;
        size_t bytes = 4096 * (size_t)(1 + it % 64);
        OK(shoal_team_memalloc(SHOAL_TEAM_ALL, bytes, &gp));
        int64_t *mine = NULL, v = -1;
        OK(shoal_gptr_getaddr(gp, (void **)&mine));
        mine[0] = (int64_t)me << 32 | it;
        OK(shoal_barrier(SHOAL_TEAM_ALL));
        int left = (me + np - 1) % np;
        OK(shoal_get(&v, shoal_gptr_setunit(gp, left), sizeof v));
        if (v != ((int64_t)left << 32 | it)) FAIL("allocation %" PRId64 ": read %" PRId64, it, v);
        OK(shoal_barrier(SHOAL_TEAM_ALL));
        OK(shoal_team_memfree(gp));
    }
}

/* A child of unit 1 exits through exit() (atexit handlers run): the job must go on. */
static void fork_child_exit(void) {
    pid_t child = fork();
    if (child == 0) exit(0);
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        FAIL("the forked child did not exit with status 0 (status 0x%x)", status);
}

/* A short checked barrier loop that ends normally. */
static void loop_short(void) {
    shoal_gptr_t gp;
    OK(shoal_team_memalloc(SHOAL_TEAM_ALL, 8, &gp));
    shoal_gptr_t left = shoal_gptr_setunit(gp, (me + np - 1) % np);
    for (int64_t it = 0; it < 50 && !fails; it++) {
        OK(shoal_put(shoal_gptr_setunit(gp, me), &it, sizeof it));
        OK(shoal_barrier(SHOAL_TEAM_ALL));
        int64_t seen = -1;
        OK(shoal_get(&seen, left, sizeof seen));
        if (seen != it) FAIL("iteration %" PRId64 ": left neighbour's word is %" PRId64, it, seen);
        OK(shoal_barrier(SHOAL_TEAM_ALL));
    }
    OK(shoal_team_memfree(gp));
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: fault_driver CASE DIR\n");
        return 2;
    }
    const char *c = argv[1];
    dir = argv[2];
    int own_mpi = !strcmp(c, "zcom") || !strncmp(c, "nofin-mpi", 9) || !strcmp(c, "clean-mpi");
    if (own_mpi) {
        int got = 0;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &got);
    }
    if (strcmp(c, "zcom") != 0) {
        shoal_err_t e = shoal_init(&argc, &argv);
        if (e != SHOAL_OK) {
            fprintf(stderr, "fault: FAIL: shoal_init: %s\n", shoal_strerror(e));
            return 2;
        }
    }
    start();
    if (np < 2) {
        fprintf(stderr, "fault: FAIL: needs at least 2 units\n");
        return 2;
    }
    int victim_leaves = 0; /* the victim left its loop to exit without finalize */
    if (!strcmp(c, "put")) {
        loop_put();
    } else if (!strcmp(c, "barrier")) {
        loop_barrier(0, 0);
    } else if (!strcmp(c, "coll")) {
        loop_coll();
    } else if (!strcmp(c, "alloc")) {
        loop_alloc();
    } else if (!strcmp(c, "lock")) {
        loop_lock();
    } else if (!strcmp(c, "zcom")) {
        loop_zcom();
    } else if (!strcmp(c, "nofin") || !strcmp(c, "nofin-mpi") || !strcmp(c, "nofin-mpifin")) {
        loop_barrier(1, 0);
        victim_leaves = me == VICTIM && !fails;
    } else if (!strcmp(c, "nofin-exit")) {
        loop_barrier(0, 1);
    } else if (!strcmp(c, "clean") || !strcmp(c, "clean-mpi")) {
        loop_short();
        if (me == VICTIM && !strcmp(c, "clean")) fork_child_exit();
    } else {
        fprintf(stderr, "fault: FAIL: unknown case '%s'\n", c);
        return 2;
    }
    if (victim_leaves) {
        mark(strcmp(c, "nofin-mpifin") ? "returning from main without shoal_finalize"
                                       : "MPI_Finalize, then returning without shoal_finalize");
        if (!strcmp(c, "nofin-mpifin")) MPI_Finalize();
        return 0;
    }
    if (strncmp(c, "clean", 5) != 0) {
        /* A survivor gets here only on a failed check or the time limit. */
        fprintf(stderr, "fault: unit %d: FAIL: left the loop (%d failure(s))\n", me, fails);
        return 1;
    }
    OK(shoal_finalize());
    if (own_mpi) MPI_Finalize();
    if (me == 0 && !fails) printf("fault: clean run OK\n");
    return fails ? 1 : 0;
}
