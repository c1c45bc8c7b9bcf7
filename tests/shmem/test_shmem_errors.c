// np: 1 2 3 4
/* Misuse is reported, not fatal. Before shmem_init, routines (my_pe, n_pes, malloc, p, g, put,
 * atomics, barrier_all, quiet) print a message that names the routine and says to call
 * shmem_init, return harmlessly and do not crash. After shmem_init: a put, get or atomic on a
 * non-symmetric address (a stack variable, malloc'd memory) or to a PE out of range prints a
 * message naming the routine and the unit (PE), and changes nothing anywhere; the program goes
 * on. After shmem_finalize, the same for shmem_my_pe. Each message is captured from this
 * process's own stderr (fd 2 redirected to a temporary file around the call). */
#include "shmem_testlib.h"

/* The captured text names the routine, and (when unit >= 0) the unit, and contains extra. */
static void expect(const char *what, const char *routine, int unit, const char *extra) {
    char unit_text[32];
    snprintf(unit_text, sizeof unit_text, "unit %d", unit);
    CHECK(strstr(t_captured, routine) != NULL, "%s: the message does not name %s: \"%s\"", what,
          routine, t_captured);
    if (unit >= 0)
        CHECK(strstr(t_captured, unit_text) != NULL,
              "%s: the message does not name the unit (%s): \"%s\"", what, unit_text, t_captured);
    if (extra)
        CHECK(strstr(t_captured, extra) != NULL, "%s: the message does not say \"%s\": \"%s\"",
              what, extra, t_captured);
}

int g_target[4] = {5, 6, 7, 8};
uint64_t g_signal[2] = {9, 0};
double g_double = 2.5; /* symmetric (data), read by the in-line atomic_fetch as a whole */

static void before_init(void) {
    int v;
    test_capture_begin();
    v = shmem_my_pe();
    test_capture_end();
    expect("shmem_my_pe before init", "shmem_my_pe", -1, "shmem_init");
    CHECK(v < 0, "shmem_my_pe before init returned %d", v);
    test_capture_begin();
    v = shmem_n_pes();
    test_capture_end();
    expect("shmem_n_pes before init", "shmem_n_pes", -1, "shmem_init");
    CHECK(v < 0, "shmem_n_pes before init returned %d", v);
    test_capture_begin();
    void *p = shmem_malloc(64);
    test_capture_end();
    expect("shmem_malloc before init", "shmem_malloc", -1, "shmem_init");
    CHECK(p == NULL, "shmem_malloc before init returned %p", p);
    test_capture_begin();
    shmem_int_p(&g_target[0], 1, 0);
    test_capture_end();
    expect("shmem_int_p before init", "shmem_int_p", -1, "shmem_init");
    test_capture_begin();
    int src[2] = {1, 2};
    shmem_int_put(g_target, src, 2, 0);
    test_capture_end();
    expect("shmem_int_put before init", "shmem_int_put", -1, "shmem_init");
    test_capture_begin();
    v = shmem_int_g(&g_target[1], 0);
    test_capture_end();
    expect("shmem_int_g before init", "shmem_int_g", -1, "shmem_init");
    test_capture_begin();
    shmem_int_atomic_add(&g_target[2], 1, 0);
    test_capture_end();
    expect("shmem_int_atomic_add before init", "shmem_int_atomic_add", -1, "shmem_init");
    test_capture_begin();
    shmem_barrier_all();
    test_capture_end();
    expect("shmem_barrier_all before init", "shmem_barrier_all", -1, "shmem_init");
    test_capture_begin();
    shmem_quiet();
    test_capture_end();
    expect("shmem_quiet before init", "shmem_quiet", -1, "shmem_init");
    /* shmem_signal_fetch and shmem_test are in line in part (shmem.h, p2p.c): the slow path
     * still reports. */
    test_capture_begin();
    uint64_t sv = shmem_signal_fetch(&g_signal[0]);
    test_capture_end();
    expect("shmem_signal_fetch before init", "shmem_signal_fetch", -1, "shmem_init");
    CHECK(sv == 0, "shmem_signal_fetch before init returned %llu", (unsigned long long)sv);
    test_capture_begin();
    v = shmem_uint64_test(&g_signal[0], SHMEM_CMP_EQ, 9);
    test_capture_end();
    expect("shmem_uint64_test before init", "shmem_uint64_test", -1, "shmem_init");
    CHECK(v == 0, "shmem_uint64_test before init returned %d", v);
    test_capture_begin(); /* in line in part too: PE 0 is nobody's number yet */
    sv = shmem_uint64_atomic_fetch(&g_signal[0], 0);
    test_capture_end();
    expect("shmem_uint64_atomic_fetch before init", "shmem_uint64_atomic_fetch", -1, "shmem_init");
    CHECK(sv == 0, "shmem_uint64_atomic_fetch before init returned %llu", (unsigned long long)sv);
    CHECK(g_target[0] == 5 && g_target[1] == 6 && g_target[2] == 7,
          "a call before init changed memory: %d %d %d", g_target[0], g_target[1], g_target[2]);
}

int main(void) {
    before_init();
    long early_failures = t_failures;
    test_init();
    t_failures = early_failures;
    const int right = test_right();

    int *sym = shmem_malloc(8 * sizeof(int));
    REQUIRE(sym, "allocation");
    for (int i = 0; i < 8; i++) sym[i] = 100 + i;
    int stack_buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int *priv = malloc(8 * sizeof(int));
    for (int i = 0; i < 8; i++) priv[i] = 50 + i;
    const int junk[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    shmem_barrier_all();

    /* A put to a stack address. */
    test_capture_begin();
    shmem_int_put(stack_buf, junk, 8, right);
    test_capture_end();
    expect("put to a stack address", "shmem_int_put", t_me, NULL);
    /* A put to malloc'd (not symmetric) memory. */
    test_capture_begin();
    shmem_int_put(priv, junk, 8, right);
    test_capture_end();
    expect("put to malloc'd memory", "shmem_int_put", t_me, NULL);
    /* A put to a PE out of range, either side. */
    test_capture_begin();
    shmem_int_put(sym, junk, 8, t_np);
    test_capture_end();
    expect("put to PE n_pes", "shmem_int_put", t_me, NULL);
    test_capture_begin();
    shmem_putmem(sym, junk, 8, -1);
    test_capture_end();
    expect("putmem to PE -1", "shmem_putmem", t_me, NULL);
    test_capture_begin();
    shmem_int_p(&sym[1], -1, t_np + 5);
    test_capture_end();
    expect("p to PE n_pes + 5", "shmem_int_p", t_me, NULL);
    /* A get from PE out of range, a get of a stack address. */
    int got[8] = {0};
    test_capture_begin();
    shmem_int_get(got, sym, 8, t_np);
    test_capture_end();
    expect("get from PE n_pes", "shmem_int_get", t_me, NULL);
    test_capture_begin();
    shmem_int_get(got, stack_buf, 8, right);
    test_capture_end();
    expect("get of a stack address", "shmem_int_get", t_me, NULL);
    /* Atomics: a stack address, a PE out of range. */
    test_capture_begin();
    shmem_int_atomic_add(&stack_buf[0], 1, right);
    test_capture_end();
    expect("atomic_add on a stack address", "shmem_int_atomic_add", t_me, NULL);
    test_capture_begin();
    int f = shmem_int_atomic_fetch_inc(&sym[2], t_np);
    test_capture_end();
    expect("atomic_fetch_inc on PE n_pes", "shmem_int_atomic_fetch_inc", t_me, NULL);
    (void)f;
    /* Polled reads in line (shmem.h's shmem_signal_fetch, shmem_test's fast path): a stack
     * address, a misaligned symmetric one and a bad comparison still go to the library, which
     * reports them and answers 0; a good one reads the word. */
    uint64_t stack_sig = 9;
    test_capture_begin();
    uint64_t sv = shmem_signal_fetch(&stack_sig);
    test_capture_end();
    expect("signal_fetch of a stack address", "shmem_signal_fetch", t_me, NULL);
    CHECK(sv == 0, "signal_fetch of a stack address returned %llu", (unsigned long long)sv);
    test_capture_begin();
    sv = shmem_signal_fetch((const uint64_t *)(const void *)((const char *)&g_signal[0] + 4));
    test_capture_end();
    expect("signal_fetch of a misaligned word", "shmem_signal_fetch", t_me, NULL);
    CHECK(sv == 0, "signal_fetch of a misaligned word returned %llu", (unsigned long long)sv);
    test_capture_begin();
    int tv = shmem_uint64_test(&stack_sig, SHMEM_CMP_EQ, 9);
    test_capture_end();
    expect("test of a stack address", "shmem_uint64_test", t_me, NULL);
    CHECK(tv == 0, "test of a stack address returned %d", tv);
    test_capture_begin();
    tv = shmem_uint64_test(&g_signal[0], 77, 9);
    test_capture_end();
    expect("test with a bad comparison", "shmem_uint64_test", t_me, NULL);
    CHECK(tv == 0, "test with a bad comparison returned %d", tv);
    test_capture_begin();
    sv = shmem_signal_fetch(&g_signal[0]);
    tv = shmem_uint64_test(&g_signal[0], SHMEM_CMP_EQ, 9);
    int tv_ne = shmem_uint64_test(&g_signal[0], SHMEM_CMP_NE, 9);
    test_capture_end();
    CHECK(sv == 9 && tv == 1 && tv_ne == 0 && t_captured[0] == '\0',
          "good signal_fetch/test: %llu %d %d, printed \"%s\"", (unsigned long long)sv, tv, tv_ne,
          t_captured);
    /* shmem_TYPENAME_atomic_fetch is in line from this PE on its own words: a stack address, a
     * misaligned word and a PE out of range still go to the library; a good one reads the word
     * (a double whole), from this PE and from the next one. */
    test_capture_begin();
    sv = shmem_uint64_atomic_fetch(&stack_sig, t_me);
    test_capture_end();
    expect("atomic_fetch of a stack address", "shmem_uint64_atomic_fetch", t_me, NULL);
    CHECK(sv == 0, "atomic_fetch of a stack address returned %llu", (unsigned long long)sv);
    test_capture_begin();
    sv = shmem_uint64_atomic_fetch((const uint64_t *)(const void *)((const char *)&g_signal[0] + 4),
                                   t_me);
    test_capture_end();
    expect("atomic_fetch of a misaligned word", "shmem_uint64_atomic_fetch", t_me, "aligned");
    CHECK(sv == 0, "atomic_fetch of a misaligned word returned %llu", (unsigned long long)sv);
    test_capture_begin();
    sv = shmem_uint64_atomic_fetch(&g_signal[0], t_np);
    test_capture_end();
    expect("atomic_fetch on PE n_pes", "shmem_uint64_atomic_fetch", t_me, NULL);
    CHECK(sv == 0, "atomic_fetch on PE n_pes returned %llu", (unsigned long long)sv);
    test_capture_begin();
    sv = shmem_uint64_atomic_fetch(&g_signal[0], t_me);
    uint64_t sv_next = shmem_uint64_atomic_fetch(&g_signal[0], (t_me + 1) % t_np);
    double dv = shmem_double_atomic_fetch(&g_double, t_me);
    test_capture_end();
    CHECK(sv == 9 && sv_next == 9 && dv == 2.5 && t_captured[0] == '\0',
          "good atomic_fetch: %llu %llu %g, printed \"%s\"", (unsigned long long)sv,
          (unsigned long long)sv_next, dv, t_captured);

    /* Put-with-signal refusals (shmem's rma.c, past its direct path): a misaligned signal word,
     * a NULL source for bytes, a stack signal word, a bad sig_op; each reported with the routine's
     * name and nothing written (the data word and the signal keep their values). */
    {
        const int right_pe = (t_me + 1) % t_np;
        int src4[2] = {41, 42};
        shmem_barrier_all();
        test_capture_begin();
        shmem_int_put_signal(&g_target[2], src4, 2, (uint64_t *)(void *)((char *)&g_signal[0] + 4),
                             1, SHMEM_SIGNAL_SET, right_pe);
        test_capture_end();
        expect("put_signal with a misaligned signal word", "shmem_int_put_signal", t_me, "aligned");
        test_capture_begin();
        shmem_putmem_signal(&g_target[2], NULL, 8, &g_signal[0], 1, SHMEM_SIGNAL_SET, right_pe);
        test_capture_end();
        expect("putmem_signal from NULL", "shmem_putmem_signal", t_me, "NULL");
        test_capture_begin();
        shmem_putmem_signal(&g_target[2], src4, 8, &stack_sig, 1, SHMEM_SIGNAL_SET, right_pe);
        test_capture_end();
        expect("putmem_signal to a stack signal word", "shmem_putmem_signal", t_me, NULL);
        test_capture_begin();
        shmem_putmem_signal(&g_target[2], src4, 8, &g_signal[0], 1, 99, right_pe);
        test_capture_end();
        expect("putmem_signal with sig_op 99", "shmem_putmem_signal", t_me, "sig_op");
        shmem_barrier_all();
        CHECK(g_target[2] == 7 && g_target[3] == 8 && g_signal[0] == 9,
              "a refused put_signal wrote: %d %d %llu", g_target[2], g_target[3],
              (unsigned long long)g_signal[0]);
        shmem_barrier_all();
    }

    /* Nonblocking: the error is reported at the call, the quiet has nothing to complete. */
    test_capture_begin();
    shmem_int_put_nbi(stack_buf, junk, 8, right);
    shmem_quiet();
    test_capture_end();
    expect("put_nbi to a stack address", "shmem_int_put_nbi", t_me, NULL);

    /* SHMEM_TEAM_INVALID where 1.5 defines the answer: that answer, and no message. */
    test_capture_begin();
    void *tp = shmem_team_ptr(SHMEM_TEAM_INVALID, sym, 0);
    int tmy = shmem_team_my_pe(SHMEM_TEAM_INVALID), tn = shmem_team_n_pes(SHMEM_TEAM_INVALID);
    int tr1 = shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD);
    int tr2 = shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID);
    shmem_team_config_t tcfg;
    int tcf = shmem_team_get_config(SHMEM_TEAM_INVALID, 0, &tcfg);
    shmem_team_destroy(SHMEM_TEAM_INVALID);
    shmem_ctx_t tctx = SHMEM_CTX_DEFAULT;
    int tcc = shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &tctx);
    test_capture_end();
    CHECK(tcc != 0 && tctx == SHMEM_CTX_INVALID, "team_create_ctx(SHMEM_TEAM_INVALID): %d", tcc);
    CHECK(tp == NULL && tmy == -1 && tn == -1 && tr1 == -1 && tr2 == -1 && tcf != 0,
          "SHMEM_TEAM_INVALID: team_ptr %p my_pe %d n_pes %d translate %d %d get_config %d", tp,
          tmy, tn, tr1, tr2, tcf);
    CHECK(t_captured[0] == '\0', "defined answers for SHMEM_TEAM_INVALID printed: %s", t_captured);

    /* Nothing changed anywhere; and the library still works. */
    shmem_barrier_all();
    for (int i = 0; i < 8; i++) {
        CHECK(sym[i] == 100 + i, "sym[%d] changed to %d", i, sym[i]);
        CHECK(stack_buf[i] == i + 1, "stack_buf[%d] changed to %d", i, stack_buf[i]);
        CHECK(priv[i] == 50 + i, "priv[%d] changed to %d", i, priv[i]);
        CHECK(got[i] == 0, "got[%d] changed to %d", i, got[i]);
    }
    shmem_barrier_all();
    shmem_int_p(&sym[0], 1000 + t_me, right);
    shmem_barrier_all();
    CHECK(sym[0] == 1000 + test_left(), "a put after the errors: %d", sym[0]);
    free(priv);
    shmem_free(sym);

    int me = t_me;
    int rc = test_end("test_shmem_errors");
    /* After shmem_finalize. */
    test_capture_begin();
    int v = shmem_my_pe();
    test_capture_end();
    t_me = me;
    long before = t_failures;
    expect("shmem_my_pe after finalize", "shmem_my_pe", -1, "shmem_init");
    CHECK(v < 0, "shmem_my_pe after finalize returned %d", v);
    if (t_failures != before) rc = 1;
    return rc;
}
