/* Helpers shared by the OpenSHMEM tests (header-only; one test program = one .c file). Only the
 * OpenSHMEM API is used, as a user's program would.
 *
 *   int main(void) {
 *       test_init();                          // shmem_init; sets t_me, t_np; arms a watchdog
 *       CHECK(x == 3, "x is %d, expected 3", x);
 *       return test_end("test_name");         // combines failures over all PEs, finalizes
 *   }
 *
 * CHECK(cond, fmt, ...) records a failure, prints "PE p: file:line: message" and carries on (one
 * run reports every broken case); REQUIRE ends the job (shmem_global_exit) for set-up that the
 * rest depends on. VAL(T, seed, pe, i) is the test datum: a small positive integer (1..101), so
 * every type of every table holds it exactly and sums of a few of them stay exact in float.
 * test_end prints "<name>: OK" or "<name>: FAILED" on PE 0; every PE's exit code is non-zero when
 * it saw a failure, PE 0's also when any PE did. The watchdog (TEST_TIMEOUT seconds, default 100;
 * 0 = off) ends a hung test with a message before CTest's timeout does. */
#ifndef SHMEM_TESTLIB_H
#define SHMEM_TESTLIB_H

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <shmem.h>

static int t_me, t_np = 1;  /* my PE and the number of PEs */
static int t_one_host_ = 1; /* every PE runs on my host (test_start compares host names) */
static long t_failures;     /* failed checks on this PE */
static long *t_slots_;      /* symmetric: PE 0 gathers the failure counts here */

#define CHECK(cond, ...) test_check_((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)
#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        if (!CHECK(cond, __VA_ARGS__)) {                                                           \
            fprintf(stderr, "PE %d: cannot go on; ending the job\n", t_me);                        \
            shmem_global_exit(1);                                                                  \
        }                                                                                          \
    } while (0)

/* The test datum: 1..101, different for neighbouring seeds, PEs and indices. */
#define VAL(T, seed, pe, i)                                                                        \
    ((T)((((long)(seed)*13 + (long)(pe)*31 + (long)(i)*7) % 101 + 101) % 101 + 1))

__attribute__((format(printf, 4, 5))) static inline int
test_check_(int ok, const char *file, int line, const char *fmt, ...) {
    if (ok) return 1;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *base = strrchr(file, '/');
    fprintf(stderr, "PE %d: %s:%d: %s\n", t_me, base ? base + 1 : file, line, msg);
    fflush(stderr);
    t_failures++;
    return 0;
}

static char t_watchdog_msg_[96];
static inline void test_timeout_handler_(int sig) {
    (void)sig;
    ssize_t r = write(2, t_watchdog_msg_, strlen(t_watchdog_msg_));
    (void)r;
    _exit(3);
}

/* After shmem_init (or shmem_init_thread): reads my PE and the PE count, arms the watchdog. */
static inline void test_start(void) {
    t_me = shmem_my_pe();
    t_np = shmem_n_pes();
    if (t_me < 0 || t_np < 1 || t_me >= t_np) {
        fprintf(stderr, "shmem_my_pe() %d, shmem_n_pes() %d: not initialised?\n", t_me, t_np);
        exit(2);
    }
    t_slots_ = (long *)shmem_calloc((size_t)t_np, sizeof(long));
    REQUIRE(t_slots_ != NULL, "shmem_calloc of the failure slots returned NULL");
    /* One host or several (the namespace cluster's nodes have host names of their own): every
     * PE writes a hash of its host name into its slot everywhere, then compares. */
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    long h = 5381;
    for (const char *c = host; *c; c++) h = h * 33 + *c;
    for (int pe = 0; pe < t_np; pe++) shmem_long_p(&t_slots_[t_me], h, pe);
    shmem_barrier_all();
    for (int pe = 0; pe < t_np; pe++) t_one_host_ &= t_slots_[pe] == h;
    shmem_barrier_all();
    memset(t_slots_, 0, (size_t)t_np * sizeof(long)); /* nobody writes here before test_end */
    const char *env = getenv("TEST_TIMEOUT");
    unsigned secs = env && *env ? (unsigned)atoi(env) : 100;
    if (secs) {
        snprintf(t_watchdog_msg_, sizeof t_watchdog_msg_,
                 "PE %d: test watchdog: still running after %u s (hung?)\n", t_me, secs);
        signal(SIGALRM, test_timeout_handler_);
        alarm(secs);
    }
}

static inline void test_init(void) {
    shmem_init();
    test_start();
}

/* Gathers the failure counts on PE 0, finalizes, prints the verdict, returns the exit code. */
static inline int test_end(const char *name) {
    shmem_barrier_all();
    shmem_long_p(&t_slots_[t_me], t_failures, 0);
    shmem_barrier_all();
    long total = t_failures;
    if (t_me == 0) {
        total = 0;
        for (int i = 0; i < t_np; i++) total += t_slots_[i];
    }
    shmem_free(t_slots_);
    shmem_finalize();
    alarm(0);
    if (t_me == 0) {
        printf("%s: %s (%d PEs)\n", name, total ? "FAILED" : "OK", t_np);
        fflush(stdout);
    }
    return total ? 1 : 0;
}

/* This process's stderr, captured around a call (messages are checked by their text). */
static FILE *t_capture_;
static int t_saved_fd_ = -1;
static char t_captured[16384];
static inline void test_capture_begin(void) {
    fflush(stderr);
    t_capture_ = tmpfile();
    if (!t_capture_) {
        perror("tmpfile");
        exit(2);
    }
    t_saved_fd_ = dup(2);
    dup2(fileno(t_capture_), 2);
}
/* Ends the capture; the text (also in t_captured). */
static inline const char *test_capture_end(void) {
    fflush(stderr);
    dup2(t_saved_fd_, 2);
    close(t_saved_fd_);
    rewind(t_capture_);
    size_t n = fread(t_captured, 1, sizeof t_captured - 1, t_capture_);
    t_captured[n] = '\0';
    fclose(t_capture_);
    return t_captured;
}

/* 1 unless SHOAL_DIRECT=0 (the shared-memory path is on by default). */
static inline int test_direct(void) {
    const char *e = getenv("SHOAL_DIRECT");
    return !(e && strcmp(e, "0") == 0);
}

/* 1 when every PE is reachable directly: the direct path on one node (one host, not split into
 * pretend nodes by SHOAL_PRETEND_NODES). */
static inline int test_all_direct(void) {
    const char *p = getenv("SHOAL_PRETEND_NODES");
    return test_direct() && t_one_host_ && !(p && atoi(p) > 1);
}

/* 1 in the runs that crawl on CI's 2 cores: the MPI path with more than 2 PEs (MPI's passive
 * target needs the target process scheduled), or more than 4 PEs. Such runs sweep a
 * representative subset of the types (test_keep); the full sweep runs at 1-2 PEs on both paths
 * and at 3-4 PEs on the direct path. */
static inline int test_light(void) {
    /* (pretend nodes above 2 PEs: every atomic and wait goes through MPI, as on the MPI path) */
    return ((!test_direct() || !test_all_direct()) && t_np > 2) || t_np > 4;
}

/* Whether to test the type named N (a TYPENAME of the tables) in this run. */
static inline int test_keep(const char *name) {
    static const char *const keep[] = {"int",        "uint32",   "uint64", "double",
                                       "longdouble", "complexd", "char",   "mem"};
    if (!test_light()) return 1;
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        if (strcmp(name, keep[i]) == 0) return 1;
    return 0;
}

static inline int test_right(void) {
    return (t_me + 1) % t_np;
}
static inline int test_left(void) {
    return (t_me + t_np - 1) % t_np;
}

#endif /* SHMEM_TESTLIB_H */
