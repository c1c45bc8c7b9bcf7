// np: 1 2 3 4
/* Put with signal. A ring, round after round: each PE puts data with a signal into its right
 * neighbour (put_signal and put_signal_nbi, SIGNAL_SET and SIGNAL_ADD, plain and on a created
 * context, typed for several types, sized (put64_signal) and putmem_signal), waits for its own
 * signal with shmem_signal_wait_until, and checks the data right away (data before signal).
 * Then many-to-one (every PE ADDs 1 to PE 0's signal with its own slice of data; PE 0 waits for
 * n_pes), shmem_signal_fetch, every comparison of shmem_signal_wait_until, and its value on a
 * word that keeps changing. */
#include "shmem_testlib.h"

#define NEL 40

static shmem_ctx_t made;
static uint64_t *sig;  /* [2]: the ring's signal word, the ack word */
static uint64_t g_sig; /* a signal word among the global variables */

/* forms */
enum { F_PLAIN, F_NBI, F_CTX, F_CTX_NBI, F_N };
static const char *fname[F_N] = {"put_signal", "put_signal_nbi", "ctx_put_signal(made)",
                                 "ctx_put_signal_nbi(made)"};

/* Round r of the ring for type N, every form, SET and ADD: before the barrier each PE sets its
 * own signal word (0 for SET, 5 for ADD); the left neighbour's put then SETs 1000 + seed or ADDs
 * 3, and the wait is for exactly that value. */
#define DEFINE_RING(T, N)                                                                          \
    static void ring_##N(int round) {                                                              \
        const int right = test_right(), left = test_left();                                        \
        T *dst = shmem_malloc(NEL * sizeof(T));                                                    \
        T src[NEL];                                                                                \
        REQUIRE(dst, "allocation");                                                                \
        for (int f = 0; f < F_N; f++)                                                              \
            for (int op = 0; op < 2; op++) {                                                       \
                const int seed = round * 16 + f * 2 + op;                                          \
                const uint64_t value = op == SHMEM_SIGNAL_SET ? 1000u + (uint64_t)seed : 3u;       \
                for (int i = 0; i < NEL; i++) dst[i] = (T)0, src[i] = VAL(T, seed, t_me, i);       \
                sig[0] = op == SHMEM_SIGNAL_SET ? 0 : 5; /* ADD: 5 + 3 expected */                 \
                shmem_barrier_all();                                                               \
                switch (f) {                                                                       \
                case F_PLAIN:                                                                      \
                    shmem_##N##_put_signal(dst, src, NEL, &sig[0], value, op, right);              \
                    break;                                                                         \
                case F_NBI:                                                                        \
                    shmem_##N##_put_signal_nbi(dst, src, NEL, &sig[0], value, op, right);          \
                    break;                                                                         \
                case F_CTX:                                                                        \
                    shmem_ctx_##N##_put_signal(made, dst, src, NEL, &sig[0], value, op, right);    \
                    break;                                                                         \
                case F_CTX_NBI:                                                                    \
                    shmem_ctx_##N##_put_signal_nbi(made, dst, src, NEL, &sig[0], value, op,        \
                                                   right);                                         \
                    break;                                                                         \
                }                                                                                  \
                const uint64_t want = op == SHMEM_SIGNAL_SET ? value : 8u;                         \
                uint64_t got = shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, want);               \
                CHECK(got == want, "%s %s %s: signal_wait_until returned %llu, expected %llu", #N, \
                      fname[f], op ? "ADD" : "SET", (unsigned long long)got,                       \
                      (unsigned long long)want);                                                   \
                int bad = 0;                                                                       \
                for (int i = 0; i < NEL; i++)                                                      \
                    if (dst[i] != VAL(T, seed, left, i) && bad++ < 2)                              \
                        CHECK(0, "%s %s %s: element %d is %g, expected %g (signal seen first)",    \
                              #N, fname[f], op ? "ADD" : "SET", i, (double)dst[i],                 \
                              (double)VAL(T, seed, left, i));                                      \
                CHECK(shmem_signal_fetch(&sig[0]) == want, "signal_fetch after the wait");         \
                shmem_quiet(); /* my nbi put's source may be reused after this */                  \
                shmem_ctx_quiet(made);                                                             \
                shmem_barrier_all();                                                               \
            }                                                                                      \
        shmem_free(dst);                                                                           \
    }
#define RING_TYPES(X)                                                                              \
    X(char, char)                                                                                  \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(double, double)                                                                              \
    X(float, float) X(long double, longdouble) X(uint64_t, uint64) X(int8_t, int8) X(size_t, size)
RING_TYPES(DEFINE_RING)

/* putmem_signal / put64_signal (+nbi, ctx) with the signal word a global variable. */
static void ring_mem(void) {
    const int right = test_right(), left = test_left();
    uint8_t *dst = shmem_malloc(4096 + 64);
    uint8_t src[4096 + 64];
    REQUIRE(dst, "allocation");
    for (int form = 0; form < 6; form++) {
        const size_t n = form < 4 ? (size_t)(form * 1000 + 1) : 100; /* bytes, or 64-bit words */
        const size_t bytes = form < 4 ? n : n * 8;
        for (size_t i = 0; i < bytes; i++)
            dst[i] = 0, src[i] = (uint8_t)(i * 7 + (size_t)t_me + (size_t)form);
        g_sig = 0;
        shmem_barrier_all();
        switch (form) {
        case 0:
            shmem_putmem_signal(dst, src, n, &g_sig, 1, SHMEM_SIGNAL_ADD, right);
            break;
        case 1:
            shmem_putmem_signal_nbi(dst, src, n, &g_sig, 1, SHMEM_SIGNAL_SET, right);
            break;
        case 2:
            shmem_ctx_putmem_signal(made, dst, src, n, &g_sig, 1, SHMEM_SIGNAL_SET, right);
            break;
        case 3:
            shmem_ctx_putmem_signal_nbi(made, dst, src, n, &g_sig, 1, SHMEM_SIGNAL_ADD, right);
            break;
        case 4:
            shmem_put64_signal(dst, src, n, &g_sig, 1, SHMEM_SIGNAL_SET, right);
            break;
        case 5:
            shmem_ctx_put32_signal_nbi(made, dst, src, 2 * n, &g_sig, 1, SHMEM_SIGNAL_ADD, right);
            break;
        }
        shmem_signal_wait_until(&g_sig, SHMEM_CMP_EQ, 1);
        size_t bad = 0;
        for (size_t i = 0; i < bytes; i++)
            bad += dst[i] != (uint8_t)(i * 7 + (size_t)left + (size_t)form);
        CHECK(bad == 0,
              "mem/sized put_signal form %d (%zu bytes): %zu bytes wrong after the signal", form,
              bytes, bad);
        shmem_quiet();
        shmem_ctx_quiet(made);
        shmem_barrier_all();
    }
    shmem_free(dst);
}

/* Every PE adds 1 to PE 0's signal, with its slice of data; PE 0 waits for all of them. */
static void many_to_one(void) {
    long *slices = shmem_calloc((size_t)t_np * 8, sizeof(long));
    REQUIRE(slices, "allocation");
    sig[1] = 0;
    shmem_barrier_all();
    long mine[8];
    for (int i = 0; i < 8; i++) mine[i] = t_me * 100 + i;
    shmem_long_put_signal(&slices[t_me * 8], mine, 8, &sig[1], 1, SHMEM_SIGNAL_ADD, 0);
    if (t_me == 0) {
        uint64_t v = shmem_signal_wait_until(&sig[1], SHMEM_CMP_GE, (uint64_t)t_np);
        CHECK(v == (uint64_t)t_np, "many-to-one signal %llu, expected %d", (unsigned long long)v,
              t_np);
        for (int pe = 0; pe < t_np; pe++)
            for (int i = 0; i < 8; i++)
                CHECK(slices[pe * 8 + i] == pe * 100 + i, "slice of PE %d [%d]: %ld", pe, i,
                      slices[pe * 8 + i]);
    }
    shmem_barrier_all();
    shmem_free(slices);
}

/* Comparisons: each immediately true, and GT/NE true only after the left neighbour's signal. */
static void comparisons(void) {
    uint64_t *w = shmem_calloc(2, sizeof(uint64_t));
    REQUIRE(w, "allocation");
    w[0] = 10;
    shmem_barrier_all();
    CHECK(shmem_signal_wait_until(&w[0], SHMEM_CMP_EQ, 10) == 10, "EQ");
    CHECK(shmem_signal_wait_until(&w[0], SHMEM_CMP_NE, 11) == 10, "NE");
    CHECK(shmem_signal_wait_until(&w[0], SHMEM_CMP_GT, 9) == 10, "GT");
    CHECK(shmem_signal_wait_until(&w[0], SHMEM_CMP_GE, 10) == 10, "GE");
    CHECK(shmem_signal_wait_until(&w[0], SHMEM_CMP_LT, 11) == 10, "LT");
    CHECK(shmem_signal_wait_until(&w[0], SHMEM_CMP_LE, 10) == 10, "LE");
    /* Unsigned: a huge value is GT, not LT. */
    w[1] = UINT64_MAX - 1;
    CHECK(shmem_signal_wait_until(&w[1], SHMEM_CMP_GT, 1) == UINT64_MAX - 1, "GT (unsigned)");
    /* Later: the left neighbour sets my w[0] to 20 with a signal-only put of zero bytes. */
    shmem_barrier_all();
    shmem_putmem_signal(NULL, NULL, 0, &w[0], 20, SHMEM_SIGNAL_SET, test_right());
    uint64_t v = shmem_signal_wait_until(&w[0], SHMEM_CMP_GT, 10);
    CHECK(v == 20, "GT wait returned %llu, expected 20", (unsigned long long)v);
    shmem_barrier_all();
    shmem_putmem_signal(NULL, NULL, 0, &w[0], 5, SHMEM_SIGNAL_ADD, test_right());
    v = shmem_signal_wait_until(&w[0], SHMEM_CMP_NE, 20);
    CHECK(v == 25, "NE wait returned %llu, expected 25", (unsigned long long)v);
    CHECK(shmem_signal_fetch(&w[0]) == 25, "signal_fetch");
    shmem_barrier_all();
    shmem_free(w);
}

/* What signal_wait_until returns is the value that satisfied the condition, even when the word
 * moves on right after (1.5: "the contents of the signal data object ... that satisfies the wait
 * condition"). In pairs, the even PE flips the odd one's word between 2 and 1 with signal-only
 * puts until told to stop; the odd one waits for EQ 1 again and again. A wait that read the word
 * once more after the condition held (the MPI path did until session 35) returns 2 now and then. */
#define FLIP_WAITS 300
static void changing_word(void) {
    uint64_t *w = shmem_calloc(2, sizeof(uint64_t)); /* [0]: the flipped word, [1]: stop */
    REQUIRE(w, "allocation");
    shmem_barrier_all();
    const int me = t_me, partner = me ^ 1;
    if (partner < t_np && (me & 1) == 0) {
        for (uint64_t x = 2; shmem_signal_fetch(&w[1]) == 0; x = 3 - x)
            shmem_putmem_signal(NULL, NULL, 0, &w[0], x, SHMEM_SIGNAL_SET, partner);
    } else if (partner < t_np) {
        int wrong = 0;
        for (int i = 0; i < FLIP_WAITS; i++) {
            uint64_t v = shmem_signal_wait_until(&w[0], SHMEM_CMP_EQ, 1);
            if (v != 1 && wrong++ == 0)
                CHECK(0, "wait %d for EQ 1 on a flipping word returned %llu", i,
                      (unsigned long long)v);
        }
        CHECK(wrong == 0, "%d of %d waits returned a value that did not satisfy EQ 1", wrong,
              FLIP_WAITS);
        shmem_putmem_signal(NULL, NULL, 0, &w[1], 1, SHMEM_SIGNAL_SET, partner);
    }
    shmem_barrier_all();
    shmem_free(w);
}

int main(void) {
    test_init();
    REQUIRE(shmem_ctx_create(0, &made) == 0, "shmem_ctx_create");
    sig = shmem_calloc(2, sizeof(uint64_t));
    REQUIRE(sig, "allocation");
    for (int round = 0; round < (test_light() ? 1 : 2); round++) {
#define CALL_RING(T, N)                                                                            \
    if (test_keep(#N)) ring_##N(round);
        RING_TYPES(CALL_RING)
    }
    ring_mem();
    many_to_one();
    comparisons();
    changing_word();
    shmem_free(sig);
    shmem_ctx_destroy(made);
    return test_end("test_shmem_signal");
}
