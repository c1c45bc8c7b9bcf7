/* Small helpers the benchmark programs share: the clock, the load average, and the waiting
 * policy of a benchmark's own busy-waits (spin briefly, then yield, and let MPI progress now and
 * then, as the runtime's waits do: the machines run more processes than cores). Header-only: each
 * benchmark is one program. */
#ifndef SHOAL_BENCH_UTIL_H
#define SHOAL_BENCH_UTIL_H

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Nanoseconds on the monotonic clock. */
static inline double bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile (0..1, linear interpolation) of v[0..n); sorts v. */
static inline double bench_quantile(double *v, int n, double q) {
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    double pos = q * (n - 1);
    int lo = (int)pos;
    if (lo >= n - 1) return v[n - 1];
    return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}

/* order[0..n) = a permutation of 0..n-1 drawn from *rng (a 64-bit LCG state: the same seed gives
 * the same order on every process). Interleaved batches run their variants in such an order, a
 * new one per batch: in a fixed cyclic order each variant always follows the same one and inherits
 * its cache state (bench_coll: auto, always after MPI_Bcast, took 1.3-1.4x the same algorithm
 * forced for 1-4 MiB broadcasts). */
static inline void bench_shuffle(int *order, int n, uint64_t *rng) {
    for (int j = 0; j < n; j++) order[j] = j;
    for (int j = n - 1; j > 0; j--) {
        *rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
        int x = (int)((*rng >> 33) % (uint64_t)(j + 1)), t = order[j];
        order[j] = order[x];
        order[x] = t;
    }
}

/* "8 B", "64 KiB", "4 MiB" (exact multiples only; otherwise bytes). */
static inline const char *bench_fmt_size(size_t s, char *buf, size_t len) {
    if (s >= ((size_t)1 << 20) && s % ((size_t)1 << 20) == 0)
        snprintf(buf, len, "%zu MiB", s >> 20);
    else if (s >= 1024 && s % 1024 == 0)
        snprintf(buf, len, "%zu KiB", s >> 10);
    else
        snprintf(buf, len, "%zu B", s);
    return buf;
}

/* Copies `in` into buf with runs of blanks squeezed to one and no blank at either end (up to the
 * first newline when first_line): MPI library version strings are long and ragged. */
static inline const char *bench_squeeze_blanks(const char *in, int first_line, char *buf,
                                               size_t len) {
    size_t o = 0;
    for (; *in && !(first_line && *in == '\n') && o + 1 < len; in++) {
        int blank = *in == ' ' || *in == '\t';
        if (blank && (o == 0 || buf[o - 1] == ' ')) continue;
        buf[o++] = blank ? ' ' : *in;
    }
    while (o && buf[o - 1] == ' ') o--;
    buf[o] = 0;
    return buf;
}

/* Seconds on the monotonic clock. */
static inline double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The 1-minute load average (the machines are shared: a busy one explains noisy figures). */
static inline double bench_loadavg(void) {
    double l = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = NAN;
        fclose(f);
    }
    return l;
}

static inline void bench_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Polls before a wait yields: SHOAL_SPIN_COUNT when set, as for the runtime; else 256. */
static inline unsigned bench_spin_limit(void) {
    static int limit = -1;
    if (limit < 0) {
        const char *sc = getenv("SHOAL_SPIN_COUNT");
        limit = sc && atoi(sc) >= 0 ? atoi(sc) : 256;
    }
    return (unsigned)limit;
}

/* One poll of a busy-wait: spin for the first bench_spin_limit() polls, then yield the core on
 * every poll; every 1024 polls also let MPI progress (MPICH over UCX may need the peer that left
 * a barrier first to progress before the other can leave it). */
static inline void bench_relax(unsigned *spins) {
    unsigned s = ++*spins;
    if (s < bench_spin_limit()) {
        bench_cpu_relax();
        return;
    }
    sched_yield();
    if (s % 1024 == 0) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
}

/* What a program does around a collective, one access per cache line: it has just written the
 * source (the lines are modified in its cache) and reads the result afterwards (bench_coll
 * --touch, shoal-coll-tune). Untouched, nobody reads dest, which flatters algorithms that copy
 * once straight from the source against those that stage the data. The reads' XOR is returned,
 * so that the caller can keep it and the reads are made. */
static inline void bench_touch_write(char *p, size_t bytes) {
    volatile char *v = p;
    for (size_t i = 0; i < bytes; i += 64) v[i] = v[i];
}
static inline char bench_touch_read(const char *p, size_t bytes) {
    const volatile char *v = p;
    char x = 0;
    for (size_t i = 0; i < bytes; i += 64) x ^= v[i];
    return x;
}

static inline const char *bench_mpi_name(void) {
#ifdef OMPI_MAJOR_VERSION
    return "Open MPI";
#else
    return "MPICH";
#endif
}

/* Processes of MPI_COMM_WORLD on this node, and whether they outnumber the online cores. */
static inline int bench_oversubscribed(int *on_node, long *cores) {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, on_node);
    MPI_Comm_free(&node);
    *cores = sysconf(_SC_NPROCESSORS_ONLN);
    return *on_node > *cores;
}

/* Microseconds with three significant digits or so ("-" for NaN), for the tables. */
static inline const char *bench_fmt_us(double x, char *buf, size_t len) {
    if (isnan(x))
        snprintf(buf, len, "-");
    else if (x >= 1000)
        snprintf(buf, len, "%.0f", x);
    else if (x >= 100)
        snprintf(buf, len, "%.1f", x);
    else if (x >= 10)
        snprintf(buf, len, "%.2f", x);
    else
        snprintf(buf, len, "%.3f", x);
    return buf;
}

/* "64K", "1MiB", "4096" into bytes; 0 on success. */
static inline int bench_parse_size(const char *t, size_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(t, &end, 10);
    if (errno || end == t) return -1;
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    if (*end == 'i' && end[1] == 'B') end += 2;
    if (*end == 'B') end++;
    if (*end) return -1;
    *out = (size_t)v;
    return 0;
}

/* The CPU model from /proc/cpuinfo, for every report's head. */
static inline void bench_cpu_model(char *buf, size_t len) {
    snprintf(buf, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) && strncmp(line, "Model", 5) &&
            strncmp(line, "Hardware", 8))
            continue;
        char *colon = strchr(line, ':');
        if (!colon) continue;
        bench_squeeze_blanks(colon + 1, 1, buf, len);
        break;
    }
    fclose(f);
}

/* ---- Background load --------------------------------------------------------------------------
 * Issue 12's "graceful under load": other programs competing for the cores. bench_load_start(n)
 * forks n processes that only spin on the CPU (no MPI, no shared state: safe after MPI_Init),
 * each dying with its parent (PR_SET_PDEATHSIG); bench_load_stop() kills and reaps them. The
 * spinners may run on every online CPU: a fork inherits the unit's binding, and under Open MPI
 * (which binds each unit to a core) all of them then shared unit 0's core and left unit 1's
 * alone, so unit 0 got 1/13 of a core and each of its yields cost a round of 12 slices (a 2-unit
 * broadcast that waits for its member once a call took 16-26 ms). Other programs on a busy
 * machine spread over its CPUs. */

#define BENCH_LOAD_MAX 64
static pid_t bench_load_pids[BENCH_LOAD_MAX];
static int bench_load_n;

static inline int bench_load_start(int n) {
    if (n > BENCH_LOAD_MAX) n = BENCH_LOAD_MAX;
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) return -1;
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            /* every online CPU (the raw call: cpu_set_t needs _GNU_SOURCE in every includer);
             * best effort: a cgroup may refuse some */
            unsigned long all[16] = {0};
            long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
            for (long c = 0; c < ncpu && c < 16 * 64; c++) all[c / 64] |= 1UL << (c % 64);
            syscall(SYS_sched_setaffinity, 0, sizeof all, all);
            volatile unsigned long spin = 0;
            for (;;) spin++;
        }
        bench_load_pids[bench_load_n++] = pid;
    }
    return 0;
}

static inline void bench_load_stop(void) {
    for (int i = 0; i < bench_load_n; i++) kill(bench_load_pids[i], SIGKILL);
    for (int i = 0; i < bench_load_n; i++) waitpid(bench_load_pids[i], NULL, 0);
    bench_load_n = 0;
}

#endif
