// np: 1 2 3 4 5
/* Active sets past SHOAL_SHMEM_ACTIVE_SET_TEAMS run on the program's pSync, with no limit on their
 * number. The test sets the limit to 1 before shmem_init (unless the environment sets it), so each
 * PE's first set of its own gets a team and every later set runs on pSync (the PEs of a set agree
 * on the way, so sets whose PEs voted differently take the pSync way too). Then:
 *  - every active set of the job (every PE_start, logPE_stride 0-2, PE_size), in one order every
 *    PE follows, each called by its members only: shmem_barrier (a put before it is there after),
 *    broadcast64 (the root's dest left alone), collect32 (0-2 elements per member), fcollect64,
 *    alltoall64, alltoalls32 (strides 2 and 3), long sum in place (dest == source) and
 *    complexd prod, each checked against its reference; after every set each pSync word is back at
 *    SHMEM_SYNC_VALUE, as the specification requires;
 *  - one PE of a set passing a dest that is not symmetric: it reports it, every other member
 *    fails with it ("rejected its arguments") instead of waiting, and nothing is written;
 *  - a pSync that is not symmetric: reported, nothing hangs. */
#include <complex.h>

#include "shmem_testlib.h"

long psync_a[SHMEM_REDUCE_SYNC_SIZE], psync_b[SHMEM_BCAST_SYNC_SIZE];
long bsync[SHMEM_BARRIER_SYNC_SIZE];
long lwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
double _Complex cwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
int flags[256]; /* one per set: a later set's put cannot land before this one's check */

#define CAP 64
static int64_t *s64, *d64;
static int32_t *s32, *d32;
static long *lred;
static double _Complex *csrc, *cdst;

static int start_, stride_, size_, idx_;
static int world_of(int i) {
    return start_ + i * stride_;
}
#define SET start_, lstride_, size_
static int lstride_;

/* My buffers for the next call, then a barrier: nobody writes into them before I have checked the
 * previous call and filled them. */
static void fill(int seed) {
    for (int i = 0; i < CAP; i++) {
        s64[i] = VAL(int64_t, seed, idx_, i) * 1000003;
        s32[i] = VAL(int32_t, seed, idx_, i) * 7;
        d64[i] = -1;
        d32[i] = -1;
    }
    shmem_barrier(SET, bsync);
}

static void psync_restored(const char *what, const long *ps, int n) {
    for (int i = 0; i < n; i++)
        CHECK(ps[i] == SHMEM_SYNC_VALUE, "set (%d, %d, %d) %s: pSync[%d] = %ld after the call",
              start_, lstride_, size_, what, i, ps[i]);
}

static void one_set(int serial) {
    const int n = size_;
    /* barrier: a put to the next member is there after it */
    shmem_int_p(&flags[serial], 1000 + serial, world_of((idx_ + 1) % n));
    shmem_barrier(SET, bsync);
    CHECK(flags[serial] == 1000 + serial, "set (%d, %d, %d) barrier: %d", start_, lstride_, n,
          flags[serial]);
    /* broadcast */
    const int root = serial % n;
    fill(serial);
    shmem_broadcast64(d64, s64, 5, root, SET, psync_a);
    for (int i = 0; i < 6; i++) {
        int64_t want = idx_ != root && i < 5 ? VAL(int64_t, serial, root, i) * 1000003 : -1;
        CHECK(d64[i] == want, "set (%d, %d, %d) broadcast from %d: [%d] = %lld, expected %lld",
              start_, lstride_, n, root, i, (long long)d64[i], (long long)want);
    }
    /* collect: member p gives p % 3 elements */
    fill(serial + 1);
    shmem_collect32(d32, s32, (size_t)(idx_ % 3), SET, psync_b);
    int at = 0;
    for (int p = 0; p < n; p++)
        for (int i = 0; i < p % 3; i++, at++)
            CHECK(d32[at] == VAL(int32_t, serial + 1, p, i) * 7,
                  "set (%d, %d, %d) collect: [%d] = %d", start_, lstride_, n, at, d32[at]);
    CHECK(d32[at] == -1, "set (%d, %d, %d) collect wrote past the end", start_, lstride_, n);
    /* fcollect */
    fill(serial + 2);
    shmem_fcollect64(d64, s64, 3, SET, psync_a);
    for (int p = 0; p < n; p++)
        for (int i = 0; i < 3; i++)
            CHECK(d64[p * 3 + i] == VAL(int64_t, serial + 2, p, i) * 1000003,
                  "set (%d, %d, %d) fcollect: [%d] = %lld", start_, lstride_, n, p * 3 + i,
                  (long long)d64[p * 3 + i]);
    /* alltoall: 2 elements per pair; alltoalls: 2 per pair, dst 2, sst 3 */
    fill(serial + 3);
    shmem_alltoall64(d64, s64, 2, SET, psync_b);
    shmem_alltoalls32(d32, s32, 2, 3, 2, SET, psync_a);
    for (int p = 0; p < n; p++)
        for (int k = 0; k < 2; k++) {
            CHECK(d64[p * 2 + k] == VAL(int64_t, serial + 3, p, idx_ * 2 + k) * 1000003,
                  "set (%d, %d, %d) alltoall: [%d] = %lld", start_, lstride_, n, p * 2 + k,
                  (long long)d64[p * 2 + k]);
            CHECK(d32[(p * 2 + k) * 2] == VAL(int32_t, serial + 3, p, 3 * (idx_ * 2 + k)) * 7 &&
                      d32[(p * 2 + k) * 2 + 1] == -1,
                  "set (%d, %d, %d) alltoalls: [%d] = %d", start_, lstride_, n, (p * 2 + k) * 2,
                  d32[(p * 2 + k) * 2]);
        }
    /* reductions: a long sum in place, a complex product */
    for (int i = 0; i < 5; i++) {
        lred[i] = VAL(long, serial, idx_, i);
        csrc[i] = (double)(1 + (idx_ + i) % 2) + (double)((idx_ + 1) % 2) * I;
    }
    shmem_barrier(SET, bsync);
    shmem_long_sum_to_all(lred, lred, 5, SET, lwrk, psync_b);
    shmem_complexd_prod_to_all(cdst, csrc, 5, SET, cwrk, psync_a);
    for (int i = 0; i < 5; i++) {
        long want = 0;
        double _Complex cwant = 1;
        for (int p = 0; p < n; p++) {
            want += VAL(long, serial, p, i);
            cwant *= (double)(1 + (p + i) % 2) + (double)((p + 1) % 2) * I;
        }
        CHECK(lred[i] == want, "set (%d, %d, %d) long sum in place: [%d] = %ld, expected %ld",
              start_, lstride_, n, i, lred[i], want);
        CHECK(cdst[i] == cwant, "set (%d, %d, %d) complexd prod: [%d] = %g%+gi, expected %g%+gi",
              start_, lstride_, n, i, creal(cdst[i]), cimag(cdst[i]), creal(cwant), cimag(cwant));
    }
    psync_restored("after its collectives", psync_a, SHMEM_REDUCE_SYNC_SIZE);
    psync_restored("after its collectives", psync_b, SHMEM_BCAST_SYNC_SIZE);
    shmem_barrier(SET, bsync);
    psync_restored("after its barriers", bsync, SHMEM_BARRIER_SYNC_SIZE);
}

/* Set {1, ..., n-1} (a pSync set: every PE has made its one team by now): member 1 passes a
 * dest that is not symmetric. */
static void errors(void) {
    start_ = 1, lstride_ = 0, stride_ = 1, size_ = t_np - 1;
    idx_ = t_me - 1;
    if (t_me == 0) return;
    int64_t stack_dest[8];
    for (int i = 0; i < 8; i++) stack_dest[i] = -7;
    fill(90);
    test_capture_begin();
    shmem_broadcast64(idx_ == 1 ? (void *)stack_dest : (void *)d64, s64, 5, 0, SET, psync_a);
    test_capture_end();
    if (idx_ == 1)
        CHECK(strstr(t_captured, "not symmetric") != NULL, "bad dest: message \"%s\"", t_captured);
    else
        CHECK(strstr(t_captured, "rejected its arguments") != NULL,
              "another member's bad dest: message \"%s\"", t_captured);
    for (int i = 0; i < 8; i++)
        CHECK(d64[i] == -1 && stack_dest[i] == -7, "failed broadcast wrote [%d]: %lld / %lld", i,
              (long long)d64[i], (long long)stack_dest[i]);
    psync_restored("after a rejected broadcast", psync_a, SHMEM_BCAST_SYNC_SIZE);
    /* a pSync on the stack: reported by every member, nobody waits */
    long stack_psync[SHMEM_BARRIER_SYNC_SIZE];
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++) stack_psync[i] = SHMEM_SYNC_VALUE;
    test_capture_begin();
    shmem_fcollect64(d64, s64, 1, SET, stack_psync);
    test_capture_end();
    CHECK(strstr(t_captured, "pSync") && strstr(t_captured, "not a symmetric"),
          "stack pSync: message \"%s\"", t_captured);
    CHECK(d64[0] == -1, "fcollect with a bad pSync wrote %lld", (long long)d64[0]);
    shmem_barrier(SET, bsync);
}

int main(void) {
    setenv("SHOAL_SHMEM_ACTIVE_SET_TEAMS", "1", 0);
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) psync_a[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++) psync_b[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++) bsync[i] = SHMEM_SYNC_VALUE;
    test_init();
    s64 = shmem_malloc(CAP * sizeof *s64);
    d64 = shmem_malloc(CAP * sizeof *d64);
    s32 = shmem_malloc(CAP * sizeof *s32);
    d32 = shmem_malloc(CAP * sizeof *d32);
    lred = shmem_malloc(8 * sizeof *lred);
    csrc = shmem_malloc(8 * sizeof *csrc);
    cdst = shmem_malloc(8 * sizeof *cdst);
    REQUIRE(s64 && d64 && s32 && d32 && lred && csrc && cdst, "allocation");
    int serial = 0, sets = 0;
    for (int log = 0; log <= 2; log++)
        for (int start = 0; start < t_np; start++)
            for (int size = 1; start + (size - 1) * (1 << log) < t_np; size++) {
                if (size == 1 && log > 0) continue; /* the same set as logPE_stride 0 */
                if (++serial >= 256) break;
                start_ = start, lstride_ = log, stride_ = 1 << log, size_ = size;
                int d = t_me - start;
                if (d < 0 || d % stride_ || d / stride_ >= size) continue;
                idx_ = d / stride_;
                sets++;
                one_set(serial);
            }
    shmem_barrier_all();
    if (t_np >= 3) errors();
    shmem_barrier_all();
    if (t_me == 0) printf("PE 0 took part in %d active sets of %d\n", sets, serial);
    shmem_free(cdst);
    shmem_free(csrc);
    shmem_free(lred);
    shmem_free(d32);
    shmem_free(s32);
    shmem_free(d64);
    shmem_free(s64);
    return test_end("test_shmem_active_psync");
}
