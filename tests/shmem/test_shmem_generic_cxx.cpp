// The generic routines from C++ (shmem_generic_cxx.h), run: every family through its overloads on
// several types, with and without a context, each result checked against what the typed routine
// must have done. A call resolved to another type's routine would move the wrong number of bytes
// or the wrong bits and fail here. Built only where CMake found a C++ compiler.
#include <complex>
#include <cstring>

#include "shmem_testlib.h"

static long g_long_var[8]; // a global variable: symmetric as heap blocks are
static volatile int g_flag;

// put, get, p, g, iput, iget, put_nbi, get_nbi on T: each PE writes to its right neighbour.
template <typename T> static void check_rma(const char *name, shmem_ctx_t ctx) {
    const int n = 16, right = (t_me + 1) % t_np, left = (t_me + t_np - 1) % t_np;
    T *dst = static_cast<T *>(shmem_calloc(4 * n, sizeof(T)));
    T src[n], got[n];
    for (int i = 0; i < n; i++) src[i] = VAL(T, 1, t_me, i);
    shmem_put(dst, src, n, right);                          // block 0
    shmem_put(ctx, dst + n, src, n, right);                 // block 1, context form
    shmem_p(dst + 2 * n, src[3], right);                    // one element
    shmem_iput(dst + 3 * n, src, 2, 1, n / 2, right);       // every other element
    shmem_put_nbi(ctx, dst + 2 * n + 1, src + 1, 2, right); // two elements, quiet below
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < n; i++) {
        T want = VAL(T, 1, left, i);
        CHECK(dst[i] == want && dst[n + i] == want, "%s put: element %d wrong", name, i);
        if (i % 2 == 0)
            CHECK(dst[3 * n + i] == VAL(T, 1, left, i / 2), "%s iput: element %d wrong", name, i);
    }
    CHECK(dst[2 * n] == VAL(T, 1, left, 3), "%s p: wrong", name);
    CHECK(dst[2 * n + 1] == VAL(T, 1, left, 1) && dst[2 * n + 2] == VAL(T, 1, left, 2),
          "%s put_nbi: wrong", name);
    // And read them back from the right neighbour: my own values, by get, g, iget, get_nbi.
    std::memset(static_cast<void *>(got), 0, sizeof got);
    shmem_get(got, dst, n, right);
    for (int i = 0; i < n; i++) CHECK(got[i] == src[i], "%s get: element %d wrong", name, i);
    CHECK(shmem_g(dst + 5, right) == src[5], "%s g: wrong", name);
    CHECK(shmem_g(ctx, dst + n + 6, right) == src[6], "%s g (context): wrong", name);
    std::memset(static_cast<void *>(got), 0, sizeof got);
    shmem_iget(got, dst + 3 * n, 1, 2, n / 2, right);
    for (int i = 0; i < n / 2; i++) CHECK(got[i] == src[i], "%s iget: element %d wrong", name, i);
    std::memset(static_cast<void *>(got), 0, sizeof got);
    shmem_get_nbi(ctx, got, dst + n, n, right);
    shmem_ctx_quiet(ctx);
    for (int i = 0; i < n; i++) CHECK(got[i] == src[i], "%s get_nbi: element %d wrong", name, i);
    shmem_barrier_all();
    shmem_free(dst);
}

// The standard atomics on T: every PE adds, increments and swaps on PE 0's words.
template <typename T> static void check_atomics(const char *name, shmem_ctx_t ctx) {
    T *w = static_cast<T *>(shmem_calloc(4, sizeof(T)));
    shmem_barrier_all();
    T before = shmem_atomic_fetch_add(w, T(2), 0);
    CHECK(before <= T(5 * (t_np - 1)), "%s fetch_add returned %lld", name, (long long)before);
    shmem_atomic_add(ctx, w, T(3), 0);
    shmem_atomic_inc(w + 1, 0);
    (void)shmem_atomic_fetch_inc(ctx, w + 1, 0);
    T fetched = 0;
    shmem_atomic_fetch_add_nbi(&fetched, w + 2, T(1), 0);
    shmem_quiet();
    CHECK(fetched < T(t_np), "%s fetch_add_nbi fetched %lld", name, (long long)fetched);
    // One PE wins the compare-and-swap of word 3 from 0 to its number + 1.
    T old = shmem_atomic_compare_swap(w + 3, T(0), T(t_me + 1), 0);
    shmem_barrier_all();
    if (t_me == 0) {
        CHECK(w[0] == T(5 * t_np), "%s add: %lld, expected %d", name, (long long)w[0], 5 * t_np);
        CHECK(w[1] == T(2 * t_np), "%s inc: %lld", name, (long long)w[1]);
        CHECK(w[2] == T(t_np), "%s fetch_add_nbi total: %lld", name, (long long)w[2]);
        CHECK(w[3] >= T(1) && w[3] <= T(t_np), "%s compare_swap left %lld", name, (long long)w[3]);
    }
    T winner = shmem_atomic_fetch(w + 3, 0);
    CHECK((old == T(0)) == (winner == T(t_me + 1)), "%s compare_swap: old %lld, winner %lld", name,
          (long long)old, (long long)winner);
    shmem_barrier_all();
    if (t_me == 0) {
        shmem_atomic_set(w, T(7), 0);
        CHECK(shmem_atomic_swap(ctx, w, T(9), 0) == T(7), "%s set/swap: wrong", name);
        CHECK(shmem_atomic_fetch(ctx, w, 0) == T(9), "%s swap: wrong", name);
    }
    shmem_barrier_all();
    shmem_free(w);
}

// The deprecated generic atomics (1.3's shmem_add, fadd, finc, inc, cswap; swap, fetch, set) on
// T: contended on PE 0 and checked exactly, then set/fetch/swap with the right neighbour.
template <typename T> static void check_old_standard(const char *name) {
    T *w = static_cast<T *>(shmem_calloc(2, sizeof(T)));
    shmem_barrier_all();
    shmem_inc(w, 0);
    shmem_add(w, T(2), 0);
    T a = shmem_finc(w, 0);
    T b = shmem_fadd(w, T(3), 0);
    CHECK(a >= T(3) && b >= a + 1, "%s old finc %lld fadd %lld", name, (long long)a, (long long)b);
    T old = shmem_cswap(w + 1, T(0), T(t_me + 1), 0);
    shmem_barrier_all();
    if (t_me == 0) CHECK(w[0] == T(7 * t_np), "%s old add: %lld", name, (long long)w[0]);
    T winner = shmem_fetch(w + 1, 0);
    CHECK((old == T(0)) == (winner == T(t_me + 1)), "%s old cswap: old %lld, winner %lld", name,
          (long long)old, (long long)winner);
    shmem_barrier_all();
    shmem_free(w);
}
template <typename T> static void check_old_extended(const char *name) {
    T *w = static_cast<T *>(shmem_calloc(1, sizeof(T)));
    shmem_barrier_all();
    int right = (t_me + 1) % t_np, left = (t_me + t_np - 1) % t_np;
    shmem_set(w, T(t_me + 1), right);
    shmem_barrier_all();
    CHECK(*w == T(left + 1), "%s old set: %g", name, (double)*w);
    T mine_there = shmem_fetch(w, right); // what I set there
    CHECK(mine_there == T(t_me + 1), "%s old fetch: %g", name, (double)mine_there);
    shmem_barrier_all();
    T s = shmem_swap(w, T(9), t_me);
    CHECK(s == T(left + 1) && *w == T(9), "%s old swap: %g then %g", name, (double)s, (double)*w);
    shmem_barrier_all();
    shmem_free(w);
}

// The bitwise atomics on T: PE i sets bit i (mod width), then clears it, then toggles bit 0.
template <typename T> static void check_bitwise(const char *name) {
    T *w = static_cast<T *>(shmem_calloc(2, sizeof(T)));
    shmem_barrier_all();
    T bit = T(T(1) << (t_me % 30));
    shmem_atomic_or(w, bit, 0);
    shmem_atomic_fetch_xor(SHMEM_CTX_DEFAULT, w + 1, T(1), 0);
    shmem_barrier_all();
    T all = 0;
    for (int p = 0; p < t_np; p++) all = T(all | T(T(1) << (p % 30)));
    CHECK(shmem_atomic_fetch(w, 0) == all, "%s or: wrong", name);
    CHECK(shmem_atomic_fetch(w + 1, 0) == T(t_np % 2), "%s xor: wrong", name);
    shmem_barrier_all();
    T seen = 0;
    shmem_atomic_fetch_and_nbi(&seen, w, T(~bit), 0);
    shmem_quiet();
    CHECK((seen & bit) != 0 || t_me >= 30, "%s fetch_and_nbi: my bit was already clear", name);
    shmem_barrier_all();
    CHECK(shmem_atomic_fetch(w, 0) == T(0) || t_np > 30, "%s and: wrong", name);
    shmem_barrier_all();
    shmem_free(w);
}

// Collectives on T over the world team.
template <typename T> static void check_collectives(const char *name) {
    const int n = 4;
    T *src = static_cast<T *>(shmem_malloc(n * t_np * sizeof(T)));
    T *dst = static_cast<T *>(shmem_malloc(n * t_np * sizeof(T)));
    for (int i = 0; i < n * t_np; i++) src[i] = VAL(T, 2, t_me, i);
    shmem_barrier_all();
    CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, dst, src, n, t_np - 1) == 0, "%s broadcast", name);
    for (int i = 0; i < n; i++)
        CHECK(dst[i] == VAL(T, 2, t_np - 1, i), "%s broadcast: element %d wrong", name, i);
    CHECK(shmem_fcollect(SHMEM_TEAM_WORLD, dst, src, n) == 0, "%s fcollect", name);
    for (int p = 0; p < t_np; p++)
        for (int i = 0; i < n; i++)
            CHECK(dst[p * n + i] == VAL(T, 2, p, i), "%s fcollect: %d.%d wrong", name, p, i);
    CHECK(shmem_alltoall(SHMEM_TEAM_WORLD, dst, src, n) == 0, "%s alltoall", name);
    for (int p = 0; p < t_np; p++)
        for (int i = 0; i < n; i++)
            CHECK(dst[p * n + i] == VAL(T, 2, p, t_me * n + i), "%s alltoall: %d.%d wrong", name, p,
                  i);
    CHECK(shmem_max_reduce(SHMEM_TEAM_WORLD, dst, src, n) == 0, "%s max_reduce", name);
    for (int i = 0; i < n; i++) {
        T want = VAL(T, 2, 0, i);
        for (int p = 1; p < t_np; p++)
            if (VAL(T, 2, p, i) > want) want = VAL(T, 2, p, i);
        CHECK(dst[i] == want, "%s max_reduce: element %d wrong", name, i);
    }
    CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n) == 0, "%s sum_reduce", name);
    for (int i = 0; i < n; i++) {
        T want = 0;
        for (int p = 0; p < t_np; p++) want = T(want + VAL(T, 2, p, i));
        CHECK(dst[i] == want, "%s sum_reduce: element %d wrong", name, i);
    }
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
}

// Waits on a volatile global flag, put with signal, and the _all/_any/test forms.
static void check_p2p_and_signal(void) {
    const int right = (t_me + 1) % t_np, left = (t_me + t_np - 1) % t_np;
    uint64_t *sig = static_cast<uint64_t *>(shmem_calloc(1, sizeof(uint64_t)));
    long *data = static_cast<long *>(shmem_calloc(4, sizeof(long)));
    int *flags = static_cast<int *>(shmem_calloc(2, sizeof(int)));
    shmem_barrier_all();
    long mine[4] = {t_me + 10L, t_me + 20L, t_me + 30L, t_me + 40L};
    shmem_put_signal(data, mine, 4, sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_signal_wait_until(sig, SHMEM_CMP_GE, 1);
    for (int i = 0; i < 4; i++)
        CHECK(data[i] == left + 10L * (i + 1), "put_signal: element %d is %ld", i, data[i]);
    // The volatile global flag, set by my left neighbour with shmem_p.
    shmem_p(const_cast<int *>(&g_flag), 1, right);
    shmem_wait_until(&g_flag, SHMEM_CMP_EQ, 1);
    CHECK(shmem_test(&g_flag, SHMEM_CMP_EQ, 1) == 1, "test on the volatile flag");
    // Both ints of flags set by the left neighbour; wait for all, then any.
    shmem_atomic_set(flags, 5, right);
    shmem_atomic_set(SHMEM_CTX_DEFAULT, flags + 1, 6, right);
    int cmp_values[2] = {5, 6};
    shmem_wait_until_all_vector(flags, 2, NULL, SHMEM_CMP_EQ, cmp_values);
    CHECK(shmem_wait_until_any(flags, 2, NULL, SHMEM_CMP_GE, 5) < 2, "wait_until_any index");
    CHECK(shmem_test_all(flags, 2, NULL, SHMEM_CMP_GT, 4) == 1, "test_all");
    // The global long array: p from the generic long overload, wait on the deprecated long form.
    shmem_p(g_long_var + 3, t_me + 100L, right);
    shmem_wait_until(g_long_var + 3, SHMEM_CMP_EQ, left + 100L);
    shmem_barrier_all();
    shmem_free(flags);
    shmem_free(data);
    shmem_free(sig);
}

// The complex reductions take shmem_complexd_t, the same layout as std::complex<double>.
static void check_complex(void) {
    std::complex<double> *z =
        static_cast<std::complex<double> *>(shmem_malloc(2 * sizeof(std::complex<double>)));
    z[0] = std::complex<double>(t_me + 1.0, 2.0);
    shmem_barrier_all();
    shmem_complexd_t *zd = reinterpret_cast<shmem_complexd_t *>(z);
    CHECK(shmem_sum_reduce(SHMEM_TEAM_WORLD, zd + 1, zd, 1) == 0, "complex sum_reduce");
    double want_re = t_np * (t_np + 1) / 2.0, want_im = 2.0 * t_np;
    CHECK(z[1].real() == want_re && z[1].imag() == want_im, "complex sum: (%g, %g)", z[1].real(),
          z[1].imag());
    shmem_barrier_all();
    shmem_free(z);
}

int main() {
    shmem_init();
    test_start();
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    if (shmem_ctx_create(0, &ctx) != 0) ctx = SHMEM_CTX_DEFAULT;

    check_rma<char>("char", ctx);
    check_rma<signed char>("schar", ctx);
    check_rma<short>("short", ctx);
    check_rma<int>("int", ctx);
    check_rma<long>("long", ctx);
    check_rma<long long>("longlong", ctx);
    check_rma<unsigned char>("uchar", ctx);
    check_rma<unsigned int>("uint", ctx);
    check_rma<uint64_t>("uint64", ctx);
    check_rma<float>("float", ctx);
    check_rma<double>("double", ctx);
    check_rma<long double>("longdouble", ctx);

    check_atomics<int>("int", ctx);
    check_atomics<long>("long", ctx);
    check_atomics<unsigned int>("uint", ctx);
    check_atomics<unsigned long long>("ulonglong", ctx);
    check_atomics<int32_t>("int32", ctx);
    check_atomics<size_t>("size", ctx);

    check_old_standard<int>("int");
    check_old_standard<long>("long");
    check_old_standard<long long>("longlong");
    check_old_extended<int>("int");
    check_old_extended<long>("long");
    check_old_extended<long long>("longlong");
    check_old_extended<float>("float");
    check_old_extended<double>("double");

    check_bitwise<unsigned int>("uint");
    check_bitwise<unsigned long>("ulong");
    check_bitwise<int32_t>("int32");
    check_bitwise<int64_t>("int64");

    check_collectives<int>("int");
    check_collectives<long>("long");
    check_collectives<double>("double");
    check_collectives<unsigned char>("uchar");

    CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0, "shmem_sync(team) failed");
    check_p2p_and_signal();
    check_complex();

    if (ctx != SHMEM_CTX_DEFAULT) shmem_ctx_destroy(ctx);
    return test_end("test_shmem_generic_cxx");
}
