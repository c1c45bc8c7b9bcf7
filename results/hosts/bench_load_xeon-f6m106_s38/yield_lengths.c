/* How long a sched_yield takes on CPU 1 for 1 s each: with nothing else running, with a spinning
 * process pinned to the other CPU, with one left unpinned, and with one pinned to CPU 1; counts
 * by duration (session 38, docs/design.md "Open (session 38)"). gcc -O2 yield_lengths.c */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void pin(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(0, sizeof s, &s);
}

static void count(const char *what) {
    long h[5] = {0}, n = 0;
    pin(1);
    for (double end = now_ns() + 1e9; now_ns() < end; n++) {
        double a = now_ns();
        sched_yield();
        double t = now_ns() - a;
        h[t < 2e3 ? 0 : t < 2e4 ? 1 : t < 2e5 ? 2 : t < 1e6 ? 3 : 4]++;
    }
    printf("%-32s yields %8ld: <2us %ld, 2-20us %ld, 20-200us %ld, 0.2-1ms %ld, >=1ms %ld\n", what,
           n, h[0], h[1], h[2], h[3], h[4]);
}

static pid_t spinner(int cpu) { /* cpu < 0: unpinned */
    pid_t p = fork();
    if (p == 0) {
        if (cpu >= 0) pin(cpu);
        for (;;) __asm__ __volatile__("");
    }
    usleep(100000);
    return p;
}

static void stop(pid_t p) {
    kill(p, SIGKILL);
    waitpid(p, NULL, 0);
}

int main(void) {
    count("nothing else");
    pid_t p = spinner(0);
    count("spinner pinned to the other CPU");
    stop(p);
    p = spinner(-1);
    count("spinner unpinned");
    stop(p);
    p = spinner(1);
    count("spinner on my CPU");
    stop(p);
    return 0;
}
