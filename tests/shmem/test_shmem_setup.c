// np: 1 2 3 4 8
// args: LEVEL
/* Library setup and query: shmem_init_thread at the thread level given as argv[1] (CTest rotates
 * it, so every level is requested on both paths), shmem_query_thread, my_pe/n_pes (and the
 * deprecated _my_pe/_num_pes), info_get_version/get_name, pe_accessible, addr_accessible (heap
 * and global variables yes, stack and malloc no), shmem_ptr and shmem_team_ptr (non-NULL for every
 * PE on the direct path on one node, and reading through them gives the peer's value; NULL is
 * allowed with SHOAL_DIRECT=0), and shmemx_wtime (the one extension, shmemx.h). */
#include <time.h>

#include "shmem_testlib.h"
#include <shmemx.h>

static const char *level_name(int l) {
    switch (l) {
    case SHMEM_THREAD_SINGLE:
        return "SINGLE";
    case SHMEM_THREAD_FUNNELED:
        return "FUNNELED";
    case SHMEM_THREAD_SERIALIZED:
        return "SERIALIZED";
    case SHMEM_THREAD_MULTIPLE:
        return "MULTIPLE";
    }
    return "?";
}

long global_value = 17;    /* data */
static int global_bss[16]; /* bss */

int main(int argc, char **argv) {
    int requested = argc > 1 ? atoi(argv[1]) : -1;
    int provided = -42;
    if (requested < 0) {
        shmem_init();
    } else {
        int rc = shmem_init_thread(requested, &provided);
        if (rc != 0) {
            fprintf(stderr, "shmem_init_thread(%d) returned %d\n", requested, rc);
            return 1;
        }
    }
    test_start();

    /* Thread levels. */
    int queried = -42;
    shmem_query_thread(&queried);
    CHECK(queried >= SHMEM_THREAD_SINGLE && queried <= SHMEM_THREAD_MULTIPLE,
          "shmem_query_thread gave %d, not a level", queried);
    if (requested >= 0) {
        CHECK(provided >= SHMEM_THREAD_SINGLE && provided <= SHMEM_THREAD_MULTIPLE,
              "shmem_init_thread(%s) provided %d, not a level", level_name(requested), provided);
        CHECK(queried == provided, "shmem_query_thread gave %s, shmem_init_thread provided %s",
              level_name(queried), level_name(provided));
        /* Shoal gives SERIALIZED or MULTIPLE whatever is asked (MPI's level decides). */
        CHECK(provided >= SHMEM_THREAD_SERIALIZED || provided >= requested,
              "requested %s, provided only %s", level_name(requested), level_name(provided));
        if (t_me == 0)
            printf("requested %s, provided %s\n", level_name(requested), level_name(provided));
    }
    CHECK(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED &&
              SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED &&
              SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE,
          "thread levels are not increasing");

    /* Identity. */
    CHECK(_my_pe() == t_me && _num_pes() == t_np, "_my_pe %d/_num_pes %d, shmem_ gave %d/%d",
          _my_pe(), _num_pes(), t_me, t_np);
    int *all = shmem_calloc((size_t)t_np, sizeof(int));
    REQUIRE(all, "shmem_calloc");
    for (int pe = 0; pe < t_np; pe++) shmem_int_p(&all[t_me], t_me + 1, pe);
    shmem_barrier_all();
    for (int pe = 0; pe < t_np; pe++)
        CHECK(all[pe] == pe + 1, "PE %d told me %d, expected %d (my_pe not distinct?)", pe, all[pe],
              pe + 1);

    /* Version and name. */
    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    CHECK(major == 1 && minor == 5, "version %d.%d, expected 1.5", major, minor);
    CHECK(SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION == 5, "header version %d.%d",
          SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    char name[SHMEM_MAX_NAME_LEN + 16];
    memset(name, 'x', sizeof name);
    shmem_info_get_name(name);
    size_t len = strnlen(name, sizeof name);
    CHECK(len > 0 && len < SHMEM_MAX_NAME_LEN, "name length %zu (0 < len < %d expected)", len,
          SHMEM_MAX_NAME_LEN);
    if (t_me == 0 && len < SHMEM_MAX_NAME_LEN) printf("name: %s\n", name);
    CHECK(strlen(SHMEM_VENDOR_STRING) < SHMEM_MAX_NAME_LEN, "vendor string too long");
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "name \"%.*s\" is not SHMEM_VENDOR_STRING \"%s\"",
          (int)len, name, SHMEM_VENDOR_STRING);

    /* Accessibility. */
    for (int pe = 0; pe < t_np; pe++)
        CHECK(shmem_pe_accessible(pe) == 1, "PE %d not accessible", pe);
    CHECK(shmem_pe_accessible(t_np) == 0, "PE %d (out of range) accessible", t_np);
    CHECK(shmem_pe_accessible(-1) == 0, "PE -1 accessible");
    long stack_var = 5;
    long *heap_priv = malloc(sizeof(long));
    for (int pe = 0; pe < t_np; pe++) {
        CHECK(shmem_addr_accessible(all, pe) == 1, "heap block not accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(&all[t_np - 1], pe) == 1, "heap block end not accessible");
        CHECK(shmem_addr_accessible(&global_value, pe) == 1, "global (data) not accessible on %d",
              pe);
        CHECK(shmem_addr_accessible(&global_bss[3], pe) == 1, "static (bss) not accessible on %d",
              pe);
        CHECK(shmem_addr_accessible(&stack_var, pe) == 0, "stack variable accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(heap_priv, pe) == 0, "malloc'd memory accessible on PE %d", pe);
    }
    CHECK(shmem_addr_accessible(all, t_np) == 0, "heap accessible on PE %d (out of range)", t_np);
    free(heap_priv);

    /* shmem_ptr: on the direct path, every PE of this one node is load/store accessible. */
    const int direct = test_all_direct(); /* every PE mapped: one node, direct path */
    global_value = 1000 + t_me;
    global_bss[3] = 2000 + t_me;
    all[0] = 3000 + t_me; /* after the barrier above; read by the others after the next one */
    shmem_barrier_all();
    for (int pe = 0; pe < t_np; pe++) {
        int *p = shmem_ptr(all, pe);
        long *g = shmem_ptr(&global_value, pe);
        int *b = shmem_ptr(&global_bss[3], pe);
        if (pe == t_me) {
            CHECK(p == all, "shmem_ptr(heap, me) %p, expected %p", (void *)p, (void *)all);
            CHECK(g == &global_value, "shmem_ptr(global, me) is not the variable");
        }
        if (direct) {
            CHECK(p && g && b, "direct path: shmem_ptr NULL for PE %d (heap %p global %p bss %p)",
                  pe, (void *)p, (void *)g, (void *)b);
        }
        if (p) CHECK(*p == 3000 + pe, "heap through shmem_ptr to PE %d: %d", pe, *p);
        if (g) CHECK(*g == 1000 + pe, "global through shmem_ptr to PE %d: %ld", pe, *g);
        if (b) CHECK(*b == 2000 + pe, "bss through shmem_ptr to PE %d: %d", pe, *b);
        CHECK(shmem_ptr(&stack_var, pe) == NULL, "shmem_ptr of a stack variable is not NULL");

        int *tp = shmem_team_ptr(SHMEM_TEAM_WORLD, all, pe);
        CHECK(tp == p, "shmem_team_ptr(WORLD, PE %d) %p, shmem_ptr %p", pe, (void *)tp, (void *)p);
    }
    /* Write through shmem_ptr: the peer sees it. */
    shmem_barrier_all();
    int *rp = shmem_ptr(&all[1 % t_np], test_right());
    if (rp)
        *rp = 4000 + t_me;
    else
        shmem_int_p(&all[1 % t_np], 4000 + t_me, test_right());
    shmem_barrier_all();
    CHECK(all[1 % t_np] == 4000 + test_left(), "store through shmem_ptr: %d, expected %d",
          all[1 % t_np], 4000 + test_left());

    /* shmem_team_ptr on SHMEM_TEAM_SHARED: team PE i is world PE translate(i); every member is
     * reachable by load/store (that is what the team means). */
    int nshared = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    CHECK(nshared >= 1 && nshared <= t_np, "SHMEM_TEAM_SHARED has %d PEs", nshared);
    for (int i = 0; i < nshared; i++) {
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
        CHECK(w >= 0 && w < t_np, "SHARED PE %d is world PE %d", i, w);
        long *tg = shmem_team_ptr(SHMEM_TEAM_SHARED, &global_value, i);
        if (CHECK(tg != NULL, "shmem_team_ptr(SHARED, %d) NULL: SHARED members must be reachable",
                  i) &&
            w >= 0)
            CHECK(*tg == 1000 + w, "through shmem_team_ptr(SHARED, %d): %ld, expected %d", i, *tg,
                  1000 + w);
    }
    if (direct)
        CHECK(nshared == t_np, "direct path, one node: SHARED has %d of %d PEs", nshared, t_np);

    /* shmemx_wtime: seconds, monotonic, and it sees a 20 ms sleep as 20 ms (within 1 s: load) */
    double w0 = shmemx_wtime();
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    double w1 = shmemx_wtime();
    CHECK(w0 > 0 && w1 - w0 >= 0.019 && w1 - w0 < 1.0, "shmemx_wtime: %.6f then %.6f", w0, w1);

    shmem_barrier_all();
    shmem_free(all);
    return test_end("test_shmem_setup");
}
