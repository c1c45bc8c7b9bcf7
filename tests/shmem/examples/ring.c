/* Example: pass a token around the ring of PEs. PE 0 starts each trip; every PE, when the token
 * reaches it (it waits on its arrival count with shmem_long_wait_until), adds its number plus one
 * and puts the token to its right neighbour, then (after shmem_fence, so the token lands first)
 * increments the neighbour's arrival count. After ROUNDS trips PE 0 checks the token against
 * ROUNDS * (1 + 2 + ... + n). Exit status 0 when right. */
#include <stdio.h>

#include <shmem.h>

#define ROUNDS 20

static long token;   /* symmetric: the token as it arrives here */
static long arrived; /* symmetric: how many times it arrived */

static void pass(long value, int to) {
    shmem_long_p(&token, value, to);
    shmem_fence(); /* the token before the arrival count */
    shmem_long_atomic_inc(&arrived, to);
}

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
    const long expect = (long)ROUNDS * n * (n + 1) / 2;
    int failed = 0;

    if (me == 0) pass(1, right);
    for (int r = 0; r < ROUNDS; r++) {
        shmem_long_wait_until(&arrived, SHMEM_CMP_GE, r + 1);
        const long t = token;
        if (me == 0 && r == ROUNDS - 1) { /* the last trip is complete */
            if (t != expect) {
                fprintf(stderr, "ring: token %ld after %d trips, expected %ld\n", t, ROUNDS,
                        expect);
                failed = 1;
            }
            break;
        }
        pass(t + me + 1, right);
    }
    shmem_barrier_all();
    if (me == 0)
        printf("ring: %s (%d PEs, %d trips, token %ld)\n", failed ? "FAILED" : "OK", n, ROUNDS,
               token);
    shmem_finalize();
    return failed;
}
