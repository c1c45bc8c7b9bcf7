/* Small helpers shared by the MPI tests (header-only; one test program = one .c file).
 *
 *   int main(int argc, char **argv) {
 *       test_begin(&argc, &argv);             // shoal_init; sets t_me, t_np; arms a watchdog
 *       CHECK(x == 3, "x is %d, expected 3", x);
 *       CHECK_OK(shoal_put(gp, buf, n));
 *       return test_end("test_name");         // combines failures over all units
 *   }
 *
 * Checks:   CHECK(cond, fmt, ...), CHECK_OK(call): record a failure and carry on (so one run
 *           reports every broken case); both evaluate to 1 on success. REQUIRE / REQUIRE_OK: the
 *           same, but abort the run (for set-up the rest depends on). CHECK_PATTERN(buf, n, seed,
 *           unit, first, what): buf against the pattern. Messages read "unit U: file:line: ...".
 * Data:     byte_at(seed, unit, index), fill_pattern(buf, n, seed, unit, first).
 * Waiting:  SPIN_UNTIL(cond, seconds) (yields; fails on timeout), test_yield(), test_now().
 * Layout:   t_me, t_np, test_left(), test_right() (ring neighbours; myself when alone),
 *           test_direct() (SHOAL_DIRECT in force), test_same_node(u), test_multiple_possible()
 *           (Shoal can give MPI_THREAD_MULTIPLE to this job).
 * Pacing:   test_scale(seconds per iteration, budget, lo, hi): collective iteration count.
 * test_end prints "<name>: OK" or "<name>: FAILED" on unit 0 and returns the exit code, the same
 * on every unit. The watchdog (TEST_TIMEOUT_S seconds, environment TEST_TIMEOUT overrides, 0 = off)
 * ends a hung test with a message before CTest's timeout does. */
#ifndef SHOAL_TESTLIB_H
#define SHOAL_TESTLIB_H

#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shoal.h>

#ifndef TEST_TIMEOUT_S
#define TEST_TIMEOUT_S 150
#endif

static shoal_unit_t t_me; /* my absolute unit id */
static int32_t t_np = 1;  /* number of units */
static long t_failures;   /* failed checks on this unit */

/* Records a failure (and prints why) when cond is false; evaluates to cond's truth value. */
#define CHECK(cond, ...) test_check_((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

/* A Shoal call that must return SHOAL_OK; evaluates to 1 when it did. */
#define CHECK_OK(call) test_check_ok_((call), #call, __FILE__, __LINE__)

/* Like CHECK, but a failure ends the whole run (MPI_Abort): for set-up steps (allocations) that
 * the rest of the test, and its collective calls, depend on. */
#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        if (!CHECK(cond, __VA_ARGS__)) test_abort_();                                              \
    } while (0)
#define REQUIRE_OK(call)                                                                           \
    do {                                                                                           \
        if (!CHECK_OK(call)) test_abort_();                                                        \
    } while (0)

/* Spins (yielding) until cond holds; after timeout_s seconds records a failure and gives up.
 * cond may contain Shoal calls (which drive MPI progress). */
#define SPIN_UNTIL(cond, timeout_s)                                                                \
    do {                                                                                           \
        double spin_deadline_ = test_now() + (timeout_s);                                          \
        while (!(cond)) {                                                                          \
            if (test_now() > spin_deadline_) {                                                     \
                test_report_(__FILE__, __LINE__, "timed out waiting for: %s", #cond);              \
                break;                                                                             \
            }                                                                                      \
            test_yield();                                                                          \
        }                                                                                          \
    } while (0)

static inline void test_vreport_(const char *file, int line, const char *fmt, va_list ap) {
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    const char *base = strrchr(file, '/');
    fprintf(stderr, "unit %d: %s:%d: %s\n", (int)t_me, base ? base + 1 : file, line, msg);
    fflush(stderr);
    t_failures++;
}

__attribute__((format(printf, 3, 4))) static inline void test_report_(const char *file, int line,
                                                                      const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    test_vreport_(file, line, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 4, 5))) static inline int
test_check_(int ok, const char *file, int line, const char *fmt, ...) {
    if (ok) return 1;
    va_list ap;
    va_start(ap, fmt);
    test_vreport_(file, line, fmt, ap);
    va_end(ap);
    return 0;
}

static inline void test_abort_(void) {
    fprintf(stderr, "unit %d: cannot go on; aborting\n", (int)t_me);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static inline int test_check_ok_(shoal_err_t err, const char *call, const char *file, int line) {
    if (err == SHOAL_OK) return 1;
    test_report_(file, line, "%s returned %s", call, shoal_strerror(err));
    return 0;
}

/* Seconds on a monotonic clock. */
static inline double test_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Gives the core away: the machine has 2 cores and tests run up to 8 processes. */
static inline void test_yield(void) {
    sched_yield();
}

/* The deterministic test pattern: byte `index` of the data that `unit` writes under `seed`.
 * Neighbouring indices, units and seeds give unrelated bytes, so a shifted, stale or misdirected
 * copy is caught. */
static inline uint8_t byte_at(uint64_t seed, uint64_t unit, uint64_t index) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ull ^ (unit + 1) * 0xC2B2AE3D27D4EB4Full ^
                 (index + 1) * 0x165667B19E3779F9ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (uint8_t)(x >> 24);
}

/* buf[i] = byte_at(seed, unit, first + i) for i in [0, n). */
static inline void fill_pattern(void *buf, size_t n, uint64_t seed, uint64_t unit, uint64_t first) {
    uint8_t *p = buf;
    for (size_t i = 0; i < n; i++) p[i] = byte_at(seed, unit, first + i);
}

/* Checks buf against the pattern; reports the first bad byte and how many differ (one failure).
 * Returns 1 when every byte matches. */
#define CHECK_PATTERN(buf, n, seed, unit, first, what)                                             \
    test_check_pattern_((buf), (n), (seed), (unit), (first), (what), __FILE__, __LINE__)
static inline int test_check_pattern_(const void *buf, size_t n, uint64_t seed, uint64_t unit,
                                      uint64_t first, const char *what, const char *file,
                                      int line) {
    const uint8_t *p = buf;
    size_t bad = 0, first_bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != byte_at(seed, unit, first + i)) {
            if (!bad) first_bad = i;
            bad++;
        }
    }
    if (bad)
        test_report_(file, line,
                     "%s: %zu of %zu bytes wrong (seed %llu, writer %llu); first at byte %zu: "
                     "0x%02x, expected 0x%02x",
                     what, bad, n, (unsigned long long)seed, (unsigned long long)unit, first_bad,
                     p[first_bad], byte_at(seed, unit, first + first_bad));
    return bad == 0;
}

/* 1 when the direct (shared-memory) path is on, as configured at shoal_init. */
static inline int test_direct(void) {
    for (int i = 0; i < shoal_config_count(); i++) {
        shoal_config_var_t v;
        if (shoal_config_var(i, &v) == SHOAL_OK && strcmp(v.name, "SHOAL_DIRECT") == 0)
            return strcmp(v.value, "0") != 0;
    }
    return 1;
}

/* 1 when, before shoal_init, this is a job Shoal can give MPI_THREAD_MULTIPLE on Open MPI 4.1:
 * every unit on one node (what Open MPI's launcher says), the direct path on and no
 * pretend nodes (docs/design.md, "threads with Open MPI"). Always 1 on other MPIs. */
static inline int test_multiple_possible(void) {
#ifdef OPEN_MPI
    const char *direct = getenv("SHOAL_DIRECT"), *pretend = getenv("SHOAL_PRETEND_NODES");
    const char *size = getenv("OMPI_COMM_WORLD_SIZE"),
               *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    return !(direct && !strcmp(direct, "0")) && !(pretend && atoi(pretend) > 0) && size && local &&
           atoi(size) >= 1 && atoi(size) == atoi(local);
#else
    return 1;
#endif
}

/* 1 when unit u shares my node. */
static inline int test_same_node(shoal_unit_t u) {
    int32_t n = 0;
    if (shoal_node_size(&n) != SHOAL_OK || n <= 0) return 0;
    shoal_unit_t units[n];
    if (shoal_node_units(units, n) != SHOAL_OK) return 0;
    for (int32_t i = 0; i < n; i++)
        if (units[i] == u) return 1;
    return 0;
}

static char t_watchdog_msg_[80];
static inline void test_timeout_handler_(int sig) {
    (void)sig;
    ssize_t r = write(2, t_watchdog_msg_, strlen(t_watchdog_msg_));
    (void)r;
    _exit(3);
}

/* Initialises Shoal (and MPI), reads my id and the unit count, arms the watchdog. */
/* test_begin with shoal_init_thread(required): *provided gets the level in force. */
static inline void test_begin_thread(int *argc, char ***argv, int required, int *provided) {
    shoal_err_t err =
        required < 0 ? shoal_init(argc, argv) : shoal_init_thread(argc, argv, required, provided);
    if (err != SHOAL_OK) {
        fprintf(stderr, "shoal_init failed: %s\n", shoal_strerror(err));
        exit(2);
    }
    CHECK_OK(shoal_myid(&t_me));
    CHECK_OK(shoal_size(&t_np));
    const char *env = getenv("TEST_TIMEOUT");
    unsigned secs = env && *env ? (unsigned)atoi(env) : TEST_TIMEOUT_S;
    if (secs) {
        snprintf(t_watchdog_msg_, sizeof t_watchdog_msg_,
                 "unit %d: test watchdog: still running after %u s (hung?)\n", (int)t_me, secs);
        signal(SIGALRM, test_timeout_handler_);
        alarm(secs);
    }
}

static inline void test_begin(int *argc, char ***argv) {
    test_begin_thread(argc, argv, -1, NULL);
}

/* Combines the failures of all units, finalises, prints the verdict on unit 0, returns the exit
 * code (0 on success). */
static inline int test_end(const char *name) {
    long total = 0;
    MPI_Allreduce(&t_failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    shoal_unit_t me = t_me;
    shoal_err_t err = shoal_finalize();
    if (err != SHOAL_OK) {
        fprintf(stderr, "unit %d: shoal_finalize returned %s\n", (int)me, shoal_strerror(err));
        total++;
    }
    alarm(0);
    if (me == 0 || err != SHOAL_OK) {
        printf("%s: %s\n", name, total ? "FAILED" : "OK");
        fflush(stdout);
    }
    return total ? 1 : 0;
}

/* Collective: how many iterations fit in budget_s seconds when one takes per_iter_s here (the
 * slowest unit decides), clamped to [lo, hi]. Lets one test stay within a few seconds both on the
 * direct path and on MPI paths that crawl when processes outnumber cores. */
static inline int test_scale(double per_iter_s, double budget_s, int lo, int hi) {
    double worst = per_iter_s;
    MPI_Allreduce(&per_iter_s, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double n = worst > 0 ? budget_s / worst : (double)hi;
    return n < lo ? lo : n > hi ? hi : (int)n;
}

/* Unit ids of my neighbours on the ring (myself when alone). */
static inline shoal_unit_t test_right(void) {
    return (t_me + 1) % t_np;
}
static inline shoal_unit_t test_left(void) {
    return (t_me + t_np - 1) % t_np;
}

#endif /* SHOAL_TESTLIB_H */
