#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpus.h"

/* Affinity masks are exchanged at this size: 8,192 CPUs, 1 KiB, once at start-up. A machine with
 * more (sched_getaffinity then fails) falls back to the online count. */
#define MASK_CPUS 8192

double shoal__cpus_parse_cpu_max(const char *text) {
    char quota[32];
    long period = 0;
    if (!text || sscanf(text, "%31s %ld", quota, &period) != 2 || period <= 0) return 0;
    if (!strcmp(quota, "max")) return 0;
    char *end;
    long q = strtol(quota, &end, 10);
    if (*end || q <= 0) return 0;
    return (double)q / (double)period;
}

double shoal__cpus_parse_cfs(const char *quota_text, const char *period_text) {
    long q, p;
    if (!quota_text || !period_text || sscanf(quota_text, "%ld", &q) != 1 ||
        sscanf(period_text, "%ld", &p) != 1 || q <= 0 || p <= 0)
        return 0;
    return (double)q / (double)p;
}

const char *shoal__cpus_cgroup_path(const char *line, int v2) {
    const char *c1 = strchr(line, ':');
    if (!c1) return NULL;
    const char *c2 = strchr(c1 + 1, ':');
    if (!c2 || c2[1] != '/') return NULL;
    if (v2) return (c2 == c1 + 1 && !strncmp(line, "0:", 2)) ? c2 + 1 : NULL;
    /* the controller list between the colons, comma-separated: look for "cpu" itself */
    for (const char *p = c1 + 1; p < c2;) {
        const char *e = memchr(p, ',', (size_t)(c2 - p));
        if (!e) e = c2;
        if (e - p == 3 && !strncmp(p, "cpu", 3)) return c2 + 1;
        p = e + 1;
    }
    return NULL;
}

static int read_small_file(const char *path, char *buf, size_t len) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n > 0;
}

/* The quota of one cgroup directory (v2 file, or v1 pair): 0 when none is set there. */
static double quota_at(const char *dir, int v2) {
    char path[4352], a[64], b[64];
    if (v2) {
        snprintf(path, sizeof path, "%s/cpu.max", dir);
        return read_small_file(path, a, sizeof a) ? shoal__cpus_parse_cpu_max(a) : 0;
    }
    snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
    if (!read_small_file(path, a, sizeof a)) return 0;
    snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
    if (!read_small_file(path, b, sizeof b)) return 0;
    return shoal__cpus_parse_cfs(a, b);
}

/* The tightest quota on the path from this process's cgroup up to the hierarchy's root (a limit
 * set on a parent binds its children too). */
static double quota_on_path(const char *mount, const char *cgpath, int v2) {
    char dir[4096];
    double tightest = 0;
    int n = snprintf(dir, sizeof dir, "%s%s", mount, cgpath);
    if (n <= 0 || (size_t)n >= sizeof dir) return 0;
    size_t root = strlen(mount), len = (size_t)n;
    while (len > root && dir[len - 1] == '/') dir[--len] = '\0';
    for (;;) { /* this cgroup, then each parent, the hierarchy's root last */
        double q = quota_at(dir, v2);
        if (q > 0 && (tightest == 0 || q < tightest)) tightest = q;
        if (strlen(dir) <= root) break;
        *strrchr(dir + root, '/') = '\0'; /* below the root, dir + root starts with '/' */
    }
    return tightest;
}

static double cgroup_quota(void) {
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return 0;
    char line[4096];
    double tightest = 0;
    static const char *const v1_mounts[] = {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"};
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        double q = 0;
        const char *p;
        if ((p = shoal__cpus_cgroup_path(line, 1))) {
            q = quota_on_path("/sys/fs/cgroup", p, 1);
        } else if ((p = shoal__cpus_cgroup_path(line, 0))) {
            for (int i = 0; i < 2 && q == 0; i++) q = quota_on_path(v1_mounts[i], p, 0);
        }
        if (q > 0 && (tightest == 0 || q < tightest)) tightest = q;
    }
    fclose(f);
    return tightest;
}

void shoal__cpus_usable(MPI_Comm machine, shoal_cpus_t *out) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    out->online = online > 0 ? (int)online : 1;
    out->affinity = out->online;
    /* Fixed-size masks, no allocation: every unit must reach the same collectives. */
    unsigned long mine[MASK_CPUS / (8 * sizeof(unsigned long))] = {0};
    unsigned long all[MASK_CPUS / (8 * sizeof(unsigned long))];
    size_t bytes = sizeof mine;
    int ok = sched_getaffinity(0, bytes, (cpu_set_t *)mine) == 0, ok_all = 0;
    if (!ok) memset(mine, 0, bytes);
    /* A failure anywhere keeps the online count (the agreed minimum). */
    MPI_Allreduce(&ok, &ok_all, 1, MPI_INT, MPI_MIN, machine);
    MPI_Allreduce(mine, all, (int)bytes, MPI_BYTE, MPI_BOR, machine);
    int in_union = CPU_COUNT_S(bytes, (cpu_set_t *)all);
    if (ok_all && in_union > 0) out->affinity = in_union;
    /* Each unit's quota is its own cgroup's; a job's units normally share one. The tightest
     * counts: a quota limits its cgroup's processes together. "None" travels as a huge value. */
    double quota = cgroup_quota(), tightest = 0;
    if (quota <= 0) quota = 1e300;
    MPI_Allreduce(&quota, &tightest, 1, MPI_DOUBLE, MPI_MIN, machine);
    out->quota = tightest < 1e300 ? tightest : 0;
    out->usable = out->affinity;
    if (out->quota > 0) {
        int by_quota = (int)out->quota; /* rounded up: 1.5 CPUs' worth lets 2 units run at once */
        if (by_quota < out->quota) by_quota++;
        if (by_quota < out->usable) out->usable = by_quota;
    }
    if (out->usable < 1) out->usable = 1;
}
