/* Hardening (defect 12 of the hardening issue):
 *  1. Channel ids at the ends of the int range are unknown channels (no arithmetic overflow).
 *  2. Buffer sizes near SIZE_MAX: whatever the rounding to pages would wrap to, ZCom_init_c
 *     refuses the buffer (ZCOM_ERR_BUFFER), names the size asked for in one line, and leaves
 *     nothing behind.
 *  3. A heap buffer shares its pages with other heap blocks, live and freed: sharing and
 *     restoring those pages must not read them as heap accesses (an ASan build stops with
 *     heap-buffer-overflow / heap-use-after-free otherwise), must keep their contents, and under
 *     ASan must keep them poisoned, so that ASan still guards them.
 * Pairs: rank r with r^1; an odd process out takes part with no target. np 1 runs part 1 only. */
#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>

#include "zcom_testlib.h"

#if defined(__SANITIZE_ADDRESS__)
#define ZT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZT_ASAN 1
#endif
#endif
#ifdef ZT_ASAN
#include <sanitizer/asan_interface.h>
#endif

static int peer, n;

static void odd_ids(void) {
    const int ids[] = {INT_MIN, INT_MIN + 1, -1, 0, INT_MAX - 1, INT_MAX};
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        int id = ids[k], err = -1;
        ZT_CHECK(ZCom_can_write_c(id, &err) == 0 && err == ZCOM_ERR_CHANNEL, "can_write(%d)", id);
        err = -1;
        ZT_CHECK(ZCom_can_read_c(id, &err) == 0 && err == ZCOM_ERR_CHANNEL, "can_read(%d)", id);
        err = -1;
        ZCom_have_written_c(id, &err);
        ZT_CHECK(err == ZCOM_ERR_CHANNEL, "have_written(%d): %s", id, ZCom_strerror(err));
        err = -1;
        ZCom_have_read_c(id, &err);
        ZT_CHECK(err == ZCOM_ERR_CHANNEL, "have_read(%d): %s", id, ZCom_strerror(err));
        err = -1;
        ZCom_cleanup_c(&id, 1, MPI_COMM_WORLD, &err);
        ZT_CHECK(err == ZCOM_ERR_CHANNEL, "cleanup(%d): %s", id, ZCom_strerror(err));
    }
}

/* ZCom_init_c with a size that does not fit the address space: on every process of the pair
 * (both) or only on the lower rank. */
static void huge_size(const char *what, char *p, size_t size, int both) {
    int bad = n && (both || zt_rank < peer);
    void *b = p, *att = NULL;
    size_t s = bad ? size : 4096;
    int id = -1, err = -1, fds0 = zt_count_fds(), maps0 = zt_count_zcom_maps();
    zt_capture_t cap;
    char text[4096], want[64];
    zt_capture_start(&cap);
    ZCom_init_c(&b, &s, MPI_COMM_WORLD, &peer, n, &att, &id, &err);
    zt_capture_end(&cap, text, sizeof text);
    ZT_CHECK(err == ZCOM_ERR_BUFFER, "%s (%zu bytes, %s): got %s, want ZCOM_ERR_BUFFER", what, size,
             both ? "both" : "one", ZCom_strerror(err));
    if (bad) {
        snprintf(want, sizeof want, " %zu bytes", size);
        ZT_CHECK(zt_count_lines(text, "zcom: ") == 1 && strstr(text, want) &&
                     !strstr(text, " 0 bytes"),
                 "%s: the message must be one line naming the %zu bytes asked for: [%s]", what,
                 size, text);
    }
    ZT_CHECK(zt_count_zcom_maps() == maps0 && zt_count_fds() == fds0, "%s: resources left", what);
    ZT_CHECK(zt_mapping_kind(p) == 'p', "%s: buffer left shared", what);
    if (err == ZCOM_SUCCESS) ZCom_cleanup_c(&id, n, MPI_COMM_WORLD, &err);
}

static void huge_sizes(void) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *base = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(base, 0x33, 3 * page);
    char *p = base + page, *q = base + page + 8;
    for (int both = 1; both >= 0; both--) {
        /* Start + size + page - 1 wraps to the start: formerly "cannot reserve 0 bytes". */
        huge_size("page range wraps to empty", p, SIZE_MAX - 1, both);
        /* Size + 1 wraps to 0 in the pairing exchange: formerly a channel of one page. */
        huge_size("SIZE_MAX", q, SIZE_MAX, both);
        /* The buffer ends exactly at the end of the address space. */
        huge_size("end at 2^N", q, (size_t)(UINTPTR_MAX - (uintptr_t)q) + 1, both);
        /* The page range wraps below its start. */
        huge_size("page range wraps below", p, SIZE_MAX - page, both);
        /* No wrap, just far more than is mapped: the message names the size too. */
        huge_size("half the address space", p, SIZE_MAX / 2, both);
    }
    ZT_CHECK(base[0] == 0x33 && base[3 * page - 1] == 0x33, "mapping changed");
    munmap(base, 3 * page);
}

/* A heap buffer among live and freed heap blocks of its size on the same pages. */
static void heap_neighbours(void) {
    enum { NBLK = 12, BSZ = 1000 };
    char *blk[NBLK];
    for (int i = 0; i < NBLK; i++) {
        blk[i] = malloc(BSZ);
        memset(blk[i], 0x40 + i, BSZ);
    }
    char *buf = blk[5];
    for (int i = 0; i < NBLK; i += 2) {
        if (i == 4 || i == 6) continue; /* keep the blocks next to buf, free others */
        free(blk[i]);
        blk[i] = NULL;
    }
#ifdef ZT_ASAN
    ZT_CHECK(__asan_address_is_poisoned(buf + BSZ), "ASan: the byte after buf is not poisoned");
#endif
    void *b = buf, *att = NULL;
    size_t s = BSZ;
    int id = -1, err = -1;
    ZCom_init_c(&b, &s, MPI_COMM_WORLD, &peer, n, &att, &id, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "init of a heap buffer: %s", ZCom_strerror(err));
    if (err) return;
#ifdef ZT_ASAN
    ZT_CHECK(!n || __asan_address_is_poisoned(buf + BSZ), "ASan: redzone lost at init");
    ZT_CHECK(!n || __asan_region_is_poisoned(buf, BSZ) == NULL, "ASan: buf poisoned at init");
#endif
    if (n) {
        buf[7] = (char)(90 + zt_rank);
        ZCom_have_written_c(id, &err);
        ZT_CHECK(zt_wait(ZCom_can_read_c, id), "can_read");
        const char *a = att;
        ZT_CHECK(a[7] == (char)(90 + peer) && a[0] == 0x45 && a[BSZ - 1] == 0x45,
                 "the peer's heap buffer is not as written");
        ZCom_have_read_c(id, &err);
        ZT_CHECK(zt_wait(ZCom_can_write_c, id), "can_write");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ZCom_cleanup_c(&id, n, MPI_COMM_WORLD, &err);
    ZT_CHECK(err == ZCOM_SUCCESS, "cleanup of a heap buffer: %s", ZCom_strerror(err));
    ZT_CHECK(zt_mapping_kind(buf) == 'p', "heap buffer not private after cleanup");
#ifdef ZT_ASAN
    ZT_CHECK(__asan_address_is_poisoned(buf + BSZ), "ASan: redzone lost at cleanup");
#endif
    for (int i = 0; i < NBLK; i++) {
        if (!blk[i]) continue;
        size_t bad = 0;
        for (size_t k = 0; k < BSZ; k++)
            if (blk[i][k] != (i == 5 && k == 7 && n ? (char)(90 + zt_rank) : (char)(0x40 + i)))
                bad++;
        ZT_CHECK(bad == 0, "heap block %d: %zu bytes changed", i, bad);
        free(blk[i]);
    }
}

int main(int argc, char **argv) {
    zt_init(&argc, &argv, "test_zcom_hardening");
    peer = zt_rank ^ 1;
    if (peer >= zt_size) peer = -1; /* odd process out: no channel */
    n = peer >= 0;
    odd_ids();
    if (zt_size >= 2) {
        huge_sizes();
        heap_neighbours();
    }
    return zt_finish();
}
