// np: 1 2 3 4
/* The deprecated active-set collectives, as programs written for OpenSHMEM 1.0-1.4 use them:
 * pSync arrays (global, initialised to SHMEM_SYNC_VALUE, two of them used alternately) and pWrk
 * arrays; active sets (PE_start, logPE_stride, PE_size) of all PEs, the even PEs, PEs 1..n-1 and
 * the odd PEs, each called only by its members. shmem_barrier and shmem_sync (data put before is
 * there after), broadcast32/64 (every root; the root's dest is left alone), collect32/64
 * (contributions of 0..2 elements), fcollect32/64, alltoall32/64, alltoalls32/64, and every
 * TYPE_OP_to_all of the specification's tables. */
#include <complex.h>

#include "shmem_testlib.h"
#include "to_all_cases.h"

#define NE 4
long pSync[2][SHMEM_REDUCE_SYNC_SIZE];
long barrier_sync[SHMEM_BARRIER_SYNC_SIZE];
static int which; /* alternate pSync arrays, as the old rule asks */
static long *psync(void) {
    which ^= 1;
    return pSync[which];
}

struct aset {
    int start, logstride, size;
    const char *name;
};
static struct aset set;
static int member, idx; /* am I in the set, and my index */
static int world_of(int i) {
    return set.start + (i << set.logstride);
}

static uint32_t *s32, *d32;
static uint64_t *s64, *d64;
#define CAP 512 /* elements of each buffer */

static void fill(int seed) {
    /* every member is done with the previous call's buffers */
    shmem_barrier(set.start, set.logstride, set.size, barrier_sync);
    for (int i = 0; i < CAP; i++) {
        s32[i] = VAL(uint32_t, seed, idx, i) * 0x01010101u;
        d32[i] = 0;
        s64[i] = VAL(uint64_t, seed, idx, i) * 0x0101010101010101ull;
        d64[i] = 0;
    }
}
#define W32(seed, p, i) (VAL(uint32_t, seed, p, i) * 0x01010101u)
#define W64(seed, p, i) (VAL(uint64_t, seed, p, i) * 0x0101010101010101ull)

static void data_movement(void) {
    const int n = set.size;
    /* broadcast */
    for (int root = 0; root < n; root++) {
        fill(root);
        shmem_barrier(set.start, set.logstride, n, barrier_sync);
        shmem_broadcast32(d32, s32, NE, root, set.start, set.logstride, n, psync());
        shmem_broadcast64(d64, s64, NE, root, set.start, set.logstride, n, psync());
        for (int i = 0; i < NE + 1; i++) {
            uint32_t w32 = idx != root && i < NE ? W32(root, root, i) : 0;
            uint64_t w64 = idx != root && i < NE ? W64(root, root, i) : 0;
            CHECK(d32[i] == w32 && d64[i] == w64,
                  "%s broadcast (root %d): [%d] = %#x / %#llx, expected %#x / %#llx", set.name,
                  root, i, d32[i], (unsigned long long)d64[i], w32, (unsigned long long)w64);
        }
    }
    /* collect: index p gives p % 3 elements; fcollect: NE each */
    fill(20);
    shmem_barrier(set.start, set.logstride, n, barrier_sync);
    shmem_collect32(d32, s32, (size_t)(idx % 3), set.start, set.logstride, n, psync());
    shmem_collect64(d64, s64, (size_t)(idx % 3), set.start, set.logstride, n, psync());
    int at = 0;
    for (int p = 0; p < n; p++)
        for (int i = 0; i < p % 3; i++, at++)
            CHECK(d32[at] == W32(20, p, i) && d64[at] == W64(20, p, i),
                  "%s collect: [%d] (member %d's %d) = %#x / %#llx", set.name, at, p, i, d32[at],
                  (unsigned long long)d64[at]);
    CHECK(d32[at] == 0 && d64[at] == 0, "%s collect wrote past the end", set.name);
    fill(21);
    shmem_barrier(set.start, set.logstride, n, barrier_sync);
    shmem_fcollect32(d32, s32, NE, set.start, set.logstride, n, psync());
    shmem_fcollect64(d64, s64, NE, set.start, set.logstride, n, psync());
    for (int p = 0; p < n; p++)
        for (int i = 0; i < NE; i++)
            CHECK(d32[p * NE + i] == W32(21, p, i) && d64[p * NE + i] == W64(21, p, i),
                  "%s fcollect: [%d] = %#x / %#llx", set.name, p * NE + i, d32[p * NE + i],
                  (unsigned long long)d64[p * NE + i]);
    /* alltoall, alltoalls (dst 2, sst 3) */
    for (int s = 0; s < 2; s++) {
        const ptrdiff_t ds = s ? 2 : 1, ss = s ? 3 : 1;
        fill(22 + s);
        shmem_barrier(set.start, set.logstride, n, barrier_sync);
        if (s) {
            shmem_alltoalls32(d32, s32, ds, ss, NE, set.start, set.logstride, n, psync());
            shmem_alltoalls64(d64, s64, ds, ss, NE, set.start, set.logstride, n, psync());
        } else {
            shmem_alltoall32(d32, s32, NE, set.start, set.logstride, n, psync());
            shmem_alltoall64(d64, s64, NE, set.start, set.logstride, n, psync());
        }
        for (int i = 0; i < n * NE * (int)ds + 1; i++) {
            uint32_t w32 = 0;
            uint64_t w64 = 0;
            if (i % ds == 0 && i / ds < n * NE) {
                int e = (int)(i / ds), p = e / NE, k = e % NE;
                w32 = W32(22 + s, p, ss * (idx * NE + k));
                w64 = W64(22 + s, p, ss * (idx * NE + k));
            }
            CHECK(d32[i] == w32 && d64[i] == w64, "%s alltoall%s: [%d] = %#x / %#llx", set.name,
                  s ? "s" : "", i, d32[i], (unsigned long long)d64[i]);
        }
    }
    shmem_barrier(set.start, set.logstride, n, barrier_sync);
}

/* ---- TYPE_OP_to_all, every one the tables list ---- */

#define DEFINE_TO_ALL_(T, N, OP, IN)                                                               \
    static void to_all_##N##_##OP(void) {                                                          \
        static T src[NE + 1], dst[NE + 1]; /* symmetric (static) */                                \
        static T pWrk[NE / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];                                 \
        for (int i = 0; i <= NE; i++) src[i] = IN(T, idx, i), dst[i] = (T)0;                       \
        shmem_barrier(set.start, set.logstride, set.size, barrier_sync);                           \
        shmem_##N##_##OP##_to_all(dst, src, NE, set.start, set.logstride, set.size, pWrk,          \
                                  psync());                                                        \
        for (int i = 0; i < NE; i++) {                                                             \
            T want = IN(T, 0, i);                                                                  \
            for (int p = 1; p < set.size; p++) want = TOP_##OP(want, IN(T, p, i));                 \
            CHECK(dst[i] == want, "%s shmem_%s_%s_to_all: [%d] = %g, expected %g", set.name, #N,   \
                  #OP, i, (double)dst[i], (double)want);                                           \
        }                                                                                          \
        CHECK(dst[NE] == (T)0, "%s shmem_%s_%s_to_all wrote past nreduce", set.name, #N, #OP);     \
    }
#define TO_ALL_DEF DEFINE_TO_ALL_
TO_ALL_DEFINE_EVERY()

static void reductions(void) {
    TO_ALL_CALL_EVERY();
}

static void barriers(int *slot) {
    /* put to the next member, barrier (completes puts), check; then the same with quiet+sync */
    const int next = world_of((idx + 1) % set.size),
              prev = world_of((idx + set.size - 1) % set.size);
    shmem_int_p(&slot[0], 700 + t_me, next);
    shmem_barrier(set.start, set.logstride, set.size, barrier_sync);
    CHECK(slot[0] == 700 + prev, "%s shmem_barrier: %d, expected %d", set.name, slot[0],
          700 + prev);
    shmem_int_p(&slot[1], 800 + t_me, next);
    shmem_quiet();
    shmem_sync(set.start, set.logstride, set.size, psync());
    CHECK(slot[1] == 800 + prev, "%s shmem_sync: %d, expected %d", set.name, slot[1], 800 + prev);
    shmem_barrier(set.start, set.logstride, set.size, barrier_sync);
}

int main(void) {
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) pSync[0][i] = pSync[1][i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++) barrier_sync[i] = SHMEM_SYNC_VALUE;
    test_init(); /* shmem_init's barrier: every pSync is initialised before anyone uses it */
    s32 = shmem_malloc(CAP * sizeof(uint32_t));
    d32 = shmem_malloc(CAP * sizeof(uint32_t));
    s64 = shmem_malloc(CAP * sizeof(uint64_t));
    d64 = shmem_malloc(CAP * sizeof(uint64_t));
    int *slot = shmem_calloc(2, sizeof(int));
    REQUIRE(s32 && d32 && s64 && d64 && slot, "allocation");
    struct aset sets[4] = {{0, 0, t_np, "all PEs"},
                           {0, 1, (t_np + 1) / 2, "even PEs"},
                           {1, 0, t_np - 1, "PEs 1..n-1"},
                           {1, 1, t_np / 2, "odd PEs"}};
    for (int k = 0; k < 4; k++) {
        set = sets[k];
        if (set.size < 1) continue;
        if (test_light() && (k == 0 || k == 3)) continue; /* each set costs a team */
        member = t_me >= set.start && ((t_me - set.start) & ((1 << set.logstride) - 1)) == 0 &&
                 ((t_me - set.start) >> set.logstride) < set.size;
        idx = member ? (t_me - set.start) >> set.logstride : -1;
        which = 0; /* every member of the set passes the same pSync, call after call */
        if (member) {
            barriers(slot);
            data_movement();
            reductions();
        }
        shmem_barrier_all(); /* the next set starts with every member of this one done */
    }
    shmem_free(slot);
    shmem_free(d64);
    shmem_free(s64);
    shmem_free(d32);
    shmem_free(s32);
    return test_end("test_shmem_active_set");
}
