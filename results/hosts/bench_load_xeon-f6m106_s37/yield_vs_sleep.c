#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <signal.h>
static double now() {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
int main(int argc, char **argv) {
    int mode = atoi(argv[1]); /* 0 yield, 1 sleep 50us */
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(0, &s);
    sched_setaffinity(0, sizeof s, &s);
    pid_t sp[3];
    for (int i = 0; i < 3; i++) {
        if (!(sp[i] = fork())) {
            volatile unsigned long x = 0;
            for (;;) x++;
        }
    }
    usleep(100000);
    double t0 = now(), end = t0 + 2;
    long n = 0;
    double maxg = 0;
    int big = 0;
    struct timespec ts = {0, 50000};
    while (now() < end) {
        double a = now();
        if (mode == 0)
            sched_yield();
        else
            nanosleep(&ts, NULL);
        double g = now() - a;
        if (g > maxg) maxg = g;
        if (g > 0.001) big++;
        n++;
    }
    struct timespec cpu;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    printf("mode %d: %ld calls in 2 s, %d took >1ms, max %.2f ms, my cpu %.1f ms\n", mode, n, big,
           maxg * 1e3, (cpu.tv_sec + cpu.tv_nsec * 1e-9) * 1e3);
    for (int i = 0; i < 3; i++) kill(sp[i], 9);
    while (wait(NULL) > 0)
        ;
}
