/* The CPU count's parsers (runtime/cpus.h): cgroup v2's cpu.max, cgroup v1's quota and period,
 * and the lines of /proc/self/cgroup that name the hierarchy with the cpu controller. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/cpus.h"
#include "unit_check.h"

static int near(double a, double b) {
    return fabs(a - b) < 1e-9;
}

int main(void) {
    CHECK(near(shoal__cpus_parse_cpu_max("max 100000\n"), 0), "max is no limit");
    CHECK(near(shoal__cpus_parse_cpu_max("150000 100000\n"), 1.5), "1.5 CPUs");
    CHECK(near(shoal__cpus_parse_cpu_max("50000 100000"), 0.5), "half a CPU");
    CHECK(near(shoal__cpus_parse_cpu_max("400000 100000"), 4), "4 CPUs");
    CHECK(near(shoal__cpus_parse_cpu_max("100000"), 0), "a period is required");
    CHECK(near(shoal__cpus_parse_cpu_max("abc 100000"), 0), "a quota that is not a number");
    CHECK(near(shoal__cpus_parse_cpu_max("0 100000"), 0), "a zero quota is no limit we can use");
    CHECK(near(shoal__cpus_parse_cpu_max(""), 0), "empty");
    CHECK(near(shoal__cpus_parse_cpu_max(NULL), 0), "NULL");

    CHECK(near(shoal__cpus_parse_cfs("-1\n", "100000\n"), 0), "v1: -1 is no limit");
    CHECK(near(shoal__cpus_parse_cfs("250000\n", "100000\n"), 2.5), "v1: 2.5 CPUs");
    CHECK(near(shoal__cpus_parse_cfs("250000", "0"), 0), "v1: a zero period");
    CHECK(near(shoal__cpus_parse_cfs("x", "100000"), 0), "v1: not a number");

    const char *p;
    p = shoal__cpus_cgroup_path("0::/user.slice/job-7", 1);
    CHECK(p && !strcmp(p, "/user.slice/job-7"), "v2 path: %s", p ? p : "(none)");
    CHECK(!shoal__cpus_cgroup_path("0::/x", 0), "a v2 line is not the v1 cpu hierarchy");
    p = shoal__cpus_cgroup_path("4:cpu,cpuacct:/slurm/job_12", 0);
    CHECK(p && !strcmp(p, "/slurm/job_12"), "v1 cpu,cpuacct: %s", p ? p : "(none)");
    p = shoal__cpus_cgroup_path("1:cpu:/", 0);
    CHECK(p && !strcmp(p, "/"), "v1 cpu alone: %s", p ? p : "(none)");
    p = shoal__cpus_cgroup_path("2:cpuacct,cpu:/a", 0);
    CHECK(p && !strcmp(p, "/a"), "v1 cpu listed second: %s", p ? p : "(none)");
    CHECK(!shoal__cpus_cgroup_path("2:cpuacct:/a", 0), "cpuacct is not cpu");
    CHECK(!shoal__cpus_cgroup_path("3:cpuset:/a", 0), "cpuset is not cpu");
    CHECK(!shoal__cpus_cgroup_path("9:name=systemd:/", 0), "a named hierarchy");
    CHECK(!shoal__cpus_cgroup_path("4:cpu,cpuacct:/a", 1), "a v1 line is not v2");
    CHECK(!shoal__cpus_cgroup_path("garbage", 0), "no colons");
    printf("test_cpus_parse: %s\n", failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}
