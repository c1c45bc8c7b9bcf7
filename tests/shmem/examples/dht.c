/* Example: a distributed hash table. Each PE holds NSLOT slots (symmetric global arrays); a key's
 * home PE and first slot come from its hash, with linear probing. A slot is claimed with
 * shmem_long_atomic_compare_swap (0 = empty); its value is updated under a lock (one of NLOCK
 * distributed locks, by slot) with a plain get and put. Every PE inserts its own keys (value =
 * the key) and a set of shared keys (each insertion adds 1); then every PE looks up every key:
 * own keys must hold the key, shared keys the number of PEs, and the table must hold exactly
 * that many keys. Exit status 0 when right. */
#include <stdio.h>

#include <shmem.h>

#define NSLOT  128
#define NLOCK  8
#define OWN    20 /* keys per PE */
#define SHARED 10 /* keys every PE inserts */

long keys[NSLOT]; /* 0: empty */
long vals[NSLOT];
long locks[NLOCK]; /* zero-initialised, as locks must be */
static int failures, failed_pes;
static long stored; /* PE 0: keys counted over all PEs */

static unsigned long hash(long key) {
    unsigned long x = (unsigned long)key * 0x9E3779B97F4A7C15ul;
    return x ^ (x >> 29);
}

/* Adds add to key's value (claiming a slot for it first if needed). */
static void insert(long key, long add, int n) {
    const unsigned long h = hash(key);
    const int home = (int)(h % (unsigned long)n);
    for (int probe = 0; probe < NSLOT; probe++) {
        const int s = (int)((h / (unsigned long)n + (unsigned long)probe) % NSLOT);
        long old = shmem_long_atomic_compare_swap(&keys[s], 0, key, home);
        if (old != 0 && old != key) continue;
        shmem_set_lock(&locks[s % NLOCK]);
        long v = shmem_long_g(&vals[s], home);
        shmem_long_p(&vals[s], v + add, home);
        shmem_quiet();
        shmem_clear_lock(&locks[s % NLOCK]);
        return;
    }
    fprintf(stderr, "dht: PE %d: table full inserting %ld\n", shmem_my_pe(), key);
    failures++;
}

/* The value of key, or -1 when it is not in the table. */
static long lookup(long key, int n) {
    const unsigned long h = hash(key);
    const int home = (int)(h % (unsigned long)n);
    for (int probe = 0; probe < NSLOT; probe++) {
        const int s = (int)((h / (unsigned long)n + (unsigned long)probe) % NSLOT);
        long k = shmem_long_atomic_fetch(&keys[s], home);
        if (k == 0) return -1;
        if (k == key) return shmem_long_g(&vals[s], home);
    }
    return -1;
}

int main(void) {
    shmem_init();
    const int me = shmem_my_pe(), n = shmem_n_pes();
    for (int j = 0; j < OWN; j++) {
        insert(me * 1000L + j + 1, me * 1000L + j + 1, n);
        if (j < SHARED) insert(1000000L + (j * 7 + me) % SHARED, 1, n); /* each PE its own order */
    }
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        for (int j = 0; j < OWN; j++) {
            long key = pe * 1000L + j + 1, v = lookup(key, n);
            if (v != key && failures++ < 5)
                fprintf(stderr, "dht: PE %d: key %ld has %ld, expected %ld\n", me, key, v, key);
        }
    for (int j = 0; j < SHARED; j++) {
        long v = lookup(1000000L + j, n);
        if (v != n && failures++ < 5)
            fprintf(stderr, "dht: PE %d: shared key %d has %ld, expected %d\n", me, j, v, n);
    }
    if (lookup(999999L, n) != -1 && failures++ < 5)
        fprintf(stderr, "dht: PE %d: a key never inserted was found\n", me);
    long mine = 0;
    for (int s = 0; s < NSLOT; s++) mine += keys[s] != 0;
    shmem_long_atomic_add(&stored, mine, 0);
    if (failures) shmem_int_atomic_inc(&failed_pes, 0);
    shmem_barrier_all();
    int status = failures != 0;
    if (me == 0) {
        if (stored != (long)n * OWN + SHARED) {
            fprintf(stderr, "dht: the table holds %ld keys, expected %ld\n", stored,
                    (long)n * OWN + SHARED);
            status = 1;
        }
        if (failed_pes) status = 1;
        printf("dht: %s (%d PEs, %ld keys)\n", status ? "FAILED" : "OK", n, stored);
    }
    shmem_finalize();
    return status;
}
