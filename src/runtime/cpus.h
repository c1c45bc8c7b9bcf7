/* How many CPUs the units of this machine can run on. The waiting policy (wait.c) compares it
 * with the number of units: a batch system's cpuset, taskset or a binding can give a job fewer
 * CPUs than the machine has online, and a container's CPU bandwidth limit (cgroup cpu.max, or
 * cfs_quota_us in cgroup v1) can give it less time than its CPUs; counting online CPUs would call
 * such a job "a CPU per unit" and let its waits spin while the unit they wait for needs the CPU. */
#ifndef SHOAL_RUNTIME_CPUS_H
#define SHOAL_RUNTIME_CPUS_H

#include <mpi.h>

typedef struct {
    int online;   /* CPUs online on the machine */
    int affinity; /* CPUs in the union of the units' affinity masks (online if unknown) */
    double quota; /* CPUs' worth of time the cgroup allows this process; 0: no limit */
    int usable;   /* what the units can use: min(affinity, ceil(quota)) */
} shoal_cpus_t;

/* Collective over machine (every unit of one shared-memory machine). */
void shoal__cpus_usable(MPI_Comm machine, shoal_cpus_t *out);

/* Parsers, exposed for unit tests. cgroup v2's cpu.max ("max 100000", "150000 100000") and
 * cgroup v1's pair (cfs_quota_us, cfs_period_us; a quota of -1 is no limit): CPUs' worth of time,
 * 0 when unlimited or unreadable. */
double shoal__cpus_parse_cpu_max(const char *text);
double shoal__cpus_parse_cfs(const char *quota_text, const char *period_text);
/* One line of /proc/self/cgroup: the cgroup path of the v2 hierarchy ("0::/a/b") when v2 is 1,
 * or of the v1 hierarchy that has the cpu controller ("4:cpu,cpuacct:/a") when v2 is 0; NULL
 * when the line is not that. Points into line. */
const char *shoal__cpus_cgroup_path(const char *line, int v2);

#endif
