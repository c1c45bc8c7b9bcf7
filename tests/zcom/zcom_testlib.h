/* Small helpers for the ZCom tests (plain MPI programs: no shoal_init). */
#ifndef ZCOM_TESTLIB_H
#define ZCOM_TESTLIB_H

#include <dirent.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shoal/zcom.h"

static int zt_rank, zt_size, zt_fails;
static const char *zt_name = "test";

#define ZT_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s: rank %d: FAIL at %s:%d: ", zt_name, zt_rank, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            zt_fails++;                                                                            \
        }                                                                                          \
    } while (0)

static inline void zt_init(int *argc, char ***argv, const char *name) {
    zt_name = name;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &zt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &zt_size);
}

/* Ends the test: every process's verdict is combined; rank 0 prints the final line. */
static inline int zt_finish(void) {
    int all = 0;
    MPI_Allreduce(&zt_fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (zt_rank == 0) {
        if (all)
            printf("%s: FAILED (%d failure(s))\n", zt_name, all);
        else
            printf("%s: OK\n", zt_name);
    }
    MPI_Finalize();
    return all ? 1 : 0;
}

static inline double zt_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Spins (yielding) until pred(channel) is 1; 0 on timeout (20 s) or error. */
static inline int zt_wait(int (*pred)(int, int *), int channel) {
    double t0 = zt_now();
    for (;;) {
        int err = 0, ok = pred(channel, &err);
        if (err) return 0;
        if (ok) return 1;
        if (zt_now() - t0 > 20) return 0;
        sched_yield();
    }
}

/* Open file descriptors of this process. */
static inline int zt_count_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    if (!d) return -1;
    while (readdir(d)) n++;
    closedir(d);
    return n;
}

/* Number of ZCom shared mappings (memfd "shoal-zcom") in this process. */
static inline int zt_count_zcom_maps(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "memfd:shoal-zcom")) n++;
    fclose(f);
    return n;
}

/* 's' when the page holding p is a shared mapping, 'p' when private, '?' when unmapped. */
static inline char zt_mapping_kind(const void *p) {
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512], kind = '?';
    if (!f) return '?';
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) == 3 && (unsigned long)p >= a &&
            (unsigned long)p < b) {
            kind = perms[3];
            break;
        }
    }
    fclose(f);
    return kind;
}

/* Captures this process's stderr between zt_capture_start and zt_capture_end, which returns the
 * text (and writes it to the real stderr too, so that the test log keeps it). */
typedef struct {
    int saved;
    FILE *f;
} zt_capture_t;

static inline void zt_capture_start(zt_capture_t *c) {
    fflush(stderr);
    c->f = tmpfile();
    c->saved = c->f ? dup(2) : -1;
    if (c->saved >= 0) dup2(fileno(c->f), 2);
}

static inline const char *zt_capture_end(zt_capture_t *c, char *text, size_t len) {
    text[0] = 0;
    if (c->saved < 0) {
        if (c->f) fclose(c->f);
        return text;
    }
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    rewind(c->f);
    size_t n = fread(text, 1, len - 1, c->f);
    text[n] = 0;
    fclose(c->f);
    fputs(text, stderr);
    return text;
}

/* Lines of text that start with prefix. */
static inline int zt_count_lines(const char *text, const char *prefix) {
    int n = 0;
    for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
        if (strncmp(l, prefix, strlen(prefix)) == 0) n++;
    return n;
}

#endif
