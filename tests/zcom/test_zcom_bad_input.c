/* Bad-input matrix for ZCom: every call (C and Fortran bindings) with each kind of bad argument.
 * Each row runs on every process (the collective ones line up); for each: the code in *err, exactly
 * one line "zcom: rank R: CALL: reason (CODE)" on stderr (captured around the call), no ZCom
 * mapping or fd left behind, and every buffer (the row's own, a live channel's, on both of its
 * ends) unchanged. Ranks 0 and 1 are the pair; rows that need a pair are skipped with one
 * process. test_zcom_errors covers the same init errors with resources checks in detail. */
#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>

#include "zcom_testlib.h"

#define PG   4096
#define SKIP (-100)

static char *bufA;             /* 3 pages, never shared: the bad inits' buffer */
static char *bufL;             /* 2 pages; the first is shared with the peer (live channel) */
static char *bufRO;            /* a read-only page */
static void *gone;             /* an unmapped page */
static char *tail;             /* a page followed by an unmapped one */
static void *peer_view;        /* the peer's live buffer, as mapped here */
static int live_id = -1;       /* the live channel (in the pair) */
static int stale_id = -1;      /* a channel cleaned up already */
static int peer, pair, n_pair; /* peer rank; 1 when in the pair; 1 target when in the pair */
static int maps0, fds0;        /* resources with nothing bad done */

static int last(void) {
    return zt_rank == zt_size - 1;
}

/* One init with my buffer b (size n) for target t (count cnt); arrays may be replaced by NULL
 * through the mask: 1 buffers, 2 sizes, 4 targets, 8 attached, 16 ids. */
static int init_with(void *b, size_t n, int t, int cnt, int nulls, MPI_Comm comm) {
    void *bufs[2] = {b, b}, *att[2] = {0};
    size_t sizes[2] = {n, n};
    int ts[2] = {t, t}, ids[2] = {-1, -1}, err = -1;
    ZCom_init_c(nulls & 1 ? NULL : bufs, nulls & 2 ? NULL : sizes, comm, nulls & 4 ? NULL : ts, cnt,
                nulls & 8 ? NULL : att, nulls & 16 ? NULL : ids, &err);
    if (err == ZCOM_SUCCESS) { /* wrongly accepted: close it, so the run goes on */
        int e2;
        ZCom_cleanup_c(ids, cnt, comm, &e2);
    }
    ZT_CHECK((att[0] == NULL && ids[0] == -1) || err == ZCOM_SUCCESS, "failed init wrote outputs");
    return err;
}
/* The pair's usual arguments (bufA for the peer), with one thing bad on the bad rank. */
static int init_pair(int bad, void *b, size_t n, int t, int cnt, int nulls) {
    return init_with(bad ? b : bufA, bad ? n : PG, bad ? t : peer, bad ? cnt : n_pair,
                     bad ? nulls : 0, MPI_COMM_WORLD);
}

/* ---- ZCom_init_c ----------------------------------------------------------------------------- */
static int i_null_bufs(void) {
    return init_pair(zt_rank == 0, bufA, PG, peer, 1, 1);
}
static int i_null_sizes(void) {
    return init_pair(last(), bufA, PG, peer, 1, 2);
}
static int i_null_targets(void) {
    return init_pair(zt_rank == 0, bufA, PG, peer, 1, 4);
}
static int i_null_att(void) {
    return init_pair(zt_rank == 0, bufA, PG, peer, 1, 8);
}
static int i_null_ids(void) {
    return init_pair(last(), bufA, PG, peer, 1, 16);
}
static int i_neg_count(void) {
    return init_pair(last(), bufA, PG, peer, -1, 0);
}
static int i_comm_null(void) {
    return init_with(bufA, PG, peer, n_pair, 0, MPI_COMM_NULL);
}
static int i_null_buf(void) {
    return zt_size < 2 ? SKIP : init_pair(zt_rank == 0, NULL, PG, peer, 1, 0);
}
static int i_zero_size(void) {
    return zt_size < 2 ? SKIP : init_pair(zt_rank == 0, bufA, 0, peer, 1, 0);
}
static int i_huge_size(void) {
    return zt_size < 2 ? SKIP : init_pair(zt_rank == 0, bufA, SIZE_MAX - 16, peer, 1, 0);
}
static int i_past_mapping(void) {
    return zt_size < 2 ? SKIP : init_pair(zt_rank == 0, tail, 2 * PG, peer, 1, 0);
}
static int i_readonly(void) {
    return zt_size < 2 ? SKIP : init_pair(zt_rank == 0, bufRO, 64, peer, 1, 0);
}
static int i_unmapped(void) {
    return zt_size < 2 ? SKIP : init_pair(zt_rank == 0, gone, 64, peer, 1, 0);
}
static int i_stack(void) {
    char s[256];
    memset(s, 3, sizeof s);
    if (zt_size < 2) return SKIP;
    int e = init_pair(zt_rank == 0, s, sizeof s, peer, 1, 0);
    int same = 1;
    for (size_t i = 0; i < sizeof s; i++) same &= s[i] == 3;
    ZT_CHECK(same, "the stack buffer changed");
    return e;
}
static int i_rank_big(void) {
    return init_pair(zt_rank == 0, bufA, PG, zt_size, 1, 0);
}
static int i_rank_neg(void) {
    return init_pair(last(), bufA, PG, -1, 1, 0);
}
static int i_rank_self(void) {
    return init_pair(zt_rank == 0, bufA, PG, zt_rank, 1, 0);
}
static int i_rank_twice(void) {
    return zt_size < 2 ? SKIP : init_pair(zt_rank == 0, bufA, PG, peer, 2, 0);
}
static int i_not_paired(void) {
    return zt_size < 2 ? SKIP : init_pair(zt_rank == 1, bufA, PG, peer, 0, 0);
}
static int i_sizes(void) {
    return zt_size < 2 ? SKIP : init_pair(zt_rank == 1, bufA, PG + 8, peer, 1, 0);
}
static int i_twice(void) {
    return zt_size < 2 ? SKIP : init_pair(zt_rank == 0, bufL, PG, peer, 1, 0);
}
static int i_overlap(void) {
    return zt_size < 2 ? SKIP : init_pair(zt_rank == 0, bufL + PG - 8, PG, peer, 1, 0);
}
static int i_null_err(void) { /* nothing to report the code in: a message, no crash */
    ZCom_init_c(NULL, NULL, MPI_COMM_NULL, NULL, 0, NULL, NULL, NULL);
    return ZCOM_ERR_ARG;
}

/* ---- The counters ---------------------------------------------------------------------------- */
static int counter(int which, int id) {
    int err = -1, r = 0;
    switch (which) {
    case 0:
        r = ZCom_can_write_c(id, &err);
        break;
    case 1:
        ZCom_have_written_c(id, &err);
        break;
    case 2:
        r = ZCom_can_read_c(id, &err);
        break;
    default:
        ZCom_have_read_c(id, &err);
        break;
    }
    ZT_CHECK(r == 0, "a failing counter call returned %d", r);
    return err;
}
static int cw_unknown(void) {
    return counter(0, 9999);
}
static int cw_neg(void) {
    return counter(0, -3);
}
static int cw_stale(void) {
    return stale_id < 0 ? SKIP : counter(0, stale_id);
}
static int cw_null_err(void) {
    ZT_CHECK(ZCom_can_write_c(INT_MIN, NULL) == 0, "can_write(INT_MIN) is not 0");
    return ZCOM_ERR_CHANNEL;
}
static int hw_unknown(void) {
    return counter(1, INT_MAX);
}
static int hw_stale(void) {
    return stale_id < 0 ? SKIP : counter(1, stale_id);
}
static int hw_null_err(void) {
    ZCom_have_written_c(0, NULL);
    return ZCOM_ERR_CHANNEL;
}
static int cr_unknown(void) {
    return counter(2, 0);
}
static int cr_stale(void) {
    return stale_id < 0 ? SKIP : counter(2, stale_id);
}
static int hr_unknown(void) {
    return counter(3, INT_MIN);
}
static int hr_stale(void) {
    return stale_id < 0 ? SKIP : counter(3, stale_id);
}
static int hr_nothing(void) { /* nothing written by the peer: nothing to have read */
    return pair ? counter(3, live_id) : SKIP;
}

/* ---- ZCom_cleanup_c ------------------------------------------------------------------------- */
static int cleanup_with(int *ids, int n, MPI_Comm comm) {
    int err = -1;
    ZCom_cleanup_c(ids, n, comm, &err);
    return err;
}
static int c_null_ids(void) {
    return cleanup_with(zt_rank == 0 ? NULL : &stale_id, zt_rank == 0 ? 1 : 0, MPI_COMM_WORLD);
}
static int c_neg(void) {
    return cleanup_with(&live_id, last() ? -2 : 0, MPI_COMM_WORLD);
}
static int c_comm_null(void) {
    return cleanup_with(&live_id, n_pair, MPI_COMM_NULL);
}
static int c_unknown(void) {
    int id = 4242;
    return cleanup_with(&id, zt_rank == 0, MPI_COMM_WORLD);
}
static int c_twice(void) {
    /* collective: every process takes part, those outside the pair with no channel */
    return zt_size < 2 ? SKIP : cleanup_with(&stale_id, pair, MPI_COMM_WORLD);
}
static int c_listed_twice(void) {
    if (zt_size < 2) return SKIP;
    int ids[2] = {live_id, live_id};
    return cleanup_with(ids, pair ? 2 : 0, MPI_COMM_WORLD);
}
static int c_mismatch(void) {
    return zt_size < 2 ? SKIP : cleanup_with(&live_id, zt_rank == 0, MPI_COMM_WORLD);
}
static int c_null_err(void) {
    ZCom_cleanup_c(NULL, -1, MPI_COMM_NULL, NULL);
    return ZCOM_ERR_ARG;
}

/* ---- Fortran bindings ------------------------------------------------------------------------ */
static int f_init_comm(void) {
    void *b = bufA, *att = NULL;
    size_t n = PG;
    int t = peer, cnt = n_pair, id = -1, err = -1;
    ZCom_init_f(&b, &n, NULL, &t, &cnt, &att, &id, &err);
    return err;
}
static int f_init_count(void) {
    void *b = bufA, *att = NULL;
    size_t n = PG;
    int t = peer, id = -1, err = -1;
    MPI_Fint comm = MPI_Comm_c2f(MPI_COMM_WORLD);
    ZCom_init_f(&b, &n, &comm, &t, NULL, &att, &id, &err);
    return err;
}
static int f_init_rank(void) {
    void *b = bufA, *att = NULL;
    size_t n = PG;
    int t = zt_rank == 0 ? -5 : peer, cnt = zt_rank == 0 ? 1 : n_pair, id = -1, err = -1;
    MPI_Fint comm = MPI_Comm_c2f(MPI_COMM_WORLD);
    ZCom_init_f(&b, &n, &comm, &t, &cnt, &att, &id, &err);
    return err;
}
static int f_cleanup_comm(void) {
    int cnt = n_pair, err = -1;
    ZCom_cleanup_f(&live_id, &cnt, NULL, &err);
    return err;
}
static int f_cleanup_count(void) {
    int err = -1;
    MPI_Fint comm = MPI_Comm_c2f(MPI_COMM_WORLD);
    ZCom_cleanup_f(&live_id, NULL, &comm, &err);
    return err;
}

typedef struct {
    const char *fn, *kind;
    int (*call)(void);
    int want;
} zbad_t;
#define R(fn, kind, call, want)                                                                    \
    { #fn, kind, call, ZCOM_##want }
static const zbad_t cases[] = {
    R(ZCom_init_c, "NULL buffers array on one rank", i_null_bufs, ERR_ARG),
    R(ZCom_init_c, "NULL buffer_sizes on one rank", i_null_sizes, ERR_ARG),
    R(ZCom_init_c, "NULL target_ranks on one rank", i_null_targets, ERR_ARG),
    R(ZCom_init_c, "NULL attached_addrs on one rank", i_null_att, ERR_ARG),
    R(ZCom_init_c, "NULL channel_ids on one rank", i_null_ids, ERR_ARG),
    R(ZCom_init_c, "negative count on one rank", i_neg_count, ERR_ARG),
    R(ZCom_init_c, "MPI_COMM_NULL", i_comm_null, ERR_ARG),
    R(ZCom_init_c, "NULL err (and MPI_COMM_NULL)", i_null_err, ERR_ARG),
    R(ZCom_init_c, "NULL buffer", i_null_buf, ERR_BUFFER),
    R(ZCom_init_c, "zero size", i_zero_size, ERR_BUFFER),
    R(ZCom_init_c, "size past the address space", i_huge_size, ERR_BUFFER),
    R(ZCom_init_c, "reaching past its mapping", i_past_mapping, ERR_BUFFER),
    R(ZCom_init_c, "read-only buffer", i_readonly, ERR_BUFFER),
    R(ZCom_init_c, "unmapped (freed) buffer", i_unmapped, ERR_BUFFER),
    R(ZCom_init_c, "stack buffer", i_stack, ERR_BUFFER),
    R(ZCom_init_c, "target = size", i_rank_big, ERR_RANK),
    R(ZCom_init_c, "target -1", i_rank_neg, ERR_RANK),
    R(ZCom_init_c, "target myself", i_rank_self, ERR_RANK),
    R(ZCom_init_c, "target twice", i_rank_twice, ERR_RANK),
    R(ZCom_init_c, "not paired", i_not_paired, ERR_NOT_PAIRED),
    R(ZCom_init_c, "sizes differ", i_sizes, ERR_SIZE),
    R(ZCom_init_c, "init twice", i_twice, ERR_STATE),
    R(ZCom_init_c, "pages partly shared already", i_overlap, ERR_OVERLAP),
    R(ZCom_can_write_c, "unknown id", cw_unknown, ERR_CHANNEL),
    R(ZCom_can_write_c, "negative id", cw_neg, ERR_CHANNEL),
    R(ZCom_can_write_c, "cleaned-up id", cw_stale, ERR_CHANNEL),
    R(ZCom_can_write_c, "NULL err, INT_MIN", cw_null_err, ERR_CHANNEL),
    R(ZCom_have_written_c, "unknown id", hw_unknown, ERR_CHANNEL),
    R(ZCom_have_written_c, "cleaned-up id", hw_stale, ERR_CHANNEL),
    R(ZCom_have_written_c, "NULL err, id 0", hw_null_err, ERR_CHANNEL),
    R(ZCom_can_read_c, "id 0", cr_unknown, ERR_CHANNEL),
    R(ZCom_can_read_c, "cleaned-up id", cr_stale, ERR_CHANNEL),
    R(ZCom_have_read_c, "INT_MIN", hr_unknown, ERR_CHANNEL),
    R(ZCom_have_read_c, "cleaned-up id", hr_stale, ERR_CHANNEL),
    R(ZCom_have_read_c, "nothing to read", hr_nothing, ERR_STATE),
    R(ZCom_cleanup_c, "NULL channel_ids on one rank", c_null_ids, ERR_ARG),
    R(ZCom_cleanup_c, "negative count on one rank", c_neg, ERR_ARG),
    R(ZCom_cleanup_c, "MPI_COMM_NULL", c_comm_null, ERR_ARG),
    R(ZCom_cleanup_c, "unknown id on one rank", c_unknown, ERR_CHANNEL),
    R(ZCom_cleanup_c, "cleanup twice", c_twice, ERR_CHANNEL),
    R(ZCom_cleanup_c, "id listed twice", c_listed_twice, ERR_CHANNEL),
    R(ZCom_cleanup_c, "one side only", c_mismatch, ERR_NOT_PAIRED),
    R(ZCom_cleanup_c, "NULL err (and MPI_COMM_NULL)", c_null_err, ERR_ARG),
    R(ZCom_init_f, "NULL comm", f_init_comm, ERR_ARG),
    R(ZCom_init_f, "NULL num_targets", f_init_count, ERR_ARG),
    R(ZCom_init_f, "target -5 on rank 0", f_init_rank, ERR_RANK),
    R(ZCom_cleanup_f, "NULL comm", f_cleanup_comm, ERR_ARG),
    R(ZCom_cleanup_f, "NULL num_targets", f_cleanup_count, ERR_ARG),
};

/* NULL when text is one line "zcom: rank R: fn: reason (CODE)", else what is wrong. */
static const char *one_message(const char *text, const char *fn, int code) {
    char prefix[128], suffix[64];
    snprintf(prefix, sizeof prefix, "zcom: rank %d: %s: ", zt_rank, fn);
    snprintf(suffix, sizeof suffix, " (%s)\n", ZCom_strerror(code));
    size_t n = strlen(text), p = strlen(prefix), s = strlen(suffix);
    if (!n) return "no message";
    if (strchr(text, '\n') != text + n - 1) return "not exactly one line";
    if (strncmp(text, prefix, p) != 0) return "not \"zcom: rank R: CALL: ...\"";
    if (n <= p + s || strcmp(text + n - s, suffix) != 0) return "no reason, or not the code";
    return NULL;
}

static char *map_pages(size_t n, int prot) {
    char *p = mmap(NULL, n, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "mmap failed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static int pattern_ok(const char *p, size_t n, int seed) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != (char)(seed + i * 7)) return 0;
    return 1;
}
static void fill(char *p, size_t n, int seed) {
    for (size_t i = 0; i < n; i++) p[i] = (char)(seed + i * 7);
}

static void setup(void) {
    bufA = map_pages(3 * PG, PROT_READ | PROT_WRITE);
    bufL = map_pages(2 * PG, PROT_READ | PROT_WRITE);
    bufRO = map_pages(PG, PROT_READ);
    gone = map_pages(PG, PROT_READ | PROT_WRITE);
    munmap(gone, PG);
    fill(bufA, 3 * PG, 1);
    fill(bufL, 2 * PG, 10 + zt_rank);
    pair = zt_size >= 2 && zt_rank < 2;
    peer = zt_size >= 2 ? (zt_rank < 2 ? 1 - zt_rank : 0) : 0;
    n_pair = pair ? 1 : 0;
    /* The live channel, and one cleaned up at once (its id goes stale). */
    void *b = bufL, *att = NULL;
    size_t n = PG;
    int err = -1, t = peer;
    ZCom_init_c(&b, &n, MPI_COMM_WORLD, &t, n_pair, &att, &live_id, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "live channel: %s", ZCom_strerror(err));
    peer_view = att;
    char *s = map_pages(PG, PROT_READ | PROT_WRITE);
    void *sb = s, *satt = NULL;
    ZCom_init_c(&sb, &n, MPI_COMM_WORLD, &t, n_pair, &satt, &stale_id, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "second channel: %s", ZCom_strerror(err));
    ZCom_cleanup_c(&stale_id, n_pair, MPI_COMM_WORLD, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "second channel's cleanup: %s", ZCom_strerror(err));
    munmap(s, PG);
    tail = map_pages(2 * PG, PROT_READ | PROT_WRITE);
    munmap(tail + PG, PG);
    if (!pair) live_id = stale_id = -1;
}

int main(int argc, char **argv) {
    zt_init(&argc, &argv, "test_zcom_bad_input");
    setup();
    FILE *cap = tmpfile();
    if (!cap) MPI_Abort(MPI_COMM_WORLD, 2);
    int cap_fd = fileno(cap), skipped = 0;
    maps0 = zt_count_zcom_maps();
    fds0 = zt_count_fds();
    size_t n = sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < n; i++) {
        const zbad_t *c = &cases[i];
        if (getenv("ZT_TRACE")) printf("rank %d: row %zu: %s [%s]\n", zt_rank, i, c->fn, c->kind);
        fflush(stdout);
        char text[2048];
        fflush(stderr);
        int saved = -1;
        /* the file offset is shared with fd 2 after dup2: rewind it too */
        if (ftruncate(cap_fd, 0) == 0 && lseek(cap_fd, 0, SEEK_SET) == 0) saved = dup(2);
        if (saved >= 0) dup2(cap_fd, 2);
        int e = c->call();
        fflush(stderr);
        if (saved >= 0) {
            dup2(saved, 2);
            close(saved);
        }
        ssize_t got = pread(cap_fd, text, sizeof text - 1, 0);
        text[got > 0 ? got : 0] = '\0';
        if (e == SKIP) {
            skipped++;
        } else {
            ZT_CHECK(e == c->want, "%s [%s]: %s, expected %s", c->fn, c->kind, ZCom_strerror(e),
                     ZCom_strerror(c->want));
            const char *why = one_message(text, c->fn, c->want);
            ZT_CHECK(!why, "%s [%s]: message: %s: \"%s\"", c->fn, c->kind, why, text);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        ZT_CHECK(zt_count_zcom_maps() == maps0 && zt_count_fds() == fds0,
                 "%s [%s]: resources left (%d mappings, %d fds; had %d, %d)", c->fn, c->kind,
                 zt_count_zcom_maps(), zt_count_fds(), maps0, fds0);
        ZT_CHECK(pattern_ok(bufA, 3 * PG, 1) && pattern_ok(bufL, 2 * PG, 10 + zt_rank),
                 "%s [%s]: my buffers changed", c->fn, c->kind);
        ZT_CHECK(!pair || (peer_view && pattern_ok(peer_view, PG, 10 + peer)),
                 "%s [%s]: the peer's buffer changed", c->fn, c->kind);
    }
    /* The live channel still works after all that, and closes cleanly. */
    int err = -1;
    if (pair) {
        ZT_CHECK(ZCom_can_write_c(live_id, &err) == 1 && err == 0, "live channel cannot write");
        ZCom_have_written_c(live_id, &err);
        ZT_CHECK(zt_wait(ZCom_can_read_c, live_id), "live channel: nothing to read");
        ZCom_have_read_c(live_id, &err);
        ZT_CHECK(err == ZCOM_SUCCESS, "live channel: have_read: %s", ZCom_strerror(err));
    }
    ZCom_cleanup_c(&live_id, n_pair, MPI_COMM_WORLD, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "live channel's cleanup: %s", ZCom_strerror(err));
    ZT_CHECK(pattern_ok(bufL, 2 * PG, 10 + zt_rank), "buffer changed by the cleanup");
    fclose(cap);
    if (zt_rank == 0)
        printf("test_zcom_bad_input: %zu cases (%d skipped here), %d processes\n", n, skipped,
               zt_size);
    munmap(bufA, 3 * PG);
    munmap(bufL, 2 * PG);
    munmap(bufRO, PG);
    return zt_finish();
}
